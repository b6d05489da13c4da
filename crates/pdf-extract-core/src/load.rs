//! Opening a PDF within limits: size before parsing, typed errors for broken and encrypted
//! files, page geometry, and the prepared copies the text extractor and the renderer read.
//!
//! Three parsers see the file:
//! - lopdf 0.47 opens it (page tree, page boxes, decryption with the empty user password);
//! - pdf-extract (which parses with its own lopdf 0.42) reads the text: it gets a copy re-saved
//!   by lopdf 0.47, so it reads every file lopdf 0.47 reads (0.42 alone rejects some valid
//!   files), never sees encryption, never decodes image data (images are replaced by empty
//!   forms: it would otherwise inflate them and parse them as content streams) and never
//!   inflates a stream beyond [`MAX_STREAM_BYTES`];
//! - hayro renders pages and measures their images.
//!
//! Every call into them runs under `catch_unwind`: pdf-extract panics on purpose on input it
//! does not support, and a panic becomes a typed error for that file or page.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

use lopdf::{Dictionary, Object, ObjectId};

use crate::budget::{Budgets, DocumentBudget, PageBudget, PageWork};
use crate::error::{Budget, PdfError};
use crate::pages::select_pages;
use crate::text::glyph::PageText;
use crate::tree::{MAX_INHERITANCE_DEPTH, inherited};

/// Most a single stream of the text copy may inflate to; a larger one is emptied.
pub const MAX_STREAM_BYTES: usize = 32 * 1024 * 1024;
/// Most all streams of the text copy may inflate to together; later ones are emptied.
pub const MAX_TOTAL_STREAM_BYTES: usize = 256 * 1024 * 1024;
/// How far into the file the `%PDF-` header may start (readers accept leading junk).
const HEADER_SEARCH_BYTES: usize = 1024;
/// US Letter, for pages without a usable media box.
const DEFAULT_PAGE: [f64; 4] = [0.0, 0.0, 612.0, 792.0];
/// Most bytes one object or cross-reference stream may inflate to while lopdf loads the file.
/// Their members are parsed into objects eagerly (a 32 MB stream of `0 0 0 …` becomes 16
/// million objects), so this is kept far below the content-stream cap: the largest seen in the
/// test corpora is under 1 MB.
const MAX_OBJECT_STREAM_BYTES: usize = 8 * 1024 * 1024;

/// Limits applied to one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest file accepted, in bytes; checked before parsing.
    pub max_bytes: usize,
    /// Most pages one call may select (the file itself may have more).
    pub max_pages: u32,
}

impl Limits {
    /// The limits of `/document`: 15 MB (15,728,640 bytes) and 20 pages per call.
    pub const DOCUMENT: Self = Self {
        max_bytes: 15_728_640,
        max_pages: 20,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DOCUMENT
    }
}

/// Where a page sits: its visible box (crop box within the media box) in PDF user space and its
/// clockwise rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PageGeometry {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    /// 0, 90, 180 or 270.
    pub(crate) rotation: u32,
}

impl PageGeometry {
    fn new(visible: [f64; 4], rotate: i64) -> Self {
        let [x0, y0, x1, y1] = visible;
        let rotation = match rotate.rem_euclid(360) {
            r @ (90 | 180 | 270) => r as u32,
            _ => 0,
        };
        Self {
            x0: x0.min(x1),
            y0: y0.min(y1),
            x1: x0.max(x1),
            y1: y0.max(y1),
            rotation,
        }
    }

    fn unrotated_size(&self) -> (f64, f64) {
        (self.x1 - self.x0, self.y1 - self.y0)
    }

    /// Width and height of the page as displayed, in points.
    pub(crate) fn display_size(&self) -> (f64, f64) {
        let (w, h) = self.unrotated_size();
        if self.rotation % 180 == 90 {
            (h, w)
        } else {
            (w, h)
        }
    }

    /// A point of PDF user space in the displayed page's frame (points, origin top-left, y down).
    pub(crate) fn display_point(&self, x: f64, y: f64) -> (f64, f64) {
        let (w, h) = self.unrotated_size();
        let (u, v) = (x - self.x0, y - self.y0);
        match self.rotation {
            90 => (v, u),
            180 => (w - u, v),
            270 => (h - v, w - u),
            _ => (u, h - v),
        }
    }

