//! `/pool/liquidity` end to end in process, paid, with the chain node replaced by wiremock
//! replaying recordings made on the committed devnet (`cargo xtask record-rpc`) and
//! GeckoTerminal / DefiLlama replaced by wiremock servers answering in their published
//! formats. Each whole answer is an insta snapshot (the foreign figures' ages redacted: they
//! depend on the clock).

mod common;

use axum::http::StatusCode;
use common::World;
use oracle_sources::SourcesConfig;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

const WETH_USDC_500: &str = "0xB4954E7786E5Dc7D738551aA9E5e8d02149d75e8";

/// GeckoTerminal's hourly candles (`/ohlcv/hour`) for the 168 hours ending with the hour the
/// request arrives in, newest first, volumes 1000.25 + i for the candle i hours back (sum
/// 182070), plus one candle 168 hours back, outside the window. Made per request, so the
/// window the server computes from its own clock finds the same candles.
struct HourlyCandles;

impl wiremock::Respond for HourlyCandles {
    fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
        let hour = 3_600u64;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() / hour * hour)
            .unwrap_or_default();
        let candles: Vec<Value> = (0..=168u64)
            .map(|i| {
                let volume = if i == 168 {
                    9_999_999.0
                } else {
                    1000.25 + i as f64
                };
                json!([now - i * hour, 3000.0, 3100.0, 2950.0, 3050.0, volume])
            })
            .collect();
        ResponseTemplate::new(200).set_body_json(json!({
            "data": {"id": "5b0c2c1e", "type": "ohlcv_request_response", "attributes": {"ohlcv_list": candles}},
            "meta": {"base": {"address": "0x4200000000000000000000000000000000000006", "symbol": "WETH"},
                     "quote": {"address": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "symbol": "USDC"}}
        }))
    }
}

/// A GeckoTerminal pool document (api.geckoterminal.com/api/v2, version 20230302) for
/// `address` on `base`, with its hourly candles ([`HourlyCandles`]).
async fn geckoterminal(address: &str) -> MockServer {
    let server = MockServer::start().await;
    let lower = address.to_lowercase();
    Mock::given(method("GET"))
        .and(path(format!("/api/v2/networks/base/pools/{lower}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": {
                "id": format!("base_{lower}"),
                "type": "pool",
                "attributes": {
                    "address": lower,
                    "name": "WETH / USDC 0.05%",
                    "base_token_price_usd": "3074.21",
                    "quote_token_price_usd": "0.9998",
                    "reserve_in_usd": "6043771.1622",
                    "pool_created_at": "2026-11-20T10:00:00Z",
                    "volume_usd": {"m5": "0.0", "h1": "1203.5", "h6": "18022.77", "h24": "250331.42"}
                },
                "relationships": {
                    "base_token": {"data": {"id": "base_0x4200000000000000000000000000000000000006", "type": "token"}},
                    "quote_token": {"data": {"id": "base_0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "type": "token"}},
                    "dex": {"data": {"id": "uniswap-v3-base", "type": "dex"}}
                }
            }
        })))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/api/v2/networks/base/pools/{lower}/ohlcv/hour"
        )))
        .respond_with(HourlyCandles)
        .mount(&server)
        .await;
    // Anything else is a pool GeckoTerminal does not list.
    Mock::given(method("GET"))
        .and(path_regex("^/api/v2/networks/.*"))
        .respond_with(
            ResponseTemplate::new(404)
                .set_body_json(json!({"errors": [{"status": "404", "title": "Not Found"}]})),
        )
        .mount(&server)
        .await;
    server
}

/// Every foreign source at `server` (GeckoTerminal under `/api/v2`, the others at its root).
fn sources_at(server: &MockServer) -> impl FnOnce(&mut analytics_server::AnalyticsConfig) {
    let uri = server.uri();
    move |config| config.sources = SourcesConfig::all_at(&uri)
}

