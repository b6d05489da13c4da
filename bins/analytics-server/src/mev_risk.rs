//! `POST /mev/risk`: the answer's types and its wording over `dex-route`'s MEV read (the pool,
//! its exact state, gas and USD prices at one block in three stages; the pool's Swap history
//! by `eth_getLogs`) and `mev-sim`'s sandwich maths.
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

use alloy::primitives::{Address, I256, U256};
use chain_read::dex::PoolKey;
use chain_read::logs::LogScanOptions;
use chain_read::{CallFailure, L1DataFee, PinnedReader, TokenMetadata};
use dex_math::MathError;
use dex_route::RouteError;
use dex_route::liquidity::{UsdPrice, UsdRoute};
use dex_route::mev::history::{HistoryScan, scan_pool_history};
use dex_route::mev::{MevDiscovery, MevPool, MevPoolRequest, PoolChoice};
use mev_sim::{
    AttackOptimum, BoundMethod, DETECTION_RULE, Method, OptimumLocation, VictimSwap,
    attack_optimum, split_scenario, tolerance_scenario,
};
use schemars::JsonSchema;
use serde::Serialize;
use server_kit::{ApiError, ErrorCode};

use crate::answer::{Amount, address, amount, fee_bps, pool_type, show, signed_amount, usd_text};
use crate::chains::{Chains, route_error};
use crate::requests::{Chain, MevRiskRequest};

/// Blocks scanned for past sandwiches by default (`mev_history_window_blocks`).
pub const HISTORY_WINDOW_BLOCKS: u64 = 2_000;

/// Tighter tolerances shown as mitigations.
pub const TIGHTER_TOLERANCES_BPS: [u32; 2] = [10, 25];

/// Order splits shown as mitigations.
pub const SPLIT_PARTS: [u32; 2] = [2, 4];

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
    /// Pool type.
    pub pool_type: String,
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
    /// `concentrated_liquidity`, `constant_product`, `solidly_volatile` or `solidly_stable`.
    pub pool_type: String,
    /// Fee tier, parts per million (concentrated liquidity).
    pub fee_tier_ppm: Option<u32>,
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

/// One transaction of a matched sandwich.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichTx {
    /// Transaction hash.
    pub tx: String,
    /// Transaction index in the block.
    pub tx_index: u64,
}

/// A victim of a matched sandwich.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichVictim {
    /// Transaction hash.
    pub tx: String,
    /// The victim's address as the log names it (recipient, or the caller of the pool).
    pub trader: String,
}

/// One matched sandwich.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichFound {
    /// Block.
    pub block: u64,
    /// The attacker (the front-run's recipient).
    pub attacker: String,
    /// Front-run.
    pub front_run: SandwichTx,
    /// Back-run.
    pub back_run: SandwichTx,
    /// Victims between them.
    pub victims: Vec<SandwichVictim>,
    /// Back-run output − front-run input, in `profit_token` (gross of gas).
    pub profit: Amount,
    /// The token of the profit (the front-run's input token).
    pub profit_token: String,
}

/// The pool's sandwich history.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SandwichHistory {
    /// Whether the scan ran.
    pub scanned: bool,
    /// Why it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_reason: Option<String>,
    /// First block scanned.
    pub from_block: Option<u64>,
    /// Last block scanned (the assessment's block).
    pub to_block: Option<u64>,
    /// Window length, blocks.
    pub window_blocks: Option<u64>,
    /// Window length, seconds (the block timestamps at both ends).
    pub window_seconds: Option<u64>,
    /// How `window_seconds` was obtained.
    pub window_seconds_source: Option<String>,
    /// Why `window_seconds` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_seconds_null_reason: Option<String>,
    /// The detection pattern.
    pub detection_rule: String,
    /// "sandwiches" on chains with a public mempool, "pattern matches" on the others.
    pub label: String,
    /// Swap events read.
    pub swaps_scanned: Option<usize>,
    /// Matches found.
    pub count: Option<usize>,
    /// Each match.
    pub matches: Vec<SandwichFound>,
    /// `eth_getLogs` requests sent.
    pub eth_get_logs_requests: Option<u32>,
    /// Ranges the node refused and that were halved.
    pub ranges_split: Option<u32>,
}

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

/// How the history is scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryOptions {
    /// Blocks scanned, ending at the block read.
    pub window_blocks: u64,
    /// How long the scan may run, counted from the start of the work; a scan still running
    /// then is dropped and the answer says so.
    pub budget: std::time::Duration,
}

