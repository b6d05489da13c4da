//! The ground truth of the invoice corpora and how a value is compared with it, shared by the
//! accuracy report (`zugferd_accuracy`) and the ranker's data and evaluation (`invoice_model`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use doc_analysis::header::normalize::{collapse_whitespace, compact_upper, same_amount};
use doc_model::{HeaderFieldName, Page};
use pdf_extract_core::{Limits, PdfDocument};
use serde_json::Value;

/// How a field is compared with the truth.
#[derive(Clone, Copy)]
pub(crate) enum Compare {
    Text,
    Compact,
    Date,
    Amount,
}

/// Our field, the ground truth's key, and how to compare.
pub(crate) const FIELDS: &[(HeaderFieldName, &str, Compare)] = &[
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

pub(crate) fn truth_string(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        other => Some(other.to_string()),
    }
}

pub(crate) fn equal(compare: Compare, ours: &str, truth: &str) -> bool {
    match compare {
        Compare::Text => collapse_whitespace(ours) == collapse_whitespace(truth),
        Compare::Compact => compact_upper(ours) == compact_upper(truth),
        Compare::Date => ours.trim() == truth.trim(),
        Compare::Amount => same_amount(ours, truth),
    }
}

/// invoice2data's samples as ground-truth records of the zugferd shape: its keys mapped as
/// the corpus README says, every value counted as printed.
pub(crate) fn misc_records(dir: &Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let mut records = Vec::new();
    for json in names {
        let pdf = json.with_extension("pdf");
        if !pdf.is_file() {
            continue;
        }
        let Some(truth) = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.get(0).cloned())
        else {
            continue;
        };
        let get = |k: &str| truth.get(k).cloned().unwrap_or(Value::Null);
        let vat = match truth.get("vat").or_else(|| truth.get("static_vat")) {
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let lines: Vec<Value> = truth
            .get("lines")
            .or_else(|| truth.get("line_items"))
            .and_then(Value::as_array)
            .map(|lines| {
                lines
                    .iter()
                    .filter(|l| {
                        l.get("qty").is_some()
                            || l.get("price_unit").is_some()
                            || l.get("price").is_some()
                    })
                    .map(|l| {
                        let pick = |keys: &[&str]| {
                            keys.iter()
                                .find_map(|k| l.get(*k).cloned())
                                .unwrap_or(Value::Null)
                        };
                        serde_json::json!({
                            "description": pick(&["name", "desc", "description"]),
                            "quantity": pick(&["qty"]),
                            "unit_price": pick(&["price_unit", "price"]),
                            "line_total": pick(&["price_subtotal"]),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        records.push(serde_json::json!({
            "file": pdf.file_name().map(|n| n.to_string_lossy().into_owned()),
            "corpus_status": "correct",
            "invoice_number": get("invoice_number"),
            "issue_date": get("date"),
            "due_date": get("date_due"),
            "currency": get("currency"),
            "seller_vat_id": vat,
            "net_total": get("amount_untaxed"),
            "tax_total": get("amount_tax"),
            "grand_total": get("amount"),
            "iban": get("iban"),
            "bic": get("bic"),
            "order_reference": get("order_id"),
            "line_items": lines,
            "printed": {
                "invoice_number": true, "issue_date": true, "due_date": true, "currency": true,
                "seller_vat_id": true, "net_total": true, "tax_total": true, "grand_total": true,
                "iban": true, "bic": true, "order_reference": true,
            },
        }));
    }
    records
}

/// Every page of a PDF as our extractor reads its text layer (limits far above the service's:
/// the corpora are trusted).
pub(crate) fn pages_of_pdf(path: &Path) -> Result<Vec<Page>, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path)?;
    let limits = Limits {
        max_bytes: 64 * 1024 * 1024,
        max_pages: 1000,
    };
    let doc = PdfDocument::load(&bytes, &limits)?;
    Ok((1..=doc.page_count())
        .map(|p| doc.extract_page(p))
        .collect::<Result<_, _>>()?)
}
