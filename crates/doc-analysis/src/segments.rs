//! Segments: the runs of words of one line with no wide gap inside, in visual rows. The unit
//! that tables, key-value pairs and header fields are all found in.

use doc_model::{Page, PageBox, PageMethod, Word};

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

    /// Whether the words were recognised (OCR, confidence under 1): their boxes are ink
    /// boxes, not the font's.
    pub(crate) fn recognised(&self) -> bool {
        self.words.iter().any(|w| w.confidence.value() < 1.0)
    }

    /// Typical glyph height, the unit for gaps and distances.
    pub(crate) fn height(&self) -> f64 {
        // Recognised words have ink boxes, lower than the font's for words without ascenders
        // (`vom`, `:`): their tallest word stands for the glyph height.
        if self.recognised() {
            return self.words.iter().map(|w| w.bbox.h).fold(1.0, f64::max);
        }
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
        // Recognised words have ink boxes (`vom` is as high as an x, `Nr.` as a capital), not
        // the font's: on an OCR page the line's tallest word stands for the glyph height, or a
        // word space after a short word splits `Nr. 471102` into two segments.
        let line_height = if page.method == PageMethod::Ocr {
            words.iter().map(|w| w.bbox.h).fold(0.0, f64::max)
        } else {
            0.0
        };
        let mut current: Vec<&Word> = Vec::new();
        for word in words {
            if let Some(last) = current.last() {
                let height = last.bbox.h.max(word.bbox.h).max(line_height).max(1.0);
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
            recogniser: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use doc_model::{Confidence, Line, PageBox, PageMethod, Word};

    use super::segments;
    use super::test_pages::page;

    /// A recognised word with its ink box: `h` is as high as its letters reach.
    fn ink(text: &str, x: f64, w: f64, y: f64, h: f64) -> Word {
        Word {
            text: text.to_string(),
            bbox: PageBox::from_edges(1, x, y, x + w, y + h),
            confidence: Confidence::new(0.95),
        }
    }

    #[test]
    fn on_an_ocr_page_a_word_space_after_a_short_word_keeps_the_segment() {
        // Boxes as Tesseract gave them for `Handelsrechnung Nr. 471102 vom 05.03.2018`: the gap
        // after `Nr.` (13.4 pt) is wider than 1.2 × its own ink height, not the line's.
        let words = vec![
            ink("Handelsrechnung", 50.16, 134.64, 101.52, 12.72),
            ink("Nr.", 193.92, 23.76, 102.24, 9.12),
            ink("471102", 231.12, 51.36, 101.28, 10.08),
            ink("vom", 292.8, 27.36, 104.16, 7.2),
            ink("05.03.2018", 330.0, 87.36, 101.28, 10.08),
        ];
        let mut p = page(&[], Vec::new(), 0.95);
        p.lines = vec![Line::from_words(words.clone(), None).expect("line")];
        assert_eq!(p.method, PageMethod::Ocr);
        let s = segments(&p);
        assert_eq!(s.len(), 1, "{s:#?}");
        assert_eq!(s[0].text(), "Handelsrechnung Nr. 471102 vom 05.03.2018");
        // Form columns stay apart: `Rechnungswährung` and `:` 32 pt away.
        p.lines = vec![
            Line::from_words(
                vec![
                    ink("Rechnungswährung", 50.4, 95.04, 175.44, 8.16),
                    ink(":", 177.84, 1.68, 177.36, 4.56),
                    ink("EUR", 188.16, 17.52, 175.92, 6.0),
                ],
                None,
            )
            .expect("line"),
        ];
        assert_eq!(segments(&p).len(), 2);
        // The segment's glyph height is its tallest word's, not the median ink height.
        p.lines = vec![Line::from_words(words.clone(), None).expect("line")];
        assert_eq!(segments(&p)[0].height(), 12.72);
        // A text layer's boxes are the font's: its test is unchanged.
        p.method = PageMethod::TextLayer;
        p.lines = vec![Line::from_words(words, None).expect("line")];
        assert_eq!(segments(&p).len(), 2);
    }
}
