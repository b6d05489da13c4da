//! Key-value pairs: `Label: value` on one line, label and value in aligned columns of one line,
//! and label above value; German and English. Works on any [`doc_model::Page`] (text layer or
//! OCR): only words and their boxes are used.

use doc_model::{Confidence, KeyValue, KeyValueLayout, Method, Page, PageMethod, Word};

use crate::segments::{Segment, join_words, segments, words_box};
use crate::vocabulary;

fn source_of(page: &Page) -> Method {
    match page.method {
        PageMethod::TextLayer => Method::TextLayer,
        PageMethod::Ocr => Method::Ocr,
    }
}

/// A key must read like a label: starts with a letter, a few words, no long sentence.
fn plausible_key(words: &[&Word]) -> bool {
    let text = join_words(words);
    let trimmed = text.trim_end_matches(':').trim();
    !words.is_empty()
        && words.len() <= 5
        && trimmed.chars().count() <= 40
        && trimmed.chars().next().is_some_and(char::is_alphabetic)
        && trimmed.chars().filter(|c| c.is_alphabetic()).count() >= 2
}

fn strip_colon(text: &str) -> String {
    text.trim().trim_end_matches(':').trim().to_string()
}

/// Confidence of a pairing by layout: an explicit colon on one line is surest.
fn layout_weight(layout: KeyValueLayout, with_colon: bool) -> f64 {
    match (layout, with_colon) {
        (KeyValueLayout::Inline, _) => 0.95,
        (KeyValueLayout::Columns, true) => 0.9,
        (KeyValueLayout::Columns, false) => 0.8,
        (KeyValueLayout::Stacked, _) => 0.7,
    }
}

fn pair(
    page: &Page,
    key_words: &[&Word],
    value_words: &[&Word],
    layout: KeyValueLayout,
    with_colon: bool,
) -> Option<KeyValue> {
    let key = strip_colon(&join_words(key_words));
    let value = join_words(value_words).trim().to_string();
    if key.is_empty() || value.is_empty() || value == ":" {
        return None;
    }
    let confidence = Confidence::mean(key_words.iter().chain(value_words).map(|w| w.confidence))
        .unwrap_or(Confidence::NONE);
    Some(KeyValue {
        key,
        value,
        page: page.page,
        key_box: words_box(key_words)?,
        value_box: words_box(value_words)?,
        layout,
        source: source_of(page),
        confidence: Confidence::new(confidence.value() * layout_weight(layout, with_colon)),
    })
}

/// Where a word ends a label: `Label:` or a lone `:`.
fn ends_label(word: &Word) -> bool {
    let text = word.text.trim();
    text.ends_with(':') && !text.ends_with("::") && text.chars().count() >= 1
}

/// Every key-value pair of a page, in reading order of their keys.
pub fn find_key_values(page: &Page) -> Vec<KeyValue> {
    let segments = segments(page);
    let mut used_as_value = vec![false; segments.len()];
    let mut found: Vec<KeyValue> = Vec::new();
    for (index, segment) in segments.iter().enumerate() {
        if used_as_value[index] {
            continue;
        }
        let words = &segment.words;
        let colon_positions: Vec<usize> = words
            .iter()
            .enumerate()
            .filter(|(_, w)| ends_label(w))
            .map(|(i, _)| i)
            .collect();
        if let Some(&first_colon) = colon_positions.first() {
            // One or more `Label: value` in this segment; a later label's words end the value
            // of the previous one.
            let mut key_start = 0;
            let mut colon = first_colon;
            let mut rest = colon_positions.iter().skip(1).peekable();
            loop {
                let key_words = &words[key_start..=colon];
                let next_colon = rest.next().copied();
                let value_end = match next_colon {
                    Some(next) => label_start_before(words, colon + 1, next),
                    None => words.len(),
                };
                if !plausible_key(key_words) {
                    break;
                }
                let value_words = &words[colon + 1..value_end];
                if !value_words.is_empty() {
                    found.extend(pair(
                        page,
                        key_words,
                        value_words,
                        KeyValueLayout::Inline,
                        true,
                    ));
                } else if next_colon.is_none() {
                    // `Label:` closes the segment: its value is in the next column or below.
                    if let Some(kv) =
                        value_elsewhere(page, &segments, index, key_words, true, &mut used_as_value)
                    {
                        found.push(kv);
                    }
                }
                match next_colon {
                    Some(next) => {
                        key_start = value_end;
                        colon = next;
                    }
                    None => break,
                }
            }
            continue;
        }
        // No colon: a vocabulary label filling the whole segment pairs with the next column or
        // the segment below.
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        let whole_label = vocabulary::find_labels(&texts)
            .iter()
            .any(|m| m.first_word == 0 && m.end_word == words.len());
        if whole_label
            && let Some(kv) =
                value_elsewhere(page, &segments, index, words, false, &mut used_as_value)
        {
            found.push(kv);
        }
    }
    found.sort_by(|a, b| {
        a.key_box
            .y
            .total_cmp(&b.key_box.y)
            .then(a.key_box.x.total_cmp(&b.key_box.x))
    });
    found
}

/// The first word of the label that ends at `colon`, searching back no further than `from`:
/// label words carry no digits, at most three of them.
fn label_start_before(words: &[&Word], from: usize, colon: usize) -> usize {
    let mut start = colon;
    while start > from
        && colon - start < 3
        && !words[start - 1].text.chars().any(|c| c.is_ascii_digit())
    {
        start -= 1;
    }
    start
}

