//! `cargo xtask record-rpc` (which runs `cargo run -p analytics-server --example record_rpc`):
//! runs the `/dex/quote`, `/pool/liquidity`, `/lending/health`, `/oracle/crosscheck` and `/mev/risk` work against the committed devnet through a
//! recording proxy and writes every JSON-RPC call with its answer to
//! `testdata/rpc-recordings/<route>_<scenario>.json`. The analytics snapshot tests replay those
//! files with wiremock, so they need no node; rerun this after a change to the calls a handler
//! sends (the replay fails on any call it has not recorded). An example of the server crate
//! rather than an xtask module, so that no other crate depends on the server.

use std::time::Duration;

use analytics_server::AnalyticsConfig;
use analytics_server::chains::Chains;
use analytics_server::config::ChainEndpoint;
use analytics_server::requests::{
    Chain, DexQuoteRequest, LendingHealthRequest, MevRiskRequest, OracleCrosscheckRequest,
    PoolLiquidityRequest,
};
use serde_json::{Value, json};
use test_devnet::{RpcProxy, RpcRecording};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The route whose work a scenario runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// `/dex/quote`.
    DexQuote,
    /// `/dex/quote` through a node that refuses state overrides (the proxy answers them as
    /// geth without overrides does), so the quote lens falls back to the batches.
    DexQuoteNoStateOverride,
    /// `/lending/health`.
    LendingHealth,
    /// `/pool/liquidity`.
    PoolLiquidity,
    /// `/pool/liquidity` through a node that refuses state overrides, so the read lens falls
    /// back to the batches.
    PoolLiquidityNoStateOverride,
    /// `/oracle/crosscheck`.
    OracleCrosscheck,
    /// `/mev/risk`.
    MevRisk,
}

impl Work {
    /// The operation id, which is also the recording's file name prefix.
    fn operation_id(self) -> &'static str {
        match self {
            Self::DexQuote | Self::DexQuoteNoStateOverride => "dex_quote",
            Self::LendingHealth => "lending_health",
            Self::PoolLiquidity | Self::PoolLiquidityNoStateOverride => "pool_liquidity",
            Self::OracleCrosscheck => "oracle_crosscheck",
            Self::MevRisk => "mev_risk",
        }
    }
}

/// One recorded request.
#[derive(Debug, Clone)]
struct Scenario {
    /// The route.
    work: Work,
    /// File name part: `<operation id>_<name>.json`.
    name: &'static str,
    /// What it shows.
    description: &'static str,
    /// The request body.
    body: Value,
}

impl Scenario {
    /// `testdata/rpc-recordings/<operation id>_<name>.json`.
    fn path(&self) -> std::path::PathBuf {
        test_devnet::recordings_dir().join(format!(
            "{}_{}.json",
            self.work.operation_id(),
            self.name
        ))
    }
}

