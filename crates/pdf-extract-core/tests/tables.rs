//! Table rules on small PDFs written here with lopdf (Helvetica text and stroked rulings),
//! through the real loader, text extractor and table finder: a turned table, a whitespace table
//! with section headings, a narrow gutter, cells over two lines, a header-only ruling, a
//! merged ruled cell, and a table whose text decodes to junk read again by OCR.

use std::sync::atomic::AtomicBool;

use doc_analysis::tables::find_tables;
use doc_model::{Method, Table, TableMethod};
use lopdf::{Document, Object, Stream, dictionary};
use pdf_extract_core::document::{
    ExtractError, ExtractOptions, PagePlan, PageRecognizer, extract_document,
};
use pdf_extract_core::{Limits, PageImage, PdfDocument};

const WIDTH: f64 = 595.0;
const HEIGHT: f64 = 842.0;
/// Helvetica's mean advance at size 9, near enough for placing test columns.
const SIZE: f64 = 9.0;

/// How the text of a test page is set.
#[derive(Clone, Copy, PartialEq)]
enum Set {
    Upright,
    /// Turned a quarter clockwise: reads top to bottom.
    Clockwise,
    /// Turned a quarter anticlockwise: reads bottom to top.
    Anticlockwise,
}

/// A text and where it starts: left, top (upright frame).
type Text = (&'static str, f64, f64);
/// A ruling from one end to the other: x0, y0, x1, y1 (upright frame).
type Rule = (f64, f64, f64, f64);

/// Escapes a string for a PDF literal.
fn literal(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

/// A one-page A4 PDF: `texts` as `(text, x, top)` in the table's upright frame (points, top
/// left, y down; `top` is the top of the glyphs), `rules` as `(x0, y0, x1, y1)` in that frame,
/// set on the page as `set` says.
fn pdf(set: Set, texts: &[(&str, f64, f64)], rules: &[(f64, f64, f64, f64)]) -> Vec<u8> {
    build(set, texts, &[], rules)
}

/// As [`pdf`], with `garbled` texts set in a second Helvetica whose `ToUnicode` map decodes
/// every byte `c` to U+`c`00 (CJK-looking junk, as a broken map does).
fn build(
    set: Set,
    texts: &[(&str, f64, f64)],
    garbled: &[(&str, f64, f64)],
    rules: &[(f64, f64, f64, f64)],
) -> Vec<u8> {
    // The frame's width and height: a turned frame is the page on its side.
    let map = |u: f64, v: f64| -> (f64, f64) {
        // Frame (u along the reading, v down) to PDF user space (y up).
        match set {
            Set::Upright => (u, HEIGHT - v),
            Set::Clockwise => (WIDTH - v, HEIGHT - u),
            Set::Anticlockwise => (v, u),
        }
    };
    let (a, b, c, d) = match set {
        Set::Upright => (1.0, 0.0, 0.0, 1.0),
        Set::Clockwise => (0.0, -1.0, 1.0, 0.0),
        Set::Anticlockwise => (0.0, 1.0, -1.0, 0.0),
    };
    let mut content = String::new();
    for (font, list) in [("F1", texts), ("F2", garbled)] {
        for (text, u, top) in list {
            let (x, y) = map(*u, top + 0.8 * SIZE);
            content.push_str(&format!(
                "BT /{font} {SIZE} Tf {a} {b} {c} {d} {x:.2} {y:.2} Tm ({}) Tj ET\n",
                literal(text)
            ));
        }
    }
    content.push_str("0.5 w\n");
    for (u0, v0, u1, v1) in rules {
        let (x0, y0) = map(*u0, *v0);
        let (x1, y1) = map(*u1, *v1);
        content.push_str(&format!("{x0:.2} {y0:.2} m {x1:.2} {y1:.2} l S\n"));
    }
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let entries: String = (0x20..0x7F)
        .map(|c| format!("<{c:02X}> <{c:02X}00>\n"))
        .collect();
    let cmap = format!(
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
         /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
         /CMapName /Junk def /CMapType 2 def\n1 begincodespacerange <00> <FF> endcodespacerange\n\
         {} beginbfchar\n{entries}endbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end\n",
        0x7F - 0x20
    );
    let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap.into_bytes()));
    let junk = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
        "ToUnicode" => to_unicode,
    });
    let content_id = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
    let pages_id = doc.new_object_id();
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font, "F2" => junk } },
        "MediaBox" => vec![0.into(), 0.into(), Object::Real(WIDTH as f32), Object::Real(HEIGHT as f32)],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![Object::Reference(page_id)],
            "Count" => 1,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("saves");
    bytes
}

