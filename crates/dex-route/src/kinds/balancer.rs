//! Balancer V2 weighted and composable stable pools: the registry's curated pools (by pool id,
//! with their tokens) are the candidates of a pair; the Vault's `getPool(id)` confirms one is
//! registered; its state is the Vault's balances and the pool's scaling factors, swap fee and
//! weights or amplification; a swap is quoted by BalancerQueries' `querySwap` (the Vault's
//! `queryBatchSwap`, so the pool's own `onSwap` with its rate providers and any pool type), and
//! dex-math's port of the pool maths gives the mid price. `/pool/liquidity` and `/mev/risk` do
//! not read the kind yet (docs/decisions.md, "Balancer V2 in `/dex/quote`").

use std::sync::Arc;

use alloy::primitives::{Address, B256, U256, U512};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::dex::balancer::{self, BalancerPoolEntry, BalancerPoolState, BalancerPoolType};
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, TokenMetadata};
use dex_math::balancer::{WeightedPool, stable_invariant};
use dex_math::gas::HopKind;
use dex_math::{MathError, Ratio};
use mev_sim::{PoolModel, SwapEvent};

use super::{
    ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, MevTicks, NotAPool, PoolKind, Probe,
    QuoteDecode, Quoted, SwapLogFilter, WalkedTicks, amount_call_quote, lookup_call,
    lookup_outcome, missing,
};
use crate::error::RouteError;
use crate::liquidity::exit::TicksRead;
use crate::mev::TickWindow;
use crate::outcome::{FailureReason, PoolVariant, QuoteSource};
use crate::plan::Pair;

alloy::sol! {
    /// The Vault's swap event (one contract logs every pool's swaps).
    interface BalancerVaultEvents {
        /// A swap through pool `poolId`.
        event Swap(bytes32 indexed poolId, address indexed tokenIn, address indexed tokenOut, uint256 amountIn, uint256 amountOut);
    }
}

/// The adapter.
pub(crate) struct Balancer;

/// `(vault, queries, pools)` of a Balancer DEX entry.
fn contracts(dex: &Dex) -> Option<(Address, Address, &[BalancerPoolEntry])> {
    match &dex.contracts {
        DexContracts::BalancerV2 {
            vault,
            queries,
            pools,
        } => Some((*vault, *queries, pools)),
        _ => None,
    }
}

/// The listed pools holding both tokens of `pair`.
fn pools_for<'a>(
    pools: &'a [BalancerPoolEntry],
    pair: &'a Pair,
) -> impl Iterator<Item = &'a BalancerPoolEntry> + 'a {
    pools.iter().filter(move |entry| {
        pair.token_in != pair.token_out
            && entry.tokens.contains(&pair.token_in)
            && entry.tokens.contains(&pair.token_out)
    })
}

fn key_of(entry: &BalancerPoolEntry) -> PoolKey {
    PoolKey::Balancer {
        id: entry.id,
        pool_type: entry.pool_type,
    }
}

fn id_of(key: PoolKey) -> Option<(B256, BalancerPoolType)> {
    match key {
        PoolKey::Balancer { id, pool_type } => Some((id, pool_type)),
        _ => None,
    }
}

fn balancer_state(state: &PoolState) -> Result<&BalancerPoolState, RouteError> {
    match state {
        PoolState::Balancer(state) => Ok(state),
        _ => Err(RouteError::StateMismatch),
    }
}

fn not_read(pool: &Pool, what: &'static str) -> RouteError {
    RouteError::NotReadForKind {
        dex: pool.dex,
        what,
    }
}

