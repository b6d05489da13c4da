//! Exact decimal <-> atomic-unit conversion for token amounts (the shared `decimal-units`
//! crate, in this crate's error). Prices are configured as decimal strings ("0.005") and must
//! become atomic integers without any float rounding.

use alloy::primitives::U256;

/// A decimal string that cannot be turned into atomic units exactly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AmountError {
    /// Not of the form `digits[.digits]`.
    #[error("`{0}` is not a plain decimal number")]
    NotDecimal(String),
    /// More fractional digits than the token has decimals.
    #[error("`{value}` has more than {decimals} decimal places")]
    TooPrecise {
        /// The offending text.
        value: String,
        /// The token's decimals.
        decimals: u8,
    },
    /// Larger than a uint256.
    #[error("`{0}` overflows 256 bits")]
    Overflow(String),
    /// A token whose one whole unit (`10^decimals`) does not fit in a uint256 (78 decimals or
    /// more): no amount of it can be priced or printed as whole units.
    #[error("{0} decimals is more than a uint256 can hold (at most {MAX_DECIMALS})")]
    DecimalsTooLarge(u8),
}

/// The most decimals a token can have for `10^decimals` to fit in a uint256.
pub const MAX_DECIMALS: u8 = decimal_units::MAX_DECIMALS;

/// `10^decimals`, refused (rather than wrapped) when it does not fit in a uint256.
pub fn pow10(decimals: u8) -> Result<U256, AmountError> {
    decimal_units::pow10(decimals).map_err(|e| amount_error(e, ""))
}

/// Parses `"1.25"` with `decimals = 6` into `1_250_000`, refusing anything inexact.
pub fn parse_units_exact(text: &str, decimals: u8) -> Result<U256, AmountError> {
    decimal_units::parse(text, decimals).map_err(|e| amount_error(e, text))
}

/// Formats atomic units as a decimal string with exactly `decimals` fractional digits
/// (`5000`, 6 -> `"0.005000"`).
pub fn format_units_fixed(atomic: U256, decimals: u8) -> String {
    decimal_units::format_fixed(atomic, decimals)
}

/// The shared conversion's error in this crate's terms, naming the price `text`.
fn amount_error(error: decimal_units::UnitsError, text: &str) -> AmountError {
    use decimal_units::UnitsError;
    match error {
        UnitsError::TooPrecise { decimals, .. } => AmountError::TooPrecise {
            value: text.to_owned(),
            decimals,
        },
        UnitsError::Overflow => AmountError::Overflow(text.to_owned()),
        UnitsError::DecimalsTooLarge(decimals) => AmountError::DecimalsTooLarge(decimals),
        _ => AmountError::NotDecimal(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_prices() {
        assert_eq!(parse_units_exact("0.005", 6), Ok(U256::from(5_000u64)));
        assert_eq!(parse_units_exact("1", 6), Ok(U256::from(1_000_000u64)));
        assert_eq!(parse_units_exact("0.0200", 6), Ok(U256::from(20_000u64)));
        assert!(matches!(
            parse_units_exact("0.0000001", 6),
            Err(AmountError::TooPrecise { .. })
        ));
        assert!(matches!(
            parse_units_exact("1e3", 6),
            Err(AmountError::NotDecimal(_))
        ));
        assert!(matches!(
            parse_units_exact(".5", 6),
            Err(AmountError::NotDecimal(_))
        ));
        assert!(matches!(
            parse_units_exact("5.", 6),
            Err(AmountError::NotDecimal(_))
        ));
        assert!(matches!(
            parse_units_exact("-1", 6),
            Err(AmountError::NotDecimal(_))
        ));
    }

    #[test]
    fn formats_with_fixed_decimals() {
        assert_eq!(format_units_fixed(U256::from(5_000u64), 6), "0.005000");
        assert_eq!(format_units_fixed(U256::from(104_000u64), 6), "0.104000");
        assert_eq!(format_units_fixed(U256::from(12u64), 0), "12");
    }

    #[test]
    fn decimals_past_a_uint256_are_refused_not_wrapped() {
        assert_eq!(pow10(0), Ok(U256::from(1u8)));
        assert_eq!(pow10(6), Ok(U256::from(1_000_000u64)));
        let largest = pow10(MAX_DECIMALS).expect("10^77 fits");
        assert_eq!(largest.to_string().len(), 78);
        for decimals in [78, 100, u8::MAX] {
            assert_eq!(
                pow10(decimals),
                Err(AmountError::DecimalsTooLarge(decimals))
            );
            assert_eq!(
                parse_units_exact("0", decimals),
                Err(AmountError::DecimalsTooLarge(decimals))
            );
        }
        // Formatting needs no power of ten and stays exact at any width.
        let printed = format_units_fixed(U256::from(5u8), 200);
        assert_eq!(printed.len(), 202);
        assert!(printed.starts_with("0.") && printed.ends_with('5'));
    }

    proptest! {
        #[test]
        fn format_then_parse_is_identity(atomic in any::<u128>(), decimals in 0u8..=18) {
            let text = format_units_fixed(U256::from(atomic), decimals);
            prop_assert_eq!(parse_units_exact(&text, decimals), Ok(U256::from(atomic)));
        }
    }
}
