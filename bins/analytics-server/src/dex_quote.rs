//! `POST /dex/quote`: the answer's types and its wording over `dex-route` (every read at one
//! block in at most three round trips, the routes, their gas, ranking and price impact).
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256};
use chain_read::dex::{PoolKey, PoolState};
use chain_read::{CallFailure, ChainInfo, L1DataFee, PinnedReader, TokenMetadata};
use dex_math::MathError;
use dex_math::gas::{GasModel, RouteGas};
use dex_route::{
    Failure, GasConversion, GasPricing, Leg, LegRole, PoolVariant, PricedRoute, QuotePlan,
    QuoteRequest, QuoteSource, Route, RouteError,
};
use schemars::JsonSchema;
use serde::Serialize;
use server_kit::{ApiError, ErrorCode};

use crate::answer::{Amount, address, amount, show, signed_amount};
use crate::chains::{Chains, route_error};
use crate::requests::{Chain, DexQuoteRequest};

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
    /// `concentrated_liquidity`, `constant_product` or `solidly`.
    pub pool_type: String,
    /// The pool (pair) contract.
    pub pool: String,
    /// Fee tier in parts per million (concentrated liquidity).
    pub fee_tier_ppm: Option<u32>,
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
    /// `concentrated_liquidity`, `constant_product` or `solidly`.
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
    /// The pool type, for a Solidly failure.
    pub stable: Option<bool>,
    /// The pool, when one was found.
    pub pool: Option<String>,
    /// Why.
    pub reason: String,
}

impl QuoteFailure {
    /// The failure as an error detail: where (`dex leg [fee]`) and why.
    fn as_problem(&self) -> server_kit::FieldProblem {
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
    /// What the figures rest on, and which are estimates.
    pub assumptions: Vec<String>,
}

/// Quotes `request` on its chain. Errors are answered without settling: 400 for tokens that
/// are not ERC-20s or an amount finer than `token_in`'s decimals, 502 for an unreachable
/// node, 504 for a node slower than its per-call timeout.
pub async fn dex_quote(
    chains: &Chains,
    request: &DexQuoteRequest,
) -> Result<DexQuoteAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let token_in = address(&request.token_in.0, "token_in")?;
    let token_out = address(&request.token_out.0, "token_out")?;
    let failed = |error| route_error(request.chain, error);

    let plan_request = QuoteRequest {
        include_multihop: request.include_multihop,
        // Set from the decimals read in discovery: one whole wrapped native token.
        native_reference_amount: Some(U256::ZERO),
        read_gas_price: true,
        read_l1_data_fee: true,
        // Set from token_in's decimals, read in discovery.
        ..QuoteRequest::new(info, token_in, token_out, U256::ZERO)
    };
    let reader = PinnedReader::for_chain(client.clone(), info);
    let mut discovery = QuotePlan::new(info, &plan_request)
        .map_err(failed)?
        .discover(&reader)
        .await
        .map_err(failed)?;

    let token_in_info = token_info(discovery.token(token_in), "token_in", request.chain)?;
    let token_out_info = token_info(discovery.token(token_out), "token_out", request.chain)?;
    let amount_in = dex_math::parse_units(&request.amount_in.0, token_in_info.decimals)
        .map_err(|e| amount_error(&e, &token_in_info))?;
    discovery.set_amount_in(amount_in);
    let native = info.wrapped_native();
    // WETH and WPOL have 18; the default only matters if the read failed, and then the
    // reference quote fails too.
    let native_decimals = discovery
        .token(native)
        .and_then(|m| m.decimals.clone().ok())
        .unwrap_or(18);
    // A token claiming 78 or more decimals would wrap 10^decimals: refused, not wrapped.
    let one_native = x402_core::pow10(native_decimals).map_err(|e| {
        ApiError::new(
            ErrorCode::CounterpartyUnreachable,
            format!(
                "the wrapped native token of {} is not usable ({e}); nothing was charged",
                request.chain.as_str()
            ),
        )
    })?;
    discovery.set_native_reference_amount(one_native);
    let outcome = discovery.quote(&reader).await.map_err(failed)?;

