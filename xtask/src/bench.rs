//! `cargo xtask bench`: the criterion benchmarks on the devnet, then one table of the figures
//! `docs/benchmarks.md` records.
//!
//! - `analytics-server/benches/dex_quote.rs`: JSON-RPC round trips per `/dex/quote` request
//!   (asserted: one through the quote lens; the refused lens and the batches when the proxy
//!   refuses state overrides) and the latency of a whole quote both ways with 0 and 50 ms
//!   added to every RPC request by a loopback proxy in front of the devnet's anvil;
//! - `analytics-server/benches/lending_health.rs`: JSON-RPC round trips per `/lending/health`
//!   request (asserted to be three) and the latency of a whole answer with 0 and 50 ms added to
//!   every RPC request;
//! - `analytics-server/benches/mcp.rs`: the unpaid HTTP 402 of `/dex/quote` beside the same
//!   request as an unpaid MCP `tools/call`, and `tools/list`, in process;
//! - `dex-math/benches/v3_swap.rs`: the V3 swap simulator on a devnet pool, side by side with
//!   the `uniswap-v3-sdk` crate, both first checked against QuoterV2.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{node, paths};

/// The benchmarks and what to read back: (package, bench target, criterion group, ids).
const BENCHES: [(&str, &str, &str, &[&str]); 8] = [
    (
        "analytics-server",
        "dex_quote",
        "dex_quote",
        &[
            "weth_usdc_lens_rpc_0ms",
            "wbtc_usdc_lens_rpc_0ms",
            "weth_usdc_batches_rpc_0ms",
            "wbtc_usdc_batches_rpc_0ms",
            "weth_usdc_lens_rpc_50ms",
            "wbtc_usdc_lens_rpc_50ms",
            "weth_usdc_batches_rpc_50ms",
            "wbtc_usdc_batches_rpc_50ms",
        ],
    ),
    (
        "analytics-server",
        "lending_health",
        "lending_health",
        &[
            "multi_asset_rpc_0ms",
            "near_liquidation_rpc_0ms",
            "multi_asset_rpc_50ms",
            "near_liquidation_rpc_50ms",
        ],
    ),
    (
        "analytics-server",
        "pool_liquidity",
        "pool_liquidity",
        &[
            "weth_usdc_500_rpc_0ms",
            "weth_usdc_deepest_tier_rpc_0ms",
            "v2_weth_usdc_rpc_0ms",
            "weth_usdc_500_rpc_50ms",
            "weth_usdc_deepest_tier_rpc_50ms",
            "v2_weth_usdc_rpc_50ms",
        ],
    ),
    (
        "analytics-server",
        "oracle_crosscheck",
        "oracle_crosscheck",
        &["eth_rpc_50ms_http_100ms"],
    ),
    (
        "analytics-server",
        "mev_risk",
        "mev_risk",
        &[
            "weth_usdc_rpc_0ms",
            "weth_usdc_history_rpc_0ms",
            "v2_no_history_rpc_0ms",
            "weth_usdc_rpc_50ms",
            "weth_usdc_history_rpc_50ms",
            "v2_no_history_rpc_50ms",
            "aerodrome_volatile_rpc_50ms",
        ],
    ),
    (
        "analytics-server",
        "yield_normalize",
        "yield_normalize",
        &[
            "weth_usdc_500_rpc_0ms_http_100ms",
            "weth_usdc_500_rpc_50ms_http_100ms",
        ],
    ),
    (
        "analytics-server",
        "mcp",
        "mcp",
        &[
            "http_402_dex_quote",
            "mcp_tools_call_unpaid_dex_quote",
            "mcp_tools_list",
        ],
    ),
    (
        "dex-math",
        "v3_swap",
        "v3_swap",
        &[
            "dex_math_in_range",
            "uniswap_v3_sdk_in_range",
            "dex_math_three_ticks",
            "uniswap_v3_sdk_three_ticks",
        ],
    ),
];

/// The document reports: (package, example, arguments after the test-data folder's sub-path).
/// Each reads `../shared/test-data/<folder>` and prints markdown tables; ours and the peers
/// (pdftotext, the tesseract CLI, zxing-cpp) are run side by side in the same report.
/// `{data}` is that folder, `{zxing_python}` a Python with PyPI's zxing-cpp (made by
/// [`zxing_cpp_python`]); the fourth field lists cargo features of the package.
const DOCUMENT_REPORTS: [(&str, &str, &[&str], &[&str]); 7] = [
    ("pdf-extract-core", "robustness", &["--render"], &[]),
    // The OCR path of the header benchmark: every ZUGFeRD page rendered and recognised first.
    (
        "docs-server",
        "zugferd_ocr_pages",
        &["{data}/zugferd", "target/zugferd-ocr"],
        &[],
    ),
    (
        "pdf-extract-core",
        "zugferd_accuracy",
        &["{data}/zugferd", "--ocr-images", "target/zugferd-ocr"],
        &[],
    ),
    ("ocr-core", "reading_order_linn", &["{data}"], &[]),
    (
        "pdf-extract-core",
        "tables_accuracy",
        &["{data}/tables"],
        &[],
    ),
    ("ocr-core", "ocr_quality", &["20", "{data}"], &[]),
    // What the routes run (both engines), with zxing-cpp from PyPI in the same report.
    (
        "ocr-core",
        "codes_blackbox",
        &[
            "--engine",
            "both",
            "--data",
            "{data}/barcodes",
            "--python",
            "{zxing_python}",
        ],
        &["zxing-cpp"],
    ),
];

