//! One upstream: an HTTP client with the configured timeout, the provider's limiter, and typed
//! TTL caches in front of it.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use moka::future::Cache;
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

use crate::error::SourceError;
use crate::limiter::{Budget, Limiter};

/// The longest wait for this client's own budget before a request is given up as
/// [`SourceError::BudgetExhausted`].
const SHORT_BUDGET_WAIT_SECONDS: u64 = 2;

/// A value read from a provider, with when it was read and where a person can check it.
#[derive(Debug)]
pub(crate) struct Fetched<T> {
    /// The parsed answer.
    pub(crate) value: Arc<T>,
    /// Unix seconds when the upstream answer arrived (a cache hit keeps the original time).
    pub(crate) fetched_at: u64,
    /// The URL asked, without credentials.
    pub(crate) url: String,
}

// Derived Clone would ask `T: Clone`; only the Arc is cloned.
impl<T> Clone for Fetched<T> {
    fn clone(&self) -> Self {
        Self {
            value: Arc::clone(&self.value),
            fetched_at: self.fetched_at,
            url: self.url.clone(),
        }
    }
}

/// What the generic layer hands a client's parser: a 2xx with a non-empty body, or a 4xx
/// other than 429 (each provider says "unknown" in its own way).
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Bytes,
    pub(crate) url: String,
    pub(crate) provider: &'static str,
}

impl Reply {
    /// The body as `T`, or [`SourceError::Malformed`].
    pub(crate) fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, SourceError> {
        serde_json::from_slice(&self.body).map_err(|e| SourceError::Malformed {
            provider: self.provider,
            url: self.url.clone(),
            source: Arc::new(e),
        })
    }

    pub(crate) fn not_found(&self) -> bool {
        self.status == 404
    }

    pub(crate) fn success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// For a parser with no special 4xx: 404 is [`SourceError::NotFound`], any other 4xx
    /// [`SourceError::Status`].
    pub(crate) fn require_success(&self) -> Result<(), SourceError> {
        if self.success() {
            Ok(())
        } else if self.not_found() {
            Err(self.not_found_error(excerpt(&self.body)))
        } else {
            Err(self.status_error())
        }
    }

    pub(crate) fn status_error(&self) -> SourceError {
        SourceError::Status {
            provider: self.provider,
            url: self.url.clone(),
            status: self.status,
            body_excerpt: excerpt(&self.body),
        }
    }

    pub(crate) fn unusable(&self, message: impl Into<String>) -> SourceError {
        SourceError::Unusable {
            provider: self.provider,
            url: self.url.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn not_found_error(&self, message: impl Into<String>) -> SourceError {
        SourceError::NotFound {
            provider: self.provider,
            url: self.url.clone(),
            message: message.into(),
        }
    }
}

/// A typed cache of one endpoint.
pub(crate) type EndpointCache<T> = Cache<String, Fetched<T>>;

pub(crate) fn endpoint_cache<T: Send + Sync + 'static>(ttl_seconds: u64) -> EndpointCache<T> {
    Cache::builder()
        .max_capacity(1024)
        .time_to_live(Duration::from_secs(ttl_seconds.max(1)))
        .build()
}

pub(crate) struct Upstream {
    provider: &'static str,
    base: String,
    client: reqwest::Client,
    limiter: Limiter,
    timeout_ms: u64,
    cache_enabled: bool,
}

// Hand-written: the client's default headers may carry an API key.
impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("provider", &self.provider)
            .field("base", &crate::redact_url(&self.base))
            .field("budget", &self.limiter.budget())
            .field("timeout_ms", &self.timeout_ms)
            .field("cache_enabled", &self.cache_enabled)
            .finish_non_exhaustive()
    }
}

pub(crate) struct UpstreamOptions<'a> {
    pub(crate) provider: &'static str,
    pub(crate) base_url: &'a str,
    pub(crate) budget: Budget,
    pub(crate) timeout_ms: u64,
    pub(crate) cache_ttl_seconds: u64,
    pub(crate) headers: HeaderMap,
}

