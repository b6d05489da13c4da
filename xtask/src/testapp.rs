//! A tiny paid app on server-kit for the interop tests and the demo: `POST /paid/echo` answers
//! a fixed JSON document with the request echoed once paid (after `delay_ms` of the body, at
//! most 2 s, so a client can lose the answer mid-work); `POST /paid/fail` is a handler that
//! always fails (so it must never be settled). [`LosingFacilitator`] settles for real and then
//! loses the outcome, for the fault suite.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use alloy::primitives::U256;
use anyhow::Result;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Map, json};
use server_kit::config::CommonConfig;
use server_kit::{ApiError, ErrorCode, PaidRequest, PaymentGate, RequestFingerprint};
use x402_core::terms::bazaar_post_json;
use x402_core::{
    Facilitator, FacilitatorError, Offer, PaymentPayload, PaymentRequirements, PaymentTerms,
    ResourceInfo, SettleResponse, SupportedResponse, VerifyResponse,
};

/// Price of each test route: 0.005 USDC.
pub const PRICE_ATOMIC: u64 = 5_000;

struct TestApp {
    gate: PaymentGate,
    terms: PaymentTerms,
}

/// Builds the app around `facilitator`.
pub fn router(facilitator: Arc<dyn Facilitator>, terms: PaymentTerms) -> Result<Router> {
    router_configured(facilitator, terms, |_| {})
}

/// [`router`] with `configure` applied to its configuration (the configured defaults, with room
/// for the interop tests' many unpaid requests); the gate's pending resolver runs beside it.
pub fn router_configured(
    facilitator: Arc<dyn Facilitator>,
    terms: PaymentTerms,
    configure: impl FnOnce(&mut CommonConfig),
) -> Result<Router> {
    let mut common = CommonConfig::with_listen("127.0.0.1:0");
    common.payment.chain_id = terms.chain_id;
    common.limits.unpaid_per_window = 1000;
    configure(&mut common);
    let gate = PaymentGate::from_config_with(&common, facilitator)?;
    // Ends with the runtime that serves the app.
    drop(gate.spawn_pending_resolver());
    let state = Arc::new(TestApp { gate, terms });
    Ok(Router::new()
        .route(
            "/paid/echo",
            post(|s, c, h, b| handle(s, c, h, b, "/paid/echo")),
        )
        .route(
            "/paid/fail",
            post(|s, c, h, b| handle(s, c, h, b, "/paid/fail")),
        )
        .with_state(state))
}

async fn handle(
    State(app): State<Arc<TestApp>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
    route: &'static str,
) -> Response {
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost")
        .to_owned();
    let admission = match app.gate.admit(peer.ip(), &headers).await {
        Ok(admission) => admission,
        Err(refused) => return refused.into_response(),
    };
    let asked: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let delay = asked
        .get("delay_ms")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
        .min(2_000);
    let schema = json!({"type": "object"});
    let request = PaidRequest {
        route,
        headers,
        admission,
        offer: Offer {
            resource: ResourceInfo {
                url: format!("http://{host}{route}"),
                description: Some("server-kit test route".into()),
                mime_type: Some("application/json".into()),
                ..Default::default()
            },
            requirements: app.terms.requirements(U256::from(PRICE_ATOMIC), 60),
            bazaar: Some(Arc::new(bazaar_post_json(json!({}), schema.clone()))),
        },
        input_schema: Arc::new(schema),
        extra_402_body: Map::new(),
        budget: Duration::from_secs(20),
        fingerprint: RequestFingerprint::new(Method::POST, route, body.clone()),
    };
    app.gate
        .serve(request, |_| async move {
            if route == "/paid/fail" {
                Err(ApiError::new(
                    ErrorCode::Internal,
                    "this test handler always fails",
                ))
            } else {
                tokio::time::sleep(Duration::from_millis(delay)).await;
                Ok(
                    Json(json!({"answer": "paid content", "route": route, "request": asked}))
                        .into_response(),
                )
            }
        })
        .await
}

pub use test_devnet::paid::serve as spawn;

/// A facilitator that settles through `inner` for real and then loses the outcome, as one
/// that times out after broadcasting does: every other settlement (by the nonce's last bit)
/// ends in a timeout ([`FacilitatorError::SettlementUnknown`]), the rest in `settlement_pending`
/// with the transaction. The funds moved either way; only the answer is lost.
#[derive(Debug)]
pub struct LosingFacilitator {
    /// The facilitator that really settles.
    pub inner: Arc<dyn Facilitator>,
}

#[async_trait::async_trait]
impl Facilitator for LosingFacilitator {
    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        self.inner.verify(payload, requirements).await
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettleResponse, FacilitatorError> {
        let settled = self.inner.settle(payload, requirements).await?;
        if !settled.success {
            return Ok(settled);
        }
        let nonce_is_odd = payload.payload["authorization"]["nonce"]
            .as_str()
            .and_then(|nonce| nonce.chars().last())
            .and_then(|digit| digit.to_digit(16))
            .is_some_and(|digit| digit % 2 == 1);
        if nonce_is_odd {
            return Ok(SettleResponse {
                success: false,
                error_reason: Some(x402_core::reasons::SETTLEMENT_PENDING.to_owned()),
                error_message: Some("broadcast; the receipt did not come in time".to_owned()),
                ..settled
            });
        }
        Err(FacilitatorError::SettlementUnknown(
            "the facilitator timed out after broadcasting".to_owned(),
        ))
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        self.inner.supported().await
    }
}
