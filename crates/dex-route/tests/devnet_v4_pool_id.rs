//! `/pool/liquidity` on Uniswap V4 pools named by their PoolId alone, on two pools opened
//! after the committed state whose shapes no registry list holds (fee 1234 / tick spacing 7
//! against WETH; the devnet's dynamic-fee hook at spacing 30 against native ether): the key
//! is read from the pool's `Initialize` event by an `eth_getLogs` that rides with the first
//! lens call (two round trips in all), or found in the chain's index once it has read the
//! event; every exit equals v4-periphery's V4Quoter at the read's block to the wei, the lens's
//! read equals the batches'; a PoolId with no event, or asked with another pair, is refused
//! with the reason.

#![allow(missing_docs)]

use alloy::primitives::{Address, B256};
use chain_read::Chain;
use chain_read::bindings::{IV4Quoter, V4PoolKey};
use chain_read::dex::PoolKey;
use chain_read::dex::v4_index::V4IndexConfig;
use dex_route::RouteError;
use dex_route::liquidity::{
    LiquidityRequest, PoolKeySource, PoolLiquidity, PoolRef, read_pool_liquidity,
};

mod common;

use common::v4_pools::open_two_pools;
use common::{Setup, read_pool_both_ways};

/// Checks every filled exit of `read` against V4Quoter at the read's block; how many.
async fn exits_equal_v4_quoter(
    setup: &Setup,
    name: &str,
    read: &PoolLiquidity,
    key: &V4PoolKey,
) -> usize {
    let quoter = setup.contract("uniswap_v4", "v4_quoter");
    let weth = setup.token("WETH");
    let mut checked = 0;
    for row in &read.exits {
        let Ok(quote) = &row.quote else {
            continue;
        };
        if !quote.filled {
            continue;
        }
        let currency_in = if row.token_in == weth && key.currency0.is_zero() {
            Address::ZERO
        } else {
            row.token_in
        };
        let expected = setup
            .call_at(
                quoter,
                &IV4Quoter::quoteExactInputSingleCall {
                    params: IV4Quoter::QuoteExactSingleParams {
                        poolKey: key.clone(),
                        zeroForOne: currency_in == key.currency0,
                        exactAmount: quote.amount_in.to::<u128>(),
                        hookData: Default::default(),
                    },
                },
                read.block.number,
            )
            .await;
        assert_eq!(
            quote.amount_out, expected.amountOut,
            "{name}: {} USD selling {} to the wei",
            row.size_usd, row.token_in
        );
        checked += 1;
    }
    checked
}

#[tokio::test]
async fn devnet_pools_by_pool_id_alone_take_their_key_from_the_initialize_event() {
    let mut setup = Setup::load();
    let opened = open_two_pools(&setup).await;
    let (weth, usdc, dai) = (setup.token("WETH"), setup.token("USDC"), setup.token("DAI"));
    let mut exits = 0;
    for (name, id, key) in &opened {
        let request = LiquidityRequest::new(PoolRef::V4 {
            id: *id,
            tokens: None,
        });
        let read = read_pool_both_ways(&setup, &request)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(matches!(read.pool.key, PoolKey::V4 { id: found, .. } if found == *id));
        assert_eq!(
            (read.pool.token0, read.pool.token1),
            (weth, usdc),
            "{name}: WETH stands for native ether"
        );
        // The log rode with the first lens call: still two round trips.
        assert_eq!(read.sequential_round_trips, 2, "{name}");
        assert!(
            matches!(
                read.pool_key_source,
                Some(PoolKeySource::InitializeLog {
                    block: Some(_),
                    from_block: 0
                })
            ),
            "{name}: {:?}",
            read.pool_key_source
        );
        exits += exits_equal_v4_quoter(&setup, name, &read, key).await;

        // With its pair named (either order; the zero address stands for WETH and the
        // reverse): the same pool, its key again from the event (no shape the registry
        // lists hashes to it).
        for tokens in [(usdc, weth), (Address::ZERO, usdc)] {
            let named = read_pool_liquidity(
                setup.chain(),
                &setup.reader(),
                &LiquidityRequest::new(PoolRef::V4 {
                    id: *id,
                    tokens: Some(tokens),
                }),
            )
            .await
            .unwrap_or_else(|e| panic!("{name} with {tokens:?}: {e}"));
            assert_eq!(named.pool, read.pool, "{name}");
            assert!(matches!(
                named.pool_key_source,
                Some(PoolKeySource::InitializeLog { .. })
            ));
        }
        // Another pair: refused with the reason, as a pool not found.
        let other = read_pool_liquidity(
            setup.chain(),
            &setup.reader(),
            &LiquidityRequest::new(PoolRef::V4 {
                id: *id,
                tokens: Some((usdc, dai)),
            }),
        )
        .await;
        assert!(
            matches!(&other, Err(RouteError::UnknownPoolId { reason, .. }) if reason.contains("not of the tokens named")),
            "{name}: {other:?}"
        );
    }
    assert!(exits >= 8, "{exits} exits checked against V4Quoter");

    // A PoolId no pool has: no Initialize event names it.
    let none = B256::repeat_byte(0x42);
    let missing = read_pool_both_ways(
        &setup,
        &LiquidityRequest::new(PoolRef::V4 {
            id: none,
            tokens: None,
        }),
    )
    .await;
    assert!(
        matches!(&missing, Err(RouteError::UnknownPoolId { id, reason }) if *id == none && reason.contains("no Initialize event")),
        "{missing:?}"
    );

    // An index that has read every block knows the keys: no log is asked.
    setup.registry = setup
        .registry
        .clone()
        .with_v4_index(Chain::Base, Some(V4IndexConfig::from_block(0)));
    let chain = setup.chain();
    let index = chain.v4_index().expect("configured");
    // The first read learns the head; the index's range rides with the next.
    for _ in 0..3 {
        let request = LiquidityRequest::new(PoolRef::V4 {
            id: opened[0].1,
            tokens: None,
        });
        read_pool_liquidity(chain, &setup.reader(), &request)
            .await
            .expect("read");
    }
    assert!(index.status().pools >= opened.len(), "{:?}", index.status());
    for (name, id, key) in &opened {
        let read = read_pool_both_ways(
            &setup,
            &LiquidityRequest::new(PoolRef::V4 {
                id: *id,
                tokens: None,
            }),
        )
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read.pool_key_source, Some(PoolKeySource::Index), "{name}");
        assert_eq!(read.sequential_round_trips, 2, "{name}");
        assert!(exits_equal_v4_quoter(&setup, name, &read, key).await >= 4);
    }
}
