//! Three readers side by side on receipt pictures with line transcripts (SROIE's layout: for
//! each `NNN.jpg` a `NNN.csv` of `x1,y1,…,x4,y4,text` rows): `/ocr`'s reading
//! (`read_picture`: deskew, recognition with orientation detection, layout), the `tesseract`
//! CLI (`-l eng`, default page segmentation) and, when its output is given, RapidOCR
//! (`receipt_rapidocr.py`, PP-OCR models). Prints one markdown table.
//!
//! ```sh
//! /tmp/rapid/bin/python crates/ocr-core/examples/receipt_rapidocr.py DIR > target/rapidocr.jsonl
//! OMP_THREAD_LIMIT=1 cargo run --release -p ocr-core --example receipt_ocr -- DIR \
//!     [--rapidocr target/rapidocr.jsonl] [--limit N] [--each] [--pp-only] [--no-cli] [--no-ours] [--threads N] \
//!     [--half 0|1] [--no-flatten] [--photo none|perspective,stretch,upscale,binarise] \
//!     [--families a,b | --not-families a,b]
//! ```
//!
//! `--photo` names the photo steps (`ocr_core::preprocess::PhotoSteps`) both of our readings
//! take (the default: the service's); `--families` / `--not-families` keep or drop pictures
//! whose name starts with `<family>-` (the receipt generator's `camera.py` photos); `--no-ours`
//! leaves out `read_picture` (the models and the CLI side by side, equally loaded).
//!
//! Character error rate: each transcript line is aligned with the recognised line where it
//! costs the fewest edits, as a substring of that line (a reader that joins two boxes of the
//! transcript into one line is not charged for the join), whitespace runs collapsed; the sum of
//! the edits over the sum of the transcript's characters, both sides in upper case (SROIE's
//! transcripts are, whatever the print). The same without any whitespace
//! (for readers that drop spaces). Word recall and precision: the recognised words against the
//! transcript's, as bags of exact whitespace-separated tokens. Seconds: the median per picture
//! (ours: decode and reading; CLI: the process; RapidOCR: recognition after its models load), and
//! the median CPU seconds (all threads; the CLI's child process), which other work on the
//! machine does not inflate.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ocr_core::codes::CodeOptions;
use ocr_core::engine::{EngineConfig, EnginePool};
use ocr_core::preprocess::{ImageLimits, ImageMime, load_image};
use ocr_core::read::{ReadOptions, read_picture};

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let mut dir = PathBuf::from("../shared/test-data/receipts");
    let mut rapidocr: Option<PathBuf> = None;
    let mut limit = usize::MAX;
    let mut each = false;
    let mut pp_only = false;
    let mut threads = 1usize;
    // The models' reading in `ocr_core::read` flattens the lighting first; `--no-flatten` reads
    // the deskewed picture as it is.
    let mut flatten = true;
    // `--half 0` or `--half 1`: the pictures at even or odd places of the sorted list only (the
    // two halves of choices made on one half and checked on the other).
    let mut half: Option<usize> = None;
    let mut photo = ocr_core::preprocess::PhotoSteps::default();
    let mut no_cli = false;
    let mut no_ours = false;
    let mut keep: Option<(bool, Vec<String>)> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rapidocr" => rapidocr = args.next().map(PathBuf::from),
            "--each" => each = true,
            "--pp-only" => pp_only = true,
            "--no-flatten" => flatten = false,
            "--no-cli" => no_cli = true,
            "--no-ours" => no_ours = true,
            "--photo" => photo = photo_steps(&args.next().unwrap_or_default())?,
            "--families" | "--not-families" => {
                let list = args.next().unwrap_or_default();
                let names = list.split(',').map(|f| format!("{f}-")).collect();
                keep = Some((arg == "--families", names));
            }
            "--half" => half = args.next().and_then(|n| n.parse().ok()),
            "--threads" => threads = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            "--limit" => limit = args.next().and_then(|n| n.parse().ok()).unwrap_or(limit),
            _ => dir = PathBuf::from(arg),
        }
    }
    if !dir.is_dir() {
        println!("no receipts at {}; nothing measured", dir.display());
        return Ok(());
    }
    let rapid = match &rapidocr {
        Some(path) => Some(read_rapidocr(path)?),
        None => None,
    };
    let pool = EnginePool::new(EngineConfig::default())?;
    let models = std::env::var_os("PP_OCR_MODELS")
        .map_or_else(|| PathBuf::from("target/models/pp-ocr"), PathBuf::from);
    let pp = match pp_ocr::PpOcr::load(&models) {
        Ok(pp) => Some(pp.with_threads(threads)),
        Err(error) => {
            eprintln!("PP-OCR not measured: {error}");
            None
        }
    };
    let mut pp_score = Score::default();
    let options = ReadOptions {
        languages: Vec::new(),
        codes: false,
        code_options: CodeOptions::default(),
        recogniser: ocr_core::read::Recogniser::PpOcr,
        photo,
    };
    let mut pictures: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jpg"))
        .filter(|p| p.with_extension("csv").exists())
        .collect();
    pictures.sort();
    if let Some((wanted, prefixes)) = &keep {
        pictures.retain(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            prefixes.iter().any(|f| name.starts_with(f.as_str())) == *wanted
        });
    }
    let mut straightened = 0usize;
    if let Some(half) = half {
        pictures = pictures
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % 2 == half % 2)
            .map(|(_, p)| p)
            .collect();
    }
    pictures.truncate(limit);

    let mut ours = Score::default();
    let mut cli = Score::default();
    let mut rapid_score = Score::default();
    for picture in &pictures {
        let stem = picture
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let truth = transcript(&picture.with_extension("csv"))?;

        let started = Instant::now();
        let cpu_started = cpu_seconds();
        let bytes = std::fs::read(picture)?;
        let loaded = load_image(&bytes, ImageMime::Jpeg, &ImageLimits::default())?;
        let decode_seconds = started.elapsed().as_secs_f64();
        let decode_cpu = cpu_seconds().0 - cpu_started.0;
        if !pp_only && !no_ours {
            let reading = read_picture(&pool, &loaded.image, 1, None, &options)?;
            let lines: Vec<String> = reading.page.lines.iter().map(|l| l.text.clone()).collect();
            let cpu = cpu_seconds().0 - cpu_started.0;
            ours.add(&truth, &lines, started.elapsed().as_secs_f64(), Some(cpu));
        }

        if let Some(pp) = &pp {
            let started = Instant::now();
            let cpu_started = cpu_seconds();
            // The steps of `ocr_core::read` before the models, in its order.
            let cut = if photo.perspective {
                ocr_core::preprocess::correct_perspective(&loaded.image)
            } else {
                None
            };
            straightened += usize::from(cut.is_some());
            let (mut straight, _) =
                ocr_core::preprocess::deskew(cut.as_ref().unwrap_or(&loaded.image));
            if flatten {
                straight = ocr_core::preprocess::flatten_illumination(&straight);
            }
            if photo.stretch {
                straight = ocr_core::preprocess::stretch_contrast(&straight);
            }
            let grey =
                pp_ocr::GreyPixels::new(straight.width(), straight.height(), straight.pixels())?;
            let lines: Vec<String> = pp.read(grey)?.into_iter().map(|l| l.text.text).collect();
            let seconds = started.elapsed().as_secs_f64() + decode_seconds;
            let cpu = cpu_seconds().0 - cpu_started.0 + decode_cpu;
            pp_score.add(&truth, &lines, seconds, Some(cpu));
        }

        if !pp_only && !no_cli {
            let started = Instant::now();
            let children_before = cpu_seconds().1;
            let text = tesseract_cli(picture)?;
            let cpu = cpu_seconds().1 - children_before;
            let lines: Vec<String> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect();
            cli.add(&truth, &lines, started.elapsed().as_secs_f64(), Some(cpu));
        }

        if let Some((lines, seconds)) = rapid.as_ref().and_then(|r| r.get(&stem)) {
            rapid_score.add(&truth, lines, *seconds, None);
        }
        if each {
            eprintln!(
                "{stem}: CER ours {:.3}  PP-OCR {:.3}  CLI {:.3}  RapidOCR {:.3}",
                ours.last_cer, pp_score.last_cer, cli.last_cer, rapid_score.last_cer
            );
        }
    }
    println!(
        "photo steps {photo:?}; the models' pictures cut out and straightened: {straightened}"
    );
    println!(
        "{} receipts of {}\n\n| reader | CER | CER without spaces | word recall | word precision | median s | median CPU s |\n|---|---|---|---|---|---|---|",
        pictures.len(),
        dir.display()
    );
    if !pp_only && !no_ours {
        ours.print("ours (`read_picture`)");
    }
    if pp.is_some() {
        pp_score.print("ours, PP-OCR models (`pp-ocr`)");
    }
    if !pp_only && !no_cli {
        cli.print("tesseract CLI `-l eng`");
    }
    if rapid.is_some() {
        rapid_score.print(&format!("RapidOCR ({} pictures)", rapid_score.pictures));
    }
    Ok(())
}

