//! Configuration shared by both servers: one TOML file (`--config`), every key overridable from
//! the environment (`PREFIX_SECTION__KEY`), `--listen` on top; `--print-config` shows the result
//! with secrets redacted.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use alloy::primitives::Address;
use alloy::signers::local::PrivateKeySigner;
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use x402_core::chain::MULTICALL3;
use x402_core::offer_receipt::OfferReceiptSigner;
use x402_core::terms::{BASE_CHAIN_ID, BASE_USDC};
use x402_core::{Facilitator, HttpFacilitator, LocalFacilitator, PaymentTerms};

use crate::gate::{AcceptedNetwork, GateLimits, PaymentGate, PendingTiming};
use crate::limiter::{ClientAddressing, IpNet, UnpaidAllowance};
use crate::state::StateConfig;

/// The command line both servers take.
#[derive(Debug, Clone, clap::Parser)]
pub struct ServerArgs {
    /// TOML configuration file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address to listen on (overrides `listen`).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Print the effective configuration (secrets redacted) and exit.
    #[arg(long)]
    pub print_config: bool,
}

pub use crate::error::ConfigError;

/// Loads `T` from its defaults, the file, the environment (`env_prefix`, nesting with `__`)
/// and the flags, in that order of precedence (last wins).
pub fn load<T>(defaults: &T, env_prefix: &str, args: &ServerArgs) -> Result<T, ConfigError>
where
    T: Serialize + DeserializeOwned,
{
    let mut figment = Figment::from(Serialized::defaults(defaults));
    if let Some(path) = &args.config {
        if !path.exists() {
            return Err(ConfigError::Invalid(format!(
                "config file {} does not exist",
                path.display()
            )));
        }
        figment = figment.merge(Toml::file(path));
    }
    figment = figment.merge(Env::prefixed(env_prefix).split("__"));
    if let Some(listen) = args.listen {
        figment = figment.merge(Serialized::default("listen", listen.to_string()));
    }
    // figment quotes offending values, which may be URLs with keys.
    figment
        .extract()
        .map_err(|e| ConfigError::Invalid(x402_core::scrub_text(&e.to_string())))
}

/// Renders a configuration as TOML with every key named `private_key` (or ending in
/// `_secret`) replaced by a redaction marker, and every URL under a key named `url`,
/// `urls` or ending in `_url` / `_urls` (`rpc_url`, `rpc_urls`, `facilitator.url`) scrubbed of
/// credentials ([`x402_core::scrub_url`]: user info, query, key-like path segments).
pub fn print_redacted<T: Serialize>(config: &T) -> Result<String, ConfigError> {
    let mut value =
        toml::Value::try_from(config).map_err(|e| ConfigError::Invalid(e.to_string()))?;
    redact(&mut value);
    toml::to_string_pretty(&value).map_err(|e| ConfigError::Invalid(e.to_string()))
}

fn redact(value: &mut toml::Value) {
    if let toml::Value::Table(table) = value {
        for (key, item) in table.iter_mut() {
            if key == "private_key" || key.ends_with("_secret") {
                *item = toml::Value::String("<redacted>".into());
            } else if is_url_key(key) {
                scrub_urls(item);
            } else {
                redact(item);
            }
        }
    }
}

fn is_url_key(key: &str) -> bool {
    key == "url" || key == "urls" || key.ends_with("_url") || key.ends_with("_urls")
}

fn scrub_urls(value: &mut toml::Value) {
    match value {
        toml::Value::String(url) => *url = x402_core::scrub_url(url),
        toml::Value::Array(items) => items.iter_mut().for_each(scrub_urls),
        _ => {}
    }
}

