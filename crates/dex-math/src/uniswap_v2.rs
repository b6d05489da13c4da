//! Constant-product pairs (Uniswap V2 and its forks): `UniswapV2Library.getAmountOut` and
//! `getAmountIn` with the library's checked arithmetic and integer rounding.

use alloy::primitives::U256;

use crate::MathError;

const BPS: u32 = 10_000;

/// The fee as the fraction `(kept, whole)` in lowest terms: 30 bps is exactly the library's
/// 997/1000, so every intermediate value (and every overflow) is the library's own. Forks
/// that write the same fee with other constants agree on every result, since scaling a
/// fraction does not change a floor division.
fn fee_fraction(fee_bps: u32) -> Result<(U256, U256), MathError> {
    if fee_bps >= BPS {
        return Err(MathError::InvalidFee(fee_bps));
    }
    let kept = BPS - fee_bps;
    let divisor = gcd(kept, BPS);
    Ok((U256::from(kept / divisor), U256::from(BPS / divisor)))
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn checked_mul(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

/// Output for `amount_in` sold into a pair (UniswapV2Library.getAmountOut):
/// `in·γ·R_out / (R_in + in·γ)` rounded down, with `γ = 1 − fee_bps/10000`.
pub fn get_amount_out(
    amount_in: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Result<U256, MathError> {
    let (kept, whole) = fee_fraction(fee_bps)?;
    if amount_in.is_zero() {
        return Err(MathError::ZeroAmount);
    }
    if reserve_in.is_zero() || reserve_out.is_zero() {
        return Err(MathError::InsufficientLiquidity);
    }
    let amount_in_with_fee = checked_mul(amount_in, kept)?;
    let numerator = checked_mul(amount_in_with_fee, reserve_out)?;
    let denominator = checked_mul(reserve_in, whole)?
        .checked_add(amount_in_with_fee)
        .ok_or(MathError::Overflow)?;
    Ok(numerator / denominator)
}

/// Input needed to buy `amount_out` from a pair (UniswapV2Library.getAmountIn):
/// `R_in·out / ((R_out − out)·γ) + 1`, rounded down before the `+ 1`.
pub fn get_amount_in(
    amount_out: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Result<U256, MathError> {
    let (kept, whole) = fee_fraction(fee_bps)?;
    if amount_out.is_zero() {
        return Err(MathError::ZeroAmount);
    }
    if reserve_in.is_zero() || reserve_out.is_zero() {
        return Err(MathError::InsufficientLiquidity);
    }
    let numerator = checked_mul(checked_mul(reserve_in, amount_out)?, whole)?;
    // SafeMath.sub reverts when asking for more than the reserve; asking for all of it
    // divides by zero in the library.
    let left = reserve_out
        .checked_sub(amount_out)
        .ok_or(MathError::InsufficientLiquidity)?;
    let denominator = checked_mul(left, kept)?;
    if denominator.is_zero() {
        return Err(MathError::InsufficientLiquidity);
    }
    (numerator / denominator)
        .checked_add(U256::from(1u8))
        .ok_or(MathError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(x: u128) -> U256 {
        U256::from(x)
    }

    #[test]
    fn thirty_bps_is_997_over_1000() {
        assert_eq!(fee_fraction(30), Ok((u(997), u(1000))));
        assert_eq!(fee_fraction(25), Ok((u(399), u(400))));
        assert_eq!(fee_fraction(0), Ok((u(1), u(1))));
        assert_eq!(fee_fraction(10_000), Err(MathError::InvalidFee(10_000)));
    }

    #[test]
    fn known_amounts() {
        // 1 token into 5/10 reserves (the Uniswap V2 router test): 1662497915624478906.
        let e18 = 10u128.pow(18);
        assert_eq!(
            get_amount_out(u(e18), u(5 * e18), u(10 * e18), 30),
            Ok(u(1_662_497_915_624_478_906))
        );
        assert_eq!(
            get_amount_out(u(2000), u(100_000), u(100_000), 30),
            Ok(u(1_955))
        );
        // getAmountIn inverts getAmountOut up to its +1.
        assert_eq!(
            get_amount_in(u(1_955), u(100_000), u(100_000), 30),
            Ok(u(2_000))
        );
    }

    #[test]
    fn library_requires() {
        assert_eq!(
            get_amount_out(U256::ZERO, u(1), u(1), 30),
            Err(MathError::ZeroAmount)
        );
        assert_eq!(
            get_amount_out(u(1), U256::ZERO, u(1), 30),
            Err(MathError::InsufficientLiquidity)
        );
        assert_eq!(
            get_amount_in(u(10), u(10), u(10), 30),
            Err(MathError::InsufficientLiquidity)
        );
        assert_eq!(
            get_amount_in(u(11), u(10), u(10), 30),
            Err(MathError::InsufficientLiquidity)
        );
        assert_eq!(
            get_amount_out(U256::MAX, u(1), u(1), 30),
            Err(MathError::Overflow)
        );
    }
}
