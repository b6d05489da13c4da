//! The shared state on a real `redis-server` (spawned on a loopback port by test-devnet): two
//! gates ("replicas") in process on one Redis, a wiremock facilitator counting settlements.
//! Named `devnet_*`: each starts a process.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use alloy::primitives::{U256, address};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::json;
use server_kit::config::CommonConfig;
use server_kit::gate::{PaidRequest, PaymentGate, RequestFingerprint};
use server_kit::state::{
    PaidAnswer, PaidAnswerRecord, PaidAnswerState, StateBackend, paid_answer_key,
};
use server_kit::testing::{
    Reply, TestApp, mount_paying_facilitator, payment_signature, payment_signature_with_id,
    test_payer, test_settlement_tx,
};
use test_devnet::RedisServer;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};
use x402_core::terms::bazaar_post_json;
use x402_core::{Offer, PaymentRequired, PaymentTerms, ResourceInfo, decode_header};

const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
const PATH: &str = "/work";

fn offer() -> Offer {
    let terms = PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"));
    Offer {
        resource: ResourceInfo {
            url: "https://api.example.test/work".into(),
            description: Some("A paid answer".into()),
            mime_type: Some("application/json".into()),
            ..Default::default()
        },
        requirements: terms.requirements(U256::from(5000), 80),
        bazaar: Some(Arc::new(bazaar_post_json(
            json!({}),
            json!({"type": "object"}),
        ))),
    }
}

/// One replica: its gate and router, how often its paid work ran, and what lets the work of
/// `/held` finish.
struct Replica {
    app: TestApp,
    gate: PaymentGate,
    works: Arc<AtomicUsize>,
    release: Arc<tokio::sync::Notify>,
}

struct Routed {
    gate: PaymentGate,
    works: Arc<AtomicUsize>,
    release: Arc<tokio::sync::Notify>,
}

/// What a route's paid work does.
#[derive(Clone, Copy)]
enum Work {
    /// Answers after 150 ms.
    Answer,
    /// Fails (500, not settled).
    Fail,
    /// Answers once the test lets it (`Replica::release`).
    Held,
}

async fn paid(routed: State<Arc<Routed>>, headers: HeaderMap, body: Bytes) -> Response {
    serve_paid(routed, headers, body, Work::Answer).await
}

async fn failing(routed: State<Arc<Routed>>, headers: HeaderMap, body: Bytes) -> Response {
    serve_paid(routed, headers, body, Work::Fail).await
}

async fn held(routed: State<Arc<Routed>>, headers: HeaderMap, body: Bytes) -> Response {
    serve_paid(routed, headers, body, Work::Held).await
}

async fn serve_paid(
    State(routed): State<Arc<Routed>>,
    headers: HeaderMap,
    body: Bytes,
    kind: Work,
) -> Response {
    let admission = match routed.gate.admit(CLIENT, &headers).await {
        Ok(admission) => admission,
        Err(refused) => return refused.into_response(),
    };
    let request = PaidRequest {
        route: PATH,
        headers,
        admission,
        offer: offer(),
        input_schema: Arc::new(json!({"type": "object"})),
        extra_402_body: serde_json::Map::new(),
        budget: Duration::from_secs(20),
        fingerprint: RequestFingerprint::new(Method::POST, PATH, body),
    };
    let works = routed.works.clone();
    let release = routed.release.clone();
    routed
        .gate
        .serve(request, move |_cancel| async move {
            works.fetch_add(1, Ordering::SeqCst);
            match kind {
                // Long enough for concurrent copies of one payment to overlap.
                Work::Answer => tokio::time::sleep(Duration::from_millis(150)).await,
                Work::Fail => {
                    return Err(server_kit::error::ApiError::new(
                        server_kit::error::ErrorCode::Internal,
                        "the work failed",
                    ));
                }
                Work::Held => release.notified().await,
            }
            Ok(Json(json!({"answer": 42})).into_response())
        })
        .await
}

