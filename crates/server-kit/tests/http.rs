//! The shared HTTP frame: the public readiness answer and the JSON body extractor.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use server_kit::http::{RawJsonBody, ReadinessCheck, operational_routes, with_shared_layers};
use server_kit::testing::TestApp;

async fn call(router: &Router, request: Request<Body>) -> (StatusCode, Vec<u8>) {
    let reply = TestApp::new(router.clone()).send(request).await;
    (reply.status, reply.bytes.to_vec())
}

#[tokio::test]
async fn readiness_answers_check_states_without_their_reasons() {
    let router = operational_routes(vec![
        ReadinessCheck::new("facilitator", || async { Ok(()) }),
        ReadinessCheck::new("temp_dir", || async {
            Err("cannot write /var/tmp/docs-server-7f3a/probe: permission denied (https://u:pw@rpc.example.test/v2/KeyKeyKey123456789)".to_owned())
        }),
    ]);
    let (status, body) = call(
        &router,
        Request::get("/readiness")
            .body(Body::empty())
            .expect("request"),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    let text = String::from_utf8(body).expect("utf-8");
    let value: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        value,
        json!({"ready": false, "checks": {"facilitator": "ok", "temp_dir": "failed"}})
    );
    for internal in ["/var/tmp", "permission", "KeyKeyKey", "rpc.example"] {
        assert!(!text.contains(internal), "{internal} in {text}");
    }
}

fn echo_router(limit: usize) -> Router {
    let router = Router::new().route(
        "/echo",
        post(|RawJsonBody(body): RawJsonBody| async move { body }),
    );
    with_shared_layers(router, limit)
}

#[tokio::test]
async fn the_body_is_read_whole_and_the_limit_answers_413_json() {
    let router = echo_router(1024);
    // Chunked (no Content-Length) and with a Content-Length that lies low or high.
    let body = "x".repeat(1000);
    for content_length in [None, Some("10"), Some("1000"), Some("999999999999")] {
        let mut request = Request::post("/echo");
        if let Some(length) = content_length {
            request = request.header("content-length", length);
        }
        let chunks = futures::stream::iter(
            body.as_bytes()
                .chunks(100)
                .map(|chunk| Ok::<_, std::io::Error>(bytes::Bytes::copy_from_slice(chunk)))
                .collect::<Vec<_>>(),
        );
        let (status, echoed) = call(
            &router,
            request.body(Body::from_stream(chunks)).expect("request"),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{content_length:?}");
        assert_eq!(echoed, body.as_bytes(), "{content_length:?}");
    }

    let (status, answer) = call(
        &router,
        Request::post("/echo")
            .body(Body::from("y".repeat(2000)))
            .expect("request"),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let answer: Value = serde_json::from_slice(&answer).expect("json");
    assert_eq!(answer["error"], "payload_too_large");
    assert_eq!(answer["charged"], false);
}
