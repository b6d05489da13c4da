//! Uniswap V4 pools (Uniswap v4-core and v4-periphery): every pool lives in the one
//! PoolManager and is named by its PoolId, `keccak256(abi.encode(PoolKey))` (v4-core
//! `types/PoolId.sol`); its state is read through StateView and a swap is quoted by V4Quoter,
//! which runs the swap in the PoolManager, the pool's hooks included.

use alloy::primitives::aliases::{I24, U24};
use alloy::primitives::{Address, B256, Bytes, U256, keccak256};
use alloy::sol_types::SolValue;

use crate::bindings::{IStateView, IV4Quoter, V4PoolKey};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// The fee of a dynamic-fee pool (v4-core `LPFeeLibrary.DYNAMIC_FEE_FLAG`): the LP fee is
/// then set by the pool's hook and read from `slot0`.
pub const DYNAMIC_FEE_FLAG: u32 = 0x80_0000;

/// The largest LP fee, 100 % in hundredths of a bip (`LPFeeLibrary.MAX_LP_FEE`).
pub const MAX_LP_FEE: u32 = 1_000_000;

/// The hook permissions a hooks contract's address encodes in its lowest 14 bits (v4-core
/// `libraries/Hooks.sol`: the PoolManager calls a hook function only when its bit is set).
pub mod hook_flags {
    /// `BEFORE_INITIALIZE_FLAG`.
    pub const BEFORE_INITIALIZE: u16 = 1 << 13;
    /// `AFTER_INITIALIZE_FLAG`.
    pub const AFTER_INITIALIZE: u16 = 1 << 12;
    /// `BEFORE_ADD_LIQUIDITY_FLAG`.
    pub const BEFORE_ADD_LIQUIDITY: u16 = 1 << 11;
    /// `AFTER_ADD_LIQUIDITY_FLAG`.
    pub const AFTER_ADD_LIQUIDITY: u16 = 1 << 10;
    /// `BEFORE_REMOVE_LIQUIDITY_FLAG`.
    pub const BEFORE_REMOVE_LIQUIDITY: u16 = 1 << 9;
    /// `AFTER_REMOVE_LIQUIDITY_FLAG`.
    pub const AFTER_REMOVE_LIQUIDITY: u16 = 1 << 8;
    /// `BEFORE_SWAP_FLAG`.
    pub const BEFORE_SWAP: u16 = 1 << 7;
    /// `AFTER_SWAP_FLAG`.
    pub const AFTER_SWAP: u16 = 1 << 6;
    /// `BEFORE_DONATE_FLAG`.
    pub const BEFORE_DONATE: u16 = 1 << 5;
    /// `AFTER_DONATE_FLAG`.
    pub const AFTER_DONATE: u16 = 1 << 4;
    /// `BEFORE_SWAP_RETURNS_DELTA_FLAG`.
    pub const BEFORE_SWAP_RETURNS_DELTA: u16 = 1 << 3;
    /// `AFTER_SWAP_RETURNS_DELTA_FLAG`.
    pub const AFTER_SWAP_RETURNS_DELTA: u16 = 1 << 2;
    /// `AFTER_ADD_LIQUIDITY_RETURNS_DELTA_FLAG`.
    pub const AFTER_ADD_LIQUIDITY_RETURNS_DELTA: u16 = 1 << 1;
    /// `AFTER_REMOVE_LIQUIDITY_RETURNS_DELTA_FLAG`.
    pub const AFTER_REMOVE_LIQUIDITY_RETURNS_DELTA: u16 = 1;
    /// `ALL_HOOK_MASK`.
    pub const ALL: u16 = (1 << 14) - 1;
    /// The flags whose hook functions run inside a swap: `beforeSwap` (which can also set a
    /// dynamic pool's fee for the swap, or act on the pool first), `afterSwap` (which can act
    /// on the pool before the next swap) and their return deltas (which change the amounts).
    pub const IN_SWAP: u16 =
        BEFORE_SWAP | AFTER_SWAP | BEFORE_SWAP_RETURNS_DELTA | AFTER_SWAP_RETURNS_DELTA;

