//! The replay guard in Redis: one authorization, one answer, across replicas.

use super::*;

pub(super) const INFLIGHT: &str = "inflight";
pub(super) const SETTLED: &str = "settled";

/// Deletes a replay key only while it is in flight: a settled key is never given back.
pub(super) const RELEASE_SCRIPT: &str = r"
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
    pub(super) redis: RedisState,
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
