//! `read_pool_liquidity` against the committed devnet, every read made through the lens and
//! checked equal to the ordinary batches' read: every exit amount equals what the
//! contracts answer at the read's block (QuoterV2, Router02, the Solidly pool's
//! `getAmountOut`) to the wei, the depth of every concentrated pool equals an independent sum
//! over its LP positions, the round trips are the ones claimed, unknown addresses are refused
//! and a later swap shows at the later block.

#![allow(missing_docs)]

use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::DexId;
use chain_read::dex::{PoolKey, PoolState};
use dex_route::liquidity::{
    ExitRow, LiquidityRequest, PoolLiquidity, PoolRef, read_pool_liquidity,
};
use dex_route::{QuoteSource, RouteError};
use test_devnet::bindings::{
    IErc20, INonfungiblePositionManager, IQuoterV2, IRouter02, ISolidlyPool, IUniswapV2Pair,
};

mod common;

use common::Setup;

/// The read through the lens, checked equal to the ordinary batches' read.
async fn read(setup: &Setup, pool: PoolRef) -> Result<PoolLiquidity, RouteError> {
    common::read_pool_both_ways(setup, &LiquidityRequest::new(pool)).await
}

fn quoted(rows: &[ExitRow]) -> impl Iterator<Item = (&ExitRow, &dex_route::liquidity::ExitQuote)> {
    rows.iter()
        .filter_map(|row| row.quote.as_ref().ok().map(|q| (row, q)))
}

#[tokio::test]
async fn devnet_every_v3_pool_exit_equals_quoter_v2_and_depth_equals_the_positions() {
    let setup = Setup::load();
    let quoter = setup.contract("uniswap_v3", "quoter_v2");
    let manager = setup.contract("uniswap_v3", "nonfungible_position_manager");
    let pools = setup.raw["pools"]["uniswap_v3"]
        .as_array()
        .expect("pools")
        .clone();
    assert!(pools.len() >= 13);
    let mut exits_checked = 0;
    for listed in &pools {
        let name = listed["name"].as_str().expect("name");
        let address: Address = listed["address"]
            .as_str()
            .expect("address")
            .parse()
            .expect("address");
        let answer = read(&setup, PoolRef::Address(address)).await.expect(name);
        assert_eq!(answer.pool.dex, DexId::UniswapV3, "{name}");
        assert!(
            answer.sequential_round_trips <= 2,
            "{name}: {}",
            answer.sequential_round_trips
        );
        let block = answer.block.number;
        let PoolState::Concentrated(state) = answer.state else {
            panic!("{name}: not concentrated");
        };
        let PoolKey::Concentrated { fee, .. } = answer.pool.key else {
            panic!("{name}: key");
        };

        // A size the pool cannot take: what the ticks read fill is what QuoterV2 gives with
        // the price limited to the edge of those ticks.
        let edges = answer
            .ticks
            .as_ref()
            .expect("ticks")
            .sqrt_price_edges()
            .expect("edges");
        for row in &answer.exits {
            if let Err(RouteError::CannotFill { fillable, .. }) = &row.quote {
                let (_, filled_out) = fillable.expect("the simulation over the ticks read tells");
                let zero_for_one = row.token_in < row.token_out;
                let amount_in = answer
                    .tokens
                    .iter()
                    .find(|t| t.metadata.address == row.token_in)
                    .and_then(|t| t.usd.as_ref().ok())
                    .expect("priced")
                    .amount_for(U256::from(row.size_usd) * U256::from(1_000_000u64))
                    .expect("amount");
                let params = IQuoterV2::QuoteExactInputSingleParams {
                    tokenIn: row.token_in,
                    tokenOut: row.token_out,
                    amountIn: amount_in,
                    fee: U24::from(fee),
                    sqrtPriceLimitX96: U160::from(if zero_for_one { edges.0 } else { edges.1 }),
                };
                let limited = setup
                    .call_at(
                        quoter,
                        &IQuoterV2::quoteExactInputSingleCall { params },
                        block,
                    )
                    .await;
                assert_eq!(
                    filled_out, limited.amountOut,
                    "{name} {} USD fillable",
                    row.size_usd
                );
                exits_checked += 1;
            } else if let Err(error) = &row.quote {
                panic!("{name} {} USD: {error}", row.size_usd);
            }
        }
        // Exits: QuoterV2 at the same block, both directions, every size that has a price.
        for (row, quote) in quoted(&answer.exits) {
            let params = IQuoterV2::QuoteExactInputSingleParams {
                tokenIn: row.token_in,
                tokenOut: row.token_out,
                amountIn: quote.amount_in,
                fee: U24::from(fee),
                sqrtPriceLimitX96: U160::ZERO,
            };
            let expected = setup
                .call_at(
                    quoter,
                    &IQuoterV2::quoteExactInputSingleCall { params },
                    block,
                )
                .await;
            assert_eq!(
                quote.amount_out, expected.amountOut,
                "{name} {} USD",
                row.size_usd
            );
            assert_eq!(
                quote.sqrt_price_x96_after,
                Some(U256::from(expected.sqrtPriceX96After)),
                "{name}"
            );
            assert_eq!(
                quote.initialized_ticks_crossed,
                Some(expected.initializedTicksCrossed),
                "{name}"
            );
            assert_eq!(quote.source, QuoteSource::QuoterV2);
            exits_checked += 1;
        }

        // Depth: the same bands summed position by position from the position manager.
        let bands = answer.depth.as_ref().expect("depth");
        let positions = listed["positions"].as_array().expect("positions");
        let mut per_position = Vec::new();
        for position in positions {
            let id = U256::from(position["token_id"].as_u64().expect("id"));
            let read = setup
                .call_at(
                    manager,
                    &INonfungiblePositionManager::positionsCall { tokenId: id },
                    block,
                )
                .await;
            per_position.push((
                i32::try_from(read.tickLower).expect("tick"),
                i32::try_from(read.tickUpper).expect("tick"),
                read.liquidity,
            ));
        }
        common::assert_depth_equals_positions(name, bands, state.sqrt_price_x96, &per_position);
        let coverage = answer.ticks.as_ref().expect("ticks read");
        assert!(coverage.initialized_ticks > 0, "{name}");
    }
    assert!(exits_checked >= 13 * 8, "{exits_checked} exits checked");
}

