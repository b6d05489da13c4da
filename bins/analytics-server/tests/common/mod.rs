//! What the paid snapshot tests share: the analytics app in process, paid through a wiremock
//! facilitator, reading a wiremock chain node that replays a JSON-RPC recording made on the
//! committed devnet (`testdata/rpc-recordings/`, written by `cargo xtask record-rpc`).

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::net::SocketAddr;

use alloy::primitives::{Address, U256, address, keccak256};
use alloy::signers::local::PrivateKeySigner;
use analytics_server::config::ChainEndpoint;
use analytics_server::requests::Chain;
use analytics_server::{AnalyticsConfig, AppState, router};
use axum::body::{Body, to_bytes};
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{HeaderMap, Request, StatusCode};
use serde_json::{Value, json};
use test_devnet::RpcRecording;
use tower::ServiceExt as _;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};
use x402_core::{PaymentRequired, decode_header, encode_header};

pub(crate) const PAY_TO: Address = address!("209693Bc6afc0C5328bA36FaF03C514EF312287C");

/// A chain node that knows only the recorded calls: anything else is a JSON-RPC error, so a
/// handler that sends another call than it did when recording fails loudly.
pub(crate) struct Replay(pub(crate) RpcRecording);

impl Respond for Replay {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        match self.0.answer(&body) {
            Some(answer) => ResponseTemplate::new(200).set_body_json(answer),
            None => ResponseTemplate::new(200)
                .set_body_json(json!({"jsonrpc": "2.0", "id": body["id"],
                "error": {"code": -32000, "message": format!("not in the recording: {body}")}})),
        }
    }
}

pub(crate) struct World {
    pub(crate) router: axum::Router,
    pub(crate) node: MockServer,
    pub(crate) facilitator: MockServer,
    pub(crate) recording: RpcRecording,
    /// The route posted to.
    pub(crate) route: &'static str,
}

impl World {
    /// The app on `route`, its node replaying `testdata/rpc-recordings/<recording>.json`.
    pub(crate) async fn replaying(route: &'static str, recording: &str) -> Self {
        let recording =
            RpcRecording::load(&test_devnet::recordings_dir().join(format!("{recording}.json")))
                .expect("recording (cargo xtask record-rpc writes it)");
        let node = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(Replay(recording.clone()))
            .mount(&node)
            .await;
        let facilitator = MockServer::start().await;
        let mut config = AnalyticsConfig::default();
        config.common.payment.pay_to = Some(PAY_TO);
        config.common.facilitator.url = Some(facilitator.uri());
        config.chains.insert(
            Chain::Base,
            ChainEndpoint::at(
                &node.uri(),
                recording.tokens.clone(),
                recording.contracts.clone(),
            ),
        );
        let router = router(AppState::new(config).expect("config"))
            .layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 9))));
        Self {
            router,
            node,
            facilitator,
            recording,
            route,
        }
    }

    pub(crate) async fn post(&self, headers: &[(&str, &str)]) -> (StatusCode, HeaderMap, Value) {
        let mut request = Request::post(self.route)
            .header("host", "analytics.test")
            .header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = self
            .router
            .clone()
            .oneshot(
                request
                    .body(Body::from(self.recording.request.to_string()))
                    .expect("request"),
            )
            .await
            .expect("infallible");
        let (parts, body) = response.into_parts();
        let body = to_bytes(body, usize::MAX).await.expect("body");
        (
            parts.status,
            parts.headers,
            serde_json::from_slice(&body).expect("JSON"),
        )
    }

    /// Pays for the recorded request: 402 terms, a signed authorization, the paid retry.
    pub(crate) async fn paid(&self, settles: bool) -> (StatusCode, HeaderMap, Value) {
        let (status, headers, _) = self.post(&[]).await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
        assert_eq!(
            self.node.received_requests().await.map(|r| r.len()),
            Some(0),
            "the 402 reads nothing from the chain"
        );
        let terms: PaymentRequired =
            decode_header(headers["payment-required"].to_str().expect("ascii")).expect("terms");
        Mock::given(method("POST"))
            .and(path("/verify"))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"isValid": true, "payer": "0x8d548B243730550eFD52D67A4cA9200EabA26319"}),
            ))
            .expect(1)
            .mount(&self.facilitator)
            .await;
        Mock::given(method("POST"))
            .and(path("/settle"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "success": true, "network": "eip155:8453",
                "transaction": format!("0x{}", "ab".repeat(32)),
                "payer": "0x8d548B243730550eFD52D67A4cA9200EabA26319"})))
            .expect(u64::from(settles))
            .mount(&self.facilitator)
            .await;
        let payer = PaymentSigner::new(
            PrivateKeySigner::from_bytes(&keccak256("paid-snapshot-test-payer")).expect("key"),
            8453,
        );
        let window = AuthorizationWindow {
            valid_after: 0,
            valid_before: 4_102_444_800,
            nonce: keccak256(self.recording.description.as_bytes()),
        };
        let payload = payer
            .pay(&terms.accepts[0], Some(terms.resource.clone()), window)
            .expect("signs");
        let signature = encode_header(&payload).expect("encodes");
        self.post(&[("payment-signature", &signature)]).await
    }

    pub(crate) async fn node_requests(&self) -> u64 {
        self.node
            .received_requests()
            .await
            .map(|r| r.len() as u64)
            .unwrap_or_default()
    }
}

pub(crate) fn atomic(value: &Value) -> U256 {
    value["atomic"]
        .as_str()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("atomic amount in {value}"))
}
