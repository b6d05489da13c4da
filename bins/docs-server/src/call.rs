//! What both paid routes do around their own work: opening a PDF and planning its pages, the
//! priced request served by the gate, and the work itself run from the cache or in a scratch
//! directory on the blocking pool, with the gate's cancellation reaching the page loop.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Map;
use server_kit::discovery::PaidRouteDoc;
use server_kit::http::base_url;
use server_kit::{Admission, ApiError, ErrorCode, PaidRequest};
use tokio_util::sync::CancellationToken;

use pdf_extract_core::document::PagePlan;
use pdf_extract_core::{Limits, PdfDocument, PdfError};

use crate::app::AppState;
use crate::pricing::Itemised;

/// Lets the gate serve `work` for terms of exactly the itemised total, with the itemisation in
/// the 402 body.
pub(crate) async fn serve_priced<W, F>(
    state: &AppState,
    doc: &PaidRouteDoc,
    headers: HeaderMap,
    admission: Admission,
    price: &Itemised,
    budget_seconds: u64,
    work: W,
) -> Response
where
    W: FnOnce(CancellationToken) -> F,
    F: Future<Output = Result<Response, ApiError>> + Send,
{
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
        input_schema: doc.input_schema.clone(),
        extra_402_body: extra,
        budget: Duration::from_secs(budget_seconds),
    };
    state.gate.serve(paid, work).await
}

/// Opens a PDF under `limits` and plans its selected pages, on the blocking pool; a file or a
/// selection that cannot be used is refused naming `field` or `pages`.
pub(crate) async fn open_pdf(
    file: Arc<Vec<u8>>,
    limits: Limits,
    selector: Option<String>,
    field: &str,
) -> Result<(PdfDocument, Vec<PagePlan>), ApiError> {
    tokio::task::spawn_blocking(move || {
        let document = PdfDocument::load(&file, &limits)?;
        let plan = document.plan(selector.as_deref())?;
        Ok::<_, PdfError>((document, plan))
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Internal, format!("opening the PDF: {e}")))?
    .map_err(|e| pdf_refusal(&e, field))
}

/// How a PDF that cannot be opened or selected is answered (DESIGN.md §4).
fn pdf_refusal(error: &PdfError, field: &str) -> ApiError {
    match error {
        PdfError::TooLarge { .. } => ApiError::new(ErrorCode::PayloadTooLarge, error.to_string()),
        PdfError::InvalidPageRange { .. }
        | PdfError::PageOutOfRange { .. }
        | PdfError::TooManyPages { .. } => ApiError::invalid_field("pages", error.to_string()),
        _ => ApiError::invalid_field(field, error.to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_field() {
        let e = pdf_refusal(
            &PdfError::PageOutOfRange {
                page: 9,
                page_count: 2,
            },
            "pdf_base64",
        );
        assert_eq!(e.details[0].field, "pages");
        let e = pdf_refusal(&PdfError::Encrypted, "url");
        assert_eq!(e.details[0].field, "url");
        assert_eq!(e.code, ErrorCode::InvalidInput);
        let e = pdf_refusal(&PdfError::TooLarge { size: 2, limit: 1 }, "url");
        assert_eq!(e.code, ErrorCode::PayloadTooLarge);
    }
}
