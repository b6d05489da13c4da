//! Balancer V2 in `/dex/quote`'s read on the devnet (issue 37): the Vault, BalancerQueries,
//! four weighted and two composable stable pools of `@balancer-labs/v2-deployments` 3.2.0's own
//! bytecode, deployed on this test's anvil by `testdata/devnet/builder/balancer-devnet.mjs` on
//! the devnet's tokens, beside its Uniswap, SushiSwap and Aerodrome pools. The registry lists the
//! six pools (`balancer_v2`, by pool id); every Balancer leg of every route pays what the
//! Vault's own `queryBatchSwap` says to the wei, and what dex-math's port computes on the
//! leg's state; the lens reads it in one round trip and equals the batches; Balancer's pools
//! win some requests and lose others.

#![allow(missing_docs)]

use alloy::primitives::{Address, B256, Bytes, I256, U256};
use chain_read::dex::PoolState;
use chain_read::dex::balancer::{BalancerPoolEntry, BalancerPoolType};
use chain_read::{Batch, Chain, ChainOverride, DexId, DexKind};
use dex_math::balancer::{StablePool, WeightedPool};
use dex_route::kinds;
use dex_route::outcome::QuoteSource;
use test_devnet::bindings::IBalancerVault;

mod common;

use common::{Setup, json_address};

fn entries(list: &serde_json::Value, pool_type: BalancerPoolType) -> Vec<BalancerPoolEntry> {
    list.as_array()
        .expect("pools")
        .iter()
        .map(|p| {
            let address = json_address(&p["address"]);
            BalancerPoolEntry {
                id: p["pool_id"].as_str().expect("id").parse().expect("id"),
                pool_type,
                // A composable pool's own BPT is not a swappable token.
                tokens: p["tokens"]
                    .as_array()
                    .expect("tokens")
                    .iter()
                    .map(json_address)
                    .filter(|t| *t != address)
                    .collect(),
            }
        })
        .collect()
}

/// The Vault's `queryBatchSwap` of one GIVEN_IN step at `block`: the amount out.
async fn query_batch_swap(
    setup: &Setup,
    vault: Address,
    id: B256,
    token_in: Address,
    token_out: Address,
    amount: U256,
    block: u64,
) -> U256 {
    let call = IBalancerVault::queryBatchSwapCall {
        kind: IBalancerVault::SwapKind::GIVEN_IN,
        swaps: vec![IBalancerVault::BatchSwapStep {
            poolId: id,
            assetInIndex: U256::ZERO,
            assetOutIndex: U256::from(1u8),
            amount,
            userData: Bytes::new(),
        }],
        assets: vec![token_in, token_out],
        funds: IBalancerVault::FundManagement {
            sender: Address::ZERO,
            fromInternalBalance: false,
            recipient: Address::ZERO,
            toInternalBalance: false,
        },
    };
    let deltas = setup.call_at(vault, &call, block).await;
    assert_eq!(deltas[0], I256::try_from(amount).expect("amount"));
    // The Vault pays out: the pool's delta of the token out is negative.
    (-deltas[1]).into_raw()
}

