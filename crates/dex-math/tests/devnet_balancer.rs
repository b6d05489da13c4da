//! Balancer V2 weighted pools on the devnet (issue 37): `dex_math::balancer` against the Vault
//! and WeightedPool bytecode of `@balancer-labs/v2-deployments` 3.2.0, deployed on this test's
//! anvil by `testdata/devnet/builder/balancer-devnet.mjs` (four pools: 50/50, 80/20, a
//! three-token pool of 6- and 18-decimal tokens, 60/40 with an 8-decimal token).
//!
//! Every ordered token pair of every pool is quoted by the Vault's `queryBatchSwap`, exact in
//! and exact out, from one wei to past the 30 % ratio limit (where both sides must refuse with
//! BAL#304 / BAL#305), and equals the port to the wei; then swaps are executed through
//! `Vault.swap`, one after another on the state each leaves, and each pays what the port
//! predicted from the state read just before it. The gas of those swaps is printed.

#![allow(missing_docs)]

use alloy::primitives::{Address, B256, Bytes, I256, U256};
use alloy::providers::{DynProvider, Provider as _};
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use dex_math::MathError;
use dex_math::balancer::{BAL_MAX_IN_RATIO, BAL_MAX_OUT_RATIO, StablePool, WeightedPool};
use test_devnet::Devnet;
use test_devnet::balancer::BalancerDevnet;
use test_devnet::bindings::{IBalancerStablePool, IBalancerVault, IBalancerWeightedPool};

struct Deployed {
    balancer: BalancerDevnet,
    vault: Address,
    /// Weighted pools: (name, pool address, pool id)
    pools: Vec<(String, Address, B256)>,
    /// ComposableStablePools: (name, pool address, pool id)
    stable_pools: Vec<(String, Address, B256)>,
}

fn deploy(devnet: &Devnet) -> Deployed {
    let balancer =
        BalancerDevnet::deploy(&devnet.anvil.rpc_url).expect("Balancer V2 deployed on the devnet");
    let of = |stable: bool| {
        balancer
            .pools
            .iter()
            .filter(|p| p.stable == stable)
            .map(|p| (p.name.clone(), p.address, p.id))
            .collect()
    };
    Deployed {
        vault: balancer.vault,
        pools: of(false),
        stable_pools: of(true),
        balancer,
    }
}

/// The pool's state as the port takes it: the Vault's balances and the pool's own scaling
/// factors, weights and fee, at the latest block.
async fn read_pool(
    provider: &DynProvider,
    vault: Address,
    pool: Address,
    id: B256,
) -> (Vec<Address>, WeightedPool) {
    let tokens = IBalancerVault::new(vault, provider)
        .getPoolTokens(id)
        .call()
        .await
        .expect("getPoolTokens");
    let pool_contract = IBalancerWeightedPool::new(pool, provider);
    let state = WeightedPool {
        balances: tokens.balances,
        scaling_factors: pool_contract
            .getScalingFactors()
            .call()
            .await
            .expect("getScalingFactors"),
        weights: pool_contract
            .getNormalizedWeights()
            .call()
            .await
            .expect("getNormalizedWeights"),
        swap_fee: pool_contract
            .getSwapFeePercentage()
            .call()
            .await
            .expect("getSwapFeePercentage"),
    };
    (tokens.tokens, state)
}

fn funds(who: Address) -> IBalancerVault::FundManagement {
    IBalancerVault::FundManagement {
        sender: who,
        fromInternalBalance: false,
        recipient: who,
        toInternalBalance: false,
    }
}

/// The Vault's `queryBatchSwap` of one step: `Ok((amount in, amount out))`, or the revert's
/// text.
async fn query(
    provider: &DynProvider,
    vault: Address,
    id: B256,
    (token_in, token_out): (Address, Address),
    given_in: bool,
    amount: U256,
    who: Address,
) -> Result<(U256, U256), String> {
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
        funds: funds(who),
    };
    let answer = provider
        .call(
            TransactionRequest::default()
                .from(who)
                .to(vault)
                .input(call.abi_encode().into()),
        )
        .await
        .map_err(|e| e.to_string())?;
    let deltas = IBalancerVault::queryBatchSwapCall::abi_decode_returns(&answer)
        .map_err(|e| e.to_string())?;
    let paid = deltas[0];
    let got = -deltas[1];
    assert!(paid >= I256::ZERO && got >= I256::ZERO, "deltas {deltas:?}");
    Ok((paid.into_raw(), got.into_raw()))
}

