//! Steps for photographed pages (a till slip on a table, shot at an angle, small, grey):
//! perspective correction, contrast stretching, upscaling of small text and adaptive
//! binarisation. Which of them run by default, and on which recogniser's path, was decided by
//! measurement (docs/benchmarks.md, "Photo preprocessing"; docs/decisions.md).
//!
//! Every step first checks the picture against [`PHOTO_MAX_PIXELS`] (a phone's full
//! resolution is about 12 Mpx): a larger picture is left as it is, so no step's work or memory
//! grows past that bound whatever the service's own limit is.

use image::{ImageBuffer, Luma, imageops};

use super::GreyImage;

/// Largest picture any photo step works on, pixels; larger ones are passed through unchanged.
pub const PHOTO_MAX_PIXELS: u64 = 16_000_000;
/// Largest picture upscaling may produce, pixels.
pub const UPSCALE_MAX_PIXELS: u64 = 24_000_000;
/// Side of the copy the page's outline is looked for on, pixels (its longer side at most):
/// coarse enough that a block's brightest pixel is paper wherever there is print (a receipt
/// photographed whole has a line every 1 % of its height or more), fine enough that the
/// corners fall within half a percent of the frame.
const OUTLINE_SIDE: usize = 200;

/// Which photo steps run. [`PhotoSteps::default`] is what the service does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhotoSteps {
    /// Cut the page out of a darker surround and warp its quadrilateral to a rectangle.
    pub perspective: bool,
    /// Stretch the grey levels so the ink is black and the paper white.
    pub stretch: bool,
    /// Upscale pictures whose text lines are under [`UPSCALE_BELOW_LINE_HEIGHT`] pixels high
    /// (Tesseract's path).
    pub upscale: bool,
    /// Sauvola's adaptive threshold before Tesseract (Tesseract's path).
    pub binarise: bool,
}

/// Perspective correction: it helped on held-out generated photos and left SROIE's scans as
/// they were. Upscaling (Tesseract's path) lowered the error rate but read more wrong words
/// (word precision 0.70 → 0.61 on SROIE's held-out half) at up to twice the CPU time, and
/// binarisation likewise: both stay available, off; stretching did not pay
/// (docs/decisions.md, "Photo steps").
impl Default for PhotoSteps {
    fn default() -> Self {
        Self {
            perspective: true,
            stretch: false,
            upscale: false,
            binarise: false,
        }
    }
}

impl PhotoSteps {
    /// No step at all (the reading before these steps existed).
    pub const NONE: Self = Self {
        perspective: false,
        stretch: false,
        upscale: false,
        binarise: false,
    };
}

fn within_cap(image: &GreyImage) -> bool {
    u64::from(image.width) * u64::from(image.height) <= PHOTO_MAX_PIXELS
        && image.width >= 16
        && image.height >= 16
}

/// A point on the picture, pixels.
pub type Point = (f64, f64);

