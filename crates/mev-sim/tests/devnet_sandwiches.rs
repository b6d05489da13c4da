//! The detector and the sandwich maths on the committed devnet's history
//! (testdata/devnet/README.md, "MEV history"): the Swap logs of every pool, read with
//! `eth_getLogs`, must give exactly the two planted sandwiches (V3 in block 730, V2 in 731)
//! with their attacker, victim, transactions and profit; not the three-trader decoy block;
//! nothing in the ordinary trading. Then the planted sandwiches' pre-block pool states,
//! rebuilt from the logs, must reproduce the recorded victim output and attacker profit to
//! the atomic unit, and the exact `a_max` must lie where the builder's bisection bracketed
//! it. Needs the npm-installed anvil (`cargo xtask ci` installs it).

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::{Address, B256, I256, U256};
use alloy::providers::Provider;
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolEvent;
use dex_math::{MAX_TICK, MIN_TICK, PoolState, ValidPoolState};
use mev_sim::{
    BoundMethod, ConstantProductPool, PoolModel, SandwichMatch, SwapEvent, SwapLog, VictimSwap,
    attack_optimum, detect_sandwiches, max_front_run, simulate_sandwich,
};
use serde_json::Value;
use test_devnet::Devnet;
use test_devnet::bindings::{ITickLens, IUniswapV3Pool};

alloy::sol! {
    interface V3Events {
        event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);
        event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
        event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
    }
    interface V2Events {
        event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
        event Sync(uint112 reserve0, uint112 reserve1);
    }
    interface SolidlyEvents {
        event Swap(address indexed sender, address indexed to, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out);
    }
}

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn log_meta(log: &Log, sender: Address, recipient: Address) -> SwapLog {
    SwapLog {
        block: log.block_number.unwrap_or_default(),
        tx_index: log.transaction_index.unwrap_or_default(),
        log_index: log.log_index.unwrap_or_default(),
        tx_hash: log.transaction_hash.unwrap_or_default(),
        pool: log.address(),
        sender,
        recipient,
        tx_from: None,
    }
}

/// Every Swap log of every devnet pool in the kept history, typed.
async fn swap_events(devnet: &Devnet) -> Vec<SwapEvent> {
    let a = &devnet.addresses;
    let pools: Vec<Address> = a
        .pools
        .uniswap_v2
        .iter()
        .chain(&a.pools.uniswap_v3)
        .chain(&a.pools.aerodrome)
        .map(|p| p.address)
        .collect();
    let filter = Filter::new()
        .address(pools)
        .event_signature(vec![
            V3Events::Swap::SIGNATURE_HASH,
            V2Events::Swap::SIGNATURE_HASH,
            SolidlyEvents::Swap::SIGNATURE_HASH,
        ])
        .from_block(a.chain.history_kept_from_block)
        .to_block(a.chain.final_block.number);
    let logs = ok(devnet.provider.get_logs(&filter).await);
    logs.iter()
        .map(|log| {
            let topic = log.topic0().copied().unwrap_or_default();
            if topic == V3Events::Swap::SIGNATURE_HASH {
                let e = ok(log.log_decode::<V3Events::Swap>()).inner.data;
                ok(SwapEvent::from_v3(
                    log_meta(log, e.sender, e.recipient),
                    e.amount0,
                    e.amount1,
                ))
            } else if topic == V2Events::Swap::SIGNATURE_HASH {
                let e = ok(log.log_decode::<V2Events::Swap>()).inner.data;
                ok(SwapEvent::from_v2(
                    log_meta(log, e.sender, e.to),
                    e.amount0In,
                    e.amount1In,
                    e.amount0Out,
                    e.amount1Out,
                ))
            } else {
                let e = ok(log.log_decode::<SolidlyEvents::Swap>()).inner.data;
                ok(SwapEvent::from_v2(
                    log_meta(log, e.sender, e.to),
                    e.amount0In,
                    e.amount1In,
                    e.amount0Out,
                    e.amount1Out,
                ))
            }
        })
        .collect()
}

fn address(v: &Value) -> Address {
    ok(v.as_str().unwrap_or_default().parse::<Address>())
}

fn amount(v: &Value) -> U256 {
    ok(v.as_str().unwrap_or_default().parse::<U256>())
}

fn routers(devnet: &Devnet) -> Vec<Address> {
    let c = &devnet.addresses.contracts;
    vec![
        c.uniswap_v3.swap_router,
        c.uniswap_v2.router02,
        c.aerodrome.router,
    ]
}

