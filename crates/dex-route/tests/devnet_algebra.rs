//! Algebra Integral on the devnet (issue 37): the adapter's one-pool-per-pair keying read
//! against Algebra Integral 1.2's own bytecode from `@cryptoalgebra/integral-core` 1.2.10 and
//! `@cryptoalgebra/integral-periphery` 1.2.4 (Camelot V4's protocol), deployed on this test's
//! anvil by `testdata/devnet/builder/algebra-devnet.mjs`: one pool for every pair the devnet's
//! Uniswap V3 pools have, at the deepest V3 pool's price, with a fee set by the factory's owner.
//! Discovery, the pool's state, QuoterV2's quotes and the pool's own swaps (sent, then reverted)
//! agree to the wei, and
//! `/dex/quote`'s read ranks the Algebra pools beside the Uniswap ones, through the lens in one
//! round trip as through the batches.

#![allow(missing_docs)]

use alloy::primitives::{Address, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::Batch;
use chain_read::dex::algebra;
use test_devnet::bindings::{IAlgebraPoolEvents, ITestAlgebraCallee};

mod common;

use common::{Setup, json_address};

/// `TickMath.MIN_SQRT_RATIO + 1` and `MAX_SQRT_RATIO - 1`: no price limit either way.
const MIN_LIMIT: u128 = 4_295_128_740;
const MAX_LIMIT: &str = "1461446703485210103287273052203988822378723970341";

struct Deployed {
    factory: Address,
    quoter_v2: Address,
    callee: Address,
    /// (pool, token0, token1, fee, tick spacing, liquidity of the positions holding the price)
    pools: Vec<(Address, Address, Address, u32, i32, u128)>,
    /// Each pool's positions, `(tick_lower, tick_upper, liquidity)`.
    positions: std::collections::HashMap<Address, Vec<(i32, i32, u128)>>,
}

fn deploy(setup: &Setup) -> Deployed {
    let deployed = test_devnet::node::deploy_algebra_integral(&setup.devnet.anvil.rpc_url)
        .expect("Algebra Integral deployed on the devnet");
    let pools = deployed["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| {
            // Every position spans the initial price, so the in-range liquidity is their sum.
            let liquidity = p["positions"]
                .as_array()
                .expect("positions")
                .iter()
                .map(|x| {
                    x["liquidity"]
                        .as_str()
                        .expect("liquidity")
                        .parse::<u128>()
                        .expect("liquidity")
                })
                .sum();
            (
                json_address(&p["address"]),
                json_address(&p["token0"]),
                json_address(&p["token1"]),
                u32::try_from(p["fee"].as_u64().expect("fee")).expect("fee"),
                i32::try_from(p["tick_spacing"].as_i64().expect("spacing")).expect("spacing"),
                liquidity,
            )
        })
        .collect();
    let positions = deployed["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| {
            let number = |v: &serde_json::Value| v.as_i64().expect("a tick");
            let listed = p["positions"]
                .as_array()
                .expect("positions")
                .iter()
                .map(|x| {
                    (
                        i32::try_from(number(&x["tick_lower"])).expect("tick"),
                        i32::try_from(number(&x["tick_upper"])).expect("tick"),
                        x["liquidity"]
                            .as_str()
                            .expect("liquidity")
                            .parse()
                            .expect("liquidity"),
                    )
                })
                .collect();
            (json_address(&p["address"]), listed)
        })
        .collect();
    Deployed {
        positions,
        factory: json_address(&deployed["factory"]),
        quoter_v2: json_address(&deployed["quoter_v2"]),
        callee: json_address(&deployed["callee"]),
        pools,
    }
}

