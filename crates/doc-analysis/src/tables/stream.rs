//! Whitespace tables (no rulings): runs of rows whose segments line up in columns.
//!
//! The rules, in order:
//! - A run is a sequence of rows of at least two segments, each close to the one above
//!   ([`ROW_GAP`]); up to [`MAX_HEADING_ROWS`] consecutive rows of one segment inside it (section
//!   headings, group labels) belong to the table as rows of their own, a heading that reaches
//!   across several columns as one merged cell. They never end a table; above its first full
//!   row up to [`MAX_LEADING_ROWS`] of them start it when each lies inside one column and is
//!   aligned with that column's left or right edge (a title, a year over right-aligned
//!   figures), within [`ROW_GAP`] of the row below.
//! - A last row whose text is one cell, in one column or across several, is a note under the
//!   table (a footnote's mark and text), not a row of it.
//! - Exactly three interleaved header lines (each overlapping the next vertically), the outer
//!   two filling the same columns and the middle one only columns they leave empty: the middle
//!   line holds single-line labels centred beside two-line ones and joins the upper line.
//! - A run after a wider space (up to [`SECTION_GAP`] glyph heights, a new section of a price
//!   list) continues the run above when both have the same number of columns, each overlapping
//!   its counterpart; the first run needs three rows of at least two segments.
//! - Columns come from the whole run: the x-ranges covered by the segments of more than a tenth
//!   of the rows with the most common segment count (so a few cells running across a gutter do
//!   not join two columns the other rows keep apart), then every segment of a fuller row that
//!   falls between those columns adds a column (a column only some rows fill, such as a header
//!   over narrow data).
//! - A narrow gutter: a column is split where, in most of its rows, words stand on both sides
//!   of an x-range that (almost) no word crosses and that is clearly wider than the table's
//!   ordinary space between words (the word-gap distribution), or, at any width, where the
//!   rows show a column edge running text cannot make (the words before it end at one x while
//!   their starts differ: right-aligned figures; or the words after it start at one x while the
//!   words before end at different places); then a segment reaching across
//!   a gap between two columns is split there when its own word gap at that place is that wide;
//!   text with ordinary spaces across the gap is one spanning cell.
//! - Cells over several lines: a row whose first cell is empty continues the row above when it
//!   is set closer to it than the table's records are to each other (the median gap above rows
//!   that start a record), each of its pieces stays inside one column under a cell of that
//!   column alone, and the row above is not the table's first row (a header's stacked labels
//!   often span columns: they stay rows of their own). With evenly spaced rows nothing is
//!   joined, since which row such a line belongs to is then not shown by the layout.

use doc_model::{Method, PageBox, Table, TableMethod, Word};

use super::cell;
use crate::segments::{Segment, segments};

/// Rows closer than this many glyph heights continue a table.
const ROW_GAP: f64 = 2.5;
/// Rows this many glyph heights apart still join two sections of one table (same columns).
const SECTION_GAP: f64 = 4.0;
/// Most consecutive one-segment rows (headings) kept inside a table.
const MAX_HEADING_ROWS: usize = 2;
/// Most one-segment rows (a title, column headings) taken in above a table's first full row.
const MAX_LEADING_ROWS: usize = 4;
/// A word gap this many times the table's ordinary space splits a segment at a column gutter.
const GUTTER_GAP: f64 = 2.0;
/// A row continues the one above when its gap is below this share of the record spacing.
const CONTINUATION_GAP: f64 = 0.6;

/// An x-range, left and right.
type Span = (f64, f64);

/// One row of a candidate table: its segments (left to right), owned so they can be split.
type Row<'a> = Vec<Segment<'a>>;

