//! A position's parts of the answer of `POST /lending/health`: reserves, liquidation prices,
//! scenarios.

use schemars::JsonSchema;
use serde::Serialize;

use super::answer::{AssetInfo, BaseValue, CloseFactorRegime, HealthFactor, Rate};
use crate::answer::Amount;

/// The reserve's own parameters (before eMode).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReserveParameters {
    /// LTV, basis points.
    pub ltv_bps: u16,
    /// Liquidation threshold, basis points.
    pub liquidation_threshold_bps: u16,
    /// Liquidation bonus, basis points (10000 included).
    pub liquidation_bonus_bps: u16,
    /// Whether the reserve can be collateral at all (threshold above zero).
    pub usage_as_collateral_enabled: bool,
    /// Borrowing enabled.
    pub borrowing_enabled: bool,
    /// Stable-rate borrowing enabled (3.0–3.1).
    pub stable_borrowing_enabled: bool,
    /// Active.
    pub active: bool,
    /// Frozen.
    pub frozen: bool,
    /// Paused.
    pub paused: bool,
    /// Isolation-mode debt ceiling in USD; null when none (or no isolation mode in the version).
    pub debt_ceiling_usd: Option<String>,
    /// 3.0–3.1: the eMode category the reserve belongs to.
    pub emode_category: Option<u8>,
}

/// The liquidation price of a collateral asset.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LiquidationPriceValue {
    /// In the oracle's base-currency unit (what AaveOracle `getAssetPrice` would answer).
    pub oracle_units: String,
    /// As a decimal USD figure; null when the base currency is not USD.
    pub usd: Option<String>,
    /// Change from the current oracle price, percent (negative: a fall).
    pub change_from_current_pct: Option<f64>,
    /// The health factor at that price (at or below 1).
    pub health_factor_at_price: String,
}

/// A liquidation price, or in words why no price down to zero triggers liquidation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum LiquidationPriceField {
    /// The price.
    Price(LiquidationPriceValue),
    /// Why there is none.
    Words(String),
}

/// One asset the wallet supplies or borrows.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LendingPosition {
    /// The asset.
    pub asset: AssetInfo,
    /// Reserve id (its place in `getReservesList`).
    pub reserve_id: usize,
    /// aToken balance: the collateral amount.
    pub supplied: Amount,
    /// The wallet uses it as collateral (configuration bitmap).
    pub used_as_collateral: bool,
    /// It enters the health factor as collateral.
    pub counts_as_collateral: bool,
    /// Why it does not, when supplied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_as_collateral_reason: Option<String>,
    /// The wallet borrows it (configuration bitmap).
    pub borrowed: bool,
    /// Variable-rate debt.
    pub variable_debt: Amount,
    /// Stable-rate debt.
    pub stable_debt: Amount,
    /// Whether the wallet's eMode category sets its LTV, threshold and bonus.
    pub emode_applies: bool,
    /// LTV that applies, basis points.
    pub ltv_bps: u16,
    /// Liquidation threshold that applies, basis points.
    pub liquidation_threshold_bps: u16,
    /// Liquidation bonus that applies, basis points (10000 included).
    pub liquidation_bonus_bps: u16,
    /// The reserve's own parameters.
    pub reserve: ReserveParameters,
    /// Current variable borrow rate.
    pub variable_borrow_rate: Rate,
    /// Current stable borrow rate for new stable borrows (zero from 3.2).
    pub stable_borrow_rate: Rate,
    /// The wallet's own stable rate (its stable debt accrues at this rate).
    pub user_stable_borrow_rate: Rate,
    /// Current supply rate.
    pub supply_rate: Rate,
    /// AaveOracle `getAssetPrice` at the block, the protocol's price (never an exchange price).
    pub oracle_price: Option<BaseValue>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle_price_null_reason: Option<String>,
    /// AaveOracle `getSourceOfAsset`: the contract the price comes from.
    pub oracle_source: Option<String>,
    /// Why it is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle_source_null_reason: Option<String>,
    /// 3.0–3.1: the eMode price source that prices it in the health factor instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priced_by_emode_source: Option<String>,
    /// Its collateral in base currency, as the health factor counts it.
    pub collateral_value: Option<BaseValue>,
    /// Its debt in base currency, as the health factor counts it.
    pub debt_value: Option<BaseValue>,
    /// The oracle price at which the health factor reaches 1 while every other price holds,
    /// or in words why no price down to zero triggers liquidation.
    pub liquidation_price: LiquidationPriceField,
}

/// The health factor under one uniform collateral price move.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScenarioResult {
    /// The move of every collateral price, percent.
    pub collateral_price_change_pct: f64,
    /// The health factor there.
    pub health_factor: HealthFactor,
    /// Σ collateral there.
    pub total_collateral: BaseValue,
    /// Σ debt (nominal, unchanged).
    pub total_debt: BaseValue,
    /// HF strictly below 1.
    pub liquidatable: bool,
    /// The close factor there.
    pub close_factor: CloseFactorRegime,
}