/// The pool's own swap of `amount` (exact input), sent through the package's
/// `TestAlgebraCallee` (paid by the deployer) inside a snapshot that is then reverted: the
/// pool's Swap log as `(amount in, amount out, price after)`.
async fn pool_swap(
    setup: &Setup,
    callee: Address,
    pool: Address,
    zero_to_one: bool,
    amount: U256,
) -> (U256, U256, U256) {
    let data = if zero_to_one {
        ITestAlgebraCallee::swapExact0For1Call {
            pool,
            amount0In: amount,
            recipient: setup.a().deployer.address,
            limitSqrtPrice: U256::from(MIN_LIMIT).to(),
        }
        .abi_encode()
    } else {
        ITestAlgebraCallee::swapExact1For0Call {
            pool,
            amount1In: amount,
            recipient: setup.a().deployer.address,
            limitSqrtPrice: MAX_LIMIT.parse::<U256>().expect("limit").to(),
        }
        .abi_encode()
    };
    let snapshot = setup.devnet.snapshot().await.expect("snapshot");
    // The nonce from the chain: each revert takes the last swap's back, which a provider's
    // own nonce count would not know.
    let nonce = setup
        .devnet
        .provider
        .get_transaction_count(setup.a().deployer.address)
        .await
        .expect("nonce");
    let receipt = setup
        .devnet
        .provider
        .send_transaction(
            TransactionRequest::default()
                .from(setup.a().deployer.address)
                .nonce(nonce)
                .to(callee)
                .input(data.into())
                .gas_limit(3_000_000),
        )
        .await
        .expect("sent")
        .get_receipt()
        .await
        .expect("mined");
    setup.devnet.revert(snapshot).await.expect("revert");
    assert!(receipt.status(), "the pool's swap");
    let swap = receipt
        .inner
        .logs()
        .iter()
        .filter(|log| log.address() == pool)
        .find_map(|log| log.log_decode::<IAlgebraPoolEvents::Swap>().ok())
        .expect("the pool's Swap log")
        .inner
        .data;
    let (paid, got) = if zero_to_one {
        (swap.amount0, swap.amount1)
    } else {
        (swap.amount1, swap.amount0)
    };
    (paid.into_raw(), (-got).into_raw(), U256::from(swap.price))
}

#[tokio::test]
async fn devnet_algebra_integral_pools_are_found_read_and_quoted_to_the_wei_of_their_swaps() {
    let setup = Setup::load();
    let d = deploy(&setup);
    assert!(d.pools.len() >= 6, "one pool per V3 pair");
    let (mut quotes, mut moved) = (0, 0);
    for &(pool, token0, token1, fee, spacing, liquidity) in &d.pools {
        let mut batch = Batch::new();
        // Either token order finds the pair's one pool.
        let lookups = [
            algebra::pool_by_pair(&mut batch, d.factory, token0, token1),
            algebra::pool_by_pair(&mut batch, d.factory, token1, token0),
        ];
        let state = algebra::pool_state(&mut batch, pool);
        let results = setup.reader().execute(batch).await.expect("one round trip");
        for lookup in lookups {
            assert_eq!(lookup.decode(&results).expect("poolByPair"), Some(pool));
        }
        let state = state
            .decode(&results)
            .expect("globalState, liquidity, tickSpacing");
        // The fee is the one the owner set (not the factory's default 500), from globalState.
        assert_eq!(
            (state.fee, state.tick_spacing, state.liquidity),
            (fee, spacing, liquidity),
            "{pool}"
        );

        for (zero_to_one, token_in, token_out) in [(true, token0, token1), (false, token1, token0)]
        {
            // Sizes from dust to a quarter of the price range's depth: the larger ones cross
            // the narrow position's edge.
            let decimals = setup
                .a()
                .tokens
                .values()
                .find(|t| t.address == token_in)
                .map(|t| t.decimals)
                .expect("a devnet token");
            for units in [1u64, 1_000, 200_000] {
                let amount = U256::from(units) * U256::from(10u64).pow(U256::from(decimals))
                    / U256::from(1_000u32);
                let mut batch = Batch::new();
                let slot = algebra::quote_exact_input_single(
                    &mut batch,
                    d.quoter_v2,
                    token_in,
                    token_out,
                    amount,
                    Address::ZERO,
                );
                let results = setup.reader().execute(batch).await.expect("quote");
                let quote = slot.decode_full(&results).expect("QuoterV2 answers");
                let (paid, got, price_after) =
                    pool_swap(&setup, d.callee, pool, zero_to_one, amount).await;
                let what = format!("{pool} zero_to_one {zero_to_one} amount {amount}");
                assert_eq!(quote.quote.amount_out, got, "{what}: amount out");
                assert_eq!(quote.amount_in, paid, "{what}: amount in");
                assert_eq!(
                    quote.quote.sqrt_price_x96_after, price_after,
                    "{what}: price"
                );
                assert_eq!(quote.fee, fee, "{what}: the fee the swap paid");
                assert!(got > U256::ZERO, "{what}");
                moved += usize::from(quote.quote.initialized_ticks_crossed > 0);
                quotes += 1;
            }
        }
    }
    assert!(moved > 0, "some swaps crossed a position's edge");
    eprintln!(
        "{} Algebra Integral pools, {quotes} QuoterV2 quotes equal to the pools' own swaps ({moved} crossing ticks)",
        d.pools.len()
    );
}

