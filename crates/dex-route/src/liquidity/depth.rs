//! Capital within a price band around the current price, per side.
//!
//! The definition is Uniswap's marketdepth-v3 (`Depth.sol`): for a band of δ the upper target
//! is `√P·√(1+δ)` and the lower target `√P/√(1+δ)` (the price divided by `1+δ`, its default;
//! not `1−δ`), with `√(1+δ)` as the Q96 integer `sqrtDepthX96`. The upper side holds token0
//! (what a buyer of token0 takes out while pushing the price up to the target), the lower side
//! token1. Amounts are the pool's own `SqrtPriceMath` deltas rounded down, summed over the
//! ranges between initialized ticks, exactly as `Depth.sol` walks them.

use std::collections::BTreeMap;

use alloy::primitives::{U256, U512};
use dex_math::sqrt_price_math::{get_amount0_delta, get_amount1_delta};
use dex_math::tick_math::{MAX_SQRT_RATIO, MIN_SQRT_RATIO, get_sqrt_ratio_at_tick};
use dex_math::{MathError, mul_div};

const Q96: U256 = U256::from_limbs([0, 1 << 32, 0, 0]);

/// `⌊√(1 + percent/100) · 2^96⌋`, marketdepth-v3's `sqrtDepthX96`, as an exact integer
/// square root. (The README's 2 % constant, 80016521857016597127997947904, is a
/// floating-point product: it is 3.4·10⁻¹⁷ above the exact value.)
pub fn sqrt_depth_x96(percent: u32) -> U256 {
    // (100 + p)/100 · 2^192, whose integer square root is the Q96 value.
    let scaled: U512 = (U512::from(100 + percent) << 192) / U512::from(100u8);
    scaled.root(2).saturating_to::<U256>()
}

/// The two target square-root prices of a band: (lower, upper), clamped to the tick range.
pub fn band_targets(sqrt_price_x96: U256, percent: u32) -> Result<(U256, U256), MathError> {
    let depth = sqrt_depth_x96(percent);
    let upper = mul_div(sqrt_price_x96, depth, Q96)?.min(MAX_SQRT_RATIO - U256::from(1));
    let lower = mul_div(sqrt_price_x96, Q96, depth)?.max(MIN_SQRT_RATIO);
    Ok((lower, upper))
}

/// Capital of one band: token0 above the price, token1 below it, raw units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandCapital {
    /// The band, percent of the price.
    pub percent: u32,
    /// Token0 between the price and `price·(1+δ)`.
    pub upper_token0: U256,
    /// Token1 between `price/(1+δ)` and the price.
    pub lower_token1: U256,
    /// `√` of the upper target, Q96.
    pub upper_sqrt_price_x96: U256,
    /// `√` of the lower target, Q96.
    pub lower_sqrt_price_x96: U256,
}

/// A concentrated-liquidity pool as the walk needs it.
#[derive(Debug, Clone, Copy)]
pub struct ClSnapshot<'t> {
    /// `slot0.sqrtPriceX96`.
    pub sqrt_price_x96: U256,
    /// `slot0.tick`.
    pub tick: i32,
    /// In-range liquidity.
    pub liquidity: u128,
    /// Every initialized tick between the lowest and highest target, with `liquidityNet`.
    pub ticks: &'t BTreeMap<i32, i128>,
}

/// Capital within each band, walking the initialized ticks outward from the current tick.
/// `ticks` must hold every initialized tick between the band's targets (a missing tick is
/// read as uninitialized and gives a wrong sum).
pub fn concentrated_bands(
    pool: ClSnapshot<'_>,
    percents: &[u32],
) -> Result<Vec<BandCapital>, MathError> {
    percents
        .iter()
        .map(|&percent| {
            let (lower, upper) = band_targets(pool.sqrt_price_x96, percent)?;
            Ok(BandCapital {
                percent,
                upper_token0: walk_up(pool, upper)?,
                lower_token1: walk_down(pool, lower)?,
                upper_sqrt_price_x96: upper,
                lower_sqrt_price_x96: lower,
            })
        })
        .collect()
}

fn apply_net(liquidity: u128, net: i128) -> Result<u128, MathError> {
    let next = i128::try_from(liquidity).map_err(|_| MathError::Overflow)? + net;
    u128::try_from(next).map_err(|_| MathError::Underflow)
}

