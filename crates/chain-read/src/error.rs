//! The crate's one error type.

use std::time::Duration;

use alloy::primitives::Bytes;

/// A chain read that could not produce an answer.
///
/// A server maps [`Unreachable`](Self::Unreachable), [`Rpc`](Self::Rpc),
/// [`Reverted`](Self::Reverted), [`Decode`](Self::Decode) and [`WrongChain`](Self::WrongChain)
/// to 502 (the counterparty failed), [`Timeout`](Self::Timeout) to 504,
/// [`InvalidInput`](Self::InvalidInput) to 400 and [`InvalidConfig`](Self::InvalidConfig) to a
/// start-up failure. Per-call failures inside a Multicall3 batch are not errors: they are
/// [`CallFailure`](crate::CallFailure) values next to the successful results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChainReadError {
    /// No endpoint answered (connection refused, DNS, TLS, HTTP error status).
    #[error("RPC endpoint {endpoint} unreachable: {reason}")]
    Unreachable {
        /// The endpoint tried last (host and port only: URLs may hold API keys).
        endpoint: String,
        /// What went wrong.
        reason: String,
    },
    /// The endpoint tried last did not answer within the per-call timeout.
    #[error("RPC endpoint {endpoint} did not answer within {after:?}")]
    Timeout {
        /// The endpoint tried last.
        endpoint: String,
        /// The per-call timeout.
        after: Duration,
    },
    /// The node answered with a JSON-RPC error other than a revert (rate limit, unknown block,
    /// method not supported).
    #[error("RPC endpoint {endpoint} answered error {code}: {message}")]
    Rpc {
        /// The endpoint tried last.
        endpoint: String,
        /// JSON-RPC error code.
        code: i64,
        /// JSON-RPC error message.
        message: String,
    },
    /// The call itself reverted (the whole `eth_call`, not one call of a batch).
    #[error("call reverted: {}", reason.as_deref().unwrap_or("no reason given"))]
    Reverted {
        /// Decoded `Error(string)` / `Panic(uint256)` reason, if any.
        reason: Option<String>,
        /// Raw revert data.
        data: Bytes,
    },
    /// An answer arrived but did not have the expected shape.
    #[error("undecodable answer: {0}")]
    Decode(String),
    /// The endpoint serves another chain than the registry entry it was configured for.
    #[error("RPC endpoint serves chain id {actual}, expected {expected}")]
    WrongChain {
        /// The registry's chain id.
        expected: u64,
        /// What Multicall3 `getChainId()` returned.
        actual: u64,
    },
    /// A request this crate cannot serve as asked.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// Endpoints or registry overrides that cannot be used.
    #[error("invalid chain configuration: {0}")]
    InvalidConfig(String),
}

impl ChainReadError {
    /// Whether another endpoint might answer where this one failed. Reverts and decode errors
    /// of call results are deterministic at a pinned block, so they are not retried.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Unreachable { .. } | Self::Timeout { .. } | Self::Rpc { .. }
        )
    }
}