/// The sections every server has; a server's own config flattens this in (serde cannot deny
/// unknown keys through a flatten, so each section denies its own).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommonConfig {
    /// Socket address to listen on.
    pub listen: String,
    /// Public base URL used in `resource.url` and discovery documents; when absent it is taken
    /// from the request's `Host` header.
    #[serde(default)]
    pub public_url: Option<String>,
    /// Logging.
    pub log: LogConfig,
    /// Payment terms.
    pub payment: PaymentConfig,
    /// Who verifies and settles.
    pub facilitator: FacilitatorConfig,
    /// Request limits.
    pub limits: LimitsConfig,
    /// Where state shared by replicas lives (memory by default).
    #[serde(default)]
    pub state: StateConfig,
    /// The key that signs offers and receipts (x402 `offer-receipt`); none by default.
    #[serde(default)]
    pub signing: SigningConfig,
    /// After SIGTERM/SIGINT, how long new requests are still taken while `/readiness` already
    /// answers 503 (for load balancers that only watch readiness); then the drain. 0 (the
    /// default) stops taking connections at once, for deployments whose preStop hook waits.
    #[serde(default)]
    pub shutdown_notice_seconds: u64,
    /// After the notice, how long requests in flight may still finish before the server stops
    /// whatever they are doing, seconds. Absent (the default): the longest route budget plus
    /// `payment.settle_margin_seconds` ([`Self::drain`]). A value shorter than that is refused
    /// at start: a paid request cut off by the drain is answered by nobody and never settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_seconds: Option<u64>,
}

impl CommonConfig {
    /// Defaults listening on `listen`.
    pub fn with_listen(listen: &str) -> Self {
        Self {
            listen: listen.to_owned(),
            public_url: None,
            log: LogConfig::default(),
            payment: PaymentConfig::default(),
            facilitator: FacilitatorConfig::default(),
            limits: LimitsConfig::default(),
            state: StateConfig::default(),
            signing: SigningConfig::default(),
            shutdown_notice_seconds: 0,
            drain_seconds: None,
        }
    }

    /// How long requests in flight get after the stop signal (and its notice) to finish, for a
    /// server whose longest route budget is `longest_budget`: at least that budget plus
    /// `payment.settle_margin_seconds`, which is the largest `maxTimeoutSeconds` any of its
    /// routes offers, so the lifetime of the authorization an honest client signs. Any paid
    /// request in flight at the signal has finished its work and its settlement by then, or
    /// could no longer settle anyway. `drain_seconds`, when set, is used instead if it is not
    /// shorter; a shorter one is an error (the server refuses to start rather than clamp, so
    /// the number an operator sized the pod's grace period from is never silently changed).
    pub fn drain(&self, longest_budget: Duration) -> Result<Duration, ConfigError> {
        let needed =
            longest_budget.saturating_add(Duration::from_secs(self.payment.settle_margin_seconds));
        match self.drain_seconds.map(Duration::from_secs) {
            None => Ok(needed),
            Some(configured) if configured >= needed => Ok(configured),
            Some(configured) => Err(ConfigError::Invalid(format!(
                "drain_seconds = {} is shorter than the longest route budget ({} s) plus payment.settle_margin_seconds ({} s): a paid request still running at the end of the drain would be cut off unsettled; set at least {} (or leave it out)",
                configured.as_secs(),
                longest_budget.as_secs(),
                self.payment.settle_margin_seconds,
                needed.as_secs_f64().ceil()
            ))),
        }
    }

    /// The same configuration with `state.key_prefix` = `prefix` (each service's default, so
    /// two services sharing one Redis keep apart).
    #[must_use]
    pub fn with_state_prefix(mut self, prefix: &str) -> Self {
        self.state.key_prefix = prefix.to_owned();
        self
    }

