//! Two docs-server processes on one real `redis-server`, behind Debian's nginx round-robin,
//! all on loopback (test-devnet's `RedisServer` and `Nginx`); a wiremock facilitator counts
//! the settlements (issue 21's proofs for the document service).

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use server_kit::testing::{mount_paying_facilitator, payment_signature, test_payer};
use support::{PAY_TO, inline};
use test_devnet::replica::{
    Answer, assert_served_once, assert_unpaid_allowance_is_shared, post_json,
};
use test_devnet::{Nginx, RedisServer, Replica};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// One docs-server process on `redis`, settling through `facilitator`, with `unpaid` unpaid
/// requests per window (test-devnet's `Replica`: killed with SIGKILL when dropped); pending
/// settlements older than a second are taken for a dead replica's.
async fn replica(redis: &RedisServer, facilitator: &MockServer, unpaid: u32) -> Replica {
    replica_with_stale(redis, facilitator, unpaid, 1).await
}

/// [`replica`], with pending settlements taken for a dead replica's after `stale` seconds.
async fn replica_with_stale(
    redis: &RedisServer,
    facilitator: &MockServer,
    unpaid: u32,
    stale: u64,
) -> Replica {
    let (facilitator, redis) = (facilitator.uri(), redis.url());
    Replica::start(
        std::path::Path::new(env!("CARGO_BIN_EXE_docs-server")),
        move |port| {
            format!(
                "listen = \"127.0.0.1:{port}\"\npublic_url = \"http://docs.test\"\n\
                 [payment]\npay_to = \"{PAY_TO}\"\n[facilitator]\nurl = \"{facilitator}\"\ntimeout_seconds = 60\n\
                 [limits]\ntrust_forwarded = true\nunpaid_per_window = {unpaid}\nunverified_per_client = 100\npayer_concurrency = 100\n\
                 [state]\nbackend = \"redis\"\nredis_url = \"{redis}\"\npending_stale_seconds = {stale}\npending_scan_seconds = 1\n\
                 [ocr]\nengines = 1\n[workers]\nextraction = 1\n"
            )
        },
    )
    .await
    .expect("docs-server starts")
}

async fn post(base: &str, body: &Value, payment: Option<&str>) -> Answer {
    post_json(&format!("{base}/document"), body, payment).await
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
    let a = replica(&redis, &facilitator, 1000).await;
    let b = replica(&redis, &facilitator, 1000).await;
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = inline("zugferd_basic_einfach.pdf");
    let first = post(&nginx.url(), &body, None).await;
    assert_eq!(
        first.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        nginx.error_log()
    );
    let terms = first.terms();
    let signature = payment_signature(&terms, "sent ten times");

    assert_served_once(
        &format!("{}/document", nginx.url()),
        &body,
        &signature,
        10,
        || nginx.error_log(),
    )
    .await;
    let paid = a.outcomes("paid").await + b.outcomes("paid").await;
    assert_eq!(paid, 1.0, "worked on and settled by one replica only");
    // The other copies were refused at the lock with a 409 (never a 402 that would have a
    // client sign again); the first, unpaid request is the 402.
    let reused = a.outcomes("reused").await + b.outcomes("reused").await;
    assert!(
        reused >= 9.0,
        "the other copies were refused at the lock: {reused}"
    );
    assert!(
        a.refused_before_work().await >= 1.0 && b.refused_before_work().await >= 1.0,
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
    let a = replica(&redis, &facilitator, 6).await;
    let b = replica(&redis, &facilitator, 6).await;
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = json!({"pdf_base64": "JVBERi0xLjQK"});
    assert_unpaid_allowance_is_shared(&format!("{}/document", nginx.url()), &body, 6).await;
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
    let mut a = replica(&redis, &facilitator, 1000).await;
    let b = replica(&redis, &facilitator, 1000).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let signature = payment_signature(&post(&a.url(), &body, None).await.terms(), "killed");
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
    // Found settled: a retry hears that it paid (409, charged), never a 402 asking again.
    let again = post(&b.url(), &body, Some(&signature)).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.body);
    assert_eq!(again.body["error"], "authorization_reused");
    assert_eq!(again.body["charged"], true);
    assert_eq!(
        settle_calls(&facilitator.received_requests().await.unwrap_or_default()),
        1,
        "charged at most once: the record was resolved without a second settle"
    );
    assert_eq!(b.outcomes("paid").await, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_behind_nginx_redis_stopped_fails_closed_and_started_again_serves_without_restart() {
    let mut redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // One settlement before the outage, one after it; none during.
    mount_paying_facilitator(&facilitator, 2).await;
    let a = replica(&redis, &facilitator, 1000).await;
    let b = replica(&redis, &facilitator, 1000).await;
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = inline("zugferd_basic_einfach.pdf");
    let terms = post(&nginx.url(), &body, None).await.terms();
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
        during.assert_state_unavailable();
    }
    for replica in [&a, &b] {
        replica.assert_unready_for_state().await;
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
        replica.assert_state_ok().await;
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

/// Longer than the 30 s drain of earlier versions, which cut such a request off unsettled.
const LONG_SETTLEMENT: Duration = Duration::from_secs(34);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_sigterm_lets_a_paid_request_in_flight_longer_than_30_s_finish_and_settle_then_exits()
 {
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
    // A slow settlement: the stop signal arrives while it is under way, and it still runs
    // after the 30 s that used to be the drain.
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(LONG_SETTLEMENT)
                .set_body_json(json!({"success": true, "network": "eip155:8453",
                    "transaction": format!("0x{}", "ab".repeat(32)), "payer": payer})),
        )
        .expect(1)
        .mount(&facilitator)
        .await;
    // Its own slow settlement must not look like a dead replica's.
    let mut a = replica_with_stale(&redis, &facilitator, 1000, 120).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let signature = payment_signature(&post(&a.url(), &body, None).await.terms(), "in flight");
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
    let signalled = Instant::now();
    a.terminate().expect("SIGTERM");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        reqwest::get(format!("{}/health", a.url())).await.is_err(),
        "no new connection is taken once stopping"
    );

    let answer = in_flight.await.expect("task");
    assert!(
        signalled.elapsed() > Duration::from_secs(30),
        "in flight for longer than the old drain"
    );
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(answer.headers.contains_key("payment-response"), "settled");
    // The drain the server derives from its configuration: the longest route budget plus the
    // settlement margin.
    let config = docs_server::DocsConfig::default();
    let drain = config.common.drain(config.longest_budget()).expect("drain");
    let status = a
        .wait_exit(drain.saturating_sub(signalled.elapsed()))
        .await
        .expect("exits within the drain");
    assert!(status.success(), "{status}");
    assert!(
        redis
            .command("HLEN docs:pending")
            .expect("hlen")
            .starts_with(":0"),
        "nothing left pending"
    );
}