fn config(redis: &RedisServer, facilitator: &MockServer, unpaid: u32) -> CommonConfig {
    let mut common = CommonConfig::with_listen("127.0.0.1:0").with_state_prefix("test");
    common.facilitator.url = Some(facilitator.uri());
    common.payment.pay_to = Some(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"));
    common.limits.unpaid_per_window = unpaid;
    common.limits.unverified_per_client = 100;
    common.limits.payer_concurrency = 100;
    common.state.backend = StateBackend::Redis;
    common.state.redis_url = Some(redis.url());
    common.state.timeout_ms = 500;
    common
}

fn replica(common: &CommonConfig) -> Replica {
    let gate = PaymentGate::from_config(common).expect("the gate builds");
    let works = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(tokio::sync::Notify::new());
    let routed = Arc::new(Routed {
        gate: gate.clone(),
        works: works.clone(),
        release: release.clone(),
    });
    let router = Router::new()
        .route(PATH, post(paid))
        .route("/fail", post(failing))
        .route("/held", post(held))
        .with_state(routed)
        .merge(server_kit::http::operational_routes(
            gate.state_readiness().into_iter().collect(),
        ));
    Replica {
        app: TestApp::new(router),
        gate,
        works,
        release,
    }
}

/// Two replicas on `redis` and a facilitator expecting exactly `settlements` settlements.
async fn two_replicas(redis: &RedisServer, settlements: u64) -> (MockServer, Replica, Replica) {
    let facilitator = MockServer::start().await;
    mount_paying_facilitator(&facilitator, settlements).await;
    let common = config(redis, &facilitator, 1000);
    let (a, b) = (replica(&common), replica(&common));
    (facilitator, a, b)
}

fn terms(reply: &Reply) -> PaymentRequired {
    decode_header(reply.header("payment-required").expect("402 carries terms")).expect("decodes")
}

async fn unpaid(replica: &Replica) -> Reply {
    replica.app.post_json(PATH, &json!({}), None).await
}

fn settle_calls(requests: &[Request]) -> usize {
    requests
        .iter()
        .filter(|r| r.url.path() == "/settle")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn devnet_one_payment_sent_to_two_replicas_is_worked_on_and_settled_once() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (_facilitator, a, b) = two_replicas(&redis, 1).await;
    let signature = payment_signature(&terms(&unpaid(&a).await), "one payment");
    let sends: Vec<_> = (0..10)
        .map(|i| {
            let app = if i % 2 == 0 { &a.app } else { &b.app };
            tokio::spawn(send(app, &signature, "{}"))
        })
        .collect();
    let mut statuses = Vec::new();
    for send in sends {
        let reply = send.await.expect("task");
        if reply.status != StatusCode::OK {
            // In use: maybe charged, never a 402 that would have the client pay again.
            reply.assert_error_charged(
                StatusCode::CONFLICT,
                "authorization_reused",
                &serde_json::Value::Null,
            );
        }
        statuses.push(reply.status);
    }
    let served = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    assert_eq!(served, 1, "{statuses:?}");
    let works = a.works.load(Ordering::SeqCst) + b.works.load(Ordering::SeqCst);
    assert_eq!(
        works, 1,
        "the other replica refused it at the shared lock, before work"
    );
    // And later, on either replica, it stays spent: charged, with its transaction.
    let again = b
        .app
        .post(PATH, &[("payment-signature", signature.as_str())], "{}")
        .await;
    again.assert_error_charged(
        StatusCode::CONFLICT,
        "authorization_reused",
        &serde_json::Value::Bool(true),
    );
    assert_eq!(
        again.receipt().expect("receipt").transaction,
        test_settlement_tx()
    );
    // wiremock checks exactly one settlement when `facilitator` drops.
}

#[tokio::test]
async fn devnet_unpaid_allowance_is_summed_across_replicas() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    let common = config(&redis, &facilitator, 6);
    let (a, b) = (replica(&common), replica(&common));
    for i in 0..6 {
        let replica = if i % 2 == 0 { &a } else { &b };
        assert_eq!(
            unpaid(replica).await.status,
            StatusCode::PAYMENT_REQUIRED,
            "request {i}"
        );
    }
    for replica in [&a, &b] {
        let refused = unpaid(replica).await;
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.json()["error"], "too_many_unpaid");
        assert!(refused.header("retry-after").is_some());
    }
}

