//! Every property of the schema looked up, then the values checked against the whole schema.

use std::collections::BTreeMap;

use doc_model::{DocumentExtraction, Method};
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use crate::lookup::{
    self, Document, from_embedded, from_key_values, from_patterns, from_vocabulary, labels_of,
};
use crate::spec::{Kind, Property};
use crate::tables::{list_result, map_table, object_result};
use crate::{MappedDocument, MappedValue, PropertyResult, Source};

/// Rounds of the whole-schema check: dropping a value can make another constraint fail
/// (`oneOf`, `if`/`then`), so the check runs again until nothing changes.
const VALIDATION_ROUNDS: usize = 4;

pub(crate) fn map(
    properties: &[Property],
    validator: &jsonschema::Validator,
    extraction: &DocumentExtraction,
) -> MappedDocument {
    let document = Document::new(extraction);
    let mut results: BTreeMap<String, PropertyResult> = properties
        .iter()
        .map(|p| (p.name.clone(), property(p, &[], &document)))
        .collect();
    for _ in 0..VALIDATION_ROUNDS {
        if !drop_invalid(validator, &mut results) {
            break;
        }
    }
    MappedDocument {
        pages_processed: extraction.pages_processed,
        properties: results,
    }
}

fn property(property: &Property, context: &[String], document: &Document<'_>) -> PropertyResult {
    match &property.kind {
        Kind::Object(children) => {
            // A nested property is resolved against the vocabulary with its object's labels
            // (`buyer` + `vat_id`).
            let mut labels: Vec<String> = labels_of(property)
                .into_iter()
                .filter(|l| l.split_whitespace().count() <= 3)
                .collect();
            if !context.is_empty() {
                labels = context
                    .iter()
                    .flat_map(|outer| labels.iter().map(move |inner| format!("{outer} {inner}")))
                    .collect();
            }
            let cells = children
                .iter()
                .map(|c| (c.name.clone(), self::property(c, &labels, document)))
                .collect();
            object_result(cells, None)
        }
        Kind::Table(items) => map_table(property, items, document),
        Kind::List(item) => list(property, item, document),
        _ => scalar(property, context, document),
    }
}

/// A value: the embedded e-invoice, key-value pairs, the vocabulary, then patterns.
fn scalar(property: &Property, context: &[String], document: &Document<'_>) -> PropertyResult {
    let mut rejected = Vec::new();
    let found = from_embedded(property, context, document, &mut rejected)
        .or_else(|| from_key_values(property, document, &mut rejected))
        .or_else(|| from_vocabulary(property, context, document, &mut rejected))
        .or_else(|| from_patterns(property, document, &mut rejected));
    match found {
        Some(found) => found.into_result(),
        None => PropertyResult::not_found(rejected.into_iter().next()),
    }
}

/// An array of values: every key-value pair labelled for the item, else every value of its
/// self-identifying form (all IBANs, all e-mail addresses).
fn list(property: &Property, item: &Property, document: &Document<'_>) -> PropertyResult {
    let mut rejected = Vec::new();
    let mut items: Vec<PropertyResult> = Vec::new();
    let labels: Vec<String> = labels_of(item);
    for pair in &document.extraction.key_values {
        let key = doc_analysis::vocabulary::fold(&pair.key);
        if labels
            .iter()
            .any(|l| doc_analysis::vocabulary::fold(l) == key)
            && let Some(found) = lookup::accept(
                item,
                &pair.value,
                pair.confidence.value(),
                Source::at(pair.value_box, Method::KeyValue),
                document.hints,
                &mut rejected,
            )
        {
            items.push(found.into_result());
        }
    }
    if items.is_empty() {
        items = lookup::every_self_identifying(item, document, &mut rejected)
            .into_iter()
            .map(lookup::Found::into_result)
            .collect();
    }
    if items.is_empty() {
        return PropertyResult::not_found(rejected.into_iter().next().or_else(|| {
            Some(format!(
                "no value for the items of `{}` was found",
                property.name
            ))
        }));
    }
    list_result(items, None)
}

/// Checks the found values against the whole schema once: a value at the place of an error
/// is dropped (not found, with the error as its reason). Errors about what is missing
/// (`required` and the like) drop nothing: a missing value is already reported not found.
/// Returns whether anything was dropped.
fn drop_invalid(
    validator: &jsonschema::Validator,
    results: &mut BTreeMap<String, PropertyResult>,
) -> bool {
    let instance = Value::Object(plain_object(results));
    let mut failures: Vec<(Vec<String>, String)> = Vec::new();
    for error in validator.iter_errors(&instance) {
        if is_about_absence(error.kind()) {
            continue;
        }
        let path: Vec<String> = error
            .instance_path()
            .as_str()
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect();
        if path.is_empty() {
            continue;
        }
        failures.push((path, error.to_string()));
    }
    let mut dropped = false;
    for (path, message) in failures {
        if let Some(result) = result_at(results, &path)
            && result.found
        {
            *result = PropertyResult::not_found(Some(format!(
                "the value found does not satisfy the schema: {message}"
            )));
            dropped = true;
        }
    }
    dropped
}

fn is_about_absence(kind: &ValidationErrorKind) -> bool {
    matches!(
        kind,
        ValidationErrorKind::Required { .. }
            | ValidationErrorKind::MinProperties { .. }
            | ValidationErrorKind::MinItems { .. }
            | ValidationErrorKind::Contains
    ) || matches!(
        kind.keyword(),
        "dependentRequired" | "dependencies" | "minContains"
    )
}

/// The found values as plain JSON (what the caller's schema describes).
fn plain_object(results: &BTreeMap<String, PropertyResult>) -> Map<String, Value> {
    results
        .iter()
        .filter(|(_, r)| r.found)
        .map(|(name, r)| (name.clone(), plain(r)))
        .collect()
}

fn plain(result: &PropertyResult) -> Value {
    match &result.value {
        MappedValue::Null => Value::Null,
        MappedValue::Scalar(value) => value.clone(),
        MappedValue::Object(members) => Value::Object(plain_object(members)),
        // Every item stays, found or not, so the indices of errors match the results.
        MappedValue::Array(items) => Value::Array(items.iter().map(plain).collect()),
    }
}

fn result_at<'r>(
    results: &'r mut BTreeMap<String, PropertyResult>,
    path: &[String],
) -> Option<&'r mut PropertyResult> {
    let (first, rest) = path.split_first()?;
    let mut current = results.get_mut(first)?;
    for segment in rest {
        current = match &mut current.value {
            MappedValue::Object(members) => members.get_mut(segment)?,
            MappedValue::Array(items) => items.get_mut(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}
