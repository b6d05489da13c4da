//! The whole `/mev/risk` assessment in one call: the reads of [`MevDiscovery`], the amount in
//! whole units made exact with the decimals read, the pool's Swap history within a time
//! budget, and `mev-sim`'s sandwich maths on the state read (the attacker's optimum, whether
//! it pays for its gas, tighter tolerances and order splits).

use std::time::Duration;

use alloy::primitives::{Address, I256, U256};
use chain_read::logs::LogScanOptions;
use chain_read::{ChainClient, ChainInfo, ErrorKind, PinnedReader};
use dex_math::MathError;
use dex_math::gas::{GasModel, Hop, RouteGas};
use mev_sim::{
    AttackOptimum, MevError, OptimumLocation, SplitScenario, ToleranceScenario, VictimSwap,
    attack_optimum, split_scenario, tolerance_scenario,
};

use super::history::{HistoryScan, scan_pool_history};
use super::{MevDiscovery, MevPool, MevPoolRequest};
use crate::error::RouteError;
use crate::gas::hop_kind;
use crate::liquidity::UsdPrice;
use crate::quote::{Side, TokenError, native_as_wrapped, request_token};

/// Blocks scanned for past sandwiches by default.
pub const HISTORY_WINDOW_BLOCKS: u64 = 2_000;

/// Tighter tolerances assessed as mitigations.
pub const TIGHTER_TOLERANCES_BPS: [u32; 2] = [10, 25];

/// Order splits assessed as mitigations.
pub const SPLIT_PARTS: [u32; 2] = [2, 4];

/// How the history is scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryOptions {
    /// Blocks scanned, ending at the block read.
    pub window_blocks: u64,
    /// How long the scan may run, counted from the start of the assessment; a scan still
    /// running then is dropped and the assessment says so.
    pub budget: Duration,
}

impl Default for HistoryOptions {
    /// 2,000 blocks within 10 s (half the default time budget of the route).
    fn default() -> Self {
        Self {
            window_blocks: HISTORY_WINDOW_BLOCKS,
            budget: Duration::from_secs(10),
        }
    }
}

/// What to assess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssessRequest {
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// The caller's pool, instead of the best direct quote.
    pub route: Option<super::NamedPool>,
    /// The amount sold in whole units of `token_in`, made exact with its decimals.
    pub amount_in: String,
    /// The caller's tolerance, bps (at most 10,000).
    pub slippage_bps: u32,
    /// Whether the pool's Swap history is scanned for past sandwiches.
    pub scan_history: bool,
}

/// The history scan's outcome.
#[derive(Debug, Clone)]
pub enum History {
    /// The scan was not asked for.
    Skipped,
    /// The scan did not finish within its budget.
    OutOfTime(HistoryOptions),
    /// The scan, and the timestamp of the window's first block.
    Scanned {
        /// The sandwiches found.
        scan: HistoryScan,
        /// The window's first block's timestamp.
        first_timestamp: u64,
    },
}

/// A mitigation figure that could not be computed: which one and why.
#[derive(Debug, Clone, PartialEq)]
pub struct MitigationError {
    /// `"10 bps"` or `"2 parts"`.
    pub what: String,
    /// Why.
    pub error: MevError,
}

/// An order split and what its extra transactions cost.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitAssessed {
    /// The split's maths.
    pub scenario: SplitScenario,
    /// Gas of the `parts − 1` extra swap transactions, wei, when the gas price was read.
    pub extra_gas_wei: Option<U256>,
    /// Whether the attack on the largest part pays for its gas (`None`: not comparable).
    pub per_part_attack_pays: Option<bool>,
}

/// A tighter tolerance and whether the attack still pays.
#[derive(Debug, Clone, PartialEq)]
pub struct ToleranceAssessed {
    /// The tolerance's maths.
    pub scenario: ToleranceScenario,
    /// Whether the optimum still pays for its gas (`None`: not comparable).
    pub optimum_still_pays: Option<bool>,
}

/// Everything `/mev/risk` answers with, before wording.
#[derive(Debug, Clone)]
pub struct Assessment {
    /// The reads.
    pub read: MevPool,
    /// The amount sold, atomic units.
    pub amount_in: U256,
    /// `⌊quoted_out × (10000 − slippage_bps) / 10000⌋`.
    pub amount_out_min: U256,
    /// `quoted_out − amount_out_min`: the most a front-run can take.
    pub max_loss: U256,
    /// The model's unattacked output at the state read.
    pub model_out: U256,
    /// `(quoted − model) / quoted` in bps, to 0.0001 bps.
    pub model_error_bps: f64,
    /// The attacker's bound and optimum.
    pub attack: AttackOptimum,
    /// The attack's two transactions' gas, wei, or why unknown.
    pub attack_cost_wei: Result<U256, RouteError>,
    /// Whether the optimum's gross profit exceeds that gas (`None`: not comparable).
    pub attack_pays: Option<bool>,
    /// Whether the price after the front-run at the bound and the victim stays within the
    /// ticks read (concentrated liquidity).
    pub attack_stays_inside: Option<bool>,
    /// The tighter tolerances below the caller's, in order.
    pub tighter: Vec<ToleranceAssessed>,
    /// The order splits, in order.
    pub splits: Vec<SplitAssessed>,
    /// Mitigations that could not be computed.
    pub mitigation_errors: Vec<MitigationError>,
    /// The history scan.
    pub history: History,
    /// Which side of the request named native ether (the zero address): that side was read
    /// as the chain's wrapped native token, whose pools (and the Uniswap V4 pools against
    /// native ether) carry it.
    pub native_ether: Option<Side>,
}

