//! One leg quoted and one pool's state read, as pieces of a [`Batch`]: every quote and
//! state read of a route read goes through here, and so can any other read that needs the
//! amount out of one pool or its state at the pinned block.

use std::collections::BTreeMap;
use std::fmt;

use alloy::primitives::{Address, U256};
use chain_read::dex::{Pool, PoolState};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo};

use crate::kinds::{self, Decode, QuoteDecode};
use crate::outcome::{FailureReason, Leg};

#[cfg(test)]
use crate::kinds::constant_product::reserves_amount_out;
#[cfg(test)]
use chain_read::dex::Reserves;

/// Pool states by pool address: the state, or the read's failure.
pub type PoolStates = BTreeMap<Address, Result<PoolState, CallFailure>>;

/// A pending quote of one swap through one pool.
#[derive(Clone)]
pub struct LegQuote {
    pool: Pool,
    token_in: Address,
    amount_in: U256,
    pending: QuoteDecode,
}

impl fmt::Debug for LegQuote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegQuote")
            .field("pool", &self.pool)
            .field("token_in", &self.token_in)
            .field("amount_in", &self.amount_in)
            .finish_non_exhaustive()
    }
}

impl LegQuote {
    /// Adds the quote of selling `amount_in` of `token_in` through `pool`, as its kind quotes
    /// (QuoterV2 for concentrated liquidity, the pool's own `getAmountOut` for Solidly,
    /// nothing for a constant-product pair: its amount comes from the reserves read by
    /// [`PoolStateReads`]).
    pub fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: Pool,
        token_in: Address,
        amount_in: U256,
    ) -> Self {
        let pending = kinds::of_pool(&pool).quote(batch, chain, &pool, token_in, amount_in);
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
        let quoted = (self.pending)(results, state)?;
        if quoted.amount_out.is_zero() {
            return Err(FailureReason::ZeroOutput);
        }
        Ok(Leg {
            pool: self.pool,
            token_in: self.token_in,
            token_out: self.pool.other(self.token_in),
            amount_in: self.amount_in,
            amount_out: quoted.amount_out,
            source: quoted.source,
            quoter: quoted.quoter,
            gas_estimate: quoted.gas_estimate,
            state: state.and_then(|s| s.as_ref().ok().copied()),
        })
    }
}

/// Pending state reads of a list of pools.
#[derive(Clone)]
pub struct PoolStateReads {
    pending: Vec<(Address, Decode<Result<PoolState, CallFailure>>)>,
}

impl fmt::Debug for PoolStateReads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolStateReads")
            .field(
                "pools",
                &self.pending.iter().map(|(a, _)| a).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl PoolStateReads {
    /// Adds the state reads of every pool, as its kind reads it: `slot0`, `liquidity`, `fee`
    /// and `tickSpacing` of a concentrated-liquidity pool, `getReserves` of a pair,
    /// `getReserves` and the factory's `getFee` of a Solidly pool.
    pub fn add(batch: &mut Batch, chain: &ChainInfo, pools: &[Pool]) -> Self {
        let pending = pools
            .iter()
            .map(|pool| (pool.address, kinds::of_pool(pool).state(batch, chain, pool)))
            .collect();
        Self { pending }
    }

    /// Every pool's state, or the first of its reads that failed.
    pub fn decode(&self, results: &BatchResults) -> PoolStates {
        self.pending
            .iter()
            .map(|(address, decode)| (*address, decode(results)))
            .collect()
    }
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
