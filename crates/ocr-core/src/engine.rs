//! A pool of Tesseract engines and recognition of one page or of many pages in parallel.
//!
//! # Threads
//! Tesseract parallelises parts of recognition with OpenMP; on few cores that costs more than
//! it gives (measured: 0.70 s with 1 thread, 0.85 s with 2 on a small page), so the process
//! should run with `OMP_THREAD_LIMIT=1` and parallelise per page instead, which this pool does.
//! The variable must be in the environment before the first engine is created. A library does
//! not touch the environment (and setting it is `unsafe` in edition 2024, which the workspace
//! forbids), so the server binary sets it: at start-up before spawning threads, or in the
//! container's environment. Tesseract offers no API switch for it.
//!
//! # Cancellation
//! Tesseract cannot be interrupted inside a page. [`EnginePool::recognize_batch`] checks a flag
//! between pages; an engine always goes back to the pool when its page is done, even when the
//! caller has given up waiting, so the pool survives a cancelled or timed-out call.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use doc_model::{Confidence, CoordinateFrame, Line, Page, PageBox, PageMethod, Word};
use leptess::tesseract::TessApi;

use crate::OcrError;

/// Languages used when the caller names none.
pub const DEFAULT_LANGUAGES: &[&str] = &["deu", "eng"];

/// Where Debian/Ubuntu and common builds keep the models, newest first.
const KNOWN_TESSDATA_DIRS: &[&str] = &[
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
];

/// How the pool is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    /// Number of engines, i.e. pages recognised at once. Default: the number of cores.
    pub engines: usize,
    /// Languages the engines are started with. Default: `deu` + `eng`.
    pub languages: Vec<String>,
    /// The tessdata directory; `None` lets Tesseract use its built-in default (Debian's
    /// package directory), and the pool looks for installed models in the usual places.
    pub tessdata_dir: Option<PathBuf>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            engines: std::thread::available_parallelism().map_or(1, usize::from),
            languages: DEFAULT_LANGUAGES.iter().map(|s| (*s).to_owned()).collect(),
            tessdata_dir: None,
        }
    }
}

/// Pixels to recognise: 8-bit grey (1 byte per pixel) or RGB (3 bytes per pixel), row by row.
#[derive(Debug, Clone, Copy)]
pub struct PixelBuffer<'a> {
    width: u32,
    height: u32,
    bytes_per_pixel: u8,
    bytes_per_line: usize,
    pixels: &'a [u8],
}

impl<'a> PixelBuffer<'a> {
    /// A grey buffer (`width * height` bytes, no row padding).
    pub fn grey(width: u32, height: u32, pixels: &'a [u8]) -> Result<Self, OcrError> {
        Self::new(width, height, 1, pixels)
    }

    /// An RGB buffer (`width * height * 3` bytes, no row padding).
    pub fn rgb(width: u32, height: u32, pixels: &'a [u8]) -> Result<Self, OcrError> {
        Self::new(width, height, 3, pixels)
    }

    fn new(
        width: u32,
        height: u32,
        bytes_per_pixel: u8,
        pixels: &'a [u8],
    ) -> Result<Self, OcrError> {
        let bytes_per_line = width as usize * usize::from(bytes_per_pixel);
        let expected = bytes_per_line * height as usize;
        // Tesseract takes dimensions as C ints.
        let fits = i32::try_from(width).is_ok()
            && i32::try_from(height).is_ok()
            && i32::try_from(bytes_per_line).is_ok()
            && i32::try_from(expected).is_ok();
        if pixels.len() != expected || !fits || width == 0 || height == 0 {
            return Err(OcrError::BufferSize {
                width,
                height,
                expected,
                actual: pixels.len(),
            });
        }
        Ok(Self {
            width,
            height,
            bytes_per_pixel,
            bytes_per_line,
            pixels,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }
}

impl<'a> From<&'a crate::preprocess::GreyImage> for PixelBuffer<'a> {
    fn from(image: &'a crate::preprocess::GreyImage) -> Self {
        Self {
            width: image.width(),
            height: image.height(),
            bytes_per_pixel: 1,
            bytes_per_line: image.width() as usize,
            pixels: image.pixels(),
        }
    }
}

/// What to recognise a page as and where its boxes go.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRequest {
    /// Page number written into the result, from 1.
    pub page: u32,
    /// Languages, each installed; empty means the pool's languages.
    pub languages: Vec<String>,
    /// The frame of the resulting boxes.
    pub frame: CoordinateFrame,
    /// Factor from pixels to the frame's units: 1 for pixels, `72 / dpi` for PDF points.
    pub scale: f64,
    /// The picture's resolution, when known (rendered PDF pages); helps Tesseract size glyphs.
    pub dpi: Option<u32>,
    /// Find a quarter-turn rotation with Tesseract's orientation detection, run only when a
    /// plain reading does not look upright (a second pass over the page); off for pages
    /// already upright, such as rendered PDF pages.
    pub detect_rotation: bool,
}

