//! Pool kinds: one module per kind of pool behind one trait, [`PoolKind`], and [`of`], the
//! registry that gives a kind's adapter.
//!
//! A kind says how its pools are found for a pair (its factory lookups), what its state at the
//! pinned block is, how a swap is quoted exactly, how an exit is simulated, how its depth is
//! measured, which gas figure a hop takes, how its Swap logs read and what the sandwich maths
//! models it as. Discovery, legs, pricing, the pool read (`/pool/liquidity`) and the sandwich
//! assessment (`/mev/risk`) ask the adapter and never match on a kind themselves, so a new kind
//! is its module, a line in [`of`], its variants in chain-read's registry, and the devnet.
//!
//! Every adapter adds its calls to the caller's [`Batch`] in the order the read composes them
//! and returns a decoder for the answers ([`Decode`]), so reads of every kind share the same
//! round trips.

pub(crate) mod balancer;
pub(crate) mod concentrated;
pub(crate) mod constant_product;
pub(crate) mod solidly;
pub(crate) mod uniswap_v4;

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::Log;
use chain_read::dex::concentrated::ClQuote;
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, DexKind};
use chain_read::{TokenMetadata, dex::sort_tokens};
use dex_math::Ratio;
use dex_math::gas::HopKind;
use mev_sim::{PoolModel, SwapEvent, SwapLog};

use crate::error::RouteError;
use crate::liquidity::depth::BandCapital;
use crate::liquidity::exit::TicksRead;
use crate::liquidity::{TickCoverage, TickSource};
use crate::mev::TickWindow;
use crate::outcome::{Failure, FailureReason, Leg, PoolVariant, QuoteSource};
use crate::plan::Pair;

/// Decodes what an adapter added to a batch, once the batch has answered.
pub type Decode<T> = Arc<dyn Fn(&BatchResults) -> T + Send + Sync>;

/// Decodes a quote: from the quotes batch (`None` when none was sent) or from the pool's state.
pub type QuoteDecode = Arc<
    dyn Fn(
            Option<&BatchResults>,
            Option<&Result<PoolState, CallFailure>>,
        ) -> Result<Quoted, FailureReason>
        + Send
        + Sync,
>;

/// Decodes what a contract named by address claims to be as a pool of one kind, given the DEX
/// its `factory()` names.
pub type ClaimDecode = Arc<dyn Fn(&BatchResults, &Dex) -> Result<Claim, NotAPool> + Send + Sync>;

/// Why a contract named by address is not a pool of the kind of the DEX its `factory()` names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAPool {
    /// Uniswap V4 pools live in one contract and are named by id.
    #[error("a Uniswap V4 pool is named by its PoolId, not by a contract address")]
    NamedByPoolId,
    /// A concentrated-liquidity pool's state reads failed.
    #[error("its slot0/liquidity/fee/tickSpacing did not answer ({0})")]
    NoConcentratedState(CallFailure),
    /// `stable()` failed.
    #[error("it does not answer stable() as a Solidly pool does ({0})")]
    NotSolidly(CallFailure),
    /// The factory is of a DEX of another kind.
    #[error("its factory is not a constant-product factory")]
    NotConstantProductFactory,
    /// Balancer V2 pools are read from the registry's list, by pool id.
    #[error("a Balancer V2 pool is read by its pool id from the registry's list, not by address")]
    BalancerByPoolId,
}

/// The initialized ticks a sandwich assessment read: the words and the ticks with their
/// `liquidityNet`.
pub type MevTicks = ((i16, i16), BTreeMap<i32, i128>);

/// Adds the next round trip of a tick read to a batch and decodes it.
pub type NextTicks = Box<dyn FnOnce(&mut Batch) -> Decode<Result<MevTicks, RouteError>> + Send>;

/// A tick read after one round trip: done, or one more round trip (the ticks a bitmap marked).
pub enum TickStage {
    /// Every initialized tick of the words read.
    Done(MevTicks),
    /// The words are read; the ticks they mark take one more round trip.
    More(NextTicks),
}

impl std::fmt::Debug for TickStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Done(ticks) => f.debug_tuple("Done").field(ticks).finish(),
            Self::More(_) => f.write_str("More"),
        }
    }
}

