//! The lookup of one value, stage by stage: the embedded e-invoice, the document's key-value
//! pairs, the invoice vocabulary (the header fields), then patterns.

use doc_analysis::header::normalize::find_ibans;
use doc_analysis::vocabulary::{field_for_key, fold};
use doc_model::{
    Confidence, DocumentExtraction, HeaderFieldName, Line, Method, PageBox, PageMethod,
};
use serde_json::Value;

use crate::coerce::{Hints, coerce, looks_like_email};
use crate::spec::{Kind, Property};
use crate::{MappedValue, PropertyResult, Source};

/// Labels longer than this many words (a sentence of a description) are not searched for on
/// the page.
const MAX_LABEL_WORDS: usize = 6;

/// Confidence of a value read after its label on a page line (the label was found, the value
/// has the right form, but no key-value pair vouches for the pairing).
const LABEL_PROXIMITY: f64 = 0.6;

/// The document as the lookup reads it.
#[derive(Debug)]
pub(crate) struct Document<'a> {
    pub(crate) extraction: &'a DocumentExtraction,
    pub(crate) hints: Hints,
}

impl<'a> Document<'a> {
    pub(crate) fn new(extraction: &'a DocumentExtraction) -> Self {
        Self {
            extraction,
            hints: Hints {
                // The header's reading of the document's dates (dates that can be read one way
                // only, else the language and the country), one rule for both.
                day_first: doc_analysis::header::day_first(&extraction.pages),
            },
        }
    }

    fn lines(&self) -> impl Iterator<Item = (PageMethod, &'a Line)> + 'a {
        self.extraction
            .pages
            .iter()
            .flat_map(|page| page.lines.iter().map(move |line| (page.method, line)))
    }
}

/// A value located: its JSON value, confidence and source.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) value: Value,
    pub(crate) confidence: f64,
    pub(crate) source: Source,
}

impl Found {
    pub(crate) fn into_result(self) -> PropertyResult {
        PropertyResult {
            value: MappedValue::Scalar(self.value),
            confidence: Confidence::new(self.confidence),
            found: true,
            source: Some(self.source),
            reason: None,
        }
    }
}