/// The same exits and depth: every quoted exit to the wei, and for a size the pool cannot
/// take what the ticks read fill (the quoter's failure may be worded differently: the lens's
/// call has more gas than anvil's 30 M per `eth_call`, so QuoterV2 reports the end of the
/// tick range where a Multicall3 batch runs out of gas).
fn assert_same_figures(name: &str, a: &PoolLiquidity, b: &PoolLiquidity) {
    assert_eq!(a.depth, b.depth, "{name}: depth");
    assert_eq!(a.exits.len(), b.exits.len(), "{name}");
    for (row, other) in a.exits.iter().zip(&b.exits) {
        match (&row.quote, &other.quote) {
            (Ok(x), Ok(y)) => assert_eq!(x, y, "{name}"),
            (
                Err(RouteError::CannotFill { fillable: x, .. }),
                Err(RouteError::CannotFill { fillable: y, .. }),
            ) => assert_eq!(x, y, "{name}: what the ticks read fill"),
            (x, y) => panic!("{name} {} USD: {x:?} against {y:?}", row.size_usd),
        }
    }
}

/// Without a TickLens the words are `tickBitmap` words and the ticks they mark one more round
/// trip of the ordinary path: through the lens both are the second lens call (the per-bit
/// expansion), still two round trips, and the figures equal the ordinary batches' and the
/// TickLens read's.
#[tokio::test]
async fn devnet_without_a_tick_lens_the_marked_ticks_ride_the_second_lens_call() {
    use dex_route::liquidity::{ReadPath, TickSource, read_pool_liquidity_batches};
    let with_lens = Setup::load();
    let without = Setup::load().without_tick_lens();
    let pools = with_lens.raw["pools"]["uniswap_v3"]
        .as_array()
        .expect("pools")
        .clone();
    for listed in &pools {
        let name = listed["name"].as_str().expect("name");
        let address: Address = listed["address"]
            .as_str()
            .expect("address")
            .parse()
            .expect("address");
        let request = LiquidityRequest::new(PoolRef::Address(address));
        let bitmap = read_pool_liquidity(without.chain(), &without.reader(), &request)
            .await
            .expect(name);
        assert_eq!(bitmap.read_path, ReadPath::Lens, "{name}");
        assert_eq!(bitmap.sequential_round_trips, 2, "{name}");
        let coverage = bitmap.ticks.as_ref().expect("ticks read");
        assert_eq!(coverage.source, TickSource::Bitmap, "{name}");
        let batches = read_pool_liquidity_batches(without.chain(), &without.reader(), &request)
            .await
            .expect(name);
        assert_eq!(batches.ticks, bitmap.ticks, "{name}");
        assert_same_figures(name, &bitmap, &batches);
        let ticklens = read(&with_lens, PoolRef::Address(address))
            .await
            .expect(name);
        assert_same_figures(name, &bitmap, &ticklens);
        assert_eq!(
            coverage.initialized_ticks,
            ticklens.ticks.as_ref().expect("ticks").initialized_ticks,
            "{name}"
        );
    }
}