/// The snapshot of an answer with the clock-dependent foreign fields redacted and the foreign
/// mock's address (a random port) written as `http://sources.test`.
fn snapshot(name: &str, answer: &Value, foreign: &MockServer) {
    let text = answer
        .to_string()
        .replace(&foreign.uri(), "http://sources.test");
    let answer: Value = serde_json::from_str(&text).expect("JSON");
    insta::assert_json_snapshot!(name, answer, {
        ".volume_24h.as_of" => "[as_of]",
        ".volume_24h.age_seconds" => "[age]",
        ".volume_7d.as_of" => "[as_of]",
        ".volume_7d.age_seconds" => "[age]",
    });
}

/// The recording `pool_liquidity_<name>` replayed with GeckoTerminal mocked, paid and
/// answered 200 (settled).
async fn answered(name: &str) -> (MockServer, World, Value) {
    let foreign = geckoterminal(WETH_USDC_500).await;
    let world = World::replaying_with(
        "/pool/liquidity",
        &format!("pool_liquidity_{name}"),
        sources_at(&foreign),
    )
    .await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    (foreign, world, answer)
}

#[tokio::test]
async fn a_v3_pool_by_address_is_read_in_two_round_trips_with_its_foreign_volume() {
    let (foreign, world, answer) = answered("weth_usdc_500").await;
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["read_path"], "lens");
    assert_eq!(world.node_requests().await, 2);
    assert_eq!(answer["pool_type"], "concentrated_liquidity");
    assert_eq!(answer["fee_tier_ppm"], 500);
    let exits = answer["exit_impact"].as_array().expect("exits");
    assert_eq!(exits.len(), 8, "four sizes, both directions");
    for exit in exits {
        assert_eq!(exit["quote_source"], "quoter_v2");
        assert!(exit["initialized_ticks_crossed"].is_u64());
        // Fee and pure impact add up (multiplicatively, so within rounding).
        let (total, fee, pure) = (
            exit["impact_bps"].as_f64().expect("impact"),
            exit["fee_bps"].as_f64().expect("fee"),
            exit["price_impact_excluding_fee_bps"]
                .as_f64()
                .expect("pure"),
        );
        assert!(
            (total - fee - pure).abs() < 1.0 + total.abs() * 0.001,
            "{exit}"
        );
    }
    // Larger sizes cost more.
    let impact = |i: usize| exits[i]["impact_bps"].as_f64().expect("impact");
    assert!(impact(0) < impact(6), "1k vs 1M selling token0");
    let depth = answer["depth"].as_array().expect("depth");
    assert_eq!(
        depth
            .iter()
            .map(|b| b["percent"].as_u64())
            .collect::<Vec<_>>(),
        [Some(1), Some(2), Some(5)]
    );
    assert_eq!(answer["volume_24h"]["usd"], "250331.42");
    assert_eq!(answer["volume_24h"]["source"], "GeckoTerminal");
    assert_eq!(answer["volume_24h"]["derived_from_foreign_source"], true);
    // The 168 hourly candles ending with the current hour; the one before them is left out.
    assert_eq!(
        answer["volume_7d"]["usd"], "182070",
        "{}",
        answer["volume_7d"]
    );
    assert_eq!(answer["lp_holder_count"], Value::Null);
    assert!(answer["lp_holder_count_null_reason"].is_string());
    snapshot("pool_liquidity_weth_usdc_500", &answer, &foreign);
}

#[tokio::test]
async fn a_down_foreign_source_leaves_the_volume_null_and_the_answer_paid() {
    // Every foreign source answers 503.
    let down = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&down)
        .await;
    let world = World::replaying_with(
        "/pool/liquidity",
        "pool_liquidity_weth_usdc_500",
        sources_at(&down),
    )
    .await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    assert_eq!(answer["volume_24h"]["usd"], Value::Null);
    assert!(answer["volume_24h"]["null_reason"].is_string());
    assert_eq!(answer["volume_7d"]["usd"], Value::Null);
}

#[tokio::test]
async fn without_a_fee_tier_the_four_tiers_are_compared_and_the_deepest_read() {
    let (foreign, _world, answer) = answered("weth_usdc_deepest_tier").await;
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["read_path"], "lens");
    let tiers = answer["tiers_compared"].as_array().expect("tiers");
    assert_eq!(tiers.len(), 4);
    assert_eq!(tiers.iter().filter(|t| t["chosen"] == true).count(), 1);
    assert!(answer["tier_choice"].is_string());
    snapshot("pool_liquidity_weth_usdc_deepest_tier", &answer, &foreign);
}

