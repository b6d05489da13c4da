//! Invoice lines from the document's tables: a table whose header row names a description
//! column and an amount column (`Bezeichnung … Menge … Einzelpreis … Gesamt`, `Description …
//! Qty … Unit price … Amount`) is read row by row into description, quantity, unit price and
//! line total, each row keeping its box.
//!
//! A row is an item when it has a description and a line total (or a unit price) that reads
//! as an amount; a row of text only continues the description above it; a totals row
//! (`Summe`, `Total`, `Zwischensumme`…) ends the table.

use doc_model::{LineItem, Method, Page, PageBox, Provenance, Table, Word};

use crate::header::normalize::find_amounts;
use crate::segments::{Segment, join_words, segments, words_box};
use crate::vocabulary::{LineItemColumn, fold, line_item_column_exact, line_item_column_of};

/// A column's role in a line-item table: the vocabulary's line-item columns.
type Role = LineItemColumn;

/// Row openers that end the item rows.
const TOTALS: &[&str] = &[
    "summe",
    "netto",
    "brutto",
    "nettosumme",
    "bruttosumme",
    "endbetrag",
    "zahlbetrag",
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

/// The role a header cell names ([`line_item_column_of`]).
fn role_of(text: &str) -> Option<Role> {
    line_item_column_of(text)
}

/// The invoice lines of every table that reads as a line-item table, in document order.
pub fn find_line_items(tables: &[Table]) -> Vec<LineItem> {
    tables.iter().flat_map(items_of_table).collect()
}

/// The invoice lines of a document: read from the pages' layout under a line-item header row
/// (columns from the header's positions; an item's values may sit a little lower than its
/// description, as they often do), else from the tables found ([`find_line_items`]).
pub fn find_document_line_items(pages: &[Page], tables: &[Table]) -> Vec<LineItem> {
    let mut from_layout: Vec<LineItem> = Vec::new();
    let mut carry: Option<Carry> = None;
    for page in pages {
        let (items, open) = items_of_page(page, carry.take());
        from_layout.extend(items);
        carry = open;
    }
    if from_layout.is_empty() {
        find_line_items(tables)
    } else {
        from_layout
    }
}

/// The columns (and glyph height) of an item list that ran to the bottom of its page: the list
/// goes on at the top of the next page, which does not repeat the header.
type Carry = (Vec<Column>, f64);

/// One header column: its role (if any), horizontal extent, and whether it is a second-line
/// description heading under another heading (`Art-Nr-Lieferant` over `Artikelbezeichnung`).
#[derive(Clone)]
struct Column {
    role: Option<Role>,
    x0: f64,
    x1: f64,
    /// For the description: an item's description is printed on its second line, under the
    /// value of the heading stacked above.
    second_line: bool,
}

/// The columns of a header (one or two rows). A heading whose leading words name nothing but
/// whose last word does (`MwSt-% Nettowert`) is two columns. Headings of the two rows that
/// stand over one another are one column (`Preis/` over `Einheit`, `Art-Nr-Lieferant` over
/// `Artikelbezeichnung`), named by the lower heading, else the upper one; a description named
/// by the lower heading under a heading without a role prints on the item's second line.
fn header_columns_of(header: &[&Segment<'_>], header_row: usize) -> Vec<Column> {
    // (column, its row, its text)
    let mut cells: Vec<(Column, usize, String)> = Vec::new();
    for s in header {
        let cell = |words: &[&Word], role| {
            words_box(words).map(|b| {
                (
                    Column {
                        role,
                        x0: b.x,
                        x1: b.right(),
                        second_line: false,
                    },
                    s.row,
                    join_words(words),
                )
            })
        };
        let n = s.words.len();
        let last_role = s
            .words
            .last()
            .filter(|_| n > 1)
            .and_then(|w| line_item_column_exact(&w.text));
        let leading_role = role_of(&join_words(&s.words[..n.saturating_sub(1)]));
        // A heading the vocabulary names whole (`Unit price`) is one column.
        let named_whole = line_item_column_exact(&s.text()).is_some();
        match (role_of(&s.text()), last_role) {
            (whole, Some(last))
                if !named_whole && leading_role.is_none() && whole.is_none_or(|r| r == last) =>
            {
                cells.extend(cell(&s.words[..n - 1], None));
                cells.extend(cell(&s.words[n - 1..], Some(last)));
            }
            (role, _) => cells.extend(cell(&s.words, role)),
        }
    }
    let (upper, lower): (Vec<_>, Vec<_>) = cells.into_iter().partition(|(_, r, _)| *r < header_row);
    let mut used = vec![false; upper.len()];
    let mut out: Vec<Column> = Vec::new();
    for (mut column, _, _) in lower {
        let above: Vec<usize> = upper
            .iter()
            .enumerate()
            .filter(|(_, (u, _, _))| u.x0 < column.x1 && column.x0 < u.x1)
            .map(|(i, _)| i)
            .collect();
        for i in &above {
            used[*i] = true;
            column.x0 = column.x0.min(upper[*i].0.x0);
            column.x1 = column.x1.max(upper[*i].0.x1);
        }
        let upper_role = above.iter().find_map(|i| upper[*i].0.role);
        if column.role == Some(Role::Description) && !above.is_empty() && upper_role.is_none() {
            column.second_line = true;
        }
        column.role = column.role.or(upper_role);
        out.push(column);
    }
    out.extend(
        upper
            .into_iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|((c, _, _), _)| c),
    );
    out.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    out
}

/// A table without a quantity heading may still have its quantities: in a column headed `#`
/// (or with no heading) left of the description whose values have decimals (`1,00`, `400,00`;
/// position numbers have none), or in an `Amount` column left of the description when another
/// total column follows (`Amount | Product | Price | Total`: the amount of units).
fn settle_quantity_column(columns: &mut [Column], segs: &[Segment<'_>], header_row: usize) {
    if columns.iter().any(|c| c.role == Some(Role::Quantity)) {
        return;
    }
    let Some(description_x) = columns
        .iter()
        .find(|c| c.role == Some(Role::Description))
        .map(|c| c.x0)
    else {
        return;
    };
    let totals = columns
        .iter()
        .filter(|c| c.role == Some(Role::LineTotal))
        .count();
    let below: Vec<&Segment<'_>> = segs
        .iter()
        .filter(|s| s.row > header_row && s.row <= header_row + 12)
        .collect();
    let has_decimals_under = |c: &Column| {
        below.iter().any(|s| {
            let t = s.text();
            s.bbox.x < c.x1 + 2.0 * s.height()
                && c.x0 - 2.0 * s.height() < s.bbox.right()
                && t.contains([',', '.'])
                && t.chars()
                    .all(|ch| ch.is_ascii_digit() || ch == ',' || ch == '.')
        })
    };
    let found = columns.iter().position(|c| {
        c.x1 <= description_x
            && (c.role.is_none() || (c.role == Some(Role::LineTotal) && totals > 1))
            && has_decimals_under(c)
    });
    if let Some(i) = found {
        columns[i].role = Some(Role::Quantity);
    }
}

/// Rows under a header that the arithmetic settlement reads: enough for a page of items.
const ARITHMETIC_ROWS: usize = 40;

/// The quantity, unit-price and line-total columns as the items' own arithmetic names them:
/// the three numeric columns in which `quantity × unit price = line total` holds on the most
/// rows. A language's headings can mislead (`USt.-Betrag` beside `Gesamtpreis`, `Unit` beside
/// `Unit price`, `HT` and `TTC` unnamed); the products cannot. The headings' own choice is kept
/// unless another triple agrees on more rows, on at least two rows (one when only one row has
/// three numbers) and on at least half of the rows that have three numbers; among triples
/// that agree equally, the headings' roles, then the usual left-to-right order (quantity,
/// price, total) decide. Returns whether the chosen columns' arithmetic holds on at least two
/// rows (or the only row with three numbers) and on half of the rows with three numbers: the
/// list is confirmed as items.
fn settle_by_arithmetic(columns: &mut [Column], segs: &[Segment<'_>], header_row: usize) -> bool {
    let numeric: Vec<usize> = (0..columns.len())
        .filter(|i| columns[*i].role != Some(Role::Description))
        .collect();
    if numeric.len() < 3 {
        return false;
    }
    // Per row under the header (until a totals row), each numeric column's number (a rate
    // with `%` is none).
    let mut rows: Vec<Vec<Option<f64>>> = Vec::new();
    let last = header_row + ARITHMETIC_ROWS;
    for row in header_row + 1..=last {
        let in_row: Vec<&Segment<'_>> = segs.iter().filter(|s| s.row == row).collect();
        if in_row.iter().any(|s| ends_items(s)) {
            break;
        }
        let mut values = vec![None; columns.len()];
        for s in &in_row {
            let Some(c) = column_of(columns, s) else {
                continue;
            };
            let text = s.text();
            if values[c].is_some() || text.contains('%') {
                continue;
            }
            values[c] = quantity_of(&text).and_then(|q| q.parse::<f64>().ok());
        }
        if values.iter().filter(|v| v.is_some()).count() >= 3 {
            rows.push(values);
        }
    }
    if rows.is_empty() {
        return false;
    }
    let agree = |q: usize, p: usize, t: usize| {
        rows.iter()
            .filter(|r| match (r[q], r[p], r[t]) {
                (Some(q), Some(p), Some(t)) => {
                    t != 0.0 && (q * p - t).abs() <= product_tolerance(t)
                }
                _ => false,
            })
            .count()
    };
    let role_at = |role: Role| columns.iter().position(|c| c.role == Some(role));
    let headings = (
        role_at(Role::Quantity),
        role_at(Role::UnitPrice),
        role_at(Role::LineTotal),
    );
    let headed = match headings {
        (Some(q), Some(p), Some(t)) => agree(q, p, t),
        _ => 0,
    };
    // The best triple (quantity, price, total columns) by (agreeing rows, roles the headings
    // share, in left-to-right order).
    type Ranked = ((usize, usize, bool), (usize, usize, usize));
    let mut best: Option<Ranked> = None;
    for &q in &numeric {
        for &p in &numeric {
            for &t in &numeric {
                if q == p || p == t || q == t {
                    continue;
                }
                let n = agree(q, p, t);
                if n == 0 {
                    continue;
                }
                let shared = usize::from(headings.0 == Some(q))
                    + usize::from(headings.1 == Some(p))
                    + usize::from(headings.2 == Some(t));
                let ordered = columns[q].x0 < columns[p].x0 && columns[p].x0 < columns[t].x0;
                let key = (n, shared, ordered);
                if best.is_none_or(|(b, _)| key > b) {
                    best = Some((key, (q, p, t)));
                }
            }
        }
    }
    // On two rows, or on the only row with three numbers.
    let holds = |n: usize| n >= 2.min(rows.len()) && n > 0 && 2 * n >= rows.len();
    let Some(((n, _, _), (q, p, t))) = best else {
        return false;
    };
    let enough = n >= 2.min(rows.len()) && 2 * n >= rows.len();
    if !enough || n <= headed || (Some(q), Some(p), Some(t)) == headings {
        return holds(headed);
    }
    for c in columns.iter_mut() {
        if matches!(
            c.role,
            Some(Role::Quantity | Role::UnitPrice | Role::LineTotal)
        ) {
            c.role = None;
        }
    }
    columns[q].role = Some(Role::Quantity);
    columns[p].role = Some(Role::UnitPrice);
    columns[t].role = Some(Role::LineTotal);
    holds(n)
}

impl Column {
    fn center(&self) -> f64 {
        (self.x0 + self.x1) / 2.0
    }
}

/// Row openers of item lists that end them, folded, besides [`TOTALS`].
fn ends_items(segment: &Segment<'_>) -> bool {
    let opener = segment
        .words
        .first()
        .map(|w| fold(&w.text))
        .unwrap_or_default();
    TOTALS.contains(&opener.as_str())
}

fn items_of_page(page: &Page, carry: Option<Carry>) -> (Vec<LineItem>, Option<Carry>) {
    let segs = segments(page);
    let Some(last_row) = segs.iter().map(|s| s.row).max() else {
        return (Vec::new(), carry);
    };
    let mut items = Vec::new();
    let mut row = 0;
    let mut open = None;
    if let Some((columns, height)) = carry {
        let top = segs.iter().map(|s| s.bbox.y).fold(f64::MAX, f64::min);
        let split = split_across_columns(&segs, None, &columns);
        let (found, next_row) = read_items(page, &split, None, top, height, &columns);
        items.extend(found);
        if next_row > last_row {
            open = Some((columns, height));
        }
        row = next_row;
    }
    while row <= last_row {
        let mut header: Vec<&Segment<'_>> = segs.iter().filter(|s| s.row == row).collect();
        // A header printed on two lines (`Menge` over `Artikelbeschreibung`): the next row
        // joins it when it is close and holds no amount (else it is the first item).
        let first_bottom = header
            .iter()
            .map(|s| s.bbox.bottom())
            .fold(f64::MIN, f64::max);
        let first_height = header.iter().map(|s| s.height()).fold(1.0, f64::max);
        let next: Vec<&Segment<'_>> = segs.iter().filter(|s| s.row == row + 1).collect();
        let next_joins = !next.is_empty()
            && next
                .iter()
                .all(|s| s.bbox.y - first_bottom < 0.8 * first_height)
            && next.iter().all(|s| find_amounts(&s.text()).is_empty())
            && next.iter().any(|s| role_of(&s.text()).is_some());
        let header_rows = if next_joins {
            header.extend(next);
            2
        } else {
            1
        };
        let header_row = row + header_rows - 1;
        let mut columns = header_columns_of(&header, header_row);
        let roles: Vec<Option<Role>> = columns.iter().map(|c| c.role).collect();
        let has = |r: Role| roles.contains(&Some(r));
        let amount_roles = [Role::LineTotal, Role::UnitPrice, Role::Quantity]
            .iter()
            .filter(|r| has(**r))
            .count();
        if !(has(Role::Description) && (has(Role::LineTotal) || has(Role::UnitPrice)))
            || amount_roles < 2
        {
            row += 1;
            continue;
        }
        settle_quantity_column(&mut columns, &segs, header_row);
        let header_bottom = header
            .iter()
            .map(|s| s.bbox.bottom())
            .fold(f64::MIN, f64::max);
        let height = header.iter().map(|s| s.height()).fold(1.0, f64::max);
        let split = split_across_columns(&segs, Some(header_row), &columns);
        let confirmed = settle_by_arithmetic(&mut columns, &split, header_row);
        let (mut found, next_row) = read_items(
            page,
            &split,
            Some(header_row),
            header_bottom,
            height,
            &columns,
        );
        // Where the items' arithmetic holds, a row without a quantity, a price and a total,
        // or whose three numbers break it, is a charge, a tax base or a payment printed among
        // them, not an item.
        if confirmed {
            found.retain(row_arithmetic_holds);
        }
        items.extend(found);
        open = (next_row > last_row).then_some((columns, height));
        row = next_row.max(row + 1);
    }
    (items, open)
}

/// How far a printed line total may be from quantity × unit price: half a cent either way, and
/// a hundredth of a per mille of large totals.
fn product_tolerance(total: f64) -> f64 {
    0.005 + 1e-9 + total.abs() * 1e-5
}

/// Whether a row's quantity times its unit price gives its line total, as far as the printed
/// figures can tell: the price may be rounded to its printed decimals (`0.05` for 0.052 over
/// 10,000 units) or quoted exactly per 10, 100 or 1,000 units, and a credit note's total
/// carries a sign its price does not. A row without all three numbers does not hold.
fn row_arithmetic_holds(item: &LineItem) -> bool {
    let number = |v: &Option<String>| v.as_deref().and_then(|s| s.parse::<f64>().ok());
    let (Some(quantity), Some(price), Some(total)) = (
        number(&item.quantity),
        number(&item.unit_price),
        number(&item.line_total),
    ) else {
        return false;
    };
    let price_decimals = item
        .unit_price
        .as_deref()
        .and_then(|p| p.split_once('.'))
        .map_or(0, |(_, d)| d.len());
    // A whole-number price is taken as exact; a price per several units as printed.
    let price_rounding = match i32::try_from(price_decimals) {
        Ok(d) if d > 0 => 0.5 * 10f64.powi(-d),
        _ => 0.0,
    };
    let product = (quantity * price).abs();
    let total = total.abs();
    let tolerance = product_tolerance(total);
    (product - total).abs() <= tolerance + quantity.abs() * price_rounding
        || [10.0, 100.0, 1000.0]
            .iter()
            .any(|per| (product / per - total).abs() <= tolerance)
}

/// The column a value segment falls in: the header column it overlaps most, else the nearest
/// by centre. Amounts are right-aligned under their header, text left-aligned: overlap decides.
fn column_of(columns: &[Column], s: &Segment<'_>) -> Option<usize> {
    column_of_box(columns, &s.bbox)
}

fn column_of_box(columns: &[Column], bbox: &PageBox) -> Option<usize> {
    let s = bbox;
    let overlap = |c: &Column| (c.x1.min(s.right()) - c.x0.max(s.x)).max(0.0);
    let best = columns
        .iter()
        .enumerate()
        .map(|(i, c)| (i, overlap(c)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if best.1 > 0.0 {
        return Some(best.0);
    }
    let center = s.center_x();
    columns
        .iter()
        .enumerate()
        .min_by(|a, b| {
            (a.1.center() - center)
                .abs()
                .total_cmp(&(b.1.center() - center).abs())
        })
        .map(|(i, _)| i)
}

/// The segments of the page with those under the header row split where their words fall in
/// different value columns: a quantity and the tax rate next to it set with a single space
/// (`20 Stk 19 % VAT (S)` under `Menge` and `Steuer`) are two cells. A segment that starts in
/// the description column is kept whole, as a long description may run under the next
/// heading.
fn split_across_columns<'w>(
    segs: &[Segment<'w>],
    header_row: Option<usize>,
    columns: &[Column],
) -> Vec<Segment<'w>> {
    let mut out = Vec::with_capacity(segs.len());
    for s in segs {
        let mut word_columns: Vec<Option<usize>> = s
            .words
            .iter()
            .map(|w| column_of_box(columns, &w.bbox))
            .collect();
        // An amount grouped by a space (`1,5 3 261,00`, French) is one cell: a leading group
        // that would make a second number in its column goes with the rest of its amount.
        let numeric = |w: &Word| w.text.chars().any(|c| c.is_ascii_digit());
        for i in (0..s.words.len().saturating_sub(1)).rev() {
            let crowded = (0..s.words.len())
                .any(|j| j != i && word_columns[j] == word_columns[i] && numeric(s.words[j]));
            if crowded
                && word_columns[i] != word_columns[i + 1]
                && groups_thousands(&s.words[i].text, &s.words[i + 1].text)
            {
                word_columns[i] = word_columns[i + 1];
            }
        }
        let starts_in_description = word_columns
            .first()
            .copied()
            .flatten()
            .is_some_and(|c| columns[c].role == Some(Role::Description));
        if header_row.is_some_and(|h| s.row <= h) || starts_in_description || s.words.len() < 2 {
            out.push(s.clone());
            continue;
        }
        let mut current: Vec<&'w Word> = Vec::new();
        let mut current_column = word_columns[0];
        for (w, column) in s.words.iter().zip(&word_columns) {
            if *column != current_column && !current.is_empty() {
                push_part(&mut out, s.row, std::mem::take(&mut current));
            }
            current_column = *column;
            current.push(w);
        }
        push_part(&mut out, s.row, current);
    }
    join_spaced_thousands(&mut out, header_row, columns);
    out
}

/// Joins an amount grouped by a space that the layout cut into two segments (`1,5 | 3 |
/// 261,00 EUR`, French; within one segment [`split_across_columns`] keeps it whole): a group of one to three digits whose column already holds another number of its
/// row, followed closely by a segment opening with three digits and decimals, is the leading
/// group of that amount. (A lone `2` before `150,00` is a quantity beside a price: it stays.)
fn join_spaced_thousands(
    segs: &mut Vec<Segment<'_>>,
    header_row: Option<usize>,
    columns: &[Column],
) {
    let numeric = |s: &Segment<'_>| {
        s.words
            .iter()
            .any(|w| w.text.chars().any(|c| c.is_ascii_digit()))
    };
    let mut i = 0;
    while i < segs.len() {
        let row = segs[i].row;
        let under_header = header_row.is_none_or(|h| row > h);
        let next = segs
            .iter()
            .enumerate()
            .filter(|(j, t)| *j > i && t.row == row && t.bbox.x > segs[i].bbox.right() - 0.5)
            .min_by(|a, b| a.1.bbox.x.total_cmp(&b.1.bbox.x))
            .map(|(j, _)| j);
        let join = next.filter(|j| {
            let (a, b) = (&segs[i], &segs[*j]);
            let [lead] = a.words.as_slice() else {
                return false;
            };
            let Some(first) = b.words.first() else {
                return false;
            };
            let column = column_of(columns, a);
            let crowded = segs.iter().enumerate().any(|(k, t)| {
                k != i && t.row == row && numeric(t) && column_of(columns, t) == column
            });
            under_header
                && crowded
                && b.bbox.x - a.bbox.right() < 1.5 * a.height().max(b.height())
                && groups_thousands(&lead.text, &first.text)
        });
        if let Some(j) = join {
            let mut words = segs[i].words.clone();
            words.extend(segs[j].words.iter().copied());
            if let Some(bbox) = words_box(&words) {
                segs[i] = Segment { row, words, bbox };
                segs.remove(j);
                continue;
            }
        }
        i += 1;
    }
}

/// Whether two words are one amount grouped by a space: one to three digits, then three digits
/// with a decimal comma or point and one or two decimals, or three digits ending the number
/// before another group (`1 234 567,00`).
fn groups_thousands(first: &str, next: &str) -> bool {
    let lead = first.trim_start_matches(['-', '−']);
    let leading = (1..=3).contains(&lead.len()) && lead.chars().all(|c| c.is_ascii_digit());
    let digits = next.chars().take_while(char::is_ascii_digit).count();
    let rest = &next[digits..];
    let decimals = rest
        .strip_prefix([',', '.'])
        .map(|d| d.chars().take_while(char::is_ascii_digit).count());
    leading && digits == 3 && (rest.is_empty() || matches!(decimals, Some(1 | 2)))
}

fn push_part<'w>(out: &mut Vec<Segment<'w>>, row: usize, words: Vec<&'w Word>) {
    if let Some(bbox) = words_box(&words) {
        out.push(Segment { row, words, bbox });
    }
}

/// A row under a line-item header: its number, its top, and its segments with the role of
/// the column each falls in.
type ItemRow<'s, 'w> = (usize, f64, Vec<(&'s Segment<'w>, Option<Role>)>);

/// Whether a row names an item: text in the description column that is not an entry of the item
/// above (`Bruttopreis: 1,5000 €`, `Basismenge: 1 Stk`, `GTIN: 4012345001235`, `Artikelrabatt
/// 2:`), unless the row has a quantity of its own (`Luftballon: Bunt, 500ml | 400`).
fn describes(cells: &[(&Segment<'_>, Option<Role>)]) -> bool {
    let quantity = cells
        .iter()
        .any(|(s, r)| *r == Some(Role::Quantity) && quantity_of(&s.text()).is_some());
    cells.iter().any(|(s, r)| {
        let text = s.text();
        let entry = text.split_whitespace().take(3).any(|w| w.contains(':'));
        *r == Some(Role::Description)
            && text.chars().any(char::is_alphabetic)
            && (!entry || quantity)
    })
}

/// Items under a header row, and the row where reading stopped.
fn read_items(
    page: &Page,
    segs: &[Segment<'_>],
    header_row: Option<usize>,
    header_bottom: f64,
    height: f64,
    columns: &[Column],
) -> (Vec<LineItem>, usize) {
    // Rows under the header (or from the top of a page the list continues on), as (row, its
    // segments with their column).
    let mut rows: Vec<ItemRow<'_, '_>> = Vec::new();
    let mut last_bottom = header_bottom;
    let mut stop = header_row.map_or(0, |h| h + 1);
    let rows_after = segs
        .iter()
        .map(|s| s.row)
        .filter(|r| header_row.is_none_or(|h| *r > h))
        .collect::<std::collections::BTreeSet<_>>();
    for r in rows_after {
        let in_row: Vec<&Segment<'_>> = segs.iter().filter(|s| s.row == r).collect();
        let top = in_row.iter().map(|s| s.bbox.y).fold(f64::MAX, f64::min);
        stop = r;
        // A wide gap ends the list, and so does a totals row whose label stands in the
        // description column or left of it; a sub-total under the amounts (`Subtotal $ 112.00`
        // between sections) is skipped.
        if top - last_bottom > 6.0 * height {
            break;
        }
        let description_right = columns
            .iter()
            .filter(|c| c.role == Some(Role::Description))
            .map(|c| c.x1)
            .fold(f64::MIN, f64::max);
        if let Some(totals) = in_row.iter().find(|s| ends_items(s)) {
            if totals.bbox.x < description_right {
                break;
            }
            last_bottom = totals.bbox.bottom().max(last_bottom);
            continue;
        }
        last_bottom = in_row
            .iter()
            .map(|s| s.bbox.bottom())
            .fold(last_bottom, f64::max);
        let cells = in_row
            .iter()
            .map(|s| (*s, column_of(columns, s).and_then(|c| columns[c].role)))
            .collect();
        rows.push((r, top, cells));
        stop = r + 1;
    }
    // An item starts at a row with a description whose amounts stand on it or within a line
    // and a half below.
    let amount_in = |cells: &[(&Segment<'_>, Option<Role>)], role: Role| {
        cells
            .iter()
            .filter(|(_, r)| *r == Some(role))
            .find_map(|(s, _)| amount_of(&s.text()))
    };
    let mut starts = Vec::new();
    for (i, (_, top, cells)) in rows.iter().enumerate() {
        let has_description = describes(cells);
        if !has_description {
            continue;
        }
        // On a recognised (slightly skewed) page the amounts of an item may stand a little
        // higher than its description and land on a row of their own: a row of amounts
        // without a description just above, nearer this description than the previous one,
        // is this item's.
        let lead = i.checked_sub(1).filter(|above| {
            let (_, above_top, above_cells) = &rows[*above];
            let gap = top - above_top;
            let nearer_here = starts
                .last()
                .is_none_or(|last: &usize| above_top - rows[*last].1 > gap);
            !describes(above_cells)
                && gap < 0.6 * height
                && nearer_here
                && starts.last() != Some(above)
                && (amount_in(above_cells, Role::LineTotal).is_some()
                    || amount_in(above_cells, Role::UnitPrice).is_some())
        });
        // The row itself and the rows just under it that have no description of their own
        // (a row with one is the next item's).
        let near: Vec<&ItemRow<'_, '_>> = lead
            .map(|above| &rows[above])
            .into_iter()
            .chain(
                rows[i..]
                    .iter()
                    .enumerate()
                    .take_while(|(k, (_, t, c))| {
                        *k == 0 || (*t - top < 1.5 * height && !describes(c))
                    })
                    .map(|(_, row)| row),
            )
            .collect();
        let priced = near.iter().any(|(_, _, c)| {
            amount_in(c, Role::LineTotal).is_some() || amount_in(c, Role::UnitPrice).is_some()
        });
        // A row with a total but no quantity or price of its own, under an item that has no
        // total yet, is the rest of that item (its second description line carries the total).
        let own_terms = near.iter().any(|(_, _, c)| {
            amount_in(c, Role::UnitPrice).is_some()
                || c.iter()
                    .any(|(s, r)| *r == Some(Role::Quantity) && quantity_of(&s.text()).is_some())
        });
        let open_item = starts.last().is_some_and(|last: &usize| {
            rows[*last..i]
                .iter()
                .all(|(_, _, c)| amount_in(c, Role::LineTotal).is_none())
        });
        if !own_terms && open_item {
            continue;
        }
        if priced
            && starts
                .last()
                .is_none_or(|last: &usize| rows[*last].1 + 0.5 * height < *top)
        {
            starts.push(lead.unwrap_or(i));
        }
    }
    let mut items = Vec::new();
    for (n, start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(rows.len());
        let block = &rows[*start..end];
        let first = |role: Role, read: fn(&str) -> Option<String>| {
            block.iter().find_map(|(_, _, cells)| {
                cells
                    .iter()
                    .filter(|(_, r)| *r == Some(role))
                    .find_map(|(s, _)| read(&s.text()))
            })
        };
        // Under stacked headings the first line holds the values of the heading above the
        // description (an article number), the description follows on the next line.
        let second_line = columns
            .iter()
            .any(|c| c.role == Some(Role::Description) && c.second_line);
        // The item's own description row: the first of its block that describes (its amounts
        // may lead on a row above it).
        let own = block
            .iter()
            .position(|(_, _, cells)| describes(cells))
            .unwrap_or(0);
        let description_row = if second_line
            && block.get(own + 1).is_some_and(|(_, t, cells)| {
                *t - block[own].1 < 1.5 * height
                    && cells.iter().any(|(s, r)| {
                        *r == Some(Role::Description) && s.text().chars().any(char::is_alphabetic)
                    })
            }) {
            own + 1
        } else {
            own
        };
        let description = block[description_row]
            .2
            .iter()
            .filter(|(_, r)| *r == Some(Role::Description))
            .map(|(s, _)| s.text())
            .collect::<Vec<_>>()
            .join(" ");
        let boxes: Vec<PageBox> = block
            .iter()
            .flat_map(|(_, _, cells)| cells.iter().map(|(s, _)| s.bbox))
            .collect();
        let item = LineItem {
            description: Some(collapse(&description)),
            quantity: first(Role::Quantity, quantity_of),
            unit_price: first(Role::UnitPrice, amount_of),
            line_total: first(Role::LineTotal, amount_of),
            source: PageBox::union_all(boxes.iter()).map(|bbox| Provenance {
                page: page.page,
                bbox,
                method: Method::Table,
            }),
        };
        if is_item(&item) {
            items.push(item);
        }
    }
    (items, stop)
}

/// Openers of rows that are allowances or charges on the document, set like items after the
/// list (`Rechnungsrabatt 1`, `Sondernachlass`, `Abschlag Lagerware`, `Zuschlag`), folded
/// stems.
const ALLOWANCE_STEMS: &[&str] = &[
    "rabatt",
    "nachlass",
    "abschlag",
    "zuschlag",
    "skonto",
    "discount",
    "allowance",
    "remise",
];

/// Whether a row read under the item header is an item: it has a line total, or a unit price
/// and a quantity (a lone number beside text is a register number or a footer's figure:
/// `HRB 372876`, `GLN …`); its description is no entry of the item above (`: 1,50 Abschlag
/// :`, `Bruttopreis :1,5000`) and no document-level allowance or charge.
fn is_item(item: &LineItem) -> bool {
    let description = item.description.as_deref().unwrap_or_default();
    let first_word = description
        .split_whitespace()
        .next()
        .map(fold)
        .unwrap_or_default();
    let priced =
        item.line_total.is_some() || (item.unit_price.is_some() && item.quantity.is_some());
    // `: 1,50 Abschlag :`, `Bruttopreis :1,5000`: a label and its figure, no item.
    let entry = description.trim_start().starts_with(':')
        || description.split_whitespace().take(3).any(|w| {
            w.split_once(':')
                .is_some_and(|(_, after)| after.starts_with(|c: char| c.is_ascii_digit()))
        });
    let allowance = ALLOWANCE_STEMS.iter().any(|s| first_word.contains(s));
    priced && !entry && !allowance
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
    // Eight digits or more without a decimal separator are an article number or GTIN
    // (`4123456001035`), not a price.
    let digits = amount.decimal.chars().filter(char::is_ascii_digit).count();
    if digits >= 8 && !text[amount.start..amount.end].contains([',', '.']) {
        return None;
    }
    let rest: String = format!("{}{}", &text[..amount.start], &text[amount.end..]);
    // What is left may be a currency, a unit or a sign, not another word.
    (rest.chars().filter(|c| c.is_alphabetic()).count() <= 5).then(|| amount.decimal.clone())
}

/// A quantity: the first number of the cell (`20`, `1,5 Stk`, `3 h`), also with its unit
/// glued to it (`4kg`: recognition drops the narrow space; a cell of a number and up to five
/// letters, nothing else).
fn quantity_of(text: &str) -> Option<String> {
    let Some(amount) = find_amounts(text).into_iter().next() else {
        let text = text.trim();
        let split = text.find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))?;
        let (number, unit) = text.split_at(split);
        let unit = unit.strip_suffix('.').unwrap_or(unit);
        let is_unit =
            (1..=5).contains(&unit.chars().count()) && unit.chars().all(char::is_alphabetic);
        return (number.starts_with(|c: char| c.is_ascii_digit()) && is_unit)
            .then(|| quantity_of(&format!("{number} {unit}")))
            .flatten();
    };
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
    fn items_are_read_under_a_header_row_with_totals_set_lower() {
        use crate::segments::test_pages::page;
        // Like the FeRD samples: the line total sits a line lower than its description, a
        // second description line carries nothing, and the totals row ends the list.
        let p = page(
            &[
                ("Pos", 50.0, 100.0),
                ("Beschreibung", 120.0, 100.0),
                ("Nettopreis", 330.0, 100.0),
                ("Menge", 400.0, 100.0),
                ("Nettobetrag", 480.0, 100.0),
                ("1", 50.0, 120.0),
                ("Trennblätter A4", 120.0, 120.0),
                ("9,9000", 335.0, 120.0),
                ("20 Stk", 402.0, 120.0),
                ("198,00", 500.0, 128.0),
                ("grau, gelocht", 120.0, 132.0),
                ("2", 50.0, 160.0),
                ("Joghurt Banane", 120.0, 160.0),
                ("5,5000", 335.0, 160.0),
                ("50 Stk", 402.0, 160.0),
                ("275,00", 500.0, 168.0),
                ("Summe Positionen", 120.0, 200.0),
                ("473,00", 500.0, 200.0),
            ],
            Vec::new(),
            1.0,
        );
        let items = find_document_line_items(std::slice::from_ref(&p), &[]);
        assert_eq!(items.len(), 2, "{items:#?}");
        assert_eq!(items[0].description.as_deref(), Some("Trennblätter A4"));
        assert_eq!(items[0].quantity.as_deref(), Some("20"));
        assert_eq!(items[0].unit_price.as_deref(), Some("9.9000"));
        assert_eq!(items[0].line_total.as_deref(), Some("198.00"));
        assert_eq!(items[1].description.as_deref(), Some("Joghurt Banane"));
        assert_eq!(items[1].line_total.as_deref(), Some("275.00"));
        let source = items[1].source.expect("box");
        assert_eq!((source.page, source.method), (1, Method::Table));
        assert!(source.bbox.y >= 159.0 && source.bbox.bottom() < 200.0);
    }

    fn layout_items(pieces: &[(&str, f64, f64)]) -> Vec<LineItem> {
        let p = crate::segments::test_pages::page(pieces, Vec::new(), 1.0);
        find_document_line_items(std::slice::from_ref(&p), &[])
    }

    #[test]
    fn the_items_arithmetic_names_the_columns_the_headings_misname() {
        // `USt.-Betrag` (the line's tax) stands where a total is expected and `Gesamtpreis`
        // after it: quantity × price = total holds for the last column only.
        let items = layout_items(&[
            ("Artikel", 50.0, 100.0),
            ("Anz.", 250.0, 100.0),
            ("Einzelpreis", 300.0, 100.0),
            ("Steuerbetrag", 380.0, 100.0),
            ("Gesamtpreis", 470.0, 100.0),
            ("Softwarelizenz", 50.0, 120.0),
            ("3,5", 255.0, 120.0),
            ("18,00", 310.0, 120.0),
            ("11,97", 390.0, 120.0),
            ("63,00", 480.0, 120.0),
            ("Programmierung", 50.0, 135.0),
            ("20", 255.0, 135.0),
            ("38,00", 310.0, 135.0),
            ("144,40", 390.0, 135.0),
            ("760,00", 480.0, 135.0),
        ]);
        assert_eq!(items.len(), 2, "{items:#?}");
        assert_eq!(items[0].line_total.as_deref(), Some("63.00"));
        assert_eq!(items[1].line_total.as_deref(), Some("760.00"));
        assert_eq!(items[1].unit_price.as_deref(), Some("38.00"));
        assert_eq!(items[1].quantity.as_deref(), Some("20"));
    }

    /// The descriptions of the items read from two items whose products hold, under a
    /// `Description | Qty | Unit price | Total` header, followed by `after`.
    fn items_after_two_that_hold(after: &[(&str, f64, f64)]) -> Vec<String> {
        let mut pieces = vec![
            ("Description", 50.0, 100.0),
            ("Qty", 250.0, 100.0),
            ("Unit price", 300.0, 100.0),
            ("Total", 470.0, 100.0),
            ("Test Product A", 50.0, 120.0),
            ("2", 255.0, 120.0),
            ("100.00", 310.0, 120.0),
            ("200.00", 480.0, 120.0),
            ("Test Product B", 50.0, 135.0),
            ("3", 255.0, 135.0),
            ("10.00", 310.0, 135.0),
            ("30.00", 480.0, 135.0),
        ];
        pieces.extend_from_slice(after);
        layout_items(&pieces)
            .iter()
            .filter_map(|i| i.description.clone())
            .collect()
    }

    #[test]
    fn rows_the_arithmetic_does_not_hold_for_are_no_items_once_it_holds() {
        // A surcharge with a total only: a charge on the document, not an item.
        let names = items_after_two_that_hold(&[
            ("Colour surcharge", 50.0, 150.0),
            ("60.00", 480.0, 150.0),
        ]);
        assert_eq!(names, ["Test Product A", "Test Product B"]);
    }

    #[test]
    fn a_row_whose_three_numbers_break_the_arithmetic_is_no_item_once_it_holds() {
        // A deposit row with three numbers that do not multiply (a payment's reference, a rate
        // and an amount).
        let names = items_after_two_that_hold(&[
            ("Deposit", 50.0, 150.0),
            ("858.75", 255.0, 150.0),
            ("2.5", 310.0, 150.0),
            ("-21.25", 480.0, 150.0),
        ]);
        assert_eq!(names, ["Test Product A", "Test Product B"]);
    }

    #[test]
    fn a_rows_arithmetic_allows_rounded_prices_price_units_and_credit_signs() {
        let row = |q: &str, p: &str, t: &str| LineItem {
            description: Some("x".into()),
            quantity: Some(q.into()),
            unit_price: Some(p.into()),
            line_total: Some(t.into()),
            source: None,
        };
        assert!(row_arithmetic_holds(&row("3", "10.00", "30.00")));
        // A price printed to two decimals over 10,000 units (0.052 each).
        assert!(row_arithmetic_holds(&row("10000", "0.05", "520.00")));
        // A price per 100 units.
        assert!(row_arithmetic_holds(&row("250", "12.00", "30.00")));
        // A credit note's negative total.
        assert!(row_arithmetic_holds(&row("5", "4.10", "-20.50")));
        assert!(!row_arithmetic_holds(&row("850", "0", "19")));
        assert!(!row_arithmetic_holds(&row("2000", "1", "0.00")));
        assert!(!row_arithmetic_holds(&row("3", "4.00", "10.00")));
        let mut no_quantity = row("1", "4.00", "4.00");
        no_quantity.quantity = None;
        assert!(!row_arithmetic_holds(&no_quantity));
    }

    #[test]
    fn an_amount_grouped_by_a_space_stays_whole_when_the_layout_cuts_it() {
        // `1,5` under `Qté` and `3 261,00 EUR` under `Total HT`, set close enough to be one
        // run, the leading `3` nearer `Qté`.
        let items = layout_items(&[
            ("Désignation", 50.0, 100.0),
            ("Prix unitaire HT", 300.0, 100.0),
            ("Qté", 440.0, 100.0),
            ("Total HT", 490.0, 100.0),
            ("Contrat de maintenance", 50.0, 120.0),
            ("2 174,00", 310.0, 120.0),
            ("1,5", 440.0, 120.0),
            ("3", 468.0, 120.0),
            ("261,00 EUR", 480.0, 120.0),
            ("Frais de déplacement", 50.0, 135.0),
            ("63,00", 320.0, 135.0),
            ("30", 440.0, 135.0),
            ("1 890,00 EUR", 469.0, 135.0),
        ]);
        assert_eq!(items.len(), 2, "{items:#?}");
        assert_eq!(items[0].line_total.as_deref(), Some("3261.00"));
        assert_eq!(items[0].quantity.as_deref(), Some("1.5"));
        assert_eq!(items[1].line_total.as_deref(), Some("1890.00"));
        assert!(groups_thousands("3", "261,00") && groups_thousands("12", "345"));
        assert!(!groups_thousands("2", "1500,00") && !groups_thousands("1234", "567,00"));
    }

    #[test]
    fn amounts_a_little_above_their_description_are_its_own() {
        // A recognised page, slightly skewed: each item's amounts stand 4 points higher than
        // its description and form a row of their own.
        let items = layout_items(&[
            ("Beschreibung", 50.0, 100.0),
            ("Menge", 300.0, 100.0),
            ("Einzelpreis", 360.0, 100.0),
            ("Gesamt", 470.0, 100.0),
            ("5", 305.0, 116.0),
            ("62,51", 365.0, 116.0),
            ("312,55", 480.0, 116.0),
            ("Wartungsvertrag", 50.0, 121.0),
            ("1,5", 305.0, 136.0),
            ("417,10", 365.0, 136.0),
            ("625,65", 480.0, 136.0),
            ("Beratung", 50.0, 141.0),
        ]);
        assert_eq!(items.len(), 2, "{items:#?}");
        assert_eq!(items[0].description.as_deref(), Some("Wartungsvertrag"));
        assert_eq!(items[0].line_total.as_deref(), Some("312.55"));
        assert_eq!(items[1].description.as_deref(), Some("Beratung"));
        assert_eq!(items[1].quantity.as_deref(), Some("1.5"));
    }

    #[test]
    fn a_value_run_across_two_columns_is_split_between_them() {
        // `20 Stk 19 % VAT (S)` is set as one run under `Menge` and `Steuer`; it overlaps the
        // tax column more, and the quantity was lost.
        let items = layout_items(&[
            ("Pos", 50.0, 100.0),
            ("Beschreibung", 100.0, 100.0),
            ("Nettopreis", 200.0, 100.0),
            ("Menge", 290.0, 100.0),
            ("Steuer", 350.0, 100.0),
            ("Entgelt", 450.0, 100.0),
            ("1", 50.0, 120.0),
            ("Trennblätter", 100.0, 120.0),
            ("9,90", 215.0, 120.0),
            ("20 Stk 19 % VAT (S)", 290.0, 120.0),
            ("198,00", 450.0, 120.0),
        ]);
        assert_eq!(items.len(), 1, "{items:#?}");
        assert_eq!(items[0].quantity.as_deref(), Some("20"));
        assert_eq!(items[0].unit_price.as_deref(), Some("9.90"));
        // `Entgelt` names the line total.
        assert_eq!(items[0].line_total.as_deref(), Some("198.00"));
    }

    #[test]
    fn headings_stacked_over_two_rows_are_one_column() {
        // ZUGFeRD 1 layout: `Art-Nr-Lieferant` over `Artikelbezeichnung` (the article number on
        // the item's first line, its description on the second), `Preis/` over `Einheit`, and
        // `MwSt-% Nettowert` run together.
        let items = layout_items(&[
            ("Art-Nr-Lieferant", 100.0, 100.0),
            ("Menge", 260.0, 100.0),
            ("Preis/", 330.0, 100.0),
            ("Artikelbezeichnung", 100.0, 109.0),
            ("Einheit", 328.0, 109.0),
            ("MwSt-% Nettowert", 420.0, 109.0),
            ("ZS997", 100.0, 125.0),
            ("100", 262.0, 125.0),
            ("1,0000", 335.0, 125.0),
            ("19,0", 425.0, 125.0),
            ("100,00", 470.0, 125.0),
            ("Zitronensäure 100ml", 100.0, 134.0),
        ]);
        assert_eq!(items.len(), 1, "{items:#?}");
        assert_eq!(items[0].description.as_deref(), Some("Zitronensäure 100ml"));
        assert_eq!(items[0].quantity.as_deref(), Some("100"));
        assert_eq!(items[0].unit_price.as_deref(), Some("1.0000"));
        assert_eq!(items[0].line_total.as_deref(), Some("100.00"));
    }

    fn hash_table(first: &str, second: &str) -> Vec<LineItem> {
        layout_items(&[
            ("#", 50.0, 100.0),
            ("Produkt", 100.0, 100.0),
            ("Einzelpreis", 250.0, 100.0),
            ("Summe", 350.0, 100.0),
            (first, 50.0, 120.0),
            ("Gestaltung", 100.0, 120.0),
            ("160,00 €", 250.0, 120.0),
            ("160,00 €", 350.0, 120.0),
            (second, 50.0, 140.0),
            ("Luftballon", 100.0, 140.0),
            ("0,79 €", 250.0, 140.0),
            ("316,00 €", 350.0, 140.0),
            ("Rabatt:", 100.0, 148.0),
            ("-0,10", 250.0, 148.0),
            ("Netto (excl. USt.)", 100.0, 170.0),
            ("476,00", 350.0, 170.0),
        ])
    }

    #[test]
    fn quantities_under_a_hash_heading_when_they_have_decimals() {
        let items = hash_table("1,00", "400,00");
        // The `Rabatt:` entry under the second item and the `Netto` row are no items.
        assert_eq!(items.len(), 2, "{items:#?}");
        assert_eq!(items[0].quantity.as_deref(), Some("1"));
        assert_eq!(items[1].quantity.as_deref(), Some("400"));
        assert_eq!(items[1].unit_price.as_deref(), Some("0.79"));
        assert_eq!(items[1].line_total.as_deref(), Some("316.00"));
        // Position numbers under `#` are no quantities.
        let items = hash_table("1", "2");
        assert_eq!(items.len(), 2, "{items:#?}");
        assert!(items.iter().all(|i| i.quantity.is_none()), "{items:#?}");
    }

    #[test]
    fn an_amount_column_left_of_the_description_counts_units() {
        // `Amount | Product | Price | Total`: the first column is how many.
        let items = layout_items(&[
            ("Amount", 60.0, 100.0),
            ("Product", 120.0, 100.0),
            ("Price", 346.0, 100.0),
            ("Total", 420.0, 100.0),
            ("400.00", 60.0, 120.0),
            ("Ballons: various colors", 120.0, 120.0),
            ("0.79 €", 346.0, 120.0),
            ("316.00 €", 420.0, 120.0),
        ]);
        assert_eq!(items.len(), 1, "{items:#?}");
        assert_eq!(items[0].quantity.as_deref(), Some("400"));
        assert_eq!(items[0].line_total.as_deref(), Some("316.00"));
    }

    #[test]
    fn a_list_that_runs_to_the_page_end_goes_on_on_the_next_page() {
        use crate::segments::test_pages::page;
        let first = page(
            &[
                ("Pos", 50.0, 700.0),
                ("Beschreibung", 100.0, 700.0),
                ("Nettopreis", 200.0, 700.0),
                ("Menge", 290.0, 700.0),
                ("Entgelt", 450.0, 700.0),
                ("1", 50.0, 720.0),
                ("Trennblätter A4", 100.0, 720.0),
                ("9,90", 215.0, 720.0),
                ("20 Stk", 290.0, 720.0),
                ("198,00", 450.0, 720.0),
            ],
            Vec::new(),
            1.0,
        );
        let mut second = page(
            &[
                ("2", 50.0, 60.0),
                ("Joghurt Banane", 100.0, 60.0),
                ("5,50", 215.0, 60.0),
                ("50 Stk", 290.0, 60.0),
                ("275,00", 450.0, 60.0),
                ("Summe Positionen", 100.0, 100.0),
                ("473,00", 450.0, 100.0),
            ],
            Vec::new(),
            1.0,
        );
        second.page = 2;
        let items = find_document_line_items(&[first, second.clone()], &[]);
        assert_eq!(items.len(), 2, "{items:#?}");
        assert_eq!(items[1].description.as_deref(), Some("Joghurt Banane"));
        assert_eq!(items[1].quantity.as_deref(), Some("50"));
        assert_eq!(items[1].line_total.as_deref(), Some("275.00"));
        // A page of its own has no header to read it by.
        assert!(find_document_line_items(&[second], &[]).is_empty());
    }

    #[test]
    fn allowances_entries_and_footer_figures_under_the_list_are_no_items() {
        let items = layout_items(&[
            ("Pos", 50.0, 100.0),
            ("Beschreibung", 100.0, 100.0),
            ("Nettopreis", 260.0, 100.0),
            ("Menge", 330.0, 100.0),
            ("Entgelt", 450.0, 100.0),
            ("1", 50.0, 120.0),
            ("Gelierzucker", 100.0, 120.0),
            ("1,45", 270.0, 120.0),
            ("50", 335.0, 120.0),
            ("72,50", 450.0, 120.0),
            // An entry of the item above whose label stands in the description column.
            ("Bruttopreis :1,5000", 100.0, 132.0),
            ("0,05", 335.0, 132.0),
            ("2", 450.0, 132.0),
            // A document-level allowance set like an item.
            ("Sondernachlass", 100.0, 150.0),
            ("19", 335.0, 150.0),
            ("10,00", 270.0, 150.0),
            ("-1,00", 450.0, 150.0),
            // A register number and an article number (a GTIN is no price).
            ("GMBH Geschäftsführung:", 100.0, 170.0),
            ("372876", 270.0, 170.0),
            ("JOG103", 100.0, 190.0),
            ("4123456001035", 262.0, 190.0),
            ("20", 335.0, 190.0),
        ]);
        assert_eq!(items.len(), 1, "{items:#?}");
        assert_eq!(items[0].description.as_deref(), Some("Gelierzucker"));
        assert_eq!(items[0].line_total.as_deref(), Some("72.50"));
    }

    #[test]
    fn a_quantity_glued_to_its_unit_is_read() {
        // Recognised `4 kg` as `4kg` (EN16931_2_Teilrechnung at 300 dpi).
        assert_eq!(quantity_of("4kg").as_deref(), Some("4"));
        assert_eq!(quantity_of("1,5Stk.").as_deref(), Some("1.5"));
        assert_eq!(quantity_of("20 Stk").as_deref(), Some("20"));
        // An article number or a word is no quantity.
        assert_eq!(quantity_of("4kgPaket"), None);
        assert_eq!(quantity_of("kg"), None);
        assert_eq!(quantity_of("A4"), None);
    }

    #[test]
    fn a_table_without_item_header_gives_nothing() {
        let t = table(&[&["Name", "Stadt"], &["A", "Berlin"], &["B", "Köln"]]);
        assert!(find_line_items(&[t]).is_empty());
    }
}
