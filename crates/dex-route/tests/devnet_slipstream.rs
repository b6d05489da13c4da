//! Slipstream's interfaces on the devnet (issue 37): chain-read's Slipstream calls (the
//! CLFactory's `getPool` by `int24` tick spacing, the pool's six-field `slot0`, `fee()`,
//! `liquidity()`, `tickSpacing()`, its ten-field `ticks`, QuoterV2 keyed by tick spacing) read
//! against `testdata/devnet/slipstream/SlipstreamInterface.sol`, our own contracts exposing
//! those interfaces over the devnet's Uniswap V3 pools, deployed on this test's anvil. The
//! answers must equal the V3 pools' own state and Uniswap QuoterV2's quotes to the wei. This is
//! a check against Slipstream's interface, not its bytecode (which no registry package ships).

#![allow(missing_docs)]

use alloy::primitives::{Address, U256};
use chain_read::Batch;
use chain_read::dex::{concentrated, slipstream};

mod common;

use common::Setup;

/// The devnet's Uniswap V3 pools: (address, token0, token1, fee, tick spacing).
fn v3_pools(setup: &Setup) -> Vec<(Address, Address, Address, u32, i32)> {
    setup.raw["pools"]["uniswap_v3"]
        .as_array()
        .expect("V3 pools")
        .iter()
        .map(|p| {
            let a = |k: &str| p[k].as_str().expect(k).parse::<Address>().expect(k);
            (
                a("address"),
                a("token0_address"),
                a("token1_address"),
                u32::try_from(p["fee"].as_u64().expect("fee")).expect("fee"),
                i32::try_from(p["tick_spacing"].as_i64().expect("spacing")).expect("spacing"),
            )
        })
        .collect()
}