async fn wait_ready(replica: &Replica, ready: bool) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let reply = replica.app.get("/readiness").await;
        if reply.json()["ready"] == ready || Instant::now() > deadline {
            return reply;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn devnet_redis_outage_fails_closed_then_recovers_without_restart() {
    let mut redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // One settlement before the outage, one after; none during.
    mount_paying_facilitator(&facilitator, 2).await;
    let common = config(&redis, &facilitator, 1000);
    let a = replica(&common);
    let terms = terms(&unpaid(&a).await);
    let before = a
        .app
        .post(
            PATH,
            &[("payment-signature", &payment_signature(&terms, "before"))],
            "{}",
        )
        .await;
    assert_eq!(before.status, StatusCode::OK, "{}", before.text_lossy());
    assert_eq!(wait_ready(&a, true).await.status, StatusCode::OK);

    redis.stop();
    let during = a
        .app
        .post(
            PATH,
            &[("payment-signature", &payment_signature(&terms, "during"))],
            "{}",
        )
        .await;
    assert_eq!(
        during.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        during.text_lossy()
    );
    assert_eq!(during.json()["error"], "state_unavailable");
    assert_eq!(during.json()["charged"], false);
    assert!(during.header("payment-response").is_none());
    assert_eq!(
        a.works.load(Ordering::SeqCst),
        1,
        "no work while Redis is away"
    );
    let readiness = wait_ready(&a, false).await;
    assert_eq!(readiness.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(readiness.json()["checks"]["state"], "failed");
    // The limiter fails open: an unpaid request still gets its terms, and nothing is served.
    let unpaid_during = unpaid(&a).await;
    assert_eq!(unpaid_during.status, StatusCode::PAYMENT_REQUIRED);

    redis.start().expect("redis-server again");
    let readiness = wait_ready(&a, true).await;
    assert_eq!(
        readiness.status,
        StatusCode::OK,
        "{}",
        readiness.text_lossy()
    );
    let after = a
        .app
        .post(
            PATH,
            &[("payment-signature", &payment_signature(&terms, "after"))],
            "{}",
        )
        .await;
    assert_eq!(after.status, StatusCode::OK, "{}", after.text_lossy());
    assert_eq!(a.works.load(Ordering::SeqCst), 2);
}

/// A facilitator whose `/settle` never answers (the replica dies while waiting) and whose
/// `/verify` says what the chain would: the nonce is used once the settlement arrived.
async fn hanging_facilitator(settlement_lands: bool) -> (MockServer, Arc<AtomicBool>) {
    let facilitator = MockServer::start().await;
    let settled = Arc::new(AtomicBool::new(false));
    let payer = test_payer().address().to_checksum(None);
    let seen = settled.clone();
    Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(move |_: &Request| {
            if seen.load(Ordering::SeqCst) {
                ResponseTemplate::new(200).set_body_json(json!({"isValid": false,
                    "invalidReason": "invalid_exact_evm_nonce_already_used", "payer": payer}))
            } else {
                ResponseTemplate::new(200).set_body_json(json!({"isValid": true, "payer": payer}))
            }
        })
        .mount(&facilitator)
        .await;
    let landed = settled.clone();
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(move |_: &Request| {
            if settlement_lands {
                landed.store(true, Ordering::SeqCst);
            }
            ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(3600))
                .set_body_json(json!({"success": true}))
        })
        .mount(&facilitator)
        .await;
    (facilitator, settled)
}

/// Runs one paid request on a replica living in a runtime of its own, and kills that runtime
/// (every task of the replica with it) once its settle call reached the facilitator: a replica
/// that died between its work and the settlement's outcome.
async fn crash_while_settling(common: &CommonConfig, facilitator: &MockServer, signature: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the doomed replica");
    let doomed = replica(common);
    let signature = signature.to_owned();
    let app = doomed.app.clone();
    runtime.spawn(async move {
        app.post(PATH, &[("payment-signature", signature.as_str())], "{}")
            .await
    });
    let deadline = Instant::now() + Duration::from_secs(15);
    while settle_calls(&facilitator.received_requests().await.unwrap_or_default()) == 0 {
        assert!(
            Instant::now() < deadline,
            "the doomed replica never settled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(doomed.works.load(Ordering::SeqCst), 1);
    runtime.shutdown_background();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_pending_settlement_that_landed_is_resolved_by_another_replica_once() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (facilitator, _) = hanging_facilitator(true).await;
    let common = config(&redis, &facilitator, 1000);
    let survivor = replica(&common);
    let signature = payment_signature(&terms(&unpaid(&survivor).await), "crash");
    crash_while_settling(&common, &facilitator, &signature).await;

    // Too young to be taken for a dead replica's.
    let report = survivor.gate.resolve_pending().await.expect("scan");
    assert_eq!((report.left, report.settled), (1, 0), "{report:?}");
    let report = survivor
        .gate
        .resolve_pending_older_than(Duration::ZERO)
        .await
        .expect("scan");
    assert_eq!(report.settled, 1, "{report:?}");
    let report = survivor
        .gate
        .resolve_pending_older_than(Duration::ZERO)
        .await
        .expect("scan");
    assert_eq!(report, Default::default(), "the record is gone");

    // The authorization is spent everywhere: no second work, no second settlement; a retry
    // is told it paid (the transaction is not known here: the dead replica never heard it).
    let again = survivor
        .app
        .post(PATH, &[("payment-signature", signature.as_str())], "{}")
        .await;
    again.assert_error_charged(
        StatusCode::CONFLICT,
        "authorization_reused",
        &serde_json::Value::Bool(true),
    );
    assert!(again.receipt().is_none());
    assert_eq!(survivor.works.load(Ordering::SeqCst), 0);
    let requests = facilitator.received_requests().await.unwrap_or_default();
    assert_eq!(settle_calls(&requests), 1, "settled once, never again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_pending_settlement_that_never_landed_is_released_for_the_payer() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (facilitator, _) = hanging_facilitator(false).await;
    let common = config(&redis, &facilitator, 1000);
    let survivor = replica(&common);
    let signature = payment_signature(&terms(&unpaid(&survivor).await), "lost");
    crash_while_settling(&common, &facilitator, &signature).await;

    // While the record stands, the authorization stays locked.
    let locked = survivor
        .app
        .post(PATH, &[("payment-signature", signature.as_str())], "{}")
        .await;
    locked.assert_error_charged(
        StatusCode::CONFLICT,
        "authorization_reused",
        &serde_json::Value::Null,
    );
    let report = survivor
        .gate
        .resolve_pending_older_than(Duration::ZERO)
        .await
        .expect("scan");
    assert_eq!(report.released, 1, "{report:?}");
    assert_eq!(
        settle_calls(&facilitator.received_requests().await.unwrap_or_default()),
        1,
        "resolving never settles"
    );
    assert_eq!(survivor.works.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn devnet_redis_round_trips_per_request() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    mount_paying_facilitator(&facilitator, 3).await;
    let common = config(&redis, &facilitator, 1000);
    let a = replica(&common);
    let terms = terms(&unpaid(&a).await);
    // Warm: the scripts are loaded once (EVALSHA then EVAL on the first use).
    let warm = a
        .app
        .post(
            PATH,
            &[("payment-signature", &payment_signature(&terms, "warm"))],
            "{}",
        )
        .await;
    assert_eq!(warm.status, StatusCode::OK);
    // The payer's slot goes back on a task of its own, after the answer.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let commands = || -> u64 {
        let info = redis.command("INFO stats").expect("info");
        info.lines()
            .find_map(|line| line.strip_prefix("total_commands_processed:"))
            .and_then(|n| n.trim().parse().ok())
            .expect("total_commands_processed")
    };
    // INFO itself is one command, and QUIT another.
    let before = (commands(), a.gate.shared_state().round_trips());
    assert_eq!(unpaid(&a).await.status, StatusCode::PAYMENT_REQUIRED);
    let after_unpaid = (commands(), a.gate.shared_state().round_trips());
    let paid = a
        .app
        .post(
            PATH,
            &[("payment-signature", &payment_signature(&terms, "measured"))],
            "{}",
        )
        .await;
    assert_eq!(paid.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after_paid = (commands(), a.gate.shared_state().round_trips());
    let unpaid_trips = after_unpaid.1 - before.1;
    let paid_trips = after_paid.1 - after_unpaid.1;
    let unpaid_commands = after_unpaid.0 - before.0 - 2;
    let paid_commands = after_paid.0 - after_unpaid.0 - 2;
    println!(
        "redis round trips: unpaid (402) {unpaid_trips} ({unpaid_commands} commands run), paid {paid_trips} ({paid_commands} commands run)"
    );
    // Round trips: the admission take; for a paid one also the replay peek (GET), the lock, the payer's take, the
    // refund, the pending record, the settled mark, the settlement's transaction (for repeats),
    // the record's removal and the payer's finish. Redis counts the commands a script runs as well (the GCRA script: EVALSHA, TIME,
    // GET, SET or DEL = 4; the payer's take: EVALSHA, TIME, ZREMRANGEBYSCORE, ZCARD, GET, SET,
    // ZADD, ZRANGE, PEXPIREAT = 9; its finish: EVALSHA, ZREM, TIME, GET, SET or DEL = 5).
    assert_eq!((unpaid_trips, unpaid_commands), (1, 4));
    assert_eq!((paid_trips, paid_commands), (10, 28));

    // With a payment id: its GET before verification, its claim (SET NX GET PX) after it, and
    // the kept answer (SET PX) after the settlement.
    let with_id = payment_signature_with_id(&terms, "measured with id", PAYMENT_ID);
    let before = (commands(), a.gate.shared_state().round_trips());
    assert_eq!(send(&a.app, &with_id, "{}").await.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = (commands(), a.gate.shared_state().round_trips());
    assert_eq!((after.1 - before.1, after.0 - before.0 - 2), (13, 31));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_redis_lost_during_the_work_means_no_settlement() {
    let mut redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    mount_paying_facilitator(&facilitator, 0).await;
    let common = config(&redis, &facilitator, 1000);
    let a = replica(&common);
    let signature = payment_signature(&terms(&unpaid(&a).await), "mid-work");
    let request = a
        .app
        .request(Method::POST, PATH)
        .header("content-type", "application/json")
        .header("payment-signature", signature.as_str())
        .body(Body::from("{}"))
        .expect("a request");
    let reply = tokio::spawn(a.app.send(request));
    let deadline = Instant::now() + Duration::from_secs(10);
    while a.works.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the work never started");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // The lock is held and the work runs: Redis goes away before the settlement is recorded.
    redis.stop();
    let reply = reply.await.expect("task");
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.text_lossy()
    );
    assert_eq!(reply.json()["error"], "state_unavailable");
    assert_eq!(reply.json()["charged"], false);
    assert!(reply.header("payment-response").is_none());
    // wiremock checks that nothing was settled when `facilitator` drops.
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_payers_concurrency_is_shared_by_the_replicas() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // The held request and the one after it settle; the refused one does not.
    mount_paying_facilitator(&facilitator, 2).await;
    let mut common = config(&redis, &facilitator, 1000);
    common.limits.payer_concurrency = 1;
    let (a, b) = (replica(&common), replica(&common));
    let terms = terms(&unpaid(&a).await);
    let first = payment_signature(&terms, "held on A");
    let request = a
        .app
        .request(Method::POST, "/held")
        .header("content-type", "application/json")
        .header("payment-signature", first.as_str())
        .body(Body::from("{}"))
        .expect("a request");
    let in_flight = tokio::spawn(a.app.send(request));
    let deadline = Instant::now() + Duration::from_secs(10);
    while a.works.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the held work never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // The same payer, another authorization, the other replica: its one slot is taken on A.
    let second = payment_signature(&terms, "on B meanwhile");
    let refused = b
        .app
        .post(PATH, &[("payment-signature", second.as_str())], "{}")
        .await;
    refused.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
    assert!(
        refused.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("in progress")),
        "{}",
        refused.text_lossy()
    );
    assert!(refused.header("payment-response").is_none());
    assert_eq!(b.works.load(Ordering::SeqCst), 0, "refused before any work");

    a.release.notify_one();
    let done = in_flight.await.expect("task");
    assert_eq!(done.status, StatusCode::OK, "{}", done.text_lossy());
    // The slot was given back (by a task of its own): the refused authorization now works on B.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let retry = b
            .app
            .post(PATH, &[("payment-signature", second.as_str())], "{}")
            .await;
        if retry.status == StatusCode::OK {
            break;
        }
        assert_eq!(
            retry.status,
            StatusCode::TOO_MANY_REQUESTS,
            "{}",
            retry.text_lossy()
        );
        assert!(Instant::now() < deadline, "the slot never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(b.works.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_payers_failure_allowance_is_shared_by_the_replicas() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    // Failed work is never settled.
    mount_paying_facilitator(&facilitator, 0).await;
    let mut common = config(&redis, &facilitator, 1000);
    common.limits.payer_failures_per_window = 2;
    common.limits.payer_failure_window_seconds = 600;
    let (a, b) = (replica(&common), replica(&common));
    let terms = terms(&unpaid(&a).await);
    for (replica, label) in [(&a, "fails on A"), (&b, "fails on B")] {
        let failed = replica
            .app
            .post(
                "/fail",
                &[("payment-signature", &payment_signature(&terms, label))],
                "{}",
            )
            .await;
        failed.assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal");
    }
    // Two failures, one on each replica, use up the payer's allowance of two on both: with
    // the limits per replica each would still have one left.
    for replica in [&a, &b] {
        let refused = replica
            .app
            .post(
                "/fail",
                &[("payment-signature", &payment_signature(&terms, "a third"))],
                "{}",
            )
            .await;
        refused.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
        assert!(
            refused.json()["message"]
                .as_str()
                .is_some_and(|m| m.contains("failed recently")),
            "{}",
            refused.text_lossy()
        );
    }
    assert_eq!(
        a.works.load(Ordering::SeqCst) + b.works.load(Ordering::SeqCst),
        2,
        "the refused requests never reached the work"
    );
    let key = format!("EXISTS test:payer-failures:{}", test_payer().address());
    assert!(
        redis.command(&key).expect("exists").starts_with(":1"),
        "the allowance lives in Redis"
    );
}

#[tokio::test]
async fn devnet_payer_limits_fail_closed_when_redis_is_away() {
    let mut redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    mount_paying_facilitator(&facilitator, 0).await;
    let common = config(&redis, &facilitator, 1000);
    let a = replica(&common);
    let terms = terms(&unpaid(&a).await);
    // The replay lock is taken, then Redis goes away before the payer's limits are asked: a
    // paid request is refused, unsettled and unworked. (Driven through the state directly: at
    // the gate, admission would already have refused it.)
    let limits = common.state.build().expect("state").payer_limits(
        server_kit::limiter::UnpaidAllowance {
            requests: 1,
            window: Duration::from_secs(60),
        },
        1,
    );
    redis.stop();
    let payer = test_payer().address();
    assert!(
        limits.take(payer, Duration::from_secs(10)).await.is_err(),
        "no answer from Redis is an error, not a free pass"
    );
    let during = a
        .app
        .post(
            PATH,
            &[("payment-signature", &payment_signature(&terms, "away"))],
            "{}",
        )
        .await;
    during.assert_error(StatusCode::SERVICE_UNAVAILABLE, "state_unavailable");
    assert_eq!(a.works.load(Ordering::SeqCst), 0);
}

// ---------------------------------------------------------------------------------------------
// Payment ids on Redis: any replica answers a repeat.

const PAYMENT_ID: &str = "pay_5e0c0b8f3a7d4c2e9b1a6f4d8c3e2a1b";

fn send(app: &TestApp, signature: &str, body: &str) -> impl Future<Output = Reply> + use<> {
    app.post_paid(PATH, signature, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_payment_id_repeated_on_the_other_replica_gets_the_same_answer_paid_once() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (_facilitator, a, b) = two_replicas(&redis, 1).await;
    let signature = payment_signature_with_id(&terms(&unpaid(&a).await), "kept", PAYMENT_ID);
    let first = send(&a.app, &signature, "{}").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    let repeat = send(&b.app, &signature, "{}").await;
    assert_eq!(repeat.status, StatusCode::OK, "{repeat:?}");
    assert_eq!(repeat.bytes, first.bytes);
    assert_eq!(
        repeat.header("payment-response"),
        first.header("payment-response")
    );
    assert_eq!(repeat.header("content-type"), Some("application/json"));
    // Another request under the id, on either replica: 409, not charged.
    for app in [&a.app, &b.app] {
        send(app, &signature, r#"{"other":true}"#)
            .await
            .assert_error(StatusCode::CONFLICT, "payment_id_conflict");
    }
    let works = a.works.load(Ordering::SeqCst) + b.works.load(Ordering::SeqCst);
    assert_eq!(works, 1);
    // wiremock checks exactly one settlement when `facilitator` drops.
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn devnet_concurrent_copies_of_a_payment_id_on_two_replicas_run_the_work_once() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (_facilitator, a, b) = two_replicas(&redis, 1).await;
    let signature = payment_signature_with_id(&terms(&unpaid(&a).await), "burst", PAYMENT_ID);
    let sends: Vec<_> = (0..8)
        .map(|i| {
            let app = if i % 2 == 0 { &a.app } else { &b.app };
            tokio::spawn(send(app, &signature, "{}"))
        })
        .collect();
    let mut replies = Vec::new();
    for reply in sends {
        replies.push(reply.await.expect("task"));
    }
    for reply in &replies {
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        assert_eq!(reply.bytes, replies[0].bytes);
    }
    let works = a.works.load(Ordering::SeqCst) + b.works.load(Ordering::SeqCst);
    assert_eq!(works, 1, "the copies on both replicas waited for the first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_payment_id_whose_work_failed_is_free_on_every_replica() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (_facilitator, a, b) = two_replicas(&redis, 1).await;
    let signature = payment_signature_with_id(&terms(&unpaid(&a).await), "retry", PAYMENT_ID);
    a.app
        .post_paid("/fail", &signature, "{}")
        .await
        .assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal");
    // Nothing was charged: on the other replica the id buys an answer to another request.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let reply = send(&b.app, &signature, r#"{"again":1}"#).await;
        if reply.status == StatusCode::OK {
            break;
        }
        // The release runs just after the failed answer.
        assert!(Instant::now() < deadline, "{reply:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_repeat_of_a_payment_id_fails_closed_when_redis_is_away() {
    let mut redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    mount_paying_facilitator(&facilitator, 1).await;
    let common = config(&redis, &facilitator, 1000);
    let a = replica(&common);
    let signature = payment_signature_with_id(&terms(&unpaid(&a).await), "outage", PAYMENT_ID);
    assert_eq!(send(&a.app, &signature, "{}").await.status, StatusCode::OK);
    redis.stop();
    // Whether the id was used cannot be known: refused, never worked on or settled.
    send(&a.app, &signature, "{}")
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "state_unavailable");
    assert_eq!(a.works.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_payment_id_whose_replica_died_settling_follows_its_authorization() {
    for lands in [true, false] {
        let redis = RedisServer::spawn().expect("redis-server");
        let (facilitator, _) = hanging_facilitator(lands).await;
        let common = config(&redis, &facilitator, 1000);
        let survivor = replica(&common);
        let signature =
            payment_signature_with_id(&terms(&unpaid(&survivor).await), "died", PAYMENT_ID);
        crash_while_settling(&common, &facilitator, &signature).await;
        let report = survivor
            .gate
            .resolve_pending_older_than(Duration::ZERO)
            .await
            .expect("scan");
        let answers = survivor.gate.shared_state().paid_answers(1024, 0);
        let key = paid_answer_key(&test_payer().address(), PAYMENT_ID);
        let entry = answers.get(&key).await.expect("redis answers");
        if lands {
            assert_eq!(report.settled, 1, "{report:?}");
            // Paid once, answer lost with its replica: a repeat hears that it paid.
            let repeat = send(&survivor.app, &signature, "{}").await;
            repeat.assert_error_charged(
                StatusCode::CONFLICT,
                "authorization_reused",
                &serde_json::Value::Bool(true),
            );
            assert!(entry.is_some());
        } else {
            assert_eq!(report.released, 1, "{report:?}");
            assert_eq!(entry, None, "never charged: the id is free again");
        }
        assert_eq!(survivor.works.load(Ordering::SeqCst), 0);
        assert_eq!(
            settle_calls(&facilitator.received_requests().await.unwrap_or_default()),
            1,
            "never settled again"
        );
    }
}

/// The Redis store of paid answers with an 8-byte cap per answer, and a time a minute ahead to
/// keep entries until.
async fn redis_paid_answers(
    redis: &RedisServer,
    facilitator: &MockServer,
) -> (Arc<dyn server_kit::state::PaidAnswers>, u64) {
    let common = config(redis, facilitator, 1000);
    let answers = common.state.build().expect("state").paid_answers(8, 0);
    let until = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        + 60;
    (answers, until)
}

#[tokio::test]
async fn devnet_the_redis_store_of_paid_answers_binds_once_and_caps_bodies() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    let (answers, until) = redis_paid_answers(&redis, &facilitator).await;
    let record = |fingerprint: &str| PaidAnswerRecord {
        fingerprint: fingerprint.into(),
        authorization: "a".into(),
        state: PaidAnswerState::Working,
    };
    let first = record("f");
    assert_eq!(
        answers.claim("k", &first, until).await.expect("claim"),
        None
    );
    let held = answers
        .claim("k", &record("g"), until)
        .await
        .expect("claim");
    assert_eq!(held.map(|held| held.record), Some(first.clone()));
    answers.abandon("k", &record("g")).await.expect("abandon");
    assert!(
        answers.get("k").await.expect("get").is_some(),
        "not its claim"
    );
    answers.abandon("k", &first).await.expect("abandon");
    assert_eq!(answers.get("k").await.expect("get"), None);

    let answer = |body: &'static [u8]| PaidAnswer {
        record: PaidAnswerRecord {
            state: PaidAnswerState::Answered {
                status: 200,
                headers: vec![("content-type".into(), "application/json".into())],
            },
            ..first.clone()
        },
        body: Bytes::from_static(body),
    };
    answers
        .finish("small", answer(b"12345678"), "0xt", until)
        .await
        .expect("finish");
    assert_eq!(
        answers.get("small").await.expect("get"),
        Some(answer(b"12345678"))
    );
    answers
        .finish("large", answer(b"123456789"), "0xt", until)
        .await
        .expect("finish");
    let large = answers.get("large").await.expect("get").expect("kept");
    assert_eq!(
        large.record.state,
        PaidAnswerState::SettledNotKept {
            transaction: "0xt".into()
        }
    );
    assert!(large.body.is_empty());
    // An answered id is never abandoned.
    answers.abandon("small", &first).await.expect("abandon");
    assert!(answers.get("small").await.expect("get").is_some());

    answers
        .record_settlement("auth", "0xt", until)
        .await
        .expect("record");
    assert_eq!(
        answers.settlement("auth").await.expect("get").as_deref(),
        Some("0xt")
    );
    let ttl = redis.command("PTTL test:paid:small").expect("pttl");
    let ttl: i64 = ttl
        .lines()
        .next()
        .and_then(|line| line.strip_prefix(':'))
        .and_then(|n| n.parse().ok())
        .expect("milliseconds");
    assert!(
        (50_000..=60_000).contains(&ttl),
        "kept until validBefore: {ttl}"
    );
}

#[tokio::test]
async fn devnet_the_redis_store_keeps_an_answer_in_doubt_and_caps_it_to_the_doubt() {
    let redis = RedisServer::spawn().expect("redis-server");
    let facilitator = MockServer::start().await;
    let (answers, until) = redis_paid_answers(&redis, &facilitator).await;
    let in_doubt = |body: &'static [u8]| PaidAnswer {
        record: PaidAnswerRecord {
            fingerprint: "f".into(),
            authorization: "a".into(),
            state: PaidAnswerState::SettlementUnknownKept {
                status: 200,
                headers: vec![("content-type".into(), "application/json".into())],
                transaction: "0xpending".into(),
            },
        },
        body: Bytes::from_static(body),
    };
    answers
        .finish("kept", in_doubt(b"12345678"), "", until)
        .await
        .expect("finish");
    assert_eq!(
        answers.get("kept").await.expect("get"),
        Some(in_doubt(b"12345678")),
        "the answer waits beside its doubt"
    );
    answers
        .finish("too large", in_doubt(b"123456789"), "", until)
        .await
        .expect("finish");
    let capped = answers.get("too large").await.expect("get").expect("kept");
    assert_eq!(
        capped.record.state,
        PaidAnswerState::SettlementUnknown,
        "over the cap only the doubt is kept, never a settled state"
    );
    assert!(capped.body.is_empty());
}

/// The official client's side of a replica dying between its settlement and its answer: the
/// client signed once, its connection died with the replica, and it sends the same payment
/// again (through the wrapped fetch) to the surviving replica. It is told it paid (409,
/// `charged: true`), never 402, so it signs no second authorization.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_the_official_client_signs_once_when_its_replica_died_settling() {
    let redis = RedisServer::spawn().expect("redis-server");
    let (facilitator, _) = hanging_facilitator(true).await;
    let common = config(&redis, &facilitator, 1000);
    let survivor = replica(&common);
    let base = test_devnet::paid::serve(survivor.app.router().clone())
        .await
        .expect("served");
    let url = format!("{base}{PATH}");
    let header = unpaid(&survivor)
        .await
        .header("payment-required")
        .expect("terms")
        .to_owned();
    // Any key: this facilitator verifies whatever it is given.
    const KEY: &str = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
    let signature = {
        let header = header.clone();
        tokio::task::spawn_blocking(move || test_devnet::node::official_sign(&header, KEY))
            .await
            .expect("join")
            .expect("the official client signs")
    };
    crash_while_settling(&common, &facilitator, &signature).await;
    let report = survivor
        .gate
        .resolve_pending_older_than(Duration::ZERO)
        .await
        .expect("scan");
    assert_eq!(report.settled, 1, "{report:?}");

    let retried = tokio::task::spawn_blocking(move || {
        test_devnet::node::official_client_with(
            &url,
            KEY,
            &json!({}),
            &["--payment-signature", &signature],
        )
    })
    .await
    .expect("join")
    .expect("client.mjs");
    assert_eq!(retried["final"]["status"], 409, "{retried}");
    assert_eq!(retried["final"]["body"]["charged"], true, "{retried}");
    assert_eq!(retried["signed"], 0, "no second authorization: {retried}");
    assert_eq!(survivor.works.load(Ordering::SeqCst), 0);
    assert_eq!(
        settle_calls(&facilitator.received_requests().await.unwrap_or_default()),
        1,
        "settled once"
    );
}