/// The page's corners on a photo (top left, top right, bottom right, bottom left) when the
/// picture shows a light page on a darker surround with room around it; `None` for a scan or a
/// crop (the page fills the frame), a page on a light table, or edges that are no straight
/// lines.
///
/// On a copy whose longer side is at most 200 pixels, each pixel the brightest of its block
/// (the print vanishes into its paper), every row's strongest rise in brightness and the
/// strongest fall after it are where the page's edges cross it, and every column's likewise.
/// Spans about as long as the median span (0.7–1.3 ×) give the edge points: an object beside
/// the page moves the steps of the rows it touches, which are left out; a soft shadow or a
/// light gradient makes no step. Each edge is a line fitted to its
/// points (least squares, refitted without the points more than two cells off); the corners
/// are the lines' crossings. Kept when each edge is backed by most of its rows or columns, the
/// page covers 8–88 % of the frame, no angle is under 55°, and the page is brighter than the
/// rest by a sixth of the range.
pub fn find_page_quad(image: &GreyImage) -> Option<[Point; 4]> {
    if !within_cap(image) {
        return None;
    }
    let (w, h) = (image.width as usize, image.height as usize);
    let block = w.max(h).div_ceil(OUTLINE_SIDE).max(1);
    let (sw, sh) = (w.div_ceil(block), h.div_ceil(block));
    let mut small = vec![0u8; sw * sh];
    for y in 0..h {
        let row = &image.pixels[y * w..(y + 1) * w];
        let out = &mut small[(y / block) * sw..(y / block + 1) * sw];
        for (x, &p) in row.iter().enumerate() {
            let cell = &mut out[x / block];
            *cell = (*cell).max(p);
        }
    }
    let rows: Vec<(f64, f64, f64)> = (0..sh)
        .filter_map(|y| {
            let (a, b) = bright_run(&small[y * sw..(y + 1) * sw])?;
            Some((y as f64 + 0.5, a, b))
        })
        .collect();
    let columns: Vec<(f64, f64, f64)> = (0..sw)
        .filter_map(|x| {
            let column: Vec<u8> = (0..sh).map(|y| small[y * sw + x]).collect();
            let (a, b) = bright_run(&column)?;
            Some((x as f64 + 0.5, a, b))
        })
        .collect();
    let rows = typical_runs(rows);
    let columns = typical_runs(columns);
    // Most rows of the page's height and most columns of its width must back the edges.
    let left = fit_edge(rows.iter().map(|&(y, a, _)| (y, a)))?;
    let right = fit_edge(rows.iter().map(|&(y, _, b)| (y, b)))?;
    let top = fit_edge(columns.iter().map(|&(x, a, _)| (x, a)))?;
    let bottom = fit_edge(columns.iter().map(|&(x, _, b)| (x, b)))?;
    // x = a·y + b (left, right) crossed with y = c·x + d (top, bottom).
    let cross = |(a, b): (f64, f64), (c, d): (f64, f64)| {
        let x = (a * d + b) / (1.0 - a * c);
        (x, c * x + d)
    };
    let corners = [
        cross(left, top),
        cross(right, top),
        cross(right, bottom),
        cross(left, bottom),
    ];
    let frame = (sw * sh) as f64;
    let area = polygon_area(&corners);
    if !(0.08 * frame..=0.88 * frame).contains(&area) {
        return None;
    }
    if corners
        .iter()
        .any(|&(x, y)| x < -1.0 || y < -1.0 || x > sw as f64 + 1.0 || y > sh as f64 + 1.0)
    {
        return None;
    }
    for k in 0..4 {
        let (a, b, c) = (corners[(k + 3) % 4], corners[k], corners[(k + 1) % 4]);
        let (u, v) = ((a.0 - b.0, a.1 - b.1), (c.0 - b.0, c.1 - b.1));
        let cos = (u.0 * v.0 + u.1 * v.1) / (u.0.hypot(u.1) * v.0.hypot(v.1)).max(1e-9);
        if cos.abs() > 55f64.to_radians().cos() {
            return None;
        }
    }
    // Brighter inside than outside: the cells whose centres fall inside the quadrilateral.
    let (mut inside, mut outside) = ((0f64, 0f64), (0f64, 0f64));
    for (i, &p) in small.iter().enumerate() {
        let c = ((i % sw) as f64 + 0.5, (i / sw) as f64 + 0.5);
        let side = if contains(&corners, c) {
            &mut inside
        } else {
            &mut outside
        };
        side.0 += f64::from(p);
        side.1 += 1.0;
    }
    if outside.1 > 0.0 && inside.0 / inside.1.max(1.0) - outside.0 / outside.1 < 42.0 {
        return None;
    }
    let scale = block as f64;
    Some(corners.map(|(x, y)| (x * scale, y * scale)))
}

/// Where a line of cells crosses the page: its strongest rise in brightness (dark to light,
/// the page's near edge) and its strongest fall after it (the far edge), as cell positions;
/// `None` when either step is under 30 levels or the two are under 4 cells apart. Steps, not
/// a threshold: a shadow's edge is soft and a gradient has none, the paper's edge is sharp.
fn bright_run(line: &[u8]) -> Option<(f64, f64)> {
    let n = line.len();
    if n < 8 {
        return None;
    }
    let step = |i: usize| i32::from(line[i + 1]) - i32::from(line[i - 1]);
    let rise = (1..n - 1).max_by_key(|&i| (step(i), std::cmp::Reverse(i)))?;
    let fall = (1..n - 1).min_by_key(|&i| (step(i), i))?;
    if step(rise) < 30 || step(fall) > -30 || fall < rise + 4 {
        return None;
    }
    Some((rise as f64 + 0.5, fall as f64 + 0.5))
}

