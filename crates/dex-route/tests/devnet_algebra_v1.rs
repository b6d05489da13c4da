//! Algebra V1 on the devnet (issue 37): the adapter's QuickSwap V3 keying read against Algebra
//! V1's own bytecode from `@cryptoalgebra/core` 2.0.0 and `@cryptoalgebra/periphery` 1.0.0,
//! deployed on this test's anvil (run without the contract-size limit) by
//! `testdata/devnet/builder/algebra-v1-devnet.mjs`: one pool for every pair the devnet's Uniswap
//! V3 pools have, at the deepest V3 pool's price, each moved to the address the factory and
//! periphery compute. Discovery, the pool's state, the Quoter's quotes and the pool's own swaps
//! (sent, then reverted) agree to the wei; `/dex/quote`'s read ranks the pools beside the
//! Uniswap ones through the lens in one round trip as through the batches; `/pool/liquidity`
//! reads their exits (the Quoter's amounts) and depth (a walk over `tickTable`) equal to the
//! positions.

#![allow(missing_docs)]

use alloy::primitives::{Address, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::dex::algebra;
use chain_read::{Batch, Chain, ChainOverride, DexId};
use dex_route::QuoteSource;
use test_devnet::bindings::{IAlgebraPoolEvents, ITestAlgebraCallee};

mod common;

use common::{Setup, json_address};

/// `TickMath.MIN_SQRT_RATIO + 1` and `MAX_SQRT_RATIO - 1`: no price limit either way.
const MIN_LIMIT: u128 = 4_295_128_740;
const MAX_LIMIT: &str = "1461446703485210103287273052203988822378723970341";

alloy::sol! {
    /// Algebra V1's pool state (`@cryptoalgebra/core` 2.0.0 `IAlgebraPoolState.sol`).
    interface IAlgebraV1State {
        function globalState() external view returns (uint160 price, int24 tick, uint16 fee, uint16 timepointIndex, uint8 communityFeeToken0, uint8 communityFeeToken1, bool unlocked);
    }
}

struct Pool {
    address: Address,
    token0: Address,
    token1: Address,
    /// `globalState`'s fee after the setup's dust swap.
    fee: u32,
    /// The base fee of its adaptive-fee configuration.
    base_fee: u32,
    positions: Vec<(i32, i32, u128)>,
}

struct Deployed {
    factory: Address,
    quoter: Address,
    callee: Address,
    pools: Vec<Pool>,
}

fn deploy(setup: &Setup) -> Deployed {
    let deployed = test_devnet::node::deploy_algebra_v1(&setup.devnet.anvil.rpc_url)
        .expect("Algebra V1 deployed on the devnet");
    let number = |v: &serde_json::Value| v.as_i64().expect("a number");
    let pools = deployed["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| Pool {
            address: json_address(&p["address"]),
            token0: json_address(&p["token0"]),
            token1: json_address(&p["token1"]),
            fee: u32::try_from(number(&p["global_state_fee"])).expect("fee"),
            base_fee: u32::try_from(number(&p["base_fee"])).expect("fee"),
            positions: p["positions"]
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
                .collect(),
        })
        .collect();
    Deployed {
        factory: json_address(&deployed["factory"]),
        quoter: json_address(&deployed["quoter"]),
        callee: json_address(&deployed["callee"]),
        pools,
    }
}

