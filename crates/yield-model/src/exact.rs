//! Signed decimals with [`PLACES`] fractional digits: a sign and a magnitude in atomic units
//! of `decimal-units` (the workspace's exact amounts), so provider figures are added, multiplied
//! and divided without a trip through binary floating point. A quotient is rounded toward
//! zero once, at [`PLACES`] digits.

use std::cmp::Ordering;
use std::fmt;

use alloy::primitives::{U256, U512};

use crate::YieldModelError;

/// Fractional digits kept (every provider figure seen has at most 15).
pub const PLACES: u8 = 18;

/// A signed decimal, `± magnitude × 10^-PLACES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Exact {
    negative: bool,
    magnitude: U256,
}

fn one() -> U256 {
    // 10^18 fits a u64.
    U256::from(1_000_000_000_000_000_000u64)
}

fn narrow(value: U512) -> Result<U256, YieldModelError> {
    if value > U512::from(U256::MAX) {
        return Err(YieldModelError::Overflow);
    }
    Ok(U256::from_limbs_slice(&value.as_limbs()[..4]))
}

impl Exact {
    /// Zero.
    pub const ZERO: Self = Self {
        negative: false,
        magnitude: U256::ZERO,
    };

    fn new(negative: bool, magnitude: U256) -> Self {
        Self {
            negative: negative && !magnitude.is_zero(),
            magnitude,
        }
    }

    /// An integer.
    pub fn from_int(value: i64) -> Self {
        Self::new(
            value < 0,
            U256::from(value.unsigned_abs()).saturating_mul(one()),
        )
    }

    /// `numerator / denominator`, rounded toward zero.
    pub fn ratio(numerator: i64, denominator: u64) -> Result<Self, YieldModelError> {
        Self::from_int(numerator).checked_div(Self::from_int(
            i64::try_from(denominator).map_err(|_| YieldModelError::Overflow)?,
        ))
    }

    /// An unsigned integer of atomic units with `decimals` (wei with 18, USDC units with 6).
    pub fn from_units(atomic: U256, decimals: u8) -> Result<Self, YieldModelError> {
        let text = decimal_units::format_trimmed(atomic, decimals);
        Self::parse(&text)
    }

