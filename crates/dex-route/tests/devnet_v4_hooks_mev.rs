//! Hooked Uniswap V4 pools in `/mev/risk`'s exact maths, on the devnet's v4-core 1.0.2: a
//! hook's permissions are the low 14 bits of its address (v4-core `Hooks.sol`), and the
//! PoolManager runs hook code in a swap only for beforeSwap, afterSwap and their return
//! deltas. The committed hooked pools (the dynamic-fee test hook and the fee-override hook,
//! both with beforeSwap) are refused with the permissions named; the same dynamic-fee test
//! hook's code placed at an address whose only permission is afterInitialize (it sets the
//! pool's LP fee once) gives a pool that is modelled to V4Quoter's wei both ways.

#![allow(missing_docs)]

use alloy::primitives::aliases::U24;
use alloy::primitives::{Address, U256, address};
use alloy::providers::Provider as _;
use alloy::sol_types::SolCall;
use chain_read::dex::PoolState;
use chain_read::dex::uniswap_v4::{DYNAMIC_FEE_FLAG, V4Shape, hook_flags, pool_id};
use chain_read::{Chain, ChainClient, ChainOverride, ClientOptions};
use dex_route::RouteError;
use dex_route::mev::{AssessError, AssessRequest, HistoryOptions, NamedPool, assess};
use test_devnet::bindings::IDynamicFeesTestHook;

mod common;

use common::Setup;
use common::v4_pools::{fund_positions, open_pool, send};

/// The dynamic-fee test hook's code at an address whose low 14 bits are afterInitialize alone.
const AFTER_INITIALIZE_ONLY: Address = address!("4444000000000000000000000000000000001000");

#[tokio::test]
async fn devnet_hooks_that_run_in_swaps_are_refused_and_others_are_modelled_exactly() {
    let mut setup = Setup::load();
    let client =
        ChainClient::new([&setup.devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let request = |id, token_in, token_out, amount: &str| AssessRequest {
        token_in,
        token_out,
        route: Some(NamedPool::V4(id)),
        amount_in: amount.to_owned(),
        slippage_bps: 50,
        scan_history: false,
    };
    let sides = [(weth, usdc, "1.5"), (usdc, weth, "4000")];

    let hooked: Vec<_> = setup
        .a()
        .pools
        .uniswap_v4
        .iter()
        .filter(|pool| !pool.hooks.is_zero())
        .cloned()
        .collect();
    assert_eq!(hooked.len(), 2);
    for pool in &hooked {
        assert_ne!(hook_flags::of(pool.hooks) & hook_flags::BEFORE_SWAP, 0);
        for (token_in, token_out, amount) in sides {
            let refused = assess(
                setup.chain(),
                &client,
                &request(pool.pool_id, token_in, token_out, amount),
                HistoryOptions::default(),
            )
            .await;
            assert!(
                matches!(&refused, Err(AssessError::Route(RouteError::HooksInSwap { hooks, flags })) if *hooks == pool.hooks && flags == "beforeSwap"),
                "{}: {refused:?}",
                pool.name
            );
        }
    }

    // The dynamic-fee test hook's code where only afterInitialize is allowed: it sets the
    // pool's LP fee when the pool is initialised, and runs nothing in a swap.
    let dynamic = hooked
        .iter()
        .find(|pool| pool.hook_role.as_deref() == Some("dynamic_fee"))
        .expect("the dynamic-fee hook")
        .hooks;
    let provider = setup.devnet.provider.clone();
    let code = provider.get_code_at(dynamic).await.expect("code");
    let _: () = provider
        .raw_request("anvil_setCode".into(), (AFTER_INITIALIZE_ONLY, code))
        .await
        .expect("setCode");
    let manager = setup.contract("uniswap_v4", "pool_manager");
    send(
        &setup,
        AFTER_INITIALIZE_ONLY,
        IDynamicFeesTestHook::setManagerCall { _manager: manager }.abi_encode(),
        U256::ZERO,
    )
    .await;
    send(
        &setup,
        AFTER_INITIALIZE_ONLY,
        IDynamicFeesTestHook::setFeeCall {
            _fee: U24::from(2_500u32),
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    fund_positions(&setup).await;
    let shape = V4Shape {
        fee: DYNAMIC_FEE_FLAG,
        tick_spacing: 60,
        hooks: AFTER_INITIALIZE_ONLY,
    };
    open_pool(&setup, shape, weth, usdc).await;
    let id = pool_id(&shape.key(weth, usdc));
    // Discovery probes the registry's shapes: this one is configured as an operator would.
    setup.registry = setup
        .registry
        .clone()
        .with_overrides(
            Chain::Base,
            ChainOverride {
                tokens: Default::default(),
                contracts: [(
                    "uniswap_v4".to_owned(),
                    [(
                        "shape_8388608_60_after_initialize".to_owned(),
                        AFTER_INITIALIZE_ONLY,
                    )]
                    .into(),
                )]
                .into(),
            },
        )
        .expect("the shape applies");
    for (token_in, token_out, amount) in sides {
        let assessed = assess(
            setup.chain(),
            &client,
            &request(id, token_in, token_out, amount),
            HistoryOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("{amount}: {e}"));
        let PoolState::V4(state) = assessed.read.state else {
            panic!("a V4 state");
        };
        assert_eq!(
            state.lp_fee, 2_500,
            "the fee the hook set at initialisation"
        );
        assert!(assessed.read.quote.amount_out > U256::ZERO);
        assert_eq!(
            assessed.model_out, assessed.read.quote.amount_out,
            "{amount}: the model is V4Quoter to the wei"
        );
        assert_eq!(assessed.model_error_bps, 0.0, "{amount}");
    }
}
