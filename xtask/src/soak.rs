//! `cargo xtask soak [--minutes N]`: mixed traffic against both release executables for N
//! minutes (30 by default), paid through the stand-in facilitator, then the checks of issue 22:
//! resident memory and file descriptors of each server flat (end against the start after a
//! warm-up), the docs server's temporary directory empty, no answer served unpaid and no
//! payment settled twice — counted from the servers' `/metrics` and the facilitator, and
//! checked against what the clients saw.
//!
//! Traffic, from four concurrent clients in turns: unpaid requests (402), bad input (4xx), paid
//! documents (a few distinct files and page selections: misses, then cache hits), replayed
//! payments (refused), and paid analytics requests, whose work fails for want of a chain node
//! (502, which must never be settled).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::harness::{self, Profile, ServerProcess, Service};

/// What the clients saw, per kind of request and status.
#[derive(Debug, Default)]
struct Seen {
    statuses: BTreeMap<(&'static str, u16), u64>,
    /// 2xx answers to requests that carried no payment (must stay 0).
    unpaid_answers: u64,
    /// 2xx answers to paid requests that came without a receipt (must stay 0).
    answers_without_receipt: u64,
    /// Paid requests answered 2xx with a receipt.
    paid_answers: u64,
    /// Transport failures.
    errors: u64,
}

/// Figures of one server at one moment.
#[derive(Debug, Clone, Copy)]
struct Vitals {
    rss_kib: u64,
    children_rss_kib: u64,
    fds: usize,
}

fn vitals(server: &ServerProcess) -> Vitals {
    Vitals {
        rss_kib: server.rss_kib(),
        children_rss_kib: server.children_rss_kib(),
        fds: server.fds(),
    }
}

/// analytics-server's own example of `/dex/quote`.
fn quote() -> Value {
    json!({"chain": "base", "token_in": "0x4200000000000000000000000000000000000006",
        "token_out": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "amount_in": "1.5",
        "slippage_bps": 50})
}

/// `cargo xtask soak --minutes N`.
pub fn soak(minutes: u64) -> Result<()> {
    let bin_dir = harness::build_servers(Profile::Release)?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let (facilitator, counts) = harness::spawn_facilitator().await?;
        let analytics = ServerProcess::start(Service::Analytics, &bin_dir, &facilitator, "")?;
        let docs = ServerProcess::start(Service::Docs, &bin_dir, &facilitator, "")?;
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()?;
        let mut documents = Vec::new();
        for (name, pages) in [
            ("multipage.pdf", None),
            ("multipage.pdf", Some("1")),
            ("two_column.pdf", None),
            ("ruled_table.pdf", None),
            ("rotated.pdf", None),
        ] {
            let mut body = harness::inline_pdf(name)?;
            if let Some(pages) = pages {
                body["pages"] = json!(pages);
            }
            documents.push(body);
        }
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let total = Duration::from_secs(minutes * 60);
        // The start is taken after a warm-up (workers started, caches and pools filled).
        let warm_up = (total / 10).clamp(Duration::from_secs(10), Duration::from_secs(120));
        let clients: Vec<_> = (0..4)
            .map(|id| {
                let (client, seen, stop) = (client.clone(), seen.clone(), stop.clone());
                let (a, d, documents) = (analytics.url(), docs.url(), documents.clone());
                tokio::spawn(async move {
                    traffic(id, &client, &a, &d, &documents, &seen, &stop).await;
                })
            })
            .collect();
        tokio::time::sleep(warm_up).await;
        let start = (vitals(&analytics), vitals(&docs));
        println!(
            "soak: start after {:.0} s warm-up: analytics {:?}, docs {:?}",
            warm_up.as_secs_f64(),
            start.0,
            start.1
        );
        let started = Instant::now();
        while started.elapsed() + warm_up < total {
            tokio::time::sleep(Duration::from_secs(30).min(total)).await;
            let s = seen.lock().await;
            println!(
                "soak: {:.0} s: analytics {:?}, docs {:?}; {} paid answers, {} requests",
                (started.elapsed() + warm_up).as_secs_f64(),
                vitals(&analytics),
                vitals(&docs),
                s.paid_answers,
                s.statuses.values().sum::<u64>()
            );
        }
        stop.store(true, Ordering::Relaxed);
        for client in clients {
            let _ = client.await;
        }
        // Settlements run on their own tasks: let the last ones land before counting.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let end = (vitals(&analytics), vitals(&docs));
        let seen = seen.lock().await;
        let (verified, settled, doubles) = counts.snapshot();
        let mut server_paid = 0.0;
        let mut server_ok = 0.0;
        for server in [&analytics, &docs] {
            let text = harness::metrics(&client, &server.url()).await?;
            server_paid +=
                harness::metric_sum(&text, "paid_route_outcomes_total", &["outcome=\"paid\""]);
            for route in ["/document", "/ocr", "/dex/quote"] {
                server_ok += harness::metric_sum(
                    &text,
                    "http_requests_total",
                    &[&format!("route=\"{route}\""), "status=\"200\""],
                );
            }
        }
        let temp_left = docs.temp_entries();
        println!("\nsoak: {minutes} min of mixed traffic");
        for ((kind, status), n) in &seen.statuses {
            println!("  {kind:<28} {status}: {n}");
        }
        println!("  transport errors: {}", seen.errors);
        println!(
            "  analytics: RSS {} → {} KiB, fds {} → {}",
            start.0.rss_kib, end.0.rss_kib, start.0.fds, end.0.fds
        );
        println!(
            "  docs: RSS {} → {} KiB (workers {} → {} KiB), fds {} → {}",
            start.1.rss_kib,
            end.1.rss_kib,
            start.1.children_rss_kib,
            end.1.children_rss_kib,
            start.1.fds,
            end.1.fds
        );
        println!(
            "  paid answers seen by clients {}, outcome=paid in /metrics {server_paid:.0}, 200s on paid routes in /metrics {server_ok:.0}; facilitator: {verified} verified, {settled} settled, {doubles} double settlements",
            seen.paid_answers
        );
        println!(
            "  unpaid 2xx answers: {}; 2xx without receipt: {}; temp entries left: {temp_left}",
            seen.unpaid_answers, seen.answers_without_receipt
        );
        let mut problems = Vec::new();
        if seen.unpaid_answers > 0 || seen.answers_without_receipt > 0 {
            problems.push("an answer was served unpaid".to_owned());
        }
        if doubles > 0 {
            problems.push(format!("{doubles} double settlements"));
        }
        if settled as f64 != server_paid || server_ok != server_paid {
            problems.push(format!(
                "settled {settled}, outcome=paid {server_paid}, 200s {server_ok}: every answer must be one settlement"
            ));
        }
        if temp_left > 0 {
            problems.push(format!("{temp_left} entries left in the temporary directory"));
        }
        for (name, s, e) in [("analytics", start.0, end.0), ("docs", start.1, end.1)] {
            // Flat: within a quarter (allocator caches and pools settle at their own pace)
            // plus 8 MiB; descriptors within 16 (a keep-alive connection or two).
            if e.rss_kib > s.rss_kib + s.rss_kib / 4 + 8 * 1024 {
                problems.push(format!("{name} RSS grew {} → {} KiB", s.rss_kib, e.rss_kib));
            }
            if e.fds > s.fds + 16 {
                problems.push(format!("{name} fds grew {} → {}", s.fds, e.fds));
            }
        }
        if !problems.is_empty() {
            bail!("soak failed: {}", problems.join("; "));
        }
        println!("soak: ok");
        Ok(())
    })
}

