//! GeckoTerminal public API v2: one pool, and its hourly OHLCV.

use alloy::primitives::Address;
use chain_read::Chain;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::SourceError;
use crate::http::{EndpointCache, Reply, Upstream, UpstreamOptions, endpoint_cache, header};
use crate::limiter::Budget;
use crate::types::{ProviderNumber, Sourced, lenient_number, number_text};

/// Provider name in answers and errors.
pub const PROVIDER: &str = "GeckoTerminal";

/// The published public limit: 30 calls per minute
/// (<https://apiguide.geckoterminal.com/faq>).
pub const BUDGET: Budget = Budget::per(30, 60);

/// The API version GeckoTerminal asks clients to pin through `Accept`
/// (<https://www.geckoterminal.com/dex-api>, "Versioning").
pub const ACCEPT: &str = "application/json;version=20230302";

/// GeckoTerminal's network id of a chain.
pub fn network(chain: Chain) -> &'static str {
    match chain {
        Chain::Base => "base",
        Chain::Ethereum => "eth",
        Chain::Arbitrum => "arbitrum",
        Chain::Optimism => "optimism",
        Chain::Polygon => "polygon_pos",
    }
}

/// A pool as GeckoTerminal lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GtPool {
    /// GeckoTerminal's id, `{network}_{address}`.
    pub id: String,
    /// The pool address as GeckoTerminal prints it.
    pub address: String,
    /// Display name (`"WETH / USDC 0.05%"`).
    pub name: Option<String>,
    /// `volume_usd.m5`, `.h1`, `.h6`, `.h24`, as printed.
    pub volume_usd_m5: Option<ProviderNumber>,
    /// See [`Self::volume_usd_m5`].
    pub volume_usd_h1: Option<ProviderNumber>,
    /// See [`Self::volume_usd_m5`].
    pub volume_usd_h6: Option<ProviderNumber>,
    /// USD volume of the last 24 hours.
    pub volume_usd_h24: Option<ProviderNumber>,
    /// Liquidity in USD.
    pub reserve_in_usd: Option<ProviderNumber>,
    /// Base token USD price.
    pub base_token_price_usd: Option<ProviderNumber>,
    /// Quote token USD price.
    pub quote_token_price_usd: Option<ProviderNumber>,
    /// `relationships.dex.data.id` (`"uniswap_v3"`, `"aerodrome-base"`).
    pub dex_id: Option<String>,
    /// `relationships.base_token.data.id` (`{network}_{address}`).
    pub base_token_id: Option<String>,
    /// `relationships.quote_token.data.id`.
    pub quote_token_id: Option<String>,
}

/// The answer about one pool: listed, or GeckoTerminal's 404 (a pool it does not track).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GtLookup {
    /// The pool, checked to be the one asked (address and network).
    Listed(Box<GtPool>),
    /// 404: GeckoTerminal does not list the pool on that network; its error title.
    NotListed(String),
}

/// One OHLCV candle; prices in USD, volume in USD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candle {
    /// Start of the period, unix seconds (the start of a UTC hour for hourly candles).
    pub timestamp: u64,
    /// Open.
    pub open: ProviderNumber,
    /// High.
    pub high: ProviderNumber,
    /// Low.
    pub low: ProviderNumber,
    /// Close.
    pub close: ProviderNumber,
    /// Volume in USD over the period.
    pub volume_usd: ProviderNumber,
}

/// Candles of a pool, or GeckoTerminal's 404.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GtCandles {
    /// Candles as listed (GeckoTerminal returns newest first; the order is kept).
    Listed(Vec<Candle>),
    /// 404: the pool is not listed; its error title.
    NotListed(String),
}

/// The GeckoTerminal client.
#[derive(Debug)]
pub struct GeckoTerminal {
    upstream: Upstream,
    pools: EndpointCache<GtLookup>,
    candles: EndpointCache<GtCandles>,
}

impl GeckoTerminal {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: PROVIDER,
                base_url: &config.geckoterminal_url,
                budget: BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: header("accept", ACCEPT),
            })?,
            pools: endpoint_cache(config.cache_ttl_seconds),
            candles: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// The client-side budget (GeckoTerminal's published limit).
    pub fn budget(&self) -> Budget {
        self.upstream.budget()
    }

    /// `GET {base}/networks/{network}/pools/{address}`. A 200 for another pool or network than
    /// the one asked is [`SourceError::Unusable`], never a match.
    pub async fn pool(
        &self,
        chain: Chain,
        pool: Address,
    ) -> Result<Sourced<GtLookup>, SourceError> {
        let network = network(chain);
        let path = format!("/networks/{network}/pools/{pool:#x}");
        let fetched = self
            .upstream
            .get(&self.pools, &path, |reply| parse_pool(reply, network, pool))
            .await?;
        Ok(Sourced::from_fetched(fetched, None))
    }

    /// `GET {base}/networks/{network}/pools/{address}/ohlcv/hour?aggregate=1&limit=168&currency=usd`:
    /// the newest 168 hourly candles in USD (GeckoTerminal allows up to 1000), enough for a
    /// rolling 7-day sum (newest first; an hour may have no candle).
    pub async fn hourly_candles(
        &self,
        chain: Chain,
        pool: Address,
    ) -> Result<Sourced<GtCandles>, SourceError> {
        let network = network(chain);
        let path = format!(
            "/networks/{network}/pools/{pool:#x}/ohlcv/hour?aggregate=1&limit=168&currency=usd"
        );
        let fetched = self
            .upstream
            .get(&self.candles, &path, parse_candles)
            .await?;
        Ok(Sourced::from_fetched(fetched, None))
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default)]
    errors: Vec<ErrorItem>,
}

