//! The off-chain stand-in: a local HTTP server that answers like GeckoTerminal, DefiLlama
//! (yields and coins), Coinbase, Kraken, Binance and Pyth Hermes, in their published response
//! formats, with data read from the devnet (its pools, tokens, Swap events and feeds). It is
//! for tests and the demo only; it is never a data source of the product.
//!
//! Paths (each source under its own prefix; [`sources_toml`] gives the `[sources]` section):
//!
//! | source | path on the stand-in |
//! |---|---|
//! | GeckoTerminal | `/geckoterminal/api/v2/networks/base/pools/{address}`, `…/{address}/ohlcv/{day,hour,minute}` |
//! | DefiLlama yields | `/defillama-yields/pools`, `/defillama-yields/chart/{uuid}`, `/defillama-yields/volume/{uuid}` |
//! | DefiLlama coins | `/defillama-coins/prices/current/{base:0x…,…}`, `/defillama-coins/chart/{base:0x…,…}?start=&span=&period=` |
//! | Coinbase Exchange | `/coinbase/products/{ETH-USD,…}/ticker` |
//! | Kraken | `/kraken/0/public/Ticker?pair=ETHUSD` |
//! | Binance | `/binance/api/v3/ticker/bookTicker?symbol=ETHUSDT`, `/binance/api/v3/ticker/price?symbol=…` |
//! | Pyth Hermes | `/pyth-hermes/v2/updates/price/latest?ids[]=…&parsed=true` |
//! | RedStone gateway | `/redstone/data-packages/latest/redstone-primary-prod` |
//!
//! The data is read once, when the stand-in starts; see the pricing rules in `data`: volumes
//! come from the devnet's own Swap events, USDC is 1 USD and other tokens are priced through
//! their deepest Uniswap V3 pool against USDC (or WETH) as of each swap. Time windows (5 min …
//! 7 days) end at the latest block's timestamp, not at the wall clock. CEX and Pyth prices are
//! the devnet feeds' last answers; RedStone's are deliberately off by
//! [`REDSTONE_OFFSET_BPS`] (a source that disagrees, for the cross-check), and Binance's are
//! USDT-quoted.
//!
//! **Clock offset.** The devnet's chain time lags the wall clock (its blocks are dated when it
//! was built), while clients set their windows by the wall clock. So the stand-in presents the
//! devnet's history as if it ended now: at spawn it takes `max(0, now − latest block time)`
//! rounded down to a whole hour ([`StandIn::clock_offset_seconds`]) and adds it to every time it
//! serves (candle starts, `pool_created_at`, DefiLlama chart and coin timestamps, Coinbase
//! `time`, Pyth publish times). Everything is computed in chain time; only served values shift.
//! Candles are bucketed in chain time and shifted by the offset rounded down to their bucket
//! (a whole day for day candles), so they stay aligned as GeckoTerminal's are.

mod cex;
mod data;
mod defillama;
mod geckoterminal;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::{Addresses, DevnetError};

pub use defillama::pool_uuid as defillama_pool_uuid;

/// One off-chain source the stand-in imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Source {
    /// GeckoTerminal API v2 (`/geckoterminal/api/v2`).
    GeckoTerminal,
    /// DefiLlama yields API (`/defillama-yields`).
    DefiLlamaYields,
    /// DefiLlama coins API (`/defillama-coins`).
    DefiLlamaCoins,
    /// Coinbase Exchange public API (`/coinbase`).
    Coinbase,
    /// Kraken public REST API (`/kraken`).
    Kraken,
    /// Binance spot market data API (`/binance`).
    Binance,
    /// Pyth Hermes (`/pyth-hermes`).
    PythHermes,
    /// RedStone oracle gateway (`/redstone`).
    Redstone,
}

impl Source {
    /// Every source served.
    pub const ALL: [Self; 8] = [
        Self::GeckoTerminal,
        Self::DefiLlamaYields,
        Self::DefiLlamaCoins,
        Self::Coinbase,
        Self::Kraken,
        Self::Binance,
        Self::PythHermes,
        Self::Redstone,
    ];

