//! What pdf-extract reports for a page: glyphs in the displayed page's frame and rulings.

use doc_model::Ruling;

/// One glyph in the displayed page's frame (points, origin top-left, y down).
#[derive(Debug, Clone)]
pub(crate) struct Glyph {
    pub(crate) text: String,
    /// Origin on the baseline.
    pub(crate) x: f64,
    pub(crate) y: f64,
    /// Ink advance (glyph width) as a vector.
    pub(crate) advance: (f64, f64),
    /// Pen advance including character spacing, as a length.
    pub(crate) pen: f64,
    /// Up vector, its length the font size.
    pub(crate) up: (f64, f64),
    pub(crate) space: bool,
}

impl Glyph {
    pub(crate) fn size(&self) -> f64 {
        self.up.0.hypot(self.up.1)
    }
}

/// What pdf-extract reported for one page.
#[derive(Debug, Default)]
pub(crate) struct PageText {
    pub(crate) glyphs: Vec<Glyph>,
    pub(crate) rulings: Vec<Ruling>,
}
