//! Uniswap V4 pools (v4-core's PoolManager, v4-periphery's StateView and V4Quoter): one
//! PoolManager holds every pool, named by its PoolId. Discovery probes the registry's pool
//! shapes (fee, tick spacing, hooks) for each pair with StateView's `getSlot0` (a pool exists
//! when its price is not zero), against the pair's tokens and, where one of them is the
//! wrapped native token, against native ether (currency0 = address(0)) in its place. Every
//! swap is quoted by V4Quoter, which runs it in the PoolManager with the pool's hooks, so a
//! hook that changes the result is in the quote.
//!
//! A V4 pool has no address of its own; within a read it is known by the low 20 bytes of its
//! PoolId (`Pool::address`), and its PoolId is in its key.

use std::sync::Arc;

use alloy::primitives::{Address, B256, I256, U256, U512};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::bindings::V4PoolKey;
use chain_read::dex::concentrated::{self as cl_reads, ClQuote};
use chain_read::dex::uniswap_v4::{self, V4PoolState, V4Shape};
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{
    Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, DexId, TokenMetadata,
};
use dex_math::Ratio;
use dex_math::gas::HopKind;
use mev_sim::{PoolModel, SwapEvent};

use super::{
    ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, MevTicks, NextTicks, NotAPool,
    PoolKind, Probe, QuoteDecode, Quoted, SwapLogFilter, TickStage, WalkedTicks, WordRead,
    concentrated, lookup_call, missing, swap_log,
};
use crate::error::RouteError;
use crate::liquidity::TickSource;
use crate::liquidity::exit::TicksRead;
use crate::mev::{MAX_TICK_WORDS, TickWindow};
use crate::outcome::{FailureReason, Leg, PoolVariant, QuoteSource};
use crate::plan::Pair;

// The generated constructor of an eight-field event takes eight arguments.
#[allow(clippy::too_many_arguments)]
mod events {
    alloy::sol! {
        /// Uniswap V4 PoolManager events.
        interface V4PoolManager {
            /// A swap; amounts are the swapper's balance deltas (negative: paid in).
            event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee);
        }
    }
}
use events::V4PoolManager;

/// The adapter.
pub(crate) struct UniswapV4;

/// The PoolKeys discovery probes for `pair`, in order: against the pair's tokens, then, where
/// one is the wrapped native token, against native ether in its place; for each, the
/// registry's shapes, then the shapes of the pools the chain's `Initialize` index found on
/// those currencies that the registry does not list (the kind's name for them:
/// [`found_by_event`]).
fn candidate_keys(
    chain: &ChainInfo,
    shapes: &[V4Shape],
    pair: &Pair,
) -> Vec<(V4Shape, Option<Address>, B256)> {
    let wrapped = chain.wrapped_native();
    let (token0, token1) = chain_read::dex::sort_tokens(pair.token_in, pair.token_out);
    let mut variants = vec![None];
    if !wrapped.is_zero() && (token0 == wrapped || token1 == wrapped) {
        variants.push(Some(wrapped));
    }
    let mut keys = Vec::new();
    for native in variants {
        let (currency_a, currency_b) = match native {
            Some(wrapped) => (
                Address::ZERO,
                if token0 == wrapped { token1 } else { token0 },
            ),
            None => (token0, token1),
        };
        let (currency0, currency1) = chain_read::dex::sort_tokens(currency_a, currency_b);
        let found = chain
            .v4_index()
            .map(|index| index.shapes(currency0, currency1).shapes)
            .unwrap_or_default();
        let extra = found.into_iter().filter(|shape| !shapes.contains(shape));
        for shape in shapes.iter().copied().chain(extra) {
            let id = uniswap_v4::pool_id(&shape.key(currency0, currency1));
            keys.push((shape, native, id));
        }
    }
    keys
}

