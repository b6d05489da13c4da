//! `/mcp` beside the HTTP routes, in process: the latency of the unpaid HTTP 402 of
//! `/dex/quote` for its OpenAPI example, of the same request as an unpaid MCP `tools/call`
//! (which is that 402 dispatched through the same router and worded as an error result), and of
//! `tools/list`. No chain read is needed for the terms.
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench mcp`).

#![allow(missing_docs)]

use std::time::Duration;

use analytics_server::{AnalyticsConfig, AppState, router};
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use server_kit::testing::{TEST_CLIENT, silent_facilitator};
use tower::ServiceExt as _;

const HOST: &str = "analytics.test";

fn post(path: &str, session: Option<&str>, body: &Value) -> Request<Body> {
    let mut request = Request::post(path)
        .header("host", HOST)
        .header("content-type", "application/json");
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.body(Body::from(body.to_string())).expect("request")
}

async fn send(app: &Router, request: Request<Body>) -> (StatusCode, Option<String>, Value) {
    let response = app.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    (
        status,
        session,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let facilitator = runtime.block_on(silent_facilitator());
    let mut config = AnalyticsConfig::default();
    config.common.payment.pay_to = Some(
        serde_json::from_value(json!("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"))
            .expect("address"),
    );
    config.common.facilitator.url = Some(facilitator.uri());
    config.common.limits.unpaid_per_window = u32::MAX;
    config.common.public_url = Some(format!("http://{HOST}"));
    let app = router(AppState::new(config).expect("configuration"))
        .layer(axum::extract::connect_info::MockConnectInfo(TEST_CLIENT));

    let (_, _, openapi) = runtime.block_on(send(
        &app,
        Request::get("/openapi.json")
            .header("host", HOST)
            .body(Body::empty())
            .expect("request"),
    ));
    let example =
        openapi["paths"]["/dex/quote"]["post"]["requestBody"]["content"]["application/json"]["example"]
            .clone();
    let (status, session, _) = runtime.block_on(send(
        &app,
        post(
            "/mcp",
            None,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"}}}),
        ),
    ));
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("a session");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "dex_quote", "arguments": example}});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});

    // The three answer what they should before being timed.
    let (status, _, _) = runtime.block_on(send(&app, post("/dex/quote", None, &example)));
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
    let (_, _, answer) = runtime.block_on(send(&app, post("/mcp", Some(&session), &call)));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["structuredContent"]["accepts"].is_array(),
        "{answer}"
    );
    let (_, _, tools) = runtime.block_on(send(&app, post("/mcp", Some(&session), &list)));
    println!("figure: mcp_tools_list_bytes = {}", tools.to_string().len());

    let mut group = c.benchmark_group("mcp");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("http_402_dex_quote", |b| {
        b.to_async(&runtime)
            .iter(|| async { send(&app, post("/dex/quote", None, &example)).await })
    });
    group.bench_function("mcp_tools_call_unpaid_dex_quote", |b| {
        b.to_async(&runtime)
            .iter(|| async { send(&app, post("/mcp", Some(&session), &call)).await })
    });
    group.bench_function("mcp_tools_list", |b| {
        b.to_async(&runtime)
            .iter(|| async { send(&app, post("/mcp", Some(&session), &list)).await })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
