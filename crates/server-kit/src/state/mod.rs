//! State that several replicas must share: the replay lock, the unpaid
//! allowance, the payer limits (work in progress and failures), the records of settlements in
//! progress, the answers bought with a payment id and the transactions of settled
//! authorizations, and the document answer cache. Each sits
//! behind a trait with an in-process implementation (the default: one replica needs nothing
//! else) and a Redis one (`[state] backend = "redis"`).
//!
//! # Fail closed
//!
//! With Redis unreachable the gate cannot know whether an authorization is already in use, so
//! a paid request is refused with 503 `state_unavailable` (`charged: false`) before any work
//! or settlement, and `/readiness` turns false. The unpaid limiter fails *open*: a request
//! without a payment only gets the terms (a 402), which costs no more than pricing does, and
//! refusing every unpaid request while Redis restarts would take the service down with it.
//! A request carrying a payment header is refused at admission instead, before its pricing.
//!
//! # Keys (all under `key_prefix`, one per service by default)
//!
//! | key | what | lifetime |
//! | --- | --- | --- |
//! | `{p}:replay:{chain}:{asset}:{from}:{nonce}` | `inflight` or `settled` (one `SET NX GET PX`) | the authorization's `validBefore` |
//! | `{p}:unpaid:{client}` | GCRA theoretical arrival time, ms (one Lua script) | until refilled |
//! | `{p}:payer-work:{payer}` | sorted set: one token per request of the payer at work, scored by its lease's end (ms) | its longest lease |
//! | `{p}:payer-failures:{payer}` | GCRA theoretical arrival time of the payer's failure allowance, ms | until refilled |
//! | `{p}:mcp-sessions` | sorted set: MCP session id → the end of its idle time (ms) | its last session's |
//! | `{p}:pending` | hash: replay id → JSON [`PendingSettlement`] | until settled and cleared |
//! | `{p}:pending-claim:{id}` | which replica resolves a pending record | the claim lease |
//! | `{p}:answer:{sha256}` | a cached answer body | the cache TTL |
//! | `{p}:paid:{payer}:{payment id}` | JSON [`PaidAnswerRecord`], a line break, the answer's body | 10 min past the authorization's `validBefore` |
//! | `{p}:settled:{chain}:{asset}:{from}:{nonce}` | the settlement's transaction hash | 10 min past the authorization's `validBefore` |

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use bytes::Bytes;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tracing::warn;
use x402_core::{
    InMemoryReplayGuard, PaymentPayload, PaymentRequirements, ReplayError, ReplayGuard, ReplayKey,
};

use crate::error::ConfigError;
use crate::readiness::ReadinessCheck;
use alloy::primitives::Address;

use crate::limiter::{Allowance, ClientKey, Slot, Slots, UnpaidAllowance, UnpaidLimiter};

/// Why shared state could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Redis answered with an error or the connection failed.
    #[error("redis {op}: {source}")]
    Redis {
        /// The operation.
        op: &'static str,
        /// The client's error.
        #[source]
        source: redis::RedisError,
    },
    /// Redis gave no answer in time.
    #[error("redis {op}: no answer within {millis} ms")]
    Timeout {
        /// The operation.
        op: &'static str,
        /// The timeout.
        millis: u128,
    },
    /// A stored record is not what this version writes.
    #[error("a stored record cannot be read: {0}")]
    Corrupt(#[from] serde_json::Error),
}

/// Where shared state lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StateBackend {
    /// In this process (one replica).
    Memory,
    /// In Redis at `redis_url` (any number of replicas).
    Redis,
}

