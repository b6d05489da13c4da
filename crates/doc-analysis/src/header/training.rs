//! The ranker's training table: labelled candidates of documents whose true fields are known,
//! written by the `invoice_model dump` example and read back to train the shipped model (and
//! by the test that proves the shipped model is the one this table makes).
//!
//! One line per fact, tab-separated:
//! - `T source document field printed`: the document's truth has the field, printed on the
//!   pages (`1`), present but not printed (`0`), or absent (`n`);
//! - `C source document field correct value features`: a candidate, right (`1`) or wrong
//!   (`0`), the number of its value within the document (candidates with the same value share
//!   it; no text is kept), and its features comma-separated in the order of
//!   [`super::rank::feature_names`].

use std::collections::BTreeMap;

use doc_model::HeaderFieldName;

use super::model::{Example, ModelError, field_key, field_of_key};
use super::rank::feature_count;

/// One labelled document.
#[derive(Debug, Default, Clone)]
pub struct Document {
    /// Its name (collection and file).
    pub name: String,
    /// Its source: one producer of layouts, the unit left out in evaluation.
    pub source: String,
    /// Per field the truth knows: `Some(true)` printed, `Some(false)` present but not printed,
    /// `None` absent.
    pub truth: BTreeMap<HeaderFieldName, Option<bool>>,
    /// Its candidates, in the rules' order within each field.
    pub candidates: Vec<Row>,
}

/// One labelled candidate.
#[derive(Debug, Clone)]
pub struct Row {
    /// The field it was proposed for.
    pub field: HeaderFieldName,
    /// Whether its value is the truth's.
    pub correct: bool,
    /// Which of the document's printed values it is: candidates (of any field) with the same
    /// value share the number, so that the chooser can give a name to one party only.
    pub value_id: u32,
    /// Its features.
    pub features: Vec<f64>,
}

/// The table's text.
pub fn write_table(docs: &[Document]) -> String {
    let mut text = String::from(
        "# Candidates of the header-field ranker, made by the invoice_model example's dump.\n\
         # T source document field printed (1 printed, 0 present but not printed, n absent)\n\
         # C source document field correct value features\n",
    );
    for doc in docs {
        for (field, printed) in &doc.truth {
            let p = match printed {
                Some(true) => "1",
                Some(false) => "0",
                None => "n",
            };
            text.push_str(&format!(
                "T\t{}\t{}\t{}\t{p}\n",
                doc.source,
                doc.name,
                field_key(*field)
            ));
        }
        for row in &doc.candidates {
            let features: Vec<String> = row.features.iter().map(|f| short_number(*f)).collect();
            text.push_str(&format!(
                "C\t{}\t{}\t{}\t{}\t{}\t{}\n",
                doc.source,
                doc.name,
                field_key(row.field),
                u8::from(row.correct),
                row.value_id,
                features.join(",")
            ));
        }
    }
    text
}

/// A feature as the table keeps it: three decimals, without trailing zeros (most features are
/// flags, `0` or `1`).
fn short_number(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "" | "-" | "-0" => "0".to_string(),
        other => other.to_string(),
    }
}

/// Reads a table written by [`write_table`].
pub fn parse_table(text: &str) -> Result<Vec<Document>, ModelError> {
    let mut docs: Vec<Document> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let syntax = |what: String| ModelError::Syntax {
            line: index + 1,
            what,
        };
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split('\t').collect();
        let [kind, source, name, field, rest @ ..] = parts.as_slice() else {
            return Err(syntax("short line".to_string()));
        };
        let field = field_of_key(field).ok_or_else(|| syntax(format!("unknown field {field}")))?;
        if docs.last().is_none_or(|d| d.name != *name) {
            docs.push(Document {
                name: (*name).to_string(),
                source: (*source).to_string(),
                ..Document::default()
            });
        }
        let Some(doc) = docs.last_mut() else {
            continue;
        };
        match (*kind, rest) {
            ("T", [printed]) => {
                let printed = match *printed {
                    "1" => Some(true),
                    "0" => Some(false),
                    _ => None,
                };
                doc.truth.insert(field, printed);
            }
            ("C", [correct, value_id, features]) => {
                let value_id = value_id.parse::<u32>().map_err(|e| syntax(e.to_string()))?;
                let features: Result<Vec<f64>, _> =
                    features.split(',').map(str::parse::<f64>).collect();
                let features = features.map_err(|e| syntax(e.to_string()))?;
                if features.len() != feature_count() {
                    return Err(ModelError::Features(format!(
                        "{} in the table, {} in this build: dump it again",
                        features.len(),
                        feature_count()
                    )));
                }
                doc.candidates.push(Row {
                    field,
                    correct: *correct == "1",
                    value_id,
                    features,
                });
            }
            _ => return Err(syntax("unknown line".to_string())),
        }
    }
    Ok(docs)
}

