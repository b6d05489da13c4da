//! Header fields of invoices and similar documents (German, English, French, Dutch, Italian):
//! document type, numbers, dates, parties, VAT ids, totals, currency, bank details and payment
//! terms.
//!
//! Rules propose candidates: the document's key-value pairs ([`doc_model::Method::KeyValue`]), labels of
//! the [`vocabulary`] found on a line with the value next to or under them
//! ([`doc_model::Method::Vocabulary`]), patterns (IBAN, VAT ids, sender line, address window, title line;
//! [`doc_model::Method::Pattern`]) and broad sources (every date, name-like line and total row). Every
//! candidate keeps its page, box and printed text. The shipped [`model`] chooses among a
//! field's candidates by the features of [`rank`], or abstains; fields it does not rank take
//! the rules' most confident candidate. A field with no candidate stays `None`.

pub mod model;
pub mod normalize;
mod parties;
pub mod rank;
pub mod training;

pub use rank::Rule;

use doc_model::{
    Confidence, HeaderField, HeaderFieldName, HeaderFields, KeyValue, Page, PageBox, Provenance,
    Word,
};

use crate::segments::{Segment, join_words, segments, words_box};
use crate::vocabulary;
use crate::vocabulary::{LabelMatch, field_for_key, find_labels};
use normalize::{
    collapse_whitespace, compact_upper, currency_code, find_amounts, find_currencies, find_dates,
    find_ibans, find_vat_ids, parse_bic, to_cents,
};

/// What form a field's value takes, and so how it is read and normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Identifier,
    Date,
    Amount,
    Currency,
    Iban,
    Bic,
    VatId,
    TaxNumber,
    Party,
    Terms,
}

fn kind_of(field: HeaderFieldName) -> Option<ValueKind> {
    use HeaderFieldName as F;
    Some(match field {
        F::InvoiceNumber | F::OrderNumber | F::CustomerNumber => ValueKind::Identifier,
        F::IssueDate | F::DueDate | F::DeliveryDate => ValueKind::Date,
        F::NetTotal | F::TaxTotal | F::GrossTotal | F::AmountDue => ValueKind::Amount,
        F::Currency => ValueKind::Currency,
        F::Iban => ValueKind::Iban,
        F::Bic => ValueKind::Bic,
        F::SellerVatId | F::BuyerVatId => ValueKind::VatId,
        F::SellerTaxNumber => ValueKind::TaxNumber,
        F::SellerName | F::BuyerName => ValueKind::Party,
        F::PaymentTerms => ValueKind::Terms,
        F::DocumentType | F::SellerAddress | F::BuyerAddress => return None,
    })
}

/// A candidate value for one field.
#[derive(Debug, Clone)]
struct Candidate {
    field: HeaderFieldName,
    value: HeaderField,
    /// Position on the document (page, then top): ties between equally confident candidates
    /// go to the first, or for totals to the last (totals close a document).
    position: (u32, f64),
    /// Which rule proposed it: a feature of the ranker.
    rule: Rule,
    /// Another candidate of the field, printed elsewhere, has the same value ([`corroborate`]).
    corroborated: bool,
    /// One of the net + tax = gross triple that adds up ([`reconcile_totals`]).
    reconciled: bool,
}

/// The collected candidates of a document.
#[derive(Default)]
struct Candidates(Vec<Candidate>, BuyerRegions, PartyBlocks);

/// Boxes of the buyer's block (name, address and a few lines under it).
#[derive(Default)]
struct BuyerRegions(Vec<PageBox>);

/// Boxes of other parties' blocks.
#[derive(Default)]
struct PartyBlocks {
    /// Under a seller's heading (`Verkäufer:`): not the address window.
    seller: Vec<PageBox>,
    /// Under a tax representative's heading (`Steuerbevollmächtigter des Verkäufers`): its VAT
    /// id is the representative's (EN 16931 BT-63), not the seller's.
    representative: Vec<PageBox>,
}

impl Candidates {
    fn offer(
        &mut self,
        field: HeaderFieldName,
        value: String,
        text: &str,
        confidence: f64,
        bbox: PageBox,
        rule: Rule,
    ) {
        self.0.push(Candidate {
            field,
            value: HeaderField {
                value,
                text: collapse_whitespace(text),
                confidence: Confidence::new(confidence),
                source: Provenance {
                    page: bbox.page,
                    bbox,
                    method: rule.method(),
                },
                agrees_with_embedded: None,
            },
            position: (bbox.page, bbox.y),
            rule,
            corroborated: false,
            reconciled: false,
        });
    }

    fn best(&self, field: HeaderFieldName) -> Option<&Candidate> {
        self.0
            .iter()
            .filter(|c| c.field == field)
            .max_by(|a, b| rule_order(a, b))
    }
}

/// The rules' own order of two candidates of a field: the more confident, then for totals the
/// later one (totals close a document), for other fields the earlier.
fn rule_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    let prefer_last = matches!(kind_of(a.field), Some(ValueKind::Amount));
    a.value
        .confidence
        .value()
        .total_cmp(&b.value.confidence.value())
        .then_with(|| {
            let order = a
                .position
                .0
                .cmp(&b.position.0)
                .then(a.position.1.total_cmp(&b.position.1));
            if prefer_last { order } else { order.reverse() }
        })
}

/// Whether the document writes its dates day first (`05/11/2017` is 5 November). The dates
/// printed decide when some can only be read one way (`13/11/2017`, `11/13/2017`); else the
/// language: German, French and Dutch write the day first, English (as American invoices do)
/// the month.
fn day_first(pages: &[Page]) -> bool {
    const DAY_FIRST: &[&str] = &[
        // German
        "rechnung",
        "datum",
        "betrag",
        "steuer",
        "und",
        "der",
        "die",
        "das",
        "mwst",
        "ust",
        "summe",
        "gesamt",
        "zahlbar",
        "bitte",
        "netto",
        "brutto",
        "menge",
        "preis",
        // French
        "facture",
        "montant",
        "tva",
        "échéance",
        "le",
        "la",
        "les",
        "du",
        "des",
        "et",
        "prix",
        "quantité",
        "avoir",
        // Dutch
        "factuur",
        "bedrag",
        "btw",
        "totaal",
        "het",
        "een",
        "van",
        "prijs",
        "aantal",
    ];
    const ENGLISH: &[&str] = &[
        "invoice", "date", "amount", "tax", "and", "the", "total", "vat", "due", "please", "price",
        "quantity", "payment", "of", "to",
    ];
    let (mut day, mut month, mut dm, mut en) = (0usize, 0usize, 0usize, 0usize);
    for line in pages.iter().flat_map(|p| &p.lines) {
        for word in &line.words {
            let w = vocabulary::fold(&word.text);
            dm += usize::from(DAY_FIRST.contains(&w.as_str()));
            en += usize::from(ENGLISH.contains(&w.as_str()));
            if let Some((a, b)) = numeric_date_parts(&word.text) {
                day += usize::from(a > 12 && b <= 12);
                month += usize::from(b > 12 && a <= 12);
            }
        }
    }
    match (day > 0, month > 0) {
        (true, false) => true,
        (false, true) => false,
        _ => dm >= en,
    }
}

