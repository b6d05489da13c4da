//! The real adapters against the committed devnet, with the registry overridden from
//! `testdata/devnet/addresses.json`: discovery finds exactly the listed pools, quotes and
//! reserves equal what the build recorded, every read is pinned to one block, pairs without a
//! pool come back as failures, and the round trips are the ones claimed.

#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

use alloy::eips::BlockId;
use alloy::primitives::{Address, U256, aliases::U24, aliases::U160};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::bindings::IQuoterV2;
use chain_read::dex::{PoolKey, PoolState};
use chain_read::{CallFailure, DexId};
use dex_route::{FailureReason, LegRole, PoolVariant, QuotePlan, QuoteRequest, QuoteSource, quote};
use test_devnet::bindings::{IErc20, IUniswapV2Pair};

mod common;

use common::Setup;

/// A direct-only request.
trait Direct {
    fn direct(&self, token_in: Address, token_out: Address, amount_in: U256) -> QuoteRequest;
}

impl Direct for Setup {
    fn direct(&self, token_in: Address, token_out: Address, amount_in: U256) -> QuoteRequest {
        QuoteRequest {
            include_multihop: false,
            ..QuoteRequest::new(self.chain(), token_in, token_out, amount_in)
        }
    }
}

/// A pool as (dex, address, key) for set comparison.
type Found = (DexId, Address, String);

fn listed(setup: &Setup, pairs: &BTreeSet<(Address, Address)>) -> BTreeSet<Found> {
    let sorted = |a: Address, b: Address| if a < b { (a, b) } else { (b, a) };
    let pools = &setup.a().pools;
    let mut found = BTreeSet::new();
    for pool in &pools.uniswap_v3 {
        if pairs.contains(&sorted(pool.token0_address, pool.token1_address)) {
            let key = format!(
                "fee {} spacing {}",
                pool.fee.expect("fee"),
                pool.tick_spacing.expect("spacing")
            );
            found.insert((DexId::UniswapV3, pool.address, key));
        }
    }
    for pool in &pools.uniswap_v2 {
        if pairs.contains(&sorted(pool.token0_address, pool.token1_address)) {
            found.insert((DexId::UniswapV2, pool.address, "fee_bps 30".into()));
        }
    }
    for pool in &pools.aerodrome {
        if pairs.contains(&sorted(pool.token0_address, pool.token1_address)) {
            let key = format!("stable {}", pool.stable.expect("stable"));
            found.insert((DexId::Aerodrome, pool.address, key));
        }
    }
    // V4 pools are probed against the tokens and, for WETH, against native ether.
    let weth = setup.token("WETH");
    for pool in &pools.uniswap_v4 {
        let erc20 = |a: Address| if a.is_zero() { weth } else { a };
        let native = pool.currency0_address.is_zero();
        if pairs.contains(&sorted(
            erc20(pool.currency0_address),
            erc20(pool.currency1_address),
        )) {
            let key = format!(
                "v4 fee {} spacing {} hooks {} native {native}",
                pool.fee, pool.tick_spacing, pool.hooks
            );
            let address = Address::from_slice(&pool.pool_id[12..]);
            found.insert((DexId::UniswapV4, address, key));
        }
    }
    found
}

fn key(pool_key: PoolKey) -> String {
    match pool_key {
        PoolKey::Concentrated { fee, tick_spacing } => format!("fee {fee} spacing {tick_spacing}"),
        PoolKey::ConstantProduct { fee_bps } => format!("fee_bps {fee_bps}"),
        PoolKey::Solidly { stable } => format!("stable {stable}"),
        PoolKey::Slipstream {
            tick_spacing,
            factory,
        } => format!("slipstream spacing {tick_spacing} factory {factory}"),
        PoolKey::Algebra { deployer } => format!("algebra deployer {deployer}"),
        PoolKey::AlgebraV1 => "algebra v1".to_owned(),
        PoolKey::Balancer { id, pool_type } => format!("balancer {pool_type:?} id {id}"),
        PoolKey::V4 {
            fee,
            tick_spacing,
            hooks,
            native,
            ..
        } => format!(
            "v4 fee {fee} spacing {tick_spacing} hooks {hooks} native {}",
            native.is_some()
        ),
    }
}

