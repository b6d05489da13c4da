//! `POST /yield/normalize`: a yield directory pool's advertised APY taken apart and rebuilt
//! (`yield-model` does the arithmetic): the conservative seven-day base APY, the fee APR
//! recomputed from volume, fee and TVL, impermanent loss on the real 30-day price path with a
//! scenario table, and the net APY after entry, exit and harvest gas per stake size. No
//! forecast and no recommendation; every assumption printed.
//!
//! The directory is asked first (the pool must be resolved); then its history, the coins API
//! (current prices and the price path) and the chain (gas price, the pool's fee, the L1 data
//! fee) are asked at the same time. Runs inside the payment gate's work closure: any error
//! here is answered without settling.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256};
use chain_read::dex::{concentrated, constant_product, solidly};
use chain_read::l1_fee::{self, L1DataFee};
use chain_read::{Batch, ChainInfo, DexId, PinnedReader};
use oracle_sources::defillama::{
    COINS_PROVIDER, ChartWindow, CoinChart, CoinPrice, YIELDS_PROVIDER, YieldPool, coins_chain,
    yields_chain,
};
use oracle_sources::{SourceError, Sourced, Sources};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use server_kit::{ApiError, ErrorCode, FieldProblem};
use yield_model::Exact;
use yield_model::apy::{self, DailyApy};
use yield_model::il::{self, PathPoint, RangeShare, Scenario};
use yield_model::net::{self, GasPrices, GasUnits, HoldingPeriod, PoolType};

use crate::answer::show;
use crate::chains::Chains;
use crate::requests::{Chain, YieldNormalizeRequest};

const DAY: u64 = 86_400;

/// `[yield_normalize]` of `analytics.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct YieldConfig {
    /// Days a position is assumed held (entry and exit gas are spread over them).
    pub holding_period_days: u32,
    /// Days between harvests.
    pub harvest_every_days: u32,
    /// Days of the price path impermanent loss is measured on (points, one a day, ending at
    /// today's 00:00 UTC).
    pub price_path_days: u32,
}

impl Default for YieldConfig {
    fn default() -> Self {
        Self {
            holding_period_days: 365,
            harvest_every_days: 30,
            price_path_days: 31,
        }
    }
}

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

fn quote<T>(source: &str, sourced: &Sourced<T>, now: u64) -> Quote {
    Quote {
        source: source.to_owned(),
        url: sourced.url.clone(),
        as_of: sourced.as_of,
        age_seconds: now.saturating_sub(sourced.as_of),
    }
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
    /// `constant_product`, `concentrated_liquidity` or `solidly`; null for protocols whose
    /// transactions were not measured.
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

fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The row the request names: by id, or by symbol when exactly one row of the chain and
/// protocol has it. 422 `pool_not_found` / `ambiguous_pool` otherwise.
pub fn resolve<'a>(
    rows: &'a [YieldPool],
    request: &YieldNormalizeRequest,
) -> Result<&'a YieldPool, ApiError> {
    let chain_name = yields_chain(request.chain);
    let of_protocol: Vec<&YieldPool> = rows
        .iter()
        .filter(|r| r.chain == chain_name && r.project.eq_ignore_ascii_case(&request.protocol))
        .collect();
    let by_id = is_uuid(&request.pool);
    let matches: Vec<&YieldPool> = of_protocol
        .iter()
        .copied()
        .filter(|r| {
            if by_id {
                r.pool.eq_ignore_ascii_case(&request.pool)
            } else {
                r.symbol.eq_ignore_ascii_case(&request.pool)
            }
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => {
            let mut symbols: Vec<&str> = of_protocol.iter().map(|r| r.symbol.as_str()).collect();
            symbols.sort_unstable();
            symbols.dedup();
            let listed = if symbols.is_empty() {
                format!(
                    "the directory lists no {} pool on {chain_name}",
                    request.protocol
                )
            } else {
                format!(
                    "{} pools on {chain_name} are listed under: {}",
                    request.protocol,
                    symbols.into_iter().take(30).collect::<Vec<_>>().join(", ")
                )
            };
            Err(ApiError::new(
                ErrorCode::PoolNotFound,
                format!(
                    "no {} pool on {chain_name} has the {} {:?} in the yield directory ({listed}); nothing was charged",
                    request.protocol,
                    if by_id { "id" } else { "symbol" },
                    request.pool
                ),
            ))
        }
        many => {
            let mut error = ApiError::new(
                ErrorCode::AmbiguousPool,
                format!(
                    "{} {} pools on {chain_name} have the symbol {:?}; ask again with one of the ids in details; nothing was charged",
                    many.len(),
                    request.protocol,
                    request.pool
                ),
            );
            error.details = many
                .iter()
                .map(|r| FieldProblem {
                    field: "pool".to_owned(),
                    problem: format!(
                        "candidate id {}: TVL {} USD, pool meta {}",
                        r.pool,
                        r.tvl_usd
                            .as_ref()
                            .map_or("unknown".into(), ToString::to_string),
                        r.pool_meta.as_deref().unwrap_or("none")
                    ),
                })
                .collect();
            Err(error)
        }
    }
}

