//! Recognises every receipt picture of a folder the way `/ocr` reads a picture (deskew,
//! recognition with orientation detection, layout) and writes `<out>/<stem>.pages.json` (a JSON
//! array of one `doc_model::Page`, pixel frame): the input of the header ranker's table
//! (`invoice_model dump --receipts`) and of its receipt figures. Pictures already done are
//! skipped.
//!
//! ```sh
//! OMP_THREAD_LIMIT=1 cargo run --release -p ocr-core --example receipt_pages -- \
//!     ../shared/test-data/receipts target/ocr-pages/receipts [--pp-ocr target/models/pp-ocr]
//! ```
//! With `--pp-ocr DIR` the pictures are read by the PP-OCR models of DIR (Tesseract for a page
//! they do not read as upright), as `Recogniser::PpOcr` reads them.

use std::path::PathBuf;
use std::time::Instant;

use ocr_core::codes::CodeOptions;
use ocr_core::engine::{EngineConfig, EnginePool};
use ocr_core::preprocess::{ImageLimits, ImageMime, load_image};
use ocr_core::read::{ReadOptions, Recogniser, read_picture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut positional = Vec::new();
    let mut pp_ocr_models: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--pp-ocr" {
            pp_ocr_models = args.next().map(PathBuf::from);
        } else {
            positional.push(arg);
        }
    }
    let mut positional = positional.into_iter();
    let input = PathBuf::from(
        positional
            .next()
            .unwrap_or_else(|| "../shared/test-data/receipts".into()),
    );
    let output = PathBuf::from(
        positional
            .next()
            .unwrap_or_else(|| "target/ocr-pages/receipts".into()),
    );
    std::fs::create_dir_all(&output)?;
    let recogniser = if pp_ocr_models.is_some() {
        Recogniser::PpOcr
    } else {
        Recogniser::Tesseract
    };
    let pool = EnginePool::new(EngineConfig {
        pp_ocr_models,
        ..EngineConfig::default()
    })?;
    let options = ReadOptions {
        languages: Vec::new(),
        codes: false,
        code_options: CodeOptions::default(),
        recogniser,
        photo: Default::default(),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&input)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jpg" || x == "jpeg"))
        .collect();
    files.sort();
    let started = Instant::now();
    let mut done = 0usize;
    for file in &files {
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("file");
        let target = output.join(format!("{stem}.pages.json"));
        if target.exists() {
            continue;
        }
        let bytes = std::fs::read(file)?;
        let loaded = match load_image(&bytes, ImageMime::Jpeg, &ImageLimits::default()) {
            Ok(loaded) => loaded,
            Err(error) => {
                eprintln!("{stem}: {error}");
                continue;
            }
        };
        match read_picture(&pool, &loaded.image, 1, None, &options) {
            Ok(reading) => {
                std::fs::write(&target, serde_json::to_vec(&[reading.page])?)?;
                done += 1;
            }
            Err(error) => eprintln!("{stem}: {error}"),
        }
    }
    eprintln!(
        "{done} receipts recognised in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