#[tokio::test]
async fn planted_sandwiches_are_found_once_and_nothing_else() {
    let devnet = ok(Devnet::load());
    let activity = &devnet.addresses.activity;
    let events = swap_events(&devnet).await;
    let ordinary = activity["ordinary_swaps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Every recorded swap is in the logs (plus the arbitrage, decoy and sandwich swaps).
    assert!(
        events.len() >= ordinary.len() + 3 + 6,
        "{} swap logs",
        events.len()
    );

    let found = ok(detect_sandwiches(&events, &routers(&devnet)));
    println!(
        "{} swap logs, {} sandwiches found",
        events.len(),
        found.len()
    );
    assert_eq!(found.len(), 2, "{found:#?}");

    let planted = &activity["sandwiches"];
    for venue in ["uniswap_v3", "uniswap_v2"] {
        let p = &planted[venue];
        let block = p["block"].as_u64().unwrap_or_default();
        let in_block: Vec<&SandwichMatch> = found.iter().filter(|m| m.block == block).collect();
        assert_eq!(in_block.len(), 1, "{venue}: one match in block {block}");
        let m = in_block[0];
        assert_eq!(m.pool, address(&p["pool"]), "{venue}");
        assert_eq!(m.attacker, address(&p["attacker"]), "{venue}");
        assert_eq!(m.victims.len(), 1, "{venue}");
        assert_eq!(m.victims[0].trader, address(&p["victim"]), "{venue}");
        let txs: Vec<B256> = p["txs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| ok(t.as_str().unwrap_or_default().parse::<B256>()))
            .collect();
        assert_eq!(
            vec![
                m.front_run.tx_hash,
                m.victims[0].swap.tx_hash,
                m.back_run.tx_hash
            ],
            txs,
            "{venue}"
        );
        assert_eq!(m.front_run.amount_in, amount(&p["front_run_in"]), "{venue}");
        assert_eq!(
            m.victims[0].swap.amount_out,
            amount(&p["victim_out"]),
            "{venue}"
        );
        let profit = I256::from_raw(amount(&p["attacker_profit"]["amount"]));
        assert_eq!(m.profit, profit, "{venue}");
        // The profit token is USDC, the front-run's input.
        let pool = devnet
            .addresses
            .pools
            .uniswap_v2
            .iter()
            .chain(&devnet.addresses.pools.uniswap_v3)
            .find(|q| q.address == m.pool)
            .unwrap_or_else(|| panic!("{venue} pool listed"));
        let usdc = devnet.addresses.tokens["USDC"].address;
        assert_eq!(m.profit_in_token0, pool.token0_address == usdc, "{venue}");
    }

    let decoy = activity["multi_swap_block"]["block"]
        .as_u64()
        .unwrap_or_default();
    assert_eq!(
        events.iter().filter(|e| e.log.block == decoy).count(),
        3,
        "the decoy block's three swaps are in the logs"
    );
    assert!(found.iter().all(|m| m.block != decoy));
    for swap in &ordinary {
        let block = swap["block"].as_u64().unwrap_or_default();
        assert!(
            found.iter().all(|m| m.block != block),
            "ordinary block {block}"
        );
    }
}

/// The pair's reserves just before `block`: its last Sync before it.
async fn v2_reserves_before(devnet: &Devnet, pair: Address, block: u64) -> (U256, U256) {
    let filter = Filter::new()
        .address(pair)
        .event_signature(V2Events::Sync::SIGNATURE_HASH)
        .from_block(devnet.addresses.chain.history_kept_from_block)
        .to_block(block - 1);
    let logs = ok(devnet.provider.get_logs(&filter).await);
    let last = logs
        .last()
        .unwrap_or_else(|| panic!("a Sync before block {block}"));
    let sync = ok(last.log_decode::<V2Events::Sync>()).inner.data;
    (U256::from(sync.reserve0), U256::from(sync.reserve1))
}

/// The V3 pool just before `block`: price, tick and liquidity from its last Swap log before
/// it, ticks from TickLens now (the test checks no Mint or Burn happened in the history).
async fn v3_state_before(devnet: &Devnet, pool: Address, block: u64) -> ValidPoolState {
    let a = &devnet.addresses;
    let changes = Filter::new()
        .address(pool)
        .event_signature(vec![
            V3Events::Mint::SIGNATURE_HASH,
            V3Events::Burn::SIGNATURE_HASH,
        ])
        .from_block(a.chain.history_kept_from_block)
        .to_block(a.chain.final_block.number);
    assert!(
        ok(devnet.provider.get_logs(&changes).await).is_empty(),
        "positions unchanged"
    );
    let swaps = Filter::new()
        .address(pool)
        .event_signature(V3Events::Swap::SIGNATURE_HASH)
        .from_block(a.chain.history_kept_from_block)
        .to_block(block - 1);
    let logs = ok(devnet.provider.get_logs(&swaps).await);
    let last = logs
        .last()
        .unwrap_or_else(|| panic!("a Swap before block {block}"));
    let swap = ok(last.log_decode::<V3Events::Swap>()).inner.data;

    let contract = IUniswapV3Pool::new(pool, &devnet.provider);
    let fee = ok(contract.fee().call().await).to::<u32>();
    let spacing = ok(contract.tickSpacing().call().await).as_i32();
    let lens = ITickLens::new(a.contracts.uniswap_v3.tick_lens, &devnet.provider);
    let mut ticks = BTreeMap::new();
    for word in (MIN_TICK.div_euclid(spacing) >> 8)..=(MAX_TICK.div_euclid(spacing) >> 8) {
        let word = i16::try_from(word).unwrap_or_default();
        if ok(contract.tickBitmap(word).call().await).is_zero() {
            continue;
        }
        for t in ok(lens.getPopulatedTicksInWord(pool, word).call().await) {
            ticks.insert(t.tick.as_i32(), t.liquidityNet);
        }
    }
    ok(ValidPoolState::new(PoolState {
        sqrt_price_x96: U256::from(swap.sqrtPriceX96),
        tick: swap.tick.as_i32(),
        liquidity: swap.liquidity,
        fee_pips: fee,
        tick_spacing: spacing,
        ticks,
    }))
}

#[tokio::test]
async fn planted_sandwiches_replay_exactly() {
    let devnet = ok(Devnet::load());
    let planted = &devnet.addresses.activity["sandwiches"];
    let usdc = devnet.addresses.tokens["USDC"].address;
    for venue in ["uniswap_v3", "uniswap_v2"] {
        let p = &planted[venue];
        let block = p["block"].as_u64().unwrap_or_default();
        let pool_address = address(&p["pool"]);
        let listed = devnet
            .addresses
            .pools
            .uniswap_v2
            .iter()
            .chain(&devnet.addresses.pools.uniswap_v3)
            .find(|q| q.address == pool_address)
            .unwrap_or_else(|| panic!("{venue} pool listed"));
        let pool = if venue == "uniswap_v3" {
            PoolModel::Concentrated(v3_state_before(&devnet, pool_address, block).await)
        } else {
            let (reserve0, reserve1) = v2_reserves_before(&devnet, pool_address, block).await;
            PoolModel::ConstantProduct(ConstantProductPool {
                reserve0,
                reserve1,
                fee_bps: 30,
            })
        };
        // The victim sells USDC.
        let zero_for_one = listed.token0_address == usdc;
        let victim_in = amount(&p["swaps"][1]["amount_in"]);
        assert_eq!(
            ok(pool.amount_out(victim_in, zero_for_one)),
            amount(&p["victim_quote_before"]),
            "{venue}: the rebuilt state quotes what the builder quoted"
        );
        let victim = VictimSwap {
            amount_in: victim_in,
            zero_for_one,
            amount_out_min: amount(&p["victim_min_out"]),
        };
        let outcome = ok(simulate_sandwich(
            &pool,
            &victim,
            amount(&p["front_run_in"]),
        ));
        assert_eq!(outcome.victim_out, amount(&p["victim_out"]), "{venue}");
        assert_eq!(
            outcome.back_run_out - outcome.front_run_in,
            amount(&p["attacker_profit"]["amount"]),
            "{venue}"
        );

        let (a_max, method) = ok(max_front_run(&pool, &victim));
        // The builder bisected to within victim_in / 100,000 + 1 from below.
        let bracket = amount(&p["front_run_max"]);
        assert!(
            a_max >= bracket
                && a_max <= bracket + victim_in / U256::from(100_000u32) + U256::from(1u8),
            "{venue}: a_max {a_max}, builder's bracket from {bracket}"
        );
        println!("{venue}: a_max {a_max} ({method:?}), builder's bisection {bracket}");
        // The closed form is claimed exactly when the front-run at a_max and the victim
        // stay inside the starting range (always for the pair).
        let crosses = match &pool {
            PoolModel::Concentrated(state) => {
                let front = ok(state.simulate_swap(zero_for_one, I256::from_raw(a_max), None));
                let after = ok(state.with_swap_applied(&front));
                let victim_swap =
                    ok(after.simulate_swap(zero_for_one, I256::from_raw(victim_in), None));
                front.initialized_ticks_crossed + victim_swap.initialized_ticks_crossed > 0
            }
            _ => false,
        };
        println!("{venue}: the swaps at a_max cross an initialized tick: {crosses}");

        // The optimum earns at least what the planted front-run (98 % of the bound) earned.
        let optimum = ok(attack_optimum(&pool, &victim));
        assert_eq!(optimum.a_max, a_max, "{venue}");
        assert!(optimum.optimum.victim_fills, "{venue}");
        assert!(optimum.optimum.profit >= outcome.profit, "{venue}");
        println!(
            "{venue}: optimum {} ({:?}, {:?}), profit {} against the planted {}, {} simulations",
            optimum.optimum.front_run_in,
            optimum.location,
            optimum.method(),
            optimum.optimum.profit,
            outcome.profit,
            optimum.simulations
        );
        assert_eq!(method == BoundMethod::ClosedForm, !crosses, "{venue}");
    }
}
