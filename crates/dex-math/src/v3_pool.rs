//! A Uniswap V3 pool's swap, off chain: the loop of `UniswapV3Pool.swap` (v3-core 1.0) over a
//! snapshot of the pool, giving the same amounts, final price, tick and liquidity as the
//! contract, and the initialized-tick count QuoterV2 reports.

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy::primitives::{I256, U256};

use crate::MathError;
use crate::swap_math::compute_swap_step;
use crate::tick_bitmap::{count_initialized_ticks_crossed, next_initialized_tick_within_one_word};
use crate::tick_math::{
    MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, get_sqrt_ratio_at_tick,
    get_tick_at_sqrt_ratio,
};

/// The factory refuses tick spacings of 16384 and above.
const MAX_TICK_SPACING: i32 = 16_384;

/// What a swap needs to know about a pool, read at one block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolState {
    /// `slot0.sqrtPriceX96`.
    pub sqrt_price_x96: U256,
    /// `slot0.tick`.
    pub tick: i32,
    /// `liquidity()`: the liquidity in range at the current price.
    pub liquidity: u128,
    /// `fee()`, in hundredths of a basis point.
    pub fee_pips: u32,
    /// `tickSpacing()`.
    pub tick_spacing: i32,
    /// Every initialized tick and its `liquidityNet` (TickLens `getPopulatedTicksInWord`).
    /// A tick missing here is treated as uninitialized, so a partial map gives wrong
    /// answers as soon as the swap reaches the missing range.
    pub ticks: BTreeMap<i32, i128>,
}

/// The outcome of a simulated swap, signed from the pool's point of view like the
/// contract's return values: positive amounts go into the pool, negative ones out of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapResult {
    /// Token0 delta of the pool.
    pub amount0: I256,
    /// Token1 delta of the pool.
    pub amount1: I256,
    /// `slot0.sqrtPriceX96` after the swap (QuoterV2's `sqrtPriceX96After`).
    pub sqrt_price_after: U256,
    /// `slot0.tick` after the swap.
    pub tick_after: i32,
    /// In-range liquidity after the swap.
    pub liquidity_after: u128,
    /// Initialized ticks crossed, counted as QuoterV2 counts them (PoolTicksCounter).
    pub initialized_ticks_crossed: u32,
    /// The part of `amount_specified` the pool could not fill because the price reached the
    /// limit (or the end of the tick range) first; zero for a complete fill. The pool and
    /// QuoterV2 return such a partial fill without reverting.
    pub amount_specified_remaining: I256,
}

impl SwapResult {
    /// Whether the price limit stopped the swap before `amount_specified` was used up.
    pub fn is_partial(&self) -> bool {
        !self.amount_specified_remaining.is_zero()
    }

    /// This result, or [`MathError::InsufficientLiquidity`] when it is a partial fill: for
    /// callers that want "the pool cannot fill this" as an error rather than a smaller trade.
    pub fn require_complete(self) -> Result<Self, MathError> {
        if self.is_partial() {
            Err(MathError::InsufficientLiquidity)
        } else {
            Ok(self)
        }
    }

    /// What the trader receives: the magnitude of the pool's negative delta in the output
    /// token (token1 when `zero_for_one`).
    pub fn amount_out(&self, zero_for_one: bool) -> U256 {
        let delta = if zero_for_one {
            self.amount1
        } else {
            self.amount0
        };
        if delta.is_negative() {
            delta.unsigned_abs()
        } else {
            U256::ZERO
        }
    }

    /// What the trader pays, fee included: the pool's positive delta in the input token.
    pub fn amount_in(&self, zero_for_one: bool) -> U256 {
        let delta = if zero_for_one {
            self.amount0
        } else {
            self.amount1
        };
        if delta.is_negative() {
            U256::ZERO
        } else {
            delta.unsigned_abs()
        }
    }
}

impl PoolState {
    /// Checks what the contract guarantees of its own state: a spacing the factory allows, a
    /// price in TickMath's domain, and initialized ticks that are usable multiples of the
    /// spacing.
    pub fn validate(&self) -> Result<(), MathError> {
        if self.tick_spacing <= 0 || self.tick_spacing >= MAX_TICK_SPACING {
            return Err(MathError::InvalidTickSpacing(self.tick_spacing));
        }
        if self.sqrt_price_x96 < MIN_SQRT_RATIO || self.sqrt_price_x96 >= MAX_SQRT_RATIO {
            return Err(MathError::SqrtPriceOutOfRange(self.sqrt_price_x96));
        }
        if let Some(&bad) = self
            .ticks
            .keys()
            .find(|&&t| t % self.tick_spacing != 0 || !(MIN_TICK..=MAX_TICK).contains(&t))
        {
            return Err(MathError::UnusableTick(bad));
        }
        Ok(())
    }

