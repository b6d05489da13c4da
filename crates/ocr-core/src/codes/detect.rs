//! Finding every symbol with rxing: one decoder call finds one symbol, so each symbology is
//! searched again after the symbol just found is painted white, until the call comes back
//! empty. Decoder calls are counted against a fixed budget and each one runs under
//! `catch_unwind`, so an odd image costs bounded time and never a panic.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use base64::Engine as _;
use doc_model::{Code, PageBox, Point, Symbology};
use rxing::common::{GlobalHistogramBinarizer, HybridBinarizer};
use rxing::{
    BarcodeFormat, Binarizer, BinaryBitmap, DecodeHints, Luma8Source, MultiFormatReader,
    RXingResult, RXingResultMetadataType, RXingResultMetadataValue, Reader,
};

use super::CodeOptions;
use super::geometry::{self, GreyImage, blank, bounds};
use super::payload::parse_payload;

/// A symbol found on the page, in pixels of the caller's image.
#[derive(Debug, Clone)]
pub(crate) struct Symbol {
    pub(crate) symbology: Symbology,
    pub(crate) text: String,
    /// The payload bytes, kept only when they are not valid UTF-8.
    pub(crate) binary: Option<Vec<u8>>,
    pub(crate) quad: Vec<Point>,
}

impl Symbol {
    pub(crate) fn into_code(self, page: u32) -> Code {
        let (l, t, r, b) = bounds(&self.quad);
        let (payload, urls) = parse_payload(&self.text);
        Code {
            page,
            symbology: self.symbology,
            bytes_base64: self
                .binary
                .map(|bytes| base64::engine::general_purpose::STANDARD.encode(bytes)),
            text: self.text,
            quad: self
                .quad
                .iter()
                .map(|p| Point {
                    x: doc_model::round2(p.x),
                    y: doc_model::round2(p.y),
                })
                .collect(),
            bbox: PageBox::from_edges(page, l, t, r, b),
            payload,
            urls,
        }
    }
}

/// The 1D symbologies, searched together: rxing's 1D reader scans each row once for all.
const LINEAR_FORMATS: &[BarcodeFormat] = &[
    BarcodeFormat::EAN_13,
    BarcodeFormat::EAN_8,
    BarcodeFormat::CODE_128,
    BarcodeFormat::CODE_39,
];

/// rxing alone: each 2D symbology searched on its own (cheaper than all four per call, and
/// the order of finds no longer depends on a hash set), then the 1D ones.
const ALONE_GROUPS: &[&[BarcodeFormat]] = &[
    &[BarcodeFormat::QR_CODE],
    &[BarcodeFormat::DATA_MATRIX],
    &[BarcodeFormat::AZTEC],
    &[BarcodeFormat::PDF_417],
    LINEAR_FORMATS,
];

/// rxing after zxing-cpp: only the symbologies where it found what zxing-cpp missed on
/// zxing's black-box images (QR, Data Matrix, PDF417; zxing-cpp reads Aztec and the 1D codes
/// at least as well), in one group so a page without a code costs one call per pass.
#[cfg(feature = "zxing-cpp")]
const AFTER_ZXING_CPP_GROUPS: &[&[BarcodeFormat]] = &[&[
    BarcodeFormat::QR_CODE,
    BarcodeFormat::DATA_MATRIX,
    BarcodeFormat::PDF_417,
]];

/// What rxing searches for and which retries follow the full-resolution pass.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RxingPlan {
    groups: &'static [&'static [BarcodeFormat]],
    try_harder: bool,
    half_resolution: bool,
    global_threshold: bool,
    inverted: bool,
    upscale_small: bool,
}

impl RxingPlan {
    /// rxing as the only engine: every symbology, every retry the options allow.
    pub(crate) fn alone(options: &CodeOptions) -> Self {
        Self {
            groups: ALONE_GROUPS,
            try_harder: options.try_harder,
            half_resolution: options.retries,
            global_threshold: options.retries,
            inverted: options.retries,
            upscale_small: options.retries,
        }
    }