    let book = TokenBook::new(&outcome.tokens);
    let pricing = GasPricing::new(info, token_out, &outcome, GasModel::default());
    let gas_price = pricing.gas_price_wei.as_ref().map_err(|e| book.reason(e));
    let (l1_data_fee, l1_null_reason) = l1_fee(&outcome.l1_data_fee, request.chain);
    let conversion_unavailable = pricing.conversion.unavailable().map(|e| book.reason(&e));

    let priced: Vec<PricedRoute> = outcome
        .routes
        .iter()
        .map(|route| pricing.price(route, amount_in, &outcome.tokens))
        .collect();
    let quotes: Vec<Quote> = outcome
        .routes
        .iter()
        .zip(&priced)
        .map(|(route, priced)| quote_entry(route, priced, &book))
        .collect();
    let ranking = dex_route::rank(&outcome.routes, &priced);
    let (best_gross, best_net) = (ranking.best_by_gross, ranking.best_by_net);
    let no_route = "no route gave a quote: every DEX, fee tier and leg is listed in failures";
    let best_by_net_null_reason = match (best_gross, best_net, &gas_price, &conversion_unavailable)
    {
        (None, _, _, _) => Some(no_route.to_owned()),
        (_, Some(_), _, _) => None,
        (_, None, Err(reason), _) => Some(format!("gas cannot be priced: {reason}")),
        (_, None, _, Some(reason)) => Some(reason.clone()),
        (_, None, _, _) => Some("no route has a net output".to_owned()),
    };
    let (reference_route, reference) = match (best_net, best_gross) {
        (Some(index), _) => (Some("best_by_net"), Some(index)),
        (None, Some(index)) => (Some("best_by_gross"), Some(index)),
        (None, None) => (None, None),
    };
    let reference_quote = reference.and_then(|i| quotes.get(i));
    let (price_impact_bps, price_impact_bps_null_reason) = match reference_quote {
        Some(quote) => (
            quote.price_impact_bps,
            quote.price_impact_bps_null_reason.clone(),
        ),
        None => (None, Some(no_route.to_owned())),
    };
    let out_decimals = token_out_info.decimals;
    let (amount_out_min, amount_out_min_null_reason) = match reference
        .and_then(|i| outcome.routes.get(i))
    {
        Some(route) => match dex_math::amount_out_min(route.amount_out(), request.slippage_bps) {
            Ok(min) => (Some(amount(min, Some(out_decimals))), None),
            Err(e) => (None, Some(e.to_string())),
        },
        None => (None, Some(no_route.to_owned())),
    };

    let assumptions = assumptions(
        outcome.block.number,
        &pricing.conversion,
        &l1_null_reason,
        request.include_multihop,
        info,
        &book,
    );
    if quotes.is_empty() {
        // An answer without a single quote is empty work: refused, so it is never settled, and
        // every DEX, fee tier and leg is named with its reason.
        let details = outcome
            .failures
            .iter()
            .map(failure_entry)
            .map(|f| f.as_problem())
            .collect();
        let mut error = ApiError::new(
            ErrorCode::NoRoute,
            format!(
                "no DEX on {:?} gave a quote for this pair at block {}; nothing was charged",
                request.chain, outcome.block.number
            ),
        );
        error.details = details;
        return Err(error);
    }
    Ok(DexQuoteAnswer {
        chain: request.chain,
        block_number: outcome.block.number,
        block_timestamp: outcome.block.timestamp,
        token_in: token_in_info,
        token_out: token_out_info,
        amount_in: amount(amount_in, book.decimals(token_in)),
        slippage_bps: request.slippage_bps,
        include_multihop: request.include_multihop,
        best_by_gross: best_gross.and_then(|i| quotes.get(i)).cloned(),
        best_by_gross_null_reason: best_gross.is_none().then(|| no_route.to_owned()),
        best_by_net: best_net.and_then(|i| quotes.get(i)).cloned(),
        best_by_net_is_estimate: true,
        best_by_net_null_reason,
        reference_route: reference_route.map(str::to_owned),
        reference_route_null_reason: reference_route.is_none().then(|| no_route.to_owned()),
        price_impact_bps,
        price_impact_bps_null_reason,
        amount_out_min,
        amount_out_min_null_reason,
        gas_price_wei: gas_price.as_ref().ok().map(|price| price.to_string()),
        gas_price_wei_null_reason: gas_price.as_ref().err().cloned(),
        l1_data_fee,
        l1_data_fee_null_reason: l1_null_reason,
        gas_cost_conversion: conversion_entry(&pricing.conversion, &book),
        gas_cost_conversion_null_reason: conversion_unavailable,
        assumed_gas_overhead: assumed_gas_overhead(&pricing.model),
        failures: outcome.failures.iter().map(failure_entry).collect(),
        rpc_round_trips: outcome.round_trips,
        quotes,
        assumptions,
    })
}