    /// A vector of PDF user space in the displayed frame.
    pub(crate) fn display_vector(&self, dx: f64, dy: f64) -> (f64, f64) {
        match self.rotation {
            90 => (dy, dx),
            180 => (-dx, dy),
            270 => (-dy, -dx),
            _ => (dx, -dy),
        }
    }
}

/// An opened PDF. Text and image information is computed per page on first use and cached, so
/// [`PdfDocument::has_text_layer`] followed by [`PdfDocument::extract_page`] reads a page once.
pub struct PdfDocument {
    pub(crate) limits: Limits,
    pub(crate) budgets: Budgets,
    /// lopdf's view, kept for the preflight of each page (see [`crate::budget`]).
    pub(crate) source: lopdf::Document,
    page_ids: Vec<ObjectId>,
    preflights: Vec<OnceLock<Result<PageWork, PdfError>>>,
    document_budget: DocumentBudget,
    pub(crate) geometry: Vec<PageGeometry>,
    /// pdf-extract's view (lopdf 0.42), or why it could not be prepared.
    pub(crate) text_doc: Result<pdf_extract::Document, NoTextCopy>,
    /// The renderer's view, or why hayro could not open the file.
    pub(crate) render_doc: Result<hayro::hayro_syntax::Pdf, RendererRefused>,
    pub(crate) text_cache: Vec<OnceLock<Result<Arc<PageText>, PdfError>>>,
    pub(crate) image_cache: Vec<OnceLock<Result<crate::images::PageImages, PdfError>>>,
}

impl std::fmt::Debug for PdfDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PdfDocument")
            .field("pages", &self.geometry.len())
            .field("text_doc", &self.text_doc.as_ref().map(|_| "ok"))
            .field("render_doc", &self.render_doc.as_ref().map(|_| "ok"))
            .finish()
    }
}

impl PdfDocument {
    /// Opens a PDF. The size limit is checked before any parsing; an empty, oversized, non-PDF,
    /// broken or password-protected file is a typed error. Never panics.
    pub fn load(bytes: &[u8], limits: &Limits) -> Result<Self, PdfError> {
        Self::load_with_budgets(bytes, limits, &Budgets::DEFAULT)
    }

    /// Opens a PDF like [`PdfDocument::load`], with other budgets than the service's.
    pub fn load_with_budgets(
        bytes: &[u8],
        limits: &Limits,
        budgets: &Budgets,
    ) -> Result<Self, PdfError> {
        Self::open(bytes, limits, budgets, None)
    }

    /// Opens a PDF encrypted with a user password the caller knows (the services never take
    /// one and keep refusing such files); a wrong password is [`PdfError::Encrypted`]. An
    /// unencrypted file opens as with [`PdfDocument::load`].
    pub fn load_with_password(
        bytes: &[u8],
        limits: &Limits,
        password: &str,
    ) -> Result<Self, PdfError> {
        Self::open(bytes, limits, &Budgets::DEFAULT, Some(password))
    }

