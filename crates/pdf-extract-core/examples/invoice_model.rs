//! The header-field ranker's data, training and honest evaluation.
//!
//! ```text
//! # 1. candidates of every labelled invoice, with features and right/wrong (committed table)
//! cargo run --release -p pdf-extract-core --example invoice_model -- dump \
//!     --zugferd ../shared/test-data/zugferd --einvoices ../shared/test-data/einvoices \
//!     --misc ../shared/test-data/invoices-misc --generated target/invoice-gen \
//!     [--ocr-pages DIR]   also candidates of recognised pages: DIR/<set>/<stem>.pages.json, as
//!                         docs-server's zugferd_ocr_pages example writes them for a folder
//!     [--receipts DIR]    SROIE's receipts (evaluation only), recognised pictures in
//!                         DIR/receipts (ocr-core's receipt_pages example)
//!     [--receipt-gen DIR] our generated receipts (testdata/receipt-gen), recognised pictures
//!                         in DIR/receipt-gen
//!     --out testdata/invoice-model/candidates.tsv.gz
//! # 2. the shipped model from that table
//! cargo run --release -p pdf-extract-core --example invoice_model -- train \
//!     --table testdata/invoice-model/candidates.tsv.gz --out crates/doc-analysis/src/header/model.txt
//! # 3. in-sample, leave-one-source-out and leave-one-collection-out figures, calibration
//! cargo run --release -p pdf-extract-core --example invoice_model -- evaluate \
//!     --table testdata/invoice-model/candidates.tsv.gz [--threshold 0.5]
//! # 4. every candidate of one PDF with the shipped model's probability (debugging)
//! cargo run --release -p pdf-extract-core --example invoice_model -- show FILE.pdf [FIELD]
//! ```
//!
//! A source is one producer of layouts: a ZUGFeRD corpus producer (intarsys, symtrax,
//! Mustang, FNFE, …), one repository of the e-invoice pool, invoice2data's samples, or one
//! layout family of the generator. Leaving a source out means its layouts were never seen by
//! the model that is scored on them. The rules that propose candidates were written on the
//! ZUGFeRD corpus: its in-sample and left-out figures both include that.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use doc_analysis::find_key_values;
use doc_analysis::header::model::{Model, TrainOptions, field_key, train};
use doc_analysis::header::normalize::{parse_amount, parse_date};
use doc_analysis::header::rank::{ranked, rule_confidence_at};
use doc_analysis::header::training::{
    Document, Row, absence_is_unknown, evaluation_only, examples_of, parse_table, write_table,
};
use doc_analysis::header::trees::BoostOptions;
use doc_analysis::header::{
    Choice, Rule, choose, header_candidates, min_confidence, returned_confidence, value_ids,
};
use doc_model::{HeaderFieldName, Page};
use serde_json::Value;

#[path = "common/invoice_truth.rs"]
mod invoice_truth;
use invoice_truth::{FIELDS, equal, misc_records, pages_of_pdf, truth_string};

/// The producer of a ZUGFeRD corpus file, from its path in the corpus.
fn zugferd_source(record: &Value) -> String {
    let path = record
        .get("source_path")
        .and_then(Value::as_str)
        .unwrap_or("");
    let parts: Vec<&str> = path.split('/').collect();
    let producer = match parts.as_slice() {
        [first, ..] if first.starts_with("XML-Rechnung") => "xml-rechnung".to_string(),
        [_, _, producer, ..] => producer.to_lowercase(),
        _ => "other".to_string(),
    };
    format!("zugferd/{producer}")
}

fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("ground-truth.jsonl"))
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The document's row of the table from its pages and truth. `null_is_unknown`: the truth
/// names only some fields (invoice2data's templates), so a null there says nothing.
fn document(
    name: String,
    source: String,
    pages: &[Page],
    record: &Value,
    null_is_unknown: bool,
) -> Document {
    document_folded(name, source, pages, record, null_is_unknown, false)
}

