//! The crate's one error type.

use alloy::primitives::U256;
use dex_math::MathError;

/// Why a sandwich computation has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MevError {
    /// The exact pool maths refused (a revert of the pool or of its library, a partial fill).
    #[error("pool maths: {0}")]
    Math(#[from] MathError),
    /// The victim's trade has a zero input.
    #[error("the victim's amount in is zero")]
    ZeroVictimAmount,
    /// The victim's `amount_out_min` exceeds what the pool gives it without any attack, so
    /// its transaction would revert on its own and there is no front-run to bound.
    #[error("amount_out_min {amount_out_min} is above the unattacked output {unattacked_out}")]
    AmountOutMinAboveQuote {
        /// The caller's minimum.
        amount_out_min: U256,
        /// What the pool gives the victim at its current state.
        unattacked_out: U256,
    },
    /// An order split into zero parts, or into more parts than the amount has atomic units.
    #[error("cannot split {amount} into {parts} parts")]
    InvalidSplit {
        /// The amount to split.
        amount: U256,
        /// The number of parts asked for.
        parts: u32,
    },
    /// A swap event whose amounts show no input token (both or neither side paid in).
    #[error("swap event {tx_index}/{log_index} in block {block} has no single input side")]
    AmbiguousSwap {
        /// The event's block.
        block: u64,
        /// Its transaction index.
        tx_index: u64,
        /// Its log index.
        log_index: u64,
    },
}
