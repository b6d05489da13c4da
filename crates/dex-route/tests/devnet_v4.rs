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

/// `/pool/liquidity` on every V4 pool by its PoolId: each exit's amount is V4Quoter's at the
/// read's block to the wei (its price after from the tick maths that pays the same), sizes
/// the pool cannot take are unfilled with what the ticks read take, a hooked pool whose hook
/// changes the swap keeps V4Quoter's amount but no price after, and the depth bands equal an
/// independent sum over the pool's positions.
#[tokio::test]
async fn devnet_every_v4_pool_read_exits_equal_v4_quoter_and_depth_equals_the_positions() {
    use alloy::providers::Provider as _;
    use chain_read::bindings::{IV4Quoter, V4PoolKey};
    use dex_route::RouteError;
    use dex_route::liquidity::{LiquidityRequest, PoolKeySource, PoolRef, TickSource};

    let setup = Setup::load();
    let quoter = setup.contract("uniswap_v4", "v4_quoter");
    let listed = setup.raw["pools"]["uniswap_v4"]
        .as_array()
        .expect("pools")
        .clone();
    let (mut exits_checked, mut unfilled, mut hooked_rows, mut bands_checked) = (0, 0, 0, 0);
    // Exits whose price after lies beyond the words read (the amount still V4Quoter's).
    let mut beyond = 0;
    for (index, pool) in setup.a().pools.uniswap_v4.iter().enumerate() {
        let name = &pool.name;
        // Every other pool by its PoolId alone: its key from its Initialize event (the devnet
        // registry has no index); the others with their pair, whose shapes hash to the id.
        let alone = index % 2 == 0;
        let request = LiquidityRequest::new(PoolRef::V4 {
            id: pool.pool_id,
            tokens: (!alone).then(|| {
                (
                    erc20(&setup, pool.currency0_address),
                    erc20(&setup, pool.currency1_address),
                )
            }),
        });
        let answer = common::read_pool_both_ways(&setup, &request)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            match answer.pool_key_source {
                Some(PoolKeySource::InitializeLog { from_block, .. }) => alone && from_block == 0,
                Some(PoolKeySource::KnownShape) => !alone,
                _ => false,
            },
            "{name}: {:?}",
            answer.pool_key_source
        );
        assert!(
            matches!(answer.pool.key, PoolKey::V4 { id, .. } if id == pool.pool_id),
            "{name}: the pool named"
        );
        // StateView's words and the exits, then the ticks they mark, in the second lens call.
        assert_eq!(answer.sequential_round_trips, 2, "{name}");
        for token in &answer.tokens {
            assert!(
                matches!(token.balance, Err(RouteError::NoOwnBalances { .. })),
                "{name}: no balances of its own"
            );
        }
        let PoolState::V4(state) = answer.state else {
            panic!("{name}: a V4 state");
        };
        let block = answer.block.number;
        let key = V4PoolKey {
            currency0: pool.currency0_address,
            currency1: pool.currency1_address,
            fee: alloy::primitives::aliases::U24::from(pool.fee),
            tickSpacing: alloy::primitives::aliases::I24::try_from(pool.tick_spacing)
                .expect("spacing"),
            hooks: pool.hooks,
        };
        let hooked = pool.hook_role.as_deref() == Some("fee_override");
        for row in &answer.exits {
            // Selling currency0: the token in is currency0's ERC-20.
            let zero_for_one = row.token_in == erc20(&setup, pool.currency0_address);
            let amount_in = answer
                .tokens
                .iter()
                .find(|t| t.metadata.address == row.token_in)
                .and_then(|t| t.usd.as_ref().ok())
                .map(|price| {
                    price
                        .amount_for(U256::from(row.size_usd) * U256::from(1_000_000u64))
                        .expect("amount")
                });
            let Some(amount_in) = amount_in else {
                continue;
            };
            let asked = IV4Quoter::quoteExactInputSingleCall {
                params: IV4Quoter::QuoteExactSingleParams {
                    poolKey: key.clone(),
                    zeroForOne: zero_for_one,
                    exactAmount: amount_in.to::<u128>(),
                    hookData: Default::default(),
                },
            };
            let expected = setup
                .devnet
                .provider
                .call(
                    alloy::rpc::types::TransactionRequest::default()
                        .to(quoter)
                        .input(alloy::sol_types::SolCall::abi_encode(&asked).into()),
                )
                .block(alloy::eips::BlockId::number(block))
                .await
                .ok()
                .map(|data| {
                    <IV4Quoter::quoteExactInputSingleCall as alloy::sol_types::SolCall>::abi_decode_returns(&data)
                        .expect("decode")
                        .amountOut
                });
            match (&row.quote, expected) {
                (Ok(quote), Some(expected)) => {
                    assert_eq!(quote.amount_in, amount_in, "{name}");
                    assert_eq!(quote.amount_out, expected, "{name} {} USD", row.size_usd);
                    assert_eq!(quote.source, QuoteSource::V4Quoter);
                    assert!(quote.filled);
                    match (&quote.mid_after, quote.sqrt_price_x96_after) {
                        (Ok(_), Some(after)) => {
                            assert!(!hooked, "{name}: its hook changes every swap");
                            assert!(
                                if zero_for_one {
                                    after < state.sqrt_price_x96
                                } else {
                                    after > state.sqrt_price_x96
                                },
                                "{name}: the price moves the trade's way"
                            );
                            exits_checked += 1;
                        }
                        (Err(RouteError::PriceAfterUnknown { why }), None) => {
                            if hooked {
                                assert!(why.contains("hooks"), "{name}: {why}");
                                hooked_rows += 1;
                            } else {
                                assert!(why.contains("ticks read"), "{name}: {why}");
                                // Sizes that move a devnet pool's price by more than the
                                // words read (7 words each side): the 1M USD exits of the
                                // shallow pools, any size of the dust trap.
                                assert!(
                                    row.size_usd >= 100_000 || name.contains("dust"),
                                    "{name} {} USD",
                                    row.size_usd
                                );
                                eprintln!(
                                    "{name} {} USD: price after beyond the ticks read",
                                    row.size_usd
                                );
                                beyond += 1;
                            }
                        }
                        other => panic!("{name}: {other:?}"),
                    }
                }
                (Err(RouteError::CannotFill { fillable, .. }), None) => {
                    let (fill_in, fill_out) = fillable.expect("the ticks read tell what they take");
                    assert!(fill_in < amount_in && !fill_out.is_zero(), "{name}");
                    unfilled += 1;
                }
                (quote, expected) => {
                    panic!(
                        "{name} {} USD: {quote:?} against V4Quoter {expected:?}",
                        row.size_usd
                    )
                }
            }
        }

        // Depth: the same bands summed position by position.
        let coverage = answer.ticks.as_ref().expect("ticks read");
        assert_eq!(coverage.source, TickSource::StateView, "{name}");
        assert!(coverage.initialized_ticks > 0, "{name}");
        let bands = answer.depth.as_ref().expect("depth");
        let raw = listed
            .iter()
            .find(|p| p["name"].as_str() == Some(name))
            .expect("listed");
        let positions: Vec<(i32, i32, u128)> = raw["positions"]
            .as_array()
            .expect("positions")
            .iter()
            .map(|p| {
                (
                    i32::try_from(p["tick_lower"].as_i64().expect("tick")).expect("tick"),
                    i32::try_from(p["tick_upper"].as_i64().expect("tick")).expect("tick"),
                    p["liquidity"].as_str().expect("L").parse().expect("L"),
                )
            })
            .collect();
        common::assert_depth_equals_positions(name, bands, state.sqrt_price_x96, &positions);
        bands_checked += bands.len();
    }
    assert!(
        exits_checked >= 40,
        "{exits_checked} exits equal V4Quoter with their price after ({beyond} beyond the ticks read)"
    );
    eprintln!(
        "{exits_checked} exits with their price after, {beyond} beyond the ticks read, {hooked_rows} hooked, {unfilled} unfilled"
    );
    assert!(hooked_rows > 0, "the hooked pool's rows");
    assert_eq!(bands_checked, 27, "three bands of nine pools");
}

