//! The chain reads of a sandwich-risk assessment: the pool `/dex/quote` would pick for the
//! direct trade (or the caller's pool, confirmed by its factory's own lookup for the pair),
//! its state as a [`mev_sim::PoolModel`] (for concentrated liquidity with the initialized
//! ticks of the TickLens words the victim and the front-run can reach), the gas price, the L1
//! data fee, USD prices, and the pool's Swap history ([`history`]).
//!
//! Round trips (Multicall3 batches at one pinned block):
//!
//! | 1 | 2 | 3 |
//! |---|---|---|
//! | the DEXes' lookups for the pair, token metadata, `eth_gasPrice` | the direct quotes, every pool's state, the L1 data fee; **at the same time** the wrapped-native/USDC lookups and USDC's metadata | TickLens words of the chosen pool (concentrated liquidity), the wrapped-native/USDC states |
//!
//! Three sequential stages, four HTTP requests (stage 2 sends two at once). [`assess`] is the
//! whole assessment of `/mev/risk` in one call: these reads, the history scan within a time
//! budget and the sandwich maths.

mod assess;
pub mod history;

use alloy::primitives::{Address, U256};
use chain_read::dex::{Pool, PoolState};
use chain_read::erc20;
use chain_read::{
    Batch, BlockPin, ChainInfo, ChainReadError, L1DataFee, PinnedReader, TokenMetadata,
};
use dex_math::gas::{GasModel, Hop, RouteGas};
use mev_sim::PoolModel;

use crate::discovery::Discovery;
use crate::error::RouteError;
use crate::gas::hop_kind;
use crate::kinds;
use crate::liquidity::usd::{ReferenceLookups, ReferenceStates, UsdPrice, usd_price};
use crate::outcome::{Failure, Leg, QuoteOutcome};
use crate::plan::{QuotePlan, QuoteRequest};

pub use assess::{
    AssessError, AssessRequest, Assessment, HISTORY_WINDOW_BLOCKS, History, HistoryOptions,
    MitigationError, SPLIT_PARTS, SplitAssessed, TIGHTER_TOLERANCES_BPS, ToleranceAssessed, assess,
    positive,
};

/// Most TickLens words read in the trade's direction (each word covers 256 tick spacings).
pub const MAX_TICK_WORDS: i32 = 16;

/// Ticks (about 1 bp of price each) added beyond the price after the victim's own trade, on
/// top of twice the tolerance: the front-run at the caller's bound moves the price by about
/// the tolerance again, and the margin absorbs the back-run's rounding.
pub const TICK_MARGIN: i32 = 100;

/// What to assess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MevPoolRequest {
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// The caller's pool, instead of the best direct quote.
    pub route: Option<NamedPool>,
    /// The caller's tolerance, bps (sizes the tick read).
    pub slippage_bps: u32,
}

/// A pool the caller names: a contract address, or a 32-byte pool id (a Uniswap V4 PoolId or
/// a Balancer V2 pool id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedPool {
    /// A pool contract.
    Address(Address),
    /// A Uniswap V4 pool by its PoolId, or a Balancer V2 pool by its pool id.
    V4(alloy::primitives::B256),
}

impl NamedPool {
    /// Whether `pool` is the one named.
    pub fn is(&self, pool: &Pool) -> bool {
        match (self, pool.key) {
            (Self::V4(named), chain_read::dex::PoolKey::V4 { id, .. }) => *named == id,
            // A 32-byte pool id names a Balancer V2 pool too.
            (Self::V4(named), chain_read::dex::PoolKey::Balancer { id, .. }) => *named == id,
            (Self::V4(_), _) => false,
            // A V4 pool has no address of its own; the one it has in a read is internal.
            (Self::Address(_), chain_read::dex::PoolKey::V4 { .. }) => false,
            (Self::Address(address), _) => pool.address == *address,
        }
    }
}

/// Why the pool was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolChoice {
    /// The best gross direct quote at the block (what `/dex/quote` ranks first among direct
    /// routes).
    BestDirectQuote,
    /// The caller named it, and its factory returns it for the pair.
    Named,
    /// The best gross direct quote among pools whose kind the sandwich maths models: a better
    /// direct quote came from a kind it does not model yet (Uniswap V4).
    BestModelledQuote,
}

/// The initialized ticks read for a concentrated-liquidity pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickWindow {
    /// First and last TickLens word read.
    pub words: (i16, i16),
    /// Initialized ticks found in them.
    pub initialized_ticks: usize,
    /// The lowest and highest tick the words cover.
    pub ticks: (i32, i32),
}

impl TickWindow {
    /// Whether a price after a swap (its tick) stays within the words read.
    pub fn covers(&self, tick: i32) -> bool {
        tick >= self.ticks.0 && tick < self.ticks.1
    }
}

