//! Robustness report: opens every PDF of the shared test corpora and reads every page (text
//! layer verdict, text with positions, and with `--render` a low-resolution render), each file
//! under a time limit, and prints a markdown table per folder: files that worked, clean typed
//! errors, panics that escaped (must be 0), time-outs, page counts equal to poppler's, our wall
//! time next to `pdftotext -bbox-layout` on the same files.
//!
//! ```text
//! cargo run --release -p pdf-extract-core --example robustness -- [--render] [--limit SECS] [ROOT]
//! ```
//! ROOT defaults to `../shared/test-data` next to the workspace; without it the report is skipped.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pdf_extract_core::{Limits, PdfDocument, PdfError, RenderOptions};

const FOLDERS: [&str; 4] = ["pdf-robustness", "scans", "tables", "zugferd"];

/// Low-resolution rendering: the point is that it finishes, not the pixels.
const LOW_RES: RenderOptions = RenderOptions {
    min_dpi: 36.0,
    max_dpi: 72.0,
    default_dpi: 72.0,
    max_pixels: 2_000_000,
    max_image_pixels: RenderOptions::OCR.max_image_pixels,
};

#[derive(Debug)]
enum Outcome {
    Read {
        pages: u32,
        page_errors: Vec<String>,
        text_pages: u32,
    },
    Refused(PdfError),
    Panicked(String),
    TimedOut,
}

fn run_file(path: &Path, render: bool) -> Outcome {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Outcome::Panicked(format!("unreadable: {e}")),
    };
    // The library must never panic; a panic escaping it is what this report counts.
    let result = catch_unwind(AssertUnwindSafe(|| {
        let doc = match PdfDocument::load(&bytes, &Limits::DOCUMENT) {
            Ok(d) => d,
            Err(e) => return Outcome::Refused(e),
        };
        let mut page_errors = Vec::new();
        let mut text_pages = 0;
        for page in 1..=doc.page_count() {
            match doc.has_text_layer(page) {
                Ok(true) => text_pages += 1,
                Ok(false) => {}
                Err(e) => page_errors.push(e.to_string()),
            }
            if let Err(e) = doc.extract_page(page) {
                page_errors.push(e.to_string());
            }
            if render && let Err(e) = doc.render_page(page, &LOW_RES) {
                page_errors.push(e.to_string());
            }
        }
        Outcome::Read {
            pages: doc.page_count(),
            page_errors,
            text_pages,
        }
    }));
    result.unwrap_or_else(|payload| {
        Outcome::Panicked(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_default(),
        )
    })
}

fn with_time_limit(path: PathBuf, render: bool, limit: Duration) -> Outcome {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_file(&path, render));
    });
    // A timed-out worker is left behind; the report moves on.
    rx.recv_timeout(limit).unwrap_or(Outcome::TimedOut)
}

fn pdfs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(pdfs(&path));
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
        {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// poppler's page counts, for files poppler opens without a password.
fn poppler_pages(dir: &Path) -> HashMap<String, u32> {
    let Ok(text) = std::fs::read_to_string(dir.join("poppler-reference.jsonl")) else {
        return HashMap::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["poppler_opens"] == true && v["needs_password"] != true)
        .filter_map(|v| {
            Some((
                v["file"].as_str()?.to_string(),
                u32::try_from(v["pages"].as_u64()?).ok()?,
            ))
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let render = args.iter().any(|a| a == "--render");
    let limit = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(30), Duration::from_secs);
    let root = args
        .iter()
        .rfind(|a| !a.starts_with("--") && a.parse::<u64>().is_err())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-data"));
    if !root.is_dir() {
        println!("skipped: no test corpus at {}", root.display());
        return;
    }
    println!(
        "| folder | files | read | clean errors | panics escaped | time-outs | pages read | page errors | text-layer pages | page count = poppler | ours (s) | pdftotext -bbox-layout (s) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut notes = Vec::new();
    for folder in FOLDERS {
        let dir = root.join(folder);
        let files = pdfs(&dir);
        if files.is_empty() {
            continue;
        }
        let poppler = poppler_pages(&dir);
        let (mut read, mut refused, mut panicked, mut timed_out) = (0, 0, 0, 0);
        let (mut pages, mut page_errors, mut text_pages) = (0u32, 0usize, 0u32);
        let (mut same_count, mut compared) = (0, 0);
        let started = Instant::now();
        for path in &files {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let outcome = with_time_limit(path.clone(), render, limit);
            let our_pages = match &outcome {
                Outcome::Read {
                    pages: p,
                    page_errors: errors,
                    text_pages: t,
                } => {
                    read += 1;
                    pages += p;
                    text_pages += t;
                    page_errors += errors.len();
                    for e in errors.iter().take(2) {
                        notes.push(format!("{folder}/{name}: {e}"));
                    }
                    Some(*p)
                }
                Outcome::Refused(e) => {
                    refused += 1;
                    notes.push(format!("{folder}/{name}: refused: {e}"));
                    None
                }
                Outcome::Panicked(m) => {
                    panicked += 1;
                    notes.push(format!("{folder}/{name}: PANIC ESCAPED: {m}"));
                    None
                }
                Outcome::TimedOut => {
                    timed_out += 1;
                    notes.push(format!("{folder}/{name}: timed out after {limit:?}"));
                    None
                }
            };
            if let Some(expected) = poppler.get(&name) {
                compared += 1;
                if our_pages == Some(*expected) {
                    same_count += 1;
                } else {
                    notes.push(format!(
                        "{folder}/{name}: {our_pages:?} pages, poppler {expected}"
                    ));
                }
            }
        }
        let ours = started.elapsed().as_secs_f64();
        let poppler_started = Instant::now();
        for path in &files {
            let _ = Command::new("pdftotext")
                .arg("-bbox-layout")
                .arg(path)
                .arg("/dev/null")
                .output();
        }
        let pdftotext = poppler_started.elapsed().as_secs_f64();
        let compared_cell = if compared == 0 {
            "n/a".to_string()
        } else {
            format!("{same_count}/{compared}")
        };
        println!(
            "| {folder} | {} | {read} | {refused} | {panicked} | {timed_out} | {pages} | {page_errors} | {text_pages} | {compared_cell} | {ours:.2} | {pdftotext:.2} |",
            files.len()
        );
    }
    println!("\nrender: {render}, time limit per file: {limit:?}\n");
    for note in notes {
        println!("- {note}");
    }
}