fn tables(bytes: &[u8]) -> Vec<Table> {
    let doc = PdfDocument::load(bytes, &Limits::DOCUMENT).expect("loads");
    let page = doc.extract_page(1).expect("extracts");
    find_tables(&page)
}

fn rows(table: &Table) -> Vec<Vec<&str>> {
    table
        .matrix
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect()
}

/// A 4 × 3 ruled table in the upright frame, at `left`, `top`, columns 120 wide, rows 20 high.
fn ruled_grid(left: f64, top: f64) -> (Vec<Text>, Vec<Rule>) {
    let cells = [
        ["State", "Men", "Women"],
        ["Kerala", "2161", "3195"],
        ["Tamil Nadu", "2134", "2858"],
        ["Karnataka", "2467", "2894"],
    ];
    let mut texts = Vec::new();
    for (r, row) in cells.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            texts.push((
                *text,
                left + 5.0 + 120.0 * c as f64,
                top + 5.0 + 20.0 * r as f64,
            ));
        }
    }
    let mut rules = Vec::new();
    for r in 0..=4 {
        let y = top + 20.0 * r as f64;
        rules.push((left, y, left + 360.0, y));
    }
    for c in 0..=3 {
        let x = left + 120.0 * c as f64;
        rules.push((x, top, x, top + 80.0));
    }
    (texts, rules)
}

#[test]
fn turned_tables_come_out_upright_with_boxes_on_the_page() {
    for set in [Set::Clockwise, Set::Anticlockwise] {
        let (texts, rules) = ruled_grid(60.0, 100.0);
        let found = tables(&pdf(set, &texts, &rules));
        assert_eq!(found.len(), 1);
        let t = &found[0];
        assert_eq!((t.rows, t.cols, t.method), (4, 3, TableMethod::Ruling));
        assert_eq!(rows(t)[0], ["State", "Men", "Women"]);
        assert_eq!(rows(t)[2], ["Tamil Nadu", "2134", "2858"]);
        // The box is the turned table's box on the portrait page: 80 wide, 360 high.
        assert!((t.bbox.w - 80.0).abs() < 2.0, "{:?}", t.bbox);
        assert!((t.bbox.h - 360.0).abs() < 2.0, "{:?}", t.bbox);
        assert!(t.bbox.right() <= WIDTH && t.bbox.bottom() <= HEIGHT);
        // The first cell of the header lies at the table's top (clockwise: top right corner).
        let first = &t.cells[0];
        match set {
            Set::Clockwise => {
                assert!(first.bbox.y < t.bbox.y + 1.0 && first.bbox.right() > t.bbox.right() - 1.0)
            }
            _ => assert!(
                first.bbox.bottom() > t.bbox.bottom() - 1.0 && first.bbox.x < t.bbox.x + 1.0
            ),
        }
    }
}

#[test]
fn an_upright_ruled_table_is_left_as_it_is() {
    let (texts, rules) = ruled_grid(60.0, 100.0);
    let found = tables(&pdf(Set::Upright, &texts, &rules));
    assert_eq!(found.len(), 1);
    assert_eq!(rows(&found[0])[3], ["Karnataka", "2467", "2894"]);
    assert_eq!(found[0].source, Method::TextLayer);
}

