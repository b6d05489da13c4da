//! The generated pages of `testdata/codes/` (see its README and generate.py): every code found
//! exactly once, with the right symbology, text and parsed payload.

use std::path::{Path, PathBuf};

use doc_model::{Code, CodePayload, Symbology};
use ocr_core::codes::{CodeOptions, read_codes, scale_code};
use serde_json::Value;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/codes")
}

fn truth() -> Vec<Value> {
    let text = std::fs::read_to_string(folder().join("truth.json")).expect("truth.json");
    let parsed: Value = serde_json::from_str(&text).expect("truth.json is JSON");
    parsed["pages"].as_array().expect("pages").clone()
}

fn read_page(file: &str, options: &CodeOptions) -> Vec<Code> {
    let image = image::open(folder().join(file))
        .expect("fixture opens")
        .to_luma8();
    read_codes(image.as_raw(), image.width(), image.height(), 1, options).expect("reads")
}

fn symbology_name(code: &Code) -> String {
    serde_json::to_value(code.symbology)
        .expect("serialises")
        .as_str()
        .expect("a string")
        .to_owned()
}

/// The page's expected codes that `codes` holds exactly once, and the codes not expected.
fn score(page: &Value, codes: &[Code]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let expected = page["codes"].as_array().expect("codes");
    let mut found_once = Vec::new();
    let mut missing_or_repeated = Vec::new();
    for e in expected {
        let name = e["symbology"].as_str().expect("symbology");
        let hits = codes
            .iter()
            .filter(|c| symbology_name(c) == name && Some(c.text.as_str()) == e["text"].as_str())
            .count();
        if hits == 1 {
            found_once.push(name.to_owned());
        } else {
            missing_or_repeated.push(format!("{name} x{hits}"));
        }
    }
    let unexpected = codes
        .iter()
        .filter(|c| {
            !expected.iter().any(|e| {
                e["symbology"].as_str() == Some(symbology_name(c).as_str())
                    && e["text"].as_str() == Some(c.text.as_str())
            })
        })
        .map(|c| format!("{:?} {:?}", c.symbology, c.text))
        .collect();
    (found_once, missing_or_repeated, unexpected)
}

/// rxing cannot decode the large Aztec symbol of these pages (a known weakness of its Aztec
/// detector, see the README of testdata/codes); every other code must be found exactly once.
#[test]
fn rxing_finds_every_code_once_except_the_large_aztec() {
    let options = CodeOptions::default();
    for page in truth() {
        let file = page["file"].as_str().expect("file");
        let codes = read_page(file, &options);
        let (_, missing, unexpected) = score(&page, &codes);
        assert!(unexpected.is_empty(), "{file}: unexpected {unexpected:?}");
        let allowed: &[&str] = if file.contains("skew7") {
            // At 7 degrees rxing also loses the PDF417 (zxing-cpp does too).
            &["aztec x0", "pdf417 x0"]
        } else {
            &["aztec x0"]
        };
        for miss in &missing {
            assert!(allowed.contains(&miss.as_str()), "{file}: {miss}");
        }
        if !file.contains("skew7") {
            assert!(missing.len() <= 1, "{file}: {missing:?}");
        }
    }
}

#[test]
fn the_invoice_girocode_is_parsed() {
    let codes = read_page("invoice-epc-200dpi.png", &CodeOptions::default());
    assert_eq!(codes.len(), 1);
    let code = &codes[0];
    assert_eq!(code.symbology, Symbology::QrCode);
    let CodePayload::Epc(transfer) = &code.payload else {
        panic!("not an EPC payload: {:?}", code.payload);
    };
    assert_eq!(transfer.iban, "DE89370400440532013000");
    assert_eq!(transfer.bic.as_deref(), Some("COBADEFFXXX"));
    assert_eq!(transfer.amount.as_deref(), Some("1234.56"));
    assert_eq!(transfer.text.as_deref(), Some("Rechnung RE-2024-0815"));
    // The QR code sits at (1120, 1540) with a 6 px module and a quiet zone: its box must hold
    // the symbol and little else.
    let b = code.bbox;
    assert!(b.x >= 1120.0 && b.y >= 1540.0, "{b:?}");
    assert!(
        b.w > 150.0 && b.w < 260.0 && (b.w - b.h).abs() < 4.0,
        "{b:?}"
    );
}