/// The pool type and DEX of a directory protocol id the service has measured gas for.
fn protocol_kind(project: &str) -> Option<(PoolType, DexId)> {
    Some(match project.to_ascii_lowercase().as_str() {
        "uniswap-v2" => (PoolType::ConstantProduct, DexId::UniswapV2),
        "sushiswap" => (PoolType::ConstantProduct, DexId::SushiswapV2),
        "uniswap-v3" => (PoolType::ConcentratedLiquidity, DexId::UniswapV3),
        "pancakeswap-amm-v3" => (PoolType::ConcentratedLiquidity, DexId::PancakeswapV3),
        "aerodrome-v1" => (PoolType::Solidly, DexId::Aerodrome),
        "velodrome-v2" => (PoolType::Solidly, DexId::Velodrome),
        _ => return None,
    })
}

fn pool_type_name(pool_type: PoolType) -> &'static str {
    match pool_type {
        PoolType::ConstantProduct => "constant_product",
        PoolType::ConcentratedLiquidity => "concentrated_liquidity",
        PoolType::Solidly => "solidly",
    }
}

/// `"0.05%"` → 500 ppm, exactly; `None` for text that is not a percentage.
fn meta_fee_ppm(meta: &str) -> Option<u32> {
    let text = meta.trim().strip_suffix('%')?.trim();
    let exact = Exact::parse(text).ok()?;
    let ppm = exact.checked_mul(Exact::from_int(10_000)).ok()?;
    let rounded = ppm.truncate(0);
    (rounded == ppm && !ppm.is_negative())
        .then(|| ppm.to_string().parse().ok())
        .flatten()
}

fn address_of(text: &str) -> Option<Address> {
    text.parse().ok()
}

/// What the chain gave: the pool's address and fee, the gas price, the L1 data fee.
#[derive(Debug, Default)]
struct ChainFacts {
    block: Option<u64>,
    pool: Option<Address>,
    fee_ppm: Option<u32>,
    fee_note: Option<String>,
    gas_price_wei: Option<u128>,
    l1_fee_wei: Option<U256>,
    l1_reason: Option<String>,
    error: Option<String>,
}

