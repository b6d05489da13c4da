//! What docs-server's planning worker does with a caller's file before naming a price: open it
//! under the `/document` limits and plan the selected pages. Any bytes and any page selector
//! must end in a plan or an error, never a panic, and a plan names only pages the selector
//! allows (1-based, at most the limit's count).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pdf_extract_core::{Limits, PdfDocument};

fuzz_target!(|data: &[u8]| {
    // pdf-extract panics on purpose on some broken files and `PdfDocument` catches that
    // (`catch_unwind`, answered as an error). libfuzzer-sys's panic hook aborts on any panic,
    // caught or not, so the default hook is put back: a panic that escapes still aborts (the
    // harness catches it around this closure) and is reported.
    static DEFAULT_HOOK: std::sync::Once = std::sync::Once::new();
    DEFAULT_HOOK.call_once(|| drop(std::panic::take_hook()));
    // The first byte: how many of the following bytes are the selector (0: none, all pages).
    let Some((&length, rest)) = data.split_first() else {
        return;
    };
    let length = usize::from(length % 24).min(rest.len());
    let (selector, file) = rest.split_at(length);
    let selector = (length > 0).then(|| String::from_utf8_lossy(selector).into_owned());
    let limits = Limits::DOCUMENT;
    let Ok(document) = PdfDocument::load(file, &limits) else {
        return;
    };
    if let Ok(plan) = document.plan(selector.as_deref()) {
        assert!(
            plan.len() <= limits.max_pages as usize,
            "{} pages planned",
            plan.len()
        );
        assert!(plan.iter().all(|p| p.page >= 1), "page 0 planned");
    }
});
