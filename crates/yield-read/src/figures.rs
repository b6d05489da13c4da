//! `yield-model`'s figures on what was read, each with the typed reason when it has none.

use std::collections::BTreeMap;

use alloy::primitives::Address;
use chain_read::{Chain, ChainInfo, DexContracts, DexId};
use oracle_sources::defillama::{
    COINS_PROVIDER, ChartPoint, ChartWindow, CoinPrice, YieldPool, coins_chain, meta_fee_ppm,
};
use oracle_sources::{ProviderNumber, SourceError, Sourced};
use yield_model::apy;
use yield_model::il::{self, PathIl, PathPoint, RangeShare};
use yield_model::net::{self, GasPrices, GasUnits, HoldingPeriod, PeriodGas, PoolType};
use yield_model::{Decimal, YieldModelError, figure};

use crate::{
    ChainFacts, ChainProblem, DAY, FeeNote, MODELLED_PROTOCOLS, PathCharts, Source, YieldConfig,
    YieldReport, YieldRequest, addresses, history_points, protocol_kind,
};

/// Why there is no conservative APY.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ConservativeMissing {
    /// The history's figures do not add up.
    #[error("the history's figures could not be added: {0}")]
    Figures(YieldModelError),
    /// The history could not be read.
    #[error("the directory's history could not be read: {0}")]
    History(SourceError),
}

/// Why a reward token has no price.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RewardPriceMissing {
    /// The directory's text is not an address.
    #[error("{0:?} is not an address the coins API prices")]
    NotAnAddress(String),
    /// The coins API could not be read.
    #[error("{COINS_PROVIDER}: {0}")]
    Source(SourceError),
    /// The coins API does not price it.
    #[error("{COINS_PROVIDER} does not price it")]
    NotPriced,
}

/// A reward token and its price at call time.
#[derive(Debug, Clone)]
pub struct RewardPrice {
    /// The address as the directory gives it.
    pub token: String,
    /// Its row in the coins API's answer, when it has one (with or without a price).
    pub coin: Option<CoinPrice>,
    /// Why there is no price.
    pub missing: Option<RewardPriceMissing>,
}

/// Where the fee of the fee APR comes from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FeeSource {
    /// The chain, as the note says.
    #[error("{0}")]
    Chain(FeeNote),
    /// The directory's `poolMeta`, the chain having given none.
    #[error(
        "the directory's poolMeta {meta:?} ({})",
        chain.as_ref().map_or_else(|| "the chain gave no fee".to_owned(), |e| format!("the chain gave no fee: {e}"))
    )]
    PoolMeta {
        /// The text.
        meta: String,
        /// Why the chain gave no fee.
        chain: Option<String>,
    },
    /// The registry's fixed fee of the protocol's constant-product pairs, the chain having
    /// given no pair and the directory no fee.
    #[error(
        "the protocol's fixed fee of constant-product pairs ({}.{:02} %); the chain gave no pair",
        .0 / 100, .0 % 100
    )]
    ProtocolFixed(u32),
}

/// Why the fee APR was not recomputed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FeeAprMissing {
    /// The protocol is not one the service models.
    #[error("{0} is not an AMM protocol the service models ({MODELLED_PROTOCOLS})")]
    NotModelled(String),
    /// No fee from the chain or the directory.
    #[error(
        "no fee: the directory's poolMeta gives none{}",
        chain.as_ref().map_or(String::new(), |e| format!(" and the chain gave none ({e})"))
    )]
    NoFee {
        /// Why the chain gave none.
        chain: Option<String>,
    },
    /// No 24 h volume in the directory.
    #[error("the directory gives no 24 h volume (volumeUsd1d) for the pool")]
    NoVolume,
    /// No TVL in the directory.
    #[error("the directory gives no TVL for the pool")]
    NoTvl,
    /// The arithmetic refused.
    #[error(transparent)]
    Model(YieldModelError),
}

