//! Concentrated-liquidity pools that are contracts, on V3's swap maths: Uniswap V3 and its
//! forks (keyed by fee tier), Slipstream (keyed by tick spacing, on several factories),
//! Algebra Integral and Algebra V1 (one pool per pair). One
//! adapter, parameterised by [`Keying`]: the keying picks the factory lookup, the quoter's ABI
//! and the pool's `slot0`/`ticks` layout; discovery, quote shaping, exits, depth, fills and
//! the tick walk are shared. Pools are found with the factory's `getPool`, quoted by the
//! QuoterV2 that finds them, their state read from `slot0`/`liquidity`/`fee`/`tickSpacing`
//! (the fee is the pool's own, read at the block), depth and unfilled exits by a walk over the
//! initialized ticks, the sandwich maths on dex-math's swap simulator.

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy::primitives::{Address, B256, I256, U256};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::dex::concentrated::{self, ClPoolState, ClQuote, InitializedTick};
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::dex::{algebra, slipstream};
use chain_read::{
    Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, DexId, TokenMetadata,
};
use dex_math::gas::HopKind;
use dex_math::{PoolState as V3State, Ratio, ValidPoolState};
use mev_sim::{PoolModel, SwapEvent};

use super::{
    Claim, ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, MevTicks, NotAPool, PoolKind,
    Probe, QuoteDecode, Quoted, SwapLogFilter, TickStage, WalkedTicks, WordRead, lookup_call,
    lookup_outcome, missing, swap_log,
};
use crate::error::RouteError;
use crate::liquidity::exit::TicksRead;
use crate::liquidity::{TickSource, depth};
use crate::mev::{MAX_TICK_WORDS, TICK_MARGIN, TickWindow};
use crate::outcome::{FailureReason, Leg, PoolVariant, QuoteSource};
use crate::plan::Pair;

alloy::sol! {
    /// Uniswap V3 pool events.
    interface V3Pool {
        /// A swap.
        event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);
    }
}

// The generated constructor of a nine-field event takes nine arguments.
#[allow(clippy::too_many_arguments)]
mod pancake {
    alloy::sol! {
        /// PancakeSwap V3 pool events (`@pancakeswap/v3-core` 1.0.2
        /// `IPancakeV3PoolEvents.sol`): the swap also logs the protocol fees taken.
        interface PancakeV3Pool {
            /// A swap.
            event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint128 protocolFeesToken0, uint128 protocolFeesToken1);
        }
    }
}
use pancake::PancakeV3Pool;

/// How a concentrated-liquidity DEX keys its pools, which decides its factory lookup, its
/// quoter's ABI and its pool's `slot0`/`ticks` layout. The swap maths is V3's for every keying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keying {
    /// Uniswap V3 and its forks: `getPool(a, b, uint24 fee)` over the fee tiers the factory
    /// enables (`feeAmountTickSpacing`), QuoterV2 keyed by fee, a TickLens where published.
    FeeTier,
    /// Slipstream (Aerodrome, Velodrome): `getPool(a, b, int24 tickSpacing)` on every CL
    /// factory, the QuoterV2 beside the pool's factory keyed by spacing, six-field `slot0`,
    /// ten-field `ticks`, no TickLens. Proven on the devnet against Slipstream's interface
    /// (our own contracts over Uniswap V3 pools), not its bytecode.
    TickSpacing,
    /// Algebra Integral (Camelot V4): one base pool per pair, `poolByPair(a, b)`, the fee in
    /// the pool's `globalState`, Algebra's QuoterV2 keyed by tokens and deployer. Its ticks are
    /// kept in a tick tree, not V3's bitmap, so no tick walk is read yet.
    PerPair,
    /// Algebra V1 (QuickSwap V3): one pool per pair, `poolByPair(a, b)`, the adaptive fee in
    /// the pool's seven-field `globalState`, the Quoter that answers `(amountOut, fee)` (no price
    /// after: an exit's is simulated over the ticks read), ticks in `tickTable` words (V3's
    /// bitmap layout at the fixed spacing) and V3's eight-field `ticks`.
    AlgebraV1,
}

/// Algebra V1's tick spacing, fixed for every pool (`Constants.TICK_SPACING` of
/// `@cryptoalgebra/core` 2.0.0), by which `tickTable` compresses ticks.
const ALGEBRA_V1_TICK_SPACING: i32 = 60;

/// The adapter: one for every concentrated-liquidity DEX whose pools are contracts, keyed as
/// `keying` says.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Concentrated {
    keying: Keying,
}

/// Uniswap V3 and the fee-keyed forks.
pub(crate) const FEE_TIERS: Concentrated = Concentrated {
    keying: Keying::FeeTier,
};

/// Slipstream.
pub(crate) const TICK_SPACINGS: Concentrated = Concentrated {
    keying: Keying::TickSpacing,
};

