//! `/yield/normalize`'s work against the committed devnet through a loopback proxy and the
//! off-chain stand-in (DefiLlama yields and coins): the latency of a whole answer for the
//! Uniswap V3 WETH/USDC 0.05 % pool with 100 ms added to every off-chain request and 0 or
//! 50 ms to every RPC request. The directory's `/pools` comes first (the pool must be
//! resolved); the history, the current prices, the price path and the two chain round trips
//! then run side by side, so the answer takes about two foreign delays, not five (asserted:
//! under 400 ms at 50 ms RPC).
//!
//! Run with `cargo xtask bench` (or `cargo bench -p analytics-server --bench yield_normalize`);
//! needs the npm-installed anvil.

#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use analytics_server::chains::Chains;
use analytics_server::config::ChainEndpoint;
use analytics_server::requests::{Chain, YieldNormalizeRequest};
use analytics_server::yield_normalize::{YieldConfig, yield_normalize};
use criterion::{Criterion, criterion_group, criterion_main};
use oracle_sources::{Sources, SourcesConfig};
use test_devnet::standin::{Fault, Source, StandIn, defillama_pool_uuid};
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
    for (key, path) in Source::ALL.map(|s| s.config_key()) {
        let url = format!("{}{path}", standin.base_url());
        match key {
            "defillama_yields_url" => config.defillama_yields_url = url,
            "defillama_coins_url" => config.defillama_coins_url = url,
            _ => {}
        }
    }
    // Every call measured reaches the sources: nothing is served from the cache.
    config.cache_ttl_seconds = 0;
    let sources = Sources::new(&config).expect("sources");
    let registry = addresses.server_override();
    let chains = Chains::from_config(&BTreeMap::from([(
        Chain::Base,
        ChainEndpoint::at(&proxy.url, registry.tokens, registry.contracts),
    )]))
    .expect("chains");
    let pool = addresses
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("pool");
    let request: YieldNormalizeRequest = serde_json::from_value(serde_json::json!({
        "chain": "base",
        "protocol": "uniswap-v3",
        "pool": defillama_pool_uuid(&format!("{:#x}", pool.address)),
    }))
    .expect("request");
    let yield_config = YieldConfig::default();

    let answer = runtime
        .block_on(yield_normalize(&chains, &sources, &yield_config, &request))
        .expect("answer");
    assert!(answer.gas.period_cost_usd.is_some(), "{:?}", answer.gas);
    println!(
        "figure: rpc_requests/yield_normalize_weth_usdc_500 = {} (eth_gasPrice beside the first multicall, then the pool's fee and the L1 fee)",
        proxy.http_requests()
    );

    standin.set_fault(Some(Fault::Delay(HTTP_DELAY)));
    let mut group = c.benchmark_group("yield_normalize");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for rpc_ms in [0u64, 50] {
        proxy.set_delay(Duration::from_millis(rpc_ms));
        let started = Instant::now();
        runtime
            .block_on(yield_normalize(&chains, &sources, &yield_config, &request))
            .expect("answer");
        let elapsed = started.elapsed();
        println!(
            "figure: latency/yield_normalize_weth_usdc_500 rpc_{rpc_ms}ms http_100ms = {} ms",
            elapsed.as_millis()
        );
        if rpc_ms == 50 {
            assert!(elapsed < Duration::from_millis(400), "{elapsed:?}");
        }
        group.bench_function(format!("weth_usdc_500/rpc_{rpc_ms}ms_http_100ms"), |b| {
            b.to_async(&runtime).iter(|| async {
                yield_normalize(&chains, &sources, &yield_config, &request)
                    .await
                    .expect("answer")
            })
        });
    }
    group.finish();
    drop(standin);
    drop(proxy);
    drop(devnet);
}

criterion_group!(benches, bench);
criterion_main!(benches);
