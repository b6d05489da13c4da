//! Any body of `/document` and `/ocr` through their validators and the rules applied before a
//! file is touched (one source, page selectors, languages, a caller's output schema): a
//! request or a refusal with a field, never a panic; a refusal is a 4xx in the error model.
#![no_main]

use std::sync::OnceLock;

use docs_server::requests::{DocumentRequest, OcrRequest, one_source};
use libfuzzer_sys::fuzz_target;
use server_kit::{ApiError, JsonValidator};

fn validators() -> &'static (JsonValidator<DocumentRequest>, JsonValidator<OcrRequest>) {
    static VALIDATORS: OnceLock<(JsonValidator<DocumentRequest>, JsonValidator<OcrRequest>)> =
        OnceLock::new();
    VALIDATORS.get_or_init(|| {
        (
            JsonValidator::new().expect("document schema"),
            JsonValidator::new().expect("ocr schema"),
        )
    })
}

fn refused(error: &ApiError) {
    let status = error.status().as_u16();
    assert!(
        (400..500).contains(&status),
        "refused with {status}: {error}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let (document, ocr) = validators();
    if pick % 2 == 0 {
        match document.parse(body) {
            Ok(mut request) => {
                if let Err(e) = request.check() {
                    return refused(&e);
                }
                if let Err(e) = request.caller_schema() {
                    return refused(&e);
                }
                // The selector against a document of 1 to 256 pages, under the 20-page limit.
                let pages = u32::from(pick / 2) + 1;
                if let Ok(selected) =
                    pdf_extract_core::select_pages(request.pages.as_deref(), pages, 20)
                {
                    assert!(selected.len() <= 20);
                    assert!(selected.iter().all(|p| (1..=pages).contains(p)));
                }
                let _ = request.options(&[1, 2]);
            }
            Err(e) => refused(&e),
        }
    } else {
        match ocr.parse(body) {
            Ok(request) => {
                if let Err(e) = request.check() {
                    return refused(&e);
                }
                let _ = request.wanted();
                let _ = request.language_list();
            }
            Err(e) => refused(&e),
        }
    }
    let _ = one_source(pick & 2 == 0, pick & 4 == 0, "pdf_base64").map_err(|e| refused(&e));
});
