//! Words, lines and pages, and where a value came from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::geometry::{CoordinateFrame, PageBox, Ruling};
use crate::{LOW_CONFIDENCE, round2};

/// A confidence in `0..=1`: 1 for text read from a text layer, the recogniser's own score for
/// OCR, an aggregate (mean of words) for lines, blocks and cells, 0 for "not located".
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Confidence(f64);

impl Confidence {
    /// Certain: read from the document's own text layer.
    pub const CERTAIN: Self = Self(1.0);
    /// Not located.
    pub const NONE: Self = Self(0.0);

    /// Clamped into `0..=1` (NaN becomes 0) and rounded to two decimals.
    pub fn new(value: f64) -> Self {
        if value.is_nan() {
            return Self::NONE;
        }
        Self(round2(value.clamp(0.0, 1.0)))
    }

    /// From a 0–100 percentage, as Tesseract reports it.
    pub fn from_percent(percent: f64) -> Self {
        Self::new(percent / 100.0)
    }

    /// The mean of several confidences; `None` for none.
    pub fn mean(values: impl IntoIterator<Item = Self>) -> Option<Self> {
        let (sum, count) = values
            .into_iter()
            .fold((0.0, 0usize), |(s, n), c| (s + c.0, n + 1));
        (count > 0).then(|| Self::new(sum / count as f64))
    }

    /// The value.
    pub fn value(self) -> f64 {
        self.0
    }

    /// Below [`LOW_CONFIDENCE`].
    pub fn is_low(self) -> bool {
        self.0 < LOW_CONFIDENCE
    }
}

/// How a value was located.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Read from the PDF's text layer.
    TextLayer,
    /// Recognised by OCR.
    Ocr,
    /// Taken from a key-value pair of the document (`Label: value` and its variants).
    KeyValue,
    /// Matched against a known field vocabulary (invoice and order labels, DE and EN).
    Vocabulary,
    /// Found by a pattern (IBAN, VAT id, date, amount…).
    Pattern,
    /// Read from a table cell (a caller schema's array of objects mapped onto a table).
    Table,
    /// Read from the e-invoice XML embedded in the PDF (ZUGFeRD, Factur-X, XRechnung).
    EmbeddedXml,
}

/// Where a value came from: page, box and method.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Provenance {
    /// Page number, from 1.
    pub page: u32,
    /// The box of the value on that page.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// How it was located.
    pub method: Method,
}

/// How a page's text was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PageMethod {
    /// The page carries a usable text layer (an invisible OCR layer counts).
    TextLayer,
    /// The page was rendered and recognised.
    Ocr,
}

/// Which recogniser read a page's pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Recogniser {
    /// Tesseract's LSTM recogniser, with the request's languages.
    Tesseract,
    /// PaddleOCR's PP-OCRv4 text detector and recogniser (Latin letters without most
    /// diacritics, digits, punctuation; docs/decisions.md, "A second recogniser").
    PpOcr,
}

/// One word.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Word {
    /// The text.
    pub text: String,
    /// Its box.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// Confidence (1 for a text layer).
    pub confidence: Confidence,
}

/// One line of text: words on a common baseline within one column, left to right.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Line {
    /// Position in the page's reading order, from 0.
    pub order: u32,
    /// The column the line belongs to, from 0 (left to right); full-width lines are in 0.
    pub column: u32,
    /// The words joined by single spaces.
    pub text: String,
    /// Its box.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// Font size in the page's units (the glyph height for OCR), when known.
    pub font_size: Option<f64>,
    /// Mean of the words' confidences.
    pub confidence: Confidence,
    /// Confidence below 0.5: shown as read, never smoothed over.
    pub low_confidence: bool,
    /// The words.
    pub words: Vec<Word>,
}

impl Line {
    /// A line from its words (in left-to-right order): text, box and confidence are derived.
    /// `None` for no words.
    pub fn from_words(words: Vec<Word>, font_size: Option<f64>) -> Option<Self> {
        let bbox = PageBox::union_all(words.iter().map(|w| &w.bbox))?;
        let confidence =
            Confidence::mean(words.iter().map(|w| w.confidence)).unwrap_or(Confidence::NONE);
        let text = words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        Some(Self {
            order: 0,
            column: 0,
            text,
            bbox,
            font_size: font_size.map(round2),
            confidence,
            low_confidence: confidence.is_low(),
            words,
        })
    }
}

/// One page with its lines in reading order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    /// Page number in the file, from 1.
    pub page: u32,
    /// Width in the page's frame.
    pub width: f64,
    /// Height in the page's frame.
    pub height: f64,
    /// Units and origin of every box on this page.
    pub coordinate_frame: CoordinateFrame,
    /// Text layer or OCR.
    pub method: PageMethod,
    /// Clockwise rotation applied before reading (PDF `/Rotate`, or found by OCR), degrees.
    pub rotation: u32,
    /// Number of text columns found.
    pub columns: u32,
    /// Lines in reading order.
    pub lines: Vec<Line>,
    /// Ruling lines (for table detection); not part of the answer.
    #[serde(skip)]
    pub rulings: Vec<Ruling>,
    /// The recogniser that read the page (`tesseract` or `pp_ocr`); absent on pages read from
    /// their text layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recogniser: Option<Recogniser>,
}

impl Page {
    /// The page's text, line by line in reading order.
    pub fn text(&self) -> String {
        self.lines
            .iter()
            .map(|l| l.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn word(text: &str, x: f64, conf: f64) -> Word {
        Word {
            text: text.into(),
            bbox: PageBox::from_edges(1, x, 10.0, x + 20.0, 20.0),
            confidence: Confidence::new(conf),
        }
    }

    #[test]
    fn line_from_words_derives_text_box_confidence() {
        let line = Line::from_words(
            vec![word("Rechnung", 10.0, 0.9), word("Nr.", 40.0, 0.3)],
            Some(10.0),
        )
        .expect("two words");
        assert_eq!(line.text, "Rechnung Nr.");
        assert_eq!(line.bbox, PageBox::from_edges(1, 10.0, 10.0, 60.0, 20.0));
        assert_eq!(line.confidence.value(), 0.6);
        assert!(!line.low_confidence);
        assert!(Line::from_words(Vec::new(), None).is_none());
    }

    #[test]
    fn low_confidence_is_flagged() {
        let line = Line::from_words(vec![word("x", 0.0, 0.49)], None).expect("one word");
        assert!(line.low_confidence);
    }

    proptest! {
        #[test]
        fn confidence_is_always_in_range(v in proptest::num::f64::ANY) {
            let c = Confidence::new(v).value();
            prop_assert!((0.0..=1.0).contains(&c));
        }
    }
}