    /// Each flag's v4-core name, highest bit first.
    pub const NAMES: [(u16, &str); 14] = [
        (BEFORE_INITIALIZE, "beforeInitialize"),
        (AFTER_INITIALIZE, "afterInitialize"),
        (BEFORE_ADD_LIQUIDITY, "beforeAddLiquidity"),
        (AFTER_ADD_LIQUIDITY, "afterAddLiquidity"),
        (BEFORE_REMOVE_LIQUIDITY, "beforeRemoveLiquidity"),
        (AFTER_REMOVE_LIQUIDITY, "afterRemoveLiquidity"),
        (BEFORE_SWAP, "beforeSwap"),
        (AFTER_SWAP, "afterSwap"),
        (BEFORE_DONATE, "beforeDonate"),
        (AFTER_DONATE, "afterDonate"),
        (BEFORE_SWAP_RETURNS_DELTA, "beforeSwapReturnDelta"),
        (AFTER_SWAP_RETURNS_DELTA, "afterSwapReturnDelta"),
        (
            AFTER_ADD_LIQUIDITY_RETURNS_DELTA,
            "afterAddLiquidityReturnDelta",
        ),
        (
            AFTER_REMOVE_LIQUIDITY_RETURNS_DELTA,
            "afterRemoveLiquidityReturnDelta",
        ),
    ];

    /// The flags of `hooks`: the low 14 bits of its address.
    pub fn of(hooks: alloy::primitives::Address) -> u16 {
        u16::from_be_bytes([hooks[18], hooks[19]]) & ALL
    }

    /// The v4-core names of the flags set in `flags`.
    pub fn names(flags: u16) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(bit, _)| flags & bit != 0)
            .map(|(_, name)| *name)
            .collect()
    }
}

/// What a V4 pool is besides its two currencies: fee, tick spacing and hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct V4Shape {
    /// Fee in hundredths of a bip, or [`DYNAMIC_FEE_FLAG`].
    pub fee: u32,
    /// Tick spacing.
    pub tick_spacing: i32,
    /// The hooks contract (zero for none).
    pub hooks: Address,
}

impl V4Shape {
    /// A hookless shape.
    pub const fn plain(fee: u32, tick_spacing: i32) -> Self {
        Self {
            fee,
            tick_spacing,
            hooks: Address::ZERO,
        }
    }

    /// Whether the LP fee is set by the hook rather than fixed in the key.
    pub fn is_dynamic(&self) -> bool {
        self.fee == DYNAMIC_FEE_FLAG
    }

    /// The PoolKey of this shape for two currencies (sorted here; the zero address, the
    /// native token, sorts first).
    pub fn key(&self, currency_a: Address, currency_b: Address) -> V4PoolKey {
        let (currency0, currency1) = if currency_a < currency_b {
            (currency_a, currency_b)
        } else {
            (currency_b, currency_a)
        };
        V4PoolKey {
            currency0,
            currency1,
            fee: U24::saturating_from(self.fee),
            // A spacing outside int24 is no pool's; spacing 0 names no pool either (v4-core
            // refuses it), so the probe finds nothing.
            tickSpacing: I24::try_from(self.tick_spacing).unwrap_or(I24::ZERO),
            hooks: self.hooks,
        }
    }
}

/// The standard hookless shapes of the Uniswap interface (the V3 fee tiers and their
/// spacings), probed for every pair.
pub const STANDARD_SHAPES: [V4Shape; 4] = [
    V4Shape::plain(100, 1),
    V4Shape::plain(500, 10),
    V4Shape::plain(3000, 60),
    V4Shape::plain(10000, 200),
];

/// `keccak256(abi.encode(key))`: the PoolId (v4-core `PoolIdLibrary.toId`).
pub fn pool_id(key: &V4PoolKey) -> B256 {
    keccak256(key.abi_encode())
}

/// A pool's state at the pinned block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V4PoolState {
    /// `slot0.sqrtPriceX96` (zero: the pool is not initialized).
    pub sqrt_price_x96: U256,
    /// `slot0.tick`.
    pub tick: i32,
    /// In-range liquidity.
    pub liquidity: u128,
    /// The LP fee now charged, hundredths of a bip (a dynamic pool's hook may override it
    /// per swap).
    pub lp_fee: u32,
    /// The protocol fee (two 12-bit values, one per direction).
    pub protocol_fee: u32,
}

