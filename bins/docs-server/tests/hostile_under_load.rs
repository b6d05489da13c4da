//! Issue 22: the hostile files of issue 13 (`support::hostile`) sent to a running server — the
//! docs-server executable cargo built for the tests, so the debug build — while honest clients
//! keep paying for `/document` and `/ocr` calls (each file new, so each is real work in the
//! worker processes, not a cache hit). Then:
//! - every honest call is answered 200 with exactly the answer the same document got alone;
//! - every hostile file gets the status and error it gets alone (or 503 `busy`, answered before
//!   the payment), `charged: false`, no receipt, and its payment is never settled;
//! - every settlement at the stand-in facilitator is one honest 200's payment, settled once;
//! - the peak resident memory of each process (the server, each worker) stays under 1 GiB (the
//!   peak of their sum is printed), and no worker is restarted: the budgets inside the workers
//!   refuse every file before it can end its worker (`worker_restarts_total` on `/metrics`).
//!
//! `cargo xtask soak` runs the same files in its mixed traffic, for minutes, on the release
//! build.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use alloy::primitives::keccak256;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use server_kit::testing::{metric_sum, paying_mocks, payment_signature};
use support::PAY_TO;
use support::hostile::HostileCase;
use test_devnet::fixtures::unseen_copy;
use wiremock::MockServer;
use x402_core::{PaymentRequired, decode_header};

/// Honest clients running beside the hostile one.
const HONEST_CLIENTS: usize = 3;
const GIB: u64 = 1024 * 1024 * 1024;

