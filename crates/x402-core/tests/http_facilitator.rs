//! `HttpFacilitator` against a stubbed facilitator: both verdict forms, outages, malformed
//! answers.

use std::time::Duration;

use alloy::primitives::{U256, address, keccak256};
use alloy::signers::local::PrivateKeySigner;
use serde_json::json;
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};
use x402_core::{
    Facilitator, FacilitatorError, HttpFacilitator, PaymentPayload, PaymentRequirements,
    PaymentTerms,
};

fn request() -> (PaymentPayload, PaymentRequirements) {
    let requirements =
        PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"))
            .requirements(U256::from(5_000u64), 60);
    let signer = PaymentSigner::new(
        PrivateKeySigner::from_bytes(&keccak256("payer")).expect("key"),
        8453,
    );
    let window = AuthorizationWindow {
        valid_after: 0,
        valid_before: 4_000_000_000,
        nonce: keccak256("n"),
    };
    (
        signer.pay(&requirements, None, window).expect("signs"),
        requirements,
    )
}

async fn facilitator(server: &MockServer) -> HttpFacilitator {
    let base = format!("{}/facilitator", server.uri())
        .parse()
        .expect("url");
    HttpFacilitator::new(base, Duration::from_secs(2)).expect("client")
}

#[tokio::test]
async fn verify_posts_both_halves_and_reads_a_200_verdict() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .and(path("/facilitator/verify"))
        .and(body_partial_json(
            json!({"x402Version": 2, "paymentRequirements": {"amount": "5000"}}),
        ))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"isValid": true, "payer": "0xabc"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let verdict = facilitator(&server)
        .await
        .verify(&payload, &requirements)
        .await
        .expect("answers");
    assert!(verdict.is_valid);
    assert_eq!(verdict.payer.as_deref(), Some("0xabc"));
}

#[tokio::test]
async fn a_non_2xx_verdict_is_still_a_verdict() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .and(path("/facilitator/verify"))
        .respond_with(ResponseTemplate::new(400).set_body_json(
            json!({"isValid": false, "invalidReason": "invalid_exact_evm_signature", "payer": ""}),
        ))
        .mount(&server)
        .await;
    let verdict = facilitator(&server)
        .await
        .verify(&payload, &requirements)
        .await
        .expect("answers");
    assert!(!verdict.is_valid);
    assert_eq!(
        verdict.invalid_reason.as_deref(),
        Some("invalid_exact_evm_signature")
    );
}

#[tokio::test]
async fn settle_failure_on_200_is_read_as_failure() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .and(path("/facilitator/settle"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "success": false, "errorReason": "invalid_exact_evm_nonce_already_used",
            "transaction": "", "network": "eip155:8453"})))
        .mount(&server)
        .await;
    let settled = facilitator(&server)
        .await
        .settle(&payload, &requirements)
        .await
        .expect("answers");
    assert!(!settled.success);
}

#[tokio::test]
async fn a_500_without_verdict_is_malformed_not_valid() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream exploded"))
        .mount(&server)
        .await;
    let result = facilitator(&server)
        .await
        .verify(&payload, &requirements)
        .await;
    assert!(
        matches!(result, Err(FacilitatorError::Malformed { status: 500, .. })),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_slow_facilitator_times_out_as_unreachable() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(5))
                .set_body_json(json!({"isValid": true})),
        )
        .mount(&server)
        .await;
    let result = facilitator(&server)
        .await
        .verify(&payload, &requirements)
        .await;
    assert!(
        matches!(result, Err(FacilitatorError::Unreachable(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let base = format!("http://127.0.0.1:{port}/").parse().expect("url");
    let client = HttpFacilitator::new(base, Duration::from_secs(1)).expect("client");
    let (payload, requirements) = request();
    assert!(matches!(
        client.verify(&payload, &requirements).await,
        Err(FacilitatorError::Unreachable(_))
    ));
}

#[tokio::test]
async fn supported_is_read() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/facilitator/supported"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "kinds": [{"x402Version": 2, "scheme": "exact", "network": "eip155:8453"}],
            "extensions": [], "signers": {"eip155:*": ["0x1"]}})))
        .mount(&server)
        .await;
    let supported = facilitator(&server)
        .await
        .supported()
        .await
        .expect("answers");
    assert!(supported.supports("exact", "eip155:8453"));
    assert!(!supported.supports("exact", "eip155:1"));
}

#[tokio::test]
async fn a_settle_past_the_timeout_is_an_unknown_outcome_not_an_outage() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .and(path("/facilitator/settle"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(5))
                .set_body_json(
                    json!({"success": true, "transaction": "0x1", "network": "eip155:8453"}),
                ),
        )
        .mount(&server)
        .await;
    let result = facilitator(&server)
        .await
        .settle(&payload, &requirements)
        .await;
    assert!(
        matches!(result, Err(FacilitatorError::SettlementUnknown(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_settle_answered_500_is_an_unknown_outcome_and_a_4xx_a_refusal() {
    let server = MockServer::start().await;
    let (payload, requirements) = request();
    Mock::given(method("POST"))
        .and(path("/facilitator/settle"))
        .respond_with(ResponseTemplate::new(503).set_body_string("try later"))
        .mount(&server)
        .await;
    let client = facilitator(&server).await;
    let result = client.settle(&payload, &requirements).await;
    assert!(
        matches!(result, Err(FacilitatorError::SettlementUnknown(_))),
        "{result:?}"
    );
    server.reset().await;
    Mock::given(method("POST"))
        .and(path("/facilitator/settle"))
        .respond_with(ResponseTemplate::new(400).set_body_string("bad request"))
        .mount(&server)
        .await;
    let result = client.settle(&payload, &requirements).await;
    assert!(
        matches!(result, Err(FacilitatorError::Malformed { status: 400, .. })),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_settle_to_a_closed_port_is_known_not_sent() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    // Credentials in the facilitator URL never reach the error text.
    let base = format!("http://user:FacilitatorPass@127.0.0.1:{port}/v2/AbcdefKey123456789")
        .parse()
        .expect("url");
    let client = HttpFacilitator::new(base, Duration::from_secs(1)).expect("client");
    let (payload, requirements) = request();
    let result = client.settle(&payload, &requirements).await;
    let Err(FacilitatorError::Unreachable(detail)) = result else {
        panic!("expected a known outage: {result:?}");
    };
    assert!(!detail.contains("FacilitatorPass"), "{detail}");
    assert!(!detail.contains("AbcdefKey"), "{detail}");
}
