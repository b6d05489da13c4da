//! Prices and USD values from a pool's square-root price and liquidity, exactly.

use super::*;

/// The price of one asset unit in USDC from a pool's `sqrtPriceX96`, rounded down to
/// [`DEX_PRICE_PLACES`].
pub fn usdc_per_asset(
    sqrt_price_x96: U256,
    asset_is_token0: bool,
    asset_decimals: u8,
    usdc_decimals: u8,
) -> Result<Price, decimal_units::DecimalError> {
    let ten = U512::from(10u8);
    let square = U512::from(sqrt_price_x96) * U512::from(sqrt_price_x96);
    let q192 = U512::from(1u8) << 192;
    let asset_unit = ten.pow(U512::from(asset_decimals));
    let usdc_unit = ten.pow(U512::from(usdc_decimals));
    // token1 per token0 (raw) = sqrtP² / 2^192.
    let (numerator, denominator) = if asset_is_token0 {
        (square * asset_unit, q192 * usdc_unit)
    } else {
        (q192 * asset_unit, square * usdc_unit)
    };
    Price::ratio(numerator, denominator, DEX_PRICE_PLACES)
}

/// `L`'s virtual reserves valued in raw USDC: `2·L·√P` when USDC is token1, `2·L/√P` when it
/// is token0 (both sides of the in-range liquidity at the current price).
pub fn in_range_value_usdc(liquidity: u128, sqrt_price_x96: U256, asset_is_token0: bool) -> U512 {
    let l = U512::from(liquidity);
    let sqrt = U512::from(sqrt_price_x96);
    if sqrt.is_zero() {
        return U512::ZERO;
    }
    if asset_is_token0 {
        (U512::from(2u8) * l * sqrt) >> 96
    } else {
        ((U512::from(2u8) * l) << 96) / sqrt
    }
}

/// Raw USDC units as dollars, rounded down to the cent.
pub fn usd_text(raw: U512, usdc_decimals: u8) -> String {
    let ten = U512::from(10u8);
    let cents = if usdc_decimals >= 2 {
        raw / ten.pow(U512::from(usdc_decimals - 2))
    } else {
        raw * ten.pow(U512::from(2 - usdc_decimals))
    };
    let text = cents.to_string();
    let padded = format!("{text:0>3}");
    let (whole, fraction) = padded.split_at(padded.len() - 2);
    format!("{whole}.{fraction}")
}