#[test]
fn boxes_turn_with_the_page() {
    let upright = read_page("all-codes-300dpi.png", &CodeOptions::default());
    let turned = read_page("all-codes-300dpi-rot90.png", &CodeOptions::default());
    // The page is 2480 x 3508; turned 90 degrees clockwise, (x, y) moves to (3507 - y, x).
    for code in &upright {
        let twin = turned
            .iter()
            .find(|c| c.symbology == code.symbology)
            .expect("found on the turned page");
        let (cx, cy) = (code.bbox.center_x(), code.bbox.center_y());
        let (tx, ty) = (twin.bbox.center_x(), twin.bbox.center_y());
        assert!(
            (tx - (3507.0 - cy)).abs() < 6.0 && (ty - cx).abs() < 6.0,
            "{:?}: {:?} vs {:?}",
            code.symbology,
            code.bbox,
            twin.bbox
        );
    }
}

#[test]
fn a_page_image_read_at_half_size_lands_in_the_same_place_when_scaled() {
    let full = read_page("all-codes-300dpi.png", &CodeOptions::default());
    let half = read_page("all-codes-150dpi.png", &CodeOptions::default());
    for code in half {
        let scaled = scale_code(code, 2.0);
        let twin = full
            .iter()
            .find(|c| c.symbology == scaled.symbology)
            .expect("on both pages");
        assert!(
            (scaled.bbox.x - twin.bbox.x).abs() < 8.0,
            "{:?}",
            scaled.symbology
        );
        assert!(
            (scaled.bbox.y - twin.bbox.y).abs() < 8.0,
            "{:?}",
            scaled.symbology
        );
    }
}

#[test]
fn snapshot_of_the_a4_page() {
    let codes = read_page("all-codes-300dpi.png", &CodeOptions::default());
    // Boxes rounded to 10 px: the shape of the answer and the places, without sub-pixel noise.
    let rounded: Vec<Code> = codes
        .into_iter()
        .map(|mut c| {
            let r = |v: f64| (v / 10.0).round() * 10.0;
            c.quad = Vec::new();
            c.bbox.x = r(c.bbox.x);
            c.bbox.y = r(c.bbox.y);
            c.bbox.w = r(c.bbox.w);
            c.bbox.h = r(c.bbox.h);
            c
        })
        .collect();
    insta::assert_json_snapshot!(rounded);
}

#[cfg(feature = "zxing-cpp")]
#[test]
fn both_engines_find_all_eight_once() {
    let options = CodeOptions {
        engine: ocr_core::codes::Engine::Both,
        ..CodeOptions::default()
    };
    for page in truth() {
        let file = page["file"].as_str().expect("file");
        let codes = read_page(file, &options);
        let (_, missing, unexpected) = score(&page, &codes);
        assert!(unexpected.is_empty(), "{file}: unexpected {unexpected:?}");
        let allowed: &[&str] = if file.contains("skew7") {
            &["pdf417 x0"]
        } else {
            &[]
        };
        assert!(
            missing.iter().all(|m| allowed.contains(&m.as_str())),
            "{file}: {missing:?}"
        );
    }
}

/// /ocr reads codes on the deskewed picture (`read::read_picture`): there the page turned 7°,
/// whose PDF417 neither engine reads at that angle, gives all eight.
#[cfg(feature = "zxing-cpp")]
#[test]
fn the_page_turned_7_degrees_gives_all_eight_once_deskewed() {
    let options = CodeOptions {
        engine: ocr_core::codes::Engine::Both,
        ..CodeOptions::default()
    };
    let page = truth()
        .into_iter()
        .find(|p| p["file"].as_str().is_some_and(|f| f.contains("skew7")))
        .expect("the 7° page is in truth.json");
    let bytes = std::fs::read(folder().join(page["file"].as_str().expect("file"))).expect("reads");
    let picture = ocr_core::preprocess::load_image(
        &bytes,
        ocr_core::preprocess::ImageMime::Png,
        &ocr_core::preprocess::ImageLimits::default(),
    )
    .expect("loads")
    .image;
    let (straight, skew) = ocr_core::preprocess::deskew(&picture);
    assert!((skew.angle_degrees.abs() - 7.0).abs() < 0.3, "{skew:?}");
    let codes = read_codes(
        straight.pixels(),
        straight.width(),
        straight.height(),
        1,
        &options,
    )
    .expect("reads");
    let (found, missing, unexpected) = score(&page, &codes);
    assert!(
        unexpected.is_empty() && missing.is_empty(),
        "{missing:?} {unexpected:?}"
    );
    assert_eq!(found.len(), 8);
}
