//! The router: six paid routes behind the payment gate, the discovery documents and the
//! operational routes.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use alloy::primitives::U256;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use server_kit::config::ConfigError;
use server_kit::discovery::{self, Discovery, PaidRouteDoc, RouteInput, ServiceDoc};
use server_kit::http::{RawJsonBody, ReadinessCheck, base_url, facilitator_readiness};
use server_kit::mcp::McpSettings;
use server_kit::{
    ApiError, ErrorCode, JsonValidator, PaidRequest, PaymentGate, RequestFingerprint,
};
use tracing::Instrument;
use x402_core::{PaymentTerms, format_units_fixed, parse_units_exact};

use crate::chains::Chains;
use crate::config::AnalyticsConfig;
use crate::requests::{
    self, Chain, DexQuoteRequest, LendingHealthRequest, MevRiskRequest, OracleCrosscheckRequest,
    PoolLiquidityRequest, YieldNormalizeRequest,
};

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
    const WORK_ERRORS: &'static [(u16, &'static str)] = &[(
        502,
        "counterparty_unreachable: no source gave a USD price (every row failed or was unavailable; the details name each with its reason), or the chain could not be read. Not charged.",
    )];
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
trait RouteVisitor {
    fn visit<R: AnalyticsRoute>(&mut self);
}

fn for_each_route(visitor: &mut impl RouteVisitor) {
    visitor.visit::<DexQuoteRequest>();
    visitor.visit::<PoolLiquidityRequest>();
    visitor.visit::<YieldNormalizeRequest>();
    visitor.visit::<OracleCrosscheckRequest>();
    visitor.visit::<LendingHealthRequest>();
    visitor.visit::<MevRiskRequest>();
}

struct Registrar<'a> {
    state: &'a mut AppState,
    error: Option<ConfigError>,
}

impl RouteVisitor for Registrar<'_> {
    fn visit<R: AnalyticsRoute>(&mut self) {
        if self.error.is_none() {
            self.error = self.state.register::<R>().err();
        }
    }
}

struct Mounter(Router<Arc<AppState>>);

impl RouteVisitor for Mounter {
    fn visit<R: AnalyticsRoute>(&mut self) {
        let router = std::mem::take(&mut self.0);
        self.0 = router.route(R::PATH, post(paid_route::<R>));
    }
}

/// A route as the app runs it: its price and validator.
struct RouteEntry {
    amount: U256,
    validator: Box<dyn Any + Send + Sync>,
    doc: PaidRouteDoc,
}

/// Shared state of the analytics app.
pub struct AppState {
    gate: PaymentGate,
    terms: PaymentTerms,
    config: AnalyticsConfig,
    chains: Chains,
    sources: oracle_sources::Sources,
    routes: HashMap<&'static str, RouteEntry>,
    docs: Vec<PaidRouteDoc>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("terms", &self.terms)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Builds the state: prices parsed, validators compiled, facilitator and gate set up, the
    /// chain registry overridden and one RPC client per chain.
    pub fn new(config: AnalyticsConfig) -> Result<Self, ConfigError> {
        let terms = config.common.payment.terms()?;
        let chains = Chains::from_config(&config.chains)?;
        let gate = PaymentGate::from_config(&config.common)?;
        let sources = oracle_sources::Sources::new(&config.sources)
            .map_err(|e| ConfigError::Invalid(format!("sources: {e}")))?;
        let problems = config.crosscheck.thresholds.problems();
        if !problems.is_empty() {
            return Err(ConfigError::Invalid(format!(
                "crosscheck.thresholds: {}",
                problems.join("; ")
            )));
        }
        let mut state = Self {
            gate,
            terms,
            config,
            chains,
            sources,
            routes: HashMap::new(),
            docs: Vec::new(),
        };
        let mut registrar = Registrar {
            state: &mut state,
            error: None,
        };
        for_each_route(&mut registrar);
        if let Some(error) = registrar.error {
            return Err(error);
        }
        Ok(state)
    }

    fn register<R: AnalyticsRoute>(&mut self) -> Result<(), ConfigError> {
        let price = self.config.prices.of(R::OPERATION_ID).unwrap_or_default();
        let amount = parse_units_exact(price, self.terms.asset_decimals)
            .map_err(|e| ConfigError::Invalid(format!("prices.{}: {e}", R::OPERATION_ID)))?;
        let validator =
            JsonValidator::<R>::new().map_err(|e| ConfigError::Invalid(e.to_string()))?;
        let display = format_units_fixed(amount, self.terms.asset_decimals);
        let doc = PaidRouteDoc {
            path: R::PATH,
            operation_id: R::OPERATION_ID,
            summary: R::SUMMARY,
            description: R::DESCRIPTION.to_owned(),
            input: RouteInput::new(
                validator.schema().clone(),
                requests::example(R::OPERATION_ID),
            ),
            pricing_mode: "fixed",
            price: json!({"amount": display, "amount_atomic": amount.to_string(), "per": "call"}),
            price_label: format!("{display} USDC per call"),
            output_schema: R::output_schema(),
            extra_responses: if R::BUILT {
                R::WORK_ERRORS.to_vec()
            } else {
                vec![(
                    501,
                    "Valid and paid, but this route's work is not built yet. Not charged.",
                )]
            },
        };
        self.docs.push(doc.clone());
        self.routes.insert(
            R::PATH,
            RouteEntry {
                amount,
                validator: Box::new(validator),
                doc,
            },
        );
        Ok(())
    }