#[derive(Deserialize)]
struct ErrorItem {
    #[serde(default)]
    title: Option<String>,
}

/// The 404 body's first title (`{"errors":[{"status":"404","title":"Not Found"}]}`), or the
/// status when the body says nothing usable.
fn not_listed_title(reply: &Reply) -> String {
    serde_json::from_slice::<ErrorBody>(&reply.body)
        .ok()
        .and_then(|b| b.errors.into_iter().find_map(|e| e.title))
        .unwrap_or_else(|| "HTTP 404".into())
}

#[derive(Deserialize)]
struct PoolDoc {
    data: PoolData,
}

#[derive(Deserialize)]
struct PoolData {
    #[serde(default)]
    id: Option<String>,
    attributes: PoolAttributes,
    #[serde(default)]
    relationships: Option<Relationships>,
}

#[derive(Deserialize)]
struct PoolAttributes {
    address: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    volume_usd: Option<VolumeUsd>,
    #[serde(default, deserialize_with = "lenient_number")]
    reserve_in_usd: Option<ProviderNumber>,
    #[serde(default, deserialize_with = "lenient_number")]
    base_token_price_usd: Option<ProviderNumber>,
    #[serde(default, deserialize_with = "lenient_number")]
    quote_token_price_usd: Option<ProviderNumber>,
}

#[derive(Deserialize)]
struct VolumeUsd {
    #[serde(default, deserialize_with = "lenient_number")]
    m5: Option<ProviderNumber>,
    #[serde(default, deserialize_with = "lenient_number")]
    h1: Option<ProviderNumber>,
    #[serde(default, deserialize_with = "lenient_number")]
    h6: Option<ProviderNumber>,
    #[serde(default, deserialize_with = "lenient_number")]
    h24: Option<ProviderNumber>,
}

#[derive(Deserialize, Default)]
struct Relationships {
    #[serde(default)]
    base_token: Option<Related>,
    #[serde(default)]
    quote_token: Option<Related>,
    #[serde(default)]
    dex: Option<Related>,
}

#[derive(Deserialize)]
struct Related {
    data: Option<RelatedData>,
}

#[derive(Deserialize)]
struct RelatedData {
    id: String,
}

fn related_id(related: Option<Related>) -> Option<String> {
    related.and_then(|r| r.data).map(|d| d.id)
}

fn parse_pool(reply: &Reply, network: &str, asked: Address) -> Result<GtLookup, SourceError> {
    if reply.not_found() {
        return Ok(GtLookup::NotListed(not_listed_title(reply)));
    }
    reply.require_success()?;
    let doc: PoolDoc = reply.json()?;
    let PoolData {
        id,
        attributes,
        relationships,
    } = doc.data;
    let asked_text = format!("{asked:#x}");
    if !attributes.address.eq_ignore_ascii_case(&asked_text) {
        return Err(reply.unusable(format!(
            "answered for pool {} instead of {asked_text}",
            attributes.address
        )));
    }
    let id = id.unwrap_or_default();
    // The id is `{network}_{address}`: a different prefix is the same address elsewhere.
    if !id.is_empty() && !id.starts_with(&format!("{network}_")) {
        return Err(reply.unusable(format!(
            "answered pool id {id}, which is not on network {network}"
        )));
    }
    let volume = attributes.volume_usd;
    let relationships = relationships.unwrap_or_default();
    Ok(GtLookup::Listed(Box::new(GtPool {
        id,
        address: attributes.address,
        name: attributes.name,
        volume_usd_m5: volume.as_ref().and_then(|v| v.m5.clone()),
        volume_usd_h1: volume.as_ref().and_then(|v| v.h1.clone()),
        volume_usd_h6: volume.as_ref().and_then(|v| v.h6.clone()),
        volume_usd_h24: volume.and_then(|v| v.h24),
        reserve_in_usd: attributes.reserve_in_usd,
        base_token_price_usd: attributes.base_token_price_usd,
        quote_token_price_usd: attributes.quote_token_price_usd,
        dex_id: related_id(relationships.dex),
        base_token_id: related_id(relationships.base_token),
        quote_token_id: related_id(relationships.quote_token),
    })))
}

#[derive(Deserialize)]
struct OhlcvDoc {
    data: OhlcvData,
}

#[derive(Deserialize)]
struct OhlcvData {
    attributes: OhlcvAttributes,
}

#[derive(Deserialize)]
struct OhlcvAttributes {
    ohlcv_list: Vec<Vec<Box<RawValue>>>,
}

fn parse_candles(reply: &Reply) -> Result<GtCandles, SourceError> {
    if reply.not_found() {
        return Ok(GtCandles::NotListed(not_listed_title(reply)));
    }
    reply.require_success()?;
    let doc: OhlcvDoc = reply.json()?;
    doc.data
        .attributes
        .ohlcv_list
        .iter()
        .map(|row| {
            let field = |i: usize| {
                row.get(i)
                    .and_then(|raw| number_text(raw.get()))
                    .map(ProviderNumber::new)
                    .ok_or_else(|| {
                        reply.unusable(format!("a candle has no number at position {i}"))
                    })
            };
            let timestamp = field(0)?
                .as_str()
                .parse::<u64>()
                .map_err(|_| reply.unusable("a candle's timestamp is not whole unix seconds"))?;
            Ok(Candle {
                timestamp,
                open: field(1)?,
                high: field(2)?,
                low: field(3)?,
                close: field(4)?,
                volume_usd: field(5)?,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(GtCandles::Listed)
}
