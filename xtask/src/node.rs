//! Node.js projects: installing their pinned packages when missing, running their scripts.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Makes sure `node` and `npm` exist, installing Debian's packages when they do not.
pub fn ensure_node() -> Result<()> {
    let has = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if has("node") && has("npm") {
        return Ok(());
    }
    eprintln!("xtask: node/npm missing");
    crate::apt::install(&["nodejs", "npm"])?;
    if !has("node") {
        bail!("node is still missing after apt-get install");
    }
    Ok(())
}

/// Runs `npm ci --ignore-scripts` in `project` unless its `node_modules` was installed from the
/// same lock file (a copy of the lock is kept as a stamp inside `node_modules`).
pub fn ensure_packages(project: &Path) -> Result<()> {
    ensure_node()?;
    // Tests call this from parallel threads and processes: one `npm ci` per project at a time.
    let guard_dir = crate::paths::workspace_root().join("target");
    std::fs::create_dir_all(&guard_dir)?;
    let name = project
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("node");
    let guard = std::fs::File::create(guard_dir.join(format!(".npm-{name}.lock")))?;
    guard.lock()?;
    let lock = std::fs::read(project.join("package-lock.json"))
        .with_context(|| format!("{} has no package-lock.json", project.display()))?;
    let stamp = project.join("node_modules/.xtask-installed-lock.json");
    if std::fs::read(&stamp).is_ok_and(|installed| installed == lock) {
        return Ok(());
    }
    eprintln!("xtask: npm ci in {}", project.display());
    crate::run(
        Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(project),
    )?;
    std::fs::write(&stamp, lock)?;
    Ok(())
}

/// What the official client (`client.mjs`) saw: the first answer, the payment it sent, the
/// final answer (see `testdata/x402-interop/README.md`).
pub type ClientReport = serde_json::Value;

/// Calls `url` with the official x402 client paying with `key`, posting `body`.
pub fn official_client(url: &str, key: &str, body: &serde_json::Value) -> Result<ClientReport> {
    let project = crate::paths::x402_interop();
    ensure_packages(&project)?;
    // Through a file: a document as base64 is longer than one argument may be.
    let mut body_file = tempfile::NamedTempFile::new()?;
    body_file.write_all(body.to_string().as_bytes())?;
    let output = Command::new("node")
        .arg("client.mjs")
        .args(["--url", url, "--key", key, "--body-file"])
        .arg(body_file.path())
        .current_dir(&project)
        .output()
        .context("running client.mjs")?;
    if !output.status.success() {
        bail!(
            "client.mjs failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    serde_json::from_slice(&output.stdout).context("client.mjs printed no JSON")
}

/// Signs (without sending) a payment for a `PAYMENT-REQUIRED` header with the official client.
pub fn official_sign(payment_required: &str, key: &str) -> Result<String> {
    let project = crate::paths::x402_interop();
    ensure_packages(&project)?;
    let output = Command::new("node")
        .arg("sign.mjs")
        .args(["--payment-required", payment_required, "--key", key])
        .current_dir(&project)
        .output()
        .context("running sign.mjs")?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("sign.mjs: {}", String::from_utf8_lossy(&output.stderr)))?;
    report["payment_signature"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("sign.mjs refused: {}", report["error"]))
}

/// The official npm facilitator (`@x402/core` + `@x402/evm`) serving on loopback.
#[derive(Debug)]
pub struct NodeFacilitator {
    child: std::process::Child,
    /// Its base URL.
    pub url: String,
}

impl NodeFacilitator {
    /// Starts it over `rpc_url`, settling with `key`.
    pub fn spawn(rpc_url: &str, key: &str) -> Result<Self> {
        use std::io::BufRead as _;
        let project = crate::paths::x402_interop();
        ensure_packages(&project)?;
        let mut child = Command::new("node")
            .arg("facilitator.mjs")
            .args(["--rpc", rpc_url, "--key", key, "--port", "0"])
            .current_dir(&project)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .context("starting facilitator.mjs")?;
        let stdout = child.stdout.take().context("facilitator stdout")?;
        let mut line = String::new();
        std::io::BufReader::new(stdout).read_line(&mut line)?;
        let ready: serde_json::Value = match serde_json::from_str(&line) {
            Ok(ready) => ready,
            Err(_) => {
                let _ = child.kill();
                bail!("facilitator.mjs did not start: {line:?}");
            }
        };
        let url = ready["listening"]
            .as_str()
            .context("no listening URL")?
            .to_owned();
        Ok(Self { child, url })
    }
}

impl Drop for NodeFacilitator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
