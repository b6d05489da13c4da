//! Uniswap V3 `SqrtPriceMath`: token amounts between two sqrt prices for a liquidity, and the
//! price reached by adding or removing an amount, with the library's rounding in each
//! direction (always in the pool's favour).
//!
//! Sqrt prices are `U256` here but Solidity stores them as `uint160`: a wider value is an
//! error, never silently truncated.

use alloy::primitives::{I256, U256};

use crate::MathError;
use crate::full_math::{div_rounding_up, mul_div, mul_div_rounding_up};

/// Q96 resolution: sqrt prices are Q64.96.
pub const RESOLUTION: usize = 96;
/// `2^96`.
pub const Q96: U256 = U256::from_limbs([0, 1 << 32, 0, 0]);
/// `2^160 - 1`, the largest `uint160`.
const MAX_U160: U256 = U256::from_limbs([u64::MAX, u64::MAX, u32::MAX as u64, 0]);

fn check_u160(value: U256) -> Result<U256, MathError> {
    if value > MAX_U160 {
        Err(MathError::InvalidSqrtPrice(value))
    } else {
        Ok(value)
    }
}

fn to_u160(value: U256) -> Result<U256, MathError> {
    if value > MAX_U160 {
        Err(MathError::Overflow)
    } else {
        Ok(value)
    }
}

/// The price after adding (`add`) or removing `amount` of token0, rounded up
/// (SqrtPriceMath.getNextSqrtPriceFromAmount0RoundingUp).
fn next_sqrt_price_from_amount0_rounding_up(
    sqrt_price_x96: U256,
    liquidity: u128,
    amount: U256,
    add: bool,
) -> Result<U256, MathError> {
    // Short cut so that a zero amount returns the price itself.
    if amount.is_zero() {
        return Ok(sqrt_price_x96);
    }
    let numerator1 = U256::from(liquidity) << RESOLUTION;
    if add {
        // Most precise form L·√P / (L + Δx·√P); fall back to L / (L/√P + Δx) on overflow.
        if let Some(product) = amount.checked_mul(sqrt_price_x96)
            && let Some(denominator) = numerator1.checked_add(product)
        {
            return mul_div_rounding_up(numerator1, sqrt_price_x96, denominator);
        }
        let denominator = (numerator1 / sqrt_price_x96)
            .checked_add(amount)
            .ok_or(MathError::Overflow)?;
        Ok(div_rounding_up(numerator1, denominator))
    } else {
        // Removing more token0 than the curve holds would make the denominator negative.
        let product = amount
            .checked_mul(sqrt_price_x96)
            .ok_or(MathError::PriceOutOfBounds)?;
        if numerator1 <= product {
            return Err(MathError::PriceOutOfBounds);
        }
        to_u160(mul_div_rounding_up(
            numerator1,
            sqrt_price_x96,
            numerator1 - product,
        )?)
    }
}

/// The price after adding or removing `amount` of token1, rounded down
/// (SqrtPriceMath.getNextSqrtPriceFromAmount1RoundingDown).
fn next_sqrt_price_from_amount1_rounding_down(
    sqrt_price_x96: U256,
    liquidity: u128,
    amount: U256,
    add: bool,
) -> Result<U256, MathError> {
    let liquidity = U256::from(liquidity);
    // The plain shift is used whenever it cannot overflow, as in the library.
    let fits_shift = amount <= MAX_U160;
    if add {
        let quotient = if fits_shift {
            (amount << RESOLUTION)
                .checked_div(liquidity)
                .ok_or(MathError::DivisionByZero)?
        } else {
            mul_div(amount, Q96, liquidity)?
        };
        to_u160(
            sqrt_price_x96
                .checked_add(quotient)
                .ok_or(MathError::Overflow)?,
        )
    } else {
        let quotient = if fits_shift {
            div_rounding_up(amount << RESOLUTION, liquidity)
        } else {
            mul_div_rounding_up(amount, Q96, liquidity)?
        };
        if sqrt_price_x96 <= quotient {
            return Err(MathError::PriceOutOfBounds);
        }
        Ok(sqrt_price_x96 - quotient)
    }
}

/// The price after swapping `amount_in` in (SqrtPriceMath.getNextSqrtPriceFromInput); rounds
/// so that the target price is never passed.
pub fn get_next_sqrt_price_from_input(
    sqrt_price_x96: U256,
    liquidity: u128,
    amount_in: U256,
    zero_for_one: bool,
) -> Result<U256, MathError> {
    check_price_and_liquidity(sqrt_price_x96, liquidity)?;
    if zero_for_one {
        next_sqrt_price_from_amount0_rounding_up(sqrt_price_x96, liquidity, amount_in, true)
    } else {
        next_sqrt_price_from_amount1_rounding_down(sqrt_price_x96, liquidity, amount_in, true)
    }
}

