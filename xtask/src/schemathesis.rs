//! `cargo xtask schemathesis`: API conformance of both services against their own
//! `/openapi.json`, with schemathesis from PyPI (pinned, in `target/schemathesis-venv`).
//!
//! Every operation is run unpaid on both servers and paid on the docs server, through a proxy
//! of this process that pays each 402 with a fresh authorization of the test payer to a
//! stand-in facilitator ([`crate::harness`]). The analytics server is run unpaid only: its paid
//! work reads a chain, and these servers have none (their nodes point at a closed port), so a
//! paid request would end in the documented 502 and say nothing about conformance.
//!
//! Checks: schemathesis's own (no 5xx, status codes, content types, headers and bodies as
//! documented, invalid input refused) and `xtask/schemathesis/checks.py` (every 4xx but 402 in
//! the JSON error model with `charged: false`; a receipt only on a 2xx).

use std::process::Command;
use std::time::Instant;

use anyhow::{Result, bail};

use crate::harness::{self, Profile, ServerProcess, Service};
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
        // URL inputs name hosts this machine cannot reach: refused fast, not after 20 s.
        let docs_extra = "[fetch]\ntimeout_seconds = 2\n";
        let analytics = ServerProcess::start(Service::Analytics, &bin_dir, &facilitator, "")?;
        let docs = ServerProcess::start(Service::Docs, &bin_dir, &facilitator, docs_extra)?;
        let (paying, paid) = harness::spawn_paying_proxy(docs.url()).await?;
        let runs = [
            ("analytics-server, unpaid", analytics.url(), analytics.url(), false),
            ("docs-server, unpaid", docs.url(), docs.url(), false),
            ("docs-server, paid", docs.url(), paying, true),
        ];
        let mut failed = Vec::new();
        for (name, schema_from, base, paying) in runs {
            println!("--> schemathesis: {name}");
            let started = Instant::now();
            let report = root.join("target/schemathesis-report").join(name.replace([',', ' '], ""));
            let status = tokio::task::spawn_blocking({
                let bin = bin.clone();
                let root = root.clone();
                move || {
                    Command::new(bin.join("schemathesis"))
                        .current_dir(&root)
                        .env(
                            "SCHEMATHESIS_HOOKS",
                            "checks",
                        )
                        .env("PYTHONPATH", root.join("xtask/schemathesis"))
                        .arg("--config-file")
                        .arg(root.join("xtask/schemathesis/schemathesis.toml"))
                        .args(["run", &format!("{schema_from}/openapi.json")])
                        .args(["--url", &base])
                        .args(if paying { &["-H", PAY_ME][..] } else { &[][..] })
                        .args(["--checks", CHECKS])
                        // `/mcp` speaks JSON-RPC and is checked by the MCP conformance suite
                        // (devnet_mcp); generating from its schema trips a Hypothesis internal
                        // error (lambda description, "AST constructor recursion depth mismatch").
                        .args(["--exclude-path", "/mcp"])
                        .args(["--max-examples", &examples.to_string()])
                        .args(["--workers", "2", "--seed", "22", "--no-shrink"])
                        .args(["--request-timeout", "60"])
                        .args(["--suppress-health-check", "all"])
                        .args(["--report", "junit", "--report-dir"])
                        .arg(&report)
                        .status()
                }
            })
            .await??;
            println!(
                "<-- {name}: {} in {:.0} s",
                if status.success() { "ok" } else { "FAILED" },
                started.elapsed().as_secs_f64()
            );
            if !status.success() {
                failed.push(name);
            }
        }
        let (verified, settled, doubles) = counts.snapshot();
        println!(
            "schemathesis: paid run sent {} payments; facilitator: {verified} verified, {settled} settled, {doubles} double settlements",
            paid.load(std::sync::atomic::Ordering::Relaxed)
        );
        for server in [&analytics, &docs] {
            let log = server.log();
            if log.contains("panicked") {
                failed.push(server.service.name());
                eprintln!("{} panicked:\n{log}", server.service.name());
            }
        }
        if settled == 0 {
            failed.push("docs-server, paid: nothing was paid and settled");
        }
        if doubles > 0 {
            bail!("{doubles} double settlements");
        }
        if !failed.is_empty() {
            bail!("schemathesis failed: {}", failed.join("; "));
        }
        Ok(())
    })
}
