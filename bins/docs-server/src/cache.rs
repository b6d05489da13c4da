//! The answer cache (DESIGN.md §4): a successful answer is kept for 24 hours under the SHA-256
//! of the file and the canonical JSON of the options, and a repeated request is answered from
//! it (and charged the same).

use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A cached answer body (JSON bytes).
pub type CachedAnswer = Arc<Vec<u8>>;

/// The in-process answer cache.
#[derive(Debug, Clone)]
pub struct AnswerCache {
    answers: Cache<String, CachedAnswer>,
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
        Self { answers }
    }

    /// The answer stored under `key`.
    pub async fn get(&self, key: &str) -> Option<CachedAnswer> {
        self.answers.get(key).await
    }

    /// Stores an answer.
    pub async fn put(&self, key: String, answer: CachedAnswer) {
        self.answers.insert(key, answer).await;
    }
}

/// The cache key of a request: the route, the SHA-256 of the file and the options as canonical
/// JSON (serde_json's maps are sorted, so equal options give equal text).
pub fn cache_key(route: &str, file: &[u8], options: &Value) -> String {
    let digest = Sha256::digest(file);
    format!("{route}|{}|{options}", alloy::hex::encode(digest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_depends_on_file_options_and_route_only() {
        let a = cache_key("/document", b"%PDF-1.7", &json!({"pages": [1, 2], "b": 1}));
        let b = cache_key("/document", b"%PDF-1.7", &json!({"b": 1, "pages": [1, 2]}));
        assert_eq!(a, b, "member order does not matter");
        assert_ne!(
            a,
            cache_key("/document", b"%PDF-1.6", &json!({"pages": [1, 2], "b": 1}))
        );
        assert_ne!(
            a,
            cache_key("/document", b"%PDF-1.7", &json!({"pages": [1], "b": 1}))
        );
        assert_ne!(
            a,
            cache_key("/ocr", b"%PDF-1.7", &json!({"pages": [1, 2], "b": 1}))
        );
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
