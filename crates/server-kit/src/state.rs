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
            async move { state.ping().await.map_err(|e| e.to_string()) }
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

// ---------------------------------------------------------------------------------------------
// Replay guard.

const INFLIGHT: &str = "inflight";
const SETTLED: &str = "settled";

/// Deletes a replay key only while it is in flight: a settled key is never given back.
const RELEASE_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) == 'inflight' then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// The replay guard in Redis: one `SET key inflight NX GET PX ttl` takes the lock atomically
/// across replicas (and says what held it otherwise), with the authorization's remaining
/// lifetime as TTL: after `validBefore` the token refuses the authorization anyway.
#[derive(Debug, Clone)]
pub struct RedisReplayGuard {
    redis: RedisState,
}

impl RedisReplayGuard {
    fn key(&self, key: &ReplayKey) -> String {
        self.redis.key(format_args!("replay:{}", replay_id(key)))
    }
}

#[async_trait]
impl ReplayGuard for RedisReplayGuard {
    async fn acquire(&self, key: ReplayKey, expires_at: u64) -> Result<(), ReplayError> {
        let ttl_ms = expires_at
            .saturating_sub(unix_now())
            .saturating_mul(1000)
            .max(1000);
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(&key))
            .arg(INFLIGHT)
            .arg("NX")
            .arg("GET")
            .arg("PX")
            .arg(ttl_ms);
        match self
            .redis
            .query::<Option<String>>("replay_acquire", &command)
            .await
        {
            Ok(None) => Ok(()),
            Ok(Some(held)) if held == SETTLED => Err(ReplayError::Settled),
            Ok(Some(_)) => Err(ReplayError::InFlight),
            Err(e) => {
                warn!(error = %e, "replay lock unavailable; refusing the payment");
                Err(ReplayError::Unavailable)
            }
        }
    }

    async fn peek(&self, key: ReplayKey) -> Option<ReplayError> {
        let mut command = redis::cmd("GET");
        command.arg(self.key(&key));
        match self
            .redis
            .query::<Option<String>>("replay_peek", &command)
            .await
        {
            Ok(Some(held)) if held == SETTLED => Some(ReplayError::Settled),
            Ok(Some(_)) => Some(ReplayError::InFlight),
            // Free, or unknown: the lock after verification decides (and fails closed).
            Ok(None) | Err(_) => None,
        }
    }

    async fn release(&self, key: ReplayKey) {
        let script = redis::Script::new(RELEASE_SCRIPT);
        let redis_key = self.key(&key);
        if let Err(e) = self
            .redis
            .script::<i64, u64>("replay_release", &script, &[&redis_key], &[])
            .await
        {
            // The lock then stays until `validBefore`: the payer is not charged and pays again
            // with a new authorization. Safe, if unkind.
            warn!(error = %e, "an authorization could not be released");
        }
    }

    async fn mark_settled(&self, key: ReplayKey) {
        // KEEPTTL: remembered until `validBefore`; XX: a key that expired meanwhile belongs to
        // an authorization the token refuses already.
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(&key))
            .arg(SETTLED)
            .arg("XX")
            .arg("KEEPTTL");
        if let Err(e) = self
            .redis
            .query::<Option<String>>("replay_settled", &command)
            .await
        {
            // It stays `inflight` until `validBefore`: refused all the same.
            warn!(error = %e, "a settled authorization could not be marked");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unpaid limiter.

/// Counts unpaid requests per client: in memory ([`UnpaidLimiter`]) or in Redis
/// ([`RedisUnpaidLimiter`]).
#[async_trait]
pub trait UnpaidCounter: Send + Sync + fmt::Debug {
    /// Takes one unit of `client`'s allowance: `Ok(Err(seconds))` when it is used up.
    async fn take(&self, client: ClientKey) -> Result<Result<(), u64>, StateError>;
    /// Gives one unit back (the request turned out to be paid).
    async fn refund(&self, client: ClientKey);
}

#[async_trait]
impl UnpaidCounter for UnpaidLimiter {
    async fn take(&self, client: ClientKey) -> Result<Result<(), u64>, StateError> {
        Ok(self.check(client.address()))
    }

    async fn refund(&self, client: ClientKey) {
        Self::refund(self, client.address());
    }
}

/// GCRA in one script, on Redis's clock (so replicas with skewed clocks agree). ARGV: period
/// and tolerance in ms, then 1 to take or 0 to refund. Answers 0 when taken (or refunded), or
/// the milliseconds until a unit is free.
const GCRA_SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local period = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
if ARGV[3] == '0' then
  local earlier = tat - period
  if earlier > now then
    redis.call('SET', KEYS[1], earlier, 'PX', earlier - now)
  else
    redis.call('DEL', KEYS[1])
  end
  return 0
end
local used = tat - now
if used > tolerance then
  return used - tolerance
end
local later = tat + period
redis.call('SET', KEYS[1], later, 'PX', later - now)
return 0
";

/// The unpaid allowance in Redis: the same GCRA as [`UnpaidLimiter`], atomic across replicas.
#[derive(Debug)]
pub struct RedisUnpaidLimiter {
    redis: RedisState,
    script: redis::Script,
    period_ms: u64,
    tolerance_ms: u64,
}

/// A GCRA allowance's period and tolerance in milliseconds.
fn gcra_millis(allowance: UnpaidAllowance) -> (u64, u64) {
    let requests = u64::from(allowance.requests.max(1));
    let window_ms = u64::try_from(allowance.window.as_millis()).unwrap_or(u64::MAX);
    let period_ms = (window_ms / requests).max(1);
    (period_ms, period_ms.saturating_mul(requests - 1))
}

impl RedisUnpaidLimiter {
    /// A limiter for `allowance` in `redis`.
    pub fn new(redis: RedisState, allowance: UnpaidAllowance) -> Self {
        let (period_ms, tolerance_ms) = gcra_millis(allowance);
        Self {
            redis,
            script: redis::Script::new(GCRA_SCRIPT),
            period_ms,
            tolerance_ms,
        }
    }

    fn key(&self, client: ClientKey) -> String {
        self.redis.key(format_args!("unpaid:{client}"))
    }
}

#[async_trait]
impl UnpaidCounter for RedisUnpaidLimiter {
    async fn take(&self, client: ClientKey) -> Result<Result<(), u64>, StateError> {
        let key = self.key(client);
        let wait_ms: u64 = self
            .redis
            .script(
                "unpaid_take",
                &self.script,
                &[&key],
                &[self.period_ms, self.tolerance_ms, 1],
            )
            .await?;
        Ok(if wait_ms == 0 {
            Ok(())
        } else {
            Err(wait_ms.div_ceil(1000))
        })
    }

    async fn refund(&self, client: ClientKey) {
        let key = self.key(client);
        if let Err(e) = self
            .redis
            .script::<u64, u64>(
                "unpaid_refund",
                &self.script,
                &[&key],
                &[self.period_ms, self.tolerance_ms, 0],
            )
            .await
        {
            warn!(error = %e, "an unpaid unit could not be given back");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Payer limits.

/// One payer's limits, taken once its payment is verified: how many of its requests may be at
/// work at once, and how many may fail per window (a failure unit is taken with the slot and
/// given back when the request succeeds). In memory they bound one replica; in Redis they hold
/// across all of them, taken and given back by one atomic script each.
#[derive(Debug, Clone)]
pub struct PayerLimits {
    backend: PayerBackend,
}

#[derive(Debug, Clone)]
enum PayerBackend {
    Memory {
        work: Arc<Slots<Address>>,
        failures: Arc<Allowance<Address>>,
    },
    Redis(Arc<RedisPayers>),
}

#[derive(Debug)]
struct RedisPayers {
    redis: RedisState,
    take: redis::Script,
    finish: redis::Script,
    concurrency: u64,
    period_ms: u64,
    tolerance_ms: u64,
}

impl RedisPayers {
    fn keys(&self, payer: Address) -> (String, String) {
        (
            self.redis.key(format_args!("payer-work:{payer}")),
            self.redis.key(format_args!("payer-failures:{payer}")),
        )
    }

    async fn finish(&self, payer: Address, token: u64, succeeded: bool) {
        let (work, failures) = self.keys(payer);
        if let Err(e) = self
            .redis
            .script::<i64, u64>(
                "payer_finish",
                &self.finish,
                &[&work, &failures],
                &[token, u64::from(succeeded), self.period_ms],
            )
            .await
        {
            // The slot then lapses with its lease; the failure unit refills with the window.
            warn!(error = %e, "a payer's slot could not be given back");
        }
    }
}

/// What [`PayerLimits::take`] decided.
#[derive(Debug)]
#[non_exhaustive]
pub enum PayerTake {
    /// A work slot and a failure unit, held until the hold is dropped.
    Held(PayerHold),
    /// The payer already has as many requests at work as allowed.
    Busy,
    /// Too many of the payer's requests failed recently: seconds until one more may run.
    Failing(u64),
}

/// The payer's work slot and failure unit of one request. Dropping it frees the slot, and
/// gives the failure unit back if [`Self::succeeded`] was called (in Redis on a task of its
/// own: a drop cannot wait).
#[derive(Debug)]
pub struct PayerHold {
    payer: Address,
    succeeded: bool,
    backend: HoldBackend,
}

#[derive(Debug)]
enum HoldBackend {
    Memory {
        _slot: Slot<Address>,
        failures: Arc<Allowance<Address>>,
    },
    Redis {
        payers: Arc<RedisPayers>,
        token: u64,
    },
}

impl PayerHold {
    /// The request was paid, or may have been: its failure unit goes back to the payer.
    pub fn succeeded(&mut self) {
        self.succeeded = true;
    }
}

impl Drop for PayerHold {
    fn drop(&mut self) {
        match &self.backend {
            HoldBackend::Memory { failures, .. } => {
                if self.succeeded {
                    failures.refund(self.payer);
                }
            }
            HoldBackend::Redis { payers, token } => {
                let (payers, token, payer, succeeded) =
                    (payers.clone(), *token, self.payer, self.succeeded);
                match tokio::runtime::Handle::try_current() {
                    Ok(runtime) => {
                        runtime.spawn(async move { payers.finish(payer, token, succeeded).await });
                    }
                    // The slot lapses with its lease.
                    Err(_) => warn!("a payer's slot could not be given back: no runtime"),
                }
            }
        }
    }
}

impl PayerLimits {
    /// Takes a work slot and a failure unit of `payer` (both or neither). In Redis the slot
    /// lapses after `lease` even if its replica dies holding it; `Err` when Redis cannot be
    /// asked (the caller fails closed).
    pub async fn take(&self, payer: Address, lease: Duration) -> Result<PayerTake, StateError> {
        match &self.backend {
            PayerBackend::Memory { work, failures } => {
                let Some(slot) = work.try_take(payer) else {
                    return Ok(PayerTake::Busy);
                };
                if let Err(retry_after) = failures.take(payer) {
                    return Ok(PayerTake::Failing(retry_after));
                }
                Ok(PayerTake::Held(PayerHold {
                    payer,
                    succeeded: false,
                    backend: HoldBackend::Memory {
                        _slot: slot,
                        failures: failures.clone(),
                    },
                }))
            }
            PayerBackend::Redis(payers) => {
                let (work, failures) = payers.keys(payer);
                let token = random_token();
                let lease_ms = u64::try_from(lease.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1000);
                let answer: i64 = payers
                    .redis
                    .script(
                        "payer_take",
                        &payers.take,
                        &[&work, &failures],
                        &[
                            payers.concurrency,
                            lease_ms,
                            token,
                            payers.period_ms,
                            payers.tolerance_ms,
                        ],
                    )
                    .await?;
                Ok(match answer {
                    0 => PayerTake::Held(PayerHold {
                        payer,
                        succeeded: false,
                        backend: HoldBackend::Redis {
                            payers: payers.clone(),
                            token,
                        },
                    }),
                    wait_ms if wait_ms > 0 => {
                        PayerTake::Failing(wait_ms.unsigned_abs().div_ceil(1000))
                    }
                    _ => PayerTake::Busy,
                })
            }
        }
    }
}

/// A random slot token: replicas must not pick the same one for one payer.
fn random_token() -> u64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // Without the OS's randomness: the clock and a counter, unique within this process.
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        return (u64::from(nanos) << 32) | COUNTER.fetch_add(1, Ordering::Relaxed);
    }
    u64::from_le_bytes(bytes)
}

/// Takes one work slot and one failure unit of a payer, atomically, on Redis's clock. KEYS: the
/// work set, the failure GCRA key. ARGV: concurrency, lease (ms), token, period and tolerance
/// (ms). Answers 0 when both were taken, -1 when the payer has `concurrency` slots whose leases
/// have not ended, or the milliseconds until a failure unit is free (then nothing is taken).
const PAYER_TAKE_SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return -1
end
local period = tonumber(ARGV[4])
local tolerance = tonumber(ARGV[5])
local tat = tonumber(redis.call('GET', KEYS[2]) or now)
if tat < now then tat = now end
local used = tat - now
if used > tolerance then
  return used - tolerance
end
local later = tat + period
redis.call('SET', KEYS[2], later, 'PX', later - now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(last[2]))
return 0
";

/// Gives a payer's slot back, and with ARGV[2] = 1 its failure unit too (the GCRA refund).
/// KEYS: the work set, the failure key. ARGV: token, succeeded (1 or 0), period (ms).
const PAYER_FINISH_SCRIPT: &str = r"
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local tat = tonumber(redis.call('GET', KEYS[2]) or now)
  local earlier = tat - tonumber(ARGV[3])
  if earlier > now then
    redis.call('SET', KEYS[2], earlier, 'PX', earlier - now)
  else
    redis.call('DEL', KEYS[2])
  end
end
return 0
";

// ---------------------------------------------------------------------------------------------
// MCP sessions.

/// The MCP sessions of a service in Redis, so a session opened on one replica is known to all
/// (an MCP client does not necessarily open a new session on a 404: the official TypeScript
/// SDK throws instead). One sorted set, session id → the end of its idle time in ms on Redis's
/// clock: its size is the count of live sessions, bounded like the in-process store.
#[derive(Debug, Clone)]
pub struct RedisSessions {
    redis: RedisState,
    open: Arc<redis::Script>,
    touch: Arc<redis::Script>,
}

/// Opens a session. KEYS: the set. ARGV: id, idle time (ms), most sessions. Answers 1, or 0
/// when `most` live sessions exist already.
const SESSION_OPEN_SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
";

/// Uses a session: answers 1 and restarts its idle time if it is live, else forgets it and
/// answers 0. KEYS: the set. ARGV: id, idle time (ms).
const SESSION_TOUCH_SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ends = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not ends then
  return 0
end
if tonumber(ends) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
";

impl RedisSessions {
    fn key(&self) -> String {
        self.redis.key(format_args!("mcp-sessions"))
    }

    /// Opens session `id` for `idle`, unless `most` sessions are live: `Ok(false)` then.
    pub async fn open(&self, id: &str, idle: Duration, most: usize) -> Result<bool, StateError> {
        let idle_ms = idle.as_millis().max(1).to_string();
        let opened: i64 = self
            .redis
            .script(
                "mcp_session_open",
                &self.open,
                &[&self.key()],
                &[id, &idle_ms, &most.to_string()],
            )
            .await?;
        Ok(opened == 1)
    }

    /// Whether session `id` is live (and then it is kept `idle` longer).
    pub async fn touch(&self, id: &str, idle: Duration) -> Result<bool, StateError> {
        let idle_ms = idle.as_millis().max(1).to_string();
        let live: i64 = self
            .redis
            .script(
                "mcp_session_touch",
                &self.touch,
                &[&self.key()],
                &[id, &idle_ms],
            )
            .await?;
        Ok(live == 1)
    }

    /// Ends session `id`: whether it was open.
    pub async fn close(&self, id: &str) -> Result<bool, StateError> {
        let mut command = redis::cmd("ZREM");
        command.arg(self.key()).arg(id);
        let removed: i64 = self.redis.query("mcp_session_close", &command).await?;
        Ok(removed == 1)
    }
}

// ---------------------------------------------------------------------------------------------
// Pending settlements.

/// A settlement sent (or about to be sent) to the facilitator whose outcome this replica has
/// not recorded yet. Written before the settle call and cleared once its outcome is recorded,
/// so a replica that dies in between leaves it for another one to resolve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingSettlement {
    /// [`replay_id`] of the authorization.
    pub id: String,
    /// The route that did the work.
    pub route: String,
    /// The payment, as verified.
    pub payload: PaymentPayload,
    /// The terms it paid.
    pub requirements: PaymentRequirements,
    /// When the record was written, unix seconds.
    pub recorded_at: u64,
    /// The authorization's `validBefore`, unix seconds.
    pub expires_at: u64,
    /// The payment id the payment carried, if any, so that the resolver can say what it came
    /// to (absent in records written before payment ids were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paid_answer: Option<PendingAnswer>,
}

/// The payment id of a pending settlement: its key and its record while the outcome is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAnswer {
    /// `{payer}:{id}` ([`paid_answer_key`]).
    pub key: String,
    /// The record as it stands while the settlement's outcome is unknown.
    pub record: PaidAnswerRecord,
}