/// `none`, or photo steps by name, comma-separated.
fn photo_steps(list: &str) -> Result<ocr_core::preprocess::PhotoSteps, Failure> {
    let mut steps = ocr_core::preprocess::PhotoSteps::NONE;
    for name in list.split(',').filter(|n| !n.is_empty() && *n != "none") {
        match name {
            "perspective" => steps.perspective = true,
            "stretch" => steps.stretch = true,
            "upscale" => steps.upscale = true,
            "binarise" => steps.binarise = true,
            other => return Err(format!("unknown photo step {other}").into()),
        }
    }
    Ok(steps)
}

/// CPU seconds used so far by this process (all its threads) and by its waited-for children,
/// from `/proc/self/stat` (utime + stime, cutime + cstime; clock ticks of 1/100 s, Linux's
/// `USER_HZ`). CPU time does not grow with the machine's load as the wall clock does.
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<f64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0.0))
                .collect()
        })
        .unwrap_or_default();
    let field = |k: usize| fields.get(k).copied().unwrap_or(0.0) / 100.0;
    // After the command's closing parenthesis field 3 (state) comes first: utime is field 14.
    (field(11) + field(12), field(13) + field(14))
}

/// The transcript's lines: the text after the eight corner coordinates (it may hold commas).
fn transcript(csv: &Path) -> Result<Vec<String>, Failure> {
    let text = std::fs::read_to_string(csv)?;
    Ok(text
        .lines()
        .filter_map(|row| row.splitn(9, ',').nth(8))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect())
}