#[tokio::test]
async fn devnet_slipstream_calls_read_the_interface_as_the_wrapped_v3_pools_answer() {
    let setup = Setup::load();
    let pools = v3_pools(&setup);
    let v3_quoter = setup.contract("uniswap_v3", "quoter_v2");
    let deployed = test_devnet::slipstream::deploy(
        &setup.devnet.provider,
        setup.a().deployer.address,
        v3_quoter,
        &pools.iter().map(|p| p.0).collect::<Vec<_>>(),
    )
    .await
    .expect("the Slipstream interface deployed");
    let spacings = [1, 10, 50, 60, 100, 200, 2_000];
    let (mut quotes, mut ticks_compared, mut nonzero_ticks) = (0, 0, 0);
    for (&(v3_pool, token0, token1, fee, spacing), &(_, pool)) in pools.iter().zip(&deployed.pools)
    {
        let reader = setup.reader();
        let mut batch = Batch::new();
        // Discovery: every spacing, both token orders; only the listed spacing holds the pool.
        let lookups: Vec<_> = spacings
            .iter()
            .map(|s| {
                (
                    *s,
                    slipstream::get_pool(&mut batch, deployed.factory, token1, token0, *s),
                )
            })
            .collect();
        let state = slipstream::pool_state(&mut batch, pool);
        let v3_state = concentrated::pool_state(&mut batch, v3_pool);
        let amounts = [
            U256::from(10u64).pow(U256::from(6u8)),
            U256::from(10u64).pow(U256::from(9u8)),
        ];
        let results = reader.execute(batch).await.expect("one round trip");

        for (s, lookup) in &lookups {
            let found = lookup.decode(&results).expect("getPool answers");
            let listed_here = pools
                .iter()
                .zip(&deployed.pools)
                .find(|(p, _)| p.1 == token0 && p.2 == token1 && p.4 == *s)
                .map(|(_, (_, wrapper))| *wrapper);
            assert_eq!(found, listed_here, "{v3_pool} spacing {s}");
        }
        let state = state.decode(&results).expect("Slipstream state");
        assert_eq!(
            state,
            v3_state.decode(&results).expect("V3 state"),
            "{v3_pool}"
        );
        assert_eq!((state.fee, state.tick_spacing), (fee, spacing));
        // Quotes in their own call (a quoter's swap is gas-heavy; one eth_call has the block's gas).
        let mut batch = Batch::new();
        let mut quote_pairs = Vec::new();
        for (token_in, token_out) in [(token0, token1), (token1, token0)] {
            for amount in amounts {
                quote_pairs.push((
                    slipstream::quote_exact_input_single(
                        &mut batch,
                        deployed.quoter_v2,
                        token_in,
                        token_out,
                        amount,
                        spacing,
                    ),
                    concentrated::quote_exact_input_single(
                        &mut batch, v3_quoter, token_in, token_out, amount, fee,
                    ),
                ));
            }
        }
        // A spacing the factory does not hold: the quoter reverts, a failure and never a number.
        let unlisted = slipstream::quote_exact_input_single(
            &mut batch,
            deployed.quoter_v2,
            token0,
            token1,
            amounts[0],
            2_000,
        );
        let results = setup.reader().execute(batch).await.expect("quotes");
        for (ours, uniswap) in &quote_pairs {
            match (ours.decode(&results), uniswap.decode(&results)) {
                (Ok(ours), Ok(uniswap)) => {
                    // Gas differs (one more call frame); the amounts and price after do not.
                    assert_eq!(ours.amount_out, uniswap.amount_out, "{v3_pool}");
                    assert_eq!(ours.sqrt_price_x96_after, uniswap.sqrt_price_x96_after);
                    assert_eq!(
                        ours.initialized_ticks_crossed,
                        uniswap.initialized_ticks_crossed
                    );
                    quotes += 1;
                }
                (Err(_), Err(_)) => {}
                (ours, uniswap) => panic!("{v3_pool}: {ours:?} against {uniswap:?}"),
            }
        }
        let unlisted_found = pools
            .iter()
            .any(|p| p.1 == token0 && p.2 == token1 && p.4 == 2_000);
        assert_eq!(unlisted.decode(&results).is_err(), !unlisted_found);

        // Ticks: the initialized ticks of the price's bitmap word, read through the ten-field
        // `ticks`, carry the V3 pool's liquidityNet.
        let word = concentrated::word_of_tick(state.tick, spacing);
        let mut batch = Batch::new();
        let bitmap = concentrated::tick_bitmap_word(&mut batch, pool, word);
        let results = setup.reader().execute(batch).await.expect("bitmap");
        let marked = bitmap.decode(&results, spacing).expect("bitmap word");
        let mut batch = Batch::new();
        let pairs: Vec<_> = marked
            .iter()
            .map(|t| {
                (
                    slipstream::tick_info(&mut batch, pool, *t),
                    concentrated::tick_info(&mut batch, v3_pool, *t),
                )
            })
            .collect();
        let results = setup.reader().execute(batch).await.expect("ticks");
        for (ours, v3) in pairs {
            let ours = ours.decode(&results).expect("Slipstream tick");
            assert_eq!(ours, v3.decode(&results).expect("V3 tick"));
            // Two positions meeting at a tick can cancel out: count the non-zero ones.
            nonzero_ticks += usize::from(ours.liquidity_net != 0);
            ticks_compared += 1;
        }
    }
    // Every listed pool was quoted both ways at both sizes, and ticks were compared.
    assert!(quotes >= pools.len() * 2, "{quotes} quotes");
    assert!(nonzero_ticks > 0 && ticks_compared >= nonzero_ticks);
    println!(
        "{} pools, {quotes} quotes equal to Uniswap QuoterV2, {ticks_compared} ticks equal ({nonzero_ticks} with liquidityNet != 0)",
        pools.len()
    );
}

#[test]
fn the_slipstream_interface_bytecode_is_its_source_compiled() {
    let report = test_devnet::slipstream::check_bytecode()
        .expect("SlipstreamInterface.json is SlipstreamInterface.sol compiled");
    assert!(report.contains("matches"), "{report}");
}

