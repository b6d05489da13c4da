//! The answer cache: a successful answer is kept for 24 hours under the SHA-256
//! of the file and the canonical JSON of the options, and a repeated request is answered from
//! it (and charged the same).

use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;
use serde_json::Value;
use server_kit::state::{AnswerStore, SharedState};

use crate::source::FileDigest;

/// A cached answer body (JSON bytes).
pub type CachedAnswer = Arc<Vec<u8>>;

/// The answer cache: in process (moka, bounded by total bytes), or shared by every replica in
/// Redis when `[state] backend = "redis"` (bounded per entry).
#[derive(Debug, Clone)]
pub struct AnswerCache {
    store: Store,
}

#[derive(Debug, Clone)]
enum Store {
    Memory(Cache<String, CachedAnswer>),
    Shared(Arc<dyn AnswerStore>),
}

impl AnswerCache {
    /// A cache keeping answers for `ttl`, holding at most `max_bytes` of answers.
    pub fn new(ttl: Duration, max_bytes: u64) -> Self {
        let answers = Cache::builder()
            .time_to_live(ttl)
            .weigher(|_key: &String, value: &CachedAnswer| {
                u32::try_from(value.len()).unwrap_or(u32::MAX)
            })
            .max_capacity(max_bytes)
            .build();
        Self {
            store: Store::Memory(answers),
        }
    }

    /// The cache `state` asks for: shared through its answer store (answers of at most
    /// `max_entry_bytes`), or [`Self::new`] in memory.
    pub fn for_state(
        state: &SharedState,
        ttl: Duration,
        max_bytes: u64,
        max_entry_bytes: usize,
    ) -> Self {
        match state.answer_store(ttl, max_entry_bytes) {
            Some(store) => Self {
                store: Store::Shared(store),
            },
            None => Self::new(ttl, max_bytes),
        }
    }

    /// The answer stored under `key`. A shared store that cannot be reached is a miss: the
    /// gate has already refused the payment if the state is down, and a miss only costs work.
    pub async fn get(&self, key: &str) -> Option<CachedAnswer> {
        match &self.store {
            Store::Memory(answers) => answers.get(key).await,
            Store::Shared(store) => match store.get(key).await {
                Ok(answer) => answer.map(|bytes| Arc::new(bytes.to_vec())),
                Err(e) => {
                    tracing::warn!(error = %e, "answer cache unavailable; answering as a miss");
                    None
                }
            },
        }
    }

    /// Stores an answer.
    pub async fn put(&self, key: String, answer: CachedAnswer) {
        match &self.store {
            Store::Memory(answers) => answers.insert(key, answer).await,
            Store::Shared(store) => {
                let bytes = bytes::Bytes::from(answer.as_ref().clone());
                if let Err(e) = store.put(&key, bytes).await {
                    tracing::warn!(error = %e, "an answer could not be cached");
                }
            }
        }
    }
}

/// The cache key of a request: the route, the SHA-256 of the file and the options as canonical
/// JSON (serde_json's maps are sorted, so equal options give equal text).
pub fn cache_key(route: &str, file: &FileDigest, options: &Value) -> String {
    format!("{route}|{file}|{options}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_depends_on_file_options_and_route_only() {
        let a = cache_key(
            "/document",
            &FileDigest::of(b"%PDF-1.7"),
            &json!({"pages": [1, 2], "b": 1}),
        );
        let b = cache_key(
            "/document",
            &FileDigest::of(b"%PDF-1.7"),
            &json!({"b": 1, "pages": [1, 2]}),
        );
        assert_eq!(a, b, "member order does not matter");
        assert_ne!(
            a,
            cache_key(
                "/document",
                &FileDigest::of(b"%PDF-1.6"),
                &json!({"pages": [1, 2], "b": 1})
            )
        );
        assert_ne!(
            a,
            cache_key(
                "/document",
                &FileDigest::of(b"%PDF-1.7"),
                &json!({"pages": [1], "b": 1})
            )
        );
        assert_ne!(
            a,
            cache_key(
                "/ocr",
                &FileDigest::of(b"%PDF-1.7"),
                &json!({"pages": [1, 2], "b": 1})
            )
        );
    }

    #[tokio::test]
    async fn devnet_shared_answers_are_seen_by_another_replica_and_capped_per_entry() {
        let redis = test_devnet::RedisServer::spawn().expect("redis-server");
        let replica = || {
            let mut config = server_kit::state::StateConfig {
                backend: server_kit::state::StateBackend::Redis,
                redis_url: Some(redis.url()),
                ..Default::default()
            };
            config.key_prefix = "docs".into();
            let state = config.build().expect("state");
            AnswerCache::for_state(&state, Duration::from_secs(60), 1 << 20, 16)
        };
        let (a, b) = (replica(), replica());
        a.put("k".into(), Arc::new(b"{\"a\":1}".to_vec())).await;
        assert_eq!(b.get("k").await.as_deref(), Some(&b"{\"a\":1}".to_vec()));
        a.put("big".into(), Arc::new(vec![b' '; 17])).await;
        assert!(
            b.get("big").await.is_none(),
            "over the entry cap: not stored"
        );
        drop(redis);
        assert!(b.get("k").await.is_none(), "an unreachable cache is a miss");
    }

    #[tokio::test]
    async fn answers_expire() {
        let cache = AnswerCache::new(Duration::from_millis(50), 1 << 20);
        cache.put("k".into(), Arc::new(b"{}".to_vec())).await;
        assert!(cache.get("k").await.is_some());
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(cache.get("k").await.is_none());
    }
}
