//! Solidly pools, Aerodrome and Velodrome V2 (Aerodrome's contracts): `getPool(a, b, stable)` for both
//! pool types, the pool's own `getAmountOut(amountIn, tokenIn)` (it applies the fee and the
//! stable curve exactly), reserves, and the factory's `getFee(pool, stable)` in basis points.

use alloy::primitives::{Address, U256};

use super::{PoolLookup, Reserves};
use crate::bindings::{ISolidlyFactory, ISolidlyPool};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// Adds `getPool(a, b, stable)`.
pub fn get_pool(
    batch: &mut Batch,
    pool_factory: Address,
    token_a: Address,
    token_b: Address,
    stable: bool,
) -> PoolLookup<ISolidlyFactory::getPoolCall> {
    PoolLookup::new(batch.add(
        pool_factory,
        &ISolidlyFactory::getPoolCall {
            tokenA: token_a,
            tokenB: token_b,
            stable,
        },
    ))
}

/// A pending `getAmountOut`.
#[derive(Debug, Clone, Copy)]
pub struct AmountOutSlot {
    slot: Slot<ISolidlyPool::getAmountOutCall>,
}

/// Adds the pool's `getAmountOut(amountIn, tokenIn)`.
pub fn amount_out(
    batch: &mut Batch,
    pool: Address,
    amount_in: U256,
    token_in: Address,
) -> AmountOutSlot {
    AmountOutSlot {
        slot: batch.add(
            pool,
            &ISolidlyPool::getAmountOutCall {
                amountIn: amount_in,
                tokenIn: token_in,
            },
        ),
    }
}

impl AmountOutSlot {
    /// The output amount.
    pub fn decode(&self, results: &BatchResults) -> Result<U256, CallFailure> {
        results.get(self.slot)
    }
}

/// A pending `getReserves`.
#[derive(Debug, Clone, Copy)]
pub struct ReservesSlot {
    slot: Slot<ISolidlyPool::getReservesCall>,
}

/// Adds the pool's `getReserves()`.
pub fn reserves(batch: &mut Batch, pool: Address) -> ReservesSlot {
    ReservesSlot {
        slot: batch.add(pool, &ISolidlyPool::getReservesCall {}),
    }
}

impl ReservesSlot {
    /// Reserves in token order.
    pub fn decode(&self, results: &BatchResults) -> Result<Reserves, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(Reserves {
            reserve0: answer.reserve0,
            reserve1: answer.reserve1,
        })
    }
}

/// A pending `getFee`.
#[derive(Debug, Clone, Copy)]
pub struct FeeSlot {
    slot: Slot<ISolidlyFactory::getFeeCall>,
}

/// Adds the factory's `getFee(pool, stable)`.
pub fn fee(batch: &mut Batch, pool_factory: Address, pool: Address, stable: bool) -> FeeSlot {
    FeeSlot {
        slot: batch.add(pool_factory, &ISolidlyFactory::getFeeCall { pool, stable }),
    }
}

impl FeeSlot {
    /// Fee in basis points (`MAX_FEE` is 100, so anything above 10000 is not a fee).
    pub fn decode(&self, results: &BatchResults) -> Result<u32, CallFailure> {
        let fee = results.get(self.slot)?;
        u32::try_from(fee)
            .ok()
            .filter(|bps| *bps <= 10_000)
            .ok_or_else(|| CallFailure::Decode(format!("fee {fee} is not in basis points")))
    }
}

/// A pending `pool.stable()`.
#[derive(Debug, Clone, Copy)]
pub struct StableSlot {
    slot: Slot<ISolidlyPool::stableCall>,
}

/// Adds `pool.stable()`: which curve a pool found by address uses.
pub fn stable(batch: &mut Batch, pool: Address) -> StableSlot {
    StableSlot {
        slot: batch.add(pool, &ISolidlyPool::stableCall {}),
    }
}

impl StableSlot {
    /// `true` for the `x³y + y³x` curve.
    pub fn decode(&self, results: &BatchResults) -> Result<bool, CallFailure> {
        results.get(self.slot)
    }
}
