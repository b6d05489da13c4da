//! Exact decimals of any scale (`± digits × 10^-scale`), for the numbers providers print
//! (`"3086.17"`, `"1.5e-7"`, quoted or not), the prices derived from integers and the signed
//! yield figures: summed, subtracted, compared, halved and turned into basis points exactly;
//! multiplied and divided with one stated rounding (toward zero, at a number of places the
//! caller names), never through binary floating point.

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
    /// A negative number where only non-negative ones are taken ([`Decimal::parse`]; use
    /// [`Decimal::parse_signed`] for signed figures).
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

/// A decimal number, `± digits × 10^-scale`. Equality and order are by value (`1.50 == 1.5`,
/// `-0 == 0`). Prices are non-negative by construction ([`parse`](Self::parse), [`new`](Self::new),
/// [`scaled`](Self::scaled), [`ratio`](Self::ratio)); a sign comes only from
/// [`parse_signed`](Self::parse_signed), [`from_int`](Self::from_int), subtraction and negation.
#[derive(Debug, Clone, Copy)]
pub struct Decimal {
    digits: U256,
    scale: u32,
    /// Never set on zero, so that zero has one sign.
    negative: bool,
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.compare(*other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    /// [`compare`](Decimal::compare): values too far apart to align count as equal.
    fn cmp(&self, other: &Self) -> Ordering {
        self.compare(*other)
    }
}

/// Why a product or quotient could not be made.
fn too_large(what: &str) -> DecimalError {
    DecimalError::TooLarge(what.to_owned())
}

/// `value` in 256 bits, or `None`.
fn narrow(value: U512) -> Option<U256> {
    (value < (U512::from(1u8) << 256)).then(|| value.to::<U256>())
}

fn pow10(exponent: u32) -> Option<U256> {
    (exponent <= 77).then(|| U256::from(10u8).pow(U256::from(exponent)))
}

impl Decimal {
    /// Zero.
    pub const ZERO: Self = Self {
        digits: U256::ZERO,
        scale: 0,
        negative: false,
    };

    /// The one constructor of a signed value: zero is never negative.
    fn signed(negative: bool, digits: U256, scale: u32) -> Self {
        Self {
            digits,
            scale,
            negative: negative && !digits.is_zero(),
        }
    }

    /// `digits × 10^-scale`.
    pub fn new(digits: U256, scale: u32) -> Result<Self, DecimalError> {
        if scale > MAX_SCALE {
            return Err(DecimalError::TooManyPlaces {
                text: None,
                places: scale,
            });
        }
        Ok(Self::signed(false, digits, scale))
    }

    /// An integer, negative or not.
    pub fn from_int(value: i64) -> Self {
        Self::signed(value < 0, U256::from(value.unsigned_abs()), 0)
    }

    /// A signed decimal text: what [`parse`](Self::parse) takes, with a leading `-` or `+`
    /// allowed (`"-0.5"`, `"+3E+2"`, `"-1.2e-7"`).
    pub fn parse_signed(text: &str) -> Result<Self, DecimalError> {
        Self::read_signed(text, None)
    }

    /// [`parse_signed`](Self::parse_signed) rounded toward zero at `places` fractional
    /// digits (at most [`MAX_SCALE`]), the digits beyond dropped unread: a figure printed with
    /// more places than are kept (`1e-70`, a 100-digit fraction) is cut, not refused.
    pub fn parse_signed_truncated(text: &str, places: u32) -> Result<Self, DecimalError> {
        if places > MAX_SCALE {
            return Err(DecimalError::TooManyPlaces { text: None, places });
        }
        Self::read_signed(text, Some(places))
    }

