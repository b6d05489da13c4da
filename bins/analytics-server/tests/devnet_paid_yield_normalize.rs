//! `/yield/normalize` end to end with the official x402 client on the devnet, DefiLlama served
//! by the stand-in from the devnet's own pools: a Uniswap V3 pool by id and an Aerodrome pool
//! by symbol are paid and settled 0.01 USDC with the fee read from the chain, gas priced and
//! the net APY per stake; the deliberately ambiguous symbol is 422 `ambiguous_pool`, the
//! directory down 502 and a slow node past the budget 504, none settled.

mod common;

use alloy::providers::Provider;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use analytics_server::AnalyticsConfig;
use common::{assert_slow_node_is_504, devnet_paid_call};
use serde_json::{Value, json};
use test_devnet::PaidDevnet;
use test_devnet::bindings::ISolidlyFactory;
use test_devnet::standin::{Fault, Source, StandIn, defillama_pool_uuid};

const PRICE: u64 = 10_000;
const ROUTE: &str = "/yield/normalize";

fn configure(standin: &StandIn) -> impl FnOnce(&mut AnalyticsConfig) + use<> {
    let sources = common::standin_sources(standin);
    move |config| config.sources = sources
}

fn text_number(value: &Value) -> f64 {
    value
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a decimal string: {value}"))
}

fn assert_rebuilt(answer: &Value, fee_ppm: u64, fee_source: &str) {
    let fee = &answer["fee_apr"];
    assert_eq!(fee["fee_ppm"], fee_ppm, "{fee}");
    assert!(
        fee["fee_source"]
            .as_str()
            .is_some_and(|s| s.contains(fee_source)),
        "{fee}"
    );
    // The stand-in computes apyBase as its adaptors do, from the same volume, fee and TVL:
    // the recomputed figure agrees to its 5-decimal rounding.
    let deviation = text_number(&fee["deviation_pct_points"]);
    assert!(deviation.abs() < 1e-4, "{fee}");

    let gas = &answer["gas"];
    assert!(gas["gas_price_wei"].is_string(), "{gas}");
    assert!(gas["block_number"].as_u64().is_some(), "{gas}");
    assert!(text_number(&gas["native_price_usd"]) > 0.0, "{gas}");
    assert!(text_number(&gas["period_cost_usd"]) > 0.0, "{gas}");
    assert!(
        gas["l1_data_fee_wei_per_transaction"].is_string()
            || gas["l1_data_fee_null_reason"].is_string(),
        "{gas}"
    );
    let net = answer["net_apy_after_gas"].as_array().expect("net");
    assert_eq!(net.len(), 4);
    let advertised = text_number(&answer["advertised_apy"]);
    let mut previous = f64::MIN;
    for row in net {
        let net_apy = text_number(&row["advertised_net_pct"]);
        let share = text_number(&row["gas_pct_points_per_year"]);
        assert!((advertised - share - net_apy).abs() < 1e-9, "{row}");
        assert!(net_apy > previous, "larger stakes keep more: {net:?}");
        previous = net_apy;
    }

    let il = &answer["impermanent_loss"];
    let points = il["path_points"].as_u64().expect("points");
    assert!((30..=31).contains(&points), "{il}");
    assert!(
        il["il_at_end_pct"].as_f64().is_some_and(|v| v <= 0.0),
        "{il}"
    );
    assert_eq!(il["scenarios"].as_array().map(Vec::len), Some(7));
    // The devnet keeps about two days of history: fewer than seven daily points.
    assert!(answer["conservative_apy"]["null_reason"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_paid_yield_normalize_settles_and_refusals_do_not() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let standin = StandIn::spawn(&world.info.rpc_url, &world.chain.addresses)
        .await
        .expect("stand-in");
    let pools = &world.chain.addresses.pools;
    let rpc = world.info.rpc_url.clone();

    // Uniswap V3 WETH/USDC 0.05 % by its directory id: fee() from the pool contract.
    let v3 = pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("pool");
    let id = defillama_pool_uuid(&format!("{:#x}", v3.address));
    let call = devnet_paid_call(
        &world,
        &rpc,
        configure(&standin),
        ROUTE,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": id}),
    )
    .await;
    call.assert_settled(PRICE);
    let answer = &call.report["final"]["body"];
    assert_eq!(answer["pool"]["id"], id.as_str());
    assert_eq!(answer["gas"]["pool_type"], "concentrated_liquidity");
    assert_rebuilt(answer, 500, "fee()");
    assert_eq!(
        answer["impermanent_loss"]["ranges"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );

    // Aerodrome's volatile WETH/USDC by symbol (one pool has it): the factory's getFee.
    let call = devnet_paid_call(
        &world,
        &rpc,
        configure(&standin),
        ROUTE,
        json!({"chain": "base", "protocol": "aerodrome-v1", "pool": "WETH-USDC"}),
    )
    .await;
    call.assert_settled(PRICE);
    let answer = &call.report["final"]["body"];
    let aero = pools
        .aerodrome
        .iter()
        .find(|p| p.name == "vAMM-WETH/USDC")
        .expect("pool")
        .address;
    let factory = world.chain.addresses.chain_override().contracts["aerodrome"]["pool_factory"];
    let call_data = ISolidlyFactory::getFeeCall {
        pool: aero,
        _stable: false,
    };
    let raw = world
        .chain
        .provider
        .call(
            TransactionRequest::default()
                .to(factory)
                .input(call_data.abi_encode().into()),
        )
        .await
        .expect("getFee");
    let fee_bps = ISolidlyFactory::getFeeCall::abi_decode_returns(&raw).expect("fee");
    assert_rebuilt(answer, fee_bps.to::<u64>() * 100, "getFee");

    // The deliberately ambiguous symbol: four uniswap-v3 WETH-USDC pools.
    let call = devnet_paid_call(
        &world,
        &rpc,
        configure(&standin),
        ROUTE,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": "WETH-USDC"}),
    )
    .await;
    call.assert_refused_unsettled(422, "ambiguous_pool");
    assert_eq!(
        call.report["final"]["body"]["details"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );

    // The directory down: 502.
    standin.set_source_fault(Source::DefiLlamaYields, Some(Fault::Down));
    let call = devnet_paid_call(
        &world,
        &rpc,
        configure(&standin),
        ROUTE,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": id}),
    )
    .await;
    call.assert_refused_unsettled(502, "counterparty_unreachable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_yield_normalize_past_its_budget_is_504_and_not_settled() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let standin = StandIn::spawn(&world.info.rpc_url, &world.chain.addresses)
        .await
        .expect("stand-in");
    let v3 = world
        .chain
        .addresses
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("pool");
    let id = defillama_pool_uuid(&format!("{:#x}", v3.address));
    assert_slow_node_is_504(
        &world,
        configure(&standin),
        ROUTE,
        json!({"chain": "base", "protocol": "uniswap-v3", "pool": id}),
    )
    .await;
}
