//! `/mcp`: the paid routes as Model Context Protocol tools over streamable HTTP (JSON-RPC 2.0),
//! paid through x402's MCP transport.
//!
//! One gate, two transports: a `tools/call` is answered by sending the tool's arguments as the
//! JSON body of an in-process POST to the route it names, through the same router, layers and
//! payment gate as an HTTP caller's request, with the `_meta["x402/payment"]` payload as its
//! `PAYMENT-SIGNATURE` header. The route's answer is then worded for MCP:
//! - 402 → a tool result with `isError: true`, `structuredContent` = the PaymentRequired of the
//!   route's `PAYMENT-REQUIRED` header (the same terms an HTTP caller gets for the same input) and
//!   `content[0].text` = the same JSON;
//! - 200 → `structuredContent` = the answer, `content[0].text` = the same JSON, and the receipt of
//!   the route's `PAYMENT-RESPONSE` header in `result._meta["x402/payment-response"]`;
//! - any other status → a tool result with `isError: true` and only the route's JSON error
//!   (`charged: false`): the gate settled nothing, so no tool content goes out.
//!
//! Verification, replay guard, limits, time budget, cache and `charged` semantics are therefore
//! the HTTP routes' own. Why hand-written instead of `rmcp`: see docs/decisions.md ("MCP").
//!
//! Sessions: `initialize` opens one (`Mcp-Session-Id`), DELETE ends it; at most
//! [`McpSettings::max_sessions`] live, idle ones expire. They live where the service's shared
//! state does ([`McpSettings::state`]): in this process, or in Redis, so every replica knows a
//! session another one opened (a client is not bound to start a new session on a 404: the
//! official TypeScript SDK throws instead). With Redis unreachable the endpoint answers 503.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use tower::ServiceExt as _;
use x402_core::codec::{decode_header, encode_header};

use crate::catalog::{PaidRouteDoc, ServiceDoc, payment_required_body_schema};
use crate::gate::{PAYMENT_REQUIRED, PAYMENT_RESPONSE, PAYMENT_SIGNATURE};

/// The path the MCP endpoint is served at.
pub const PATH: &str = "/mcp";
/// Protocol revisions served, newest first: the stateless (modern) one and the two
/// handshake-based (legacy) ones before it.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2026-07-28", "2025-11-25", "2025-06-18"];
/// The revisions served statelessly, every request naming its revision and the client's
/// capabilities in `params._meta` (2026-07-28: no `initialize`, no session).
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// The revisions served after `initialize`, in a session (`Mcp-Session-Id`), newest first.
pub const LEGACY_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];
/// `_meta` key of a modern request's protocol revision.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of a modern request's client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server's identity on modern results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Request header naming the JSON-RPC method (2026-07-28).
pub const METHOD_HEADER: &str = "mcp-method";
/// Request header naming the tool of a `tools/call` (2026-07-28).
pub const NAME_HEADER: &str = "mcp-name";
/// How long a client may keep `server/discover` and `tools/list` results (`ttlMs`): the tools,
/// their schemas and prices are fixed for the life of the process, and a configuration change
/// means a restart; an hour bounds how long a client keeps an old price after one.
pub const LIST_TTL_MS: u64 = 3_600_000;
/// Request header carrying the session.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// Request header carrying the negotiated protocol revision.
pub const PROTOCOL_HEADER: &str = "mcp-protocol-version";
/// `_meta` key of the client's payment (x402 MCP transport).
pub const META_PAYMENT: &str = "x402/payment";
/// `_meta` key of the settlement receipt (x402 MCP transport).
pub const META_PAYMENT_RESPONSE: &str = "x402/payment-response";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
/// The HTTP headers do not match the body, or a required one is missing (2026-07-28).
const HEADER_MISMATCH: i64 = -32020;
/// The request's protocol revision is not served (2026-07-28).
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Limits of the MCP endpoint.
#[derive(Debug, Clone)]
pub struct McpSettings {
    /// The host (`name[:port]`) of the configured public URL: the only `Host` a request from a
    /// loopback peer may name besides the loopback names (DNS-rebinding protection).
    pub public_host: Option<String>,
    /// Sessions alive at once; `initialize` beyond it (after expiring idle ones) is refused.
    pub max_sessions: usize,
    /// A session unused this long is forgotten.
    pub session_idle: Duration,
    /// Where sessions live: in this process (memory) or in Redis, shared by the replicas (the
    /// service's `[state]`).
    pub state: crate::state::SharedState,
}

impl Default for McpSettings {
    fn default() -> Self {
        Self {
            public_host: None,
            max_sessions: 10_000,
            session_idle: Duration::from_secs(3600),
            state: crate::state::SharedState::memory(),
        }
    }
}

