#![doc = include_str!("../README.md")]

mod chain;
mod figures;

use std::collections::BTreeMap;

use alloy::primitives::Address;
use chain_read::{Chain, ChainClient, ChainInfo, DexId, PinnedReader};
use oracle_sources::defillama::{
    ChartPoint, ChartWindow, CoinChart, CoinPrice, PoolLookupError, YieldPool, find_pool,
};
use oracle_sources::{SourceError, Sourced, Sources};
use serde::{Deserialize, Serialize};
use yield_model::Decimal;
use yield_model::apy::ConservativeApy;
use yield_model::net::{GasUnits, HoldingPeriod, PeriodGas, PoolType};

pub use chain::{ChainFacts, ChainProblem, FeeNote, L1Note, read_chain};
pub use figures::{
    ConservativeMissing, FeeAprMissing, FeeFigures, FeeSource, GasMissing, IlMissing, Impermanent,
    NetFigures, NetMissing, NetTriple, RewardPrice, RewardPriceMissing,
};

/// Seconds in a day.
pub const DAY: u64 = 86_400;

/// The protocols whose pools the service models, as the directory names them.
pub const MODELLED_PROTOCOLS: &str =
    "uniswap-v2, sushiswap, uniswap-v3, pancakeswap-amm-v3, aerodrome-v1, velodrome-v2";

/// The holding period, harvests and price path of a report (`[yield_normalize]` of the
/// analytics configuration).
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

/// What to report on.
#[derive(Debug, Clone, PartialEq)]
pub struct YieldRequest {
    /// The pool's chain.
    pub chain: Chain,
    /// The protocol id as the directory names it.
    pub protocol: String,
    /// The directory's pool id (a UUID) or the pool's symbol.
    pub pool: String,
    /// Stakes in USD for the net figures.
    pub stake_sizes_usd: Vec<f64>,
}

/// Why no report could be made.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The directory could not be read.
    #[error("the yield directory could not be read ({0})")]
    Directory(SourceError),
    /// The directory has no single row for the request.
    #[error(transparent)]
    Lookup(#[from] PoolLookupError),
}

impl ReportError {
    /// This error's [`ErrorKind`](chain_read::ErrorKind): the directory down is the provider
    /// failing, whatever the failure (without the directory there is no report); a lookup's
    /// own kind otherwise.
    pub fn kind(&self) -> chain_read::ErrorKind {
        match self {
            Self::Directory(_) => chain_read::ErrorKind::Unreachable,
            Self::Lookup(error) => error.kind(),
        }
    }
}

/// Where a foreign value was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The URL asked.
    pub url: String,
    /// Unix seconds the value is as of.
    pub as_of: u64,
}

impl Source {
    fn of<T>(sourced: &Sourced<T>) -> Self {
        Self {
            url: sourced.url.clone(),
            as_of: sourced.as_of,
        }
    }
}

/// Everything `/yield/normalize` answers with, before wording.
#[derive(Debug)]
pub struct YieldReport {
    /// The clock of the report (Unix seconds): ages and the price path's window count from it.
    pub now: u64,
    /// Where the directory was read.
    pub directory: Source,
    /// The directory's row.
    pub row: YieldPool,
    /// The pool type and DEX of the row's protocol, when the service models it.
    pub kind: Option<(PoolType, DexId)>,
    /// Where the history was read and the conservative APY, or why there is none.
    pub conservative: Result<(Source, ConservativeApy), ConservativeMissing>,
    /// Each reward token of the row with its price, in the row's order.
    pub rewards: Vec<RewardPrice>,
    /// The current prices asked (reward, native and underlying tokens).
    pub prices: Option<Result<Sourced<BTreeMap<String, CoinPrice>>, SourceError>>,
    /// What the chain gave.
    pub facts: ChainFacts,
    /// The fee APR recomputed.
    pub fee: FeeFigures,
    /// The window of the price path asked.
    pub window: ChartWindow,
    /// Impermanent loss on the path.
    pub impermanent: Impermanent,
    /// The holding period.
    pub period: HoldingPeriod,
    /// Gas units of entry, exit and harvest of the pool type.
    pub units: Option<GasUnits>,
    /// The wrapped native token's USD price.
    pub native_price: Option<Decimal>,
    /// The gas of the period, or why it is not priced.
    pub gas: Result<PeriodGas, GasMissing>,
    /// The net figures per stake, in the request's order.
    pub net: Vec<NetFigures>,
}