    fn open(
        bytes: &[u8],
        limits: &Limits,
        budgets: &Budgets,
        password: Option<&str>,
    ) -> Result<Self, PdfError> {
        if bytes.is_empty() {
            return Err(PdfError::Empty);
        }
        if bytes.len() > limits.max_bytes {
            return Err(PdfError::TooLarge {
                size: bytes.len(),
                limit: limits.max_bytes,
            });
        }
        let head = &bytes[..bytes.len().min(HEADER_SEARCH_BYTES)];
        if !head.windows(5).any(|w| w == b"%PDF-") {
            return Err(PdfError::NotPdf {
                reason: "no %PDF- header in the first 1024 bytes".into(),
            });
        }
        let options = lopdf::LoadOptions {
            max_decompressed_size: Some(MAX_OBJECT_STREAM_BYTES.min(MAX_STREAM_BYTES)),
            password: password.map(str::to_owned),
            ..lopdf::LoadOptions::default()
        };
        let doc = guarded(|| lopdf::Document::load_mem_with_options(bytes, options))
            .map_err(|panic| PdfError::Malformed {
                reason: format!("the parser gave up: {panic}"),
            })?
            .map_err(|e| match e {
                lopdf::Error::InvalidPassword | lopdf::Error::Decryption(_) => PdfError::Encrypted,
                other => PdfError::Malformed {
                    reason: other.to_string(),
                },
            })?;
        // lopdf opens a file it cannot decrypt with the empty password but leaves it encrypted.
        if doc.is_encrypted() && doc.encryption_state.is_none() {
            return Err(PdfError::Encrypted);
        }
        let objects = object_count(&doc, budgets.max_objects);
        if objects > budgets.max_objects {
            return Err(PdfError::BudgetExceeded {
                page: None,
                budget: Budget::Objects,
                detail: format!(
                    "the file holds more than {} objects (array and dictionary members counted)",
                    budgets.max_objects
                ),
            });
        }
        let page_ids: Vec<ObjectId> =
            guarded(|| doc.page_iter().collect()).map_err(|panic| PdfError::Malformed {
                reason: format!("the page tree could not be read: {panic}"),
            })?;
        if let Some(index) = page_ids.iter().position(|id| !within_depth(&doc, *id)) {
            return Err(PdfError::BudgetExceeded {
                page: Some(index as u32 + 1),
                budget: Budget::PageTreeDepth,
                detail: format!(
                    "the page lies more than {MAX_INHERITANCE_DEPTH} levels below the root of the page tree"
                ),
            });
        }
        let geometry = guarded(|| {
            page_ids
                .iter()
                .map(|id| page_geometry(&doc, *id))
                .collect::<Vec<_>>()
        })
        .map_err(|panic| PdfError::Malformed {
            reason: format!("the page tree could not be read: {panic}"),
        })?;
        if geometry.is_empty() {
            return Err(PdfError::Malformed {
                reason: "no pages".into(),
            });
        }
        let page_count = geometry.len();
        let text_doc = guarded(|| text_copy(doc.clone()))
            .unwrap_or_else(|panic| Err(NoTextCopy::Panicked(panic)))
            .and_then(|copy| {
                let pages = copy.get_pages().len();
                if pages == page_count {
                    Ok(copy)
                } else {
                    Err(NoTextCopy::PageCount { pages, page_count })
                }
            });
        if let Err(reason) = &text_doc {
            tracing::warn!(%reason, "text extraction unavailable for this file");
        }
        let owned: Vec<u8> = bytes.to_vec();
        let render_doc = guarded(|| hayro::hayro_syntax::Pdf::new(owned))
            .unwrap_or_else(|panic| Err(panic_load_error(panic)))
            .map_err(RendererRefused);
        if let Err(reason) = &render_doc {
            tracing::warn!(%reason, "rendering unavailable for this file");
        }
        Ok(Self {
            limits: *limits,
            budgets: *budgets,
            source: doc,
            preflights: (0..page_count).map(|_| OnceLock::new()).collect(),
            page_ids,
            document_budget: DocumentBudget::default(),
            text_cache: (0..page_count).map(|_| OnceLock::new()).collect(),
            image_cache: (0..page_count).map(|_| OnceLock::new()).collect(),
            geometry,
            text_doc,
            render_doc,
        })
    }

    /// Number of pages in the file.
    pub fn page_count(&self) -> u32 {
        u32::try_from(self.geometry.len()).unwrap_or(u32::MAX)
    }

    /// The pages a selector names (see [`select_pages`]), within this document's page count and
    /// the per-call page limit.
    pub fn select_pages(&self, selector: Option<&str>) -> Result<Vec<u32>, PdfError> {
        select_pages(selector, self.page_count(), self.limits.max_pages)
    }

    /// Width and height of a page as displayed (after `/Rotate`, crop box within media box), in
    /// points.
    pub fn page_size(&self, page: u32) -> Result<(f64, f64), PdfError> {
        Ok(self.geometry(page)?.display_size())
    }

    /// Clockwise rotation of a page (`/Rotate`), 0, 90, 180 or 270.
    pub fn page_rotation(&self, page: u32) -> Result<u32, PdfError> {
        Ok(self.geometry(page)?.rotation)
    }

    /// Bytes the streams of the pages checked so far inflate to, each stream counted once.
    pub fn inflated_bytes(&self) -> u64 {
        self.document_budget.inflated()
    }

    /// The budgets this document is read under.
    pub fn budgets(&self) -> &Budgets {
        &self.budgets
    }

    /// Checks a page against the budgets before a parser reads it (see [`crate::budget`]);
    /// computed once per page. Every method that reads a page calls it first.
    pub fn preflight(&self, page: u32) -> Result<(), PdfError> {
        self.page_work(page).map(|_| ())
    }

