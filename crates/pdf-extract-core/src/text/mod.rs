//! The text layer with positions: glyphs from pdf-extract's `OutputDev`, grouped into words and
//! lines, ordered by [`doc_analysis::layout::order_lines`]; ruling lines from stroked and thin
//! filled paths; and the test for a usable text layer.
//!
//! Grouping, in the glyphs' own reading direction (upright, or turned by a quarter, half or
//! three-quarter turn on the displayed page):
//! - a glyph's box runs from its origin along its advance, from 0.8 em above the baseline to
//!   0.2 em below it (pdf-extract exposes no font ascent/descent);
//! - glyphs whose baselines are within 0.3 em share a row;
//! - within a row, a gap wider than [`LINE_SPLIT_EMS`] starts a new line (form columns such as
//!   `Währung:   EUR` stay apart), a space glyph or a gap wider than [`WORD_GAP_EMS`] starts a
//!   new word;
//! - a glyph repeated at nearly the same place (fake bold) is kept once.
//!
//! Glyph positions are pdf-extract's, so they are only as good as the font widths it reads;
//! `normalize_cid_widths` rewrites CID-font widths it would misread before it sees the file.

use std::sync::Arc;

use doc_model::{CoordinateFrame, Page, PageMethod, Ruling, round2};
use pdf_extract::{ColorSpace, MediaBox, OutputDev, OutputError, Path, PathOp, Transform};

use crate::error::PdfError;
use crate::load::{PageGeometry, PdfDocument, guarded};

pub(crate) mod cid;
pub(crate) mod glyph;
mod lines;
mod plausible;

pub(crate) use self::glyph::{Glyph, PageText};
pub(crate) use self::lines::build_lines;
pub use self::plausible::is_plausible_text;

/// Gap between glyphs, in em, that separates words when no space glyph does.
pub const WORD_GAP_EMS: f64 = 0.15;
/// Gap between glyphs, in em, that separates two lines on the same baseline.
pub const LINE_SPLIT_EMS: f64 = 1.0;
/// Glyphs read from one page at most; a page beyond this is refused, not truncated.
pub const MAX_GLYPHS: usize = 250_000;
/// Ruling segments kept per page; further ones are ignored (they only feed table detection).
pub const MAX_RULINGS: usize = 20_000;
/// Share of plausible characters (see [`is_plausible_text`]) a usable text layer needs.
pub const PLAUSIBLE_SHARE: f64 = 0.75;

const ASCENT: f64 = 0.8;
const DESCENT: f64 = 0.2;
/// Thickest filled rectangle taken for a ruling line, in points.
const MAX_RULE_THICKNESS: f64 = 2.5;
/// Shortest ruling segment, in points.
const MIN_RULE_LENGTH: f64 = 3.0;
/// Most a ruling may lean (difference of its end coordinates across it), in points.
const RULE_SLANT: f64 = 0.5;

struct Collector<'g> {
    geometry: &'g PageGeometry,
    text: PageText,
    too_many_glyphs: bool,
}

fn apply(m: &Transform, x: f64, y: f64) -> (f64, f64) {
    (x * m.m11 + y * m.m21 + m.m31, x * m.m12 + y * m.m22 + m.m32)
}

fn apply_vector(m: &Transform, x: f64, y: f64) -> (f64, f64) {
    (x * m.m11 + y * m.m21, x * m.m12 + y * m.m22)
}

/// Paint that leaves no mark on white paper.
fn is_white(colorspace: &ColorSpace, color: &[f64]) -> bool {
    match colorspace {
        ColorSpace::DeviceGray
        | ColorSpace::DeviceRGB
        | ColorSpace::CalGray(_)
        | ColorSpace::CalRGB(_) => !color.is_empty() && color.iter().all(|c| *c >= 0.99),
        ColorSpace::DeviceCMYK => !color.is_empty() && color.iter().all(|c| *c <= 0.01),
        ColorSpace::ICCBased(_) => match color.len() {
            1 | 3 => color.iter().all(|c| *c >= 0.99),
            4 => color.iter().all(|c| *c <= 0.01),
            _ => false,
        },
        _ => false,
    }
}

