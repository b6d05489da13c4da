//! Values read from the words after a label or in a pattern: dates, amounts, currencies,
//! IBANs, BICs, VAT ids, tax numbers, identifiers, parties and payment terms.

use super::*;

/// Whether the document writes its dates day first (`05/11/2017` is 5 November). The dates
/// printed decide when some can only be read one way (`13/11/2017`, `11/13/2017`); else the
/// language and the country: German, French and Dutch write the day first, English the month
/// where the document shows an American address, else the day.
pub fn day_first(pages: &[Page]) -> bool {
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
        // English is written month first in the United States only; the rest of the English
        // speaking world (the UK, India, Malaysia, Singapore, Australia, …) writes the day
        // first, as every other language here does.
        _ => dm >= en || !american(pages),
    }
}

/// Whether a document shows an address in the United States: a state's code followed by a
/// ZIP code (`CA 94538`, `NY 10001-1234`), or the country's name.
fn american(pages: &[Page]) -> bool {
    static US_ADDRESS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        super::normalize::compile(
            r"(?x)\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY),?\s+\d{5}(?:-\d{4})?\b
            | \b(?:USA|U\.S\.A\.|United\ States)\b",
        )
    });
    pages
        .iter()
        .flat_map(|p| &p.lines)
        .any(|line| US_ADDRESS.is_match(&join_words(&line.words.iter().collect::<Vec<_>>())))
}

/// The first two parts of a numeric date with the year last (`13/11/2017`, `5.3.18`).
pub(super) fn numeric_date_parts(word: &str) -> Option<(u32, u32)> {
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
pub(super) fn label_weight(label: &LabelMatch) -> f64 {
    (0.55 + label.specificity as f64 / 25.0).min(1.0)
}

/// A parsed value: normalised value, the printed text and the words it came from.
#[derive(Clone)]
pub(super) struct Parsed<'a> {
    pub(super) value: String,
    pub(super) text: String,
    pub(super) words: Vec<&'a Word>,
}

/// Connector words between a label and its value (`Nr.`, `#`, `vom`), skipped when reading an
/// identifier.
pub(super) fn is_connector(word: &str) -> bool {
    matches!(
        vocabulary::fold(word).as_str(),
        "" | "nr" | "no" | "number" | "nummer" | "num" | "id"
    )
}

/// Reads a value of `kind` from the start of `words`.
pub(super) fn parse_value<'a>(
    kind: ValueKind,
    words: &[&'a Word],
    day_first: bool,
) -> Option<Parsed<'a>> {
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
pub(super) struct ValueText<'a, 'w> {
    pub(super) words: &'w [&'a Word],
    pub(super) text: String,
    pub(super) offsets: Vec<(usize, usize)>,
}

impl<'a, 'w> ValueText<'a, 'w> {
    pub(super) fn new(words: &'w [&'a Word]) -> Self {
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
    pub(super) fn spanned(&self, value: String, start: usize, end: usize) -> Option<Parsed<'a>> {
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
    pub(super) fn words_before(&self, start: usize) -> usize {
        self.text
            .get(..start)
            .unwrap_or_default()
            .split_whitespace()
            .count()
    }
}

pub(super) fn date_value<'a>(value: &ValueText<'a, '_>, day_first: bool) -> Option<Parsed<'a>> {
    let date = find_dates(&value.text, day_first).into_iter().next()?;
    // The date must open the value (after connectors such as `am`, `on`).
    if value.words_before(date.start) > 2 {
        return None;
    }
    value.spanned(date.iso, date.start, date.end)
}

pub(super) fn amount_value<'a>(value: &ValueText<'a, '_>, day_first: bool) -> Option<Parsed<'a>> {
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

pub(super) fn currency_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
    let first = words.iter().take(2).find_map(|w| {
        currency_code(w.text.trim_matches(|c: char| c == '(' || c == ')')).map(|c| (c, *w))
    })?;
    Some(Parsed {
        value: first.0.to_string(),
        text: first.1.text.clone(),
        words: vec![first.1],
    })
}

pub(super) fn iban_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
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
pub(super) fn iban_shaped_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
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

pub(super) fn bic_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
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

pub(super) fn vat_id_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
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

pub(super) fn tax_number_value<'a>(words: &[&'a Word]) -> Option<Parsed<'a>> {
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

pub(super) fn identifier_value<'a>(words: &[&'a Word], day_first: bool) -> Option<Parsed<'a>> {
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

pub(super) fn party_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
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

pub(super) fn terms_value<'a>(value: &ValueText<'a, '_>) -> Option<Parsed<'a>> {
    let text = collapse_whitespace(&value.text);
    (text.chars().filter(|c| c.is_alphanumeric()).count() >= 3).then(|| Parsed {
        value: text.clone(),
        text,
        words: value.words.to_vec(),
    })
}

pub(super) fn offer_parsed(
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
