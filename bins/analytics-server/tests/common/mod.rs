//! What the paid snapshot tests share: the analytics app in process, paid through a wiremock
//! facilitator, reading a wiremock chain node that replays a JSON-RPC recording made on the
//! committed devnet (`testdata/rpc-recordings/`, written by `cargo xtask record-rpc`).

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use alloy::primitives::{Address, U256, address};
use analytics_server::config::ChainEndpoint;
use analytics_server::requests::Chain;
use analytics_server::{AnalyticsConfig, AppState, router};
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use server_kit::testing::{TestApp, payment_signature};
use test_devnet::{DevnetError, PaidCall, PaidDevnet, RpcRecording};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};
use x402_core::{PaymentRequired, decode_header};

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
    pub(crate) app: TestApp,
    pub(crate) node: MockServer,
    pub(crate) facilitator: MockServer,
    pub(crate) recording: RpcRecording,
    /// The route posted to.
    pub(crate) route: &'static str,
}

impl World {
    /// The app on `route`, its node replaying `testdata/rpc-recordings/<recording>.json`.
    pub(crate) async fn replaying(route: &'static str, recording: &str) -> Self {
        Self::replaying_with(route, recording, |_| ()).await
    }

    /// [`Self::replaying`], with the configuration changed by `configure` (foreign sources).
    pub(crate) async fn replaying_with(
        route: &'static str,
        recording: &str,
        configure: impl FnOnce(&mut AnalyticsConfig),
    ) -> Self {
        Self::replaying_altered(route, recording, |_| (), configure).await
    }

    /// [`Self::replaying_with`] on the recording as `alter` changes it (a node that answers
    /// one call otherwise than the devnet did).
    pub(crate) async fn replaying_altered(
        route: &'static str,
        recording: &str,
        alter: impl FnOnce(&mut RpcRecording),
        configure: impl FnOnce(&mut AnalyticsConfig),
    ) -> Self {
        let mut recording =
            RpcRecording::load(&test_devnet::recordings_dir().join(format!("{recording}.json")))
                .expect("recording (cargo xtask record-rpc writes it)");
        alter(&mut recording);
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
        configure(&mut config);
        let app = TestApp::new(router(AppState::new(config).expect("config")))
            .with_host("analytics.test");
        Self {
            app,
            node,
            facilitator,
            recording,
            route,
        }
    }

    pub(crate) async fn post(&self, headers: &[(&str, &str)]) -> (StatusCode, HeaderMap, Value) {
        let reply = self
            .app
            .post(self.route, headers, self.recording.request.to_string())
            .await;
        let body = reply.json();
        (reply.status, reply.headers, body)
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
        let signature = payment_signature(&terms, &self.recording.description);
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

/// The analytics app on a free loopback port, paid through the devnet's local facilitator and
/// reading chain `base` at `rpc_url` (the devnet, or a proxy in front of it) with the registry
/// overridden as `cargo xtask` configures it, after `configure`.
pub(crate) async fn devnet_app(
    world: &PaidDevnet,
    rpc_url: &str,
    configure: impl FnOnce(&mut AnalyticsConfig),
) -> Result<String, DevnetError> {
    let mut config = AnalyticsConfig::default();
    test_devnet::paid::pay_locally(&mut config.common, &world.info)?;
    let registry = world.chain.addresses.server_override();
    config.chains.insert(
        Chain::Base,
        ChainEndpoint::at(rpc_url, registry.tokens, registry.contracts),
    );
    configure(&mut config);
    let state = AppState::new(config).map_err(|e| DevnetError::Process(e.to_string()))?;
    test_devnet::paid::serve(router(state)).await
}

/// Serves the app ([`devnet_app`]) and calls `route` on it with `body`, paid by the devnet's
/// funded payer through the official x402 client.
pub(crate) async fn devnet_paid_call(
    world: &PaidDevnet,
    rpc_url: &str,
    configure: impl FnOnce(&mut AnalyticsConfig),
    route: &str,
    body: Value,
) -> PaidCall {
    let base = devnet_app(world, rpc_url, configure).await.expect("serve");
    world
        .paid_call(&format!("{base}{route}"), body)
        .await
        .expect("client.mjs")
}

/// A paid call to `route` whose chain node is down (a closed loopback port): the 402 needs no
/// chain read, the paid retry is 502 and nothing is settled.
pub(crate) async fn assert_node_down_is_502(
    world: &PaidDevnet,
    configure: impl FnOnce(&mut AnalyticsConfig),
    route: &str,
    body: Value,
) {
    let closed = test_devnet::paid::closed_loopback_url().expect("a free port");
    let call = devnet_paid_call(world, &closed, configure, route, body).await;
    assert_eq!(
        call.report["first"]["status"], 402,
        "the terms need no chain read"
    );
    call.assert_refused_unsettled(502, "counterparty_unreachable");
}

/// A paid call to `route` through a node that answers each request after 1.5 s with a 2 s
/// budget (each request stays within the client's 6 s per-call timeout, two or more round
/// trips do not fit): 504 and nothing settled.
pub(crate) async fn assert_slow_node_is_504(
    world: &PaidDevnet,
    configure: impl FnOnce(&mut AnalyticsConfig),
    route: &str,
    body: Value,
) {
    let slow =
        test_devnet::RpcProxy::start(&world.info.rpc_url, std::time::Duration::from_millis(2_500))
            .await
            .expect("proxy");
    let call = devnet_paid_call(
        world,
        &slow.url,
        |config| {
            configure(config);
            config.time_budget_seconds = 2;
        },
        route,
        body,
    )
    .await;
    assert_eq!(call.report["first"]["status"], 402);
    call.assert_refused_unsettled(504, "time_budget_exceeded");
}

/// The `[sources]` section the devnet's stand-in prints, as the server reads it, with the
/// answer cache off so every call reaches the stand-in.
pub(crate) fn standin_sources(
    standin: &test_devnet::standin::StandIn,
) -> oracle_sources::SourcesConfig {
    #[derive(serde::Deserialize)]
    struct Section {
        sources: oracle_sources::SourcesConfig,
    }
    let mut sources = toml::from_str::<Section>(&standin.sources_toml())
        .expect("the stand-in's [sources] section")
        .sources;
    sources.cache_ttl_seconds = 0;
    sources
}

/// The configuration `cargo xtask devnet start` writes for the stand-in: its `[sources]` and
/// the devnet feeds' accepted descriptions.
pub(crate) fn with_standin(
    world: &PaidDevnet,
    standin: &test_devnet::standin::StandIn,
) -> impl FnOnce(&mut AnalyticsConfig) + use<> {
    let sources = standin_sources(standin);
    let descriptions = world.chain.addresses.feed_descriptions();
    move |config| {
        config.sources = sources;
        config.crosscheck.feed_descriptions = descriptions;
    }
}
