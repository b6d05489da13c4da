//! Uniswap-V2-style pairs (`x·y = k`, Uniswap v2-core and its forks): one pair per token pair
//! found with `getPair`, quoted with `UniswapV2Library.getAmountOut` on the reserves read at
//! the block, depth on the `x·y` curve.

use std::sync::Arc;

use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::Log;
use alloy::sol_types::SolEvent;
use chain_read::dex::{Pool, PoolKey, PoolState, Reserves, constant_product};
use chain_read::{Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, TokenMetadata};
use dex_math::gas::HopKind;
use dex_math::{MathError, Ratio};
use mev_sim::{ConstantProductPool, PoolModel, SwapEvent};

use super::{
    Claim, ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, LensOutput, MevTicks, NotAPool,
    PoolKind, Probe, QuoteDecode, Quoted, WalkedTicks, lookup_call, lookup_outcome, missing,
    swap_log,
};
use crate::error::RouteError;
use crate::liquidity::depth;
use crate::liquidity::exit::TicksRead;
use crate::mev::TickWindow;
use crate::outcome::{FailureReason, PoolVariant, QuoteSource};
use crate::plan::Pair;

alloy::sol! {
    /// Uniswap V2 pair events.
    interface V2Pair {
        /// A swap.
        event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    }
}

/// The adapter.
pub(crate) struct ConstantProduct;

fn fee_bps(key: PoolKey) -> Option<u32> {
    match key {
        PoolKey::ConstantProduct { fee_bps } => Some(fee_bps),
        _ => None,
    }
}

fn reserves(state: &PoolState) -> Result<Reserves, RouteError> {
    match state {
        PoolState::ConstantProduct(reserves) => Ok(*reserves),
        _ => Err(RouteError::StateMismatch),
    }
}

