//! Exact decimal <-> atomic-unit conversion for token amounts. Prices are configured as
//! decimal strings ("0.005") and must become atomic integers without any float rounding.

use alloy::primitives::U256;

/// A decimal string that cannot be turned into atomic units exactly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
}

/// Parses `"1.25"` with `decimals = 6` into `1_250_000`, refusing anything inexact.
pub fn parse_units_exact(text: &str, decimals: u8) -> Result<U256, AmountError> {
    let not_decimal = || AmountError::NotDecimal(text.to_owned());
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) if !fraction.is_empty() => (whole, fraction),
        Some(_) => return Err(not_decimal()),
        None => (text, ""),
    };
    if whole.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err(not_decimal());
    }
    let significant_fraction = fraction.trim_end_matches('0');
    if significant_fraction.len() > usize::from(decimals) {
        return Err(AmountError::TooPrecise {
            value: text.to_owned(),
            decimals,
        });
    }
    let padded = format!(
        "{whole}{significant_fraction:0<width$}",
        width = usize::from(decimals)
    );
    U256::from_str_radix(&padded, 10).map_err(|_| AmountError::Overflow(text.to_owned()))
}

/// Formats atomic units as a decimal string with exactly `decimals` fractional digits
/// (`5000`, 6 -> `"0.005000"`).
pub fn format_units_fixed(atomic: U256, decimals: u8) -> String {
    let digits = atomic.to_string();
    let decimals = usize::from(decimals);
    if decimals == 0 {
        return digits;
    }
    let padded = format!("{digits:0>width$}", width = decimals + 1);
    let (whole, fraction) = padded.split_at(padded.len() - decimals);
    format!("{whole}.{fraction}")
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

    proptest! {
        #[test]
        fn format_then_parse_is_identity(atomic in any::<u128>(), decimals in 0u8..=18) {
            let text = format_units_fixed(U256::from(atomic), decimals);
            prop_assert_eq!(parse_units_exact(&text, decimals), Ok(U256::from(atomic)));
        }
    }
}