/// The runs within 0.7–1.3 × the median run's length (the page's own rows or columns).
fn typical_runs(mut runs: Vec<(f64, f64, f64)>) -> Vec<(f64, f64, f64)> {
    let mut lengths: Vec<f64> = runs.iter().map(|r| r.2 - r.1).collect();
    lengths.sort_by(f64::total_cmp);
    let Some(&median) = lengths.get(lengths.len() / 2) else {
        return runs;
    };
    runs.retain(|r| (0.7 * median..=1.3 * median).contains(&(r.2 - r.1)));
    runs
}

/// A straight edge `v = a·u + b` through the points `(u, v)`: least squares, then again
/// without the points more than two cells off. `None` with fewer than 10 points or when under
/// 70 % of them lie on the line.
fn fit_edge(points: impl Iterator<Item = (f64, f64)>) -> Option<(f64, f64)> {
    let points: Vec<(f64, f64)> = points.collect();
    if points.len() < 10 {
        return None;
    }
    let fit = |pts: &[(f64, f64)]| -> Option<(f64, f64)> {
        let n = pts.len() as f64;
        let (su, sv) = pts.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0, b + p.1));
        let (mu, mv) = (su / n, sv / n);
        let (mut cov, mut var) = (0.0, 0.0);
        for &(u, v) in pts {
            cov += (u - mu) * (v - mv);
            var += (u - mu) * (u - mu);
        }
        (var > 0.0).then(|| {
            let a = cov / var;
            (a, mv - a * mu)
        })
    };
    // A first fit on the middle half by residual from the median line is robust enough for
    // edges whose outliers are few and one-sided (a touching object).
    let (a, b) = fit(&points)?;
    let mut residuals: Vec<f64> = points.iter().map(|p| (p.1 - a * p.0 - b).abs()).collect();
    residuals.sort_by(f64::total_cmp);
    let cut = residuals[residuals.len() / 2].max(2.0);
    let near: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|p| (p.1 - a * p.0 - b).abs() <= cut)
        .collect();
    let (a, b) = fit(&near)?;
    let inliers: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|p| (p.1 - a * p.0 - b).abs() <= 2.0)
        .collect();
    if inliers.len() * 10 < points.len() * 7 {
        return None;
    }
    fit(&inliers)
}

