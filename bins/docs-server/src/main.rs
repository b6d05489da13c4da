//! `docs-server`: loads the configuration and serves the document routes.

use docs_server::{AppState, DocsConfig, router};

/// Tesseract's OpenMP threads barely help on few cores and fight the pool, which already runs
/// one page per core (research/docs-stack.md §1). The variable must be set before the OpenMP
/// runtime starts, and setting it in-process is unsafe, so the server re-executes itself once
/// with it set.
fn limit_openmp_threads() {
    use std::os::unix::process::CommandExt as _;
    if std::env::var_os("OMP_THREAD_LIMIT").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("OMP_THREAD_LIMIT", "1")
        .exec();
    eprintln!("docs-server: could not re-execute with OMP_THREAD_LIMIT=1 ({error}); continuing");
}

fn main() -> std::process::ExitCode {
    limit_openmp_threads();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("docs-server: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(server_kit::http::run_server(
        "docs-server",
        "DOCS_",
        DocsConfig::default(),
        |config| &config.common,
        |config| AppState::new(config).map(router),
    ))
}
