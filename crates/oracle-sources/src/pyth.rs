//! Pyth Hermes: the latest parsed price updates of given feeds.

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};

use crate::error::SourceError;
use crate::http::{EndpointCache, Reply, Upstream, UpstreamOptions, endpoint_cache};
use crate::limiter::Budget;
use crate::types::{ProviderNumber, Sourced};

/// Provider name in answers and errors.
pub const PROVIDER: &str = "Pyth Hermes";

/// The public Hermes limit: 30 requests every 10 seconds per IP, and a 429 for the next 60 s
/// beyond it (<https://docs.pyth.network/price-feeds/api-instances-and-providers/hermes>).
pub const BUDGET: Budget = Budget::per(30, 10);

/// One side of a price update (`price` or `ema_price`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythFigure {
    /// The integer mantissa as printed.
    pub price: ProviderNumber,
    /// Confidence interval mantissa.
    pub conf: ProviderNumber,
    /// Decimal exponent.
    pub expo: i32,
    /// Unix seconds of publication.
    pub publish_time: u64,
    /// `price × 10^expo`, exactly, as a decimal string.
    pub value: String,
    /// `conf × 10^expo`, exactly.
    pub conf_value: String,
}

/// One feed's latest update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythPrice {
    /// Feed id, 64 hex digits without `0x`.
    pub id: String,
    /// The price.
    pub price: PythFigure,
    /// The exponentially weighted moving average, when given.
    pub ema_price: Option<PythFigure>,
    /// Publish time of the previous update (`metadata.prev_publish_time`), when given.
    pub prev_publish_time: Option<u64>,
}

/// The Hermes client.
#[derive(Debug)]
pub struct PythHermes {
    upstream: Upstream,
    latest: EndpointCache<Vec<PythPrice>>,
}

impl PythHermes {
    pub(crate) fn new(config: &crate::SourcesConfig) -> Result<Self, SourceError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = &config.pyth_api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}"))
                .map_err(|_| SourceError::InvalidApiKey { provider: PROVIDER })?;
            // Keeps the key out of reqwest's and http's Debug output.
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        Ok(Self {
            upstream: Upstream::new(UpstreamOptions {
                provider: PROVIDER,
                base_url: &config.pyth_hermes_url,
                budget: BUDGET,
                timeout_ms: config.timeout_ms,
                cache_ttl_seconds: config.cache_ttl_seconds,
                headers,
            })?,
            latest: endpoint_cache(config.cache_ttl_seconds),
        })
    }

    /// `GET {base}/v2/updates/price/latest?ids[]=…&parsed=true&encoding=hex` for feed ids
    /// (with or without `0x`). Hermes answers 404 for an unknown id. `as_of` is the oldest
    /// `publish_time`; the order of the answer is Hermes's.
    pub async fn latest(&self, feed_ids: &[&str]) -> Result<Sourced<Vec<PythPrice>>, SourceError> {
        let ids: Vec<String> = feed_ids
            .iter()
            .map(|id| id.trim_start_matches("0x").to_ascii_lowercase())
            .collect();
        let query: String = ids.iter().map(|id| format!("ids[]={id}&")).collect();
        let path = format!("/v2/updates/price/latest?{query}parsed=true&encoding=hex");
        if ids.is_empty()
            || ids
                .iter()
                .any(|id| id.len() != 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(SourceError::NotFound {
                provider: PROVIDER,
                url: self.upstream.public_url(&path),
                message: "feed ids must be 64 hex digits".into(),
            });
        }
        let fetched = self.upstream.get(&self.latest, &path, parse_latest).await?;
        let oldest = fetched.value.iter().map(|p| p.price.publish_time).min();
        Ok(Sourced::from_fetched(fetched, oldest))
    }
}

#[derive(Deserialize)]
struct LatestDoc {
    parsed: Option<Vec<RawUpdate>>,
}

#[derive(Deserialize)]
struct RawUpdate {
    id: String,
    price: RawFigure,
    #[serde(default)]
    ema_price: Option<RawFigure>,
    #[serde(default)]
    metadata: Option<RawMetadata>,
}

#[derive(Deserialize)]
struct RawFigure {
    price: ProviderNumber,
    conf: ProviderNumber,
    expo: i32,
    publish_time: u64,
}

#[derive(Deserialize)]
struct RawMetadata {
    #[serde(default)]
    prev_publish_time: Option<u64>,
}

fn parse_latest(reply: &Reply) -> Result<Vec<PythPrice>, SourceError> {
    reply.require_success()?;
    let doc: LatestDoc = reply.json()?;
    let parsed = doc
        .parsed
        .ok_or_else(|| reply.unusable("no `parsed` array (was parsed=true ignored?)"))?;
    parsed
        .into_iter()
        .map(|u| {
            let figure = |raw: RawFigure| -> Result<PythFigure, SourceError> {
                let value = scale(raw.price.as_str(), raw.expo).ok_or_else(|| {
                    reply.unusable(format!("price {} is not an integer", raw.price))
                })?;
                let conf_value = scale(raw.conf.as_str(), raw.expo).ok_or_else(|| {
                    reply.unusable(format!("conf {} is not an integer", raw.conf))
                })?;
                Ok(PythFigure {
                    price: raw.price,
                    conf: raw.conf,
                    expo: raw.expo,
                    publish_time: raw.publish_time,
                    value,
                    conf_value,
                })
            };
            Ok(PythPrice {
                id: u.id.trim_start_matches("0x").to_ascii_lowercase(),
                price: figure(u.price)?,
                ema_price: u.ema_price.map(figure).transpose()?,
                prev_publish_time: u.metadata.and_then(|m| m.prev_publish_time),
            })
        })
        .collect()
}

/// `integer × 10^expo` as a plain decimal string, exactly (`"184136023127"`, −8 →
/// `"1841.36023127"`).
pub(crate) fn scale(integer: &str, expo: i32) -> Option<String> {
    let (sign, digits) = match integer.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", integer),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || expo.unsigned_abs() > 100
    {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let text = if expo >= 0 {
        if digits == "0" {
            "0".to_owned()
        } else {
            format!("{digits}{}", "0".repeat(expo.unsigned_abs() as usize))
        }
    } else {
        let places = expo.unsigned_abs() as usize;
        let padded = format!("{digits:0>width$}", width = places + 1);
        let (whole, fraction) = padded.split_at(padded.len() - places);
        let fraction = fraction.trim_end_matches('0');
        if fraction.is_empty() {
            whole.to_owned()
        } else {
            format!("{whole}.{fraction}")
        }
    };
    let sign = if text == "0" { "" } else { sign };
    Some(format!("{sign}{text}"))
}

#[cfg(test)]
mod tests {
    use super::scale;

    #[test]
    fn scales_exactly() {
        assert_eq!(scale("184136023127", -8).as_deref(), Some("1841.36023127"));
        assert_eq!(scale("5", -3).as_deref(), Some("0.005"));
        assert_eq!(scale("-120", -2).as_deref(), Some("-1.2"));
        assert_eq!(scale("7", 2).as_deref(), Some("700"));
        assert_eq!(scale("0", -8).as_deref(), Some("0"));
        assert_eq!(scale("1.5", -1), None);
    }
}