/// Whether point `p` lies inside the convex quadrilateral `q` (corners in order).
fn contains(q: &[Point; 4], p: Point) -> bool {
    let side = |a: Point, b: Point| (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
    let signs: Vec<f64> = (0..4).map(|k| side(q[k], q[(k + 1) % 4])).collect();
    signs.iter().all(|&s| s >= 0.0) || signs.iter().all(|&s| s <= 0.0)
}

fn polygon_area(points: &[Point; 4]) -> f64 {
    let mut twice = 0.0;
    for k in 0..4 {
        let (a, b) = (points[k], points[(k + 1) % 4]);
        twice += a.0 * b.1 - b.0 * a.1;
    }
    twice.abs() / 2.0
}

/// The page cut out of a photo and warped to an upright rectangle ([`find_page_quad`]), or
/// `None` when no page outline was found. The rectangle's sides are the longer of each pair of
/// opposite edges, so the nearer, larger end of a tilted page keeps its resolution; it never
/// has more pixels than the photo.
pub fn correct_perspective(image: &GreyImage) -> Option<GreyImage> {
    let quad = find_page_quad(image)?;
    let dist = |a: Point, b: Point| (a.0 - b.0).hypot(a.1 - b.1);
    let mut width = dist(quad[0], quad[1]).max(dist(quad[3], quad[2]));
    let mut height = dist(quad[0], quad[3]).max(dist(quad[1], quad[2]));
    let cap = f64::from(image.width) * f64::from(image.height);
    if width * height > cap {
        let f = (cap / (width * height)).sqrt();
        width *= f;
        height *= f;
    }
    let (ow, oh) = (
        width.round().max(1.0) as u32,
        height.round().max(1.0) as u32,
    );
    let target = [
        (0.0, 0.0),
        (f64::from(ow), 0.0),
        (f64::from(ow), f64::from(oh)),
        (0.0, f64::from(oh)),
    ];
    // Output pixel → photo: the homography from the rectangle onto the quadrilateral.
    let h = homography(&target, &quad)?;
    let mut pixels = Vec::with_capacity(ow as usize * oh as usize);
    for y in 0..oh {
        for x in 0..ow {
            let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let d = h[6] * px + h[7] * py + h[8];
            let sx = (h[0] * px + h[1] * py + h[2]) / d - 0.5;
            let sy = (h[3] * px + h[4] * py + h[5]) / d - 0.5;
            pixels.push(bilinear(image, sx, sy));
        }
    }
    GreyImage::new(ow, oh, pixels).ok()
}

fn bilinear(image: &GreyImage, sx: f64, sy: f64) -> u8 {
    let (x0, y0) = (sx.floor(), sy.floor());
    let (fx, fy) = (sx - x0, sy - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let top = f64::from(image.at(x0, y0)) * (1.0 - fx) + f64::from(image.at(x0 + 1, y0)) * fx;
    let bottom =
        f64::from(image.at(x0, y0 + 1)) * (1.0 - fx) + f64::from(image.at(x0 + 1, y0 + 1)) * fx;
    (top * (1.0 - fy) + bottom * fy).round().clamp(0.0, 255.0) as u8
}

/// The 3×3 matrix (row-major, last entry 1) taking each `from` point to its `to` point;
/// `None` when three of the points are in line.
fn homography(from: &[Point; 4], to: &[Point; 4]) -> Option<[f64; 9]> {
    let mut m = [[0f64; 9]; 8];
    for (k, (&(x, y), &(u, v))) in from.iter().zip(to).enumerate() {
        m[2 * k] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
        m[2 * k + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
    }
    // Gauss–Jordan with partial pivoting.
    for c in 0..8 {
        let pivot = (c..8).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[pivot][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, pivot);
        let pivot_row = m[c];
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot_row[c];
                for (value, &p) in row.iter_mut().zip(&pivot_row).skip(c) {
                    *value -= f * p;
                }
            }
        }
    }
    let mut h = [1.0; 9];
    for (i, row) in m.iter().enumerate() {
        h[i] = row[8] / row[i];
    }
    Some(h)
}

/// Grey levels stretched so that the darkest half percent of the pixels is black and the
/// brightest twentieth (the paper) white; a picture whose two ends are closer than 32 levels
/// (blank, or all one grey) is left as it is.
pub fn stretch_contrast(image: &GreyImage) -> GreyImage {
    if !within_cap(image) {
        return image.clone();
    }
    let mut histogram = [0u64; 256];
    for &p in &image.pixels {
        histogram[usize::from(p)] += 1;
    }
    let total = image.pixels.len() as u64;
    let level_from_dark = |share_per_mille: u64| {
        let mut seen = 0;
        for (level, &n) in histogram.iter().enumerate() {
            seen += n;
            if seen * 1000 >= total * share_per_mille {
                return level;
            }
        }
        255
    };
    let (low, high) = (level_from_dark(5), level_from_dark(950));
    if high < low + 32 {
        return image.clone();
    }
    let span = (high - low) as f64;
    let table: Vec<u8> = (0..256)
        .map(|v| (((v as f64 - low as f64) * 255.0 / span).round()).clamp(0.0, 255.0) as u8)
        .collect();
    GreyImage {
        width: image.width,
        height: image.height,
        pixels: image
            .pixels
            .iter()
            .map(|&p| table[usize::from(p)])
            .collect(),
    }
}

/// The typical height of the picture's text lines, pixels: the median height of the runs of
/// rows holding ink (Otsu's threshold; a row holds ink when it has at least a quarter of the
/// ink of the inkiest tenth of rows, so noise, descenders and blur between lines do not join
/// them), runs of under 3 rows left out; `None` with fewer than 3 runs. Made for an upright page whose lines
/// run across it (a till slip, deskewed); two columns whose lines interleave make runs that
/// are too high, so the estimate errs towards no upscaling.
pub fn text_line_height(image: &GreyImage) -> Option<f64> {
    if !within_cap(image) {
        return None;
    }
    let threshold = pp_ocr::otsu_threshold(&image.pixels);
    let w = image.width as usize;
    let counts: Vec<usize> = image
        .pixels
        .chunks_exact(w)
        .map(|row| row.iter().filter(|&&p| p <= threshold).count())
        .collect();
    let mut sorted = counts.clone();
    sorted.sort_unstable();
    let inkiest = sorted[sorted.len() * 9 / 10];
    let needed = (inkiest / 4).max(2);
    let mut runs = Vec::new();
    let mut run = 0usize;
    for &ink in &counts {
        if ink >= needed {
            run += 1;
        } else {
            if run >= 3 {
                runs.push(run);
            }
            run = 0;
        }
    }
    if run >= 3 {
        runs.push(run);
    }
    if runs.len() < 3 {
        return None;
    }
    runs.sort_unstable();
    Some(runs[runs.len() / 2] as f64)
}

/// Lines lower than this, pixels, are upscaled before Tesseract reads them.
pub const UPSCALE_BELOW_LINE_HEIGHT: f64 = 30.0;
/// The line height upscaling aims at, pixels.
pub const UPSCALE_TARGET_LINE_HEIGHT: f64 = 36.0;

/// The factor by which to upscale a picture with lines `line_height` pixels high: to
/// [`UPSCALE_TARGET_LINE_HEIGHT`] when they are under [`UPSCALE_BELOW_LINE_HEIGHT`], at most 3,
/// within [`UPSCALE_MAX_PIXELS`]; 1 when no upscaling is due (or it would be under 1.2).
pub fn upscale_factor(image: &GreyImage, line_height: f64) -> f64 {
    if line_height >= UPSCALE_BELOW_LINE_HEIGHT || line_height <= 0.0 {
        return 1.0;
    }
    let pixels = f64::from(image.width) * f64::from(image.height);
    let room = (UPSCALE_MAX_PIXELS as f64 / pixels.max(1.0)).sqrt();
    let factor = (UPSCALE_TARGET_LINE_HEIGHT / line_height)
        .min(3.0)
        .min(room);
    if factor < 1.2 { 1.0 } else { factor }
}

/// The picture scaled by `factor` (Catmull–Rom), or as it is when the factor is 1 or less or
/// the result would exceed [`UPSCALE_MAX_PIXELS`].
pub fn upscale(image: &GreyImage, factor: f64) -> GreyImage {
    let (w, h) = (
        (f64::from(image.width) * factor).round(),
        (f64::from(image.height) * factor).round(),
    );
    if factor <= 1.0 || !within_cap(image) || w * h > UPSCALE_MAX_PIXELS as f64 {
        return image.clone();
    }
    let Some(view) =
        ImageBuffer::<Luma<u8>, &[u8]>::from_raw(image.width, image.height, &image.pixels)
    else {
        return image.clone();
    };
    let out = imageops::resize(&view, w as u32, h as u32, imageops::FilterType::CatmullRom);
    GreyImage {
        width: out.width(),
        height: out.height(),
        pixels: out.into_raw(),
    }
}

/// Sauvola's adaptive threshold (J. Sauvola and M. Pietikäinen, "Adaptive document image
/// binarization", Pattern Recognition 33, 2000): a pixel is ink when it is at most
/// m · (1 + k · (s / 128 − 1)), m and s the mean and standard deviation of the `window` ×
/// `window` square around it; ink becomes 0, the rest 255. Memory is a few rows of sums, the
/// time one pass per pixel.
pub fn sauvola(image: &GreyImage, window: usize, k: f64) -> GreyImage {
    if !within_cap(image) {
        return image.clone();
    }
    let (w, h) = (image.width as usize, image.height as usize);
    let r = window / 2;
    // Column sums over the rows [y − r, y + r] (clipped), updated row by row.
    let mut col_sum = vec![0u64; w];
    let mut col_sq = vec![0u64; w];
    let add_row = |sum: &mut [u64], sq: &mut [u64], y: usize, sign: bool| {
        for (x, &p) in image.pixels[y * w..(y + 1) * w].iter().enumerate() {
            let (p, p2) = (u64::from(p), u64::from(p) * u64::from(p));
            if sign {
                sum[x] += p;
                sq[x] += p2;
            } else {
                sum[x] -= p;
                sq[x] -= p2;
            }
        }
    };
    for y in 0..r.min(h) {
        add_row(&mut col_sum, &mut col_sq, y, true);
    }
    let mut pixels = Vec::with_capacity(w * h);
    for y in 0..h {
        if y + r < h {
            add_row(&mut col_sum, &mut col_sq, y + r, true);
        }
        if y > r {
            add_row(&mut col_sum, &mut col_sq, y - r - 1, false);
        }
        let rows = (y + r).min(h - 1) + 1 - y.saturating_sub(r);
        let (mut sum, mut sq) = (0u64, 0u64);
        for x in 0..r.min(w) {
            sum += col_sum[x];
            sq += col_sq[x];
        }
        for x in 0..w {
            if x + r < w {
                sum += col_sum[x + r];
                sq += col_sq[x + r];
            }
            if x > r {
                sum -= col_sum[x - r - 1];
                sq -= col_sq[x - r - 1];
            }
            let cols = (x + r).min(w - 1) + 1 - x.saturating_sub(r);
            let n = (rows * cols) as f64;
            let mean = sum as f64 / n;
            let var = (sq as f64 / n - mean * mean).max(0.0);
            let threshold = mean * (1.0 + k * (var.sqrt() / 128.0 - 1.0));
            let p = image.pixels[y * w + x];
            pixels.push(if f64::from(p) <= threshold { 0 } else { 255 });
        }
    }
    GreyImage {
        width: image.width,
        height: image.height,
        pixels,
    }
}

/// Sauvola's window for lines `line_height` high: twice the line height, odd, 15–101 pixels
/// (31 when the height is not known).
pub fn sauvola_window(line_height: Option<f64>) -> usize {
    let side = line_height.map_or(31, |h| ((2.0 * h).round() as usize).clamp(15, 101));
    side | 1
}

/// Sauvola's k as ocr-core uses it: 0.2, scikit-image's default (`threshold_sauvola`); the
/// paper's 0.5 suits its scans' contrast and erases faint thermal print.
pub const SAUVOLA_K: f64 = 0.2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preprocess::tests::{ink_agreement, photo_crop as crop};

    #[test]
    fn the_slip_is_found_on_a_photo_and_warped_upright() {
        let photo = crop("slip_photo.png");
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../testdata/ocr/photo/slip_photo.json"),
            )
            .expect("made by make_crops.py"),
        )
        .expect("JSON");
        let quad = find_page_quad(&photo).expect("the slip stands out from the table");
        for (found, expected) in quad.iter().zip(truth["corners"].as_array().expect("4")) {
            let (x, y) = (
                expected[0].as_f64().expect("x"),
                expected[1].as_f64().expect("y"),
            );
            assert!(
                (found.0 - x).abs() <= 5.0 && (found.1 - y).abs() <= 5.0,
                "{found:?} against ({x}, {y})"
            );
        }
        let straight = correct_perspective(&photo).expect("warped");
        // The slip's proportions, from its true corners (the longer of opposite edges).
        let c: Vec<Point> = truth["corners"]
            .as_array()
            .expect("4")
            .iter()
            .map(|p| (p[0].as_f64().expect("x"), p[1].as_f64().expect("y")))
            .collect();
        let dist = |a: Point, b: Point| (a.0 - b.0).hypot(a.1 - b.1);
        let expected =
            dist(c[0], c[3]).max(dist(c[1], c[2])) / dist(c[0], c[1]).max(dist(c[3], c[2]));
        let ratio = f64::from(straight.height()) / f64::from(straight.width());
        assert!(
            (ratio / expected - 1.0).abs() < 0.08,
            "{ratio} against {expected}"
        );
        // Paper up to the edges: the outer columns are paper, not table.
        let column_mean = |x: u32| {
            let w = straight.width() as usize;
            let sum: u64 = (0..straight.height() as usize)
                .map(|y| u64::from(straight.pixels()[y * w + x as usize]))
                .sum();
            sum as f64 / f64::from(straight.height())
        };
        let table_mean = {
            let w = photo.width() as usize;
            let sum: u64 = (0..photo.height() as usize)
                .map(|y| u64::from(photo.pixels()[y * w + w - 3]))
                .sum();
            sum as f64 / f64::from(photo.height())
        };
        assert!(column_mean(3) > table_mean + 60.0, "{}", column_mean(3));
        assert!(column_mean(straight.width() - 4) > table_mean + 60.0);
    }

    #[test]
    fn a_page_that_fills_the_frame_is_not_cut() {
        assert_eq!(find_page_quad(&crop("slip_small.png")), None);
        assert_eq!(find_page_quad(&crop("clean.png")), None);
        let grey = GreyImage::new(200, 200, vec![128; 40_000]).expect("sized");
        assert_eq!(correct_perspective(&grey), None);
    }

    #[test]
    fn faint_print_is_stretched_to_black_on_white() {
        let faint = crop("slip_faint.png");
        let clean = crop("slip_small.png");
        let stretched = stretch_contrast(&faint);
        let darkest = stretched.pixels().iter().min().copied().unwrap_or(255);
        let brightest = stretched.pixels().iter().max().copied().unwrap_or(0);
        assert!(darkest <= 5 && brightest >= 250, "{darkest} {brightest}");
        assert!(ink_agreement(&clean, &stretched) > 0.99);
        // Blank paper has nothing to stretch.
        let blank = GreyImage::new(50, 50, vec![230; 2_500]).expect("sized");
        assert_eq!(stretch_contrast(&blank), blank);
    }

    #[test]
    fn small_text_is_measured_and_upscaled() {
        let small = crop("slip_small.png");
        let height = text_line_height(&small).expect("lines");
        // Rendered at 12 pixels per em: lines of about 9-14 ink rows.
        assert!((8.0..15.0).contains(&height), "{height}");
        let factor = upscale_factor(&small, height);
        assert!(factor > 2.0, "{factor}");
        let big = upscale(&small, factor);
        assert_eq!(
            big.width(),
            (f64::from(small.width()) * factor).round() as u32
        );
        let again = text_line_height(&big).expect("lines");
        assert!((again / (height * factor) - 1.0).abs() < 0.25, "{again}");
        // Text already large enough stays as it is.
        assert_eq!(upscale_factor(&big, UPSCALE_BELOW_LINE_HEIGHT), 1.0);
        assert_eq!(upscale(&small, 1.0), small);
    }

    #[test]
    fn sauvola_finds_the_ink_under_a_light_gradient() {
        let clean = crop("slip_small.png");
        let dark_end = crop("slip_gradient.png");
        // One threshold for the whole crop loses the ink at the dark end.
        assert!(ink_agreement(&clean, &dark_end) < 0.9);
        let window = sauvola_window(text_line_height(&clean));
        let binary = sauvola(&dark_end, window, SAUVOLA_K);
        assert!(binary.pixels().iter().all(|&p| p == 0 || p == 255));
        assert!(
            ink_agreement(&clean, &binary) > 0.97,
            "{}",
            ink_agreement(&clean, &binary)
        );
        // Even paper stays paper.
        let blank = GreyImage::new(60, 40, vec![200; 2_400]).expect("sized");
        assert!(
            sauvola(&blank, 31, SAUVOLA_K)
                .pixels()
                .iter()
                .all(|&p| p == 255)
        );
    }

    #[test]
    fn a_homography_maps_the_four_corners() {
        let from = [(0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0)];
        let to = [(3.0, 1.0), (12.0, 2.0), (14.0, 25.0), (1.0, 22.0)];
        let h = homography(&from, &to).expect("four corners");
        for (f, t) in from.iter().zip(&to) {
            let d = h[6] * f.0 + h[7] * f.1 + h[8];
            let (x, y) = (
                (h[0] * f.0 + h[1] * f.1 + h[2]) / d,
                (h[3] * f.0 + h[4] * f.1 + h[5]) / d,
            );
            assert!((x - t.0).abs() < 1e-9 && (y - t.1).abs() < 1e-9);
        }
        let line = [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)];
        assert_eq!(homography(&line, &to), None);
    }

    #[test]
    fn pictures_over_the_cap_are_passed_through() {
        // 4001 × 4001 is just over PHOTO_MAX_PIXELS: no step looks at it.
        let big = GreyImage::new(4001, 4001, vec![200; 4001 * 4001]).expect("sized");
        assert_eq!(find_page_quad(&big), None);
        assert_eq!(text_line_height(&big), None);
        assert_eq!(stretch_contrast(&big).pixels().len(), big.pixels().len());
        assert_eq!(upscale(&big, 2.0).width(), 4001);
    }
}
