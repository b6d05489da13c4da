//! The local chain: anvil from npm on 127.0.0.1 with chain id 8453, Circle's FiatTokenV2_2 at
//! Base's USDC address, Multicall3 at its canonical address, and funded test accounts (stage 1,
//! the payment rail; the DeFi protocols are the next stage).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

pub use test_devnet::{Anvil, AnvilOptions, free_port};

use crate::{node, paths};

/// What `deploy-base.mjs` wrote: addresses and test keys (test-only, derived from fixed
/// strings).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DevnetInfo {
    /// JSON-RPC URL.
    pub rpc_url: String,
    /// 8453.
    pub chain_id: u64,
    /// USDC (FiatTokenV2_2 proxy).
    pub usdc: String,
    /// Multicall3.
    pub multicall3: String,
    /// Holder of USDC's minter role.
    pub usdc_minter: String,
    /// A payer holding 1,000 USDC.
    pub payer_private_key: String,
    /// Its address.
    pub payer_address: String,
    /// A payer holding nothing.
    pub unfunded_payer_private_key: String,
    /// Its address.
    pub unfunded_payer_address: String,
    /// The services' recipient.
    pub pay_to: String,
    /// The local facilitator's key (holds ETH for gas).
    pub facilitator_private_key: String,
    /// Its address.
    pub facilitator_address: String,
}

/// Starts anvil (installing it first when missing).
pub fn spawn_anvil(options: AnvilOptions) -> Result<Anvil> {
    node::ensure_packages(&paths::devnet_builder())?;
    Ok(Anvil::spawn(options)?)
}

/// Deploys the payment rail on a fresh anvil and returns what was deployed.
pub fn deploy_base(rpc_url: &str, out: &Path) -> Result<DevnetInfo> {
    let builder = paths::devnet_builder();
    node::ensure_packages(&builder)?;
    let output = Command::new("node")
        .arg("deploy-base.mjs")
        .args(["--rpc", rpc_url, "--out"])
        .arg(out)
        .current_dir(&builder)
        .output()
        .context("running deploy-base.mjs")?;
    if !output.status.success() {
        bail!(
            "deploy-base.mjs failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = std::fs::read_to_string(out)?;
    serde_json::from_str(&text).context("reading the devnet description")
}

/// A fresh devnet for one test or the demo: anvil on a free port with the payment rail.
pub fn spawn_fresh(dir: &Path) -> Result<(Anvil, DevnetInfo)> {
    std::fs::create_dir_all(dir)?;
    let anvil = spawn_anvil(AnvilOptions {
        log: Some(dir.join("anvil.log")),
        ..AnvilOptions::default()
    })?;
    let info = deploy_base(&anvil.rpc_url, &dir.join("devnet.json"))?;
    Ok((anvil, info))
}

/// The server configuration for the devnet: local facilitator, chain `base` read from it.
pub fn server_config(info: &DevnetInfo, listen: &str) -> String {
    format!(
        "# Written by `cargo xtask devnet start`: everything points at the local devnet.\n\
         listen = \"{listen}\"\n\n\
         [payment]\npay_to = \"{pay_to}\"\nchain_id = {chain_id}\nasset = \"{usdc}\"\n\n\
         [facilitator]\nmode = \"local\"\nrpc_url = \"{rpc}\"\nprivate_key = \"{key}\"\nmulticall3 = \"{multicall3}\"\n\n\
         [chains.base]\nrpc_url = \"{rpc}\"\n",
        pay_to = info.pay_to,
        chain_id = info.chain_id,
        usdc = info.usdc,
        rpc = info.rpc_url,
        key = info.facilitator_private_key,
        multicall3 = info.multicall3,
    )
}

/// The document server's devnet configuration (no chain section).
pub fn docs_config(info: &DevnetInfo, listen: &str) -> String {
    server_config(info, listen).replace(
        &format!("\n[chains.base]\nrpc_url = \"{}\"\n", info.rpc_url),
        "",
    )
}

fn pid_file() -> PathBuf {
    paths::devnet_out().join("anvil.pid")
}

/// `cargo xtask devnet start`: a detached anvil on `port`, the payment rail, and
/// `target/devnet/{devnet.json, analytics.toml, docs.toml}`.
pub fn start(port: u16) -> Result<()> {
    let out = paths::devnet_out();
    std::fs::create_dir_all(&out)?;
    if running_pid().is_some() {
        bail!(
            "a devnet is already running (target/devnet/anvil.pid); `cargo xtask devnet stop` first"
        );
    }
    let anvil = spawn_anvil(AnvilOptions {
        port: Some(port),
        log: Some(out.join("anvil.log")),
        ..AnvilOptions::default()
    })?;
    let info = match deploy_base(&anvil.rpc_url, &out.join("devnet.json")) {
        Ok(info) => info,
        Err(e) => return Err(e.context("deploying the payment rail")),
    };
    std::fs::write(
        out.join("analytics.toml"),
        server_config(&info, "127.0.0.1:8401"),
    )?;
    std::fs::write(out.join("docs.toml"), docs_config(&info, "127.0.0.1:8402"))?;
    if let Some(pid) = anvil.detach() {
        std::fs::write(pid_file(), pid.to_string())?;
    }
    println!(
        "devnet running at {} (chain id {})",
        info.rpc_url, info.chain_id
    );
    println!("  USDC {}  Multicall3 {}", info.usdc, info.multicall3);
    println!(
        "  payer {} (1000 USDC), pay_to {}",
        info.payer_address, info.pay_to
    );
    println!(
        "  wrote {0}/devnet.json, {0}/analytics.toml, {0}/docs.toml",
        out.display()
    );
    Ok(())
}

fn running_pid() -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(pid_file())
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Path::new(&format!("/proc/{pid}")).exists().then_some(pid)
}

/// `cargo xtask devnet stop`.
pub fn stop() -> Result<()> {
    match running_pid() {
        Some(pid) => {
            crate::run(Command::new("kill").arg(pid.to_string()))?;
            let _ = std::fs::remove_file(pid_file());
            println!("devnet (pid {pid}) stopped");
        }
        None => println!("no devnet running"),
    }
    Ok(())
}

/// `cargo xtask devnet status`.
pub fn status() -> Result<()> {
    match running_pid() {
        Some(pid) => {
            let info = std::fs::read_to_string(paths::devnet_out().join("devnet.json"))?;
            println!("devnet running (pid {pid}):\n{info}");
        }
        None => println!("no devnet running"),
    }
    Ok(())
}
