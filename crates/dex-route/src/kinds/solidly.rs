//! Solidly basic pools (Aerodrome, Velodrome V2): a volatile (`x·y`) and a stable
//! (`x³y + y³x`) pool per pair found with `getPool(a, b, stable)`, quoted by the pool's own
//! `getAmountOut`, its state the reserves and the factory's `getFee`; exits and the stable
//! curve's depth on dex-math's exact port of the pool's maths.

use std::sync::Arc;

use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::dex::{Pool, PoolKey, PoolState, Reserves, solidly};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, TokenMetadata};
use dex_math::gas::HopKind;
use dex_math::{MathError, Ratio, SolidlyPool};
use mev_sim::{PoolModel, SwapEvent};

use super::{
    Claim, ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, MevTicks, NotAPool, PoolKind,
    Probe, QuoteDecode, Quoted, WalkedTicks, amount_call_quote, decimals, lookup_call,
    lookup_outcome, swap_log,
};
use crate::error::RouteError;
use crate::liquidity::depth;
use crate::liquidity::exit::TicksRead;
use crate::mev::TickWindow;
use crate::outcome::{FailureReason, PoolVariant, QuoteSource};
use crate::plan::Pair;

alloy::sol! {
    /// Solidly / Aerodrome pool events.
    interface SolidlyPoolEvents {
        /// A swap.
        event Swap(address indexed sender, address indexed to, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out);
    }
}

/// The adapter.
pub(crate) struct Solidly;

fn stable(key: PoolKey) -> Option<bool> {
    key.stable()
}

fn reserves_and_fee(state: &PoolState) -> Result<(Reserves, u32), RouteError> {
    match state {
        PoolState::Solidly { reserves, fee_bps } => Ok((*reserves, *fee_bps)),
        _ => Err(RouteError::StateMismatch),
    }
}

/// The pool's curve from its state and both tokens' decimals.
fn curve(
    pool: &Pool,
    state: &PoolState,
    tokens: &[TokenMetadata],
) -> Result<Result<SolidlyPool, MathError>, RouteError> {
    let (reserves, fee_bps) = reserves_and_fee(state)?;
    let stable = stable(pool.key).ok_or(RouteError::StateMismatch)?;
    Ok(SolidlyPool::new(
        reserves.reserve0,
        reserves.reserve1,
        decimals(tokens, pool.token0)?,
        decimals(tokens, pool.token1)?,
        stable,
        fee_bps,
    ))
}

