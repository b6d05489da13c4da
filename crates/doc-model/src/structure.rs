//! Blocks, tables, key-value pairs and the whole no-schema document answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::code::Code;
use crate::embedded::{EmbeddedInvoice, LineItem};
use crate::geometry::PageBox;
use crate::header::HeaderFields;
use crate::text::{Confidence, Method, Page};

/// The type of a block. On the wire in English; the German names of the same vocabulary are
/// given by [`BlockKind::german`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// A title or section heading.
    Heading,
    /// Running text.
    Paragraph,
    /// Bulleted or numbered items.
    List,
    /// A table (its cells are in the answer's tables).
    Table,
    /// A caption of a figure or table.
    Caption,
    /// A footnote.
    Footnote,
}

impl BlockKind {
    /// The German name of the same type (ueberschrift, absatz, liste, tabelle,
    /// bildunterschrift, fussnote).
    pub fn german(self) -> &'static str {
        match self {
            Self::Heading => "ueberschrift",
            Self::Paragraph => "absatz",
            Self::List => "liste",
            Self::Table => "tabelle",
            Self::Caption => "bildunterschrift",
            Self::Footnote => "fussnote",
        }
    }
}

/// A typed block of text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Block {
    /// Position in the page's reading order, from 0.
    pub order: u32,
    /// Its type.
    pub kind: BlockKind,
    /// The text; lines of a paragraph joined by spaces, list items by newlines.
    pub text: String,
    /// Its box.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// Mean of its words' confidences.
    pub confidence: Confidence,
    /// Confidence below 0.5: shown as read, never smoothed over.
    pub low_confidence: bool,
    /// The column it stands in, from 0.
    pub column: u32,
    /// The language it was read in (Tesseract code such as `deu`), when known.
    pub language: Option<String>,
}

/// How a table was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableMethod {
    /// From ruling lines (a lattice).
    Ruling,
    /// From the alignment of text in columns (no or incomplete rulings).
    Alignment,
}

/// One cell of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cell {
    /// Row, from 0.
    pub row: u32,
    /// Column, from 0.
    pub col: u32,
    /// Rows covered (vertical merges are not guessed: 1 unless rulings prove more).
    pub row_span: u32,
    /// Columns covered.
    pub col_span: u32,
    /// Spans several columns or rows.
    pub merged: bool,
    /// The text, its lines joined by newlines.
    pub text: String,
    /// Its box.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// The box of each line of text inside the cell.
    pub line_boxes: Vec<PageBox>,
    /// Mean confidence of its words (1 for a text layer; 0 for an empty cell).
    pub confidence: Confidence,
}

/// A table: a grid of cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Table {
    /// Page number, from 1.
    pub page: u32,
    /// Its box.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// How it was found.
    pub method: TableMethod,
    /// Text layer or OCR.
    pub source: Method,
    /// Number of rows.
    pub rows: u32,
    /// Number of columns.
    pub cols: u32,
    /// Mean confidence of its non-empty cells.
    pub confidence: Confidence,
    /// The cells, row by row; a merged cell appears once, at its top-left position.
    pub cells: Vec<Cell>,
    /// The cell texts as a `rows` × `cols` matrix; a merged cell's text stands at its top-left
    /// position and the positions it covers are empty strings.
    pub matrix: Vec<Vec<String>>,
    /// GitHub-flavoured markdown rendering of the matrix (first row as header).
    pub markdown: String,
}

impl Table {
    /// A table from its cells: the matrix, the markdown, the box and the confidence are
    /// derived. `None` when there are no cells or a cell lies outside `rows` × `cols`.
    pub fn new(
        page: u32,
        method: TableMethod,
        source: Method,
        rows: u32,
        cols: u32,
        mut cells: Vec<Cell>,
    ) -> Option<Self> {
        if cells.is_empty() || rows == 0 || cols == 0 {
            return None;
        }
        cells.sort_by_key(|c| (c.row, c.col));
        let mut matrix = vec![vec![String::new(); cols as usize]; rows as usize];
        for cell in &cells {
            let row = matrix.get_mut(cell.row as usize)?;
            *row.get_mut(cell.col as usize)? = cell.text.clone();
        }
        let bbox = PageBox::union_all(cells.iter().map(|c| &c.bbox))?;
        let confidence = Confidence::mean(
            cells
                .iter()
                .filter(|c| !c.text.is_empty())
                .map(|c| c.confidence),
        )
        .unwrap_or(Confidence::NONE);
        let markdown = markdown(&matrix);
        Some(Self {
            page,
            bbox,
            method,
            source,
            rows,
            cols,
            confidence,
            cells,
            matrix,
            markdown,
        })
    }
}

fn markdown(matrix: &[Vec<String>]) -> String {
    let escape = |s: &str| s.replace('|', "\\|").replace('\n', "<br>");
    let row_line = |row: &[String]| {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        format!("| {} |", cells.join(" | "))
    };
    let mut out = Vec::with_capacity(matrix.len() + 1);
    if let Some(first) = matrix.first() {
        out.push(row_line(first));
        out.push(format!("|{}", " --- |".repeat(first.len())));
    }
    for row in matrix.iter().skip(1) {
        out.push(row_line(row));
    }
    out.join("\n")
}

/// How the label and the value of a pair are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyValueLayout {
    /// `Label: value` on one line.
    Inline,
    /// Label and value in aligned columns of the same line.
    Columns,
    /// Label above its value.
    Stacked,
}

