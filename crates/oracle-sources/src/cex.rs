//! Public tickers of three exchanges: Coinbase Exchange, Kraken, Binance (market-data host).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::SourceError;
use crate::http::{EndpointCache, Reply, Upstream, UpstreamOptions, endpoint_cache};
use crate::limiter::Budget;
use crate::types::{ProviderNumber, Sourced};

/// Provider name of Coinbase Exchange.
pub const COINBASE: &str = "Coinbase Exchange";
/// Provider name of Kraken.
pub const KRAKEN: &str = "Kraken";
/// Provider name of Binance.
pub const BINANCE: &str = "Binance";

/// Coinbase Exchange public endpoints: 10 requests per second per IP, bursts to 15
/// (<https://docs.cdp.coinbase.com/exchange/rest-api/rate-limits>).
pub const COINBASE_BUDGET: Budget = Budget::per(10, 1);
/// Kraken public endpoints: about one call per second per IP
/// (<https://support.kraken.com/articles/206548367-what-are-the-api-rate-limits>).
pub const KRAKEN_BUDGET: Budget = Budget::per(1, 1);
/// Binance: 6000 request weight per minute per IP, a one-symbol `bookTicker` weighs 2
/// (<https://developers.binance.com/docs/binance-spot-api-docs/rest-api/limits>); 600 calls a
/// minute is a fifth of what that allows, leaving room for other callers on the same IP.
pub const BINANCE_BUDGET: Budget = Budget::per(600, 60);

fn symbol_ok(symbol: &str) -> bool {
    !symbol.is_empty()
        && symbol
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn refuse_symbol(provider: &'static str, url: String, symbol: &str) -> SourceError {
    SourceError::NotFound {
        provider,
        url,
        message: format!("{symbol:?} is not a market symbol (letters, digits, '-', '_')"),
    }
}

/// Coinbase `GET /products/{product}/ticker`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoinbaseTicker {
    /// Best ask.
    pub ask: ProviderNumber,
    /// Best bid.
    pub bid: ProviderNumber,
    /// Last trade price.
    pub price: ProviderNumber,
    /// Last trade size.
    #[serde(default)]
    pub size: Option<ProviderNumber>,
    /// 24 h volume in base units.
    #[serde(default)]
    pub volume: Option<ProviderNumber>,
    /// Last trade id.
    #[serde(default)]
    pub trade_id: Option<u64>,
    /// Time of the last trade (RFC 3339).
    pub time: String,
}

/// The Coinbase Exchange client.
#[derive(Debug)]
pub struct Coinbase {
    upstream: Upstream,
    tickers: EndpointCache<CoinbaseTicker>,
}

impl Coinbase {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: COINBASE,
                base_url: &config.coinbase_url,
                budget: COINBASE_BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: Default::default(),
            })?,
            tickers: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/products/{product}/ticker` (`"ETH-USD"`); `as_of` is the last trade's time.
    pub async fn ticker(&self, product: &str) -> Result<Sourced<CoinbaseTicker>, SourceError> {
        let path = format!("/products/{product}/ticker");
        if !symbol_ok(product) {
            return Err(refuse_symbol(
                COINBASE,
                self.upstream.public_url(&path),
                product,
            ));
        }
        let fetched = self
            .upstream
            .get(&self.tickers, &path, |reply| {
                if !reply.success() {
                    // Coinbase says {"message":"NotFound"} for an unknown product.
                    #[derive(Deserialize)]
                    struct Message {
                        message: String,
                    }
                    if let Ok(m) = serde_json::from_slice::<Message>(&reply.body) {
                        return Err(if reply.not_found() {
                            reply.not_found_error(m.message)
                        } else {
                            reply.status_error()
                        });
                    }
                    reply.require_success()?;
                }
                let ticker: CoinbaseTicker = reply.json()?;
                chrono::DateTime::parse_from_rfc3339(&ticker.time).map_err(|_| {
                    reply.unusable(format!("time {:?} is not RFC 3339", ticker.time))
                })?;
                Ok(ticker)
            })
            .await?;
        let time = chrono::DateTime::parse_from_rfc3339(&fetched.value.time)
            .ok()
            .and_then(|t| u64::try_from(t.timestamp()).ok());
        Ok(Sourced::from_fetched(fetched, time))
    }
}

/// Kraken `GET /0/public/Ticker?pair=…`, one pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KrakenTicker {
    /// The result key Kraken answered with (`"XETHZUSD"`), which can differ from the pair asked.
    pub pair: String,
    /// Best ask price (`a[0]`).
    pub ask: ProviderNumber,
    /// Best bid price (`b[0]`).
    pub bid: ProviderNumber,
    /// Last trade price (`c[0]`).
    pub last: ProviderNumber,
    /// Volume today and over the last 24 hours (`v`).
    pub volume: [ProviderNumber; 2],
    /// Volume-weighted average price today and over 24 hours (`p`).
    pub vwap: [ProviderNumber; 2],
}

#[derive(Deserialize)]
struct KrakenDoc {
    #[serde(default)]
    error: Vec<String>,
    #[serde(default)]
    result: BTreeMap<String, KrakenRaw>,
}

#[derive(Deserialize)]
struct KrakenRaw {
    a: Vec<ProviderNumber>,
    b: Vec<ProviderNumber>,
    c: Vec<ProviderNumber>,
    v: [ProviderNumber; 2],
    p: [ProviderNumber; 2],
}

/// The Kraken client.
#[derive(Debug)]
pub struct Kraken {
    upstream: Upstream,
    tickers: EndpointCache<KrakenTicker>,
}

impl Kraken {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: KRAKEN,
                base_url: &config.kraken_url,
                budget: KRAKEN_BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: Default::default(),
            })?,
            tickers: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/0/public/Ticker?pair={pair}` (`"ETHUSD"`). Kraken answers errors inside a
    /// 200 (`{"error":["EQuery:Unknown asset pair"]}`); the single result key is read whatever
    /// its name. The ticker has no timestamp, so `as_of` is when it arrived.
    pub async fn ticker(&self, pair: &str) -> Result<Sourced<KrakenTicker>, SourceError> {
        let path = format!("/0/public/Ticker?pair={pair}");
        if !symbol_ok(pair) {
            return Err(refuse_symbol(KRAKEN, self.upstream.public_url(&path), pair));
        }
        let fetched = self
            .upstream
            .get(&self.tickers, &path, parse_kraken)
            .await?;
        Ok(Sourced::from_fetched(fetched, None))
    }
}