impl McpSettings {
    /// The defaults, with the public URL's host when one is configured.
    pub fn for_public_url(public_url: Option<&str>) -> Self {
        Self {
            public_host: public_url.and_then(url_host),
            ..Self::default()
        }
    }

    /// The same settings with sessions kept in `state` (the gate's shared state, so replicas
    /// on Redis share their sessions).
    #[must_use]
    pub fn with_state(mut self, state: crate::state::SharedState) -> Self {
        self.state = state;
        self
    }
}

/// DNS rebinding (MCP transport security): a web page on a rebound name reaches a server on
/// the visitor's machine with that name in `Host` and `Origin`. So a request from a loopback
/// peer must name a loopback host or the configured public host, and an `Origin`, when sent,
/// must be the origin of the `Host` it names. Remote peers reach the server through its
/// public name or a proxy, whose `Host` the operator controls.
fn rebinding_refusal(
    public_host: Option<&str>,
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
) -> Option<Response> {
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_ascii_lowercase);
    let refuse = |why: String| {
        Some(rpc_failure(
            StatusCode::FORBIDDEN,
            Value::Null,
            INVALID_REQUEST,
            &why,
        ))
    };
    if peer.is_some_and(|peer| peer.ip().is_loopback())
        && let Some(host) = host.as_deref()
    {
        let name = host_name(host);
        let loopback = name == "localhost"
            || name
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if !loopback && public_host != Some(host) {
            return refuse(format!(
                "Host {host} is neither a loopback name nor this service's public host (DNS-rebinding protection)"
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        let origin_host = url_host(origin);
        let same = origin_host.is_some() && origin_host == host;
        let public = origin_host.is_some() && origin_host.as_deref() == public_host;
        if !same && !public {
            return refuse(format!(
                "Origin {origin} is not this service's origin (DNS-rebinding protection)"
            ));
        }
    }
    None
}

/// The `Host` a URL's origin is reached by: `name[:port]`, lower case, without a default port.
fn url_host(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let name = url.host_str()?.to_ascii_lowercase();
    Some(match url.port() {
        Some(port) => format!("{name}:{port}"),
        None => name,
    })
}

/// `name` of `name:port` (IPv6 literals keep their brackets).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host
            .split(']')
            .next()
            .map_or(host, |n| &host[..n.len() + 1]);
    }
    host.split(':').next().unwrap_or(host)
}

/// The MCP tool descriptors of the paid routes: name = the route's operation id, the route's
/// request schema as `inputSchema`, its price in the description, and the annotations of a
/// read-only tool that reaches outside data.
pub fn tools(paid: &[PaidRouteDoc]) -> Vec<Value> {
    paid.iter().map(tool).collect()
}

fn tool(route: &PaidRouteDoc) -> Value {
    json!({
        "name": route.operation_id,
        "title": route.summary,
        "description": format!(
            "{} Price: {} (x402 v2; without `_meta[\"{META_PAYMENT}\"]` the call returns the payment terms as an error result). Same as POST {}.",
            route.description, route.price_label, route.path
        ),
        "inputSchema": tool_schema(route.input.schema()),
        "outputSchema": output_schema(route.output_schema.as_ref()),
        "annotations": {
            "title": route.summary,
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": true
        }
    })
}

/// A route schema as MCP wants one: an object schema without `$schema` (the official client's
/// validator compiles it in its default draft and would refuse an unknown meta-schema).
fn tool_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object
            .entry("type")
            .or_insert_with(|| Value::String("object".into()));
    }
    schema
}

/// The output schema admits both structured contents a call can carry: the route's answer and
/// the PaymentRequired of an unpaid call. The official TypeScript client validates
/// `structuredContent` against it even on error results, so a schema of the answer alone would
/// make it reject every payment request. The answer's `$defs` move to the root so its local
/// `$ref`s still resolve.
fn output_schema(answer: Option<&Value>) -> Value {
    let mut answer = answer.cloned().unwrap_or_else(|| json!({"type": "object"}));
    let defs = answer
        .as_object_mut()
        .and_then(|object| {
            object.remove("$schema");
            object.remove("$defs")
        })
        .unwrap_or_else(|| Value::Object(Map::new()));
    let mut schema = json!({
        "type": "object",
        "anyOf": [answer, payment_required_schema()]
    });
    if defs.as_object().is_some_and(|defs| !defs.is_empty()) {
        schema["$defs"] = defs;
    }
    schema
}

/// x402's PaymentRequired as the MCP transport carries it (the header's object, without the
/// HTTP body's `description`/`inputSchema` additions).
fn payment_required_schema() -> Value {
    let mut schema = payment_required_body_schema();
    schema["required"] = json!(["x402Version", "accepts"]);
    schema
}

