//! The sandwich on one pool: the victim's exact-input swap with its `amount_out_min`, the
//! largest front-run that tolerance lets through (`a_max`), and the attacker's optimum
//! front-run in `[0, a_max]` for the gross profit of front-run plus back-run.
//!
//! Every figure returned comes from the exact swap maths ([`PoolModel::swap`]). The closed
//! forms only give the starting point of an integer search on those maths,
//! so a closed form that is off by a few wei (the contracts round at every step) still ends
//! on the exact boundary.

use std::cell::Cell;
use std::collections::BTreeMap;

use alloy::primitives::{I256, U256, U512};
use dex_math::sqrt_price_math::Q96;
use dex_math::{MathError, get_sqrt_ratio_at_tick, mul_div};

use crate::MevError;
use crate::pool::PoolModel;

/// The victim's trade: an exact-input swap with a minimum output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VictimSwap {
    /// What the victim sells, in atomic units of its input token.
    pub amount_in: U256,
    /// `true` when the victim sells token0 for token1.
    pub zero_for_one: bool,
    /// The least output its transaction accepts (it reverts below).
    pub amount_out_min: U256,
}

/// Front-run, victim and back-run executed in that order on one pool state. The attacker
/// sells back exactly what the front-run bought, so its profit is in the victim's input
/// token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandwichOutcome {
    /// The front-run's input (victim's input token); zero means no attack.
    pub front_run_in: U256,
    /// What the front-run bought (victim's output token), sold back by the back-run.
    pub front_run_out: U256,
    /// What the victim receives after the front-run.
    pub victim_out: U256,
    /// Whether `victim_out >= amount_out_min` (otherwise the victim's transaction reverts
    /// and the back-run figures are those of a failed attack).
    pub victim_fills: bool,
    /// What the back-run returns (victim's input token).
    pub back_run_out: U256,
    /// `back_run_out − front_run_in`: the gross profit before gas, in the victim's input
    /// token.
    pub profit: I256,
}

/// How `a_max` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundMethod {
    /// The constant-product closed form (`γa² + B·a + C ≤ 0` for a fee kept in
    /// the reserves; `u(u + γv) ≤ γvxy/m` on virtual reserves for V3 inside one initialized
    /// range and for Solidly volatile pools, whose fee leaves the curve), then an integer
    /// refinement of a few exact simulations around it.
    ClosedForm,
    /// Galloping and bisection over the exact simulation: a V3 front-run or victim that
    /// crosses an initialized tick, a Solidly stable pool, or a closed form that would not
    /// fit 512 bits.
    NumericalSearch,
}

/// Where the attacker's optimum lies in `[0, a_max]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptimumLocation {
    /// At `a_max`: the gross profit still rises there.
    AtBound,
    /// Inside the interval, found by a bracket and a golden-section search on the exact
    /// simulation, then an integer neighbourhood scan.
    Interior,
    /// No front-run in `[0, a_max]` makes a positive gross profit; the optimum is no attack.
    NoProfit,
}

/// The overall method, as the answer states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `a_max` from the closed form and the optimum at that bound.
    ClosedForm,
    /// Some part needed a numerical search over the exact swap simulation.
    NumericalSearch,
}

/// The victim's bound and the attacker's profit-maximising front-run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttackOptimum {
    /// The largest front-run after which the victim still receives `amount_out_min`
    /// (exact: none of the next 32 atomic units leaves the victim its minimum; across
    /// ticks the victim's output jitters by a unit near the bound, hence the band).
    pub a_max: U256,
    /// How `a_max` was found.
    pub bound_method: BoundMethod,
    /// The sandwich at `a_max`.
    pub at_a_max: SandwichOutcome,
    /// Where the optimum is.
    pub location: OptimumLocation,
    /// The sandwich at the optimum `a*` (`front_run_in` is `a*`; zero for
    /// [`OptimumLocation::NoProfit`]).
    pub optimum: SandwichOutcome,
    /// Exact swap simulations run in all.
    pub simulations: u32,
}

impl AttackOptimum {
    /// [`Method::ClosedForm`] when both the bound and the optimum came from the closed
    /// form, [`Method::NumericalSearch`] otherwise.
    pub fn method(&self) -> Method {
        if self.bound_method == BoundMethod::ClosedForm && self.location == OptimumLocation::AtBound
        {
            Method::ClosedForm
        } else {
            Method::NumericalSearch
        }
    }
}

