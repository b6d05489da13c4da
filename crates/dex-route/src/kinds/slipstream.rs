//! Slipstream pools (Aerodrome on base, Velodrome on optimism): Uniswap V3's concentrated
//! liquidity keyed by tick spacing. Discovery asks every CL factory of the DEX for every tick
//! spacing (`getPool(tokenA, tokenB, int24)`), the state is the pool's six-field `slot0`,
//! `liquidity`, its current `fee()` and `tickSpacing`, quotes come from the QuoterV2 deployed
//! beside the pool's factory. The swap maths is V3's, so the price, exits' price after, depth
//! and fills are the concentrated kind's on the same state. Proven on the devnet against
//! Slipstream's interface (our own contracts over Uniswap V3 pools), not its bytecode.

use std::sync::Arc;

use alloy::primitives::{Address, B256, U256};
use alloy::rpc::types::Log;
use chain_read::dex::slipstream;
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{
    Batch, BatchResults, CallFailure, ChainInfo, Dex, DexContracts, SlipstreamDeployment,
    TokenMetadata,
};
use dex_math::Ratio;
use dex_math::gas::HopKind;
use mev_sim::{PoolModel, SwapEvent};

use super::concentrated::Concentrated;
use super::{
    Claim, ClaimDecode, Decode, Depth, ExitAmounts, LensCandidate, MevTicks, NotAPool, PoolKind,
    Probe, QuoteDecode, Quoted, WalkedTicks, WordRead, lookup_call, lookup_outcome, missing,
};
use crate::error::RouteError;
use crate::liquidity::TickSource;
use crate::liquidity::exit::TicksRead;
use crate::mev::TickWindow;
use crate::outcome::{FailureReason, PoolVariant, QuoteSource};
use crate::plan::Pair;

/// The adapter.
pub(crate) struct Slipstream;

fn contracts(dex: &Dex) -> Option<(&[SlipstreamDeployment], &[i32])> {
    match &dex.contracts {
        DexContracts::Slipstream {
            deployments,
            tick_spacings,
        } => Some((deployments, tick_spacings)),
        _ => None,
    }
}

/// The QuoterV2 deployed with the factory that holds `pool`.
fn quoter_of(chain: &ChainInfo, pool: &Pool) -> Option<Address> {
    let PoolKey::Slipstream { factory, .. } = pool.key else {
        return None;
    };
    let (deployments, _) = contracts(chain.dex(pool.dex)?)?;
    deployments
        .iter()
        .find(|d| d.factory == factory)
        .map(|d| d.quoter_v2)
}

fn spacing_of(pool: &Pool) -> Result<i32, RouteError> {
    match pool.key {
        PoolKey::Slipstream { tick_spacing, .. } => Ok(tick_spacing),
        _ => Err(RouteError::StateMismatch),
    }
}

impl PoolKind for Slipstream {
    fn lookups(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        dex: &Dex,
        pairs: &[Pair],
    ) -> Decode<Vec<Probe>> {
        let Some((deployments, spacings)) = contracts(dex) else {
            return Arc::new(|_| Vec::new());
        };
        let mut lookups = Vec::new();
        for pair in pairs {
            for deployment in deployments {
                for spacing in spacings {
                    let lookup = slipstream::get_pool(
                        batch,
                        deployment.factory,
                        pair.token_in,
                        pair.token_out,
                        *spacing,
                    );
                    lookups.push((*pair, deployment.factory, *spacing, lookup));
                }
            }
        }
        Arc::new(move |results: &BatchResults| {
            lookups
                .iter()
                .map(|(pair, factory, spacing, lookup)| {
                    let key = PoolKey::Slipstream {
                        tick_spacing: *spacing,
                        factory: *factory,
                    };
                    Probe {
                        pair: *pair,
                        variant: PoolVariant::TickSpacing {
                            tick_spacing: *spacing,
                            factory: *factory,
                        },
                        found: lookup_outcome(lookup.decode(results), key),
                    }
                })
                .collect()
        })
    }

    fn lens_candidates(&self, _chain: &ChainInfo, dex: &Dex, pair: &Pair) -> Vec<LensCandidate> {
        let Some((deployments, spacings)) = contracts(dex) else {
            return Vec::new();
        };
        deployments
            .iter()
            .flat_map(|deployment| {
                spacings.iter().map(move |spacing| LensCandidate {
                    key: PoolKey::Slipstream {
                        tick_spacing: *spacing,
                        factory: deployment.factory,
                    },
                    address: None,
                    lookup: lookup_call(|batch| {
                        slipstream::get_pool(
                            batch,
                            deployment.factory,
                            pair.token_in,
                            pair.token_out,
                            *spacing,
                        );
                    }),
                })
            })
            .collect()
    }

