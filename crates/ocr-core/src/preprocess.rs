//! Loading pictures safely and preparing them for recognition.
//!
//! Order of work for an uploaded picture: [`load_image`] (mime check, header limits before any
//! pixel is decoded, EXIF orientation, greyscale), then the page cut out of a photo's surround
//! ([`correct_perspective`]), then [`deskew`] (small angles, up to ±[`MAX_SKEW_DEGREES`]), then
//! recognition (with [`flatten_illumination`] before the PP-OCR models, [`upscale`] of small
//! text before Tesseract: [`PhotoSteps`]); the quarter-turn page rotation is found by
//! Tesseract's orientation detection during recognition (see [`crate::engine`]) and
//! [`rotate_quarter`] turns the picture upright for ruling and code detection.
//!
//! No binarisation is applied before recognition by default: Tesseract binarises internally
//! (Otsu), and handing it grey keeps the anti-aliasing it uses; Sauvola's adaptive threshold
//! ([`sauvola`]) is there but did not pay on photos (docs/decisions.md, "Photo steps"); our own
//! threshold ([`otsu_threshold`]) is used for skew and ruling detection.

use std::io::Cursor;

use image::{
    DynamicImage, ImageDecoder, ImageFormat, ImageReader, imageops, metadata::Orientation,
};

use crate::OcrError;

mod photo;
pub use photo::{
    PHOTO_MAX_PIXELS, PhotoSteps, Point, SAUVOLA_K, UPSCALE_BELOW_LINE_HEIGHT, UPSCALE_MAX_PIXELS,
    UPSCALE_TARGET_LINE_HEIGHT, correct_perspective, find_page_quad, sauvola, sauvola_window,
    stretch_contrast, text_line_height, upscale, upscale_factor,
};

/// Widest picture accepted (the service's published limit).
pub const MAX_WIDTH: u32 = 10_000;
/// Most pixels accepted in one picture: 100 Mpx, a 10000 × 10000 page. Checked on the header,
/// so a small file that declares huge dimensions (a decompression bomb) is refused without
/// allocating.
pub const MAX_PIXELS: u64 = 100_000_000;
/// Largest skew angle searched for and corrected, degrees.
pub const MAX_SKEW_DEGREES: f64 = 10.0;
/// Skew below this is left alone: Tesseract reads it unharmed and rotating costs sharpness.
pub const MIN_CORRECTED_SKEW_DEGREES: f64 = 0.3;

/// The picture types accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageMime {
    /// `image/png`
    Png,
    /// `image/jpeg`
    Jpeg,
    /// `image/webp`
    Webp,
}

impl ImageMime {
    /// From a mime type as sent by a caller (`image/png`, `image/jpeg` or `image/jpg`,
    /// `image/webp`; case-insensitive, parameters after `;` ignored).
    pub fn from_mime(mime: &str) -> Result<Self, OcrError> {
        let essence = mime
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        match essence.as_str() {
            "image/png" => Ok(Self::Png),
            "image/jpeg" | "image/jpg" => Ok(Self::Jpeg),
            "image/webp" => Ok(Self::Webp),
            _ => Err(OcrError::UnsupportedMime(mime.to_owned())),
        }
    }

    /// The canonical mime type.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
        }
    }

    fn format(self) -> ImageFormat {
        match self {
            Self::Png => ImageFormat::Png,
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Webp => ImageFormat::WebP,
        }
    }
}

/// Size limits checked on the header before decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLimits {
    /// Widest accepted picture, pixels.
    pub max_width: u32,
    /// Most accepted pixels (width × height).
    pub max_pixels: u64,
}

impl Default for ImageLimits {
    fn default() -> Self {
        Self {
            max_width: MAX_WIDTH,
            max_pixels: MAX_PIXELS,
        }
    }
}

impl ImageLimits {
    /// Checks declared dimensions against the limits.
    pub fn check(&self, width: u32, height: u32) -> Result<(), OcrError> {
        if width > self.max_width {
            return Err(OcrError::ImageTooWide {
                width,
                max: self.max_width,
            });
        }
        let pixels = u64::from(width) * u64::from(height);
        if pixels > self.max_pixels {
            return Err(OcrError::ImageTooLarge {
                width,
                height,
                pixels,
                max: self.max_pixels,
            });
        }
        Ok(())
    }
}

