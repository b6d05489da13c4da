//! Types every client shares.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

/// A value read from a provider with its time and where to check it.
#[derive(Debug)]
pub struct Sourced<T> {
    /// The parsed answer (shared with the cache).
    pub value: Arc<T>,
    /// Unix seconds the value is as of: the provider's own timestamp when its answer has one
    /// (the oldest one when it has several), else when the answer arrived. Never the time of a
    /// cache hit.
    pub as_of: u64,
    /// Unix seconds when the upstream answer arrived.
    pub fetched_at: u64,
    /// The URL asked, which a person can open to check the value (no credentials in it).
    pub url: String,
}

impl<T> Clone for Sourced<T> {
    fn clone(&self) -> Self {
        Self {
            value: Arc::clone(&self.value),
            as_of: self.as_of,
            fetched_at: self.fetched_at,
            url: self.url.clone(),
        }
    }
}

impl<T> Sourced<T> {
    pub(crate) fn from_fetched(
        fetched: crate::http::Fetched<T>,
        provider_time: Option<u64>,
    ) -> Self {
        Self {
            as_of: provider_time.unwrap_or(fetched.fetched_at),
            fetched_at: fetched.fetched_at,
            url: fetched.url,
            value: fetched.value,
        }
    }
}

/// A number exactly as the provider printed it (JSON number or numeric string), so figures are
/// passed on without a trip through binary floating point.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ProviderNumber(String);

impl ProviderNumber {
    /// The provider's text (`"1234.5"`, `"1.2e-7"`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The nearest `f64`, for ranking and ratios; `None` when the text is not a number.
    pub fn to_f64(&self) -> Option<f64> {
        self.0.parse().ok().filter(|v: &f64| v.is_finite())
    }

    pub(crate) fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }
}

impl fmt::Debug for ProviderNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for ProviderNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ProviderNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        number_text(raw.get())
            .map(Self)
            .ok_or_else(|| serde::de::Error::custom(format!("{} is not a number", raw.get())))
    }
}

/// The text of a JSON number, or of a string holding one.
pub(crate) fn number_text(raw: &str) -> Option<String> {
    let text = if raw.starts_with('"') {
        serde_json::from_str::<String>(raw).ok()?
    } else {
        raw.to_owned()
    };
    let text = text.trim();
    let numeric = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    numeric.then(|| text.to_owned())
}

/// `Option<ProviderNumber>` where `null`, a missing field or a non-numeric value (DefiLlama
/// prints `"NaN"` for some rows) all mean "not given".
pub(crate) fn lenient_number<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<ProviderNumber>, D::Error> {
    let raw = Option::<Box<RawValue>>::deserialize(deserializer)?;
    Ok(raw.and_then(|r| number_text(r.get())).map(ProviderNumber))
}

/// A list of addresses or ids where `null` entries are dropped.
pub(crate) fn lenient_strings<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<String>>, D::Error> {
    let list = Option::<Vec<Option<String>>>::deserialize(deserializer)?;
    Ok(list.map(|l| l.into_iter().flatten().collect()))
}
