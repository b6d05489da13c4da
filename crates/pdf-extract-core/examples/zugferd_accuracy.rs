//! Header-field accuracy on the ZUGFeRD corpus (`../shared/test-data/zugferd`), scored as its
//! README says: the embedded XML is ignored, only the pages are read (load → extract_page for
//! every page → find_key_values → extract_header) and compared with `ground-truth.jsonl`.
//!
//! ```text
//! cargo run --release -p pdf-extract-core --example zugferd_accuracy -- ../shared/test-data/zugferd
//!     [--ocr-images DIR]   score OCR'd pages too: DIR/<pdf stem>.pages.json = JSON array of doc_model::Page
//!     [--pdftotext]        development only: pages from poppler's `pdftotext -bbox-layout`
//!     [--verbose|--show]   print every wrong, missed and false-positive value (and line-item misses)
//!     [--misc DIR]         also score invoice2data's samples (DIR/<name>.pdf + <name>.json)
//!     [--xml]              also score the embedded-XML reader against ground-truth.jsonl
//! ```
//!
//! Besides accuracy (recall), each run reports precision per field (correct / values returned
//! where the truth has a printed value), calibration (how often the best value of each confidence band
//! is right, before the per-field thresholds drop the unsure ones) and line-item precision and
//! recall (lines matched in order on description, quantity, unit price and line total; amounts
//! unsigned, as credit notes print them; the description when either folded text contains the
//! other).
//!
//! Prints markdown tables. Per field: accuracy = correct / non-null truth over files whose
//! `corpus_status` is `correct` or `reference`; the headline counts only fields whose
//! `printed[field]` is true; a value where the truth is null is a false positive. Results are
//! given per PDF and per distinct invoice `(invoice_number, grand_total)` (mean of its PDFs).
//! `fail` files only have to give an answer or a clean error without a crash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use doc_analysis::header::normalize::{
    collapse_whitespace, compact_upper, currency_code, find_amounts, find_currencies, find_dates,
    same_amount,
};
use doc_analysis::header::{extract_header, extract_header_unfiltered};
use doc_analysis::key_values::find_key_values;
use doc_analysis::{find_document_line_items, find_tables};
use doc_model::{
    Confidence, CoordinateFrame, HeaderFieldName, HeaderFields, Line, LineItem, Page, PageBox,
    PageMethod, Word,
};
use pdf_extract_core::{Limits, PdfDocument};

#[path = "common/invoice_truth.rs"]
mod invoice_truth;
use invoice_truth::{Compare, FIELDS, equal, misc_records, pages_of_pdf, truth_string};
use serde_json::Value;

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

/// Whether the truth's value is printed anywhere on the pages (`text` = every line of every
/// page, in reading order): amounts and dates as any printed notation reads them, identifiers
/// and codes compacted, text folded to letters and digits. A wrong value whose truth is not
/// printed at all comes from a page that prints something other than its XML (a corpus
/// artefact, listed by `--show`), not from a misreading; such values are reported apart,
/// never dropped from the raw figures.
fn truth_printed(compare: Compare, truth: &str, text: &str) -> bool {
    match compare {
        Compare::Amount => {
            let unsigned = |s: &str| s.trim().trim_start_matches('-').to_string();
            find_amounts(text)
                .iter()
                .any(|a| same_amount(&unsigned(&a.decimal), &unsigned(truth)))
        }
        Compare::Date => [true, false].iter().any(|day_first| {
            find_dates(text, *day_first)
                .iter()
                .any(|d| d.iso == truth.trim())
        }),
        // A currency is printed as its code or its sign.
        Compare::Compact if currency_code(truth).is_some() => {
            compact_upper(text).contains(&compact_upper(truth))
                || find_currencies(text).contains(&truth.trim())
        }
        Compare::Compact => compact_upper(text).contains(&compact_upper(truth)),
        Compare::Text => {
            let t = fold(truth);
            !t.is_empty() && fold(text).contains(&t)
        }
    }
}

