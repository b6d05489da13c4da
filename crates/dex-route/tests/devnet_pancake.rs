//! PancakeSwap V3 on the devnet, from `@pancakeswap/v3-core` 1.0.2's own factory and pool
//! bytecode (deployed by `testdata/devnet/builder/pancake-devnet.mjs` on this test's anvil, not
//! in the committed state): the concentrated adapter finds its pools through the factory (the
//! 2500/50 tier Uniswap has not), reads its state (`slot0`'s wider `feeProtocol`) and its ticks,
//! and the V3 swap maths on them equals the pool's own `swap` (run by `eth_call`) to the wei,
//! both ways, partial fills at the edge of the ticks read included; a real swap's log (two more
//! fields than Uniswap's) is decoded with the amounts the pool returned.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::eips::BlockId;
use alloy::primitives::aliases::U160;
use alloy::primitives::{Address, I256, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::dex::concentrated::word_of_tick;
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{Batch, Dex, DexContracts, DexId, DexKind};
use dex_math::tick_math::{MAX_TICK, MIN_TICK, get_sqrt_ratio_at_tick};
use dex_route::kinds::{self, WordRead};
use dex_route::{FailureReason, LegRole, Pair, PoolVariant};
use test_devnet::bindings::{IDevnetPancakeCallee, IPancakeV3Factory};

mod common;

use common::{Setup, json_address};

#[tokio::test]
async fn devnet_pancakeswap_v3_pools_are_found_read_and_swap_to_the_wei_by_the_v3_adapter() {
    let setup = Setup::load();
    let deployed = test_devnet::node::deploy_pancake_v3(&setup.devnet.anvil.rpc_url)
        .expect("PancakeSwap V3 deployed on the devnet");
    let factory = json_address(&deployed["factory"]);
    let callee = json_address(&deployed["callee"]);
    let chain = setup.chain();
    // The registry's shape of a PancakeSwap V3 entry, at the devnet's factory (its QuoterV2 is
    // not deployed here: nothing below quotes through it).
    let dex = Dex {
        id: DexId::PancakeswapV3,
        contracts: DexContracts::ConcentratedLiquidity {
            factory,
            quoter_v2: Address::ZERO,
            tick_lens: None,
            fee_tiers: DexId::PancakeswapV3.default_fee_tiers().to_vec(),
        },
    };
    let kind = kinds::of(DexKind::ConcentratedLiquidity);
    let provider = &setup.devnet.provider;
    let (mut swaps_compared, mut partial) = (0, 0);
    for listed in deployed["pools"].as_array().expect("pools") {
        let name = listed["name"].as_str().expect("name");
        let (pool_address, token0, token1) = (
            json_address(&listed["address"]),
            json_address(&listed["token0"]),
            json_address(&listed["token1"]),
        );
        let fee = u32::try_from(listed["fee"].as_u64().expect("fee")).expect("fee");
        let spacing =
            i32::try_from(listed["tick_spacing"].as_i64().expect("spacing")).expect("spacing");
        let reader = setup.reader();

        // Round trip 1: the factory's lookups of every PancakeSwap tier, and the claim of the
        // address as a pool.
        let mut batch = Batch::new();
        let pair = Pair {
            token_in: token1,
            token_out: token0,
            role: LegRole::Direct,
        };
        let probes = kind.lookups(&mut batch, chain, &dex, &[pair]);
        let claim = kind.claim(&mut batch, pool_address);
        let results = reader.execute(batch).await.expect("round trip 1");
        let key = PoolKey::Concentrated {
            fee,
            tick_spacing: spacing,
        };
        // Every tier holds the pool the script made for the pair at that fee, or none.
        let made = |tier: u32| {
            deployed["pools"]
                .as_array()
                .expect("pools")
                .iter()
                .find(|p| {
                    json_address(&p["token0"]) == token0
                        && json_address(&p["token1"]) == token1
                        && p["fee"].as_u64() == Some(u64::from(tier))
                })
                .map(|p| json_address(&p["address"]))
        };
        for probe in probes(&results) {
            let PoolVariant::FeeTier(tier) = probe.variant else {
                panic!("{name}: {probe:?}")
            };
            match (made(tier), &probe.found) {
                (Some(made), Ok((found, PoolKey::Concentrated { fee, .. }))) => {
                    assert_eq!((*found, *fee), (made, tier), "{name}")
                }
                (None, Err(FailureReason::NoPool)) => {}
                (made, found) => panic!("{name} {tier}: made {made:?}, found {found:?}"),
            }
            if tier == fee {
                assert_eq!(probe.found, Ok((pool_address, key)), "{name}");
            }
        }
        assert_eq!(claim(&results, &dex).expect("a pool").key, key, "{name}");
        let block = reader.block().expect("pinned").number;
        let deployer_of = setup
            .call_at(factory, &IPancakeV3Factory::poolDeployerCall {}, block)
            .await;
        assert_eq!(deployer_of, json_address(&deployed["deployer"]));
        let spacing_of = setup
            .call_at(
                factory,
                &IPancakeV3Factory::feeAmountTickSpacingCall {
                    fee: alloy::primitives::aliases::U24::from(fee),
                },
                block,
            )
            .await;
        assert_eq!(i32::try_from(spacing_of).expect("spacing"), spacing);
        let pool = Pool {
            dex: DexId::PancakeswapV3,
            address: pool_address,
            token0,
            token1,
            key,
        };

        // Round trips 2 and 3: state, the bitmap words two on each side of the price's, then
        // the ticks they mark (the devnet registry has no PancakeSwap TickLens).
        let mut batch = Batch::new();
        let state_read = kind.state(&mut batch, chain, &pool);
        let results = reader.execute(batch).await.expect("state");
        let state = state_read(&results).expect("slot0, liquidity, fee, tickSpacing");
        let PoolState::Concentrated(cl) = state else {
            panic!("{name}: a V3 state")
        };
        assert_eq!((cl.fee, cl.tick_spacing), (fee, spacing), "{name}");
        let (_, tick, _) = kind.tick_walk(&pool, &state).expect("a tick walk");
        let clamp = |t: i32| t.clamp(MIN_TICK, MAX_TICK);
        let words = (
            word_of_tick(tick, spacing) - 2,
            word_of_tick(tick, spacing) + 2,
        );
        let mut batch = Batch::new();
        let (_, reads) = kind
            .tick_words(&mut batch, chain, &pool, words)
            .expect("word reads");
        let results = reader.execute(batch).await.expect("words");
        let mut marked = Vec::new();
        for read in &reads {
            match read {
                WordRead::Marked(decode) => marked.extend(decode(&results).expect("tickBitmap")),
                WordRead::Populated(_) => panic!("{name}: no TickLens on the devnet"),
            }
        }
        let mut batch = Batch::new();
        let nets: Vec<_> = marked
            .iter()
            .map(|t| kind.tick_net(&mut batch, chain, &pool, *t))
            .collect();
        let results = reader.execute(batch).await.expect("ticks");
        let ticks: BTreeMap<i32, i128> = nets
            .iter()
            .map(|net| net(&results).expect("ticks()"))
            .collect();
        // The ticks read are the positions' bounds within the words, with their net liquidity.
        let (low, high) = (
            clamp((i32::from(words.0) << 8) * spacing),
            clamp(((i32::from(words.1) + 1) << 8) * spacing),
        );
        let mut expected: BTreeMap<i32, i128> = BTreeMap::new();
        for position in listed["positions"].as_array().expect("positions") {
            let liquidity: i128 = position["liquidity"]
                .as_str()
                .expect("L")
                .parse()
                .expect("L");
            for (bound, sign) in [("tick_lower", 1), ("tick_upper", -1)] {
                let t = i32::try_from(position[bound].as_i64().expect("tick")).expect("tick");
                if (low..high).contains(&t) {
                    *expected.entry(t).or_default() += sign * liquidity;
                }
            }
        }
        assert_eq!(ticks, expected, "{name}: initialized ticks");

        // The V3 swap maths on what was read equals the pool's own swap, limited to the edge of
        // the words read, both ways.
        let edges = (
            get_sqrt_ratio_at_tick(low).expect("edge"),
            get_sqrt_ratio_at_tick(high).expect("edge"),
        );
        let snapshot = dex_math::PoolState {
            sqrt_price_x96: cl.sqrt_price_x96,
            tick: cl.tick,
            liquidity: cl.liquidity,
            fee_pips: cl.fee,
            tick_spacing: spacing,
            ticks: ticks.clone(),
        };
        // One USD of a token, raw (WBTC at the devnet's 90,000 USD).
        let unit = |token: Address| -> U256 {
            if token == setup.token("WBTC") {
                U256::from(100_000_000u64 / 90_000)
            } else if token == setup.token("DAI") {
                U256::from(10u64).pow(U256::from(18u8))
            } else {
                U256::from(1_000_000u64)
            }
        };
        for zero_for_one in [true, false] {
            let sold = if zero_for_one { token0 } else { token1 };
            for usd in [1_000u64, 100_000, 10_000_000, 1_000_000_000] {
                let amount = U256::from(usd) * unit(sold);
                let limit = if zero_for_one { edges.0 } else { edges.1 };
                let simulated = dex_math::simulate_swap(
                    &snapshot,
                    zero_for_one,
                    I256::try_from(amount).expect("amount"),
                    Some(limit),
                )
                .expect("simulated");
                let call = IDevnetPancakeCallee::swapCall {
                    pool: pool_address,
                    zeroForOne: zero_for_one,
                    amountSpecified: I256::try_from(amount).expect("amount"),
                    sqrtPriceLimitX96: U160::from(limit),
                };
                // From an account: the pool pays the caller (a token refuses address zero).
                let answer = provider
                    .call(
                        TransactionRequest::default()
                            .from(setup.a().deployer.address)
                            .to(callee)
                            .input(call.abi_encode().into()),
                    )
                    .block(BlockId::number(block))
                    .await
                    .unwrap_or_else(|e| panic!("{name}: the pool's swap: {e}"));
                let own =
                    IDevnetPancakeCallee::swapCall::abi_decode_returns(&answer).expect("deltas");
                assert_eq!(
                    (simulated.amount0, simulated.amount1),
                    (own.amount0, own.amount1),
                    "{name} {usd} USD zero_for_one={zero_for_one}"
                );
                swaps_compared += 1;
                if simulated.is_partial() {
                    partial += 1;
                }
            }
        }

        // A real swap: its log decodes as the concentrated kind reads PancakeSwap's, and the
        // history scan asks for that topic.
        let amount = U256::from(5_000u64) * unit(token1);
        let call = IDevnetPancakeCallee::swapCall {
            pool: pool_address,
            zeroForOne: false,
            amountSpecified: I256::try_from(amount).expect("amount"),
            sqrtPriceLimitX96: U160::from(edges.1),
        };
        let deployer = setup.a().deployer.address;
        let receipt = provider
            .send_transaction(
                TransactionRequest::default()
                    .from(deployer)
                    .to(callee)
                    .gas_limit(3_000_000)
                    .input(call.abi_encode().into()),
            )
            .await
            .expect("sent")
            .get_receipt()
            .await
            .expect("mined");
        assert!(receipt.status(), "{name}: the swap");
        let topic = kind.swap_logs(chain, &pool).topic;
        let log = receipt
            .inner
            .logs()
            .iter()
            .find(|log| log.address() == pool_address && log.topics().first() == Some(&topic))
            .unwrap_or_else(|| panic!("{name}: a Swap log under PancakeSwap's topic"));
        let event = kind.swap_event(log).expect("decoded");
        assert!(!event.zero_for_one);
        assert_eq!(event.amount_in, amount, "{name}");
        assert!(!event.amount_out.is_zero());
    }
    assert_eq!(swaps_compared, 24, "three pools, four sizes, both ways");
    assert!(partial > 0, "some sizes stop at the edge of the ticks read");
}
