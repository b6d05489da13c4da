//! Round trip 2 of a pool read: the state, metadata and balances of the pool (or of every
//! tier compared), the factory's own lookup of a pool named by address, and the reference
//! states; the tier chosen.

use super::first::Found;
use super::*;
use crate::kinds::{self, Decode};

/// Round trip 2 reads.
// One value per request, never moved in bulk: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum SecondRead {
    Claimed {
        pool: Pool,
        confirm: Confirmation,
        states: PoolStateReads,
        metadata: [MetadataSlots; 2],
        balances: Balances,
        ticks: Option<TickRead>,
    },
    Candidates {
        pools: Vec<Pool>,
        metadata: Vec<TokenMetadata>,
        states: PoolStateReads,
        balances: Vec<Balances>,
    },
    /// A V4 pool by PoolId: read in round trip 1 already.
    V4Id { pool: Pool, state: PoolState },
}

/// The factory's own lookup of a pool named by address.
pub(super) struct Confirmation(Decode<Result<Option<Address>, CallFailure>>);

impl std::fmt::Debug for Confirmation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Confirmation")
    }
}

/// The pool chosen after round trip 2.
#[derive(Debug)]
pub(super) struct Chosen {
    pub(super) pool: Pool,
    pub(super) state: PoolState,
    pub(super) metadata: Vec<TokenMetadata>,
    pub(super) balances: [Result<U256, RouteError>; 2],
    pub(super) compared: Vec<TierCandidate>,
    pub(super) ticks: Option<TickRead>,
}

/// The pool's `balanceOf` of its tokens, when its kind holds them itself.
#[derive(Debug)]
pub(super) struct Balances(Option<[BalanceSlot; 2]>);

pub(super) fn balances(batch: &mut Batch, pool: &Pool) -> Balances {
    Balances(kinds::of_pool(pool).holds_balances().then(|| {
        [
            erc20::balance_of(batch, pool.token0, pool.address),
            erc20::balance_of(batch, pool.token1, pool.address),
        ]
    }))
}

impl Balances {
    fn decode(&self, results: &BatchResults, pool: &Pool) -> [Result<U256, RouteError>; 2] {
        match &self.0 {
            Some(slots) => slots.map(|slot| {
                slot.decode(results).map_err(|failure| RouteError::Call {
                    what: "balanceOf",
                    failure,
                })
            }),
            None => [0, 1].map(|_| Err(RouteError::NoOwnBalances { dex: pool.dex })),
        }
    }
}

/// The balances a kind's state holds (Balancer: the Vault's for the pool).
fn state_balances(pool: &Pool, state: &PoolState) -> Option<[Result<U256, RouteError>; 2]> {
    kinds::of_pool(pool)
        .own_balances(pool, state)
        .map(|balances| balances.map(Ok))
}

impl SecondRead {
    pub(super) fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        found: Found,
        percents: &[u32],
    ) -> Self {
        match found {
            Found::Claimed { pool, cl } => {
                // The pool was claimed through this DEX, so the registry holds it.
                let confirm = match chain.dex(pool.dex) {
                    Some(dex) => Confirmation(kinds::of_pool(&pool).confirm(batch, dex, &pool)),
                    None => Confirmation(std::sync::Arc::new(|_| Ok(None))),
                };
                let ticks = cl.map(|walk| TickRead::add(batch, chain, &pool, walk, percents));
                Self::Claimed {
                    pool,
                    confirm,
                    states: PoolStateReads::add(batch, chain, &[pool]),
                    metadata: [
                        erc20::metadata(batch, pool.token0),
                        erc20::metadata(batch, pool.token1),
                    ],
                    balances: balances(batch, &pool),
                    ticks,
                }
            }
            Found::V4Id { pool, state } => Self::V4Id { pool, state },
            Found::Candidates { pools, metadata } => Self::Candidates {
                states: PoolStateReads::add(batch, chain, &pools),
                balances: pools.iter().map(|pool| balances(batch, pool)).collect(),
                pools,
                metadata,
            },
        }
    }

    pub(super) fn decode(self, results: &BatchResults) -> Result<Chosen, RouteError> {
        match self {
            // Its tokens' metadata is read with round trip 3 (`Settled::late`).
            Self::V4Id { pool, state } => Ok(Chosen {
                pool,
                state,
                metadata: Vec::new(),
                balances: [0, 1].map(|_| Err(RouteError::NoOwnBalances { dex: pool.dex })),
                compared: Vec::new(),
                ticks: None,
            }),
            Self::Claimed {
                pool,
                confirm,
                states,
                metadata,
                balances,
                ticks,
            } => {
                let address = pool.address;
                let confirmed = (confirm.0)(results);
                if confirmed.ok().flatten() != Some(address) {
                    return Err(RouteError::UnknownPool {
                        pool: address,
                        reason: format!(
                            "the {} factory it names does not return it for its tokens and fee",
                            pool.dex
                        ),
                    });
                }
                let state = states
                    .decode(results)
                    .remove(&address)
                    .ok_or(RouteError::PoolStateNotRead { pool: address })?
                    .map_err(|failure| RouteError::Call {
                        what: "pool state",
                        failure,
                    })?;
                // The address path read its tick words in this round trip.
                let mut ticks = ticks;
                if let Some(read) = ticks.as_mut() {
                    read.settle(results);
                }
                Ok(Chosen {
                    balances: state_balances(&pool, &state)
                        .unwrap_or_else(|| balances.decode(results, &pool)),
                    pool,
                    state,
                    metadata: metadata.iter().map(|m| m.decode(results)).collect(),
                    compared: Vec::new(),
                    ticks,
                })
            }
            Self::Candidates {
                pools,
                metadata,
                states,
                balances,
            } => {
                let decoded = states.decode(results);
                let mut compared = Vec::new();
                let mut best: Option<(usize, U256)> = None;
                for (index, pool) in pools.iter().enumerate() {
                    let value = match decoded.get(&pool.address) {
                        Some(Ok(state)) => kinds::of_pool(pool).candidate_value(
                            pool,
                            state,
                            &metadata,
                            balances[index].decode(results, pool),
                        ),
                        Some(Err(failure)) => Err(RouteError::Call {
                            what: "pool state",
                            failure: failure.clone(),
                        }),
                        None => Err(RouteError::PoolStateNotRead { pool: pool.address }),
                    };
                    if let Ok(value) = &value
                        && best.is_none_or(|(_, top)| *value > top)
                    {
                        best = Some((index, *value));
                    }
                    compared.push(TierCandidate {
                        pool: *pool,
                        value_in_token1: value,
                    });
                }
                let (index, _) = best.ok_or_else(|| {
                    compared
                        .first()
                        .and_then(|c| c.value_in_token1.clone().err())
                        .unwrap_or(RouteError::PoolStateNotRead {
                            pool: pools[0].address,
                        })
                })?;
                let pool = pools[index];
                let state = decoded
                    .get(&pool.address)
                    .and_then(|s| s.clone().ok())
                    .ok_or(RouteError::PoolStateNotRead { pool: pool.address })?;
                if compared.len() == 1 {
                    compared.clear();
                }
                Ok(Chosen {
                    balances: state_balances(&pool, &state)
                        .unwrap_or_else(|| balances[index].decode(results, &pool)),
                    pool,
                    state,
                    metadata,
                    compared,
                    ticks: None,
                })
            }
        }
    }
}