    /// rxing as the second engine after zxing-cpp, which already looks hard, inverted and
    /// downscaled: the symbologies and retries that added finds on the black-box images
    /// (the global threshold and the upscale of small images; try-harder, half resolution
    /// and inversion added none there and cost most of the time).
    #[cfg(feature = "zxing-cpp")]
    pub(crate) fn after_zxing_cpp(options: &CodeOptions) -> Self {
        Self {
            groups: AFTER_ZXING_CPP_GROUPS,
            try_harder: false,
            half_resolution: false,
            global_threshold: options.retries,
            inverted: false,
            upscale_small: options.retries,
        }
    }
}

/// Pixels painted white around a found symbol beyond its outline.
const BLANK_MARGIN: f64 = 4.0;

/// Below this many pixels an image is taken for a photo of a single code (as in the zxing
/// test sets), not a page: a retry also tries it at twice the size, and after zxing-cpp has
/// found a code on it rxing does not look again. An A4 page at 150 dpi has 2.2 million.
const SMALL_IMAGE_PIXELS: usize = 1_000_000;

/// Whether the image is small enough to be a photo of one code (see [`SMALL_IMAGE_PIXELS`]).
pub(crate) fn is_small_image(image: &GreyImage<'_>) -> bool {
    image.width * image.height < SMALL_IMAGE_PIXELS
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Threshold {
    /// rxing's local (block-wise) threshold, the default.
    Local,
    /// One threshold per row from its histogram: better on blur and soft gradients.
    Global,
}

/// One decoding set-up of a pass.
#[derive(Debug, Clone, Copy)]
struct Pass {
    threshold: Threshold,
    inverted: bool,
}

/// The image a pass works on: a copy of the page, possibly resized, that found symbols are
/// painted out of.
struct Level {
    pixels: Vec<u8>,
    width: usize,
    height: usize,
    /// Page pixels per level pixel.
    scale: f64,
}

impl Level {
    fn image(&self) -> GreyImage<'_> {
        GreyImage {
            pixels: &self.pixels,
            width: self.width,
            height: self.height,
        }
    }

    fn blank_page_quad(&mut self, quad: &[Point]) {
        let local: Vec<Point> = quad
            .iter()
            .map(|p| Point {
                x: p.x / self.scale,
                y: p.y / self.scale,
            })
            .collect();
        blank(
            &mut self.pixels,
            self.width,
            self.height,
            &local,
            BLANK_MARGIN,
        );
    }
}

/// Counts decoder calls; every loop below stops when it runs out.
struct Budget {
    calls_left: usize,
}

impl Budget {
    fn take(&mut self) -> bool {
        if self.calls_left == 0 {
            return false;
        }
        self.calls_left -= 1;
        true
    }
}

/// Every symbol rxing finds, after those in `known` (found by another engine; they are
/// painted out first and kept in the result).
pub(crate) fn read_rxing(
    page: &GreyImage<'_>,
    options: &CodeOptions,
    plan: RxingPlan,
    known: Vec<Symbol>,
) -> Vec<Symbol> {
    let mut found = known;
    // Each symbol costs one successful call, plus the failing call that ends each group's
    // search; at most four passes.
    let mut budget = Budget {
        calls_left: 4 * (options.max_codes + plan.groups.len()),
    };
    let mut full = Level {
        pixels: page.pixels.to_vec(),
        width: page.width,
        height: page.height,
        scale: 1.0,
    };
    for symbol in &found {
        full.blank_page_quad(&symbol.quad);
    }
    let standard = Pass {
        threshold: Threshold::Local,
        inverted: false,
    };
    search(&mut full, standard, &plan, options, &mut found, &mut budget);
    // Large or coarse symbols (and noisy scans) often decode better at half resolution.
    if plan.half_resolution && page.width >= 400 && page.height >= 400 {
        let mut half = halved(&full);
        let before = found.len();
        search(&mut half, standard, &plan, options, &mut found, &mut budget);
        for symbol in &found[before..] {
            full.blank_page_quad(&symbol.quad);
        }
    }
    if found.is_empty() {
        let global = Pass {
            threshold: Threshold::Global,
            inverted: false,
        };
        let inverted = Pass {
            threshold: Threshold::Local,
            inverted: true,
        };
        let retries = [(plan.global_threshold, global), (plan.inverted, inverted)];
        for (_, pass) in retries.into_iter().filter(|(wanted, _)| *wanted) {
            search(&mut full, pass, &plan, options, &mut found, &mut budget);
            if !found.is_empty() {
                break;
            }
        }
    }
    if plan.upscale_small && found.is_empty() && is_small_image(page) {
        let mut double = doubled(&full);
        search(
            &mut double,
            standard,
            &plan,
            options,
            &mut found,
            &mut budget,
        );
    }
    sorted(found)
}

