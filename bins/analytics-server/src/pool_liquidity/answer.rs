//! The answer of `POST /pool/liquidity` and its parts.

use schemars::JsonSchema;
use serde::Serialize;

use crate::answer::Amount;
use crate::requests::Chain;

/// Decimal places of prices in the answer.
pub(super) const PRICE_PLACES: u8 = 18;

/// A token of the pool.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PoolTokenInfo {
    /// Checksummed address.
    pub address: String,
    /// `symbol()`, null when the token does not answer it.
    pub symbol: Option<String>,
    /// `decimals()`.
    pub decimals: u8,
    /// Its price in USD (the chain's USDC), decimal; null with the reason when no route to
    /// USDC is read.
    pub price_usd: Option<String>,
    /// How `price_usd` was obtained.
    pub price_usd_source: Option<String>,
    /// Why `price_usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_usd_null_reason: Option<String>,
}

/// What the pool holds of one token.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Reserve {
    /// The token.
    pub token: String,
    /// The amount.
    pub amount: Amount,
    /// Its value in USD, rounded down to the cent; null when the token has no USD price.
    pub usd: Option<String>,
}

/// The pool's reserves: the reserves the pool prices with (`getReserves`) for constant-product
/// and Solidly pools, its token balances (`balanceOf`) for concentrated liquidity, none for a
/// Uniswap V4 pool (the PoolManager holds every pool's tokens).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Reserves {
    /// `get_reserves`, `balance_of` or `none` (no tokens then).
    pub source: String,
    /// token0, token1.
    pub tokens: Vec<Reserve>,
}

/// A pool compared when no fee tier was named.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TierCompared {
    /// The pool.
    pub pool: String,
    /// Fee tier, parts per million (concentrated liquidity).
    pub fee_tier_ppm: Option<u32>,
    /// Stable curve (Solidly).
    pub stable: Option<bool>,
    /// Its token balances valued at its own mid price, in token1.
    pub value_in_token1: Option<Amount>,
    /// Why it has no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_null_reason: Option<String>,
    /// Whether it was chosen.
    pub chosen: bool,
}

/// One exit size in one direction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExitImpact {
    /// The size, USD.
    pub size_usd: u64,
    /// Token sold.
    pub token_in: String,
    /// Token bought.
    pub token_out: String,
    /// The size in `token_in` at its USD price; null when the token has no USD price.
    pub amount_in: Option<Amount>,
    /// What the pool pays, exact at the block; null when the size cannot be filled.
    pub amount_out: Option<Amount>,
    /// Whether the pool takes the whole amount.
    pub filled: Option<bool>,
    /// When not filled: the part of `amount_in` the liquidity read takes (a lower bound: ticks
    /// beyond those read were not read).
    pub fillable_amount_in: Option<Amount>,
    /// What that part pays.
    pub fillable_amount_out: Option<Amount>,
    /// `quoter_v2`, `v4_quoter`, `reserves` (V2 formula) or `solidly_reserves` (the Solidly
    /// pool's `getAmountOut` maths).
    pub quote_source: Option<String>,
    /// `(1 − (amount_out/amount_in)/mid)·10⁴`, fee included, to 0.01 bps.
    pub impact_bps: Option<f64>,
    /// The pool's fee, bps.
    pub fee_bps: Option<f64>,
    /// The impact without the fee: `(1 − (amount_out/amount_in)/(mid·(1 − fee)))·10⁴`.
    pub price_impact_excluding_fee_bps: Option<f64>,
    /// How far the pool's price of `token_in` moves, bps (negative: it falls).
    pub price_move_bps: Option<f64>,
    /// Initialized ticks crossed (QuoterV2; Uniswap V4: the tick maths that pays V4Quoter's
    /// amount).
    pub initialized_ticks_crossed: Option<u32>,
    /// The pool's price after the trade, Q64.96 (QuoterV2; Uniswap V4: the tick maths that pays
    /// V4Quoter's amount).
    pub sqrt_price_x96_after: Option<String>,
    /// Why `price_move_bps`, `sqrt_price_x96_after` and `initialized_ticks_crossed` are null
    /// when the amounts are not (a Uniswap V4 exit whose hooks change the swap, or which
    /// leaves the ticks read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_after_null_reason: Option<String>,
    /// Why the figures are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
}

/// Capital on one side of the price within a band.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DepthSide {
    /// The token held on that side (token0 above the price, token1 below).
    pub token: String,
    /// The amount.
    pub amount: Amount,
    /// Its USD value, rounded down to the cent.
    pub usd: Option<String>,
    /// The band's edge, the price of token0 in token1.
    pub to_price: String,
}