    /// The path prefix this source is served under.
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::GeckoTerminal => "/geckoterminal",
            Self::DefiLlamaYields => "/defillama-yields",
            Self::DefiLlamaCoins => "/defillama-coins",
            Self::Coinbase => "/coinbase",
            Self::Kraken => "/kraken",
            Self::Binance => "/binance",
            Self::PythHermes => "/pyth-hermes",
            Self::Redstone => "/redstone",
        }
    }

    /// The `[sources]` key of its base URL and the base URL's path on the stand-in.
    pub const fn config_key(self) -> (&'static str, &'static str) {
        match self {
            Self::GeckoTerminal => ("geckoterminal_url", "/geckoterminal/api/v2"),
            Self::DefiLlamaYields => ("defillama_yields_url", "/defillama-yields"),
            Self::DefiLlamaCoins => ("defillama_coins_url", "/defillama-coins"),
            Self::Coinbase => ("coinbase_url", "/coinbase"),
            Self::Kraken => ("kraken_url", "/kraken"),
            Self::Binance => ("binance_url", "/binance"),
            Self::PythHermes => ("pyth_hermes_url", "/pyth-hermes"),
            Self::Redstone => ("redstone_url", "/redstone"),
        }
    }

    fn of_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|source| {
            path.strip_prefix(source.prefix())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }
}

/// A failure the stand-in can be told to answer with, for end-to-end tests of a client's
/// error paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// The source is down: `503 Service Unavailable` with a short text body.
    Down,
    /// Rate limited: `429 Too Many Requests` with `Retry-After: 30` (seconds) and the
    /// provider's kind of body (see `fault_body`).
    RateLimited,
    /// `200` with `Content-Type: application/json` and the real document cut in half (invalid
    /// JSON).
    Malformed,
    /// `200` with `Content-Type: application/json` and an empty body.
    Empty,
    /// The real answer, sent after this delay (for timeouts and time budgets).
    Delay(Duration),
}

/// How far above the devnet feeds the stand-in's RedStone values are, bps.
pub const REDSTONE_OFFSET_BPS: u32 = 200;

/// `Retry-After` seconds sent with [`Fault::RateLimited`].
pub const RETRY_AFTER_SECONDS: u64 = 30;

#[derive(Debug, Default)]
struct Faults {
    all: Option<Fault>,
    by_source: BTreeMap<Source, Fault>,
}

#[derive(Debug)]
struct Shared {
    snapshot: data::Snapshot,
    /// Seconds added to every served time (a whole number of hours; see the module docs).
    clock_offset: u64,
    faults: Mutex<Faults>,
    requests: BTreeMap<Source, AtomicU64>,
}

impl Shared {
    /// A chain time as served (shifted by the clock offset).
    fn served(&self, chain_time: u64) -> u64 {
        chain_time.saturating_add(self.clock_offset)
    }

    /// The clock offset rounded down to a multiple of `bucket` seconds, for candles of that
    /// length: their starts then stay aligned (day candles at 00:00 UTC).
    fn offset_for_bucket(&self, bucket: u64) -> u64 {
        aligned_offset(self.clock_offset, bucket)
    }

    fn fault(&self, source: Source) -> Option<Fault> {
        let faults = self
            .faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        faults.by_source.get(&source).copied().or(faults.all)
    }
}

