//! The route table the documents, the page for people and the MCP tools are made from: each
//! paid route's input, price and wording, each free route, and the service as a whole.

use std::sync::Arc;

use alloy::primitives::U256;
use serde_json::{Value, json};
use x402_core::terms::bazaar_post_json;
use x402_core::{Offer, PaymentTerms, ResourceInfo};

/// A paid route as the discovery documents describe it.
#[derive(Debug, Clone)]
pub struct PaidRouteDoc {
    /// Path (`/dex/quote`).
    pub path: &'static str,
    /// OpenAPI operation id (`dex_quote`).
    pub operation_id: &'static str,
    /// One line.
    pub summary: &'static str,
    /// A paragraph: what it does and returns.
    pub description: String,
    /// What the route takes: its body's schema and an example.
    pub input: RouteInput,
    /// How it is priced (`fixed`, `per_page`).
    pub pricing_mode: &'static str,
    /// The price as `/pricing` shows it.
    pub price: Value,
    /// The price in one phrase, for people (`0.005 USDC per call`).
    pub price_label: String,
    /// The JSON Schema of the 200 answer (a plain object when `None`).
    pub output_schema: Option<Value>,
    /// Statuses answered besides the common ones, with their meaning.
    pub extra_responses: Vec<(u16, &'static str)>,
}

/// What a paid route takes: the request body's JSON Schema and an example body, with the
/// bazaar extension built from both once. The three are only made together, so every 402 of the
/// route describes the body its validator checks; the schema and extension are shared by `Arc`
/// with every 402 (the gate keys its rendered 402s by their addresses).
#[derive(Debug, Clone)]
pub struct RouteInput {
    schema: Arc<Value>,
    example: Value,
    bazaar: Arc<Value>,
}

impl RouteInput {
    /// The input of a route taking bodies of `schema`, such as `example`.
    pub fn new(schema: Value, example: Value) -> Self {
        let bazaar = Arc::new(bazaar_post_json(example.clone(), schema.clone()));
        Self {
            schema: Arc::new(schema),
            example,
            bazaar,
        }
    }

    /// The request body's JSON Schema.
    pub fn schema(&self) -> &Arc<Value> {
        &self.schema
    }

    /// An example request body.
    pub fn example(&self) -> &Value {
        &self.example
    }

    /// The bazaar extension of the route's 402s.
    pub fn bazaar(&self) -> &Arc<Value> {
        &self.bazaar
    }
}

impl PaidRouteDoc {
    /// The x402 terms for one request to this route at `amount`, as the gate offers them: the
    /// resource is `base_url` + path, and the bazaar extension carries the example and schema.
    pub fn offer(
        &self,
        terms: &PaymentTerms,
        base_url: &str,
        amount: U256,
        max_timeout_seconds: u64,
    ) -> Offer {
        Offer {
            resource: ResourceInfo {
                url: format!("{base_url}{}", self.path),
                description: Some(self.summary.to_owned()),
                mime_type: Some("application/json".into()),
            },
            requirements: terms.requirements(amount, max_timeout_seconds),
            bazaar: Some(self.input.bazaar.clone()),
        }
    }
}

/// A free GET route for the discovery documents.
#[derive(Debug, Clone)]
pub struct FreeRouteDoc {
    /// Path.
    pub path: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Response media type.
    pub media_type: &'static str,
}

/// The service as a whole, for the documents' headers.
#[derive(Debug, Clone)]
pub struct ServiceDoc {
    /// Title.
    pub title: &'static str,
    /// What the service is, a paragraph.
    pub description: &'static str,
    /// CAIP-2 payment network.
    pub network: String,
    /// Payment asset address.
    pub asset: String,
    /// Asset symbol for people.
    pub asset_symbol: &'static str,
    /// Recipient.
    pub pay_to: String,
    /// The other networks a payment may be made on, at the same price (`[[payment.networks]]`):
    /// CAIP-2 network and asset address each.
    pub also_accepted: Vec<(String, String)>,
}

/// The schema of the 402 body (the service descriptions' `PaymentRequired`).
pub fn payment_required_body_schema() -> Value {
    json!({
        "type": "object",
        "required": ["x402Version", "error", "description", "inputSchema", "accepts"],
        "properties": {
            "x402Version": {"type": "integer", "const": 2},
            "error": {"type": "string"},
            "description": {"type": "string"},
            "inputSchema": {"type": "object"},
            "accepts": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"],
                "properties": {
                    "scheme": {"type": "string"}, "network": {"type": "string"},
                    "amount": {"type": "string", "pattern": "^[0-9]+$"}, "asset": {"type": "string"},
                    "payTo": {"type": "string"}, "maxTimeoutSeconds": {"type": "integer"},
                    "extra": {"type": "object"}}}},
            "extensions": {"type": "object",
                "description": "x402 extensions a client acts on: `payment-identifier` (optional; send an id in the PaymentPayload's extensions to make the paid request idempotent)."}
        }
    })
}
