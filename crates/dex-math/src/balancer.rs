//! Balancer V2 weighted and stable pools, exactly as the Vault's swap through a
//! `WeightedPool` or a `ComposableStablePool` (regular, non-BPT swaps) computes them: the pool's scaling of amounts to 18 decimals, its swap fee, `WeightedMath`'s
//! `_calcOutGivenIn` / `_calcInGivenOut`, and the 18-decimal fixed point they run on
//! (`FixedPoint` with `powUp`'s shortcuts for the exponents 1, 2 and 4, `LogExpMath`'s `ln`
//! and `exp` series otherwise), with the same integer rounding at every step.
//!
//! Written from the Solidity of `@balancer-labs/v2-solidity-utils` 4.0.0
//! (`contracts/math/FixedPoint.sol`, `LogExpMath.sol`, `helpers/ScalingHelpers.sol`),
//! `@balancer-labs/v2-pool-weighted` (`WeightedMath.sol`) and `@balancer-labs/v2-pool-utils`
//! 4.1.1 (`BaseMinimalSwapInfoPool.onSwap`, `BasePool._subtractSwapFeeAmount`), and for stable
//! pools `StableMath.sol`, `ComposableStablePool.sol` (`_onRegularSwap`) and
//! `BaseGeneralPool.sol` of github.com/balancer/balancer-v2-monorepo (`pkg/pool-stable`,
//! `pkg/pool-utils`; no registry package carries those versions' sources). Proven to the wei
//! against the Vault, WeightedPoolFactory (v3) and ComposableStablePoolFactory (v3) bytecode of
//! `@balancer-labs/v2-deployments` 3.2.0 on the devnet (`tests/devnet_balancer.rs`).
//!
//! Every `require` that would revert is an error naming its `BAL#` code (or the overflow,
//! underflow or division by zero it guards); `LogExpMath` is Solidity 0.7 without checked
//! arithmetic, and its bounds keep every intermediate in range, so checked operations here
//! only turn an impossible wrap into an error.

use alloy::primitives::{I256, U256};

use crate::MathError;

/// 1e18, the fixed-point one.
pub const ONE: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);
const TWO: U256 = U256::from_limbs([2_000_000_000_000_000_000, 0, 0, 0]);
const FOUR: U256 = U256::from_limbs([4_000_000_000_000_000_000, 0, 0, 0]);
/// `FixedPoint.MAX_POW_RELATIVE_ERROR`, 1e-14.
const MAX_POW_RELATIVE_ERROR: U256 = U256::from_limbs([10_000, 0, 0, 0]);
/// `WeightedMath._MAX_IN_RATIO` and `_MAX_OUT_RATIO`: 30 % of the balance.
const MAX_RATIO: U256 = U256::from_limbs([300_000_000_000_000_000, 0, 0, 0]);

/// `Errors.MAX_IN_RATIO`: more than 30 % of the balance in.
pub const BAL_MAX_IN_RATIO: u16 = 304;
/// `Errors.MAX_OUT_RATIO`: more than 30 % of the balance out.
pub const BAL_MAX_OUT_RATIO: u16 = 305;
const BAL_X_OUT_OF_BOUNDS: u16 = 6;
const BAL_Y_OUT_OF_BOUNDS: u16 = 7;
const BAL_PRODUCT_OUT_OF_BOUNDS: u16 = 8;
const BAL_INVALID_EXPONENT: u16 = 9;

/// `FixedPoint`'s operations (Solidity 0.7 with explicit overflow `require`s).
pub mod fixed {
    use super::{FOUR, LogExp, MAX_POW_RELATIVE_ERROR, ONE, TWO};
    use crate::MathError;
    use alloy::primitives::U256;

    /// `add`: checked.
    pub fn add(a: U256, b: U256) -> Result<U256, MathError> {
        a.checked_add(b).ok_or(MathError::Overflow)
    }

    /// `sub`: checked.
    pub fn sub(a: U256, b: U256) -> Result<U256, MathError> {
        a.checked_sub(b).ok_or(MathError::Underflow)
    }

    /// `mulDown`: `a·b / 1e18`, rounded down.
    pub fn mul_down(a: U256, b: U256) -> Result<U256, MathError> {
        Ok(a.checked_mul(b).ok_or(MathError::Overflow)? / ONE)
    }

    /// `mulUp`: `a·b / 1e18`, rounded up (`(product − 1) / 1e18 + 1`, zero for zero).
    pub fn mul_up(a: U256, b: U256) -> Result<U256, MathError> {
        let product = a.checked_mul(b).ok_or(MathError::Overflow)?;
        Ok(if product.is_zero() {
            U256::ZERO
        } else {
            (product - U256::from(1u8)) / ONE + U256::from(1u8)
        })
    }

    /// `divDown`: `a·1e18 / b`, rounded down.
    pub fn div_down(a: U256, b: U256) -> Result<U256, MathError> {
        if b.is_zero() {
            return Err(MathError::DivisionByZero);
        }
        Ok(a.checked_mul(ONE).ok_or(MathError::Overflow)? / b)
    }

