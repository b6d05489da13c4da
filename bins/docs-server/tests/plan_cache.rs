//! The plan cache: a file priced once is priced again without a planner process (the paid
//! repeat of every x402 request, and any caller sending the same bytes), with the same price and
//! the same refusal, while another page selection or another file is planned anew. Its own test
//! binary with one test, so the process-wide `plans_total` counter sees only these requests.

mod support;

use axum::http::StatusCode;
use serde_json::{Value, json};
use server_kit::testing::mount_paying_facilitator;
use support::{App, inline, inline_bytes};

/// `plans_total{source}` from the app's own `/metrics`.
async fn plans(app: &App, source: &str) -> f64 {
    let source = format!("source=\"{source}\"");
    app.app.metric_sum("plans_total", &[&source]).await
}

async fn counts(app: &App) -> (f64, f64) {
    (plans(app, "planner").await, plans(app, "cache").await)
}

#[tokio::test]
async fn a_repeated_file_is_priced_from_the_cache_and_a_new_selection_is_planned_anew() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let body = inline("multipage.pdf");

    let first = app.post(&body, None).await;
    assert_eq!(first.status, StatusCode::PAYMENT_REQUIRED, "{}", first.body);
    assert_eq!(counts(&app).await, (1.0, 0.0));

    let again = app.post(&body, None).await;
    assert_eq!(again.status, StatusCode::PAYMENT_REQUIRED, "{}", again.body);
    assert_eq!(again.body["price"], first.body["price"]);
    assert_eq!(again.terms().accepts, first.terms().accepts);
    assert_eq!(
        counts(&app).await,
        (1.0, 1.0),
        "the repeat needs no planner"
    );

    // Another page selection is another job: planned, and priced for its own pages.
    let mut one_page = body.clone();
    one_page["pages"] = json!("1");
    let selected = app.post(&one_page, None).await;
    assert_eq!(selected.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(selected.body["price"]["page_count"], 1);
    assert_eq!(counts(&app).await, (2.0, 1.0));

    // The x402 flow: the 402 and the paid repeat are both priced from that one plan, and the
    // paid answer covers exactly the planned pages.
    let paid = app.pay(&one_page, "plan-cache").await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    assert_eq!(paid.body["pages"].as_array().map(Vec::len), Some(1));
    assert_eq!(counts(&app).await, (2.0, 3.0));

    // A refusal follows from the bytes too: the same refusal, without a second planner.
    let mut broken = b"%PDF-1.7\n".to_vec();
    broken.extend(std::iter::repeat_n(b'x', 4096));
    let body: Value = inline_bytes(&broken);

    let first = app.post(&body, None).await;
    assert!(first.status.is_client_error(), "{}", first.body);
    assert_ne!(first.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(first.body["charged"], false);
    let (planned, _) = counts(&app).await;

    let again = app.post(&body, None).await;
    assert_eq!(again.status, first.status);
    assert_eq!(again.body, first.body);
    assert_eq!(
        counts(&app).await.0,
        planned,
        "no second planner for the same bytes"
    );
}
