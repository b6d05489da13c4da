//! Prints what the PP-OCR models read on a picture, a line per detected box:
//! `cargo run --release -p pp-ocr --example read_picture -- PICTURE [MODELS_DIR]`.

use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let picture = PathBuf::from(args.next().ok_or("a picture to read")?);
    let models = args
        .next()
        .map_or_else(|| PathBuf::from("target/models/pp-ocr"), PathBuf::from);
    let grey = image::open(&picture)?.to_luma8();
    let reader = pp_ocr::PpOcr::load(&models)?;
    let started = Instant::now();
    let lines = reader.read(pp_ocr::GreyPixels::new(
        grey.width(),
        grey.height(),
        grey.as_raw(),
    )?)?;
    for line in &lines {
        let b = line.bbox;
        println!(
            "{:>5.0} {:>5.0} {:>4.0}x{:<3.0} {:.2}  {}",
            b.x, b.y, b.w, b.h, line.text.score, line.text.text
        );
    }
    eprintln!(
        "{} lines in {:.2} s",
        lines.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