/// `[state]`: where the replay locks, unpaid counters, pending settlements and answers live.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateConfig {
    /// `memory` (default) or `redis`.
    pub backend: StateBackend,
    /// `redis://[:password@]host:port[/db]` (or `rediss://`); required with `redis`. Printed
    /// with its password redacted.
    #[serde(default)]
    pub redis_url: Option<String>,
    /// Prefix of every key, so services (or deployments) sharing one Redis stay apart.
    pub key_prefix: String,
    /// How long one Redis call may take before the request fails closed, milliseconds.
    pub timeout_ms: u64,
    /// A pending settlement record older than this is taken to belong to a replica that died
    /// and is resolved by whichever replica finds it, seconds (keep it above the facilitator's
    /// timeout plus the receipt wait).
    pub pending_stale_seconds: u64,
    /// How often each replica looks for stale pending records, seconds.
    pub pending_scan_seconds: u64,
    /// Largest answer the Redis answer cache stores, bytes (larger ones are not cached).
    pub cache_entry_max_bytes: usize,
    /// Largest answer kept for repeats of a payment id, bytes: a larger one is delivered once,
    /// and a repeat gets 409 naming its transaction instead.
    pub paid_answer_max_bytes: usize,
    /// Bytes of answers kept for payment ids in memory at once (`backend = "memory"`): past it
    /// a new answer is not kept (as above). Redis's own memory limit bounds the Redis backend.
    pub paid_answers_memory_max_bytes: usize,
}

impl Default for StateConfig {
    fn default() -> Self {
        Self {
            backend: StateBackend::Memory,
            redis_url: None,
            key_prefix: "x402".into(),
            timeout_ms: 1000,
            pending_stale_seconds: 120,
            pending_scan_seconds: 30,
            cache_entry_max_bytes: 4 * 1024 * 1024,
            paid_answer_max_bytes: 4 * 1024 * 1024,
            paid_answers_memory_max_bytes: 64 * 1024 * 1024,
        }
    }
}

impl StateConfig {
    /// The shared state this section describes (Redis is connected lazily, on first use, so a
    /// replica starts while Redis is down and reports it through readiness).
    pub fn build(&self) -> Result<SharedState, ConfigError> {
        match self.backend {
            StateBackend::Memory => Ok(SharedState::memory()),
            StateBackend::Redis => {
                let url = self.redis_url.as_deref().ok_or_else(|| {
                    ConfigError::Invalid(
                        "state.redis_url is required when state.backend = \"redis\"".into(),
                    )
                })?;
                let redis = RedisState::new(
                    url,
                    &self.key_prefix,
                    Duration::from_millis(self.timeout_ms.max(1)),
                )
                .map_err(|e| {
                    ConfigError::Invalid(format!(
                        "state.redis_url: {}",
                        x402_core::scrub_text(&e.to_string())
                    ))
                })?;
                Ok(SharedState::Redis(redis))
            }
        }
    }
}

/// The shared state of one service: in memory, or a Redis connection. Cheap to clone.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SharedState {
    /// Everything in this process.
    Memory,
    /// Everything in Redis.
    Redis(RedisState),
}

impl SharedState {
    /// The in-process state.
    pub fn memory() -> Self {
        Self::Memory
    }

    /// The replay guard.
    pub fn replay_guard(&self) -> Arc<dyn ReplayGuard> {
        match self {
            Self::Memory => Arc::new(InMemoryReplayGuard::new()),
            Self::Redis(redis) => Arc::new(RedisReplayGuard {
                redis: redis.clone(),
            }),
        }
    }

    /// The unpaid limiter for `allowance`.
    pub fn unpaid_counter(&self, allowance: UnpaidAllowance) -> Arc<dyn UnpaidCounter> {
        match self {
            Self::Memory => Arc::new(UnpaidLimiter::new(allowance)),
            Self::Redis(redis) => Arc::new(RedisUnpaidLimiter::new(redis.clone(), allowance)),
        }
    }

