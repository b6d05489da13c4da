//! Building the terms a route asks for, and matching a client's `accepted` against them.

use std::sync::Arc;

use alloy::primitives::{Address, U256};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::payment_identifier::{OPTIONAL_DECLARATION, PAYMENT_IDENTIFIER};
use crate::types::{PaymentRequired, PaymentRequirements, ResourceInfo, X402_VERSION};

/// The scheme this crate implements.
pub const SCHEME_EXACT: &str = "exact";

/// Base mainnet's chain id.
pub const BASE_CHAIN_ID: u64 = 8453;

/// Base mainnet's USDC (FiatTokenV2_2 proxy).
pub const BASE_USDC: Address =
    alloy::primitives::address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");

/// The `reason` sent when no payment header came with the request.
pub const PAYMENT_REQUIRED_REASON: &str = "Payment required";

/// The `reason` sent when `accepted` matches none of the terms.
pub const NO_MATCHING_REQUIREMENTS: &str = "No matching payment requirements";

/// CAIP-2 id of an EVM chain.
pub fn caip2(chain_id: u64) -> String {
    format!("eip155:{chain_id}")
}

/// The chain id of a CAIP-2 EVM network (`eip155:8453` → 8453).
pub fn chain_id_of(network: &str) -> Option<u64> {
    network.strip_prefix("eip155:")?.parse().ok()
}

/// What a service charges in and to whom: one asset on one chain, one recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentTerms {
    /// EVM chain id (8453 for Base; a devnet may reuse it).
    pub chain_id: u64,
    /// EIP-3009 token contract.
    pub asset: Address,
    /// The token's EIP-712 domain name ("USD Coin" for Base USDC).
    pub asset_name: String,
    /// The token's EIP-712 domain version ("2" for USDC).
    pub asset_version: String,
    /// Token decimals, for printing prices.
    pub asset_decimals: u8,
    /// Recipient.
    pub pay_to: Address,
}

impl PaymentTerms {
    /// USDC on Base mainnet, paid to `pay_to`.
    pub fn base_usdc(pay_to: Address) -> Self {
        Self {
            chain_id: BASE_CHAIN_ID,
            asset: BASE_USDC,
            asset_name: "USD Coin".to_owned(),
            asset_version: "2".to_owned(),
            asset_decimals: 6,
            pay_to,
        }
    }

    /// CAIP-2 network id of these terms.
    pub fn network(&self) -> String {
        caip2(self.chain_id)
    }

    /// `primary` (the requirements of one request on another network) on these terms' network
    /// and asset: the same amount, recipient and `maxTimeoutSeconds`. Every network of a
    /// deployment is offered at one price.
    pub fn requirements_like(&self, primary: &PaymentRequirements) -> PaymentRequirements {
        let mut requirements = self.requirements(U256::ZERO, primary.max_timeout_seconds);
        requirements.amount.clone_from(&primary.amount);
        requirements.pay_to.clone_from(&primary.pay_to);
        requirements
    }

    /// Native USDC (Circle's FiatToken, EIP-3009) on `chain_id`, for the chains the services
    /// read (Ethereum, Optimism, Polygon, Base, Arbitrum One), paying `pay_to`. Addresses from
    /// Circle's list of native USDC contracts; EIP-712 name "USD Coin", version "2" on each, as
    /// in `@x402/evm`'s default assets.
    pub fn native_usdc(chain_id: u64, pay_to: Address) -> Option<Self> {
        let asset = match chain_id {
            1 => alloy::primitives::address!("A0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
            10 => alloy::primitives::address!("0b2C639c533813f4Aa9D7837CAf62653d097Ff85"),
            137 => alloy::primitives::address!("3c499c542cEF5E3811e1192ce70d8cC03d5c3359"),
            BASE_CHAIN_ID => BASE_USDC,
            42161 => alloy::primitives::address!("af88d065e77c8cC2239327C5EDb3A432268e5831"),
            _ => return None,
        };
        Some(Self {
            chain_id,
            asset,
            asset_name: "USD Coin".to_owned(),
            asset_version: "2".to_owned(),
            asset_decimals: 6,
            pay_to,
        })
    }

    /// The `exact` requirement for `amount` atomic units. Deterministic: the same inputs
    /// always give an equal value, so a client's echo of it matches on the retry.
    pub fn requirements(&self, amount: U256, max_timeout_seconds: u64) -> PaymentRequirements {
        let mut extra = Map::new();
        extra.insert("name".to_owned(), Value::String(self.asset_name.clone()));
        extra.insert(
            "version".to_owned(),
            Value::String(self.asset_version.clone()),
        );
        PaymentRequirements {
            scheme: SCHEME_EXACT.to_owned(),
            network: self.network(),
            amount: amount.to_string(),
            asset: self.asset.to_checksum(None),
            pay_to: self.pay_to.to_checksum(None),
            max_timeout_seconds,
            extra: Some(extra),
        }
    }
}

/// One priced offer for one request: the resource, the requirement and the discovery data.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The resource being sold.
    pub resource: ResourceInfo,
    /// The single accepted way to pay.
    pub requirements: PaymentRequirements,
    /// The `bazaar` discovery extension, if the route declares one: the same for every
    /// request to the route, so it is built once and shared.
    pub bazaar: Option<Arc<Value>>,
}