    /// `divUp`: `a·1e18 / b`, rounded up.
    pub fn div_up(a: U256, b: U256) -> Result<U256, MathError> {
        if b.is_zero() {
            return Err(MathError::DivisionByZero);
        }
        let inflated = a.checked_mul(ONE).ok_or(MathError::Overflow)?;
        Ok(if inflated.is_zero() {
            U256::ZERO
        } else {
            (inflated - U256::from(1u8)) / b + U256::from(1u8)
        })
    }

    /// `powUp`: `x^y` rounded up; exact shortcuts for `y` = 1, 2 and 4 (50/50 and 80/20
    /// pools), else `LogExpMath.pow` plus its relative error bound plus one.
    pub fn pow_up(x: U256, y: U256) -> Result<U256, MathError> {
        if y == ONE {
            Ok(x)
        } else if y == TWO {
            mul_up(x, x)
        } else if y == FOUR {
            let square = mul_up(x, x)?;
            mul_up(square, square)
        } else {
            let raw = LogExp::pow(x, y)?;
            let max_error = add(mul_up(raw, MAX_POW_RELATIVE_ERROR)?, U256::from(1u8))?;
            add(raw, max_error)
        }
    }

    /// `complement`: `1 − x`, zero when `x ≥ 1`.
    pub fn complement(x: U256) -> U256 {
        if x < ONE { ONE - x } else { U256::ZERO }
    }
}

/// `LogExpMath`: `x^y`, `e^x` and `ln x` on signed 18-decimal fixed point, with its tables.
struct LogExp;

/// A signed constant from its decimal digits (all are literals of the Solidity source).
fn int(digits: &str) -> I256 {
    // The literals below are valid; a parse failure would be a typo caught by the unit tests.
    digits.parse().unwrap_or(I256::ZERO)
}

/// `x_n` (the exponent) and `a_n = e^(x_n)` of the tables, 20 decimals except `a0`, `a1`.
struct Tables {
    one_18: I256,
    one_20: I256,
    one_36: I256,
    x: [I256; 12],
    a: [I256; 12],
}

fn tables() -> &'static Tables {
    static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| Tables {
        one_18: int("1000000000000000000"),
        one_20: int("100000000000000000000"),
        one_36: int("1000000000000000000000000000000000000"),
        x: [
            int("128000000000000000000"),
            int("64000000000000000000"),
            int("3200000000000000000000"),
            int("1600000000000000000000"),
            int("800000000000000000000"),
            int("400000000000000000000"),
            int("200000000000000000000"),
            int("100000000000000000000"),
            int("50000000000000000000"),
            int("25000000000000000000"),
            int("12500000000000000000"),
            int("6250000000000000000"),
        ],
        a: [
            int("38877084059945950922200000000000000000000000000000000000"),
            int("6235149080811616882910000000"),
            int("7896296018268069516100000000000000"),
            int("888611052050787263676000000"),
            int("298095798704172827474000"),
            int("5459815003314423907810"),
            int("738905609893065022723"),
            int("271828182845904523536"),
            int("164872127070012814685"),
            int("128402541668774148407"),
            int("113314845306682631683"),
            int("106449445891785942956"),
        ],
    })
}

fn mul(a: I256, b: I256) -> Result<I256, MathError> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

fn div(a: I256, b: I256) -> Result<I256, MathError> {
    // Truncates toward zero, as Solidity's signed division does.
    a.checked_div(b).ok_or(MathError::DivisionByZero)
}

fn plus(a: I256, b: I256) -> Result<I256, MathError> {
    a.checked_add(b).ok_or(MathError::Overflow)
}

fn minus(a: I256, b: I256) -> Result<I256, MathError> {
    a.checked_sub(b).ok_or(MathError::Overflow)
}

impl LogExp {
    /// `pow(x, y)`: `exp(ln(x)·y)`, with the 36-decimal logarithm for `x` within 0.1 of one.
    fn pow(x: U256, y: U256) -> Result<U256, MathError> {
        let t = tables();
        if y.is_zero() {
            return Ok(ONE);
        }
        if x.is_zero() {
            return Ok(U256::ZERO);
        }
        if x.bit(255) {
            return Err(MathError::Balancer(BAL_X_OUT_OF_BOUNDS));
        }
        // MILD_EXPONENT_BOUND = 2^254 / 1e20.
        let mild = (U256::from(1u8) << 254) / U256::from(100_000_000_000_000_000_000u128);
        if y >= mild {
            return Err(MathError::Balancer(BAL_Y_OUT_OF_BOUNDS));
        }
        let x = I256::from_raw(x);
        let y = I256::from_raw(y);
        let lower = minus(t.one_18, int("100000000000000000"))?;
        let upper = plus(t.one_18, int("100000000000000000"))?;
        let mut logx_times_y = if lower < x && x < upper {
            let ln_36_x = Self::ln_36(x)?;
            // Split to keep 36 decimals of the logarithm without overflowing.
            plus(
                mul(div(ln_36_x, t.one_18)?, y)?,
                div(mul(ln_36_x % t.one_18, y)?, t.one_18)?,
            )?
        } else {
            mul(Self::ln(x)?, y)?
        };
        logx_times_y = div(logx_times_y, t.one_18)?;
        let min = int("-41000000000000000000");
        let max = int("130000000000000000000");
        if logx_times_y < min || logx_times_y > max {
            return Err(MathError::Balancer(BAL_PRODUCT_OUT_OF_BOUNDS));
        }
        Ok(Self::exp(logx_times_y)?.into_raw())
    }