/// Rows of `(text, x)` pieces, one row every `pitch` points from `top`.
fn rows_at(rows: &[&[(&'static str, f64)]], top: f64, pitch: f64) -> Vec<(&'static str, f64, f64)> {
    rows.iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter()
                .map(move |(t, x)| (*t, *x, top + pitch * r as f64))
        })
        .collect()
}

#[test]
fn section_headings_stay_inside_one_whitespace_table() {
    let texts = rows_at(
        &[
            &[("Item", 60.0), ("Quantity", 240.0), ("Price", 340.0)],
            &[("Fruit and nuts", 60.0)],
            &[("Apple", 60.0), ("3", 240.0), ("1.20", 340.0)],
            &[("Pear", 60.0), ("5", 240.0), ("0.80", 340.0)],
            &[("Walnut", 60.0), ("2", 240.0), ("2.10", 340.0)],
            &[("Vegetables", 60.0)],
            &[("Carrot", 60.0), ("2", 240.0), ("0.40", 340.0)],
            &[("Leek", 60.0), ("1", 240.0), ("1.10", 340.0)],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols, t.method), (8, 3, TableMethod::Alignment));
    assert_eq!(rows(t)[1], ["Fruit and nuts", "", ""]);
    assert_eq!(rows(t)[5], ["Vegetables", "", ""]);
    assert_eq!(rows(t)[7], ["Leek", "1", "1.10"]);
}

#[test]
fn a_heading_across_the_columns_is_one_merged_cell() {
    let texts = rows_at(
        &[
            &[("Item", 60.0), ("Quantity", 240.0), ("Price", 340.0)],
            &[("Apple", 60.0), ("3", 240.0), ("1.20", 340.0)],
            &[("Pear", 60.0), ("5", 240.0), ("0.80", 340.0)],
            &[("Prices of the second quarter, in euros per kilogram", 60.0)],
            &[("Carrot", 60.0), ("2", 240.0), ("0.40", 340.0)],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols), (5, 3));
    let heading = t.cells.iter().find(|c| c.row == 3).expect("heading cell");
    assert!(heading.merged && heading.col_span >= 2, "{heading:?}");
    assert!(heading.text.starts_with("Prices of the second quarter"));
}

#[test]
fn a_narrow_gutter_in_the_header_splits_where_the_data_columns_do() {
    // The header's columns are 8–9 points apart (closer than a segment gap of 1.2 glyph
    // heights, wider than two ordinary spaces), the data's wide.
    let texts = rows_at(
        &[
            &[
                ("Code", 60.0),
                ("Name", 90.0),
                ("Amount", 160.0),
                ("Share", 200.0),
            ],
            &[
                ("A1", 60.0),
                ("Alpha one", 90.0),
                ("12", 160.0),
                ("0.5", 200.0),
            ],
            &[
                ("B2", 60.0),
                ("Beta two", 90.0),
                ("7", 160.0),
                ("0.3", 200.0),
            ],
            &[("C3", 60.0), ("Gamma", 90.0), ("30", 160.0), ("0.2", 200.0)],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!(
        rows(t)[0],
        ["Code", "Name", "Amount", "Share"],
        "{}",
        t.markdown
    );
    assert_eq!(rows(t)[1], ["A1", "Alpha one", "12", "0.5"]);
}

#[test]
fn a_row_with_an_empty_first_cell_set_close_continues_the_row_above() {
    // Records 18 points apart; a wrapped description line 10 points under its record.
    let texts = vec![
        ("Pos", 60.0, 100.0),
        ("Description", 100.0, 100.0),
        ("Amount", 300.0, 100.0),
        ("1", 60.0, 118.0),
        ("Paper, white,", 100.0, 118.0),
        ("12.00", 300.0, 118.0),
        ("500 sheets", 100.0, 128.0),
        ("2", 60.0, 146.0),
        ("Toner", 100.0, 146.0),
        ("80.00", 300.0, 146.0),
        ("3", 60.0, 164.0),
        ("Stapler", 100.0, 164.0),
        ("9.50", 300.0, 164.0),
    ];
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols), (4, 3), "{}", t.markdown);
    assert_eq!(rows(t)[1], ["1", "Paper, white,\n500 sheets", "12.00"]);
    assert!(t.markdown.contains("Paper, white,<br>500 sheets"));
    // Evenly spaced lines are left as rows of their own.
    let even = rows_at(
        &[
            &[("Pos", 60.0), ("Description", 100.0), ("Amount", 300.0)],
            &[("1", 60.0), ("Paper", 100.0), ("12.00", 300.0)],
            &[("white", 100.0)],
            &[("2", 60.0), ("Toner", 100.0), ("80.00", 300.0)],
            &[("3", 60.0), ("Stapler", 100.0), ("9.50", 300.0)],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &even, &[]));
    assert_eq!(found[0].rows, 5, "{}", found[0].markdown);
}

#[test]
fn header_only_and_outer_box_rulings_read_as_whitespace_tables() {
    let body = rows_at(
        &[
            &[("Country", 60.0), ("Capital", 200.0), ("Population", 340.0)],
            &[("France", 60.0), ("Paris", 200.0), ("68.4", 340.0)],
            &[("Spain", 60.0), ("Madrid", 200.0), ("48.6", 340.0)],
            &[("Italy", 60.0), ("Rome", 200.0), ("58.9", 340.0)],
        ],
        100.0,
        16.0,
    );
    let header_rule = [(55.0, 113.0, 420.0, 113.0)];
    let outer_box = [
        (55.0, 96.0, 420.0, 96.0),
        (55.0, 162.0, 420.0, 162.0),
        (55.0, 96.0, 55.0, 162.0),
        (420.0, 96.0, 420.0, 162.0),
    ];
    for rules in [&header_rule[..], &outer_box[..]] {
        let found = tables(&pdf(Set::Upright, &body, rules));
        assert_eq!(found.len(), 1, "{found:#?}");
        let t = &found[0];
        assert_eq!((t.rows, t.cols), (4, 3), "{}", t.markdown);
        assert_eq!(rows(t)[2], ["Spain", "Madrid", "48.6"]);
    }
}

#[test]
fn a_missing_ruling_merges_ruled_cells_across_columns() {
    let (texts, mut rules) = ruled_grid(60.0, 100.0);
    // No ruling between "Men" and "Women" in the header row: one cell over two columns.
    rules.retain(|r| !(r.0 == 300.0 && r.1 == 100.0));
    rules.push((300.0, 120.0, 300.0, 180.0));
    let found = tables(&pdf(Set::Upright, &texts, &rules));
    assert_eq!(found.len(), 1);
    let t = &found[0];
    let header = t
        .cells
        .iter()
        .find(|c| c.row == 0 && c.col == 1)
        .expect("merged cell");
    assert_eq!((header.col_span, header.row_span), (2, 1));
    assert_eq!(header.text, "Men Women");
    assert_eq!(rows(t)[0], ["State", "Men Women", ""]);
    assert_eq!(rows(t)[1], ["Kerala", "2161", "3195"]);
}

/// Stands in for the OCR engine: reads the page as the words it was built with.
struct KnownWords(Vec<(&'static str, f64, f64)>);

impl PageRecognizer for KnownWords {
    fn recognize(&self, _: &PageImage, page: u32) -> Result<doc_model::Page, ExtractError> {
        let lines = self
            .0
            .iter()
            .enumerate()
            .filter_map(|(order, (text, x, top))| {
                let words = text
                    .split(' ')
                    .scan(*x, |cursor, token| {
                        let width = 5.0 * token.chars().count() as f64;
                        let word = doc_model::Word {
                            text: token.to_string(),
                            bbox: doc_model::PageBox::from_edges(
                                page,
                                *cursor,
                                *top,
                                *cursor + width,
                                top + SIZE,
                            ),
                            confidence: doc_model::Confidence::new(0.9),
                        };
                        *cursor += width + 2.5;
                        Some(word)
                    })
                    .collect();
                let mut line = doc_model::Line::from_words(words, Some(SIZE))?;
                line.order = order as u32;
                Some(line)
            })
            .collect();
        Ok(doc_model::Page {
            page,
            width: WIDTH,
            height: HEIGHT,
            coordinate_frame: doc_model::CoordinateFrame::PdfPointsTopLeft,
            method: doc_model::PageMethod::Ocr,
            rotation: 0,
            columns: 1,
            lines,
            rulings: Vec::new(),
            recogniser: None,
        })
    }
}

#[test]
fn a_table_whose_text_decodes_to_junk_is_read_again_by_ocr() {
    let (cells, rules) = ruled_grid(60.0, 300.0);
    let prose: Vec<(&str, f64, f64)> = (0..8)
        .map(|i| {
            (
                "A readable paragraph above the table, in a font that decodes.",
                60.0,
                100.0 + 14.0 * i as f64,
            )
        })
        .collect();
    let bytes = build(Set::Upright, &prose, &cells, &rules);
    let document = PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("loads");
    let plan = [PagePlan {
        page: 1,
        text_layer: true,
    }];
    let options = ExtractOptions {
        workers: 1,
        ..ExtractOptions::default()
    };
    let answer = extract_document(
        &document,
        &plan,
        &KnownWords(cells.clone()),
        None,
        &options,
        &AtomicBool::new(false),
    )
    .expect("extracts");
    let t = answer
        .tables
        .iter()
        .find(|t| t.method == TableMethod::Ruling)
        .expect("the ruled table");
    assert_eq!(t.source, Method::Ocr);
    assert_eq!(rows(t)[2], ["Tamil Nadu", "2134", "2858"]);
    assert!((t.confidence.value() - 0.9).abs() < 1e-9);
    // The page's own text stays the text layer's.
    assert!(answer.pages[0].text().contains("A readable paragraph"));
}

/// Three tables shaped like the corpus's (camelot's test PDFs are not in the repository): a
/// turned ruled table with a merged header over two header rows, a whitespace table of a fund
/// report with group headings, and a wide whitespace listing with a narrow-gutter header.
#[test]
fn markdown_of_corpus_like_tables() {
    // Turned (clockwise), ruled: "Blood Pressure" over "Men" and "Women".
    let mut texts = vec![
        ("State", 65.0, 105.0),
        ("Blood Pressure", 185.0, 105.0),
        ("Men", 185.0, 125.0),
        ("Women", 305.0, 125.0),
    ];
    let data = [
        ("Kerala", "2161", "3195"),
        ("Tamil Nadu", "2134", "2858"),
        ("Karnataka", "2467", "2894"),
        ("Andhra Pradesh", "1899", "2493"),
    ];
    for (r, (state, men, women)) in data.iter().enumerate() {
        let top = 145.0 + 20.0 * r as f64;
        texts.extend([
            (*state, 65.0, top),
            (*men, 185.0, top),
            (*women, 305.0, top),
        ]);
    }
    let mut rules = Vec::new();
    for y in [100.0, 140.0, 160.0, 180.0, 200.0, 220.0] {
        rules.push((60.0, y, 420.0, y));
    }
    rules.push((180.0, 120.0, 420.0, 120.0));
    for x in [60.0, 180.0, 420.0] {
        rules.push((x, 100.0, x, 220.0));
    }
    rules.push((300.0, 120.0, 300.0, 220.0));
    let turned = tables(&pdf(Set::Clockwise, &texts, &rules));
    assert_eq!(turned.len(), 1);
    insta::assert_snapshot!("turned_ruled_merged_header", turned[0].markdown);

    let fund = rows_at(
        &[
            &[("Key figures", 60.0), ("2016", 400.0)],
            &[("Class A", 60.0)],
            &[
                ("Net Asset Value at 31 December", 60.0),
                ("5,111,372", 400.0),
            ],
            &[("Number of outstanding units", 60.0), ("49,136", 400.0)],
            &[("Class B", 60.0)],
            &[
                ("Net Asset Value at 31 December", 60.0),
                ("49,144,825", 400.0),
            ],
            &[("Number of outstanding units", 60.0), ("471,555", 400.0)],
            &[("Investment result", 60.0)],
            &[("Revaluation", 60.0), ("2,076,667", 400.0)],
            &[("Costs", 60.0), ("(106,870)", 400.0)],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &fund, &[]));
    assert_eq!(found.len(), 1);
    insta::assert_snapshot!("fund_report_with_group_headings", found[0].markdown);

    let listing = rows_at(
        &[
            &[
                ("License", 40.0),
                ("Type", 80.0),
                ("DBA name", 112.0),
                ("City", 260.0),
                ("Expires", 350.0),
            ],
            &[
                ("648765", 40.0),
                ("AAA", 80.0),
                ("ALLEGIANT AIR", 112.0),
                ("TULSA", 260.0),
                ("2014/12/03", 350.0),
            ],
            &[
                ("82030", 40.0),
                ("AAA", 80.0),
                ("AMERICAN | AIRLINES", 112.0),
                ("OKLAHOMA CITY", 260.0),
                ("2014/09/14", 350.0),
            ],
            &[
                ("625422", 40.0),
                ("BAW", 80.0),
                ("A SENSU JAPANESE", 112.0),
                ("TULSA", 260.0),
                ("2015/02/14", 350.0),
            ],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &listing, &[]));
    assert_eq!(found.len(), 1);
    insta::assert_snapshot!("listing_with_narrow_gutters", found[0].markdown);
}

#[test]
fn title_and_heading_lines_aligned_with_a_column_above_a_table_belong_to_it() {
    let mut texts = vec![
        // Prose reaching across both columns stays outside the table.
        (
            "This notice lists the key figures of the fund for the whole year of its launch.",
            60.0,
            72.0,
        ),
        ("Key figures", 60.0, 86.0),
        ("2016", 340.0, 100.0),
        ("Class A", 60.0, 114.0),
    ];
    texts.extend(rows_at(
        &[
            &[("Net asset value", 60.0), ("5,111,372", 340.0)],
            &[("Units outstanding", 60.0), ("49,136", 340.0)],
            &[("Value per unit", 60.0), ("104.03", 340.0)],
        ],
        128.0,
        14.0,
    ));
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols), (6, 2), "{}", t.markdown);
    assert_eq!(rows(t)[0], ["Key figures", ""]);
    assert_eq!(rows(t)[1], ["", "2016"]);
    assert_eq!(rows(t)[2], ["Class A", ""]);
    assert_eq!(rows(t)[5], ["Value per unit", "104.03"]);
}

#[test]
fn a_footnote_under_a_table_is_no_row_of_it() {
    let mut texts = rows_at(
        &[
            &[("State", 60.0), ("Growth", 240.0), ("Debt", 340.0)],
            &[("Kerala", 60.0), ("4.1", 240.0), ("29.03", 340.0)],
            &[("Punjab", 60.0), ("1.9", 240.0), ("19.18", 340.0)],
            &[("Assam", 60.0), ("2.4", 240.0), ("12.69", 340.0)],
        ],
        100.0,
        14.0,
    );
    // The note's mark and its text: two segments, both in the first column.
    texts.push(("1", 60.0, 160.0));
    texts.push(("Estimated", 80.0, 160.0));
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols), (4, 3), "{}", t.markdown);
    assert_eq!(rows(t)[3], ["Assam", "2.4", "12.69"]);
}

