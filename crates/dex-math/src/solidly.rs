//! Solidly-style basic pools (Aerodrome and Velodrome V2 `Pool.sol`): the volatile
//! constant product and the stable `x³y + y³x` curve, exactly as `getAmountOut` computes
//! them, including the pool's 18-decimal normalisation and its Newton loop `_get_y`.
//! Every operation is checked, as Solidity 0.8 is: an overflow is an error, not a wrap.

use alloy::primitives::{U256, U512};

use crate::MathError;
use crate::price::Ratio;

/// 1e18, the stable curve's fixed-point unit.
const WAD: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);

/// A pool as `Pool.metadata()` and `PoolFactory.getFee(pool, stable)` describe it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolidlyPool {
    /// reserve0.
    pub reserve0: U256,
    /// reserve1.
    pub reserve1: U256,
    /// `10^decimals` of token0, as the pool stores it (`metadata().dec0`).
    pub unit0: U256,
    /// `10^decimals` of token1 (`metadata().dec1`).
    pub unit1: U256,
    /// Stable (`x³y + y³x`) or volatile (`x·y`) curve.
    pub stable: bool,
    /// The factory's fee for this pool in basis points (`getFee`, already 0 for a pool
    /// marked with the zero-fee indicator).
    pub fee_bps: u32,
}

