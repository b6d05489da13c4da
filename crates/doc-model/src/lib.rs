#![doc = include_str!("../README.md")]

mod code;
mod embedded;
mod geometry;
mod header;
mod structure;
mod text;

pub use code::{
    CalendarEvent, Code, CodePayload, EpcTransfer, SwissQrBill, Symbology, UncheckedUrl, VCard,
    Wifi,
};
pub use embedded::{EmbeddedInvoice, InvoiceSyntax, LineItem};
pub use geometry::{CoordinateFrame, PageBox, Point, Ruling};
pub use header::{HeaderField, HeaderFieldName, HeaderFields};
pub use structure::{
    Block, BlockKind, BlockLanguage, Cell, DocumentExtraction, KeyValue, KeyValueLayout,
    OcrExtraction, OcrLayout, OcrPageLayout, Table, TableMethod,
};
pub use text::{Confidence, Line, Method, Page, PageMethod, Provenance, Recogniser, Word};

/// Lines and blocks below this confidence are flagged `low_confidence` (spec rule 4).
pub const LOW_CONFIDENCE: f64 = 0.5;

/// Rounds a coordinate or a confidence for the wire: two decimals are a hundredth of a point
/// (or pixel), far below what any consumer can use, and keep snapshots stable across platforms.
pub fn round2(value: f64) -> f64 {
    if value.is_finite() {
        (value * 100.0).round() / 100.0
    } else {
        0.0
    }
}