/// [`document`], names compared without regard to case when `fold_case` (receipts' truth is
/// written in capitals).
fn document_folded(
    name: String,
    source: String,
    pages: &[Page],
    record: &Value,
    null_is_unknown: bool,
    fold_case: bool,
) -> Document {
    let kvs: Vec<_> = pages.iter().flat_map(find_key_values).collect();
    let candidates = header_candidates(pages, &kvs);
    let ids = value_ids(&candidates);
    let mut doc = Document {
        name,
        source,
        ..Document::default()
    };
    for (field, key, compare) in FIELDS {
        let truth = record.get(*key).and_then(truth_string);
        if truth.is_none() && null_is_unknown {
            continue;
        }
        let printed = record
            .get("printed")
            .and_then(|p| p.get(*key))
            .and_then(Value::as_bool);
        doc.truth
            .insert(*field, truth.as_ref().map(|_| printed.unwrap_or(true)));
        for (c, id) in candidates
            .iter()
            .zip(&ids)
            .filter(|(c, _)| c.field == *field)
        {
            doc.candidates.push(Row {
                field: *field,
                correct: truth.as_deref().is_some_and(|t| {
                    if fold_case {
                        equal(*compare, &c.value.value.to_uppercase(), &t.to_uppercase())
                    } else {
                        equal(*compare, &c.value.value, t)
                    }
                }),
                value_id: *id,
                features: c.features.clone(),
            });
        }
    }
    doc
}

/// The receipts of a SROIE-shaped folder (`NNN.json` truth: company, date, address, total;
/// `manifest.jsonl` naming each receipt's seller group) read from their recognised pages
/// (`receipt_pages` example): the company as the seller's name, the date as the issue date,
/// the total as the gross total. A source is a seller group, so leaving one out leaves out
/// every receipt of that seller.
fn receipt_documents(dir: &Path, pages_dir: &Path) -> Vec<Document> {
    let groups: BTreeMap<String, String> = std::fs::read_to_string(dir.join("manifest.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            Some((
                v.get("stem")?.as_str()?.to_string(),
                v.get("group")?.as_str()?.to_string(),
            ))
        })
        .collect();
    let mut docs = Vec::new();
    for (stem, group) in &groups {
        let truth: Option<Value> = std::fs::read_to_string(dir.join(format!("{stem}.json")))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let pages: Option<Vec<Page>> =
            std::fs::read_to_string(pages_dir.join(format!("{stem}.pages.json")))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
        let (Some(truth), Some(pages)) = (truth, pages) else {
            continue;
        };
        let text = |key: &str| truth.get(key).and_then(Value::as_str).map(str::to_string);
        let record = serde_json::json!({
            "seller_name": text("company"),
            "issue_date": text("date").and_then(|d| receipt_date(&d)),
            "grand_total": text("total").and_then(|t| parse_amount(&t)),
        });
        docs.push(document_folded(
            format!("ocr:sroie/{stem}.jpg"),
            format!("ocr:sroie/{}", group.to_lowercase()),
            &pages,
            &record,
            true,
            true,
        ));
    }
    docs
}

/// The receipts of our generator (testdata/receipt-gen: `ground-truth.jsonl` with `file`,
/// `family`, `company`, `date` (ISO), `currency`) read from their recognised pictures: the
/// company as the seller's name, the date as the issue date. A source is a layout family.
/// Their totals are left out of the truth, so no model learns totals from them: with them,
/// SROIE's totals (never trained on) came back more often but less often right (64.8 % found,
/// 85.1 % right against 50.0 % and 93.6 % without; docs/benchmarks.md): our slips' totals do
/// not teach the rounding adjustments and tax summaries that real slips print around theirs.
fn generated_receipt_documents(dir: &Path, pages_dir: &Path) -> Vec<Document> {
    let mut docs = Vec::new();
    for record in records(dir) {
        let (Some(file), Some(family)) = (
            record.get("file").and_then(Value::as_str),
            record.get("family").and_then(Value::as_str),
        ) else {
            continue;
        };
        let stem = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let pages: Option<Vec<Page>> =
            std::fs::read_to_string(pages_dir.join(format!("{stem}.pages.json")))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
        let Some(pages) = pages else {
            continue;
        };
        let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_string);
        let truth = serde_json::json!({
            "seller_name": text("company"),
            "issue_date": text("date"),
            "currency": text("currency"),
        });
        docs.push(document_folded(
            format!("ocr:receipt-gen/{file}"),
            format!("ocr:receipt-gen/{family}"),
            &pages,
            &truth,
            true,
            true,
        ));
    }
    docs
}