/// Two CL factories per chain (the original and the one deployed with Gauges V2 / gauge caps),
/// each with its own QuoterV2 that finds pools only through its factory: a pool is found on
/// exactly one factory, quoted by that factory's quoter, and the other quoter's call reverts
/// (a failure, never a number).
#[tokio::test]
async fn devnet_slipstream_pools_are_found_on_one_of_two_factories_and_quoted_by_its_quoter() {
    let setup = Setup::load();
    let pools = v3_pools(&setup);
    let v3_quoter = setup.contract("uniswap_v3", "quoter_v2");
    let deployer = setup.a().deployer.address;
    let (legacy, newer): (Vec<_>, Vec<_>) = pools.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let mut deployments = Vec::new();
    for half in [&legacy, &newer] {
        let listed: Vec<Address> = half.iter().map(|(_, p)| p.0).collect();
        deployments.push(
            test_devnet::slipstream::deploy(&setup.devnet.provider, deployer, v3_quoter, &listed)
                .await
                .expect("a Slipstream deployment"),
        );
    }
    let amount = U256::from(10u64).pow(U256::from(6u8));
    let mut quoted = 0;
    for (i, &(v3_pool, token0, token1, fee, spacing)) in pools.iter().enumerate() {
        let home = i % 2;
        let wrapper = deployments[home]
            .pools
            .iter()
            .find(|(inner, _)| *inner == v3_pool)
            .map(|(_, wrapper)| *wrapper)
            .expect("listed");
        let mut batch = Batch::new();
        let lookups: Vec<_> = deployments
            .iter()
            .map(|d| slipstream::get_pool(&mut batch, d.factory, token0, token1, spacing))
            .collect();
        let quotes: Vec<_> = deployments
            .iter()
            .map(|d| {
                slipstream::quote_exact_input_single(
                    &mut batch,
                    d.quoter_v2,
                    token0,
                    token1,
                    amount,
                    spacing,
                )
            })
            .collect();
        let uniswap = concentrated::quote_exact_input_single(
            &mut batch, v3_quoter, token0, token1, amount, fee,
        );
        let results = setup.reader().execute(batch).await.expect("one round trip");
        for (d, lookup) in lookups.iter().enumerate() {
            let found = lookup.decode(&results).expect("getPool answers");
            assert_eq!(
                found,
                (d == home).then_some(wrapper),
                "{v3_pool} on factory {d}"
            );
        }
        let uniswap = uniswap.decode(&results);
        for (d, quote) in quotes.iter().enumerate() {
            match (d == home, quote.decode(&results), &uniswap) {
                (true, Ok(ours), Ok(uniswap)) => {
                    assert_eq!(ours.amount_out, uniswap.amount_out, "{v3_pool}");
                    quoted += 1;
                }
                (true, Err(_), Err(_)) | (false, Err(_), _) => {}
                (home, ours, uniswap) => {
                    panic!("{v3_pool} quoter {d} (home {home}): {ours:?} against {uniswap:?}")
                }
            }
        }
    }
    assert!(quoted >= pools.len() / 2, "{quoted} quoted");
}