#[tokio::test]
async fn a_pair_without_usdc_is_priced_through_the_wrapped_native_token() {
    let (foreign, _world, answer) = answered("weth_wbtc_3000").await;
    let sources: Vec<&str> = [&answer["token0"], &answer["token1"]]
        .iter()
        .filter_map(|t| t["price_usd_source"].as_str())
        .collect();
    assert!(
        sources
            .iter()
            .any(|s| s.contains("into the wrapped native token")),
        "{sources:?}"
    );
    // GeckoTerminal does not list it and DefiLlama has no row: null with the reason.
    assert_eq!(answer["volume_24h"]["usd"], Value::Null);
    snapshot("pool_liquidity_weth_wbtc_3000", &answer, &foreign);
}

#[tokio::test]
async fn sizes_a_pool_cannot_take_are_unfilled_rows_not_errors() {
    let (foreign, _world, answer) = answered("usdc_usdt_100").await;
    let unfilled: Vec<&Value> = answer["exit_impact"]
        .as_array()
        .expect("exits")
        .iter()
        .filter(|e| e["filled"] == false)
        .collect();
    assert!(!unfilled.is_empty());
    for row in unfilled {
        assert_eq!(row["size_usd"], 1_000_000);
        assert!(row["fillable_amount_in"]["atomic"].is_string(), "{row}");
        assert!(row["null_reason"].is_string());
    }
    snapshot("pool_liquidity_usdc_usdt_100", &answer, &foreign);
}

#[tokio::test]
async fn constant_product_and_solidly_pools_take_one_round_trip() {
    for (name, pool_type) in [
        ("v2_weth_usdc", "constant_product"),
        ("aerodrome_stable", "solidly"),
    ] {
        let (foreign, _world, answer) = answered(name).await;
        assert_eq!(answer["rpc_round_trips"], 1);
        assert_eq!(answer["pool_type"], pool_type);
        assert_eq!(answer["current_tick"], Value::Null);
        assert!(answer["concentrated_null_reason"].is_string());
        assert_eq!(
            answer["depth"].as_array().map(Vec::len),
            Some(3),
            "{answer}"
        );
        if pool_type == "solidly" {
            assert_eq!(answer["stable"], true);
            assert!(
                answer["depth_method"]
                    .as_str()
                    .is_some_and(|m| m.contains("stable curve"))
            );
        }
        snapshot(&format!("pool_liquidity_{name}"), &answer, &foreign);
    }
}

#[tokio::test]
async fn an_address_that_is_no_pool_is_422_unknown_pool_and_not_settled() {
    let foreign = geckoterminal(WETH_USDC_500).await;
    let world = World::replaying_with(
        "/pool/liquidity",
        "pool_liquidity_not_a_pool",
        sources_at(&foreign),
    )
    .await;
    let (status, headers, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(!headers.contains_key("payment-response"));
    assert_eq!(answer["error"], "unknown_pool");
    assert_eq!(answer["charged"], false);
}

#[tokio::test]
async fn a_dex_the_chain_does_not_have_is_refused_before_payment() {
    let foreign = geckoterminal(WETH_USDC_500).await;
    let world = World::replaying_with(
        "/pool/liquidity",
        "pool_liquidity_weth_usdc_500",
        sources_at(&foreign),
    )
    .await;
    let body = json!({"chain": "base", "token_a": "0x4200000000000000000000000000000000000006",
        "token_b": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "dex": "velodrome"});
    let reply = world
        .app
        .post("/pool/liquidity", &[], body.to_string())
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let answer = reply.json();
    assert_eq!(answer["error"], "unsupported_protocol");
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|m| m.contains("aerodrome")),
        "{answer}"
    );
    assert_eq!(world.node_requests().await, 0);
}

