//! A whole document: the text layer where a page has one, OCR where it has none, then tables,
//! key-value pairs, header fields and codes over all processed pages.
//!
//! Recognition and code reading come in as traits, so this crate stays free of Tesseract and
//! of barcode engines, and tests can stand in for them.

use std::sync::atomic::{AtomicBool, Ordering};

use doc_model::{Code, DocumentExtraction, Page, PageMethod, Table};

use doc_analysis::einvoice::mark_agreement;
use doc_analysis::tables::reread_cells;
use doc_analysis::{extract_header, find_document_line_items, find_key_values, find_tables};
use rayon::prelude::*;

use crate::error::PdfError;
use crate::load::PdfDocument;
use crate::render::{PageImage, RenderOptions};

/// The error of a recognizer or code scanner (Tesseract's, a barcode engine's), kept as the
/// source of [`ExtractError::Recognition`] and [`ExtractError::CodeScan`]: this crate does not
/// know the engines' error types.
pub type EngineError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Reads the text of a rendered page. The answer's boxes must be in PDF points from the
/// top-left of the page (pixels × 72 / `image.dpi`), like the text layer's.
pub trait PageRecognizer: Sync {
    /// Recognises page `page` (from 1) drawn in `image`; a failure is
    /// [`ExtractError::Recognition`] with the engine's error as its source
    /// ([`ExtractError::recognition`]).
    fn recognize(&self, image: &PageImage, page: u32) -> Result<Page, ExtractError>;

    /// Renders page `page` with `render` and recognises it, giving back the rendering too (the
    /// code scan reads it). The default renders first and then calls
    /// [`PageRecognizer::recognize`]; a recognizer with a limited pool of engines should take
    /// an engine first and render only then, so that a rendered page never waits in memory
    /// for an engine (memory then grows with the engines, not with the calls waiting).
    /// `render` fails with [`ExtractError::Render`], which is handed back as it is.
    fn render_and_recognize(
        &self,
        page: u32,
        render: &mut dyn FnMut() -> Result<PageImage, ExtractError>,
    ) -> Result<(Page, PageImage), ExtractError> {
        let image = render()?;
        let text = self.recognize(&image, page)?;
        Ok((text, image))
    }
}

/// Finds the barcodes and QR codes of a rendered page, boxes in PDF points like the text.
pub trait CodeScanner: Sync {
    /// Every code on page `page` (from 1) drawn in `image`; a failure is
    /// [`ExtractError::CodeScan`] with the engine's error as its source
    /// ([`ExtractError::code_scan`]).
    fn scan(&self, image: &PageImage, page: u32) -> Result<Vec<Code>, ExtractError>;
}

/// How pages are rendered for OCR and for the code scan.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Rendering of pages without a text layer (resolution from the page's images).
    pub ocr_render: RenderOptions,
    /// Resolution at which text-layer pages are rendered for the code scan.
    pub code_scan_dpi: f64,
    /// Threads working on pages at once.
    pub workers: usize,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        Self {
            ocr_render: RenderOptions::default(),
            code_scan_dpi: 200.0,
            workers: 2,
        }
    }
}

/// One selected page and whether its text layer is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagePlan {
    /// Page number, from 1.
    pub page: u32,
    /// Read from the text layer (else rendered and recognised).
    pub text_layer: bool,
}

impl PdfDocument {
    /// The pages `selector` names (all without one), each with whether its text layer is used.
    /// A page whose text layer cannot even be inspected is planned for OCR; a page over one of
    /// the budgets (see [`crate::budget`]) refuses the whole selection, before any price is
    /// named for work that could not be done.
    pub fn plan(&self, selector: Option<&str>) -> Result<Vec<PagePlan>, PdfError> {
        self.select_pages(selector)?
            .into_iter()
            .map(|page| {
                self.preflight(page)?;
                Ok(PagePlan {
                    page,
                    text_layer: self.has_text_layer(page).unwrap_or(false),
                })
            })
            .collect()
    }
}

