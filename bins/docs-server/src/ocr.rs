//! `POST /ocr`: validate, obtain the file, check its type and size (a picture's header, a PDF's
//! pages) before naming the price, then let the gate run the recognition and settle only an
//! answer that found something.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use ocr_core::OcrError;
use ocr_core::preprocess::{GreyImage, ImageLimits, ImageMime, load_image, probe_image};
use ocr_core::read::{PageReading, ReadOptions, assemble, read_picture, read_text_layer_page};
use pdf_extract_core::document::PagePlan;
use pdf_extract_core::parallel::map_in_order;
use pdf_extract_core::{Limits, PageImage, PdfDocument, RenderOptions};
use server_kit::http::RawJsonBody;
use server_kit::{ApiError, ErrorCode};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::app::AppState;
use crate::cache::cache_key;
use crate::call::{cached_or_run, cancelled, open_pdf, serve_priced, to_json_bytes};
use crate::pricing::Itemised;
use crate::requests::{OcrMime, OcrRequest};
use crate::source::{FileSource, obtain_file};

/// The route.
pub const PATH: &str = "/ocr";
/// Largest file (spec: 12582912 bytes).
pub const MAX_BYTES: usize = 12_582_912;
/// Pages per call (spec).
pub const MAX_PAGES: u32 = 50;
/// Past this many pages the 402 warns that the time limit may be hit (spec: about 15).
pub const WARN_AFTER_PAGES: usize = 15;
/// Resolution at which text-layer PDF pages are drawn for their pixel frame and code scan.
const TEXT_PAGE_DPI: f64 = 200.0;

/// What the file turned out to be.
enum Input {
    Picture(ImageMime),
    Pdf {
        document: Arc<PdfDocument>,
        /// Selected pages and whether each has a text layer.
        pages: Vec<PagePlan>,
    },
}

struct Prepared {
    request: OcrRequest,
    mime: OcrMime,
    file: Arc<Vec<u8>>,
    input: Input,
}

impl Prepared {
    fn pages(&self) -> Vec<u32> {
        match &self.input {
            Input::Picture(_) => vec![1],
            Input::Pdf { pages, .. } => pages.iter().map(|p| p.page).collect(),
        }
    }
}

/// The handler.
pub async fn handle(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    RawJsonBody(body): RawJsonBody,
) -> Response {
    let span = tracing::info_span!("ocr", pages = tracing::field::Empty);
    async move {
        // First: the client's unpaid allowance, before the body is parsed or anything fetched.
        let admission = match state.gate.admit(peer.ip(), &headers) {
            Ok(admission) => admission,
            Err(refused) => return refused.into_response(),
        };
        let prepared = match prepare(&state, &body).await {
            Ok(prepared) => prepared,
            Err(error) => return error.into_response(),
        };
        let pages = prepared.pages();
        tracing::Span::current().record("pages", pages.len());
        let budget = state.config.time_budget.ocr_seconds;
        let price = Itemised::ocr(
            &pages,
            state.prices.ocr_first_page,
            state.prices.ocr_further_page,
            WARN_AFTER_PAGES,
            budget,
        );
        let work_state = state.clone();
        serve_priced(
            &state,
            &state.ocr_doc,
            headers,
            admission,
            &price,
            budget,
            move |cancel| work(work_state, prepared, cancel),
        )
        .await
    }
    .instrument(span)
    .await
}

