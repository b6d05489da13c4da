//! The one error type of the crate. Each variant of the pool maths names the `require` of the
//! Solidity source that would have reverted, so a caller can tell "the contract would revert"
//! from a bug; the last ones are about caller input (amount strings, tolerances).

use alloy::primitives::U256;

/// Why a computation has no result (the contract would revert on the same inputs).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MathError {
    /// A division by zero (FullMath with a zero denominator, a zero reserve, …).
    #[error("division by zero")]
    DivisionByZero,
    /// A result or an intermediate value does not fit its Solidity type.
    #[error("arithmetic overflow")]
    Overflow,
    /// A checked subtraction went below zero.
    #[error("arithmetic underflow")]
    Underflow,
    /// `|tick| > MAX_TICK` (TickMath `T`).
    #[error("tick {0} outside [MIN_TICK, MAX_TICK]")]
    TickOutOfRange(i32),
    /// A sqrt price outside `[MIN_SQRT_RATIO, MAX_SQRT_RATIO)` (TickMath `R`).
    #[error("sqrt price {0} outside [MIN_SQRT_RATIO, MAX_SQRT_RATIO)")]
    SqrtPriceOutOfRange(U256),
    /// A sqrt price of zero, or one wider than the 160 bits Solidity stores.
    #[error("invalid sqrt price {0}")]
    InvalidSqrtPrice(U256),
    /// Zero liquidity where SqrtPriceMath requires some.
    #[error("zero liquidity")]
    ZeroLiquidity,
    /// The next price would leave the representable range (SqrtPriceMath requires).
    #[error("the next sqrt price is out of bounds")]
    PriceOutOfBounds,
    /// A V3 fee of 1e6 pips or more, or a constant-product fee of 10,000 bps or more.
    #[error("fee {0} out of range")]
    InvalidFee(u32),
    /// A zero amount (pool `AS`, UniswapV2Library `INSUFFICIENT_INPUT/OUTPUT_AMOUNT`).
    #[error("zero amount")]
    ZeroAmount,
    /// Empty reserves, or an amount out not below the reserve (`INSUFFICIENT_LIQUIDITY`).
    #[error("insufficient liquidity")]
    InsufficientLiquidity,
    /// Crossing a tick would make the active liquidity negative or overflow (`LS`/`LA`).
    #[error("liquidity out of range after crossing tick {0}")]
    LiquidityOutOfRange(i32),
    /// The price limit is on the wrong side of the price or beyond the range (pool `SPL`).
    #[error("invalid sqrt price limit {0}")]
    InvalidPriceLimit(U256),
    /// The tick spacing is not positive.
    #[error("invalid tick spacing {0}")]
    InvalidTickSpacing(i32),
    /// An initialized tick that is not a multiple of the spacing, or outside the tick range.
    #[error("tick {0} is not a usable tick for this spacing")]
    UnusableTick(i32),
    /// The Solidly stable-curve Newton loop did not converge within 255 rounds (`!y`).
    #[error("stable curve did not converge")]
    StableNotConverged,
    /// A whole-unit amount that is not digits with at most one decimal point.
    #[error("{0:?} is not a decimal amount")]
    InvalidDecimal(String),
    /// A whole-unit amount with nonzero digits beyond the token's decimals.
    #[error("{digits} fractional digits, but the token has {decimals} decimals")]
    TooManyFractionDigits {
        /// Significant fractional digits written.
        digits: usize,
        /// The token's decimals.
        decimals: u8,
    },
    /// A slippage tolerance above 10,000 bps (100 %).
    #[error("slippage {0} bps is above 10000")]
    SlippageOutOfRange(u32),
    /// A Balancer `_require` with this `BAL#` code (`BalancerErrors.sol`), such as 304 for a
    /// swap above 30 % of the balance in.
    #[error("Balancer would revert with BAL#{0:03}")]
    Balancer(u16),
}
