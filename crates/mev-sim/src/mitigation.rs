//! Mitigations as numbers: the loss cap and the attacker's optimum under tighter tolerances,
//! and the same order split into equal parts.

use alloy::primitives::{I256, U256};
use dex_math::{MathError, amount_out_min, price_impact_bps};

use crate::MevError;
use crate::pool::PoolModel;
use crate::sandwich::{AttackOptimum, VictimSwap, attack_optimum};

/// The victim's trade at one slippage tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct ToleranceScenario {
    /// The tolerance, in basis points of the quote.
    pub slippage_bps: u32,
    /// The unattacked output (the exact quote at this state).
    pub quoted_out: U256,
    /// `⌊quoted_out × (10000 − slippage_bps) / 10000⌋`.
    pub amount_out_min: U256,
    /// `quoted_out − amount_out_min`: the most any front-run can take from the victim.
    pub max_loss: U256,
    /// The bound and the attacker's optimum at this tolerance.
    pub attack: AttackOptimum,
    /// What the victim loses at the attacker's optimum (`quoted_out − victim_out`).
    pub loss_at_optimum: U256,
}

/// The victim's trade (`amount_in`, direction) at one tolerance.
pub fn tolerance_scenario(
    pool: &PoolModel,
    amount_in: U256,
    zero_for_one: bool,
    slippage_bps: u32,
) -> Result<ToleranceScenario, MevError> {
    if amount_in.is_zero() {
        return Err(MevError::ZeroVictimAmount);
    }
    let quoted_out = pool.amount_out(amount_in, zero_for_one)?;
    let min = amount_out_min(quoted_out, slippage_bps)?;
    let attack = attack_optimum(
        pool,
        &VictimSwap {
            amount_in,
            zero_for_one,
            amount_out_min: min,
        },
    )?;
    let loss_at_optimum = quoted_out.saturating_sub(attack.optimum.victim_out);
    Ok(ToleranceScenario {
        slippage_bps,
        quoted_out,
        amount_out_min: min,
        max_loss: quoted_out - min,
        attack,
        loss_at_optimum,
    })
}

/// [`tolerance_scenario`] for each tolerance, in the order given (e.g. `&[10, 25]`).
pub fn tolerance_scenarios(
    pool: &PoolModel,
    amount_in: U256,
    zero_for_one: bool,
    slippages_bps: &[u32],
) -> Result<Vec<ToleranceScenario>, MevError> {
    slippages_bps
        .iter()
        .map(|&bps| tolerance_scenario(pool, amount_in, zero_for_one, bps))
        .collect()
}

/// The order in `parts` pieces, each traded on the same pool state (the assumption: the
/// pieces go in separate blocks and arbitrage restores the price between them), each with
/// the same tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitScenario {
    /// Number of pieces.
    pub parts: u32,
    /// Size of each piece: `⌊amount/parts⌋`, the last one taking the remainder.
    pub part_amounts: Vec<U256>,
    /// Output of the whole order in one swap.
    pub whole_out: U256,
    /// Sum of the pieces' outputs.
    pub parts_out: U256,
    /// `parts_out − whole_out` (positive: splitting gains this much output).
    pub output_gained: I256,
    /// Price impact of the whole order against the mid price, fee included, in bps.
    pub whole_impact_bps: f64,
    /// Price impact of the largest piece, in bps.
    pub part_impact_bps: f64,
    /// `whole_impact_bps − part_impact_bps`.
    pub impact_saved_bps: f64,
    /// The attacker's optimum against the largest piece.
    pub largest_part_attack: AttackOptimum,
    /// The attacker's gross profit summed over every piece, each at its own optimum (zero
    /// for pieces not worth attacking).
    pub attack_profit_all_parts: I256,
}

