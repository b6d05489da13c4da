//! Properties of the ports that must hold for every input: TickMath is a monotone bijection
//! on ticks, `mul_div` equals a plain 512-bit division, and swaps conserve value (never more
//! in than specified, never more out than the liquidity holds, liquidity consistent with
//! the positions afterwards).

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::{I256, U256, U512};
use dex_math::{
    MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, MathError, PoolState, SolidlyPool,
    get_amount0_delta, get_amount1_delta, get_sqrt_ratio_at_tick, get_tick_at_sqrt_ratio, mul_div,
    mul_div_rounding_up, simulate_swap, uniswap_v2,
};
use proptest::prelude::*;

/// A U256 of any magnitude: random limbs shifted right by a random amount, so small and
/// large values are both common.
fn any_u256() -> impl Strategy<Value = U256> {
    (any::<[u64; 4]>(), 0usize..256).prop_map(|(limbs, shift)| U256::from_limbs(limbs) >> shift)
}

fn ok<T>(result: Result<T, MathError>) -> T {
    result.unwrap_or_else(|e| panic!("{e}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn tick_round_trips(tick in MIN_TICK..MAX_TICK) {
        let sqrt = ok(get_sqrt_ratio_at_tick(tick));
        prop_assert_eq!(ok(get_tick_at_sqrt_ratio(sqrt)), tick);
        // One below the tick's ratio belongs to the tick below.
        if tick > MIN_TICK {
            prop_assert_eq!(ok(get_tick_at_sqrt_ratio(sqrt - U256::from(1u8))), tick - 1);
        }
    }

    #[test]
    fn sqrt_ratio_is_strictly_increasing(tick in MIN_TICK..MAX_TICK) {
        prop_assert!(ok(get_sqrt_ratio_at_tick(tick)) < ok(get_sqrt_ratio_at_tick(tick + 1)));
    }

    #[test]
    fn tick_brackets_any_price(raw in any_u256()) {
        let span = MAX_SQRT_RATIO - MIN_SQRT_RATIO;
        let sqrt = MIN_SQRT_RATIO + raw % span;
        let tick = ok(get_tick_at_sqrt_ratio(sqrt));
        prop_assert!(ok(get_sqrt_ratio_at_tick(tick)) <= sqrt);
        prop_assert!(sqrt < ok(get_sqrt_ratio_at_tick(tick + 1)));
    }

    #[test]
    fn mul_div_equals_a_512_bit_division(a in any_u256(), b in any_u256(), d in any_u256()) {
        let product = U512::from(a) * U512::from(b);
        let got = mul_div(a, b, d);
        let got_up = mul_div_rounding_up(a, b, d);
        if d.is_zero() {
            prop_assert_eq!(got, Err(MathError::DivisionByZero));
            prop_assert_eq!(got_up, Err(MathError::DivisionByZero));
        } else {
            let (quotient, remainder) = product.div_rem(U512::from(d));
            let quotient_up = quotient + U512::from(u8::from(!remainder.is_zero()));
            let fits = |q: U512| (q.bit_len() <= 256).then(|| q.to::<U256>());
            match fits(quotient) {
                Some(q) => prop_assert_eq!(got, Ok(q)),
                None => prop_assert_eq!(got, Err(MathError::Overflow)),
            }
            match fits(quotient_up) {
                Some(q) => prop_assert_eq!(got_up, Ok(q)),
                None => prop_assert_eq!(got_up, Err(MathError::Overflow)),
            }
        }
    }

    #[test]
    fn constant_product_never_loses_k(
        reserve_in in 1u128..u128::MAX >> 16,
        reserve_out in 1u128..u128::MAX >> 16,
        amount_in in 1u128..u128::MAX >> 16,
        fee_bps in 0u32..1_000,
    ) {
        let (r_in, r_out, x) = (U256::from(reserve_in), U256::from(reserve_out), U256::from(amount_in));
        let out = ok(uniswap_v2::get_amount_out(x, r_in, r_out, fee_bps));
        prop_assert!(out < r_out);
        prop_assert!((r_in + x) * (r_out - out) >= r_in * r_out);
        if !out.is_zero() {
            // Paying get_amount_in buys at least what was asked.
            let needed = ok(uniswap_v2::get_amount_in(out, r_in, r_out, fee_bps));
            prop_assert!(needed <= x);
            prop_assert!(ok(uniswap_v2::get_amount_out(needed, r_in, r_out, fee_bps)) >= out);
        }
    }

    #[test]
    fn solidly_swaps_keep_the_invariant(
        tokens0 in 1u64..100_000_000,
        tokens1 in 1u64..100_000_000,
        dust in any::<u32>(),
        fraction in 1u32..10_000,
        decimals0 in prop::sample::select(vec![6u8, 8, 18]),
        decimals1 in prop::sample::select(vec![6u8, 8, 18]),
        stable in any::<bool>(),
        token0_in in any::<bool>(),
    ) {
        // Up to 1e8 whole tokens a side: far larger stable pools overflow inside the
        // contract's own `_k(x0, y + 1)` (it normalises twice), and revert there too.
        let raw = |tokens: u64, decimals: u8| {
            U256::from(tokens) * U256::from(10u8).pow(U256::from(decimals)) + U256::from(dust)
        };
        let pool = ok(SolidlyPool::new(raw(tokens0, decimals0), raw(tokens1, decimals1), decimals0, decimals1, stable, 5));
        let reserve_in = if token0_in { pool.reserve0 } else { pool.reserve1 };
        let amount_in = reserve_in * U256::from(fraction) / U256::from(10_000u32) + U256::from(1u8);
        let out = ok(pool.get_amount_out(amount_in, token0_in));
        let fee = amount_in * U256::from(pool.fee_bps) / U256::from(10_000u32);
        let (balance0, balance1) = if token0_in {
            (pool.reserve0 + amount_in - fee, pool.reserve1 - out)
        } else {
            (pool.reserve0 - out, pool.reserve1 + amount_in - fee)
        };
        // Pool.swap's check: _k(balance - fee) >= _k(reserves).
        prop_assert!(ok(pool.k(balance0, balance1)) >= ok(pool.k(pool.reserve0, pool.reserve1)));
    }
}

/// A liquidity position.
#[derive(Debug, Clone, Copy)]
struct Position {
    lower: i32,
    upper: i32,
    liquidity: u128,
}

/// A pool built from positions, so its ticks, nets and in-range liquidity are consistent.
fn pool_from(positions: &[Position], spacing: i32, tick: i32, fee_pips: u32) -> PoolState {
    let mut ticks = BTreeMap::new();
    for p in positions {
        let liquidity = i128::try_from(p.liquidity).unwrap_or(i128::MAX);
        *ticks.entry(p.lower).or_insert(0i128) += liquidity;
        *ticks.entry(p.upper).or_insert(0i128) -= liquidity;
    }
    PoolState {
        sqrt_price_x96: ok(get_sqrt_ratio_at_tick(tick)),
        tick,
        liquidity: active_liquidity(positions, tick),
        fee_pips,
        tick_spacing: spacing,
        ticks,
    }
}

fn active_liquidity(positions: &[Position], tick: i32) -> u128 {
    positions
        .iter()
        .filter(|p| p.lower <= tick && tick < p.upper)
        .map(|p| p.liquidity)
        .sum()
}

/// Token0 and token1 the positions deposited at `sqrt_price` (rounded up, as minting does):
/// what the pool holds for them.
fn holdings(positions: &[Position], sqrt_price: U256) -> (U256, U256) {
    let mut totals = (U256::ZERO, U256::ZERO);
    for p in positions {
        let lower = ok(get_sqrt_ratio_at_tick(p.lower));
        let upper = ok(get_sqrt_ratio_at_tick(p.upper));
        if sqrt_price < upper {
            totals.0 += ok(get_amount0_delta(
                sqrt_price.max(lower),
                upper,
                p.liquidity,
                true,
            ));
        }
        if sqrt_price > lower {
            totals.1 += ok(get_amount1_delta(
                lower,
                sqrt_price.min(upper),
                p.liquidity,
                true,
            ));
        }
    }
    totals
}

fn positions_strategy(spacing: i32) -> impl Strategy<Value = Vec<Position>> {
    let span = 4_000 / spacing;
    prop::collection::vec((-span..span, 1..span, 1u128..1u128 << 80), 1..8).prop_map(move |list| {
        list.into_iter()
            .map(|(start, width, liquidity)| Position {
                lower: start * spacing,
                upper: (start + width) * spacing,
                liquidity,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn v3_swaps_conserve_value(
        (spacing, positions) in prop::sample::select(vec![1, 10, 60, 200])
            .prop_flat_map(|spacing| (Just(spacing), positions_strategy(spacing))),
        start_tick in -3_000i32..3_000,
        zero_for_one in any::<bool>(),
        exact_input in any::<bool>(),
        amount in 1u128..1u128 << 100,
        fee_pips in prop::sample::select(vec![100u32, 500, 3_000, 10_000]),
    ) {
        let pool = pool_from(&positions, spacing, start_tick, fee_pips);
        let specified = if exact_input {
            I256::unchecked_from(amount)
        } else {
            -I256::unchecked_from(amount)
        };
        let result = ok(simulate_swap(&pool, zero_for_one, specified, None));

        let (input, output) = if zero_for_one {
            (result.amount0, result.amount1)
        } else {
            (result.amount1, result.amount0)
        };
        prop_assert!(!input.is_negative(), "the pool never pays the input token");
        prop_assert!(!output.is_positive(), "the pool never takes the output token");
        if exact_input {
            prop_assert!(input <= specified, "never more in than specified");
            prop_assert_eq!(input + result.amount_specified_remaining, specified);
        } else {
            prop_assert!(output >= specified, "never more out than asked");
            prop_assert_eq!(output + result.amount_specified_remaining, specified);
        }

        // Never more out than the positions hold.
        let (held0, held1) = holdings(&positions, pool.sqrt_price_x96);
        let held_out = if zero_for_one { held1 } else { held0 };
        prop_assert!(output.unsigned_abs() <= held_out);

        // The price moved the right way, and the liquidity is what the positions give at
        // the final tick.
        if zero_for_one {
            prop_assert!(result.sqrt_price_after <= pool.sqrt_price_x96);
        } else {
            prop_assert!(result.sqrt_price_after >= pool.sqrt_price_x96);
        }
        prop_assert_eq!(result.liquidity_after, active_liquidity(&positions, result.tick_after));
        let tick_of_price = ok(get_tick_at_sqrt_ratio(result.sqrt_price_after));
        prop_assert!(result.tick_after == tick_of_price || result.tick_after == tick_of_price - 1);
    }
}
