//! Where a decoded symbol lies: its four corners from the decoder's points and the pixels
//! around them, and blanking it out so the next pass finds the next symbol.

use doc_model::Point;

/// A borrowed grey image, one byte per pixel, rows without padding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GreyImage<'a> {
    pub(crate) pixels: &'a [u8],
    pub(crate) width: usize,
    pub(crate) height: usize,
}

impl GreyImage<'_> {
    /// The pixel under a point, `None` outside the image.
    fn at(&self, p: Point) -> Option<u8> {
        if p.x < 0.0 || p.y < 0.0 {
            return None;
        }
        let (x, y) = (p.x as usize, p.y as usize);
        if x >= self.width || y >= self.height {
            return None;
        }
        self.pixels.get(y * self.width + x).copied()
    }

    /// Whether the pixel is darker than `threshold`; outside the image counts as light.
    fn is_dark(&self, p: Point, threshold: u8) -> bool {
        self.at(p).is_some_and(|v| v < threshold)
    }
}

fn add(a: Point, b: Point) -> Point {
    Point {
        x: a.x + b.x,
        y: a.y + b.y,
    }
}

fn sub(a: Point, b: Point) -> Point {
    Point {
        x: a.x - b.x,
        y: a.y - b.y,
    }
}

fn mul(a: Point, k: f64) -> Point {
    Point {
        x: a.x * k,
        y: a.y * k,
    }
}

fn length(a: Point) -> f64 {
    a.x.hypot(a.y)
}

fn centroid(quad: &[Point]) -> Point {
    let n = quad.len().max(1) as f64;
    let sum = quad
        .iter()
        .fold(Point { x: 0.0, y: 0.0 }, |acc, p| add(acc, *p));
    mul(sum, 1.0 / n)
}

/// The quad scaled by `factor` about its centroid.
fn scaled(quad: &[Point], factor: f64) -> Vec<Point> {
    let c = centroid(quad);
    quad.iter()
        .map(|p| add(c, mul(sub(*p, c), factor)))
        .collect()
}

/// A light/dark threshold halfway between the darkest and lightest pixel sampled inside the
/// quad's box; `None` when the region has no contrast to speak of.
fn contrast_threshold(image: &GreyImage<'_>, quad: &[Point]) -> Option<u8> {
    let (min_x, min_y, max_x, max_y) = bounds(quad);
    let (mut darkest, mut lightest) = (u8::MAX, u8::MIN);
    const GRID: usize = 48;
    for i in 0..=GRID {
        for j in 0..=GRID {
            let p = Point {
                x: min_x + (max_x - min_x) * i as f64 / GRID as f64,
                y: min_y + (max_y - min_y) * j as f64 / GRID as f64,
            };
            if let Some(v) = image.at(p) {
                darkest = darkest.min(v);
                lightest = lightest.max(v);
            }
        }
    }
    (lightest > darkest && lightest - darkest >= 24)
        .then(|| ((u16::from(darkest) + u16::from(lightest)) / 2) as u8)
}

/// Left, top, right, bottom of the points.
pub(crate) fn bounds(points: &[Point]) -> (f64, f64, f64, f64) {
    points.iter().fold(
        (
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ),
        |(l, t, r, b), p| (l.min(p.x), t.min(p.y), r.max(p.x), b.max(p.y)),
    )
}

/// Share of dark pixels on the quad's outline.
fn dark_share_on_outline(image: &GreyImage<'_>, quad: &[Point], threshold: u8) -> f64 {
    const SAMPLES_PER_EDGE: usize = 120;
    let mut dark = 0usize;
    for (i, a) in quad.iter().enumerate() {
        let b = quad[(i + 1) % quad.len()];
        for s in 0..SAMPLES_PER_EDGE {
            let p = add(*a, mul(sub(b, *a), s as f64 / SAMPLES_PER_EDGE as f64));
            dark += usize::from(image.is_dark(p, threshold));
        }
    }
    dark as f64 / (SAMPLES_PER_EDGE * quad.len()) as f64
}

/// The quad grown about its centre until its outline lies in the light quiet zone around the
/// symbol, at most by `max_factor`; the quad as given when no light outline is reached.
fn grow_to_quiet_zone(image: &GreyImage<'_>, quad: Vec<Point>, max_factor: f64) -> Vec<Point> {
    let Some(threshold) = contrast_threshold(image, &quad) else {
        return quad;
    };
    let c = centroid(&quad);
    let radius = quad.iter().map(|p| length(sub(*p, c))).fold(1.0, f64::max);
    // About one pixel per step, and never more than 200 steps.
    let step = (1.0 / radius).max((max_factor - 1.0) / 200.0);
    let mut factor = 1.0;
    while factor <= max_factor {
        let candidate = scaled(&quad, factor);
        if dark_share_on_outline(image, &candidate, threshold) <= 0.01 {
            return candidate;
        }
        factor += step;
    }
    quad
}