/// The PyPI release of zxing-cpp the barcode report compares with.
const ZXING_CPP_PYPI: &str = "zxing-cpp==3.1.1";

/// A Python with PyPI's zxing-cpp, Pillow and NumPy in a virtual environment under `target/`
/// (made on first use; needs python3-venv).
fn zxing_cpp_python(root: &Path) -> Result<std::path::PathBuf> {
    let bin = crate::pyenv::ensure(
        root,
        "bench-venv",
        &[ZXING_CPP_PYPI, "pillow", "numpy"],
        |bin| crate::pyenv::python_runs(bin, "import zxingcpp, PIL, numpy"),
    )?;
    Ok(bin.join("python"))
}

/// `cargo xtask bench [chain|documents|load|all]` (`seconds` per wrk run of `load`).
pub fn bench_suite(suite: &str, seconds: u32) -> Result<()> {
    match suite {
        "chain" => bench(),
        "documents" => bench_documents(),
        "load" => crate::load::bench_load(seconds),
        "all" => {
            bench()?;
            bench_documents()?;
            crate::load::bench_load(seconds)
        }
        other => bail!("unknown benchmark suite {other:?}: chain, documents, load or all"),
    }
}

/// The document benchmarks: criterion on text extraction, then the accuracy and speed reports
/// over the third-party corpora of `../shared/test-data` when that folder exists.
pub fn bench_documents() -> Result<()> {
    crate::apt::ensure(crate::apt::DOCUMENT_STACK)?;
    crate::apt::ensure(crate::apt::BENCH_PEERS)?;
    let root = paths::workspace_root();
    let cargo = || {
        let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        command.current_dir(&root).env("OMP_THREAD_LIMIT", "1");
        command
    };
    println!("==> cargo bench -p pdf-extract-core --bench text");
    crate::run(cargo().args(["bench", "-p", "pdf-extract-core", "--bench", "text"]))?;
    println!("==> cargo bench -p docs-server --bench isolation");
    crate::run(cargo().args(["bench", "-p", "docs-server", "--bench", "isolation"]))?;
    println!("==> cargo bench -p ocr-core --features zxing-cpp --bench pipeline");
    crate::run(cargo().args([
        "bench",
        "-p",
        "ocr-core",
        "--features",
        "zxing-cpp",
        "--bench",
        "pipeline",
    ]))?;
    let data = root.join("../shared/test-data");
    if !data.is_dir() {
        println!(
            "{} is missing: the corpus reports are skipped",
            data.display()
        );
        return Ok(());
    }
    let data = data.canonicalize()?;
    let zxing_python = zxing_cpp_python(&root)?;
    for (package, example, args, features) in DOCUMENT_REPORTS {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                a.replace("{data}", &data.display().to_string())
                    .replace("{zxing_python}", &zxing_python.display().to_string())
            })
            .collect();
        let features: Vec<&str> = features
            .iter()
            .flat_map(|feature| ["--features", feature])
            .collect();
        println!(
            "==> cargo run --release -p {package} {} --example {example} -- {}",
            features.join(" "),
            args.join(" ")
        );
        crate::run(
            cargo()
                .args(["run", "--release", "-p", package])
                .args(&features)
                .args(["--example", example, "--"])
                .args(&args),
        )?;
    }
    Ok(())
}

/// Runs every chain benchmark and prints the table.
pub fn bench() -> Result<()> {
    node::ensure_packages(&paths::devnet_builder())?;
    let root = paths::workspace_root();
    let mut figures = Vec::new();
    for (package, target, _, _) in BENCHES {
        println!("==> cargo bench -p {package} --bench {target}");
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["bench", "-p", package, "--bench", target])
            .current_dir(&root)
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("running the {target} benchmark"))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        print!("{stdout}");
        if !output.status.success() {
            bail!("the {target} benchmark failed ({})", output.status);
        }
        figures.extend(
            stdout
                .lines()
                .filter(|line| line.starts_with("figure: ") || line.starts_with("v3_swap "))
                .map(str::to_owned),
        );
    }

    println!("\n| Benchmark | Mean | 95 % interval |\n|---|---|---|");
    for (_, _, group, ids) in BENCHES {
        for id in ids {
            let path = root.join(format!("target/criterion/{group}/{id}/new/estimates.json"));
            let (mean, low, high) = mean_of(&path)?;
            println!(
                "| `{group}/{id}` | {} | {} – {} |",
                human(mean),
                human(low),
                human(high)
            );
        }
    }
    println!();
    for figure in figures {
        println!("{figure}");
    }
    Ok(())
}

/// Criterion's mean and its confidence interval, in nanoseconds.
fn mean_of(path: &Path) -> Result<(f64, f64, f64)> {
    let estimates: Value = serde_json::from_str(
        &std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?,
    )?;
    let mean = &estimates["mean"];
    let number = |value: &Value| value.as_f64().context("estimate is not a number");
    Ok((
        number(&mean["point_estimate"])?,
        number(&mean["confidence_interval"]["lower_bound"])?,
        number(&mean["confidence_interval"]["upper_bound"])?,
    ))
}

fn human(nanoseconds: f64) -> String {
    if nanoseconds >= 1e6 {
        format!("{:.1} ms", nanoseconds / 1e6)
    } else if nanoseconds >= 1e3 {
        format!("{:.2} µs", nanoseconds / 1e3)
    } else {
        format!("{nanoseconds:.0} ns")
    }
}
