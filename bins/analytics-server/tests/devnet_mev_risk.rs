//! `/mev/risk`'s work on the committed devnet (no payment: the handler itself, on a fresh
//! anvil): the model's unattacked output equals the official quote on every Uniswap V2, V3 and
//! Aerodrome pool (`model_error_bps` = 0), and the history scan of the pools holding the
//! planted sandwiches (testdata/devnet/README.md, "MEV history") finds each exactly once with
//! its attacker, victim and profit. Needs the npm-installed anvil.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::Address;
use analytics_server::chains::Chains;
use analytics_server::config::ChainEndpoint;
use analytics_server::mev_risk::{MevRiskAnswer, mev_risk};
use analytics_server::requests::{Chain, MevRiskRequest};
use serde_json::{Value, json};
use test_devnet::Devnet;

fn chains(devnet: &Devnet) -> Chains {
    let registry = devnet.addresses.server_override();
    let mut endpoints = BTreeMap::new();
    endpoints.insert(
        Chain::Base,
        ChainEndpoint::at(&devnet.anvil.rpc_url, registry.tokens, registry.contracts),
    );
    Chains::from_config(&endpoints).expect("chains")
}

/// A trade size per token that every devnet pool holding it takes.
fn size(devnet: &Devnet, token: Address) -> &'static str {
    let symbol = devnet
        .addresses
        .tokens
        .iter()
        .find(|(_, t)| t.address == token)
        .map(|(s, _)| s.as_str())
        .unwrap_or_default();
    match symbol {
        "WETH" => "0.5",
        "WBTC" => "0.01",
        "LINK" => "20",
        _ => "500",
    }
}

async fn assess(chains: &Chains, body: Value) -> MevRiskAnswer {
    let request: MevRiskRequest = serde_json::from_value(body.clone()).expect("request");
    match mev_risk(chains, &request).await {
        Ok(answer) => answer,
        Err(error) => panic!("{body}: {error:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_model_error_is_zero_on_every_pool_both_ways() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let pools = &devnet.addresses.pools;
    let all: Vec<_> = pools
        .uniswap_v2
        .iter()
        .chain(&pools.uniswap_v3)
        .chain(&pools.aerodrome)
        .collect();
    assert_eq!(all.len(), 22, "every devnet pool");
    for pool in all {
        for (token_in, token_out) in [
            (pool.token0_address, pool.token1_address),
            (pool.token1_address, pool.token0_address),
        ] {
            let body = json!({
                "chain": "base",
                "token_in": token_in.to_checksum(None),
                "token_out": token_out.to_checksum(None),
                "amount_in": size(&devnet, token_in),
                "slippage_bps": 50,
                "route": pool.address.to_checksum(None),
                "scan_history": false,
            });
            let answer = assess(&chains, body).await;
            assert_eq!(answer.pool.address, pool.address.to_checksum(None));
            assert_eq!(
                answer.model_error_bps, 0.0,
                "{}: model {} vs quote {}",
                pool.name, answer.model_amount_out.atomic, answer.quoted_out.atomic
            );
            assert_eq!(answer.model_amount_out, answer.quoted_out, "{}", pool.name);
            assert_eq!(answer.rpc_round_trips, 3);
            // max_loss is exact: quoted − floor(quoted × 9950 / 10000).
            let quoted: u128 = answer.quoted_out.atomic.parse().expect("quoted");
            let min: u128 = answer.amount_out_min.atomic.parse().expect("min");
            let loss: u128 = answer.max_loss.atomic.parse().expect("loss");
            assert_eq!(min, quoted * 9950 / 10000, "{}", pool.name);
            assert_eq!(loss, quoted - min, "{}", pool.name);
            if let Some(ticks) = &answer.attacker.ticks_read {
                assert!(ticks.attack_stays_inside, "{}: {ticks:?}", pool.name);
            }
            assert!(!answer.recent_sandwiches_on_pool.scanned);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_history_finds_each_planted_sandwich_once() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let planted = &devnet.addresses.activity["sandwiches"];
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let usdc = devnet.addresses.token("USDC").expect("USDC");
    for venue in ["uniswap_v3", "uniswap_v2"] {
        let sandwich = &planted[venue];
        let body = json!({
            "chain": "base",
            "token_in": usdc.to_checksum(None),
            "token_out": weth.to_checksum(None),
            "amount_in": "1000",
            "slippage_bps": 100,
            "route": sandwich["pool"],
            "scan_history": true,
        });
        let answer = assess(&chains, body).await;
        let history = &answer.recent_sandwiches_on_pool;
        assert!(history.scanned);
        assert_eq!(
            history.window_blocks,
            Some(answer.block_number + 1).map(|n| n.min(2000))
        );
        assert!(
            history.label.starts_with("pattern matches"),
            "base has no public mempool"
        );
        assert_eq!(history.count, Some(1), "{venue}: {:?}", history.matches);
        let found = &history.matches[0];
        assert_eq!(Some(found.block), sandwich["block"].as_u64());
        assert_eq!(Some(found.attacker.as_str()), sandwich["attacker"].as_str());
        let txs: Vec<&str> = sandwich["txs"]
            .as_array()
            .expect("txs")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(found.front_run.tx, txs[0]);
        assert_eq!(found.victims.len(), 1);
        assert_eq!(found.victims[0].tx, txs[1]);
        assert_eq!(found.back_run.tx, txs[2]);
        assert_eq!(
            Some(found.profit.atomic.as_str()),
            sandwich["attacker_profit"]["amount"].as_str(),
            "{venue}"
        );
        assert_eq!(found.profit_token, usdc.to_checksum(None));
        assert!(history.eth_get_logs_requests.is_some_and(|n| n >= 1));
    }
    // The decoy block (three traders on WETH/USDC/500 through SwapRouter) and the ordinary
    // trading of the other WETH/USDC pools give no match.
    for name in ["WETH/USDC/500", "WETH/USDC/100", "vAMM-WETH/USDC"] {
        let pool = devnet
            .addresses
            .pools
            .uniswap_v3
            .iter()
            .chain(&devnet.addresses.pools.aerodrome)
            .find(|p| p.name == name)
            .expect("pool");
        let body = json!({
            "chain": "base",
            "token_in": usdc.to_checksum(None),
            "token_out": weth.to_checksum(None),
            "amount_in": "1000",
            "route": pool.address.to_checksum(None),
        });
        let answer = assess(&chains, body).await;
        let history = &answer.recent_sandwiches_on_pool;
        assert!(history.scanned, "scan_history defaults to true");
        assert!(history.swaps_scanned.is_some_and(|n| n > 0), "{name}");
        assert_eq!(history.count, Some(0), "{name}: {:?}", history.matches);
    }
}