fn parse_kraken(reply: &Reply) -> Result<KrakenTicker, SourceError> {
    reply.require_success()?;
    let doc: KrakenDoc = reply.json()?;
    if !doc.error.is_empty() {
        let message = doc.error.join("; ");
        return Err(if message.contains("Unknown asset pair") {
            reply.not_found_error(message)
        } else {
            reply.unusable(format!("Kraken error: {message}"))
        });
    }
    let mut result = doc.result.into_iter();
    let (pair, raw) = match (result.next(), result.next()) {
        (Some(only), None) => only,
        (None, _) => return Err(reply.unusable("result is empty")),
        (Some(_), Some(_)) => return Err(reply.unusable("result holds more than one pair")),
    };
    let first = |list: Vec<ProviderNumber>, name: &str| {
        list.into_iter()
            .next()
            .ok_or_else(|| reply.unusable(format!("field {name} is empty")))
    };
    Ok(KrakenTicker {
        pair,
        ask: first(raw.a, "a")?,
        bid: first(raw.b, "b")?,
        last: first(raw.c, "c")?,
        volume: raw.v,
        vwap: raw.p,
    })
}

/// Binance `GET /api/v3/ticker/bookTicker?symbol=…`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BinanceBookTicker {
    /// Symbol (`"ETHUSDT"`).
    pub symbol: String,
    /// Best bid price.
    pub bid_price: ProviderNumber,
    /// Best bid quantity.
    pub bid_qty: ProviderNumber,
    /// Best ask price.
    pub ask_price: ProviderNumber,
    /// Best ask quantity.
    pub ask_qty: ProviderNumber,
}

/// The Binance client.
#[derive(Debug)]
pub struct Binance {
    upstream: Upstream,
    tickers: EndpointCache<BinanceBookTicker>,
}

impl Binance {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: BINANCE,
                base_url: &config.binance_url,
                budget: BINANCE_BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers: Default::default(),
            })?,
            tickers: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/api/v3/ticker/bookTicker?symbol={symbol}` (`"ETHUSDT"`: USDT, not USD).
    /// Binance answers an unknown symbol with 400 `{"code":-1121,"msg":"Invalid symbol."}`.
    /// No timestamp, so `as_of` is when it arrived.
    pub async fn book_ticker(
        &self,
        symbol: &str,
    ) -> Result<Sourced<BinanceBookTicker>, SourceError> {
        let path = format!("/api/v3/ticker/bookTicker?symbol={symbol}");
        if !symbol_ok(symbol) {
            return Err(refuse_symbol(
                BINANCE,
                self.upstream.public_url(&path),
                symbol,
            ));
        }
        let fetched = self
            .upstream
            .get(&self.tickers, &path, |reply| {
                if !reply.success() {
                    #[derive(Deserialize)]
                    struct Code {
                        code: i64,
                        msg: String,
                    }
                    if let Ok(c) = serde_json::from_slice::<Code>(&reply.body)
                        && c.code == -1121
                    {
                        return Err(reply.not_found_error(c.msg));
                    }
                    reply.require_success()?;
                }
                reply.json()
            })
            .await?;
        Ok(Sourced::from_fetched(fetched, None))
    }
}