/// The first two parts of a numeric date with the year last (`13/11/2017`, `5.3.18`).
fn numeric_date_parts(word: &str) -> Option<(u32, u32)> {
    let word = word.trim_matches(|c: char| !c.is_ascii_digit());
    let mut parts = word.split(['/', '.', '-']);
    let a: u32 = parts.next()?.parse().ok()?;
    let b: u32 = parts.next()?.parse().ok()?;
    let year = parts.next()?;
    let shaped = (1..=2).contains(&word.split(['/', '.', '-']).next()?.len())
        && (year.len() == 2 || year.len() == 4)
        && year.chars().all(|c| c.is_ascii_digit())
        && parts.next().is_none();
    (shaped && (1..=31).contains(&a) && (1..=31).contains(&b)).then_some((a, b))
}

/// Confidence of a label by how specific it is: `Rechnungsnummer` is surer than `Date`.
fn label_weight(label: &LabelMatch) -> f64 {
    (0.55 + label.specificity as f64 / 25.0).min(1.0)
}

/// A parsed value: normalised value, the printed text and the words it came from.
#[derive(Clone)]
struct Parsed<'a> {
    value: String,
    text: String,
    words: Vec<&'a Word>,
}

/// Connector words between a label and its value (`Nr.`, `#`, `vom`), skipped when reading an
/// identifier.
fn is_connector(word: &str) -> bool {
    matches!(
        vocabulary::fold(word).as_str(),
        "" | "nr" | "no" | "number" | "nummer" | "num" | "id"
    )
}

/// Reads a value of `kind` from the start of `words`.
fn parse_value<'a>(kind: ValueKind, words: &[&'a Word], day_first: bool) -> Option<Parsed<'a>> {
    if words.is_empty() {
        return None;
    }
    let value = ValueText::new(words);
    match kind {
        ValueKind::Date => date_value(&value, day_first),
        ValueKind::Amount => amount_value(&value, day_first),
        ValueKind::Currency => currency_value(words),
        ValueKind::Iban => iban_value(&value).or_else(|| iban_shaped_value(words)),
        ValueKind::Bic => bic_value(words),
        ValueKind::VatId => vat_id_value(&value),
        ValueKind::TaxNumber => tax_number_value(words),
        ValueKind::Identifier => identifier_value(words, day_first),
        ValueKind::Party => party_value(&value),
        ValueKind::Terms => terms_value(&value),
    }
}

/// The words of a value joined by single spaces, with each word's byte range in that text, to
/// map a match back onto its words.
struct ValueText<'a, 'w> {
    words: &'w [&'a Word],
    text: String,
    offsets: Vec<(usize, usize)>,
}

impl<'a, 'w> ValueText<'a, 'w> {
    fn new(words: &'w [&'a Word]) -> Self {
        let mut offsets = Vec::with_capacity(words.len());
        let mut cursor = 0;
        for w in words {
            offsets.push((cursor, cursor + w.text.len()));
            cursor += w.text.len() + 1;
        }
        Self {
            words,
            text: join_words(words),
            offsets,
        }
    }

    /// `value`, printed at `start..end` of the text, with the words that range touches.
    fn spanned(&self, value: String, start: usize, end: usize) -> Option<Parsed<'a>> {
        let words: Vec<&'a Word> = self
            .words
            .iter()
            .zip(&self.offsets)
            .filter(|(_, (s, e))| *s < end && *e > start)
            .map(|(w, _)| *w)
            .collect();
        (!words.is_empty()).then(|| Parsed {
            value,
            text: self.text.get(start..end).unwrap_or_default().to_string(),
            words,
        })
    }

    /// How many words stand before byte `start` of the text.
    fn words_before(&self, start: usize) -> usize {
        self.text
            .get(..start)
            .unwrap_or_default()
            .split_whitespace()
            .count()
    }
}

fn date_value<'a>(value: &ValueText<'a, '_>, day_first: bool) -> Option<Parsed<'a>> {
    let date = find_dates(&value.text, day_first).into_iter().next()?;
    // The date must open the value (after connectors such as `am`, `on`).
    if value.words_before(date.start) > 2 {
        return None;
    }
    value.spanned(date.iso, date.start, date.end)
}

fn amount_value<'a>(value: &ValueText<'a, '_>, day_first: bool) -> Option<Parsed<'a>> {
    // Dates are blanked so that their digits are not read as amounts.
    let mut masked = value.text.clone();
    for date in find_dates(&value.text, day_first) {
        masked.replace_range(date.start..date.end, &" ".repeat(date.end - date.start));
    }
    // A bare integer (`10`, `2026`) is too weak: decimals or a currency sign are needed.
    // A number next to a percent sign is a rate (`MwSt. % 7,0`, `19,00 %`), not an amount.
    let is_rate = |a: &normalize::FoundAmount| {
        masked[..a.start].trim_end().ends_with('%') || masked[a.end..].trim_start().starts_with('%')
    };
    // Money prints whole units or two (or more) decimals; one decimal (`19,0`, `7,0`) is a rate
    // or a quantity.
    let one_decimal = |a: &normalize::FoundAmount| {
        let printed = masked[a.start..a.end].trim_end_matches(|c: char| !c.is_ascii_digit());
        printed.rfind(['.', ',']).is_some_and(|i| {
            printed[i + 1..]
                .chars()
                .filter(char::is_ascii_digit)
                .count()
                == 1
        })
    };
    // A whole number right after another number (`470,1 5€`) is the tail of a number that
    // recognition split at a false space, or one of two figures run together: not an amount.
    let split_tail = |a: &normalize::FoundAmount| {
        let printed = &masked[a.start..a.end];
        let before = &masked[..a.start];
        !printed.contains(['.', ','])
            && before.ends_with(char::is_whitespace)
            && before.trim_end().ends_with(|c: char| c.is_ascii_digit())
    };
    let amount = find_amounts(&masked).into_iter().rfind(|a| {
        !split_tail(a)
            && (a.with_currency || (a.decimal.contains('.') && !is_rate(a) && !one_decimal(a)))
    })?;
    value.spanned(amount.decimal, amount.start, amount.end)
}

fn currency_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
    let first = words.iter().take(2).find_map(|w| {
        currency_code(w.text.trim_matches(|c: char| c == '(' || c == ')')).map(|c| (c, *w))
    })?;
    Some(Parsed {
        value: first.0.to_string(),
        text: first.1.text.clone(),
        words: vec![first.1],
    })
}

fn iban_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
    let iban = find_ibans(&value.text).into_iter().next()?;
    if value.words_before(iban.start) > 1 {
        return None;
    }
    value.spanned(iban.iban, iban.start, iban.end)
}

