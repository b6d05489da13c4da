//! Whole-unit decimal strings and atomic token amounts, converted exactly: `"1.5"` with 6
//! decimals is `1500000`, never a float on the way (the shared `decimal-units` crate, in this
//! crate's error).

use alloy::primitives::{I256, U256};

use crate::MathError;

/// `text` (`"12"`, `"0.000001"`, `"1.50"`) in atomic units of a token with `decimals`.
///
/// Exact or an error: a nonzero digit beyond `decimals` is
/// [`MathError::TooManyFractionDigits`] (rounding it away would quote another amount than
/// the one asked for; trailing zeros carry no value and are accepted), and an amount beyond
/// 2²⁵⁶ − 1 is [`MathError::Overflow`]. Only ASCII digits with at most one `.` between
/// digits are read.
pub fn parse_units(text: &str, decimals: u8) -> Result<U256, MathError> {
    use decimal_units::UnitsError;
    decimal_units::parse(text, decimals).map_err(|error| match error {
        UnitsError::TooPrecise { digits, decimals } => {
            MathError::TooManyFractionDigits { digits, decimals }
        }
        UnitsError::Overflow | UnitsError::DecimalsTooLarge(_) => MathError::Overflow,
        _ => MathError::InvalidDecimal(text.to_owned()),
    })
}

/// `amount` atomic units as whole units with up to `decimals` fractional digits, trailing
/// zeros dropped (`1500000`, 6 → `"1.5"`; `0` → `"0"`).
pub fn format_units(amount: U256, decimals: u8) -> String {
    decimal_units::format_trimmed(amount, decimals)
}

/// [`format_units`] for a signed amount (a net output can be negative).
pub fn format_signed_units(amount: I256, decimals: u8) -> String {
    let magnitude = format_units(amount.unsigned_abs(), decimals);
    if amount.is_negative() {
        format!("-{magnitude}")
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str, decimals: u8) -> U256 {
        parse_units(text, decimals).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn whole_units_become_atomic_units_exactly() {
        assert_eq!(parsed("1.5", 6), U256::from(1_500_000u64));
        assert_eq!(parsed("1.5", 18), U256::from(1_500_000_000_000_000_000u128));
        assert_eq!(parsed("0.000001", 6), U256::from(1u8));
        assert_eq!(parsed("12", 0), U256::from(12u8));
        assert_eq!(parsed("007.10", 2), U256::from(710u16));
        assert_eq!(parsed("0", 18), U256::ZERO);
    }

    #[test]
    fn precision_beyond_the_token_is_refused() {
        assert_eq!(
            parse_units("0.0000001", 6),
            Err(MathError::TooManyFractionDigits {
                digits: 7,
                decimals: 6
            })
        );
        assert_eq!(
            parse_units("1.05", 1),
            Err(MathError::TooManyFractionDigits {
                digits: 2,
                decimals: 1
            })
        );
        // Trailing zeros hold no value: "1.000" of a 0-decimal token is exactly 1.
        assert_eq!(parsed("1.000", 0), U256::from(1u8));
        assert_eq!(parsed("2.5000000", 6), U256::from(2_500_000u64));
    }

    #[test]
    fn malformed_and_oversized_amounts_are_errors() {
        for bad in ["", ".5", "5.", "1.2.3", "-1", "1e3", " 1", "1,5"] {
            assert!(
                matches!(parse_units(bad, 6), Err(MathError::InvalidDecimal(_))),
                "{bad:?}"
            );
        }
        let max = U256::MAX.to_string();
        assert_eq!(parsed(&max, 0), U256::MAX);
        assert_eq!(parse_units(&max, 1), Err(MathError::Overflow));
        assert_eq!(parse_units(&format!("{max}0"), 0), Err(MathError::Overflow));
    }

    #[test]
    fn atomic_units_print_as_whole_units() {
        assert_eq!(format_units(U256::from(1_500_000u64), 6), "1.5");
        assert_eq!(format_units(U256::from(1u8), 6), "0.000001");
        assert_eq!(format_units(U256::ZERO, 6), "0");
        assert_eq!(format_units(U256::from(10_000_000u64), 6), "10");
        assert_eq!(format_units(U256::from(42u8), 0), "42");
        assert_eq!(
            format_signed_units(I256::try_from(-1_500_000i64).unwrap_or_default(), 6),
            "-1.5"
        );
    }

    #[test]
    fn formatting_and_parsing_round_trip() {
        for (atomic, decimals) in [
            (1u128, 18u8),
            (123_456_789, 3),
            (10u128.pow(30), 18),
            (7, 0),
        ] {
            let amount = U256::from(atomic);
            assert_eq!(parsed(&format_units(amount, decimals), decimals), amount);
        }
    }
}
