//! A pool's sandwich history: its Swap logs over a block window (`eth_getLogs`, ranges split
//! when the node refuses them, fetched concurrently), typed as [`mev_sim::SwapEvent`]s and run
//! through [`mev_sim::detect_sandwiches`].

use alloy::primitives::{Address, B256};
use alloy::rpc::types::Log;
use chain_read::dex::{Pool, PoolKey};
use chain_read::logs::{LogScanOptions, scan_logs_with};
use chain_read::{ChainClient, ChainInfo};
use mev_sim::{SandwichMatch, SwapEvent, detect_sandwiches};

use crate::error::RouteError;
use crate::kinds;
#[cfg(test)]
use crate::kinds::{concentrated::V3Pool, constant_product::V2Pair};

/// The Swap event topic of a pool type (one name, a signature per kind).
pub fn swap_topic(key: PoolKey) -> B256 {
    kinds::of(key.kind()).swap_topic()
}

/// The chain's shared routers (never taken as an attacker): every router the registry holds
/// whose swaps reach the pools (Router02, the Solidly Router).
pub fn shared_routers(chain: &ChainInfo) -> Vec<Address> {
    chain
        .dexes()
        .filter_map(|dex| kinds::of(dex.kind()).router(&dex.contracts))
        .collect()
}

/// What the scan found.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryScan {
    /// First block scanned.
    pub from_block: u64,
    /// Last block scanned (the pinned block).
    pub to_block: u64,
    /// Swap events decoded.
    pub swaps: usize,
    /// Logs that did not decode as the pool type's Swap (skipped).
    pub undecoded: usize,
    /// Swaps of the pool's other pairs (a pool of more than two tokens), left out.
    pub other_pairs: usize,
    /// The sandwiches matched.
    pub matches: Vec<SandwichMatch>,
    /// `eth_getLogs` requests.
    pub requests: u32,
    /// Ranges refused by the node and halved.
    pub splits: u32,
    /// `eth_getTransactionByHash` requests, for kinds whose Swap logs name a router rather
    /// than the trader (Uniswap V4): the signers of the swaps in blocks that could hold a
    /// sandwich.
    pub signer_requests: u32,
    /// Sequential request waves.
    pub sequential_round_trips: u32,
}

/// One log as a typed swap, `None` when it is not the pool type's Swap.
pub fn swap_event(key: PoolKey, log: &Log) -> Option<SwapEvent> {
    kinds::of(key.kind()).swap_event(log)
}

/// Scans `pool`'s Swap logs over the `window` blocks ending at `to_block` and matches
/// sandwiches.
pub async fn scan_pool_history(
    client: &ChainClient,
    chain: &ChainInfo,
    pool: &Pool,
    to_block: u64,
    window: u64,
    options: LogScanOptions,
) -> Result<HistoryScan, RouteError> {
    let from_block = to_block.saturating_sub(window.saturating_sub(1));
    let filter = kinds::of_pool(pool).swap_logs(chain, pool);
    let scan = scan_logs_with(
        client,
        &filter.addresses,
        &[filter.topic],
        filter.topic1,
        from_block,
        to_block,
        options,
    )
    .await?;
    let mut events = Vec::with_capacity(scan.logs.len());
    let mut undecoded = 0usize;
    let mut other_pairs = 0usize;
    let kind = kinds::of_pool(pool);
    for log in &scan.logs {
        if !kind.logs_pair(pool, log) {
            other_pairs += 1;
            continue;
        }
        // The topic filter already selects the type's event; a log failing to decode is a
        // malformed answer, counted rather than fatal.
        match swap_event(pool.key, log) {
            Some(event) => events.push(event),
            None => undecoded += 1,
        }
    }
    events.sort_by_key(|e| (e.log.block, e.log.tx_index, e.log.log_index));
    let signer_requests = if kinds::of_pool(pool).logs_name_traders() {
        0
    } else {
        read_signers(client, &mut events, options.concurrency).await?
    };
    let matches = detect_sandwiches(&events, &shared_routers(chain))?;
    Ok(HistoryScan {
        from_block,
        to_block,
        swaps: events.len(),
        undecoded,
        other_pairs,
        matches,
        requests: scan.requests,
        splits: scan.splits,
        signer_requests,
        sequential_round_trips: scan.sequential_round_trips + u32::from(signer_requests > 0),
    })
}

