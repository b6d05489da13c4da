//! Accuracy and speed of `codes::read_codes` on zxing's black-box images
//! (`../shared/test-data/barcodes/`, scored as its README says: every listed rotation, exact
//! symbology and text) and on the generated pages of `testdata/codes/`, side by side with
//! zxing-cpp from PyPI (`examples/zxing_cpp_blackbox.py`) when a Python with it is given.
//!
//! ```text
//! cargo run --release -p ocr-core --example codes_blackbox -- [--engine rxing|zxing-cpp|both]
//!     [--python /path/to/python-with-zxing-cpp] [--data ../shared/test-data/barcodes]
//! ```
//! Prints markdown tables. Only the decode call is timed, on both sides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use doc_model::Symbology;
use ocr_core::codes::{CodeOptions, Engine, read_codes};
use serde_json::Value;

#[derive(Debug, Default, Clone)]
struct Row {
    images: usize,
    pass: usize,
    misread: usize,
    miss: usize,
    false_positive: usize,
    seconds: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest.join("../..");
    let mut data = workspace.join("../shared/test-data/barcodes");
    let mut python: Option<String> = None;
    let mut options = CodeOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--data" => data = PathBuf::from(args.next().ok_or("--data needs a path")?),
            "--python" => python = Some(args.next().ok_or("--python needs a path")?),
            "--engine" => options.engine = engine(&args.next().ok_or("--engine needs a name")?)?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    println!("engine: {:?}\n", options.engine);
    if data.join("thresholds.json").exists() {
        blackbox(&data, &options, python.as_deref())?;
    } else {
        println!("{} not found: black-box table skipped\n", data.display());
    }
    pages(
        &workspace.join("testdata/codes/truth.json"),
        &options,
        python.as_deref(),
    )?;
    Ok(())
}

fn engine(name: &str) -> Result<Engine, Box<dyn std::error::Error>> {
    match name {
        "rxing" => Ok(Engine::Rxing),
        #[cfg(feature = "zxing-cpp")]
        "zxing-cpp" => Ok(Engine::ZxingCpp),
        #[cfg(feature = "zxing-cpp")]
        "both" => Ok(Engine::Both),
        other => Err(format!(
            "engine {other} unknown (zxing-cpp and both need --features zxing-cpp)"
        )
        .into()),
    }
}

fn symbology(zxing_name: &str) -> Option<Symbology> {
    Some(match zxing_name {
        "QR_CODE" => Symbology::QrCode,
        "DATA_MATRIX" => Symbology::DataMatrix,
        "EAN_13" => Symbology::Ean13,
        "EAN_8" => Symbology::Ean8,
        "CODE_128" => Symbology::Code128,
        "CODE_39" => Symbology::Code39,
        "PDF_417" => Symbology::Pdf417,
        "AZTEC" => Symbology::Aztec,
        _ => return None,
    })
}

fn expected_text(folder: &Path, stem: &str) -> Option<String> {
    if let Ok(bytes) = std::fs::read(folder.join(format!("{stem}.txt"))) {
        return String::from_utf8(bytes).ok();
    }
    // ISO-8859-1: every byte is the code point of the same number.
    std::fs::read(folder.join(format!("{stem}.bin")))
        .ok()
        .map(|bytes| bytes.iter().map(|&b| char::from(b)).collect())
}

fn image_paths(folder: &Path) -> Result<Vec<PathBuf>, std::io::Error> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                matches!(
                    e.to_ascii_lowercase().as_str(),
                    "png" | "jpg" | "jpeg" | "gif"
                )
            })
        })
        .collect();
    paths.sort();
    Ok(paths)
}

fn load_rotated(
    path: &Path,
    rotation: u64,
) -> Result<image::GrayImage, Box<dyn std::error::Error>> {
    let grey = image::open(path)?.to_luma8();
    Ok(match rotation {
        90 => image::imageops::rotate90(&grey),
        180 => image::imageops::rotate180(&grey),
        270 => image::imageops::rotate270(&grey),
        _ => grey,
    })
}

fn blackbox(
    root: &Path,
    options: &CodeOptions,
    python: Option<&str>,
) -> Result<(), Box<dyn std::error::Error>> {
    let thresholds: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("thresholds.json"))?)?;
    let folders = thresholds["folders"]
        .as_object()
        .ok_or("thresholds.json has no folders")?;
    let theirs = python
        .map(|py| run_python(py, "blackbox", root))
        .transpose()?;
    let mut total = Row::default();
    let mut total_theirs = Row::default();
    let mut by_rotation: BTreeMap<u64, (Row, Row)> = BTreeMap::new();
    println!(
        "| folder | rot | images | must pass | ours pass / misread / miss (FP) | ms/img | zxing-cpp pass / misread / miss (FP) | ms/img |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, spec) in folders {
        let folder = root.join(name);
        let wanted = spec["format"].as_str().and_then(symbology);
        for test in spec["tests"].as_array().ok_or("tests")? {
            let rotation = test["rotation"].as_u64().unwrap_or(0);
            let mut row = Row::default();
            for path in image_paths(&folder)? {
                let stem = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .ok_or("file name")?;
                let expected = expected_text(&folder, stem);
                if wanted.is_some() && expected.is_none() {
                    continue;
                }
                let image = load_rotated(&path, rotation)?;
                let start = Instant::now();
                let codes = read_codes(image.as_raw(), image.width(), image.height(), 1, options)?;
                row.seconds += start.elapsed().as_secs_f64();
                row.images += 1;
                match wanted {
                    None => row.false_positive += usize::from(!codes.is_empty()),
                    Some(symbology) => {
                        if codes
                            .iter()
                            .any(|c| c.symbology == symbology && Some(&c.text) == expected.as_ref())
                        {
                            row.pass += 1;
                        } else if codes.is_empty() {
                            row.miss += 1;
                        } else {
                            row.misread += 1;
                        }
                    }
                }
            }
            let their_row = theirs
                .as_ref()
                .and_then(|rows| find_row(rows, name, rotation));
            let must_pass = test["try_harder_must_pass"]
                .as_u64()
                .or(test["max_false_positives"].as_u64())
                .unwrap_or(0);
            println!(
                "| {name} | {rotation} | {} | {}{must_pass} | {} | {:.1} | {} | {} |",
                row.images,
                if wanted.is_some() { "" } else { "FP ≤ " },
                counts(&row, wanted.is_none()),
                1000.0 * row.seconds / row.images.max(1) as f64,
                their_row
                    .as_ref()
                    .map_or("–".into(), |r| counts(r, wanted.is_none())),
                their_row.as_ref().map_or("–".into(), |r| format!(
                    "{:.1}",
                    1000.0 * r.seconds / r.images.max(1) as f64
                )),
            );
            let entry = by_rotation.entry(rotation).or_default();
            add(&mut entry.0, &row);
            add(&mut total, &row);
            if let Some(r) = their_row {
                add(&mut entry.1, &r);
                add(&mut total_theirs, &r);
            }
        }
    }
    for (rotation, (ours, theirs)) in &by_rotation {
        summary(
            &format!("all, rotation {rotation}"),
            ours,
            theirs,
            python.is_some(),
        );
    }
    summary("**all**", &total, &total_theirs, python.is_some());
    println!();
    Ok(())
}

