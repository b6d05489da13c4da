//! `cargo xtask images`: builds both service images with podman from the repository's own
//! Dockerfiles (`deploy/docker/*.Dockerfile`, unchanged: the files users build), on base images
//! made here from Debian's packages, and records each image's size and build time.
//!
//! These machines reach no container registry, so the two `FROM` images of the Dockerfiles are
//! made locally and tagged with the names the Dockerfiles use, and the build never pulls:
//!
//! - `debian:bookworm-slim` (the runtime stage): a Debian bookworm `minbase` by mmdebstrap, with
//!   ca-certificates. The official slim image is the same release with the same essential set.
//! - `rust:1.95-bookworm` (the build stage): bookworm with gcc, g++, make, pkg-config, git and
//!   curl (what the official image's buildpack-deps base gives a Rust build), the Rust toolchain
//!   this machine builds with (its version must be the Dockerfile's 1.95: checked), and every
//!   crate of `Cargo.lock` vendored (`cargo vendor`) with `CARGO_NET_OFFLINE`: HTTPS out of a
//!   container fails here, while the official image would fetch the crates itself. Debian's own
//!   rustc (1.63) is too old for the workspace.
//!
//! podman 4.3 from Debian, as root, with runc (crun refuses this host's cgroup layout) and
//! explicit ulimits; `--format docker` keeps the HEALTHCHECK; the build context is filtered by
//! the Dockerfile's own `.dockerignore` (podman 4.3 does not look for `<Dockerfile>.dockerignore`
//! by itself, so it is passed with `--ignorefile`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::paths::workspace_root;

mod hardening;
mod replicas;
mod smoke;

pub use hardening::Hardening;
pub use replicas::{ReplicaReport, replicas};
pub use smoke::{SmokeReport, smoke};

/// Debian packages the images are made with.
pub const IMAGE_TOOLS: &[&str] = &["podman", "mmdebstrap", "runc", "uidmap"];

/// The Rust version of the Dockerfiles' build stage (`FROM rust:1.95-bookworm`).
const RUST_VERSION: &str = "1.95";

/// Where Debian's packages come from (the same mirror as the machine's apt sources).
const MIRROR: &str = "http://deb.debian.org/debian";

/// One service image.
#[derive(Debug, Clone, Copy)]
pub struct ServiceImage {
    /// The Dockerfile under `deploy/docker`.
    pub dockerfile: &'static str,
    /// The tag the compose file gives the image.
    pub tag: &'static str,
}

/// Both services' images, as `deploy/compose.yaml` names them.
pub const SERVICES: [ServiceImage; 2] = [
    ServiceImage {
        dockerfile: "analytics.Dockerfile",
        tag: "x402/analytics-server:local",
    },
    ServiceImage {
        dockerfile: "docs.Dockerfile",
        tag: "x402/docs-server:local",
    },
];

/// What one build gave.
#[derive(Debug, Clone, Serialize)]
pub struct BuiltImage {
    /// The image tag.
    pub tag: String,
    /// Its size as podman reports it (uncompressed layers), bytes.
    pub size_bytes: u64,
    /// Wall time of `podman build`, seconds.
    pub build_seconds: f64,
}

/// `--ulimit` options at this process's own hard limits of open files and processes: podman
/// needs explicit limits here (its defaults fail on this host) and cannot go above the hard
/// limits it inherits.
pub fn ulimits() -> Vec<String> {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let hard = |name: &str| {
        limits
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line[name.len()..].split_whitespace().nth(1))
            .and_then(|value| value.parse::<u64>().ok())
            .unwrap_or(1024)
    };
    // Processes capped lower: runc refused this host's full hard limit (96,365) but takes
    // 32,768, far above what a build or a service starts.
    let (files, processes) = (hard("Max open files"), hard("Max processes").min(32_768));
    vec![
        "--ulimit".to_owned(),
        format!("nofile={files}:{files}"),
        "--ulimit".to_owned(),
        format!("nproc={processes}:{processes}"),
    ]
}

/// The podman command with the options every call here needs.
pub fn podman() -> Command {
    let mut command = Command::new("podman");
    command.args(["--runtime", "runc"]);
    command
}

