//! A health report in the answer's words and decimal figures: the account.

use alloy::primitives::U256;
use lending_v3::{BaseCurrency, CloseFactor, HealthReport, Isolation, WAD};

use super::answer::{
    AccountTotals, BaseCurrencyInfo, BaseValue, CloseFactorRegime, EModeInfo, HealthFactor,
    IsolationMode, LendingHealthAnswer, MarketContracts, ProtocolAccountData, ProtocolVersion,
    Rate,
};
use crate::answer::show;
use crate::requests::LendingHealthRequest;

/// Formatting with the market's base currency.
pub(super) struct Answer<'a> {
    pub(super) report: &'a HealthReport,
    pub(super) base: BaseCurrency,
    pub(super) usd_decimals: Option<u8>,
}

impl<'a> Answer<'a> {
    pub(super) fn new(report: &'a HealthReport) -> Self {
        let base = report.read.base_currency;
        Self {
            report,
            base,
            usd_decimals: if base.is_usd() { base.decimals() } else { None },
        }
    }

    pub(super) fn value(&self, units: U256) -> BaseValue {
        BaseValue {
            base_units: units.to_string(),
            usd: self
                .usd_decimals
                .map(|decimals| dex_math::format_units(units, decimals)),
        }
    }

    pub(super) fn build(&self, request: &LendingHealthRequest) -> LendingHealthAnswer {
        let report = self.report;
        let read = &report.read;
        let has_position = !report.positions.is_empty();
        let assumptions = self.assumptions();
        LendingHealthAnswer {
            chain: request.chain,
            protocol: request.protocol,
            wallet: show(read.wallet),
            block_number: read.block.number,
            block_timestamp: read.block.timestamp,
            contracts: MarketContracts {
                pool_addresses_provider: show(read.contracts.pool_addresses_provider),
                pool: show(read.contracts.pool),
                price_oracle: show(read.contracts.price_oracle),
                pool_data_provider: show(read.contracts.pool_data_provider),
                market_id: read.contracts.market_id.clone(),
            },
            protocol_version: ProtocolVersion {
                pool_revision: read.rules.pool_revision,
                version: read.rules.version.to_owned(),
                rules: read.rules.describe(),
                rules_assumed: read.rules.assumed,
            },
            base_currency: BaseCurrencyInfo {
                address: show(self.base.address),
                unit: self.base.unit.to_string(),
                decimals: self.base.decimals(),
                currency: self.base.is_usd().then(|| "USD".to_owned()),
                usd_null_reason: self.usd_decimals.is_none().then(|| {
                    "the oracle's base currency is not USD (or its unit is not a power of ten): values are given in base units only".to_owned()
                }),
            },
            has_position,
            no_position: (!has_position).then(|| {
                format!(
                    "{} has no supply and no borrow in this market at block {}: there is nothing to liquidate, and the health factor is the protocol's maximum.",
                    show(read.wallet),
                    read.block.number
                )
            }),
            health_factor: health_factor(report.health_factor),
            liquidatable: report.health_factor < WAD,
            close_factor: regime(&report.close_factor()),
            totals: AccountTotals {
                total_collateral: self.value(report.totals.collateral),
                total_debt: self.value(report.totals.debt),
                average_liquidation_threshold_bps: report
                    .totals
                    .average_threshold()
                    .to_string(),
            },
            protocol_account_data: ProtocolAccountData {
                total_collateral_base: self.value(read.account_data.total_collateral_base),
                total_debt_base: self.value(read.account_data.total_debt_base),
                available_borrows_base: self.value(read.account_data.available_borrows_base),
                current_liquidation_threshold_bps: read
                    .account_data
                    .current_liquidation_threshold
                    .to_string(),
                ltv_bps: read.account_data.ltv.to_string(),
                health_factor: health_factor(read.account_data.health_factor),
                computed_values_match: report.matches_protocol(),
            },
            emode: self.emode(),
            isolation_mode: self.isolation(),
            positions: report
                .positions
                .iter()
                .map(|position| self.position(position))
                .collect(),
            scenarios: report
                .scenarios
                .iter()
                .map(|scenario| self.scenario(scenario))
                .collect(),
            scenario_assumption: lending_v3::SCENARIO_ASSUMPTION.to_owned(),
            rpc_round_trips: read.round_trips,
            assumptions,
        }
    }

