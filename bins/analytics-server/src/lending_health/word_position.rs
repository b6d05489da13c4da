//! A health report in the answer's words: each position, its liquidation price, the
//! scenarios and the assumptions.

use lending_v3::{LiquidationPrice, NoLiquidationPrice, Position, Scenario, WAD};

use super::answer::AssetInfo;
use super::position::{
    LendingPosition, LiquidationPriceField, LiquidationPriceValue, ReserveParameters,
    ScenarioResult,
};
use super::word::{Answer, health_factor, rate, regime, to_f64};
use crate::answer::{amount, show};

impl Answer<'_> {
    pub(super) fn position(&self, position: &Position) -> LendingPosition {
        let reserve = &position.reserve;
        let config = &reserve.config;
        let decimals = Some(config.decimals);
        let rules = &self.report.read.rules;
        let (oracle_price, oracle_price_null_reason) = match reserve.price {
            Some(price) => (Some(self.value(price)), None),
            None => (
                None,
                Some("not read: the wallet neither uses this reserve as collateral nor borrows it, so its price does not enter the health factor".to_owned()),
            ),
        };
        let (oracle_source, oracle_source_null_reason) = match &reserve.source {
            Some(Ok(source)) => (Some(show(*source)), None),
            Some(Err(failure)) => (None, Some(format!("getSourceOfAsset failed: {failure}"))),
            None => (
                None,
                Some(
                    "not read, as the price (the reserve does not enter the health factor)"
                        .to_owned(),
                ),
            ),
        };
        let counts_reason = match (reserve.user.a_token_balance.is_zero(), reserve.using_as_collateral, position.counts_as_collateral()) {
            (_, _, true) => None,
            (true, false, false) => None,
            (false, false, false) => Some("the wallet's collateral flag for this reserve is off: the supply does not back any debt".to_owned()),
            (_, true, false) => Some("the reserve's liquidation threshold is 0, so the protocol leaves it out of the health factor".to_owned()),
        };
        LendingPosition {
            asset: AssetInfo {
                address: show(reserve.asset),
                symbol: reserve.symbol.clone(),
                decimals: config.decimals,
            },
            reserve_id: reserve.index,
            supplied: amount(reserve.user.a_token_balance, decimals),
            used_as_collateral: reserve.using_as_collateral,
            counts_as_collateral: position.counts_as_collateral(),
            counts_as_collateral_reason: counts_reason,
            borrowed: reserve.borrowing,
            variable_debt: amount(reserve.user.variable_debt, decimals),
            stable_debt: amount(reserve.user.stable_debt, decimals),
            emode_applies: position.emode_applies,
            ltv_bps: position.ltv,
            liquidation_threshold_bps: position.liquidation_threshold,
            liquidation_bonus_bps: position.liquidation_bonus,
            reserve: ReserveParameters {
                ltv_bps: config.ltv,
                liquidation_threshold_bps: config.liquidation_threshold,
                liquidation_bonus_bps: config.liquidation_bonus,
                usage_as_collateral_enabled: config.liquidation_threshold != 0,
                borrowing_enabled: config.borrowing_enabled,
                stable_borrowing_enabled: config.stable_borrowing_enabled,
                active: config.active,
                frozen: config.frozen,
                paused: config.paused,
                debt_ceiling_usd: (rules.isolation_by_debt_ceiling
                    && !config.debt_ceiling.is_zero())
                .then(|| dex_math::format_units(config.debt_ceiling, 2)),
                emode_category: (rules.emode == lending_v3::rules::EModeModel::ReserveCategory)
                    .then_some(config.emode_category),
            },
            variable_borrow_rate: rate(reserve.rates.variable_borrow),
            stable_borrow_rate: rate(reserve.rates.stable_borrow),
            user_stable_borrow_rate: rate(reserve.user.stable_borrow_rate),
            supply_rate: rate(reserve.rates.liquidity),
            oracle_price,
            oracle_price_null_reason,
            oracle_source,
            oracle_source_null_reason,
            priced_by_emode_source: position.priced_by_emode_source.map(show),
            collateral_value: position.collateral_value.map(|v| self.value(v)),
            debt_value: position.debt_value.map(|v| self.value(v)),
            liquidation_price: self.liquidation_price(position),
        }
    }

    pub(super) fn liquidation_price(&self, position: &Position) -> LiquidationPriceField {
        let symbol = position.reserve.label();
        let reason = match position.liquidation {
            LiquidationPrice::At {
                price,
                health_factor,
            } => {
                let change = position.price_used.and_then(|current| {
                    let (now, then) = (to_f64(current)?, to_f64(price)?);
                    (now > 0.0).then(|| ((then / now - 1.0) * 100.0 * 1e4).round() / 1e4)
                });
                return LiquidationPriceField::Price(LiquidationPriceValue {
                    oracle_units: price.to_string(),
                    usd: self.value(price).usd,
                    change_from_current_pct: change,
                    health_factor_at_price: dex_math::format_units(health_factor, 18),
                });
            }
            LiquidationPrice::None(reason) => reason,
        };
        let threshold_pct = f64::from(position.liquidation_threshold) / 100.0;
        let decimals = position.reserve.config.decimals;
        LiquidationPriceField::Words(match reason {
            NoLiquidationPrice::NotCollateral
                if position.reserve.borrowing && !position.reserve.using_as_collateral =>
            {
                format!(
                    "not applicable: the wallet borrows {symbol} but does not use it as collateral; a rise in its price, not a fall, lowers the health factor"
                )
            }
            NoLiquidationPrice::NotCollateral if !position.reserve.using_as_collateral => format!(
                "none: {symbol} is supplied but not used as collateral, so its price does not enter the health factor"
            ),
            NoLiquidationPrice::NotCollateral => format!(
                "none: {symbol} has a liquidation threshold of 0, so the protocol does not count it as collateral"
            ),
            NoLiquidationPrice::ZeroThreshold => format!(
                "none: {symbol} counts as collateral with a liquidation threshold of 0, so its price does not enter the health factor"
            ),
            NoLiquidationPrice::NoDebt => {
                "none: the wallet has no debt, so no price can liquidate it".to_owned()
            }
            NoLiquidationPrice::FallDoesNotLowerHealth => format!(
                "none: the wallet also borrows {symbol} ({} against {} supplied at a {threshold_pct} % threshold), so a fall in its price lowers the debt at least as much as the collateral's liquidation value; a fall does not bring the health factor down",
                dex_math::format_units(position.counted_debt, decimals),
                dex_math::format_units(position.reserve.user.a_token_balance, decimals),
            ),
            NoLiquidationPrice::CoveredAtZero {
                health_factor_at_zero,
            } => format!(
                "none: even at a {symbol} price of zero the rest of the position keeps the health factor above 1 (it would be {})",
                dex_math::format_units(health_factor_at_zero, 18)
            ),
            NoLiquidationPrice::NearlyOffset => format!(
                "none stated: the wallet's {symbol} collateral at its threshold and its {symbol} debt nearly offset, so the health factor barely depends on the {symbol} price"
            ),
            NoLiquidationPrice::SearchLimit => format!(
                "none stated: the search for the {symbol} price did not settle within its step budget"
            ),
            NoLiquidationPrice::PricedByEModeSource => format!(
                "none: {symbol} is priced by its eMode category's price source, which moves every asset of the category at once; its own oracle price does not enter the health factor"
            ),
        })
    }

    pub(super) fn scenario(&self, scenario: &Scenario) -> ScenarioResult {
        ScenarioResult {
            collateral_price_change_pct: scenario.change_pct,
            health_factor: health_factor(scenario.health_factor),
            total_collateral: self.value(scenario.totals.collateral),
            total_debt: self.value(scenario.totals.debt),
            liquidatable: scenario.health_factor < WAD,
            close_factor: regime(&scenario.close_factor),
        }
    }

    pub(super) fn assumptions(&self) -> Vec<String> {
        let read = &self.report.read;
        let mut list = vec![
            format!(
                "Every read is made at block {} (Multicall3 aggregate3). The Pool, AaveOracle and data provider were resolved from the PoolAddressesProvider {} at that block; only the provider is configured.",
                read.block.number,
                show(read.contracts.pool_addresses_provider)
            ),
            read.rules.describe(),
            "Prices are AaveOracle getAssetPrice answers (the protocol's own oracle, never an exchange price) in the oracle's base currency.".to_owned(),
        ];
        list.push(if self.report.matches_protocol() {
            "The computed collateral, debt, average liquidation threshold and health factor equal Pool.getUserAccountData of the same block to the last unit.".to_owned()
        } else {
            "The computed figures differ from Pool.getUserAccountData of the same block (see protocol_account_data): this Pool does not compute as its revision's rules say; liquidation prices and scenarios rest on the computed figures.".to_owned()
        });
        list.push(lending_v3::LIQUIDATION_PRICE_DEFINITION.to_owned());
        list.push(lending_v3::SCENARIO_ASSUMPTION.to_owned());
        list.push(match read.rules.close_factor_min_base {
            None => "Close factor (LiquidationLogic): 50 % of the debt while 0.95 < HF < 1, 100 % at or below 0.95.".to_owned(),
            Some(_) => "Close factor (LiquidationLogic): 50 % of the debt while 0.95 < HF < 1, 100 % at or below 0.95, and 100 % for a liquidated collateral or debt reserve worth less than $2,000.".to_owned(),
        });
        list.push("Interest accrues every second: balances, values and the health factor are those of the block, and the next block differs slightly.".to_owned());
        list.push(
            "Reads only: nothing is signed or sent, and nothing here is a recommendation."
                .to_owned(),
        );
        list
    }
}
