//! `POST /mev/risk`: the request made `dex_route::mev::assess` (the pool, its exact state, gas
//! and USD prices at one block in three stages, the pool's Swap history by `eth_getLogs`, and
//! `mev-sim`'s sandwich maths), and its answer worded.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

mod answer;
mod attack;
mod history;
mod mitigation;
mod word;

use dex_route::RouteError;
use dex_route::mev::{AssessError, AssessRequest, NamedPool};
use server_kit::ApiError;

pub use self::answer::{
    AssessedPool, AttackGas, AttackerOptimum, DirectQuote, MevRiskAnswer, PublicMempool, TicksRead,
    TradeToken,
};
pub use self::history::{SandwichFound, SandwichHistory, SandwichTx, SandwichVictim};
pub use self::mitigation::{Mitigations, SplitMitigation, ToleranceMitigation};
pub use self::word::public_mempool;
use crate::answer::address;
use crate::chains::{Chains, code, route_error};
use crate::requests::{Chain, MevRiskRequest, PoolText};
use crate::wording;
pub use dex_route::mev::{
    HISTORY_WINDOW_BLOCKS, HistoryOptions, SPLIT_PARTS, TIGHTER_TOLERANCES_BPS,
};

/// The route's work with the default [`HistoryOptions`].
pub async fn mev_risk(
    chains: &Chains,
    request: &MevRiskRequest,
) -> Result<MevRiskAnswer, ApiError> {
    mev_risk_within(chains, request, HistoryOptions::default()).await
}

/// The route's work; the history scan as `history` says.
pub async fn mev_risk_within(
    chains: &Chains,
    request: &MevRiskRequest,
    history: HistoryOptions,
) -> Result<MevRiskAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let assess_request = AssessRequest {
        token_in: address(&request.token_in.0, "token_in")?,
        token_out: address(&request.token_out.0, "token_out")?,
        route: request.route.as_ref().map(named_pool).transpose()?,
        amount_in: request.amount_in.0.clone(),
        slippage_bps: request.slippage_bps,
        scan_history: request.scan_history,
    };
    let assessment = dex_route::mev::assess(info, client, &assess_request, history)
        .await
        .map_err(|error| assess_error(request.chain, error))?;
    Ok(word::word(request.chain, request.slippage_bps, &assessment))
}

/// The caller's `route`: an address, or (64 hex digits) a Uniswap V4 PoolId.
fn named_pool(route: &PoolText) -> Result<NamedPool, ApiError> {
    if route.0.len() == 66 {
        route
            .0
            .parse()
            .map(NamedPool::V4)
            .map_err(|e| ApiError::invalid_field("route", format!("not a PoolId: {e}")))
    } else {
        address(&route.0, "route").map(NamedPool::Address)
    }
}

/// A failed assessment as an answer, with the code of its kind: a named pool that is not one
/// of the pair's pools is 422 `unknown_pool`; no direct quote at all is 422 `no_route`; the
/// rest as every route read.
fn assess_error(chain: Chain, error: AssessError) -> ApiError {
    let kind = error.kind();
    match error {
        AssessError::Route(
            error @ (RouteError::UnknownPool { .. } | RouteError::UnknownPoolId { .. }),
        ) => ApiError::new(code(kind), format!("route: {error}; nothing was charged")),
        AssessError::Route(other) => route_error(chain, other),
        AssessError::Token(error) => wording::token_error(&error, chain),
        AssessError::Amount { error, decimals } => {
            wording::amount_error(&error, "token_in", decimals)
        }
        other => ApiError::new(code(kind), format!("{other}; nothing was charged")),
    }
}
