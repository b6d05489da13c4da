//! Every number a flag or a wording uses; the configuration's `[crosscheck]` section and the
//! answer's `thresholds` object are this one struct.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The thresholds of the flags. Every field has a default; unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// An aggregator row is flagged `stale` when its age exceeds this multiple of the observed
    /// interval between its last two rounds (heartbeats are not readable on chain).
    pub staleness_multiple: f64,
    /// A pull-oracle or exchange row with its own timestamp is flagged `stale` beyond this age,
    /// seconds.
    pub off_chain_max_age_seconds: u64,
    /// A Pyth row is flagged `wide_confidence` when `conf/price` exceeds this, bps.
    pub max_confidence_bps: f64,
    /// A DEX row is flagged `thin_pool` when the capital within ±`depth_band_percent` of the
    /// pool's price is below this, USD.
    pub thin_pool_depth_usd: u64,
    /// The band of the thin-pool measure, percent of the price.
    pub depth_band_percent: u32,
    /// After the L2 sequencer comes back up, the aggregator row is flagged
    /// `sequencer_grace_period` for this long, seconds (Chainlink's L2 sequencer uptime feeds
    /// documentation).
    pub sequencer_grace_seconds: u64,
    /// A row is flagged `deviates_from_median` beyond this distance from the median, bps.
    pub deviation_flag_bps: f64,
    /// The TWAP window, seconds.
    pub twap_seconds: u32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            staleness_multiple: 2.0,
            off_chain_max_age_seconds: 60,
            max_confidence_bps: 50.0,
            thin_pool_depth_usd: 250_000,
            depth_band_percent: 2,
            sequencer_grace_seconds: 3600,
            deviation_flag_bps: 100.0,
            twap_seconds: 1800,
        }
    }
}

impl Thresholds {
    /// Values that cannot work (a zero window, a band marketdepth-v3 does not allow, a
    /// negative or non-finite multiple) as one message per field.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !(self.staleness_multiple.is_finite() && self.staleness_multiple > 0.0) {
            problems.push("staleness_multiple must be a positive number".to_owned());
        }
        if !(self.max_confidence_bps.is_finite() && self.max_confidence_bps >= 0.0) {
            problems.push("max_confidence_bps must be a number ≥ 0".to_owned());
        }
        if !(self.deviation_flag_bps.is_finite() && self.deviation_flag_bps >= 0.0) {
            problems.push("deviation_flag_bps must be a number ≥ 0".to_owned());
        }
        if self.depth_band_percent == 0 || self.depth_band_percent > 40 {
            problems.push("depth_band_percent must be 1 to 40 (marketdepth-v3's bound)".to_owned());
        }
        if self.twap_seconds == 0 {
            problems.push("twap_seconds must be positive".to_owned());
        }
        problems
    }
}