/// A token of the request: its decimals are required (the amount is expressed in them), so a
/// token that does not answer `decimals()` is invalid input.
fn token_info(
    metadata: Option<&TokenMetadata>,
    field: &str,
    chain: Chain,
) -> Result<TokenInfo, ApiError> {
    let metadata = metadata.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            format!("{field} was not among the tokens read on {chain}"),
        )
    })?;
    let decimals = metadata.decimals.clone().map_err(|failure| {
        ApiError::invalid_field(
            field,
            format!("is not an ERC-20 token on {chain}: decimals() failed ({failure})"),
        )
    })?;
    Ok(TokenInfo {
        address: show(metadata.address),
        symbol: metadata.symbol.clone().ok(),
        symbol_null_reason: metadata
            .symbol
            .as_ref()
            .err()
            .map(|f| format!("symbol() failed: {f}")),
        decimals,
    })
}

fn amount_error(error: &MathError, token: &TokenInfo) -> ApiError {
    let name = token.symbol.as_deref().unwrap_or("token_in");
    let problem = match error {
        MathError::TooManyFractionDigits { digits, decimals } => format!(
            "has {digits} decimal places, but {name} has {decimals} decimals; the amount cannot be sold exactly"
        ),
        MathError::Overflow => format!("is too large for {name} ({} decimals)", token.decimals),
        other => other.to_string(),
    };
    ApiError::invalid_field("amount_in", problem)
}

/// Symbols and decimals of the tokens discovery read.
struct TokenBook {
    tokens: BTreeMap<Address, (Option<String>, Option<u8>)>,
}

impl TokenBook {
    fn new(metadata: &[TokenMetadata]) -> Self {
        Self {
            tokens: metadata
                .iter()
                .map(|m| (m.address, (m.symbol.clone().ok(), m.decimals.clone().ok())))
                .collect(),
        }
    }

    fn decimals(&self, token: Address) -> Option<u8> {
        self.tokens.get(&token).and_then(|(_, d)| *d)
    }

    fn reference(&self, token: Address) -> TokenRef {
        TokenRef {
            address: show(token),
            symbol: self.tokens.get(&token).and_then(|(s, _)| s.clone()),
        }
    }

    fn label(&self, token: Address) -> String {
        self.tokens
            .get(&token)
            .and_then(|(s, _)| s.clone())
            .unwrap_or_else(|| show(token))
    }

    /// Why a figure is null, in the answer's words: tokens by their symbols where read.
    fn reason(&self, error: &RouteError) -> String {
        match error {
            RouteError::NoGasConversion { native, token_out } => format!(
                "no direct pool from {native} to {out} quoted one {native} at the block, so gas cannot be priced in {out}",
                native = self.label(*native),
                out = self.label(*token_out),
            ),
            other => other.to_string(),
        }
    }
}

/// How gas cost is priced in the output token, as the answer describes it.
fn conversion_entry(conversion: &GasConversion, book: &TokenBook) -> Option<GasCostConversion> {
    match conversion {
        GasConversion::Identity { native } => Some(GasCostConversion {
            method: "the output token is the wrapped native token: gas cost in wei is output units one to one".to_owned(),
            native_token: book.reference(*native),
            reference_amount_in: None,
            reference_amount_out: None,
            reference_pool: None,
            reference_dex: None,
        }),
        GasConversion::Reference { leg } => Some(GasCostConversion {
            method: format!(
                "best direct quote of one {} into {} at the block ({}), applied linearly and rounded up",
                book.label(leg.token_in),
                book.label(leg.token_out),
                pool_label(leg),
            ),
            native_token: book.reference(leg.token_in),
            reference_amount_in: Some(amount(leg.amount_in, book.decimals(leg.token_in))),
            reference_amount_out: Some(amount(leg.amount_out, book.decimals(leg.token_out))),
            reference_pool: Some(show(leg.pool.address)),
            reference_dex: Some(leg.pool.dex.to_string()),
        }),
        GasConversion::Unavailable { .. } => None,
    }
}

