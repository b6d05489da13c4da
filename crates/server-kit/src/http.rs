//! The HTTP frame both servers share: health, readiness, metrics, CORS for the payment headers,
//! body limits, request spans and metrics, graceful shutdown (readiness false from the stop
//! signal on).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{FromRequest, MatchedPath, Request};
use axum::http::{HeaderMap, HeaderName, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::json;
use tower_http::cors::{Any, CorsLayer};
use tracing::Instrument;

use crate::error::{ApiError, ErrorCode};
use crate::gate::{PAYMENT_REQUIRED, PAYMENT_RESPONSE, PAYMENT_SIGNATURE, X_PAYMENT};
pub use crate::readiness::{NotReady, ProbeFuture, ReadinessCheck, facilitator_readiness};

/// How long one readiness probe may take.
const READINESS_TIMEOUT: Duration = Duration::from_secs(5);

/// `/health` (the process answers), `/readiness` (every dependency answers:
/// `{"ready": bool, "checks": {name: "ok" | "failed"}}`, 503 when not ready; reasons are logged,
/// not answered) and `/metrics`.
pub fn operational_routes(checks: Vec<ReadinessCheck>) -> Router {
    // The recorder is installed now, not at the first scrape: counts made before it would be
    // lost (a replica's first paid requests, before Prometheus came by).
    crate::telemetry::metrics_handle();
    let checks = Arc::new(checks);
    Router::new()
        .route("/health", get(|| async { Json(json!({"status": "ok"})) }))
        .route(
            "/readiness",
            get(move |stopping: Option<axum::Extension<Stopping>>| {
                let checks = checks.clone();
                async move {
                    match stopping {
                        Some(axum::Extension(stopping)) if stopping.is_set() => draining(&checks),
                        _ => readiness(&checks).await,
                    }
                }
            }),
        )
        .route(
            "/metrics",
            get(|| async { crate::telemetry::metrics_handle().render() }),
        )
}

/// Readiness once the stop signal arrived: not ready, whatever the dependencies say (they are
/// not asked), so a load balancer sends nothing new while the requests in flight finish.
fn draining(checks: &[ReadinessCheck]) -> Response {
    let mut detail: serde_json::Map<String, serde_json::Value> = checks
        .iter()
        .map(|check| (check.name.to_string(), json!("not checked")))
        .collect();
    detail.insert("shutdown".into(), json!("stopping"));
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({"ready": false, "checks": detail})),
    )
        .into_response()
}

/// Set once the stop signal arrived (by [`serve`] / [`serve_until`], which hand it to every
/// request as an extension): `/readiness` answers 503 from then on.
#[derive(Debug, Clone, Default)]
pub struct Stopping(Arc<std::sync::atomic::AtomicBool>);

impl Stopping {
    /// Whether the stop signal arrived.
    pub fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

async fn readiness(checks: &[ReadinessCheck]) -> Response {
    let results = futures::future::join_all(checks.iter().map(|check| async move {
        let outcome = match tokio::time::timeout(READINESS_TIMEOUT, (check.check)()).await {
            Ok(outcome) => outcome,
            Err(_) => Err(NotReady::new(format!(
                "no answer within {} s",
                READINESS_TIMEOUT.as_secs()
            ))),
        };
        (check.name.clone(), outcome)
    }))
    .await;
    let ready = results.iter().all(|(_, outcome)| outcome.is_ok());
    // The answer is public: it names each check and its state only. Why a check failed (an
    // error text, a path, a URL) goes to the log.
    let detail: serde_json::Map<String, serde_json::Value> = results
        .into_iter()
        .map(|(name, outcome)| {
            let value = match outcome {
                Ok(()) => "ok",
                Err(reason) => {
                    tracing::warn!(check = %name, reason = %x402_core::scrub_text(&reason.to_string()), "readiness check failed");
                    "failed"
                }
            };
            (name.into_owned(), json!(value))
        })
        .collect();
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(json!({"ready": ready, "checks": detail}))).into_response()
}

