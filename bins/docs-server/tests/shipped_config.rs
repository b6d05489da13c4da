//! The configurations shipped in deploy/ start this server as far as its drain is concerned:
//! `drain_seconds`, where set, covers the longest route budget (`/ocr`) plus the settlement
//! margin (a shorter one makes the server refuse to start; the Kubernetes grace period is
//! checked against it by `cargo xtask check-deploy`).

use std::time::Duration;

use docs_server::DocsConfig;

#[test]
fn shipped_configurations_drain_for_the_ocr_budget_and_the_settlement() {
    let deploy = test_devnet::workspace_root().join("deploy");
    for (file, explicit) in [
        ("k8s/base/docs.toml", Some(145)),
        ("compose/docs.toml", None),
    ] {
        let args = server_kit::config::ServerArgs {
            config: Some(deploy.join(file)),
            listen: None,
            print_config: false,
        };
        let config: DocsConfig =
            server_kit::config::load(&DocsConfig::default(), "DOCS_SHIPPED_CONFIG_TEST_", &args)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(config.common.drain_seconds, explicit, "{file}");
        let drain = config
            .common
            .drain(config.longest_budget())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            drain,
            Duration::from_secs(145),
            "{file}: 85 s + 60 s margin"
        );
    }
}
