//! One picture or page from pixels to an answer: deskew, recognise (turning the page upright
//! when it lies on its side or upside down), lay out, read the codes; and the pages of a call
//! put together as the `/ocr` answer, keeping what the caller asked for.

use std::sync::atomic::{AtomicBool, Ordering};

use doc_model::{
    BlockLanguage, Code, Confidence, CoordinateFrame, Line, OcrExtraction, OcrLayout,
    OcrPageLayout, Page, PageBox, PageMethod, Word, round2,
};

use crate::codes::{CodeOptions, read_codes};
use crate::engine::{EnginePool, PageRequest, PixelBuffer};
use crate::error::OcrError;
use crate::layout::{PageLayout, analyze};
use crate::preprocess::{GreyImage, deskew, rotate_quarter};

/// Which parts of the answer the caller wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    /// Full text.
    pub text: bool,
    /// Tables.
    pub tables: bool,
    /// Barcodes and QR codes.
    pub codes: bool,
    /// Blocks and layout.
    pub layout: bool,
}

impl Want {
    /// Everything (the default).
    pub const ALL: Self = Self {
        text: true,
        tables: true,
        codes: true,
        layout: true,
    };
}

/// How pages are read.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Languages to read with (installed ones; empty: the pool's).
    pub languages: Vec<String>,
    /// Look for codes.
    pub codes: bool,
    /// How hard to look for codes.
    pub code_options: CodeOptions,
    /// Which recogniser reads the text.
    pub recogniser: Recogniser,
}

/// Which recogniser reads a picture's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Recogniser {
    /// Tesseract, with the requested languages (the default).
    #[default]
    Tesseract,
    /// The PP-OCR models when the pool has them (Latin and Chinese characters; no accented
    /// letters), Tesseract otherwise and for a page they do not read as upright.
    PpOcr,
}

/// Mean line score under which a PP-OCR reading is not trusted to be upright and Tesseract
/// (which finds quarter turns) reads the page instead: upside-down text reads at low scores.
const PP_OCR_UPRIGHT_SCORE: f32 = 0.8;

/// One page read.
#[derive(Debug, Clone)]
pub struct PageReading {
    /// The page with its lines in reading order (pixel frame).
    pub page: Page,
    /// Its blocks, text and tables.
    pub layout: PageLayout,
    /// Its codes.
    pub codes: Vec<Code>,
    /// How it was read.
    pub info: OcrPageLayout,
}

/// Reads a picture (already upright as its EXIF says): corrects a small skew, recognises with
/// orientation detection, lays the page out on the upright picture and reads its codes.
pub fn read_picture(
    pool: &EnginePool,
    picture: &GreyImage,
    page_number: u32,
    dpi: Option<f64>,
    options: &ReadOptions,
) -> Result<PageReading, OcrError> {
    read_picture_cancellable(
        pool,
        picture,
        page_number,
        dpi,
        options,
        &AtomicBool::new(false),
    )
}

/// [`read_picture`] that honours a stop flag: `cancel` is checked before each step (deskew,
/// recognition, layout, codes) and a set flag ends the reading with [`OcrError::Cancelled`].
/// A step under way finishes first (Tesseract cannot be interrupted inside a page).
pub fn read_picture_cancellable(
    pool: &EnginePool,
    picture: &GreyImage,
    page_number: u32,
    dpi: Option<f64>,
    options: &ReadOptions,
    cancel: &AtomicBool,
) -> Result<PageReading, OcrError> {
    let check = || {
        if cancel.load(Ordering::Relaxed) {
            Err(OcrError::Cancelled)
        } else {
            Ok(())
        }
    };
    check()?;
    let (straight, skew) = deskew(picture);
    check()?;
    let mut request = PageRequest::pixels(page_number);
    request.languages = options.languages.clone();
    request.dpi = dpi.map(|d| d.round().clamp(1.0, 10_000.0) as u32);
    let pp_page = match (options.recogniser, pool.pp_ocr()) {
        (Recogniser::PpOcr, Some(models)) => pp_ocr_page(models, &straight, page_number)?,
        _ => None,
    };
    let mut page = match pp_page {
        Some(page) => page,
        None => pool.recognize(PixelBuffer::from(&straight), &request)?,
    };
    check()?;
    let upright = if page.rotation % 360 == 0 {
        straight
    } else {
        rotate_quarter(&straight, page.rotation)
    };
    let layout = analyze(&mut page, Some(&upright), &languages_of(pool, options));
    check()?;
    let codes = codes_of(&upright, page_number, options)?;
    let info = OcrPageLayout {
        page: page_number,
        method: PageMethod::Ocr,
        width: f64::from(upright.width()),
        height: f64::from(upright.height()),
        dpi,
        rotation: page.rotation,
        skew_degrees: skew.angle_degrees,
        columns: layout.columns,
    };
    Ok(PageReading {
        page,
        layout,
        codes,
        info,
    })
}