#[tokio::test]
async fn devnet_discovery_finds_every_listed_pool_of_every_planned_pair() {
    let setup = Setup::load();
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let intermediates: Vec<Address> = ["WBTC", "DAI", "USDT", "LINK"]
        .map(|s| setup.token(s))
        .to_vec();
    let request = QuoteRequest {
        intermediates: intermediates.clone(),
        ..QuoteRequest::new(
            setup.chain(),
            weth,
            usdc,
            U256::from(10u64).pow(U256::from(18)),
        )
    };
    let reader = setup.reader();
    let discovery = QuotePlan::new(setup.chain(), &request)
        .expect("plan")
        .discover(&reader)
        .await
        .expect("discovery");
    assert_eq!(reader.round_trips(), 1, "discovery is one round trip");
    assert_eq!(discovery.block().number, setup.a().checks.read_at_block);
    assert_eq!(discovery.block().chain_id, 8453);

    let sorted = |a: Address, b: Address| if a < b { (a, b) } else { (b, a) };
    let mut pairs = BTreeSet::from([sorted(weth, usdc)]);
    for via in &intermediates {
        pairs.insert(sorted(weth, *via));
        pairs.insert(sorted(*via, usdc));
    }
    let found: BTreeSet<Found> = discovery
        .pools()
        .iter()
        .map(|p| (p.dex, p.address, key(p.key)))
        .collect();
    assert_eq!(found, listed(&setup, &pairs), "exactly the listed pools");

    // WETH/USDC itself: four V3 tiers, the V2 pair, the volatile Aerodrome pool and seven V4
    // pools (two against WETH, five against native ether).
    let direct: BTreeSet<Found> = discovery
        .pools()
        .iter()
        .filter(|p| (p.token0, p.token1) == sorted(weth, usdc))
        .map(|p| (p.dex, p.address, key(p.key)))
        .collect();
    assert_eq!(
        direct,
        listed(&setup, &BTreeSet::from([sorted(weth, usdc)]))
    );
    assert_eq!(direct.len(), 13);

    // Token metadata came in the same batch.
    let tokens = discovery.tokens();
    assert_eq!(tokens[0].address, weth);
    assert_eq!(tokens[0].decimals, Ok(18));
    assert_eq!(tokens[0].symbol.as_deref(), Ok("WETH"));
    assert_eq!(tokens[1].decimals, Ok(6));
    assert_eq!(tokens[1].symbol.as_deref(), Ok("USDC"));
    assert_eq!(tokens.len(), 6);

    // What is not there is said, with the reason.
    let failures = discovery.failures();
    for absent in [
        DexId::PancakeswapV3,
        DexId::SushiswapV3,
        DexId::Velodrome,
        DexId::QuickswapV3,
        DexId::CamelotV3,
    ] {
        assert!(
            failures
                .iter()
                .any(|f| f.dex == absent && f.reason == FailureReason::NotDeployed),
            "{absent} not deployed"
        );
    }
    let stable = failures
        .iter()
        .find(|f| {
            f.dex == DexId::Aerodrome
                && f.role == LegRole::Direct
                && f.variant == Some(PoolVariant::Solidly { stable: true })
        })
        .expect("no stable WETH/USDC pool");
    assert_eq!(stable.reason, FailureReason::NoPool);
    // Sushi's Base factory is not on the devnet: its lookups answer nothing.
    let sushi = failures
        .iter()
        .find(|f| f.dex == DexId::SushiswapV2 && f.role == LegRole::Direct)
        .expect("sushi failure");
    assert_eq!(sushi.reason, FailureReason::Call(CallFailure::NoContract));
    assert_eq!(
        sushi.reason.to_string(),
        "no contract at the address (empty answer)"
    );
}

