//! DefiLlama: the yields API (`/pools`, `/chart/{pool}`) and the coins API
//! (`/prices/current/{coins}`, `/chart/{coins}`).

use std::collections::BTreeMap;

use alloy::primitives::Address;
use chain_read::Chain;
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use crate::error::SourceError;
use crate::http::{EndpointCache, Reply, Upstream, UpstreamOptions, endpoint_cache};
use crate::limiter::Budget;
use crate::types::{ProviderNumber, Sourced, lenient_number, lenient_strings};

mod directory;

pub use directory::{PoolLookupError, find_pool, is_pool_id, meta_fee_ppm};

/// Provider name of the yields API in answers and errors.
pub const YIELDS_PROVIDER: &str = "DefiLlama yields";
/// Provider name of the coins API in answers and errors.
pub const COINS_PROVIDER: &str = "DefiLlama coins";

/// DefiLlama publishes no limit for its free API (<https://defillama.com/docs/api> names none);
/// this client keeps to one call per second on average, well below the 300 calls a minute
/// third parties report as tolerated. `/pools` is one large document cached whole, so the
/// pool-volume fallback costs one call per cache period.
pub const BUDGET: Budget = Budget::per(60, 60);

/// The chain's name in the yields API's `chain` field (`utils.formatChain` in
/// DefiLlama/yield-server).
pub fn yields_chain(chain: Chain) -> &'static str {
    match chain {
        Chain::Base => "Base",
        Chain::Ethereum => "Ethereum",
        Chain::Arbitrum => "Arbitrum",
        Chain::Optimism => "Optimism",
        Chain::Polygon => "Polygon",
    }
}

/// The chain's key in the coins API (`{key}:{address}`).
pub fn coins_chain(chain: Chain) -> &'static str {
    match chain {
        Chain::Base => "base",
        Chain::Ethereum => "ethereum",
        Chain::Arbitrum => "arbitrum",
        Chain::Optimism => "optimism",
        Chain::Polygon => "polygon",
    }
}

/// DefiLlama's namespace for pool ids (`src/utils/poolId.js` in DefiLlama/yield-server).
const POOL_ID_NAMESPACE: [u8; 16] = [
    0xd2, 0xbb, 0x36, 0xdb, 0x2d, 0x93, 0x4a, 0x4e, 0x80, 0x69, 0x60, 0xd1, 0xbd, 0xdf, 0x60, 0x36,
];

