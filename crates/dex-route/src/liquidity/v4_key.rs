//! The PoolKey of a Uniswap V4 pool named by its PoolId alone.
//!
//! A PoolId is `keccak256(abi.encode(PoolKey))`: it cannot be turned back into currencies,
//! fee, tick spacing and hooks, and the PoolManager keeps no key by id. The key is in the
//! pool's `Initialize` event (v4-core `IPoolManager.sol`), whose first indexed topic is the
//! PoolId. It is found, in order, without a read: in the chain's index of those events
//! ([`chain_read::dex::v4_index`]), or, when the caller named the pair, among the shapes
//! discovery would probe for it; else by an `eth_getLogs` of that one event that rides in the
//! same JSON-RPC batch as the read's first request (no round trip of its own). The range
//! asked starts where the index stops proving absence (its cursor, when it dropped no event),
//! else at the PoolManager's deployment block. The key from a log is taken only when it
//! hashes to the PoolId.

use std::sync::Mutex;

use alloy::primitives::B256;
use chain_read::RiddenLogs;
use chain_read::dex::v4_index::{self, V4Initialized};

use super::*;
use crate::kinds::uniswap_v4;

/// Where the PoolKey of a pool named by PoolId came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolKeySource {
    /// The chain's index of the PoolManager's `Initialize` events.
    Index,
    /// A shape the registry lists for the pair the caller named (the shapes discovery
    /// probes), whose key hashes to the PoolId.
    KnownShape,
    /// The pool's own `Initialize` event, read by `eth_getLogs` with the first request.
    InitializeLog {
        /// The event's block, when the node gave it.
        block: Option<u64>,
        /// The first block searched.
        from_block: u64,
    },
}

/// A PoolId's key: found before the read, or waiting for the log query riding with its first
/// request. Resolved once; a read that falls back to the ordinary batches uses the same answer.
pub(super) struct KeyLookup {
    id: B256,
    tokens: Option<(Address, Address)>,
    state: Mutex<Lookup>,
}

enum Lookup {
    Resolved(Result<(Pool, PoolKeySource), RouteError>),
    Riding {
        logs: RiddenLogs,
        pool_manager: Address,
        from: u64,
    },
}

impl KeyLookup {
    /// Looks the key up where no read is needed, else asks `reader` to carry the log query
    /// with its next request.
    pub(super) fn start(
        chain: &ChainInfo,
        reader: &PinnedReader,
        id: B256,
        tokens: Option<(Address, Address)>,
    ) -> Result<Self, RouteError> {
        let dex = chain
            .dex(DexId::UniswapV4)
            .ok_or(RouteError::DexNotOnChain {
                dex: DexId::UniswapV4,
            })?;
        let chain_read::DexContracts::PoolManager { pool_manager, .. } = &dex.contracts else {
            return Err(RouteError::DexNotOnChain {
                dex: DexId::UniswapV4,
            });
        };
        let resolved = |found: Result<(Pool, PoolKeySource), RouteError>| Self {
            id,
            tokens,
            state: Mutex::new(Lookup::Resolved(found)),
        };
        let index = chain.v4_index();
        if let Some(found) = index.and_then(|index| index.pool(id)) {
            let pool = uniswap_v4::pool_initialized(chain, dex.id, &found)
                .map_err(|reason| RouteError::UnknownPoolId { id, reason });
            return Ok(resolved(pool.map(|pool| (pool, PoolKeySource::Index))));
        }
        if let Some((token_a, token_b)) = tokens {
            let pair = Pair {
                token_in: token_a,
                token_out: token_b,
                role: LegRole::Direct,
            };
            if let Some(pool) = uniswap_v4::pool_named(chain, dex, &pair, id) {
                return Ok(resolved(Ok((pool, PoolKeySource::KnownShape))));
            }
        }
        let from = match index {
            Some(index) => {
                let status = index.status();
                let from = index.complete_before().unwrap_or(status.start_block);
                // A range starting after the node's head is an error on some nodes; one block
                // read again is harmless.
                status.head.map_or(from, |head| from.min(head))
            }
            None => 0,
        };
        let logs = reader.logs_with_next_request(v4_index::initialize_of(*pool_manager, id, from));
        Ok(Self {
            id,
            tokens,
            state: Mutex::new(Lookup::Riding {
                logs,
                pool_manager: *pool_manager,
                from,
            }),
        })
    }

    /// The pool, once the request carrying the log query (if any) has been answered.
    pub(super) fn resolve(&self, chain: &ChainInfo) -> Result<(Pool, PoolKeySource), RouteError> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let found = match &mut *state {
            Lookup::Resolved(found) => found.clone(),
            Lookup::Riding {
                logs,
                pool_manager,
                from,
            } => {
                let Some(answer) = logs.take() else {
                    return Err(RouteError::PoolKeyNotRead {
                        id: self.id,
                        reason: "the eth_getLogs of its Initialize event was not sent".to_owned(),
                    });
                };
                let found = self.key_from_logs(chain, answer, *pool_manager, *from);
                *state = Lookup::Resolved(found.clone());
                found
            }
        };
        let (pool, source) = found?;
        if let Some((a, b)) = self.tokens {
            let wrapped = chain.wrapped_native();
            let as_token = |t: Address| if t.is_zero() { wrapped } else { t };
            let asked = adapters::sort_tokens(as_token(a), as_token(b));
            if asked != (pool.token0, pool.token1) {
                return Err(RouteError::UnknownPoolId {
                    id: self.id,
                    reason: format!(
                        "it is the pool of {} and {}, not of the tokens named",
                        pool.token0, pool.token1
                    ),
                });
            }
        }
        Ok((pool, source))
    }

    fn key_from_logs(
        &self,
        chain: &ChainInfo,
        answer: Result<Vec<alloy::rpc::types::Log>, String>,
        pool_manager: Address,
        from: u64,
    ) -> Result<(Pool, PoolKeySource), RouteError> {
        let id = self.id;
        let logs = answer.map_err(|error| RouteError::PoolKeyNotRead {
            id,
            reason: format!(
                "the node refused the eth_getLogs of its Initialize event on the PoolManager {pool_manager} from block {from}: {error}"
            ),
        })?;
        let named: Vec<(V4Initialized, Option<u64>)> = logs
            .iter()
            .filter_map(|log| Some((V4Initialized::from_log(log)?, log.block_number)))
            .filter(|(found, _)| found.id == id)
            .collect();
        let Some((found, block)) = named.iter().find(|(found, _)| found.id_matches()) else {
            return Err(match named.is_empty() {
                true => RouteError::UnknownPoolId {
                    id,
                    reason: format!(
                        "no Initialize event of the PoolManager {pool_manager} on {} names it from block {from} to the latest block",
                        chain.chain().as_str()
                    ),
                },
                false => RouteError::PoolKeyNotRead {
                    id,
                    reason:
                        "the node's Initialize log for it names a PoolKey that does not hash to it"
                            .to_owned(),
                },
            });
        };
        let pool = uniswap_v4::pool_initialized(chain, DexId::UniswapV4, found)
            .map_err(|reason| RouteError::UnknownPoolId { id, reason })?;
        Ok((
            pool,
            PoolKeySource::InitializeLog {
                block: *block,
                from_block: from,
            },
        ))
    }
}
