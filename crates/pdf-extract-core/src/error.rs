//! The crate's error type: every way a PDF, a page selector or a page can be refused.

/// Why a PDF, a page selection or a page could not be processed. Bad input is always one of
/// these, never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PdfError {
    /// No bytes at all.
    #[error("the file is empty")]
    Empty,
    /// More bytes than allowed; checked before any parsing.
    #[error("the file has {size} bytes, more than the limit of {limit}")]
    TooLarge {
        /// Size of the input.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// The bytes do not start like a PDF (no `%PDF-` header near the start).
    #[error("not a PDF: {reason}")]
    NotPdf {
        /// What was found instead.
        reason: String,
    },
    /// A PDF header, but the file cannot be read (broken cross-reference data, no page tree…).
    #[error("malformed PDF: {reason}")]
    Malformed {
        /// The parser's complaint.
        reason: String,
    },
    /// The PDF is encrypted with a user password, which this service is not given.
    #[error("the PDF is encrypted and needs a password")]
    Encrypted,
    /// A page number outside the document.
    #[error("page {page} does not exist; the document has {page_count} pages")]
    PageOutOfRange {
        /// The page asked for, from 1.
        page: u32,
        /// Pages in the document.
        page_count: u32,
    },
    /// A page selector that cannot be parsed.
    #[error("invalid page range {selector:?}: {reason}")]
    InvalidPageRange {
        /// The selector as given.
        selector: String,
        /// What is wrong with it.
        reason: String,
    },
    /// More pages selected than one call may process.
    #[error("{selected} pages selected, at most {limit} per call")]
    TooManyPages {
        /// Pages selected.
        selected: u32,
        /// The limit.
        limit: u32,
    },
    /// A page could not be rendered.
    #[error("page {page} could not be rendered: {reason}")]
    Render {
        /// The page, from 1.
        page: u32,
        /// Why.
        reason: String,
    },
    /// The text of a page could not be extracted (including a panic caught inside a parser).
    #[error("text of page {page} could not be extracted: {reason}")]
    Extraction {
        /// The page, from 1.
        page: u32,
        /// Why.
        reason: String,
    },
}
