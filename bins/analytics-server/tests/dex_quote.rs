//! `/dex/quote` end to end in process, paid, with the chain node replaced by wiremock replaying
//! JSON-RPC recordings made on the committed devnet (`testdata/rpc-recordings/`, written by
//! `cargo xtask record-rpc`). Each whole answer is an insta snapshot; the facilitator is a
//! wiremock too, so the tests also see what is settled and what is not.

use std::net::SocketAddr;
use std::path::PathBuf;

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

const PAY_TO: Address = address!("209693Bc6afc0C5328bA36FaF03C514EF312287C");

fn recording_path(name: &str) -> PathBuf {
    test_devnet::recordings_dir().join(format!("dex_quote_{name}.json"))
}

/// A chain node that knows only the recorded calls: anything else is a JSON-RPC error, so a
/// handler that sends another call than it did when recording fails loudly.
struct Replay(RpcRecording);

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

struct World {
    router: axum::Router,
    node: MockServer,
    facilitator: MockServer,
    recording: RpcRecording,
}

impl World {
    async fn replaying(name: &str) -> Self {
        let recording = RpcRecording::load(&recording_path(name))
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
            ChainEndpoint {
                rpc_urls: vec![node.uri()],
                rpc_url: None,
                tokens: recording.tokens.clone(),
                contracts: recording.contracts.clone(),
            },
        );
        let router = router(AppState::new(config).expect("config"))
            .layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 9))));
        Self {
            router,
            node,
            facilitator,
            recording,
        }
    }

    async fn post(&self, headers: &[(&str, &str)]) -> (StatusCode, HeaderMap, Value) {
        let mut request = Request::post("/dex/quote")
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
    async fn paid(&self, settles: bool) -> (StatusCode, HeaderMap, Value) {
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
            PrivateKeySigner::from_bytes(&keccak256("dex-quote-test-payer")).expect("key"),
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

    async fn node_requests(&self) -> u64 {
        self.node
            .received_requests()
            .await
            .map(|r| r.len() as u64)
            .unwrap_or_default()
    }
}

fn atomic(value: &Value) -> U256 {
    value["atomic"]
        .as_str()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("atomic amount in {value}"))
}

#[tokio::test]
async fn weth_to_usdc_is_quoted_on_every_pool_at_one_block() {
    let world = World::replaying("weth_usdc").await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    assert_eq!(world.node_requests().await, world.recording.http_requests);
    assert_eq!(answer["rpc_round_trips"], 2);
    assert_eq!(answer["block_number"], 739);

    let quotes = answer["quotes"].as_array().expect("quotes");
    assert_eq!(quotes.len(), 6, "four V3 tiers, V2 and Aerodrome volatile");
    let gross: Vec<U256> = quotes.iter().map(|q| atomic(&q["amount_out"])).collect();
    assert!(
        gross.windows(2).all(|w| w[0] >= w[1]),
        "largest gross first"
    );
    assert_eq!(answer["best_by_gross"], quotes[0]);
    // The best net route has the largest net output of all.
    let net = |q: &Value| {
        q["net_amount_out_estimate"]["atomic"]
            .as_str()
            .and_then(|a| a.parse::<i128>().ok())
            .expect("net")
    };
    let best_net = net(&answer["best_by_net"]);
    assert!(quotes.iter().all(|q| net(q) <= best_net));
    // amount_out_min is exactly the tolerance applied to the reference route.
    assert_eq!(answer["reference_route"], "best_by_net");
    let reference = atomic(&answer["best_by_net"]["amount_out"]);
    assert_eq!(
        atomic(&answer["amount_out_min"]),
        reference * U256::from(9_950u32) / U256::from(10_000u32)
    );
    // On the devnet the OP-stack oracle has no code: null, with the reason.
    assert_eq!(answer["l1_data_fee"], Value::Null);
    assert!(
        answer["l1_data_fee_null_reason"]
            .as_str()
            .is_some_and(|r| r.contains("no code"))
    );
    assert_eq!(answer["gas_price_wei"], "1000000008");

    insta::assert_json_snapshot!("dex_quote_weth_usdc", answer);
}

#[tokio::test]
async fn wbtc_to_usdc_prices_two_hop_routes_in_three_round_trips() {
    let world = World::replaying("wbtc_usdc").await;
    let (status, _, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["rpc_round_trips"], 3);
    assert_eq!(world.node_requests().await, 3);
    let quotes = answer["quotes"].as_array().expect("quotes");
    let two_hop: Vec<&Value> = quotes.iter().filter(|q| !q["via"].is_null()).collect();
    assert!(!two_hop.is_empty());
    for quote in &two_hop {
        let legs = quote["legs"].as_array().expect("legs");
        assert_eq!(legs.len(), 2);
        assert_eq!(legs[1]["amount_in"], legs[0]["amount_out"], "legs chain");
        assert_eq!(quote["amount_out"], legs[1]["amount_out"]);
    }
    insta::assert_json_snapshot!("dex_quote_wbtc_usdc", answer);
}

#[tokio::test]
async fn a_pair_without_any_route_is_422_with_every_failure_and_not_settled() {
    let world = World::replaying("link_dai_no_route").await;
    let (status, _, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["error"], "no_route");
    assert_eq!(answer["charged"], false);
    let details = answer["details"].as_array().expect("details");
    for leg in ["direct", "first_leg", "second_leg"] {
        assert!(
            details
                .iter()
                .any(|d| d["field"].as_str().is_some_and(|f| f.contains(leg))),
            "{leg}"
        );
    }
    assert!(details.iter().any(|d| {
        d["field"]
            .as_str()
            .is_some_and(|f| f.starts_with("pancakeswap_v3"))
            && d["problem"] == "not deployed on this chain"
    }));
    insta::assert_json_snapshot!("dex_quote_link_dai_no_route", answer);
}

#[tokio::test]
async fn an_amount_finer_than_the_token_is_a_400_after_discovery_and_not_settled() {
    let world = World::replaying("usdc_too_precise").await;
    let (status, headers, answer) = world.paid(false).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert!(!headers.contains_key("payment-response"));
    assert_eq!(answer["error"], "invalid_input");
    assert_eq!(answer["charged"], false);
    assert_eq!(answer["details"][0]["field"], "amount_in");
    assert_eq!(
        world.node_requests().await,
        1,
        "only the discovery round trip"
    );
    insta::assert_json_snapshot!("dex_quote_usdc_too_precise", answer);
}
