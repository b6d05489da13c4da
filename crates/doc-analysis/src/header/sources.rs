//! The rules that propose candidates: key-value pairs, vocabulary labels, broad sources,
//! patterns, the title line, payment-terms sentences and the most printed currency.

use super::*;

/// Key-value pairs whose key is a vocabulary label.
pub(super) fn from_key_values(
    pages: &[Page],
    key_values: &[KeyValue],
    day_first: bool,
    out: &mut Candidates,
) {
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

pub(super) fn words_confidence(words: &[&Word]) -> f64 {
    Confidence::mean(words.iter().map(|w| w.confidence))
        .unwrap_or(Confidence::NONE)
        .value()
}

/// Vocabulary labels anywhere on a line, with the value after them on the same segment, in the
/// next segment of the row, or (not for amounts) in the segment below.
pub(super) fn from_labels(
    page: &Page,
    segments: &[Segment<'_>],
    day_first: bool,
    out: &mut Candidates,
) {
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
                .skip_while(|w| is_label_punctuation(&w.text))
                .collect();
            // An amount at the end of the row beats one inside the label's text (`Tax 15% on
            // $ 112.90 … $ 16.94`).
            let row_end_amount = (kind == ValueKind::Amount && until == segment.words.len())
                .then(|| {
                    segments
                        .iter()
                        .filter(|s| {
                            (s.row == segment.row || on_same_line(&s.bbox, &segment.bbox))
                                && s.bbox.x > segment.bbox.right() - 0.5
                        })
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
            // Nothing after the label but another label (a grid's header row, `Invoice #:
            // Date:`), or nothing at all: the value stands to the right or below.
            let next_label_follows = until < segment.words.len() && after.is_empty();
            if (until < segment.words.len() && !next_label_follows)
                || !(after.is_empty() || remark_only || amount_row)
            {
                continue;
            }
            let height = segment.height();
            let label_box =
                words_box(&segment.words[label.first_word..label.end_word]).unwrap_or(segment.bbox);
            // Next segment to the right on the same row.
            let to_the_right = segments.iter().filter(|s| {
                (s.row == segment.row || on_same_line(&s.bbox, &segment.bbox))
                    && s.bbox.x > segment.bbox.right() - 0.5
            });
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

/// Whether two boxes stand on one printed line though the reader put them on different rows
/// (a photographed slip is skewed or curled: a label and its amount at the far right drift
/// apart by a few points): their vertical centres less than half the taller's height apart.
pub(super) fn on_same_line(a: &PageBox, b: &PageBox) -> bool {
    a.page == b.page && ((a.y + a.h / 2.0) - (b.y + b.h / 2.0)).abs() < 0.5 * a.h.max(b.h)
}

/// A word that only closes a label (`:`, `#:`, `N°`'s `°`, a dash): never a value.
fn is_label_punctuation(word: &str) -> bool {
    let word = word.trim();
    !word.is_empty()
        && word
            .chars()
            .all(|c| matches!(c, ':' | '#' | '-' | '–' | '.' | '°' | 'º'))
}

/// Candidates no label rule reads, for the ranker to weigh by what is printed around them:
/// every date as an issue or due date, every line that could be a name as the seller's and
/// the buyer's, and the amount closing a row that speaks of a total,
/// a net, a tax or a payable amount in any of the vocabulary's languages as each of the four
/// totals. Their rule confidence is low: alone they are never returned by the rules, only
/// when the model's features (the cue left of them, their place, the sum they fit) say so.
pub(super) fn broad_candidates(segments: &[Segment<'_>], day_first: bool, out: &mut Candidates) {
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
    for segment in segments.iter().chain(&spaced_runs(segments)) {
        if name_line(segments, segment)
            && let Some(parsed) = parse_value(ValueKind::Party, &segment.words, day_first)
        {
            for field in [HeaderFieldName::SellerName, HeaderFieldName::BuyerName] {
                offer_new(out, field, parsed.clone(), BROAD, Rule::NameLine);
            }
        }
    }
    for segment in segments {
        if let Some(parsed) = labelled_identifier(segments, segment, day_first) {
            for field in [HeaderFieldName::InvoiceNumber, HeaderFieldName::OrderNumber] {
                offer_new(out, field, parsed.clone(), BROAD, Rule::AnyIdentifier);
            }
        }
    }
    let rows: std::collections::BTreeSet<usize> = segments.iter().map(|s| s.row).collect();
    for row in rows {
        let Some(anchor) = segments
            .iter()
            .filter(|s| s.row == row)
            .min_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x))
        else {
            continue;
        };
        let in_row: Vec<&Segment<'_>> = segments
            .iter()
            .filter(|s| {
                s.row == row || (s.bbox.x > anchor.bbox.x && on_same_line(&s.bbox, &anchor.bbox))
            })
            .collect();
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

/// Most words a label of any wording has (`Numéro de la facture d'origine`).
const MAX_LABEL_WORDS: usize = 5;

/// The identifier a segment gives after a label of any wording, whatever the vocabulary
/// knows: after words ending in a colon or a number sign on the segment (`Credit note No.:
/// 2024/5126`, `N° FX-2026-0042`), or as the segment's only value with a short label left of
/// it on the row or just above it (`Votre référence | PO445`). What the label says is left to
/// the ranker's cue features.
fn labelled_identifier<'a>(
    segments: &[Segment<'a>],
    segment: &Segment<'a>,
    day_first: bool,
) -> Option<Parsed<'a>> {
    let words = &segment.words;
    let is_label_word = |w: &Word| {
        w.text.chars().any(char::is_alphabetic) && !w.text.chars().any(|c| c.is_ascii_digit())
    };
    let ends_label = |w: &Word| {
        let t = w.text.trim();
        t.ends_with(':')
            || is_label_punctuation(t)
            // Folded, `N°` reads `n` (the degree sign is no letter) and `#` reads empty (it is
            // label punctuation, above).
            || matches!(
                vocabulary::fold(t).as_str(),
                "nr" | "no" | "n" | "nº" | "num" | "number" | "nummer" | "numero" | "numéro"
            )
    };
    for value_at in 1..words.len().min(MAX_LABEL_WORDS + 2) {
        let label = &words[..value_at];
        if !label.iter().any(|w| is_label_word(w))
            || label
                .iter()
                .any(|w| w.text.chars().any(|c| c.is_ascii_digit()))
        {
            return None;
        }
        if ends_label(label[value_at - 1])
            && let Some(parsed) = identifier_value(&words[value_at..], day_first)
            && parsed.value.chars().count() >= 3
        {
            return Some(parsed);
        }
    }
    // The segment is the value alone: a label segment left of it on the row or over it.
    if words.len() > 2 {
        return None;
    }
    let parsed = identifier_value(words, day_first).filter(|p| p.value.chars().count() >= 3)?;
    let height = segment.height();
    let is_label = |s: &Segment<'_>| {
        !s.words.is_empty()
            && s.words.len() <= MAX_LABEL_WORDS
            && s.words
                .iter()
                .all(|w| !w.text.chars().any(|c| c.is_ascii_digit()))
            && s.words.iter().any(|w| is_label_word(w))
    };
    let left = segments
        .iter()
        .filter(|s| s.row == segment.row && s.bbox.right() <= segment.bbox.x + 1.0)
        .max_by(|a, b| a.bbox.right().total_cmp(&b.bbox.right()));
    let above = segments
        .iter()
        .filter(|s| {
            s.bbox.page == segment.bbox.page
                && s.bbox.bottom() <= segment.bbox.y + 0.5
                && s.bbox.bottom() > segment.bbox.y - 2.5 * height
                && s.bbox.x < segment.bbox.right()
                && s.bbox.right() > segment.bbox.x
        })
        .max_by(|a, b| a.bbox.bottom().total_cmp(&b.bbox.bottom()));
    let labelled = left
        .is_some_and(|s| is_label(s) && segment.bbox.x - s.bbox.right() < 20.0 * height.max(1.0))
        || above.is_some_and(is_label);
    labelled.then_some(parsed)
}

/// Whether a segment reads as a name line a party block could open with: no postal-code line,
/// no amount or date, no address of the web or mail, no long sentence, and what
/// [`parties::could_be_name`] accepts.
pub(super) fn name_line(segments: &[Segment<'_>], segment: &Segment<'_>) -> bool {
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
        && !courtesy_line(trimmed)
}

/// Whether a line thanks, invites or states a returns policy (`Thank you, please come again`,
/// `Goods sold are not returnable`, `Merci de votre visite`): the closing lines of a till slip
/// or an invoice, never a party's name.
fn courtesy_line(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .map(vocabulary::fold)
        .any(|w| {
            w.starts_with("thank")
                || w.starts_with("danke")
                || w.starts_with("returnable")
                || w.starts_with("refundable")
                || w.starts_with("exchangeable")
                || matches!(
                    w.as_str(),
                    "merci" | "grazie" | "bedankt" | "gracias" | "please" | "again" | "vielen"
                )
        })
}

/// Runs of segments of one row set with wide spaces between their words (a till slip's
/// `SAM  SAM  TRADING  CO`, which the segmenter cuts at every gap): neighbours less than three
/// of their heights apart joined, where a row has two to six of them.
pub(super) fn spaced_runs<'a>(segments: &[Segment<'a>]) -> Vec<Segment<'a>> {
    let mut runs = Vec::new();
    let rows: std::collections::BTreeSet<usize> = segments.iter().map(|s| s.row).collect();
    for row in rows {
        let mut in_row: Vec<&Segment<'a>> = segments.iter().filter(|s| s.row == row).collect();
        if !(2..=6).contains(&in_row.len()) {
            continue;
        }
        in_row.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
        let mut run: Vec<&Segment<'a>> = vec![in_row[0]];
        let mut flush = |run: &mut Vec<&Segment<'a>>| {
            if run.len() >= 2 {
                let words: Vec<&'a Word> =
                    run.iter().flat_map(|s| s.words.iter().copied()).collect();
                if let Some(bbox) = words_box(&words) {
                    runs.push(Segment { row, words, bbox });
                }
            }
            run.clear();
        };
        for s in &in_row[1..] {
            let last = run[run.len() - 1];
            if s.bbox.x - last.bbox.right() < 3.0 * last.height().max(s.height()) {
                run.push(s);
            } else {
                flush(&mut run);
                run.push(s);
            }
        }
        flush(&mut run);
    }
    runs
}

/// Offers a broad candidate unless a rule already proposed the same value at the same place.
pub(super) fn offer_new(
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
pub(super) fn in_parentheses(words: &[&str]) -> Vec<bool> {
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
pub(super) fn from_patterns(
    page: &Page,
    segments: &[Segment<'_>],
    day_first: bool,
    out: &mut Candidates,
) {
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

pub(super) fn words_overlapping<'a>(
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
pub(super) fn title_line(
    page: &Page,
    segments: &[Segment<'_>],
    day_first: bool,
    out: &mut Candidates,
) {
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
pub(super) fn glue_letter_spaced<'a>(words: &[&'a Word]) -> Vec<std::borrow::Cow<'a, Word>> {
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
pub(super) fn payment_terms_sentences(
    segments: &[Segment<'_>],
    day_first: bool,
    out: &mut Candidates,
) {
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

/// Every currency printed next to amounts or as a code, the most printed first.
pub(super) fn most_printed_currency(page: &Page, out: &mut Candidates) {
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
    // Every code printed is offered: the most printed one (twice or more) as the rule always
    // read it, the others and a code printed once ("Montants exprimés en EUR") weaker, for
    // the ranker to weigh against the labels around them.
    for (rank, (code, count, word)) in counts.iter().enumerate() {
        let Some(word) = word else { continue };
        let weight = if rank == 0 && *count >= 2 { 0.5 } else { 0.25 };
        out.offer(
            HeaderFieldName::Currency,
            (*code).to_string(),
            &word.text,
            weight * word.confidence.value(),
            word.bbox,
            Rule::CurrencyMost,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::courtesy_line;

    #[test]
    fn closing_lines_are_courtesy_and_names_are_not() {
        for line in [
            "THANK YOU. PLEASE COME AGAIN",
            "Thanks for your visit",
            "GOODS SOLD ARE NOT RETURNABLE.",
            "Merci de votre visite",
            "Vielen Dank für Ihren Einkauf",
            "Grazie e arrivederci",
        ] {
            assert!(courtesy_line(line), "{line}");
        }
        for name in [
            "SAM SAM TRADING CO",
            "Thai Delicious Restaurant",
            "Lieferant GmbH",
            "Au bon moulin SARL",
        ] {
            assert!(!courtesy_line(name), "{name}");
        }
    }
}
