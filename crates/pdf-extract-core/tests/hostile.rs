//! Hostile files, built here with lopdf's writer, refused by the budgets with a typed error and
//! quickly, before pdf-extract or hayro read the page (issue 13).

use std::io::Write;
use std::time::{Duration, Instant};

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};
use pdf_extract_core::document::ExtractError;
use pdf_extract_core::{Budget, Budgets, Limits, PdfDocument, PdfError};

/// Generous: each of these is refused in milliseconds; the bound only catches a regression to
/// hours (or a stack overflow, which aborts the test binary).
const QUICK: Duration = Duration::from_secs(10);

/// A one-page PDF: `content` on a page of `media_box`, with the page resources `resources`
/// (objects added by `extra` first, which gets the document to add them to).
fn one_page(
    media_box: [f64; 4],
    content: Stream,
    extra: impl FnOnce(&mut Document) -> Dictionary,
) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let resources = extra(&mut doc);
    let content_id = doc.add_object(content);
    let pages_id = doc.new_object_id();
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
        "Resources" => resources,
        "MediaBox" => media_box.iter().map(|v| Object::Real(*v as f32)).collect::<Vec<_>>(),
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![Object::Reference(page_id)],
            "Count" => 1,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("saves");
    bytes
}

const A4: [f64; 4] = [0.0, 0.0, 595.0, 842.0];

fn form(content: &[u8], resources: Dictionary) -> Stream {
    Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
            "Resources" => resources,
        },
        content.to_vec(),
    )
}

fn xobjects(entries: &[(&str, ObjectId)]) -> Dictionary {
    let mut names = Dictionary::new();
    for (name, id) in entries {
        names.set(*name, *id);
    }
    dictionary! { "XObject" => names }
}

/// Opens the file and asks every question a caller asks before payment and during the work;
/// each must be the same typed refusal, and all of it quick.
fn assert_refused(bytes: &[u8], budgets: &Budgets, expected: Budget) {
    let started = Instant::now();
    let doc =
        PdfDocument::load_with_budgets(bytes, &Limits::DOCUMENT, budgets).expect("the file opens");
    let refusal = |result: Result<(), PdfError>| match result {
        Err(PdfError::BudgetExceeded {
            page: Some(1),
            budget,
            ..
        }) => assert_eq!(budget, expected),
        other => panic!("expected a {expected} refusal, got {other:?}"),
    };
    refusal(doc.plan(None).map(|_| ()));
    refusal(doc.has_text_layer(1).map(|_| ()));
    refusal(doc.extract_page(1).map(|_| ()));
    refusal(doc.render_page_at(1, 200.0).map(|_| ()));
    refusal(
        doc.render_page(1, &pdf_extract_core::RenderOptions::OCR)
            .map(|_| ()),
    );
    assert!(started.elapsed() < QUICK, "took {:?}", started.elapsed());
}

#[test]
fn a_form_that_draws_itself_is_refused() {
    let bytes = one_page(
        A4,
        Stream::new(Dictionary::new(), b"/X Do".to_vec()),
        |doc| {
            let id = doc.new_object_id();
            doc.objects
                .insert(id, Object::Stream(form(b"/X Do", xobjects(&[("X", id)]))));
            xobjects(&[("X", id)])
        },
    );
    // The file of the report: a few hundred bytes that overflowed pdf-extract's stack.
    assert!(bytes.len() < 1000, "{}", bytes.len());
    assert_refused(&bytes, &Budgets::DEFAULT, Budget::FormCycle);
}

#[test]
fn a_cycle_through_two_forms_is_refused() {
    let bytes = one_page(
        A4,
        Stream::new(Dictionary::new(), b"/A Do".to_vec()),
        |doc| {
            let (a, b) = (doc.new_object_id(), doc.new_object_id());
            doc.objects
                .insert(a, Object::Stream(form(b"q /B Do Q", xobjects(&[("B", b)]))));
            doc.objects
                .insert(b, Object::Stream(form(b"q /A Do Q", xobjects(&[("A", a)]))));
            xobjects(&[("A", a)])
        },
    );
    assert_refused(&bytes, &Budgets::DEFAULT, Budget::FormCycle);
}

