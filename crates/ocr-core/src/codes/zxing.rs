//! The zxing-cpp engine (cargo feature `zxing-cpp`): one call finds every symbol of the eight
//! symbologies, in any orientation, with its four corners.

use std::panic::{AssertUnwindSafe, catch_unwind};

use doc_model::{Point, Symbology};
use zxingcpp::{BarcodeFormat, ImageFormat, ImageView};

use super::CodeOptions;
use super::detect::Symbol;
use super::geometry::{GreyImage, linear_quad};

const FORMATS: [BarcodeFormat; 8] = [
    BarcodeFormat::QRCode,
    BarcodeFormat::DataMatrix,
    BarcodeFormat::Aztec,
    BarcodeFormat::PDF417,
    BarcodeFormat::EAN13,
    BarcodeFormat::EAN8,
    BarcodeFormat::Code128,
    BarcodeFormat::Code39,
];

/// Every symbol zxing-cpp finds; an error or a panic in the binding counts as none found.
pub(crate) fn read_zxing_cpp(page: &GreyImage<'_>, options: &CodeOptions) -> Vec<Symbol> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let (Ok(width), Ok(height)) = (i32::try_from(page.width), i32::try_from(page.height))
        else {
            return Vec::new();
        };
        let view = match ImageView::from_slice(page.pixels, width, height, ImageFormat::Lum) {
            Ok(view) => view,
            Err(error) => {
                tracing::warn!(%error, "zxing-cpp refused the image");
                return Vec::new();
            }
        };
        let reader = zxingcpp::read()
            .formats(FORMATS)
            .try_harder(options.try_harder)
            .try_rotate(true)
            .try_invert(options.retries)
            .try_downscale(options.retries)
            .max_number_of_symbols(i32::try_from(options.max_codes).unwrap_or(i32::MAX));
        match reader.from(view) {
            Ok(barcodes) => barcodes
                .iter()
                .filter(|b| b.is_valid())
                .filter_map(|b| {
                    let symbology = match b.format() {
                        BarcodeFormat::QRCode | BarcodeFormat::MicroQRCode => Symbology::QrCode,
                        BarcodeFormat::DataMatrix => Symbology::DataMatrix,
                        BarcodeFormat::Aztec => Symbology::Aztec,
                        BarcodeFormat::PDF417 => Symbology::Pdf417,
                        BarcodeFormat::EAN13 => Symbology::Ean13,
                        BarcodeFormat::EAN8 => Symbology::Ean8,
                        BarcodeFormat::Code128 => Symbology::Code128,
                        BarcodeFormat::Code39 => Symbology::Code39,
                        _ => return None,
                    };
                    let position = b.position();
                    let corner = |p: zxingcpp::PointI| Point {
                        x: f64::from(p.x),
                        y: f64::from(p.y),
                    };
                    let bytes = b.bytes();
                    let (tl, tr, br, bl) = (
                        corner(position.top_left),
                        corner(position.top_right),
                        corner(position.bottom_right),
                        corner(position.bottom_left),
                    );
                    let linear = matches!(
                        symbology,
                        Symbology::Ean13 | Symbology::Ean8 | Symbology::Code128 | Symbology::Code39
                    );
                    // zxing-cpp gives a 1D symbol the rows it read, not its bar height: the
                    // bars are followed as for rxing's scan lines.
                    let quad = if linear {
                        let middle = |a: Point, b: Point| Point {
                            x: (a.x + b.x) / 2.0,
                            y: (a.y + b.y) / 2.0,
                        };
                        linear_quad(page, &[middle(tl, bl), middle(tr, br)])
                    } else {
                        vec![tl, tr, br, bl]
                    };
                    Some(Symbol {
                        symbology,
                        text: b.text(),
                        binary: std::str::from_utf8(&bytes).is_err().then_some(bytes),
                        quad,
                    })
                })
                .take(options.max_codes)
                .collect(),
            Err(error) => {
                tracing::warn!(%error, "zxing-cpp failed on the image");
                Vec::new()
            }
        }
    }));
    outcome.unwrap_or_else(|_| {
        tracing::warn!("zxing-cpp panicked on this image; treated as no code");
        Vec::new()
    })
}