/// The pool of `pair` whose PoolKey, over a shape discovery would probe (the registry's,
/// then the chain's index's, against the tokens and against native ether), hashes to `id`:
/// the key of a PoolId found without a read.
pub(crate) fn pool_named(chain: &ChainInfo, dex: &Dex, pair: &Pair, id: B256) -> Option<Pool> {
    let DexContracts::PoolManager { shapes, .. } = &dex.contracts else {
        return None;
    };
    let (token0, token1) = chain_read::dex::sort_tokens(pair.token_in, pair.token_out);
    candidate_keys(chain, shapes, pair)
        .into_iter()
        .find(|(_, _, candidate)| *candidate == id)
        .map(|(shape, native, id)| Pool {
            dex: dex.id,
            address: pool_address(id),
            token0,
            token1,
            key: key_of(shape, native, id),
        })
}

/// The pool an `Initialize` event names, with the wrapped native token standing for native
/// ether (currency0 = address(0)) among its tokens; the reason when it cannot be read so.
pub(crate) fn pool_initialized(
    chain: &ChainInfo,
    dex: DexId,
    found: &chain_read::dex::v4_index::V4Initialized,
) -> Result<Pool, String> {
    let wrapped = chain.wrapped_native();
    let native = found.currency0.is_zero().then_some(wrapped);
    let token_a = match native {
        Some(wrapped) if wrapped.is_zero() => {
            return Err(format!(
                "the pool trades native ether and the service knows no wrapped native token on {}",
                chain.chain().as_str()
            ));
        }
        Some(wrapped) if wrapped == found.currency1 => {
            return Err(
                "the pool trades native ether against its own wrapped token, which the service does not read"
                    .to_owned(),
            );
        }
        Some(wrapped) => wrapped,
        None => found.currency0,
    };
    let (token0, token1) = chain_read::dex::sort_tokens(token_a, found.currency1);
    Ok(Pool {
        dex,
        address: pool_address(found.id),
        token0,
        token1,
        key: PoolKey::V4 {
            fee: found.shape.fee,
            tick_spacing: found.shape.tick_spacing,
            hooks: found.shape.hooks,
            native,
            id: found.id,
        },
    })
}

/// Whether discovery reached `pool` only through the chain's `Initialize` index: a V4 pool
/// whose shape the registry does not list.
pub fn found_by_event(chain: &ChainInfo, pool: &Pool) -> bool {
    let listed = match chain.dex(pool.dex).map(|d| &d.contracts) {
        Some(DexContracts::PoolManager { shapes, .. }) => shapes.as_slice(),
        _ => return false,
    };
    parts(pool.key).is_some_and(|(shape, _, _)| !listed.contains(&shape))
}

/// The pool's key parts: fee, spacing, hooks, the wrapped native token native ether stands
/// for, and the PoolId.
fn parts(key: PoolKey) -> Option<(V4Shape, Option<Address>, B256)> {
    match key {
        PoolKey::V4 {
            fee,
            tick_spacing,
            hooks,
            native,
            id,
        } => Some((
            V4Shape {
                fee,
                tick_spacing,
                hooks,
            },
            native,
            id,
        )),
        _ => None,
    }
}

/// The key of a pool of this shape (the inverse of [`parts`]).
fn key_of(shape: V4Shape, native: Option<Address>, id: B256) -> PoolKey {
    PoolKey::V4 {
        fee: shape.fee,
        tick_spacing: shape.tick_spacing,
        hooks: shape.hooks,
        native,
        id,
    }
}

/// The pool's PoolKey: its tokens, or native ether in place of the wrapped native token.
pub(crate) fn pool_key(pool: &Pool) -> Option<V4PoolKey> {
    let (shape, native, _) = parts(pool.key)?;
    Some(match native {
        Some(wrapped) => shape.key(Address::ZERO, pool.other(wrapped)),
        None => shape.key(pool.token0, pool.token1),
    })
}

/// Whether selling `token_in` sells currency0.
fn zero_for_one(pool: &Pool, token_in: Address) -> bool {
    match parts(pool.key).and_then(|(_, native, _)| native) {
        Some(wrapped) => token_in == wrapped,
        None => token_in == pool.token0,
    }
}

/// Whether the pool's currency0 is the request's token1: a native-ether pool whose other
/// token sorts below the wrapped native token, so its price is the inverse of the pair's.
fn flipped(pool: &Pool) -> bool {
    parts(pool.key)
        .and_then(|(_, native, _)| native)
        .is_some_and(|wrapped| wrapped == pool.token1)
}