/// Where a pool's Swap logs are: the emitting contracts, the event's topic, and the pool's
/// own topic when the contract logs for many pools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapLogFilter {
    /// Contracts that emit the logs.
    pub addresses: Vec<Address>,
    /// The Swap event's topic.
    pub topic: B256,
    /// The second topic, when one contract logs every pool's swaps.
    pub topic1: Option<B256>,
}

/// One factory lookup of discovery and what it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The pair looked up.
    pub pair: Pair,
    /// Which pool of the DEX (fee tier, pair, Solidly type).
    pub variant: PoolVariant,
    /// The pool's address and key, or why there is none.
    pub found: Result<(Address, PoolKey), FailureReason>,
}

/// A leg's amount out and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quoted {
    /// Amount bought.
    pub amount_out: U256,
    /// Where it came from.
    pub source: QuoteSource,
    /// QuoterV2's full answer, when the kind is quoted by it.
    pub quoter: Option<ClQuote>,
    /// The quoter's gas measurement of the swap, when the kind's quoter gives one.
    pub gas_estimate: Option<U256>,
}

/// What a contract named by address is as a pool of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// Its key, from its own state.
    pub key: PoolKey,
    /// `(sqrtPriceX96, tick, tickSpacing)` when the kind walks ticks: the tick words can be
    /// read in the next round trip.
    pub ticks_from: Option<(U256, i32, i32)>,
}

/// An exit's amounts as the kind computes them.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitAmounts {
    /// Raw amount received.
    pub amount_out: U256,
    /// Where it comes from.
    pub source: QuoteSource,
    /// The pool's fee, bps.
    pub fee_bps: f64,
    /// The mid price after the trade, raw output per raw input, or why it is not known.
    pub mid_after: Result<Ratio, RouteError>,
    /// QuoterV2's answer (price after, ticks crossed), when quoted by it.
    pub quoter: Option<ClQuote>,
}

/// One word of initialized ticks as a pool read asks for it.
#[derive(Clone)]
pub enum WordRead {
    /// The word's initialized ticks with their `liquidityNet` (TickLens).
    Populated(Decode<Result<Vec<(i32, i128)>, CallFailure>>),
    /// The ticks the word's bitmap marks; their `liquidityNet` takes one more round trip
    /// ([`PoolKind::tick_net`]).
    Marked(Decode<Result<Vec<i32>, CallFailure>>),
}

impl std::fmt::Debug for WordRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Populated(_) => "Populated",
            Self::Marked(_) => "Marked",
        })
    }
}

/// The initialized ticks a pool read walked (tick → `liquidityNet`) and what they cover.
pub type WalkedTicks = (BTreeMap<i32, i128>, TickCoverage);

/// Depth bands and the ticks they used.
pub type Depth = (Result<Vec<BandCapital>, RouteError>, Option<TickCoverage>);

/// A pool the quote lens may find for a pair: its key as far as it is known before discovery
/// answers, its address when known up front, and the discovery call that finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LensCandidate {
    /// The pool's key (a concentrated-liquidity pool's tick spacing is not known yet: 0).
    pub key: PoolKey,
    /// The address, when known before discovery (Uniswap V4's per-id stand-in); `None`
    /// when the lookup answers it.
    pub address: Option<Address>,
    /// The discovery call (target, calldata) whose first word is non-zero when the pool
    /// exists (and is its address when `address` is `None`).
    pub lookup: (Address, alloy::primitives::Bytes),
}

/// How the quote lens reads a leg's amount out, to pick the first legs second legs continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LensOutput {
    /// The first word of the quote's first call.
    Quoted,
    /// Uniswap V2's `getAmountOut` on the reserves the state's first call reads.
    Reserves {
        /// The pool's fee, bps.
        fee_bps: u32,
    },
}

/// The one call `add` puts in a batch, as (target, calldata): a lookup as discovery sends it.
pub(crate) fn lookup_call(add: impl FnOnce(&mut Batch)) -> (Address, alloy::primitives::Bytes) {
    let mut batch = Batch::new();
    add(&mut batch);
    batch
        .calls()
        .last()
        .map(|(target, data)| (target, data.clone()))
        .unwrap_or_default()
}

