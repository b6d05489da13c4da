//! The V3 swap simulator on a real pool state (the devnet's WETH/USDC 0.05 % pool, every
//! initialized tick read through `tickBitmap` and TickLens), side by side with the
//! `uniswap-v3-sdk` crate's `v3_swap` on the same state. Before timing, both are checked
//! against QuoterV2 at the same block: a benchmark of a wrong answer is worthless.
//!
//! Run with `cargo xtask bench` (or `cargo bench -p dex-math --bench v3_swap`); needs the
//! npm-installed anvil.

#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::future::IntoFuture as _;
use std::hint::black_box;

use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, I256, U256};
use alloy::sol_types::SolCall;
use criterion::{Criterion, criterion_group, criterion_main};
use dex_math::{MAX_TICK, MIN_TICK, PoolState, ValidPoolState, simulate_swap};
use test_devnet::Devnet;
use test_devnet::bindings::{IMulticall3, IQuoterV2, ITickLens, IUniswapV3Pool};
use uniswap_v3_sdk::prelude::{Tick, TickListDataProvider, v3_swap};

/// The pool as both implementations need it.
struct Fixture {
    ours: PoolState,
    /// The same state validated once, as a caller running many swaps holds it.
    ours_valid: ValidPoolState,
    theirs: TickListDataProvider,
    token0: Address,
    token1: Address,
    /// Exact-input sizes of token0 (WETH): one that stays in range, one that crosses ticks.
    small: U256,
    large: U256,
}

async fn fixture() -> (Fixture, Devnet) {
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let a = &devnet.addresses;
    let pool = a
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("WETH/USDC/500 in addresses.json");
    let provider = &devnet.provider;
    let contract = IUniswapV3Pool::new(pool.address, provider);
    let slot0 = contract.slot0().call().await.expect("slot0");
    let liquidity = contract.liquidity().call().await.expect("liquidity");
    let fee = contract.fee().call().await.expect("fee").to::<u32>();
    let spacing = contract
        .tickSpacing()
        .call()
        .await
        .expect("spacing")
        .as_i32();
    let words: Vec<i16> = ((MIN_TICK.div_euclid(spacing) >> 8)
        ..=(MAX_TICK.div_euclid(spacing) >> 8))
        .map(|w| i16::try_from(w).expect("word"))
        .collect();
    let calls = words
        .iter()
        .map(|&word| IMulticall3::Call3 {
            target: pool.address,
            allowFailure: false,
            callData: IUniswapV3Pool::tickBitmapCall { wordPosition: word }
                .abi_encode()
                .into(),
        })
        .collect();
    let bitmaps = IMulticall3::new(a.contracts.multicall3, provider)
        .aggregate3(calls)
        .call()
        .await
        .expect("bitmaps");
    let lens = ITickLens::new(a.contracts.uniswap_v3.tick_lens, provider);
    let mut net = BTreeMap::new();
    let mut sdk_ticks = Vec::new();
    for (&word, bitmap) in words.iter().zip(bitmaps) {
        let bitmap = IUniswapV3Pool::tickBitmapCall::abi_decode_returns(&bitmap.returnData)
            .expect("uint256");
        if bitmap.is_zero() {
            continue;
        }
        for tick in lens
            .getPopulatedTicksInWord(pool.address, word)
            .call()
            .await
            .expect("TickLens")
        {
            net.insert(tick.tick.as_i32(), tick.liquidityNet);
            sdk_ticks.push(Tick::new(
                tick.tick.as_i32(),
                tick.liquidityGross,
                tick.liquidityNet,
            ));
        }
    }
    sdk_ticks.sort_by_key(|t| t.index);
    let ours = PoolState {
        sqrt_price_x96: U256::from(slot0.sqrtPriceX96),
        tick: slot0.tick.as_i32(),
        liquidity,
        fee_pips: fee,
        tick_spacing: spacing,
        ticks: net,
    };
    let fixture = Fixture {
        ours_valid: ValidPoolState::new(ours.clone()).expect("a valid pool state"),
        ours,
        theirs: TickListDataProvider::new(sdk_ticks, spacing),
        token0: pool.token0_address,
        token1: pool.token1_address,
        small: U256::from(10u64).pow(U256::from(18)),
        // The size addresses.json records as crossing three initialized ticks.
        large: U256::from(333_333_333_333_333_314_386u128),
    };
    (fixture, devnet)
}

