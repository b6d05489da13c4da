//! Block typing, columns and reading order on the generated two-column pages of
//! `testdata/ocr/` (German and English; see `generate.py` and `structure.json`). The snapshots
//! hold kinds, columns and languages in reading order; texts are compared with the known
//! content by similarity, so OCR noise in single characters does not break them.

use std::path::PathBuf;

use doc_model::BlockKind;
use ocr_core::engine::{EngineConfig, EnginePool, PageRequest, PixelBuffer};
use ocr_core::layout::{self, PageLayout};
use ocr_core::preprocess::{self, ImageLimits, ImageMime};
use serde_json::{Value, json};
use text_metrics::similarity;

#[path = "support/text_metrics.rs"]
mod text_metrics;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/ocr")
        .join(name)
}

fn laid_out(name: &str) -> (doc_model::Page, PageLayout) {
    let bytes = std::fs::read(testdata(name)).expect("fixture");
    let image = preprocess::load_image(&bytes, ImageMime::Png, &ImageLimits::default())
        .expect("loads")
        .image;
    let (image, _) = preprocess::deskew(&image);
    let pool = EnginePool::new(EngineConfig {
        engines: 1,
        ..EngineConfig::default()
    })
    .expect("Tesseract installed");
    let mut page = pool
        .recognize(PixelBuffer::from(&image), &PageRequest::pixels(1))
        .expect("recognised");
    let upright = preprocess::rotate_quarter(&image, page.rotation);
    let languages = vec!["deu".to_owned(), "eng".to_owned()];
    let layout = layout::analyze(&mut page, Some(&upright), &languages);
    (page, layout)
}

fn shape(layout: &PageLayout) -> Value {
    json!({
        "columns": layout.columns,
        "table_regions": layout.table_regions.len(),
        "blocks": layout.blocks.iter().map(|b| json!({
            "order": b.order,
            "kind": b.kind,
            "column": b.column,
            "language": b.language,
        })).collect::<Vec<_>>(),
    })
}

fn check_texts(lang: &str, layout: &PageLayout) {
    let structure: Value = serde_json::from_str(
        &std::fs::read_to_string(testdata("structure.json")).expect("structure.json"),
    )
    .expect("json");
    let spec = &structure[lang];
    let s = |key: &str| spec[key].as_str().expect("string").to_owned();
    let list = |key: &str| {
        spec[key]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let expected: Vec<(BlockKind, String)> = vec![
        (BlockKind::Heading, s("title")),
        (BlockKind::Heading, s("left_heading")),
        (BlockKind::Paragraph, s("left_text")),
        (BlockKind::List, list("list")),
        (BlockKind::Heading, s("right_heading")),
        (BlockKind::Paragraph, s("right_text")),
        (BlockKind::List, list("numbered")),
        (BlockKind::Table, String::new()),
        (BlockKind::Caption, s("caption")),
        (BlockKind::Footnote, s("footnote")),
    ];
    assert_eq!(layout.blocks.len(), expected.len(), "{:#?}", layout.blocks);
    for (block, (kind, text)) in layout.blocks.iter().zip(&expected) {
        assert_eq!(block.kind, *kind, "{block:?}");
        if block.kind == BlockKind::Table {
            continue;
        }
        // Bullets are often misread (`•` as `+` or `«`), so lists compare from the item text.
        let strip = |t: &str| {
            t.lines()
                .map(|l| l.trim_start_matches(|c: char| !c.is_alphanumeric()).trim())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let score = similarity(&strip(&block.text), &strip(text));
        assert!(score >= 0.95, "{score}: {:?} vs {text:?}", block.text);
        assert!(
            !block.low_confidence && block.confidence.value() > 0.8,
            "{block:?}"
        );
    }
    let table = &layout.blocks[7];
    let cells: Vec<&str> = table.text.split(['\t', '\n']).collect();
    for row in spec["table_rows"].as_array().expect("rows") {
        for cell in row.as_array().expect("cells") {
            assert!(
                cells.contains(&cell.as_str().expect("text")),
                "{cell} in {cells:?}"
            );
        }
    }
    // Paragraphs are kept as paragraphs in the text.
    assert_eq!(layout.text.split("\n\n").count(), layout.blocks.len());
}

#[test]
fn german_two_column_page() {
    let (page, layout) = laid_out("de.png");
    insta::assert_json_snapshot!("de_blocks", shape(&layout));
    check_texts("de", &layout);
    assert_eq!(page.columns, 2);
    // Rulings from the pixels are on the page for the table finder: 6 rows' rules and 4 columns.
    assert!(page.rulings.len() >= 10, "{}", page.rulings.len());
    assert_eq!(
        page.lines.iter().map(|l| l.order).collect::<Vec<_>>(),
        (0..page.lines.len() as u32).collect::<Vec<_>>()
    );
}

#[test]
fn english_two_column_page() {
    let (_, layout) = laid_out("en.png");
    insta::assert_json_snapshot!("en_blocks", shape(&layout));
    check_texts("en", &layout);
}

#[test]
fn turned_and_skewed_pages_give_the_same_layout() {
    let (_, upright) = laid_out("de.png");
    let (page, turned) = laid_out("de_rot90.png");
    assert_eq!(page.rotation, 270);
    assert_eq!(shape(&turned), shape(&upright));
    let (_, straight) = laid_out("en.png");
    let (_, skewed) = laid_out("en_skew3.png");
    assert_eq!(
        shape(&skewed)["blocks"].as_array().map(Vec::len),
        shape(&straight)["blocks"].as_array().map(Vec::len)
    );
    check_texts("en", &skewed);
}

#[test]
fn the_ruled_table_in_the_picture_has_its_cells_and_the_merged_header() {
    let (_, layout) = laid_out("de.png");
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(testdata("structure.json")).expect("structure.json"),
    )
    .expect("JSON");
    let table = layout
        .tables
        .iter()
        .find(|t| t.method == doc_model::TableMethod::Ruling)
        .unwrap_or_else(|| panic!("a ruled table: {:#?}", layout.tables));
    assert_eq!(table.cols, 3, "{}", table.markdown);
    let header = table
        .cells
        .iter()
        .find(|c| c.text.contains("Umsatz"))
        .unwrap_or_else(|| panic!("header cell: {}", table.markdown));
    assert_eq!(
        (header.col_span, header.merged),
        (2, true),
        "{}",
        table.markdown
    );
    assert_eq!(header.row_span, 1, "vertical merges are not guessed");
    let texts: Vec<&str> = table.matrix.iter().flatten().map(String::as_str).collect();
    for row in spec["de"]["table_rows"].as_array().expect("rows") {
        for cell in row.as_array().expect("cells") {
            let cell = cell.as_str().expect("text");
            assert!(texts.contains(&cell), "{cell} in {}", table.markdown);
        }
    }
    assert!(table.markdown.lines().count() >= 4, "{}", table.markdown);
}