/// Everything `/mcp` needs, fixed at start-up.
#[derive(Clone)]
pub struct McpServer {
    service: ServiceDoc,
    public_host: Option<String>,
    version: &'static str,
    tools_list: Arc<String>,
    modern_tools_list: Arc<String>,
    paths: Arc<HashMap<&'static str, &'static str>>,
    /// Each tool's bazaar extension in the MCP form, put in place of the route's HTTP form in
    /// the terms of an unpaid call.
    bazaars: Arc<HashMap<&'static str, Value>>,
    routes: Router,
    sessions: Arc<Sessions>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("service", &self.service.title)
            .field("tools", &self.paths.len())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// `/mcp` for a service whose paid routes are `paid`, dispatching tool calls into `routes`
    /// (the service's router with its paid routes and layers, without `/mcp` itself).
    pub fn new(
        service: ServiceDoc,
        version: &'static str,
        paid: &[PaidRouteDoc],
        routes: Router,
        settings: McpSettings,
    ) -> Self {
        let modern_tools_list = Arc::new(
            json!({"tools": tools(paid), "resultType": "complete", "ttlMs": LIST_TTL_MS,
                "cacheScope": "public",
                "_meta": {META_SERVER_INFO: server_info(&service, version)}})
            .to_string(),
        );
        Self {
            public_host: settings.public_host.clone(),
            service,
            version,
            modern_tools_list,
            // Serialised once: the descriptors carry every route's schemas (about 100 KB).
            tools_list: Arc::new(json!({"tools": tools(paid)}).to_string()),

            paths: Arc::new(
                paid.iter()
                    .map(|route| (route.operation_id, route.path))
                    .collect(),
            ),
            bazaars: Arc::new(
                paid.iter()
                    .map(|route| {
                        let input = tool_schema(route.input.schema());
                        (
                            route.operation_id,
                            route.input.mcp_bazaar(route.operation_id, input),
                        )
                    })
                    .collect(),
            ),
            routes,
            sessions: Arc::new(Sessions::new(settings)),
        }
    }

    /// The `/mcp` route (POST for messages, DELETE to end a session, GET refused: the server
    /// sends nothing unasked, so it offers no event stream).
    pub fn router(self) -> Router {
        use axum::routing::any;
        Router::new().route(PATH, any(handle)).with_state(self)
    }
}

/// `app` (the service with its paid routes and shared layers) with `/mcp` beside it; tool calls
/// are dispatched into `app` itself, so both transports pass the same gate.
pub fn attach(
    app: Router,
    service: ServiceDoc,
    version: &'static str,
    paid: &[PaidRouteDoc],
    settings: McpSettings,
    max_body_bytes: usize,
) -> Router {
    let mcp = McpServer::new(service, version, paid, app.clone(), settings).router();
    crate::http::with_json_not_found(
        app.merge(crate::http::with_shared_layers(mcp, max_body_bytes)),
    )
}

