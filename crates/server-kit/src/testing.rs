//! Test support for the servers' own tests (feature `testing`): the app in process
//! ([`TestApp`], [`Reply`]), a stand-in facilitator on a wiremock server, and payments signed by
//! a fixed test key, and a counterparty that never answers ([`SilentServer`]).

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use alloy::primitives::keccak256;
use alloy::signers::local::PrivateKeySigner;
use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{HeaderMap, Method, Request, StatusCode, header, request};
use serde_json::{Value, json};
use tower::ServiceExt as _;
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};
use x402_core::{PaymentRequired, SettleResponse, decode_header, encode_header};

/// The address of the test payer (the key is `keccak256("server-kit-test-payer")`).
pub fn test_payer() -> PaymentSigner {
    let key = PrivateKeySigner::from_bytes(&keccak256("server-kit-test-payer"))
        .unwrap_or_else(|e| panic!("the test key is valid: {e}"));
    PaymentSigner::new(key, 8453)
}

/// The `PAYMENT-SIGNATURE` value paying `terms`, with a nonce derived from `label` (so two
/// labels are two payments and one label is a replay).
pub fn payment_signature(terms: &PaymentRequired, label: &str) -> String {
    encode_header(&payment_payload(terms, label))
        .unwrap_or_else(|e| panic!("the payment encodes: {e}"))
}

/// [`payment_signature`] carrying payment id `id` (the `payment-identifier` extension, as a
/// client echoes it): the same authorization as without it, for the same `label`.
pub fn payment_signature_with_id(terms: &PaymentRequired, label: &str, id: &str) -> String {
    encode_header(&payment_payload_with_id(terms, label, id))
        .unwrap_or_else(|e| panic!("the payment encodes: {e}"))
}

/// [`payment_payload`] carrying payment id `id`, as JSON (for `_meta["x402/payment"]`).
pub fn payment_payload_with_id(terms: &PaymentRequired, label: &str, id: &str) -> Value {
    let payload: x402_core::PaymentPayload = serde_json::from_value(payment_payload(terms, label))
        .unwrap_or_else(|e| panic!("the payment reads back: {e}"));
    serde_json::to_value(x402_core::payment_identifier::with_payment_id(payload, id))
        .unwrap_or_else(|e| panic!("the payment serialises: {e}"))
}

/// The PaymentPayload paying `terms` with a nonce derived from `label`, as JSON: what an MCP
/// client puts in `_meta["x402/payment"]`.
pub fn payment_payload(terms: &PaymentRequired, label: &str) -> Value {
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
    serde_json::to_value(&payload).unwrap_or_else(|e| panic!("the payment serialises: {e}"))
}

/// A stand-in facilitator that must not be called: any call answers 500 and fails the test
/// when the server is dropped (routes a test mounts itself take precedence).
pub async fn silent_facilitator() -> MockServer {
    let facilitator = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(500))
        .with_priority(u8::MAX)
        .expect(0)
        .named("facilitator must not be called")
        .mount(&facilitator)
        .await;
    facilitator
}

/// A loopback port that accepts connections and never answers: a counterparty that hangs, so
/// whatever connects to it runs into its own timeout. The accepted connections are held open
/// (a dropped one would be a reset, not silence) until the server is dropped.
#[derive(Debug)]
pub struct SilentServer {
    address: SocketAddr,
    holder: tokio::task::JoinHandle<()>,
}

impl SilentServer {
    /// Listens on a free port of 127.0.0.1 (inside a tokio runtime).
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .unwrap_or_else(|e| panic!("a loopback port to listen on: {e}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("the listener's address: {e}"));
        let holder = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((stream, _)) = listener.accept().await {
                held.push(stream);
            }
        });
        Self { address, holder }
    }

    /// Its address (127.0.0.1 and the port).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.address.port()
    }
}

impl Drop for SilentServer {
    fn drop(&mut self) {
        // Closes the listener and every connection it holds.
        self.holder.abort();
    }
}