/// The recorded requests, with the devnet's token addresses.
fn scenarios(addresses: &test_devnet::Addresses) -> Result<Vec<Scenario>> {
    let token = |symbol: &str| {
        addresses
            .token(symbol)
            .map(|a| a.to_checksum(None))
            .ok_or_else(|| format!("token {symbol} in addresses.json"))
    };
    let wallet = |role: &str| {
        addresses
            .aave
            .borrowers
            .get(role)
            .map(|b| b.address.to_checksum(None))
            .ok_or_else(|| format!("Aave borrower {role} in addresses.json"))
    };
    let lending = |name, role: &str, description| -> Result<Scenario> {
        Ok(Scenario {
            work: Work::LendingHealth,
            name,
            description,
            body: json!({"chain": "base", "protocol": "lending-v3", "wallet": wallet(role)?}),
        })
    };
    let pool = |name: &str| {
        let listed = addresses
            .pools
            .uniswap_v2
            .iter()
            .map(|p| ("uniswap_v2", p))
            .chain(addresses.pools.uniswap_v3.iter().map(|p| ("uniswap_v3", p)))
            .chain(addresses.pools.aerodrome.iter().map(|p| ("aerodrome", p)))
            .find(|(dex, p)| format!("{dex}:{}", p.name) == name);
        listed
            .map(|(_, p)| p.address.to_checksum(None))
            .ok_or_else(|| format!("pool {name} in addresses.json"))
    };
    let v4_pool = |name: &str| {
        addresses
            .pools
            .uniswap_v4
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.pool_id.to_string())
            .ok_or_else(|| format!("V4 pool {name} in addresses.json"))
    };
    let liquidity = |name, description, body| Scenario {
        work: Work::PoolLiquidity,
        name,
        description,
        body,
    };
    let mev = |name, description, body| Scenario {
        work: Work::MevRisk,
        name,
        description,
        body,
    };
    let mut near_liquidation = lending(
        "near_liquidation",
        "near_liquidation",
        "WETH collateral against USDC debt at HF 1.04, with scenarios either side of the close-factor thresholds: -1 % (not liquidatable), -4 % and -5 % (50 %), -10 % (100 %), +10 %",
    )?;
    near_liquidation.body["scenarios_pct"] = json!([-1, -4, -5, -10, 10]);
    Ok(vec![
        Scenario {
            work: Work::DexQuote,
            name: "weth_usdc",
            description: "1.5 WETH to USDC: four Uniswap V3 tiers, Uniswap V2 and Aerodrome volatile quoted directly; no priced two-hop route (the only intermediate, USDbC, has no devnet pool)",
            body: json!({"chain": "base", "token_in": token("WETH")?, "token_out": token("USDC")?,
                "amount_in": "1.5", "slippage_bps": 50}),
        },
        Scenario {
            work: Work::DexQuoteNoStateOverride,
            name: "wbtc_usdc_no_state_override",
            description: "0.25 WBTC to USDC through a node that refuses eth_call state overrides: the quote lens is refused (one round trip) and the answer is read by the three ordinary round trips, read_path batches with the node's refusal",
            body: json!({"chain": "base", "token_in": token("WBTC")?, "token_out": token("USDC")?,
                "amount_in": "0.25", "slippage_bps": 100}),
        },
        Scenario {
            work: Work::DexQuote,
            name: "eth_usdc",
            description: "1.5 native ether (the zero address) to USDC: quoted as WETH, on the WETH pools and the Uniswap V4 pools against native ether, with the assumption that says so",
            body: json!({"chain": "base", "token_in": "0x0000000000000000000000000000000000000000", "token_out": token("USDC")?,
                "amount_in": "1.5", "slippage_bps": 50}),
        },
        Scenario {
            work: Work::DexQuote,
            name: "wbtc_usdc",
            description: "0.25 WBTC to USDC: the direct V3 pool and two-hop routes through WETH (V2, V3 and Aerodrome legs), in one round trip (the quote lens)",
            body: json!({"chain": "base", "token_in": token("WBTC")?, "token_out": token("USDC")?,
                "amount_in": "0.25", "slippage_bps": 100}),
        },
        Scenario {
            work: Work::DexQuote,
            name: "link_dai_no_route",
            description: "10 LINK to DAI: no direct pool and no WETH/DAI or LINK/USDC pool, so no route; the answer is the list of failures",
            body: json!({"chain": "base", "token_in": token("LINK")?, "token_out": token("DAI")?,
                "amount_in": "10"}),
        },
        Scenario {
            work: Work::DexQuote,
            name: "usdc_too_precise",
            description: "0.0000001 USDC (seven decimal places for a six-decimal token): refused with 400 after the discovery round trip",
            body: json!({"chain": "base", "token_in": token("USDC")?, "token_out": token("WETH")?,
                "amount_in": "0.0000001"}),
        },
        near_liquidation,
        lending(
            "multi_asset",
            "multi_asset",
            "collateral in WETH, WBTC and LINK, debt in USDC, DAI and WETH (an asset it also supplies); every collateral is covered down to a zero price by the others",
        )?,
        lending(
            "stable_and_variable",
            "stable_and_variable",
            "stable-rate USDC and variable-rate DAI debt against WBTC (stable debt counts on 3.0)",
        )?,
        lending(
            "emode",
            "emode",
            "stablecoin eMode category 1 (LT 95 %): DAI collateral against USDC debt",
        )?,
        lending(
            "collateral_cannot_liquidate",
            "collateral_cannot_liquidate",
            "WETH and LINK collateral against a small USDC debt: no price of either, down to zero, liquidates",
        )?,
        liquidity(
            "weth_usdc_500",
            "the WETH/USDC 0.05 % Uniswap V3 pool by address: exits both ways quoted by QuoterV2, depth by TickLens walk, two round trips (the read lens, then the TickLens words and the quotes)",
            json!({"chain": "base", "pool": pool("uniswap_v3:WETH/USDC/500")?}),
        ),
        liquidity(
            "weth_usdc_deepest_tier",
            "WETH/USDC on uniswap_v3 without a fee tier: the four tiers compared by their balances at their own mid price, the deepest read",
            json!({"chain": "base", "token_a": token("USDC")?, "token_b": token("WETH")?, "dex": "uniswap_v3"}),
        ),
        liquidity(
            "weth_wbtc_3000",
            "WETH/WBTC 0.3 % by address: no USDC side, so WBTC is priced through WETH and the deepest WETH/USDC pool",
            json!({"chain": "base", "pool": pool("uniswap_v3:WETH/WBTC/3000")?}),
        ),
        liquidity(
            "usdc_usdt_100",
            "USDC/USDT 0.01 % by address: the 1M USD exits are more than its ticks hold, so they are unfilled rows with what the ticks read take",
            json!({"chain": "base", "pool": pool("uniswap_v3:USDC/USDT/100")?}),
        ),
        liquidity(
            "v2_weth_usdc",
            "the Uniswap V2 WETH/USDC pair by address: exits from the reserves, depth on the x·y curve, one round trip (the read lens)",
            json!({"chain": "base", "pool": pool("uniswap_v2:WETH/USDC")?}),
        ),
        liquidity(
            "aerodrome_stable",
            "the Aerodrome stable USDC/USDT pool by address: exits from the pool's maths, depth null with its reason",
            json!({"chain": "base", "pool": pool("aerodrome:sAMM-USDC/USDT")?}),
        ),
        liquidity(
            "v4_eth_usdc_500",
            "the native ETH/USDC 0.05 % Uniswap V4 pool by its PoolId with the pair (WETH standing for ether): exits equal to V4Quoter with the price after from the tick maths, depth by a walk over StateView's ticks, no reserves of its own, two round trips (the read lens, then a second lens call: StateView's words and the exits, then the ticks the words mark)",
            json!({"chain": "base", "pool": v4_pool("ETH/USDC/500/10")?, "token_a": token("USDC")?, "token_b": token("WETH")?}),
        ),
        Scenario {
            work: Work::PoolLiquidityNoStateOverride,
            name: "v4_eth_usdc_500_no_state_override",
            description: "the native ETH/USDC 0.05 % Uniswap V4 pool by its PoolId through a node that refuses eth_call state overrides: the read lens is refused (one round trip) and the pool is read by the four ordinary round trips, read_path batches with the node's refusal",
            body: json!({"chain": "base", "pool": v4_pool("ETH/USDC/500/10")?, "token_a": token("USDC")?, "token_b": token("WETH")?}),
        },
        liquidity(
            "v4_hooked",
            "the hooked ETH/USDC Uniswap V4 pool by PoolId (its hook overrides every swap's fee): exits are V4Quoter's amounts with the price after null and why",
            json!({"chain": "base", "pool": v4_pool("ETH/USDC/hooked/60")?, "token_a": token("USDC")?, "token_b": token("WETH")?}),
        ),
        liquidity(
            "v4_hooked_by_id",
            "the hooked ETH/USDC Uniswap V4 pool by its PoolId alone: its PoolKey read from its Initialize event by an eth_getLogs filtered by the PoolId, sent in the same JSON-RPC batch as the first lens call (still two round trips)",
            json!({"chain": "base", "pool": v4_pool("ETH/USDC/hooked/60")?}),
        ),
        liquidity(
            "v4_weth_usdc_deepest",
            "WETH/USDC on uniswap_v4 without a fee tier: every V4 pool of the pair (against WETH and native ether, the dust trap included) compared by its in-range liquidity's value, the deepest read",
            json!({"chain": "base", "token_a": token("USDC")?, "token_b": token("WETH")?, "dex": "uniswap_v4"}),
        ),
        liquidity(
            "not_a_pool",
            "the USDC token's address: it names no factory, so 422 unknown_pool after one round trip",
            json!({"chain": "base", "pool": token("USDC")?}),
        ),
        Scenario {
            work: Work::OracleCrosscheck,
            name: "eth",
            description: "ETH, every kind: the ETH/USD feed with its last two rounds, the four WETH/USDC tiers compared and the deepest read for spot, 30-minute TWAP and ±2 % depth (three round trips); the off-chain sources come from the test's wiremock servers",
            body: json!({"chain": "base", "asset": "ETH"}),
        },
        Scenario {
            work: Work::OracleCrosscheck,
            name: "link",
            description: "LINK, on-chain kinds only: the deliberately deviating LINK/USD feed against the WETH/LINK pools (no LINK/USDC pool, so the DEX rows are null with the reason)",
            body: json!({"chain": "base", "asset": "LINK", "oracles": ["aggregator", "dex_spot", "dex_twap"]}),
        },
        Scenario {
            work: Work::OracleCrosscheck,
            name: "usdt",
            description: "USDT, aggregator and DEX: the deliberately stale USDT/USD feed (age far beyond twice its observed interval) and the USDC/USDT pools",
            body: json!({"chain": "base", "asset": "USDT", "oracles": ["aggregator", "dex_spot", "dex_twap"]}),
        },
        mev(
            "weth_usdc",
            "10 WETH to USDC at 1 %: the best direct quote's pool (Uniswap V3), its ticks, gas and USD in three round trips, then its Swap history by eth_getLogs (no sandwich on it)",
            json!({"chain": "base", "token_in": token("WETH")?, "token_out": token("USDC")?,
                "amount_in": "10", "slippage_bps": 100}),
        ),
        mev(
            "v3_sandwiched_pool",
            "1000 USDC to WETH at 1 % on WETH/USDC/3000 named as route: the history finds the planted V3 sandwich of block 730",
            json!({"chain": "base", "token_in": token("USDC")?, "token_out": token("WETH")?,
                "amount_in": "1000", "slippage_bps": 100, "route": pool("uniswap_v3:WETH/USDC/3000")?}),
        ),
        mev(
            "v2_no_history",
            "2 WETH to USDC at 0.5 % on the Uniswap V2 pair named as route, scan_history false: closed form on the reserves, no logs read",
            json!({"chain": "base", "token_in": token("WETH")?, "token_out": token("USDC")?,
                "amount_in": "2", "slippage_bps": 50, "route": pool("uniswap_v2:WETH/USDC")?,
                "scan_history": false}),
        ),
        mev(
            "aerodrome_volatile",
            "5000 USDC to WETH at 1 % on the Aerodrome volatile pool named as route, scan_history false",
            json!({"chain": "base", "token_in": token("USDC")?, "token_out": token("WETH")?,
                "amount_in": "5000", "slippage_bps": 100, "route": pool("aerodrome:vAMM-WETH/USDC")?,
                "scan_history": false}),
        ),
        mev(
            "route_not_a_pool",
            "route names the USDC token: no factory returns it for the pair, so 422 unknown_pool after two round trips",
            json!({"chain": "base", "token_in": token("WETH")?, "token_out": token("USDC")?,
                "amount_in": "1", "route": token("USDC")?, "scan_history": false}),
        ),
        lending(
            "no_position",
            "no_position",
            "a wallet without any supply or borrow: 200 with empty positions and a sentence",
        )?,
    ])
}