    /// The state after `swap` (price, tick and liquidity move; the ticks' `liquidityNet`
    /// does not change when they are crossed), e.g. to chain a front-run and a victim swap.
    pub fn with_swap_applied(&self, swap: &SwapResult) -> Self {
        Self {
            sqrt_price_x96: swap.sqrt_price_after,
            tick: swap.tick_after,
            liquidity: swap.liquidity_after,
            ..self.clone()
        }
    }
}

/// Simulates `UniswapV3Pool.swap(recipient, zero_for_one, amount_specified,
/// sqrt_price_limit)` on `pool`: `amount_specified > 0` is an exact input, `< 0` an exact
/// output. Without a limit the price may move to `MIN_SQRT_RATIO + 1` or
/// `MAX_SQRT_RATIO - 1`, which is what QuoterV2 passes for a zero limit.
///
/// Errors are the pool's reverts (`AS`, `SPL`, `LS`/`LA`, math requires). Running out of
/// liquidity is not an error, as in the pool: the result is a partial fill with
/// [`SwapResult::amount_specified_remaining`] set.
///
/// It checks the state ([`PoolState::validate`], a walk over every tick) on each call; a
/// caller that swaps many times on one state should build a [`ValidPoolState`] once.
pub fn simulate_swap(
    pool: &PoolState,
    zero_for_one: bool,
    amount_specified: I256,
    sqrt_price_limit: Option<U256>,
) -> Result<SwapResult, MathError> {
    pool.validate()?;
    swap(
        View::of_state(pool),
        zero_for_one,
        amount_specified,
        sqrt_price_limit,
    )
}

/// A [`PoolState`] that passed [`PoolState::validate`], so swaps on it skip the check. The
/// ticks are shared: the state after a swap ([`ValidPoolState::with_swap_applied`]) costs no
/// copy of the tick map, which is what a search chaining thousands of swaps needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidPoolState {
    sqrt_price_x96: U256,
    tick: i32,
    liquidity: u128,
    fee_pips: u32,
    /// The fee of a one-for-zero swap: `fee_pips` unless set apart (a Uniswap V4 pool whose
    /// protocol fee differs by direction: v4-core `Pool.swap` charges each swap the fee of
    /// its direction).
    fee_pips_one_for_zero: u32,
    tick_spacing: i32,
    ticks: Arc<BTreeMap<i32, i128>>,
}

impl TryFrom<PoolState> for ValidPoolState {
    type Error = MathError;

    fn try_from(state: PoolState) -> Result<Self, MathError> {
        Self::new(state)
    }
}

impl ValidPoolState {
    /// Validates `state` once ([`PoolState::validate`]).
    pub fn new(state: PoolState) -> Result<Self, MathError> {
        state.validate()?;
        Ok(Self {
            sqrt_price_x96: state.sqrt_price_x96,
            tick: state.tick,
            liquidity: state.liquidity,
            fee_pips: state.fee_pips,
            fee_pips_one_for_zero: state.fee_pips,
            tick_spacing: state.tick_spacing,
            ticks: Arc::new(state.ticks),
        })
    }

    /// This state with `fee_pips` charged on one-for-zero swaps instead (the state's own fee
    /// stays the zero-for-one fee).
    pub fn with_fee_one_for_zero(self, fee_pips: u32) -> Self {
        Self {
            fee_pips_one_for_zero: fee_pips,
            ..self
        }
    }

    /// The fee a swap in this direction pays, hundredths of a basis point.
    pub fn fee_pips_for(&self, zero_for_one: bool) -> u32 {
        if zero_for_one {
            self.fee_pips
        } else {
            self.fee_pips_one_for_zero
        }
    }

    /// `slot0.sqrtPriceX96`.
    pub fn sqrt_price_x96(&self) -> U256 {
        self.sqrt_price_x96
    }

    /// `slot0.tick`.
    pub fn tick(&self) -> i32 {
        self.tick
    }

    /// The in-range liquidity.
    pub fn liquidity(&self) -> u128 {
        self.liquidity
    }

    /// The fee in hundredths of a basis point (of a zero-for-one swap when the directions
    /// differ: [`Self::fee_pips_for`]).
    pub fn fee_pips(&self) -> u32 {
        self.fee_pips
    }

    /// The tick spacing.
    pub fn tick_spacing(&self) -> i32 {
        self.tick_spacing
    }