/// The fee APR recomputed and its inputs.
#[derive(Debug, Clone)]
pub struct FeeFigures {
    /// The fee, ppm.
    pub fee_ppm: Option<u32>,
    /// Where it comes from.
    pub fee_source: Option<FeeSource>,
    /// `volume × fee × 365 / TVL × 100`, percent.
    pub recomputed: Result<Decimal, FeeAprMissing>,
    /// `recomputed − the directory's base APY`, percentage points.
    pub deviation: Option<Decimal>,
}

/// Why there is no impermanent loss on the path.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum IlMissing {
    /// Not exactly two underlying tokens.
    #[error("the directory does not give exactly two underlying tokens")]
    NotTwoTokens,
    /// The path could not be read.
    #[error("the price path could not be read: {0}")]
    Path(SourceError),
    /// No path was asked.
    #[error("no price path was asked")]
    NotAsked,
    /// The path's points do not make a path.
    #[error(
        "the price path has {both} day(s) priced for both tokens ({a} and {b} points): {error}"
    )]
    Points {
        /// Days priced for both tokens.
        both: usize,
        /// Days priced for token A.
        a: usize,
        /// Days priced for token B.
        b: usize,
        /// Why.
        error: YieldModelError,
    },
}

/// Impermanent loss on the price path of the two underlying tokens.
#[derive(Debug, Clone)]
pub struct Impermanent {
    /// Token A and B (empty without two underlying tokens).
    pub tokens: Vec<Address>,
    /// Where the path was read.
    pub source: Option<Source>,
    /// The path's figures and, for a concentrated pool, the in-range share per range.
    pub path: Result<(PathIl, Vec<RangeShare>), IlMissing>,
}

/// Why the gas of the period is not priced.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum GasMissing {
    /// The protocol's transactions were not measured.
    #[error("no measured entry/exit/harvest gas for protocol {0}")]
    NotMeasured(String),
    /// No gas price.
    #[error("{}", .0.as_ref().map_or_else(|| "no gas price".to_owned(), ToString::to_string))]
    NoGasPrice(Option<ChainProblem>),
    /// No price of the wrapped native token.
    #[error(
        "no native token price from {COINS_PROVIDER}{}",
        .0.as_ref().map_or(String::new(), |e| format!(": {e}"))
    )]
    NoNativePrice(Option<SourceError>),
    /// The arithmetic refused.
    #[error(transparent)]
    Model(YieldModelError),
}

/// The net figures of one stake.
#[derive(Debug, Clone)]
pub struct NetFigures {
    /// The stake, USD.
    pub stake_usd: f64,
    /// The period's gas per year as percentage points of the stake (positive), and the
    /// advertised and conservative APYs net of it; or why none.
    pub figures: Result<NetTriple, NetMissing>,
}

/// Why a stake has no net figures.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum NetMissing {
    /// The gas of the period is not priced.
    #[error(transparent)]
    Gas(GasMissing),
    /// The stake is not a decimal number.
    #[error(transparent)]
    Stake(YieldModelError),
}

/// A provider's number as an exact decimal, when it is one.
pub(crate) fn exact(number: Option<&ProviderNumber>) -> Option<Decimal> {
    number.and_then(|n| figure::parse(n.as_str()).ok())
}

fn coin_key(chain: Chain, address: Address) -> String {
    format!("{}:{address:#x}", coins_chain(chain))
}

/// What the report asks the coins API for.
pub(crate) struct Asked {
    pub(crate) priced: Vec<(Chain, Address)>,
    pub(crate) path_tokens: Vec<(Chain, Address)>,
    pub(crate) window: ChartWindow,
    pair: Option<[Address; 2]>,
    native: Option<Address>,
    /// The registry's fee of the protocol's constant-product pairs on the chain.
    pair_fee_bps: Option<u32>,
}