/// Where [`PendingSettlement`]s are kept.
#[async_trait]
pub trait PendingSettlements: Send + Sync + fmt::Debug {
    /// Records `record` (before its settle call).
    async fn record(&self, record: &PendingSettlement) -> Result<(), StateError>;
    /// Forgets the record `id` (its outcome is recorded).
    async fn clear(&self, id: &str) -> Result<(), StateError>;
    /// Every record.
    async fn list(&self) -> Result<Vec<PendingSettlement>, StateError>;
    /// Claims `id` for resolution for `lease`: true for exactly one caller per lease, so two
    /// replicas never both resolve one record.
    async fn claim(&self, id: &str, lease: Duration) -> Result<bool, StateError>;
}

/// The in-process store (one replica: it dies with its process, like the settlement).
#[derive(Debug, Default)]
pub struct InMemoryPending {
    records: Mutex<HashMap<String, PendingSettlement>>,
}

#[async_trait]
impl PendingSettlements for InMemoryPending {
    async fn record(&self, record: &PendingSettlement) -> Result<(), StateError> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(record.id.clone(), record.clone());
        Ok(())
    }

    async fn clear(&self, id: &str) -> Result<(), StateError> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        Ok(())
    }

    async fn list(&self) -> Result<Vec<PendingSettlement>, StateError> {
        Ok(self
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect())
    }

    async fn claim(&self, id: &str, _lease: Duration) -> Result<bool, StateError> {
        // One process: removing it is the claim.
        Ok(self
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id))
    }
}