/// A name as words: `invoice_no` → `invoice no`, `dueDate` → `due Date`.
pub(crate) fn humanise(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.') {
            out.push(' ');
        } else {
            if c.is_uppercase() && previous.is_some_and(char::is_lowercase) {
                out.push(' ');
            }
            out.push(c);
        }
        previous = Some(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The labels of a property as words, in lookup order.
pub(crate) fn labels_of(property: &Property) -> Vec<String> {
    let mut labels = vec![humanise(&property.name)];
    labels.extend(property.labels().into_iter().skip(1).map(str::to_owned));
    labels
}

/// The header field a property names, through the vocabulary: its name is a field's wire name
/// (`invoice_number`), or a label (`Rechnungsnummer`, `invoice_no`) is, or ends with, a
/// vocabulary label. `context` holds the labels of the object it belongs to (`buyer` of
/// `buyer.vat_id`); a nested property is resolved with them only, so `buyer.vat_id` is the
/// buyer's VAT id and never the seller's.
///
/// A description is a sentence more often than a label: it names a field only when the whole
/// of it is a vocabulary label (`Invoice total`), never by its last words ("the total amount of
/// the invoice" does not end in the invoice number).
pub(crate) fn field_of(property: &Property, context: &[String]) -> Option<HeaderFieldName> {
    let own: Vec<(String, bool)> = labels_of(property)
        .into_iter()
        .map(|label| {
            let whole_only = property.description.as_deref() == Some(label.as_str());
            (label, whole_only)
        })
        .collect();
    let labels: Vec<(String, bool)> = if context.is_empty() {
        own
    } else {
        context
            .iter()
            .flat_map(|outer| {
                own.iter()
                    .map(move |(inner, whole)| (format!("{outer} {inner}"), *whole))
            })
            .collect()
    };
    labels.iter().find_map(|(label, whole_only)| {
        let folded = fold(label);
        HeaderFieldName::ALL
            .iter()
            .copied()
            .find(|f| fold(f.as_str()) == folded)
            .or_else(|| {
                field_for_key(label)
                    .filter(|m| !whole_only || m.first_word == 0)
                    .map(|m| m.field)
            })
    })
}

/// Stage 0: the e-invoice XML the PDF carries.
pub(crate) fn from_embedded(
    property: &Property,
    context: &[String],
    document: &Document<'_>,
    rejected: &mut Vec<String>,
) -> Option<Found> {
    let invoice = document.extraction.embedded_invoice.as_ref()?;
    let field = field_of(property, context)?;
    let text = invoice.fields.get(&field)?;
    accept(
        property,
        text,
        1.0,
        Source::embedded(),
        document.hints,
        rejected,
    )
}

/// Stage 1: a key-value pair whose key is one of the property's labels (or ends with one).
pub(crate) fn from_key_values(
    property: &Property,
    document: &Document<'_>,
    rejected: &mut Vec<String>,
) -> Option<Found> {
    for label in labels_of(property) {
        let wanted = fold(&label);
        if wanted.is_empty() {
            continue;
        }
        for pair in &document.extraction.key_values {
            let weight = if fold(&pair.key) == wanted {
                1.0
            } else if ends_with_words(&pair.key, &label) {
                0.9
            } else {
                continue;
            };
            let source = Source::at(pair.value_box, Method::KeyValue);
            let confidence = pair.confidence.value() * weight;
            if let Some(found) = accept(
                property,
                &pair.value,
                confidence,
                source,
                document.hints,
                rejected,
            ) {
                return Some(found);
            }
        }
    }
    None
}

/// Whether the last words of `text` fold to `label` (`Ihre Kundennummer` ends with
/// `Kundennummer`).
fn ends_with_words(text: &str, label: &str) -> bool {
    let wanted = fold(label);
    let words: Vec<&str> = text.split_whitespace().collect();
    (1..words.len()).any(|start| {
        let tail: String = words[start..].iter().map(|w| fold(w)).collect();
        tail == wanted
    })
}

/// Stage 2: the header field the vocabulary names.
pub(crate) fn from_vocabulary(
    property: &Property,
    context: &[String],
    document: &Document<'_>,
    rejected: &mut Vec<String>,
) -> Option<Found> {
    let field = field_of(property, context)?;
    let header = document.extraction.header.get(field)?;
    let source = Source::at(header.source.bbox, Method::Vocabulary);
    accept(
        property,
        &header.value,
        header.confidence.value(),
        source,
        document.hints,
        rejected,
    )
}

/// Stage 3: by pattern. A label printed on a line followed (on the line or the line below) by
/// a value of the property's form; then, for forms that identify themselves (`format: iban`,
/// `email`, `uri`, or a `pattern`), the first value of that form anywhere, less sure when the
/// document holds several different ones.
pub(crate) fn from_patterns(
    property: &Property,
    document: &Document<'_>,
    rejected: &mut Vec<String>,
) -> Option<Found> {
    if let Some(found) = after_label(property, document, rejected) {
        return Some(found);
    }
    let mut matches: Vec<(String, PageBox, f64)> = Vec::new();
    for (_, line) in document.lines() {
        for (text, bbox) in self_identifying(property, line) {
            matches.push((text, bbox, line.confidence.value()));
        }
    }
    let base = match property.format.as_deref() {
        Some("iban") => 0.9,
        Some("email") => 0.8,
        _ => 0.7,
    };
    let mut distinct: Vec<&str> = matches.iter().map(|(t, _, _)| t.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let ambiguity = if distinct.len() > 1 { 0.6 } else { 1.0 };
    for (text, bbox, line_confidence) in &matches {
        let source = Source::at(*bbox, Method::Pattern);
        let confidence = base * ambiguity * line_confidence;
        if let Some(found) = accept(property, text, confidence, source, document.hints, rejected) {
            return Some(found);
        }
    }
    None
}

/// Every distinct value of a self-identifying form in the document (for an array of values).
pub(crate) fn every_self_identifying(
    property: &Property,
    document: &Document<'_>,
    rejected: &mut Vec<String>,
) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for (_, line) in document.lines() {
        for (text, bbox) in self_identifying(property, line) {
            let source = Source::at(bbox, Method::Pattern);
            let confidence = 0.7 * line.confidence.value();
            if let Some(found) = accept(
                property,
                &text,
                confidence,
                source,
                document.hints,
                rejected,
            ) && !out.iter().any(|f| f.value == found.value)
            {
                out.push(found);
            }
        }
    }
    out
}

/// Every value of a self-identifying form on a line, with its box.
fn self_identifying(property: &Property, line: &Line) -> Vec<(String, PageBox)> {
    let mut out = Vec::new();
    if let Some(pattern) = &property.pattern {
        // Whole words first (an anchored `^RE-\d+$` matches a word), then within the line.
        for word in &line.words {
            if pattern.is_match(&word.text) {
                out.push((word.text.clone(), word.bbox));
            }
        }
        if out.is_empty()
            && let Some(m) = pattern.find(&line.text)
            && !m.as_str().trim().is_empty()
        {
            out.push((m.as_str().to_owned(), span_box(line, m.start(), m.end())));
        }
        return out;
    }
    if !matches!(property.kind, Kind::String) {
        return out;
    }
    match property.format.as_deref() {
        Some("iban") => {
            for iban in find_ibans(&line.text) {
                out.push((iban.iban, span_box(line, iban.start, iban.end)));
            }
        }
        Some("email" | "idn-email") => {
            for word in &line.words {
                let bare = word
                    .text
                    .trim_matches(|c: char| matches!(c, '<' | '>' | '(' | ')' | ',' | ';'));
                let bare = bare.strip_prefix("mailto:").unwrap_or(bare);
                if looks_like_email(bare) {
                    out.push((bare.to_owned(), word.bbox));
                }
            }
        }
        Some("uri" | "url" | "iri") => {
            for word in &line.words {
                let bare = word
                    .text
                    .trim_matches(|c: char| matches!(c, '<' | '>' | '(' | ')' | ','));
                if bare.starts_with("https://") || bare.starts_with("http://") {
                    out.push((bare.to_owned(), word.bbox));
                }
            }
        }
        _ => {}
    }
    out
}

/// The property's label printed on a line, and a value of its form after it on that line or
/// on the line just below.
fn after_label(
    property: &Property,
    document: &Document<'_>,
    rejected: &mut Vec<String>,
) -> Option<Found> {
    let lines: Vec<(PageMethod, &Line)> = document.lines().collect();
    for label in labels_of(property) {
        let wanted = fold(&label);
        if wanted.is_empty() || label.split_whitespace().count() > MAX_LABEL_WORDS {
            continue;
        }
        for (index, (_, line)) in lines.iter().enumerate() {
            let Some(end) = label_end(line, &wanted) else {
                continue;
            };
            let rest = &line.words[end..];
            let mut candidates: Vec<(String, PageBox, f64)> = Vec::new();
            if let Some(text) = words_text(rest) {
                let bbox = PageBox::union_all(rest.iter().map(|w| &w.bbox));
                if let Some(bbox) = bbox {
                    candidates.push((text, bbox, line.confidence.value()));
                }
            }
            if let Some(below) = line_below(&lines, index) {
                candidates.push((below.text.clone(), below.bbox, below.confidence.value()));
            }
            for (text, bbox, line_confidence) in candidates {
                let value = value_part(property, &text, document.hints).unwrap_or(text);
                let source = Source::at(bbox, Method::Pattern);
                if let Some(found) = accept(
                    property,
                    &value,
                    LABEL_PROXIMITY * line_confidence,
                    source,
                    document.hints,
                    rejected,
                ) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// Where a label ends on a line (the index of the first word after it), when whole words of
/// the line fold to it.
fn label_end(line: &Line, wanted: &str) -> Option<usize> {
    let folded: Vec<String> = line.words.iter().map(|w| fold(&w.text)).collect();
    for start in 0..folded.len() {
        let mut joined = String::new();
        for (end, word) in folded.iter().enumerate().skip(start).take(MAX_LABEL_WORDS) {
            joined.push_str(word);
            if joined == wanted {
                return Some(end + 1);
            }
            if joined.len() >= wanted.len() || !wanted.starts_with(joined.as_str()) {
                break;
            }
        }
    }
    None
}

/// The words as text, without a leading colon; `None` when nothing is left.
fn words_text(words: &[doc_model::Word]) -> Option<String> {
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let text = text.trim().trim_start_matches([':', '-', '–']).trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The next line on the same page that starts just below `lines[index]` and overlaps it
/// horizontally.
fn line_below<'a>(lines: &[(PageMethod, &'a Line)], index: usize) -> Option<&'a Line> {
    let (_, line) = lines.get(index)?;
    lines
        .iter()
        .map(|(_, l)| *l)
        .filter(|l| {
            l.bbox.page == line.bbox.page
                && l.bbox.y >= line.bbox.bottom() - 1.0
                && l.bbox.y - line.bbox.bottom() < 1.5 * line.bbox.h.max(1.0)
                && l.bbox.horizontal_overlap(&line.bbox) > 0.0
        })
        .min_by(|a, b| a.bbox.y.total_cmp(&b.bbox.y))
}

/// The part of a text that is the value for numbers and dates (the first of that form).
fn value_part(property: &Property, text: &str, hints: Hints) -> Option<String> {
    use doc_analysis::header::normalize::{find_amounts, find_dates};
    match property.kind {
        // An amount glued to a letter (`K-4711`) is part of an identifier.
        Kind::Number | Kind::Integer => find_amounts(text)
            .into_iter()
            .find(|a| {
                !text[..a.start]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
            })
            .map(|a| text[a.start..a.end].to_owned()),
        Kind::String if property.format.as_deref() == Some("date") => {
            find_dates(text, hints.day_first)
                .into_iter()
                .next()
                .map(|d| text[d.start..d.end].to_owned())
        }
        _ => None,
    }
}

/// The box of the words of `line` that a byte range of its text covers.
fn span_box(line: &Line, start: usize, end: usize) -> PageBox {
    let mut offset = 0usize;
    let mut covered: Vec<&PageBox> = Vec::new();
    for word in &line.words {
        let word_end = offset + word.text.len();
        if word_end > start && offset < end {
            covered.push(&word.bbox);
        }
        offset = word_end + 1;
    }
    PageBox::union_all(covered).unwrap_or(line.bbox)
}

/// The candidate coerced and checked against the property's own schema; a value that fails is
/// remembered in `rejected` (the reason given when nothing else is found).
pub(crate) fn accept(
    property: &Property,
    text: &str,
    confidence: f64,
    source: Source,
    hints: Hints,
    rejected: &mut Vec<String>,
) -> Option<Found> {
    let value = coerce(text, property, hints).ok()?;
    if let Some(check) = &property.check
        && let Some(error) = check.iter_errors(&value).next()
    {
        let place = match (source.page, source.method) {
            (Some(page), _) => format!("on page {page}"),
            (None, _) => "in the embedded e-invoice".to_owned(),
        };
        rejected.push(format!(
            "{value} {place} does not satisfy the schema: {error}"
        ));
        return None;
    }
    Some(Found {
        value,
        confidence,
        source,
    })
}
