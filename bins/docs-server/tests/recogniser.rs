//! Which recogniser reads a page (docs/decisions.md, "A second recogniser"): with the PP-OCR
//! models configured (`ocr.pp_ocr_models`; `cargo xtask models` installs them, a step of
//! `cargo xtask ci`), pictures and scanned pages in English or no named language are read by
//! the models, others by Tesseract; the answer says which, per page.

mod support;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ocr_core::preprocess::{ImageLimits, ImageMime, load_image};
use serde_json::{Value, json};
use server_kit::testing::mount_paying_facilitator;
use support::{App, inline, inline_bytes, pdf, testdata};

/// The models `cargo xtask models` installs, or those of `PP_OCR_MODELS`.
fn models() -> String {
    std::env::var("PP_OCR_MODELS").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/models/pp-ocr").to_owned()
    })
}

async fn app_with_models(paid_calls: u64) -> App {
    let app = App::with(|config| config.ocr.pp_ocr_models = Some(models())).await;
    mount_paying_facilitator(&app.facilitator, paid_calls).await;
    app
}

fn picture(name: &str, languages: Option<&[&str]>) -> Value {
    let mut body =
        json!({"image_base64": STANDARD.encode(testdata("ocr", name)), "mime": "image/png"});
    if let Some(languages) = languages {
        body["languages"] = json!(languages);
    }
    body
}

fn recogniser_of_ocr_page(answer: &Value) -> &Value {
    &answer["layout"]["pages"][0]["recogniser"]
}

#[tokio::test]
async fn an_english_picture_is_read_by_the_models_and_other_languages_by_tesseract() {
    let app = app_with_models(3).await;
    let reply = app.pay_to("/ocr", &picture("en.png", None), "en").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(recogniser_of_ocr_page(&reply.body), "pp_ocr");
    let text = reply.body["text"].as_str().unwrap_or_default();
    assert!(!text.trim().is_empty());

    // The caller names German: Tesseract with `deu`, whose letters the models lack.
    let reply = app
        .pay_to("/ocr", &picture("en.png", Some(&["deu"])), "named deu")
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(recogniser_of_ocr_page(&reply.body), "tesseract");

    // No language named, but the page reads as German: Tesseract reads it again.
    let reply = app.pay_to("/ocr", &picture("de.png", None), "de").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(recogniser_of_ocr_page(&reply.body), "tesseract");
    let text = reply.body["text"].as_str().unwrap_or_default();
    assert!(text.contains(['ä', 'ö', 'ü', 'ß']), "{text}");
}

#[tokio::test]
async fn without_the_models_tesseract_reads_everything() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let reply = app.pay_to("/ocr", &picture("en.png", None), "en").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(recogniser_of_ocr_page(&reply.body), "tesseract");
}

#[tokio::test]
async fn a_scanned_english_page_of_a_document_is_read_by_the_models_in_pdf_points() {
    let app = app_with_models(2).await;
    let png = testdata("ocr", "en.png");
    let loaded = load_image(&png, ImageMime::Png, &ImageLimits::default()).expect("the fixture");
    let image = &loaded.image;
    let scan = pdf::picture_page(image.pixels(), image.width(), image.height());
    let reply = app.pay(&inline_bytes(&scan), "english scan").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let page = &reply.body["pages"][0];
    assert_eq!(page["method"], "ocr");
    assert_eq!(page["recogniser"], "pp_ocr");
    assert_eq!(page["coordinate_frame"], "pdf_points_top_left");
    let lines = page["lines"].as_array().expect("lines");
    assert!(lines.len() >= 3, "{page}");
    for line in lines {
        let b = &line["box"];
        let (x, y, w, h) = (
            b["x"].as_f64().unwrap_or(-1.0),
            b["y"].as_f64().unwrap_or(-1.0),
            b["w"].as_f64().unwrap_or(0.0),
            b["h"].as_f64().unwrap_or(0.0),
        );
        assert!(
            x >= -1.0 && y >= -1.0 && x + w <= 596.0 && y + h <= 843.0 && w > 0.0,
            "a box off the A4 page in points: {b}"
        );
    }

    // A German scan names no language either: its text reads as German, so Tesseract.
    let reply = app.pay(&inline("image_only.pdf"), "german scan").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.body["pages"][0]["recogniser"], "tesseract");
}

#[tokio::test]
async fn text_layer_pages_name_no_recogniser() {
    let app = app_with_models(1).await;
    let reply = app.pay(&inline("two_column.pdf"), "text layer").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let page = &reply.body["pages"][0];
    assert_eq!(page["method"], "text_layer");
    assert!(page.get("recogniser").is_none(), "{page}");
}

#[tokio::test]
async fn a_model_directory_without_the_models_stops_the_server_at_start() {
    let facilitator = wiremock::MockServer::start().await;
    let mut config = support::test_config(&facilitator);
    config.ocr.pp_ocr_models = Some(env!("CARGO_MANIFEST_DIR").to_owned());
    let Err(error) = docs_server::AppState::new(config) else {
        panic!("a directory without the models was accepted");
    };
    let message = error.to_string();
    assert!(
        message.contains("ocr.pp_ocr_models") && message.contains("ch_PP-OCRv4_det_infer.onnx"),
        "{message}"
    );
}