    /// The payer limits: `concurrency` verified requests of one payer at work at once, and
    /// `failures` failed ones per window.
    pub fn payer_limits(&self, failures: UnpaidAllowance, concurrency: u32) -> PayerLimits {
        let backend = match self {
            Self::Memory => PayerBackend::Memory {
                work: Arc::new(Slots::new(concurrency)),
                failures: Arc::new(Allowance::new(failures)),
            },
            Self::Redis(redis) => {
                let (period_ms, tolerance_ms) = gcra_millis(failures);
                PayerBackend::Redis(Arc::new(RedisPayers {
                    redis: redis.clone(),
                    take: redis::Script::new(PAYER_TAKE_SCRIPT),
                    finish: redis::Script::new(PAYER_FINISH_SCRIPT),
                    concurrency: u64::from(concurrency.max(1)),
                    period_ms,
                    tolerance_ms,
                }))
            }
        };
        PayerLimits { backend }
    }

    /// The MCP session store shared by the replicas; `None` in memory, where the MCP server
    /// keeps its own.
    pub fn mcp_sessions(&self) -> Option<RedisSessions> {
        match self {
            Self::Memory => None,
            Self::Redis(redis) => Some(RedisSessions {
                redis: redis.clone(),
                open: Arc::new(redis::Script::new(SESSION_OPEN_SCRIPT)),
                touch: Arc::new(redis::Script::new(SESSION_TOUCH_SCRIPT)),
            }),
        }
    }

    /// The store of settlements in progress.
    pub fn pending_settlements(&self) -> Arc<dyn PendingSettlements> {
        match self {
            Self::Memory => Arc::new(InMemoryPending::default()),
            Self::Redis(redis) => Arc::new(RedisPending {
                redis: redis.clone(),
            }),
        }
    }

    /// The store of answers bought with a payment id, each kept only up to `max_entry_bytes`
    /// (and in memory up to `max_memory_bytes` in all), and of settlements' transactions.
    pub fn paid_answers(
        &self,
        max_entry_bytes: usize,
        max_memory_bytes: usize,
    ) -> Arc<dyn PaidAnswers> {
        match self {
            Self::Memory => Arc::new(InMemoryPaidAnswers::new(max_entry_bytes, max_memory_bytes)),
            Self::Redis(redis) => Arc::new(RedisPaidAnswers {
                redis: redis.clone(),
                max_entry_bytes,
                abandon: redis::Script::new(ABANDON_SCRIPT),
            }),
        }
    }

    /// The Redis answer store for answers kept `ttl`, each at most `max_entry_bytes`; `None`
    /// in memory, where the service keeps its own cache.
    pub fn answer_store(
        &self,
        ttl: Duration,
        max_entry_bytes: usize,
    ) -> Option<Arc<dyn AnswerStore>> {
        match self {
            Self::Memory => None,
            Self::Redis(redis) => Some(Arc::new(RedisAnswerStore {
                redis: redis.clone(),
                ttl,
                max_entry_bytes,
            })),
        }
    }

    /// Whether the state can be used now (always, in memory).
    pub async fn ping(&self) -> Result<(), StateError> {
        match self {
            Self::Memory => Ok(()),
            Self::Redis(redis) => redis.ping().await,
        }
    }

    /// The readiness check `state`: Redis answers `PING` (always ok in memory).
    pub fn readiness(&self) -> ReadinessCheck {
        let state = self.clone();
        ReadinessCheck::new("state", move || {
            let state = state.clone();
            async move { state.ping().await.map_err(crate::readiness::NotReady::new) }
        })
    }

    /// Redis calls made so far by this process (0 in memory): for measuring round trips.
    pub fn round_trips(&self) -> u64 {
        match self {
            Self::Memory => 0,
            Self::Redis(redis) => redis.round_trips(),
        }
    }
}

/// One Redis database, connected lazily through a reconnecting [`ConnectionManager`] (one
/// multiplexed connection, shared by every request of this process).
#[derive(Clone)]
pub struct RedisState {
    client: Arc<redis::Client>,
    connection: Arc<tokio::sync::OnceCell<ConnectionManager>>,
    prefix: Arc<str>,
    timeout: Duration,
    round_trips: Arc<AtomicU64>,
}

