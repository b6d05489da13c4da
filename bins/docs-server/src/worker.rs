//! The worker process: `docs-server __worker [--engines N]`. It limits itself (isolate), then
//! runs the jobs of `jobs` one after another: opening, classifying, extracting, rendering and
//! recognising callers' files. Whatever a file does to it here (a stack overflow, memory, a
//! loop) ends this process, never the server.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use isolate::Frame;
use ocr_core::OcrError;
use ocr_core::engine::{EngineConfig, EnginePool};
use ocr_core::pages::{PagesError, read_pages};
use ocr_core::preprocess::{ImageLimits, load_image, probe_image};
use ocr_core::read::{PageReading, ReadOptions, Recogniser, assemble, read_picture};
use pdf_extract_core::document::{ExtractError, ExtractOptions, PagePlan, extract_document};
use pdf_extract_core::{Budget, Limits, PdfDocument, PdfError};

use crate::engines::{OcrRecognizer, PdfCodeScanner, PdfPages, code_options};
use crate::jobs::{Job, Outcome, PlannedPage, Refusal};

/// The argument that starts the executable as a worker.
pub const WORKER_ARG: &str = "__worker";
/// The argument before the number of Tesseract engines an extraction worker starts.
pub const ENGINES_ARG: &str = "--engines";
/// The argument before the directory of the PP-OCR models an extraction worker loads.
pub const PP_OCR_ARG: &str = "--pp-ocr";

/// How a worker was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerArgs {
    /// Tesseract engines (0: a planner, which never recognises and starts no engine).
    pub engines: usize,
    /// The PP-OCR models' directory, when the server was configured with one.
    pub pp_ocr_models: Option<PathBuf>,
}

/// Whether the process was started as a worker; if so, with what.
pub fn worker_mode(args: &[std::ffi::OsString]) -> Option<WorkerArgs> {
    if args.get(1).and_then(|a| a.to_str()) != Some(WORKER_ARG) {
        return None;
    }
    let after = |name: &str| {
        args.iter()
            .position(|a| a.to_str() == Some(name))
            .and_then(|i| args.get(i + 1))
    };
    let engines = after(ENGINES_ARG)
        .and_then(|n| n.to_str()?.parse().ok())
        .unwrap_or(0);
    Some(WorkerArgs {
        engines,
        pp_ocr_models: after(PP_OCR_ARG).map(PathBuf::from),
    })
}

/// Serves jobs until the server closes the pipe.
pub fn run(args: WorkerArgs) -> ExitCode {
    let pool = if args.engines == 0 {
        None
    } else {
        let config = EngineConfig {
            engines: args.engines,
            pp_ocr_models: args.pp_ocr_models,
            ..EngineConfig::default()
        };
        match EnginePool::new(config) {
            Ok(pool) => Some(Arc::new(pool)),
            Err(error) => {
                eprintln!("docs-server worker: the OCR engines did not start: {error}");
                return ExitCode::FAILURE;
            }
        }
    };
    isolate::worker::serve(|job: Job, file: Vec<u8>| {
        // A panic in a parser is that file's failure; the engines stay warm for the next job.
        let outcome = catch_unwind(AssertUnwindSafe(|| run_job(job, &file, pool.as_deref())));
        let refusal = match outcome {
            Ok(Ok(answer)) => return answer,
            Ok(Err(refusal)) => refusal,
            Err(_) => Refusal::ExtractionFailed {
                message: "the file made the reader fail".into(),
            },
        };
        bare(Outcome::Refused(refusal))
    })
}

/// An outcome without a blob.
fn bare(header: Outcome) -> Frame<Outcome> {
    Frame {
        header,
        blob: Vec::new(),
    }
}

