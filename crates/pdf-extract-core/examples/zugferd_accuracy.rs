//! Header-field accuracy on the ZUGFeRD corpus (`../shared/test-data/zugferd`), scored as its
//! README says: the embedded XML is ignored, only the pages are read (load → extract_page for
//! every page → find_key_values → extract_header) and compared with `ground-truth.jsonl`.
//!
//! ```text
//! cargo run --release -p pdf-extract-core --example zugferd_accuracy -- ../shared/test-data/zugferd
//!     [--ocr-images DIR]   score OCR'd pages too: DIR/<pdf stem>.pages.json = JSON array of doc_model::Page
//!     [--pdftotext]        development only: pages from poppler's `pdftotext -bbox-layout`
//!     [--verbose]          print every wrong value
//! ```
//!
//! Prints markdown tables. Per field: accuracy = correct / non-null truth over files whose
//! `corpus_status` is `correct` or `reference`; the headline counts only fields whose
//! `printed[field]` is true; a value where the truth is null is a false positive. Results are
//! given per PDF and per distinct invoice `(invoice_number, grand_total)` (mean of its PDFs).
//! `fail` files only have to give an answer or a clean error without a crash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use doc_analysis::header::extract_header;
use doc_analysis::header::normalize::{collapse_whitespace, compact_upper, same_amount};
use doc_analysis::key_values::find_key_values;
use doc_model::{
    Confidence, CoordinateFrame, HeaderFieldName, HeaderFields, Line, Page, PageBox, PageMethod,
    Word,
};
use pdf_extract_core::{Limits, PdfDocument};
use serde_json::Value;

/// How a field is compared with the truth.
#[derive(Clone, Copy)]
enum Compare {
    Text,
    Compact,
    Date,
    Amount,
}

/// Our field, the ground truth's key, and how to compare.
const FIELDS: &[(HeaderFieldName, &str, Compare)] = &[
    (
        HeaderFieldName::InvoiceNumber,
        "invoice_number",
        Compare::Text,
    ),
    (HeaderFieldName::IssueDate, "issue_date", Compare::Date),
    (HeaderFieldName::DueDate, "due_date", Compare::Date),
    (HeaderFieldName::Currency, "currency", Compare::Compact),
    (HeaderFieldName::SellerName, "seller_name", Compare::Text),
    (
        HeaderFieldName::SellerVatId,
        "seller_vat_id",
        Compare::Compact,
    ),
    (HeaderFieldName::BuyerName, "buyer_name", Compare::Text),
    (HeaderFieldName::NetTotal, "net_total", Compare::Amount),
    (HeaderFieldName::TaxTotal, "tax_total", Compare::Amount),
    (HeaderFieldName::GrossTotal, "grand_total", Compare::Amount),
    (HeaderFieldName::AmountDue, "due_payable", Compare::Amount),
    (HeaderFieldName::Iban, "iban", Compare::Compact),
    (HeaderFieldName::Bic, "bic", Compare::Compact),
    (
        HeaderFieldName::OrderNumber,
        "order_reference",
        Compare::Text,
    ),
    (
        HeaderFieldName::SellerTaxNumber,
        "seller_tax_number",
        Compare::Text,
    ),
];

/// The verdict on one field of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Correct,
    Wrong,
    Missed,
    FalsePositive,
    TrueNull,
}

/// One field's score against one truth record.
#[derive(Debug, Clone)]
struct FieldScore {
    field: HeaderFieldName,
    truth_key: &'static str,
    verdict: Verdict,
    /// `printed[truth_key]` of the record (None when the record does not say).
    printed: Option<bool>,
    ours: Option<String>,
    truth: Option<String>,
}

fn truth_string(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        other => Some(other.to_string()),
    }
}

fn equal(compare: Compare, ours: &str, truth: &str) -> bool {
    match compare {
        Compare::Text => collapse_whitespace(ours) == collapse_whitespace(truth),
        Compare::Compact => compact_upper(ours) == compact_upper(truth),
        Compare::Date => ours.trim() == truth.trim(),
        Compare::Amount => same_amount(ours, truth),
    }
}