#[tokio::test]
async fn a_v4_pool_by_pool_id_is_read_with_v4_quoter_exits_and_a_state_view_tick_walk() {
    let (foreign, world, answer) = answered("v4_eth_usdc_500").await;
    // The second lens call reads StateView's words and the exits, then the ticks they mark.
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["read_path"], "lens");
    assert_eq!(world.node_requests().await, 2);
    assert_eq!(answer["dex"], "uniswap_v4");
    assert_eq!(answer["fee_tier_ppm"], 500);
    assert!(
        answer["pool"].as_str().is_some_and(|id| id.len() == 66),
        "the PoolId: {}",
        answer["pool"]
    );
    // The PoolManager holds the tokens: no reserves, no TVL, with why.
    assert_eq!(answer["reserves"]["source"], "none");
    assert_eq!(answer["reserves"]["tokens"], json!([]));
    assert_eq!(answer["tvl_usd"], Value::Null);
    assert!(answer["tvl_usd_null_reason"].is_string());
    assert!(answer["current_tick"].is_i64());
    let exits = answer["exit_impact"].as_array().expect("exits");
    assert_eq!(exits.len(), 8);
    for exit in exits {
        assert_eq!(exit["quote_source"], "v4_quoter", "{exit}");
        assert!(
            exit["amount_out"].is_object() || exit["amount_out"].is_string(),
            "{exit}"
        );
    }
    assert!(
        answer["depth_method"]
            .as_str()
            .is_some_and(|m| m.contains("StateView")),
        "{}",
        answer["depth_method"]
    );
    // Not asked: a V4 pool has no contract address the volume sources know.
    assert_eq!(answer["volume_24h"]["usd"], Value::Null);
    snapshot("pool_liquidity_v4_eth_usdc_500", &answer, &foreign);
}

/// A node that refuses `eth_call` state overrides (the recording's proxy answered as geth
/// without them does): the lens costs one refused round trip, the ordinary four read the
/// pool, and the answer says so; every figure is the one the lens read.
#[tokio::test]
async fn a_node_without_state_overrides_is_read_by_the_batches_and_the_answer_says_so() {
    let (foreign, world, answer) = answered("v4_eth_usdc_500_no_state_override").await;
    assert_eq!(answer["read_path"], "batches");
    assert_eq!(
        answer["lens_fallback_reason"],
        "the node did not run the read lens's eth_call with a state override (JSON-RPC error -32602: too many arguments, want at most 2)"
    );
    assert_eq!(
        answer["rpc_round_trips"], 5,
        "the refused lens, then four batches"
    );
    assert_eq!(world.node_requests().await, 5);

    let (_, _, mut lens) = answered("v4_eth_usdc_500").await;
    let mut same = answer.clone();
    for field in [
        "read_path",
        "lens_fallback_reason",
        "rpc_round_trips",
        "assumptions",
    ] {
        same.as_object_mut().expect("object").remove(field);
        lens.as_object_mut().expect("object").remove(field);
    }
    lens["volume_24h"] = same["volume_24h"].clone();
    lens["volume_7d"] = same["volume_7d"].clone();
    assert_eq!(same, lens, "every figure is the lens's own");
    snapshot(
        "pool_liquidity_v4_eth_usdc_500_no_state_override",
        &answer,
        &foreign,
    );
}

#[tokio::test]
async fn a_hooked_v4_pool_keeps_v4_quoters_amounts_with_the_price_after_null() {
    let (foreign, _world, answer) = answered("v4_hooked").await;
    for exit in answer["exit_impact"].as_array().expect("exits") {
        assert!(exit["amount_out"].is_object(), "{exit}");
        assert_eq!(exit["price_move_bps"], Value::Null, "{exit}");
        assert!(
            exit["price_after_null_reason"]
                .as_str()
                .is_some_and(|r| r.contains("hooks")),
            "{exit}"
        );
    }
    snapshot("pool_liquidity_v4_hooked", &answer, &foreign);
}

#[tokio::test]
async fn a_v4_pair_compares_every_v4_pool_and_reads_the_deepest_never_the_dust_trap() {
    let (foreign, _world, answer) = answered("v4_weth_usdc_deepest").await;
    let tiers = answer["tiers_compared"].as_array().expect("pools");
    assert!(tiers.len() >= 6, "{}", tiers.len());
    let chosen: Vec<&Value> = tiers.iter().filter(|t| t["chosen"] == true).collect();
    assert_eq!(chosen.len(), 1);
    assert_ne!(chosen[0]["fee_tier_ppm"], 500_000, "never the dust trap");
    assert!(
        answer["tier_choice"]
            .as_str()
            .is_some_and(|c| c.contains("in-range liquidity")),
        "{}",
        answer["tier_choice"]
    );
    snapshot("pool_liquidity_v4_weth_usdc_deepest", &answer, &foreign);
}

