//! `POST /document`: validate, obtain the file, open it and classify the selected pages (which
//! decides the price), then let the gate run the extraction and settle only a real answer.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pdf_extract_core::document::{ExtractError, ExtractOptions, PagePlan, extract_document};
use pdf_extract_core::{Limits, PdfDocument, PdfError};
use serde_json::Map;
use server_kit::http::{RawJsonBody, base_url};
use server_kit::limiter::client_address;
use server_kit::{ApiError, ErrorCode, PaidRequest};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::app::AppState;
use crate::cache::cache_key;
use crate::engines::{OcrRecognizer, PdfCodeScanner};
use crate::pricing::{DocumentPageKind, Itemised};
use crate::requests::DocumentRequest;
use crate::source::{FileSource, obtain_file};

/// The route.
pub const PATH: &str = "/document";
/// Largest file (spec: 15728640 bytes).
pub const MAX_BYTES: usize = 15_728_640;
/// Pages per call (spec).
pub const MAX_PAGES: u32 = 20;

/// A request that was validated, whose file was read and whose pages were classified.
struct Prepared {
    request: DocumentRequest,
    file: Arc<Vec<u8>>,
    document: Arc<PdfDocument>,
    plan: Vec<PagePlan>,
}

/// The handler.
pub async fn handle(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    RawJsonBody(body): RawJsonBody,
) -> Response {
    let span = tracing::info_span!("document", pages = tracing::field::Empty);
    async move {
        let prepared = match prepare(&state, &body).await {
            Ok(prepared) => prepared,
            Err(error) => return error.into_response(),
        };
        tracing::Span::current().record("pages", prepared.plan.len());
        let kinds: Vec<(u32, DocumentPageKind)> = prepared
            .plan
            .iter()
            .map(|p| {
                let kind = if p.text_layer {
                    DocumentPageKind::TextLayer
                } else {
                    DocumentPageKind::Ocr
                };
                (p.page, kind)
            })
            .collect();
        let price = Itemised::document(
            &kinds,
            state.prices.document_text_layer_page,
            state.prices.document_ocr_page,
        );
        let trust_forwarded = state.config.common.limits.trust_forwarded;
        let base = base_url(
            state.config.common.public_url.as_deref(),
            &headers,
            trust_forwarded,
        );
        let budget = state.config.time_budget.document_seconds;
        let offer = state.document_doc.offer(
            &state.terms,
            &base,
            price.total(),
            budget + state.config.common.payment.settle_margin_seconds,
        );
        let mut extra = Map::new();
        extra.insert(
            "price".into(),
            price.to_json(state.terms.asset_decimals, "USDC"),
        );
        let paid = PaidRequest {
            route: PATH,
            client: client_address(peer, &headers, trust_forwarded),
            headers,
            offer,
            input_schema: state.document_validator.schema().clone(),
            extra_402_body: extra,
            budget: Duration::from_secs(budget),
        };
        let work_state = state.clone();
        state
            .gate
            .serve(paid, move |cancel| work(work_state, prepared, cancel))
            .await
    }
    .instrument(span)
    .await
}

async fn prepare(state: &Arc<AppState>, body: &[u8]) -> Result<Prepared, ApiError> {
    let request = state.document_validator.parse(body)?;
    request.check()?;
    let source = match (&request.pdf_base64, &request.url) {
        (Some(inline), _) => FileSource::Inline {
            field: "pdf_base64",
            base64: inline,
        },
        (None, Some(url)) => FileSource::Url(url),
        (None, None) => return Err(ApiError::invalid_field("pdf_base64", "missing")),
    };
    let file = Arc::new(obtain_file(&state.fetcher, source, MAX_BYTES).await?);
    let field = if request.url.is_some() {
        "url"
    } else {
        "pdf_base64"
    };
    let selector = request.pages.clone();
    let opened = file.clone();
    let (document, plan) = tokio::task::spawn_blocking(move || {
        let limits = Limits {
            max_bytes: MAX_BYTES,
            max_pages: MAX_PAGES,
        };
        let document = PdfDocument::load(&opened, &limits)?;
        let pages = document.select_pages(selector.as_deref())?;
        // A page whose text layer cannot even be inspected is rendered and recognised.
        let plan = pages
            .into_iter()
            .map(|page| PagePlan {
                page,
                text_layer: document.has_text_layer(page).unwrap_or(false),
            })
            .collect::<Vec<_>>();
        Ok::<_, PdfError>((document, plan))
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Internal, format!("opening the PDF: {e}")))?
    .map_err(|e| pdf_refusal(&e, field))?;
    Ok(Prepared {
        request,
        file,
        document: Arc::new(document),
        plan,
    })
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

async fn work(
    state: Arc<AppState>,
    prepared: Prepared,
    cancel: CancellationToken,
) -> Result<Response, ApiError> {
    if prepared.request.schema.is_some() {
        return Err(ApiError::new(
            ErrorCode::NotImplemented,
            "mapping onto a caller `schema` is not built yet; send the request without `schema` for the full extraction. Nothing was charged.",
        ));
    }
    let pages: Vec<u32> = prepared.plan.iter().map(|p| p.page).collect();
    let key = cache_key(PATH, &prepared.file, &prepared.request.options(&pages));
    if let Some(answer) = state.cache.get(&key).await {
        return Ok(json_answer(answer.as_ref().clone(), "hit"));
    }
    // The file stays in a directory of its own for the length of the call; the guard removes
    // it on every way out, a cancelled future included.
    let scratch = tempfile::tempdir_in(state.temp_dir())
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("scratch directory: {e}")))?;
    tokio::fs::write(
        scratch.path().join("document.pdf"),
        prepared.file.as_slice(),
    )
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
    let ocr = state.ocr.clone();
    let workers = ocr.size();
    let document = prepared.document.clone();
    let plan = prepared.plan.clone();
    let flag = stop.clone();
    let extracted = tokio::task::spawn_blocking(move || {
        let recognizer = OcrRecognizer::new(&ocr);
        let scanner = PdfCodeScanner::default();
        let options = ExtractOptions {
            workers,
            ..ExtractOptions::default()
        };
        extract_document(
            &document,
            &plan,
            &recognizer,
            Some(&scanner),
            &options,
            &flag,
        )
    })
    .await;
    watcher.abort();
    drop(scratch);
    let extraction = extracted
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("extraction task: {e}")))?
        .map_err(|e| match e {
            ExtractError::Cancelled => ApiError::new(
                ErrorCode::TimeBudgetExceeded,
                "the extraction ran out of time; nothing was charged",
            ),
            ExtractError::Page { .. } | ExtractError::Empty => {
                ApiError::new(ErrorCode::ExtractionFailed, e.to_string())
            }
        })?;
    let answer = serde_json::to_vec(&extraction)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("serialising: {e}")))?;
    state.cache.put(key, Arc::new(answer.clone())).await;
    Ok(json_answer(answer, "miss"))
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
