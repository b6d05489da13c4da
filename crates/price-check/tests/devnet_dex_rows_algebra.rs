//! `/oracle/crosscheck`'s DEX rows read an Algebra V1 pool through its adapter (issue 37): on the
//! devnet with QuickSwap V3's contracts deployed from `@cryptoalgebra/core` 2.0.0 and
//! `@cryptoalgebra/periphery` 1.0.0 (`testdata/devnet/builder/algebra-v1-devnet.mjs`) and its
//! WETH/USDC pool made the deepest by a wide position, the spot row reads that pool: found by
//! the factory's `poolByPair`, priced from its `globalState`, its fee the state's, its depth a
//! walk over its `tickTable` words; every other pool of the pair is compared beside it.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::Address;
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::{Batch, Chain, ChainClient, ChainOverride, ClientOptions, PinnedReader, Registry};
use price_check::{Asset, Kind, Thresholds, on_chain_rows};
use test_devnet::Devnet;
use test_devnet::bindings::ITestAlgebraCallee;

fn address(value: &serde_json::Value) -> Address {
    value
        .as_str()
        .expect("an address")
        .parse()
        .expect("an address")
}

#[tokio::test]
async fn devnet_the_dex_spot_row_reads_an_algebra_v1_pool_through_its_adapter() {
    let devnet = Devnet::load_without_code_size_limit().expect("the devnet (anvil installed)");
    let deployed =
        test_devnet::node::deploy_algebra_v1(&devnet.anvil.rpc_url).expect("Algebra V1 deployed");
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let usdc = devnet.addresses.token("USDC").expect("USDC");
    let pool = deployed["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .find(|p| {
            let (a, b) = (address(&p["token0"]), address(&p["token1"]));
            (a, b) == (weth, usdc) || (a, b) == (usdc, weth)
        })
        .expect("the WETH/USDC pool");
    let pool_address = address(&pool["address"]);

    // A wide position a hundred times the pool's own near-price liquidity: the deepest pool.
    let near: u128 = pool["positions"][2]["liquidity"]
        .as_str()
        .expect("liquidity")
        .parse()
        .expect("liquidity");
    let mint = ITestAlgebraCallee::mintCall {
        pool: pool_address,
        recipient: devnet.addresses.deployer.address,
        bottomTick: pool["positions"][1]["tick_lower"]
            .as_i64()
            .and_then(|t| i32::try_from(t).ok())
            .and_then(|t| alloy::primitives::aliases::I24::try_from(t).ok())
            .expect("tick"),
        topTick: pool["positions"][1]["tick_upper"]
            .as_i64()
            .and_then(|t| i32::try_from(t).ok())
            .and_then(|t| alloy::primitives::aliases::I24::try_from(t).ok())
            .expect("tick"),
        amount: near * 100,
    };
    let receipt = devnet
        .provider
        .send_transaction(
            TransactionRequest::default()
                .from(devnet.addresses.deployer.address)
                .to(address(&deployed["callee"]))
                .input(mint.abi_encode().into())
                .gas_limit(3_000_000),
        )
        .await
        .expect("sent")
        .get_receipt()
        .await
        .expect("mined");
    assert!(receipt.status(), "the mint");

    let devnet_override = devnet.addresses.chain_override();
    let mut contracts = devnet_override.contracts;
    contracts.insert(
        "quickswap_v3".to_owned(),
        [
            ("factory".to_owned(), address(&deployed["factory"])),
            ("quoter".to_owned(), address(&deployed["quoter"])),
        ]
        .into_iter()
        .collect(),
    );
    let registry = Registry::builtin()
        .with_overrides(
            Chain::Base,
            ChainOverride {
                tokens: devnet_override.tokens,
                contracts,
            },
        )
        .expect("the overrides apply");
    let chain = registry.chain(Chain::Base);
    let client =
        ChainClient::new([&devnet.anvil.rpc_url], ClientOptions::default()).expect("client");

    let reader = PinnedReader::for_chain(client.clone(), chain);
    let answer = on_chain_rows(
        chain,
        &reader,
        Asset::Eth,
        &[Kind::DexSpot],
        &Thresholds::default(),
        &BTreeMap::new(),
    )
    .await
    .expect("the on-chain rows");
    let spot = answer
        .rows
        .iter()
        .find(|row| row.kind == Kind::DexSpot)
        .expect("the spot row");
    let details = &spot.details;
    assert_eq!(details.dex.as_deref(), Some("quickswap_v3"), "{spot:?}");
    assert_eq!(
        details.pool.as_deref(),
        Some(pool_address.to_checksum(None).as_str())
    );

    // The same pool's state read on its own, through chain-read's Algebra V1 calls.
    let mut batch = Batch::new();
    let state = chain_read::dex::algebra::v1_pool_state(&mut batch, pool_address);
    let results = PinnedReader::for_chain(client, chain)
        .execute(batch)
        .await
        .expect("state");
    let state = state.decode(&results).expect("globalState");
    assert_eq!(details.fee_tier_ppm, Some(state.fee));
    assert_eq!(details.tick, Some(state.tick));
    assert!(
        details.depth_usd.is_some(),
        "depth through the tickTable walk: {:?}",
        details.depth_null_reason
    );
    let compared = details.pools_compared.as_ref().expect("pools compared");
    let chosen: Vec<_> = compared.iter().filter(|c| c.chosen).collect();
    assert_eq!(chosen.len(), 1);
    assert_eq!(chosen[0].dex, "quickswap_v3");
    assert_eq!(
        chosen[0].in_range_liquidity.as_deref(),
        Some(state.liquidity.to_string().as_str())
    );
    assert!(
        compared.iter().any(|c| c.dex == "uniswap_v3"),
        "the V3 tiers are compared beside it"
    );
    assert!(spot.price.is_some());
}
