//! A pool's sandwich history: its Swap logs over a block window (`eth_getLogs`, ranges split
//! when the node refuses them, fetched concurrently), typed as [`mev_sim::SwapEvent`]s and run
//! through [`mev_sim::detect_sandwiches`].

use alloy::primitives::{Address, B256};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::dex::{Pool, PoolKey};
use chain_read::logs::{LogScanOptions, scan_logs};
use chain_read::{ChainClient, ChainInfo, DexContracts};
use mev_sim::{SandwichMatch, SwapEvent, SwapLog, detect_sandwiches};

use crate::error::RouteError;

alloy::sol! {
    /// Uniswap V3 pool events.
    interface V3Pool {
        /// A swap.
        event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);
    }
    /// Uniswap V2 pair events.
    interface V2Pair {
        /// A swap.
        event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    }
    /// Solidly / Aerodrome pool events.
    interface SolidlyPool {
        /// A swap.
        event Swap(address indexed sender, address indexed to, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out);
    }
}

/// The Swap event topic of a pool type (one name, three signatures).
pub fn swap_topic(key: PoolKey) -> B256 {
    match key {
        PoolKey::Concentrated { .. } => V3Pool::Swap::SIGNATURE_HASH,
        PoolKey::ConstantProduct { .. } => V2Pair::Swap::SIGNATURE_HASH,
        PoolKey::Solidly { .. } => SolidlyPool::Swap::SIGNATURE_HASH,
    }
}

/// The chain's shared routers (never taken as an attacker): every Router02 and Solidly Router
/// of the registry.
pub fn shared_routers(chain: &ChainInfo) -> Vec<Address> {
    chain
        .dexes()
        .filter_map(|dex| match &dex.contracts {
            DexContracts::ConstantProduct { router02, .. } => *router02,
            DexContracts::Solidly { router, .. } => *router,
            DexContracts::ConcentratedLiquidity { .. } => None,
        })
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
    /// The sandwiches matched.
    pub matches: Vec<SandwichMatch>,
    /// `eth_getLogs` requests.
    pub requests: u32,
    /// Ranges refused by the node and halved.
    pub splits: u32,
    /// Sequential request waves.
    pub sequential_round_trips: u32,
}

fn meta(log: &Log, sender: Address, recipient: Address) -> SwapLog {
    SwapLog {
        block: log.block_number.unwrap_or_default(),
        tx_index: log.transaction_index.unwrap_or_default(),
        log_index: log.log_index.unwrap_or_default(),
        tx_hash: log.transaction_hash.unwrap_or_default(),
        pool: log.address(),
        sender,
        recipient,
        tx_from: None,
    }
}

/// One log as a typed swap, `None` when it is not the pool type's Swap.
pub fn swap_event(key: PoolKey, log: &Log) -> Option<SwapEvent> {
    match key {
        PoolKey::Concentrated { .. } => {
            let e = log.log_decode::<V3Pool::Swap>().ok()?.inner.data;
            SwapEvent::from_v3(meta(log, e.sender, e.recipient), e.amount0, e.amount1).ok()
        }
        PoolKey::ConstantProduct { .. } => {
            let e = log.log_decode::<V2Pair::Swap>().ok()?.inner.data;
            SwapEvent::from_v2(
                meta(log, e.sender, e.to),
                e.amount0In,
                e.amount1In,
                e.amount0Out,
                e.amount1Out,
            )
            .ok()
        }
        PoolKey::Solidly { .. } => {
            let e = log.log_decode::<SolidlyPool::Swap>().ok()?.inner.data;
            SwapEvent::from_v2(
                meta(log, e.sender, e.to),
                e.amount0In,
                e.amount1In,
                e.amount0Out,
                e.amount1Out,
            )
            .ok()
        }
    }
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
    let scan = scan_logs(
        client,
        &[pool.address],
        &[swap_topic(pool.key)],
        from_block,
        to_block,
        options,
    )
    .await?;
    let mut events = Vec::with_capacity(scan.logs.len());
    let mut undecoded = 0usize;
    for log in &scan.logs {
        // The topic filter already selects the type's event; a log failing to decode is a
        // malformed answer, counted rather than fatal.
        match swap_event(pool.key, log) {
            Some(event) => events.push(event),
            None => undecoded += 1,
        }
    }
    events.sort_by_key(|e| (e.log.block, e.log.tx_index, e.log.log_index));
    let matches = detect_sandwiches(&events, &shared_routers(chain))?;
    Ok(HistoryScan {
        from_block,
        to_block,
        swaps: events.len(),
        undecoded,
        matches,
        requests: scan.requests,
        splits: scan.splits,
        sequential_round_trips: scan.sequential_round_trips,
    })
}
