//! The account maths of `GenericLogic.calculateUserAccountData`, integer for integer: the same
//! roundings in the same order, so a computed health factor equals `getUserAccountData`'s to
//! the wei (see [`crate::rules`] for what differs between revisions).

use alloy::primitives::U256;

use crate::rules::{HealthFormula, Rounding, Rules};

/// 10¹⁸: a health factor of one.
pub const WAD: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);
/// 10⁴: 100 % in basis points.
pub const PERCENTAGE_FACTOR: U256 = U256::from_limbs([10_000, 0, 0, 0]);
const HALF_PERCENTAGE_FACTOR: U256 = U256::from_limbs([5_000, 0, 0, 0]);

/// Arithmetic that would overflow 256 bits (the protocol reverts there too) or divide by zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MathError {
    /// Out of the 256-bit range.
    #[error("arithmetic overflow")]
    Overflow,
    /// A zero divisor.
    #[error("division by zero")]
    DivisionByZero,
}

pub(crate) fn mul(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

pub(crate) fn add(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_add(b).ok_or(MathError::Overflow)
}

pub(crate) fn div(a: U256, b: U256) -> Result<U256, MathError> {
    a.checked_div(b).ok_or(MathError::DivisionByZero)
}

/// `⌊a · b / c⌋`, failing where the product overflows (as Solidity's checked `*` does).
pub fn mul_div_down(a: U256, b: U256, c: U256) -> Result<U256, MathError> {
    div(mul(a, b)?, c)
}

/// `⌈a · b / c⌉` (`MathUtils.mulDivCeil`).
pub fn mul_div_up(a: U256, b: U256, c: U256) -> Result<U256, MathError> {
    let product = mul(a, b)?;
    let quotient = div(product, c)?;
    Ok(if product % c == U256::ZERO {
        quotient
    } else {
        quotient + U256::from(1u8)
    })
}

/// `PercentageMath.percentMul`: `⌊(value · percentage + 5000) / 10⁴⌋`.
pub fn percent_mul(value: U256, percentage: U256) -> Result<U256, MathError> {
    Ok(add(mul(value, percentage)?, HALF_PERCENTAGE_FACTOR)? / PERCENTAGE_FACTOR)
}

/// `WadRayMath.wadDiv`: `⌊(a · 10¹⁸ + ⌊b / 2⌋) / b⌋`.
pub fn wad_div(a: U256, b: U256) -> Result<U256, MathError> {
    if b.is_zero() {
        return Err(MathError::DivisionByZero);
    }
    Ok(add(mul(a, WAD)?, b / U256::from(2u8))? / b)
}

/// One reserve's collateral as the health factor counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollateralTerm {
    /// aToken balance, in the asset's smallest unit.
    pub balance: U256,
    /// The price it is valued at, in base currency units.
    pub price: U256,
    /// The liquidation threshold that applies (eMode or the reserve's), basis points.
    pub liquidation_threshold: u16,
}

/// One reserve's debt as the health factor counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebtTerm {
    /// The debt that counts (variable, plus stable where the rules count it).
    pub balance: U256,
    /// The price it is valued at.
    pub price: U256,
}

/// What one reserve adds to the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReserveTerms {
    /// `10^decimals`.
    pub unit: U256,
    /// Present when the reserve counts as collateral.
    pub collateral: Option<CollateralTerm>,
    /// Present when the wallet borrows the reserve.
    pub debt: Option<DebtTerm>,
}

/// One collateral in base currency, rounded down as `_getUserBalanceInBaseCurrency` does.
pub fn collateral_value(balance: U256, price: U256, unit: U256) -> Result<U256, MathError> {
    mul_div_down(balance, price, unit)
}

/// One debt in base currency, rounded as the rules say (`_getUserDebtInBaseCurrency`).
pub fn debt_value(
    balance: U256,
    price: U256,
    unit: U256,
    rules: &Rules,
) -> Result<U256, MathError> {
    match rules.debt_rounding {
        Rounding::Down => mul_div_down(balance, price, unit),
        Rounding::Up => mul_div_up(balance, price, unit),
    }
}

/// The sums the health factor is made of, in base currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Σ cᵢ.
    pub collateral: U256,
    /// Σ cᵢ · LTᵢ (base currency × basis points).
    pub weighted_threshold: U256,
    /// Σ dⱼ.
    pub debt: U256,
}