/// Token0 between the price and `target` (above it): crossing a tick upwards adds its net.
fn walk_up(pool: ClSnapshot<'_>, target: U256) -> Result<U256, MathError> {
    let mut amount = U256::ZERO;
    let mut sqrt_current = pool.sqrt_price_x96;
    let mut liquidity = pool.liquidity;
    for (&tick, &net) in pool.ticks.range(pool.tick.saturating_add(1)..) {
        let sqrt_tick = get_sqrt_ratio_at_tick(tick)?;
        if sqrt_tick >= target {
            break;
        }
        amount += get_amount0_delta(sqrt_current, sqrt_tick, liquidity, false)?;
        liquidity = apply_net(liquidity, net)?;
        sqrt_current = sqrt_tick;
    }
    Ok(amount + get_amount0_delta(sqrt_current, target, liquidity, false)?)
}

/// Token1 between `target` and the price (below it): crossing a tick downwards removes its
/// net. The current tick itself is at or below the price, so it is the first one crossed.
fn walk_down(pool: ClSnapshot<'_>, target: U256) -> Result<U256, MathError> {
    let mut amount = U256::ZERO;
    let mut sqrt_current = pool.sqrt_price_x96;
    let mut liquidity = pool.liquidity;
    for (&tick, &net) in pool.ticks.range(..=pool.tick).rev() {
        let sqrt_tick = get_sqrt_ratio_at_tick(tick)?;
        if sqrt_tick <= target {
            break;
        }
        amount += get_amount1_delta(sqrt_tick, sqrt_current, liquidity, false)?;
        liquidity = apply_net(liquidity, -net)?;
        sqrt_current = sqrt_tick;
    }
    Ok(amount + get_amount1_delta(target, sqrt_current, liquidity, false)?)
}

/// Capital of each band on the `x·y = k` curve (Uniswap V2 pairs, Solidly volatile pools):
/// moving the price by `1+δ` leaves `reserve/√(1+δ)` of the token taken out, so the band
/// holds `reserve − reserve·2^96/sqrtDepthX96` (rounded so the pool keeps the remainder).
pub fn constant_product_bands(
    reserve0: U256,
    reserve1: U256,
    percents: &[u32],
) -> Result<Vec<BandCapital>, MathError> {
    let sqrt_price = if reserve0.is_zero() {
        U256::ZERO
    } else {
        // √(r1/r0)·2^96, only reported beside the amounts.
        let squared: U512 = (U512::from(reserve1) << 192) / U512::from(reserve0);
        squared.root(2).saturating_to::<U256>()
    };
    percents
        .iter()
        .map(|&percent| {
            let depth = sqrt_depth_x96(percent);
            let within = |reserve: U256| -> Result<U256, MathError> {
                Ok(reserve - dex_math::mul_div_rounding_up(reserve, Q96, depth)?.min(reserve))
            };
            let (lower, upper) = if sqrt_price.is_zero() {
                (U256::ZERO, U256::ZERO)
            } else {
                (
                    mul_div(sqrt_price, Q96, depth)?,
                    mul_div(sqrt_price, depth, Q96)?,
                )
            };
            Ok(BandCapital {
                percent,
                upper_token0: within(reserve0)?,
                lower_token1: within(reserve1)?,
                upper_sqrt_price_x96: upper,
                lower_sqrt_price_x96: lower,
            })
        })
        .collect()
}

/// Capital of each band on a Solidly stable curve (`x³y + xy³ = k`): what the pool pays out
/// of token0 while its marginal price of token0 rises to `price·(1+δ)` (upper) and of token1
/// while it falls to `price/(1+δ)` (lower). The curve has no closed form for this, so the
/// amount is found by bisection over the pool's exact `getAmountOut` maths with the fee set to
/// zero (the fee leaves the pool and does not move its price): the largest input whose
/// resulting marginal price has not passed the edge. The edge comparison is made on the
/// prices as floats (relative precision about 10⁻¹⁵); every amount is the contract's integer
/// maths.
pub fn solidly_stable_bands(
    pool: &dex_math::SolidlyPool,
    percents: &[u32],
) -> Result<Vec<BandCapital>, MathError> {
    let feeless = dex_math::SolidlyPool {
        fee_bps: 0,
        ..*pool
    };
    let price0 = feeless.mid_price(true)?;
    let sqrt_of = |ratio: &dex_math::Ratio, factor: f64| -> U256 {
        // √(price·factor)·2^96, only reported beside the amounts.
        let value = ratio.to_f64() * factor;
        U256::from((value.sqrt() * 2f64.powi(96)) as u128)
    };
    percents
        .iter()
        .map(|&percent| {
            let factor = 1.0 + f64::from(percent) / 100.0;
            let target = price0.to_f64() * factor;
            // Selling token1 in pays token0 out and raises token0's price.
            let upper_token0 = paid_out_until(&feeless, false, |price| price >= target)?;
            let target = price0.to_f64() / factor;
            let lower_token1 = paid_out_until(&feeless, true, |price| price <= target)?;
            Ok(BandCapital {
                percent,
                upper_token0,
                lower_token1,
                upper_sqrt_price_x96: sqrt_of(&price0, factor),
                lower_sqrt_price_x96: sqrt_of(&price0, 1.0 / factor),
            })
        })
        .collect()
}

