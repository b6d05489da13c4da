//! `/mcp` in process: the session life cycle, the tools generated from the route table, and
//! tool calls through the same gate as the HTTP routes (the same terms for the same input, paid
//! calls settled once with the receipt in `_meta`, failed calls not settled). A wiremock server
//! stands in for the facilitator; the files are committed fixtures of testdata/pdf.

mod support;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use server_kit::mcp::{LEGACY_VERSIONS, META_PAYMENT_RESPONSE, SESSION_HEADER};
use server_kit::testing::{mount_paying_facilitator, payment_payload_with_id};
use support::pdf::blank_pdf;
use support::{App, inline};

/// `mcp` (an unpaid tool result's terms) is `http` (the HTTP 402's terms for the same input)
/// with the bazaar extension in the MCP form: `info.input.type: "mcp"` naming `tool`, with the
/// HTTP form's example as the arguments' example and the same output declaration.
fn assert_same_terms_in_mcp_form(mcp: &Value, http: &Value, tool: &str) {
    let (mut mcp, mut http) = (mcp.clone(), http.clone());
    let bazaar = mcp["extensions"]
        .as_object_mut()
        .and_then(|e| e.remove("bazaar"))
        .expect("an MCP bazaar");
    let http_bazaar = http["extensions"]
        .as_object_mut()
        .and_then(|e| e.remove("bazaar"))
        .expect("an HTTP bazaar");
    assert_eq!(mcp, http, "the same terms otherwise");
    let input = &bazaar["info"]["input"];
    assert_eq!(input["type"], "mcp");
    assert_eq!(input["toolName"], tool);
    assert_eq!(input["transport"], "streamable-http");
    assert_eq!(input["example"], http_bazaar["info"]["input"]["body"]);
    assert_eq!(input["inputSchema"]["type"], "object");
    assert_eq!(
        bazaar["schema"]["properties"]["output"],
        http_bazaar["schema"]["properties"]["output"]
    );
    // The declaration validates its own info, as @x402/extensions checks it.
    let validator = jsonschema::validator_for(&bazaar["schema"]).expect("compiles");
    assert!(validator.is_valid(&bazaar["info"]), "{bazaar}");
}