async fn handle(
    State(server): State<McpServer>,
    extensions: axum::http::Extensions,
    method: Method,
    headers: HeaderMap,
    // Through the extractor, so the shared layers' body limit applies.
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    // The caller's address as the route's limiter sees it (a test harness mocks it).
    let connect = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .cloned()
        .or_else(|| {
            extensions
                .get::<axum::extract::connect_info::MockConnectInfo<SocketAddr>>()
                .map(|mock| ConnectInfo(mock.0))
        });
    if let Some(refusal) = rebinding_refusal(
        server.public_host.as_deref(),
        &headers,
        connect.as_ref().map(|c| c.0),
    ) {
        return refusal;
    }
    match method {
        Method::POST => {}
        Method::DELETE => return end_session(&server, &headers).await,
        _ => {
            return (
                [(header::ALLOW, "POST, DELETE")],
                crate::error::ApiError::new(
                    crate::error::ErrorCode::MethodNotAllowed,
                    "POST JSON-RPC messages to /mcp; this server offers no event stream (GET) and ends sessions on DELETE.",
                ),
            )
                .into_response();
        }
    }
    let bytes = match body {
        Ok(bytes) => bytes,
        Err(rejection) => {
            return rpc_failure(
                rejection.status(),
                Value::Null,
                INVALID_REQUEST,
                &rejection.body_text(),
            );
        }
    };
    let message: Value = match serde_json::from_slice(&bytes) {
        Ok(message) => message,
        Err(error) => {
            return rpc_failure(
                StatusCode::BAD_REQUEST,
                Value::Null,
                PARSE_ERROR,
                &format!("not JSON: {error}"),
            );
        }
    };
    let Some(object) = message.as_object() else {
        return rpc_failure(
            StatusCode::BAD_REQUEST,
            Value::Null,
            INVALID_REQUEST,
            "one JSON-RPC 2.0 message object per POST (batches are not part of the served protocol revisions)",
        );
    };
    let id = object.get("id").cloned();
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        // A response or an error from the client: this server sends no requests, nothing to match.
        return match id {
            Some(_) if object.contains_key("result") || object.contains_key("error") => {
                StatusCode::ACCEPTED.into_response()
            }
            _ => rpc_failure(
                StatusCode::BAD_REQUEST,
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "a JSON-RPC message needs `method`",
            ),
        };
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return rpc_failure(
            StatusCode::BAD_REQUEST,
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "`jsonrpc` must be \"2.0\"",
        );
    }
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    // The era is chosen per request (a dual-era endpoint): `initialize` and requests in its
    // session are legacy; a request naming its revision in `_meta`, or a modern revision in
    // the header, or asking `server/discover`, is modern and served statelessly.
    let meta_version = params
        .get("_meta")
        .and_then(|meta| meta.get(META_PROTOCOL_VERSION));
    let header_version = headers
        .get(PROTOCOL_HEADER)
        .and_then(|value| value.to_str().ok());
    // An `initialize` in the modern envelope is a modern request for a method the revision
    // removed (404); a legacy client's `initialize` carries no `_meta` revision.
    if meta_version.is_some()
        || (method != "initialize"
            && (header_version.is_some_and(|v| MODERN_VERSIONS.contains(&v))
                || method == "server/discover"))
    {
        return modern(&server, id, method, &params, &headers, connect).await;
    }
    if method == "initialize" {
        let Some(id) = id else {
            return rpc_failure(
                StatusCode::BAD_REQUEST,
                Value::Null,
                INVALID_REQUEST,
                "initialize is a request: it needs an id",
            );
        };
        return initialize(&server, id, &params).await;
    }
    if let Some(refusal) = session_refusal(&server, &headers).await {
        return refusal;
    }
    let Some(id) = id else {
        // Notifications (initialized, cancelled, progress…) need no answer.
        return StatusCode::ACCEPTED.into_response();
    };
    match method {
        "ping" => rpc_result(id, json!({}), None),
        "tools/list" => rpc_raw_result(&id, &server.tools_list),
        "tools/call" => match call_tool(&server, &params, &headers, connect).await {
            Ok(result) => rpc_result(id, result, None),
            Err(error) => rpc_failure(StatusCode::OK, id, INVALID_PARAMS, &error.to_string()),
        },
        _ => rpc_failure(
            StatusCode::OK,
            id,
            METHOD_NOT_FOUND,
            &format!("method `{method}` is not served (initialize, ping, tools/list, tools/call)"),
        ),
    }
}

async fn initialize(server: &McpServer, id: Value, params: &Value) -> Response {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    // The client's revision when served, else the newest: the client decides whether it can
    // speak that one. `initialize` selects the legacy era (2026-07-28 has no handshake).
    let version = asked
        .and_then(|asked| LEGACY_VERSIONS.iter().find(|v| **v == asked))
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0]);
    let opened = match server.sessions.open(version).await {
        Ok(opened) => opened,
        Err(e) => return sessions_unavailable(id, &e),
    };
    let Some(session) = opened else {
        return rpc_failure(
            StatusCode::SERVICE_UNAVAILABLE,
            id,
            INTERNAL_ERROR,
            "too many open MCP sessions; retry later",
        );
    };
    let result = json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(&server.service, server.version),
        "instructions": instructions(&server.service),
    });
    rpc_result(id, result, Some(&session))
}

/// The server's identity (`serverInfo`).
fn server_info(service: &ServiceDoc, version: &str) -> Value {
    json!({"name": service.title, "title": service.title, "version": version})
}

/// How to use the server, for the model: what it is and how its tools are paid.
fn instructions(service: &ServiceDoc) -> String {
    format!(
        "{} Every tool is paid with x402 v2 ({} on {}): call it without payment to get the terms as an error result (structuredContent = PaymentRequired), sign them and call again with the PaymentPayload in params._meta[\"{META_PAYMENT}\"]; the receipt comes back in result._meta[\"{META_PAYMENT_RESPONSE}\"]. Failed calls are never settled.",
        service.description, service.asset_symbol, service.network
    )
}

