//! The route table the documents, the page for people and the MCP tools are made from: each
//! paid route's input, price and wording, each free route, and the service as a whole.

use std::sync::Arc;

use alloy::primitives::U256;
use serde_json::{Value, json};
use x402_core::terms::{bazaar_mcp_tool, bazaar_post_json_with_output};
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
    /// The price as catalogues state it (OpenAPI `x-payment-info`).
    pub catalogue_price: CataloguePrice,
    /// The price in one phrase, for people (`0.005 USDC per call`).
    pub price_label: String,
    /// The JSON Schema of the 200 answer (a plain object when `None`).
    pub output_schema: Option<Value>,
    /// Statuses answered besides the common ones, with their meaning.
    pub extra_responses: Vec<(u16, &'static str)>,
    /// The service's name and tags for catalogues (the bazaar's service metadata in every 402's
    /// `resource`): [`ServiceDoc::title`] and [`ServiceDoc::tags`].
    pub service_name: &'static str,
    /// See [`PaidRouteDoc::service_name`].
    pub tags: &'static [&'static str],
}

/// A route's price as catalogues state it, in decimal USDC (`"0.005000"`): one amount, or the
/// bounds of a price that depends on the input (per page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CataloguePrice {
    /// Every call costs this.
    Fixed(String),
    /// A call costs at least `min` and at most `max`; its 402 names the exact amount.
    Dynamic {
        /// The cheapest call.
        min: String,
        /// The dearest call.
        max: String,
    },
}

impl CataloguePrice {
    /// The structured `price` of OpenAPI's `x-payment-info` (x402scan's discovery profile:
    /// `mode`, `currency` as ISO 4217, `amount` or `min`/`max`). USDC is quoted as `USD`, the
    /// currency it is redeemable for, as that profile's examples do.
    pub fn payment_info_price(&self) -> Value {
        match self {
            Self::Fixed(amount) => json!({"mode": "fixed", "currency": "USD", "amount": amount}),
            Self::Dynamic { min, max } => {
                json!({"mode": "dynamic", "currency": "USD", "min": min, "max": max})
            }
        }
    }
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
    output_top_level: Option<Value>,
}

impl RouteInput {
    /// The input of a route taking bodies of `schema`, such as `example`. The published schema
    /// carries the example as its `examples` (JSON Schema 2020-12), so a client that fills a
    /// request from the schema alone (a catalogue's probe) sends a body that is priced (402)
    /// rather than refused (400); the validator's own schema is `schema` as given.
    pub fn new(schema: Value, example: Value) -> Self {
        Self::build(schema, example, None)
    }

    /// [`RouteInput::new`] for a route whose answers have the JSON Schema `output`: the bazaar
    /// extension of its 402s declares the answer's top level (every member and its type; the
    /// whole schema is in OpenAPI and the MCP tool). Only the top level, because the 402's
    /// `PAYMENT-REQUIRED` header carries the extension and Node's HTTP clients refuse headers
    /// over 16 KB, which a whole answer schema (12 to 31 KB) would exceed.
    pub fn with_output(schema: Value, example: Value, output: Option<&Value>) -> Self {
        Self::build(schema, example, output.map(top_level_schema))
    }

    fn build(schema: Value, example: Value, output_top_level: Option<Value>) -> Self {
        let bazaar = Arc::new(bazaar_post_json_with_output(
            example.clone(),
            schema.clone(),
            output_top_level.clone(),
        ));
        let mut published = schema;
        if let Some(object) = published.as_object_mut() {
            object.insert("examples".into(), Value::Array(vec![example.clone()]));
        }
        Self {
            schema: Arc::new(published),
            example,
            bazaar,
            output_top_level,
        }
    }

    /// The bazaar extension of the tool `tool_name` whose arguments are this input, in the MCP
    /// form (`info.input.type: "mcp"`), as an MCP 402 result carries it.
    pub fn mcp_bazaar(&self, tool_name: &str, tool_input_schema: Value) -> Value {
        bazaar_mcp_tool(
            tool_name,
            tool_input_schema,
            self.example.clone(),
            self.output_top_level.clone(),
        )
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

/// The top level of an object schema: its required members and each member's `type` (members
/// without one, such as `anyOf`s, as `{}`), descriptions and nested schemas left out.
pub fn top_level_schema(schema: &Value) -> Value {
    let mut top = json!({"type": "object"});
    if let Some(required) = schema.get("required") {
        top["required"] = required.clone();
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let members: serde_json::Map<String, Value> = properties
            .iter()
            .map(|(name, member)| {
                let kind = member
                    .get("type")
                    .map_or_else(|| json!({}), |kind| json!({"type": kind}));
                (name.clone(), kind)
            })
            .collect();
        top["properties"] = Value::Object(members);
    }
    top
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
                service_name: Some(self.service_name.to_owned()),
                tags: Some(self.tags.iter().map(|tag| (*tag).to_owned()).collect()),
                icon_url: Some(format!("{base_url}{}", crate::landing::FAVICON_PATH)),
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
    /// Catalogue tags (at most 5 of at most 32 characters, the bazaar's limits).
    pub tags: &'static [&'static str],
    /// The service in one sentence of at most 100 characters (the MCP Registry's limit).
    pub summary: &'static str,
    /// The server's name within its namespace in the MCP Registry (`analytics` of
    /// `com.example.analytics/analytics`).
    pub registry_name: &'static str,
    /// The software's version.
    pub version: &'static str,
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
