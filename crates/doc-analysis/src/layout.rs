//! Columns and reading order of a page's lines, shared by the text-layer and the OCR path.
//!
//! [`order_lines`] is a recursive split of the page:
//! 1. A blank horizontal strip of [`MIN_BLANK_ROW_EMS`] line heights across the whole region
//!    separates blocks that are read one after the other (the address area of an invoice from
//!    its item table).
//! 2. A *gutter* is a vertical strip of at least [`MIN_GUTTER_EMS`] line heights around a
//!    valley of the lines' x-projection; a few lines may reach into it (a short line of a
//!    full-width paragraph ending where the columns' gutter begins).
//! 3. Lines covering a gutter (headings, footers, full-width paragraphs) cut the region into
//!    horizontal bands; bands are read top to bottom, each crossing line (with the lines on its
//!    row) between the bands it separates.
//! 4. A band with two or more lines on each side of the gutter, the sides overlapping
//!    vertically, is split into columns there; columns are read left to right, each top to
//!    bottom (and split again, for nested layouts and further columns). Any other band is split
//!    again on its own.
//! 5. Side-by-side groups whose lines sit on common rows (similar heights, overlapping by 70 %;
//!    60 % of all lines have a partner) and one of which is narrow or holds several lines per
//!    row itself (a label column next to its values, the halves of an invoice's item table) are
//!    a form or a table, not text columns: they are read row by row, so `Währung:` stays next to
//!    `EUR`.
//!
//! Each step uses the one gutter that separates the most text (summed line heights of the
//! smaller side, over the bands where both sides hold text). A gap inside one column, or
//! between a block and a short line beside it, is crossed by most lines around it and separates
//! little; so is a gutter local to one block (between the labels and values of an invoice's
//! detail block), which then does not cut through the block beside it. Lines that need no
//! splitting are read in rows (top to bottom, left to right within a row).

use doc_model::Line;

/// Smallest gutter width, in median line heights.
pub const MIN_GUTTER_EMS: f64 = 0.8;

/// Smallest blank strip across a whole region that separates blocks, in median line heights
/// (paragraph spacing inside a column stays below it).
pub const MIN_BLANK_ROW_EMS: f64 = 2.0;

/// A side narrower than this share of the page width makes row-aligned groups a form.
const NARROW_SHARE: f64 = 0.25;

/// Share of lines with a partner on the same row (in another group) above which groups are
/// row-aligned.
const ROW_ALIGNED_SHARE: f64 = 0.6;

/// Lines more than a valley's own that may reach into a gutter around it (fewer when the text
/// beside the valley is only a few lines deep).
const GUTTER_TOLERANCE: i32 = 3;

/// Recursion guard: beyond this depth the remaining region is read in rows.
const MAX_DEPTH: u32 = 48;

/// Orders `lines` for reading and assigns each its column (`Line::order`, `Line::column`);
/// returns the lines in reading order and the number of text columns found (at least 1 when
/// there are lines, 0 for none). `page_width` is in the lines' own units (points or pixels).
/// Full-width lines and single-column regions are in column 0.
pub fn order_lines(lines: Vec<Line>, page_width: f64) -> (Vec<Line>, u32) {
    if lines.is_empty() {
        return (lines, 0);
    }
    let heights: Vec<f64> = lines.iter().map(|l| l.bbox.h).collect();
    let em = median(heights).filter(|h| *h > 0.0).unwrap_or(1.0);
    let mut ctx = OrderContext {
        min_gap: MIN_GUTTER_EMS * em,
        em,
        narrow: NARROW_SHARE * page_width.max(0.0),
        cuts: Vec::new(),
    };
    let mut out = Vec::with_capacity(lines.len());
    ctx.order_region(lines, false, 0, &mut out);
    let mut columns = 1;
    let ordered = out
        .into_iter()
        .enumerate()
        .map(|(i, (mut line, in_columns))| {
            line.order = u32::try_from(i).unwrap_or(u32::MAX);
            line.column = if in_columns { ctx.column_of(&line) } else { 0 };
            columns = columns.max(line.column.saturating_add(1));
            line
        })
        .collect();
    (ordered, columns)
}

