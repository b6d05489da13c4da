//! `cargo xtask check-features`: xtask's feature mirror (the block of `xtask/Cargo.toml` after
//! "Unused by xtask's code") must turn on, in every crate it names, exactly the features the
//! workspace's test build turns on, so `cargo xtask` built first on a fresh machine builds the
//! same units `cargo test --workspace` needs. The list is kept by hand; this check fails when
//! it drifts (a dependency update or a new crate turning on another feature) and says what to
//! write.
//!
//! Both sides come from `cargo tree` (no build): the features of each named crate in
//! `-p xtask` and in `--workspace`, over normal and dev edges (a crate's build-script units
//! are built for the host with their own features, which no mirror entry can match).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::paths;

/// Where the mirror starts in `xtask/Cargo.toml`.
const MARKER: &str = "# Unused by xtask's code";

/// Package name, version → the feature sets `cargo tree` shows for it.
type Features = BTreeMap<(String, String), BTreeSet<String>>;

/// Runs the check.
pub fn check() -> Result<()> {
    let manifest = std::fs::read_to_string(paths::workspace_root().join("xtask/Cargo.toml"))
        .context("reading xtask/Cargo.toml")?;
    let mirrored = mirrored_packages(&manifest)?;
    let workspace = features(&["--workspace"])?;
    let xtask = features(&["-p", "xtask"])?;
    let mut drift = Vec::new();
    for name in &mirrored {
        for (key, sets) in workspace.iter().filter(|((package, _), _)| package == name) {
            let ours = xtask.get(key).cloned().unwrap_or_default();
            if *sets != ours {
                drift.push(format!(
                    "{} {}: the workspace turns on {:?}, xtask {:?}",
                    key.0, key.1, sets, ours
                ));
            }
        }
    }
    if !drift.is_empty() {
        bail!(
            "xtask/Cargo.toml's feature mirror has drifted (copy the workspace's features):\n  {}",
            drift.join("\n  ")
        );
    }
    println!(
        "feature mirror: the {} crates named in xtask/Cargo.toml have the workspace's features",
        mirrored.len()
    );
    Ok(())
}

/// The package names of the dependency lines after [`MARKER`] (a `package = "…"` key wins
/// over the line's own name), up to `[dev-dependencies]`.
fn mirrored_packages(manifest: &str) -> Result<BTreeSet<String>> {
    let start = manifest
        .find(MARKER)
        .with_context(|| format!("no {MARKER:?} in xtask/Cargo.toml"))?;
    let block = &manifest[start..];
    let block = &block[..block.find("[dev-dependencies]").unwrap_or(block.len())];
    let mut names = BTreeSet::new();
    for line in block.lines().map(str::trim) {
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim();
        if line.starts_with('#') || line.starts_with('[') || name.contains(' ') {
            continue;
        }
        let package = value
            .split_once("package")
            .and_then(|(_, rest)| rest.split('"').nth(1))
            .unwrap_or(name);
        names.insert(package.to_owned());
    }
    if names.is_empty() {
        bail!("no crate listed after {MARKER:?} in xtask/Cargo.toml");
    }
    Ok(names)
}

/// `cargo tree ARGS` over normal and dev edges: every package with each feature set it is
/// built with.
fn features(args: &[&str]) -> Result<Features> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(paths::workspace_root())
        .arg("tree")
        .args(args)
        .args(["--locked", "-e", "normal,dev", "--prefix", "none"])
        .args(["-f", "{p} {f}"])
        .output()
        .context("running cargo tree")?;
    if !output.status.success() {
        bail!(
            "cargo tree {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let mut features = Features::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let line = line.trim_end_matches(" (*)");
        let mut parts = line.split(' ');
        let (Some(name), Some(version)) = (parts.next(), parts.next()) else {
            continue;
        };
        // A path dependency prints its directory in parentheses before the features.
        let set = parts
            .find(|part| !part.starts_with('('))
            .unwrap_or_default();
        features
            .entry((name.to_owned(), version.to_owned()))
            .or_default()
            .insert(set.to_owned());
    }
    Ok(features)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mirror_block_names_its_packages() {
        let manifest = "[dependencies]\nanyhow.workspace = true\n\n# Unused by xtask's code: x\n\
            alloy-primitives = { version = \"1.7\" }\ngetrandom-04 = { package = \"getrandom\", version = \"0.4\" }\n\
            [build-dependencies]\nmemchr = \"2.8\"\n\n[dev-dependencies]\nfutures.workspace = true\n";
        let names = mirrored_packages(manifest).expect("names");
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["alloy-primitives", "getrandom", "memchr"]
        );
    }
}