    pub(super) fn symbols(&self, bitmap: Option<u128>) -> Vec<String> {
        let Some(bitmap) = bitmap else {
            return Vec::new();
        };
        self.report
            .read
            .reserves
            .iter()
            .filter(|r| r.index < 128 && (bitmap >> r.index) & 1 == 1)
            .map(|r| r.label())
            .collect()
    }

    fn emode(&self) -> EModeInfo {
        let read = &self.report.read;
        let Some(category) = &read.emode else {
            return EModeInfo {
                category_id: read.emode_id,
                label: None,
                ltv_bps: None,
                liquidation_threshold_bps: None,
                liquidation_bonus_bps: None,
                price_source: None,
                collateral_assets: Vec::new(),
                borrowable_assets: None,
                isolated: None,
                getters_answered: Vec::new(),
            };
        };
        let collateral_assets = match category.collateral_bitmap {
            Some(bitmap) => self.symbols(Some(bitmap)),
            None => read
                .reserves
                .iter()
                .filter(|r| r.config.emode_category == category.id)
                .map(|r| r.label())
                .collect(),
        };
        EModeInfo {
            category_id: category.id,
            label: category.label.clone(),
            ltv_bps: Some(category.ltv),
            liquidation_threshold_bps: Some(category.liquidation_threshold),
            liquidation_bonus_bps: Some(category.liquidation_bonus),
            price_source: category.price_source.map(show),
            collateral_assets,
            borrowable_assets: category
                .borrowable_bitmap
                .map(|bitmap| self.symbols(Some(bitmap))),
            isolated: category.isolated,
            getters_answered: category.getters.iter().map(|g| (*g).to_owned()).collect(),
        }
    }

    fn isolation(&self) -> IsolationMode {
        let usd = |ceiling: U256| dex_math::format_units(ceiling, 2);
        match &self.report.isolation {
            Isolation::Removed => IsolationMode {
                active: false,
                state: "not applicable: isolation mode by debt ceiling no longer exists in this version (see emode.isolated)".to_owned(),
                asset: None,
                debt_ceiling_usd: None,
                isolated_debt_usd: None,
            },
            Isolation::Inactive => IsolationMode {
                active: false,
                state: "inactive: the wallet's collateral is not a single asset with a debt ceiling".to_owned(),
                asset: None,
                debt_ceiling_usd: None,
                isolated_debt_usd: None,
            },
            Isolation::Active {
                asset,
                symbol,
                debt_ceiling,
                total_debt,
            } => IsolationMode {
                active: true,
                state: format!(
                    "active: {} is the only collateral and has a debt ceiling, so only assets borrowable in isolation can be borrowed, up to the ceiling",
                    symbol.clone().unwrap_or_else(|| show(*asset))
                ),
                asset: Some(show(*asset)),
                debt_ceiling_usd: Some(usd(*debt_ceiling)),
                isolated_debt_usd: Some(usd(*total_debt)),
            },
        }
    }
}

pub(super) fn health_factor(wad: U256) -> HealthFactor {
    if wad == U256::MAX {
        return HealthFactor {
            wad: wad.to_string(),
            decimal: None,
            decimal_null_reason: Some(
                "no debt: the protocol's health factor is type(uint256).max".to_owned(),
            ),
        };
    }
    HealthFactor {
        wad: wad.to_string(),
        decimal: Some(dex_math::format_units(wad, 18)),
        decimal_null_reason: None,
    }
}

pub(super) fn regime(close_factor: &CloseFactor) -> CloseFactorRegime {
    CloseFactorRegime {
        percent: close_factor.percent(),
        regime: close_factor.describe(),
    }
}

pub(super) fn rate(ray: U256) -> Rate {
    Rate {
        ray: ray.to_string(),
        // A ray rate fits in 128 bits; to a millionth of a percent.
        apr_pct: to_f64(ray)
            .map(|r| (r / 1e25 * 1e6).round() / 1e6)
            .unwrap_or_default(),
    }
}

pub(super) fn to_f64(value: U256) -> Option<f64> {
    value.to_string().parse().ok()
}
