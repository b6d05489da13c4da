//! Recognition, rotation, skew and image limits on the generated fixtures in `testdata/ocr/`
//! (see its `generate.py`). Needs Tesseract with `deu`, `eng` and `osd` installed.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use doc_model::CoordinateFrame;
use ocr_core::OcrError;
use ocr_core::engine::{EngineConfig, EnginePool, PageRequest, PixelBuffer};
use ocr_core::preprocess::{self, GreyImage, ImageLimits, ImageMime};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/ocr")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(name: &str) -> GreyImage {
    preprocess::load_image(&fixture(name), ImageMime::Png, &ImageLimits::default())
        .expect("fixture loads")
        .image
}

fn pool() -> &'static EnginePool {
    static POOL: OnceLock<EnginePool> = OnceLock::new();
    POOL.get_or_init(|| {
        EnginePool::new(EngineConfig {
            engines: 2,
            ..EngineConfig::default()
        })
        .expect("Tesseract with deu+eng is installed")
    })
}

/// Share of `expected` words found among `found` (case-sensitive, punctuation trimmed).
fn word_recall(expected: &str, found: &str) -> f64 {
    let clean = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned();
    let mut pool: Vec<String> = found.split_whitespace().map(clean).collect();
    let expected: Vec<String> = expected
        .split_whitespace()
        .map(clean)
        .filter(|w| !w.is_empty())
        .collect();
    let mut hits = 0;
    for word in &expected {
        if let Some(i) = pool.iter().position(|w| w == word) {
            pool.swap_remove(i);
            hits += 1;
        }
    }
    hits as f64 / expected.len().max(1) as f64
}

#[test]
fn recognises_the_german_page_with_boxes_and_confidences() {
    let image = load("de.png");
    let page = pool()
        .recognize(PixelBuffer::from(&image), &PageRequest::pixels(1))
        .expect("recognised");
    assert_eq!(page.rotation, 0);
    assert_eq!((page.width, page.height), (1240.0, 1754.0));
    assert_eq!(page.coordinate_frame, CoordinateFrame::PixelsTopLeft);
    let text = page.text();
    let recall = word_recall(
        "Jahresbericht der Stadtwerke Einleitung Ergebnisse Ökostrom Süden gegenüber Tabelle Umsatz nach Bereichen Gewähr",
        &text,
    );
    assert!(recall >= 0.9, "recall {recall}: {text}");
    let words: Vec<_> = page.lines.iter().flat_map(|l| &l.words).collect();
    assert!(words.len() > 100, "{} words", words.len());
    for word in &words {
        let b = word.bbox;
        assert!(
            b.x >= 0.0 && b.y >= 0.0 && b.right() <= 1240.0 && b.bottom() <= 1754.0,
            "{word:?}"
        );
        assert!(b.w > 0.0 && b.h > 0.0);
    }
    let mean = words.iter().map(|w| w.confidence.value()).sum::<f64>() / words.len() as f64;
    assert!(mean > 0.85, "mean confidence {mean}");
    for line in &page.lines {
        assert_eq!(line.low_confidence, line.confidence.value() < 0.5);
    }
}

#[test]
fn points_frame_scales_boxes() {
    let image = load("en.png");
    let page = pool()
        .recognize(PixelBuffer::from(&image), &PageRequest::pdf_points(2, 150))
        .expect("recognised");
    assert_eq!(page.page, 2);
    assert_eq!(page.coordinate_frame, CoordinateFrame::PdfPointsTopLeft);
    // A4 is 595 x 842 pt.
    assert!(
        (page.width - 595.2).abs() < 0.5 && (page.height - 841.9).abs() < 0.5,
        "{} x {}",
        page.width,
        page.height
    );
    assert!(
        page.lines
            .iter()
            .all(|l| l.bbox.right() <= page.width && l.bbox.page == 2)
    );
}