impl PageRequest {
    /// A picture read in pixels, rotation detected, the pool's languages.
    pub fn pixels(page: u32) -> Self {
        Self {
            page,
            languages: Vec::new(),
            frame: CoordinateFrame::PixelsTopLeft,
            scale: 1.0,
            dpi: None,
            detect_rotation: true,
        }
    }

    /// A PDF page rendered at `dpi`, boxes in PDF points, no rotation search.
    pub fn pdf_points(page: u32, dpi: u32) -> Self {
        Self {
            page,
            languages: Vec::new(),
            frame: CoordinateFrame::PdfPointsTopLeft,
            scale: 72.0 / f64::from(dpi.max(1)),
            dpi: Some(dpi),
            detect_rotation: false,
        }
    }
}

/// The languages whose models are installed in `dir` (names of its `*.traineddata` files,
/// without `osd`, which detects orientation and reads no text), sorted.
pub fn installed_languages_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut languages: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".traineddata").map(str::to_owned)
        })
        .filter(|l| l != "osd")
        .collect();
    languages.sort();
    languages
}

/// The languages a pool with `tessdata_dir` (or the first known directory) would find
/// installed, without starting Tesseract: a server that runs recognition in worker processes
/// checks requests against it.
pub fn installed_languages(tessdata_dir: Option<&Path>) -> Vec<String> {
    tessdata_dir
        .map(Path::to_path_buf)
        .or_else(default_tessdata_dir)
        .map(|dir| installed_languages_in(&dir))
        .unwrap_or_default()
}

/// Checks that every language is well formed and among `installed` (an empty list means the
/// models could not be listed, and Tesseract decides at start-up); returns them joined by `+`.
pub fn check_languages_against(
    installed: &[String],
    languages: &[String],
) -> Result<String, OcrError> {
    for language in languages {
        validate_language(language)?;
        if !installed.is_empty() && !installed.contains(language) {
            return Err(OcrError::LanguageNotInstalled {
                requested: language.clone(),
                installed: installed.to_vec(),
            });
        }
    }
    Ok(languages.join("+"))
}

/// The first known tessdata directory that holds models, when no directory is configured.
fn default_tessdata_dir() -> Option<PathBuf> {
    KNOWN_TESSDATA_DIRS
        .iter()
        .map(PathBuf::from)
        .find(|d| !installed_languages_in(d).is_empty())
}

/// Tesseract language codes are letters, digits and underscores (`deu`, `chi_sim`,
/// `script/Latin`s are not offered).
fn validate_language(language: &str) -> Result<(), OcrError> {
    let ok = !language.is_empty()
        && language.len() <= 32
        && language
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(OcrError::InvalidLanguage(language.to_owned()))
    }
}

/// One Tesseract instance. Not shared between threads; the pool hands it to one at a time.
pub struct OcrEngine {
    api: TessApi,
    languages: String,
}

impl std::fmt::Debug for OcrEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OcrEngine")
            .field("languages", &self.languages)
            .finish()
    }
}

