//! `cargo xtask soak [--minutes N]`: mixed traffic against both release executables for N
//! minutes (30 by default), paid through the stand-in facilitator, then the checks of issue 22:
//! resident memory and file descriptors of each server flat (end against the start after a
//! warm-up), the docs server's temporary directory empty, no answer served unpaid and no
//! payment settled twice — counted from the servers' `/metrics` and the facilitator, and
//! checked against what the clients saw.
//!
//! The analytics server reads chain `base` from a local devnet (anvil with the committed
//! contracts, and the off-chain stand-in), so its paid answers are real quotes, settled.
//!
//! Traffic, from four concurrent honest clients in turns: unpaid requests (402), bad input
//! (4xx), paid documents (a few distinct files and page selections: misses, then cache hits),
//! paid documents never seen before (real work in the workers), paid OCR, replayed payments
//! (refused), paid quotes on the devnet, and paid quotes on a chain without a node (502, which
//! must never be settled). Every honest 200 must equal the answer its document got alone. A
//! fifth client sends the hostile files of `bins/docs-server/tests` ([`crate::hostile_files`])
//! one after another, paying when asked: each must be refused as when alone (or 503 `busy`),
//! uncharged and never settled. The peak RSS of each server (the docs server with its worker
//! processes) is sampled, and the docs workers the hostile files ended are read from
//! `worker_restarts_total`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::harness::{self, AnalyticsDevnet, Profile, ServerProcess, Service};
use crate::hostile_files::HostileCase;
use crate::load::RssPeak;
use crate::paths;
use test_devnet::fixtures::unseen_copy;

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
    /// Honest 200s whose answer differs from the one their document got alone (must stay 0).
    wrong_answers: u64,
    /// Transport failures.
    errors: u64,
    /// Hostile files: (name, status) counts.
    hostile: BTreeMap<(&'static str, u16), u64>,
    /// Hostile answers outside what each file must get (status, error, charged, receipt).
    hostile_problems: Vec<String>,
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

/// `/dex/quote` on ethereum, which has no node here: answered 502 after the payment is
/// verified, and never settled.
fn quote_without_node() -> Value {
    json!({"chain": "ethereum", "token_in": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
        "token_out": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "amount_in": "1.5",
        "slippage_bps": 50})
}

/// `testdata/pdf/NAME` with a comment after its end: another file (another cache key), the
/// same document.
fn tagged_pdf(name: &str, tag: &str) -> Result<Value> {
    let bytes = std::fs::read(paths::workspace_root().join("testdata/pdf").join(name))?;
    Ok(
        json!({"pdf_base64": base64::engine::general_purpose::STANDARD.encode(unseen_copy(&bytes, tag))}),
    )
}

/// `/ocr` of the scanned page of `testdata/pdf/image_only.pdf`.
fn ocr_body() -> Result<Value> {
    let bytes = std::fs::read(paths::workspace_root().join("testdata/pdf/image_only.pdf"))?;
    Ok(
        json!({"image_base64": base64::engine::general_purpose::STANDARD.encode(bytes),
        "mime": "application/pdf", "want": ["text"]}),
    )
}

/// What the honest clients send and the answers they must get.
#[derive(Debug)]
struct Plan {
    analytics: String,
    docs: String,
    /// `/document` bodies and the answer each got alone.
    documents: Vec<(Value, Value)>,
    /// The `/ocr` body and its answer alone.
    ocr: (Value, Value),
    /// multipage.pdf's answer alone (tagged copies must get it too).
    multipage: Value,
    /// A paid quote the devnet answers.
    quote: Value,
}

/// `cargo xtask soak --minutes N`.
pub fn soak(minutes: u64) -> Result<()> {
    let bin_dir = harness::build_servers(Profile::Release)?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let (facilitator, counts) = harness::spawn_facilitator().await?;
        let devnet = AnalyticsDevnet::start().await?;
        let analytics = ServerProcess::start_analytics_on(&devnet, &bin_dir, &facilitator, "")?;
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
            let alone = paid_alone(&client, &format!("{}/document", docs.url()), &body).await?;
            documents.push((body, alone));
        }
        let ocr = ocr_body()?;
        let ocr_alone = paid_alone(&client, &format!("{}/ocr", docs.url()), &ocr).await?;
        let multipage = documents[0].1.clone();
        let quote = devnet.quote()?;
        paid_alone(&client, &format!("{}/dex/quote", analytics.url()), &quote).await?;
        let plan = Arc::new(Plan {
            analytics: analytics.url(),
            docs: docs.url(),
            documents,
            ocr: (ocr, ocr_alone),
            multipage,
            quote,
        });
        let hostile = Arc::new(crate::hostile_files::cases());
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let total = Duration::from_secs(minutes * 60);
        // The start is taken after a warm-up (workers started, caches and pools filled).
        let warm_up = (total / 10).clamp(Duration::from_secs(10), Duration::from_secs(120));
        let docs_peak = RssPeak::start(vec![docs.pid()]);
        let analytics_peak = RssPeak::start(vec![analytics.pid()]);
        let mut clients: Vec<_> = (0..4)
            .map(|id| {
                let (client, seen, stop, plan) =
                    (client.clone(), seen.clone(), stop.clone(), plan.clone());
                tokio::spawn(async move {
                    traffic(id, &client, &plan, &seen, &stop).await;
                })
            })
            .collect();
        clients.push({
            let (client, seen, stop, hostile, docs) = (
                client.clone(),
                seen.clone(),
                stop.clone(),
                hostile.clone(),
                docs.url(),
            );
            tokio::spawn(async move {
                hostile_traffic(&client, &docs, &hostile, &seen, &stop).await;
            })
        });
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
                "soak: {:.0} s: analytics {:?}, docs {:?}; {} paid answers, {} requests, {} hostile",
                (started.elapsed() + warm_up).as_secs_f64(),
                vitals(&analytics),
                vitals(&docs),
                s.paid_answers,
                s.statuses.values().sum::<u64>(),
                s.hostile.values().sum::<u64>()
            );
        }
        stop.store(true, Ordering::Relaxed);
        for client in clients {
            let _ = client.await;
        }
        // Settlements run on their own tasks: let the last ones land before counting.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let end = (vitals(&analytics), vitals(&docs));
        let (docs_peak_mib, analytics_peak_mib) = (docs_peak.mib(), analytics_peak.mib());
        drop((docs_peak, analytics_peak));
        let seen = seen.lock().await;
        let (verified, settled, doubles) = counts.snapshot();
        let mut server_paid = 0.0;
        let mut server_ok = 0.0;
        let mut docs_metrics = String::new();
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
            if server.service == Service::Docs {
                docs_metrics = text;
            }
        }
        let restarts: Vec<String> = docs_metrics
            .lines()
            .filter(|l| l.starts_with("worker_restarts_total{"))
            .map(str::to_owned)
            .collect();
        let busy = harness::metric_sum(&docs_metrics, "busy_refusals_total", &[]) as u64;
        let temp_left = docs.temp_entries();
        println!("\nsoak: {minutes} min of mixed traffic");
        for ((kind, status), n) in &seen.statuses {
            println!("  {kind:<28} {status}: {n}");
        }
        println!("  hostile files (each paid when asked):");
        for ((name, status), n) in &seen.hostile {
            println!("    {name:<52} {status}: {n}");
        }
        println!("  transport errors: {}", seen.errors);
        println!(
            "  analytics: RSS {} → {} KiB (peak {analytics_peak_mib:.0} MiB), fds {} → {}",
            start.0.rss_kib, end.0.rss_kib, start.0.fds, end.0.fds
        );
        println!(
            "  docs: RSS {} → {} KiB (workers {} → {} KiB; peak of server + workers {docs_peak_mib:.0} MiB), fds {} → {}",
            start.1.rss_kib,
            end.1.rss_kib,
            start.1.children_rss_kib,
            end.1.children_rss_kib,
            start.1.fds,
            end.1.fds
        );
        println!(
            "  docs worker restarts (worker_restarts_total): {}; busy refusals: {busy}",
            if restarts.is_empty() {
                "none".to_owned()
            } else {
                restarts.join(", ")
            }
        );
        println!(
            "  paid answers seen by clients {}, outcome=paid in /metrics {server_paid:.0}, 200s on paid routes in /metrics {server_ok:.0}; facilitator: {verified} verified, {settled} settled, {doubles} double settlements",
            seen.paid_answers
        );
        println!(
            "  unpaid 2xx answers: {}; 2xx without receipt: {}; wrong honest answers: {}; temp entries left: {temp_left}",
            seen.unpaid_answers, seen.answers_without_receipt, seen.wrong_answers
        );
        let mut problems = seen.hostile_problems.clone();
        if seen.unpaid_answers > 0 || seen.answers_without_receipt > 0 {
            problems.push("an answer was served unpaid".to_owned());
        }
        if seen.wrong_answers > 0 {
            problems.push(format!("{} honest answers were wrong", seen.wrong_answers));
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
        drop(devnet);
        if !problems.is_empty() {
            bail!("soak failed: {}", problems.join("; "));
        }
        println!("soak: ok");
        Ok(())
    })
}

