//! Algebra Integral pools (Camelot V4 on arbitrum is Integral 1.2): concentrated liquidity on
//! V3's swap maths with one base pool per pair, found with the factory's `poolByPair`; the
//! pool's fee is in its `globalState` (`lastFee`: the factory's default, the administrator's
//! or a dynamic-fee plugin's), read at the block; quotes come from the QuoterV2, which names
//! the pool by its tokens and `deployer` (zero for base pools) and answers six values.
//!
//! Interfaces from `@cryptoalgebra/integral-core` 1.2.10 and `@cryptoalgebra/integral-periphery`
//! 1.2.4 (npm), whose bytecode the devnet tests run; see docs/decisions.md, "Algebra Integral".
//!
//! Algebra V1 (QuickSwap V3 on polygon; `@cryptoalgebra/core` 2.0.0 and `@cryptoalgebra/periphery`
//! 1.0.0): the same `poolByPair`, a seven-field `globalState` whose fee is the adaptive fee the
//! last swap's block computed, and a Quoter that takes no fee or deployer and answers
//! `(amountOut, fee)`: the `v1_*` functions.

use alloy::primitives::aliases::U160;
use alloy::primitives::{Address, U256};

use super::PoolLookup;
use super::concentrated::{ClQuote, PoolStateSlots};
use crate::bindings::{IAlgebraFactory, IAlgebraQuoterV2, IAlgebraV1Quoter};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// Adds the factory's `poolByPair(a, b)`: the pair's base pool (zero when there is none).
pub fn pool_by_pair(
    batch: &mut Batch,
    factory: Address,
    token_a: Address,
    token_b: Address,
) -> PoolLookup<IAlgebraFactory::poolByPairCall> {
    PoolLookup::new(batch.add(
        factory,
        &IAlgebraFactory::poolByPairCall {
            tokenA: token_a,
            tokenB: token_b,
        },
    ))
}

/// Adds the state reads of an Algebra Integral pool: `globalState` (price, tick, fee),
/// `liquidity` and `tickSpacing`, decoded in the V3 shape (its swap maths is V3's).
pub fn pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    super::concentrated::algebra_pool_state(batch, pool)
}

/// A pending Algebra QuoterV2 `quoteExactInputSingle`.
#[derive(Debug, Clone, Copy)]
pub struct QuoteSlot {
    slot: Slot<IAlgebraQuoterV2::quoteExactInputSingleCall>,
}

/// What the Algebra QuoterV2 answers beyond Uniswap's four values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlgebraQuote {
    /// The answer in Uniswap QuoterV2's shape.
    pub quote: ClQuote,
    /// The input the swap took (less than asked when the price limit stops it).
    pub amount_in: U256,
    /// The fee the swap paid, hundredths of a bip (a plugin may set it per swap).
    pub fee: u32,
}

/// Adds QuoterV2's `quoteExactInputSingle` for the pool of `deployer` (zero for the factory's
/// base pool), with no price limit.
pub fn quote_exact_input_single(
    batch: &mut Batch,
    quoter_v2: Address,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
    deployer: Address,
) -> QuoteSlot {
    let params = IAlgebraQuoterV2::QuoteExactInputSingleParams {
        tokenIn: token_in,
        tokenOut: token_out,
        deployer,
        amountIn: amount_in,
        limitSqrtPrice: U160::ZERO,
    };
    QuoteSlot {
        slot: batch.add(
            quoter_v2,
            &IAlgebraQuoterV2::quoteExactInputSingleCall { params },
        ),
    }
}

impl QuoteSlot {
    /// The quote, with what the Algebra quoter adds.
    pub fn decode_full(&self, results: &BatchResults) -> Result<AlgebraQuote, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(AlgebraQuote {
            quote: ClQuote {
                amount_out: answer.amountOut,
                sqrt_price_x96_after: U256::from(answer.sqrtPriceX96After),
                initialized_ticks_crossed: answer.initializedTicksCrossed,
                gas_estimate: answer.gasEstimate,
            },
            amount_in: answer.amountIn,
            fee: u32::from(answer.fee),
        })
    }

    /// The quote in the same shape as Uniswap's QuoterV2 answer.
    pub fn decode(&self, results: &BatchResults) -> Result<ClQuote, CallFailure> {
        self.decode_full(results).map(|full| full.quote)
    }
}

/// Adds an Algebra Integral pool's `tickTable(word)`: the leaves of its tick tree, where bit `b`
/// of word `w` marks the tick `w·256 + b` itself (`TickTree.toggleTick`: ticks are not
/// compressed by the spacing, unlike V3's bitmap and Algebra V1's table); the same selector as
/// V1's, so the slot is read with a spacing of 1.
pub fn tick_tree_leaf(
    batch: &mut Batch,
    pool: Address,
    word: i16,
) -> super::concentrated::BitmapWordSlot {
    super::concentrated::tick_table_word(batch, pool, word)
}

/// A pending Algebra Integral `ticks(tick)`, read for its `liquidityDelta`.
#[derive(Debug, Clone, Copy)]
pub struct TickSlot {
    tick: i32,
    slot: Slot<crate::bindings::IAlgebraPool::ticksCall>,
}

/// Adds an Algebra Integral pool's `ticks(tick)` (six fields).
pub fn tick_info(batch: &mut Batch, pool: Address, tick: i32) -> TickSlot {
    TickSlot {
        tick,
        slot: batch.add(
            pool,
            &crate::bindings::IAlgebraPool::ticksCall {
                tick: alloy::primitives::aliases::I24::try_from(tick)
                    .unwrap_or(alloy::primitives::aliases::I24::ZERO),
            },
        ),
    }
}