pub(crate) fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("starting {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

fn image_exists(tag: &str) -> bool {
    podman()
        .args(["image", "exists", tag])
        .status()
        .is_ok_and(|status| status.success())
}

/// FNV-1a of `bytes`: tells one Cargo.lock from another (not a security digest).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The scratch directory of the image builds (under `target/`, never in a build context).
pub(crate) fn scratch() -> PathBuf {
    workspace_root().join("target/images")
}

/// `cargo xtask images [--rebuild-bases]`: the bases (unless present), then both images.
pub fn images(rebuild_bases: bool) -> Result<Vec<BuiltImage>> {
    crate::apt::ensure(IMAGE_TOOLS)?;
    std::fs::create_dir_all(scratch())?;
    if rebuild_bases || !image_exists("docker.io/library/debian:bookworm-slim") {
        debian_base()?;
    }
    // The Rust base carries the crates of Cargo.lock vendored: made again when the lock file
    // changed since, or a build would miss a new crate (no network inside the build).
    let lock = std::fs::read(workspace_root().join("Cargo.lock"))?;
    let lock_digest = format!("{:016x}", fnv1a(&lock));
    let vendored_for = scratch().join("rust-base.cargo-lock");
    let vendored_current =
        std::fs::read_to_string(&vendored_for).is_ok_and(|digest| digest.trim() == lock_digest);
    if rebuild_bases
        || !vendored_current
        || !image_exists(&format!("docker.io/library/rust:{RUST_VERSION}-bookworm"))
    {
        rust_base()?;
        std::fs::write(&vendored_for, &lock_digest)?;
    }
    // The docs image's models stage takes the pinned wheel from the build context: HTTPS out
    // of a container fails here (deploy/models/fetch_models.py downloads it elsewhere).
    crate::models::stage_wheel(&workspace_root().join("deploy/models/wheels"))?;
    let mut built = Vec::new();
    for service in SERVICES {
        built.push(build(service)?);
    }
    let report = serde_json::to_string_pretty(&built)?;
    std::fs::write(scratch().join("images.json"), &report)?;
    println!("images: {report}");
    Ok(built)
}

/// `debian:bookworm-slim`: a minbase bookworm with ca-certificates.
fn debian_base() -> Result<()> {
    let tar = scratch().join("debian-bookworm-minbase.tar");
    run(
        Command::new("mmdebstrap")
            .args(["--variant=minbase", "--include=ca-certificates", "bookworm"])
            .arg(&tar)
            .arg(MIRROR),
        "mmdebstrap (debian base)",
    )?;
    run(
        podman()
            .arg("import")
            .arg(&tar)
            .arg("docker.io/library/debian:bookworm-slim"),
        "podman import (debian base)",
    )?;
    std::fs::remove_file(&tar)?;
    Ok(())
}

/// `rust:1.95-bookworm`: build tools, this machine's Rust toolchain and the vendored crates.
fn rust_base() -> Result<()> {
    let sysroot = rust_sysroot()?;
    let stage = scratch().join("rust-stage");
    if stage.exists() {
        std::fs::remove_dir_all(&stage)?;
    }
    std::fs::create_dir_all(stage.join("rust"))?;
    std::fs::create_dir_all(stage.join("cargo"))?;
    // The toolchain without its documentation (800 MB of HTML).
    for part in ["bin", "lib", "libexec"] {
        run(
            Command::new("cp")
                .arg("-a")
                .arg(sysroot.join(part))
                .arg(stage.join("rust")),
            "copying the toolchain",
        )?;
    }
    run(
        Command::new(env!("CARGO"))
            .args(["vendor", "--locked", "--versioned-dirs"])
            .arg(stage.join("cargo/vendor"))
            .current_dir(workspace_root())
            .stdout(std::process::Stdio::null()),
        "cargo vendor",
    )?;
    std::fs::write(
        stage.join("cargo/config.toml"),
        "[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n\
         [source.vendored-sources]\ndirectory = \"/usr/local/cargo/vendor\"\n\n\
         [net]\noffline = true\n",
    )?;
    let tar = scratch().join("rust-bookworm.tar");
    let copy_in = |from: &Path| {
        format!(
            "--customize-hook=copy-in {} /usr/local",
            from.to_string_lossy()
        )
    };
    run(
        Command::new("mmdebstrap")
            .args([
                "--variant=minbase",
                "--include=ca-certificates,gcc,g++,libc6-dev,make,pkg-config,git,curl",
            ])
            .arg(copy_in(&stage.join("rust")))
            .arg(copy_in(&stage.join("cargo")))
            .arg("bookworm")
            .arg(&tar)
            .arg(MIRROR),
        "mmdebstrap (rust base)",
    )?;
    run(
        podman()
            .arg("import")
            .args([
                "--change",
                "ENV PATH=/usr/local/cargo/bin:/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "--change",
                "ENV CARGO_HOME=/usr/local/cargo",
                "--change",
                "ENV CARGO_NET_OFFLINE=true",
            ])
            .arg(&tar)
            .arg(format!("docker.io/library/rust:{RUST_VERSION}-bookworm")),
        "podman import (rust base)",
    )?;
    std::fs::remove_file(&tar)?;
    std::fs::remove_dir_all(&stage)?;
    Ok(())
}

/// The sysroot of the toolchain this machine builds with, checked to be the Dockerfiles' version.
fn rust_sysroot() -> Result<PathBuf> {
    let rustc = |arg: &str| -> Result<String> {
        let output = Command::new("rustc").arg(arg).output()?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let version = rustc("--version")?;
    if !version.starts_with(&format!("rustc {RUST_VERSION}.")) {
        bail!("the Dockerfiles build with Rust {RUST_VERSION}; this machine has {version}");
    }
    Ok(PathBuf::from(rustc("--print=sysroot")?))
}

/// `podman build` of one service image, from the repository root as the Dockerfile says.
fn build(service: ServiceImage) -> Result<BuiltImage> {
    let root = workspace_root();
    let dockerfile = root.join("deploy/docker").join(service.dockerfile);
    let ignore = root
        .join("deploy/docker")
        .join(format!("{}.dockerignore", service.dockerfile));
    let started = Instant::now();
    run(
        podman()
            .args(["build", "--pull=never", "--format", "docker"])
            .args(ulimits())
            .arg("--ignorefile")
            .arg(&ignore)
            .arg("-f")
            .arg(&dockerfile)
            .args(["-t", service.tag])
            .arg(&root),
        &format!("podman build {}", service.dockerfile),
    )?;
    let build_seconds = started.elapsed().as_secs_f64();
    let size = podman()
        .args(["image", "inspect", "--format", "{{.Size}}", service.tag])
        .output()?;
    let size_bytes = String::from_utf8_lossy(&size.stdout)
        .trim()
        .parse()
        .context("podman image inspect gave no size")?;
    Ok(BuiltImage {
        tag: service.tag.to_owned(),
        size_bytes,
        build_seconds,
    })
}

#[cfg(test)]
mod lock_digest_tests {
    use super::fnv1a;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
