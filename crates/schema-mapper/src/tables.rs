//! An array of objects mapped onto line items: the embedded e-invoice's lines first, else the
//! table whose header row names the items' properties, one item per row, each cell with its
//! box.

use doc_analysis::vocabulary::{LineItemColumn, fold, line_item_column_exact};
use doc_model::{Confidence, LineItem, Method, PageBox, Table};

use crate::lookup::{Document, accept, labels_of};
use crate::spec::{Kind, Property};
use crate::{MappedValue, PropertyResult, Source};

/// Rows a header may sit in (a title row or a two-line header comes first in some tables).
const HEADER_ROWS: u32 = 3;

/// The part of a line item a column holds: doc-analysis's line-item columns, whose headings
/// are the one list both the line-item reader and this mapping read.
type Part = LineItemColumn;

/// The line-item part a text names (exactly, after folding).
fn part_of_text(text: &str) -> Option<Part> {
    line_item_column_exact(text)
}

fn part_of(property: &Property) -> Option<Part> {
    labels_of(property).iter().find_map(|l| part_of_text(l))
}

/// Maps an array-of-objects property.
pub(crate) fn map_table(
    property: &Property,
    items: &[Property],
    document: &Document<'_>,
) -> PropertyResult {
    if let Some(result) = from_embedded(items, document) {
        return result;
    }
    let Some(best) = best_tables(items, &document.extraction.tables) else {
        let names: Vec<&str> = items.iter().map(|p| p.name.as_str()).collect();
        return PropertyResult::not_found(Some(format!(
            "no table has a header row matching the item properties ({}) of `{}`",
            names.join(", "),
            property.name
        )));
    };
    let mut rows = Vec::new();
    for (table, mapping) in &best {
        for row in mapping.header_row + 1..table.rows {
            if let Some(item) = row_item(items, table, mapping, row, document) {
                rows.push(item);
            }
        }
    }
    let source = best
        .first()
        .map(|(table, _)| Source::at(table.bbox, Method::Table));
    list_result(rows, source)
}

/// An array's result from its items: found when it has any.
pub(crate) fn list_result(items: Vec<PropertyResult>, source: Option<Source>) -> PropertyResult {
    if items.is_empty() {
        return PropertyResult::not_found(Some("the table has no rows with values".into()));
    }
    let confidence =
        Confidence::mean(items.iter().map(|i| i.confidence)).unwrap_or(Confidence::NONE);
    PropertyResult {
        value: MappedValue::Array(items),
        confidence,
        found: true,
        source,
        reason: None,
    }
}

fn from_embedded(items: &[Property], document: &Document<'_>) -> Option<PropertyResult> {
    let invoice = document.extraction.embedded_invoice.as_ref()?;
    if invoice.line_items.is_empty() {
        return None;
    }
    let parts: Vec<Option<Part>> = items.iter().map(part_of).collect();
    let mapped = parts.iter().filter(|p| p.is_some()).count();
    if mapped == 0 || mapped * 2 < items.len() {
        return None;
    }
    let rows = invoice
        .line_items
        .iter()
        .map(|line| {
            let cells = items
                .iter()
                .zip(&parts)
                .map(|(item, part)| {
                    let result = part
                        .and_then(|p| part_text(line, p))
                        .and_then(|text| {
                            let mut rejected = Vec::new();
                            accept(
                                item,
                                text,
                                1.0,
                                Source::embedded(),
                                document.hints,
                                &mut rejected,
                            )
                            .map(crate::lookup::Found::into_result)
                            .or_else(|| Some(PropertyResult::not_found(rejected.pop())))
                        })
                        .unwrap_or_else(|| PropertyResult::not_found(None));
                    (item.name.clone(), result)
                })
                .collect();
            object_result(cells, Some(Source::embedded()))
        })
        .collect();
    Some(list_result(rows, Some(Source::embedded())))
}

fn part_text(line: &LineItem, part: Part) -> Option<&str> {
    match part {
        Part::Description => line.description.as_deref(),
        Part::Quantity => line.quantity.as_deref(),
        Part::UnitPrice => line.unit_price.as_deref(),
        Part::LineTotal => line.line_total.as_deref(),
    }
}

/// An object's result from its properties' results: found when any is, confident as the mean
/// of those found.
pub(crate) fn object_result(
    cells: std::collections::BTreeMap<String, PropertyResult>,
    source: Option<Source>,
) -> PropertyResult {
    let found: Vec<&PropertyResult> = cells.values().filter(|c| c.found).collect();
    let confidence =
        Confidence::mean(found.iter().map(|c| c.confidence)).unwrap_or(Confidence::NONE);
    let any = !found.is_empty();
    PropertyResult {
        value: MappedValue::Object(cells),
        confidence: if any { confidence } else { Confidence::NONE },
        found: any,
        source: if any { source } else { None },
        reason: None,
    }
}

/// Which column each item property reads, in one table.
#[derive(Debug, Clone)]
struct Mapping {
    header_row: u32,
    /// Per item property: the column and how well its heading matched.
    columns: Vec<Option<(u32, f64)>>,
}

impl Mapping {
    fn matched(&self) -> usize {
        self.columns.iter().filter(|c| c.is_some()).count()
    }
}

