//! The e-invoice XML embedded in a PDF: read from the committed ZUGFeRD fixture, compared with
//! the printed header, and hostile or broken embedded files reported without failing.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use doc_model::{HeaderFieldName, InvoiceSyntax, Page};
use lopdf::{Document, Object, Stream, dictionary};
use pdf_extract_core::document::{ExtractError, ExtractOptions, PageRecognizer, extract_document};
use pdf_extract_core::embedded::MAX_EMBEDDED_BYTES;
use pdf_extract_core::{Limits, PageImage, PdfDocument};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../testdata/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).expect("fixture exists")
}

/// No page here needs OCR.
struct NoOcr;

impl PageRecognizer for NoOcr {
    fn recognize(&self, _image: &PageImage, page: u32) -> Result<Page, ExtractError> {
        Err(ExtractError::recognition(page, "no OCR in this test"))
    }
}

#[test]
fn the_zugferd_fixture_carries_its_invoice_and_the_page_agrees() {
    let doc =
        PdfDocument::load(&fixture("zugferd_basic_einfach.pdf"), &Limits::DOCUMENT).expect("loads");
    let files = doc.embedded_files();
    assert!(
        files
            .iter()
            .any(|f| f.name.eq_ignore_ascii_case("zugferd-invoice.xml")),
        "{:?}",
        files.iter().map(|f| &f.name).collect::<Vec<_>>()
    );
    let plan = doc.plan(None).expect("plans");
    let extraction = extract_document(
        &doc,
        &plan,
        &NoOcr,
        None,
        &ExtractOptions::default(),
        &AtomicBool::new(false),
    )
    .expect("reads");
    let invoice = extraction.embedded_invoice.expect("embedded invoice");
    assert_eq!(invoice.syntax, Some(InvoiceSyntax::Cii));
    assert!(invoice.problems.is_empty(), "{:?}", invoice.problems);
    assert_eq!(
        invoice
            .fields
            .get(&HeaderFieldName::InvoiceNumber)
            .map(String::as_str),
        Some("471102")
    );
    assert_eq!(
        invoice
            .fields
            .get(&HeaderFieldName::GrossTotal)
            .map(String::as_str),
        Some("235.62")
    );
    assert!(!invoice.line_items.is_empty());
    // Every printed field the XML also gives is compared; on this invoice they agree.
    let header = &extraction.header;
    let mut compared = 0;
    for name in HeaderFieldName::ALL {
        if let Some(field) = header.get(*name) {
            let in_xml = invoice.fields.contains_key(name);
            assert_eq!(
                field.agrees_with_embedded.is_some(),
                in_xml,
                "{}",
                name.as_str()
            );
            compared += usize::from(in_xml);
        }
    }
    assert!(compared >= 8, "{compared}");
    assert_eq!(
        header
            .invoice_number
            .as_ref()
            .and_then(|f| f.agrees_with_embedded),
        Some(true)
    );
    // The answer carries it on the wire.
    let json = serde_json::to_value(header).expect("serialises");
    assert_eq!(json["invoice_number"]["agrees_with_embedded"], true);
}

#[test]
fn a_pdf_without_embedded_files_has_no_invoice() {
    let doc = PdfDocument::load(&fixture("multipage.pdf"), &Limits::DOCUMENT).expect("loads");
    assert!(doc.embedded_files().is_empty());
    assert!(doc.embedded_invoice().is_none());
}

/// A one-page PDF embedding `content` as `name` (through the EmbeddedFiles name tree).
fn with_attachment(name: &str, content: Stream) -> Vec<u8> {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![Object::Reference(page_id)], "Count" => 1,
        }),
    );
    let file_id = doc.add_object(content);
    let spec_id = doc.add_object(dictionary! {
        "Type" => "Filespec",
        "F" => Object::string_literal(name),
        "UF" => Object::string_literal(name),
        "EF" => dictionary! { "F" => file_id, "UF" => file_id },
    });
    let names = dictionary! {
        "EmbeddedFiles" => dictionary! {
            "Names" => vec![Object::string_literal(name), Object::Reference(spec_id)],
        },
    };
    let catalog = doc.add_object(dictionary! {
        "Type" => "Catalog",
        "Pages" => pages_id,
        "Names" => names,
        "AF" => vec![Object::Reference(spec_id)],
    });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("saves");
    bytes
}

fn deflated(data: &[u8]) -> Stream {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).expect("compresses");
    let compressed = encoder.finish().expect("compresses");
    Stream::new(
        dictionary! { "Type" => "EmbeddedFile", "Filter" => "FlateDecode" },
        compressed,
    )
}

#[test]
fn an_embedded_file_that_inflates_too_far_is_reported_not_read() {
    // 64 MiB of zeros in about 64 KB: inflating stops at the cap.
    let zeros = vec![0u8; 64 * 1024 * 1024];
    let bytes = with_attachment("factur-x.xml", deflated(&zeros));
    assert!(bytes.len() < 1024 * 1024);
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("loads");
    // Named once although both the name tree and AF point at it.
    assert_eq!(doc.embedded_files().len(), 1);
    let invoice = doc.embedded_invoice().expect("an answer");
    assert!(invoice.fields.is_empty());
    assert!(
        invoice.problems[0].contains(&MAX_EMBEDDED_BYTES.to_string()),
        "{:?}",
        invoice.problems
    );
}

#[test]
fn a_broken_embedded_xml_is_a_problem() {
    let bytes = with_attachment(
        "factur-x.xml",
        deflated(b"<rsm:CrossIndustryInvoice xmlns:rsm=\"x\"><rsm:ExchangedDocument>"),
    );
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("loads");
    let invoice = doc.embedded_invoice().expect("an answer");
    assert_eq!(invoice.file_name, "factur-x.xml");
    assert!(invoice.syntax.is_none());
    assert!(
        invoice.problems[0].contains("not well-formed"),
        "{:?}",
        invoice.problems
    );
}
