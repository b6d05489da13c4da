//! The answer of `POST /dex/quote` and its parts.

use schemars::JsonSchema;
use serde::Serialize;

use crate::answer::{Amount, ReadPathName};
use crate::requests::Chain;

/// A token of the request.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TokenInfo {
    /// Checksummed address.
    pub address: String,
    /// `symbol()`, null when the token does not answer it.
    pub symbol: Option<String>,
    /// Why `symbol` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_null_reason: Option<String>,
    /// `decimals()`.
    pub decimals: u8,
}

/// A token named inside a route.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TokenRef {
    /// Checksummed address.
    pub address: String,
    /// Its symbol, when read.
    pub symbol: Option<String>,
}

/// One swap of a route, through one pool.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QuoteLeg {
    /// DEX id.
    pub dex: String,
    /// `concentrated_liquidity`, `constant_product`, `solidly` or `concentrated_liquidity_v4`.
    pub pool_type: String,
    /// The pool (pair) contract; a Uniswap V4 pool's PoolId.
    pub pool: String,
    /// Fee tier in parts per million (concentrated liquidity; a V4 pool's fixed fee).
    pub fee_tier_ppm: Option<u32>,
    /// A Uniswap V4 pool's key beyond its tokens (absent for other pools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v4: Option<V4PoolKeyText>,
    /// Stable (`x³y + y³x`) rather than volatile (Solidly).
    pub stable: Option<bool>,
    /// Swap fee in basis points (constant product; Solidly as the factory's `getFee`).
    pub fee_bps: Option<u32>,
    /// Token sold.
    pub token_in: TokenRef,
    /// Token bought.
    pub token_out: TokenRef,
    /// Amount sold.
    pub amount_in: Amount,
    /// Amount bought, exact at the block.
    pub amount_out: Amount,
    /// `quoter_v2`, `pool_get_amount_out` or `reserves` (V2 formula on the reserves).
    pub quote_source: String,
    /// QuoterV2's initialized ticks crossed.
    pub initialized_ticks_crossed: Option<u32>,
    /// Why it is null (only QuoterV2 reports it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initialized_ticks_crossed_null_reason: Option<String>,
    /// QuoterV2's `gasEstimate` of this swap.
    pub quoter_gas_estimate: Option<u64>,
    /// Why it is null (only QuoterV2 reports it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quoter_gas_estimate_null_reason: Option<String>,
}

/// A Uniswap V4 pool's key beyond its tokens.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct V4PoolKeyText {
    /// Tick spacing.
    pub tick_spacing: i32,
    /// The LP fee is set by the hook (the key's fee is the dynamic-fee flag); `fee_tier_ppm` is
    /// then null and the fee charged is in the quote.
    pub dynamic_fee: bool,
    /// The hooks contract, or null for none.
    pub hooks: Option<String>,
    /// Whether hooks ran in the quote (V4Quoter runs the swap with them), so the output is
    /// theirs as much as the curve's (legs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks_in_quote: Option<bool>,
    /// The pool trades native ETH where the request names the wrapped native token: a swap
    /// through it unwraps (or sends native ETH).
    pub native_eth: bool,
}

/// One route with its gross and net-of-gas output.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Quote {
    /// The route in words, e.g. `uniswap_v3 500 ppm → aerodrome volatile`.
    pub route: String,
    /// The intermediate token of a two-hop route.
    pub via: Option<TokenRef>,
    /// One or two swaps, in order.
    pub legs: Vec<QuoteLeg>,
    /// What the route delivers, exact at the block.
    pub amount_out: Amount,
    /// Gas units of the whole swap transaction, estimated.
    pub gas_units_estimate: Option<u64>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_units_estimate_null_reason: Option<String>,
    /// Where each part of `gas_units_estimate` comes from.
    pub gas_units_source: Vec<String>,
    /// `gas_units_estimate × gas_price_wei` plus the L1 data fee when known, in wei.
    pub gas_cost_wei_estimate: Option<String>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_cost_wei_estimate_null_reason: Option<String>,
    /// That cost in the output token, through the gas cost conversion.
    pub gas_cost_in_token_out_estimate: Option<Amount>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_cost_in_token_out_estimate_null_reason: Option<String>,
    /// `amount_out − gas_cost_in_token_out_estimate`; negative when gas costs more.
    pub net_amount_out_estimate: Option<Amount>,
    /// Why the net output is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_amount_out_estimate_null_reason: Option<String>,
    /// `(1 − amount_out / (amount_in × mid)) × 10000`, against the product of the pools' mid
    /// prices at the block, to 0.01 bps; includes the pools' fees.
    pub price_impact_bps: Option<f64>,
    /// Why the price impact is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_impact_bps_null_reason: Option<String>,
}

/// The L1 data fee of an OP-stack chain.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct L1Fee {
    /// GasPriceOracle `getL1Fee` of a representative swap transaction, in wei.
    pub wei_estimate: String,
    /// The oracle asked.
    pub oracle: String,
    /// Size of the representative unsigned transaction, bytes.
    pub representative_transaction_bytes: usize,
}

/// How gas cost in wei becomes output token.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GasCostConversion {
    /// In words.
    pub method: String,
    /// The wrapped native token.
    pub native_token: TokenRef,
    /// The reference quote's input (one whole wrapped native token); null when the output
    /// token is the wrapped native token itself.
    pub reference_amount_in: Option<Amount>,
    /// The reference quote's output.
    pub reference_amount_out: Option<Amount>,
    /// The pool of the reference quote.
    pub reference_pool: Option<String>,
    /// Its DEX.
    pub reference_dex: Option<String>,
}

