//! The local chain: anvil from npm on 127.0.0.1 with chain id 8453, loaded with the committed
//! state (`testdata/devnet/state.json.gz`): Circle's FiatTokenV2_2 at Base's USDC address,
//! Multicall3, WETH9, Uniswap V2 and V3, Aerodrome, Chainlink-style feeds and an Aave V3 market,
//! with funded test accounts. `build` regenerates that state with the Node builder.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

pub use test_devnet::paid::{DevnetInfo, pay_locally, spawn_fresh};
pub use test_devnet::{Addresses, Anvil, AnvilOptions, Devnet, RegistryOverride, free_port};

use crate::{node, paths};

/// The analytics server's devnet configuration: local facilitator, and chain `base` read from
/// the devnet with the registry overridden by the devnet's tokens and contracts.
pub fn server_config(info: &DevnetInfo, listen: &str) -> Result<String> {
    let mut config = docs_config(info, listen);
    config.push_str(&format!(
        "\n[chains.base]\nrpc_urls = [\"{}\"]\n",
        info.rpc_url
    ));
    let RegistryOverride { tokens, contracts } = Addresses::committed()?.server_override();
    config.push_str("\n[chains.base.tokens]\n");
    for (symbol, address) in tokens {
        config.push_str(&format!("{symbol} = \"{}\"\n", address.to_checksum(None)));
    }
    for (group, entries) in contracts {
        config.push_str(&format!("\n[chains.base.contracts.{group}]\n"));
        for (name, address) in entries {
            config.push_str(&format!("{name} = \"{}\"\n", address.to_checksum(None)));
        }
    }
    Ok(config)
}

/// The document server's devnet configuration: payment through the local facilitator.
pub fn docs_config(info: &DevnetInfo, listen: &str) -> String {
    format!(
        "# Written by `cargo xtask`: everything points at the local devnet.\n\
         listen = \"{listen}\"\n\n\
         [payment]\npay_to = \"{pay_to}\"\nchain_id = {chain_id}\nasset = \"{usdc}\"\n\n\
         [facilitator]\nmode = \"local\"\nrpc_url = \"{rpc}\"\nprivate_key = \"{key}\"\nmulticall3 = \"{multicall3}\"\n",
        pay_to = info.pay_to,
        chain_id = info.chain_id,
        usdc = info.usdc,
        rpc = info.rpc_url,
        key = info.facilitator_private_key,
        multicall3 = info.multicall3,
    )
}

/// `cargo xtask devnet build [--out-dir DIR]`: rebuilds the state from the npm packages on a
/// fresh anvil with a fixed clock (deterministic: same addresses every time).
pub fn build(out_dir: &Path) -> Result<()> {
    let builder = paths::devnet_builder();
    node::ensure_packages(&builder)?;
    std::fs::create_dir_all(out_dir)?;
    let out_dir = out_dir.canonicalize()?;
    let output = Command::new("node")
        .arg("build.mjs")
        .arg("--out-dir")
        .arg(&out_dir)
        .current_dir(&builder)
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running build.mjs")?;
    if !output.status.success() {
        bail!(
            "build.mjs failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stdout)
        );
    }
    println!("devnet state written to {}", out_dir.display());
    Ok(())
}

/// Rebuilds into a scratch directory and compares its `addresses.json` with the committed one.
pub fn check_drift() -> Result<()> {
    let scratch = paths::workspace_root().join("target/devnet-rebuild");
    let _ = std::fs::remove_dir_all(&scratch);
    build(&scratch)?;
    let committed = std::fs::read(test_devnet::devnet_dir().join("addresses.json"))?;
    let rebuilt = std::fs::read(scratch.join("addresses.json"))?;
    if committed != rebuilt {
        bail!(
            "a rebuild gives another addresses.json than the committed one; compare {} with testdata/devnet/addresses.json and commit the rebuild if the change is intended",
            scratch.join("addresses.json").display()
        );
    }
    let same_state = std::fs::read(scratch.join("state.json.gz"))?
        == std::fs::read(test_devnet::devnet_dir().join("state.json.gz"))?;
    println!(
        "rebuild matches addresses.json; state.json.gz {}",
        if same_state {
            "identical too"
        } else {
            "differs in bytes"
        }
    );
    Ok(())
}

fn pid_file() -> PathBuf {
    paths::devnet_out().join("anvil.pid")
}

/// `cargo xtask devnet start`: a detached anvil on `port` loaded with the committed state, and
/// `target/devnet/{devnet.json, analytics.toml, docs.toml}`.
pub fn start(port: u16) -> Result<()> {
    let out = paths::devnet_out();
    std::fs::create_dir_all(&out)?;
    if running_pid().is_some() {
        bail!(
            "a devnet is already running (target/devnet/anvil.pid); `cargo xtask devnet stop` first"
        );
    }
    node::ensure_packages(&paths::devnet_builder())?;
    let addresses = Addresses::committed()?;
    let state = out.join("state.json");
    test_devnet::devnet::write_state_json(&state)?;
    let anvil = Anvil::spawn(AnvilOptions {
        port: Some(port),
        load_state: Some(state),
        timestamp: Some(addresses.chain.load_timestamp),
        log: Some(out.join("anvil.log")),
    })?;
    let info = DevnetInfo::new(&addresses, &anvil.rpc_url);
    std::fs::write(
        out.join("devnet.json"),
        serde_json::to_string_pretty(&info)?,
    )?;
    std::fs::write(
        out.join("analytics.toml"),
        server_config(&info, "127.0.0.1:8401")?,
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
