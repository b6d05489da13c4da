//! Uniswap V4 on the committed devnet (v4-core 1.0.2 and v4-periphery 1.0.3 bytecode): every
//! pool's quote through the adapter equals what V4Quoter answered the builder at the final
//! block, to the wei, with StateView's state; WETH requests also reach the native-ETH pools;
//! the dust trap is quoted and never best; the hooked pool's output is its hook's.

#![allow(missing_docs)]

use alloy::primitives::{Address, U256};
use chain_read::DexId;
use chain_read::dex::{PoolKey, PoolState};
use dex_route::{Leg, QuoteOutcome, QuoteRequest, QuoteSource, quote};
use test_devnet::V4Pool;

mod common;

use common::Setup;

fn direct(setup: &Setup, token_in: Address, token_out: Address, amount_in: U256) -> QuoteRequest {
    QuoteRequest {
        include_multihop: false,
        ..QuoteRequest::new(setup.chain(), token_in, token_out, amount_in)
    }
}

/// The ERC-20 a currency stands for in requests: native ether is WETH.
fn erc20(setup: &Setup, currency: Address) -> Address {
    if currency.is_zero() {
        setup.token("WETH")
    } else {
        currency
    }
}

fn v4_leg<'o>(outcome: &'o QuoteOutcome, pool: &V4Pool) -> Option<&'o Leg> {
    outcome
        .routes
        .iter()
        .map(|route| &route.legs[0])
        .find(|leg| matches!(leg.pool.key, PoolKey::V4 { id, .. } if id == pool.pool_id))
}

fn parse(text: &str) -> U256 {
    text.parse().expect("a decimal amount")
}

#[tokio::test]
async fn devnet_every_v4_pool_quotes_equal_v4_quoter_and_state_equals_state_view() {
    let setup = Setup::load();
    let mut compared = 0;
    for pool in &setup.a().pools.uniswap_v4 {
        let at = &pool.at_final_block;
        for recorded in &at.quotes {
            let (sold, bought) = if recorded.zero_for_one {
                (pool.currency0_address, pool.currency1_address)
            } else {
                (pool.currency1_address, pool.currency0_address)
            };
            let request = direct(
                &setup,
                erc20(&setup, sold),
                erc20(&setup, bought),
                parse(&recorded.exact_amount),
            );
            let outcome = quote(&setup.reader(), setup.chain(), &request)
                .await
                .expect("quote");
            let name = &pool.name;
            let Some(expected) = recorded.amount_out.as_deref() else {
                assert!(v4_leg(&outcome, pool).is_none(), "{name}: no quote");
                continue;
            };
            let leg = v4_leg(&outcome, pool)
                .unwrap_or_else(|| panic!("{name}: a route through the pool"));
            assert_eq!(leg.pool.dex, DexId::UniswapV4);
            assert_eq!(leg.source, QuoteSource::V4Quoter, "{name}");
            assert_eq!(leg.amount_out, parse(expected), "{name} amount out");
            // The gas V4Quoter measures depends on which slots an earlier call of the same
            // batch warmed, so it is close to the builder's lone call, not equal.
            let gas = leg.gas_estimate.expect("V4Quoter's gas estimate");
            let lone = parse(recorded.gas_estimate.as_deref().expect("recorded gas"));
            assert!(
                gas * U256::from(2u8) > lone && gas < lone * U256::from(2u8),
                "{name} gas {gas} against {lone}"
            );
            let Some(PoolState::V4(state)) = leg.state else {
                panic!("{name}: state read");
            };
            assert_eq!(state.sqrt_price_x96, parse(&at.sqrt_price_x96), "{name}");
            assert_eq!(state.tick, at.tick, "{name}");
            assert_eq!(U256::from(state.liquidity), parse(&at.liquidity), "{name}");
            assert_eq!(state.lp_fee, at.lp_fee, "{name}");
            let PoolKey::V4 {
                fee,
                tick_spacing,
                hooks,
                native,
                ..
            } = leg.pool.key
            else {
                panic!("{name}: a V4 key");
            };
            assert_eq!(
                (fee, tick_spacing, hooks),
                (pool.fee, pool.tick_spacing, pool.hooks)
            );
            assert_eq!(native.is_some(), pool.currency0_address.is_zero(), "{name}");
            compared += 1;
        }
    }
    assert!(compared >= 36, "every recorded quote ({compared})");
}