/// Scores a header against one ground-truth record (a line of `ground-truth.jsonl`). Reusable
/// for any page source: text layer, OCR, or a future path.
fn score_header(header: &HeaderFields, truth: &Value) -> Vec<FieldScore> {
    FIELDS
        .iter()
        .map(|(field, key, compare)| {
            let ours = header.get(*field).map(|f| f.value.clone());
            let expected = truth.get(*key).and_then(truth_string);
            let verdict = match (&ours, &expected) {
                (Some(o), Some(t)) if equal(*compare, o, t) => Verdict::Correct,
                (Some(_), Some(_)) => Verdict::Wrong,
                (None, Some(_)) => Verdict::Missed,
                (Some(_), None) => Verdict::FalsePositive,
                (None, None) => Verdict::TrueNull,
            };
            FieldScore {
                field: *field,
                truth_key: key,
                verdict,
                printed: truth
                    .get("printed")
                    .and_then(|p| p.get(*key))
                    .and_then(Value::as_bool),
                ours,
                truth: expected,
            }
        })
        .collect()
}

/// Where pages come from.
enum Source {
    Ours,
    Pdftotext,
}

fn pages_of(path: &Path, source: &Source) -> Result<Vec<Page>, String> {
    match source {
        Source::Ours => {
            let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
            let limits = Limits {
                max_bytes: 64 * 1024 * 1024,
                max_pages: 1000,
            };
            let doc = PdfDocument::load(&bytes, &limits).map_err(|e| e.to_string())?;
            (1..=doc.page_count())
                .map(|p| doc.extract_page(p).map_err(|e| e.to_string()))
                .collect()
        }
        Source::Pdftotext => pdftotext_pages(path),
    }
}

/// Development only: pages from `pdftotext -bbox-layout` (poppler), to work on the analysis
/// before our own extractor existed and to compare with it. No rulings.
fn pdftotext_pages(path: &Path) -> Result<Vec<Page>, String> {
    let output = std::process::Command::new("pdftotext")
        .arg("-bbox-layout")
        .arg(path)
        .arg("-")
        .output()
        .map_err(|e| e.to_string())?;
    let xml = String::from_utf8_lossy(&output.stdout);
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let key = format!("{name}=\"");
        let start = tag.find(&key)? + key.len();
        let end = tag[start..].find('"')? + start;
        tag[start..end].parse().ok()
    };
    let unescape = |s: &str| {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&")
    };
    let mut pages = Vec::new();
    for (index, page_chunk) in xml.split("<page ").skip(1).enumerate() {
        let number = index as u32 + 1;
        let header_end = page_chunk.find('>').unwrap_or(0);
        let tag = &page_chunk[..header_end];
        let mut lines = Vec::new();
        for line_chunk in page_chunk.split("<line").skip(1) {
            let mut words = Vec::new();
            for word_chunk in line_chunk.split("<word ").skip(1) {
                let close = word_chunk.find('>').unwrap_or(0);
                let wtag = &word_chunk[..close];
                let text_end = word_chunk.find("</word>").unwrap_or(word_chunk.len());
                let text = unescape(&word_chunk[close + 1..text_end]);
                if let (Some(x0), Some(y0), Some(x1), Some(y1)) = (
                    attr(wtag, "xMin"),
                    attr(wtag, "yMin"),
                    attr(wtag, "xMax"),
                    attr(wtag, "yMax"),
                ) {
                    words.push(Word {
                        text,
                        bbox: PageBox::from_edges(number, x0, y0, x1, y1),
                        confidence: Confidence::CERTAIN,
                    });
                }
            }
            let size = words.first().map(|w| w.bbox.h);
            if let Some(mut line) = Line::from_words(words, size) {
                line.order = lines.len() as u32;
                lines.push(line);
            }
        }
        pages.push(Page {
            page: number,
            width: attr(tag, "width").unwrap_or(595.0),
            height: attr(tag, "height").unwrap_or(842.0),
            coordinate_frame: CoordinateFrame::PdfPointsTopLeft,
            method: PageMethod::TextLayer,
            rotation: 0,
            columns: 1,
            lines,
            rulings: Vec::new(),
        });
    }
    Ok(pages)
}