#[test]
fn forms_fanning_out_are_refused_by_the_expanded_operator_count() {
    // A → B → C → D, each painting the next 2,000 times, D empty: 8 billion invocations and
    // not one glyph, so the glyph limit never fires.
    let calls = |name: &str| format!("/{name} Do ").repeat(2000).into_bytes();
    let bytes = one_page(
        A4,
        Stream::new(Dictionary::new(), b"/A Do".to_vec()),
        |doc| {
            let d = doc.add_object(form(b"", Dictionary::new()));
            let c = doc.add_object(form(&calls("D"), xobjects(&[("D", d)])));
            let b = doc.add_object(form(&calls("C"), xobjects(&[("C", c)])));
            let a = doc.add_object(form(&calls("B"), xobjects(&[("B", b)])));
            xobjects(&[("A", a)])
        },
    );
    assert_refused(&bytes, &Budgets::DEFAULT, Budget::Operators);
}

#[test]
fn forms_nested_too_deep_are_refused() {
    // 20 distinct forms, each painting the next once: no cycle, little work, too deep.
    let bytes = one_page(
        A4,
        Stream::new(Dictionary::new(), b"/F Do".to_vec()),
        |doc| {
            let mut next = doc.add_object(form(b"0 0 m 10 10 l S", Dictionary::new()));
            for _ in 0..20 {
                next = doc.add_object(form(b"/F Do", xobjects(&[("F", next)])));
            }
            xobjects(&[("F", next)])
        },
    );
    assert_refused(&bytes, &Budgets::DEFAULT, Budget::FormDepth);
    // Within the depth budget the same construction reads fine.
    let shallow = one_page(
        A4,
        Stream::new(Dictionary::new(), b"/F Do".to_vec()),
        |doc| {
            let mut next = doc.add_object(form(b"0 0 m 10 10 l S", Dictionary::new()));
            for _ in 0..5 {
                next = doc.add_object(form(b"/F Do", xobjects(&[("F", next)])));
            }
            xobjects(&[("F", next)])
        },
    );
    let doc = PdfDocument::load(&shallow, &Limits::DOCUMENT).expect("opens");
    let work = doc.page_work(1).expect("within budget");
    assert_eq!(work.nesting, 6);
    assert!(doc.extract_page(1).is_ok());
}

/// A FlateDecode stream of `text` followed by `spaces` spaces, compressed piece by piece so
/// neither the test nor the file holds the inflated size.
fn flate_bomb(text: &[u8], spaces: usize) -> Stream {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(text).expect("compresses");
    let chunk = vec![b' '; 1 << 20];
    let mut left = spaces;
    while left > 0 {
        let n = left.min(chunk.len());
        encoder.write_all(&chunk[..n]).expect("compresses");
        left -= n;
    }
    let compressed = encoder.finish().expect("compresses");
    let mut stream = Stream::new(dictionary! { "Filter" => "FlateDecode" }, compressed);
    stream.allows_compression = false;
    stream
}

