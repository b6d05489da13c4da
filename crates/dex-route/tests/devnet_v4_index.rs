//! Uniswap V4 pools found from the PoolManager's `Initialize` events on the devnet: two pools
//! opened after the committed state, whose shapes no registry list holds (a hookless pool at
//! fee 1234 / tick spacing 7 against WETH, and a pool of the devnet's dynamic-fee hook at tick
//! spacing 30 against native ether), are found by the chain's index, read a few blocks per
//! `/dex/quote` read beside the lens call (each read still one round trip), and then quoted
//! to the wei as v4-periphery's V4Quoter answers at the read's block, both ways, the lens's
//! report equal to the batches'.

#![allow(missing_docs)]

use alloy::primitives::{B256, U256};
use alloy::providers::Provider as _;
use chain_read::Chain;
use chain_read::bindings::IV4Quoter;
use chain_read::dex::PoolKey;
use chain_read::dex::v4_index::V4IndexConfig;
use dex_route::quote::{QuoteReport, ReadPath, report};
use dex_route::{Leg, v4_pool_found_by_event};

mod common;

use common::v4_pools::open_two_pools;
use common::{Setup, lens_equals_batches, quote_request};

fn leg_of(report: &QuoteReport, id: B256) -> Option<&Leg> {
    report
        .outcome
        .routes
        .iter()
        .map(|route| &route.legs[0])
        .find(|leg| matches!(leg.pool.key, PoolKey::V4 { id: found, .. } if found == id))
}

#[tokio::test]
async fn devnet_pools_found_from_initialize_events_are_quoted_equal_to_v4_quoter() {
    let mut setup = Setup::load();
    let provider = setup.devnet.provider.clone();
    // The index reads from the first block after the committed state, three blocks a read.
    let start = setup.a().chain.final_block.number + 1;
    setup.registry = setup.registry.clone().with_v4_index(
        Chain::Base,
        Some(V4IndexConfig {
            max_blocks_per_refresh: 3,
            ..V4IndexConfig::from_block(start)
        }),
    );

    let opened = open_two_pools(&setup).await;
    let head = provider.get_block_number().await.expect("head");
    let chain = setup.chain();
    let index = chain.v4_index().expect("configured");
    let (request, what) = quote_request(&setup, ("WETH", "USDC", "1.5"), false);
    let before = report(chain, &setup.reader(), &request)
        .await
        .expect("quote");
    for (name, id, _) in &opened {
        assert!(
            leg_of(&before, *id).is_none(),
            "{name}: not listed anywhere yet"
        );
    }

    // Reads until the index has read every block: each one round trip through the lens.
    let mut reads = 1;
    while index.status().read_to < Some(head) {
        let read = report(chain, &setup.reader(), &request)
            .await
            .expect("quote");
        assert_eq!(read.read_path, ReadPath::Lens, "{what}");
        assert_eq!(read.outcome.round_trips, 1, "{what}: the range rides along");
        reads += 1;
        assert!(
            reads < 20,
            "the index reaches the head: {:?}",
            index.status()
        );
    }
    let blocks = head + 1 - start;
    assert!(
        reads > blocks.div_ceil(3),
        "{blocks} blocks, three a read, after a first read that learnt the head: {reads}"
    );
    assert_eq!(index.status().pools, 2, "{:?}", index.status());

    let quoter = setup.contract("uniswap_v4", "v4_quoter");
    let ether = U256::from(10u64).pow(U256::from(18u8));
    for (symbols, amount, zero_for_one) in [
        (
            ("WETH", "USDC", "1.5"),
            U256::from(15u8) * ether / U256::from(10u8),
            true,
        ),
        (
            ("USDC", "WETH", "4000"),
            U256::from(4_000_000_000u64),
            false,
        ),
    ] {
        let (request, what) = quote_request(&setup, symbols, false);
        let found = lens_equals_batches(&setup, &request, &what).await;
        let block = found.outcome.block.number;
        for (name, id, key) in &opened {
            let leg = leg_of(&found, *id).unwrap_or_else(|| panic!("{what}: {name} is quoted"));
            assert!(v4_pool_found_by_event(chain, &leg.pool), "{name}");
            let expected = setup
                .call_at(
                    quoter,
                    &IV4Quoter::quoteExactInputSingleCall {
                        params: IV4Quoter::QuoteExactSingleParams {
                            poolKey: key.clone(),
                            zeroForOne: zero_for_one,
                            exactAmount: amount.to::<u128>(),
                            hookData: Default::default(),
                        },
                    },
                    block,
                )
                .await;
            assert_eq!(
                leg.amount_out, expected.amountOut,
                "{what}: {name} to the wei"
            );
            assert!(expected.amountOut > U256::ZERO, "{name}: a real quote");
        }
        // The pools the registry's shapes reach are not named as found by events.
        assert!(
            found
                .outcome
                .routes
                .iter()
                .map(|route| &route.legs[0])
                .filter(|leg| !opened.iter().any(|(_, id, _)| {
                    matches!(leg.pool.key, PoolKey::V4 { id: found, .. } if found == *id)
                }))
                .all(|leg| !v4_pool_found_by_event(chain, &leg.pool)),
            "{what}"
        );
    }
}