fn summary(label: &str, ours: &Row, theirs: &Row, have_theirs: bool) {
    println!(
        "| {label} | | {} | | {} | {:.1} | {} | {} |",
        ours.images,
        counts(ours, false),
        1000.0 * ours.seconds / ours.images.max(1) as f64,
        if have_theirs {
            counts(theirs, false)
        } else {
            "–".into()
        },
        if have_theirs {
            format!(
                "{:.1}",
                1000.0 * theirs.seconds / theirs.images.max(1) as f64
            )
        } else {
            "–".into()
        },
    );
}

fn counts(row: &Row, negative: bool) -> String {
    if negative {
        format!("FP {}", row.false_positive)
    } else if row.false_positive > 0 {
        format!(
            "{} / {} / {} ({})",
            row.pass, row.misread, row.miss, row.false_positive
        )
    } else {
        format!("{} / {} / {}", row.pass, row.misread, row.miss)
    }
}

fn add(total: &mut Row, row: &Row) {
    total.images += row.images;
    total.pass += row.pass;
    total.misread += row.misread;
    total.miss += row.miss;
    total.false_positive += row.false_positive;
    total.seconds += row.seconds;
}

fn run_python(
    python: &str,
    mode: &str,
    path: &Path,
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/zxing_cpp_blackbox.py");
    let output = Command::new(python)
        .arg(script)
        .arg(mode)
        .arg(path)
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "zxing_cpp_blackbox.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let parsed: Value = serde_json::from_slice(&output.stdout)?;
    Ok(parsed["rows"].as_array().cloned().unwrap_or_default())
}

fn find_row(rows: &[Value], folder: &str, rotation: u64) -> Option<Row> {
    let row = rows
        .iter()
        .find(|r| r["folder"] == folder && r["rotation"].as_u64() == Some(rotation))?;
    let n = |key: &str| row[key].as_u64().unwrap_or(0) as usize;
    Some(Row {
        images: n("images"),
        pass: n("pass"),
        misread: n("misread"),
        miss: n("miss"),
        false_positive: n("false_positive"),
        seconds: row["seconds"].as_f64().unwrap_or(0.0),
    })
}

fn pages(
    truth_path: &Path,
    options: &CodeOptions,
    python: Option<&str>,
) -> Result<(), Box<dyn std::error::Error>> {
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(truth_path)?)?;
    let folder = truth_path.parent().ok_or("truth.json has no folder")?;
    let theirs = python
        .map(|py| run_python(py, "pages", truth_path))
        .transpose()?;
    println!(
        "| generated page | codes | ours right / found | ms (best of 3) | zxing-cpp right / found | ms (best of 3) |"
    );
    println!("|---|---|---|---|---|---|");
    for page in truth["pages"].as_array().ok_or("pages")? {
        let file = page["file"].as_str().ok_or("file")?;
        let image = image::open(folder.join(file))?.to_luma8();
        let mut best = Duration::MAX;
        let mut codes = Vec::new();
        for _ in 0..3 {
            let start = Instant::now();
            codes = read_codes(image.as_raw(), image.width(), image.height(), 1, options)?;
            best = best.min(start.elapsed());
        }
        let expected = page["codes"].as_array().ok_or("codes")?;
        let right = expected
            .iter()
            .filter(|e| {
                codes
                    .iter()
                    .filter(|c| {
                        serde_json::to_value(c.symbology).ok().as_ref() == Some(&e["symbology"])
                            && Some(c.text.as_str()) == e["text"].as_str()
                    })
                    .count()
                    == 1
            })
            .count();
        let their = theirs
            .as_ref()
            .and_then(|rows| rows.iter().find(|r| r["file"] == file));
        println!(
            "| {file} | {} | {right} / {} | {:.0} | {} | {} |",
            expected.len(),
            codes.len(),
            best.as_secs_f64() * 1000.0,
            their.map_or("–".into(), |r| format!(
                "{} / {}",
                r["found_right"], r["found"]
            )),
            their.map_or("–".into(), |r| format!(
                "{:.0}",
                r["seconds"].as_f64().unwrap_or(0.0) * 1000.0
            )),
        );
    }
    Ok(())
}
