//! Boxes, points and ruling lines on a page.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::round2;

/// Which units and origin the boxes of an answer use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CoordinateFrame {
    /// PDF points (1/72 inch), origin at the top-left corner of the page as displayed
    /// (after `/Rotate` and the crop box are applied), y growing downwards.
    PdfPointsTopLeft,
    /// Pixels of the (orientation-corrected) image, origin top-left, y growing downwards.
    PixelsTopLeft,
}

/// An axis-aligned box on one page: `x`, `y` is the top-left corner, `w`, `h` the size, in the
/// page's [`CoordinateFrame`]. `page` counts from 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageBox {
    /// Page number, from 1.
    pub page: u32,
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl PageBox {
    /// A box from its edges; edges given in either order are normalised and rounded for the
    /// wire.
    pub fn from_edges(page: u32, x0: f64, y0: f64, x1: f64, y1: f64) -> Self {
        let (left, right) = if x0 <= x1 { (x0, x1) } else { (x1, x0) };
        let (top, bottom) = if y0 <= y1 { (y0, y1) } else { (y1, y0) };
        Self {
            page,
            x: round2(left),
            y: round2(top),
            w: round2(right - left),
            h: round2(bottom - top),
        }
    }

    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }

    /// Horizontal centre.
    pub fn center_x(&self) -> f64 {
        self.x + self.w / 2.0
    }

    /// Vertical centre.
    pub fn center_y(&self) -> f64 {
        self.y + self.h / 2.0
    }

    /// The smallest box holding both (on the page of `self`).
    pub fn union(&self, other: &Self) -> Self {
        Self::from_edges(
            self.page,
            self.x.min(other.x),
            self.y.min(other.y),
            self.right().max(other.right()),
            self.bottom().max(other.bottom()),
        )
    }

    /// The union of many boxes; `None` for none.
    pub fn union_all<'a>(boxes: impl IntoIterator<Item = &'a Self>) -> Option<Self> {
        boxes.into_iter().fold(None, |acc, b| match acc {
            None => Some(*b),
            Some(a) => Some(a.union(b)),
        })
    }

    /// Overlap of the vertical extents, as a share of the smaller height (0 when disjoint).
    pub fn vertical_overlap(&self, other: &Self) -> f64 {
        let overlap = self.bottom().min(other.bottom()) - self.y.max(other.y);
        let smaller = self.h.min(other.h);
        if overlap <= 0.0 || smaller <= 0.0 {
            0.0
        } else {
            (overlap / smaller).min(1.0)
        }
    }

    /// Overlap of the horizontal extents, as a share of the smaller width (0 when disjoint).
    pub fn horizontal_overlap(&self, other: &Self) -> f64 {
        let overlap = self.right().min(other.right()) - self.x.max(other.x);
        let smaller = self.w.min(other.w);
        if overlap <= 0.0 || smaller <= 0.0 {
            0.0
        } else {
            (overlap / smaller).min(1.0)
        }
    }

    /// Whether the centre of `other` lies inside this box.
    pub fn contains_center_of(&self, other: &Self) -> bool {
        let (cx, cy) = (other.center_x(), other.center_y());
        cx >= self.x && cx <= self.right() && cy >= self.y && cy <= self.bottom()
    }
}

/// A point in the page's frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// Horizontal position.
    pub x: f64,
    /// Vertical position (downwards).
    pub y: f64,
}

/// A horizontal or vertical ruling line (a stroked path or a thin filled rectangle in a PDF, a
/// long run of dark pixels in an image), in the page's frame. Tables are found from these.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ruling {
    /// Start, left or top.
    pub x0: f64,
    /// Start, left or top.
    pub y0: f64,
    /// End, right or bottom.
    pub x1: f64,
    /// End, right or bottom.
    pub y1: f64,
}

impl Ruling {
    /// A segment normalised so that it runs left to right or top to bottom.
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Self {
        if (x0, y0) <= (x1, y1) {
            Self { x0, y0, x1, y1 }
        } else {
            Self {
                x0: x1,
                y0: y1,
                x1: x0,
                y1: y0,
            }
        }
    }

    /// Horizontal within `tolerance`.
    pub fn is_horizontal(&self, tolerance: f64) -> bool {
        (self.y1 - self.y0).abs() <= tolerance && (self.x1 - self.x0).abs() > tolerance
    }

    /// Vertical within `tolerance`.
    pub fn is_vertical(&self, tolerance: f64) -> bool {
        (self.x1 - self.x0).abs() <= tolerance && (self.y1 - self.y0).abs() > tolerance
    }

    /// Length.
    pub fn length(&self) -> f64 {
        (self.x1 - self.x0).hypot(self.y1 - self.y0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_edges_normalises_order() {
        let b = PageBox::from_edges(1, 10.0, 20.0, 5.0, 2.0);
        assert_eq!((b.x, b.y, b.w, b.h), (5.0, 2.0, 5.0, 18.0));
    }

    #[test]
    fn overlaps() {
        let a = PageBox::from_edges(1, 0.0, 0.0, 10.0, 10.0);
        let b = PageBox::from_edges(1, 5.0, 5.0, 20.0, 20.0);
        assert_eq!(a.vertical_overlap(&b), 0.5);
        assert_eq!(a.horizontal_overlap(&b), 0.5);
        let c = PageBox::from_edges(1, 30.0, 30.0, 40.0, 40.0);
        assert_eq!(a.vertical_overlap(&c), 0.0);
        assert_eq!(a.union(&c), PageBox::from_edges(1, 0.0, 0.0, 40.0, 40.0));
    }

    #[test]
    fn ruling_orientation() {
        let r = Ruling::new(100.0, 50.0, 10.0, 50.2);
        assert_eq!(r.x0, 10.0);
        assert!(r.is_horizontal(0.5));
        assert!(!r.is_vertical(0.5));
    }
}