fn tesseract_cli(picture: &Path) -> Result<String, Failure> {
    let output = Command::new("tesseract")
        .arg(picture)
        .args(["-", "-l", "eng"])
        .env("OMP_THREAD_LIMIT", "1")
        .output()?;
    if !output.status.success() {
        return Err(format!("tesseract {}: {}", picture.display(), output.status).into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

type RapidLines = HashMap<String, (Vec<String>, f64)>;

fn read_rapidocr(path: &Path) -> Result<RapidLines, Failure> {
    let mut out = HashMap::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let row: serde_json::Value = serde_json::from_str(line)?;
        let stem = row["stem"].as_str().unwrap_or_default().to_string();
        let lines = row["lines"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        out.insert(stem, (lines, row["seconds"].as_f64().unwrap_or(0.0)));
    }
    Ok(out)
}

#[derive(Default)]
struct Score {
    pictures: usize,
    edits: usize,
    chars: usize,
    edits_unspaced: usize,
    chars_unspaced: usize,
    words_truth: usize,
    words_read: usize,
    words_matched: usize,
    seconds: Vec<f64>,
    cpu: Vec<f64>,
    last_cer: f64,
}

impl Score {
    fn add(&mut self, truth: &[String], read: &[String], seconds: f64, cpu: Option<f64>) {
        self.pictures += 1;
        self.seconds.push(seconds);
        self.cpu.extend(cpu);
        // SROIE's transcripts are upper case whatever the print: compare upper case.
        let truth: Vec<String> = truth.iter().map(|l| l.to_uppercase()).collect();
        let read: Vec<String> = read.iter().map(|l| l.to_uppercase()).collect();
        let collapse = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let unspace = |t: &str| t.split_whitespace().collect::<String>();
        let read_spaced: Vec<Vec<char>> =
            read.iter().map(|l| collapse(l).chars().collect()).collect();
        let read_unspaced: Vec<Vec<char>> =
            read.iter().map(|l| unspace(l).chars().collect()).collect();
        let (edits_before, chars_before) = (self.edits, self.chars);
        for line in &truth {
            let spaced: Vec<char> = collapse(line).chars().collect();
            self.chars += spaced.len();
            self.edits += best_substring_edits(&spaced, &read_spaced);
            let unspaced: Vec<char> = unspace(line).chars().collect();
            self.chars_unspaced += unspaced.len();
            self.edits_unspaced += best_substring_edits(&unspaced, &read_unspaced);
        }
        self.last_cer =
            (self.edits - edits_before) as f64 / (self.chars - chars_before).max(1) as f64;
        let mut bag: HashMap<&str, usize> = HashMap::new();
        for word in truth.iter().flat_map(|l| l.split_whitespace()) {
            *bag.entry(word).or_default() += 1;
            self.words_truth += 1;
        }
        for word in read.iter().flat_map(|l| l.split_whitespace()) {
            self.words_read += 1;
            if let Some(left) = bag.get_mut(word)
                && *left > 0
            {
                *left -= 1;
                self.words_matched += 1;
            }
        }
    }

    fn print(&mut self, name: &str) {
        self.seconds.sort_by(f64::total_cmp);
        let median = self
            .seconds
            .get(self.seconds.len() / 2)
            .copied()
            .unwrap_or(0.0);
        let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
        self.cpu.sort_by(f64::total_cmp);
        let cpu = self
            .cpu
            .get(self.cpu.len() / 2)
            .map_or_else(|| "–".to_string(), |c| format!("{c:.2}"));
        println!(
            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {median:.2} | {cpu} |",
            ratio(self.edits, self.chars),
            ratio(self.edits_unspaced, self.chars_unspaced),
            ratio(self.words_matched, self.words_truth),
            ratio(self.words_matched, self.words_read),
        );
    }
}

/// The fewest edits that turn `truth` into a substring of one of `lines` (semi-global
/// alignment: the line's prefix and suffix are free); `truth.len()` when nothing was read.
fn best_substring_edits(truth: &[char], lines: &[Vec<char>]) -> usize {
    lines
        .iter()
        .map(|line| substring_edits(truth, line))
        .min()
        .unwrap_or(truth.len())
}

fn substring_edits(truth: &[char], line: &[char]) -> usize {
    // previous[j]: edits aligning truth[..i] so that it ends at line[..j]; row 0 is all zero
    // because the alignment may start anywhere in the line.
    let mut previous = vec![0usize; line.len() + 1];
    let mut current = vec![0usize; line.len() + 1];
    for (i, &t) in truth.iter().enumerate() {
        current[0] = i + 1;
        for (j, &c) in line.iter().enumerate() {
            let substitute = previous[j] + usize::from(t != c);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous.iter().copied().min().unwrap_or(truth.len())
}
