//! Balancer V2 weighted and composable stable pools: the registry's curated pools (by pool id,
//! with their tokens) are the candidates of a pair; the Vault's `getPool(id)` confirms one is
//! registered; its state is the Vault's balances and the pool's scaling factors, swap fee and
//! weights or amplification; a swap is quoted by BalancerQueries' `querySwap` (the Vault's
//! `queryBatchSwap`, so the pool's own `onSwap` with its rate providers and any pool type), and
//! dex-math's port of the pool maths gives the mid price, the price after an exit, the depth
//! bands (the swap that moves the price to a band's edge, by bisection over the exact maths)
//! and the sandwich model (docs/decisions.md, "Balancer V2 in `/dex/quote`" and "Balancer V2 in
//! every route").

use std::sync::Arc;

use alloy::primitives::{Address, B256, U256, U512};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::dex::balancer::{self, BalancerPoolEntry, BalancerPoolState, BalancerPoolType};
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, TokenMetadata};
use dex_math::balancer::{BalancerPool, StablePool, WeightedPool};
use dex_math::gas::HopKind;
use dex_math::{MathError, Ratio};
use mev_sim::{BalancerPair, PoolModel, SwapEvent};

use super::{
    ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, MevTicks, NotAPool, PoolKind, Probe,
    QuoteDecode, Quoted, SwapLogFilter, WalkedTicks, amount_call_quote, lookup_call,
    lookup_outcome, missing, swap_log,
};
use crate::error::RouteError;
use crate::liquidity::depth::BandCapital;
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