/// The gas figures behind every `gas_units_estimate`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AssumedGasOverhead {
    /// Once per route: intrinsic gas, calldata, router entry, input transfer.
    pub router_base_gas_per_route: u64,
    /// What a concentrated-liquidity hop counts.
    pub concentrated_liquidity_hop: String,
    /// A concentrated-liquidity hop that QuoterV2 did not measure.
    pub concentrated_liquidity_hop_unmeasured_gas: u64,
    /// A constant-product hop.
    pub constant_product_hop_gas: u64,
    /// A Solidly volatile hop.
    pub solidly_volatile_hop_gas: u64,
    /// A Solidly stable hop.
    pub solidly_stable_hop_gas: u64,
    /// Where the constants come from.
    pub source: String,
}

/// A DEX, fee tier, pool or leg that gave no quote.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QuoteFailure {
    /// DEX id.
    pub dex: String,
    /// `concentrated_liquidity`, `constant_product`, `solidly` or `concentrated_liquidity_v4`.
    pub pool_type: String,
    /// `direct`, `first_leg`, `second_leg` or `native_reference` (the gas conversion quote).
    pub leg: String,
    /// The intermediate token of a first or second leg.
    pub via: Option<String>,
    /// Token sold on that leg.
    pub token_in: String,
    /// Token bought on that leg.
    pub token_out: String,
    /// The fee tier, for a concentrated-liquidity failure.
    pub fee_tier_ppm: Option<u32>,
    /// The Uniswap V4 pool key probed (absent for other pools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v4: Option<V4PoolKeyText>,
    /// The pool type, for a Solidly failure.
    pub stable: Option<bool>,
    /// The pool, when one was found.
    pub pool: Option<String>,
    /// Why.
    pub reason: String,
}

impl QuoteFailure {
    /// The failure as an error detail: where (`dex leg [fee]`) and why.
    pub(super) fn as_problem(&self) -> server_kit::FieldProblem {
        let mut place = format!("{} {}", self.dex, self.leg);
        if let Some(via) = &self.via {
            place.push_str(&format!(" via {via}"));
        }
        if let Some(fee) = self.fee_tier_ppm {
            place.push_str(&format!(" fee {fee}"));
        }
        if let Some(stable) = self.stable {
            place.push_str(if stable { " stable" } else { " volatile" });
        }
        server_kit::FieldProblem {
            field: place,
            problem: self.reason.clone(),
        }
    }
}

/// The answer of `POST /dex/quote`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DexQuoteAnswer {
    /// The chain read.
    pub chain: Chain,
    /// Every read was made at this block.
    pub block_number: u64,
    /// Its timestamp, Unix seconds.
    pub block_timestamp: u64,
    /// Token sold.
    pub token_in: TokenInfo,
    /// Token bought.
    pub token_out: TokenInfo,
    /// The amount sold, converted exactly with `token_in.decimals`.
    pub amount_in: Amount,
    /// The caller's tolerance, echoed; only used for `amount_out_min`.
    pub slippage_bps: u32,
    /// Whether two-hop routes were priced.
    pub include_multihop: bool,
    /// Every route that gave a quote, largest gross output first.
    pub quotes: Vec<Quote>,
    /// The route with the largest gross output.
    pub best_by_gross: Option<Quote>,
    /// Why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_by_gross_null_reason: Option<String>,
    /// The route with the largest output after gas.
    pub best_by_net: Option<Quote>,
    /// Always true: the net ranking rests on gas estimates.
    pub best_by_net_is_estimate: bool,
    /// Why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_by_net_null_reason: Option<String>,
    /// Which route `price_impact_bps` and `amount_out_min` are of: `best_by_net`, or
    /// `best_by_gross` when net ranking is unavailable.
    pub reference_route: Option<String>,
    /// Why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_route_null_reason: Option<String>,
    /// Price impact of the reference route against its pools' mid prices.
    pub price_impact_bps: Option<f64>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_impact_bps_null_reason: Option<String>,
    /// `⌊amount_out × (10000 − slippage_bps) / 10000⌋` of the reference route. Arithmetic only.
    pub amount_out_min: Option<Amount>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_out_min_null_reason: Option<String>,
    /// `eth_gasPrice` from the chain node.
    pub gas_price_wei: Option<String>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_price_wei_null_reason: Option<String>,
    /// The L1 data fee added to every route's gas cost.
    pub l1_data_fee: Option<L1Fee>,
    /// Why it is null (and not added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1_data_fee_null_reason: Option<String>,
    /// How gas cost is priced in the output token.
    pub gas_cost_conversion: Option<GasCostConversion>,
    /// Why it is null (and net outputs with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_cost_conversion_null_reason: Option<String>,
    /// The gas figures used.
    pub assumed_gas_overhead: AssumedGasOverhead,
    /// Every DEX, fee tier, pool and leg without a quote, with the reason.
    pub failures: Vec<QuoteFailure>,
    /// JSON-RPC HTTP requests this answer took.
    pub rpc_round_trips: u32,
    /// How the chain was read: `lens` (discovery, every quote and the second legs in one
    /// `eth_call` of our quote lens, placed by a state override) or `batches` (the ordinary
    /// Multicall3 round trips, when the node did not run the lens).
    pub read_path: ReadPathName,
    /// Why the lens was not used (the node's answer to the state override), with `batches`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lens_fallback_reason: Option<String>,
    /// What the figures rest on, and which are estimates.
    pub assumptions: Vec<String>,
}