    /// `exp(x)`: the largest table powers first, then twelve terms of the Taylor series, at
    /// 20 decimals.
    fn exp(x: I256) -> Result<I256, MathError> {
        let t = tables();
        let min = int("-41000000000000000000");
        let max = int("130000000000000000000");
        if x < min || x > max {
            return Err(MathError::Balancer(BAL_INVALID_EXPONENT));
        }
        if x.is_negative() {
            return div(mul(t.one_18, t.one_18)?, Self::exp(-x)?);
        }
        let mut x = x;
        let first_an = if x >= t.x[0] {
            x = minus(x, t.x[0])?;
            t.a[0]
        } else if x >= t.x[1] {
            x = minus(x, t.x[1])?;
            t.a[1]
        } else {
            I256::ONE
        };
        x = mul(x, int("100"))?;
        let mut product = t.one_20;
        for n in 2..=9 {
            if x >= t.x[n] {
                x = minus(x, t.x[n])?;
                product = div(mul(product, t.a[n])?, t.one_20)?;
            }
        }
        let mut series = t.one_20;
        let mut term = x;
        series = plus(series, term)?;
        for n in 2..=12u8 {
            term = div(div(mul(term, x)?, t.one_20)?, I256::from_raw(U256::from(n)))?;
            series = plus(series, term)?;
        }
        div(
            mul(div(mul(product, series)?, t.one_20)?, first_an)?,
            int("100"),
        )
    }

    /// `_ln(a)`: the table's factors divided out, then the `atanh` series on what is left.
    fn ln(a: I256) -> Result<I256, MathError> {
        let t = tables();
        if a < t.one_18 {
            // ln(a) = −ln(1/a); `a` is positive here (pow returned early on zero).
            return Ok(-Self::ln(div(mul(t.one_18, t.one_18)?, a)?)?);
        }
        let mut a = a;
        let mut sum = I256::ZERO;
        for n in 0..2 {
            if a >= mul(t.a[n], t.one_18)? {
                // Integer, not fixed-point, division, as in the source.
                a = div(a, t.a[n])?;
                sum = plus(sum, t.x[n])?;
            }
        }
        sum = mul(sum, int("100"))?;
        a = mul(a, int("100"))?;
        for n in 2..=11 {
            if a >= t.a[n] {
                a = div(mul(a, t.one_20)?, t.a[n])?;
                sum = plus(sum, t.x[n])?;
            }
        }
        let z = div(mul(minus(a, t.one_20)?, t.one_20)?, plus(a, t.one_20)?)?;
        let z_squared = div(mul(z, z)?, t.one_20)?;
        let mut num = z;
        let mut series = num;
        for d in [3u8, 5, 7, 9, 11] {
            num = div(mul(num, z_squared)?, t.one_20)?;
            series = plus(series, div(num, I256::from_raw(U256::from(d)))?)?;
        }
        series = mul(series, int("2"))?;
        div(plus(sum, series)?, int("100"))
    }

    /// `_ln_36(x)`: the `atanh` series at 36 decimals, for `x` within 0.1 of one.
    fn ln_36(x: I256) -> Result<I256, MathError> {
        let t = tables();
        let x = mul(x, t.one_18)?;
        let z = div(mul(minus(x, t.one_36)?, t.one_36)?, plus(x, t.one_36)?)?;
        let z_squared = div(mul(z, z)?, t.one_36)?;
        let mut num = z;
        let mut series = num;
        for d in [3u8, 5, 7, 9, 11, 13, 15] {
            num = div(mul(num, z_squared)?, t.one_36)?;
            series = plus(series, div(num, I256::from_raw(U256::from(d)))?)?;
        }
        mul(series, int("2"))
    }
}

/// `LogExpMath.pow(x, y)`: `x^y` for 18-decimal fixed-point `x` and `y`, as the contract
/// computes it (before `powUp`'s error margin).
pub fn log_exp_pow(x: U256, y: U256) -> Result<U256, MathError> {
    LogExp::pow(x, y)
}

/// A weighted pool at one block: what the Vault's `getPoolTokens` and the pool's
/// `getScalingFactors`, `getNormalizedWeights` and `getSwapFeePercentage` return, in the
/// pool's token order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightedPool {
    /// The Vault's balances (cash + managed), raw token units.
    pub balances: Vec<U256>,
    /// `10^(18 − decimals) · 1e18`, times the token's rate where the pool has a rate provider.
    pub scaling_factors: Vec<U256>,
    /// Normalized weights, 18 decimals, summing to one.
    pub weights: Vec<U256>,
    /// Swap fee, 18 decimals (1e16 = 1 %).
    pub swap_fee: U256,
}

impl WeightedPool {
    fn token(&self, index: usize) -> Result<(U256, U256, U256), MathError> {
        match (
            self.balances.get(index),
            self.scaling_factors.get(index),
            self.weights.get(index),
        ) {
            (Some(&balance), Some(&scaling), Some(&weight)) => Ok((balance, scaling, weight)),
            _ => Err(MathError::InsufficientLiquidity),
        }
    }

