//! `/document` on the local chain, paid by the official x402 client (`@x402/fetch`) through
//! the local facilitator: a German invoice with a text layer and a scan of it are each settled
//! for exactly their itemised price; a repeated call is answered from the cache and charged the
//! same; a request with a caller `schema` is settled at the same page price; a page with nothing
//! on it is answered 422 and never settled.

use std::path::PathBuf;

use alloy::primitives::U256;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use docs_server::{AppState, DocsConfig, router};
use serde_json::{Value, json};
use test_devnet::PaidDevnet;

fn inline(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/pdf")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    json!({"pdf_base64": STANDARD.encode(bytes)})
}

async fn serve(world: &PaidDevnet) -> String {
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    test_devnet::paid::pay_locally(&mut config.common, &world.info).expect("devnet payment");
    let state = AppState::new(config).expect("configuration");
    test_devnet::paid::serve(router(state))
        .await
        .expect("serve")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_invoices_with_and_without_a_text_layer_are_paid_per_page_and_cached() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = serve(&world).await;
    let url = format!("{base}/document");

    let call = world
        .paid_call(&url, inline("zugferd_basic_einfach.pdf"))
        .await
        .expect("client");
    let report = &call.report;
    call.assert_settled(20000);
    let answer = &report["final"]["body"];
    assert_eq!(answer["pages"][0]["method"], "text_layer");
    assert_eq!(
        answer["header"]["invoice_number"]["value"], "471102",
        "{}",
        answer["header"]
    );

    let call = world
        .paid_call(&url, inline("scanned_invoice.pdf"))
        .await
        .expect("client");
    let report = &call.report;
    assert_eq!(
        report["first"]["payment_required"]["accepts"][0]["amount"],
        "50000"
    );
    assert_eq!(report["final"]["status"], 200, "{report}");
    let answer = &report["final"]["body"];
    assert_eq!(answer["pages"][0]["method"], "ocr");
    assert_eq!(
        answer["header"]["invoice_number"]["value"], "471102",
        "{}",
        answer["header"]
    );
    let invoice_number = &answer["header"]["invoice_number"];
    assert_eq!(invoice_number["source"]["page"], 1);
    assert!(
        invoice_number["confidence"]
            .as_f64()
            .is_some_and(|c| c > 0.0 && c <= 1.0)
    );
    assert_eq!(call.received, U256::from(50_000u64));

    // The same file again: from the cache, charged the same.
    let call = world
        .paid_call(&url, inline("scanned_invoice.pdf"))
        .await
        .expect("client");
    let report = &call.report;
    assert_eq!(report["final"]["status"], 200, "{report}");
    assert_eq!(report["final"]["x_cache"], "hit", "{report}");
    assert_eq!(call.received, U256::from(50_000u64));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_caller_schema_is_paid_at_the_page_price() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = serve(&world).await;
    let mut body = inline("zugferd_basic_einfach.pdf");
    body["schema"] = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "rechnungsnummer": {"type": "string", "title": "Rechnungsnummer"},
            "gesamtbetrag": {"type": "number", "title": "Gesamtbetrag", "x-labels": ["Bruttobetrag"]},
            "positionen": {"type": "array", "items": {"type": "object", "properties": {
                "bezeichnung": {"type": "string", "title": "Bezeichnung", "x-labels": ["Artikelname"]},
                "menge": {"type": "number", "title": "Menge"}
            }}}
        }
    });
    let call = world
        .paid_call(&format!("{base}/document"), body)
        .await
        .expect("client");
    call.assert_settled(20000);
    assert_eq!(call.received, U256::from(20_000u64));
    let answer = &call.report["final"]["body"];
    let properties = &answer["properties"];
    assert_eq!(properties["rechnungsnummer"]["value"], "471102", "{answer}");
    assert_eq!(properties["rechnungsnummer"]["found"], true);
    assert_eq!(properties["gesamtbetrag"]["value"], 235.62, "{answer}");
    assert!(
        answer.get("header").is_none(),
        "the mapped answer only: {answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_document_with_nothing_to_read_is_not_settled() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = serve(&world).await;
    let call = world
        .paid_call(&format!("{base}/document"), inline("blank_page.pdf"))
        .await
        .expect("client");
    assert_eq!(call.report["first"]["status"], 402, "{}", call.report);
    call.assert_refused_unsettled(422, "extraction_failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_picture_is_paid_on_ocr_and_an_empty_recognition_is_not_settled() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = serve(&world).await;
    let url = format!("{base}/ocr");
    let picture =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/ocr/en.png"))
            .expect("en.png");
    let body = json!({"image_base64": STANDARD.encode(picture), "mime": "image/png"});
    let call = world.paid_call(&url, body).await.expect("client");
    let report = &call.report;
    assert_eq!(
        report["first"]["payment_required"]["accepts"][0]["amount"],
        "6000"
    );
    assert_eq!(report["final"]["status"], 200, "{report}");
    assert!(
        report["final"]["body"]["blocks"]
            .as_array()
            .is_some_and(|b| !b.is_empty())
    );
    assert_eq!(call.received, U256::from(6_000u64));

    let blank =
        json!({"image_base64": inline("blank_page.pdf")["pdf_base64"], "mime": "application/pdf"});
    world
        .paid_call(&url, blank)
        .await
        .expect("client")
        .assert_refused_unsettled(422, "empty_recognition");
}