/// A label and its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KeyValue {
    /// The label as printed, without the trailing colon.
    pub key: String,
    /// The value as printed.
    pub value: String,
    /// Page number, from 1.
    pub page: u32,
    /// The label's box.
    pub key_box: PageBox,
    /// The value's box.
    pub value_box: PageBox,
    /// How label and value are arranged.
    pub layout: KeyValueLayout,
    /// Text layer or OCR.
    pub source: Method,
    /// Confidence of the pairing times the words' confidence.
    pub confidence: Confidence,
}

/// The answer of `/document` without a caller schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DocumentExtraction {
    /// Number of pages processed (the selected pages).
    pub pages_processed: u32,
    /// Header data of invoices and similar documents; fields not found are null.
    pub header: HeaderFields,
    /// Every table found, in page order.
    pub tables: Vec<Table>,
    /// Every key-value pair found, in page and reading order.
    pub key_values: Vec<KeyValue>,
    /// Every barcode and QR code found.
    pub codes: Vec<Code>,
    /// The processed pages with their method and their lines with positions.
    pub pages: Vec<Page>,
    /// The e-invoice XML the PDF carries (ZUGFeRD, Factur-X, XRechnung); null when it has none.
    pub embedded_invoice: Option<EmbeddedInvoice>,
    /// The invoice lines of the printed line-item table (description, quantity, unit price,
    /// line total, each row with its box); empty when no table reads as one.
    #[serde(default)]
    pub line_items: Vec<LineItem>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: u32, col: u32, col_span: u32, text: &str) -> Cell {
        let x = f64::from(col) * 50.0;
        Cell {
            row,
            col,
            row_span: 1,
            col_span,
            merged: col_span > 1,
            text: text.into(),
            bbox: PageBox::from_edges(
                1,
                x,
                f64::from(row) * 10.0,
                x + 50.0 * f64::from(col_span),
                f64::from(row + 1) * 10.0,
            ),
            line_boxes: Vec::new(),
            confidence: Confidence::CERTAIN,
        }
    }

    #[test]
    fn table_matrix_and_markdown() {
        let table = Table::new(
            1,
            TableMethod::Ruling,
            Method::TextLayer,
            2,
            2,
            vec![
                cell(1, 0, 1, "a|b"),
                cell(1, 1, 1, "2"),
                cell(0, 0, 2, "Head"),
            ],
        )
        .expect("cells fit");
        assert_eq!(
            table.matrix,
            vec![
                vec!["Head".to_string(), String::new()],
                vec!["a|b".into(), "2".into()]
            ]
        );
        assert_eq!(table.markdown, "| Head |  |\n| --- | --- |\n| a\\|b | 2 |");
        assert_eq!(table.bbox, PageBox::from_edges(1, 0.0, 0.0, 100.0, 20.0));
    }

    #[test]
    fn table_rejects_cells_outside_the_grid() {
        assert!(
            Table::new(
                1,
                TableMethod::Alignment,
                Method::Ocr,
                1,
                1,
                vec![cell(0, 1, 1, "x")]
            )
            .is_none()
        );
    }

    #[test]
    fn german_names() {
        assert_eq!(BlockKind::Caption.german(), "bildunterschrift");
    }
}

/// How one page of an `/ocr` answer was read and laid out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OcrPageLayout {
    /// Page number, from 1 (1 for a single image).
    pub page: u32,
    /// Text layer (PDF pages that carry one) or OCR.
    pub method: crate::text::PageMethod,
    /// Width of the page's pixel frame.
    pub width: f64,
    /// Height of the page's pixel frame.
    pub height: f64,
    /// Resolution of the pixel frame, when known (rendered PDF pages; images that declare it).
    pub dpi: Option<f64>,
    /// Clockwise quarter-turn applied to make the page upright (EXIF, PDF `/Rotate` or found by
    /// orientation detection), degrees.
    pub rotation: u32,
    /// Skew of the text lines found before reading, degrees, positive when they run downwards
    /// to the right; corrected when at least 0.3 degrees.
    pub skew_degrees: f64,
    /// Number of text columns.
    pub columns: u32,
    /// The recogniser that read the page (`tesseract` or `pp_ocr`); absent on pages read from
    /// their text layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recogniser: Option<crate::text::Recogniser>,
}

/// The language one block was read in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BlockLanguage {
    /// Page of the block.
    pub page: u32,
    /// Index of the block in the answer's `blocks`.
    pub block: u32,
    /// Tesseract language code (`deu`, `eng`), or null when the block gives no evidence.
    pub language: Option<String>,
}

/// The `layout` part of an `/ocr` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OcrLayout {
    /// The frame every box of the answer is in (`pixels_top_left`).
    pub coordinate_frame: crate::geometry::CoordinateFrame,
    /// Most columns found on any page.
    pub columns: u32,
    /// Rotation applied to the first page, degrees clockwise.
    pub rotation: u32,
    /// Every page: method, size, rotation, skew, columns.
    pub pages: Vec<OcrPageLayout>,
    /// The language of every block.
    pub languages: Vec<BlockLanguage>,
}

/// The answer of `/ocr`. Parts not asked for in `want` are absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OcrExtraction {
    /// Number of pages processed (1 for an image).
    pub pages_processed: u32,
    /// Full text in reading order: paragraphs separated by a blank line, pages by a form feed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Every block, typed, in reading order page by page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<Block>>,
    /// Every table as cells, a matrix and markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<Table>>,
    /// Every barcode and QR code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codes: Option<Vec<Code>>,
    /// Columns, rotation, coordinate frame, language per block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<OcrLayout>,
}