/// The spot price of a composable stable pool, raw `token_out` per raw `token_in`, before
/// fees: the ratio of the invariant's partial derivatives, `∂F/∂x_in / ∂F/∂x_out` with
/// `∂F/∂x_i = A·nⁿ + Dⁿ⁺¹ / (nⁿ·Πx·x_i)`, on upscaled balances, the invariant `D` computed
/// exactly by dex-math's port of `StableMath`; the ratio itself in floating point (it only
/// feeds the price impact, a float), to 18 significant digits at most.
fn stable_mid(state: &BalancerPoolState, i: usize, j: usize) -> Result<Ratio, MathError> {
    let n = state.len;
    let upscaled: Vec<U256> = state
        .balances()
        .iter()
        .zip(state.scaling_factors())
        .map(|(b, s)| dex_math::balancer::fixed::mul_down(*b, *s))
        .collect::<Result<_, _>>()?;
    let d = stable_invariant(state.amp, &upscaled)?;
    let to_f64 = |x: U256| -> f64 { x.to_string().parse::<f64>().unwrap_or(f64::NAN) };
    let d = to_f64(d);
    if d <= 0.0 || !d.is_finite() {
        return Err(MathError::InsufficientLiquidity);
    }
    // Balances over D keep the products in range; A·nⁿ is amp·n / 1e3 (amp is A·nⁿ⁻¹·1e3).
    let shares: Vec<f64> = upscaled.iter().map(|x| to_f64(*x) / d).collect();
    let count = n as f64;
    let n_pow_n = count.powi(n as i32);
    let product: f64 = shares.iter().product();
    let a_n_n = to_f64(state.amp) * count / 1e3;
    let partial = |k: usize| a_n_n + 1.0 / (n_pow_n * product * shares[k]);
    let price = partial(i) / partial(j);
    if !price.is_finite() || price <= 0.0 {
        return Err(MathError::InsufficientLiquidity);
    }
    // Scaled price to raw: times scaling_in / scaling_out.
    let numerator = U256::from((price * 1e18).round() as u128);
    Ok(Ratio {
        numerator: U512::from(numerator) * U512::from(state.scaling_factors[i]),
        denominator: U512::from(dex_math::balancer::ONE) * U512::from(state.scaling_factors[j]),
    })
}