/// A facilitator's `GET /supported` answer listing `exact` on `network` only.
pub fn supported_mock(network: &str) -> Mock {
    Mock::given(method("GET"))
        .and(path("/supported"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "kinds": [{"x402Version": 2, "scheme": "exact", "network": network}],
            "extensions": [],
            "signers": {}
        })))
}

/// The transaction hash the stand-in facilitator's settlements report.
pub fn test_settlement_tx() -> String {
    format!("0x{}", "ab".repeat(32))
}

/// A facilitator's `/verify` (always valid for the test payer) and `/settle` (always
/// successful) answers, unmounted and uncounted.
pub fn paying_mocks() -> (Mock, Mock) {
    paying_mocks_settling_after(std::time::Duration::ZERO)
}

/// [`paying_mocks`] whose settlement answers after `delay` (a settlement in progress, or one
/// past the facilitator's timeout: an unknown outcome).
pub fn paying_mocks_settling_after(delay: std::time::Duration) -> (Mock, Mock) {
    let payer = test_payer().address().to_checksum(None);
    let verify = Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"isValid": true, "payer": payer})),
        );
    let settle = Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({
                    "success": true,
                    "network": "eip155:8453",
                    "transaction": test_settlement_tx(),
                    "payer": payer,
                }))
                .set_delay(delay),
        );
    (verify, settle)
}

/// Mounts [`paying_mocks`] on `facilitator`, expecting exactly `settlements` settlements;
/// wiremock checks the count when the server is dropped.
pub async fn mount_paying_facilitator(facilitator: &MockServer, settlements: u64) {
    let (verify, settle) = paying_mocks();
    verify.mount(facilitator).await;
    settle
        .expect(settlements)
        .named("settlements")
        .mount(facilitator)
        .await;
}

/// The sum of the series of metric `name` on a Prometheus `/metrics` text whose labels include
/// every one of `labels` (`outcome="paid"`); 0 when there is none. Summing over the series a
/// test does not name keeps it independent of labels added later.
pub fn metric_sum(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
        })
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The fixed client address of every in-process request ([`MockConnectInfo`]): `oneshot`
/// carries no connection, and the gate counts requests per client.
pub const TEST_CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 9);

/// An app's router driven in process: requests go through `oneshot` from [`TEST_CLIENT`], with
/// the `Host` header the app builds its resource URLs from.
#[derive(Debug, Clone)]
pub struct TestApp {
    router: Router,
    host: Option<String>,
}

impl TestApp {
    /// `router` as seen from [`TEST_CLIENT`], sending no `Host` header.
    pub fn new(router: Router) -> Self {
        Self {
            router: router.layer(MockConnectInfo(TEST_CLIENT)),
            host: None,
        }
    }

    /// Every request carries `Host: host`.
    #[must_use]
    pub fn with_host(mut self, host: &str) -> Self {
        self.host = Some(host.to_owned());
        self
    }

    /// The router, connect info layered in.
    pub fn router(&self) -> &Router {
        &self.router
    }

    /// A request to `path` with the app's `Host` header, for headers of a test's own.
    pub fn request(&self, method: Method, path: &str) -> request::Builder {
        let request = Request::builder().method(method).uri(path);
        match &self.host {
            Some(host) => request.header(header::HOST, host.as_str()),
            None => request,
        }
    }

