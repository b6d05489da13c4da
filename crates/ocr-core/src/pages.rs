//! The pages of a document read for `/ocr`: a page with a text layer keeps its text, laid out in
//! the pixels of a [`TEXT_PAGE_DPI`] rendering (the pixel frame of the answer and the code scan
//! need that picture); any other page is rendered for OCR and recognised. Pages run in parallel,
//! one per engine, results in page order.
//!
//! The document comes in as the [`PageSource`] trait, so this crate stays free of any PDF
//! library (the docs-server implements it for `pdf_extract_core::PdfDocument`). The type of the
//! bytes comes from [`sniff_mime`].

use std::sync::atomic::AtomicBool;

use doc_model::Page;

use crate::engine::{EnginePool, in_order};
use crate::error::OcrError;
use crate::preprocess::{GreyImage, ImageMime};
use crate::read::{PageReading, ReadOptions, read_picture, read_text_layer_page};

/// Resolution at which text-layer pages are drawn for the pixel frame and the code scan.
pub const TEXT_PAGE_DPI: f64 = 200.0;

/// A page drawn in 8-bit grey.
#[derive(Clone, PartialEq)]
pub struct Rendering {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// One byte per pixel, row by row, no padding.
    pub luma: Vec<u8>,
    /// The resolution it was drawn at.
    pub dpi: f64,
}

impl std::fmt::Debug for Rendering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Rendering({}x{} at {} dpi)",
            self.width, self.height, self.dpi
        )
    }
}

/// A document's pages, as the reading needs them.
pub trait PageSource: Sync {
    /// What drawing a page can fail with, handed back to the caller unchanged.
    type Error: Send;

    /// The text layer of page `page` (from 1) with boxes in points, or `None` when it cannot
    /// be extracted (the page is then rendered and recognised).
    fn text_layer_page(&self, page: u32) -> Option<Page>;

    /// Page `page` drawn at `dpi`.
    fn render_at(&self, page: u32, dpi: f64) -> Result<Rendering, Self::Error>;

    /// Page `page` drawn for recognition (the resolution is the source's choice, e.g. that of
    /// the page's images).
    fn render_for_ocr(&self, page: u32) -> Result<Rendering, Self::Error>;
}

/// One page to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagePlan {
    /// From 1.
    pub page: u32,
    /// Read from the text layer (else rendered and recognised).
    pub text_layer: bool,
}

/// Why the pages of a document could not be read. The source's own error is kept as it is, so
/// that the caller can answer it as it answers its other document errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PagesError<E> {
    /// The source could not draw a page.
    #[error("the document could not be drawn")]
    Source(E),
    /// A page could not be read.
    #[error("page {page}: {source}")]
    Page {
        /// The page, from 1.
        page: u32,
        /// Why.
        #[source]
        source: OcrError,
    },
    /// `cancel` was set before every page was read.
    #[error("the reading was interrupted")]
    Interrupted,
}

/// Reads every planned page on the engines of `pool` (one page per engine at a time, `cancel`
/// checked before each page), results in plan order. The first failing page in plan order
/// fails the whole call, because the price named every page.
pub fn read_pages<S: PageSource>(
    pool: &EnginePool,
    source: &S,
    plan: &[PagePlan],
    options: &ReadOptions,
    cancel: &AtomicBool,
) -> Result<Vec<PageReading>, PagesError<S::Error>> {
    in_order(plan, pool.size(), cancel, |step| {
        read_page(pool, source, *step, options)
    })
    .into_iter()
    .map(|result| result.unwrap_or(Err(PagesError::Interrupted)))
    .collect()
}

/// A page: its text layer laid out in the pixels of a [`TEXT_PAGE_DPI`] rendering, or the page
/// rendered for OCR and recognised.
fn read_page<S: PageSource>(
    pool: &EnginePool,
    source: &S,
    PagePlan { page, text_layer }: PagePlan,
    options: &ReadOptions,
) -> Result<PageReading, PagesError<S::Error>> {
    let failed = |source: OcrError| PagesError::Page { page, source };
    let grey = |image: Rendering| GreyImage::new(image.width, image.height, image.luma);
    if let Some(text) = text_layer.then(|| source.text_layer_page(page)).flatten() {
        let image = source
            .render_at(page, TEXT_PAGE_DPI)
            .map_err(PagesError::Source)?;
        let dpi = image.dpi;
        return read_text_layer_page(text, &grey(image).map_err(failed)?, dpi, options)
            .map_err(failed);
    }
    let image = source.render_for_ocr(page).map_err(PagesError::Source)?;
    let dpi = image.dpi;
    read_picture(
        pool,
        &grey(image).map_err(failed)?,
        page,
        Some(dpi),
        options,
    )
    .map_err(failed)
}

/// The input types `/ocr` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputMime {
    /// A PDF document.
    Pdf,
    /// A picture.
    Image(ImageMime),
}

