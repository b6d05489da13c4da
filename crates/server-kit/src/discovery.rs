//! Discovery documents generated from one route table: OpenAPI 3.1, `/.well-known/x402`,
//! `/pricing` and `/llms.txt`. Each paid route's request schema is the one its validator uses.

use serde_json::{Map, Value, json};

pub use crate::catalog::{
    CataloguePrice, FreeRouteDoc, PaidRouteDoc, RouteInput, ServiceDoc,
    payment_required_body_schema,
};
use crate::error::error_body_schema;

fn error_response(description: &str) -> Value {
    json!({"description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

/// The OpenAPI 3.1 document.
pub fn openapi(
    service: &ServiceDoc,
    base_url: &str,
    paid: &[PaidRouteDoc],
    free: &[FreeRouteDoc],
) -> Value {
    let mut paths = Map::new();
    for route in paid {
        let mut responses = Map::new();
        let output = route
            .output_schema
            .clone()
            .unwrap_or_else(|| json!({"type": "object"}));
        responses.insert("200".into(), json!({"description": "The result.",
            "headers": {"PAYMENT-RESPONSE": {"description": "base64 JSON x402 SettleResponse", "schema": {"type": "string"}}},
            "content": {"application/json": {"schema": output}}}));
        responses.insert(
            "400".into(),
            error_response("Invalid input; `details` names each field. Not charged."),
        );
        responses.insert("402".into(), json!({"description": "Payment required, or the payment was refused (`error` says why).",
            "headers": {"PAYMENT-REQUIRED": {"description": "base64 JSON x402 v2 PaymentRequired", "schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PaymentRequired"}}}}));
        responses.insert(
            "429".into(),
            json!({"description": "Too many unpaid requests from this address. Not charged.",
            "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}),
        );
        responses.insert("409".into(), error_response("A repeat that buys nothing new: `payment_id_conflict` (this payment id already bought an answer to another request; not charged) or `authorization_reused` (this authorization already paid for an answer, `charged: true`, with its transaction in the message and `PAYMENT-RESPONSE`; or it is in use by a request still served or settling, `charged: null`). Never worked on or settled again."));
        responses.insert("502".into(), error_response("A counterparty (chain node, facilitator, data source) is unreachable. Not charged."));
        responses.insert(
            "504".into(),
            error_response("The time budget ran out. Not charged."),
        );
        for (status, description) in &route.extra_responses {
            responses.insert(status.to_string(), error_response(description));
        }
        let operation = json!({
            "operationId": route.operation_id,
            "summary": route.summary,
            "description": route.description,
            "requestBody": {"required": true, "content": {"application/json": {
                "schema": route.input.schema().as_ref(), "example": route.input.example()}}},
            "responses": responses,
            // No API authentication: the payment is declared by `x-payment-info` and made with
            // the PAYMENT-SIGNATURE header the 402 asks for (x402scan's discovery profile reads
            // `security: []` plus `x-payment-info` as "paid").
            "security": [],
            "x-payment-info": {
                "price": route.catalogue_price.payment_info_price(),
                "protocols": [{"x402": {}}],
                "network": service.network, "asset": service.asset,
                "pricing": route.pricing_mode, "priceDetail": route.price
            }
        });
        paths.insert(route.path.to_owned(), json!({"post": operation}));
    }
    for route in free {
        paths.insert(route.path.to_owned(), json!({"get": {
            "summary": route.summary,
            "operationId": match route.path.trim_start_matches('/') {
                "" => "service_page".to_owned(),
                path => path.replace(['/', '.', '-'], "_"),
            },
            "security": [],
            "responses": {"200": {"description": route.summary,
                "content": {route.media_type: {"schema": if route.media_type == "application/json" { json!({"type": "object"}) } else { json!({"type": "string"}) }}}}}
        }}));
    }
    paths.insert(crate::mcp::PATH.to_owned(), mcp_operation(paid));
    json!({
        "openapi": "3.1.0",
        "info": {"title": service.title, "version": "1.0.0", "description": service.description,
            // The page for people names every route, price and field, with a live try-it.
            "contact": {"name": service.title, "url": format!("{base_url}/")},
            "x-guidance": guidance(service)},
        "x-agentcash-guidance": {"llmsTxtUrl": format!("{base_url}/llms.txt")},
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "securitySchemes": {"x402": {"type": "apiKey", "in": "header", "name": "PAYMENT-SIGNATURE",
                "description": format!("x402 v2 payment proof: base64 JSON PaymentPayload signing an EIP-3009 transfer of {} on {} (v1 `X-PAYMENT` is also read).", service.asset_symbol, service.network)}},
            "schemas": {"Error": error_body_schema(), "PaymentRequired": payment_required_body_schema()}
        }
    })
}

/// Short inline guidance for agents (`info.x-guidance`): how a paid route is paid; the long
/// form is `/llms.txt`.
fn guidance(service: &ServiceDoc) -> String {
    format!(
        "Every POST route but /mcp is paid per call with x402 v2 ({} on {}). Send the request without payment: the 402 answer carries the exact terms (header PAYMENT-REQUIRED, and the same in the JSON body with the input schema). Sign an EIP-3009 transferWithAuthorization for exactly that amount and repeat the same request with header PAYMENT-SIGNATURE. Invalid input is a 400 naming each field, before any price; failed, empty or timed-out work is never settled (\"charged\": false). The same routes are MCP tools at POST /mcp, paid in params._meta[\"{}\"]. Details: /llms.txt.",
        service.asset_symbol,
        service.network,
        crate::mcp::META_PAYMENT
    )
}

/// `/mcp` as OpenAPI can say it: the transport, not each tool (those are in `tools/list`).
fn mcp_operation(paid: &[PaidRouteDoc]) -> Value {
    let tools: Vec<&str> = paid.iter().map(|route| route.operation_id).collect();
    json!({"post": {
        "operationId": "mcp",
        "security": [],
        "summary": "Model Context Protocol (streamable HTTP, JSON-RPC 2.0)",
        "description": format!(
            "MCP revisions {}. The tools are the paid routes ({}) with the same input schemas and prices, paid through x402's MCP transport: an unpaid call returns the terms as an error result (structuredContent = PaymentRequired); the payment goes in params._meta[\"{}\"], the receipt comes back in result._meta[\"{}\"]. {}: stateless, no initialize and no session; every request names the revision and the client's capabilities in params._meta (\"{}\", \"{}\") and sends the MCP-Protocol-Version, Mcp-Method and (tools/call) Mcp-Name headers; methods server/discover, tools/list, tools/call. {}: initialize, ping, tools/list, tools/call; `initialize` answers header Mcp-Session-Id; send it on every later request; DELETE ends the session.",
            crate::mcp::PROTOCOL_VERSIONS.join(", "), tools.join(", "), crate::mcp::META_PAYMENT, crate::mcp::META_PAYMENT_RESPONSE,
            crate::mcp::MODERN_VERSIONS.join(", "), crate::mcp::META_PROTOCOL_VERSION, crate::mcp::META_CLIENT_CAPABILITIES,
            crate::mcp::LEGACY_VERSIONS.join(", ")),
        "requestBody": {"required": true, "content": {"application/json": {"schema": {
            "type": "object", "required": ["jsonrpc", "method"],
            "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
                "method": {"type": "string"}, "params": {"type": "object"}}}}}},
        "responses": {
            "200": {"description": "The JSON-RPC response.", "content": {"application/json": {"schema": {"type": "object"}}}},
            "202": {"description": "A notification was accepted."},
            "400": {"description": "Not a JSON-RPC 2.0 message, no session, or an unserved protocol revision; on 2026-07-28 also missing _meta fields (-32602), headers that do not mirror the body (-32020) or an unserved revision (-32022, with the served ones)."},
            "404": {"description": "Unknown or expired session: initialize again; on 2026-07-28, a method not served (-32601)."}
        }
    }, "delete": {
        "operationId": "mcp_end_session",
        "security": [],
        "summary": "End the MCP session named by Mcp-Session-Id",
        "parameters": [{"name": crate::mcp::SESSION_HEADER, "in": "header", "required": true,
            "description": "The session id `initialize` answered.",
            "schema": {"type": "string", "minLength": 1}}],
        "responses": {"204": {"description": "Ended."},
            "400": {"description": "No Mcp-Session-Id header."},
            "404": {"description": "No such session (never opened, ended or expired)."},
            "503": {"description": "The shared session store is unreachable; retry shortly."}}
    }})
}

/// `/.well-known/x402`: the absolute URLs of the paid routes (x402scan convention).
pub fn well_known_x402(base_url: &str, paid: &[PaidRouteDoc]) -> Value {
    let resources: Vec<String> = paid
        .iter()
        .map(|route| format!("{base_url}{}", route.path))
        .collect();
    json!({"version": 1, "resources": resources})
}

/// `/server.json`: the service as the official MCP Registry describes a remote server
/// (server.json, schema 2025-12-11): its name in reverse-DNS form from the public host
/// (`analytics.example.com` → `com.example.analytics/<registry_name>`; the registry verifies a
/// domain namespace against that domain), the summary, version, page for people and icon, and
/// the streamable-HTTP remote at `/mcp`. A publisher submits it as served under its public URL.
pub fn mcp_server_json(service: &ServiceDoc, base_url: &str) -> Value {
    let host = url::Url::parse(base_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default();
    let is_name =
        host.parse::<std::net::IpAddr>().is_err() && !host.starts_with('[') && host.contains('.');
    let namespace = if is_name {
        host.rsplit('.').collect::<Vec<_>>().join(".")
    } else {
        host
    };
    json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": format!("{namespace}/{}", service.registry_name),
        "title": service.title,
        "description": service.summary,
        "version": service.version,
        "websiteUrl": format!("{base_url}/"),
        "icons": [{"src": format!("{base_url}{}", crate::landing::FAVICON_PATH),
            "mimeType": "image/svg+xml", "sizes": ["any"]}],
        "remotes": [{"type": "streamable-http", "url": format!("{base_url}{}", crate::mcp::PATH)}]
    })
}

/// `/pricing`: the price table.
pub fn pricing(service: &ServiceDoc, paid: &[PaidRouteDoc]) -> Value {
    let routes: Vec<Value> = paid
        .iter()
        .map(|route| {
            json!({"path": route.path, "method": "POST", "operation_id": route.operation_id,
            "pricing_mode": route.pricing_mode, "price": route.price})
        })
        .collect();
    let mut pricing = json!({"currency": service.asset_symbol, "network": service.network,
        "asset": service.asset, "pay_to": service.pay_to, "protocol": "x402 v2 (exact, EIP-3009)",
        "routes": routes});
    if !service.also_accepted.is_empty() {
        pricing["also_accepted"] = service
            .also_accepted
            .iter()
            .map(|(network, asset)| json!({"network": network, "asset": asset}))
            .collect();
    }
    pricing
}

/// `/llms.txt`: a plain-text guide for agents.
pub fn llms_txt(
    service: &ServiceDoc,
    base_url: &str,
    paid: &[PaidRouteDoc],
    free: &[FreeRouteDoc],
) -> String {
    let mut text = format!("# {}\n\n> {}\n\n", service.title, service.description);
    text.push_str(&format!(
        "## Paying\n\nEvery paid route answers HTTP 402 without payment. The terms are in the \
         `PAYMENT-REQUIRED` header (base64 JSON, x402 v2) and in the JSON body (`accepts`, \
         `inputSchema`). Sign an EIP-3009 transferWithAuthorization of {} on {} to {} for the exact \
         amount and repeat the request with header `PAYMENT-SIGNATURE`. Failed, empty or timed-out \
         work is never settled; errors carry `\"charged\": false`.\n\n## Paid routes\n\n",
        service.asset_symbol, service.network, service.pay_to
    ));
    if !service.also_accepted.is_empty() {
        let others: Vec<String> = service
            .also_accepted
            .iter()
            .map(|(network, asset)| format!("{network} ({asset})"))
            .collect();
        text.push_str(&format!(
            "The same prices are also accepted in {} on: {} (each an entry of `accepts`).\n\n",
            service.asset_symbol,
            others.join(", ")
        ));
    }
    for route in paid {
        text.push_str(&format!(
            "- POST {base_url}{} ({}): {}. Price: {}.\n  Example body: {}\n",
            route.path,
            route.operation_id,
            route.summary,
            route.price_label,
            route.input.example()
        ));
    }
    if paid.is_empty() {
        text.push_str("- none yet\n");
    }
    text.push_str(&format!(
        "\n## MCP\n\n- POST {base_url}{}: Model Context Protocol over streamable HTTP (JSON-RPC 2.0, \
         revisions {}; {} statelessly, without initialize or session). `tools/list` gives the paid \
         routes above as tools (same names, input schemas and prices); `tools/call` without \
         payment returns the terms as an error result (structuredContent = PaymentRequired); pay \
         in params._meta[\"{}\"] and read the receipt in result._meta[\"{}\"].\n",
        crate::mcp::PATH,
        crate::mcp::PROTOCOL_VERSIONS.join(", "),
        crate::mcp::MODERN_VERSIONS.join(", "),
        crate::mcp::META_PAYMENT,
        crate::mcp::META_PAYMENT_RESPONSE
    ));
    text.push_str("\n## Free routes\n\n");
    for route in free {
        text.push_str(&format!(
            "- GET {base_url}{}: {}\n",
            route.path, route.summary
        ));
    }
    text
}

/// Everything the discovery routes serve, fixed at start-up.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// The service.
    pub service: ServiceDoc,
    /// Its paid routes.
    pub paid: Vec<PaidRouteDoc>,
    /// Its free routes.
    pub free: Vec<FreeRouteDoc>,
    /// Configured public base URL, if any (else the request's `Host`).
    pub public_url: Option<String>,
    /// Whether `X-Forwarded-Proto` comes from a trusted proxy.
    pub trust_forwarded: bool,
}