    /// Every initialized tick and its `liquidityNet`.
    pub fn ticks(&self) -> &BTreeMap<i32, i128> {
        &self.ticks
    }

    /// A plain copy of the state (with the zero-for-one fee).
    pub fn to_state(&self) -> PoolState {
        PoolState {
            sqrt_price_x96: self.sqrt_price_x96,
            tick: self.tick,
            liquidity: self.liquidity,
            fee_pips: self.fee_pips,
            tick_spacing: self.tick_spacing,
            ticks: BTreeMap::clone(&self.ticks),
        }
    }

    /// [`simulate_swap`] without re-validating the state: same results, same errors.
    pub fn simulate_swap(
        &self,
        zero_for_one: bool,
        amount_specified: I256,
        sqrt_price_limit: Option<U256>,
    ) -> Result<SwapResult, MathError> {
        swap(
            View {
                sqrt_price_x96: self.sqrt_price_x96,
                tick: self.tick,
                liquidity: self.liquidity,
                fee_pips: self.fee_pips_for(zero_for_one),
                tick_spacing: self.tick_spacing,
                ticks: &self.ticks,
            },
            zero_for_one,
            amount_specified,
            sqrt_price_limit,
        )
    }

    /// The state after `swap` (a result of [`Self::simulate_swap`] on this state), sharing
    /// the tick map. Only the new price needs checking: the ticks and spacing are unchanged.
    pub fn with_swap_applied(&self, swap: &SwapResult) -> Result<Self, MathError> {
        let price = swap.sqrt_price_after;
        if price < MIN_SQRT_RATIO || price >= MAX_SQRT_RATIO {
            return Err(MathError::SqrtPriceOutOfRange(price));
        }
        Ok(Self {
            sqrt_price_x96: price,
            tick: swap.tick_after,
            liquidity: swap.liquidity_after,
            ..self.clone()
        })
    }
}

/// The part of a pool one swap reads, borrowed from either state type.
#[derive(Clone, Copy)]
struct View<'a> {
    sqrt_price_x96: U256,
    tick: i32,
    liquidity: u128,
    fee_pips: u32,
    tick_spacing: i32,
    ticks: &'a BTreeMap<i32, i128>,
}

impl<'a> View<'a> {
    fn of_state(state: &'a PoolState) -> Self {
        Self {
            sqrt_price_x96: state.sqrt_price_x96,
            tick: state.tick,
            liquidity: state.liquidity,
            fee_pips: state.fee_pips,
            tick_spacing: state.tick_spacing,
            ticks: &state.ticks,
        }
    }
}

/// The swap loop on a state already known to be valid.
fn swap(
    pool: View<'_>,
    zero_for_one: bool,
    amount_specified: I256,
    sqrt_price_limit: Option<U256>,
) -> Result<SwapResult, MathError> {
    if amount_specified.is_zero() {
        return Err(MathError::ZeroAmount);
    }
    let one = U256::from(1u8);
    let limit = sqrt_price_limit.unwrap_or(if zero_for_one {
        MIN_SQRT_RATIO + one
    } else {
        MAX_SQRT_RATIO - one
    });
    let limit_valid = if zero_for_one {
        limit < pool.sqrt_price_x96 && limit > MIN_SQRT_RATIO
    } else {
        limit > pool.sqrt_price_x96 && limit < MAX_SQRT_RATIO
    };
    if !limit_valid {
        return Err(MathError::InvalidPriceLimit(limit));
    }

    let exact_input = amount_specified.is_positive();
    let mut remaining = amount_specified;
    let mut calculated = I256::ZERO;
    let mut sqrt_price = pool.sqrt_price_x96;
    let mut tick = pool.tick;
    let mut liquidity = pool.liquidity;

    while !remaining.is_zero() && sqrt_price != limit {
        let step_start = sqrt_price;
        let (tick_next, initialized) = next_initialized_tick_within_one_word(
            pool.ticks,
            tick,
            pool.tick_spacing,
            zero_for_one,
        );
        // The bitmap search knows nothing of the tick range.
        let tick_next = tick_next.clamp(MIN_TICK, MAX_TICK);
        let sqrt_price_next = get_sqrt_ratio_at_tick(tick_next)?;
        let beyond_limit = if zero_for_one {
            sqrt_price_next < limit
        } else {
            sqrt_price_next > limit
        };
        let target = if beyond_limit { limit } else { sqrt_price_next };

        let step = compute_swap_step(sqrt_price, target, liquidity, remaining, pool.fee_pips)?;
        sqrt_price = step.sqrt_ratio_next_x96;

        let paid = to_i256(
            step.amount_in
                .checked_add(step.fee_amount)
                .ok_or(MathError::Overflow)?,
        )?;
        let received = to_i256(step.amount_out)?;
        if exact_input {
            remaining = remaining.checked_sub(paid).ok_or(MathError::Overflow)?;
            calculated = calculated
                .checked_sub(received)
                .ok_or(MathError::Overflow)?;
        } else {
            remaining = remaining.checked_add(received).ok_or(MathError::Overflow)?;
            calculated = calculated.checked_add(paid).ok_or(MathError::Overflow)?;
        }

        if sqrt_price == sqrt_price_next {
            if initialized {
                let net = pool.ticks.get(&tick_next).copied().unwrap_or(0);
                // Moving left crosses the tick from above: the net is applied negated.
                let net = if zero_for_one {
                    net.checked_neg()
                        .ok_or(MathError::LiquidityOutOfRange(tick_next))?
                } else {
                    net
                };
                liquidity = liquidity
                    .checked_add_signed(net)
                    .ok_or(MathError::LiquidityOutOfRange(tick_next))?;
            }
            // Also for an uninitialized tick (a word boundary): the next search starts there.
            tick = if zero_for_one {
                tick_next - 1
            } else {
                tick_next
            };
        } else if sqrt_price != step_start {
            // Stopped inside the range; an unmoved price keeps the tick (it may sit on a
            // boundary just crossed downwards).
            tick = get_tick_at_sqrt_ratio(sqrt_price)?;
        }
    }

    let specified_used = amount_specified.wrapping_sub(remaining);
    let (amount0, amount1) = if zero_for_one == exact_input {
        (specified_used, calculated)
    } else {
        (calculated, specified_used)
    };
    Ok(SwapResult {
        amount0,
        amount1,
        sqrt_price_after: sqrt_price,
        tick_after: tick,
        liquidity_after: liquidity,
        initialized_ticks_crossed: count_initialized_ticks_crossed(
            pool.ticks,
            pool.tick_spacing,
            pool.tick,
            tick,
        ),
        amount_specified_remaining: remaining,
    })
}

