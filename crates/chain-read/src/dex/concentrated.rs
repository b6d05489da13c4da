//! Uniswap-V3-style pools (Uniswap v3-core and v3-periphery): fee tiers probed on the factory, pools found with
//! `getPool`, quotes from QuoterV2 and pool state for off-chain simulation.

use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, U256};

use super::PoolLookup;
use crate::bindings::{
    IAlgebraPool, IAlgebraV1Pool, IQuoterV2, ISlipstreamPool, ITickLens, IUniswapV3Factory,
    IUniswapV3Pool,
};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// One fee tier as the factory answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeeTier {
    /// Fee in hundredths of a basis point.
    pub fee: u32,
    /// `feeAmountTickSpacing(fee)`: `Ok(None)` when the factory does not enable the tier (0).
    pub tick_spacing: Result<Option<i32>, CallFailure>,
}

/// Pending `feeAmountTickSpacing` probes.
#[derive(Debug, Clone)]
pub struct FeeTierSlots {
    slots: Vec<(u32, Slot<IUniswapV3Factory::feeAmountTickSpacingCall>)>,
}

/// Adds `feeAmountTickSpacing(fee)` for every fee in `fees`.
pub fn probe_fee_tiers(batch: &mut Batch, factory: Address, fees: &[u32]) -> FeeTierSlots {
    FeeTierSlots {
        slots: fees
            .iter()
            .map(|&fee| {
                let call = IUniswapV3Factory::feeAmountTickSpacingCall {
                    fee: U24::saturating_from(fee),
                };
                (fee, batch.add(factory, &call))
            })
            .collect(),
    }
}

impl FeeTierSlots {
    /// Every probed tier, in the order given.
    pub fn decode(&self, results: &BatchResults) -> Vec<FeeTier> {
        self.slots
            .iter()
            .map(|(fee, slot)| FeeTier {
                fee: *fee,
                tick_spacing: results.get(*slot).and_then(|spacing| {
                    let spacing = i32::try_from(spacing)
                        .map_err(|e| CallFailure::Decode(format!("tick spacing: {e}")))?;
                    Ok((spacing != 0).then_some(spacing))
                }),
            })
            .collect()
    }
}

/// Adds `getPool(a, b, fee)`.
pub fn get_pool(
    batch: &mut Batch,
    factory: Address,
    token_a: Address,
    token_b: Address,
    fee: u32,
) -> PoolLookup<IUniswapV3Factory::getPoolCall> {
    PoolLookup::new(batch.add(
        factory,
        &IUniswapV3Factory::getPoolCall {
            tokenA: token_a,
            tokenB: token_b,
            fee: U24::saturating_from(fee),
        },
    ))
}

/// QuoterV2's answer for one exact-input single-pool swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClQuote {
    /// Output amount.
    pub amount_out: U256,
    /// Pool price after the swap.
    pub sqrt_price_x96_after: U256,
    /// Initialized ticks crossed.
    pub initialized_ticks_crossed: u32,
    /// Gas of the inner swap only (no router overhead).
    pub gas_estimate: U256,
}

/// A pending `quoteExactInputSingle`.
#[derive(Debug, Clone, Copy)]
pub struct QuoteSlot {
    slot: Slot<IQuoterV2::quoteExactInputSingleCall>,
}

/// Adds QuoterV2 `quoteExactInputSingle` with no price limit. The quoter is not `view`; inside
/// `aggregate3` with `allowFailure` its internal revert is caught like any other failure.
pub fn quote_exact_input_single(
    batch: &mut Batch,
    quoter_v2: Address,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
    fee: u32,
) -> QuoteSlot {
    let params = IQuoterV2::QuoteExactInputSingleParams {
        tokenIn: token_in,
        tokenOut: token_out,
        amountIn: amount_in,
        fee: U24::saturating_from(fee),
        sqrtPriceLimitX96: U160::ZERO,
    };
    QuoteSlot {
        slot: batch.add(quoter_v2, &IQuoterV2::quoteExactInputSingleCall { params }),
    }
}

impl QuoteSlot {
    /// The quote.
    pub fn decode(&self, results: &BatchResults) -> Result<ClQuote, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(ClQuote {
            amount_out: answer.amountOut,
            sqrt_price_x96_after: U256::from(answer.sqrtPriceX96After),
            initialized_ticks_crossed: answer.initializedTicksCrossed,
            gas_estimate: answer.gasEstimate,
        })
    }
}

/// A pool's price, liquidity and tier at the pinned block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClPoolState {
    /// `slot0.sqrtPriceX96`.
    pub sqrt_price_x96: U256,
    /// `slot0.tick`.
    pub tick: i32,
    /// In-range liquidity.
    pub liquidity: u128,
    /// `fee()`.
    pub fee: u32,
    /// `tickSpacing()`.
    pub tick_spacing: i32,
}

/// Pending `slot0`, `liquidity`, `fee` and `tickSpacing` reads.
#[derive(Debug, Clone, Copy)]
pub struct PoolStateSlots {
    slot0: Slot0Slot,
    liquidity: Slot<IUniswapV3Pool::liquidityCall>,
    /// `None` where `slot0` holds the fee (Algebra's `globalState`).
    fee: Option<Slot<IUniswapV3Pool::feeCall>>,
    tick_spacing: Slot<IUniswapV3Pool::tickSpacingCall>,
}

