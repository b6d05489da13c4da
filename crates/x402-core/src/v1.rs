//! Reading a v1 `X-PAYMENT` payload and mapping it onto v2. v1 has no `accepted`: the payment
//! names only scheme and network (a name such as `base`), so the v2 form takes our own
//! requirement for that scheme and network as `accepted`; the amount and recipient are then
//! checked against the signed authorization like any v2 payment.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::types::{PaymentPayload, PaymentRequirements, X402_VERSION};

/// A v1 payment payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayloadV1 {
    /// Always 1.
    pub x402_version: u32,
    /// Scheme name.
    pub scheme: String,
    /// v1 network name (`base`, `base-sepolia`, …).
    pub network: String,
    /// Scheme-specific proof, the same shape as v2's for `exact` EVM.
    pub payload: Value,
}

/// The chain id of a v1 network name (`@x402/evm` v1 map).
pub fn v1_network_chain_id(name: &str) -> Option<u64> {
    Some(match name {
        "base" => 8453,
        "base-sepolia" => 84532,
        "ethereum" => 1,
        "sepolia" => 11155111,
        "polygon" => 137,
        "polygon-amoy" => 80002,
        "avalanche" => 43114,
        "avalanche-fuji" => 43113,
        "arbitrum" => 42161,
        "optimism" => 10,
        _ => return None,
    })
}

impl PaymentPayloadV1 {
    /// The v2 payload this is, given the requirements we offered; `None` when no requirement
    /// has its scheme and network.
    pub fn into_v2(self, offered: &[PaymentRequirements]) -> Option<PaymentPayload> {
        let network = format!("eip155:{}", v1_network_chain_id(&self.network)?);
        let accepted = offered
            .iter()
            .find(|req| req.scheme == self.scheme && req.network == network)?
            .clone();
        Some(PaymentPayload {
            x402_version: X402_VERSION,
            resource: None,
            accepted,
            payload: self.payload,
            extensions: None,
        })
    }
}

/// A decoded payment header of either version.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyPaymentPayload {
    /// v2 (`PAYMENT-SIGNATURE`).
    V2(Box<PaymentPayload>),
    /// v1 (`X-PAYMENT`).
    V1(PaymentPayloadV1),
}

impl AnyPaymentPayload {
    /// Decodes a header value by its `x402Version`.
    pub fn decode(header: &str) -> Result<Self, crate::codec::CodecError> {
        let value: Value = crate::codec::decode_header(header)?;
        if value.get("x402Version").and_then(Value::as_u64) == Some(1) {
            Ok(Self::V1(serde_json::from_value(value)?))
        } else {
            Ok(Self::V2(Box::new(serde_json::from_value(value)?)))
        }
    }

    /// The v2 form against our requirements; `None` if a v1 payload matches none.
    pub fn into_v2(self, offered: &[PaymentRequirements]) -> Option<PaymentPayload> {
        match self {
            Self::V2(payload) => Some(*payload),
            Self::V1(payload) => payload.into_v2(offered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy::primitives::{U256, address};
    use serde_json::json;

    #[test]
    fn maps_a_v1_base_payment_onto_our_requirement() {
        let terms = crate::terms::PaymentTerms::base_usdc(address!(
            "209693Bc6afc0C5328bA36FaF03C514EF312287C"
        ));
        let ours = terms.requirements(U256::from(5_000u64), 80);
        let v1 = json!({"x402Version": 1, "scheme": "exact", "network": "base",
            "payload": {"signature": "0x00", "authorization": {}}});
        let header = crate::codec::encode_header(&v1).expect("encodes");
        let decoded = AnyPaymentPayload::decode(&header).expect("decodes");
        assert!(matches!(decoded, AnyPaymentPayload::V1(_)));
        let v2 = decoded.into_v2(std::slice::from_ref(&ours)).expect("maps");
        assert_eq!(v2.accepted, ours);
        assert_eq!(v2.x402_version, 2);
        assert_eq!(v2.payload["signature"], "0x00");

        let sepolia =
            json!({"x402Version": 1, "scheme": "exact", "network": "base-sepolia", "payload": {}});
        let header = crate::codec::encode_header(&sepolia).expect("encodes");
        assert!(
            AnyPaymentPayload::decode(&header)
                .expect("decodes")
                .into_v2(&[ours])
                .is_none()
        );
    }
}