    /// The gate's limits from `[limits]` and `[payment]`: `validBefore` must leave the work's
    /// budget plus half of `settle_margin_seconds` (at least the facilitators' own 6 s). The
    /// official client signs `validBefore = now + maxTimeoutSeconds` (= budget +
    /// `settle_margin_seconds`), so an honest payment has the other half for its round trip,
    /// the pricing and clock skew, and the settlement keeps half the margin.
    pub fn gate_limits(&self) -> Result<GateLimits, ConfigError> {
        let trusted_proxies = self
            .limits
            .trusted_proxies
            .iter()
            .map(|net| {
                net.parse::<IpNet>()
                    .map_err(|e| ConfigError::Invalid(format!("limits.trusted_proxies: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let reserve = (self.payment.settle_margin_seconds / 2)
            .max(x402_core::verify::VALID_BEFORE_MARGIN_SECONDS);
        Ok(GateLimits {
            unpaid: self.limits.unpaid_allowance(),
            unverified_per_client: self.limits.unverified_per_client,
            payer_failures: UnpaidAllowance {
                requests: self.limits.payer_failures_per_window,
                window: Duration::from_secs(self.limits.payer_failure_window_seconds),
            },
            payer_concurrency: self.limits.payer_concurrency,
            settle_reserve: Duration::from_secs(reserve),
            addressing: ClientAddressing {
                trust_forwarded: self.limits.trust_forwarded,
                trusted_proxies,
            },
            paid_answer_max_bytes: self.state.paid_answer_max_bytes,
            paid_answers_memory_max_bytes: self.state.paid_answers_memory_max_bytes,
        })
    }

    /// The listen address, parsed.
    pub fn listen_addr(&self) -> Result<SocketAddr, ConfigError> {
        self.listen.parse().map_err(|_| {
            ConfigError::Invalid(format!("listen: `{}` is not a socket address", self.listen))
        })
    }
}

/// Log output.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// `text` or `json`.
    pub format: LogFormat,
    /// An `EnvFilter` directive (`info`, `server_kit=debug,info`).
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            format: LogFormat::Text,
            level: "info".into(),
        }
    }
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// What the service is paid in, and to whom.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaymentConfig {
    /// Recipient of every payment. Required: there is no sensible default.
    #[serde(default)]
    pub pay_to: Option<Address>,
    /// Chain id of the payment network (8453, Base; a local devnet reuses it).
    pub chain_id: u64,
    /// EIP-3009 token.
    pub asset: Address,
    /// The token's EIP-712 name.
    pub asset_name: String,
    /// The token's EIP-712 version.
    pub asset_version: String,
    /// The token's decimals.
    pub asset_decimals: u8,
    /// Added to a route's time budget to form `maxTimeoutSeconds`, leaving room to settle.
    pub settle_margin_seconds: u64,
    /// More networks a payment may be made on, each an entry of `accepts` at the same price
    /// (after the primary one above). Empty by default: Base only.
    #[serde(default)]
    pub networks: Vec<NetworkConfig>,
}

/// A network accepted besides the primary one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// Its chain id (42161 Arbitrum One, 10 Optimism, 137 Polygon, 1 Ethereum, 8453 Base).
    pub chain_id: u64,
    /// The EIP-3009 token; absent: native USDC of the chain (known for the five above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset: Option<Address>,
    /// The token's EIP-712 name; absent: that of native USDC ("USD Coin").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_name: Option<String>,
    /// The token's EIP-712 version; absent: that of native USDC ("2").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_version: Option<String>,
    /// JSON-RPC of this chain, for the local facilitator (required with `facilitator.mode =
    /// "local"`; the HTTP facilitator serves every network it lists in `/supported`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_url: Option<String>,
}

impl Default for PaymentConfig {
    fn default() -> Self {
        Self {
            pay_to: None,
            chain_id: BASE_CHAIN_ID,
            asset: BASE_USDC,
            asset_name: "USD Coin".into(),
            asset_version: "2".into(),
            asset_decimals: 6,
            settle_margin_seconds: 60,
            networks: Vec::new(),
        }
    }
}

impl PaymentConfig {
    /// The terms of each network of `networks`, paying the same `pay_to`.
    pub fn other_terms(&self) -> Result<Vec<PaymentTerms>, ConfigError> {
        if self.networks.is_empty() {
            return Ok(Vec::new());
        }
        let primary = self.terms()?;
        let mut seen = vec![primary.chain_id];
        self.networks
            .iter()
            .map(|network| {
                if seen.contains(&network.chain_id) {
                    return Err(ConfigError::Invalid(format!(
                        "payment.networks: chain {} is listed twice",
                        network.chain_id
                    )));
                }
                seen.push(network.chain_id);
                let native = PaymentTerms::native_usdc(network.chain_id, primary.pay_to);
                let asset = network
                    .asset
                    .or(native.as_ref().map(|usdc| usdc.asset))
                    .ok_or_else(|| {
                        ConfigError::Invalid(format!(
                            "payment.networks: chain {} has no known native USDC; set its asset, \
                             asset_name and asset_version",
                            network.chain_id
                        ))
                    })?;
                let fallback = |pick: fn(&PaymentTerms) -> &String, what: &str| {
                    native
                        .as_ref()
                        .filter(|usdc| usdc.asset == asset)
                        .map(|usdc| pick(usdc).clone())
                        .ok_or_else(|| {
                            ConfigError::Invalid(format!(
                                "payment.networks: chain {} needs its {what}",
                                network.chain_id
                            ))
                        })
                };
                Ok(PaymentTerms {
                    chain_id: network.chain_id,
                    asset,
                    asset_name: match &network.asset_name {
                        Some(name) => name.clone(),
                        None => fallback(|usdc| &usdc.asset_name, "asset_name")?,
                    },
                    asset_version: match &network.asset_version {
                        Some(version) => version.clone(),
                        None => fallback(|usdc| &usdc.asset_version, "asset_version")?,
                    },
                    asset_decimals: self.asset_decimals,
                    pay_to: primary.pay_to,
                })
            })
            .collect()
    }

