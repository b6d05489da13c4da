//! `cargo xtask ci | check-deploy | demo | record-rpc | bench [chain|documents|all] | devnet start|stop|status|build|check-drift`.

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Project automation")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// fmt check, clippy -D warnings, every test including the interop tests.
    Ci,
    /// The offline check of deploy/ (kustomize overlays against the Kubernetes schemas,
    /// compose.yaml against the compose schema, hadolint), as `ci` runs it.
    CheckDeploy,
    /// Local chain, both servers, a 402 and real paid calls on the terminal.
    Demo,
    /// Benchmarks: `chain` (criterion on the devnet: round trips, quote latency, V3 simulator),
    /// `documents` (text extraction; accuracy and speed against pdftotext, the tesseract CLI and
    /// zxing-cpp on ../shared/test-data), or `all`.
    Bench {
        /// chain, documents or all.
        #[arg(default_value = "all")]
        suite: String,
    },
    /// Record the JSON-RPC calls of /dex/quote and /lending/health on the devnet into testdata/rpc-recordings/.
    RecordRpc,
    /// The local chain.
    Devnet {
        #[command(subcommand)]
        action: DevnetAction,
    },
    /// Internal: serve the off-chain stand-in for the devnet of `--devnet` until killed
    /// (`devnet start` runs it as a detached process).
    #[command(name = "__standin", hide = true)]
    StandIn {
        /// `target/devnet/devnet.json` of the running devnet.
        #[arg(long)]
        devnet: std::path::PathBuf,
        /// Port on 127.0.0.1.
        #[arg(long)]
        port: u16,
    },
}

#[derive(Subcommand)]
enum DevnetAction {
    /// Start anvil in the background with the payment rail, and the off-chain stand-in
    /// (GeckoTerminal, DefiLlama, CEX tickers, Pyth) on the devnet's data; write target/devnet/.
    Start {
        /// JSON-RPC port on 127.0.0.1.
        #[arg(long, default_value_t = 8545)]
        port: u16,
        /// The stand-in's port on 127.0.0.1.
        #[arg(long, default_value_t = 8403)]
        standin_port: u16,
    },
    /// Rebuild testdata/devnet/{state.json.gz, addresses.json} from the npm packages.
    Build {
        /// Where to write (default: testdata/devnet).
        #[arg(long)]
        out_dir: Option<std::path::PathBuf>,
    },
    /// Rebuild into target/devnet-rebuild and compare addresses.json with the committed one.
    CheckDrift,
    /// Stop the background anvil and the stand-in.
    Stop,
    /// Say whether it runs, and what it holds.
    Status,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Task::Ci => xtask::ci::ci(),
        Task::CheckDeploy => xtask::deploy_check::check(),
        Task::Demo => tokio::runtime::Runtime::new()?.block_on(xtask::demo::demo()),
        Task::Bench { suite } => xtask::bench::bench_suite(&suite),
        Task::RecordRpc => {
            xtask::node::ensure_packages(&xtask::paths::devnet_builder())?;
            xtask::run(std::process::Command::new(env!("CARGO")).args([
                "run",
                "-p",
                "analytics-server",
                "--example",
                "record_rpc",
            ]))
        }
        Task::Devnet { action } => match action {
            DevnetAction::Start { port, standin_port } => xtask::devnet::start(port, standin_port),
            DevnetAction::Build { out_dir } => {
                xtask::devnet::build(&out_dir.unwrap_or_else(test_devnet::devnet_dir))
            }
            DevnetAction::CheckDrift => xtask::devnet::check_drift(),
            DevnetAction::Stop => xtask::devnet::stop(),
            DevnetAction::Status => xtask::devnet::status(),
        },
        Task::StandIn { devnet, port } => xtask::devnet::serve_standin(&devnet, port),
    }
}