/// By pair, with no fee tier: the deepest V4 pool by in-range liquidity's value is chosen,
/// never the dust trap, among the pools against WETH and against native ether.
#[tokio::test]
async fn devnet_a_v4_pair_read_picks_the_deepest_pool_never_the_dust_trap() {
    use dex_route::liquidity::{LiquidityRequest, PoolRef};

    let setup = Setup::load();
    let request = LiquidityRequest::new(PoolRef::Pair {
        dex: DexId::UniswapV4,
        token_a: setup.token("USDC"),
        token_b: setup.token("WETH"),
        fee_tier_ppm: None,
    });
    let answer = common::read_pool_both_ways(&setup, &request)
        .await
        .expect("read");
    let dust = setup
        .a()
        .pools
        .uniswap_v4
        .iter()
        .find(|p| p.name.contains("dust-trap"))
        .expect("the dust trap");
    assert!(answer.compared.len() >= 6, "{}", answer.compared.len());
    assert!(
        answer
            .compared
            .iter()
            .any(|c| matches!(c.pool.key, PoolKey::V4 { id, .. } if id == dust.pool_id)),
        "the dust trap is compared"
    );
    let best = answer
        .compared
        .iter()
        .filter_map(|c| c.value_in_token1.as_ref().ok().map(|v| (c, *v)))
        .max_by_key(|(_, v)| *v)
        .expect("a value");
    assert_eq!(best.0.pool, answer.pool, "the largest value is read");
    assert!(
        !matches!(answer.pool.key, PoolKey::V4 { id, .. } if id == dust.pool_id),
        "never the dust trap"
    );
    // The deepest by in-range liquidity is the native ETH/USDC 0.05 % pool on the devnet.
    let deepest = setup
        .a()
        .pools
        .uniswap_v4
        .iter()
        .filter(|p| p.currency1 == "USDC")
        .max_by_key(|p| {
            parse(&p.at_final_block.liquidity) * parse(&p.at_final_block.sqrt_price_x96)
        })
        .expect("pools");
    assert!(
        matches!(answer.pool.key, PoolKey::V4 { id, .. } if id == deepest.pool_id),
        "{} chosen",
        deepest.name
    );
}

