//! The adapters between the document crates: the recognisers (the pool of ocr-core: the PP-OCR
//! models when it has them, Tesseract) and the code reader handed to pdf-extract-core's
//! extraction through its traits, and a PDF handed to ocr-core's page reading through its
//! [`PageSource`] trait.

use doc_model::{Code, Page};
use ocr_core::codes::{CodeOptions, Engine, read_codes, scale_code};
use ocr_core::engine::{EnginePool, PageRequest, PixelBuffer};
use ocr_core::pages::{PageSource, Rendering};
use ocr_core::preprocess::GreyImage;
use ocr_core::read::read_rendered_with_models;
use pdf_extract_core::document::{CodeScanner, ExtractError, PageRecognizer};
use pdf_extract_core::{PageImage, PdfDocument, PdfError, RenderOptions};

/// Rendered PDF pages read by the PP-OCR models when the pool has them and they keep the
/// reading (`/document` names no language: ocr-core's rules for an unnamed language), by
/// Tesseract otherwise; boxes in PDF points.
#[derive(Debug)]
pub struct OcrRecognizer<'a> {
    pool: &'a EnginePool,
}

impl<'a> OcrRecognizer<'a> {
    /// Over `pool`.
    pub fn new(pool: &'a EnginePool) -> Self {
        Self { pool }
    }

    /// The page as the models read it, or `None` when Tesseract is to read it.
    fn with_models(&self, image: &PageImage, page: u32) -> Result<Option<Page>, ExtractError> {
        let failed = |e| ExtractError::recognition(page, e);
        let picture =
            GreyImage::new(image.width, image.height, image.luma.clone()).map_err(failed)?;
        read_rendered_with_models(
            self.pool,
            &picture,
            page,
            72.0 / image.dpi,
            self.pool.languages(),
        )
        .map_err(failed)
    }

    fn tesseract(&self, image: &PageImage, page: u32) -> Result<Page, ExtractError> {
        let request = points_request(image, page);
        let failed = |e| ExtractError::recognition(page, e);
        let pixels = PixelBuffer::grey(image.width, image.height, &image.luma).map_err(failed)?;
        self.pool.recognize(pixels, &request).map_err(failed)
    }
}

impl PageRecognizer for OcrRecognizer<'_> {
    fn recognize(&self, image: &PageImage, page: u32) -> Result<Page, ExtractError> {
        match self.with_models(image, page)? {
            Some(text) => Ok(text),
            None => self.tesseract(image, page),
        }
    }

    /// An engine first, the rendering only then: a rendered page never waits in memory for an
    /// engine. With the models, the page is rendered and read by them at once (they hold no
    /// engine), and waits for an engine only when Tesseract is to read it after all.
    fn render_and_recognize(
        &self,
        page: u32,
        render: &mut dyn FnMut() -> Result<PageImage, ExtractError>,
    ) -> Result<(Page, PageImage), ExtractError> {
        if self.pool.pp_ocr().is_some() {
            let image = render()?;
            let text = self.recognize(&image, page)?;
            return Ok((text, image));
        }
        let failed = |e| ExtractError::recognition(page, e);
        self.pool
            .with_free_engine(&[], |engine| {
                let image = render()?;
                let request = points_request(&image, page);
                let pixels =
                    PixelBuffer::grey(image.width, image.height, &image.luma).map_err(failed)?;
                let text = engine.recognize(pixels, &request).map_err(failed)?;
                Ok((text, image))
            })
            .map_err(failed)?
    }
}

/// Rendered pages are upright; the resolution is the renderer's; boxes in PDF points.
fn points_request(image: &PageImage, page: u32) -> PageRequest {
    let dpi = image.dpi.round().clamp(1.0, 10_000.0) as u32;
    let mut request = PageRequest::pdf_points(page, dpi);
    request.scale = 72.0 / image.dpi;
    request
}

/// How both routes read codes: zxing-cpp first, then rxing on what it left (rxing alone misses
/// large Aztec codes; zxing-cpp alone misses some Data Matrix and PDF417 that rxing reads).
pub fn code_options() -> CodeOptions {
    CodeOptions {
        engine: Engine::Both,
        ..CodeOptions::default()
    }
}

/// Codes on rendered PDF pages, boxes in PDF points.
#[derive(Debug)]
pub struct PdfCodeScanner {
    options: CodeOptions,
}

impl Default for PdfCodeScanner {
    fn default() -> Self {
        Self {
            options: code_options(),
        }
    }
}

impl CodeScanner for PdfCodeScanner {
    fn scan(&self, image: &PageImage, page: u32) -> Result<Vec<Code>, ExtractError> {
        let codes = read_codes(&image.luma, image.width, image.height, page, &self.options)
            .map_err(|e| ExtractError::code_scan(page, e))?;
        let to_points = 72.0 / image.dpi;
        Ok(codes
            .into_iter()
            .map(|code| scale_code(code, to_points))
            .collect())
    }
}

/// A PDF as the pages `/ocr` reads.
#[derive(Debug)]
pub struct PdfPages<'a>(pub &'a PdfDocument);

impl PageSource for PdfPages<'_> {
    type Error = PdfError;

    fn text_layer_page(&self, page: u32) -> Option<Page> {
        self.0.extract_page(page).ok()
    }

    fn render_at(&self, page: u32, dpi: f64) -> Result<Rendering, PdfError> {
        self.0.render_page_at(page, dpi).map(rendering)
    }

    fn render_for_ocr(&self, page: u32) -> Result<Rendering, PdfError> {
        self.0.render_page(page, &RenderOptions::OCR).map(rendering)
    }
}

fn rendering(image: PageImage) -> Rendering {
    Rendering {
        width: image.width,
        height: image.height,
        luma: image.luma,
        dpi: image.dpi,
    }
}