/// The listed pool named by `name` on `chain`.
pub(crate) fn listed(
    chain: &ChainInfo,
    name: crate::liquidity::BalancerName,
) -> Option<BalancerPoolEntry> {
    use crate::liquidity::BalancerName;
    let (_, _, pools) = chain
        .dex(chain_read::DexId::BalancerV2)
        .and_then(contracts)?;
    pools
        .iter()
        .find(|entry| match name {
            BalancerName::Id(id) => entry.id == id,
            BalancerName::Address(address) => balancer::pool_address(entry.id) == address,
        })
        .cloned()
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

/// The pool as dex-math's port computes it, from the state read.
pub(crate) fn maths(state: &BalancerPoolState) -> BalancerPool {
    match state.pool_type {
        BalancerPoolType::Weighted => BalancerPool::Weighted(WeightedPool {
            balances: state.balances().to_vec(),
            scaling_factors: state.scaling_factors().to_vec(),
            weights: state.weights().to_vec(),
            swap_fee: state.swap_fee,
        }),
        BalancerPoolType::ComposableStable => BalancerPool::Stable(StablePool {
            balances: state.balances().to_vec(),
            scaling_factors: state.scaling_factors().to_vec(),
            amp: state.amp,
            swap_fee: state.swap_fee,
        }),
    }
}

/// The pool indices of `token_in` and the pool's other token of the pair.
fn indices(
    pool: &Pool,
    state: &BalancerPoolState,
    token_in: Address,
) -> Result<(usize, usize), RouteError> {
    let missing = || RouteError::MidPrice(MathError::InsufficientLiquidity);
    Ok((
        state.index_of(token_in).ok_or_else(missing)?,
        state.index_of(pool.other(token_in)).ok_or_else(missing)?,
    ))
}

/// The swap fee in basis points (18 decimals → bps).
fn fee_bps(state: &BalancerPoolState) -> f64 {
    state.swap_fee.saturating_to::<u128>() as f64 / 1e14
}

/// `⌊√(ratio · factor) · 2^96⌋` for a band edge's price, raw token1 per token0.
fn sqrt_x96(ratio: &Ratio, num: u32, den: u32) -> Result<U256, RouteError> {
    let overflow = || RouteError::Math(MathError::Overflow);
    let scaled = ratio
        .numerator
        .checked_mul(U512::from(num))
        .and_then(|n| n.checked_mul(U512::from(1u8) << 192))
        .ok_or_else(overflow)?
        / ratio
            .denominator
            .checked_mul(U512::from(den))
            .filter(|d| !d.is_zero())
            .ok_or_else(overflow)?;
    Ok(scaled.root(2).saturating_to::<U256>())
}

/// The amount of `token_out` a GIVEN_IN swap of `token_in` takes out of the pool while the
/// price of `token_in` falls to its mid price divided by `(100 + percent)/100`.
fn band_side(
    pool: &BalancerPool,
    (i, j): (usize, usize),
    percent: u32,
) -> Result<U256, RouteError> {
    let mid = pool.mid(i, j).map_err(RouteError::MidPrice)?;
    let floor = Ratio {
        numerator: mid.numerator * U512::from(100u32),
        denominator: mid.denominator * U512::from(100 + percent),
    };
    // Past 30 % of the balance a weighted pool refuses (BAL#304); a stable pool takes any
    // amount, its price running away long before a thousand times its balance.
    let balance = pool.balances().get(i).copied().unwrap_or_default();
    let limit = balance
        .saturating_mul(U256::from(1_000u32))
        .max(U256::from(1u8));
    match pool.in_to_price(i, j, &floor, limit) {
        Some((_, out)) => Ok(out),
        None => Err(RouteError::BandBeyondPool {
            percent,
            why: "the pool refuses every swap that would reach it, or its price stays inside the band up to a thousand times its balance",
        }),
    }
}

/// Capital within each band by the pool's exact swap maths: token0 a buyer takes out while
/// the price (token1 per token0) rises to `price·(1+δ)`, token1 a seller takes out while it
/// falls to `price/(1+δ)`.
fn curve_bands(
    pool: &Pool,
    state: &BalancerPoolState,
    percents: &[u32],
) -> Result<Vec<BandCapital>, RouteError> {
    let (i0, i1) = indices(pool, state, pool.token0)?;
    let maths = maths(state);
    let mid = maths.mid(i0, i1).map_err(RouteError::MidPrice)?;
    percents
        .iter()
        .map(|&percent| {
            Ok(BandCapital {
                percent,
                upper_token0: band_side(&maths, (i1, i0), percent)?,
                lower_token1: band_side(&maths, (i0, i1), percent)?,
                upper_sqrt_price_x96: sqrt_x96(&mid, 100 + percent, 100)?,
                lower_sqrt_price_x96: sqrt_x96(&mid, 100, 100 + percent)?,
            })
        })
        .collect()
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
        let (i, j) = indices(pool, state, token_in)?;
        maths(state).mid(i, j).map_err(RouteError::MidPrice)
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
        state: &PoolState,
        token_in: Address,
        amount_in: U256,
        quoted: Option<Result<Quoted, FailureReason>>,
        _tokens: &[TokenMetadata],
        _ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError> {
        let read = balancer_state(state)?;
        let quoted = quoted
            .ok_or_else(|| RouteError::Quote("no querySwap was sent".to_owned()))?
            .map_err(|reason| RouteError::Quote(reason.to_string()))?;
        // The price after: the port's on the balances the swap leaves (the Vault adds the
        // whole amount in, fee included, and pays the amount querySwap answered).
        let (i, j) = indices(pool, read, token_in)?;
        let mid_after = maths(read)
            .with_swap(i, j, amount_in, quoted.amount_out)
            .and_then(|after| after.mid(i, j))
            .map_err(RouteError::MidPrice);
        Ok(ExitAmounts {
            amount_out: quoted.amount_out,
            source: quoted.source,
            fee_bps: fee_bps(read),
            mid_after,
            quoter: None,
        })
    }

    fn own_balances(&self, pool: &Pool, state: &PoolState) -> Option<[U256; 2]> {
        // The Vault's balances of the pool: what it holds for the pool.
        let read = balancer_state(state).ok()?;
        let balance = |token| read.index_of(token).map(|i| read.balances[i]);
        Some([balance(pool.token0)?, balance(pool.token1)?])
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
        state: &PoolState,
        _decimals: (u8, u8),
        _ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth {
        let bands = balancer_state(state).and_then(|read| curve_bands(pool, read, percents));
        (bands, None)
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

    fn swap_event(&self, log: &Log) -> Option<SwapEvent> {
        let e = log
            .log_decode::<BalancerVaultEvents::Swap>()
            .ok()?
            .inner
            .data;
        // The pair's token0 is the lower address; the log names no trader (the signers are
        // read, `logs_name_traders`).
        let log = swap_log(log, Address::ZERO, Address::ZERO);
        Some(SwapEvent {
            log,
            zero_for_one: e.tokenIn < e.tokenOut,
            amount_in: e.amountIn,
            amount_out: e.amountOut,
        })
    }

    fn logs_pair(&self, pool: &Pool, log: &Log) -> bool {
        // A pool of more tokens logs swaps of its other pairs too; tokenIn and tokenOut are
        // its second and third topics.
        let pair = [pool.token0, pool.token1];
        let token = |at: usize| log.topics().get(at).map(|topic| Address::from_word(*topic));
        match (token(2), token(3)) {
            (Some(a), Some(b)) => pair.contains(&a) && pair.contains(&b),
            // Not the Vault's Swap: left to the decoder, which counts it.
            _ => true,
        }
    }

    fn router(&self, _contracts: &DexContracts) -> Option<Address> {
        None
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

    fn mev_model(
        &self,
        pool: &Pool,
        state: &PoolState,
        _tokens: &[TokenMetadata],
        _ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        let read = balancer_state(state)?;
        let (index0, index1) = indices(pool, read, pool.token0)?;
        Ok((
            PoolModel::Balancer(BalancerPair {
                pool: maths(read),
                index0,
                index1,
            }),
            None,
        ))
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

    fn stable_mid(s: &BalancerPoolState, i: usize, j: usize) -> Result<Ratio, MathError> {
        maths(s).mid(i, j)
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