impl OcrEngine {
    /// Starts Tesseract with `languages` joined by `+` (e.g. `deu+eng`).
    pub fn new(tessdata_dir: Option<&Path>, languages: &str) -> Result<Self, OcrError> {
        for language in languages.split('+') {
            validate_language(language)?;
        }
        let dir = tessdata_dir.and_then(Path::to_str);
        if tessdata_dir.is_some() && dir.is_none() {
            return Err(OcrError::EngineInit {
                languages: languages.to_owned(),
            });
        }
        let api = TessApi::new(dir, languages).map_err(|_| OcrError::EngineInit {
            languages: languages.to_owned(),
        })?;
        let mut engine = Self {
            api,
            languages: languages.to_owned(),
        };
        // Tesseract's own debug output would go to stderr of the server.
        engine.set("debug_file", "/dev/null");
        Ok(engine)
    }

    /// The `+`-joined languages it was started with.
    pub fn languages(&self) -> &str {
        &self.languages
    }

    fn set(&mut self, name: &str, value: &str) -> bool {
        match (CString::new(name), CString::new(value)) {
            (Ok(n), Ok(v)) => self.api.raw.set_variable(&n, &v).is_ok(),
            _ => false,
        }
    }

    /// Recognises one page. Words come from Tesseract's TSV output (boxes and confidences per
    /// word, grouped into lines by its block/paragraph/line ids). With `detect_rotation` the
    /// page is first read as it is (`--psm 3`); only when that reading does not look upright
    /// (see [`reads_upright`]) is it read again with orientation detection (`--psm 1`), the
    /// orientation taken from the hOCR `textangle` of the lines, the boxes mapped onto the
    /// upright page and `rotation` saying by how much (clockwise) it was turned. Orientation
    /// detection costs about a third more on an upright page; most pages are upright.
    pub fn recognize(
        &mut self,
        image: PixelBuffer<'_>,
        request: &PageRequest,
    ) -> Result<Page, OcrError> {
        let geometry = PageGeometry {
            width: image.width,
            height: image.height,
            rotation: 0,
            scale: request.scale,
            page: request.page,
        };
        self.run(&image, request, "3")?;
        let as_is = page_from_tsv(&self.tsv()?, &geometry, request.frame);
        if !request.detect_rotation || reads_upright(&as_is) {
            return Ok(as_is);
        }
        self.run(&image, request, "1")?;
        let hocr = self
            .api
            .get_hocr_text(0)
            .map_err(|e| OcrError::Recognition(format!("hOCR not UTF-8: {e}")))?;
        let geometry = PageGeometry {
            rotation: rotation_from_hocr(&hocr),
            ..geometry
        };
        Ok(page_from_tsv(&self.tsv()?, &geometry, request.frame))
    }

    /// One Tesseract pass over the image in page segmentation mode `psm`.
    fn run(
        &mut self,
        image: &PixelBuffer<'_>,
        request: &PageRequest,
        psm: &str,
    ) -> Result<(), OcrError> {
        if !self.set("tessedit_pageseg_mode", psm) {
            return Err(OcrError::Recognition(
                "page segmentation mode refused".into(),
            ));
        }
        // Checked in `PixelBuffer::new`: every dimension fits a C int.
        let as_int = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
        self.api
            .raw
            .set_image(
                image.pixels,
                as_int(image.width as usize),
                as_int(image.height as usize),
                i32::from(image.bytes_per_pixel),
                as_int(image.bytes_per_line),
            )
            .map_err(|e| OcrError::Recognition(format!("image refused: {e:?}")))?;
        // Without a resolution Tesseract guesses one from glyph sizes and warns; 300 is what
        // its models are tuned for when nothing is known.
        self.api
            .set_source_resolution(request.dpi.map_or(300, |d| d.clamp(70, 2400) as i32));
        if self.api.recognize() != 0 {
            return Err(OcrError::Recognition(
                "Tesseract could not read the page".into(),
            ));
        }
        Ok(())
    }

    fn tsv(&mut self) -> Result<String, OcrError> {
        self.api
            .get_tsv_text(0)
            .map_err(|e| OcrError::Recognition(format!("TSV not UTF-8: {e}")))
    }
}

/// Smallest share of confident words (and of words wider than tall) for a plain reading to
/// count as upright.
const UPRIGHT_SHARE: f64 = 0.8;

