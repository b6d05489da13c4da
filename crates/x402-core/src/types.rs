//! x402 v2 wire types (`specs/x402-specification-v2.md` §5), serialised exactly as the official
//! clients and facilitators spell them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol version this crate speaks on the wire.
pub const X402_VERSION: u32 = 2;

/// The `PAYMENT-REQUIRED` header's content: the terms a client must meet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequired {
    /// Always 2.
    pub x402_version: u32,
    /// Why payment is required again (`"Payment required"` or a verification reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The resource being sold.
    pub resource: ResourceInfo,
    /// The acceptable ways to pay; at least one.
    pub accepts: Vec<PaymentRequirements>,
    /// Protocol extensions such as `bazaar`, keyed by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// What is being paid for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// Absolute URL of the resource.
    pub url: String,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of the successful answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The service's name for catalogues (the bazaar's service metadata: at most 32
    /// printable ASCII characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// Catalogue tags (the bazaar's service metadata: at most 5, each at most 32 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// The service's icon (the bazaar's service metadata: an http(s) URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
}

/// One acceptable payment: scheme, network, asset, exact amount and recipient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequirements {
    /// Payment scheme, `"exact"` here.
    pub scheme: String,
    /// CAIP-2 network id, e.g. `eip155:8453`.
    pub network: String,
    /// Amount in the asset's atomic units, as a decimal string.
    pub amount: String,
    /// Token contract address.
    pub asset: String,
    /// Recipient address.
    pub pay_to: String,
    /// How long the authorization must stay valid for the server to finish and settle.
    pub max_timeout_seconds: u64,
    /// Scheme data; for EIP-3009 the token's EIP-712 domain `name` and `version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Map<String, Value>>,
}

/// The `PAYMENT-SIGNATURE` header's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayload {
    /// Always 2 (a v1 `X-PAYMENT` payload is mapped onto this form by the `v1` module).
    pub x402_version: u32,
    /// The resource, echoed by the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceInfo>,
    /// The requirement the client chose, echoed verbatim.
    pub accepted: PaymentRequirements,
    /// Scheme-specific proof; see [`ExactEvmPayload`].
    pub payload: Value,
    /// Extensions echoed (and possibly extended) by the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// The `exact` scheme's EVM proof: an EIP-3009 authorization and its signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactEvmPayload {
    /// 0x-hex signature: 65 bytes for an EOA, longer for contract wallets.
    pub signature: String,
    /// The signed `TransferWithAuthorization` fields.
    pub authorization: AuthorizationWire,
}

/// `TransferWithAuthorization` as it travels: every number a decimal string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationWire {
    /// Payer.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// Atomic amount.
    pub value: String,
    /// Unix seconds after which the authorization is usable.
    pub valid_after: String,
    /// Unix seconds before which the authorization is usable.
    pub valid_before: String,
    /// 0x-prefixed 32-byte nonce.
    pub nonce: String,
}

/// Body of a facilitator's `/verify` and `/settle` requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorRequest {
    /// Always 2.
    pub x402_version: u32,
    /// What the client sent.
    pub payment_payload: PaymentPayload,
    /// The server's own requirement that matched `accepted`.
    pub payment_requirements: PaymentRequirements,
}

/// A facilitator's verification verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponse {
    /// Whether the payment may be accepted.
    pub is_valid: bool,
    /// Machine-readable reason when invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_reason: Option<String>,
    /// Human-readable detail when invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_message: Option<String>,
    /// The payer's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
}

impl VerifyResponse {
    /// A valid verdict for `payer`.
    pub fn valid(payer: String) -> Self {
        Self {
            is_valid: true,
            invalid_reason: None,
            invalid_message: None,
            payer: Some(payer),
        }
    }

    /// An invalid verdict with a reason code and a detail.
    pub fn invalid(reason: &str, message: impl Into<String>, payer: Option<String>) -> Self {
        Self {
            is_valid: false,
            invalid_reason: Some(reason.to_owned()),
            invalid_message: Some(message.into()),
            payer,
        }
    }
}

/// A settlement outcome; sent back to the client base64-encoded in `PAYMENT-RESPONSE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettleResponse {
    /// Whether the funds moved.
    pub success: bool,
    /// Machine-readable reason on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_reason: Option<String>,
    /// Human-readable detail on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The payer's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
    /// Transaction hash; empty on failure.
    #[serde(default)]
    pub transaction: String,
    /// CAIP-2 network id.
    pub network: String,
    /// Extension members (the server's signed `offer-receipt` receipt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

impl SettleResponse {
    /// A failed settlement.
    pub fn failed(
        network: &str,
        reason: &str,
        message: impl Into<String>,
        payer: Option<String>,
    ) -> Self {
        Self {
            success: false,
            error_reason: Some(reason.to_owned()),
            error_message: Some(message.into()),
            payer,
            transaction: String::new(),
            network: network.to_owned(),
            extensions: None,
        }
    }
}

/// A facilitator's `/supported` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SupportedResponse {
    /// Supported (version, scheme, network) triples.
    pub kinds: Vec<SupportedKind>,
    /// Extension keys the facilitator understands.
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Settlement signer addresses by CAIP-2 pattern.
    #[serde(default)]
    pub signers: BTreeMap<String, Vec<String>>,
}

/// One supported payment kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SupportedKind {
    /// Protocol version.
    pub x402_version: u32,
    /// Scheme name.
    pub scheme: String,
    /// CAIP-2 network id.
    pub network: String,
    /// Scheme data, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Map<String, Value>>,
}

impl SupportedResponse {
    /// Whether `(version 2, scheme, network)` is among the kinds.
    pub fn supports(&self, scheme: &str, network: &str) -> bool {
        self.kinds.iter().any(|kind| {
            kind.x402_version == X402_VERSION && kind.scheme == scheme && kind.network == network
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_use_camel_case_and_omit_absent_extra() {
        let requirements = PaymentRequirements {
            scheme: "exact".into(),
            network: "eip155:8453".into(),
            amount: "5000".into(),
            asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913".into(),
            pay_to: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C".into(),
            max_timeout_seconds: 60,
            extra: None,
        };
        let json = serde_json::to_value(&requirements).expect("serialises");
        assert_eq!(json["payTo"], "0x209693Bc6afc0C5328bA36FaF03C514EF312287C");
        assert_eq!(json["maxTimeoutSeconds"], 60);
        assert!(json.get("extra").is_none());
    }

    #[test]
    fn settle_response_reads_the_official_failure_form() {
        let body = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":"","network":"eip155:8453","payer":"0x1"}"#;
        let parsed: SettleResponse = serde_json::from_str(body).expect("parses");
        assert!(!parsed.success);
        assert_eq!(
            parsed.error_reason.as_deref(),
            Some("invalid_exact_evm_nonce_already_used")
        );
    }
}
