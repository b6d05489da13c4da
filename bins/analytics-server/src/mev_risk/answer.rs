//! The answer of `POST /mev/risk` and its parts.

use schemars::JsonSchema;
use serde::Serialize;

use super::history::SandwichHistory;
use super::mitigation::Mitigations;
use crate::answer::Amount;
use crate::requests::Chain;

/// A token of the trade.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TradeToken {
    /// Checksummed address.
    pub address: String,
    /// `symbol()`, null when the token does not answer it.
    pub symbol: Option<String>,
    /// `decimals()`.
    pub decimals: u8,
    /// USD per whole token, decimal; null with the reason when no route to USDC is read.
    pub price_usd: Option<String>,
    /// How `price_usd` was obtained.
    pub price_usd_source: Option<String>,
    /// Why `price_usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_usd_null_reason: Option<String>,
}

/// A direct quote compared when choosing the pool.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DirectQuote {
    /// The pool.
    pub pool: String,
    /// DEX id.
    pub dex: String,
    /// `concentrated_liquidity`, `constant_product` or `solidly` (the pool types of
    /// docs/analytics.md; a Solidly pool's curve is `stable`).
    pub pool_type: String,
    /// Stable rather than volatile (Solidly pools; null for the other types).
    pub stable: Option<bool>,
    /// What it pays for the whole amount.
    pub amount_out: Amount,
    /// Whether it is the pool assessed.
    pub chosen: bool,
}

/// The pool assessed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AssessedPool {
    /// Address.
    pub address: String,
    /// DEX id.
    pub dex: String,
    /// `concentrated_liquidity`, `constant_product` or `solidly` (the pool types of
    /// docs/analytics.md; a Solidly pool's curve is `stable`).
    pub pool_type: String,
    /// Fee tier, parts per million (concentrated liquidity).
    pub fee_tier_ppm: Option<u32>,
    /// Stable (`x³y + y³x`) rather than volatile (Solidly pools; null for the other types).
    pub stable: Option<bool>,
    /// The swap fee, bps.
    pub fee_bps: f64,
    /// `best_direct_quote` or `route`.
    pub chosen_by: String,
    /// Why this pool.
    pub why: String,
    /// Every direct quote of the pair at the block, best first.
    pub direct_quotes_compared: Vec<DirectQuote>,
}

/// The ticks the simulation used (concentrated liquidity).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TicksRead {
    /// First TickLens word (`tick / tickSpacing >> 8`).
    pub first_word: i16,
    /// Last word.
    pub last_word: i16,
    /// Words read.
    pub words: u32,
    /// Initialized ticks found in them.
    pub initialized_ticks: usize,
    /// Whether the price after the front-run and the victim at `a_max` stays inside them (when
    /// false the simulation assumed no initialized tick beyond them and is flagged).
    pub attack_stays_inside: bool,
}

/// The attacker's optimum (an estimate: the attack is simulated, not observed).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AttackerOptimum {
    /// Always "estimate".
    pub label: String,
    /// The largest front-run (in `token_in`) after which the victim still receives
    /// `amount_out_min`.
    pub max_front_run: Amount,
    /// `closed_form` or `numerical_search`, for `max_front_run`.
    pub bound_method: String,
    /// The profit-maximising front-run in `[0, max_front_run]`.
    pub optimum_front_run: Amount,
    /// `at_bound`, `interior` or `no_profit`.
    pub optimum_location: String,
    /// `closed_form` (bound by closed form, optimum at the bound) or `numerical_search` (a
    /// search over the exact swap simulation was needed).
    pub method: String,
    /// What the victim receives with the optimum front-run before it.
    pub victim_out_at_optimum: Amount,
    /// The victim's loss at the optimum against the unattacked quote, `token_out`.
    pub victim_loss_at_optimum: Amount,
    /// Front-run plus back-run profit, gross of gas, in `token_in`.
    pub profit: Amount,
    /// That profit in USD (rounded down to the cent).
    pub profit_usd: Option<String>,
    /// Why `profit_usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profit_usd_null_reason: Option<String>,
    /// Exact swap simulations the search ran.
    pub simulations: u32,
    /// The ticks read (concentrated liquidity only).
    pub ticks_read: Option<TicksRead>,
}

/// What the attack's two transactions cost.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AttackGas {
    /// Transactions (front-run and back-run).
    pub transactions: u32,
    /// Gas units of one, and where the figure comes from.
    pub gas_units_per_transaction: u64,
    /// The parts of that figure.
    pub gas_units_source: String,
    /// `eth_gasPrice` at the block, wei.
    pub gas_price_wei: Option<String>,
    /// The L1 data fee of one transaction, wei (OP-stack chains).
    pub l1_data_fee_wei_per_transaction: Option<String>,
    /// Why no L1 data fee is included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1_data_fee_null_reason: Option<String>,
    /// `2 × (units × gas price + L1 fee)`, in the wrapped native token.
    pub cost: Option<Amount>,
    /// The cost in USD (rounded up to the cent).
    pub cost_usd: Option<String>,
    /// Why `cost` or `cost_usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
}

/// The chain's public pending pool.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PublicMempool {
    /// Whether pending transactions are publicly visible before inclusion.
    pub exists: bool,
    /// The statement.
    pub statement: String,
    /// Where it comes from.
    pub source: String,
}

/// The answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MevRiskAnswer {
    /// The chain read.
    pub chain: Chain,
    /// Every state read was made at this block.
    pub block_number: u64,
    /// Its timestamp, Unix seconds.
    pub block_timestamp: u64,
    /// The pool assessed.
    pub pool: AssessedPool,
    /// Token sold.
    pub token_in: TradeToken,
    /// Token bought.
    pub token_out: TradeToken,
    /// Amount sold.
    pub amount_in: Amount,
    /// The caller's tolerance.
    pub slippage_bps: u32,
    /// The official quote on the pool at the block (QuoterV2, or the pool's `getAmountOut`
    /// maths on its reserves), exact.
    pub quoted_out: Amount,
    /// `quoter_v2`, `reserves` or `solidly_reserves`.
    pub quote_source: String,
    /// `floor(quoted_out × (10000 − slippage_bps) / 10000)`.
    pub amount_out_min: Amount,
    /// `quoted_out − amount_out_min`, exact: the most a sandwich can take from the caller.
    pub max_loss: Amount,
    /// In USD (rounded down to the cent).
    pub max_loss_usd: Option<String>,
    /// Why `max_loss_usd` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_loss_usd_null_reason: Option<String>,
    /// The attacker's optimum.
    pub attacker: AttackerOptimum,
    /// The attack's gas.
    pub attack_gas: AttackGas,
    /// Whether the optimum's gross profit exceeds the attack's gas (compared in USD, or in wei
    /// when `token_in` is the wrapped native token); null when it cannot be compared.
    pub attack_pays: Option<bool>,
    /// The comparison in words.
    pub attack_pays_sentence: String,
    /// The model's unattacked output against the official quote at the same block, bps
    /// (`(quoted_out − model_out) / quoted_out × 10⁴`): 0 when the model is the exact maths.
    pub model_error_bps: f64,
    /// The model's unattacked output.
    pub model_amount_out: Amount,
    /// The chain's public pending pool.
    pub public_mempool: PublicMempool,
    /// Sandwiches matched on the pool in the scanned window.
    pub recent_sandwiches_on_pool: SandwichHistory,
    /// Mitigations as numbers.
    pub mitigations: Mitigations,
    /// Sequential round trips to the node for the state reads (without the history scan).
    pub rpc_round_trips: u32,
    /// What the figures assume.
    pub assumptions: Vec<String>,
}
