//! The in-process document app the integration tests talk to, and the PDFs they build: a
//! wiremock server stands in for the facilitator and for web servers; the extraction runs in
//! real worker processes of the docs-server executable cargo built for the tests.

#![allow(dead_code, unreachable_pub)]

pub mod pdf;

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{HeaderMap, Request, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use docs_server::{AppState, DocsConfig, router};
use serde_json::{Value, json};
use server_kit::testing::payment_signature;
use tower::ServiceExt as _;
use wiremock::MockServer;
use x402_core::{PaymentRequired, decode_header};

pub const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

/// A committed PDF of testdata/pdf.
pub fn fixture(name: &str) -> Vec<u8> {
    testdata("pdf", name)
}

/// A committed file of testdata/`folder`.
pub fn testdata(folder: &str, name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(folder)
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A `/document` body carrying a committed PDF inline.
pub fn inline(name: &str) -> Value {
    json!({"pdf_base64": STANDARD.encode(fixture(name))})
}

/// A `/document` body carrying `pdf` inline.
pub fn inline_bytes(pdf: &[u8]) -> Value {
    json!({"pdf_base64": STANDARD.encode(pdf)})
}

pub struct App {
    pub router: Router,
    pub facilitator: MockServer,
}

#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    /// The body as sent, for byte-for-byte comparisons.
    pub bytes: Vec<u8>,
}

impl Reply {
    pub fn terms(&self) -> PaymentRequired {
        decode_header(
            self.headers["payment-required"]
                .to_str()
                .expect("ascii header"),
        )
        .expect("PAYMENT-REQUIRED decodes")
    }

    pub fn detail_fields(&self) -> Vec<&str> {
        self.body["details"]
            .as_array()
            .map(|d| d.iter().filter_map(|x| x["field"].as_str()).collect())
            .unwrap_or_default()
    }
}

/// The configuration of a test app: worker processes from the built executable, one engine.
pub fn test_config(facilitator: &MockServer) -> DocsConfig {
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    config.common.payment.pay_to = Some(serde_json::from_value(json!(PAY_TO)).expect("address"));
    config.common.facilitator.url = Some(facilitator.uri());
    config.ocr.engines = Some(1);
    config
}

impl App {
    pub async fn new() -> Self {
        Self::with(|_| {}).await
    }

    pub async fn with(configure: impl FnOnce(&mut DocsConfig)) -> Self {
        let facilitator = MockServer::start().await;
        let mut config = test_config(&facilitator);
        configure(&mut config);
        let state = AppState::new(config).expect("configuration is valid");
        let router = router(state).layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 9))));
        Self {
            router,
            facilitator,
        }
    }

    pub async fn post(&self, body: &Value, payment: Option<&str>) -> Reply {
        self.post_to("/document", body, payment).await
    }

    pub async fn get(&self, route: &str) -> Reply {
        let request = Request::get(route).header("host", "docs.test");
        self.send(request.body(Body::empty()).expect("request"))
            .await
    }

    pub async fn post_to(&self, route: &str, body: &Value, payment: Option<&str>) -> Reply {
        let mut request = Request::post(route)
            .header("host", "docs.test")
            .header("content-type", "application/json");
        if let Some(payment) = payment {
            request = request.header("payment-signature", payment);
        }
        self.send(request.body(Body::from(body.to_string())).expect("request"))
            .await
    }

    async fn send(&self, request: Request<Body>) -> Reply {
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("infallible");
        let (parts, body) = response.into_parts();
        let bytes = to_bytes(body, usize::MAX).await.expect("body");
        Reply {
            status: parts.status,
            headers: parts.headers,
            body: serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("JSON body ({e}): {}", String::from_utf8_lossy(&bytes))),
            bytes: bytes.to_vec(),
        }
    }

    /// The 402, then the same request paid with a payment labelled `label`.
    pub async fn pay(&self, body: &Value, label: &str) -> Reply {
        self.pay_to("/document", body, label).await
    }

    pub async fn pay_to(&self, route: &str, body: &Value, label: &str) -> Reply {
        let unpaid = self.post_to(route, body, None).await;
        assert_eq!(
            unpaid.status,
            StatusCode::PAYMENT_REQUIRED,
            "{}",
            unpaid.body
        );
        let signature = payment_signature(&unpaid.terms(), label);
        self.post_to(route, body, Some(&signature)).await
    }
}
