//! Prices as exact rationals, their display as `f64`, and price impact.
//!
//! Price impact of a trade that sells `amount_in` and receives `amount_out`, against the
//! pool's mid (marginal) price `mid` in output per input, all in raw token units:
//!
//! ```text
//! impact_bps = (1 − (amount_out / amount_in) / mid) × 10 000
//!            = (mid·amount_in − amount_out) / (mid·amount_in) × 10 000
//! ```
//!
//! It is computed exactly on integers and only the final quotient is rounded to `f64`. The
//! fee is part of it (a tiny trade on a 30 bps pool shows about 30 bps); a negative value
//! means the trade was paid more than the mid price.

use alloy::primitives::aliases::U1024;
use alloy::primitives::{U256, U512};

use crate::MathError;

/// A non-negative rational `numerator / denominator` (denominator never zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    /// Numerator.
    pub numerator: U512,
    /// Denominator, nonzero.
    pub denominator: U512,
}

impl Ratio {
    /// `numerator / denominator`; a zero denominator is an error.
    pub fn new(numerator: U512, denominator: U512) -> Result<Self, MathError> {
        if denominator.is_zero() {
            return Err(MathError::DivisionByZero);
        }
        Ok(Self {
            numerator,
            denominator,
        })
    }

    /// `denominator / numerator`; the inverse of zero is an error.
    pub fn inverse(&self) -> Result<Self, MathError> {
        Self::new(self.denominator, self.numerator)
    }

    /// `self × other`, the price of two swaps in a row. Exact while the product fits 512 bits;
    /// beyond that both terms are shifted right by the same amount, which keeps at least 256
    /// significant bits of the larger one (a relative error below 2⁻²⁵⁰, far under any
    /// basis point).
    pub fn mul(&self, other: &Self) -> Self {
        let numerator = U1024::from(self.numerator) * U1024::from(other.numerator);
        let denominator = U1024::from(self.denominator) * U1024::from(other.denominator);
        let excess = numerator
            .bit_len()
            .max(denominator.bit_len())
            .saturating_sub(512);
        let fit = |value: U1024| U512::from(value >> excess);
        Self {
            numerator: fit(numerator),
            // A denominator shifted to zero means the ratio is beyond any real price.
            denominator: fit(denominator).max(U512::from(1u8)),
        }
    }

    /// The nearest `f64`, for display only.
    pub fn to_f64(&self) -> f64 {
        quotient_f64(U1024::from(self.numerator), U1024::from(self.denominator))
    }
}

/// `numerator / denominator` as `f64`: an integer quotient scaled to about 64 significant
/// bits, so that neither operand has to fit an `f64` on its own. Operands stay below
/// 2^960 in this crate, so the shifts cannot overflow.
fn quotient_f64(numerator: U1024, denominator: U1024) -> f64 {
    if numerator.is_zero() || denominator.is_zero() {
        return 0.0;
    }
    let shift = 64 + denominator.bit_len() as i32 - numerator.bit_len() as i32;
    let quotient = if shift >= 0 {
        (numerator << shift as usize) / denominator
    } else {
        numerator / (denominator << (-shift) as usize)
    };
    f64::from(quotient) * 2f64.powi(-shift)
}

/// The pool price `(sqrtPriceX96 / 2^96)²` as an exact ratio: raw token1 per raw token0.
pub fn sqrt_price_x96_to_ratio(sqrt_price_x96: U256) -> Ratio {
    let sqrt = U512::from(sqrt_price_x96);
    Ratio {
        numerator: sqrt * sqrt,
        denominator: U512::from(1u8) << 192,
    }
}

/// Token1 per token0 in whole tokens (`raw × 10^(decimals0 − decimals1)`), for display only.
pub fn sqrt_price_x96_to_f64(sqrt_price_x96: U256, decimals0: u8, decimals1: u8) -> f64 {
    sqrt_price_x96_to_ratio(sqrt_price_x96).to_f64()
        * 10f64.powi(i32::from(decimals0) - i32::from(decimals1))
}

/// A V3 pool's mid price in raw output per raw input for a swap direction.
pub fn v3_mid_price(sqrt_price_x96: U256, zero_for_one: bool) -> Result<Ratio, MathError> {
    let price = sqrt_price_x96_to_ratio(sqrt_price_x96);
    if zero_for_one {
        Ok(price)
    } else {
        price.inverse()
    }
}

/// A constant-product pool's mid price `R_out / R_in` (raw units).
pub fn constant_product_mid_price(reserve_in: U256, reserve_out: U256) -> Result<Ratio, MathError> {
    Ratio::new(U512::from(reserve_out), U512::from(reserve_in))
}

