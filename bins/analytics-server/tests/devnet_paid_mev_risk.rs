//! `/mev/risk` on the local chain, paid by the official x402 client (`@x402/fetch`) through
//! the local facilitator: a real assessment (with the history scan) is settled for exactly its
//! price (0.02 USDC = 20000 atomic); a chain node that is down or slower than the time budget
//! is 502 / 504 and never settled. Every test starts its own anvil with the committed state.

mod common;

use serde_json::{Value, json};
use test_devnet::PaidDevnet;

async fn world() -> PaidDevnet {
    PaidDevnet::spawn().await.expect("devnet")
}

/// Selling 10 WETH for USDC on the best direct pool, 1 % tolerance.
fn weth_to_usdc(world: &PaidDevnet) -> Value {
    let a = &world.chain.addresses;
    json!({
        "chain": "base",
        "token_in": a.token("WETH").expect("WETH").to_checksum(None),
        "token_out": a.token("USDC").expect("USDC").to_checksum(None),
        "amount_in": "10",
        "slippage_bps": 100,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_paid_assessment_is_settled_for_its_price() {
    let world = world().await;
    let call = common::devnet_paid_call(
        &world,
        &world.info.rpc_url,
        |_| {},
        "/mev/risk",
        weth_to_usdc(&world),
    )
    .await;
    call.assert_settled(20_000);
    let answer = &call.report["final"]["body"];
    // The chosen pool is a Uniswap V4 pool: its ticks take one more stage.
    assert_eq!(answer["rpc_round_trips"], 4, "{answer}");
    assert_eq!(answer["model_error_bps"], 0.0, "{answer}");
    assert_eq!(answer["pool"]["chosen_by"], "best_direct_quote");
    assert_eq!(answer["attacker"]["label"], "estimate");
    assert!(answer["attack_pays"].is_boolean(), "{answer}");
    assert_eq!(answer["public_mempool"]["exists"], false, "base");
    assert_eq!(answer["recent_sandwiches_on_pool"]["scanned"], true);
    assert!(
        answer["assumptions"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_chain_node_that_is_down_is_a_502_and_not_settled() {
    let world = world().await;
    common::assert_node_down_is_502(&world, |_| {}, "/mev/risk", weth_to_usdc(&world)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_node_slower_than_the_time_budget_is_a_504_and_not_settled() {
    let world = world().await;
    common::assert_slow_node_is_504(&world, |_| {}, "/mev/risk", weth_to_usdc(&world)).await;
}
