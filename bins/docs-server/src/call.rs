//! What both paid routes do around their own work: the priced request for the gate, and the
//! work itself run from the cache or in a scratch directory on the blocking pool, with the
//! gate's cancellation reaching the page loop.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use server_kit::discovery::PaidRouteDoc;
use server_kit::http::base_url;
use server_kit::limiter::client_address;
use server_kit::{ApiError, ErrorCode, PaidRequest};
use tokio_util::sync::CancellationToken;

use crate::app::AppState;
use crate::pricing::Itemised;

/// The request the gate serves: terms for exactly the itemised total, the itemisation in the
/// 402 body.
pub(crate) fn paid_request(
    state: &AppState,
    doc: &PaidRouteDoc,
    input_schema: &Value,
    headers: HeaderMap,
    peer: SocketAddr,
    price: &Itemised,
    budget_seconds: u64,
) -> PaidRequest {
    let trust_forwarded = state.config.common.limits.trust_forwarded;
    let base = base_url(
        state.config.common.public_url.as_deref(),
        &headers,
        trust_forwarded,
    );
    let offer = doc.offer(
        &state.terms,
        &base,
        price.total(),
        budget_seconds + state.config.common.payment.settle_margin_seconds,
    );
    let mut extra = Map::new();
    extra.insert(
        "price".into(),
        price.to_json(state.terms.asset_decimals, "USDC"),
    );
    PaidRequest {
        route: doc.path,
        client: client_address(peer, &headers, trust_forwarded),
        headers,
        offer,
        input_schema: input_schema.clone(),
        extra_402_body: extra,
        budget: Duration::from_secs(budget_seconds),
    }
}

/// Answers from the cache under `key`, or runs `work` on the blocking pool with the file kept in
/// a scratch directory of its own (removed on every way out) and a flag that is set when the
/// gate cancels; a successful answer is cached.
pub(crate) async fn cached_or_run<W>(
    state: &AppState,
    key: String,
    file_name: &str,
    file: &[u8],
    cancel: CancellationToken,
    work: W,
) -> Result<Response, ApiError>
where
    W: FnOnce(&AtomicBool) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    if let Some(answer) = state.cache.get(&key).await {
        return Ok(json_answer(answer.as_ref().clone(), "hit"));
    }
    let scratch = tempfile::tempdir_in(state.temp_dir())
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("scratch directory: {e}")))?;
    tokio::fs::write(scratch.path().join(file_name), file)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("scratch file: {e}")))?;
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let stop = stop.clone();
        tokio::spawn(async move {
            cancel.cancelled().await;
            stop.store(true, Ordering::Relaxed);
        })
    };
    let outcome = tokio::task::spawn_blocking(move || work(&stop)).await;
    watcher.abort();
    drop(scratch);
    let answer = outcome
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("extraction task: {e}")))??;
    state.cache.put(key, Arc::new(answer.clone())).await;
    Ok(json_answer(answer, "miss"))
}

/// The error for work stopped by the time budget (the gate answers 504 itself when the budget
/// runs out; this is what the work says if it notices first).
pub(crate) fn cancelled() -> ApiError {
    ApiError::new(
        ErrorCode::TimeBudgetExceeded,
        "the work ran out of time; nothing was charged",
    )
}

/// Serialises an answer.
pub(crate) fn to_json_bytes<T: serde::Serialize>(answer: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(answer)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("serialising: {e}")))
}

fn json_answer(body: Vec<u8>, cache: &'static str) -> Response {
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::HeaderName::from_static("x-cache"),
                HeaderValue::from_static(cache),
            ),
        ],
        body,
    )
        .into_response()
}
