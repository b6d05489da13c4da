//! Layout of a recognised page: ruling lines from the pixels, table regions, columns and
//! reading order, paragraphs, typed blocks (heading, paragraph, list, table, caption,
//! footnote) with their language, and the page's text in reading order.
//!
//! Columns and reading order come from [`doc_analysis::layout::order_lines`], the same code the
//! text-layer path uses. Table regions are ruled lattices found in the pixels; their lines are
//! kept out of paragraphs and read as one `table` block. The cell structure of a table is
//! built from `Page::rulings` and the words by the table finder that the PDF path uses too
//! (`doc_analysis::tables::find_tables`), which works on any page: [`analyze`] fills
//! `rulings` for it and returns its tables.
//!
//! Language per block: Tesseract's TSV does not say which model read a word, and running every
//! block through each model again would double the cost, so the language is decided from the
//! text itself: German and English function words (weight 2) and a few spelling cues
//! (umlauts, ß, `sch`, `-ung`, `-keit` against `th`, `-tion`, `-ing`, weight 1). A block with no
//! evidence, or a tie, has no language; with a single requested language every block has it.

use doc_analysis::layout::order_lines;
use doc_model::{Block, BlockKind, Confidence, Line, Page, PageBox, Ruling, Table, Word};

use crate::preprocess::GreyImage;

mod language;
mod receipt;
mod rulings;

pub use language::detect_language;
pub use rulings::{find_rulings, table_regions};

/// A recognised page laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct PageLayout {
    /// Typed blocks in reading order.
    pub blocks: Vec<Block>,
    /// Number of text columns.
    pub columns: u32,
    /// The page's text in reading order: blocks separated by a blank line, lines of a
    /// paragraph joined by spaces, list items and table rows on lines of their own.
    pub text: String,
    /// Ruled table regions (in the page's frame), in reading order.
    pub table_regions: Vec<PageBox>,
    /// Tables with their cells, from `doc_analysis::tables::find_tables` on the page with
    /// its rulings.
    pub tables: Vec<Table>,
}

/// Lays out a recognised page. `upright` is the picture the page was read from, turned upright
/// (see [`crate::preprocess::rotate_quarter`] with `page.rotation`); without it no rulings and so
/// no table regions are found. `languages` are the languages the page was read with.
///
/// The page is updated in place: its lines are put in reading order with their columns,
/// `columns` is set and `rulings` holds the ruling lines found in the pixels.
pub fn analyze(page: &mut Page, upright: Option<&GreyImage>, languages: &[String]) -> PageLayout {
    let body = body_glyph_height(&page.lines).unwrap_or(10.0);
    if let Some(image) = upright {
        let scale = if image.width() > 0 {
            page.width / f64::from(image.width())
        } else {
            1.0
        };
        page.rulings = find_rulings(image, body / scale)
            .into_iter()
            .map(|r| Ruling::new(r.x0 * scale, r.y0 * scale, r.x1 * scale, r.y1 * scale))
            .collect();
    }
    let regions = table_regions(&page.rulings, body);
    if regions.is_empty()
        && let Some(slip) = receipt::find_slip(&page.lines, body)
    {
        return analyze_slip(page, slip, body, languages);
    }

    // Lines inside a table region are set aside; the region takes part in the ordering as one
    // stand-in line, so it lands between the text above and below it.
    let lines = std::mem::take(&mut page.lines);
    let mut in_table: Vec<Vec<Line>> = regions.iter().map(|_| Vec::new()).collect();
    let mut to_order = Vec::with_capacity(lines.len() + regions.len());
    for line in lines {
        match regions
            .iter()
            .position(|r| r.contains_center_of(&line.bbox))
        {
            Some(i) => in_table[i].push(line),
            None => to_order.push(line),
        }
    }
    for (i, region) in regions.iter().enumerate() {
        to_order.push(stand_in(i, region));
    }
    let (ordered, columns) = order_lines(to_order, page.width);
    page.columns = columns.max(u32::from(!ordered.is_empty()));

    // Walk the reading order, turning stand-ins back into their lines.
    let mut items: Vec<Item> = Vec::new();
    let mut page_lines: Vec<Line> = Vec::new();
    let mut table_regions_in_order = Vec::new();
    for line in ordered {
        if let Some(i) = stand_in_index(&line).filter(|&i| i < regions.len()) {
            let mut rows = std::mem::take(&mut in_table[i]);
            rows.sort_by(|a, b| {
                a.bbox
                    .y
                    .total_cmp(&b.bbox.y)
                    .then(a.bbox.x.total_cmp(&b.bbox.x))
            });
            let region = regions[i];
            table_regions_in_order.push(region);
            let column = line.column;
            for mut row_line in rows.iter().cloned() {
                row_line.column = column;
                page_lines.push(row_line);
            }
            items.push(Item::Table {
                region,
                column,
                lines: rows,
            });
        } else {
            page_lines.push(line.clone());
            items.push(Item::Line(line));
        }
    }
    for (order, line) in page_lines.iter_mut().enumerate() {
        line.order = order as u32;
    }
    page.lines = page_lines;

    let mut blocks = group_blocks(items, body, page, &table_regions_in_order);
    for block in &mut blocks {
        block.language = detect_language(&block.text, languages);
    }
    let text = blocks
        .iter()
        .map(|b| b.text.as_str())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let tables = doc_analysis::tables::find_tables(page);
    PageLayout {
        blocks,
        columns: page.columns,
        text,
        table_regions: table_regions_in_order,
        tables,
    }
}

