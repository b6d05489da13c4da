//! Uniswap V3 `FullMath`: `floor(a·b/d)` and `ceil(a·b/d)` with a 512-bit intermediate product,
//! failing exactly where the library reverts (zero denominator, result wider than 256 bits).
//!
//! The body follows the library's algorithm (exact division by a modular inverse) rather than
//! a wide division, so that the property tests can hold it against an independent 512-bit
//! reference; only the 512-bit product comes from a widening multiplication instead of the
//! library's Chinese-remainder trick, which gives the same two words more cheaply.

use alloy::primitives::{U256, U512};

use crate::MathError;

/// `floor(a·b / denominator)` with full precision (FullMath.mulDiv).
pub fn mul_div(a: U256, b: U256, denominator: U256) -> Result<U256, MathError> {
    Ok(mul_div_inner(a, b, denominator)?.0)
}

/// `floor(a·b / denominator)` and whether the division left a remainder, which
/// `mul_div_rounding_up` needs and the algorithm computes anyway.
fn mul_div_inner(a: U256, b: U256, denominator: U256) -> Result<(U256, bool), MathError> {
    // [prod1 prod0] = a·b as 512 bits. The library gets the high word from the product
    // modulo 2^256 − 1 (Chinese remainder theorem); a widening multiplication gives the same
    // two words without that 512-bit reduction, the costliest step of a swap.
    let product: U512 = a.widening_mul(b);
    let limbs = product.as_limbs();
    let prod0 = U256::from_limbs([limbs[0], limbs[1], limbs[2], limbs[3]]);
    let prod1 = U256::from_limbs([limbs[4], limbs[5], limbs[6], limbs[7]]);

    if prod1.is_zero() {
        if denominator.is_zero() {
            return Err(MathError::DivisionByZero);
        }
        let (quotient, remainder) = prod0.div_rem(denominator);
        return Ok((quotient, !remainder.is_zero()));
    }
    // The quotient must fit 256 bits; this also rules out a zero denominator.
    if denominator <= prod1 {
        return Err(if denominator.is_zero() {
            MathError::DivisionByZero
        } else {
            MathError::Overflow
        });
    }

    // Make the division exact by removing the remainder.
    let remainder = a.mul_mod(b, denominator);
    let prod1 = prod1.wrapping_sub(U256::from(u8::from(remainder > prod0)));
    let mut prod0 = prod0.wrapping_sub(remainder);

    // Factor the powers of two out of the denominator and shift them out of the product.
    let twos = denominator.wrapping_neg() & denominator;
    let denominator = denominator / twos;
    prod0 /= twos;
    // 2^256 / twos (and 1 when twos is 2^256, which cannot happen for a nonzero denominator).
    let flip = (U256::ZERO.wrapping_sub(twos) / twos).wrapping_add(U256::from(1u8));
    prod0 |= prod1.wrapping_mul(flip);

    // The denominator is odd now: invert it modulo 2^256 by Newton–Raphson (Hensel lifting),
    // starting from a seed correct to four bits and doubling the correct bits each round.
    let two = U256::from(2u8);
    let mut inv = U256::from(3u8).wrapping_mul(denominator) ^ two;
    for _ in 0..6 {
        inv = inv.wrapping_mul(two.wrapping_sub(denominator.wrapping_mul(inv)));
    }
    Ok((prod0.wrapping_mul(inv), !remainder.is_zero()))
}

/// `ceil(a·b / denominator)` with full precision (FullMath.mulDivRoundingUp).
pub fn mul_div_rounding_up(a: U256, b: U256, denominator: U256) -> Result<U256, MathError> {
    let (result, inexact) = mul_div_inner(a, b, denominator)?;
    if inexact {
        result
            .checked_add(U256::from(1u8))
            .ok_or(MathError::Overflow)
    } else {
        Ok(result)
    }
}

/// `ceil(x / y)`, with the EVM's `x / 0 == 0` (UnsafeMath.divRoundingUp); callers only use it
/// where `y` is known to be nonzero.
pub(crate) fn div_rounding_up(x: U256, y: U256) -> U256 {
    if y.is_zero() {
        return U256::ZERO;
    }
    let (quotient, remainder) = x.div_rem(y);
    if remainder.is_zero() {
        quotient
    } else {
        quotient + U256::from(1u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(x: u128) -> U256 {
        U256::from(x)
    }

    #[test]
    fn small_values() {
        assert_eq!(mul_div(u(10), u(10), u(3)), Ok(u(33)));
        assert_eq!(mul_div_rounding_up(u(10), u(10), u(3)), Ok(u(34)));
        assert_eq!(mul_div_rounding_up(u(10), u(9), u(3)), Ok(u(30)));
    }

    #[test]
    fn phantom_overflow_is_exact() {
        // (2^256-1)·(2^256-1) / (2^256-1) needs 512 bits in the middle.
        assert_eq!(mul_div(U256::MAX, U256::MAX, U256::MAX), Ok(U256::MAX));
        let q128 = U256::from(1u8) << 128;
        // Q128·(Q128/2)·... from the Uniswap FullMath suite: Q128 * 50% * 150% = 75%.
        assert_eq!(
            mul_div(q128, u(50) * q128 / u(100), u(150) * q128 / u(100)),
            Ok(q128 / u(3))
        );
        assert_eq!(
            mul_div_rounding_up(q128, u(50) * q128 / u(100), u(150) * q128 / u(100)),
            Ok(q128 / u(3) + u(1))
        );
    }

    #[test]
    fn reverts_where_the_library_reverts() {
        assert_eq!(
            mul_div(u(1), u(1), U256::ZERO),
            Err(MathError::DivisionByZero)
        );
        assert_eq!(
            mul_div(U256::MAX, U256::MAX, U256::ZERO),
            Err(MathError::DivisionByZero)
        );
        assert_eq!(
            mul_div(U256::MAX, U256::MAX, U256::MAX - u(1)),
            Err(MathError::Overflow)
        );
        // Result exactly 2^256 - 1 but rounding up would overflow.
        let a = U256::from_str_radix("535006138814359", 10).unwrap_or_default();
        let b = U256::from_str_radix(
            "432862656469423142931042426214547535783388063929571229938474969",
            10,
        )
        .unwrap_or_default();
        assert_eq!(mul_div_rounding_up(a, b, u(2)), Err(MathError::Overflow));
        assert_eq!(div_rounding_up(u(7), U256::ZERO), U256::ZERO);
    }
}
