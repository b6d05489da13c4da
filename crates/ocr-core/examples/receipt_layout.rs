//! Receipt layout figures: lays out pages as `/ocr` does after recognition
//! (`ocr_core::layout::analyze`, no picture, so no rulings) and compares the blocks and tables
//! with a truth.
//!
//! Generated receipts (`testdata/receipt-gen`): pages are `<name>.page.json` (one
//! `doc_model::Page`, from `testdata/receipt-gen/layout_pages.py`: the undegraded text layer) or
//! `<name>.pages.json` (an array, from the `receipt_pages` example: recognised pictures); the
//! truth is the generator's `ground-truth.jsonl`.
//!
//! SROIE receipts (`--sroie DIR`: `NNN.csv` line transcripts with boxes, `NNN.json` key
//! fields): pages are built from the transcripts (each transcribed segment one line, its words'
//! boxes split by characters: the layout without recognition mistakes) or, with `--pages DIR`,
//! the recognised `NNN.pages.json`. `--half even|odd` keeps the receipts at even or odd
//! positions (from 0) of the sorted file list.
//!
//! ```sh
//! cargo run -p ocr-core --example receipt_layout -- PAGES_DIR ground-truth.jsonl \
//!     [--families a,b,...] [--show NAME|all]
//! cargo run -p ocr-core --example receipt_layout -- --sroie RECEIPTS_DIR [--pages DIR] \
//!     [--half even|odd] [--show NNN|all]
//! # pages that are not receipts (invoices): how many are laid out as a slip
//! cargo run -p ocr-core --example receipt_layout -- PAGES_DIR --not-receipts
//! ```
//!
//! Measures (per receipt unless said otherwise):
//! - *slip*: the page has an item table (the first `table` block) and a totals table (the next);
//! - *item lines right* (per truth item line): a row of the item table whose price cell (the
//!   table's rightmost column of amounts) holds the line's amount and whose description cell
//!   (column 0) is the printed description (upper case, spaces collapsed, an item code of four
//!   or more digits in front set aside; on recognised pages within a tenth of its characters
//!   by edit distance); *price in the price column*: the same
//!   without the description; *quantity right*: where a quantity is printed, a cell of that row
//!   starts with it;
//! - *rows right*: the item table has one row per item line (a column-heading row not counted);
//! - *total typed*: the totals table's amount column holds the total;
//! - *header* (of the receipts whose company is printed): every company line is in the blocks
//!   above the item table, and a `heading` block holds the company's first line; *heading
//!   first*: the first block is that heading;
//! - *top to bottom*: no block lies wholly above the block before it (blocks side by side on
//!   one printed row read left to right).
//!
//! SROIE has key fields but no item truth: its *item amounts* are the transcript's amounts that
//! end a row at the right (tax codes of one or two capitals after them skipped; within two
//! glyph heights of the rightmost such amount's right edge) between the company's rows (the
//! first run of rows found in the company's name, a tenth of the characters free) and the
//! first row holding a total word with the receipt's total, on rows without a total, tax,
//! rounding, cash or change word. Scored there: the share of those
//! amounts found in the item table's price column (as values), and the share of price cells
//! that are one of them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use doc_model::{Block, BlockKind, Page, Table};
use ocr_core::layout::{PageLayout, analyze};

/// Upper case, spaces collapsed.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_uppercase()
}

/// Upper-case letters and digits only.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_uppercase)
        .collect()
}

fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `needle` found in `hay` as a substring with at most a tenth of its characters wrong (edit
/// distance of the best-aligned substring), after [`squash`].
fn fuzzy_contains(hay: &str, needle: &str, exact: bool) -> bool {
    let (h, n): (Vec<char>, Vec<char>) = (
        squash(hay).chars().collect(),
        squash(needle).chars().collect(),
    );
    if n.is_empty() {
        return false;
    }
    if exact {
        return squash(hay).contains(&squash(needle));
    }
    // Semi-global alignment: free start and end in `hay`.
    let mut prev = vec![0usize; h.len() + 1];
    for (i, cn) in n.iter().enumerate() {
        let mut cur = vec![i + 1; h.len() + 1];
        for (j, ch) in h.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(cn != ch))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    let best = prev.into_iter().min().unwrap_or(usize::MAX);
    best * 10 <= n.len()
}

/// The description cell against the truth's description, an item code printed in front of it
/// (a token of four or more digits the truth does not start with) set aside.
fn same_text(got: &str, want: &str, exact: bool) -> bool {
    let (mut g, w) = (norm(got), norm(want));
    if let Some((first, rest)) = g.split_once(' ')
        && first.len() >= 4
        && first.chars().all(|c| c.is_ascii_digit())
        && !w.starts_with(first)
    {
        g = rest.to_owned();
    }
    if exact || g == w {
        return g == w;
    }
    let (g, w): (Vec<char>, Vec<char>) = (g.chars().collect(), w.chars().collect());
    edit_distance(&g, &w) * 10 <= w.len()
}

/// The value of a printed amount (`1,234.56`, `1.234,56`, `1'234.50`, `2,44-`, `(0.02)`, a
/// currency before or after, `/KG` after): two decimals after the last mark.
fn amount(token: &str) -> Option<f64> {
    let t = token.split('/').next()?;
    let negative = t.contains('-') || t.starts_with('(');
    let kept: String = t
        .chars()
        .filter(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
        .collect();
    let kept = kept.trim_matches(['.', ',']);
    let mark = kept.rfind(['.', ','])?;
    if kept.len() - mark - 1 != 2 {
        return None;
    }
    let whole: String = kept[..mark].chars().filter(char::is_ascii_digit).collect();
    let value: f64 = format!("{whole}.{}", &kept[mark + 1..]).parse().ok()?;
    Some(if negative { -value } else { value })
}

fn close(a: f64, b: f64) -> bool {
    (a.abs() - b.abs()).abs() < 0.005
}

/// The slip's item and totals tables: the first `table` block and the next one, found among
/// the layout's tables by their box.
fn slip_tables(layout: &PageLayout) -> (Option<&Table>, Option<&Table>, Option<usize>) {
    let blocks: Vec<(usize, &Block)> = layout
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.kind == BlockKind::Table)
        .collect();
    let find = |b: &Block| layout.tables.iter().find(|t| t.bbox == b.bbox);
    let items = blocks.first().and_then(|(_, b)| find(b));
    let totals = blocks.get(1).and_then(|(_, b)| find(b));
    (items, totals, blocks.first().map(|(i, _)| *i))
}

/// The rightmost column of `table` in which most rows hold an amount.
fn price_column(table: &Table) -> Option<usize> {
    (0..table.cols as usize).rev().find(|&c| {
        let n = table
            .matrix
            .iter()
            .filter(|r| r[c].split_whitespace().last().and_then(amount).is_some())
            .count();
        2 * n >= table.matrix.len().max(1)
    })
}

fn cell_amount(cell: &str) -> Option<f64> {
    cell.split_whitespace().find_map(amount)
}

#[derive(Default)]
struct Tally {
    receipts: usize,
    slip: usize,
    items: usize,
    items_right: usize,
    priced: usize,
    quantities: usize,
    quantities_right: usize,
    rows_right: usize,
    totals: usize,
    companies: usize,
    header: usize,
    heading_first: usize,
    ordered: usize,
    price_cells: usize,
    price_cells_right: usize,
}

impl Tally {
    fn add(&mut self, o: &Self) {
        self.receipts += o.receipts;
        self.slip += o.slip;
        self.items += o.items;
        self.items_right += o.items_right;
        self.priced += o.priced;
        self.quantities += o.quantities;
        self.quantities_right += o.quantities_right;
        self.rows_right += o.rows_right;
        self.totals += o.totals;
        self.companies += o.companies;
        self.header += o.header;
        self.heading_first += o.heading_first;
        self.ordered += o.ordered;
        self.price_cells += o.price_cells;
        self.price_cells_right += o.price_cells_right;
    }

    fn line(&self, sroie: bool) -> String {
        let share = |k: usize, n: usize| {
            if n == 0 {
                "  -  ".to_owned()
            } else {
                format!("{:.3}", k as f64 / n as f64)
            }
        };
        let n = self.receipts;
        if sroie {
            format!(
                "{n:3} receipts: slip {}, item amounts in the price column {} (of {}), price cells that are item amounts {} (of {}), total typed {}, header {} (of {}), heading first {}, top to bottom {}",
                share(self.slip, n),
                share(self.priced, self.items),
                self.items,
                share(self.price_cells_right, self.price_cells),
                self.price_cells,
                share(self.totals, n),
                share(self.header, self.companies),
                self.companies,
                share(self.heading_first, self.companies),
                share(self.ordered, n),
            )
        } else {
            format!(
                "{n:3} receipts: slip {}, item lines right {} (of {}), price in the price column {}, quantity right {} (of {}), rows right {}, total typed {}, header {}, heading first {}, top to bottom {}",
                share(self.slip, n),
                share(self.items_right, self.items),
                self.items,
                share(self.priced, self.items),
                share(self.quantities_right, self.quantities),
                self.quantities,
                share(self.rows_right, n),
                share(self.totals, n),
                share(self.header, self.companies),
                share(self.heading_first, self.companies),
                share(self.ordered, n),
            )
        }
    }
}

/// What both kinds of truth share: the header and totals measures and the order.
fn score_common(
    layout: &PageLayout,
    company_lines: &[String],
    total: Option<f64>,
    exact: bool,
    t: &mut Tally,
) {
    let (items, totals, first_table) = slip_tables(layout);
    t.receipts += 1;
    t.slip += usize::from(items.is_some() && totals.is_some());
    if let (Some(totals), Some(total)) = (totals, total) {
        t.totals += usize::from(totals.matrix.iter().any(|r| {
            r.get(1)
                .and_then(|c| cell_amount(c))
                .is_some_and(|a| close(a, total))
        }));
    }
    let above = &layout.blocks[..first_table.unwrap_or(layout.blocks.len())];
    let header_text: String = above
        .iter()
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(first) = company_lines.first() {
        t.companies += 1;
        let all_above = company_lines
            .iter()
            .all(|l| fuzzy_contains(&header_text, l, exact));
        let heading =
            |b: &Block| b.kind == BlockKind::Heading && fuzzy_contains(&b.text, first, exact);
        t.header += usize::from(all_above && above.iter().any(heading));
        t.heading_first += usize::from(layout.blocks.first().is_some_and(heading));
    }
    t.ordered += usize::from(
        layout
            .blocks
            .windows(2)
            .all(|w| w[1].bbox.bottom() > w[0].bbox.y),
    );
}

fn show_layout(name: &str, layout: &PageLayout) {
    println!("== {name}");
    for b in &layout.blocks {
        println!("-- {:?} y={:.0}\n{}", b.kind, b.bbox.y, b.text);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(dir) = flag("--sroie") {
        return sroie(
            Path::new(&dir),
            flag("--pages").map(PathBuf::from),
            flag("--half"),
            flag("--show"),
        );
    }
    let dir = PathBuf::from(args.first().ok_or("PAGES_DIR")?);
    if args.get(1).is_some_and(|a| a == "--not-receipts") {
        return not_receipts(&dir);
    }
    let truth_path = PathBuf::from(args.get(1).ok_or("ground-truth.jsonl")?);
    let families: Option<Vec<String>> =
        flag("--families").map(|f| f.split(',').map(str::to_owned).collect());
    let show = flag("--show");

    let mut truth = BTreeMap::new();
    for line in std::fs::read_to_string(&truth_path)?.lines() {
        let record: serde_json::Value = serde_json::from_str(line)?;
        let file = record["file"].as_str().unwrap_or_default();
        let stem = file.trim_end_matches(".jpg").to_owned();
        truth.insert(stem, record);
    }

    let mut all = Tally::default();
    let mut by_family: BTreeMap<String, Tally> = BTreeMap::new();
    for (stem, record) in &truth {
        let family = record["family"].as_str().unwrap_or_default().to_owned();
        if families.as_ref().is_some_and(|f| !f.contains(&family)) {
            continue;
        }
        let one = dir.join(format!("{stem}.page.json"));
        let many = dir.join(format!("{stem}.pages.json"));
        // The text layer's words are the print's: descriptions compared exactly.
        let (mut page, exact): (Page, bool) = if one.exists() {
            (serde_json::from_slice(&std::fs::read(&one)?)?, true)
        } else if many.exists() {
            let pages: Vec<Page> = serde_json::from_slice(&std::fs::read(&many)?)?;
            match pages.into_iter().next() {
                Some(p) => (p, false),
                None => continue,
            }
        } else {
            continue;
        };
        let layout = analyze(&mut page, None, &[]);
        let mut t = Tally::default();
        let company_lines: Vec<String> = record["company_lines"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let total = record["total"].as_str().and_then(|s| s.parse::<f64>().ok());
        score_common(&layout, &company_lines, total, exact, &mut t);

        let lines = record["lines"].as_array().cloned().unwrap_or_default();
        let (items, _, _) = slip_tables(&layout);
        let column = items.and_then(price_column);
        let mut used = vec![false; items.map_or(0, |t| t.matrix.len())];
        for line in &lines {
            t.items += 1;
            let want = line["line_total"]
                .as_str()
                .and_then(|s| s.parse::<f64>().ok());
            let (Some(table), Some(col), Some(want)) = (items, column, want) else {
                continue;
            };
            let description = line["description"].as_str().unwrap_or_default();
            let quantity = line["quantity"].as_str();
            let priced: Vec<usize> = (0..table.matrix.len())
                .filter(|&r| cell_amount(&table.matrix[r][col]).is_some_and(|a| close(a, want)))
                .collect();
            if priced.is_empty() {
                continue;
            }
            t.priced += 1;
            let right = priced
                .iter()
                .copied()
                .find(|&r| !used[r] && same_text(&table.matrix[r][0], description, exact));
            if let Some(r) = right {
                used[r] = true;
                t.items_right += 1;
            } else if show.as_deref() == Some("misses") {
                println!(
                    "{stem}: {description:?} not in {:?}",
                    priced
                        .iter()
                        .map(|&r| &table.matrix[r][0])
                        .collect::<Vec<_>>()
                );
            }
            if let Some(q) = quantity {
                t.quantities += 1;
                let row = right.unwrap_or(priced[0]);
                let q_value: Option<f64> = q.parse().ok();
                let hit = table.matrix[row].iter().enumerate().any(|(c, cell)| {
                    c != col
                        && cell
                            .split_whitespace()
                            .next()
                            .map(|w| w.trim_end_matches(['x', 'X']).replace(',', "."))
                            .and_then(|w| w.parse::<f64>().ok())
                            .zip(q_value)
                            .is_some_and(|(a, b)| (a - b).abs() < 1e-9)
                });
                t.quantities_right += usize::from(hit);
            }
        }
        if let (Some(table), Some(col)) = (items, column) {
            // A column-heading row has no amount in the price column.
            let rows = table
                .matrix
                .iter()
                .filter(|r| cell_amount(&r[col]).is_some())
                .count();
            t.rows_right += usize::from(rows == lines.len());
        }
        if show.as_deref() == Some(stem.as_str()) || show.as_deref() == Some("all") {
            show_layout(stem, &layout);
            if let Some(table) = items {
                println!("{}", table.markdown);
            }
        }
        all.add(&t);
        by_family.entry(family).or_default().add(&t);
    }
    for (family, f) in &by_family {
        println!("{family:22} {}", f.line(false));
    }
    println!("{:22} {}", "all", all.line(false));
    Ok(())
}

/// One SROIE transcript as a page: each segment one line, words split by characters.
/// A transcribed segment: left, top, right, bottom, text.
type Segment = (f64, f64, f64, f64, String);

fn transcript_page(csv: &str) -> Option<(Page, Vec<Segment>)> {
    let mut segments = Vec::new();
    for row in csv.lines() {
        let mut parts = row.splitn(9, ',');
        let mut xy = [0f64; 8];
        for v in &mut xy {
            *v = parts.next()?.trim().parse().ok()?;
        }
        let text = parts.next().unwrap_or_default().trim().to_owned();
        if text.is_empty() {
            continue;
        }
        let xs = [xy[0], xy[2], xy[4], xy[6]];
        let ys = [xy[1], xy[3], xy[5], xy[7]];
        let x0 = xs.iter().copied().fold(f64::MAX, f64::min);
        let x1 = xs.iter().copied().fold(f64::MIN, f64::max);
        let y0 = ys.iter().copied().fold(f64::MAX, f64::min);
        let y1 = ys.iter().copied().fold(f64::MIN, f64::max);
        segments.push((x0, y0, x1, y1, text));
    }
    let bx = |x0: f64, y0: f64, x1: f64, y1: f64| serde_json::json!({"page": 1, "x": x0, "y": y0, "w": (x1 - x0).max(0.1), "h": (y1 - y0).max(0.1)});
    let mut lines = Vec::new();
    let (mut width, mut height) = (0f64, 0f64);
    for (x0, y0, x1, y1, text) in &segments {
        width = width.max(*x1);
        height = height.max(*y1);
        let chars = text.chars().count().max(1) as f64;
        let step = (x1 - x0) / chars;
        let mut words = Vec::new();
        let mut k = 0usize;
        for token in text.split(' ') {
            let n = token.chars().count();
            if n > 0 {
                let a = x0 + step * k as f64;
                words.push(serde_json::json!({"text": token, "box": bx(a, *y0, a + step * n as f64, *y1), "confidence": 1.0}));
            }
            k += n + 1;
        }
        lines.push(serde_json::json!({"order": lines.len(), "column": 0, "text": text, "box": bx(*x0, *y0, *x1, *y1),
            "font_size": y1 - y0, "confidence": 1.0, "low_confidence": false, "words": words}));
    }
    let page = serde_json::json!({"page": 1, "width": width + 10.0, "height": height + 10.0,
        "coordinate_frame": "pixels_top_left", "method": "ocr", "rotation": 0, "columns": 1, "lines": lines});
    Some((serde_json::from_value(page).ok()?, segments))
}

const TOTAL_WORDS: &[&str] = &["TOTAL", "JUMLAH", "AMOUNT DUE", "NETT", "GRAND"];
const NOT_ITEM_WORDS: &[&str] = &[
    "TOTAL", "TAX", "GST", "SST", "ROUND", "CASH", "CHANGE", "JUMLAH", "TENDER", "PAID", "DUE",
    "BALANCE", "VISA", "MASTER", "CARD", "NETT", "DISCOUNT", "SERVICE", "EXCL", "INCL",
];

/// The item amounts of a SROIE transcript (see the module's comment) and the company lines.
fn sroie_truth(segments: &[Segment], company: &str, total: f64) -> (Vec<f64>, Vec<String>) {
    // Rows: segments whose vertical centres lie within half the smaller height.
    let mut order: Vec<usize> = (0..segments.len()).collect();
    order.sort_by(|&a, &b| {
        (segments[a].1 + segments[a].3).total_cmp(&(segments[b].1 + segments[b].3))
    });
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for i in order {
        let (_, y0, _, y1, _) = &segments[i];
        let c = (y0 + y1) / 2.0;
        match rows.last_mut() {
            Some(row)
                if row.iter().any(|&j| {
                    let (_, b0, _, b1, _) = &segments[j];
                    (c - (b0 + b1) / 2.0).abs() <= 0.5 * (y1 - y0).min(b1 - b0)
                }) =>
            {
                row.push(i)
            }
            _ => rows.push(vec![i]),
        }
    }
    let text = |row: &Vec<usize>| {
        let mut r = row.clone();
        r.sort_by(|&a, &b| segments[a].0.total_cmp(&segments[b].0));
        r.iter()
            .map(|&i| segments[i].4.as_str())
            .collect::<Vec<_>>()
            .join(" ")
            .to_uppercase()
    };
    // The company's rows: the first run of rows found in the company's name (a tenth of
    // their characters may differ: the transcripts keep the print's misspellings).
    let in_company = |r: usize| {
        let t = text(&rows[r]);
        squash(&t).len() >= 4 && fuzzy_contains(company, &t, false)
    };
    let company_rows: Vec<usize> = match (0..rows.len()).find(|&r| in_company(r)) {
        Some(first) => (first..rows.len()).take_while(|&r| in_company(r)).collect(),
        None => Vec::new(),
    };
    let company_lines: Vec<String> = company_rows.iter().map(|&r| text(&rows[r])).collect();
    // The row ending in an amount and where that amount ends.
    let last_amount = |row: &Vec<usize>| -> Option<(f64, f64)> {
        // Codes after the amount (`S`, `SR`, `*`), in its segment or in segments of their
        // own, are skipped.
        let code = |t: &str| t.len() <= 2 && t.chars().all(|c| c.is_ascii_uppercase() || c == '*');
        let mut order = row.clone();
        order.sort_by(|&a, &b| segments[b].2.total_cmp(&segments[a].2));
        let right = order
            .into_iter()
            .find(|&i| !segments[i].4.split_whitespace().all(code))?;
        let token = segments[right]
            .4
            .split_whitespace()
            .rev()
            .find(|t| !code(t))?;
        Some((amount(token)?, segments[right].2))
    };
    let Some(total_row) = (0..rows.len()).find(|&r| {
        let t = text(&rows[r]);
        TOTAL_WORDS.iter().any(|w| t.contains(w))
            && last_amount(&rows[r]).is_some_and(|(a, _)| close(a, total))
    }) else {
        return (Vec::new(), company_lines);
    };
    let start = company_rows.last().map_or(0, |&r| r + 1);
    let glyph = {
        let mut h: Vec<f64> = segments.iter().map(|s| s.3 - s.1).collect();
        h.sort_by(f64::total_cmp);
        h.get(h.len() / 2).copied().unwrap_or(10.0)
    };
    let right_edge = (start..=total_row)
        .filter_map(|r| last_amount(&rows[r]))
        .map(|(_, x)| x)
        .fold(0.0, f64::max);
    let items = (start..total_row)
        .filter(|&r| {
            let t = text(&rows[r]);
            !NOT_ITEM_WORDS.iter().any(|w| t.contains(w))
        })
        .filter_map(|r| last_amount(&rows[r]))
        .filter(|&(_, x)| right_edge - x <= 2.0 * glyph)
        .map(|(a, _)| a)
        .collect();
    (items, company_lines)
}

fn sroie(
    dir: &Path,
    pages: Option<PathBuf>,
    half: Option<String>,
    show: Option<String>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut stems: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".csv").map(str::to_owned)
        })
        .collect();
    stems.sort();
    let mut all = Tally::default();
    for (position, stem) in stems.iter().enumerate() {
        match half.as_deref() {
            Some("even") if position % 2 == 1 => continue,
            Some("odd") if position % 2 == 0 => continue,
            _ => {}
        }
        let csv = std::fs::read_to_string(dir.join(format!("{stem}.csv")))?;
        let key: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{stem}.json")))?)?;
        let Some((transcript, segments)) = transcript_page(&csv) else {
            continue;
        };
        let company = key["company"].as_str().unwrap_or_default();
        let Some(total) = key["total"].as_str().and_then(amount_or_plain) else {
            continue;
        };
        let (item_amounts, company_lines) = sroie_truth(&segments, company, total);
        let (mut page, exact) = match &pages {
            None => (transcript, true),
            Some(p) => {
                let path = p.join(format!("{stem}.pages.json"));
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                let list: Vec<Page> = serde_json::from_slice(&bytes)?;
                match list.into_iter().next() {
                    Some(page) => (page, false),
                    None => continue,
                }
            }
        };
        let layout = analyze(&mut page, None, &[]);
        let mut t = Tally::default();
        score_common(&layout, &company_lines, Some(total), exact, &mut t);
        let (items, _, _) = slip_tables(&layout);
        let cells: Vec<f64> = match items.and_then(|table| Some((table, price_column(table)?))) {
            Some((table, col)) => table
                .matrix
                .iter()
                .filter_map(|r| cell_amount(&r[col]))
                .collect(),
            None => Vec::new(),
        };
        let mut used = vec![false; cells.len()];
        for &want in &item_amounts {
            t.items += 1;
            if let Some(k) = (0..cells.len()).find(|&k| !used[k] && close(cells[k], want)) {
                used[k] = true;
                t.priced += 1;
            }
        }
        t.price_cells += cells.len();
        let mut taken = vec![false; item_amounts.len()];
        for &c in &cells {
            if let Some(k) =
                (0..item_amounts.len()).find(|&k| !taken[k] && close(item_amounts[k], c))
            {
                taken[k] = true;
                t.price_cells_right += 1;
            }
        }
        if show.as_deref() == Some("scores") {
            println!(
                "{stem}: item amounts {}/{}, price cells right {}/{}, total {}, header {}, top to bottom {}",
                t.priced,
                t.items,
                t.price_cells_right,
                t.price_cells,
                t.totals,
                t.header,
                t.ordered
            );
        }
        if show.as_deref() == Some(stem.as_str()) || show.as_deref() == Some("all") {
            println!(
                "{stem}: item amounts {item_amounts:?}, price cells {cells:?}, company lines {company_lines:?}"
            );
            show_layout(stem, &layout);
        }
        all.add(&t);
    }
    println!("{}", all.line(true));
    Ok(())
}

/// SROIE's totals are printed amounts or plain numbers (`9.00`, `24`).
fn amount_or_plain(s: &str) -> Option<f64> {
    amount(s).or_else(|| s.trim().parse().ok())
}

/// Every page of every `*.pages.json` / `*.page.json` file of `dir` laid out; a page laid out
/// as a slip has table blocks without a ruled region (the general layout's only tables).
fn not_receipts(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".json"))
        .collect();
    names.sort();
    let (mut pages, mut slips) = (0, 0);
    for name in names {
        let bytes = std::fs::read(&name)?;
        let list: Vec<Page> = serde_json::from_slice(&bytes)
            .or_else(|_| serde_json::from_slice::<Page>(&bytes).map(|p| vec![p]))?;
        for mut page in list {
            let layout = analyze(&mut page, None, &[]);
            pages += 1;
            if layout.blocks.iter().any(|b| b.kind == BlockKind::Table) {
                slips += 1;
                println!("laid out as a slip: {} page {}", name.display(), page.page);
            }
        }
    }
    println!("{pages} pages, {slips} laid out as a slip");
    Ok(())
}