/// The pool type and DEX of a directory protocol id the service has measured gas for.
pub fn protocol_kind(project: &str) -> Option<(PoolType, DexId)> {
    Some(match project.to_ascii_lowercase().as_str() {
        "uniswap-v2" => (PoolType::ConstantProduct, DexId::UniswapV2),
        "sushiswap" => (PoolType::ConstantProduct, DexId::SushiswapV2),
        "uniswap-v3" => (PoolType::ConcentratedLiquidity, DexId::UniswapV3),
        "pancakeswap-amm-v3" => (PoolType::ConcentratedLiquidity, DexId::PancakeswapV3),
        "aerodrome-v1" => (PoolType::Solidly, DexId::Aerodrome),
        // DefiLlama's yield-server `src/adaptors/aerodrome-slipstream` (pools by their
        // address). Its position manager is a fork of Uniswap V3's, whose gas is measured.
        "aerodrome-slipstream" => (PoolType::ConcentratedLiquidity, DexId::AerodromeSlipstream),
        "velodrome-v2" => (PoolType::Solidly, DexId::Velodrome),
        _ => return None,
    })
}

/// The DEX of a directory protocol whose pool's fee the chain gives, but whose position gas
/// is not measured (so no pool type): Balancer V2 (DefiLlama yield-server
/// `src/adaptors/balancer-v2`, pools keyed by pool id), whose swap fee is read at the block.
pub fn fee_only_dex(project: &str) -> Option<DexId> {
    match project.to_ascii_lowercase().as_str() {
        "balancer-v2" => Some(DexId::BalancerV2),
        _ => None,
    }
}

/// The addresses among directory token texts (others are left out).
fn addresses<'a>(texts: impl IntoIterator<Item = &'a String>) -> Vec<Address> {
    texts.into_iter().filter_map(|t| t.parse().ok()).collect()
}

/// The directory's, the coins API's and the chain's figures of the pool `request` names, and
/// what `yield-model` computes on them. `chain` is the chain's registry entry and `client`
/// its RPC client (`None`: no endpoint, said in [`ChainFacts::problem`]).
pub async fn report(
    sources: &Sources,
    chain: Option<&ChainInfo>,
    client: Option<&ChainClient>,
    request: &YieldRequest,
    config: &YieldConfig,
) -> Result<YieldReport, ReportError> {
    let pools = sources
        .defillama_yields()
        .pools()
        .await
        .map_err(ReportError::Directory)?;
    let now = oracle_sources::unix_now();
    let row = find_pool(
        &pools.value,
        request.chain,
        &request.protocol,
        &request.pool,
    )?
    .clone();
    let kind = protocol_kind(&row.project);
    let asked = figures::Asked::new(&row, request.chain, chain, config, now);

    let history = sources.defillama_yields().chart(&row.pool);
    let prices = async {
        if asked.priced.is_empty() {
            None
        } else {
            Some(
                sources
                    .defillama_coins()
                    .current_prices(&asked.priced)
                    .await,
            )
        }
    };
    let path = async {
        if asked.path_tokens.is_empty() {
            None
        } else {
            Some(
                sources
                    .defillama_coins()
                    .chart(&asked.path_tokens, &asked.window)
                    .await,
            )
        }
    };
    let chain_facts = async {
        match (chain, client) {
            (Some(info), Some(client)) => {
                let reader = PinnedReader::for_chain(client.clone(), info);
                let dex = kind
                    .map(|(_, dex)| dex)
                    .or_else(|| fee_only_dex(&row.project));
                read_chain(info, &reader, &row, dex).await
            }
            _ => ChainFacts {
                problem: Some(ChainProblem::NoEndpoint(request.chain)),
                ..ChainFacts::default()
            },
        }
    };
    let (history, prices, path, facts) = tokio::join!(history, prices, path, chain_facts);
    Ok(figures::compute(
        figures::Read {
            now,
            directory: Source::of(&pools),
            row,
            kind,
            history,
            prices,
            path,
            facts,
        },
        asked,
        request,
        config,
    ))
}

/// The history of the directory's pool as the conservative APY reads it.
fn history_points(chart: &[ChartPoint]) -> Vec<yield_model::apy::DailyApy> {
    chart
        .iter()
        .map(|p| yield_model::apy::DailyApy {
            timestamp: p.timestamp,
            apy_base: figures::exact(p.apy_base.as_ref()),
        })
        .collect()
}

/// The price path's charts, keyed as the coins API keys them.
type PathCharts = BTreeMap<String, CoinChart>;