/// A request of the stateless revision (2026-07-28): its `_meta` names the revision and the
/// client's capabilities, the headers mirror the body (`MCP-Protocol-Version`, `Mcp-Method`,
/// `Mcp-Name`), and no session is needed or minted (an `Mcp-Session-Id` is ignored). Methods:
/// `server/discover`, `tools/list`, `tools/call`; results carry `resultType` and the server's
/// identity in `_meta`, list results `ttlMs` and `cacheScope`.
async fn modern(
    server: &McpServer,
    id: Option<Value>,
    method: &str,
    params: &Value,
    headers: &HeaderMap,
    connect: Option<ConnectInfo<SocketAddr>>,
) -> Response {
    let Some(id) = id else {
        // The revision defines no client notifications on this transport; accepting one is
        // the transport's rule for a notification the server can take.
        return StatusCode::ACCEPTED.into_response();
    };
    if let Err(refusal) = modern_refusal(method, params, headers) {
        let (status, code, message, data) = *refusal;
        return rpc_failure_with(status, id, code, &message, data);
    }
    let mut result = match method {
        "server/discover" => json!({
            "supportedVersions": PROTOCOL_VERSIONS,
            "capabilities": {"tools": {"listChanged": false}},
            "instructions": instructions(&server.service),
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "public",
        }),
        "tools/list" => return rpc_raw_result(&id, &server.modern_tools_list),
        "tools/call" => match call_tool(server, params, headers, connect).await {
            Ok(result) => result,
            Err(error) => {
                return rpc_failure(StatusCode::OK, id, INVALID_PARAMS, &error.to_string());
            }
        },
        _ => {
            // The transport's answer to a method the server does not implement.
            return rpc_failure(
                StatusCode::NOT_FOUND,
                id,
                METHOD_NOT_FOUND,
                &format!(
                    "method `{method}` is not served in {} (server/discover, tools/list, tools/call)",
                    MODERN_VERSIONS[0]
                ),
            );
        }
    };
    result["resultType"] = json!("complete");
    if !result.get("_meta").is_some_and(Value::is_object) {
        result["_meta"] = json!({});
    }
    result["_meta"][META_SERVER_INFO] = server_info(&server.service, server.version);
    rpc_result(id, result, None)
}

/// Why a modern request is refused, as (HTTP status, JSON-RPC code, message, data).
type Refusal = Box<(StatusCode, i64, String, Option<Value>)>;

/// The checks of a modern request, in the order the revision gives them: the required `_meta`
/// fields (-32602), the headers against the body (-32020), then the revision (-32022, with
/// the revisions served). All are 400.
fn modern_refusal(method: &str, params: &Value, headers: &HeaderMap) -> Result<(), Refusal> {
    let refuse = |code: i64, message: String, data: Option<Value>| {
        Err(Box::new((StatusCode::BAD_REQUEST, code, message, data)))
    };
    let meta = params.get("_meta");
    let Some(version) = meta
        .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
    else {
        return refuse(
            INVALID_PARAMS,
            format!("params._meta[\"{META_PROTOCOL_VERSION}\"] is required (a string)"),
            None,
        );
    };
    if !meta
        .and_then(|meta| meta.get(META_CLIENT_CAPABILITIES))
        .is_some_and(Value::is_object)
    {
        return refuse(
            INVALID_PARAMS,
            format!("params._meta[\"{META_CLIENT_CAPABILITIES}\"] is required (an object)"),
            None,
        );
    }
    let header = |name: &str| headers.get(name).map(|value| value.to_str().ok());
    match header(PROTOCOL_HEADER) {
        None => {
            return refuse(
                HEADER_MISMATCH,
                "Header mismatch: MCP-Protocol-Version header missing".into(),
                None,
            );
        }
        Some(value) if value != Some(version) => {
            return refuse(
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: MCP-Protocol-Version header value '{}' does not match body value '{version}'",
                    value.unwrap_or("(not text)")
                ),
                None,
            );
        }
        Some(_) => {}
    }
    if !MODERN_VERSIONS.contains(&version) {
        let how = if LEGACY_VERSIONS.contains(&version) {
            format!(
                "; {version} is served after initialize, in a session, without per-request _meta"
            )
        } else {
            String::new()
        };
        return refuse(
            UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version{how}"),
            Some(json!({"supported": PROTOCOL_VERSIONS, "requested": version})),
        );
    }
    match header(METHOD_HEADER) {
        Some(Some(value)) if value == method => {}
        Some(value) => {
            return refuse(
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: Mcp-Method header value '{}' does not match body value '{method}'",
                    value.unwrap_or("(not text)")
                ),
                None,
            );
        }
        None => {
            return refuse(
                HEADER_MISMATCH,
                "Header mismatch: Mcp-Method header missing".into(),
                None,
            );
        }
    }
    if method == "tools/call" {
        let body_name = params.get("name").and_then(Value::as_str);
        match header(NAME_HEADER) {
            None => {
                return refuse(
                    HEADER_MISMATCH,
                    "Header mismatch: Mcp-Name header missing".into(),
                    None,
                );
            }
            Some(value) => {
                let decoded = value.and_then(header_value_text);
                if decoded.is_none() || decoded.as_deref() != body_name {
                    return refuse(
                        HEADER_MISMATCH,
                        format!(
                            "Header mismatch: Mcp-Name header value '{}' does not match body value '{}'",
                            value.unwrap_or("(not text)"),
                            body_name.unwrap_or("")
                        ),
                        None,
                    );
                }
            }
        }
    }
    Ok(())
}

