//! Two analytics-server processes on one real `redis-server`, behind Debian's nginx
//! round-robin, paid on the devnet through the local facilitator (the chain settles), all on
//! loopback (test-devnet's `Replica`, `RedisServer` and `Nginx`, shared with the docs service's
//! `devnet_replicas`): issue 21's proofs for the analytics service. The payee's USDC balance on
//! the chain counts the settlements; the replicas' own `/metrics` count the work.

use std::collections::BTreeMap;
use std::time::Duration;

use alloy::primitives::U256;
use analytics_server::AnalyticsConfig;
use analytics_server::config::ChainEndpoint;
use analytics_server::requests::Chain;
use reqwest::StatusCode;
use serde_json::{Value, json};
use server_kit::state::StateBackend;
use test_devnet::replica::{
    Answer, assert_served_once, assert_unpaid_allowance_is_shared, post_json,
};
use test_devnet::{Nginx, PaidDevnet, RedisServer, Replica, RpcProxy};

/// `/dex/quote`'s price, USDC atomic units.
const PRICE: u64 = 5_000;

/// What one replica is configured with beyond the devnet, Redis and its port.
#[derive(Clone, Copy)]
struct Setup {
    /// Unpaid requests per window, per client, summed over the replicas.
    unpaid: u32,
}

/// The configuration `cargo xtask devnet start` would give a replica, on `[state] redis`,
/// reading the chain at `rpc_url`; the foreign sources (unused by `/dex/quote`) point at a
/// closed loopback port so nothing leaves the machine.
fn config(world: &PaidDevnet, rpc_url: &str, redis: &RedisServer, setup: Setup) -> AnalyticsConfig {
    let mut config = AnalyticsConfig::default();
    config.common.public_url = Some("http://analytics.test".into());
    test_devnet::paid::pay_locally(&mut config.common, &world.info).expect("pay locally");
    let registry = world.chain.addresses.server_override();
    config.chains = BTreeMap::from([(
        Chain::Base,
        ChainEndpoint::at(rpc_url, registry.tokens, registry.contracts),
    )]);
    let closed = test_devnet::paid::closed_loopback_url().expect("a free port");
    let sources = &mut config.sources;
    for url in [
        &mut sources.geckoterminal_url,
        &mut sources.defillama_yields_url,
        &mut sources.defillama_coins_url,
        &mut sources.coinbase_url,
        &mut sources.kraken_url,
        &mut sources.binance_url,
        &mut sources.pyth_hermes_url,
        &mut sources.redstone_url,
    ] {
        url.clone_from(&closed);
    }
    let limits = &mut config.common.limits;
    limits.trust_forwarded = true;
    limits.unpaid_per_window = setup.unpaid;
    limits.unverified_per_client = 100;
    limits.payer_concurrency = 100;
    let state = &mut config.common.state;
    state.backend = StateBackend::Redis;
    state.redis_url = Some(redis.url());
    state.key_prefix = "analytics".into();
    config
}

async fn replica(config: &AnalyticsConfig) -> Replica {
    let config = config.clone();
    Replica::start(
        std::path::Path::new(env!("CARGO_BIN_EXE_analytics-server")),
        move |port| {
            let mut config = config;
            config.common.listen = format!("127.0.0.1:{port}");
            toml::to_string(&config).expect("the configuration as TOML")
        },
    )
    .await
    .expect("analytics-server starts")
}

async fn quote(base: &str, body: &Value, payment: Option<&str>) -> Answer {
    post_json(&format!("{base}/dex/quote"), body, payment).await
}

fn weth_usdc(world: &PaidDevnet) -> Value {
    let token = |symbol: &str| {
        world
            .chain
            .addresses
            .token(symbol)
            .expect("token")
            .to_checksum(None)
    };
    json!({"chain": "base", "token_in": token("WETH"), "token_out": token("USDC"), "amount_in": "1.5"})
}

