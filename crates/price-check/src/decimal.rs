//! Exact non-negative decimals: every price is `digits × 10^-scale`, so a price printed from a
//! feed's integer and exponent, a ticker's text or a pool's square-root price (to 18 places)
//! is compared, halved and turned into basis points without binary floating point.

use std::cmp::Ordering;
use std::fmt;

use alloy::primitives::{U256, U512};

/// Scales beyond this are refused (no source prints more; alignment stays inside 256 bits).
const MAX_SCALE: u32 = 40;

/// A non-negative decimal number. Equality is by value (`1.50 == 1.5`).
#[derive(Debug, Clone, Copy)]
pub struct Price {
    digits: U256,
    scale: u32,
}

impl PartialEq for Price {
    fn eq(&self, other: &Self) -> bool {
        self.compare(*other) == Ordering::Equal
    }
}

impl Eq for Price {}

fn pow10(exponent: u32) -> U256 {
    U256::from(10u8).pow(U256::from(exponent))
}

impl Price {
    /// `digits × 10^-scale`.
    pub fn new(digits: U256, scale: u32) -> Result<Self, String> {
        if scale > MAX_SCALE {
            return Err(format!("{scale} decimal places are more than {MAX_SCALE}"));
        }
        Ok(Self { digits, scale })
    }

    /// A decimal text as providers print it (`"3086.17"`, `"1.5e-7"`, quotes allowed);
    /// negative, non-numeric and overlong texts are refused with the reason.
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw = text.trim().trim_matches('"');
        let (mantissa, exponent) = match raw.find(['e', 'E']) {
            Some(at) => (
                &raw[..at],
                raw[at + 1..]
                    .trim_start_matches('+')
                    .parse::<i32>()
                    .map_err(|_| format!("{raw:?} is not a decimal number"))?,
            ),
            None => (raw, 0),
        };
        if mantissa.starts_with('-') {
            return Err(format!("{raw:?} is negative"));
        }
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if (whole.is_empty() && fraction.is_empty())
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return Err(format!("{raw:?} is not a decimal number"));
        }
        let mut digits = U256::ZERO;
        for b in whole.bytes().chain(fraction.bytes()) {
            digits = digits
                .checked_mul(U256::from(10u8))
                .and_then(|d| d.checked_add(U256::from(b - b'0')))
                .ok_or_else(|| format!("{raw:?} has too many digits"))?;
        }
        let scale = i64::try_from(fraction.len()).unwrap_or(i64::MAX) - i64::from(exponent);
        if scale >= 0 {
            let scale = u32::try_from(scale).unwrap_or(u32::MAX);
            Self::new(digits, scale).map_err(|e| format!("{raw:?}: {e}"))
        } else {
            let shift = u32::try_from(-scale).unwrap_or(u32::MAX);
            let digits = (shift <= 77)
                .then(|| digits.checked_mul(pow10(shift)))
                .flatten()
                .ok_or_else(|| format!("{raw:?} is too large"))?;
            Ok(Self { digits, scale: 0 })
        }
    }

    /// `integer × 10^exponent` (a feed's answer with `-decimals`, Pyth's price with `expo`).
    pub fn scaled(integer: U256, exponent: i32) -> Result<Self, String> {
        if exponent <= 0 {
            Self::new(integer, exponent.unsigned_abs())
        } else {
            let shift = exponent.unsigned_abs();
            let digits = (shift <= 77)
                .then(|| integer.checked_mul(pow10(shift)))
                .flatten()
                .ok_or_else(|| format!("{integer}e{exponent} is too large"))?;
            Ok(Self { digits, scale: 0 })
        }
    }

    /// `numerator / denominator` rounded down to `places` decimal places.
    pub fn ratio(numerator: U512, denominator: U512, places: u32) -> Result<Self, String> {
        if denominator.is_zero() {
            return Err("division by zero".into());
        }
        if places > MAX_SCALE {
            return Err(format!("{places} decimal places are more than {MAX_SCALE}"));
        }
        let scaled = numerator
            .checked_mul(U512::from(10u8).pow(U512::from(places)))
            .ok_or("price too large")?
            / denominator;
        if scaled >= (U512::from(1u8) << 256) {
            return Err("price too large".into());
        }
        let digits = scaled.to::<U256>();
        Ok(Self {
            digits,
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
            self.digits.checked_mul(pow10(scale - self.scale))?,
            other.digits.checked_mul(pow10(scale - other.scale))?,
            scale,
        ))
    }

    /// Exact order (`Equal` only for equal values; alignment cannot overflow below
    /// `MAX_SCALE` with 256-bit digits of realistic prices, and is treated as equal if it
    /// would).
    pub fn compare(self, other: Self) -> Ordering {
        self.aligned(other)
            .map_or(Ordering::Equal, |(a, b, _)| a.cmp(&b))
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
        // Hundredths of a basis point: difference · 10⁶ / m, rounded half up.
        let scaled = U512::from(difference) * U512::from(2_000_000u32) / U512::from(m);
        let hundredths = (scaled + U512::from(1u8)) / U512::from(2u8);
        let hundredths = u64::try_from(hundredths).ok()? as f64;
        let bps = hundredths / 100.0;
        Some(if negative { -bps } else { bps })
    }
}