/// The fee a swap in this direction pays, hundredths of a bip: the LP fee, or with a
/// protocol fee (12 bits per direction) v4-core ProtocolFeeLibrary.calculateSwapFee's
/// `protocolFee + lpFee − protocolFee·lpFee/10⁶`.
fn swap_fee(state: &V4PoolState, zero_for_one: bool) -> u32 {
    let protocol = if zero_for_one {
        state.protocol_fee & 0xfff
    } else {
        state.protocol_fee >> 12
    };
    if protocol == 0 {
        return state.lp_fee;
    }
    let product = u64::from(protocol) * u64::from(state.lp_fee) / 1_000_000;
    // Both are at most 10⁶, so the sum fits and the product part is at most either.
    (protocol + state.lp_fee).saturating_sub(u32::try_from(product).unwrap_or(u32::MAX))
}

/// The fee a V4 pool's swaps pay, hundredths of a bip, when both directions pay the same: the
/// LP fee, or with a protocol fee v4-core's combination of the two; `None` when the protocol
/// fee differs by direction (each direction then pays its own).
pub fn swap_fee_both_ways(state: &V4PoolState) -> Option<u32> {
    let fee = swap_fee(state, true);
    (swap_fee(state, false) == fee).then_some(fee)
}

/// The permissions of `hooks` whose functions run inside a swap (v4-core `Hooks.sol`: the
/// flags are the address's low 14 bits), by their v4-core names: empty when the PoolManager
/// calls no hook code in a swap (no hooks, or hooks only on initialisation, liquidity or
/// donations), so a swap pays exactly the pool's maths at its stored fee.
pub(crate) fn hooks_in_swap(hooks: Address) -> Vec<&'static str> {
    uniswap_v4::hook_flags::names(
        uniswap_v4::hook_flags::of(hooks) & uniswap_v4::hook_flags::IN_SWAP,
    )
}

/// The address a V4 pool is known by within a read: the low 20 bytes of its PoolId.
pub(crate) fn pool_address(id: B256) -> Address {
    Address::from_slice(&id[12..])
}

fn v4_state(state: &PoolState) -> Result<V4PoolState, RouteError> {
    match state {
        PoolState::V4(state) => Ok(*state),
        _ => Err(RouteError::StateMismatch),
    }
}

fn contracts(chain: &ChainInfo, dex: DexId) -> Option<(Address, Address)> {
    match chain.dex(dex).map(|d| &d.contracts) {
        Some(DexContracts::PoolManager {
            state_view,
            v4_quoter,
            ..
        }) => Some((*state_view, *v4_quoter)),
        _ => None,
    }
}