impl Default for HistoryOptions {
    /// 2,000 blocks within 10 s (half the default time budget).
    fn default() -> Self {
        Self {
            window_blocks: HISTORY_WINDOW_BLOCKS,
            budget: std::time::Duration::from_secs(10),
        }
    }
}

/// The route's work with the default [`HistoryOptions`].
pub async fn mev_risk(
    chains: &Chains,
    request: &MevRiskRequest,
) -> Result<MevRiskAnswer, ApiError> {
    mev_risk_within(chains, request, HistoryOptions::default()).await
}

/// The route's work; the history scan as `history` says.
pub async fn mev_risk_within(
    chains: &Chains,
    request: &MevRiskRequest,
    history: HistoryOptions,
) -> Result<MevRiskAnswer, ApiError> {
    let options = history;
    let started = tokio::time::Instant::now();
    let (info, client) = chains.access(request.chain)?;
    let token_in = address(&request.token_in.0, "token_in")?;
    let token_out = address(&request.token_out.0, "token_out")?;
    let route = request
        .route
        .as_ref()
        .map(|r| address(&r.0, "route"))
        .transpose()?;
    let chain = request.chain;
    let failed = |error| read_error(chain, error);
    let reader = PinnedReader::for_chain(client.clone(), info);
    let read_request = MevPoolRequest {
        token_in,
        token_out,
        route,
        slippage_bps: request.slippage_bps,
    };
    let discovery = MevDiscovery::discover(info, &reader, &read_request)
        .await
        .map_err(failed)?;
    let decimals_in = decimals(discovery.token(token_in), "token_in", chain)?;
    decimals(discovery.token(token_out), "token_out", chain)?;
    let amount_in = dex_math::parse_units(&request.amount_in.0, decimals_in)
        .map_err(|e| amount_error(&e, decimals_in))?;
    let read = discovery.read(&reader, amount_in).await.map_err(failed)?;

    let history = if request.scan_history {
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
                    info,
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
            Ok(scanned) => History::Scanned(scanned.map_err(failed)?),
            Err(_) => History::OutOfTime(options),
        }
    } else {
        History::Skipped
    };
    word(chain, request, amount_in, &read, history)
}

/// The history scan's outcome.
enum History {
    /// `scan_history` was false.
    Skipped,
    /// The scan did not finish within its budget.
    OutOfTime(HistoryOptions),
    /// The scan and the window's first timestamp.
    Scanned((HistoryScan, u64)),
}

fn decimals(meta: Option<&TokenMetadata>, field: &str, chain: Chain) -> Result<u8, ApiError> {
    let meta = meta.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            format!("{field} was not among the tokens read on {chain}"),
        )
    })?;
    meta.decimals.clone().map_err(|failure| {
        ApiError::invalid_field(
            field,
            format!("is not an ERC-20 token on {chain}: decimals() failed ({failure})"),
        )
    })
}

fn amount_error(error: &MathError, decimals: u8) -> ApiError {
    let problem = match error {
        MathError::TooManyFractionDigits { digits, decimals } => format!(
            "has {digits} decimal places, but token_in has {decimals} decimals; the amount cannot be sold exactly"
        ),
        MathError::Overflow => format!("is too large for token_in ({decimals} decimals)"),
        other => other.to_string(),
    };
    ApiError::invalid_field("amount_in", problem)
}

/// A failed read as an answer: a named pool that is not one of the pair's pools is 422
/// `unknown_pool`; no direct quote at all is 422 `no_route`; the rest as every route read.
fn read_error(chain: Chain, error: RouteError) -> ApiError {
    match error {
        RouteError::UnknownPool { .. } => ApiError::new(
            ErrorCode::UnknownPool,
            format!("route: {error}; nothing was charged"),
        ),
        RouteError::Quote(reason) => {
            ApiError::new(ErrorCode::NoRoute, format!("{reason}; nothing was charged"))
        }
        other => route_error(chain, other),
    }
}

fn positive(value: I256) -> U256 {
    if value.is_negative() {
        U256::ZERO
    } else {
        value.into_raw()
    }
}

struct Ctx<'a> {
    read: &'a MevPool,
    usdc: Option<u8>,
    decimals_in: Option<u8>,
    decimals_out: Option<u8>,
}