/// Pays for `body` at `url` once, before the traffic, and returns the answer (a 200 with a
/// receipt, or an error).
async fn paid_alone(client: &reqwest::Client, url: &str, body: &Value) -> Result<Value> {
    // Each call its own nonce.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let signature = pay(client, url, body, 99, call, "alone")
        .await
        .with_context(|| format!("no terms from {url}"))?;
    let answer = client
        .post(url)
        .header("payment-signature", signature)
        .json(body)
        .send()
        .await?;
    let status = answer.status();
    let receipt = answer.headers().contains_key("payment-response");
    let value: Value = answer.json().await?;
    if !status.is_success() || !receipt {
        bail!("{url} alone: {status} {value}");
    }
    Ok(value)
}

async fn traffic(
    id: usize,
    client: &reqwest::Client,
    plan: &Plan,
    seen: &Mutex<Seen>,
    stop: &AtomicBool,
) {
    let (analytics, docs) = (plan.analytics.as_str(), plan.docs.as_str());
    let mut round: usize = 0;
    let mut spent: Option<(String, Value)> = None;
    while !stop.load(Ordering::Relaxed) {
        round += 1;
        let (document, document_alone) = &plan.documents[(round + id) % plan.documents.len()];
        // (kind, url, body, paid, the answer a 200 must equal)
        let (kind, url, body, paid, alone): (&'static str, String, Value, bool, Option<&Value>) =
            match round % 11 {
                0 => (
                    "analytics unpaid",
                    format!("{analytics}/dex/quote"),
                    plan.quote.clone(),
                    false,
                    None,
                ),
                1 => (
                    "analytics bad input",
                    format!("{analytics}/dex/quote"),
                    json!({"chain": "base", "token_in": "not an address"}),
                    false,
                    None,
                ),
                2 => (
                    "docs unpaid",
                    format!("{docs}/document"),
                    document.clone(),
                    false,
                    None,
                ),
                3 => (
                    "docs bad input",
                    format!("{docs}/document"),
                    json!({"pdf_base64": "bm90IGEgcGRm"}),
                    false,
                    None,
                ),
                4 | 5 => (
                    "docs paid",
                    format!("{docs}/document"),
                    document.clone(),
                    true,
                    Some(document_alone),
                ),
                6 => match spent.take() {
                    Some((signature, body)) => {
                        send(
                            client,
                            seen,
                            "docs replayed payment",
                            &format!("{docs}/document"),
                            &body,
                            Some(signature),
                            None,
                        )
                        .await;
                        continue;
                    }
                    None => continue,
                },
                7 => {
                    let Ok(body) = tagged_pdf("multipage.pdf", &format!("soak {id} {round}"))
                    else {
                        seen.lock().await.errors += 1;
                        continue;
                    };
                    (
                        "docs paid, new file",
                        format!("{docs}/document"),
                        body,
                        true,
                        Some(&plan.multipage),
                    )
                }
                8 => (
                    "ocr paid",
                    format!("{docs}/ocr"),
                    plan.ocr.0.clone(),
                    true,
                    Some(&plan.ocr.1),
                ),
                9 => (
                    "analytics paid (devnet)",
                    format!("{analytics}/dex/quote"),
                    plan.quote.clone(),
                    true,
                    None,
                ),
                _ => (
                    "analytics paid (no node)",
                    format!("{analytics}/dex/quote"),
                    quote_without_node(),
                    true,
                    None,
                ),
            };
        let payment = if paid {
            let Some(signature) = pay(client, &url, &body, id, round, "soak").await else {
                seen.lock().await.errors += 1;
                continue;
            };
            if kind == "docs paid" {
                spent = Some((signature.clone(), body.clone()));
            }
            Some(signature)
        } else {
            None
        };
        send(client, seen, kind, &url, &body, payment, alone).await;
    }
}

/// Sends one request and records what came back; a 200 must equal `alone` when given.
async fn send(
    client: &reqwest::Client,
    seen: &Mutex<Seen>,
    kind: &'static str,
    url: &str,
    body: &Value,
    payment: Option<String>,
    alone: Option<&Value>,
) {
    let mut request = client.post(url).json(body);
    if let Some(signature) = &payment {
        request = request.header("payment-signature", signature);
    }
    let answer = request.send().await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(_) => {
            seen.lock().await.errors += 1;
            return;
        }
    };
    let status = answer.status();
    let receipt = answer.headers().contains_key("payment-response");
    let value: Option<Value> = answer.json().await.ok();
    let mut s = seen.lock().await;
    *s.statuses.entry((kind, status.as_u16())).or_default() += 1;
    if status.is_success() {
        match payment {
            None => s.unpaid_answers += 1,
            Some(_) if !receipt => s.answers_without_receipt += 1,
            Some(_) => s.paid_answers += 1,
        }
        if alone.is_some_and(|alone| value.as_ref() != Some(alone)) {
            s.wrong_answers += 1;
        }
    }
}