impl Asked {
    pub(crate) fn new(
        row: &YieldPool,
        chain: Chain,
        info: Option<&ChainInfo>,
        config: &YieldConfig,
        now: u64,
    ) -> Self {
        let underlying = addresses(row.underlying_tokens.iter().flatten());
        let native = info.map(ChainInfo::wrapped_native);
        let mut priced: Vec<(Chain, Address)> = Vec::new();
        for address in addresses(row.reward_tokens.iter().flatten())
            .into_iter()
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
        let pair = match underlying.as_slice() {
            [a, b] => Some([*a, *b]),
            _ => None,
        };
        let path_tokens = pair
            .map(|p| p.iter().map(|a| (chain, *a)).collect())
            .unwrap_or_default();
        let pair_fee_bps = protocol_kind(&row.project)
            .and_then(|(_, dex)| info?.dex(dex))
            .and_then(|dex| match dex.contracts {
                DexContracts::ConstantProduct { fee_bps, .. } => Some(fee_bps),
                _ => None,
            });
        Self {
            priced,
            path_tokens,
            window,
            pair,
            native,
            pair_fee_bps,
        }
    }
}

/// What was read.
pub(crate) struct Read {
    pub(crate) now: u64,
    pub(crate) directory: Source,
    pub(crate) row: YieldPool,
    pub(crate) kind: Option<(PoolType, DexId)>,
    pub(crate) history: Result<Sourced<Vec<ChartPoint>>, SourceError>,
    pub(crate) prices: Option<Result<Sourced<BTreeMap<String, CoinPrice>>, SourceError>>,
    pub(crate) path: Option<Result<Sourced<PathCharts>, SourceError>>,
    pub(crate) facts: ChainFacts,
}

/// Every figure of the report.
pub(crate) fn compute(
    read: Read,
    asked: Asked,
    request: &YieldRequest,
    config: &YieldConfig,
) -> YieldReport {
    let Read {
        now,
        directory,
        row,
        kind,
        history,
        prices,
        path,
        facts,
    } = read;
    let chain = request.chain;
    let conservative = match &history {
        Ok(chart) => apy::conservative_apy(&history_points(&chart.value))
            .map(|c| (Source::of(chart), c))
            .map_err(ConservativeMissing::Figures),
        Err(error) => Err(ConservativeMissing::History(error.clone())),
    };
    let price_map = prices
        .as_ref()
        .and_then(|p| p.as_ref().ok())
        .map(|p| &*p.value);
    let price_error = prices.as_ref().and_then(|p| p.as_ref().err());
    let rewards = row
        .reward_tokens
        .iter()
        .flatten()
        .map(|token| reward(token, chain, price_map, price_error))
        .collect();
    let fee = fee_figures(&row, kind, &facts, asked.pair_fee_bps);
    let impermanent = impermanent(asked.pair, path, kind, chain);
    let period = HoldingPeriod {
        days: config.holding_period_days,
        harvest_every_days: config.harvest_every_days,
    };
    let native_price = asked.native.and_then(|n| {
        price_map
            .and_then(|m| m.get(&coin_key(chain, n)))
            .and_then(|p| exact(p.price.as_ref()))
    });
    let units: Option<GasUnits> = kind.map(|(t, _)| net::gas_units(t));
    let gas = match (units, facts.gas_price_wei, native_price) {
        (None, _, _) => Err(GasMissing::NotMeasured(row.project.clone())),
        (_, None, _) => Err(GasMissing::NoGasPrice(facts.problem.clone())),
        (_, _, None) => Err(GasMissing::NoNativePrice(price_error.cloned())),
        (Some(units), Some(gas_price_wei), Some(native_usd)) => net::period_gas(
            units,
            period,
            GasPrices {
                gas_price_wei,
                l1_fee_wei_per_transaction: facts.l1_fee_wei.unwrap_or_default(),
                native_usd,
            },
        )
        .map_err(GasMissing::Model),
    };
    let advertised = exact(row.apy.as_ref());
    let conservative_value = conservative.as_ref().ok().and_then(|(_, c)| c.value_pct);
    let net = request
        .stake_sizes_usd
        .iter()
        .map(|&stake| NetFigures {
            stake_usd: stake,
            figures: net_figures(&gas, stake, period, advertised, conservative_value),
        })
        .collect();
    YieldReport {
        now,
        directory,
        row,
        kind,
        conservative,
        rewards,
        prices,
        facts,
        fee,
        window: asked.window,
        impermanent,
        period,
        units,
        native_price,
        gas,
        net,
    }
}

