#![doc = include_str!("../README.md")]

use alloy::primitives::U256;

mod decimal;

pub use decimal::{Decimal, DecimalError, MAX_SCALE};

/// A decimal text that cannot be turned into atomic units exactly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnitsError {
    /// Not ASCII digits with at most one `.` between digits.
    #[error("{0:?} is not a plain decimal number")]
    NotDecimal(String),
    /// Nonzero digits beyond the token's decimals.
    #[error("{digits} fractional digits, but the token has {decimals} decimals")]
    TooPrecise {
        /// Significant fractional digits written.
        digits: usize,
        /// The token's decimals.
        decimals: u8,
    },
    /// Larger than a uint256.
    #[error("the amount overflows 256 bits")]
    Overflow,
    /// One whole unit (`10^decimals`) does not fit in a uint256.
    #[error("{0} decimals is more than a uint256 can hold (at most {MAX_DECIMALS})")]
    DecimalsTooLarge(u8),
}

/// The most decimals a token can have for `10^decimals` to fit in a uint256.
pub const MAX_DECIMALS: u8 = 77;

/// `10^decimals`, refused rather than wrapped when it does not fit in a uint256.
pub fn pow10(decimals: u8) -> Result<U256, UnitsError> {
    if decimals > MAX_DECIMALS {
        return Err(UnitsError::DecimalsTooLarge(decimals));
    }
    Ok(U256::from(10u8).pow(U256::from(decimals)))
}

/// `text` (`"12"`, `"0.000001"`, `"1.50"`) in atomic units of a token with `decimals`, exactly.
pub fn parse(text: &str, decimals: u8) -> Result<U256, UnitsError> {
    if decimals > MAX_DECIMALS {
        return Err(UnitsError::DecimalsTooLarge(decimals));
    }
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text, None),
    };
    let digits_only = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if !digits_only(whole) || fraction.is_some_and(|f| !digits_only(f)) {
        return Err(UnitsError::NotDecimal(text.to_owned()));
    }
    let fraction = fraction.unwrap_or("").trim_end_matches('0');
    if fraction.len() > usize::from(decimals) {
        return Err(UnitsError::TooPrecise {
            digits: fraction.len(),
            decimals,
        });
    }
    let ten = U256::from(10u8);
    let padding = usize::from(decimals) - fraction.len();
    whole
        .bytes()
        .chain(fraction.bytes())
        .chain(std::iter::repeat_n(b'0', padding))
        .try_fold(U256::ZERO, |atomic, digit| {
            atomic
                .checked_mul(ten)
                .and_then(|value| value.checked_add(U256::from(digit - b'0')))
        })
        .ok_or(UnitsError::Overflow)
}

/// The digits of `atomic` split at `decimals` from the right, the whole part at least `0`.
fn split(atomic: U256, decimals: u8) -> (String, String) {
    let digits = atomic.to_string();
    let decimals = usize::from(decimals);
    let padded = format!("{digits:0>width$}", width = decimals + 1);
    let (whole, fraction) = padded.split_at(padded.len() - decimals);
    (whole.to_owned(), fraction.to_owned())
}

/// `atomic` in whole units with exactly `decimals` fractional digits (`5000`, 6 →
/// `"0.005000"`): prices as the terms print them.
pub fn format_fixed(atomic: U256, decimals: u8) -> String {
    match split(atomic, decimals) {
        (whole, fraction) if fraction.is_empty() => whole,
        (whole, fraction) => format!("{whole}.{fraction}"),
    }
}

/// `atomic` in whole units, trailing zeros dropped (`1500000`, 6 → `"1.5"`; `0` → `"0"`).
pub fn format_trimmed(atomic: U256, decimals: u8) -> String {
    let (whole, fraction) = split(atomic, decimals);
    match fraction.trim_end_matches('0') {
        "" => whole,
        fraction => format!("{whole}.{fraction}"),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn parses_exactly_or_not_at_all() {
        assert_eq!(parse("0.005", 6), Ok(U256::from(5_000u64)));
        assert_eq!(parse("1", 6), Ok(U256::from(1_000_000u64)));
        assert_eq!(parse("0.0200", 6), Ok(U256::from(20_000u64)));
        assert_eq!(parse("7", 0), Ok(U256::from(7u64)));
        assert_eq!(
            parse("0.0000001", 6),
            Err(UnitsError::TooPrecise {
                digits: 7,
                decimals: 6
            })
        );
        for bad in ["1e3", ".5", "5.", "", "-1", "1.2.3", " 1", "1,5"] {
            assert!(
                matches!(parse(bad, 6), Err(UnitsError::NotDecimal(_))),
                "{bad:?}"
            );
        }
        assert_eq!(parse(&"9".repeat(80), 0), Err(UnitsError::Overflow));
        assert_eq!(parse("1", 78), Err(UnitsError::DecimalsTooLarge(78)));
        assert!(parse("1", 77).is_ok());
    }

    #[test]
    fn formats_fixed_and_trimmed() {
        assert_eq!(format_fixed(U256::from(5_000u64), 6), "0.005000");
        assert_eq!(format_fixed(U256::from(1_000_000u64), 6), "1.000000");
        assert_eq!(format_fixed(U256::from(42u64), 0), "42");
        assert_eq!(format_trimmed(U256::from(1_500_000u64), 6), "1.5");
        assert_eq!(format_trimmed(U256::ZERO, 6), "0");
        assert_eq!(format_trimmed(U256::from(7u64), 18), "0.000000000000000007");
        assert_eq!(format_trimmed(U256::from(42u64), 0), "42");
    }

    #[test]
    fn pow10_refuses_what_does_not_fit() {
        assert_eq!(pow10(6), Ok(U256::from(1_000_000u64)));
        assert!(pow10(77).is_ok());
        assert_eq!(pow10(78), Err(UnitsError::DecimalsTooLarge(78)));
    }

    proptest! {
        #[test]
        fn both_formats_parse_back(atomic in any::<u128>(), decimals in 0u8..=30) {
            let atomic = U256::from(atomic);
            prop_assert_eq!(parse(&format_fixed(atomic, decimals), decimals), Ok(atomic));
            prop_assert_eq!(parse(&format_trimmed(atomic, decimals), decimals), Ok(atomic));
        }
    }
}
