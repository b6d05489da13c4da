//! Mitigations as numbers, as the answer shows them.

use dex_route::mev::Assessment;
use schemars::JsonSchema;
use serde::Serialize;

use super::word::Usd;
use crate::answer::{Amount, amount, signed_amount};
use crate::requests::Chain;

/// The loss cap under another tolerance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToleranceMitigation {
    /// The tolerance, bps.
    pub slippage_bps: u32,
    /// `quoted_out − amount_out_min` at that tolerance.
    pub max_loss: Amount,
    /// In USD.
    pub max_loss_usd: Option<String>,
    /// The attacker's optimum profit then, gross, `token_in`.
    pub optimum_profit: Amount,
    /// Whether it still exceeds the attack's gas (null when either has no USD value).
    pub optimum_still_pays: Option<bool>,
}

/// The order in equal parts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SplitMitigation {
    /// Parts.
    pub parts: u32,
    /// The extra swap transactions' gas in USD (`parts − 1` more transactions).
    pub extra_gas_usd: Option<String>,
    /// Price impact saved, bps (each part on the same pool state).
    pub impact_saved_bps: f64,
    /// The attacker's optimum profit against the largest part, gross, `token_in`.
    pub attacker_profit_per_part: Amount,
    /// Summed over the parts.
    pub attacker_profit_all_parts: Amount,
    /// Whether the per-part optimum exceeds the attack's gas (null without USD values).
    pub per_part_attack_pays: Option<bool>,
}

/// Facts about ways to reduce the exposure; no recommendation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Mitigations {
    /// Tighter tolerances.
    pub tighter_tolerance: Vec<ToleranceMitigation>,
    /// Order splits.
    pub split_order: Vec<SplitMitigation>,
    /// Private submission.
    pub private_submission: String,
    /// Why a list is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
}

/// The mitigations of an assessment in the answer's words: tighter tolerances, splits, and
/// what a private submission path changes on this chain.
pub(super) fn mitigations(
    assessment: &Assessment,
    usd: &Usd<'_>,
    chain: Chain,
    public_mempool: bool,
) -> Mitigations {
    let (d_in, d_out) = (usd.decimals_in, usd.decimals_out);
    let tighter_tolerance = assessment
        .tighter
        .iter()
        .map(|t| ToleranceMitigation {
            slippage_bps: t.scenario.slippage_bps,
            max_loss: amount(t.scenario.max_loss, d_out),
            max_loss_usd: usd.text(&usd.read.usd_out, t.scenario.max_loss, false).ok(),
            optimum_profit: signed_amount(t.scenario.attack.optimum.profit, d_in),
            optimum_still_pays: t.optimum_still_pays,
        })
        .collect();
    let split_order = assessment
        .splits
        .iter()
        .map(|s| SplitMitigation {
            parts: s.scenario.parts,
            extra_gas_usd: s
                .extra_gas_wei
                .and_then(|w| usd.text(&usd.read.usd_native, w, true).ok()),
            impact_saved_bps: (s.scenario.impact_saved_bps * 100.0).round() / 100.0 + 0.0,
            attacker_profit_per_part: signed_amount(
                s.scenario.largest_part_attack.optimum.profit,
                d_in,
            ),
            attacker_profit_all_parts: signed_amount(s.scenario.attack_profit_all_parts, d_in),
            per_part_attack_pays: s.per_part_attack_pays,
        })
        .collect();
    let private_submission = if public_mempool {
        format!(
            "{} has a public mempool: a transaction sent through a private submission path (a builder or protected RPC that does not broadcast it) is not visible there before inclusion, which removes the public-mempool exposure; the pool's price can still move between quote and inclusion.",
            chain.as_str()
        )
    } else {
        format!(
            "{} has no public mempool: the transaction is already not visible in a public pending pool; a private submission path changes nothing about that exposure.",
            chain.as_str()
        )
    };
    let null_reasons: Vec<String> = assessment
        .mitigation_errors
        .iter()
        .map(|e| format!("{}: {}", e.what, e.error))
        .collect();
    Mitigations {
        tighter_tolerance,
        split_order,
        private_submission,
        null_reason: (!null_reasons.is_empty()).then(|| null_reasons.join("; ")),
    }
}