    /// Sends `request`; `'static`, so it can be spawned to run requests at once.
    pub fn send(&self, request: Request<Body>) -> impl Future<Output = Reply> + Send + use<> {
        let router = self.router.clone();
        async move {
            let response = router.oneshot(request).await.unwrap_or_else(|e| match e {});
            let (parts, body) = response.into_parts();
            let bytes = to_bytes(body, usize::MAX)
                .await
                .unwrap_or_else(|e| panic!("the body is read: {e}"));
            Reply {
                status: parts.status,
                headers: parts.headers,
                body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                bytes,
            }
        }
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.built(self.request(Method::GET, path), Body::empty()))
            .await
    }

    /// [`metric_sum`] over the app's own `/metrics`.
    pub async fn metric_sum(&self, name: &str, labels: &[&str]) -> f64 {
        metric_sum(&self.get("/metrics").await.text_lossy(), name, labels)
    }

    /// `POST path` with a JSON content type, `headers` and `body` (any bytes).
    pub async fn post(&self, path: &str, headers: &[(&str, &str)], body: impl Into<Body>) -> Reply {
        let mut request = self
            .request(Method::POST, path)
            .header(header::CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(self.built(request, body.into())).await
    }

    /// `POST path` with a JSON content type and `body`, paid with the `PAYMENT-SIGNATURE` value
    /// `signature`; `'static`, so copies of one payment can be spawned at once.
    pub fn post_paid(
        &self,
        path: &str,
        signature: &str,
        body: &str,
    ) -> impl Future<Output = Reply> + Send + use<> {
        let request = self
            .request(Method::POST, path)
            .header(header::CONTENT_TYPE, "application/json")
            .header("payment-signature", signature);
        self.send(self.built(request, Body::from(body.to_owned())))
    }

    /// `POST path` with the JSON `body`, paid with the `PAYMENT-SIGNATURE` value `payment` if
    /// given.
    pub async fn post_json(&self, path: &str, body: &Value, payment: Option<&str>) -> Reply {
        let headers: &[(&str, &str)] = match payment {
            Some(signature) => &[("payment-signature", signature)],
            None => &[],
        };
        self.post(path, headers, body.to_string()).await
    }

    /// The 402 for `body` on `path`, then the same request paid by [`test_payer`] with a
    /// payment labelled `label` ([`payment_signature`]).
    pub async fn pay(&self, path: &str, body: &Value, label: &str) -> Reply {
        let unpaid = self.post_json(path, body, None).await;
        assert_eq!(
            unpaid.status,
            StatusCode::PAYMENT_REQUIRED,
            "{}",
            unpaid.text_lossy()
        );
        let signature = payment_signature(&unpaid.terms(), label);
        self.post_json(path, body, Some(&signature)).await
    }

    /// `initialize` on `/mcp`: a session whose requests carry its `Mcp-Session-Id`.
    pub async fn mcp_session(&self) -> McpSession {
        let reply = self
            .post(
                crate::mcp::PATH,
                &[],
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": crate::mcp::LEGACY_VERSIONS[0], "capabilities": {},
                    "clientInfo": {"name": "server-kit-test", "version": "0"}}})
                .to_string(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text_lossy());
        let id = reply
            .header(crate::mcp::SESSION_HEADER)
            .unwrap_or_else(|| panic!("initialize opens a session: {reply:?}"))
            .to_owned();
        McpSession {
            app: self.clone(),
            id,
        }
    }

    /// A JSON-RPC request of the stateless MCP revision (2026-07-28) on `/mcp`, as a conforming
    /// client sends it: the revision, client info and capabilities in `params._meta`, the
    /// `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name` headers, and no
    /// session. `headers` are set after those: naming one replaces it, an empty value removes it.
    pub async fn mcp_modern(&self, method: &str, params: Value, headers: &[(&str, &str)]) -> Reply {
        let mut params = params;
        if !params.is_object() {
            params = json!({});
        }
        let meta = params["_meta"].as_object().cloned().unwrap_or_default();
        let mut envelope = json!({
            crate::mcp::META_PROTOCOL_VERSION: crate::mcp::MODERN_VERSIONS[0],
            crate::mcp::META_CLIENT_CAPABILITIES: {},
            "io.modelcontextprotocol/clientInfo": {"name": "server-kit-test", "version": "0"}
        });
        for (key, value) in meta {
            envelope[key] = value;
        }
        params["_meta"] = envelope;
        let name = params["name"].as_str().map(str::to_owned);
        let mut request = self
            .request(Method::POST, crate::mcp::PATH)
            .header(header::CONTENT_TYPE, "application/json")
            .header(crate::mcp::PROTOCOL_HEADER, crate::mcp::MODERN_VERSIONS[0])
            .header(crate::mcp::METHOD_HEADER, method);
        if let Some(name) = name {
            request = request.header(crate::mcp::NAME_HEADER, name);
        }
        let mut built = self.built(
            request,
            Body::from(
                json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string(),
            ),
        );
        for (name, value) in headers {
            let name = header::HeaderName::try_from(*name)
                .unwrap_or_else(|e| panic!("header name {name}: {e}"));
            if value.is_empty() {
                built.headers_mut().remove(name);
                continue;
            }
            match header::HeaderValue::try_from(*value) {
                Ok(value) => {
                    built.headers_mut().insert(name, value);
                }
                Err(e) => panic!("header value {value}: {e}"),
            }
        }
        self.send(built).await
    }

    fn built(&self, request: request::Builder, body: Body) -> Request<Body> {
        request
            .body(body)
            .unwrap_or_else(|e| panic!("a valid request: {e}"))
    }
}