    /// The terms, once `pay_to` is set.
    pub fn terms(&self) -> Result<PaymentTerms, ConfigError> {
        let pay_to = self
            .pay_to
            .ok_or_else(|| ConfigError::Invalid("payment.pay_to is required".into()))?;
        Ok(PaymentTerms {
            chain_id: self.chain_id,
            asset: self.asset,
            asset_name: self.asset_name.clone(),
            asset_version: self.asset_version.clone(),
            asset_decimals: self.asset_decimals,
            pay_to,
        })
    }
}

/// Facilitator choice.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FacilitatorConfig {
    /// `http` (any x402 v2 facilitator at `url`) or `local` (verify in-process, settle with
    /// `private_key` over `rpc_url`).
    pub mode: FacilitatorMode,
    /// Base URL of the HTTP facilitator.
    #[serde(default)]
    pub url: Option<String>,
    /// Per-call timeout of the HTTP facilitator, seconds.
    pub timeout_seconds: u64,
    /// JSON-RPC of the payment chain, for the local facilitator.
    #[serde(default)]
    pub rpc_url: Option<String>,
    /// Key that submits settlements, for the local facilitator (0x-hex; keep it in the
    /// environment, not the file).
    #[serde(default)]
    pub private_key: Option<String>,
    /// Multicall3 on the payment chain.
    pub multicall3: Address,
    /// How long the local facilitator waits for a settlement receipt, seconds.
    pub receipt_timeout_seconds: u64,
    /// How long any one JSON-RPC call of the local facilitator may take, seconds.
    pub rpc_timeout_seconds: u64,
}

/// Which facilitator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FacilitatorMode {
    /// Remote facilitator over HTTP.
    Http,
    /// In-process verification and settlement.
    Local,
}

impl Default for FacilitatorConfig {
    fn default() -> Self {
        Self {
            mode: FacilitatorMode::Http,
            url: None,
            timeout_seconds: 15,
            rpc_url: None,
            private_key: None,
            multicall3: MULTICALL3,
            receipt_timeout_seconds: 30,
            rpc_timeout_seconds: 10,
        }
    }
}

impl FacilitatorConfig {
    /// The facilitator of another accepted network: the same HTTP facilitator, or a local one
    /// on that network's RPC.
    pub fn build_for(&self, network: &NetworkConfig) -> Result<Arc<dyn Facilitator>, ConfigError> {
        match self.mode {
            FacilitatorMode::Http => self.build(network.chain_id),
            FacilitatorMode::Local => {
                let rpc_url = network.rpc_url.clone().ok_or_else(|| {
                    ConfigError::Invalid(format!(
                        "payment.networks: chain {} needs its rpc_url when facilitator.mode = \"local\"",
                        network.chain_id
                    ))
                })?;
                Self {
                    rpc_url: Some(rpc_url),
                    ..self.clone()
                }
                .build(network.chain_id)
            }
        }
    }