/// The adapter in `/dex/quote`'s read: the devnet registry with a `camelot_v4` entry at the
/// deployment (`contracts.camelot_v4.{factory, quoter_v2}`). Every Algebra leg pays what its
/// quoter says, its fee is the pool's own; the Algebra pools are ranked among the Uniswap
/// ones; the lens reads it in one round trip and its report equals the batches' to the wei.
#[tokio::test]
async fn devnet_algebra_integral_routes_rank_beside_uniswap_through_lens_and_batches() {
    use chain_read::dex::{PoolKey, PoolState};
    use chain_read::{Chain, ChainOverride, DexId, DexKind};
    use dex_route::kinds;

    let mut setup = Setup::load();
    let d = deploy(&setup);
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "camelot_v4".to_owned(),
            [
                ("factory".to_owned(), d.factory),
                ("quoter_v2".to_owned(), d.quoter_v2),
            ]
            .into_iter()
            .collect(),
        )]
        .into_iter()
        .collect(),
    };
    setup.registry = setup
        .registry
        .clone()
        .with_overrides(Chain::Base, overrides)
        .expect("the Camelot V4 entry applies");
    let tally = common::quote_each(
        &setup,
        &common::KIND_PAIRS,
        DexId::CamelotV4,
        async |what, _, legs| {
            for leg in legs {
                let listed = d
                    .pools
                    .iter()
                    .find(|p| p.0 == leg.pool.address)
                    .expect("a deployed pool");
                assert_eq!(
                    leg.pool.key,
                    PoolKey::Algebra {
                        deployer: Address::ZERO
                    }
                );
                let Some(PoolState::Concentrated(state)) = leg.state else {
                    panic!("{what}: state")
                };
                assert_eq!(state.fee, listed.3, "{what}: the pool's own fee");
                // The leg pays what the quoter says for its amount, asked on its own.
                let mut batch = Batch::new();
                let slot = algebra::quote_exact_input_single(
                    &mut batch,
                    d.quoter_v2,
                    leg.token_in,
                    leg.token_out,
                    leg.amount_in,
                    Address::ZERO,
                );
                let results = setup.reader().execute(batch).await.expect("quote");
                assert_eq!(
                    leg.amount_out,
                    slot.decode(&results).expect("quote").amount_out,
                    "{what}"
                );
            }
        },
    )
    .await;
    let (algebra_legs, compared, algebra_best, other_best) = (
        tally.legs,
        tally.compared,
        tally.kind_best,
        tally.other_best,
    );
    assert!(algebra_legs >= 16, "{algebra_legs} Algebra legs");
    // The ranking across kinds is exercised: Algebra wins some requests and loses others.
    assert!(
        algebra_best > 0 && other_best > 0,
        "{algebra_best} / {other_best}"
    );

    // The factory's own lookup confirms a pool of the kind.
    let kind = kinds::of(DexKind::AlgebraIntegral);
    let dex = setup
        .chain()
        .dex(DexId::CamelotV4)
        .expect("configured")
        .clone();
    let (pool_address, token0, token1, ..) = d.pools[0];
    let pool = chain_read::dex::Pool {
        dex: DexId::CamelotV4,
        address: pool_address,
        token0,
        token1,
        key: PoolKey::Algebra {
            deployer: Address::ZERO,
        },
    };
    let mut batch = Batch::new();
    let confirm = kind.confirm(&mut batch, &dex, &pool);
    let results = setup.reader().execute(batch).await.expect("confirm");
    assert_eq!(confirm(&results).expect("poolByPair"), Some(pool_address));
    eprintln!(
        "{compared} requests equal through lens and batches; {algebra_legs} Algebra legs equal to QuoterV2; best route Algebra in {algebra_best}, another kind in {other_best}"
    );
}