/// A receipt's date as its truth writes it (`25/12/2018`, `25-12-18`, `20180327`,
/// `05-JAN-2017`, `OCT 3, 2016`; day first) as `YYYY-MM-DD`.
fn receipt_date(printed: &str) -> Option<String> {
    let printed = printed.trim().trim_matches(['(', ')']);
    if printed.len() == 8 && printed.chars().all(|c| c.is_ascii_digit()) {
        return parse_date(
            &format!("{}-{}-{}", &printed[..4], &printed[4..6], &printed[6..]),
            true,
        );
    }
    parse_date(printed, true)
        .or_else(|| parse_date(&printed.replace('-', "/"), true))
        .or_else(|| parse_date(&printed.replace('-', " "), true))
}

fn dump(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut out = PathBuf::from("testdata/invoice-model/candidates.tsv.gz");
    let mut sets: Vec<(&str, PathBuf)> = Vec::new();
    let mut ocr_pages: Option<PathBuf> = None;
    let mut receipts: Option<PathBuf> = None;
    let mut receipt_gen: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = it.next().map(PathBuf::from).ok_or("flag without value")?;
        match a.as_str() {
            "--out" => out = value,
            "--zugferd" => sets.push(("zugferd", value)),
            "--einvoices" => sets.push(("einvoices", value)),
            "--misc" => sets.push(("misc", value)),
            "--generated" => sets.push(("generated", value)),
            "--ocr-pages" => ocr_pages = Some(value),
            "--receipts" => receipts = Some(value),
            "--receipt-gen" => receipt_gen = Some(value),
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let mut docs: Vec<Document> = Vec::new();
    if let (Some(dir), Some(ocr)) = (&receipts, &ocr_pages) {
        docs.extend(receipt_documents(dir, &ocr.join("receipts")));
    }
    if let (Some(dir), Some(ocr)) = (&receipt_gen, &ocr_pages) {
        docs.extend(generated_receipt_documents(dir, &ocr.join("receipt-gen")));
    }
    for (set, dir) in &sets {
        let (recs, unknown_nulls) = match *set {
            "misc" => (misc_records(dir), true),
            _ => (records(dir), false),
        };
        for record in recs {
            let status = record
                .get("corpus_status")
                .and_then(Value::as_str)
                .unwrap_or("correct");
            if status != "correct" && status != "reference" {
                continue;
            }
            let Some(file) = record.get("file").and_then(Value::as_str) else {
                continue;
            };
            let source = match *set {
                "zugferd" => zugferd_source(&record),
                "einvoices" => format!(
                    "einvoices/{}",
                    record
                        .get("source_repo")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                ),
                "misc" => "invoice2data".to_string(),
                _ => format!(
                    "generated/{}",
                    record
                        .get("layout_family")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                ),
            };
            match pages_of_pdf(&dir.join(file)) {
                Ok(pages) => {
                    let name = format!("{set}/{file}");
                    docs.push(document(
                        name,
                        source.clone(),
                        &pages,
                        &record,
                        unknown_nulls,
                    ));
                }
                Err(e) => eprintln!("{set}/{file}: {e}"),
            }
            if let Some(ocr) = &ocr_pages {
                let stem = Path::new(file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let json = ocr.join(set).join(format!("{stem}.pages.json"));
                if let Ok(text) = std::fs::read_to_string(&json)
                    && let Ok(pages) = serde_json::from_str::<Vec<Page>>(&text)
                {
                    let name = format!("ocr:{set}/{file}");
                    let source = format!("ocr:{source}");
                    docs.push(document(name, source, &pages, &record, unknown_nulls));
                }
            }
        }
    }
    let text = write_table(&docs);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let file = std::fs::File::create(&out).map_err(|e| e.to_string())?;
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    gz.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    gz.finish().map_err(|e| e.to_string())?;
    eprintln!("{} documents written to {}", docs.len(), out.display());
    Ok(())
}

/// The table read back: documents in file order.
fn read_table(path: &Path) -> Result<Vec<Document>, Box<dyn std::error::Error>> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    Ok(parse_table(&text)?)
}

/// What the ranker answers for one field of one document: the best candidate's probability
/// and whether it is right.
#[derive(Clone, Copy)]
struct Answer {
    probability: f64,
    correct: bool,
}

/// As the product answers: the model's best for the fields it ranks, the rules' for the
/// others (a field whose training candidates were all right or all wrong has no model).
fn answers(model: &Model, doc: &Document) -> BTreeMap<HeaderFieldName, Answer> {
    let mut out: BTreeMap<HeaderFieldName, Answer> = rule_answers(doc)
        .into_iter()
        .filter(|(field, _)| model.field(*field).is_none())
        .collect();
    let choices: Vec<Choice<'_>> = doc
        .candidates
        .iter()
        .map(|r| Choice {
            field: r.field,
            value_id: r.value_id,
            features: &r.features,
        })
        .collect();
    for (field, (index, probability)) in choose(model, &choices) {
        out.insert(
            field,
            Answer {
                probability,
                correct: doc.candidates[index].correct,
            },
        );
    }
    out
}

/// What the rules alone answer: the first candidate of each field (the table keeps the rules'
/// order) that the rules themselves proposed, returned when its rule confidence reaches the
/// field's old threshold.
fn rule_answers(doc: &Document) -> BTreeMap<HeaderFieldName, Answer> {
    let confidence_at = rule_confidence_at();
    let mut out = BTreeMap::new();
    let broad: Vec<usize> = (0..Rule::ALL.len())
        .filter(|i| Rule::ALL[*i].is_broad())
        .collect();
    for row in &doc.candidates {
        // The broad candidates are the ranker's; the rules never returned them.
        if broad.iter().any(|i| row.features[*i] > 0.0) {
            continue;
        }
        out.entry(row.field).or_insert_with(|| Answer {
            probability: if row.features[confidence_at] >= min_confidence(row.field) {
                1.0
            } else {
                0.0
            },
            correct: row.correct,
        });
    }
    out
}

/// Found, returned and right over some documents' answers at a threshold.
#[derive(Default, Clone, Copy)]
struct Score {
    printed: usize,
    found: usize,
    returned: usize,
    right: usize,
    /// Values returned for a field the embedded XML does not carry (counted wrong: the page
    /// may print it, but nothing here can tell).
    returned_where_absent: usize,
}

impl Score {
    /// Every field of a document.
    fn add(&mut self, doc: &Document, answers: &BTreeMap<HeaderFieldName, Answer>, t: f64) {
        for field in doc.truth.keys() {
            self.add_field(doc, answers, *field, t);
        }
    }

    /// One field of a document, if its truth knows it.
    fn add_field(
        &mut self,
        doc: &Document,
        answers: &BTreeMap<HeaderFieldName, Answer>,
        field: HeaderFieldName,
        t: f64,
    ) {
        let Some(printed) = doc.truth.get(&field) else {
            return;
        };
        let unknown = printed.is_none() && absence_is_unknown(field);
        if !ranked(field) || *printed == Some(false) || unknown {
            return;
        }
        let answer = answers.get(&field).filter(|a| a.probability >= t);
        self.printed += usize::from(*printed == Some(true));
        if let Some(a) = answer {
            self.returned += 1;
            self.right += usize::from(a.correct);
            self.found += usize::from(a.correct && *printed == Some(true));
            self.returned_where_absent += usize::from(printed.is_none());
        }
    }

    fn recall(&self) -> f64 {
        ratio(self.found, self.printed)
    }

    fn precision(&self) -> f64 {
        ratio(self.right, self.returned)
    }

    /// Precision over the values whose field the embedded XML carries.
    fn precision_where_known(&self) -> f64 {
        ratio(self.right, self.returned - self.returned_where_absent)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "–".to_string()
    } else {
        format!("{:.1} %", 100.0 * x)
    }
}

fn options(threshold: f64) -> TrainOptions {
    // `INVOICE_MODEL_L2` tries another penalty (development only; the shipped model uses the
    // default).
    let l2 = std::env::var("INVOICE_MODEL_L2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(TrainOptions::default().l2);
    // `INVOICE_MODEL_TREES` (0: the regression alone) and `INVOICE_MODEL_DEPTH` try other
    // boosting (development only, likewise).
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
    };
    let boost = TrainOptions::default().boost.map(|b| BoostOptions {
        rounds: env("INVOICE_MODEL_TREES").unwrap_or(b.rounds),
        depth: env("INVOICE_MODEL_DEPTH").unwrap_or(b.depth),
        ..b
    });
    TrainOptions {
        threshold,
        l2,
        boost: boost.filter(|b| b.rounds > 0),
        ..TrainOptions::default()
    }
}

/// Out-of-fold answers: each document answered by a model trained without its group.
fn out_of_fold(
    docs: &[Document],
    group: impl Fn(&Document) -> String,
    threshold: f64,
) -> Vec<(String, BTreeMap<HeaderFieldName, Answer>)> {
    let mut groups: Vec<String> = docs.iter().map(&group).collect();
    groups.sort();
    groups.dedup();
    let mut out: Vec<Option<(String, BTreeMap<HeaderFieldName, Answer>)>> =
        (0..docs.len()).map(|_| None).collect();
    // An evaluation-only group is in no model: leaving it out trains the same model as
    // leaving nothing out, so that model is trained once for all of them.
    let mut without_evaluation_only = None;
    for g in &groups {
        let evaluated_only = docs
            .iter()
            .filter(|d| group(d) == *g)
            .all(|d| evaluation_only(&d.source));
        let left_out = || {
            train(
                &examples_of(docs.iter().filter(|d| group(d) != *g)),
                options(threshold),
            )
        };
        let fresh;
        let model = if evaluated_only {
            without_evaluation_only.get_or_insert_with(left_out)
        } else {
            fresh = left_out();
            &fresh
        };
        for (i, d) in docs.iter().enumerate() {
            if group(d) == *g {
                out[i] = Some((g.clone(), answers(model, d)));
            }
        }
    }
    out.into_iter().flatten().collect()
}

/// One row per field of the left-out answers of the documents `include` keeps: printed, found,
/// right of returned (fields nobody printed left out when `skip_unprinted`).
fn field_table(
    title: &str,
    docs: &[Document],
    by_source: &[(String, BTreeMap<HeaderFieldName, Answer>)],
    threshold: f64,
    skip_unprinted: bool,
    include: impl Fn(&Document) -> bool,
) {
    println!("| {title} | printed | leave-one-source-out found | right of returned |");
    println!("|---|---|---|---|");
    for (field, key, _) in FIELDS {
        let mut s = Score::default();
        for (i, d) in docs.iter().enumerate() {
            if include(d) {
                s.add_field(d, &by_source[i].1, *field, threshold);
            }
        }
        if skip_unprinted && s.printed == 0 {
            continue;
        }
        println!(
            "| {key} | {} | {} | {} of {} |",
            s.printed,
            pct(s.recall()),
            pct(s.precision()),
            s.returned
        );
    }
}

fn collection(d: &Document) -> String {
    let s = d.source.trim_start_matches("ocr:");
    let head = s.split('/').next().unwrap_or(s).to_string();
    if d.source.starts_with("ocr:") {
        format!("ocr:{head}")
    } else {
        head
    }
}

/// The flags of `train` and `evaluate`: the table, the threshold and (train only) the model
/// file to write.
struct ModelFlags {
    table: PathBuf,
    threshold: f64,
    out: PathBuf,
    /// `evaluate --errors`: list every wrong value returned, left out by source.
    errors: bool,
}

fn model_flags(args: &[String]) -> Result<ModelFlags, Box<dyn std::error::Error>> {
    let mut flags = ModelFlags {
        table: PathBuf::from("testdata/invoice-model/candidates.tsv.gz"),
        threshold: TrainOptions::default().threshold,
        out: PathBuf::from("crates/doc-analysis/src/header/model.txt"),
        errors: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--table" => flags.table = it.next().map(PathBuf::from).ok_or("--table FILE")?,
            "--out" => flags.out = it.next().map(PathBuf::from).ok_or("--out FILE")?,
            "--threshold" => {
                flags.threshold = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--threshold NUMBER")?;
            }
            "--errors" => flags.errors = true,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    Ok(flags)
}

fn evaluate(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let ModelFlags {
        table,
        threshold,
        errors,
        ..
    } = model_flags(args)?;
    let docs = read_table(&table)?;
    println!(
        "{} documents, {} candidates, threshold {threshold}\n",
        docs.len(),
        docs.iter().map(|d| d.candidates.len()).sum::<usize>()
    );
    let full = train(&examples_of(docs.iter()), options(threshold));
    let in_sample: Vec<(String, BTreeMap<HeaderFieldName, Answer>)> = docs
        .iter()
        .map(|d| (d.source.clone(), answers(&full, d)))
        .collect();
    // A document's text layer and its OCR reading are left out together: the same invoice
    // must not be trained on in one form and scored in the other.
    let by_source = out_of_fold(
        &docs,
        |d| d.source.trim_start_matches("ocr:").to_string(),
        threshold,
    );
    if let Ok(path) = std::env::var("INVOICE_MODEL_OOF") {
        // Development: every left-out answer, for threshold studies.
        let mut text = String::new();
        for (d, (_, answers)) in docs.iter().zip(&by_source) {
            for (field, a) in answers {
                let printed = d.truth.get(field).copied();
                let Some(printed) = printed else { continue };
                text.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{:.6}\t{}\t{}\n",
                    collection(d),
                    d.source,
                    d.name,
                    field_key(*field),
                    a.probability,
                    u8::from(a.correct),
                    match printed {
                        Some(true) => "1",
                        Some(false) => "0",
                        None => "n",
                    }
                ));
            }
        }
        std::fs::write(path, text).map_err(|e| e.to_string())?;
    }
    if errors {
        for (d, (_, answers)) in docs.iter().zip(&by_source) {
            for (field, a) in answers {
                let printed = d.truth.get(field).copied().flatten();
                let counted = ranked(*field)
                    && printed != Some(false)
                    && !(printed.is_none() && absence_is_unknown(*field));
                if counted && a.probability >= threshold && !a.correct {
                    println!(
                        "wrong\t{}\t{}\t{}\t{:.3}\t{}",
                        d.source,
                        d.name,
                        field_key(*field),
                        a.probability,
                        if printed.is_some() {
                            "printed"
                        } else {
                            "absent"
                        }
                    );
                }
            }
        }
    }
    let by_collection = out_of_fold(
        &docs,
        |d| collection(d).trim_start_matches("ocr:").to_string(),
        threshold,
    );
    // Docs are in the same order in all three lists.
    let collections: Vec<String> = {
        let mut c: Vec<String> = docs.iter().map(collection).collect();
        c.sort();
        c.dedup();
        c
    };
    println!(
        "| collection | docs | printed fields | rules alone found / right | in-sample found / right | leave-one-source-out found / right | worst source (found / right) | leave-one-collection-out found / right |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for c in &collections {
        let idx: Vec<usize> = (0..docs.len())
            .filter(|i| collection(&docs[*i]) == *c)
            .collect();
        let score = |answers: &[(String, BTreeMap<HeaderFieldName, Answer>)]| {
            let mut s = Score::default();
            for i in &idx {
                s.add(&docs[*i], &answers[*i].1, threshold);
            }
            s
        };
        let (ins, loso, loco) = (score(&in_sample), score(&by_source), score(&by_collection));
        let mut rules = Score::default();
        for i in &idx {
            rules.add(&docs[*i], &rule_answers(&docs[*i]), 0.5);
        }
        // Per source within the collection: the worst by found, among sources with at least
        // ten printed fields.
        let mut per_source: BTreeMap<String, Score> = BTreeMap::new();
        for i in &idx {
            per_source.entry(docs[*i].source.clone()).or_default().add(
                &docs[*i],
                &by_source[*i].1,
                threshold,
            );
        }
        let worst = per_source
            .iter()
            .filter(|(_, s)| s.printed >= 10)
            .min_by(|a, b| a.1.recall().total_cmp(&b.1.recall()));
        println!(
            "| {c} | {} | {} | {} / {} | {} / {} | {} / {} | {} | {} / {} |",
            idx.len(),
            ins.printed,
            pct(rules.recall()),
            pct(rules.precision()),
            pct(ins.recall()),
            pct(ins.precision()),
            pct(loso.recall()),
            pct(loso.precision()),
            worst.map_or("–".to_string(), |(name, s)| format!(
                "{name}: {} / {}",
                pct(s.recall()),
                pct(s.precision())
            )),
            pct(loco.recall()),
            pct(loco.precision()),
        );
    }
    // Per field, leave-one-source-out over every document (an evaluation-only collection is
    // reported on its own).
    println!();
    field_table("field", &docs, &by_source, threshold, false, |d| {
        !evaluation_only(&d.source)
    });
    // Receipts apart: the fields their truth names (SROIE's never trained on; the generated
    // ones left out by family).
    for receipts in ["ocr:sroie", "ocr:receipt-gen"] {
        if docs.iter().any(|d| collection(d) == receipts) {
            println!();
            field_table(
                &format!("{receipts} field"),
                &docs,
                &by_source,
                threshold,
                true,
                |d| collection(d) == receipts,
            );
        }
    }
    // Calibration of the out-of-fold probabilities (leave one source out), every best
    // candidate whatever the threshold, where the truth is printed or absent.
    println!("\n| probability (leave-one-source-out) | values | right |");
    println!("|---|---|---|");
    let bands = [0.0, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001];
    for w in bands.windows(2) {
        let (mut n, mut right) = (0usize, 0usize);
        for (i, d) in docs.iter().enumerate() {
            if evaluation_only(&d.source) {
                continue;
            }
            for (field, a) in &by_source[i].1 {
                if d.truth.get(field).is_some_and(|p| {
                    *p == Some(true) || (p.is_none() && !absence_is_unknown(*field))
                }) && a.probability >= w[0]
                    && a.probability < w[1]
                {
                    n += 1;
                    right += usize::from(a.correct);
                }
            }
        }
        println!(
            "| {:.2}–{:.2} | {n} | {} |",
            w[0],
            w[1].min(1.0),
            pct(ratio(right, n))
        );
    }
    // Per field, the trade at several thresholds (left out): where a field's own threshold
    // would put it.
    println!("\n| field | found / right at 0.5 | at 0.7 | at 0.8 | at 0.9 |");
    println!("|---|---|---|---|---|");
    for (field, key, _) in FIELDS {
        if !ranked(*field) {
            continue;
        }
        let cells: Vec<String> = [0.5, 0.7, 0.8, 0.9]
            .iter()
            .map(|t| {
                let mut s = Score::default();
                for (i, d) in docs.iter().enumerate() {
                    if evaluation_only(&d.source) {
                        continue;
                    }
                    s.add_field(d, &by_source[i].1, *field, *t);
                }
                format!("{} / {}", pct(s.recall()), pct(s.precision()))
            })
            .collect();
        println!("| {key} | {} |", cells.join(" | "));
    }
    // The threshold's trade: leave-one-source-out over everything at several thresholds.
    println!(
        "\n| threshold | leave-one-source-out found | right of returned | right of returned where the XML has the field |"
    );
    println!("|---|---|---|---|");
    for t in [0.3, 0.5, 0.6, 0.7, 0.8, 0.9] {
        let mut s = Score::default();
        for (i, d) in docs.iter().enumerate() {
            if evaluation_only(&d.source) {
                continue;
            }
            s.add(d, &by_source[i].1, t);
        }
        println!(
            "| {t} | {} | {} | {} |",
            pct(s.recall()),
            pct(s.precision()),
            pct(s.precision_where_known())
        );
    }
    Ok(())
}