/// A pool and a victim, counting the simulations run on them.
struct Bench<'a> {
    pool: &'a PoolModel,
    victim: &'a VictimSwap,
    simulations: Cell<u32>,
}

impl Bench<'_> {
    fn swap(
        &self,
        pool: &PoolModel,
        amount: U256,
        zero_for_one: bool,
    ) -> Result<(U256, PoolModel), MevError> {
        self.simulations
            .set(self.simulations.get().saturating_add(1));
        pool.swap(amount, zero_for_one)
    }

    /// The victim's output after a front-run of `a`; `None` when the front-run or the victim
    /// cannot be filled at all (too large for the pool).
    fn victim_out(&self, a: U256) -> Result<Option<U256>, MevError> {
        let v = self.victim;
        let after_front = if a.is_zero() {
            self.pool.clone()
        } else {
            match self.swap(self.pool, a, v.zero_for_one) {
                Ok((_, state)) => state,
                Err(MevError::Math(_)) => return Ok(None),
                Err(e) => return Err(e),
            }
        };
        match self.swap(&after_front, v.amount_in, v.zero_for_one) {
            Ok((out, _)) => Ok(Some(out)),
            Err(MevError::Math(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn feasible(&self, a: U256) -> Result<bool, MevError> {
        Ok(self
            .victim_out(a)?
            .is_some_and(|out| out >= self.victim.amount_out_min))
    }

    fn sandwich(&self, a: U256) -> Result<SandwichOutcome, MevError> {
        let v = self.victim;
        if a.is_zero() {
            let (victim_out, _) = self.swap(self.pool, v.amount_in, v.zero_for_one)?;
            return Ok(SandwichOutcome {
                front_run_in: U256::ZERO,
                front_run_out: U256::ZERO,
                victim_out,
                victim_fills: victim_out >= v.amount_out_min,
                back_run_out: U256::ZERO,
                profit: I256::ZERO,
            });
        }
        // A front-run the pool refuses (a Balancer pool reverts a dust swap that buys nothing)
        // is no sandwich: nothing moves and nothing is gained.
        let (front_run_out, state) = match self.swap(self.pool, a, v.zero_for_one) {
            Ok(swapped) => swapped,
            Err(MevError::Math(_)) => {
                let (victim_out, _) = self.swap(self.pool, v.amount_in, v.zero_for_one)?;
                return Ok(SandwichOutcome {
                    front_run_in: a,
                    front_run_out: U256::ZERO,
                    victim_out,
                    victim_fills: victim_out >= v.amount_out_min,
                    back_run_out: U256::ZERO,
                    profit: I256::ZERO,
                });
            }
            Err(e) => return Err(e),
        };
        let (victim_out, after_victim) = self.swap(&state, v.amount_in, v.zero_for_one)?;
        let victim_fills = victim_out >= v.amount_out_min;
        // A reverted victim leaves the pool as the front-run left it.
        let before_back = if victim_fills { after_victim } else { state };
        // A back-run the pool refuses (dust again) returns nothing: the front-run is lost.
        let back_run_out = if front_run_out.is_zero() {
            U256::ZERO
        } else {
            match self.swap(&before_back, front_run_out, !v.zero_for_one) {
                Ok((out, _)) => out,
                Err(MevError::Math(_)) => U256::ZERO,
                Err(e) => return Err(e),
            }
        };
        let profit = signed(back_run_out)?
            .checked_sub(signed(a)?)
            .ok_or(MathError::Overflow)?;
        Ok(SandwichOutcome {
            front_run_in: a,
            front_run_out,
            victim_out,
            victim_fills,
            back_run_out,
            profit,
        })
    }

    fn profit(&self, a: U256, memo: &mut BTreeMap<U256, I256>) -> Result<I256, MevError> {
        if let Some(&p) = memo.get(&a) {
            return Ok(p);
        }
        let p = self.sandwich(a)?.profit;
        memo.insert(a, p);
        Ok(p)
    }
}

fn signed(value: U256) -> Result<I256, MevError> {
    Ok(I256::try_from(value).map_err(|_| MathError::Overflow)?)
}

/// Runs front-run `front_run_in`, the victim and the back-run (selling everything the
/// front-run bought) on `pool`, exactly.
pub fn simulate_sandwich(
    pool: &PoolModel,
    victim: &VictimSwap,
    front_run_in: U256,
) -> Result<SandwichOutcome, MevError> {
    check_victim(victim)?;
    bench(pool, victim).sandwich(front_run_in)
}

fn bench<'a>(pool: &'a PoolModel, victim: &'a VictimSwap) -> Bench<'a> {
    Bench {
        pool,
        victim,
        simulations: Cell::new(0),
    }
}

fn check_victim(victim: &VictimSwap) -> Result<(), MevError> {
    if victim.amount_in.is_zero() {
        return Err(MevError::ZeroVictimAmount);
    }
    Ok(())
}

/// The largest front-run `a_max` that still leaves the victim `amount_out_min`, exact to
/// the atomic unit, and how it was found.
pub fn max_front_run(
    pool: &PoolModel,
    victim: &VictimSwap,
) -> Result<(U256, BoundMethod), MevError> {
    check_victim(victim)?;
    let bench = bench(pool, victim);
    let (a_max, method) = bound(&bench)?;
    Ok((a_max, method))
}

fn bound(bench: &Bench<'_>) -> Result<(U256, BoundMethod), MevError> {
    let victim = bench.victim;
    let unattacked = bench
        .swap(bench.pool, victim.amount_in, victim.zero_for_one)?
        .0;
    if unattacked < victim.amount_out_min {
        return Err(MevError::AmountOutMinAboveQuote {
            amount_out_min: victim.amount_out_min,
            unattacked_out: unattacked,
        });
    }
    if let Some(estimate) = closed_form_estimate(bench.pool, victim) {
        let a_max = boundary_from(bench, estimate, U256::from(1u8))?;
        if closed_form_applies(bench, a_max)? {
            return Ok((a_max, BoundMethod::ClosedForm));
        }
    }
    let step = victim.amount_in.max(U256::from(1u8));
    Ok((
        boundary_from(bench, U256::ZERO, step)?,
        BoundMethod::NumericalSearch,
    ))
}

/// The last feasible front-run: gallop from `start` (up when feasible, down otherwise) with
/// steps doubling from `step`, then bisect. Feasibility is monotone: a larger front-run in
/// the victim's direction can only lower the victim's output.
fn boundary_from(bench: &Bench<'_>, start: U256, step: U256) -> Result<U256, MevError> {
    let mut step = step.max(U256::from(1u8));
    let (mut lo, mut hi);
    if bench.feasible(start)? {
        lo = start;
        loop {
            let Some(next) = lo.checked_add(step) else {
                hi = U256::MAX;
                break;
            };
            if !bench.feasible(next)? {
                hi = next;
                break;
            }
            lo = next;
            step = step.saturating_mul(U256::from(2u8));
        }
    } else {
        hi = start;
        loop {
            let next = hi.saturating_sub(step);
            if bench.feasible(next)? {
                lo = next;
                break;
            }
            if next.is_zero() {
                // Checked by the caller: the unattacked victim fills.
                return Err(MathError::InsufficientLiquidity.into());
            }
            hi = next;
            step = step.saturating_mul(U256::from(2u8));
        }
    }
    while hi - lo > U256::from(1u8) {
        let mid = lo + (hi - lo) / U256::from(2u8);
        if bench.feasible(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // When a swap crosses ticks each step rounds on its own, and the victim's output near
    // the boundary jitters by a unit from one front-run to the next: take the last feasible
    // front-run of that band (none feasible in the next JITTER_BAND units).
    'band: loop {
        for k in (1..=JITTER_BAND).rev() {
            let Some(candidate) = lo.checked_add(U256::from(k)) else {
                continue;
            };
            if bench.feasible(candidate)? {
                lo = candidate;
                continue 'band;
            }
        }
        return Ok(lo);
    }
}

/// Units scanned past a bisection boundary for a later feasible front-run.
const JITTER_BAND: u64 = 32;

/// Whether the closed form's model holds at `a_max`: always for the constant-product
/// curves; for V3 only when neither the front-run nor the victim reaches the next
/// initialized tick (the liquidity, and so the virtual reserves, stay the same).
fn closed_form_applies(bench: &Bench<'_>, a_max: U256) -> Result<bool, MevError> {
    let PoolModel::Concentrated(state) = bench.pool else {
        return Ok(true);
    };
    let victim = bench.victim;
    let boundary_tick = if victim.zero_for_one {
        state
            .ticks()
            .range(..=state.tick())
            .next_back()
            .map(|(&t, _)| t)
    } else {
        state
            .ticks()
            .range(state.tick().saturating_add(1)..)
            .next()
            .map(|(&t, _)| t)
    };
    let Some(boundary_tick) = boundary_tick else {
        // No initialized tick that way: no liquidity change before the end of the range.
        return Ok(true);
    };
    let boundary = get_sqrt_ratio_at_tick(boundary_tick)?;
    let mut pool = bench.pool.clone();
    if !a_max.is_zero() {
        pool = bench.swap(&pool, a_max, victim.zero_for_one)?.1;
    }
    let (_, after) = bench.swap(&pool, victim.amount_in, victim.zero_for_one)?;
    let PoolModel::Concentrated(after) = after else {
        return Ok(false);
    };
    let price = after.sqrt_price_x96();
    Ok(if victim.zero_for_one {
        price > boundary
    } else {
        price < boundary
    })
}

/// The closed form of `a_max` alone on the real-valued curve, floored,
/// before the integer refinement [`max_front_run`] applies; `None` for a Solidly stable
/// pool, an empty V3 range, a zero minimum, or numbers beyond 512 bits. For V3 it assumes
/// the current range's liquidity throughout, whether or not the swaps stay inside it.
pub fn closed_form_a_max(pool: &PoolModel, victim: &VictimSwap) -> Option<U256> {
    closed_form_estimate(pool, victim)
}

fn closed_form_estimate(pool: &PoolModel, victim: &VictimSwap) -> Option<U256> {
    let (v, m) = (victim.amount_in, victim.amount_out_min);
    if m.is_zero() {
        return None;
    }
    match pool {
        PoolModel::ConstantProduct(pair) => {
            let (x, y) = if victim.zero_for_one {
                (pair.reserve0, pair.reserve1)
            } else {
                (pair.reserve1, pair.reserve0)
            };
            let (kept, whole) = fee_fraction(10_000, pair.fee_bps)?;
            fee_in_estimate(x, y, v, m, kept, whole)
        }
        PoolModel::Solidly(pair) if !pair.stable => {
            let (x, y) = if victim.zero_for_one {
                (pair.reserve0, pair.reserve1)
            } else {
                (pair.reserve1, pair.reserve0)
            };
            let (kept, whole) = fee_fraction(10_000, pair.fee_bps)?;
            let k = U512::from(x).checked_mul(U512::from(y))?;
            fee_out_estimate(U512::from(x), k, v, m, kept, whole)
        }
        // No closed form on Balancer's curves: the search over the exact maths alone.
        PoolModel::Solidly(_) | PoolModel::Balancer(_) => None,
        PoolModel::Concentrated(state) => {
            let liquidity = U256::from(state.liquidity());
            if liquidity.is_zero() {
                return None;
            }
            let sqrt_price = state.sqrt_price_x96();
            // Virtual reserves: token0 = L/√P, token1 = L·√P; their product is L².
            let x = if victim.zero_for_one {
                mul_div(liquidity, Q96, sqrt_price).ok()?
            } else {
                mul_div(liquidity, sqrt_price, Q96).ok()?
            };
            let k = U512::from(liquidity).checked_mul(U512::from(liquidity))?;
            // The front-run and the victim swap the victim's way, at that direction's fee.
            let (kept, whole) = fee_fraction(1_000_000, state.fee_pips_for(victim.zero_for_one))?;
            fee_out_estimate(U512::from(x), k, v, m, kept, whole)
        }
    }
}

/// `γ = kept/whole` in lowest terms.
fn fee_fraction(whole: u32, fee: u32) -> Option<(U512, U512)> {
    let kept = whole.checked_sub(fee).filter(|k| *k > 0)?;
    let (mut a, mut b) = (kept, whole);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    Some((U512::from(kept / a), U512::from(whole / a)))
}

/// Fee kept in the reserves (Uniswap V2): the victim gets `γvxy / ((x+γa)(x+a+γv))`. With
/// `γ = k/w`, `out ≥ m` is `m(wx+ka)(wx+wa+kv) ≤ wkvxy`, the quadratic
/// `mkw·a² + m(k(wx+kv) + w²x)·a + (m·wx(wx+kv) − wkvxy) ≤ 0`; `a_max` is its larger root.
fn fee_in_estimate(x: U256, y: U256, v: U256, m: U256, k: U512, w: U512) -> Option<U256> {
    let (x, y, v, m) = (U512::from(x), U512::from(y), U512::from(v), U512::from(m));
    let wx = w.checked_mul(x)?;
    let kv = k.checked_mul(v)?;
    let wx_kv = wx.checked_add(kv)?;
    let a2 = m.checked_mul(k)?.checked_mul(w)?;
    let b = m.checked_mul(k.checked_mul(wx_kv)?.checked_add(w.checked_mul(wx)?)?)?;
    let c_pos = m.checked_mul(wx)?.checked_mul(wx_kv)?;
    let c_neg = w.checked_mul(kv)?.checked_mul(x)?.checked_mul(y)?;
    larger_root(a2, b, c_pos, c_neg)
}

/// Fee leaving the curve (V3 inside one range on virtual reserves, Solidly volatile): with
/// `u = x + γa` and `xy = K`, `out ≥ m` is `u(u + γv) ≤ γvK/m`, i.e.
/// `wm·u² + kvm·u − kvK ≤ 0`; then `a_max = (u − x)·w/k`.
fn fee_out_estimate(x: U512, big_k: U512, v: U256, m: U256, k: U512, w: U512) -> Option<U256> {
    let (v, m) = (U512::from(v), U512::from(m));
    let a2 = w.checked_mul(m)?;
    let b = k.checked_mul(v)?.checked_mul(m)?;
    let c_neg = k.checked_mul(v)?.checked_mul(big_k)?;
    let u = larger_root_512(a2, b, U512::ZERO, c_neg)?;
    if u <= x {
        return Some(U256::ZERO);
    }
    narrow((u - x).checked_mul(w)? / k)
}

/// The value as a U256 when it fits.
fn narrow(value: U512) -> Option<U256> {
    let (narrowed, overflow) = U256::overflowing_from_limbs_slice(value.as_limbs());
    (!overflow).then_some(narrowed)
}

/// `⌊(−b + √(b² − 4·a2·(c_pos − c_neg))) / (2·a2)⌋` clamped at zero, as a U256.
fn larger_root(a2: U512, b: U512, c_pos: U512, c_neg: U512) -> Option<U256> {
    larger_root_512(a2, b, c_pos, c_neg).and_then(narrow)
}

fn larger_root_512(a2: U512, b: U512, c_pos: U512, c_neg: U512) -> Option<U512> {
    if a2.is_zero() {
        return None;
    }
    let b2 = b.checked_mul(b)?;
    let four_a = a2.checked_mul(U512::from(4u8))?;
    let disc = if c_neg >= c_pos {
        b2.checked_add(four_a.checked_mul(c_neg - c_pos)?)?
    } else {
        b2.checked_sub(four_a.checked_mul(c_pos - c_neg)?)?
    };
    let root = isqrt(disc);
    if root <= b {
        return Some(U512::ZERO);
    }
    Some((root - b) / a2.checked_mul(U512::from(2u8))?)
}

/// `⌊√n⌋`, with ruint's Newton root corrected to the floor.
fn isqrt(n: U512) -> U512 {
    let mut r = n.root(2);
    while r.checked_mul(r).is_none_or(|sq| sq > n) {
        r -= U512::from(1u8);
    }
    while (r + U512::from(1u8))
        .checked_mul(r + U512::from(1u8))
        .is_some_and(|sq| sq <= n)
    {
        r += U512::from(1u8);
    }
    r
}

/// Points of the coarse bracket over `[0, a_max]` before the golden-section search: profit
/// need not be unimodal once a swap crosses ticks, so the search starts around the best of
/// these.
const BRACKET_POINTS: u32 = 16;

/// The golden ratio's complement, `(3 − √5)/2`, in millionths.
const GOLDEN_MILLIONTHS: u64 = 381_966;

/// Integer neighbourhood scanned around the golden-section result: the contracts' floors
/// make the exact profit jagged at the scale of single units.
const LOCAL_WINDOW: u64 = 8;

/// `a_max` and the attacker's profit-maximising front-run in `[0, a_max]`, all on the
/// exact swap maths of `pool`.
pub fn attack_optimum(pool: &PoolModel, victim: &VictimSwap) -> Result<AttackOptimum, MevError> {
    check_victim(victim)?;
    let bench = bench(pool, victim);
    let (a_max, bound_method) = bound(&bench)?;
    let at_a_max = bench.sandwich(a_max)?;
    let mut memo = BTreeMap::new();
    memo.insert(a_max, at_a_max.profit);

    let delta = (a_max >> 20usize).max(U256::from(1u8));
    let rising_at_bound = !a_max.is_zero()
        && at_a_max.profit > I256::ZERO
        && bench.profit(a_max - delta.min(a_max), &mut memo)? <= at_a_max.profit;
    let (location, best) = if a_max.is_zero() {
        (OptimumLocation::NoProfit, U256::ZERO)
    } else if rising_at_bound {
        (OptimumLocation::AtBound, a_max)
    } else {
        let best = search_interior(&bench, a_max, &mut memo)?;
        let profit = bench.profit(best, &mut memo)?;
        if profit <= I256::ZERO {
            (OptimumLocation::NoProfit, U256::ZERO)
        } else if best == a_max {
            (OptimumLocation::AtBound, a_max)
        } else {
            (OptimumLocation::Interior, best)
        }
    };
    let optimum = if best == a_max {
        at_a_max
    } else {
        bench.sandwich(best)?
    };
    Ok(AttackOptimum {
        a_max,
        bound_method,
        at_a_max,
        location,
        optimum,
        simulations: bench.simulations.get(),
    })
}

/// Bracket on a coarse grid, golden-section inside the best cell, then a small integer scan.
fn search_interior(
    bench: &Bench<'_>,
    a_max: U256,
    memo: &mut BTreeMap<U256, I256>,
) -> Result<U256, MevError> {
    let points = U256::from(BRACKET_POINTS);
    let grid = |i: u32| mul_div(a_max, U256::from(i), points);
    let mut best_i = 0;
    let mut best_profit = I256::MIN;
    for i in 0..=BRACKET_POINTS {
        let p = bench.profit(grid(i)?, memo)?;
        if p > best_profit {
            best_profit = p;
            best_i = i;
        }
    }
    let mut lo = grid(best_i.saturating_sub(1))?;
    let mut hi = grid((best_i + 1).min(BRACKET_POINTS))?;
    let window = U256::from(LOCAL_WINDOW);
    while hi - lo > window {
        let part = mul_div(
            hi - lo,
            U256::from(GOLDEN_MILLIONTHS),
            U256::from(1_000_000u32),
        )?
        .max(U256::from(1u8));
        let (c, d) = (lo + part, hi - part);
        if bench.profit(c, memo)? < bench.profit(d, memo)? {
            lo = c;
        } else {
            hi = d;
        }
    }
    let mut best = grid(best_i)?;
    let mut best_profit = bench.profit(best, memo)?;
    let mut a = lo;
    while a <= hi {
        let p = bench.profit(a, memo)?;
        if p > best_profit {
            best_profit = p;
            best = a;
        }
        a += U256::from(1u8);
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::ConstantProductPool;

    fn u(x: u128) -> U256 {
        U256::from(x)
    }

    #[test]
    fn isqrt_is_the_floor() {
        for n in [0u128, 1, 2, 3, 4, 15, 16, 17, 10u128.pow(30) + 7] {
            let r = isqrt(U512::from(n));
            assert!(r * r <= U512::from(n));
            assert!((r + U512::from(1u8)) * (r + U512::from(1u8)) > U512::from(n));
        }
    }

    /// A worked example: x = 1000, y = 2e6, v = 10, 1 % slippage (in 1e18 units).
    #[test]
    fn worked_example_optimum_is_the_bound() {
        let e18 = 10u128.pow(18);
        let pool = PoolModel::ConstantProduct(ConstantProductPool {
            reserve0: u(1000 * e18),
            reserve1: u(2_000_000 * e18),
            fee_bps: 30,
        });
        let quote = pool
            .amount_out(u(10 * e18), true)
            .unwrap_or_else(|e| panic!("{e}"));
        let victim = VictimSwap {
            amount_in: u(10 * e18),
            zero_for_one: true,
            amount_out_min: dex_math::amount_out_min(quote, 100).unwrap_or_else(|e| panic!("{e}")),
        };
        let optimum = attack_optimum(&pool, &victim).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(optimum.bound_method, BoundMethod::ClosedForm);
        assert_eq!(optimum.location, OptimumLocation::AtBound);
        assert_eq!(optimum.method(), Method::ClosedForm);
        assert!(optimum.optimum.profit > I256::ZERO);
        assert!(optimum.at_a_max.victim_out >= victim.amount_out_min);
        let over = simulate_sandwich(&pool, &victim, optimum.a_max + u(1))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!over.victim_fills);
    }

    /// A Balancer stable pool has no closed form: the bound is searched on the exact maths,
    /// each leg pays what the pool's port pays on the state the leg before left, and one wei
    /// more front-run leaves the victim short of its minimum.
    #[test]
    fn a_balancer_pool_is_attacked_on_its_exact_maths() {
        use crate::pool::BalancerPair;
        use dex_math::balancer::{BalancerPool, ONE, StablePool};
        let e18 = 10u128.pow(18);
        let maths = BalancerPool::Stable(StablePool {
            balances: vec![u(2_000_000 * e18), u(2_600_000 * e18), u(1_500_000 * e18)],
            scaling_factors: vec![ONE, ONE, ONE],
            amp: u(200_000),
            swap_fee: u(100_000_000_000_000),
        });
        let pool = PoolModel::Balancer(BalancerPair {
            pool: maths.clone(),
            index0: 2,
            index1: 0,
        });
        let amount = u(50_000 * e18);
        let (quote, after) = pool.swap(amount, true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(Ok(quote), maths.out_given_in(2, 0, amount));
        let PoolModel::Balancer(after) = after else {
            panic!("a Balancer pool")
        };
        assert_eq!(after.pool.balances()[2], u(1_550_000 * e18));
        assert_eq!(after.pool.balances()[0], u(2_000_000 * e18) - quote);
        let victim = VictimSwap {
            amount_in: amount,
            zero_for_one: true,
            amount_out_min: dex_math::amount_out_min(quote, 50).unwrap_or_else(|e| panic!("{e}")),
        };
        let optimum = attack_optimum(&pool, &victim).unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(optimum.bound_method, BoundMethod::ClosedForm);
        assert!(optimum.a_max > U256::ZERO);
        assert!(optimum.at_a_max.victim_out >= victim.amount_out_min);
        let over = simulate_sandwich(&pool, &victim, optimum.a_max + u(1))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!over.victim_fills);
    }

    #[test]
    fn a_tiny_victim_is_not_worth_attacking() {
        let e18 = 10u128.pow(18);
        let pool = PoolModel::ConstantProduct(ConstantProductPool {
            reserve0: u(1000 * e18),
            reserve1: u(2_000_000 * e18),
            fee_bps: 30,
        });
        let quote = pool
            .amount_out(u(e18 / 100), true)
            .unwrap_or_else(|e| panic!("{e}"));
        let victim = VictimSwap {
            amount_in: u(e18 / 100),
            zero_for_one: true,
            amount_out_min: dex_math::amount_out_min(quote, 100).unwrap_or_else(|e| panic!("{e}")),
        };
        let optimum = attack_optimum(&pool, &victim).unwrap_or_else(|e| panic!("{e}"));
        assert!(optimum.a_max > U256::ZERO);
        assert!(optimum.at_a_max.profit < I256::ZERO);
        assert_eq!(optimum.location, OptimumLocation::NoProfit);
        assert_eq!(optimum.optimum.front_run_in, U256::ZERO);
        assert_eq!(optimum.method(), Method::NumericalSearch);
    }

    #[test]
    fn a_minimum_above_the_quote_is_refused() {
        let pool = PoolModel::ConstantProduct(ConstantProductPool {
            reserve0: u(10u128.pow(21)),
            reserve1: u(10u128.pow(21)),
            fee_bps: 30,
        });
        let quote = pool
            .amount_out(u(10u128.pow(18)), false)
            .unwrap_or_else(|e| panic!("{e}"));
        let victim = VictimSwap {
            amount_in: u(10u128.pow(18)),
            zero_for_one: false,
            amount_out_min: quote + u(1),
        };
        assert_eq!(
            max_front_run(&pool, &victim),
            Err(MevError::AmountOutMinAboveQuote {
                amount_out_min: quote + u(1),
                unattacked_out: quote
            })
        );
        let zero = VictimSwap {
            amount_in: U256::ZERO,
            ..victim
        };
        assert_eq!(
            attack_optimum(&pool, &zero),
            Err(MevError::ZeroVictimAmount)
        );
    }
}