#[tokio::test]
async fn devnet_every_v2_and_aerodrome_exit_equals_the_contracts() {
    let setup = Setup::load();
    let router = setup.contract("uniswap_v2", "router02");
    let mut checked = 0;
    for (group, dex) in [
        ("uniswap_v2", DexId::UniswapV2),
        ("aerodrome", DexId::Aerodrome),
    ] {
        for listed in setup.raw["pools"][group].as_array().expect("pools") {
            let name = listed["name"].as_str().expect("name");
            let address: Address = listed["address"]
                .as_str()
                .expect("address")
                .parse()
                .expect("address");
            let answer = read(&setup, PoolRef::Address(address)).await.expect(name);
            assert_eq!(answer.pool.dex, dex, "{name}");
            assert_eq!(answer.sequential_round_trips, 1, "{name}");
            let block = answer.block.number;
            for (row, quote) in quoted(&answer.exits) {
                let expected = match dex {
                    DexId::UniswapV2 => {
                        let amounts = setup
                            .call_at(
                                router,
                                &IRouter02::getAmountsOutCall {
                                    amountIn: quote.amount_in,
                                    path: vec![row.token_in, row.token_out],
                                },
                                block,
                            )
                            .await;
                        amounts[1]
                    }
                    _ => {
                        setup
                            .call_at(
                                address,
                                &ISolidlyPool::getAmountOutCall {
                                    amountIn: quote.amount_in,
                                    tokenIn: row.token_in,
                                },
                                block,
                            )
                            .await
                    }
                };
                assert_eq!(quote.amount_out, expected, "{name} {} USD", row.size_usd);
                checked += 1;
            }
            let bands = answer.depth.as_ref().expect("depth");
            assert_eq!(bands.len(), 3, "{name}");
            assert!(
                bands
                    .windows(2)
                    .all(|w| w[0].upper_token0 <= w[1].upper_token0
                        && w[0].lower_token1 <= w[1].lower_token1),
                "{name}: wider bands hold more"
            );
        }
    }
    assert!(checked >= 8 * 8, "{checked} exits checked");
}

