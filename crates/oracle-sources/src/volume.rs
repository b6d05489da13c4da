//! Pool volume over 24 hours and 7 days from a named foreign source (the `/pool/liquidity`
//! answer's volume fields).

use alloy::primitives::Address;
use chain_read::Chain;
use serde::Serialize;

use crate::Sources;
use crate::defillama::{self, YieldPool};
use crate::error::SourceError;
use crate::geckoterminal::{self, Candle, GtCandles, GtLookup};
use crate::types::Sourced;
use decimal_units::Decimal;

const HOUR: u64 = 3_600;

/// Hours in the rolling 7-day window.
const WEEK_HOURS: u64 = 168;

/// Volume of one pool, each figure derived from a foreign source or null with the reason.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PoolVolume {
    /// USD volume over the last 24 hours.
    pub volume_24h: ForeignFigure,
    /// USD volume over 7 days.
    pub volume_7d: ForeignFigure,
}

/// A figure taken from an off-chain provider, with where and when it comes from, or null with
/// the reason.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ForeignFigure {
    /// USD amount as a decimal string: as the provider printed it, or the exact sum of the
    /// provider's candles. `None` when unavailable (see `null_reason`).
    pub usd: Option<String>,
    /// `"GeckoTerminal"` or `"DefiLlama yields"`.
    pub source: Option<String>,
    /// The provider URL a person can open to check the figure.
    pub url: Option<String>,
    /// Unix seconds the figure is as of.
    pub as_of: Option<u64>,
    /// `now_unix − as_of` (0 when the provider's clock is ahead).
    pub age_seconds: Option<u64>,
    /// How the figure is derived, in one sentence.
    pub method: String,
    /// Why `usd` is null.
    pub null_reason: Option<String>,
}

impl ForeignFigure {
    fn found(
        usd: String,
        source: &str,
        url: String,
        as_of: u64,
        now_unix: u64,
        method: String,
    ) -> Self {
        Self {
            usd: Some(usd),
            source: Some(source.to_owned()),
            url: Some(url),
            as_of: Some(as_of),
            age_seconds: Some(now_unix.saturating_sub(as_of)),
            method,
            null_reason: None,
        }
    }

    fn null(method: &str, reason: String) -> Self {
        Self {
            usd: None,
            source: None,
            url: None,
            as_of: None,
            age_seconds: None,
            method: method.to_owned(),
            null_reason: Some(reason),
        }
    }
}

const METHOD_24H_TRIED: &str = "GeckoTerminal pool endpoint volume_usd.h24; DefiLlama yields volumeUsd1d only when GeckoTerminal does not list the pool.";
const METHOD_7D_TRIED: &str = "Sum of GeckoTerminal's hourly USD candles of the 168 hours ending with the current hour; DefiLlama yields volumeUsd7d only when GeckoTerminal does not list the pool.";

impl Sources {
    /// The pool's USD volume over 24 hours and 7 days. Never fails: a figure that cannot be
    /// had is null with its reason.
    ///
    /// GeckoTerminal is asked first (pool endpoint and hourly candles, concurrently); its
    /// answer counts only for the same address on the same network, and its 404 means "not
    /// listed". Only then is DefiLlama yields asked, and its figures are used only when
    /// exactly one `/pools` row is this pool on this chain ([`YieldPool::is_pool`]).
    /// `now_unix` sets the 7-day window (the 168 hours ending with its hour) and the ages.
    pub async fn pool_volume(&self, chain: Chain, pool: Address, now_unix: u64) -> PoolVolume {
        let gt = self.geckoterminal();
        let (listing, candles) =
            futures::join!(gt.pool(chain, pool), gt.hourly_candles(chain, pool));
        match listing {
            Ok(Sourced {
                value,
                as_of,
                url,
                ..
            }) => match &*value {
                GtLookup::Listed(found) => PoolVolume {
                    volume_24h: match &found.volume_usd_h24 {
                        Some(h24) => ForeignFigure::found(
                            h24.as_str().to_owned(),
                            geckoterminal::PROVIDER,
                            url,
                            as_of,
                            now_unix,
                            "volume_usd.h24 of GeckoTerminal's pool endpoint, as printed (rolling 24 h; GeckoTerminal caches its answers for 1 minute).".into(),
                        ),
                        None => ForeignFigure::null(
                            METHOD_24H_TRIED,
                            format!("GeckoTerminal lists pool {pool:#x} on {} but gives no volume_usd.h24", geckoterminal::network(chain)),
                        ),
                    },
                    volume_7d: seven_days_from_candles(candles, now_unix),
                },
                GtLookup::NotListed(title) => {
                    let not_listed = format!(
                        "GeckoTerminal does not list pool {pool:#x} on network {} (404 {title:?})",
                        geckoterminal::network(chain)
                    );
                    self.volume_from_defillama(chain, pool, now_unix, &not_listed).await
                }
            },
            Err(error) => {
                let reason = format!("GeckoTerminal unavailable, so no source was matched: {error}");
                PoolVolume {
                    volume_24h: ForeignFigure::null(METHOD_24H_TRIED, reason.clone()),
                    volume_7d: ForeignFigure::null(METHOD_7D_TRIED, reason),
                }
            }
        }
    }