/// The `pool` id DefiLlama mints for an adaptor pool key it sees for the first time: the RFC
/// 4122 UUIDv5 of the key in DefiLlama's namespace. The Uniswap V2/V3 and Aerodrome adaptors
/// use the lowercase pool address as the key, so a pool listed after DefiLlama moved to
/// deterministic ids has `pool == defillama_pool_id(&format!("{address:#x}"))`; older pools
/// keep random ids that only the address field `pool_old` of the paid API ties to an address.
pub fn defillama_pool_id(key: &str) -> String {
    let mut hasher = Sha1::new();
    hasher.update(POOL_ID_NAMESPACE);
    hasher.update(key.as_bytes());
    let hash = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&hash[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x50;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// One row of `GET /pools`, every published column kept (APYs are in percent).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct YieldPool {
    /// Chain display name (`"Ethereum"`, `"Base"`).
    pub chain: String,
    /// Project slug (`"uniswap-v3"`, `"aave-v3"`).
    pub project: String,
    /// Symbol (`"WETH-USDC"`).
    pub symbol: String,
    /// DefiLlama's pool id (a UUID), the key of `/chart/{pool}`.
    pub pool: String,
    /// The adaptor's own pool key (the pool address for DEX adaptors) when the answer has it
    /// (`/poolsPro`, stand-ins); absent from the free `/pools`.
    #[serde(rename = "pool_old", skip_serializing_if = "Option::is_none")]
    pub pool_old: Option<String>,
    /// TVL in USD.
    #[serde(rename = "tvlUsd", deserialize_with = "lenient_number")]
    pub tvl_usd: Option<ProviderNumber>,
    /// Base APY, percent.
    #[serde(rename = "apyBase", deserialize_with = "lenient_number")]
    pub apy_base: Option<ProviderNumber>,
    /// Reward APY, percent.
    #[serde(rename = "apyReward", deserialize_with = "lenient_number")]
    pub apy_reward: Option<ProviderNumber>,
    /// Total APY, percent.
    #[serde(deserialize_with = "lenient_number")]
    pub apy: Option<ProviderNumber>,
    /// Reward token addresses.
    #[serde(rename = "rewardTokens", deserialize_with = "lenient_strings")]
    pub reward_tokens: Option<Vec<String>>,
    /// APY change over 1 day, percentage points.
    #[serde(rename = "apyPct1D", deserialize_with = "lenient_number")]
    pub apy_pct_1d: Option<ProviderNumber>,
    /// APY change over 7 days.
    #[serde(rename = "apyPct7D", deserialize_with = "lenient_number")]
    pub apy_pct_7d: Option<ProviderNumber>,
    /// APY change over 30 days.
    #[serde(rename = "apyPct30D", deserialize_with = "lenient_number")]
    pub apy_pct_30d: Option<ProviderNumber>,
    /// Whether DefiLlama classes the pool as stablecoin-only.
    pub stablecoin: Option<bool>,
    /// `"yes"` / `"no"`.
    #[serde(rename = "ilRisk")]
    pub il_risk: Option<String>,
    /// `"single"` / `"multi"`.
    pub exposure: Option<String>,
    /// DefiLlama's APY-direction prediction object, as given.
    pub predictions: Option<serde_json::Value>,
    /// Free text such as the fee tier (`"0.05%"`).
    #[serde(rename = "poolMeta")]
    pub pool_meta: Option<String>,
    /// Mean APY statistic.
    #[serde(deserialize_with = "lenient_number")]
    pub mu: Option<ProviderNumber>,
    /// APY standard deviation statistic.
    #[serde(deserialize_with = "lenient_number")]
    pub sigma: Option<ProviderNumber>,
    /// Number of samples behind `mu`/`sigma`.
    #[serde(deserialize_with = "lenient_number")]
    pub count: Option<ProviderNumber>,
    /// Whether DefiLlama flags the APY as an outlier.
    pub outlier: Option<bool>,
    /// Underlying token addresses.
    #[serde(rename = "underlyingTokens", deserialize_with = "lenient_strings")]
    pub underlying_tokens: Option<Vec<String>>,
    /// 7-day impermanent loss, percent.
    #[serde(rename = "il7d", deserialize_with = "lenient_number")]
    pub il_7d: Option<ProviderNumber>,
    /// 7-day base APY, percent.
    #[serde(rename = "apyBase7d", deserialize_with = "lenient_number")]
    pub apy_base_7d: Option<ProviderNumber>,
    /// 30-day mean APY, percent.
    #[serde(rename = "apyMean30d", deserialize_with = "lenient_number")]
    pub apy_mean_30d: Option<ProviderNumber>,
    /// USD volume over one day, for adaptors that report it.
    #[serde(rename = "volumeUsd1d", deserialize_with = "lenient_number")]
    pub volume_usd_1d: Option<ProviderNumber>,
    /// USD volume over seven days.
    #[serde(rename = "volumeUsd7d", deserialize_with = "lenient_number")]
    pub volume_usd_7d: Option<ProviderNumber>,
    /// Base APY since inception, percent.
    #[serde(rename = "apyBaseInception", deserialize_with = "lenient_number")]
    pub apy_base_inception: Option<ProviderNumber>,
}

impl YieldPool {
    /// Whether the row is the pool at `address` on `chain`: the chain name equal, and the
    /// address equal to `pool_old` or `pool` (case-insensitive, with or without a `-{chain}`
    /// suffix some adaptors add), or `pool` equal to [`defillama_pool_id`] of the lowercase
    /// address.
    pub fn is_pool(&self, chain: Chain, address: Address) -> bool {
        self.is_pool_key(chain, &format!("{address:#x}"))
    }

    /// [`is_pool`](Self::is_pool) for an adaptor's pool key given as lowercase hex text: an
    /// address, or a Balancer V2 pool id (the `balancer-v2` adaptor keys its pools by id).
    pub fn is_pool_key(&self, chain: Chain, key: &str) -> bool {
        if self.chain != yields_chain(chain) {
            return false;
        }
        let key = key.to_ascii_lowercase();
        let suffixed = format!("{key}-{}", coins_chain(chain));
        let names_it =
            |id: &str| id.eq_ignore_ascii_case(&key) || id.eq_ignore_ascii_case(&suffixed);
        self.pool_old.as_deref().is_some_and(names_it)
            || names_it(&self.pool)
            || self.pool == defillama_pool_id(&key)
    }
}

/// One day of `GET /chart/{pool}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartPoint {
    /// Unix seconds of the day's last sample.
    pub timestamp: u64,
    /// TVL in USD.
    pub tvl_usd: Option<ProviderNumber>,
    /// Total APY, percent.
    pub apy: Option<ProviderNumber>,
    /// Base APY, percent.
    pub apy_base: Option<ProviderNumber>,
    /// Reward APY, percent.
    pub apy_reward: Option<ProviderNumber>,
    /// 7-day impermanent loss, percent.
    pub il_7d: Option<ProviderNumber>,
    /// 7-day base APY, percent.
    pub apy_base_7d: Option<ProviderNumber>,
}

