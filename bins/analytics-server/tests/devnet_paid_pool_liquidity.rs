//! `/pool/liquidity` on the local chain, paid by the official x402 client (`@x402/fetch`)
//! through the local facilitator, with the foreign sources served by the devnet's stand-in
//! (`test_devnet::standin`, the providers' published formats): a real answer is settled for
//! exactly its price and carries the stand-in's volume; a stand-in that is down leaves the
//! volume null and the answer paid; a chain node that is down or too slow is 502 / 504 and
//! never settled. Every test starts its own anvil with the committed state.

mod common;

use oracle_sources::SourcesConfig;
use serde_json::{Value, json};
use test_devnet::PaidDevnet;
use test_devnet::paid::closed_loopback_url;
use test_devnet::standin::{Fault, StandIn};

async fn world() -> PaidDevnet {
    PaidDevnet::spawn().await.expect("devnet")
}

async fn standin(world: &PaidDevnet) -> StandIn {
    StandIn::spawn(&world.info.rpc_url, &world.chain.addresses)
        .await
        .expect("stand-in")
}

fn sources(standin: &StandIn) -> SourcesConfig {
    common::standin_sources(standin)
}

/// A paid read of the WETH/USDC 0.05 % pool, the foreign sources on `standin`.
async fn paid_with_standin(world: &PaidDevnet, standin: &StandIn) -> test_devnet::PaidCall {
    let config = sources(standin);
    common::devnet_paid_call(
        world,
        &world.info.rpc_url,
        |c| c.sources = config,
        "/pool/liquidity",
        weth_usdc_500(world),
    )
    .await
}

fn weth_usdc_500(world: &PaidDevnet) -> Value {
    let pool = world
        .chain
        .addresses
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("WETH/USDC/500");
    json!({"chain": "base", "pool": pool.address.to_checksum(None)})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_paid_pool_read_is_settled_with_the_stand_ins_volume() {
    let world = world().await;
    let standin = standin(&world).await;
    let call = paid_with_standin(&world, &standin).await;
    call.assert_settled(5000);
    let answer = &call.report["final"]["body"];
    // The read lens, then the TickLens words and the quotes.
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["read_path"], "lens");
    assert_eq!(answer["pool_type"], "concentrated_liquidity");
    assert_eq!(answer["volume_24h"]["source"], "GeckoTerminal");
    assert!(
        answer["volume_24h"]["usd"].is_string(),
        "{}",
        answer["volume_24h"]
    );
    // The stand-in serves the devnet's history as if it ended now, so the 168 hours ending
    // with the current hour hold its candles.
    assert!(
        answer["volume_7d"]["usd"].is_string(),
        "{}",
        answer["volume_7d"]
    );
    assert!(
        answer["volume_24h"]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with(standin.base_url())),
        "the figure names where it came from"
    );
    assert_eq!(
        answer["exit_impact"].as_array().map(Vec::len),
        Some(8),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_foreign_source_that_is_down_leaves_the_volume_null_and_the_answer_paid() {
    let world = world().await;
    let standin = standin(&world).await;
    standin.set_fault(Some(Fault::Down));
    let call = paid_with_standin(&world, &standin).await;
    call.assert_settled(5000);
    let answer = &call.report["final"]["body"];
    assert_eq!(answer["volume_24h"]["usd"], Value::Null);
    assert!(answer["volume_24h"]["null_reason"].is_string());
    assert_eq!(answer["volume_7d"]["usd"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_chain_node_that_is_down_is_a_502_and_not_settled() {
    let world = world().await;
    common::assert_node_down_is_502(&world, |_| {}, "/pool/liquidity", weth_usdc_500(&world)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_node_slower_than_the_time_budget_is_a_504_and_not_settled() {
    let world = world().await;
    // The foreign sources at a closed port: only the chain is slow.
    let closed = closed_loopback_url().expect("a free port");
    common::assert_slow_node_is_504(
        &world,
        |config| config.sources = SourcesConfig::all_at(&closed),
        "/pool/liquidity",
        weth_usdc_500(&world),
    )
    .await;
}
