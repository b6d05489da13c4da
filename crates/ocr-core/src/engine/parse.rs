//! Tesseract's output read: TSV rows into words and lines in the requested frame, the page's
//! rotation from hOCR, and whether a plain reading shows an upright page.

use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use super::*;

/// Smallest share of confident words (and of words wider than tall) for a plain reading to
/// count as upright.
pub(super) const UPRIGHT_SHARE: f64 = 0.8;

/// Whether a reading without orientation detection shows an upright page: enough words, most
/// read with confidence (upside-down text reads at under 0.5 on average, measured on the
/// turned fixtures and OCRmyPDF's cardinal.pdf), and most words of three or more letters wider
/// than tall (Tesseract reads a page turned by 90° confidently as vertical text, but then its
/// word boxes stand upright).
pub(super) fn reads_upright(page: &Page) -> bool {
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

/// The hOCR classes of a line of text (hOCR 1.2 `ocr_line` and its typed kinds).
const LINE_CLASSES: [&str; 4] = ["ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"];

/// The clockwise rotation that makes the page upright, from the `textangle` of hOCR lines (set
/// by Tesseract when orientation detection found the text turned): the angle most lines agree
/// on, 0 when none carries one.
///
/// The hOCR is read with an XML parser, so only a line element's own `title` votes (never a
/// word's text or another element's properties), whatever the quoting and with entities
/// resolved. Tesseract writes well-formed XHTML; unmatched end tags are tolerated and a
/// malformed rest is ignored, keeping the lines read before it.
pub(super) fn rotation_from_hocr(hocr: &str) -> u32 {
    let mut votes = [0usize; 4];
    let mut line_count = 0usize;
    let mut reader = quick_xml::Reader::from_str(hocr);
    reader.config_mut().check_end_names = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(element) | Event::Empty(element)) => {
                let is_line = attribute(&element, "class").is_some_and(|class| {
                    class
                        .split_ascii_whitespace()
                        .any(|c| LINE_CLASSES.contains(&c))
                });
                if !is_line {
                    continue;
                }
                line_count += 1;
                if let Some(angle) = attribute(&element, "title").and_then(|t| textangle(&t)) {
                    votes[((angle % 360) / 90) as usize] += 1;
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    let turned: usize = votes[1..].iter().sum();
    votes[0] = line_count.saturating_sub(turned);
    let best = (0..4)
        .max_by_key(|&i| (votes[i], usize::from(i == 0)))
        .unwrap_or(0);
    best as u32 * 90
}

/// The value of attribute `name` with its entities resolved (as written when it holds an
/// entity XML does not define).
fn attribute(element: &BytesStart<'_>, name: &str) -> Option<String> {
    let attribute = element.try_get_attribute(name).ok()??;
    Some(
        attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_or_else(|_| attribute.value.to_string(), |value| value.into_owned()),
    )
}

/// The whole degrees of the `textangle` property of an hOCR `title` (`bbox 1 2 3 4; textangle
/// 90`).
fn textangle(title: &str) -> Option<u32> {
    title.split(';').find_map(|property| {
        let value = property.trim().strip_prefix("textangle")?;
        let digits: String = value
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    })
}

/// Where recognised pixel boxes go.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageGeometry {
    /// The recognised picture as given (before rotation).
    pub(super) width: u32,
    pub(super) height: u32,
    /// Clockwise turn that makes it upright.
    pub(super) rotation: u32,
    pub(super) scale: f64,
    pub(super) page: u32,
}

impl PageGeometry {
    /// Size of the upright page, in pixels.
    pub(super) fn upright_size(&self) -> (f64, f64) {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        if self.rotation % 180 == 90 {
            (h, w)
        } else {
            (w, h)
        }
    }

    /// A box of the picture as given, on the upright page, in the frame's units.
    pub(super) fn map_box(&self, left: f64, top: f64, width: f64, height: f64) -> PageBox {
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
pub(super) struct TsvWord<'a> {
    line_key: (u32, u32, u32),
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    confidence: f64,
    text: &'a str,
}

pub(super) fn parse_tsv_word(row: &str) -> Option<TsvWord<'_>> {
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
pub(super) fn page_from_tsv(tsv: &str, geometry: &PageGeometry, frame: CoordinateFrame) -> Page {
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
        recogniser: Some(doc_model::Recogniser::Tesseract),
    }
}

/// A horizontal gap wider than this many glyph heights inside one Tesseract line separates two
/// columns or two table cells, not two words (a justified space stays under one glyph height).
pub(super) const GUTTER_GLYPHS: f64 = 2.0;

/// Splits a line's words (left to right) where Tesseract ran a line across a column gutter or a
/// table's cells: its page segmentation misses narrow gutters, and a line spanning two columns
/// would defeat column detection.
pub(super) fn split_at_gutters(words: Vec<Word>, glyph_height: Option<f64>) -> Vec<Vec<Word>> {
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

pub(super) fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    Some(sorted[sorted.len() / 2])
}
