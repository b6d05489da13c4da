//! What docs-server's planning worker does with a caller's picture before naming a price:
//! read its header only (format, size, EXIF orientation) against the `/ocr` limits. Any bytes
//! under any declared type must end in a size or an error, never a panic, and an accepted size
//! is within the limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ocr_core::preprocess::{ImageLimits, ImageMime, probe_image};

fuzz_target!(|data: &[u8]| {
    let Some((&kind, file)) = data.split_first() else {
        return;
    };
    let declared = match kind % 3 {
        0 => ImageMime::Png,
        1 => ImageMime::Jpeg,
        _ => ImageMime::Webp,
    };
    let limits = ImageLimits::default();
    if let Ok((width, height)) = probe_image(file, declared, &limits) {
        assert!(width <= limits.max_width, "{width} wide accepted");
        assert!(u64::from(width) * u64::from(height) <= limits.max_pixels);
    }
});