/// Top to bottom, then left to right, so the answer does not depend on the order of finds.
pub(crate) fn sorted(mut symbols: Vec<Symbol>) -> Vec<Symbol> {
    symbols.sort_by(|a, b| {
        let (al, at, _, _) = bounds(&a.quad);
        let (bl, bt, _, _) = bounds(&b.quad);
        at.total_cmp(&bt).then(al.total_cmp(&bl))
    });
    symbols
}

/// Searches each group of symbologies of the plan in turn, each until nothing more is found.
fn search(
    level: &mut Level,
    pass: Pass,
    plan: &RxingPlan,
    options: &CodeOptions,
    found: &mut Vec<Symbol>,
    budget: &mut Budget,
) {
    for group in plan.groups {
        let formats: HashSet<BarcodeFormat> = group.iter().copied().collect();
        while found.len() < options.max_codes && budget.take() {
            let Some(result) = decode_once(level, &formats, pass, plan.try_harder) else {
                break;
            };
            let Some(symbol) = to_symbol(&level.image(), &result, level.scale) else {
                break;
            };
            // Paint it out whether or not it is new, so the next call moves on.
            level.blank_page_quad(&symbol.quad);
            let duplicate = found.iter().any(|known| {
                known.symbology == symbol.symbology
                    && geometry::same_place(&known.quad, &symbol.quad)
            });
            if duplicate {
                // Painting it out did not remove it: searching on would find it again.
                break;
            }
            found.push(symbol);
        }
    }
}

/// One rxing call on the level; a panic inside rxing is caught and logged as "not found".
fn decode_once(
    level: &Level,
    formats: &HashSet<BarcodeFormat>,
    pass: Pass,
    try_harder: bool,
) -> Option<RXingResult> {
    let hints = DecodeHints {
        PossibleFormats: Some(formats.clone()),
        TryHarder: Some(try_harder),
        AlsoInverted: Some(pass.inverted),
        ..DecodeHints::default()
    };
    let (width, height) = (
        u32::try_from(level.width).ok()?,
        u32::try_from(level.height).ok()?,
    );
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let source = Luma8Source::new_with_slice(&level.pixels, width, height).ok()?;
        match pass.threshold {
            Threshold::Local => run(BinaryBitmap::new(HybridBinarizer::new(source)), &hints),
            Threshold::Global => run(
                BinaryBitmap::new(GlobalHistogramBinarizer::new(source)),
                &hints,
            ),
        }
    }));
    outcome.unwrap_or_else(|_| {
        tracing::warn!(?formats, "rxing panicked on this image; treated as no code");
        None
    })
}

fn run<B: Binarizer>(mut bitmap: BinaryBitmap<B>, hints: &DecodeHints) -> Option<RXingResult> {
    MultiFormatReader::default()
        .decode_with_hints(&mut bitmap, hints)
        .ok()
}