/// Tallies of one field.
#[derive(Default, Clone)]
struct Tally {
    headline_truth: usize,
    headline_correct: usize,
    all_truth: usize,
    all_correct: usize,
    false_positives: usize,
    true_nulls: usize,
    /// Per distinct invoice: (correct, counted) over its PDFs, headline only.
    distinct: BTreeMap<String, (usize, usize)>,
}

struct Run {
    label: &'static str,
    tallies: BTreeMap<&'static str, (HeaderFieldName, Tally)>,
    times: Vec<Duration>,
    errors: Vec<(String, String)>,
    fail_files: (usize, usize),
}

fn percent(n: usize, d: usize) -> String {
    if d == 0 {
        "–".to_string()
    } else {
        format!("{:.1} %", 100.0 * n as f64 / d as f64)
    }
}

fn run(
    label: &'static str,
    records: &[Value],
    mut pages_for: impl FnMut(&Value) -> Option<Result<Vec<Page>, String>>,
    verbose: bool,
) -> Run {
    let mut result = Run {
        label,
        tallies: BTreeMap::new(),
        times: Vec::new(),
        errors: Vec::new(),
        fail_files: (0, 0),
    };
    for record in records {
        let file = record.get("file").and_then(Value::as_str).unwrap_or("?");
        let status = record
            .get("corpus_status")
            .and_then(Value::as_str)
            .unwrap_or("");
        let started = Instant::now();
        let Some(pages) = pages_for(record) else {
            continue;
        };
        let header = pages.map(|pages| {
            let kvs: Vec<_> = pages.iter().flat_map(find_key_values).collect();
            extract_header(&pages, &kvs)
        });
        result.times.push(started.elapsed());
        if status == "fail" {
            // Only "no crash": an answer or a clean error.
            result.fail_files.0 += 1;
            result.fail_files.1 += 1;
            continue;
        }
        if status != "correct" && status != "reference" {
            continue;
        }
        let header = match header {
            Ok(h) => h,
            Err(e) => {
                result.errors.push((file.to_string(), e));
                HeaderFields::default()
            }
        };
        let distinct_key = format!(
            "{}|{}",
            record
                .get("invoice_number")
                .map(Value::to_string)
                .unwrap_or_default(),
            record
                .get("grand_total")
                .map(Value::to_string)
                .unwrap_or_default()
        );
        for score in score_header(&header, record) {
            let entry = result
                .tallies
                .entry(score.truth_key)
                .or_insert((score.field, Tally::default()));
            let tally = &mut entry.1;
            let correct = score.verdict == Verdict::Correct;
            match score.verdict {
                Verdict::FalsePositive => tally.false_positives += 1,
                Verdict::TrueNull => tally.true_nulls += 1,
                _ => {
                    tally.all_truth += 1;
                    tally.all_correct += usize::from(correct);
                    if score.printed == Some(true) {
                        tally.headline_truth += 1;
                        tally.headline_correct += usize::from(correct);
                        let d = tally.distinct.entry(distinct_key.clone()).or_default();
                        d.0 += usize::from(correct);
                        d.1 += 1;
                    }
                }
            }
            if verbose && !matches!(score.verdict, Verdict::Correct | Verdict::TrueNull) {
                println!(
                    "{file}\t{}\t{:?}\tours={:?}\ttruth={:?}",
                    score.truth_key, score.verdict, score.ours, score.truth
                );
            }
        }
    }
    result
}

