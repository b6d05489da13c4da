//! A Uniswap V4 pool with a protocol fee in `/mev/risk`'s exact maths, on the devnet's v4-core
//! 1.0.2 PoolManager: the owner names a protocol-fee controller, which sets a protocol fee on
//! the hookless WETH/USDC 500/10 pool. With the same fee both ways the sandwich model pays
//! V4Quoter's amount to the wei (the fee each step charges is ProtocolFeeLibrary's
//! combination of the protocol and LP fees), in both directions, and the quote is below the
//! one without the fee; with a fee that differs by direction the model is refused with the
//! reason.

#![allow(missing_docs)]

use alloy::primitives::Address;
use alloy::primitives::aliases::U24;
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::dex::PoolState;
use chain_read::{ChainClient, ClientOptions};
use dex_route::mev::{AssessRequest, HistoryOptions, NamedPool, assess};
use test_devnet::bindings::{DevnetV4PoolKey, IV4PoolManager};

mod common;

use common::Setup;

async fn send(setup: &Setup, to: Address, input: Vec<u8>) {
    let receipt = setup
        .devnet
        .provider
        .send_transaction(
            TransactionRequest::default()
                .from(setup.a().deployer.address)
                .to(to)
                .input(input.into()),
        )
        .await
        .expect("send")
        .get_receipt()
        .await
        .expect("receipt");
    assert!(receipt.status(), "transaction to {to} reverted");
}

#[tokio::test]
async fn devnet_a_protocol_fee_is_in_the_sandwich_models_exact_maths() {
    let setup = Setup::load();
    let pool = setup
        .a()
        .pools
        .uniswap_v4
        .iter()
        .find(|pool| pool.name == "WETH/USDC/500/10")
        .expect("the hookless WETH/USDC pool")
        .clone();
    let manager = setup.contract("uniswap_v4", "pool_manager");
    let deployer = setup.a().deployer.address;
    let client =
        ChainClient::new([&setup.devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let request = |token_in, token_out, amount: &str| AssessRequest {
        token_in,
        token_out,
        route: Some(NamedPool::V4(pool.pool_id)),
        amount_in: amount.to_owned(),
        slippage_bps: 50,
        scan_history: false,
    };
    let sides = [(weth, usdc, "1.5"), (usdc, weth, "4000")];
    let mut before = Vec::new();
    for (token_in, token_out, amount) in sides {
        let assessed = assess(
            setup.chain(),
            &client,
            &request(token_in, token_out, amount),
            HistoryOptions::default(),
        )
        .await
        .expect("assessed without a protocol fee");
        before.push(assessed.read.quote.amount_out);
    }

    // The owner (the deployer) names itself controller, then sets the fee.
    let key = DevnetV4PoolKey {
        currency0: pool.currency0_address,
        currency1: pool.currency1_address,
        fee: U24::from(pool.fee),
        tickSpacing: pool.tick_spacing.try_into().expect("int24"),
        hooks: pool.hooks,
    };
    send(
        &setup,
        manager,
        IV4PoolManager::setProtocolFeeControllerCall {
            controller: deployer,
        }
        .abi_encode(),
    )
    .await;
    // 0.04 % each way (two 12-bit halves; v4-core caps each at 0.1 %).
    let both_ways = 400u32 | (400 << 12);
    send(
        &setup,
        manager,
        IV4PoolManager::setProtocolFeeCall {
            key: key.clone(),
            newProtocolFee: U24::from(both_ways),
        }
        .abi_encode(),
    )
    .await;
    for ((token_in, token_out, amount), without) in sides.into_iter().zip(before) {
        let assessed = assess(
            setup.chain(),
            &client,
            &request(token_in, token_out, amount),
            HistoryOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("{amount}: {e}"));
        let PoolState::V4(state) = assessed.read.state else {
            panic!("a V4 state");
        };
        assert_eq!(state.protocol_fee, both_ways, "read from StateView's slot0");
        let quoted = assessed.read.quote.amount_out;
        assert!(
            quoted < without,
            "{amount}: the protocol fee is in V4Quoter's quote"
        );
        assert_eq!(assessed.model_out, quoted, "{amount}: the model to the wei");
        assert_eq!(assessed.model_error_bps, 0.0, "{amount}");
    }

    // Another fee the other way: one fee cannot hold both, and the model says so.
    send(
        &setup,
        manager,
        IV4PoolManager::setProtocolFeeCall {
            key,
            newProtocolFee: U24::from(400u32 | (300 << 12)),
        }
        .abi_encode(),
    )
    .await;
    let refused = assess(
        setup.chain(),
        &client,
        &request(weth, usdc, "1.5"),
        HistoryOptions::default(),
    )
    .await
    .expect_err("not modelled");
    assert!(
        refused
            .to_string()
            .contains("protocol fee differs by direction"),
        "{refused}"
    );
}
