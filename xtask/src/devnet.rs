//! The local chain: anvil from npm on 127.0.0.1 with chain id 8453, loaded with the committed
//! state (`testdata/devnet/state.json.gz`): Circle's FiatTokenV2_2 at Base's USDC address,
//! Multicall3, WETH9, Uniswap V2 and V3, Aerodrome, Chainlink-style feeds and an Aave V3 market,
//! with funded test accounts. `build` regenerates that state with the Node builder. `start`
//! also runs the off-chain stand-in (`test_devnet::standin`) as a detached process: the
//! foreign sources (GeckoTerminal, DefiLlama, CEX tickers, Pyth Hermes) in their published
//! formats with the devnet's data, for tests and the demo only.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

pub use test_devnet::paid::{DevnetInfo, pay_locally, spawn_fresh};
pub use test_devnet::{Addresses, Anvil, AnvilOptions, Devnet, RegistryOverride, free_port};

use crate::{node, paths};

/// The analytics server's devnet configuration: local facilitator, and chain `base` read from
/// the devnet with the registry overridden by the devnet's tokens and contracts.
pub fn server_config(info: &DevnetInfo, listen: &str) -> Result<String> {
    Ok(docs_config(info, listen) + &chain_sections(info)?)
}

/// The analytics server's `[chains.base]` (read from the devnet, registry overridden by its
/// tokens and contracts) and `[crosscheck.feed_descriptions]`, without the payment sections.
pub fn chain_sections(info: &DevnetInfo) -> Result<String> {
    let mut config = String::new();
    config.push_str(&format!(
        "\n[chains.base]\nrpc_urls = [\"{}\"]\n",
        info.rpc_url
    ));
    let addresses = Addresses::committed()?;
    let RegistryOverride { tokens, contracts } = addresses.server_override();
    // Keys are quoted: feed pairs such as `ETH/USD` are not bare TOML keys.
    config.push_str("\n[chains.base.tokens]\n");
    for (symbol, address) in tokens {
        config.push_str(&format!(
            "\"{symbol}\" = \"{}\"\n",
            address.to_checksum(None)
        ));
    }
    for (group, entries) in contracts {
        config.push_str(&format!("\n[chains.base.contracts.{group}]\n"));
        for (name, address) in entries {
            config.push_str(&format!("\"{name}\" = \"{}\"\n", address.to_checksum(None)));
        }
    }
    // The devnet's mock feeds describe themselves by their source file, not their pair.
    config.push_str("\n[crosscheck.feed_descriptions]\n");
    for (pair, description) in addresses.feed_descriptions() {
        config.push_str(&format!("\"{pair}\" = \"{description}\"\n"));
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

fn standin_pid_file() -> PathBuf {
    paths::devnet_out().join("standin.pid")
}

/// `cargo xtask devnet start`: a detached anvil on `port` loaded with the committed state, the
/// off-chain stand-in on `standin_port`, and `target/devnet/{devnet.json, analytics.toml,
/// docs.toml}` (analytics.toml's `[sources]` pointing at the stand-in).
pub fn start(port: u16, standin_port: u16) -> Result<()> {
    let out = paths::devnet_out();
    std::fs::create_dir_all(&out)?;
    if running_pid().is_some() || running_pid_in(&standin_pid_file()).is_some() {
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
        chain_id: None,
        disable_code_size_limit: false,
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
    std::fs::write(
        out.join("docs.toml"),
        docs_config(&info, "127.0.0.1:8402") + &crate::models::docs_ocr_section(),
    )?;
    if let Some(pid) = anvil.detach() {
        std::fs::write(pid_file(), pid.to_string())?;
    }
    let standin_url = start_standin(&out.join("devnet.json"), standin_port).with_context(|| {
        "the off-chain stand-in did not start (anvil keeps running; `cargo xtask devnet stop` stops it)"
    })?;
    let mut analytics = std::fs::read_to_string(out.join("analytics.toml"))?;
    analytics.push_str(&test_devnet::standin::sources_toml(&standin_url));
    std::fs::write(out.join("analytics.toml"), analytics)?;
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
        "  off-chain stand-in (GeckoTerminal, DefiLlama, Coinbase, Kraken, Binance, Pyth; tests and demo only) at {standin_url}"
    );
    println!(
        "  wrote {0}/devnet.json, {0}/analytics.toml (with [sources] on the stand-in), {0}/docs.toml",
        out.display()
    );
    Ok(())
}

/// Runs `xtask __standin` detached (its own process group, so a Ctrl-C in the terminal that
/// started it leaves it running like anvil), records its pid, and waits until it listens:
/// it binds only after reading the devnet, so listening means serving. Returns its base URL.
fn start_standin(devnet_json: &Path, port: u16) -> Result<String> {
    use std::os::unix::process::CommandExt as _;
    let log = std::fs::File::create(paths::devnet_out().join("standin.log"))?;
    let mut child = Command::new(std::env::current_exe().context("the xtask binary")?)
        .arg("__standin")
        .arg("--devnet")
        .arg(devnet_json)
        .args(["--port", &port.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("starting the stand-in")?;
    std::fs::write(standin_pid_file(), child.id().to_string())?;
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if let Some(status) = child.try_wait()? {
            let _ = std::fs::remove_file(standin_pid_file());
            let log = std::fs::read_to_string(paths::devnet_out().join("standin.log"))
                .unwrap_or_default();
            bail!("the stand-in exited with {status} (is port {port} in use?):\n{log}");
        }
        if std::net::TcpStream::connect_timeout(&address, std::time::Duration::from_millis(200))
            .is_ok()
        {
            return Ok(format!("http://{address}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    bail!("the stand-in did not listen on {address} within 60 s (see target/devnet/standin.log)")
}

/// `xtask __standin --devnet target/devnet/devnet.json --port P`: reads the devnet that file
/// describes and serves the stand-in on `port` until the process is killed.
pub fn serve_standin(devnet_json: &Path, port: u16) -> Result<()> {
    let info: DevnetInfo = serde_json::from_str(
        &std::fs::read_to_string(devnet_json)
            .with_context(|| format!("reading {}", devnet_json.display()))?,
    )?;
    let addresses = Addresses::committed()?;
    tokio::runtime::Runtime::new()?.block_on(async {
        let standin = test_devnet::StandIn::spawn_on(&info.rpc_url, &addresses, port).await?;
        let (block, timestamp) = standin.as_of();
        println!(
            "stand-in serving {} (devnet {} read at block {block}, timestamp {timestamp})",
            standin.base_url(),
            info.rpc_url
        );
        std::future::pending::<()>().await;
        Ok(())
    })
}

fn running_pid() -> Option<u32> {
    running_pid_in(&pid_file())
}

fn running_pid_in(file: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(file).ok()?.trim().parse().ok()?;
    Path::new(&format!("/proc/{pid}")).exists().then_some(pid)
}

/// `cargo xtask devnet stop`: anvil and the stand-in.
pub fn stop() -> Result<()> {
    for (what, file) in [("devnet", pid_file()), ("stand-in", standin_pid_file())] {
        match running_pid_in(&file) {
            Some(pid) => {
                crate::run(Command::new("kill").arg(pid.to_string()))?;
                let _ = std::fs::remove_file(&file);
                println!("{what} (pid {pid}) stopped");
            }
            None => println!("no {what} running"),
        }
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
    match running_pid_in(&standin_pid_file()) {
        Some(pid) => {
            let url = std::fs::read_to_string(paths::devnet_out().join("analytics.toml"))
                .ok()
                .and_then(|toml| {
                    toml.lines()
                        .find_map(|line| line.strip_prefix("geckoterminal_url = \""))
                        .and_then(|rest| rest.split("/geckoterminal").next())
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| "(unknown URL)".into());
            println!("off-chain stand-in running (pid {pid}) at {url}");
        }
        None => println!("no off-chain stand-in running"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_devnet_server_config_is_valid_toml_with_every_override() {
        let addresses = Addresses::committed().expect("addresses.json");
        let info = DevnetInfo::new(&addresses, "http://127.0.0.1:1");
        let text = server_config(&info, "127.0.0.1:0").expect("config");
        let parsed: toml::Table = text.parse().expect("valid TOML");
        let chainlink = &parsed["chains"]["base"]["contracts"]["chainlink"];
        assert!(chainlink.get("ETH/USD").is_some(), "{chainlink}");
        assert_eq!(
            parsed["crosscheck"]["feed_descriptions"]["ETH/USD"].as_str(),
            Some(test_devnet::addresses::MOCK_FEED_DESCRIPTION)
        );
        assert!(parsed["chains"]["base"]["tokens"].get("USDC").is_some());
    }
}