/// Lays out a till slip (see [`receipt`]): the rows top to bottom; the first row (the shop
/// name) a heading, the rest of the header and the footer grouped as on any page, the item
/// lines one table and the totals another, each a `table` block with its cells in `tables`.
fn analyze_slip(
    page: &mut Page,
    slip: receipt::Slip,
    body: f64,
    languages: &[String],
) -> PageLayout {
    let number = page.page;
    let items = receipt::item_table(&slip, number);
    let totals = receipt::totals_table(&slip, number);
    let row_lines = |range: std::ops::Range<usize>| -> Vec<Line> {
        slip.rows[range]
            .iter()
            .flat_map(|r| r.lines.iter().cloned())
            .collect()
    };
    let mut lines_in_order = Vec::new();
    for row in &slip.rows {
        lines_in_order.extend(row.lines.iter().cloned());
    }
    for (order, line) in lines_in_order.iter_mut().enumerate() {
        line.order = order as u32;
        line.column = 0;
    }
    page.lines = lines_in_order;
    page.columns = u32::from(!page.lines.is_empty());

    let mut blocks: Vec<Block> = Vec::new();
    let header = slip.header.clone();
    if !header.is_empty() {
        // The shop name: the first row, with the rows after it printed as large when it is
        // printed larger than the body (a name on two rows).
        let size = |i: usize| {
            slip.rows[i]
                .lines
                .iter()
                .map(glyph_height)
                .fold(0.0, f64::max)
        };
        let first_size = size(header.start);
        let mut name_end = header.start + 1;
        while name_end < header.end
            && (first_size >= 1.15 * body && size(name_end) >= 0.9 * first_size
                || receipt::continues_name(
                    &slip.rows[header.start..name_end],
                    &slip.rows[name_end],
                ))
        {
            name_end += 1;
        }
        blocks.extend(text_block(
            BlockKind::Heading,
            &row_lines(header.start..name_end),
        ));
        let rest = row_lines(name_end..header.end);
        blocks.extend(group_blocks(
            rest.into_iter().map(Item::Line).collect(),
            body,
            page,
            &[],
        ));
    }
    if items.is_none()
        && let Some(heads) = slip.column_heads.clone()
    {
        // Without an item table the column headings read as text.
        blocks.extend(text_block(BlockKind::Paragraph, &row_lines(heads)));
    }
    let mut slip_tables = Vec::new();
    for (table, range) in [(items, slip.items.clone()), (totals, slip.totals.clone())] {
        let Some(table) = table else {
            // No cells: the rows read as text.
            blocks.extend(group_blocks(
                row_lines(range).into_iter().map(Item::Line).collect(),
                body,
                page,
                &[],
            ));
            continue;
        };
        blocks.push(Block {
            order: 0,
            kind: BlockKind::Table,
            text: table
                .matrix
                .iter()
                .map(|row| row.join("\t"))
                .collect::<Vec<_>>()
                .join("\n"),
            bbox: table.bbox,
            confidence: table.confidence,
            low_confidence: table.confidence.is_low(),
            column: 0,
            language: None,
        });
        slip_tables.push(table);
    }
    blocks.extend(group_blocks(
        row_lines(slip.totals.end..slip.rows.len())
            .into_iter()
            .map(Item::Line)
            .collect(),
        body,
        page,
        &[],
    ));
    for (order, block) in blocks.iter_mut().enumerate() {
        block.order = order as u32;
        block.language = detect_language(&block.text, languages);
    }
    let text = blocks
        .iter()
        .map(|b| b.text.as_str())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    // Alignment tables the general finder sees inside the slip's tables are the same rows.
    let mut tables: Vec<Table> = doc_analysis::tables::find_tables(page)
        .into_iter()
        .filter(|t| {
            !slip_tables
                .iter()
                .any(|s| s.bbox.vertical_overlap(&t.bbox) > 0.0)
        })
        .collect();
    tables.extend(slip_tables);
    tables.sort_by(|a, b| a.bbox.y.total_cmp(&b.bbox.y));
    PageLayout {
        blocks,
        columns: page.columns,
        text,
        table_regions: Vec::new(),
        tables,
    }
}

