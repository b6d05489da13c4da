//! `/oracle/crosscheck` end to end in process, paid, with the chain node replaced by wiremock
//! replaying recordings made on the committed devnet (`cargo xtask record-rpc`) and the five
//! off-chain providers by one wiremock server answering with the hand-written fixtures of
//! `testdata/sources/` (each provider's published format, see its README). Whole answers are
//! insta snapshots; the provider errors (429, 451, 5xx, malformed, missing feed, stale) are
//! rows with their reason, and an answer without any price is a 502, never settled.

mod common;

use axum::http::StatusCode;
use common::World;
use oracle_sources::SourcesConfig;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture(file: &str) -> String {
    std::fs::read_to_string(
        test_devnet::workspace_root()
            .join("testdata/sources")
            .join(file),
    )
    .expect("fixture")
}

fn json_reply(status: u16, body: String) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body, "application/json")
}

/// Every provider answering its fixture.
async fn providers() -> MockServer {
    let server = MockServer::start().await;
    for (route, file) in [
        ("/v2/updates/price/latest", "pyth/latest.json"),
        (
            "/data-packages/latest/redstone-primary-prod",
            "redstone/packages.json",
        ),
        ("/products/ETH-USD/ticker", "coinbase/ticker.json"),
        ("/0/public/Ticker", "kraken/ticker.json"),
        ("/api/v3/ticker/bookTicker", "binance/book_ticker.json"),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(json_reply(200, fixture(file)))
            .mount(&server)
            .await;
    }
    server
}

/// Every provider failing in its own way.
async fn failing_providers() -> MockServer {
    let server = MockServer::start().await;
    let replies = [
        // Hermes's answer for an id it does not know.
        (
            "/v2/updates/price/latest",
            ResponseTemplate::new(404).set_body_string(
                "Price ids not found: 0xff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace",
            ),
        ),
        (
            "/data-packages/latest/redstone-primary-prod",
            ResponseTemplate::new(503).set_body_string("Service Unavailable"),
        ),
        (
            "/products/ETH-USD/ticker",
            json_reply(429, json!({"message": "Public rate limit exceeded"}).to_string())
                .insert_header("retry-after", "30"),
        ),
        ("/0/public/Ticker", json_reply(200, "{\"error\":[],\"result\":{\"XETHZ".into())),
        (
            "/api/v3/ticker/bookTicker",
            json_reply(451, json!({"code": 0, "msg": "Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms."}).to_string()),
        ),
    ];
    for (route, reply) in replies {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(reply)
            .mount(&server)
            .await;
    }
    server
}

fn configure(
    providers: &MockServer,
    descriptions: bool,
) -> impl FnOnce(&mut analytics_server::AnalyticsConfig) {
    let uri = providers.uri();
    move |config| {
        config.sources = SourcesConfig::all_at(&uri);
        if descriptions {
            config.crosscheck.feed_descriptions = test_devnet::Addresses::committed()
                .expect("addresses")
                .feed_descriptions();
        }
    }
}

fn snapshot(name: &str, answer: &Value, providers: &MockServer) {
    let text = answer
        .to_string()
        .replace(&providers.uri(), "http://sources.test");
    let answer: Value = serde_json::from_str(&text).expect("JSON");
    insta::assert_json_snapshot!(name, answer);
}

fn row<'a>(answer: &'a Value, source: &str) -> &'a Value {
    answer["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .find(|r| r["source"].as_str().is_some_and(|s| s.starts_with(source)))
        .unwrap_or_else(|| panic!("a {source} row in {answer}"))
}

