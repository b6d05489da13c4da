#![doc = include_str!("../README.md")]

mod asset;
mod error;
pub mod offchain;
pub mod onchain;
mod row;
mod summary;
mod thresholds;

use std::collections::BTreeMap;

use chain_read::{BlockPin, ChainInfo, PinnedReader};
use oracle_sources::Sources;

pub use asset::{Asset, PYTH_BTC_USD, PYTH_ETH_USD};
/// A price: the workspace's one exact decimal.
pub use decimal_units::Decimal as Price;
pub use error::CheckError;
pub use offchain::{apply_ages, off_chain_rows};
pub use onchain::{OnChain, on_chain_rows};
pub use row::{Details, Flag, Kind, PoolCompared, SequencerStatus, SourceRow};
pub use summary::{Summary, median, summarize};
pub use thresholds::Thresholds;

/// What to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRequest {
    /// The asset.
    pub asset: Asset,
    /// The kinds of source to read (every kind when the caller named none).
    pub kinds: Vec<Kind>,
    /// Expected `description()` of configured feeds whose text is not Chainlink's
    /// `BASE / QUOTE` (test feeds), by pair.
    pub feed_descriptions: BTreeMap<String, String>,
}

/// Every row with the median over them.
#[derive(Debug, Clone)]
pub struct Crosscheck {
    /// The block every on-chain read was made at; its timestamp is the clock of every age.
    pub block: BlockPin,
    /// One row per source asked, in kind order.
    pub rows: Vec<SourceRow>,
    /// Median, count, largest deviation.
    pub summary: Summary,
    /// `source pair` of every USDT-quoted row.
    pub usdt_quoted_sources: Vec<String>,
    /// Kinds asked of which no row has a price.
    pub kinds_without_price: Vec<Kind>,
    /// Sentences for the answer's assumptions.
    pub notes: Vec<String>,
    /// Sequential round trips to the node.
    pub round_trips: u32,
}

/// Reads every source of the kinds asked, the off-chain ones concurrently with the chain
/// reads, and summarises them. Only chain trouble is an error: a source that fails is a row
/// with its reason.
pub async fn crosscheck(
    chain: &ChainInfo,
    reader: &PinnedReader,
    sources: &Sources,
    request: &CheckRequest,
    thresholds: &Thresholds,
) -> Result<Crosscheck, CheckError> {
    let (on_chain, off_chain) = futures::join!(
        on_chain_rows(
            chain,
            reader,
            request.asset,
            &request.kinds,
            thresholds,
            &request.feed_descriptions,
        ),
        off_chain_rows(sources, request.asset, &request.kinds, thresholds),
    );
    let on_chain = on_chain?;
    let mut rows: Vec<SourceRow> = on_chain.rows.into_iter().chain(off_chain).collect();
    // Stable: within a kind the sources keep their order.
    rows.sort_by_key(|row| row.kind);
    apply_ages(&mut rows, on_chain.block.timestamp, thresholds);
    let summary = summarize(&mut rows, thresholds);
    let usdt_quoted_sources = rows
        .iter()
        .filter(|row| row.details.usdt_quoted == Some(true))
        .map(|row| format!("{} {}", row.source, row.pair))
        .collect();
    let kinds_without_price = request
        .kinds
        .iter()
        .copied()
        .filter(|kind| !rows.iter().any(|row| row.kind == *kind && row.priced()))
        .collect();
    Ok(Crosscheck {
        block: on_chain.block,
        rows,
        summary,
        usdt_quoted_sources,
        kinds_without_price,
        notes: on_chain.notes,
        round_trips: reader.round_trips(),
    })
}