    /// Builds the configured facilitator.
    pub fn build(&self, chain_id: u64) -> Result<Arc<dyn Facilitator>, ConfigError> {
        let invalid = |m: &str| ConfigError::Invalid(m.to_owned());
        match self.mode {
            FacilitatorMode::Http => {
                let url = self.url.as_deref().ok_or_else(|| {
                    invalid("facilitator.url is required when facilitator.mode = \"http\"")
                })?;
                let url = url
                    .parse()
                    .map_err(|_| invalid("facilitator.url is not a URL"))?;
                let client =
                    HttpFacilitator::new(url, Duration::from_secs(self.timeout_seconds))
                        .map_err(|e| ConfigError::Invalid(x402_core::scrub_text(&e.to_string())))?;
                Ok(Arc::new(client))
            }
            FacilitatorMode::Local => {
                let rpc = self.rpc_url.as_deref().ok_or_else(|| {
                    invalid("facilitator.rpc_url is required when facilitator.mode = \"local\"")
                })?;
                let rpc = rpc
                    .parse()
                    .map_err(|_| invalid("facilitator.rpc_url is not a URL"))?;
                let key = self.private_key.as_deref().ok_or_else(|| {
                    invalid("facilitator.private_key is required when facilitator.mode = \"local\"")
                })?;
                let signer: PrivateKeySigner = key
                    .parse()
                    .map_err(|_| invalid("facilitator.private_key is not a 32-byte hex key"))?;
                Ok(Arc::new(
                    LocalFacilitator::new(
                        rpc,
                        chain_id,
                        signer,
                        self.multicall3,
                        Duration::from_secs(self.receipt_timeout_seconds),
                    )
                    .with_rpc_timeout(Duration::from_secs(self.rpc_timeout_seconds.max(1))),
                ))
            }
        }
    }
}

/// Signed offers and receipts (x402's `offer-receipt` extension, EIP-712 form): with a key,
/// every 402 carries one signed offer per accepted entry and every paid answer's
/// `PAYMENT-RESPONSE` a signed receipt, which a client can later show to prove what it was
/// offered and what it paid for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SigningConfig {
    /// The signing key (0x-hex; keep it in the environment, not the file). Its address is the
    /// one clients check offers and receipts against. Absent: nothing is signed.
    #[serde(default)]
    pub private_key: Option<String>,
    /// How long a signed offer holds, seconds (counted from the start of the minute it is
    /// signed in, so between this less 59 s and this).
    pub offer_validity_seconds: u64,
}

impl Default for SigningConfig {
    fn default() -> Self {
        Self {
            private_key: None,
            offer_validity_seconds: 300,
        }
    }
}

impl SigningConfig {
    /// The signer, when a key is configured.
    pub fn signer(&self) -> Result<Option<OfferReceiptSigner>, ConfigError> {
        let Some(key) = self.private_key.as_deref() else {
            return Ok(None);
        };
        let key: PrivateKeySigner = key.parse().map_err(|_| {
            ConfigError::Invalid("signing.private_key is not a 32-byte hex key".into())
        })?;
        if self.offer_validity_seconds < 60 {
            return Err(ConfigError::Invalid(
                "signing.offer_validity_seconds must be at least 60 (offers are renewed each \
                 minute)"
                    .into(),
            ));
        }
        Ok(Some(OfferReceiptSigner::new(
            key,
            self.offer_validity_seconds,
        )))
    }
}

