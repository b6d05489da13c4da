//! The wording of a quote report: tokens by their symbols, routes and legs, gas, the L1 data
//! fee, failures and assumptions.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256};
use chain_read::dex::balancer::BalancerPoolType;
use chain_read::dex::uniswap_v4::DYNAMIC_FEE_FLAG;
use chain_read::dex::{PoolKey, PoolState};
use chain_read::{L1DataFee, TokenMetadata};
use dex_math::gas::RouteGas;
use dex_route::{
    Failure, GasConversion, Leg, LegRole, PoolVariant, PricedRoute, Route, RouteError,
};

use super::answer::{
    GasCostConversion, L1Fee, Quote, QuoteFailure, QuoteLeg, TokenInfo, TokenRef, V4PoolKeyText,
};
use crate::answer::{amount, pool_ref, show, signed_amount};
use crate::requests::Chain;
use crate::wording;

/// `token`'s metadata as the answer shows it, with the decimals read.
pub(super) fn token_info(metadata: &TokenMetadata, decimals: u8) -> TokenInfo {
    TokenInfo {
        address: show(metadata.address),
        symbol: metadata.symbol.clone().ok(),
        symbol_null_reason: metadata
            .symbol
            .as_ref()
            .err()
            .map(|f| format!("symbol() failed: {f}")),
        decimals,
    }
}

/// Symbols and decimals of the tokens discovery read.
pub(super) struct TokenBook {
    tokens: BTreeMap<Address, (Option<String>, Option<u8>)>,
}

