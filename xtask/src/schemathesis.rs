//! `cargo xtask schemathesis`: API conformance of both services against their own
//! `/openapi.json`, with schemathesis from PyPI (pinned, in `target/schemathesis-venv`).
//!
//! Every operation is run unpaid and paid on both servers. Paid runs go through a proxy of this
//! process that pays each 402 with a fresh authorization of the test payer to a stand-in
//! facilitator ([`crate::harness`]), one per server so each server's settlements are counted
//! apart. For the paid analytics run the server reads chain `base` from a local devnet (anvil
//! with the committed contracts and pools, and the off-chain stand-in on its data), so its paid
//! work answers; the other chains have no node and the devnet has no data for wstETH or UNI, so
//! bodies naming those are sent for `base` and ETH (`XTASK_SERVED_CHAINS`/`_ASSETS` in
//! `checks.py`): their documented answer is a 502, uncharged.
//!
//! Checks: schemathesis's own (no 5xx, status codes, content types, headers and bodies as
//! documented, invalid input refused) and `xtask/schemathesis/checks.py` (every 4xx but 402 in
//! the JSON error model with `charged: false`; a receipt only on a 2xx). After the runs, each
//! paid server's successful paid answers (`paid_route_outcomes_total{outcome="paid"}`) must
//! equal its facilitator's settlements, with none settled twice.
//!
//! `/mcp` is left out of those runs (JSON-RPC, checked by the MCP conformance suite), but its
//! DELETE (end a session) has a run of its own per server with every check of schemathesis's
//! own, `positive_data_acceptance` (ST202, "a schema-valid request rejected") among them.

use std::process::Command;
use std::time::Instant;

use anyhow::{Result, bail};

use crate::harness::{self, AnalyticsDevnet, Profile, ServerProcess, Service};
use crate::paths;

/// schemathesis, pinned.
pub const SCHEMATHESIS_PYPI: &str = "schemathesis==4.32.5";

/// Test cases per operation and run: the CI budget (about three minutes on two cores).
pub const CI_EXAMPLES: u32 = 50;

/// schemathesis's checks run on every answer (its `positive_data_acceptance` is left out: an
/// unpaid valid request is answered 402 by design, not 2xx).
const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,\
    response_headers_conformance,response_schema_conformance,negative_data_rejection,\
    refusals_are_uncharged_errors";

/// The header the paid run sends: schemathesis sees the security scheme satisfied, the
/// paying proxy replaces it with a real payment.
const PAY_ME: &str = "PAYMENT-SIGNATURE: pay-through-proxy";