    /// What the preflight measured on a page, or why it refused it.
    pub fn page_work(&self, page: u32) -> Result<PageWork, PdfError> {
        self.geometry(page)?;
        let index = (page - 1) as usize;
        let (Some(slot), Some(id)) = (self.preflights.get(index), self.page_ids.get(index)) else {
            return Err(PdfError::PageOutOfRange {
                page,
                page_count: self.page_count(),
            });
        };
        slot.get_or_init(|| {
            guarded(|| {
                PageBudget::preflight(
                    &self.source,
                    &self.budgets,
                    &self.document_budget,
                    page,
                    *id,
                )
            })
            .unwrap_or_else(|panic| {
                Err(PdfError::Malformed {
                    reason: format!("page {page} could not be inspected: {panic}"),
                })
            })
        })
        .clone()
    }

    pub(crate) fn geometry(&self, page: u32) -> Result<&PageGeometry, PdfError> {
        page.checked_sub(1)
            .and_then(|i| self.geometry.get(i as usize))
            .ok_or(PdfError::PageOutOfRange {
                page,
                page_count: self.page_count(),
            })
    }
}

#[allow(clippy::needless_pass_by_value)]
fn panic_load_error(panic: Panicked) -> hayro::hayro_syntax::LoadPdfError {
    tracing::warn!(%panic, "hayro panicked while opening the file");
    hayro::hayro_syntax::LoadPdfError::Invalid
}

/// A panic inside third-party parsing code, with its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Panicked(String);

/// Why pdf-extract has no copy of the document to read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoTextCopy {
    /// Preparing the copy panicked.
    #[error("preparing the text copy panicked: {0}")]
    Panicked(Panicked),
    /// lopdf could not save the prepared copy.
    #[error("re-saving for text extraction failed: {0}")]
    Save(std::io::Error),
    /// pdf-extract's lopdf (another version than ours) could not parse the saved copy.
    #[error("the text extractor cannot parse the file: {0}")]
    Parse(pdf_extract::Error),
    /// The copy has another number of pages than the file.
    #[error("the text copy has {pages} pages instead of {page_count}")]
    PageCount {
        /// Pages of the copy.
        pages: usize,
        /// Pages of the file.
        page_count: usize,
    },
}

/// Why hayro cannot open the file for rendering (its own error, printed as hayro names it).
#[derive(Debug, thiserror::Error)]
#[error("{0:?}")]
pub(crate) struct RendererRefused(hayro::hayro_syntax::LoadPdfError);

/// Runs third-party parsing code, turning a panic into its message.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        Panicked(
            payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into()),
        )
    })
}