fn reward(
    token: &str,
    chain: Chain,
    price_map: Option<&BTreeMap<String, CoinPrice>>,
    price_error: Option<&SourceError>,
) -> RewardPrice {
    let address: Option<Address> = token.parse().ok();
    let coin = address
        .map(|a| coin_key(chain, a))
        .and_then(|key| price_map.and_then(|m| m.get(&key)));
    let missing = match (coin, address, price_error) {
        (Some(p), _, _) if p.price.is_some() => None,
        (_, None, _) => Some(RewardPriceMissing::NotAnAddress(token.to_owned())),
        (_, _, Some(error)) => Some(RewardPriceMissing::Source(error.clone())),
        _ => Some(RewardPriceMissing::NotPriced),
    };
    RewardPrice {
        token: token.to_owned(),
        coin: coin.cloned(),
        missing,
    }
}

fn fee_figures(
    row: &YieldPool,
    kind: Option<(PoolType, DexId)>,
    facts: &ChainFacts,
    pair_fee_bps: Option<u32>,
) -> FeeFigures {
    let meta_fee = row.pool_meta.as_deref().and_then(meta_fee_ppm);
    // Why the chain gave no fee: its failure first, else what its read found.
    let chain_note = || {
        facts
            .problem
            .as_ref()
            .map(ToString::to_string)
            .or_else(|| facts.fee_note.as_ref().map(ToString::to_string))
    };
    let (fee_ppm, fee_source) = match (facts.fee_ppm, meta_fee, kind, pair_fee_bps) {
        (Some(ppm), _, _, _) => (Some(ppm), facts.fee_note.clone().map(FeeSource::Chain)),
        (None, Some(ppm), _, _) => (
            Some(ppm),
            Some(FeeSource::PoolMeta {
                meta: row.pool_meta.clone().unwrap_or_default(),
                chain: chain_note(),
            }),
        ),
        (None, None, Some((PoolType::ConstantProduct, _)), Some(bps)) => {
            (Some(bps * 100), Some(FeeSource::ProtocolFixed(bps)))
        }
        _ => (None, None),
    };
    let volume = exact(row.volume_usd_1d.as_ref());
    let tvl = exact(row.tvl_usd.as_ref());
    let recomputed = match (kind, fee_ppm, volume, tvl) {
        (None, _, _, _) => Err(FeeAprMissing::NotModelled(row.project.clone())),
        (_, None, _, _) => Err(FeeAprMissing::NoFee {
            chain: chain_note(),
        }),
        (_, _, None, _) => Err(FeeAprMissing::NoVolume),
        (_, _, _, None) => Err(FeeAprMissing::NoTvl),
        (Some(_), Some(ppm), Some(volume), Some(tvl)) => {
            apy::fee_apr_pct(volume, ppm, tvl).map_err(FeeAprMissing::Model)
        }
    };
    let deviation = match (&recomputed, exact(row.apy_base.as_ref())) {
        (Ok(r), Some(d)) => figure::sub(*r, d).ok(),
        _ => None,
    };
    FeeFigures {
        fee_ppm,
        fee_source,
        recomputed,
        deviation,
    }
}