/// Every size of one direction of one pool: the port (`ours`: exact in when `given_in`, else
/// exact out) against the Vault's `queryBatchSwap`, equal to the wei, or refused by both
/// (`refused` tells the port's error and the Vault's revert are the same refusal). Returns how
/// many were equal and how many refused by both.
#[allow(clippy::too_many_arguments)]
async fn compare(
    provider: &DynProvider,
    vault: Address,
    id: B256,
    pair: (Address, Address),
    given_in: bool,
    sizes: Vec<U256>,
    who: Address,
    ours: impl Fn(U256) -> Result<U256, MathError>,
    refused: impl Fn(&MathError, &str) -> bool,
    what: &str,
) -> (usize, usize) {
    let kind = if given_in { "exact in" } else { "exact out" };
    let (mut equal, mut refused_both) = (0, 0);
    for amount in sizes {
        let ours = ours(amount);
        let theirs = query(provider, vault, id, pair, given_in, amount, who).await;
        match (&ours, &theirs) {
            (Ok(computed), Ok((paid, got))) => {
                // The amount given comes back as given; the other is the one computed.
                let (given, answered) = if given_in { (paid, got) } else { (got, paid) };
                assert_eq!(*given, amount, "{what} {kind} {amount}");
                assert_eq!(computed, answered, "{what} {kind} {amount}");
                equal += 1;
            }
            (Err(e), Err(text)) if refused(e, text) => refused_both += 1,
            _ => panic!("{what} {kind} {amount}: {ours:?} vs {theirs:?}"),
        }
    }
    (equal, refused_both)
}

/// Sizes from one wei to 35 % of `balance` (past the 30 % limit).
fn sizes(balance: U256) -> Vec<U256> {
    let mut out = vec![U256::from(1u8), U256::from(997u16)];
    for per_million in [
        1u64, 37, 1_000, 12_345, 50_000, 100_000, 199_999, 299_000, 300_000, 301_000, 350_000,
    ] {
        out.push(balance * U256::from(per_million) / U256::from(1_000_000u64));
    }
    out.retain(|a| !a.is_zero());
    out
}

#[derive(Default)]
struct Tally {
    exact_in: usize,
    exact_out: usize,
    refused_both: usize,
    log_exp: usize,
}

/// Whether `pool`'s exponent for this direction is free (`LogExpMath`, not a 1/2/4 shortcut).
fn free_exponent(pool: &WeightedPool, i: usize, j: usize) -> bool {
    let one = dex_math::balancer::ONE;
    let exponent = pool.weights[i] * one / pool.weights[j];
    ![1u8, 2, 4].iter().any(|k| exponent == one * U256::from(*k))
}

/// `Vault.swap` of `amount` GIVEN_IN, sent from `who`: asserts the Vault's Swap log pays
/// `predicted`, and returns the transaction's gas used.
async fn execute(
    provider: &DynProvider,
    deployed: &Deployed,
    id: B256,
    pair: (Address, Address),
    amount: U256,
    predicted: U256,
    who: Address,
) -> u64 {
    let receipt = deployed
        .balancer
        .swap(provider, id, pair, amount, predicted, who)
        .await
        .expect("mined");
    assert!(receipt.status(), "the Vault's swap");
    let swap = receipt
        .inner
        .logs()
        .iter()
        .find_map(|log| log.log_decode::<IBalancerVault::Swap>().ok())
        .expect("the Vault's Swap log")
        .inner
        .data;
    assert_eq!(swap.poolId, id);
    assert_eq!((swap.amountIn, swap.amountOut), (amount, predicted));
    receipt.gas_used
}

