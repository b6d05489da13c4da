//! `/yield/normalize`'s fee of a Balancer V2 pool (issue 37): the directory project
//! `balancer-v2` (DefiLlama yield-server `src/adaptors/balancer-v2`, pools keyed by pool id)
//! names a pool of the configured list, whose fee is its `getSwapFeePercentage` at the block,
//! read through the kind's adapter. The pools are the Vault and factories of
//! `@balancer-labs/v2-deployments` 3.2.0 put on the test's own devnet by
//! `testdata/devnet/builder/balancer-devnet.mjs`.

#![allow(missing_docs)]

use alloy::primitives::{B256, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall as _;
use chain_read::dex::balancer::{BalancerPoolEntry, BalancerPoolType, pool_address};
use chain_read::{Chain, ChainClient, ChainOverride, ClientOptions, DexId, PinnedReader, Registry};
use oracle_sources::defillama::YieldPool;
use test_devnet::Devnet;
use test_devnet::balancer::BalancerDevnet;
use test_devnet::bindings::IBalancerWeightedPool;
use yield_read::{FeeNote, fee_only_dex, protocol_kind, read_chain};

#[tokio::test]
async fn devnet_a_balancer_rows_fee_is_the_pools_swap_fee_at_the_block() {
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

    // No measured position gas, so no pool type; the fee is read all the same.
    assert_eq!(protocol_kind("balancer-v2"), None);
    let dex = fee_only_dex("balancer-v2").expect("a fee-read project");
    assert_eq!(dex, DexId::BalancerV2);
    for entry in &listed {
        let pool = pool_address(entry.id);
        // The adaptor's key: the lowercase pool id, and the tokens as the subgraph lists them.
        let row = YieldPool {
            chain: "Base".to_owned(),
            project: "balancer-v2".to_owned(),
            symbol: "BPT".to_owned(),
            pool: format!("{:#x}", entry.id),
            underlying_tokens: Some(entry.tokens.iter().map(|t| format!("{t:#x}")).collect()),
            ..YieldPool::default()
        };
        let reader = PinnedReader::for_chain(client.clone(), chain);
        let facts = read_chain(chain, &reader, &row, Some(dex)).await;
        assert_eq!(facts.pool, Some(pool), "{facts:?}");
        let block = facts.block.expect("a block");
        let fee = {
            let data = devnet
                .provider
                .call(
                    TransactionRequest::default().to(pool).input(
                        IBalancerWeightedPool::getSwapFeePercentageCall {}
                            .abi_encode()
                            .into(),
                    ),
                )
                .block(block.into())
                .await
                .expect("getSwapFeePercentage");
            IBalancerWeightedPool::getSwapFeePercentageCall::abi_decode_returns(&data)
                .expect("decode")
        };
        let ppm = u32::try_from(fee / U256::from(1_000_000_000_000u64)).expect("ppm");
        assert!(ppm > 0);
        assert_eq!(facts.fee_ppm, Some(ppm), "{facts:?}");
        assert!(
            matches!(
                facts.fee_note,
                Some(FeeNote::AdapterFee {
                    what: "getSwapFeePercentage",
                    pool: read,
                    ..
                }) if read == pool
            ),
            "{:?}",
            facts.fee_note
        );
    }
    // An id the list does not hold is no pool of the row.
    let row = YieldPool {
        chain: "Base".to_owned(),
        project: "balancer-v2".to_owned(),
        pool: format!("{:#x}", B256::repeat_byte(0x42)),
        ..YieldPool::default()
    };
    let reader = PinnedReader::for_chain(client.clone(), chain);
    let facts = read_chain(chain, &reader, &row, Some(dex)).await;
    assert_eq!(facts.pool, None);
    assert_eq!(facts.fee_note, Some(FeeNote::NoPoolWithId));
}
