//! A tiny paid app on server-kit for the interop tests and the demo: `POST /paid/echo` answers
//! a fixed JSON document once paid; `POST /paid/fail` is a handler that always fails (so it
//! must never be settled).

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
use x402_core::{Facilitator, Offer, PaymentTerms, ResourceInfo};

/// Price of each test route: 0.005 USDC.
pub const PRICE_ATOMIC: u64 = 5_000;

struct TestApp {
    gate: PaymentGate,
    terms: PaymentTerms,
}

/// Builds the app around `facilitator`.
pub fn router(facilitator: Arc<dyn Facilitator>, terms: PaymentTerms) -> Result<Router> {
    // The configured defaults, with room for the interop tests' many unpaid requests.
    let mut common = CommonConfig::with_listen("127.0.0.1:0");
    common.payment.chain_id = terms.chain_id;
    common.limits.unpaid_per_window = 1000;
    let gate = PaymentGate::from_config_with(&common, facilitator)?;
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
            },
            requirements: app.terms.requirements(U256::from(PRICE_ATOMIC), 60),
            bazaar: Some(Arc::new(bazaar_post_json(json!({}), schema.clone()))),
        },
        input_schema: Arc::new(schema),
        extra_402_body: Map::new(),
        budget: Duration::from_secs(20),
        fingerprint: RequestFingerprint::new(Method::POST, route, body),
    };
    app.gate
        .serve(request, |_| async move {
            if route == "/paid/fail" {
                Err(ApiError::new(
                    ErrorCode::Internal,
                    "this test handler always fails",
                ))
            } else {
                Ok(Json(json!({"answer": "paid content", "route": route})).into_response())
            }
        })
        .await
}

pub use test_devnet::paid::serve as spawn;
