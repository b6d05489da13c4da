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
use crate::preprocess::{
    GreyImage, PhotoSteps, SAUVOLA_K, correct_perspective, deskew, flatten_illumination,
    rotate_quarter, sauvola, sauvola_window, stretch_contrast, text_line_height, upscale,
    upscale_factor,
};

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
    /// Which photo steps run on a picture ([`PhotoSteps::default`]: the service's choice).
    pub photo: PhotoSteps,
}

/// Which recogniser reads a picture's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Recogniser {
    /// Tesseract, with the requested languages (the default).
    #[default]
    Tesseract,
    /// The PP-OCR models when the pool has them (Latin letters without most diacritics, digits
    /// and punctuation, Chinese characters), Tesseract otherwise, for a page they do not read
    /// as upright, and, when no language was asked for, for a page whose text reads as another
    /// of the pool's languages than English.
    PpOcr,
}

impl Recogniser {
    /// The recogniser for a request's languages: the models when it names English alone or no
    /// language, Tesseract when it names another (the models' character list lacks letters
    /// such as ö, ß, ç, ê and the signs € and £; docs/decisions.md, "A second recogniser").
    pub fn for_languages(languages: &[String]) -> Self {
        match languages {
            [] => Self::PpOcr,
            [only] if only == "eng" => Self::PpOcr,
            _ => Self::Tesseract,
        }
    }
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
    // A photographed page is cut out of its surround and straightened first; the answer's
    // coordinates are then those of the straightened page (its size in `layout.pages`).
    let cut = if options.photo.perspective {
        correct_perspective(picture)
    } else {
        None
    };
    let (straight, skew) = deskew(cut.as_ref().unwrap_or(picture));
    check()?;
    let mut request = PageRequest::pixels(page_number);
    request.languages = options.languages.clone();
    request.dpi = dpi.map(|d| d.round().clamp(1.0, 10_000.0) as u32);
    let pp_page = match (options.recogniser, pool.pp_ocr()) {
        (Recogniser::PpOcr, Some(models)) => pp_ocr_page(
            models,
            &straight,
            page_number,
            &unnamed_languages(pool, options),
            options.photo.stretch,
        )?,
        _ => None,
    };
    let mut page = match pp_page {
        Some(page) => page,
        None => tesseract_page(pool, &straight, &request, options.photo)?,
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
        recogniser: page.recogniser,
    };
    Ok(PageReading {
        page,
        layout,
        codes,
        info,
    })
}

/// The languages a page's text is checked against before the models' reading is kept: the
/// pool's when the request named none (a page that reads as German goes to Tesseract), none
/// when it named some (then [`Recogniser::for_languages`] already chose).
fn unnamed_languages(pool: &EnginePool, options: &ReadOptions) -> Vec<String> {
    if options.languages.is_empty() {
        pool.languages().to_vec()
    } else {
        Vec::new()
    }
}

/// A rendered PDF page (upright, as the renderer draws it) read by the PP-OCR models when the
/// pool has them, its boxes in PDF points (`points_per_pixel`): deskewed for the models, whose
/// boxes are axis-aligned, and the boxes turned back onto the rendering. `None`: Tesseract is
/// to read it (no models, or the same rules as [`Recogniser::PpOcr`] on a picture, `languages`
/// being those to check the text against).
pub fn read_rendered_with_models(
    pool: &EnginePool,
    picture: &GreyImage,
    page_number: u32,
    points_per_pixel: f64,
    languages: &[String],
) -> Result<Option<Page>, OcrError> {
    let Some(models) = pool.pp_ocr() else {
        return Ok(None);
    };
    let (straight, skew) = deskew(picture);
    let stretch = PhotoSteps::default().stretch;
    let Some(mut page) = pp_ocr_page(models, &straight, page_number, languages, stretch)? else {
        return Ok(None);
    };
    if skew.corrected {
        unrotate_boxes(&mut page, skew.angle_degrees);
    }
    scale_page(&mut page, points_per_pixel);
    page.coordinate_frame = CoordinateFrame::PdfPointsTopLeft;
    Ok(Some(page))
}

/// Moves every box of a page read on a picture deskewed by `angle_degrees` (turned by
/// −angle about its centre, [`deskew`]) back onto the picture as it was: each box keeps its
/// size and its centre goes where the deskewing took it from.
fn unrotate_boxes(page: &mut Page, angle_degrees: f64) {
    let (sin, cos) = (-angle_degrees).to_radians().sin_cos();
    let (cx, cy) = (page.width / 2.0, page.height / 2.0);
    let back = |b: &mut doc_model::PageBox| {
        let (dx, dy) = (b.x + b.w / 2.0 - cx, b.y + b.h / 2.0 - cy);
        let x = dx * cos + dy * sin + cx;
        let y = -dx * sin + dy * cos + cy;
        b.x = round2(x - b.w / 2.0);
        b.y = round2(y - b.h / 2.0);
    };
    for line in &mut page.lines {
        back(&mut line.bbox);
        for word in &mut line.words {
            back(&mut word.bbox);
        }
    }
}

