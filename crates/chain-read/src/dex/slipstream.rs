//! Slipstream pools (Aerodrome on base, Velodrome on optimism): Uniswap V3's concentrated
//! liquidity keyed by tick spacing instead of fee tier. Pools are found with the CLFactory's
//! `getPool(tokenA, tokenB, int24 tickSpacing)`, their fee is the pool's own `fee()` (a fee
//! module may change it, so it is read at the block, never taken from the spacing), and quotes
//! come from the QuoterV2 deployed beside each factory, whose parameters carry the spacing.
//!
//! Interfaces from github.com/aerodrome-finance/slipstream (`contracts/core/interfaces`,
//! `contracts/periphery/interfaces/IQuoterV2.sol`); see docs/decisions.md, "Slipstream".

use alloy::primitives::aliases::{I24, U160};
use alloy::primitives::{Address, U256};

use super::PoolLookup;
use super::concentrated::{ClQuote, InitializedTick, PoolStateSlots};
use crate::bindings::{ISlipstreamFactory, ISlipstreamPool, ISlipstreamQuoterV2};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// The tick spacings `CLFactory`'s constructor enables on both chains (with default fees 100,
/// 500, 500, 3000 and 10000 pips); governance may enable more (`tickSpacings()`).
pub const DEFAULT_TICK_SPACINGS: [i32; 5] = [1, 50, 100, 200, 2_000];

/// An `int24` from an `i32`, saturating at its bounds (no spacing or tick comes near them).
fn i24(value: i32) -> I24 {
    I24::try_from(value).unwrap_or(if value < 0 { I24::MIN } else { I24::MAX })
}

/// Adds the factory's `getPool(a, b, tickSpacing)`.
pub fn get_pool(
    batch: &mut Batch,
    factory: Address,
    token_a: Address,
    token_b: Address,
    tick_spacing: i32,
) -> PoolLookup<ISlipstreamFactory::getPoolCall> {
    PoolLookup::new(batch.add(
        factory,
        &ISlipstreamFactory::getPoolCall {
            tokenA: token_a,
            tokenB: token_b,
            tickSpacing: i24(tick_spacing),
        },
    ))
}

/// A pending Slipstream QuoterV2 `quoteExactInputSingle`.
#[derive(Debug, Clone, Copy)]
pub struct QuoteSlot {
    slot: Slot<ISlipstreamQuoterV2::quoteExactInputSingleCall>,
}

/// Adds QuoterV2's `quoteExactInputSingle` for the pool of `tick_spacing`, with no price
/// limit. Each QuoterV2 finds the pool through its own factory.
pub fn quote_exact_input_single(
    batch: &mut Batch,
    quoter_v2: Address,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
    tick_spacing: i32,
) -> QuoteSlot {
    let params = ISlipstreamQuoterV2::QuoteExactInputSingleParams {
        tokenIn: token_in,
        tokenOut: token_out,
        amountIn: amount_in,
        tickSpacing: i24(tick_spacing),
        sqrtPriceLimitX96: U160::ZERO,
    };
    QuoteSlot {
        slot: batch.add(
            quoter_v2,
            &ISlipstreamQuoterV2::quoteExactInputSingleCall { params },
        ),
    }
}

impl QuoteSlot {
    /// The quote, in the same shape as Uniswap's QuoterV2 answer.
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

/// Adds the state reads of a Slipstream pool: its six-field `slot0`, then V3's `liquidity`,
/// `fee` and `tickSpacing`, decoded in the V3 shape (its swap maths is V3's).
pub fn pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    super::concentrated::slipstream_pool_state(batch, pool)
}

/// A pending Slipstream `pool.ticks(tick)` (ten fields), read for its `liquidityNet`.
#[derive(Debug, Clone, Copy)]
pub struct TickSlot {
    tick: i32,
    slot: Slot<ISlipstreamPool::ticksCall>,
}

/// Adds `pool.ticks(tick)`.
pub fn tick_info(batch: &mut Batch, pool: Address, tick: i32) -> TickSlot {
    TickSlot {
        tick,
        slot: batch.add(pool, &ISlipstreamPool::ticksCall { tick: i24(tick) }),
    }
}

