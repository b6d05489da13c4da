//! What the chain says about a directory pool: its address (found through the factory of the
//! protocol's DEX and matched to the row's id), its fee, the gas price and the L1 data fee.
//! Two round trips; the gas price rides with the first.

use alloy::primitives::{Address, U256};
use chain_read::dex::{Pool, PoolKey, PoolState, concentrated, solidly};
use chain_read::l1_fee::{self, L1DataFee};
use chain_read::{Batch, CallFailure, Chain, ChainInfo, ChainReadError, DexId, PinnedReader};
use dex_route::{LegRole, Pair, PoolLookups};
use oracle_sources::defillama::YieldPool;

/// Why the chain could not be read at all, or gave no gas price.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChainProblem {
    /// The service has no RPC endpoint for the chain.
    #[error("no RPC endpoint is configured for {0}")]
    NoEndpoint(Chain),
    /// A batch failed as a whole.
    #[error("the {chain} node could not be read: {error}")]
    Unreachable {
        /// The chain.
        chain: Chain,
        /// Why.
        error: ChainReadError,
    },
    /// The node refused `eth_gasPrice`.
    #[error("eth_gasPrice failed: {0}")]
    GasPrice(chain_read::GasPriceError),
}

/// Where the pool's fee was read, or why it was not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FeeNote {
    /// A constant-product pair: the registry's fixed fee of the DEX.
    #[error(
        "the constant-product pair's fixed fee ({}.{:02} %), pair {} found through the factory's getPair",
        fee_bps / 100, fee_bps % 100, pair.to_checksum(None)
    )]
    PairFixedFee {
        /// The pair.
        pair: Address,
        /// Its fee, bps.
        fee_bps: u32,
    },
    /// A concentrated-liquidity pool's `fee()`.
    #[error("the pool contract's fee() at block {block}, pool {}", pool.to_checksum(None))]
    PoolFee {
        /// The block.
        block: u64,
        /// The pool.
        pool: Address,
    },
    /// A Slipstream, Algebra or Balancer V2 pool's fee, read through the pool kind's adapter:
    /// Slipstream's `fee()`, Algebra's `globalState` fee, Balancer's `getSwapFeePercentage`.
    #[error("the pool's {what} at block {block}, pool {}, read through its kind's adapter", pool.to_checksum(None))]
    AdapterFee {
        /// Which read gave it.
        what: &'static str,
        /// The block.
        block: u64,
        /// The pool.
        pool: Address,
    },
    /// A Solidly pool's fee from its factory.
    #[error("the pool factory's getFee(pool, stable) at block {block}, pool {}", pool.to_checksum(None))]
    FactoryFee {
        /// The block.
        block: u64,
        /// The pool.
        pool: Address,
    },
    /// `fee()` failed.
    #[error("fee() failed: {0}")]
    PoolFeeFailed(CallFailure),
    /// `getFee` failed.
    #[error("getFee failed: {0}")]
    FactoryFeeFailed(CallFailure),
    /// The factory returns pools for the directory's tokens, but none has the row's id.
    #[error("no pool the factory returns for the directory's tokens has the directory's id")]
    NoPoolWithId,
}

/// Why no L1 data fee was read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum L1Note {
    /// The chain has no L1 fee oracle.
    #[error("{0} is not an OP-stack chain: no L1 data fee")]
    NotOpStack(Chain),
    /// The gas price (which the representative transaction needs) was not read.
    #[error("not read: no gas price")]
    NoGasPrice,
    /// `getL1Fee` failed.
    #[error("getL1Fee on {} failed: {failure}", oracle.to_checksum(None))]
    Failed {
        /// The oracle.
        oracle: Address,
        /// Why.
        failure: CallFailure,
    },
    /// Another outcome of the read.
    #[error("{0:?}")]
    Other(L1DataFee),
}

/// What the chain gave: the pool's address and fee, the gas price, the L1 data fee.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainFacts {
    /// The block of the reads.
    pub block: Option<u64>,
    /// The pool the row names.
    pub pool: Option<Address>,
    /// Its fee, ppm.
    pub fee_ppm: Option<u32>,
    /// Where the fee was read, or why not.
    pub fee_note: Option<FeeNote>,
    /// `eth_gasPrice`, wei.
    pub gas_price_wei: Option<u128>,
    /// The L1 data fee of a representative transaction, wei.
    pub l1_fee_wei: Option<U256>,
    /// Why there is no L1 data fee.
    pub l1_note: Option<L1Note>,
    /// Why the chain could not be read, or gave no gas price.
    pub problem: Option<ChainProblem>,
}