/// Whether a field the truth lacks may still be printed: the due date, which e-invoice XMLs
/// often leave out while the payment terms print it (`Zahlbar … bis 04.04.2013`), and the
/// payee's bank account, which the MINIMUM profile cannot carry while the page prints it.
pub fn absence_is_unknown(field: HeaderFieldName) -> bool {
    matches!(
        field,
        HeaderFieldName::DueDate | HeaderFieldName::Iban | HeaderFieldName::Bic
    )
}

/// Collections of the table that are scored and never trained on: SROIE's receipts (ICDAR
/// 2019) may be used for tests and benchmarks only, so the shipped model must not learn from
/// them; they measure it on real receipts it never saw.
pub const EVALUATION_ONLY: &[&str] = &["sroie"];

/// Whether a source (`collection/producer`, `ocr:` for recognised pages) belongs to an
/// [`EVALUATION_ONLY`] collection.
pub fn evaluation_only(source: &str) -> bool {
    let collection = source
        .trim_start_matches("ocr:")
        .split('/')
        .next()
        .unwrap_or_default();
    EVALUATION_ONLY.contains(&collection)
}

/// The training examples of some documents ([`EVALUATION_ONLY`] ones left out). A field whose truth is present but not printed
/// is left out (the page prints something else). A field the truth lacks is a lesson in
/// abstaining (every candidate wrong), unless its absence says nothing about the page
/// ([`absence_is_unknown`]).
pub fn examples_of<'a>(docs: impl Iterator<Item = &'a Document>) -> Vec<Example> {
    docs.filter(|d| !evaluation_only(&d.source))
        .flat_map(|d| {
            d.candidates
                .iter()
                .filter(|r| match d.truth.get(&r.field) {
                    Some(Some(printed)) => *printed,
                    Some(None) => !absence_is_unknown(r.field),
                    None => false,
                })
                .map(|r| Example {
                    field: r.field,
                    features: r.features.clone(),
                    correct: r.correct,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_round_trips() {
        let mut doc = Document {
            name: "set/a.pdf".into(),
            source: "set/producer".into(),
            ..Document::default()
        };
        doc.truth.insert(HeaderFieldName::IssueDate, Some(true));
        doc.truth.insert(HeaderFieldName::DueDate, None);
        doc.candidates.push(Row {
            field: HeaderFieldName::IssueDate,
            correct: true,
            value_id: 7,
            features: vec![0.5; feature_count()],
        });
        let back = parse_table(&write_table(&[doc])).expect("parses");
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].truth.len(), 2);
        assert_eq!(back[0].candidates[0].features[3], 0.5);
        assert_eq!(back[0].candidates[0].value_id, 7);
        assert_eq!(short_number(1.0), "1");
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(-0.0001), "0");
        assert_eq!(short_number(0.12345), "0.123");
        assert_eq!(examples_of(back.iter()).len(), 1);
        // An evaluation-only collection teaches nothing.
        let mut held_out = back[0].clone();
        held_out.source = "ocr:sroie/shop".into();
        assert!(examples_of(std::iter::once(&held_out)).is_empty());
        // A due date the truth lacks teaches nothing.
        let mut lacking = back[0].clone();
        lacking.candidates[0].field = HeaderFieldName::DueDate;
        assert!(examples_of(std::iter::once(&lacking)).is_empty());
        assert!(matches!(
            parse_table("C\ts\td\tissue_date\t1\t0\t0.1,0.2\n"),
            Err(ModelError::Features(_))
        ));
    }
}