struct OrderContext {
    min_gap: f64,
    em: f64,
    narrow: f64,
    /// Column splits made: gutter centre and the vertical extent of the split region.
    cuts: Vec<(f64, f64, f64)>,
}

/// A gutter: the x-interval of minimal coverage.
#[derive(Debug, Clone, Copy)]
struct Gutter {
    x0: f64,
    x1: f64,
}

impl OrderContext {
    /// A line's column: the column splits left of its centre within their region.
    fn column_of(&self, line: &Line) -> u32 {
        let (cx, cy) = (line.bbox.center_x(), line.bbox.center_y());
        let left = self
            .cuts
            .iter()
            .filter(|(x, top, bottom)| *x < cx && (*top..=*bottom).contains(&cy))
            .count();
        u32::try_from(left).unwrap_or(u32::MAX)
    }

    /// Orders one region; `in_columns` marks regions inside a column split. Splits at the
    /// gutter that separates the most text, so a gutter local to one block does not cut
    /// through its neighbours and a narrow gap inside a column loses to the column gutter.
    fn order_region(
        &mut self,
        lines: Vec<Line>,
        in_columns: bool,
        depth: u32,
        out: &mut Vec<(Line, bool)>,
    ) {
        if lines.len() < 4 || depth > MAX_DEPTH {
            emit_rows(lines, in_columns, out);
            return;
        }
        let slabs = self.split_at_blank_rows(lines);
        if slabs.len() > 1 {
            for slab in slabs {
                self.order_region(slab, in_columns, depth + 1, out);
            }
            return;
        }
        let lines = slabs.into_iter().flatten().collect::<Vec<_>>();
        let best = self
            .find_gutters(&lines)
            .into_iter()
            .map(|g| (separated_height(&lines, g), g))
            .filter(|(score, _)| *score > 0.0)
            .max_by(|(sa, a), (sb, b)| {
                sa.total_cmp(sb)
                    .then((a.x1 - a.x0).total_cmp(&(b.x1 - b.x0)))
            });
        let Some((_, gutter)) = best else {
            emit_rows(lines, in_columns, out);
            return;
        };
        let (spanning, bands) = split_into_bands(lines, gutter);
        let mut spanning = spanning.into_iter();
        for band in bands {
            self.order_band(band, gutter, in_columns, depth, out);
            if let Some(row) = spanning.next() {
                emit_rows(row, in_columns, out);
            }
        }
    }

    /// Orders one band between lines crossing `gutter`: text on both sides is split into
    /// columns at it (unless the sides form a form or table), anything else is a region of its
    /// own.
    fn order_band(
        &mut self,
        band: Band,
        gutter: Gutter,
        in_columns: bool,
        depth: u32,
        out: &mut Vec<(Line, bool)>,
    ) {
        let Band { left, right } = band;
        if !sides_face_each_other(&left, &right) {
            let lines = left.into_iter().chain(right).collect();
            self.order_region(lines, in_columns, depth + 1, out);
            return;
        }
        if self.is_form(&left, &right) {
            emit_rows(left.into_iter().chain(right).collect(), in_columns, out);
            return;
        }
        let (top, bottom) = vertical_span(left.iter().chain(&right));
        self.cuts.push(((gutter.x0 + gutter.x1) / 2.0, top, bottom));
        self.order_region(left, true, depth + 1, out);
        self.order_region(right, true, depth + 1, out);
    }

