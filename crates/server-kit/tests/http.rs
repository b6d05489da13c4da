//! The shared HTTP frame: the public readiness answer and the JSON body extractor.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use server_kit::http::{
    NotReady, RawJsonBody, ReadinessCheck, operational_routes, with_json_not_found,
    with_shared_layers,
};
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
            Err(NotReady::new(
                "cannot write /var/tmp/docs-server-7f3a/probe: permission denied (https://u:pw@rpc.example.test/v2/KeyKeyKey123456789)",
            ))
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
async fn an_unknown_path_and_an_unknown_method_answer_in_the_error_model() {
    let router = with_json_not_found(echo_router(1024));
    for (request, status, code) in [
        (Request::get("/nowhere"), StatusCode::NOT_FOUND, "not_found"),
        (
            Request::delete("/echo"),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
        (
            Request::builder().method("TRACE").uri("/echo"),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
    ] {
        let reply = TestApp::new(router.clone())
            .send(request.body(Body::empty()).expect("request"))
            .await;
        assert_eq!(reply.status, status);
        let value: Value = serde_json::from_slice(&reply.bytes).expect("json");
        assert_eq!(value["error"], code);
        assert_eq!(value["charged"], false);
        if status == StatusCode::METHOD_NOT_ALLOWED {
            let allow = reply.headers.get("allow").and_then(|v| v.to_str().ok());
            assert!(
                allow.is_some_and(|allow| allow.contains("POST")),
                "{allow:?}"
            );
        }
    }
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

/// One HTTP/1.1 request on a new connection: the status and the body, or the connection error.
async fn raw_request(address: std::net::SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    Ok((status, body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_stop_signal_readiness_is_false_while_a_request_in_flight_finishes() {
    use std::time::Duration;

    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let released = std::sync::Arc::new(tokio::sync::Mutex::new(Some(released)));
    let router = operational_routes(vec![ReadinessCheck::new("facilitator", || async {
        Ok(())
    })])
    .route(
        "/slow",
        axum::routing::get(move || {
            let released = released.clone();
            async move {
                // Answers once the test lets it: it is in flight when the signal arrives.
                if let Some(released) = released.lock().await.take() {
                    let _ = released.await;
                }
                "done"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listener");
    let address = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let notice = Duration::from_secs(2);
    let server = tokio::spawn(server_kit::http::serve_until(
        listener,
        router,
        async move {
            let _ = stopped.await;
        },
        notice,
        Duration::from_secs(30),
    ));

    let (status, body) = raw_request(address, "/readiness").await.expect("ready");
    assert_eq!(status, 200, "{body}");
    let in_flight = tokio::spawn(async move { raw_request(address, "/slow").await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.send(()).expect("the server waits for the signal");
    tokio::time::sleep(Duration::from_millis(100)).await;

    // The notice: new requests are still taken, and readiness says not to send any.
    let (status, body) = raw_request(address, "/readiness").await.expect("answered");
    assert_eq!(status, 503, "{body}");
    let value: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(value["ready"], false);
    assert_eq!(value["checks"]["shutdown"], "stopping");
    assert_eq!(
        raw_request(address, "/health").await.expect("health").0,
        200
    );

    // After the notice: no new connection; the request in flight still finishes.
    tokio::time::sleep(notice + Duration::from_millis(300)).await;
    assert!(
        raw_request(address, "/health").await.is_err(),
        "a new request taken after the notice"
    );
    release.send(()).expect("the request is in flight");
    let (status, body) = in_flight.await.expect("task").expect("answered");
    assert_eq!((status, body.as_str()), (200, "done"));
    tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("the server stops once drained")
        .expect("task")
        .expect("served");
}
