//! What both paid routes do around their own work: the priced request served by the gate, and
//! the work itself answered from the cache or run in an extraction worker, with the gate's
//! cancellation killing the worker.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRequest as _, Request};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Map;
use server_kit::discovery::PaidRouteDoc;
use server_kit::http::{RawJsonBody, base_url};
use server_kit::{Admission, ApiError, ErrorCode, PaidRequest, RequestFingerprint};
use tokio_util::sync::CancellationToken;

use crate::admission::{PageWork, Reservation};
use crate::jobs::Job;
use crate::pricing::Itemised;
use crate::state::AppState;

/// A paid request admitted and read: who asked, and the body.
pub(crate) struct Admitted {
    pub(crate) caller: Caller,
    pub(crate) body: bytes::Bytes,
}

/// What the gate needs of an admitted request besides its price: its admission, its headers
/// and its fingerprint (method, path and body, for payment ids).
pub(crate) struct Caller {
    pub(crate) admission: Admission,
    pub(crate) headers: HeaderMap,
    pub(crate) fingerprint: RequestFingerprint,
}

/// What a paid handler does first: the client's unpaid allowance, before the body (up to
/// 30 MB) is even read, then the body. `Err` is the answer to send.
pub(crate) async fn admit_and_read(
    state: &AppState,
    peer: SocketAddr,
    request: Request,
) -> Result<Admitted, Response> {
    let headers = request.headers().clone();
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let admission = state
        .gate
        .admit(peer.ip(), &headers)
        .await
        .map_err(IntoResponse::into_response)?;
    let RawJsonBody(body) = RawJsonBody::from_request(request, &())
        .await
        .map_err(IntoResponse::into_response)?;
    Ok(Admitted {
        caller: Caller {
            admission,
            headers,
            fingerprint: RequestFingerprint::new(method, path, body.clone()),
        },
        body,
    })
}

/// Admission control, after the price and before the gate: a request whose work would not
/// finish inside `budget_seconds` behind the work already admitted is answered 503 `busy` with
/// `Retry-After` (`Err`), before its payment is verified. A request carrying a payment takes
/// its place in the queue (the reservation, held until its work ends); one without is only
/// checked, so the terms it gets are not promised capacity. An answer already cached needs no
/// worker and is never refused (`cached` is asked only when the queue is full). Every refusal
/// counts in `busy_refusals_total{route}`.
pub(crate) async fn admit_work<C, Fut>(
    state: &AppState,
    route: &'static str,
    headers: &HeaderMap,
    pages: &[PageWork],
    budget_seconds: u64,
    cached: C,
) -> Result<Option<Reservation>, Response>
where
    C: FnOnce() -> Fut,
    Fut: Future<Output = bool>,
{
    let queue = state.workers.queue();
    let budget = Duration::from_secs(budget_seconds);
    let paying = [
        server_kit::gate::PAYMENT_SIGNATURE,
        server_kit::gate::X_PAYMENT,
    ]
    .iter()
    .any(|name| headers.contains_key(*name));
    let verdict = if paying {
        queue.admit(pages, budget).map(Some)
    } else {
        queue.check(pages, budget).map(|()| None)
    };
    match verdict {
        Ok(reservation) => Ok(reservation),
        Err(_) if cached().await => Ok(None),
        Err(busy) => {
            tracing::info!(
                estimate = busy.estimate,
                retry_after = busy.retry_after,
                pages = pages.len(),
                paying,
                "busy: the work would not finish inside its budget"
            );
            metrics::counter!("busy_refusals_total", "route" => route).increment(1);
            let mut error = ApiError::new(
                ErrorCode::Busy,
                format!(
                    "the document workers are busy: this request would not finish within its {budget_seconds} s budget behind the work already accepted; retry in {} s; nothing was charged",
                    busy.retry_after
                ),
            );
            error.retry_after = Some(busy.retry_after);
            Err(error.into_response())
        }
    }
}

/// Lets the gate serve `work` for terms of exactly the itemised total, with the itemisation in
/// the 402 body.
pub(crate) async fn serve_priced<W, F>(
    state: &AppState,
    doc: &PaidRouteDoc,
    caller: Caller,
    price: &Itemised,
    budget_seconds: u64,
    work: W,
) -> Response
where
    W: FnOnce(CancellationToken) -> F,
    F: Future<Output = Result<Response, ApiError>> + Send,
{
    let Caller {
        admission,
        headers,
        fingerprint,
    } = caller;
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
    let paid = PaidRequest {
        route: doc.path,
        headers,
        admission,
        offer,
        input_schema: doc.input.schema().clone(),
        extra_402_body: extra,
        budget: Duration::from_secs(budget_seconds),
        fingerprint,
    };
    state.gate.serve(paid, work).await
}

/// Answers from the cache under `key`, or runs `job` on `file` in an extraction worker (killed
/// when the gate cancels, when the budget runs out, or when this future is dropped); a
/// successful answer is cached. The caller's file never touches the disk.
pub(crate) async fn cached_or_run(
    state: &AppState,
    key: String,
    job: Job,
    file: &[u8],
    budget_seconds: u64,
    cancel: CancellationToken,
) -> Result<Response, ApiError> {
    let (answer, cache) = cached_or_extract(state, key, job, file, budget_seconds, cancel).await?;
    Ok(json_answer(answer.as_ref().clone(), cache))
}

/// The answer under `key` from the cache (`"hit"`), or from a worker running `job` and then
/// cached (`"miss"`).
pub(crate) async fn cached_or_extract(
    state: &AppState,
    key: String,
    job: Job,
    file: &[u8],
    budget_seconds: u64,
    cancel: CancellationToken,
) -> Result<(Arc<Vec<u8>>, &'static str), ApiError> {
    if let Some(answer) = state.cache.get(&key).await {
        return Ok((answer, "hit"));
    }
    let budget = Duration::from_secs(budget_seconds);
    let answer = tokio::select! {
        answer = state.workers.extract(&job, file, budget) => answer?,
        () = cancel.cancelled() => return Err(crate::isolation::cancelled()),
    };
    let answer = Arc::new(answer);
    state.cache.put(key, answer.clone()).await;
    Ok((answer, "miss"))
}

/// A 200 JSON answer with its `X-Cache` header.
pub(crate) fn json_answer(body: Vec<u8>, cache: &'static str) -> Response {
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