impl Totals {
    /// `⌊Σ cᵢ·LTᵢ / Σ cᵢ⌋`, the `currentLiquidationThreshold` of `getUserAccountData`.
    pub fn average_threshold(&self) -> U256 {
        if self.collateral.is_zero() {
            U256::ZERO
        } else {
            self.weighted_threshold / self.collateral
        }
    }

    /// The health factor (18 decimals); `U256::MAX` without debt, as the protocol answers.
    pub fn health_factor(&self, rules: &Rules) -> Result<U256, MathError> {
        if self.debt.is_zero() {
            return Ok(U256::MAX);
        }
        match rules.formula {
            HealthFormula::AverageThreshold => wad_div(
                percent_mul(self.collateral, self.average_threshold())?,
                self.debt,
            ),
            HealthFormula::WeightedSum => {
                Ok(wad_div(self.weighted_threshold, self.debt)? / PERCENTAGE_FACTOR)
            }
        }
    }
}

/// Adds up every reserve's collateral and debt.
pub fn totals(reserves: &[ReserveTerms], rules: &Rules) -> Result<Totals, MathError> {
    let mut totals = Totals::default();
    for reserve in reserves {
        if let Some(collateral) = reserve.collateral {
            let value = collateral_value(collateral.balance, collateral.price, reserve.unit)?;
            totals.collateral = add(totals.collateral, value)?;
            totals.weighted_threshold = add(
                totals.weighted_threshold,
                mul(value, U256::from(collateral.liquidation_threshold))?,
            )?;
        }
        if let Some(debt) = reserve.debt {
            let value = debt_value(debt.balance, debt.price, reserve.unit, rules)?;
            totals.debt = add(totals.debt, value)?;
        }
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(value: u128) -> U256 {
        U256::from(value)
    }

    #[test]
    fn roundings_are_the_protocols() {
        assert_eq!(percent_mul(u(3), u(5_000)), Ok(u(2)), "1.5 rounds half up");
        assert_eq!(percent_mul(u(1), u(4_999)), Ok(u(0)));
        assert_eq!(wad_div(u(1), u(3)), Ok(u(333_333_333_333_333_333)));
        assert_eq!(
            wad_div(u(2), u(3)),
            Ok(u(666_666_666_666_666_667)),
            "half up"
        );
        assert_eq!(mul_div_up(u(7), u(3), u(2)), Ok(u(11)));
        assert_eq!(mul_div_down(u(7), u(3), u(2)), Ok(u(10)));
        assert_eq!(wad_div(u(1), U256::ZERO), Err(MathError::DivisionByZero));
        assert_eq!(mul(U256::MAX, u(2)), Err(MathError::Overflow));
    }

    /// 2 WETH at $3,000 (LT 82.5 %) against 1,000 USDC at $1: HF 4.95 exactly.
    #[test]
    fn a_single_collateral_account() {
        let rules = Rules::for_revision(1).expect("3.0");
        let weth = ReserveTerms {
            unit: u(10u128.pow(18)),
            collateral: Some(CollateralTerm {
                balance: u(2 * 10u128.pow(18)),
                price: u(300_000_000_000),
                liquidation_threshold: 8_250,
            }),
            debt: None,
        };
        let usdc = ReserveTerms {
            unit: u(1_000_000),
            collateral: None,
            debt: Some(DebtTerm {
                balance: u(1_000_000_000),
                price: u(100_000_000),
            }),
        };
        let totals = totals(&[weth, usdc], &rules).expect("totals");
        assert_eq!(totals.collateral, u(600_000_000_000));
        assert_eq!(totals.debt, u(100_000_000_000));
        assert_eq!(totals.average_threshold(), u(8_250));
        assert_eq!(
            totals.health_factor(&rules),
            Ok(u(4_950_000_000_000_000_000))
        );
    }

    #[test]
    fn no_debt_is_the_maximum() {
        let rules = Rules::for_revision(9).expect("3.5");
        assert_eq!(Totals::default().health_factor(&rules), Ok(U256::MAX));
    }

    #[test]
    fn the_two_formulas_differ_only_by_the_floored_average() {
        let totals = Totals {
            collateral: u(3),
            weighted_threshold: u(3 * 8_000 + 2),
            debt: u(2),
        };
        let old = totals
            .health_factor(&Rules::for_revision(1).expect("3.0"))
            .expect("hf");
        let new = totals
            .health_factor(&Rules::for_revision(9).expect("3.5"))
            .expect("hf");
        // percentMul(3, 8000) = 2.4 → 2: HF 1; the weighted sum keeps 2.4002 / 2.
        assert_eq!(old, WAD);
        assert_eq!(new, u(1_200_100_000_000_000_000));
    }
}