/// Fills `tx_from` of every swap in a block with at least three swaps of the pool (a
/// sandwich's front-run, victim and back-run), reading each transaction's signer, and takes
/// the signer as the swap's recipient: the log names only the PoolManager's caller, a router
/// every trader shares. Returns the requests sent.
async fn read_signers(
    client: &ChainClient,
    events: &mut [SwapEvent],
    concurrency: usize,
) -> Result<u32, RouteError> {
    use futures::{StreamExt as _, stream};
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::atomic::{AtomicU32, Ordering};

    let mut per_block: BTreeMap<u64, usize> = BTreeMap::new();
    for event in events.iter() {
        *per_block.entry(event.log.block).or_default() += 1;
    }
    let hashes: BTreeSet<B256> = events
        .iter()
        .filter(|e| per_block.get(&e.log.block).is_some_and(|n| *n >= 3))
        .map(|e| e.log.tx_hash)
        .collect();
    let requests = AtomicU32::new(0);
    let signers: Vec<(B256, Result<Address, chain_read::ChainReadError>)> = stream::iter(hashes)
        .map(|hash| {
            let requests = &requests;
            async move { (hash, client.transaction_sender(hash, Some(requests)).await) }
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    let mut by_hash = BTreeMap::new();
    for (hash, signer) in signers {
        by_hash.insert(hash, signer?);
    }
    for event in events.iter_mut() {
        if let Some(signer) = by_hash.get(&event.log.tx_hash) {
            event.log.tx_from = Some(*signer);
            event.log.recipient = *signer;
        }
    }
    Ok(requests.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use alloy::primitives::{I256, LogData, U256, address, b256};
    use alloy::sol_types::SolEvent;

    use super::*;

    #[test]
    fn the_topics_are_the_pools_swap_signatures() {
        // keccak256 of each pool family's Swap signature, as block explorers list them.
        assert_eq!(
            swap_topic(PoolKey::Concentrated {
                fee: 500,
                tick_spacing: 10
            }),
            b256!("c42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67")
        );
        assert_eq!(
            swap_topic(PoolKey::ConstantProduct { fee_bps: 30 }),
            b256!("d78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822")
        );
        assert_eq!(
            swap_topic(PoolKey::Solidly { stable: false }),
            b256!("b3e2773606abfd36b5bd91394b3a54d1398336c65005baf7bf7a05efeffaf75b")
        );
    }

    fn log_of(pool: Address, data: LogData) -> Log {
        Log {
            inner: alloy::primitives::Log {
                address: pool,
                data,
            },
            block_number: Some(7),
            transaction_index: Some(2),
            log_index: Some(5),
            ..Log::default()
        }
    }

    #[test]
    fn logs_become_typed_swaps_with_their_place_in_the_chain() {
        let pool = address!("00000000000000000000000000000000000000aa");
        let (sender, to) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let v2 = V2Pair::Swap {
            sender,
            amount0In: U256::from(1_000u32),
            amount1In: U256::ZERO,
            amount0Out: U256::ZERO,
            amount1Out: U256::from(997u32),
            to,
        };
        let event = swap_event(
            PoolKey::ConstantProduct { fee_bps: 30 },
            &log_of(pool, v2.encode_log_data()),
        )
        .expect("a V2 swap");
        assert!(event.zero_for_one);
        assert_eq!(event.amount_in, U256::from(1_000u32));
        assert_eq!(event.amount_out, U256::from(997u32));
        assert_eq!(
            (event.log.block, event.log.tx_index, event.log.log_index),
            (7, 2, 5)
        );
        assert_eq!((event.log.sender, event.log.recipient), (sender, to));

        let v3 = V3Pool::Swap {
            sender,
            recipient: to,
            amount0: I256::try_from(-500i64).expect("i256"),
            amount1: I256::try_from(1_000i64).expect("i256"),
            sqrtPriceX96: alloy::primitives::aliases::U160::from(1u8) << 96,
            liquidity: 1,
            tick: alloy::primitives::aliases::I24::ZERO,
        };
        let key = PoolKey::Concentrated {
            fee: 500,
            tick_spacing: 10,
        };
        let event = swap_event(key, &log_of(pool, v3.encode_log_data())).expect("a V3 swap");
        assert!(!event.zero_for_one, "token1 in, token0 out");
        assert_eq!(event.amount_in, U256::from(1_000u32));
        assert_eq!(event.amount_out, U256::from(500u32));
        // A V2 log read as a V3 pool's is not a swap of that pool type.
        assert!(swap_event(key, &log_of(pool, v2.encode_log_data())).is_none());
    }
}