#[tokio::test]
async fn devnet_quoter_v2_quotes_and_pool_state_equal_the_recorded_checks() {
    let setup = Setup::load();
    let a = setup.a();
    let mut compared = 0;
    for (name, check) in &a.checks.v3_quotes {
        let pool = a
            .pools
            .uniswap_v3
            .iter()
            .find(|p| p.address == check.pool)
            .expect("listed pool");
        for recorded in &check.quotes {
            let token_in = setup.token(&recorded.token_in);
            let token_out = if pool.token0_address == token_in {
                pool.token1_address
            } else {
                pool.token0_address
            };
            let outcome = quote(
                &setup.reader(),
                setup.chain(),
                &setup.direct(token_in, token_out, recorded.amount_in),
            )
            .await
            .expect("quote");
            let leg = outcome
                .routes
                .iter()
                .find(|r| r.legs[0].pool.address == check.pool)
                .map(|r| &r.legs[0])
                .unwrap_or_else(|| panic!("{name}: a route through the pool"));
            assert_eq!(leg.source, QuoteSource::QuoterV2);
            let quoter = leg.quoter.expect("QuoterV2 answer");
            assert_eq!(leg.amount_out, recorded.amount_out, "{name} amount out");
            assert_eq!(quoter.amount_out, recorded.amount_out);
            assert_eq!(
                quoter.sqrt_price_x96_after, recorded.sqrt_price_x96_after,
                "{name}"
            );
            assert_eq!(
                quoter.initialized_ticks_crossed, recorded.initialized_ticks_crossed,
                "{name}"
            );
            assert!(quoter.gas_estimate > U256::ZERO);
            let Some(PoolState::Concentrated(state)) = leg.state else {
                panic!("{name}: pool state read");
            };
            assert_eq!(state.sqrt_price_x96, check.sqrt_price_x96, "{name}");
            assert_eq!(state.tick, check.tick, "{name}");
            assert_eq!(U256::from(state.liquidity), check.liquidity, "{name}");
            assert_eq!(Some(state.fee), pool.fee);
            assert_eq!(Some(state.tick_spacing), pool.tick_spacing);
            compared += 1;
        }
    }
    assert!(compared >= 26, "every recorded quote ({compared})");
}

#[tokio::test]
async fn devnet_v2_reserves_and_aerodrome_amounts_equal_the_recorded_checks() {
    let setup = Setup::load();
    let a = setup.a();
    let other = |pools: &[test_devnet::addresses::Pool], address: Address, token_in: Address| {
        let pool = pools.iter().find(|p| p.address == address).expect("listed");
        if pool.token0_address == token_in {
            pool.token1_address
        } else {
            pool.token0_address
        }
    };
    for (venue, checks, pools) in [
        ("uniswap_v2", &a.checks.v2_pairs, &a.pools.uniswap_v2),
        ("aerodrome", &a.checks.aerodrome_pools, &a.pools.aerodrome),
    ] {
        for (name, check) in checks {
            let address = check.address().expect("address");
            for recorded in &check.quotes {
                let token_in = setup.token(&recorded.token_in);
                let request = setup.direct(
                    token_in,
                    other(pools, address, token_in),
                    recorded.amount_in,
                );
                let outcome = quote(&setup.reader(), setup.chain(), &request)
                    .await
                    .expect("quote");
                let leg = outcome
                    .routes
                    .iter()
                    .map(|r| &r.legs[0])
                    .find(|leg| leg.pool.address == address)
                    .unwrap_or_else(|| panic!("{venue} {name}: a route through the pool"));
                assert_eq!(leg.amount_out, recorded.amount_out, "{venue} {name}");
                match (venue, leg.state) {
                    ("uniswap_v2", Some(PoolState::ConstantProduct(reserves))) => {
                        assert_eq!(leg.source, QuoteSource::Reserves);
                        assert_eq!(
                            (reserves.reserve0, reserves.reserve1),
                            (check.reserve0, check.reserve1),
                            "{name}"
                        );
                    }
                    ("aerodrome", Some(PoolState::Solidly { reserves, fee_bps })) => {
                        assert_eq!(leg.source, QuoteSource::PoolGetAmountOut);
                        assert_eq!(
                            (reserves.reserve0, reserves.reserve1),
                            (check.reserve0, check.reserve1),
                            "{name}"
                        );
                        let listed_fee = setup.raw["pools"]["aerodrome"]
                            .as_array()
                            .expect("pools")
                            .iter()
                            .find(|p| {
                                p["address"].as_str().and_then(|s| s.parse().ok()) == Some(address)
                            })
                            .and_then(|p| p["fee_bps"].as_u64())
                            .expect("fee_bps listed");
                        assert_eq!(u64::from(fee_bps), listed_fee, "{name} getFee");
                    }
                    (_, state) => panic!("{venue} {name}: unexpected state {state:?}"),
                }
            }
        }
    }
}

/// Moves 1 USDC into the WETH/USDC V2 pair and syncs it: a new block with new reserves.
async fn change_the_v2_reserves(setup: &Setup, pair: Address) {
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
    for (to, input) in [
        (
            setup.token("USDC"),
            IErc20::transferCall {
                to: pair,
                value: U256::from(1_000_000u64),
            }
            .abi_encode(),
        ),
        (pair, IUniswapV2Pair::syncCall {}.abi_encode()),
    ] {
        let tx = TransactionRequest::default()
            .from(payer)
            .to(to)
            .input(input.into());
        let receipt = provider
            .send_transaction(tx)
            .await
            .expect("send")
            .get_receipt()
            .await
            .expect("receipt");
        assert!(receipt.status());
    }
}