/// The running stand-in; it stops when dropped.
#[derive(Debug)]
pub struct StandIn {
    base_url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl StandIn {
    /// Reads the devnet at `rpc_url` (the pools, tokens and feeds `addresses` lists) and serves
    /// it on a free loopback port.
    pub async fn spawn(rpc_url: &str, addresses: &Addresses) -> Result<Self, DevnetError> {
        Self::spawn_on(rpc_url, addresses, 0).await
    }

    /// [`Self::spawn`] on `port` of 127.0.0.1 (0: a free one).
    pub async fn spawn_on(
        rpc_url: &str,
        addresses: &Addresses,
        port: u16,
    ) -> Result<Self, DevnetError> {
        let snapshot = data::read(rpc_url, addresses).await?;
        let clock_offset = clock_offset(unix_now(), snapshot.latest_timestamp);
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let shared = Arc::new(Shared {
            snapshot,
            clock_offset,
            faults: Mutex::new(Faults::default()),
            requests: Source::ALL
                .into_iter()
                .map(|source| (source, AtomicU64::new(0)))
                .collect(),
        });
        let app = router(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            base_url,
            shared,
            task,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The `[sources]` TOML section pointing every served source at the stand-in.
    pub fn sources_toml(&self) -> String {
        sources_toml(&self.base_url)
    }

    /// Makes every source answer with `fault` (`None`: answer normally). A fault set for one
    /// source with [`Self::set_source_fault`] takes precedence.
    pub fn set_fault(&self, fault: Option<Fault>) {
        self.faults().all = fault;
    }

    /// Makes one source answer with `fault` (`None`: as [`Self::set_fault`] says).
    pub fn set_source_fault(&self, source: Source, fault: Option<Fault>) {
        let mut faults = self.faults();
        match fault {
            Some(fault) => faults.by_source.insert(source, fault),
            None => faults.by_source.remove(&source),
        };
    }

    /// How many requests `source` has received (faulted ones included).
    pub fn requests(&self, source: Source) -> u64 {
        self.shared
            .requests
            .get(&source)
            .map_or(0, |count| count.load(Ordering::Relaxed))
    }

    /// The latest block the data was read at, and its timestamp (the end of every window), in
    /// chain time: add [`Self::clock_offset_seconds`] for the time the stand-in serves it as.
    pub fn as_of(&self) -> (u64, u64) {
        (
            self.shared.snapshot.latest_block,
            self.shared.snapshot.latest_timestamp,
        )
    }

    /// Seconds added to every time the stand-in serves: the wall clock at spawn minus the
    /// latest block's timestamp, rounded down to a whole hour (0 when the chain is ahead).
    /// Day candles use it rounded down to a whole day.
    pub fn clock_offset_seconds(&self) -> u64 {
        self.shared.clock_offset
    }

    fn faults(&self) -> std::sync::MutexGuard<'_, Faults> {
        self.shared
            .faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Unix seconds now (0 if the system clock is before 1970).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `max(0, now − latest)` rounded down to a whole hour: hourly and minute candles stay aligned
/// and served times never pass the wall clock.
fn clock_offset(now: u64, latest: u64) -> u64 {
    let behind = now.saturating_sub(latest);
    behind - behind % 3600
}

/// `offset` rounded down to a multiple of `bucket` seconds.
fn aligned_offset(offset: u64, bucket: u64) -> u64 {
    offset - offset % bucket.max(1)
}

/// The `[sources]` TOML section for a stand-in at `base_url` (`http://127.0.0.1:PORT`).
pub fn sources_toml(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    let mut toml = String::from(
        "\n# The off-chain stand-in (test-devnet::standin): tests and the demo only.\n[sources]\n",
    );
    for source in Source::ALL {
        let (key, path) = source.config_key();
        toml.push_str(&format!("{key} = \"{base}{path}\"\n"));
    }
    toml
}

fn router(shared: Arc<Shared>) -> axum::Router {
    use axum::routing::get;
    axum::Router::new()
        .route(
            "/geckoterminal/api/v2/networks/{network}/pools/{address}",
            get(geckoterminal::pool),
        )
        .route(
            "/geckoterminal/api/v2/networks/{network}/pools/{address}/ohlcv/{timeframe}",
            get(geckoterminal::ohlcv),
        )
        .route("/defillama-yields/pools", get(defillama::pools))
        .route("/defillama-yields/chart/{pool}", get(defillama::chart))
        .route("/defillama-yields/volume/{pool}", get(defillama::volume))
        .route(
            "/defillama-coins/prices/current/{coins}",
            get(defillama::prices_current),
        )
        .route(
            "/defillama-coins/chart/{coins}",
            get(defillama::coins_chart),
        )
        .route(
            "/coinbase/products/{product}/ticker",
            get(cex::coinbase_ticker),
        )
        .route("/kraken/0/public/Ticker", get(cex::kraken_ticker))
        .route(
            "/binance/api/v3/ticker/bookTicker",
            get(cex::binance_book_ticker),
        )
        .route("/binance/api/v3/ticker/price", get(cex::binance_price))
        .route(
            "/pyth-hermes/v2/updates/price/latest",
            get(cex::pyth_latest),
        )
        .route(
            "/redstone/data-packages/latest/{service}",
            get(cex::redstone_latest),
        )
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(shared.clone(), faults))
        .with_state(shared)
}

async fn not_found(request: Request) -> Response {
    match Source::of_path(request.uri().path()) {
        Some(Source::GeckoTerminal) => geckoterminal::not_found(),
        _ => (StatusCode::NOT_FOUND, "Not Found").into_response(),
    }
}

/// Counts requests per source and applies the configured fault.
async fn faults(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let Some(source) = Source::of_path(request.uri().path()) else {
        return next.run(request).await;
    };
    if let Some(count) = shared.requests.get(&source) {
        count.fetch_add(1, Ordering::Relaxed);
    }
    match shared.fault(source) {
        None => next.run(request).await,
        Some(Fault::Down) => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain")],
            "Service Unavailable",
        )
            .into_response(),
        Some(Fault::RateLimited) => {
            let mut response = (
                StatusCode::TOO_MANY_REQUESTS,
                json(rate_limited_body(source)),
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
            response
        }
        Some(Fault::Empty) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            Body::empty(),
        )
            .into_response(),
        Some(Fault::Malformed) => {
            let answer = next.run(request).await;
            let bytes = axum::body::to_bytes(answer.into_body(), usize::MAX)
                .await
                .unwrap_or_default();
            let cut = bytes.slice(..bytes.len() / 2);
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                cut,
            )
                .into_response()
        }
        Some(Fault::Delay(delay)) => {
            tokio::time::sleep(delay).await;
            next.run(request).await
        }
    }
}

/// The body each provider sends with a 429 (as their documentation or clients show it).
fn rate_limited_body(source: Source) -> Value {
    match source {
        // CoinGecko's documented error object (GeckoTerminal is CoinGecko's on-chain API).
        Source::GeckoTerminal => serde_json::json!({
            "status": {"error_code": 429, "error_message": "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits."}
        }),
        Source::Kraken => serde_json::json!({"error": ["EGeneral:Too many requests"]}),
        Source::Binance => serde_json::json!({"code": -1003, "msg": "Too many requests."}),
        Source::Coinbase => serde_json::json!({"message": "Public rate limit exceeded"}),
        _ => serde_json::json!({"message": "Too Many Requests"}),
    }
}

/// A JSON response.
fn json(value: Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        value.to_string(),
    )
        .into_response()
}