impl PoolKind for Solidly {
    fn lookups(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>> {
        let factory = match &dex.contracts {
            DexContracts::Solidly { pool_factory, .. } => *pool_factory,
            _ => return Arc::new(|_| Vec::new()),
        };
        let mut lookups = Vec::new();
        for pair in pairs {
            for stable in [false, true] {
                let lookup =
                    solidly::get_pool(batch, factory, pair.token_in, pair.token_out, stable);
                lookups.push((*pair, stable, lookup));
            }
        }
        Arc::new(move |results: &BatchResults| {
            lookups
                .iter()
                .map(|(pair, stable, lookup)| Probe {
                    pair: *pair,
                    variant: PoolVariant::Solidly { stable: *stable },
                    found: lookup_outcome(
                        lookup.decode(results),
                        PoolKey::Solidly { stable: *stable },
                    ),
                })
                .collect()
        })
    }

    fn lens_candidates(&self, _chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate> {
        let DexContracts::Solidly { pool_factory, .. } = &dex.contracts else {
            return Vec::new();
        };
        [false, true]
            .into_iter()
            .map(|stable| LensCandidate {
                key: PoolKey::Solidly { stable },
                address: None,
                lookup: lookup_call(|batch| {
                    solidly::get_pool(batch, *pool_factory, pair.token_in, pair.token_out, stable);
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
        let factory = chain.dex(pool.dex).map(|d| d.factory()).unwrap_or_default();
        let stable = stable(pool.key).unwrap_or_default();
        let reserves = solidly::reserves(batch, pool.address);
        let fee = solidly::fee(batch, factory, pool.address, stable);
        Arc::new(move |results| {
            Ok(PoolState::Solidly {
                reserves: reserves.decode(results)?,
                fee_bps: fee.decode(results)?,
            })
        })
    }

    fn quote(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> QuoteDecode {
        let slot = solidly::amount_out(batch, pool.address, amount_in, token_in);
        amount_call_quote(
            move |results| slot.decode(results),
            QuoteSource::PoolGetAmountOut,
        )
    }

    fn mid(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        tokens: &[TokenMetadata],
    ) -> Result<Ratio, RouteError> {
        curve(pool, state, tokens)?
            .and_then(|curve| curve.mid_price(token_in == pool.token0))
            .map_err(RouteError::MidPrice)
    }

    fn claim(&self, batch: &mut Batch, address: Address) -> ClaimDecode {
        let slot = solidly::stable(batch, address);
        Arc::new(move |results, _| {
            let stable = slot.decode(results).map_err(NotAPool::NotSolidly)?;
            Ok(Claim {
                key: PoolKey::Solidly { stable },
                ticks_from: None,
            })
        })
    }

    fn confirm(
        &self,
        batch: &mut Batch,
        dex: &Dex,
        pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        let stable = stable(pool.key).unwrap_or_default();
        let lookup = solidly::get_pool(batch, dex.factory(), pool.token0, pool.token1, stable);
        Arc::new(move |results| lookup.decode(results))
    }

    fn quotes_exits(&self) -> bool {
        false
    }

    fn exit(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        amount_in: U256,
        _quoted: Option<Result<Quoted, FailureReason>>,
        tokens: &[TokenMetadata],
        _ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError> {
        let (reserves, fee_bps) = reserves_and_fee(state)?;
        let stable = stable(pool.key).ok_or(RouteError::StateMismatch)?;
        let token0_in = token_in == pool.token0;
        let (decimals0, decimals1) = (
            decimals(tokens, pool.token0)?,
            decimals(tokens, pool.token1)?,
        );
        let before = SolidlyPool::new(
            reserves.reserve0,
            reserves.reserve1,
            decimals0,
            decimals1,
            stable,
            fee_bps,
        )
        .map_err(RouteError::Math)?;
        let out = before
            .get_amount_out(amount_in, token0_in)
            .map_err(RouteError::Math)?;
        // The fee leaves the pool (to its fee contract); the rest of the input stays.
        let kept_in = amount_in - amount_in * U256::from(fee_bps) / U256::from(10_000u32);
        let moved = move_reserves(&reserves, token0_in, kept_in, out)?;
        let after = SolidlyPool::new(
            moved.reserve0,
            moved.reserve1,
            decimals0,
            decimals1,
            stable,
            fee_bps,
        )
        .and_then(|pool| pool.mid_price(token0_in))
        .map_err(RouteError::MidPrice)?;
        Ok(ExitAmounts {
            amount_out: out,
            source: QuoteSource::SolidlyReserves,
            fee_bps: f64::from(fee_bps),
            mid_after: Ok(after),
            quoter: None,
        })
    }

    fn depth(
        &self,
        pool: &Pool,
        state: &PoolState,
        decimals: (u8, u8),
        _ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth {
        let bands = reserves_and_fee(state).and_then(|(reserves, fee_bps)| {
            if pool.key.stable() == Some(false) {
                depth::constant_product_bands(reserves.reserve0, reserves.reserve1, percents)
                    .map_err(RouteError::Math)
            } else {
                dex_math::SolidlyPool::new(
                    reserves.reserve0,
                    reserves.reserve1,
                    decimals.0,
                    decimals.1,
                    true,
                    fee_bps,
                )
                .and_then(|curve| depth::solidly_stable_bands(&curve, percents))
                .map_err(RouteError::Math)
            }
        });
        (bands, None)
    }

    fn hop(&self, key: PoolKey) -> HopKind {
        HopKind::Solidly {
            stable: stable(key).unwrap_or_default(),
        }
    }

    fn variant(&self, key: PoolKey) -> PoolVariant {
        PoolVariant::Solidly {
            stable: stable(key).unwrap_or_default(),
        }
    }

    fn swap_topic(&self) -> B256 {
        SolidlyPoolEvents::Swap::SIGNATURE_HASH
    }

    fn swap_event(&self, log: &Log) -> Option<SwapEvent> {
        let e = log.log_decode::<SolidlyPoolEvents::Swap>().ok()?.inner.data;
        SwapEvent::from_v2(
            swap_log(log, e.sender, e.to),
            e.amount0In,
            e.amount1In,
            e.amount0Out,
            e.amount1Out,
        )
        .ok()
    }

    fn router(&self, contracts: &DexContracts) -> Option<Address> {
        match contracts {
            DexContracts::Solidly { router, .. } => *router,
            _ => None,
        }
    }

    fn mev_model(
        &self,
        pool: &Pool,
        state: &PoolState,
        tokens: &[TokenMetadata],
        _ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        let (reserves, fee_bps) = reserves_and_fee(state)?;
        let stable = pool.key.stable() == Some(true);
        let curve = SolidlyPool::new(
            reserves.reserve0,
            reserves.reserve1,
            decimals(tokens, pool.token0)?,
            decimals(tokens, pool.token1)?,
            stable,
            fee_bps,
        )
        .map_err(RouteError::Math)?;
        Ok((PoolModel::Solidly(curve), None))
    }
}

fn move_reserves(
    reserves: &Reserves,
    token0_in: bool,
    amount_in: U256,
    amount_out: U256,
) -> Result<Reserves, RouteError> {
    let overflow = || RouteError::Math(MathError::Overflow);
    let underflow = || RouteError::Math(MathError::Underflow);
    Ok(if token0_in {
        Reserves {
            reserve0: reserves
                .reserve0
                .checked_add(amount_in)
                .ok_or_else(overflow)?,
            reserve1: reserves
                .reserve1
                .checked_sub(amount_out)
                .ok_or_else(underflow)?,
        }
    } else {
        Reserves {
            reserve0: reserves
                .reserve0
                .checked_sub(amount_out)
                .ok_or_else(underflow)?,
            reserve1: reserves
                .reserve1
                .checked_add(amount_in)
                .ok_or_else(overflow)?,
        }
    })
}
