//! `/yield/normalize` in process, paid through a wiremock facilitator, with DefiLlama (yields
//! and coins) replaced by one wiremock server. `/pools` is the hand-written fixture
//! `testdata/sources/defillama/pools.json` (DefiLlama's published format, see the README
//! there); the history, prices and the 31-day price path are built here in the published
//! formats (<https://defillama.com/docs/api>: yields `/chart/{pool}`, coins
//! `/prices/current/{coins}` and `/chart/{coins}`), dated relative to now because the route
//! asks for the path ending today. No chain is configured, so the fee comes from the
//! directory's poolMeta and the gas is null with its reason (the devnet tests read the chain).

use std::time::Duration;

use analytics_server::{AnalyticsConfig, AppState, router};
use axum::http::StatusCode;
use serde_json::{Value, json};
use server_kit::testing::{PaidTestApp, Reply, silent_facilitator};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const ROUTE: &str = "/yield/normalize";
const V3_ID: &str = "dd1bf75b-8cb2-579d-b07e-3b7500f67eff";
const AERO_ID: &str = "9c1e3f7a-0000-4a1b-8c2d-1234567890ab";
const WETH: &str = "base:0x4200000000000000000000000000000000000006";
const USDC: &str = "base:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const AERO: &str = "base:0x940181a94a35a4569e4529a3cdfb74e38fd98631";
const DAY: u64 = 86_400;

