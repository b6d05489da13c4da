//! `cargo xtask record-rpc`: runs the `/dex/quote` work against the committed devnet through
//! a recording proxy and writes every JSON-RPC call with its answer to
//! `testdata/rpc-recordings/dex_quote_<scenario>.json`. The analytics snapshot tests replay
//! those files with wiremock, so they need no node; rerun this after a change to the calls
//! the handler sends (the replay fails on any call it has not recorded).

use std::time::Duration;

use analytics_server::chains::Chains;
use analytics_server::requests::DexQuoteRequest;
use anyhow::{Context, Result};
use serde_json::{Value, json};
use test_devnet::{RpcProxy, RpcRecording};

use crate::devnet;

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// File name part: `dex_quote_<name>.json`.
    pub name: &'static str,
    /// What it shows.
    pub description: &'static str,
    /// The request body.
    pub body: Value,
}

/// The recorded requests, with the devnet's token addresses.
pub fn scenarios(addresses: &test_devnet::Addresses) -> Result<Vec<Scenario>> {
    let token = |symbol: &str| {
        addresses
            .token(symbol)
            .map(|a| a.to_checksum(None))
            .with_context(|| format!("token {symbol} in addresses.json"))
    };
    Ok(vec![
        Scenario {
            name: "weth_usdc",
            description: "1.5 WETH to USDC: four Uniswap V3 tiers, Uniswap V2 and Aerodrome volatile quoted directly; no priced two-hop route (the only intermediate, USDbC, has no devnet pool)",
            body: json!({"chain": "base", "token_in": token("WETH")?, "token_out": token("USDC")?,
                "amount_in": "1.5", "slippage_bps": 50}),
        },
        Scenario {
            name: "wbtc_usdc",
            description: "0.25 WBTC to USDC: the direct V3 pool and two-hop routes through WETH (V2, V3 and Aerodrome legs), three round trips",
            body: json!({"chain": "base", "token_in": token("WBTC")?, "token_out": token("USDC")?,
                "amount_in": "0.25", "slippage_bps": 100}),
        },
        Scenario {
            name: "link_dai_no_route",
            description: "10 LINK to DAI: no direct pool and no WETH/DAI or LINK/USDC pool, so no route; the answer is the list of failures",
            body: json!({"chain": "base", "token_in": token("LINK")?, "token_out": token("DAI")?,
                "amount_in": "10"}),
        },
        Scenario {
            name: "usdc_too_precise",
            description: "0.0000001 USDC (seven decimal places for a six-decimal token): refused with 400 after the discovery round trip",
            body: json!({"chain": "base", "token_in": token("USDC")?, "token_out": token("WETH")?,
                "amount_in": "0.0000001"}),
        },
    ])
}

/// Records every scenario into `testdata/rpc-recordings/`.
pub async fn record_rpc() -> Result<()> {
    let (chain, info) = tokio::task::spawn_blocking(devnet::spawn_fresh).await??;
    let proxy = RpcProxy::start(&info.rpc_url, Duration::ZERO).await?;
    let config = devnet::analytics_config(&info, &proxy.url)?;
    let chains = Chains::from_config(&config.chains)?;
    let (tokens, contracts) = devnet::base_overrides()?;
    for scenario in scenarios(&chain.addresses)? {
        proxy.take_calls();
        let request: DexQuoteRequest = serde_json::from_value(scenario.body.clone())?;
        let outcome = analytics_server::dex_quote::dex_quote(&chains, &request).await;
        let http_requests = proxy.http_requests();
        let calls = proxy.take_calls();
        let summary = match &outcome {
            Ok(answer) => format!(
                "block {}, {} quotes, {} failures, {} round trips",
                answer.block_number,
                answer.quotes.len(),
                answer.failures.len(),
                answer.rpc_round_trips
            ),
            Err(error) => format!("{error}"),
        };
        let recording = RpcRecording {
            description: scenario.description.to_owned(),
            generated_by: "cargo xtask record-rpc (xtask/src/record.rs) against the committed devnet (testdata/devnet/state.json.gz)".to_owned(),
            request: scenario.body,
            chain: "base".to_owned(),
            tokens: tokens.clone(),
            contracts: contracts.clone(),
            http_requests,
            calls,
        };
        let path = test_devnet::recordings_dir().join(format!("dex_quote_{}.json", scenario.name));
        recording.save(&path)?;
        println!(
            "{}: {} calls in {} HTTP requests ({summary})",
            path.display(),
            recording.calls.len(),
            http_requests
        );
    }
    drop(chain);
    Ok(())
}
