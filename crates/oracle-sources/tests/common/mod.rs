//! Helpers shared by the integration tests (fixtures and a mock of every provider).

#![allow(dead_code, unreachable_pub)]

use oracle_sources::{Sources, SourcesConfig};
use wiremock::MockServer;

/// A fixture of `testdata/sources/`.
pub fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../testdata/sources/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every provider at the mock server, with a short timeout.
pub fn config(server: &MockServer) -> SourcesConfig {
    SourcesConfig {
        timeout_ms: 1000,
        ..SourcesConfig::all_at(&server.uri())
    }
}

/// A `Sources` on [`config`].
pub fn sources(server: &MockServer) -> Sources {
    Sources::new(&config(server)).expect("valid config")
}

/// Unix seconds now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("expected a value")
        .as_secs()
}
