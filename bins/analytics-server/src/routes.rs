//! The paid routes: each request type with its path, operation id, summary, description, the
//! checks before payment, the statuses of its work and the one library call its work is; and
//! the one list of them.

use std::future::Future;
use std::sync::Arc;

use axum::Json;
use axum::response::IntoResponse;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use server_kit::{ApiError, ErrorCode};

use crate::chains::Chains;
use crate::requests::{
    Chain, DexQuoteRequest, LendingHealthRequest, MevRiskRequest, OracleCrosscheckRequest,
    PoolLiquidityRequest, YieldNormalizeRequest,
};
use crate::state::AppState;

/// A paid route's request type and fixed facts.
pub trait AnalyticsRoute: DeserializeOwned + JsonSchema + Send + 'static {
    /// Path.
    const PATH: &'static str;
    /// Operation id (also the price key).
    const OPERATION_ID: &'static str;
    /// One line.
    const SUMMARY: &'static str;
    /// What the answer contains.
    const DESCRIPTION: &'static str;
    /// Rules across fields.
    fn check(&self) -> Result<(), ApiError> {
        Ok(())
    }
    /// Rules that need the chain registry (a DEX the chain has), still before payment.
    fn check_registry(&self, _chains: &Chains) -> Result<(), ApiError> {
        Ok(())
    }
    /// The chain asked about (every route has one), for the request span.
    fn chain(&self) -> Chain;
    /// Whether the route's analytics are built (otherwise its work answers 501).
    const BUILT: bool = false;
    /// Statuses the route's own work can answer besides the common ones, with their meaning.
    const WORK_ERRORS: &'static [(u16, &'static str)] = &[];
    /// The request field naming a protocol: a value outside its enum is refused as
    /// `unsupported_protocol` rather than `invalid_input` (the service description's 400 for
    /// "unsupported protocol"), with the same details.
    const PROTOCOL_FIELD: Option<&'static str> = None;
    /// The JSON Schema of the 200 answer, when the route has one.
    fn output_schema() -> Option<Value> {
        None
    }
    /// The work the gate runs once paid. Until a route's own issue lands it answers 501,
    /// which the gate never settles.
    fn work(
        self,
        state: Arc<AppState>,
    ) -> impl Future<Output = Result<axum::response::Response, ApiError>> + Send {
        drop(state);
        async move {
            Err(ApiError::new(
                ErrorCode::NotImplemented,
                format!(
                    "{} is validated and priced, but its analytics are not built yet; nothing was charged",
                    Self::PATH
                ),
            ))
        }
    }
}

macro_rules! route {
    (
        $type:ty, $path:literal, $id:literal, $summary:literal, $description:literal
        $(, check = $check:ident)?
        $(, answer = $answer:ty => $work:path)?
        $(, errors = $errors:expr)?
        $(, protocol_field = $protocol:literal)?
    ) => {
        impl AnalyticsRoute for $type {
            const PATH: &'static str = $path;
            const OPERATION_ID: &'static str = $id;
            const SUMMARY: &'static str = $summary;
            const DESCRIPTION: &'static str = $description;
            fn chain(&self) -> Chain { self.chain }
            $(fn check(&self) -> Result<(), ApiError> { <$type>::$check(self) })?
            $(const WORK_ERRORS: &'static [(u16, &'static str)] = $errors;)?
            $(const PROTOCOL_FIELD: Option<&'static str> = Some($protocol);)?
            $(
                const BUILT: bool = true;
                fn output_schema() -> Option<Value> {
                    Some(server_kit::validate::output_schema::<$answer>())
                }
                fn work(
                    self,
                    state: Arc<AppState>,
                ) -> impl Future<Output = Result<axum::response::Response, ApiError>> + Send {
                    async move {
                        $work(&state.chains, &self)
                            .await
                            .map(|answer| Json(answer).into_response())
                    }
                }
            )?
        }
    };
}

