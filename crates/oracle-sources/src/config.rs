//! `[sources]` of `analytics.toml`: every base URL, the Pyth key, the timeout and the cache TTL.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

/// What a secret prints as in `Debug` and in serialised configuration.
pub const REDACTED: &str = "<redacted>";

/// The `[sources]` section. Every field has a default (the providers' public hosts), so an empty
/// section, or none, is valid; unknown keys are refused so a misspelt URL is not silently
/// ignored.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SourcesConfig {
    /// GeckoTerminal public API, including its `/api/v2` path.
    pub geckoterminal_url: String,
    /// DefiLlama yields API (`/pools`, `/chart/{uuid}`).
    pub defillama_yields_url: String,
    /// DefiLlama coins API (`/prices/current/…`, `/chart/…`).
    pub defillama_coins_url: String,
    /// Coinbase Exchange public REST API.
    pub coinbase_url: String,
    /// Kraken public REST API (the host; `/0/public/…` is appended).
    pub kraken_url: String,
    /// Binance market-data-only host (`/api/v3/…` is appended).
    pub binance_url: String,
    /// Pyth Hermes (`/v2/updates/price/latest` is appended).
    pub pyth_hermes_url: String,
    /// Bearer key for a Hermes provider that asks for one; never printed, never put in a URL.
    #[serde(
        serialize_with = "serialize_secret",
        skip_serializing_if = "Option::is_none"
    )]
    pub pyth_api_key: Option<String>,
    /// RedStone oracle gateway (`/data-packages/latest/{service}` is appended).
    pub redstone_url: String,
    /// Per-request timeout, connect to last byte, in milliseconds.
    pub timeout_ms: u64,
    /// How long an answer is reused for equal calls, in seconds (0 turns the cache off).
    pub cache_ttl_seconds: u64,
}

impl Default for SourcesConfig {
    fn default() -> Self {
        Self {
            geckoterminal_url: "https://api.geckoterminal.com/api/v2".into(),
            defillama_yields_url: "https://yields.llama.fi".into(),
            defillama_coins_url: "https://coins.llama.fi".into(),
            coinbase_url: "https://api.exchange.coinbase.com".into(),
            kraken_url: "https://api.kraken.com".into(),
            binance_url: "https://data-api.binance.vision".into(),
            pyth_hermes_url: "https://hermes.pyth.network".into(),
            pyth_api_key: None,
            redstone_url: "https://oracle-gateway-1.a.redstone.finance".into(),
            timeout_ms: 2500,
            cache_ttl_seconds: 60,
        }
    }
}

impl SourcesConfig {
    /// Every base URL pointed at one host (a local stand-in serving all the providers' paths).
    /// GeckoTerminal keeps its `/api/v2` path under that host.
    pub fn all_at(base: &str) -> Self {
        let base = base.trim_end_matches('/');
        Self {
            geckoterminal_url: format!("{base}/api/v2"),
            defillama_yields_url: base.to_owned(),
            defillama_coins_url: base.to_owned(),
            coinbase_url: base.to_owned(),
            kraken_url: base.to_owned(),
            binance_url: base.to_owned(),
            pyth_hermes_url: base.to_owned(),
            redstone_url: base.to_owned(),
            ..Self::default()
        }
    }
}

// Hand-written so the key never reaches a log line.
impl fmt::Debug for SourcesConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourcesConfig")
            .field("geckoterminal_url", &self.geckoterminal_url)
            .field("defillama_yields_url", &self.defillama_yields_url)
            .field("defillama_coins_url", &self.defillama_coins_url)
            .field("coinbase_url", &self.coinbase_url)
            .field("kraken_url", &self.kraken_url)
            .field("binance_url", &self.binance_url)
            .field("pyth_hermes_url", &self.pyth_hermes_url)
            .field(
                "pyth_api_key",
                &self.pyth_api_key.as_ref().map(|_| REDACTED),
            )
            .field("redstone_url", &self.redstone_url)
            .field("timeout_ms", &self.timeout_ms)
            .field("cache_ttl_seconds", &self.cache_ttl_seconds)
            .finish()
    }
}

fn serialize_secret<S: Serializer>(
    value: &Option<String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(_) => serializer.serialize_str(REDACTED),
        None => serializer.serialize_none(),
    }
}