#[test]
fn rotation_is_detected_and_boxes_are_upright() {
    let upright = pool()
        .recognize(PixelBuffer::from(&load("de.png")), &PageRequest::pixels(1))
        .expect("recognised");
    let title = upright
        .lines
        .iter()
        .find(|l| l.text.contains("Jahresbericht"))
        .expect("title")
        .bbox;
    // The file name says how the page was turned; the answer is the turn back.
    for (name, expected) in [
        ("de_rot90.png", 270),
        ("de_rot180.png", 180),
        ("de_rot270.png", 90),
    ] {
        let image = load(name);
        let page = pool()
            .recognize(PixelBuffer::from(&image), &PageRequest::pixels(1))
            .expect("recognised");
        assert_eq!(page.rotation, expected, "{name}");
        assert_eq!((page.width, page.height), (1240.0, 1754.0), "{name}");
        let found = page
            .lines
            .iter()
            .find(|l| l.text.contains("Jahresbericht"))
            .expect("title")
            .bbox;
        assert!(
            (found.x - title.x).abs() < 8.0 && (found.y - title.y).abs() < 8.0,
            "{name}: {found:?} vs {title:?}"
        );
        assert!(word_recall(&upright.text(), &page.text()) > 0.9, "{name}");
    }
}

#[test]
fn skew_of_the_skewed_copy_is_found_and_corrected() {
    let image = load("en_skew3.png");
    let (straight, skew) = preprocess::deskew(&image);
    assert!((skew.angle_degrees - 3.0).abs() <= 0.2, "{skew:?}");
    assert!(skew.corrected);
    let reference = load("en.png");
    assert!(preprocess::estimate_skew(&reference).expect("text").abs() <= 0.1);
    let page = pool()
        .recognize(PixelBuffer::from(&straight), &PageRequest::pixels(1))
        .expect("recognised");
    let original = pool()
        .recognize(PixelBuffer::from(&reference), &PageRequest::pixels(1))
        .expect("recognised");
    assert!(word_recall(&original.text(), &page.text()) > 0.9);
}

