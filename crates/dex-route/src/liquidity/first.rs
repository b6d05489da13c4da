//! Round trip 1 of a pool read: the pool named by address (its identity and price) or by
//! tokens and DEX (the DEX's lookups for the pair), with the USD reference lookups beside it.

use super::v4_key::KeyLookup;
use super::*;
use crate::kinds::{self, Claim, ClaimDecode};
use chain_read::dex::PoolKey;

/// Round trip 1 reads of the pool itself.
pub(super) enum FirstRead {
    Address {
        pool: Address,
        identity: adapters::PoolIdentitySlots,
        claims: Vec<(DexKind, ClaimDecode)>,
    },
    Pair {
        dex: DexId,
        fee_tier_ppm: Option<u32>,
        /// A Balancer V2 pool named by its id: the one pool of the pair kept.
        balancer_id: Option<alloy::primitives::B256>,
        lookups: PoolLookups,
        metadata: [MetadataSlots; 2],
    },
    /// A V4 pool named by PoolId: its state through StateView, which takes the PoolId alone
    /// (its key comes from [`KeyLookup`]).
    V4Id {
        state: adapters::uniswap_v4::PoolStateSlots,
    },
}

/// What round trip 1 found.
// One value per request, never moved in bulk: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Found {
    /// A pool by address whose factory is a registry DEX (not yet confirmed by that factory).
    Claimed {
        pool: Pool,
        /// `slot0.tick` and spacing, to place the tick words.
        cl: Option<(U256, i32, i32)>,
    },
    /// The pools of the pair on the DEX.
    Candidates {
        pools: Vec<Pool>,
        metadata: Vec<TokenMetadata>,
    },
    /// A V4 pool named by PoolId, with its state (its tokens' metadata is read later).
    V4Id { pool: Pool, state: PoolState },
}

/// A listed Balancer V2 pool's id and the pair read of it.
pub(super) type BalancerTarget = (alloy::primitives::B256, (Address, Address));

/// A Balancer V2 pool of the chain's list named by `pool` (by id, or by a listed pool's
/// address): its id and the pair read; `None` for a pool named otherwise.
pub(super) fn balancer_target(
    chain: &ChainInfo,
    pool: PoolRef,
) -> Result<Option<BalancerTarget>, RouteError> {
    let (name, pair) = match pool {
        PoolRef::Balancer { pool, pair } => (pool, pair),
        PoolRef::Address(address)
            if kinds::balancer::listed(chain, BalancerName::Address(address)).is_some() =>
        {
            (BalancerName::Address(address), None)
        }
        _ => return Ok(None),
    };
    let shown = match name {
        BalancerName::Id(id) => id.to_string(),
        BalancerName::Address(address) => address.to_checksum(None),
    };
    let unknown = |reason: String| RouteError::UnknownBalancerPool {
        pool: shown.clone(),
        reason,
    };
    if chain.dex(DexId::BalancerV2).is_none() {
        return Err(RouteError::DexNotOnChain {
            dex: DexId::BalancerV2,
        });
    }
    let entry = kinds::balancer::listed(chain, name).ok_or_else(|| {
        unknown(format!(
            "the Balancer V2 pools read on {} are the configured list's, and it is not among them",
            chain.chain().as_str()
        ))
    })?;
    let pair = match (pair, entry.tokens.as_slice()) {
        (Some((a, b)), _) if a == b => return Err(RouteError::SameToken),
        (Some((a, b)), tokens) if tokens.contains(&a) && tokens.contains(&b) => (a, b),
        (Some(_), _) => {
            return Err(unknown(
                "token_a and token_b are not both among its tokens".to_owned(),
            ));
        }
        (None, [a, b]) => (*a, *b),
        (None, tokens) => {
            return Err(unknown(format!(
                "it holds {} tokens: name two of them with token_a and token_b",
                tokens.len()
            )));
        }
    };
    Ok(Some((entry.id, pair)))
}

