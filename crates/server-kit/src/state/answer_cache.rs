//! The document answer cache, when shared.

use super::*;

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
    pub(super) redis: RedisState,
    pub(super) ttl: Duration,
    pub(super) max_entry_bytes: usize,
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
