//! Reading order of a two-column scan: OCRs `scans/linn.png` of `../shared/test-data` (not
//! committed), puts Tesseract's lines in order with `doc_analysis::layout::order_lines`, prints
//! the order with each line's column and box, the column count, and CER/WER of the ordered
//! text against `scans/linn.txt` (whitespace collapsed).
//!
//! ```text
//! OMP_THREAD_LIMIT=1 cargo run --release -p ocr-core --example reading_order_linn -- [test-data dir] [lines cache.json]
//! ```
//! With a cache path, the recognised lines are written there on the first run and read back on
//! later runs, so changes to the ordering can be measured without OCR.

use std::path::PathBuf;

use doc_analysis::layout::order_lines;
use doc_model::Line;
#[path = "../tests/support/text_metrics.rs"]
mod text_metrics;

use ocr_core::engine::{EngineConfig, EnginePool, PageRequest, PixelBuffer};
use ocr_core::preprocess::{self, ImageLimits, ImageMime};
use text_metrics::{cer, wer};

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let data = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-data")
    });
    let cache = args.next().map(PathBuf::from);
    let scans = data.join("scans");
    if !scans.join("linn.png").is_file() {
        println!("no test data at {}; nothing measured", scans.display());
        return Ok(());
    }
    let reference = std::fs::read_to_string(scans.join("linn.txt"))?;
    let (lines, width) = match cache.as_ref().filter(|c| c.is_file()) {
        Some(path) => serde_json::from_str::<(Vec<Line>, f64)>(&std::fs::read_to_string(path)?)?,
        None => {
            let loaded = preprocess::load_image(
                &std::fs::read(scans.join("linn.png"))?,
                ImageMime::Png,
                &ImageLimits::default(),
            )?;
            let pool = EnginePool::new(EngineConfig::default())?;
            let page = pool.recognize(PixelBuffer::from(&loaded.image), &PageRequest::pixels(1))?;
            let recognised = (page.lines, page.width);
            if let Some(path) = &cache {
                std::fs::write(path, serde_json::to_string(&recognised)?)?;
            }
            recognised
        }
    };

    let (ordered, columns) = order_lines(lines, width);
    println!("| order | column | x | y | w | h | text |");
    println!("|---|---|---|---|---|---|---|");
    for line in &ordered {
        let b = &line.bbox;
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
            line.order, line.column, b.x, b.y, b.w, b.h, line.text
        );
    }
    let text = ordered
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    println!();
    println!("| lines | columns | CER | WER |");
    println!("|---|---|---|---|");
    println!(
        "| {} | {} | {:.3} | {:.3} |",
        ordered.len(),
        columns,
        cer(&reference, &text),
        wer(&reference, &text)
    );
    Ok(())
}