/// A pending `getSlot0(poolId)`.
#[derive(Debug, Clone, Copy)]
pub struct Slot0Slot {
    slot: Slot<IStateView::getSlot0Call>,
}

/// `slot0` as StateView answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V4Slot0 {
    /// Square-root price, Q64.96 (zero when the pool is not initialized).
    pub sqrt_price_x96: U256,
    /// Current tick.
    pub tick: i32,
    /// Protocol fee.
    pub protocol_fee: u32,
    /// LP fee.
    pub lp_fee: u32,
}

/// Adds StateView `getSlot0(id)`.
pub fn slot0(batch: &mut Batch, state_view: Address, id: B256) -> Slot0Slot {
    Slot0Slot {
        slot: batch.add(state_view, &IStateView::getSlot0Call { poolId: id }),
    }
}

impl Slot0Slot {
    /// The answer.
    pub fn decode(&self, results: &BatchResults) -> Result<V4Slot0, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(V4Slot0 {
            sqrt_price_x96: U256::from(answer.sqrtPriceX96),
            tick: i32::try_from(answer.tick)
                .map_err(|e| CallFailure::Decode(format!("tick: {e}")))?,
            protocol_fee: answer.protocolFee.to::<u32>(),
            lp_fee: answer.lpFee.to::<u32>(),
        })
    }
}

/// Pending `getSlot0` and `getLiquidity` of one pool.
#[derive(Debug, Clone, Copy)]
pub struct PoolStateSlots {
    slot0: Slot0Slot,
    liquidity: Slot<IStateView::getLiquidityCall>,
}

/// Adds the state reads of the pool `id`.
pub fn pool_state(batch: &mut Batch, state_view: Address, id: B256) -> PoolStateSlots {
    PoolStateSlots {
        slot0: slot0(batch, state_view, id),
        liquidity: batch.add(state_view, &IStateView::getLiquidityCall { poolId: id }),
    }
}

impl PoolStateSlots {
    /// The state; the first failing read is the failure.
    pub fn decode(&self, results: &BatchResults) -> Result<V4PoolState, CallFailure> {
        let slot0 = self.slot0.decode(results)?;
        Ok(V4PoolState {
            sqrt_price_x96: slot0.sqrt_price_x96,
            tick: slot0.tick,
            liquidity: results.get(self.liquidity)?,
            lp_fee: slot0.lp_fee,
            protocol_fee: slot0.protocol_fee,
        })
    }
}

/// A pending `getTickBitmap(id, word)`.
#[derive(Debug, Clone, Copy)]
pub struct BitmapWordSlot {
    word: i16,
    slot: Slot<IStateView::getTickBitmapCall>,
}

/// Adds StateView `getTickBitmap(id, word)`: the pool's bitmap word, as v4-core's
/// `TickBitmap` lays it out (the same layout as a V3 pool's `tickBitmap`).
pub fn tick_bitmap_word(
    batch: &mut Batch,
    state_view: Address,
    id: B256,
    word: i16,
) -> BitmapWordSlot {
    BitmapWordSlot {
        word,
        slot: batch.add(
            state_view,
            &IStateView::getTickBitmapCall {
                poolId: id,
                tick: word,
            },
        ),
    }
}

impl BitmapWordSlot {
    /// The initialized ticks the word marks, lowest first.
    pub fn decode(
        &self,
        results: &BatchResults,
        tick_spacing: i32,
    ) -> Result<Vec<i32>, CallFailure> {
        Ok(super::concentrated::initialized_ticks(
            self.word,
            results.get(self.slot)?,
            tick_spacing,
        ))
    }
}

/// A pending `getTickLiquidity(id, tick)`, read for its `liquidityNet`.
#[derive(Debug, Clone, Copy)]
pub struct TickSlot {
    tick: i32,
    slot: Slot<IStateView::getTickLiquidityCall>,
}

/// Adds StateView `getTickLiquidity(id, tick)`.
pub fn tick_liquidity(batch: &mut Batch, state_view: Address, id: B256, tick: i32) -> TickSlot {
    TickSlot {
        tick,
        slot: batch.add(
            state_view,
            &IStateView::getTickLiquidityCall {
                poolId: id,
                // Ticks come from a bitmap word of this pool, inside int24.
                tick: I24::try_from(tick).unwrap_or(I24::ZERO),
            },
        ),
    }
}

