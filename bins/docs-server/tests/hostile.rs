//! Issue 13's proof: files built to stop the service (recursion, fan-out, decompression and
//! object bombs, giant pages, deep page trees, thousands of rulings, pixel bombs) are each
//! answered within the budget with a JSON error and `charged: false`, never settled, and the
//! server keeps serving; the peak memory of the server and of its workers over the whole run
//! stays under 1 GiB.
//!
//! One test on purpose: the cases run one after another against one app, so the memory figures
//! at the end are this run's alone.

mod support;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use docs_server::{AppState, router};
use serde_json::{Value, json};
use server_kit::testing::{mount_paying_facilitator, payment_signature};
use support::pdf::{
    deep_page_tree, form_fan_out, inflating_page, object_stream_bomb, ruled_page,
    self_drawing_form, sized_page, zlib_repeat,
};
use support::{App, Reply, TestApp, inline, inline_bytes, test_config};

/// Everything here must be answered well within this, pricing and paid work included.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
const GIB: u64 = 1024 * 1024 * 1024;

/// Sends `body` unpaid; when terms come back, pays them. Returns the last answer and how long
/// the whole exchange took.
async fn attack(app: &App, route: &str, body: &Value, label: &str) -> (Reply, Duration) {
    let started = Instant::now();
    let mut reply = app.post_to(route, body, None).await;
    if reply.status == StatusCode::PAYMENT_REQUIRED {
        let signature = payment_signature(&reply.terms(), label);
        reply = app.post_to(route, body, Some(&signature)).await;
    }
    (reply, started.elapsed())
}

/// The service still answers: health, and a real document priced at once.
async fn assert_alive(app: &App, after: &str) {
    let health = app.get("/health").await;
    assert_eq!(health.status, StatusCode::OK, "after {after}: {health:?}");
    let priced = app.post(&inline("multipage.pdf"), None).await;
    assert_eq!(
        priced.status,
        StatusCode::PAYMENT_REQUIRED,
        "after {after}: {}",
        priced.body
    );
}

/// A PNG of `width` × `height` pixels, all zero, of PNG colour type `colour` at `depth` bits a
/// sample with `bytes_per_pixel` once decoded: a few megabytes compressed at most.
fn png_of_zeros(width: u32, height: u32, depth: u8, colour: u8, bytes_per_pixel: u64) -> Vec<u8> {
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

fn picture(png: &[u8]) -> Value {
    json!({"image_base64": STANDARD.encode(png), "mime": "image/png"})
}

fn peak_rss_of_this_process() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

#[tokio::test]
async fn hostile_files_are_refused_within_the_budget_and_the_service_lives_on() {
    let facilitator = wiremock::MockServer::start().await;
    // Nothing here may ever be settled but the ruled page, which has text and is read.
    mount_paying_facilitator(&facilitator, 1).await;
    let config = test_config(&facilitator);
    let state = AppState::new(config).expect("configuration");
    let workers = state.workers();
    let app = App {
        app: TestApp::new(router(state)).with_host("docs.test"),
        facilitator,
    };

    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "a form that draws itself",
            "/document",
            inline_bytes(&self_drawing_form()),
        ),
        (
            "forms A->B->C->D, 2000 calls each",
            "/document",
            inline_bytes(&form_fan_out(2000)),
        ),
        (
            "page content inflating to 2 GiB",
            "/document",
            inline_bytes(&inflating_page(2 * GIB)),
        ),
        (
            "an object stream of 8 million objects",
            "/document",
            inline_bytes(&object_stream_bomb(8_000_000)),
        ),
        ("a page of 23,000 × 23,000 pt (/ocr)", "/ocr", {
            json!({"image_base64": STANDARD.encode(sized_page(23_000, 23_000)), "mime": "application/pdf"})
        }),
        (
            "a page 40 levels deep under a giant root MediaBox",
            "/document",
            inline_bytes(&deep_page_tree(40, "0 0 14400 14400")),
        ),
        (
            "a page of 20,000 rulings",
            "/document",
            inline_bytes(&ruled_page(20_000)),
        ),
        (
            "a 100 Mpx 16-bit RGBA PNG",
            "/ocr",
            picture(&png_of_zeros(10_000, 10_000, 16, 6, 8)),
        ),
    ];
    for (i, (name, route, body)) in cases.iter().enumerate() {
        let (reply, took) = attack(&app, route, body, &format!("hostile-{i}")).await;
        eprintln!("{name}: {} in {took:?}: {}", reply.status, reply.body);
        assert!(took < ANSWER_WITHIN, "{name}: answered after {took:?}");
        if *name == "a page of 20,000 rulings" {
            // Text and rulings: it is read (and paid for), fast.
            assert_eq!(reply.status, StatusCode::OK, "{name}: {}", reply.body);
        } else {
            assert_eq!(
                reply.body["charged"],
                json!(false),
                "{name}: {}",
                reply.body
            );
            assert!(reply.body["error"].is_string(), "{name}: {}", reply.body);
        }
        assert_alive(&app, name).await;
    }

    workers.shutdown().await;
    let server = peak_rss_of_this_process();
    let worker = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage")
        .max_rss() as u64
        * 1024;
    eprintln!(
        "peak RSS: server (this test process) {} MiB, largest worker {} MiB",
        server / (1024 * 1024),
        worker / (1024 * 1024)
    );
    assert!(server < GIB, "server peak RSS {server} bytes");
    assert!(worker < GIB, "worker peak RSS {worker} bytes");
}

#[tokio::test]
async fn bodies_that_are_not_pdfs_count_against_the_unpaid_allowance() {
    // Issue 13: 80 unpaid non-PDF bodies got 80 × 400 and never a 429.
    let app = App::new().await;
    let not_a_pdf = json!({"pdf_base64": STANDARD.encode(b"GIF89a, not a PDF at all")});
    let mut statuses = Vec::new();
    for _ in 0..80 {
        statuses.push(app.post(&not_a_pdf, None).await.status);
    }
    let allowance = 60;
    assert!(
        statuses[..allowance]
            .iter()
            .all(|s| *s == StatusCode::BAD_REQUEST),
        "{statuses:?}"
    );
    assert!(
        statuses[allowance..]
            .iter()
            .all(|s| *s == StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn one_authorization_cannot_buy_failing_work_forever() {
    // Issue 13: a failed call releases the authorization, so one signature could be replayed
    // against work that always fails (a blank picture) without end.
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 0).await;
    let blank = picture(&png_of_zeros(200, 200, 8, 0, 1));
    let unpaid = app.post_to("/ocr", &blank, None).await;
    assert_eq!(
        unpaid.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        unpaid.body
    );
    let signature = payment_signature(&unpaid.terms(), "replayed");
    let mut outcomes = Vec::new();
    for _ in 0..15 {
        let reply = app.post_to("/ocr", &blank, Some(&signature)).await;
        assert_eq!(reply.body["charged"], json!(false), "{}", reply.body);
        outcomes.push(reply.status);
        if reply.status == StatusCode::TOO_MANY_REQUESTS {
            break;
        }
    }
    let failures = outcomes
        .iter()
        .filter(|s| **s == StatusCode::UNPROCESSABLE_ENTITY)
        .count();
    assert_eq!(
        outcomes.last(),
        Some(&StatusCode::TOO_MANY_REQUESTS),
        "the payer's failed work is capped: {outcomes:?}"
    );
    assert_eq!(
        failures, 10,
        "the default allowance of failed work: {outcomes:?}"
    );
}
