//! Barcodes and QR codes: every code on a page found, decoded, located and its payload parsed.
//!
//! [`read_codes`] takes a grey image and returns one [`Code`] per symbol, in the pixels of that
//! image ([`scale_code`] moves it into another frame, e.g. PDF points). Detection runs rxing in
//! restricted passes (2D symbologies, then 1D), blanks out each symbol it found and runs again,
//! so several codes per page are all found, each once; a half-resolution pass and a
//! global-threshold / inverted retry follow within a fixed number of decoder calls. With the
//! cargo feature `zxing-cpp`, [`Engine::ZxingCpp`] and [`Engine::Both`] add the zxing-cpp
//! decoder (C++, compiled from the crate's bundled sources).
//!
//! [`parse_payload`] turns a decoded text into URL, WLAN, vCard/MECARD, EPC (GiroCode) SEPA
//! transfer, Swiss QR-bill or calendar payloads; anything else is text. A URL found in a code
//! is reported with `checked: false` and never opened, fetched or resolved (spec rule 5).

mod detect;
mod geometry;
mod payload;
#[cfg(feature = "zxing-cpp")]
mod zxing;

use doc_model::{Code, PageBox, Point};

use crate::OcrError;

use detect::RxingPlan;
pub use payload::parse_payload;

/// The largest image accepted, in pixels (the service refuses images over 10000 pixels wide;
/// this bounds the working copy the detector makes).
pub const MAX_PIXELS: u64 = 100_000_000;

/// Which decoder reads the codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// rxing (pure Rust), in restricted passes with blanking and retries.
    #[default]
    Rxing,
    /// zxing-cpp only.
    #[cfg(feature = "zxing-cpp")]
    ZxingCpp,
    /// zxing-cpp first, then rxing on the page with zxing-cpp's finds blanked out, for the
    /// symbologies and with the retries where it adds finds (QR, Data Matrix, PDF417; global
    /// threshold, upscaled small images). On an image under a million pixels (a photo of one
    /// code, not a page) rxing looks only when zxing-cpp found nothing.
    #[cfg(feature = "zxing-cpp")]
    Both,
}

/// How hard [`read_codes`] looks.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeOptions {
    /// The decoder.
    pub engine: Engine,
    /// Scan every row and both orientations (try-harder); slower, finds more. For
    /// [`Engine::Both`] it applies to zxing-cpp; rxing's second look there skips it.
    pub try_harder: bool,
    /// After the full-resolution passes, also try half resolution, a global threshold and
    /// inverted (light on dark) codes.
    pub retries: bool,
    /// At most this many codes are reported per image; this also bounds the decoder calls.
    pub max_codes: usize,
}

impl Default for CodeOptions {
    fn default() -> Self {
        Self {
            engine: Engine::default(),
            try_harder: true,
            retries: true,
            max_codes: 32,
        }
    }
}

/// Finds, decodes and locates every code in a grey image (one byte per pixel, rows top to
/// bottom, no padding). Boxes are in pixels of this image; `page` is copied into each code.
/// An empty image has no codes. Never panics: a decoder panic on an odd image is caught and
/// counted as "nothing found" for that pass.
pub fn read_codes(
    luma: &[u8],
    width: u32,
    height: u32,
    page: u32,
    options: &CodeOptions,
) -> Result<Vec<Code>, OcrError> {
    let pixels = u64::from(width) * u64::from(height);
    if luma.len() as u64 != pixels {
        return Err(OcrError::BufferSize {
            width,
            height,
            expected: usize::try_from(pixels).unwrap_or(usize::MAX),
            actual: luma.len(),
        });
    }
    if pixels > MAX_PIXELS {
        return Err(OcrError::ImageTooLarge {
            width,
            height,
            pixels,
            max: MAX_PIXELS,
        });
    }
    if pixels == 0 {
        return Ok(Vec::new());
    }
    let image = geometry::GreyImage {
        pixels: luma,
        width: width as usize,
        height: height as usize,
    };
    let found = match options.engine {
        Engine::Rxing => detect::read_rxing(&image, options, RxingPlan::alone(options), Vec::new()),
        #[cfg(feature = "zxing-cpp")]
        Engine::ZxingCpp => zxing::read_zxing_cpp(&image, options),
        #[cfg(feature = "zxing-cpp")]
        Engine::Both => {
            let first = zxing::read_zxing_cpp(&image, options);
            if !first.is_empty() && detect::is_small_image(&image) {
                detect::sorted(first)
            } else {
                detect::read_rxing(&image, options, RxingPlan::after_zxing_cpp(options), first)
            }
        }
    };
    Ok(found
        .into_iter()
        .map(|symbol| symbol.into_code(page))
        .collect())
}

/// The code with every coordinate multiplied by `factor` (e.g. `72 / dpi` to go from pixels of
/// a rendered page to PDF points).
pub fn scale_code(mut code: Code, factor: f64) -> Code {
    for point in &mut code.quad {
        *point = Point {
            x: doc_model::round2(point.x * factor),
            y: doc_model::round2(point.y * factor),
        };
    }
    let b = code.bbox;
    code.bbox = PageBox::from_edges(
        b.page,
        b.x * factor,
        b.y * factor,
        b.right() * factor,
        b.bottom() * factor,
    );
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_a_buffer_of_the_wrong_size() {
        let err = read_codes(&[0; 10], 4, 4, 1, &CodeOptions::default()).expect_err("size");
        assert!(matches!(
            err,
            OcrError::BufferSize {
                width: 4,
                height: 4,
                expected: 16,
                actual: 10,
            }
        ));
    }

    #[test]
    fn empty_and_blank_images_have_no_codes() {
        let options = CodeOptions::default();
        assert!(
            read_codes(&[], 0, 0, 1, &options)
                .expect("no error")
                .is_empty()
        );
        assert!(
            read_codes(&[], 0, 7, 1, &options)
                .expect("no error")
                .is_empty()
        );
        let white = vec![255u8; 300 * 200];
        assert!(
            read_codes(&white, 300, 200, 1, &options)
                .expect("no error")
                .is_empty()
        );
        let black = vec![0u8; 300 * 200];
        assert!(
            read_codes(&black, 300, 200, 1, &options)
                .expect("no error")
                .is_empty()
        );
    }

    #[test]
    fn refuses_huge_images_before_copying() {
        let err = read_codes(&[], 100_000, 100_000, 1, &CodeOptions::default()).expect_err("big");
        assert!(matches!(err, OcrError::BufferSize { .. }));
    }

    #[test]
    fn scaling_moves_quad_and_box() {
        let code = Code {
            page: 2,
            symbology: doc_model::Symbology::QrCode,
            text: "x".into(),
            bytes_base64: None,
            quad: vec![Point { x: 300.0, y: 600.0 }],
            bbox: PageBox::from_edges(2, 300.0, 600.0, 600.0, 900.0),
            payload: doc_model::CodePayload::Text,
            urls: Vec::new(),
        };
        let scaled = scale_code(code, 72.0 / 300.0);
        assert_eq!(scaled.quad[0], Point { x: 72.0, y: 144.0 });
        assert_eq!(
            scaled.bbox,
            PageBox::from_edges(2, 72.0, 144.0, 144.0, 216.0)
        );
    }
}