impl Ctx<'_> {
    fn usd(
        &self,
        price: &Result<UsdPrice, RouteError>,
        raw: U256,
        up: bool,
    ) -> Result<String, String> {
        let price = price.as_ref().map_err(ToString::to_string)?;
        let usdc = self
            .usdc
            .ok_or_else(|| "USDC's decimals() did not answer".to_owned())?;
        let mut value = price.value(raw);
        if up && !raw.is_zero() {
            value += U256::from(1u8);
        }
        Ok(usd_text(value, usdc, up))
    }

    /// Raw USDC value, for comparisons.
    fn usdc_value(&self, price: &Result<UsdPrice, RouteError>, raw: U256) -> Option<U256> {
        price.as_ref().ok().map(|p| p.value(raw))
    }
}

fn route_text(route: &UsdRoute, block: u64) -> String {
    let pool = |pool: &chain_read::dex::Pool| {
        let tier = match pool.key {
            PoolKey::Concentrated { fee, .. } => format!(" {fee} ppm"),
            _ => String::new(),
        };
        format!("{}{tier} pool {}", pool.dex, show(pool.address))
    };
    match route {
        UsdRoute::Usdc => "it is the chain's USDC, taken as 1 USD".to_owned(),
        UsdRoute::ThisPool => {
            format!("the assessed pool's mid price against USDC at block {block}")
        }
        UsdRoute::Reference { reference } => format!(
            "mid price at block {block} of the deepest wrapped-native/USDC pool by in-range liquidity ({})",
            pool(reference)
        ),
        UsdRoute::ThisPoolThenReference { reference } => format!(
            "the assessed pool's mid price into the wrapped native token, then the deepest wrapped-native/USDC pool by in-range liquidity ({}), at block {block}",
            pool(reference)
        ),
    }
}

fn trade_token(
    read: &MevPool,
    token: Address,
    price: &Result<UsdPrice, RouteError>,
    decimals: u8,
) -> TradeToken {
    let meta = read.tokens.iter().find(|t| t.address == token);
    let usdc = read.usdc_decimals;
    let (price_usd, price_usd_source, reason) = match (price, usdc) {
        (Ok(price), Some(usdc)) => (
            Some(crate::answer::ratio_decimal(
                &price.usdc_per_unit,
                decimals,
                usdc,
                18,
            )),
            Some(route_text(&price.route, read.block.number)),
            None,
        ),
        (Err(error), _) => (None, None, Some(error.to_string())),
        (Ok(_), None) => (
            None,
            None,
            Some("USDC's decimals() did not answer".to_owned()),
        ),
    };
    TradeToken {
        address: show(token),
        symbol: meta.and_then(|m| m.symbol.clone().ok()),
        decimals,
        price_usd,
        price_usd_source,
        price_usd_null_reason: reason,
    }
}

/// The chain's pending-pool facts (research notes defi-anchors.md §1, "L2 caveat").
pub fn public_mempool(chain: Chain) -> PublicMempool {
    let (exists, statement, source) = match chain {
        Chain::Ethereum => (
            true,
            "Ethereum has a public peer-to-peer mempool: a transaction sent to a public RPC is visible to searchers before inclusion, and builders order blocks, so a classic sandwich is possible.",
            "ethereum.org, 'Maximal extractable value (MEV)' (ethereum.org/en/developers/docs/mev/)",
        ),
        Chain::Base | Chain::Optimism => (
            false,
            "OP-stack chain: transactions go to a single sequencer whose pending pool is private, ordered by priority fee; there is no public mempool to watch, so a match in the history is a pattern match, not a confirmed mempool sandwich.",
            "Optimism docs, 'Transaction flow' / sequencer (docs.optimism.io); research notes defi-anchors.md §1 'L2 caveat'",
        ),
        Chain::Arbitrum => (
            false,
            "Arbitrum's sequencer orders first-come first-served with a Timeboost express lane auction; its pending pool is not public, so a match in the history is a pattern match, not a confirmed mempool sandwich.",
            "Arbitrum docs, 'Sequencer' and 'Timeboost' (docs.arbitrum.io); research notes defi-anchors.md §1 'L2 caveat'",
        ),
        Chain::Polygon => (
            true,
            "Polygon PoS has a public mempool on its validators (Bor, a geth fork): pending transactions are visible before inclusion.",
            "Polygon docs, PoS architecture (docs.polygon.technology); research notes defi-anchors.md §1",
        ),
    };
    PublicMempool {
        exists,
        statement: statement.to_owned(),
        source: source.to_owned(),
    }
}