/// The text of a stand-in line: a private-use character no recogniser emits, then its index.
const STAND_IN_MARK: char = '\u{F8FF}';

fn stand_in(index: usize, region: &PageBox) -> Line {
    let word = Word {
        text: format!("{STAND_IN_MARK}{index}"),
        bbox: *region,
        confidence: Confidence::CERTAIN,
    };
    // A region always yields a line: one word.
    Line::from_words(vec![word], None).unwrap_or_else(|| unreachable_line(region))
}

fn unreachable_line(region: &PageBox) -> Line {
    Line {
        order: 0,
        column: 0,
        text: String::new(),
        bbox: *region,
        font_size: None,
        confidence: Confidence::NONE,
        low_confidence: true,
        words: Vec::new(),
    }
}

fn stand_in_index(line: &Line) -> Option<usize> {
    line.text.strip_prefix(STAND_IN_MARK)?.parse().ok()
}

enum Item {
    Line(Line),
    Table {
        region: PageBox,
        column: u32,
        lines: Vec<Line>,
    },
}

/// The body text's glyph height: the median of the lines' glyph heights, each line counted once
/// per word so that many short lines of a table do not outweigh the running text.
fn body_glyph_height(lines: &[Line]) -> Option<f64> {
    let mut sizes: Vec<f64> = lines
        .iter()
        .filter_map(|l| l.font_size.or(Some(l.bbox.h)).map(|s| (s, l.words.len())))
        .flat_map(|(s, n)| std::iter::repeat_n(s, n.max(1)))
        .filter(|s| s.is_finite() && *s > 0.0)
        .collect();
    if sizes.is_empty() {
        return None;
    }
    sizes.sort_by(f64::total_cmp);
    Some(sizes[sizes.len() / 2])
}

fn glyph_height(line: &Line) -> f64 {
    line.font_size.unwrap_or(line.bbox.h)
}

// ---------------------------------------------------------------------------------------------
// Paragraphs and block types

