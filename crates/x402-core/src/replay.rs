//! The replay guard: one EIP-3009 authorization buys one answer. The chain already refuses a
//! second *transfer*, but without this lock the same header sent twice concurrently would run
//! the paid work twice between verify and settle (x402 issues #803, #1805).

use std::collections::HashMap;
use std::sync::Mutex;

use alloy::primitives::{Address, B256};
use async_trait::async_trait;

/// What identifies one authorization across every replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplayKey {
    /// Chain id.
    pub chain_id: u64,
    /// Token contract.
    pub asset: Address,
    /// Payer.
    pub from: Address,
    /// EIP-3009 nonce.
    pub nonce: B256,
}

/// Why an authorization cannot be used now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// Another request holding it is being served right now.
    #[error("this authorization is already being used by a request in flight")]
    InFlight,
    /// It already paid for an answer.
    #[error("this authorization has already been settled")]
    Settled,
    /// The guard's store cannot be reached, so whether it is in use cannot be known: a caller
    /// must refuse the payment (fail closed).
    #[error("the replay guard's store is unavailable")]
    Unavailable,
}

/// Locks an authorization while its request is served and remembers it once settled.
#[async_trait]
pub trait ReplayGuard: Send + Sync + std::fmt::Debug {
    /// Takes the lock; `expires_at` (unix seconds, the authorization's `validBefore`) bounds how
    /// long a settled key must be remembered, since the token refuses it after that anyway.
    async fn acquire(&self, key: ReplayKey, expires_at: u64) -> Result<(), ReplayError>;
    /// What holds the authorization now, without taking it: `InFlight` or `Settled` when it is
    /// known to be used, `None` when it is free or the store cannot say (then `acquire`
    /// decides). Lets a replayed payment be refused before the facilitator is asked to verify
    /// it; only a verified payment ever enters the guard, so nobody can make a payer's
    /// authorization look used without paying with it.
    async fn peek(&self, key: ReplayKey) -> Option<ReplayError>;
    /// Gives the lock back unsettled: the work failed, the authorization may be used again.
    async fn release(&self, key: ReplayKey);
    /// Records that the authorization paid.
    async fn mark_settled(&self, key: ReplayKey);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyState {
    InFlight,
    Settled,
}

/// The in-process guard (one replica). Settled keys are forgotten once their authorization has
/// expired, so memory stays bounded by the authorizations still valid.
#[derive(Debug, Default)]
pub struct InMemoryReplayGuard {
    entries: Mutex<HashMap<ReplayKey, (KeyState, u64)>>,
    clock: crate::verify::SystemClock,
}

impl InMemoryReplayGuard {
    /// An empty guard.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many authorizations are held or remembered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is held or remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ReplayKey, (KeyState, u64)>> {
        // A poisoned map still holds correct entries: every update is a single insert or remove.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl ReplayGuard for InMemoryReplayGuard {
    async fn acquire(&self, key: ReplayKey, expires_at: u64) -> Result<(), ReplayError> {
        use crate::verify::Clock as _;
        let now = self.clock.now();
        let mut entries = self.lock();
        entries.retain(|_, (state, expiry)| *state == KeyState::InFlight || *expiry >= now);
        match entries.get(&key) {
            Some((KeyState::InFlight, _)) => Err(ReplayError::InFlight),
            Some((KeyState::Settled, _)) => Err(ReplayError::Settled),
            None => {
                entries.insert(key, (KeyState::InFlight, expires_at));
                Ok(())
            }
        }
    }

    async fn peek(&self, key: ReplayKey) -> Option<ReplayError> {
        use crate::verify::Clock as _;
        let now = self.clock.now();
        match self.lock().get(&key) {
            Some((KeyState::InFlight, _)) => Some(ReplayError::InFlight),
            Some((KeyState::Settled, expiry)) if *expiry >= now => Some(ReplayError::Settled),
            _ => None,
        }
    }

    async fn release(&self, key: ReplayKey) {
        let mut entries = self.lock();
        if matches!(entries.get(&key), Some((KeyState::InFlight, _))) {
            entries.remove(&key);
        }
    }

    async fn mark_settled(&self, key: ReplayKey) {
        if let Some(entry) = self.lock().get_mut(&key) {
            entry.0 = KeyState::Settled;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy::primitives::{address, keccak256};

    fn key(nonce: &str) -> ReplayKey {
        ReplayKey {
            chain_id: 8453,
            asset: crate::terms::BASE_USDC,
            from: address!("8d548B243730550eFD52D67A4cA9200EabA26319"),
            nonce: keccak256(nonce),
        }
    }

    #[tokio::test]
    async fn in_flight_then_settled_then_refused() {
        let guard = InMemoryReplayGuard::new();
        let far = u64::MAX;
        assert_eq!(guard.acquire(key("a"), far).await, Ok(()));
        assert_eq!(
            guard.acquire(key("a"), far).await,
            Err(ReplayError::InFlight)
        );
        assert_eq!(guard.acquire(key("b"), far).await, Ok(()));
        guard.mark_settled(key("a")).await;
        assert_eq!(
            guard.acquire(key("a"), far).await,
            Err(ReplayError::Settled)
        );
        guard.release(key("a")).await;
        assert_eq!(
            guard.acquire(key("a"), far).await,
            Err(ReplayError::Settled),
            "release must not forget a settled key"
        );
    }

    #[tokio::test]
    async fn peek_tells_what_holds_a_key_without_taking_it() {
        let guard = InMemoryReplayGuard::new();
        assert_eq!(guard.peek(key("a")).await, None);
        assert_eq!(guard.acquire(key("a"), u64::MAX).await, Ok(()));
        assert_eq!(guard.peek(key("a")).await, Some(ReplayError::InFlight));
        guard.mark_settled(key("a")).await;
        assert_eq!(guard.peek(key("a")).await, Some(ReplayError::Settled));
        assert_eq!(guard.peek(key("b")).await, None);
        assert_eq!(guard.acquire(key("b"), 1).await, Ok(()));
        guard.mark_settled(key("b")).await;
        assert_eq!(
            guard.peek(key("b")).await,
            None,
            "a settled key past its validBefore is no longer remembered"
        );
    }

    #[tokio::test]
    async fn released_keys_can_be_used_again() {
        let guard = InMemoryReplayGuard::new();
        assert_eq!(guard.acquire(key("a"), u64::MAX).await, Ok(()));
        guard.release(key("a")).await;
        assert_eq!(guard.acquire(key("a"), u64::MAX).await, Ok(()));
    }

    #[tokio::test]
    async fn expired_settled_keys_are_forgotten() {
        let guard = InMemoryReplayGuard::new();
        assert_eq!(guard.acquire(key("old"), 1).await, Ok(()));
        guard.mark_settled(key("old")).await;
        assert_eq!(guard.acquire(key("new"), u64::MAX).await, Ok(()));
        assert_eq!(guard.len(), 1);
    }

    #[tokio::test]
    async fn concurrent_acquires_admit_exactly_one() {
        let guard = std::sync::Arc::new(InMemoryReplayGuard::new());
        let tasks: Vec<_> = (0..32)
            .map(|_| {
                let guard = guard.clone();
                tokio::spawn(async move { guard.acquire(key("same"), u64::MAX).await })
            })
            .collect();
        let mut admitted = 0;
        for task in tasks {
            if task.await.expect("task").is_ok() {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 1);
    }
}
