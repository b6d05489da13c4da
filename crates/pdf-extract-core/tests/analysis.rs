//! Tables, key-value pairs and header fields on the committed PDF fixtures (`testdata/pdf/`),
//! through the real loader and text extractor.

use doc_analysis::header::extract_header;
use doc_analysis::key_values::find_key_values;
use doc_analysis::tables::find_tables;
use doc_model::{HeaderFieldName, HeaderFields, Page, TableMethod};
use pdf_extract_core::{Limits, PdfDocument};

fn pages(name: &str) -> Vec<Page> {
    let path = format!("{}/../../testdata/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("fixture exists");
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("fixture loads");
    (1..=doc.page_count())
        .map(|p| doc.extract_page(p).expect("page extracts"))
        .collect()
}

fn value(header: &HeaderFields, name: HeaderFieldName) -> Option<&str> {
    header.get(name).map(|f| f.value.as_str())
}

#[test]
fn german_zugferd_invoice_header_matches_its_xml() {
    let pages = pages("zugferd_basic_einfach.pdf");
    let key_values: Vec<_> = pages.iter().flat_map(find_key_values).collect();
    let header = extract_header(&pages, &key_values);
    eprintln!(
        "{}",
        serde_json::to_string_pretty(&header).unwrap_or_default()
    );
    // Ground truth: the invoice's embedded ZUGFeRD XML (never read here).
    use HeaderFieldName as F;
    let expected = [
        (F::InvoiceNumber, "471102"),
        (F::IssueDate, "2013-03-05"),
        (F::Currency, "EUR"),
        (F::SellerName, "Lieferant GmbH"),
        (F::SellerVatId, "DE123456789"),
        (F::SellerTaxNumber, "201/113/40209"),
        (F::BuyerName, "Kunden AG Mitte"),
        (F::NetTotal, "198.00"),
        (F::TaxTotal, "37.62"),
        (F::GrossTotal, "235.62"),
        (F::Iban, "DE08700901001234567890"),
        (F::Bic, "GENODEF1M04"),
        (F::CustomerNumber, "GE2020211"),
        (F::DeliveryDate, "2013-03-05"),
    ];
    for (field, want) in expected {
        assert_eq!(value(&header, field), Some(want), "{}", field.as_str());
    }
    assert_eq!(value(&header, F::DocumentType), Some("invoice"));
    // Printed but not in the XML: the due date of the payment terms.
    assert_eq!(value(&header, F::DueDate), Some("2013-04-04"));
    // Not printed: nothing is invented.
    assert_eq!(value(&header, F::OrderNumber), None);
    assert_eq!(value(&header, F::BuyerVatId), None);
    for name in HeaderFieldName::ALL {
        if let Some(field) = header.get(*name) {
            assert_eq!(field.source.page, 1);
            assert!(field.confidence.value() > 0.0 && field.confidence.value() <= 1.0);
        }
    }
    let tables: Vec<_> = pages.iter().flat_map(find_tables).collect();
    insta::assert_json_snapshot!("zugferd_basic_einfach", (&header, &key_values, &tables));
}

#[test]
fn english_invoice_header() {
    let pages = pages("azure_interior.pdf");
    let key_values: Vec<_> = pages.iter().flat_map(find_key_values).collect();
    let header = extract_header(&pages, &key_values);
    eprintln!(
        "{}",
        serde_json::to_string_pretty(&header).unwrap_or_default()
    );
    let tables: Vec<_> = pages.iter().flat_map(find_tables).collect();
    insta::assert_json_snapshot!("azure_interior", (&header, &key_values, &tables));
}

#[test]
fn ruled_table_is_found_as_a_lattice() {
    let pages = pages("ruled_table.pdf");
    let tables: Vec<_> = pages.iter().flat_map(find_tables).collect();
    let lattice: Vec<_> = tables
        .iter()
        .filter(|t| t.method == TableMethod::Ruling)
        .collect();
    assert_eq!(lattice.len(), 1, "{tables:#?}");
    assert_eq!((lattice[0].rows, lattice[0].cols), (4, 5));
    let key_values = find_key_values(&pages[0]);
    let keys: Vec<&str> = key_values.iter().map(|kv| kv.key.as_str()).collect();
    assert!(keys.contains(&"Rechnungsdatum"), "{keys:?}");
    assert!(keys.contains(&"Währung"), "{keys:?}");
}
