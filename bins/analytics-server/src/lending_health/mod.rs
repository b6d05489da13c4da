//! `POST /lending/health`: the answer's types, and `lending-v3`'s report (every read at one
//! block, resolved from the chain's PoolAddressesProvider, the health factor recomputed and
//! checked against `getUserAccountData`) put into words and decimal figures.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

use alloy::primitives::U256;
use chain_read::PinnedReader;
use lending_v3::{
    BaseCurrency, CloseFactor, HealthReport, Isolation, LiquidationPrice, NoLiquidationPrice,
    Position, Scenario, WAD,
};
use schemars::JsonSchema;
use serde::Serialize;
use server_kit::{ApiError, ErrorCode};

use crate::answer::{Amount, address, amount, show};
use crate::chains::{Chains, lending_error};
use crate::requests::{Chain, LendingHealthRequest, LendingProtocol};

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

/// Reads `request.wallet`'s position. Errors are answered without settling: 400
/// `unsupported_protocol` on a chain without a configured PoolAddressesProvider, 502 when the
/// node or the market cannot be read, 504 for a node slower than its per-call timeout.
pub async fn lending_health(
    chains: &Chains,
    request: &LendingHealthRequest,
) -> Result<LendingHealthAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let chain = request.chain;
    let provider = info.aave_v3_pool_addresses_provider().ok_or_else(|| {
        ApiError::new(
            ErrorCode::UnsupportedProtocol,
            format!(
                "lending-v3 has no PoolAddressesProvider configured on {chain}; nothing was charged"
            ),
        )
    })?;
    let wallet = address(&request.wallet.0, "wallet")?;
    let reader = PinnedReader::for_chain(client.clone(), info);
    let report = lending_v3::health(&reader, provider, wallet, &request.scenarios_pct)
        .await
        .map_err(|error| lending_error(request.chain, error))?;
    Ok(Answer::new(&report).build(request))
}

/// Formatting with the market's base currency.
struct Answer<'a> {
    report: &'a HealthReport,
    base: BaseCurrency,
    usd_decimals: Option<u8>,
}

impl<'a> Answer<'a> {
    fn new(report: &'a HealthReport) -> Self {
        let base = report.read.base_currency;
        Self {
            report,
            base,
            usd_decimals: if base.is_usd() { base.decimals() } else { None },
        }
    }

    fn value(&self, units: U256) -> BaseValue {
        BaseValue {
            base_units: units.to_string(),
            usd: self
                .usd_decimals
                .map(|decimals| dex_math::format_units(units, decimals)),
        }
    }

    fn build(&self, request: &LendingHealthRequest) -> LendingHealthAnswer {
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

    fn symbols(&self, bitmap: Option<u128>) -> Vec<String> {
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

    fn position(&self, position: &Position) -> LendingPosition {
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

    fn liquidation_price(&self, position: &Position) -> LiquidationPriceField {
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

    fn scenario(&self, scenario: &Scenario) -> ScenarioResult {
        ScenarioResult {
            collateral_price_change_pct: scenario.change_pct,
            health_factor: health_factor(scenario.health_factor),
            total_collateral: self.value(scenario.totals.collateral),
            total_debt: self.value(scenario.totals.debt),
            liquidatable: scenario.health_factor < WAD,
            close_factor: regime(&scenario.close_factor),
        }
    }

    fn assumptions(&self) -> Vec<String> {
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

fn health_factor(wad: U256) -> HealthFactor {
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

fn regime(close_factor: &CloseFactor) -> CloseFactorRegime {
    CloseFactorRegime {
        percent: close_factor.percent(),
        regime: close_factor.describe(),
    }
}

fn rate(ray: U256) -> Rate {
    Rate {
        ray: ray.to_string(),
        // A ray rate fits in 128 bits; to a millionth of a percent.
        apr_pct: to_f64(ray)
            .map(|r| (r / 1e25 * 1e6).round() / 1e6)
            .unwrap_or_default(),
    }
}

fn to_f64(value: U256) -> Option<f64> {
    value.to_string().parse().ok()
}