/// Price impact in basis points against `mid` (output per input), as in the module
/// documentation.
pub fn price_impact_bps(mid: &Ratio, amount_in: U256, amount_out: U256) -> Result<f64, MathError> {
    if amount_in.is_zero() {
        return Err(MathError::ZeroAmount);
    }
    if mid.numerator.is_zero() {
        return Err(MathError::DivisionByZero);
    }
    // mid·in and out over a common denominator: (num·in) / den vs (out·den) / den.
    let expected = U1024::from(mid.numerator) * U1024::from(amount_in);
    let received = U1024::from(amount_out) * U1024::from(mid.denominator);
    let bps = U1024::from(10_000u32);
    Ok(if expected >= received {
        quotient_f64((expected - received) * bps, expected)
    } else {
        -quotient_f64((received - expected) * bps, expected)
    })
}

/// Price impact of a route through several pools: the output against the product of the
/// pools' mid prices (each in raw output per raw input of its own hop, in swap order).
pub fn route_price_impact_bps(
    mids: &[Ratio],
    amount_in: U256,
    amount_out: U256,
) -> Result<f64, MathError> {
    let (first, rest) = mids.split_first().ok_or(MathError::DivisionByZero)?;
    let mid = rest.iter().fold(*first, |product, next| product.mul(next));
    price_impact_bps(&mid, amount_in, amount_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_one_at_q96() {
        let ratio = sqrt_price_x96_to_ratio(U256::from(1u8) << 96);
        assert_eq!(ratio.numerator, ratio.denominator);
        assert_eq!(ratio.to_f64(), 1.0);
    }

    #[test]
    fn display_price_with_decimals() {
        // WETH (18) / USDC (6) at tick -195960 is about 3,090 USDC per WETH.
        let sqrt = U256::from_str_radix("4404394581600050716791624", 10).unwrap_or_default();
        let price = sqrt_price_x96_to_f64(sqrt, 18, 6);
        assert!((price - 3090.3).abs() < 1.0, "{price}");
    }

    #[test]
    fn to_f64_handles_extremes() {
        let tiny =
            Ratio::new(U512::from(1u8), U512::from(1u8) << 500).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tiny.to_f64(), 2f64.powi(-500));
        let huge = tiny.inverse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(huge.to_f64(), 2f64.powi(500));
        let third = Ratio::new(U512::from(1u8), U512::from(3u8)).unwrap_or_else(|e| panic!("{e}"));
        assert!((third.to_f64() - 1.0 / 3.0).abs() < 1e-16);
    }

    #[test]
    fn impact_of_a_constant_product_trade() {
        // Mid price 1: 10,000 in for 9,900 out is exactly 100 bps; 10,001 out is -1 bps.
        let reserve = U256::from(1_000_000u32);
        let mid = constant_product_mid_price(reserve, reserve).unwrap_or_else(|e| panic!("{e}"));
        let bps = price_impact_bps(&mid, U256::from(10_000u32), U256::from(9_900u32))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!((bps - 100.0).abs() < 1e-9, "{bps}");
        let better = price_impact_bps(&mid, U256::from(10_000u32), U256::from(10_001u32))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!((better + 1.0).abs() < 1e-9, "{better}");
        assert_eq!(
            price_impact_bps(&mid, U256::ZERO, U256::ZERO),
            Err(MathError::ZeroAmount)
        );
    }

    #[test]
    fn a_two_hop_route_is_measured_against_the_product_of_its_mids() {
        let ok = |r: Result<Ratio, MathError>| r.unwrap_or_else(|e| panic!("{e}"));
        // 2 out per in, then 3 out per in: 6 overall; 1,000 in for 5,940 out is 100 bps.
        let first = ok(constant_product_mid_price(
            U256::from(1_000u32),
            U256::from(2_000u32),
        ));
        let second = ok(constant_product_mid_price(
            U256::from(1_000u32),
            U256::from(3_000u32),
        ));
        let bps =
            route_price_impact_bps(&[first, second], U256::from(1_000u32), U256::from(5_940u32))
                .unwrap_or_else(|e| panic!("{e}"));
        assert!((bps - 100.0).abs() < 1e-9, "{bps}");
        assert_eq!(
            route_price_impact_bps(&[], U256::from(1u8), U256::from(1u8)),
            Err(MathError::DivisionByZero)
        );
    }

    #[test]
    fn products_of_v3_prices_stay_exact_enough() {
        // At the top of the range a V3 mid's numerator is near 2^320, so the product of two
        // needs the shift; it still agrees with the f64 product, and a price times its
        // inverse is still 1.
        let high = sqrt_price_x96_to_ratio(crate::MAX_SQRT_RATIO - U256::from(1u8));
        let product = high.mul(&high);
        let expected = high.to_f64() * high.to_f64();
        assert!(((product.to_f64() - expected) / expected).abs() < 1e-12);
        let low = sqrt_price_x96_to_ratio(crate::MIN_SQRT_RATIO);
        let unit = low.mul(&low.inverse().unwrap_or_else(|e| panic!("{e}")));
        assert!((unit.to_f64() - 1.0).abs() < 1e-15);
    }
}