/// A pending `slot0`: Uniswap V3's seven fields, Slipstream's six (no fee-protocol field), or
/// Algebra Integral's `globalState` (which also holds the fee); all start with the price and
/// the tick.
#[derive(Debug, Clone, Copy)]
enum Slot0Slot {
    UniswapV3(Slot<IUniswapV3Pool::slot0Call>),
    Slipstream(Slot<ISlipstreamPool::slot0Call>),
    Algebra(Slot<IAlgebraPool::globalStateCall>),
    AlgebraV1(Slot<IAlgebraV1Pool::globalStateCall>),
}

/// Adds the state reads of `pool`.
pub fn pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    let slot0 = Slot0Slot::UniswapV3(batch.add(pool, &IUniswapV3Pool::slot0Call {}));
    PoolStateSlots::with_slot0(batch, pool, slot0)
}

/// Adds the state reads of a Slipstream `pool` (its six-field `slot0`).
pub(crate) fn slipstream_pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    let slot0 = Slot0Slot::Slipstream(batch.add(pool, &ISlipstreamPool::slot0Call {}));
    PoolStateSlots::with_slot0(batch, pool, slot0)
}

/// Adds the state reads of an Algebra Integral `pool`: `globalState` (price, tick and the
/// pool's fee, `lastFee`), `liquidity` and `tickSpacing`.
pub(crate) fn algebra_pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    let slot0 = Slot0Slot::Algebra(batch.add(pool, &IAlgebraPool::globalStateCall {}));
    PoolStateSlots {
        slot0,
        liquidity: batch.add(pool, &IUniswapV3Pool::liquidityCall {}),
        fee: None,
        tick_spacing: batch.add(pool, &IUniswapV3Pool::tickSpacingCall {}),
    }
}

/// Adds the state reads of an Algebra V1 `pool`: its seven-field `globalState` (price, tick and
/// the fee the last swap's block computed), `liquidity` and `tickSpacing`.
pub(crate) fn algebra_v1_pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    let slot0 = Slot0Slot::AlgebraV1(batch.add(pool, &IAlgebraV1Pool::globalStateCall {}));
    PoolStateSlots {
        slot0,
        liquidity: batch.add(pool, &IUniswapV3Pool::liquidityCall {}),
        fee: None,
        tick_spacing: batch.add(pool, &IUniswapV3Pool::tickSpacingCall {}),
    }
}

impl PoolStateSlots {
    /// The reads after `slot0`, in the order both kinds have always added them.
    fn with_slot0(batch: &mut Batch, pool: Address, slot0: Slot0Slot) -> Self {
        Self {
            slot0,
            liquidity: batch.add(pool, &IUniswapV3Pool::liquidityCall {}),
            fee: Some(batch.add(pool, &IUniswapV3Pool::feeCall {})),
            tick_spacing: batch.add(pool, &IUniswapV3Pool::tickSpacingCall {}),
        }
    }

    /// The state; the first failing read is the failure.
    pub fn decode(&self, results: &BatchResults) -> Result<ClPoolState, CallFailure> {
        let (sqrt_price_x96, tick, slot0_fee) = match self.slot0 {
            Slot0Slot::UniswapV3(slot) => {
                let slot0 = results.get(slot)?;
                (slot0.sqrtPriceX96, slot0.tick, None)
            }
            Slot0Slot::Slipstream(slot) => {
                let slot0 = results.get(slot)?;
                (slot0.sqrtPriceX96, slot0.tick, None)
            }
            Slot0Slot::Algebra(slot) => {
                let state = results.get(slot)?;
                (state.price, state.tick, Some(u32::from(state.lastFee)))
            }
            Slot0Slot::AlgebraV1(slot) => {
                let state = results.get(slot)?;
                (state.price, state.tick, Some(u32::from(state.fee)))
            }
        };
        let fee = match (slot0_fee, self.fee) {
            (Some(fee), _) => fee,
            (None, Some(slot)) => results.get(slot)?.to::<u32>(),
            (None, None) => return Err(CallFailure::Decode("no fee read".to_owned())),
        };
        Ok(ClPoolState {
            sqrt_price_x96: U256::from(sqrt_price_x96),
            tick: i32::try_from(tick).map_err(|e| CallFailure::Decode(format!("tick: {e}")))?,
            liquidity: results.get(self.liquidity)?,
            fee,
            tick_spacing: i32::try_from(results.get(self.tick_spacing)?)
                .map_err(|e| CallFailure::Decode(format!("tick spacing: {e}")))?,
        })
    }
}

/// The bitmap word (`tickBitmap` index) holding `tick` for a pool with `tick_spacing`:
/// `floor(tick / spacing) >> 8`, as `TickBitmap.position` computes it.
pub fn word_of_tick(tick: i32, tick_spacing: i32) -> i16 {
    let compressed = tick.div_euclid(tick_spacing.max(1));
    // |compressed| ≤ 887272, so the word fits an i16 (±3466).
    i16::try_from(compressed >> 8).unwrap_or(if compressed < 0 { i16::MIN } else { i16::MAX })
}