impl PoolKind for ConstantProduct {
    fn lookups(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>> {
        let (factory, fee_bps) = match &dex.contracts {
            DexContracts::ConstantProduct {
                factory, fee_bps, ..
            } => (*factory, *fee_bps),
            _ => return Arc::new(|_| Vec::new()),
        };
        let lookups: Vec<_> = pairs
            .iter()
            .map(|pair| {
                let lookup =
                    constant_product::get_pair(batch, factory, pair.token_in, pair.token_out);
                (*pair, lookup)
            })
            .collect();
        Arc::new(move |results: &BatchResults| {
            lookups
                .iter()
                .map(|(pair, lookup)| Probe {
                    pair: *pair,
                    variant: PoolVariant::Pair,
                    found: lookup_outcome(
                        lookup.decode(results),
                        PoolKey::ConstantProduct { fee_bps },
                    ),
                })
                .collect()
        })
    }

    fn lens_candidates(&self, _chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate> {
        let DexContracts::ConstantProduct {
            factory, fee_bps, ..
        } = &dex.contracts
        else {
            return Vec::new();
        };
        vec![LensCandidate {
            key: PoolKey::ConstantProduct { fee_bps: *fee_bps },
            address: None,
            lookup: lookup_call(|batch| {
                constant_product::get_pair(batch, *factory, pair.token_in, pair.token_out);
            }),
        }]
    }

    fn lens_output(&self, pool: &Pool) -> LensOutput {
        match fee_bps(pool.key) {
            Some(fee_bps) => LensOutput::Reserves { fee_bps },
            None => LensOutput::Quoted,
        }
    }

    fn state(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
    ) -> Decode<Result<PoolState, CallFailure>> {
        let slot = constant_product::reserves(batch, pool.address);
        Arc::new(move |results| Ok(PoolState::ConstantProduct(slot.decode(results)?)))
    }

    fn quote(
        &self,
        _batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
        token_in: Address,
        amount_in: U256,
    ) -> QuoteDecode {
        // Nothing to read: the amount comes from the reserves read with the state.
        let pool = *pool;
        Arc::new(move |_, state| {
            let reserves = match state {
                Some(Ok(PoolState::ConstantProduct(reserves))) => *reserves,
                Some(Err(failure)) => return Err(FailureReason::Call(failure.clone())),
                _ => return Err(missing()),
            };
            let fee_bps = fee_bps(pool.key).ok_or_else(missing)?;
            let amount_out =
                reserves_amount_out(&reserves, pool.token0, token_in, amount_in, fee_bps)?;
            Ok(Quoted {
                amount_out,
                source: QuoteSource::Reserves,
                quoter: None,
                gas_estimate: None,
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
        let (reserve_in, reserve_out) = reserves(state)?.oriented(pool.token0, token_in);
        dex_math::constant_product_mid_price(reserve_in, reserve_out).map_err(RouteError::MidPrice)
    }

    fn claim(&self, _batch: &mut Batch, _address: Address) -> ClaimDecode {
        // A pair's fee is its DEX's, not its own: nothing to read.
        Arc::new(|_, dex| match &dex.contracts {
            DexContracts::ConstantProduct { fee_bps, .. } => Ok(Claim {
                key: PoolKey::ConstantProduct { fee_bps: *fee_bps },
                ticks_from: None,
            }),
            _ => Err(NotAPool::NotConstantProductFactory),
        })
    }

    fn confirm(
        &self,
        batch: &mut Batch,
        dex: &Dex,
        pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        let lookup = constant_product::get_pair(batch, dex.factory(), pool.token0, pool.token1);
        Arc::new(move |results| lookup.decode(results))
    }

    fn quotes_exits(&self) -> bool {
        false
    }

    fn exit(
        &self,
        pool: &Pool,
        state: &PoolState,
        token_in: Address,
        amount_in: U256,
        _quoted: Option<Result<Quoted, FailureReason>>,
        _tokens: &[TokenMetadata],
        _ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError> {
        let reserves = reserves(state)?;
        let fee_bps = fee_bps(pool.key).ok_or(RouteError::StateMismatch)?;
        let (reserve_in, reserve_out) = reserves.oriented(pool.token0, token_in);
        let out = dex_math::uniswap_v2::get_amount_out(amount_in, reserve_in, reserve_out, fee_bps)
            .map_err(RouteError::Math)?;
        let after = dex_math::constant_product_mid_price(
            reserve_in
                .checked_add(amount_in)
                .ok_or(RouteError::Math(MathError::Overflow))?,
            reserve_out - out,
        )
        .map_err(RouteError::MidPrice)?;
        Ok(ExitAmounts {
            amount_out: out,
            source: QuoteSource::Reserves,
            fee_bps: f64::from(fee_bps),
            mid_after: Ok(after),
            quoter: None,
        })
    }

    fn depth(
        &self,
        _pool: &Pool,
        state: &PoolState,
        _decimals: (u8, u8),
        _ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth {
        let bands = reserves(state).and_then(|reserves| {
            depth::constant_product_bands(reserves.reserve0, reserves.reserve1, percents)
                .map_err(RouteError::Math)
        });
        (bands, None)
    }

    fn hop(&self, _key: PoolKey) -> HopKind {
        HopKind::ConstantProduct
    }

    fn variant(&self, _key: PoolKey) -> PoolVariant {
        PoolVariant::Pair
    }

    fn swap_topic(&self) -> B256 {
        V2Pair::Swap::SIGNATURE_HASH
    }

    fn swap_event(&self, log: &Log) -> Option<SwapEvent> {
        let e = log.log_decode::<V2Pair::Swap>().ok()?.inner.data;
        SwapEvent::from_v2(
            swap_log(log, e.sender, e.to),
            e.amount0In,
            e.amount1In,
            e.amount0Out,
            e.amount1Out,
        )
        .ok()
    }

    fn router(&self, contracts: &DexContracts) -> Option<Address> {
        match contracts {
            DexContracts::ConstantProduct { router02, .. } => *router02,
            _ => None,
        }
    }

    fn mev_model(
        &self,
        pool: &Pool,
        state: &PoolState,
        _tokens: &[TokenMetadata],
        _ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        let reserves = reserves(state)?;
        let fee_bps = fee_bps(pool.key).ok_or(RouteError::StateMismatch)?;
        Ok((
            PoolModel::ConstantProduct(ConstantProductPool {
                reserve0: reserves.reserve0,
                reserve1: reserves.reserve1,
                fee_bps,
            }),
            None,
        ))
    }
}

/// A constant-product leg from the pair's reserves: `UniswapV2Library.getAmountOut` as
/// `dex-math` computes it.
pub(crate) fn reserves_amount_out(
    reserves: &Reserves,
    token0: Address,
    token_in: Address,
    amount_in: U256,
    fee_bps: u32,
) -> Result<U256, FailureReason> {
    let (reserve_in, reserve_out) = reserves.oriented(token0, token_in);
    if reserve_in.is_zero() || reserve_out.is_zero() {
        return Err(FailureReason::EmptyPool);
    }
    dex_math::uniswap_v2::get_amount_out(amount_in, reserve_in, reserve_out, fee_bps).map_err(
        |error| match error {
            MathError::InsufficientLiquidity => FailureReason::EmptyPool,
            // Overflow (and a fee of 100 % or more, which no registry entry has): the library
            // would revert the same way.
            _ => FailureReason::AmountTooLarge,
        },
    )
}