#[tokio::test]
async fn devnet_every_read_of_a_request_is_pinned_to_the_first_block() {
    let setup = Setup::load();
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let check = &setup.a().checks.v2_pairs["WETH/USDC"];
    let pair = check.address().expect("pair");
    let request = QuoteRequest {
        intermediates: vec![setup.token("WBTC")],
        ..QuoteRequest::new(
            setup.chain(),
            weth,
            usdc,
            U256::from(10u64).pow(U256::from(18)),
        )
    };
    let reader = setup.reader();
    let discovery = QuotePlan::new(setup.chain(), &request)
        .expect("plan")
        .discover(&reader)
        .await
        .expect("discovery");
    let pinned = discovery.block().number;

    // The chain moves on between round trips.
    change_the_v2_reserves(&setup, pair).await;
    let head = setup
        .devnet
        .provider
        .get_block_number()
        .await
        .expect("head");
    assert!(head > pinned, "a new block was mined");
    let now = IUniswapV2Pair::getReservesCall::abi_decode_returns(
        &setup
            .devnet
            .provider
            .call(
                TransactionRequest::default()
                    .to(pair)
                    .input(IUniswapV2Pair::getReservesCall {}.abi_encode().into()),
            )
            .await
            .expect("reserves at head"),
    )
    .expect("decode");
    assert_ne!(
        U256::from(now.reserve1),
        check.reserve1,
        "the reserves changed"
    );

    let outcome = discovery.quote(&reader).await.expect("quotes");
    assert_eq!(outcome.block.number, pinned);
    assert_eq!(
        outcome.read_blocks,
        [pinned, pinned, pinned],
        "three batches, one block"
    );
    let leg = outcome
        .routes
        .iter()
        .map(|r| &r.legs[0])
        .find(|leg| leg.pool.address == pair)
        .expect("V2 route");
    assert_eq!(
        leg.state,
        Some(PoolState::ConstantProduct(chain_read::dex::Reserves {
            reserve0: check.reserve0,
            reserve1: check.reserve1
        })),
        "read at the pinned block, not at the head"
    );
}

#[tokio::test]
async fn devnet_a_pair_without_pools_is_a_list_of_failures_with_reasons() {
    let setup = Setup::load();
    let (wbtc, link) = (setup.token("WBTC"), setup.token("LINK"));
    let outcome = quote(
        &setup.reader(),
        setup.chain(),
        &setup.direct(wbtc, link, U256::from(100_000_000u64)),
    )
    .await
    .expect("an answer, not an error");
    assert!(outcome.routes.is_empty());
    assert_eq!(
        outcome.read_blocks.len(),
        1,
        "nothing to quote after discovery"
    );
    assert_eq!(outcome.round_trips, 1);
    for dex in DexId::ALL {
        assert!(
            outcome.failures.iter().any(|f| f.dex == dex),
            "{dex} reported"
        );
    }
    let v3: Vec<_> = outcome
        .failures
        .iter()
        .filter(|f| f.dex == DexId::UniswapV3)
        .collect();
    assert_eq!(v3.len(), 4, "one per fee tier");
    for failure in v3 {
        assert_eq!(failure.reason, FailureReason::NoPool);
        assert_eq!(failure.reason.to_string(), "no pool for this pair");
        assert_eq!((failure.token_in, failure.token_out), (wbtc, link));
        assert!(matches!(failure.variant, Some(PoolVariant::FeeTier(_))));
    }
    let by_dex: BTreeMap<DexId, Vec<&FailureReason>> =
        outcome.failures.iter().fold(BTreeMap::new(), |mut map, f| {
            map.entry(f.dex).or_default().push(&f.reason);
            map
        });
    assert_eq!(by_dex[&DexId::UniswapV2], [&FailureReason::NoPool]);
    assert_eq!(
        by_dex[&DexId::Aerodrome],
        [&FailureReason::NoPool, &FailureReason::NoPool]
    );
    assert_eq!(by_dex[&DexId::PancakeswapV3], [&FailureReason::NotDeployed]);
    assert_eq!(
        FailureReason::NotDeployed.to_string(),
        "not deployed on this chain"
    );
}

