//! `/mev/risk`'s work against the committed devnet through a loopback proxy: the sequential
//! stages of the state reads (asserted: three, the second sending two requests at once, and a
//! fourth for a Uniswap V4 pool) and
//! the HTTP requests sent, the `eth_getLogs` requests of the history scan, and the latency of
//! a whole assessment with no added delay and with 50 ms added to every RPC request, with and
//! without the history scan. The devnet holds 740 blocks, so the 2,000-block window is clipped
//! to blocks 0..=845 there: one `eth_getLogs` request (the scan asks for 2,000 blocks per
//! request, split only when the node refuses).
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench mev_risk`); needs
//! the npm-installed anvil. The requests are those of the committed recordings.

#![allow(missing_docs)]

mod common;

use std::time::Duration;

use analytics_server::mev_risk::mev_risk;
use analytics_server::requests::MevRiskRequest;
use common::{INJECTED, chains, counted, recorded_request};
use criterion::{Criterion, criterion_group, criterion_main};
use test_devnet::{Devnet, RpcProxy, RpcRecording};

/// (recording, HTTP requests without the history scan).
const SCENARIOS: [&str; 3] = ["weth_usdc", "v2_no_history", "aerodrome_volatile"];

fn request(name: &str) -> (MevRiskRequest, RpcRecording) {
    recorded_request(&format!("mev_risk_{name}"))
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let proxy = runtime
        .block_on(RpcProxy::start(&devnet.anvil.rpc_url, Duration::ZERO))
        .expect("proxy");
    let scenarios: Vec<_> = SCENARIOS.iter().map(|name| request(name)).collect();
    let chains = chains(&proxy, &scenarios[0].1);

    for (name, (request, _)) in SCENARIOS.iter().zip(&scenarios) {
        for scan_history in [false, true] {
            let request = MevRiskRequest {
                scan_history,
                ..request.clone()
            };
            let (answer, sent) =
                counted(&runtime, &proxy, mev_risk(&chains, &request), "assessment");
            // A Uniswap V4 pool (the devnet's best WETH/USDC quote since issue 36) takes a
            // fourth stage: StateView's words, then the ticks they mark.
            let stages = if answer.pool.pool_type == "concentrated_liquidity_v4" {
                4
            } else {
                3
            };
            assert_eq!(answer.rpc_round_trips, stages, "{name}");
            let history = &answer.recent_sandwiches_on_pool;
            let logs = u64::from(history.eth_get_logs_requests.unwrap_or(0));
            // State reads: one HTTP request more than stages (the USD reference lookups beside
            // the quotes); history: the logs and one header.
            let state = u64::from(stages) + 1;
            let expected = if scan_history {
                state + logs + 1
            } else {
                state
            };
            if scan_history && stages == 4 {
                // V4 logs name the router, not the trader: the scan also reads the signers of
                // the candidate transactions, a number the answer does not give.
                assert!(sent >= expected, "{name}, history: {sent} < {expected}");
            } else {
                assert_eq!(sent, expected, "{name}, history {scan_history}");
            }
            println!(
                "figure: round_trips/mev_risk_{name}{} = {} stages, {sent} HTTP requests ({} eth_getLogs over {} blocks, {} swaps; {} {}, method {})",
                if scan_history { "_history" } else { "" },
                answer.rpc_round_trips,
                logs,
                history.window_blocks.unwrap_or(0),
                history.swaps_scanned.unwrap_or(0),
                answer.pool.dex,
                answer.pool.pool_type,
                answer.attacker.method,
            );
        }
    }

    let mut group = c.benchmark_group("mev_risk");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for (delay, label) in [(Duration::ZERO, "0ms"), (INJECTED, "50ms")] {
        proxy.set_delay(delay);
        for (name, (request, _)) in SCENARIOS.iter().zip(&scenarios) {
            for scan_history in [false, true] {
                let request = MevRiskRequest {
                    scan_history,
                    ..request.clone()
                };
                let suffix = if scan_history { "_history" } else { "" };
                group.bench_function(format!("{name}{suffix}/rpc_{label}"), |b| {
                    b.to_async(&runtime)
                        .iter(|| async { mev_risk(&chains, &request).await.expect("assessment") })
                });
            }
        }
    }
    group.finish();
    drop(proxy);
    drop(devnet);
}

criterion_group!(benches, bench);
criterion_main!(benches);
