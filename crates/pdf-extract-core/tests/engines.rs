//! What `extract_document` does with a recognizer's and a code scanner's failures: the page is
//! named, the message is the one the server quotes, and the engine's own error stays reachable
//! as the source.

use std::error::Error as _;
use std::sync::atomic::AtomicBool;

use doc_model::{Code, Page};
use pdf_extract_core::document::{
    CodeScanner, ExtractError, ExtractOptions, PagePlan, PageRecognizer, extract_document,
};
use pdf_extract_core::{Limits, PageImage, PdfDocument};

/// An engine's own error type, which pdf-extract-core does not know.
#[derive(Debug, thiserror::Error)]
#[error("engine {0} gave up")]
struct EngineFailure(u32);

struct FailingRecognizer;

impl PageRecognizer for FailingRecognizer {
    fn recognize(&self, _: &PageImage, page: u32) -> Result<Page, ExtractError> {
        Err(ExtractError::recognition(page, EngineFailure(7)))
    }
}

struct FailingScanner;

impl CodeScanner for FailingScanner {
    fn scan(&self, _: &PageImage, page: u32) -> Result<Vec<Code>, ExtractError> {
        Err(ExtractError::code_scan(page, EngineFailure(9)))
    }
}

fn fixture(name: &str) -> PdfDocument {
    let path = format!("{}/../../testdata/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("fixture exists");
    PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("fixture loads")
}

fn extract(
    document: &PdfDocument,
    text_layer: bool,
    codes: Option<&dyn CodeScanner>,
) -> Result<doc_model::DocumentExtraction, ExtractError> {
    let plan = [PagePlan {
        page: 1,
        text_layer,
    }];
    let options = ExtractOptions {
        workers: 1,
        ..ExtractOptions::default()
    };
    extract_document(
        document,
        &plan,
        &FailingRecognizer,
        codes,
        &options,
        &AtomicBool::new(false),
    )
}

#[test]
fn a_recognizer_failure_keeps_its_source() {
    let error = extract(&fixture("image_only.pdf"), false, None).expect_err("recognition fails");
    assert_eq!(
        error.to_string(),
        "page 1: recognition failed: engine 7 gave up"
    );
    assert!(matches!(error, ExtractError::Recognition { page: 1, .. }));
    let source = error.source().expect("the engine's error is the source");
    let failure = source
        .downcast_ref::<EngineFailure>()
        .expect("of the engine's own type");
    assert_eq!(failure.0, 7);
}

#[test]
fn a_code_scan_failure_keeps_its_source() {
    // A text-layer page: no recognition, the page is rendered for the code scan only.
    let error = extract(
        &fixture("zugferd_basic_einfach.pdf"),
        true,
        Some(&FailingScanner),
    )
    .expect_err("the code scan fails");
    assert_eq!(
        error.to_string(),
        "page 1: code scan failed: engine 9 gave up"
    );
    let failure = error
        .source()
        .and_then(|source| source.downcast_ref::<EngineFailure>())
        .expect("the scanner's own error");
    assert_eq!(failure.0, 9);
}