async fn prepare(state: &Arc<AppState>, body: &[u8]) -> Result<Prepared, ApiError> {
    let request = state.ocr_validator.parse(body)?;
    request.check()?;
    let languages = request.language_list();
    if !languages.is_empty() {
        state
            .ocr
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
    let file = Arc::new(obtain_file(&state.fetcher, source, MAX_BYTES).await?);
    let sniffed = sniff_mime(&file);
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
    let input = match mime.image_kind() {
        Some(kind) => {
            // The header alone: a decompression bomb is refused without being decoded.
            probe_image(&file, kind, &ImageLimits::default())
                .map_err(|e| ocr_refusal(&e, field))?;
            Input::Picture(kind)
        }
        None => {
            let limits = Limits {
                max_bytes: MAX_BYTES,
                max_pages: MAX_PAGES,
            };
            let (document, pages) =
                open_pdf(file.clone(), limits, request.pages.clone(), field).await?;
            Input::Pdf {
                document: Arc::new(document),
                pages,
            }
        }
    };
    Ok(Prepared {
        request,
        mime,
        file,
        input,
    })
}

/// The type the bytes say they are.
fn sniff_mime(bytes: &[u8]) -> Option<OcrMime> {
    if bytes.starts_with(b"%PDF-")
        || bytes
            .get(..1024)
            .is_some_and(|head| head.windows(5).any(|w| w == b"%PDF-"))
    {
        return Some(OcrMime::Pdf);
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(OcrMime::Png);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(OcrMime::Jpeg);
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some(OcrMime::Webp);
    }
    None
}

/// How a recognition error is answered (DESIGN.md §4).
fn ocr_refusal(error: &OcrError, field: &str) -> ApiError {
    match error {
        OcrError::ImageTooWide { .. } | OcrError::ImageTooLarge { .. } => {
            ApiError::new(ErrorCode::PayloadTooLarge, error.to_string())
        }
        OcrError::MimeMismatch { .. } => ApiError::invalid_field("mime", error.to_string()),
        OcrError::LanguageNotInstalled { .. } | OcrError::InvalidLanguage(_) => {
            ApiError::invalid_field("languages", error.to_string())
        }
        OcrError::Decode(_) | OcrError::UnsupportedMime(_) => {
            ApiError::invalid_field(field, error.to_string())
        }
        OcrError::EmptyRecognition => ApiError::new(ErrorCode::EmptyRecognition, error.to_string()),
        OcrError::Cancelled => cancelled(),
        _ => ApiError::new(ErrorCode::ExtractionFailed, error.to_string()),
    }
}

async fn work(
    state: Arc<AppState>,
    prepared: Prepared,
    cancel: CancellationToken,
) -> Result<Response, ApiError> {
    let key = cache_key(
        PATH,
        &prepared.file,
        &prepared.request.options(prepared.mime, &prepared.pages()),
    );
    let want = prepared.request.wanted();
    let options = ReadOptions {
        languages: prepared.request.language_list(),
        codes: want.codes,
        code_options: crate::engines::code_options(),
    };
    let ocr = state.ocr.clone();
    let file = prepared.file.clone();
    let field = if prepared.request.url.is_some() {
        "url"
    } else {
        "image_base64"
    };
    let name = match prepared.mime {
        OcrMime::Png => "input.png",
        OcrMime::Jpeg => "input.jpg",
        OcrMime::Webp => "input.webp",
        OcrMime::Pdf => "input.pdf",
    };
    let input = prepared.input;
    cached_or_run(&state, key, name, &prepared.file, cancel, move |stop| {
        let readings = match input {
            Input::Picture(kind) => {
                let loaded = load_image(&file, kind, &ImageLimits::default())
                    .map_err(|e| ocr_refusal(&e, field))?;
                vec![
                    read_picture(&ocr, &loaded.image, 1, None, &options)
                        .map_err(|e| ocr_refusal(&e, field))?,
                ]
            }
            Input::Pdf { document, pages } => {
                let results = map_in_order(&pages, ocr.size(), stop, |plan| {
                    read_pdf_page(&ocr, &document, *plan, &options)
                });
                let mut readings = Vec::with_capacity(results.len());
                for result in results {
                    readings.push(result.ok_or_else(cancelled)??);
                }
                readings
            }
        };
        let answer = assemble(readings, want).map_err(|e| ocr_refusal(&e, field))?;
        to_json_bytes(&answer)
    })
    .await
}

/// A PDF page: its text layer laid out in the pixels of a 200 dpi rendering, or the page
/// rendered at the resolution of its images and recognised.
fn read_pdf_page(
    pool: &ocr_core::engine::EnginePool,
    document: &PdfDocument,
    PagePlan { page, text_layer }: PagePlan,
    options: &ReadOptions,
) -> Result<PageReading, ApiError> {
    let failed = |reason: String| {
        ApiError::new(
            ErrorCode::ExtractionFailed,
            format!("page {page}: {reason}"),
        )
    };
    let grey = |image: PageImage| {
        GreyImage::new(image.width, image.height, image.luma).map_err(|e| failed(e.to_string()))
    };
    if let Some(text) = text_layer
        .then(|| document.extract_page(page).ok())
        .flatten()
    {
        let image = document
            .render_page_at(page, TEXT_PAGE_DPI)
            .map_err(|e| failed(e.to_string()))?;
        let dpi = image.dpi;
        return read_text_layer_page(text, &grey(image)?, dpi, options)
            .map_err(|e| failed(e.to_string()));
    }
    let image = document
        .render_page(page, &RenderOptions::OCR)
        .map_err(|e| failed(e.to_string()))?;
    let dpi = image.dpi;
    read_picture(pool, &grey(image)?, page, Some(dpi), options).map_err(|e| match e {
        OcrError::Cancelled => cancelled(),
        other => failed(other.to_string()),
    })
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