/// One coin of `GET /prices/current/{coins}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoinPrice {
    /// USD price.
    #[serde(deserialize_with = "lenient_number")]
    pub price: Option<ProviderNumber>,
    /// Token symbol.
    #[serde(default)]
    pub symbol: Option<String>,
    /// Token decimals (absent for `coingecko:` keys).
    #[serde(default)]
    pub decimals: Option<u8>,
    /// Unix seconds of the price.
    pub timestamp: u64,
    /// DefiLlama's confidence, 0 to 1.
    #[serde(default, deserialize_with = "lenient_number")]
    pub confidence: Option<ProviderNumber>,
}

/// The yields client.
#[derive(Debug)]
pub struct DefiLlamaYields {
    upstream: Upstream,
    pools: EndpointCache<Vec<YieldPool>>,
    charts: EndpointCache<Vec<ChartPoint>>,
}

/// One point of a coin's `GET /chart/{coins}` series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoinChartPoint {
    /// Unix seconds.
    pub timestamp: u64,
    /// USD price; `None` where the point has no number.
    #[serde(default, deserialize_with = "lenient_number")]
    pub price: Option<ProviderNumber>,
}

/// One coin of `GET /chart/{coins}`: its series, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoinChart {
    /// Token symbol.
    #[serde(default)]
    pub symbol: Option<String>,
    /// Token decimals (absent for `coingecko:` keys).
    #[serde(default)]
    pub decimals: Option<u8>,
    /// DefiLlama's confidence, 0 to 1.
    #[serde(default, deserialize_with = "lenient_number")]
    pub confidence: Option<ProviderNumber>,
    /// The points, sorted by time.
    #[serde(default)]
    pub prices: Vec<CoinChartPoint>,
}

/// What `GET /chart/{coins}` is asked for: `start` (Unix seconds), `span` points, one per
/// `period` (DefiLlama's duration text: `1d`, `4h`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartWindow {
    /// First point's time, Unix seconds.
    pub start: u64,
    /// Number of points.
    pub span: u32,
    /// Spacing (`1d`, `4h`, `30m`).
    pub period: String,
}