/// After an `IBAN` label, in a text layer: the printed account number even when its check
/// digits fail (sample and test invoices print made-up IBANs; the value is what the page says,
/// to be checked by whoever pays). Two letters, two digits and 10 to 30 letters or digits, in
/// one word or in groups, the country's length where known unless the number is all the entry
/// holds. Recognised (OCR) words must pass
/// the check, as must unlabelled IBANs ([`find_ibans`]): there a failed check means a misread.
fn iban_shaped_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
    let start = usize::from(
        words
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), ":" | "-")),
    );
    let mut compact = String::new();
    let mut taken = 0;
    for w in words.iter().skip(start).take(9) {
        let t = w.text.trim_end_matches([',', ';']);
        // The next label (`BIC`) ends the number.
        let label = !find_labels(&[t]).is_empty();
        if t.is_empty()
            || label
            || !t.chars().all(|c| c.is_ascii_alphanumeric())
            || compact.len() + t.len() > 34
        {
            break;
        }
        compact.push_str(&t.to_ascii_uppercase());
        taken += 1;
    }
    let b = compact.as_bytes();
    // Where the country's length is known, the number must have it.
    let length = match compact.get(..2) {
        Some("DE" | "GB" | "IE") => Some(22),
        Some("AT" | "LU") => Some(20),
        Some("CH" | "LI") => Some(21),
        Some("FR" | "IT" | "MC") => Some(27),
        Some("NL") => Some(18),
        Some("BE") => Some(16),
        Some("ES") => Some(24),
        _ => None,
    };
    // A number of another length than its country's is taken only when it fills the rest of
    // the labelled entry (`Verkäufer-IBAN : DE12 1234 4321 9876 00`): nothing printed after it
    // could be a second number run into it. Its account part must then be all digits, as the
    // countries' with a fixed-length numeric account are (no bank name read as a group).
    let fills_entry = start + taken == words.len()
        && compact.len() > 4
        && compact.bytes().skip(4).all(|c| c.is_ascii_digit());
    let shaped = (length.is_none_or(|l| l == b.len()) || fills_entry)
        && (14..=34).contains(&b.len())
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..4].iter().all(u8::is_ascii_digit)
        && b[4..].iter().filter(|c| c.is_ascii_digit()).count() >= 8;
    let used = &words[start..start + taken];
    // Recognised words with a failed check are more likely misread than misprinted.
    let printed = used.iter().all(|w| w.confidence.value() >= 1.0);
    (shaped && printed).then(|| Parsed {
        value: compact,
        text: join_words(used),
        words: used.to_vec(),
    })
}

fn bic_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
    // A BIC may be printed in groups: join up to four words.
    let start = usize::from(words.first().is_some_and(|w| is_connector(&w.text)));
    let mut joined = String::new();
    let mut best = None;
    for (i, w) in words.iter().enumerate().skip(start).take(4) {
        joined.push_str(w.text.trim_end_matches([',', ';']));
        if let Some(bic) = parse_bic(&joined)
            && joined.chars().all(|c| c.is_ascii_alphanumeric())
        {
            best = Some((bic, i));
        }
        if joined.len() >= 11 {
            break;
        }
    }
    let (bic, last) = best?;
    Some(Parsed {
        value: bic,
        text: join_words(&words[start..=last]),
        words: words[start..=last].to_vec(),
    })
}

fn vat_id_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
    if let Some(vat) = find_vat_ids(&value.text).into_iter().next() {
        if value.words_before(vat.start) > 1 {
            return None;
        }
        return value.spanned(vat.vat_id, vat.start, vat.end);
    }
    // Other countries: two letters and 8 to 13 letters or digits, with digits.
    let first = value.words.first()?;
    let compact = compact_upper(&first.text);
    let b = compact.as_bytes();
    let shape = (10..=15).contains(&b.len())
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..].iter().filter(|c| c.is_ascii_digit()).count() >= 7;
    shape.then(|| Parsed {
        value: compact,
        text: first.text.clone(),
        words: vec![*first],
    })
}

fn tax_number_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
    let word = words.iter().find(|w| !is_connector(&w.text))?;
    let token = word.text.trim_end_matches([',', ';', '.']);
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let shape = (9..=13).contains(&digits)
        && token
            .chars()
            .all(|c| c.is_ascii_digit() || c == '/' || c == ' ');
    shape.then(|| Parsed {
        value: token.to_string(),
        text: token.to_string(),
        words: vec![*word],
    })
}

fn identifier_value<'a>(words: &[&'a Word], day_first: bool) -> Option<Parsed<'a>> {
    let skip = words
        .iter()
        .take_while(|w| is_connector(&w.text))
        .count()
        .min(2);
    let word = words.get(skip)?;
    let printed = word
        .text
        .trim_start_matches(['#', ':', '('])
        .trim_end_matches([',', ';', ':', ')', '.']);
    // Typesetters print hyphens as U+2010/U+2011 (`IOPOLE‐jdz7fEbj4Va`): the number has the
    // ASCII one.
    let hyphenated = printed.replace(['\u{2010}', '\u{2011}'], "-");
    let token = hyphenated.as_str();
    let has_digit = token.chars().any(|c| c.is_ascii_digit());
    let clean = token
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '/' | '_' | '.'));
    let is_date = !find_dates(token, day_first).is_empty();
    let is_money = find_amounts(token).first().is_some_and(|a| a.with_currency);
    (has_digit && clean && !is_date && !is_money && token.chars().count() <= 35).then(|| Parsed {
        value: token.to_string(),
        text: printed.to_string(),
        words: vec![*word],
    })
}

fn party_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
    let words = value.words;
    let text = collapse_whitespace(&value.text);
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let starts_ok = text.chars().next().is_some_and(|c| !c.is_ascii_digit());
    let labelled = find_labels(&words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>())
        .iter()
        .any(|l| l.first_word == 0 && l.end_word == words.len());
    (letters >= 2 && starts_ok && text.chars().count() <= 80 && !text.contains(':') && !labelled)
        .then(|| Parsed {
            value: text.clone(),
            text,
            words: words.to_vec(),
        })
}

fn terms_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
    let text = collapse_whitespace(&value.text);
    (text.chars().filter(|c| c.is_alphanumeric()).count() >= 3).then(|| Parsed {
        value: text.clone(),
        text,
        words: value.words.to_vec(),
    })
}

fn offer_parsed(
    candidates: &mut Candidates,
    field: HeaderFieldName,
    parsed: Parsed<'_>,
    confidence: f64,
    rule: Rule,
) {
    let word_confidence =
        Confidence::mean(parsed.words.iter().map(|w| w.confidence)).unwrap_or(Confidence::NONE);
    if let Some(bbox) = words_box(&parsed.words) {
        candidates.offer(
            field,
            parsed.value,
            &parsed.text,
            confidence * word_confidence.value(),
            bbox,
            rule,
        );
    }
}

/// The least confidence a field's value needs to be returned: below it the field is null.
/// Chosen from the calibration on the ZUGFeRD and invoice2data corpora (docs/decisions.md):
/// the bands below these were right too rarely for a value an accounts-payable user relies on.
pub fn min_confidence(field: HeaderFieldName) -> f64 {
    match field {
        // On both corpora, tax totals under 0.65 came from a rate or a sub-total row (0 of 11
        // right) and gross totals under 0.55 from a line's amount (0 of 6); the bands above
        // were right 70–100 % of the time.
        HeaderFieldName::TaxTotal => 0.65,
        HeaderFieldName::GrossTotal => 0.55,
        // A company name read from the letterhead alone (0 of 1, under 0.55).
        HeaderFieldName::SellerName => 0.55,
        // IBANs of documents that announce a direct debit are halved (see `direct_debit`):
        // the account printed is the payer's, which the invoice will be debited from.
        HeaderFieldName::Iban => 0.45,
        _ => 0.0,
    }
}

/// The least confidence a returned value of the field needs: the shipped model's threshold
/// for the fields it ranks, [`min_confidence`] for the others.
pub fn threshold(field: HeaderFieldName) -> f64 {
    match model::SHIPPED.as_ref() {
        Some(m) if m.field(field).is_some() => m.threshold,
        _ => min_confidence(field),
    }
}

