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

/// The node's refusal of `eth_gasPrice`, in its own words. The gas price rides beside a batch
/// and is never pinned, so its failure is a value next to the batch's results, not an error
/// of the batch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GasPriceError(pub String);

/// What kind of failure an error is, as a server answers it: each library classifies its own
/// errors (as alloy's `is_retryable` does) and a server maps each kind to a status once. The
/// libraries on top of this crate (dex-route, lending-v3, price-check, oracle-sources,
/// yield-read) use the same kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request cannot be served as asked (the caller's input).
    InvalidInput,
    /// The address named is not what the request says it is (not a pool of the pair, of a
    /// known factory).
    UnknownPool,
    /// The protocol asked for is not available on the chain.
    Unsupported,
    /// Nothing answers the request (no pool quoted the trade).
    NoRoute,
    /// What the request names is not listed where it was looked up.
    NotFound,
    /// What the request names matches several entries.
    Ambiguous,
    /// A counterparty (a node, a provider, a contract) failed or answered what it should not.
    Unreachable,
    /// A counterparty did not answer in time.
    Timeout,
    /// The service's own configuration, or arithmetic that has no result.
    Internal,
}

impl ChainReadError {
    /// This error's [`ErrorKind`]: node trouble is [`Unreachable`](ErrorKind::Unreachable), a
    /// node too slow for its per-call timeout [`Timeout`](ErrorKind::Timeout), a request the
    /// reader cannot serve [`InvalidInput`](ErrorKind::InvalidInput), a configuration that
    /// cannot be used [`Internal`](ErrorKind::Internal).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::InvalidInput(_) => ErrorKind::InvalidInput,
            Self::InvalidConfig(_) => ErrorKind::Internal,
            _ => ErrorKind::Unreachable,
        }
    }

    /// Whether another endpoint might answer where this one failed. Reverts and decode errors
    /// of call results are deterministic at a pinned block, so they are not retried.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Unreachable { .. } | Self::Timeout { .. } | Self::Rpc { .. }
        )
    }
}
