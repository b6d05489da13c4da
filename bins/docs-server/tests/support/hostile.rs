//! The hostile files of issue 13 as requests, each with the answer it must get: one list for
//! the in-process test (`tests/hostile.rs`), the test against a running server under load
//! (`tests/hostile_under_load.rs`) and `cargo xtask soak`, which includes this file and
//! `pdf.rs` by path so all three send the same bytes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::pdf::{
    deep_page_tree, form_fan_out, inflating_page, object_stream_bomb, ruled_page,
    self_drawing_form, sized_page, zlib_repeat,
};

const GIB: u64 = 1024 * 1024 * 1024;

/// One hostile request.
#[derive(Debug, Clone)]
pub struct HostileCase {
    /// What the file is.
    pub name: &'static str,
    /// `/document` or `/ocr`.
    pub route: &'static str,
    /// The JSON body (the file inline).
    pub body: Value,
    /// The status it is answered when sent alone (then paid if the answer is a 402), and the
    /// error code of that answer (`None` for a 200: the one case whose file is read).
    pub expected: (u16, Option<&'static str>),
}

impl HostileCase {
    /// Whether the file is read and paid for (a 200), rather than refused uncharged.
    pub fn is_read(&self) -> bool {
        self.expected.0 == 200
    }
}

/// A PNG of `width` × `height` pixels, all zero, of PNG colour type `colour` at `depth` bits a
/// sample with `bytes_per_pixel` once decoded: a few megabytes compressed at most.
pub fn png_of_zeros(
    width: u32,
    height: u32,
    depth: u8,
    colour: u8,
    bytes_per_pixel: u64,
) -> Vec<u8> {
    fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        png.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[depth, colour, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    // Every row: filter byte 0, then zeros.
    let raw = u64::from(height) * (1 + u64::from(width) * bytes_per_pixel);
    chunk(&mut png, b"IDAT", &zlib_repeat(b"", b"\0", raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// An `/ocr` body carrying `png` inline.
pub fn picture(png: &[u8]) -> Value {
    json!({"image_base64": STANDARD.encode(png), "mime": "image/png"})
}

/// A `/document` body carrying `pdf` inline.
fn document(pdf: &[u8]) -> Value {
    json!({"pdf_base64": STANDARD.encode(pdf)})
}

/// Every hostile case, in the order the in-process test sends them.
pub fn cases() -> Vec<HostileCase> {
    let case = |name, route, body, expected| HostileCase {
        name,
        route,
        body,
        expected,
    };
    let failed = Some("extraction_failed");
    let too_large = Some("payload_too_large");
    vec![
        case(
            "a form that draws itself",
            "/document",
            document(&self_drawing_form()),
            (422, failed),
        ),
        case(
            "forms A->B->C->D, 2000 calls each",
            "/document",
            document(&form_fan_out(2000)),
            (422, failed),
        ),
        case(
            "page content inflating to 2 GiB",
            "/document",
            document(&inflating_page(2 * GIB)),
            (422, failed),
        ),
        case(
            "an object stream of 8 million objects",
            "/document",
            document(&object_stream_bomb(8_000_000)),
            (400, Some("invalid_input")),
        ),
        case(
            "a page of 23,000 × 23,000 pt (/ocr)",
            "/ocr",
            json!({"image_base64": STANDARD.encode(sized_page(23_000, 23_000)), "mime": "application/pdf"}),
            (413, too_large),
        ),
        case(
            "a page 40 levels deep under a giant root MediaBox",
            "/document",
            document(&deep_page_tree(40, "0 0 14400 14400")),
            (422, failed),
        ),
        case(
            "a page of 20,000 rulings",
            "/document",
            document(&ruled_page(20_000)),
            (200, None),
        ),
        case(
            "a 100 Mpx 16-bit RGBA PNG",
            "/ocr",
            picture(&png_of_zeros(10_000, 10_000, 16, 6, 8)),
            (413, too_large),
        ),
    ]
}