fn pool_type(key: PoolKey) -> &'static str {
    match key {
        PoolKey::Concentrated { .. } => "concentrated_liquidity",
        PoolKey::ConstantProduct { .. } => "constant_product",
        PoolKey::Solidly { .. } => "solidly",
    }
}

fn pool_label(leg: &Leg) -> String {
    match leg.pool.key {
        PoolKey::Concentrated { fee, .. } => format!("{} {fee} ppm", leg.pool.dex),
        PoolKey::ConstantProduct { .. } => leg.pool.dex.to_string(),
        PoolKey::Solidly { stable } => format!(
            "{} {}",
            leg.pool.dex,
            if stable { "stable" } else { "volatile" }
        ),
    }
}

fn leg_entry(leg: &Leg, book: &TokenBook) -> QuoteLeg {
    let (fee_tier_ppm, stable, fee_bps) = match (leg.pool.key, leg.state) {
        (PoolKey::Concentrated { fee, .. }, _) => (Some(fee), None, None),
        (PoolKey::ConstantProduct { fee_bps }, _) => (None, None, Some(fee_bps)),
        (PoolKey::Solidly { stable }, Some(PoolState::Solidly { fee_bps, .. })) => {
            (None, Some(stable), Some(fee_bps))
        }
        (PoolKey::Solidly { stable }, _) => (None, Some(stable), None),
    };
    let source = match leg.source {
        QuoteSource::QuoterV2 => "quoter_v2",
        QuoteSource::PoolGetAmountOut => "pool_get_amount_out",
        QuoteSource::Reserves => "reserves",
        QuoteSource::SolidlyReserves => "solidly_reserves",
    }
    .to_owned();
    let gas_estimate = leg.quoter.and_then(|q| u64::try_from(q.gas_estimate).ok());
    QuoteLeg {
        dex: leg.pool.dex.to_string(),
        pool_type: pool_type(leg.pool.key).to_owned(),
        pool: show(leg.pool.address),
        fee_tier_ppm,
        stable,
        fee_bps,
        token_in: book.reference(leg.token_in),
        token_out: book.reference(leg.token_out),
        amount_in: amount(leg.amount_in, book.decimals(leg.token_in)),
        amount_out: amount(leg.amount_out, book.decimals(leg.token_out)),
        initialized_ticks_crossed: leg.quoter.map(|q| q.initialized_ticks_crossed),
        initialized_ticks_crossed_null_reason: leg
            .quoter
            .is_none()
            .then(|| not_from_quoter(&source)),
        quoter_gas_estimate: gas_estimate,
        quoter_gas_estimate_null_reason: match (leg.quoter, gas_estimate) {
            (None, _) => Some(not_from_quoter(&source)),
            (Some(q), None) => Some(format!(
                "QuoterV2 reported a gas estimate of {} units, more than 64 bits hold",
                q.gas_estimate
            )),
            (Some(_), Some(_)) => None,
        },
        quote_source: source,
    }
}

/// Why a leg has no QuoterV2 figures: only QuoterV2 reports them.
fn not_from_quoter(source: &str) -> String {
    format!("reported by QuoterV2 only; this leg was quoted by {source}")
}

fn gas_sources(route_gas: &RouteGas) -> Vec<String> {
    let mut sources = vec![format!(
        "router base: {} (constant, once per route)",
        route_gas.router_base
    )];
    sources.extend(
        route_gas
            .hops
            .iter()
            .enumerate()
            .map(|(index, hop)| format!("leg {}: {hop}", index + 1)),
    );
    sources
}