/// The price after taking `amount_out` out (SqrtPriceMath.getNextSqrtPriceFromOutput); rounds
/// so that the target price is at least reached.
pub fn get_next_sqrt_price_from_output(
    sqrt_price_x96: U256,
    liquidity: u128,
    amount_out: U256,
    zero_for_one: bool,
) -> Result<U256, MathError> {
    check_price_and_liquidity(sqrt_price_x96, liquidity)?;
    if zero_for_one {
        next_sqrt_price_from_amount1_rounding_down(sqrt_price_x96, liquidity, amount_out, false)
    } else {
        next_sqrt_price_from_amount0_rounding_up(sqrt_price_x96, liquidity, amount_out, false)
    }
}

fn check_price_and_liquidity(sqrt_price_x96: U256, liquidity: u128) -> Result<(), MathError> {
    if sqrt_price_x96.is_zero() {
        return Err(MathError::InvalidSqrtPrice(sqrt_price_x96));
    }
    check_u160(sqrt_price_x96)?;
    if liquidity == 0 {
        return Err(MathError::ZeroLiquidity);
    }
    Ok(())
}

fn ordered(a: U256, b: U256) -> Result<(U256, U256), MathError> {
    check_u160(a)?;
    check_u160(b)?;
    Ok(if a > b { (b, a) } else { (a, b) })
}

/// Token0 between two sqrt prices for `liquidity`: `L·(√Pb − √Pa)/(√Pb·√Pa)`
/// (SqrtPriceMath.getAmount0Delta), rounded up or down.
pub fn get_amount0_delta(
    sqrt_ratio_a_x96: U256,
    sqrt_ratio_b_x96: U256,
    liquidity: u128,
    round_up: bool,
) -> Result<U256, MathError> {
    let (lower, upper) = ordered(sqrt_ratio_a_x96, sqrt_ratio_b_x96)?;
    if lower.is_zero() {
        return Err(MathError::InvalidSqrtPrice(lower));
    }
    let numerator1 = U256::from(liquidity) << RESOLUTION;
    let numerator2 = upper - lower;
    if round_up {
        Ok(div_rounding_up(
            mul_div_rounding_up(numerator1, numerator2, upper)?,
            lower,
        ))
    } else {
        Ok(mul_div(numerator1, numerator2, upper)? / lower)
    }
}

/// Token1 between two sqrt prices for `liquidity`: `L·(√Pb − √Pa)`
/// (SqrtPriceMath.getAmount1Delta), rounded up or down.
pub fn get_amount1_delta(
    sqrt_ratio_a_x96: U256,
    sqrt_ratio_b_x96: U256,
    liquidity: u128,
    round_up: bool,
) -> Result<U256, MathError> {
    let (lower, upper) = ordered(sqrt_ratio_a_x96, sqrt_ratio_b_x96)?;
    let liquidity = U256::from(liquidity);
    if round_up {
        mul_div_rounding_up(liquidity, upper - lower, Q96)
    } else {
        mul_div(liquidity, upper - lower, Q96)
    }
}

/// Signed token0 delta for a liquidity change: what a position adds (rounded up, positive) or
/// what removing it returns (rounded down, negative).
pub fn get_amount0_delta_signed(
    sqrt_ratio_a_x96: U256,
    sqrt_ratio_b_x96: U256,
    liquidity: i128,
) -> Result<I256, MathError> {
    signed_delta(liquidity, |magnitude, round_up| {
        get_amount0_delta(sqrt_ratio_a_x96, sqrt_ratio_b_x96, magnitude, round_up)
    })
}

/// Signed token1 delta for a liquidity change (see [`get_amount0_delta_signed`]).
pub fn get_amount1_delta_signed(
    sqrt_ratio_a_x96: U256,
    sqrt_ratio_b_x96: U256,
    liquidity: i128,
) -> Result<I256, MathError> {
    signed_delta(liquidity, |magnitude, round_up| {
        get_amount1_delta(sqrt_ratio_a_x96, sqrt_ratio_b_x96, magnitude, round_up)
    })
}

