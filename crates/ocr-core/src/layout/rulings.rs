//! Ruling lines found in the pixels of a page, and the ruled table regions they enclose.

use doc_model::{PageBox, Ruling};

use crate::preprocess::{GreyImage, otsu_threshold};

/// Horizontal and vertical ruling lines in the picture, in its pixels: runs of ink at least
/// 6 glyph heights long (horizontal) or 2.5 (vertical; table rows are short), merged over
/// neighbouring rows or columns, and thin (a thick run is a picture or a bar, not a rule).
pub fn find_rulings(image: &GreyImage, glyph_height_px: f64) -> Vec<Ruling> {
    let threshold = otsu_threshold(image);
    let (w, h) = (image.width() as usize, image.height() as usize);
    let pixels = image.pixels();
    let glyph = glyph_height_px.max(4.0);
    let max_thickness = (glyph * 0.4).max(4.0);
    let ink = |x: usize, y: usize| pixels[y * w + x] <= threshold;
    let mut rulings = Vec::new();
    let horizontal = runs(h, w, |y, x| ink(x, y), (glyph * 6.0) as usize);
    for s in merge_runs(horizontal, max_thickness) {
        let y = (s.first_line + s.last_line) as f64 / 2.0 + 0.5;
        rulings.push(Ruling::new(s.start as f64, y, s.end as f64, y));
    }
    let vertical = runs(w, h, ink, (glyph * 2.5) as usize);
    for s in merge_runs(vertical, max_thickness) {
        let x = (s.first_line + s.last_line) as f64 / 2.0 + 0.5;
        rulings.push(Ruling::new(x, s.start as f64, x, s.end as f64));
    }
    rulings
}

/// A run of ink along one scan line: `(line, start, end)`.
type Run = (usize, usize, usize);

/// Runs of ink at least `min_len` long along each of `lines` scan lines of `length` pixels;
/// gaps of up to 2 pixels (anti-aliasing, scan noise) are bridged.
fn runs(
    lines: usize,
    length: usize,
    ink: impl Fn(usize, usize) -> bool,
    min_len: usize,
) -> Vec<Run> {
    const GAP: usize = 2;
    let mut out = Vec::new();
    for line in 0..lines {
        let mut start: Option<usize> = None;
        let mut last_ink = 0;
        for pos in 0..length {
            if ink(line, pos) {
                if start.is_none() {
                    start = Some(pos);
                }
                last_ink = pos;
            } else if let Some(s) = start
                && pos - last_ink > GAP
            {
                if last_ink + 1 - s >= min_len {
                    out.push((line, s, last_ink + 1));
                }
                start = None;
            }
        }
        if let Some(s) = start
            && last_ink + 1 - s >= min_len
        {
            out.push((line, s, last_ink + 1));
        }
    }
    out
}

/// Runs stacked on neighbouring scan lines, merged into one stroke.
#[derive(Debug, Clone, Copy)]
struct Stroke {
    first_line: usize,
    last_line: usize,
    start: usize,
    end: usize,
}

fn merge_runs(runs: Vec<Run>, max_thickness: f64) -> Vec<Stroke> {
    let mut open: Vec<Stroke> = Vec::new();
    let mut done: Vec<Stroke> = Vec::new();
    for (line, start, end) in runs {
        let overlapping = open.iter_mut().find(|s| {
            s.last_line + 1 >= line && {
                let overlap = s.end.min(end) as f64 - s.start.max(start) as f64;
                overlap >= 0.8 * (s.end - s.start).min(end - start) as f64
            }
        });
        match overlapping {
            Some(s) => {
                s.last_line = line;
                s.start = s.start.min(start);
                s.end = s.end.max(end);
            }
            None => open.push(Stroke {
                first_line: line,
                last_line: line,
                start,
                end,
            }),
        }
        // Strokes that can no longer grow are finished.
        let (still_open, closed): (Vec<Stroke>, Vec<Stroke>) =
            open.into_iter().partition(|s| s.last_line + 1 >= line);
        open = still_open;
        done.extend(closed);
    }
    done.extend(open);
    done.into_iter()
        .filter(|s| (s.last_line - s.first_line + 1) as f64 <= max_thickness)
        .collect()
}

/// Ruled table regions: groups of rulings that touch one another (within half a glyph height)
/// with at least two horizontal and two vertical rules.
pub fn table_regions(rulings: &[Ruling], glyph_height: f64) -> Vec<PageBox> {
    let tolerance = (glyph_height * 0.5).max(1.0);
    let touches = |a: &Ruling, b: &Ruling| {
        a.x0.min(a.x1) - tolerance <= b.x0.max(b.x1)
            && b.x0.min(b.x1) - tolerance <= a.x0.max(a.x1)
            && a.y0.min(a.y1) - tolerance <= b.y0.max(b.y1)
            && b.y0.min(b.y1) - tolerance <= a.y0.max(a.y1)
    };
    // Union-find over the rulings.
    let mut parent: Vec<usize> = (0..rulings.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..rulings.len() {
        for j in (i + 1)..rulings.len() {
            if touches(&rulings[i], &rulings[j]) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<&Ruling>> = Default::default();
    for (i, r) in rulings.iter().enumerate() {
        let key = root(&mut parent, i);
        groups.entry(key).or_default().push(r);
    }
    let mut regions: Vec<PageBox> = groups
        .values()
        .filter(|g| {
            let horizontal = g.iter().filter(|r| r.is_horizontal(tolerance)).count();
            let vertical = g.iter().filter(|r| r.is_vertical(tolerance)).count();
            horizontal >= 2 && vertical >= 2
        })
        .filter_map(|g| {
            let x0 = g
                .iter()
                .map(|r| r.x0.min(r.x1))
                .fold(f64::INFINITY, f64::min);
            let x1 = g
                .iter()
                .map(|r| r.x0.max(r.x1))
                .fold(f64::NEG_INFINITY, f64::max);
            let y0 = g
                .iter()
                .map(|r| r.y0.min(r.y1))
                .fold(f64::INFINITY, f64::min);
            let y1 = g
                .iter()
                .map(|r| r.y0.max(r.y1))
                .fold(f64::NEG_INFINITY, f64::max);
            (x1 > x0 && y1 > y0).then(|| PageBox::from_edges(1, x0, y0, x1, y1))
        })
        .collect();
    regions.sort_by(|a, b| a.y.total_cmp(&b.y));
    regions
}