/// Whether a reading without orientation detection shows an upright page: enough words, most
/// read with confidence (upside-down text reads at under 0.5 on average, measured on the
/// turned fixtures and OCRmyPDF's cardinal.pdf), and most words of three or more letters wider
/// than tall (Tesseract reads a page turned by 90° confidently as vertical text, but then its
/// word boxes stand upright).
fn reads_upright(page: &Page) -> bool {
    let words: Vec<&Word> = page.lines.iter().flat_map(|l| &l.words).collect();
    if words.len() < 10 {
        return false;
    }
    let share = |hits: usize, of: usize| hits as f64 / of.max(1) as f64;
    let confident = words.iter().filter(|w| w.confidence.value() >= 0.8).count();
    let long: Vec<&&Word> = words
        .iter()
        .filter(|w| w.text.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
        .collect();
    let lying = long.iter().filter(|w| w.bbox.w > w.bbox.h).count();
    share(confident, words.len()) >= UPRIGHT_SHARE
        && !long.is_empty()
        && share(lying, long.len()) >= UPRIGHT_SHARE
}

/// The clockwise rotation that makes the page upright, from the `textangle` of hOCR lines (set
/// by Tesseract when orientation detection found the text turned): the angle most lines agree
/// on, 0 when none carries one.
fn rotation_from_hocr(hocr: &str) -> u32 {
    let mut votes = [0usize; 4];
    let line_count = hocr.matches("class='ocr_line'").count()
        + hocr.matches("class='ocr_header'").count()
        + hocr.matches("class='ocr_caption'").count()
        + hocr.matches("class='ocr_textfloat'").count();
    for part in hocr.split("textangle ").skip(1) {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(angle) = digits.parse::<u32>() {
            votes[((angle % 360) / 90) as usize] += 1;
        }
    }
    let turned: usize = votes[1..].iter().sum();
    votes[0] = line_count.saturating_sub(turned);
    let best = (0..4)
        .max_by_key(|&i| (votes[i], usize::from(i == 0)))
        .unwrap_or(0);
    best as u32 * 90
}

/// Where recognised pixel boxes go.
#[derive(Debug, Clone, Copy)]
struct PageGeometry {
    /// The recognised picture as given (before rotation).
    width: u32,
    height: u32,
    /// Clockwise turn that makes it upright.
    rotation: u32,
    scale: f64,
    page: u32,
}

impl PageGeometry {
    /// Size of the upright page, in pixels.
    fn upright_size(&self) -> (f64, f64) {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        if self.rotation % 180 == 90 {
            (h, w)
        } else {
            (w, h)
        }
    }

    /// A box of the picture as given, on the upright page, in the frame's units.
    fn map_box(&self, left: f64, top: f64, width: f64, height: f64) -> PageBox {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let (x, y, bw, bh) = match self.rotation {
            90 => (h - top - height, left, height, width),
            180 => (w - left - width, h - top - height, width, height),
            270 => (top, w - left - width, height, width),
            _ => (left, top, width, height),
        };
        let s = self.scale;
        PageBox::from_edges(self.page, x * s, y * s, (x + bw) * s, (y + bh) * s)
    }
}

/// One row of Tesseract's TSV output at word level.
struct TsvWord<'a> {
    line_key: (u32, u32, u32),
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    confidence: f64,
    text: &'a str,
}

fn parse_tsv_word(row: &str) -> Option<TsvWord<'_>> {
    let mut fields = row.splitn(12, '\t');
    let level: u32 = fields.next()?.parse().ok()?;
    if level != 5 {
        return None;
    }
    let _page = fields.next()?;
    let block: u32 = fields.next()?.parse().ok()?;
    let paragraph: u32 = fields.next()?.parse().ok()?;
    let line: u32 = fields.next()?.parse().ok()?;
    let _word = fields.next()?;
    let mut number = || fields.next()?.trim().parse::<f64>().ok();
    let (left, top, width, height, confidence) =
        (number()?, number()?, number()?, number()?, number()?);
    let text = fields.next()?.trim();
    if text.is_empty() || confidence < 0.0 {
        return None;
    }
    Some(TsvWord {
        line_key: (block, paragraph, line),
        left,
        top,
        width,
        height,
        confidence,
        text,
    })
}