/// Corners ordered clockwise on screen (y downwards), starting with the top-left-most.
fn clockwise_from_top_left(mut quad: Vec<Point>) -> Vec<Point> {
    let n = quad.len();
    let twice_area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (quad[i], quad[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum();
    if twice_area < 0.0 {
        quad.reverse();
    }
    let first = (0..n)
        .min_by(|&i, &j| {
            let (a, b) = (quad[i], quad[j]);
            (a.x + a.y).total_cmp(&(b.x + b.y))
        })
        .unwrap_or(0);
    quad.rotate_left(first);
    quad
}

/// The smallest rotated rectangle around the points, trying the direction of every pair.
fn min_area_rectangle(points: &[Point]) -> Vec<Point> {
    let mut best: Option<(f64, Vec<Point>)> = None;
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            let d = sub(*b, *a);
            let len = length(d);
            if len < 1e-6 {
                continue;
            }
            let u = mul(d, 1.0 / len);
            let v = Point { x: -u.y, y: u.x };
            let project = |p: &Point, axis: Point| p.x * axis.x + p.y * axis.y;
            let (u0, u1) = extent(points.iter().map(|p| project(p, u)));
            let (v0, v1) = extent(points.iter().map(|p| project(p, v)));
            let area = (u1 - u0) * (v1 - v0);
            if best.as_ref().is_none_or(|(best_area, _)| area < *best_area) {
                let corner = |a: f64, b: f64| add(mul(u, a), mul(v, b));
                best = Some((
                    area,
                    vec![
                        corner(u0, v0),
                        corner(u1, v0),
                        corner(u1, v1),
                        corner(u0, v1),
                    ],
                ));
            }
        }
    }
    best.map_or_else(|| points.to_vec(), |(_, quad)| quad)
}

