//! The yield figures are the workspace's one exact decimal, [`decimal_units::Decimal`], signed,
//! kept at [`PLACES`] fractional digits: a provider's text is cut there (toward zero) when read,
//! and every product and quotient is rounded toward zero there once. These are the few steps
//! the maths here take, with the errors of this crate.

use alloy::primitives::U256;
use decimal_units::{Decimal, DecimalError};

use crate::YieldModelError;

/// Fractional digits kept (every provider figure seen has at most 15).
pub const PLACES: u32 = 18;

fn model_error(error: DecimalError) -> YieldModelError {
    match error {
        DecimalError::DivisionByZero => YieldModelError::DivisionByZero,
        _ => YieldModelError::Overflow,
    }
}

/// A provider's number text (`12`, `-0.5`, `1234.56789`, `1.2e-7`, `3E+2`), digits beyond
/// [`PLACES`] dropped (toward zero).
pub fn parse(text: &str) -> Result<Decimal, YieldModelError> {
    Decimal::parse_signed_truncated(text, PLACES)
        .map_err(|_| YieldModelError::NotANumber(text.to_owned()))
}

/// An unsigned integer of atomic units with `decimals` (wei with 18, USDC units with 6), cut to
/// [`PLACES`].
pub fn from_units(atomic: U256, decimals: u8) -> Result<Decimal, YieldModelError> {
    Decimal::new(atomic, u32::from(decimals))
        .map(|d| d.truncated(PLACES))
        .map_err(model_error)
}

/// `a + b`, exactly.
pub fn add(a: Decimal, b: Decimal) -> Result<Decimal, YieldModelError> {
    a.checked_add(b).ok_or(YieldModelError::Overflow)
}

/// `a − b`, exactly.
pub fn sub(a: Decimal, b: Decimal) -> Result<Decimal, YieldModelError> {
    a.checked_sub(b).ok_or(YieldModelError::Overflow)
}

/// `a × b`, rounded toward zero at [`PLACES`].
pub fn mul(a: Decimal, b: Decimal) -> Result<Decimal, YieldModelError> {
    a.checked_mul_truncated(b, PLACES).map_err(model_error)
}

/// `a / b`, rounded toward zero at [`PLACES`]; an error when `b` is zero.
pub fn div(a: Decimal, b: Decimal) -> Result<Decimal, YieldModelError> {
    a.checked_div_truncated(b, PLACES).map_err(model_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(text: &str) -> Decimal {
        parse(text).expect(text)
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
        assert_eq!(
            x("-0.1234567890123456789999").to_string(),
            "-0.123456789012345678"
        );
        for bad in ["", "abc", "1.2.3", "--1", "1e", "NaN", "1,5"] {
            assert_eq!(
                parse(bad),
                Err(YieldModelError::NotANumber(bad.to_owned())),
                "{bad}"
            );
        }
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(add(x("0.1"), x("0.2")), Ok(x("0.3")));
        assert_eq!(sub(x("1"), x("2.5")), Ok(x("-1.5")));
        assert_eq!(mul(x("-1.5"), x("-2")), Ok(x("3")));
        assert_eq!(
            div(x("1"), x("3")).map(|d| d.to_string()).as_deref(),
            Ok("0.333333333333333333")
        );
        assert_eq!(
            div(x("-2"), x("3")).map(|d| d.to_string()).as_deref(),
            Ok("-0.666666666666666666")
        );
        assert_eq!(
            div(x("1"), Decimal::ZERO),
            Err(YieldModelError::DivisionByZero)
        );
        assert_eq!(
            from_units(U256::from(1_500_000_000_000_000_000u64), 18),
            Ok(x("1.5"))
        );
        assert!(x("-1") < x("0.5") && x("-2") < x("-1"));
    }
}
