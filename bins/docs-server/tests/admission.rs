//! Admission control (issue 22): with the real extraction pool of two workers, 20 concurrent
//! paid multi-page OCR calls are either served and settled, or answered 503 `busy` with
//! `Retry-After` before their payment is verified. No call whose payment was accepted runs out
//! of time (504), and no refused call reaches the facilitator.

mod support;

use std::time::Instant;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use server_kit::testing::{paying_mocks, payment_signature};
use support::{App, fixture};
use wiremock::MockServer;

/// Calls sent at once.
const CALLS: usize = 20;
/// Pages of each call's PDF.
const PAGES: usize = 3;
/// The `/ocr` time budget of the test app, seconds.
const BUDGET: u64 = 30;

/// The body of object `number` of `pdf` (between `N 0 obj` and `endobj`).
fn object(pdf: &[u8], number: u32) -> Vec<u8> {
    let start_tag = format!("\n{number} 0 obj");
    let start = pdf
        .windows(start_tag.len())
        .position(|w| w == start_tag.as_bytes())
        .expect("object")
        + start_tag.len();
    let end = start
        + pdf[start..]
            .windows(6)
            .position(|w| w == b"endobj")
            .expect("endobj");
    pdf[start..end].to_vec()
}

/// `pages` copies of the scanned page of testdata/pdf/image_only.pdf (one CCITT image, no text
/// layer), with `tag` in a comment so every call is a different file (no cache hit).
fn scanned_pages(pages: usize, tag: usize) -> Vec<u8> {
    let source = fixture("image_only.pdf");
    // image_only.pdf: 3 the font, 4 the content stream drawing the image, 5 the image.
    let font = object(&source, 3);
    let content = object(&source, 4);
    let image = object(&source, 5);
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", i + 6)).collect();
    // The tag in the catalog changes the bytes, not the document.
    let mut objects = vec![
        format!("<< /Type /Catalog /Pages 2 0 R /Tag ({tag}) >>").into_bytes(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )
        .into_bytes(),
        font,
        content,
        image,
    ];
    for _ in 0..pages {
        objects.push(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>".to_vec(),
        );
    }
    support::pdf::pdf_from_objects(&objects)
}

/// `/verify` always valid and `/settle` always successful, counted by the test itself.
async fn mount_facilitator(facilitator: &MockServer) {
    let (verify, settle) = paying_mocks();
    verify.mount(facilitator).await;
    settle.mount(facilitator).await;
}

/// `busy_refusals_total{route}` on the app's `/metrics` (0 before the first refusal).
async fn busy_refusals(app: &App, route: &str) -> f64 {
    let route = format!("route=\"{route}\"");
    app.app.metric_sum("busy_refusals_total", &[&route]).await
}

fn body(pdf: &[u8]) -> Value {
    json!({"image_base64": STANDARD.encode(pdf), "mime": "application/pdf", "want": ["text"]})
}