impl TickSlot {
    /// The tick with its `liquidityNet`.
    pub fn decode(&self, results: &BatchResults) -> Result<(i32, i128), CallFailure> {
        Ok((self.tick, results.get(self.slot)?.liquidityNet))
    }
}

/// V4Quoter's answer for one exact-input single-pool swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V4Quote {
    /// Output amount.
    pub amount_out: U256,
    /// Gas the quoter measured around the swap in the PoolManager (hooks included).
    pub gas_estimate: U256,
}

/// A pending `quoteExactInputSingle`.
#[derive(Debug, Clone, Copy)]
pub struct QuoteSlot {
    slot: Slot<IV4Quoter::quoteExactInputSingleCall>,
}

/// Adds V4Quoter `quoteExactInputSingle` of selling `amount_in` of `currency0` when
/// `zero_for_one` (else of `currency1`), without hook data; `None` when the amount does not
/// fit the quoter's `uint128`.
pub fn quote_exact_input_single(
    batch: &mut Batch,
    quoter: Address,
    key: V4PoolKey,
    zero_for_one: bool,
    amount_in: U256,
) -> Option<QuoteSlot> {
    let exact_amount = u128::try_from(amount_in).ok()?;
    let params = IV4Quoter::QuoteExactSingleParams {
        poolKey: key,
        zeroForOne: zero_for_one,
        exactAmount: exact_amount,
        hookData: Bytes::new(),
    };
    Some(QuoteSlot {
        slot: batch.add(quoter, &IV4Quoter::quoteExactInputSingleCall { params }),
    })
}

impl QuoteSlot {
    /// The quote.
    pub fn decode(&self, results: &BatchResults) -> Result<V4Quote, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(V4Quote {
            amount_out: answer.amountOut,
            gas_estimate: answer.gasEstimate,
        })
    }
}

#[cfg(test)]
mod tests {
    use alloy::primitives::{address, b256};

    use super::*;

    #[test]
    fn the_pool_id_is_the_hash_of_the_abi_encoded_key() {
        // The devnet's native ETH/USDC 0.05 % pool as ethers' AbiCoder and keccak256 computed
        // it when the builder initialized it (testdata/devnet/addresses.json).
        let usdc = address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
        let key = V4Shape::plain(500, 10).key(usdc, Address::ZERO);
        assert_eq!(key.currency0, Address::ZERO, "native ether sorts first");
        assert_eq!(
            pool_id(&key),
            b256!("96d4b53a38337a5733179751781178a2613306063c511b78cd02684739288c0a")
        );
    }

    #[test]
    fn a_hooks_address_encodes_its_permissions_in_its_low_14_bits() {
        // The devnet's hooks: the dynamic-fee test hook (afterInitialize, beforeSwap) and the
        // fee-override one (beforeSwap).
        let dynamic = address!("4444000000000000000000000000000000001080");
        assert_eq!(
            hook_flags::of(dynamic),
            hook_flags::AFTER_INITIALIZE | hook_flags::BEFORE_SWAP
        );
        assert_eq!(
            hook_flags::names(hook_flags::of(dynamic)),
            ["afterInitialize", "beforeSwap"]
        );
        // Bits above the 14 are not flags.
        assert_eq!(
            hook_flags::of(address!("000000000000000000000000000000000000c000")),
            0
        );
        assert_eq!(
            hook_flags::of(address!("0000000000000000000000000000000000003fff")),
            hook_flags::ALL
        );
        let liquidity_only = address!("4444000000000000000000000000000000000a00");
        assert_eq!(hook_flags::of(liquidity_only) & hook_flags::IN_SWAP, 0);
        assert_eq!(hook_flags::names(hook_flags::IN_SWAP).len(), 4);
    }

    #[test]
    fn shapes_say_whether_the_hook_sets_the_fee() {
        assert!(V4Shape::plain(DYNAMIC_FEE_FLAG, 60).is_dynamic());
        assert!(!STANDARD_SHAPES.iter().any(V4Shape::is_dynamic));
    }
}
