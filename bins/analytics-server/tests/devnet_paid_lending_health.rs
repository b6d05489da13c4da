//! `/lending/health` on the local chain, paid by the official x402 client (`@x402/fetch`)
//! through the local facilitator: a real answer is settled for exactly its price and its
//! health factor is the Pool's `getUserAccountData` at the answer's block; a chain node that is
//! down is answered 502 and never settled. Every test starts its own anvil with the committed
//! state.

mod common;

use alloy::eips::BlockId;
use alloy::providers::Provider;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use lending_v3::bindings::IPool;
use serde_json::{Value, json};
use test_devnet::PaidDevnet;

type World = PaidDevnet;

async fn world() -> World {
    PaidDevnet::spawn().await.expect("devnet")
}

fn body(world: &World, role: &str) -> Value {
    let wallet = world.chain.addresses.aave.borrowers[role].address;
    json!({"chain": "base", "protocol": "lending-v3", "wallet": wallet.to_checksum(None),
        "scenarios_pct": [-5, -10]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_paid_position_is_settled_and_its_health_factor_is_the_pools() {
    let world = world().await;
    let call = common::devnet_paid_call(
        &world,
        &world.info.rpc_url,
        |_| {},
        "/lending/health",
        body(&world, "stable_and_variable"),
    )
    .await;
    let report = &call.report;
    call.assert_settled(10000);

    let answer = &report["final"]["body"];
    assert_eq!(answer["rpc_round_trips"], 3);
    assert_eq!(
        answer["protocol_account_data"]["computed_values_match"],
        true
    );
    let block = answer["block_number"].as_u64().expect("block");
    let wallet = world.chain.addresses.aave.borrowers["stable_and_variable"].address;
    let raw = world
        .chain
        .provider
        .call(
            TransactionRequest::default()
                .to(world.chain.addresses.contracts.aave_v3.pool)
                .input(
                    IPool::getUserAccountDataCall { user: wallet }
                        .abi_encode()
                        .into(),
                ),
        )
        .block(BlockId::number(block))
        .await
        .expect("getUserAccountData");
    let account = IPool::getUserAccountDataCall::abi_decode_returns(&raw).expect("decode");
    assert_eq!(
        answer["health_factor"]["wad"],
        account.healthFactor.to_string(),
        "to the wei, at the answer's block"
    );
    assert_eq!(answer["scenarios"].as_array().map(Vec::len), Some(2));
    let wbtc = answer["positions"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["asset"]["symbol"] == "WBTC"))
        .expect("WBTC");
    assert!(
        wbtc["liquidation_price"]["oracle_units"].is_string(),
        "{wbtc}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_chain_node_that_is_down_is_a_502_and_not_settled() {
    let world = world().await;
    common::assert_node_down_is_502(&world, |_| {}, "/lending/health", body(&world, "healthy"))
        .await;
}