fn l1_reason(fee: &L1DataFee, chain: Chain) -> Option<String> {
    Some(match fee {
        L1DataFee::Read { .. } => return None,
        L1DataFee::Failed {
            oracle,
            failure: CallFailure::NoContract,
        } => format!(
            "the GasPriceOracle predeploy {} has no code on this node at the block (not an OP-stack node, e.g. a local devnet); no L1 data fee is included",
            show(*oracle)
        ),
        L1DataFee::Failed { oracle, failure } => format!(
            "GasPriceOracle {} getL1Fee failed ({failure}); no L1 data fee is included",
            show(*oracle)
        ),
        L1DataFee::NothingToPrice => "no transaction to price".to_owned(),
        _ => match chain {
            Chain::Ethereum => "ethereum is the L1: there is no separate L1 data fee".to_owned(),
            Chain::Polygon => "polygon PoS posts no transaction data to another chain: no L1 data fee".to_owned(),
            Chain::Arbitrum => "arbitrum charges an L1 component, but its oracle is not verified for this service; not included".to_owned(),
            Chain::Base | Chain::Optimism => "no GasPriceOracle is configured for this chain; no L1 data fee is included".to_owned(),
        },
    })
}

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

/// Whether `profit` (token_in) exceeds `cost_wei`: in wei when token_in is the wrapped native
/// token, else both in USD.
fn pays(ctx: &Ctx<'_>, profit: I256, cost_wei: Option<U256>, native_in: bool) -> Option<bool> {
    let cost = cost_wei?;
    let profit = positive(profit);
    if native_in {
        return Some(profit > cost);
    }
    let profit_usd = ctx.usdc_value(&ctx.read.usd_in, profit)?;
    let cost_usd = ctx.usdc_value(&ctx.read.usd_native, cost)?;
    Some(profit_usd > cost_usd)
}

