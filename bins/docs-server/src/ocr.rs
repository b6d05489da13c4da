//! `POST /ocr`: validate, obtain the file, check its type and size (a picture's header, a PDF's
//! pages, in a planner process) before naming the price, then let the gate run the recognition
//! in a worker process and settle only an answer that found something.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::response::{IntoResponse, Response};
use server_kit::ApiError;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::admission::{PageWork, Reservation};
use crate::cache::cache_key;
use crate::call::{Admitted, admit_and_read, admit_work, cached_or_run, serve_priced};
use crate::jobs::{Job, PlannedPage};
use crate::pricing::Itemised;
use crate::requests::{OcrMime, OcrRequest};
use crate::source::{CallerFile, FileSource, obtain_file};
use crate::state::AppState;

/// The route.
pub const PATH: &str = "/ocr";
/// Largest file (spec: 12582912 bytes).
pub const MAX_BYTES: usize = 12_582_912;
/// Pages per call (spec).
pub const MAX_PAGES: u32 = 50;
/// Past this many pages the 402 warns that the time limit may be hit (spec: about 15).
pub const WARN_AFTER_PAGES: usize = 15;

struct Prepared {
    request: OcrRequest,
    mime: OcrMime,
    file: CallerFile,
    /// A PDF's selected pages and whether each has a text layer (empty for a picture).
    plan: Vec<PlannedPage>,
    field: &'static str,
}

impl Prepared {
    fn cache_key(&self) -> String {
        cache_key(
            PATH,
            &self.file.digest,
            &self.request.options(self.mime, &self.pages()),
        )
    }

    fn pages(&self) -> Vec<u32> {
        if self.plan.is_empty() {
            vec![1]
        } else {
            self.plan.iter().map(|p| p.page).collect()
        }
    }
}

/// The handler.
pub async fn handle(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let span = tracing::info_span!("ocr", pages = tracing::field::Empty);
    async move {
        let Admitted { caller, body } = match admit_and_read(&state, peer, request).await {
            Ok(admitted) => admitted,
            Err(answer) => return answer,
        };
        let prepared = match prepare(&state, body).await {
            Ok(prepared) => prepared,
            Err(error) => return error.into_response(),
        };
        let pages = prepared.pages();
        tracing::Span::current().record("pages", pages.len());
        let budget = state.config.time_budget.ocr_seconds;
        let price = if prepared.plan.is_empty() {
            Itemised::picture(state.prices.ocr_first_page)
        } else {
            Itemised::ocr(
                &pages,
                state.prices.ocr_first_page,
                state.prices.ocr_further_page,
                WARN_AFTER_PAGES,
                budget,
            )
        };
        let work_pages: Vec<PageWork> = if prepared.plan.is_empty() {
            vec![PageWork::Ocr]
        } else {
            prepared
                .plan
                .iter()
                .map(|p| {
                    if p.text_layer {
                        PageWork::TextLayer
                    } else {
                        PageWork::Ocr
                    }
                })
                .collect()
        };
        let reservation = match admit_work(
            &state,
            PATH,
            &caller.headers,
            &work_pages,
            budget,
            || async { state.cache.get(&prepared.cache_key()).await.is_some() },
        )
        .await
        {
            Ok(reservation) => reservation,
            Err(busy) => return busy,
        };
        let work_state = state.clone();
        serve_priced(
            &state,
            &state.ocr_doc,
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
    let mut request = state.ocr_validator.parse_body(body)?;
    request.check()?;
    let languages = request.language_list();
    if !languages.is_empty() {
        state
            .workers
            .check_languages(&languages)
            .map_err(|e| ApiError::invalid_field("languages", e.to_string()))?;
    }
    let (source, field) = match (&request.image_base64, &request.url) {
        (Some(inline), _) => (
            FileSource::Inline {
                field: "image_base64",
                base64: inline,
            },
            "image_base64",
        ),
        (None, Some(url)) => (FileSource::Url(url), "url"),
        (None, None) => return Err(ApiError::invalid_field("image_base64", "missing")),
    };
    let file = obtain_file(&state.fetcher, source, MAX_BYTES).await?;
    // The decoded file is all that is needed from here on: its base64 text goes now.
    request.image_base64 = None;
    let sniffed = sniff_mime(&file.bytes);
    let mime = match (request.mime, sniffed) {
        (Some(declared), Some(found)) if declared != found => {
            return Err(ApiError::invalid_field(
                "mime",
                format!(
                    "declared {} but the bytes are {}",
                    declared.as_str(),
                    found.as_str()
                ),
            ));
        }
        (Some(declared), _) => declared,
        (None, Some(found)) => found,
        (None, None) => {
            return Err(ApiError::invalid_field(
                field,
                "not a PNG, JPEG, WebP or PDF file",
            ));
        }
    };
    if request.pages.is_some() && mime != OcrMime::Pdf {
        return Err(ApiError::invalid_field(
            "pages",
            "a page range applies to PDFs only",
        ));
    }
    let plan = if mime == OcrMime::Pdf {
        state
            .workers
            .plan_pdf(&file, MAX_BYTES, MAX_PAGES, request.pages.clone(), field)
            .await?
    } else {
        // The header alone: a decompression bomb is refused without being decoded.
        state.workers.probe_image(&file, mime, field).await?;
        Vec::new()
    };
    Ok(Prepared {
        request,
        mime,
        file,
        plan,
        field,
    })
}

/// The type the bytes say they are (ocr-core's sniffing, in the wire's terms).
fn sniff_mime(bytes: &[u8]) -> Option<OcrMime> {
    use ocr_core::pages::InputMime;
    use ocr_core::preprocess::ImageMime;
    Some(match ocr_core::pages::sniff_mime(bytes)? {
        InputMime::Pdf => OcrMime::Pdf,
        InputMime::Image(ImageMime::Png) => OcrMime::Png,
        InputMime::Image(ImageMime::Jpeg) => OcrMime::Jpeg,
        InputMime::Image(ImageMime::Webp) => OcrMime::Webp,
    })
}

async fn work(
    state: Arc<AppState>,
    prepared: Prepared,
    reservation: Option<Reservation>,
    cancel: CancellationToken,
) -> Result<Response, ApiError> {
    let key = prepared.cache_key();
    let job = Job::Ocr {
        mime: prepared.mime,
        plan: prepared.plan,
        max_bytes: MAX_BYTES,
        max_pages: MAX_PAGES,
        languages: prepared.request.language_list(),
        want: prepared.request.wanted().into(),
        field: prepared.field.to_owned(),
    };
    let answer = cached_or_run(
        &state,
        key,
        job,
        &prepared.file.bytes,
        state.config.time_budget.ocr_seconds,
        cancel,
    )
    .await;
    crate::admission::release_after(reservation, &answer);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_the_four_types() {
        assert_eq!(sniff_mime(b"%PDF-1.7\n"), Some(OcrMime::Pdf));
        assert_eq!(sniff_mime(b"\x89PNG\r\n\x1a\n...."), Some(OcrMime::Png));
        assert_eq!(sniff_mime(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(OcrMime::Jpeg));
        assert_eq!(sniff_mime(b"RIFF\0\0\0\0WEBPVP8 "), Some(OcrMime::Webp));
        assert_eq!(sniff_mime(b"GIF89a"), None);
    }
}
