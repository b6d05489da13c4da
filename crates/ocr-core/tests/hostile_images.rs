//! Pictures built here byte by byte (issue 13): limits on the displayed orientation, the decode
//! budget from the header, EXIF orientation applied on grey, and a stop flag for pictures.

use std::sync::atomic::AtomicBool;

use image::metadata::Orientation;
use ocr_core::OcrError;
use ocr_core::engine::{EngineConfig, EnginePool};
use ocr_core::preprocess::{self, GreyImage, ImageLimits, ImageMime};
use ocr_core::read::{ReadOptions, read_picture_cancellable};

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// zlib data of `raw` in stored (uncompressed) deflate blocks.
fn zlib_stored(raw: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in raw {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

/// A PNG: IHDR of the given size, depth and colour type, an eXIf chunk with `orientation` (EXIF
/// value 1–8) when given, and `idat` as its image data.
fn png(
    width: u32,
    height: u32,
    depth: u8,
    color: u8,
    orientation: Option<u16>,
    idat: &[u8],
) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[depth, color, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    if let Some(value) = orientation {
        // Big-endian TIFF header, one IFD with one SHORT entry: Orientation.
        let mut exif = b"MM\x00\x2a\x00\x00\x00\x08\x00\x01".to_vec();
        exif.extend_from_slice(&[0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]);
        exif.extend_from_slice(&value.to_be_bytes());
        exif.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        chunk(&mut out, b"eXIf", &exif);
    }
    chunk(&mut out, b"IDAT", idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

#[test]
fn the_width_limit_applies_to_the_displayed_picture() {
    let limits = ImageLimits::default();
    // Stored 8,000 × 12,000 (96 Mpx, 8,000 wide): within the limits as stored, 12,000 wide
    // once EXIF turns it a quarter. Only headers: refused before any pixel is decoded.
    let turned = png(8_000, 12_000, 8, 0, Some(6), &[0]);
    for result in [
        preprocess::probe_image(&turned, ImageMime::Png, &limits).map(|_| ()),
        preprocess::load_image(&turned, ImageMime::Png, &limits).map(|_| ()),
    ] {
        assert!(
            matches!(
                result,
                Err(OcrError::ImageTooWide {
                    width: 12_000,
                    max: 10_000
                })
            ),
            "{result:?}"
        );
    }
    // The same picture upright is only probed as within the limits.
    let upright = png(8_000, 12_000, 8, 0, None, &[0]);
    assert_eq!(
        preprocess::probe_image(&upright, ImageMime::Png, &limits).ok(),
        Some((8_000, 12_000))
    );
    // Stored 12,000 × 8,000 and turned: 8,000 wide as displayed, accepted by the probe.
    let wide_turned = png(12_000, 8_000, 8, 0, Some(8), &[0]);
    assert_eq!(
        preprocess::probe_image(&wide_turned, ImageMime::Png, &limits).ok(),
        Some((8_000, 12_000))
    );
}

#[test]
fn a_16_bit_picture_over_the_decode_budget_is_refused_from_its_header() {
    let limits = ImageLimits::default();
    // 10,000 × 10,000 RGBA at 16 bits: exactly the pixel limit, 800 MB decoded.
    let deep = png(10_000, 10_000, 16, 6, None, &[0]);
    for result in [
        preprocess::probe_image(&deep, ImageMime::Png, &limits).map(|_| ()),
        preprocess::load_image(&deep, ImageMime::Png, &limits).map(|_| ()),
    ] {
        assert!(
            matches!(
                result,
                Err(OcrError::DecodeTooLarge {
                    bytes: 800_000_000,
                    max: 400_000_000,
                    ..
                })
            ),
            "{result:?}"
        );
    }
    // The same size in 8-bit RGB (300 MB) is within the budget.
    let rgb = png(10_000, 10_000, 8, 2, None, &[0]);
    assert_eq!(
        preprocess::probe_image(&rgb, ImageMime::Png, &limits).ok(),
        Some((10_000, 10_000))
    );
}

#[test]
fn exif_orientations_are_applied_like_the_image_crate_does() {
    // A 3 × 2 grey picture with six distinct values.
    let (width, height) = (3u32, 2u32);
    let values = [10u8, 20, 30, 40, 50, 60];
    let mut raw = Vec::new();
    for row in values.chunks(width as usize) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let idat = zlib_stored(&raw);
    for exif in 1u16..=8 {
        let bytes = png(width, height, 8, 0, Some(exif), &idat);
        let loaded =
            preprocess::load_image(&bytes, ImageMime::Png, &ImageLimits::default()).expect("loads");
        let mut expected = image::DynamicImage::ImageLuma8(
            image::GrayImage::from_raw(width, height, values.to_vec()).expect("buffer"),
        );
        let orientation = Orientation::from_exif(exif as u8).expect("valid orientation");
        expected.apply_orientation(orientation);
        let expected = expected.to_luma8();
        assert_eq!(
            loaded.image,
            GreyImage::new(expected.width(), expected.height(), expected.into_raw())
                .expect("buffer"),
            "EXIF orientation {exif}"
        );
        assert_eq!(loaded.exif_orientation_applied, exif != 1);
    }
}

#[test]
fn a_picture_honours_the_stop_flag() {
    let pool = EnginePool::new(EngineConfig {
        engines: 1,
        ..EngineConfig::default()
    })
    .expect("Tesseract with deu+eng is installed");
    let picture = GreyImage::new(400, 200, vec![255; 400 * 200]).expect("buffer");
    let options = ReadOptions {
        languages: Vec::new(),
        codes: true,
        code_options: Default::default(),
        recogniser: Default::default(),
        photo: Default::default(),
    };
    let stopped =
        read_picture_cancellable(&pool, &picture, 1, None, &options, &AtomicBool::new(true));
    assert!(matches!(stopped, Err(OcrError::Cancelled)), "{stopped:?}");
    // Not stopped: the blank picture is read (to nothing).
    let read =
        read_picture_cancellable(&pool, &picture, 1, None, &options, &AtomicBool::new(false))
            .expect("reads");
    assert!(read.page.lines.is_empty());
    // An engine can be held while the pixels are produced.
    let words = pool
        .with_free_engine(&[], |engine| {
            engine
                .recognize(
                    ocr_core::engine::PixelBuffer::from(&picture),
                    &ocr_core::engine::PageRequest::pixels(1),
                )
                .map(|page| page.lines.len())
        })
        .expect("an engine is free");
    assert_eq!(words.ok(), Some(0));
}
