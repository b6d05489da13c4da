//! Receipt layout on generated till receipts (`testdata/receipt-layout`, made by the committed
//! scripts named in its README): the shop name a heading, the item lines one table with one row
//! per item and the prices in one column, the totals a table of their own, blocks top to
//! bottom. The truths (item count, prices, total) are the generator's.

use doc_model::{BlockKind, Page, Table};
use ocr_core::layout::{PageLayout, analyze};

fn lay_out(name: &str) -> (Page, PageLayout) {
    let path = format!(
        "{}/../../testdata/receipt-layout/{name}.page.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut page: Page =
        serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("page json");
    let layout = analyze(&mut page, None, &[]);
    (page, layout)
}

fn kinds(layout: &PageLayout) -> Vec<BlockKind> {
    layout.blocks.iter().map(|b| b.kind).collect()
}

/// The item table: the first table; its last column of amounts is the price column.
fn items(layout: &PageLayout) -> &Table {
    layout.tables.first().expect("an item table")
}

fn column(table: &Table, col: usize) -> Vec<&str> {
    table.matrix.iter().map(|r| r[col].as_str()).collect()
}

fn assert_common(layout: &PageLayout, rows: usize, heading: &str, total: &str) {
    let kinds = kinds(layout);
    assert_eq!(kinds[0], BlockKind::Heading, "{kinds:?}");
    assert!(
        layout.blocks[0].text.contains(heading),
        "{}",
        layout.blocks[0].text
    );
    // Blocks top to bottom, orders 0..n.
    for (i, pair) in layout.blocks.windows(2).enumerate() {
        assert!(
            pair[1].bbox.y >= pair[0].bbox.y - 1.0,
            "block {i}: {pair:?}"
        );
    }
    assert!(
        layout
            .blocks
            .iter()
            .enumerate()
            .all(|(i, b)| b.order == i as u32)
    );
    let tables: Vec<usize> = (0..kinds.len())
        .filter(|&i| kinds[i] == BlockKind::Table)
        .collect();
    assert!(tables.len() >= 2, "{kinds:?}");
    let item_table = items(layout);
    assert_eq!(item_table.rows as usize, rows, "{}", item_table.markdown);
    // The totals: the next table, the total in its amount column.
    let totals = &layout.tables[1];
    assert_eq!(totals.cols, 2);
    assert!(
        totals.matrix.iter().any(|r| r[1].starts_with(total)),
        "{}",
        totals.markdown
    );
    assert!(totals.bbox.y > item_table.bbox.bottom() - 1.0);
    // Prices aligned: every price cell (column 3: description, quantity, unit price, price,
    // tax code) ends within three characters of the others (about 10 px each here: a slip
    // that prints a tax flag after some prices moves those left by the flag's width).
    let rights: Vec<f64> = item_table
        .cells
        .iter()
        .filter(|c| c.col == 3)
        .map(|c| c.bbox.right())
        .collect();
    assert_eq!(rights.len(), rows);
    let spread = rights.iter().fold(f64::MIN, |a, &b| a.max(b))
        - rights.iter().fold(f64::MAX, |a, &b| a.min(b));
    assert!(spread < 30.0, "{rights:?}");
}

#[test]
fn german_kassenbon_quantity_lines_above_their_items() {
    let (page, layout) = lay_out("de_kassenbon-01");
    assert_common(&layout, 14, "LEBENSMITTEL BECKER", "48,14");
    let table = items(&layout);
    assert_eq!(table.cols, 5, "{}", table.markdown);
    // `0,970 KG @ 14,00/KG` printed above `KÄSE THEKE 13,58`: 0.970 x 14.00 = 13.58.
    let row = table
        .matrix
        .iter()
        .find(|r| r[0].contains("KÄSE THEKE"))
        .expect("cheese row");
    assert_eq!(row[1..4], ["0,970 KG", "14,00/KG", "13,58"]);
    assert_eq!(column(table, 4)[0], "B");
    let discount = table
        .matrix
        .iter()
        .find(|r| r[0] == "RABATT")
        .expect("discount row");
    assert_eq!(discount[1..4], ["", "", "2,44-"]);
    // Lines in reading order top to bottom.
    assert!(
        page.lines
            .windows(2)
            .all(|w| w[1].bbox.y + 2.0 >= w[0].bbox.y)
    );
    assert_eq!(page.columns, 1);
}

#[test]
fn us_grocery_quantity_lines_below_their_items() {
    let (_, layout) = lay_out("us_grocery_sku-01");
    assert_common(&layout, 10, "MILLER'S", "$29.31");
    let table = items(&layout);
    // `2 x 2.99` printed under `MATURE CHEDDAR 200G 5.98`.
    assert_eq!(
        table.matrix[0][..4],
        ["45515831 MATURE CHEDDAR 200G", "2", "2.99", "5.98"]
    );
    assert_eq!(table.matrix[9][0], "SAVINGS");
}

#[test]
fn malaysian_description_rows_and_rounding_in_the_totals() {
    let (_, layout) = lay_out("my_mono_gst-01");
    assert_common(&layout, 10, "KEE FOOK", "98.40");
    let table = items(&layout);
    assert_eq!(
        table.matrix[0][..4],
        ["DARK CHOCOLATE 100G", "1", "3.75", "3.75"]
    );
    let totals = &layout.tables[1];
    assert_eq!(totals.matrix[0], ["ROUND ADJ", "(0.02)"]);
}

#[test]
fn column_headings_are_the_item_tables_first_row() {
    // `Qty Particulars U.Price Amount` above a rule above the items: the table's header row,
    // each heading over its column, and no paragraph of its own.
    let (_, layout) = lay_out("my_hardware_codes-01");
    assert_common(
        &layout,
        5,
        "PERMATA HENG BUILDING MATERIALS Sdn. Bhd.",
        "1,531.85",
    );
    let table = items(&layout);
    assert_eq!(
        table.matrix[0],
        ["Particulars", "Qty", "U.Price", "Amount", ""],
        "{}",
        table.markdown
    );
    assert_eq!(
        table.matrix[2],
        ["CEILING FAN 56\"", "5", "289.00", "1,445.00", "S"]
    );
    assert!(
        table
            .markdown
            .starts_with("| Particulars | Qty | U.Price | Amount |")
    );
    assert!(
        !layout
            .blocks
            .iter()
            .any(|b| b.kind != BlockKind::Table && b.text.contains("Particulars")),
        "{:?}",
        kinds(&layout)
    );
}

#[test]
fn a_logo_word_and_a_name_on_two_rows_make_one_heading() {
    // `UniPlus` (the brand) over `Harbour Oak Grocery` / `Pty. Ltd.` (the seller).
    let (_, layout) = lay_out("mixed_logo_franchise-01");
    assert_common(&layout, 6, "Harbour Oak Grocery Pty. Ltd.", "$27.10");
    assert_eq!(
        layout.blocks[0].text,
        "UniPlus Harbour Oak Grocery Pty. Ltd."
    );
    assert!(
        layout.blocks[1].text.starts_with("ABN"),
        "{}",
        layout.blocks[1].text
    );
    let table = items(&layout);
    assert_eq!(table.matrix[0], ["Beef Mince 500g", "2", "6.89", "13.78"]);
    let totals = &layout.tables[1];
    assert_eq!(totals.matrix[0], ["Subtotal", "27.11"]);
}

#[test]
fn a_wide_page_is_not_a_slip() {
    // The same receipt's lines spread over a page three times as wide read as before: no
    // slip tables.
    let (_, reference) = lay_out("de_kassenbon-01");
    assert!(!reference.tables.is_empty());
    let path = format!(
        "{}/../../testdata/receipt-layout/de_kassenbon-01.page.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut page: Page =
        serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("json");
    for line in &mut page.lines {
        if line.bbox.x > 300.0 {
            let shift = 1400.0;
            line.bbox.x += shift;
            for w in &mut line.words {
                w.bbox.x += shift;
            }
        }
    }
    page.width += 1400.0;
    let layout = analyze(&mut page, None, &[]);
    // The general layout makes table blocks only of ruled regions (none without a picture).
    let kinds = kinds(&layout);
    assert!(
        !kinds.is_empty() && !kinds.contains(&BlockKind::Table),
        "{kinds:?}"
    );
}

#[test]
fn blocks_snapshot() {
    let (_, layout) = lay_out("de_kassenbon-01");
    let text: Vec<String> = layout
        .blocks
        .iter()
        .map(|b| format!("[{:?}] {}", b.kind, b.text))
        .collect();
    insta::assert_snapshot!("de_kassenbon_blocks", text.join("\n"));
}
