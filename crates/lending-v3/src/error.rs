//! The crate's one error type.

use chain_read::{CallFailure, ChainReadError, ErrorKind};

use crate::math::MathError;

/// A position that could not be read or computed; [`LendingError::kind`] classifies it.
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

impl LendingError {
    /// This error's [`ErrorKind`]: a chain read as chain-read classifies it; a market whose
    /// contracts do not answer as an Aave V3 market does is the counterparty failing
    /// ([`Unreachable`](ErrorKind::Unreachable)); arithmetic out of range is internal.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Chain(error) => error.kind(),
            Self::Read { .. } | Self::Unexpected(_) => ErrorKind::Unreachable,
            Self::Math(_) => ErrorKind::Internal,
        }
    }
}