#[tokio::test]
async fn devnet_weth_to_usdc_takes_exactly_the_claimed_round_trips() {
    let setup = Setup::load();
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let amount = U256::from(10u64).pow(U256::from(18));

    // The registry's hops (WETH, USDC, USDbC): only USDbC is an intermediate here and the
    // devnet has no USDbC pools, so there is no second leg: discovery + quotes = 2.
    let reader = setup.reader();
    let request = QuoteRequest::new(setup.chain(), weth, usdc, amount);
    let outcome = quote(&reader, setup.chain(), &request)
        .await
        .expect("quote");
    assert_eq!(outcome.round_trips, 2);
    assert_eq!(reader.round_trips(), 2);
    assert_eq!(
        outcome.routes.len(),
        13,
        "four V3 tiers, V2, vAMM, seven V4 pools (two WETH, five native ETH)"
    );
    assert!(outcome.routes.iter().all(|r| r.via().is_none()));
    assert!(
        outcome
            .routes
            .windows(2)
            .all(|w| w[0].amount_out() >= w[1].amount_out()),
        "largest output first"
    );

    // Through WBTC and DAI as well: discovery, direct + first legs, second legs = 3.
    let reader = setup.reader();
    let request = QuoteRequest {
        intermediates: vec![setup.token("WBTC"), setup.token("DAI")],
        ..QuoteRequest::new(setup.chain(), weth, usdc, amount)
    };
    let outcome = quote(&reader, setup.chain(), &request)
        .await
        .expect("quote");
    assert_eq!(outcome.round_trips, 3);
    assert_eq!(reader.round_trips(), 3);
    assert_eq!(outcome.read_blocks.len(), 3);

    let wbtc = setup.token("WBTC");
    let two_hop: Vec<_> = outcome
        .routes
        .iter()
        .filter(|r| r.via() == Some(wbtc))
        .collect();
    assert!(!two_hop.is_empty(), "WETH -> WBTC -> USDC priced");
    // No WETH/DAI pool: the DAI/USDC pools are reported as second legs without input.
    assert!(outcome.failures.iter().any(|f| {
        f.role
            == LegRole::SecondLeg {
                via: setup.token("DAI"),
            }
            && f.reason == FailureReason::NoFirstLeg
    }));
    for route in two_hop {
        let (first, second) = (&route.legs[0], &route.legs[1]);
        assert_eq!(second.amount_in, first.amount_out, "legs chain");
        assert_eq!((first.token_in, first.token_out), (weth, wbtc));
        assert_eq!((second.token_in, second.token_out), (wbtc, usdc));
        if let PoolKey::Concentrated { fee, .. } = second.pool.key {
            // An independent QuoterV2 call at the pinned block gives the same second leg.
            let quoter = setup.a().contracts.uniswap_v3.quoter_v2;
            let call = IQuoterV2::quoteExactInputSingleCall {
                params: IQuoterV2::QuoteExactInputSingleParams {
                    tokenIn: wbtc,
                    tokenOut: usdc,
                    amountIn: second.amount_in,
                    fee: U24::from(fee),
                    sqrtPriceLimitX96: U160::ZERO,
                },
            };
            let answer = setup
                .devnet
                .provider
                .call(
                    TransactionRequest::default()
                        .to(quoter)
                        .input(call.abi_encode().into()),
                )
                .block(BlockId::number(outcome.block.number))
                .await
                .expect("quoter");
            let answer =
                IQuoterV2::quoteExactInputSingleCall::abi_decode_returns(&answer).expect("decode");
            assert_eq!(second.amount_out, answer.amountOut);
        }
    }
}

#[tokio::test]
async fn devnet_the_native_reference_is_quoted_next_to_the_routes() {
    let setup = Setup::load();
    let (usdc, wbtc, weth) = (
        setup.token("USDC"),
        setup.token("WBTC"),
        setup.token("WETH"),
    );
    let one_weth = U256::from(10u64).pow(U256::from(18));
    let request = QuoteRequest {
        native_reference_amount: Some(one_weth),
        ..setup.direct(usdc, wbtc, U256::from(1_000_000_000u64))
    };
    let reader = setup.reader();
    let outcome = quote(&reader, setup.chain(), &request)
        .await
        .expect("quote");
    assert_eq!(outcome.round_trips, 2, "the reference rides along");
    // The gas price for the net ranking is one more (unpinnable) request of the same reader.
    reader.gas_price().await.expect("gas price");
    assert_eq!(reader.round_trips(), 3);
    assert!(!outcome.routes.is_empty());
    let pools: BTreeSet<DexId> = outcome
        .native_reference
        .iter()
        .map(|l| l.pool.dex)
        .collect();
    // The V4 reference is the native ETH/WBTC pool.
    assert_eq!(
        pools,
        BTreeSet::from([
            DexId::UniswapV3,
            DexId::UniswapV2,
            DexId::Aerodrome,
            DexId::UniswapV4
        ])
    );
    for leg in &outcome.native_reference {
        assert_eq!(
            (leg.token_in, leg.token_out, leg.amount_in),
            (weth, wbtc, one_weth)
        );
        assert!(leg.amount_out > U256::ZERO);
    }
}