#[test]
fn batch_recognises_in_order_and_honours_cancellation() {
    let de = load("de.png");
    let en = load("en.png");
    let jobs = vec![
        (
            PixelBuffer::from(&de),
            PageRequest {
                page: 1,
                ..PageRequest::pixels(1)
            },
        ),
        (
            PixelBuffer::from(&en),
            PageRequest {
                page: 2,
                detect_rotation: false,
                ..PageRequest::pixels(2)
            },
        ),
        (
            PixelBuffer::from(&de),
            PageRequest {
                page: 3,
                languages: vec!["deu".into()],
                ..PageRequest::pixels(3)
            },
        ),
    ];
    let results = pool().recognize_batch(&jobs, &AtomicBool::new(false));
    let pages: Vec<_> = results
        .into_iter()
        .map(|r| r.expect("recognised"))
        .collect();
    assert_eq!(pages.iter().map(|p| p.page).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(pages[1].text().contains("Annual Report"));
    let cancelled = pool().recognize_batch(&jobs, &AtomicBool::new(true));
    assert!(
        cancelled
            .iter()
            .all(|r| matches!(r, Err(OcrError::Cancelled)))
    );
    // The pool is whole afterwards.
    assert!(
        pool()
            .recognize(PixelBuffer::from(&en), &PageRequest::pixels(1))
            .is_ok()
    );
}

#[test]
fn unknown_language_names_the_installed_ones() {
    let err = pool()
        .recognize(
            PixelBuffer::grey(1, 1, &[255]).expect("1 px"),
            &PageRequest {
                languages: vec!["fra".into()],
                ..PageRequest::pixels(1)
            },
        )
        .expect_err("fra is not installed");
    match err {
        OcrError::LanguageNotInstalled {
            requested,
            installed,
        } => {
            assert_eq!(requested, "fra");
            assert!(installed.contains(&"deu".to_owned()) && installed.contains(&"eng".to_owned()));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn too_wide_and_bomb_headers_are_refused_before_decoding() {
    let limits = ImageLimits::default();
    assert!(matches!(
        preprocess::load_image(&fixture("wide_10001.png"), ImageMime::Png, &limits),
        Err(OcrError::ImageTooWide {
            width: 10_001,
            max: 10_000
        })
    ));
    // 60000 x 60000 declared in 138 bytes: refused on the header, nothing allocated.
    let bomb = fixture("bomb_60000.png");
    assert!(bomb.len() < 200);
    assert!(matches!(
        preprocess::probe_image(
            &bomb,
            ImageMime::Png,
            &ImageLimits {
                max_width: 100_000,
                max_pixels: 100_000_000
            }
        ),
        Err(OcrError::ImageTooLarge {
            pixels: 3_600_000_000,
            ..
        })
    ));
    assert!(matches!(
        preprocess::load_image(&bomb, ImageMime::Png, &limits),
        Err(OcrError::ImageTooWide { .. })
    ));
}

#[test]
fn declared_mime_must_match_the_bytes() {
    let png = fixture("de.png");
    match preprocess::load_image(&png, ImageMime::Jpeg, &ImageLimits::default()) {
        Err(OcrError::MimeMismatch { declared, detected }) => {
            assert_eq!((declared, detected), ("image/jpeg", "image/png"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        preprocess::load_image(
            b"%PDF-1.7 not a picture",
            ImageMime::Png,
            &ImageLimits::default()
        ),
        Err(OcrError::MimeMismatch {
            detected: "unknown",
            ..
        }) | Err(OcrError::MimeMismatch { .. })
    ));
}

/// The PP-OCR models installed by `cargo xtask models` (a step of `cargo xtask ci`), or those
/// of `PP_OCR_MODELS`.
fn pp_ocr_models() -> PathBuf {
    std::env::var_os("PP_OCR_MODELS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/models/pp-ocr"),
        PathBuf::from,
    )
}

#[test]
fn the_pp_ocr_models_read_the_english_page_with_word_boxes() {
    let with_models = EnginePool::new(EngineConfig {
        engines: 1,
        pp_ocr_models: Some(pp_ocr_models()),
        ..EngineConfig::default()
    })
    .expect("the PP-OCR models are installed (cargo xtask models)");
    let image = load("en.png");
    let options = ocr_core::read::ReadOptions {
        languages: Vec::new(),
        codes: false,
        code_options: Default::default(),
        recogniser: ocr_core::read::Recogniser::PpOcr,
        photo: Default::default(),
    };
    let reading =
        ocr_core::read::read_picture(&with_models, &image, 1, None, &options).expect("read");
    let tesseract = pool()
        .recognize(PixelBuffer::from(&image), &PageRequest::pixels(1))
        .expect("recognised");
    // Read by the models, not by Tesseract: boxes are the detector's, words were split by
    // their ink gaps, and most of Tesseract's words are among them.
    assert_ne!(reading.page.lines.len(), 0);
    let recall = word_recall(&tesseract.text(), &reading.page.text());
    assert!(recall >= 0.85, "recall {recall}: {}", reading.page.text());
    assert_ne!(reading.page.text(), tesseract.text());
    assert_eq!(reading.page.recogniser, Some(doc_model::Recogniser::PpOcr));
    assert_eq!(reading.info.recogniser, Some(doc_model::Recogniser::PpOcr));
    for word in reading.page.lines.iter().flat_map(|l| &l.words) {
        let b = word.bbox;
        assert!(
            b.x >= 0.0 && b.right() <= 1240.5 && b.w > 0.0 && b.h > 0.0,
            "{word:?}"
        );
    }
}

#[test]
fn a_page_that_reads_as_german_goes_to_tesseract_when_no_language_was_named() {
    let with_models = EnginePool::new(EngineConfig {
        engines: 1,
        pp_ocr_models: Some(pp_ocr_models()),
        ..EngineConfig::default()
    })
    .expect("the PP-OCR models are installed (cargo xtask models)");
    let options = ocr_core::read::ReadOptions {
        languages: Vec::new(),
        codes: false,
        code_options: Default::default(),
        recogniser: ocr_core::read::Recogniser::PpOcr,
        photo: Default::default(),
    };
    let reading = ocr_core::read::read_picture(&with_models, &load("de.png"), 1, None, &options)
        .expect("read");
    assert_eq!(
        reading.page.recogniser,
        Some(doc_model::Recogniser::Tesseract)
    );
    assert!(reading.page.text().contains(['ä', 'ö', 'ü', 'ß']));
}

#[test]
fn a_missing_model_directory_is_a_clear_error() {
    let error = EnginePool::new(EngineConfig {
        engines: 1,
        pp_ocr_models: Some(PathBuf::from("/nonexistent/pp-ocr")),
        ..EngineConfig::default()
    })
    .expect_err("no models there");
    assert!(
        error.to_string().contains("ch_PP-OCRv4_det_infer.onnx"),
        "{error}"
    );
}