/// `/openapi.json`, `/.well-known/x402`, `/pricing`, `/llms.txt`, and the page for people at
/// `/` with its script and style sheet.
pub fn routes(discovery: Discovery) -> axum::Router {
    use axum::extract::State;
    use axum::http::HeaderMap;
    use axum::routing::get;
    use std::sync::Arc;

    type Shared = State<Arc<Discovery>>;
    fn base(d: &Discovery, headers: &HeaderMap) -> String {
        crate::http::base_url(d.public_url.as_deref(), headers, d.trust_forwarded)
    }
    axum::Router::new()
        .route(
            "/openapi.json",
            get(|State(d): Shared, headers: HeaderMap| async move {
                axum::Json(openapi(&d.service, &base(&d, &headers), &d.paid, &d.free))
            }),
        )
        .route(
            "/.well-known/x402",
            get(|State(d): Shared, headers: HeaderMap| async move {
                axum::Json(well_known_x402(&base(&d, &headers), &d.paid))
            }),
        )
        .route(
            "/server.json",
            get(|State(d): Shared, headers: HeaderMap| async move {
                axum::Json(mcp_server_json(&d.service, &base(&d, &headers)))
            }),
        )
        .route(
            "/pricing",
            get(|State(d): Shared| async move { axum::Json(pricing(&d.service, &d.paid)) }),
        )
        .route(
            "/llms.txt",
            get(|State(d): Shared, headers: HeaderMap| async move {
                llms_txt(&d.service, &base(&d, &headers), &d.paid, &d.free)
            }),
        )
        .route(
            "/",
            get(|State(d): Shared, headers: HeaderMap| async move {
                use axum::http::header;
                (
                    [
                        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                        (
                            header::CONTENT_SECURITY_POLICY,
                            crate::landing::CONTENT_SECURITY_POLICY,
                        ),
                    ],
                    crate::landing::landing_html(&d.service, &base(&d, &headers), &d.paid, &d.free),
                )
            }),
        )
        .route(
            crate::landing::SCRIPT_PATH,
            get(|| async {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "text/javascript; charset=utf-8",
                    )],
                    crate::landing::SCRIPT,
                )
            }),
        )
        .route(
            crate::landing::FAVICON_PATH,
            get(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "image/svg+xml")],
                    crate::landing::FAVICON,
                )
            }),
        )
        .route(
            crate::landing::STYLE_PATH,
            get(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/css; charset=utf-8")],
                    crate::landing::STYLE,
                )
            }),
        )
        .with_state(Arc::new(discovery))
}