route!(
    DexQuoteRequest,
    "/dex/quote",
    "dex_quote",
    "Swap quotes for one pair across every connected DEX, direct and via one intermediate token",
    "Ranked by gross output and by output net of gas at the current gas price; price impact, amount_out_min from the caller tolerance, and every DEX that failed or holds no pool, with its reason. All reads at one block.",
    check = check,
    answer = crate::dex_quote::DexQuoteAnswer => crate::dex_quote::dex_quote,
    errors = &[(422, "no_route: no DEX gave a quote for the pair; details name every DEX, fee tier and leg with its reason. Not charged.")]
);
impl AnalyticsRoute for PoolLiquidityRequest {
    const PATH: &'static str = "/pool/liquidity";
    const OPERATION_ID: &'static str = "pool_liquidity";
    const SUMMARY: &'static str =
        "One DEX pool read from chain with simulated exit impact for 1k to 1M USD both ways";
    const DESCRIPTION: &'static str = "Tokens, fee tier, reserves, in-range liquidity, current tick, exit impact (and ticks crossed) for four USD sizes in both directions, TVL within 1/2/5 % of price, foreign-sourced volume with its age.";
    const BUILT: bool = true;
    const WORK_ERRORS: &'static [(u16, &'static str)] = &[(
        422,
        "unknown_pool: the address is not a pool of a factory the service reads on the chain (checked on chain: its factory() must be a registry DEX's factory that returns it), or the DEX holds no pool for the pair. Not charged.",
    )];
    fn chain(&self) -> Chain {
        self.chain
    }
    fn check(&self) -> Result<(), ApiError> {
        Self::check(self)
    }
    fn check_registry(&self, chains: &Chains) -> Result<(), ApiError> {
        crate::pool_liquidity::pool_ref(chains, self).map(drop)
    }
    fn output_schema() -> Option<Value> {
        Some(server_kit::validate::output_schema::<
            crate::pool_liquidity::PoolLiquidityAnswer,
        >())
    }
    async fn work(self, state: Arc<AppState>) -> Result<axum::response::Response, ApiError> {
        crate::pool_liquidity::pool_liquidity(&state.chains, &state.sources, &self)
            .await
            .map(|answer| Json(answer).into_response())
    }
}
impl AnalyticsRoute for YieldNormalizeRequest {
    const PATH: &'static str = "/yield/normalize";
    const OPERATION_ID: &'static str = "yield_normalize";
    const SUMMARY: &'static str = "Advertised pool APY broken into base yield, emissions, compounding, IL estimate and net yield after gas";
    const DESCRIPTION: &'static str = "Conservative APY, fee APR recomputed from volume, fee tier and TVL, impermanent loss over the real price path with a scenario table, net APY after gas per stake size with the gas units printed. No forecast.";
    const BUILT: bool = true;
    const WORK_ERRORS: &'static [(u16, &'static str)] = &[
        (
            422,
            "ambiguous_pool: the symbol names several pools of the protocol on the chain; details list each candidate's id, TVL and pool meta. Not charged.",
        ),
        (
            422,
            "pool_not_found: the yield directory lists no pool of the protocol on the chain with that id or symbol. Not charged.",
        ),
        (
            502,
            "counterparty_unreachable: the yield directory could not be read. Not charged.",
        ),
    ];
    fn chain(&self) -> Chain {
        self.chain
    }
    fn output_schema() -> Option<Value> {
        Some(server_kit::validate::output_schema::<
            crate::yield_normalize::YieldNormalizeAnswer,
        >())
    }
    async fn work(self, state: Arc<AppState>) -> Result<axum::response::Response, ApiError> {
        crate::yield_normalize::yield_normalize(
            &state.chains,
            &state.sources,
            &state.config.yield_normalize,
            &self,
        )
        .await
        .map(|answer| Json(answer).into_response())
    }
}
impl AnalyticsRoute for OracleCrosscheckRequest {
    const PATH: &'static str = "/oracle/crosscheck";
    const OPERATION_ID: &'static str = "oracle_crosscheck";
    const SUMMARY: &'static str = "One asset price compared across oracle and market sources with age, spread and thin-pool flags";
    const DESCRIPTION: &'static str = "Per source its price, age and a link to verify it; the median next to the full list; maximum deviation in bps; USDT-quoted sources named and excluded from the median; thin-pool flags with the threshold used.";
    const BUILT: bool = true;
    const WORK_ERRORS: &'static [(u16, &'static str)] = &[
        (
            422,
            "no_price: no source has a USD price for the asset on the chain (no feed, no pool, not listed; the message names each source with its reason). An empty answer, not charged.",
        ),
        (
            502,
            "counterparty_unreachable: no source gave a USD price and at least one failed to answer (the message names each with its reason), or the chain could not be read. Not charged.",
        ),
    ];
    fn chain(&self) -> Chain {
        self.chain
    }
    fn output_schema() -> Option<Value> {
        Some(server_kit::validate::output_schema::<
            crate::oracle_crosscheck::OracleCrosscheckAnswer,
        >())
    }
    async fn work(self, state: Arc<AppState>) -> Result<axum::response::Response, ApiError> {
        crate::oracle_crosscheck::oracle_crosscheck(
            &state.chains,
            &state.sources,
            &state.config.crosscheck,
            &self,
        )
        .await
        .map(|answer| Json(answer).into_response())
    }
}
route!(
    LendingHealthRequest,
    "/lending/health",
    "lending_health",
    "A wallet's lending position with liquidation prices and health factor under price scenarios",
    "Per collateral the oracle price at which the health factor reaches one (or why none can), health factor per scenario (uniform fall of all collateral, debt nominal), collateral, debts, LTV, thresholds, bonus and rates at one block.",
    answer = crate::lending_health::LendingHealthAnswer => crate::lending_health::lending_health,
    protocol_field = "protocol"
);
impl AnalyticsRoute for MevRiskRequest {
    const PATH: &'static str = "/mev/risk";
    const OPERATION_ID: &'static str = "mev_risk";
    const SUMMARY: &'static str = "Sandwich-attack profit estimate for one swap against attack gas cost, past sandwiches, mitigations";
    const DESCRIPTION: &'static str = "Exact maximum loss under the tolerance, estimated attacker profit vs two-transaction gas cost, model error against the official quoter, public-mempool statement, sandwiches counted in the scanned window, mitigations with numbers.";
    const BUILT: bool = true;
    const WORK_ERRORS: &'static [(u16, &'static str)] = &[
        (
            422,
            "unknown_pool: route is not a pool that a factory the service reads returns for token_in/token_out. Not charged.",
        ),
        (
            422,
            "no_route: no DEX gave a direct quote for the pair at the block. Not charged.",
        ),
    ];
    fn chain(&self) -> Chain {
        self.chain
    }
    fn check(&self) -> Result<(), ApiError> {
        Self::check(self)
    }
    fn check_registry(&self, chains: &Chains) -> Result<(), ApiError> {
        if let Some(route) = &self.route {
            crate::answer::address(&route.0, "route")?;
        }
        chains.info(self.chain).map(drop)
    }
    fn output_schema() -> Option<Value> {
        Some(server_kit::validate::output_schema::<
            crate::mev_risk::MevRiskAnswer,
        >())
    }
    async fn work(self, state: Arc<AppState>) -> Result<axum::response::Response, ApiError> {
        // Half the time budget for the history scan: a slow eth_getLogs drops the history, not
        // the answer.
        let history = crate::mev_risk::HistoryOptions {
            window_blocks: state.config.mev_history_window_blocks,
            budget: std::time::Duration::from_secs(state.config.time_budget_seconds) / 2,
        };
        crate::mev_risk::mev_risk_within(&state.chains, &self, history)
            .await
            .map(|answer| Json(answer).into_response())
    }
}

/// Something done once per paid route; [`for_each_route`] is the one list of routes.
pub(crate) trait RouteVisitor {
    fn visit<R: AnalyticsRoute>(&mut self);
}

pub(crate) fn for_each_route(visitor: &mut impl RouteVisitor) {
    visitor.visit::<DexQuoteRequest>();
    visitor.visit::<PoolLiquidityRequest>();
    visitor.visit::<YieldNormalizeRequest>();
    visitor.visit::<OracleCrosscheckRequest>();
    visitor.visit::<LendingHealthRequest>();
    visitor.visit::<MevRiskRequest>();
}