/// A line opens a list item: a bullet (as printed, or as Tesseract often misreads a bullet:
/// `+`, `«`, `»`, `©`, `°`, `e` alone) or an enumeration (`1.`, `2)`, `a)`, `(iv)`), followed by
/// text.
fn list_marker(line: &Line) -> Option<&str> {
    let mut words = line.words.iter();
    let first = words.next()?.text.as_str();
    words.next()?;
    const BULLETS: &[&str] = &[
        "•", "·", "▪", "‣", "◦", "●", "■", "□", "➢", "►", "✓", "-", "–", "—", "*", "+", "«", "»",
        "©", "°", "o", "e",
    ];
    if BULLETS.contains(&first) {
        return Some(first);
    }
    let inner = first
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .or_else(|| first.strip_suffix('.'))
        .or_else(|| first.strip_suffix(')'))?;
    let numeric =
        !inner.is_empty() && inner.len() <= 3 && inner.chars().all(|c| c.is_ascii_digit());
    let letter = inner.len() == 1 && inner.chars().all(|c| c.is_ascii_lowercase());
    let roman = !inner.is_empty() && inner.len() <= 4 && inner.chars().all(|c| "ivx".contains(c));
    (numeric || (letter && !first.ends_with('.')) || (roman && first.ends_with(')')))
        .then_some(first)
}

/// Weak bullets (misreadings that are also ordinary characters) count only when a neighbour
/// line starts with a bullet too.
fn is_weak_bullet(marker: &str) -> bool {
    matches!(marker, "+" | "«" | "»" | "©" | "°" | "o" | "e" | "-" | "*")
}

/// A caption's opening: a figure or table label followed by a number.
fn caption_label(text: &str) -> bool {
    const LABELS: &[&str] = &[
        "Abb.",
        "Abbildung",
        "Tabelle",
        "Tab.",
        "Figure",
        "Fig.",
        "Table",
        "Bild",
        "Grafik",
    ];
    let mut words = text.split_whitespace();
    let (Some(label), Some(number)) = (words.next(), words.next()) else {
        return false;
    };
    LABELS.contains(&label)
        && number
            .trim_end_matches([':', '.', ')', '–', '-'])
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
}

/// Groups lines (in reading order) into blocks and types them.
fn group_blocks(items: Vec<Item>, body: f64, page: &Page, tables: &[PageBox]) -> Vec<Block> {
    let mut groups: Vec<Group> = Vec::new();
    let lines_only: Vec<Option<&Line>> = items
        .iter()
        .map(|i| match i {
            Item::Line(l) => Some(l),
            Item::Table { .. } => None,
        })
        .collect();
    // Which lines open a list item (weak bullets need a neighbour with the same one).
    let markers: Vec<Option<&str>> = lines_only.iter().map(|l| l.and_then(list_marker)).collect();
    let opens_item: Vec<bool> = (0..items.len())
        .map(|i| match markers[i] {
            Some(m) if is_weak_bullet(m) => {
                // The same printed bullet is misread differently line by line (`+`, `«`, `*`).
                let neighbour = |j: Option<usize>| {
                    j.and_then(|j| markers.get(j).copied().flatten())
                        .is_some_and(|n| is_weak_bullet(n) || !n.chars().any(char::is_alphanumeric))
                };
                neighbour(i.checked_sub(1)) || neighbour(Some(i + 1))
            }
            Some(_) => true,
            None => false,
        })
        .collect();

    for (i, item) in items.into_iter().enumerate() {
        match item {
            Item::Table {
                region,
                column,
                lines,
            } => groups.push(Group::Table {
                region,
                column,
                lines,
            }),
            Item::Line(line) => {
                let joins = match groups.last() {
                    Some(Group::Text { lines, list }) => {
                        lines.last().is_some_and(|prev| {
                            continues(prev, &line, body)
                                && if *list {
                                    // A list goes on with new items and indented continuations.
                                    opens_item[i] || line.bbox.x > lines[0].bbox.x + 0.5 * body
                                } else {
                                    !opens_item[i]
                                }
                        })
                    }
                    _ => false,
                };
                match groups.last_mut() {
                    Some(Group::Text { lines, .. }) if joins => lines.push(line),
                    _ => groups.push(Group::Text {
                        list: opens_item[i],
                        lines: vec![line],
                    }),
                }
            }
        }
    }

    let mut blocks = Vec::with_capacity(groups.len());
    for group in groups {
        let block = match group {
            Group::Table {
                region,
                column,
                lines,
            } => table_block(region, column, &lines, page.page),
            Group::Text { lines, list } => {
                let kind = if list {
                    BlockKind::List
                } else {
                    text_kind(&lines, body, page, tables)
                };
                text_block(kind, &lines)
            }
        };
        if let Some(mut block) = block {
            block.order = blocks.len() as u32;
            blocks.push(block);
        }
    }
    blocks
}

