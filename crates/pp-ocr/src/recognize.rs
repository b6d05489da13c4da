//! Text recognition: a line's crop read by the CTC network, decoded greedily, with each
//! character's position kept so words get boxes.
//!
//! PaddleOCR's published inference defaults: crops scaled to 48 pixels high keeping their
//! aspect, values mapped to [−1, 1], zero-padded on the right to a multiple of 64 (PaddleOCR
//! pads to at least 320; narrower inputs read the same on SROIE and cost less); the
//! network gives one distribution over blank + the model's characters + space per 8 input
//! columns; the greedy path drops blanks and repeats; a reading whose mean probability is
//! under 0.5 is no reading.

use crate::detect::{TextBox, resize};
use crate::{GreyPixels, PpOcrError, ShapedModel};

const HEIGHT: usize = 48;
/// Widths are rounded up to a multiple of this, so few distinct shapes are planned.
const WIDTH_STEP: usize = 64;
/// Longer crops are squeezed to this width (40 times the height: a whole receipt line).
const MAX_WIDTH: usize = 1920;
const MIN_SCORE: f32 = 0.5;
/// A run of blank columns at least this many times the line's ink height wide is a word
/// space (the Chinese-trained model rarely writes spaces between Latin words). From
/// typography, not fitted: a word space with the letters' side bearings is about 0.4 em or
/// more, the gap between two letters of a word under 0.35 em even in monospaced type, and ink
/// height (ascender to descender) is about one em.
const SPACE_GAP: f64 = 0.45;
/// What was read in one box.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognized {
    /// The line's text, words separated by one space.
    pub text: String,
    /// Mean probability of the characters read.
    pub score: f32,
    /// The words, left to right.
    pub words: Vec<Word>,
}

/// A word and where it lies along its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// The characters.
    pub text: String,
    /// Left edge on the picture, pixels.
    pub x0: f64,
    /// Right edge on the picture, pixels.
    pub x1: f64,
    /// Mean probability of its characters.
    pub score: f32,
}

/// The model's classes: blank, the metadata's characters one per line, then space (the order
/// PaddleOCR's CTC decoder uses with `use_space_char`).
pub(crate) fn character_list(metadata: &[(String, String)]) -> Option<Vec<String>> {
    let list = metadata.iter().find(|(key, _)| key == "character")?;
    let mut characters = vec![String::new()];
    characters.extend(list.1.lines().map(str::to_string));
    characters.push(" ".into());
    (characters.len() > 2).then_some(characters)
}

/// A line's crop made ready for the network: scaled to [`HEIGHT`] rows, its padded width,
/// and what decoding needs to put its characters and words back on the picture.
struct Prepared {
    /// The crop scaled to `scaled_w × HEIGHT`.
    resized: Vec<u8>,
    scaled_w: usize,
    /// The network's input width: `scaled_w` padded to a multiple of [`WIDTH_STEP`].
    width: usize,
    /// The crop's left edge and width on the picture.
    x0: u32,
    crop_w: u32,
    /// Blank column runs that are word spaces, picture columns.
    gaps: Vec<(f64, f64)>,
}

/// Crops, measures and scales the line inside `bbox`; `None` for an empty box.
fn prepare(picture: GreyPixels<'_>, bbox: TextBox) -> Result<Option<Prepared>, PpOcrError> {
    let x0 = bbox.x.floor().max(0.0) as u32;
    let y0 = bbox.y.floor().max(0.0) as u32;
    let x1 = ((bbox.x + bbox.w).ceil() as u32).min(picture.width);
    let y1 = ((bbox.y + bbox.h).ceil() as u32).min(picture.height);
    if x1 <= x0 || y1 <= y0 {
        return Ok(None);
    }
    let (crop_w, crop_h) = (x1 - x0, y1 - y0);
    let mut crop = Vec::with_capacity((crop_w * crop_h) as usize);
    for y in y0..y1 {
        for x in x0..x1 {
            crop.push(picture.at(x, y));
        }
    }
    let crop = GreyPixels::new(crop_w, crop_h, &crop)?;
    let gaps = word_gaps(crop)
        .into_iter()
        .map(|(a, b)| (f64::from(x0) + a as f64, f64::from(x0) + b as f64))
        .collect();
    let scaled_w = ((HEIGHT as f64 * f64::from(crop_w) / f64::from(crop_h)).ceil() as usize)
        .clamp(1, MAX_WIDTH);
    let width = scaled_w.div_ceil(WIDTH_STEP) * WIDTH_STEP;
    Ok(Some(Prepared {
        resized: resize(crop, scaled_w, HEIGHT),
        scaled_w,
        width,
        x0,
        crop_w,
        gaps,
    }))
}