#[test]
fn labels_centred_between_two_header_lines_join_the_upper_line() {
    // A two-line header ("Code" over "state"), single-line labels set half a line lower
    // between its lines.
    let mut texts = vec![
        ("Code", 60.0, 100.0),
        ("Code", 200.0, 100.0),
        ("Name of state", 100.0, 105.0),
        ("Name of town", 240.0, 105.0),
        ("state", 60.0, 110.0),
        ("town", 200.0, 110.0),
    ];
    texts.extend(rows_at(
        &[
            &[
                ("01", 60.0),
                ("Kerala", 100.0),
                ("001", 200.0),
                ("Kochi", 240.0),
            ],
            &[
                ("01", 60.0),
                ("Kerala", 100.0),
                ("002", 200.0),
                ("Kollam", 240.0),
            ],
            &[
                ("02", 60.0),
                ("Goa", 100.0),
                ("001", 200.0),
                ("Panaji", 240.0),
            ],
        ],
        126.0,
        14.0,
    ));
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols), (5, 4), "{}", t.markdown);
    assert_eq!(
        rows(t)[0],
        ["Code", "Name of state", "Code", "Name of town"]
    );
    assert_eq!(rows(t)[1], ["state", "", "town", ""]);
    assert_eq!(rows(t)[2], ["01", "Kerala", "001", "Kochi"]);
}