/// The Slipstream adapter in `/dex/quote`'s read: the devnet registry with an
/// `aerodrome_slipstream` entry at two interface deployments (configured as
/// `contracts.aerodrome_slipstream.{factory, quoter_v2, factory_2, quoter_v2_2}`, the registry's
/// tick spacings 1, 50, 100, 200 and 2000). Every Slipstream leg pays what the Uniswap V3 leg of
/// the pool it wraps pays, to the wei, its fee is the pool's own; the lens reads it in one round
/// trip and its report equals the batches' to the wei; the adapter's claim and its factory's
/// confirmation name the pool. Checked against Slipstream's interface, not its bytecode.
#[tokio::test]
async fn devnet_slipstream_routes_pay_what_the_wrapped_v3_pools_pay_through_lens_and_batches() {
    use chain_read::dex::{PoolKey, PoolState};
    use chain_read::{Chain, ChainOverride, DexId, DexKind};
    use dex_route::kinds;

    let mut setup = Setup::load();
    let pools = v3_pools(&setup);
    let v3_quoter = setup.contract("uniswap_v3", "quoter_v2");
    let deployer = setup.a().deployer.address;
    let (legacy, newer): (Vec<_>, Vec<_>) = pools.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let mut deployments = Vec::new();
    for half in [&legacy, &newer] {
        let listed: Vec<Address> = half.iter().map(|(_, p)| p.0).collect();
        deployments.push(
            test_devnet::slipstream::deploy(&setup.devnet.provider, deployer, v3_quoter, &listed)
                .await
                .expect("a Slipstream deployment"),
        );
    }
    let roles = [
        ("factory", deployments[0].factory),
        ("quoter_v2", deployments[0].quoter_v2),
        ("factory_2", deployments[1].factory),
        ("quoter_v2_2", deployments[1].quoter_v2),
    ];
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "aerodrome_slipstream".to_owned(),
            roles.iter().map(|(r, a)| ((*r).to_owned(), *a)).collect(),
        )]
        .into_iter()
        .collect(),
    };
    setup.registry = setup
        .registry
        .clone()
        .with_overrides(Chain::Base, overrides)
        .expect("the Slipstream entry applies");
    let wrapped = |wrapper: Address| {
        deployments
            .iter()
            .flat_map(|d| &d.pools)
            .find(|(_, w)| *w == wrapper)
            .map(|(inner, _)| *inner)
    };
    let mut slipstream_legs = 0;
    let tally = common::quote_each(
        &setup,
        &common::KIND_PAIRS[..5],
        DexId::AerodromeSlipstream,
        async |what, lens, legs| {
            let all_legs: Vec<_> = lens
                .outcome
                .routes
                .iter()
                .flat_map(|route| route.legs.iter())
                .collect();
            let direct: Vec<Address> = lens
                .outcome
                .routes
                .iter()
                .filter(|route| route.legs.len() == 1)
                .map(|route| route.legs[0].pool.address)
                .collect();
            for leg in legs {
                let inner = wrapped(leg.pool.address).expect("a listed pool");
                let v3 = all_legs.iter().find(|l| {
                    l.pool.address == inner
                        && l.token_in == leg.token_in
                        && l.amount_in == leg.amount_in
                });
                // Two-hop routes go through the best first leg of each kind only, so the V3
                // twin of a two-hop leg may not be among the routes; every direct Slipstream
                // route has its V3 twin.
                let Some(v3) = v3 else {
                    assert!(
                        !direct.contains(&leg.pool.address),
                        "{what}: the V3 leg of {inner}"
                    );
                    continue;
                };
                assert_eq!(leg.amount_out, v3.amount_out, "{what}: {inner}");
                let (Some(PoolState::Concentrated(ours)), Some(PoolState::Concentrated(theirs))) =
                    (leg.state, v3.state)
                else {
                    panic!("{what}: states")
                };
                assert_eq!(ours, theirs, "{what}: {inner}");
                let PoolKey::Slipstream {
                    tick_spacing,
                    factory,
                } = leg.pool.key
                else {
                    panic!("{what}: key")
                };
                assert_eq!(tick_spacing, ours.tick_spacing);
                assert!(deployments.iter().any(|d| d.factory == factory));
                slipstream_legs += 1;
            }
        },
    )
    .await;
    let compared = tally.compared;
    assert!(slipstream_legs >= 10, "{slipstream_legs} Slipstream legs");

    // A contract named by address: the adapter's claim and its factory's lookup name it.
    let kind = kinds::of(DexKind::Slipstream);
    let dex = setup
        .chain()
        .dex(DexId::AerodromeSlipstream)
        .expect("configured")
        .clone();
    let (inner, wrapper) = deployments[1].pools[0];
    let listed = pools.iter().find(|p| p.0 == inner).expect("listed");
    let mut batch = Batch::new();
    let claim = kind.claim(&mut batch, wrapper);
    let results = setup.reader().execute(batch).await.expect("claim");
    let claimed = claim(&results, &dex).expect("a Slipstream pool");
    assert_eq!(
        claimed.key,
        PoolKey::Slipstream {
            tick_spacing: listed.4,
            factory: deployments[0].factory,
        },
        "a claim names the DEX's first factory; the confirmation decides"
    );
    let pool = chain_read::dex::Pool {
        dex: DexId::AerodromeSlipstream,
        address: wrapper,
        token0: listed.1,
        token1: listed.2,
        key: PoolKey::Slipstream {
            tick_spacing: listed.4,
            factory: deployments[1].factory,
        },
    };
    let mut batch = Batch::new();
    let confirm = kind.confirm(&mut batch, &dex, &pool);
    let results = setup.reader().execute(batch).await.expect("confirm");
    assert_eq!(confirm(&results).expect("getPool"), Some(wrapper));
    eprintln!(
        "{compared} requests equal through lens and batches; {slipstream_legs} Slipstream legs equal to their V3 pools"
    );
}

