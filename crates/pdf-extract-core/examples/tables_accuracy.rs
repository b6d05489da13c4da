//! Table accuracy on camelot's test PDFs (`../shared/test-data/tables`), scored as its README
//! says: per expectation (`expected/<pdf>.json`), take our table at `table_index` on page 1 or
//! the best match by shared cell text, normalise whitespace in cells, and report exact shape
//! match and cell accuracy (matching cells / expected cells, after the best small shift of rows
//! and columns). A PDF with several expectations is scored against the best one, per kind
//! (lattice = ruled tables; stream = whitespace tables). The other PDFs: no crash, table count.
//!
//! ```text
//! cargo run --release -p pdf-extract-core --example tables_accuracy -- ../shared/test-data/tables [--show twotables_2.pdf] [--others] [--print some.pdf] [--no-password]
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use doc_analysis::tables::find_tables;
use doc_model::Table;
use pdf_extract_core::{Limits, PdfDocument};
use serde_json::Value;

fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn tables_of(path: &Path) -> Result<Vec<Table>, Box<dyn std::error::Error>> {
    tables_with_password(path, None)
}

/// As [`tables_of`], opening the file with a user password (camelot's test of
/// `health_protected.pdf` passes one; the services refuse encrypted files).
fn tables_with_password(
    path: &Path,
    password: Option<&str>,
) -> Result<Vec<Table>, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let limits = Limits {
        max_bytes: 64 * 1024 * 1024,
        max_pages: 1000,
    };
    let doc = match password {
        Some(password) => PdfDocument::load_with_password(&bytes, &limits, password),
        None => PdfDocument::load(&bytes, &limits),
    }
    .map_err(|e| e.to_string())?;
    let page = doc.extract_page(1).map_err(|e| e.to_string())?;
    Ok(find_tables(&page))
}

/// Matching cells of `ours` against `expected` under the best shift of rows and columns.
fn cell_matches(ours: &[Vec<String>], expected: &[Vec<String>]) -> usize {
    cell_matches_by(ours, expected, normalise)
}

/// The text without any whitespace: camelot's own grids split words ("C\nlass A") or drop
/// spaces (`strip_text`), which this comparison does not count against a clean reading.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect()
}

/// Our matrix with a merged cell's text copied into the positions it covers, as camelot's
/// `copy_text` option asks ("v": down its column, "h": along its row).
fn copied(table: &Table, copy: &str) -> Vec<Vec<String>> {
    let mut matrix = table.matrix.clone();
    for cell in &table.cells {
        for r in cell.row..cell.row + cell.row_span {
            for c in cell.col..cell.col + cell.col_span {
                let down = copy.contains('v') && c == cell.col;
                let along = copy.contains('h') && r == cell.row;
                if (down || along)
                    && (r, c) != (cell.row, cell.col)
                    && let Some(slot) = matrix
                        .get_mut(r as usize)
                        .and_then(|row| row.get_mut(c as usize))
                {
                    slot.clone_from(&cell.text);
                }
            }
        }
    }
    matrix
}

/// As [`cell_matches`], comparing cells by `key`.
fn cell_matches_by(
    ours: &[Vec<String>],
    expected: &[Vec<String>],
    key: fn(&str) -> String,
) -> usize {
    let mut best = 0;
    for dr in -2i64..=2 {
        for dc in -1i64..=1 {
            let mut matches = 0;
            for (r, row) in expected.iter().enumerate() {
                for (c, cell) in row.iter().enumerate() {
                    let (or, oc) = (r as i64 + dr, c as i64 + dc);
                    if or < 0 || oc < 0 {
                        continue;
                    }
                    let ours_cell = ours
                        .get(or as usize)
                        .and_then(|row| row.get(oc as usize))
                        .map(|s| key(s));
                    if ours_cell.as_deref() == Some(key(cell).as_str()) {
                        matches += 1;
                    }
                }
            }
            best = best.max(matches);
        }
    }
    best
}

fn text_overlap(ours: &Table, expected: &[Vec<String>]) -> usize {
    let a: BTreeSet<String> = ours
        .matrix
        .iter()
        .flatten()
        .map(|s| normalise(s))
        .filter(|s| !s.is_empty())
        .collect();
    let b: BTreeSet<String> = expected
        .iter()
        .flatten()
        .map(|s| normalise(s))
        .filter(|s| !s.is_empty())
        .collect();
    a.intersection(&b).count()
}