fn mul(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

fn add(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_add(b).ok_or(MathError::Overflow)
}

fn sub(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_sub(b).ok_or(MathError::Underflow)
}

fn div(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_div(b).ok_or(MathError::DivisionByZero)
}

impl SolidlyPool {
    /// A pool from token decimals (the pool stores `10^decimals`).
    pub fn new(
        reserve0: U256,
        reserve1: U256,
        decimals0: u8,
        decimals1: u8,
        stable: bool,
        fee_bps: u32,
    ) -> Result<Self, MathError> {
        let ten = U256::from(10u8);
        let unit = |decimals: u8| {
            ten.checked_pow(U256::from(decimals))
                .ok_or(MathError::Overflow)
        };
        Ok(Self {
            reserve0,
            reserve1,
            unit0: unit(decimals0)?,
            unit1: unit(decimals1)?,
            stable,
            fee_bps,
        })
    }

    /// Output for `amount_in` of token0 (`token0_in`) or token1 (Pool.getAmountOut): the
    /// fee is taken from the input first (`amountIn -= amountIn·fee/10000`).
    pub fn get_amount_out(&self, amount_in: U256, token0_in: bool) -> Result<U256, MathError> {
        let fee = div(
            mul(amount_in, U256::from(self.fee_bps))?,
            U256::from(10_000u32),
        )?;
        let amount_in = sub(amount_in, fee)?;
        if self.stable {
            let xy = self.k(self.reserve0, self.reserve1)?;
            let reserve0 = div(mul(self.reserve0, WAD)?, self.unit0)?;
            let reserve1 = div(mul(self.reserve1, WAD)?, self.unit1)?;
            let (reserve_a, reserve_b, unit_in, unit_out) = if token0_in {
                (reserve0, reserve1, self.unit0, self.unit1)
            } else {
                (reserve1, reserve0, self.unit1, self.unit0)
            };
            let amount_in = div(mul(amount_in, WAD)?, unit_in)?;
            let y = sub(
                reserve_b,
                self.get_y(add(amount_in, reserve_a)?, xy, reserve_b)?,
            )?;
            div(mul(y, unit_out)?, WAD)
        } else {
            let (reserve_a, reserve_b) = if token0_in {
                (self.reserve0, self.reserve1)
            } else {
                (self.reserve1, self.reserve0)
            };
            div(mul(amount_in, reserve_b)?, add(reserve_a, amount_in)?)
        }
    }

    /// The invariant (Pool._k): `x³y + y³x` on 18-decimal amounts for a stable pool,
    /// `x·y` for a volatile one. Takes raw token amounts and normalises them itself.
    pub fn k(&self, x: U256, y: U256) -> Result<U256, MathError> {
        if self.stable {
            let x = div(mul(x, WAD)?, self.unit0)?;
            let y = div(mul(y, WAD)?, self.unit1)?;
            let a = div(mul(x, y)?, WAD)?;
            let b = add(div(mul(x, x)?, WAD)?, div(mul(y, y)?, WAD)?)?;
            div(mul(a, b)?, WAD)
        } else {
            mul(x, y)
        }
    }

    /// The `y` with `f(x0, y) >= xy` closest to it, by Newton's method from `y` (Pool._get_y),
    /// at most 255 rounds. The pool's `_k(x0, y + 1)` inside the loop normalises its already
    /// normalised arguments once more; that is the contract's behaviour and kept here.
    fn get_y(&self, x0: U256, xy: U256, mut y: U256) -> Result<U256, MathError> {
        let one = U256::from(1u8);
        for _ in 0..255 {
            let k = stable_f(x0, y)?;
            if k < xy {
                let mut dy = div(mul(xy - k, WAD)?, stable_d(x0, y)?)?;
                if dy.is_zero() {
                    if k == xy {
                        return Ok(y);
                    }
                    if self.k(x0, add(y, one)?)? > xy {
                        return add(y, one);
                    }
                    dy = one;
                }
                y = add(y, dy)?;
            } else {
                let mut dy = div(mul(k - xy, WAD)?, stable_d(x0, y)?)?;
                if dy.is_zero() {
                    if k == xy || stable_f(x0, sub(y, one)?)? < xy {
                        return Ok(y);
                    }
                    dy = one;
                }
                y = sub(y, dy)?;
            }
        }
        Err(MathError::StableNotConverged)
    }

    /// The marginal price at the reserves, in raw output units per raw input unit.
    ///
    /// Volatile: `R_out / R_in`. Stable: the slope of `x³y + xy³ = k` at the 18-decimal
    /// reserves, `(3x²y + y³) / (x³ + 3xy²)` for token1 per token0 (inverted the other way),
    /// converted back to raw units with the two decimals. The fee is not part of it.
    pub fn mid_price(&self, token0_in: bool) -> Result<Ratio, MathError> {
        let price0 = if self.stable {
            let x = U512::from(div(mul(self.reserve0, WAD)?, self.unit0)?);
            let y = U512::from(div(mul(self.reserve1, WAD)?, self.unit1)?);
            let three = U512::from(3u8);
            let mul512 = |a: U512, b: U512| a.checked_mul(b).ok_or(MathError::Overflow);
            let add512 = |a: U512, b: U512| a.checked_add(b).ok_or(MathError::Overflow);
            // Normalised token1 per normalised token0, then × unit1/unit0 for raw units.
            let slope_num = add512(
                mul512(mul512(three, mul512(x, x)?)?, y)?,
                mul512(mul512(y, y)?, y)?,
            )?;
            let slope_den = add512(
                mul512(mul512(x, x)?, x)?,
                mul512(mul512(three, x)?, mul512(y, y)?)?,
            )?;
            Ratio::new(
                mul512(slope_num, U512::from(self.unit1))?,
                mul512(slope_den, U512::from(self.unit0))?,
            )?
        } else {
            Ratio::new(U512::from(self.reserve1), U512::from(self.reserve0))?
        };
        if token0_in {
            Ok(price0)
        } else {
            price0.inverse()
        }
    }
}

/// Pool._f: `x0·y·(x0² + y²)` in 18-decimal fixed point.
fn stable_f(x0: U256, y: U256) -> Result<U256, MathError> {
    let a = div(mul(x0, y)?, WAD)?;
    let b = add(div(mul(x0, x0)?, WAD)?, div(mul(y, y)?, WAD)?)?;
    div(mul(a, b)?, WAD)
}

/// Pool._d: `∂f/∂y = 3·x0·y² + x0³` in 18-decimal fixed point.
fn stable_d(x0: U256, y: U256) -> Result<U256, MathError> {
    let left = div(mul(mul(U256::from(3u8), x0)?, div(mul(y, y)?, WAD)?)?, WAD)?;
    let right = div(mul(div(mul(x0, x0)?, WAD)?, x0)?, WAD)?;
    add(left, right)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(decimals: u32) -> U256 {
        U256::from(10u8).pow(U256::from(decimals))
    }

    #[test]
    fn volatile_is_constant_product_after_fee() {
        let pool = SolidlyPool::new(
            e(18) * U256::from(100u8),
            e(6) * U256::from(300_000u32),
            18,
            6,
            false,
            30,
        )
        .unwrap_or_else(|err| panic!("{err}"));
        let out = pool
            .get_amount_out(e(18), true)
            .unwrap_or_else(|err| panic!("{err}"));
        // 1 WETH less 0.3 % into 100 WETH / 300k USDC.
        let after_fee = e(18) - e(18) * U256::from(30u8) / U256::from(10_000u32);
        let expected = after_fee * pool.reserve1 / (pool.reserve0 + after_fee);
        assert_eq!(out, expected);
    }

    #[test]
    fn stable_pays_close_to_one_for_one() {
        // 1M USDC (6) / 1M DAI (18): 1,000 USDC in gives just under 1,000 DAI less 5 bps.
        let pool = SolidlyPool::new(
            e(6) * U256::from(1_000_000u32),
            e(18) * U256::from(1_000_000u32),
            6,
            18,
            true,
            5,
        )
        .unwrap_or_else(|err| panic!("{err}"));
        let out = pool
            .get_amount_out(e(6) * U256::from(1_000u32), true)
            .unwrap_or_else(|err| panic!("{err}"));
        let ideal = e(18) * U256::from(1_000u32);
        assert!(out < ideal);
        assert!(
            out > ideal * U256::from(9_994u32) / U256::from(10_000u32),
            "{out}"
        );
        // The curve is flatter than x·y: far better than a constant product would pay.
        let cp = U256::from(999_500u32) * e(15) * pool.reserve1
            / (pool.reserve1 + U256::from(999_500u32) * e(15));
        assert!(out > cp);
    }

    #[test]
    fn mid_price_of_a_balanced_stable_pool_is_one() {
        let pool =
            SolidlyPool::new(e(6), e(18), 6, 18, true, 5).unwrap_or_else(|err| panic!("{err}"));
        let price = pool.mid_price(true).unwrap_or_else(|err| panic!("{err}"));
        assert!((price.to_f64() - 1e12).abs() < 1e-3);
    }

    #[test]
    fn errors_like_solidity_0_8() {
        let pool = SolidlyPool::new(U256::ZERO, U256::ZERO, 18, 18, false, 30)
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            pool.get_amount_out(U256::ZERO, true),
            Err(MathError::DivisionByZero)
        );
        let pool =
            SolidlyPool::new(e(18), e(18), 18, 18, false, 30).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            pool.get_amount_out(U256::MAX, true),
            Err(MathError::Overflow)
        );
    }
}
