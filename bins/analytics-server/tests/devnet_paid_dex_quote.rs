//! `/dex/quote` on the local chain, paid by the official x402 client (`@x402/fetch`) through
//! the local facilitator: a real quote is settled for exactly its price; a chain node that is
//! down and a node too slow for the time budget are answered 502 and 504 and never settled.
//! Every test starts its own anvil with the committed state.

mod common;

use alloy::eips::BlockId;
use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, U256};
use alloy::providers::Provider;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::bindings::IQuoterV2;
use serde_json::{Value, json};
use test_devnet::PaidDevnet;

type World = PaidDevnet;

async fn world() -> World {
    PaidDevnet::spawn().await.expect("devnet")
}

fn token(world: &World, symbol: &str) -> Address {
    world.chain.addresses.token(symbol).expect("token")
}

fn weth_usdc(world: &World) -> Value {
    json!({"chain": "base", "token_in": token(world, "WETH").to_checksum(None),
        "token_out": token(world, "USDC").to_checksum(None), "amount_in": "1.5"})
}

fn atomic(amount: &Value) -> U256 {
    amount["atomic"]
        .as_str()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("atomic amount in {amount}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_paid_quote_is_settled_and_its_best_v3_quote_equals_quoter_v2() {
    let world = world().await;
    let call = common::devnet_paid_call(
        &world,
        &world.info.rpc_url,
        |_| {},
        "/dex/quote",
        weth_usdc(&world),
    )
    .await;
    let report = &call.report;
    call.assert_settled(5000);

    let answer = &report["final"]["body"];
    let block = answer["block_number"].as_u64().expect("block");
    assert!(answer["rpc_round_trips"].as_u64().is_some_and(|n| n <= 3));
    let best_v3 = answer["quotes"]
        .as_array()
        .expect("quotes")
        .iter()
        .filter(|q| q["legs"].as_array().is_some_and(|l| l.len() == 1))
        .find(|q| q["legs"][0]["dex"] == "uniswap_v3")
        .expect("a direct Uniswap V3 quote");
    let leg = &best_v3["legs"][0];
    let call = IQuoterV2::quoteExactInputSingleCall {
        params: IQuoterV2::QuoteExactInputSingleParams {
            tokenIn: token(&world, "WETH"),
            tokenOut: token(&world, "USDC"),
            amountIn: U256::from(1_500_000_000_000_000_000u128),
            fee: U24::from(leg["fee_tier_ppm"].as_u64().expect("tier") as u16),
            sqrtPriceLimitX96: U160::ZERO,
        },
    };
    let quoter = world.chain.addresses.contracts.uniswap_v3.quoter_v2;
    let raw = world
        .chain
        .provider
        .call(
            TransactionRequest::default()
                .to(quoter)
                .input(call.abi_encode().into()),
        )
        .block(BlockId::number(block))
        .await
        .expect("QuoterV2");
    let direct = IQuoterV2::quoteExactInputSingleCall::abi_decode_returns(&raw).expect("decode");
    assert_eq!(
        atomic(&best_v3["amount_out"]),
        direct.amountOut,
        "to the wei"
    );
    assert_eq!(
        leg["quoter_gas_estimate"].as_u64(),
        u64::try_from(direct.gasEstimate).ok()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_chain_node_that_is_down_is_a_502_and_not_settled() {
    let world = world().await;
    common::assert_node_down_is_502(&world, |_| {}, "/dex/quote", weth_usdc(&world)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_node_slower_than_the_time_budget_is_a_504_and_not_settled() {
    let world = world().await;
    common::assert_slow_node_is_504(&world, |_| {}, "/dex/quote", weth_usdc(&world)).await;
}