/// Limits on requests.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Unpaid requests one client address may make per window before 429.
    pub unpaid_per_window: u32,
    /// The unpaid window, seconds.
    pub unpaid_window_seconds: u64,
    /// Read the client address from `X-Forwarded-For` (behind a trusted proxy): the
    /// right-most hop not written by a trusted proxy.
    pub trust_forwarded: bool,
    /// The proxies trusted to write `X-Forwarded-For`, as CIDR ranges (`10.0.0.0/8`,
    /// `fd00::/8`). Empty: with `trust_forwarded`, the socket peer is the one trusted proxy.
    #[serde(default)]
    pub trusted_proxies: Vec<String>,
    /// Requests of one client (IPv4 address or IPv6 /64) that may wait for their price or
    /// payment check at once.
    pub unverified_per_client: u32,
    /// Paid requests of one payer that may fail (failed or empty work, timeout, refused
    /// settlement) per window before 429.
    pub payer_failures_per_window: u32,
    /// The payer failure window, seconds.
    pub payer_failure_window_seconds: u64,
    /// Paid requests of one payer whose work may run at once.
    pub payer_concurrency: u32,
    /// Largest request body, bytes.
    pub max_body_bytes: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            unpaid_per_window: 60,
            unpaid_window_seconds: 60,
            trust_forwarded: false,
            trusted_proxies: Vec::new(),
            unverified_per_client: 4,
            payer_failures_per_window: 10,
            payer_failure_window_seconds: 600,
            payer_concurrency: 2,
            max_body_bytes: 64 * 1024,
        }
    }
}

impl LimitsConfig {
    /// The unpaid allowance.
    pub fn unpaid_allowance(&self) -> UnpaidAllowance {
        UnpaidAllowance {
            requests: self.unpaid_per_window,
            window: Duration::from_secs(self.unpaid_window_seconds),
        }
    }
}

/// Building a gate from a configuration lives here, beside the configuration, so that the gate
/// knows nothing of files and environments.
impl PaymentGate {
    /// The gate `common` describes: its facilitator, its `[state]` (the replay guard, unpaid
    /// allowance and pending settlements in memory or in Redis) and its `[limits]`, for
    /// `payment.chain_id`.
    pub fn from_config(common: &CommonConfig) -> Result<Self, ConfigError> {
        let facilitator = common.facilitator.build(common.payment.chain_id)?;
        Self::from_config_with(common, facilitator)
    }

    /// [`Self::from_config`] settling through `facilitator` instead of the configured one (a
    /// test's stand-in, or a facilitator built elsewhere).
    pub fn from_config_with(
        common: &CommonConfig,
        facilitator: Arc<dyn Facilitator>,
    ) -> Result<Self, ConfigError> {
        let state = common.state.build()?;
        let gate = Self::with_state(
            facilitator,
            state,
            common.gate_limits()?,
            common.payment.chain_id,
        )
        .with_pending_timing(PendingTiming {
            scan_every: Duration::from_secs(common.state.pending_scan_seconds.max(1)),
            stale_after: Duration::from_secs(common.state.pending_stale_seconds),
        });
        let networks = common
            .payment
            .other_terms()?
            .into_iter()
            .zip(&common.payment.networks)
            .map(|(terms, network)| {
                Ok(AcceptedNetwork {
                    terms,
                    facilitator: common.facilitator.build_for(network)?,
                })
            })
            .collect::<Result<Vec<_>, ConfigError>>()?;
        let gate = gate.with_networks(networks);
        Ok(match common.signing.signer()? {
            Some(signer) => gate.with_offer_receipts(signer),
            None => gate,
        })
    }
}

#[cfg(test)]
#[allow(clippy::result_large_err)] // figment's Jail closures return figment::Error by design
mod tests {
    use super::*;