/// Why a document gave no answer, or one of its pages could not be rendered, recognised or
/// scanned for codes. The messages name the cause as well, because the server's answers quote
/// them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    /// The caller cancelled (the time budget ran out).
    #[error("cancelled")]
    Cancelled,
    /// A page could not be drawn, for recognition or for the code scan.
    #[error("page {page}: {source}")]
    Render {
        /// The page, from 1.
        page: u32,
        /// Why.
        #[source]
        source: PdfError,
    },
    /// The recognizer could not read a rendered page.
    #[error("page {page}: recognition failed: {source}")]
    Recognition {
        /// The page, from 1.
        page: u32,
        /// The recognizer's own error.
        #[source]
        source: EngineError,
    },
    /// The code scanner failed on a rendered page.
    #[error("page {page}: code scan failed: {source}")]
    CodeScan {
        /// The page, from 1.
        page: u32,
        /// The scanner's own error.
        #[source]
        source: EngineError,
    },
    /// Every page was read and none had any text or code.
    #[error("no text and no code was found on the selected pages")]
    Empty,
}

impl ExtractError {
    /// A recognizer's failure on page `page`, its own error kept as the source.
    pub fn recognition(page: u32, source: impl Into<EngineError>) -> Self {
        Self::Recognition {
            page,
            source: source.into(),
        }
    }

    /// A code scanner's failure on page `page`, its own error kept as the source.
    pub fn code_scan(page: u32, source: impl Into<EngineError>) -> Self {
        Self::CodeScan {
            page,
            source: source.into(),
        }
    }
}

/// Reads every planned page (in parallel across `options.workers` threads, checking `cancel`
/// between pages), then finds tables, key-value pairs, header fields and codes.
///
/// A text-layer page whose extraction fails is rendered and recognised instead; a page that
/// cannot be read either way fails the whole call, because the price named every page. A table
/// whose text-layer text is junk is read again by OCR (see `reread_garbled`).
pub fn extract_document(
    document: &PdfDocument,
    plan: &[PagePlan],
    recognizer: &dyn PageRecognizer,
    codes: Option<&dyn CodeScanner>,
    options: &ExtractOptions,
    cancel: &AtomicBool,
) -> Result<DocumentExtraction, ExtractError> {
    // `None` for a page not started before `cancel` was set: CPU-bound work cannot be
    // interrupted in the middle of a page, so the time budget stops it between pages.
    let one = |step: &PagePlan| {
        (!cancel.load(Ordering::Relaxed))
            .then(|| read_page(document, *step, recognizer, codes, options))
    };
    // A scoped pool of the wanted size (its threads end with the call); one item per task so
    // that a slow page does not hold back the pages queued behind it. Should the system refuse
    // the threads, the pages are read one after the other on this one.
    let results: Vec<Option<PageOutcome>> = rayon::ThreadPoolBuilder::new()
        .num_threads(options.workers.clamp(1, plan.len().max(1)))
        .build_scoped(
            |thread| thread.run(),
            |pool| pool.install(|| plan.par_iter().with_max_len(1).map(one).collect()),
        )
        .unwrap_or_else(|_| plan.iter().map(one).collect());
    let mut pages = Vec::with_capacity(plan.len());
    let mut all_codes = Vec::new();
    for result in results {
        let (page, page_codes) = result.unwrap_or(Err(ExtractError::Cancelled))?;
        pages.push(page);
        all_codes.extend(page_codes);
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(ExtractError::Cancelled);
    }
    if pages.iter().all(|p| p.lines.is_empty()) && all_codes.is_empty() {
        return Err(ExtractError::Empty);
    }
    // Cancel checks between pages here too: these passes can take a while on a page full of
    // rulings or words.
    let mut tables = Vec::new();
    let mut key_values = Vec::new();
    for page in &pages {
        if cancel.load(Ordering::Relaxed) {
            return Err(ExtractError::Cancelled);
        }
        let mut found = find_tables(page);
        if page.method == PageMethod::TextLayer && found.iter().any(is_garbled) {
            reread_garbled(document, page.page, &mut found, recognizer, options);
        }
        tables.extend(found);
        key_values.extend(find_key_values(page));
    }
    let mut header = extract_header(&pages, &key_values);
    if cancel.load(Ordering::Relaxed) {
        return Err(ExtractError::Cancelled);
    }
    // The e-invoice the file embeds (size-capped before inflating and parsing), and on every
    // header field both give, whether page and XML agree.
    let embedded_invoice = document.embedded_invoice();
    if let Some(invoice) = &embedded_invoice {
        mark_agreement(&mut header, invoice);
    }
    let line_items = find_document_line_items(&pages, &tables);
    Ok(DocumentExtraction {
        pages_processed: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        header,
        tables,
        key_values,
        codes: all_codes,
        pages,
        embedded_invoice,
        line_items,
    })
}

