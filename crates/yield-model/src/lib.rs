#![doc = include_str!("../README.md")]

pub mod apy;
pub mod figure;
pub mod il;
pub mod net;

pub use decimal_units::Decimal;

/// Why a figure could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum YieldModelError {
    /// A provider's text is not a decimal number.
    #[error("{0:?} is not a decimal number")]
    NotANumber(String),
    /// A figure does not fit 256 bits at 18 decimal places.
    #[error("a figure overflows 256 bits")]
    Overflow,
    /// A division by zero (a zero stake, TVL or holding period).
    #[error("division by zero")]
    DivisionByZero,
    /// The TVL the fee APR divides by is not positive.
    #[error("TVL {0} is not positive")]
    NonPositiveTvl(String),
    /// A price path needs at least two points.
    #[error("a price path needs at least two points, it has {0}")]
    ShortPath(usize),
    /// A path point has a price that is not a positive number.
    #[error("the price path has a price that is not positive at {0}")]
    BadPrice(u64),
    /// Path points are not in strictly increasing time order.
    #[error("the price path is not in increasing time order")]
    Unordered,
    /// A range half-width outside (0, 100) percent.
    #[error("range half-width {0} % is not between 0 and 100")]
    BadRange(f64),
}
