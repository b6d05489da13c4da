//! RedStone oracle gateway: the latest signed data packages of a data service, reduced to a
//! median per feed over its unique signers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::SourceError;
use crate::http::{EndpointCache, Reply, Upstream, UpstreamOptions, endpoint_cache};
use crate::limiter::Budget;
use crate::types::{ProviderNumber, Sourced, lenient_number};
use decimal_units::Decimal;

/// Provider name in answers and errors.
pub const PROVIDER: &str = "RedStone";

/// The data service of RedStone's primary production feeds.
pub const PRIMARY_SERVICE: &str = "redstone-primary-prod";

/// The key under which the gateway lists packages that carry every feed.
const ALL_FEEDS: &str = "___ALL_FEEDS___";

/// The fewest unique signers whose median is reported.
pub const MIN_SIGNERS: usize = 3;

/// RedStone publishes no limit for its gateways; one call per second, with the whole service
/// answer cached, keeps this client far from any plausible one.
pub const BUDGET: Budget = Budget::per(60, 60);

/// One signed data package, as the gateway lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataPackage {
    /// Unix milliseconds the package is for.
    pub timestamp_milliseconds: u64,
    /// Signer address.
    pub signer_address: String,
    /// Data service id.
    #[serde(default)]
    pub data_service_id: Option<String>,
    /// The package's feed (absent or `___ALL_FEEDS___` for multi-feed packages).
    #[serde(default)]
    pub data_feed_id: Option<String>,
    /// The gateway's own signature check, when it reports one.
    #[serde(default)]
    pub is_signature_valid: Option<bool>,
    /// The values.
    pub data_points: Vec<DataPoint>,
}

/// One value of a package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataPoint {
    /// Feed id (`"ETH"`).
    pub data_feed_id: String,
    /// The value when it is numeric (non-numeric points, such as base64 payloads, are `None`).
    #[serde(default, deserialize_with = "lenient_number")]
    pub value: Option<ProviderNumber>,
}

/// A feed's median over unique signers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RedstonePrice {
    /// Feed id.
    pub feed_id: String,
    /// The median of the signers' values, exactly (the mean of the two middle values when
    /// their number is even).
    pub median: String,
    /// Each unique signer's value (one per signer: its newest package).
    pub values: Vec<(String, ProviderNumber)>,
    /// Oldest package time among those used, unix milliseconds.
    pub oldest_timestamp_ms: u64,
}

/// The RedStone client.
#[derive(Debug)]
pub struct Redstone {
    upstream: Upstream,
    packages: EndpointCache<BTreeMap<String, Vec<DataPackage>>>,
}

impl Redstone {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: PROVIDER,
                base_url: &config.redstone_url,
                budget: BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: Default::default(),
            })?,
            packages: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/data-packages/latest/{service}` reduced to `feed_id`'s median over at least
    /// [`MIN_SIGNERS`] unique signers; packages whose signature the gateway marks invalid are
    /// left out. `as_of` is the oldest used package's time (seconds).
    pub async fn latest(
        &self,
        service: &str,
        feed_id: &str,
    ) -> Result<Sourced<RedstonePrice>, SourceError> {
        let path = format!("/data-packages/latest/{service}");
        if service.is_empty()
            || !service
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(SourceError::NotFound {
                provider: PROVIDER,
                url: self.upstream.public_url(&path),
                message: format!("{service:?} is not a data service id"),
            });
        }
        let fetched = self
            .upstream
            .get(&self.packages, &path, parse_packages)
            .await?;
        let price = median_of(&fetched.value, feed_id).map_err(|error| SourceError::Unusable {
            provider: PROVIDER,
            url: fetched.url.clone(),
            message: error.to_string(),
        })?;
        let as_of = price.oldest_timestamp_ms / 1000;
        let value = std::sync::Arc::new(price);
        Ok(Sourced {
            value,
            as_of,
            fetched_at: fetched.fetched_at,
            url: fetched.url,
        })
    }
}

fn parse_packages(reply: &Reply) -> Result<BTreeMap<String, Vec<DataPackage>>, SourceError> {
    reply.require_success()?;
    reply.json()
}

/// Why the signers' values give no median.
#[derive(Debug, thiserror::Error)]
enum MedianError {
    /// Fewer signers than [`MIN_SIGNERS`] sent a numeric value.
    #[error(
        "feed {feed_id:?} has {signers} unique signers with a numeric value; at least {MIN_SIGNERS} are needed"
    )]
    TooFewSigners { feed_id: String, signers: usize },
    /// A signer's value is not a non-negative decimal.
    #[error("feed {feed_id:?}: {source}")]
    NotADecimal {
        feed_id: String,
        source: decimal_units::DecimalError,
    },
    /// Two values too far apart to align in 256 bits.
    #[error("feed {feed_id:?}: values too large to compare")]
    TooLarge { feed_id: String },
}

fn median_of(
    packages: &BTreeMap<String, Vec<DataPackage>>,
    feed_id: &str,
) -> Result<RedstonePrice, MedianError> {
    // Newest package per signer that carries a numeric value for the feed.
    let mut by_signer: BTreeMap<String, (u64, ProviderNumber)> = BTreeMap::new();
    let candidates = [feed_id, ALL_FEEDS]
        .into_iter()
        .filter_map(|key| packages.get(key))
        .flatten();
    for package in candidates {
        if package.is_signature_valid == Some(false) {
            continue;
        }
        let Some(value) = package
            .data_points
            .iter()
            .find(|p| p.data_feed_id == feed_id)
            .and_then(|p| p.value.clone())
        else {
            continue;
        };
        let signer = package.signer_address.to_ascii_lowercase();
        let newer = by_signer
            .get(&signer)
            .is_none_or(|(t, _)| *t < package.timestamp_milliseconds);
        if newer {
            by_signer.insert(signer, (package.timestamp_milliseconds, value));
        }
    }
    if by_signer.len() < MIN_SIGNERS {
        return Err(MedianError::TooFewSigners {
            feed_id: feed_id.to_owned(),
            signers: by_signer.len(),
        });
    }
    let mut parsed: Vec<Decimal> = Vec::with_capacity(by_signer.len());
    for (_, value) in by_signer.values() {
        parsed.push(
            Decimal::parse(value.as_str()).map_err(|source| MedianError::NotADecimal {
                feed_id: feed_id.to_owned(),
                source,
            })?,
        );
    }
    let mut overflow = false;
    parsed.sort_by(|a, b| {
        a.checked_cmp(*b).unwrap_or_else(|| {
            overflow = true;
            std::cmp::Ordering::Equal
        })
    });
    let n = parsed.len();
    let median = if n % 2 == 1 {
        Some(parsed[n / 2])
    } else {
        parsed[n / 2 - 1].midpoint(parsed[n / 2])
    };
    let median = median
        .filter(|_| !overflow)
        .ok_or_else(|| MedianError::TooLarge {
            feed_id: feed_id.to_owned(),
        })?;
    let oldest_timestamp_ms = by_signer.values().map(|(t, _)| *t).min().unwrap_or(0);
    Ok(RedstonePrice {
        feed_id: feed_id.to_owned(),
        median: median.to_string(),
        values: by_signer.into_iter().map(|(s, (_, v))| (s, v)).collect(),
        oldest_timestamp_ms,
    })
}