#[tokio::test]
async fn devnet_weth_requests_reach_native_eth_pools_ranked_by_output() {
    let setup = Setup::load();
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let amount = U256::from(10u64).pow(U256::from(18u8));
    let outcome = quote(
        &setup.reader(),
        setup.chain(),
        &direct(&setup, weth, usdc, amount),
    )
    .await
    .expect("quote");
    let v4: Vec<&Leg> = outcome
        .routes
        .iter()
        .map(|r| &r.legs[0])
        .filter(|leg| leg.pool.dex == DexId::UniswapV4)
        .collect();
    let native =
        |leg: &Leg| matches!(leg.pool.key, PoolKey::V4 { native: Some(w), .. } if w == weth);
    assert_eq!(
        v4.iter().filter(|l| native(l)).count(),
        5,
        "five native-ETH pools"
    );
    assert_eq!(
        v4.iter().filter(|l| !native(l)).count(),
        2,
        "two WETH pools"
    );
    // Routes come ranked by output, whatever their fee tier or kind.
    let outs: Vec<U256> = outcome.routes.iter().map(|r| r.amount_out()).collect();
    assert!(outs.windows(2).all(|w| w[0] >= w[1]), "largest first");
}

#[tokio::test]
async fn devnet_the_dust_trap_is_quoted_and_never_best() {
    let setup = Setup::load();
    let a = setup.a();
    let trap = a
        .pools
        .uniswap_v4
        .iter()
        .find(|p| p.fee == 500_000)
        .expect("the 50 % dust pool");
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    for (token_in, token_out, amount) in [
        (weth, usdc, U256::from(10u64).pow(U256::from(15u8))),
        (usdc, weth, U256::from(1_000_000u64)),
    ] {
        let outcome = quote(
            &setup.reader(),
            setup.chain(),
            &direct(&setup, token_in, token_out, amount),
        )
        .await
        .expect("quote");
        let leg = v4_leg(&outcome, trap).expect("the trap is quoted");
        let best = outcome.routes[0].amount_out();
        assert!(
            leg.amount_out * U256::from(2u8) <= best,
            "half the input is its fee"
        );
        assert!(
            !matches!(
                outcome.routes[0].legs[0].pool.key,
                PoolKey::V4 { fee: 500_000, .. }
            ),
            "never the best route"
        );
    }
}

#[tokio::test]
async fn devnet_the_hooked_pool_is_quoted_with_its_hooks_fee() {
    let setup = Setup::load();
    let pools = &setup.a().pools.uniswap_v4;
    let by_role = |role: &str| {
        pools
            .iter()
            .find(|p| p.hook_role.as_deref() == Some(role))
            .unwrap_or_else(|| panic!("the {role} pool"))
    };
    let (dynamic, hooked) = (by_role("dynamic_fee"), by_role("fee_override"));
    // The same liquidity at the same price: only the fee differs. The hooked pool's stored LP
    // fee is 0, yet its hook charges 0.7 % on every swap, which V4Quoter's run includes.
    assert_eq!(hooked.at_final_block.lp_fee, 0);
    assert_eq!(dynamic.at_final_block.lp_fee, 2500);
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let amount = U256::from(10u64).pow(U256::from(18u8));
    let outcome = quote(
        &setup.reader(),
        setup.chain(),
        &direct(&setup, weth, usdc, amount),
    )
    .await
    .expect("quote");
    let (d, h) = (
        v4_leg(&outcome, dynamic).expect("dynamic pool quoted"),
        v4_leg(&outcome, hooked).expect("hooked pool quoted"),
    );
    assert!(h.amount_out < d.amount_out, "0.7 % takes more than 0.25 %");
    // Against the stored fee of 0 the hooked pool would pay more than the 0.25 % pool: the
    // quote is the hook's, not the state's.
    let ratio = |leg: &Leg| leg.amount_out * U256::from(1_000_000u32) / d.amount_out;
    assert!(ratio(h) < U256::from(996_000u32), "about 0.45 % less");
}
