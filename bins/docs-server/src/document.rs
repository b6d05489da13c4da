//! `POST /document`: validate, obtain the file, open it and classify the selected pages in a
//! planner process (which decides the price), then let the gate run the extraction in a worker
//! process and settle only a real answer.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::response::{IntoResponse, Response};
use server_kit::{ApiError, ErrorCode};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::app::AppState;
use crate::cache::cache_key;
use crate::call::{Admitted, admit_and_read, cached_or_run, serve_priced};
use crate::jobs::{Job, PlannedPage};
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
    file: Vec<u8>,
    plan: Vec<PlannedPage>,
}

/// The handler.
pub async fn handle(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let span = tracing::info_span!("document", pages = tracing::field::Empty);
    async move {
        let Admitted {
            admission,
            headers,
            body,
        } = match admit_and_read(&state, peer, request).await {
            Ok(admitted) => admitted,
            Err(answer) => return answer,
        };
        let prepared = match prepare(&state, body).await {
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
        let work_state = state.clone();
        serve_priced(
            &state,
            &state.document_doc,
            headers,
            admission,
            &price,
            state.config.time_budget.document_seconds,
            move |cancel| work(work_state, prepared, cancel),
        )
        .await
    }
    .instrument(span)
    .await
}

async fn prepare(state: &Arc<AppState>, body: bytes::Bytes) -> Result<Prepared, ApiError> {
    let mut request = state.document_validator.parse_body(body)?;
    request.check()?;
    let source = match (&request.pdf_base64, &request.url) {
        (Some(inline), _) => FileSource::Inline {
            field: "pdf_base64",
            base64: inline,
        },
        (None, Some(url)) => FileSource::Url(url),
        (None, None) => return Err(ApiError::invalid_field("pdf_base64", "missing")),
    };
    let file = obtain_file(&state.fetcher, source, MAX_BYTES).await?;
    // The decoded file is all that is needed from here on: its base64 text goes now.
    request.pdf_base64 = None;
    let field = if request.url.is_some() {
        "url"
    } else {
        "pdf_base64"
    };
    let plan = state
        .workers
        .plan_pdf(&file, MAX_BYTES, MAX_PAGES, request.pages.clone(), field)
        .await?;
    Ok(Prepared {
        request,
        file,
        plan,
    })
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
    let job = Job::Document {
        max_bytes: MAX_BYTES,
        max_pages: MAX_PAGES,
        plan: prepared.plan,
    };
    cached_or_run(
        &state,
        key,
        job,
        &prepared.file,
        state.config.time_budget.document_seconds,
        cancel,
    )
    .await
}
