//! The parts of the answer, each from one figure of the report and its reason.

use oracle_sources::defillama::{COINS_PROVIDER, YIELDS_PROVIDER};
use yield_model::il::{self, PathPoint, RangeShare, Scenario};
use yield_model::net::PoolType;
use yield_read::{Impermanent, NetFigures, RewardPrice, Source, YieldReport};

use super::answer::{
    ConservativeApy, FeeApr, Gas, ImpermanentLoss, NetApy, PathPointOut, Quote, RangeOut,
    RewardToken, ScenarioOut,
};
use crate::answer::show;

/// A foreign value's source as answers print it, aged against the report's clock.
pub(super) fn quote(source: &str, from: &Source, now: u64) -> Quote {
    Quote {
        source: source.to_owned(),
        url: from.url.clone(),
        as_of: from.as_of,
        age_seconds: now.saturating_sub(from.as_of),
    }
}

pub(super) fn text(number: Option<&oracle_sources::ProviderNumber>) -> Option<String> {
    number.map(ToString::to_string)
}

pub(super) fn conservative(report: &YieldReport) -> ConservativeApy {
    let directory_apy_base_7d = text(report.row.apy_base_7d.as_ref());
    let note = directory_apy_base_7d.as_ref().map(|_| match report.kind {
        Some((PoolType::ConcentratedLiquidity, _)) => "The directory's apyBase7d is not a trailing average of daily base APYs: for concentrated-liquidity pools DefiLlama simulates a 100k USD position in a ±30 % range (±0.1 % for stable pairs) on 7-day volume annualised ×52.".to_owned(),
        _ => "The directory's apyBase7d is not a trailing average of daily base APYs: it is 7-day volume × fee annualised ×52 over current TVL.".to_owned(),
    });
    match &report.conservative {
        Ok((source, c)) => ConservativeApy {
            value_pct: c.value_pct.map(|v| v.to_string()),
            dates_used: c.dates_used.clone(),
            missing_days_in_span: c.missing_days_in_span.clone(),
            days_without_apy_base: c.days_without_apy_base.clone(),
            days_available: c.days_available,
            null_reason: c.null_reason.clone(),
            directory_apy_base_7d,
            directory_apy_base_7d_note: note,
            quote: Some(quote(YIELDS_PROVIDER, source, report.now)),
        },
        Err(reason) => ConservativeApy {
            value_pct: None,
            dates_used: Vec::new(),
            missing_days_in_span: Vec::new(),
            days_without_apy_base: Vec::new(),
            days_available: 0,
            null_reason: Some(reason.to_string()),
            directory_apy_base_7d,
            directory_apy_base_7d_note: note,
            quote: None,
        },
    }
}

pub(super) fn reward_token(reward: &RewardPrice) -> RewardToken {
    let coin = reward.coin.as_ref();
    RewardToken {
        token: reward.token.clone(),
        symbol: coin.and_then(|p| p.symbol.clone()),
        price_usd: coin.and_then(|p| text(p.price.as_ref())),
        price_as_of: coin.map(|p| p.timestamp),
        price_null_reason: reward.missing.as_ref().map(ToString::to_string),
        emission_end: None,
        emission_end_null_reason: "the directory does not publish the end of emission schedules"
            .to_owned(),
    }
}