fn signed_delta(
    liquidity: i128,
    delta: impl Fn(u128, bool) -> Result<U256, MathError>,
) -> Result<I256, MathError> {
    // Removal rounds down and adding rounds up, both in the pool's favour.
    let negative = liquidity < 0;
    let amount = delta(liquidity.unsigned_abs(), !negative)?;
    let amount = I256::try_from(amount).map_err(|_| MathError::Overflow)?;
    Ok(if negative { -amount } else { amount })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tick_math::{MAX_SQRT_RATIO, MIN_SQRT_RATIO};

    fn e18() -> U256 {
        U256::from(10u64).pow(U256::from(18u8))
    }

    /// sqrt(1.21)·2^96 ≈ 1.1·2^96, the price the Uniswap tests use for "1.21".
    fn price_121_100() -> U256 {
        U256::from_str_radix("87150978765690771352898345369", 10).unwrap_or_default()
    }

    #[test]
    fn zero_amount_returns_the_price() {
        let price = Q96;
        assert_eq!(
            get_next_sqrt_price_from_input(price, 1, U256::ZERO, true),
            Ok(price)
        );
        assert_eq!(
            get_next_sqrt_price_from_input(price, 1, U256::ZERO, false),
            Ok(price)
        );
    }

    #[test]
    fn input_moves_price_the_right_way() {
        let liquidity = 10u128.pow(18);
        let amount = e18() / U256::from(10u8);
        let down = get_next_sqrt_price_from_input(Q96, liquidity, amount, true);
        let up = get_next_sqrt_price_from_input(Q96, liquidity, amount, false);
        // 1 / (1 + 0.1), rounded up; 1 + 0.1, rounded down (Uniswap SqrtPriceMath suite).
        assert_eq!(
            down,
            Ok(U256::from_str_radix("72025602285694852357767227579", 10).unwrap_or_default())
        );
        assert_eq!(
            up,
            Ok(U256::from_str_radix("87150978765690771352898345369", 10).unwrap_or_default())
        );
        assert_eq!(up, Ok(price_121_100()));
    }

    #[test]
    fn requires_price_and_liquidity() {
        assert_eq!(
            get_next_sqrt_price_from_input(U256::ZERO, 1, U256::from(1u8), true),
            Err(MathError::InvalidSqrtPrice(U256::ZERO))
        );
        assert_eq!(
            get_next_sqrt_price_from_input(Q96, 0, U256::from(1u8), true),
            Err(MathError::ZeroLiquidity)
        );
        // Taking out all the token1 (or more) is impossible.
        assert_eq!(
            get_next_sqrt_price_from_output(Q96, 1, U256::from(4u8), true),
            Err(MathError::PriceOutOfBounds)
        );
        // Input that would push the price past 2^160.
        assert_eq!(
            get_next_sqrt_price_from_input(MAX_SQRT_RATIO, 1, U256::MAX >> 96, false),
            Err(MathError::Overflow)
        );
    }

    #[test]
    fn amount_deltas() {
        let liquidity = 10u128.pow(18);
        assert_eq!(get_amount0_delta(Q96, Q96, liquidity, true), Ok(U256::ZERO));
        let a0_up = get_amount0_delta(Q96, price_121_100(), liquidity, true);
        let a0_down = get_amount0_delta(Q96, price_121_100(), liquidity, false);
        // 1 - 1/1.1 = 0.0909…e18 (Uniswap SqrtPriceMath suite).
        assert_eq!(
            a0_up,
            Ok(U256::from_str_radix("90909090909090910", 10).unwrap_or_default())
        );
        assert_eq!(
            a0_down,
            Ok(U256::from_str_radix("90909090909090909", 10).unwrap_or_default())
        );
        let a1_up = get_amount1_delta(Q96, price_121_100(), liquidity, true);
        let a1_down = get_amount1_delta(Q96, price_121_100(), liquidity, false);
        assert_eq!(
            a1_up,
            Ok(U256::from_str_radix("100000000000000000", 10).unwrap_or_default())
        );
        assert_eq!(
            a1_down,
            Ok(U256::from_str_radix("99999999999999999", 10).unwrap_or_default())
        );
        assert_eq!(
            get_amount0_delta(U256::ZERO, Q96, 1, true),
            Err(MathError::InvalidSqrtPrice(U256::ZERO))
        );
        assert!(get_amount1_delta(MIN_SQRT_RATIO, MAX_SQRT_RATIO, u128::MAX, true).is_ok());
    }

    #[test]
    fn signed_deltas_round_in_the_pools_favour() {
        let liquidity = 10i128.pow(18);
        let up = get_amount0_delta_signed(Q96, price_121_100(), liquidity);
        let down = get_amount0_delta_signed(Q96, price_121_100(), -liquidity);
        assert_eq!(up, Ok(I256::unchecked_from(90_909_090_909_090_910i128)));
        assert_eq!(down, Ok(I256::unchecked_from(-90_909_090_909_090_909i128)));
        let up = get_amount1_delta_signed(Q96, price_121_100(), liquidity);
        let down = get_amount1_delta_signed(Q96, price_121_100(), -liquidity);
        assert_eq!(up, Ok(I256::unchecked_from(100_000_000_000_000_000i128)));
        assert_eq!(down, Ok(I256::unchecked_from(-99_999_999_999_999_999i128)));
    }
}
