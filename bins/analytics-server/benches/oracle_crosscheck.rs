//! `/oracle/crosscheck`'s work against the committed devnet through a loopback proxy and the
//! off-chain stand-in: the sequential JSON-RPC round trips of one ETH cross-check (asserted:
//! at most four, with a Uniswap V4 pool deepest) and the latency of a whole answer with 50 ms added to every RPC request and
//! 100 ms to every off-chain request (asserted: under 300 ms, the sources running beside the
//! chain reads).
//!
//! Every measured answer asks its sources through clients with their budgets unused (a fresh
//! `Sources`, made outside the measured time): the cache is off so that every source is asked,
//! and without the cache a second answer within a second waits for Kraken's published one
//! call per second (oracle-sources' client-side budget), which is what the timed call measured
//! when it followed the counted one on the same clients (1,102 ms: the budget's one-second
//! wait, then the 100 ms request). That wait is printed as a figure of its own.
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench oracle_crosscheck`);
//! needs the npm-installed anvil.

#![allow(missing_docs)]

mod common;

use std::time::{Duration, Instant};

use analytics_server::oracle_crosscheck::{CrosscheckConfig, oracle_crosscheck};
use analytics_server::requests::OracleCrosscheckRequest;
use common::{INJECTED, chains, counted, recorded_request};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use oracle_sources::{Sources, SourcesConfig};
use test_devnet::standin::{Fault, StandIn};
use test_devnet::{Addresses, Devnet, RpcProxy};

/// Added to every off-chain request.
const HTTP_DELAY: Duration = Duration::from_millis(100);

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let addresses = Addresses::committed().expect("addresses");
    let proxy = runtime
        .block_on(RpcProxy::start(&devnet.anvil.rpc_url, Duration::ZERO))
        .expect("proxy");
    let standin = runtime
        .block_on(StandIn::spawn(&devnet.anvil.rpc_url, &addresses))
        .expect("stand-in");
    let mut config = SourcesConfig::all_at(standin.base_url());
    for (key, path) in test_devnet::standin::Source::ALL.map(|s| s.config_key()) {
        let url = format!("{}{path}", standin.base_url());
        match key {
            "coinbase_url" => config.coinbase_url = url,
            "kraken_url" => config.kraken_url = url,
            "binance_url" => config.binance_url = url,
            "pyth_hermes_url" => config.pyth_hermes_url = url,
            "redstone_url" => config.redstone_url = url,
            _ => {}
        }
    }
    // Every call measured reaches the sources: nothing is served from the cache.
    config.cache_ttl_seconds = 0;
    let sources = Sources::new(&config).expect("sources");
    let fresh = || Sources::new(&config).expect("sources");
    let (request, recording) = recorded_request::<OracleCrosscheckRequest>("oracle_crosscheck_eth");
    let chains = chains(&proxy, &recording);
    let crosscheck = CrosscheckConfig {
        feed_descriptions: addresses.feed_descriptions(),
        ..Default::default()
    };

    let work = oracle_crosscheck(&chains, &sources, &crosscheck, &request);
    let (answer, sent) = counted(&runtime, &proxy, work, "crosscheck");
    // Four when a Uniswap V4 pool is the deepest (the devnet's WETH/USDC): its depth walks
    // StateView's words, then the ticks they mark.
    assert!(answer.rpc_round_trips <= 4, "{}", answer.rpc_round_trips);
    assert_eq!(u64::from(answer.rpc_round_trips), sent);
    println!(
        "figure: round_trips/oracle_crosscheck_eth = {} ({} rows)",
        answer.rpc_round_trips,
        answer.sources.len()
    );

    proxy.set_delay(INJECTED);
    standin.set_fault(Some(Fault::Delay(HTTP_DELAY)));
    // Right after the counted call, on the same clients: Kraken's budget is spent.
    let started = Instant::now();
    runtime
        .block_on(oracle_crosscheck(&chains, &sources, &crosscheck, &request))
        .expect("crosscheck");
    println!(
        "figure: latency/oracle_crosscheck_eth rpc_50ms http_100ms, Kraken's budget just spent = {} ms",
        started.elapsed().as_millis()
    );
    let sources = fresh();
    let started = Instant::now();
    runtime
        .block_on(oracle_crosscheck(&chains, &sources, &crosscheck, &request))
        .expect("crosscheck");
    let elapsed = started.elapsed();
    println!(
        "figure: latency/oracle_crosscheck_eth rpc_50ms http_100ms = {} ms",
        elapsed.as_millis()
    );
    assert!(elapsed < Duration::from_millis(300), "{elapsed:?}");

    let mut group = c.benchmark_group("oracle_crosscheck");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("eth/rpc_50ms_http_100ms", |b| {
        b.to_async(&runtime).iter_batched(
            fresh,
            |sources| {
                let (chains, crosscheck, request) = (&chains, &crosscheck, &request);
                async move {
                    oracle_crosscheck(chains, &sources, crosscheck, request)
                        .await
                        .expect("crosscheck")
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
    drop(standin);
    drop(proxy);
    drop(devnet);
}

criterion_group!(benches, bench);
criterion_main!(benches);
