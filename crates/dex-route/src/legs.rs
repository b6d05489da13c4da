//! One leg quoted and one pool's state read, as pieces of a [`Batch`]: every quote and
//! state read of a route read goes through here, and so can any other read that needs the
//! amount out of one pool or its state at the pinned block.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256};
use chain_read::dex::{
    Pool, PoolKey, PoolState, Reserves, concentrated, constant_product, solidly,
};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo, DexContracts};
use dex_math::MathError;

use crate::outcome::{FailureReason, Leg, QuoteSource};

/// Pool states by pool address: the state, or the read's failure.
pub type PoolStates = BTreeMap<Address, Result<PoolState, CallFailure>>;

/// A pending quote of one swap through one pool.
#[derive(Debug, Clone, Copy)]
pub struct LegQuote {
    pool: Pool,
    token_in: Address,
    amount_in: U256,
    pending: Pending,
}

/// How the amount out will be known.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Quoter(concentrated::QuoteSlot),
    AmountOut(solidly::AmountOutSlot),
    /// Computed from reserves; nothing to read.
    Reserves,
}

impl LegQuote {
    /// Adds the quote of selling `amount_in` of `token_in` through `pool`: QuoterV2 for
    /// concentrated liquidity, the pool's own `getAmountOut` for Solidly, nothing for a
    /// constant-product pair (its amount comes from the reserves read by [`PoolStateReads`]).
    pub fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: Pool,
        token_in: Address,
        amount_in: U256,
    ) -> Self {
        let token_out = pool.other(token_in);
        let pending = match (pool.key, chain.dex(pool.dex).map(|d| &d.contracts)) {
            (
                PoolKey::Concentrated { fee, .. },
                Some(DexContracts::ConcentratedLiquidity { quoter_v2, .. }),
            ) => Pending::Quoter(concentrated::quote_exact_input_single(
                batch, *quoter_v2, token_in, token_out, amount_in, fee,
            )),
            (PoolKey::Solidly { .. }, _) => Pending::AmountOut(solidly::amount_out(
                batch,
                pool.address,
                amount_in,
                token_in,
            )),
            _ => Pending::Reserves,
        };
        Self {
            pool,
            token_in,
            amount_in,
            pending,
        }
    }

    /// The pool.
    pub fn pool(&self) -> Pool {
        self.pool
    }

    /// Token sold.
    pub fn token_in(&self) -> Address {
        self.token_in
    }

    /// Amount sold.
    pub fn amount_in(&self) -> U256 {
        self.amount_in
    }

    /// The leg from its answers (`None` when no batch was sent), or why there is none.
    pub fn settle(
        &self,
        results: Option<&BatchResults>,
        states: &PoolStates,
    ) -> Result<Leg, FailureReason> {
        let state = states.get(&self.pool.address);
        let missing = || FailureReason::Call(CallFailure::Decode("no answer in batch".to_owned()));
        let (amount_out, source, quoter) = match &self.pending {
            Pending::Quoter(slot) => {
                let quote = slot
                    .decode(results.ok_or_else(missing)?)
                    .map_err(FailureReason::Call)?;
                (quote.amount_out, QuoteSource::QuoterV2, Some(quote))
            }
            Pending::AmountOut(slot) => {
                let out = slot
                    .decode(results.ok_or_else(missing)?)
                    .map_err(FailureReason::Call)?;
                (out, QuoteSource::PoolGetAmountOut, None)
            }
            Pending::Reserves => {
                let reserves = match state {
                    Some(Ok(PoolState::ConstantProduct(reserves))) => *reserves,
                    Some(Err(failure)) => return Err(FailureReason::Call(failure.clone())),
                    _ => return Err(missing()),
                };
                let fee_bps = match self.pool.key {
                    PoolKey::ConstantProduct { fee_bps } => fee_bps,
                    _ => return Err(missing()),
                };
                let out = reserves_amount_out(
                    &reserves,
                    self.pool.token0,
                    self.token_in,
                    self.amount_in,
                    fee_bps,
                )?;
                (out, QuoteSource::Reserves, None)
            }
        };
        if amount_out.is_zero() {
            return Err(FailureReason::ZeroOutput);
        }
        Ok(Leg {
            pool: self.pool,
            token_in: self.token_in,
            token_out: self.pool.other(self.token_in),
            amount_in: self.amount_in,
            amount_out,
            source,
            quoter,
            state: state.and_then(|s| s.as_ref().ok().copied()),
        })
    }
}