/// Algebra Integral.
pub(crate) const PER_PAIR: Concentrated = Concentrated {
    keying: Keying::PerPair,
};

/// Algebra V1.
pub(crate) const ALGEBRA_V1: Concentrated = Concentrated {
    keying: Keying::AlgebraV1,
};

fn cl_state(state: &PoolState) -> Result<ClPoolState, RouteError> {
    match state {
        PoolState::Concentrated(cl) => Ok(*cl),
        _ => Err(RouteError::StateMismatch),
    }
}

/// How many ticks one bit of the pool's tick words stands for: the tick spacing for V3's
/// bitmap (and Slipstream's, and Algebra V1's `tickTable`), 1 for Algebra Integral's tick-tree
/// leaves, which are not compressed by the spacing.
fn spacing_of(pool: &Pool) -> Result<i32, RouteError> {
    match pool.key {
        PoolKey::Slipstream { tick_spacing, .. } | PoolKey::Concentrated { tick_spacing, .. } => {
            Ok(tick_spacing)
        }
        PoolKey::AlgebraV1 => Ok(ALGEBRA_V1_TICK_SPACING),
        PoolKey::Algebra { .. } => Ok(1),
        _ => Err(RouteError::StateMismatch),
    }
}

impl Concentrated {
    /// The pools `dex` may hold for a pair, in the order discovery asks for them: one key per
    /// fee tier (spacing 0 until the factory answers), or per factory and tick spacing.
    fn candidate_keys(&self, dex: &Dex) -> Vec<PoolKey> {
        match (&dex.contracts, self.keying) {
            (DexContracts::ConcentratedLiquidity { fee_tiers, .. }, Keying::FeeTier) => fee_tiers
                .iter()
                .map(|fee| PoolKey::Concentrated {
                    fee: *fee,
                    tick_spacing: 0,
                })
                .collect(),
            (
                DexContracts::Slipstream {
                    deployments,
                    tick_spacings,
                },
                Keying::TickSpacing,
            ) => deployments
                .iter()
                .flat_map(|deployment| {
                    tick_spacings.iter().map(|spacing| PoolKey::Slipstream {
                        tick_spacing: *spacing,
                        factory: deployment.factory,
                    })
                })
                .collect(),
            (DexContracts::Algebra { .. }, Keying::PerPair) => vec![PoolKey::Algebra {
                deployer: Address::ZERO,
            }],
            (DexContracts::AlgebraV1 { .. }, Keying::AlgebraV1) => vec![PoolKey::AlgebraV1],
            _ => Vec::new(),
        }
    }

    /// Adds the factory's lookup of the pool of `key` for the pair (`factory` is the DEX's,
    /// for a key that does not name its own).
    fn get_pool(
        &self,
        batch: &mut Batch,
        factory: Address,
        key: PoolKey,
        token_a: Address,
        token_b: Address,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        match key {
            PoolKey::Concentrated { fee, .. } => {
                let lookup = concentrated::get_pool(batch, factory, token_a, token_b, fee);
                Arc::new(move |results| lookup.decode(results))
            }
            PoolKey::Slipstream {
                tick_spacing,
                factory,
            } => {
                let lookup = slipstream::get_pool(batch, factory, token_a, token_b, tick_spacing);
                Arc::new(move |results| lookup.decode(results))
            }
            // Discovery reads base pools only: custom pools are not in `poolByPair`.
            PoolKey::Algebra { .. } | PoolKey::AlgebraV1 => {
                let lookup = algebra::pool_by_pair(batch, factory, token_a, token_b);
                Arc::new(move |results| lookup.decode(results))
            }
            _ => Arc::new(|_| Ok(None)),
        }
    }

    /// Adds the state reads of the pool at `address` (Slipstream's `slot0` has six fields).
    fn state_slots(&self, batch: &mut Batch, address: Address) -> concentrated::PoolStateSlots {
        match self.keying {
            Keying::FeeTier => concentrated::pool_state(batch, address),
            Keying::TickSpacing => slipstream::pool_state(batch, address),
            Keying::PerPair => algebra::pool_state(batch, address),
            Keying::AlgebraV1 => algebra::v1_pool_state(batch, address),
        }
    }