/// A mirrored header's text: as sent, or decoded from the transport's Base64 sentinel form
/// (`=?base64?…?=`, for values that are not plain ASCII). `None` when the sentinel does not
/// decode to UTF-8.
fn header_value_text(value: &str) -> Option<String> {
    use base64::Engine as _;
    match value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_owned()),
    }
}
/// The 503 of a session store (Redis) that cannot be asked.
fn sessions_unavailable(id: Value, error: &crate::state::StateError) -> Response {
    tracing::warn!(error = %error, "MCP session store unavailable");
    rpc_failure(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        INTERNAL_ERROR,
        "the MCP session store is unavailable; retry shortly",
    )
}

/// The refusal of a request outside a live session or in an unserved revision, if any.
async fn session_refusal(server: &McpServer, headers: &HeaderMap) -> Option<Response> {
    if let Some(version) = headers
        .get(PROTOCOL_HEADER)
        .and_then(|value| value.to_str().ok())
        && !LEGACY_VERSIONS.contains(&version)
    {
        return Some(rpc_failure(
            StatusCode::BAD_REQUEST,
            Value::Null,
            INVALID_REQUEST,
            &format!(
                "MCP-Protocol-Version {version} is not served ({})",
                LEGACY_VERSIONS.join(", ")
            ),
        ));
    }
    let Some(session) = headers
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
    else {
        return Some(rpc_failure(
            StatusCode::BAD_REQUEST,
            Value::Null,
            INVALID_REQUEST,
            "Mcp-Session-Id header missing: initialize first",
        ));
    };
    match server.sessions.touch(session).await {
        Ok(true) => None,
        Err(e) => Some(sessions_unavailable(Value::Null, &e)),
        Ok(false) => Some(rpc_failure(
            StatusCode::NOT_FOUND,
            Value::Null,
            INVALID_REQUEST,
            "unknown or expired session: initialize again",
        )),
    }
}

async fn end_session(server: &McpServer, headers: &HeaderMap) -> Response {
    // Without the header the request is malformed (400, as the MCP transport asks of requests
    // without a session id), not about a session that does not exist (404): the OpenAPI
    // description declares the header required, so the two agree.
    let Some(value) = headers.get(SESSION_HEADER) else {
        return rpc_failure(
            StatusCode::BAD_REQUEST,
            Value::Null,
            INVALID_REQUEST,
            &format!("DELETE {PATH} needs the {SESSION_HEADER} header of the session to end"),
        );
    };
    // A header that is present is what the OpenAPI asks for, whatever its bytes: one that is
    // not text names no session this server opened (its ids are hex), so it is the documented
    // 404, not a 400.
    let Ok(session) = value.to_str() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match server.sessions.close(session).await {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => sessions_unavailable(Value::Null, &e),
    }
}

/// A `tools/call`: the tool result, or why its params are invalid.
async fn call_tool(
    server: &McpServer,
    params: &Value,
    headers: &HeaderMap,
    connect: Option<ConnectInfo<SocketAddr>>,
) -> Result<Value, ToolCallError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(ToolCallError::NoName);
    };
    let Some(path) = server.paths.get(name) else {
        return Err(ToolCallError::UnknownTool(name.to_owned()));
    };
    let arguments = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let payment = params
        .get("_meta")
        .and_then(|meta| meta.get(META_PAYMENT))
        .filter(|payment| !payment.is_null());
    let inner = route_request(path, &arguments, payment, headers, connect)?;
    let response = match server.routes.clone().oneshot(inner).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    Ok(tool_result(response, server.bazaars.get(name)).await)
}

/// Why a tool call cannot be made (told to the caller as invalid params).
#[derive(Debug, thiserror::Error)]
enum ToolCallError {
    /// No tool named.
    #[error("tools/call needs `name`")]
    NoName,
    /// No tool of that name.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The arguments do not serialise.
    #[error("arguments: {0}")]
    Arguments(serde_json::Error),
    /// The payment in `_meta` does not encode.
    #[error("_meta[\"{META_PAYMENT}\"]: {0}")]
    PaymentEncoding(x402_core::codec::CodecError),
    /// The encoded payment is not a header value.
    #[error("_meta[\"{META_PAYMENT}\"]: {0}")]
    PaymentHeader(axum::http::header::InvalidHeaderValue),
    /// The request cannot be built.
    #[error("request: {0}")]
    Request(axum::http::Error),
}

