//! `/mcp` in process: the session life cycle, the tools generated from the route table, and
//! tool calls through the same gate as the HTTP routes (the same terms for the same input, paid
//! calls settled once with the receipt in `_meta`, failed calls not settled). A wiremock server
//! stands in for the facilitator; the files are committed fixtures of testdata/pdf.

mod support;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use server_kit::mcp::{META_PAYMENT_RESPONSE, PROTOCOL_VERSIONS, SESSION_HEADER};
use server_kit::testing::{mount_paying_facilitator, payment_payload_with_id};
use support::pdf::blank_pdf;
use support::{App, inline};

fn rpc(method: &str, id: u64, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[tokio::test]
async fn sessions_open_on_initialize_and_end_on_delete() {
    let app = App::new().await;
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", PROTOCOL_VERSIONS[0]),
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

    // The same terms as the HTTP 402 for the same input, in both forms.
    let terms = serde_json::to_value(http.terms()).expect("json");
    assert_eq!(unpaid["structuredContent"], terms);
    let text: Value = serde_json::from_str(unpaid["content"][0]["text"].as_str().expect("text"))
        .expect("JSON text");
    assert_eq!(text, terms);

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