    /// The amount of token `out` the Vault pays for `amount_in` of token `in` (a GIVEN_IN
    /// swap): the fee taken from the raw amount (rounded up), amounts upscaled (rounded
    /// down), `_calcOutGivenIn`, the result downscaled (rounded down).
    pub fn out_given_in(
        &self,
        token_in: usize,
        token_out: usize,
        amount_in: U256,
    ) -> Result<U256, MathError> {
        use fixed::{complement, div_down, div_up, mul_down, mul_up, pow_up, sub};
        let (balance_in, scaling_in, weight_in) = self.token(token_in)?;
        let (balance_out, scaling_out, weight_out) = self.token(token_out)?;
        let balance_in = mul_down(balance_in, scaling_in)?;
        let balance_out = mul_down(balance_out, scaling_out)?;
        let amount = sub(amount_in, mul_up(amount_in, self.swap_fee)?)?;
        let amount = mul_down(amount, scaling_in)?;
        if amount > mul_down(balance_in, MAX_RATIO)? {
            return Err(MathError::Balancer(BAL_MAX_IN_RATIO));
        }
        let denominator = fixed::add(balance_in, amount)?;
        let base = div_up(balance_in, denominator)?;
        let exponent = div_down(weight_in, weight_out)?;
        let power = pow_up(base, exponent)?;
        let out = mul_down(balance_out, complement(power))?;
        div_down(out, scaling_out)
    }

    /// The amount of token `in` the Vault takes to pay `amount_out` of token `out` (a
    /// GIVEN_OUT swap): `_calcInGivenOut` on upscaled amounts, downscaled rounding up, and
    /// the fee added as `amount / (1 − fee)` rounded up.
    pub fn in_given_out(
        &self,
        token_in: usize,
        token_out: usize,
        amount_out: U256,
    ) -> Result<U256, MathError> {
        use fixed::{complement, div_up, mul_down, mul_up, pow_up, sub};
        let (balance_in, scaling_in, weight_in) = self.token(token_in)?;
        let (balance_out, scaling_out, weight_out) = self.token(token_out)?;
        let balance_in = mul_down(balance_in, scaling_in)?;
        let balance_out = mul_down(balance_out, scaling_out)?;
        let amount = mul_down(amount_out, scaling_out)?;
        if amount > mul_down(balance_out, MAX_RATIO)? {
            return Err(MathError::Balancer(BAL_MAX_OUT_RATIO));
        }
        let base = div_up(balance_out, sub(balance_out, amount)?)?;
        let exponent = div_up(weight_out, weight_in)?;
        let power = pow_up(base, exponent)?;
        let ratio = sub(power, ONE)?;
        let amount_in = mul_up(balance_in, ratio)?;
        // _downscaleUp: divUp by the scaling factor.
        let amount_in = div_up(amount_in, scaling_in)?;
        div_up(amount_in, complement(self.swap_fee))
    }

    /// The spot price of token `out` per token `in` before fees, in raw units, as
    /// `(numerator, denominator)`: `(balance_out / weight_out) / (balance_in / weight_in)`.
    pub fn mid(&self, token_in: usize, token_out: usize) -> Result<crate::Ratio, MathError> {
        let (balance_in, _, weight_in) = self.token(token_in)?;
        let (balance_out, _, weight_out) = self.token(token_out)?;
        if balance_in.is_zero() || weight_out.is_zero() {
            return Err(MathError::InsufficientLiquidity);
        }
        Ok(crate::Ratio {
            numerator: alloy::primitives::U512::from(balance_out)
                * alloy::primitives::U512::from(weight_in),
            denominator: alloy::primitives::U512::from(balance_in)
                * alloy::primitives::U512::from(weight_out),
        })
    }
}

/// `Errors.STABLE_INVARIANT_DIDNT_CONVERGE`.
pub const BAL_STABLE_INVARIANT_DIDNT_CONVERGE: u16 = 321;
/// `Errors.STABLE_GET_BALANCE_DIDNT_CONVERGE`.
pub const BAL_STABLE_GET_BALANCE_DIDNT_CONVERGE: u16 = 322;
/// `StableMath._AMP_PRECISION`: the amplification is stored times 1e3.
const AMP_PRECISION: U256 = U256::from_limbs([1_000, 0, 0, 0]);

/// `Math`'s checked operations on plain integers (`StableMath` works on them, not on fixed
/// point).
mod math {
    use crate::MathError;
    use alloy::primitives::U256;

    pub(super) fn mul(a: U256, b: U256) -> Result<U256, MathError> {
        a.checked_mul(b).ok_or(MathError::Overflow)
    }

    pub(super) fn add(a: U256, b: U256) -> Result<U256, MathError> {
        a.checked_add(b).ok_or(MathError::Overflow)
    }

    pub(super) fn sub(a: U256, b: U256) -> Result<U256, MathError> {
        a.checked_sub(b).ok_or(MathError::Underflow)
    }

    pub(super) fn div_down(a: U256, b: U256) -> Result<U256, MathError> {
        a.checked_div(b).ok_or(MathError::DivisionByZero)
    }

    /// `Math.divUp`: `1 + (a − 1) / b`, zero for zero.
    pub(super) fn div_up(a: U256, b: U256) -> Result<U256, MathError> {
        if b.is_zero() {
            return Err(MathError::DivisionByZero);
        }
        Ok(if a.is_zero() {
            U256::ZERO
        } else {
            U256::from(1u8) + (a - U256::from(1u8)) / b
        })
    }
}

