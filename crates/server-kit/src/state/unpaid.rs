//! The unpaid allowance per client, in memory or in Redis.

use super::*;

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
pub(super) const GCRA_SCRIPT: &str = r"
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
    pub(super) redis: RedisState,
    pub(super) script: redis::Script,
    pub(super) period_ms: u64,
    pub(super) tolerance_ms: u64,
}

/// A GCRA allowance's period and tolerance in milliseconds.
pub(super) fn gcra_millis(allowance: UnpaidAllowance) -> (u64, u64) {
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