impl Upstream {
    pub(crate) fn new(options: UpstreamOptions<'_>) -> Result<Self, SourceError> {
        let UpstreamOptions {
            provider,
            base_url,
            budget,
            timeout_ms,
            cache_ttl_seconds,
            headers,
        } = options;
        let base = base_url.trim_end_matches('/').to_owned();
        url::Url::parse(&base).map_err(|source| SourceError::InvalidBaseUrl {
            provider,
            url: crate::redact_url(&base),
            source,
        })?;
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(timeout_ms))
            .default_headers(headers)
            .user_agent(concat!("oracle-sources/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| SourceError::Client {
                provider,
                source: Arc::new(e),
            })?;
        Ok(Self {
            provider,
            base,
            client,
            limiter: Limiter::new(budget),
            timeout_ms,
            cache_enabled: cache_ttl_seconds > 0,
        })
    }

    pub(crate) fn budget(&self) -> Budget {
        self.limiter.budget()
    }

    /// The full URL of `path_and_query` (which starts with `/`), redacted.
    pub(crate) fn public_url(&self, path_and_query: &str) -> String {
        crate::redact_url(&format!("{}{path_and_query}", self.base))
    }

    /// GET `path_and_query` through the cache: equal concurrent misses share one request;
    /// failures are not cached, parsed answers (including a parser's "not listed") are.
    pub(crate) async fn get<T, P>(
        &self,
        cache: &EndpointCache<T>,
        path_and_query: &str,
        parse: P,
    ) -> Result<Fetched<T>, SourceError>
    where
        T: Send + Sync + 'static,
        P: FnOnce(&Reply) -> Result<T, SourceError>,
    {
        if !self.cache_enabled {
            return self.fetch(path_and_query, parse).await;
        }
        cache
            .try_get_with(path_and_query.to_owned(), self.fetch(path_and_query, parse))
            .await
            .map_err(|shared| (*shared).clone())
    }

    async fn fetch<T, P>(&self, path_and_query: &str, parse: P) -> Result<Fetched<T>, SourceError>
    where
        P: FnOnce(&Reply) -> Result<T, SourceError>,
    {
        {
            let url = self.public_url(path_and_query);
            let mut admitted = self.limiter.try_acquire();
            // A budget free again within a moment (a provider of one call per second asked
            // twice by one answer or by two callers at once) is waited for: the request's time
            // budget is far longer, and failing the row would cost the caller the price.
            if let Err(seconds) = admitted
                && seconds <= SHORT_BUDGET_WAIT_SECONDS
            {
                tokio::time::sleep(Duration::from_secs(seconds)).await;
                admitted = self.limiter.try_acquire();
            }
            if let Err(retry_after_seconds) = admitted {
                return Err(SourceError::BudgetExhausted {
                    provider: self.provider,
                    url,
                    budget: self.limiter.budget().describe(),
                    retry_after_seconds,
                });
            }
            let full = format!("{}{path_and_query}", self.base);
            tracing::debug!(provider = self.provider, %url, "foreign source request");
            let response = self
                .client
                .get(&full)
                .send()
                .await
                .map_err(|e| self.transport_error(e, &url))?;
            let status = response.status().as_u16();
            let retry_after = retry_after_seconds(response.headers());
            let body = response
                .bytes()
                .await
                .map_err(|e| self.transport_error(e, &url))?;
            let fetched_at = unix_now();
            // 418 is Binance's "banned for repeating 429s"; both carry Retry-After.
            if status == 429 || status == 418 {
                self.limiter.pause(retry_after);
                return Err(SourceError::RateLimited {
                    provider: self.provider,
                    url,
                    retry_after_seconds: retry_after,
                });
            }
            let success = (200..300).contains(&status);
            // 4xx bodies go to the client's parser: each provider says "unknown" its own way.
            if !success && !(400..500).contains(&status) {
                return Err(SourceError::Status {
                    provider: self.provider,
                    url,
                    status,
                    body_excerpt: excerpt(&body),
                });
            }
            if success && body.iter().all(u8::is_ascii_whitespace) {
                return Err(SourceError::EmptyBody {
                    provider: self.provider,
                    url,
                });
            }
            let reply = Reply {
                status,
                body,
                url: url.clone(),
                provider: self.provider,
            };
            let value = parse(&reply)?;
            Ok(Fetched {
                value: Arc::new(value),
                fetched_at,
                url,
            })
        }
    }

    fn transport_error(&self, error: reqwest::Error, url: &str) -> SourceError {
        if error.is_timeout() {
            SourceError::Timeout {
                provider: self.provider,
                url: url.to_owned(),
                after_ms: self.timeout_ms,
            }
        } else {
            SourceError::Unreachable {
                provider: self.provider,
                url: url.to_owned(),
                // The URL reqwest would print may hold what redaction removed.
                source: Arc::new(error.without_url()),
            }
        }
    }
}

pub(crate) fn header(name: &'static str, value: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
    headers
}

fn retry_after_seconds(headers: &HeaderMap) -> Option<u64> {
    // Only the delta-seconds form; an HTTP date falls back to a whole window.
    headers.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()
}

fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".into();
    }
    text.chars().take(200).collect()
}

/// Unix seconds now (0 before 1970, which no real clock reports).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