/// Builds the page from TSV: words grouped into lines by Tesseract's ids, in its order.
fn page_from_tsv(tsv: &str, geometry: &PageGeometry, frame: CoordinateFrame) -> Page {
    let mut lines: Vec<Line> = Vec::new();
    let mut current: Option<(u32, u32, u32)> = None;
    let mut words: Vec<Word> = Vec::new();
    let mut glyph_heights: Vec<f64> = Vec::new();
    let flush = |words: &mut Vec<Word>, heights: &mut Vec<f64>, lines: &mut Vec<Line>| {
        words.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
        let font_size = median(heights);
        for piece in split_at_gutters(std::mem::take(words), font_size) {
            let size = median(&piece.iter().map(|w| w.bbox.h).collect::<Vec<_>>());
            if let Some(line) = Line::from_words(piece, size) {
                lines.push(line);
            }
        }
        heights.clear();
    };
    for row in tsv.lines() {
        let Some(word) = parse_tsv_word(row) else {
            continue;
        };
        if current != Some(word.line_key) {
            flush(&mut words, &mut glyph_heights, &mut lines);
            current = Some(word.line_key);
        }
        let bbox = geometry.map_box(word.left, word.top, word.width, word.height);
        // Glyph height on the upright page: the box's extent across the line.
        glyph_heights.push(bbox.h);
        words.push(Word {
            text: word.text.to_owned(),
            bbox,
            confidence: Confidence::from_percent(word.confidence),
        });
    }
    flush(&mut words, &mut glyph_heights, &mut lines);
    for (order, line) in lines.iter_mut().enumerate() {
        line.order = order as u32;
    }
    let (width, height) = geometry.upright_size();
    Page {
        page: geometry.page,
        width: doc_model::round2(width * geometry.scale),
        height: doc_model::round2(height * geometry.scale),
        coordinate_frame: frame,
        method: PageMethod::Ocr,
        rotation: geometry.rotation,
        columns: 1,
        lines,
        rulings: Vec::new(),
    }
}

/// A horizontal gap wider than this many glyph heights inside one Tesseract line separates two
/// columns or two table cells, not two words (a justified space stays under one glyph height).
const GUTTER_GLYPHS: f64 = 2.0;

/// Splits a line's words (left to right) where Tesseract ran a line across a column gutter or a
/// table's cells: its page segmentation misses narrow gutters, and a line spanning two columns
/// would defeat column detection.
fn split_at_gutters(words: Vec<Word>, glyph_height: Option<f64>) -> Vec<Vec<Word>> {
    let Some(height) = glyph_height.filter(|h| *h > 0.0) else {
        return vec![words];
    };
    let mut pieces: Vec<Vec<Word>> = Vec::new();
    for word in words {
        match pieces.last_mut() {
            Some(piece)
                if piece.last().is_some_and(|prev| {
                    word.bbox.x - prev.bbox.right() <= GUTTER_GLYPHS * height
                }) =>
            {
                piece.push(word);
            }
            _ => pieces.push(vec![word]),
        }
    }
    pieces
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    Some(sorted[sorted.len() / 2])
}

/// Engines, handed to one thread at a time.
struct PoolState {
    idle: Vec<OcrEngine>,
    /// Engines handed out and not yet returned.
    busy: usize,
}

/// A pool of Tesseract engines, one per core by default. Engines are created with the pool's
/// languages up front (so readiness means the models load); a request for other installed
/// languages re-starts an idle engine with them.
pub struct EnginePool {
    state: Mutex<PoolState>,
    returned: Condvar,
    size: usize,
    languages: Vec<String>,
    installed: Vec<String>,
    tessdata_dir: Option<PathBuf>,
}

impl std::fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnginePool")
            .field("size", &self.size)
            .field("languages", &self.languages)
            .field("installed", &self.installed)
            .finish()
    }
}

/// An engine on loan; it goes back to the pool when dropped, whatever happened meanwhile.
struct Loan<'p> {
    pool: &'p EnginePool,
    engine: Option<OcrEngine>,
}

impl Drop for Loan<'_> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        state.busy = state.busy.saturating_sub(1);
        if let Some(engine) = self.engine.take() {
            state.idle.push(engine);
        }
        drop(state);
        self.pool.returned.notify_one();
    }
}