/// Sends the hostile files one after another until `stop`, paying whenever terms come back;
/// each must get what it gets alone (or 503 `busy`), uncharged, without a receipt.
async fn hostile_traffic(
    client: &reqwest::Client,
    docs: &str,
    cases: &[HostileCase],
    seen: &Mutex<Seen>,
    stop: &AtomicBool,
) {
    let mut round = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let case = &cases[round % cases.len()];
        round += 1;
        let url = format!("{docs}{}", case.route);
        let mut paid = false;
        let mut answer = client.post(&url).json(&case.body).send().await;
        if let Ok(first) = &answer
            && first.status().as_u16() == 402
        {
            let Some(signature) = harness::terms_of(first.headers()).ok().map(|terms| {
                server_kit::testing::payment_signature(
                    &terms,
                    &format!("soak hostile {} {round}", std::process::id()),
                )
            }) else {
                seen.lock().await.errors += 1;
                continue;
            };
            paid = true;
            answer = client
                .post(&url)
                .header("payment-signature", signature)
                .json(&case.body)
                .send()
                .await;
        }
        let Ok(answer) = answer else {
            seen.lock().await.errors += 1;
            continue;
        };
        let status = answer.status().as_u16();
        let receipt = answer.headers().contains_key("payment-response");
        let value: Value = answer.json().await.unwrap_or(Value::Null);
        let mut s = seen.lock().await;
        *s.hostile.entry((case.name, status)).or_default() += 1;
        let busy = status == 503 && value["error"] == "busy";
        if case.is_read() && status == 200 {
            // The one file that is read: paid and answered like any honest call.
            if paid && receipt {
                s.paid_answers += 1;
            } else {
                s.answers_without_receipt += 1;
            }
            continue;
        }
        let problem = if status != case.expected.0 && !busy {
            Some(format!("{}: answered {status} {value}", case.name))
        } else if !busy && value["error"].as_str() != case.expected.1 {
            Some(format!("{}: error {}", case.name, value["error"]))
        } else if value["charged"] != json!(false) || receipt {
            Some(format!("{}: charged or with a receipt: {value}", case.name))
        } else {
            None
        };
        if let Some(problem) = problem
            && s.hostile_problems.len() < 20
        {
            s.hostile_problems.push(problem);
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
    label: &str,
) -> Option<String> {
    let answer = client.post(url).json(body).send().await.ok()?;
    let terms = harness::terms_of(answer.headers()).ok()?;
    let label = format!("{label} {} {id} {round}", std::process::id());
    Some(server_kit::testing::payment_signature(&terms, &label))
}
