//! `POST /pool/liquidity`: the answer's types and its wording over `dex-route`'s pool read
//! (every chain read at one block, at most three round trips) and `oracle-sources`' volume
//! (read concurrently, a foreign figure with its own age).
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

use alloy::primitives::{Address, U256};
use chain_read::PinnedReader;
use chain_read::dex::{PoolKey, PoolState};
use dex_route::RouteError;
use dex_route::liquidity::{
    BandCapital, ExitRow, LiquidityRequest, PoolLiquidity, PoolRef, PoolToken, TickSource,
    read_pool_liquidity_with,
};
use oracle_sources::{ForeignFigure, Sources};
use schemars::JsonSchema;
use serde::Serialize;
use server_kit::{ApiError, ErrorCode};

use crate::answer::{Amount, address, amount, fee_bps, ratio_decimal, show, usd_text};
use crate::chains::{Chains, route_error};
use crate::requests::{Chain, PoolLiquidityRequest};
use crate::wording;

/// Decimal places of prices in the answer.
const PRICE_PLACES: u8 = 18;

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
/// and Solidly pools, its token balances (`balanceOf`) for concentrated liquidity.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Reserves {
    /// `get_reserves` or `balance_of`.
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
    /// `quoter_v2`, `reserves` (V2 formula) or `solidly_reserves` (the Solidly pool's
    /// `getAmountOut` maths).
    pub quote_source: Option<String>,
    /// `(1 − (amount_out/amount_in)/mid)·10⁴`, fee included, to 0.01 bps.
    pub impact_bps: Option<f64>,
    /// The pool's fee, bps.
    pub fee_bps: Option<f64>,
    /// The impact without the fee: `(1 − (amount_out/amount_in)/(mid·(1 − fee)))·10⁴`.
    pub price_impact_excluding_fee_bps: Option<f64>,
    /// How far the pool's price of `token_in` moves, bps (negative: it falls).
    pub price_move_bps: Option<f64>,
    /// Initialized ticks crossed (QuoterV2).
    pub initialized_ticks_crossed: Option<u32>,
    /// The pool's price after the trade, Q64.96 (QuoterV2).
    pub sqrt_price_x96_after: Option<String>,
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
    /// The pool.
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
    /// What the figures assume.
    pub assumptions: Vec<String>,
}

