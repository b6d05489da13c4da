//! `/oracle/crosscheck`'s DEX rows read Balancer V2 pools through their adapter (issue 37): on
//! the devnet with the Vault and pools of `@balancer-labs/v2-deployments` 3.2.0
//! (`testdata/devnet/builder/balancer-devnet.mjs`) listed in the registry, each USDC pair's
//! Balancer pool is compared beside the concentrated-liquidity pools by its Vault balances of
//! the pair valued at its own spot price; where it is the deepest, the spot row is its spot
//! price (the port's, on the state read), its fee the pool's swap fee, its depth the curve's,
//! and the TWAP row says Balancer keeps no oracle and reads the deepest pool with one.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::Address;
use chain_read::dex::balancer::{BalancerPoolEntry, BalancerPoolType};
use chain_read::{Chain, ChainClient, ChainOverride, ClientOptions, PinnedReader, Registry};
use price_check::{Asset, Kind, Thresholds, on_chain_rows};
use test_devnet::Devnet;
use test_devnet::balancer::BalancerDevnet;

/// The spot row and the notes of `asset`'s DEX rows on `chain`.
async fn dex_rows(
    chain: &chain_read::ChainInfo,
    client: &ChainClient,
    asset: Asset,
) -> (
    price_check::SourceRow,
    Vec<price_check::SourceRow>,
    Vec<String>,
) {
    let reader = PinnedReader::for_chain(client.clone(), chain);
    let answer = on_chain_rows(
        chain,
        &reader,
        asset,
        &[Kind::DexSpot, Kind::DexTwap],
        &Thresholds::default(),
        &BTreeMap::new(),
    )
    .await
    .expect("the on-chain rows");
    let spot = answer
        .rows
        .iter()
        .find(|row| row.kind == Kind::DexSpot)
        .expect("the spot row")
        .clone();
    (spot, answer.rows, answer.notes)
}

#[tokio::test]
async fn devnet_the_dex_rows_compare_and_read_balancer_pools_through_their_adapter() {
    let devnet = Devnet::load().expect("the devnet (anvil installed)");
    let deployed =
        BalancerDevnet::deploy(&devnet.anvil.rpc_url).expect("Balancer V2 deployed on the devnet");
    let listed: Vec<BalancerPoolEntry> = deployed
        .pools
        .iter()
        .map(|pool| BalancerPoolEntry {
            id: pool.id,
            pool_type: if pool.stable {
                BalancerPoolType::ComposableStable
            } else {
                BalancerPoolType::Weighted
            },
            tokens: pool.tokens.clone(),
        })
        .collect();
    let devnet_override = devnet.addresses.chain_override();
    let mut contracts = devnet_override.contracts;
    contracts.insert("balancer_v2".to_owned(), deployed.contracts());
    let registry = Registry::builtin()
        .with_overrides(
            Chain::Base,
            ChainOverride {
                tokens: devnet_override.tokens,
                contracts,
            },
        )
        .expect("the overrides apply")
        .with_balancer_pools(Chain::Base, listed.clone())
        .expect("the pools apply");
    let chain = registry.chain(Chain::Base);
    let client =
        ChainClient::new([&devnet.anvil.rpc_url], ClientOptions::default()).expect("client");
    let usdc = devnet.addresses.token("USDC").expect("USDC");

    for (asset, symbol) in [
        (Asset::Eth, "WETH"),
        (Asset::Usdt, "USDT"),
        (Asset::Dai, "DAI"),
    ] {
        let token = devnet.addresses.token(symbol).expect("token");
        let (spot, _, _) = dex_rows(chain, &client, asset).await;
        let compared = spot
            .details
            .pools_compared
            .as_ref()
            .unwrap_or_else(|| panic!("{symbol}: pools compared {spot:?}"));
        // Every listed pool holding the pair is compared, with a value.
        let holding: Vec<&BalancerPoolEntry> = listed
            .iter()
            .filter(|e| e.tokens.contains(&token) && e.tokens.contains(&usdc))
            .collect();
        assert!(!holding.is_empty(), "{symbol}: a listed pool of the pair");
        for entry in &holding {
            let label = chain_read::dex::balancer::pool_address(entry.id).to_checksum(None);
            let row = compared
                .iter()
                .find(|c| c.dex == "balancer_v2" && c.pool == label)
                .unwrap_or_else(|| panic!("{symbol}: {label} compared in {compared:?}"));
            assert!(row.in_range_value_usd.is_some(), "{symbol}: {row:?}");
            assert!(row.fee_tier_ppm > 0, "{symbol}: the swap fee");
        }
        // The devnet's Uniswap pools are deeper than its Balancer pools.
        assert_ne!(spot.details.dex.as_deref(), Some("balancer_v2"), "{symbol}");
    }

    // Without the Uniswap DEXes (their contracts moved to an address with no code, so their
    // lookups fail and say so), the WETH/USDC 50/50 pool is the deepest: its spot price is
    // the weighted pool's balance ratio, 3,000,000 USDC / 1,000 WETH.
    let nowhere = Address::repeat_byte(0xde);
    let without_uniswap = registry
        .clone()
        .with_overrides(
            Chain::Base,
            ChainOverride {
                tokens: Default::default(),
                contracts: [
                    (
                        "uniswap_v3".to_owned(),
                        [("factory".to_owned(), nowhere)].into(),
                    ),
                    (
                        "uniswap_v4".to_owned(),
                        [("state_view".to_owned(), nowhere)].into(),
                    ),
                ]
                .into(),
            },
        )
        .expect("the overrides apply");
    let (spot, rows, notes) =
        dex_rows(without_uniswap.chain(Chain::Base), &client, Asset::Eth).await;
    assert_eq!(spot.details.dex.as_deref(), Some("balancer_v2"), "{spot:?}");
    let price = spot.price.as_deref().expect("a spot price");
    assert!(price.starts_with("3000"), "{price}");
    assert_eq!(spot.details.fee_tier_ppm, Some(3_000), "the pool's 0.3 %");
    assert!(
        spot.details.depth_usd.is_some(),
        "the curve's depth: {:?}",
        spot.details.depth_null_reason
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("Balancer V2 pools have no built-in TWAP")),
        "{notes:?}"
    );
    let twap = rows
        .iter()
        .find(|row| row.kind == Kind::DexTwap)
        .expect("the TWAP row");
    assert_ne!(twap.details.dex.as_deref(), Some("balancer_v2"), "{twap:?}");
    assert!(twap.price.is_none(), "{twap:?}");
}