/// The symbol in page pixels; `None` for a format outside the eight or a result without
/// points.
fn to_symbol(image: &GreyImage<'_>, result: &RXingResult, scale: f64) -> Option<Symbol> {
    let format = *result.getBarcodeFormat();
    let (symbology, is_matrix) = match format {
        BarcodeFormat::QR_CODE => (Symbology::QrCode, true),
        BarcodeFormat::DATA_MATRIX => (Symbology::DataMatrix, true),
        BarcodeFormat::AZTEC => (Symbology::Aztec, true),
        BarcodeFormat::PDF_417 => (Symbology::Pdf417, true),
        BarcodeFormat::EAN_13 => (Symbology::Ean13, false),
        BarcodeFormat::EAN_8 => (Symbology::Ean8, false),
        BarcodeFormat::CODE_128 => (Symbology::Code128, false),
        BarcodeFormat::CODE_39 => (Symbology::Code39, false),
        _ => return None,
    };
    // rxing's PDF417 detector turns the image to find a rotated symbol and reports the points
    // in the turned frame (counter-clockwise by ORIENTATION degrees); turned back here.
    let turned = match result
        .getRXingResultMetadata()
        .get(&RXingResultMetadataType::ORIENTATION)
    {
        Some(RXingResultMetadataValue::Orientation(degrees))
            if format == BarcodeFormat::PDF_417 =>
        {
            *degrees
        }
        _ => 0,
    };
    let (w, h) = (image.width as f64, image.height as f64);
    let points: Vec<Point> = result
        .getPoints()
        .iter()
        .filter(|p| p.x.is_finite() && p.y.is_finite())
        .map(|p| {
            let (x, y) = (f64::from(p.x), f64::from(p.y));
            match turned {
                90 => Point {
                    x: w - 1.0 - y,
                    y: x,
                },
                180 => Point {
                    x: w - 1.0 - x,
                    y: h - 1.0 - y,
                },
                270 => Point {
                    x: y,
                    y: h - 1.0 - x,
                },
                _ => Point { x, y },
            }
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let quad = if is_matrix {
        geometry::matrix_quad(image, &points)
    } else {
        geometry::linear_quad(image, &points)
    };
    Some(Symbol {
        symbology,
        text: result.getText().to_owned(),
        binary: non_utf8_bytes(result),
        quad: quad
            .into_iter()
            .map(|p| Point {
                x: p.x * scale,
                y: p.y * scale,
            })
            .collect(),
    })
}

/// The byte-mode segments of the symbol when together they are not UTF-8 (binary data or a
/// legacy character set): the text alone would then not give the bytes back.
fn non_utf8_bytes(result: &RXingResult) -> Option<Vec<u8>> {
    let Some(RXingResultMetadataValue::ByteSegments(segments)) = result
        .getRXingResultMetadata()
        .get(&RXingResultMetadataType::BYTE_SEGMENTS)
    else {
        return None;
    };
    let bytes: Vec<u8> = segments.concat();
    (std::str::from_utf8(&bytes).is_err()).then_some(bytes)
}

/// The level at half size, each pixel the mean of a 2x2 block.
fn halved(level: &Level) -> Level {
    let (width, height) = (level.width / 2, level.height / 2);
    let mut pixels = Vec::with_capacity(width * height);
    for y in 0..height {
        let (upper, lower) = (2 * y * level.width, (2 * y + 1) * level.width);
        for x in 0..width {
            let sum: u16 = [
                level.pixels[upper + 2 * x],
                level.pixels[upper + 2 * x + 1],
                level.pixels[lower + 2 * x],
                level.pixels[lower + 2 * x + 1],
            ]
            .iter()
            .map(|&v| u16::from(v))
            .sum();
            pixels.push((sum / 4) as u8);
        }
    }
    Level {
        pixels,
        width,
        height,
        scale: level.scale * 2.0,
    }
}

/// The level at twice the size (nearest neighbour).
fn doubled(level: &Level) -> Level {
    let (width, height) = (level.width * 2, level.height * 2);
    let mut pixels = Vec::with_capacity(width * height);
    for y in 0..height {
        let row = &level.pixels[(y / 2) * level.width..(y / 2 + 1) * level.width];
        pixels.extend(row.iter().flat_map(|&v| [v, v]));
    }
    Level {
        pixels,
        width,
        height,
        scale: level.scale / 2.0,
    }
}