/// The request as the library reads it; a DEX the chain does not have is refused before
/// payment (400 `unsupported_protocol`).
pub fn pool_ref(chains: &Chains, request: &PoolLiquidityRequest) -> Result<PoolRef, ApiError> {
    if let Some(pool) = &request.pool {
        return Ok(PoolRef::Address(address(&pool.0, "pool")?));
    }
    let (Some(a), Some(b), Some(dex)) = (&request.token_a, &request.token_b, request.dex) else {
        return Err(ApiError::invalid_field(
            "pool",
            "is required when token_a + token_b + dex are not all given",
        ));
    };
    let info = chains.info(request.chain)?;
    if !dex.has_adapter() || info.dex(dex).is_none() {
        return Err(ApiError::new(
            ErrorCode::UnsupportedProtocol,
            format!(
                "dex: {dex} is not read on {}{}; DEXes read there: {}",
                request.chain.as_str(),
                if dex.has_adapter() {
                    ""
                } else {
                    " (its pools are Algebra pools, which the service does not read)"
                },
                info.dexes()
                    .filter(|d| d.id.has_adapter())
                    .map(|d| d.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(PoolRef::Pair {
        dex,
        token_a: address(&a.0, "token_a")?,
        token_b: address(&b.0, "token_b")?,
        fee_tier_ppm: request.fee_tier_ppm,
    })
}

/// The route's work.
pub async fn pool_liquidity(
    chains: &Chains,
    sources: &Sources,
    request: &PoolLiquidityRequest,
) -> Result<PoolLiquidityAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let pool_ref = pool_ref(chains, request)?;
    let reader = PinnedReader::for_chain(client.clone(), info);
    let read_request = LiquidityRequest::new(pool_ref);
    let chain = request.chain;
    // The volume read starts as soon as the pool's address is known: at once for an
    // address, after the tier choice for a pair.
    let (chosen_tx, chosen_rx) = tokio::sync::oneshot::channel::<Address>();
    let known = match pool_ref {
        PoolRef::Address(address) => Some(address),
        PoolRef::Pair { .. } => None,
    };
    let read = read_pool_liquidity_with(info, &reader, &read_request, move |pool| {
        // The receiver lives until the volume future ends; a send error means nobody waits.
        let _ = chosen_tx.send(pool.address);
    });
    let volume = async move {
        let address = match known {
            Some(address) => Some(address),
            None => chosen_rx.await.ok(),
        };
        match address {
            Some(address) => Some(
                sources
                    .pool_volume(chain, address, wording::now_unix())
                    .await,
            ),
            None => None,
        }
    };
    let (read, volume) = tokio::join!(read, volume);
    let read = read.map_err(|error| route_error(request.chain, error))?;
    let volume = volume.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            "the pool was read but its address was not passed on",
        )
    })?;
    Ok(word(request.chain, &read, volume))
}

fn token_info(token: &PoolToken, read: &PoolLiquidity) -> PoolTokenInfo {
    let usdc_decimals = read.usdc_decimals.clone().ok();
    let (price_usd, price_usd_source, price_usd_null_reason) = match (&token.usd, usdc_decimals) {
        (Ok(price), Some(usdc)) => (
            Some(ratio_decimal(
                &price.usdc_per_unit,
                token.decimals,
                usdc,
                PRICE_PLACES,
            )),
            Some(wording::usd_route_text(
                &price.route,
                "this pool's",
                read.block.number,
                false,
            )),
            None,
        ),
        (Err(error), _) => (None, None, Some(error.to_string())),
        (Ok(_), None) => (
            None,
            None,
            Some("USDC's decimals() did not answer".to_owned()),
        ),
    };
    PoolTokenInfo {
        address: show(token.metadata.address),
        symbol: token.metadata.symbol.clone().ok(),
        decimals: token.decimals,
        price_usd,
        price_usd_source,
        price_usd_null_reason,
    }
}

fn usd_of(token: &PoolToken, raw: U256, usdc_decimals: Option<u8>) -> Option<String> {
    let price = token.usd.as_ref().ok()?;
    Some(usd_text(price.value(raw), usdc_decimals?, false))
}

fn word(
    chain: Chain,
    read: &PoolLiquidity,
    volume: oracle_sources::PoolVolume,
) -> PoolLiquidityAnswer {
    let [token0, token1] = &read.tokens;
    let usdc_decimals = read.usdc_decimals.clone().ok();
    let (reserve_source, raw_reserves) = match read.state {
        PoolState::ConstantProduct(r) | PoolState::Solidly { reserves: r, .. } => {
            ("get_reserves", [Some(r.reserve0), Some(r.reserve1)])
        }
        PoolState::Concentrated(_) => (
            "balance_of",
            [token0.balance.clone().ok(), token1.balance.clone().ok()],
        ),
    };
    let reserves = Reserves {
        source: reserve_source.to_owned(),
        tokens: [token0, token1]
            .iter()
            .zip(raw_reserves)
            .map(|(token, raw)| Reserve {
                token: show(token.metadata.address),
                amount: amount(raw.unwrap_or_default(), Some(token.decimals)),
                usd: raw.and_then(|raw| usd_of(token, raw, usdc_decimals)),
            })
            .collect(),
    };
    let tvl = read.tvl_usdc().and_then(|tvl| {
        usdc_decimals
            .map(|d| usd_text(tvl, d, false))
            .ok_or(RouteError::DecimalsUnknown {
                token: Address::ZERO,
            })
    });
    let (in_range_liquidity, current_tick, sqrt_price_x96, concentrated_null_reason) =
        match read.state {
            PoolState::Concentrated(cl) => (
                Some(cl.liquidity.to_string()),
                Some(cl.tick),
                Some(cl.sqrt_price_x96.to_string()),
                None,
            ),
            _ => (
                None,
                None,
                None,
                Some(format!(
                    "a {} pool has no ticks or in-range liquidity",
                    read.pool.key.kind().as_str()
                )),
            ),
        };
    let mid = |token: &PoolToken, other: &PoolToken| {
        read.mid(token.metadata.address)
            .map(|ratio| ratio_decimal(&ratio, token.decimals, other.decimals, PRICE_PLACES))
    };
    let (mid01, mid10, mid_null_reason) = match (mid(token0, token1), mid(token1, token0)) {
        (Ok(a), Ok(b)) => (Some(a), Some(b), None),
        (Err(e), _) | (_, Err(e)) => (None, None, Some(e.to_string())),
    };
    let tiers_compared: Vec<TierCompared> = read
        .compared
        .iter()
        .map(|candidate| TierCompared {
            pool: show(candidate.pool.address),
            fee_tier_ppm: match candidate.pool.key {
                PoolKey::Concentrated { fee, .. } => Some(fee),
                _ => None,
            },
            stable: match candidate.pool.key {
                PoolKey::Solidly { stable } => Some(stable),
                _ => None,
            },
            value_in_token1: candidate
                .value_in_token1
                .as_ref()
                .ok()
                .map(|v| amount(*v, Some(token1.decimals))),
            value_null_reason: candidate
                .value_in_token1
                .as_ref()
                .err()
                .map(ToString::to_string),
            chosen: candidate.pool.address == read.pool.address,
        })
        .collect();
    let tier_choice = (!tiers_compared.is_empty()).then(|| {
        "no fee tier was named: every pool of the pair on the DEX was read at the block and the one whose token balances, valued at its own mid price in token1, are largest was chosen".to_owned()
    });
    let exit_impact = read.exits.iter().map(|row| exit(row, read)).collect();
    let (depth, depth_null_reason) = match &read.depth {
        Ok(bands) => (
            Some(bands.iter().map(|band| depth_band(band, read)).collect()),
            None,
        ),
        Err(error) => (None, Some(error.to_string())),
    };
    let depth_method = match &read.ticks {
        Some(coverage) => format!(
            "Uniswap marketdepth-v3's definition: the upper band ends at price·(1+δ), the lower at price/(1+δ) (not 1−δ); token0 above the price, token1 below, each the pool's SqrtPriceMath amount rounded down, summed over the ranges between initialized ticks walked outward from the current tick. {} initialized ticks of bitmap words {}..{} read {}.",
            coverage.initialized_ticks,
            coverage.words.0,
            coverage.words.1,
            match coverage.source {
                TickSource::TickLens => "with TickLens",
                TickSource::Bitmap => "from tickBitmap and ticks()",
            }
        ),
        None if read.pool.key == (PoolKey::Solidly { stable: true }) => "On the stable curve x³y + xy³ = k: the token0 the pool pays out while its marginal price of token0 rises to price·(1+δ) (upper) and the token1 while it falls to price/(1+δ) (lower, as marketdepth-v3), found by bisection over the pool's own getAmountOut maths without the fee (the edge located to about 10⁻¹⁵ of the price).".to_owned(),
        None => "On the x·y curve: moving the price by a factor 1+δ takes reserve·(1 − 1/√(1+δ)) of the token leaving the pool; the upper band holds token0, the lower band token1 (lower edge price/(1+δ), as marketdepth-v3).".to_owned(),
    };
    PoolLiquidityAnswer {
        chain,
        block_number: read.block.number,
        block_timestamp: read.block.timestamp,
        pool: show(read.pool.address),
        dex: read.pool.dex.as_str().to_owned(),
        pool_type: read.pool.key.kind().as_str().to_owned(),
        stable: read.pool.key.stable(),
        fee_tier_ppm: match read.pool.key {
            PoolKey::Concentrated { fee, .. } => Some(fee),
            _ => None,
        },
        fee_bps: fee_bps(&read.state, read.pool.key),
        token0: token_info(token0, read),
        token1: token_info(token1, read),
        reserves,
        tvl_usd: tvl.as_ref().ok().cloned(),
        tvl_usd_null_reason: tvl.err().map(|e| e.to_string()),
        in_range_liquidity,
        current_tick,
        sqrt_price_x96,
        concentrated_null_reason,
        mid_price_token1_per_token0: mid01,
        mid_price_token0_per_token1: mid10,
        mid_price_null_reason: mid_null_reason,
        tiers_compared,
        tier_choice,
        exit_impact,
        depth,
        depth_null_reason,
        depth_method,
        volume_24h: foreign(volume.volume_24h),
        volume_7d: foreign(volume.volume_7d),
        lp_holder_count: None,
        lp_holder_count_null_reason: "not read: holders of a V2/Solidly LP token or V3 position NFTs are only found by scanning every Transfer event since the pool's creation (an indexer's job, not a few calls at one block); no source that states it is read".to_owned(),
        top_lp_share: None,
        top_lp_share_null_reason: "not read, for the same reason as lp_holder_count; for concentrated liquidity a share of liquidity is also not a share of capital".to_owned(),
        rpc_round_trips: read.sequential_round_trips,
        assumptions: assumptions(read),
    }
}

fn foreign(figure: ForeignFigure) -> ForeignVolume {
    ForeignVolume {
        usd: figure.usd,
        derived_from_foreign_source: true,
        source: figure.source,
        url: figure.url,
        as_of: figure.as_of,
        age_seconds: figure.age_seconds,
        method: figure.method,
        null_reason: figure.null_reason,
    }
}

fn exit(row: &ExitRow, read: &PoolLiquidity) -> ExitImpact {
    let decimals = |token: Address| {
        read.tokens
            .iter()
            .find(|t| t.metadata.address == token)
            .map(|t| t.decimals)
    };
    let (d_in, d_out) = (decimals(row.token_in), decimals(row.token_out));
    // `+ 0.0` turns a rounded -0.0 into 0.0.
    let round = |value: f64| (value * 100.0).round() / 100.0 + 0.0;
    let mut answer = ExitImpact {
        size_usd: row.size_usd,
        token_in: show(row.token_in),
        token_out: show(row.token_out),
        amount_in: None,
        amount_out: None,
        filled: None,
        fillable_amount_in: None,
        fillable_amount_out: None,
        quote_source: None,
        impact_bps: None,
        fee_bps: None,
        price_impact_excluding_fee_bps: None,
        price_move_bps: None,
        initialized_ticks_crossed: None,
        sqrt_price_x96_after: None,
        null_reason: None,
    };
    match &row.quote {
        Ok(quote) => {
            answer.amount_in = Some(amount(quote.amount_in, d_in));
            answer.amount_out = Some(amount(quote.amount_out, d_out));
            answer.filled = Some(quote.filled);
            answer.quote_source = Some(quote.source.as_str().to_owned());
            answer.impact_bps = Some(round(quote.impact_bps));
            answer.fee_bps = Some(quote.fee_bps);
            answer.price_impact_excluding_fee_bps =
                Some(round(quote.price_impact_excluding_fee_bps));
            answer.price_move_bps = Some(round(quote.price_move_bps));
            answer.initialized_ticks_crossed = quote.initialized_ticks_crossed;
            answer.sqrt_price_x96_after = quote.sqrt_price_x96_after.map(|p| p.to_string());
        }
        Err(RouteError::CannotFill { fillable, .. }) => {
            answer.filled = Some(false);
            answer.quote_source = Some("quoter_v2".to_owned());
            if let Some((fill_in, fill_out)) = fillable {
                answer.fillable_amount_in = Some(amount(*fill_in, d_in));
                answer.fillable_amount_out = Some(amount(*fill_out, d_out));
            }
            answer.null_reason = row.quote.as_ref().err().map(ToString::to_string);
        }
        Err(error) => answer.null_reason = Some(error.to_string()),
    }
    answer
}

fn depth_band(band: &BandCapital, read: &PoolLiquidity) -> DepthBand {
    let [token0, token1] = &read.tokens;
    let usdc_decimals = read.usdc_decimals.clone().ok();
    let price = |sqrt: U256| {
        ratio_decimal(
            &dex_math::price::sqrt_price_x96_to_ratio(sqrt),
            token0.decimals,
            token1.decimals,
            PRICE_PLACES,
        )
    };
    let upper_usd = usd_of(token0, band.upper_token0, usdc_decimals);
    let lower_usd = usd_of(token1, band.lower_token1, usdc_decimals);
    let total_usd = match (&token0.usd, &token1.usd, usdc_decimals) {
        (Ok(p0), Ok(p1), Some(d)) => Some(usd_text(
            p0.value(band.upper_token0) + p1.value(band.lower_token1),
            d,
            false,
        )),
        _ => None,
    };
    DepthBand {
        percent: band.percent,
        upper: DepthSide {
            token: show(token0.metadata.address),
            amount: amount(band.upper_token0, Some(token0.decimals)),
            usd: upper_usd,
            to_price: price(band.upper_sqrt_price_x96),
        },
        lower: DepthSide {
            token: show(token1.metadata.address),
            amount: amount(band.lower_token1, Some(token1.decimals)),
            usd: lower_usd,
            to_price: price(band.lower_sqrt_price_x96),
        },
        total_usd,
    }
}

fn assumptions(read: &PoolLiquidity) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Every chain read was made at block {}; {} sequential round trips to the node.",
            read.block.number, read.sequential_round_trips
        ),
        "Exit sizes are turned into token amounts at the USD price shown for the token sold (its source is printed with it); nothing is executed.".to_owned(),
        "USD is the chain's USDC at 1 USD.".to_owned(),
        "impact_bps is against the pool's mid price at the block and includes the fee; price_impact_excluding_fee_bps removes the fee multiplicatively.".to_owned(),
        "Volumes come from a foreign source and are labelled with it and their age; they are not read from the chain.".to_owned(),
    ];
    match read.pool.key {
        PoolKey::Concentrated { .. } => lines.push("Concentrated-liquidity exits are QuoterV2 quotes at the block; a size the pool cannot take is marked unfilled, with what the initialized ticks read would take (simulated with the pool's own swap maths, a lower bound).".to_owned()),
        PoolKey::ConstantProduct { .. } => lines.push("Constant-product exits are UniswapV2Library.getAmountOut on the reserves at the block (equal to Router02's answer).".to_owned()),
        PoolKey::Solidly { .. } => lines.push("Solidly exits are the pool's getAmountOut maths on the reserves and the factory's fee at the block (equal to the pool's own answer).".to_owned()),
    }
    lines
}
