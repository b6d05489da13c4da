//! Invoice lines from the document's tables: a table whose header row names a description
//! column and an amount column (`Bezeichnung … Menge … Einzelpreis … Gesamt`, `Description …
//! Qty … Unit price … Amount`) is read row by row into description, quantity, unit price and
//! line total, each row keeping its box.
//!
//! A row is an item when it has a description and a line total (or a unit price) that reads
//! as an amount; a row of text only continues the description above it; a totals row
//! (`Summe`, `Total`, `Zwischensumme`…) ends the table.

use doc_model::{LineItem, Method, PageBox, Provenance, Table};

use crate::header::normalize::find_amounts;
use crate::vocabulary::fold;

/// A column's role in a line-item table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Description,
    Quantity,
    UnitPrice,
    LineTotal,
}

/// Header words per role, folded (see [`fold`]). Checked as whole folded cell texts or their
/// first words; the longest match wins.
const HEADERS: &[(Role, &[&str])] = &[
    (
        Role::Description,
        &[
            "bezeichnung",
            "artikelbezeichnung",
            "beschreibung",
            "artikelbeschreibung",
            "leistung",
            "leistungsbeschreibung",
            "produkt",
            "artikel",
            "warenbezeichnung",
            "text",
            "description",
            "item",
            "itemdescription",
            "product",
            "service",
            "designation",
            "désignation",
            "libellé",
            "libelle",
        ],
    ),
    (
        Role::Quantity,
        &[
            "menge",
            "anzahl",
            "anz",
            "stück",
            "stk",
            "qty",
            "quantity",
            "qté",
            "quantité",
            "quantite",
        ],
    ),
    (
        Role::UnitPrice,
        &[
            "einzelpreis",
            "epreis",
            "preis",
            "stückpreis",
            "preisproeinheit",
            "nettopreis",
            "einzelpreisnetto",
            "unitprice",
            "price",
            "rate",
            "unitcost",
            "prixunitaire",
            "prixunitaireht",
            "pu",
            "puht",
        ],
    ),
    (
        Role::LineTotal,
        &[
            "gesamtpreis",
            "gesamt",
            "betrag",
            "gesamtbetrag",
            "summe",
            "nettobetrag",
            "netto",
            "gesamtnetto",
            "wert",
            "total",
            "amount",
            "linetotal",
            "nettotal",
            "totalht",
            "montant",
            "montantht",
        ],
    ),
];

/// Row openers that end the item rows.
const TOTALS: &[&str] = &[
    "summe",
    "zwischensumme",
    "gesamtsumme",
    "nettobetrag",
    "rechnungsbetrag",
    "gesamtbetrag",
    "total",
    "subtotal",
    "gesamt",
    "mwst",
    "ust",
    "umsatzsteuer",
    "totalht",
    "totalttc",
];

/// The role a header cell names, by its folded text or its first folded words.
fn role_of(text: &str) -> Option<Role> {
    let whole = fold(text);
    if whole.is_empty() {
        return None;
    }
    let words: Vec<String> = text.split_whitespace().map(fold).collect();
    let mut best: Option<(Role, usize)> = None;
    for (role, labels) in HEADERS {
        for label in *labels {
            // The whole cell, or its first one or two words (`Menge Einheit`, `Preis €`).
            let first: String = words.iter().take(1).map(String::as_str).collect();
            let first_two: String = words.iter().take(2).map(String::as_str).collect();
            let hit = whole == *label || first == *label || first_two == *label;
            if hit && best.is_none_or(|(_, len)| label.len() > len) {
                best = Some((*role, label.len()));
            }
        }
    }
    best.map(|(role, _)| role)
}

/// The invoice lines of every table that reads as a line-item table, in document order.
pub fn find_line_items(tables: &[Table]) -> Vec<LineItem> {
    tables.iter().flat_map(items_of_table).collect()
}

/// Columns of a header row: role per column, when the row names a description and an amount.
fn header_columns(row: &[String]) -> Option<Vec<Option<Role>>> {
    let roles: Vec<Option<Role>> = row.iter().map(|t| role_of(t)).collect();
    let has = |r: Role| roles.contains(&Some(r));
    (has(Role::Description) && (has(Role::LineTotal) || has(Role::UnitPrice))).then_some(roles)
}

/// A cell's amount as a decimal string, when the cell is one number (with a currency or unit
/// at most).
fn amount_of(text: &str) -> Option<String> {
    let amounts = find_amounts(text);
    let [amount] = amounts.as_slice() else {
        return None;
    };
    let rest: String = format!("{}{}", &text[..amount.start], &text[amount.end..]);
    // What is left may be a currency, a unit or a sign, not another word.
    (rest.chars().filter(|c| c.is_alphabetic()).count() <= 5).then(|| amount.decimal.clone())
}

/// A quantity: the first number of the cell (`20`, `1,5 Stk`, `3 h`).
fn quantity_of(text: &str) -> Option<String> {
    let amount = find_amounts(text).into_iter().next()?;
    let value = amount.decimal;
    // `2.00` and `2` are the same quantity.
    Some(match value.split_once('.') {
        Some((int, frac)) => {
            let frac = frac.trim_end_matches('0');
            if frac.is_empty() {
                int.to_string()
            } else {
                format!("{int}.{frac}")
            }
        }
        None => value,
    })
}