/// The HTTP request an HTTP caller would send for this call: the arguments as the JSON body,
/// the payment as the `PAYMENT-SIGNATURE` header, and the caller's address and forwarding
/// headers so limits and resource URLs are the HTTP route's own.
fn route_request(
    path: &str,
    arguments: &Value,
    payment: Option<&Value>,
    headers: &HeaderMap,
    connect: Option<ConnectInfo<SocketAddr>>,
) -> Result<Request<Body>, ToolCallError> {
    let body = serde_json::to_vec(arguments).map_err(ToolCallError::Arguments)?;
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json");
    for name in [
        header::HOST,
        header::FORWARDED,
        header::HeaderName::from_static("x-forwarded-for"),
        header::HeaderName::from_static("x-forwarded-proto"),
        header::HeaderName::from_static("x-forwarded-host"),
    ] {
        if let Some(value) = headers.get(&name) {
            request = request.header(name, value.clone());
        }
    }
    if let Some(payment) = payment {
        let encoded = encode_header(payment).map_err(ToolCallError::PaymentEncoding)?;
        let value = HeaderValue::try_from(encoded).map_err(ToolCallError::PaymentHeader)?;
        request = request.header(PAYMENT_SIGNATURE, value);
    }
    let mut request = request
        .body(Body::from(body))
        .map_err(ToolCallError::Request)?;
    if let Some(connect) = connect {
        request.extensions_mut().insert(connect);
    }
    Ok(request)
}

/// The route's HTTP answer as an MCP tool result; the terms of a 402 carry `bazaar` (the tool's
/// bazaar extension in the MCP form) in place of the route's HTTP one.
async fn tool_result(response: Response, bazaar: Option<&Value>) -> Value {
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap_or_else(|_| Bytes::new());
    let answer: Value = serde_json::from_slice(&body).unwrap_or_else(|_| {
        json!({"error": "internal", "message": "the route's answer was not JSON", "charged": false})
    });
    if status == StatusCode::PAYMENT_REQUIRED {
        // The x402 object of the header; the body (the service descriptions' 402 shape) if the
        // header is somehow absent.
        let mut required = headers
            .get(PAYMENT_REQUIRED)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| decode_header::<Value>(value).ok())
            .unwrap_or(answer);
        if let Some(bazaar) = bazaar
            && let Some(extensions) = required
                .get_mut("extensions")
                .and_then(Value::as_object_mut)
            && extensions.contains_key("bazaar")
        {
            extensions.insert("bazaar".into(), bazaar.clone());
        }
        return json!({
            "isError": true,
            "structuredContent": required,
            "content": [{"type": "text", "text": required.to_string()}]
        });
    }
    if status.is_success() {
        let mut result = json!({
            "isError": false,
            "structuredContent": answer,
            "content": [{"type": "text", "text": answer.to_string()}]
        });
        if let Some(receipt) = headers
            .get(PAYMENT_RESPONSE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| decode_header::<Value>(value).ok())
        {
            result["_meta"] = json!({ META_PAYMENT_RESPONSE: receipt });
        }
        return result;
    }
    // Refused or failed: the route's JSON error alone (it says `charged`), no tool content.
    json!({
        "isError": true,
        "content": [{"type": "text", "text": answer.to_string()}],
        "_meta": {"http_status": status.as_u16()}
    })
}

fn rpc_result(id: Value, result: Value, session: Option<&str>) -> Response {
    let mut response =
        axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
    if let Some(session) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        response.headers_mut().insert(SESSION_HEADER, session);
    }
    response
}

/// A JSON-RPC result whose `result` is already serialised JSON.
fn rpc_raw_result(id: &Value, result: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}"),
    )
        .into_response()
}

fn rpc_failure(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    rpc_failure_with(status, id, code, message, None)
}

