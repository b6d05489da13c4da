#![doc = include_str!("../README.md")]

pub mod addresses;
pub mod anvil;
pub mod balancer;
pub mod bindings;
pub mod devnet;
pub mod fixtures;
pub mod nginx;
pub mod node;
pub mod paid;
pub mod redis;
pub mod replica;
pub mod rpc_proxy;
pub mod slipstream;
pub mod standin;

pub use addresses::{Addresses, RegistryOverride, V4Pool};
pub use anvil::{Anvil, AnvilOptions, DevnetError, free_port};
pub use devnet::Devnet;
pub use nginx::Nginx;
pub use paid::{DevnetInfo, PaidCall, PaidDevnet};
pub use redis::RedisServer;
pub use replica::Replica;
pub use rpc_proxy::{RecordedCall, RpcProxy, RpcRecording};
pub use standin::StandIn;

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    // Checkouts of the workspace may share one target directory, and cargo reuses a crate
    // built in another checkout (its paths are workspace-relative), so the compile-time
    // directory can name another checkout. `cargo test` and `cargo run` also set
    // CARGO_MANIFEST_DIR at run time to the package run, inside this checkout.
    if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR").and_then(|dir| {
        PathBuf::from(dir)
            .ancestors()
            .find(|a| a.join("Cargo.lock").is_file() && a.join("testdata/devnet").is_dir())
            .map(PathBuf::from)
    }) {
        return root;
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .map(PathBuf::from)
        .unwrap_or(manifest)
}

/// `testdata/devnet`: the committed state and addresses, and the builder.
pub fn devnet_dir() -> PathBuf {
    workspace_root().join("testdata/devnet")
}

/// `testdata/rpc-recordings`: JSON-RPC recordings replayed by snapshot tests.
pub fn recordings_dir() -> PathBuf {
    workspace_root().join("testdata/rpc-recordings")
}

/// The pinned anvil binary installed from npm into the builder.
pub fn anvil_binary() -> PathBuf {
    devnet_dir().join("builder/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil")
}
