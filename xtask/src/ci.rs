//! `cargo xtask ci`: everything CI checks, installing what is missing first.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::{node, paths, run};

/// The spelling checker, pinned (PyPI ships its binary in a wheel).
const TYPOS_PYPI: &str = "typos==1.52.0";

/// cargo-deny, pinned; installed with `cargo install` when missing.
const CARGO_DENY_VERSION: &str = "0.20.2";

/// Installs `cargo install NAME --version VERSION --locked --debug` unless `cargo NAME
/// --version` answers with that version.
fn ensure_cargo_tool(name: &str, version: &str) -> Result<()> {
    let subcommand = name.trim_start_matches("cargo-");
    let installed = cargo()
        .args([subcommand, "--version"])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains(version));
    if installed {
        return Ok(());
    }
    // Unoptimised and without debug information: a fresh CI machine compiles the tool once
    // and runs it once (cargo-deny 0.20.2 on 2 cores: 189 s to install optimised against 72 s,
    // for a check of 1.8 s against 5.5 s).
    run(cargo()
        .args(["install", name, "--version", version, "--locked", "--debug"])
        .env("CARGO_PROFILE_DEV_DEBUG", "0"))
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(paths::workspace_root());
    command
}

fn step(name: &str, action: impl FnOnce() -> Result<()>) -> Result<()> {
    println!("==> {name}");
    let started = Instant::now();
    action().with_context(|| format!("step `{name}` failed"))?;
    println!("<== {name}: ok in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Runs the whole check: Node packages, rustfmt, clippy, every test (unit, snapshot, wiremock,
/// devnet and interop with the official npm client and facilitator), then a rebuild of the
/// devnet state compared with the committed one.
pub fn ci() -> Result<()> {
    let started = Instant::now();
    step(
        "node packages (anvil, USDC artifacts, official x402 client/facilitator, MCP conformance on Node 22)",
        || {
            node::ensure_packages(&paths::devnet_builder())?;
            node::ensure_packages(&paths::x402_interop())?;
            node::ensure_packages(&paths::mcp_conformance())?;
            node::ensure_packages(&paths::browser_check())
        },
    )?;
    step(
        "Debian packages (Tesseract, Leptonica, deu/eng/osd models, clang, Chromium, Redis, nginx)",
        || {
            crate::apt::ensure(crate::apt::DOCUMENT_STACK)?;
            crate::apt::ensure(crate::apt::BROWSER)?;
            crate::apt::ensure(crate::apt::SHARED_STATE)
        },
    )?;
    step(
        "PP-OCR models (rapidocr-onnxruntime wheel, digests pinned)",
        || crate::models::ensure_pp_ocr().map(|_| ()),
    )?;
    step("spelling (typos, _typos.toml)", || {
        let bin = crate::pyenv::ensure(
            &paths::workspace_root(),
            "tools-venv",
            &[TYPOS_PYPI],
            |bin| bin.join("typos").is_file(),
        )?;
        run(Command::new(bin.join("typos"))
            .current_dir(paths::workspace_root())
            .arg("--format")
            .arg("brief"))
    })?;
    step(
        "deploy/ offline: kustomize overlays against the Kubernetes schemas, compose.yaml, hadolint",
        crate::deploy_check::check,
    )?;
    step("licences, bans and sources (cargo-deny, deny.toml)", || {
        ensure_cargo_tool("cargo-deny", CARGO_DENY_VERSION)?;
        run(cargo().args(["deny", "--locked", "check", "licenses", "bans", "sources"]))
    })?;
    step(
        "xtask's feature mirror against the workspace's features (cargo tree)",
        crate::feature_mirror::check,
    )?;
    step("rustfmt", || {
        run(cargo().args(["fmt", "--all", "--", "--check"]))
    })?;
    step("clippy", || {
        run(cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    step("rustdoc -D warnings (every crate's docs and links)", || {
        run(cargo()
            .args(["doc", "--workspace", "--no-deps", "--locked"])
            .env("RUSTDOCFLAGS", "-D warnings"))
    })?;
    step("tests", || {
        run(cargo()
            .args(["test", "--workspace", "--locked"])
            .env("INSTA_UPDATE", "no"))
    })?;
    step(
        "API conformance: schemathesis on both services' /openapi.json, unpaid and paid",
        || {
            crate::schemathesis::schemathesis(
                crate::harness::Profile::Debug,
                crate::schemathesis::CI_EXAMPLES,
            )
        },
    )?;
    step(
        "devnet rebuild from scratch matches the committed addresses.json",
        crate::devnet::check_drift,
    )?;
    println!(
        "ci: all steps passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