/// A request naming native ether (the zero address) is quoted as WETH: the same routes and
/// amounts as the WETH request, through the WETH pools and the V4 pools against native ether,
/// either side of the pair.
#[tokio::test]
async fn devnet_native_ether_requests_are_quoted_as_weth_on_weth_and_native_pools() {
    use dex_route::quote::{ReportRequest, Side, report};

    let setup = Setup::load();
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let ask = |token_in: Address, token_out: Address, amount: &str| ReportRequest {
        token_in,
        token_out,
        amount_in: amount.to_owned(),
        include_multihop: false,
        slippage_bps: 50,
    };
    let legs = |report: &dex_route::quote::QuoteReport| -> Vec<(chain_read::dex::Pool, U256)> {
        report
            .outcome
            .routes
            .iter()
            .map(|route| (route.legs[0].pool, route.legs[0].amount_out))
            .collect()
    };
    for (native_side, native_ask, wrapped_ask) in [
        (
            Side::TokenIn,
            ask(Address::ZERO, usdc, "1.5"),
            ask(weth, usdc, "1.5"),
        ),
        (
            Side::TokenOut,
            ask(usdc, Address::ZERO, "4000"),
            ask(usdc, weth, "4000"),
        ),
    ] {
        let native = report(setup.chain(), &setup.reader(), &native_ask)
            .await
            .expect("the native request");
        let wrapped = report(setup.chain(), &setup.reader(), &wrapped_ask)
            .await
            .expect("the WETH request");
        assert_eq!(native.native_ether, Some(native_side));
        assert_eq!(wrapped.native_ether, None);
        assert_eq!(native.amount_in, wrapped.amount_in);
        assert_eq!(legs(&native), legs(&wrapped), "{native_side:?}");
        let pools = legs(&native);
        assert!(
            pools.iter().any(|(pool, _)| matches!(
                pool.key,
                PoolKey::V4 {
                    native: Some(_),
                    ..
                }
            )),
            "native-ether V4 pools reached"
        );
        assert!(
            pools.iter().any(|(pool, _)| pool.dex == DexId::UniswapV3),
            "WETH pools reached"
        );
    }
}