/// Capital within ±percent of the price.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DepthBand {
    /// The band, percent.
    pub percent: u32,
    /// Between the price and `price·(1 + percent/100)`.
    pub upper: DepthSide,
    /// Between `price/(1 + percent/100)` and the price.
    pub lower: DepthSide,
    /// Both sides in USD, when both are priced.
    pub total_usd: Option<String>,
}

/// A figure from a foreign source, as it came.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ForeignVolume {
    /// USD, decimal, as the source gives it.
    pub usd: Option<String>,
    /// Always true: the figure is derived from a foreign source, not read from the chain.
    pub derived_from_foreign_source: bool,
    /// The source.
    pub source: Option<String>,
    /// A URL a person can open to check it.
    pub url: Option<String>,
    /// When the source gave it, Unix seconds.
    pub as_of: Option<u64>,
    /// Seconds between `as_of` and this answer.
    pub age_seconds: Option<u64>,
    /// How it was derived.
    pub method: String,
    /// Why `usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
}

/// The answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PoolLiquidityAnswer {
    /// The chain read.
    pub chain: Chain,
    /// Every chain read was made at this block.
    pub block_number: u64,
    /// Its timestamp, Unix seconds.
    pub block_timestamp: u64,
    /// The pool's address, or a Uniswap V4 pool's PoolId.
    pub pool: String,
    /// DEX id.
    pub dex: String,
    /// `concentrated_liquidity`, `constant_product` or `solidly` (the pool types of
    /// docs/analytics.md; a Solidly pool's curve is `stable`).
    pub pool_type: String,
    /// Fee tier, parts per million (concentrated liquidity).
    pub fee_tier_ppm: Option<u32>,
    /// Stable (`x³y + y³x`) rather than volatile (Solidly pools; null for the other types).
    pub stable: Option<bool>,
    /// The swap fee, bps (all pool types).
    pub fee_bps: f64,
    /// token0 (the lower address).
    pub token0: PoolTokenInfo,
    /// token1.
    pub token1: PoolTokenInfo,
    /// What the pool holds.
    pub reserves: Reserves,
    /// Both reserves in USD; null when a token has no USD price.
    pub tvl_usd: Option<String>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tvl_usd_null_reason: Option<String>,
    /// In-range liquidity `L` (concentrated liquidity).
    pub in_range_liquidity: Option<String>,
    /// `slot0.tick` (concentrated liquidity).
    pub current_tick: Option<i32>,
    /// `slot0.sqrtPriceX96` (concentrated liquidity).
    pub sqrt_price_x96: Option<String>,
    /// Why the three concentrated-liquidity fields are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concentrated_null_reason: Option<String>,
    /// Mid price, token1 per token0.
    pub mid_price_token1_per_token0: Option<String>,
    /// Mid price, token0 per token1.
    pub mid_price_token0_per_token1: Option<String>,
    /// Why the mid prices are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mid_price_null_reason: Option<String>,
    /// The pools compared when no fee tier was named (empty otherwise).
    pub tiers_compared: Vec<TierCompared>,
    /// How the pool was chosen among them.
    pub tier_choice: Option<String>,
    /// Exit impact: each size selling token0, then selling token1.
    pub exit_impact: Vec<ExitImpact>,
    /// Capital within ±1, ±2 and ±5 % of the price, each side separately.
    pub depth: Option<Vec<DepthBand>>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_null_reason: Option<String>,
    /// How depth is defined and read.
    pub depth_method: String,
    /// Volume over the last 24 h, from a foreign source.
    pub volume_24h: ForeignVolume,
    /// Volume over the last 7 days, from a foreign source.
    pub volume_7d: ForeignVolume,
    /// Always null.
    pub lp_holder_count: Option<u64>,
    /// Why.
    pub lp_holder_count_null_reason: String,
    /// Always null.
    pub top_lp_share: Option<f64>,
    /// Why.
    pub top_lp_share_null_reason: String,
    /// Sequential round trips to the node.
    pub rpc_round_trips: u32,
    /// How the chain was read: `lens` (round trips 1 and 2 in one `eth_call` of our lens,
    /// placed by a state override, and, where the ticks come from bitmap words, the tick words,
    /// exits and the ticks they mark in a second) or `batches` (the ordinary Multicall3 round
    /// trips, when the node did not run the lens).
    pub read_path: crate::answer::ReadPathName,
    /// Why the lens was not used (the node's answer to the state override), with `batches`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lens_fallback_reason: Option<String>,
    /// What the figures assume.
    pub assumptions: Vec<String>,
}