/// The pool's fee read, pending.
enum FeeRead {
    Concentrated(concentrated::PoolStateSlots),
    Solidly(solidly::FeeSlot),
    /// The state through the pool kind's adapter, and which read holds the fee.
    Adapter(
        dex_route::kinds::Decode<Result<PoolState, chain_read::CallFailure>>,
        &'static str,
    ),
    None,
}

/// The configured Balancer V2 pool whose id the directory row names, as a pool of its first two
/// tokens (the fee is the pool's, whichever pair).
fn balancer_pool(info: &ChainInfo, row: &YieldPool) -> Option<Pool> {
    let dex = info.dex(DexId::BalancerV2)?;
    let chain_read::DexContracts::BalancerV2 { pools, .. } = &dex.contracts else {
        return None;
    };
    let entry = pools
        .iter()
        .find(|entry| row.is_pool_key(info.chain(), &format!("{:#x}", entry.id)))?;
    let (token0, token1) = match entry.tokens.as_slice() {
        [a, b, ..] => chain_read::dex::sort_tokens(*a, *b),
        _ => return None,
    };
    Some(Pool {
        dex: DexId::BalancerV2,
        address: chain_read::dex::balancer::pool_address(entry.id),
        token0,
        token1,
        key: PoolKey::Balancer {
            id: entry.id,
            pool_type: entry.pool_type,
        },
    })
}

