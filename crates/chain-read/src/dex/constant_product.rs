//! Uniswap-V2-style pairs (research §2.4): `getPair` on the factory, `getReserves` on the pair,
//! and the amount out computed from the reserves (the spec asks for pool maths on live
//! reserves; no router call needed).

use alloy::primitives::{Address, U256};

use super::{PoolLookup, Reserves};
use crate::bindings::{IUniswapV2Factory, IUniswapV2Pair};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// Adds `getPair(a, b)`.
pub fn get_pair(
    batch: &mut Batch,
    factory: Address,
    token_a: Address,
    token_b: Address,
) -> PoolLookup<IUniswapV2Factory::getPairCall> {
    PoolLookup::new(batch.add(
        factory,
        &IUniswapV2Factory::getPairCall {
            tokenA: token_a,
            tokenB: token_b,
        },
    ))
}

/// A pending `getReserves`.
#[derive(Debug, Clone, Copy)]
pub struct ReservesSlot {
    slot: Slot<IUniswapV2Pair::getReservesCall>,
}

/// Adds `getReserves()` of `pair`.
pub fn reserves(batch: &mut Batch, pair: Address) -> ReservesSlot {
    ReservesSlot {
        slot: batch.add(pair, &IUniswapV2Pair::getReservesCall {}),
    }
}

impl ReservesSlot {
    /// Reserves in token order.
    pub fn decode(&self, results: &BatchResults) -> Result<Reserves, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(Reserves {
            reserve0: U256::from(answer.reserve0),
            reserve1: U256::from(answer.reserve1),
        })
    }
}

/// `in·(10000−fee)·Rout / (Rin·10000 + in·(10000−fee))`, Uniswap V2's `getAmountOut` with the
/// fee in basis points (30 gives exactly its `997/1000`). `None` for an empty pool or an amount
/// so large the product overflows.
///
/// Kept here (not in `dex-math`) so legs can be chained inside this crate, which depends on
/// nothing of ours; `dex-math`'s version must agree with it.
pub fn amount_out(
    amount_in: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Option<U256> {
    if amount_in.is_zero() || reserve_in.is_zero() || reserve_out.is_zero() || fee_bps >= 10_000 {
        return None;
    }
    let in_with_fee = amount_in.checked_mul(U256::from(10_000 - fee_bps))?;
    let numerator = in_with_fee.checked_mul(reserve_out)?;
    let denominator = reserve_in
        .checked_mul(U256::from(10_000u32))?
        .checked_add(in_with_fee)?;
    Some(numerator / denominator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_uniswap_v2_get_amount_out() {
        // Uniswap V2's own: in·997·Rout / (Rin·1000 + in·997).
        let (a, rin, rout) = (
            U256::from(3_333_333_333_333_333_481u128),
            U256::from(982_968_396_815_055_292_959u128),
            U256::from(3_055_423_243_518u64),
        );
        let v2 = a * U256::from(997) * rout / (rin * U256::from(1000) + a * U256::from(997));
        assert_eq!(amount_out(a, rin, rout, 30), Some(v2));
        // The devnet's Router02 answer for this trade (addresses.json checks.v2_pairs).
        assert_eq!(v2, U256::from(10_295_320_950u64));
    }

    #[test]
    fn empty_pools_and_overflow_have_no_answer() {
        assert_eq!(
            amount_out(U256::from(1), U256::ZERO, U256::from(1), 30),
            None
        );
        assert_eq!(
            amount_out(U256::ZERO, U256::from(1), U256::from(1), 30),
            None
        );
        assert_eq!(amount_out(U256::MAX, U256::from(1), U256::MAX, 30), None);
    }
}
