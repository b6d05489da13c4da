//! The crate's one error type.

use alloy::primitives::Address;
use chain_read::ChainReadError;
use dex_math::MathError;

/// Why a quote could not be made, or why one figure of a priced route is missing.
///
/// [`QuotePlan::new`](crate::QuotePlan::new), [`QuotePlan::discover`](crate::QuotePlan::discover)
/// and [`Discovery::quote`](crate::Discovery::quote) fail the whole read with
/// [`Chain`](Self::Chain), [`SameToken`](Self::SameToken) or [`ZeroAmount`](Self::ZeroAmount);
/// every other variant stands in for one missing figure of a
/// [`PricedRoute`](crate::PricedRoute) or of the [`GasPricing`](crate::GasPricing), next to the
/// figures that could be computed. A DEX, fee tier or pool without a quote is not an error
/// but a [`Failure`](crate::Failure) of the outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// A chain read failed as a whole (node unreachable, too slow, wrong chain, …).
    #[error(transparent)]
    Chain(#[from] ChainReadError),
    /// `token_in` and `token_out` are the same token.
    #[error("token_in and token_out are the same token")]
    SameToken,
    /// The amount sold is zero at quote time.
    #[error("amount_in must be above zero")]
    ZeroAmount,
    /// The gas price was not asked for in discovery.
    #[error("eth_gasPrice was not read")]
    GasPriceNotRead,
    /// The node refused `eth_gasPrice`; its error text.
    #[error("eth_gasPrice failed: {0}")]
    GasPriceFailed(String),
    /// No direct pool quoted the wrapped native token into the output token, so gas cost in
    /// wei has no price in the output token.
    #[error(
        "no direct pool from {native} to {token_out} quoted one {native} at the block, so gas cannot be priced in {token_out}"
    )]
    NoGasConversion {
        /// The wrapped native token.
        native: Address,
        /// The output token.
        token_out: Address,
    },
    /// The route's gas units could not be added up.
    #[error("gas units: {0}")]
    GasUnits(#[source] MathError),
    /// The pool's state was not read (its read failed), so it has no mid price.
    #[error("the state of pool {pool} was not read")]
    PoolStateNotRead {
        /// The pool.
        pool: Address,
    },
    /// A Solidly pool's mid price needs both tokens' decimals, and one was not read.
    #[error("decimals of {token} unknown")]
    DecimalsUnknown {
        /// The token.
        token: Address,
    },
    /// The state read does not belong to the pool's type.
    #[error("pool state and type disagree")]
    StateMismatch,
    /// A pool's mid price could not be computed.
    #[error("mid price: {0}")]
    MidPrice(#[source] MathError),
    /// Gas cost, its conversion, the net output or the price impact overflowed or had no
    /// defined value.
    #[error(transparent)]
    Math(MathError),
}

#[cfg(test)]
mod tests {
    use alloy::primitives::address;

    use super::*;

    #[test]
    fn addresses_print_checksummed() {
        let pool = address!("d0b53d9277642d899df5c87a3966a349a798f224");
        assert_eq!(
            RouteError::PoolStateNotRead { pool }.to_string(),
            format!("the state of pool {} was not read", pool.to_checksum(None))
        );
        assert_eq!(
            RouteError::DecimalsUnknown { token: pool }.to_string(),
            "decimals of 0xd0b53D9277642d899DF5C87A3966A349A798F224 unknown"
        );
    }
}