impl TickSlot {
    /// The tick with its `liquidityNet` (all liquidity, staked and unstaked: the swap maths
    /// crosses both).
    pub fn decode(&self, results: &BatchResults) -> Result<InitializedTick, CallFailure> {
        Ok(InitializedTick {
            tick: self.tick,
            liquidity_net: results.get(self.slot)?.liquidityNet,
        })
    }
}

#[cfg(test)]
mod tests {
    use alloy::sol_types::{SolCall, SolValue};

    use super::*;
    use crate::bindings::IUniswapV3Pool;
    use crate::dex::selector;

    #[test]
    fn the_calls_are_slipstreams_signatures_not_uniswaps() {
        // The Solidity signatures of the interfaces in aerodrome-finance/slipstream.
        assert_eq!(
            ISlipstreamFactory::getPoolCall::SELECTOR,
            selector("getPool(address,address,int24)")
        );
        assert_eq!(
            ISlipstreamQuoterV2::quoteExactInputSingleCall::SELECTOR,
            selector("quoteExactInputSingle((address,address,uint256,int24,uint160))")
        );
        assert_eq!(
            ISlipstreamPool::ticksCall::SELECTOR,
            selector("ticks(int24)")
        );
        // Uniswap's fee-keyed lookup and quote are other functions.
        assert_ne!(
            ISlipstreamFactory::getPoolCall::SELECTOR,
            crate::bindings::IUniswapV3Factory::getPoolCall::SELECTOR
        );
        assert_ne!(
            ISlipstreamQuoterV2::quoteExactInputSingleCall::SELECTOR,
            crate::bindings::IQuoterV2::quoteExactInputSingleCall::SELECTOR
        );
        // The spacing is encoded as a signed word: -1 would be all ones, 200 is 200.
        let mut batch = Batch::new();
        quote_exact_input_single(
            &mut batch,
            Address::repeat_byte(9),
            Address::repeat_byte(1),
            Address::repeat_byte(2),
            U256::from(10u8),
            200,
        );
        let (_, data) = batch.calls().next().expect("one call");
        assert_eq!(data.len(), 4 + 5 * 32);
        assert_eq!(
            U256::from_be_slice(&data[4 + 3 * 32..4 + 4 * 32]),
            U256::from(200u32)
        );
    }

    #[test]
    fn a_six_field_slot0_decodes_where_uniswaps_seven_field_one_cannot() {
        // slot0 as a Slipstream pool answers it: six words.
        let answer = (
            U160::from(1u8) << 96,
            I24::try_from(-5).expect("tick"),
            3u16,
            10u16,
            10u16,
            true,
        )
            .abi_encode_params();
        assert_eq!(answer.len(), 6 * 32);
        let decoded = ISlipstreamPool::slot0Call::abi_decode_returns(&answer).expect("six fields");
        assert_eq!(decoded.sqrtPriceX96, U160::from(1u8) << 96);
        assert_eq!(i32::try_from(decoded.tick).expect("tick"), -5);
        assert!(IUniswapV3Pool::slot0Call::abi_decode_returns(&answer).is_err());
    }

    #[test]
    fn a_ten_field_tick_decodes_its_liquidity_net() {
        let answer = (
            7u128,
            -42i128,
            -40i128,
            U256::ZERO,
            U256::ZERO,
            U256::ZERO,
            alloy::primitives::aliases::I56::ZERO,
            U160::ZERO,
            0u32,
            true,
        )
            .abi_encode_params();
        let decoded = ISlipstreamPool::ticksCall::abi_decode_returns(&answer).expect("ten fields");
        assert_eq!(decoded.liquidityNet, -42);
        // V3's eight-field decoding would read stakedLiquidityNet's word as feeGrowthOutside0.
        let v3 = IUniswapV3Pool::ticksCall::abi_decode_returns(&answer).expect("prefix decodes");
        assert_ne!(v3.feeGrowthOutside0X128, U256::ZERO);
    }
}
