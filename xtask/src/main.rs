//! `cargo xtask ci | check-deploy | schemathesis | soak | demo | record-rpc | bench [chain|documents|load|all] | devnet start|stop|status|build|check-drift`.

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
    /// Fails when xtask/Cargo.toml's feature mirror differs from the features the workspace's
    /// test build turns on in the crates it names (as `ci` runs it).
    CheckFeatures,
    /// API conformance of both services with schemathesis (as `ci` runs it, on the debug
    /// build unless `--release`).
    Schemathesis {
        /// Test cases per operation and run.
        #[arg(long, default_value_t = xtask::schemathesis::CI_EXAMPLES)]
        examples: u32,
        /// Run the release executables.
        #[arg(long)]
        release: bool,
    },
    /// Mixed traffic against both release servers, then RSS, fds, temp dir, unpaid answers and
    /// double settlements checked (not in CI).
    Soak {
        /// How long.
        #[arg(long, default_value_t = 30)]
        minutes: u64,
    },
    /// Local chain, both servers, a 402 and real paid calls on the terminal.
    Demo,
    /// Both service images built with podman from deploy/docker's Dockerfiles, on bases made
    /// here from Debian's packages; sizes and build times into target/images/images.json (not
    /// in CI: a release build of each service inside its build stage).
    Images {
        /// Make the two base images again even if present.
        #[arg(long)]
        rebuild_bases: bool,
        /// Then run each image on the devnet with its Kubernetes manifest's security context
        /// (health, readiness, a 402, paid calls by the official client, every process's
        /// credentials, SIGTERM), then two docs containers behind nginx on Redis (one payment
        /// sent ten times) and SIGTERM with a paid request in flight.
        #[arg(long)]
        smoke: bool,
        /// Smoke-run the images already built, without building them again.
        #[arg(long, requires = "smoke")]
        no_build: bool,
    },
    /// Benchmarks: `chain` (criterion on the devnet: round trips, quote latency, V3 simulator),
    /// `documents` (text extraction; accuracy and speed against pdftotext, the tesseract CLI and
    /// zxing-cpp on ../shared/test-data), `load` (wrk on loopback against the release
    /// servers: 402 paths, paid cache hits, one and two replicas behind nginx), or `all`.
    Bench {
        /// chain, documents, load or all.
        #[arg(default_value = "all")]
        suite: String,
        /// Seconds per wrk run (`load`).
        #[arg(long, default_value_t = 10)]
        seconds: u32,
    },
    /// Install the PP-OCR models (from the pinned `rapidocr-onnxruntime` wheel on PyPI,
    /// digests checked) into target/models/pp-ocr (as `ci` does).
    Models,
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
        Task::CheckFeatures => xtask::feature_mirror::check(),
        Task::Demo => tokio::runtime::Runtime::new()?.block_on(xtask::demo::demo()),
        Task::Images {
            rebuild_bases,
            smoke,
            no_build,
        } => {
            if !no_build {
                xtask::images::images(rebuild_bases)?;
            }
            if smoke {
                tokio::runtime::Runtime::new()?.block_on(xtask::images::smoke())?;
            }
            Ok(())
        }
        Task::Schemathesis { examples, release } => xtask::schemathesis::schemathesis(
            if release {
                xtask::harness::Profile::Release
            } else {
                xtask::harness::Profile::Debug
            },
            examples,
        ),
        Task::Soak { minutes } => xtask::soak::soak(minutes),
        Task::Bench { suite, seconds } => xtask::bench::bench_suite(&suite, seconds),
        Task::Models => {
            let dir = xtask::models::ensure_pp_ocr()?;
            println!("PP-OCR models in {}", dir.display());
            Ok(())
        }
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