fn font_resources() -> Dictionary {
    dictionary! {
        "Font" => dictionary! {
            "F1" => dictionary! {
                "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            },
        },
    }
}

#[test]
fn a_content_stream_inflating_past_the_cap_is_refused() {
    // Five plausible characters (too few to trust over a scan: the page would be rendered),
    // then 48 MiB of spaces, past the 32 MiB stream cap.
    let budgets = Budgets::DEFAULT;
    let spaces = 48 << 20;
    let content = flate_bomb(b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET", spaces);
    let bytes = one_page(A4, content, |_| font_resources());
    assert!(bytes.len() < 200_000, "{}", bytes.len());
    assert_refused(&bytes, &budgets, Budget::StreamBytes);
}

#[test]
fn page_content_and_document_totals_are_capped() {
    // Three content streams of 3 MiB each: each within a 4 MiB stream cap, together past an
    // 8 MiB page cap.
    let budgets = Budgets {
        max_stream_bytes: 4 << 20,
        max_page_content_bytes: 8 << 20,
        ..Budgets::DEFAULT
    };
    let mut doc = Document::with_version("1.5");
    let parts: Vec<Object> = (0..3)
        .map(|_| Object::Reference(doc.add_object(flate_bomb(b"0 0 m", 3 << 20))))
        .collect();
    let pages_id = doc.new_object_id();
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => parts,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![Object::Reference(page_id)], "Count" => 1,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("saves");
    assert_refused(&bytes, &budgets, Budget::PageContentBytes);
    // The same file against a document total of 5 MiB.
    let budgets = Budgets {
        max_stream_bytes: 4 << 20,
        max_document_bytes: 5 << 20,
        ..Budgets::DEFAULT
    };
    assert_refused(&bytes, &budgets, Budget::DocumentBytes);
}

#[test]
fn an_image_inflating_past_its_declared_size_is_refused() {
    // A 1 × 1 grey image whose data inflates to 40 MiB: past the stream cap and far past the
    // one byte its dictionary declares.
    let bytes = one_page(
        A4,
        Stream::new(Dictionary::new(), b"q 100 0 0 100 0 0 cm /Im Do Q".to_vec()),
        |doc| {
            let mut image = flate_bomb(b"", 40 << 20);
            image.dict.set("Type", "XObject");
            image.dict.set("Subtype", "Image");
            image.dict.set("Width", 1);
            image.dict.set("Height", 1);
            image.dict.set("ColorSpace", "DeviceGray");
            image.dict.set("BitsPerComponent", 8);
            let id = doc.add_object(image);
            xobjects(&[("Im", id)])
        },
    );
    assert_refused(&bytes, &Budgets::DEFAULT, Budget::StreamBytes);
}

#[test]
fn too_many_objects_are_refused_at_load() {
    // One array of 300,000 numbers (the shape of the object-stream bomb, smaller).
    let mut doc = Document::with_version("1.5");
    let numbers: Vec<Object> = (0..300_000).map(|_| Object::Integer(0)).collect();
    doc.add_object(Object::Array(numbers));
    let pages_id = doc.new_object_id();
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![Object::Reference(page_id)], "Count" => 1,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("saves");
    let budgets = Budgets {
        max_objects: 100_000,
        ..Budgets::DEFAULT
    };
    match PdfDocument::load_with_budgets(&bytes, &Limits::DOCUMENT, &budgets) {
        Err(PdfError::BudgetExceeded {
            page: None,
            budget: Budget::Objects,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Within the default budget the file opens.
    assert!(PdfDocument::load(&bytes, &Limits::DOCUMENT).is_ok());
}

#[test]
fn a_huge_page_is_rendered_within_the_pixel_cap_or_refused() {
    // 23,000 pt square: 16 GB of RGBA at 200 dpi.
    let content = Stream::new(Dictionary::new(), b"0 0 m 100 100 l S".to_vec());
    let bytes = one_page([0.0, 0.0, 23_000.0, 23_000.0], content, |_| {
        Dictionary::new()
    });
    let started = Instant::now();
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("opens");
    // Reading its text is fine; every render is refused, whatever resolution is asked for.
    assert!(doc.plan(None).is_ok());
    for render in [
        doc.render_page_at(1, 200.0),
        doc.render_page_at(1, 72.0),
        doc.render_page(1, &pdf_extract_core::RenderOptions::OCR),
    ] {
        assert!(
            matches!(
                render,
                Err(PdfError::BudgetExceeded {
                    page: Some(1),
                    budget: Budget::RenderPixels,
                    ..
                })
            ),
            "{render:?}"
        );
    }
    assert!(started.elapsed() < QUICK);
    // A poster that fits at a lower resolution is rendered at it, within the cap.
    let content = Stream::new(Dictionary::new(), b"0 0 m 100 100 l S".to_vec());
    let poster = one_page([0.0, 0.0, 3000.0, 3000.0], content, |_| Dictionary::new());
    let doc = PdfDocument::load(&poster, &Limits::DOCUMENT).expect("opens");
    let image = doc.render_page_at(1, 200.0).expect("renders");
    let pixels = u64::from(image.width) * u64::from(image.height);
    assert!(pixels <= Budgets::DEFAULT.max_render_pixels, "{pixels}");
    assert!(image.dpi < 200.0 && image.dpi >= Budgets::DEFAULT.min_render_dpi);
    assert_eq!(image.luma.len() as u64, pixels);
}

/// A page `depth` levels below the root of the page tree, the media box only on the root.
fn deep_tree(depth: usize, media_box: [f64; 4]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let root_id = doc.new_object_id();
    let mut parent = root_id;
    let mut nodes = vec![root_id];
    for _ in 1..depth {
        let id = doc.new_object_id();
        nodes.push(id);
        let _ = parent;
        parent = id;
    }
    let content = doc.add_object(Stream::new(
        Dictionary::new(),
        b"0 0 m 100 100 l S".to_vec(),
    ));
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => parent, "Contents" => content,
    });
    for (i, id) in nodes.iter().enumerate() {
        let kid = nodes.get(i + 1).copied().unwrap_or(page_id);
        let mut node = dictionary! {
            "Type" => "Pages", "Kids" => vec![Object::Reference(kid)], "Count" => 1,
        };
        if i == 0 {
            node.set(
                "MediaBox",
                media_box
                    .iter()
                    .map(|v| Object::Real(*v as f32))
                    .collect::<Vec<_>>(),
            );
        } else {
            node.set("Parent", nodes[i - 1]);
        }
        doc.objects.insert(*id, Object::Dictionary(node));
    }
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => root_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("saves");
    bytes
}

#[test]
fn a_page_deeper_than_the_inherited_lookup_is_refused() {
    // 40 levels: lopdf's lookup would stop at 32 and take the page for US Letter while hayro
    // draws the root's 23,000 pt media box.
    let bytes = deep_tree(40, [0.0, 0.0, 23_000.0, 23_000.0]);
    match PdfDocument::load(&bytes, &Limits::DOCUMENT) {
        Err(PdfError::BudgetExceeded {
            budget: Budget::PageTreeDepth,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Ten levels: the inherited box is seen, and the pixel cap then applies to it.
    let bytes = deep_tree(10, [0.0, 0.0, 23_000.0, 23_000.0]);
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("opens");
    assert_eq!(doc.page_size(1), Ok((23_000.0, 23_000.0)));
    assert!(matches!(
        doc.render_page_at(1, 200.0),
        Err(PdfError::BudgetExceeded {
            budget: Budget::RenderPixels,
            ..
        })
    ));
}

/// 10,000 horizontal and 10,000 vertical hairlines, all crossing: a 10,000 × 10,000 lattice.
fn ruling_grid(n: usize) -> Vec<doc_model::Ruling> {
    let mut rulings = Vec::with_capacity(2 * n);
    for i in 0..n {
        let at = 10.0 + i as f64 * 0.25;
        rulings.push(doc_model::Ruling::new(10.0, at, 2600.0, at));
        rulings.push(doc_model::Ruling::new(at, 10.0, at, 2600.0));
    }
    rulings
}

#[test]
fn find_tables_on_a_page_of_20000_rulings_finishes_quickly() {
    let page = doc_model::Page {
        page: 1,
        width: 2610.0,
        height: 2610.0,
        coordinate_frame: doc_model::CoordinateFrame::PdfPointsTopLeft,
        method: doc_model::PageMethod::TextLayer,
        rotation: 0,
        columns: 1,
        lines: Vec::new(),
        rulings: ruling_grid(10_000),
        recogniser: None,
    };
    let started = Instant::now();
    // Quadratic grouping and a 100-million-cell grid before the cap: hours.
    assert!(doc_analysis::find_tables(&page).is_empty());
    assert!(started.elapsed() < QUICK, "took {:?}", started.elapsed());
}

/// Stands in for an OCR pool of one engine: renders only once it holds the engine, and
/// records how many rendered pages were alive at once.
struct OneEngine {
    engine: std::sync::Mutex<()>,
    rendered: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
}

impl pdf_extract_core::document::PageRecognizer for OneEngine {
    fn recognize(
        &self,
        _: &pdf_extract_core::PageImage,
        page: u32,
    ) -> Result<doc_model::Page, ExtractError> {
        Err(ExtractError::recognition(
            page,
            format!("page {page} should come through render_and_recognize"),
        ))
    }

    fn render_and_recognize(
        &self,
        page: u32,
        render: &mut dyn FnMut() -> Result<pdf_extract_core::PageImage, ExtractError>,
    ) -> Result<(doc_model::Page, pdf_extract_core::PageImage), ExtractError> {
        use std::sync::atomic::Ordering;
        let _engine = self.engine.lock().unwrap_or_else(|e| e.into_inner());
        let image = render()?;
        let alive = self.rendered.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(alive, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(20));
        self.rendered.fetch_sub(1, Ordering::SeqCst);
        let width = f64::from(image.width) * 72.0 / image.dpi;
        let height = f64::from(image.height) * 72.0 / image.dpi;
        let word = doc_model::Word {
            text: "Rechnung".into(),
            bbox: doc_model::PageBox::from_edges(page, 10.0, 10.0, 80.0, 22.0),
            confidence: doc_model::Confidence::CERTAIN,
        };
        let line = doc_model::Line {
            order: 0,
            column: 0,
            text: "Rechnung".into(),
            bbox: word.bbox,
            font_size: None,
            confidence: doc_model::Confidence::CERTAIN,
            low_confidence: false,
            words: vec![word],
        };
        Ok((
            doc_model::Page {
                page,
                width,
                height,
                coordinate_frame: doc_model::CoordinateFrame::PdfPointsTopLeft,
                method: doc_model::PageMethod::Ocr,
                rotation: 0,
                columns: 1,
                lines: vec![line],
                rulings: ruling_grid(10_000),
                recogniser: None,
            },
            image,
        ))
    }
}

#[test]
fn pages_are_rendered_when_an_engine_is_free_and_rulings_do_not_stall_the_call() {
    use pdf_extract_core::document::{ExtractOptions, PagePlan, extract_document};
    let bytes = one_page(
        A4,
        Stream::new(Dictionary::new(), b"0 0 m 100 100 l S".to_vec()),
        |_| Dictionary::new(),
    );
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("opens");
    let plan: Vec<PagePlan> = (0..6)
        .map(|_| PagePlan {
            page: 1,
            text_layer: false,
        })
        .collect();
    let recognizer = OneEngine {
        engine: std::sync::Mutex::new(()),
        rendered: 0.into(),
        most: 0.into(),
    };
    let options = ExtractOptions {
        ocr_render: pdf_extract_core::RenderOptions {
            default_dpi: 72.0,
            ..pdf_extract_core::RenderOptions::OCR
        },
        workers: 3,
        ..ExtractOptions::default()
    };
    let started = Instant::now();
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let extraction =
        extract_document(&doc, &plan, &recognizer, None, &options, &cancel).expect("reads");
    assert_eq!(extraction.pages_processed, 6);
    assert!(started.elapsed() < QUICK, "took {:?}", started.elapsed());
    // Three page threads, one engine: never more than one rendered page at a time.
    assert_eq!(recognizer.most.load(std::sync::atomic::Ordering::SeqCst), 1);
    // A cancelled call stops before the table pass as well.
    cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(matches!(
        extract_document(&doc, &plan, &recognizer, None, &options, &cancel),
        Err(ExtractError::Cancelled)
    ));
}
