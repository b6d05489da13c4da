//! A read position turned into the answer's figures: each reserve's part in the account, the
//! health factor (checked against `getUserAccountData`), a liquidation price per collateral,
//! isolation mode, and the health factor under uniform collateral price moves.

use alloy::primitives::{Address, U256};
use chain_read::PinnedReader;

use crate::error::LendingError;
use crate::liquidation::{self, LiquidationPrice, NoLiquidationPrice};
use crate::math::{self, CollateralTerm, DebtTerm, ReserveTerms, Totals, WAD};
use crate::read::{self, PositionRead, ReserveRead};
use crate::rules::{CLOSE_FACTOR_HF_THRESHOLD, EModeModel, Rules};

/// The scenarios' premise, printed with them.
pub const SCENARIO_ASSUMPTION: &str = "Scenarios move the oracle price of every collateral asset by the same percentage at once (rounded down to the oracle's unit) while every debt stays at its nominal value, including the debt side of an asset that is also collateral; balances, thresholds and every other price are those of the block.";

/// What a liquidation price is, printed with the positions.
pub const LIQUIDATION_PRICE_DEFINITION: &str = "liquidation_price is the highest oracle price of that asset, in the oracle's base-currency unit, at which the health factor computed with the protocol's own roundings is at or below 1 while every other price holds; one unit above it the health factor is above 1. The protocol liquidates when the health factor is strictly below 1.";

/// One reserve the wallet has something in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The reserve and the wallet's balances.
    pub reserve: ReserveRead,
    /// Whether the wallet's eMode category sets this reserve's parameters.
    pub emode_applies: bool,
    /// LTV that applies (eMode or the reserve's), basis points.
    pub ltv: u16,
    /// Liquidation threshold that applies, basis points.
    pub liquidation_threshold: u16,
    /// Liquidation bonus that applies, basis points (10⁴ included).
    pub liquidation_bonus: u16,
    /// The price the health factor uses for it (`None` when the reserve does not enter it).
    pub price_used: Option<U256>,
    /// 3.0–3.1: the eMode category's price source that prices it instead of its own oracle.
    pub priced_by_emode_source: Option<Address>,
    /// Its collateral in base currency, when it counts as collateral.
    pub collateral_value: Option<U256>,
    /// The debt that counts (variable, plus stable where the rules count it).
    pub counted_debt: U256,
    /// Its debt in base currency, when borrowed.
    pub debt_value: Option<U256>,
    /// The liquidation price, or why there is none.
    pub liquidation: LiquidationPrice,
}

impl Position {
    /// Whether it is collateral in the health factor.
    pub fn counts_as_collateral(&self) -> bool {
        self.collateral_value.is_some()
    }
}

/// Isolation mode (one collateral with a debt ceiling; removed in 3.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// The revision has no isolation mode by debt ceiling.
    Removed,
    /// Not in isolation mode.
    Inactive,
    /// In isolation mode.
    Active {
        /// The isolated collateral.
        asset: Address,
        /// Its symbol.
        symbol: Option<String>,
        /// Its debt ceiling, 2 decimals of the base currency.
        debt_ceiling: U256,
        /// Debt borrowed against it by everyone in isolation, 2 decimals.
        total_debt: U256,
    },
}

/// The close factor the protocol would apply at a health factor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseFactor {
    /// HF ≥ 1: no liquidation.
    NotLiquidatable,
    /// HF ≤ 0.95: a liquidator may repay the whole debt of a reserve.
    FullBelowThreshold,
    /// 0.95 < HF < 1: up to half of the debt.
    Half,
    /// 3.3+, 0.95 < HF < 1, and every collateral or every debt reserve is below $2,000: 100 %.
    FullSmallPosition,
    /// 3.3+, 0.95 < HF < 1: 50 % for a collateral and a debt reserve both worth $2,000 or more,
    /// 100 % for a pair with one of these below it.
    ByPair {
        /// Collateral reserves below $2,000.
        small_collateral: Vec<String>,
        /// Debt reserves below $2,000.
        small_debt: Vec<String>,
    },
}