impl EnginePool {
    /// Starts `config.engines` engines (at least one) with `config.languages`, after checking
    /// that every language is installed.
    pub fn new(config: EngineConfig) -> Result<Self, OcrError> {
        let tessdata_dir = config.tessdata_dir.clone();
        let installed = installed_languages_in(
            &tessdata_dir
                .clone()
                .or_else(default_tessdata_dir)
                .unwrap_or_default(),
        );
        let mut pool = Self {
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                busy: 0,
            }),
            returned: Condvar::new(),
            size: config.engines.max(1),
            languages: Vec::new(),
            installed,
            tessdata_dir,
        };
        let languages = if config.languages.is_empty() {
            DEFAULT_LANGUAGES.iter().map(|s| (*s).to_owned()).collect()
        } else {
            config.languages
        };
        let joined = pool.check_languages(&languages)?;
        pool.languages = languages;
        let mut idle = Vec::with_capacity(pool.size);
        for _ in 0..pool.size {
            idle.push(OcrEngine::new(pool.tessdata_dir.as_deref(), &joined)?);
        }
        pool.lock().idle = idle;
        tracing::info!(engines = pool.size, languages = %joined, "Tesseract pool started");
        Ok(pool)
    }

    /// Number of engines.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The languages used when a request names none.
    pub fn languages(&self) -> &[String] {
        &self.languages
    }

    /// The languages installed in the tessdata directory (empty when it could not be found;
    /// Tesseract then decides at start-up).
    pub fn installed_languages(&self) -> &[String] {
        &self.installed
    }

    /// Checks that every language is a language code and installed; returns them `+`-joined.
    pub fn check_languages(&self, languages: &[String]) -> Result<String, OcrError> {
        check_languages_against(&self.installed, languages)
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // A panic while holding the lock cannot leave the state inconsistent (push/pop and a
        // counter), so a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes an engine started with `languages`, waiting for one to come back if all are busy.
    fn checkout(&self, languages: &str) -> Result<Loan<'_>, OcrError> {
        let mut state = self.lock();
        loop {
            if let Some(i) = state.idle.iter().position(|e| e.languages == languages) {
                let engine = state.idle.swap_remove(i);
                state.busy += 1;
                return Ok(Loan {
                    pool: self,
                    engine: Some(engine),
                });
            }
            if let Some(stale) = state.idle.pop() {
                // Re-start an idle engine with the other languages, outside the lock.
                state.busy += 1;
                drop(state);
                drop(stale);
                let mut loan = Loan {
                    pool: self,
                    engine: None,
                };
                loan.engine = Some(OcrEngine::new(self.tessdata_dir.as_deref(), languages)?);
                return Ok(loan);
            }
            if state.idle.len() + state.busy < self.size {
                // An engine was lost to a failed re-start: make a new one.
                state.busy += 1;
                drop(state);
                let mut loan = Loan {
                    pool: self,
                    engine: None,
                };
                loan.engine = Some(OcrEngine::new(self.tessdata_dir.as_deref(), languages)?);
                return Ok(loan);
            }
            state = self
                .returned
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// Recognises one page on a free engine (waiting for one if all are busy).
    pub fn recognize(
        &self,
        image: PixelBuffer<'_>,
        request: &PageRequest,
    ) -> Result<Page, OcrError> {
        let languages = if request.languages.is_empty() {
            self.languages.join("+")
        } else {
            self.check_languages(&request.languages)?
        };
        let mut loan = self.checkout(&languages)?;
        let engine = loan
            .engine
            .as_mut()
            .ok_or_else(|| OcrError::Recognition("no engine".into()))?;
        let started = std::time::Instant::now();
        let page = engine.recognize(image, request);
        tracing::debug!(
            page = request.page,
            ms = started.elapsed().as_millis() as u64,
            ok = page.is_ok(),
            "page recognised"
        );
        page
    }

    /// Runs `work` with a free engine started with `languages` (the pool's when empty),
    /// waiting for one if all are busy. For work that first produces the pixels (rendering a
    /// PDF page, decoding a picture): producing them only once an engine is held means a
    /// page never waits in memory for an engine, so memory grows with the engines and not
    /// with the calls waiting for them.
    pub fn with_free_engine<R>(
        &self,
        languages: &[String],
        work: impl FnOnce(&mut OcrEngine) -> R,
    ) -> Result<R, OcrError> {
        let languages = if languages.is_empty() {
            self.languages.join("+")
        } else {
            self.check_languages(languages)?
        };
        let mut loan = self.checkout(&languages)?;
        let engine = loan
            .engine
            .as_mut()
            .ok_or_else(|| OcrError::Recognition("no engine".into()))?;
        Ok(work(engine))
    }

    /// Recognises several pages in parallel, one page per engine at a time, and returns the
    /// results in input order. `cancel` is checked before each page: once it is set, pages not
    /// yet started come back as [`OcrError::Cancelled`] (pages under way finish first).
    pub fn recognize_batch(
        &self,
        pages: &[(PixelBuffer<'_>, PageRequest)],
        cancel: &AtomicBool,
    ) -> Vec<Result<Page, OcrError>> {
        in_order(pages, self.size, cancel, |(image, request)| {
            self.recognize(*image, request)
        })
        .into_iter()
        .map(|result| result.unwrap_or(Err(OcrError::Cancelled)))
        .collect()
    }
}

/// Runs `work` on every item on a scoped rayon pool of at most `workers` threads, results in
/// input order. An item not started before `cancel` was set gives `None` (recognition cannot
/// be interrupted in the middle of a page, so the time budget stops it between pages). Should
/// the system refuse the threads, the items run one after the other on this one.
pub(crate) fn in_order<T, R, F>(
    items: &[T],
    workers: usize,
    cancel: &AtomicBool,
    work: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    use rayon::prelude::*;
    let one = |item: &T| (!cancel.load(Ordering::Relaxed)).then(|| work(item));
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers.clamp(1, items.len().max(1)))
        .build_scoped(
            |thread| thread.run(),
            // One item per task, so that a slow page does not hold back the ones behind it.
            |pool| pool.install(|| items.par_iter().with_max_len(1).map(one).collect()),
        )
        .unwrap_or_else(|_| items.iter().map(one).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order() {
        let items: Vec<u32> = (0..50).collect();
        let out = in_order(&items, 3, &AtomicBool::new(false), |x| x * 2);
        assert_eq!(out, items.iter().map(|x| Some(x * 2)).collect::<Vec<_>>());
    }

    #[test]
    fn nothing_starts_once_cancelled() {
        let cancel = AtomicBool::new(true);
        let out = in_order(&[1, 2, 3], 2, &cancel, |x| *x);
        assert_eq!(out, vec![None, None, None]);
        assert!(in_order::<u8, u8, _>(&[], 4, &AtomicBool::new(false), |x| *x).is_empty());
    }

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t200\t100\t-1\t
4\t1\t1\t1\t1\t0\t10\t10\t120\t20\t-1\t
5\t1\t1\t1\t1\t1\t60\t10\t70\t20\t96.5\twelt
5\t1\t1\t1\t1\t2\t10\t12\t40\t18\t40\tHallo
5\t1\t1\t1\t1\t3\t140\t12\t5\t18\t95\t 
5\t1\t1\t1\t2\t1\t10\t50\t30\t20\t91\tzwei
";

    /// A page of `count` words "Wort", each `w`×`h` pixels, read at `conf` percent.
    fn page_of_words(count: u32, w: u32, h: u32, conf: f64) -> Page {
        let mut tsv = String::from(TSV.lines().next().unwrap_or_default());
        for i in 0..count {
            let (line, left) = (i / 5 + 1, (i % 5) * (w + 10));
            let top = line * (h + 10);
            tsv.push_str(&format!(
                "\n5\t1\t1\t1\t{line}\t{}\t{left}\t{top}\t{w}\t{h}\t{conf}\tWort",
                i % 5 + 1
            ));
        }
        let geometry = PageGeometry {
            width: 2000,
            height: 2000,
            ..geometry(0)
        };
        page_from_tsv(&tsv, &geometry, CoordinateFrame::PixelsTopLeft)
    }

    #[test]
    fn a_confident_reading_of_lying_words_is_upright() {
        assert!(reads_upright(&page_of_words(40, 60, 20, 93.0)));
        // Upside-down text reads at under 50 on average.
        assert!(!reads_upright(&page_of_words(40, 60, 20, 45.0)));
        // A page turned by 90° read as vertical text: confident, but the words stand upright.
        assert!(!reads_upright(&page_of_words(40, 20, 60, 93.0)));
        // Too little to tell: orientation detection decides.
        assert!(!reads_upright(&page_of_words(6, 60, 20, 93.0)));
    }

    fn geometry(rotation: u32) -> PageGeometry {
        PageGeometry {
            width: 200,
            height: 100,
            rotation,
            scale: 1.0,
            page: 3,
        }
    }

    #[test]
    fn tsv_becomes_lines_of_words() {
        let page = page_from_tsv(TSV, &geometry(0), CoordinateFrame::PixelsTopLeft);
        assert_eq!(page.page, 3);
        assert_eq!(page.lines.len(), 2);
        let first = &page.lines[0];
        // Sorted left to right, the empty word dropped.
        assert_eq!(first.text, "Hallo welt");
        assert_eq!(first.words[0].confidence.value(), 0.4);
        assert!(first.words[0].confidence.is_low());
        assert_eq!(first.bbox, PageBox::from_edges(3, 10.0, 10.0, 130.0, 30.0));
        assert_eq!(page.lines[1].order, 1);
        assert_eq!((page.width, page.height), (200.0, 100.0));
    }

    #[test]
    fn boxes_follow_the_rotation_and_scale() {
        let g = geometry(90);
        // The picture's top-left 10x20 box lands at the top-right of the upright page.
        assert_eq!(
            g.map_box(0.0, 0.0, 10.0, 20.0),
            PageBox::from_edges(3, 80.0, 0.0, 100.0, 10.0)
        );
        assert_eq!(
            geometry(270).map_box(0.0, 0.0, 10.0, 20.0),
            PageBox::from_edges(3, 0.0, 190.0, 20.0, 200.0)
        );
        assert_eq!(
            geometry(180).map_box(0.0, 0.0, 10.0, 20.0),
            PageBox::from_edges(3, 190.0, 80.0, 200.0, 100.0)
        );
        let points = PageGeometry {
            scale: 0.24,
            ..geometry(0)
        };
        assert_eq!(
            points.map_box(100.0, 50.0, 100.0, 50.0),
            PageBox::from_edges(3, 24.0, 12.0, 48.0, 24.0)
        );
        let page = page_from_tsv(TSV, &geometry(90), CoordinateFrame::PixelsTopLeft);
        assert_eq!((page.width, page.height, page.rotation), (100.0, 200.0, 90));
    }

    #[test]
    fn rotation_votes_from_hocr() {
        let upright = "<span class='ocr_line' title=\"bbox 1 2 3 4; baseline 0 0\">";
        assert_eq!(rotation_from_hocr(upright), 0);
        let turned = "<span class='ocr_line' title=\"bbox 1 2 3 4; textangle 270; x_size 9\">\
                      <span class='ocr_line' title=\"bbox 1 2 3 4; textangle 270\">\
                      <span class='ocr_line' title=\"bbox 1 2 3 4; baseline 0 0\">";
        assert_eq!(rotation_from_hocr(turned), 270);
        assert_eq!(rotation_from_hocr(""), 0);
    }

    #[test]
    fn buffers_are_checked() {
        assert!(PixelBuffer::grey(2, 2, &[0; 4]).is_ok());
        assert!(matches!(
            PixelBuffer::rgb(2, 2, &[0; 4]),
            Err(OcrError::BufferSize { expected: 12, .. })
        ));
        assert!(PixelBuffer::grey(0, 0, &[]).is_err());
    }

    #[test]
    fn language_codes_are_validated() {
        assert!(validate_language("chi_sim").is_ok());
        assert!(validate_language("../etc").is_err());
        assert!(validate_language("de\0u").is_err());
        assert!(validate_language("").is_err());
    }
}
