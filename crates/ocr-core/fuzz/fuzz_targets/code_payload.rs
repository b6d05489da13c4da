//! Any text, decoded from any bytes, must parse into some payload without panicking, and every
//! URL in it must come back unchecked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (_, urls) = ocr_core::codes::parse_payload(&text);
    assert!(urls.iter().all(|url| !url.checked));
});
