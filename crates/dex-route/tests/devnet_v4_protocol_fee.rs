//! A Uniswap V4 pool with a protocol fee in `/mev/risk`'s exact maths, on the devnet's v4-core
//! 1.0.2 PoolManager: the owner names a protocol-fee controller, which sets a protocol fee on
//! the hookless WETH/USDC 500/10 pool. With the same fee both ways the sandwich model pays
//! V4Quoter's amount to the wei (the fee each step charges is ProtocolFeeLibrary's
//! combination of the protocol and LP fees), in both directions, and the quote is below the
//! one without the fee; with a fee that differs by direction each direction's swaps pay their
//! own, and the model pays V4Quoter's amount both ways.

#![allow(missing_docs)]

use alloy::primitives::aliases::U24;
use alloy::primitives::{Address, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::bindings::{IV4Quoter, V4PoolKey};
use chain_read::dex::PoolState;
use chain_read::{ChainClient, ClientOptions};
use dex_route::mev::{AssessRequest, HistoryOptions, NamedPool, assess};
use mev_sim::PoolModel;
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

    // Another fee the other way (0.04 % selling currency0, 0.03 % selling currency1): each
    // direction's swaps pay their own. In each direction the model pays V4Quoter's amount to
    // the wei, and it pays V4Quoter's amount the other way too (the back-run's direction,
    // for the victim's output sold back): both fees are in it.
    let per_direction = 400u32 | (300 << 12);
    send(
        &setup,
        manager,
        IV4PoolManager::setProtocolFeeCall {
            key: key.clone(),
            newProtocolFee: U24::from(per_direction),
        }
        .abi_encode(),
    )
    .await;
    let quoter = setup.contract("uniswap_v4", "v4_quoter");
    let v4_key = V4PoolKey {
        currency0: key.currency0,
        currency1: key.currency1,
        fee: key.fee,
        tickSpacing: key.tickSpacing,
        hooks: key.hooks,
    };
    for (token_in, token_out, amount) in sides {
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
        assert_eq!(state.protocol_fee, per_direction);
        assert_eq!(
            assessed.model_out, assessed.read.quote.amount_out,
            "{amount}: the model to the wei"
        );
        assert_eq!(assessed.model_error_bps, 0.0, "{amount}");
        let zero_for_one = token_in == key.currency0;
        // What a back-run sells: here the victim's whole output, sold back the other way.
        let back = assessed.read.quote.amount_out;
        assert!(back > U256::ZERO, "{amount}");
        let quoted_back = setup
            .call_at(
                quoter,
                &IV4Quoter::quoteExactInputSingleCall {
                    params: IV4Quoter::QuoteExactSingleParams {
                        poolKey: v4_key.clone(),
                        zeroForOne: !zero_for_one,
                        exactAmount: back.to::<u128>(),
                        hookData: Default::default(),
                    },
                },
                assessed.read.block.number,
            )
            .await
            .amountOut;
        let modelled_back = assessed
            .read
            .model
            .amount_out(back, !zero_for_one)
            .expect("the model swaps the other way");
        assert_eq!(
            modelled_back, quoted_back,
            "{amount}: the other direction's fee to the wei"
        );
        // With one fee for both directions (the victim's), the other way would not match.
        let PoolModel::Concentrated(one_fee) = &assessed.read.model else {
            panic!("a concentrated model");
        };
        let same_fee = PoolModel::Concentrated(
            dex_math::ValidPoolState::new(dex_math::PoolState {
                fee_pips: one_fee.fee_pips_for(zero_for_one),
                ..one_fee.to_state()
            })
            .expect("valid"),
        );
        assert_ne!(
            same_fee.amount_out(back, !zero_for_one).expect("swaps"),
            quoted_back,
            "{amount}: the test tells the fees apart"
        );
    }
}