    #[test]
    fn file_then_environment_then_flags() {
        // Removed when the test ends, whatever happens in it.
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "listen = \"127.0.0.1:9000\"\n[payment]\npay_to = \"0x209693Bc6afc0C5328bA36FaF03C514EF312287C\"\n[limits]\nunpaid_per_window = 5\n").expect("write");
        let args = ServerArgs {
            config: Some(file),
            listen: Some("127.0.0.1:9100".parse().expect("addr")),
            print_config: false,
        };
        figment::Jail::expect_with(|jail| {
            jail.set_env("KITTEST_LIMITS__UNPAID_WINDOW_SECONDS", "7");
            let config: CommonConfig =
                load(&CommonConfig::with_listen("127.0.0.1:1"), "KITTEST_", &args).expect("loads");
            assert_eq!(config.listen, "127.0.0.1:9100");
            assert_eq!(config.limits.unpaid_per_window, 5);
            assert_eq!(config.limits.unpaid_window_seconds, 7);
            assert!(config.payment.terms().is_ok());
            Ok(())
        });
    }

    #[test]
    fn unknown_keys_and_missing_pay_to_are_refused() {
        let args = ServerArgs {
            config: None,
            listen: None,
            print_config: false,
        };
        figment::Jail::expect_with(|jail| {
            jail.set_env("KITTEST2_LIMITS__BOGUS", "1");
            assert!(
                load(
                    &CommonConfig::with_listen("127.0.0.1:1"),
                    "KITTEST2_",
                    &args
                )
                .is_err()
            );
            Ok(())
        });
        assert!(PaymentConfig::default().terms().is_err());
    }

    #[test]
    fn printing_redacts_keys() {
        let mut config = CommonConfig::with_listen("127.0.0.1:1");
        config.facilitator.private_key = Some("0xsecret".into());
        config.signing.private_key = Some("0xsigningsecret".into());
        let printed = print_redacted(&config).expect("prints");
        assert!(!printed.contains("0xsecret"));
        assert!(!printed.contains("0xsigningsecret"));
        assert!(printed.contains("<redacted>"));
    }

    #[test]
    fn other_networks_default_to_native_usdc_and_refuse_what_is_unknown() {
        let mut payment = PaymentConfig {
            pay_to: Some(Address::repeat_byte(0x22)),
            ..PaymentConfig::default()
        };
        assert!(payment.other_terms().expect("none").is_empty());
        let network = |chain_id| NetworkConfig {
            chain_id,
            asset: None,
            asset_name: None,
            asset_version: None,
            rpc_url: None,
        };
        payment.networks = vec![network(42_161), network(10)];
        let others = payment.other_terms().expect("known chains");
        assert_eq!(others[0].network(), "eip155:42161");
        assert_eq!(
            others[0].asset,
            alloy::primitives::address!("af88d065e77c8cC2239327C5EDb3A432268e5831")
        );
        assert_eq!(
            (
                others[1].asset_name.as_str(),
                others[1].asset_version.as_str()
            ),
            ("USD Coin", "2")
        );
        assert_eq!(others[1].pay_to, Address::repeat_byte(0x22));
        payment.networks = vec![network(8453)];
        assert!(payment.other_terms().is_err(), "the primary chain again");
        payment.networks = vec![network(56)];
        assert!(payment.other_terms().is_err(), "no known USDC");
        payment.networks = vec![NetworkConfig {
            asset: Some(Address::repeat_byte(0x33)),
            ..network(56)
        }];
        assert!(
            payment.other_terms().is_err(),
            "an unknown token needs its name"
        );
        payment.networks = vec![NetworkConfig {
            asset: Some(Address::repeat_byte(0x33)),
            asset_name: Some("Token".into()),
            asset_version: Some("1".into()),
            ..network(56)
        }];
        assert_eq!(
            payment.other_terms().expect("explicit")[0].asset_name,
            "Token"
        );
    }

    #[test]
    fn the_signing_key_builds_a_signer_or_is_refused() {
        let mut signing = SigningConfig::default();
        assert!(signing.signer().expect("no key is fine").is_none());
        signing.private_key =
            Some("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a".into());
        let signer = signing.signer().expect("valid").expect("a signer");
        assert_eq!(signer.offer_validity_seconds(), 300);
        signing.offer_validity_seconds = 30;
        assert!(signing.signer().is_err(), "shorter than the renewal minute");
        signing.private_key = Some("0x12".into());
        signing.offer_validity_seconds = 300;
        assert!(signing.signer().is_err());
    }

    #[test]
    fn printing_scrubs_urls_with_credentials() {
        #[derive(Serialize)]
        struct WithChains {
            #[serde(flatten)]
            common: CommonConfig,
            chains: std::collections::BTreeMap<String, Chain>,
        }
        #[derive(Serialize)]
        struct Chain {
            rpc_urls: Vec<String>,
            rpc_url: Option<String>,
        }
        let mut common = CommonConfig::with_listen("127.0.0.1:1");
        common.facilitator.url = Some("https://user:facilitatorpass@fac.example.test/x".into());
        common.facilitator.rpc_url =
            Some("https://base-mainnet.g.alchemy.com/v2/AlchemyKey0123456789abcdef".into());
        let config = WithChains {
            common,
            chains: [(
                "base".to_owned(),
                Chain {
                    rpc_urls: vec![
                        "https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef".into(),
                        "https://mainnet.base.org".into(),
                    ],
                    rpc_url: Some("https://rpc.example.test/?apikey=QueryKey".into()),
                },
            )]
            .into_iter()
            .collect(),
        };
        let printed = print_redacted(&config).expect("prints");
        for secret in [
            "facilitatorpass",
            "AlchemyKey",
            "0123456789abcdef0123456789abcdef",
            "QueryKey",
        ] {
            assert!(!printed.contains(secret), "{secret} in:\n{printed}");
        }
        assert!(
            printed.contains("https://fac.example.test/<redacted>"),
            "{printed}"
        );
        assert!(printed.contains("https://base-mainnet.g.alchemy.com/<redacted>"));
        assert!(
            printed.contains("https://mainnet.base.org"),
            "plain URLs stay"
        );
    }

    #[test]
    fn state_defaults_to_memory_and_redis_needs_a_url_printed_without_its_password() {
        let mut config = CommonConfig::with_listen("127.0.0.1:1").with_state_prefix("docs");
        assert!(matches!(
            config.state.build().expect("memory"),
            crate::state::SharedState::Memory
        ));
        config.state.backend = crate::state::StateBackend::Redis;
        assert!(config.state.build().is_err(), "redis without a URL");
        config.state.redis_url = Some("redis://:RedisPassw0rd@10.0.0.5:6379/2".into());
        let printed = print_redacted(&config).expect("prints");
        assert!(!printed.contains("RedisPassw0rd"), "{printed}");
        assert!(printed.contains("backend = \"redis\""), "{printed}");
        assert!(printed.contains("key_prefix = \"docs\""), "{printed}");
        assert!(
            config.state.build().is_ok(),
            "connected lazily: no Redis needed to build"
        );
    }

    #[test]
    fn gate_limits_come_from_the_config() {
        let mut config = CommonConfig::with_listen("127.0.0.1:1");
        config.limits.trusted_proxies = vec!["10.0.0.0/8".into()];
        config.limits.trust_forwarded = true;
        let limits = config.gate_limits().expect("valid");
        assert_eq!(limits.settle_reserve, Duration::from_secs(30));
        assert_eq!(limits.payer_concurrency, 2);
        assert_eq!(limits.addressing.trusted_proxies.len(), 1);
        let defaults = GateLimits {
            addressing: ClientAddressing::default(),
            ..limits
        };
        assert_eq!(
            defaults,
            GateLimits::default(),
            "the two sets of defaults agree"
        );
        config.limits.trusted_proxies = vec!["10.0.0.0/40".into()];
        assert!(config.gate_limits().is_err());
    }

    #[test]
    fn the_drain_covers_the_longest_budget_and_the_settlement_margin_or_refuses_to_start() {
        let mut config = CommonConfig::with_listen("127.0.0.1:0");
        let ocr = Duration::from_secs(85);
        // Derived: the longest budget plus the margin (60 s by default) = the lifetime of the
        // authorization an honest client signs for that route.
        assert_eq!(
            config.drain(ocr).expect("derived"),
            Duration::from_secs(145)
        );
        config.payment.settle_margin_seconds = 20;
        assert_eq!(
            config.drain(ocr).expect("derived"),
            Duration::from_secs(105)
        );
        // Configured and long enough: taken as it is.
        config.drain_seconds = Some(150);
        assert_eq!(
            config.drain(ocr).expect("configured"),
            Duration::from_secs(150)
        );
        config.drain_seconds = Some(105);
        assert_eq!(
            config.drain(ocr).expect("configured"),
            Duration::from_secs(105)
        );
        // Shorter (the 30 s of earlier versions): refused, naming what it must cover.
        config.drain_seconds = Some(30);
        let error = config.drain(ocr).expect_err("too short").to_string();
        assert!(error.contains("drain_seconds = 30"), "{error}");
        assert!(error.contains("at least 105"), "{error}");
    }
}