/// A constant-product leg from the pair's reserves: `UniswapV2Library.getAmountOut` as
/// `dex-math` computes it.
fn reserves_amount_out(
    reserves: &Reserves,
    token0: Address,
    token_in: Address,
    amount_in: U256,
    fee_bps: u32,
) -> Result<U256, FailureReason> {
    let (reserve_in, reserve_out) = reserves.oriented(token0, token_in);
    if reserve_in.is_zero() || reserve_out.is_zero() {
        return Err(FailureReason::EmptyPool);
    }
    dex_math::uniswap_v2::get_amount_out(amount_in, reserve_in, reserve_out, fee_bps).map_err(
        |error| match error {
            MathError::InsufficientLiquidity => FailureReason::EmptyPool,
            // Overflow (and a fee of 100 % or more, which no registry entry has): the library
            // would revert the same way.
            _ => FailureReason::AmountTooLarge,
        },
    )
}

/// Pending state reads of a list of pools.
#[derive(Debug, Clone)]
pub struct PoolStateReads {
    pending: Vec<(Address, PendingState)>,
}

/// A pool's pending state reads.
#[derive(Debug, Clone, Copy)]
enum PendingState {
    Concentrated(concentrated::PoolStateSlots),
    ConstantProduct(constant_product::ReservesSlot),
    Solidly(solidly::ReservesSlot, solidly::FeeSlot),
}

impl PoolStateReads {
    /// Adds the state reads of every pool: `slot0`, `liquidity`, `fee` and `tickSpacing` of
    /// a concentrated-liquidity pool, `getReserves` of a pair, `getReserves` and the factory's
    /// `getFee` of a Solidly pool.
    pub fn add(batch: &mut Batch, chain: &ChainInfo, pools: &[Pool]) -> Self {
        let pending = pools
            .iter()
            .map(|pool| {
                let state = match pool.key {
                    PoolKey::Concentrated { .. } => {
                        PendingState::Concentrated(concentrated::pool_state(batch, pool.address))
                    }
                    PoolKey::ConstantProduct { .. } => PendingState::ConstantProduct(
                        constant_product::reserves(batch, pool.address),
                    ),
                    PoolKey::Solidly { stable } => {
                        let factory = chain.dex(pool.dex).map(|d| d.factory()).unwrap_or_default();
                        PendingState::Solidly(
                            solidly::reserves(batch, pool.address),
                            solidly::fee(batch, factory, pool.address, stable),
                        )
                    }
                };
                (pool.address, state)
            })
            .collect();
        Self { pending }
    }

    /// Every pool's state, or the first of its reads that failed.
    pub fn decode(&self, results: &BatchResults) -> PoolStates {
        self.pending
            .iter()
            .map(|(address, pending)| (*address, decode_state(pending, results)))
            .collect()
    }
}

fn decode_state(pending: &PendingState, results: &BatchResults) -> Result<PoolState, CallFailure> {
    Ok(match pending {
        PendingState::Concentrated(slots) => PoolState::Concentrated(slots.decode(results)?),
        PendingState::ConstantProduct(slot) => PoolState::ConstantProduct(slot.decode(results)?),
        PendingState::Solidly(reserves, fee) => PoolState::Solidly {
            reserves: reserves.decode(results)?,
            fee_bps: fee.decode(results)?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserves(reserve0: u128, reserve1: u128) -> Reserves {
        Reserves {
            reserve0: U256::from(reserve0),
            reserve1: U256::from(reserve1),
        }
    }

    #[test]
    fn a_reserves_leg_is_the_v2_formula_in_the_pools_orientation() {
        let (low, high) = (Address::with_last_byte(1), Address::with_last_byte(2));
        let pool = reserves(982_968_396_815_055_292_959, 3_055_423_243_518);
        let amount = U256::from(3_333_333_333_333_333_481u128);
        // The devnet's Router02 answer for this trade (addresses.json checks.v2_pairs).
        assert_eq!(
            reserves_amount_out(&pool, low, low, amount, 30),
            Ok(U256::from(10_295_320_950u64))
        );
        // Selling the other token uses the reserves the other way round.
        let back = reserves(3_055_423_243_518, 982_968_396_815_055_292_959);
        assert_eq!(
            reserves_amount_out(&back, low, high, amount, 30),
            reserves_amount_out(&pool, low, low, amount, 30)
        );
    }

    #[test]
    fn empty_pools_and_overflow_are_failures_with_their_reason() {
        let token = Address::with_last_byte(1);
        assert_eq!(
            reserves_amount_out(&reserves(0, 1), token, token, U256::from(1), 30),
            Err(FailureReason::EmptyPool)
        );
        assert_eq!(
            reserves_amount_out(&reserves(1, 0), token, token, U256::from(1), 30),
            Err(FailureReason::EmptyPool)
        );
        assert_eq!(
            reserves_amount_out(
                &Reserves {
                    reserve0: U256::from(1),
                    reserve1: U256::MAX
                },
                token,
                token,
                U256::MAX,
                30
            ),
            Err(FailureReason::AmountTooLarge)
        );
    }
}