/// Reads the text inside each of `boxes`, in their order, on up to `threads` threads: the
/// lines are dealt out widest first, each to the thread with the fewest columns so far, so the
/// threads finish together (a line's time grows with its width).
pub(crate) fn read_lines(
    recognizer: &ShapedModel,
    characters: &[String],
    picture: GreyPixels<'_>,
    boxes: &[TextBox],
    threads: usize,
) -> Result<Vec<Recognized>, PpOcrError> {
    let prepared: Vec<Option<Prepared>> = boxes
        .iter()
        .map(|b| prepare(picture, *b))
        .collect::<Result<_, _>>()?;
    let widths: Vec<Option<usize>> = prepared
        .iter()
        .map(|p| p.as_ref().map(|p| p.width))
        .collect();
    let shares = deal(&widths, threads);
    let read_share = |share: &[usize]| -> Result<Vec<(usize, Recognized)>, PpOcrError> {
        share
            .iter()
            .filter_map(|&i| prepared[i].as_ref().map(|p| (i, p)))
            .map(|(i, line)| Ok((i, read_line(recognizer, characters, line)?)))
            .collect()
    };
    let mut read: Vec<Recognized> = vec![Recognized::empty(); prepared.len()];
    let results: Vec<Result<Vec<(usize, Recognized)>, PpOcrError>> = if threads == 1 {
        shares.iter().map(|share| read_share(share)).collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .map(|share| scope.spawn(|| read_share(share)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(PpOcrError::Inference(
                            "a recognition thread panicked".into(),
                        ))
                    })
                })
                .collect()
        })
    };
    for result in results {
        for (i, recognized) in result? {
            read[i] = recognized;
        }
    }
    Ok(read)
}

/// The lines (indices of `widths`; `None`: nothing to read) dealt out to at most `threads`
/// threads, widest first, each to the thread with the fewest columns so far.
fn deal(widths: &[Option<usize>], threads: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<(usize, usize)> = widths
        .iter()
        .enumerate()
        .filter_map(|(i, w)| w.map(|w| (i, w)))
        .collect();
    order.sort_by_key(|&(i, w)| (std::cmp::Reverse(w), i));
    let mut shares: Vec<(usize, Vec<usize>)> =
        vec![(0, Vec::new()); threads.clamp(1, order.len().max(1))];
    for (index, width) in order {
        if let Some(least) = shares.iter_mut().min_by_key(|(columns, _)| *columns) {
            least.0 += width;
            least.1.push(index);
        }
    }
    shares.into_iter().map(|(_, share)| share).collect()
}

/// One line through the network (a batch of one: with tract a run of several lines of one
/// width took longer than as many runs of one, docs/benchmarks.md "PP-OCR: time").
fn read_line(
    recognizer: &ShapedModel,
    characters: &[String],
    line: &Prepared,
) -> Result<Recognized, PpOcrError> {
    let (shape, probabilities) = recognizer.run_grey_batch(
        &[(line.resized.as_slice(), line.scaled_w)],
        (line.width, HEIGHT),
        0.0,
    )?;
    match shape.as_slice() {
        [1, steps, classes] if *classes == characters.len() => {
            Ok(decode(line, &probabilities, *steps, *classes, characters))
        }
        _ => Err(PpOcrError::Inference(format!(
            "recognition output {shape:?} for one line of {} classes",
            characters.len()
        ))),
    }
}

/// One line's network output turned into words placed on the picture.
fn decode(
    line: &Prepared,
    probabilities: &[f32],
    steps: usize,
    classes: usize,
    characters: &[String],
) -> Recognized {
    let path = greedy_path(probabilities, steps, classes);
    // A step's centre on the picture: steps cover the padded width evenly.
    let step_px = line.width as f64 / steps as f64 * f64::from(line.crop_w) / line.scaled_w as f64;
    let placed: Vec<Placed<'_>> = path
        .into_iter()
        .map(|(step, class, probability)| Placed {
            text: &characters[class],
            centre: f64::from(line.x0) + (step as f64 + 0.5) * step_px,
            probability,
        })
        .collect();
    let recognized = words_of(&placed, step_px, &line.gaps);
    if recognized.score < MIN_SCORE {
        Recognized::empty()
    } else {
        recognized
    }
}