/// Why an assessment could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssessError {
    /// A read failed, the named pool is not one of the pair's, or no pool quoted.
    #[error(transparent)]
    Route(#[from] RouteError),
    /// A token of the request has no decimals.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// The amount cannot be sold exactly in `token_in`'s decimals.
    #[error("amount_in: {error}")]
    Amount {
        /// Why.
        error: MathError,
        /// `token_in`'s decimals.
        decimals: u8,
    },
    /// The sandwich model refused the state read.
    #[error("the sandwich model could not be computed ({0})")]
    Model(MevError),
}

impl AssessError {
    /// This error's [`ErrorKind`]: a route error's own; a token that is not an ERC-20 or an
    /// amount finer than its token is the caller's input; a token the plan did not read and a
    /// model that refuses the state read are internal.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Route(error) => error.kind(),
            Self::Token(error) => error.kind(),
            Self::Amount { .. } => ErrorKind::InvalidInput,
            Self::Model(_) => ErrorKind::Internal,
        }
    }
}

/// Assesses the sandwich risk of `request` on `chain`: three stages of reads at one block, the
/// Swap history within `history`'s budget, and the maths.
pub async fn assess(
    chain: &ChainInfo,
    client: &ChainClient,
    request: &AssessRequest,
    history: HistoryOptions,
) -> Result<Assessment, AssessError> {
    let started = tokio::time::Instant::now();
    let reader = PinnedReader::for_chain(client.clone(), chain);
    let (native_ether, token_in, token_out) =
        native_as_wrapped(chain, request.token_in, request.token_out);
    let read_request = MevPoolRequest {
        token_in,
        token_out,
        route: request.route,
        slippage_bps: request.slippage_bps,
    };
    let discovery = MevDiscovery::discover(chain, &reader, &read_request).await?;
    let (_, decimals_in) = request_token(discovery.token(token_in), Side::TokenIn)?;
    request_token(discovery.token(token_out), Side::TokenOut)?;
    let amount_in = dex_math::parse_units(&request.amount_in, decimals_in).map_err(|error| {
        AssessError::Amount {
            error,
            decimals: decimals_in,
        }
    })?;
    let read = discovery.read(&reader, amount_in).await?;
    let history = if request.scan_history {
        scan(chain, client, &read, history, started).await?
    } else {
        History::Skipped
    };
    let mut assessment =
        analyse(read, amount_in, request.slippage_bps, history).map_err(AssessError::Model)?;
    assessment.native_ether = native_ether;
    Ok(assessment)
}

/// The history scan, dropped when the budget runs out.
async fn scan(
    chain: &ChainInfo,
    client: &ChainClient,
    read: &MevPool,
    options: HistoryOptions,
    started: tokio::time::Instant,
) -> Result<History, RouteError> {
    let scan = async {
        // The window's first block is known before the scan: its header (for the window's
        // seconds) is read beside the logs, not after them.
        let first_block = read
            .block
            .number
            .saturating_sub(options.window_blocks.saturating_sub(1));
        let (scan, first) = tokio::join!(
            scan_pool_history(
                client,
                chain,
                &read.pool,
                read.block.number,
                options.window_blocks,
                LogScanOptions::default(),
            ),
            client.block_timestamp(first_block),
        );
        Ok::<_, RouteError>((scan?, first?))
    };
    match tokio::time::timeout_at(started + options.budget, scan).await {
        Ok(scanned) => {
            let (scan, first_timestamp) = scanned?;
            Ok(History::Scanned {
                scan,
                first_timestamp,
            })
        }
        Err(_) => Ok(History::OutOfTime(options)),
    }
}