fn print_run(run: &Run) {
    println!("\n### {}\n", run.label);
    println!(
        "| field | truth (printed) | accuracy per PDF (printed) | per distinct invoice (printed) | accuracy (all non-null) | false positives |"
    );
    println!("|---|---|---|---|---|---|");
    let (mut hc, mut ht, mut ac, mut at, mut fp) = (0, 0, 0, 0, 0);
    let (mut dsum, mut dn) = (0.0, 0usize);
    for (_, (field, tally)) in FIELDS
        .iter()
        .filter_map(|(_, key, _)| run.tallies.get(key).map(|t| (key, t)))
    {
        let distinct: Vec<f64> = tally
            .distinct
            .values()
            .map(|(c, n)| *c as f64 / *n as f64)
            .collect();
        let distinct_acc = if distinct.is_empty() {
            "–".to_string()
        } else {
            format!(
                "{:.1} % of {}",
                100.0 * distinct.iter().sum::<f64>() / distinct.len() as f64,
                distinct.len()
            )
        };
        println!(
            "| {} | {} | {} | {} | {} | {} of {} |",
            field.as_str(),
            tally.headline_truth,
            percent(tally.headline_correct, tally.headline_truth),
            distinct_acc,
            percent(tally.all_correct, tally.all_truth),
            tally.false_positives,
            tally.false_positives + tally.true_nulls
        );
        if field.as_str() != "seller_tax_number" {
            hc += tally.headline_correct;
            ht += tally.headline_truth;
            ac += tally.all_correct;
            at += tally.all_truth;
            fp += tally.false_positives;
            dsum += distinct.iter().sum::<f64>();
            dn += distinct.len();
        }
    }
    println!(
        "| **all 14 scored fields** | {ht} | **{}** | {} | {} | {fp} |",
        percent(hc, ht),
        if dn == 0 {
            "–".into()
        } else {
            format!("{:.1} %", 100.0 * dsum / dn as f64)
        },
        percent(ac, at)
    );
    let mut times = run.times.clone();
    times.sort();
    if !times.is_empty() {
        let total: Duration = times.iter().sum();
        println!(
            "\n{} PDFs; time per PDF (load + all pages + key-values + header): mean {:.1} ms, median {:.1} ms, max {:.1} ms",
            times.len(),
            total.as_secs_f64() * 1000.0 / times.len() as f64,
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[times.len() - 1].as_secs_f64() * 1000.0
        );
    }
    println!(
        "`fail` files answered without a crash: {} of {}",
        run.fail_files.0, run.fail_files.1
    );
    for (file, error) in &run.errors {
        println!("error: {file}: {error}");
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir: Option<PathBuf> = None;
    let mut ocr_dir: Option<PathBuf> = None;
    let mut source = Source::Ours;
    let mut verbose = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ocr-images" => ocr_dir = args.next().map(PathBuf::from),
            "--pdftotext" => source = Source::Pdftotext,
            "--verbose" => verbose = true,
            _ => dir = Some(PathBuf::from(arg)),
        }
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("../shared/test-data/zugferd"));
    let Ok(truth) = std::fs::read_to_string(dir.join("ground-truth.jsonl")) else {
        println!(
            "no corpus at {} (ground-truth.jsonl missing): skipped",
            dir.display()
        );
        return;
    };
    let records: Vec<Value> = truth
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let label = match source {
        Source::Ours => "text layer (our extractor)",
        Source::Pdftotext => "text layer (pdftotext -bbox-layout, development only)",
    };
    let text_run = run(
        label,
        &records,
        |record| {
            let file = record.get("file").and_then(Value::as_str)?;
            let path = dir.join(file);
            // `catch_unwind` so that one crashing file is reported, not the whole run lost.
            let pages = std::panic::catch_unwind(|| pages_of(&path, &source))
                .unwrap_or_else(|_| Err("panic".to_string()));
            Some(pages)
        },
        verbose,
    );
    print_run(&text_run);
    if let Some(ocr_dir) = ocr_dir {
        if !ocr_dir.is_dir() {
            println!("\nno OCR pages at {}: OCR path skipped", ocr_dir.display());
            return;
        }
        let ocr_run = run(
            "OCR path (pre-recognised pages)",
            &records,
            |record| {
                let file = record.get("file").and_then(Value::as_str)?;
                let stem = Path::new(file).file_stem()?.to_string_lossy().into_owned();
                let json =
                    std::fs::read_to_string(ocr_dir.join(format!("{stem}.pages.json"))).ok()?;
                Some(serde_json::from_str::<Vec<Page>>(&json).map_err(|e| e.to_string()))
            },
            verbose,
        );
        print_run(&ocr_run);
    }
}