fn train_command(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let ModelFlags {
        table,
        threshold,
        out,
        ..
    } = model_flags(args)?;
    let docs = read_table(&table)?;
    let model = train(&examples_of(docs.iter()), options(threshold));
    std::fs::write(&out, model.to_text()).map_err(|e| e.to_string())?;
    eprintln!(
        "{} fields ranked, written to {}",
        model.fields.len(),
        out.display()
    );
    Ok(())
}

/// Every candidate of one PDF, per field, with its rule and the shipped model's probability
/// (a debugging aid: what was proposed and why the chosen one won).
fn show(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let path = args
        .first()
        .ok_or("show FILE.pdf|FILE.pages.json [FIELD]")?;
    let only = args.get(1).map(String::as_str);
    // A recognised document (`*.pages.json`, as the OCR examples write them) or a PDF.
    let pages = if path.ends_with(".pages.json") {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        serde_json::from_str::<Vec<Page>>(&text).map_err(|e| e.to_string())?
    } else {
        pages_of_pdf(Path::new(path))?
    };
    let kvs: Vec<_> = pages.iter().flat_map(find_key_values).collect();
    let candidates = header_candidates(&pages, &kvs);
    let model = Model::shipped().ok_or("no shipped model")?;
    for (field, key, _) in FIELDS {
        if only.is_some_and(|o| o != *key) {
            continue;
        }
        println!("{key}");
        for c in candidates.iter().filter(|c| c.field == *field) {
            let p = model
                .field(*field)
                .map(|fm| returned_confidence(fm, *field, &c.features));
            println!(
                "  {:>5} {:<20} {:?} (printed {:?})",
                p.map_or("-".to_string(), |p| format!("{p:.3}")),
                c.rule.name(),
                c.value.value,
                c.value.text
            );
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dump") => dump(&args[1..]),
        Some("train") => train_command(&args[1..]),
        Some("evaluate") => evaluate(&args[1..]),
        Some("show") => show(&args[1..]),
        _ => {
            Err("usage: invoice_model dump|train|evaluate|show [flags] (see the file's doc)".into())
        }
    };
    if let Err(e) = result {
        eprintln!("invoice_model: {e}");
        std::process::exit(1);
    }
}