pub(super) fn fee_apr(report: &YieldReport) -> FeeApr {
    let fee = &report.fee;
    FeeApr {
        recomputed_pct: fee.recomputed.as_ref().ok().map(ToString::to_string),
        volume_usd_24h: text(report.row.volume_usd_1d.as_ref()),
        tvl_usd: text(report.row.tvl_usd.as_ref()),
        fee_ppm: fee.fee_ppm,
        fee_source: fee.fee_source.as_ref().map(ToString::to_string),
        directory_apy_base_pct: text(report.row.apy_base.as_ref()),
        deviation_pct_points: fee.deviation.map(|d| d.to_string()),
        statement: "A zero deviation means the directory's base APY is consistent with its own volume, fee and TVL, not an independent confirmation: the inputs are the directory's.".to_owned(),
        null_reason: fee.recomputed.as_ref().err().map(ToString::to_string),
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

pub(super) fn impermanent_loss(il: &Impermanent, now: u64) -> ImpermanentLoss {
    let tokens: Vec<String> = il.tokens.iter().map(|t| show(*t)).collect();
    let source = il.source.as_ref().map(|s| quote(COINS_PROVIDER, s, now));
    let (figures, ranges) = match &il.path {
        Ok(path) => path,
        Err(reason) => {
            return ImpermanentLoss {
                tokens,
                path_first: None,
                path_last: None,
                path_points: 0,
                price_ratio_at_end: None,
                il_at_end_pct: None,
                worst_il_pct: None,
                worst_at: None,
                ranges: Vec::new(),
                null_reason: Some(reason.to_string()),
                scenarios: scenarios(),
                quote: source,
            };
        }
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
        ranges: ranges
            .iter()
            .map(
                |&RangeShare {
                     half_width_pct,
                     in_range_pct,
                     il_at_end_pct,
                 }| RangeOut {
                    half_width_pct,
                    in_range_pct,
                    il_at_end_pct,
                },
            )
            .collect(),
        null_reason: None,
        scenarios: scenarios(),
        quote: source,
    }
}

pub(super) fn gas(report: &YieldReport) -> Gas {
    let facts = &report.facts;
    let units = report.units;
    let gas = &report.gas;
    Gas {
        pool_type: report.kind.map(|(_, dex)| dex.kind().as_str().to_owned()),
        entry_units: units.map(|u| u.entry),
        exit_units: units.map(|u| u.exit),
        harvest_units: units.map(|u| u.harvest),
        units_measured_as: units.map(|u| u.measured_as.to_owned()),
        holding_period_days: report.period.days,
        harvest_every_days: report.period.harvest_every_days,
        harvests: gas.as_ref().ok().map(|g| g.harvests),
        transactions: gas.as_ref().ok().map(|g| g.transactions),
        gas_price_wei: facts.gas_price_wei.map(|p| p.to_string()),
        l1_data_fee_wei_per_transaction: facts.l1_fee_wei.map(|f| f.to_string()),
        l1_data_fee_null_reason: facts.l1_fee_wei.is_none().then(|| {
            facts
                .l1_note
                .as_ref()
                .map(ToString::to_string)
                .or_else(|| facts.problem.as_ref().map(ToString::to_string))
                .unwrap_or_else(|| "not read".to_owned())
        }),
        native_price_usd: report.native_price.map(|p| p.to_string()),
        native_price_source: report.native_price.map(|_| {
            format!(
                "{COINS_PROVIDER} current price of the wrapped native token{}",
                report.prices.as_ref().and_then(|p| p.as_ref().ok()).map_or(
                    String::new(),
                    |p| format!(" ({}, as of {})", p.url, p.as_of)
                )
            )
        }),
        period_cost_usd: gas.as_ref().ok().map(|g| g.cost_usd.to_string()),
        block_number: facts.block,
        null_reason: gas.as_ref().err().map(ToString::to_string),
    }
}

pub(super) fn net_apy(net: &NetFigures, conservative: &ConservativeApy) -> NetApy {
    match &net.figures {
        Ok((gas_share, advertised, conservative_net)) => NetApy {
            stake_usd: net.stake_usd,
            gas_pct_points_per_year: gas_share.map(|v| v.to_string()),
            null_reason: match (advertised, conservative_net) {
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
            advertised_net_pct: advertised.map(|v| v.to_string()),
            conservative_net_pct: conservative_net.map(|v| v.to_string()),
        },
        Err(reason) => NetApy {
            stake_usd: net.stake_usd,
            gas_pct_points_per_year: None,
            advertised_net_pct: None,
            conservative_net_pct: None,
            null_reason: Some(reason.to_string()),
        },
    }
}
