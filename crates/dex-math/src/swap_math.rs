//! Uniswap V3 `SwapMath.computeSwapStep`: one step of a swap inside a single liquidity range.

use alloy::primitives::{I256, U256};

use crate::MathError;
use crate::full_math::{mul_div, mul_div_rounding_up};
use crate::sqrt_price_math::{
    get_amount0_delta, get_amount1_delta, get_next_sqrt_price_from_input,
    get_next_sqrt_price_from_output,
};

/// Fees are in hundredths of a basis point: 1e6 pips = 100 %.
pub const FEE_PIPS_DENOMINATOR: u32 = 1_000_000;

/// The outcome of one swap step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapStep {
    /// The price after the step (the target, or short of it when the amount ran out).
    pub sqrt_ratio_next_x96: U256,
    /// Input consumed, fee excluded.
    pub amount_in: U256,
    /// Output produced.
    pub amount_out: U256,
    /// Fee taken from the input.
    pub fee_amount: U256,
}

/// Swaps `amount_remaining` (positive: exact input, negative: exact output) from
/// `sqrt_ratio_current_x96` towards `sqrt_ratio_target_x96` with `liquidity`; the direction
/// follows from the two prices, as in the library.
pub fn compute_swap_step(
    sqrt_ratio_current_x96: U256,
    sqrt_ratio_target_x96: U256,
    liquidity: u128,
    amount_remaining: I256,
    fee_pips: u32,
) -> Result<SwapStep, MathError> {
    if fee_pips >= FEE_PIPS_DENOMINATOR {
        return Err(MathError::InvalidFee(fee_pips));
    }
    let fee = U256::from(fee_pips);
    let fee_complement = U256::from(FEE_PIPS_DENOMINATOR - fee_pips);
    let pips = U256::from(FEE_PIPS_DENOMINATOR);
    let zero_for_one = sqrt_ratio_current_x96 >= sqrt_ratio_target_x96;
    let exact_in = !amount_remaining.is_negative();
    // |amount| as the library's uint256 cast sees it (I256::MIN maps to 2^255 as there).
    let remaining_abs = amount_remaining.unsigned_abs();

    // The most the step can use (exact in) or give (exact out) when it reaches the target.
    let mut amount_in = U256::ZERO;
    let mut amount_out = U256::ZERO;
    let sqrt_ratio_next_x96 = if exact_in {
        let remaining_less_fee = mul_div(remaining_abs, fee_complement, pips)?;
        amount_in = if zero_for_one {
            get_amount0_delta(
                sqrt_ratio_target_x96,
                sqrt_ratio_current_x96,
                liquidity,
                true,
            )?
        } else {
            get_amount1_delta(
                sqrt_ratio_current_x96,
                sqrt_ratio_target_x96,
                liquidity,
                true,
            )?
        };
        if remaining_less_fee >= amount_in {
            sqrt_ratio_target_x96
        } else {
            get_next_sqrt_price_from_input(
                sqrt_ratio_current_x96,
                liquidity,
                remaining_less_fee,
                zero_for_one,
            )?
        }
    } else {
        amount_out = if zero_for_one {
            get_amount1_delta(
                sqrt_ratio_target_x96,
                sqrt_ratio_current_x96,
                liquidity,
                false,
            )?
        } else {
            get_amount0_delta(
                sqrt_ratio_current_x96,
                sqrt_ratio_target_x96,
                liquidity,
                false,
            )?
        };
        if remaining_abs >= amount_out {
            sqrt_ratio_target_x96
        } else {
            get_next_sqrt_price_from_output(
                sqrt_ratio_current_x96,
                liquidity,
                remaining_abs,
                zero_for_one,
            )?
        }
    };

    let reached_target = sqrt_ratio_target_x96 == sqrt_ratio_next_x96;
    // The amount computed above for the full move stays valid when the target was reached;
    // everything else is recomputed for the actual move, with the same roundings.
    let have_in = reached_target && exact_in;
    let have_out = reached_target && !exact_in;
    if zero_for_one {
        if !have_in {
            amount_in =
                get_amount0_delta(sqrt_ratio_next_x96, sqrt_ratio_current_x96, liquidity, true)?;
        }
        if !have_out {
            amount_out = get_amount1_delta(
                sqrt_ratio_next_x96,
                sqrt_ratio_current_x96,
                liquidity,
                false,
            )?;
        }
    } else {
        if !have_in {
            amount_in =
                get_amount1_delta(sqrt_ratio_current_x96, sqrt_ratio_next_x96, liquidity, true)?;
        }
        if !have_out {
            amount_out = get_amount0_delta(
                sqrt_ratio_current_x96,
                sqrt_ratio_next_x96,
                liquidity,
                false,
            )?;
        }
    }

    // Never give more than was asked for.
    if !exact_in && amount_out > remaining_abs {
        amount_out = remaining_abs;
    }

    let fee_amount = if exact_in && sqrt_ratio_next_x96 != sqrt_ratio_target_x96 {
        // The target was not reached: whatever input is left over is the fee.
        remaining_abs.wrapping_sub(amount_in)
    } else {
        mul_div_rounding_up(amount_in, fee, fee_complement)?
    };

    Ok(SwapStep {
        sqrt_ratio_next_x96,
        amount_in,
        amount_out,
        fee_amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqrt_price_math::Q96;

    fn i(x: i128) -> I256 {
        I256::unchecked_from(x)
    }

    #[test]
    fn exact_in_capped_at_target() {
        // Price 1 -> 1.01 with 2e18 liquidity, 1e18 in, 0.06 % fee: the target is reached
        // well before the input is used up.
        let target = U256::from_str_radix("79623317895830914510639640423", 10).unwrap_or_default();
        let step = compute_swap_step(Q96, target, 2 * 10u128.pow(18), i(10i128.pow(18)), 600);
        let step = step.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(step.sqrt_ratio_next_x96, target);
        assert!(step.amount_in + step.fee_amount < U256::from(10u128.pow(18)));
        assert_eq!(
            step.amount_in,
            U256::from_str_radix("9975124224178055", 10).unwrap_or_default()
        );
        assert_eq!(
            step.fee_amount,
            U256::from_str_radix("5988667735148", 10).unwrap_or_default()
        );
        assert_eq!(
            step.amount_out,
            U256::from_str_radix("9925619580021728", 10).unwrap_or_default()
        );
    }

    #[test]
    fn exact_in_not_reaching_target_takes_the_rest_as_fee() {
        let target = Q96 * U256::from(2u8);
        let step = compute_swap_step(Q96, target, 10u128.pow(18), i(1_000), 3000)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(step.sqrt_ratio_next_x96 < target);
        assert_eq!(step.amount_in + step.fee_amount, U256::from(1_000u32));
    }

    #[test]
    fn exact_out_never_exceeds_request() {
        let target = Q96 / U256::from(2u8);
        let step = compute_swap_step(Q96, target, 10u128.pow(18), i(-1_000), 3000)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(step.amount_out, U256::from(1_000u32));
        assert!(step.sqrt_ratio_next_x96 > target);
    }

    #[test]
    fn rejects_full_fee() {
        assert_eq!(
            compute_swap_step(Q96, Q96, 1, i(1), 1_000_000),
            Err(MathError::InvalidFee(1_000_000))
        );
    }
}
