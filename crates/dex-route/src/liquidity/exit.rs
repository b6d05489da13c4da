//! Exit impact: selling a USD size of one token into the pool, quoted against its live state:
//! QuoterV2 for concentrated liquidity, the pair's maths on the reserves for a
//! constant-product pair, and the Solidly pool's own `getAmountOut` maths (dex-math's exact
//! port, proven to the wei against the pool on the devnet) on its reserves.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256};
use chain_read::dex::{Pool, PoolState};
use chain_read::{Batch, BatchResults, ChainInfo, TokenMetadata};
use dex_math::Ratio;
use dex_math::tick_math::{MAX_SQRT_RATIO, MIN_SQRT_RATIO};

use crate::error::RouteError;
use crate::kinds::{self, ExitAmounts, Quoted};
use crate::legs::{LegQuote, PoolStates};
use crate::outcome::QuoteSource;
use crate::pricing::pool_mid;

/// The initialized ticks read and the lowest and highest square-root prices they cover.
pub(crate) type TicksRead<'t> = (&'t BTreeMap<i32, i128>, (U256, U256));

/// One exit size in one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitRow {
    /// The size in whole US dollars.
    pub size_usd: u64,
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// The quote, or why there is none.
    pub quote: Result<ExitQuote, RouteError>,
}

/// The quote of one exit.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitQuote {
    /// Raw amount sold: the USD size at the token's USD price.
    pub amount_in: U256,
    /// Raw amount received.
    pub amount_out: U256,
    /// Where the amount comes from.
    pub source: QuoteSource,
    /// `false` when the pool ran out of liquidity before taking the whole input: the price
    /// reached the end of the tick range and `amount_out` is everything the pool could pay.
    pub filled: bool,
    /// QuoterV2's initialized ticks crossed (concentrated liquidity).
    pub initialized_ticks_crossed: Option<u32>,
    /// QuoterV2's price after (concentrated liquidity).
    pub sqrt_price_x96_after: Option<U256>,
    /// The mid price before, raw output per raw input.
    pub mid_before: Ratio,
    /// The mid price after the trade, raw output per raw input, or why it is not known (a
    /// Uniswap V4 exit whose hooks change the swap or which leaves the ticks read).
    pub mid_after: Result<Ratio, RouteError>,
    /// `(1 − (out/in)/mid)·10⁴`: what the trade lost against the mid price, fee included.
    pub impact_bps: f64,
    /// The pool's fee, bps.
    pub fee_bps: f64,
    /// The impact without the fee: `(1 − (out/in)/(mid·(1 − fee)))·10⁴`.
    pub price_impact_excluding_fee_bps: f64,
    /// How far the trade moves the pool's price of the token sold: `(mid_after/mid − 1)·10⁴`
    /// (negative: the token sold got cheaper); `None` when the price after is not known.
    pub price_move_bps: Option<f64>,
}

/// The exits of a pool, read in the quote round trip for concentrated liquidity and computed
/// on the spot otherwise.
#[derive(Debug)]
pub(crate) struct PendingExits {
    rows: Vec<PendingRow>,
}

#[derive(Debug)]
struct PendingRow {
    size_usd: u64,
    token_in: Address,
    amount_in: Result<U256, RouteError>,
    quoter: Option<LegQuote>,
}

impl PendingExits {
    /// Adds a QuoterV2 quote for every concentrated-liquidity exit whose amount is known.
    pub(crate) fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: Pool,
        exits: Vec<(u64, Address, Result<U256, RouteError>)>,
    ) -> Self {
        let kind = kinds::of_pool(&pool);
        let rows = exits
            .into_iter()
            .map(|(size_usd, token_in, amount_in)| {
                let quoter = match &amount_in {
                    Ok(amount) if kind.quotes_exits() && !amount.is_zero() => {
                        Some(LegQuote::add(batch, chain, pool, token_in, *amount))
                    }
                    _ => None,
                };
                PendingRow {
                    size_usd,
                    token_in,
                    amount_in,
                    quoter,
                }
            })
            .collect();
        Self { rows }
    }

    /// Every row's quote. `ticks` (concentrated liquidity) are the initialized ticks read,
    /// up to `edges` (the lowest and highest square-root price they cover): a size the pool
    /// cannot fill is simulated over them to say how much of it the liquidity read takes.
    pub(crate) fn settle(
        self,
        results: Option<&BatchResults>,
        pool: &Pool,
        state: &PoolState,
        tokens: &[TokenMetadata],
        ticks: Option<TicksRead<'_>>,
    ) -> Vec<ExitRow> {
        self.rows
            .into_iter()
            .map(|row| ExitRow {
                size_usd: row.size_usd,
                token_in: row.token_in,
                token_out: pool.other(row.token_in),
                quote: row.amount_in.and_then(|amount_in| {
                    let quote = quote_row(
                        amount_in,
                        row.token_in,
                        row.quoter.as_ref(),
                        results,
                        (pool, state),
                        tokens,
                        ticks,
                    );
                    match quote {
                        Ok(quote) if quote.filled => Ok(quote),
                        Ok(_) => Err(cannot_fill(
                            "it stopped at the end of the tick range".to_owned(),
                            amount_in,
                            row.token_in,
                            pool,
                            state,
                            ticks,
                        )),
                        Err(RouteError::Quote(reason)) if kinds::of_pool(pool).partial_fills() => {
                            Err(cannot_fill(
                                reason,
                                amount_in,
                                row.token_in,
                                pool,
                                state,
                                ticks,
                            ))
                        }
                        Err(other) => Err(other),
                    }
                }),
            })
            .collect()
    }
}