impl CloseFactor {
    /// 50 or 100 when one figure holds for every pair.
    pub fn percent(&self) -> Option<u8> {
        match self {
            Self::NotLiquidatable | Self::ByPair { .. } => None,
            Self::FullBelowThreshold | Self::FullSmallPosition => Some(100),
            Self::Half => Some(50),
        }
    }

    /// In words.
    pub fn describe(&self) -> String {
        match self {
            Self::NotLiquidatable => "not liquidatable: the health factor is at or above 1".to_owned(),
            Self::FullBelowThreshold => "100 %: the health factor is at or below 0.95 (CLOSE_FACTOR_HF_THRESHOLD), so a liquidator may repay the whole debt of a reserve".to_owned(),
            Self::Half => "50 %: the health factor is between 0.95 and 1, so a liquidator may repay up to half of the debt".to_owned(),
            Self::FullSmallPosition => "100 %: the health factor is between 0.95 and 1, but every collateral or every debt reserve is worth less than $2,000 (MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD), which lifts the close factor to 100 %".to_owned(),
            Self::ByPair { small_collateral, small_debt } => {
                let mut small: Vec<String> = small_collateral.iter().map(|s| format!("collateral {s}")).collect();
                small.extend(small_debt.iter().map(|s| format!("debt {s}")));
                format!("50 % or 100 % depending on the pair liquidated: 50 % for a collateral and a debt reserve both worth at least $2,000, 100 % for a pair with one below it ({})", small.join(", "))
            }
        }
    }
}

/// One price scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The move of every collateral price, percent.
    pub change_pct: f64,
    /// The sums at the moved prices.
    pub totals: Totals,
    /// The health factor there.
    pub health_factor: U256,
    /// The close factor there.
    pub close_factor: CloseFactor,
}

/// Everything the answer states about one wallet.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthReport {
    /// The reads.
    pub read: PositionRead,
    /// Every reserve the wallet has something in, in id order.
    pub positions: Vec<Position>,
    /// The sums, computed from the reads.
    pub totals: Totals,
    /// The health factor, computed from the reads.
    pub health_factor: U256,
    /// Isolation mode.
    pub isolation: Isolation,
    /// One per requested scenario, in order.
    pub scenarios: Vec<Scenario>,
}

impl HealthReport {
    /// Whether the computed collateral, debt, average threshold and health factor all equal
    /// `getUserAccountData` of the same block.
    pub fn matches_protocol(&self) -> bool {
        let protocol = &self.read.account_data;
        self.totals.collateral == protocol.total_collateral_base
            && self.totals.debt == protocol.total_debt_base
            && self.totals.average_threshold() == protocol.current_liquidation_threshold
            && self.health_factor == protocol.health_factor
    }

    /// The close factor at the current prices.
    pub fn close_factor(&self) -> CloseFactor {
        close_factor(
            self.health_factor,
            &self.read.rules,
            &self.positions,
            &self.values(),
        )
    }

    fn values(&self) -> Vec<(Option<U256>, Option<U256>)> {
        self.positions
            .iter()
            .map(|p| (p.collateral_value, p.debt_value))
            .collect()
    }
}

/// Reads `wallet`'s position in the market of `provider` and computes the report.
pub async fn health(
    reader: &PinnedReader,
    provider: Address,
    wallet: Address,
    scenarios_pct: &[f64],
) -> Result<HealthReport, LendingError> {
    let read = read::read_position(reader, provider, wallet).await?;
    analyse(read, scenarios_pct)
}