/// An MCP session on a [`TestApp`]'s `/mcp`.
#[derive(Debug)]
pub struct McpSession {
    app: TestApp,
    /// The session id.
    pub id: String,
}

impl McpSession {
    /// The JSON-RPC request `method` with `params` in this session: the HTTP reply.
    pub async fn rpc(&self, method: &str, params: Value) -> Reply {
        let request = self
            .app
            .request(Method::POST, crate::mcp::PATH)
            .header(header::CONTENT_TYPE, "application/json")
            .header(crate::mcp::SESSION_HEADER, self.id.as_str())
            .header(crate::mcp::PROTOCOL_HEADER, crate::mcp::LEGACY_VERSIONS[0]);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.app
            .send(self.app.built(request, Body::from(body.to_string())))
            .await
    }

    /// `tools/call` of `name` with `arguments`, paid with `payment` in `_meta` if given: the
    /// JSON-RPC `result` (fails the test on a JSON-RPC error).
    pub async fn call_tool(&self, name: &str, arguments: &Value, payment: Option<&Value>) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(payment) = payment {
            params["_meta"] = json!({ crate::mcp::META_PAYMENT: payment });
        }
        let reply = self.rpc("tools/call", params).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text_lossy());
        let body = reply.json();
        assert!(body.get("error").is_none(), "{body}");
        body["result"].clone()
    }

    /// The payment-required result of an unpaid call, then the same call paid by
    /// [`test_payer`] with a payment labelled `label`: both results.
    pub async fn pay_tool(&self, name: &str, arguments: &Value, label: &str) -> (Value, Value) {
        let unpaid = self.call_tool(name, arguments, None).await;
        assert_eq!(unpaid["isError"], true, "{unpaid}");
        let terms: PaymentRequired = serde_json::from_value(unpaid["structuredContent"].clone())
            .unwrap_or_else(|e| panic!("structuredContent is a PaymentRequired ({e}): {unpaid}"));
        let payment = payment_payload(&terms, label);
        let paid = self.call_tool(name, arguments, Some(&payment)).await;
        (unpaid, paid)
    }

    /// `DELETE /mcp` for this session: the status.
    pub async fn end(&self) -> StatusCode {
        let request = self
            .app
            .request(Method::DELETE, crate::mcp::PATH)
            .header(crate::mcp::SESSION_HEADER, self.id.as_str());
        self.app
            .send(self.app.built(request, Body::empty()))
            .await
            .status
    }
}

/// A [`TestApp`] with the wiremock server standing in for its facilitator.
#[derive(Debug)]
pub struct PaidTestApp {
    /// The app.
    pub app: TestApp,
    /// Its facilitator.
    pub facilitator: MockServer,
}