async fn traffic(
    id: usize,
    client: &reqwest::Client,
    analytics: &str,
    docs: &str,
    documents: &[Value],
    seen: &Mutex<Seen>,
    stop: &AtomicBool,
) {
    let mut round: usize = 0;
    let mut spent: Option<(String, Value)> = None;
    while !stop.load(Ordering::Relaxed) {
        round += 1;
        let document = &documents[(round + id) % documents.len()];
        let (kind, url, body, payment): (&'static str, String, Value, Option<String>) =
            match round % 8 {
                0 => (
                    "analytics unpaid",
                    format!("{analytics}/dex/quote"),
                    quote(),
                    None,
                ),
                1 => (
                    "analytics bad input",
                    format!("{analytics}/dex/quote"),
                    json!({"chain": "base", "token_in": "not an address"}),
                    None,
                ),
                2 => (
                    "docs unpaid",
                    format!("{docs}/document"),
                    document.clone(),
                    None,
                ),
                3 => (
                    "docs bad input",
                    format!("{docs}/document"),
                    json!({"pdf_base64": "bm90IGEgcGRm"}),
                    None,
                ),
                4 | 5 => {
                    let Some(signature) =
                        pay(client, &format!("{docs}/document"), document, id, round).await
                    else {
                        seen.lock().await.errors += 1;
                        continue;
                    };
                    spent = Some((signature.clone(), document.clone()));
                    (
                        "docs paid",
                        format!("{docs}/document"),
                        document.clone(),
                        Some(signature),
                    )
                }
                6 => match spent.take() {
                    Some((signature, body)) => (
                        "docs replayed payment",
                        format!("{docs}/document"),
                        body,
                        Some(signature),
                    ),
                    None => continue,
                },
                _ => {
                    let url = format!("{analytics}/dex/quote");
                    let Some(signature) = pay(client, &url, &quote(), id, round).await else {
                        seen.lock().await.errors += 1;
                        continue;
                    };
                    ("analytics paid (no node)", url, quote(), Some(signature))
                }
            };
        let mut request = client.post(&url).json(&body);
        if let Some(signature) = &payment {
            request = request.header("payment-signature", signature);
        }
        let answer = request.send().await;
        let mut s = seen.lock().await;
        match answer {
            Ok(answer) => {
                let status = answer.status();
                *s.statuses.entry((kind, status.as_u16())).or_default() += 1;
                if status.is_success() {
                    match payment {
                        None => s.unpaid_answers += 1,
                        Some(_) if !answer.headers().contains_key("payment-response") => {
                            s.answers_without_receipt += 1;
                        }
                        Some(_) => s.paid_answers += 1,
                    }
                }
            }
            Err(_) => s.errors += 1,
        }
    }
}

/// A fresh payment for what `url` asks for `body` (its 402 terms).
async fn pay(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    id: usize,
    round: usize,
) -> Option<String> {
    let answer = client.post(url).json(body).send().await.ok()?;
    let terms = harness::terms_of(answer.headers()).ok()?;
    let label = format!("soak {} {id} {round}", std::process::id());
    Some(server_kit::testing::payment_signature(&terms, &label))
}
