//! `docs-server`: loads the configuration and serves the document routes.

use docs_server::{AppState, DocsConfig, router};

fn main() -> std::process::ExitCode {
    // The same executable reads callers' files in child processes (docs/decisions.md).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(worker) = docs_server::worker::worker_mode(&args) {
        return docs_server::worker::run(worker);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("docs-server: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(server_kit::http::run_server(
        "docs-server",
        "DOCS_",
        DocsConfig::default(),
        |config| &config.common,
        DocsConfig::longest_budget,
        |config| AppState::new(config).map(router),
    ));
    // Whatever is still running (workers die with this process) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    code
}