/// The output of the largest input of `token0_in` whose resulting price of token0 (token1 per
/// token0) has not yet `passed` the band edge.
fn paid_out_until(
    pool: &dex_math::SolidlyPool,
    token0_in: bool,
    passed: impl Fn(f64) -> bool,
) -> Result<U256, MathError> {
    let after = |amount_in: U256| -> Result<(U256, f64), MathError> {
        let out = pool.get_amount_out(amount_in, token0_in)?;
        let (reserve0, reserve1) = if token0_in {
            (
                pool.reserve0 + amount_in,
                pool.reserve1 - out.min(pool.reserve1),
            )
        } else {
            (
                pool.reserve0 - out.min(pool.reserve0),
                pool.reserve1 + amount_in,
            )
        };
        let moved = dex_math::SolidlyPool {
            reserve0,
            reserve1,
            ..*pool
        };
        Ok((out, moved.mid_price(true)?.to_f64()))
    };
    // Bracket: double the input until the price has passed the edge.
    let reserve_in = if token0_in {
        pool.reserve0
    } else {
        pool.reserve1
    };
    let mut high = (reserve_in / U256::from(1_000u32)).max(U256::from(1u8));
    let mut rounds = 0;
    while !passed(after(high)?.1) {
        high = high
            .checked_mul(U256::from(2u8))
            .ok_or(MathError::Overflow)?;
        rounds += 1;
        if rounds > 200 {
            return Err(MathError::StableNotConverged);
        }
    }
    let mut low = U256::ZERO;
    // Invariant: low has not passed, high has.
    while high - low > U256::from(1u8) {
        let middle = low + (high - low) / U256::from(2u8);
        if passed(after(middle)?.1) {
            high = middle;
        } else {
            low = middle;
        }
    }
    if low.is_zero() {
        return Ok(U256::ZERO);
    }
    Ok(after(low)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dex_math::tick_math::get_tick_at_sqrt_ratio;

    #[test]
    fn sqrt_depth_matches_marketdepth_v3() {
        // The 2 % constant of marketdepth-v3's README, within its floating-point error.
        let readme = "80016521857016597127997947904"
            .parse::<U256>()
            .expect("in range");
        let exact = sqrt_depth_x96(2);
        assert_eq!(
            exact,
            "80016521857016594389520272648"
                .parse::<U256>()
                .expect("in range")
        );
        assert!(readme - exact < readme >> 50);
        // Exact: its square is at most 1.02·2^192 and the next integer's is above.
        let target = (U512::from(102u8) << 192) / U512::from(100u8);
        let root = U512::from(exact);
        assert!(root * root <= target && (root + U512::from(1)) * (root + U512::from(1)) > target);
        assert!(sqrt_depth_x96(0) == Q96);
    }

    #[test]
    fn one_full_range_position_equals_the_closed_form() {
        // A single position over the whole range: L·(1/√P − 1/√T) token0 above, L·(√P − √B)
        // token1 below, the walk crossing nothing.
        let sqrt_price = get_sqrt_ratio_at_tick(-195_960).expect("in range");
        let ticks = BTreeMap::from([(-887_220, 10i128.pow(18)), (887_220, -(10i128.pow(18)))]);
        let pool = ClSnapshot {
            sqrt_price_x96: sqrt_price,
            tick: -195_960,
            liquidity: 10u128.pow(18),
            ticks: &ticks,
        };
        let bands = concentrated_bands(pool, &[1, 2, 5]).expect("in range");
        for band in &bands {
            let (lower, upper) = band_targets(sqrt_price, band.percent).expect("in range");
            assert_eq!(
                band.upper_token0,
                get_amount0_delta(sqrt_price, upper, 10u128.pow(18), false).expect("in range")
            );
            assert_eq!(
                band.lower_token1,
                get_amount1_delta(lower, sqrt_price, 10u128.pow(18), false).expect("in range")
            );
        }
        // Wider bands hold more.
        assert!(bands[0].upper_token0 < bands[1].upper_token0);
        assert!(bands[1].lower_token1 < bands[2].lower_token1);
    }

    #[test]
    fn liquidity_leaving_the_range_stops_counting() {
        // A narrow position [t−10, t+10] on top of nothing: beyond its edges the walk adds 0.
        let tick = 0;
        let sqrt_price = get_sqrt_ratio_at_tick(tick).expect("in range");
        let liquidity = 10u128.pow(20);
        let ticks = BTreeMap::from([(-10, liquidity as i128), (10, -(liquidity as i128))]);
        let pool = ClSnapshot {
            sqrt_price_x96: sqrt_price,
            tick,
            liquidity,
            ticks: &ticks,
        };
        let bands = concentrated_bands(pool, &[1, 5]).expect("in range");
        let edge_up = get_amount0_delta(
            sqrt_price,
            get_sqrt_ratio_at_tick(10).expect("in range"),
            liquidity,
            false,
        )
        .expect("in range");
        // 1 % ≈ 99.5 ticks: both bands reach past the position, so both hold all of it.
        assert_eq!(bands[0].upper_token0, edge_up);
        assert_eq!(bands[1].upper_token0, edge_up);
        let edge_down = get_amount1_delta(
            get_sqrt_ratio_at_tick(-10).expect("in range"),
            sqrt_price,
            liquidity,
            false,
        )
        .expect("in range");
        assert_eq!(bands[1].lower_token1, edge_down);
        let (lower, _) = band_targets(sqrt_price, 1).expect("in range");
        assert!(get_tick_at_sqrt_ratio(lower).expect("in range") < -10);
    }

    #[test]
    fn a_stable_pool_holds_more_near_the_peg_than_a_volatile_one() {
        // 1,000,000 of each 6-decimal stablecoin: the stable curve is flat near 1, so far more
        // changes hands before the price moves 1 % than on x·y.
        let reserve = U256::from(1_000_000_000_000u64);
        let stable = dex_math::SolidlyPool::new(reserve, reserve, 6, 6, true, 5).expect("pool");
        let bands = solidly_stable_bands(&stable, &[1, 2, 5]).expect("bands");
        let volatile = constant_product_bands(reserve, reserve, &[1]).expect("bands");
        assert!(bands[0].upper_token0 > volatile[0].upper_token0 * U256::from(10u8));
        assert!(bands[0].upper_token0 < bands[1].upper_token0);
        assert!(bands[1].upper_token0 < bands[2].upper_token0);
        assert!(bands[2].upper_token0 < reserve);
        // Symmetric pool, symmetric bands (within the bisection's last unit).
        let diff = bands[0].upper_token0.max(bands[0].lower_token1)
            - bands[0].upper_token0.min(bands[0].lower_token1);
        assert!(
            diff <= bands[0].upper_token0 / U256::from(1_000_000u32),
            "{bands:?}"
        );
        // Paying the band's token0 out (for the token1 that buys it) leaves the price within
        // a hair of 1 % up.
        let feeless = dex_math::SolidlyPool {
            fee_bps: 0,
            ..stable
        };
        let start = feeless.mid_price(true).expect("price").to_f64();
        let out = bands[0].upper_token0;
        // The token1 that keeps k for that token0 out, by bisection on the invariant.
        let k = feeless.k(feeless.reserve0, feeless.reserve1).expect("k");
        let mut low = U256::ZERO;
        let mut high = reserve;
        while high - low > U256::from(1u8) {
            let middle = low + (high - low) / U256::from(2u8);
            let y_k = feeless.k(reserve - out, reserve + middle).expect("k");
            if y_k >= k {
                high = middle
            } else {
                low = middle
            }
        }
        let moved = dex_math::SolidlyPool {
            reserve0: reserve - out,
            reserve1: reserve + high,
            ..feeless
        };
        let ratio = moved.mid_price(true).expect("price").to_f64() / start;
        assert!((ratio - 1.01).abs() < 1e-6, "{ratio}");
    }

    #[test]
    fn constant_product_band_leaves_reserve_over_root() {
        let reserve = U256::from(1_000_000_000_000u64);
        let bands = constant_product_bands(reserve, reserve, &[1, 2, 5]).expect("in range");
        // 1 − 1/√1.02 = 0.00985…: a pool of 10^12 gives 9.853·10^9 within 2 %.
        let two = bands[1].upper_token0.to::<u64>();
        assert!((9_852_000_000..9_854_000_000).contains(&two), "{two}");
        assert_eq!(bands[1].upper_token0, bands[1].lower_token1);
    }
}