/// The order split into `parts` equal pieces at `slippage_bps` each (e.g. 2 and 4).
pub fn split_scenario(
    pool: &PoolModel,
    amount_in: U256,
    zero_for_one: bool,
    slippage_bps: u32,
    parts: u32,
) -> Result<SplitScenario, MevError> {
    if parts == 0 || amount_in < U256::from(parts) {
        return Err(MevError::InvalidSplit {
            amount: amount_in,
            parts,
        });
    }
    let part = amount_in / U256::from(parts);
    let last = amount_in - part * U256::from(parts - 1);
    let part_amounts: Vec<U256> = (0..parts)
        .map(|i| if i + 1 == parts { last } else { part })
        .collect();

    let whole = tolerance_scenario(pool, amount_in, zero_for_one, slippage_bps)?;
    // At most two distinct sizes: the common piece and the last one.
    let common = tolerance_scenario(pool, part, zero_for_one, slippage_bps)?;
    let largest = if last == part {
        common.clone()
    } else {
        tolerance_scenario(pool, last, zero_for_one, slippage_bps)?
    };
    let n_common = U256::from(parts - 1);
    let parts_out = common
        .quoted_out
        .checked_mul(n_common)
        .and_then(|s| s.checked_add(largest.quoted_out))
        .ok_or(MathError::Overflow)?;
    let profit_of = |s: &ToleranceScenario| s.attack.optimum.profit;
    let attack_profit_all_parts = profit_of(&common)
        .checked_mul(I256::try_from(parts - 1).map_err(|_| MathError::Overflow)?)
        .and_then(|p| p.checked_add(profit_of(&largest)))
        .ok_or(MathError::Overflow)?;

    let mid = pool.mid_price(zero_for_one)?;
    let whole_impact_bps = price_impact_bps(&mid, amount_in, whole.quoted_out)?;
    let part_impact_bps = price_impact_bps(&mid, last, largest.quoted_out)?;
    let signed = |x: U256| I256::try_from(x).map_err(|_| MathError::Overflow);
    Ok(SplitScenario {
        parts,
        part_amounts,
        whole_out: whole.quoted_out,
        parts_out,
        output_gained: signed(parts_out)?
            .checked_sub(signed(whole.quoted_out)?)
            .ok_or(MathError::Overflow)?,
        whole_impact_bps,
        part_impact_bps,
        impact_saved_bps: whole_impact_bps - part_impact_bps,
        largest_part_attack: largest.attack,
        attack_profit_all_parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::ConstantProductPool;

    fn pool() -> PoolModel {
        PoolModel::ConstantProduct(ConstantProductPool {
            reserve0: U256::from(1_000u128 * 10u128.pow(18)),
            reserve1: U256::from(3_000_000u128 * 10u128.pow(6)),
            fee_bps: 30,
        })
    }

    #[test]
    fn tighter_tolerances_cap_the_loss_and_the_bound() {
        let amount = U256::from(20u128 * 10u128.pow(18));
        let rows = tolerance_scenarios(&pool(), amount, true, &[10, 25, 100])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rows.len(), 3);
        for pair in rows.windows(2) {
            assert!(pair[0].max_loss < pair[1].max_loss);
            assert!(pair[0].attack.a_max < pair[1].attack.a_max);
        }
        for row in &rows {
            assert_eq!(row.max_loss, row.quoted_out - row.amount_out_min);
            assert!(row.loss_at_optimum <= row.max_loss);
        }
        // A 2 % victim moves the price far more than the attacker's two fees, so every
        // tolerance leaves a profit, smaller as the bound tightens.
        assert!(rows[0].attack.optimum.profit > I256::ZERO);
        for pair in rows.windows(2) {
            assert!(pair[0].attack.optimum.profit < pair[1].attack.optimum.profit);
        }
        // A victim of 0.01 % of the pool at 10 bps: the attacker's fees exceed the gain.
        let small = tolerance_scenario(&pool(), U256::from(10u128.pow(17)), true, 10)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            small.attack.location,
            crate::sandwich::OptimumLocation::NoProfit
        );
        assert_eq!(small.loss_at_optimum, U256::ZERO);
    }

    #[test]
    fn splitting_lowers_impact_and_the_attack() {
        let amount = U256::from(20u128 * 10u128.pow(18)) + U256::from(3u8);
        let whole =
            tolerance_scenario(&pool(), amount, true, 100).unwrap_or_else(|e| panic!("{e}"));
        let two = split_scenario(&pool(), amount, true, 100, 2).unwrap_or_else(|e| panic!("{e}"));
        let four = split_scenario(&pool(), amount, true, 100, 4).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            two.part_amounts.iter().fold(U256::ZERO, |a, b| a + b),
            amount
        );
        assert_eq!(four.part_amounts[3], four.part_amounts[0] + U256::from(3u8));
        assert!(two.impact_saved_bps > 0.0 && four.impact_saved_bps > two.impact_saved_bps);
        assert!(two.output_gained > I256::ZERO && four.output_gained > two.output_gained);
        assert!(two.largest_part_attack.optimum.profit < whole.attack.optimum.profit);
        assert!(four.largest_part_attack.optimum.profit < two.largest_part_attack.optimum.profit);
        assert_eq!(
            split_scenario(&pool(), U256::from(3u8), true, 100, 4),
            Err(MevError::InvalidSplit {
                amount: U256::from(3u8),
                parts: 4
            })
        );
    }
}