/// Header fields of a document from its pages and their key-value pairs. A field the model
/// ranks is null when its best candidate's probability is under the model's threshold; the
/// others when their best value is less sure than [`min_confidence`]: a wrong value is worse
/// than none.
pub fn extract_header(pages: &[Page], key_values: &[KeyValue]) -> HeaderFields {
    let mut header = extract_header_unfiltered(pages, key_values);
    for name in HeaderFieldName::ALL {
        let least = threshold(*name);
        let slot = header.slot(*name);
        if slot.as_ref().is_some_and(|f| f.confidence.value() < least) {
            *slot = None;
        }
    }
    header
}

/// The best value of every field, however unsure: what [`extract_header`] returns before its
/// thresholds. For calibration (how often each confidence band is right) and for callers that
/// apply thresholds of their own. A field the shipped model ranks has the model's probability
/// as its confidence.
pub fn extract_header_unfiltered(pages: &[Page], key_values: &[KeyValue]) -> HeaderFields {
    let candidates = header_candidates(pages, key_values);
    let model = model::SHIPPED.as_ref();
    let mut header = HeaderFields::default();
    for name in HeaderFieldName::ALL {
        let field_model = model.and_then(|m| m.field(*name));
        let best = match field_model {
            Some(fm) => candidates
                .iter()
                .filter(|c| c.field == *name)
                .map(|c| (c, returned_confidence(fm, c.field, &c.features)))
                // The first of equally probable candidates, as the rules order them.
                .fold(None::<(&FieldCandidate, f64)>, |best, (c, p)| match best {
                    Some((_, bp)) if bp >= p => best,
                    _ => Some((c, p)),
                })
                .map(|(c, p)| {
                    let mut value = c.value.clone();
                    value.confidence = Confidence::new(p);
                    value
                }),
            None => candidates
                .iter()
                .find(|c| c.field == *name)
                .map(|c| c.value.clone()),
        };
        if let Some(best) = best {
            *header.slot(*name) = Some(best);
        }
    }
    header
}

/// The confidence of a candidate as returned: the model's probability that it is the field's
/// value, times the words' confidence (a recognised value is right only if its characters
/// were read right too; the model learns from OCR pages whose words are mostly sure, and a
/// value of unsure words is not to be trusted whatever its place), halved for the IBAN of a
/// direct-debit document (usually the payer's account, not the payee's, as the rules weigh
/// it).
pub fn returned_confidence(
    field_model: &model::FieldModel,
    field: HeaderFieldName,
    features: &[f64],
) -> f64 {
    let words = features
        .get(rank::word_confidence_at())
        .map_or(1.0, |w| w.clamp(0.0, 1.0));
    let payer_account = field == HeaderFieldName::Iban
        && features
            .get(rank::direct_debit_at())
            .is_some_and(|d| *d > 0.0);
    field_model.probability(features) * words * if payer_account { 0.5 } else { 1.0 }
}

/// A candidate value of one field with what the ranker knows of it.
#[derive(Debug, Clone)]
pub struct FieldCandidate {
    /// The field.
    pub field: HeaderFieldName,
    /// The value, its printed text, box and method; `confidence` is the rules' own weight.
    pub value: HeaderField,
    /// The rule that proposed it.
    pub rule: Rule,
    /// Its features ([`rank::feature_names`]).
    pub features: Vec<f64>,
}

/// Every candidate of every field, with its features, the rules' best first within each
/// field: the input of the ranker, and of its training.
pub fn header_candidates(pages: &[Page], key_values: &[KeyValue]) -> Vec<FieldCandidate> {
    let day_first = day_first(pages);
    let mut candidates = Candidates::default();
    from_key_values(pages, key_values, day_first, &mut candidates);
    for page in pages {
        let segments = segments(page);
        from_labels(page, &segments, day_first, &mut candidates);
        from_patterns(page, &segments, day_first, &mut candidates);
        parties::offer_parties(page, &segments, &mut candidates);
        broad_candidates(&segments, day_first, &mut candidates);
    }
    let direct_debit = direct_debit(pages);
    let payable_may_differ = payable_may_differ(pages);
    if direct_debit {
        for c in candidates
            .0
            .iter_mut()
            .filter(|c| c.field == HeaderFieldName::Iban)
        {
            c.value.confidence = Confidence::new(c.value.confidence.value() * 0.5);
        }
    }
    reconcile_totals(&mut candidates);
    parties::assign_vat_ids(&mut candidates);
    corroborate(&mut candidates);
    infer_amount_due(pages, &mut candidates);
    credit_note_amounts_unsigned(&mut candidates);
    // Where the amount due may differ from the gross total, only a labelled amount due is one.
    if payable_may_differ {
        candidates
            .0
            .retain(|c| !(c.field == HeaderFieldName::AmountDue && c.rule == Rule::CueRowAmount));
    }
    // The rules' order: the best of each field first (as `Candidates::best` picks it).
    let mut ordered = std::mem::take(&mut candidates.0);
    ordered.sort_by(|a, b| {
        let field = |c: &Candidate| HeaderFieldName::ALL.iter().position(|f| *f == c.field);
        field(a).cmp(&field(b)).then_with(|| rule_order(b, a))
    });
    let context = rank::Context::new(
        pages,
        &candidates.1.0,
        &candidates.2.seller,
        direct_debit,
        payable_may_differ,
    );
    let features = rank::features(&context, &ordered);
    ordered
        .into_iter()
        .zip(features)
        .map(|(c, features)| FieldCandidate {
            field: c.field,
            value: c.value,
            rule: c.rule,
            features,
        })
        .collect()
}

/// Whether the document announces a direct debit (`SEPA-Lastschrift`, `Mandatsreferenz`,
/// `direct debit`, `prélèvement`): the IBAN it prints is then the payer's account, not the
/// payee's the `iban` field names.
fn direct_debit(pages: &[Page]) -> bool {
    let words: Vec<String> = pages
        .iter()
        .flat_map(|p| &p.lines)
        .flat_map(|l| &l.words)
        .map(|w| vocabulary::fold(&w.text))
        .collect();
    words.iter().any(|w| {
        w.contains("lastschrift")
            || w.starts_with("mandatsreferenz")
            || w.starts_with("prélèvement")
    }) || words
        .windows(2)
        .any(|p| p[0] == "direct" && p[1] == "debit")
}

/// Key-value pairs whose key is a vocabulary label.
fn from_key_values(pages: &[Page], key_values: &[KeyValue], day_first: bool, out: &mut Candidates) {
    for kv in key_values {
        let Some(label) = field_for_key(&kv.key) else {
            continue;
        };
        // Party headings (`Verkäufer:` over a block) pair with the block's first line, which
        // is often a form entry (`Nummer : GE2020211`): parties are read from their blocks.
        let Some(kind) = kind_of(label.field).filter(|k| *k != ValueKind::Party) else {
            continue;
        };
        // The value's words, found again on the page so that the value's own box is kept.
        let Some(page) = pages.iter().find(|p| p.page == kv.page) else {
            continue;
        };
        let words: Vec<&Word> = page
            .lines
            .iter()
            .flat_map(|l| &l.words)
            .filter(|w| kv.value_box.contains_center_of(&w.bbox))
            .collect();
        let mut words = words;
        words.sort_by(|a, b| {
            a.bbox
                .y
                .total_cmp(&b.bbox.y)
                .then(a.bbox.x.total_cmp(&b.bbox.x))
        });
        if let Some(parsed) = parse_value(kind, &words, day_first) {
            let weight = 0.95 * label_weight(&label) * kv.confidence.value().max(0.01)
                / words_confidence(&words).max(0.01);
            offer_parsed(out, label.field, parsed, weight.min(1.0), Rule::KeyValue);
        }
    }
}