fn rpc_failure_with(
    status: StatusCode,
    id: Value,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Response {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    (
        status,
        axum::Json(json!({"jsonrpc": "2.0", "id": id, "error": error})),
    )
        .into_response()
}

/// Open sessions: in this process (id → negotiated revision and last use), or in Redis.
struct Sessions {
    settings: McpSettings,
    open: Mutex<HashMap<String, (&'static str, Instant)>>,
    shared: Option<crate::state::RedisSessions>,
}

impl Sessions {
    fn new(settings: McpSettings) -> Self {
        Self {
            shared: settings.state.mcp_sessions(),
            settings,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// A new session's id, or `None` when `max_sessions` are live.
    async fn open(
        &self,
        version: &'static str,
    ) -> Result<Option<String>, crate::state::StateError> {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            return Ok(None);
        }
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        if let Some(shared) = &self.shared {
            // The revision is not kept: each request names its own (MCP-Protocol-Version).
            let opened = shared
                .open(&id, self.settings.session_idle, self.settings.max_sessions)
                .await?;
            return Ok(opened.then_some(id));
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= self.settings.max_sessions {
            let idle = self.settings.session_idle;
            open.retain(|_, (_, used)| used.elapsed() < idle);
        }
        if open.len() >= self.settings.max_sessions {
            return Ok(None);
        }
        open.insert(id.clone(), (version, Instant::now()));
        Ok(Some(id))
    }

    async fn touch(&self, id: &str) -> Result<bool, crate::state::StateError> {
        if let Some(shared) = &self.shared {
            return shared.touch(id, self.settings.session_idle).await;
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        Ok(match open.get_mut(id) {
            Some((_, used)) if used.elapsed() < self.settings.session_idle => {
                *used = Instant::now();
                true
            }
            Some(_) => {
                open.remove(id);
                false
            }
            None => false,
        })
    }

    async fn close(&self, id: &str) -> Result<bool, crate::state::StateError> {
        if let Some(shared) = &self.shared {
            return shared.close(id).await;
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        Ok(open.remove(id).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_schema_hoists_defs_and_admits_payment_required() {
        let answer = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "required": ["a"],
            "$defs": {"A": {"type": "string"}}
        });
        let schema = output_schema(Some(&answer));
        assert_eq!(schema["$defs"]["A"], json!({"type": "string"}));
        assert!(schema["anyOf"][0].get("$defs").is_none());
        assert!(schema.get("$schema").is_none());
        let validator = jsonschema::validator_for(&schema).expect("compiles");
        assert!(validator.is_valid(&json!({"a": "x"})));
        let required = json!({"x402Version": 2, "error": "payment required", "accepts": [{
            "scheme": "exact", "network": "eip155:8453", "amount": "10000",
            "asset": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
            "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds": 90}]});
        assert!(validator.is_valid(&required));
        assert!(!validator.is_valid(&json!({"a": 1})));
    }

    #[test]
    fn rebound_hosts_and_foreign_origins_are_refused() {
        let loopback: SocketAddr = "127.0.0.1:5000".parse().expect("address");
        let remote: SocketAddr = "203.0.113.9:5000".parse().expect("address");
        let headers = |pairs: &[(&'static str, &str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from_str(value).expect("value"));
            }
            map
        };
        let check = |public: Option<&str>, pairs: &[(&'static str, &str)], peer| {
            rebinding_refusal(public, &headers(pairs), Some(peer)).map(|r| r.status())
        };
        let refused = Some(StatusCode::FORBIDDEN);
        assert_eq!(check(None, &[("host", "localhost:8080")], loopback), None);
        assert_eq!(check(None, &[("host", "127.0.0.1:8080")], loopback), None);
        assert_eq!(check(None, &[("host", "[::1]:8080")], loopback), None);
        assert_eq!(check(None, &[("host", "evil.example")], loopback), refused);
        assert_eq!(
            check(
                None,
                &[("host", "evil.example"), ("origin", "http://evil.example")],
                loopback
            ),
            refused
        );
        // Behind a local proxy: the public host is allowed.
        let public = Some("docs.example.com");
        assert_eq!(
            check(public, &[("host", "docs.example.com")], loopback),
            None
        );
        // Remote peers name whatever host reached them; a foreign origin is refused.
        assert_eq!(check(None, &[("host", "docs.example.com")], remote), None);
        assert_eq!(
            check(
                None,
                &[
                    ("host", "docs.example.com"),
                    ("origin", "https://docs.example.com")
                ],
                remote
            ),
            None
        );
        assert_eq!(
            check(
                None,
                &[
                    ("host", "docs.example.com"),
                    ("origin", "https://other.example")
                ],
                remote
            ),
            refused
        );
        assert_eq!(
            McpSettings::for_public_url(Some("https://Docs.Example.com:8443/")).public_host,
            Some("docs.example.com:8443".to_owned())
        );
    }

    #[tokio::test]
    async fn sessions_are_bounded_and_end() {
        let sessions = Sessions::new(McpSettings {
            max_sessions: 2,
            session_idle: Duration::from_secs(60),
            ..McpSettings::default()
        });
        let open = || async { sessions.open("2025-11-25").await.expect("memory") };
        let first = open().await.expect("room");
        let second = open().await.expect("room");
        assert_ne!(first, second);
        assert_eq!(first.len(), 32);
        assert!(open().await.is_none(), "third refused");
        assert!(sessions.touch(&first).await.expect("memory"));
        assert!(sessions.close(&first).await.expect("memory"));
        assert!(!sessions.touch(&first).await.expect("memory"));
        assert!(!sessions.close(&first).await.expect("memory"));
        assert!(open().await.is_some(), "room again");
    }

    #[tokio::test]
    async fn idle_sessions_expire() {
        let sessions = Sessions::new(McpSettings {
            max_sessions: 1,
            session_idle: Duration::ZERO,
            ..McpSettings::default()
        });
        let first = sessions
            .open("2025-11-25")
            .await
            .expect("memory")
            .expect("room");
        assert!(
            !sessions.touch(&first).await.expect("memory"),
            "expired at once"
        );
        assert!(
            sessions.open("2025-11-25").await.expect("memory").is_some(),
            "expired one evicted"
        );
    }
}