fn items_of_table(table: &Table) -> Vec<LineItem> {
    let Some((header_row, roles)) = table
        .matrix
        .iter()
        .enumerate()
        .take(3)
        .find_map(|(i, row)| header_columns(row).map(|r| (i, r)))
    else {
        return Vec::new();
    };
    let column = |role: Role| roles.iter().position(|r| *r == Some(role));
    let description = column(Role::Description);
    let quantity = column(Role::Quantity);
    let unit_price = column(Role::UnitPrice);
    // The rightmost total column: a `Netto … Brutto` pair ends with the gross.
    let line_total = roles.iter().position(|r| *r == Some(Role::LineTotal));
    let cell = |row: &[String], col: Option<usize>| -> String {
        col.and_then(|c| row.get(c)).cloned().unwrap_or_default()
    };
    let mut items: Vec<LineItem> = Vec::new();
    for (r, row) in table.matrix.iter().enumerate().skip(header_row + 1) {
        let first_text = row.iter().find(|t| !t.trim().is_empty());
        let Some(first_text) = first_text else {
            continue;
        };
        let opener = first_text
            .split_whitespace()
            .next()
            .map(fold)
            .unwrap_or_default();
        if TOTALS.contains(&opener.as_str()) {
            break;
        }
        let desc = collapse(&cell(row, description));
        let total = amount_of(&cell(row, line_total));
        let price = amount_of(&cell(row, unit_price));
        let qty = quantity
            .and_then(|q| row.get(q))
            .and_then(|t| quantity_of(t));
        let row_box = row_box(table, r);
        if !desc.is_empty() && (total.is_some() || price.is_some()) {
            items.push(LineItem {
                description: Some(desc),
                quantity: qty,
                unit_price: price,
                line_total: total,
                source: row_box.map(|bbox| Provenance {
                    page: table.page,
                    bbox,
                    method: Method::Table,
                }),
            });
        } else if !desc.is_empty()
            && total.is_none()
            && price.is_none()
            && qty.is_none()
            && let Some(last) = items.last_mut()
        {
            // A line of text under an item: more of its description.
            if let Some(d) = last.description.as_mut() {
                d.push(' ');
                d.push_str(&desc);
            }
            if let (Some(source), Some(bbox)) = (last.source.as_mut(), row_box) {
                source.bbox = source.bbox.union(&bbox);
            }
        }
    }
    items
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The box of row `row` of the table (union of its cells).
fn row_box(table: &Table, row: usize) -> Option<PageBox> {
    PageBox::union_all(
        table
            .cells
            .iter()
            .filter(|c| c.row as usize == row && !c.text.trim().is_empty())
            .map(|c| &c.bbox),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use doc_model::{Cell, Confidence, TableMethod};

    fn table(rows: &[&[&str]]) -> Table {
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, text) in row.iter().enumerate() {
                let (x, y) = (c as f64 * 100.0, r as f64 * 12.0);
                cells.push(Cell {
                    row: r as u32,
                    col: c as u32,
                    row_span: 1,
                    col_span: 1,
                    merged: false,
                    text: (*text).to_string(),
                    bbox: PageBox::from_edges(1, x, y, x + 90.0, y + 10.0),
                    line_boxes: Vec::new(),
                    confidence: Confidence::CERTAIN,
                });
            }
        }
        Table::new(
            1,
            TableMethod::Alignment,
            Method::TextLayer,
            rows.len() as u32,
            rows[0].len() as u32,
            cells,
        )
        .expect("table")
    }

    #[test]
    fn a_german_item_table_maps_its_columns() {
        let t = table(&[
            &["Pos.", "Bezeichnung", "Menge", "Einzelpreis", "Gesamtpreis"],
            &["1", "Trennblätter A4", "20,0000 Stk", "9,90 €", "198,00 €"],
            &["", "grau", "", "", ""],
            &["2", "Joghurt Banane", "50", "5,50", "275,00"],
            &["", "Summe netto", "", "", "473,00"],
            &["3", "not an item", "1", "1,00", "1,00"],
        ]);
        let items = find_line_items(&[t]);
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0].description.as_deref(),
            Some("Trennblätter A4 grau")
        );
        assert_eq!(items[0].quantity.as_deref(), Some("20"));
        assert_eq!(items[0].unit_price.as_deref(), Some("9.90"));
        assert_eq!(items[0].line_total.as_deref(), Some("198.00"));
        assert_eq!(items[1].line_total.as_deref(), Some("275.00"));
        let source = items[0].source.expect("box");
        assert_eq!(source.method, Method::Table);
        // The continuation row is inside the item's box.
        assert!(source.bbox.bottom() >= 34.0);
    }

    #[test]
    fn an_english_table_without_quantity() {
        let t = table(&[
            &["Description", "Amount"],
            &["Consulting", "$ 1,200.00"],
            &["Travel", "$ 80.50"],
        ]);
        let items = find_line_items(&[t]);
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].description.as_deref(), Some("Travel"));
        assert_eq!(items[1].quantity, None);
        assert_eq!(items[1].line_total.as_deref(), Some("80.50"));
    }

    #[test]
    fn a_table_without_item_header_gives_nothing() {
        let t = table(&[&["Name", "Stadt"], &["A", "Berlin"], &["B", "Köln"]]);
        assert!(find_line_items(&[t]).is_empty());
    }
}