/// Alignment tables: runs of rows with at least two segments whose columns line up.
pub(super) fn alignment_tables(
    page: &doc_model::Page,
    source: Method,
    taken: &[PageBox],
) -> Vec<Table> {
    let segs: Vec<Segment<'_>> = segments(page)
        .into_iter()
        .filter(|s| !taken.iter().any(|t| t.contains_center_of(&s.bbox)))
        .collect();
    // `segments` sorts by row: one pass groups them (a filter per row was quadratic).
    let rows: Vec<Row<'_>> = segs
        .chunk_by(|a, b| a.row == b.row)
        .map(<[Segment<'_>]>::to_vec)
        .collect();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        if rows[start].len() < 2 {
            start += 1;
            continue;
        }
        // Grow the run; one-segment rows only count when a fuller row follows them.
        let mut last_full = start;
        let mut next = start + 1;
        while next < rows.len() {
            if gap_in_heights(&rows[next - 1], &rows[next]) > ROW_GAP {
                break;
            }
            if rows[next].len() >= 2 {
                last_full = next;
            } else if next - last_full > MAX_HEADING_ROWS {
                break;
            }
            next += 1;
        }
        let end = last_full + 1;
        // A section of the same table after a wider space: the same columns, close enough.
        match runs.last_mut() {
            Some(last) if continues_section(&rows, *last, (start, end)) => last.1 = end,
            _ => {
                let floor = runs.last().map_or(0, |r| r.1);
                runs.push((leading_rows(&rows, floor, (start, end)), end));
            }
        }
        start = end;
    }
    runs.into_iter()
        .filter_map(|(start, end)| alignment_table(page.page, source, &rows[start..end]))
        .collect()
}

/// Where a run starts once the title and column-heading lines set just above it are taken in
/// (see the module's rules): up to [`MAX_LEADING_ROWS`] one-segment rows, none above `floor`,
/// each within [`ROW_GAP`] of the row below it, inside one of the run's columns and aligned
/// with its left or right edge.
fn leading_rows(rows: &[Row<'_>], floor: usize, run: (usize, usize)) -> usize {
    let full: Vec<&Row<'_>> = rows[run.0..run.1].iter().filter(|r| r.len() >= 2).collect();
    if full.len() < 3 {
        return run.0;
    }
    let Some(columns) = columns_of(&full) else {
        return run.0;
    };
    let mut start = run.0;
    while start > floor && run.0 - start < MAX_LEADING_ROWS {
        let above = &rows[start - 1];
        let [segment] = above.as_slice() else { break };
        let aligned = column_range(&columns, &segment.bbox).is_some_and(|(a, b)| {
            // Aligned as the column's own cells are (a label at its start, a heading over
            // right-aligned figures at its end), not merely near it.
            let tolerance = 0.15 * segment.height();
            a == b
                && ((segment.bbox.x - columns[a].0).abs() <= tolerance
                    || (segment.bbox.right() - columns[a].1).abs() <= tolerance)
        });
        if !aligned || gap_in_heights(above, &rows[start]) > ROW_GAP {
            break;
        }
        start -= 1;
    }
    start
}

/// The space between two rows in glyph heights of the upper one.
fn gap_in_heights(upper: &Row<'_>, lower: &Row<'_>) -> f64 {
    (row_box(lower).y - row_box(upper).bottom()) / upper[0].height()
}

/// Whether the run `next` continues the run `last` as a further section: at most
/// [`MAX_HEADING_ROWS`] one-segment rows between them, no space wider than [`SECTION_GAP`]
/// glyph heights, and the same number of columns, each overlapping its counterpart.
fn continues_section(rows: &[Row<'_>], last: (usize, usize), next: (usize, usize)) -> bool {
    if next.0 < last.1 || next.0 - last.1 > MAX_HEADING_ROWS {
        return false;
    }
    if (last.1 - 1..next.0).any(|i| gap_in_heights(&rows[i], &rows[i + 1]) > SECTION_GAP) {
        return false;
    }
    let full = |range: (usize, usize)| -> Vec<&Row<'_>> {
        rows[range.0..range.1]
            .iter()
            .filter(|r| r.len() >= 2)
            .collect()
    };
    let (a, b) = (full(last), full(next));
    if a.len() < 3 || b.is_empty() {
        return false;
    }
    match (columns_of(&a), columns_of(&b)) {
        (Some(ca), Some(cb)) => {
            ca.len() >= 2
                && ca.len() == cb.len()
                && ca.iter().zip(&cb).all(|(x, y)| x.0 < y.1 && y.0 < x.1)
        }
        _ => false,
    }
}

fn row_box(row: &[Segment<'_>]) -> PageBox {
    PageBox::union_all(row.iter().map(|s| &s.bbox)).unwrap_or(row[0].bbox)
}

/// Column intervals from the whole run (see the module's rules).
fn columns_of(full: &[&Row<'_>]) -> Option<Vec<(f64, f64)>> {
    let max_segments = full.iter().map(|r| r.len()).max()?;
    let mut counts = vec![0usize; max_segments + 1];
    for r in full {
        counts[r.len()] += 1;
    }
    let typical = (2..=max_segments).max_by_key(|n| (counts[*n], *n))?;
    let typical_rows: Vec<&&Row<'_>> = full.iter().filter(|r| r.len() == typical).collect();
    let mut columns = covered_runs(
        typical_rows
            .iter()
            .flat_map(|r| r.iter().map(|s| (s.bbox.x, s.bbox.right()))),
        typical_rows.len() / 10,
    );
    // Fuller rows: a segment between the columns found so far is a column of its own.
    let mut extra: Vec<(f64, f64)> = full
        .iter()
        .filter(|r| r.len() > typical)
        .flat_map(|r| r.iter())
        .filter(|s| column_range(&columns, &s.bbox).is_none())
        .map(|s| (s.bbox.x, s.bbox.right()))
        .collect();
    if !extra.is_empty() {
        extra.extend(columns.iter().copied());
        columns = merge(&mut extra);
    }
    Some(columns)
}

/// The x-ranges covered by more than `tolerance` of the intervals, so that a few cells reaching
/// across a gutter (a long name running into the next column) do not join two columns the other
/// rows keep apart. With no tolerance this is the union of the intervals.
fn covered_runs(intervals: impl Iterator<Item = (f64, f64)>, tolerance: usize) -> Vec<(f64, f64)> {
    // Sweep over the interval ends: +1 at a start, -1 at an end.
    let mut events: Vec<(f64, i64)> = intervals
        .filter(|(a, b)| a.is_finite() && b.is_finite() && b >= a)
        .flat_map(|(a, b)| [(a, 1), (b, -1)])
        .collect();
    // Ends before starts at one x: touching intervals are not joined.
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut depth = 0i64;
    let mut start = None;
    let limit = tolerance as i64;
    for (x, step) in events {
        let before = depth;
        depth += step;
        if before <= limit && depth > limit {
            start = Some(x);
        } else if before > limit
            && depth <= limit
            && let Some(s) = start.take()
        {
            out.push((s, x));
        }
    }
    out
}

/// Overlapping intervals merged, left to right.
fn merge(intervals: &mut [(f64, f64)]) -> Vec<(f64, f64)> {
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for &(x0, x1) in intervals.iter() {
        match out.last_mut() {
            Some(last) if x0 <= last.1 => last.1 = last.1.max(x1),
            _ => out.push((x0, x1)),
        }
    }
    out
}

/// The table's ordinary space between words: the median of the gaps between neighbouring words
/// of one segment narrower than 0.6 glyph heights (justified text stays below it; wider gaps are the candidates
/// for gutters), or a quarter of the glyph height when no segment has such a gap.
fn ordinary_space(rows: &[Row<'_>]) -> f64 {
    let mut gaps: Vec<f64> = Vec::new();
    let mut heights: Vec<f64> = Vec::new();
    for s in rows.iter().flatten() {
        let height = s.height();
        heights.push(height);
        gaps.extend(
            s.words
                .windows(2)
                .map(|w| w[1].bbox.x - w[0].bbox.right())
                .filter(|g| g.is_finite() && *g >= 0.0 && *g < 0.6 * height),
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    median(&mut gaps)
        .or_else(|| median(&mut heights).map(|h| 0.25 * h))
        .unwrap_or(2.5)
}

/// Splits columns at narrow gutters no row shows as a segment gap: an x-range inside a column,
/// at least `wide` across or a column edge (see [`column_edge`]) of any width, that the words of
/// at most a tenth of the fuller rows cross (a title or a spanning cell may), with words on both
/// sides in most (three fifths, and at least three) of the rows that have text in the column.
/// Returns the columns and the column-edge gutters (a word gap across those splits a segment
/// whatever its width).
fn split_columns(full: &[&Row<'_>], columns: Vec<(f64, f64)>, wide: f64) -> (Vec<Span>, Vec<Span>) {
    let mut out = Vec::with_capacity(columns.len());
    let mut aligned_gaps = Vec::new();
    for (c, &(x0, x1)) in columns.iter().enumerate() {
        // Per row, the words of its segments that reach into this column.
        let row_words: Vec<Vec<&Word>> = full
            .iter()
            .map(|r| {
                r.iter()
                    .filter(|s| {
                        column_range(&columns, &s.bbox).is_some_and(|(a, b)| a <= c && c <= b)
                    })
                    .flat_map(|s| s.words.iter().copied())
                    .filter(|w| w.bbox.right() > x0 && w.bbox.x < x1)
                    .collect::<Vec<&Word>>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        let width = (x1 - x0).ceil();
        if row_words.len() < 3 || !(1.0..=10_000.0).contains(&width) {
            out.push((x0, x1));
            continue;
        }
        // Rows covering each point of the column, one point apart.
        let mut cover = vec![0usize; width as usize + 1];
        for words in &row_words {
            let mut covered = vec![false; cover.len()];
            for w in words {
                let a = ((w.bbox.x - x0).max(0.0)).floor() as usize;
                let b = (((w.bbox.right() - x0).ceil()) as usize).min(cover.len() - 1);
                for flag in covered.iter_mut().take(b + 1).skip(a) {
                    *flag = true;
                }
            }
            for (count, flag) in cover.iter_mut().zip(covered) {
                *count += usize::from(flag);
            }
        }
        let tolerance = row_words.len() / 10;
        let mut left = x0;
        let mut i = 0;
        while i < cover.len() {
            if cover[i] > tolerance {
                i += 1;
                continue;
            }
            let start = i;
            while i < cover.len() && cover[i] <= tolerance {
                i += 1;
            }
            let (gap0, gap1) = (x0 + start as f64, x0 + i as f64 - 1.0);
            if start == 0 || i == cover.len() {
                continue;
            }
            // Per row with words on both sides: the word ending last before the gap and the
            // word starting first after it.
            let sides: Vec<(&Word, &Word)> = row_words
                .iter()
                .filter_map(|words| {
                    let before = words
                        .iter()
                        .filter(|w| w.bbox.right() <= gap0 + 1.0)
                        .max_by(|a, b| a.bbox.right().total_cmp(&b.bbox.right()))?;
                    let after = words
                        .iter()
                        .filter(|w| w.bbox.x >= gap1 - 1.0)
                        .min_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x))?;
                    Some((*before, *after))
                })
                .collect();
            let straddling = sides.len();
            let aligned = gap1 >= gap0 && column_edge(&sides);
            if (gap1 - gap0 >= wide || aligned)
                && straddling >= 3
                && straddling * 5 >= row_words.len() * 3
            {
                out.push((left, gap0));
                left = gap1;
                if aligned {
                    aligned_gaps.push((gap0, gap1));
                }
            }
        }
        out.push((left, x1));
    }
    (out, aligned_gaps)
}

/// Whether the words on either side of a gap show a column edge that running text cannot:
/// the words before it end at one x while their starts differ (right-aligned figures), or the
/// words after it start at one x while the words before end at different places (a
/// left-aligned column after cells of varying width). A word repeated in every row (the same
/// first word of each name) aligns both its ends and shows neither.
fn column_edge(sides: &[(&Word, &Word)]) -> bool {
    if sides.len() < 3 {
        return false;
    }
    // Rows within a point of the median, and rows more than two points off it.
    let spread = |values: Vec<f64>| -> (usize, usize) {
        let mut v = values;
        v.sort_by(f64::total_cmp);
        let median = v[v.len() / 2];
        let near = v.iter().filter(|x| (**x - median).abs() <= 1.0).count();
        let off = v.iter().filter(|x| (**x - median).abs() > 2.0).count();
        (near, off)
    };
    let n = sides.len();
    let aligned = |near: usize| near * 5 >= n * 4;
    // Varying in earnest: a few rows, not one odd cell.
    let varied = |off: usize| off >= 2 && off * 10 >= n;
    let (ends_near, ends_off) = spread(sides.iter().map(|(b, _)| b.bbox.right()).collect());
    let (_, starts_off) = spread(sides.iter().map(|(b, _)| b.bbox.x).collect());
    let (after_near, _) = spread(sides.iter().map(|(_, a)| a.bbox.x).collect());
    (aligned(ends_near) && varied(starts_off)) || (aligned(after_near) && varied(ends_off))
}

/// Splits segments at narrow gutters: between two words lying on either side of a gap between
/// columns, when that word gap is wide for this table.
fn split_at_gutters<'a>(
    row: Row<'a>,
    columns: &[(f64, f64)],
    wide: f64,
    aligned_gaps: &[(f64, f64)],
) -> Row<'a> {
    let mut out = Vec::with_capacity(row.len());
    for seg in row {
        let spans = column_range(columns, &seg.bbox).is_some_and(|(a, b)| a < b);
        if !spans || seg.words.len() < 2 {
            out.push(seg);
            continue;
        }
        let mut current: Vec<&'a Word> = Vec::new();
        for word in &seg.words {
            if let Some(last) = current.last() {
                let gap = word.bbox.x - last.bbox.right();
                // The gap between the two words overlaps the gutter between two columns.
                let across = columns
                    .windows(2)
                    .any(|c| last.bbox.right() < c[1].0 && word.bbox.x > c[0].1);
                // A column edge the rows align on splits at any word gap across it.
                let edge = aligned_gaps
                    .iter()
                    .any(|g| last.bbox.right() <= g.0 + 1.0 && word.bbox.x >= g.1 - 1.0);
                if (gap >= wide && across) || edge {
                    push(&mut out, seg.row, std::mem::take(&mut current));
                }
            }
            current.push(word);
        }
        push(&mut out, seg.row, current);
    }
    out
}

fn push<'a>(out: &mut Row<'a>, row: usize, words: Vec<&'a Word>) {
    if let Some(bbox) = PageBox::union_all(words.iter().map(|w| &w.bbox)) {
        out.push(Segment { row, words, bbox });
    }
}

fn alignment_table(page: u32, source: Method, rows: &[Row<'_>]) -> Option<Table> {
    let full: Vec<&Row<'_>> = rows.iter().filter(|r| r.len() >= 2).collect();
    if full.len() < 3 {
        return None;
    }
    // A list of `Label: value` pairs is key-values, not a table.
    let labelled = full
        .iter()
        .filter(|r| r[0].words.last().is_some_and(|w| w.text.ends_with(':')))
        .count();
    if labelled * 2 >= full.len() {
        return None;
    }
    let columns = columns_of(&full)?;
    if columns.len() < 2 {
        return None;
    }
    // Rows must agree: most segments of the fuller rows fall into a single column.
    let total: usize = full.iter().map(|r| r.len()).sum();
    let aligned = full
        .iter()
        .flat_map(|r| r.iter())
        .filter(|s| column_range(&columns, &s.bbox).is_some_and(|(a, b)| a == b))
        .count();
    if aligned * 3 < total * 2 {
        return None;
    }
    let wide = GUTTER_GAP * ordinary_space(rows).max(0.5);
    let (columns, aligned_gaps) = split_columns(&full, columns, wide);
    let rows: Vec<Row<'_>> = rows
        .iter()
        .map(|r| split_at_gutters(r.clone(), &columns, wide, &aligned_gaps))
        .collect();
    let mut rows = join_centred_labels(rows, &columns);
    // A last row whose text is one cell (in one column or across several) is a note under
    // the table (a footnote's mark and text), as a one-segment row would be.
    while rows.len() > 3 && rows.last().is_some_and(|row| one_cell(row, &columns)) {
        rows.pop();
    }
    let rows = join_continuations(rows, &columns);
    let cols = columns.len();
    let mut cells = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let rb = row_box(row);
        let mut used = vec![false; cols];
        let mut placed: Vec<(usize, usize, Vec<&Word>)> = Vec::new();
        for s in row {
            let Some((c0, c1)) =
                column_range(&columns, &s.bbox).or_else(|| nearest_column(&columns, &s.bbox))
            else {
                continue;
            };
            if let Some(existing) = placed.iter_mut().find(|p| p.0 <= c1 && c0 <= p.1) {
                existing.0 = existing.0.min(c0);
                existing.1 = existing.1.max(c1);
                existing.2.extend(s.words.iter().copied());
            } else {
                placed.push((c0, c1, s.words.clone()));
            }
        }
        for (c0, c1, words) in &placed {
            for u in used.iter_mut().take(c1 + 1).skip(*c0) {
                *u = true;
            }
            let bbox = PageBox::from_edges(page, columns[*c0].0, rb.y, columns[*c1].1, rb.bottom());
            cells.push(cell(
                r as u32,
                *c0 as u32,
                1,
                (c1 - c0 + 1) as u32,
                bbox,
                words,
            ));
        }
        for (c, u) in used.iter().enumerate() {
            if !u {
                let bbox = PageBox::from_edges(page, columns[c].0, rb.y, columns[c].1, rb.bottom());
                cells.push(cell(r as u32, c as u32, 1, 1, bbox, &[]));
            }
        }
    }
    Table::new(
        page,
        TableMethod::Alignment,
        source,
        rows.len() as u32,
        cols as u32,
        cells,
    )
}

/// The first column a row's text starts in.
fn first_column(row: &Row<'_>, columns: &[(f64, f64)]) -> Option<usize> {
    row.iter()
        .filter_map(|s| column_range(columns, &s.bbox).or_else(|| nearest_column(columns, &s.bbox)))
        .map(|(c0, _)| c0)
        .min()
}

/// Joins the rows that continue a multi-line cell into the row above (see the module's rules).
fn join_continuations<'a>(rows: Vec<Row<'a>>, columns: &[(f64, f64)]) -> Vec<Row<'a>> {
    let starts: Vec<bool> = rows
        .iter()
        .map(|r| first_column(r, columns) == Some(0))
        .collect();
    let gap = |a: &Row<'_>, b: &Row<'_>| row_box(b).y - row_box(a).bottom();
    let mut record_gaps: Vec<f64> = rows
        .windows(2)
        .zip(starts.windows(2))
        .filter(|(_, s)| s[1])
        .map(|(r, _)| gap(&r[0], &r[1]))
        .collect();
    if record_gaps.len() < 2 {
        return rows;
    }
    record_gaps.sort_by(f64::total_cmp);
    let spacing = record_gaps[record_gaps.len() / 2];
    let mut out: Vec<Row<'a>> = Vec::with_capacity(rows.len());
    let mut previous_starts = false;
    for (row, starts) in rows.into_iter().zip(starts) {
        // Not into the first row (a header's stacked labels often span columns), and only text
        // that stays inside one column under a cell of one column.
        let continues = !starts
            && previous_starts
            && out.len() >= 2
            && out.last().is_some_and(|above| {
                gap(above, &row) < CONTINUATION_GAP * spacing && fits_under(above, &row, columns)
            });
        match out.last_mut() {
            Some(above) if continues => above.extend(row),
            _ => {
                previous_starts = starts;
                out.push(row);
            }
        }
    }
    out
}

/// Whether all text of a row lands in one cell: its segments' column ranges chain into one.
fn one_cell(row: &Row<'_>, columns: &[(f64, f64)]) -> bool {
    let mut ranges: Vec<(usize, usize)> = row
        .iter()
        .filter_map(|s| column_range(columns, &s.bbox).or_else(|| nearest_column(columns, &s.bbox)))
        .collect();
    ranges.sort_unstable();
    !ranges.is_empty() && ranges.windows(2).all(|w| w[1].0 <= w[0].1)
}

/// The columns a row has text in.
fn filled_columns(row: &Row<'_>, columns: &[(f64, f64)]) -> Vec<bool> {
    let mut filled = vec![false; columns.len()];
    for s in row {
        if let Some((a, b)) = column_range(columns, &s.bbox) {
            for f in filled.iter_mut().take(b + 1).skip(a) {
                *f = true;
            }
        }
    }
    filled
}

/// Joins single-line labels set half a line lower between the two lines of a two-line header
/// into the upper line (see the module's rules).
fn join_centred_labels<'a>(rows: Vec<Row<'a>>, columns: &[(f64, f64)]) -> Vec<Row<'a>> {
    let overlaps = |a: &Row<'_>, b: &Row<'_>| row_box(b).y < row_box(a).bottom();
    let centred: Vec<bool> = (0..rows.len())
        .map(|i| {
            if i == 0 || i + 1 >= rows.len() {
                return false;
            }
            let (above, row, below) = (&rows[i - 1], &rows[i], &rows[i + 1]);
            let interleaved = overlaps(above, row) && overlaps(row, below);
            // Exactly three interleaved lines: a longer stack is labels over several lines.
            let alone = (i < 2 || !overlaps(&rows[i - 2], above))
                && rows.get(i + 2).is_none_or(|next| !overlaps(below, next));
            let own = filled_columns(row, columns);
            let (up, down) = (
                filled_columns(above, columns),
                filled_columns(below, columns),
            );
            interleaved && alone && up == down && own.iter().zip(&up).all(|(o, u)| !(*o && *u))
        })
        .collect();
    let mut out: Vec<Row<'a>> = Vec::with_capacity(rows.len());
    for (row, centred) in rows.into_iter().zip(centred) {
        match out.last_mut() {
            Some(above) if centred => above.extend(row),
            _ => out.push(row),
        }
    }
    out
}

/// Whether every segment of `row` lies in one column, under text of `above` that lies in that
/// column alone (or nothing).
fn fits_under(above: &Row<'_>, row: &Row<'_>, columns: &[(f64, f64)]) -> bool {
    row.iter().all(|s| {
        let Some((c0, c1)) = column_range(columns, &s.bbox) else {
            return false;
        };
        c0 == c1
            && above.iter().all(|a| {
                column_range(columns, &a.bbox).is_none_or(|(a0, a1)| a1 < c0 || a0 > c0 || a0 == a1)
            })
    })
}

/// The columns a box overlaps, first and last.
fn column_range(columns: &[(f64, f64)], bbox: &PageBox) -> Option<(usize, usize)> {
    let hits: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, (x0, x1))| bbox.x < *x1 && bbox.right() > *x0)
        .map(|(i, _)| i)
        .collect();
    Some((*hits.first()?, *hits.last()?))
}

fn nearest_column(columns: &[(f64, f64)], bbox: &PageBox) -> Option<(usize, usize)> {
    let centre = bbox.center_x();
    let (i, _) = columns.iter().enumerate().min_by(|a, b| {
        let da = (centre - (a.1.0 + a.1.1) / 2.0).abs();
        let db = (centre - (b.1.0 + b.1.1) / 2.0).abs();
        da.total_cmp(&db)
    })?;
    Some((i, i))
}
