//! Page images for OCR: hayro renders the page in 8-bit grey at a resolution derived from the
//! page's own images.
//!
//! Resolution: the largest image on the page (by placed area) gives its native resolution
//! (image pixels over placed size in inches, the larger of the two axes); that is clamped to
//! `[min_dpi, max_dpi]`. A page without images gets `default_dpi`. The result is then lowered so
//! the page stays within `max_pixels` (and 65,535 pixels a side, the renderer's limit): a
//! 1800 × 3600 pt poster is not rendered at 300 dpi. A page placing an image of more than
//! `max_image_pixels` source pixels is refused before decoding it.

use hayro::hayro_interpret::font::GlyphRun;
use hayro::hayro_interpret::util::TransformExt;
use hayro::hayro_interpret::{
    BlendMode, ClipPath, Context, Device, DrawMode, DrawProps, Image, ImageDrawProps,
    InterpreterCache, InterpreterSettings, SoftMask, interpret_page,
};
use hayro::kurbo::{BezPath, Rect};
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{PixmapSettings, RenderCache, RenderSettings};

use crate::error::{Budget, PdfError};
use crate::images::{PageImages, PlacedImage};
use crate::load::{PdfDocument, guarded};

/// How pages are rasterised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Lowest resolution derived from a page's images, dots per inch.
    pub min_dpi: f64,
    /// Highest resolution derived from a page's images.
    pub max_dpi: f64,
    /// Resolution of pages without images.
    pub default_dpi: f64,
    /// Most pixels of one rendered page; larger pages get a lower resolution.
    pub max_pixels: u64,
    /// Most source pixels of one image placed on the page; a larger one is refused before it
    /// is decoded.
    pub max_image_pixels: u64,
}

impl RenderOptions {
    /// For OCR: 200–400 dpi from the page's images, 300 dpi otherwise, at most 40 Mpx per page
    /// and 200 Mpx per source image.
    pub const OCR: Self = Self {
        min_dpi: 200.0,
        max_dpi: 400.0,
        default_dpi: 300.0,
        max_pixels: 40_000_000,
        max_image_pixels: 200_000_000,
    };
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self::OCR
    }
}