/// The devnet registry with `camelot_v4` configured at the deployment.
fn with_camelot(setup: &mut Setup, d: &Deployed) {
    use chain_read::{Chain, ChainOverride};
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "camelot_v4".to_owned(),
            [
                ("factory".to_owned(), d.factory),
                ("quoter_v2".to_owned(), d.quoter_v2),
            ]
            .into_iter()
            .collect(),
        )]
        .into_iter()
        .collect(),
    };
    setup.registry = setup
        .registry
        .clone()
        .with_overrides(Chain::Base, overrides)
        .expect("the Camelot V4 entry applies");
}

/// `/pool/liquidity` on each pool, named by pair on `camelot_v4`: lens and batches agree; every
/// exit equals QuoterV2 at the block (amount, price after, ticks crossed); depth, a walk over
/// the tick tree's leaves (`tickTable`, one bit per tick) and the six-field `ticks`, equals the
/// positions summed one by one.
#[tokio::test]
async fn devnet_algebra_integral_pool_liquidity_exits_are_the_quoters_and_depth_the_positions() {
    use alloy::primitives::aliases::U160;
    use chain_read::DexId;
    use chain_read::bindings::IAlgebraQuoterV2;
    use dex_route::liquidity::{LiquidityRequest, PoolRef};

    let mut setup = Setup::load();
    let d = deploy(&setup);
    with_camelot(&mut setup, &d);
    let mut exits = 0;
    for &(pool, token0, token1, _, _, _) in &d.pools {
        let request = LiquidityRequest::new(PoolRef::Pair {
            dex: DexId::CamelotV4,
            token_a: token0,
            token_b: token1,
            fee_tier_ppm: None,
        });
        let answer = common::read_pool_both_ways(&setup, &request)
            .await
            .unwrap_or_else(|e| panic!("{pool}: {e}"));
        assert_eq!(answer.pool.address, pool);
        let block = answer.block.number;
        for row in &answer.exits {
            let Ok(quote) = &row.quote else { continue };
            let expected = setup
                .call_at(
                    d.quoter_v2,
                    &IAlgebraQuoterV2::quoteExactInputSingleCall {
                        params: IAlgebraQuoterV2::QuoteExactInputSingleParams {
                            tokenIn: row.token_in,
                            tokenOut: row.token_out,
                            deployer: Address::ZERO,
                            amountIn: quote.amount_in,
                            limitSqrtPrice: U160::ZERO,
                        },
                    },
                    block,
                )
                .await;
            assert_eq!(
                quote.amount_out, expected.amountOut,
                "{pool} {}",
                row.size_usd
            );
            assert_eq!(
                quote.sqrt_price_x96_after,
                Some(U256::from(expected.sqrtPriceX96After)),
                "{pool}"
            );
            exits += 1;
        }
        let chain_read::dex::PoolState::Concentrated(state) = answer.state else {
            panic!("state")
        };
        let bands = answer.depth.as_ref().expect("depth by tick-tree walk");
        common::assert_depth_equals_positions(
            &pool.to_string(),
            bands,
            state.sqrt_price_x96,
            &d.positions[&pool],
        );
        assert!(answer.ticks.as_ref().expect("ticks").initialized_ticks > 0);
    }
    assert!(exits >= 6 * 8, "{exits} exits");
    eprintln!(
        "{} Algebra Integral pools: {exits} exits equal to QuoterV2, depth equal to the positions",
        d.pools.len()
    );
}