/// The devnet registry with QuickSwap V3 configured at the deployment.
fn with_quickswap(setup: &mut Setup, d: &Deployed) {
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "quickswap_v3".to_owned(),
            [
                ("factory".to_owned(), d.factory),
                ("quoter".to_owned(), d.quoter),
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
        .expect("the QuickSwap V3 entry applies");
}

/// The pool's own swap of `amount` (exact input) through the callee, inside a snapshot that is
/// then reverted: `(amount in, amount out, price after, the fee in globalState after it)`.
async fn pool_swap(
    setup: &Setup,
    callee: Address,
    pool: Address,
    zero_to_one: bool,
    amount: U256,
) -> (U256, U256, U256, u32) {
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
    // The swap's block at the timestamp of the block read (anvil allows an equal one): the
    // adaptive fee of a block's first swap depends on the time since the pool's last timepoint,
    // and a quote at a block runs at that block's time.
    let latest = setup
        .devnet
        .provider
        .get_block_by_number(alloy::eips::BlockNumberOrTag::Latest)
        .await
        .expect("block")
        .expect("latest block");
    setup
        .devnet
        .provider
        .raw_request::<_, serde_json::Value>(
            "evm_setNextBlockTimestamp".into(),
            (latest.header.timestamp,),
        )
        .await
        .expect("next block's time");
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
    let block = receipt.block_number.expect("mined");
    let fee = setup
        .call_at(pool, &IAlgebraV1State::globalStateCall {}, block)
        .await
        .fee;
    setup.devnet.revert(snapshot).await.expect("revert");
    assert!(receipt.status(), "the pool's swap");
    // V1's Swap event has V3's (and Integral's) signature.
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
    (
        paid.into_raw(),
        (-got).into_raw(),
        U256::from(swap.price),
        u32::from(fee),
    )
}

fn decimals(setup: &Setup, token: Address) -> u8 {
    setup
        .a()
        .tokens
        .values()
        .find(|t| t.address == token)
        .map(|t| t.decimals)
        .expect("a devnet token")
}

#[tokio::test]
async fn devnet_algebra_v1_pools_are_found_read_and_quoted_to_the_wei_of_their_swaps() {
    let setup = Setup::load_without_code_size_limit();
    let d = deploy(&setup);
    assert!(d.pools.len() >= 6, "one pool per V3 pair");
    let mut quotes = 0;
    for pool in &d.pools {
        let mut batch = Batch::new();
        let lookups = [
            algebra::pool_by_pair(&mut batch, d.factory, pool.token0, pool.token1),
            algebra::pool_by_pair(&mut batch, d.factory, pool.token1, pool.token0),
        ];
        let state = algebra::v1_pool_state(&mut batch, pool.address);
        let results = setup.reader().execute(batch).await.expect("one round trip");
        for lookup in lookups {
            assert_eq!(
                lookup.decode(&results).expect("poolByPair"),
                Some(pool.address)
            );
        }
        let state = state
            .decode(&results)
            .expect("globalState, liquidity, tickSpacing");
        // Every position spans the price.
        let in_range: u128 = pool.positions.iter().map(|p| p.2).sum();
        assert_eq!(
            (state.fee, state.tick_spacing, state.liquidity),
            (pool.fee, 60, in_range),
            "{}",
            pool.address
        );

        for (zero_to_one, token_in, token_out) in [
            (true, pool.token0, pool.token1),
            (false, pool.token1, pool.token0),
        ] {
            for units in [1u64, 1_000, 200_000] {
                let amount = U256::from(units)
                    * U256::from(10u64).pow(U256::from(decimals(&setup, token_in)))
                    / U256::from(1_000u32);
                let mut batch = Batch::new();
                let slot = algebra::v1_quote_exact_input_single(
                    &mut batch, d.quoter, token_in, token_out, amount,
                );
                let results = setup.reader().execute(batch).await.expect("quote");
                let quote = slot.decode(&results).expect("the Quoter answers");
                let (paid, got, _price_after, fee_after) =
                    pool_swap(&setup, d.callee, pool.address, zero_to_one, amount).await;
                let what = format!("{} zero_to_one {zero_to_one} amount {amount}", pool.address);
                assert_eq!(quote.amount_out, got, "{what}: amount out");
                assert_eq!(paid, amount, "{what}: the whole input taken");
                // The fee the Quoter says the swap paid is the one the pool's own swap left in
                // its globalState (the adaptive fee of that block).
                assert_eq!(quote.fee, fee_after, "{what}: the fee the swap paid");
                // At the block's own time no timepoint is written: the swap pays the fee
                // globalState holds, which the formula computed at the dust swap (the base fee:
                // no volume before it), not the constructor's 100.
                assert_eq!(
                    (quote.fee, state.fee),
                    (pool.base_fee, pool.base_fee),
                    "{what}"
                );
                assert!(got > U256::ZERO, "{what}");
                quotes += 1;
            }
        }
    }
    eprintln!(
        "{} Algebra V1 pools, {quotes} Quoter quotes equal to the pools' own swaps, amount and fee",
        d.pools.len()
    );
}

/// The adapter in `/dex/quote`'s read with `quickswap_v3` configured at the deployment: every
/// QuickSwap leg pays what its Quoter says and shows the pool's globalState fee; the pools are
/// ranked among the Uniswap ones; the lens reads it in one round trip and its report equals
/// the batches' to the wei.
#[tokio::test]
async fn devnet_algebra_v1_routes_rank_beside_uniswap_through_lens_and_batches() {
    use chain_read::dex::{PoolKey, PoolState};

    let mut setup = Setup::load_without_code_size_limit();
    let d = deploy(&setup);
    with_quickswap(&mut setup, &d);
    let tally = common::quote_each(
        &setup,
        &common::KIND_PAIRS,
        DexId::QuickswapV3,
        async |what, _, legs| {
            for leg in legs {
                let listed = d
                    .pools
                    .iter()
                    .find(|p| p.address == leg.pool.address)
                    .expect("a deployed pool");
                assert_eq!(leg.pool.key, PoolKey::AlgebraV1);
                let Some(PoolState::Concentrated(state)) = leg.state else {
                    panic!("{what}: state")
                };
                assert_eq!(state.fee, listed.fee, "{what}: the pool's globalState fee");
                let mut batch = Batch::new();
                let slot = algebra::v1_quote_exact_input_single(
                    &mut batch,
                    d.quoter,
                    leg.token_in,
                    leg.token_out,
                    leg.amount_in,
                );
                let results = setup.reader().execute(batch).await.expect("quote");
                let quote = slot.decode(&results).expect("quote");
                assert_eq!(leg.amount_out, quote.amount_out, "{what}");
                assert_eq!(
                    leg.source,
                    QuoteSource::AlgebraQuoter { fee: quote.fee },
                    "{what}"
                );
            }
        },
    )
    .await;
    let (legs, compared, v1_best, other_best) = (
        tally.legs,
        tally.compared,
        tally.kind_best,
        tally.other_best,
    );
    assert!(legs >= 16, "{legs} QuickSwap legs");
    assert!(v1_best > 0 && other_best > 0, "{v1_best} / {other_best}");
    eprintln!(
        "{compared} requests equal through lens and batches; {legs} Algebra V1 legs equal to the Quoter; best route Algebra V1 in {v1_best}, another kind in {other_best}"
    );
}

/// `/pool/liquidity` on each pool, named by pair on `quickswap_v3`: lens and batches agree;
/// every exit is the Quoter's amount at the block, and where a price after is given it is the
/// pool's own swap's; depth within each band equals the positions summed one by one.
#[tokio::test]
async fn devnet_algebra_v1_pool_liquidity_exits_are_the_quoters_and_depth_the_positions() {
    use dex_route::liquidity::{LiquidityRequest, PoolRef};

    let mut setup = Setup::load_without_code_size_limit();
    let d = deploy(&setup);
    with_quickswap(&mut setup, &d);
    let (mut exits, mut with_price) = (0, 0);
    for pool in &d.pools {
        let request = LiquidityRequest::new(PoolRef::Pair {
            dex: DexId::QuickswapV3,
            token_a: pool.token1,
            token_b: pool.token0,
            fee_tier_ppm: None,
        });
        let answer = common::read_pool_both_ways(&setup, &request)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", pool.address));
        assert_eq!(answer.pool.address, pool.address);
        let block = answer.block.number;
        for row in &answer.exits {
            let Ok(quote) = &row.quote else { continue };
            let expected = setup
                .call_at(
                    d.quoter,
                    &chain_read::bindings::IAlgebraV1Quoter::quoteExactInputSingleCall {
                        tokenIn: row.token_in,
                        tokenOut: row.token_out,
                        amountIn: quote.amount_in,
                        limitSqrtPrice: alloy::primitives::aliases::U160::ZERO,
                    },
                    block,
                )
                .await;
            assert_eq!(quote.amount_out, expected.amountOut, "{}", row.size_usd);
            assert_eq!(
                quote.source,
                QuoteSource::AlgebraQuoter {
                    fee: u32::from(expected.fee)
                }
            );
            if let Some(after) = quote.sqrt_price_x96_after {
                let (_, got, price_after, fee_after) = pool_swap(
                    &setup,
                    d.callee,
                    pool.address,
                    row.token_in == pool.token0,
                    quote.amount_in,
                )
                .await;
                assert_eq!(
                    (after, quote.amount_out),
                    (price_after, got),
                    "{} USD, {:?}, the swap's fee {fee_after}",
                    row.size_usd,
                    quote.source
                );
                with_price += 1;
            }
            exits += 1;
        }
        let bands = answer.depth.as_ref().expect("depth by tickTable walk");
        let chain_read::dex::PoolState::Concentrated(state) = answer.state else {
            panic!("state")
        };
        common::assert_depth_equals_positions(
            &pool.address.to_string(),
            bands,
            state.sqrt_price_x96,
            &pool.positions,
        );
        assert!(answer.ticks.as_ref().expect("ticks").initialized_ticks > 0);
    }
    assert!(exits >= 6 * 8, "{exits} exits");
    assert!(with_price > 0, "{with_price} prices after");
    eprintln!(
        "{} pools: {exits} exits equal to the Quoter ({with_price} with the pool's own price after), depth equal to the positions",
        d.pools.len()
    );
}

/// `/mev/risk` on each pool, named by address (the pair's QuickSwap pool): the sandwich model,
/// V3's swap maths over the `tickTable` words and ticks read at the pool's globalState fee,
/// pays the Quoter's amount to the wei (`model_error_bps` 0) both ways, and the pool's Swap
/// history (the setup's dust swap) decodes with V1's Swap event.
#[tokio::test]
async fn devnet_algebra_v1_sandwich_model_is_exact_and_its_swaps_decode() {
    use chain_read::{ChainClient, ClientOptions};
    use dex_route::mev::{AssessRequest, HistoryOptions, NamedPool, assess};

    let mut setup = Setup::load_without_code_size_limit();
    let d = deploy(&setup);
    with_quickswap(&mut setup, &d);
    let client =
        ChainClient::new([&setup.devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let mut assessed = 0;
    for pool in &d.pools {
        for (token_in, token_out) in [(pool.token0, pool.token1), (pool.token1, pool.token0)] {
            // A few hundred dollars to a few thousand, by the token's decimals.
            let amount_in = match decimals(&setup, token_in) {
                6 => "500",
                8 => "0.02",
                _ => "0.5",
            }
            .to_owned();
            let request = AssessRequest {
                token_in,
                token_out,
                route: Some(NamedPool::Address(pool.address)),
                amount_in,
                slippage_bps: 50,
                scan_history: true,
            };
            let answer = assess(setup.chain(), &client, &request, HistoryOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{}: {e:?}", pool.address));
            assert_eq!(answer.read.quote.pool.address, pool.address);
            assert_eq!(
                answer.model_error_bps, 0.0,
                "{}: model {} against the Quoter's {}",
                pool.address, answer.model_out, answer.read.quote.amount_out
            );
            match &answer.history {
                dex_route::mev::History::Scanned { scan, .. } => {
                    assert!(scan.swaps >= 1, "{}: the dust swap", pool.address);
                    assert_eq!(scan.undecoded, 0, "{}", pool.address);
                }
                other => panic!("{}: {other:?}", pool.address),
            }
            assessed += 1;
        }
    }
    eprintln!("{assessed} Algebra V1 assessments with model_error_bps 0 and their swaps decoded");
}
