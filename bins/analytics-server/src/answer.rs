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

/// `ratio` (raw output per raw input) as a decimal of whole units, output per input, rounded
/// down to `places` decimal places with trailing zeros dropped: exact up to that rounding.
pub fn ratio_decimal(
    ratio: &dex_math::Ratio,
    decimals_in: u8,
    decimals_out: u8,
    places: u8,
) -> String {
    use alloy::primitives::U512;
    let ten = U512::from(10u8);
    let pow = |exponent: u32| ten.pow(U512::from(exponent));
    // whole = raw · 10^decimals_in / 10^decimals_out, scaled by 10^places.
    let numerator = ratio.numerator * pow(u32::from(decimals_in) + u32::from(places));
    let denominator = ratio.denominator * pow(u32::from(decimals_out));
    let scaled = numerator / denominator;
    let text = scaled.to_string();
    let places = usize::from(places);
    let (whole, fraction) = if text.len() > places {
        text.split_at(text.len() - places)
    } else {
        ("0", text.as_str())
    };
    let fraction = format!("{fraction:0>places$}");
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        whole.to_owned()
    } else {
        format!("{whole}.{fraction}")
    }
}

/// How a pool is named in answers: its address, or a Uniswap V4 pool's PoolId.
pub fn pool_ref(pool: &chain_read::dex::Pool) -> String {
    match pool.key {
        chain_read::dex::PoolKey::V4 { id, .. } => id.to_string(),
        _ => show(pool.address),
    }
}

/// A pool's swap fee in basis points from its state (concentrated liquidity, Solidly) or its
/// key (constant product).
pub fn fee_bps(state: &chain_read::dex::PoolState, key: chain_read::dex::PoolKey) -> f64 {
    use chain_read::dex::{PoolKey, PoolState};
    match (state, key) {
        (PoolState::Concentrated(cl), _) => f64::from(cl.fee) / 100.0,
        (_, PoolKey::ConstantProduct { fee_bps }) => f64::from(fee_bps),
        (PoolState::Solidly { fee_bps, .. }, _) => f64::from(*fee_bps),
        // The fee now stored: the LP fee, combined with a protocol fee the same both ways as
        // v4-core does (a fee that differs by direction shows the LP fee; the direction's own
        // is in each exit); a hook may override it per swap.
        (PoolState::V4(v4), _) => {
            f64::from(dex_route::v4_swap_fee_both_ways(v4).unwrap_or(v4.lp_fee)) / 100.0
        }
        // getSwapFeePercentage at the block, 18 decimals: 1e14 is one basis point.
        (PoolState::Balancer(b), _) => b.swap_fee.saturating_to::<u128>() as f64 / 1e14,
        _ => 0.0,
    }
}

/// Raw USDC units as dollars, rounded down (`up` false) or up to the cent.
pub fn usd_text(usdc: U256, usdc_decimals: u8, up: bool) -> String {
    let cents = if usdc_decimals >= 2 {
        let unit = U256::from(10u8).pow(U256::from(usdc_decimals - 2));
        if up { usdc.div_ceil(unit) } else { usdc / unit }
    } else {
        usdc * U256::from(10u8).pow(U256::from(2 - usdc_decimals))
    };
    dex_math::format_units(cents, 2)
}

#[cfg(test)]
mod tests {
    use alloy::primitives::U512;

    use super::*;

    #[test]
    fn ratios_print_in_whole_units() {
        // 3,000 USDC (6 decimals) per WETH (18): 3000·10^6 / 10^18 raw.
        let ratio = dex_math::Ratio::new(
            U512::from(3_000_000_000u64),
            U512::from(10u64).pow(U512::from(18)),
        )
        .expect("ratio");
        assert_eq!(ratio_decimal(&ratio, 18, 6, 18), "3000");
        let inverse = ratio.inverse().expect("inverse");
        assert_eq!(ratio_decimal(&inverse, 6, 18, 18), "0.000333333333333333");
    }
}

/// How a route read the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadPathName {
    /// Our lens contract run by `eth_call` with a state override.
    Lens,
    /// The ordinary Multicall3 batches.
    Batches,
}

/// The answer's `read_path` and `lens_fallback_reason` of a library read path.
pub fn read_path(path: &dex_route::lens::ReadPath) -> (ReadPathName, Option<String>) {
    match path {
        dex_route::lens::ReadPath::Lens => (ReadPathName::Lens, None),
        dex_route::lens::ReadPath::Batches { lens_error } => {
            (ReadPathName::Batches, Some(lens_error.clone()))
        }
    }
}