enum Group {
    Text {
        lines: Vec<Line>,
        list: bool,
    },
    Table {
        region: PageBox,
        column: u32,
        lines: Vec<Line>,
    },
}

/// Whether `line` continues the paragraph whose last line is `prev`: same column, close below
/// it, about the same glyph size, horizontally overlapping, and `prev` not visibly the end of a
/// paragraph (a short line ending in a full stop followed by an indented one).
fn continues(prev: &Line, line: &Line, body: f64) -> bool {
    let gap = line.bbox.y - prev.bbox.bottom();
    let (a, b) = (glyph_height(prev), glyph_height(line));
    let size_ratio = a.max(b) / a.min(b).max(0.1);
    let indented = line.bbox.x - prev.bbox.x > 1.2 * body;
    line.column == prev.column
        && gap > -0.5 * body
        && gap <= 1.1 * body.max(a.min(b))
        && size_ratio <= 1.3
        && prev.bbox.horizontal_overlap(&line.bbox) > 0.0
        && !(indented && prev.text.ends_with(['.', '!', '?', ':']))
}

fn text_kind(lines: &[Line], body: f64, page: &Page, tables: &[PageBox]) -> BlockKind {
    let Some(first) = lines.first() else {
        return BlockKind::Paragraph;
    };
    let text = lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let words = text.split_whitespace().count();
    let glyph = lines.iter().map(glyph_height).sum::<f64>() / lines.len() as f64;
    let bbox = PageBox::union_all(lines.iter().map(|l| &l.bbox)).unwrap_or(first.bbox);

    if caption_label(&first.text) && lines.len() <= 3 {
        let near_table = tables.iter().any(|t| {
            let below = bbox.y - t.bottom();
            let above = t.y - bbox.bottom();
            (-body..=3.0 * body).contains(&below) || (-body..=3.0 * body).contains(&above)
        });
        let labelled = first
            .text
            .split_whitespace()
            .nth(1)
            .is_some_and(|n| n.ends_with([':', '.']));
        if near_table || labelled {
            return BlockKind::Caption;
        }
    }
    let bottom_zone = bbox.y >= 0.8 * page.height;
    let starts_with_note_mark = first
        .text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || "*†‡¹²³⁴⁵⁶⁷⁸⁹".contains(c));
    if bottom_zone && glyph < 0.9 * body && (starts_with_note_mark || glyph < 0.8 * body) {
        return BlockKind::Footnote;
    }
    let ends_sentence = text.trim_end().ends_with(['.', ';', ',']);
    if glyph >= 1.2 * body && lines.len() <= 3 && words <= 15 && !ends_sentence {
        return BlockKind::Heading;
    }
    BlockKind::Paragraph
}

fn mean_confidence<'a>(lines: impl IntoIterator<Item = &'a Line>) -> Confidence {
    Confidence::mean(
        lines
            .into_iter()
            .flat_map(|l| l.words.iter().map(|w| w.confidence)),
    )
    .unwrap_or(Confidence::NONE)
}

