//! The pools a sandwich can be simulated on, as typed states with their exact swap and the
//! state each swap leaves behind (what the next transaction in the block trades against).

use alloy::primitives::{I256, U256};
use dex_math::balancer::BalancerPool;
use dex_math::{
    MathError, Ratio, SolidlyPool, ValidPoolState, constant_product_mid_price, uniswap_v2,
    v3_mid_price,
};

use crate::MevError;

/// `type(uint112).max`: a Uniswap V2 pair reverts (`UniswapV2: OVERFLOW`) when a balance
/// would not fit its reserves.
const MAX_RESERVE_V2: U256 = U256::from_limbs([u64::MAX, (1 << 48) - 1, 0, 0]);

/// A constant-product pair (Uniswap V2 and its forks): the fee stays in the reserves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantProductPool {
    /// `getReserves().reserve0`.
    pub reserve0: U256,
    /// `getReserves().reserve1`.
    pub reserve1: U256,
    /// The pair's fee in basis points (30 for Uniswap V2).
    pub fee_bps: u32,
}

/// Which curve a [`PoolModel`] uses, for labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolKind {
    /// Uniswap V2 style `x·y = k`.
    ConstantProduct,
    /// Solidly volatile (`x·y`, fee taken out of the pool).
    SolidlyVolatile,
    /// Solidly stable (`x³y + y³x`).
    SolidlyStable,
    /// Uniswap V3 style concentrated liquidity.
    Concentrated,
    /// A Balancer V2 weighted or composable stable pool (the fee stays in the pool).
    Balancer,
}

/// Two tokens of a Balancer V2 pool (which may hold more): the pool's maths and the pair's
/// indices in its token order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancerPair {
    /// The whole pool as the Vault's swap computes it.
    pub pool: BalancerPool,
    /// The index of the pair's token0 among the pool's tokens.
    pub index0: usize,
    /// The index of the pair's token1.
    pub index1: usize,
}

/// One pool at one block, with the exact maths of its contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolModel {
    /// A Uniswap V2 style pair.
    ConstantProduct(ConstantProductPool),
    /// A Solidly / Aerodrome / Velodrome V2 basic pool.
    Solidly(SolidlyPool),
    /// A Uniswap V3 style pool, validated once ([`ValidPoolState::new`]).
    Concentrated(ValidPoolState),
    /// A Balancer V2 pool's two tokens.
    Balancer(BalancerPair),
}

impl PoolModel {
    /// Which curve this is.
    pub fn kind(&self) -> PoolKind {
        match self {
            Self::ConstantProduct(_) => PoolKind::ConstantProduct,
            Self::Solidly(pool) if pool.stable => PoolKind::SolidlyStable,
            Self::Solidly(_) => PoolKind::SolidlyVolatile,
            Self::Concentrated(_) => PoolKind::Concentrated,
            Self::Balancer(_) => PoolKind::Balancer,
        }
    }

    /// What `amount_in` of token0 (`zero_for_one`) or token1 buys, exactly as the contract
    /// pays it. A V3 swap the liquidity cannot fill completely is an error
    /// ([`MathError::InsufficientLiquidity`]): a sandwich leg is an exact-input trade.
    pub fn amount_out(&self, amount_in: U256, zero_for_one: bool) -> Result<U256, MevError> {
        Ok(self.swap(amount_in, zero_for_one)?.0)
    }

    /// The output of an exact-input swap and the pool's state after it.
    pub fn swap(&self, amount_in: U256, zero_for_one: bool) -> Result<(U256, Self), MevError> {
        match self {
            Self::ConstantProduct(pool) => {
                let (reserve_in, reserve_out) = ordered(pool.reserve0, pool.reserve1, zero_for_one);
                let out =
                    uniswap_v2::get_amount_out(amount_in, reserve_in, reserve_out, pool.fee_bps)?;
                let new_in = reserve_in
                    .checked_add(amount_in)
                    .filter(|r| *r <= MAX_RESERVE_V2)
                    .ok_or(MathError::Overflow)?;
                let new_out = reserve_out.checked_sub(out).ok_or(MathError::Underflow)?;
                let (reserve0, reserve1) = ordered(new_in, new_out, zero_for_one);
                Ok((
                    out,
                    Self::ConstantProduct(ConstantProductPool {
                        reserve0,
                        reserve1,
                        fee_bps: pool.fee_bps,
                    }),
                ))
            }
            Self::Solidly(pool) => {
                if amount_in.is_zero() {
                    return Err(MathError::ZeroAmount.into());
                }
                let out = pool.get_amount_out(amount_in, zero_for_one)?;
                // Pool.swap moves the fee to PoolFees before it syncs the reserves, so only
                // the input net of the fee stays in the pool.
                let fee = amount_in
                    .checked_mul(U256::from(pool.fee_bps))
                    .ok_or(MathError::Overflow)?
                    / U256::from(10_000u32);
                let (reserve_in, reserve_out) = ordered(pool.reserve0, pool.reserve1, zero_for_one);
                let new_in = reserve_in
                    .checked_add(amount_in - fee)
                    .ok_or(MathError::Overflow)?;
                let new_out = reserve_out.checked_sub(out).ok_or(MathError::Underflow)?;
                let (reserve0, reserve1) = ordered(new_in, new_out, zero_for_one);
                Ok((
                    out,
                    Self::Solidly(SolidlyPool {
                        reserve0,
                        reserve1,
                        ..*pool
                    }),
                ))
            }
            Self::Concentrated(state) => {
                let specified = I256::try_from(amount_in).map_err(|_| MathError::Overflow)?;
                let result = state
                    .simulate_swap(zero_for_one, specified, None)?
                    .require_complete()?;
                Ok((
                    result.amount_out(zero_for_one),
                    Self::Concentrated(state.with_swap_applied(&result)?),
                ))
            }
            Self::Balancer(pair) => {
                if amount_in.is_zero() {
                    return Err(MathError::ZeroAmount.into());
                }
                let (i, j) = ordered_indices(pair, zero_for_one);
                let out = pair.pool.out_given_in(i, j, amount_in)?;
                Ok((
                    out,
                    Self::Balancer(BalancerPair {
                        pool: pair.pool.with_swap(i, j, amount_in, out)?,
                        ..pair.clone()
                    }),
                ))
            }
        }
    }

    /// The marginal price in output per input (fee excluded), for impact figures.
    pub fn mid_price(&self, zero_for_one: bool) -> Result<Ratio, MevError> {
        Ok(match self {
            Self::ConstantProduct(pool) => {
                let (reserve_in, reserve_out) = ordered(pool.reserve0, pool.reserve1, zero_for_one);
                constant_product_mid_price(reserve_in, reserve_out)?
            }
            Self::Solidly(pool) => pool.mid_price(zero_for_one)?,
            Self::Concentrated(state) => v3_mid_price(state.sqrt_price_x96(), zero_for_one)?,
            Self::Balancer(pair) => {
                let (i, j) = ordered_indices(pair, zero_for_one);
                pair.pool.mid(i, j)?
            }
        })
    }
}

/// The pool indices of (token in, token out).
fn ordered_indices(pair: &BalancerPair, zero_for_one: bool) -> (usize, usize) {
    if zero_for_one {
        (pair.index0, pair.index1)
    } else {
        (pair.index1, pair.index0)
    }
}

/// `(a, b)` for token0 in, `(b, a)` otherwise.
fn ordered(a: U256, b: U256, zero_for_one: bool) -> (U256, U256) {
    if zero_for_one { (a, b) } else { (b, a) }
}
