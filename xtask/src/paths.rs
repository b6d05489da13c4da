//! Where things are: the workspace, the four Node projects, and `target/devnet`.

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// The chain builder (anvil, USDC, Multicall3).
pub fn devnet_builder() -> PathBuf {
    workspace_root().join("testdata/devnet/builder")
}

/// The official x402 client and facilitator.
pub fn x402_interop() -> PathBuf {
    workspace_root().join("testdata/x402-interop")
}

/// The newest MCP conformance suite with its pinned Node 22 binary (both from npm).
pub fn mcp_conformance() -> PathBuf {
    workspace_root().join("testdata/mcp-conformance")
}

/// The service-page check (playwright-core driving Debian's Chromium).
pub fn browser_check() -> PathBuf {
    workspace_root().join("testdata/browser")
}

/// Output of `cargo xtask devnet start`.
pub fn devnet_out() -> PathBuf {
    workspace_root().join("target/devnet")
}