fn extent(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// The corners of a 2D symbol. Decoders report its corners, QR finder-pattern centres (three,
/// bottom-left, top-left, top-right, completed here to a parallelogram; or four with the
/// alignment pattern) or PDF417 row ends: the smallest rectangle around them, grown out to the
/// quiet zone (finder centres sit 3.5 modules inside the corners: up to 1.5x for a version 1
/// QR code).
pub(crate) fn matrix_quad(image: &GreyImage<'_>, points: &[Point]) -> Vec<Point> {
    let mut points = points.to_vec();
    if let [bottom_left, top_left, top_right] = points[..] {
        points.push(sub(add(top_right, bottom_left), top_left));
    }
    let quad = clockwise_from_top_left(min_area_rectangle(&points));
    grow_to_quiet_zone(image, quad, 1.8)
}

/// The corners of a 1D symbol from its scan line. Decoders report points on the line but not
/// reliably its ends (guard or start-character centres; rxing's Code 39 end point can lie off
/// the symbol), so the bars are followed along the line from the first point until a gap wider
/// than any inside a symbol, then up and down while each row repeats its neighbour (shifted by
/// up to two pixels per row, which follows a skewed symbol).
pub(crate) fn linear_quad(image: &GreyImage<'_>, points: &[Point]) -> Vec<Point> {
    let (Some(&start), Some(&end)) = (points.first(), points.last()) else {
        return points.to_vec();
    };
    let along = sub(end, start);
    let len = length(along);
    if len < 2.0 {
        return vec![start, end];
    }
    let d = mul(along, 1.0 / len);
    let n = Point { x: -d.y, y: d.x };
    let reach = (len * 3.0).max(400.0);
    let Some(threshold) =
        line_threshold(image, sub(start, mul(d, reach)), add(start, mul(d, reach)))
    else {
        return vec![start, end];
    };
    let Some((from, to)) = bar_extent(image, start, d, reach, threshold) else {
        return vec![start, end];
    };
    let width = to - from;
    let samples = (width as usize).clamp(8, 1200);
    let row = |offset: f64, shift: f64| -> Vec<bool> {
        (0..samples)
            .map(|i| {
                let t = from + shift + width * i as f64 / samples as f64;
                image.is_dark(add(add(start, mul(d, t)), mul(n, offset)), threshold)
            })
            .collect()
    };
    let agreement = |a: &[bool], b: &[bool]| {
        a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / samples as f64
    };
    // How far the bars continue on one side of the scan line, and their drift along it.
    let base = row(0.0, 0.0);
    let base_dark = base.iter().filter(|&&b| b).count();
    let follow = |sign: f64| -> (f64, f64) {
        let mut previous = base.clone();
        let (mut offset, mut shift) = (0.0, 0.0);
        while offset < 2.0 * width {
            let mut best: Option<(f64, f64, Vec<bool>)> = None;
            // No shift first, so that it wins ties.
            for s in [0.0, -1.0, 1.0, -2.0, 2.0] {
                let candidate = row(sign * (offset + 1.0), shift + s);
                let score = agreement(&previous, &candidate);
                if best.as_ref().is_none_or(|(b, _, _)| score > *b) {
                    best = Some((score, s, candidate));
                }
            }
            match best {
                // A row must also keep most of the scan line's bars: a skewed symbol's edge
                // fades row by row, and blank rows agree with each other.
                Some((score, s, candidate))
                    if score >= 0.9
                        && 5 * candidate.iter().filter(|&&b| b).count() >= 4 * base_dark =>
                {
                    offset += 1.0;
                    shift += s;
                    previous = candidate;
                }
                _ => break,
            }
        }
        (offset, shift)
    };
    let (below, below_shift) = follow(1.0);
    let (above, above_shift) = follow(-1.0);
    let corner = |t: f64, offset: f64| add(add(start, mul(d, t)), mul(n, offset));
    clockwise_from_top_left(vec![
        corner(from + above_shift, -above),
        corner(to + above_shift, -above),
        corner(to + below_shift, below),
        corner(from + below_shift, below),
    ])
}

/// Along the line through `anchor` in direction `d`: the first and last dark position of the
/// run of bars that holds the anchor, split where a light gap exceeds six narrowest bars
/// (wider than any space inside a 1D symbol). `None` when no bar lies near the anchor.
fn bar_extent(
    image: &GreyImage<'_>,
    anchor: Point,
    d: Point,
    reach: f64,
    threshold: u8,
) -> Option<(f64, f64)> {
    const STEP: f64 = 0.5;
    let count = (2.0 * reach / STEP) as usize;
    let position = |i: usize| -reach + i as f64 * STEP;
    let dark: Vec<bool> = (0..=count)
        .map(|i| image.is_dark(add(anchor, mul(d, position(i))), threshold))
        .collect();
    // Dark runs as (first, last) sample indices.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, &is_dark) in dark.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if is_dark && run.1 + 1 == i => run.1 = i,
            _ if is_dark => runs.push((i, i)),
            _ => {}
        }
    }
    let centre = count / 2;
    let near = (4.0 / STEP) as usize;
    let holding = runs
        .iter()
        .position(|&(a, b)| a <= centre + near && b + near >= centre)?;
    // Bar widths near the anchor only: text or specks further out say nothing about it.
    let window = (reach / 6.0 / STEP) as usize;
    let narrowest = runs
        .iter()
        .filter(|&&(a, b)| b + window >= centre && a <= centre + window)
        .map(|&(a, b)| b - a + 1)
        .min()
        .unwrap_or(1)
        .max(1);
    let max_gap = 6 * narrowest.max((1.0 / STEP) as usize);
    let (mut first, mut last) = (holding, holding);
    while first > 0 && runs[first].0 - runs[first - 1].1 <= max_gap {
        first -= 1;
    }
    while last + 1 < runs.len() && runs[last + 1].0 - runs[last].1 <= max_gap {
        last += 1;
    }
    Some((position(runs[first].0), position(runs[last].1) + STEP))
}

fn line_threshold(image: &GreyImage<'_>, a: Point, b: Point) -> Option<u8> {
    let (mut darkest, mut lightest) = (u8::MAX, u8::MIN);
    for i in 0..=400 {
        if let Some(v) = image.at(add(a, mul(sub(b, a), f64::from(i) / 400.0))) {
            darkest = darkest.min(v);
            lightest = lightest.max(v);
        }
    }
    (lightest > darkest && lightest - darkest >= 24)
        .then(|| ((u16::from(darkest) + u16::from(lightest)) / 2) as u8)
}

/// Paints the quad, grown by `margin` pixels, white.
pub(crate) fn blank(pixels: &mut [u8], width: usize, height: usize, quad: &[Point], margin: f64) {
    if quad.len() < 3 || width == 0 {
        return;
    }
    let c = centroid(quad);
    let radius = quad.iter().map(|p| length(sub(*p, c))).fold(1.0, f64::max);
    let grown = scaled(quad, 1.0 + margin / radius);
    let (l, t, r, b) = bounds(&grown);
    let clamp = |v: f64, max: usize| (v.max(0.0) as usize).min(max);
    let (x0, x1) = (clamp(l.floor(), width), clamp(r.ceil() + 1.0, width));
    let (y0, y1) = (clamp(t.floor(), height), clamp(b.ceil() + 1.0, height));
    for y in y0..y1 {
        for x in x0..x1 {
            let p = Point {
                x: x as f64 + 0.5,
                y: y as f64 + 0.5,
            };
            if inside_convex(&grown, p)
                && let Some(pixel) = pixels.get_mut(y * width + x)
            {
                *pixel = u8::MAX;
            }
        }
    }
}