impl FirstRead {
    pub(super) fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: PoolRef,
    ) -> Result<Self, RouteError> {
        if let Some((id, pair)) = balancer_target(chain, pool)? {
            return Self::pair(batch, chain, DexId::BalancerV2, pair, None, Some(id));
        }
        Ok(match pool {
            // `balancer_target` answers every pool named so (or fails).
            PoolRef::Balancer { .. } => {
                return Err(RouteError::DexNotOnChain {
                    dex: DexId::BalancerV2,
                });
            }
            PoolRef::Address(address) => Self::Address {
                pool: address,
                identity: adapters::pool_identity(batch, address),
                // The factory, and so the kind, is known only once this batch answers: every
                // kind's own reads are asked, in the registry's order.
                claims: kinds::ALL
                    .into_iter()
                    .map(|kind| (kind, kinds::of(kind).claim(batch, address)))
                    .collect(),
            },
            PoolRef::Pair {
                dex,
                token_a,
                token_b,
                fee_tier_ppm,
            } => Self::pair(batch, chain, dex, (token_a, token_b), fee_tier_ppm, None)?,
            PoolRef::V4 { id, tokens } => {
                if tokens.is_some_and(|(a, b)| a == b) {
                    return Err(RouteError::SameToken);
                }
                let dex = DexId::UniswapV4;
                let Some(chain_read::DexContracts::PoolManager { state_view, .. }) =
                    chain.dex(dex).map(|d| &d.contracts)
                else {
                    return Err(RouteError::DexNotOnChain { dex });
                };
                Self::V4Id {
                    state: adapters::uniswap_v4::pool_state(batch, *state_view, id),
                }
            }
        })
    }

    /// Round trip 1 of a pool named by its pair on one DEX (and a Balancer V2 pool by its id
    /// among them).
    fn pair(
        batch: &mut Batch,
        chain: &ChainInfo,
        dex: DexId,
        (token_a, token_b): (Address, Address),
        fee_tier_ppm: Option<u32>,
        balancer_id: Option<alloy::primitives::B256>,
    ) -> Result<Self, RouteError> {
        if token_a == token_b {
            return Err(RouteError::SameToken);
        }
        if !dex.has_adapter() {
            return Err(RouteError::DexWithoutAdapter { dex });
        }
        if chain.dex(dex).is_none() {
            return Err(RouteError::DexNotOnChain { dex });
        }
        if !kinds::of(dex.kind()).reads_pool_liquidity() {
            return Err(RouteError::NotReadForKind {
                dex,
                what: "/pool/liquidity",
            });
        }
        let (token0, token1) = adapters::sort_tokens(token_a, token_b);
        let pair = Pair {
            token_in: token0,
            token_out: token1,
            role: LegRole::Direct,
        };
        Ok(Self::Pair {
            dex,
            fee_tier_ppm,
            balancer_id,
            lookups: PoolLookups::add(batch, chain, &[pair]),
            metadata: [
                erc20::metadata(batch, token0),
                erc20::metadata(batch, token1),
            ],
        })
    }

    /// What was found; a pool named by PoolId takes its key from `key` (answered by the same
    /// request).
    pub(super) fn decode(
        self,
        results: &BatchResults,
        chain: &ChainInfo,
        key: Option<&KeyLookup>,
    ) -> Result<Found, RouteError> {
        match self {
            Self::V4Id { state } => {
                let key = key.ok_or(RouteError::StateMismatch)?;
                let (pool, _) = key.resolve(chain)?;
                let state = state.decode(results).map_err(|failure| RouteError::Call {
                    what: "StateView getSlot0/getLiquidity",
                    failure,
                })?;
                if state.sqrt_price_x96.is_zero() {
                    let PoolKey::V4 { id, .. } = pool.key else {
                        return Err(RouteError::StateMismatch);
                    };
                    return Err(RouteError::UnknownPoolId {
                        id,
                        reason: format!(
                            "its Initialize event was found, but StateView answers it uninitialised at block {}",
                            results.block_number()
                        ),
                    });
                }
                Ok(Found::V4Id {
                    pool,
                    state: PoolState::V4(state),
                })
            }
            Self::Address {
                pool,
                identity,
                claims,
            } => {
                let unknown = |reason: String| RouteError::UnknownPool { pool, reason };
                let ClaimedPool {
                    token0,
                    token1,
                    factory,
                } = identity.decode(results).map_err(|failure| {
                    unknown(format!(
                        "it does not answer token0/token1/factory as a pool does ({failure})"
                    ))
                })?;
                let dex = chain
                    .dexes()
                    .find(|dex| dex.factory() == factory && dex.id.has_adapter())
                    .ok_or_else(|| {
                        unknown(format!(
                            "its factory() {factory} is not the factory of any DEX the service reads on {}",
                            chain.chain().as_str()
                        ))
                    })?;
                let claim = claims
                    .iter()
                    .find(|(kind, _)| *kind == dex.kind())
                    .ok_or_else(|| unknown(format!("{} has no pool kind adapter", dex.id)))?;
                let Claim { key, ticks_from } =
                    (claim.1)(results, dex).map_err(|e| unknown(e.to_string()))?;
                let cl = ticks_from;
                Ok(Found::Claimed {
                    pool: Pool {
                        dex: dex.id,
                        address: pool,
                        token0,
                        token1,
                        key,
                    },
                    cl,
                })
            }
            Self::Pair {
                dex,
                fee_tier_ppm,
                balancer_id,
                lookups,
                metadata,
            } => {
                let mut failures = Vec::new();
                let pools: Vec<Pool> = lookups
                    .decode(results, &mut failures)
                    .into_iter()
                    .filter(|pool| pool.dex == dex)
                    .filter(|pool| match (pool.key.fee_tier_ppm(), fee_tier_ppm) {
                        (Some(fee), Some(wanted)) => fee == wanted,
                        _ => true,
                    })
                    .filter(|pool| match (pool.key, balancer_id) {
                        (PoolKey::Balancer { id: found, .. }, Some(wanted)) => found == wanted,
                        (_, Some(_)) => false,
                        (_, None) => true,
                    })
                    .collect();
                if let Some(id) = balancer_id.filter(|_| pools.is_empty()) {
                    return Err(RouteError::UnknownBalancerPool {
                        pool: id.to_string(),
                        reason: format!(
                            "the Vault on {} does not register it (getPool)",
                            chain.chain().as_str()
                        ),
                    });
                }
                if pools.is_empty() {
                    return Err(RouteError::NoPoolForPair { dex, fee_tier_ppm });
                }
                Ok(Found::Candidates {
                    pools,
                    metadata: metadata.iter().map(|m| m.decode(results)).collect(),
                })
            }
        }
    }
}
