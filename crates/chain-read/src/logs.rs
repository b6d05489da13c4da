//! `eth_getLogs` over a block window: the window split into ranges the node accepts (a range it
//! refuses is halved until it is accepted or one block long), the ranges fetched concurrently,
//! the logs returned in chain order (block, log index).

use std::sync::atomic::{AtomicU32, Ordering};

use alloy::primitives::{Address, B256};
use alloy::rpc::types::{Filter, Log};
use futures::stream::{self, StreamExt};

use crate::client::ChainClient;
use crate::error::ChainReadError;

/// One range and what the node answered for it.
type RangeAnswer = ((u64, u64), Result<Vec<Log>, ChainReadError>);

/// How a window is scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogScanOptions {
    /// Blocks per first request (nodes commonly accept 2,000 to 10,000).
    pub initial_span: u64,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Most requests in total, splits included: a node refusing every range cannot make the
    /// scan run away.
    pub max_requests: u32,
}

impl Default for LogScanOptions {
    fn default() -> Self {
        Self {
            initial_span: 2_000,
            concurrency: 4,
            max_requests: 64,
        }
    }
}

/// The logs of a window and what fetching them cost.
#[derive(Debug, Clone, PartialEq)]
pub struct LogScan {
    /// Every matching log, ordered by (block, log index).
    pub logs: Vec<Log>,
    /// `eth_getLogs` requests sent (failovers and refused ranges included).
    pub requests: u32,
    /// Ranges the node refused and that were halved.
    pub splits: u32,
    /// Longest chain of sequential requests (one per halving level, plus one per wave of
    /// `concurrency` ranges).
    pub sequential_round_trips: u32,
}

/// Whether a node's error means "this range is too large" (so a smaller one may pass). Nodes
/// word it differently: geth's "query returned more than 10000 results", Alchemy's "Log
/// response size exceeded", Infura's -32005 "query returned more than", QuickNode's "eth_getLogs
/// is limited to a 10,000 range", "block range too large", "range is too large".
pub fn is_range_refusal(error: &ChainReadError) -> bool {
    match error {
        ChainReadError::Rpc { code, message, .. } => {
            let text = message.to_ascii_lowercase();
            *code == -32005
                || [
                    "range",
                    "more than",
                    "exceed",
                    "too many",
                    "limit",
                    "too large",
                ]
                .iter()
                .any(|hint| text.contains(hint))
        }
        _ => false,
    }
}

/// The logs emitted by `addresses` with first topic in `topics` in blocks `from..=to`.
pub async fn scan_logs(
    client: &ChainClient,
    addresses: &[Address],
    topics: &[B256],
    from: u64,
    to: u64,
    options: LogScanOptions,
) -> Result<LogScan, ChainReadError> {
    scan_logs_with(client, addresses, topics, None, from, to, options).await
}

/// [`scan_logs`] with the second topic (the first indexed argument) also fixed: one pool's
/// events from a contract that logs for many (Uniswap V4's PoolManager and its PoolId).
pub async fn scan_logs_with(
    client: &ChainClient,
    addresses: &[Address],
    topics: &[B256],
    topic1: Option<B256>,
    from: u64,
    to: u64,
    options: LogScanOptions,
) -> Result<LogScan, ChainReadError> {
    if from > to {
        return Err(ChainReadError::InvalidInput(format!(
            "log window from block {from} to block {to} is empty"
        )));
    }
    let span = options.initial_span.max(1);
    let mut pending: Vec<(u64, u64)> = Vec::new();
    let mut start = from;
    loop {
        let end = start.saturating_add(span - 1).min(to);
        pending.push((start, end));
        if end >= to {
            break;
        }
        start = end + 1;
    }
    let filter = Filter::new()
        .address(addresses.to_vec())
        .event_signature(topics.to_vec());
    let filter = match topic1 {
        Some(topic) => filter.topic1(topic),
        None => filter,
    };
    let requests = AtomicU32::new(0);
    let mut splits = 0u32;
    let mut sequential = 0u32;
    let mut logs: Vec<Log> = Vec::new();
    let concurrency = options.concurrency.max(1);
    while !pending.is_empty() {
        // One level: every pending range, `concurrency` at a time.
        sequential += u32::try_from(pending.len().div_ceil(concurrency)).unwrap_or(u32::MAX);
        let answers: Vec<RangeAnswer> = stream::iter(pending.drain(..))
            .map(|(low, high)| {
                let filter = filter.clone().from_block(low).to_block(high);
                let requests = &requests;
                async move {
                    let answer = if requests.load(Ordering::Relaxed) >= options.max_requests {
                        Err(ChainReadError::InvalidInput(format!(
                            "eth_getLogs: more than {} requests needed for blocks {from}..={to}",
                            options.max_requests
                        )))
                    } else {
                        client.get_logs_counted(&filter, Some(requests)).await
                    };
                    ((low, high), answer)
                }
            })
            .buffer_unordered(concurrency)
            .collect()
            .await;
        for ((low, high), answer) in answers {
            match answer {
                Ok(found) => logs.extend(found),
                Err(error) if is_range_refusal(&error) && high > low => {
                    splits += 1;
                    let middle = low + (high - low) / 2;
                    pending.push((low, middle));
                    pending.push((middle + 1, high));
                }
                Err(error) => return Err(error),
            }
        }
    }
    logs.sort_by_key(|log| {
        (
            log.block_number.unwrap_or_default(),
            log.log_index.unwrap_or_default(),
        )
    });
    Ok(LogScan {
        logs,
        requests: requests.load(Ordering::Relaxed),
        splits,
        sequential_round_trips: sequential,
    })
}