impl TickSlot {
    /// The tick with its `liquidityDelta` (V3's `liquidityNet`).
    pub fn decode(
        &self,
        results: &BatchResults,
    ) -> Result<super::concentrated::InitializedTick, CallFailure> {
        Ok(super::concentrated::InitializedTick {
            tick: self.tick,
            liquidity_net: results.get(self.slot)?.liquidityDelta,
        })
    }
}

/// Adds the state reads of an Algebra V1 pool: its seven-field `globalState`, `liquidity` and
/// `tickSpacing`, decoded in the V3 shape.
pub fn v1_pool_state(batch: &mut Batch, pool: Address) -> PoolStateSlots {
    super::concentrated::algebra_v1_pool_state(batch, pool)
}

/// A pending Algebra V1 Quoter `quoteExactInputSingle`.
#[derive(Debug, Clone, Copy)]
pub struct V1QuoteSlot {
    slot: Slot<IAlgebraV1Quoter::quoteExactInputSingleCall>,
}

/// The Algebra V1 Quoter's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V1Quote {
    /// Output amount.
    pub amount_out: U256,
    /// The fee the swap paid, hundredths of a bip: the adaptive fee of the block the quote ran
    /// in, which may differ from the `globalState` fee an earlier block left.
    pub fee: u32,
}

/// Adds the Algebra V1 Quoter's `quoteExactInputSingle(tokenIn, tokenOut, amountIn, 0)`: the
/// pair's pool, no price limit.
pub fn v1_quote_exact_input_single(
    batch: &mut Batch,
    quoter: Address,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
) -> V1QuoteSlot {
    V1QuoteSlot {
        slot: batch.add(
            quoter,
            &IAlgebraV1Quoter::quoteExactInputSingleCall {
                tokenIn: token_in,
                tokenOut: token_out,
                amountIn: amount_in,
                limitSqrtPrice: U160::ZERO,
            },
        ),
    }
}

impl V1QuoteSlot {
    /// The amount and the fee paid.
    pub fn decode(&self, results: &BatchResults) -> Result<V1Quote, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok(V1Quote {
            amount_out: answer.amountOut,
            fee: u32::from(answer.fee),
        })
    }
}

#[cfg(test)]
mod tests {
    use alloy::sol_types::{SolCall, SolValue};

    use super::*;
    use crate::bindings::{IAlgebraPool, IUniswapV3Pool};
    use crate::dex::selector;

    #[test]
    fn the_calls_are_algebra_integrals_signatures() {
        // The Solidity signatures of @cryptoalgebra/integral-{core,periphery}'s interfaces.
        assert_eq!(
            IAlgebraFactory::poolByPairCall::SELECTOR,
            selector("poolByPair(address,address)")
        );
        assert_eq!(
            IAlgebraPool::globalStateCall::SELECTOR,
            selector("globalState()")
        );
        assert_eq!(
            IAlgebraQuoterV2::quoteExactInputSingleCall::SELECTOR,
            selector("quoteExactInputSingle((address,address,address,uint256,uint160))")
        );
        // The deployer is the third word of the parameters.
        let mut batch = Batch::new();
        quote_exact_input_single(
            &mut batch,
            Address::repeat_byte(9),
            Address::repeat_byte(1),
            Address::repeat_byte(2),
            U256::from(10u8),
            Address::repeat_byte(7),
        );
        let (_, data) = batch.calls().next().expect("one call");
        assert_eq!(data.len(), 4 + 5 * 32);
        assert_eq!(
            &data[4 + 2 * 32 + 12..4 + 3 * 32],
            Address::repeat_byte(7).as_slice()
        );
    }

    #[test]
    fn the_v1_calls_are_algebra_v1s_signatures() {
        use crate::bindings::IAlgebraV1Pool;
        // @cryptoalgebra/core 2.0.0 IAlgebraPoolState.sol, @cryptoalgebra/periphery 1.0.0 IQuoter.sol.
        assert_eq!(
            IAlgebraV1Pool::globalStateCall::SELECTOR,
            selector("globalState()")
        );
        assert_eq!(
            IAlgebraV1Pool::tickTableCall::SELECTOR,
            selector("tickTable(int16)")
        );
        assert_eq!(
            IAlgebraV1Quoter::quoteExactInputSingleCall::SELECTOR,
            selector("quoteExactInputSingle(address,address,uint256,uint160)")
        );
        // Seven words: V1's globalState decodes with its fee third.
        let answer = (
            U160::from(1u8) << 96,
            alloy::primitives::aliases::I24::try_from(-5).expect("tick"),
            1_234u16,
            7u16,
            // The community fees (uint8): zero is the same word at any width.
            0u16,
            0u16,
            true,
        )
            .abi_encode_params();
        let decoded = IAlgebraV1Pool::globalStateCall::abi_decode_returns(&answer).expect("seven");
        assert_eq!(decoded.fee, 1_234);
        assert_eq!(decoded.timepointIndex, 7);
    }

    #[test]
    fn global_state_decodes_price_tick_and_fee_where_slot0_cannot() {
        let answer = (
            U160::from(1u8) << 96,
            alloy::primitives::aliases::I24::try_from(-5).expect("tick"),
            3_000u16,
            // pluginConfig (uint8): zero is the same word at any width.
            0u16,
            0u16,
            true,
        )
            .abi_encode_params();
        let decoded = IAlgebraPool::globalStateCall::abi_decode_returns(&answer).expect("six");
        assert_eq!(decoded.price, U160::from(1u8) << 96);
        assert_eq!(decoded.lastFee, 3_000);
        // V3's seven-field slot0 does not decode from six words.
        assert!(IUniswapV3Pool::slot0Call::abi_decode_returns(&answer).is_err());
    }
}