#[allow(clippy::too_many_lines)]
fn word(
    chain: Chain,
    request: &MevRiskRequest,
    amount_in: U256,
    read: &MevPool,
    history: History,
) -> Result<MevRiskAnswer, ApiError> {
    let decimals_of = |token| dex_route::decimals_of(&read.tokens, token);
    let (token_in, token_out) = (read.quote.token_in, read.quote.token_out);
    let ctx = Ctx {
        read,
        usdc: read.usdc_decimals,
        decimals_in: decimals_of(token_in),
        decimals_out: decimals_of(token_out),
    };
    let (d_in, d_out) = (ctx.decimals_in, ctx.decimals_out);
    let zero_for_one = read.zero_for_one();
    let quoted_out = read.quote.amount_out;
    let bps = U256::from(request.slippage_bps);
    let min = quoted_out * (U256::from(10_000u32) - bps) / U256::from(10_000u32);
    let max_loss = quoted_out - min;
    let math = |e: mev_sim::MevError| {
        ApiError::new(
            ErrorCode::Internal,
            format!("the sandwich model could not be computed ({e}); nothing was charged"),
        )
    };
    let model_out = read
        .model
        .amount_out(amount_in, zero_for_one)
        .map_err(math)?;
    let model_error_bps = if quoted_out.is_zero() {
        0.0
    } else {
        let diff = I256::from_raw(quoted_out) - I256::from_raw(model_out);
        let num: f64 = diff.to_string().parse().unwrap_or(0.0);
        let den: f64 = quoted_out.to_string().parse().unwrap_or(1.0);
        (num / den * 1e4 * 1e4).round() / 1e4 + 0.0
    };
    let victim = VictimSwap {
        amount_in,
        zero_for_one,
        amount_out_min: min,
    };
    let attack: AttackOptimum = attack_optimum(&read.model, &victim).map_err(math)?;
    let profit = attack.optimum.profit;

    // Gas of the attack.
    let cost_wei = read.attack_cost_wei();
    // WETH and WPOL have 18; the default only matters if decimals() failed.
    let native_decimals = decimals_of(read.native).unwrap_or(18);
    let cost_usd = cost_wei
        .as_ref()
        .map_err(ToString::to_string)
        .and_then(|cost| ctx.usd(&read.usd_native, *cost, true));
    let l1_reason = l1_reason(&read.l1_data_fee, chain);
    let attack_gas = AttackGas {
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
        cost: cost_wei
            .as_ref()
            .ok()
            .map(|c| amount(*c, Some(native_decimals))),
        cost_usd: cost_usd.as_ref().ok().cloned(),
        null_reason: match (&cost_wei, &cost_usd) {
            (Err(e), _) => Some(e.to_string()),
            (_, Err(e)) => Some(e.clone()),
            _ => None,
        },
    };
    let native_in = read.native == token_in;
    let cost_ok = cost_wei.as_ref().ok().copied();
    let attack_pays = if attack.location == OptimumLocation::NoProfit {
        Some(false)
    } else {
        pays(&ctx, profit, cost_ok, native_in)
    };
    let profit_usd = ctx.usd(&read.usd_in, positive(profit), false);
    let attack_pays_sentence = match attack_pays {
        Some(false) if attack.location == OptimumLocation::NoProfit => {
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
            attack_gas
                .null_reason
                .clone()
                .or_else(|| profit_usd.clone().err())
                .unwrap_or_else(|| "no USD price".to_owned())
        ),
    };

    let ticks_read = read.ticks.as_ref().map(|window| {
        let after = attack_after_tick(read, &attack);
        TicksRead {
            first_word: window.words.0,
            last_word: window.words.1,
            words: u32::try_from(i32::from(window.words.1) - i32::from(window.words.0) + 1)
                .unwrap_or(0),
            initialized_ticks: window.initialized_ticks,
            attack_stays_inside: after.is_some_and(|tick| window.covers(tick)),
        }
    });
    let attacker = AttackerOptimum {
        label: "estimate".to_owned(),
        max_front_run: amount(attack.a_max, d_in),
        bound_method: bound_text(attack.bound_method).to_owned(),
        optimum_front_run: amount(attack.optimum.front_run_in, d_in),
        optimum_location: location_text(attack.location).to_owned(),
        method: method_text(attack.method()).to_owned(),
        victim_out_at_optimum: amount(attack.optimum.victim_out, d_out),
        victim_loss_at_optimum: amount(quoted_out.saturating_sub(attack.optimum.victim_out), d_out),
        profit: signed_amount(profit, d_in),
        profit_usd: profit_usd.as_ref().ok().cloned(),
        profit_usd_null_reason: profit_usd.as_ref().err().cloned(),
        simulations: attack.simulations,
        ticks_read,
    };

    let max_loss_usd = ctx.usd(&read.usd_out, max_loss, false);
    let mempool = public_mempool(chain);
    let label = if mempool.exists {
        "sandwiches (pattern matches on a chain with a public mempool)"
    } else {
        "pattern matches (not confirmed mempool sandwiches: the chain has no public mempool)"
    };
    let recent = match history {
        History::Skipped | History::OutOfTime(_) => SandwichHistory {
            scanned: false,
            skipped_reason: Some(match history {
                History::OutOfTime(options) => format!(
                    "the Swap history of the last {} blocks was not read within {} s (the part of the time budget left for it); the rest of the answer stands",
                    options.window_blocks,
                    options.budget.as_secs_f64()
                ),
                _ => "scan_history was false: the pool's Swap history was not read".to_owned(),
            }),
            from_block: None,
            to_block: None,
            window_blocks: None,
            window_seconds: None,
            window_seconds_source: None,
            window_seconds_null_reason: None,
            detection_rule: DETECTION_RULE.to_owned(),
            label: label.to_owned(),
            swaps_scanned: None,
            count: None,
            matches: Vec::new(),
            eth_get_logs_requests: None,
            ranges_split: None,
        },
        History::Scanned((scan, first_timestamp)) => SandwichHistory {
            scanned: true,
            skipped_reason: None,
            from_block: Some(scan.from_block),
            to_block: Some(scan.to_block),
            window_blocks: Some(scan.to_block - scan.from_block + 1),
            window_seconds: (first_timestamp < read.block.timestamp)
                .then(|| read.block.timestamp - first_timestamp),
            window_seconds_source: Some(
                "timestamp of the last block minus that of the first block".to_owned(),
            ),
            window_seconds_null_reason: (first_timestamp >= read.block.timestamp).then(|| {
                format!(
                    "the first block's timestamp ({first_timestamp}) is not earlier than the last block's ({}): the node does not keep the window's first block as it was mined (a devnet loaded from a state dump, or a pruned header)",
                    read.block.timestamp
                )
            }),
            detection_rule: DETECTION_RULE.to_owned(),
            label: label.to_owned(),
            swaps_scanned: Some(scan.swaps),
            count: Some(scan.matches.len()),
            matches: scan
                .matches
                .iter()
                .map(|m| {
                    let token = if m.profit_in_token0 {
                        read.pool.token0
                    } else {
                        read.pool.token1
                    };
                    SandwichFound {
                        block: m.block,
                        attacker: show(m.attacker),
                        front_run: SandwichTx {
                            tx: m.front_run.tx_hash.to_string(),
                            tx_index: m.front_run.tx_index,
                        },
                        back_run: SandwichTx {
                            tx: m.back_run.tx_hash.to_string(),
                            tx_index: m.back_run.tx_index,
                        },
                        victims: m
                            .victims
                            .iter()
                            .map(|v| SandwichVictim {
                                tx: v.swap.tx_hash.to_string(),
                                trader: show(v.trader),
                            })
                            .collect(),
                        profit: signed_amount(m.profit, decimals_of(token)),
                        profit_token: show(token),
                    }
                })
                .collect(),
            eth_get_logs_requests: Some(scan.requests),
            ranges_split: Some(scan.splits),
        },
    };

    // Mitigations.
    let mut null_reasons = Vec::new();
    let tighter: Vec<ToleranceMitigation> = TIGHTER_TOLERANCES_BPS
        .iter()
        .filter(|&&t| t < request.slippage_bps)
        .filter_map(
            |&t| match tolerance_scenario(&read.model, amount_in, zero_for_one, t) {
                Ok(s) => Some(ToleranceMitigation {
                    slippage_bps: t,
                    max_loss: amount(s.max_loss, d_out),
                    max_loss_usd: ctx.usd(&read.usd_out, s.max_loss, false).ok(),
                    optimum_profit: signed_amount(s.attack.optimum.profit, d_in),
                    optimum_still_pays: if s.attack.location == OptimumLocation::NoProfit {
                        Some(false)
                    } else {
                        pays(&ctx, s.attack.optimum.profit, cost_ok, native_in)
                    },
                }),
                Err(e) => {
                    null_reasons.push(format!("{t} bps: {e}"));
                    None
                }
            },
        )
        .collect();
    let swap_gas = dex_math::gas::GasModel::default()
        .route_gas(&[dex_math::gas::Hop {
            kind: dex_route::hop_kind(read.pool.key),
            measured_gas: None,
        }])
        .ok();
    let split_order: Vec<SplitMitigation> = SPLIT_PARTS
        .iter()
        .filter_map(|&parts| {
            match split_scenario(
                &read.model,
                amount_in,
                zero_for_one,
                request.slippage_bps,
                parts,
            ) {
                Ok(s) => {
                    let extra_wei = match (&swap_gas, &read.gas_price_wei) {
                        (Some(gas), Ok(price)) => {
                            dex_math::gas::gas_cost_wei(gas.units, *price, read.l1_fee_wei())
                                .ok()
                                .map(|one| one * U256::from(parts - 1))
                        }
                        _ => None,
                    };
                    Some(SplitMitigation {
                        parts,
                        extra_gas_usd: extra_wei
                            .and_then(|w| ctx.usd(&read.usd_native, w, true).ok()),
                        impact_saved_bps: (s.impact_saved_bps * 100.0).round() / 100.0 + 0.0,
                        attacker_profit_per_part: signed_amount(
                            s.largest_part_attack.optimum.profit,
                            d_in,
                        ),
                        attacker_profit_all_parts: signed_amount(s.attack_profit_all_parts, d_in),
                        per_part_attack_pays: if s.largest_part_attack.location
                            == OptimumLocation::NoProfit
                        {
                            Some(false)
                        } else {
                            pays(
                                &ctx,
                                s.largest_part_attack.optimum.profit,
                                cost_ok,
                                native_in,
                            )
                        },
                    })
                }
                Err(e) => {
                    null_reasons.push(format!("{parts} parts: {e}"));
                    None
                }
            }
        })
        .collect();
    let private_submission = if mempool.exists {
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

    let mid_choice = match read.choice {
        PoolChoice::BestDirectQuote => (
            "best_direct_quote",
            format!(
                "the best gross direct quote for the whole amount at block {} among {} direct quotes (what /dex/quote ranks first among direct routes)",
                read.block.number,
                read.direct_quotes.len()
            ),
        ),
        PoolChoice::Named => (
            "route",
            "named by the caller; its factory returns it for the pair".to_owned(),
        ),
    };
    let pool = AssessedPool {
        address: show(read.pool.address),
        dex: read.pool.dex.as_str().to_owned(),
        pool_type: pool_type(read.pool.key).to_owned(),
        fee_tier_ppm: match read.pool.key {
            PoolKey::Concentrated { fee, .. } => Some(fee),
            _ => None,
        },
        fee_bps: fee_bps(&read.state, read.pool.key),
        chosen_by: mid_choice.0.to_owned(),
        why: mid_choice.1,
        direct_quotes_compared: read
            .direct_quotes
            .iter()
            .map(|leg| DirectQuote {
                pool: show(leg.pool.address),
                dex: leg.pool.dex.as_str().to_owned(),
                pool_type: pool_type(leg.pool.key).to_owned(),
                amount_out: amount(leg.amount_out, d_out),
                chosen: leg.pool.address == read.pool.address,
            })
            .collect(),
    };
    let quote_source = match read.quote.source {
        dex_route::QuoteSource::QuoterV2 => "quoter_v2",
        dex_route::QuoteSource::Reserves => "reserves",
        dex_route::QuoteSource::SolidlyReserves => "solidly_reserves",
        dex_route::QuoteSource::PoolGetAmountOut => "pool_get_amount_out",
    };
    let mut assumptions = vec![
        format!(
            "Every state read was made at block {} in {} sequential round trips; the history scan reads logs up to that block.",
            read.block.number, read.sequential_round_trips
        ),
        "The attacker's figures are an estimate: a searcher front-runs with the profit-maximising amount the caller's tolerance permits and back-runs by selling everything it bought, in the same block, with nothing else trading on the pool in between.".to_owned(),
        "Profit is gross (before gas and any builder payment); gas is two transactions at eth_gasPrice of the block with the devnet-measured gas units printed, plus the L1 data fee of a representative swap transaction on OP-stack chains.".to_owned(),
        "USD is the chain's USDC at 1 USD, through the price sources printed with each token.".to_owned(),
        format!(
            "The model's unattacked output is compared with the official quote ({quote_source}) at the same block: model_error_bps."
        ),
        "Splits assume each part trades on the same pool state (separate blocks, arbitrage restoring the price in between).".to_owned(),
    ];
    if let Some(window) = &read.ticks {
        assumptions.push(format!(
            "Concentrated liquidity: the simulation uses the initialized ticks of TickLens words {}..{} ({} words, {} ticks) from the current price through the price after the trade plus twice the tolerance and {} ticks; no initialized tick beyond them is assumed (attacker.ticks_read.attack_stays_inside says whether the attack stays inside).",
            window.words.0,
            window.words.1,
            i32::from(window.words.1) - i32::from(window.words.0) + 1,
            window.initialized_ticks,
            dex_route::mev::TICK_MARGIN
        ));
    }
    Ok(MevRiskAnswer {
        chain,
        block_number: read.block.number,
        block_timestamp: read.block.timestamp,
        pool,
        token_in: trade_token(read, token_in, &read.usd_in, d_in.unwrap_or(0)),
        token_out: trade_token(read, token_out, &read.usd_out, d_out.unwrap_or(0)),
        amount_in: amount(amount_in, d_in),
        slippage_bps: request.slippage_bps,
        quoted_out: amount(quoted_out, d_out),
        quote_source: quote_source.to_owned(),
        amount_out_min: amount(min, d_out),
        max_loss: amount(max_loss, d_out),
        max_loss_usd: max_loss_usd.as_ref().ok().cloned(),
        max_loss_usd_null_reason: max_loss_usd.err(),
        attacker,
        attack_gas,
        attack_pays,
        attack_pays_sentence,
        model_error_bps,
        model_amount_out: amount(model_out, d_out),
        public_mempool: mempool,
        recent_sandwiches_on_pool: recent,
        mitigations: Mitigations {
            tighter_tolerance: tighter,
            split_order,
            private_submission,
            null_reason: (!null_reasons.is_empty()).then(|| null_reasons.join("; ")),
        },
        rpc_round_trips: read.sequential_round_trips,
        assumptions,
    })
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
