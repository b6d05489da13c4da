//! `/yield/normalize`'s fee of a Slipstream pool read through its kind's adapter (issue 37): the
//! directory project `aerodrome-slipstream` maps to `aerodrome_slipstream`, whose pool (the
//! devnet's Slipstream interface over a Uniswap V3 pool, `testdata/devnet/slipstream`; checked
//! against Slipstream's interface, not its bytecode) is found through its CL factory and whose fee
//! is the pool's own `fee()` at the block.

#![allow(missing_docs)]

use alloy::primitives::Address;
use chain_read::{Chain, ChainClient, ChainOverride, ClientOptions, DexId, PinnedReader, Registry};
use oracle_sources::defillama::YieldPool;
use test_devnet::Devnet;
use yield_read::{FeeNote, protocol_kind, read_chain};

#[tokio::test]
async fn devnet_a_slipstream_rows_fee_is_the_pools_own_read_through_the_adapter() {
    let devnet = Devnet::load().expect("the devnet (anvil installed)");
    let raw: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(test_devnet::devnet_dir().join("addresses.json"))
            .expect("addresses.json"),
    )
    .expect("JSON");
    let address = |v: &serde_json::Value| {
        v.as_str()
            .expect("address")
            .parse::<Address>()
            .expect("address")
    };
    let v3 = raw["pools"]["uniswap_v3"]
        .as_array()
        .expect("pools")
        .iter()
        .find(|p| p["name"] == "WETH/USDC/100")
        .expect("the 100 ppm WETH/USDC pool")
        .clone();
    let deployment = test_devnet::slipstream::deploy(
        &devnet.provider,
        devnet.addresses.deployer.address,
        address(&raw["contracts"]["uniswap_v3"]["quoter_v2"]),
        &[address(&v3["address"])],
    )
    .await
    .expect("a Slipstream deployment");
    let wrapper = deployment.pools[0].1;

    let devnet_override = devnet.addresses.chain_override();
    let mut contracts = devnet_override.contracts;
    contracts.insert(
        "aerodrome_slipstream".to_owned(),
        [
            ("factory".to_owned(), deployment.factory),
            ("quoter_v2".to_owned(), deployment.quoter_v2),
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
    let reader = PinnedReader::for_chain(client, chain);

    let (_, dex) = protocol_kind("aerodrome-slipstream").expect("a mapped project");
    assert_eq!(dex, DexId::AerodromeSlipstream);
    let row = YieldPool {
        chain: "Base".to_owned(),
        project: "aerodrome-slipstream".to_owned(),
        symbol: "WETH-USDC".to_owned(),
        pool: format!("{wrapper:#x}"),
        underlying_tokens: Some(vec![
            v3["token0_address"].as_str().expect("token").to_owned(),
            v3["token1_address"].as_str().expect("token").to_owned(),
        ]),
        ..YieldPool::default()
    };
    let facts = read_chain(chain, &reader, &row, Some(dex)).await;
    assert_eq!(facts.pool, Some(wrapper), "{facts:?}");
    // The wrapped V3 pool's fee, which the interface's `fee()` answers.
    assert_eq!(facts.fee_ppm, Some(100), "{facts:?}");
    assert!(
        matches!(
            facts.fee_note,
            Some(FeeNote::AdapterFee {
                what: "fee()",
                pool,
                ..
            }) if pool == wrapper
        ),
        "{:?}",
        facts.fee_note
    );
}
