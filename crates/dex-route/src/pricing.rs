//! A quoted route priced: its gas, gas cost, net output and price impact, and the ranking of
//! routes by gross and by net output.

use alloy::primitives::{Address, I256, U256};
use chain_read::TokenMetadata;
use chain_read::dex::{Pool, PoolState};
use dex_math::gas::{self, RouteGas};
use dex_math::{Candidate, Ratio};

use crate::error::RouteError;
use crate::gas::{GasPricing, route_gas};
use crate::outcome::{Leg, Route};

/// The pool's mid price for this leg's direction at the pinned block, in raw output per raw
/// input. A Solidly pool needs both tokens' decimals, looked up in `tokens`.
pub fn leg_mid(leg: &Leg, tokens: &[TokenMetadata]) -> Result<Ratio, RouteError> {
    let state = leg.state.ok_or(RouteError::PoolStateNotRead {
        pool: leg.pool.address,
    })?;
    pool_mid(&leg.pool, &state, leg.token_in, tokens)
}

/// A pool's mid price for selling `token_in`, in raw output per raw input, from its `state`
/// at the pinned block. A Solidly pool needs both tokens' decimals, looked up in `tokens`.
pub fn pool_mid(
    pool: &Pool,
    state: &PoolState,
    token_in: Address,
    tokens: &[TokenMetadata],
) -> Result<Ratio, RouteError> {
    crate::kinds::of_pool(pool).mid(pool, state, token_in, tokens)
}

/// `(1 − amount_out / (amount_in × mid)) × 10000` of a route against the product of its
/// pools' mid prices; includes the pools' fees.
pub fn route_price_impact_bps(
    route: &Route,
    amount_in: U256,
    tokens: &[TokenMetadata],
) -> Result<f64, RouteError> {
    let mids = route
        .legs
        .iter()
        .map(|leg| leg_mid(leg, tokens))
        .collect::<Result<Vec<Ratio>, RouteError>>()?;
    dex_math::route_price_impact_bps(&mids, amount_in, route.amount_out()).map_err(RouteError::Math)
}

/// A route's figures beyond its output, each with the reason when it has none.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedRoute {
    /// Gas units of the swap transaction, hop by hop.
    pub gas: Result<RouteGas, RouteError>,
    /// `gas units × gas price + L1 data fee`, in wei.
    pub cost_wei: Result<U256, RouteError>,
    /// That cost in the output token.
    pub cost_in_token_out: Result<U256, RouteError>,
    /// Output less gas cost; negative when gas costs more.
    pub net_amount_out: Result<I256, RouteError>,
    /// Price impact in basis points against the pools' mid prices (unrounded).
    pub price_impact_bps: Result<f64, RouteError>,
}

impl GasPricing {
    /// Prices `route`, which sold `amount_in`; `tokens` are the read's token metadata.
    pub fn price(&self, route: &Route, amount_in: U256, tokens: &[TokenMetadata]) -> PricedRoute {
        let gas = route_gas(&self.model, route);
        let cost_wei = gas.clone().and_then(|gas| self.cost_wei(&gas));
        let cost_in_token_out = cost_wei
            .clone()
            .and_then(|cost| self.conversion.convert(cost));
        let net_amount_out = cost_in_token_out.clone().and_then(|cost| {
            gas::net_amount_out(route.amount_out(), cost).map_err(RouteError::Math)
        });
        PricedRoute {
            gas,
            cost_wei,
            cost_in_token_out,
            net_amount_out,
            price_impact_bps: route_price_impact_bps(route, amount_in, tokens),
        }
    }
}

/// The best routes by gross and by net output, as indexes into the routes ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranking {
    /// The largest output (the first of equals).
    pub best_by_gross: Option<usize>,
    /// The largest output after gas among routes whose gas could be priced; on equal net
    /// the larger gross, then the earlier route.
    pub best_by_net: Option<usize>,
}

/// Ranks `routes` by gross output and, with their `priced` figures in the same order, by net
/// output.
pub fn rank(routes: &[Route], priced: &[PricedRoute]) -> Ranking {
    let candidates: Vec<Candidate> = routes
        .iter()
        .zip(priced)
        .map(|(route, priced)| Candidate {
            gross: route.amount_out(),
            net: priced.net_amount_out.as_ref().ok().copied(),
        })
        .collect();
    Ranking {
        best_by_gross: dex_math::best_by_gross(&candidates),
        best_by_net: dex_math::best_by_net(&candidates),
    }
}
