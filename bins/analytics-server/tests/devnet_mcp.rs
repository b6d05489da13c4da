//! `/mcp` on the local chain, driven by the official MCP TypeScript SDK client paying with the
//! official x402 client through the local facilitator, the foreign sources on the devnet's
//! stand-in: the six tools are listed with their schemas, prices and read-only annotations;
//! each tool is paid for exactly its configured price through `_meta` (a replayed payment
//! is served once), and a call whose chain node is down is an error result and never settled.

mod common;

use alloy::primitives::U256;
use analytics_server::AnalyticsConfig;
use serde_json::{Value, json};
use test_devnet::PaidDevnet;
use test_devnet::node::McpSdk;
use test_devnet::standin::StandIn;

/// The configured price of `tool` in USDC's atomic units.
fn price(tool: &str) -> u64 {
    let config = AnalyticsConfig::default();
    let text = config.prices.of(tool).expect("a priced tool");
    let atomic = decimal_units::parse(text, 6).expect("a USDC amount");
    u64::try_from(atomic).expect("small")
}

fn bodies(world: &PaidDevnet) -> Vec<(&'static str, Value)> {
    let a = &world.chain.addresses;
    let token = |symbol: &str| a.token(symbol).expect("token").to_checksum(None);
    let pool = a
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("WETH/USDC/500")
        .address
        .to_checksum(None);
    let borrower = a.aave.borrowers["stable_and_variable"]
        .address
        .to_checksum(None);
    vec![
        (
            "dex_quote",
            json!({"chain": "base", "token_in": token("WETH"), "token_out": token("USDC"), "amount_in": "1.5"}),
        ),
        ("pool_liquidity", json!({"chain": "base", "pool": pool})),
        (
            "yield_normalize",
            json!({"chain": "base", "protocol": "aerodrome-v1", "pool": "WETH-USDC"}),
        ),
        (
            "oracle_crosscheck",
            json!({"chain": "base", "asset": "ETH"}),
        ),
        (
            "lending_health",
            json!({"chain": "base", "protocol": "lending-v3", "wallet": borrower, "scenarios_pct": [-5]}),
        ),
        (
            "mev_risk",
            json!({"chain": "base", "token_in": token("WETH"), "token_out": token("USDC"), "amount_in": "10", "slippage_bps": 100}),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_every_built_tool_is_paid_once_for_its_price() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let standin = StandIn::spawn(&world.info.rpc_url, &world.chain.addresses)
        .await
        .expect("stand-in");
    let base = common::devnet_app(
        &world,
        &world.info.rpc_url,
        common::with_standin(&world, &standin),
    )
    .await
    .expect("serve");
    let mcp = format!("{base}/mcp");

    let listing = world.mcp_tools(&mcp).await.expect("client");
    let tools = listing["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "dex_quote",
            "pool_liquidity",
            "yield_normalize",
            "oracle_crosscheck",
            "lending_health",
            "mev_risk"
        ]
    );
    for tool in tools {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
        assert_eq!(tool["annotations"]["openWorldHint"], true, "{tool}");
        assert!(
            tool["description"]
                .as_str()
                .is_some_and(|d| d.contains("USDC")),
            "{tool}"
        );
    }

    for (index, (tool, body)) in bodies(&world).into_iter().enumerate() {
        // One replay is enough to show the guard on this transport.
        let call = world
            .mcp_paid_call(&mcp, tool, body, index == 0)
            .await
            .expect("client");
        call.assert_mcp_settled(price(tool));
    }
}

/// The same, with the MCP SDK v2 client on the stateless revision 2026-07-28 (no session).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_v2_client_pays_every_tool_on_the_stateless_revision() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let standin = StandIn::spawn(&world.info.rpc_url, &world.chain.addresses)
        .await
        .expect("stand-in");
    let base = common::devnet_app(
        &world,
        &world.info.rpc_url,
        common::with_standin(&world, &standin),
    )
    .await
    .expect("serve");
    let mcp = format!("{base}/mcp");
    let listing = world
        .mcp_tools_with(McpSdk::V2, &mcp)
        .await
        .expect("client");
    assert_eq!(listing["protocol_version"], "2026-07-28", "{listing}");
    assert_eq!(listing["era"], "modern", "{listing}");
    assert_eq!(listing["session_id"], Value::Null, "no session");
    assert_eq!(listing["tools"].as_array().map(Vec::len), Some(6));
    assert_eq!(listing["warnings"], json!([]), "{listing}");
    for (tool, body) in bodies(&world) {
        let call = world
            .mcp_paid_call_with(McpSdk::V2, &mcp, tool, body, false)
            .await
            .expect("client");
        call.assert_mcp_settled(price(tool));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_a_call_whose_node_is_down_is_an_error_and_not_settled() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let closed = test_devnet::paid::closed_loopback_url().expect("a free port");
    let base = common::devnet_app(&world, &closed, |_| {})
        .await
        .expect("serve");
    let (_, body) = bodies(&world).swap_remove(0);
    let call = world
        .mcp_paid_call(&format!("{base}/mcp"), "dex_quote", body, false)
        .await
        .expect("client");
    call.assert_mcp_refused_unsettled("counterparty_unreachable");
    assert_eq!(call.received, U256::ZERO);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_conformance_server_checks_pass_but_the_listed_ones() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = common::devnet_app(&world, &world.info.rpc_url, |_| {})
        .await
        .expect("serve");
    let mcp = format!("{base}/mcp");
    test_devnet::paid::checked_mcp_conformance(&mcp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_conformance_newest_passes_but_the_listed_ones_in_both_eras() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = common::devnet_app(&world, &world.info.rpc_url, |_| {})
        .await
        .expect("serve");
    test_devnet::paid::checked_mcp_conformance_newest(&format!("{base}/mcp")).await;
}

/// x402scan's discovery validator finds nothing to warn about, and its probe of each paid
/// route, filled from the schema's example, gets the route's 402.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_discovery_validator_reports_no_error_and_no_warning() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = common::devnet_app(&world, &world.info.rpc_url, |_| {})
        .await
        .expect("serve");
    test_devnet::paid::checked_discovery_validator(
        &base,
        &[
            "/dex/quote",
            "/lending/health",
            "/mev/risk",
            "/oracle/crosscheck",
            "/pool/liquidity",
            "/yield/normalize",
        ],
    )
    .await;
}
