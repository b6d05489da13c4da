//! Model files the OCR's second recogniser reads (crate pp-ocr): PaddleOCR's PP-OCRv4 detector
//! and recogniser as ONNX files, taken from the `rapidocr-onnxruntime` wheel on PyPI (the
//! wheel ships them; Apache-2.0, from the PaddleOCR project), checked against pinned SHA-256
//! digests and put in `target/models/pp-ocr`. Nothing of the wheel's Python code is used.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Result, bail};

use crate::paths;

/// The pins, in one place for xtask and the docs image (deploy/models/NOTICE.md): the wheel
/// (a pip requirement) and each model's SHA-256 in `sha256sum` format.
const WHEEL_PIN: &str = include_str!("../../deploy/models/pp-ocr-wheel.txt");
const DIGESTS: &str = include_str!("../../deploy/models/pp-ocr.sha256");

/// The wheel that carries the models, as pip names it.
fn wheel() -> &'static str {
    WHEEL_PIN.trim()
}

/// Each model's file name (as pp-ocr's `DETECTION_MODEL` and `RECOGNITION_MODEL` name them;
/// not imported, so that xtask, compiled first and alone, does not compile tract) and its
/// SHA-256. A drift fails ocr-core's PP-OCR tests, which load the files by pp-ocr's names.
fn files() -> Vec<(&'static str, &'static str)> {
    DIGESTS
        .lines()
        .filter_map(|line| line.split_once("  "))
        .map(|(digest, name)| (name.trim(), digest.trim()))
        .collect()
}

/// Where the models are installed.
pub fn pp_ocr_dir() -> PathBuf {
    paths::workspace_root().join("target/models/pp-ocr")
}

/// The models' directory when both files are there (not checked against the digests: that is
/// [`ensure_pp_ocr`]'s work), for the servers xtask starts.
pub fn installed_pp_ocr() -> Option<PathBuf> {
    let dir = pp_ocr_dir();
    files()
        .iter()
        .all(|(name, _)| dir.join(name).is_file())
        .then_some(dir)
}

/// The `[ocr]` section of a docs-server configuration that reads with the installed models,
/// or nothing without them (Tesseract only: a fresh checkout's demo still works).
pub fn docs_ocr_section() -> String {
    installed_pp_ocr().map_or_else(String::new, |dir| {
        format!("\n[ocr]\npp_ocr_models = {:?}\n", dir.display().to_string())
    })
}

/// Installs the PP-OCR models unless both files are there with their pinned digests; returns
/// their directory.
pub fn ensure_pp_ocr() -> Result<PathBuf> {
    let dir = pp_ocr_dir();
    let root = paths::workspace_root();
    let bin = crate::pyenv::ensure(&root, "models-venv", &["pip"], |bin| {
        bin.join("pip").is_file()
    })?;
    if verified(&bin, &dir) {
        return Ok(dir);
    }
    let download = root.join("target/models/download");
    std::fs::create_dir_all(&download)?;
    std::fs::create_dir_all(&dir)?;
    download_wheel(&bin, &download)?;
    let names: Vec<&str> = files().iter().map(|(name, _)| *name).collect();
    let version = wheel().rsplit("==").next().unwrap_or_default();
    // The wheel is a zip; the models sit under rapidocr_onnxruntime/models/.
    let extract = format!(
        "import glob, sys, zipfile\n\
         wheel = sorted(glob.glob(sys.argv[1] + '/rapidocr_onnxruntime-{version}-*.whl'))[-1]\n\
         with zipfile.ZipFile(wheel) as z:\n\
         \x20   for name in {names:?}:\n\
         \x20       open(sys.argv[2] + '/' + name, 'wb').write(z.read('rapidocr_onnxruntime/models/' + name))\n"
    );
    crate::run(
        Command::new(bin.join("python"))
            .args(["-c", &extract])
            .arg(&download)
            .arg(&dir),
    )?;
    if !verified(&bin, &dir) {
        bail!(
            "the PP-OCR models extracted from {} into {} do not have the pinned SHA-256 digests",
            wheel(),
            dir.display()
        );
    }
    Ok(dir)
}

/// Downloads the pinned wheel into `dir` (pip keeps a copy already there), where the docs
/// image's models stage looks first (deploy/models/fetch_models.py).
pub fn stage_wheel(dir: &std::path::Path) -> Result<()> {
    let root = paths::workspace_root();
    let bin = crate::pyenv::ensure(&root, "models-venv", &["pip"], |bin| {
        bin.join("pip").is_file()
    })?;
    std::fs::create_dir_all(dir)?;
    download_wheel(&bin, dir)
}

fn download_wheel(bin: &std::path::Path, dest: &std::path::Path) -> Result<()> {
    crate::run(
        Command::new(bin.join("pip"))
            .args(["download", "--quiet", "--no-deps", "--only-binary=:all:"])
            .arg("--dest")
            .arg(dest)
            .arg(wheel()),
    )
}

/// Whether both model files exist with their pinned digests.
fn verified(bin: &std::path::Path, dir: &std::path::Path) -> bool {
    let files = files();
    !files.is_empty()
        && files.iter().all(|(name, digest)| {
        let path = dir.join(name);
        path.is_file()
            && crate::pyenv::python_runs(
                bin,
                &format!(
                    "import hashlib, sys; sys.exit(hashlib.sha256(open({:?}, 'rb').read()).hexdigest() != {digest:?})",
                    path.display().to_string()
                ),
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pins_name_the_wheel_and_two_digests() {
        assert_eq!(wheel(), "rapidocr-onnxruntime==1.4.4");
        let files = files();
        let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            ["ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx"]
        );
        assert!(
            files
                .iter()
                .all(|(_, digest)| digest.len() == 64
                    && digest.bytes().all(|b| b.is_ascii_hexdigit()))
        );
    }
}