impl Collector<'_> {
    fn display(&self, ctm: &Transform, x: f64, y: f64) -> (f64, f64) {
        let (ux, uy) = apply(ctm, x, y);
        self.geometry.display_point(ux, uy)
    }

    fn push_segment(&mut self, a: (f64, f64), b: (f64, f64)) {
        if self.text.rulings.len() >= MAX_RULINGS {
            return;
        }
        let (dx, dy) = ((b.0 - a.0).abs(), (b.1 - a.1).abs());
        let axis_aligned = (dy <= RULE_SLANT && dx >= MIN_RULE_LENGTH)
            || (dx <= RULE_SLANT && dy >= MIN_RULE_LENGTH);
        if axis_aligned && [a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) {
            self.text.rulings.push(Ruling::new(
                round2(a.0),
                round2(a.1),
                round2(b.0),
                round2(b.1),
            ));
        }
    }

    /// Corners of every closed four-sided axis-aligned shape of a path, in display coordinates.
    fn rectangles(&self, ctm: &Transform, path: &Path) -> Vec<[(f64, f64); 4]> {
        let mut out = Vec::new();
        let mut current: Vec<(f64, f64)> = Vec::new();
        let close = |points: &mut Vec<(f64, f64)>, out: &mut Vec<[(f64, f64); 4]>| {
            if points.len() > 1 && points.first() == points.last() {
                points.pop();
            }
            if let [a, b, c, d] = points[..] {
                out.push([a, b, c, d]);
            }
            points.clear();
        };
        for op in &path.ops {
            match *op {
                PathOp::Rect(x, y, w, h) => {
                    out.push([
                        self.display(ctm, x, y),
                        self.display(ctm, x + w, y),
                        self.display(ctm, x + w, y + h),
                        self.display(ctm, x, y + h),
                    ]);
                }
                PathOp::MoveTo(x, y) => {
                    close(&mut current, &mut out);
                    current.push(self.display(ctm, x, y));
                }
                PathOp::LineTo(x, y) => current.push(self.display(ctm, x, y)),
                PathOp::CurveTo(..) => current.clear(),
                PathOp::Close => close(&mut current, &mut out),
            }
        }
        close(&mut current, &mut out);
        out
    }
}

