//! Balancer V2 in `/dex/quote`'s read on the devnet (issue 37): the Vault, BalancerQueries,
//! four weighted and two composable stable pools of `@balancer-labs/v2-deployments` 3.2.0's own
//! bytecode, deployed on this test's anvil by `testdata/devnet/builder/balancer-devnet.mjs` on
//! the devnet's tokens, beside its Uniswap, SushiSwap and Aerodrome pools. The registry lists the
//! six pools (`balancer_v2`, by pool id); every Balancer leg of every route pays what the
//! Vault's own `queryBatchSwap` says to the wei, and what dex-math's port computes on the
//! leg's state; the lens reads it in one round trip and equals the batches; Balancer's pools
//! win some requests and lose others.

#![allow(missing_docs)]

use alloy::primitives::{Address, B256, Bytes, U256};
use chain_read::dex::PoolState;
use chain_read::dex::balancer::{BalancerPoolEntry, BalancerPoolType};
use chain_read::{Batch, Chain, ChainOverride, DexId, DexKind};
use dex_math::balancer::{StablePool, WeightedPool};
use dex_route::kinds;
use dex_route::outcome::QuoteSource;
use test_devnet::balancer::BalancerDevnet;
use test_devnet::bindings::IBalancerVault;

mod common;

use common::Setup;

