//! The crate's error type: every way a PDF, a page selector or a page can be refused.

/// Why a PDF, a page selection or a page could not be processed. Bad input is always one of
/// these, never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
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
    /// The file asks for more work than a budget allows (a hostile or pathological file),
    /// refused before the work is done. `page` is `None` for the whole document.
    #[error("{}{budget} over budget: {detail}", page.map(|p| format!("page {p}: ")).unwrap_or_default())]
    BudgetExceeded {
        /// The page, from 1, or `None` for the document.
        page: Option<u32>,
        /// Which budget.
        budget: Budget,
        /// What exceeded it.
        detail: String,
    },
}

/// The budgets of [`crate::Budgets`], named in [`PdfError::BudgetExceeded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Indirect objects in the file.
    Objects,
    /// Levels of the page tree (a page's chain of `/Parent`s).
    PageTreeDepth,
    /// Nesting of forms, patterns, soft masks and glyph procedures.
    FormDepth,
    /// A form, pattern or glyph procedure that invokes itself.
    FormCycle,
    /// Operators one page runs, forms counted once per invocation.
    Operators,
    /// Inflated bytes of one stream.
    StreamBytes,
    /// Inflated bytes of one page's content streams.
    PageContentBytes,
    /// Inflated bytes of all streams read from the document.
    DocumentBytes,
    /// Pixels of a rendered page.
    RenderPixels,
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Objects => "object count",
            Self::PageTreeDepth => "page tree depth",
            Self::FormDepth => "form nesting",
            Self::FormCycle => "form cycle",
            Self::Operators => "operator count",
            Self::StreamBytes => "stream size",
            Self::PageContentBytes => "page content size",
            Self::DocumentBytes => "document stream size",
            Self::RenderPixels => "rendered pixels",
        })
    }
}
