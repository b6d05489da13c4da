//! The in-process document app the integration tests talk to, and the PDFs they build: a
//! wiremock server stands in for the facilitator and for web servers; the extraction runs in
//! real worker processes of the docs-server executable cargo built for the tests.

#![allow(dead_code, unreachable_pub)]

pub mod hostile;
pub mod pdf;

use std::path::PathBuf;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use docs_server::{AppState, DocsConfig, router};
use serde_json::{Value, json};
pub use server_kit::testing::{Reply, TestApp};
use wiremock::MockServer;

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

/// The document app in process ([`TestApp`], host `docs.test`) and its stand-in facilitator.
pub struct App {
    pub app: TestApp,
    pub facilitator: MockServer,
}

/// The configuration of a test app: worker processes from the built executable, one engine.
pub fn test_config(facilitator: &MockServer) -> DocsConfig {
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    config.common.payment.pay_to = Some(serde_json::from_value(json!(PAY_TO)).expect("address"));
    config.common.facilitator.url = Some(facilitator.uri());
    config.ocr.engines = Some(1);
    // The in-process client is a loopback peer: /mcp accepts its `Host` as the public one.
    config.common.public_url = Some("http://docs.test".into());
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
        Self {
            app: TestApp::new(router(state)).with_host("docs.test"),
            facilitator,
        }
    }

    pub async fn post(&self, body: &Value, payment: Option<&str>) -> Reply {
        self.post_to("/document", body, payment).await
    }

    pub async fn get(&self, route: &str) -> Reply {
        self.app.get(route).await
    }

    pub async fn post_to(&self, route: &str, body: &Value, payment: Option<&str>) -> Reply {
        self.app.post_json(route, body, payment).await
    }

    /// The 402, then the same request paid with a payment labelled `label`.
    pub async fn pay(&self, body: &Value, label: &str) -> Reply {
        self.pay_to("/document", body, label).await
    }

    pub async fn pay_to(&self, route: &str, body: &Value, label: &str) -> Reply {
        self.app.pay(route, body, label).await
    }
}