#[tokio::test]
async fn devnet_a_pair_request_compares_the_tiers_and_picks_the_deepest() {
    let setup = Setup::load();
    let (weth, usdc) = (
        setup.a().token("WETH").expect("WETH"),
        setup.a().token("USDC").expect("USDC"),
    );
    let answer = read(
        &setup,
        PoolRef::Pair {
            dex: DexId::UniswapV3,
            token_a: usdc,
            token_b: weth,
            fee_tier_ppm: None,
        },
    )
    .await
    .expect("read");
    assert!(answer.sequential_round_trips <= 2);
    assert_eq!(answer.compared.len(), 4, "four WETH/USDC tiers");
    let best = answer
        .compared
        .iter()
        .filter_map(|c| {
            c.value_in_token1
                .as_ref()
                .ok()
                .map(|v| (c.pool.address, *v))
        })
        .max_by_key(|(_, v)| *v)
        .expect("valued");
    assert_eq!(answer.pool.address, best.0);
    assert!(answer.depth.is_ok());
    // Every size is priced: WETH/USDC has a USDC side.
    assert!(
        answer.exits.iter().all(|row| row.quote.is_ok()),
        "{:?}",
        answer.exits
    );

    // A named tier is that pool.
    let tier = read(
        &setup,
        PoolRef::Pair {
            dex: DexId::UniswapV3,
            token_a: weth,
            token_b: usdc,
            fee_tier_ppm: Some(3000),
        },
    )
    .await
    .expect("read");
    assert!(tier.compared.is_empty());
    assert!(matches!(
        tier.pool.key,
        PoolKey::Concentrated { fee: 3000, .. }
    ));

    // WETH/WBTC has no USDC side: WBTC is priced through WETH and the reference pool.
    let wbtc = setup.a().token("WBTC").expect("WBTC");
    let cross = read(
        &setup,
        PoolRef::Pair {
            dex: DexId::UniswapV3,
            token_a: weth,
            token_b: wbtc,
            fee_tier_ppm: Some(500),
        },
    )
    .await
    .expect("read");
    let wbtc_token = cross
        .tokens
        .iter()
        .find(|t| t.metadata.address == wbtc)
        .expect("wbtc");
    assert!(matches!(
        wbtc_token.usd.as_ref().expect("priced").route,
        dex_route::liquidity::UsdRoute::ThisPoolThenReference { .. }
    ));
}

#[tokio::test]
async fn devnet_addresses_that_are_not_pools_of_a_known_factory_are_refused() {
    let setup = Setup::load();
    let usdc = setup.a().token("USDC").expect("USDC");
    for address in [
        usdc,
        setup.a().payment_rail.payer_address,
        Address::with_last_byte(0x99),
    ] {
        let error = read(&setup, PoolRef::Address(address))
            .await
            .expect_err("not a pool");
        assert!(
            matches!(error, RouteError::UnknownPool { .. }),
            "{address}: {error}"
        );
    }
    // The DEX holds no such pool.
    let error = read(
        &setup,
        PoolRef::Pair {
            dex: DexId::UniswapV3,
            token_a: usdc,
            token_b: setup.a().token("LINK").expect("LINK"),
            fee_tier_ppm: None,
        },
    )
    .await
    .expect_err("no pool");
    assert!(matches!(error, RouteError::NoPoolForPair { .. }), "{error}");
}

#[tokio::test]
async fn devnet_a_swap_after_the_block_shows_at_the_next_block() {
    let setup = Setup::load();
    let pair: Address = setup.raw["pools"]["uniswap_v2"][0]["address"]
        .as_str()
        .expect("address")
        .parse()
        .expect("address");
    let before = read(&setup, PoolRef::Address(pair)).await.expect("read");
    let snapshot = setup.devnet.snapshot().await.expect("snapshot");
    // Donate USDC to the pair and sync: the reserves move in a new block.
    let provider = &setup.devnet.provider;
    let payer = setup.a().payment_rail.payer_address;
    let _: () = provider
        .raw_request("anvil_impersonateAccount".into(), (payer,))
        .await
        .expect("impersonate");
    let _: () = provider
        .raw_request(
            "anvil_setBalance".into(),
            (payer, U256::from(10u64).pow(U256::from(18))),
        )
        .await
        .expect("gas money");
    let usdc = setup.a().token("USDC").expect("USDC");
    for (to, input) in [
        (
            usdc,
            IErc20::transferCall {
                to: pair,
                value: U256::from(50_000_000u64),
            }
            .abi_encode(),
        ),
        (pair, IUniswapV2Pair::syncCall {}.abi_encode()),
    ] {
        let receipt = provider
            .send_transaction(
                TransactionRequest::default()
                    .from(payer)
                    .to(to)
                    .input(input.into()),
            )
            .await
            .expect("send")
            .get_receipt()
            .await
            .expect("receipt");
        assert!(receipt.status());
    }
    let after = read(&setup, PoolRef::Address(pair)).await.expect("read");
    setup.devnet.revert(snapshot).await.expect("revert");
    assert!(after.block.number > before.block.number);
    assert_ne!(after.state, before.state);
    assert_ne!(
        after.exits[0].quote.as_ref().map(|q| q.amount_out).ok(),
        before.exits[0].quote.as_ref().map(|q| q.amount_out).ok()
    );
}
