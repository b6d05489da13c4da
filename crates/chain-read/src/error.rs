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
    /// A reader answering from calls run elsewhere (the quote lens's one `eth_call`) was asked
    /// for a call that was not run there.
    #[error("call to {target} was not among the calls run ahead")]
    NotRecorded {
        /// The call's target.
        target: alloy::primitives::Address,
    },
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
        if self.is_out_of_gas() {
            // The node ran the call and the EVM ran out of gas: the request asked for more
            // than one call can compute (a trade crossing more ticks than the gas cap allows),
            // not a node failing. Nothing answers it, like a trade no pool quotes.
            return ErrorKind::NoRoute;
        }
        match self {
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::InvalidInput(_) => ErrorKind::InvalidInput,
            Self::InvalidConfig(_) | Self::NotRecorded { .. } => ErrorKind::Internal,
            _ => ErrorKind::Unreachable,
        }
    }

    /// Whether another endpoint might answer where this one failed. Reverts and decode errors
    /// of call results are deterministic at a pinned block, so they are not retried.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Unreachable { .. } | Self::Timeout { .. } | Self::Rpc { .. }
        ) && !self.is_out_of_gas()
    }

    /// Whether the node answered that the call's execution ran out of gas (anvil: "EVM error
    /// OutOfGas"; geth and others: "out of gas"): deterministic at a pinned block.
    pub fn is_out_of_gas(&self) -> bool {
        match self {
            Self::Rpc { message, .. } => {
                let message = message.to_ascii_lowercase();
                message.contains("outofgas") || message.contains("out of gas")
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc(message: &str) -> ChainReadError {
        ChainReadError::Rpc {
            endpoint: "http://127.0.0.1:1".into(),
            code: -32603,
            message: message.into(),
        }
    }

    #[test]
    fn a_call_out_of_gas_is_the_requests_doing_not_the_nodes() {
        for message in ["EVM error OutOfGas", "out of gas"] {
            let error = rpc(message);
            assert_eq!(error.kind(), ErrorKind::NoRoute, "{message}");
            assert!(!error.is_retryable(), "deterministic at a pinned block");
        }
        let limited = rpc("rate limited");
        assert_eq!(limited.kind(), ErrorKind::Unreachable);
        assert!(limited.is_retryable());
    }
}