    /// Splits a region at blank horizontal strips of at least [`MIN_BLANK_ROW_EMS`] line
    /// heights that no line crosses: the blocks above and below are read one after the other.
    fn split_at_blank_rows(&self, mut lines: Vec<Line>) -> Vec<Vec<Line>> {
        lines.sort_by(|a, b| a.bbox.y.total_cmp(&b.bbox.y));
        let min_blank = MIN_BLANK_ROW_EMS * self.em;
        let mut slabs: Vec<Vec<Line>> = Vec::new();
        let mut bottom = f64::NEG_INFINITY;
        for line in lines {
            let line_bottom = line.bbox.bottom();
            match slabs.last_mut() {
                Some(slab) if line.bbox.y - bottom < min_blank => {
                    slab.push(line);
                    bottom = bottom.max(line_bottom);
                }
                _ => {
                    slabs.push(vec![line]);
                    bottom = line_bottom;
                }
            }
        }
        slabs
    }

    /// Candidate gutters of a region: vertical strips at least [`MIN_GUTTER_EMS`] line heights
    /// wide around each valley (local minimum) of the lines' x-projection, widened over
    /// neighbouring strips covered by up to [`GUTTER_TOLERANCE`] more lines (at most a third of
    /// the lower neighbouring peak's lines above the valley), so a few lines
    /// ending inside a gutter (a short line of a full-width block) do not hide it. Which lines
    /// cross a candidate and what it separates is judged by [`separated_height`].
    fn find_gutters(&self, lines: &[Line]) -> Vec<Gutter> {
        let mut events: Vec<(f64, i32)> = Vec::with_capacity(lines.len() * 2);
        for l in lines {
            if l.bbox.w > 0.0 {
                events.push((l.bbox.x, 1));
                events.push((l.bbox.right(), -1));
            }
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // Elementary intervals between consecutive event positions, with their coverage.
        let mut intervals: Vec<(f64, f64, i32)> = Vec::new();
        let mut count = 0;
        for pair in events.windows(2) {
            count += pair[0].1;
            if pair[1].0 > pair[0].0 {
                intervals.push((pair[0].0, pair[1].0, count));
            }
        }
        // Plateaus of equal coverage (merging touching intervals).
        let mut merged: Vec<(f64, f64, i32)> = Vec::new();
        for iv in intervals {
            match merged.last_mut() {
                Some(last) if last.2 == iv.2 && (last.1 - iv.0).abs() < EPS => last.1 = iv.1,
                _ => merged.push(iv),
            }
        }
        let mut gutters: Vec<Gutter> = Vec::new();
        for i in 1..merged.len().saturating_sub(1) {
            let floor = merged[i].2;
            if floor >= merged[i - 1].2 || floor >= merged[i + 1].2 {
                continue;
            }
            // A few lines reaching in are tolerated, but never a share of the text beside the
            // valley that could make up a column of its own.
            let peak = |range: &[(f64, f64, i32)]| range.iter().map(|iv| iv.2).max().unwrap_or(0);
            let lower_peak = peak(&merged[..i]).min(peak(&merged[i + 1..]));
            let most = GUTTER_TOLERANCE.min((lower_peak - floor) / 3);
            for tolerance in 0..=most {
                let within = |k: usize| merged[k].2 <= floor + tolerance;
                // The outermost plateaus reach the region's edges: no gutter there.
                let (mut first, mut last) = (i, i);
                while first > 1 && within(first - 1) {
                    first -= 1;
                }
                while last + 2 < merged.len() && within(last + 1) {
                    last += 1;
                }
                let gutter = Gutter {
                    x0: merged[first].0,
                    x1: merged[last].1,
                };
                let known = gutters
                    .iter()
                    .any(|g| (g.x0 - gutter.x0).abs() < EPS && (g.x1 - gutter.x1).abs() < EPS);
                if gutter.x1 - gutter.x0 >= self.min_gap && !known {
                    gutters.push(gutter);
                }
            }
        }
        gutters
    }

    /// Row-aligned sides, one of them narrow: a form or a table, read row by row.
    fn is_form(&self, left: &[Line], right: &[Line]) -> bool {
        let width = |side: &[Line]| {
            let x0 = side.iter().map(|l| l.bbox.x).fold(f64::INFINITY, f64::min);
            let x1 = side
                .iter()
                .map(|l| l.bbox.right())
                .fold(f64::NEG_INFINITY, f64::max);
            x1 - x0
        };
        // Two text columns hold one line per row each and are wide; a side that is narrow or
        // itself holds several lines per row (cells) belongs to a table or a form.
        let cells = |side: &[Line]| {
            side.iter().enumerate().any(|(i, l)| {
                side[i + 1..]
                    .iter()
                    .any(|o| same_row(o, l) && o.bbox.horizontal_overlap(&l.bbox) == 0.0)
            })
        };
        let tabular =
            width(left) < self.narrow || width(right) < self.narrow || cells(left) || cells(right);
        if !tabular {
            return false;
        }
        let aligned = |side: &[Line], other: &[Line]| {
            side.iter()
                .filter(|l| other.iter().any(|o| same_row(o, l)))
                .count()
        };
        let total = left.len() + right.len();
        (aligned(left, right) + aligned(right, left)) as f64 >= ROW_ALIGNED_SHARE * total as f64
    }
}

const EPS: f64 = 1e-6;

/// Two lines of one table or form row: similar heights (a label in small print next to an
/// address line in body text is not a row) mostly overlapping vertically.
fn same_row(a: &Line, b: &Line) -> bool {
    let (ha, hb) = (a.bbox.h, b.bbox.h);
    ha > 0.0
        && hb > 0.0
        && ha.min(hb) / ha.max(hb) >= 0.8
        && a.bbox.vertical_overlap(&b.bbox) >= 0.7
}

/// The lines of a band between two lines crossing a gutter, by side.
struct Band {
    left: Vec<Line>,
    right: Vec<Line>,
}

/// A line crosses a gutter when it covers all of it; lines reaching only into it belong to
/// the side of their centre.
fn crosses(line: &Line, gutter: Gutter) -> bool {
    line.bbox.x < gutter.x0 + EPS && line.bbox.right() > gutter.x1 - EPS
}

/// Cuts a region at the lines crossing `gutter` (top to bottom) into the bands between them,
/// each with its lines left and right of the gutter. Each crossing line comes with the lines
/// on its row (a total's label crossing the gutter and its amount), read with it, so a row is
/// not torn between two bands. There is one band more than crossing rows.
fn split_into_bands(lines: Vec<Line>, gutter: Gutter) -> (Vec<Vec<Line>>, Vec<Band>) {
    let (mut spanning, rest): (Vec<Line>, Vec<Line>) =
        lines.into_iter().partition(|l| crosses(l, gutter));
    spanning.sort_by(|a, b| a.bbox.center_y().total_cmp(&b.bbox.center_y()));
    let mut bands: Vec<Band> = (0..=spanning.len())
        .map(|_| Band {
            left: Vec::new(),
            right: Vec::new(),
        })
        .collect();
    let mut rows: Vec<Vec<Line>> = Vec::with_capacity(spanning.len());
    let middle = (gutter.x0 + gutter.x1) / 2.0;
    let mut on_rows: Vec<Vec<Line>> = spanning.iter().map(|_| Vec::new()).collect();
    for line in rest {
        if let Some(row) = spanning.iter().position(|s| joins_row(s, &line)) {
            on_rows[row].push(line);
            continue;
        }
        let index = spanning
            .iter()
            .take_while(|s| s.bbox.center_y() < line.bbox.center_y())
            .count();
        let band = &mut bands[index];
        if line.bbox.center_x() < middle {
            band.left.push(line);
        } else {
            band.right.push(line);
        }
    }
    for (line, mut mates) in spanning.into_iter().zip(on_rows) {
        mates.push(line);
        rows.push(mates);
    }
    (rows, bands)
}

/// Two or more lines on each side of a gutter, the sides overlapping vertically: text the
/// gutter separates.
fn sides_face_each_other(left: &[Line], right: &[Line]) -> bool {
    if left.len() < 2 || right.len() < 2 {
        return false;
    }
    let (lt, lb) = vertical_span(left);
    let (rt, rb) = vertical_span(right);
    lb.min(rb) - lt.max(rt) > 0.0
}

/// How much text a gutter separates: over the bands between the lines crossing it, the sum
/// of the smaller side's line heights where both sides hold text. A gap inside one column is
/// crossed by most of that column's lines, which leaves bands of a line or two and a score
/// near 0; the gutter between two columns is crossed only by full-width lines above and below
/// them.
fn separated_height(lines: &[Line], gutter: Gutter) -> f64 {
    let (_, bands) = split_into_bands(lines.to_vec(), gutter);
    let height = |side: &[Line]| side.iter().map(|l| l.bbox.h).sum::<f64>();
    bands
        .iter()
        .filter(|b| sides_face_each_other(&b.left, &b.right))
        .map(|b| height(&b.left).min(height(&b.right)))
        .sum()
}

/// Top of the highest and bottom of the lowest line.
fn vertical_span<'a>(lines: impl IntoIterator<Item = &'a Line>) -> (f64, f64) {
    lines
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(t, b), l| {
            (t.min(l.bbox.y), b.max(l.bbox.bottom()))
        })
}