fn words_confidence(words: &[&Word]) -> f64 {
    Confidence::mean(words.iter().map(|w| w.confidence))
        .unwrap_or(Confidence::NONE)
        .value()
}

/// Vocabulary labels anywhere on a line, with the value after them on the same segment, in the
/// next segment of the row, or (not for amounts) in the segment below.
fn from_labels(page: &Page, segments: &[Segment<'_>], day_first: bool, out: &mut Candidates) {
    // Rows of a breakdown (`Umsatzsteuer (S) -4,85 19 -0,92` / `Umsatzsteuer (S) -2,82 7
    // -0,20`) open with the same label on several rows of a page: each is one rate's part,
    // not the document's total.
    // Every segment's labels, found once.
    let found: Vec<Vec<LabelMatch>> = segments
        .iter()
        .map(|s| find_labels(&s.words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>()))
        .collect();
    let openers: Vec<String> = segments
        .iter()
        .zip(&found)
        .filter_map(|(s, labels)| {
            let label = labels.first()?;
            (label.first_word == 0
                && kind_of(label.field) == Some(ValueKind::Amount)
                && segments
                    .iter()
                    .any(|o| o.row == s.row && !find_amounts(&o.text()).is_empty()))
            .then(|| row_key(s))
        })
        .collect();
    // The segment's words without digits: `Umsatzsteuer (S)` twice is a breakdown, `Total HT`,
    // `Total TVA` and `Total TTC` are three totals.
    fn row_key(s: &Segment<'_>) -> String {
        let words: Vec<&str> = s
            .words
            .iter()
            .map(|w| w.text.as_str())
            .filter(|t| !t.chars().any(|c| c.is_ascii_digit()))
            .collect();
        vocabulary::fold(&words.concat())
    }
    let repeated = |segment: &Segment<'_>, label: &LabelMatch| {
        let key = row_key(segment);
        label.first_word == 0 && openers.iter().filter(|o| **o == key).count() >= 2
    };
    for (index, segment) in segments.iter().enumerate() {
        let texts: Vec<&str> = segment.words.iter().map(|w| w.text.as_str()).collect();
        // Labels inside a parenthesised remark (`Netto (excl. USt.)`) name nothing.
        let parenthesised = in_parentheses(&texts);
        let labels: Vec<LabelMatch> = found[index]
            .iter()
            .copied()
            .filter(|l| !parenthesised[l.first_word])
            .collect();
        for (n, label) in labels.iter().enumerate() {
            let Some(kind) = kind_of(label.field).filter(|k| *k != ValueKind::Party) else {
                continue;
            };
            // A label inside running text (`Rechnung gemäß Bestellung Nr. 2018-471331 vom …`,
            // `bitte Ihre Kundennummer … und Belegnummer …`) names its value less surely than
            // a form's label: such sentences quote other documents' numbers.
            let in_sentence = label.first_word >= 2
                && segment.words.len() >= 6
                && segment.words[..label.first_word]
                    .iter()
                    .any(|w| w.text.chars().next().is_some_and(char::is_lowercase));
            let breakdown = kind == ValueKind::Amount && repeated(segment, label);
            let weight = 0.85
                * label_weight(label)
                * if in_sentence { 0.85 } else { 1.0 }
                * if breakdown { 0.7 } else { 1.0 };
            // Same segment, up to the next label.
            let until = labels
                .get(n + 1)
                .map_or(segment.words.len(), |l| l.first_word);
            let after: Vec<&Word> = segment.words[label.end_word..until]
                .iter()
                .copied()
                .skip_while(|w| matches!(w.text.trim(), ":" | "#" | "-" | "–"))
                .collect();
            // An amount at the end of the row beats one inside the label's text (`Tax 15% on
            // $ 112.90 … $ 16.94`).
            let row_end_amount = (kind == ValueKind::Amount && until == segment.words.len())
                .then(|| {
                    segments
                        .iter()
                        .filter(|s| s.row == segment.row && s.bbox.x > segment.bbox.right() - 0.5)
                        .filter_map(|s| {
                            parse_value(kind, &s.words, day_first).map(|p| (s.bbox.x, p))
                        })
                        .max_by(|a, b| a.0.total_cmp(&b.0))
                        .map(|(_, p)| p)
                })
                .flatten();
            if let Some(parsed) = row_end_amount {
                offer_parsed(out, label.field, parsed, weight * 0.95, Rule::LabelRowEnd);
                continue;
            }
            if let Some(parsed) = parse_value(kind, &after, day_first) {
                offer_parsed(out, label.field, parsed, weight, Rule::LabelSameLine);
                continue;
            }
            // A remark in parentheses after the label does not stop the search.
            let remark_only = segment.words[label.end_word..until]
                .iter()
                .enumerate()
                .all(|(i, w)| parenthesised[label.end_word + i] || w.text.trim() == ":");
            // Amounts close their row: after a rate (`USt. 19 %`) the value is the last
            // amount of the row.
            let amount_row = kind == ValueKind::Amount && until == segment.words.len();
            if until < segment.words.len() || !(after.is_empty() || remark_only || amount_row) {
                continue;
            }
            let height = segment.height();
            let label_box =
                words_box(&segment.words[label.first_word..label.end_word]).unwrap_or(segment.bbox);
            // Next segment to the right on the same row.
            let to_the_right = segments
                .iter()
                .filter(|s| s.row == segment.row && s.bbox.x > segment.bbox.right() - 0.5);
            let right = if kind == ValueKind::Amount {
                to_the_right
                    .filter(|s| parse_value(kind, &s.words, day_first).is_some())
                    .max_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x))
            } else {
                to_the_right.min_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x))
            };
            if let Some(right) = right
                && let Some(parsed) = parse_value(kind, &right.words, day_first)
            {
                offer_parsed(out, label.field, parsed, weight * 0.95, Rule::LabelRight);
                continue;
            }
            if matches!(kind, ValueKind::Amount | ValueKind::Party) {
                continue;
            }
            // Below: the nearest segment of the next rows, under or to the right of the label.
            let below = segments
                .iter()
                .skip(index + 1)
                .filter(|s| {
                    let gap = s.bbox.y - label_box.bottom();
                    s.row > segment.row
                        && gap > -0.3 * height
                        && gap < 1.6 * height
                        && s.bbox.right() > label_box.x - height
                        && s.bbox.x < label_box.right() + page.width * 0.35
                })
                .min_by(|a, b| {
                    let da = a.bbox.y + (a.bbox.x - label_box.x).abs() * 0.2;
                    let db = b.bbox.y + (b.bbox.x - label_box.x).abs() * 0.2;
                    da.total_cmp(&db)
                });
            if let Some(below) = below
                && let Some(parsed) = parse_value(kind, &below.words, day_first)
            {
                offer_parsed(out, label.field, parsed, weight * 0.85, Rule::LabelBelow);
            }
        }
    }
}