/// Pool address candidates from the factory for the directory's two tokens, matched to the
/// row's id; then the pool's fee from its contract (the factory's `getFee` for Solidly) and
/// the L1 data fee of a representative transaction. Two round trips; gas price in the first.
async fn read_chain(
    info: &ChainInfo,
    reader: &PinnedReader,
    row: &YieldPool,
    kind: Option<(PoolType, DexId)>,
) -> ChainFacts {
    let chain = info.chain();
    let tokens: Vec<Address> = row
        .underlying_tokens
        .iter()
        .flatten()
        .filter_map(|t| address_of(t))
        .collect();
    let mut batch = Batch::new();
    enum Lookup {
        V3(
            Vec<(
                u32,
                chain_read::dex::PoolLookup<chain_read::bindings::IUniswapV3Factory::getPoolCall>,
            )>,
        ),
        V2(chain_read::dex::PoolLookup<chain_read::bindings::IUniswapV2Factory::getPairCall>),
        Solidly(
            Vec<(
                bool,
                chain_read::dex::PoolLookup<chain_read::bindings::ISolidlyFactory::getPoolCall>,
            )>,
        ),
        None,
    }
    let dex = kind.and_then(|(_, id)| info.dex(id).map(|d| (id, d.factory())));
    let lookup = match (dex, tokens.as_slice()) {
        (Some((id, factory)), [a, b]) => match id.kind() {
            chain_read::DexKind::ConcentratedLiquidity => Lookup::V3(
                id.default_fee_tiers()
                    .iter()
                    .map(|fee| {
                        (
                            *fee,
                            concentrated::get_pool(&mut batch, factory, *a, *b, *fee),
                        )
                    })
                    .collect(),
            ),
            chain_read::DexKind::ConstantProduct => {
                Lookup::V2(constant_product::get_pair(&mut batch, factory, *a, *b))
            }
            chain_read::DexKind::Solidly => Lookup::Solidly(
                [false, true]
                    .into_iter()
                    .map(|stable| {
                        (
                            stable,
                            solidly::get_pool(&mut batch, factory, *a, *b, stable),
                        )
                    })
                    .collect(),
            ),
        },
        _ => Lookup::None,
    };
    let mut facts = ChainFacts::default();
    let (results, gas_price) = match reader.execute_with_gas_price(batch).await {
        Ok(answer) => answer,
        Err(error) => {
            facts.error = Some(format!(
                "the {} node could not be read: {error}",
                chain.as_str()
            ));
            return facts;
        }
    };
    facts.block = Some(results.block_number());
    match gas_price {
        Ok(price) => facts.gas_price_wei = Some(price),
        Err(error) => facts.error = Some(format!("eth_gasPrice failed: {error}")),
    }
    let named = |address: Address| row.is_pool(chain, address);
    // The candidate the directory's id names.
    let mut second = Batch::new();
    enum FeeRead {
        V3(concentrated::PoolStateSlots),
        V2(u32),
        Solidly(solidly::FeeSlot),
        None,
    }
    let fee_read = match &lookup {
        Lookup::V3(tiers) => tiers
            .iter()
            .find_map(|(_, l)| l.decode(&results).ok().flatten().filter(|p| named(*p)))
            .map_or(FeeRead::None, |pool| {
                facts.pool = Some(pool);
                FeeRead::V3(concentrated::pool_state(&mut second, pool))
            }),
        Lookup::V2(l) => match l.decode(&results).ok().flatten().filter(|p| named(*p)) {
            Some(pool) => {
                facts.pool = Some(pool);
                // Uniswap V2 and its forks here hard-code 0.30 % in the pair's swap().
                FeeRead::V2(3_000)
            }
            None => FeeRead::None,
        },
        Lookup::Solidly(kinds) => kinds
            .iter()
            .find_map(|(stable, l)| {
                l.decode(&results)
                    .ok()
                    .flatten()
                    .filter(|p| named(*p))
                    .map(|p| (*stable, p))
            })
            .map_or(FeeRead::None, |(stable, pool)| {
                facts.pool = Some(pool);
                let factory = dex.map(|(_, f)| f).unwrap_or_default();
                FeeRead::Solidly(solidly::fee(&mut second, factory, pool, stable))
            }),
        Lookup::None => FeeRead::None,
    };
    let l1_slot = match (info.l1_gas_price_oracle(), facts.gas_price_wei) {
        (Some(oracle), Some(price)) => {
            let (a, b) = match tokens.as_slice() {
                [a, b] => (*a, *b),
                _ => (info.wrapped_native(), info.usdc()),
            };
            let transaction = l1_fee::representative_swap_transaction(
                info,
                a,
                b,
                U256::from(10u8).pow(U256::from(18u8)),
                price,
            );
            Some(l1_fee::l1_fee(&mut second, oracle, transaction))
        }
        (None, _) => {
            facts.l1_reason = Some(format!(
                "{} is not an OP-stack chain: no L1 data fee",
                chain.as_str()
            ));
            None
        }
        (Some(_), None) => {
            facts.l1_reason = Some("not read: no gas price".to_owned());
            None
        }
    };
    if let FeeRead::V2(ppm) = fee_read {
        facts.fee_ppm = Some(ppm);
        facts.fee_note = Some(format!(
            "the constant-product pair's fixed fee (0.30 %), pair {} found through the factory's getPair",
            show(facts.pool.unwrap_or_default())
        ));
    }
    if second.is_empty() {
        if facts.pool.is_none() && !matches!(lookup, Lookup::None) {
            facts.fee_note = Some(
                "no pool the factory returns for the directory's tokens has the directory's id"
                    .to_owned(),
            );
        }
        return facts;
    }
    let results = match reader.execute(second).await {
        Ok(results) => results,
        Err(error) => {
            facts.error = Some(format!(
                "the {} node could not be read: {error}",
                chain.as_str()
            ));
            return facts;
        }
    };
    match fee_read {
        FeeRead::V3(slots) => match slots.decode(&results) {
            Ok(state) => {
                facts.fee_ppm = Some(state.fee);
                facts.fee_note = Some(format!(
                    "the pool contract's fee() at block {}, pool {}",
                    results.block_number(),
                    show(facts.pool.unwrap_or_default())
                ));
            }
            Err(failure) => facts.fee_note = Some(format!("fee() failed: {failure}")),
        },
        FeeRead::Solidly(slot) => match slot.decode(&results) {
            Ok(bps) => {
                facts.fee_ppm = Some(bps * 100);
                facts.fee_note = Some(format!(
                    "the pool factory's getFee(pool, stable) at block {}, pool {}",
                    results.block_number(),
                    show(facts.pool.unwrap_or_default())
                ));
            }
            Err(failure) => facts.fee_note = Some(format!("getFee failed: {failure}")),
        },
        FeeRead::V2(_) | FeeRead::None => {}
    }
    if let Some(slot) = l1_slot {
        match slot.decode(&results) {
            L1DataFee::Read { fee_wei, .. } => facts.l1_fee_wei = Some(fee_wei),
            L1DataFee::Failed { oracle, failure } => {
                facts.l1_reason = Some(format!("getL1Fee on {} failed: {failure}", show(oracle)));
            }
            other => facts.l1_reason = Some(format!("{other:?}")),
        }
    }
    facts
}