/// The page as the PP-OCR models read it (pixel frame), or `None` when Tesseract is to read
/// it: too little read with confidence to call it upright, or text that reads as one of
/// `languages` other than English.
fn pp_ocr_page(
    models: &pp_ocr::PpOcr,
    picture: &GreyImage,
    page_number: u32,
    languages: &[String],
    stretch: bool,
) -> Result<Option<Page>, OcrError> {
    // Uneven lighting evened out first: on the odd half of SROIE's receipts (chosen on the
    // even half) CER 0.081 → 0.080, word recall 0.730 → 0.732 (docs/benchmarks.md).
    let mut flat = flatten_illumination(picture);
    if stretch {
        flat = stretch_contrast(&flat);
    }
    let grey = pp_ocr::GreyPixels::new(flat.width(), flat.height(), flat.pixels())?;
    let read = models.read(grey)?;
    let scores: Vec<f32> = read.iter().map(|l| l.text.score).collect();
    let mean = scores.iter().sum::<f32>() / scores.len().max(1) as f32;
    if read.len() < 3 || mean < PP_OCR_UPRIGHT_SCORE {
        return Ok(None);
    }
    if languages.len() > 1 {
        let text: Vec<&str> = read.iter().map(|l| l.text.text.as_str()).collect();
        let language = crate::layout::detect_language(&text.join("\n"), languages);
        if language.is_some_and(|l| l != "eng") {
            return Ok(None);
        }
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
        recogniser: Some(doc_model::Recogniser::PpOcr),
    }))
}

/// Tesseract's reading of a deskewed picture, after the photo steps of its path (upscaling of
/// small text, contrast stretching, Sauvola's threshold), its boxes in the picture's frame.
fn tesseract_page(
    pool: &EnginePool,
    picture: &GreyImage,
    request: &PageRequest,
    steps: PhotoSteps,
) -> Result<Page, OcrError> {
    if !(steps.upscale || steps.stretch || steps.binarise) {
        return pool.recognize(PixelBuffer::from(picture), request);
    }
    let line_height = text_line_height(picture);
    let factor = match line_height {
        Some(height) if steps.upscale => upscale_factor(picture, height),
        _ => 1.0,
    };
    let mut prepared = upscale(picture, factor);
    if steps.stretch {
        prepared = stretch_contrast(&prepared);
    }
    if steps.binarise {
        let window = sauvola_window(line_height.map(|h| h * factor));
        prepared = sauvola(&prepared, window, SAUVOLA_K);
    }
    let mut page = pool.recognize(PixelBuffer::from(&prepared), request)?;
    if prepared.width() != picture.width() {
        // Back to the picture's frame: the layout and the answer use it.
        let back = f64::from(picture.width()) / f64::from(prepared.width());
        scale_page(&mut page, back);
    }
    Ok(page)
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
        recogniser: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_models_read_english_or_no_named_language() {
        let named =
            |list: &[&str]| -> Vec<String> { list.iter().map(|l| (*l).to_owned()).collect() };
        assert_eq!(Recogniser::for_languages(&[]), Recogniser::PpOcr);
        assert_eq!(
            Recogniser::for_languages(&named(&["eng"])),
            Recogniser::PpOcr
        );
        assert_eq!(
            Recogniser::for_languages(&named(&["deu"])),
            Recogniser::Tesseract
        );
        assert_eq!(
            Recogniser::for_languages(&named(&["deu", "eng"])),
            Recogniser::Tesseract
        );
    }

    #[test]
    fn boxes_read_on_a_deskewed_picture_go_back_where_the_deskewing_took_them_from() {
        // A picture skewed by 2°: deskew turns it by −2° about its centre. A point found on the
        // deskewed picture comes from rotate_by's inverse mapping of it.
        let (w, h) = (400u32, 300u32);
        let word = Word {
            text: "x".into(),
            bbox: PageBox {
                page: 1,
                x: 290.0,
                y: 40.0,
                w: 20.0,
                h: 10.0,
            },
            confidence: Confidence::new(0.9),
        };
        let mut page = Page {
            page: 1,
            width: f64::from(w),
            height: f64::from(h),
            coordinate_frame: CoordinateFrame::PixelsTopLeft,
            method: PageMethod::Ocr,
            rotation: 0,
            columns: 1,
            lines: Line::from_words(vec![word], Some(10.0))
                .into_iter()
                .collect(),
            rulings: Vec::new(),
            recogniser: None,
        };
        unrotate_boxes(&mut page, 2.0);
        let moved = page.lines[0].words[0].bbox;
        // The centre (300, 45) is 100 right of and 105 above the picture's centre (200, 150).
        let (sin, cos) = (-2.0f64).to_radians().sin_cos();
        let (dx, dy) = (100.0, -105.0);
        let expected = (dx * cos + dy * sin + 200.0, -dx * sin + dy * cos + 150.0);
        assert!((moved.x + 10.0 - expected.0).abs() < 0.01, "{moved:?}");
        assert!((moved.y + 5.0 - expected.1).abs() < 0.01, "{moved:?}");
        assert_eq!((moved.w, moved.h), (20.0, 10.0));
        assert_eq!(page.lines[0].bbox, moved);
    }
}
