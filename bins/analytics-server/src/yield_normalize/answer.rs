//! The answer of `POST /yield/normalize` and its parts.

use schemars::JsonSchema;
use serde::Serialize;

use crate::requests::Chain;

/// A value quoted from a foreign source.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Quote {
    /// Provider name.
    pub source: String,
    /// The URL asked, to check the value.
    pub url: String,
    /// Unix seconds the value is as of (the provider's own time when it gives one).
    pub as_of: u64,
    /// Seconds between `as_of` and the answer.
    pub age_seconds: u64,
}

/// The directory's row, as given.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DirectoryPool {
    /// Directory pool id (UUID).
    pub id: String,
    /// Chain name in the directory.
    pub chain: String,
    /// Protocol id.
    pub project: String,
    /// Symbol.
    pub symbol: String,
    /// Free text such as the fee tier.
    pub pool_meta: Option<String>,
    /// TVL in USD, as given.
    pub tvl_usd: Option<String>,
    /// 24 h volume in USD, as given.
    pub volume_usd_1d: Option<String>,
    /// Underlying token addresses.
    pub underlying_tokens: Vec<String>,
    /// Reward token addresses.
    pub reward_tokens: Vec<String>,
    /// The directory's own IL-risk flag.
    pub il_risk: Option<String>,
    /// The directory's stablecoin flag.
    pub stablecoin: Option<bool>,
    /// Where it was read.
    pub quote: Quote,
}

/// The trailing seven-day base APY.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ConservativeApy {
    /// Mean of the last seven daily `apyBase` points, percent (exact); null with the reason
    /// when fewer than seven exist.
    pub value_pct: Option<String>,
    /// The UTC dates of the points used.
    pub dates_used: Vec<String>,
    /// Calendar days in their span without a point.
    pub missing_days_in_span: Vec<String>,
    /// Days whose point carries no `apyBase`.
    pub days_without_apy_base: Vec<String>,
    /// Days with an `apyBase` in the history.
    pub days_available: usize,
    /// Why `value_pct` is null.
    pub null_reason: Option<String>,
    /// The directory's own `apyBase7d`, as given.
    pub directory_apy_base_7d: Option<String>,
    /// What the directory's `apyBase7d` is, where it is given.
    pub directory_apy_base_7d_note: Option<String>,
    /// Where the history was read (null when it could not be).
    pub quote: Option<Quote>,
}

/// A reward token's price at call time.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RewardToken {
    /// Address as the directory gives it.
    pub token: String,
    /// Symbol, from the coins API.
    pub symbol: Option<String>,
    /// USD price at call time, as given (an assumption: emissions are valued at it).
    pub price_usd: Option<String>,
    /// Unix seconds of the price.
    pub price_as_of: Option<u64>,
    /// Why there is no price.
    pub price_null_reason: Option<String>,
    /// End of the emission schedule: always null.
    pub emission_end: Option<String>,
    /// Why.
    pub emission_end_null_reason: String,
}

/// The fee APR recomputed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FeeApr {
    /// `volume_usd_24h × fee × 365 / tvl_usd × 100`, percent (exact, rounded toward zero at
    /// 18 places).
    pub recomputed_pct: Option<String>,
    /// 24 h volume, USD, as the directory gives it.
    pub volume_usd_24h: Option<String>,
    /// TVL, USD, as the directory gives it.
    pub tvl_usd: Option<String>,
    /// Fee, parts per million.
    pub fee_ppm: Option<u32>,
    /// Where the fee was read.
    pub fee_source: Option<String>,
    /// The directory's base APY, percent.
    pub directory_apy_base_pct: Option<String>,
    /// `recomputed_pct − directory_apy_base_pct`, percentage points (exact).
    pub deviation_pct_points: Option<String>,
    /// What a deviation means.
    pub statement: String,
    /// Why `recomputed_pct` is null.
    pub null_reason: Option<String>,
}