#[tokio::test]
async fn devnet_balancer_v2_legs_equal_the_vaults_query_batch_swap_and_rank_beside_other_kinds() {
    let mut setup = Setup::load();
    let deployed = test_devnet::node::deploy_balancer_v2(&setup.devnet.anvil.rpc_url)
        .expect("Balancer V2 deployed on the devnet");
    let vault = json_address(&deployed["vault"]);
    let queries = json_address(&deployed["queries"]);
    let mut listed = entries(&deployed["pools"], BalancerPoolType::Weighted);
    listed.extend(entries(
        &deployed["stable_pools"],
        BalancerPoolType::ComposableStable,
    ));
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "balancer_v2".to_owned(),
            [("vault".to_owned(), vault), ("queries".to_owned(), queries)]
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
        .expect("the Balancer V2 entry applies")
        .with_balancer_pools(Chain::Base, listed.clone())
        .expect("the pools apply");

    let (mut compared, mut balancer_best, mut other_best) = (0, 0, 0);
    let (mut weighted_legs, mut stable_legs) = (0, 0);
    for pair in [
        ("WETH", "USDC", "1.5"),
        ("USDC", "WETH", "4000"),
        ("WETH", "USDC", "150"),
        ("WETH", "DAI", "2"),
        ("DAI", "WETH", "30000"),
        ("WBTC", "WETH", "0.5"),
        ("WETH", "WBTC", "3"),
        ("DAI", "USDC", "2500"),
        ("USDC", "DAI", "250000"),
        ("USDT", "USDC", "900"),
        ("USDT", "DAI", "50000"),
        ("DAI", "USDT", "1000"),
        ("WBTC", "USDC", "0.25"),
    ] {
        for include_multihop in [false, true] {
            let (request, what) = common::quote_request(&setup, pair, include_multihop);
            let report = common::lens_equals_batches(&setup, &request, &what).await;
            compared += 1;
            let outcome = &report.outcome;
            match outcome.routes.first() {
                Some(best) if best.legs.iter().any(|l| l.pool.dex == DexId::BalancerV2) => {
                    balancer_best += 1
                }
                Some(_) => other_best += 1,
                None => panic!("{what}: no route"),
            }
            for leg in outcome
                .routes
                .iter()
                .flat_map(|route| route.legs.iter())
                .filter(|l| l.pool.dex == DexId::BalancerV2)
            {
                let chain_read::dex::PoolKey::Balancer { id, pool_type } = leg.pool.key else {
                    panic!("{what}: a Balancer key")
                };
                assert!(listed.iter().any(|e| e.id == id), "{what}: a listed pool");
                assert_eq!(leg.source, QuoteSource::BalancerQueries);
                // The Vault's own answer, asked directly at the read's block.
                let vault_out = query_batch_swap(
                    &setup,
                    vault,
                    id,
                    leg.token_in,
                    leg.token_out,
                    leg.amount_in,
                    outcome.block.number,
                )
                .await;
                assert_eq!(leg.amount_out, vault_out, "{what}: queryBatchSwap");
                // dex-math's port on the state the read took.
                let Some(PoolState::Balancer(state)) = leg.state else {
                    panic!("{what}: state")
                };
                let i = state.index_of(leg.token_in).expect("token in");
                let j = state.index_of(leg.token_out).expect("token out");
                let ported = match pool_type {
                    BalancerPoolType::Weighted => {
                        weighted_legs += 1;
                        WeightedPool {
                            balances: state.balances().to_vec(),
                            scaling_factors: state.scaling_factors().to_vec(),
                            weights: state.weights().to_vec(),
                            swap_fee: state.swap_fee,
                        }
                        .out_given_in(i, j, leg.amount_in)
                    }
                    BalancerPoolType::ComposableStable => {
                        stable_legs += 1;
                        StablePool {
                            balances: state.balances().to_vec(),
                            scaling_factors: state.scaling_factors().to_vec(),
                            amp: state.amp,
                            swap_fee: state.swap_fee,
                        }
                        .out_given_in(i, j, leg.amount_in)
                    }
                };
                assert_eq!(ported, Ok(vault_out), "{what}: the port");
            }
            // Every route through Balancer is priced: gas and price impact.
            for route in &outcome.routes {
                if route.legs.iter().any(|l| l.pool.dex == DexId::BalancerV2) {
                    let impact = dex_route::pricing::route_price_impact_bps(
                        route,
                        route.legs[0].amount_in,
                        &outcome.tokens,
                    )
                    .unwrap_or_else(|e| panic!("{what}: price impact {e}"));
                    assert!(impact.is_finite() && impact > -1.0, "{what}: {impact}");
                }
            }
        }
    }
    eprintln!(
        "{compared} requests equal through lens and batches; {weighted_legs} weighted and {stable_legs} stable Balancer legs equal to queryBatchSwap and the port; best route Balancer in {balancer_best}, another kind in {other_best}"
    );
    assert!(
        weighted_legs >= 10 && stable_legs >= 5,
        "{weighted_legs} / {stable_legs}"
    );
    assert!(
        balancer_best > 0 && other_best > 0,
        "{balancer_best} / {other_best}"
    );

    // The Vault confirms a listed pool; an id it never registered is no pool.
    let kind = kinds::of(DexKind::BalancerV2);
    let dex = setup
        .chain()
        .dex(DexId::BalancerV2)
        .expect("configured")
        .clone();
    let entry = &listed[0];
    let pool = chain_read::dex::Pool {
        dex: DexId::BalancerV2,
        address: chain_read::dex::balancer::pool_address(entry.id),
        token0: entry.tokens[0],
        token1: entry.tokens[1],
        key: chain_read::dex::PoolKey::Balancer {
            id: entry.id,
            pool_type: entry.pool_type,
        },
    };
    let mut batch = Batch::new();
    let confirm = kind.confirm(&mut batch, &dex, &pool);
    let results = setup.reader().execute(batch).await.expect("confirm");
    assert_eq!(confirm(&results).expect("getPool"), Some(pool.address));
    let mut unknown = pool;
    unknown.key = chain_read::dex::PoolKey::Balancer {
        id: B256::repeat_byte(0x42),
        pool_type: BalancerPoolType::Weighted,
    };
    let mut batch = Batch::new();
    let confirm = kind.confirm(&mut batch, &dex, &unknown);
    let results = setup.reader().execute(batch).await.expect("confirm");
    assert!(confirm(&results).is_err(), "BAL#500 for an unknown id");
}