/// Whether two Newton iterates are within one of each other (`StableMath`'s stop rule).
fn converged(next: U256, previous: U256) -> bool {
    let gap = if next > previous {
        next - previous
    } else {
        previous - next
    };
    gap <= U256::from(1u8)
}

/// `StableMath._calculateInvariant`: Curve's Newton iteration for `D`, at most 255 rounds, on
/// 18-decimal balances; `amp` is `A·n^(n−1)` times 1,000 (`StableMath._AMP_PRECISION`).
pub fn stable_invariant(amp: U256, balances: &[U256]) -> Result<U256, MathError> {
    use math::{add, div_down, mul, sub};
    let mut sum = U256::ZERO;
    for &balance in balances {
        sum = add(sum, balance)?;
    }
    if sum.is_zero() {
        return Ok(U256::ZERO);
    }
    let n = U256::from(balances.len());
    let amp_times_total = mul(amp, n)?;
    let mut invariant = sum;
    for _ in 0..255 {
        let mut d_p = invariant;
        for &balance in balances {
            d_p = div_down(mul(d_p, invariant)?, mul(balance, n)?)?;
        }
        let previous = invariant;
        let numerator = mul(
            add(
                div_down(mul(amp_times_total, sum)?, AMP_PRECISION)?,
                mul(d_p, n)?,
            )?,
            invariant,
        )?;
        let denominator = add(
            div_down(
                mul(sub(amp_times_total, AMP_PRECISION)?, invariant)?,
                AMP_PRECISION,
            )?,
            mul(add(n, U256::from(1u8))?, d_p)?,
        )?;
        invariant = div_down(numerator, denominator)?;
        if converged(invariant, previous) {
            return Ok(invariant);
        }
    }
    Err(MathError::Balancer(BAL_STABLE_INVARIANT_DIDNT_CONVERGE))
}

/// `StableMath._getTokenBalanceGivenInvariantAndAllOtherBalances`: the balance of token
/// `index` that keeps `invariant` with the other balances, by Newton's method rounding up.
fn stable_balance_given_invariant(
    amp: U256,
    balances: &[U256],
    invariant: U256,
    index: usize,
) -> Result<U256, MathError> {
    use math::{add, div_down, div_up, mul, sub};
    let n = U256::from(balances.len());
    let amp_times_total = mul(amp, n)?;
    let first = *balances.first().ok_or(MathError::InsufficientLiquidity)?;
    let mut sum = first;
    let mut p_d = mul(first, n)?;
    for &balance in &balances[1..] {
        p_d = div_down(mul(mul(p_d, balance)?, n)?, invariant)?;
        sum = add(sum, balance)?;
    }
    let own = *balances
        .get(index)
        .ok_or(MathError::InsufficientLiquidity)?;
    sum = sub(sum, own)?;
    let inv2 = mul(invariant, invariant)?;
    let c = mul(
        mul(div_up(inv2, mul(amp_times_total, p_d)?)?, AMP_PRECISION)?,
        own,
    )?;
    let b = add(
        sum,
        mul(div_down(invariant, amp_times_total)?, AMP_PRECISION)?,
    )?;
    let mut balance = div_up(add(inv2, c)?, add(invariant, b)?)?;
    for _ in 0..255 {
        let previous = balance;
        balance = div_up(
            add(mul(balance, balance)?, c)?,
            sub(add(mul(balance, U256::from(2u8))?, b)?, invariant)?,
        )?;
        if converged(balance, previous) {
            return Ok(balance);
        }
    }
    Err(MathError::Balancer(BAL_STABLE_GET_BALANCE_DIDNT_CONVERGE))
}

/// A Balancer V2 stable pool at one block (ComposableStablePool: without its own BPT, which
/// the Vault lists among its tokens), in the pool's token order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StablePool {
    /// The Vault's balances (cash + managed) of the tokens other than the BPT, raw units.
    pub balances: Vec<U256>,
    /// `getScalingFactors()` without the BPT's: `10^(18 − decimals) · 1e18`, times the
    /// token's cached rate where it has a rate provider.
    pub scaling_factors: Vec<U256>,
    /// `getAmplificationParameter().value`: `A·n^(n−1)` times 1e3.
    pub amp: U256,
    /// Swap fee, 18 decimals.
    pub swap_fee: U256,
}

impl StablePool {
    fn upscaled(&self) -> Result<Vec<U256>, MathError> {
        if self.balances.len() != self.scaling_factors.len() {
            return Err(MathError::InsufficientLiquidity);
        }
        self.balances
            .iter()
            .zip(&self.scaling_factors)
            .map(|(&balance, &scaling)| fixed::mul_down(balance, scaling))
            .collect()
    }

    fn scaling(&self, index: usize) -> Result<U256, MathError> {
        self.scaling_factors
            .get(index)
            .copied()
            .ok_or(MathError::InsufficientLiquidity)
    }