impl Offer {
    /// The `PaymentRequired` message carrying `error`.
    pub fn payment_required(&self, error: &str) -> PaymentRequired {
        let mut extensions = Map::new();
        if let Some(bazaar) = &self.bazaar {
            extensions.insert("bazaar".to_owned(), bazaar.as_ref().clone());
        }
        extensions.insert(PAYMENT_IDENTIFIER.to_owned(), OPTIONAL_DECLARATION.clone());
        PaymentRequired {
            x402_version: X402_VERSION,
            error: Some(error.to_owned()),
            resource: self.resource.clone(),
            accepts: vec![self.requirements.clone()],
            extensions: Some(extensions),
        }
    }

    /// [`Self::payment_required`] borrowed from the offer: it serialises to the same JSON
    /// without copying the bazaar extension's schema, which a server answering 402s at load
    /// would otherwise copy and free on every one.
    pub fn payment_required_ref<'a>(&'a self, error: &'a str) -> PaymentRequiredRef<'a> {
        self.payment_required_ref_with(error, vec![&self.requirements])
    }

    /// [`Self::payment_required_ref`] offering `accepts` (this offer's requirements first, then
    /// the same price on other networks, [`PaymentTerms::requirements_like`]).
    pub fn payment_required_ref_with<'a>(
        &'a self,
        error: &'a str,
        accepts: Vec<&'a PaymentRequirements>,
    ) -> PaymentRequiredRef<'a> {
        PaymentRequiredRef {
            x402_version: X402_VERSION,
            error,
            resource: &self.resource,
            accepts,
            extensions: Extensions {
                bazaar: self.bazaar.as_deref(),
                payment_identifier: &OPTIONAL_DECLARATION,
                offer_receipt: None,
            },
        }
    }
}

/// A [`PaymentRequired`] with one requirement, borrowed ([`Offer::payment_required_ref`]).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredRef<'a> {
    /// Always 2.
    pub x402_version: u32,
    /// Why payment is required.
    pub error: &'a str,
    /// The resource being sold.
    pub resource: &'a ResourceInfo,
    /// The one way to pay.
    pub accepts: Vec<&'a PaymentRequirements>,
    /// The `bazaar` extension, if any, and `payment-identifier`.
    pub extensions: Extensions<'a>,
}

/// The extensions a [`PaymentRequiredRef`] carries.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Extensions<'a> {
    /// The discovery extension.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bazaar: Option<&'a Value>,
    /// The `payment-identifier` declaration (optional ids): every offer has it, since the gate
    /// that serves offers (server-kit) makes paid requests carrying an id idempotent.
    #[serde(rename = "payment-identifier")]
    pub payment_identifier: &'a Value,
    /// The server's signed offers (`offer-receipt`), when it signs them.
    #[serde(rename = "offer-receipt", skip_serializing_if = "Option::is_none")]
    pub offer_receipt: Option<&'a Value>,
}

/// The `bazaar` extension for a JSON POST route: an example input and the JSON Schema of its
/// body, placed where `@x402/extensions` puts it (`schema.properties.input.properties.body`).
pub fn bazaar_post_json(example_body: Value, body_schema: Value) -> Value {
    bazaar_post_json_with_output(example_body, body_schema, None)
}