    /// Adds the quote of `pool` by the quoter that finds it, `None` when the registry holds
    /// none.
    fn quote_slot(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> Option<Decode<Result<ClQuote, CallFailure>>> {
        let token_out = pool.other(token_in);
        match (pool.key, &chain.dex(pool.dex)?.contracts) {
            (
                PoolKey::Concentrated { fee, .. },
                DexContracts::ConcentratedLiquidity { quoter_v2, .. },
            ) => {
                let slot = concentrated::quote_exact_input_single(
                    batch, *quoter_v2, token_in, token_out, amount_in, fee,
                );
                Some(Arc::new(move |results| slot.decode(results)))
            }
            (
                PoolKey::Slipstream {
                    tick_spacing,
                    factory,
                },
                DexContracts::Slipstream { deployments, .. },
            ) => {
                // Each QuoterV2 finds pools through its own factory only.
                let quoter = deployments.iter().find(|d| d.factory == factory)?.quoter_v2;
                let slot = slipstream::quote_exact_input_single(
                    batch,
                    quoter,
                    token_in,
                    token_out,
                    amount_in,
                    tick_spacing,
                );
                Some(Arc::new(move |results| slot.decode(results)))
            }
            (PoolKey::Algebra { deployer }, DexContracts::Algebra { quoter_v2, .. }) => {
                let slot = algebra::quote_exact_input_single(
                    batch, *quoter_v2, token_in, token_out, amount_in, deployer,
                );
                Some(Arc::new(move |results| slot.decode(results)))
            }
            _ => None,
        }
    }

    /// The pool's key from its own state, as a pool of `dex`.
    fn key_of(&self, state: &ClPoolState, dex: &Dex) -> PoolKey {
        match self.keying {
            Keying::FeeTier => PoolKey::Concentrated {
                fee: state.fee,
                tick_spacing: state.tick_spacing,
            },
            Keying::TickSpacing => PoolKey::Slipstream {
                tick_spacing: state.tick_spacing,
                factory: dex.factory(),
            },
            Keying::PerPair => PoolKey::Algebra {
                deployer: Address::ZERO,
            },
            Keying::AlgebraV1 => PoolKey::AlgebraV1,
        }
    }

    /// Adds the Algebra V1 Quoter's quote of `pool`, as a leg's quote: the amount, and the fee
    /// the swap paid in its source; no price after, ticks crossed or gas (the Quoter gives none).
    fn v1_quote(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> Option<Decode<Result<Quoted, CallFailure>>> {
        let Some(DexContracts::AlgebraV1 { quoter, .. }) =
            chain.dex(pool.dex).map(|d| &d.contracts)
        else {
            return None;
        };
        let slot = algebra::v1_quote_exact_input_single(
            batch,
            *quoter,
            token_in,
            pool.other(token_in),
            amount_in,
        );
        Some(Arc::new(move |results| {
            let quote = slot.decode(results)?;
            Ok(Quoted {
                amount_out: quote.amount_out,
                source: QuoteSource::AlgebraQuoter { fee: quote.fee },
                quoter: None,
                gas_estimate: None,
            })
        }))
    }

    /// The TickLens of `pool`'s DEX (none is published with Slipstream).
    fn tick_lens(chain: &ChainInfo, pool: &Pool) -> Option<Address> {
        match chain.dex(pool.dex).map(|d| &d.contracts) {
            Some(DexContracts::ConcentratedLiquidity {
                tick_lens: Some(lens),
                ..
            }) => Some(*lens),
            _ => None,
        }
    }
}

impl PoolKind for Concentrated {
    fn lookups(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>> {
        // A fee-keyed factory says which tiers it enables (and their spacing) first.
        let tiers = match &dex.contracts {
            DexContracts::ConcentratedLiquidity {
                factory, fee_tiers, ..
            } if self.keying == Keying::FeeTier => {
                Some(concentrated::probe_fee_tiers(batch, *factory, fee_tiers))
            }
            _ => None,
        };
        let keys = self.candidate_keys(dex);
        let mut lookups = Vec::new();
        for pair in pairs {
            for key in &keys {
                let lookup =
                    self.get_pool(batch, dex.factory(), *key, pair.token_in, pair.token_out);
                lookups.push((*pair, *key, lookup));
            }
        }
        let this = *self;
        Arc::new(move |results: &BatchResults| {
            let tiers = tiers.as_ref().map(|tiers| tiers.decode(results));
            lookups
                .iter()
                .map(|(pair, key, lookup)| {
                    let found = match (&tiers, *key) {
                        (Some(tiers), PoolKey::Concentrated { fee, .. }) => {
                            let spacing = tiers
                                .iter()
                                .find(|tier| tier.fee == fee)
                                .map(|tier| tier.tick_spacing.clone());
                            match spacing {
                                Some(Ok(Some(tick_spacing))) => lookup_outcome(
                                    lookup(results),
                                    PoolKey::Concentrated { fee, tick_spacing },
                                ),
                                Some(Err(failure)) => Err(FailureReason::Call(failure)),
                                Some(Ok(None)) | None => Err(FailureReason::FeeTierNotEnabled),
                            }
                        }
                        _ => lookup_outcome(lookup(results), *key),
                    };
                    Probe {
                        pair: *pair,
                        variant: this.variant(*key),
                        found,
                    }
                })
                .collect()
        })
    }

    fn lens_candidates(&self, _chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate> {
        self.candidate_keys(dex)
            .into_iter()
            .map(|key| LensCandidate {
                key,
                address: None,
                lookup: lookup_call(|batch| {
                    self.get_pool(batch, dex.factory(), key, pair.token_in, pair.token_out);
                }),
            })
            .collect()
    }

    fn state(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
    ) -> Decode<Result<PoolState, CallFailure>> {
        let slots = self.state_slots(batch, pool.address);
        Arc::new(move |results| Ok(PoolState::Concentrated(slots.decode(results)?)))
    }

    fn quote(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> QuoteDecode {
        if self.keying == Keying::AlgebraV1 {
            let quoter = Self::v1_quote(batch, chain, pool, token_in, amount_in);
            return Arc::new(move |results, state| {
                let Some(slot) = &quoter else {
                    return Err(match state {
                        Some(Err(failure)) => FailureReason::Call(failure.clone()),
                        _ => missing(),
                    });
                };
                slot(results.ok_or_else(missing)?).map_err(FailureReason::Call)
            });
        }
        let quoter = self.quote_slot(batch, chain, pool, token_in, amount_in);
        Arc::new(move |results, state| {
            let Some(slot) = &quoter else {
                // No quoter in the registry entry: nothing was asked.
                return Err(match state {
                    Some(Err(failure)) => FailureReason::Call(failure.clone()),
                    _ => missing(),
                });
            };
            let quote = slot(results.ok_or_else(missing)?).map_err(FailureReason::Call)?;
            Ok(Quoted {
                amount_out: quote.amount_out,
                source: QuoteSource::QuoterV2,
                quoter: Some(quote),
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
        dex_math::v3_mid_price(cl_state(state)?.sqrt_price_x96, token_in == pool.token0)
            .map_err(RouteError::MidPrice)
    }

    fn claim(&self, batch: &mut Batch, address: Address) -> ClaimDecode {
        let slots = self.state_slots(batch, address);
        let this = *self;
        Arc::new(move |results, dex| {
            let state = slots
                .decode(results)
                .map_err(NotAPool::NoConcentratedState)?;
            Ok(Claim {
                key: this.key_of(&state, dex),
                ticks_from: Some((state.sqrt_price_x96, state.tick, state.tick_spacing)),
            })
        })
    }

    fn confirm(
        &self,
        batch: &mut Batch,
        dex: &Dex,
        pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        self.get_pool(batch, dex.factory(), pool.key, pool.token0, pool.token1)
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
        let cl = cl_state(state)?;
        let quoted = quoted
            .ok_or(RouteError::PoolStateNotRead { pool: pool.address })?
            .map_err(|reason| RouteError::Quote(reason.to_string()))?;
        if let QuoteSource::AlgebraQuoter { fee } = quoted.source {
            return Ok(v1_exit(pool, &cl, fee, token_in, amount_in, &quoted, ticks));
        }
        let quote = quoted
            .quoter
            .ok_or(RouteError::PoolStateNotRead { pool: pool.address })?;
        let after = dex_math::v3_mid_price(quote.sqrt_price_x96_after, token_in == pool.token0)
            .map_err(RouteError::MidPrice)?;
        Ok(ExitAmounts {
            amount_out: quoted.amount_out,
            source: QuoteSource::QuoterV2,
            fee_bps: f64::from(cl.fee) / 100.0,
            mid_after: Ok(after),
            quoter: Some(quote),
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
        let cl = cl_state(state).ok()?;
        let zero_for_one = token_in == pool.token0;
        let at = (cl.sqrt_price_x96, cl.tick, cl.liquidity);
        let swap = simulate_over_ticks(
            at,
            (cl.fee, cl.tick_spacing),
            zero_for_one,
            amount_in,
            ticks?,
        );
        partial_fill(swap.ok()?, zero_for_one)
    }

    fn tick_walk(&self, pool: &Pool, state: &PoolState) -> Option<(U256, i32, i32)> {
        // The words are read at the factor of the pool's tick words (1 for Integral's leaves).
        let factor = spacing_of(pool).ok()?;
        cl_state(state)
            .ok()
            .map(|cl| (cl.sqrt_price_x96, cl.tick, factor))
    }

    fn tick_words(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        words: (i16, i16),
    ) -> Result<(TickSource, Vec<WordRead>), RouteError> {
        let spacing = spacing_of(pool)?;
        let lens = Self::tick_lens(chain, pool);
        let algebra = matches!(self.keying, Keying::AlgebraV1 | Keying::PerPair);
        let reads = (words.0..=words.1)
            .map(|word| match lens {
                // Algebra: `tickTable` (V1: V3's bitmap layout; Integral: the tick tree's
                // leaves, one bit per tick), then its ticks.
                _ if algebra => {
                    let slot = concentrated::tick_table_word(batch, pool.address, word);
                    WordRead::Marked(Arc::new(move |results: &BatchResults| {
                        slot.decode(results, spacing)
                    }))
                }
                Some(lens) => {
                    let slot = concentrated::populated_ticks(batch, lens, pool.address, word);
                    WordRead::Populated(Arc::new(move |results: &BatchResults| {
                        Ok(slot
                            .decode(results)?
                            .into_iter()
                            .map(|t| (t.tick, t.liquidity_net))
                            .collect())
                    }))
                }
                // Without a TickLens, the pool's own bitmap, then its ticks.
                None => {
                    let slot = concentrated::tick_bitmap_word(batch, pool.address, word);
                    WordRead::Marked(Arc::new(move |results: &BatchResults| {
                        slot.decode(results, spacing)
                    }))
                }
            })
            .collect();
        let source = if algebra {
            TickSource::TickTable
        } else if lens.is_some() {
            TickSource::TickLens
        } else {
            TickSource::Bitmap
        };
        Ok((source, reads))
    }

    fn tick_net(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
        tick: i32,
    ) -> Decode<Result<(i32, i128), CallFailure>> {
        // Slipstream's `ticks` has ten fields, V3's eight.
        match self.keying {
            // Algebra V1's `ticks` is V3's selector and shape.
            Keying::FeeTier | Keying::AlgebraV1 => {
                let slot = concentrated::tick_info(batch, pool.address, tick);
                Arc::new(move |results| slot.decode(results).map(|t| (t.tick, t.liquidity_net)))
            }
            Keying::TickSpacing => {
                let slot = slipstream::tick_info(batch, pool.address, tick);
                Arc::new(move |results| slot.decode(results).map(|t| (t.tick, t.liquidity_net)))
            }
            Keying::PerPair => {
                let slot = algebra::tick_info(batch, pool.address, tick);
                Arc::new(move |results| slot.decode(results).map(|t| (t.tick, t.liquidity_net)))
            }
        }
    }

    fn in_range_liquidity(&self, state: &PoolState) -> Option<u128> {
        cl_state(state).ok().map(|cl| cl.liquidity)
    }

    fn depth(
        &self,
        pool: &Pool,
        state: &PoolState,
        _decimals: (u8, u8),
        ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth {
        match cl_state(state) {
            Ok(cl) => tick_walk_depth(
                pool,
                (cl.sqrt_price_x96, cl.tick, cl.liquidity),
                ticks,
                percents,
            ),
            Err(error) => (Err(error), None),
        }
    }

    fn hop(&self, _key: PoolKey) -> HopKind {
        HopKind::ConcentratedLiquidity
    }

    fn variant(&self, key: PoolKey) -> PoolVariant {
        match (key, self.keying) {
            (PoolKey::Concentrated { fee, .. }, _) => PoolVariant::FeeTier(fee),
            (
                PoolKey::Slipstream {
                    tick_spacing,
                    factory,
                },
                _,
            ) => PoolVariant::TickSpacing {
                tick_spacing,
                factory,
            },
            (PoolKey::Algebra { .. } | PoolKey::AlgebraV1, _)
            | (_, Keying::PerPair | Keying::AlgebraV1) => PoolVariant::Pair,
            (_, Keying::FeeTier) => PoolVariant::FeeTier(0),
            (_, Keying::TickSpacing) => PoolVariant::TickSpacing {
                tick_spacing: 0,
                factory: Address::ZERO,
            },
        }
    }

    fn swap_topic(&self) -> B256 {
        V3Pool::Swap::SIGNATURE_HASH
    }

    fn swap_event(&self, log: &Log) -> Option<SwapEvent> {
        if let Ok(e) = log.log_decode::<PancakeV3Pool::Swap>() {
            let e = e.inner.data;
            return SwapEvent::from_v3(swap_log(log, e.sender, e.recipient), e.amount0, e.amount1)
                .ok();
        }
        let e = log.log_decode::<V3Pool::Swap>().ok()?.inner.data;
        SwapEvent::from_v3(swap_log(log, e.sender, e.recipient), e.amount0, e.amount1).ok()
    }

    fn swap_logs(&self, _chain: &ChainInfo, pool: &Pool) -> SwapLogFilter {
        // PancakeSwap V3's Swap event has two more fields, so another topic.
        SwapLogFilter {
            addresses: vec![pool.address],
            topic: match pool.dex {
                DexId::PancakeswapV3 => PancakeV3Pool::Swap::SIGNATURE_HASH,
                _ => self.swap_topic(),
            },
            topic1: None,
        }
    }

    fn router(&self, _contracts: &DexContracts) -> Option<Address> {
        // Swaps reach V3 pools through SwapRouter02 or the Universal Router, neither of which
        // the registry holds (Slipstream's are not either): no shared router to exclude.
        None
    }

    fn reads_pool_liquidity(&self) -> bool {
        // Every keying's tick words are read (a TickLens, V3's bitmap, Algebra's `tickTable`),
        // proven on the devnet per keying.
        true
    }

    fn exit_reach_words(&self) -> i16 {
        // Algebra V1's Quoter gives no price after: an exit's is simulated over the ticks read,
        // up to the pool read's cap of 16 words (7 on each side of the price's word).
        if self.keying == Keying::AlgebraV1 {
            7
        } else {
            0
        }
    }

    fn mev_ticks(
        &self,
        batch: &mut Batch,
        chain: &ChainInfo,
        quote: &Leg,
        state: &PoolState,
        slippage_bps: u32,
    ) -> Result<Option<Decode<Result<TickStage, RouteError>>>, RouteError> {
        let cl = cl_state(state)?;
        let pool = quote.pool;
        let factor = spacing_of(&pool)?;
        let words = plan_words(
            &pool,
            quote,
            (cl.tick, cl.tick_spacing, factor),
            slippage_bps,
        );
        let Some(lens) = Self::tick_lens(chain, &pool) else {
            // No TickLens: the words (V3's bitmap, Algebra's `tickTable`), then, one round trip
            // later, the ticks they mark.
            let (_, reads) = self.tick_words(batch, chain, &pool, words)?;
            let this = *self;
            let chain = chain.clone();
            return Ok(Some(Arc::new(move |results: &BatchResults| {
                let mut marked = Vec::new();
                for read in &reads {
                    let found = match read {
                        WordRead::Marked(decode) => decode(results),
                        WordRead::Populated(decode) => {
                            decode(results).map(|ticks| ticks.into_iter().map(|t| t.0).collect())
                        }
                    };
                    marked.extend(found.map_err(|failure| RouteError::Call {
                        what: "the pool's tick words",
                        failure,
                    })?);
                }
                let chain = chain.clone();
                let next: super::NextTicks = Box::new(move |batch: &mut Batch| {
                    let nets: Vec<_> = marked
                        .iter()
                        .map(|tick| this.tick_net(batch, &chain, &pool, *tick))
                        .collect();
                    Arc::new(move |results: &BatchResults| {
                        let mut map = BTreeMap::new();
                        for net in &nets {
                            let (tick, liquidity_net) =
                                net(results).map_err(|failure| RouteError::Call {
                                    what: "the pool's ticks",
                                    failure,
                                })?;
                            map.insert(tick, liquidity_net);
                        }
                        Ok((words, map))
                    })
                });
                Ok(TickStage::More(next))
            })));
        };
        let slots: Vec<_> = (words.0..=words.1)
            .map(|word| concentrated::populated_ticks(batch, lens, pool.address, word))
            .collect();
        Ok(Some(Arc::new(move |results| {
            let mut map = BTreeMap::new();
            for slot in &slots {
                let found = slot.decode(results).map_err(|failure| RouteError::Call {
                    what: "TickLens getPopulatedTicksInWord",
                    failure,
                })?;
                for InitializedTick {
                    tick,
                    liquidity_net,
                } in found
                {
                    map.insert(tick, liquidity_net);
                }
            }
            Ok(TickStage::Done((words, map)))
        })))
    }

    fn mev_model(
        &self,
        pool: &Pool,
        state: &PoolState,
        _tokens: &[TokenMetadata],
        ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        let cl = cl_state(state)?;
        let ticks = ticks.ok_or(RouteError::StateMismatch)?;
        // The fee the model swaps at is the state's: Slipstream's `fee()`, Algebra's
        // `globalState` fee, which a swap at the block's time pays (a later block's first
        // Algebra V1 swap recomputes it; a plugin may override Integral's).
        tick_model_at(
            spacing_of(pool)?,
            V3State {
                sqrt_price_x96: cl.sqrt_price_x96,
                tick: cl.tick,
                liquidity: cl.liquidity,
                fee_pips: cl.fee,
                tick_spacing: cl.tick_spacing,
                ticks: BTreeMap::new(),
            },
            ticks,
        )
    }
}

/// An Algebra V1 exit: the Quoter's amount, and the price after from V3's swap maths over the
/// ticks read at the fee the Quoter says the swap paid, kept only when that simulation pays the
/// Quoter's amount to the wei (the fee is the pool's adaptive fee of the block, which its state
/// from an earlier block may not hold).
fn v1_exit(
    pool: &Pool,
    cl: &ClPoolState,
    fee: u32,
    token_in: Address,
    amount_in: U256,
    quoted: &Quoted,
    ticks: Option<TicksRead<'_>>,
) -> ExitAmounts {
    let zero_for_one = token_in == pool.token0;
    let swap = ticks
        .ok_or(RouteError::PoolStateNotRead { pool: pool.address })
        .and_then(|ticks| {
            simulate_over_ticks(
                (cl.sqrt_price_x96, cl.tick, cl.liquidity),
                (fee, ALGEBRA_V1_TICK_SPACING),
                zero_for_one,
                amount_in,
                ticks,
            )
        });
    let (mid_after, quoter) = match swap {
        Ok(swap) if swap.is_partial() => (
            Err(RouteError::PriceAfterUnknown {
                why: "the swap leaves the initialized ticks read",
            }),
            None,
        ),
        Ok(swap) if swap.amount_out(zero_for_one) != quoted.amount_out => (
            Err(RouteError::PriceAfterUnknown {
                why: "the tick maths at the Quoter's fee does not pay the Quoter's amount",
            }),
            None,
        ),
        Ok(swap) => (
            dex_math::v3_mid_price(swap.sqrt_price_after, zero_for_one)
                .map_err(RouteError::MidPrice),
            Some(ClQuote {
                amount_out: quoted.amount_out,
                sqrt_price_x96_after: swap.sqrt_price_after,
                initialized_ticks_crossed: swap.initialized_ticks_crossed,
                gas_estimate: U256::ZERO,
            }),
        ),
        Err(error) => (Err(error), None),
    };
    ExitAmounts {
        amount_out: quoted.amount_out,
        source: quoted.source,
        fee_bps: f64::from(fee) / 100.0,
        mid_after,
        quoter,
    }
}

/// The capital within each band by a walk over the initialized ticks a pool read walked, from
/// the price `(sqrtPriceX96, tick, liquidity)` (V3 and V4 pools: the same tick maths).
pub(crate) fn tick_walk_depth(
    pool: &Pool,
    (sqrt_price_x96, tick, liquidity): (U256, i32, u128),
    ticks: Option<Result<WalkedTicks, RouteError>>,
    percents: &[u32],
) -> Depth {
    match ticks {
        Some(Ok((map, coverage))) => (
            depth::concentrated_bands(
                depth::ClSnapshot {
                    sqrt_price_x96,
                    tick,
                    liquidity,
                    ticks: &map,
                },
                percents,
            )
            .map_err(RouteError::Math),
            Some(coverage),
        ),
        Some(Err(error)) => (Err(error), None),
        None => (
            Err(RouteError::PoolStateNotRead { pool: pool.address }),
            None,
        ),
    }
}

/// A swap of `amount_in` simulated with V3's maths over the initialized ticks a pool read
/// walked, the price limited to the edge of the words read (V3 and V4 pools: the same maths).
pub(crate) fn simulate_over_ticks(
    (sqrt_price_x96, tick, liquidity): (U256, i32, u128),
    (fee_pips, tick_spacing): (u32, i32),
    zero_for_one: bool,
    amount_in: U256,
    (map, (lowest, highest)): TicksRead<'_>,
) -> Result<dex_math::SwapResult, RouteError> {
    let snapshot = V3State {
        sqrt_price_x96,
        tick,
        liquidity,
        fee_pips,
        tick_spacing,
        ticks: map.clone(),
    };
    let amount =
        I256::try_from(amount_in).map_err(|_| RouteError::Quote("amount too large".to_owned()))?;
    let limit = if zero_for_one { lowest } else { highest };
    dex_math::simulate_swap(&snapshot, zero_for_one, amount, Some(limit)).map_err(RouteError::Math)
}

/// What a simulated swap that stopped at the edge of the ticks read took and paid; `None` for
/// a complete fill, which contradicts a quoter that could not fill the size: nothing is said.
pub(crate) fn partial_fill(swap: dex_math::SwapResult, zero_for_one: bool) -> Option<(U256, U256)> {
    swap.is_partial()
        .then(|| (swap.amount_in(zero_for_one), swap.amount_out(zero_for_one)))
}

/// A tick-walking pool (V3 or V4: the same swap maths) as mev-sim models it, with the ticks
/// of the words read and the window they cover.
pub(crate) fn tick_model(
    state: V3State,
    ticks: MevTicks,
) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
    tick_model_at(state.tick_spacing, state, ticks)
}

/// [`tick_model`] over words whose bits stand for `factor` ticks each.
fn tick_model_at(
    factor: i32,
    mut state: V3State,
    (words, map): MevTicks,
) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
    let spacing = factor;
    let window = TickWindow {
        words,
        initialized_ticks: map.len(),
        ticks: (
            (i32::from(words.0) << 8) * spacing,
            ((i32::from(words.1) + 1) << 8) * spacing,
        ),
    };
    state.ticks = map;
    let valid = ValidPoolState::new(state).map_err(RouteError::Math)?;
    Ok((PoolModel::Concentrated(valid), Some(window)))
}

/// The tick words from the current tick through the price after the victim's trade, plus
/// twice the tolerance and [`TICK_MARGIN`] ticks, in the trade's direction (at most
/// [`MAX_TICK_WORDS`]); one word more on the other side for the back-run's rounding. Without a
/// price after (Algebra V1's Quoter gives none), as far as the cap allows in the trade's
/// direction. `factor` is the ticks one bit of the words stands for.
fn plan_words(
    pool: &Pool,
    quote: &Leg,
    (tick, spacing, factor): (i32, i32, i32),
    slippage_bps: u32,
) -> (i16, i16) {
    let zero_for_one = quote.token_in == pool.token0;
    let cap = (MAX_TICK_WORDS - 1) as i16;
    let clamp = |t: i32| t.clamp(dex_math::tick_math::MIN_TICK, dex_math::tick_math::MAX_TICK);
    let lowest = concentrated::word_of_tick(dex_math::tick_math::MIN_TICK, factor);
    let highest = concentrated::word_of_tick(dex_math::tick_math::MAX_TICK, factor);
    let current = concentrated::word_of_tick(tick, factor);
    let Some(after) = quote
        .quoter
        .and_then(|q| dex_math::tick_math::get_tick_at_sqrt_ratio(q.sqrt_price_x96_after).ok())
    else {
        let (first, last) = if zero_for_one {
            (current.saturating_sub(cap - 1), current.saturating_add(1))
        } else {
            (current.saturating_sub(1), current.saturating_add(cap - 1))
        };
        return (first.max(lowest), last.min(highest));
    };
    let extra = i32::try_from(slippage_bps)
        .unwrap_or(i32::MAX / 4)
        .saturating_mul(2)
        .saturating_add(TICK_MARGIN)
        .saturating_add(spacing);
    let (low, high) = if zero_for_one {
        (
            after.min(tick).saturating_sub(extra),
            tick.saturating_add(spacing),
        )
    } else {
        (
            tick.saturating_sub(spacing),
            after.max(tick).saturating_add(extra),
        )
    };
    let (mut first, mut last) = (
        concentrated::word_of_tick(clamp(low), factor),
        concentrated::word_of_tick(clamp(high), factor),
    );
    if last.saturating_sub(first) > cap {
        if zero_for_one {
            first = last.saturating_sub(cap);
        } else {
            last = first.saturating_add(cap);
        }
    }
    (first, last)
}

#[cfg(test)]
mod tests {
    use alloy::primitives::address;
    use alloy::primitives::aliases::{I24, U160};

    use super::*;

    #[test]
    fn a_pancakeswap_swap_log_decodes_and_its_pools_are_scanned_by_its_topic() {
        let pool_address = address!("00000000000000000000000000000000000000aa");
        let swap = PancakeV3Pool::Swap {
            sender: Address::repeat_byte(1),
            recipient: Address::repeat_byte(2),
            // The trader paid 1,000 of token0 and received 997 of token1.
            amount0: I256::try_from(1_000).expect("amount"),
            amount1: I256::try_from(-997).expect("amount"),
            sqrtPriceX96: U160::from(1u8) << 96,
            liquidity: 1,
            tick: I24::ZERO,
            protocolFeesToken0: 3,
            protocolFeesToken1: 0,
        };
        let log = Log {
            inner: alloy::primitives::Log {
                address: pool_address,
                data: swap.encode_log_data(),
            },
            ..Log::default()
        };
        let event = FEE_TIERS.swap_event(&log).expect("a PancakeSwap V3 swap");
        assert!(event.zero_for_one);
        assert_eq!(event.amount_in, U256::from(1_000u32));
        assert_eq!(event.amount_out, U256::from(997u32));
        let pool = |dex| Pool {
            dex,
            address: pool_address,
            token0: Address::repeat_byte(3),
            token1: Address::repeat_byte(4),
            key: PoolKey::Concentrated {
                fee: 2500,
                tick_spacing: 50,
            },
        };
        let chain = chain_read::Registry::builtin();
        let chain = chain.chain(chain_read::Chain::Base);
        assert_eq!(
            FEE_TIERS
                .swap_logs(chain, &pool(DexId::PancakeswapV3))
                .topic,
            PancakeV3Pool::Swap::SIGNATURE_HASH
        );
        assert_eq!(
            FEE_TIERS.swap_logs(chain, &pool(DexId::UniswapV3)).topic,
            V3Pool::Swap::SIGNATURE_HASH
        );
        assert_ne!(
            PancakeV3Pool::Swap::SIGNATURE_HASH,
            V3Pool::Swap::SIGNATURE_HASH
        );
    }
}