/// Reads lines in rows: top to bottom, left to right within a row. A line joins the row of the
/// line that opened it when they overlap vertically by half the smaller height and neither is
/// more than 2.5 times as tall as the other (a line of vertical text does not swallow the rows
/// it runs past).
fn emit_rows(mut lines: Vec<Line>, in_columns: bool, out: &mut Vec<(Line, bool)>) {
    lines.sort_by(|a, b| {
        a.bbox
            .y
            .total_cmp(&b.bbox.y)
            .then(a.bbox.x.total_cmp(&b.bbox.x))
    });
    let mut row: Vec<Line> = Vec::new();
    for line in lines {
        if !row.first().is_some_and(|first| joins_row(first, &line)) {
            flush_row(&mut row, in_columns, out);
        }
        row.push(line);
    }
    flush_row(&mut row, in_columns, out);
}

/// `line` is read on the row of `first`: they overlap vertically by half the smaller height
/// and neither is more than 2.5 times as tall as the other.
fn joins_row(first: &Line, line: &Line) -> bool {
    let (a, b) = (first.bbox.h, line.bbox.h);
    a.min(b) > 0.0 && a.max(b) <= 2.5 * a.min(b) && first.bbox.vertical_overlap(&line.bbox) >= 0.5
}

fn flush_row(row: &mut Vec<Line>, in_columns: bool, out: &mut Vec<(Line, bool)>) {
    row.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
    out.extend(row.drain(..).map(|l| (l, in_columns)));
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[values.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use doc_model::{Confidence, PageBox, Word};
    use proptest::prelude::*;

    fn line(text: &str, x: f64, y: f64, w: f64) -> Line {
        let word = Word {
            text: text.into(),
            bbox: PageBox::from_edges(1, x, y, x + w, y + 10.0),
            confidence: Confidence::CERTAIN,
        };
        Line::from_words(vec![word], Some(10.0)).expect("one word")
    }

    fn texts(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// Heading, two columns on common baselines, footer.
    fn two_column_page() -> Vec<Line> {
        let mut lines = vec![line("Heading", 50.0, 40.0, 495.0)];
        for i in 0..5 {
            let y = 80.0 + 14.0 * i as f64;
            lines.push(line(&format!("L{i}"), 50.0, y, 230.0));
            lines.push(line(&format!("R{i}"), 315.0, y, 230.0));
        }
        lines.push(line("Footer", 50.0, 800.0, 495.0));
        lines
    }

    #[test]
    fn two_columns_do_not_interleave() {
        let mut input = two_column_page();
        input.reverse();
        let (lines, columns) = order_lines(input, 595.0);
        assert_eq!(columns, 2);
        assert_eq!(
            texts(&lines),
            [
                "Heading", "L0", "L1", "L2", "L3", "L4", "R0", "R1", "R2", "R3", "R4", "Footer"
            ]
        );
        let orders: Vec<u32> = lines.iter().map(|l| l.order).collect();
        assert_eq!(orders, (0..12).collect::<Vec<u32>>());
        let cols: Vec<u32> = lines.iter().map(|l| l.column).collect();
        assert_eq!(cols, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0]);
    }

    /// The shape of a scanned brochure: a full-width intro (one of its lines ending inside the
    /// gutter, short last lines of its paragraphs), two columns with headings, a full-width
    /// list below and an address block at the bottom right.
    #[test]
    fn columns_between_full_width_blocks_with_short_lines() {
        let mut input = vec![
            line("Title", 150.0, 20.0, 300.0),
            line("Intro0", 50.0, 50.0, 500.0),
            line("Intro1", 60.0, 64.0, 240.0),
            line("Intro2", 50.0, 78.0, 480.0),
            line("Intro3", 60.0, 92.0, 50.0),
            line("Intro4", 50.0, 106.0, 266.0),
            line("Intro5", 50.0, 120.0, 100.0),
            line("LeftHead", 50.0, 140.0, 80.0),
            line("RightHead", 320.0, 140.0, 120.0),
        ];
        for i in 0..8 {
            let y = 154.0 + 14.0 * i as f64;
            let width = if i == 7 { 120.0 } else { 230.0 };
            input.push(line(&format!("L{i}"), 50.0, y, width));
            input.push(line(&format!("R{i}"), 320.0, y + 3.0, width - 5.0));
        }
        input.extend([
            line("Outro0", 50.0, 280.0, 490.0),
            line("Outro1", 60.0, 294.0, 150.0),
            line("Outro2", 50.0, 308.0, 400.0),
            line("Addr0", 380.0, 328.0, 150.0),
            line("Addr1", 380.0, 342.0, 160.0),
            line("Addr2", 380.0, 356.0, 140.0),
        ]);
        input.reverse();
        let (lines, columns) = order_lines(input, 600.0);
        assert_eq!(columns, 2);
        let left: Vec<String> = (0..8).map(|i| format!("L{i}")).collect();
        let right: Vec<String> = (0..8).map(|i| format!("R{i}")).collect();
        let mut expected: Vec<&str> = vec![
            "Title", "Intro0", "Intro1", "Intro2", "Intro3", "Intro4", "Intro5", "LeftHead",
        ];
        expected.extend(left.iter().map(String::as_str));
        expected.push("RightHead");
        expected.extend(right.iter().map(String::as_str));
        expected.extend(["Outro0", "Outro1", "Outro2", "Addr0", "Addr1", "Addr2"]);
        assert_eq!(texts(&lines), expected);
        let column_of = |text: &str| lines.iter().find(|l| l.text == text).map(|l| l.column);
        assert_eq!(column_of("L3"), Some(0));
        assert_eq!(column_of("R3"), Some(1));
        assert_eq!(column_of("Intro0"), Some(0));
    }

    /// A line crossing the chosen gutter takes the lines on its row with it: a total's amount
    /// is read after its label, not in the band above it.
    #[test]
    fn a_crossing_line_keeps_its_row() {
        let mut input = Vec::new();
        for i in 0..4 {
            let y = 100.0 + 14.0 * i as f64;
            input.push(line(&format!("L{i}"), 50.0, y, 230.0));
            input.push(line(&format!("R{i}"), 315.0, y, 230.0));
        }
        input.push(line("Total label", 50.0, 170.0, 300.0));
        input.push(line("99,00", 500.0, 169.5, 45.0));
        let (lines, _) = order_lines(input, 595.0);
        let texts = texts(&lines);
        let at = |t: &str| texts.iter().position(|x| *x == t).expect(t);
        assert_eq!(at("Total label") + 1, at("99,00"));
        assert!(at("R3") < at("Total label"));
    }

    #[test]
    fn heading_between_two_column_bands_orders_the_bands() {
        let mut input = Vec::new();
        for band in 0..2 {
            let top = 100.0 + 300.0 * band as f64;
            input.push(line(&format!("H{band}"), 50.0, top - 30.0, 495.0));
            for i in 0..3 {
                let y = top + 14.0 * i as f64;
                input.push(line(&format!("L{band}{i}"), 50.0, y, 230.0));
                input.push(line(&format!("R{band}{i}"), 315.0, y, 230.0));
            }
        }
        let (lines, columns) = order_lines(input, 595.0);
        assert_eq!(columns, 2);
        assert_eq!(
            texts(&lines),
            [
                "H0", "L00", "L01", "L02", "R00", "R01", "R02", "H1", "L10", "L11", "L12", "R10",
                "R11", "R12"
            ]
        );
    }

    #[test]
    fn label_value_form_is_read_row_by_row() {
        let input = vec![
            line("Rechnungsnr.:", 50.0, 100.0, 60.0),
            line("2024-001", 200.0, 100.0, 50.0),
            line("Datum:", 50.0, 114.0, 30.0),
            line("01.03.2024", 200.0, 114.0, 50.0),
            line("Währung:", 50.0, 128.0, 40.0),
            line("EUR", 200.0, 128.0, 20.0),
        ];
        let (lines, columns) = order_lines(input, 595.0);
        assert_eq!(columns, 1);
        assert_eq!(
            texts(&lines),
            [
                "Rechnungsnr.:",
                "2024-001",
                "Datum:",
                "01.03.2024",
                "Währung:",
                "EUR"
            ]
        );
    }

    #[test]
    fn single_column_is_top_to_bottom() {
        let input = vec![
            line("third", 50.0, 128.0, 400.0),
            line("first", 50.0, 100.0, 400.0),
            line("second", 50.0, 114.0, 120.0),
            line("fourth", 50.0, 142.0, 300.0),
        ];
        let (lines, columns) = order_lines(input, 595.0);
        assert_eq!(columns, 1);
        assert_eq!(texts(&lines), ["first", "second", "third", "fourth"]);
    }

    #[test]
    fn empty_input() {
        let (lines, columns) = order_lines(Vec::new(), 595.0);
        assert!(lines.is_empty());
        assert_eq!(columns, 0);
    }

    proptest! {
        /// Whatever the boxes, every line comes back exactly once with orders 0..n.
        #[test]
        fn order_is_a_permutation(
            boxes in proptest::collection::vec((0.0..600.0f64, 0.0..800.0f64, 1.0..300.0f64, 1.0..20.0f64), 0..40)
        ) {
            let input: Vec<Line> = boxes
                .iter()
                .enumerate()
                .map(|(i, (x, y, w, h))| {
                    let word = Word {
                        text: i.to_string(),
                        bbox: PageBox::from_edges(1, *x, *y, x + w, y + h),
                        confidence: Confidence::CERTAIN,
                    };
                    Line::from_words(vec![word], None).expect("one word")
                })
                .collect();
            let n = input.len();
            let (lines, columns) = order_lines(input, 600.0);
            prop_assert_eq!(lines.len(), n);
            prop_assert!(n == 0 || columns >= 1);
            let mut seen: Vec<usize> = lines.iter().map(|l| l.text.parse::<usize>().unwrap_or(usize::MAX)).collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..n).collect::<Vec<_>>());
            for (i, l) in lines.iter().enumerate() {
                prop_assert_eq!(l.order as usize, i);
                prop_assert!(l.column < columns.max(1));
            }
        }
    }
}