/// [`bazaar_post_json`] with the JSON Schema of the answer, placed where `@x402/extensions`
/// puts an output's schema (`schema.properties.output.properties.example`) and where discovery
/// validators look for it.
pub fn bazaar_post_json_with_output(
    example_body: Value,
    body_schema: Value,
    output_schema: Option<Value>,
) -> Value {
    let mut bazaar = json!({
        "info": {
            "input": {"type": "http", "method": "POST", "bodyType": "json", "body": example_body},
            "output": {"type": "json"}
        },
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "input": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "const": "http"},
                        "method": {"type": "string", "enum": ["POST"]},
                        "bodyType": {"type": "string", "enum": ["json"]},
                        "body": body_schema
                    },
                    "required": ["type", "method", "bodyType", "body"],
                    "additionalProperties": false
                },
                "output": {"type": "object"}
            },
            "required": ["input"]
        }
    });
    if let Some(output) = output_schema {
        bazaar["schema"]["properties"]["output"] = output_declaration(output);
    }
    bazaar
}

/// The bazaar's output declaration for an answer of JSON Schema `output`.
fn output_declaration(mut output: Value) -> Value {
    if let Some(object) = output.as_object_mut() {
        object.remove("$schema");
        object
            .entry("type")
            .or_insert_with(|| Value::String("object".into()));
    }
    json!({"type": "object", "properties": {"type": {"type": "string"}, "example": output},
        "required": ["type"]})
}

/// The `bazaar` extension of a paid MCP tool, in the form `@x402/extensions` declares MCP
/// resources (`info.input.type: "mcp"` with `toolName`, the transport, the tool's input schema
/// and an example of its arguments), with the answer's JSON Schema as in
/// [`bazaar_post_json_with_output`].
pub fn bazaar_mcp_tool(
    tool_name: &str,
    input_schema: Value,
    example_arguments: Value,
    output_schema: Option<Value>,
) -> Value {
    let mut bazaar = json!({
        "info": {
            "input": {"type": "mcp", "toolName": tool_name, "transport": "streamable-http",
                "inputSchema": input_schema, "example": example_arguments},
            "output": {"type": "json"}
        },
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "input": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "const": "mcp"},
                        "toolName": {"type": "string"},
                        "transport": {"type": "string", "enum": ["streamable-http"]},
                        "inputSchema": {"type": "object"},
                        "example": {"type": "object"}
                    },
                    "required": ["type", "toolName", "inputSchema"],
                    "additionalProperties": false
                },
                "output": {"type": "object"}
            },
            "required": ["input"]
        }
    });
    if let Some(output) = output_schema {
        bazaar["schema"]["properties"]["output"] = output_declaration(output);
    }
    bazaar
}

