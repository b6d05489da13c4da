//! The payer limits: paid work at once and failures per window, in memory or in Redis.

use super::*;

/// One payer's limits, taken once its payment is verified: how many of its requests may be at
/// work at once, and how many may fail per window (a failure unit is taken with the slot and
/// given back when the request succeeds). In memory they bound one replica; in Redis they hold
/// across all of them, taken and given back by one atomic script each.
#[derive(Debug, Clone)]
pub struct PayerLimits {
    pub(super) backend: PayerBackend,
}

#[derive(Debug, Clone)]
pub(super) enum PayerBackend {
    Memory {
        work: Arc<Slots<Address>>,
        failures: Arc<Allowance<Address>>,
    },
    Redis(Arc<RedisPayers>),
}

#[derive(Debug)]
pub(super) struct RedisPayers {
    pub(super) redis: RedisState,
    pub(super) take: redis::Script,
    pub(super) finish: redis::Script,
    pub(super) concurrency: u64,
    pub(super) period_ms: u64,
    pub(super) tolerance_ms: u64,
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
    pub(super) payer: Address,
    pub(super) succeeded: bool,
    pub(super) backend: HoldBackend,
}

#[derive(Debug)]
pub(super) enum HoldBackend {
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
pub(super) fn random_token() -> u64 {
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
pub(super) const PAYER_TAKE_SCRIPT: &str = r"
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
pub(super) const PAYER_FINISH_SCRIPT: &str = r"
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
