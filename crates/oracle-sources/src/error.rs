//! The one error type of the crate.

use std::sync::Arc;

/// Why a source gave no value. Every variant names the provider and the URL asked (without
/// credentials: keys travel in headers only, and [`crate::redact_url`] strips user info and
/// key-like query parameters from configured base URLs). Causes are shared (`Arc`) so one failed
/// upstream request can be handed to every caller that was waiting on it.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// A configured base URL does not parse.
    #[error("{provider}: base URL {url:?} is invalid")]
    InvalidBaseUrl {
        /// Provider name.
        provider: &'static str,
        /// The configured text (redacted).
        url: String,
        /// Parser error.
        #[source]
        source: url::ParseError,
    },
    /// The HTTP client could not be built (TLS backend unavailable).
    #[error("{provider}: HTTP client could not be built")]
    Client {
        /// Provider name.
        provider: &'static str,
        /// Cause.
        #[source]
        source: Arc<reqwest::Error>,
    },
    /// The configured API key cannot be sent in an HTTP header (control characters); the
    /// key itself is not repeated.
    #[error("{provider}: the configured API key is not a valid header value")]
    InvalidApiKey {
        /// Provider name.
        provider: &'static str,
    },
    /// Connection refused, DNS, TLS or a broken body: no answer was read.
    #[error("{provider}: {url} unreachable")]
    Unreachable {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// Cause.
        #[source]
        source: Arc<reqwest::Error>,
    },
    /// No complete answer within the configured timeout.
    #[error("{provider}: {url} did not answer within {after_ms} ms")]
    Timeout {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// The configured timeout.
        after_ms: u64,
    },
    /// The provider answered 429 Too Many Requests.
    #[error("{provider}: {url} answered 429 (rate limited{})", retry_hint(*retry_after_seconds))]
    RateLimited {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// The provider's `Retry-After`, in seconds, when it sent one.
        retry_after_seconds: Option<u64>,
    },
    /// This client's own budget for the provider is used up (or the provider's last 429 asked
    /// to wait); nothing was sent.
    #[error(
        "{provider}: client-side budget of {budget} used up, nothing sent to {url}{}",
        retry_hint(Some(*retry_after_seconds))
    )]
    BudgetExhausted {
        /// Provider name.
        provider: &'static str,
        /// URL that would have been asked.
        url: String,
        /// The budget, in words ("30 calls per 60 s").
        budget: String,
        /// Seconds until a call would be allowed again.
        retry_after_seconds: u64,
    },
    /// An HTTP status the client does not treat as an answer (5xx, 4xx other than those a
    /// client documents).
    #[error("{provider}: {url} answered HTTP {status}: {body_excerpt}")]
    Status {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// HTTP status.
        status: u16,
        /// First 200 characters of the body.
        body_excerpt: String,
    },
    /// The provider does not know what was asked (HTTP 404 or its own "unknown" error).
    #[error("{provider}: {url} does not know it: {message}")]
    NotFound {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// The provider's words, or the status.
        message: String,
    },
    /// HTTP 200 with an empty body.
    #[error("{provider}: {url} answered with an empty body")]
    EmptyBody {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
    },
    /// The body is not JSON of the provider's published shape.
    #[error("{provider}: {url} answered malformed JSON")]
    Malformed {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// Parser error.
        #[source]
        source: Arc<serde_json::Error>,
    },
    /// Well-formed JSON whose content is unusable: the provider's own error field, a number
    /// that is not a decimal, an expected entry missing.
    #[error("{provider}: {url}: {message}")]
    Unusable {
        /// Provider name.
        provider: &'static str,
        /// URL asked.
        url: String,
        /// What is wrong.
        message: String,
    },
}

fn retry_hint(seconds: Option<u64>) -> String {
    seconds.map_or_else(String::new, |s| format!("; retry in {s} s"))
}

impl SourceError {
    /// This error's [`ErrorKind`](chain_read::ErrorKind): a configuration that cannot be used
    /// is internal, no answer in time a timeout, every other failure the provider's.
    pub fn kind(&self) -> chain_read::ErrorKind {
        match self {
            Self::InvalidBaseUrl { .. } | Self::Client { .. } | Self::InvalidApiKey { .. } => {
                chain_read::ErrorKind::Internal
            }
            Self::Timeout { .. } => chain_read::ErrorKind::Timeout,
            _ => chain_read::ErrorKind::Unreachable,
        }
    }

    /// The provider the error is about.
    pub fn provider(&self) -> &'static str {
        match self {
            Self::InvalidBaseUrl { provider, .. }
            | Self::Client { provider, .. }
            | Self::InvalidApiKey { provider }
            | Self::Unreachable { provider, .. }
            | Self::Timeout { provider, .. }
            | Self::RateLimited { provider, .. }
            | Self::BudgetExhausted { provider, .. }
            | Self::Status { provider, .. }
            | Self::NotFound { provider, .. }
            | Self::EmptyBody { provider, .. }
            | Self::Malformed { provider, .. }
            | Self::Unusable { provider, .. } => provider,
        }
    }
}