/// An 8-bit grey picture, row by row, one byte per pixel, no padding.
#[derive(Clone, PartialEq, Eq)]
pub struct GreyImage {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl std::fmt::Debug for GreyImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GreyImage({}x{})", self.width, self.height)
    }
}

impl GreyImage {
    /// A picture from its pixels; the length must be `width * height`.
    pub fn new(width: u32, height: u32, pixels: Vec<u8>) -> Result<Self, OcrError> {
        let expected = width as usize * height as usize;
        if pixels.len() != expected {
            return Err(OcrError::BufferSize {
                width,
                height,
                expected,
                actual: pixels.len(),
            });
        }
        Ok(Self {
            width,
            height,
            pixels,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, row by row.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The pixels, taken out.
    pub fn into_pixels(self) -> Vec<u8> {
        self.pixels
    }

    /// The value at `(x, y)`, white outside the picture.
    fn at(&self, x: i64, y: i64) -> u8 {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return u8::MAX;
        }
        self.pixels[y as usize * self.width as usize + x as usize]
    }
}

/// A decoded, orientation-corrected grey picture.
#[derive(Debug, Clone)]
pub struct LoadedImage {
    /// The picture, greyscale, upright as its EXIF orientation says.
    pub image: GreyImage,
    /// The EXIF orientation that was applied (rotation or flip), if the file carried one.
    pub exif_orientation_applied: bool,
}

/// Bytes of decoded pixels allowed per accepted pixel: the widest 8-bit layout, RGBA. A
/// picture whose decoded form would be larger (16 bits per channel: a 100 Mpx RGBA16 PNG is
/// 800 MB) is refused before decoding.
pub const DECODE_BYTES_PER_PIXEL: u64 = 4;

/// Reads the format, the dimensions and the EXIF orientation from the header only, checks the
/// dimensions as displayed (after the orientation turns the picture) against `limits` and the
/// decoded size against the decode budget (`limits.max_pixels` ×
/// [`DECODE_BYTES_PER_PIXEL`]). Nothing is decoded; this is what to call before naming a
/// price. Returns the displayed width and height.
pub fn probe_image(
    bytes: &[u8],
    declared: ImageMime,
    limits: &ImageLimits,
) -> Result<(u32, u32), OcrError> {
    let (_, width, height, _) = open_decoder(bytes, declared, limits)?;
    Ok((width, height))
}

/// Whether an EXIF orientation turns the picture by a quarter (width and height swap).
fn swaps_axes(orientation: Orientation) -> bool {
    matches!(
        orientation,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// The decoder of a checked picture, with its displayed size and orientation.
fn open_decoder<'b>(
    bytes: &'b [u8],
    declared: ImageMime,
    limits: &ImageLimits,
) -> Result<(Box<dyn image::ImageDecoder + 'b>, u32, u32, Orientation), OcrError> {
    let detected = image::guess_format(bytes).ok();
    if detected != Some(declared.format()) {
        return Err(OcrError::MimeMismatch {
            declared: declared.as_str(),
            detected: detected.map_or("unknown", |f| f.to_mime_type()),
        });
    }
    let (stored_width, stored_height) =
        ImageReader::with_format(Cursor::new(bytes), declared.format())
            .into_dimensions()
            .map_err(|e| OcrError::Decode(e.to_string()))?;
    // Refused before the decoder even reads the metadata: too wide whichever way it is turned,
    // and too many pixels (the count does not depend on the orientation). The width limit
    // proper applies to the picture as displayed (below).
    if stored_width.min(stored_height) > limits.max_width {
        return Err(OcrError::ImageTooWide {
            width: stored_width.min(stored_height),
            max: limits.max_width,
        });
    }
    let pixels = u64::from(stored_width) * u64::from(stored_height);
    if pixels > limits.max_pixels {
        return Err(OcrError::ImageTooLarge {
            width: stored_width,
            height: stored_height,
            pixels,
            max: limits.max_pixels,
        });
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), declared.format());
    let budget = limits.max_pixels.saturating_mul(DECODE_BYTES_PER_PIXEL);
    // Defence in depth: the decoder enforces the same dimensions and the decode budget.
    let mut decoder_limits = image::Limits::default();
    decoder_limits.max_image_width = Some(stored_width.max(1));
    decoder_limits.max_image_height = Some(stored_height.max(1));
    decoder_limits.max_alloc = Some(budget);
    reader.limits(decoder_limits);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| OcrError::Decode(e.to_string()))?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let (width, height) = if swaps_axes(orientation) {
        (stored_height, stored_width)
    } else {
        (stored_width, stored_height)
    };
    limits.check(width, height)?;
    let bytes_needed = decoder.total_bytes();
    if bytes_needed > budget {
        return Err(OcrError::DecodeTooLarge {
            width: stored_width,
            height: stored_height,
            bytes: bytes_needed,
            max: budget,
        });
    }
    Ok((Box::new(decoder), width, height, orientation))
}

/// Loads a PNG, JPEG or WebP picture: checks the bytes against the declared type, the
/// displayed dimensions against `limits` and the decoded size against the decode budget
/// before decoding (see [`probe_image`]), decodes, converts to grey (transparent areas become
/// white) and only then applies the EXIF orientation, on one byte per pixel.
pub fn load_image(
    bytes: &[u8],
    declared: ImageMime,
    limits: &ImageLimits,
) -> Result<LoadedImage, OcrError> {
    let (decoder, width, height, orientation) = open_decoder(bytes, declared, limits)?;
    let decoded =
        DynamicImage::from_decoder(decoder).map_err(|e| OcrError::Decode(e.to_string()))?;
    // Grey first: the turn then copies one byte per pixel, and the colour image is dropped
    // before it.
    let grey = into_grey(decoded);
    tracing::debug!(width, height, ?orientation, "image decoded");
    Ok(LoadedImage {
        image: orient(grey, orientation),
        exif_orientation_applied: orientation != Orientation::NoTransforms,
    })
}

/// Greyscale of a decoded picture, reusing its buffer when it already is 8-bit grey.
fn into_grey(image: DynamicImage) -> GreyImage {
    match image {
        DynamicImage::ImageLuma8(buffer) => GreyImage {
            width: buffer.width(),
            height: buffer.height(),
            pixels: buffer.into_raw(),
        },
        other => to_grey(&other),
    }
}

/// Applies an EXIF orientation to a grey picture.
fn orient(image: GreyImage, orientation: Orientation) -> GreyImage {
    match orientation {
        Orientation::NoTransforms => image,
        Orientation::Rotate90 => rotate_quarter(&image, 90),
        Orientation::Rotate180 => rotate_quarter(&image, 180),
        Orientation::Rotate270 => rotate_quarter(&image, 270),
        Orientation::FlipHorizontal => flip(image, true),
        Orientation::FlipVertical => flip(image, false),
        Orientation::Rotate90FlipH => flip(rotate_quarter(&image, 90), true),
        Orientation::Rotate270FlipH => flip(rotate_quarter(&image, 270), true),
    }
}

/// Mirrors a picture left to right or top to bottom in place (EXIF orientations).
fn flip(image: GreyImage, horizontal: bool) -> GreyImage {
    let GreyImage {
        width,
        height,
        pixels,
    } = image;
    match image::GrayImage::from_raw(width, height, pixels) {
        Some(mut buffer) => {
            if horizontal {
                imageops::flip_horizontal_in_place(&mut buffer);
            } else {
                imageops::flip_vertical_in_place(&mut buffer);
            }
            GreyImage {
                width,
                height,
                pixels: buffer.into_raw(),
            }
        }
        // Unreachable: `GreyImage::new` checked the length. An empty picture stays empty.
        None => GreyImage {
            width,
            height,
            pixels: Vec::new(),
        },
    }
}

/// Greyscale, compositing any transparency onto white (a transparent PNG of black text would
/// otherwise turn all black).
pub fn to_grey(image: &DynamicImage) -> GreyImage {
    let (width, height) = (image.width(), image.height());
    let pixels = if image.color().has_alpha() {
        image
            .to_luma_alpha8()
            .pixels()
            .map(|p| {
                let [luma, alpha] = p.0;
                let alpha = u32::from(alpha);
                ((u32::from(luma) * alpha + 255 * (255 - alpha)) / 255) as u8
            })
            .collect()
    } else {
        image.to_luma8().into_raw()
    };
    GreyImage {
        width,
        height,
        pixels,
    }
}

/// Turns a picture clockwise by a quarter-turn multiple (0, 90, 180 or 270 degrees; other
/// values are taken modulo 360 and rounded down to a quarter turn).
pub fn rotate_quarter(image: &GreyImage, degrees_clockwise: u32) -> GreyImage {
    // A view of the pixels, no copy; it always fits, as `GreyImage::new` checked the length.
    let Some(view) = image::ImageBuffer::<image::Luma<u8>, &[u8]>::from_raw(
        image.width,
        image.height,
        &image.pixels,
    ) else {
        return image.clone();
    };
    let turned = match (degrees_clockwise % 360) / 90 {
        1 => imageops::rotate90(&view),
        2 => imageops::rotate180(&view),
        3 => imageops::rotate270(&view),
        _ => return image.clone(),
    };
    GreyImage {
        width: turned.width(),
        height: turned.height(),
        pixels: turned.into_raw(),
    }
}

/// Otsu's threshold of a picture: pixels at or below it are ink.
pub fn otsu_threshold(image: &GreyImage) -> u8 {
    pp_ocr::otsu_threshold(&image.pixels)
}

/// The skew found on a page and whether it was corrected.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deskew {
    /// Angle of the text lines, degrees, positive when they run downwards to the right
    /// (clockwise on screen); `0` when none was found.
    pub angle_degrees: f64,
    /// Whether the picture was rotated back by that angle.
    pub corrected: bool,
}