#[tokio::test]
async fn a_pool_id_with_another_dex_or_one_token_is_refused_before_payment() {
    let foreign = geckoterminal(WETH_USDC_500).await;
    let world = World::replaying_with(
        "/pool/liquidity",
        "pool_liquidity_weth_usdc_500",
        sources_at(&foreign),
    )
    .await;
    let id = format!("0x{}", "96".repeat(32));
    for body in [
        json!({"chain": "base", "pool": id, "token_a": "0x4200000000000000000000000000000000000006"}),
        json!({"chain": "base", "pool": id, "token_a": "0x4200000000000000000000000000000000000006",
            "token_b": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "dex": "uniswap_v3"}),
    ] {
        let reply = world
            .app
            .post("/pool/liquidity", &[], body.to_string())
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.json()["error"], "invalid_input", "{body}");
    }
    assert_eq!(world.node_requests().await, 0);
}

/// A PoolId alone: its PoolKey from its `Initialize` event, whose `eth_getLogs` rides in the
/// first lens call's JSON-RPC batch (two round trips in all, as with the pair named).
#[tokio::test]
async fn a_v4_pool_by_pool_id_alone_takes_its_key_from_its_initialize_event() {
    let (foreign, world, answer) = answered("v4_hooked_by_id").await;
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["read_path"], "lens");
    assert_eq!(world.node_requests().await, 2);
    assert!(
        world
            .recording
            .calls
            .iter()
            .any(|call| call.method == "eth_getLogs"),
        "the log query was sent"
    );
    assert!(
        answer["assumptions"]
            .as_array()
            .expect("assumptions")
            .iter()
            .any(|line| line
                .as_str()
                .is_some_and(|l| l.contains("Initialize event at block"))),
        "{}",
        answer["assumptions"]
    );
    // The same pool and figures as with its pair named.
    let (_, _, named) = answered("v4_hooked").await;
    for field in [
        "pool",
        "dex",
        "tokens",
        "exit_impact",
        "depth",
        "current_tick",
    ] {
        assert_eq!(answer[field], named[field], "{field}");
    }
    snapshot("pool_liquidity_v4_hooked_by_id", &answer, &foreign);
}

/// The same request against a node whose `eth_getLogs` answer differs from the devnet's: no
/// `Initialize` event names the PoolId (422 `unknown_pool`, the reason in the message), or
/// the node refuses the query (502, the node's words in the message). Neither is settled.
#[tokio::test]
async fn a_pool_id_without_its_initialize_event_or_with_the_logs_refused_is_answered_with_why() {
    let foreign = geckoterminal(WETH_USDC_500).await;
    for (logs, status, error, says) in [
        (
            json!({"result": []}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown_pool",
            "no Initialize event of the PoolManager",
        ),
        (
            json!({"error": {"code": -32005, "message": "query exceeds max block range 10000"}}),
            StatusCode::BAD_GATEWAY,
            "counterparty_unreachable",
            "query exceeds max block range 10000",
        ),
    ] {
        let world = World::replaying_altered(
            "/pool/liquidity",
            "pool_liquidity_v4_hooked_by_id",
            |recording| {
                let call = recording
                    .calls
                    .iter_mut()
                    .find(|call| call.method == "eth_getLogs")
                    .expect("the recording's log query");
                call.result = logs.get("result").cloned();
                call.error = logs.get("error").cloned();
            },
            sources_at(&foreign),
        )
        .await;
        let (reply_status, headers, answer) = world.paid(false).await;
        assert_eq!(reply_status, status, "{answer}");
        assert!(!headers.contains_key("payment-response"));
        assert_eq!(answer["error"], error, "{answer}");
        assert_eq!(answer["charged"], false);
        assert!(
            answer["message"].as_str().is_some_and(|m| m.contains(says)),
            "{answer}"
        );
        // The lens call answered; the key was missing after it, so nothing more was read.
        assert_eq!(world.node_requests().await, 1, "{answer}");
    }
}