/// SafeCast.toInt256: values of 2^255 and above revert.
fn to_i256(value: U256) -> Result<I256, MathError> {
    I256::try_from(value).map_err(|_| MathError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqrt_price_math::Q96;

    fn i(x: i128) -> I256 {
        I256::unchecked_from(x)
    }

    /// Price 1, spacing 60, a full-range position of 1e18 and a narrow one around the price.
    fn pool() -> PoolState {
        let full_low = MIN_TICK / 60 * 60;
        let full_high = MAX_TICK / 60 * 60;
        let mut ticks = BTreeMap::new();
        ticks.insert(full_low, 10i128.pow(18));
        ticks.insert(full_high, -(10i128.pow(18)));
        ticks.insert(-120, 5 * 10i128.pow(18));
        ticks.insert(120, -5 * 10i128.pow(18));
        PoolState {
            sqrt_price_x96: Q96,
            tick: 0,
            liquidity: 6 * 10u128.pow(18),
            fee_pips: 3000,
            tick_spacing: 60,
            ticks,
        }
    }

    #[test]
    fn small_exact_input_stays_in_range() {
        let result =
            simulate_swap(&pool(), true, i(10i128.pow(15)), None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.amount0, i(10i128.pow(15)));
        assert!(result.amount1.is_negative());
        assert!(result.sqrt_price_after < Q96);
        assert_eq!(result.liquidity_after, 6 * 10u128.pow(18));
        assert!(!result.is_partial());
    }

    #[test]
    fn a_fee_set_apart_for_one_for_zero_swaps_applies_to_that_direction_only() {
        let base = pool();
        let valid = ValidPoolState::new(base.clone()).unwrap_or_else(|e| panic!("{e}"));
        let other_fee = base.fee_pips * 2;
        let split = valid.clone().with_fee_one_for_zero(other_fee);
        assert_eq!(split.fee_pips_for(true), base.fee_pips);
        assert_eq!(split.fee_pips_for(false), other_fee);
        let amount = i(10i128.pow(15));
        let run = |state: &ValidPoolState, zero_for_one| {
            state
                .simulate_swap(zero_for_one, amount, None)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(
            run(&split, true),
            run(&valid, true),
            "zero-for-one: the base fee"
        );
        let at_other = ValidPoolState::new(PoolState {
            fee_pips: other_fee,
            ..base
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            run(&split, false),
            run(&at_other, false),
            "one-for-zero: its own"
        );
        assert_ne!(run(&split, false), run(&valid, false));
    }

    #[test]
    fn crossing_a_tick_drops_the_narrow_liquidity() {
        let result = simulate_swap(&pool(), false, i(10i128.pow(17)), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(result.tick_after >= 120);
        assert_eq!(result.liquidity_after, 10u128.pow(18));
        assert_eq!(result.initialized_ticks_crossed, 1);
    }

    #[test]
    fn exact_output_delivers_exactly() {
        let result = simulate_swap(&pool(), true, i(-(10i128.pow(15))), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.amount1, i(-(10i128.pow(15))));
        assert!(result.amount0.is_positive());
        assert_eq!(result.amount_out(true), U256::from(10u128.pow(15)));
    }

    #[test]
    fn runs_to_the_limit_and_reports_a_partial_fill() {
        let limit = get_sqrt_ratio_at_tick(-600).unwrap_or_default();
        let result = simulate_swap(&pool(), true, i(10i128.pow(30)), Some(limit))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.sqrt_price_after, limit);
        assert!(result.is_partial());
        assert_eq!(
            result.require_complete(),
            Err(MathError::InsufficientLiquidity)
        );
        // Without a limit the whole range is available, and still not enough for 1e38.
        let result =
            simulate_swap(&pool(), true, i(10i128.pow(38)), None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.sqrt_price_after, MIN_SQRT_RATIO + U256::from(1u8));
        assert_eq!(result.tick_after, MIN_TICK);
        assert!(result.is_partial());
        assert!(result.amount_out(true) < U256::from(7 * 10u128.pow(18)));
    }

    #[test]
    fn reverts_like_the_pool() {
        assert_eq!(
            simulate_swap(&pool(), true, I256::ZERO, None),
            Err(MathError::ZeroAmount)
        );
        assert_eq!(
            simulate_swap(&pool(), true, i(1), Some(Q96)),
            Err(MathError::InvalidPriceLimit(Q96))
        );
        assert_eq!(
            simulate_swap(&pool(), false, i(1), Some(MAX_SQRT_RATIO)),
            Err(MathError::InvalidPriceLimit(MAX_SQRT_RATIO))
        );
        let mut bad = pool();
        bad.ticks.insert(7, 1);
        assert_eq!(
            simulate_swap(&bad, true, i(1), None),
            Err(MathError::UnusableTick(7))
        );
    }

    #[test]
    fn a_validated_state_swaps_like_the_free_function() {
        let state = pool();
        let valid = ValidPoolState::new(state.clone()).unwrap_or_else(|e| panic!("{e}"));
        for (zero_for_one, amount) in [(true, i(10i128.pow(15))), (false, i(10i128.pow(17)))] {
            assert_eq!(
                valid.simulate_swap(zero_for_one, amount, None),
                simulate_swap(&state, zero_for_one, amount, None)
            );
        }
        assert_eq!(valid.to_state(), state);
        // The checks happen once, at construction.
        let mut bad = pool();
        bad.ticks.insert(7, 1);
        assert_eq!(ValidPoolState::new(bad), Err(MathError::UnusableTick(7)));
        let mut bad = pool();
        bad.tick_spacing = 0;
        assert_eq!(
            ValidPoolState::try_from(bad),
            Err(MathError::InvalidTickSpacing(0))
        );
    }

    #[test]
    fn a_validated_state_chains_swaps_like_the_plain_one() {
        let state = pool();
        let valid = ValidPoolState::new(state.clone()).unwrap_or_else(|e| panic!("{e}"));
        let first = valid
            .simulate_swap(false, i(10i128.pow(17)), None)
            .unwrap_or_else(|e| panic!("{e}"));
        let after = valid
            .with_swap_applied(&first)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(after.to_state(), state.with_swap_applied(&first));
        let second = after.simulate_swap(true, i(10i128.pow(16)), None);
        assert_eq!(
            second,
            simulate_swap(
                &state.with_swap_applied(&first),
                true,
                i(10i128.pow(16)),
                None
            )
        );
        let mut wild = first;
        wild.sqrt_price_after = MAX_SQRT_RATIO;
        assert_eq!(
            valid.with_swap_applied(&wild),
            Err(MathError::SqrtPriceOutOfRange(MAX_SQRT_RATIO))
        );
    }

    #[test]
    fn applying_a_swap_moves_the_state() {
        let state = pool();
        let first =
            simulate_swap(&state, false, i(10i128.pow(16)), None).unwrap_or_else(|e| panic!("{e}"));
        let after = state.with_swap_applied(&first);
        assert_eq!(after.sqrt_price_x96, first.sqrt_price_after);
        assert_eq!(after.ticks, state.ticks);
    }
}