impl fmt::Debug for RedisState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The client holds the URL, which may carry a password.
        f.debug_struct("RedisState")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisState {
    /// A state at `url` with every key under `prefix`; each call fails after `timeout`.
    pub fn new(url: &str, prefix: &str, timeout: Duration) -> Result<Self, StateError> {
        let client =
            redis::Client::open(url).map_err(|source| StateError::Redis { op: "open", source })?;
        Ok(Self {
            client: Arc::new(client),
            connection: Arc::new(tokio::sync::OnceCell::new()),
            prefix: Arc::from(prefix),
            timeout,
            round_trips: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Redis calls made so far.
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    fn key(&self, parts: std::fmt::Arguments<'_>) -> String {
        format!("{}:{parts}", self.prefix)
    }

    async fn connection(&self) -> Result<ConnectionManager, StateError> {
        let connection = self
            .connection
            .get_or_try_init(|| async {
                // Short timeouts and a capped back-off: a request must fail closed quickly,
                // and a Redis that comes back must be found again within a second or so.
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(self.timeout))
                    .set_response_timeout(Some(self.timeout))
                    .set_max_delay(Duration::from_millis(500))
                    .set_number_of_retries(2);
                ConnectionManager::new_lazy_with_config((*self.client).clone(), config).map_err(
                    |source| StateError::Redis {
                        op: "connect",
                        source,
                    },
                )
            })
            .await?;
        Ok(connection.clone())
    }

    async fn timed<T, F>(&self, op: &'static str, call: F) -> Result<T, StateError>
    where
        F: Future<Output = redis::RedisResult<T>>,
    {
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        metrics::counter!("state_calls_total", "op" => op).increment(1);
        let outcome = match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(source)) => Err(StateError::Redis { op, source }),
            Err(_) => Err(StateError::Timeout {
                op,
                millis: self.timeout.as_millis(),
            }),
        };
        if outcome.is_err() {
            metrics::counter!("state_failures_total", "op" => op).increment(1);
        }
        outcome
    }

    async fn query<T: redis::FromRedisValue>(
        &self,
        op: &'static str,
        command: &redis::Cmd,
    ) -> Result<T, StateError> {
        let mut connection = self.connection().await?;
        self.timed(op, command.query_async(&mut connection)).await
    }

    async fn script<T: redis::FromRedisValue, A: redis::ToRedisArgs>(
        &self,
        op: &'static str,
        script: &redis::Script,
        keys: &[&str],
        args: &[A],
    ) -> Result<T, StateError> {
        let mut connection = self.connection().await?;
        let mut invocation = script.prepare_invoke();
        for key in keys {
            invocation.key(*key);
        }
        for arg in args {
            invocation.arg(arg);
        }
        self.timed(op, invocation.invoke_async(&mut connection))
            .await
    }

    /// `PING`.
    pub async fn ping(&self) -> Result<(), StateError> {
        self.query::<String>("ping", &redis::cmd("PING"))
            .await
            .map(drop)
    }
}

use std::future::Future;

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The text form of a replay key: the same on every replica.
pub fn replay_id(key: &ReplayKey) -> String {
    format!("{}:{}:{}:{}", key.chain_id, key.asset, key.from, key.nonce)
}

mod answer_cache;
mod paid_answers;
mod payers;
mod pending;
mod replay;
mod sessions;
mod unpaid;

pub use answer_cache::*;
pub use paid_answers::*;
pub use payers::*;
pub use pending::*;
pub use replay::*;
pub use sessions::*;
pub use unpaid::*;

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fingerprint: &str, authorization: &str) -> PaidAnswerRecord {
        PaidAnswerRecord {
            fingerprint: fingerprint.into(),
            authorization: authorization.into(),
            state: PaidAnswerState::Working,
        }
    }

    fn answered(claimed: &PaidAnswerRecord, body: &'static [u8]) -> PaidAnswer {
        PaidAnswer {
            record: PaidAnswerRecord {
                state: PaidAnswerState::Answered {
                    status: 200,
                    headers: vec![("payment-response".into(), "e30=".into())],
                },
                ..claimed.clone()
            },
            body: Bytes::from_static(body),
        }
    }

    #[test]
    fn a_paid_answer_reads_back_as_stored_body_bytes_included() {
        let answer = answered(&record("f", "a"), b"{\"x\":1}\n\xff binary");
        let stored = answer.encode().expect("encodes");
        assert_eq!(PaidAnswer::decode(&stored).expect("decodes"), answer);
    }

    #[tokio::test]
    async fn a_claim_binds_once_and_abandon_frees_only_the_claim() {
        let store = InMemoryPaidAnswers::new(1024, 4096);
        let until = unix_now() + 60;
        let first = record("f", "a");
        assert_eq!(store.claim("k", &first, until).await.expect("claim"), None);
        let held = store
            .claim("k", &record("g", "b"), until)
            .await
            .expect("claim");
        assert_eq!(held.map(|held| held.record), Some(first.clone()));
        // Another claim's record does not free it.
        store
            .abandon("k", &record("g", "b"))
            .await
            .expect("abandon");
        assert!(store.get("k").await.expect("get").is_some());
        store.abandon("k", &first).await.expect("abandon");
        assert_eq!(store.get("k").await.expect("get"), None);
        // An answered id is never abandoned.
        assert_eq!(store.claim("k", &first, until).await.expect("claim"), None);
        let answer = answered(&first, b"body");
        store
            .finish("k", answer.clone(), "0xt", until)
            .await
            .expect("finish");
        store.abandon("k", &first).await.expect("abandon");
        assert_eq!(store.get("k").await.expect("get"), Some(answer));
        assert_eq!(store.body_bytes(), 4);
    }

    #[tokio::test]
    async fn answers_over_either_cap_are_kept_as_settled_without_their_body() {
        let store = InMemoryPaidAnswers::new(8, 12);
        let until = unix_now() + 60;
        let claimed = record("f", "a");
        for (key, body) in [("small", &b"12345678"[..]), ("large", &b"123456789"[..])] {
            let answer = PaidAnswer {
                body: Bytes::copy_from_slice(body),
                ..answered(&claimed, b"")
            };
            store
                .finish(key, answer, "0xt", until)
                .await
                .expect("finish");
        }
        let large = store.get("large").await.expect("get").expect("kept");
        assert_eq!(
            large.record.state,
            PaidAnswerState::SettledNotKept {
                transaction: "0xt".into()
            }
        );
        assert!(large.body.is_empty());
        // 8 bytes held: a 5-byte answer would pass the 12 bytes in all.
        let answer = PaidAnswer {
            body: Bytes::from_static(b"12345"),
            ..answered(&claimed, b"")
        };
        store
            .finish("third", answer, "0xu", until)
            .await
            .expect("finish");
        let third = store.get("third").await.expect("get").expect("kept");
        assert!(matches!(
            third.record.state,
            PaidAnswerState::SettledNotKept { .. }
        ));
        assert_eq!(store.body_bytes(), 8);
    }

    #[tokio::test]
    async fn entries_past_their_valid_before_are_gone() {
        let store = InMemoryPaidAnswers::new(1024, 4096);
        let past = unix_now() - 1;
        assert_eq!(
            store
                .claim("k", &record("f", "a"), past)
                .await
                .expect("claim"),
            None
        );
        assert_eq!(store.get("k").await.expect("get"), None);
        assert_eq!(
            store
                .claim("k", &record("g", "b"), unix_now() + 60)
                .await
                .expect("claim"),
            None,
            "an expired claim binds nothing"
        );
        store
            .record_settlement("auth", "0xt", unix_now() + 60)
            .await
            .expect("record");
        assert_eq!(
            store.settlement("auth").await.expect("get").as_deref(),
            Some("0xt")
        );
    }
}