#[tokio::test]
async fn eth_is_priced_by_every_kind_with_the_usdt_book_left_out_of_the_median() {
    let providers = providers().await;
    let world = World::replaying_with(
        "/oracle/crosscheck",
        "oracle_crosscheck_eth",
        configure(&providers, true),
    )
    .await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    // The deepest WETH/USDC pool is a Uniswap V4 pool: its ticks take StateView's words, then
    // the ticks they mark.
    assert_eq!(answer["rpc_round_trips"], 4);
    assert_eq!(world.node_requests().await, 4);
    let of_kind = |kind: &str| {
        answer["sources"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["kind"] == kind))
            .unwrap_or_else(|| panic!("a {kind} row"))
            .clone()
    };
    assert_eq!(of_kind("dex_spot")["dex"], "uniswap_v4");
    let twap = of_kind("dex_twap");
    assert_eq!(twap["dex"], "uniswap_v3", "V4 keeps no observations");
    assert!(twap["price"].is_string(), "{twap}");
    assert_eq!(answer["usdt_quoted_sources"], json!(["Binance ETH/USDT"]));
    let binance = row(&answer, "Binance");
    assert_eq!(binance["in_median"], false);
    assert_eq!(answer["sources_in_median"], 7, "eight rows, Binance out");
    // The fixtures' Kraken book: (4612.69 + 4612.70) / 2, exactly.
    assert_eq!(row(&answer, "Kraken")["price"], "4612.695");
    // Pyth's fixture: 461236023127 × 10^-8, conf 177166324 → 3.84 bps.
    let pyth = row(&answer, "Pyth");
    assert_eq!(pyth["price"], "4612.36023127");
    assert_eq!(pyth["confidence_bps"], 3.84);
    assert_eq!(pyth["observed_update_interval_seconds"], 1);
    // Its publish_time (2025-08-27) is months before the devnet's block: stale, stated.
    assert!(
        pyth["flags"]
            .as_array()
            .expect("flags")
            .iter()
            .any(|f| f["flag"] == "stale"),
        "{pyth}"
    );
    snapshot("oracle_crosscheck_eth", &answer, &providers);
}

#[tokio::test]
async fn a_failing_provider_is_a_row_with_its_reason_and_the_answer_stands() {
    let providers = failing_providers().await;
    let world = World::replaying_with(
        "/oracle/crosscheck",
        "oracle_crosscheck_eth",
        configure(&providers, true),
    )
    .await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    let reason = |source: &str| {
        let row = row(&answer, source);
        assert!(row["price"].is_null(), "{row}");
        row["null_reason"].as_str().expect("a reason").to_owned()
    };
    assert!(
        reason("Pyth").contains("Price ids not found"),
        "missing feed id"
    );
    assert!(reason("RedStone").contains("503"));
    assert!(reason("Coinbase").contains("429"));
    assert!(reason("Kraken").contains("malformed"));
    assert!(reason("Binance").contains("451"));
    assert_eq!(answer["sources_in_median"], 3, "the feed, spot and TWAP");
    assert_eq!(
        answer["kinds_without_price"],
        json!(["pull_oracle_a", "pull_oracle_b", "cex"])
    );
    snapshot(
        "oracle_crosscheck_eth_providers_failing",
        &answer,
        &providers,
    );
}

#[tokio::test]
async fn a_deviating_feed_and_no_usdc_pool_for_link() {
    let providers = providers().await;
    let world = World::replaying_with(
        "/oracle/crosscheck",
        "oracle_crosscheck_link",
        configure(&providers, true),
    )
    .await;
    let (status, _, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["median"], "13.8");
    let spot = &answer["sources"][1];
    assert_eq!(spot["kind"], "dex_spot");
    assert!(
        spot["null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("no LINK/USDC pool")),
        "{spot}"
    );
    snapshot("oracle_crosscheck_link", &answer, &providers);
}

#[tokio::test]
async fn the_stale_usdt_feed_is_flagged_against_its_observed_interval() {
    let providers = providers().await;
    let world = World::replaying_with(
        "/oracle/crosscheck",
        "oracle_crosscheck_usdt",
        configure(&providers, true),
    )
    .await;
    let (status, _, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let feed = &answer["sources"][0];
    assert_eq!(feed["observed_update_interval_seconds"], 3562);
    assert_eq!(feed["flags"][0]["flag"], "stale", "{feed}");
    snapshot("oracle_crosscheck_usdt", &answer, &providers);
}

#[tokio::test]
async fn no_price_at_all_is_a_502_and_not_settled() {
    let providers = providers().await;
    // Without the accepted test description the devnet's LINK feed is refused, and LINK has
    // no USDC pool: nothing is priced.
    let world = World::replaying_with(
        "/oracle/crosscheck",
        "oracle_crosscheck_link",
        configure(&providers, false),
    )
    .await;
    let (status, headers, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{answer}");
    assert!(!headers.contains_key("payment-response"), "not settled");
    assert_eq!(answer["error"], "counterparty_unreachable");
    let message = answer["message"].as_str().expect("message");
    assert!(message.contains("MockV3Aggregator.sol"), "{message}");
    assert!(message.contains("nothing was charged"), "{message}");
}
