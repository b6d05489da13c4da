//! The answer of `POST /lending/health` and its account-level parts.

use schemars::JsonSchema;
use serde::Serialize;

use super::position::{LendingPosition, ScenarioResult};
use crate::requests::{Chain, LendingProtocol};

/// The market's contracts, resolved at the block.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MarketContracts {
    /// The configured entry point.
    pub pool_addresses_provider: String,
    /// `getPool()` at the block.
    pub pool: String,
    /// `getPriceOracle()` at the block (AaveOracle).
    pub price_oracle: String,
    /// `getPoolDataProvider()` at the block.
    pub pool_data_provider: String,
    /// `getMarketId()`, null when the provider does not answer it.
    pub market_id: Option<String>,
}

/// The Pool's version and the rules applied.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProtocolVersion {
    /// `POOL_REVISION()`.
    pub pool_revision: u64,
    /// The release line, e.g. `3.0–3.1`.
    pub version: String,
    /// The health-factor computation of that release, in words.
    pub rules: String,
    /// True when the revision is newer than any this service knows (the newest rules apply).
    pub rules_assumed: bool,
}

/// The oracle's base currency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BaseCurrencyInfo {
    /// `BASE_CURRENCY()`: the zero address means USD.
    pub address: String,
    /// `BASE_CURRENCY_UNIT()`.
    pub unit: String,
    /// Decimals of the unit.
    pub decimals: Option<u8>,
    /// `USD` when the base currency is USD.
    pub currency: Option<String>,
    /// Why the `usd` figures are null, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd_null_reason: Option<String>,
}

/// A value in the oracle's base currency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BaseValue {
    /// In base-currency units (the oracle's integer; 8 decimals for USD).
    pub base_units: String,
    /// As a decimal USD figure, exact; null when the base currency is not USD.
    pub usd: Option<String>,
}

/// A health factor.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HealthFactor {
    /// 18 decimals, as the protocol answers it (`2²⁵⁶ − 1` without debt).
    pub wad: String,
    /// Decimal, exact; null without debt.
    pub decimal: Option<String>,
    /// Why `decimal` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimal_null_reason: Option<String>,
}

/// `getUserAccountData` at the block, and whether the computation equals it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProtocolAccountData {
    /// `totalCollateralBase`.
    pub total_collateral_base: BaseValue,
    /// `totalDebtBase`.
    pub total_debt_base: BaseValue,
    /// `availableBorrowsBase`.
    pub available_borrows_base: BaseValue,
    /// `currentLiquidationThreshold`, basis points.
    pub current_liquidation_threshold_bps: String,
    /// `ltv`, basis points.
    pub ltv_bps: String,
    /// `healthFactor`.
    pub health_factor: HealthFactor,
    /// True when the computed collateral, debt, average threshold and health factor all equal
    /// these to the last unit.
    pub computed_values_match: bool,
}

/// The sums the health factor is made of, computed from the per-asset reads.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AccountTotals {
    /// Σ collateral in base currency (each rounded down).
    pub total_collateral: BaseValue,
    /// Σ debt in base currency (each rounded as the version does).
    pub total_debt: BaseValue,
    /// ⌊Σ collateral · threshold / Σ collateral⌋, basis points.
    pub average_liquidation_threshold_bps: String,
}

/// The close factor at a health factor.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CloseFactorRegime {
    /// 50 or 100 when one figure holds; null when not liquidatable or when it depends on the
    /// pair liquidated.
    pub percent: Option<u8>,
    /// In words.
    pub regime: String,
}

/// The wallet's eMode category.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EModeInfo {
    /// Category id (0 = none).
    pub category_id: u8,
    /// Its label.
    pub label: Option<String>,
    /// LTV, basis points.
    pub ltv_bps: Option<u16>,
    /// Liquidation threshold, basis points.
    pub liquidation_threshold_bps: Option<u16>,
    /// Liquidation bonus, basis points (10000 included).
    pub liquidation_bonus_bps: Option<u16>,
    /// 3.0–3.1: the category's price source, null when unset.
    pub price_source: Option<String>,
    /// The reserves whose collateral takes the category's parameters (symbols).
    pub collateral_assets: Vec<String>,
    /// 3.2+: the reserves borrowable in the category (symbols); null before 3.2.
    pub borrowable_assets: Option<Vec<String>>,
    /// 3.7+: whether only the category's collateral counts; null before.
    pub isolated: Option<bool>,
    /// The eMode getters that answered (they differ between 3.0, 3.1, 3.2 and later).
    pub getters_answered: Vec<String>,
}

/// Isolation mode.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IsolationMode {
    /// Whether the wallet is in isolation mode.
    pub active: bool,
    /// In words.
    pub state: String,
    /// The isolated collateral.
    pub asset: Option<String>,
    /// Its debt ceiling in USD.
    pub debt_ceiling_usd: Option<String>,
    /// Debt borrowed against it in isolation (every wallet), USD.
    pub isolated_debt_usd: Option<String>,
}

/// A token of the market.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AssetInfo {
    /// Checksummed address.
    pub address: String,
    /// Symbol as the data provider lists it.
    pub symbol: Option<String>,
    /// Decimals, from the reserve configuration.
    pub decimals: u8,
}

/// A rate a year.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Rate {
    /// In ray (10²⁷ = 100 % a year), as the Pool stores it.
    pub ray: String,
    /// Percent a year (APR, not compounded), to 6 decimals.
    pub apr_pct: f64,
}

/// The answer of `POST /lending/health`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LendingHealthAnswer {
    /// The chain read.
    pub chain: Chain,
    /// Echoed.
    pub protocol: LendingProtocol,
    /// The wallet, checksummed.
    pub wallet: String,
    /// Every read was made at this block.
    pub block_number: u64,
    /// Its timestamp, Unix seconds.
    pub block_timestamp: u64,
    /// The contracts, resolved from the PoolAddressesProvider at the block.
    pub contracts: MarketContracts,
    /// The Pool's revision and the rules it implies.
    pub protocol_version: ProtocolVersion,
    /// The oracle's base currency.
    pub base_currency: BaseCurrencyInfo,
    /// Whether the wallet supplies or borrows anything in the market.
    pub has_position: bool,
    /// A sentence when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_position: Option<String>,
    /// The health factor computed from the per-asset reads with the protocol's roundings.
    pub health_factor: HealthFactor,
    /// HF strictly below 1 at the block.
    pub liquidatable: bool,
    /// The close factor at the block.
    pub close_factor: CloseFactorRegime,
    /// The computed sums.
    pub totals: AccountTotals,
    /// `getUserAccountData` of the same block, and whether the computation equals it.
    pub protocol_account_data: ProtocolAccountData,
    /// The wallet's eMode category.
    pub emode: EModeInfo,
    /// Isolation mode.
    pub isolation_mode: IsolationMode,
    /// Every asset the wallet supplies or borrows, in reserve order.
    pub positions: Vec<LendingPosition>,
    /// One per `scenarios_pct`, in order.
    pub scenarios: Vec<ScenarioResult>,
    /// The premise of the scenarios.
    pub scenario_assumption: String,
    /// JSON-RPC HTTP requests this answer took.
    pub rpc_round_trips: u32,
    /// What the figures rest on.
    pub assumptions: Vec<String>,
}
