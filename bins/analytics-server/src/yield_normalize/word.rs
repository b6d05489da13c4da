//! A yield report as the answer, with every assumption printed.

use oracle_sources::defillama::{COINS_PROVIDER, YIELDS_PROVIDER};
use yield_read::YieldReport;

use super::answer::{DirectoryPool, RewardToken, YieldNormalizeAnswer};
use super::parts::{
    conservative, fee_apr, gas, impermanent_loss, net_apy, quote, reward_token, text,
};
use crate::requests::Chain;

/// The report in the answer's words.
pub(super) fn word(chain: Chain, report: &YieldReport) -> YieldNormalizeAnswer {
    let row = &report.row;
    let conservative_apy = conservative(report);
    let reward_tokens: Vec<RewardToken> = report.rewards.iter().map(reward_token).collect();
    let net_apy_after_gas = report
        .net
        .iter()
        .map(|net| net_apy(net, &conservative_apy))
        .collect();
    YieldNormalizeAnswer {
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
            reward_tokens: row.reward_tokens.clone().unwrap_or_default(),
            il_risk: row.il_risk.clone(),
            stablecoin: row.stablecoin,
            quote: quote(YIELDS_PROVIDER, &report.directory, report.now),
        },
        advertised_apy: text(row.apy.as_ref()),
        apy_base: text(row.apy_base.as_ref()),
        apy_reward: text(row.apy_reward.as_ref()),
        conservative_apy,
        assumptions: assumptions(report, &reward_tokens),
        reward_tokens,
        fee_apr: fee_apr(report),
        impermanent_loss: impermanent_loss(&report.impermanent, report.now),
        gas: gas(report),
        net_apy_after_gas,
    }
}

fn assumptions(report: &YieldReport, reward_tokens: &[RewardToken]) -> Vec<String> {
    let mut assumptions = vec![
        "Directory figures (APYs, TVL, 24 h volume) are DefiLlama's as given, in percent and USD; nothing here is a forecast or a recommendation.".to_owned(),
        "conservative_apy is the mean of the last seven daily apyBase points of the directory's /chart history (the latest it has, whatever the chain's clock says), emissions excluded; days are UTC, a day with several points counts with its latest.".to_owned(),
    ];
    if !reward_tokens.is_empty() {
        assumptions.push(format!(
            "Reward tokens are valued at their {COINS_PROVIDER} price at call time (price_usd with its as_of); apy_reward assumes emissions continue at that price, and no end of emissions is known."
        ));
        for reward in reward_tokens {
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
    assumptions.push("fee_apr: 24 h volume × fee × 365 / TVL × 100 with the directory's volume and TVL, computed exactly in decimals (one rounding toward zero at 18 places); the fee is the pool contract's where the chain was read, otherwise the directory's poolMeta, as fee_source says.".to_owned());
    assumptions.push(format!(
        "Impermanent loss uses the constant-product formula 2√r/(1+r) − 1 on the {COINS_PROVIDER} daily USD price path of both tokens ({} points from {} UTC requested), entering at the path's first point; fees earned are not included. For concentrated pools the in-range share is time-weighted between points and assumes a range centred on the first point.",
        report.window.span,
        yield_model::apy::utc_date(report.window.start)
    ));
    assumptions.push(format!(
        "Net APY: the APY minus (entry + exit + harvests) gas in USD per stake, annualised over a holding period of {} days with one harvest every {} days, at the current gas price and native token price{}; gas units per pool type were measured on the devnet's contracts (docs/decisions.md). A stake's price impact on entry is not included.",
        report.period.days,
        report.period.harvest_every_days,
        if report.facts.l1_fee_wei.is_some() {
            " plus the L1 data fee of a representative transaction per transaction"
        } else {
            ""
        }
    ));
    assumptions
}