/// One kind of pool: everything a read needs to know about it. Implemented once per kind, by
/// the modules of this one; [`of`] picks the implementation.
pub trait PoolKind: Send + Sync {
    /// Discovery: adds the lookups of every pool of this kind `dex` may hold for each pair.
    fn lookups(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>>;

    /// The pools of this kind `dex` may hold for `pair`, in the order [`lookups`](Self::lookups)
    /// finds them, for the quote lens (which runs discovery and the quotes in one call).
    fn lens_candidates(&self, chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate>;

    /// How the quote lens reads a leg's amount out through `pool`.
    fn lens_output(&self, _pool: &Pool) -> LensOutput {
        LensOutput::Quoted
    }

    /// Adds the reads of `pool`'s state at the pinned block.
    fn state(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
    ) -> Decode<Result<PoolState, CallFailure>>;

    /// Adds the exact quote of selling `amount_in` of `token_in` through `pool` (nothing when
    /// the kind computes it from the state).
    fn quote(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> QuoteDecode;

    /// The mid price for selling `token_in`, raw output per raw input.
    fn mid(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        tokens: &[TokenMetadata],
    ) -> Result<Ratio, RouteError>;

    /// Adds the reads that tell a contract named by address is a pool of this kind (added for
    /// every kind in the registry's order, before its factory is known).
    fn claim(&self, batch: &mut Batch, address: Address) -> ClaimDecode;

    /// Adds the factory's own lookup of `pool` (the address it returns must be the pool).
    fn confirm(
        &self,
        batch: &mut Batch,
        dex: &Dex,
        pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>>;

    /// Whether exits are quoted by a call in the quotes round trip (else from the state).
    fn quotes_exits(&self) -> bool;

    /// An exit of `amount_in` of `token_in`: `quoted` is the quote added with
    /// [`quote`](Self::quote) when [`quotes_exits`](Self::quotes_exits); `ticks` the
    /// initialized ticks the pool read walked, for a kind that walks them.
    #[allow(clippy::too_many_arguments)]
    fn exit(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        amount_in: U256,
        quoted: Option<Result<Quoted, FailureReason>>,
        tokens: &[TokenMetadata],
        ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError>;

    /// Whether a failed exit quote means the pool could not take the size (it ran out of
    /// ticks), so what it can take is worth saying.
    fn partial_fills(&self) -> bool {
        false
    }

    /// What the ticks read take of a size the pool could not fill.
    fn fillable(
        &self,
        _pool: &Pool,
        _state: &PoolState,
        _token_in: Address,
        _amount_in: U256,
        _ticks: Option<TicksRead<'_>>,
    ) -> Option<(U256, U256)> {
        None
    }

    /// `(sqrtPriceX96, tick, tickSpacing)` of a state whose depth is a walk over initialized
    /// ticks, which the pool read then reads around the price.
    fn tick_walk(&self, _pool: &Pool, _state: &PoolState) -> Option<(U256, i32, i32)> {
        None
    }

    /// Adds the reads of the initialized ticks in bitmap words `words.0..=words.1` of a pool
    /// whose depth is a tick walk, and says where they come from.
    fn tick_words(
        &self,
        _batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
        _words: (i16, i16),
    ) -> Result<(TickSource, Vec<WordRead>), RouteError> {
        Err(RouteError::NotReadForKind {
            dex: pool.dex,
            what: "initialized ticks",
        })
    }

    /// Adds the read of one initialized tick's `liquidityNet`, after a word marked it.
    fn tick_net(
        &self,
        _batch: &mut Batch,
        _chain: &ChainInfo,
        _pool: &Pool,
        _tick: i32,
    ) -> Decode<Result<(i32, i128), CallFailure>> {
        Arc::new(|_| {
            Err(CallFailure::Decode(
                "this pool kind reads no ticks".to_owned(),
            ))
        })
    }

    /// Bitmap words a pool read takes on each side of the price beyond its depth bands, for
    /// a kind whose exits' price after is simulated over the ticks read (its quoter gives no
    /// price after); 0 when the quoter gives it.
    fn exit_reach_words(&self) -> i16 {
        0
    }

    /// Whether the pool holds its tokens itself (its `balanceOf` is its reserve); not so
    /// where one contract holds every pool's tokens.
    fn holds_balances(&self) -> bool {
        true
    }

    /// The pool's balances of token0 and token1 as its state holds them, for a kind whose
    /// tokens another contract holds but whose state says how much of them is the pool's
    /// (Balancer's Vault: `getPoolTokens`).
    fn own_balances(&self, _pool: &Pool, _state: &PoolState) -> Option<[U256; 2]> {
        None
    }

    /// How deep a pool of the pair is, raw token1 units, to choose among the pools of a DEX
    /// when no fee tier was named: by default its balances valued at its own mid price.
    fn candidate_value(
        &self,
        pool: &Pool,
        state: &PoolState,
        tokens: &[TokenMetadata],
        balances: [Result<U256, RouteError>; 2],
    ) -> Result<U256, RouteError> {
        let [balance0, balance1] = balances;
        let (balance0, balance1) = (balance0?, balance1?);
        let mid = self.mid(pool, state, pool.token0, tokens)?;
        let value0 = alloy::primitives::U512::from(balance0) * mid.numerator / mid.denominator;
        Ok(value0.saturating_to::<U256>().saturating_add(balance1))
    }

    /// In-range liquidity, for a kind where it measures depth at the price (the USD
    /// reference is the pool with the most).
    fn in_range_liquidity(&self, _state: &PoolState) -> Option<u128> {
        None
    }

    /// Capital within each band: `decimals` of token0 and token1, `ticks` as read when the
    /// kind walks them.
    fn depth(
        &self,
        pool: &Pool,
        state: &PoolState,
        decimals: (u8, u8),
        ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth;

    /// The gas figure of a hop through a pool with `key`.
    fn hop(&self, key: PoolKey) -> HopKind;

    /// Which pool of a DEX a failure is about.
    fn variant(&self, key: PoolKey) -> PoolVariant;

    /// The topic of the kind's Swap event.
    fn swap_topic(&self) -> B256;

    /// One log as a typed swap, `None` when it is not the kind's Swap.
    fn swap_event(&self, log: &Log) -> Option<SwapEvent>;

    /// Whether a log of `pool` is a swap of its pair: not so for the swaps of a pool's other
    /// pairs, where a pool holds more than two tokens (Balancer).
    fn logs_pair(&self, _pool: &Pool, _log: &Log) -> bool {
        true
    }

    /// The DEX's shared router, never taken for an attacker.
    fn router(&self, contracts: &DexContracts) -> Option<Address>;

    /// Adds the tick reads a sandwich on `pool` can reach (kinds that walk ticks).
    fn mev_ticks(
        &self,
        _batch: &mut Batch,
        _chain: &ChainInfo,
        _quote: &Leg,
        _state: &PoolState,
        _slippage_bps: u32,
    ) -> Result<Option<Decode<Result<TickStage, RouteError>>>, RouteError> {
        Ok(None)
    }

    /// Whether the sandwich maths models this pool (the assessment picks among those).
    fn models_sandwich(&self, _pool: &Pool) -> bool {
        true
    }

    /// Whether the kind's Swap logs name the trader (the pool's caller or recipient); when not
    /// (Uniswap V4 logs the PoolManager's caller, a router), the history scan reads the
    /// transactions' signers to match sandwiches.
    fn logs_name_traders(&self) -> bool {
        true
    }

    /// Where `pool`'s Swap logs are.
    fn swap_logs(&self, _chain: &ChainInfo, pool: &Pool) -> SwapLogFilter {
        SwapLogFilter {
            addresses: vec![pool.address],
            topic: self.swap_topic(),
            topic1: None,
        }
    }

    /// Whether `/pool/liquidity` reads this kind (exits, depth).
    fn reads_pool_liquidity(&self) -> bool {
        true
    }

    /// The pool as the sandwich maths models it, with the tick window read.
    fn mev_model(
        &self,
        pool: &Pool,
        state: &PoolState,
        tokens: &[TokenMetadata],
        ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError>;
}

/// The kinds a contract named by address is probed as, in order. Slipstream and Algebra Integral
/// are not among them yet: no DEX of the built-in registry is of those kinds, and their claims
/// would add calls to every pool read by address (`/pool/liquidity` does not read them yet).
pub const ALL: [DexKind; 4] = [
    DexKind::ConcentratedLiquidity,
    DexKind::ConstantProduct,
    DexKind::Solidly,
    DexKind::ConcentratedLiquidityV4,
];

/// The adapter of `kind`: the registry of kinds.
pub fn of(kind: DexKind) -> &'static dyn PoolKind {
    match kind {
        DexKind::ConcentratedLiquidity => &concentrated::FEE_TIERS,
        DexKind::ConstantProduct => &constant_product::ConstantProduct,
        DexKind::Solidly => &solidly::Solidly,
        DexKind::ConcentratedLiquidityV4 => &uniswap_v4::UniswapV4,
        DexKind::Slipstream => &concentrated::TICK_SPACINGS,
        DexKind::AlgebraIntegral => &concentrated::PER_PAIR,
        DexKind::AlgebraV1 => &concentrated::ALGEBRA_V1,
        DexKind::BalancerV2 => &balancer::Balancer,
    }
}

/// The adapter of `pool`'s kind.
pub fn of_pool(pool: &Pool) -> &'static dyn PoolKind {
    of(pool.key.kind())
}

/// The pool of a lookup that found `address` for `pair`.
pub(crate) fn found_pool(dex: &Dex, pair: &Pair, address: Address, key: PoolKey) -> Pool {
    let (token0, token1) = sort_tokens(pair.token_in, pair.token_out);
    Pool {
        dex: dex.id,
        address,
        token0,
        token1,
        key,
    }
}

/// Splits probes into the pools found and the failures (in probe order).
pub(crate) fn settle_probes(
    dex: &Dex,
    probes: Vec<Probe>,
    found: &mut Vec<Pool>,
    failures: &mut Vec<Failure>,
) {
    for probe in probes {
        match probe.found {
            Ok((address, key)) => found.push(found_pool(dex, &probe.pair, address, key)),
            Err(reason) => failures.push(Failure {
                dex: dex.id,
                role: probe.pair.role,
                token_in: probe.pair.token_in,
                token_out: probe.pair.token_out,
                variant: Some(probe.variant),
                pool: None,
                reason,
            }),
        }
    }
}

/// A factory lookup's answer as a probe outcome: the zero address is no pool.
pub(crate) fn lookup_outcome(
    answer: Result<Option<Address>, CallFailure>,
    key: PoolKey,
) -> Result<(Address, PoolKey), FailureReason> {
    match answer {
        Ok(Some(address)) => Ok((address, key)),
        Ok(None) => Err(FailureReason::NoPool),
        Err(failure) => Err(FailureReason::Call(failure)),
    }
}

/// The Swap-log fields every kind shares.
pub(crate) fn swap_log(log: &Log, sender: Address, recipient: Address) -> SwapLog {
    SwapLog {
        block: log.block_number.unwrap_or_default(),
        tx_index: log.transaction_index.unwrap_or_default(),
        log_index: log.log_index.unwrap_or_default(),
        tx_hash: log.transaction_hash.unwrap_or_default(),
        pool: log.address(),
        sender,
        recipient,
        tx_from: None,
    }
}

/// The failure of a quote whose answer is not there (no batch sent, or no state read).
pub(crate) fn missing() -> FailureReason {
    FailureReason::Call(CallFailure::Decode("no answer in batch".to_owned()))
}

/// The quote of a kind whose one read answers the amount out itself (a pool's `getAmountOut`,
/// BalancerQueries' `querySwap`): no quoter address and no gas estimate come with it.
pub(crate) fn amount_call_quote(
    decode: impl Fn(&BatchResults) -> Result<U256, CallFailure> + Send + Sync + 'static,
    source: QuoteSource,
) -> QuoteDecode {
    Arc::new(move |results, _| {
        let amount_out = decode(results.ok_or_else(missing)?).map_err(FailureReason::Call)?;
        Ok(Quoted {
            amount_out,
            source,
            quoter: None,
            gas_estimate: None,
        })
    })
}

/// Token decimals from the read's metadata.
pub(crate) fn decimals(tokens: &[TokenMetadata], token: Address) -> Result<u8, RouteError> {
    crate::outcome::decimals_of(tokens, token).ok_or(RouteError::DecimalsUnknown { token })
}