/// Estimates the skew of the text lines within ±[`MAX_SKEW_DEGREES`]: projection profiles of the
/// ink of a downscaled, binarised copy are taken at candidate angles, and the angle whose
/// profile is sharpest (largest sum of squared bin counts: lines fall into few bins, gaps into
/// empty ones) wins. Lines running across the page and lines running down it (a page turned a
/// quarter) are both searched. `None` when there is too little ink to tell.
pub fn estimate_skew(image: &GreyImage) -> Option<f64> {
    const TARGET_WIDTH: u32 = 1000;
    let factor = (image.width.max(image.height) / TARGET_WIDTH).max(1);
    let threshold = otsu_threshold(image);
    let mut ink = Vec::new();
    let step = factor as usize;
    let (w, h) = (image.width as usize, image.height as usize);
    // Ink points of a box-downscaled copy: a cell is ink when its darkest pixel is.
    for by in (0..h).step_by(step) {
        for bx in (0..w).step_by(step) {
            let mut darkest = u8::MAX;
            for y in by..(by + step).min(h) {
                let row = &image.pixels[y * w..(y + 1) * w];
                for &p in &row[bx..(bx + step).min(w)] {
                    darkest = darkest.min(p);
                }
            }
            if darkest <= threshold {
                ink.push(((bx / step) as f64, (by / step) as f64));
            }
        }
    }
    // Nearly blank or nearly black pages carry no line structure.
    let cells = (w / step).max(1) * (h / step).max(1);
    if ink.len() < 200 || ink.len() > cells / 2 {
        return None;
    }
    if ink.len() > 150_000 {
        let keep = ink.len() / 150_000 + 1;
        ink = ink.into_iter().step_by(keep).collect();
    }
    // Every projected offset lies within ±(width + height) of the downscaled copy: the bins
    // are one flat array, reused for every angle (a hash map made this the slowest step).
    let reach = (w / step + h / step + 2) as i64;
    let mut bins = vec![0u64; 2 * reach as usize + 1];
    let mut score = |degrees: f64, across: bool| -> f64 {
        let (sin, cos) = degrees.to_radians().sin_cos();
        bins.fill(0);
        for &(x, y) in &ink {
            let offset = if across {
                y * cos - x * sin
            } else {
                x * cos + y * sin
            };
            let index = (offset.round() as i64 + reach).clamp(0, 2 * reach) as usize;
            bins[index] += 1;
        }
        bins.iter().map(|&n| (n * n) as f64).sum()
    };
    let mut search = |from: f64, to: f64, step: f64, across: bool| -> (f64, f64) {
        let mut best = (0.0, f64::MIN);
        let mut angle = from;
        while angle <= to + 1e-9 {
            let s = score(angle, across);
            if s > best.1 {
                best = (angle, s);
            }
            angle += step;
        }
        best
    };
    let coarse_across = search(-MAX_SKEW_DEGREES, MAX_SKEW_DEGREES, 0.5, true);
    let coarse_down = search(-MAX_SKEW_DEGREES, MAX_SKEW_DEGREES, 0.5, false);
    let (coarse, across) = if coarse_across.1 >= coarse_down.1 {
        (coarse_across.0, true)
    } else {
        (coarse_down.0, false)
    };
    let (fine, _) = search(coarse - 0.5, coarse + 0.5, 0.05, across);
    Some((fine * 100.0).round() / 100.0)
}