/// Records every scenario into `testdata/rpc-recordings/`.
#[tokio::main]
async fn main() -> Result<()> {
    let (chain, info) = tokio::task::spawn_blocking(test_devnet::paid::spawn_fresh).await??;
    let proxy = RpcProxy::start(&info.rpc_url, Duration::ZERO).await?;
    let registry = chain.addresses.server_override();
    let (tokens, contracts) = (registry.tokens, registry.contracts);
    let mut config = AnalyticsConfig::default();
    config.chains.insert(
        Chain::Base,
        ChainEndpoint::at(&proxy.url, tokens.clone(), contracts.clone()),
    );
    let chains = Chains::from_config(&config.chains)?;
    let crosscheck = analytics_server::oracle_crosscheck::CrosscheckConfig {
        feed_descriptions: chain.addresses.feed_descriptions(),
        ..Default::default()
    };
    // The recordings hold chain calls only: the foreign sources point at a closed port, so
    // the recorded answers carry their volume as null with the reason.
    let sources =
        oracle_sources::Sources::new(&oracle_sources::SourcesConfig::all_at("http://127.0.0.1:9"))?;
    for scenario in scenarios(&chain.addresses)? {
        proxy.take_calls();
        proxy.set_refuse_state_overrides(matches!(
            scenario.work,
            Work::DexQuoteNoStateOverride | Work::PoolLiquidityNoStateOverride
        ));
        let summary = match scenario.work {
            Work::DexQuote | Work::DexQuoteNoStateOverride => {
                let request: DexQuoteRequest = serde_json::from_value(scenario.body.clone())?;
                match analytics_server::dex_quote::dex_quote(&chains, &request).await {
                    Ok(answer) => format!(
                        "block {}, {} quotes, {} failures, {} round trips",
                        answer.block_number,
                        answer.quotes.len(),
                        answer.failures.len(),
                        answer.rpc_round_trips
                    ),
                    Err(error) => format!("{error}"),
                }
            }
            Work::PoolLiquidity | Work::PoolLiquidityNoStateOverride => {
                let request: PoolLiquidityRequest = serde_json::from_value(scenario.body.clone())?;
                match analytics_server::pool_liquidity::pool_liquidity(&chains, &sources, &request)
                    .await
                {
                    Ok(answer) => format!(
                        "block {}, {} {}, {} exits, {} round trips",
                        answer.block_number,
                        answer.dex,
                        answer.pool,
                        answer.exit_impact.len(),
                        answer.rpc_round_trips
                    ),
                    Err(error) => format!("{error}"),
                }
            }
            Work::OracleCrosscheck => {
                let request: OracleCrosscheckRequest =
                    serde_json::from_value(scenario.body.clone())?;
                match analytics_server::oracle_crosscheck::oracle_crosscheck(
                    &chains,
                    &sources,
                    &crosscheck,
                    &request,
                )
                .await
                {
                    Ok(answer) => format!(
                        "block {}, {} rows, median {}, {} round trips",
                        answer.block_number,
                        answer.sources.len(),
                        answer.median,
                        answer.rpc_round_trips
                    ),
                    Err(error) => format!("{error}"),
                }
            }
            Work::MevRisk => {
                let request: MevRiskRequest = serde_json::from_value(scenario.body.clone())?;
                match analytics_server::mev_risk::mev_risk(&chains, &request).await {
                    Ok(answer) => format!(
                        "block {}, {} {}, attack_pays {:?}, {} sandwiches, {} round trips",
                        answer.block_number,
                        answer.pool.dex,
                        answer.pool.address,
                        answer.attack_pays,
                        answer
                            .recent_sandwiches_on_pool
                            .count
                            .map_or("unscanned".to_owned(), |n| n.to_string()),
                        answer.rpc_round_trips
                    ),
                    Err(error) => format!("{error}"),
                }
            }
            Work::LendingHealth => {
                let request: LendingHealthRequest = serde_json::from_value(scenario.body.clone())?;
                match analytics_server::lending_health::lending_health(&chains, &request).await {
                    Ok(answer) => format!(
                        "block {}, {} positions, health factor {}, {} round trips",
                        answer.block_number,
                        answer.positions.len(),
                        answer.health_factor.decimal.as_deref().unwrap_or("max"),
                        answer.rpc_round_trips
                    ),
                    Err(error) => format!("{error}"),
                }
            }
        };
        let http_requests = proxy.http_requests();
        let calls = proxy.take_calls();
        let path = scenario.path();
        let recording = RpcRecording {
            description: scenario.description.to_owned(),
            generated_by: "cargo xtask record-rpc (bins/analytics-server/examples/record_rpc.rs) against the committed devnet (testdata/devnet/state.json.gz)".to_owned(),
            request: scenario.body,
            chain: "base".to_owned(),
            tokens: tokens.clone(),
            contracts: contracts.clone(),
            http_requests,
            calls,
        };
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