#[tokio::test]
async fn devnet_amount_gas_price_and_l1_fee_ride_in_the_same_three_round_trips() {
    let setup = Setup::load();
    let (wbtc, usdc, weth) = (
        setup.token("WBTC"),
        setup.token("USDC"),
        setup.token("WETH"),
    );
    // The amount is only known in whole units: discovery reads the decimals first.
    let request = QuoteRequest {
        native_reference_amount: Some(U256::ZERO),
        read_gas_price: true,
        read_l1_data_fee: true,
        ..QuoteRequest::new(setup.chain(), wbtc, usdc, U256::ZERO)
    };
    let reader = setup.reader();
    let mut discovery = QuotePlan::new(setup.chain(), &request)
        .expect("plan")
        .discover(&reader)
        .await
        .expect("discovery");
    let decimals = discovery
        .token(wbtc)
        .and_then(|m| m.decimals.clone().ok())
        .expect("WBTC decimals");
    assert_eq!(decimals, 8);
    let native_decimals = discovery
        .token(weth)
        .and_then(|m| m.decimals.clone().ok())
        .expect("the native token's metadata is read for the reference");
    assert_eq!(
        discovery.gas_price().cloned(),
        Some(Ok(1_000_000_008)),
        "anvil's gas price at the committed state"
    );
    discovery.set_amount_in(U256::from(10u64).pow(U256::from(decimals)) / U256::from(4u8));
    discovery.set_native_reference_amount(U256::from(10u64).pow(U256::from(native_decimals)));
    let outcome = discovery.quote(&reader).await.expect("quote");

    assert_eq!(outcome.round_trips, 3, "gas price and L1 fee add none");
    assert_eq!(reader.round_trips(), 3);
    assert!(
        outcome
            .read_blocks
            .iter()
            .all(|b| *b == outcome.block.number)
    );
    assert!(outcome.routes.iter().any(|r| r.via() == Some(weth)));
    assert!(!outcome.native_reference.is_empty());
    // The devnet is a plain anvil: the OP-stack predeploy has no code there.
    match &outcome.l1_data_fee {
        chain_read::L1DataFee::Failed { oracle, failure } => {
            assert_eq!(*oracle, setup.chain().l1_gas_price_oracle().expect("base"));
            assert_eq!(*failure, CallFailure::NoContract);
        }
        other => panic!("expected a failed L1 fee read, got {other:?}"),
    }

    // Quoting a zero amount is refused before anything is sent.
    let reader = setup.reader();
    let discovery = QuotePlan::new(setup.chain(), &request)
        .expect("plan")
        .discover(&reader)
        .await
        .expect("discovery");
    assert!(matches!(
        discovery.quote(&reader).await,
        Err(dex_route::RouteError::ZeroAmount)
    ));
    assert_eq!(reader.round_trips(), 1);
}

/// SushiSwap V3's pools are the devnet's Uniswap V3 pools, byte for byte: the `sushi` npm
/// package 7.3.15 (`evm/config/features/sushiswap-v3.ts`, `POOL_INIT_CODE_HASH`) names the
/// keccak256 of `@uniswap/v3-core` 1.0.1's `UniswapV3Pool` creation code, the bytecode the
/// devnet deploys and every `uniswap_v3` devnet test proves the concentrated adapter on.
#[test]
fn devnet_sushiswap_v3_pools_are_the_devnets_uniswap_v3_bytecode() {
    let artifact = test_devnet::devnet_dir().join(
        "builder/node_modules/@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&artifact).expect("the npm artifact (installed by xtask)"),
    )
    .expect("JSON");
    let code: alloy::primitives::Bytes = json["bytecode"]
        .as_str()
        .expect("bytecode")
        .parse()
        .expect("hex");
    assert_eq!(
        alloy::primitives::keccak256(&code),
        alloy::primitives::b256!(
            "e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54"
        ),
        "SushiSwap V3's pool init-code hash"
    );
}