/// The server process, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(facilitator: &str) -> Self {
        let port = test_devnet::free_port().expect("a free port");
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).expect("work dir");
        let config = dir.path().join("docs.toml");
        // One client sends everything: the per-client allowances are lifted, the limits under
        // test are the workers'.
        std::fs::write(
            &config,
            format!(
                "listen = \"127.0.0.1:{port}\"\ntemp_dir = \"{}\"\n[log]\nlevel = \"error\"\n\
                 [payment]\npay_to = \"{PAY_TO}\"\n[facilitator]\nurl = \"{facilitator}\"\n\
                 [limits]\nunpaid_per_window = 1000000\nunverified_per_client = 1000000\n\
                 payer_failures_per_window = 1000000\npayer_concurrency = 100000\n\
                 [ocr]\nengines = 1\n[workers]\nextraction = 2\n",
                work.display()
            ),
        )
        .expect("config");
        let child = Command::new(env!("CARGO_BIN_EXE_docs-server"))
            .args(["--config", &config.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        Self {
            child,
            port,
            _dir: dir,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` of `pid`, KiB (0 once it is gone).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// The direct children of `pid` (the server's workers).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// An honest call: its route, and its body for a given tag.
#[derive(Clone, Copy)]
enum Honest {
    /// `/document` of multipage.pdf.
    Document,
    /// `/ocr` of image_only.pdf (a scanned page: recognised by Tesseract).
    Ocr,
}

impl Honest {
    fn route(self) -> &'static str {
        match self {
            Self::Document => "/document",
            Self::Ocr => "/ocr",
        }
    }

    fn body(self, tag: &str) -> Value {
        match self {
            Self::Document => {
                json!({"pdf_base64": STANDARD.encode(unseen_copy(&support::fixture("multipage.pdf"), tag))})
            }
            Self::Ocr => json!({
                "image_base64": STANDARD.encode(unseen_copy(&support::fixture("image_only.pdf"), tag)),
                "mime": "application/pdf",
                "want": ["text"],
            }),
        }
    }
}

/// What one paid exchange came to.
struct Exchange {
    status: u16,
    body: Value,
    receipt: bool,
    /// The nonce of the payment sent, when one was.
    nonce: Option<String>,
}

/// Sends `body` unpaid and, when terms come back, pays them with a payment labelled `label`.
async fn exchange(client: &reqwest::Client, url: &str, body: &Value, label: &str) -> Exchange {
    let first = client
        .post(url)
        .json(body)
        .send()
        .await
        .expect("the server answers");
    let (answer, nonce) = if first.status().as_u16() == 402 {
        let header = first
            .headers()
            .get("payment-required")
            .expect("terms")
            .to_str()
            .expect("ASCII")
            .to_owned();
        let terms: PaymentRequired = decode_header(&header).expect("terms decode");
        let paid = client
            .post(url)
            .header("payment-signature", payment_signature(&terms, label))
            .json(body)
            .send()
            .await
            .expect("the server answers");
        (paid, Some(keccak256(label).to_string()))
    } else {
        (first, None)
    };
    let status = answer.status().as_u16();
    let receipt = answer.headers().contains_key("payment-response");
    let bytes = answer.bytes().await.expect("a body");
    Exchange {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        receipt,
        nonce,
    }
}

/// The nonces of every `/settle` call the facilitator received, with their counts.
async fn settled_nonces(facilitator: &MockServer) -> HashMap<String, u32> {
    let mut nonces = HashMap::new();
    for request in facilitator.received_requests().await.unwrap_or_default() {
        if request.url.path() != "/settle" {
            continue;
        }
        let body: Value = serde_json::from_slice(&request.body).expect("settle JSON");
        let nonce = body
            .pointer("/paymentPayload/payload/authorization/nonce")
            .and_then(Value::as_str)
            .expect("a nonce")
            .to_lowercase();
        *nonces.entry(nonce).or_default() += 1;
    }
    nonces
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hostile_files_among_honest_paid_traffic_are_refused_uncharged_and_honest_answers_stay_right()
 {
    let facilitator = MockServer::start().await;
    let (verify, settle) = paying_mocks();
    verify.mount(&facilitator).await;
    settle.mount(&facilitator).await;
    let server = Server::start(&facilitator.uri());
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client");
    let base = server.url();
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.get(format!("{base}/health")).send().await.is_err() {
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The answers of the honest documents alone (their cache entries are never hit again:
    // every later call sends a new tag).
    let mut reference = BTreeMap::new();
    for honest in [Honest::Document, Honest::Ocr] {
        let alone = exchange(
            &client,
            &format!("{base}{}", honest.route()),
            &honest.body("reference"),
            &format!("reference {}", honest.route()),
        )
        .await;
        assert_eq!(alone.status, 200, "{}", alone.body);
        reference.insert(honest.route(), alone.body);
    }
    let reference = Arc::new(reference);

    // Peak resident memory of the server plus its workers, and of the largest single process,
    // sampled every 50 ms.
    let peak = Arc::new(AtomicU64::new(0));
    let peak_one = Arc::new(AtomicU64::new(0));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, peak_one, sampling, pid) = (
            peak.clone(),
            peak_one.clone(),
            sampling.clone(),
            server.pid(),
        );
        std::thread::spawn(move || {
            while sampling.load(Ordering::Relaxed) {
                let each: Vec<u64> = std::iter::once(pid)
                    .chain(children(pid))
                    .map(rss_kib)
                    .collect();
                peak.fetch_max(each.iter().sum(), Ordering::Relaxed);
                peak_one.fetch_max(each.into_iter().max().unwrap_or(0), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };

    let hostile_done = Arc::new(AtomicBool::new(false));
    let honest: Vec<_> = (0..HONEST_CLIENTS)
        .map(|id| {
            let (client, base, done, reference) = (
                client.clone(),
                base.clone(),
                hostile_done.clone(),
                reference.clone(),
            );
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut round = 0;
                // At least two calls each, and on until the hostile client is through.
                while round < 2 || !done.load(Ordering::Relaxed) {
                    let honest = if (round + id) % 2 == 0 {
                        Honest::Document
                    } else {
                        Honest::Ocr
                    };
                    let tag = format!("honest {id} {round}");
                    let url = format!("{base}{}", honest.route());
                    let sent = Instant::now();
                    let got = exchange(&client, &url, &honest.body(&tag), &tag).await;
                    eprintln!(
                        "{tag} {}: {} in {:?}",
                        honest.route(),
                        got.status,
                        sent.elapsed()
                    );
                    seen.push((honest.route(), got));
                    round += 1;
                }
                (seen, reference)
            })
        })
        .collect();

    let cases = support::hostile::cases();
    let mut hostile: Vec<(&HostileCase, Exchange)> = Vec::new();
    let started = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let url = format!("{base}{}", case.route);
        let sent = Instant::now();
        let got = exchange(&client, &url, &case.body, &format!("hostile {i}")).await;
        eprintln!(
            "{}: {} in {:?}: {}",
            case.name,
            got.status,
            sent.elapsed(),
            got.body["error"]
        );
        hostile.push((case, got));
    }
    eprintln!("hostile files sent in {:?}", started.elapsed());
    hostile_done.store(true, Ordering::Relaxed);
    let mut honest_seen = Vec::new();
    for client in honest {
        let (seen, _) = client.await.expect("an honest client");
        honest_seen.extend(seen);
    }
    sampling.store(false, Ordering::Relaxed);
    sampler.join().expect("the sampler");

    // Honest: all answered, all right.
    let mut honest_nonces = Vec::new();
    for (route, got) in &honest_seen {
        assert_eq!(got.status, 200, "honest {route}: {}", got.body);
        assert!(got.receipt, "honest {route} answered without a receipt");
        assert_eq!(
            &got.body, &reference[route],
            "honest {route}: another answer"
        );
        honest_nonces.push(got.nonce.clone().expect("paid"));
    }
    // Hostile: refused as when alone, uncharged, never settled.
    let mut hostile_nonces = Vec::new();
    let mut read_nonces = Vec::new();
    for (case, got) in &hostile {
        let busy = got.status == 503 && got.body["error"] == "busy";
        assert!(
            got.status == case.expected.0 || busy,
            "{}: {} {}",
            case.name,
            got.status,
            got.body
        );
        if case.is_read() && !busy {
            assert!(got.receipt, "{}: a 200 without a receipt", case.name);
            read_nonces.extend(got.nonce.clone());
            continue;
        }
        if !busy {
            assert_eq!(
                got.body["error"].as_str(),
                case.expected.1,
                "{}: {}",
                case.name,
                got.body
            );
        }
        assert_eq!(
            got.body["charged"],
            json!(false),
            "{}: {}",
            case.name,
            got.body
        );
        assert!(!got.receipt, "{}: a refusal with a receipt", case.name);
        hostile_nonces.extend(got.nonce.clone());
    }
    // Settlements land on their own tasks: give the last ones a moment.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let settled = settled_nonces(&facilitator).await;
    for nonce in &hostile_nonces {
        assert!(
            !settled.contains_key(nonce),
            "a hostile file's payment was settled"
        );
    }
    let expected_settled = honest_nonces.len() + read_nonces.len() + reference.len();
    assert_eq!(
        settled.len(),
        expected_settled,
        "one settlement per paid answer"
    );
    assert!(settled.values().all(|n| *n == 1), "a payment settled twice");
    for nonce in honest_nonces.iter().chain(&read_nonces) {
        assert!(
            settled.contains_key(nonce),
            "an honest answer was not settled"
        );
    }

    let metrics = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    let restarts = metric_sum(&metrics, "worker_restarts_total", &[]) as u64;
    let (peak_bytes, peak_one_bytes) = (
        peak.load(Ordering::Relaxed) * 1024,
        peak_one.load(Ordering::Relaxed) * 1024,
    );
    eprintln!(
        "{} honest calls, {} hostile files; peak RSS of server + workers {} MiB (largest process {} MiB); worker restarts {restarts}; settlements {}",
        honest_seen.len(),
        hostile.len(),
        peak_bytes / (1024 * 1024),
        peak_one_bytes / (1024 * 1024),
        settled.len()
    );
    // The budgets inside the workers refuse every one of these files before it can end its
    // worker (a worker's death is counted, tested in `hostile.rs`): none is restarted.
    assert_eq!(restarts, 0, "workers restarted:\n{metrics}");
    // Issue 13's bound, per process (the debug build's two extraction workers with their
    // Tesseract engines, the planners and the server together come near it).
    assert!(peak_one_bytes < GIB, "peak RSS {peak_one_bytes} bytes");
}