impl Recognized {
    fn empty() -> Self {
        Self {
            text: String::new(),
            score: 0.0,
            words: Vec::new(),
        }
    }
}

/// The greedy CTC path: per step the likeliest class; blanks (class 0) and a class repeating
/// the step before dropped. Returns (step, class, probability).
fn greedy_path(probabilities: &[f32], steps: usize, classes: usize) -> Vec<(usize, usize, f32)> {
    let mut path = Vec::new();
    let mut previous = 0usize;
    for step in 0..steps {
        let row = &probabilities[step * classes..(step + 1) * classes];
        let (class, probability) = row
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, 0.0));
        if class != 0 && class != previous {
            path.push((step, class, probability));
        }
        previous = class;
    }
    path
}

#[derive(Debug)]
struct Placed<'a> {
    text: &'a str,
    centre: f64,
    probability: f32,
}

/// Splits the characters into words at written spaces and where a blank gap of the picture
/// (`gaps`, picture columns) lies between two characters' centres.
fn words_of(placed: &[Placed<'_>], step_px: f64, gaps: &[(f64, f64)]) -> Recognized {
    let glyphs: Vec<&Placed<'_>> = placed.iter().filter(|p| p.text != " ").collect();
    if glyphs.is_empty() {
        return Recognized::empty();
    }
    let mut spacings: Vec<f64> = glyphs
        .windows(2)
        .map(|w| w[1].centre - w[0].centre)
        .collect();
    spacings.sort_by(f64::total_cmp);
    let median = spacings
        .get(spacings.len() / 2)
        .copied()
        .unwrap_or(2.0 * step_px);
    let half = 0.5 * median.max(step_px);
    let mut words: Vec<Vec<&Placed<'_>>> = vec![Vec::new()];
    let mut last: Option<&Placed<'_>> = None;
    for (i, p) in placed.iter().enumerate() {
        if p.text == " " {
            words.push(Vec::new());
            last = None;
            continue;
        }
        if let Some(before) = last
            && gaps
                .iter()
                .any(|&(a, b)| (a + b) / 2.0 > before.centre && (a + b) / 2.0 < p.centre)
            && !hugs_across_gap(
                words.last().map_or(&[][..], Vec::as_slice),
                p,
                placed.get(i + 1),
            )
        {
            words.push(Vec::new());
        }
        if let Some(word) = words.last_mut() {
            word.push(p);
        }
        last = Some(p);
    }
    let words: Vec<Word> = words
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(|w| {
            let first = w.first().map_or(0.0, |p| p.centre);
            let last = w.last().map_or(0.0, |p| p.centre);
            Word {
                text: w.iter().map(|p| p.text).collect(),
                x0: first - half,
                x1: last + half,
                score: w.iter().map(|p| p.probability).sum::<f32>() / w.len() as f32,
            }
        })
        .collect();
    let score = glyphs.iter().map(|p| p.probability).sum::<f32>() / glyphs.len() as f32;
    Recognized {
        text: words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        score,
        words,
    }
}

/// Whether a glyph stays in the word before it although an ink gap wide enough for a space
/// lies between them. Monospaced till-slip type gives a full cell to a period or a bracket, so
/// the ink gap beside one is as wide as a word space, yet print never sets a space there:
/// closing punctuation (`SDN. BHD.`, `80.90)`, `6%`) hugs the word before it, an opening
/// bracket the word after it, and a number's decimal point both digits (`RM4.00`). A colon is
/// left out (French sets a space before it, and slips print `TOTAL :`), and so is a run of
/// dots (leaders between a label and its amount).
fn hugs_across_gap(word: &[&Placed<'_>], glyph: &Placed<'_>, next: Option<&Placed<'_>>) -> bool {
    let Some(before) = word.last() else {
        return false;
    };
    let digit = |p: &Placed<'_>| p.text.chars().all(|c| c.is_ascii_digit()) && !p.text.is_empty();
    match glyph.text {
        "." => {
            next.is_none_or(|n| n.text != ".")
                && before.text != "."
                && before.text.chars().all(char::is_alphanumeric)
        }
        "," | ")" | "]" | "%" => before.text.chars().all(char::is_alphanumeric),
        _ if before.text == "(" || before.text == "[" => true,
        _ if before.text == "." && digit(glyph) => word.len() >= 2 && digit(word[word.len() - 2]),
        _ => false,
    }
}

/// Otsu's threshold of grey values: the level that best splits their histogram in two; values
/// at or below it are ink (127 for no values).
pub fn otsu_threshold(pixels: &[u8]) -> u8 {
    let mut histogram = [0u64; 256];
    for &p in pixels {
        histogram[usize::from(p)] += 1;
    }
    let total = pixels.len() as f64;
    let sum_all: f64 = histogram
        .iter()
        .enumerate()
        .map(|(v, &n)| v as f64 * n as f64)
        .sum();
    let (mut weight_dark, mut sum_dark) = (0.0f64, 0.0f64);
    let (mut best, mut best_level) = (-1.0f64, 127u8);
    for (level, &count) in histogram.iter().enumerate() {
        weight_dark += count as f64;
        sum_dark += level as f64 * count as f64;
        let weight_light = total - weight_dark;
        if weight_dark == 0.0 || weight_light == 0.0 {
            continue;
        }
        let mean_dark = sum_dark / weight_dark;
        let mean_light = (sum_all - sum_dark) / weight_light;
        let between = weight_dark * weight_light * (mean_dark - mean_light).powi(2);
        if between > best {
            best = between;
            best_level = level as u8;
        }
    }
    best_level
}

/// The runs of ink-free columns of a line's crop at least [`SPACE_GAP`] × its ink height
/// wide, between the first and the last inked column: (first column, end column).
fn word_gaps(crop: GreyPixels<'_>) -> Vec<(usize, usize)> {
    let level = otsu_threshold(crop.pixels);
    let (w, h) = (crop.width as usize, crop.height as usize);
    let ink = |x: usize, y: usize| crop.pixels[y * w + x] <= level;
    // The line's band: rows with at least a tenth of the busiest row's ink, so a neighbour's
    // descenders caught in the grown box neither fill the gaps nor count as height.
    let row_ink: Vec<usize> = (0..h)
        .map(|y| (0..w).filter(|&x| ink(x, y)).count())
        .collect();
    let busiest = row_ink.iter().copied().max().unwrap_or(0);
    let rows: Vec<usize> = (0..h)
        .filter(|&y| busiest > 0 && row_ink[y] * 10 >= busiest)
        .collect();
    let (Some(&top), Some(&bottom)) = (rows.first(), rows.last()) else {
        return Vec::new();
    };
    let columns: Vec<bool> = (0..w).map(|x| (top..=bottom).any(|y| ink(x, y))).collect();
    let ink_height = (bottom - top + 1) as f64;
    let (Some(first), Some(last)) = (
        columns.iter().position(|&c| c),
        columns.iter().rposition(|&c| c),
    ) else {
        return Vec::new();
    };
    let mut gaps = Vec::new();
    let mut x = first;
    while x <= last {
        if columns[x] {
            x += 1;
            continue;
        }
        let start = x;
        while x <= last && !columns[x] {
            x += 1;
        }
        if (x - start) as f64 >= SPACE_GAP * ink_height {
            gaps.push((start, x));
        }
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_dealt_widest_first_to_the_least_busy_thread() {
        let widths = [Some(64), None, Some(640), Some(128), Some(576), Some(64)];
        assert_eq!(deal(&widths, 2), vec![vec![2, 0, 5], vec![4, 3]]);
        assert_eq!(deal(&widths, 1), vec![vec![2, 4, 3, 0, 5]]);
        // Never more threads than lines, and one (empty) share for no lines.
        assert_eq!(deal(&[Some(64)], 4), vec![vec![0]]);
        assert_eq!(deal(&[None], 2), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn the_character_list_is_blank_then_the_metadata_then_space() {
        let metadata = vec![("character".to_string(), "'\na\nb".to_string())];
        let list = character_list(&metadata).expect("a list");
        assert_eq!(list, vec!["", "'", "a", "b", " "]);
        assert_eq!(character_list(&[]), None);
    }

    #[test]
    fn the_greedy_path_drops_blanks_and_repeats() {
        // Classes: blank, a, b. Steps: a a blank a b b.
        let rows: [[f32; 3]; 6] = [
            [0.1, 0.8, 0.1],
            [0.1, 0.7, 0.2],
            [0.9, 0.05, 0.05],
            [0.2, 0.6, 0.2],
            [0.1, 0.1, 0.8],
            [0.1, 0.2, 0.7],
        ];
        let flat: Vec<f32> = rows.iter().flatten().copied().collect();
        let path = greedy_path(&flat, 6, 3);
        let classes: Vec<(usize, usize)> = path.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(classes, vec![(0, 1), (3, 1), (4, 2)]);
    }

    #[test]
    fn ink_gaps_split_words() {
        let placed = vec![
            at("A", 0.0),
            at("B", 10.0),
            at("C", 35.0),
            at("D", 45.0),
            at(" ", 50.0),
            at("E", 55.0),
        ];
        let read = words_of(&placed, 4.0, &[(18.0, 28.0)]);
        assert_eq!(read.text, "AB CD E");
        assert_eq!(read.words.len(), 3);
        assert!((read.words[0].x0 - -5.0).abs() < 1e-9 && (read.words[0].x1 - 15.0).abs() < 1e-9);
        assert!((read.score - 0.9).abs() < 1e-6);
        // No gap: only the written space splits.
        assert_eq!(words_of(&placed, 4.0, &[]).text, "ABCD E");
    }

    #[test]
    fn punctuation_and_decimal_points_stay_in_their_word_across_a_gap() {
        let line = |glyphs: &[(&'static str, f64)]| -> Vec<Placed<'static>> {
            glyphs.iter().map(|(t, c)| at(t, *c)).collect()
        };
        // `SDN . BHD .` as the gaps alone would split a monospaced slip's print.
        let placed = line(&[
            ("S", 0.0),
            ("D", 10.0),
            ("N", 20.0),
            (".", 35.0),
            ("B", 60.0),
            ("H", 70.0),
            ("D", 80.0),
            (".", 95.0),
        ]);
        let gaps = [(26.0, 32.0), (40.0, 55.0), (86.0, 92.0)];
        assert_eq!(words_of(&placed, 4.0, &gaps).text, "SDN. BHD.");
        // `RM4. 00`: a decimal point keeps both its digits.
        let placed = line(&[
            ("R", 0.0),
            ("M", 10.0),
            ("4", 20.0),
            (".", 30.0),
            ("0", 45.0),
            ("0", 55.0),
        ]);
        assert_eq!(words_of(&placed, 4.0, &[(34.0, 41.0)]).text, "RM4.00");
        // `( 801580-T )`: brackets hug what they enclose.
        let placed = line(&[
            ("(", 0.0),
            ("8", 15.0),
            ("0", 25.0),
            ("T", 35.0),
            (")", 50.0),
        ]);
        assert_eq!(
            words_of(&placed, 4.0, &[(4.0, 11.0), (39.0, 46.0)]).text,
            "(80T)"
        );
        // Not joined: a colon, a run of leader dots, and a word after a period.
        let placed = line(&[("T", 0.0), ("L", 10.0), (":", 25.0), ("9", 40.0)]);
        assert_eq!(
            words_of(&placed, 4.0, &[(14.0, 21.0), (29.0, 36.0)]).text,
            "TL : 9"
        );
        let placed = line(&[
            ("A", 0.0),
            (".", 15.0),
            (".", 20.0),
            (".", 25.0),
            ("9", 40.0),
        ]);
        assert_eq!(
            words_of(&placed, 4.0, &[(4.0, 11.0), (29.0, 36.0)]).text,
            "A ... 9"
        );
        let placed = line(&[("N", 0.0), ("o", 10.0), (".", 20.0), ("5", 35.0)]);
        assert_eq!(words_of(&placed, 4.0, &[(24.0, 31.0)]).text, "No. 5");
    }

    fn at(text: &'static str, centre: f64) -> Placed<'static> {
        Placed {
            text,
            centre,
            probability: 0.9,
        }
    }

    #[test]
    fn a_gap_as_wide_as_half_the_ink_is_a_space_and_a_narrow_one_is_not() {
        // Ink 10 rows high (rows 5..15); blocks of ink with a 2-column and a 6-column gap.
        let (w, h) = (40usize, 20usize);
        let mut pixels = vec![250u8; w * h];
        for y in 5..15 {
            for x in (2..10).chain(12..20).chain(26..36) {
                pixels[y * w + x] = 20;
            }
        }
        let crop = GreyPixels::new(w as u32, h as u32, &pixels).expect("sizes agree");
        assert_eq!(word_gaps(crop), vec![(20, 26)]);
    }
}
