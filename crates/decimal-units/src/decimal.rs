//! Exact non-negative decimals of any scale (`digits × 10^-scale`), for the numbers providers
//! print (`"3086.17"`, `"1.5e-7"`, quoted or not) and the prices derived from integers: summed,
//! compared, halved and turned into basis points without binary floating point.

use std::cmp::Ordering;
use std::fmt;

use alloy::primitives::{U256, U512};

/// Scales beyond this are refused: no source prints 60 fractional digits, and aligning two such
/// numbers stays inside 256 bits for realistic digits (an overflow is reported, never wrapped).
pub const MAX_SCALE: u32 = 60;

/// Why a decimal could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecimalError {
    /// Not a plain or exponent decimal number.
    #[error("{0:?} is not a decimal number")]
    NotANumber(String),
    /// A negative number (every decimal here is non-negative).
    #[error("{0:?} is negative")]
    Negative(String),
    /// More digits than 256 bits hold.
    #[error("{0:?} has too many digits")]
    TooManyDigits(String),
    /// More decimal places than [`MAX_SCALE`]; `text` is the number as written, if it was.
    #[error("{}{places} decimal places are more than {MAX_SCALE}", text.as_ref().map(|t| format!("{t:?}: ")).unwrap_or_default())]
    TooManyPlaces {
        /// The text, when the decimal was parsed.
        text: Option<String>,
        /// The places asked for.
        places: u32,
    },
    /// Larger than 256 bits hold.
    #[error("{0} is too large")]
    TooLarge(String),
    /// A ratio with a zero denominator.
    #[error("division by zero")]
    DivisionByZero,
}