impl TokenBook {
    pub(super) fn new(metadata: &[TokenMetadata]) -> Self {
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

    pub(super) fn reference(&self, token: Address) -> TokenRef {
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
    pub(super) fn reason(&self, error: &RouteError) -> String {
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
pub(super) fn conversion_entry(
    conversion: &GasConversion,
    book: &TokenBook,
) -> Option<GasCostConversion> {
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
            reference_pool: Some(pool_ref(&leg.pool)),
            reference_dex: Some(leg.pool.dex.to_string()),
        }),
        GasConversion::Unavailable { .. } => None,
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
        PoolKey::V4 {
            fee,
            tick_spacing,
            hooks,
            native,
            ..
        } => {
            let mut label = if fee == DYNAMIC_FEE_FLAG {
                format!("{} dynamic fee", leg.pool.dex)
            } else {
                format!("{} {fee} ppm", leg.pool.dex)
            };
            label.push_str(&format!(" spacing {tick_spacing}"));
            if !hooks.is_zero() {
                label.push_str(" hooked");
            }
            if native.is_some() {
                label.push_str(" native ETH");
            }
            label
        }
        PoolKey::Slipstream { tick_spacing, .. } => {
            format!("{} spacing {tick_spacing}", leg.pool.dex)
        }
        PoolKey::Algebra { .. } | PoolKey::AlgebraV1 => format!("{} pair pool", leg.pool.dex),
        PoolKey::Balancer { pool_type, .. } => format!(
            "{} {}",
            leg.pool.dex,
            match pool_type {
                BalancerPoolType::Weighted => "weighted pool",
                BalancerPoolType::ComposableStable => "stable pool",
            }
        ),
    }
}

/// A V4 key's parts as the answer shows them; `quoted` for a leg (whose quote ran the hooks).
fn v4_text(
    fee: u32,
    tick_spacing: i32,
    hooks: Address,
    native: bool,
    quoted: bool,
) -> V4PoolKeyText {
    V4PoolKeyText {
        tick_spacing,
        dynamic_fee: fee == DYNAMIC_FEE_FLAG,
        hooks: (!hooks.is_zero()).then(|| show(hooks)),
        hooks_in_quote: quoted.then_some(!hooks.is_zero()),
        native_eth: native,
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
        (PoolKey::V4 { fee, .. }, _) => ((fee != DYNAMIC_FEE_FLAG).then_some(fee), None, None),
        // A Slipstream pool's fee is its own `fee()` at the block, an Algebra pool's the one in
        // its `globalState`: not tiers.
        (
            PoolKey::Slipstream { .. } | PoolKey::Algebra { .. } | PoolKey::AlgebraV1,
            Some(PoolState::Concentrated(cl)),
        ) => (Some(cl.fee), None, None),
        (PoolKey::Slipstream { .. } | PoolKey::Algebra { .. } | PoolKey::AlgebraV1, _) => {
            (None, None, None)
        }
        // A Balancer pool's swap fee (18 decimals) at the block, in millionths.
        (PoolKey::Balancer { .. }, Some(PoolState::Balancer(b))) => (
            u32::try_from(b.swap_fee / U256::from(1_000_000_000_000u64)).ok(),
            None,
            None,
        ),
        (PoolKey::Balancer { .. }, _) => (None, None, None),
    };
    let v4 = match leg.pool.key {
        PoolKey::V4 {
            fee,
            tick_spacing,
            hooks,
            native,
            ..
        } => Some(v4_text(fee, tick_spacing, hooks, native.is_some(), true)),
        _ => None,
    };
    let source = leg.source.as_str().to_owned();
    let gas_estimate = leg.gas_estimate.and_then(|g| u64::try_from(g).ok());
    QuoteLeg {
        dex: leg.pool.dex.to_string(),
        pool_type: leg.pool.key.kind().as_str().to_owned(),
        pool: pool_ref(&leg.pool),
        fee_tier_ppm,
        v4,
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
        quoter_gas_estimate_null_reason: match (leg.gas_estimate, gas_estimate) {
            (None, _) => Some(format!(
                "reported by QuoterV2 and V4Quoter only; this leg was quoted by {source}"
            )),
            (Some(g), None) => Some(format!(
                "the quoter reported a gas estimate of {g} units, more than 64 bits hold"
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
pub(super) fn quote_entry(route: &Route, priced: &PricedRoute, book: &TokenBook) -> Quote {
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

/// The L1 data fee, or why there is none.
pub(super) fn l1_fee(fee: &L1DataFee, chain: Chain) -> (Option<L1Fee>, Option<String>) {
    match fee {
        L1DataFee::Read {
            oracle,
            transaction_bytes,
            fee_wei,
        } => (
            Some(L1Fee {
                wei_estimate: fee_wei.to_string(),
                oracle: show(*oracle),
                representative_transaction_bytes: *transaction_bytes,
            }),
            None,
        ),
        other => (None, wording::l1_fee_reason(other, chain)),
    }
}

pub(super) fn failure_entry(failure: &Failure) -> QuoteFailure {
    let (leg, via) = match failure.role {
        LegRole::Direct => ("direct", None),
        LegRole::FirstLeg { via } => ("first_leg", Some(show(via))),
        LegRole::SecondLeg { via } => ("second_leg", Some(show(via))),
        LegRole::NativeReference => ("native_reference", None),
    };
    let (fee_tier_ppm, stable) = match failure.variant {
        Some(PoolVariant::FeeTier(fee)) => (Some(fee), None),
        Some(PoolVariant::Solidly { stable }) => (None, Some(stable)),
        Some(PoolVariant::V4 { fee, .. }) => ((fee != DYNAMIC_FEE_FLAG).then_some(fee), None),
        Some(
            PoolVariant::Pair | PoolVariant::TickSpacing { .. } | PoolVariant::BalancerPool { .. },
        )
        | None => (None, None),
    };
    let (v4, v4_id) = match failure.variant {
        Some(PoolVariant::V4 {
            fee,
            tick_spacing,
            hooks,
            native,
            id,
        }) => (
            Some(v4_text(fee, tick_spacing, hooks, native, false)),
            Some(id),
        ),
        _ => (None, None),
    };
    QuoteFailure {
        dex: failure.dex.to_string(),
        pool_type: failure.dex.kind().as_str().to_owned(),
        leg: leg.to_owned(),
        via,
        token_in: show(failure.token_in),
        token_out: show(failure.token_out),
        fee_tier_ppm,
        v4,
        stable,
        // A V4 pool is named by its PoolId, not by the address it is known by in the read.
        pool: match v4_id {
            Some(id) => failure.pool.map(|_| id.to_string()),
            None => failure.pool.map(show),
        },
        reason: failure.reason.to_string(),
    }
}