impl PaidTestApp {
    /// The router `build` makes for `facilitator` (it configures the facilitator's URL),
    /// sending `Host: host`.
    pub fn new(
        host: &str,
        facilitator: MockServer,
        build: impl FnOnce(&MockServer) -> Router,
    ) -> Self {
        Self {
            app: TestApp::new(build(&facilitator)).with_host(host),
            facilitator,
        }
    }

    /// Mounts `mock` on the facilitator.
    pub async fn mount(&self, mock: Mock) {
        mock.mount(&self.facilitator).await;
    }
}

impl std::ops::Deref for PaidTestApp {
    type Target = TestApp;

    fn deref(&self) -> &TestApp {
        &self.app
    }
}

/// An answer of a [`TestApp`].
#[derive(Debug)]
pub struct Reply {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body parsed as JSON; `Null` when it is not JSON ([`Self::json`] insists).
    pub body: Value,
    /// The body as sent, for byte-for-byte comparisons.
    pub bytes: Bytes,
}

impl Reply {
    /// Header `name` (ASCII), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|value| {
            value
                .to_str()
                .unwrap_or_else(|e| panic!("header {name} is ASCII: {e}"))
        })
    }

    /// The body as JSON, sent as `application/json`; fails the test if it is not.
    pub fn json(&self) -> Value {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{self:?}"
        );
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|e| panic!("JSON body ({e}): {}", self.text_lossy()))
    }

    /// The body as UTF-8 text; fails the test if it is not.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.bytes).unwrap_or_else(|e| panic!("UTF-8 body: {e}"))
    }

    /// The body as text, invalid UTF-8 replaced (for assertion messages).
    pub fn text_lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The decoded `PAYMENT-REQUIRED` header: the 402's terms.
    pub fn terms(&self) -> PaymentRequired {
        let header = self
            .header("payment-required")
            .unwrap_or_else(|| panic!("a PAYMENT-REQUIRED header: {self:?}"));
        decode_header(header).unwrap_or_else(|e| panic!("PAYMENT-REQUIRED decodes: {e}"))
    }

    /// The decoded `PAYMENT-RESPONSE` header (the settlement receipt), if any.
    pub fn receipt(&self) -> Option<SettleResponse> {
        self.header("payment-response").map(|value| {
            decode_header(value).unwrap_or_else(|e| panic!("PAYMENT-RESPONSE decodes: {e}"))
        })
    }

    /// An error answer of the one JSON shape: `status`, `error` is `code`, not charged, with a
    /// message.
    pub fn assert_error(&self, status: StatusCode, code: &str) {
        self.assert_error_charged(status, code, &Value::Bool(false));
    }

    /// An error answer of the one JSON shape whose `charged` is `charged` (`true` or `null`
    /// only on the answers that say so), with a message; never new terms.
    pub fn assert_error_charged(&self, status: StatusCode, code: &str, charged: &Value) {
        assert_eq!(self.status, status, "{self:?}");
        let body = self.json();
        assert_eq!(body["error"], code, "{body}");
        assert_eq!(&body["charged"], charged, "{body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
        assert!(self.header("payment-required").is_none(), "{self:?}");
    }

    /// The `field` of every entry of the error body's `details`.
    pub fn detail_fields(&self) -> Vec<String> {
        self.body["details"]
            .as_array()
            .map(|details| {
                details
                    .iter()
                    .filter_map(|detail| detail["field"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::SilentServer;

    #[tokio::test]
    async fn the_silent_server_accepts_and_never_answers() {
        let server = SilentServer::start().await;
        assert!(server.address().ip().is_loopback());
        let mut stream = tokio::net::TcpStream::connect(server.address())
            .await
            .expect("it accepts");
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("the request is taken");
        let mut buffer = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut buffer)).await;
        assert!(read.is_err(), "no answer and no close: {read:?}");
        drop(server);
        // Once dropped, the held connection is closed (end of stream or reset).
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("the connection ends once the server is dropped");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    }
}