fn text_block(kind: BlockKind, lines: &[Line]) -> Option<Block> {
    let first = lines.first()?;
    let bbox = PageBox::union_all(lines.iter().map(|l| &l.bbox))?;
    let text = if kind == BlockKind::List {
        // One item per line; continuation lines (no marker) joined to their item.
        let mut items: Vec<String> = Vec::new();
        for line in lines {
            match items.last_mut() {
                Some(item) if list_marker(line).is_none() => {
                    item.push(' ');
                    item.push_str(&line.text);
                }
                _ => items.push(line.text.clone()),
            }
        }
        items.join("\n")
    } else {
        join_paragraph(lines)
    };
    let confidence = mean_confidence(lines);
    Some(Block {
        order: 0,
        kind,
        text,
        bbox,
        confidence,
        low_confidence: confidence.is_low(),
        column: first.column,
        language: None,
    })
}

/// Paragraph lines joined by spaces; a word hyphenated at a line end (`Versor-` + `gung`) is
/// joined back without the hyphen only when the next line starts in lower case.
fn join_paragraph(lines: &[Line]) -> String {
    let mut text = String::new();
    for line in lines {
        if text.is_empty() {
            text.push_str(&line.text);
            continue;
        }
        let next_lower = line.text.chars().next().is_some_and(char::is_lowercase);
        if text.ends_with('-') && next_lower && !text.ends_with(" -") {
            text.pop();
        } else {
            text.push(' ');
        }
        text.push_str(&line.text);
    }
    text
}