impl PoolKind for Balancer {
    fn lookups(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>> {
        let Some((vault, _, pools)) = contracts(dex) else {
            return Arc::new(|_| Vec::new());
        };
        let mut lookups = Vec::new();
        for pair in pairs {
            for entry in pools_for(pools, pair) {
                let slot = balancer::get_pool(batch, vault, entry.id);
                lookups.push((*pair, key_of(entry), entry.id, slot));
            }
        }
        Arc::new(move |results: &BatchResults| {
            lookups
                .iter()
                .map(|(pair, key, id, slot)| Probe {
                    pair: *pair,
                    variant: PoolVariant::BalancerPool { id: *id },
                    found: lookup_outcome(slot.decode(results), *key),
                })
                .collect()
        })
    }

    fn lens_candidates(&self, _chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate> {
        let Some((vault, _, pools)) = contracts(dex) else {
            return Vec::new();
        };
        pools_for(pools, pair)
            .map(|entry| LensCandidate {
                key: key_of(entry),
                address: Some(balancer::pool_address(entry.id)),
                lookup: lookup_call(|batch| {
                    balancer::get_pool(batch, vault, entry.id);
                }),
            })
            .collect()
    }

    fn state(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
    ) -> Decode<Result<PoolState, CallFailure>> {
        let vault = chain.dex(pool.dex).and_then(contracts).map(|c| c.0);
        let (Some(vault), Some((id, pool_type))) = (vault, id_of(pool.key)) else {
            return Arc::new(|_| {
                Err(CallFailure::Decode(
                    "no Balancer Vault for this pool in the registry".to_owned(),
                ))
            });
        };
        let slots = balancer::pool_state(batch, vault, id, pool_type);
        let (token0, token1) = (pool.token0, pool.token1);
        Arc::new(move |results| {
            let state = slots.decode(results)?;
            if state.index_of(token0).is_none() || state.index_of(token1).is_none() {
                return Err(CallFailure::Decode(
                    "the Vault lists other tokens for this pool than the registry".to_owned(),
                ));
            }
            Ok(PoolState::Balancer(state))
        })
    }

    fn quote(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> QuoteDecode {
        let queries = chain.dex(pool.dex).and_then(contracts).map(|c| c.1);
        let (Some(queries), Some((id, _))) = (queries, id_of(pool.key)) else {
            return Arc::new(|_, _| Err(missing()));
        };
        let slot = balancer::query_swap(
            batch,
            queries,
            id,
            token_in,
            pool.other(token_in),
            amount_in,
        );
        amount_call_quote(
            move |results| slot.decode(results),
            QuoteSource::BalancerQueries,
        )
    }

    fn mid(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        _tokens: &[TokenMetadata],
    ) -> Result<Ratio, RouteError> {
        let state = balancer_state(state)?;
        let missing = || RouteError::MidPrice(MathError::InsufficientLiquidity);
        let i = state.index_of(token_in).ok_or_else(missing)?;
        let j = state.index_of(pool.other(token_in)).ok_or_else(missing)?;
        match state.pool_type {
            BalancerPoolType::Weighted => WeightedPool {
                balances: state.balances().to_vec(),
                scaling_factors: state.scaling_factors().to_vec(),
                weights: state.weights().to_vec(),
                swap_fee: state.swap_fee,
            }
            .mid(i, j),
            BalancerPoolType::ComposableStable => stable_mid(state, i, j),
        }
        .map_err(RouteError::MidPrice)
    }

    fn claim(&self, _batch: &mut Batch, _address: Address) -> ClaimDecode {
        Arc::new(|_, _| Err(NotAPool::BalancerByPoolId))
    }

    fn confirm(
        &self,
        batch: &mut Batch,
        dex: &Dex,
        pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        let lookup = contracts(dex)
            .zip(id_of(pool.key))
            .map(|((vault, _, _), (id, _))| balancer::get_pool(batch, vault, id));
        Arc::new(move |results| match &lookup {
            Some(slot) => slot.decode(results),
            None => Ok(None),
        })
    }

    fn quotes_exits(&self) -> bool {
        true
    }

    fn exit(
        &self,
        pool: &Pool,
        _state: &PoolState,
        _token_in: Address,
        _amount_in: U256,
        _quoted: Option<Result<Quoted, FailureReason>>,
        _tokens: &[TokenMetadata],
        _ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError> {
        Err(not_read(pool, "an exit"))
    }

    fn holds_balances(&self) -> bool {
        // The Vault holds every pool's tokens.
        false
    }

    fn candidate_value(
        &self,
        pool: &Pool,
        state: &PoolState,
        tokens: &[TokenMetadata],
        _balances: [Result<U256, RouteError>; 2],
    ) -> Result<U256, RouteError> {
        // The Vault's balances of the pair's two tokens, valued at the pool's own mid price.
        let read = balancer_state(state)?;
        let balance = |token| {
            read.index_of(token)
                .map(|i| read.balances[i])
                .ok_or(RouteError::StateMismatch)
        };
        let (balance0, balance1) = (balance(pool.token0)?, balance(pool.token1)?);
        let mid = self.mid(pool, state, pool.token0, tokens)?;
        let value0 = U512::from(balance0) * mid.numerator / mid.denominator;
        Ok(value0.saturating_to::<U256>().saturating_add(balance1))
    }

    fn depth(
        &self,
        pool: &Pool,
        _state: &PoolState,
        _decimals: (u8, u8),
        _ticks: Option<Result<WalkedTicks, RouteError>>,
        _percents: &[u32],
    ) -> Depth {
        (Err(not_read(pool, "depth")), None)
    }

    fn hop(&self, key: PoolKey) -> HopKind {
        HopKind::Balancer {
            stable: matches!(id_of(key), Some((_, BalancerPoolType::ComposableStable))),
        }
    }

    fn variant(&self, key: PoolKey) -> PoolVariant {
        match id_of(key) {
            Some((id, _)) => PoolVariant::BalancerPool { id },
            None => PoolVariant::Pair,
        }
    }

    fn swap_topic(&self) -> B256 {
        BalancerVaultEvents::Swap::SIGNATURE_HASH
    }

    fn swap_event(&self, _log: &Log) -> Option<SwapEvent> {
        // The sandwich scan does not model the kind yet (`models_sandwich`).
        None
    }

    fn router(&self, _contracts: &DexContracts) -> Option<Address> {
        None
    }

    fn models_sandwich(&self, _pool: &Pool) -> bool {
        false
    }

    fn logs_name_traders(&self) -> bool {
        // The Vault's Swap names no sender.
        false
    }

    fn swap_logs(&self, chain: &ChainInfo, pool: &Pool) -> SwapLogFilter {
        let vault = chain.dex(pool.dex).and_then(contracts).map(|c| c.0);
        SwapLogFilter {
            addresses: vault.into_iter().collect(),
            topic: self.swap_topic(),
            topic1: id_of(pool.key).map(|(id, _)| id),
        }
    }

    fn reads_pool_liquidity(&self) -> bool {
        false
    }

    fn mev_model(
        &self,
        pool: &Pool,
        _state: &PoolState,
        _tokens: &[TokenMetadata],
        _ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        Err(not_read(pool, "the sandwich model"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(balances: &[u128], amp: u64) -> BalancerPoolState {
        let mut s = BalancerPoolState {
            pool_type: BalancerPoolType::ComposableStable,
            len: balances.len(),
            tokens: [Address::ZERO; balancer::MAX_TOKENS],
            balances: [U256::ZERO; balancer::MAX_TOKENS],
            scaling_factors: [U256::ZERO; balancer::MAX_TOKENS],
            weights: [U256::ZERO; balancer::MAX_TOKENS],
            amp: U256::from(amp),
            swap_fee: U256::ZERO,
        };
        for (i, b) in balances.iter().enumerate() {
            s.tokens[i] = Address::with_last_byte(i as u8 + 1);
            s.balances[i] = U256::from(*b);
            s.scaling_factors[i] = dex_math::balancer::ONE;
        }
        s
    }

    fn float(r: &Ratio) -> f64 {
        r.numerator
            .to_string()
            .parse::<f64>()
            .expect("in range in this test")
            / r.denominator
                .to_string()
                .parse::<f64>()
                .expect("in range in this test")
    }

    #[test]
    fn a_balanced_stable_pool_trades_at_par_and_an_unbalanced_one_pays_less_for_the_scarce_side() {
        let e18 = 10u128.pow(18);
        let even = state(&[1_000_000 * e18, 1_000_000 * e18], 200_000);
        assert!(
            (float(&stable_mid(&even, 0, 1).expect("in range in this test")) - 1.0).abs() < 1e-12
        );
        let skewed = state(&[2_000_000 * e18, 500_000 * e18], 200_000);
        let selling_plenty = float(&stable_mid(&skewed, 0, 1).expect("in range in this test"));
        let selling_scarce = float(&stable_mid(&skewed, 1, 0).expect("in range in this test"));
        assert!(selling_plenty < 1.0 && selling_scarce > 1.0);
        assert!((selling_plenty * selling_scarce - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_stable_mid_is_the_limit_of_small_swaps() {
        // The exact port's output for a swap of 1e-9 of the balance, fee-free, matches the mid.
        let e18 = 10u128.pow(18);
        let s = state(
            &[2_000_000 * e18, 2_600_000 * e18, 1_500_000 * e18],
            200_000,
        );
        let pool = dex_math::balancer::StablePool {
            balances: s.balances().to_vec(),
            scaling_factors: s.scaling_factors().to_vec(),
            amp: s.amp,
            swap_fee: U256::ZERO,
        };
        let amount = U256::from(1_000u128 * e18);
        let out = pool
            .out_given_in(0, 2, amount)
            .expect("in range in this test");
        let small = out
            .to_string()
            .parse::<f64>()
            .expect("in range in this test")
            / 1e21;
        let mid = float(&stable_mid(&s, 0, 2).expect("in range in this test"));
        assert!((small / mid - 1.0).abs() < 1e-5, "{small} {mid}");
    }
}