/// Wraps a server's routes in the shared layers: CORS that lets browsers send
/// `PAYMENT-SIGNATURE` and read `PAYMENT-REQUIRED` / `PAYMENT-RESPONSE`, a body limit, a span and
/// metrics per request, and 405 `method_not_allowed` in the JSON error model for a method a
/// route does not take.
pub fn with_shared_layers(router: Router, max_body_bytes: usize) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([
            header::CONTENT_TYPE,
            HeaderName::from_static(PAYMENT_SIGNATURE),
            HeaderName::from_static(X_PAYMENT),
        ])
        .expose_headers([
            HeaderName::from_static(PAYMENT_REQUIRED),
            HeaderName::from_static(PAYMENT_RESPONSE),
            header::RETRY_AFTER,
        ]);
    router
        // Set under the layers, so CORS still answers a preflight OPTIONS before it; axum keeps
        // its `Allow` header on the answer.
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                ErrorCode::MethodNotAllowed,
                "this route does not take this method; the Allow header lists the ones it takes",
            )
        })
        .layer(axum::extract::DefaultBodyLimit::max(max_body_bytes))
        .layer(middleware::from_fn(observe))
        .layer(cors)
}

/// Answers a path no route has with 404 `not_found` in the JSON error model instead of axum's
/// empty body. Applied once to a service's finished router: a fallback on both sides of a
/// `merge` would panic.
pub fn with_json_not_found(router: Router) -> Router {
    router.fallback(|| async {
        ApiError::new(
            ErrorCode::NotFound,
            "no route has this path; /openapi.json lists the routes",
        )
    })
}

async fn observe(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |path| path.as_str().to_owned());
    let method = request.method().clone();
    let span =
        tracing::info_span!("request", %method, route = %route, status = tracing::field::Empty);
    let started = Instant::now();
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    span.record("status", status);
    metrics::counter!("http_requests_total", "route" => route.clone(), "status" => status.to_string())
        .increment(1);
    metrics::histogram!("http_request_seconds", "route" => route)
        .record(started.elapsed().as_secs_f64());
    response
}

/// The raw body of a JSON request, with the body-limit rejection answered as our 413 JSON.
///
/// The body is gathered into one buffer sized from `Content-Length` (capped, so a lying header
/// cannot reserve more than [`MAX_PREALLOCATED_BODY`]), each chunk freed as it is copied: at
/// most one copy of the body plus one chunk is alive, where collecting the chunks and then
/// joining them held two.
#[derive(Debug, Clone)]
pub struct RawJsonBody(pub Bytes);

/// The most a body buffer is sized up front from `Content-Length`; larger bodies grow.
pub const MAX_PREALLOCATED_BODY: usize = 64 * 1024 * 1024;

impl<S: Send + Sync> FromRequest<S> for RawJsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        use axum::RequestExt as _;
        use http_body_util::BodyExt as _;

        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<usize>().ok())
            .unwrap_or(0);
        // The body limit (DefaultBodyLimit) is applied here, as `Bytes` would.
        let mut body = request.into_limited_body();
        let mut buffer = bytes::BytesMut::with_capacity(declared.min(MAX_PREALLOCATED_BODY));
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| {
                if is_length_limit(&e) {
                    ApiError::new(
                        ErrorCode::PayloadTooLarge,
                        "request body is over the size limit",
                    )
                } else {
                    ApiError::invalid_field("body", format!("the body could not be read: {e}"))
                }
            })?;
            if let Ok(data) = frame.into_data() {
                buffer.extend_from_slice(&data);
            }
        }
        Ok(Self(buffer.freeze()))
    }
}

fn is_length_limit(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if current.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = current.source();
    }
    false
}

/// The public base URL: configured (`public_url`, what production should set), or else built
/// from the request's `Host`, with `X-Forwarded-Proto: https` honoured only behind a trusted
/// proxy.
pub fn base_url(configured: Option<&str>, headers: &HeaderMap, trust_forwarded: bool) -> String {
    if let Some(url) = configured {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let https = trust_forwarded
        && headers
            .get("x-forwarded-proto")
            .and_then(|h| h.to_str().ok())
            == Some("https");
    format!("{}://{host}", if https { "https" } else { "http" })
}

/// Serves `router` on `listener` until SIGINT or SIGTERM, with peer addresses available to
/// handlers (`ConnectInfo<SocketAddr>`); see [`serve_until`] (here without a notice).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    drain: Duration,
) -> std::io::Result<()> {
    serve_until(listener, router, shutdown_signal(), Duration::ZERO, drain).await
}