/// Finds the skew and, when it is at least [`MIN_CORRECTED_SKEW_DEGREES`], rotates the picture
/// back (bilinear, same size, white where the rotation uncovers the corners).
pub fn deskew(image: &GreyImage) -> (GreyImage, Deskew) {
    let angle = estimate_skew(image).unwrap_or(0.0);
    if angle.abs() < MIN_CORRECTED_SKEW_DEGREES {
        return (
            image.clone(),
            Deskew {
                angle_degrees: angle,
                corrected: false,
            },
        );
    }
    (
        rotate_by(image, -angle),
        Deskew {
            angle_degrees: angle,
            corrected: true,
        },
    )
}

/// Rotates by `degrees` clockwise about the centre, keeping the size.
pub fn rotate_by(image: &GreyImage, degrees: f64) -> GreyImage {
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (cx, cy) = (f64::from(image.width) / 2.0, f64::from(image.height) / 2.0);
    let mut pixels = Vec::with_capacity(image.pixels.len());
    for y in 0..image.height {
        for x in 0..image.width {
            // Inverse mapping: where in the source does this output pixel come from.
            let dx = f64::from(x) + 0.5 - cx;
            let dy = f64::from(y) + 0.5 - cy;
            let sx = dx * cos + dy * sin + cx - 0.5;
            let sy = -dx * sin + dy * cos + cy - 0.5;
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let top =
                f64::from(image.at(x0, y0)) * (1.0 - fx) + f64::from(image.at(x0 + 1, y0)) * fx;
            let bottom = f64::from(image.at(x0, y0 + 1)) * (1.0 - fx)
                + f64::from(image.at(x0 + 1, y0 + 1)) * fx;
            pixels.push((top * (1.0 - fy) + bottom * fy).round().clamp(0.0, 255.0) as u8);
        }
    }
    GreyImage {
        width: image.width,
        height: image.height,
        pixels,
    }
}

