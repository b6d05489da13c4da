//! `/lending/health`'s work against the committed devnet through a loopback proxy: the
//! JSON-RPC round trips of each recorded request (asserted to be three, and printed), and the
//! latency of a whole answer with no added delay and with 50 ms added to every RPC request.
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench lending_health`);
//! needs the npm-installed anvil. The requests are those of the committed recordings.

#![allow(missing_docs)]

mod common;

use std::time::Duration;

use analytics_server::lending_health::lending_health;
use analytics_server::requests::LendingHealthRequest;
use common::{INJECTED, chains, counted, recorded_request};
use criterion::{Criterion, criterion_group, criterion_main};
use test_devnet::{Devnet, RpcProxy, RpcRecording};

/// Every recorded wallet; the latency is measured on the first two.
const WALLETS: [&str; 6] = [
    "multi_asset",
    "near_liquidation",
    "stable_and_variable",
    "emode",
    "collateral_cannot_liquidate",
    "no_position",
];

fn request(name: &str) -> (LendingHealthRequest, RpcRecording) {
    recorded_request(&format!("lending_health_{name}"))
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let proxy = runtime
        .block_on(RpcProxy::start(&devnet.anvil.rpc_url, Duration::ZERO))
        .expect("proxy");
    let requests: Vec<(&str, LendingHealthRequest, RpcRecording)> = WALLETS
        .iter()
        .map(|name| {
            let (request, recording) = request(name);
            (*name, request, recording)
        })
        .collect();
    let chains = chains(&proxy, &requests[0].2);

    for (name, request, _) in &requests {
        let (answer, sent) = counted(&runtime, &proxy, lending_health(&chains, request), "answer");
        assert_eq!(answer.rpc_round_trips, 3, "{name}");
        assert_eq!(
            u64::from(answer.rpc_round_trips),
            sent,
            "{name}: every request counted"
        );
        assert!(answer.protocol_account_data.computed_values_match, "{name}");
        println!(
            "figure: lending_round_trips/{name} = {} ({} positions)",
            answer.rpc_round_trips,
            answer.positions.len(),
        );
    }

    let mut group = c.benchmark_group("lending_health");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for (delay, label) in [(Duration::ZERO, "0ms"), (INJECTED, "50ms")] {
        proxy.set_delay(delay);
        for (name, request, _) in requests.iter().take(2) {
            group.bench_function(format!("{name}/rpc_{label}"), |b| {
                b.to_async(&runtime)
                    .iter(|| async { lending_health(&chains, request).await.expect("answer") })
            });
        }
    }
    group.finish();
    drop(proxy);
    drop(devnet);
}

criterion_group!(benches, bench);
criterion_main!(benches);