/// The Redis store: one hash of JSON records, and a `SET NX PX` per claim.
#[derive(Debug, Clone)]
pub struct RedisPending {
    redis: RedisState,
}

impl RedisPending {
    fn hash(&self) -> String {
        self.redis.key(format_args!("pending"))
    }
}

#[async_trait]
impl PendingSettlements for RedisPending {
    async fn record(&self, record: &PendingSettlement) -> Result<(), StateError> {
        let json = serde_json::to_string(record)?;
        let mut command = redis::cmd("HSET");
        command.arg(self.hash()).arg(&record.id).arg(json);
        self.redis
            .query::<i64>("pending_record", &command)
            .await
            .map(drop)
    }

    async fn clear(&self, id: &str) -> Result<(), StateError> {
        let mut command = redis::cmd("HDEL");
        command.arg(self.hash()).arg(id);
        self.redis
            .query::<i64>("pending_clear", &command)
            .await
            .map(drop)
    }

    async fn list(&self) -> Result<Vec<PendingSettlement>, StateError> {
        let mut command = redis::cmd("HGETALL");
        command.arg(self.hash());
        let records: HashMap<String, String> = self.redis.query("pending_list", &command).await?;
        let mut out = Vec::with_capacity(records.len());
        for json in records.values() {
            match serde_json::from_str(json) {
                Ok(record) => out.push(record),
                // One unreadable record must not hide the others; it stays for a person.
                Err(e) => warn!(error = %e, "a pending settlement record cannot be read"),
            }
        }
        Ok(out)
    }

