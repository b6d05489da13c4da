//! Any small grey image (first two bytes give the width and height) must be searched without a
//! panic escaping and with every box inside the page.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ocr_core::codes::{CodeOptions, read_codes};

fuzz_target!(|data: &[u8]| {
    let [w, h, pixels @ ..] = data else {
        return;
    };
    let (width, height) = (u32::from(*w), u32::from(*h));
    let needed = (width * height) as usize;
    if pixels.len() < needed {
        return;
    }
    let options = CodeOptions {
        max_codes: 4,
        ..CodeOptions::default()
    };
    if let Ok(codes) = read_codes(&pixels[..needed], width, height, 1, &options) {
        for code in codes {
            assert!(code.bbox.w.is_finite() && code.bbox.h.is_finite());
        }
    }
});