/// The coins client.
#[derive(Debug)]
pub struct DefiLlamaCoins {
    upstream: Upstream,
    prices: EndpointCache<BTreeMap<String, CoinPrice>>,
    charts: EndpointCache<BTreeMap<String, CoinChart>>,
}

#[derive(Deserialize)]
struct Wrapped<T> {
    #[serde(default)]
    status: Option<String>,
    data: T,
}

fn unwrap_success<T: serde::de::DeserializeOwned>(reply: &Reply) -> Result<T, SourceError> {
    reply.require_success()?;
    let wrapped: Wrapped<T> = reply.json()?;
    match wrapped.status.as_deref() {
        None | Some("success") => Ok(wrapped.data),
        Some(other) => Err(reply.unusable(format!("status is {other:?}, not \"success\""))),
    }
}

impl DefiLlamaYields {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: YIELDS_PROVIDER,
                base_url: &config.defillama_yields_url,
                budget: BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: Default::default(),
            })?,
            pools: endpoint_cache(config.cache_ttl_seconds),
            charts: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/pools`: every pool (`{status:"success", data:[…]}`). The answer has no
    /// timestamp of its own, so `as_of` is when it arrived.
    pub async fn pools(&self) -> Result<Sourced<Vec<YieldPool>>, SourceError> {
        let fetched = self
            .upstream
            .get(&self.pools, "/pools", unwrap_success::<Vec<YieldPool>>)
            .await?;
        Ok(Sourced::from_fetched(fetched, None))
    }

    /// `GET {base}/chart/{pool}`: one point per day, oldest first; `as_of` is the last point's
    /// time. An id that is not a UUID is refused before asking (DefiLlama answers 400).
    pub async fn chart(&self, pool: &str) -> Result<Sourced<Vec<ChartPoint>>, SourceError> {
        let path = format!("/chart/{pool}");
        if !is_uuid(pool) {
            return Err(SourceError::NotFound {
                provider: YIELDS_PROVIDER,
                url: self.upstream.public_url(&path),
                message: format!("{pool:?} is not a DefiLlama pool id (a UUID)"),
            });
        }
        let fetched = self.upstream.get(&self.charts, &path, parse_chart).await?;
        let last = fetched.value.iter().map(|p| p.timestamp).max();
        Ok(Sourced::from_fetched(fetched, last))
    }
}

fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

#[derive(Deserialize)]
struct RawChartPoint {
    timestamp: String,
    #[serde(rename = "tvlUsd", default, deserialize_with = "lenient_number")]
    tvl_usd: Option<ProviderNumber>,
    #[serde(default, deserialize_with = "lenient_number")]
    apy: Option<ProviderNumber>,
    #[serde(rename = "apyBase", default, deserialize_with = "lenient_number")]
    apy_base: Option<ProviderNumber>,
    #[serde(rename = "apyReward", default, deserialize_with = "lenient_number")]
    apy_reward: Option<ProviderNumber>,
    #[serde(rename = "il7d", default, deserialize_with = "lenient_number")]
    il_7d: Option<ProviderNumber>,
    #[serde(rename = "apyBase7d", default, deserialize_with = "lenient_number")]
    apy_base_7d: Option<ProviderNumber>,
}

fn parse_chart(reply: &Reply) -> Result<Vec<ChartPoint>, SourceError> {
    let raw: Vec<RawChartPoint> = unwrap_success(reply)?;
    raw.into_iter()
        .map(|p| {
            let timestamp = chrono::DateTime::parse_from_rfc3339(&p.timestamp)
                .ok()
                .and_then(|t| u64::try_from(t.timestamp()).ok())
                .ok_or_else(|| {
                    reply.unusable(format!("timestamp {:?} is not RFC 3339", p.timestamp))
                })?;
            Ok(ChartPoint {
                timestamp,
                tvl_usd: p.tvl_usd,
                apy: p.apy,
                apy_base: p.apy_base,
                apy_reward: p.apy_reward,
                il_7d: p.il_7d,
                apy_base_7d: p.apy_base_7d,
            })
        })
        .collect()
}

impl DefiLlamaCoins {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: COINS_PROVIDER,
                base_url: &config.defillama_coins_url,
                budget: BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: Default::default(),
            })?,
            prices: endpoint_cache(config.cache_ttl_seconds),
            charts: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/chart/{chain:address,…}?start=&span=&period=`: each coin's price series
    /// (`{"coins":{key:{symbol, decimals, confidence, prices:[{timestamp, price}]}}}`), keyed
    /// as asked in lowercase, points sorted by time. Coins DefiLlama does not price are absent
    /// from the map; `as_of` is the earliest of the coins' last points.
    pub async fn chart(
        &self,
        tokens: &[(Chain, Address)],
        window: &ChartWindow,
    ) -> Result<Sourced<BTreeMap<String, CoinChart>>, SourceError> {
        let keys: Vec<String> = tokens
            .iter()
            .map(|(chain, address)| format!("{}:{address:#x}", coins_chain(*chain)))
            .collect();
        let period: String = window
            .period
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let path = format!(
            "/chart/{}?start={}&span={}&period={period}",
            keys.join(","),
            window.start,
            window.span
        );
        let fetched = self
            .upstream
            .get(&self.charts, &path, parse_coin_charts)
            .await?;
        let last = fetched
            .value
            .values()
            .filter_map(|c| c.prices.last().map(|p| p.timestamp))
            .min();
        Ok(Sourced::from_fetched(fetched, last))
    }

    /// `GET {base}/prices/current/{chain:address,…}`: current USD prices keyed as asked
    /// (`"base:0x833…"`, lowercase addresses). Tokens DefiLlama does not price are absent from
    /// the map; `as_of` is the oldest price's timestamp.
    pub async fn current_prices(
        &self,
        tokens: &[(Chain, Address)],
    ) -> Result<Sourced<BTreeMap<String, CoinPrice>>, SourceError> {
        let keys: Vec<String> = tokens
            .iter()
            .map(|(chain, address)| format!("{}:{address:#x}", coins_chain(*chain)))
            .collect();
        let path = format!("/prices/current/{}", keys.join(","));
        let fetched = self.upstream.get(&self.prices, &path, parse_prices).await?;
        let oldest = fetched.value.values().map(|c| c.timestamp).min();
        Ok(Sourced::from_fetched(fetched, oldest))
    }
}

