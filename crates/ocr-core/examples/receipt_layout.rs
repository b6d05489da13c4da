//! Receipt layout figures on generated receipts (`testdata/receipt-gen`): lays out every page of
//! a folder as `/ocr` does after recognition (`ocr_core::layout::analyze`, no picture, so no
//! rulings) and compares with the generator's truth. Pages are `<name>.page.json` (one
//! `doc_model::Page`, from `testdata/receipt-gen/layout_pages.py`: the undegraded text layer) or
//! `<name>.pages.json` (an array, from the `receipt_pages` example: recognised pictures).
//!
//! ```sh
//! cargo run -p ocr-core --example receipt_layout -- PAGES_DIR ground-truth.jsonl \
//!     [--families a,b,...] [--show NAME]
//! # pages that are not receipts (invoices): how many are laid out as a slip
//! cargo run -p ocr-core --example receipt_layout -- PAGES_DIR --not-receipts
//! ```
//!
//! Per receipt: the first `table` block has one row per item line of the truth; the total is
//! in a block of its own after that table (a block holding a total word and the total's
//! digits); blocks go top to bottom; the first block is a heading holding the company's first
//! printed line.

use std::collections::BTreeMap;
use std::path::PathBuf;

use doc_model::{BlockKind, Page};
use ocr_core::layout::analyze;

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().ok_or("PAGES_DIR")?);
    if args.get(1).is_some_and(|a| a == "--not-receipts") {
        return not_receipts(&dir);
    }
    let truth_path = PathBuf::from(args.get(1).ok_or("ground-truth.jsonl")?);
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
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

    let (mut n, mut table, mut rows_right, mut totals, mut ordered, mut heading) =
        (0, 0, 0, 0, 0, 0);
    let mut by_family: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for (stem, record) in &truth {
        let family = record["family"].as_str().unwrap_or_default().to_owned();
        if families.as_ref().is_some_and(|f| !f.contains(&family)) {
            continue;
        }
        let one = dir.join(format!("{stem}.page.json"));
        let many = dir.join(format!("{stem}.pages.json"));
        let mut page: Page = if one.exists() {
            serde_json::from_slice(&std::fs::read(&one)?)?
        } else if many.exists() {
            let pages: Vec<Page> = serde_json::from_slice(&std::fs::read(&many)?)?;
            match pages.into_iter().next() {
                Some(p) => p,
                None => continue,
            }
        } else {
            continue;
        };
        let layout = analyze(&mut page, None, &[]);
        let want_rows = record["lines"].as_array().map_or(0, Vec::len);
        let first_table = layout
            .blocks
            .iter()
            .position(|b| b.kind == BlockKind::Table);
        let got_rows = first_table.map(|i| layout.blocks[i].text.lines().count());
        let total_digits = digits(record["total"].as_str().unwrap_or_default());
        let total_block = layout.blocks.iter().position(|b| {
            let lower = b.text.to_lowercase();
            ["total", "summe", "totaal", "gesamt"]
                .iter()
                .any(|w| lower.contains(w))
                && b.text
                    .split_whitespace()
                    .any(|t| !total_digits.is_empty() && digits(t) == total_digits)
        });
        let separate = matches!((first_table, total_block), (Some(t), Some(b)) if b > t);
        let in_order = layout
            .blocks
            .windows(2)
            .all(|w| w[1].bbox.y + 0.5 * w[1].bbox.h >= w[0].bbox.y);
        let company_first = record["company_lines"]
            .get(0)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_uppercase();
        let heads = layout.blocks.first().is_some_and(|b| {
            b.kind == BlockKind::Heading
                && !company_first.is_empty()
                && b.text.to_uppercase().contains(&company_first)
        });
        n += 1;
        table += usize::from(first_table.is_some());
        rows_right += usize::from(got_rows == Some(want_rows));
        totals += usize::from(separate);
        ordered += usize::from(in_order);
        heading += usize::from(heads);
        let f = by_family.entry(family).or_default();
        f[0] += 1;
        f[1] += usize::from(got_rows == Some(want_rows));
        f[2] += usize::from(separate);
        f[3] += usize::from(heads);
        if show.as_deref() == Some(stem.as_str()) || show.as_deref() == Some("all") {
            println!(
                "== {stem}: want {want_rows} rows, got {got_rows:?}; totals separate {separate}"
            );
            for b in &layout.blocks {
                println!("-- {:?} y={:.0}\n{}", b.kind, b.bbox.y, b.text);
            }
        }
    }
    for (family, f) in &by_family {
        println!(
            "{family:24} {:2} receipts: rows right {:2}, totals separate {:2}, heading {:2}",
            f[0], f[1], f[2], f[3]
        );
    }
    let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    println!(
        "{n} receipts: item table {:.2}, right number of rows {:.2}, totals a separate block {:.2}, blocks top to bottom {:.2}, heading with the shop name first {:.2}",
        share(table),
        share(rows_right),
        share(totals),
        share(ordered),
        share(heading)
    );
    Ok(())
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
