//! What the server asks its worker processes and what they answer: every step that opens a
//! caller's file (pricing included) runs in a worker (see `isolation` and `worker`).

use serde::{Deserialize, Serialize};

use crate::requests::OcrMime;

/// One selected page and whether its text layer is used (`PagePlan` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlannedPage {
    /// From 1.
    pub page: u32,
    /// Read from the text layer (else rendered and recognised).
    pub text_layer: bool,
}

impl From<pdf_extract_core::document::PagePlan> for PlannedPage {
    fn from(plan: pdf_extract_core::document::PagePlan) -> Self {
        Self {
            page: plan.page,
            text_layer: plan.text_layer,
        }
    }
}

impl From<PlannedPage> for pdf_extract_core::document::PagePlan {
    fn from(plan: PlannedPage) -> Self {
        Self {
            page: plan.page,
            text_layer: plan.text_layer,
        }
    }
}

/// The parts of an `/ocr` answer asked for (`ocr_core::read::Want` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WantedParts {
    /// Full text.
    pub text: bool,
    /// Tables.
    pub tables: bool,
    /// Codes.
    pub codes: bool,
    /// Blocks and layout.
    pub layout: bool,
}

impl From<ocr_core::read::Want> for WantedParts {
    fn from(want: ocr_core::read::Want) -> Self {
        Self {
            text: want.text,
            tables: want.tables,
            codes: want.codes,
            layout: want.layout,
        }
    }
}

impl From<WantedParts> for ocr_core::read::Want {
    fn from(want: WantedParts) -> Self {
        Self {
            text: want.text,
            tables: want.tables,
            codes: want.codes,
            layout: want.layout,
        }
    }
}

/// A job; the caller's file travels beside it as the frame's blob.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum Job {
    /// Open a PDF within limits and classify the selected pages (names the price).
    PlanPdf {
        /// Largest file accepted.
        max_bytes: usize,
        /// Most pages one call may select.
        max_pages: u32,
        /// The caller's page selector.
        pages: Option<String>,
        /// The request field the file came in, for refusals.
        field: String,
    },
    /// Check a picture's header (type, size, pixels) without decoding it.
    ProbeImage {
        /// The type the bytes are.
        mime: OcrMime,
        /// The request field the file came in.
        field: String,
    },
    /// `/document`'s extraction over planned pages.
    Document {
        /// Largest file accepted.
        max_bytes: usize,
        /// Most pages one call may select.
        max_pages: u32,
        /// The pages, as priced.
        plan: Vec<PlannedPage>,
    },
    /// `/ocr`'s reading of a picture or of planned PDF pages.
    Ocr {
        /// The type the bytes are.
        mime: OcrMime,
        /// For a PDF, its pages as priced.
        plan: Vec<PlannedPage>,
        /// Largest file accepted.
        max_bytes: usize,
        /// Most pages one call may select.
        max_pages: u32,
        /// Languages to read with (empty: the defaults).
        languages: Vec<String>,
        /// The parts asked for.
        want: WantedParts,
        /// The request field the file came in.
        field: String,
    },
}

/// What came of a job. A finished extraction's JSON travels as the frame's blob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The PDF's selected pages.
    Planned {
        /// In order.
        pages: Vec<PlannedPage>,
    },
    /// The picture may be read.
    Probed,
    /// The answer is the blob.
    Done,
    /// The file or the request cannot be served.
    Refused(Refusal),
}

/// Why a worker refused, in the terms of the error model (docs/documents.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// 400 `invalid_input`, naming the field.
    InvalidField {
        /// The field.
        field: String,
        /// Why.
        message: String,
    },
    /// 413 `payload_too_large`.
    TooLarge {
        /// Why.
        message: String,
    },
    /// 422 `extraction_failed`.
    ExtractionFailed {
        /// Why.
        message: String,
    },
    /// 422 `empty_recognition`.
    EmptyRecognition {
        /// Why.
        message: String,
    },
}

impl Refusal {
    /// As the HTTP error.
    pub fn into_api_error(self) -> server_kit::ApiError {
        use server_kit::{ApiError, ErrorCode};
        match self {
            Self::InvalidField { field, message } => ApiError::invalid_field(&field, message),
            Self::TooLarge { message } => ApiError::new(ErrorCode::PayloadTooLarge, message),
            Self::ExtractionFailed { message } => {
                ApiError::new(ErrorCode::ExtractionFailed, message)
            }
            Self::EmptyRecognition { message } => {
                ApiError::new(ErrorCode::EmptyRecognition, message)
            }
        }
    }
}