impl Price {
    /// `self / reference × 10⁴`, rounded half up to 0.01 bps; `None` when the reference is
    /// zero.
    pub fn ratio_bps(self, reference: Self) -> Option<f64> {
        if reference.is_zero() {
            return None;
        }
        let (a, m, _) = self.aligned(reference)?;
        let scaled = U512::from(a) * U512::from(2_000_000u32) / U512::from(m);
        let hundredths = (scaled + U512::from(1u8)) / U512::from(2u8);
        Some(u64::try_from(hundredths).ok()? as f64 / 100.0)
    }
}

impl fmt::Display for Price {
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

    fn p(text: &str) -> Price {
        Price::parse(text).expect("a price")
    }

    #[test]
    fn parses_and_prints_exactly() {
        assert_eq!(p("3086.1800").to_string(), "3086.18");
        assert_eq!(p("1.5e-7").to_string(), "0.00000015");
        assert_eq!(p("\"12\"").to_string(), "12");
        assert_eq!(p("2E+3").to_string(), "2000");
        assert_eq!(
            Price::scaled(U256::from(308_618_000_000u64), -8)
                .expect("scaled")
                .to_string(),
            "3086.18"
        );
        for bad in ["-1", "abc", "", ".", "1e", "NaN", "1.2.3"] {
            assert!(Price::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ratios_round_down() {
        let third = Price::ratio(U512::from(1u8), U512::from(3u8), 6).expect("ratio");
        assert_eq!(third.to_string(), "0.333333");
        assert!(Price::ratio(U512::from(1u8), U512::ZERO, 6).is_err());
    }

    #[test]
    fn compares_halves_and_measures_deviation() {
        assert_eq!(p("1.50").compare(p("1.5")), Ordering::Equal);
        assert_eq!(p("1.4999").compare(p("1.5")), Ordering::Less);
        assert_eq!(
            p("3000")
                .midpoint(p("3001"))
                .map(|m| m.to_string())
                .as_deref(),
            Some("3000.5")
        );
        assert_eq!(p("3030").deviation_bps(p("3000")), Some(100.0));
        assert_eq!(p("2970").deviation_bps(p("3000")), Some(-100.0));
        // 1/3 bps rounds to 0.33; 2/3 to 0.67.
        assert_eq!(p("30000.1").deviation_bps(p("30000")), Some(0.03));
        assert_eq!(p("3000.2").deviation_bps(p("3000")), Some(0.67));
        assert_eq!(p("1").deviation_bps(p("0")), None);
    }
}