/// Whether `p` lies inside a convex polygon given in either winding.
fn inside_convex(polygon: &[Point], p: Point) -> bool {
    let n = polygon.len();
    let (mut positive, mut negative) = (false, false);
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        positive |= cross > 0.0;
        negative |= cross < 0.0;
    }
    !(positive && negative)
}

/// Whether two quads describe the same symbol: the centre of either lies inside the other, or
/// their boxes overlap by half of the smaller one.
pub(crate) fn same_place(a: &[Point], b: &[Point]) -> bool {
    if a.len() < 3 || b.len() < 3 {
        let (ca, cb) = (centroid(a), centroid(b));
        return length(sub(ca, cb)) < 4.0;
    }
    if inside_convex(a, centroid(b)) || inside_convex(b, centroid(a)) {
        return true;
    }
    let ((al, at, ar, ab), (bl, bt, br, bb)) = (bounds(a), bounds(b));
    let overlap = (ar.min(br) - al.max(bl)).max(0.0) * (ab.min(bb) - at.max(bt)).max(0.0);
    let smaller = ((ar - al) * (ab - at)).min((br - bl) * (bb - bt));
    smaller > 0.0 && overlap >= 0.5 * smaller
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    #[test]
    fn rectangle_around_rotated_points_is_clockwise_from_top_left() {
        let points = [p(10.0, 0.0), p(20.0, 10.0), p(10.0, 20.0), p(0.0, 10.0)];
        let quad = clockwise_from_top_left(min_area_rectangle(&points));
        let area = (20.0f64.hypot(0.0) / 2f64.sqrt()).powi(2);
        let (w, h) = (length(sub(quad[1], quad[0])), length(sub(quad[2], quad[1])));
        assert!((w * h - area).abs() < 1e-6, "area {}", w * h);
        assert!(quad[0].x + quad[0].y <= quad[2].x + quad[2].y);
    }

    #[test]
    fn grows_a_square_to_its_quiet_zone_and_blanks_it() {
        // A 40x40 dark square with a light hole, centred in a 100x100 white image.
        let (w, h) = (100usize, 100usize);
        let mut pixels = vec![255u8; w * h];
        for y in 30..70 {
            for x in 30..70 {
                let hole = (45..55).contains(&x) && (45..55).contains(&y);
                pixels[y * w + x] = if hole { 255 } else { 0 };
            }
        }
        let image = GreyImage {
            pixels: &pixels,
            width: w,
            height: h,
        };
        let inner = [p(40.0, 40.0), p(60.0, 40.0), p(60.0, 60.0), p(40.0, 60.0)];
        let quad = grow_to_quiet_zone(&image, inner.to_vec(), 2.5);
        let (l, t, r, b) = bounds(&quad);
        assert!(
            (29.0..=30.5).contains(&l) && (69.5..=71.0).contains(&r),
            "{l} {r}"
        );
        assert!(
            (29.0..=30.5).contains(&t) && (69.5..=71.0).contains(&b),
            "{t} {b}"
        );
        let mut copy = pixels.clone();
        blank(&mut copy, w, h, &quad, 2.0);
        assert!(copy.iter().all(|&v| v == 255));
        assert!(same_place(&quad, &inner));
        assert!(!same_place(
            &inner,
            &[p(0.0, 0.0), p(5.0, 0.0), p(5.0, 5.0)]
        ));
    }

    #[test]
    fn follows_bars_up_down_and_out() {
        // Bars 3 px wide every 6 px from x=20 to x=80, rows 40..70.
        let (w, h) = (100usize, 100usize);
        let mut pixels = vec![255u8; w * h];
        for y in 40..70 {
            for x in 20..80 {
                if (x - 20) % 6 < 3 {
                    pixels[y * w + x] = 0;
                }
            }
        }
        let image = GreyImage {
            pixels: &pixels,
            width: w,
            height: h,
        };
        let quad = linear_quad(&image, &[p(30.0, 55.0), p(70.0, 55.0)]);
        let (l, t, r, b) = bounds(&quad);
        assert!(
            (19.0..=21.0).contains(&l) && (76.0..=80.0).contains(&r),
            "{l} {r}"
        );
        assert!(
            (39.0..=41.0).contains(&t) && (68.0..=70.0).contains(&b),
            "{t} {b}"
        );
    }
}