/// Impermanent loss on the path and in scenarios.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImpermanentLoss {
    /// Token A (the first underlying token), and B.
    pub tokens: Vec<String>,
    /// The path's first point (timestamp, both USD prices).
    pub path_first: Option<PathPointOut>,
    /// Its last point.
    pub path_last: Option<PathPointOut>,
    /// Points on the path.
    pub path_points: usize,
    /// Price of A in B at the end relative to the first point.
    pub price_ratio_at_end: Option<f64>,
    /// Constant-product IL at the end, percent (an estimate on the formula).
    pub il_at_end_pct: Option<f64>,
    /// The most negative constant-product IL on the path, percent.
    pub worst_il_pct: Option<f64>,
    /// When.
    pub worst_at: Option<u64>,
    /// Concentrated pools: the share of the path a ±x % range around the first point stayed in
    /// range, and that range position's IL at the end.
    pub ranges: Vec<RangeOut>,
    /// Why the path figures are null.
    pub null_reason: Option<String>,
    /// IL at fixed price ratios (A in B relative to entry), constant-product formula.
    pub scenarios: Vec<ScenarioOut>,
    /// Where the path was read.
    pub quote: Option<Quote>,
}

/// A path point.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct PathPointOut {
    /// Unix seconds.
    pub timestamp: u64,
    /// Token A, USD.
    pub price_a_usd: f64,
    /// Token B, USD.
    pub price_b_usd: f64,
}

/// A range row.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct RangeOut {
    /// Half-width, percent of the entry price.
    pub half_width_pct: f64,
    /// Time-weighted share of the path in range, percent.
    pub in_range_pct: f64,
    /// IL at the end of a position on that range, percent.
    pub il_at_end_pct: f64,
}

/// A scenario row.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct ScenarioOut {
    /// Price ratio.
    pub price_ratio: f64,
    /// IL, percent.
    pub il_pct: f64,
}

/// The gas the net APY subtracts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Gas {
    /// `concentrated_liquidity`, `constant_product` or `solidly` (the pool types of
    /// docs/analytics.md); null for protocols whose transactions were not measured.
    pub pool_type: Option<String>,
    /// Gas units of entry.
    pub entry_units: Option<u64>,
    /// Gas units of exit.
    pub exit_units: Option<u64>,
    /// Gas units of one harvest.
    pub harvest_units: Option<u64>,
    /// What the units are (the transactions measured on the devnet's contracts).
    pub units_measured_as: Option<String>,
    /// Holding period, days.
    pub holding_period_days: u32,
    /// Days between harvests.
    pub harvest_every_days: u32,
    /// Harvests in the period.
    pub harvests: Option<u32>,
    /// Transactions in the period.
    pub transactions: Option<u32>,
    /// `eth_gasPrice`, wei.
    pub gas_price_wei: Option<String>,
    /// L1 data fee per transaction, wei (OP-stack chains).
    pub l1_data_fee_wei_per_transaction: Option<String>,
    /// Why there is no L1 data fee.
    pub l1_data_fee_null_reason: Option<String>,
    /// Native token price, USD.
    pub native_price_usd: Option<String>,
    /// Where it was read.
    pub native_price_source: Option<String>,
    /// Total gas of the period, USD (exact).
    pub period_cost_usd: Option<String>,
    /// Block of the chain reads.
    pub block_number: Option<u64>,
    /// Why the gas is not priced.
    pub null_reason: Option<String>,
}

/// Net APY after gas for one stake.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NetApy {
    /// Stake, USD.
    pub stake_usd: f64,
    /// The period's gas as a share of the stake per year, percentage points.
    pub gas_pct_points_per_year: Option<String>,
    /// Advertised APY minus it, percent.
    pub advertised_net_pct: Option<String>,
    /// Conservative APY minus it, percent.
    pub conservative_net_pct: Option<String>,
    /// Why the figures are null.
    pub null_reason: Option<String>,
}

/// The answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct YieldNormalizeAnswer {
    /// Chain.
    pub chain: Chain,
    /// The pool as the directory lists it.
    pub pool: DirectoryPool,
    /// The directory's total APY, percent, as given.
    pub advertised_apy: Option<String>,
    /// The directory's base APY, percent.
    pub apy_base: Option<String>,
    /// The directory's reward APY, percent.
    pub apy_reward: Option<String>,
    /// The trailing seven-day base APY, emissions excluded.
    pub conservative_apy: ConservativeApy,
    /// Reward tokens with their price at call time.
    pub reward_tokens: Vec<RewardToken>,
    /// The fee APR recomputed (AMM pools).
    pub fee_apr: FeeApr,
    /// Impermanent loss.
    pub impermanent_loss: ImpermanentLoss,
    /// The gas subtracted.
    pub gas: Gas,
    /// Net APY after gas per stake size.
    pub net_apy_after_gas: Vec<NetApy>,
    /// What the figures assume.
    pub assumptions: Vec<String>,
}