/// One priced route as the answer shows it.
fn quote_entry(route: &Route, priced: &PricedRoute, book: &TokenBook) -> Quote {
    let token_out = route
        .legs
        .last()
        .map(|leg| leg.token_out)
        .unwrap_or_default();
    let out_decimals = book.decimals(token_out);
    let reason = |error: &RouteError| book.reason(error);
    let impact = priced
        .price_impact_bps
        .as_ref()
        // Hundredths of a basis point: finer digits are float noise, not information.
        .map(|bps| (bps * 100.0).round() / 100.0);
    Quote {
        route: route
            .legs
            .iter()
            .map(pool_label)
            .collect::<Vec<_>>()
            .join(" → "),
        via: route.via().map(|via| book.reference(via)),
        legs: route.legs.iter().map(|leg| leg_entry(leg, book)).collect(),
        amount_out: amount(route.amount_out(), out_decimals),
        gas_units_estimate: priced.gas.as_ref().ok().map(|g| g.units),
        gas_units_estimate_null_reason: priced.gas.as_ref().err().map(reason),
        gas_units_source: priced.gas.as_ref().map(gas_sources).unwrap_or_default(),
        gas_cost_wei_estimate: priced.cost_wei.as_ref().ok().map(U256::to_string),
        gas_cost_wei_estimate_null_reason: priced.cost_wei.as_ref().err().map(reason),
        gas_cost_in_token_out_estimate: priced
            .cost_in_token_out
            .as_ref()
            .ok()
            .map(|c| amount(*c, out_decimals)),
        gas_cost_in_token_out_estimate_null_reason: priced
            .cost_in_token_out
            .as_ref()
            .err()
            .map(reason),
        net_amount_out_estimate: priced
            .net_amount_out
            .as_ref()
            .ok()
            .map(|n| signed_amount(*n, out_decimals)),
        net_amount_out_estimate_null_reason: priced.net_amount_out.as_ref().err().map(reason),
        price_impact_bps: impact.as_ref().ok().copied(),
        price_impact_bps_null_reason: impact.as_ref().err().map(|e| reason(e)),
    }
}

fn l1_fee(fee: &L1DataFee, chain: Chain) -> (Option<L1Fee>, Option<String>) {
    let reason = match fee {
        L1DataFee::Read {
            oracle,
            transaction_bytes,
            fee_wei,
        } => {
            return (
                Some(L1Fee {
                    wei_estimate: fee_wei.to_string(),
                    oracle: show(*oracle),
                    representative_transaction_bytes: *transaction_bytes,
                }),
                None,
            );
        }
        L1DataFee::Failed {
            oracle,
            failure: CallFailure::NoContract,
        } => format!(
            "the GasPriceOracle predeploy {} has no code on this node at the block (not an OP-stack node, e.g. a local devnet); no L1 data fee is included",
            show(*oracle)
        ),
        L1DataFee::Failed { oracle, failure } => format!(
            "GasPriceOracle {} getL1Fee failed ({failure}); no L1 data fee is included",
            show(*oracle)
        ),
        L1DataFee::NothingToPrice => "no pool was found, so there is no transaction to price".to_owned(),
        L1DataFee::NotRequested | L1DataFee::NoOracle => match chain {
            Chain::Ethereum => "ethereum is the L1: there is no separate L1 data fee".to_owned(),
            Chain::Polygon => "polygon PoS posts no transaction data to another chain: no L1 data fee".to_owned(),
            Chain::Arbitrum => "arbitrum charges an L1 component, but its oracle (ArbGasInfo / NodeInterface) is not verified for this service; not included".to_owned(),
            Chain::Base | Chain::Optimism => "no GasPriceOracle is configured for this chain; no L1 data fee is included".to_owned(),
        },
    };
    (None, Some(reason))
}