/// The free routes every service has (discovery and operations).
pub fn standard_free_routes(readiness_summary: &'static str) -> Vec<FreeRouteDoc> {
    vec![
        FreeRouteDoc {
            path: "/",
            summary: "This service for people: routes, prices, examples and a live try-it",
            media_type: "text/html",
        },
        FreeRouteDoc {
            path: "/openapi.json",
            summary: "This OpenAPI 3.1 document",
            media_type: "application/json",
        },
        FreeRouteDoc {
            path: "/.well-known/x402",
            summary: "x402 discovery: the paid resources",
            media_type: "application/json",
        },
        FreeRouteDoc {
            path: "/server.json",
            summary: "This service as an MCP Registry server.json (the remote at /mcp)",
            media_type: "application/json",
        },
        FreeRouteDoc {
            path: "/pricing",
            summary: "Price of every paid route",
            media_type: "application/json",
        },
        FreeRouteDoc {
            path: "/llms.txt",
            summary: "Plain-text guide for agents",
            media_type: "text/plain",
        },
        FreeRouteDoc {
            path: "/health",
            summary: "Process liveness",
            media_type: "application/json",
        },
        FreeRouteDoc {
            path: "/readiness",
            summary: readiness_summary,
            media_type: "application/json",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(also_accepted: Vec<(String, String)>) -> ServiceDoc {
        ServiceDoc {
            title: "t",
            description: "d",
            network: "eip155:8453".into(),
            asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913".into(),
            asset_symbol: "USDC",
            tags: &[],
            summary: "s",
            registry_name: "t",
            version: "0.1.0",
            pay_to: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C".into(),
            also_accepted,
        }
    }

    #[test]
    fn the_registry_name_is_the_public_host_reversed() {
        let doc = mcp_server_json(&service(Vec::new()), "https://analytics.example.com");
        assert_eq!(doc["name"], "com.example.analytics/t");
        assert_eq!(doc["remotes"][0]["type"], "streamable-http");
        assert_eq!(
            doc["remotes"][0]["url"],
            "https://analytics.example.com/mcp"
        );
        assert_eq!(doc["websiteUrl"], "https://analytics.example.com/");
        assert_eq!(
            mcp_server_json(&service(Vec::new()), "http://127.0.0.1:8401")["name"],
            "127.0.0.1/t"
        );
    }

    #[test]
    fn other_networks_are_listed_only_when_accepted() {
        let alone = service(Vec::new());
        assert!(pricing(&alone, &[]).get("also_accepted").is_none());
        assert!(!llms_txt(&alone, "http://a.test", &[], &[]).contains("also accepted"));

        let arbitrum = (
            "eip155:42161".to_owned(),
            "0xaf88d065e77c8cC2239327C5EDb3A432268e5831".to_owned(),
        );
        let both = service(vec![arbitrum]);
        assert_eq!(
            pricing(&both, &[])["also_accepted"],
            json!([{"network": "eip155:42161", "asset": "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"}])
        );
        assert!(
            llms_txt(&both, "http://a.test", &[], &[])
                .contains("also accepted in USDC on: eip155:42161")
        );
    }
}
