//! OCR accuracy and speed against ground truth, ours against the `tesseract` CLI on the same
//! images and languages. Reads `../shared/test-data` (not committed); prints markdown tables.
//!
//! ```text
//! OMP_THREAD_LIMIT=1 cargo run --release -p ocr-core --example ocr_quality -- [pages] [test-data dir]
//! ```
//! `OMP_THREAD_LIMIT=1` must be set for this process (as the server sets it); the CLI gets it
//! too. Needs `pdftoppm`, `pdftotext` and `tesseract` on the PATH.
//!
//! (a) first page of the first `pages` (default 17) ZUGFeRD PDFs, rendered with
//!     `pdftoppm -r 300 -gray`: word recall/precision and CER against `pdftotext`, seconds per
//!     page, then all pages at once on a pool of 2 against the CLI one after another.
//! (b) OCRmyPDF scans: rotation per page of `cardinal.pdf`, skew of `skew.pdf` and
//!     `rotated_skew.pdf`, CER/WER of the linn derivatives against `linn.txt`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[path = "../tests/support/text_metrics.rs"]
mod text_metrics;

use ocr_core::engine::{EngineConfig, EnginePool, PageRequest, PixelBuffer};
use ocr_core::preprocess::{self, GreyImage, ImageLimits, ImageMime};
use text_metrics::{cer, wer};

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let pages: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(17);
    let data = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-data")
    });
    if !data.is_dir() {
        println!("no test data at {}; nothing measured", data.display());
        return Ok(());
    }
    let work = std::env::temp_dir().join(format!("ocr_quality_{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let pool = EnginePool::new(EngineConfig {
        engines: 2,
        ..EngineConfig::default()
    })?;
    let result = zugferd(&pool, &data.join("zugferd"), &work, pages)
        .and_then(|()| scans(&pool, &data.join("scans"), &work));
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn run(cmd: &mut Command) -> Result<String, Failure> {
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn render(pdf: &Path, page: u32, dpi: u32, out_stem: &Path) -> Result<PathBuf, Failure> {
    run(Command::new("pdftoppm")
        .args(["-r", &dpi.to_string(), "-gray", "-png", "-singlefile"])
        .args(["-f", &page.to_string(), "-l", &page.to_string()])
        .arg(pdf)
        .arg(out_stem))?;
    Ok(out_stem.with_extension("png"))
}

fn load(png: &Path) -> Result<GreyImage, Failure> {
    Ok(preprocess::load_image(
        &std::fs::read(png)?,
        ImageMime::Png,
        &ImageLimits::default(),
    )?
    .image)
}

fn cli(png: &Path, extra: &[&str]) -> Result<String, Failure> {
    run(Command::new("tesseract")
        .env("OMP_THREAD_LIMIT", "1")
        .arg(png)
        .arg("-")
        .args(["-l", "deu+eng"])
        .args(extra))
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// Bag-of-words matches between reference and hypothesis.
fn matches(reference: &[String], hypothesis: &[String]) -> usize {
    let mut counts = std::collections::HashMap::<&str, i64>::new();
    for w in reference {
        *counts.entry(w).or_default() += 1;
    }
    hypothesis
        .iter()
        .filter(|w| {
            counts.get_mut(w.as_str()).is_some_and(|c| {
                *c -= 1;
                *c >= 0
            })
        })
        .count()
}

#[derive(Default)]
struct Score {
    reference_words: usize,
    hypothesis_words: usize,
    matched: usize,
    cer_sum: f64,
    seconds: f64,
    pages: usize,
}

impl Score {
    fn add(&mut self, reference: &str, hypothesis: &str, seconds: f64) {
        let (r, h) = (words(reference), words(hypothesis));
        self.reference_words += r.len();
        self.hypothesis_words += h.len();
        self.matched += matches(&r, &h);
        self.cer_sum += cer(reference, hypothesis);
        self.seconds += seconds;
        self.pages += 1;
    }

    fn row(&self, name: &str) -> String {
        format!(
            "| {name} | {:.3} | {:.3} | {:.3} | {:.2} |",
            self.matched as f64 / self.reference_words.max(1) as f64,
            self.matched as f64 / self.hypothesis_words.max(1) as f64,
            self.cer_sum / self.pages.max(1) as f64,
            self.seconds / self.pages.max(1) as f64
        )
    }
}

fn zugferd(pool: &EnginePool, dir: &Path, work: &Path, pages: usize) -> Result<(), Failure> {
    let mut pdfs: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    pdfs.sort();
    let (mut ours, mut theirs, mut pipeline) =
        (Score::default(), Score::default(), Score::default());
    let mut images = Vec::new();
    for (i, pdf) in pdfs.iter().enumerate() {
        if images.len() >= pages {
            break;
        }
        let reference = run(Command::new("pdftotext")
            .args(["-f", "1", "-l", "1"])
            .arg(pdf)
            .arg("-"))?;
        if words(&reference).len() < 20 {
            continue;
        }
        let Ok(png) = render(pdf, 1, 300, &work.join(format!("z{i}"))) else {
            continue;
        };
        let started = Instant::now();
        let image = load(&png)?;
        let page = pool.recognize(PixelBuffer::from(&image), &PageRequest::pdf_points(1, 300))?;
        ours.add(&reference, &page.text(), started.elapsed().as_secs_f64());

        // The whole /ocr path: deskew, rotation detection, layout.
        let started = Instant::now();
        let image = load(&png)?;
        let (image, _) = preprocess::deskew(&image);
        let mut page = pool.recognize(PixelBuffer::from(&image), &PageRequest::pixels(1))?;
        let upright = preprocess::rotate_quarter(&image, page.rotation);
        let layout = ocr_core::layout::analyze(&mut page, Some(&upright), pool.languages());
        pipeline.add(&reference, &layout.text, started.elapsed().as_secs_f64());

        let started = Instant::now();
        let text = cli(&png, &[])?;
        theirs.add(&reference, &text, started.elapsed().as_secs_f64());
        images.push(png);
    }
    println!(
        "## ZUGFeRD page 1, 300 dpi grey, deu+eng ({} pages)\n",
        images.len()
    );
    println!("| engine | word recall | word precision | CER | s/page |\n|---|---|---|---|---|");
    println!("{}", ours.row("ocr-core (psm 3, like the CLI)"));
    println!(
        "{}",
        pipeline.row("ocr-core /ocr path (deskew + OSD + layout text)")
    );
    println!("{}", theirs.row("tesseract CLI"));

    let loaded: Vec<GreyImage> = images.iter().map(|p| load(p)).collect::<Result<_, _>>()?;
    let jobs: Vec<_> = loaded
        .iter()
        .enumerate()
        .map(|(i, img)| {
            (
                PixelBuffer::from(img),
                PageRequest::pdf_points(i as u32 + 1, 300),
            )
        })
        .collect();
    let started = Instant::now();
    let results = pool.recognize_batch(&jobs, &AtomicBool::new(false));
    let batch = started.elapsed().as_secs_f64();
    let failed = results.iter().filter(|r| r.is_err()).count();
    let started = Instant::now();
    for png in &images {
        cli(png, &[])?;
    }
    let sequential = started.elapsed().as_secs_f64();
    println!(
        "\n{} pages: pool of 2 in one batch {batch:.1} s ({:.2} s/page, {failed} failed); CLI one after another {sequential:.1} s ({:.2} s/page)\n",
        images.len(),
        batch / images.len().max(1) as f64,
        sequential / images.len().max(1) as f64
    );
    Ok(())
}

fn scans(pool: &EnginePool, dir: &Path, work: &Path) -> Result<(), Failure> {
    let reference = std::fs::read_to_string(dir.join("linn.txt"))?;
    println!("## OCRmyPDF scans against linn.txt, deu+eng\n");
    println!(
        "| input | rotation found | skew found (deg) | ours CER | ours WER | ours s | CLI CER | CLI WER | CLI s |\n|---|---|---|---|---|---|---|---|---|"
    );
    let mut inputs: Vec<(String, PathBuf)> = vec![("linn.png".into(), dir.join("linn.png"))];
    for (name, count) in [
        ("cardinal.pdf", 4u32),
        ("skew.pdf", 1),
        ("rotated_skew.pdf", 1),
        ("linn.pdf", 1),
    ] {
        for page in 1..=count {
            let stem = work.join(format!("{}-{page}", name.trim_end_matches(".pdf")));
            inputs.push((
                format!("{name} p{page}"),
                render(&dir.join(name), page, 300, &stem)?,
            ));
        }
    }
    for (name, png) in inputs {
        let started = Instant::now();
        let bytes = std::fs::read(&png)?;
        let image = preprocess::load_image(&bytes, ImageMime::Png, &ImageLimits::default())?.image;
        let (image, skew) = preprocess::deskew(&image);
        let mut page = pool.recognize(PixelBuffer::from(&image), &PageRequest::pixels(1))?;
        let upright = preprocess::rotate_quarter(&image, page.rotation);
        let layout = ocr_core::layout::analyze(&mut page, Some(&upright), pool.languages());
        let ours_s = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let theirs = cli(&png, &[])?;
        let theirs_s = started.elapsed().as_secs_f64();
        println!(
            "| {name} | {} | {:.2} | {:.3} | {:.3} | {ours_s:.2} | {:.3} | {:.3} | {theirs_s:.2} |",
            page.rotation,
            skew.angle_degrees,
            cer(&reference, &layout.text),
            wer(&reference, &layout.text),
            cer(&reference, &theirs),
            wer(&reference, &theirs),
        );
    }
    Ok(())
}