async fn received(world: &PaidDevnet) -> U256 {
    world
        .usdc_balance(&world.info.pay_to)
        .await
        .expect("balance")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn devnet_behind_nginx_one_payment_sent_ten_times_is_served_worked_on_and_settled_once() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let redis = RedisServer::spawn().expect("redis-server");
    let config = config(&world, &world.info.rpc_url, &redis, Setup { unpaid: 1000 });
    let (a, b) = (replica(&config).await, replica(&config).await);
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = weth_usdc(&world);
    let first = quote(&nginx.url(), &body, None).await;
    let signature = world
        .info
        .payment_signature(&first.terms(), "sent ten times")
        .expect("signed");
    let before = received(&world).await;

    assert_served_once(
        &format!("{}/dex/quote", nginx.url()),
        &body,
        &signature,
        10,
        || nginx.error_log(),
    )
    .await;
    assert_eq!(
        received(&world).await - before,
        U256::from(PRICE),
        "the payee received the price exactly once"
    );
    // Worked on once: one request reached the work and was paid; every other copy ended as a
    // 409 (its authorization in use or taken) before any work, on whichever replica it
    // reached, and the first, unpaid request as the 402.
    let paid = a.outcomes("paid").await + b.outcomes("paid").await;
    assert_eq!(paid, 1.0);
    let unpaid = a.outcomes("payment_required").await + b.outcomes("payment_required").await;
    assert_eq!(unpaid, 1.0, "the first, unpaid request");
    let reused = a.outcomes("reused").await + b.outcomes("reused").await;
    assert_eq!(reused, 9.0, "nine copies");
    for outcome in [
        "work_failed",
        "timed_out",
        "settlement_failed",
        "state_unavailable",
    ] {
        assert_eq!(
            a.outcomes(outcome).await + b.outcomes(outcome).await,
            0.0,
            "{outcome}"
        );
    }
    assert!(
        a.refused_before_work().await >= 1.0 && b.refused_before_work().await >= 1.0,
        "the burst reached both replicas"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_behind_nginx_the_unpaid_allowance_is_summed_over_both_replicas() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let redis = RedisServer::spawn().expect("redis-server");
    let config = config(&world, &world.info.rpc_url, &redis, Setup { unpaid: 6 });
    let (a, b) = (replica(&config).await, replica(&config).await);
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = weth_usdc(&world);
    assert_unpaid_allowance_is_shared(&format!("{}/dex/quote", nginx.url()), &body, 6).await;
    assert!(
        a.outcomes("payment_required").await >= 1.0 && b.outcomes("payment_required").await >= 1.0,
        "both replicas answered terms"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_behind_nginx_redis_stopped_fails_closed_unsettled_and_started_again_resumes() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mut redis = RedisServer::spawn().expect("redis-server");
    let config = config(&world, &world.info.rpc_url, &redis, Setup { unpaid: 1000 });
    let (a, b) = (replica(&config).await, replica(&config).await);
    let nginx = Nginx::round_robin(&[a.port, b.port]).expect("nginx");
    let body = weth_usdc(&world);
    let terms = quote(&nginx.url(), &body, None).await.terms();
    let sign = |label: &str| world.info.payment_signature(&terms, label).expect("signed");
    let start = received(&world).await;
    let before = quote(&nginx.url(), &body, Some(&sign("before"))).await;
    assert_eq!(before.status, StatusCode::OK, "{}", before.body);

    redis.stop();
    // Two requests: one reaches each replica.
    for label in ["during 1", "during 2"] {
        let during = quote(&nginx.url(), &body, Some(&sign(label))).await;
        during.assert_state_unavailable();
    }
    assert_eq!(
        received(&world).await - start,
        U256::from(PRICE),
        "nothing settled while Redis was away"
    );
    for replica in [&a, &b] {
        replica.assert_unready_for_state().await;
    }
    assert_eq!(a.outcomes("paid").await + b.outcomes("paid").await, 1.0);

    redis.start().expect("redis-server again");
    for replica in [&a, &b] {
        replica.assert_state_ok().await;
    }
    // Without a restart both replicas serve again (two requests, one to each).
    for label in ["after 1", "after 2"] {
        let after = quote(&nginx.url(), &body, Some(&sign(label))).await;
        assert_eq!(after.status, StatusCode::OK, "{}", after.body);
    }
    assert_eq!(received(&world).await - start, U256::from(3 * PRICE));
    assert_eq!(a.outcomes("paid").await + b.outcomes("paid").await, 3.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_sigterm_lets_a_paid_request_in_flight_finish_and_settle_then_exits_within_the_drain()
 {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let redis = RedisServer::spawn().expect("redis-server");
    // Chain reads take a second each: the request is still working when the signal comes.
    let slow = RpcProxy::start(&world.info.rpc_url, Duration::from_secs(1))
        .await
        .expect("proxy");
    let config = config(&world, &slow.url, &redis, Setup { unpaid: 1000 });
    let drain = config
        .common
        .drain(config.longest_budget())
        .expect("the drain covers the budget and the settlement");
    let mut a = replica(&config).await;
    let body = weth_usdc(&world);
    let signature = world
        .info
        .payment_signature(&quote(&a.url(), &body, None).await.terms(), "in flight")
        .expect("signed");
    let before = received(&world).await;
    let (url, sent) = (a.url(), body.clone());
    let in_flight = tokio::spawn(async move { quote(&url, &sent, Some(&signature)).await });
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while slow.http_requests() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the work never read the chain"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.terminate().expect("SIGTERM");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        reqwest::get(format!("{}/health", a.url())).await.is_err(),
        "no new connection is taken once stopping"
    );

    let answer = in_flight.await.expect("task");
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(answer.headers.contains_key("payment-response"), "settled");
    assert_eq!(received(&world).await - before, U256::from(PRICE));
    let status = a.wait_exit(drain).await.expect("exits within the drain");
    assert!(status.success(), "{status}");
    assert!(
        redis
            .command("HLEN analytics:pending")
            .expect("hlen")
            .starts_with(":0"),
        "nothing left pending"
    );
}

/// One JSON-RPC message to `/mcp` at `base`, in `session` when given: status, session header
/// of the answer, body.
async fn mcp(
    base: &str,
    session: Option<&str>,
    message: &Value,
) -> (StatusCode, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(message);
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await.expect("an answer");
    let status = response.status();
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, id, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_behind_nginx_an_mcp_session_opened_on_one_replica_is_known_to_the_other() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let redis = RedisServer::spawn().expect("redis-server");
    let config = config(&world, &world.info.rpc_url, &redis, Setup { unpaid: 1000 });
    let (a, b) = (replica(&config).await, replica(&config).await);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "replica test", "version": "1"}}});
    let (status, session, body) = mcp(&a.url(), None, &initialize).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let session = session.expect("a session id");

    // The official TypeScript SDK does not initialise again on a 404, so the session must
    // hold on whichever replica the balancer picks.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for replica in [&a, &b] {
        let (status, _, body) = mcp(&replica.url(), Some(&session), &list).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(
            body["result"]["tools"]
                .as_array()
                .is_some_and(|tools| tools.len() == 6),
            "{body}"
        );
    }

    // Ended on B, it is gone on A too.
    let ended = reqwest::Client::new()
        .delete(format!("{}/mcp", b.url()))
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("an answer");
    assert_eq!(ended.status(), StatusCode::NO_CONTENT);
    let (status, _, body) = mcp(&a.url(), Some(&session), &list).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(
        redis
            .command("ZCARD analytics:mcp-sessions")
            .expect("zcard")
            .starts_with(":0"),
        "nothing left in Redis"
    );
}
