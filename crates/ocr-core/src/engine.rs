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

mod parse;
mod pool;

use parse::{PageGeometry, page_from_tsv, reads_upright, rotation_from_hocr};
pub use pool::EnginePool;
pub(crate) use pool::in_order;

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
    /// The directory of the PP-OCR models ([`pp_ocr::DETECTION_MODEL`],
    /// [`pp_ocr::RECOGNITION_MODEL`]); `None`: Tesseract only.
    pub pp_ocr_models: Option<PathBuf>,
    /// Threads one PP-OCR reading runs on (the detector's matrix products split, the lines
    /// read side by side). Default: the number of cores, at most two (measured on two cores:
    /// a receipt in 0.6× the wall clock of one thread at the same CPU time; more threads were
    /// not measured, docs/decisions.md "PP-OCR on two threads").
    pub pp_ocr_threads: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            engines: std::thread::available_parallelism().map_or(1, usize::from),
            languages: DEFAULT_LANGUAGES.iter().map(|s| (*s).to_owned()).collect(),
            tessdata_dir: None,
            pp_ocr_models: None,
            pp_ocr_threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(2)),
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
    /// (see `reads_upright`) is it read again with orientation detection (`--psm 1`), the
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

    /// Tesseract's nesting (page, area, paragraph, line, word), lines quoted either way, and
    /// word text that says "textangle": only the lines' own titles vote. The string scanning
    /// this parser replaced counted the words' text (four votes for 180) and missed the
    /// double-quoted line, and answered 180 for both pages.
    #[test]
    fn rotation_reads_only_the_lines_of_real_hocr() {
        let hocr = r#"<div class='ocr_page' id='page_1' title='image ""; bbox 0 0 400 600; ppageno 0'>
   <div class='ocr_carea' id='block_1_1' title="bbox 10 10 390 590">
    <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 10 10 390 590">
     <span class='ocr_line' id='line_1_1' title="bbox 10 10 40 590; textangle 90; x_size 30">
      <span class='ocrx_word' id='word_1_1' title='bbox 10 10 40 200; x_wconf 91'>textangle 180</span>
     </span>
     <span class="ocr_line" id="line_1_2" title="bbox 50 10 80 590; textangle 90; x_size 30">
      <span class='ocrx_word' id='word_1_2' title='bbox 50 10 80 200; x_wconf 90'>textangle 180 &amp; &lt;b&gt;</span>
     </span>
     <span class='ocr_caption' id='line_1_3' title="bbox 90 10 120 590&#59; textangle 90">
      <span class='ocrx_word' id='word_1_3' title='bbox 90 10 120 200; x_wconf 88'>textangle&#32;180</span>
     </span>
     <span class='ocr_line' id='line_1_4' title="bbox 130 10 160 590; baseline 0 -5">
      <span class='ocrx_word' id='word_1_4' title='bbox 130 10 160 200; x_wconf 80'>A&#39;s</span>
      <span class='ocrx_word' id='word_1_5' title='bbox 130 210 160 400; x_wconf 80'>textangle 180</span>
      <span class='ocrx_word' id='word_1_6' title='bbox 130 410 160 590; x_wconf 80'>textangle 180</span>
     </span>
    </p>
   </div>
  </div>
"#;
        assert_eq!(rotation_from_hocr(hocr), 90);
        // The same page with its lines upright: no line carries an angle, the words still say
        // "textangle 180".
        let upright = hocr.replace("textangle 90", "baseline 0 0");
        assert_eq!(rotation_from_hocr(&upright), 0);
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