/// Serves `router` on `listener` until `stop` completes. From then on `/readiness` answers 503
/// ([`Stopping`]); for `notice` the server still takes new requests as usual (the time a load
/// balancer needs to see the readiness and stop sending: `shutdown_notice_seconds`, 0 where a
/// preStop hook already waits), then it takes no new connection and the requests in flight get
/// `drain` to finish ([`crate::config::CommonConfig::drain`]: the longest route budget plus
/// the settlement margin), after which the server stops whatever they are doing. It returns as
/// soon as the last request in flight has finished.
pub async fn serve_until<S>(
    listener: tokio::net::TcpListener,
    router: Router,
    stop: S,
    notice: Duration,
    drain: Duration,
) -> std::io::Result<()>
where
    S: Future<Output = ()> + Send + 'static,
{
    let stopping = Stopping::default();
    let router = router.layer(axum::Extension(stopping.clone()));
    let (signalled, signal_seen) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        stop.await;
        stopping.set();
        tracing::info!(
            notice_seconds = notice.as_secs_f64(),
            drain_seconds = drain.as_secs_f64(),
            "stopping: readiness false, new requests taken for the notice, then drained"
        );
        tokio::time::sleep(notice).await;
        let _ = signalled.send(());
    });
    let deadline = async move {
        if signal_seen.await.is_ok() {
            tokio::time::sleep(drain).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        result = server => result,
        () = deadline => {
            tracing::warn!(drain_seconds = drain.as_secs_f64(), "requests still in flight after the drain time; stopping");
            Ok(())
        }
    }
}

async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}

/// The whole life of a server binary: parse flags, load the configuration (or print it), set
/// up logs, build the router and serve until a signal, draining for the time
/// [`crate::config::CommonConfig::drain`] derives from `longest_budget` (the longest time
/// budget of the server's routes). Exit code 2 for configuration errors, a `drain_seconds`
/// shorter than that budget plus the settlement margin among them.
pub async fn run_server<C, B>(
    name: &str,
    env_prefix: &str,
    defaults: C,
    common: fn(&C) -> &crate::config::CommonConfig,
    longest_budget: fn(&C) -> Duration,
    build: B,
) -> std::process::ExitCode
where
    C: serde::Serialize + serde::de::DeserializeOwned,
    B: FnOnce(C) -> Result<Router, crate::config::ConfigError>,
{
    use clap::Parser as _;
    use std::process::ExitCode;

    let args = crate::config::ServerArgs::parse();
    let fail = |e: &dyn std::fmt::Display, code: u8| {
        eprintln!("{name}: {e}");
        ExitCode::from(code)
    };
    let config: C = match crate::config::load(&defaults, env_prefix, &args) {
        Ok(config) => config,
        Err(e) => return fail(&e, 2),
    };
    if args.print_config {
        return match crate::config::print_redacted(&config) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e, 2),
        };
    }
    crate::telemetry::init_tracing(&common(&config).log);
    let addr = match common(&config).listen_addr() {
        Ok(addr) => addr,
        Err(e) => return fail(&e, 2),
    };
    let notice = Duration::from_secs(common(&config).shutdown_notice_seconds);
    let drain = match common(&config).drain(longest_budget(&config)) {
        Ok(drain) => drain,
        Err(e) => return fail(&e, 2),
    };
    let router = match build(config) {
        Ok(router) => router,
        Err(e) => return fail(&e, 2),
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => return fail(&format!("cannot listen on {addr}: {e}"), 1),
    };
    tracing::info!(%addr, "{name} listening");
    tracing::info!(
        drain_seconds = drain.as_secs(),
        "after a stop signal, requests in flight get the drain time"
    );
    match serve_until(listener, router, shutdown_signal(), notice, drain).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, 1),
    }
}