fn source_reason(error: &SourceError) -> String {
    error.to_string()
}

fn directory_down(error: &SourceError) -> ApiError {
    ApiError::new(
        ErrorCode::CounterpartyUnreachable,
        format!("the yield directory could not be read ({error}); nothing was charged"),
    )
}

fn text(number: Option<&oracle_sources::ProviderNumber>) -> Option<String> {
    number.map(ToString::to_string)
}

fn exact(number: Option<&oracle_sources::ProviderNumber>) -> Option<Exact> {
    number.and_then(|n| Exact::parse(n.as_str()).ok())
}

fn coin_key(chain: Chain, address: Address) -> String {
    format!("{}:{address:#x}", coins_chain(chain))
}

/// The route's work.
pub async fn yield_normalize(
    chains: &Chains,
    sources: &Sources,
    config: &YieldConfig,
    request: &YieldNormalizeRequest,
) -> Result<YieldNormalizeAnswer, ApiError> {
    let pools = sources
        .defillama_yields()
        .pools()
        .await
        .map_err(|e| directory_down(&e))?;
    let now = crate::wording::now_unix();
    let row = resolve(&pools.value, request)?.clone();
    let kind = protocol_kind(&row.project);
    let chain = request.chain;

    let underlying: Vec<Address> = row
        .underlying_tokens
        .iter()
        .flatten()
        .filter_map(|t| address_of(t))
        .collect();
    let rewards: Vec<String> = row.reward_tokens.clone().unwrap_or_default();
    let access = chains.access(chain);
    let native = access
        .as_ref()
        .map(|(info, _)| info.wrapped_native())
        .or_else(|_| chains.info(chain).map(ChainInfo::wrapped_native))
        .ok();
    let mut priced: Vec<(Chain, Address)> = Vec::new();
    for address in rewards
        .iter()
        .filter_map(|t| address_of(t))
        .chain(native)
        .chain(underlying.iter().copied())
    {
        if !priced.iter().any(|(_, a)| *a == address) {
            priced.push((chain, address));
        }
    }
    let days = u64::from(config.price_path_days.max(2));
    let today = now / DAY * DAY;
    let window = ChartWindow {
        start: today.saturating_sub((days - 1) * DAY),
        span: u32::try_from(days).unwrap_or(31),
        period: "1d".to_owned(),
    };
    let pair: Option<[Address; 2]> = match underlying.as_slice() {
        [a, b] => Some([*a, *b]),
        _ => None,
    };
    let path_tokens: Vec<(Chain, Address)> = pair
        .map(|p| p.iter().map(|a| (chain, *a)).collect())
        .unwrap_or_default();

    let history = sources.defillama_yields().chart(&row.pool);
    let prices = async {
        if priced.is_empty() {
            None
        } else {
            Some(sources.defillama_coins().current_prices(&priced).await)
        }
    };
    let path = async {
        if path_tokens.is_empty() {
            None
        } else {
            Some(sources.defillama_coins().chart(&path_tokens, &window).await)
        }
    };
    let chain_facts = async {
        match &access {
            Ok((info, client)) => {
                let reader = PinnedReader::for_chain((*client).clone(), info);
                read_chain(info, &reader, &row, kind).await
            }
            // The error's own message says nothing was charged, which is wrong in a 200.
            Err(_) => ChainFacts {
                error: Some(format!(
                    "no RPC endpoint is configured for {}",
                    chain.as_str()
                )),
                ..ChainFacts::default()
            },
        }
    };
    let (history, prices, path, facts) = tokio::join!(history, prices, path, chain_facts);

    let mut assumptions = vec![
        "Directory figures (APYs, TVL, 24 h volume) are DefiLlama's as given, in percent and USD; nothing here is a forecast or a recommendation.".to_owned(),
    ];

    // Conservative APY.
    let directory_apy_base_7d = text(row.apy_base_7d.as_ref());
    let apy_7d_note = directory_apy_base_7d.as_ref().map(|_| match kind {
        Some((PoolType::ConcentratedLiquidity, _)) => "The directory's apyBase7d is not a trailing average of daily base APYs: for concentrated-liquidity pools DefiLlama simulates a 100k USD position in a ±30 % range (±0.1 % for stable pairs) on 7-day volume annualised ×52.".to_owned(),
        _ => "The directory's apyBase7d is not a trailing average of daily base APYs: it is 7-day volume × fee annualised ×52 over current TVL.".to_owned(),
    });
    let conservative = match &history {
        Ok(chart) => {
            let points: Vec<DailyApy> = chart
                .value
                .iter()
                .map(|p| DailyApy {
                    timestamp: p.timestamp,
                    apy_base: exact(p.apy_base.as_ref()),
                })
                .collect();
            match apy::conservative_apy(&points) {
                Ok(c) => ConservativeApy {
                    value_pct: c.value_pct.map(|v| v.to_string()),
                    dates_used: c.dates_used,
                    missing_days_in_span: c.missing_days_in_span,
                    days_without_apy_base: c.days_without_apy_base,
                    days_available: c.days_available,
                    null_reason: c.null_reason,
                    directory_apy_base_7d,
                    directory_apy_base_7d_note: apy_7d_note,
                    quote: Some(quote(YIELDS_PROVIDER, chart, now)),
                },
                Err(error) => conservative_null(
                    format!("the history's figures could not be added: {error}"),
                    &directory_apy_base_7d,
                    &apy_7d_note,
                ),
            }
        }
        Err(error) => conservative_null(
            format!(
                "the directory's history could not be read: {}",
                source_reason(error)
            ),
            &directory_apy_base_7d,
            &apy_7d_note,
        ),
    };
    assumptions.push("conservative_apy is the mean of the last seven daily apyBase points of the directory's /chart history (the latest it has, whatever the chain's clock says), emissions excluded; days are UTC, a day with several points counts with its latest.".to_owned());

    // Prices at call time.
    let price_map: Option<&BTreeMap<String, CoinPrice>> = prices
        .as_ref()
        .and_then(|p| p.as_ref().ok())
        .map(|p| &*p.value);
    let price_error = prices
        .as_ref()
        .and_then(|p| p.as_ref().err())
        .map(source_reason);
    let reward_tokens: Vec<RewardToken> = rewards
        .iter()
        .map(|token| {
            let found = address_of(token)
                .map(|a| coin_key(chain, a))
                .and_then(|key| price_map.and_then(|m| m.get(&key)));
            let null_reason = match (found, address_of(token), &price_error) {
                (Some(p), _, _) if p.price.is_some() => None,
                (_, None, _) => Some(format!("{token:?} is not an address the coins API prices")),
                (_, _, Some(error)) => Some(format!("{COINS_PROVIDER}: {error}")),
                _ => Some(format!("{COINS_PROVIDER} does not price it")),
            };
            RewardToken {
                token: token.clone(),
                symbol: found.and_then(|p| p.symbol.clone()),
                price_usd: found.and_then(|p| text(p.price.as_ref())),
                price_as_of: found.map(|p| p.timestamp),
                price_null_reason: null_reason,
                emission_end: None,
                emission_end_null_reason:
                    "the directory does not publish the end of emission schedules".to_owned(),
            }
        })
        .collect();
    if !reward_tokens.is_empty() {
        assumptions.push(format!(
            "Reward tokens are valued at their {COINS_PROVIDER} price at call time (price_usd with its as_of); apy_reward assumes emissions continue at that price, and no end of emissions is known."
        ));
        for reward in &reward_tokens {
            assumptions.push(match (&reward.price_usd, reward.price_as_of) {
                (Some(price), Some(as_of)) => format!(
                    "Reward token {} ({}) is assumed worth {price} USD ({COINS_PROVIDER}, as of {as_of}).",
                    reward.symbol.as_deref().unwrap_or("?"),
                    reward.token
                ),
                _ => format!(
                    "Reward token {} has no price: {}.",
                    reward.token,
                    reward.price_null_reason.as_deref().unwrap_or("not priced")
                ),
            });
        }
    }

    // Fee APR.
    let statement = "A zero deviation means the directory's base APY is consistent with its own volume, fee and TVL, not an independent confirmation: the inputs are the directory's.".to_owned();
    let meta_fee = row.pool_meta.as_deref().and_then(meta_fee_ppm);
    let (fee_ppm, fee_source) = match (facts.fee_ppm, meta_fee, kind) {
        (Some(ppm), _, _) => (Some(ppm), facts.fee_note.clone()),
        (None, Some(ppm), _) => (
            Some(ppm),
            Some(format!(
                "the directory's poolMeta {:?} ({})",
                row.pool_meta.as_deref().unwrap_or_default(),
                facts
                    .error
                    .clone()
                    .or_else(|| facts.fee_note.clone())
                    .map_or_else(|| "the chain gave no fee".to_owned(), |e| format!("the chain gave no fee: {e}"))
            )),
        ),
        (None, None, Some((PoolType::ConstantProduct, _))) => (
            Some(3_000),
            Some("the protocol's fixed fee of constant-product pairs (0.30 %); the chain gave no pair".to_owned()),
        ),
        _ => (None, None),
    };
    let volume = exact(row.volume_usd_1d.as_ref());
    let tvl = exact(row.tvl_usd.as_ref());
    let directory_base = exact(row.apy_base.as_ref());
    let recomputed = match (kind, fee_ppm, volume, tvl) {
        (None, _, _, _) => Err(format!(
            "{} is not an AMM protocol the service models (uniswap-v2, sushiswap, uniswap-v3, pancakeswap-amm-v3, aerodrome-v1, velodrome-v2)",
            row.project
        )),
        (_, None, _, _) => Err(format!(
            "no fee: the directory's poolMeta gives none{}",
            facts
                .error
                .as_ref()
                .or(facts.fee_note.as_ref())
                .map_or(String::new(), |e| format!(" and the chain gave none ({e})"))
        )),
        (_, _, None, _) => {
            Err("the directory gives no 24 h volume (volumeUsd1d) for the pool".to_owned())
        }
        (_, _, _, None) => Err("the directory gives no TVL for the pool".to_owned()),
        (Some(_), Some(ppm), Some(volume), Some(tvl)) => {
            apy::fee_apr_pct(volume, ppm, tvl).map_err(|e| e.to_string())
        }
    };
    let deviation = match (&recomputed, directory_base) {
        (Ok(r), Some(d)) => r.checked_sub(d).ok(),
        _ => None,
    };
    let fee_apr = FeeApr {
        recomputed_pct: recomputed.as_ref().ok().map(ToString::to_string),
        volume_usd_24h: text(row.volume_usd_1d.as_ref()),
        tvl_usd: text(row.tvl_usd.as_ref()),
        fee_ppm,
        fee_source,
        directory_apy_base_pct: text(row.apy_base.as_ref()),
        deviation_pct_points: deviation.map(|d| d.to_string()),
        statement,
        null_reason: recomputed.err(),
    };
    assumptions.push("fee_apr: 24 h volume × fee × 365 / TVL × 100 with the directory's volume and TVL, computed exactly in decimals (one rounding toward zero at 18 places); the fee is the pool contract's where the chain was read, otherwise the directory's poolMeta, as fee_source says.".to_owned());

    // Impermanent loss.
    let impermanent_loss = impermanent_loss(pair, &path, kind, chain, now);
    assumptions.push(format!(
        "Impermanent loss uses the constant-product formula 2√r/(1+r) − 1 on the {COINS_PROVIDER} daily USD price path of both tokens ({} points from {} UTC requested), entering at the path's first point; fees earned are not included. For concentrated pools the in-range share is time-weighted between points and assumes a range centred on the first point.",
        window.span,
        apy::utc_date(window.start)
    ));

    // Gas.
    let period = HoldingPeriod {
        days: config.holding_period_days,
        harvest_every_days: config.harvest_every_days,
    };
    let native_price = native.and_then(|n| {
        price_map
            .and_then(|m| m.get(&coin_key(chain, n)))
            .and_then(|p| exact(p.price.as_ref()))
    });
    let units: Option<GasUnits> = kind.map(|(t, _)| net::gas_units(t));
    let gas_result: Result<net::PeriodGas, String> =
        match (units, facts.gas_price_wei, native_price) {
            (None, _, _) => Err(format!(
                "no measured entry/exit/harvest gas for protocol {}",
                row.project
            )),
            (_, None, _) => Err(facts
                .error
                .clone()
                .unwrap_or_else(|| "no gas price".to_owned())),
            (_, _, None) => Err(format!(
                "no native token price from {COINS_PROVIDER}{}",
                price_error
                    .as_ref()
                    .map_or(String::new(), |e| format!(": {e}"))
            )),
            (Some(units), Some(gas_price_wei), Some(native_usd)) => net::period_gas(
                units,
                period,
                GasPrices {
                    gas_price_wei,
                    l1_fee_wei_per_transaction: facts.l1_fee_wei.unwrap_or_default(),
                    native_usd,
                },
            )
            .map_err(|e| e.to_string()),
        };
    let gas =
        Gas {
            pool_type: kind.map(|(t, _)| pool_type_name(t).to_owned()),
            entry_units: units.map(|u| u.entry),
            exit_units: units.map(|u| u.exit),
            harvest_units: units.map(|u| u.harvest),
            units_measured_as: units.map(|u| u.measured_as.to_owned()),
            holding_period_days: period.days,
            harvest_every_days: period.harvest_every_days,
            harvests: gas_result.as_ref().ok().map(|g| g.harvests),
            transactions: gas_result.as_ref().ok().map(|g| g.transactions),
            gas_price_wei: facts.gas_price_wei.map(|p| p.to_string()),
            l1_data_fee_wei_per_transaction: facts.l1_fee_wei.map(|f| f.to_string()),
            l1_data_fee_null_reason: facts.l1_fee_wei.is_none().then(|| {
                facts
                    .l1_reason
                    .clone()
                    .or_else(|| facts.error.clone())
                    .unwrap_or_else(|| "not read".to_owned())
            }),
            native_price_usd: native_price.map(|p| p.to_string()),
            native_price_source: native_price.map(|_| {
                format!(
                    "{COINS_PROVIDER} current price of the wrapped native token{}",
                    prices.as_ref().and_then(|p| p.as_ref().ok()).map_or(
                        String::new(),
                        |p| format!(" ({}, as of {})", p.url, p.as_of)
                    )
                )
            }),
            period_cost_usd: gas_result.as_ref().ok().map(|g| g.cost_usd.to_string()),
            block_number: facts.block,
            null_reason: gas_result.as_ref().err().cloned(),
        };
    assumptions.push(format!(
        "Net APY: the APY minus (entry + exit + harvests) gas in USD per stake, annualised over a holding period of {} days with one harvest every {} days, at the current gas price and native token price{}; gas units per pool type were measured on the devnet's contracts (docs/decisions.md). A stake's price impact on entry is not included.",
        period.days,
        period.harvest_every_days,
        if facts.l1_fee_wei.is_some() { " plus the L1 data fee of a representative transaction per transaction" } else { "" }
    ));

    let advertised = exact(row.apy.as_ref());
    let conservative_value = conservative
        .value_pct
        .as_deref()
        .and_then(|v| Exact::parse(v).ok());
    let net_apy_after_gas = request
        .stake_sizes_usd
        .iter()
        .map(|&stake| {
            let stake_exact = Exact::parse(&format!("{stake}"));
            let figures = match (&gas_result, stake_exact) {
                (Ok(g), Ok(s)) => {
                    let share = |apy: Exact| {
                        net::net_apy_pct(apy, g.cost_usd, s, period.days)
                            .ok()
                            .map(|v| v.to_string())
                    };
                    let gas_share = net::net_apy_pct(Exact::ZERO, g.cost_usd, s, period.days)
                        .ok()
                        .map(|v| v.negated().to_string());
                    Ok((
                        gas_share,
                        advertised.and_then(share),
                        conservative_value.and_then(share),
                    ))
                }
                (Err(reason), _) => Err(reason.clone()),
                (_, Err(error)) => Err(error.to_string()),
            };
            match figures {
                Ok((gas_share, advertised_net, conservative_net)) => NetApy {
                    stake_usd: stake,
                    gas_pct_points_per_year: gas_share,
                    null_reason: match (&advertised_net, &conservative_net) {
                        (None, None) => Some("neither APY is available".to_owned()),
                        (_, None) => Some(format!(
                            "conservative: {}",
                            conservative
                                .null_reason
                                .as_deref()
                                .unwrap_or("not available")
                        )),
                        (None, _) => Some("the directory gives no total APY".to_owned()),
                        _ => None,
                    },
                    advertised_net_pct: advertised_net,
                    conservative_net_pct: conservative_net,
                },
                Err(reason) => NetApy {
                    stake_usd: stake,
                    gas_pct_points_per_year: None,
                    advertised_net_pct: None,
                    conservative_net_pct: None,
                    null_reason: Some(reason),
                },
            }
        })
        .collect();

    Ok(YieldNormalizeAnswer {
        chain,
        pool: DirectoryPool {
            id: row.pool.clone(),
            chain: row.chain.clone(),
            project: row.project.clone(),
            symbol: row.symbol.clone(),
            pool_meta: row.pool_meta.clone(),
            tvl_usd: text(row.tvl_usd.as_ref()),
            volume_usd_1d: text(row.volume_usd_1d.as_ref()),
            underlying_tokens: row.underlying_tokens.clone().unwrap_or_default(),
            reward_tokens: rewards,
            il_risk: row.il_risk.clone(),
            stablecoin: row.stablecoin,
            quote: quote(YIELDS_PROVIDER, &pools, now),
        },
        advertised_apy: text(row.apy.as_ref()),
        apy_base: text(row.apy_base.as_ref()),
        apy_reward: text(row.apy_reward.as_ref()),
        conservative_apy: conservative,
        reward_tokens,
        fee_apr,
        impermanent_loss,
        gas,
        net_apy_after_gas,
        assumptions,
    })
}