fn table_block(region: PageBox, column: u32, lines: &[Line], page: u32) -> Option<Block> {
    // Rows: lines sharing a vertical band, cells left to right separated by tabs.
    let mut rows: Vec<Vec<&Line>> = Vec::new();
    for line in lines {
        match rows.last_mut() {
            Some(row)
                if row
                    .iter()
                    .any(|l| l.bbox.vertical_overlap(&line.bbox) >= 0.5) =>
            {
                row.push(line);
            }
            _ => rows.push(vec![line]),
        }
    }
    let text = rows
        .iter_mut()
        .map(|row| {
            row.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
            row.iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let confidence = mean_confidence(lines);
    Some(Block {
        order: 0,
        kind: BlockKind::Table,
        text,
        bbox: PageBox { page, ..region },
        confidence,
        low_confidence: lines.is_empty() || confidence.is_low(),
        column,
        language: None,
    })
}

// ---------------------------------------------------------------------------------------------
#[cfg(test)]
mod tests {
    use super::*;
    use doc_model::{CoordinateFrame, PageMethod};

    fn line(text: &str, x: f64, y: f64, size: f64) -> Line {
        let mut words = Vec::new();
        let mut cx = x;
        for t in text.split_whitespace() {
            let w = t.chars().count() as f64 * size * 0.5;
            words.push(Word {
                text: t.into(),
                bbox: PageBox::from_edges(1, cx, y, cx + w, y + size),
                confidence: Confidence::new(0.9),
            });
            cx += w + size * 0.3;
        }
        Line::from_words(words, Some(size)).expect("words")
    }

    fn page(lines: Vec<Line>) -> Page {
        Page {
            page: 1,
            width: 1000.0,
            height: 1400.0,
            coordinate_frame: CoordinateFrame::PixelsTopLeft,
            method: PageMethod::Ocr,
            rotation: 0,
            columns: 1,
            lines,
            rulings: Vec::new(),
            recogniser: None,
        }
    }

    fn langs() -> Vec<String> {
        vec!["deu".into(), "eng".into()]
    }

    #[test]
    fn types_heading_paragraph_list_caption_footnote() {
        let mut p = page(vec![
            line("Annual Report", 50.0, 50.0, 40.0),
            line("The report shows how the", 50.0, 120.0, 20.0),
            line("year went for all of us.", 50.0, 148.0, 20.0),
            line("• first point", 60.0, 200.0, 20.0),
            line("• second point", 60.0, 228.0, 20.0),
            line("1. numbered", 60.0, 280.0, 20.0),
            line("Figure 2: The plant", 50.0, 340.0, 20.0),
            line("1 A note on the figures.", 50.0, 1300.0, 14.0),
        ]);
        let layout = analyze(&mut p, None, &langs());
        let kinds: Vec<BlockKind> = layout.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            [
                BlockKind::Heading,
                BlockKind::Paragraph,
                BlockKind::List,
                BlockKind::List,
                BlockKind::Caption,
                BlockKind::Footnote
            ]
        );
        assert_eq!(
            layout.blocks[1].text,
            "The report shows how the year went for all of us."
        );
        assert_eq!(layout.blocks[2].text, "• first point\n• second point");
        assert_eq!(layout.blocks[1].language.as_deref(), Some("eng"));
        assert!(layout.text.starts_with("Annual Report\n\nThe report"));
        assert_eq!(layout.columns, 1);
        assert_eq!(
            layout.blocks.iter().map(|b| b.order).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5]
        );
    }

    #[test]
    fn weak_bullets_need_a_neighbour() {
        let mut p = page(vec![
            line("+ plus one", 60.0, 200.0, 20.0),
            line("+ plus two", 60.0, 228.0, 20.0),
            line("Text after a gap here", 50.0, 300.0, 20.0),
            line("e single misread", 50.0, 400.0, 20.0),
        ]);
        let layout = analyze(&mut p, None, &langs());
        let kinds: Vec<BlockKind> = layout.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            [BlockKind::List, BlockKind::Paragraph, BlockKind::Paragraph]
        );
    }

    #[test]
    fn language_from_function_words_and_spelling() {
        let l = langs();
        assert_eq!(
            detect_language("Die Stadtwerke versorgen seit vielen Jahren die Bürger", &l)
                .as_deref(),
            Some("deu")
        );
        assert_eq!(
            detect_language("The figures in the following table", &l).as_deref(),
            Some("eng")
        );
        assert_eq!(detect_language("Einleitung", &l).as_deref(), Some("deu"));
        assert_eq!(detect_language("12,4 13,1", &l), None);
        assert_eq!(
            detect_language("12,4", &["eng".to_owned()]).as_deref(),
            Some("eng")
        );
    }

    #[test]
    fn rulings_and_regions_from_pixels() {
        // A 3 x 2 grid of 2-px rules in a 400 x 300 picture, plus text-sized noise.
        let (w, h) = (400usize, 300usize);
        let mut px = vec![255u8; w * h];
        for y in [50usize, 100, 150] {
            for x in 40..360 {
                px[y * w + x] = 0;
                px[(y + 1) * w + x] = 0;
            }
        }
        for x in [40usize, 200, 359] {
            for y in 50..152 {
                px[y * w + x] = 0;
            }
        }
        for x in 60..70 {
            px[250 * w + x] = 0;
        }
        let image = GreyImage::new(w as u32, h as u32, px).expect("sized");
        let rulings = find_rulings(&image, 10.0);
        assert_eq!(rulings.iter().filter(|r| r.is_horizontal(1.0)).count(), 3);
        assert_eq!(rulings.iter().filter(|r| r.is_vertical(1.0)).count(), 3);
        let regions = table_regions(&rulings, 10.0);
        assert_eq!(regions.len(), 1);
        let r = regions[0];
        assert!(
            (r.x - 40.0).abs() <= 1.0 && (r.right() - 360.0).abs() <= 1.0,
            "{r:?}"
        );
        assert!(
            (r.y - 50.0).abs() <= 2.0 && (r.bottom() - 152.0).abs() <= 2.0,
            "{r:?}"
        );
    }

    #[test]
    fn hyphenated_line_ends_are_joined() {
        let lines = vec![
            line("die Versor-", 0.0, 0.0, 10.0),
            line("gung war gut", 0.0, 12.0, 10.0),
        ];
        assert_eq!(join_paragraph(&lines), "die Versorgung war gut");
    }
}
