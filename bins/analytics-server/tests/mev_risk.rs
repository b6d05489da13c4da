//! `/mev/risk` end to end in process, paid, with the chain node replaced by wiremock replaying
//! recordings made on the committed devnet (`cargo run -p analytics-server --example
//! record_rpc`). Each whole answer is an insta snapshot.

mod common;

use axum::http::StatusCode;
use common::{World, atomic};
use serde_json::Value;

async fn answered(name: &str) -> (World, Value) {
    let world = World::replaying("/mev/risk", &format!("mev_risk_{name}")).await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    (world, answer)
}

/// What every answer must hold: the exact loss cap, the model equal to the quote, the label.
fn common_checks(answer: &Value) {
    let quoted = atomic(&answer["quoted_out"]);
    let min = atomic(&answer["amount_out_min"]);
    let bps = answer["slippage_bps"].as_u64().expect("bps");
    assert_eq!(
        min,
        quoted * alloy::primitives::U256::from(10_000 - bps)
            / alloy::primitives::U256::from(10_000u32)
    );
    assert_eq!(atomic(&answer["max_loss"]), quoted - min);
    assert_eq!(answer["model_error_bps"], 0.0);
    assert_eq!(answer["model_amount_out"], answer["quoted_out"]);
    assert_eq!(answer["attacker"]["label"], "estimate");
    assert_eq!(answer["attack_gas"]["transactions"], 2);
    // A Uniswap V4 pool's ticks take two reads (bitmap words, then the ticks): one stage more.
    let stages = if answer["pool"]["pool_type"] == "concentrated_liquidity_v4" {
        4
    } else {
        3
    };
    assert_eq!(answer["rpc_round_trips"], stages);
    assert!(answer["attack_pays"].is_boolean(), "{answer}");
    if answer["attack_pays"] == false {
        assert!(
            answer["attack_pays_sentence"]
                .as_str()
                .is_some_and(|s| s.starts_with("not profitable at this gas price")),
            "{answer}"
        );
    }
    assert!(
        answer["assumptions"]
            .as_array()
            .is_some_and(|a| a.len() >= 5)
    );
    assert_eq!(answer["public_mempool"]["exists"], false);
    assert!(answer["public_mempool"]["source"].is_string());
}

#[tokio::test]
async fn the_best_direct_pool_is_assessed_with_its_history() {
    let (world, answer) = answered("weth_usdc").await;
    common_checks(&answer);
    // The best direct quote is the hookless native ETH/USDC 0.05 % Uniswap V4 pool: four
    // stages (the second two requests at once; the tick words, then the ticks), the logs, one
    // block header and the three signers of the one block with three swaps.
    assert_eq!(world.node_requests().await, 10);
    assert_eq!(answer["pool"]["chosen_by"], "best_direct_quote");
    assert_eq!(answer["pool"]["pool_type"], "concentrated_liquidity_v4");
    let compared = answer["pool"]["direct_quotes_compared"]
        .as_array()
        .expect("quotes");
    assert!(compared.len() >= 3, "{compared:?}");
    assert_eq!(compared[0]["chosen"], true, "the best is first and chosen");
    assert!(answer["attacker"]["ticks_read"]["attack_stays_inside"] == true);
    let history = &answer["recent_sandwiches_on_pool"];
    assert_eq!(history["scanned"], true);
    // The devnet's V4 sandwich, found by its signers (the logs name PoolSwapTest).
    assert_eq!(history["count"], 1);
    assert_eq!(history["eth_get_logs_requests"], 1);
    assert_eq!(history["eth_get_transaction_requests"], 3);
    let tighter = answer["mitigations"]["tighter_tolerance"]
        .as_array()
        .expect("tol");
    assert_eq!(tighter.len(), 2, "10 and 25 bps below the caller's 100");
    assert!(atomic(&tighter[0]["max_loss"]) < atomic(&answer["max_loss"]));
    assert_eq!(
        answer["mitigations"]["split_order"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    insta::assert_json_snapshot!("mev_risk_weth_usdc", answer);
}

#[tokio::test]
async fn the_planted_v3_sandwich_is_in_the_named_pools_history() {
    let (_world, answer) = answered("v3_sandwiched_pool").await;
    common_checks(&answer);
    assert_eq!(answer["pool"]["chosen_by"], "route");
    let history = &answer["recent_sandwiches_on_pool"];
    assert_eq!(history["count"], 1);
    assert_eq!(history["matches"][0]["block"], 730);
    assert_eq!(history["matches"][0]["profit"]["atomic"], "4659137918");
    assert!(
        history["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("pattern matches"))
    );
    insta::assert_json_snapshot!("mev_risk_v3_sandwiched_pool", answer);
}

#[tokio::test]
async fn a_v2_pair_without_history_reads_no_logs() {
    let (world, answer) = answered("v2_no_history").await;
    common_checks(&answer);
    assert_eq!(
        world.node_requests().await,
        4,
        "three stages, no eth_getLogs"
    );
    assert_eq!(answer["pool"]["pool_type"], "constant_product");
    assert_eq!(answer["attacker"]["bound_method"], "closed_form");
    assert_eq!(answer["attacker"]["ticks_read"], Value::Null);
    assert_eq!(answer["recent_sandwiches_on_pool"]["scanned"], false);
    assert!(answer["recent_sandwiches_on_pool"]["skipped_reason"].is_string());
    insta::assert_json_snapshot!("mev_risk_v2_no_history", answer);
}

#[tokio::test]
async fn an_aerodrome_volatile_pool_is_exact() {
    let (_world, answer) = answered("aerodrome_volatile").await;
    common_checks(&answer);
    assert_eq!(answer["pool"]["pool_type"], "solidly");
    assert_eq!(answer["pool"]["stable"], false);
    insta::assert_json_snapshot!("mev_risk_aerodrome_volatile", answer);
}

#[tokio::test]
async fn a_route_that_is_not_a_pool_of_the_pair_is_422_and_not_settled() {
    let world = World::replaying("/mev/risk", "mev_risk_route_not_a_pool").await;
    let (status, _, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["error"], "unknown_pool", "{answer}");
    assert_eq!(answer["charged"], false);
}

/// The recorded node, answering `eth_getLogs` only after 3 s.
struct SlowLogs(common::Replay);

impl wiremock::Respond for SlowLogs {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        let answer = self.0.respond(request);
        if body["method"] == "eth_getLogs" {
            answer.set_delay(std::time::Duration::from_secs(3))
        } else {
            answer
        }
    }
}

#[tokio::test]
async fn a_history_scan_slower_than_half_the_budget_is_dropped_and_the_answer_paid() {
    let world = World::replaying_with("/mev/risk", "mev_risk_weth_usdc", |c| {
        c.time_budget_seconds = 2
    })
    .await;
    world.node.reset().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(SlowLogs(common::Replay(world.recording.clone())))
        .mount(&world.node)
        .await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    let history = &answer["recent_sandwiches_on_pool"];
    assert_eq!(history["scanned"], false);
    assert!(
        history["skipped_reason"]
            .as_str()
            .is_some_and(|r| r.contains("not read within 1 s")),
        "{history}"
    );
    assert_eq!(answer["model_error_bps"], 0.0);
}