/// Candidates no label rule reads, for the ranker to weigh by what is printed around them:
/// every date as an issue or due date, every line that could be a name as the seller's and
/// the buyer's, and the amount closing a row that speaks of a total,
/// a net, a tax or a payable amount in any of the vocabulary's languages as each of the four
/// totals. Their rule confidence is low: alone they are never returned by the rules, only
/// when the model's features (the cue left of them, their place, the sum they fit) say so.
fn broad_candidates(segments: &[Segment<'_>], day_first: bool, out: &mut Candidates) {
    const BROAD: f64 = 0.2;
    for segment in segments {
        let value = ValueText::new(&segment.words);
        for date in find_dates(&value.text, day_first) {
            for field in [HeaderFieldName::IssueDate, HeaderFieldName::DueDate] {
                if let Some(parsed) = value.spanned(date.iso.clone(), date.start, date.end) {
                    offer_new(out, field, parsed, BROAD, Rule::AnyDate);
                }
            }
        }
    }
    for segment in segments {
        if name_line(segments, segment)
            && let Some(parsed) = parse_value(ValueKind::Party, &segment.words, day_first)
        {
            for field in [HeaderFieldName::SellerName, HeaderFieldName::BuyerName] {
                offer_new(out, field, parsed.clone(), BROAD, Rule::NameLine);
            }
        }
    }
    let rows: std::collections::BTreeSet<usize> = segments.iter().map(|s| s.row).collect();
    for row in rows {
        let in_row: Vec<&Segment<'_>> = segments.iter().filter(|s| s.row == row).collect();
        let words: Vec<&Word> = in_row
            .iter()
            .flat_map(|s| s.words.iter().copied())
            .collect();
        let folded: Vec<String> = words.iter().map(|w| vocabulary::fold(&w.text)).collect();
        if !rank::speaks_of_totals(&folded) {
            continue;
        }
        let Some(last) = in_row.iter().max_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x)) else {
            continue;
        };
        let Some(parsed) = parse_value(ValueKind::Amount, &last.words, day_first) else {
            continue;
        };
        for field in [
            HeaderFieldName::NetTotal,
            HeaderFieldName::TaxTotal,
            HeaderFieldName::GrossTotal,
            HeaderFieldName::AmountDue,
        ] {
            offer_new(out, field, parsed.clone(), BROAD, Rule::CueRowAmount);
        }
    }
}

