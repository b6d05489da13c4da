//! Exact sums of the decimal numbers providers print (`131664.76418553386`, `1.5e-7`), so a
//! figure derived from several candles is the sum of what the provider said, not of their
//! nearest binary floats.

use alloy::primitives::U256;

/// A non-negative decimal: `digits × 10^-scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decimal {
    digits: U256,
    scale: u32,
}

/// Scales beyond this are refused: no provider prints 60 fractional digits, and aligning two
/// such numbers could overflow 256 bits.
const MAX_SCALE: u32 = 60;

impl Decimal {
    pub(crate) const ZERO: Self = Self {
        digits: U256::ZERO,
        scale: 0,
    };

    /// Parses a JSON number text (or the same inside quotes). Negative, non-finite and
    /// overlong numbers are refused with the reason.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let raw = text.trim().trim_matches('"');
        let (mantissa, exponent) = match raw.find(['e', 'E']) {
            Some(at) => {
                let exponent: i32 = raw[at + 1..]
                    .trim_start_matches('+')
                    .parse()
                    .map_err(|_| format!("{raw:?} is not a decimal number"))?;
                (&raw[..at], exponent)
            }
            None => (raw, 0),
        };
        if mantissa.starts_with('-') {
            return Err(format!("{raw:?} is negative"));
        }
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if whole.is_empty() && fraction.is_empty()
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
        let mut value = Self { digits, scale: 0 };
        if scale >= 0 {
            value.scale = u32::try_from(scale)
                .ok()
                .filter(|s| *s <= MAX_SCALE)
                .ok_or_else(|| format!("{raw:?} has too many fractional digits"))?;
        } else {
            let shift = u32::try_from(-scale).unwrap_or(u32::MAX);
            value.digits = pow10(shift)
                .and_then(|p| value.digits.checked_mul(p))
                .ok_or_else(|| format!("{raw:?} is too large"))?;
        }
        Ok(value)
    }

    /// `self + other`, exactly.
    pub(crate) fn checked_add(self, other: Self) -> Option<Self> {
        let (a, b, scale) = self.aligned(other)?;
        Some(Self {
            digits: a.checked_add(b)?,
            scale,
        })
    }
}

impl Decimal {
    fn aligned(self, other: Self) -> Option<(U256, U256, u32)> {
        let scale = self.scale.max(other.scale);
        Some((
            self.digits.checked_mul(pow10(scale - self.scale)?)?,
            other.digits.checked_mul(pow10(scale - other.scale)?)?,
            scale,
        ))
    }

    /// Orders two decimals (`None` only if aligning them overflows).
    pub(crate) fn compare(self, other: Self) -> Option<std::cmp::Ordering> {
        self.aligned(other).map(|(a, b, _)| a.cmp(&b))
    }

    /// `(self + other) / 2`, exactly (one more fractional digit at most).
    pub(crate) fn midpoint(self, other: Self) -> Option<Self> {
        let (a, b, scale) = self.aligned(other)?;
        // (a+b)/2 = (a+b)*5/10.
        Some(Self {
            digits: a.checked_add(b)?.checked_mul(U256::from(5u8))?,
            scale: scale + 1,
        })
    }
}

impl std::fmt::Display for Decimal {
    /// Plain notation, no exponent, no trailing fractional zeros.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

fn pow10(exponent: u32) -> Option<U256> {
    (exponent <= 77).then(|| U256::from(10u8).pow(U256::from(exponent)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(items: &[&str]) -> String {
        items
            .iter()
            .map(|t| Decimal::parse(t).expect("expected a value"))
            .try_fold(Decimal::ZERO, Decimal::checked_add)
            .expect("expected a value")
            .to_string()
    }

    #[test]
    fn sums_exactly_where_floats_would_not() {
        assert_eq!(sum(&["0.1", "0.2"]), "0.3");
        assert_eq!(sum(&["131664.76418553386", "2.23581446614"]), "131667");
        assert_eq!(sum(&["1.5e-7", "1E+3", "2e2"]), "1200.00000015");
        assert_eq!(sum(&["0", "0.000"]), "0");
        assert_eq!(sum(&["\"12.50\""]), "12.5");
    }

    #[test]
    fn orders_and_halves_exactly() {
        let a = Decimal::parse("1.5").expect("expected a value");
        let b = Decimal::parse("2.25").expect("expected a value");
        assert_eq!(a.compare(b), Some(std::cmp::Ordering::Less));
        assert_eq!(
            a.midpoint(b).expect("expected a value").to_string(),
            "1.875"
        );
    }

    #[test]
    fn refuses_what_is_not_a_volume() {
        for bad in ["-1", "abc", "", ".", "1e", "1.2.3", "NaN"] {
            assert!(Decimal::parse(bad).is_err(), "{bad}");
        }
    }
}