/// A non-negative decimal number. Equality is by value (`1.50 == 1.5`).
#[derive(Debug, Clone, Copy)]
pub struct Decimal {
    digits: U256,
    scale: u32,
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.compare(*other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

fn pow10(exponent: u32) -> Option<U256> {
    (exponent <= 77).then(|| U256::from(10u8).pow(U256::from(exponent)))
}

impl Decimal {
    /// Zero.
    pub const ZERO: Self = Self {
        digits: U256::ZERO,
        scale: 0,
    };

    /// `digits × 10^-scale`.
    pub fn new(digits: U256, scale: u32) -> Result<Self, DecimalError> {
        if scale > MAX_SCALE {
            return Err(DecimalError::TooManyPlaces {
                text: None,
                places: scale,
            });
        }
        Ok(Self { digits, scale })
    }

    /// A decimal text as providers print it (`"3086.17"`, `"1.5e-7"`, `"2E+3"`, quotes
    /// allowed); negative, non-numeric and overlong texts are refused with the reason.
    pub fn parse(text: &str) -> Result<Self, DecimalError> {
        let raw = text.trim().trim_matches('"');
        let not_a_number = || DecimalError::NotANumber(raw.to_owned());
        let (mantissa, exponent) = match raw.find(['e', 'E']) {
            Some(at) => (
                &raw[..at],
                raw[at + 1..]
                    .trim_start_matches('+')
                    .parse::<i32>()
                    .map_err(|_| not_a_number())?,
            ),
            None => (raw, 0),
        };
        if mantissa.starts_with('-') {
            return Err(DecimalError::Negative(raw.to_owned()));
        }
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if (whole.is_empty() && fraction.is_empty())
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return Err(not_a_number());
        }
        let mut digits = U256::ZERO;
        for b in whole.bytes().chain(fraction.bytes()) {
            digits = digits
                .checked_mul(U256::from(10u8))
                .and_then(|d| d.checked_add(U256::from(b - b'0')))
                .ok_or_else(|| DecimalError::TooManyDigits(raw.to_owned()))?;
        }
        let scale = i64::try_from(fraction.len()).unwrap_or(i64::MAX) - i64::from(exponent);
        if scale >= 0 {
            let places = u32::try_from(scale).unwrap_or(u32::MAX);
            Self::new(digits, places).map_err(|_| DecimalError::TooManyPlaces {
                text: Some(raw.to_owned()),
                places,
            })
        } else {
            let shift = u32::try_from(-scale).unwrap_or(u32::MAX);
            let digits = pow10(shift)
                .and_then(|p| digits.checked_mul(p))
                .ok_or_else(|| DecimalError::TooLarge(format!("{raw:?}")))?;
            Ok(Self { digits, scale: 0 })
        }
    }

    /// `integer × 10^exponent` (a feed's answer with `-decimals`, Pyth's price with `expo`).
    pub fn scaled(integer: U256, exponent: i32) -> Result<Self, DecimalError> {
        if exponent <= 0 {
            Self::new(integer, exponent.unsigned_abs())
        } else {
            pow10(exponent.unsigned_abs())
                .and_then(|p| integer.checked_mul(p))
                .map(|digits| Self { digits, scale: 0 })
                .ok_or_else(|| DecimalError::TooLarge(format!("{integer}e{exponent}")))
        }
    }

    /// `numerator / denominator` rounded down to `places` decimal places.
    pub fn ratio(numerator: U512, denominator: U512, places: u32) -> Result<Self, DecimalError> {
        if denominator.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        if places > MAX_SCALE {
            return Err(DecimalError::TooManyPlaces { text: None, places });
        }
        let too_large = || DecimalError::TooLarge("the ratio".to_owned());
        let scaled = numerator
            .checked_mul(U512::from(10u8).pow(U512::from(places)))
            .ok_or_else(too_large)?
            / denominator;
        if scaled >= (U512::from(1u8) << 256) {
            return Err(too_large());
        }
        Ok(Self {
            digits: scaled.to::<U256>(),
            scale: places,
        })
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_zero()
    }

    /// The digits and scale.
    pub fn parts(&self) -> (U256, u32) {
        (self.digits, self.scale)
    }

    fn aligned(self, other: Self) -> Option<(U256, U256, u32)> {
        let scale = self.scale.max(other.scale);
        Some((
            self.digits.checked_mul(pow10(scale - self.scale)?)?,
            other.digits.checked_mul(pow10(scale - other.scale)?)?,
            scale,
        ))
    }

    /// `self + other`, exactly; `None` if it overflows.
    pub fn checked_add(self, other: Self) -> Option<Self> {
        let (a, b, scale) = self.aligned(other)?;
        Some(Self {
            digits: a.checked_add(b)?,
            scale,
        })
    }

    /// Exact order; `None` only if aligning the two overflows 256 bits.
    pub fn checked_cmp(self, other: Self) -> Option<Ordering> {
        self.aligned(other).map(|(a, b, _)| a.cmp(&b))
    }

    /// Exact order, with values too far apart to align taken as equal (no realistic price
    /// is: use [`checked_cmp`](Self::checked_cmp) to tell).
    pub fn compare(self, other: Self) -> Ordering {
        self.checked_cmp(other).unwrap_or(Ordering::Equal)
    }

    /// `(self + other) / 2`, exactly (one more decimal place at most).
    pub fn midpoint(self, other: Self) -> Option<Self> {
        let (a, b, scale) = self.aligned(other)?;
        Self::new(a.checked_add(b)?.checked_mul(U256::from(5u8))?, scale + 1).ok()
    }

    /// `(self − reference) / reference × 10⁴`, rounded half away from zero to 0.01 bps;
    /// `None` when the reference is zero.
    pub fn deviation_bps(self, reference: Self) -> Option<f64> {
        if reference.is_zero() {
            return None;
        }
        let (a, m, _) = self.aligned(reference)?;
        let (difference, negative) = if a >= m {
            (a - m, false)
        } else {
            (m - a, true)
        };
        let bps = hundredths_of_bps(difference, m)?;
        Some(if negative { -bps } else { bps })
    }

    /// `self / reference × 10⁴`, rounded half up to 0.01 bps; `None` when the reference is
    /// zero.
    pub fn ratio_bps(self, reference: Self) -> Option<f64> {
        if reference.is_zero() {
            return None;
        }
        let (a, m, _) = self.aligned(reference)?;
        hundredths_of_bps(a, m)
    }
}

/// `part / whole` in basis points, rounded half up to hundredths.
fn hundredths_of_bps(part: U256, whole: U256) -> Option<f64> {
    // Hundredths of a basis point: part · 10⁶ / whole, rounded half up.
    let scaled = U512::from(part) * U512::from(2_000_000u32) / U512::from(whole);
    let hundredths = (scaled + U512::from(1u8)) / U512::from(2u8);
    Some(u64::try_from(hundredths).ok()? as f64 / 100.0)
}

impl fmt::Display for Decimal {
    /// Plain notation, no exponent, no trailing fractional zeros.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.digits.to_string();
        let scale = self.scale as usize;
        let (whole, fraction) = if text.len() > scale {
            let (w, fr) = text.split_at(text.len() - scale);
            (w.to_owned(), fr.to_owned())
        } else {
            ("0".to_owned(), format!("{text:0>scale$}"))
        };
        let fraction = fraction.trim_end_matches('0');
        if fraction.is_empty() {
            f.write_str(&whole)
        } else {
            write!(f, "{whole}.{fraction}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::parse(text).expect("a decimal")
    }

    fn sum(items: &[&str]) -> String {
        items
            .iter()
            .map(|t| d(t))
            .try_fold(Decimal::ZERO, Decimal::checked_add)
            .expect("a sum")
            .to_string()
    }

    #[test]
    fn parses_and_prints_exactly() {
        assert_eq!(d("3086.1800").to_string(), "3086.18");
        assert_eq!(d("1.5e-7").to_string(), "0.00000015");
        assert_eq!(d("\"12\"").to_string(), "12");
        assert_eq!(d("2E+3").to_string(), "2000");
        assert_eq!(
            Decimal::scaled(U256::from(308_618_000_000u64), -8)
                .expect("scaled")
                .to_string(),
            "3086.18"
        );
        for bad in ["-1", "abc", "", ".", "1e", "NaN", "1.2.3"] {
            assert!(Decimal::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Decimal::parse("-1").map_err(|e| e.to_string()),
            Err("\"-1\" is negative".to_owned())
        );
    }

    #[test]
    fn sums_exactly_where_floats_would_not() {
        assert_eq!(sum(&["0.1", "0.2"]), "0.3");
        assert_eq!(sum(&["131664.76418553386", "2.23581446614"]), "131667");
        assert_eq!(sum(&["1.5e-7", "1E+3", "2e2"]), "1200.00000015");
        assert_eq!(sum(&["0", "0.000"]), "0");
    }

    #[test]
    fn ratios_round_down() {
        let third = Decimal::ratio(U512::from(1u8), U512::from(3u8), 6).expect("ratio");
        assert_eq!(third.to_string(), "0.333333");
        assert_eq!(
            Decimal::ratio(U512::from(1u8), U512::ZERO, 6),
            Err(DecimalError::DivisionByZero)
        );
    }

    #[test]
    fn compares_halves_and_measures_deviation() {
        assert_eq!(d("1.50").compare(d("1.5")), Ordering::Equal);
        assert_eq!(d("1.4999").checked_cmp(d("1.5")), Some(Ordering::Less));
        assert_eq!(
            d("3000")
                .midpoint(d("3001"))
                .map(|m| m.to_string())
                .as_deref(),
            Some("3000.5")
        );
        assert_eq!(
            d("1.5")
                .midpoint(d("2.25"))
                .map(|m| m.to_string())
                .as_deref(),
            Some("1.875")
        );
        assert_eq!(d("3030").deviation_bps(d("3000")), Some(100.0));
        assert_eq!(d("2970").deviation_bps(d("3000")), Some(-100.0));
        // 1/3 bps rounds to 0.33; 2/3 to 0.67.
        assert_eq!(d("30000.1").deviation_bps(d("30000")), Some(0.03));
        assert_eq!(d("3000.2").deviation_bps(d("3000")), Some(0.67));
        assert_eq!(d("1").deviation_bps(d("0")), None);
        assert_eq!(d("1").ratio_bps(d("2")), Some(5000.0));
    }
}