    /// What a regular (non-BPT) GIVEN_IN swap pays: the fee off the raw amount (rounded up),
    /// balances and amount upscaled, the invariant of the balances before, the balance out
    /// that keeps it, less one, downscaled rounding down.
    pub fn out_given_in(
        &self,
        token_in: usize,
        token_out: usize,
        amount_in: U256,
    ) -> Result<U256, MathError> {
        let mut balances = self.upscaled()?;
        let amount = fixed::sub(amount_in, fixed::mul_up(amount_in, self.swap_fee)?)?;
        let amount = fixed::mul_down(amount, self.scaling(token_in)?)?;
        let invariant = stable_invariant(self.amp, &balances)?;
        let balance_out = *balances
            .get(token_out)
            .ok_or(MathError::InsufficientLiquidity)?;
        let slot = balances
            .get_mut(token_in)
            .ok_or(MathError::InsufficientLiquidity)?;
        *slot = math::add(*slot, amount)?;
        let final_out = stable_balance_given_invariant(self.amp, &balances, invariant, token_out)?;
        let out = math::sub(math::sub(balance_out, final_out)?, U256::from(1u8))?;
        fixed::div_down(out, self.scaling(token_out)?)
    }

    /// What a regular GIVEN_OUT swap takes: the balance in that keeps the invariant, plus
    /// one, downscaled rounding up, the fee added as `amount / (1 − fee)` rounded up.
    pub fn in_given_out(
        &self,
        token_in: usize,
        token_out: usize,
        amount_out: U256,
    ) -> Result<U256, MathError> {
        let mut balances = self.upscaled()?;
        let amount = fixed::mul_down(amount_out, self.scaling(token_out)?)?;
        let invariant = stable_invariant(self.amp, &balances)?;
        let balance_in = *balances
            .get(token_in)
            .ok_or(MathError::InsufficientLiquidity)?;
        let slot = balances
            .get_mut(token_out)
            .ok_or(MathError::InsufficientLiquidity)?;
        *slot = math::sub(*slot, amount)?;
        let final_in = stable_balance_given_invariant(self.amp, &balances, invariant, token_in)?;
        let amount_in = math::add(math::sub(final_in, balance_in)?, U256::from(1u8))?;
        let amount_in = fixed::div_up(amount_in, self.scaling(token_in)?)?;
        fixed::div_up(amount_in, fixed::complement(self.swap_fee))
    }
}

/// The scaling factor of a token with `decimals` and no rate provider:
/// `10^(18 − decimals) · 1e18` (`ScalingHelpers._computeScalingFactor`).
pub fn scaling_factor(decimals: u8) -> Result<U256, MathError> {
    let difference = 18u8.checked_sub(decimals).ok_or(MathError::Underflow)?;
    U256::from(10u8)
        .checked_pow(U256::from(difference))
        .and_then(|p| p.checked_mul(ONE))
        .ok_or(MathError::Overflow)
}

impl StablePool {
    /// The spot price of token `out` per token `in` before fees, in raw units: the ratio of
    /// the invariant's partial derivatives, `∂F/∂x_in / ∂F/∂x_out` with
    /// `∂F/∂x_i = A·nⁿ + Dⁿ⁺¹ / (nⁿ·Πx·x_i)`, on upscaled balances, the invariant `D` exact
    /// ([`stable_invariant`]); the ratio itself in floating point (balances over `D` keep the
    /// products in range), turned into a ratio with 18 significant digits at most. It feeds
    /// price impacts and band edges, which are figures, never an amount a contract pays.
    pub fn mid(&self, token_in: usize, token_out: usize) -> Result<crate::Ratio, MathError> {
        let upscaled = self.upscaled()?;
        let n = upscaled.len();
        if token_in >= n || token_out >= n {
            return Err(MathError::InsufficientLiquidity);
        }
        let d = stable_invariant(self.amp, &upscaled)?;
        let to_f64 = |x: U256| -> f64 { x.to_string().parse::<f64>().unwrap_or(f64::NAN) };
        let d = to_f64(d);
        if d <= 0.0 || !d.is_finite() {
            return Err(MathError::InsufficientLiquidity);
        }
        // A·nⁿ is amp·n / 1e3 (amp is A·nⁿ⁻¹·1e3).
        let shares: Vec<f64> = upscaled.iter().map(|x| to_f64(*x) / d).collect();
        let count = n as f64;
        let n_pow_n = count.powi(i32::try_from(n).map_err(|_| MathError::Overflow)?);
        let product: f64 = shares.iter().product();
        let a_n_n = to_f64(self.amp) * count / 1e3;
        let partial = |k: usize| a_n_n + 1.0 / (n_pow_n * product * shares[k]);
        let price = partial(token_in) / partial(token_out);
        if !price.is_finite() || price <= 0.0 {
            return Err(MathError::InsufficientLiquidity);
        }
        // Scaled price to raw: times scaling_in / scaling_out.
        let numerator = U256::from((price * 1e18).round() as u128);
        Ok(crate::Ratio {
            numerator: alloy::primitives::U512::from(numerator)
                * alloy::primitives::U512::from(self.scaling(token_in)?),
            denominator: alloy::primitives::U512::from(ONE)
                * alloy::primitives::U512::from(self.scaling(token_out)?),
        })
    }
}

/// A Balancer V2 pool of either type the port reads, for code that holds one pool whatever
/// its type (the sandwich model, depth bands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BalancerPool {
    /// A weighted pool.
    Weighted(WeightedPool),
    /// A composable stable pool (its BPT dropped).
    Stable(StablePool),
}