    async fn claim(&self, id: &str, lease: Duration) -> Result<bool, StateError> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.redis.key(format_args!("pending-claim:{id}")))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(u64::try_from(lease.as_millis()).unwrap_or(u64::MAX).max(1));
        let taken: Option<String> = self.redis.query("pending_claim", &command).await?;
        Ok(taken.is_some())
    }
}

// ---------------------------------------------------------------------------------------------
// Answer cache.

/// A store of answers by key (the document service's answer cache, when shared).
#[async_trait]
pub trait AnswerStore: Send + Sync + fmt::Debug {
    /// The answer stored under `key`.
    async fn get(&self, key: &str) -> Result<Option<Bytes>, StateError>;
    /// Stores `answer` under `key` (an answer over the store's size cap is not stored).
    async fn put(&self, key: &str, answer: Bytes) -> Result<(), StateError>;
}

/// Answers in Redis: `SET PX ttl` under the SHA-256 of the key (keys hold canonical JSON of
/// any length), each at most `max_entry_bytes`.
#[derive(Debug, Clone)]
pub struct RedisAnswerStore {
    redis: RedisState,
    ttl: Duration,
    max_entry_bytes: usize,
}

impl RedisAnswerStore {
    fn key(&self, key: &str) -> String {
        let digest = Sha256::digest(key.as_bytes());
        self.redis
            .key(format_args!("answer:{}", alloy::hex::encode(digest)))
    }
}