/// Everything the assessment read.
#[derive(Debug, Clone)]
pub struct MevPool {
    /// The block of every read.
    pub block: BlockPin,
    /// The pool.
    pub pool: Pool,
    /// How it was chosen.
    pub choice: PoolChoice,
    /// Its state as read.
    pub state: PoolState,
    /// Its state for the sandwich maths.
    pub model: PoolModel,
    /// The official quote of the whole amount on the pool (QuoterV2, `getAmountOut` maths on
    /// the reserves).
    pub quote: Leg,
    /// Every direct quote of the pair at the block, best first.
    pub direct_quotes: Vec<Leg>,
    /// DEXes, tiers and pools without a quote, with why.
    pub failures: Vec<Failure>,
    /// Metadata of the pair's tokens, the wrapped native token and USDC.
    pub tokens: Vec<TokenMetadata>,
    /// `token_in`'s USD price.
    pub usd_in: Result<UsdPrice, RouteError>,
    /// `token_out`'s USD price.
    pub usd_out: Result<UsdPrice, RouteError>,
    /// The wrapped native token's USD price (the unit of gas).
    pub usd_native: Result<UsdPrice, RouteError>,
    /// USDC's decimals (the unit of every USD figure).
    pub usdc_decimals: Option<u8>,
    /// The chain's wrapped native token (the unit of gas).
    pub native: Address,
    /// `eth_gasPrice`, wei.
    pub gas_price_wei: Result<u128, RouteError>,
    /// The L1 data fee of one representative swap transaction.
    pub l1_data_fee: L1DataFee,
    /// Gas units of one attacker transaction on this pool type (a router-less bot pays less:
    /// the figure is an upper estimate of the devnet-measured kind).
    pub attack_tx_gas: RouteGas,
    /// The ticks read (concentrated liquidity).
    pub ticks: Option<TickWindow>,
    /// Sequential stages of reads.
    pub sequential_round_trips: u32,
    /// HTTP requests sent.
    pub requests: u32,
}

impl MevPool {
    /// Whether the victim sells token0.
    pub fn zero_for_one(&self) -> bool {
        self.quote.token_in == self.pool.token0
    }

    /// Gas cost of the attack's two transactions, wei: `2 × (units × gas price + L1 fee)`.
    pub fn attack_cost_wei(&self) -> Result<U256, RouteError> {
        let price = self.gas_price_wei.clone()?;
        let one = dex_math::gas::gas_cost_wei(self.attack_tx_gas.units, price, self.l1_fee_wei())
            .map_err(RouteError::Math)?;
        one.checked_mul(U256::from(2u8))
            .ok_or(RouteError::Math(dex_math::MathError::Overflow))
    }

    /// The L1 data fee of one transaction, zero when not read.
    pub fn l1_fee_wei(&self) -> U256 {
        match &self.l1_data_fee {
            L1DataFee::Read { fee_wei, .. } => *fee_wei,
            _ => U256::ZERO,
        }
    }
}

/// Round trip 1 done: the tokens' metadata is known, so the caller can turn a decimal amount
/// into raw units before the quotes.
#[derive(Debug)]
pub struct MevDiscovery<'c> {
    chain: &'c ChainInfo,
    request: MevPoolRequest,
    discovery: Discovery<'c>,
}

impl<'c> MevDiscovery<'c> {
    /// Round trip 1: the pair's pools on every DEX, the tokens' metadata and the gas price.
    pub async fn discover(
        chain: &'c ChainInfo,
        reader: &PinnedReader,
        request: &MevPoolRequest,
    ) -> Result<Self, RouteError> {
        let plan = QuoteRequest {
            include_multihop: false,
            native_reference_amount: None,
            read_gas_price: true,
            read_l1_data_fee: true,
            // Set once the decimals are known.
            ..QuoteRequest::new(chain, request.token_in, request.token_out, U256::ZERO)
        };
        let discovery = QuotePlan::new(chain, &plan)?.discover(reader).await?;
        Ok(Self {
            chain,
            request: request.clone(),
            discovery,
        })
    }

    /// The metadata read for `token`.
    pub fn token(&self, token: Address) -> Option<&TokenMetadata> {
        self.discovery.token(token)
    }