    fn service_doc(&self) -> ServiceDoc {
        ServiceDoc {
            title: "On-chain finance analytics",
            description: "Read-only analytics over EVM chains (base, ethereum, arbitrum, optimism, polygon): DEX quotes, pool liquidity, yield normalisation, oracle cross-checks, lending health and MEV risk. Reads chain state and public data; signs and sends nothing; recommends nothing. Estimates are labelled and their assumptions printed.",
            network: self.terms.network(),
            asset: self.terms.asset.to_checksum(None),
            asset_symbol: "USDC",
            pay_to: self.terms.pay_to.to_checksum(None),
        }
    }

    fn readiness_checks(&self) -> Vec<ReadinessCheck> {
        let mut checks = vec![facilitator_readiness(
            self.gate.facilitator().clone(),
            self.terms.network(),
        )];
        checks.extend(self.gate.state_readiness());
        checks
    }
}

/// The whole app.
pub fn router(state: AppState) -> Router {
    let readiness = state.readiness_checks();
    // Stale pending settlements of dead replicas are resolved while the app runs.
    drop(state.gate.spawn_pending_resolver());
    let max_body = state.config.common.limits.max_body_bytes;
    // Sessions live with the gate's shared state: on Redis, every replica knows them.
    let mcp_settings = McpSettings::for_public_url(state.config.common.public_url.as_deref())
        .with_state(state.gate.shared_state().clone());
    let discovery = Discovery {
        service: state.service_doc(),
        paid: state.docs.clone(),
        free: discovery::standard_free_routes("Dependencies reachable (facilitator)"),
        public_url: state.config.common.public_url.clone(),
        trust_forwarded: state.config.common.limits.trust_forwarded,
    };
    let service = discovery.service.clone();
    let paid_docs = discovery.paid.clone();
    let state = Arc::new(state);
    let mut mounter = Mounter(Router::new());
    for_each_route(&mut mounter);
    let paid = mounter
        .0
        .with_state(state)
        .merge(discovery::routes(discovery))
        .merge(server_kit::http::operational_routes(readiness));
    server_kit::mcp::attach(
        server_kit::http::with_shared_layers(paid, max_body),
        service,
        env!("CARGO_PKG_VERSION"),
        &paid_docs,
        mcp_settings,
        max_body,
    )
}

async fn paid_route<R: AnalyticsRoute>(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    RawJsonBody(body): RawJsonBody,
) -> Response {
    // Before the body is parsed: every request counts against its client's unpaid allowance.
    let admission = match state.gate.admit(peer.ip(), &headers).await {
        Ok(admission) => admission,
        Err(refused) => return refused.into_response(),
    };
    let Some(entry) = state.routes.get(R::PATH) else {
        return ApiError::new(ErrorCode::Internal, "route not registered").into_response();
    };
    let Some(validator) = entry.validator.downcast_ref::<JsonValidator<R>>() else {
        return ApiError::new(ErrorCode::Internal, "route validator mismatch").into_response();
    };
    // 1-2: validate, then price (fixed per route).
    let request = match validator
        .parse(&body)
        .map_err(|error| protocol_refusal::<R>(error, &body, validator.schema()))
        .and_then(|request| request.check().map(|()| request))
        .and_then(|request| request.check_registry(&state.chains).map(|()| request))
    {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let budget = Duration::from_secs(state.config.time_budget_seconds);
    let max_timeout =
        state.config.time_budget_seconds + state.config.common.payment.settle_margin_seconds;
    let base = base_url(
        state.config.common.public_url.as_deref(),
        &headers,
        state.config.common.limits.trust_forwarded,
    );
    let offer = entry
        .doc
        .offer(&state.terms, &base, entry.amount, max_timeout);
    let paid = PaidRequest {
        route: R::PATH,
        headers,
        admission,
        offer,
        input_schema: entry.doc.input.schema().clone(),
        extra_402_body: Map::new(),
        budget,
        fingerprint: RequestFingerprint::new(Method::POST, R::PATH, body.clone()),
    };
    let span = tracing::info_span!("analytics", chain = ?request.chain());
    // The work runs inside the gate: whatever it fails with is answered unsettled.
    let work_state = state.clone();
    state
        .gate
        .serve(paid, |_cancel| request.work(work_state))
        .instrument(span)
        .await
}

/// A validation failure on the route's protocol field, when the body names a protocol at all,
/// is `unsupported_protocol`: positions on other protocols are refused, not approximated.
/// Every problem found stays in `details`.
fn protocol_refusal<R: AnalyticsRoute>(error: ApiError, body: &[u8], schema: &Value) -> ApiError {
    let Some(field) = R::PROTOCOL_FIELD else {
        return error;
    };
    let named = serde_json::from_slice::<Value>(body)
        .ok()
        .is_some_and(|value| value.get(field).is_some());
    if error.code != ErrorCode::InvalidInput
        || !named
        || !error.details.iter().any(|detail| detail.field == field)
    {
        return error;
    }
    let supported: Vec<&str> = schema["properties"][field]["enum"]
        .as_array()
        .map(|values| values.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    ApiError {
        code: ErrorCode::UnsupportedProtocol,
        message: format!(
            "{field}: only {} is supported; positions on other protocols are refused, not approximated",
            supported.join(", ")
        ),
        ..error
    }
}
