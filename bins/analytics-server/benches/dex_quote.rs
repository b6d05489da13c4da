//! `/dex/quote`'s work against the committed devnet through a loopback proxy: the JSON-RPC
//! round trips of each request (one through the quote lens; the refused lens and the ordinary
//! batches when the proxy answers state overrides as a node without them does; asserted and
//! printed), and the latency of a whole quote both ways with no added delay and with 50 ms
//! added to every RPC request (about what a public endpoint in the same region adds).
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench dex_quote`);
//! needs the npm-installed anvil. The requests are those of the committed recordings.

#![allow(missing_docs)]

mod common;

use std::time::Duration;

use analytics_server::dex_quote::dex_quote;
use analytics_server::requests::DexQuoteRequest;
use common::{INJECTED, chains, counted, recorded_request};
use criterion::{Criterion, criterion_group, criterion_main};
use test_devnet::{Devnet, RpcProxy, RpcRecording};

fn request(name: &str) -> (DexQuoteRequest, RpcRecording) {
    recorded_request(&format!("dex_quote_{name}"))
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let proxy = runtime
        .block_on(RpcProxy::start(&devnet.anvil.rpc_url, Duration::ZERO))
        .expect("proxy");
    let scenarios = [request("weth_usdc"), request("wbtc_usdc")];
    let chains = chains(&proxy, &scenarios[0].1);

    for refuse in [false, true] {
        proxy.set_refuse_state_overrides(refuse);
        let path = if refuse { "batches" } else { "lens" };
        for (name, (request, _)) in ["weth_usdc", "wbtc_usdc"].iter().zip(&scenarios) {
            let (answer, sent) = counted(&runtime, &proxy, dex_quote(&chains, request), "quote");
            let expected = match (refuse, *name) {
                (false, _) => 1,
                // The refused lens, then discovery and quotes (and second legs).
                (true, "weth_usdc") => 3,
                (true, _) => 4,
            };
            assert_eq!(answer.rpc_round_trips, expected, "{name} by {path}");
            assert_eq!(
                u64::from(answer.rpc_round_trips),
                sent,
                "{name}: every request counted"
            );
            println!(
                "figure: round_trips/{name}/{path} = {} ({} quotes, {} failures)",
                answer.rpc_round_trips,
                answer.quotes.len(),
                answer.failures.len()
            );
        }
    }

    let mut group = c.benchmark_group("dex_quote");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for (delay, label) in [(Duration::ZERO, "0ms"), (INJECTED, "50ms")] {
        proxy.set_delay(delay);
        for refuse in [false, true] {
            proxy.set_refuse_state_overrides(refuse);
            let path = if refuse { "batches" } else { "lens" };
            for (name, (request, _)) in ["weth_usdc", "wbtc_usdc"].iter().zip(&scenarios) {
                group.bench_function(format!("{name}_{path}_rpc_{label}"), |b| {
                    b.to_async(&runtime)
                        .iter(|| async { dex_quote(&chains, request).await.expect("quote") })
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