/// Objects in the file, members of arrays and dictionaries included, counted up to just past
/// `limit`.
fn object_count(doc: &lopdf::Document, limit: usize) -> usize {
    let mut count = 0usize;
    let mut todo: Vec<&Object> = Vec::new();
    for object in doc.objects.values() {
        todo.push(object);
        while let Some(object) = todo.pop() {
            count += 1;
            if count > limit {
                return count;
            }
            match object {
                Object::Array(items) => todo.extend(items.iter()),
                Object::Dictionary(dict) => todo.extend(dict.iter().map(|(_, v)| v)),
                Object::Stream(stream) => todo.extend(stream.dict.iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
    count
}

/// Whether a page's chain of `/Parent`s ends within [`MAX_INHERITANCE_DEPTH`] (a cycle does
/// not).
fn within_depth(doc: &lopdf::Document, page: ObjectId) -> bool {
    let Ok(mut dict) = doc.get_dictionary(page) else {
        return true;
    };
    for _ in 0..MAX_INHERITANCE_DEPTH {
        let Ok(parent) = dict.get(b"Parent") else {
            return true;
        };
        match doc
            .dereference(parent)
            .ok()
            .and_then(|(_, p)| p.as_dict().ok())
        {
            Some(next) => dict = next,
            None => return true,
        }
    }
    dict.get(b"Parent").is_err()
}

fn rect(doc: &lopdf::Document, value: Option<&Object>) -> Option<[f64; 4]> {
    let array = value?.as_array().ok()?;
    if array.len() != 4 {
        return None;
    }
    let mut out = [0.0; 4];
    for (slot, item) in out.iter_mut().zip(array) {
        let number = doc.dereference(item).ok()?.1.as_float().ok()?;
        *slot = f64::from(number);
        if !slot.is_finite() {
            return None;
        }
    }
    let [x0, y0, x1, y1] = out;
    ((x1 - x0).abs() >= 1.0 && (y1 - y0).abs() >= 1.0)
        .then(|| [x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)])
}

fn page_geometry(doc: &lopdf::Document, id: ObjectId) -> PageGeometry {
    let Ok(page) = doc.get_dictionary(id) else {
        return PageGeometry::new(DEFAULT_PAGE, 0);
    };
    let media = rect(doc, inherited(doc, page, b"MediaBox")).unwrap_or(DEFAULT_PAGE);
    let visible = rect(doc, inherited(doc, page, b"CropBox"))
        .and_then(|crop| {
            let clipped = [
                crop[0].max(media[0]),
                crop[1].max(media[1]),
                crop[2].min(media[2]),
                crop[3].min(media[3]),
            ];
            (clipped[2] - clipped[0] >= 1.0 && clipped[3] - clipped[1] >= 1.0).then_some(clipped)
        })
        .unwrap_or(media);
    let rotate = inherited(doc, page, b"Rotate")
        .and_then(|r| r.as_i64().ok())
        .unwrap_or(0);
    PageGeometry::new(visible, rotate)
}

/// The copy of the document pdf-extract reads: decrypted, image data removed, streams inflated
/// within the byte budgets, re-saved by lopdf 0.47 and parsed by pdf-extract's lopdf 0.42.
fn text_copy(mut doc: lopdf::Document) -> Result<pdf_extract::Document, NoTextCopy> {
    if doc.encryption_state.is_some() {
        doc.trailer.remove(b"Encrypt");
        doc.encryption_state = None;
    }
    let mut budget = MAX_TOTAL_STREAM_BYTES;
    let mut containers = Vec::new();
    for (id, object) in doc.objects.iter_mut() {
        let Object::Stream(stream) = object else {
            continue;
        };
        let kind = |key: &[u8]| {
            stream
                .dict
                .get(key)
                .and_then(Object::as_name)
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        };
        let (type_name, subtype) = (kind(b"Type"), kind(b"Subtype"));
        if type_name == b"ObjStm" || type_name == b"XRef" {
            // Their members are already loaded as objects; the saved file needs neither.
            containers.push(*id);
            continue;
        }
        if subtype == b"Image" {
            *stream = empty_form();
            continue;
        }
        if type_name == b"EmbeddedFile" || type_name == b"Metadata" || !stream.is_compressed() {
            continue;
        }
        match stream.decompressed_content_with_limit(MAX_STREAM_BYTES.min(budget)) {
            Ok(content) => {
                budget = budget.saturating_sub(content.len());
                stream.set_plain_content(content);
            }
            Err(lopdf::Error::Decompress(_)) if budget == 0 => stream.set_plain_content(Vec::new()),
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => {
                tracing::warn!(
                    ?id,
                    "stream inflates beyond the limit, emptied for text extraction"
                );
                stream.set_plain_content(Vec::new());
            }
            // Unsupported or broken filters: pdf-extract falls back to the raw bytes itself.
            Err(_) => {}
        }
    }
    for id in containers {
        doc.objects.remove(&id);
    }
    crate::text::cid::normalize_cid_widths(&mut doc);
    crate::text::cid::pad_encoding_codespaces(&mut doc);
    crate::encoding::add_to_unicode_from_encoding(&mut doc);
    crate::paint::rewrite_skipped_operators(&mut doc);
    let mut saved = Vec::new();
    doc.save_to(&mut saved).map_err(NoTextCopy::Save)?;
    pdf_extract::Document::load_mem(&saved).map_err(NoTextCopy::Parse)
}

fn empty_form() -> lopdf::Stream {
    let mut dict = Dictionary::new();
    dict.set("Type", Object::Name(b"XObject".to_vec()));
    dict.set("Subtype", Object::Name(b"Form".to_vec()));
    dict.set(
        "BBox",
        Object::Array(vec![0.into(), 0.into(), 0.into(), 0.into()]),
    );
    lopdf::Stream::new(dict, Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_maps_corners_for_every_rotation() {
        // A 100 x 200 page whose crop box starts at (10, 20).
        let visible = [10.0, 20.0, 110.0, 220.0];
        let g0 = PageGeometry::new(visible, 0);
        assert_eq!(g0.display_size(), (100.0, 200.0));
        assert_eq!(g0.display_point(10.0, 220.0), (0.0, 0.0));
        assert_eq!(g0.display_point(110.0, 20.0), (100.0, 200.0));
        let g90 = PageGeometry::new(visible, -270);
        assert_eq!(g90.rotation, 90);
        assert_eq!(g90.display_size(), (200.0, 100.0));
        // The unrotated top-left corner ends at the top-right after a clockwise quarter turn.
        assert_eq!(g90.display_point(10.0, 220.0), (200.0, 0.0));
        let g180 = PageGeometry::new(visible, 180);
        assert_eq!(g180.display_point(10.0, 220.0), (100.0, 200.0));
        let g270 = PageGeometry::new(visible, 270);
        assert_eq!(g270.display_point(10.0, 220.0), (0.0, 100.0));
        assert_eq!(PageGeometry::new(visible, 45).rotation, 0);
    }

    #[test]
    fn guarded_turns_panics_into_messages() {
        let caught = guarded(|| -> u32 { panic!("deliberate") });
        assert_eq!(caught, Err(Panicked("deliberate".to_string())));
        assert_eq!(guarded(|| 7), Ok(7));
    }
}

/// Refusals on the committed fixtures and on broken input.
#[cfg(test)]
mod fixture_tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!("{}/../../testdata/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).expect("fixture exists")
    }

    fn load(bytes: &[u8]) -> Result<PdfDocument, PdfError> {
        PdfDocument::load(bytes, &Limits::DOCUMENT)
    }

    #[test]
    fn empty_and_not_pdf() {
        assert_eq!(load(b"").map(|_| ()), Err(PdfError::Empty));
        assert!(matches!(
            load(b"PK\x03\x04 a zip"),
            Err(PdfError::NotPdf { .. })
        ));
        assert!(matches!(load(&[0u8; 4096]), Err(PdfError::NotPdf { .. })));
    }

    #[test]
    fn size_is_checked_before_parsing() {
        // Not a PDF at all, but over the limit: the size is what is reported.
        let limits = Limits {
            max_bytes: 100,
            max_pages: 20,
        };
        let junk = vec![b'x'; 101];
        assert_eq!(
            PdfDocument::load(&junk, &limits).map(|_| ()),
            Err(PdfError::TooLarge {
                size: 101,
                limit: 100
            })
        );
        let real = fixture("two_column.pdf");
        let exact = Limits {
            max_bytes: real.len(),
            max_pages: 20,
        };
        assert!(PdfDocument::load(&real, &exact).is_ok());
    }

    #[test]
    fn malformed_and_truncated() {
        assert!(matches!(
            load(&fixture("invalid.pdf")),
            Err(PdfError::Malformed { .. })
        ));
        // Every truncation of a real file gives a typed error or a document whose pages answer
        // with typed results: never a panic.
        let bytes = fixture("zugferd_basic_einfach.pdf");
        for cut in [
            16,
            1000,
            bytes.len() / 3,
            bytes.len() / 2,
            bytes.len() - 200,
        ] {
            if let Ok(doc) = load(&bytes[..cut]) {
                for page in 1..=doc.page_count() {
                    let _ = doc.has_text_layer(page);
                    let _ = doc.extract_page(page);
                }
            }
        }
    }

    #[test]
    fn user_password_is_refused() {
        assert_eq!(
            load(&fixture("encrypted_user_password.pdf")).map(|_| ()),
            Err(PdfError::Encrypted)
        );
    }

    #[test]
    fn user_password_opens_the_file_when_given() {
        let bytes = fixture("encrypted_user_password.pdf");
        assert_eq!(
            PdfDocument::load_with_password(&bytes, &Limits::DOCUMENT, "wrong").map(|_| ()),
            Err(PdfError::Encrypted)
        );
        let doc = PdfDocument::load_with_password(&bytes, &Limits::DOCUMENT, "secret")
            .expect("opens with its password");
        let plain = load(&fixture("multipage.pdf")).expect("opens");
        assert_eq!(doc.page_count(), plain.page_count());
        let text = |d: &PdfDocument| -> Vec<String> {
            d.extract_page(1)
                .expect("page 1")
                .lines
                .iter()
                .map(|l| l.text.clone())
                .collect()
        };
        assert!(!text(&plain).is_empty());
        assert_eq!(text(&doc), text(&plain));
    }
}
