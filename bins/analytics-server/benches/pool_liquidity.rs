//! `/pool/liquidity`'s work against the committed devnet through a loopback proxy: the
//! sequential JSON-RPC round trips of each request, through the read lens and, with the proxy
//! answering state overrides as a node without them does, through the ordinary batches
//! (asserted: through the lens two for a concentrated-liquidity or Uniswap V4 pool including
//! the tick walk and every quote, one for a V2 or Solidly pool; by batches the refused lens
//! plus three, four for a Uniswap V4 pool (StateView's words, then the ticks they mark), two
//! for a V2 or Solidly pool), and the latency of a whole read both ways with no added delay
//! and with 50 ms added to every RPC request. The foreign sources point at a closed loopback port (refused at
//! once): their read runs beside the chain reads and is not what is measured here.
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench pool_liquidity`);
//! needs the npm-installed anvil. The requests are those of the committed recordings.

#![allow(missing_docs)]

mod common;

use std::time::Duration;

use analytics_server::pool_liquidity::pool_liquidity;
use analytics_server::requests::PoolLiquidityRequest;
use common::{INJECTED, chains, counted, recorded_request};
use criterion::{Criterion, criterion_group, criterion_main};
use oracle_sources::{Sources, SourcesConfig};
use test_devnet::{Devnet, RpcProxy, RpcRecording};

/// Each request with its round trips through the lens and by the ordinary batches (the
/// refused lens call included).
/// `v4_hooked_by_id` is a PoolId alone: its key's `eth_getLogs` rides with the first request.
const SCENARIOS: [(&str, u32, u32); 6] = [
    ("weth_usdc_500", 2, 4),
    ("weth_usdc_deepest_tier", 2, 4),
    ("v2_weth_usdc", 1, 3),
    ("v4_eth_usdc_500", 2, 5),
    ("v4_hooked_by_id", 2, 5),
    ("v4_weth_usdc_deepest", 2, 5),
];

fn request(name: &str) -> (PoolLiquidityRequest, RpcRecording) {
    recorded_request(&format!("pool_liquidity_{name}"))
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let proxy = runtime
        .block_on(RpcProxy::start(&devnet.anvil.rpc_url, Duration::ZERO))
        .expect("proxy");
    let closed = test_devnet::paid::closed_loopback_url().expect("a free port");
    let sources = Sources::new(&SourcesConfig::all_at(&closed)).expect("sources");
    let scenarios: Vec<_> = SCENARIOS.iter().map(|(name, ..)| request(name)).collect();
    let chains = chains(&proxy, &scenarios[0].1);

    for refuse in [false, true] {
        proxy.set_refuse_state_overrides(refuse);
        let path = if refuse { "batches" } else { "lens" };
        for ((name, lens, batches), (request, _)) in SCENARIOS.iter().zip(&scenarios) {
            let work = pool_liquidity(&chains, &sources, request);
            let (answer, sent) = counted(&runtime, &proxy, work, "pool read");
            let expected = if refuse { *batches } else { *lens };
            assert_eq!(answer.rpc_round_trips, expected, "{name} by {path}");
            assert_eq!(
                u64::from(answer.rpc_round_trips),
                sent,
                "{name}: every request counted"
            );
            println!(
                "figure: round_trips/pool_liquidity_{name}/{path} = {} ({} {}, {} exits)",
                answer.rpc_round_trips,
                answer.dex,
                answer.pool_type,
                answer.exit_impact.len()
            );
        }
    }

    let mut group = c.benchmark_group("pool_liquidity");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for (delay, label) in [(Duration::ZERO, "0ms"), (INJECTED, "50ms")] {
        proxy.set_delay(delay);
        for refuse in [false, true] {
            proxy.set_refuse_state_overrides(refuse);
            let path = if refuse { "batches" } else { "lens" };
            for ((name, ..), (request, _)) in SCENARIOS.iter().zip(&scenarios) {
                group.bench_function(format!("{name}_{path}_rpc_{label}"), |b| {
                    b.to_async(&runtime).iter(|| async {
                        pool_liquidity(&chains, &sources, request)
                            .await
                            .expect("pool read")
                    })
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