/// A rendered page in 8-bit grey.
#[derive(Debug, Clone, PartialEq)]
pub struct PageImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` grey values, row-major from the top-left, 0 black, 255 white.
    pub luma: Vec<u8>,
    /// Pixels per inch: a pixel coordinate is a point coordinate times `dpi / 72`.
    pub dpi: f64,
}

/// A device that only records where images are placed.
struct ImageScan {
    images: Vec<PlacedImage>,
}

impl<'a> Device<'a> for ImageScan {
    fn draw_path(&mut self, _: &BezPath, _: DrawProps<'a>, _: &DrawMode) {}
    fn push_clip_path(&mut self, _: &ClipPath) {}
    fn push_transparency_group(&mut self, _: f32, _: Option<SoftMask<'a>>, _: BlendMode) {}
    fn draw_glyph_run(&mut self, _: &GlyphRun<'_, 'a>, _: DrawProps<'a>, _: &DrawMode) {}
    fn draw_image(&mut self, image: Image<'a, '_>, props: ImageDrawProps<'a>) {
        let (w, h) = (image.width(), image.height());
        // The transform maps the image's pixel grid onto the page.
        let [a, b, c, d, _, _] = props.transform.as_coeffs();
        let across = (a * f64::from(w)).hypot(b * f64::from(w));
        let down = (c * f64::from(h)).hypot(d * f64::from(h));
        if across.is_finite() && down.is_finite() && across > 0.0 && down > 0.0 {
            self.images.push(PlacedImage {
                pixels_wide: w,
                pixels_high: h,
                width: across,
                height: down,
            });
        }
    }
    fn pop_clip(&mut self) {}
    fn pop_transparency_group(&mut self) {}
}

/// The renderer's side length limit.
const MAX_SIDE: f64 = u16::MAX as f64;

impl PdfDocument {
    /// The renderer's document and the page's index in it, once the renderer is known to see
    /// the same pages as lopdf.
    fn renderer_page(&self, page: u32) -> Result<(&hayro::hayro_syntax::Pdf, usize), PdfError> {
        let page_count = self.page_count();
        let index = page
            .checked_sub(1)
            .filter(|p| *p < page_count)
            .ok_or(PdfError::PageOutOfRange { page, page_count })? as usize;
        let pdf = self
            .render_doc
            .as_ref()
            .map_err(|reason| PdfError::Render {
                page,
                reason: format!("the renderer cannot open the file: {reason}"),
            })?;
        let rendered = guarded(|| pdf.pages().len()).map_err(|panic| PdfError::Render {
            page,
            reason: format!("the renderer panicked reading the page tree: {panic}"),
        })?;
        if rendered != page_count as usize {
            return Err(PdfError::Render {
                page,
                reason: format!("the renderer sees {rendered} pages, not {page_count}"),
            });
        }
        Ok((pdf, index))
    }

    /// Where the page's images are placed, found by interpreting the page without drawing.
    pub(crate) fn page_images(&self, page: u32) -> Result<PageImages, PdfError> {
        let (pdf, index) = self.renderer_page(page)?;
        self.preflight(page)?;
        let (width, height) = self.geometry(page)?.display_size();
        self.image_cache[index]
            .get_or_init(|| {
                guarded(|| {
                    let hayro_page = &pdf.pages()[index];
                    let cache = InterpreterCache::new();
                    let (w, h) = hayro_page.render_dimensions();
                    let mut context = Context::new(
                        hayro_page.initial_transform(true).to_kurbo(),
                        Rect::new(0.0, 0.0, f64::from(w), f64::from(h)),
                        &cache,
                        hayro_page.xref(),
                        InterpreterSettings::default(),
                    );
                    let mut scan = ImageScan { images: Vec::new() };
                    interpret_page(hayro_page, &mut context, &mut scan);
                    PageImages {
                        page_area: width * height,
                        images: scan.images,
                    }
                })
                .map_err(|panic| PdfError::Render {
                    page,
                    reason: format!("the renderer panicked: {panic}"),
                })
            })
            .clone()
    }

    /// The resolution [`PdfDocument::render_page`] would use for a page.
    pub fn render_dpi(&self, page: u32, options: &RenderOptions) -> Result<f64, PdfError> {
        let images = self.page_images(page)?;
        if let Some(huge) = images.images.iter().find(|i| {
            u64::from(i.pixels_wide) * u64::from(i.pixels_high) > options.max_image_pixels
        }) {
            return Err(PdfError::Render {
                page,
                reason: format!(
                    "an image of {} x {} pixels exceeds the limit of {} pixels",
                    huge.pixels_wide, huge.pixels_high, options.max_image_pixels
                ),
            });
        }
        let wanted = images
            .largest()
            .and_then(PlacedImage::dpi)
            .map(|dpi| dpi.clamp(options.min_dpi, options.max_dpi))
            .unwrap_or(options.default_dpi);
        self.fit_dpi(page, wanted, options.max_pixels)
    }

    /// The page's size as the renderer will draw it, in points (hayro reads the page tree
    /// itself, so its size, not lopdf's, decides how many pixels a render allocates).
    fn renderer_size(&self, page: u32) -> Result<(f64, f64), PdfError> {
        let (pdf, index) = self.renderer_page(page)?;
        let (w, h) = guarded(|| pdf.pages()[index].render_dimensions()).map_err(|panic| {
            PdfError::Render {
                page,
                reason: format!("the renderer panicked: {panic}"),
            }
        })?;
        Ok((f64::from(w), f64::from(h)))
    }

    /// `wanted` dpi, lowered so the page stays within `max_pixels` and the document's pixel
    /// budget (and 65,535 pixels a side); refused when that would take it below the budget's
    /// minimum resolution.
    fn fit_dpi(&self, page: u32, wanted: f64, max_pixels: u64) -> Result<f64, PdfError> {
        let (width, height) = self.renderer_size(page)?;
        let cap = max_pixels.min(self.budgets.max_render_pixels);
        let (w_in, h_in) = (width / 72.0, height / 72.0);
        let by_pixels = (cap as f64 / (w_in * h_in)).sqrt();
        let by_side = MAX_SIDE / w_in.max(h_in);
        let dpi = wanted.min(by_pixels).min(by_side);
        if !(dpi.is_finite() && dpi > 0.0) {
            return Err(PdfError::Render {
                page,
                reason: "no usable resolution for this page size".into(),
            });
        }
        if dpi < wanted && dpi < self.budgets.min_render_dpi {
            return Err(PdfError::BudgetExceeded {
                page: Some(page),
                budget: Budget::RenderPixels,
                detail: format!(
                    "a {width:.0} x {height:.0} pt page does not fit in {cap} pixels even at {} dpi",
                    self.budgets.min_render_dpi
                ),
            });
        }
        Ok(dpi)
    }

    /// Renders a page in 8-bit grey on white, at the resolution described in the module
    /// documentation.
    pub fn render_page(&self, page: u32, options: &RenderOptions) -> Result<PageImage, PdfError> {
        let dpi = self.render_dpi(page, options)?;
        self.render_page_at(page, dpi)
    }

    /// Renders a page at a given resolution, lowered when needed to stay within the document's
    /// pixel budget ([`crate::Budgets::max_render_pixels`]; the image's `dpi` is the one used),
    /// and refused when even [`crate::Budgets::min_render_dpi`] does not fit.
    pub fn render_page_at(&self, page: u32, dpi: f64) -> Result<PageImage, PdfError> {
        let (pdf, index) = self.renderer_page(page)?;
        if !(dpi.is_finite() && dpi > 0.0) {
            return Err(PdfError::Render {
                page,
                reason: format!("{dpi} dpi is out of range for this page"),
            });
        }
        self.preflight(page)?;
        let dpi = self.fit_dpi(page, dpi, u64::MAX)?;
        let scale = dpi / 72.0;
        let pixmap = guarded(|| {
            let hayro_page = &pdf.pages()[index];
            let cache = RenderCache::new();
            hayro::render(
                hayro_page,
                &cache,
                &InterpreterSettings::default(),
                &RenderSettings::default(),
                &PixmapSettings {
                    x_scale: scale as f32,
                    y_scale: scale as f32,
                    bg_color: WHITE,
                },
            )
        })
        .map_err(|panic| PdfError::Render {
            page,
            reason: format!("the renderer panicked: {panic}"),
        })?;
        let luma = pixmap
            .data()
            .iter()
            .map(|p| {
                // Composited on white, so alpha is opaque; Rec. 601 weights.
                let y = 299 * u32::from(p.r) + 587 * u32::from(p.g) + 114 * u32::from(p.b);
                ((y + 500) / 1000) as u8
            })
            .collect();
        Ok(PageImage {
            width: u32::from(pixmap.width()),
            height: u32::from(pixmap.height()),
            luma,
            dpi,
        })
    }
}

// An opened document may move to a blocking thread and be shared between page workers.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<PdfDocument>();
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn open(name: &str) -> PdfDocument {
        let path = format!("{}/../../testdata/pdf/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("fixture exists");
        PdfDocument::load(&bytes, &Limits::DOCUMENT).expect("fixture loads")
    }

    #[test]
    fn dpi_follows_the_page_images() {
        let ocr = RenderOptions::OCR;
        // No images: the default.
        assert_eq!(open("two_column.pdf").render_dpi(1, &ocr), Ok(300.0));
        // A 250 dpi scan keeps its resolution (2067 px over 595 pt).
        let scan = open("image_only.pdf").render_dpi(1, &ocr).expect("dpi");
        assert!((scan - 250.0).abs() < 0.2, "{scan}");
        // A 150 dpi scan is raised to the minimum.
        assert_eq!(open("invisible_text.pdf").render_dpi(1, &ocr), Ok(200.0));
    }

    #[test]
    fn pixel_cap_lowers_the_resolution() {
        let options = RenderOptions {
            max_pixels: 500_000,
            ..RenderOptions::OCR
        };
        let doc = open("image_only.pdf");
        let image = doc.render_page(1, &options).expect("renders");
        assert!(u64::from(image.width) * u64::from(image.height) <= 500_000);
        assert!(image.dpi < 200.0);
        assert_eq!(image.luma.len(), (image.width * image.height) as usize);
        assert_eq!(image.width, (595.0 * image.dpi / 72.0) as u32);
        assert_eq!(image.height, (842.0 * image.dpi / 72.0) as u32);
        // Mostly white paper with some dark text.
        let dark = image.luma.iter().filter(|v| **v < 128).count();
        assert!(dark > 100 && dark < image.luma.len() / 10, "{dark}");
    }

    #[test]
    fn rotated_page_renders_landscape() {
        let image = open("rotated.pdf")
            .render_page_at(1, 36.0)
            .expect("renders");
        assert_eq!((image.width, image.height), (421, 297));
        // The rule under the text: a dark run at y = 150 pt (75 px) from x 60 to 400 pt.
        let row = &image.luma[75 * 421..76 * 421];
        let dark: Vec<usize> = (0..421).filter(|x| row[*x] < 160).collect();
        assert!(
            dark.first().is_some_and(|x| (29..=31).contains(x)),
            "{dark:?}"
        );
        assert!(
            dark.last().is_some_and(|x| (199..=201).contains(x)),
            "{dark:?}"
        );
    }

    #[test]
    fn oversized_source_images_are_refused_before_decoding() {
        let options = RenderOptions {
            max_image_pixels: 1_000,
            ..RenderOptions::OCR
        };
        assert!(matches!(
            open("image_only.pdf").render_page(1, &options),
            Err(PdfError::Render { page: 1, .. })
        ));
    }
}