/// Reads the chain for `row` (whose protocol is `dex`, when the service knows it): the pools
/// the DEX's factory returns for the row's two tokens (dex-route's lookups), the one with the
/// row's id, its fee and the L1 data fee of a representative transaction.
pub async fn read_chain(
    info: &ChainInfo,
    reader: &PinnedReader,
    row: &YieldPool,
    dex: Option<DexId>,
) -> ChainFacts {
    let chain = info.chain();
    let tokens = crate::addresses(row.underlying_tokens.iter().flatten());
    let mut batch = Batch::new();
    // A Balancer V2 row names its pool by id: the configured list's pool with that id.
    let balancer = match dex {
        Some(DexId::BalancerV2) => balancer_pool(info, row),
        _ => None,
    };
    let lookups = match (dex, tokens.as_slice()) {
        (Some(DexId::BalancerV2), _) => None,
        (Some(dex), [a, b]) if info.dex(dex).is_some() => {
            let pair = Pair {
                token_in: *a,
                token_out: *b,
                role: LegRole::Direct,
            };
            Some(PoolLookups::add_dex(&mut batch, info, dex, &[pair]))
        }
        _ => None,
    };
    let mut facts = ChainFacts::default();
    let (results, gas_price) = match reader.execute_with_gas_price(batch).await {
        Ok(answer) => answer,
        Err(error) => {
            facts.problem = Some(ChainProblem::Unreachable { chain, error });
            return facts;
        }
    };
    facts.block = Some(results.block_number());
    match gas_price {
        Ok(price) => facts.gas_price_wei = Some(price),
        Err(error) => facts.problem = Some(ChainProblem::GasPrice(error)),
    }
    let searched = lookups.is_some() || dex == Some(DexId::BalancerV2);
    let named: Option<Pool> = balancer.or_else(|| {
        lookups.and_then(|lookups| {
            // Tiers not enabled and pairs without a pool are not this route's concern: only
            // the pool with the row's id is.
            let mut failures = Vec::new();
            lookups
                .decode(&results, &mut failures)
                .into_iter()
                .find(|pool| row.is_pool(chain, pool.address))
        })
    });
    let mut second = Batch::new();
    let fee_read = match named {
        Some(pool) => {
            facts.pool = Some(pool.address);
            match pool.key {
                PoolKey::Concentrated { .. } => {
                    FeeRead::Concentrated(concentrated::pool_state(&mut second, pool.address))
                }
                PoolKey::ConstantProduct { fee_bps } => {
                    facts.fee_ppm = Some(fee_bps * 100);
                    facts.fee_note = Some(FeeNote::PairFixedFee {
                        pair: pool.address,
                        fee_bps,
                    });
                    FeeRead::None
                }
                PoolKey::Solidly { stable } => {
                    let factory = info.dex(pool.dex).map(|d| d.factory()).unwrap_or_default();
                    FeeRead::Solidly(solidly::fee(&mut second, factory, pool.address, stable))
                }
                // The pool's own fee, through its kind's adapter (the same state reads as
                // `/dex/quote`'s).
                PoolKey::Slipstream { .. } | PoolKey::Algebra { .. } | PoolKey::AlgebraV1 => {
                    let what = match pool.key {
                        PoolKey::Slipstream { .. } => "fee()",
                        _ => "globalState fee",
                    };
                    FeeRead::Adapter(
                        dex_route::kinds::of_pool(&pool).state(&mut second, info, &pool),
                        what,
                    )
                }
                // No directory protocol maps to Uniswap V4 (`protocol_kind`).
                PoolKey::V4 { .. } => FeeRead::None,
                // The pool's getSwapFeePercentage, in the adapter's state read.
                PoolKey::Balancer { .. } => FeeRead::Adapter(
                    dex_route::kinds::of_pool(&pool).state(&mut second, info, &pool),
                    "getSwapFeePercentage",
                ),
            }
        }
        None => FeeRead::None,
    };
    let l1_slot = match (info.l1_gas_price_oracle(), facts.gas_price_wei) {
        (Some(oracle), Some(price)) => {
            let (a, b) = match tokens.as_slice() {
                [a, b] => (*a, *b),
                _ => (info.wrapped_native(), info.usdc()),
            };
            let transaction = l1_fee::representative_swap_transaction(
                info,
                a,
                b,
                U256::from(10u8).pow(U256::from(18u8)),
                price,
            );
            Some(l1_fee::l1_fee(&mut second, oracle, transaction))
        }
        (None, _) => {
            facts.l1_note = Some(L1Note::NotOpStack(chain));
            None
        }
        (Some(_), None) => {
            facts.l1_note = Some(L1Note::NoGasPrice);
            None
        }
    };
    // Whether or not an L1 fee is read next, a search that named no pool says so.
    if facts.pool.is_none() && searched {
        facts.fee_note = Some(FeeNote::NoPoolWithId);
    }
    if second.is_empty() {
        return facts;
    }
    let results = match reader.execute(second).await {
        Ok(results) => results,
        Err(error) => {
            facts.problem = Some(ChainProblem::Unreachable { chain, error });
            return facts;
        }
    };
    let pool = facts.pool.unwrap_or_default();
    let block = results.block_number();
    match fee_read {
        FeeRead::Concentrated(slots) => match slots.decode(&results) {
            Ok(state) => {
                facts.fee_ppm = Some(state.fee);
                facts.fee_note = Some(FeeNote::PoolFee { block, pool });
            }
            Err(failure) => facts.fee_note = Some(FeeNote::PoolFeeFailed(failure)),
        },
        FeeRead::Solidly(slot) => match slot.decode(&results) {
            Ok(bps) => {
                facts.fee_ppm = Some(bps * 100);
                facts.fee_note = Some(FeeNote::FactoryFee { block, pool });
            }
            Err(failure) => facts.fee_note = Some(FeeNote::FactoryFeeFailed(failure)),
        },
        FeeRead::Adapter(state, what) => match state(&results) {
            Ok(PoolState::Concentrated(state)) => {
                facts.fee_ppm = Some(state.fee);
                facts.fee_note = Some(FeeNote::AdapterFee { what, block, pool });
            }
            // 18 decimals: 1e12 is one part per million (Balancer's least fee); a finer fee
            // is rounded down.
            Ok(PoolState::Balancer(state)) => {
                let ppm = state.swap_fee / U256::from(1_000_000_000_000u64);
                facts.fee_ppm = u32::try_from(ppm).ok();
                facts.fee_note = Some(FeeNote::AdapterFee { what, block, pool });
            }
            Ok(_) => {
                facts.fee_note = Some(FeeNote::PoolFeeFailed(chain_read::CallFailure::Decode(
                    "not a concentrated-liquidity state".to_owned(),
                )))
            }
            Err(failure) => facts.fee_note = Some(FeeNote::PoolFeeFailed(failure)),
        },
        FeeRead::None => {}
    }
    if let Some(slot) = l1_slot {
        match slot.decode(&results) {
            L1DataFee::Read { fee_wei, .. } => facts.l1_fee_wei = Some(fee_wei),
            L1DataFee::Failed { oracle, failure } => {
                facts.l1_note = Some(L1Note::Failed { oracle, failure });
            }
            other => facts.l1_note = Some(L1Note::Other(other)),
        }
    }
    facts
}