    fn state(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
    ) -> Decode<Result<PoolState, CallFailure>> {
        let slots = slipstream::pool_state(batch, pool.address);
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
        let slot = match (quoter_of(chain, pool), spacing_of(pool)) {
            (Some(quoter), Ok(spacing)) => Some(slipstream::quote_exact_input_single(
                batch,
                quoter,
                token_in,
                pool.other(token_in),
                amount_in,
                spacing,
            )),
            _ => None,
        };
        Arc::new(move |results, _state| {
            let slot = slot.ok_or_else(missing)?;
            let quote = slot
                .decode(results.ok_or_else(missing)?)
                .map_err(FailureReason::Call)?;
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
        tokens: &[TokenMetadata],
    ) -> Result<Ratio, RouteError> {
        Concentrated.mid(pool, state, token_in, tokens)
    }

    fn claim(&self, batch: &mut Batch, address: Address) -> ClaimDecode {
        let slots = slipstream::pool_state(batch, address);
        Arc::new(move |results, dex| {
            let state = slots
                .decode(results)
                .map_err(NotAPool::NoConcentratedState)?;
            Ok(Claim {
                key: PoolKey::Slipstream {
                    tick_spacing: state.tick_spacing,
                    factory: dex.factory(),
                },
                ticks_from: Some((state.sqrt_price_x96, state.tick, state.tick_spacing)),
            })
        })
    }

    fn confirm(
        &self,
        batch: &mut Batch,
        _dex: &Dex,
        pool: &Pool,
    ) -> Decode<Result<Option<Address>, CallFailure>> {
        let PoolKey::Slipstream {
            tick_spacing,
            factory,
        } = pool.key
        else {
            return Arc::new(|_| Ok(None));
        };
        let lookup = slipstream::get_pool(batch, factory, pool.token0, pool.token1, tick_spacing);
        Arc::new(move |results| lookup.decode(results))
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
        tokens: &[TokenMetadata],
        ticks: Option<TicksRead<'_>>,
    ) -> Result<ExitAmounts, RouteError> {
        Concentrated.exit(pool, state, token_in, amount_in, quoted, tokens, ticks)
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
        Concentrated.fillable(pool, state, token_in, amount_in, ticks)
    }

    fn tick_walk(&self, pool: &Pool, state: &PoolState) -> Option<(U256, i32, i32)> {
        Concentrated.tick_walk(pool, state)
    }

    fn tick_words(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
        words: (i16, i16),
    ) -> Result<(TickSource, Vec<WordRead>), RouteError> {
        // No TickLens is published with Slipstream: the pool's own bitmap, then its ticks.
        let spacing = spacing_of(pool)?;
        let reads = (words.0..=words.1)
            .map(|word| {
                let slot =
                    chain_read::dex::concentrated::tick_bitmap_word(batch, pool.address, word);
                WordRead::Marked(Arc::new(move |results: &BatchResults| {
                    slot.decode(results, spacing)
                }))
            })
            .collect();
        Ok((TickSource::Bitmap, reads))
    }

    fn tick_net(
        &self,
        batch: &mut Batch,
        _chain: &ChainInfo,
        pool: &Pool,
        tick: i32,
    ) -> Decode<Result<(i32, i128), CallFailure>> {
        let slot = slipstream::tick_info(batch, pool.address, tick);
        Arc::new(move |results| slot.decode(results).map(|t| (t.tick, t.liquidity_net)))
    }

    fn in_range_liquidity(&self, state: &PoolState) -> Option<u128> {
        Concentrated.in_range_liquidity(state)
    }

    fn depth(
        &self,
        pool: &Pool,
        state: &PoolState,
        decimals: (u8, u8),
        ticks: Option<Result<WalkedTicks, RouteError>>,
        percents: &[u32],
    ) -> Depth {
        Concentrated.depth(pool, state, decimals, ticks, percents)
    }

    fn hop(&self, _key: PoolKey) -> HopKind {
        HopKind::ConcentratedLiquidity
    }

    fn variant(&self, key: PoolKey) -> PoolVariant {
        match key {
            PoolKey::Slipstream {
                tick_spacing,
                factory,
            } => PoolVariant::TickSpacing {
                tick_spacing,
                factory,
            },
            _ => PoolVariant::TickSpacing {
                tick_spacing: 0,
                factory: Address::ZERO,
            },
        }
    }

    fn swap_topic(&self) -> B256 {
        // Slipstream's Swap event is V3's (`ICLPoolEvents.sol`).
        Concentrated.swap_topic()
    }

    fn swap_event(&self, log: &Log) -> Option<SwapEvent> {
        Concentrated.swap_event(log)
    }

    fn router(&self, _contracts: &DexContracts) -> Option<Address> {
        None
    }

    fn models_sandwich(&self, _pool: &Pool) -> bool {
        // The sandwich model's tick read uses a TickLens, which Slipstream does not publish;
        // not built for the bitmap yet.
        false
    }

    fn reads_pool_liquidity(&self) -> bool {
        // The exits and depth are the concentrated kind's over Slipstream's reads, but the
        // pool read of a Slipstream pool is not proven on the devnet yet.
        false
    }

    fn mev_model(
        &self,
        pool: &Pool,
        _state: &PoolState,
        _tokens: &[TokenMetadata],
        _ticks: Option<MevTicks>,
    ) -> Result<(PoolModel, Option<TickWindow>), RouteError> {
        Err(RouteError::NotReadForKind {
            dex: pool.dex,
            what: "the sandwich model",
        })
    }
}
