//! The closed forms and the searches against brute force over the exact swap maths, on
//! random pools: `a_max` to the atomic unit (the victim still gets `amount_out_min` at
//! `a_max` and no longer one unit above), the optimum within 1 bps of the best profit a
//! dense scan finds.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::{I256, U256};
use dex_math::{PoolState, SolidlyPool, ValidPoolState, amount_out_min, get_sqrt_ratio_at_tick};
use mev_sim::{
    AttackOptimum, BoundMethod, ConstantProductPool, OptimumLocation, PoolModel, VictimSwap,
    attack_optimum, closed_form_a_max, max_front_run, simulate_sandwich,
};
use proptest::prelude::*;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn victim_at(pool: &PoolModel, amount_in: U256, zero_for_one: bool, bps: u32) -> VictimSwap {
    let quote = ok(pool.amount_out(amount_in, zero_for_one));
    VictimSwap {
        amount_in,
        zero_for_one,
        amount_out_min: ok(amount_out_min(quote, bps)),
    }
}

/// The victim's output after a front-run of `a` by the plain exact maths, written out here
/// independently of the crate's search; `None` when the front-run cannot fill.
fn victim_out(pool: &PoolModel, victim: &VictimSwap, a: U256) -> Option<U256> {
    let state = if a.is_zero() {
        pool.clone()
    } else {
        pool.swap(a, victim.zero_for_one).ok()?.1
    };
    state.amount_out(victim.amount_in, victim.zero_for_one).ok()
}