/// `/mev/risk` on each pool, named by address: the sandwich model (V3's swap maths over the
/// tick-tree leaves and ticks read, at `globalState`'s fee) pays QuoterV2's amount to the wei
/// (`model_error_bps` 0) both ways, and a swap mined before decodes from the pool's history.
#[tokio::test]
async fn devnet_algebra_integral_sandwich_model_is_exact_and_its_swaps_decode() {
    use chain_read::{ChainClient, ClientOptions};
    use dex_route::mev::{AssessRequest, History, HistoryOptions, NamedPool, assess};

    let mut setup = Setup::load();
    let d = deploy(&setup);
    with_camelot(&mut setup, &d);
    let client =
        ChainClient::new([&setup.devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let mut assessed = 0;
    for &(pool, token0, token1, ..) in &d.pools {
        // One swap mined, for the history to decode.
        mined_swap(&setup, d.callee, pool, U256::from(1_000u32)).await;
        for (token_in, token_out) in [(token0, token1), (token1, token0)] {
            let amount_in = match token_decimals(&setup, token_in) {
                6 => "500",
                8 => "0.02",
                _ => "0.5",
            }
            .to_owned();
            let request = AssessRequest {
                token_in,
                token_out,
                route: Some(NamedPool::Address(pool)),
                amount_in,
                slippage_bps: 50,
                scan_history: true,
            };
            let answer = assess(setup.chain(), &client, &request, HistoryOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{pool}: {e:?}"));
            assert_eq!(answer.read.quote.pool.address, pool);
            assert_eq!(
                answer.model_error_bps, 0.0,
                "{pool}: model {} against QuoterV2's {}",
                answer.model_out, answer.read.quote.amount_out
            );
            match &answer.history {
                History::Scanned { scan, .. } => {
                    assert!(scan.swaps >= 1, "{pool}: the swap mined");
                    assert_eq!(scan.undecoded, 0, "{pool}");
                }
                other => panic!("{pool}: {other:?}"),
            }
            assessed += 1;
        }
    }
    eprintln!(
        "{assessed} Algebra Integral assessments with model_error_bps 0 and their swaps decoded"
    );
}

fn token_decimals(setup: &Setup, token: Address) -> u8 {
    setup
        .a()
        .tokens
        .values()
        .find(|t| t.address == token)
        .map(|t| t.decimals)
        .expect("a devnet token")
}

/// A swap of `amount` of token1 for token0 through the callee, mined (not reverted).
async fn mined_swap(setup: &Setup, callee: Address, pool: Address, amount: U256) {
    let data = ITestAlgebraCallee::swapExact1For0Call {
        pool,
        amount1In: amount,
        recipient: setup.a().deployer.address,
        limitSqrtPrice: MAX_LIMIT.parse::<U256>().expect("limit").to(),
    }
    .abi_encode();
    let receipt = setup
        .devnet
        .provider
        .send_transaction(
            TransactionRequest::default()
                .from(setup.a().deployer.address)
                .to(callee)
                .input(data.into())
                .gas_limit(3_000_000),
        )
        .await
        .expect("sent")
        .get_receipt()
        .await
        .expect("mined");
    assert!(receipt.status(), "the swap");
}
