//! `POST /document`: validate, obtain the file, open it and classify the selected pages in a
//! planner process (which decides the price), then let the gate run the extraction in a worker
//! process and settle only a real answer.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::response::{IntoResponse, Response};
use doc_model::DocumentExtraction;
use schema_mapper::CallerSchema;
use server_kit::{ApiError, ErrorCode};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::admission::{PageWork, Reservation};
use crate::cache::cache_key;
use crate::call::{
    Admitted, admit_and_read, admit_work, cached_or_extract, cached_or_run, json_answer,
    serve_priced,
};
use crate::jobs::{Job, PlannedPage};
use crate::pricing::{DocumentPageKind, Itemised};
use crate::requests::DocumentRequest;
use crate::source::{CallerFile, FileSource, obtain_file};
use crate::state::AppState;

/// The route.
pub const PATH: &str = "/document";
/// Largest file (spec: 15728640 bytes).
pub const MAX_BYTES: usize = 15_728_640;
/// Pages per call (spec).
pub const MAX_PAGES: u32 = 20;

/// A request that was validated, whose file was read and whose pages were classified.
struct Prepared {
    request: DocumentRequest,
    /// The caller's schema, compiled (checked before the file was even read).
    schema: Option<Arc<CallerSchema>>,
    file: CallerFile,
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
        let Admitted { caller, body } = match admit_and_read(&state, peer, request).await {
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
        let budget = state.config.time_budget.document_seconds;
        let pages: Vec<PageWork> = prepared
            .plan
            .iter()
            .map(|p| {
                if p.text_layer {
                    PageWork::TextLayer
                } else {
                    PageWork::Ocr
                }
            })
            .collect();
        let reservation = match admit_work(&state, PATH, &caller.headers, &pages, budget, || {
            is_cached(&state, &prepared)
        })
        .await
        {
            Ok(reservation) => reservation,
            Err(busy) => return busy,
        };
        let work_state = state.clone();
        serve_priced(
            &state,
            &state.document_doc,
            caller,
            &price,
            budget,
            move |cancel| work(work_state, prepared, reservation, cancel),
        )
        .await
    }
    .instrument(span)
    .await
}

async fn prepare(state: &Arc<AppState>, body: bytes::Bytes) -> Result<Prepared, ApiError> {
    let mut request = state.document_validator.parse_body(body)?;
    request.check()?;
    // A schema that cannot be used is refused before the file is fetched or priced.
    let schema = request.caller_schema()?.map(Arc::new);
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
        schema,
        file,
        plan,
    })
}

/// Whether the answer to `prepared` (or, with a schema, the extraction it is mapped from) is
/// cached, so no worker is needed.
async fn is_cached(state: &AppState, prepared: &Prepared) -> bool {
    let pages: Vec<u32> = prepared.plan.iter().map(|p| p.page).collect();
    let key = cache_key(
        PATH,
        &prepared.file.digest,
        &prepared.request.options(&pages),
    );
    if state.cache.get(&key).await.is_some() {
        return true;
    }
    prepared.schema.is_some()
        && state
            .cache
            .get(&cache_key(
                PATH,
                &prepared.file.digest,
                &DocumentRequest::extraction_options(&pages),
            ))
            .await
            .is_some()
}

async fn work(
    state: Arc<AppState>,
    prepared: Prepared,
    reservation: Option<Reservation>,
    cancel: CancellationToken,
) -> Result<Response, ApiError> {
    let answer = run(state, prepared, cancel).await;
    crate::admission::release_after(reservation, &answer);
    answer
}

async fn run(
    state: Arc<AppState>,
    prepared: Prepared,
    cancel: CancellationToken,
) -> Result<Response, ApiError> {
    let pages: Vec<u32> = prepared.plan.iter().map(|p| p.page).collect();
    let key = cache_key(
        PATH,
        &prepared.file.digest,
        &prepared.request.options(&pages),
    );
    let job = Job::Document {
        max_bytes: MAX_BYTES,
        max_pages: MAX_PAGES,
        plan: prepared.plan,
    };
    let budget = state.config.time_budget.document_seconds;
    let Some(schema) = prepared.schema else {
        return cached_or_run(&state, key, job, &prepared.file.bytes, budget, cancel).await;
    };
    // With a schema: the mapped answer from the cache, or the extraction (itself cached under
    // the options without a schema, so other schemas over the same file reuse it) mapped.
    if let Some(answer) = state.cache.get(&key).await {
        return Ok(json_answer(answer.as_ref().clone(), "hit"));
    }
    let extraction_key = cache_key(
        PATH,
        &prepared.file.digest,
        &DocumentRequest::extraction_options(&pages),
    );
    let (extraction, _) = cached_or_extract(
        &state,
        extraction_key,
        job,
        &prepared.file.bytes,
        budget,
        cancel,
    )
    .await?;
    let mapped = tokio::task::spawn_blocking(move || map_onto(&schema, &extraction))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("schema mapping: {e}")))??;
    let mapped = Arc::new(mapped);
    state.cache.put(key, mapped.clone()).await;
    Ok(json_answer(mapped.as_ref().clone(), "miss"))
}

/// The extraction's JSON read back and mapped onto the caller's schema, as JSON.
fn map_onto(schema: &CallerSchema, extraction: &[u8]) -> Result<Vec<u8>, ApiError> {
    let internal = |e: serde_json::Error| {
        ApiError::new(
            ErrorCode::Internal,
            format!("the extraction could not be mapped: {e}"),
        )
    };
    let extraction: DocumentExtraction = serde_json::from_slice(extraction).map_err(internal)?;
    serde_json::to_vec(&schema.map(&extraction)).map_err(internal)
}