fn quote_row(
    amount_in: U256,
    token_in: Address,
    quoter: Option<&LegQuote>,
    results: Option<&BatchResults>,
    (pool, state): (&Pool, &PoolState),
    tokens: &[TokenMetadata],
    ticks: Option<TicksRead<'_>>,
) -> Result<ExitQuote, RouteError> {
    if amount_in.is_zero() {
        return Err(RouteError::ZeroAmount);
    }
    let mid_before = pool_mid(pool, state, token_in, tokens)?;
    let kind = kinds::of_pool(pool);
    let quoted = quoter.map(|quoter| {
        let states = PoolStates::from([(pool.address, Ok(*state))]);
        quoter.settle(results, &states).map(|leg| Quoted {
            amount_out: leg.amount_out,
            source: leg.source,
            quoter: leg.quoter,
            gas_estimate: leg.gas_estimate,
        })
    });
    let ExitAmounts {
        amount_out,
        source,
        fee_bps,
        mid_after: after,
        quoter: cl,
    } = kind.exit(pool, state, token_in, amount_in, quoted, tokens, ticks)?;
    if amount_out.is_zero() {
        return Err(RouteError::Quote(
            "the pool pays nothing for this amount".to_owned(),
        ));
    }
    let impact_bps =
        dex_math::price_impact_bps(&mid_before, amount_in, amount_out).map_err(RouteError::Math)?;
    let fee = fee_bps / 10_000.0;
    let price_impact_excluding_fee_bps =
        (1.0 - (1.0 - impact_bps / 10_000.0) / (1.0 - fee)) * 10_000.0;
    let price_move_bps = after
        .as_ref()
        .ok()
        .map(|after| (mid_after_ratio(after, &mid_before) - 1.0) * 10_000.0);
    let filled = cl.is_none_or(|quote| {
        // QuoterV2 stops a swap that runs out of liquidity at the price limit without
        // reverting: the whole input was not taken.
        quote.sqrt_price_x96_after > MIN_SQRT_RATIO + U256::from(1)
            && quote.sqrt_price_x96_after < MAX_SQRT_RATIO - U256::from(1)
    });
    Ok(ExitQuote {
        amount_in,
        amount_out,
        source,
        filled,
        initialized_ticks_crossed: cl.map(|quote| quote.initialized_ticks_crossed),
        sqrt_price_x96_after: cl.map(|quote| quote.sqrt_price_x96_after),
        mid_before,
        mid_after: after,
        impact_bps,
        fee_bps,
        price_impact_excluding_fee_bps,
        price_move_bps,
    })
}

/// `after / before` as a float: both are exact ratios, only the quotient is rounded.
fn mid_after_ratio(after: &Ratio, before: &Ratio) -> f64 {
    match before.inverse() {
        Ok(inverse) => after.mul(&inverse).to_f64(),
        Err(_) => f64::NAN,
    }
}

/// A concentrated-liquidity size QuoterV2 could not fill, with what the ticks read take of it.
fn cannot_fill(
    quoter: String,
    amount_in: U256,
    token_in: Address,
    pool: &Pool,
    state: &PoolState,
    ticks: Option<TicksRead<'_>>,
) -> RouteError {
    let fillable = kinds::of_pool(pool).fillable(pool, state, token_in, amount_in, ticks);
    RouteError::CannotFill { quoter, fillable }
}
