//! One source's row of the answer.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The six kinds of source.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A Chainlink-type feed read on chain.
    Aggregator,
    /// Pyth (Hermes).
    PullOracleA,
    /// RedStone (oracle gateway).
    PullOracleB,
    /// Exchange tickers.
    Cex,
    /// The deepest concentrated-liquidity pool against USDC, `slot0`.
    DexSpot,
    /// The same pool's TWAP from `observe`.
    DexTwap,
}

impl Kind {
    /// Every kind, in answer order.
    pub const ALL: [Self; 6] = [
        Self::Aggregator,
        Self::PullOracleA,
        Self::PullOracleB,
        Self::Cex,
        Self::DexSpot,
        Self::DexTwap,
    ];

    /// Whether the kind is read on chain.
    pub fn on_chain(self) -> bool {
        matches!(self, Self::Aggregator | Self::DexSpot | Self::DexTwap)
    }
}

/// A fact stated against a printed threshold.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Flag {
    /// `stale`, `wide_confidence`, `thin_pool`, `sequencer_down`, `sequencer_grace_period`,
    /// `deviates_from_median`, `usdt_quoted`.
    pub flag: String,
    /// The fact and the threshold, in words.
    pub detail: String,
}

impl Flag {
    pub(crate) fn new(flag: &str, detail: String) -> Self {
        Self {
            flag: flag.to_owned(),
            detail,
        }
    }
}

/// The L2 sequencer uptime feed as read.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SequencerStatus {
    /// The feed.
    pub feed: String,
    /// `answer`: 0 up, 1 down.
    pub answer: String,
    /// `startedAt`: when the status last changed, Unix seconds.
    pub status_since: u64,
    /// Seconds between `startedAt` and the block.
    pub seconds_since_change: u64,
}

/// A pool compared when choosing the deepest.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PoolCompared {
    /// DEX id.
    pub dex: String,
    /// Pool address, or a Uniswap V4 pool's PoolId.
    pub pool: String,
    /// Fee tier, ppm (a Uniswap V4 dynamic-fee pool: its key's flag 8388608, 0x800000; its
    /// hook sets the fee).
    pub fee_tier_ppm: u32,
    /// In-range liquidity `L`.
    pub in_range_liquidity: Option<String>,
    /// `L`'s virtual reserves valued in USD (USDC at 1): `2·L·√P` in USDC units.
    pub in_range_value_usd: Option<String>,
    /// Why the pool has no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
    /// Whether it was chosen.
    pub chosen: bool,
}

/// Kind-specific facts of a row; absent fields do not apply to the kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Details {
    /// Aggregator: the feed contract.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed_address: Option<String>,
    /// Aggregator: where the address comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed_address_source: Option<String>,
    /// Aggregator: `description()` as read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Aggregator: always null (not readable on chain); see `heartbeat_null_reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heartbeat_seconds: Option<Option<u64>>,
    /// Aggregator: why the heartbeat and deviation threshold are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heartbeat_null_reason: Option<String>,
    /// Aggregator: always null, as the heartbeat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation_threshold: Option<Option<String>>,
    /// Aggregator: `updatedAt` of the last round minus that of the round before; Pyth:
    /// `publish_time − prev_publish_time`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_update_interval_seconds: Option<Option<u64>>,
    /// Why the observed interval is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_update_interval_null_reason: Option<String>,
    /// Aggregator: the L2 sequencer uptime feed, when one is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequencer: Option<SequencerStatus>,
    /// Aggregator: why no sequencer status is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequencer_null_reason: Option<String>,
    /// Pyth: the confidence interval, in the price's unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<String>,
    /// Pyth: `conf / price`, bps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence_bps: Option<f64>,
    /// RedStone: unique signers whose values the median is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer_count: Option<usize>,
    /// CEX: whether the pair is quoted in USDT (then excluded from the median).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usdt_quoted: Option<bool>,
    /// DEX: the pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// DEX: its DEX id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dex: Option<String>,
    /// DEX: its fee tier, ppm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fee_tier_ppm: Option<u32>,
    /// DEX spot: `slot0.tick`; TWAP: the mean tick.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick: Option<i32>,
    /// DEX TWAP: the window, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twap_seconds: Option<u32>,
    /// DEX TWAP: `slot0.observationCardinality`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation_cardinality: Option<u16>,
    /// DEX: capital within ±band of the price, USD (USDC at 1, the asset at the pool's spot
    /// price), rounded down to the cent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_usd: Option<String>,
    /// DEX: the band of `depth_usd`, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_band_percent: Option<u32>,
    /// DEX: why `depth_usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_null_reason: Option<String>,
    /// DEX spot: every pool compared to find the deepest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pools_compared: Option<Vec<PoolCompared>>,
}

