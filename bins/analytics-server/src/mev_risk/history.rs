//! The pool's past sandwiches as the answer shows them.

use dex_route::mev::{History, MevPool};
use mev_sim::{DETECTION_RULE, SandwichMatch};
use schemars::JsonSchema;
use serde::Serialize;

use crate::answer::{Amount, show, signed_amount};

/// One transaction of a matched sandwich.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichTx {
    /// Transaction hash.
    pub tx: String,
    /// Transaction index in the block.
    pub tx_index: u64,
}

/// A victim of a matched sandwich.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichVictim {
    /// Transaction hash.
    pub tx: String,
    /// The victim's address as the log names it (recipient, or the caller of the pool).
    pub trader: String,
}

/// One matched sandwich.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichFound {
    /// Block.
    pub block: u64,
    /// The attacker (the front-run's recipient).
    pub attacker: String,
    /// Front-run.
    pub front_run: SandwichTx,
    /// Back-run.
    pub back_run: SandwichTx,
    /// Victims between them.
    pub victims: Vec<SandwichVictim>,
    /// Back-run output − front-run input, in `profit_token` (gross of gas).
    pub profit: Amount,
    /// The token of the profit (the front-run's input token).
    pub profit_token: String,
}

/// The pool's sandwich history.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichHistory {
    /// Whether the scan ran.
    pub scanned: bool,
    /// Why it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_reason: Option<String>,
    /// First block scanned.
    pub from_block: Option<u64>,
    /// Last block scanned (the assessment's block).
    pub to_block: Option<u64>,
    /// Window length, blocks.
    pub window_blocks: Option<u64>,
    /// Window length, seconds (the block timestamps at both ends).
    pub window_seconds: Option<u64>,
    /// How `window_seconds` was obtained.
    pub window_seconds_source: Option<String>,
    /// Why `window_seconds` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_seconds_null_reason: Option<String>,
    /// The detection pattern.
    pub detection_rule: String,
    /// "sandwiches" on chains with a public mempool, "pattern matches" on the others.
    pub label: String,
    /// Swap events read.
    pub swaps_scanned: Option<usize>,
    /// Matches found.
    pub count: Option<usize>,
    /// Each match.
    pub matches: Vec<SandwichFound>,
    /// `eth_getLogs` requests sent.
    pub eth_get_logs_requests: Option<u32>,
    /// `eth_getTransactionByHash` requests: a Uniswap V4 pool's Swap logs name the
    /// PoolManager's caller (a router), so the signers of the swaps in blocks with three or
    /// more of them are read to tell traders apart (absent for other pools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eth_get_transaction_requests: Option<u32>,
    /// Ranges the node refused and that were halved.
    pub ranges_split: Option<u32>,
}

/// The history scan's outcome in the answer's words; `label` says what a match is on this
/// chain.
pub(super) fn sandwich_history(history: &History, read: &MevPool, label: &str) -> SandwichHistory {
    let (scan, first_timestamp) = match history {
        History::Scanned {
            scan,
            first_timestamp,
        } => (scan, *first_timestamp),
        _ => {
            return SandwichHistory {
                scanned: false,
                skipped_reason: Some(match history {
                    History::OutOfTime(options) => format!(
                        "the Swap history of the last {} blocks was not read within {} s (the part of the time budget left for it); the rest of the answer stands",
                        options.window_blocks,
                        options.budget.as_secs_f64()
                    ),
                    _ => "scan_history was false: the pool's Swap history was not read".to_owned(),
                }),
                from_block: None,
                to_block: None,
                window_blocks: None,
                window_seconds: None,
                window_seconds_source: None,
                window_seconds_null_reason: None,
                detection_rule: DETECTION_RULE.to_owned(),
                label: label.to_owned(),
                swaps_scanned: None,
                count: None,
                matches: Vec::new(),
                eth_get_logs_requests: None,
                eth_get_transaction_requests: None,
                ranges_split: None,
            };
        }
    };
    let last_timestamp = read.block.timestamp;
    SandwichHistory {
        scanned: true,
        skipped_reason: None,
        from_block: Some(scan.from_block),
        to_block: Some(scan.to_block),
        window_blocks: Some(scan.to_block - scan.from_block + 1),
        window_seconds: (first_timestamp < last_timestamp)
            .then(|| last_timestamp - first_timestamp),
        window_seconds_source: Some(
            "timestamp of the last block minus that of the first block".to_owned(),
        ),
        window_seconds_null_reason: (first_timestamp >= last_timestamp).then(|| {
            format!(
                "the first block's timestamp ({first_timestamp}) is not earlier than the last block's ({last_timestamp}): the node does not keep the window's first block as it was mined (a devnet loaded from a state dump, or a pruned header)"
            )
        }),
        detection_rule: DETECTION_RULE.to_owned(),
        label: label.to_owned(),
        swaps_scanned: Some(scan.swaps),
        count: Some(scan.matches.len()),
        matches: scan.matches.iter().map(|m| found(m, read)).collect(),
        eth_get_logs_requests: Some(scan.requests),
        // Only kinds whose logs name a router (Uniswap V4) read the swaps' signers.
        eth_get_transaction_requests: (scan.signer_requests > 0).then_some(scan.signer_requests),
        ranges_split: Some(scan.splits),
    }
}

fn found(m: &SandwichMatch, read: &MevPool) -> SandwichFound {
    let token = if m.profit_in_token0 {
        read.pool.token0
    } else {
        read.pool.token1
    };
    SandwichFound {
        block: m.block,
        attacker: show(m.attacker),
        front_run: SandwichTx {
            tx: m.front_run.tx_hash.to_string(),
            tx_index: m.front_run.tx_index,
        },
        back_run: SandwichTx {
            tx: m.back_run.tx_hash.to_string(),
            tx_index: m.back_run.tx_index,
        },
        victims: m
            .victims
            .iter()
            .map(|v| SandwichVictim {
                tx: v.swap.tx_hash.to_string(),
                trader: show(v.trader),
            })
            .collect(),
        profit: signed_amount(m.profit, dex_route::decimals_of(&read.tokens, token)),
        profit_token: show(token),
    }
}
