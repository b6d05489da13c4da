//! `POST /dex/quote`: the request made `dex_route::quote::report` (every read at one block in
//! at most three round trips, the routes, their gas, ranking and price impact), and its
//! answer worded.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

mod answer;
mod assumptions;
mod v4_index;
mod word;

use chain_read::PinnedReader;
use dex_route::quote::{QuoteReport, ReadPath, Reference, ReportError, ReportRequest};
use server_kit::{ApiError, ErrorCode};

pub use self::answer::{
    AssumedGasOverhead, DexQuoteAnswer, GasCostConversion, L1Fee, Quote, QuoteFailure, QuoteLeg,
    TokenInfo, TokenRef, V4PoolKeyText,
};
use self::assumptions::{assumed_gas_overhead, assumptions};
use self::word::{TokenBook, conversion_entry, failure_entry, l1_fee, quote_entry, token_info};
use crate::answer::{address, amount, show};
use crate::chains::{Chains, code, route_error};
use crate::requests::{Chain, DexQuoteRequest};
use crate::wording;

/// Quotes `request` on its chain. Errors are answered without settling: 400 for tokens that
/// are not ERC-20s or an amount finer than `token_in`'s decimals, 502 for an unreachable
/// node, 504 for a node slower than its per-call timeout.
pub async fn dex_quote(
    chains: &Chains,
    request: &DexQuoteRequest,
) -> Result<DexQuoteAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let report_request = ReportRequest {
        token_in: address(&request.token_in.0, "token_in")?,
        token_out: address(&request.token_out.0, "token_out")?,
        amount_in: request.amount_in.0.clone(),
        include_multihop: request.include_multihop,
        slippage_bps: request.slippage_bps,
    };
    let reader = PinnedReader::for_chain(client.clone(), info);
    let report = dex_route::quote::report(info, &reader, &report_request)
        .await
        .map_err(|error| report_error(request.chain, error))?;
    word(request, info, &report)
}

/// A report that could not be made, as an answer with the code of its kind.
fn report_error(chain: Chain, error: ReportError) -> ApiError {
    let kind = error.kind();
    match error {
        ReportError::Route(error) => route_error(chain, error),
        ReportError::Token(error) => wording::token_error(&error, chain),
        ReportError::Amount {
            error,
            token,
            decimals,
        } => {
            let name = token
                .symbol
                .as_ref()
                .ok()
                .map_or("token_in", String::as_str);
            wording::amount_error(&error, name, decimals)
        }
        ReportError::NativeUnusable(e) => ApiError::new(
            code(kind),
            format!(
                "the wrapped native token of {} is not usable ({e}); nothing was charged",
                chain.as_str()
            ),
        ),
        other => ApiError::new(
            code(kind),
            format!(
                "the routes on {} could not be computed ({other}); nothing was charged",
                chain.as_str()
            ),
        ),
    }
}

/// The report in the answer's words; a report without a single quote is refused.
fn word(
    request: &DexQuoteRequest,
    info: &chain_read::ChainInfo,
    report: &QuoteReport,
) -> Result<DexQuoteAnswer, ApiError> {
    let outcome = &report.outcome;
    let book = TokenBook::new(&outcome.tokens);
    let pricing = &report.pricing;
    let gas_price = pricing.gas_price_wei.as_ref().map_err(|e| book.reason(e));
    let (l1_data_fee, l1_null_reason) = l1_fee(&outcome.l1_data_fee, request.chain);
    let conversion_unavailable = pricing.conversion.unavailable().map(|e| book.reason(&e));
    let quotes: Vec<Quote> = outcome
        .routes
        .iter()
        .zip(&report.priced)
        .map(|(route, priced)| quote_entry(route, priced, &book))
        .collect();
    let (best_gross, best_net) = (report.ranking.best_by_gross, report.ranking.best_by_net);
    let no_route = "no route gave a quote: every DEX, fee tier and leg is listed in failures";
    let best_by_net_null_reason = match (best_gross, best_net, &gas_price, &conversion_unavailable)
    {
        (None, _, _, _) => Some(no_route.to_owned()),
        (_, Some(_), _, _) => None,
        (_, None, Err(reason), _) => Some(format!("gas cannot be priced: {reason}")),
        (_, None, _, Some(reason)) => Some(reason.clone()),
        (_, None, _, _) => Some("no route has a net output".to_owned()),
    };
    let reference_route = report.reference.map(|r| match r {
        Reference::BestByNet(_) => "best_by_net",
        Reference::BestByGross(_) => "best_by_gross",
    });
    let reference_quote = report.reference.and_then(|r| quotes.get(r.index()));
    let (price_impact_bps, price_impact_bps_null_reason) = match reference_quote {
        Some(quote) => (
            quote.price_impact_bps,
            quote.price_impact_bps_null_reason.clone(),
        ),
        None => (None, Some(no_route.to_owned())),
    };
    let out_decimals = report.token_out_decimals;
    let (amount_out_min, amount_out_min_null_reason) = match &report.amount_out_min {
        Some(Ok(min)) => (Some(amount(*min, Some(out_decimals))), None),
        Some(Err(e)) => (None, Some(e.to_string())),
        None => (None, Some(no_route.to_owned())),
    };
    let mut assumptions = assumptions(
        outcome.block.number,
        report.read_path == ReadPath::Lens,
        &pricing.conversion,
        &l1_null_reason,
        request.include_multihop,
        info,
        &book,
    );
    assumptions.extend(v4_index::found_by_events(info, &outcome.routes));
    if let Some(side) = report.native_ether {
        let wrapped = match side {
            dex_route::quote::Side::TokenIn => &report.token_in,
            dex_route::quote::Side::TokenOut => &report.token_out,
        };
        assumptions.push(format!(
            "{} is native ether (the zero address): it is quoted as the wrapped native token {} ({}), whose pools carry it; a route through a pool of the wrapped token needs a wrap (or unwrap) beside the swap, which the quote does not include, and the Uniswap V4 pools against native ether (native_eth: true) need none.",
            side.field(),
            show(wrapped.address),
            wrapped.symbol.as_deref().unwrap_or("?")
        ));
    }
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
    let (read_path, lens_fallback_reason) = crate::answer::read_path(&report.read_path);
    Ok(DexQuoteAnswer {
        chain: request.chain,
        block_number: outcome.block.number,
        block_timestamp: outcome.block.timestamp,
        token_in: token_info(&report.token_in, report.token_in_decimals),
        token_out: token_info(&report.token_out, out_decimals),
        amount_in: amount(report.amount_in, Some(report.token_in_decimals)),
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
        read_path,
        lens_fallback_reason,
        quotes,
        assumptions,
    })
}