impl BalancerPool {
    /// What a GIVEN_IN swap of `amount_in` of token `token_in` pays of token `token_out`.
    pub fn out_given_in(
        &self,
        token_in: usize,
        token_out: usize,
        amount_in: U256,
    ) -> Result<U256, MathError> {
        match self {
            Self::Weighted(pool) => pool.out_given_in(token_in, token_out, amount_in),
            Self::Stable(pool) => pool.out_given_in(token_in, token_out, amount_in),
        }
    }

    /// The spot price of token `token_out` per token `token_in` before fees, raw units.
    pub fn mid(&self, token_in: usize, token_out: usize) -> Result<crate::Ratio, MathError> {
        match self {
            Self::Weighted(pool) => pool.mid(token_in, token_out),
            Self::Stable(pool) => pool.mid(token_in, token_out),
        }
    }

    /// The Vault's balances, raw units.
    pub fn balances(&self) -> &[U256] {
        match self {
            Self::Weighted(pool) => &pool.balances,
            Self::Stable(pool) => &pool.balances,
        }
    }

    /// The pool after a GIVEN_IN swap of `amount_in` that paid `amount_out`: the Vault adds
    /// the whole amount in to the pool's balance (the swap fee stays in the pool) and takes
    /// the amount out from the other (`Vault._processGeneralPoolSwapRequest` /
    /// `_processMinimalSwapInfoPoolSwapRequest`).
    pub fn with_swap(
        &self,
        token_in: usize,
        token_out: usize,
        amount_in: U256,
        amount_out: U256,
    ) -> Result<Self, MathError> {
        let mut next = self.clone();
        let balances = match &mut next {
            Self::Weighted(pool) => &mut pool.balances,
            Self::Stable(pool) => &mut pool.balances,
        };
        let balance_in = balances
            .get_mut(token_in)
            .ok_or(MathError::InsufficientLiquidity)?;
        *balance_in = balance_in
            .checked_add(amount_in)
            .ok_or(MathError::Overflow)?;
        let balance_out = balances
            .get_mut(token_out)
            .ok_or(MathError::InsufficientLiquidity)?;
        *balance_out = balance_out
            .checked_sub(amount_out)
            .ok_or(MathError::Underflow)?;
        Ok(next)
    }