    /// Round trips 2 and 3 for `amount_in` raw units of `token_in`.
    pub async fn read(
        mut self,
        reader: &PinnedReader,
        amount_in: U256,
    ) -> Result<MevPool, RouteError> {
        let chain = self.chain;
        let request = self.request;
        self.discovery.set_amount_in(amount_in);
        // Stage 2: the quotes, and beside them the USD reference lookups.
        let mut side = Batch::new();
        let reference_lookups = ReferenceLookups::add(&mut side, chain);
        let usdc_meta = erc20::metadata(&mut side, chain.usdc());
        let native_meta = erc20::metadata(&mut side, chain.wrapped_native());
        let (outcome, side) = tokio::join!(self.discovery.quote(reader), reader.execute(side));
        let outcome: QuoteOutcome = outcome?;
        let side = side?;
        let reference_pools = reference_lookups.decode(&side);
        let mut tokens = outcome.tokens.clone();
        for meta in [usdc_meta.decode(&side), native_meta.decode(&side)] {
            if !tokens.iter().any(|t| t.address == meta.address) {
                tokens.push(meta);
            }
        }
        let usdc_decimals = tokens
            .iter()
            .find(|t| t.address == chain.usdc())
            .and_then(|t| t.decimals.clone().ok());

        let direct_quotes: Vec<Leg> = outcome
            .routes
            .iter()
            .filter(|route| route.legs.len() == 1)
            .filter_map(|route| route.legs.first().cloned())
            .collect();
        let (quote, choice) = match request.route {
            Some(named) => {
                let leg = direct_quotes.iter().find(|leg| named.is(&leg.pool));
                match leg {
                    Some(leg) => (leg.clone(), PoolChoice::Named),
                    None => return Err(unknown_route(chain, named, &outcome)),
                }
            }
            None => match direct_quotes
                .iter()
                .find(|leg| kinds::of_pool(&leg.pool).models_sandwich(&leg.pool))
            {
                Some(leg) if Some(leg) == direct_quotes.first() => {
                    (leg.clone(), PoolChoice::BestDirectQuote)
                }
                Some(leg) => (leg.clone(), PoolChoice::BestModelledQuote),
                None => {
                    return Err(RouteError::Quote(
                        "no DEX gave a direct quote for the pair at the block".to_owned(),
                    ));
                }
            },
        };
        let pool = quote.pool;
        let state = quote
            .state
            .ok_or(RouteError::PoolStateNotRead { pool: pool.address })?;

        // Stage 3: the ticks the attack can reach, and the reference states.
        let mut batch = Batch::new();
        let references = ReferenceStates::add(&mut batch, chain, reference_pools);
        let kind = kinds::of_pool(&pool);
        let tick_plan = kind.mev_ticks(&mut batch, chain, &quote, &state, request.slippage_bps)?;
        // An empty batch (no reference pool, not concentrated liquidity) sends nothing.
        let third_stage = u32::from(!batch.is_empty());
        let results = reader.execute(batch).await?;
        let reference = references.deepest(&results);

        // A kind whose ticks need a second read (V4: the words, then the ticks they mark)
        // takes a fourth stage.
        let mut fourth_stage = 0;
        let read_ticks = match tick_plan {
            Some(decode) => match decode(&results)? {
                kinds::TickStage::Done(ticks) => Some(ticks),
                kinds::TickStage::More(next) => {
                    let mut batch = Batch::new();
                    let decode = next(&mut batch);
                    let results = reader.execute(batch).await?;
                    fourth_stage = 1;
                    Some(decode(&results)?)
                }
            },
            None => None,
        };
        let (model, ticks) = kind.mev_model(&pool, &state, &tokens, read_ticks)?;

        let price =
            |token: Address| usd_price(chain, token, &pool, &state, &tokens, reference.as_ref());
        let native = chain.wrapped_native();
        let usd_native = if native == pool.token0 || native == pool.token1 {
            price(native)
        } else {
            match &reference {
                Some((ref_pool, ref_state)) => usd_price(
                    chain,
                    native,
                    ref_pool,
                    ref_state,
                    &tokens,
                    reference.as_ref(),
                ),
                None => Err(RouteError::NoReferencePool),
            }
        };
        let attack_tx_gas = GasModel::default()
            .route_gas(&[Hop {
                kind: hop_kind(pool.key),
                measured_gas: None,
            }])
            .map_err(RouteError::GasUnits)?;
        let block = reader
            .block()
            .ok_or_else(|| ChainReadError::Decode("no block pinned".to_owned()))?;
        Ok(MevPool {
            block,
            pool,
            choice,
            state,
            model,
            usd_in: price(request.token_in),
            usd_out: price(request.token_out),
            usd_native,
            usdc_decimals,
            native,
            gas_price_wei: outcome.gas_price_wei(),
            l1_data_fee: outcome.l1_data_fee.clone(),
            attack_tx_gas,
            ticks,
            quote,
            direct_quotes,
            failures: outcome.failures.clone(),
            tokens,
            sequential_round_trips: 2 + third_stage + fourth_stage,
            requests: reader.round_trips(),
        })
    }
}

/// The caller's pool is not among the pools the factories return for the pair.
fn unknown_route(chain: &ChainInfo, named: NamedPool, outcome: &QuoteOutcome) -> RouteError {
    let failure = outcome
        .failures
        .iter()
        .find(|failure| match (named, failure.variant) {
            (NamedPool::V4(id), Some(crate::outcome::PoolVariant::V4 { id: probed, .. })) => {
                failure.pool.is_some() && probed == id
            }
            (NamedPool::V4(_), _) => false,
            (NamedPool::Address(address), _) => failure.pool == Some(address),
        });
    let reason = match failure {
        Some(failure) => format!(
            "its factory returns it for the pair, but it gave no quote ({})",
            failure.reason
        ),
        None => format!(
            "no factory of a DEX the service reads on {} returns it for the pair token_in/token_out",
            chain.chain().as_str()
        ),
    };
    match named {
        NamedPool::Address(pool) => RouteError::UnknownPool { pool, reason },
        NamedPool::V4(id) => RouteError::UnknownPoolId { id, reason },
    }
}
