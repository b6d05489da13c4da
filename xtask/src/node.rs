//! Node.js projects: installing node itself when missing (the tests expect it; the Node
//! scripts and the official x402 client live in [`test_devnet::node`]).

use std::path::Path;
use std::process::Command;

use anyhow::{Result, bail};

pub use test_devnet::node::{ClientReport, NodeFacilitator, official_client, official_sign};

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

/// Makes sure node and npm exist, then installs `project`'s pinned packages unless they are
/// installed from the same lock file ([`test_devnet::node::ensure_packages`]).
pub fn ensure_packages(project: &Path) -> Result<()> {
    ensure_node()?;
    Ok(test_devnet::node::ensure_packages(project)?)
}