#[async_trait]
impl AnswerStore for RedisAnswerStore {
    async fn get(&self, key: &str) -> Result<Option<Bytes>, StateError> {
        let mut command = redis::cmd("GET");
        command.arg(self.key(key));
        let answer: Option<Vec<u8>> = self.redis.query("answer_get", &command).await?;
        Ok(answer.map(Bytes::from))
    }

    async fn put(&self, key: &str, answer: Bytes) -> Result<(), StateError> {
        if answer.len() > self.max_entry_bytes {
            metrics::counter!("answer_cache_oversize_total").increment(1);
            return Ok(());
        }
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(key))
            .arg(answer.as_ref())
            .arg("PX")
            .arg(
                u64::try_from(self.ttl.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
            );
        self.redis
            .query::<Option<String>>("answer_put", &command)
            .await
            .map(drop)
    }
}

// ---------------------------------------------------------------------------------------------
// Paid answers (the payment-identifier extension) and settlement receipts.

/// What a payment id has bought so far ([`PaidAnswer::record`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PaidAnswerState {
    /// Verified and taken: the work runs, or its settlement does.
    Working,
    /// Settled, and the answer is kept: status and headers here, the body beside.
    Answered {
        /// The answer's status.
        status: u16,
        /// The answer's headers (`PAYMENT-RESPONSE` among them).
        headers: Vec<(String, String)>,
    },
    /// Settled, but the answer was over the size cap and is not kept.
    SettledNotKept {
        /// The settlement's transaction hash.
        transaction: String,
    },
    /// The settlement was sent and its outcome is unknown (it may still land).
    SettlementUnknown,
    /// As [`Self::SettlementUnknown`], with the answer kept (its body beside) for the repeats
    /// that come once the pending resolver finds the transfer landed: the answer was paid for.
    SettlementUnknownKept {
        /// The answer's status.
        status: u16,
        /// The answer's headers (without a receipt: it is added once settled).
        headers: Vec<(String, String)>,
        /// The settlement's transaction hash when the facilitator named one; empty otherwise.
        transaction: String,
    },
}