/// A JSON response with a status.
fn json_status(status: StatusCode, value: Value) -> Response {
    (status, json(value)).into_response()
}

/// A number as the providers print decimals in strings (shortest exact form); `None` for a
/// non-finite value.
fn decimal(value: f64) -> Option<String> {
    value.is_finite().then(|| format!("{value}"))
}

/// A decimal string, JSON `null` when the value is not finite.
fn decimal_json(value: f64) -> Value {
    decimal(value).map_or(Value::Null, Value::String)
}

/// A JSON number, `null` when not finite.
fn number_json(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// Unix seconds as RFC 3339 UTC (`2026-01-03T02:29:02Z`).
fn rfc3339(unix: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// Unix seconds as the ISO form JavaScript's `Date.toJSON` prints (`…T02:29:02.000Z`).
fn iso_millis(unix: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.000Z")
}

/// Calendar date and time of unix seconds (UTC), by the days-from-civil inverse.
fn civil(unix: u64) -> (i64, u32, u32, u64, u64, u64) {
    let days = i64::try_from(unix / 86_400).unwrap_or(0);
    let secs = unix % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, secs / 3600, secs % 3600 / 60, secs % 60)
}

/// An address as the providers key it: lower-case hex with `0x`.
fn lower(address: alloy::primitives::Address) -> String {
    format!("{address:#x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_767_409_742), "2026-01-03T03:09:02Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_millis(1_767_225_600), "2026-01-01T00:00:00.000Z");
    }

    #[test]
    fn the_clock_offset_is_whole_hours_and_never_negative() {
        assert_eq!(clock_offset(1_000, 2_000), 0);
        assert_eq!(clock_offset(7_199 + 50, 50), 3_600);
        assert_eq!(clock_offset(7_200 + 50, 50), 7_200);
        let offset = 3 * 86_400 + 5 * 3600;
        assert_eq!(aligned_offset(offset, 86_400), 3 * 86_400);
        assert_eq!(aligned_offset(offset, 4 * 3600), 3 * 86_400 + 4 * 3600);
        assert_eq!(aligned_offset(offset, 3600), offset);
        assert_eq!(aligned_offset(offset, 300), offset);
    }

    #[test]
    fn sources_toml_names_every_key() {
        let toml = sources_toml("http://127.0.0.1:9/");
        assert!(toml.contains("geckoterminal_url = \"http://127.0.0.1:9/geckoterminal/api/v2\""));
        assert!(toml.contains("defillama_yields_url = \"http://127.0.0.1:9/defillama-yields\""));
        assert!(toml.contains("defillama_coins_url = \"http://127.0.0.1:9/defillama-coins\""));
        for source in Source::ALL {
            assert!(toml.contains(source.config_key().0), "{source:?}");
        }
    }

    #[test]
    fn paths_map_to_their_source() {
        assert_eq!(
            Source::of_path("/geckoterminal/api/v2/networks/base/pools/0x1"),
            Some(Source::GeckoTerminal)
        );
        assert_eq!(Source::of_path("/defillama-yieldsx"), None);
        assert_eq!(
            Source::of_path("/kraken/0/public/Ticker"),
            Some(Source::Kraken)
        );
    }
}