    async fn volume_from_defillama(
        &self,
        chain: Chain,
        pool: Address,
        now_unix: u64,
        not_listed: &str,
    ) -> PoolVolume {
        let both_null = |reason: String| PoolVolume {
            volume_24h: ForeignFigure::null(METHOD_24H_TRIED, reason.clone()),
            volume_7d: ForeignFigure::null(METHOD_7D_TRIED, reason),
        };
        let rows = match self.defillama_yields().pools().await {
            Ok(rows) => rows,
            Err(error) => {
                return both_null(format!(
                    "{not_listed}; DefiLlama yields unavailable: {error}"
                ));
            }
        };
        let matches: Vec<&YieldPool> = rows
            .value
            .iter()
            .filter(|r| r.is_pool(chain, pool))
            .collect();
        let row = match matches.as_slice() {
            [row] => *row,
            [] => {
                return both_null(format!(
                    "{not_listed}; no DefiLlama yields row is pool {pool:#x} on {} (the free /pools names pools by UUID, so only pools with a deterministic id or an address field can be matched)",
                    defillama::yields_chain(chain)
                ));
            }
            several => {
                let ids: Vec<&str> = several.iter().map(|r| r.pool.as_str()).collect();
                return both_null(format!(
                    "{not_listed}; ambiguous: {} DefiLlama yields rows match pool {pool:#x} on {} ({})",
                    several.len(),
                    defillama::yields_chain(chain),
                    ids.join(", ")
                ));
            }
        };
        let figure = |value: &Option<crate::ProviderNumber>,
                      column: &str,
                      method: String,
                      tried: &str| match value {
            Some(v) => ForeignFigure::found(
                v.as_str().to_owned(),
                defillama::YIELDS_PROVIDER,
                rows.url.clone(),
                rows.as_of,
                now_unix,
                method,
            ),
            None => ForeignFigure::null(
                tried,
                format!(
                    "{not_listed}; DefiLlama yields row {} ({}) has no {column} (its adaptor reports no volume)",
                    row.pool, row.project
                ),
            ),
        };
        PoolVolume {
            volume_24h: figure(
                &row.volume_usd_1d,
                "volumeUsd1d",
                format!(
                    "volumeUsd1d of DefiLlama yields row {} ({}), as printed, because GeckoTerminal does not list the pool; DefiLlama's answer has no timestamp, so as_of is when it was read.",
                    row.pool, row.project
                ),
                METHOD_24H_TRIED,
            ),
            volume_7d: figure(
                &row.volume_usd_7d,
                "volumeUsd7d",
                format!(
                    "volumeUsd7d of DefiLlama yields row {} ({}), as printed, because GeckoTerminal does not list the pool; DefiLlama's answer has no timestamp, so as_of is when it was read.",
                    row.pool, row.project
                ),
                METHOD_7D_TRIED,
            ),
        }
    }
}

/// The exact sum of the hourly candles that start in the 168 hours ending with the current
/// hour, that hour included: window = [hour_start(now) − 167 h, hour_start(now)], a rolling
/// 7 days like GeckoTerminal's rolling h24 (the current hour's candle is still partial, so the
/// span is 167 h plus the minutes of the current hour). Hours without a candle count as zero and are counted in the method.
/// `as_of` is when the candles were fetched: the sum covers everything up to then.
fn seven_days_from_candles(
    candles: Result<Sourced<GtCandles>, SourceError>,
    now_unix: u64,
) -> ForeignFigure {
    let fetched = match candles {
        Ok(fetched) => fetched,
        Err(error) => {
            return ForeignFigure::null(
                METHOD_7D_TRIED,
                format!(
                    "GeckoTerminal lists the pool but its hourly candles are unavailable: {error}"
                ),
            );
        }
    };
    let list = match &*fetched.value {
        GtCandles::Listed(list) => list,
        GtCandles::NotListed(title) => {
            return ForeignFigure::null(
                METHOD_7D_TRIED,
                format!(
                    "GeckoTerminal lists the pool but has no hourly candles for it (404 {title:?})"
                ),
            );
        }
    };
    let newest = now_unix - now_unix % HOUR;
    let oldest = newest.saturating_sub((WEEK_HOURS - 1) * HOUR);
    let mut in_window: Vec<&Candle> = list
        .iter()
        .filter(|c| (oldest..=newest).contains(&c.timestamp))
        .collect();
    in_window.sort_by_key(|c| c.timestamp);
    in_window.dedup_by_key(|c| c.timestamp);
    if in_window.is_empty() {
        return ForeignFigure::null(
            METHOD_7D_TRIED,
            format!(
                "GeckoTerminal has no hourly candle starting between {oldest} and {newest} (the 168 hours ending with the current hour)"
            ),
        );
    }
    let mut total = Decimal::ZERO;
    for candle in &in_window {
        let volume = match Decimal::parse(candle.volume_usd.as_str()) {
            Ok(v) => v,
            Err(why) => {
                return ForeignFigure::null(
                    METHOD_7D_TRIED,
                    format!(
                        "GeckoTerminal's candle of {} has an unusable volume: {why}",
                        candle.timestamp
                    ),
                );
            }
        };
        match total.checked_add(volume) {
            Some(sum) => total = sum,
            None => {
                return ForeignFigure::null(
                    METHOD_7D_TRIED,
                    "the sum of GeckoTerminal's candle volumes overflows".into(),
                );
            }
        }
    }
    // At most 168 candles are in the window (deduplicated by start), so this cannot underflow.
    let missing = WEEK_HOURS.saturating_sub(in_window.len() as u64);
    let method = if missing == 0 {
        "Exact sum of the volumes of GeckoTerminal's 168 hourly USD candles starting in the 168 hours that end with the current hour (rolling 7 d, the current partial hour included; as_of is when the candles were fetched).".to_owned()
    } else {
        format!(
            "Exact sum of the volumes of GeckoTerminal's {} hourly USD candles starting in the 168 hours that end with the current hour; {missing} of those hours have no candle and count as zero (rolling 7 d, the current partial hour included; as_of is when the candles were fetched).",
            in_window.len()
        )
    };
    ForeignFigure::found(
        total.to_string(),
        geckoterminal::PROVIDER,
        fetched.url,
        fetched.fetched_at,
        now_unix,
        method,
    )
}
