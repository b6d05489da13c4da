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
use support::hostile::{picture, png_of_zeros};
use support::{App, Reply, TestApp, inline, test_config};

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

    for (i, case) in support::hostile::cases().iter().enumerate() {
        let name = case.name;
        let (reply, took) = attack(&app, case.route, &case.body, &format!("hostile-{i}")).await;
        eprintln!("{name}: {} in {took:?}: {}", reply.status, reply.body);
        assert!(took < ANSWER_WITHIN, "{name}: answered after {took:?}");
        assert_eq!(
            reply.status.as_u16(),
            case.expected.0,
            "{name}: {}",
            reply.body
        );
        if case.is_read() {
            // Text and rulings: it is read (and paid for), fast.
            assert_eq!(reply.status, StatusCode::OK, "{name}: {}", reply.body);
        } else {
            assert_eq!(
                reply.body["charged"],
                json!(false),
                "{name}: {}",
                reply.body
            );
            assert_eq!(
                reply.body["error"].as_str(),
                case.expected.1,
                "{name}: {}",
                reply.body
            );
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

/// `worker_restarts_total{pool, reason}` on the app's `/metrics` (0 before the first).
async fn restarts(app: &App, pool: &str, reason: &str) -> f64 {
    let (pool, reason) = (format!("pool=\"{pool}\""), format!("reason=\"{reason}\""));
    app.app
        .metric_sum("worker_restarts_total", &[&pool, &reason])
        .await
}

#[tokio::test]
async fn a_worker_that_dies_is_answered_uncharged_and_counted_as_a_restart() {
    // Workers allowed 8 MiB of address space: the first allocation past it ends the planner
    // opening any file, as a file built to exhaust the limit would.
    let app = App::with(|c| c.workers.memory_megabytes = 8).await;
    let before = restarts(&app, "planner", "died").await;
    let reply = app.post(&inline("multipage.pdf"), None).await;
    assert_eq!(
        reply.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        reply.body
    );
    assert_eq!(reply.body["error"], "extraction_failed", "{}", reply.body);
    assert_eq!(reply.body["charged"], json!(false), "{}", reply.body);
    // The recorder is process-wide: other tests of this binary may count too, never less.
    let after = restarts(&app, "planner", "died").await;
    assert!(
        after > before,
        "worker_restarts_total{{pool=\"planner\",reason=\"died\"}} {before} -> {after}"
    );
}