impl OutputDev for Collector<'_> {
    fn begin_page(
        &mut self,
        _page_num: u32,
        _media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        if self.text.glyphs.len() >= MAX_GLYPHS {
            self.too_many_glyphs = true;
            // Stops pdf-extract; the page is then refused.
            return Err(OutputError::FormatError(std::fmt::Error));
        }
        if !font_size.is_finite() || font_size == 0.0 {
            return Ok(());
        }
        let space = !char.is_empty() && char.chars().all(char::is_whitespace);
        let text: String = char.chars().filter(|c| !c.is_control()).collect();
        if text.is_empty() && !space {
            return Ok(());
        }
        let width = if width.is_finite() && width > 0.0 {
            width
        } else {
            0.5
        };
        let (ox, oy) = self.geometry.display_point(trm.m31, trm.m32);
        let advance = apply_vector(trm, width * font_size, 0.0);
        let pen = apply_vector(trm, width * font_size + spacing, 0.0);
        let up = apply_vector(trm, 0.0, font_size);
        let glyph = Glyph {
            text,
            x: ox,
            y: oy,
            advance: self.geometry.display_vector(advance.0, advance.1),
            pen: pen.0.hypot(pen.1),
            up: self.geometry.display_vector(up.0, up.1),
            space,
        };
        if [
            glyph.x,
            glyph.y,
            glyph.advance.0,
            glyph.advance.1,
            glyph.up.0,
            glyph.up.1,
            glyph.pen,
        ]
        .iter()
        .all(|v| v.is_finite())
            && glyph.size() > 0.0
        {
            self.text.glyphs.push(glyph);
        }
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn stroke(
        &mut self,
        ctm: &Transform,
        colorspace: &ColorSpace,
        color: &[f64],
        path: &Path,
    ) -> Result<(), OutputError> {
        if is_white(colorspace, color) {
            return Ok(());
        }
        let mut start: Option<(f64, f64)> = None;
        let mut last: Option<(f64, f64)> = None;
        for op in &path.ops {
            match *op {
                PathOp::MoveTo(x, y) => {
                    let p = self.display(ctm, x, y);
                    start = Some(p);
                    last = Some(p);
                }
                PathOp::LineTo(x, y) => {
                    let p = self.display(ctm, x, y);
                    if let Some(prev) = last {
                        self.push_segment(prev, p);
                    }
                    last = Some(p);
                }
                PathOp::CurveTo(_, _, _, _, x, y) => last = Some(self.display(ctm, x, y)),
                PathOp::Rect(x, y, w, h) => {
                    let corners = [
                        self.display(ctm, x, y),
                        self.display(ctm, x + w, y),
                        self.display(ctm, x + w, y + h),
                        self.display(ctm, x, y + h),
                    ];
                    for i in 0..4 {
                        self.push_segment(corners[i], corners[(i + 1) % 4]);
                    }
                }
                PathOp::Close => {
                    if let (Some(a), Some(b)) = (last, start) {
                        self.push_segment(a, b);
                    }
                    last = start;
                }
            }
        }
        Ok(())
    }

    fn fill(
        &mut self,
        ctm: &Transform,
        colorspace: &ColorSpace,
        color: &[f64],
        path: &Path,
    ) -> Result<(), OutputError> {
        if is_white(colorspace, color) {
            return Ok(());
        }
        for corners in self.rectangles(ctm, path) {
            let xs = corners.map(|p| p.0);
            let ys = corners.map(|p| p.1);
            let (x0, x1) = (
                xs.iter().copied().fold(f64::INFINITY, f64::min),
                xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            let (y0, y1) = (
                ys.iter().copied().fold(f64::INFINITY, f64::min),
                ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            // Only axis-aligned rectangles: every corner on one of the bounding edges.
            let aligned = corners.iter().all(|&(x, y)| {
                ((x - x0).abs() < RULE_SLANT || (x - x1).abs() < RULE_SLANT)
                    && ((y - y0).abs() < RULE_SLANT || (y - y1).abs() < RULE_SLANT)
            });
            if !aligned {
                continue;
            }
            let (w, h) = (x1 - x0, y1 - y0);
            if h <= MAX_RULE_THICKNESS && w >= MIN_RULE_LENGTH {
                let y = (y0 + y1) / 2.0;
                self.push_segment((x0, y), (x1, y));
            } else if w <= MAX_RULE_THICKNESS && h >= MIN_RULE_LENGTH {
                let x = (x0 + x1) / 2.0;
                self.push_segment((x, y0), (x, y1));
            }
        }
        Ok(())
    }
}

impl PdfDocument {
    /// Glyphs and rulings of a page, read once and cached.
    pub(crate) fn page_text(&self, page: u32) -> Result<Arc<PageText>, PdfError> {
        let geometry = self.geometry(page)?;
        // Before pdf-extract sees the page: it recurses into forms without a depth check.
        self.preflight(page)?;
        let slot = &self.text_cache[(page - 1) as usize];
        slot.get_or_init(|| {
            let doc = self
                .text_doc
                .as_ref()
                .map_err(|reason| PdfError::Extraction {
                    page,
                    reason: reason.to_string(),
                })?;
            let mut collector = Collector {
                geometry,
                text: PageText::default(),
                too_many_glyphs: false,
            };
            let outcome = guarded(|| pdf_extract::output_doc_page(doc, &mut collector, page));
            match outcome {
                Err(panic) => Err(PdfError::Extraction {
                    page,
                    reason: format!("the text extractor panicked: {panic}"),
                }),
                Ok(_) if collector.too_many_glyphs => Err(PdfError::Extraction {
                    page,
                    reason: format!("more than {MAX_GLYPHS} glyphs"),
                }),
                Ok(Err(e)) => Err(PdfError::Extraction {
                    page,
                    reason: e.to_string(),
                }),
                Ok(Ok(())) => Ok(Arc::new(collector.text)),
            }
        })
        .clone()
    }

    /// Whether a page carries a usable text layer, so it needs no OCR.
    ///
    /// Usable means: at least one visible-on-page, non-blank glyph; at least
    /// [`PLAUSIBLE_SHARE`] of its characters plausible (see [`is_plausible_text`]: a layer that
    /// decodes to junk, such as a broken font encoding yielding CJK-looking characters, is not
    /// usable and the page goes to OCR); and, on a page that is mostly one image (a scan: the
    /// largest image covers half the page or more), at least 40 characters, so a stamp or a
    /// page number printed over a scan does not hide the scan from OCR. An invisible text layer
    /// (render mode 3, as OCR tools write it) counts like any other.
    pub fn has_text_layer(&self, page: u32) -> Result<bool, PdfError> {
        let text = self.page_text(page)?;
        let (width, height) = self.geometry(page)?.display_size();
        let chars: String = text
            .glyphs
            .iter()
            .filter(|g| !g.space && on_page(g, width, height))
            .flat_map(|g| g.text.chars())
            .filter(|c| !c.is_whitespace())
            .collect();
        if chars.is_empty() || !is_plausible_text(&chars) {
            return Ok(false);
        }
        if chars.chars().count() < 40 {
            // Only a failed image scan is no reason to doubt a short text page.
            if let Ok(images) = self.page_images(page)
                && images.largest_area_share() >= 0.5
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The page's text layer: words (confidence 1), lines, columns and reading order, in PDF
    /// points from the top-left of the displayed page, plus ruling lines for table detection.
    /// The page is extracted whether or not [`PdfDocument::has_text_layer`] finds it usable.
    pub fn extract_page(&self, page: u32) -> Result<Page, PdfError> {
        let text = self.page_text(page)?;
        let geometry = self.geometry(page)?;
        let (width, height) = geometry.display_size();
        let built =
            guarded(|| build_lines(&text.glyphs, page, width, height)).map_err(|panic| {
                PdfError::Extraction {
                    page,
                    reason: format!("line building panicked: {panic}"),
                }
            })?;
        let (lines, columns) = doc_analysis::layout::order_lines(built, width);
        Ok(Page {
            page,
            width: round2(width),
            height: round2(height),
            coordinate_frame: CoordinateFrame::PdfPointsTopLeft,
            method: PageMethod::TextLayer,
            rotation: geometry.rotation,
            columns,
            lines,
            rulings: text.rulings.clone(),
            recogniser: None,
        })
    }
}

/// The glyph's centre lies on the displayed page (text outside the crop box is not shown).
fn on_page(g: &Glyph, width: f64, height: f64) -> bool {
    let cx = g.x + g.advance.0 / 2.0 + g.up.0 * 0.3;
    let cy = g.y + g.advance.1 / 2.0 + g.up.1 * 0.3;
    (-1.0..=width + 1.0).contains(&cx) && (-1.0..=height + 1.0).contains(&cy)
}

#[cfg(test)]
mod tests {
    use super::cid::{MAX_CID_WIDTHS, normalize_cid_widths};
    use super::*;

    fn glyphs(text: &str, x: f64, baseline: f64, size: f64) -> Vec<Glyph> {
        let advance = 0.5 * size;
        text.chars()
            .enumerate()
            .map(|(i, c)| Glyph {
                text: c.to_string(),
                x: x + i as f64 * advance,
                y: baseline,
                advance: (advance, 0.0),
                pen: advance,
                up: (0.0, -size),
                space: c == ' ',
            })
            .collect()
    }

    #[test]
    fn words_lines_and_form_columns() {
        let mut all = glyphs("Währung:", 70.0, 100.0, 10.0);
        all.extend(glyphs("EUR", 150.0, 100.0, 10.0));
        all.extend(glyphs("Total due", 70.0, 120.0, 10.0));
        let lines = build_lines(&all, 1, 595.0, 842.0);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Währung:", "EUR", "Total due"]);
        assert_eq!(lines[2].words.len(), 2);
        let b = lines[0].bbox;
        assert_eq!((b.x, b.y, b.w, b.h), (70.0, 92.0, 40.0, 10.0));
        assert_eq!(lines[0].font_size, Some(10.0));
    }

    #[test]
    fn fake_bold_duplicates_are_dropped() {
        let mut all = glyphs("AB", 70.0, 100.0, 10.0);
        all.extend(glyphs("AB", 70.3, 100.0, 10.0));
        let lines = build_lines(&all, 1, 595.0, 842.0);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text, "AB");
    }

    #[test]
    fn vertical_text_reads_along_its_direction() {
        // Text running bottom to top (turned a quarter counter-clockwise).
        let all: Vec<Glyph> = "UP"
            .chars()
            .enumerate()
            .map(|(i, c)| Glyph {
                text: c.to_string(),
                x: 50.0,
                y: 500.0 - 5.0 * i as f64,
                advance: (0.0, -5.0),
                pen: 5.0,
                up: (-10.0, 0.0),
                space: false,
            })
            .collect();
        let lines = build_lines(&all, 1, 595.0, 842.0);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text, "UP");
        let b = lines[0].bbox;
        assert_eq!((b.x, b.y, b.w, b.h), (42.0, 490.0, 10.0, 10.0));
    }

    #[test]
    fn off_page_glyphs_are_ignored() {
        let all = glyphs("hidden", 700.0, 100.0, 10.0);
        assert!(build_lines(&all, 1, 595.0, 842.0).is_empty());
    }

    #[test]
    fn cid_width_ranges_become_lists_pdf_extract_reads() {
        use lopdf::{Document, Object, dictionary};
        let mut doc = Document::with_version("1.7");
        let width = doc.add_object(Object::Integer(600));
        let widths = doc.add_object(Object::Array(vec![
            3.into(),
            3.into(),
            Object::Reference(width),
            8.into(),
            9.into(),
            500.into(),
            20.into(),
            Object::Array(vec![Object::Reference(width), Object::Real(250.5)]),
            // Clipped to the two-byte CID space.
            65_534.into(),
            i64::MAX.into(),
            400.into(),
            // No number: ends W.
            30.into(),
            30.into(),
            "x".into(),
            40.into(),
            40.into(),
            700.into(),
        ]));
        let font = doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type0",
            "DescendantFonts" => vec![Object::Dictionary(dictionary! {
                "Type" => "Font",
                "Subtype" => "CIDFontType2",
                "W" => Object::Reference(widths),
                "DW" => Object::Real(1000.0),
            })],
        });
        normalize_cid_widths(&mut doc);
        let font = doc.get_dictionary(font).expect("font");
        let descendant = font
            .get(b"DescendantFonts")
            .and_then(Object::as_array)
            .expect("descendants")[0]
            .as_dict()
            .expect("inline CID font");
        let w = descendant.get(b"W").and_then(Object::as_array).expect("W");
        let expected = vec![
            Object::Integer(3),
            Object::Array(vec![600.into()]),
            Object::Integer(8),
            Object::Array(vec![500.into(), 500.into()]),
            Object::Integer(20),
            Object::Array(vec![600.into(), Object::Real(250.5)]),
            Object::Integer(65_534),
            Object::Array(vec![400.into(), 400.into()]),
        ];
        assert_eq!(w, &expected);
        assert_eq!(descendant.get(b"DW").ok(), Some(&Object::Integer(1000)));
    }

    #[test]
    fn cid_width_expansion_is_bounded_per_document() {
        use lopdf::{Document, Object, dictionary};
        let mut doc = Document::with_version("1.7");
        let full_range = || vec![0.into(), 65_535.into(), 500.into()];
        let fonts: Vec<_> = (0..5)
            .map(|_| {
                doc.add_object(dictionary! {
                    "Subtype" => "CIDFontType0",
                    "W" => full_range(),
                })
            })
            .collect();
        normalize_cid_widths(&mut doc);
        let expanded: usize = fonts
            .iter()
            .map(|id| {
                let w = doc
                    .get_dictionary(*id)
                    .and_then(|d| d.get(b"W"))
                    .and_then(Object::as_array)
                    .expect("W");
                w.iter()
                    .filter_map(|o| o.as_array().ok())
                    .map(Vec::len)
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(expanded, MAX_CID_WIDTHS);
    }

    #[test]
    fn plausibility() {
        assert!(is_plausible_text(
            "Rechnung Nr. 2024-001 vom 01.03.2024, Summe 1.234,56 €"
        ));
        assert!(is_plausible_text("Ελληνικά και кириллица"));
        // Byte-swapped UTF-16, as in a broken text layer: "Mul" read as CJK.
        assert!(!is_plausible_text("䴀甀氀琀椀挀漀氀漀爀䈀氀愀挀欀"));
        assert!(!is_plausible_text("\u{FFFD}\u{FFFD}\u{E001}\u{E002}ab"));
        assert!(!is_plausible_text(&"xqzkw".repeat(30)));
        assert!(!is_plausible_text(""));
    }
}

/// Extraction on the committed fixtures (`testdata/pdf/`, see its README).
#[cfg(test)]
mod fixture_tests {
    use crate::{Limits, PdfDocument, PdfError};
    use serde_json::json;

    fn open(name: &str) -> PdfDocument {
        let path = format!("{}/../../testdata/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("fixture exists");
        PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("fixture loads")
    }

    /// Lines with order, column, text, box and font size: what the snapshots pin down.
    fn summary(page: &doc_model::Page) -> serde_json::Value {
        json!({
            "page": page.page,
            "width": page.width,
            "height": page.height,
            "rotation": page.rotation,
            "columns": page.columns,
            "lines": page.lines.iter().map(|l| json!({
                "order": l.order,
                "column": l.column,
                "text": l.text,
                "box": [l.bbox.x, l.bbox.y, l.bbox.w, l.bbox.h],
                "font_size": l.font_size,
                "words": l.words.len(),
            })).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn two_columns_are_read_column_by_column() {
        let page = open("two_column.pdf").extract_page(1).expect("page 1");
        assert_eq!(page.columns, 2);
        let texts: Vec<&str> = page.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts.len(), 18);
        assert_eq!(texts[0], "Annual Report of the Example Cooperative 2024");
        assert_eq!(texts[1], "The cooperative grew in every region");
        assert_eq!(texts[8], "founding of the cooperative in 1998.");
        assert_eq!(texts[9], "Costs stayed flat although fuel was");
        assert_eq!(texts[16], "proposal at the meeting in November.");
        assert!(texts[17].starts_with("Example Cooperative - Annual Report 2024"));
        let columns: Vec<u32> = page.lines.iter().map(|l| l.column).collect();
        assert_eq!(&columns[1..9], &[0; 8]);
        assert_eq!(&columns[9..17], &[1; 8]);
        insta::assert_json_snapshot!("two_column", summary(&page));
    }

    #[test]
    fn zugferd_invoice_snapshot() {
        let doc = open("zugferd_basic_einfach.pdf");
        assert!(doc.has_text_layer(1).expect("page 1"));
        let page = doc.extract_page(1).expect("page 1");
        let text = page.text();
        for expected in [
            "Lieferant GmbH",
            "471102",
            "DE08 7009 0100 1234 5678 90",
            "235,62",
        ] {
            assert!(text.contains(expected), "{expected} missing");
        }
        // The invoice's address block is read before its detail block beside it.
        let position = |t: &str| page.lines.iter().position(|l| l.text == t).expect(t);
        assert!(position("80333 München") < position("RECHNUNG"));
        assert!(!page.rulings.is_empty());
        insta::assert_json_snapshot!("zugferd_basic_einfach", summary(&page));
    }

    #[test]
    fn cid_font_widths_in_range_form_keep_columns_apart() {
        // Read with pdf-extract's default width (1000) instead of the font's 600, each run ran
        // 1.67 times too long over the next column: `BeschreibuNnegttopreis`, `USt4.73,00`.
        let page = open("zugferd_2p0_einfach.pdf")
            .extract_page(1)
            .expect("page 1");
        let words: Vec<&str> = page
            .lines
            .iter()
            .flat_map(|l| l.words.iter().map(|w| w.text.as_str()))
            .collect();
        for expected in [
            "Beschreibung",
            "Nettopreis",
            "Trennblätter",
            "9,9000",
            "198,00",
        ] {
            assert!(words.contains(&expected), "{expected} missing: {words:?}");
        }
        let line = |t: &str| {
            page.lines
                .iter()
                .find(|l| l.text == t)
                .unwrap_or_else(|| panic!("{t} missing"))
        };
        // Widths of 600/1000 em: 12 glyphs at 10 pt are 72 pt wide, as poppler measures them.
        let b = line("Beschreibung").bbox;
        assert!((b.w - 72.0).abs() < 0.5, "{b:?}");
        assert_eq!(
            line("Handelsrechnung Nr. 471102 vom 05.03.2018")
                .words
                .len(),
            5
        );
    }

    #[test]
    fn english_invoice_reads() {
        let doc = open("azure_interior.pdf");
        assert!(doc.has_text_layer(1).expect("page 1"));
        let text = doc.extract_page(1).expect("page 1").text();
        assert!(text.contains("INV/2023/03/0008"), "{text}");
        assert!(text.contains("Beeswax XL"));
    }

    #[test]
    fn form_columns_stay_apart_and_table_rulings_are_found() {
        let page = open("ruled_table.pdf").extract_page(1).expect("page 1");
        let texts: Vec<&str> = page.lines.iter().map(|l| l.text.as_str()).collect();
        let at = |t: &str| texts.iter().position(|x| *x == t).expect(t);
        assert_eq!(at("Währung:") + 1, at("EUR"));
        assert_eq!(at("Rechnungsdatum:") + 1, at("12.03.2024"));
        // Table rows are read row by row.
        assert_eq!(
            &texts[at("1")..at("1") + 5],
            &["1", "Trennblätter A4", "20", "9,90", "198,00"]
        );
        let horizontal = page.rulings.iter().filter(|r| r.is_horizontal(0.5)).count();
        let vertical = page.rulings.iter().filter(|r| r.is_vertical(0.5)).count();
        // Frame (2 + 2), two inner row lines, the filled header rule, four column lines.
        assert_eq!((horizontal, vertical), (5, 6));
        let header_rule = page
            .rulings
            .iter()
            .find(|r| (r.y0 - 182.0).abs() < 0.01)
            .expect("the filled header rule");
        assert_eq!((header_rule.x0, header_rule.x1), (50.0, 545.0));
    }

    #[test]
    fn rotated_page_is_read_upright() {
        let doc = open("rotated.pdf");
        assert_eq!(doc.page_size(1), Ok((842.0, 595.0)));
        let page = doc.extract_page(1).expect("page 1");
        assert_eq!((page.width, page.height, page.rotation), (842.0, 595.0, 90));
        let texts: Vec<&str> = page.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Landscape page rotated by ninety degrees",
                "Second line of the rotated page"
            ]
        );
        let b = page.lines[0].bbox;
        assert_eq!((b.x, b.y, b.h), (60.0, 70.4, 12.0));
        assert_eq!(page.rulings.len(), 1);
        let r = page.rulings[0];
        assert_eq!((r.x0, r.y0, r.x1, r.y1), (60.0, 150.0, 400.0, 150.0));
    }

    #[test]
    fn text_layer_detection() {
        assert!(
            open("invisible_text.pdf")
                .has_text_layer(1)
                .expect("page 1")
        );
        assert!(!open("image_only.pdf").has_text_layer(1).expect("page 1"));
        // Glyphs that decode to CJK-looking junk are no usable text layer.
        let garbage = open("garbage_text.pdf");
        assert!(!garbage.has_text_layer(1).expect("page 1"));
        assert!(!garbage.extract_page(1).expect("page 1").lines.is_empty());
        let invisible = open("invisible_text.pdf").extract_page(1).expect("page 1");
        assert_eq!(invisible.lines[0].text, "Rechnung Nr. 4711");
        assert_eq!(
            invisible.lines[2].text,
            "Lieferant GmbH, Lieferantenstraße 20, 80333 München"
        );
    }

    #[test]
    fn pages_and_owner_only_encryption() {
        let doc = open("encrypted_owner_only.pdf");
        assert_eq!(doc.page_count(), 3);
        for page in 1..=3 {
            let text = doc.extract_page(page).expect("page").text();
            assert!(text.starts_with(&format!("Page {page} of 3")), "{text}");
        }
        assert_eq!(
            doc.extract_page(4).map(|p| p.page),
            Err(PdfError::PageOutOfRange {
                page: 4,
                page_count: 3
            })
        );
        assert!(matches!(
            doc.extract_page(0),
            Err(PdfError::PageOutOfRange { .. })
        ));
        assert!(matches!(
            doc.has_text_layer(9),
            Err(PdfError::PageOutOfRange { .. })
        ));
        assert_eq!(doc.select_pages(Some("2-")), Ok(vec![2, 3]));
        assert!(matches!(
            doc.select_pages(Some("3-5")),
            Err(PdfError::PageOutOfRange { page: 5, .. })
        ));
    }
}
