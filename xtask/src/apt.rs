//! Debian packages the build, the tests and the demo need, installed with apt-get when missing.

use std::process::Command;

use anyhow::Result;

/// What the document crates build and run with: Tesseract and Leptonica (headers for the -sys
/// crates, found through pkg-config, bindings made by bindgen with libclang), and the German,
/// English and orientation models (Debian's tessdata_fast); cmake and g++ build the bundled
/// zxing-cpp, the second barcode engine.
pub const DOCUMENT_STACK: &[&str] = &[
    "pkg-config",
    "cmake",
    "g++",
    "clang",
    "libclang-dev",
    "libtesseract-dev",
    "libleptonica-dev",
    "tesseract-ocr-eng",
    "tesseract-ocr-deu",
    "tesseract-ocr-osd",
];

/// The shared-state store the `devnet_*` state tests start on a loopback port, and the load
/// balancer the multi-replica tests put in front of two replicas (never assumed running: the
/// tests spawn their own processes).
pub const SHARED_STATE: &[&str] = &["redis-server", "nginx"];

/// The HTTP load generator of `cargo xtask bench load`.
pub const LOAD: &[&str] = &["wrk"];

/// The browser the service pages are checked in (headless, driven by playwright-core).
pub const BROWSER: &[&str] = &["chromium"];

/// The peers the document benchmarks run side by side with ours (pdftotext, the tesseract CLI),
/// and python3-venv for the environment PyPI's zxing-cpp is installed into.
pub const BENCH_PEERS: &[&str] = &["poppler-utils", "tesseract-ocr", "python3-venv"];

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("ok installed")
        })
}

/// Installs those of `packages` that are not installed, in one apt-get call.
pub fn ensure(packages: &[&str]) -> Result<()> {
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    install(&missing)
}

/// `apt-get update` then `apt-get install -y --no-install-recommends` of `packages`.
pub fn install(packages: &[&str]) -> Result<()> {
    eprintln!("xtask: installing Debian packages: {}", packages.join(" "));
    crate::run(Command::new("apt-get").args(["update", "-qq"]))?;
    crate::run(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}