/// Brute force for `a_max`: double until the victim fails, then bisect.
fn brute_a_max(pool: &PoolModel, victim: &VictimSwap) -> U256 {
    let fills = |a: U256| victim_out(pool, victim, a).is_some_and(|o| o >= victim.amount_out_min);
    assert!(fills(U256::ZERO));
    let mut hi = U256::from(1u8);
    while fills(hi) {
        hi <<= 1;
    }
    let mut lo = U256::ZERO;
    while hi - lo > U256::from(1u8) {
        let mid = (lo + hi) >> 1;
        if fills(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // In V3 the victim's output jitters by a unit near the boundary (each swap step
    // rounds): the bound is the last feasible front-run with no feasible one in the next 32.
    'band: loop {
        for k in (1..=32u8).rev() {
            if fills(lo + U256::from(k)) {
                lo += U256::from(k);
                continue 'band;
            }
        }
        return lo;
    }
}

/// Brute force for the best profit: 1,000 evenly spaced front-runs over `[0, a_max]`, then
/// 200 more across the two cells around the best one.
fn brute_best_profit(pool: &PoolModel, victim: &VictimSwap, a_max: U256) -> I256 {
    let profit = |a: U256| ok(simulate_sandwich(pool, victim, a)).profit;
    let n = U256::from(1000u32);
    let mut best = (I256::ZERO, 0u32);
    for i in 0..=1000u32 {
        let p = profit(a_max * U256::from(i) / n);
        if p > best.0 {
            best = (p, i);
        }
    }
    let lo = a_max * U256::from(best.1.saturating_sub(1)) / n;
    let hi = a_max * U256::from((best.1 + 1).min(1000)) / n;
    let mut top = best.0;
    for j in 0..=200u32 {
        let a = lo + (hi - lo) * U256::from(j) / U256::from(200u32);
        top = top.max(profit(a));
    }
    top
}

/// How exactly the bound must match brute force.
#[derive(Clone, Copy, PartialEq)]
enum Exactness {
    /// The victim's output is monotone to the unit (constant product, Solidly): the same
    /// atomic unit as brute force.
    ToTheUnit,
    /// V3 rounds the price at every step, so near the bound the victim's output jitters
    /// between the minimum and one unit below over a band of front-runs: a boundary of that
    /// band, within 1e-9 of brute force's.
    Band,
}

fn check_bound(
    pool: &PoolModel,
    victim: &VictimSwap,
    expect: Option<BoundMethod>,
    exactness: Exactness,
) -> Result<U256, TestCaseError> {
    let (a_max, method) = ok(max_front_run(pool, victim));
    if let Some(expect) = expect {
        prop_assert_eq!(method, expect);
    }
    let brute = brute_a_max(pool, victim);
    if exactness == Exactness::ToTheUnit {
        prop_assert_eq!(a_max, brute);
    } else {
        let gap = a_max.max(brute) - a_max.min(brute);
        prop_assert!(
            gap <= a_max / U256::from(1_000_000_000u32) + U256::from(64u8),
            "{} vs brute force {}",
            a_max,
            brute
        );
    }
    let at = victim_out(pool, victim, a_max);
    prop_assert!(
        at.is_some_and(|o| o >= victim.amount_out_min),
        "victim fills at a_max"
    );
    for k in 1..=32u8 {
        let above = victim_out(pool, victim, a_max + U256::from(k));
        prop_assert!(
            above.is_none_or(|o| o < victim.amount_out_min),
            "victim reverts {} units above",
            k
        );
    }
    // The victim is left its minimum to within one unit, or within one front-run unit's
    // worth of output where a unit of input moves the output by several.
    let at = at.unwrap_or_default();
    let next = victim_out(pool, victim, a_max + U256::from(1u8)).unwrap_or_default();
    prop_assert!(at - victim.amount_out_min <= (at.saturating_sub(next)).max(U256::from(1u8)));
    Ok(a_max)
}

/// The closed form alone lands within a millionth (plus two units) of the exact bound: the
/// search only absorbs the contracts' rounding.
fn check_estimate(pool: &PoolModel, victim: &VictimSwap, a_max: U256) -> Result<(), TestCaseError> {
    let estimate = closed_form_a_max(pool, victim);
    prop_assert!(estimate.is_some());
    let estimate = estimate.unwrap_or_default();
    let gap = estimate.max(a_max) - estimate.min(a_max);
    prop_assert!(
        gap <= a_max / U256::from(1_000_000u32) + U256::from(2u8),
        "estimate {estimate} vs {a_max}"
    );
    Ok(())
}

fn check_optimum(
    pool: &PoolModel,
    victim: &VictimSwap,
    optimum: &AttackOptimum,
) -> Result<(), TestCaseError> {
    let best = brute_best_profit(pool, victim, optimum.a_max);
    let found = optimum.optimum.profit;
    prop_assert!(optimum.optimum.front_run_in <= optimum.a_max);
    prop_assert!(optimum.optimum.victim_fills);
    // Within 1 bps of the brute-force best (and one unit for rounding on tiny profits).
    let tolerance = best / I256::try_from(10_000).unwrap_or_default() + I256::ONE;
    prop_assert!(
        found >= best - tolerance,
        "found {found}, brute force {best}"
    );
    // "No profit" must mean the scan found none either; the search may find a small
    // profit the grid misses, never the reverse.
    if optimum.location == OptimumLocation::NoProfit {
        prop_assert!(best <= tolerance, "no profit claimed, brute force {best}");
        prop_assert_eq!(optimum.optimum.front_run_in, U256::ZERO);
    } else {
        prop_assert!(found > I256::ZERO);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn constant_product(
        reserve0 in 10u128.pow(15)..10u128.pow(30),
        price_exp in -6i32..=6,
        fee_bps in prop::sample::select(vec![5u32, 30, 100]),
        victim_millionths in 10u64..100_000,
        slippage_bps in prop::sample::select(vec![10u32, 25, 50, 100, 300, 1000]),
        zero_for_one in any::<bool>(),
    ) {
        let reserve1 = if price_exp >= 0 {
            reserve0.saturating_mul(10u128.pow(price_exp.unsigned_abs())).min(10u128.pow(33))
        } else {
            (reserve0 / 10u128.pow(price_exp.unsigned_abs())).max(10u128.pow(12))
        };
        let pool = PoolModel::ConstantProduct(ConstantProductPool {
            reserve0: U256::from(reserve0),
            reserve1: U256::from(reserve1),
            fee_bps,
        });
        let reserve_in = if zero_for_one { reserve0 } else { reserve1 };
        let amount = U256::from(reserve_in) * U256::from(victim_millionths) / U256::from(1_000_000u32);
        let victim = victim_at(&pool, amount, zero_for_one, slippage_bps);
        let a_max = check_bound(&pool, &victim, Some(BoundMethod::ClosedForm), Exactness::ToTheUnit)?;
        check_estimate(&pool, &victim, a_max)?;
        let optimum = ok(attack_optimum(&pool, &victim));
        prop_assert_eq!(optimum.a_max, a_max);
        check_optimum(&pool, &victim, &optimum)?;
    }

    #[test]
    fn solidly_volatile_and_stable(
        tokens in 1_000u64..100_000_000,
        decimals0 in prop::sample::select(vec![6u8, 18]),
        decimals1 in prop::sample::select(vec![6u8, 18]),
        stable in any::<bool>(),
        victim_millionths in 10u64..50_000,
        slippage_bps in prop::sample::select(vec![25u32, 100, 300]),
        zero_for_one in any::<bool>(),
    ) {
        let raw = |d: u8| U256::from(tokens) * U256::from(10u8).pow(U256::from(d));
        let fee_bps = if stable { 5 } else { 30 };
        let pool = PoolModel::Solidly(ok(SolidlyPool::new(raw(decimals0), raw(decimals1), decimals0, decimals1, stable, fee_bps)));
        let reserve_in = if zero_for_one { raw(decimals0) } else { raw(decimals1) };
        let amount = reserve_in * U256::from(victim_millionths) / U256::from(1_000_000u32);
        let victim = victim_at(&pool, amount, zero_for_one, slippage_bps);
        let expect = if stable { BoundMethod::NumericalSearch } else { BoundMethod::ClosedForm };
        let a_max = check_bound(&pool, &victim, Some(expect), Exactness::ToTheUnit)?;
        if !stable {
            check_estimate(&pool, &victim, a_max)?;
        }
        check_optimum(&pool, &victim, &ok(attack_optimum(&pool, &victim)))?;
    }

    #[test]
    fn concentrated_inside_one_range(
        liquidity in 10u128.pow(15)..10u128.pow(26),
        tick in -200_000i32..200_000,
        fee_pips in prop::sample::select(vec![100u32, 500, 3000, 10_000]),
        victim_bps_of_range in 1u64..40,
        slippage_bps in prop::sample::select(vec![10u32, 25, 50, 100]),
        zero_for_one in any::<bool>(),
    ) {
        // One position 30,000 ticks either side: a victim moving the price a little stays
        // inside it, and so does the bound for tolerances up to 1 %.
        let spacing = 10;
        let tick = tick / spacing * spacing + 3;
        let (lower, upper) = (tick - 3 - 30_000, tick - 3 + 30_000);
        let mut ticks = BTreeMap::new();
        ticks.insert(lower, i128::try_from(liquidity).unwrap_or(i128::MAX));
        ticks.insert(upper, -i128::try_from(liquidity).unwrap_or(i128::MAX));
        let state = ok(ValidPoolState::new(PoolState {
            sqrt_price_x96: ok(get_sqrt_ratio_at_tick(tick)),
            tick,
            liquidity,
            fee_pips,
            tick_spacing: spacing,
            ticks,
        }));
        // The victim sells a small share of the token it sells that the range holds.
        let sqrt_price = state.sqrt_price_x96();
        let virtual_in = if zero_for_one {
            ok(dex_math::mul_div(U256::from(liquidity), dex_math::sqrt_price_math::Q96, sqrt_price))
        } else {
            ok(dex_math::mul_div(U256::from(liquidity), sqrt_price, dex_math::sqrt_price_math::Q96))
        };
        let amount = (virtual_in * U256::from(victim_bps_of_range) / U256::from(10_000u32)).max(U256::from(1_000u32));
        let pool = PoolModel::Concentrated(state);
        let victim = victim_at(&pool, amount, zero_for_one, slippage_bps);
        prop_assume!(victim.amount_out_min > U256::from(1_000_000u32));
        let a_max = check_bound(&pool, &victim, Some(BoundMethod::ClosedForm), Exactness::Band)?;
        check_estimate(&pool, &victim, a_max)?;
        check_optimum(&pool, &victim, &ok(attack_optimum(&pool, &victim)))?;
    }

    #[test]
    fn concentrated_across_ticks(
        tick in -100_000i32..100_000,
        widths in prop::collection::vec(1i32..20, 3),
        liquidities in prop::collection::vec(10u128.pow(17)..10u128.pow(21), 3),
        slippage_bps in prop::sample::select(vec![50u32, 100, 300]),
        victim_share_bps in 50u64..2_000,
        zero_for_one in any::<bool>(),
    ) {
        // Nested positions a few spacings wide: the victim and the front-run cross ticks.
        let spacing = 60;
        let tick = tick / spacing * spacing + 7;
        let base = tick - 7;
        let mut ticks = BTreeMap::new();
        let mut active = 0u128;
        for (w, l) in widths.iter().zip(&liquidities) {
            let (lower, upper) = (base - w * spacing, base + w * spacing);
            let net = i128::try_from(*l).unwrap_or(i128::MAX);
            *ticks.entry(lower).or_insert(0) += net;
            *ticks.entry(upper).or_insert(0) -= net;
            active += l;
        }
        ticks.retain(|_, net| *net != 0);
        let state = ok(ValidPoolState::new(PoolState {
            sqrt_price_x96: ok(get_sqrt_ratio_at_tick(tick)),
            tick,
            liquidity: active,
            fee_pips: 3000,
            tick_spacing: spacing,
            ticks,
        }));
        let sqrt_price = state.sqrt_price_x96();
        let virtual_in = if zero_for_one {
            ok(dex_math::mul_div(U256::from(active), dex_math::sqrt_price_math::Q96, sqrt_price))
        } else {
            ok(dex_math::mul_div(U256::from(active), sqrt_price, dex_math::sqrt_price_math::Q96))
        };
        let amount = (virtual_in * U256::from(victim_share_bps) / U256::from(10_000u32)).max(U256::from(1_000u32));
        let pool = PoolModel::Concentrated(state);
        prop_assume!(pool.amount_out(amount, zero_for_one).is_ok());
        let victim = victim_at(&pool, amount, zero_for_one, slippage_bps);
        prop_assume!(victim.amount_out_min > U256::from(1_000_000u32));
        let a_max = check_bound(&pool, &victim, None, Exactness::Band)?;
        let method = ok(max_front_run(&pool, &victim)).1;
        let optimum = ok(attack_optimum(&pool, &victim));
        check_optimum(&pool, &victim, &optimum)?;
        // Whichever method ran, the bound is a boundary of the band; the closed form is only claimed where
        // the swaps at a_max stay in the starting range.
        if method == BoundMethod::ClosedForm {
            let front = ok(pool.swap(a_max, zero_for_one)).1;
            let PoolModel::Concentrated(after_front) = &front else { unreachable!() };
            prop_assert_eq!(after_front.liquidity(), active);
        }
    }
}

#[test]
fn the_crossing_case_is_searched_numerically() {
    // A narrow position around the price over a wide thin one: a 2 % victim leaves the
    // narrow range, so the closed form's single-range model does not hold.
    let mut ticks = BTreeMap::new();
    ticks.insert(-887_220, 10i128.pow(18));
    ticks.insert(887_220, -(10i128.pow(18)));
    ticks.insert(-120, 10i128.pow(21));
    ticks.insert(120, -(10i128.pow(21)));
    let state = ok(ValidPoolState::new(PoolState {
        sqrt_price_x96: ok(get_sqrt_ratio_at_tick(0)),
        tick: 0,
        liquidity: 10u128.pow(18) + 10u128.pow(21),
        fee_pips: 3000,
        tick_spacing: 60,
        ticks,
    }));
    let pool = PoolModel::Concentrated(state);
    let victim = victim_at(&pool, U256::from(5u128 * 10u128.pow(18)), true, 100);
    let optimum = ok(attack_optimum(&pool, &victim));
    assert_eq!(optimum.bound_method, BoundMethod::NumericalSearch);
    let brute = brute_a_max(&pool, &victim);
    let gap = optimum.a_max.max(brute) - optimum.a_max.min(brute);
    assert!(gap <= optimum.a_max / U256::from(1_000_000_000u32) + U256::from(64u8));
    assert_eq!(optimum.method(), mev_sim::Method::NumericalSearch);
}