/// The sandwich maths on what was read.
fn analyse(
    read: MevPool,
    amount_in: U256,
    slippage_bps: u32,
    history: History,
) -> Result<Assessment, MevError> {
    let zero_for_one = read.zero_for_one();
    let quoted_out = read.quote.amount_out;
    let bps = U256::from(slippage_bps);
    let min = quoted_out * (U256::from(10_000u32) - bps) / U256::from(10_000u32);
    let model_out = read.model.amount_out(amount_in, zero_for_one)?;
    let model_error_bps = if quoted_out.is_zero() {
        0.0
    } else {
        let diff = I256::from_raw(quoted_out) - I256::from_raw(model_out);
        let num: f64 = diff.to_string().parse().unwrap_or(0.0);
        let den: f64 = quoted_out.to_string().parse().unwrap_or(1.0);
        // Ten-thousandths of a bp: finer digits are float noise; `+ 0.0` turns −0 into 0.
        (num / den * 1e4 * 1e4).round() / 1e4 + 0.0
    };
    let victim = VictimSwap {
        amount_in,
        zero_for_one,
        amount_out_min: min,
    };
    let attack = attack_optimum(&read.model, &victim)?;
    let attack_cost_wei = read.attack_cost_wei();
    let cost = attack_cost_wei.as_ref().ok().copied();
    let pays = |attack: &AttackOptimum| {
        if attack.location == OptimumLocation::NoProfit {
            Some(false)
        } else {
            profit_exceeds(&read, attack.optimum.profit, cost)
        }
    };
    let attack_pays = pays(&attack);
    let attack_stays_inside = read
        .ticks
        .as_ref()
        .map(|window| attack_after_tick(&read, &attack).is_some_and(|tick| window.covers(tick)));

    let mut mitigation_errors = Vec::new();
    let tighter = TIGHTER_TOLERANCES_BPS
        .iter()
        .filter(|&&t| t < slippage_bps)
        .filter_map(
            |&t| match tolerance_scenario(&read.model, amount_in, zero_for_one, t) {
                Ok(scenario) => Some(ToleranceAssessed {
                    optimum_still_pays: pays(&scenario.attack),
                    scenario,
                }),
                Err(error) => {
                    mitigation_errors.push(MitigationError {
                        what: format!("{t} bps"),
                        error,
                    });
                    None
                }
            },
        )
        .collect();
    let swap_gas: Option<RouteGas> = GasModel::default()
        .route_gas(&[Hop {
            kind: hop_kind(read.pool.key),
            measured_gas: None,
        }])
        .ok();
    let splits = SPLIT_PARTS
        .iter()
        .filter_map(|&parts| {
            match split_scenario(&read.model, amount_in, zero_for_one, slippage_bps, parts) {
                Ok(scenario) => {
                    let extra_gas_wei = match (&swap_gas, &read.gas_price_wei) {
                        (Some(gas), Ok(price)) => {
                            dex_math::gas::gas_cost_wei(gas.units, *price, read.l1_fee_wei())
                                .ok()
                                .map(|one| one * U256::from(parts - 1))
                        }
                        _ => None,
                    };
                    Some(SplitAssessed {
                        per_part_attack_pays: pays(&scenario.largest_part_attack),
                        extra_gas_wei,
                        scenario,
                    })
                }
                Err(error) => {
                    mitigation_errors.push(MitigationError {
                        what: format!("{parts} parts"),
                        error,
                    });
                    None
                }
            }
        })
        .collect();
    Ok(Assessment {
        amount_in,
        amount_out_min: min,
        max_loss: quoted_out - min,
        model_out,
        model_error_bps,
        attack,
        attack_cost_wei,
        attack_pays,
        attack_stays_inside,
        tighter,
        splits,
        mitigation_errors,
        history,
        read,
        // Set by `assess`, which knows the request.
        native_ether: None,
    })
}

/// Raw USDC value of `raw` units at `price`.
fn usdc_value(price: &Result<UsdPrice, RouteError>, raw: U256) -> Option<U256> {
    price.as_ref().ok().map(|p| p.value(raw))
}

/// Whether `profit` (token_in) exceeds `cost_wei`: in wei when token_in is the wrapped native
/// token, else both in USD.
fn profit_exceeds(read: &MevPool, profit: I256, cost_wei: Option<U256>) -> Option<bool> {
    let cost = cost_wei?;
    let profit = positive(profit);
    if read.native == read.quote.token_in {
        return Some(profit > cost);
    }
    let profit_usd = usdc_value(&read.usd_in, profit)?;
    let cost_usd = usdc_value(&read.usd_native, cost)?;
    Some(profit_usd > cost_usd)
}

/// A profit as an amount: losses count as zero.
pub fn positive(value: I256) -> U256 {
    if value.is_negative() {
        U256::ZERO
    } else {
        value.into_raw()
    }
}

/// The tick after the front-run and the victim at `a_max` (where the attack reaches furthest).
fn attack_after_tick(read: &MevPool, attack: &AttackOptimum) -> Option<i32> {
    let zero_for_one = read.zero_for_one();
    let (_, after_front) = read.model.swap(attack.a_max, zero_for_one).ok()?;
    let victim_in = read.quote.amount_in;
    let (_, after_victim) = after_front.swap(victim_in, zero_for_one).ok()?;
    match after_victim {
        mev_sim::PoolModel::Concentrated(state) => Some(state.tick()),
        _ => None,
    }
}