    fn read_signed(text: &str, keep: Option<u32>) -> Result<Self, DecimalError> {
        let raw = text.trim().trim_matches('"');
        let (negative, rest) = match raw.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, raw.strip_prefix('+').unwrap_or(raw)),
        };
        // One sign at most: `--1` and `+-1` are not numbers.
        if rest.starts_with(['-', '+']) {
            return Err(DecimalError::NotANumber(raw.to_owned()));
        }
        let magnitude = Self::read(rest, keep).map_err(|e| match e {
            DecimalError::NotANumber(_) => DecimalError::NotANumber(raw.to_owned()),
            other => other,
        })?;
        Ok(if negative {
            magnitude.negated()
        } else {
            magnitude
        })
    }

    /// A decimal text as providers print it (`"3086.17"`, `"1.5e-7"`, `"2E+3"`, quotes
    /// allowed); negative, non-numeric and overlong texts are refused with the reason.
    pub fn parse(text: &str) -> Result<Self, DecimalError> {
        Self::read(text, None)
    }

    /// What [`parse`](Self::parse) reads, with the digits beyond `keep` fractional places (if
    /// given) dropped, toward zero, before they are counted: `1e-70` is then zero rather than
    /// refused for its places, and a long fraction is never too many digits.
    fn read(text: &str, keep: Option<u32>) -> Result<Self, DecimalError> {
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
        // The fractional digits that stay fractional digits within `keep` after the exponent.
        let used = match keep {
            Some(places) => {
                let within = (i64::from(places) + i64::from(exponent)).max(0);
                fraction
                    .len()
                    .min(usize::try_from(within).unwrap_or(usize::MAX))
            }
            None => fraction.len(),
        };
        let mut digits = U256::ZERO;
        for b in whole.bytes().chain(fraction[..used].bytes()) {
            digits = digits
                .checked_mul(U256::from(10u8))
                .and_then(|d| d.checked_add(U256::from(b - b'0')))
                .ok_or_else(|| DecimalError::TooManyDigits(raw.to_owned()))?;
        }
        let mut scale = i64::try_from(used).unwrap_or(i64::MAX) - i64::from(exponent);
        if let Some(places) = keep
            && scale > i64::from(places)
        {
            // Whole digits pushed past `keep` by a negative exponent: cut toward zero.
            let cut = u32::try_from(scale - i64::from(places)).unwrap_or(u32::MAX);
            digits = pow10(cut).map_or(U256::ZERO, |p| digits / p);
            scale = i64::from(places);
        }
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
            Ok(Self::signed(false, digits, 0))
        }
    }

    /// `integer × 10^exponent` (a feed's answer with `-decimals`, Pyth's price with `expo`).
    pub fn scaled(integer: U256, exponent: i32) -> Result<Self, DecimalError> {
        if exponent <= 0 {
            Self::new(integer, exponent.unsigned_abs())
        } else {
            pow10(exponent.unsigned_abs())
                .and_then(|p| integer.checked_mul(p))
                .map(|digits| Self::signed(false, digits, 0))
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
        Ok(Self::signed(false, scaled.to::<U256>(), places))
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_zero()
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// The digits (of the magnitude: see [`is_negative`](Self::is_negative)) and scale.
    pub fn parts(&self) -> (U256, u32) {
        (self.digits, self.scale)
    }

    /// The same magnitude with the other sign (zero stays zero).
    #[must_use]
    pub fn negated(self) -> Self {
        Self::signed(!self.negative, self.digits, self.scale)
    }

    /// The magnitude.
    #[must_use]
    pub fn abs(self) -> Self {
        Self::signed(false, self.digits, self.scale)
    }

    /// Rounded toward zero to at most `places` fractional digits (fewer places are kept as
    /// they are).
    #[must_use]
    pub fn truncated(self, places: u32) -> Self {
        if self.scale <= places {
            return self;
        }
        // scale − places ≤ MAX_SCALE, so the power fits.
        let unit = pow10(self.scale - places).unwrap_or(U256::MAX);
        Self::signed(self.negative, self.digits / unit, places)
    }

    /// `self × other`, rounded toward zero at `places` fractional digits (exact when the two
    /// scales add up to `places` or fewer).
    pub fn checked_mul_truncated(self, other: Self, places: u32) -> Result<Self, DecimalError> {
        if places > MAX_SCALE {
            return Err(DecimalError::TooManyPlaces { text: None, places });
        }
        // The exact product has scale s₁ + s₂ (≤ 2 · MAX_SCALE).
        let product = U512::from(self.digits) * U512::from(other.digits);
        let scale = self.scale + other.scale;
        let digits = if scale > places {
            product / U512::from(10u8).pow(U512::from(scale - places))
        } else {
            product
                .checked_mul(U512::from(10u8).pow(U512::from(places - scale)))
                .ok_or_else(|| too_large("the product"))?
        };
        let digits = narrow(digits).ok_or_else(|| too_large("the product"))?;
        Ok(Self::signed(
            self.negative != other.negative,
            digits,
            places,
        ))
    }

    /// `self / other`, rounded toward zero at `places` fractional digits; an error when
    /// `other` is zero.
    pub fn checked_div_truncated(self, other: Self, places: u32) -> Result<Self, DecimalError> {
        if other.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        if places > MAX_SCALE {
            return Err(DecimalError::TooManyPlaces { text: None, places });
        }
        // a·10^-s₁ / (b·10^-s₂) at p places = a · 10^(p + s₂ − s₁) / b.
        let (numerator, denominator) = (U512::from(self.digits), U512::from(other.digits));
        let up = i64::from(places) + i64::from(other.scale) - i64::from(self.scale);
        let ten = |n: i64| U512::from(10u8).pow(U512::from(n.unsigned_abs()));
        let quotient = if up >= 0 {
            numerator
                .checked_mul(ten(up))
                .ok_or_else(|| too_large("the quotient"))?
                / denominator
        } else {
            numerator / (denominator * ten(up))
        };
        let digits = narrow(quotient).ok_or_else(|| too_large("the quotient"))?;
        Ok(Self::signed(
            self.negative != other.negative,
            digits,
            places,
        ))
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
        if self.negative == other.negative {
            return Some(Self::signed(self.negative, a.checked_add(b)?, scale));
        }
        // Opposite signs: the larger magnitude keeps its sign.
        Some(if a >= b {
            Self::signed(self.negative, a - b, scale)
        } else {
            Self::signed(other.negative, b - a, scale)
        })
    }

    /// `self − other`, exactly; `None` if it overflows.
    pub fn checked_sub(self, other: Self) -> Option<Self> {
        self.checked_add(other.negated())
    }

    /// Exact order; `None` only if aligning the two overflows 256 bits.
    pub fn checked_cmp(self, other: Self) -> Option<Ordering> {
        match (self.negative, other.negative) {
            (false, true) => Some(Ordering::Greater),
            (true, false) => Some(Ordering::Less),
            (false, false) => self.aligned(other).map(|(a, b, _)| a.cmp(&b)),
            (true, true) => self.aligned(other).map(|(a, b, _)| b.cmp(&a)),
        }
    }

    /// Exact order, with values too far apart to align taken as equal (no realistic price
    /// is: use [`checked_cmp`](Self::checked_cmp) to tell).
    pub fn compare(self, other: Self) -> Ordering {
        self.checked_cmp(other).unwrap_or(Ordering::Equal)
    }

    /// `(self + other) / 2`, exactly (one more decimal place at most).
    pub fn midpoint(self, other: Self) -> Option<Self> {
        let sum = self.checked_add(other)?;
        if sum.scale >= MAX_SCALE {
            return None;
        }
        Some(Self::signed(
            sum.negative,
            sum.digits.checked_mul(U256::from(5u8))?,
            sum.scale + 1,
        ))
    }

    /// `(self − reference) / reference × 10⁴`, rounded half away from zero to 0.01 bps;
    /// `None` when the reference is zero.
    pub fn deviation_bps(self, reference: Self) -> Option<f64> {
        if reference.is_zero() {
            return None;
        }
        let difference = self.checked_sub(reference)?;
        let (d, m, _) = difference.aligned(reference)?;
        let bps = hundredths_of_bps(d, m)?;
        Some(if difference.negative != reference.negative {
            -bps
        } else {
            bps
        })
    }

    /// `self / reference × 10⁴`, rounded half away from zero to 0.01 bps; `None` when the
    /// reference is zero.
    pub fn ratio_bps(self, reference: Self) -> Option<f64> {
        if reference.is_zero() {
            return None;
        }
        let (a, m, _) = self.aligned(reference)?;
        let bps = hundredths_of_bps(a, m)?;
        Some(if self.negative != reference.negative {
            -bps
        } else {
            bps
        })
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
        let sign = if self.negative { "-" } else { "" };
        if fraction.is_empty() {
            write!(f, "{sign}{whole}")
        } else {
            write!(f, "{sign}{whole}.{fraction}")
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

    #[test]
    fn signed_figures() {
        let s = |text: &str| Decimal::parse_signed(text).expect("a signed decimal");
        assert_eq!(s("-0.5").to_string(), "-0.5");
        assert_eq!(s("+3E+2").to_string(), "300");
        assert_eq!(s("-1.2e-7").to_string(), "-0.00000012");
        assert_eq!(s("-0").to_string(), "0");
        assert!(!s("-0").is_negative());
        for bad in ["--1", "+-1", "-+1", "-", "-abc"] {
            assert!(Decimal::parse_signed(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Decimal::parse_signed("-").map_err(|e| e.to_string()),
            Err("\"-\" is not a decimal number".to_owned())
        );
        assert_eq!(
            s("1")
                .checked_sub(s("2.5"))
                .map(|d| d.to_string())
                .as_deref(),
            Some("-1.5")
        );
        assert!(s("-2") < s("-1") && s("-1") < s("0.5"));
        assert_eq!(
            s("-1").midpoint(s("2")).map(|m| m.to_string()).as_deref(),
            Some("0.5")
        );
        assert_eq!(Decimal::from_int(-7).to_string(), "-7");
        let cut = |text: &str| {
            Decimal::parse_signed_truncated(text, 18)
                .expect("a signed decimal")
                .to_string()
        };
        assert_eq!(cut("-0.1234567890123456789999"), "-0.123456789012345678");
        assert_eq!(cut("1e-70"), "0");
        assert_eq!(cut("-123e-17"), "-0.00000000000000123");
        assert_eq!(cut("123e-20"), "0.000000000000000001");
        assert_eq!(
            cut(&format!("0.{}", "9".repeat(100))),
            "0.999999999999999999"
        );
        assert_eq!(cut("1.5e3"), "1500");
        assert!(Decimal::parse("1e-70").is_err());
    }

    #[test]
    fn products_and_quotients_round_toward_zero() {
        let s = |text: &str| Decimal::parse_signed(text).expect("a signed decimal");
        let div = |a: &str, b: &str, places| {
            s(a).checked_div_truncated(s(b), places)
                .map(|d| d.to_string())
        };
        assert_eq!(div("1", "3", 18).as_deref(), Ok("0.333333333333333333"));
        assert_eq!(div("-2", "3", 18).as_deref(), Ok("-0.666666666666666666"));
        assert_eq!(div("2", "-3", 2).as_deref(), Ok("-0.66"));
        assert_eq!(div("1", "0", 18), Err(DecimalError::DivisionByZero));
        assert_eq!(
            s("-1.5")
                .checked_mul_truncated(s("-2"), 18)
                .map(|d| d.to_string())
                .as_deref(),
            Ok("3")
        );
        assert_eq!(
            s("-0.123")
                .checked_mul_truncated(s("0.5"), 3)
                .map(|d| d.to_string())
                .as_deref(),
            Ok("-0.061")
        );
        assert_eq!(s("-0.1239").truncated(3).to_string(), "-0.123");
        assert_eq!(s("0.5").truncated(3).parts(), (U256::from(5u8), 1));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// `digits × 10^-scale` with a sign, and the same value as an i128 at scale `at`.
        fn value(digits: i64, scale: u32) -> Decimal {
            let magnitude = Decimal::new(U256::from(digits.unsigned_abs()), scale).expect("scale");
            if digits < 0 {
                magnitude.negated()
            } else {
                magnitude
            }
        }

        /// The reference: an i128 of units of 10^-`at`, printed as a decimal.
        fn text(units: i128, at: u32) -> String {
            let sign = if units < 0 { "-" } else { "" };
            let magnitude = units.unsigned_abs();
            let one = 10u128.pow(at);
            let fraction = format!("{:0>width$}", magnitude % one, width = at as usize);
            let fraction = fraction.trim_end_matches('0');
            let sign = if magnitude == 0 { "" } else { sign };
            if fraction.is_empty() {
                format!("{sign}{}", magnitude / one)
            } else {
                format!("{sign}{}.{fraction}", magnitude / one)
            }
        }

        fn at(digits: i64, scale: u32, to: u32) -> i128 {
            i128::from(digits) * 10i128.pow(to - scale)
        }

        proptest! {
            #[test]
            fn sums_and_differences_are_exact(
                a in -1_000_000_000_000i64..1_000_000_000_000, sa in 0u32..=12,
                b in -1_000_000_000_000i64..1_000_000_000_000, sb in 0u32..=12,
            ) {
                let (x, y) = (value(a, sa), value(b, sb));
                let to = sa.max(sb);
                let sum = x.checked_add(y).expect("sum");
                prop_assert_eq!(sum.to_string(), text(at(a, sa, to) + at(b, sb, to), to));
                let difference = x.checked_sub(y).expect("difference");
                prop_assert_eq!(difference.to_string(), text(at(a, sa, to) - at(b, sb, to), to));
                prop_assert_eq!(x.compare(y), at(a, sa, to).cmp(&at(b, sb, to)));
                prop_assert_eq!(Decimal::parse_signed(&x.to_string()).expect("round trip"), x);
                prop_assert_eq!(difference.checked_add(y).expect("back"), x);
            }

            #[test]
            fn products_truncate_toward_zero(
                a in -1_000_000_000i64..1_000_000_000, sa in 0u32..=9,
                b in -1_000_000_000i64..1_000_000_000, sb in 0u32..=9,
                places in 0u32..=18,
            ) {
                let product = value(a, sa).checked_mul_truncated(value(b, sb), places).expect("product");
                // i128 division truncates toward zero, the rounding promised.
                let exact = i128::from(a) * i128::from(b);
                let scale = sa + sb;
                let units = if scale > places {
                    exact / 10i128.pow(scale - places)
                } else {
                    exact * 10i128.pow(places - scale)
                };
                prop_assert_eq!(product.to_string(), text(units, places));
            }

            #[test]
            fn quotients_truncate_toward_zero(
                a in -1_000_000_000i64..1_000_000_000, sa in 0u32..=6,
                b in -1_000_000_000i64..1_000_000_000, sb in 0u32..=6,
                places in 0u32..=18,
            ) {
                prop_assume!(b != 0);
                let quotient = value(a, sa).checked_div_truncated(value(b, sb), places).expect("quotient");
                let up = i64::from(places) + i64::from(sb) - i64::from(sa);
                let units = if up >= 0 {
                    i128::from(a) * 10i128.pow(u32::try_from(up).expect("up")) / i128::from(b)
                } else {
                    i128::from(a) / (i128::from(b) * 10i128.pow(u32::try_from(-up).expect("down")))
                };
                prop_assert_eq!(quotient.to_string(), text(units, places));
                // Toward zero: the remainder has the dividend's sign, and is below one unit.
                let back = quotient.checked_mul_truncated(value(b, sb), places + sb).expect("back");
                let remainder = value(a, sa).checked_sub(back).expect("remainder");
                prop_assert!(remainder.is_zero() || remainder.is_negative() == (a < 0));
            }
        }
    }
}