/// The Vault's `queryBatchSwap` of one step at `block`, GIVEN_IN or GIVEN_OUT of `amount`:
/// `(amount in, amount out)`.
async fn query_step(
    setup: &Setup,
    vault: Address,
    id: B256,
    (token_in, token_out): (Address, Address),
    given_in: bool,
    amount: U256,
    block: u64,
) -> (U256, U256) {
    let call = IBalancerVault::queryBatchSwapCall {
        kind: if given_in {
            IBalancerVault::SwapKind::GIVEN_IN
        } else {
            IBalancerVault::SwapKind::GIVEN_OUT
        },
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
    // The Vault takes the amount in and pays out: the pool's delta of the token out is
    // negative.
    let (paid, got) = (deltas[0].into_raw(), (-deltas[1]).into_raw());
    assert_eq!(
        if given_in { paid } else { got },
        amount,
        "the amount given"
    );
    (paid, got)
}

/// The devnet with Balancer V2 deployed and its six pools listed in the registry: the setup,
/// the deployment and the listed pools.
fn balancer_devnet() -> (Setup, BalancerDevnet, Vec<BalancerPoolEntry>) {
    let mut setup = Setup::load();
    let deployed = BalancerDevnet::deploy(&setup.devnet.anvil.rpc_url)
        .expect("Balancer V2 deployed on the devnet");
    let listed: Vec<BalancerPoolEntry> =
        deployed.pools.iter().map(common::balancer_entry).collect();
    let overrides = ChainOverride {
        tokens: Default::default(),
        contracts: [("balancer_v2".to_owned(), deployed.contracts())]
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
    (setup, deployed, listed)
}

#[tokio::test]
async fn devnet_balancer_v2_legs_equal_the_vaults_query_batch_swap_and_rank_beside_other_kinds() {
    let (setup, deployed, listed) = balancer_devnet();
    let vault = deployed.vault;
    let (mut weighted_legs, mut stable_legs) = (0, 0);
    let pairs = [
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
    ];
    let tally = common::quote_each(
        &setup,
        &pairs,
        DexId::BalancerV2,
        async |what, report, legs| {
            let outcome = &report.outcome;
            for leg in legs {
                let chain_read::dex::PoolKey::Balancer { id, pool_type } = leg.pool.key else {
                    panic!("{what}: a Balancer key")
                };
                assert!(listed.iter().any(|e| e.id == id), "{what}: a listed pool");
                assert_eq!(leg.source, QuoteSource::BalancerQueries);
                // The Vault's own answer, asked directly at the read's block.
                let (_, vault_out) = query_step(
                    &setup,
                    vault,
                    id,
                    (leg.token_in, leg.token_out),
                    true,
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
        },
    )
    .await;
    let (compared, balancer_best, other_best) = (tally.compared, tally.kind_best, tally.other_best);
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

/// The pairs read of each listed pool: every two of its tokens.
fn pairs(entry: &BalancerPoolEntry) -> Vec<(Address, Address)> {
    let mut pairs = Vec::new();
    for (i, a) in entry.tokens.iter().enumerate() {
        for b in &entry.tokens[i + 1..] {
            pairs.push((*a, *b));
        }
    }
    pairs
}

/// `/pool/liquidity` on every pair of every listed pool, named by pool id (with the pair) and,
/// for two-token pools, by address alone: the lens equals the batches; each exit pays what the
/// Vault's `queryBatchSwap` pays at the block; the reserves are the Vault's balances of the
/// pool; each depth band's amount is one the Vault pays (GIVEN_OUT) for an amount in whose swap
/// leaves the pool's spot price at the band's edge (to 1e-6), and the bands grow with δ.
#[tokio::test]
async fn devnet_balancer_v2_pool_liquidity_exits_equal_the_vault_and_depth_is_the_curves() {
    use dex_route::liquidity::{BalancerName, LiquidityRequest, PoolRef};

    let (setup, deployed, listed) = balancer_devnet();
    let vault = deployed.vault;
    let (mut exits, mut refused, mut bands_checked, mut reads) = (0, 0, 0, 0);
    for entry in &listed {
        let mut requests: Vec<PoolRef> = pairs(entry)
            .into_iter()
            .map(|pair| PoolRef::Balancer {
                pool: BalancerName::Id(entry.id),
                pair: Some(pair),
            })
            .collect();
        if entry.tokens.len() == 2 {
            requests.push(PoolRef::Address(chain_read::dex::balancer::pool_address(
                entry.id,
            )));
        }
        for pool_ref in requests {
            let what = format!("{pool_ref:?}");
            let answer = common::read_pool_both_ways(&setup, &LiquidityRequest::new(pool_ref))
                .await
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            reads += 1;
            let chain_read::dex::PoolKey::Balancer { id, .. } = answer.pool.key else {
                panic!("{what}: a Balancer pool")
            };
            assert_eq!(id, entry.id, "{what}");
            let block = answer.block.number;
            let PoolState::Balancer(state) = answer.state else {
                panic!("{what}: state")
            };
            // The reserves: the Vault's balances of the pool.
            let tokens = setup
                .call_at(
                    vault,
                    &IBalancerVault::getPoolTokensCall { poolId: id },
                    block,
                )
                .await;
            for token in &answer.tokens {
                let at = tokens
                    .tokens
                    .iter()
                    .position(|t| *t == token.metadata.address)
                    .expect("a token of the pool");
                assert_eq!(
                    token.balance.clone().expect("balance"),
                    tokens.balances[at],
                    "{what}"
                );
            }
            for row in &answer.exits {
                let quote = match &row.quote {
                    Ok(quote) => quote,
                    // A pair of neither USDC nor WETH has no USD price to size exits by (the
                    // pool read prices through the pool itself).
                    Err(dex_route::RouteError::NoUsdRoute { .. }) => {
                        let priced = [setup.token("USDC"), setup.token("WETH")];
                        assert!(
                            !priced.contains(&answer.pool.token0)
                                && !priced.contains(&answer.pool.token1),
                            "{what}"
                        );
                        continue;
                    }
                    // More than 30 % of a weighted pool's balance in: the Vault refuses.
                    Err(e) => {
                        assert!(
                            state.pool_type == BalancerPoolType::Weighted
                                && e.to_string().contains("BAL#304"),
                            "{what} {} USD: {e}",
                            row.size_usd
                        );
                        refused += 1;
                        continue;
                    }
                };
                let (_, vault_out) = query_step(
                    &setup,
                    vault,
                    id,
                    (row.token_in, row.token_out),
                    true,
                    quote.amount_in,
                    block,
                )
                .await;
                assert_eq!(quote.amount_out, vault_out, "{what} {} USD", row.size_usd);
                assert_eq!(quote.source, QuoteSource::BalancerQueries);
                assert!(quote.mid_after.is_ok(), "{what}: a price after");
                assert!(
                    quote.price_move_bps.is_some_and(|m| m < 0.0),
                    "{what}: the token sold gets cheaper"
                );
                exits += 1;
            }
            let bands = answer
                .depth
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: depth {e}"));
            let maths = |state: &chain_read::dex::balancer::BalancerPoolState| match state.pool_type
            {
                BalancerPoolType::Weighted => {
                    dex_math::balancer::BalancerPool::Weighted(WeightedPool {
                        balances: state.balances().to_vec(),
                        scaling_factors: state.scaling_factors().to_vec(),
                        weights: state.weights().to_vec(),
                        swap_fee: state.swap_fee,
                    })
                }
                BalancerPoolType::ComposableStable => {
                    dex_math::balancer::BalancerPool::Stable(StablePool {
                        balances: state.balances().to_vec(),
                        scaling_factors: state.scaling_factors().to_vec(),
                        amp: state.amp,
                        swap_fee: state.swap_fee,
                    })
                }
            };
            let pool = maths(&state);
            let (i0, i1) = (
                state.index_of(answer.pool.token0).expect("token0"),
                state.index_of(answer.pool.token1).expect("token1"),
            );
            let float = |r: &dex_math::Ratio| r.to_f64();
            let mut previous = (U256::ZERO, U256::ZERO);
            for band in bands {
                assert!(
                    band.upper_token0 > previous.0 && band.lower_token1 > previous.1,
                    "{what}: bands grow with δ"
                );
                previous = (band.upper_token0, band.lower_token1);
                let edge = 1.0 + f64::from(band.percent) / 100.0;
                // Buying token0 (token1 in): token1's price in token0 falls by 1+δ.
                for ((i, j), out) in [((i1, i0), band.upper_token0), ((i0, i1), band.lower_token1)]
                {
                    let tokens = (state.tokens[i], state.tokens[j]);
                    let (amount_in, _) =
                        query_step(&setup, vault, id, tokens, false, out, block).await;
                    let before = float(&pool.mid(i, j).expect("mid"));
                    let after = pool
                        .with_swap(i, j, amount_in, out)
                        .and_then(|p| p.mid(i, j))
                        .expect("mid after");
                    let moved = before / float(&after);
                    assert!(
                        (moved / edge - 1.0).abs() < 1e-6,
                        "{what} ±{} %: the price moved by {moved}",
                        band.percent
                    );
                    bands_checked += 1;
                }
            }
        }
    }
    assert!(reads >= 10 && exits >= 60, "{reads} reads, {exits} exits");
    eprintln!(
        "{reads} Balancer pool reads equal through lens and batches; {exits} exits equal to queryBatchSwap ({refused} refused by the Vault, BAL#304); {bands_checked} band sides at their edge by the Vault's GIVEN_OUT amounts"
    );
}

/// `/mev/risk` on every pair of every listed pool, both ways, named by the pool's address: the
/// sandwich model (dex-math's port of the pool's maths) pays BalancerQueries' amount to the
/// wei (`model_error_bps` 0), and the pool's Swap history (a swap of the pair sent through the
/// Vault first) decodes from the Vault's `Swap` logs with none undecoded.
#[tokio::test]
async fn devnet_balancer_v2_sandwich_model_is_exact_and_the_vaults_swaps_decode() {
    use chain_read::{ChainClient, ClientOptions};
    use dex_route::mev::{AssessRequest, HistoryOptions, NamedPool, assess};

    let (setup, deployed, listed) = balancer_devnet();
    let client =
        ChainClient::new([&setup.devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let symbol_amount = |token: Address| {
        let symbol = ["WETH", "WBTC", "USDC", "USDT", "DAI"]
            .into_iter()
            .find(|s| setup.token(s) == token)
            .expect("a devnet token");
        match symbol {
            "WETH" => ("0.8", U256::from(10u128.pow(17))),
            "WBTC" => ("0.05", U256::from(10u128.pow(6))),
            "USDC" | "USDT" => ("2500", U256::from(300_000_000u64)),
            _ => ("2500", U256::from(300u128 * 10u128.pow(18))),
        }
    };
    let mut assessed = 0;
    for entry in &listed {
        let address = chain_read::dex::balancer::pool_address(entry.id);
        for (a, b) in pairs(entry) {
            // One swap of the pair through the Vault, for the history to find.
            let receipt = deployed
                .swap(
                    &setup.devnet.provider,
                    entry.id,
                    (a, b),
                    symbol_amount(a).1,
                    U256::ZERO,
                    setup.a().deployer.address,
                )
                .await
                .expect("the swap mined");
            assert!(receipt.status(), "the Vault's swap");
            for (token_in, token_out) in [(a, b), (b, a)] {
                let request = AssessRequest {
                    token_in,
                    token_out,
                    route: Some(NamedPool::Address(address)),
                    amount_in: symbol_amount(token_in).0.to_owned(),
                    slippage_bps: 50,
                    scan_history: true,
                };
                let what = format!("{address} {token_in} -> {token_out}");
                let answer = assess(setup.chain(), &client, &request, HistoryOptions::default())
                    .await
                    .unwrap_or_else(|e| panic!("{what}: {e:?}"));
                assert_eq!(answer.read.quote.pool.address, address, "{what}");
                assert_eq!(
                    answer.model_error_bps, 0.0,
                    "{what}: model {} against querySwap's {}",
                    answer.model_out, answer.read.quote.amount_out
                );
                match &answer.history {
                    dex_route::mev::History::Scanned { scan, .. } => {
                        assert!(scan.swaps >= 1, "{what}: the swap sent");
                        assert_eq!(scan.undecoded, 0, "{what}");
                    }
                    other => panic!("{what}: {other:?}"),
                }
                assessed += 1;
            }
        }
    }
    assert!(assessed >= 20, "{assessed}");
    eprintln!(
        "{assessed} Balancer V2 assessments with model_error_bps 0 and the Vault's swaps decoded"
    );
}