/// Whether a segment reads as a name line a party block could open with: no postal-code line,
/// no amount or date, no address of the web or mail, no long sentence, and what
/// [`parties::could_be_name`] accepts.
fn name_line(segments: &[Segment<'_>], segment: &Segment<'_>) -> bool {
    let text = segment.text();
    let trimmed = text.trim();
    let chars = trimmed.chars().count();
    (2..=70).contains(&chars)
        && segment.words.len() <= 8
        && !parties::POSTAL_LINE.is_match(trimmed)
        && !parties::looks_like_street(trimmed)
        && !trimmed.contains(['@', '€', '$', '£', '%'])
        && !trimmed.to_lowercase().contains("www.")
        && find_dates(trimmed, true).is_empty()
        && find_amounts(trimmed)
            .iter()
            .all(|a| !a.decimal.contains('.'))
        && parties::could_be_name(segments, segment)
}

/// Offers a broad candidate unless a rule already proposed the same value at the same place.
fn offer_new(
    out: &mut Candidates,
    field: HeaderFieldName,
    parsed: Parsed<'_>,
    confidence: f64,
    rule: Rule,
) {
    let Some(bbox) = words_box(&parsed.words) else {
        return;
    };
    let known = out.0.iter().any(|c| {
        c.field == field
            && c.value.value == parsed.value
            && c.value.source.bbox.page == bbox.page
            && (c.value.source.bbox.contains_center_of(&bbox)
                || bbox.contains_center_of(&c.value.source.bbox))
    });
    if !known {
        offer_parsed(out, field, parsed, confidence, rule);
    }
}

/// For each word, whether it stands inside parentheses.
fn in_parentheses(words: &[&str]) -> Vec<bool> {
    let mut depth = 0usize;
    words
        .iter()
        .map(|w| {
            let opens = w.starts_with('(');
            depth += w.matches('(').count();
            let inside = depth > 0 || opens;
            depth = depth.saturating_sub(w.matches(')').count());
            inside
        })
        .collect()
}

/// Patterns that need no label: IBANs anywhere, VAT ids, the title line (document type, and
/// `Rechnung Nr. 123 vom 1.2.2026`), payment-terms sentences, and the currency most printed.
fn from_patterns(page: &Page, segments: &[Segment<'_>], day_first: bool, out: &mut Candidates) {
    for segment in segments {
        let words = &segment.words;
        for start in 0..words.len() {
            if words[start].text.len() >= 2
                && words[start].text.as_bytes()[..2]
                    .iter()
                    .all(u8::is_ascii_uppercase)
                // Unlabelled, only an IBAN whose check digits hold.
                && let Some(parsed) = iban_value(&ValueText::new(&words[start..]))
                && parsed
                    .words
                    .first()
                    .is_some_and(|w| std::ptr::eq(*w, words[start]))
            {
                offer_parsed(out, HeaderFieldName::Iban, parsed, 0.75, Rule::IbanPattern);
            }
        }
        let text = segment.text();
        for vat in find_vat_ids(&text) {
            // Only ids that stand as words (their own box), not inside an IBAN.
            if find_ibans(&text)
                .iter()
                .any(|i| i.start <= vat.start && vat.end <= i.end)
            {
                continue;
            }
            let ws = words_overlapping(&segment.words, &text, vat.start, vat.end);
            if let Some(bbox) = words_box(&ws) {
                let conf = 0.6 * words_confidence(&ws);
                out.offer(
                    HeaderFieldName::SellerVatId,
                    vat.vat_id.clone(),
                    text.get(vat.start..vat.end).unwrap_or_default(),
                    conf,
                    bbox,
                    Rule::VatPattern,
                );
            }
        }
    }
    title_line(page, segments, day_first, out);
    payment_terms_sentences(segments, day_first, out);
    if page.page == 1 || out.0.iter().all(|c| c.field != HeaderFieldName::Currency) {
        most_printed_currency(page, out);
    }
}

fn words_overlapping<'a>(
    words: &[&'a Word],
    text: &str,
    start: usize,
    end: usize,
) -> Vec<&'a Word> {
    let mut cursor = 0;
    let mut out = Vec::new();
    for w in words {
        let (s, e) = (cursor, cursor + w.text.len());
        if s < end && e > start {
            out.push(*w);
        }
        cursor = e + 1;
    }
    let _ = text;
    out
}

/// The title: the largest line of the upper part of page 1 that starts with a document type
/// word. A number and a date printed on it (`Rechnung Nr. 4711 vom 05.03.2026`) are read too.
fn title_line(page: &Page, segments: &[Segment<'_>], day_first: bool, out: &mut Candidates) {
    if page.page != 1 {
        return;
    }
    let mut best: Option<(&Segment<'_>, &'static str, f64)> = None;
    for segment in segments {
        // Some layouts put the title under a tall letterhead and address block.
        if segment.bbox.y > page.height * 0.6 {
            continue;
        }
        let text = segment.text();
        if let Some(kind) = vocabulary::document_type_of_title(&text) {
            let size = segment.height();
            if best.is_none_or(|(_, _, s)| size > s + 0.5) {
                best = Some((segment, kind, size));
            }
        }
    }
    let Some((segment, kind, _)) = best else {
        return;
    };
    let title_words = segment.words.iter().take(1).copied().collect::<Vec<_>>();
    if let Some(bbox) = words_box(&title_words) {
        out.offer(
            HeaderFieldName::DocumentType,
            kind.to_string(),
            &join_words(&title_words),
            0.8 * words_confidence(&title_words),
            bbox,
            Rule::TitleType,
        );
    }
    // `<title> [(380)] Nr./No./# <id> [vom/of/dated <date>]`
    let glued = glue_letter_spaced(&segment.words);
    let glued_refs: Vec<&Word> = glued.iter().map(AsRef::as_ref).collect();
    let words = &glued_refs;
    // Remarks in parentheses after the title word (`(380)`, `(Selbst ausgestellte Rechnung)`).
    let mut i = 1;
    let mut depth = 0usize;
    while i < words.len() && (depth > 0 || words[i].text.starts_with('(')) {
        depth += words[i].text.matches('(').count();
        depth = depth.saturating_sub(words[i].text.matches(')').count());
        i += 1;
    }
    // `Facture FA-2017-0010`, `Invoice INV-0042`: the title word, then the number alone.
    if i == 1 && words.len() == 2 {
        if let Some(parsed) = parse_value(ValueKind::Identifier, &words[1..], day_first)
            && parsed.value.chars().any(|c| c.is_ascii_alphabetic())
            && parsed.value.contains(['-', '/', '_'])
        {
            offer_parsed(
                out,
                HeaderFieldName::InvoiceNumber,
                parsed,
                0.7,
                Rule::TitleNumber,
            );
        }
        return;
    }
    // The marker may follow a few more title words (`Rechnung des Versicherers (575) Nr. …`).
    let is_marker = |w: &&Word| {
        matches!(
            vocabulary::fold(&w.text).as_str(),
            "nr" | "no" | "nummer" | "number"
        ) || w.text == "#"
    };
    if let Some(offset) = words[i..].iter().take(5).position(is_marker) {
        i += offset;
    }
    let is_date_connector = |w: &&Word| {
        matches!(
            vocabulary::fold(&w.text).as_str(),
            "vom" | "von" | "from" | "dated" | "of" | "date"
        )
    };
    // A title wrapped before its date: `vom 05.03.2018` opens the segment under it.
    if words.get(i).is_some_and(is_marker) && !words.iter().any(is_date_connector) {
        let below = segments.iter().find(|s| {
            s.row > segment.row
                && (s.bbox.x - segment.bbox.x).abs() < segment.height()
                && s.bbox.y - segment.bbox.bottom() < segment.height()
        });
        if let Some(below) = below
            && below.words.first().is_some_and(is_date_connector)
            && let Some(parsed) = parse_value(ValueKind::Date, &below.words[1..], day_first)
        {
            offer_parsed(
                out,
                HeaderFieldName::IssueDate,
                parsed,
                0.65,
                Rule::TitleDate,
            );
        }
    }
    if words.get(i).is_some_and(is_marker) {
        // A number printed letter-spaced falls apart into digit groups (`Nr. 4 71102 vom`):
        // digit-only words up to the date connector are one number.
        let digit_run: Vec<&Word> = words[i + 1..]
            .iter()
            .copied()
            .take_while(|w| w.text.chars().all(|c| c.is_ascii_digit()))
            .collect();
        let run_ends_well = words
            .get(i + 1 + digit_run.len())
            .is_none_or(is_date_connector);
        if digit_run.len() > 1 && run_ends_well {
            let joined: String = digit_run.iter().map(|w| w.text.as_str()).collect();
            if let Some(bbox) = words_box(&digit_run) {
                out.offer(
                    HeaderFieldName::InvoiceNumber,
                    joined,
                    &join_words(&digit_run),
                    0.7 * words_confidence(&digit_run),
                    bbox,
                    Rule::TitleNumber,
                );
            }
        } else if let Some(parsed) = parse_value(ValueKind::Identifier, &words[i + 1..], day_first)
            // A number that runs into the page's right edge is cut off, not whole.
            && parsed
                .words
                .iter()
                .all(|w| w.bbox.right() < page.width - 8.0)
        {
            offer_parsed(
                out,
                HeaderFieldName::InvoiceNumber,
                parsed,
                0.75,
                Rule::TitleNumber,
            );
        }
        if let Some(pos) = words.iter().position(is_date_connector)
            && let Some(parsed) = parse_value(ValueKind::Date, &words[pos + 1..], day_first)
        {
            offer_parsed(
                out,
                HeaderFieldName::IssueDate,
                parsed,
                0.7,
                Rule::TitleDate,
            );
        }
    }
}

/// Words of a letter-spaced line put back together: a word of digits followed closely (less
/// than a third of the line height) by a word starting with a digit is one word
/// (`9 314110911/00/M/00/N`, `0 5.03.2018`). Glued words are new words with the joined box.
fn glue_letter_spaced<'a>(words: &[&'a Word]) -> Vec<std::borrow::Cow<'a, Word>> {
    use std::borrow::Cow;
    let mut out: Vec<Cow<'a, Word>> = Vec::with_capacity(words.len());
    for w in words {
        if let Some(last) = out.last_mut() {
            let gap = w.bbox.x - last.bbox.right();
            // Digits after digits, or a number continued across a separator
            // (`01.234 .567.8-2018-1`, `9314110911/00/M/00/ N`).
            let digits_then_digit = last.text.chars().all(|c| c.is_ascii_digit())
                && w.text.chars().next().is_some_and(|c| c.is_ascii_digit());
            let across_separator = last.text.chars().any(|c| c.is_ascii_digit())
                && (last.text.ends_with(['.', '/', '-']) || w.text.starts_with(['.', '/', '-']))
                && w.text
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || ".-/".contains(c));
            let glue =
                (digits_then_digit || across_separator) && gap < last.bbox.h.max(w.bbox.h) / 3.0;
            if glue {
                let merged = last.to_mut();
                merged.text.push_str(&w.text);
                merged.bbox = merged.bbox.union(&w.bbox);
                continue;
            }
        }
        out.push(Cow::Borrowed(*w));
    }
    out
}

