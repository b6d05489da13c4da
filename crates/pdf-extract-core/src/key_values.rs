//! Key-value pairs: `Label: value` on one line, label and value in aligned columns of one line,
//! and label above value; German and English. Works on any [`doc_model::Page`] (text layer or
//! OCR): only words and their boxes are used.

use doc_model::{Confidence, KeyValue, KeyValueLayout, Method, Page, PageBox, PageMethod, Word};

use crate::header::vocabulary;

/// A run of words of one line with no wide gap inside: one cell of a form or a table row.
#[derive(Debug, Clone)]
pub(crate) struct Segment<'a> {
    /// Visual row (segments of different lines on one baseline share a row), top to bottom.
    pub(crate) row: usize,
    pub(crate) words: Vec<&'a Word>,
    pub(crate) bbox: PageBox,
}

impl Segment<'_> {
    pub(crate) fn text(&self) -> String {
        join_words(&self.words)
    }

    /// Typical glyph height, the unit for gaps and distances.
    pub(crate) fn height(&self) -> f64 {
        let mut heights: Vec<f64> = self.words.iter().map(|w| w.bbox.h).collect();
        heights.sort_by(f64::total_cmp);
        heights
            .get(heights.len() / 2)
            .copied()
            .unwrap_or(self.bbox.h)
            .max(1.0)
    }
}

pub(crate) fn join_words(words: &[&Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn words_box(words: &[&Word]) -> Option<PageBox> {
    PageBox::union_all(words.iter().map(|w| &w.bbox))
}

/// A gap wider than this many glyph heights separates two segments (word spacing is about a
/// third of the glyph height; form columns are several heights apart).
const SEGMENT_GAP: f64 = 1.2;

/// Splits every line at wide gaps and assigns visual rows, sorted by row, then left to right.
pub(crate) fn segments(page: &Page) -> Vec<Segment<'_>> {
    let mut out: Vec<Segment<'_>> = Vec::new();
    for line in &page.lines {
        let mut words: Vec<&Word> = line
            .words
            .iter()
            .filter(|w| !w.text.trim().is_empty())
            .collect();
        words.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
        let mut current: Vec<&Word> = Vec::new();
        for word in words {
            if let Some(last) = current.last() {
                let height = last.bbox.h.max(word.bbox.h).max(1.0);
                if word.bbox.x - last.bbox.right() > SEGMENT_GAP * height {
                    push_segment(&mut out, std::mem::take(&mut current));
                }
            }
            current.push(word);
        }
        push_segment(&mut out, current);
    }
    assign_rows(&mut out);
    out.sort_by(|a, b| a.row.cmp(&b.row).then(a.bbox.x.total_cmp(&b.bbox.x)));
    out
}

fn push_segment<'a>(out: &mut Vec<Segment<'a>>, words: Vec<&'a Word>) {
    if let Some(bbox) = words_box(&words) {
        out.push(Segment {
            row: 0,
            words,
            bbox,
        });
    }
}

/// Segments whose vertical extents overlap by more than half share a row.
fn assign_rows(segments: &mut [Segment<'_>]) {
    let mut order: Vec<usize> = (0..segments.len()).collect();
    order.sort_by(|&a, &b| {
        segments[a]
            .bbox
            .center_y()
            .total_cmp(&segments[b].bbox.center_y())
    });
    let mut row = 0;
    let mut row_box: Option<PageBox> = None;
    for index in order {
        let bbox = segments[index].bbox;
        match row_box {
            // Compared with the row's first segment, not a growing union, so that rows of a
            // tight table do not chain into one.
            Some(current) if current.vertical_overlap(&bbox) > 0.5 => {}
            Some(_) => {
                row += 1;
                row_box = Some(bbox);
            }
            None => row_box = Some(bbox),
        }
        segments[index].row = row;
    }
}

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
pub(crate) mod test_pages {
    //! Hand-built pages for unit tests: words placed like a text layer would place them.

    use doc_model::{Confidence, CoordinateFrame, Line, Page, PageBox, PageMethod, Ruling, Word};

    /// Width of one character at font size 10, roughly Helvetica's mean.
    const CHAR_WIDTH: f64 = 5.5;

    /// Words of `text` starting at `x` on the baseline row `y` (top edge), single-spaced.
    pub(crate) fn words_at(text: &str, x: f64, y: f64, confidence: f64) -> Vec<Word> {
        let mut out = Vec::new();
        let mut cursor = x;
        for token in text.split(' ').filter(|t| !t.is_empty()) {
            let width = token.chars().count() as f64 * CHAR_WIDTH;
            out.push(Word {
                text: token.to_string(),
                bbox: PageBox::from_edges(1, cursor, y, cursor + width, y + 10.0),
                confidence: Confidence::new(confidence),
            });
            cursor += width + CHAR_WIDTH;
        }
        out
    }

    /// A page from `(text, x, y)` pieces; pieces on the same `y` become one line, as a text
    /// extractor would join them.
    pub(crate) fn page(pieces: &[(&str, f64, f64)], rulings: Vec<Ruling>, confidence: f64) -> Page {
        let mut rows: Vec<(f64, Vec<Word>)> = Vec::new();
        for (text, x, y) in pieces {
            let words = words_at(text, *x, *y, confidence);
            match rows.iter_mut().find(|(ry, _)| (ry - y).abs() < 0.5) {
                Some((_, existing)) => existing.extend(words),
                None => rows.push((*y, words)),
            }
        }
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        let lines = rows
            .into_iter()
            .enumerate()
            .filter_map(|(order, (_, mut words))| {
                words.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
                let mut line = Line::from_words(words, Some(10.0))?;
                line.order = order as u32;
                Some(line)
            })
            .collect();
        Page {
            page: 1,
            width: 595.0,
            height: 842.0,
            coordinate_frame: CoordinateFrame::PdfPointsTopLeft,
            method: if confidence < 1.0 {
                PageMethod::Ocr
            } else {
                PageMethod::TextLayer
            },
            rotation: 0,
            columns: 1,
            lines,
            rulings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_pages::page;
    use super::*;

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
