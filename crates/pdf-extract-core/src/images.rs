//! Where images are placed on a page: what the render scan records and the page's plan reads.

/// One image as placed on a page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlacedImage {
    pub(crate) pixels_wide: u32,
    pub(crate) pixels_high: u32,
    /// Placed size in points.
    pub(crate) width: f64,
    pub(crate) height: f64,
}

impl PlacedImage {
    pub(crate) fn area(&self) -> f64 {
        self.width * self.height
    }

    /// Native resolution: source pixels per placed inch, the larger axis.
    pub(crate) fn dpi(&self) -> Option<f64> {
        let across = f64::from(self.pixels_wide) / (self.width / 72.0);
        let down = f64::from(self.pixels_high) / (self.height / 72.0);
        let dpi = across.max(down);
        (dpi.is_finite() && dpi > 0.0).then_some(dpi)
    }
}

/// The images of one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PageImages {
    pub(crate) page_area: f64,
    pub(crate) images: Vec<PlacedImage>,
}

impl PageImages {
    pub(crate) fn largest(&self) -> Option<&PlacedImage> {
        self.images
            .iter()
            .max_by(|a, b| a.area().total_cmp(&b.area()))
    }

    /// Share of the page covered by its largest image (0 without images).
    pub(crate) fn largest_area_share(&self) -> f64 {
        match self.largest() {
            Some(image) if self.page_area > 0.0 => (image.area() / self.page_area).min(1.0),
            _ => 0.0,
        }
    }
}
