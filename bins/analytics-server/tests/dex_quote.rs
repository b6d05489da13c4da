//! `/dex/quote` end to end in process, paid, with the chain node replaced by wiremock replaying
//! JSON-RPC recordings made on the committed devnet (`testdata/rpc-recordings/`, written by
//! `cargo xtask record-rpc`). Each whole answer is an insta snapshot; the facilitator is a
//! wiremock too, so the tests also see what is settled and what is not.

mod common;

use alloy::primitives::U256;
use axum::http::StatusCode;
use common::{World, atomic};
use serde_json::Value;

async fn replaying(name: &str) -> World {
    World::replaying("/dex/quote", &format!("dex_quote_{name}")).await
}

#[tokio::test]
async fn weth_to_usdc_is_quoted_on_every_pool_at_one_block() {
    let world = replaying("weth_usdc").await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    assert_eq!(world.node_requests().await, world.recording.http_requests);
    assert_eq!(answer["rpc_round_trips"], 1, "the quote lens");
    assert_eq!(answer["read_path"], "lens");
    assert_eq!(answer["block_number"], 855);

    let quotes = answer["quotes"].as_array().expect("quotes");
    assert_eq!(
        quotes.len(),
        13,
        "four V3 tiers, V2, Aerodrome volatile and seven V4 pools (five of them native ETH)"
    );
    let gross: Vec<U256> = quotes.iter().map(|q| atomic(&q["amount_out"])).collect();
    assert!(
        gross.windows(2).all(|w| w[0] >= w[1]),
        "largest gross first"
    );
    assert_eq!(answer["best_by_gross"], quotes[0]);
    // The best net route has the largest net output of all.
    let net = |q: &Value| {
        q["net_amount_out_estimate"]["atomic"]
            .as_str()
            .and_then(|a| a.parse::<i128>().ok())
            .expect("net")
    };
    let best_net = net(&answer["best_by_net"]);
    assert!(quotes.iter().all(|q| net(q) <= best_net));
    // amount_out_min is exactly the tolerance applied to the reference route.
    assert_eq!(answer["reference_route"], "best_by_net");
    let reference = atomic(&answer["best_by_net"]["amount_out"]);
    assert_eq!(
        atomic(&answer["amount_out_min"]),
        reference * U256::from(9_950u32) / U256::from(10_000u32)
    );
    // On the devnet the OP-stack oracle has no code: null, with the reason.
    assert_eq!(answer["l1_data_fee"], Value::Null);
    assert!(
        answer["l1_data_fee_null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("no code"))
    );
    assert_eq!(answer["gas_price_wei"], "1000000008");

    insta::assert_json_snapshot!("dex_quote_weth_usdc", answer);
}

#[tokio::test]
async fn wbtc_to_usdc_prices_two_hop_routes_in_one_round_trip() {
    let world = replaying("wbtc_usdc").await;
    let (status, _, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer["rpc_round_trips"], 1,
        "discovery, quotes and second legs in the lens"
    );
    assert_eq!(answer["read_path"], "lens");
    assert!(answer.get("lens_fallback_reason").is_none());
    assert_eq!(world.node_requests().await, 1);
    let quotes = answer["quotes"].as_array().expect("quotes");
    let two_hop: Vec<&Value> = quotes.iter().filter(|q| !q["via"].is_null()).collect();
    assert!(!two_hop.is_empty());
    for quote in &two_hop {
        let legs = quote["legs"].as_array().expect("legs");
        assert_eq!(legs.len(), 2);
        assert_eq!(legs[1]["amount_in"], legs[0]["amount_out"], "legs chain");
        assert_eq!(quote["amount_out"], legs[1]["amount_out"]);
    }
    insta::assert_json_snapshot!("dex_quote_wbtc_usdc", answer);
}

/// A node that refuses `eth_call` state overrides (the recording's proxy answered as geth
/// without them does): the lens costs one refused round trip, the ordinary three read the
/// answer, which says so; its routes and amounts are those the lens read.
#[tokio::test]
async fn a_node_without_state_overrides_is_read_by_the_batches_and_the_answer_says_so() {
    let world = replaying("wbtc_usdc_no_state_override").await;
    let (status, _, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["read_path"], "batches");
    assert_eq!(
        answer["lens_fallback_reason"],
        "the node did not run the read lens's eth_call with a state override (JSON-RPC error -32602: too many arguments, want at most 2)"
    );
    assert_eq!(
        answer["rpc_round_trips"], 4,
        "the refused lens, then three batches"
    );
    assert_eq!(world.node_requests().await, 4);

    let lens = replaying("wbtc_usdc").await;
    let (_, _, by_lens) = lens.paid(true).await;
    for field in [
        "quotes",
        "failures",
        "best_by_net",
        "best_by_gross",
        "amount_out_min",
    ] {
        assert_eq!(answer[field], by_lens[field], "{field}: the lens's own");
    }
    insta::assert_json_snapshot!("dex_quote_wbtc_usdc_no_state_override", answer);
}

#[tokio::test]
async fn a_pair_without_any_route_is_422_with_every_failure_and_not_settled() {
    let world = replaying("link_dai_no_route").await;
    let (status, _, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["error"], "no_route");
    assert_eq!(answer["charged"], false);
    let details = answer["details"].as_array().expect("details");
    for leg in ["direct", "first_leg", "second_leg"] {
        assert!(
            details
                .iter()
                .any(|d| d["field"].as_str().is_some_and(|f| f.contains(leg))),
            "{leg}"
        );
    }
    assert!(details.iter().any(|d| {
        d["field"]
            .as_str()
            .is_some_and(|f| f.starts_with("pancakeswap_v3"))
            && d["problem"] == "not deployed on this chain"
    }));
    insta::assert_json_snapshot!("dex_quote_link_dai_no_route", answer);
}

#[tokio::test]
async fn an_amount_finer_than_the_token_is_a_400_after_discovery_and_not_settled() {
    let world = replaying("usdc_too_precise").await;
    let (status, headers, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert!(!headers.contains_key("payment-response"));
    assert_eq!(answer["error"], "invalid_input");
    assert_eq!(answer["charged"], false);
    assert_eq!(answer["details"][0]["field"], "amount_in");
    assert_eq!(
        world.node_requests().await,
        1,
        "only the discovery round trip"
    );
    insta::assert_json_snapshot!("dex_quote_usdc_too_precise", answer);
}

#[tokio::test]
async fn native_ether_is_quoted_as_weth_and_said_so() {
    let world = replaying("eth_usdc").await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    assert_eq!(
        answer["token_in"]["address"], "0x4200000000000000000000000000000000000006",
        "quoted as WETH"
    );
    let quotes = answer["quotes"].as_array().expect("quotes");
    assert_eq!(quotes.len(), 13, "the WETH request's routes");
    assert!(
        answer["assumptions"]
            .as_array()
            .expect("assumptions")
            .iter()
            .any(|a| a
                .as_str()
                .is_some_and(|a| a.starts_with("token_in is native ether"))),
        "{}",
        answer["assumptions"]
    );
    insta::assert_json_snapshot!("dex_quote_eth_usdc", answer);
}