fn is_key_like(segment: &Segment<'_>) -> bool {
    segment.words.last().is_some_and(|w| ends_label(w)) || {
        let texts: Vec<&str> = segment.words.iter().map(|w| w.text.as_str()).collect();
        vocabulary::find_labels(&texts)
            .iter()
            .any(|m| m.first_word == 0 && m.end_word == segment.words.len())
    }
}

/// The value of a label that stands alone: the next segment of its row (Columns), or else the
/// segment right below it, left-aligned with it or under it (Stacked).
fn value_elsewhere(
    page: &Page,
    segments: &[Segment<'_>],
    key_index: usize,
    key_words: &[&Word],
    with_colon: bool,
    used_as_value: &mut [bool],
) -> Option<KeyValue> {
    let key = &segments[key_index];
    let height = key.height();
    let key_box = words_box(key_words)?;
    let right = segments
        .iter()
        .enumerate()
        .filter(|(i, s)| *i != key_index && s.row == key.row && s.bbox.x >= key_box.right())
        .min_by(|a, b| a.1.bbox.x.total_cmp(&b.1.bbox.x));
    if let Some((index, segment)) = right
        && !is_key_like(segment)
        && segment.bbox.x - key_box.right() < page.width * 0.5
    {
        used_as_value[index] = true;
        return pair(
            page,
            key_words,
            &segment.words,
            KeyValueLayout::Columns,
            with_colon,
        );
    }
    let below = segments
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            let gap = s.bbox.y - key_box.bottom();
            s.row > key.row
                && gap > -0.3 * height
                && gap < 1.2 * height
                && (s.bbox.x - key_box.x).abs() < 2.0 * height
        })
        .min_by(|a, b| a.1.bbox.y.total_cmp(&b.1.bbox.y));
    if let Some((index, segment)) = below
        && !is_key_like(segment)
    {
        used_as_value[index] = true;
        return pair(
            page,
            key_words,
            &segment.words,
            KeyValueLayout::Stacked,
            with_colon,
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::test_pages::page;

    fn pairs(page: &Page) -> Vec<(String, String, KeyValueLayout)> {
        find_key_values(page)
            .into_iter()
            .map(|kv| (kv.key, kv.value, kv.layout))
            .collect()
    }

    #[test]
    fn inline_pairs_in_german_and_english() {
        let p = page(
            &[
                ("Rechnungsnummer: RE-2026-0042", 50.0, 100.0),
                ("Invoice date: 21.11.2026", 50.0, 120.0),
                (
                    "Kontonr.: 1234 5678 IBAN: DE89 3704 0044 0532 0130 00",
                    50.0,
                    140.0,
                ),
            ],
            Vec::new(),
            1.0,
        );
        assert_eq!(
            pairs(&p),
            vec![
                (
                    "Rechnungsnummer".into(),
                    "RE-2026-0042".into(),
                    KeyValueLayout::Inline
                ),
                (
                    "Invoice date".into(),
                    "21.11.2026".into(),
                    KeyValueLayout::Inline
                ),
                (
                    "Kontonr.".into(),
                    "1234 5678".into(),
                    KeyValueLayout::Inline
                ),
                (
                    "IBAN".into(),
                    "DE89 3704 0044 0532 0130 00".into(),
                    KeyValueLayout::Inline
                ),
            ]
        );
    }

    #[test]
    fn columns_with_and_without_colon() {
        let p = page(
            &[
                ("Währung:", 50.0, 100.0),
                ("EUR", 300.0, 100.0),
                ("Kundennummer", 50.0, 115.0),
                ("GE2020211", 300.0, 115.0),
                // Not a label, not a colon: two columns of prose are no pair.
                ("Lieferung frei Haus", 50.0, 130.0),
                ("gemäß Angebot", 300.0, 130.0),
            ],
            Vec::new(),
            1.0,
        );
        assert_eq!(
            pairs(&p),
            vec![
                ("Währung".into(), "EUR".into(), KeyValueLayout::Columns),
                (
                    "Kundennummer".into(),
                    "GE2020211".into(),
                    KeyValueLayout::Columns
                ),
            ]
        );
    }

    #[test]
    fn stacked_label_above_value_with_ocr_confidence() {
        let p = page(
            &[
                ("Invoice number", 400.0, 100.0),
                ("INV-77", 400.0, 112.0),
                ("Due date", 400.0, 130.0),
                ("December 3, 2026", 400.0, 142.0),
            ],
            Vec::new(),
            0.8,
        );
        let found = find_key_values(&p);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].key, "Invoice number");
        assert_eq!(found[0].value, "INV-77");
        assert_eq!(found[0].layout, KeyValueLayout::Stacked);
        assert_eq!(found[0].source, Method::Ocr);
        assert!(found[0].confidence.value() < 0.8);
        assert_eq!(found[1].value, "December 3, 2026");
    }

    #[test]
    fn prose_gives_no_pairs() {
        let p = page(
            &[
                (
                    "Wir danken für Ihren Auftrag und berechnen wie folgt",
                    50.0,
                    100.0,
                ),
                ("the quick brown fox jumps over the lazy dog", 50.0, 112.0),
                ("Beginn 10:30 Uhr, siehe http://example.org/x", 50.0, 124.0),
            ],
            Vec::new(),
            1.0,
        );
        assert!(pairs(&p).is_empty(), "{:?}", pairs(&p));
    }
}
