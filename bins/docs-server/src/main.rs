//! `docs-server`: loads the configuration and serves the document routes.

use docs_server::{AppState, DocsConfig, router};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server_kit::http::run_server(
        "docs-server",
        "DOCS_",
        DocsConfig::default(),
        |config| &config.common,
        |config| AppState::new(config).map(router),
    )
    .await
}