/// The type the bytes say they are: a PDF header in the first kilobyte (some files carry junk
/// before it), or the signature of a PNG, JPEG or WebP file; `None` for anything else.
pub fn sniff_mime(bytes: &[u8]) -> Option<InputMime> {
    if bytes.starts_with(b"%PDF-")
        || bytes
            .get(..1024)
            .is_some_and(|head| head.windows(5).any(|w| w == b"%PDF-"))
    {
        return Some(InputMime::Pdf);
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(InputMime::Image(ImageMime::Png));
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(InputMime::Image(ImageMime::Jpeg));
    }
    if bytes.len() >= 12 && bytes.get(..4) == Some(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        return Some(InputMime::Image(ImageMime::Webp));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;
    use doc_model::{Confidence, CoordinateFrame, Line, PageBox, PageMethod, Word};
    use std::sync::Mutex;

    /// A document of blank pages that records what was asked of it.
    struct Stub {
        text_layer: bool,
        broken: bool,
        asked: Mutex<Vec<(u32, Option<f64>)>>,
    }

    impl Stub {
        fn new(text_layer: bool, broken: bool) -> Self {
            Self {
                text_layer,
                broken,
                asked: Mutex::new(Vec::new()),
            }
        }

        fn blank(&self, page: u32, dpi: Option<f64>) -> Result<Rendering, &'static str> {
            self.asked.lock().expect("lock").push((page, dpi));
            if self.broken {
                return Err("broken");
            }
            let dpi = dpi.unwrap_or(150.0);
            // An A4 page at `dpi`, scaled down so the test stays quick.
            let (width, height) = ((dpi * 2.0) as u32, (dpi * 3.0) as u32);
            Ok(Rendering {
                width,
                height,
                luma: vec![255; (width * height) as usize],
                dpi,
            })
        }
    }

    impl PageSource for Stub {
        type Error = &'static str;

        fn text_layer_page(&self, page: u32) -> Option<Page> {
            let word = Word {
                text: "Rechnung".into(),
                bbox: PageBox::from_edges(page, 10.0, 10.0, 60.0, 20.0),
                confidence: Confidence::new(1.0),
            };
            self.text_layer.then(|| Page {
                page,
                width: 144.0,
                height: 216.0,
                coordinate_frame: CoordinateFrame::PdfPointsTopLeft,
                method: PageMethod::TextLayer,
                rotation: 0,
                columns: 1,
                lines: Line::from_words(vec![word], Some(10.0))
                    .into_iter()
                    .collect(),
                rulings: Vec::new(),
                recogniser: None,
            })
        }

        fn render_at(&self, page: u32, dpi: f64) -> Result<Rendering, &'static str> {
            self.blank(page, Some(dpi))
        }

        fn render_for_ocr(&self, page: u32) -> Result<Rendering, &'static str> {
            self.blank(page, None)
        }
    }

    fn pool() -> EnginePool {
        EnginePool::new(EngineConfig {
            engines: 1,
            ..EngineConfig::default()
        })
        .expect("Tesseract with deu+eng is installed")
    }

    fn options() -> ReadOptions {
        ReadOptions {
            languages: Vec::new(),
            codes: false,
            code_options: Default::default(),
            recogniser: Default::default(),
            photo: Default::default(),
        }
    }

    const TEXT_PAGE: PagePlan = PagePlan {
        page: 1,
        text_layer: true,
    };
    const SCANNED_PAGE: PagePlan = PagePlan {
        page: 2,
        text_layer: false,
    };

    #[test]
    fn a_text_layer_page_keeps_its_text_in_a_200_dpi_frame() {
        let source = Stub::new(true, false);
        let never = AtomicBool::new(false);
        let readings = read_pages(&pool(), &source, &[TEXT_PAGE], &options(), &never)
            .expect("the text page is read");
        assert_eq!(
            *source.asked.lock().expect("lock"),
            vec![(1, Some(TEXT_PAGE_DPI))]
        );
        assert_eq!(readings.len(), 1);
        assert_eq!(readings[0].page.method, PageMethod::TextLayer);
        assert!(readings[0].page.text().contains("Rechnung"));
    }

    #[test]
    fn a_page_that_cannot_be_drawn_gives_the_sources_own_error() {
        let source = Stub::new(false, true);
        let never = AtomicBool::new(false);
        let result = read_pages(&pool(), &source, &[SCANNED_PAGE], &options(), &never);
        assert!(
            matches!(result, Err(PagesError::Source("broken"))),
            "{result:?}"
        );
        // A scanned page is drawn for OCR, at the source's resolution.
        assert_eq!(*source.asked.lock().expect("lock"), vec![(2, None)]);
    }

    #[test]
    fn nothing_is_drawn_once_cancelled() {
        let source = Stub::new(true, false);
        let stop = AtomicBool::new(true);
        let result = read_pages(
            &pool(),
            &source,
            &[TEXT_PAGE, SCANNED_PAGE],
            &options(),
            &stop,
        );
        assert!(matches!(result, Err(PagesError::Interrupted)), "{result:?}");
        assert!(source.asked.lock().expect("lock").is_empty());
    }

    #[test]
    fn the_bytes_name_their_type() {
        assert_eq!(sniff_mime(b"%PDF-1.7\n"), Some(InputMime::Pdf));
        assert_eq!(
            sniff_mime(b"\x89PNG\r\n\x1a\n...."),
            Some(InputMime::Image(ImageMime::Png))
        );
        assert_eq!(
            sniff_mime(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(InputMime::Image(ImageMime::Jpeg))
        );
        assert_eq!(
            sniff_mime(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(InputMime::Image(ImageMime::Webp))
        );
        assert_eq!(sniff_mime(b"GIF89a"), None);
    }
}