#[test]
fn a_column_edge_the_rows_align_on_splits_a_gutter_of_one_space() {
    // Right-aligned licence numbers (ending at x = 100; Helvetica digits are 5 points wide at
    // size 9) followed, one space-width later, by a left-aligned type code: no segment gap, no
    // gutter wider than two spaces, but an edge running text cannot make. The names all begin
    // with "Domaine": the same word in every row aligns both its ends and is no column edge.
    let texts = rows_at(
        &[
            &[
                ("No.", 70.0),
                ("Type", 103.0),
                ("Name", 200.0),
                ("Amount", 360.0),
            ],
            &[
                ("648765", 70.0),
                ("AAA", 103.0),
                ("Domaine de la Rose", 200.0),
                ("12", 360.0),
            ],
            &[
                ("82030", 75.0),
                ("AAB", 103.0),
                ("Domaine Alpha", 200.0),
                ("7", 360.0),
            ],
            &[
                ("509462", 70.0),
                ("AAA", 103.0),
                ("Domaine des Pins", 200.0),
                ("30", 360.0),
            ],
            &[
                ("1234", 80.0),
                ("ABC", 103.0),
                ("Domaine Roc", 200.0),
                ("4", 360.0),
            ],
        ],
        100.0,
        14.0,
    );
    let found = tables(&pdf(Set::Upright, &texts, &[]));
    assert_eq!(found.len(), 1, "{found:#?}");
    let t = &found[0];
    assert_eq!((t.rows, t.cols), (5, 4), "{}", t.markdown);
    assert_eq!(rows(t)[0], ["No.", "Type", "Name", "Amount"]);
    assert_eq!(rows(t)[2], ["82030", "AAB", "Domaine Alpha", "7"]);
    assert_eq!(rows(t)[4], ["1234", "ABC", "Domaine Roc", "4"]);
}