#[tokio::test]
async fn twenty_concurrent_ocr_calls_on_two_workers_never_time_out_after_payment() {
    let app = App::with(|c| {
        c.workers.extraction = Some(2);
        c.ocr.engines = Some(1);
        c.time_budget.ocr_seconds = BUDGET;
        // The machine's real speed is learnt from the first call.
        c.workers.ocr_page_seconds = 3.0;
        // One test client and one payer for all: the per-client and per-payer limits are
        // not what is measured here.
        c.common.limits.unpaid_per_window = 1000;
        c.common.limits.unverified_per_client = 100;
        c.common.limits.payer_concurrency = 100;
        c.common.limits.payer_failures_per_window = 1000;
    })
    .await;
    mount_facilitator(&app.facilitator).await;

    // The terms every call pays (same pages, same price).
    let unpaid = app
        .post_to("/ocr", &body(&scanned_pages(PAGES, 0)), None)
        .await;
    assert_eq!(
        unpaid.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        unpaid.body
    );
    let terms = unpaid.terms();
    // Two calls at once, one per worker: the speed of this machine with both workers busy.
    let started = Instant::now();
    let warm: Vec<_> = (0..2)
        .map(|i| {
            let request = body(&scanned_pages(PAGES, 100 + i));
            let signature = payment_signature(&terms, &format!("warm-{i}"));
            let client = app.app.clone();
            tokio::spawn(async move { client.post_json("/ocr", &request, Some(&signature)).await })
        })
        .collect();
    for call in warm {
        let reply = call.await.expect("warm-up");
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    }
    let alone = started.elapsed();

    let started = Instant::now();
    let calls: Vec<_> = (1..=CALLS)
        .map(|i| {
            let request = body(&scanned_pages(PAGES, i));
            let signature = payment_signature(&terms, &format!("call-{i}"));
            let client = app.app.clone();
            tokio::spawn(async move { client.post_json("/ocr", &request, Some(&signature)).await })
        })
        .collect();
    let mut served = 0;
    let mut busy = 0;
    let mut retry_after = Vec::new();
    let mut other = Vec::new();
    for call in calls {
        let reply = call.await.expect("call");
        match reply.status {
            StatusCode::OK => {
                assert!(reply.receipt().is_some(), "a served call was settled");
                served += 1;
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_eq!(reply.body["error"], "busy", "{}", reply.body);
                assert_eq!(reply.body["charged"], false);
                let seconds: u64 = reply
                    .header("retry-after")
                    .expect("Retry-After")
                    .parse()
                    .expect("seconds");
                assert!((1..=BUDGET).contains(&seconds), "{seconds}");
                retry_after.push(seconds);
                busy += 1;
            }
            status => other.push(format!("{status}: {}", reply.body["error"])),
        }
    }
    let wall = started.elapsed();
    eprintln!(
        "admission: {CALLS} calls of {PAGES} OCR pages, 2 workers × 1 engine, budget {BUDGET} s: \
         warm-up (2 at once) {alone:.1?}; {served} served, {busy} busy (Retry-After {retry_after:?}), \
         other {other:?}, all answered in {wall:.1?}"
    );
    // Above all: no paid call ran out of its budget (504) or failed otherwise.
    assert!(other.is_empty(), "{other:?}");
    let requests = app
        .facilitator
        .received_requests()
        .await
        .unwrap_or_default();
    let count = |p: &str| requests.iter().filter(|r| r.url.path() == p).count();
    // Every accepted payment was verified and settled once (the warm-up's included); the
    // refused calls never reached the facilitator.
    assert_eq!(count("/verify"), served + 2);
    assert_eq!(count("/settle"), served + 2);
    assert_eq!(served + busy, CALLS);
    assert!(served >= 2, "both workers were used: {served}");
    assert!(busy >= 1, "the queue filled: {busy} busy");
}

#[tokio::test]
async fn an_unpaid_request_is_told_busy_too_but_a_cached_answer_is_served() {
    let app = App::with(|c| {
        c.workers.extraction = Some(1);
        c.ocr.engines = Some(1);
        c.time_budget.ocr_seconds = 10;
        // Estimates far above the budget: one admitted call fills the queue.
        c.workers.ocr_page_seconds = 20.0;
    })
    .await;
    mount_facilitator(&app.facilitator).await;
    let first = body(&scanned_pages(1, 100));
    let second = body(&scanned_pages(1, 101));
    // Served once (alone: admitted though its estimate is over the budget), so cached.
    let paid = app.app.pay("/ocr", &first, "cache").await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);

    // A paid call of another file holds the queue while its page is recognised.
    let unpaid_second = app.post_to("/ocr", &second, None).await;
    assert_eq!(unpaid_second.status, StatusCode::PAYMENT_REQUIRED);
    let terms = unpaid_second.terms();
    let client = app.app.clone();
    let signature = payment_signature(&terms, "holder");
    let request = second.clone();
    let holder =
        tokio::spawn(async move { client.post_json("/ocr", &request, Some(&signature)).await });
    let busy_before = busy_refusals(&app, "/ocr").await;
    // Wait until the holder is admitted (its answer takes seconds of OCR).
    let queued = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            let third = body(&scanned_pages(1, 102));
            let reply = app.post_to("/ocr", &third, None).await;
            if reply.status == StatusCode::SERVICE_UNAVAILABLE {
                return reply;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the queue filled");
    assert_eq!(queued.body["error"], "busy");
    assert!(queued.header("retry-after").is_some());
    // Counted on /metrics (the recorder is process-wide: other tests may add to it too).
    let busy_after = busy_refusals(&app, "/ocr").await;
    assert!(
        busy_after > busy_before,
        "busy_refusals_total{{route=\"/ocr\"}} {busy_before} -> {busy_after}"
    );
    // The cached file is answered from the cache, paid, while the queue is full.
    let cached = app.app.pay("/ocr", &first, "cache-again").await;
    assert_eq!(cached.status, StatusCode::OK, "{}", cached.body);
    assert_eq!(cached.header("x-cache"), Some("hit"));
    let held = holder.await.expect("holder");
    assert_eq!(held.status, StatusCode::OK, "{}", held.body);
}