/// One source.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceRow {
    /// The kind.
    pub kind: Kind,
    /// A name a person recognises (`Chainlink ETH/USD feed`, `Kraken`).
    pub source: String,
    /// The pair as quoted (`ETH/USD`, `ETH/USDT`, `WETH/USDC`).
    pub pair: String,
    /// Exact decimal; null when the source failed or is not available.
    pub price: Option<String>,
    /// The figures the price comes from, as read (integer answers with their exponent, bid
    /// and ask, the tick).
    pub raw: BTreeMap<String, String>,
    /// When the source says the price is from, Unix seconds; null when it gives no time.
    pub updated_at: Option<u64>,
    /// Seconds between `updated_at` and the block's timestamp (one clock for every row); 0
    /// when the source is newer than the block.
    pub age_seconds: Option<u64>,
    /// A page or API URL a person can open to check the figure.
    pub verify_url: Option<String>,
    /// `(price − median) / median × 10⁴`, to 0.01 bps.
    pub deviation_from_median_bps: Option<f64>,
    /// Whether the price is one of those the median is taken over.
    pub in_median: bool,
    /// Facts against printed thresholds.
    pub flags: Vec<Flag>,
    /// Why `price` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
    /// Kind-specific facts.
    #[serde(flatten)]
    pub details: Details,
    /// Whether the price is null because the source has nothing for this asset on this chain
    /// (no feed, no pool, not listed), not because a read failed: the difference between an
    /// empty answer and an unreachable counterparty.
    #[serde(skip)]
    #[schemars(skip)]
    absent: bool,
}

impl SourceRow {
    pub(crate) fn new(kind: Kind, source: impl Into<String>, pair: impl Into<String>) -> Self {
        Self {
            kind,
            source: source.into(),
            pair: pair.into(),
            price: None,
            raw: BTreeMap::new(),
            updated_at: None,
            age_seconds: None,
            verify_url: None,
            deviation_from_median_bps: None,
            in_median: false,
            flags: Vec::new(),
            null_reason: None,
            details: Details::default(),
            absent: false,
        }
    }

    pub(crate) fn failed(mut self, reason: impl Into<String>) -> Self {
        self.price = None;
        self.null_reason = Some(reason.into());
        self
    }

    /// The row of a source that has nothing for this asset here ([`Self::is_absent`]).
    pub(crate) fn absent(mut self, reason: impl Into<String>) -> Self {
        self = self.failed(reason);
        self.absent = true;
        self
    }

    /// Whether the source has nothing for this asset on this chain (rather than failing to
    /// answer).
    pub fn is_absent(&self) -> bool {
        self.absent
    }

    pub(crate) fn raw(mut self, key: &str, value: impl ToString) -> Self {
        self.raw.insert(key.to_owned(), value.to_string());
        self
    }

    /// Whether the row has a price.
    pub fn priced(&self) -> bool {
        self.price.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absent_source_is_told_apart_from_a_failed_one() {
        let absent = SourceRow::new(Kind::DexSpot, "pool", "LINK/USDC").absent("no pool");
        let failed = SourceRow::new(Kind::DexSpot, "pool", "LINK/USDC").failed("slot0 failed");
        assert!(absent.is_absent() && absent.price.is_none());
        assert!(!failed.is_absent() && failed.price.is_none());
        assert_eq!(absent.null_reason.as_deref(), Some("no pool"));
        let shown = serde_json::to_value(&absent).expect("serialises");
        assert!(
            shown.get("absent").is_none(),
            "an internal fact, not part of the answer"
        );
    }
}
