//! Two docs-server processes on one real `redis-server`, behind Debian's nginx round-robin,
//! all on loopback (test-devnet's `RedisServer` and `Nginx`); a wiremock facilitator counts
//! the settlements (issue 21's proofs for the document service).

mod support;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use server_kit::testing::{mount_paying_facilitator, payment_signature, test_payer};
use support::{PAY_TO, inline};
use test_devnet::{Nginx, RedisServer};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};
use x402_core::{PaymentRequired, decode_header};

/// One docs-server process, killed (SIGKILL) when dropped.
struct Replica {
    child: Option<Child>,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Replica {
    async fn start(redis: &RedisServer, facilitator: &MockServer, unpaid: u32) -> Self {
        let port = test_devnet::free_port().expect("a free port");
        let dir = tempfile::tempdir().expect("temp dir");
        let config = dir.path().join("docs.toml");
        let toml = format!(
            "listen = \"127.0.0.1:{port}\"\npublic_url = \"http://docs.test\"\n\
             [payment]\npay_to = \"{PAY_TO}\"\n[facilitator]\nurl = \"{facilitator}\"\n\
             [limits]\ntrust_forwarded = true\nunpaid_per_window = {unpaid}\nunverified_per_client = 100\npayer_concurrency = 100\n\
             [state]\nbackend = \"redis\"\nredis_url = \"{redis}\"\npending_stale_seconds = 1\npending_scan_seconds = 1\n\
             [ocr]\nengines = 1\n[workers]\nextraction = 1\n",
            facilitator = facilitator.uri(),
            redis = redis.url(),
        );
        std::fs::write(&config, toml).expect("config");
        let child = Command::new(env!("CARGO_BIN_EXE_docs-server"))
            .args(["--config", &config.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let replica = Self {
            child: Some(child),
            port,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while reqwest::get(format!("{}/health", replica.url()))
            .await
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "docs-server never answered /health"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        replica
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The sum of the `paid_route_outcomes_total` series with `outcome`.
    async fn outcomes(&self, outcome: &str) -> f64 {
        let text = reqwest::get(format!("{}/metrics", self.url()))
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text");
        let label = format!("outcome=\"{outcome}\"");
        text.lines()
            .filter(|line| line.starts_with("paid_route_outcomes_total") && line.contains(&label))
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

struct Answer {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

async fn post(base: &str, body: &Value, payment: Option<&str>) -> Answer {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/document"))
        .json(body);
    if let Some(payment) = payment {
        request = request.header("payment-signature", payment);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

fn terms(answer: &Answer) -> PaymentRequired {
    assert_eq!(
        answer.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        answer.body
    );
    let header = answer.headers["payment-required"].to_str().expect("ASCII");
    decode_header(header).expect("terms")
}

fn settle_calls(requests: &[Request]) -> usize {
    requests
        .iter()
        .filter(|r| r.url.path() == "/settle")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn devnet_behind_nginx_one_payment_is_served_settled_and_worked_on_once_and_answers_are_shared()
 {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // The burst's one settlement, then one paid request sent to each replica directly.
    mount_paying_facilitator(&facilitator, 3).await;
    let a = Replica::start(&redis, &facilitator, 1000).await;
    let b = Replica::start(&redis, &facilitator, 1000).await;
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = inline("zugferd_basic_einfach.pdf");
    let first = post(&nginx.url(), &body, None).await;
    assert_eq!(
        first.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        nginx.error_log()
    );
    let terms = terms(&first);
    let signature = payment_signature(&terms, "sent ten times");

    let burst: Vec<_> = (0..10)
        .map(|_| {
            let (url, body, signature) = (nginx.url(), body.clone(), signature.clone());
            tokio::spawn(async move { post(&url, &body, Some(&signature)).await })
        })
        .collect();
    let mut served = 0;
    for answer in burst {
        let answer = answer.await.expect("task");
        match answer.status {
            StatusCode::OK => served += 1,
            StatusCode::PAYMENT_REQUIRED => {
                assert_eq!(answer.body["error"], "invalid_exact_evm_nonce_already_used");
            }
            other => panic!("{other}: {} ({})", answer.body, nginx.error_log()),
        }
    }
    assert_eq!(served, 1);
    let paid = a.outcomes("paid").await + b.outcomes("paid").await;
    assert_eq!(paid, 1.0, "worked on and settled by one replica only");
    let refused = a.outcomes("payment_required").await + b.outcomes("payment_required").await;
    assert!(
        refused >= 9.0,
        "the other copies were refused at the lock: {refused}"
    );
    assert!(
        a.outcomes("payment_required").await >= 1.0 && b.outcomes("payment_required").await >= 1.0,
        "the burst reached both replicas"
    );

    // Whichever replica computed the answer, the other one has it too: both answer from the
    // cache, each charging the full price.
    for replica in [&a, &b] {
        let fresh = payment_signature(&terms, &format!("direct {}", replica.port));
        let answer = post(&replica.url(), &body, Some(&fresh)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.headers["x-cache"], "hit");
        assert!(answer.headers.contains_key("payment-response"));
    }
    drop(nginx);
    // wiremock checks the three settlements when `facilitator` drops.
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_behind_nginx_the_unpaid_allowance_is_summed_over_both_replicas() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    let a = Replica::start(&redis, &facilitator, 6).await;
    let b = Replica::start(&redis, &facilitator, 6).await;
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = json!({"pdf_base64": "JVBERi0xLjQK"});
    for i in 0..6 {
        let answer = post(&nginx.url(), &body, None).await;
        assert_ne!(
            answer.status,
            StatusCode::TOO_MANY_REQUESTS,
            "request {i}: {}",
            answer.body
        );
    }
    for _ in 0..2 {
        let answer = post(&nginx.url(), &body, None).await;
        assert_eq!(
            answer.status,
            StatusCode::TOO_MANY_REQUESTS,
            "{}",
            answer.body
        );
        assert_eq!(answer.body["error"], "too_many_unpaid");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_replica_killed_before_its_settlement_outcome_is_resolved_by_the_other() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // The settlement reaches the chain (the facilitator's verify says the nonce is used from
    // then on) but its answer never comes back: the replica is killed while it waits.
    let landed = Arc::new(AtomicBool::new(false));
    let payer = test_payer().address().to_checksum(None);
    let seen = landed.clone();
    Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(move |_: &Request| {
            let used = seen.load(Ordering::SeqCst);
            ResponseTemplate::new(200).set_body_json(if used {
                json!({"isValid": false, "invalidReason": "invalid_exact_evm_nonce_already_used", "payer": payer})
            } else {
                json!({"isValid": true, "payer": payer})
            })
        })
        .mount(&facilitator)
        .await;
    let lands = landed.clone();
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(move |_: &Request| {
            lands.store(true, Ordering::SeqCst);
            ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(3600))
                .set_body_json(json!({"success": true}))
        })
        .mount(&facilitator)
        .await;
    let mut a = Replica::start(&redis, &facilitator, 1000).await;
    let b = Replica::start(&redis, &facilitator, 1000).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let signature = payment_signature(&terms(&post(&a.url(), &body, None).await), "killed");
    let (url, sent, payment) = (a.url(), body.clone(), signature.clone());
    let doomed = tokio::spawn(async move { post(&url, &sent, Some(&payment)).await });
    let deadline = Instant::now() + Duration::from_secs(60);
    while settle_calls(&facilitator.received_requests().await.unwrap_or_default()) == 0 {
        assert!(Instant::now() < deadline, "replica A never settled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.kill();
    doomed.abort();
    assert!(
        redis
            .command("HLEN docs:pending")
            .expect("hlen")
            .starts_with(":1"),
        "the dead replica left its record"
    );

    // B's scan (every second, records older than a second) resolves it.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !redis
        .command("HLEN docs:pending")
        .expect("hlen")
        .starts_with(":0")
    {
        assert!(
            Instant::now() < deadline,
            "replica B never resolved the record"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let again = post(&b.url(), &body, Some(&signature)).await;
    assert_eq!(again.status, StatusCode::PAYMENT_REQUIRED, "{}", again.body);
    assert_eq!(again.body["error"], "invalid_exact_evm_nonce_already_used");
    assert_eq!(
        settle_calls(&facilitator.received_requests().await.unwrap_or_default()),
        1,
        "charged at most once: the record was resolved without a second settle"
    );
    assert_eq!(b.outcomes("paid").await, 0.0);
}

async fn readiness(replica: &Replica) -> (StatusCode, Value) {
    let response = reqwest::get(format!("{}/readiness", replica.url()))
        .await
        .expect("readiness");
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Readiness once its `state` check reads `state` (the other checks are the facilitator's and
/// the workers', not this test's subject).
async fn wait_readiness(replica: &Replica, state: &str) -> (StatusCode, Value) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, body) = readiness(replica).await;
        if body["checks"]["state"] == state || Instant::now() > deadline {
            return (status, body);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_behind_nginx_redis_stopped_fails_closed_and_started_again_serves_without_restart() {
    let mut redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // One settlement before the outage, one after it; none during.
    mount_paying_facilitator(&facilitator, 2).await;
    let a = Replica::start(&redis, &facilitator, 1000).await;
    let b = Replica::start(&redis, &facilitator, 1000).await;
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = inline("zugferd_basic_einfach.pdf");
    let terms = terms(&post(&nginx.url(), &body, None).await);
    let before = post(
        &nginx.url(),
        &body,
        Some(&payment_signature(&terms, "before")),
    )
    .await;
    assert_eq!(before.status, StatusCode::OK, "{}", before.body);

    redis.stop();
    // Two requests: one reaches each replica.
    for label in ["during 1", "during 2"] {
        let during = post(&nginx.url(), &body, Some(&payment_signature(&terms, label))).await;
        assert_eq!(
            during.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{}",
            during.body
        );
        assert_eq!(during.body["error"], "state_unavailable");
        assert_eq!(during.body["charged"], false);
        assert!(!during.headers.contains_key("payment-response"));
    }
    for replica in [&a, &b] {
        let (status, body) = wait_readiness(replica, "failed").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["ready"], false, "{body}");
        assert_eq!(body["checks"]["state"], "failed", "{body}");
    }
    // Unpaid requests still get their terms (the limiter fails open); nothing is served.
    let unpaid = post(&nginx.url(), &body, None).await;
    assert_eq!(
        unpaid.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        unpaid.body
    );

    redis.start().expect("redis-server again");
    for replica in [&a, &b] {
        let (_, body) = wait_readiness(replica, "ok").await;
        assert_eq!(body["checks"]["state"], "ok", "{body}");
    }
    let after = post(
        &nginx.url(),
        &body,
        Some(&payment_signature(&terms, "after")),
    )
    .await;
    assert_eq!(after.status, StatusCode::OK, "{}", after.body);
    assert_eq!(a.outcomes("paid").await + b.outcomes("paid").await, 2.0);
    // wiremock checks the two settlements when `facilitator` drops.
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_sigterm_lets_a_paid_request_in_flight_finish_and_settle_then_exits() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    let payer = test_payer().address().to_checksum(None);
    Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"isValid": true, "payer": payer})),
        )
        .mount(&facilitator)
        .await;
    // A slow settlement: the stop signal arrives while it is under way.
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(2))
                .set_body_json(json!({"success": true, "network": "eip155:8453",
                    "transaction": format!("0x{}", "ab".repeat(32)), "payer": payer})),
        )
        .expect(1)
        .mount(&facilitator)
        .await;
    let mut a = Replica::start(&redis, &facilitator, 1000).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let signature = payment_signature(&terms(&post(&a.url(), &body, None).await), "in flight");
    let (url, sent, payment) = (a.url(), body.clone(), signature.clone());
    let in_flight = tokio::spawn(async move { post(&url, &sent, Some(&payment)).await });
    let deadline = Instant::now() + Duration::from_secs(60);
    while settle_calls(&facilitator.received_requests().await.unwrap_or_default()) == 0 {
        assert!(
            Instant::now() < deadline,
            "the request never reached its settlement"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let url = a.url();
    let mut child = a.child.take().expect("running");
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    let signalled = Instant::now();
    kill(pid, Signal::SIGTERM).expect("SIGTERM");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        reqwest::get(format!("{url}/health")).await.is_err(),
        "no new connection is taken once stopping"
    );

    let answer = in_flight.await.expect("task");
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(answer.headers.contains_key("payment-response"), "settled");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            signalled.elapsed() < server_kit::http::DRAIN,
            "still running after the drain time"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
    assert!(
        redis
            .command("HLEN docs:pending")
            .expect("hlen")
            .starts_with(":0"),
        "nothing left pending"
    );
}
