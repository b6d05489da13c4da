#![doc = include_str!("../README.md")]

pub mod cex;
mod config;
pub mod defillama;
mod error;
pub mod geckoterminal;
mod http;
mod limiter;
pub mod pyth;
pub mod redstone;
mod types;
mod volume;

pub use config::{REDACTED, SourcesConfig};
pub use error::SourceError;
pub use http::unix_now;
pub use limiter::Budget;
pub use types::{ProviderNumber, Sourced};
pub use volume::{ForeignFigure, PoolVolume};

use cex::{Binance, Coinbase, Kraken};
use defillama::{DefiLlamaCoins, DefiLlamaYields};
use geckoterminal::GeckoTerminal;
use pyth::PythHermes;
use redstone::Redstone;

/// Every off-chain source, one typed client each, built from `[sources]`.
///
/// Cheap to share behind an `Arc`; every client keeps its own limiter and caches, so one
/// `Sources` per process keeps the whole process under each provider's limit.
#[derive(Debug)]
pub struct Sources {
    geckoterminal: GeckoTerminal,
    defillama_yields: DefiLlamaYields,
    defillama_coins: DefiLlamaCoins,
    coinbase: Coinbase,
    kraken: Kraken,
    binance: Binance,
    pyth: PythHermes,
    redstone: Redstone,
}

impl Sources {
    /// Builds every client. Fails only on configuration: a base URL that does not parse, an
    /// API key that cannot be a header, or no TLS backend. Nothing is sent.
    ///
    /// ```
    /// use oracle_sources::{Sources, SourcesConfig};
    ///
    /// let config: SourcesConfig = toml::from_str(r#"
    ///     geckoterminal_url = "http://127.0.0.1:9/api/v2"
    ///     timeout_ms = 800
    /// "#).unwrap();
    /// let sources = Sources::new(&config).unwrap();
    /// assert_eq!(sources.geckoterminal().budget().calls, 30);
    ///
    /// let bad = SourcesConfig { kraken_url: "not a url".into(), ..SourcesConfig::default() };
    /// assert!(Sources::new(&bad).is_err());
    /// ```
    pub fn new(config: &SourcesConfig) -> Result<Self, SourceError> {
        Ok(Self {
            geckoterminal: GeckoTerminal::new(config)?,
            defillama_yields: DefiLlamaYields::new(config)?,
            defillama_coins: DefiLlamaCoins::new(config)?,
            coinbase: Coinbase::new(config)?,
            kraken: Kraken::new(config)?,
            binance: Binance::new(config)?,
            pyth: PythHermes::new(config)?,
            redstone: Redstone::new(config)?,
        })
    }

    /// GeckoTerminal (pools, daily OHLCV).
    pub fn geckoterminal(&self) -> &GeckoTerminal {
        &self.geckoterminal
    }

    /// DefiLlama yields (`/pools`, `/chart/{pool}`).
    pub fn defillama_yields(&self) -> &DefiLlamaYields {
        &self.defillama_yields
    }

    /// DefiLlama coins (`/prices/current/…`, `/chart/…`).
    pub fn defillama_coins(&self) -> &DefiLlamaCoins {
        &self.defillama_coins
    }

    /// Coinbase Exchange tickers.
    pub fn coinbase(&self) -> &Coinbase {
        &self.coinbase
    }

    /// Kraken tickers.
    pub fn kraken(&self) -> &Kraken {
        &self.kraken
    }

    /// Binance book tickers.
    pub fn binance(&self) -> &Binance {
        &self.binance
    }

    /// Pyth Hermes latest prices.
    pub fn pyth(&self) -> &PythHermes {
        &self.pyth
    }

    /// RedStone gateway medians.
    pub fn redstone(&self) -> &Redstone {
        &self.redstone
    }
}

/// `url` without credentials: user info removed, and the values of query parameters whose
/// names look like keys (`key`, `apikey`, `api_key`, `token`, `secret`, …) replaced by
/// [`REDACTED`]. Text that does not parse as a URL is returned unchanged only when it holds no
/// `@`, and redacted whole otherwise.
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return if url.contains('@') {
            REDACTED.to_owned()
        } else {
            url.to_owned()
        };
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        // Both only fail on URLs that cannot have user info, which then have none.
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
    }
    if parsed.query().is_some() {
        let secretish = |name: &str| {
            let name = name.to_ascii_lowercase();
            ["key", "token", "secret", "password", "auth", "signature"]
                .iter()
                .any(|s| name.contains(s))
        };
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let v = if secretish(&k) {
                    REDACTED.to_owned()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        if pairs.iter().any(|(k, _)| secretish(k)) {
            parsed.query_pairs_mut().clear().extend_pairs(pairs);
        }
    }
    parsed.to_string()
}