    /// The largest GIVEN_IN amount of token `token_in` whose swap leaves the spot price of
    /// `token_in` (in `token_out`) no lower than `floor` (raw `token_out` per raw
    /// `token_in`), with what it pays: bisection over the exact swap, its fee included (which
    /// stays in the pool and moves the price too), a swap the pool refuses counting as past
    /// the floor. `limit` bounds the amounts tried. `None` when even `limit` stays above the
    /// floor, or when the pool refuses every swap that would reach it (a weighted pool takes
    /// at most 30 % of a balance in).
    pub fn in_to_price(
        &self,
        token_in: usize,
        token_out: usize,
        floor: &crate::Ratio,
        limit: U256,
    ) -> Option<(U256, U256)> {
        // What a swap of `amount` does: stays at or above the floor (paying the amount out),
        // falls below it, or is refused by the pool.
        enum Reach {
            Above(U256),
            Below,
            Refused,
        }
        let reach = |amount: U256| -> Reach {
            if amount.is_zero() {
                return Reach::Above(U256::ZERO);
            }
            let price = self
                .out_given_in(token_in, token_out, amount)
                .and_then(|out| {
                    let after = self.with_swap(token_in, token_out, amount, out)?;
                    Ok((out, after.mid(token_in, token_out)?))
                });
            match price {
                Ok((out, price))
                    if price.numerator * floor.denominator
                        >= floor.numerator * price.denominator =>
                {
                    Reach::Above(out)
                }
                Ok(_) => Reach::Below,
                Err(_) => Reach::Refused,
            }
        };
        if matches!(reach(limit), Reach::Above(_)) {
            return None;
        }
        // Invariant: `lo` stays at or above the floor, `hi` does not (below it or refused).
        let mut hi_refused = matches!(reach(limit), Reach::Refused);
        let (mut lo, mut hi, mut paid) = (U256::ZERO, limit, U256::ZERO);
        while hi - lo > U256::from(1u8) {
            let mid = lo + (hi - lo) / U256::from(2u8);
            match reach(mid) {
                Reach::Above(out) => {
                    lo = mid;
                    paid = out;
                }
                Reach::Below => {
                    hi = mid;
                    hi_refused = false;
                }
                Reach::Refused => {
                    hi = mid;
                    hi_refused = true;
                }
            }
        }
        // The edge lies past a swap the pool refuses: it takes nothing that reaches it.
        if hi_refused {
            return None;
        }
        Some((lo, paid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_edge_swap_is_the_largest_that_keeps_the_price_above_the_floor() {
        let e18 = U256::from(10u128.pow(18));
        let pools = [
            BalancerPool::Weighted(WeightedPool {
                balances: vec![U256::from(1_000u32) * e18, U256::from(3_000_000u32) * e18],
                scaling_factors: vec![ONE, ONE],
                weights: vec![ONE / U256::from(2u8), ONE / U256::from(2u8)],
                swap_fee: U256::from(3_000_000_000_000_000u64),
            }),
            BalancerPool::Stable(StablePool {
                balances: vec![
                    U256::from(2_000_000u32) * e18,
                    U256::from(2_600_000u32) * e18,
                ],
                scaling_factors: vec![ONE, ONE],
                amp: U256::from(200_000u32),
                swap_fee: U256::from(100_000_000_000_000u64),
            }),
        ];
        for pool in pools {
            for (i, j) in [(0, 1), (1, 0)] {
                let mid = pool.mid(i, j).expect("mid");
                let floor = crate::Ratio {
                    numerator: mid.numerator * alloy::primitives::U512::from(100u8),
                    denominator: mid.denominator * alloy::primitives::U512::from(102u8),
                };
                let limit = pool.balances()[i] * U256::from(1_000u32);
                let (amount, out) = pool.in_to_price(i, j, &floor, limit).expect("reached");
                assert_eq!(pool.out_given_in(i, j, amount), Ok(out));
                let price_after = |amount: U256| {
                    let out = pool.out_given_in(i, j, amount).expect("out");
                    let after = pool.with_swap(i, j, amount, out).expect("after");
                    after.mid(i, j).expect("mid").to_f64()
                };
                let edge = floor.to_f64();
                assert!(price_after(amount) >= edge * (1.0 - 1e-12));
                assert!(price_after(amount + U256::from(amount / U256::from(1_000_000u32))) < edge);
            }
        }
        // A weighted pool refuses more than 30 % in before its price falls by half.
        let weighted = BalancerPool::Weighted(WeightedPool {
            balances: vec![e18, e18],
            scaling_factors: vec![ONE, ONE],
            weights: vec![ONE / U256::from(2u8), ONE / U256::from(2u8)],
            swap_fee: U256::ZERO,
        });
        let mid = weighted.mid(0, 1).expect("mid");
        let half = crate::Ratio {
            numerator: mid.numerator,
            denominator: mid.denominator * alloy::primitives::U512::from(2u8),
        };
        assert_eq!(
            weighted.in_to_price(0, 1, &half, e18 * U256::from(1_000u32)),
            None
        );
    }

    fn wad(x: &str) -> U256 {
        crate::parse_units(x, 18).expect("valid in this test")
    }

    #[test]
    fn signed_division_truncates_toward_zero_as_solidity_does() {
        let (a, b) = (int("-7"), int("2"));
        assert_eq!(a / b, int("-3"));
        assert_eq!(a % b, int("-1"));
        assert_eq!(a.checked_div(b), Some(int("-3")));
    }

    #[test]
    fn the_tables_parse() {
        let t = tables();
        assert!(t.a.iter().chain(t.x.iter()).all(|v| v.is_positive()));
    }

    #[test]
    fn pow_is_close_to_the_real_power() {
        for (x, y) in [
            ("0.5", "0.25"),
            ("0.95", "1.5"),
            ("2", "0.5"),
            ("0.999", "0.3333"),
        ] {
            let raw = log_exp_pow(wad(x), wad(y)).expect("valid in this test");
            let want = x
                .parse::<f64>()
                .expect("valid in this test")
                .powf(y.parse::<f64>().expect("valid in this test"));
            let got = raw.to_string().parse::<f64>().expect("valid in this test") / 1e18;
            assert!(
                (got - want).abs() / want < 1e-12,
                "{x}^{y}: {got} vs {want}"
            );
        }
        assert_eq!(
            log_exp_pow(wad("0.7"), U256::ZERO).expect("valid in this test"),
            ONE
        );
        assert_eq!(
            log_exp_pow(U256::ZERO, ONE).expect("valid in this test"),
            U256::ZERO
        );
    }

    #[test]
    fn pow_up_takes_the_shortcuts() {
        let x = wad("0.9");
        assert_eq!(fixed::pow_up(x, ONE).expect("valid in this test"), x);
        assert_eq!(
            fixed::pow_up(x, TWO).expect("valid in this test"),
            wad("0.81")
        );
        assert_eq!(
            fixed::pow_up(x, FOUR).expect("valid in this test"),
            wad("0.6561")
        );
    }

    #[test]
    fn a_fifty_fifty_swap_is_the_constant_product_less_the_fee() {
        let pool = WeightedPool {
            balances: vec![wad("1000"), U256::from(3_000_000_000_000u64)],
            scaling_factors: vec![
                scaling_factor(18).expect("valid in this test"),
                scaling_factor(6).expect("valid in this test"),
            ],
            weights: vec![wad("0.5"), wad("0.5")],
            swap_fee: wad("0.003"),
        };
        let out = pool
            .out_given_in(0, 1, wad("1"))
            .expect("valid in this test");
        // 3,000,000 USDC · 0.997 / 1000.997 ≈ 2988.02 USDC.
        assert!(out > U256::from(2_988_000_000u64) && out < U256::from(2_988_100_000u64));
        assert_eq!(
            pool.out_given_in(0, 1, wad("400")),
            Err(MathError::Balancer(BAL_MAX_IN_RATIO))
        );
        // Buying that output back costs one WETH within the output's rounding (one USDC wei
        // is about 3e8 WETH wei).
        let back = pool.in_given_out(0, 1, out).expect("valid in this test");
        let gap = if back > wad("1") {
            back - wad("1")
        } else {
            wad("1") - back
        };
        assert!(gap < wad("0.000001"), "{back}");
    }
}