/// The best-matching table and the later ones with the same header (a table continued on the
/// next page); `None` when no table matches at least half of the item properties.
fn best_tables<'t>(items: &[Property], tables: &'t [Table]) -> Option<Vec<(&'t Table, Mapping)>> {
    let mut scored: Vec<(&Table, Mapping)> = tables
        .iter()
        .filter_map(|table| mapping(items, table).map(|m| (table, m)))
        .collect();
    let best = scored.iter().map(|(_, m)| m.matched()).max()?;
    let needed = items.len().div_ceil(2).max(1);
    if best < needed {
        return None;
    }
    let first = scored.iter().position(|(_, m)| m.matched() == best)?;
    let signature = |table: &Table, mapping: &Mapping| -> Vec<Option<String>> {
        mapping
            .columns
            .iter()
            .map(|c| c.map(|(col, _)| heading(table, mapping.header_row, col)))
            .collect()
    };
    let (first_table, first_mapping) = &scored[first];
    let wanted = signature(first_table, first_mapping);
    let mut kept = Vec::new();
    for (index, (table, mapping)) in scored.drain(..).enumerate() {
        if index == first || (index > first && signature(table, &mapping) == wanted) {
            kept.push((table, mapping));
        }
    }
    Some(kept)
}

/// The best header row of a table for these properties.
fn mapping(items: &[Property], table: &Table) -> Option<Mapping> {
    (0..HEADER_ROWS.min(table.rows))
        .map(|row| {
            let mut taken: Vec<u32> = Vec::new();
            let columns = items
                .iter()
                .map(|item| {
                    let best = (0..table.cols)
                        .filter(|col| !taken.contains(col))
                        .filter_map(|col| {
                            let score = heading_score(item, &heading(table, row, col))?;
                            Some((col, score))
                        })
                        .max_by(|a, b| a.1.total_cmp(&b.1));
                    if let Some((col, _)) = best {
                        taken.push(col);
                    }
                    best
                })
                .collect();
            Mapping {
                header_row: row,
                columns,
            }
        })
        .max_by_key(Mapping::matched)
        .filter(|m| m.matched() > 0)
}

/// How well a column heading names a property: its label exactly (1), the heading's first
/// words are the label (`Einzelpreis EUR`, 0.9), or both name the same line-item part (0.8).
fn heading_score(item: &Property, heading: &str) -> Option<f64> {
    let folded_heading = fold(heading);
    if folded_heading.is_empty() {
        return None;
    }
    let labels = labels_of(item);
    if labels.iter().any(|l| fold(l) == folded_heading) {
        return Some(1.0);
    }
    let words: Vec<&str> = heading.split_whitespace().collect();
    let starts = labels.iter().any(|l| {
        let wanted = fold(l);
        !wanted.is_empty()
            && (1..words.len())
                .any(|n| words[..n].iter().map(|w| fold(w)).collect::<String>() == wanted)
    });
    if starts {
        return Some(0.9);
    }
    let heading_part =
        part_of_text(heading).or_else(|| words.first().and_then(|w| part_of_text(w)));
    match (part_of(item), heading_part) {
        (Some(a), Some(b)) if a == b => Some(0.8),
        _ => None,
    }
}

/// The text of the cell covering (`row`, `col`).
fn heading(table: &Table, row: u32, col: u32) -> String {
    cell_at(table, row, col).map_or_else(String::new, |c| c.text.clone())
}

fn cell_at(table: &Table, row: u32, col: u32) -> Option<&doc_model::Cell> {
    table
        .cells
        .iter()
        .find(|c| c.row == row && c.col <= col && col < c.col + c.col_span.max(1))
}

/// One row as an item; `None` for a row with too little in the mapped columns (a blank row,
/// a subtotal line under the items).
fn row_item(
    items: &[Property],
    table: &Table,
    mapping: &Mapping,
    row: u32,
    document: &Document<'_>,
) -> Option<PropertyResult> {
    let filled = mapping
        .columns
        .iter()
        .flatten()
        .filter(|(col, _)| cell_at(table, row, *col).is_some_and(|c| !c.text.trim().is_empty()))
        .count();
    // More than half of the mapped columns (all of one or two): a subtotal line under the
    // items fills one or two columns of four.
    let matched = mapping.matched();
    if filled == 0 || (filled * 2 <= matched && filled < matched) {
        return None;
    }
    let mut boxes: Vec<PageBox> = Vec::new();
    let cells = items
        .iter()
        .zip(&mapping.columns)
        .map(|(item, column)| {
            let result = match (&item.kind, column) {
                (Kind::Object(_) | Kind::Table(_) | Kind::List(_), _) => PropertyResult::not_found(
                    Some("objects and arrays inside table items are not mapped".into()),
                ),
                (_, None) => PropertyResult::not_found(None),
                (_, Some((col, score))) => match cell_at(table, row, *col) {
                    Some(cell) if !cell.text.trim().is_empty() => {
                        boxes.push(cell.bbox);
                        let mut rejected = Vec::new();
                        accept(
                            item,
                            &cell.text,
                            cell.confidence.value() * score,
                            Source::at(cell.bbox, Method::Table),
                            document.hints,
                            &mut rejected,
                        )
                        .map_or_else(
                            || {
                                PropertyResult::not_found(Some(rejected.pop().unwrap_or_else(
                                    || format!("{:?} is not a {}", cell.text, kind_name(item)),
                                )))
                            },
                            crate::lookup::Found::into_result,
                        )
                    }
                    _ => PropertyResult::not_found(None),
                },
            };
            (item.name.clone(), result)
        })
        .collect();
    let source = PageBox::union_all(&boxes).map(|b| Source::at(b, Method::Table));
    let result = object_result(cells, source);
    result.found.then_some(result)
}

fn kind_name(property: &Property) -> &'static str {
    match property.kind {
        Kind::Number => "number",
        Kind::Integer => "whole number",
        Kind::Boolean => "yes or no",
        _ if property.format.as_deref() == Some("date") => "date",
        _ => "value of the property's form",
    }
}
