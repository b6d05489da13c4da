#![doc = include_str!("../README.md")]

pub mod apt;
pub mod bench;
pub mod ci;
pub mod demo;
pub mod deploy_check;
pub mod devnet;
pub mod feature_mirror;
pub mod harness;
pub mod hostile_files;
pub mod images;
pub mod load;
pub mod models;
pub mod node;
pub mod paths;
pub mod pyenv;
pub mod schemathesis;
pub mod soak;
pub mod testapp;

use std::process::Command;

use anyhow::{Result, bail};

/// Runs a command to completion, failing on a non-zero exit.
pub fn run(command: &mut Command) -> Result<()> {
    let status = command.status()?;
    if !status.success() {
        bail!("{command:?} failed with {status}");
    }
    Ok(())
}