/// Whether a table's text decodes to junk (a font without a usable encoding): its characters
/// fail [`crate::text::is_plausible_text`], the test that sends whole pages to OCR.
fn is_garbled(table: &Table) -> bool {
    let text = table
        .matrix
        .iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    !text.trim().is_empty() && !crate::text::is_plausible_text(&text)
}

/// Reads the tables of a text-layer page whose text is junk again by OCR: the page is rendered
/// and recognised, and each such table's cells take the recognised words inside their boxes
/// (the table's `source` becomes `ocr`; grid and boxes stay). The rest of the page keeps its
/// text layer (a page mostly of junk never gets here: it is planned for OCR as a whole). When
/// rendering or recognition fails, the tables stay as read, with a warning.
fn reread_garbled(
    document: &PdfDocument,
    page: u32,
    tables: &mut [Table],
    recognizer: &dyn PageRecognizer,
    options: &ExtractOptions,
) {
    let mut render = || {
        document
            .render_page(page, &options.ocr_render)
            .map_err(|source| ExtractError::Render { page, source })
    };
    match recognizer.render_and_recognize(page, &mut render) {
        Ok((mut ocr, _)) => {
            ocr.method = PageMethod::Ocr;
            for table in tables.iter_mut().filter(|t| is_garbled(t)) {
                if let Some(read) = reread_cells(table, &ocr) {
                    *table = read;
                }
            }
        }
        Err(error) => {
            tracing::warn!(page, %error, "tables with undecodable text kept: OCR failed");
        }
    }
}

/// A page read (its text and codes), or why not.
type PageOutcome = Result<(Page, Vec<Code>), ExtractError>;

fn read_page(
    document: &PdfDocument,
    step: PagePlan,
    recognizer: &dyn PageRecognizer,
    codes: Option<&dyn CodeScanner>,
    options: &ExtractOptions,
) -> PageOutcome {
    let page = step.page;
    let text_page = if step.text_layer {
        match document.extract_page(page) {
            Ok(page) => Some(page),
            Err(error) => {
                tracing::warn!(page, %error, "text layer unreadable; falling back to OCR");
                None
            }
        }
    } else {
        None
    };
    let drawn = |source: PdfError| ExtractError::Render { page, source };
    let (text, image) = match text_page {
        Some(text) => (text, None),
        None => {
            let mut render = || {
                document
                    .render_page(page, &options.ocr_render)
                    .map_err(drawn)
            };
            let (mut text, image) = recognizer.render_and_recognize(page, &mut render)?;
            text.method = PageMethod::Ocr;
            (text, Some(image))
        }
    };
    let found = match codes {
        None => Vec::new(),
        Some(scanner) => {
            let image = match image {
                Some(image) => image,
                None => document
                    .render_page_at(page, options.code_scan_dpi)
                    .map_err(drawn)?,
            };
            scanner.scan(&image, page)?
        }
    };
    Ok((text, found))
}