/// The record of one (payer, payment id): the request it was first sent with, the authorization
/// that pays for it, and how far it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidAnswerRecord {
    /// SHA-256 (hex) of the request's method, path and body.
    pub fingerprint: String,
    /// SHA-256 (hex) of the signed authorization (the payload's `payload`: authorization and
    /// signature), so only a holder of that signature is handed the answer without verification.
    pub authorization: String,
    /// Where it is.
    pub state: PaidAnswerState,
}

/// A [`PaidAnswerRecord`] and, once answered, the answer's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidAnswer {
    /// The record.
    pub record: PaidAnswerRecord,
    /// The body of an [`PaidAnswerState::Answered`] record; empty otherwise.
    pub body: Bytes,
}

impl PaidAnswer {
    /// A record without a body.
    pub fn without_body(record: PaidAnswerRecord) -> Self {
        Self {
            record,
            body: Bytes::new(),
        }
    }

    /// Stored form: the record's JSON, a line break (JSON from serde_json never holds a raw
    /// one), then the body's bytes.
    fn encode(&self) -> Result<Vec<u8>, StateError> {
        let mut out = serde_json::to_vec(&self.record)?;
        out.push(b'\n');
        out.extend_from_slice(&self.body);
        Ok(out)
    }

    fn decode(stored: &[u8]) -> Result<Self, StateError> {
        let split = stored
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(stored.len());
        let record = serde_json::from_slice(&stored[..split])?;
        let body = Bytes::copy_from_slice(stored.get(split + 1..).unwrap_or_default());
        Ok(Self { record, body })
    }

    /// The same record with the body dropped because it is over `max_bytes`: settled, not kept.
    fn capped(self, max_bytes: usize, transaction: &str) -> Self {
        if self.body.len() <= max_bytes {
            return self;
        }
        metrics::counter!("paid_answers_not_kept_total").increment(1);
        let state = match self.record.state {
            // Not known to be settled: only its doubt is kept.
            PaidAnswerState::SettlementUnknownKept { .. } => PaidAnswerState::SettlementUnknown,
            _ => PaidAnswerState::SettledNotKept {
                transaction: transaction.to_owned(),
            },
        };
        Self::without_body(PaidAnswerRecord {
            state,
            ..self.record
        })
    }
}