/// `Zahlbar innerhalb 30 Tagen bis 04.04.2026 …`, `Payable within 14 days`: payment terms, and
/// the date after `bis`/`until`/`by` is the due date.
fn payment_terms_sentences(segments: &[Segment<'_>], day_first: bool, out: &mut Candidates) {
    const OPENERS: &[&str] = &["zahlbar", "payable", "zahlungsziel", "bitte", "please"];
    const BEFORE_DUE_DATE: &[&str] = &["bis", "until", "by", "before", "spätestens", "zum"];
    for segment in segments {
        let Some(first) = segment.words.first() else {
            continue;
        };
        if !OPENERS.contains(&vocabulary::fold(&first.text).as_str()) {
            continue;
        }
        let text = segment.text();
        let lower = text.to_lowercase();
        let about_payment = [
            "tag", "day", "netto", "net", "skonto", "bis", "until", "zahl", "pay", "remit",
        ]
        .iter()
        .any(|k| lower.contains(k));
        if !about_payment {
            continue;
        }
        if let Some(parsed) = parse_value(ValueKind::Terms, &segment.words, day_first) {
            offer_parsed(
                out,
                HeaderFieldName::PaymentTerms,
                parsed,
                0.6,
                Rule::TermsSentence,
            );
        }
        for (i, w) in segment.words.iter().enumerate() {
            if BEFORE_DUE_DATE.contains(&vocabulary::fold(&w.text).as_str())
                && let Some(parsed) =
                    parse_value(ValueKind::Date, &segment.words[i + 1..], day_first)
            {
                offer_parsed(
                    out,
                    HeaderFieldName::DueDate,
                    parsed,
                    0.6,
                    Rule::TermsSentence,
                );
                break;
            }
        }
    }
}

/// The currency printed most often next to amounts or as a code.
fn most_printed_currency(page: &Page, out: &mut Candidates) {
    let mut counts: Vec<(&'static str, usize, Option<&Word>)> = Vec::new();
    for word in page.lines.iter().flat_map(|l| &l.words) {
        for code in find_currencies(&word.text) {
            match counts.iter_mut().find(|(c, _, _)| *c == code) {
                Some(entry) => entry.1 += 1,
                None => counts.push((code, 1, Some(word))),
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    if let Some((code, count, Some(word))) = counts.first()
        && *count >= 2
    {
        out.offer(
            HeaderFieldName::Currency,
            (*code).to_string(),
            &word.text,
            0.5 * word.confidence.value(),
            word.bbox,
            Rule::CurrencyMost,
        );
    }
}

/// A value printed twice, apart (the number in the title and in the form, the seller in the
/// heading block and in the footer), is surer than a value found once: the reading of one
/// place is confirmed by another.
fn corroborate(candidates: &mut Candidates) {
    let key = |c: &Candidate| -> String {
        match kind_of(c.field) {
            Some(ValueKind::Party) => vocabulary::fold(&c.value.value),
            _ => c.value.value.clone(),
        }
    };
    let confirmed: Vec<bool> = candidates
        .0
        .iter()
        .map(|c| {
            let k = key(c);
            candidates.0.iter().any(|o| {
                o.field == c.field
                    && !std::ptr::eq(o, c)
                    && key(o) == k
                    && !o.value.source.bbox.contains_center_of(&c.value.source.bbox)
                    && !c.value.source.bbox.contains_center_of(&o.value.source.bbox)
            })
        })
        .collect();
    for (c, confirmed) in candidates.0.iter_mut().zip(confirmed) {
        c.corroborated = confirmed;
        if confirmed {
            c.value.confidence = Confidence::new((c.value.confidence.value() + 0.15).min(1.0));
        }
    }
}

/// A credit note (`Avoir`, `Gutschrift`, `Credit note`) states its amounts positive, as EN 16931
/// does (the document type says which way the money goes); a minus printed before its totals is
/// dropped. A corrective invoice (`Rechnungskorrektur`, `Stornorechnung`) is an invoice of
/// negative amounts and keeps its signs.
fn credit_note_amounts_unsigned(candidates: &mut Candidates) {
    let credit_note = candidates
        .best(HeaderFieldName::DocumentType)
        .is_some_and(|c| {
            let title = vocabulary::fold(&c.value.text);
            c.value.value == "credit_note"
                && (title.ends_with("gutschrift") || title == "avoir" || title == "credit")
        });
    if !credit_note {
        return;
    }
    for c in candidates
        .0
        .iter_mut()
        .filter(|c| kind_of(c.field) == Some(ValueKind::Amount))
    {
        if let Some(unsigned) = c.value.value.strip_prefix('-') {
            c.value.value = unsigned.to_string();
        }
    }
}

/// The least confidence a gross total needs to stand for the amount due when no amount due is
/// printed: the calibration's bands from 0.7 up were right 97–98 % of the time, the gross
/// totals under it (0.5–0.65) about half the time.
const DUE_FROM_GROSS_MIN: f64 = 0.7;

/// No amount due printed: the amount due is the gross total (EN 16931: BT-115 = BT-112 less
/// prepaid amounts and rounding), unless the document prints anything that makes them differ
/// — a prepayment, a discount or an allowance, an outstanding balance or a credit set off
/// ([`payable_may_differ`]). The inferred value keeps the gross total's box and method, a
/// little less sure than the gross total itself.
fn infer_amount_due(pages: &[Page], candidates: &mut Candidates) {
    if candidates
        .0
        .iter()
        .any(|c| c.field == HeaderFieldName::AmountDue)
    {
        return;
    }
    let Some(gross) = candidates.best(HeaderFieldName::GrossTotal).cloned() else {
        return;
    };
    if gross.value.confidence.value() < DUE_FROM_GROSS_MIN || payable_may_differ(pages) {
        return;
    }
    let mut due = gross;
    due.field = HeaderFieldName::AmountDue;
    due.rule = Rule::InferredDue;
    due.value.confidence = Confidence::new(due.value.confidence.value() * 0.9);
    candidates.0.push(due);
}

/// Whether the pages print a word by which the amount due may differ from the gross total:
/// prepayments (`Anzahlung`, `Vorauszahlung`, `Abschlag…`, `acompte`, `prepaid`, `bereits
/// bezahlt`), discounts and allowances (`Skonto`, `Rabatt`, `Nachlass`, `discount`, `remise`,
/// `escompte`), balances (`ausstehend`, `Forderung`, `Guthaben`, `verrechnet`, `balance`,
/// `solde`) and deductions (`abzüglich`, `less`).
fn payable_may_differ(pages: &[Page]) -> bool {
    const STEMS: &[&str] = &[
        "anzahlung",
        "vorauszahlung",
        "abschlag",
        "acompte",
        "prepaid",
        "prepayment",
        "skonto",
        "rabatt",
        "nachlass",
        "discount",
        "remise",
        "escompte",
        "ausstehend",
        "forderung",
        "guthaben",
        "verrechn",
        "gutgeschrieben",
        "balance",
        "solde",
        "abzüglich",
        "abzgl",
        "deposit",
    ];
    let words: Vec<String> = pages
        .iter()
        .flat_map(|p| &p.lines)
        .flat_map(|l| &l.words)
        .map(|w| vocabulary::fold(&w.text))
        .collect();
    words.iter().any(|w| STEMS.iter().any(|s| w.contains(s)))
        || words.windows(2).any(|p| {
            matches!(
                (p[0].as_str(), p[1].as_str()),
                ("bereits", "bezahlt" | "gezahlt" | "erhalten")
                    | ("already", "paid")
                    | ("amount", "paid")
                    | ("less", _)
            )
        })
}

/// Where net + tax = gross holds for some candidates, those are preferred over candidates that
/// fit no sum.
fn reconcile_totals(candidates: &mut Candidates) {
    let of = |field| -> Vec<(usize, i64)> {
        candidates
            .0
            .iter()
            .enumerate()
            .filter(|(_, c)| c.field == field)
            .filter_map(|(i, c)| to_cents(&c.value.value).map(|v| (i, v)))
            .collect()
    };
    let nets = of(HeaderFieldName::NetTotal);
    let taxes = of(HeaderFieldName::TaxTotal);
    let grosses = of(HeaderFieldName::GrossTotal);
    let mut best: Option<(f64, [usize; 3])> = None;
    for (g, gv) in &grosses {
        for (n, nv) in &nets {
            for (t, tv) in &taxes {
                if nv + tv == *gv && *gv != 0 {
                    let score: f64 = [*g, *n, *t]
                        .iter()
                        .map(|i| candidates.0[*i].value.confidence.value())
                        .sum();
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, [*n, *t, *g]));
                    }
                }
            }
        }
    }
    if let Some((_, chosen)) = best {
        for i in chosen {
            let c = &mut candidates.0[i];
            c.reconciled = true;
            c.value.confidence = Confidence::new((c.value.confidence.value() + 0.3).min(1.0));
        }
    }
}

#[cfg(test)]
mod tests;
