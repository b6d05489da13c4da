//! MCP sessions shared by replicas.

use super::*;

/// The MCP sessions of a service in Redis, so a session opened on one replica is known to all
/// (an MCP client does not necessarily open a new session on a 404: the official TypeScript
/// SDK throws instead). One sorted set, session id → the end of its idle time in ms on Redis's
/// clock: its size is the count of live sessions, bounded like the in-process store.
#[derive(Debug, Clone)]
pub struct RedisSessions {
    pub(super) redis: RedisState,
    pub(super) open: Arc<redis::Script>,
    pub(super) touch: Arc<redis::Script>,
}

/// Opens a session. KEYS: the set. ARGV: id, idle time (ms), most sessions. Answers 1, or 0
/// when `most` live sessions exist already.
pub(super) const SESSION_OPEN_SCRIPT: &str = r"
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
pub(super) const SESSION_TOUCH_SCRIPT: &str = r"
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