/// `/pool/liquidity` and `/mev/risk` on Slipstream pools: one interface deployment listing one
/// V3 pool per pair at a spacing the registry probes (1 or 200), `aerodrome_slipstream`
/// configured at it. Every exit equals the interface QuoterV2's quote at the block (amount,
/// price after); depth, a walk over the pool's `tickBitmap` and ten-field `ticks`, equals the
/// wrapped V3 pool's positions summed one by one; the sandwich model pays the quoter's amount
/// to the wei (`model_error_bps` 0) both ways. Checked against Slipstream's interface, not its
/// bytecode; the interface's pools swap inside the wrapped V3 pool, so their own Swap history is
/// empty (the event is V3's, decoded by the V3 code).
#[tokio::test]
async fn devnet_slipstream_pool_liquidity_and_sandwich_model_read_the_interface_exactly() {
    use alloy::primitives::aliases::{I24, U160};
    use chain_read::bindings::ISlipstreamQuoterV2;
    use chain_read::{Chain, ChainClient, ChainOverride, ClientOptions, DexId};
    use dex_route::liquidity::{LiquidityRequest, PoolRef};
    use dex_route::mev::{AssessRequest, History, HistoryOptions, NamedPool, assess};
    use test_devnet::bindings::INonfungiblePositionManager;

    let mut setup = Setup::load();
    let v3_quoter = setup.contract("uniswap_v3", "quoter_v2");
    let manager = setup.contract("uniswap_v3", "nonfungible_position_manager");
    let deployer = setup.a().deployer.address;
    let chosen = [
        "WETH/USDC/100",
        "USDC/USDT/100",
        "DAI/USDC/100",
        "WETH/LINK/10000",
    ];
    let listed: Vec<serde_json::Value> = setup.raw["pools"]["uniswap_v3"]
        .as_array()
        .expect("V3 pools")
        .iter()
        .filter(|p| chosen.contains(&p["name"].as_str().expect("name")))
        .cloned()
        .collect();
    assert_eq!(listed.len(), chosen.len());
    let inner: Vec<Address> = listed
        .iter()
        .map(|p| common::json_address(&p["address"]))
        .collect();
    let deployment =
        test_devnet::slipstream::deploy(&setup.devnet.provider, deployer, v3_quoter, &inner)
            .await
            .expect("a Slipstream deployment");
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "aerodrome_slipstream".to_owned(),
            [
                ("factory".to_owned(), deployment.factory),
                ("quoter_v2".to_owned(), deployment.quoter_v2),
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
        .expect("the Slipstream entry applies");
    let client =
        ChainClient::new([&setup.devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let (mut exits, mut assessed) = (0, 0);
    for (p, (_, wrapper)) in listed.iter().zip(&deployment.pools) {
        let (token0, token1) = (
            common::json_address(&p["token0_address"]),
            common::json_address(&p["token1_address"]),
        );
        let spacing = i32::try_from(p["tick_spacing"].as_i64().expect("spacing")).expect("spacing");
        // Sizes every listed pool fills: where the quoter cannot, the lens and the batches
        // word its failure differently (see `devnet_liquidity`'s `assert_same_figures`).
        let request = LiquidityRequest {
            exit_sizes_usd: vec![1_000, 10_000, 100_000],
            ..LiquidityRequest::new(PoolRef::Pair {
                dex: DexId::AerodromeSlipstream,
                token_a: token0,
                token_b: token1,
                fee_tier_ppm: None,
            })
        };
        let answer = common::read_pool_both_ways(&setup, &request)
            .await
            .unwrap_or_else(|e| panic!("{wrapper}: {e}"));
        assert_eq!(answer.pool.address, *wrapper);
        let block = answer.block.number;
        for row in &answer.exits {
            let Ok(quote) = &row.quote else { continue };
            let expected = setup
                .call_at(
                    deployment.quoter_v2,
                    &ISlipstreamQuoterV2::quoteExactInputSingleCall {
                        params: ISlipstreamQuoterV2::QuoteExactInputSingleParams {
                            tokenIn: row.token_in,
                            tokenOut: row.token_out,
                            amountIn: quote.amount_in,
                            tickSpacing: I24::try_from(spacing).expect("spacing"),
                            sqrtPriceLimitX96: U160::ZERO,
                        },
                    },
                    block,
                )
                .await;
            assert_eq!(
                quote.amount_out, expected.amountOut,
                "{wrapper} {}",
                row.size_usd
            );
            assert_eq!(
                quote.sqrt_price_x96_after,
                Some(U256::from(expected.sqrtPriceX96After)),
                "{wrapper}"
            );
            exits += 1;
        }
        let mut positions = Vec::new();
        for position in p["positions"].as_array().expect("positions") {
            let id = U256::from(position["token_id"].as_u64().expect("id"));
            let read = setup
                .call_at(
                    manager,
                    &INonfungiblePositionManager::positionsCall { tokenId: id },
                    block,
                )
                .await;
            positions.push((
                i32::try_from(read.tickLower).expect("tick"),
                i32::try_from(read.tickUpper).expect("tick"),
                read.liquidity,
            ));
        }
        let chain_read::dex::PoolState::Concentrated(state) = answer.state else {
            panic!("state")
        };
        common::assert_depth_equals_positions(
            &wrapper.to_string(),
            answer.depth.as_ref().expect("depth by tickBitmap walk"),
            state.sqrt_price_x96,
            &positions,
        );

        for (token_in, token_out) in [(token0, token1), (token1, token0)] {
            let decimals = setup
                .a()
                .tokens
                .values()
                .find(|t| t.address == token_in)
                .map(|t| t.decimals)
                .expect("a devnet token");
            let amount_in = match decimals {
                6 => "500",
                8 => "0.02",
                _ => "0.5",
            }
            .to_owned();
            let request = AssessRequest {
                token_in,
                token_out,
                route: Some(NamedPool::Address(*wrapper)),
                amount_in,
                slippage_bps: 50,
                scan_history: true,
            };
            let assessment = assess(setup.chain(), &client, &request, HistoryOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{wrapper}: {e:?}"));
            assert_eq!(assessment.read.quote.pool.address, *wrapper);
            assert_eq!(
                assessment.model_error_bps, 0.0,
                "{wrapper}: model {} against the quoter's {}",
                assessment.model_out, assessment.read.quote.amount_out
            );
            match &assessment.history {
                History::Scanned { scan, .. } => assert_eq!(scan.undecoded, 0, "{wrapper}"),
                other => panic!("{wrapper}: {other:?}"),
            }
            assessed += 1;
        }
    }
    assert!(exits >= 4 * 6, "{exits} exits");
    eprintln!(
        "{} Slipstream-interface pools: {exits} exits equal to its QuoterV2, depth equal to the wrapped positions, {assessed} assessments with model_error_bps 0",
        listed.len()
    );
}