fn fixture(file: &str) -> String {
    std::fs::read_to_string(
        test_devnet::workspace_root()
            .join("testdata/sources")
            .join(file),
    )
    .expect("fixture")
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

fn iso(seconds: u64) -> String {
    // Days since the epoch to a civil date (the same algorithm as yield-model's).
    yield_model::apy::utc_date(seconds) + "T23:01:00.000Z"
}

/// Ten days of history ending yesterday, days 3 and 6 missing and day 8 without apyBase: the
/// last seven days with a figure are 1, 2, 4, 5, 7, 9, 10 → (11+12+14+15+17+19+20)/7 = 108/7.
fn history() -> Value {
    let start = now() / DAY * DAY - 11 * DAY;
    let rows: Vec<Value> = (0..=10u64)
        .filter(|d| ![3, 6].contains(d))
        .map(|d| {
            let apy_base = if d == 8 { Value::Null } else { json!(10 + d) };
            json!({"timestamp": iso(start + d * DAY), "tvlUsd": 41230188, "apy": apy_base,
                   "apyBase": apy_base, "apyReward": null, "il7d": null, "apyBase7d": null})
        })
        .collect();
    json!({"status": "success", "data": rows})
}

/// 31 daily points: WETH from 3,000 to 3,600 USD in equal steps (r = 1.2 at the end), with a
/// 6,000 spike on day 10 (r = 2, the worst point); USDC at 1.
fn price_path() -> Value {
    let start = now() / DAY * DAY - 30 * DAY;
    let weth: Vec<Value> = (0..31u64)
        .map(|d| {
            let price = if d == 10 {
                6000.0
            } else {
                3000.0 + 20.0 * d as f64
            };
            json!({"timestamp": start + d * DAY + 5, "price": price})
        })
        .collect();
    let usdc: Vec<Value> = (0..31u64)
        .map(|d| json!({"timestamp": start + d * DAY, "price": 1}))
        .collect();
    json!({"coins": {
        WETH: {"symbol": "WETH", "decimals": 18, "confidence": 0.99, "prices": weth},
        USDC: {"symbol": "USDC", "decimals": 6, "confidence": 0.99, "prices": usdc},
    }})
}

fn current() -> Value {
    let t = now() - 60;
    json!({"coins": {
        WETH: {"decimals": 18, "symbol": "WETH", "price": 3600, "timestamp": t, "confidence": 0.99},
        USDC: {"decimals": 6, "symbol": "USDC", "price": 1, "timestamp": t, "confidence": 0.99},
        AERO: {"decimals": 18, "symbol": "AERO", "price": 0.85, "timestamp": t, "confidence": 0.99},
    }})
}

fn json_reply(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

/// DefiLlama with every endpoint answering; `aerodrome_chart` is the answer for the
/// Aerodrome pool's history.
async fn directory(aerodrome_chart: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pools"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("defillama/pools.json"), "application/json"),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/chart/{V3_ID}")))
        .respond_with(json_reply(history()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/chart/{AERO_ID}")))
        .respond_with(aerodrome_chart)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex("^/prices/current/"))
        .respond_with(json_reply(current()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex("^/chart/base:"))
        .respond_with(json_reply(price_path()))
        .mount(&server)
        .await;
    server
}

fn app(directory: &MockServer, facilitator: MockServer, budget: u64) -> PaidTestApp {
    let uri = directory.uri();
    PaidTestApp::new("analytics.test", facilitator, |facilitator| {
        let mut config = AnalyticsConfig::default();
        config.common.payment.pay_to = Some(PAY_TO.parse().expect("address"));
        config.common.facilitator.url = Some(facilitator.uri());
        config.time_budget_seconds = budget;
        config.sources = oracle_sources::SourcesConfig {
            timeout_ms: 10_000,
            ..oracle_sources::SourcesConfig::all_at(&uri)
        };
        // No chain node: the fee falls back to the directory, gas is null with the reason.
        for endpoint in config.chains.values_mut() {
            endpoint.rpc_urls.clear();
        }
        router(AppState::new(config).expect("config"))
    })
}

async fn facilitator(settles: bool) -> MockServer {
    let facilitator = silent_facilitator().await;
    Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(json_reply(
            json!({"isValid": true, "payer": "0x8d548B243730550eFD52D67A4cA9200EabA26319"}),
        ))
        .expect(1)
        .mount(&facilitator)
        .await;
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(json_reply(json!({
            "success": true, "network": "eip155:8453",
            "transaction": format!("0x{}", "ab".repeat(32)),
            "payer": "0x8d548B243730550eFD52D67A4cA9200EabA26319"})))
        .expect(u64::from(settles))
        .mount(&facilitator)
        .await;
    facilitator
}

async fn paid(app: &PaidTestApp, body: Value, label: &str) -> Reply {
    let unpaid = app.post_json(ROUTE, &body, None).await;
    assert_eq!(unpaid.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(unpaid.terms().accepts[0].amount, "10000", "0.01 USDC");
    app.pay(ROUTE, &body, label).await
}

fn assert_refused(reply: &Reply, status: StatusCode, code: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.body["error"], code, "{}", reply.body);
    assert_eq!(reply.body["charged"], false);
    assert!(
        reply.header("payment-response").is_none(),
        "nothing settled"
    );
}

#[tokio::test]
async fn a_uniswap_v3_pool_by_symbol_is_rebuilt_paid_and_settled() {
    let directory = directory(json_reply(history())).await;
    let app = app(&directory, facilitator(true).await, 20);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": "WETH-USDC"}),
        "v3",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert!(reply.header("payment-response").is_some(), "settled");
    let a = &reply.body;
    assert_eq!(a["pool"]["id"], V3_ID);
    assert_eq!(a["pool"]["quote"]["source"], "DefiLlama yields");
    assert_eq!(a["advertised_apy"], "18.43021");
    assert_eq!(a["apy_base"], "18.43021");
    assert_eq!(a["apy_reward"], Value::Null);

    // 108 / 7, exact to 18 places, with the dates and the gaps listed.
    let c = &a["conservative_apy"];
    assert_eq!(c["value_pct"], "15.428571428571428571", "{c}");
    assert_eq!(c["dates_used"].as_array().map(Vec::len), Some(7));
    assert_eq!(c["missing_days_in_span"].as_array().map(Vec::len), Some(3));
    assert_eq!(c["days_without_apy_base"].as_array().map(Vec::len), Some(1));
    assert_eq!(c["directory_apy_base_7d"], "20.11");
    assert!(
        c["directory_apy_base_7d_note"]
            .as_str()
            .is_some_and(|n| n.contains("not a trailing average")),
        "{c}"
    );

    // 40123456.78 × 500 × 365 / 41230188 / 10^6 × 100, exact; the fee from poolMeta.
    let f = &a["fee_apr"];
    assert_eq!(f["recomputed_pct"], "17.76011999351058016", "{f}");
    assert_eq!(f["deviation_pct_points"], "-0.67009000648941984");
    assert_eq!(f["fee_ppm"], 500);
    assert!(
        f["fee_source"]
            .as_str()
            .is_some_and(|s| s.contains("poolMeta \"0.05%\"") && s.contains("no RPC endpoint")),
        "{f}"
    );
    assert!(
        f["statement"]
            .as_str()
            .is_some_and(|s| s.contains("not an independent confirmation"))
    );

    // The path: 31 points, r = 1.2 at the end, r = 2 at the worst.
    let il = &a["impermanent_loss"];
    assert_eq!(il["path_points"], 31, "{il}");
    let number = |v: &Value| v.as_f64().expect("number");
    assert!((number(&il["price_ratio_at_end"]) - 1.2).abs() < 1e-12);
    let il_end = (2.0 * 1.2f64.sqrt() / 2.2 - 1.0) * 100.0;
    assert!((number(&il["il_at_end_pct"]) - il_end).abs() < 1e-9, "{il}");
    assert!(
        (number(&il["worst_il_pct"]) + 5.719_095_841).abs() < 1e-6,
        "{il}"
    );
    assert_eq!(number(&il["path_first"]["price_a_usd"]), 3000.0);
    assert_eq!(number(&il["path_last"]["price_a_usd"]), 3600.0);
    // Concentrated pool: three ranges; ±25 % holds until the r = 1.25 edge is never crossed
    // except on the spike day (1 of 30 intervals out of range).
    let ranges = il["ranges"].as_array().expect("ranges");
    assert_eq!(ranges.len(), 3);
    assert!((number(&ranges[2]["in_range_pct"]) - 29.0 / 30.0 * 100.0).abs() < 1e-9);
    assert_eq!(il["scenarios"].as_array().map(Vec::len), Some(7));

    // No chain: gas and net APY are null with the reason; units still printed.
    let gas = &a["gas"];
    assert_eq!(gas["pool_type"], "concentrated_liquidity");
    assert!(gas["entry_units"].as_u64().is_some_and(|u| u > 0));
    assert!(
        gas["null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("no RPC endpoint")),
        "{gas}"
    );
    let net = a["net_apy_after_gas"].as_array().expect("net");
    assert_eq!(net.len(), 4, "the default stakes");
    assert_eq!(net[0]["stake_usd"], 200.0);
    assert!(net.iter().all(|n| n["advertised_net_pct"].is_null()));
    assert!(a["assumptions"].as_array().is_some_and(|l| l.len() >= 5));
}

#[tokio::test]
async fn reward_tokens_are_priced_and_a_failing_history_is_a_null_reason() {
    // DefiLlama's answer to an id it does not know.
    let directory = directory(
        ResponseTemplate::new(400).set_body_raw(r#""invalid configID!""#, "application/json"),
    )
    .await;
    let app = app(&directory, facilitator(true).await, 20);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "aerodrome-v1", "pool": AERO_ID,
               "stake_sizes_usd": [1000]}),
        "aero",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let a = &reply.body;
    let reward = &a["reward_tokens"][0];
    assert_eq!(reward["symbol"], "AERO");
    assert_eq!(reward["price_usd"], "0.85");
    assert_eq!(reward["emission_end"], Value::Null);
    assert!(reward["emission_end_null_reason"].is_string());
    assert!(
        a["assumptions"].to_string().contains(
            "Reward token AERO (0x940181a94a35a4569e4529a3cdfb74e38fd98631) is assumed worth 0.85 USD"
        ),
        "{}",
        a["assumptions"]
    );
    let c = &a["conservative_apy"];
    assert_eq!(c["value_pct"], Value::Null);
    assert!(
        c["null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("400") || r.contains("does not know")),
        "{c}"
    );
    // No poolMeta and no chain: no fee, said so.
    assert_eq!(a["fee_apr"]["recomputed_pct"], Value::Null);
    assert!(
        a["fee_apr"]["null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("no fee"))
    );
    // A Solidly pool has no in-range share.
    assert_eq!(a["impermanent_loss"]["ranges"], json!([]));
    assert_eq!(a["net_apy_after_gas"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn an_ambiguous_symbol_lists_the_candidates_and_is_not_settled() {
    let directory = directory(json_reply(history())).await;
    let app = app(&directory, facilitator(false).await, 20);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "aerodrome-v1", "pool": "weth-usdc"}),
        "ambiguous",
    )
    .await;
    assert_refused(&reply, StatusCode::UNPROCESSABLE_ENTITY, "ambiguous_pool");
    let details = reply.body["details"].as_array().expect("details");
    assert_eq!(details.len(), 2, "{}", reply.body);
    let text = reply.body["details"].to_string();
    assert!(text.contains(AERO_ID) && text.contains("f6276a07-1825-5aba-971a-7dd80cf62d02"));
    assert!(text.contains("TVL 20000000 USD"), "{text}");
}

#[tokio::test]
async fn an_unknown_pool_is_pool_not_found_and_not_settled() {
    let directory = directory(json_reply(history())).await;
    let app = app(&directory, facilitator(false).await, 20);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": "DAI-USDT"}),
        "unknown",
    )
    .await;
    assert_refused(&reply, StatusCode::UNPROCESSABLE_ENTITY, "pool_not_found");
    assert!(
        reply.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("WETH-USDC")),
        "the protocol's symbols are listed: {}",
        reply.body
    );
}

#[tokio::test]
async fn a_directory_that_is_down_is_a_502_and_not_settled() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pools"))
        .respond_with(ResponseTemplate::new(503).set_body_string("Service Unavailable"))
        .mount(&server)
        .await;
    let app = app(&server, facilitator(false).await, 20);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": "WETH-USDC"}),
        "down",
    )
    .await;
    assert_refused(&reply, StatusCode::BAD_GATEWAY, "counterparty_unreachable");
}