fn compare_of(field: HeaderFieldName) -> Compare {
    FIELDS
        .iter()
        .find(|(f, _, _)| *f == field)
        .map_or(Compare::Text, |(_, _, c)| *c)
}

/// Where pages come from.
enum Source {
    Ours,
    Pdftotext,
}

fn pages_of(path: &Path, source: &Source) -> Result<Vec<Page>, Box<dyn std::error::Error>> {
    match source {
        Source::Ours => pages_of_pdf(path),
        Source::Pdftotext => pdftotext_pages(path),
    }
}

/// Development only: pages from `pdftotext -bbox-layout` (poppler), to work on the analysis
/// before our own extractor existed and to compare with it. No rulings.
fn pdftotext_pages(path: &Path) -> Result<Vec<Page>, Box<dyn std::error::Error>> {
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
            recogniser: None,
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
    /// Values returned where the truth has one, and how many of them were wrong.
    returned: usize,
    wrong: usize,
    /// Of the wrong values, those whose truth is printed nowhere on the pages.
    wrong_unprinted_truth: usize,
    /// Of the values returned, those whose truth is printed nowhere on the pages.
    returned_unprinted_truth: usize,
    /// Of the wrong text values (truth printed), those that contain the truth or are contained
    /// in it: the XML names the party with more or fewer words or lines than the page prints
    /// (`Herrn` + `Max Mustermann`, `Au bon moulin` printed `Au bon moulin SARL`).
    wrong_nested: usize,
    false_positives: usize,
    true_nulls: usize,
    /// Per distinct invoice: (correct, counted) over its PDFs, headline only.
    distinct: BTreeMap<String, (usize, usize)>,
}