fn run_job(job: Job, file: &[u8], pool: Option<&EnginePool>) -> Result<Frame<Outcome>, Refusal> {
    match job {
        Job::PlanPdf {
            max_bytes,
            max_pages,
            pages,
            field,
        } => {
            let document = open(file, max_bytes, max_pages, &field)?;
            let plan = document
                .plan(pages.as_deref())
                .map_err(|e| pdf_refusal(&e, &field))?;
            Ok(bare(Outcome::Planned {
                pages: plan.into_iter().map(PlannedPage::from).collect(),
            }))
        }
        Job::ProbeImage { mime, field } => {
            let Some(kind) = mime.image_kind() else {
                return Err(invalid(&field, "not a picture"));
            };
            probe_image(file, kind, &ImageLimits::default())
                .map_err(|e| ocr_refusal(&e, &field))?;
            Ok(bare(Outcome::Probed))
        }
        Job::Document {
            max_bytes,
            max_pages,
            plan,
        } => {
            let pool = engines(pool)?;
            let document = open(file, max_bytes, max_pages, "pdf_base64")?;
            let plan: Vec<PagePlan> = plan.into_iter().map(PagePlan::from).collect();
            let recognizer = OcrRecognizer::new(pool);
            let scanner = PdfCodeScanner::default();
            let options = ExtractOptions {
                workers: pool.size(),
                ..ExtractOptions::default()
            };
            // The server cancels by killing this process; nothing here sets the flag.
            let never = AtomicBool::new(false);
            let extraction = extract_document(
                &document,
                &plan,
                &recognizer,
                Some(&scanner),
                &options,
                &never,
            )
            // Every way an extraction gives no answer is the file's failure here.
            .map_err(|e: ExtractError| Refusal::ExtractionFailed {
                message: e.to_string(),
            })?;
            to_json(&extraction)
        }
        Job::Ocr {
            mime,
            plan,
            max_bytes,
            max_pages,
            languages,
            want,
            field,
        } => {
            let pool = engines(pool)?;
            let options = ReadOptions {
                recogniser: Recogniser::for_languages(&languages),
                languages,
                codes: want.codes,
                code_options: code_options(),
                photo: Default::default(),
            };
            let readings = match mime.image_kind() {
                Some(kind) => {
                    let loaded = load_image(file, kind, &ImageLimits::default())
                        .map_err(|e| ocr_refusal(&e, &field))?;
                    vec![
                        read_picture(pool, &loaded.image, 1, None, &options)
                            .map_err(|e| ocr_refusal(&e, &field))?,
                    ]
                }
                None => read_pdf(file, &plan, max_bytes, max_pages, &field, pool, &options)?,
            };
            let answer = assemble(readings, want.into()).map_err(|e| ocr_refusal(&e, &field))?;
            to_json(&answer)
        }
    }
}

fn engines(pool: Option<&EnginePool>) -> Result<&EnginePool, Refusal> {
    pool.ok_or_else(|| Refusal::ExtractionFailed {
        message: "this worker runs no OCR engines".into(),
    })
}

fn open(
    file: &[u8],
    max_bytes: usize,
    max_pages: u32,
    field: &str,
) -> Result<PdfDocument, Refusal> {
    PdfDocument::load(
        file,
        &Limits {
            max_bytes,
            max_pages,
        },
    )
    .map_err(|e| pdf_refusal(&e, field))
}

/// A finished answer: its JSON is the blob.
fn to_json<T: serde::Serialize>(answer: &T) -> Result<Frame<Outcome>, Refusal> {
    let blob = serde_json::to_vec(answer).map_err(|e| Refusal::ExtractionFailed {
        message: format!("the answer could not be written: {e}"),
    })?;
    Ok(Frame {
        header: Outcome::Done,
        blob,
    })
}

