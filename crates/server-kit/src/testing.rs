//! Test support for the servers' own tests (feature `testing`): a stand-in facilitator on a
//! wiremock server, and payments signed by a fixed test key.

use alloy::primitives::keccak256;
use alloy::signers::local::PrivateKeySigner;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};
use x402_core::{PaymentRequired, encode_header};

/// The address of the test payer (the key is `keccak256("server-kit-test-payer")`).
pub fn test_payer() -> PaymentSigner {
    let key = PrivateKeySigner::from_bytes(&keccak256("server-kit-test-payer"))
        .unwrap_or_else(|e| panic!("the test key is valid: {e}"));
    PaymentSigner::new(key, 8453)
}

/// The `PAYMENT-SIGNATURE` value paying `terms`, with a nonce derived from `label` (so two
/// labels are two payments and one label is a replay).
pub fn payment_signature(terms: &PaymentRequired, label: &str) -> String {
    let window = AuthorizationWindow {
        valid_after: 0,
        valid_before: 4_102_444_800,
        nonce: keccak256(label),
    };
    let accepted = terms
        .accepts
        .first()
        .unwrap_or_else(|| panic!("the terms offer something"));
    let payload = test_payer()
        .pay(accepted, Some(terms.resource.clone()), window)
        .unwrap_or_else(|e| panic!("the test payer signs: {e}"));
    encode_header(&payload).unwrap_or_else(|e| panic!("the payment encodes: {e}"))
}

/// Mounts `/verify` (always valid) and `/settle` (successful) on `facilitator`, expecting
/// exactly `settlements` settlements; wiremock checks the count when the server is dropped.
pub async fn mount_paying_facilitator(facilitator: &MockServer, settlements: u64) {
    let payer = test_payer().address().to_checksum(None);
    Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"isValid": true, "payer": payer})),
        )
        .mount(facilitator)
        .await;
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "success": true,
            "network": "eip155:8453",
            "transaction": format!("0x{}", "ab".repeat(32)),
            "payer": payer,
        })))
        .expect(settlements)
        .named("settlements")
        .mount(facilitator)
        .await;
}