    /// A provider's number text: `12`, `-0.5`, `1234.56789`, `1.2e-7`, `3E+2`. Digits beyond
    /// [`PLACES`] are dropped (rounding toward zero).
    pub fn parse(text: &str) -> Result<Self, YieldModelError> {
        let bad = || YieldModelError::NotANumber(text.to_owned());
        let raw = text.trim();
        let (negative, raw) = match raw.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, raw.strip_prefix('+').unwrap_or(raw)),
        };
        let (mantissa, exponent) = match raw.find(['e', 'E']) {
            Some(at) => {
                let exponent: i32 = raw[at + 1..]
                    .trim_start_matches('+')
                    .parse()
                    .map_err(|_| bad())?;
                (&raw[..at], exponent)
            }
            None => (raw, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits_only = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
        if (whole.is_empty() && fraction.is_empty())
            || !digits_only(whole)
            || !digits_only(fraction)
            || exponent.unsigned_abs() > 200
        {
            return Err(bad());
        }
        // All digits, and the position of the decimal point after applying the exponent.
        let digits = format!("{whole}{fraction}");
        let point = i64::try_from(whole.len()).map_err(|_| bad())? + i64::from(exponent);
        let (int_part, frac_part) = if point <= 0 {
            let zeros = usize::try_from(-point).map_err(|_| bad())?;
            ("0".to_owned(), format!("{}{digits}", "0".repeat(zeros)))
        } else {
            let point = usize::try_from(point).map_err(|_| bad())?;
            if point >= digits.len() {
                (
                    format!("{digits}{}", "0".repeat(point - digits.len())),
                    String::new(),
                )
            } else {
                (digits[..point].to_owned(), digits[point..].to_owned())
            }
        };
        let kept: String = frac_part.chars().take(usize::from(PLACES)).collect();
        let int_part = if int_part.is_empty() { "0" } else { &int_part };
        let text = if kept.is_empty() {
            int_part.to_owned()
        } else {
            format!("{int_part}.{kept}")
        };
        let magnitude = decimal_units::parse(&text, PLACES).map_err(|_| bad())?;
        Ok(Self::new(negative, magnitude))
    }

    /// Whether it is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// Whether it is zero.
    pub fn is_zero(&self) -> bool {
        self.magnitude.is_zero()
    }

    /// The negation.
    #[must_use]
    pub fn negated(self) -> Self {
        Self::new(!self.negative, self.magnitude)
    }

    /// `self + other`.
    pub fn checked_add(self, other: Self) -> Result<Self, YieldModelError> {
        if self.negative == other.negative {
            let sum = self
                .magnitude
                .checked_add(other.magnitude)
                .ok_or(YieldModelError::Overflow)?;
            return Ok(Self::new(self.negative, sum));
        }
        Ok(if self.magnitude >= other.magnitude {
            Self::new(self.negative, self.magnitude - other.magnitude)
        } else {
            Self::new(other.negative, other.magnitude - self.magnitude)
        })
    }

    /// `self − other`.
    pub fn checked_sub(self, other: Self) -> Result<Self, YieldModelError> {
        self.checked_add(other.negated())
    }

    /// `self × other`, rounded toward zero.
    pub fn checked_mul(self, other: Self) -> Result<Self, YieldModelError> {
        let product = U512::from(self.magnitude) * U512::from(other.magnitude) / U512::from(one());
        Ok(Self::new(self.negative != other.negative, narrow(product)?))
    }

    /// `self / other`, rounded toward zero; an error when `other` is zero.
    pub fn checked_div(self, other: Self) -> Result<Self, YieldModelError> {
        if other.is_zero() {
            return Err(YieldModelError::DivisionByZero);
        }
        let quotient = U512::from(self.magnitude) * U512::from(one()) / U512::from(other.magnitude);
        Ok(Self::new(
            self.negative != other.negative,
            narrow(quotient)?,
        ))
    }

    /// The nearest `f64` (for the IL maths, which are not exact).
    pub fn to_f64(self) -> f64 {
        let value: f64 = self.to_string().parse().unwrap_or(f64::NAN);
        value
    }

    /// Rounded toward zero to `places` (≤ [`PLACES`]) fractional digits, for display.
    #[must_use]
    pub fn truncate(self, places: u8) -> Self {
        let places = places.min(PLACES);
        let unit = U256::from(10u8).pow(U256::from(PLACES - places));
        Self::new(self.negative, self.magnitude / unit * unit)
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude.cmp(&other.magnitude),
            (true, true) => other.magnitude.cmp(&self.magnitude),
        }
    }
}

impl fmt::Display for Exact {
    /// Trailing zeros dropped: `1.5`, `-0.000001`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negative { "-" } else { "" };
        write!(
            f,
            "{sign}{}",
            decimal_units::format_trimmed(self.magnitude, PLACES)
        )
    }
}

impl serde::Serialize for Exact {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(text: &str) -> Exact {
        Exact::parse(text).expect(text)
    }

    #[test]
    fn parses_provider_texts() {
        assert_eq!(x("12").to_string(), "12");
        assert_eq!(x("-0.5").to_string(), "-0.5");
        assert_eq!(x("1.2e-7").to_string(), "0.00000012");
        assert_eq!(x("3E+2").to_string(), "300");
        assert_eq!(x("1234.56789").to_string(), "1234.56789");
        assert_eq!(x("-0").to_string(), "0");
        assert_eq!(
            x("0.1234567890123456789999").to_string(),
            "0.123456789012345678"
        );
        for bad in ["", "abc", "1.2.3", "--1", "1e", "NaN", "1,5"] {
            assert!(Exact::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(x("0.1").checked_add(x("0.2")).expect("add"), x("0.3"));
        assert_eq!(x("1").checked_sub(x("2.5")).expect("sub"), x("-1.5"));
        assert_eq!(x("-1.5").checked_mul(x("-2")).expect("mul"), x("3"));
        assert_eq!(
            x("1").checked_div(x("3")).expect("div").to_string(),
            "0.333333333333333333"
        );
        assert_eq!(
            x("-2").checked_div(x("3")).expect("div").to_string(),
            "-0.666666666666666666"
        );
        assert!(x("1").checked_div(Exact::ZERO).is_err());
        assert!(x("-1") < x("0.5") && x("-2") < x("-1"));
    }
}