/// Evens out uneven lighting (a shadow across a photo, a lamp's gradient, thermal paper gone
/// grey at one end): each pixel is divided by the paper's brightness around it, so paper reads
/// white everywhere and ink keeps its contrast with the paper under it. The paper's brightness
/// is the brightest tenth of each block of about a sixteenth of the shorter side (ink covers
/// less than that of a block of text), smoothed over the neighbouring blocks and interpolated
/// between block centres.
pub fn flatten_illumination(image: &GreyImage) -> GreyImage {
    let (w, h) = (image.width as usize, image.height as usize);
    let block = (w.min(h) / 16).clamp(8, 64);
    let (bw, bh) = (w.div_ceil(block), h.div_ceil(block));
    let mut paper = vec![0f32; bw * bh];
    let mut histogram = [0u32; 256];
    for by in 0..bh {
        for bx in 0..bw {
            histogram.fill(0);
            let (x0, y0) = (bx * block, by * block);
            let (x1, y1) = ((x0 + block).min(w), (y0 + block).min(h));
            for y in y0..y1 {
                for &p in &image.pixels[y * w + x0..y * w + x1] {
                    histogram[usize::from(p)] += 1;
                }
            }
            let count = ((x1 - x0) * (y1 - y0)) as u32;
            // The grey level with a tenth of the block at or above it.
            let mut above = 0;
            let mut level = 255usize;
            while level > 0 {
                above += histogram[level];
                if above * 10 >= count {
                    break;
                }
                level -= 1;
            }
            paper[by * bw + bx] = level as f32;
        }
    }
    // A 3×3 mean over the blocks: a block that is all ink (a logo, a bar code) takes its
    // neighbours' paper.
    let smoothed: Vec<f32> = (0..bh)
        .flat_map(|by| (0..bw).map(move |bx| (bx, by)))
        .map(|(bx, by)| {
            let (mut sum, mut n) = (0f32, 0f32);
            for y in by.saturating_sub(1)..=(by + 1).min(bh - 1) {
                for x in bx.saturating_sub(1)..=(bx + 1).min(bw - 1) {
                    sum += paper[y * bw + x];
                    n += 1.0;
                }
            }
            sum / n
        })
        .collect();
    let at = |fx: f32, fy: f32| -> f32 {
        // Block coordinates of a pixel, measured from the first block's centre.
        let fx = fx.clamp(0.0, (bw - 1) as f32);
        let fy = fy.clamp(0.0, (bh - 1) as f32);
        let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(bw - 1), (y0 + 1).min(bh - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let top = smoothed[y0 * bw + x0] * (1.0 - tx) + smoothed[y0 * bw + x1] * tx;
        let bottom = smoothed[y1 * bw + x0] * (1.0 - tx) + smoothed[y1 * bw + x1] * tx;
        top * (1.0 - ty) + bottom * ty
    };
    let half = block as f32 / 2.0;
    let mut pixels = Vec::with_capacity(image.pixels.len());
    for y in 0..h {
        let fy = (y as f32 + 0.5 - half) / block as f32;
        for x in 0..w {
            let fx = (x as f32 + 0.5 - half) / block as f32;
            // Paper darker than a sixteenth of white is no paper (a dark table around the
            // slip): left as it is rather than amplified.
            let original = image.pixels[y * w + x];
            let background = at(fx, fy);
            pixels.push(if background < 16.0 {
                original
            } else {
                (f32::from(original) * 255.0 / background)
                    .round()
                    .clamp(0.0, 255.0) as u8
            });
        }
    }
    GreyImage {
        width: image.width,
        height: image.height,
        pixels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lined_page(width: u32, height: u32, skew_degrees: f64) -> GreyImage {
        // Dashed dark "text lines" every 30 px, drawn along the skew angle.
        let mut pixels = vec![255u8; (width * height) as usize];
        let slope = skew_degrees.to_radians().tan();
        for line in 0..(height / 30) {
            let y0 = f64::from(line * 30 + 40);
            for x in 40..width.saturating_sub(40) {
                if (x / 12) % 4 == 3 {
                    continue;
                }
                for t in 0..8 {
                    let y = y0 + f64::from(x) * slope + f64::from(t);
                    if y >= 0.0 && (y as u32) < height {
                        pixels[(y as u32 * width + x) as usize] = 0;
                    }
                }
            }
        }
        GreyImage::new(width, height, pixels).expect("sized")
    }

    /// A committed crop of `testdata/ocr/photo` (made by its `make_crops.py`), decoded.
    pub(super) fn photo_crop(name: &str) -> GreyImage {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/ocr/photo")
            .join(name);
        let bytes = std::fs::read(&path).expect("crop made by make_crops.py");
        load_image(&bytes, ImageMime::Png, &ImageLimits::default())
            .expect("a PNG")
            .image
    }

    /// Pixels on the same side of Otsu's threshold in both pictures, as a share.
    pub(super) fn ink_agreement(a: &GreyImage, b: &GreyImage) -> f64 {
        let (ta, tb) = (otsu_threshold(a), otsu_threshold(b));
        let same = a
            .pixels()
            .iter()
            .zip(b.pixels())
            .filter(|(p, q)| (**p <= ta) == (**q <= tb))
            .count();
        same as f64 / a.pixels().len() as f64
    }

    #[test]
    fn a_shadow_is_flattened_to_white_paper_with_the_ink_kept() {
        let clean = photo_crop("clean.png");
        let shadow = photo_crop("shadow.png");
        // One threshold cannot separate ink from paper under the shadow.
        assert!(ink_agreement(&clean, &shadow) < 0.9);
        let flat = flatten_illumination(&shadow);
        assert!(
            ink_agreement(&clean, &flat) > 0.98,
            "{}",
            ink_agreement(&clean, &flat)
        );
        // Paper at the bright and the dark end both read close to white.
        let paper = |x: usize| {
            let w = flat.width() as usize;
            (0..flat.height() as usize)
                .map(|y| flat.pixels()[y * w + x])
                .max()
                .unwrap_or(0)
        };
        assert!(paper(2) >= 245 && paper(flat.width() as usize - 3) >= 245);
        // A picture without a shadow stays as it was, within rounding.
        let again = flatten_illumination(&clean);
        assert!(ink_agreement(&clean, &again) > 0.99);
    }

    #[test]
    fn mime_parsing() {
        assert_eq!(
            ImageMime::from_mime("IMAGE/JPG; q=1").expect("jpeg"),
            ImageMime::Jpeg
        );
        assert!(matches!(
            ImageMime::from_mime("image/gif"),
            Err(OcrError::UnsupportedMime(_))
        ));
    }

    #[test]
    fn limits() {
        let limits = ImageLimits::default();
        assert!(limits.check(10_000, 10_000).is_ok());
        assert!(matches!(
            limits.check(10_001, 1),
            Err(OcrError::ImageTooWide { width: 10_001, .. })
        ));
        assert!(matches!(
            limits.check(9_000, 20_000),
            Err(OcrError::ImageTooLarge { .. })
        ));
    }

    #[test]
    fn quarter_rotations_compose_and_map_corners() {
        let img = GreyImage::new(3, 2, vec![1, 2, 3, 4, 5, 6]).expect("sized");
        let r90 = rotate_quarter(&img, 90);
        assert_eq!((r90.width(), r90.height()), (2, 3));
        // Clockwise: the bottom-left pixel (4) lands top-left.
        assert_eq!(r90.pixels(), &[4, 1, 5, 2, 6, 3]);
        assert_eq!(rotate_quarter(&img, 270).pixels(), &[3, 6, 2, 5, 1, 4]);
        assert_eq!(rotate_quarter(&r90, 270), img);
        assert_eq!(rotate_quarter(&rotate_quarter(&img, 180), 180), img);
    }

    #[test]
    fn otsu_splits_two_levels() {
        let img = GreyImage::new(4, 1, vec![20, 30, 220, 230]).expect("sized");
        let t = otsu_threshold(&img);
        assert!((30..220).contains(&t), "{t}");
    }

    #[test]
    fn skew_of_synthetic_lines_is_found() {
        for angle in [-4.0, 0.0, 2.5] {
            let page = lined_page(800, 900, angle);
            let found = estimate_skew(&page).expect("lines");
            assert!((found - angle).abs() <= 0.2, "{angle}: {found}");
        }
    }

    #[test]
    fn deskew_corrects_and_blank_has_no_skew() {
        let page = lined_page(700, 700, 3.0);
        let (straight, report) = deskew(&page);
        assert!(report.corrected);
        let after = estimate_skew(&straight).expect("lines");
        assert!(after.abs() <= 0.2, "{after}");
        let blank = GreyImage::new(100, 100, vec![255; 10_000]).expect("sized");
        assert_eq!(estimate_skew(&blank), None);
    }

    #[test]
    fn every_exif_orientation_turns_and_mirrors_as_drawn() {
        // 1 2 3
        // 4 5 6
        let img = GreyImage::new(3, 2, vec![1, 2, 3, 4, 5, 6]).expect("buffer");
        let cases: [(Orientation, (u32, u32), [u8; 6]); 8] = [
            (Orientation::NoTransforms, (3, 2), [1, 2, 3, 4, 5, 6]),
            (Orientation::Rotate90, (2, 3), [4, 1, 5, 2, 6, 3]),
            (Orientation::Rotate180, (3, 2), [6, 5, 4, 3, 2, 1]),
            (Orientation::Rotate270, (2, 3), [3, 6, 2, 5, 1, 4]),
            (Orientation::FlipHorizontal, (3, 2), [3, 2, 1, 6, 5, 4]),
            (Orientation::FlipVertical, (3, 2), [4, 5, 6, 1, 2, 3]),
            (Orientation::Rotate90FlipH, (2, 3), [1, 4, 2, 5, 3, 6]),
            (Orientation::Rotate270FlipH, (2, 3), [6, 3, 5, 2, 4, 1]),
        ];
        for (orientation, (width, height), pixels) in cases {
            let out = orient(img.clone(), orientation);
            assert_eq!(
                (out.width(), out.height()),
                (width, height),
                "{orientation:?}"
            );
            assert_eq!(out.pixels(), &pixels, "{orientation:?}");
        }
        assert_eq!(rotate_quarter(&img, 450).pixels(), &[4, 1, 5, 2, 6, 3]);
    }

    #[test]
    fn bad_buffer_is_an_error() {
        assert!(matches!(
            GreyImage::new(3, 3, vec![0; 8]),
            Err(OcrError::BufferSize { expected: 9, .. })
        ));
    }

    proptest! {
        #[test]
        fn loading_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            for mime in [ImageMime::Png, ImageMime::Jpeg, ImageMime::Webp] {
                let _ = load_image(&bytes, mime, &ImageLimits::default());
            }
        }
    }
}
