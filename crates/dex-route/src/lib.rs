#![doc = include_str!("../README.md")]

pub mod discovery;
pub mod error;
pub mod gas;
pub mod kinds;
pub mod legs;
pub mod lens;
pub mod liquidity;
pub mod mev;
pub mod outcome;
pub mod plan;
pub mod pricing;
pub mod quote;
pub mod select;

pub use discovery::{Discovery, PoolLookups, not_deployed};
pub use error::RouteError;
pub use gas::{GasConversion, GasPricing, hop, hop_kind, route_gas};
pub use kinds::uniswap_v4::{
    found_by_event as v4_pool_found_by_event, swap_fee_both_ways as v4_swap_fee_both_ways,
};
pub use legs::{LegQuote, PoolStateReads, PoolStates};
pub use liquidity::{
    LiquidityRequest, PoolLiquidity, PoolRef, read_pool_liquidity, read_pool_liquidity_batches,
    read_pool_liquidity_with,
};
pub use outcome::{
    Failure, FailureReason, Leg, PoolVariant, QuoteOutcome, QuoteSource, Route, decimals_of,
};
pub use plan::{LegRole, Pair, QuotePlan, QuoteRequest, quote};
pub use pricing::{PricedRoute, Ranking, leg_mid, rank, route_price_impact_bps};
pub use select::{best_first_leg_per_kind, best_reference, pool_kind};