/// Runs schemathesis against both services (`examples` test cases per operation and run).
pub fn schemathesis(profile: Profile, examples: u32) -> Result<()> {
    let root = paths::workspace_root();
    let bin = crate::pyenv::ensure(&root, "schemathesis-venv", &[SCHEMATHESIS_PYPI], |bin| {
        Command::new(bin.join("schemathesis"))
            .arg("--version")
            .output()
            .is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .contains(SCHEMATHESIS_PYPI.trim_start_matches("schemathesis=="))
            })
    })?;
    let bin_dir = harness::build_servers(profile)?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let (facilitator, counts) = harness::spawn_facilitator().await?;
        let (analytics_facilitator, analytics_counts) = harness::spawn_facilitator().await?;
        // URL inputs name hosts this machine cannot reach: refused fast, not after 20 s.
        let docs_extra = "[fetch]\ntimeout_seconds = 2\n";
        let devnet_started = Instant::now();
        let devnet = AnalyticsDevnet::start().await?;
        println!(
            "devnet (anvil + off-chain stand-in) up in {:.1} s",
            devnet_started.elapsed().as_secs_f64()
        );
        let analytics = ServerProcess::start(Service::Analytics, &bin_dir, &facilitator, "")?;
        let paid_analytics =
            ServerProcess::start_analytics_on(&devnet, &bin_dir, &analytics_facilitator, "")?;
        let docs = ServerProcess::start(Service::Docs, &bin_dir, &facilitator, docs_extra)?;
        let (paying_docs, paid_docs) = harness::spawn_paying_proxy(docs.url()).await?;
        let (paying_analytics, paid_analytics_count) =
            harness::spawn_paying_proxy(paid_analytics.url()).await?;
        let runs = [
            ("analytics-server, unpaid", analytics.url(), analytics.url(), false),
            (
                "analytics-server, paid, on the devnet",
                paid_analytics.url(),
                paying_analytics,
                true,
            ),
            ("docs-server, unpaid", docs.url(), docs.url(), false),
            ("docs-server, paid", docs.url(), paying_docs, true),
        ];
        let mut failed = Vec::new();
        for (name, schema_from, base, paying) in runs {
            // What the devnet holds (checks.py sends bodies asking for anything else for these).
            let (served_chains, served_assets) = if name.contains("devnet") {
                ("base", "ETH,BTC,USDC,USDT,DAI,LINK")
            } else {
                ("", "")
            };
            let mut args: Vec<String> = Vec::new();
            if paying {
                args.extend(["-H".to_owned(), PAY_ME.to_owned()]);
            }
            args.extend(
                [
                    "--checks",
                    CHECKS,
                    // `/mcp` speaks JSON-RPC and is checked by the MCP conformance suite
                    // (devnet_mcp); generating from its POST schema trips a Hypothesis internal
                    // error (lambda description, "AST constructor recursion depth mismatch").
                    // Its DELETE has a run of its own below.
                    "--exclude-path",
                    "/mcp",
                ]
                .map(str::to_owned),
            );
            let env = [
                ("XTASK_SERVED_CHAINS", served_chains),
                ("XTASK_SERVED_ASSETS", served_assets),
            ];
            if !run(&bin, &root, name, &schema_from, &base, &env, args, examples).await? {
                failed.push(name.to_owned());
            }
        }
        // DELETE /mcp (end a session) with every check of schemathesis's own, ST202 "a
        // schema-valid request rejected" (`positive_data_acceptance`) among them: the OpenAPI
        // says what a valid DELETE is (the Mcp-Session-Id header), and the route must not
        // refuse one with a 400 (an unknown session is the documented 404). Its answers are
        // the MCP transport's, not the JSON error model, so checks.py's check is left out.
        for (name, server) in [
            ("analytics-server, DELETE /mcp, every check", analytics.url()),
            ("docs-server, DELETE /mcp, every check", docs.url()),
        ] {
            let args = [
                "--include-operation-id",
                "mcp_end_session",
                "--checks",
                "all",
                "--exclude-checks",
                "refusals_are_uncharged_errors",
            ]
            .map(str::to_owned)
            .to_vec();
            if !run(&bin, &root, name, &server, &server, &[], args, examples).await? {
                failed.push(name.to_owned());
            }
        }
        // Settlements run on their own tasks: let the last ones land before counting.
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let client = reqwest::Client::new();
        for (name, server, counts, sent) in [
            ("docs-server", &docs, &counts, &paid_docs),
            (
                "analytics-server on the devnet",
                &paid_analytics,
                &analytics_counts,
                &paid_analytics_count,
            ),
        ] {
            let (verified, settled, doubles) = counts.snapshot();
            let metrics = harness::metrics(&client, &server.url()).await?;
            let served =
                harness::metric_sum(&metrics, "paid_route_outcomes_total", &["outcome=\"paid\""]);
            println!(
                "schemathesis: {name}: the paid run sent {} payments; facilitator: {verified} verified, {settled} settled, {doubles} double settlements; paid answers in /metrics: {served:.0}",
                sent.load(std::sync::atomic::Ordering::Relaxed)
            );
            if settled == 0 {
                failed.push(format!("{name}, paid: nothing was paid and settled"));
            }
            if doubles > 0 {
                failed.push(format!("{name}: {doubles} double settlements"));
            }
            if served != settled as f64 {
                failed.push(format!(
                    "{name}: {served} paid answers but {settled} settlements"
                ));
            }
        }
        for server in [&analytics, &paid_analytics, &docs] {
            let log = server.log();
            if log.contains("panicked") {
                failed.push(format!("{} panicked", server.service.name()));
                eprintln!("{} panicked:\n{log}", server.service.name());
            }
        }
        drop(devnet);
        if !failed.is_empty() {
            bail!("schemathesis failed: {}", failed.join("; "));
        }
        Ok(())
    })
}

/// One schemathesis run of the schema at `schema_from` against `base` with the options every
/// run shares and `args`; whether it passed.
#[allow(clippy::too_many_arguments)]
async fn run(
    bin: &std::path::Path,
    root: &std::path::Path,
    name: &str,
    schema_from: &str,
    base: &str,
    env: &[(&'static str, &'static str)],
    args: Vec<String>,
    examples: u32,
) -> Result<bool> {
    println!("--> schemathesis: {name}");
    let started = Instant::now();
    let report = root
        .join("target/schemathesis-report")
        .join(name.replace([',', ' ', '/'], ""));
    let mut command = Command::new(bin.join("schemathesis"));
    command
        .current_dir(root)
        .env("SCHEMATHESIS_HOOKS", "checks")
        .env("PYTHONPATH", root.join("xtask/schemathesis"))
        .envs(env.iter().copied())
        .arg("--config-file")
        .arg(root.join("xtask/schemathesis/schemathesis.toml"))
        .args(["run", &format!("{schema_from}/openapi.json")])
        .args(["--url", base])
        .args(args)
        .args(["--max-examples", &examples.to_string()])
        .args(["--workers", "2", "--seed", "22", "--no-shrink"])
        .args(["--request-timeout", "60"])
        .args(["--suppress-health-check", "all"])
        .args(["--report", "junit", "--report-dir"])
        .arg(&report);
    let status = tokio::task::spawn_blocking(move || command.status()).await??;
    println!(
        "<-- {name}: {} in {:.0} s",
        if status.success() { "ok" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    Ok(status.success())
}
