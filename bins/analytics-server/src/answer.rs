//! Pieces every answer is made of: amounts in atomic and whole units, addresses as the caller
//! wrote them and as the answer prints them.

use alloy::primitives::{Address, I256, U256};
use schemars::JsonSchema;
use serde::Serialize;
use server_kit::ApiError;

/// An amount in atomic units and in whole units of its token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Amount {
    /// Smallest units, as a decimal integer string (negative only for net outputs).
    pub atomic: String,
    /// Whole units (`atomic / 10^decimals`), exact; null when the token's decimals are unknown.
    pub decimal: Option<String>,
}

/// `atomic` with its whole-unit form where the decimals are known.
pub fn amount(atomic: U256, decimals: Option<u8>) -> Amount {
    Amount {
        atomic: atomic.to_string(),
        decimal: decimals.map(|d| dex_math::format_units(atomic, d)),
    }
}

/// [`amount`] of a signed value.
pub fn signed_amount(atomic: I256, decimals: Option<u8>) -> Amount {
    Amount {
        atomic: atomic.to_string(),
        decimal: decimals.map(|d| dex_math::format_signed_units(atomic, d)),
    }
}

/// A request's address field; a 400 naming it when it does not parse (the schema's pattern
/// makes that unreachable in practice).
pub fn address(text: &str, field: &str) -> Result<Address, ApiError> {
    text.parse()
        .map_err(|e| ApiError::invalid_field(field, format!("not an address: {e}")))
}

/// An address as answers print it: EIP-55 checksummed.
pub fn show(address: Address) -> String {
    address.to_checksum(None)
}