fn conservative_null(
    reason: String,
    apy_7d: &Option<String>,
    note: &Option<String>,
) -> ConservativeApy {
    ConservativeApy {
        value_pct: None,
        dates_used: Vec::new(),
        missing_days_in_span: Vec::new(),
        days_without_apy_base: Vec::new(),
        days_available: 0,
        null_reason: Some(reason),
        directory_apy_base_7d: apy_7d.clone(),
        directory_apy_base_7d_note: note.clone(),
        quote: None,
    }
}

fn scenarios() -> Vec<ScenarioOut> {
    il::scenario_table()
        .into_iter()
        .map(
            |Scenario {
                 price_ratio,
                 il_pct,
             }| ScenarioOut {
                price_ratio,
                il_pct,
            },
        )
        .collect()
}

fn impermanent_loss(
    pair: Option<[Address; 2]>,
    path: &Option<Result<Sourced<BTreeMap<String, CoinChart>>, SourceError>>,
    kind: Option<(PoolType, DexId)>,
    chain: Chain,
    now: u64,
) -> ImpermanentLoss {
    let empty = |tokens: Vec<String>, reason: String, quote: Option<Quote>| ImpermanentLoss {
        tokens,
        path_first: None,
        path_last: None,
        path_points: 0,
        price_ratio_at_end: None,
        il_at_end_pct: None,
        worst_il_pct: None,
        worst_at: None,
        ranges: Vec::new(),
        null_reason: Some(reason),
        scenarios: scenarios(),
        quote,
    };
    let Some([a, b]) = pair else {
        return empty(
            Vec::new(),
            "the directory does not give exactly two underlying tokens".to_owned(),
            None,
        );
    };
    let tokens = vec![show(a), show(b)];
    let chart = match path {
        Some(Ok(chart)) => chart,
        Some(Err(error)) => {
            return empty(
                tokens,
                format!("the price path could not be read: {}", source_reason(error)),
                None,
            );
        }
        None => return empty(tokens, "no price path was asked".to_owned(), None),
    };
    let source = Some(quote(COINS_PROVIDER, chart, now));
    let series = |token: Address| -> BTreeMap<u64, f64> {
        chart
            .value
            .get(&coin_key(chain, token))
            .map(|c| {
                c.prices
                    .iter()
                    .filter_map(|p| {
                        Some((
                            (p.timestamp + DAY / 2) / DAY,
                            (p.timestamp, p.price.as_ref()?.to_f64()?),
                        ))
                    })
                    .map(|(day, (_, price))| (day, price))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (sa, sb) = (series(a), series(b));
    let points: Vec<PathPoint> = sa
        .iter()
        .filter_map(|(day, pa)| {
            sb.get(day).map(|pb| PathPoint {
                timestamp: day * DAY,
                price_a_usd: *pa,
                price_b_usd: *pb,
            })
        })
        .collect();
    let figures = match il::path_il(&points) {
        Ok(figures) => figures,
        Err(error) => {
            return empty(
                tokens,
                format!(
                    "the price path has {} day(s) priced for both tokens ({} and {} points): {error}",
                    points.len(),
                    sa.len(),
                    sb.len()
                ),
                source,
            );
        }
    };
    let ranges = if matches!(kind, Some((PoolType::ConcentratedLiquidity, _))) {
        il::RANGE_HALF_WIDTHS_PCT
            .iter()
            .filter_map(|w| il::in_range_share(&points, *w).ok())
            .map(
                |RangeShare {
                     half_width_pct,
                     in_range_pct,
                     il_at_end_pct,
                 }| RangeOut {
                    half_width_pct,
                    in_range_pct,
                    il_at_end_pct,
                },
            )
            .collect()
    } else {
        Vec::new()
    };
    let out = |p: PathPoint| PathPointOut {
        timestamp: p.timestamp,
        price_a_usd: p.price_a_usd,
        price_b_usd: p.price_b_usd,
    };
    ImpermanentLoss {
        tokens,
        path_first: Some(out(figures.first)),
        path_last: Some(out(figures.last)),
        path_points: figures.points,
        price_ratio_at_end: Some(figures.price_ratio_at_end),
        il_at_end_pct: Some(figures.il_at_end_pct),
        worst_il_pct: Some(figures.worst_il_pct),
        worst_at: Some(figures.worst_at),
        ranges,
        null_reason: None,
        scenarios: scenarios(),
        quote: source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_meta_fees_are_exact() {
        assert_eq!(meta_fee_ppm("0.05%"), Some(500));
        assert_eq!(meta_fee_ppm("0.3%"), Some(3_000));
        assert_eq!(meta_fee_ppm("1%"), Some(10_000));
        assert_eq!(meta_fee_ppm("0.01%"), Some(100));
        assert_eq!(meta_fee_ppm("0.00001%"), None);
        assert_eq!(meta_fee_ppm("stable"), None);
    }
}
