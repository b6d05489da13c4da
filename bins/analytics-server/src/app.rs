//! The router: six paid routes behind the payment gate, the discovery documents and the
//! operational routes.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Map, Value, json};
use server_kit::config::ConfigError;
use server_kit::discovery::{
    self, CataloguePrice, Discovery, PaidRouteDoc, RouteInput, ServiceDoc,
};
use server_kit::http::{RawJsonBody, ReadinessCheck, base_url};
use server_kit::mcp::McpSettings;
use server_kit::{
    ApiError, ErrorCode, JsonValidator, PaidRequest, PaymentGate, RequestFingerprint,
};
use tracing::Instrument;
use x402_core::{format_units_fixed, parse_units_exact};

use crate::chains::Chains;
use crate::config::AnalyticsConfig;
use crate::requests;
use crate::routes::{AnalyticsRoute, RouteVisitor, for_each_route};
use crate::state::{AppState, RouteEntry};

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
            input: RouteInput::with_output(
                validator.schema().clone(),
                requests::example(R::OPERATION_ID),
                R::output_schema().as_ref(),
            ),
            pricing_mode: "fixed",
            price: json!({"amount": display, "amount_atomic": amount.to_string(), "per": "call"}),
            catalogue_price: CataloguePrice::Fixed(display.clone()),
            price_label: format!("{display} USDC per call"),
            output_schema: R::output_schema(),
            service_name: SERVICE_NAME,
            tags: TAGS,
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
            title: SERVICE_NAME,
            tags: TAGS,
            summary: "Paid read-only analytics over EVM chains: DEX quotes, pools, yields, oracles, lending, MEV.",
            registry_name: "analytics",
            version: env!("CARGO_PKG_VERSION"),
            description: "Read-only analytics over EVM chains (base, ethereum, arbitrum, optimism, polygon): DEX quotes, pool liquidity, yield normalisation, oracle cross-checks, lending health and MEV risk. Reads chain state and public data; signs and sends nothing; recommends nothing. Estimates are labelled and their assumptions printed.",
            network: self.terms.network(),
            asset: self.terms.asset.to_checksum(None),
            asset_symbol: "USDC",
            pay_to: self.terms.pay_to.to_checksum(None),
            also_accepted: self.gate.also_accepted(),
        }
    }

    fn readiness_checks(&self) -> Vec<ReadinessCheck> {
        let mut checks = self.gate.payment_readiness();
        checks.extend(self.gate.state_readiness());
        checks
    }
}

/// The service's name (its title, short enough for the bazaar's 32-character service name).
const SERVICE_NAME: &str = "On-chain finance analytics";
/// Catalogue tags: what the routes cover.
const TAGS: &[&str] = &["defi", "dex", "oracle", "lending", "mev"];

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
