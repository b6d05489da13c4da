//! Text detection: the DB network's probability map turned into line boxes.
//!
//! The constants are PaddleOCR's published inference defaults for its DB detector (as the
//! `rapidocr-onnxruntime` wheel's configuration repeats them): the picture scaled so its
//! shorter side is at least 736 pixels, sides multiples of 32, pixel values mapped to
//! [−1, 1]; the map thresholded at 0.3 and dilated by 2×2; a region kept when its mean
//! probability is at least 0.5, then grown ("unclipped") by area × 1.6 / perimeter, because
//! the network is trained to mark a shrunk core of each line.
//!
//! Regions are axis-aligned boxes of 8-connected components: the pictures reaching this crate
//! are deskewed first (ocr-core), where PaddleOCR fits rotated rectangles.

use crate::{GreyPixels, PpOcrError, ShapedModel};

const MIN_SHORT_SIDE: f64 = 736.0;
/// A cap on the longer side: the detector's time grows with the map's area, and most of the
/// time of a page went there. PaddleOCR's own inference default caps the longer side at 960
/// (RapidOCR's at 2000); on the first 25 SROIE receipts (which are therefore not held out for
/// this choice) 960 lost 2.6 points of word recall against 2048, 1280 lost 0.6 and took 0.7 s
/// less per receipt (docs/benchmarks.md, "PP-OCR: time").
const MAX_LONG_SIDE: f64 = 1280.0;
const BINARY_THRESHOLD: f32 = 0.3;
const BOX_THRESHOLD: f32 = 0.5;
const UNCLIP_RATIO: f64 = 1.6;
const MIN_SIDE: f64 = 3.0;
/// The network's input is padded to multiples of this, so few distinct shapes are planned.
const CANVAS_STEP: usize = 128;

/// A line's box on the picture, in pixels (top-left origin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// Mean probability of text inside the region.
    pub score: f32,
}

/// Resizes a grey picture bilinearly to `width × height`.
pub(crate) fn resize(picture: GreyPixels<'_>, width: usize, height: usize) -> Vec<u8> {
    let sx = f64::from(picture.width) / width as f64;
    let sy = f64::from(picture.height) / height as f64;
    let max_x = picture.width - 1;
    let max_y = picture.height - 1;
    let mut out = Vec::with_capacity(width * height);
    for y in 0..height {
        let fy = ((y as f64 + 0.5) * sy - 0.5).max(0.0);
        let y0 = (fy.floor() as u32).min(max_y);
        let y1 = (y0 + 1).min(max_y);
        let wy = fy - f64::from(y0);
        for x in 0..width {
            let fx = ((x as f64 + 0.5) * sx - 0.5).max(0.0);
            let x0 = (fx.floor() as u32).min(max_x);
            let x1 = (x0 + 1).min(max_x);
            let wx = fx - f64::from(x0);
            let top =
                f64::from(picture.at(x0, y0)) * (1.0 - wx) + f64::from(picture.at(x1, y0)) * wx;
            let bottom =
                f64::from(picture.at(x0, y1)) * (1.0 - wx) + f64::from(picture.at(x1, y1)) * wx;
            out.push((top * (1.0 - wy) + bottom * wy).round() as u8);
        }
    }
    out
}

/// Pixel value mapped as the networks were trained: [0, 255] to [−1, 1].
pub(crate) fn normalised(value: u8) -> f32 {
    (f32::from(value) / 255.0 - 0.5) / 0.5
}

fn round_to_32(side: f64) -> usize {
    (((side / 32.0).round() as usize).max(1)) * 32
}

/// The lines' boxes on `picture`, top to bottom, then left to right.
pub(crate) fn find_lines(
    detector: &ShapedModel,
    picture: GreyPixels<'_>,
) -> Result<Vec<TextBox>, PpOcrError> {
    let (w, h) = (f64::from(picture.width), f64::from(picture.height));
    let mut scale = (MIN_SHORT_SIDE / w.min(h)).max(1.0);
    scale = scale.min(MAX_LONG_SIDE / w.max(h));
    let (width, height) = (round_to_32(w * scale), round_to_32(h * scale));
    let resized = resize(picture, width, height);
    let canvas_w = width.div_ceil(CANVAS_STEP) * CANVAS_STEP;
    let canvas_h = height.div_ceil(CANVAS_STEP) * CANVAS_STEP;
    // White beyond the picture: nothing to find there.
    let (_, map) = detector.run_grey_batch(&[(&resized, width)], (canvas_w, canvas_h), 1.0)?;
    let map = map.as_slice();
    if map.len() != canvas_w * canvas_h {
        return Err(PpOcrError::Inference(format!(
            "probability map of {} values for a {canvas_w}x{canvas_h} input",
            map.len()
        )));
    }
    let to_picture_x = w / width as f64;
    let to_picture_y = h / height as f64;
    let mut boxes: Vec<TextBox> = regions(map, canvas_w, width, height)
        .into_iter()
        .filter_map(|region| {
            let (rx, ry, rw, rh) = region.grown()?;
            let x0 = (rx * to_picture_x).clamp(0.0, w);
            let y0 = (ry * to_picture_y).clamp(0.0, h);
            let x1 = ((rx + rw) * to_picture_x).clamp(0.0, w);
            let y1 = ((ry + rh) * to_picture_y).clamp(0.0, h);
            (x1 - x0 >= 1.0 && y1 - y0 >= 1.0).then_some(TextBox {
                x: x0,
                y: y0,
                w: x1 - x0,
                h: y1 - y0,
                score: region.score,
            })
        })
        .collect();
    sort_reading_order(&mut boxes);
    Ok(boxes)
}