fn failure_entry(failure: &Failure) -> QuoteFailure {
    let (leg, via) = match failure.role {
        LegRole::Direct => ("direct", None),
        LegRole::FirstLeg { via } => ("first_leg", Some(show(via))),
        LegRole::SecondLeg { via } => ("second_leg", Some(show(via))),
        LegRole::NativeReference => ("native_reference", None),
    };
    let (fee_tier_ppm, stable) = match failure.variant {
        Some(PoolVariant::FeeTier(fee)) => (Some(fee), None),
        Some(PoolVariant::Solidly { stable }) => (None, Some(stable)),
        Some(PoolVariant::Pair) | None => (None, None),
    };
    QuoteFailure {
        dex: failure.dex.to_string(),
        pool_type: match failure.dex.kind() {
            chain_read::DexKind::ConcentratedLiquidity => "concentrated_liquidity",
            chain_read::DexKind::ConstantProduct => "constant_product",
            chain_read::DexKind::Solidly => "solidly",
        }
        .to_owned(),
        leg: leg.to_owned(),
        via,
        token_in: show(failure.token_in),
        token_out: show(failure.token_out),
        fee_tier_ppm,
        stable,
        pool: failure.pool.map(show),
        reason: failure.reason.to_string(),
    }
}

fn assumed_gas_overhead(model: &GasModel) -> AssumedGasOverhead {
    AssumedGasOverhead {
        router_base_gas_per_route: model.router_base,
        concentrated_liquidity_hop: "QuoterV2 gasEstimate of the hop, measured at the block".to_owned(),
        concentrated_liquidity_hop_unmeasured_gas: model.cl_unmeasured_hop,
        constant_product_hop_gas: model.constant_product_hop,
        solidly_volatile_hop_gas: model.solidly_volatile_hop,
        solidly_stable_hop_gas: model.solidly_stable_hop,
        source: "constants measured with eth_estimateGas on the service's devnet routers (Uniswap SwapRouter and Router02, Aerodrome Router), rounded; ranges in docs/decisions.md".to_owned(),
    }
}

fn assumptions(
    block: u64,
    conversion: &GasConversion,
    l1_null_reason: &Option<String>,
    include_multihop: bool,
    info: &ChainInfo,
    book: &TokenBook,
) -> Vec<String> {
    let mut list = vec![
        format!("Every contract read is made at block {block} (Multicall3 aggregate3; the block is pinned by the first batch); eth_gasPrice is the node's answer at the time of that batch, which a block number cannot pin."),
        "amount_out of every leg is exact at that block: QuoterV2 for concentrated-liquidity pools, the pool's own getAmountOut for Solidly pools, the Uniswap V2 formula on the reserves for constant-product pairs.".to_owned(),
        "gas_units_estimate, gas_cost_*_estimate and net_amount_out_estimate are estimates: the router base and the constant-product and Solidly hop figures are constants (assumed_gas_overhead); only concentrated-liquidity hops are measured.".to_owned(),
        "net_amount_out_estimate = amount_out − gas cost in the output token; best_by_net ranks by it, best_by_gross by amount_out.".to_owned(),
        "price_impact_bps compares a route's output with the product of its pools' mid prices at the block and includes the pools' fees.".to_owned(),
        "amount_out_min = ⌊amount_out × (10000 − slippage_bps) / 10000⌋ of the reference route: arithmetic on the caller's tolerance, not a recommendation.".to_owned(),
        "Nothing is executed or simulated in a transaction; the next block can differ.".to_owned(),
    ];
    match conversion {
        GasConversion::Reference { .. } => list.push("Gas cost is priced in the output token at the rate of the best direct quote of one whole wrapped native token at the block (gas_cost_conversion), linearly.".to_owned()),
        GasConversion::Identity { .. } => list.push("The output token is the wrapped native token, so gas cost needs no conversion.".to_owned()),
        GasConversion::Unavailable { .. } => list.push("Gas could not be priced in the output token (gas_cost_conversion_null_reason), so net outputs are null.".to_owned()),
    }
    match l1_null_reason {
        None => list.push("The L1 data fee is GasPriceOracle getL1Fee of a representative unsigned EIP-1559 SwapRouter02 exactInputSingle transaction (an estimate), added to every route alike.".to_owned()),
        Some(_) => list.push("No L1 data fee is included in gas costs (l1_data_fee_null_reason).".to_owned()),
    }
    if include_multihop {
        let hops: Vec<String> = info
            .hop_tokens()
            .iter()
            .map(|token| match book.reference(*token).symbol {
                Some(symbol) => format!("{symbol} ({})", show(*token)),
                None => show(*token),
            })
            .collect();
        list.push(format!("Two-hop routes go through one of {}; each second leg is quoted with the output of the best first leg of each pool type.", hops.join(", ")));
    }
    list
}
