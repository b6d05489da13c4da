//! Renders every page of every PDF in a folder the way `/document` renders pages without a
//! text layer, recognises it with the engine pool (deu+eng, boxes in PDF points) and writes
//! `<out>/<stem>.pages.json` (a JSON array of `doc_model::Page`), the input of
//! `zugferd_accuracy --ocr-images <out>`, which scores the header fields of the OCR path.
//!
//! It lives here, where ocr-core and pdf-extract-core meet, because neither depends on the other.
//!
//! ```sh
//! OMP_THREAD_LIMIT=1 cargo run --release -p docs-server --example zugferd_ocr_pages -- \
//!     ../shared/test-data/zugferd target/zugferd-ocr
//! ```

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use ocr_core::engine::{EngineConfig, EnginePool, PageRequest, PixelBuffer};
use pdf_extract_core::{Limits, PdfDocument, RenderOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "../shared/test-data/zugferd".into()),
    );
    let output = PathBuf::from(args.next().unwrap_or_else(|| "target/zugferd-ocr".into()));
    std::fs::create_dir_all(&output)?;
    let pool = EnginePool::new(EngineConfig::default())?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&input)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    files.sort();
    let started = Instant::now();
    let mut pages_done = 0usize;
    for file in &files {
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("file");
        let target = output.join(format!("{stem}.pages.json"));
        if target.exists() {
            continue;
        }
        let bytes = std::fs::read(file)?;
        let document = match PdfDocument::load(
            &bytes,
            &Limits {
                max_bytes: usize::MAX,
                max_pages: 1000,
            },
        ) {
            Ok(document) => document,
            Err(error) => {
                eprintln!("{stem}: {error}");
                continue;
            }
        };
        let numbers: Vec<u32> = (1..=document.page_count()).collect();
        // Every page rendered first (the files are a few pages each), then recognised one page
        // per engine.
        let images: Vec<_> = numbers
            .iter()
            .filter_map(|&page| Some((page, document.render_page(page, &RenderOptions::OCR).ok()?)))
            .collect();
        let batch: Vec<_> = images
            .iter()
            .filter_map(|(page, image)| {
                let pixels = PixelBuffer::grey(image.width, image.height, &image.luma).ok()?;
                let mut request = PageRequest::pdf_points(*page, image.dpi.round() as u32);
                request.scale = 72.0 / image.dpi;
                Some((pixels, request))
            })
            .collect();
        let pages: Vec<_> = pool
            .recognize_batch(&batch, &AtomicBool::new(false))
            .into_iter()
            .filter_map(Result::ok)
            .collect();
        pages_done += pages.len();
        std::fs::write(&target, serde_json::to_vec(&pages)?)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} files, {pages_done} pages recognised in {seconds:.1} s ({:.2} s per page on {} engines)",
        files.len(),
        seconds / pages_done.max(1) as f64,
        pool.size()
    );
    Ok(())
}
