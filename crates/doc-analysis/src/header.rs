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
pub mod trees;

pub use rank::Rule;
pub use values::day_first;

mod reconcile;
mod sources;
mod values;

use self::reconcile::*;
use self::sources::*;
use self::values::*;

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
    let mut header = HeaderFields::default();
    let model = model::SHIPPED.as_ref();
    let chosen = model.map(|m| {
        let ids = value_ids(&candidates);
        let choices: Vec<Choice<'_>> = candidates
            .iter()
            .zip(&ids)
            .map(|(c, id)| Choice {
                field: c.field,
                value_id: *id,
                features: &c.features,
            })
            .collect();
        choose(m, &choices)
    });
    for name in HeaderFieldName::ALL {
        let best = match &chosen {
            // A field the model ranks: its choice (none when it had no candidate).
            Some(chosen) if model.is_some_and(|m| m.field(*name).is_some()) => {
                chosen.get(name).map(|(index, p)| {
                    let mut value = candidates[*index].value.clone();
                    value.confidence = Confidence::new(*p);
                    value
                })
            }
            _ => candidates
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

/// A candidate as the chooser sees it: its field, which of the document's values it is
/// ([`value_ids`]) and its features.
#[derive(Debug, Clone, Copy)]
pub struct Choice<'a> {
    /// The field it was proposed for.
    pub field: HeaderFieldName,
    /// Its value's number within the document.
    pub value_id: u32,
    /// Its features ([`rank::feature_names`]).
    pub features: &'a [f64],
}

/// Numbers the candidates' values within one document: candidates of any field whose values
/// are the same (ignoring case) get the same number.
pub fn value_ids(candidates: &[FieldCandidate]) -> Vec<u32> {
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    candidates
        .iter()
        .map(|c| {
            let next = u32::try_from(seen.len()).unwrap_or(u32::MAX);
            *seen.entry(c.value.value.to_lowercase()).or_insert(next)
        })
        .collect()
}

/// The candidate the model chooses for every field it ranks (index into `candidates`) with
/// its returned confidence, whatever the threshold. Each field takes its most probable
/// candidate (the first of equals, as the rules order them), except that a name goes to the
/// party it is likelier to be: the seller's and the buyer's names are never the same company,
/// and a name that is surely the seller's (letterhead, legal form, sender line) is not also
/// the buyer's second best. The confidence is the model's probability times one minus that of
/// the likeliest other value of the field.
pub fn choose(
    model: &model::Model,
    candidates: &[Choice<'_>],
) -> std::collections::BTreeMap<HeaderFieldName, (usize, f64)> {
    use HeaderFieldName as F;
    let probability: Vec<Option<f64>> = candidates
        .iter()
        .map(|c| {
            model
                .field(c.field)
                .map(|fm| returned_confidence(fm, c.field, c.features))
        })
        .collect();
    // The best probability of each value as the seller's and as the buyer's name, found once.
    let mut best_as: std::collections::HashMap<u32, (f64, f64)> = std::collections::HashMap::new();
    for (c, p) in candidates.iter().zip(&probability) {
        let Some(p) = *p else { continue };
        let best = best_as
            .entry(c.value_id)
            .or_insert((f64::NEG_INFINITY, f64::NEG_INFINITY));
        match c.field {
            F::SellerName => best.0 = best.0.max(p),
            F::BuyerName => best.1 = best.1.max(p),
            _ => {}
        }
    }
    let eligible = |c: &Choice<'_>| {
        let (as_seller, as_buyer) = best_as
            .get(&c.value_id)
            .copied()
            .unwrap_or((f64::NEG_INFINITY, f64::NEG_INFINITY));
        match c.field {
            F::SellerName => as_seller >= as_buyer,
            F::BuyerName => as_buyer > as_seller,
            _ => true,
        }
    };
    let mut chosen = std::collections::BTreeMap::new();
    for (index, (c, p)) in candidates.iter().zip(&probability).enumerate() {
        let Some(p) = *p else { continue };
        if !eligible(c) {
            continue;
        }
        match chosen.get(&c.field) {
            Some((_, best)) if *best >= p => {}
            _ => {
                chosen.insert(c.field, (index, p));
            }
        }
    }
    // The model scores each candidate alone, so two different values can both look likely; the
    // returned confidence is that the chosen value is right and its likeliest rival is not
    // (p × (1 − rival's p)), which abstains where the page is ambiguous.
    for (field, (index, p)) in chosen.iter_mut() {
        let value = candidates[*index].value_id;
        let rival = candidates
            .iter()
            .zip(&probability)
            .filter(|(c, _)| c.field == *field && c.value_id != value && eligible(c))
            .filter_map(|(_, q)| *q)
            .fold(0.0_f64, f64::max);
        *p *= 1.0 - rival;
    }
    chosen
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

#[cfg(test)]
mod tests;