/// The report of a read position.
pub fn analyse(read: PositionRead, scenarios_pct: &[f64]) -> Result<HealthReport, LendingError> {
    let rules = read.rules.clone();
    let mut positions = Vec::new();
    let mut terms = Vec::new();
    for reserve in read.reserves.iter().filter(|r| r.is_position()) {
        let (position, term) = position(reserve, &read, &rules)?;
        positions.push(position);
        terms.push(term);
    }
    let totals = math::totals(&terms, &rules)?;
    let health_factor = totals.health_factor(&rules)?;
    for (index, position) in positions.iter_mut().enumerate() {
        position.liquidation = if position.priced_by_emode_source.is_some() {
            LiquidationPrice::None(NoLiquidationPrice::PricedByEModeSource)
        } else {
            liquidation::liquidation_price(&terms, index, &rules)?
        };
    }
    let scenarios = scenarios_pct
        .iter()
        .map(|pct| scenario(*pct, &terms, &positions, &rules))
        .collect::<Result<Vec<_>, _>>()?;
    let isolation = isolation(&read);
    Ok(HealthReport {
        read,
        positions,
        totals,
        health_factor,
        isolation,
        scenarios,
    })
}

/// One reserve's position and what it adds to the account.
fn position(
    reserve: &ReserveRead,
    read: &PositionRead,
    rules: &Rules,
) -> Result<(Position, ReserveTerms), LendingError> {
    let config = &reserve.config;
    let category = read
        .emode
        .as_ref()
        .filter(|c| c.applies_to(rules, reserve.index, config));
    let (ltv, liquidation_threshold, liquidation_bonus) = match category {
        Some(c) => (c.ltv, c.liquidation_threshold, c.liquidation_bonus),
        None => (
            config.ltv,
            config.liquidation_threshold,
            config.liquidation_bonus,
        ),
    };
    let emode_source = category
        .filter(|_| rules.emode == EModeModel::ReserveCategory)
        .and_then(|c| c.price_source.zip(c.price_source_price));
    let touched = reserve.using_as_collateral || reserve.borrowing;
    let price_used = match (emode_source, reserve.price) {
        (Some((_, price)), _) => Some(price),
        (None, Some(price)) => Some(price),
        (None, None) if touched => {
            return Err(LendingError::Unexpected(format!(
                "no oracle price was read for {}",
                reserve.label()
            )));
        }
        (None, None) => None,
    };
    let unit = config.unit();
    let counts = reserve.using_as_collateral
        && (rules.zero_threshold_collateral_counts || config.liquidation_threshold != 0);
    let collateral = match (counts, price_used) {
        (true, Some(price)) => Some(CollateralTerm {
            balance: reserve.user.a_token_balance,
            price,
            liquidation_threshold,
        }),
        _ => None,
    };
    let counted_debt = if rules.stable_debt_counts {
        math::add(reserve.user.variable_debt, reserve.user.stable_debt)?
    } else {
        reserve.user.variable_debt
    };
    let debt = match (reserve.borrowing, price_used) {
        (true, Some(price)) => Some(DebtTerm {
            balance: counted_debt,
            price,
        }),
        _ => None,
    };
    let collateral_value = collateral
        .map(|c| math::collateral_value(c.balance, c.price, unit))
        .transpose()?;
    let debt_value = debt
        .map(|d| math::debt_value(d.balance, d.price, unit, rules))
        .transpose()?;
    Ok((
        Position {
            reserve: reserve.clone(),
            emode_applies: category.is_some(),
            ltv,
            liquidation_threshold,
            liquidation_bonus,
            price_used,
            priced_by_emode_source: emode_source.map(|(source, _)| source),
            collateral_value,
            counted_debt,
            debt_value,
            liquidation: LiquidationPrice::None(NoLiquidationPrice::NotCollateral),
        },
        ReserveTerms {
            unit,
            collateral,
            debt,
        },
    ))
}

/// `(1 + pct/100)` as a fraction over 10⁸ (to a millionth of a percent).
fn scenario_factor(pct: f64) -> Result<(U256, U256), LendingError> {
    let scaled = (pct * 1e6).round();
    let numerator = 1e8 + scaled;
    if !numerator.is_finite() || !(0.0..=1e18).contains(&numerator) {
        return Err(LendingError::Unexpected(format!(
            "scenario {pct} % is out of range"
        )));
    }
    // Exact: a whole number below 2⁵³.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let numerator = numerator as u64;
    Ok((U256::from(numerator), U256::from(100_000_000u64)))
}