/// Whether a client's `accepted` is our `requirements`: core fields equal (amounts as numbers,
/// addresses case-insensitively) and `accepted.extra` a superset of ours, as the reference
/// server (2.27) matches.
pub fn accepted_matches(accepted: &PaymentRequirements, ours: &PaymentRequirements) -> bool {
    let same_amount = match (parse_u256(&accepted.amount), parse_u256(&ours.amount)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    accepted.scheme == ours.scheme
        && accepted.network == ours.network
        && same_amount
        && same_address(&accepted.asset, &ours.asset)
        && same_address(&accepted.pay_to, &ours.pay_to)
        && accepted.max_timeout_seconds == ours.max_timeout_seconds
        && extra_contains(accepted.extra.as_ref(), ours.extra.as_ref())
}

fn extra_contains(theirs: Option<&Map<String, Value>>, ours: Option<&Map<String, Value>>) -> bool {
    let Some(ours) = ours else { return true };
    let empty = Map::new();
    let theirs = theirs.unwrap_or(&empty);
    ours.iter()
        .all(|(key, value)| theirs.get(key) == Some(value))
}

fn same_address(a: &str, b: &str) -> bool {
    match (a.parse::<Address>(), b.parse::<Address>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn parse_u256(text: &str) -> Option<U256> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    U256::from_str_radix(text, 10).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy::primitives::address;

    fn terms() -> PaymentTerms {
        PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"))
    }

    #[test]
    fn requirements_are_deterministic_and_base_usdc() {
        let a = terms().requirements(U256::from(5_000u64), 80);
        let b = terms().requirements(U256::from(5_000u64), 80);
        assert_eq!(a, b);
        assert_eq!(a.network, "eip155:8453");
        assert_eq!(a.asset, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
        assert_eq!(a.amount, "5000");
        let extra = a.extra.expect("extra");
        assert_eq!(extra["name"], "USD Coin");
        assert_eq!(extra["version"], "2");
    }

    #[test]
    fn the_borrowed_terms_serialise_as_the_owned_ones() {
        let offer = |bazaar: Option<Arc<Value>>| Offer {
            resource: ResourceInfo {
                url: "http://a.test/dex/quote".into(),
                description: Some("a quote".into()),
                mime_type: Some("application/json".into()),
                ..Default::default()
            },
            requirements: terms().requirements(U256::from(5_000u64), 80),
            bazaar,
        };
        let bazaar = Arc::new(bazaar_post_json(
            json!({"chain": "base"}),
            json!({"type": "object", "properties": {"chain": {"type": "string"}}}),
        ));
        for offer in [offer(Some(bazaar)), offer(None)] {
            let owned = serde_json::to_string(&offer.payment_required("Payment required"));
            let borrowed = serde_json::to_string(&offer.payment_required_ref("Payment required"));
            assert_eq!(owned.expect("owned"), borrowed.expect("borrowed"));
        }
    }

    #[test]
    fn matching_is_semantic() {
        let ours = terms().requirements(U256::from(5_000u64), 80);
        let mut echoed = ours.clone();
        echoed.pay_to = echoed.pay_to.to_lowercase();
        echoed.asset = echoed.asset.to_uppercase().replacen("0X", "0x", 1);
        echoed.extra.get_or_insert_with(Map::new).insert(
            "assetTransferMethod".into(),
            Value::String("eip3009".into()),
        );
        assert!(accepted_matches(&echoed, &ours));
    }

    #[test]
    fn matching_refuses_any_core_difference() {
        let ours = terms().requirements(U256::from(5_000u64), 80);
        type Change = Box<dyn Fn(&mut PaymentRequirements)>;
        let variants: Vec<Change> = vec![
            Box::new(|r| r.amount = "4999".into()),
            Box::new(|r| r.amount = "5e3".into()),
            Box::new(|r| r.network = "eip155:84532".into()),
            Box::new(|r| r.scheme = "upto".into()),
            Box::new(|r| r.pay_to = "0x0000000000000000000000000000000000000001".into()),
            Box::new(|r| r.asset = "0x0000000000000000000000000000000000000002".into()),
            Box::new(|r| r.max_timeout_seconds = 81),
            Box::new(|r| r.extra = None),
            Box::new(|r| {
                r.extra
                    .get_or_insert_with(Map::new)
                    .insert("name".into(), "USDC".into());
            }),
        ];
        for change in variants {
            let mut accepted = ours.clone();
            change(&mut accepted);
            assert!(
                !accepted_matches(&accepted, &ours),
                "{accepted:?} must not match"
            );
        }
    }

    #[test]
    fn payment_required_carries_bazaar_and_payment_identifier() {
        let offer = Offer {
            resource: ResourceInfo {
                url: "http://127.0.0.1/dex/quote".into(),
                description: Some("quote".into()),
                mime_type: Some("application/json".into()),
                ..Default::default()
            },
            requirements: terms().requirements(U256::from(5_000u64), 80),
            bazaar: Some(Arc::new(bazaar_post_json(
                json!({"chain": "base"}),
                json!({"type": "object"}),
            ))),
        };
        let required = offer.payment_required(PAYMENT_REQUIRED_REASON);
        assert_eq!(required.x402_version, 2);
        let extensions = required.extensions.expect("extensions");
        assert_eq!(
            extensions[PAYMENT_IDENTIFIER],
            crate::payment_identifier::declaration(false),
            "every offer declares optional payment ids"
        );
        assert_eq!(
            extensions["bazaar"]["schema"]["properties"]["input"]["properties"]["body"]["type"],
            "object"
        );
    }
}