/// A connected region of the thresholded map, in map pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Region {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
    score: f32,
}

impl Region {
    /// The box grown by PaddleOCR's unclip distance, or `None` when it is too small to be text.
    fn grown(&self) -> Option<(f64, f64, f64, f64)> {
        let w = (self.x1 - self.x0 + 1) as f64;
        let h = (self.y1 - self.y0 + 1) as f64;
        if w.min(h) < MIN_SIDE {
            return None;
        }
        let distance = w * h * UNCLIP_RATIO / (2.0 * (w + h));
        let (gw, gh) = (w + 2.0 * distance, h + 2.0 * distance);
        if gw.min(gh) < MIN_SIDE + 2.0 {
            return None;
        }
        Some((self.x0 as f64 - distance, self.y0 as f64 - distance, gw, gh))
    }
}

/// The 8-connected regions of the map above [`BINARY_THRESHOLD`] after a 2×2 dilation, within
/// the picture's `width × height` part of a `stride`-wide map, whose mean probability over
/// their box is at least [`BOX_THRESHOLD`].
fn regions(map: &[f32], stride: usize, width: usize, height: usize) -> Vec<Region> {
    let on = |x: usize, y: usize| map[y * stride + x] > BINARY_THRESHOLD;
    // Dilation by a 2×2 kernel: a pixel is on when it or its left, upper or upper-left
    // neighbour is.
    let mut binary = vec![false; width * height];
    for y in 0..height {
        for x in 0..width {
            binary[y * width + x] = on(x, y)
                || (x > 0 && on(x - 1, y))
                || (y > 0 && on(x, y - 1))
                || (x > 0 && y > 0 && on(x - 1, y - 1));
        }
    }
    let mut seen = vec![false; width * height];
    let mut found = Vec::new();
    let mut stack = Vec::new();
    for start in 0..binary.len() {
        if !binary[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        while let Some(at) = stack.pop() {
            let (x, y) = (at % width, at / width);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= width as i64 || ny >= height as i64 {
                        continue;
                    }
                    let next = ny as usize * width + nx as usize;
                    if binary[next] && !seen[next] {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
        }
        let mut sum = 0.0f64;
        for y in y0..=y1 {
            for x in x0..=x1 {
                sum += f64::from(map[y * stride + x]);
            }
        }
        let score = (sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f64) as f32;
        if score >= BOX_THRESHOLD {
            found.push(Region {
                x0,
                y0,
                x1,
                y1,
                score,
            });
        }
    }
    found
}

/// Top to bottom; boxes whose tops are within half the smaller height of each other are one
/// row, read left to right.
fn sort_reading_order(boxes: &mut [TextBox]) {
    boxes.sort_by(|a, b| a.y.total_cmp(&b.y));
    let mut start = 0;
    while start < boxes.len() {
        let mut end = start + 1;
        while end < boxes.len()
            && boxes[end].y - boxes[start].y < 0.5 * boxes[start].h.min(boxes[end].h)
        {
            end += 1;
        }
        boxes[start..end].sort_by(|a, b| a.x.total_cmp(&b.x));
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_blobs_are_two_regions_and_a_faint_one_is_none() {
        let (w, h) = (40, 20);
        let mut map = vec![0.0f32; w * h];
        for y in 2..8 {
            for x in 2..15 {
                map[y * w + x] = 0.9;
            }
            for x in 25..38 {
                map[y * w + x] = 0.8;
            }
        }
        for y in 12..18 {
            for x in 5..30 {
                // Above the binary threshold, below the box threshold.
                map[y * w + x] = 0.35;
            }
        }
        let found = regions(&map, w, w, h);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(
            (found[0].x0, found[0].y0, found[0].x1, found[0].y1),
            (2, 2, 15, 8)
        );
        assert!(found[0].score > 0.5 && found[1].score > 0.5);
    }

    #[test]
    fn unclip_grows_by_area_over_perimeter() {
        let region = Region {
            x0: 10,
            y0: 10,
            x1: 49,
            y1: 19,
            score: 0.9,
        };
        // 40 × 10: distance = 400 × 1.6 / 100 = 6.4.
        let (x, y, w, h) = region.grown().expect("big enough");
        assert!((x - 3.6).abs() < 1e-9 && (y - 3.6).abs() < 1e-9);
        assert!((w - 52.8).abs() < 1e-9 && (h - 22.8).abs() < 1e-9);
        let tiny = Region {
            x0: 0,
            y0: 0,
            x1: 1,
            y1: 30,
            score: 0.9,
        };
        assert_eq!(tiny.grown(), None);
    }

    #[test]
    fn rows_read_left_to_right() {
        let b = |x: f64, y: f64| TextBox {
            x,
            y,
            w: 50.0,
            h: 20.0,
            score: 0.9,
        };
        let mut boxes = vec![b(200.0, 52.0), b(10.0, 100.0), b(10.0, 50.0)];
        sort_reading_order(&mut boxes);
        let order: Vec<(f64, f64)> = boxes.iter().map(|b| (b.x, b.y)).collect();
        assert_eq!(order, vec![(10.0, 50.0), (200.0, 52.0), (10.0, 100.0)]);
    }

    #[test]
    fn resize_keeps_a_flat_picture_flat_and_halves_dimensions() {
        let pixels = vec![200u8; 8 * 6];
        let picture = GreyPixels::new(8, 6, &pixels).expect("sizes agree");
        let out = resize(picture, 4, 3);
        assert_eq!(out, vec![200u8; 12]);
    }
}