fn scenario(
    pct: f64,
    terms: &[ReserveTerms],
    positions: &[Position],
    rules: &Rules,
) -> Result<Scenario, LendingError> {
    let (num, den) = scenario_factor(pct)?;
    let moved: Vec<ReserveTerms> = terms
        .iter()
        .map(|t| {
            let collateral = t
                .collateral
                .map(|c| {
                    math::mul_div_down(c.price, num, den).map(|price| CollateralTerm { price, ..c })
                })
                .transpose()?;
            Ok(ReserveTerms { collateral, ..*t })
        })
        .collect::<Result<_, math::MathError>>()?;
    let totals = math::totals(&moved, rules)?;
    let health_factor = totals.health_factor(rules)?;
    let values: Vec<(Option<U256>, Option<U256>)> = moved
        .iter()
        .map(|t| {
            let collateral = t
                .collateral
                .map(|c| math::collateral_value(c.balance, c.price, t.unit))
                .transpose()?;
            let debt = t
                .debt
                .map(|d| math::debt_value(d.balance, d.price, t.unit, rules))
                .transpose()?;
            Ok((collateral, debt))
        })
        .collect::<Result<_, math::MathError>>()?;
    Ok(Scenario {
        change_pct: pct,
        totals,
        health_factor,
        close_factor: close_factor(health_factor, rules, positions, &values),
    })
}

/// The close factor at `health_factor`, with each position's collateral and debt values.
fn close_factor(
    health_factor: U256,
    rules: &Rules,
    positions: &[Position],
    values: &[(Option<U256>, Option<U256>)],
) -> CloseFactor {
    if health_factor >= WAD {
        return CloseFactor::NotLiquidatable;
    }
    if health_factor <= CLOSE_FACTOR_HF_THRESHOLD {
        return CloseFactor::FullBelowThreshold;
    }
    let Some(minimum) = rules.close_factor_min_base else {
        return CloseFactor::Half;
    };
    let mut collateral = (0usize, Vec::new());
    let mut debt = (0usize, Vec::new());
    for (position, (c, d)) in positions.iter().zip(values) {
        for (value, side) in [(c, &mut collateral), (d, &mut debt)] {
            if let Some(value) = value {
                side.0 += 1;
                if *value < minimum {
                    side.1.push(position.reserve.label());
                }
            }
        }
    }
    if collateral.1.is_empty() && debt.1.is_empty() {
        CloseFactor::Half
    } else if collateral.1.len() == collateral.0 || debt.1.len() == debt.0 {
        CloseFactor::FullSmallPosition
    } else {
        CloseFactor::ByPair {
            small_collateral: collateral.1,
            small_debt: debt.1,
        }
    }
}

fn isolation(read: &PositionRead) -> Isolation {
    if !read.rules.isolation_by_debt_ceiling {
        return Isolation::Removed;
    }
    match read.user_config.collateral_indices().as_slice() {
        [only] => match read.reserves.get(*only) {
            Some(reserve) if !reserve.config.debt_ceiling.is_zero() => Isolation::Active {
                asset: reserve.asset,
                symbol: reserve.symbol.clone(),
                debt_ceiling: reserve.config.debt_ceiling,
                total_debt: reserve.isolation_mode_total_debt,
            },
            _ => Isolation::Inactive,
        },
        _ => Isolation::Inactive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_factors_are_exact_to_a_millionth_of_a_percent() {
        let (num, den) = scenario_factor(-10.0).expect("factor");
        assert_eq!(
            (num, den),
            (U256::from(90_000_000u64), U256::from(100_000_000u64))
        );
        let (num, _) = scenario_factor(-99.0).expect("factor");
        assert_eq!(num, U256::from(1_000_000u64));
        let (num, _) = scenario_factor(12.3456789).expect("factor");
        assert_eq!(num, U256::from(112_345_679u64));
        assert!(scenario_factor(-101.0).is_err());
        assert!(scenario_factor(f64::NAN).is_err());
    }
}
