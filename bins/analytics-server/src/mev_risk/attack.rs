//! The attacker's optimum and its gas in the answer's words.

use dex_route::mev::Assessment;
use mev_sim::{BoundMethod, Method, OptimumLocation};

use super::answer::{AttackGas, AttackerOptimum, TicksRead};
use super::word::Usd;
use crate::answer::{amount, signed_amount};
use crate::requests::Chain;
use crate::wording;

fn method_text(method: Method) -> &'static str {
    match method {
        Method::ClosedForm => "closed_form",
        Method::NumericalSearch => "numerical_search",
    }
}

fn bound_text(method: BoundMethod) -> &'static str {
    match method {
        BoundMethod::ClosedForm => "closed_form",
        BoundMethod::NumericalSearch => "numerical_search",
    }
}

fn location_text(location: OptimumLocation) -> &'static str {
    match location {
        OptimumLocation::AtBound => "at_bound",
        OptimumLocation::Interior => "interior",
        OptimumLocation::NoProfit => "no_profit",
    }
}

pub(super) fn attack_gas(
    a: &Assessment,
    usd: &Usd<'_>,
    chain: Chain,
) -> (AttackGas, Result<String, String>) {
    let read = &a.read;
    // WETH and WPOL have 18; the default only matters if decimals() failed.
    let native_decimals = dex_route::decimals_of(&read.tokens, read.native).unwrap_or(18);
    let cost_usd = a
        .attack_cost_wei
        .as_ref()
        .map_err(ToString::to_string)
        .and_then(|cost| usd.text(&read.usd_native, *cost, true));
    let l1_reason = wording::l1_fee_reason(&read.l1_data_fee, chain);
    let gas = AttackGas {
        transactions: 2,
        gas_units_per_transaction: read.attack_tx_gas.units,
        gas_units_source: format!(
            "router base {} + {} (dex-math GasModel, measured on the devnet like /dex/quote's constants)",
            read.attack_tx_gas.router_base,
            read.attack_tx_gas
                .hops
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        ),
        gas_price_wei: read.gas_price_wei.as_ref().ok().map(ToString::to_string),
        l1_data_fee_wei_per_transaction: l1_reason.is_none().then(|| read.l1_fee_wei().to_string()),
        l1_data_fee_null_reason: l1_reason,
        cost: a
            .attack_cost_wei
            .as_ref()
            .ok()
            .map(|c| amount(*c, Some(native_decimals))),
        cost_usd: cost_usd.as_ref().ok().cloned(),
        null_reason: match (&a.attack_cost_wei, &cost_usd) {
            (Err(e), _) => Some(e.to_string()),
            (_, Err(e)) => Some(e.clone()),
            _ => None,
        },
    };
    (gas, cost_usd)
}

pub(super) fn pays_sentence(
    a: &Assessment,
    gas: &AttackGas,
    profit_usd: &Result<String, String>,
    cost_usd: Result<String, String>,
) -> String {
    match a.attack_pays {
        Some(false) if a.attack.location == OptimumLocation::NoProfit => {
            "not profitable at this gas price: no front-run within the tolerance makes a gross profit".to_owned()
        }
        Some(false) => format!(
            "not profitable at this gas price: the optimum's gross profit ({} USD) does not exceed the two transactions' gas ({} USD)",
            profit_usd.clone().unwrap_or_else(|_| "n/a".to_owned()),
            cost_usd.unwrap_or_else(|_| "n/a".to_owned())
        ),
        Some(true) => format!(
            "profitable at this gas price (estimate): the optimum's gross profit ({} USD) exceeds the two transactions' gas ({} USD)",
            profit_usd.clone().unwrap_or_else(|_| "n/a".to_owned()),
            cost_usd.unwrap_or_else(|_| "n/a".to_owned())
        ),
        None => format!(
            "cannot be compared: {}",
            gas.null_reason
                .clone()
                .or_else(|| profit_usd.clone().err())
                .unwrap_or_else(|| "no USD price".to_owned())
        ),
    }
}

pub(super) fn attacker(
    a: &Assessment,
    usd: &Usd<'_>,
    profit_usd: &Result<String, String>,
) -> AttackerOptimum {
    let (d_in, d_out) = (usd.decimals_in, usd.decimals_out);
    let attack = &a.attack;
    let ticks_read = a.read.ticks.as_ref().map(|window| TicksRead {
        first_word: window.words.0,
        last_word: window.words.1,
        words: u32::try_from(i32::from(window.words.1) - i32::from(window.words.0) + 1)
            .unwrap_or(0),
        initialized_ticks: window.initialized_ticks,
        attack_stays_inside: a.attack_stays_inside.unwrap_or(false),
    });
    let quoted_out = a.read.quote.amount_out;
    AttackerOptimum {
        label: "estimate".to_owned(),
        max_front_run: amount(attack.a_max, d_in),
        bound_method: bound_text(attack.bound_method).to_owned(),
        optimum_front_run: amount(attack.optimum.front_run_in, d_in),
        optimum_location: location_text(attack.location).to_owned(),
        method: method_text(attack.method()).to_owned(),
        victim_out_at_optimum: amount(attack.optimum.victim_out, d_out),
        victim_loss_at_optimum: amount(quoted_out.saturating_sub(attack.optimum.victim_out), d_out),
        profit: signed_amount(attack.optimum.profit, d_in),
        profit_usd: profit_usd.as_ref().ok().cloned(),
        profit_usd_null_reason: profit_usd.as_ref().err().cloned(),
        simulations: attack.simulations,
        ticks_read,
    }
}
