//! Glyphs grouped into words and lines in their reading frame (turned text read upright).

use super::glyph::Glyph;
use super::{ASCENT, DESCENT, LINE_SPLIT_EMS, WORD_GAP_EMS, on_page};
use doc_model::{Confidence, Line, PageBox, Word};

/// A glyph in its line's reading frame: x along the reading direction, y down across it.
#[derive(Debug, Clone)]
struct FrameGlyph<'a> {
    text: &'a str,
    x0: f64,
    x1: f64,
    pen_end: f64,
    baseline: f64,
    size: f64,
    space: bool,
}

/// Quarter turns (clockwise on the displayed page) of a glyph's reading direction.
fn quarter_turns(g: &Glyph) -> u8 {
    // The reading direction is the up vector turned a quarter clockwise (y points down).
    let (dx, dy) = (-g.up.1, g.up.0);
    if dx.abs() >= dy.abs() {
        if dx >= 0.0 { 0 } else { 2 }
    } else if dy >= 0.0 {
        1
    } else {
        3
    }
}

/// Display coordinates into the reading frame of `turns` quarter turns.
fn to_frame(turns: u8, (x, y): (f64, f64)) -> (f64, f64) {
    match turns {
        1 => (y, -x),
        2 => (-x, -y),
        3 => (-y, x),
        _ => (x, y),
    }
}

fn from_frame(turns: u8, (a, b): (f64, f64)) -> (f64, f64) {
    match turns {
        1 => (-b, a),
        2 => (-a, -b),
        3 => (b, -a),
        _ => (a, b),
    }
}

/// A frame box back on the page.
fn page_box(page: u32, turns: u8, x0: f64, y0: f64, x1: f64, y1: f64) -> PageBox {
    let (ax, ay) = from_frame(turns, (x0, y0));
    let (bx, by) = from_frame(turns, (x1, y1));
    PageBox::from_edges(page, ax, ay, bx, by)
}

/// Words and lines (unordered) from a page's glyphs.
pub(crate) fn build_lines(glyphs: &[Glyph], page: u32, width: f64, height: f64) -> Vec<Line> {
    let mut lines = Vec::new();
    for turns in 0..4u8 {
        let mut frame: Vec<FrameGlyph<'_>> = glyphs
            .iter()
            .filter(|g| on_page(g, width, height) && quarter_turns(g) == turns)
            .map(|g| {
                let (x0, baseline) = to_frame(turns, (g.x, g.y));
                let advance = g.advance.0.hypot(g.advance.1);
                FrameGlyph {
                    text: &g.text,
                    x0,
                    x1: x0 + advance,
                    pen_end: x0 + g.pen.max(advance),
                    baseline,
                    size: g.size(),
                    space: g.space,
                }
            })
            .collect();
        if frame.is_empty() {
            continue;
        }
        frame.sort_by(|a, b| {
            a.baseline
                .total_cmp(&b.baseline)
                .then(a.x0.total_cmp(&b.x0))
        });
        let mut row: Vec<FrameGlyph<'_>> = Vec::new();
        let mut row_baseline = 0.0;
        for g in frame {
            let joins = row.last().is_some_and(|last: &FrameGlyph<'_>| {
                (g.baseline - row_baseline).abs() <= 0.3 * g.size.min(last.size)
            });
            if !joins && !row.is_empty() {
                lines.extend(row_lines(std::mem::take(&mut row), page, turns));
            }
            row.push(g);
            row_baseline = row.iter().map(|g| g.baseline).sum::<f64>() / row.len() as f64;
        }
        lines.extend(row_lines(row, page, turns));
    }
    lines
}

/// Splits one row of glyphs (same baseline) into lines and words.
fn row_lines(mut row: Vec<FrameGlyph<'_>>, page: u32, turns: u8) -> Vec<Line> {
    row.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    let mut lines = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut word: Vec<&FrameGlyph<'_>> = Vec::new();
    let mut sizes: Vec<f64> = Vec::new();
    let mut last_ink: Option<&FrameGlyph<'_>> = None;
    let mut pending_space = false;

    let finish_word = |word: &mut Vec<&FrameGlyph<'_>>, words: &mut Vec<Word>| {
        if word.is_empty() {
            return;
        }
        let text: String = word.iter().map(|g| g.text).collect();
        let x0 = word.iter().map(|g| g.x0).fold(f64::INFINITY, f64::min);
        let x1 = word.iter().map(|g| g.x1).fold(f64::NEG_INFINITY, f64::max);
        let top = word
            .iter()
            .map(|g| g.baseline - ASCENT * g.size)
            .fold(f64::INFINITY, f64::min);
        let bottom = word
            .iter()
            .map(|g| g.baseline + DESCENT * g.size)
            .fold(f64::NEG_INFINITY, f64::max);
        words.push(Word {
            text,
            bbox: page_box(page, turns, x0, top, x1, bottom),
            confidence: Confidence::CERTAIN,
        });
        word.clear();
    };
    let finish_line = |words: &mut Vec<Word>, sizes: &mut Vec<f64>, lines: &mut Vec<Line>| {
        sizes.sort_by(f64::total_cmp);
        let size = sizes.get(sizes.len() / 2).copied();
        if let Some(line) = Line::from_words(std::mem::take(words), size) {
            lines.push(line);
        }
        sizes.clear();
    };

    for g in &row {
        if g.space {
            pending_space = true;
            continue;
        }
        if let Some(prev) = last_ink {
            let em = prev.size.max(g.size);
            let duplicate = prev.text == g.text
                && (g.x0 - prev.x0).abs() < 0.1 * em
                && (g.baseline - prev.baseline).abs() < 0.1 * em;
            if duplicate {
                continue;
            }
            let gap = g.x0 - prev.pen_end;
            if gap > LINE_SPLIT_EMS * em {
                finish_word(&mut word, &mut words);
                finish_line(&mut words, &mut sizes, &mut lines);
            } else if pending_space || gap > WORD_GAP_EMS * em {
                finish_word(&mut word, &mut words);
            }
        }
        pending_space = false;
        word.push(g);
        sizes.push(g.size);
        last_ink = Some(g);
    }
    finish_word(&mut word, &mut words);
    finish_line(&mut words, &mut sizes, &mut lines);
    lines
}