/// Confidence bands of the calibration table: lower edges.
const BANDS: &[f64] = &[0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

struct Run {
    label: &'static str,
    tallies: BTreeMap<&'static str, (HeaderFieldName, Tally)>,
    /// (field, confidence, correct) of every best value before thresholds, truth non-null.
    calibration: Vec<(HeaderFieldName, f64, bool)>,
    /// Line items: (matched, ours, truth) summed, and files with a truth.
    lines: (usize, usize, usize),
    line_files: usize,
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

/// A truth line's value under `key`, as a string.
fn line_value(line: &Value, key: &str) -> Option<String> {
    line.get(key).and_then(truth_string)
}

fn fold(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether our line matches a truth line on every value the truth gives: amounts and
/// quantities to the cent, the description when either folded text contains the other (a
/// printed description may add an article number or a second line).
fn line_matches(ours: &LineItem, truth: &Value) -> bool {
    // A credit note prints its lines without the XML's minus signs: compared unsigned.
    let unsigned = |s: &str| s.trim().trim_start_matches('-').to_string();
    let amount = |o: &Option<String>, key: &str| match line_value(truth, key) {
        None => true,
        Some(t) => o
            .as_deref()
            .is_some_and(|o| same_amount(&unsigned(o), &unsigned(&t))),
    };
    let description = match line_value(truth, "description") {
        None => true,
        Some(t) => ours.description.as_deref().is_some_and(|o| {
            let (o, t) = (fold(o), fold(&t));
            !o.is_empty() && !t.is_empty() && (o.contains(&t) || t.contains(&o))
        }),
    };
    description
        && amount(&ours.quantity, "quantity")
        && amount(&ours.unit_price, "unit_price")
        && amount(&ours.line_total, "line_total")
}

/// Lines matched in order: each truth line takes the first unmatched line of ours after the
/// previous match that fits it.
fn match_lines(ours: &[LineItem], truth: &[Value]) -> usize {
    let mut next = 0;
    let mut matched = 0;
    for t in truth {
        if let Some(i) = (next..ours.len()).find(|i| line_matches(&ours[*i], t)) {
            matched += 1;
            next = i + 1;
        }
    }
    matched
}

fn run(
    label: &'static str,
    records: &[Value],
    mut pages_for: impl FnMut(&Value) -> Option<Result<Vec<Page>, Box<dyn std::error::Error>>>,
    verbose: bool,
) -> Run {
    let mut result = Run {
        label,
        tallies: BTreeMap::new(),
        calibration: Vec::new(),
        lines: (0, 0, 0),
        line_files: 0,
        times: Vec::new(),
        errors: Vec::new(),
        fail_files: (0, 0),
    };
    for record in records {
        let file = record.get("file").and_then(Value::as_str).unwrap_or("?");
        // Sets without a corpus status (einvoices, generated) are scored whole.
        let status = record
            .get("corpus_status")
            .and_then(Value::as_str)
            .unwrap_or("correct");
        let started = Instant::now();
        let Some(pages) = pages_for(record) else {
            continue;
        };
        let analysed = pages.map(|pages| {
            let page_text: String = pages
                .iter()
                .flat_map(|p| &p.lines)
                .map(|l| {
                    l.words
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n");
            let kvs: Vec<_> = pages.iter().flat_map(find_key_values).collect();
            let tables: Vec<_> = pages.iter().flat_map(find_tables).collect();
            (
                extract_header(&pages, &kvs),
                extract_header_unfiltered(&pages, &kvs),
                find_document_line_items(&pages, &tables),
                page_text,
            )
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
        let (header, raw, items, page_text) = match analysed {
            Ok(h) => h,
            Err(e) => {
                result.errors.push((file.to_string(), e.to_string()));
                Default::default()
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
        for score in score_header(&raw, record) {
            if matches!(score.verdict, Verdict::Correct | Verdict::Wrong)
                && score.printed == Some(true)
            {
                let confidence = raw.get(score.field).map_or(0.0, |f| f.confidence.value());
                if verbose {
                    let method = raw.get(score.field).map(|f| f.source.method);
                    println!(
                        "calib\t{file}\t{}\t{method:?}\t{confidence:.3}\t{}\t{:?}",
                        score.truth_key,
                        score.verdict == Verdict::Correct,
                        score.ours
                    );
                }
                result.calibration.push((
                    score.field,
                    confidence,
                    score.verdict == Verdict::Correct,
                ));
            }
        }
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
                        if score.ours.is_some() {
                            let unprinted = score.truth.as_deref().is_some_and(|t| {
                                !truth_printed(compare_of(score.field), t, &page_text)
                            });
                            tally.returned += 1;
                            tally.wrong += usize::from(!correct);
                            tally.returned_unprinted_truth += usize::from(unprinted);
                            tally.wrong_unprinted_truth += usize::from(unprinted && !correct);
                            let nested = matches!(
                                score.field,
                                HeaderFieldName::SellerName | HeaderFieldName::BuyerName
                            ) && !correct
                                && !unprinted
                                && score
                                    .ours
                                    .as_deref()
                                    .zip(score.truth.as_deref())
                                    .is_some_and(|(o, t)| {
                                        let (o, t) = (fold(o), fold(t));
                                        !o.is_empty() && (o.contains(&t) || t.contains(&o))
                                    });
                            tally.wrong_nested += usize::from(nested);
                            if verbose && unprinted {
                                println!(
                                    "{file}\t{}\ttruth not printed\tours={:?}\ttruth={:?}\tcorrect={correct}",
                                    score.truth_key, score.ours, score.truth
                                );
                            }
                        }
                        tally.headline_truth += 1;
                        tally.headline_correct += usize::from(correct);
                        let d = tally.distinct.entry(distinct_key.clone()).or_default();
                        d.0 += usize::from(correct);
                        d.1 += 1;
                    }
                }
            }
            if verbose && !matches!(score.verdict, Verdict::Correct | Verdict::TrueNull) {
                let confidence = header.get(score.field).map(|f| f.confidence.value());
                // `printed=false` rows do not count in the headline figures.
                println!(
                    "{file}\t{}\t{:?}\tours={:?}\tconf={confidence:?}\ttruth={:?}\tprinted={:?}",
                    score.truth_key, score.verdict, score.ours, score.truth, score.printed
                );
            }
        }
        // Text-only lines of the XML (all four values null) are no items.
        let truth_lines: Option<Vec<Value>> = record
            .get("line_items")
            .and_then(Value::as_array)
            .map(|lines| {
                lines
                    .iter()
                    .filter(|l| {
                        ["description", "quantity", "unit_price", "line_total"]
                            .iter()
                            .any(|k| line_value(l, k).is_some())
                    })
                    .cloned()
                    .collect()
            });
        if let Some(truth_lines) = truth_lines.as_ref()
            && !truth_lines.is_empty()
        {
            let matched = match_lines(&items, truth_lines);
            result.lines.0 += matched;
            result.lines.1 += items.len();
            result.lines.2 += truth_lines.len();
            result.line_files += 1;
            if verbose && matched < truth_lines.len().max(items.len()) {
                println!(
                    "{file}\tline_items\t{matched} matched of {} ours, {} truth",
                    items.len(),
                    truth_lines.len()
                );
                for item in items.iter().take(8) {
                    println!(
                        "\t\tours: {:?} | {:?} | {:?} | {:?}",
                        item.description, item.quantity, item.unit_price, item.line_total
                    );
                }
                for t in truth_lines.iter().take(4) {
                    println!("\t\ttruth: {t}");
                }
            }
        }
    }
    result
}

fn print_run(run: &Run) {
    println!("\n### {}\n", run.label);
    println!(
        "| field | truth (printed) | accuracy per PDF (printed) | per distinct invoice (printed) | accuracy (all non-null) | precision (returned) | false positives |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (mut hc, mut ht, mut ac, mut at, mut fp) = (0, 0, 0, 0, 0);
    let (mut returned, mut wrong) = (0, 0);
    let (mut returned_unprinted, mut wrong_unprinted, mut nested) = (0, 0, 0);
    let mut unprinted_fields: Vec<String> = Vec::new();
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
            "| {} | {} | {} | {} | {} | {} of {} | {} of {} |",
            field.as_str(),
            tally.headline_truth,
            percent(tally.headline_correct, tally.headline_truth),
            distinct_acc,
            percent(tally.all_correct, tally.all_truth),
            percent(tally.returned - tally.wrong, tally.returned),
            tally.returned,
            tally.false_positives,
            tally.false_positives + tally.true_nulls
        );
        if field.as_str() != "seller_tax_number" {
            hc += tally.headline_correct;
            ht += tally.headline_truth;
            ac += tally.all_correct;
            at += tally.all_truth;
            fp += tally.false_positives;
            returned += tally.returned;
            wrong += tally.wrong;
            returned_unprinted += tally.returned_unprinted_truth;
            wrong_unprinted += tally.wrong_unprinted_truth;
            nested += tally.wrong_nested;
            if tally.returned_unprinted_truth > 0 {
                unprinted_fields.push(format!(
                    "{} {} ({} wrong)",
                    field.as_str(),
                    tally.returned_unprinted_truth,
                    tally.wrong_unprinted_truth
                ));
            }
            dsum += distinct.iter().sum::<f64>();
            dn += distinct.len();
        }
    }
    println!(
        "| **all 14 scored fields** | {ht} | **{}** | {} | {} | **{}** of {returned} | {fp} |",
        percent(hc, ht),
        if dn == 0 {
            "–".into()
        } else {
            format!("{:.1} %", 100.0 * dsum / dn as f64)
        },
        percent(ac, at),
        percent(returned - wrong, returned),
    );
    let printed_returned = returned - returned_unprinted;
    let printed_wrong = wrong - wrong_unprinted;
    println!(
        "\nPrecision where the truth is printed on the pages: **{}** of {printed_returned}; {returned_unprinted} values returned where the pages print no such value as the truth ({wrong_unprinted} of them wrong; listed by `--show` as `truth not printed`){}",
        percent(printed_returned - printed_wrong, printed_returned),
        if unprinted_fields.is_empty() {
            String::new()
        } else {
            format!(": {}", unprinted_fields.join(", "))
        }
    );
    println!(
        "\nPrecision with both kinds of corpus artefact set apart (the truth printed nowhere, and {nested} wrong party names that contain the truth or are contained in it: the XML's name with more or fewer lines or words than the page prints): **{}** of {}",
        percent(printed_returned - printed_wrong, printed_returned - nested),
        printed_returned - nested
    );
    println!(
        "\nCalibration (best value of every field before thresholds, where the truth has a printed value):\n"
    );
    println!("| confidence | values | correct |");
    println!("|---|---|---|");
    for (i, low) in BANDS.iter().enumerate() {
        let high = BANDS.get(i + 1).copied().unwrap_or(1.01);
        let in_band: Vec<bool> = run
            .calibration
            .iter()
            .filter(|(_, c, _)| *c >= *low && *c < high)
            .map(|(_, _, ok)| *ok)
            .collect();
        let correct = in_band.iter().filter(|ok| **ok).count();
        println!(
            "| {low:.1}–{:.1} | {} | {} |",
            high.min(1.0),
            in_band.len(),
            percent(correct, in_band.len())
        );
    }
    let (matched, ours, truth) = run.lines;
    println!(
        "\nLine items ({} files with lines): {truth} truth lines, {ours} returned, {matched} matched in order: precision {}, recall {}",
        run.line_files,
        percent(matched, ours),
        percent(matched, truth)
    );
    let mut times = run.times.clone();
    times.sort();
    if !times.is_empty() {
        let total: Duration = times.iter().sum();
        println!(
            "\n{} PDFs; time per PDF (load + all pages + key-values + tables + header): mean {:.1} ms, median {:.1} ms, max {:.1} ms",
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

/// Scores the embedded-XML reader: every field of the truth (null included) and every line.
fn score_xml(dir: &Path, records: &[Value], verbose: bool) {
    let mut per_field: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let (mut files, mut equal_files, mut line_equal, mut problems) = (0, 0, 0, 0);
    let mut fail_read = 0;
    for record in records {
        let status = record.get("corpus_status").and_then(Value::as_str);
        let Some(file) = record.get("file").and_then(Value::as_str) else {
            continue;
        };
        if status == Some("fail") {
            // Deliberately broken files: an answer (with its problems) and no crash.
            if let Ok(bytes) = std::fs::read(dir.join(file))
                && let Ok(doc) = PdfDocument::load(&bytes, &Limits::default())
            {
                let invoice = doc.embedded_invoice();
                fail_read += 1;
                if verbose {
                    println!(
                        "xml\t{file}\tfail file\tproblems={:?}",
                        invoice.map(|i| i.problems)
                    );
                }
            }
            continue;
        }
        if !matches!(status, Some("correct" | "reference")) {
            continue;
        }
        let Ok(bytes) = std::fs::read(dir.join(file)) else {
            continue;
        };
        let limits = Limits {
            max_bytes: 64 * 1024 * 1024,
            max_pages: 1000,
        };
        let Ok(doc) = PdfDocument::load(&bytes, &limits) else {
            continue;
        };
        files += 1;
        let invoice = doc.embedded_invoice();
        let problem = invoice.as_ref().is_none_or(|i| !i.problems.is_empty());
        problems += usize::from(problem);
        if problem && verbose {
            println!(
                "xml\t{file}\tproblems={:?}",
                invoice.as_ref().map(|i| &i.problems)
            );
        }
        let mut all_equal = true;
        for (field, key, compare) in FIELDS {
            let ours = invoice.as_ref().and_then(|i| i.fields.get(field));
            let truth = record.get(*key).and_then(truth_string);
            let ok = match (ours, &truth) {
                (Some(o), Some(t)) => equal(*compare, o, t),
                (None, None) => true,
                _ => false,
            };
            let entry = per_field.entry(key).or_default();
            entry.0 += usize::from(ok);
            entry.1 += 1;
            if !ok {
                all_equal = false;
                if verbose {
                    println!("xml\t{file}\t{key}\tours={ours:?}\ttruth={truth:?}");
                }
            }
        }
        let truth_lines = record
            .get("line_items")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let ours_lines = invoice
            .as_ref()
            .map(|i| i.line_items.clone())
            .unwrap_or_default();
        let lines_ok = ours_lines.len() == truth_lines.len()
            && ours_lines.iter().zip(&truth_lines).all(|(o, t)| {
                let text = |v: &Option<String>, k: &str| {
                    v.as_deref().map(collapse_whitespace)
                        == line_value(t, k).map(|s| collapse_whitespace(&s))
                };
                let amount = |v: &Option<String>, k: &str| match (v, line_value(t, k)) {
                    (Some(o), Some(t)) => same_amount(o, &t),
                    (None, None) => true,
                    _ => false,
                };
                text(&o.description, "description")
                    && amount(&o.quantity, "quantity")
                    && amount(&o.unit_price, "unit_price")
                    && amount(&o.line_total, "line_total")
            });
        line_equal += usize::from(lines_ok);
        if !lines_ok && verbose {
            println!(
                "xml\t{file}\tline_items\tours={} truth={}",
                ours_lines.len(),
                truth_lines.len()
            );
            for (o, t) in ours_lines.iter().zip(&truth_lines).take(3) {
                println!("\t\t{o:?}\n\t\t{t}");
            }
        }
        equal_files += usize::from(all_equal && lines_ok);
    }
    println!("\n### Embedded XML reader (correct + reference files)\n");
    println!("| field | equal to ground truth |");
    println!("|---|---|");
    for (_, key, _) in FIELDS {
        if let Some((ok, n)) = per_field.get(key) {
            println!("| {key} | {ok} of {n} |");
        }
    }
    println!("| line_items (all lines, all four values) | {line_equal} of {files} |");
    println!(
        "\nFiles equal on every field and line: **{equal_files} of {files}**; files with a reported problem: {problems}; `fail` files read without a crash: {fail_read}"
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir: Option<PathBuf> = None;
    let mut ocr_dir: Option<PathBuf> = None;
    let mut misc_dir: Option<PathBuf> = None;
    let mut source = Source::Ours;
    let mut verbose = false;
    let mut xml = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ocr-images" => ocr_dir = args.next().map(PathBuf::from),
            "--misc" => misc_dir = args.next().map(PathBuf::from),
            "--pdftotext" => source = Source::Pdftotext,
            "--verbose" | "--show" => verbose = true,
            "--xml" => xml = true,
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
    let source = &source;
    let from_files = |dir: PathBuf| {
        move |record: &Value| {
            let file = record.get("file").and_then(Value::as_str)?;
            let path = dir.join(file);
            // `catch_unwind` so that one crashing file is reported, not the whole run lost.
            let pages = std::panic::catch_unwind(|| pages_of(&path, source))
                .unwrap_or_else(|_| Err("panic".into()));
            Some(pages)
        }
    };
    let text_run = run(label, &records, from_files(dir.clone()), verbose);
    print_run(&text_run);
    if xml {
        score_xml(&dir, &records, verbose);
    }
    if let Some(misc_dir) = misc_dir {
        let misc = misc_records(&misc_dir);
        let misc_run = run(
            "invoice2data samples (text layer)",
            &misc,
            from_files(misc_dir),
            verbose,
        );
        print_run(&misc_run);
    }
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
                Some(serde_json::from_str::<Vec<Page>>(&json).map_err(Into::into))
            },
            verbose,
        );
        print_run(&ocr_run);
    }
}