#[tokio::test]
async fn devnet_weighted_pool_maths_equal_the_vault_to_the_wei() {
    let devnet = Devnet::load().expect("the committed devnet loads");
    let deployed = deploy(&devnet);
    let provider = &devnet.provider;
    let who = devnet.addresses.deployer.address;
    let mut tally = Tally::default();
    for (name, pool_address, id) in &deployed.pools {
        let (tokens, pool) = read_pool(provider, deployed.vault, *pool_address, *id).await;
        for i in 0..tokens.len() {
            for j in 0..tokens.len() {
                if i == j {
                    continue;
                }
                if free_exponent(&pool, i, j) {
                    tally.log_exp += 1;
                }
                let pair = (tokens[i], tokens[j]);
                let what = format!("{name} {i}->{j}");
                let (equal, refused) = compare(
                    provider,
                    deployed.vault,
                    *id,
                    pair,
                    true,
                    sizes(pool.balances[i]),
                    who,
                    |amount| pool.out_given_in(i, j, amount),
                    |e, text| {
                        matches!(e, MathError::Balancer(BAL_MAX_IN_RATIO))
                            && text.contains("BAL#304")
                    },
                    &what,
                )
                .await;
                tally.exact_in += equal;
                tally.refused_both += refused;
                let (equal, refused) = compare(
                    provider,
                    deployed.vault,
                    *id,
                    pair,
                    false,
                    sizes(pool.balances[j]),
                    who,
                    |amount| pool.in_given_out(i, j, amount),
                    |e, text| {
                        matches!(e, MathError::Balancer(BAL_MAX_OUT_RATIO))
                            && text.contains("BAL#305")
                    },
                    &what,
                )
                .await;
                tally.exact_out += equal;
                tally.refused_both += refused;
            }
        }
    }

    // Executed swaps, each on the state the one before left: the Vault pays what the port
    // predicts from the state read just before, and its Swap log says so.
    let mut gas = Vec::new();
    for (name, pool_address, id) in &deployed.pools {
        for step in 0..4usize {
            let (tokens, pool) = read_pool(provider, deployed.vault, *pool_address, *id).await;
            let (i, j) = (step % tokens.len(), (step + 1) % tokens.len());
            let amount = pool.balances[i] / U256::from(7u8 + u8::try_from(step).expect("step"));
            let predicted = pool.out_given_in(i, j, amount).expect("within the ratio");
            let used = execute(
                provider,
                &deployed,
                *id,
                (tokens[i], tokens[j]),
                amount,
                predicted,
                who,
            )
            .await;
            let (_, after) = read_pool(provider, deployed.vault, *pool_address, *id).await;
            assert_eq!(after.balances[j], pool.balances[j] - predicted, "{name}");
            gas.push((name.clone(), used));
        }
    }

    assert!(
        tally.exact_in >= 120 && tally.exact_out >= 120,
        "{} exact in, {} exact out",
        tally.exact_in,
        tally.exact_out
    );
    assert!(tally.refused_both >= 24, "both refuse past 30 %");
    assert!(tally.log_exp >= 6, "directions through LogExpMath");
    println!(
        "Balancer V2 weighted pools vs the Vault, equal to the wei: {} exact-in and {} \
         exact-out queryBatchSwap quotes ({} refused by both past the 30 % ratio; {} of the \
         12 directions through LogExpMath), {} executed swaps; gas used by Vault.swap: {gas:?}",
        tally.exact_in,
        tally.exact_out,
        tally.refused_both,
        tally.log_exp,
        gas.len()
    );
}

/// A ComposableStablePool as the port takes it: the Vault's balances and the pool's scaling
/// factors without the pool's own BPT, its amplification and fee. Also the tokens (BPT
/// dropped) in the pool's order.
async fn read_stable_pool(
    provider: &DynProvider,
    vault: Address,
    pool: Address,
    id: B256,
) -> (Vec<Address>, StablePool) {
    let registered = IBalancerVault::new(vault, provider)
        .getPoolTokens(id)
        .call()
        .await
        .expect("getPoolTokens");
    let contract = IBalancerStablePool::new(pool, provider);
    let scaling = contract
        .getScalingFactors()
        .call()
        .await
        .expect("getScalingFactors");
    let keep: Vec<usize> = (0..registered.tokens.len())
        .filter(|&k| registered.tokens[k] != pool)
        .collect();
    let state = StablePool {
        balances: keep.iter().map(|&k| registered.balances[k]).collect(),
        scaling_factors: keep.iter().map(|&k| scaling[k]).collect(),
        amp: contract
            .getAmplificationParameter()
            .call()
            .await
            .expect("getAmplificationParameter")
            .value,
        swap_fee: contract
            .getSwapFeePercentage()
            .call()
            .await
            .expect("getSwapFeePercentage"),
    };
    (keep.iter().map(|&k| registered.tokens[k]).collect(), state)
}

