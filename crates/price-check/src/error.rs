//! The crate's one error type.

/// Why a cross-check has no answer at all (a failed source is a row, not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The chain could not be read (node down, too slow, wrong chain).
    #[error(transparent)]
    Chain(#[from] chain_read::ChainReadError),
}

impl CheckError {
    /// This error's [`ErrorKind`](chain_read::ErrorKind): the chain read's own.
    pub fn kind(&self) -> chain_read::ErrorKind {
        match self {
            Self::Chain(error) => error.kind(),
        }
    }
}