fn ours(f: &Fixture, amount: U256) -> U256 {
    let swap = f
        .ours_valid
        .simulate_swap(true, I256::from_raw(amount), None)
        .expect("simulates");
    swap.amount_out(true)
}

/// The free function, which validates the state (a walk over its ticks) on every call.
fn ours_revalidating(f: &Fixture, amount: U256) -> U256 {
    let swap = simulate_swap(&f.ours, true, I256::from_raw(amount), None).expect("simulates");
    swap.amount_out(true)
}

async fn theirs(f: &Fixture, amount: U256) -> U256 {
    let state = v3_swap(
        U24::from(f.ours.fee_pips),
        U160::from(f.ours.sqrt_price_x96),
        f.ours.tick,
        f.ours.liquidity,
        f.ours.tick_spacing,
        &f.theirs,
        true,
        I256::from_raw(amount),
        None,
    )
    .await
    .expect("sdk simulates");
    state.amount_calculated.unsigned_abs()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (fixture, devnet) = runtime.block_on(fixture());
    // Both implementations must equal QuoterV2 at this block before anything is timed.
    for (label, amount) in [("small", fixture.small), ("large", fixture.large)] {
        let quoter = IQuoterV2::new(
            devnet.addresses.contracts.uniswap_v3.quoter_v2,
            &devnet.provider,
        );
        let quoted = runtime
            .block_on(
                quoter
                    .quoteExactInputSingle(IQuoterV2::QuoteExactInputSingleParams {
                        tokenIn: fixture.token0,
                        tokenOut: fixture.token1,
                        amountIn: amount,
                        fee: U24::from(fixture.ours.fee_pips),
                        sqrtPriceLimitX96: U160::ZERO,
                    })
                    .call()
                    .into_future(),
            )
            .expect("QuoterV2");
        assert_eq!(
            ours(&fixture, amount),
            quoted.amountOut,
            "dex-math, {label}"
        );
        assert_eq!(
            ours_revalidating(&fixture, amount),
            quoted.amountOut,
            "dex-math re-validating, {label}"
        );
        assert_eq!(
            runtime.block_on(theirs(&fixture, amount)),
            quoted.amountOut,
            "uniswap-v3-sdk, {label}"
        );
        println!(
            "v3_swap {label}: {amount} wei WETH -> {} USDC atomic, {} initialized ticks crossed (QuoterV2, dex-math and uniswap-v3-sdk agree)",
            quoted.amountOut, quoted.initializedTicksCrossed
        );
    }

    let mut group = c.benchmark_group("v3_swap");
    for (label, amount) in [("in_range", fixture.small), ("three_ticks", fixture.large)] {
        group.bench_function(format!("dex_math/{label}"), |b| {
            b.iter(|| ours(black_box(&fixture), black_box(amount)))
        });
        group.bench_function(format!("dex_math_revalidating/{label}"), |b| {
            b.iter(|| ours_revalidating(black_box(&fixture), black_box(amount)))
        });
        // The SDK's swap is async (its tick provider may fetch); with ticks in memory the
        // future is ready at once, so polling it adds only the executor's few nanoseconds.
        group.bench_function(format!("uniswap_v3_sdk/{label}"), |b| {
            b.iter(|| futures::executor::block_on(theirs(black_box(&fixture), black_box(amount))))
        });
    }
    group.finish();
    drop(devnet);
}

criterion_group!(benches, bench);
criterion_main!(benches);