/// Where the answers bought with a payment id, and the transaction of each settled
/// authorization, are kept until `until` (unix seconds: the gate passes the authorization's
/// `validBefore` plus the gate's `REPEAT_GRACE`).
///
/// Keys are `{payer}:{id}` for answers and [`replay_id`] for settlements.
#[async_trait]
pub trait PaidAnswers: Send + Sync + fmt::Debug {
    /// Binds `key` to `record` (normally [`PaidAnswerState::Working`]) unless it is bound
    /// already: `None` when it is bound now, the entry that holds it otherwise. Atomic across
    /// replicas: of two concurrent claims, one gets `None`.
    async fn claim(
        &self,
        key: &str,
        record: &PaidAnswerRecord,
        until: u64,
    ) -> Result<Option<PaidAnswer>, StateError>;
    /// The entry of `key`.
    async fn get(&self, key: &str) -> Result<Option<PaidAnswer>, StateError>;
    /// Replaces the entry of `key` with `answer`. An answer whose body is over the store's cap
    /// is kept as [`PaidAnswerState::SettledNotKept`] with `transaction`.
    async fn finish(
        &self,
        key: &str,
        answer: PaidAnswer,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError>;
    /// Forgets `key` if it is still `claimed` (the work failed or was refused: nothing was
    /// charged, so the id may be used again).
    async fn abandon(&self, key: &str, claimed: &PaidAnswerRecord) -> Result<(), StateError>;
    /// Records that the authorization `authorization` ([`replay_id`]) settled in `transaction`.
    async fn record_settlement(
        &self,
        authorization: &str,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError>;
    /// The transaction that settled `authorization`, if known.
    async fn settlement(&self, authorization: &str) -> Result<Option<String>, StateError>;
}

/// The key of a payer's payment id.
pub fn paid_answer_key(payer: &Address, id: &str) -> String {
    format!("{payer}:{id}")
}

/// The in-process store: bodies bounded by `max_total_bytes` together (an answer that would
/// pass it is kept as settled-not-kept, like one over `max_entry_bytes`), entries dropped
/// after their `validBefore`.
#[derive(Debug)]
pub struct InMemoryPaidAnswers {
    max_entry_bytes: usize,
    max_total_bytes: usize,
    inner: Mutex<MemoryAnswers>,
}

#[derive(Debug, Default)]
struct MemoryAnswers {
    answers: HashMap<String, (PaidAnswer, u64)>,
    settlements: HashMap<String, (String, u64)>,
    body_bytes: usize,
    purged_at: u64,
}

impl MemoryAnswers {
    /// Drops what expired, at most once a second (a scan of every entry).
    fn purge(&mut self, now: u64) {
        if now == self.purged_at {
            return;
        }
        self.purged_at = now;
        let mut freed = 0;
        self.answers.retain(|_, (answer, until)| {
            let keep = *until >= now;
            if !keep {
                freed += answer.body.len();
            }
            keep
        });
        self.body_bytes = self.body_bytes.saturating_sub(freed);
        self.settlements.retain(|_, (_, until)| *until >= now);
    }

    fn remove(&mut self, key: &str) {
        if let Some((old, _)) = self.answers.remove(key) {
            self.body_bytes = self.body_bytes.saturating_sub(old.body.len());
        }
    }
}

impl InMemoryPaidAnswers {
    /// A store keeping answers of at most `max_entry_bytes`, `max_total_bytes` in all.
    pub fn new(max_entry_bytes: usize, max_total_bytes: usize) -> Self {
        Self {
            max_entry_bytes,
            max_total_bytes,
            inner: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryAnswers> {
        // Every update leaves the maps consistent: a poisoned lock still holds good entries.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes of answer bodies held now.
    pub fn body_bytes(&self) -> usize {
        self.lock().body_bytes
    }
}

#[async_trait]
impl PaidAnswers for InMemoryPaidAnswers {
    async fn claim(
        &self,
        key: &str,
        record: &PaidAnswerRecord,
        until: u64,
    ) -> Result<Option<PaidAnswer>, StateError> {
        let now = unix_now();
        let mut inner = self.lock();
        inner.purge(now);
        if let Some((held, held_until)) = inner.answers.get(key)
            && *held_until >= now
        {
            return Ok(Some(held.clone()));
        }
        inner.remove(key);
        inner.answers.insert(
            key.to_owned(),
            (PaidAnswer::without_body(record.clone()), until),
        );
        Ok(None)
    }

    async fn get(&self, key: &str) -> Result<Option<PaidAnswer>, StateError> {
        let now = unix_now();
        Ok(self
            .lock()
            .answers
            .get(key)
            .filter(|(_, until)| *until >= now)
            .map(|(answer, _)| answer.clone()))
    }

    async fn finish(
        &self,
        key: &str,
        answer: PaidAnswer,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let mut inner = self.lock();
        inner.remove(key);
        let room = self.max_total_bytes.saturating_sub(inner.body_bytes);
        let answer = answer.capped(self.max_entry_bytes.min(room), transaction);
        inner.body_bytes += answer.body.len();
        inner.answers.insert(key.to_owned(), (answer, until));
        Ok(())
    }

    async fn abandon(&self, key: &str, claimed: &PaidAnswerRecord) -> Result<(), StateError> {
        let mut inner = self.lock();
        if inner
            .answers
            .get(key)
            .is_some_and(|(held, _)| held.record == *claimed)
        {
            inner.remove(key);
        }
        Ok(())
    }

    async fn record_settlement(
        &self,
        authorization: &str,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let mut inner = self.lock();
        inner.purge(unix_now());
        inner
            .settlements
            .insert(authorization.to_owned(), (transaction.to_owned(), until));
        Ok(())
    }

    async fn settlement(&self, authorization: &str) -> Result<Option<String>, StateError> {
        Ok(self
            .lock()
            .settlements
            .get(authorization)
            .map(|(transaction, _)| transaction.clone()))
    }
}

/// The Redis store: `{p}:paid:{payer}:{id}` holds the encoded [`PaidAnswer`] (claimed with
/// `SET NX GET`), `{p}:settled:{replay id}` the transaction hash; both expire at the
/// authorization's `validBefore`.
#[derive(Debug)]
pub struct RedisPaidAnswers {
    redis: RedisState,
    max_entry_bytes: usize,
    abandon: redis::Script,
}

/// Deletes KEYS[1] only while it still holds ARGV[1] (the claim), so an answer recorded
/// meanwhile is never dropped.
const ABANDON_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// Milliseconds from now until `until` (unix seconds), at least one second.
fn ttl_until(until: u64) -> u64 {
    until
        .saturating_sub(unix_now())
        .saturating_mul(1000)
        .max(1000)
}

impl RedisPaidAnswers {
    fn answer_key(&self, key: &str) -> String {
        self.redis.key(format_args!("paid:{key}"))
    }

    fn settlement_key(&self, authorization: &str) -> String {
        self.redis.key(format_args!("settled:{authorization}"))
    }

    /// `SET key value PX` until `until`.
    async fn set_until(
        &self,
        op: &'static str,
        key: String,
        value: &[u8],
        until: u64,
    ) -> Result<(), StateError> {
        let mut command = redis::cmd("SET");
        command.arg(key).arg(value).arg("PX").arg(ttl_until(until));
        self.redis
            .query::<Option<String>>(op, &command)
            .await
            .map(drop)
    }
}

#[async_trait]
impl PaidAnswers for RedisPaidAnswers {
    async fn claim(
        &self,
        key: &str,
        record: &PaidAnswerRecord,
        until: u64,
    ) -> Result<Option<PaidAnswer>, StateError> {
        let value = PaidAnswer::without_body(record.clone()).encode()?;
        let mut command = redis::cmd("SET");
        command
            .arg(self.answer_key(key))
            .arg(value)
            .arg("NX")
            .arg("GET")
            .arg("PX")
            .arg(ttl_until(until));
        let held: Option<Vec<u8>> = self.redis.query("paid_claim", &command).await?;
        held.map(|held| PaidAnswer::decode(&held)).transpose()
    }

    async fn get(&self, key: &str) -> Result<Option<PaidAnswer>, StateError> {
        let mut command = redis::cmd("GET");
        command.arg(self.answer_key(key));
        let held: Option<Vec<u8>> = self.redis.query("paid_get", &command).await?;
        held.map(|held| PaidAnswer::decode(&held)).transpose()
    }

    async fn finish(
        &self,
        key: &str,
        answer: PaidAnswer,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let value = answer.capped(self.max_entry_bytes, transaction).encode()?;
        self.set_until("paid_finish", self.answer_key(key), &value, until)
            .await
    }

    async fn abandon(&self, key: &str, claimed: &PaidAnswerRecord) -> Result<(), StateError> {
        let value = PaidAnswer::without_body(claimed.clone()).encode()?;
        let redis_key = self.answer_key(key);
        self.redis
            .script::<i64, Vec<u8>>("paid_abandon", &self.abandon, &[&redis_key], &[value])
            .await
            .map(drop)
    }

    async fn record_settlement(
        &self,
        authorization: &str,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let key = self.settlement_key(authorization);
        self.set_until("settlement_record", key, transaction.as_bytes(), until)
            .await
    }

    async fn settlement(&self, authorization: &str) -> Result<Option<String>, StateError> {
        let mut command = redis::cmd("GET");
        command.arg(self.settlement_key(authorization));
        self.redis.query("settlement_get", &command).await
    }
}

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