#[derive(Default)]
struct Tally {
    expectations: usize,
    exact_shape: usize,
    cells: usize,
    matching: usize,
    /// Matching cells with camelot's `copy_text` applied to ours and whitespace removed.
    matching_alt: usize,
    found: usize,
}

/// One line per row, cells between bars.
fn rows_text(rows: &[Vec<String>]) -> String {
    rows.iter()
        .map(|row| {
            row.iter()
                .map(|c| normalise(c))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/test-data/tables"));
    // `--show <pdf path under the corpus>` prints both grids of that PDF; `--others` lists the
    // table count and shapes of each PDF without expectations.
    let mut show = None;
    let mut list_others = false;
    let mut no_password = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--show" => show = args.next(),
            "--others" => list_others = true,
            "--no-password" => no_password = true,
            "--print" => {
                // Every table of page 1 of one PDF (a path), as rows of cells.
                let Some(pdf) = args.next() else { return };
                match tables_of(Path::new(&pdf)) {
                    Ok(tables) => {
                        for t in tables {
                            println!(
                                "{}×{} {:?}\n{}\n",
                                t.rows,
                                t.cols,
                                t.method,
                                rows_text(&t.matrix)
                            );
                        }
                    }
                    Err(e) => println!("{pdf}: {e}"),
                }
                return;
            }
            _ => {}
        }
    }
    let expected_dir = dir.join("expected");
    if !expected_dir.is_dir() {
        println!("no corpus at {}: skipped", dir.display());
        return;
    }
    let mut expectation_files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![expected_dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                expectation_files.push(path);
            }
        }
    }
    expectation_files.sort();
    let mut lattice = Tally::default();
    let mut stream = Tally::default();
    let mut rows_out = Vec::new();
    let mut scored_pdfs = BTreeSet::new();
    // Load, page 1's text and the table finder, per scored PDF (one page each).
    let mut elapsed = std::time::Duration::ZERO;
    for file in &expectation_files {
        let Ok(json) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(spec) = serde_json::from_str::<Value>(&json) else {
            continue;
        };
        let rel = file
            .strip_prefix(&expected_dir)
            .unwrap_or(file)
            .with_extension("pdf");
        let pdf = dir.join(&rel);
        scored_pdfs.insert(pdf.clone());
        let started = std::time::Instant::now();
        // The user password camelot's test opens the file with (`options.password`: owner's,
        // then user's), unless `--no-password` scores such a file as the services see it.
        let password = spec
            .get("expectations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                e.get("options")?
                    .get("password")?
                    .as_array()?
                    .last()?
                    .as_str()
            })
            .next()
            .filter(|_| !no_password)
            .map(str::to_owned);
        let ours = std::panic::catch_unwind(|| tables_with_password(&pdf, password.as_deref()))
            .unwrap_or_else(|_| Err("panic".into()));
        let took = started.elapsed();
        elapsed += took;
        if std::env::var_os("TABLES_TIMES").is_some() {
            eprintln!("{}: {:.1} ms", rel.display(), took.as_secs_f64() * 1000.0);
        }
        let ours = match ours {
            Ok(t) => t,
            Err(e) => {
                rows_out.push(format!("| {} | – | error: {e} | | |", rel.display()));
                Vec::new()
            }
        };
        // Best expectation per kind.
        for kind_is_lattice in [true, false] {
            // Score, shape, matching cells, cells, what, matching cells of the alternative
            // comparison (on the same expectation).
            let mut best: Option<(f64, bool, usize, usize, String, usize)> = None;
            for exp in spec
                .get("expectations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let flavors: Vec<&str> = exp
                    .get("flavors")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                if flavors.contains(&"lattice") != kind_is_lattice {
                    continue;
                }
                let cells: Vec<Vec<String>> = exp
                    .get("cells")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|row| {
                        row.as_array()
                            .into_iter()
                            .flatten()
                            .map(|c| c.as_str().unwrap_or("").to_string())
                            .collect()
                    })
                    .collect();
                let n_cells: usize = cells.iter().map(Vec::len).sum();
                let index = exp.get("table_index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let candidate = ours
                    .iter()
                    .max_by_key(|t| text_overlap(t, &cells))
                    .filter(|t| text_overlap(t, &cells) > 0)
                    .or_else(|| ours.get(index));
                if show.as_deref() == Some(rel.to_string_lossy().as_ref()) {
                    println!(
                        "### {} ({})\n",
                        rel.display(),
                        if kind_is_lattice { "lattice" } else { "stream" }
                    );
                    println!("expected:\n{}\n", rows_text(&cells));
                    match candidate {
                        Some(t) => println!("ours:\n{}\n", rows_text(&t.matrix)),
                        None => println!("ours: none\n"),
                    }
                }
                let copy = exp
                    .get("options")
                    .and_then(|o| o.get("copy_text"))
                    .map(|c| c.to_string())
                    .unwrap_or_default();
                let (shape, matching, what) = match candidate {
                    Some(t) => {
                        let shape = t.rows as usize == cells.len()
                            && t.cols as usize == cells.first().map_or(0, Vec::len);
                        (
                            shape,
                            cell_matches(&t.matrix, &cells),
                            format!("{}×{} {:?}", t.rows, t.cols, t.method),
                        )
                    }
                    None => (false, 0, "none".to_string()),
                };
                let alt =
                    candidate.map_or(0, |t| cell_matches_by(&copied(t, &copy), &cells, squeeze));

                let score = matching as f64 / n_cells.max(1) as f64;
                if best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((
                        score,
                        shape,
                        matching,
                        n_cells,
                        format!(
                            "{what} vs {}×{}",
                            cells.len(),
                            cells.first().map_or(0, Vec::len)
                        ),
                        alt,
                    ));
                }
            }
            if let Some((score, shape, matching, n_cells, what, alt)) = best {
                let tally = if kind_is_lattice {
                    &mut lattice
                } else {
                    &mut stream
                };
                tally.expectations += 1;
                tally.exact_shape += usize::from(shape);
                tally.cells += n_cells;
                tally.matching += matching;
                tally.matching_alt += alt;
                tally.found += usize::from(!what.starts_with("none"));
                rows_out.push(format!(
                    "| {} | {} | {what} | {} | {:.1} % |",
                    rel.display(),
                    if kind_is_lattice { "lattice" } else { "stream" },
                    if shape { "yes" } else { "no" },
                    100.0 * score
                ));
            }
        }
    }
    println!(
        "| pdf | kind | ours vs expected | exact shape | cell accuracy |\n|---|---|---|---|---|"
    );
    for r in &rows_out {
        println!("{r}");
    }
    println!(
        "\n| kind | PDFs | table found | exact shape | cell accuracy (micro) | with copy_text, whitespace removed |\n|---|---|---|---|---|---|"
    );
    for (name, t) in [("lattice", &lattice), ("stream", &stream)] {
        println!(
            "| {name} | {} | {} | {} | {:.1} % | {:.1} % |",
            t.expectations,
            t.found,
            t.exact_shape,
            100.0 * t.matching as f64 / t.cells.max(1) as f64,
            100.0 * t.matching_alt as f64 / t.cells.max(1) as f64
        );
    }
    println!(
        "\nTime per page (load, text of page 1, tables) on the {} scored PDFs: {:.1} ms mean",
        scored_pdfs.len(),
        elapsed.as_secs_f64() * 1000.0 / scored_pdfs.len().max(1) as f64
    );
    // The other PDFs: no crash, table count.
    let mut others = 0;
    let mut crashes = 0;
    let mut errors = 0;
    let mut count = 0;
    let mut pdfs: Vec<PathBuf> = Vec::new();
    let root = dir.clone();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() && path != expected_dir {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "pdf") && !scored_pdfs.contains(&path) {
                pdfs.push(path);
            }
        }
    }
    pdfs.sort();
    let mut per_file = Vec::new();
    for pdf in pdfs {
        others += 1;
        let name = pdf
            .strip_prefix(&root)
            .unwrap_or(&pdf)
            .display()
            .to_string();
        match std::panic::catch_unwind(|| tables_of(&pdf)) {
            Ok(Ok(t)) => {
                count += t.len();
                let shapes: Vec<String> =
                    t.iter().map(|t| format!("{}×{}", t.rows, t.cols)).collect();
                per_file.push(format!("{name}: {} [{}]", t.len(), shapes.join(" ")));
            }
            Ok(Err(_)) => {
                errors += 1;
                per_file.push(format!("{name}: error"));
            }
            Err(_) => {
                crashes += 1;
                per_file.push(format!("{name}: crash"));
            }
        }
    }
    if list_others {
        for line in &per_file {
            println!("{line}");
        }
    }
    println!(
        "\nOther PDFs: {others}, tables found on page 1: {count}, clean errors: {errors}, crashes: {crashes}"
    );
}