/// An initialized tick and the liquidity that enters the range when the price crosses it
/// upwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitializedTick {
    /// The tick.
    pub tick: i32,
    /// `liquidityNet`.
    pub liquidity_net: i128,
}

/// A pending TickLens `getPopulatedTicksInWord`.
#[derive(Debug, Clone, Copy)]
pub struct TickWordSlot {
    slot: Slot<ITickLens::getPopulatedTicksInWordCall>,
}

/// Adds TickLens `getPopulatedTicksInWord(pool, word)`: every initialized tick of the word
/// with its `liquidityNet`, in one call.
pub fn populated_ticks(
    batch: &mut Batch,
    tick_lens: Address,
    pool: Address,
    word: i16,
) -> TickWordSlot {
    TickWordSlot {
        slot: batch.add(
            tick_lens,
            &ITickLens::getPopulatedTicksInWordCall {
                pool,
                tickBitmapIndex: word,
            },
        ),
    }
}

impl TickWordSlot {
    /// The word's initialized ticks (TickLens lists them highest first).
    pub fn decode(&self, results: &BatchResults) -> Result<Vec<InitializedTick>, CallFailure> {
        results
            .get(self.slot)?
            .into_iter()
            .map(|populated| {
                Ok(InitializedTick {
                    tick: i32::try_from(populated.tick)
                        .map_err(|e| CallFailure::Decode(format!("tick: {e}")))?,
                    liquidity_net: populated.liquidityNet,
                })
            })
            .collect()
    }
}

/// A pending `tickBitmap(word)` (for chains without a TickLens), or Algebra V1's
/// `tickTable(word)`, which has the same layout.
#[derive(Debug, Clone, Copy)]
pub struct BitmapWordSlot {
    word: i16,
    slot: BitmapSlot,
}

#[derive(Debug, Clone, Copy)]
enum BitmapSlot {
    TickBitmap(Slot<IUniswapV3Pool::tickBitmapCall>),
    TickTable(Slot<IAlgebraV1Pool::tickTableCall>),
}

/// Adds `pool.tickBitmap(word)`.
pub fn tick_bitmap_word(batch: &mut Batch, pool: Address, word: i16) -> BitmapWordSlot {
    BitmapWordSlot {
        word,
        slot: BitmapSlot::TickBitmap(
            batch.add(pool, &IUniswapV3Pool::tickBitmapCall { wordPosition: word }),
        ),
    }
}

/// Adds an Algebra V1 pool's `tickTable(word)`: bit `b` marks the tick `(word·256 + b)·spacing`
/// (`TickTable.toggleTick` compresses by the spacing, then splits at 8 bits), V3's layout.
pub fn tick_table_word(batch: &mut Batch, pool: Address, word: i16) -> BitmapWordSlot {
    BitmapWordSlot {
        word,
        slot: BitmapSlot::TickTable(
            batch.add(pool, &IAlgebraV1Pool::tickTableCall { wordPosition: word }),
        ),
    }
}

/// The initialized ticks a tick-bitmap word marks, lowest first: bit `b` of word `w` is the
/// compressed tick `w * 256 + b` (V3's and V4's bitmaps alike).
pub(crate) fn initialized_ticks(word: i16, bits: U256, tick_spacing: i32) -> Vec<i32> {
    (0..256usize)
        .filter(|bit| bits.bit(*bit))
        .map(|bit| ((i32::from(word) << 8) + bit as i32) * tick_spacing)
        .collect()
}

impl BitmapWordSlot {
    /// The initialized ticks the word marks, lowest first.
    pub fn decode(
        &self,
        results: &BatchResults,
        tick_spacing: i32,
    ) -> Result<Vec<i32>, CallFailure> {
        let bits = match self.slot {
            BitmapSlot::TickBitmap(slot) => results.get(slot)?,
            BitmapSlot::TickTable(slot) => results.get(slot)?,
        };
        Ok(initialized_ticks(self.word, bits, tick_spacing))
    }
}

/// A pending `pool.ticks(tick)`, read for its `liquidityNet`.
#[derive(Debug, Clone, Copy)]
pub struct TickSlot {
    tick: i32,
    slot: Slot<IUniswapV3Pool::ticksCall>,
}

/// Adds `pool.ticks(tick)`.
pub fn tick_info(batch: &mut Batch, pool: Address, tick: i32) -> TickSlot {
    TickSlot {
        tick,
        slot: batch.add(
            pool,
            &IUniswapV3Pool::ticksCall {
                tick: alloy::primitives::aliases::I24::try_from(tick)
                    .unwrap_or(alloy::primitives::aliases::I24::ZERO),
            },
        ),
    }
}

impl TickSlot {
    /// The tick with its `liquidityNet`.
    pub fn decode(&self, results: &BatchResults) -> Result<InitializedTick, CallFailure> {
        Ok(InitializedTick {
            tick: self.tick,
            liquidity_net: results.get(self.slot)?.liquidityNet,
        })
    }
}