/// Whether the port's error is the Vault's revert: the same `BAL#` code (a checked
/// subtraction is BAL#001, an addition or multiplication BAL#000 or BAL#003, a division by
/// zero BAL#004).
fn same_refusal(ours: &MathError, text: &str) -> bool {
    match ours {
        MathError::Balancer(code) => text.contains(&format!("BAL#{code:03}")),
        MathError::Underflow => text.contains("BAL#001"),
        MathError::Overflow => text.contains("BAL#000") || text.contains("BAL#003"),
        MathError::DivisionByZero => text.contains("BAL#004"),
        _ => false,
    }
}

/// Sizes from one wei to 60 % of `balance` (a stable pool has no ratio limit; past its
/// balance out the Vault refuses).
fn stable_sizes(balance: U256) -> Vec<U256> {
    let mut out = vec![U256::from(1u8), U256::from(999u16)];
    for per_million in [1u64, 50, 2_000, 40_000, 150_000, 333_333, 600_000] {
        out.push(balance * U256::from(per_million) / U256::from(1_000_000u64));
    }
    out.retain(|a| !a.is_zero());
    out
}

#[tokio::test]
async fn devnet_stable_pool_maths_equal_the_vault_to_the_wei() {
    let devnet = Devnet::load().expect("the committed devnet loads");
    let deployed = deploy(&devnet);
    let provider = &devnet.provider;
    let who = devnet.addresses.deployer.address;
    let (mut exact_in, mut exact_out, mut refused) = (0usize, 0usize, 0usize);
    for (name, pool_address, id) in &deployed.stable_pools {
        let (tokens, pool) = read_stable_pool(provider, deployed.vault, *pool_address, *id).await;
        for i in 0..tokens.len() {
            for j in 0..tokens.len() {
                if i == j {
                    continue;
                }
                let pair = (tokens[i], tokens[j]);
                let what = format!("{name} {i}->{j}");
                let (equal, refused_both) = compare(
                    provider,
                    deployed.vault,
                    *id,
                    pair,
                    true,
                    stable_sizes(pool.balances[i]),
                    who,
                    |amount| pool.out_given_in(i, j, amount),
                    same_refusal,
                    &what,
                )
                .await;
                exact_in += equal;
                refused += refused_both;
                let (equal, refused_both) = compare(
                    provider,
                    deployed.vault,
                    *id,
                    pair,
                    false,
                    stable_sizes(pool.balances[j]),
                    who,
                    |amount| pool.in_given_out(i, j, amount),
                    same_refusal,
                    &what,
                )
                .await;
                exact_out += equal;
                refused += refused_both;
            }
        }
    }
    // Executed swaps, each on the state the one before left.
    let mut gas = Vec::new();
    for (name, pool_address, id) in &deployed.stable_pools {
        for step in 0..4usize {
            let (tokens, pool) =
                read_stable_pool(provider, deployed.vault, *pool_address, *id).await;
            let (i, j) = (step % tokens.len(), (step + 1) % tokens.len());
            let amount = pool.balances[i] / U256::from(5u8 + u8::try_from(step).expect("step"));
            let predicted = pool
                .out_given_in(i, j, amount)
                .expect("a swap the pool takes");
            let used = execute(
                provider,
                &deployed,
                *id,
                (tokens[i], tokens[j]),
                amount,
                predicted,
                who,
            )
            .await;
            let (_, after) = read_stable_pool(provider, deployed.vault, *pool_address, *id).await;
            assert_eq!(after.balances[j], pool.balances[j] - predicted, "{name}");
            gas.push((name.clone(), used));
        }
    }
    assert!(
        exact_in >= 60 && exact_out >= 60,
        "{exact_in} in, {exact_out} out"
    );
    println!(
        "Balancer V2 ComposableStablePools vs the Vault, equal to the wei: {exact_in} exact-in \
         and {exact_out} exact-out queryBatchSwap quotes, {refused} refused by both with the \
         same BAL# code, {} executed swaps; gas used by Vault.swap: {gas:?}",
        gas.len()
    );
}