impl PoolKind for UniswapV4 {
    fn lookups(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>> {
        let (state_view, shapes) = match &dex.contracts {
            DexContracts::PoolManager {
                state_view, shapes, ..
            } => (*state_view, shapes.clone()),
            _ => return Arc::new(|_| Vec::new()),
        };
        let mut probes = Vec::new();
        for pair in pairs {
            for (shape, native, id) in candidate_keys(chain, &shapes, pair) {
                let slot = uniswap_v4::slot0(batch, state_view, id);
                probes.push((*pair, shape, native, id, slot));
            }
        }
        Arc::new(move |results: &BatchResults| {
            probes
                .iter()
                .map(|(pair, shape, native, id, slot)| Probe {
                    pair: *pair,
                    variant: PoolVariant::V4 {
                        fee: shape.fee,
                        tick_spacing: shape.tick_spacing,
                        hooks: shape.hooks,
                        native: native.is_some(),
                        id: *id,
                    },
                    found: match slot.decode(results) {
                        // StateView answers zeros for a PoolId never initialized.
                        Ok(slot0) if slot0.sqrt_price_x96.is_zero() => Err(FailureReason::NoPool),
                        Ok(_) => Ok((pool_address(*id), key_of(*shape, *native, *id))),
                        Err(failure) => Err(FailureReason::Call(failure)),
                    },
                })
                .collect()
        })
    }

    fn lens_candidates(&self, chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate> {
        let DexContracts::PoolManager {
            state_view, shapes, ..
        } = &dex.contracts
        else {
            return Vec::new();
        };
        // The same PoolKeys, in the same order, as `lookups`.
        let mut candidates = Vec::new();
        for (shape, native, id) in candidate_keys(chain, shapes, pair) {
            candidates.push(LensCandidate {
                key: key_of(shape, native, id),
                address: Some(pool_address(id)),
                // StateView answers a zero sqrtPriceX96 for a PoolId never initialized.
                lookup: lookup_call(|batch| {
                    uniswap_v4::slot0(batch, *state_view, id);
                }),
            });
        }
        candidates
    }

    fn state(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
    ) -> Decode<Result<PoolState, CallFailure>> {
        let read = contracts(chain, pool.dex)
            .zip(parts(pool.key))
            .map(|((state_view, _), (_, _, id))| uniswap_v4::pool_state(batch, state_view, id));
        Arc::new(move |results| match &read {
            Some(slots) => Ok(PoolState::V4(slots.decode(results)?)),
            None => Err(CallFailure::Decode(
                "no StateView for this pool in the registry".to_owned(),
            )),
        })
    }

    fn quote(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> QuoteDecode {
        let asked = match (contracts(chain, pool.dex), pool_key(pool)) {
            (Some((_, quoter)), Some(key)) => Some(uniswap_v4::quote_exact_input_single(
                batch,
                quoter,
                key,
                zero_for_one(pool, token_in),
                amount_in,
            )),
            _ => None,
        };
        Arc::new(move |results, _| {
            let slot = match asked {
                Some(Some(slot)) => slot,
                // The quoter takes a uint128.
                Some(None) => return Err(FailureReason::AmountTooLarge),
                None => return Err(missing()),
            };
            let quote = slot
                .decode(results.ok_or_else(missing)?)
                .map_err(FailureReason::Call)?;
            Ok(Quoted {
                amount_out: quote.amount_out,
                source: QuoteSource::V4Quoter,
                quoter: None,
                gas_estimate: Some(quote.gas_estimate),
            })
        })
    }

    fn mid(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        _tokens: &[TokenMetadata],
    ) -> Result<Ratio, RouteError> {
        // Native ether and its wrapped token both have 18 decimals: raw amounts compare.
        dex_math::v3_mid_price(
            v4_state(state)?.sqrt_price_x96,
            zero_for_one(pool, token_in),
        )
        .map_err(RouteError::MidPrice)
    }

    fn claim(&self, _batch: &mut Batch, _address: Address) -> ClaimDecode {
        Arc::new(|_, _| Err(NotAPool::NamedByPoolId))
    }

    fn confirm(
        &self,
        _batch: &mut Batch,
        _dex: &Dex,
        _pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        Arc::new(|_| Ok(None))
    }

    fn quotes_exits(&self) -> bool {
        true
    }

    fn exit(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        amount_in: U256,
        quoted: Option<Result<Quoted, FailureReason>>,
        _tokens: &[TokenMetadata],
        ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError> {
        let v4 = v4_state(state)?;
        let quoted = quoted
            .ok_or(RouteError::PoolStateNotRead { pool: pool.address })?
            .map_err(|reason| RouteError::Quote(reason.to_string()))?;
        // V4Quoter gives the amount with the hooks run, but no price after: the swap is
        // simulated over the ticks read (the V3 swap maths, the pool's fee), and its price
        // after is taken only when its output is V4Quoter's to the wei.
        let zero_for_one = zero_for_one(pool, token_in);
        let fee = swap_fee(&v4, zero_for_one);
        let swap = simulate(pool, &v4, fee, zero_for_one, amount_in, ticks)?;
        let unknown = if swap.is_partial() {
            Some("the swap leaves the initialized ticks read")
        } else if swap.amount_out(zero_for_one) != quoted.amount_out {
            Some("the pool's hooks change the swap (V4Quoter's amount is not the tick maths')")
        } else {
            None
        };
        let (mid_after, quoter) = match unknown {
            Some(why) => (Err(RouteError::PriceAfterUnknown { why }), None),
            None => (
                dex_math::v3_mid_price(swap.sqrt_price_after, zero_for_one)
                    .map_err(RouteError::MidPrice),
                Some(ClQuote {
                    amount_out: quoted.amount_out,
                    sqrt_price_x96_after: swap.sqrt_price_after,
                    initialized_ticks_crossed: swap.initialized_ticks_crossed,
                    gas_estimate: quoted.gas_estimate.unwrap_or_default(),
                }),
            ),
        };
        Ok(ExitAmounts {
            amount_out: quoted.amount_out,
            source: QuoteSource::V4Quoter,
            fee_bps: f64::from(fee) / 100.0,
            mid_after,
            quoter,
        })
    }

    fn partial_fills(&self) -> bool {
        true
    }

    fn fillable(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        amount_in: U256,
        ticks: Option<TicksRead<'_>>,
    ) -> Option<(U256, U256)> {
        let v4 = v4_state(state).ok()?;
        let zero_for_one = zero_for_one(pool, token_in);
        simulate(
            pool,
            &v4,
            swap_fee(&v4, zero_for_one),
            zero_for_one,
            amount_in,
            ticks,
        )
        .ok()
        .and_then(|swap| concentrated::partial_fill(swap, zero_for_one))
    }

    fn tick_walk(&self, pool: &Pool, state: &PoolState) -> Option<(U256, i32, i32)> {
        let v4 = v4_state(state).ok()?;
        let (shape, _, _) = parts(pool.key)?;
        Some((v4.sqrt_price_x96, v4.tick, shape.tick_spacing))
    }

    fn tick_words(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        words: (i16, i16),
    ) -> Result<(TickSource, Vec<WordRead>), RouteError> {
        let (shape, _, id) = parts(pool.key).ok_or(RouteError::StateMismatch)?;
        let (state_view, _) = contracts(chain, pool.dex).ok_or(RouteError::NotReadForKind {
            dex: pool.dex,
            what: "initialized ticks (no StateView in the registry)",
        })?;
        let spacing = shape.tick_spacing;
        let reads = (words.0..=words.1)
            .map(|word| {
                let slot = uniswap_v4::tick_bitmap_word(batch, state_view, id, word);
                WordRead::Marked(Arc::new(move |results: &BatchResults| {
                    slot.decode(results, spacing)
                }))
            })
            .collect();
        Ok((TickSource::StateView, reads))
    }

    fn tick_net(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        tick: i32,
    ) -> Decode<Result<(i32, i128), CallFailure>> {
        let read =
            contracts(chain, pool.dex)
                .zip(parts(pool.key))
                .map(|((state_view, _), (_, _, id))| {
                    uniswap_v4::tick_liquidity(batch, state_view, id, tick)
                });
        Arc::new(move |results| match &read {
            Some(slot) => slot.decode(results),
            None => Err(CallFailure::Decode(
                "no StateView for this pool in the registry".to_owned(),
            )),
        })
    }

    fn exit_reach_words(&self) -> i16 {
        // Up to the pool read's cap of 16 words: 7 on each side of the price's word.
        7
    }

    fn holds_balances(&self) -> bool {
        // The PoolManager holds every pool's tokens together.
        false
    }

    fn candidate_value(
        &self,
        _pool: &Pool,
        state: &PoolState,
        _tokens: &[TokenMetadata],
        _balances: [Result<U256, RouteError>; 2],
    ) -> Result<U256, RouteError> {
        // No balances of its own: the in-range liquidity's virtual reserves valued at the
        // pool's price, 2·L·√P in the price's token1 (L·√P of token1 and L/√P of token0
        // worth L·√P). A dust pool has dust liquidity, so it is never the deepest.
        let v4 = v4_state(state)?;
        let value: U512 =
            (U512::from(2u8) * U512::from(v4.liquidity) * U512::from(v4.sqrt_price_x96)) >> 96;
        Ok(value.saturating_to::<U256>())
    }

    fn depth(
        &self,
        pool: &Pool,
        state: &PoolState,
        _decimals: (u8, u8),
        ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth {
        let v4 = match v4_state(state) {
            Ok(v4) => v4,
            Err(error) => return (Err(error), None),
        };
        if flipped(pool) {
            return (
                Err(RouteError::NotReadForKind {
                    dex: pool.dex,
                    what: "depth of a native-ether pool whose ether stands for the pair's token1 (its price is the pair's inverse)",
                }),
                None,
            );
        }
        concentrated::tick_walk_depth(
            pool,
            (v4.sqrt_price_x96, v4.tick, v4.liquidity),
            ticks,
            percents,
        )
    }

    fn hop(&self, _key: PoolKey) -> HopKind {
        HopKind::ConcentratedLiquidityV4
    }

    fn variant(&self, key: PoolKey) -> PoolVariant {
        match parts(key) {
            Some((shape, native, id)) => PoolVariant::V4 {
                fee: shape.fee,
                tick_spacing: shape.tick_spacing,
                hooks: shape.hooks,
                native: native.is_some(),
                id,
            },
            None => PoolVariant::Pair,
        }
    }

    fn swap_topic(&self) -> B256 {
        V4PoolManager::Swap::SIGNATURE_HASH
    }

    fn swap_event(&self, log: &Log) -> Option<SwapEvent> {
        let e = log.log_decode::<V4PoolManager::Swap>().ok()?.inner.data;
        // The PoolManager logs the swapper's deltas; the pool's side (what V3 logs) is their
        // negation.
        let pool_side = |delta: i128| I256::try_from(delta).ok().map(|d| -d);
        SwapEvent::from_v3(
            swap_log(log, e.sender, e.sender),
            pool_side(e.amount0)?,
            pool_side(e.amount1)?,
        )
        .ok()
    }

    fn router(&self, _contracts: &DexContracts) -> Option<Address> {
        None
    }

    fn models_sandwich(&self, pool: &Pool) -> bool {
        // Only a pool whose hooks run no code in a swap follows the plain maths.
        parts(pool.key).is_some_and(|(shape, _, _)| hooks_in_swap(shape.hooks).is_empty())
    }

    fn logs_name_traders(&self) -> bool {
        false
    }

    fn swap_logs(&self, chain: &ChainInfo, pool: &Pool) -> SwapLogFilter {
        let manager = match chain.dex(pool.dex).map(|d| &d.contracts) {
            Some(DexContracts::PoolManager { pool_manager, .. }) => *pool_manager,
            _ => Address::ZERO,
        };
        SwapLogFilter {
            addresses: vec![manager],
            topic: self.swap_topic(),
            topic1: parts(pool.key).map(|(_, _, id)| id),
        }
    }

    fn mev_ticks(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        quote: &Leg,
        state: &PoolState,
        _slippage_bps: u32,
    ) -> Result<Option<Decode<Result<TickStage, RouteError>>>, RouteError> {
        let pool = quote.pool;
        let v4 = v4_state(state)?;
        let (shape, _, id) = parts(pool.key).ok_or(RouteError::StateMismatch)?;
        let (state_view, _) = contracts(chain, pool.dex).ok_or(RouteError::NotReadForKind {
            dex: pool.dex,
            what: "the sandwich model (no StateView in the registry)",
        })?;
        let spacing = shape.tick_spacing;
        // V4Quoter gives no price after the swap, so the words are read as far as the cap
        // allows in the trade's direction, and one on the other side for the back-run.
        let current = cl_reads::word_of_tick(v4.tick, spacing);
        let lowest = cl_reads::word_of_tick(dex_math::tick_math::MIN_TICK, spacing);
        let highest = cl_reads::word_of_tick(dex_math::tick_math::MAX_TICK, spacing);
        let reach = (MAX_TICK_WORDS - 2) as i16;
        let (first, last) = if zero_for_one(&pool, quote.token_in) {
            (current.saturating_sub(reach), current.saturating_add(1))
        } else {
            (current.saturating_sub(1), current.saturating_add(reach))
        };
        let words = (first.max(lowest), last.min(highest));
        let slots: Vec<uniswap_v4::BitmapWordSlot> = (words.0..=words.1)
            .map(|word| uniswap_v4::tick_bitmap_word(batch, state_view, id, word))
            .collect();
        Ok(Some(Arc::new(move |results: &BatchResults| {
            let mut marked = Vec::new();
            for slot in &slots {
                marked.extend(slot.decode(results, spacing).map_err(|failure| {
                    RouteError::Call {
                        what: "StateView getTickBitmap",
                        failure,
                    }
                })?);
            }
            let next: NextTicks = Box::new(move |batch: &mut Batch| {
                let ticks: Vec<uniswap_v4::TickSlot> = marked
                    .iter()
                    .map(|tick| uniswap_v4::tick_liquidity(batch, state_view, id, *tick))
                    .collect();
                Arc::new(move |results: &BatchResults| {
                    let mut map = std::collections::BTreeMap::new();
                    for slot in &ticks {
                        let (tick, net) =
                            slot.decode(results).map_err(|failure| RouteError::Call {
                                what: "StateView getTickLiquidity",
                                failure,
                            })?;
                        map.insert(tick, net);
                    }
                    Ok((words, map))
                })
            });
            Ok(TickStage::More(next))
        })))
    }

    fn mev_model(
        &self,
        pool: &Pool,
        state: &PoolState,
        _tokens: &[TokenMetadata],
        ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        let v4 = v4_state(state)?;
        let (shape, _, _) = parts(pool.key).ok_or(RouteError::StateMismatch)?;
        let in_swap = hooks_in_swap(shape.hooks);
        if !in_swap.is_empty() {
            return Err(RouteError::HooksInSwap {
                hooks: shape.hooks,
                flags: in_swap.join(", "),
            });
        }
        // v4-core Pool.swap runs every step with one fee per direction: the LP fee, or with a
        // protocol fee ProtocolFeeLibrary.calculateSwapFee of the LP fee and that direction's
        // 12 bits; the protocol's share is split off that fee afterwards and moves no amount.
        // A sandwich swaps both ways, so the model holds each direction's fee.
        let ticks = ticks.ok_or(RouteError::StateMismatch)?;
        let (model, window) = concentrated::tick_model(
            dex_math::PoolState {
                sqrt_price_x96: v4.sqrt_price_x96,
                tick: v4.tick,
                liquidity: v4.liquidity,
                fee_pips: swap_fee(&v4, true),
                tick_spacing: shape.tick_spacing,
                ticks: std::collections::BTreeMap::new(),
            },
            ticks,
        )?;
        let model = match model {
            PoolModel::Concentrated(state) => {
                PoolModel::Concentrated(state.with_fee_one_for_zero(swap_fee(&v4, false)))
            }
            other => other,
        };
        Ok((model, window))
    }
}

/// A swap simulated over the ticks read, with the price limited to their edge.
fn simulate(
    pool: &Pool,
    v4: &V4PoolState,
    fee: u32,
    zero_for_one: bool,
    amount_in: U256,
    ticks: Option<TicksRead<'_>>,
) -> Result<dex_math::SwapResult, RouteError> {
    let (shape, _, _) = parts(pool.key).ok_or(RouteError::StateMismatch)?;
    let ticks = ticks.ok_or(RouteError::NotReadForKind {
        dex: pool.dex,
        what: "an exit without its initialized ticks",
    })?;
    concentrated::simulate_over_ticks(
        (v4.sqrt_price_x96, v4.tick, v4.liquidity),
        (fee, shape.tick_spacing),
        zero_for_one,
        amount_in,
        ticks,
    )
}

#[cfg(test)]
mod tests {
    use alloy::primitives::address;

    use super::*;

    fn pool(native: Option<Address>) -> Pool {
        let (weth, usdc) = (
            address!("4200000000000000000000000000000000000006"),
            address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
        );
        let shape = V4Shape::plain(500, 10);
        let key = match native {
            Some(_) => shape.key(Address::ZERO, usdc),
            None => shape.key(weth, usdc),
        };
        let id = uniswap_v4::pool_id(&key);
        Pool {
            dex: DexId::UniswapV4,
            address: pool_address(id),
            token0: weth,
            token1: usdc,
            key: PoolKey::V4 {
                fee: 500,
                tick_spacing: 10,
                hooks: Address::ZERO,
                native,
                id,
            },
        }
    }

    #[test]
    fn a_native_pool_is_keyed_on_ether_and_sells_currency0_for_the_wrapped_token() {
        let weth = address!("4200000000000000000000000000000000000006");
        let native = pool(Some(weth));
        let key = pool_key(&native).expect("a V4 pool");
        assert_eq!(key.currency0, Address::ZERO);
        assert_eq!(key.currency1, native.token1);
        assert!(zero_for_one(&native, weth));
        assert!(!zero_for_one(&native, native.token1));
        let plain = pool(None);
        assert_eq!(pool_key(&plain).map(|k| k.currency0), Some(weth));
        assert_ne!(native.address, plain.address, "two pools, two ids");
    }

    #[test]
    fn the_swap_fee_combines_the_protocol_fee_of_the_direction_as_v4_core_does() {
        let state = |protocol_fee: u32, lp_fee: u32| V4PoolState {
            sqrt_price_x96: U256::from(1u8) << 96,
            tick: 0,
            liquidity: 1,
            lp_fee,
            protocol_fee,
        };
        // No protocol fee: the LP fee.
        assert_eq!(swap_fee(&state(0, 3000), true), 3000);
        // 0.1 % one way (low 12 bits), 0.05 % the other (high 12 bits):
        // ProtocolFeeLibrary.calculateSwapFee = p + lp − p·lp/10⁶.
        let both = 1000 | (500 << 12);
        assert_eq!(swap_fee(&state(both, 3000), true), 1000 + 3000 - 3);
        assert_eq!(swap_fee(&state(both, 3000), false), 500 + 3000 - 1);
        // A pool whose LP fee is the whole input keeps it.
        assert_eq!(swap_fee(&state(both, 1_000_000), true), 1_000_000);
        // One fee for the sandwich model only when both directions pay it.
        assert_eq!(swap_fee_both_ways(&state(both, 3000)), None);
        let same = 1000 | (1000 << 12);
        assert_eq!(
            swap_fee_both_ways(&state(same, 3000)),
            Some(1000 + 3000 - 3)
        );
        assert_eq!(swap_fee_both_ways(&state(0, 3000)), Some(3000));
    }

    #[test]
    fn a_native_pool_is_flipped_only_when_ether_stands_for_token1() {
        let (weth, dai) = (
            address!("4200000000000000000000000000000000000006"),
            address!("0DCd1Bf9A1b36cE34237eEaFef220932846BCD82"),
        );
        assert!(!flipped(&pool(Some(weth))), "WETH is token0 of WETH/USDC");
        let mut dai_pool = pool(Some(weth));
        (dai_pool.token0, dai_pool.token1) = (dai, weth);
        assert!(flipped(&dai_pool), "WETH is token1 of DAI/WETH");
        assert!(!flipped(&pool(None)));
    }

    #[test]
    fn a_candidates_value_is_its_in_range_liquiditys_virtual_reserves() {
        // L = 10¹², √P = 1 (Q64.96): 2·L of token1.
        let state = PoolState::V4(V4PoolState {
            sqrt_price_x96: U256::from(1u8) << 96,
            tick: 0,
            liquidity: 1_000_000_000_000,
            lp_fee: 500,
            protocol_fee: 0,
        });
        let value = UniswapV4
            .candidate_value(
                &pool(None),
                &state,
                &[],
                [
                    Err(RouteError::NoOwnBalances {
                        dex: DexId::UniswapV4,
                    }),
                    Err(RouteError::NoOwnBalances {
                        dex: DexId::UniswapV4,
                    }),
                ],
            )
            .expect("a value");
        assert_eq!(value, U256::from(2_000_000_000_000u64));
    }

    #[test]
    fn a_swap_log_reads_as_the_pools_side() {
        let manager = address!("00000000000000000000000000000000000000aa");
        let swap = V4PoolManager::Swap {
            id: B256::repeat_byte(7),
            sender: Address::repeat_byte(1),
            // The swapper paid 1,000 of currency0 and received 997 of currency1.
            amount0: -1_000,
            amount1: 997,
            sqrtPriceX96: alloy::primitives::aliases::U160::from(1u8) << 96,
            liquidity: 1,
            tick: alloy::primitives::aliases::I24::ZERO,
            fee: alloy::primitives::aliases::U24::from(500u32),
        };
        let log = Log {
            inner: alloy::primitives::Log {
                address: manager,
                data: swap.encode_log_data(),
            },
            ..Log::default()
        };
        let event = UniswapV4.swap_event(&log).expect("a V4 swap");
        assert!(event.zero_for_one);
        assert_eq!(event.amount_in, U256::from(1_000u32));
        assert_eq!(event.amount_out, U256::from(997u32));
    }
}