fn rpc(method: &str, id: u64, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[tokio::test]
async fn sessions_open_on_initialize_and_end_on_delete() {
    let app = App::new().await;
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", LEGACY_VERSIONS[0]),
        // initialize is the legacy handshake: a client asking the stateless revision there
        // gets the newest legacy one.
        ("2026-07-28", LEGACY_VERSIONS[0]),
    ] {
        let reply = app
            .app
            .post(
                "/mcp",
                &[],
                rpc(
                    "initialize",
                    1,
                    json!({"protocolVersion": asked, "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"}}),
                ),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        let body = reply.json();
        assert_eq!(body["result"]["protocolVersion"], answered, "{body}");
        assert_eq!(
            body["result"]["capabilities"]["tools"]["listChanged"],
            false
        );
        assert!(reply.header(SESSION_HEADER).is_some_and(|s| s.len() == 32));
    }

    // A rebound name from a loopback peer (DNS rebinding) is refused before anything else.
    let request = axum::http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", "evil.example")
        .header("origin", "http://evil.example")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(rpc("initialize", 1, json!({}))))
        .expect("request");
    let rebound = app.app.send(request).await;
    assert_eq!(rebound.status, StatusCode::FORBIDDEN);

    // Without a session, with an unknown one, with an unserved revision.
    let reply = app
        .app
        .post("/mcp", &[], rpc("tools/list", 2, json!({})))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{:?}", reply.body);
    let reply = app
        .app
        .post(
            "/mcp",
            &[(SESSION_HEADER, "00")],
            rpc("tools/list", 2, json!({})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let session = app.app.mcp_session().await;
    let reply = app
        .app
        .post(
            "/mcp",
            &[
                (SESSION_HEADER, session.id.as_str()),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            rpc("tools/list", 2, json!({})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);

    // Notifications are accepted without an answer; ping answers; an unknown method is -32601.
    let reply = app
        .app
        .post(
            "/mcp",
            &[(SESSION_HEADER, session.id.as_str())],
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.bytes.is_empty());
    assert_eq!(
        session.rpc("ping", json!({})).await.json()["result"],
        json!({})
    );
    let unknown = session.rpc("resources/list", json!({})).await.json();
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let reply = app
        .app
        .post(
            "/mcp",
            &[(SESSION_HEADER, session.id.as_str())],
            "{not json",
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json()["error"]["code"], -32700);
    // No event stream.
    assert_eq!(
        app.app.get("/mcp").await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );

    // DELETE as the OpenAPI describes it (the Mcp-Session-Id header required): a present
    // header is never refused as malformed (schemathesis's ST202), whatever its bytes; an
    // absent one is the 400 the description documents.
    let delete = |value: Option<&[u8]>| {
        let mut request = axum::http::Request::builder().method("DELETE").uri("/mcp");
        if let Some(value) = value {
            request = request.header(
                SESSION_HEADER,
                axum::http::HeaderValue::from_bytes(value).expect("a header value"),
            );
        }
        app.app
            .send(request.body(axum::body::Body::empty()).expect("request"))
    };
    assert_eq!(delete(None).await.status, StatusCode::BAD_REQUEST);
    for unknown in [&b"00"[..], b"\xe9t\xe9", b"  x  "] {
        assert_eq!(delete(Some(unknown)).await.status, StatusCode::NOT_FOUND);
    }
    assert_eq!(session.end().await, StatusCode::NO_CONTENT);
    assert_eq!(session.end().await, StatusCode::NOT_FOUND);
    assert_eq!(
        session.rpc("tools/list", json!({})).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn tools_are_the_paid_routes_with_their_schemas_prices_and_read_only_annotations() {
    let app = App::new().await;
    let session = app.app.mcp_session().await;
    let tools = session.rpc("tools/list", json!({})).await.json()["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["extract_document", "ocr_read"]);
    let openapi = app.get("/openapi.json").await.json();
    for (tool, path) in tools
        .as_array()
        .expect("tools")
        .iter()
        .zip(["/document", "/ocr"])
    {
        // The route's request schema, without the meta-schema line.
        let mut route_schema =
            openapi["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
                .clone();
        route_schema
            .as_object_mut()
            .expect("object")
            .remove("$schema");
        assert_eq!(tool["inputSchema"], route_schema, "{path}");
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert_eq!(tool["outputSchema"]["type"], "object");
        assert_eq!(tool["annotations"]["readOnlyHint"], true);
        assert_eq!(tool["annotations"]["openWorldHint"], true);
        assert_eq!(tool["annotations"]["destructiveHint"], false);
        let description = tool["description"].as_str().expect("description");
        assert!(description.contains("USDC"), "{description}");
        // Both structured contents a call can carry pass the output schema.
        let validator = jsonschema::validator_for(&tool["outputSchema"]).expect("compiles");
        let pdf = inline("zugferd_basic_einfach.pdf");
        let request = if path == "/ocr" {
            json!({"image_base64": pdf["pdf_base64"], "mime": "application/pdf"})
        } else {
            pdf
        };
        let terms = app.post_to(path, &request, None).await;
        let required = serde_json::to_value(terms.terms()).expect("json");
        assert!(validator.is_valid(&required), "{path}: {required}");
    }
}

#[tokio::test]
async fn an_unpaid_call_gets_the_http_terms_and_a_paid_one_the_answer_and_the_receipt() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let http = app.post(&body, None).await;
    assert_eq!(http.status, StatusCode::PAYMENT_REQUIRED);
    let session = app.app.mcp_session().await;
    let (unpaid, paid) = session.pay_tool("extract_document", &body, "mcp-1").await;

    // The same terms as the HTTP 402 for the same input, in both forms, but for the bazaar
    // extension in its MCP form.
    let terms = serde_json::to_value(http.terms()).expect("json");
    assert_same_terms_in_mcp_form(&unpaid["structuredContent"], &terms, "extract_document");
    let text: Value = serde_json::from_str(unpaid["content"][0]["text"].as_str().expect("text"))
        .expect("JSON text");
    assert_eq!(text, unpaid["structuredContent"]);

    assert_eq!(paid["isError"], false, "{paid}");
    let answer = &paid["structuredContent"];
    assert_eq!(answer["pages_processed"], 1);
    assert!(answer["header"]["invoice_number"].is_object(), "{answer}");
    let text: Value =
        serde_json::from_str(paid["content"][0]["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(&text, answer);
    // The answer passes the tool's output schema, as the official client checks.
    let tools = session.rpc("tools/list", json!({})).await.json();
    let output_schema = &tools["result"]["tools"][0]["outputSchema"];
    let validator = jsonschema::validator_for(output_schema).expect("compiles");
    assert!(
        validator.is_valid(answer),
        "{:?}",
        validator.iter_errors(answer).next()
    );
    let receipt = &paid["_meta"][META_PAYMENT_RESPONSE];
    assert_eq!(receipt["success"], true, "{paid}");
    assert_eq!(receipt["network"], "eip155:8453");

    // The same payment again: the replay guard refuses it, nothing more is settled (the
    // facilitator expects exactly one settlement).
    let replay_terms: x402_core::PaymentRequired =
        serde_json::from_value(unpaid["structuredContent"].clone()).expect("terms");
    let payment = server_kit::testing::payment_payload(&replay_terms, "mcp-1");
    let replayed = session
        .call_tool("extract_document", &body, Some(&payment))
        .await;
    assert_eq!(replayed["isError"], true, "{replayed}");
    assert!(replayed["_meta"].get(META_PAYMENT_RESPONSE).is_none());
}

#[tokio::test]
async fn a_tool_call_repeated_with_its_payment_id_gets_the_same_result_and_is_paid_once() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let session = app.app.mcp_session().await;
    let unpaid = session.call_tool("extract_document", &body, None).await;
    let terms: x402_core::PaymentRequired =
        serde_json::from_value(unpaid["structuredContent"].clone()).expect("terms");
    let declared = &terms.extensions.as_ref().expect("extensions")["payment-identifier"];
    assert_eq!(declared["info"]["required"], false, "{declared}");
    let payment = payment_payload_with_id(&terms, "mcp-id", "pay_mcp_0123456789abcdef");
    let first = session
        .call_tool("extract_document", &body, Some(&payment))
        .await;
    assert_eq!(first["isError"], false, "{first}");
    assert_eq!(first["_meta"][META_PAYMENT_RESPONSE]["success"], true);
    // The answer was lost: the same call again, the same result and receipt, no second
    // settlement (the facilitator expects exactly one).
    let again = session
        .call_tool("extract_document", &body, Some(&payment))
        .await;
    assert_eq!(again, first);
}

#[tokio::test]
async fn failed_and_invalid_calls_are_errors_without_tool_content_and_never_settled() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 0).await;
    let session = app.app.mcp_session().await;

    // Work that finds nothing: paid, refused, not settled.
    let blank = json!({"pdf_base64": STANDARD.encode(blank_pdf())});
    let (_, failed) = session.pay_tool("extract_document", &blank, "blank").await;
    assert_eq!(failed["isError"], true, "{failed}");
    assert!(failed.get("structuredContent").is_none(), "{failed}");
    let error: Value =
        serde_json::from_str(failed["content"][0]["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(error["error"], "extraction_failed");
    assert_eq!(error["charged"], false);
    assert!(failed["_meta"].get(META_PAYMENT_RESPONSE).is_none());

    // Invalid input: refused before any price, as over HTTP.
    let invalid = session
        .call_tool("ocr_read", &json!({"image_base64": 5}), None)
        .await;
    assert_eq!(invalid["isError"], true);
    let error: Value =
        serde_json::from_str(invalid["content"][0]["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(error["error"], "invalid_input", "{error}");

    // An unknown tool is a JSON-RPC error, not a tool result.
    let reply = session
        .rpc("tools/call", json!({"name": "nope", "arguments": {}}))
        .await
        .json();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

// ---------------------------------------------------------------------------------------------
// The stateless revision (2026-07-28) beside the legacy ones on the same endpoint.

#[tokio::test]
async fn the_stateless_revision_discovers_lists_and_needs_no_session() {
    let app = App::new().await;
    let reply = app.app.mcp_modern("server/discover", json!({}), &[]).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text_lossy());
    assert!(reply.header(SESSION_HEADER).is_none(), "no session minted");
    let result = &reply.json()["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    assert_eq!(result["capabilities"]["tools"]["listChanged"], false);
    assert_eq!(result["ttlMs"], server_kit::mcp::LIST_TTL_MS);
    assert_eq!(result["cacheScope"], "public");
    assert!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string(),
        "{result}"
    );
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("x402"))
    );

    // tools/list: the same tools as in a legacy session, with the caching hints.
    let modern = app.app.mcp_modern("tools/list", json!({}), &[]).await;
    assert_eq!(modern.status, StatusCode::OK);
    let modern = modern.json()["result"].clone();
    let session = app.app.mcp_session().await;
    let legacy = session.rpc("tools/list", json!({})).await.json()["result"].clone();
    assert_eq!(modern["tools"], legacy["tools"]);
    assert_eq!(modern["resultType"], "complete");
    assert_eq!(modern["ttlMs"], server_kit::mcp::LIST_TTL_MS);
    assert_eq!(modern["cacheScope"], "public");
    // The legacy revisions' results are unchanged: no fields of the new one.
    for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(legacy.get(key).is_none(), "{key} in {legacy}");
    }
    // An Mcp-Session-Id (a legacy client's) is ignored, not refused.
    let with_session = app
        .app
        .mcp_modern("tools/list", json!({}), &[(SESSION_HEADER, "00")])
        .await;
    assert_eq!(with_session.status, StatusCode::OK);
}

#[tokio::test]
async fn a_stateless_tool_call_gets_the_http_terms_and_a_paid_one_the_answer_and_the_receipt() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let http = app.post(&body, None).await;
    let call = |payment: Option<Value>| {
        let mut params = json!({"name": "extract_document", "arguments": body.clone()});
        if let Some(payment) = payment {
            params["_meta"] = json!({"x402/payment": payment});
        }
        app.app.mcp_modern("tools/call", params, &[])
    };
    let unpaid = call(None).await;
    assert_eq!(unpaid.status, StatusCode::OK);
    let unpaid = unpaid.json()["result"].clone();
    assert_eq!(unpaid["isError"], true);
    assert_eq!(unpaid["resultType"], "complete");
    assert_same_terms_in_mcp_form(
        &unpaid["structuredContent"],
        &serde_json::to_value(http.terms()).expect("json"),
        "extract_document",
    );
    let terms: x402_core::PaymentRequired =
        serde_json::from_value(unpaid["structuredContent"].clone()).expect("terms");
    let payment = server_kit::testing::payment_payload(&terms, "modern-1");
    let paid = call(Some(payment)).await.json()["result"].clone();
    assert_eq!(paid["isError"], false, "{paid}");
    assert_eq!(paid["resultType"], "complete");
    assert_eq!(paid["structuredContent"]["pages_processed"], 1);
    assert_eq!(
        paid["_meta"][META_PAYMENT_RESPONSE]["success"], true,
        "{paid}"
    );
    assert!(paid["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
}

#[tokio::test]
async fn stateless_requests_are_checked_as_the_revision_asks() {
    let app = App::new().await;
    let list = |headers: &'static [(&'static str, &'static str)], meta: Value| {
        app.app
            .mcp_modern("tools/list", json!({"_meta": meta}), headers)
    };
    let error = |reply: server_kit::testing::Reply, status: StatusCode, code: i64| {
        assert_eq!(reply.status, status, "{}", reply.text_lossy());
        let body = reply.json();
        assert_eq!(body["error"]["code"], code, "{body}");
        body["error"].clone()
    };

    // A revision not served: -32022 with the served ones; a legacy one is named as such.
    let unsupported = error(
        list(
            &[("mcp-protocol-version", "1900-01-01")],
            json!({"io.modelcontextprotocol/protocolVersion": "1900-01-01"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        -32022,
    );
    assert_eq!(
        unsupported["data"],
        json!({"supported": ["2026-07-28", "2025-11-25", "2025-06-18"], "requested": "1900-01-01"})
    );
    let legacy = error(
        list(
            &[("mcp-protocol-version", "2025-11-25")],
            json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        -32022,
    );
    assert!(
        legacy["message"]
            .as_str()
            .is_some_and(|m| m.contains("after initialize")),
        "{legacy}"
    );

    // The headers must mirror the body.
    error(
        list(&[("mcp-protocol-version", "")], json!({})).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );
    error(
        list(&[("mcp-protocol-version", "2025-11-25")], json!({})).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );
    error(
        list(&[("mcp-method", "tools/call")], json!({})).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );
    error(
        list(&[("mcp-method", "")], json!({})).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );
    let call = |headers: &'static [(&'static str, &'static str)]| {
        app.app.mcp_modern(
            "tools/call",
            json!({"name": "ocr_read", "arguments": {}}),
            headers,
        )
    };
    error(
        call(&[("mcp-name", "")]).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );
    error(
        call(&[("mcp-name", "extract_document")]).await,
        StatusCode::BAD_REQUEST,
        -32020,
    );
    // The transport's Base64 form of a name is decoded before the comparison ("ocr_read").
    let encoded = call(&[("mcp-name", "=?base64?b2NyX3JlYWQ=?=")]).await;
    assert_eq!(encoded.status, StatusCode::OK, "{}", encoded.text_lossy());
    assert_eq!(
        encoded.json()["result"]["isError"],
        true,
        "{{}} is invalid input"
    );

    // The required _meta fields: -32602.
    let without_capabilities = app
        .app
        .mcp_modern(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": null}}),
            &[],
        )
        .await;
    error(without_capabilities, StatusCode::BAD_REQUEST, -32602);
    let discover_without_meta = app
        .app
        .post(
            "/mcp",
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "server/discover"),
            ],
            rpc("server/discover", 1, json!({})),
        )
        .await;
    error(discover_without_meta, StatusCode::BAD_REQUEST, -32602);

    // Methods the revision removed or the server does not offer: 404 with -32601.
    // `initialize` in the modern envelope is such a method too (a legacy one carries no `_meta`
    // revision and opens a session, above).
    for method in ["initialize", "ping", "resources/list", "logging/setLevel"] {
        error(
            app.app.mcp_modern(method, json!({}), &[]).await,
            StatusCode::NOT_FOUND,
            -32601,
        );
    }
}
