#![doc = include_str!("../README.md")]

pub mod balancer;
pub mod error;
pub mod full_math;
pub mod gas;
pub mod price;
pub mod ranking;
pub mod solidly;
pub mod sqrt_price_math;
pub mod swap_math;
pub mod tick_bitmap;
pub mod tick_math;
pub mod uniswap_v2;
pub mod units;
pub mod v3_pool;

pub use error::MathError;
pub use full_math::{mul_div, mul_div_rounding_up};
pub use price::{
    Ratio, constant_product_mid_price, price_impact_bps, route_price_impact_bps,
    sqrt_price_x96_to_f64, sqrt_price_x96_to_ratio, v3_mid_price,
};
pub use ranking::{Candidate, amount_out_min, best_by_gross, best_by_net};
pub use solidly::SolidlyPool;
pub use sqrt_price_math::{
    get_amount0_delta, get_amount0_delta_signed, get_amount1_delta, get_amount1_delta_signed,
    get_next_sqrt_price_from_input, get_next_sqrt_price_from_output,
};
pub use swap_math::{SwapStep, compute_swap_step};
pub use tick_math::{
    MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, get_sqrt_ratio_at_tick,
    get_tick_at_sqrt_ratio,
};
pub use units::{format_signed_units, format_units, parse_units};
pub use v3_pool::{PoolState, SwapResult, ValidPoolState, simulate_swap};