#[derive(Deserialize)]
struct CoinsDoc {
    coins: BTreeMap<String, CoinPrice>,
}

fn parse_prices(reply: &Reply) -> Result<BTreeMap<String, CoinPrice>, SourceError> {
    reply.require_success()?;
    let doc: CoinsDoc = reply.json()?;
    // DefiLlama echoes keys in the case asked, but lower-casing makes lookups independent of it.
    Ok(doc
        .coins
        .into_iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect())
}

#[derive(Deserialize)]
struct CoinChartsDoc {
    coins: BTreeMap<String, CoinChart>,
}

fn parse_coin_charts(reply: &Reply) -> Result<BTreeMap<String, CoinChart>, SourceError> {
    reply.require_success()?;
    let doc: CoinChartsDoc = reply.json()?;
    Ok(doc
        .coins
        .into_iter()
        .map(|(k, mut v)| {
            v.prices.sort_by_key(|p| p.timestamp);
            (k.to_ascii_lowercase(), v)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_id_matches_defillamas_reference_vector() {
        // src/utils/poolId.js asserts this pair on load.
        assert_eq!(
            defillama_pool_id("aave-v3-WETH"),
            "7e0520c4-e3a0-54c5-b3de-ed95d80b7189"
        );
    }

    #[test]
    fn uuid_shape() {
        assert!(is_uuid("7e0520c4-e3a0-54c5-b3de-ed95d80b7189"));
        assert!(!is_uuid("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640"));
        assert!(!is_uuid("../pools"));
    }
}
