//! Where the PP-OCR time goes on pictures: detector and recogniser timed apart, plans made on a
//! first pass and timed on a second (`cargo run --release -p pp-ocr --example profile -- DIR
//! [MODELS_DIR] [LIMIT] [THREADS]`).

use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("a directory of JPEG pictures")?);
    let models = args
        .next()
        .map_or_else(|| PathBuf::from("target/models/pp-ocr"), PathBuf::from);
    let limit: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let threads: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let reader = pp_ocr::PpOcr::load(&models)?.with_threads(threads);
    let mut pictures: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jpg"))
        .collect();
    pictures.sort();
    pictures.truncate(limit);
    let greys: Vec<_> = pictures
        .iter()
        .map(|p| image::open(p).map(|i| i.to_luma8()))
        .collect::<Result<_, _>>()?;
    for pass in ["planning", "planned"] {
        let (mut detect_s, mut recognise_s, mut lines) = (0.0, 0.0, 0);
        for grey in &greys {
            let picture = pp_ocr::GreyPixels::new(grey.width(), grey.height(), grey.as_raw())?;
            let started = Instant::now();
            let boxes = reader.detect(picture)?;
            detect_s += started.elapsed().as_secs_f64();
            if pass == "planned" {
                let mut widths: Vec<f64> = boxes.iter().map(|b| 48.0 * b.w / b.h).collect();
                widths.sort_by(f64::total_cmp);
                let total: f64 = widths.iter().sum();
                let small = boxes.iter().filter(|b| b.h < 12.0 || b.w < 12.0).count();
                eprintln!(
                    "{}x{}: {} boxes, scaled widths total {total:.0}, median {:.0}, max {:.0}, tiny {small}, heights median {:.0}",
                    grey.width(),
                    grey.height(),
                    boxes.len(),
                    widths.get(widths.len() / 2).copied().unwrap_or(0.0),
                    widths.last().copied().unwrap_or(0.0),
                    {
                        let mut h: Vec<f64> = boxes.iter().map(|b| b.h).collect();
                        h.sort_by(f64::total_cmp);
                        h.get(h.len() / 2).copied().unwrap_or(0.0)
                    }
                );
            }
            let started = Instant::now();
            lines += reader.recognise(picture, &boxes)?.len();
            recognise_s += started.elapsed().as_secs_f64();
        }
        let n = greys.len() as f64;
        println!(
            "{pass}: {} pictures, detector {:.3} s, recogniser {:.3} s per picture, {:.1} lines",
            greys.len(),
            detect_s / n,
            recognise_s / n,
            lines as f64 / n
        );
    }
    Ok(())
}
