//! Python tools from PyPI, each set in a virtual environment of its own under `target/` (made on
//! first use, with Debian's `python3-venv`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

/// The environment `target/NAME`, with `packages` installed unless `ready` says of its `bin/`
/// directory that they are; returns that directory.
pub fn ensure(
    root: &Path,
    name: &str,
    packages: &[&str],
    ready: impl Fn(&Path) -> bool,
) -> Result<PathBuf> {
    let venv = root.join("target").join(name);
    let bin = venv.join("bin");
    if !ready(&bin) {
        crate::apt::ensure(&["python3-venv"])?;
        crate::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        crate::run(
            Command::new(bin.join("pip"))
                .args(["install", "--quiet"])
                .args(packages),
        )?;
    }
    Ok(bin)
}

/// Whether `python -c CODE` succeeds in the environment of `bin`.
pub fn python_runs(bin: &Path, code: &str) -> bool {
    Command::new(bin.join("python"))
        .args(["-c", code])
        .output()
        .is_ok_and(|o| o.status.success())
}