fn invalid(field: &str, message: impl Into<String>) -> Refusal {
    Refusal::InvalidField {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// How a PDF that cannot be opened or selected is answered.
fn pdf_refusal(error: &PdfError, field: &str) -> Refusal {
    match error {
        PdfError::TooLarge { .. } => Refusal::TooLarge {
            message: error.to_string(),
        },
        PdfError::InvalidPageRange { .. }
        | PdfError::PageOutOfRange { .. }
        | PdfError::TooManyPages { .. } => invalid("pages", error.to_string()),
        // A page too large to draw even at the lowest resolution: pixels over the limit.
        PdfError::BudgetExceeded {
            budget: Budget::RenderPixels,
            ..
        } => Refusal::TooLarge {
            message: error.to_string(),
        },
        // Files built to exhaust a reader (recursion, fan-out, bombs): unreadable, 422.
        PdfError::BudgetExceeded { .. } => Refusal::ExtractionFailed {
            message: error.to_string(),
        },
        _ => invalid(field, error.to_string()),
    }
}

/// How a recognition error is answered.
fn ocr_refusal(error: &OcrError, field: &str) -> Refusal {
    match error {
        OcrError::ImageTooWide { .. }
        | OcrError::ImageTooLarge { .. }
        | OcrError::DecodeTooLarge { .. } => Refusal::TooLarge {
            message: error.to_string(),
        },
        OcrError::MimeMismatch { .. } => invalid("mime", error.to_string()),
        OcrError::LanguageNotInstalled { .. } | OcrError::InvalidLanguage(_) => {
            invalid("languages", error.to_string())
        }
        OcrError::Decode(_) | OcrError::UnsupportedMime(_) => invalid(field, error.to_string()),
        OcrError::EmptyRecognition => Refusal::EmptyRecognition {
            message: error.to_string(),
        },
        _ => Refusal::ExtractionFailed {
            message: error.to_string(),
        },
    }
}

/// A PDF's planned pages read by ocr-core, its failures answered as refusals.
fn read_pdf(
    file: &[u8],
    plan: &[PlannedPage],
    max_bytes: usize,
    max_pages: u32,
    field: &str,
    pool: &EnginePool,
    options: &ReadOptions,
) -> Result<Vec<PageReading>, Refusal> {
    let document = open(file, max_bytes, max_pages, field)?;
    let plan: Vec<ocr_core::pages::PagePlan> = plan
        .iter()
        .map(|p| ocr_core::pages::PagePlan {
            page: p.page,
            text_layer: p.text_layer,
        })
        .collect();
    // The server cancels by killing this process; nothing here sets the flag.
    let never = AtomicBool::new(false);
    read_pages(pool, &PdfPages(&document), &plan, options, &never).map_err(|e| match e {
        PagesError::Source(e) => pdf_refusal(&e, field),
        other => Refusal::ExtractionFailed {
            message: other.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_mode_reads_its_arguments() {
        let args = |list: &[&str]| -> Vec<std::ffi::OsString> {
            list.iter().map(std::ffi::OsString::from).collect()
        };
        let started = |engines, pp_ocr_models: Option<&str>| {
            Some(WorkerArgs {
                engines,
                pp_ocr_models: pp_ocr_models.map(PathBuf::from),
            })
        };
        assert_eq!(worker_mode(&args(&["docs-server"])), None);
        assert_eq!(worker_mode(&args(&["docs-server", "--config", "x"])), None);
        assert_eq!(
            worker_mode(&args(&["docs-server", WORKER_ARG])),
            started(0, None)
        );
        assert_eq!(
            worker_mode(&args(&["docs-server", WORKER_ARG, ENGINES_ARG, "2"])),
            started(2, None)
        );
        assert_eq!(
            worker_mode(&args(&[
                "docs-server",
                WORKER_ARG,
                ENGINES_ARG,
                "1",
                PP_OCR_ARG,
                "/m"
            ])),
            started(1, Some("/m"))
        );
    }

    #[test]
    fn refusals_name_the_field() {
        let refusal = pdf_refusal(
            &PdfError::PageOutOfRange {
                page: 9,
                page_count: 2,
            },
            "pdf_base64",
        );
        assert!(matches!(refusal, Refusal::InvalidField { ref field, .. } if field == "pages"));
        let refusal = pdf_refusal(&PdfError::Encrypted, "url");
        assert!(matches!(refusal, Refusal::InvalidField { ref field, .. } if field == "url"));
        let refusal = pdf_refusal(&PdfError::TooLarge { size: 2, limit: 1 }, "url");
        assert!(matches!(refusal, Refusal::TooLarge { .. }));
    }
}
