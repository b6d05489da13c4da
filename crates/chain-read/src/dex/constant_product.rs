//! Uniswap-V2-style pairs (Uniswap v2-core): `getPair` on the factory and `getReserves` on the
//! pair. The amount out is `dex-math`'s `UniswapV2Library.getAmountOut` on these reserves (the
//! spec asks for pool maths on live reserves; no router call needed).

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