/// The page as the PP-OCR models read it (pixel frame), or `None` when too little was read
/// with confidence to call it upright.
fn pp_ocr_page(
    models: &pp_ocr::PpOcr,
    picture: &GreyImage,
    page_number: u32,
) -> Result<Option<Page>, OcrError> {
    let grey = pp_ocr::GreyPixels::new(picture.width(), picture.height(), picture.pixels())?;
    let read = models.read(grey)?;
    let scores: Vec<f32> = read.iter().map(|l| l.text.score).collect();
    let mean = scores.iter().sum::<f32>() / scores.len().max(1) as f32;
    if read.len() < 3 || mean < PP_OCR_UPRIGHT_SCORE {
        return Ok(None);
    }
    let mut lines: Vec<Line> = read
        .into_iter()
        .filter_map(|line| {
            let b = line.bbox;
            let words = line
                .text
                .words
                .into_iter()
                .map(|word| Word {
                    text: word.text,
                    bbox: PageBox {
                        page: page_number,
                        x: round2(word.x0.max(b.x)),
                        y: round2(b.y),
                        w: round2((word.x1.min(b.x + b.w) - word.x0.max(b.x)).max(1.0)),
                        h: round2(b.h),
                    },
                    confidence: Confidence::new(f64::from(word.score)),
                })
                .collect();
            Line::from_words(words, Some(b.h))
        })
        .collect();
    for (order, line) in lines.iter_mut().enumerate() {
        line.order = order as u32;
    }
    Ok(Some(Page {
        page: page_number,
        width: f64::from(picture.width()),
        height: f64::from(picture.height()),
        coordinate_frame: CoordinateFrame::PixelsTopLeft,
        method: PageMethod::Ocr,
        rotation: 0,
        columns: 1,
        lines,
        rulings: Vec::new(),
    }))
}

/// Lays out a page whose text came from a PDF text layer, in the pixel frame of `image` (the
/// page rendered at `dpi`): boxes are scaled from points to those pixels, and the codes are read
/// from the rendering.
pub fn read_text_layer_page(
    mut page: Page,
    image: &GreyImage,
    dpi: f64,
    options: &ReadOptions,
) -> Result<PageReading, OcrError> {
    let scale = dpi / 72.0;
    scale_page(&mut page, scale);
    page.coordinate_frame = CoordinateFrame::PixelsTopLeft;
    // The PDF's own rulings are exact; the pixels would only repeat them less precisely.
    let layout = analyze(&mut page, None, &options.languages);
    let codes = codes_of(image, page.page, options)?;
    let info = OcrPageLayout {
        page: page.page,
        method: PageMethod::TextLayer,
        width: f64::from(image.width()),
        height: f64::from(image.height()),
        dpi: Some(dpi),
        rotation: page.rotation,
        skew_degrees: 0.0,
        columns: layout.columns,
    };
    Ok(PageReading {
        page,
        layout,
        codes,
        info,
    })
}

/// The codes of a picture, when they are asked for.
fn codes_of(image: &GreyImage, page: u32, options: &ReadOptions) -> Result<Vec<Code>, OcrError> {
    if !options.codes {
        return Ok(Vec::new());
    }
    read_codes(
        image.pixels(),
        image.width(),
        image.height(),
        page,
        &options.code_options,
    )
}

fn languages_of(pool: &EnginePool, options: &ReadOptions) -> Vec<String> {
    if options.languages.is_empty() {
        pool.languages().to_vec()
    } else {
        options.languages.clone()
    }
}

fn scale_page(page: &mut Page, scale: f64) {
    let scale_box = |b: &mut doc_model::PageBox| {
        *b = doc_model::PageBox::from_edges(
            b.page,
            b.x * scale,
            b.y * scale,
            b.right() * scale,
            b.bottom() * scale,
        );
    };
    page.width = doc_model::round2(page.width * scale);
    page.height = doc_model::round2(page.height * scale);
    for line in &mut page.lines {
        scale_box(&mut line.bbox);
        line.font_size = line.font_size.map(|f| doc_model::round2(f * scale));
        for word in &mut line.words {
            scale_box(&mut word.bbox);
        }
    }
    for ruling in &mut page.rulings {
        *ruling = doc_model::Ruling::new(
            ruling.x0 * scale,
            ruling.y0 * scale,
            ruling.x1 * scale,
            ruling.y1 * scale,
        );
    }
}

/// The readings of a call as the `/ocr` answer. A call in which no page has a single word or
/// code is an empty recognition: an error, never a paid empty answer.
pub fn assemble(readings: Vec<PageReading>, want: Want) -> Result<OcrExtraction, OcrError> {
    let nothing = readings
        .iter()
        .all(|r| r.page.lines.is_empty() && r.codes.is_empty());
    if nothing {
        return Err(OcrError::EmptyRecognition);
    }
    let pages_processed = u32::try_from(readings.len()).unwrap_or(u32::MAX);
    let mut texts = Vec::new();
    let mut blocks = Vec::new();
    let mut tables = Vec::new();
    let mut codes = Vec::new();
    let mut pages = Vec::new();
    for reading in readings {
        texts.push(reading.layout.text);
        blocks.extend(reading.layout.blocks);
        tables.extend(reading.layout.tables);
        codes.extend(reading.codes);
        pages.push(reading.info);
    }
    let languages = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| BlockLanguage {
            page: block.bbox.page,
            block: u32::try_from(index).unwrap_or(u32::MAX),
            language: block.language.clone(),
        })
        .collect();
    let layout = OcrLayout {
        coordinate_frame: CoordinateFrame::PixelsTopLeft,
        columns: pages.iter().map(|p| p.columns).max().unwrap_or(0),
        rotation: pages.first().map_or(0, |p| p.rotation),
        pages,
        languages,
    };
    Ok(OcrExtraction {
        pages_processed,
        // Pages are separated by a form feed, as in plain-text renderings of paged documents.
        text: want.text.then(|| texts.join("\n\u{c}\n")),
        blocks: want.layout.then_some(blocks),
        tables: want.tables.then_some(tables),
        codes: want.codes.then_some(codes),
        layout: want.layout.then_some(layout),
    })
}
