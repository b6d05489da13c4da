//! The crate's one error type.

use chain_read::{CallFailure, ChainReadError};

use crate::math::MathError;

/// A position that could not be read or computed.
///
/// A server maps [`Chain`](Self::Chain) as it maps every chain-read error (502/504),
/// [`Read`](Self::Read) and [`Unexpected`](Self::Unexpected) to 502 (the market's contracts did
/// not answer as an Aave V3 market does), and [`Math`](Self::Math) to 500.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LendingError {
    /// The node could not be read at all.
    #[error(transparent)]
    Chain(#[from] ChainReadError),
    /// A call the answer cannot do without failed inside its batch.
    #[error("{what} failed: {failure}")]
    Read {
        /// The contract and getter, e.g. `PoolAddressesProvider.getPool`.
        what: String,
        /// Why.
        failure: CallFailure,
    },
    /// The market answered something no Aave V3 market answers (a zero Pool, revision 0, eMode
    /// getters missing for the revision).
    #[error("{0}")]
    Unexpected(String),
    /// Arithmetic the protocol would revert on too.
    #[error("arithmetic on the position failed: {0}")]
    Math(#[from] MathError),
}