fn impermanent(
    pair: Option<[Address; 2]>,
    path: Option<Result<Sourced<PathCharts>, SourceError>>,
    kind: Option<(PoolType, DexId)>,
    chain: Chain,
) -> Impermanent {
    let Some([a, b]) = pair else {
        return Impermanent {
            tokens: Vec::new(),
            source: None,
            path: Err(IlMissing::NotTwoTokens),
        };
    };
    let missing = |reason, source| Impermanent {
        tokens: vec![a, b],
        source,
        path: Err(reason),
    };
    let chart = match path {
        Some(Ok(chart)) => chart,
        Some(Err(error)) => return missing(IlMissing::Path(error), None),
        None => return missing(IlMissing::NotAsked, None),
    };
    let source = Some(Source::of(&chart));
    let series = |token: Address| -> BTreeMap<u64, f64> {
        chart
            .value
            .get(&coin_key(chain, token))
            .map(|c| {
                c.prices
                    .iter()
                    // Points are dated to the nearest UTC day.
                    .filter_map(|p| {
                        Some(((p.timestamp + DAY / 2) / DAY, p.price.as_ref()?.to_f64()?))
                    })
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
            let reason = IlMissing::Points {
                both: points.len(),
                a: sa.len(),
                b: sb.len(),
                error,
            };
            return missing(reason, source);
        }
    };
    let ranges = if matches!(kind, Some((PoolType::ConcentratedLiquidity, _))) {
        il::RANGE_HALF_WIDTHS_PCT
            .iter()
            .filter_map(|w| il::in_range_share(&points, *w).ok())
            .collect()
    } else {
        Vec::new()
    };
    Impermanent {
        tokens: vec![a, b],
        source,
        path: Ok((figures, ranges)),
    }
}

/// The period's gas per year as percentage points of a stake, and the advertised and
/// conservative APYs net of it.
pub type NetTriple = (Option<Decimal>, Option<Decimal>, Option<Decimal>);

fn net_figures(
    gas: &Result<PeriodGas, GasMissing>,
    stake: f64,
    period: HoldingPeriod,
    advertised: Option<Decimal>,
    conservative: Option<Decimal>,
) -> Result<NetTriple, NetMissing> {
    let stake = figure::parse(&format!("{stake}"));
    match (gas, stake) {
        (Ok(g), Ok(s)) => {
            let share = |apy: Decimal| net::net_apy_pct(apy, g.cost_usd, s, period.days).ok();
            let gas_share = net::net_apy_pct(Decimal::ZERO, g.cost_usd, s, period.days)
                .ok()
                .map(Decimal::negated);
            Ok((
                gas_share,
                advertised.and_then(share),
                conservative.and_then(share),
            ))
        }
        (Err(reason), _) => Err(NetMissing::Gas(reason.clone())),
        (_, Err(error)) => Err(NetMissing::Stake(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_figures_say_why_in_the_answers_words() {
        assert_eq!(
            FeeAprMissing::NoFee { chain: None }.to_string(),
            "no fee: the directory's poolMeta gives none"
        );
        assert_eq!(
            FeeAprMissing::NoFee {
                chain: Some("no RPC endpoint is configured for base".to_owned())
            }
            .to_string(),
            "no fee: the directory's poolMeta gives none and the chain gave none (no RPC endpoint is configured for base)"
        );
        assert_eq!(
            FeeSource::PoolMeta {
                meta: "0.05%".to_owned(),
                chain: None
            }
            .to_string(),
            "the directory's poolMeta \"0.05%\" (the chain gave no fee)"
        );
        assert_eq!(
            FeeSource::ProtocolFixed(30).to_string(),
            "the protocol's fixed fee of constant-product pairs (0.30 %); the chain gave no pair"
        );
        assert_eq!(GasMissing::NoGasPrice(None).to_string(), "no gas price");
        assert_eq!(
            GasMissing::NoNativePrice(None).to_string(),
            "no native token price from DefiLlama coins"
        );
    }

    #[test]
    fn a_constant_product_pool_without_chain_or_meta_takes_the_registry_fee() {
        let row = YieldPool {
            project: "uniswap-v2".to_owned(),
            ..YieldPool::default()
        };
        let fee = fee_figures(
            &row,
            crate::protocol_kind("uniswap-v2"),
            &ChainFacts::default(),
            Some(30),
        );
        assert_eq!(fee.fee_ppm, Some(3_000));
        assert_eq!(fee.fee_source, Some(FeeSource::ProtocolFixed(30)));
        // No volume: the APR is not recomputed, and says so.
        assert!(matches!(fee.recomputed, Err(FeeAprMissing::NoVolume)));
    }
}