#[tokio::test]
async fn a_directory_slower_than_the_budget_is_a_504_and_not_settled() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pools"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("defillama/pools.json"), "application/json")
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    let app = app(&server, facilitator(false).await, 1);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": "WETH-USDC"}),
        "slow",
    )
    .await;
    assert_refused(&reply, StatusCode::GATEWAY_TIMEOUT, "time_budget_exceeded");
}

#[tokio::test]
async fn coins_down_and_an_empty_history_are_null_reasons_in_a_paid_answer() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pools"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("defillama/pools.json"), "application/json"),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/chart/{V3_ID}")))
        .respond_with(json_reply(json!({"status": "success", "data": []})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex("^/(prices/current|chart/base:)"))
        .respond_with(ResponseTemplate::new(502).set_body_string("Bad Gateway"))
        .mount(&server)
        .await;
    let app = app(&server, facilitator(true).await, 20);
    let reply = paid(
        &app,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": V3_ID}),
        "partial",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let a = &reply.body;
    assert!(
        a["conservative_apy"]["null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("0 daily base APY point(s); 7 are needed")),
        "{}",
        a["conservative_apy"]
    );
    let il = &a["impermanent_loss"];
    assert_eq!(il["il_at_end_pct"], Value::Null);
    assert!(
        il["null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("price path could not be read") && r.contains("502")),
        "{il}"
    );
    assert_eq!(
        il["scenarios"].as_array().map(Vec::len),
        Some(7),
        "scenarios need no data"
    );
    // The fee APR needs only the directory.
    assert_eq!(a["fee_apr"]["recomputed_pct"], "17.76011999351058016");
}
