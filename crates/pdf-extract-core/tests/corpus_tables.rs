//! Three real tables of camelot's test PDFs (testdata/tables, MIT), read through the loader,
//! the text extractor and the table finder as `/document` reads them, compared cell for cell
//! with the grids camelot's own tests record for them, and their Markdown snapshotted: a ruled
//! table turned a quarter, a ruled table with cells merged across columns, and a whitespace
//! table whose columns are split by one-space gutters.

use std::path::PathBuf;

use doc_analysis::tables::find_tables;
use doc_model::{Table, TableMethod};
use pdf_extract_core::{Limits, PdfDocument};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/tables")
        .join(name)
}

/// Cell text as compared: runs of whitespace collapsed (camelot keeps a cell's line breaks, we
/// keep its words; the words must be the same).
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The grid camelot records for `name` (its first expectation).
fn expected(name: &str) -> Vec<Vec<String>> {
    let path = fixture(&format!("expected/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let spec: Value = serde_json::from_str(&text).expect("expectation JSON");
    spec["expectations"][0]["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|row| {
            row.as_array()
                .expect("row")
                .iter()
                .map(|cell| normalise(cell.as_str().expect("cell text")))
                .collect()
        })
        .collect()
}

/// Page 1's tables.
fn tables(name: &str) -> Vec<Table> {
    let bytes = std::fs::read(fixture(&format!("{name}.pdf"))).expect("fixture");
    let doc = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("loads");
    let page = doc.extract_page(1).expect("extracts");
    find_tables(&page)
}

/// The one table of `name` of camelot's shape, equal to camelot's grid in every cell.
fn checked(name: &str, method: TableMethod) -> Table {
    let expected = expected(name);
    let found = tables(name);
    let shapes: Vec<(u32, u32)> = found.iter().map(|t| (t.rows, t.cols)).collect();
    let shape = (expected.len(), expected[0].len());
    let table = found
        .into_iter()
        .find(|t| (t.rows as usize, t.cols as usize) == shape)
        .unwrap_or_else(|| panic!("{name}: no {shape:?} table among {shapes:?}"));
    assert_eq!(table.method, method, "{name}");
    let ours: Vec<Vec<String>> = table
        .matrix
        .iter()
        .map(|row| row.iter().map(|cell| normalise(cell)).collect())
        .collect();
    for (r, (our_row, expected_row)) in ours.iter().zip(&expected).enumerate() {
        for (c, (our_cell, expected_cell)) in our_row.iter().zip(expected_row).enumerate() {
            assert_eq!(our_cell, expected_cell, "{name}: row {r}, column {c}");
        }
    }
    table
}

#[test]
fn a_ruled_table_turned_clockwise_is_read_upright_cell_for_cell() {
    let table = checked("clockwise_table_1", TableMethod::Ruling);
    // Boxes stay in the page's own frame: the turned table stands taller than wide there.
    assert!(table.bbox.h > table.bbox.w, "box {:?}", table.bbox);
    insta::assert_snapshot!("clockwise_table_1", table.markdown);
}

#[test]
fn a_ruled_table_with_cells_merged_across_columns_matches_cell_for_cell() {
    let table = checked("column_span_2", TableMethod::Ruling);
    assert!(
        table
            .cells
            .iter()
            .any(|cell| cell.col_span > 1 && cell.merged),
        "the merged cells are spans: {:?}",
        table.cells.iter().map(|c| c.col_span).collect::<Vec<_>>()
    );
    insta::assert_snapshot!("column_span_2", table.markdown);
}

#[test]
fn a_whitespace_table_with_one_space_gutters_matches_cell_for_cell() {
    let table = checked("stream_inner_outer_columns", TableMethod::Alignment);
    insta::assert_snapshot!("stream_inner_outer_columns", table.markdown);
}
