//! Round trip 1 of a pool read: the pool named by address (its identity and price) or by
//! tokens and DEX (the DEX's lookups for the pair), with the USD reference lookups beside it.

use super::*;

/// Round trip 1 reads of the pool itself.
#[derive(Debug)]
pub(super) enum FirstRead {
    Address {
        pool: Address,
        identity: adapters::PoolIdentitySlots,
        cl: concentrated::PoolStateSlots,
        stable: solidly::StableSlot,
    },
    Pair {
        dex: DexId,
        fee_tier_ppm: Option<u32>,
        lookups: PoolLookups,
        metadata: [MetadataSlots; 2],
    },
}

/// What round trip 1 found.
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
}

impl FirstRead {
    pub(super) fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: PoolRef,
    ) -> Result<Self, RouteError> {
        Ok(match pool {
            PoolRef::Address(address) => Self::Address {
                pool: address,
                identity: adapters::pool_identity(batch, address),
                cl: concentrated::pool_state(batch, address),
                stable: solidly::stable(batch, address),
            },
            PoolRef::Pair {
                dex,
                token_a,
                token_b,
                fee_tier_ppm,
            } => {
                if token_a == token_b {
                    return Err(RouteError::SameToken);
                }
                if !dex.has_adapter() {
                    return Err(RouteError::DexWithoutAdapter { dex });
                }
                if chain.dex(dex).is_none() {
                    return Err(RouteError::DexNotOnChain { dex });
                }
                let (token0, token1) = adapters::sort_tokens(token_a, token_b);
                let pair = Pair {
                    token_in: token0,
                    token_out: token1,
                    role: LegRole::Direct,
                };
                Self::Pair {
                    dex,
                    fee_tier_ppm,
                    lookups: PoolLookups::add(batch, chain, &[pair]),
                    metadata: [
                        erc20::metadata(batch, token0),
                        erc20::metadata(batch, token1),
                    ],
                }
            }
        })
    }

    pub(super) fn decode(
        self,
        results: &BatchResults,
        chain: &ChainInfo,
    ) -> Result<Found, RouteError> {
        match self {
            Self::Address {
                pool,
                identity,
                cl,
                stable,
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
                let (key, cl) = match &dex.contracts {
                    DexContracts::ConcentratedLiquidity { .. } => {
                        let state = cl.decode(results).map_err(|failure| {
                            unknown(format!(
                                "its slot0/liquidity/fee/tickSpacing did not answer ({failure})"
                            ))
                        })?;
                        (
                            PoolKey::Concentrated {
                                fee: state.fee,
                                tick_spacing: state.tick_spacing,
                            },
                            Some((state.sqrt_price_x96, state.tick, state.tick_spacing)),
                        )
                    }
                    DexContracts::ConstantProduct { fee_bps, .. } => {
                        (PoolKey::ConstantProduct { fee_bps: *fee_bps }, None)
                    }
                    DexContracts::Solidly { .. } => {
                        let stable = stable.decode(results).map_err(|failure| {
                            unknown(format!(
                                "it does not answer stable() as a Solidly pool does ({failure})"
                            ))
                        })?;
                        (PoolKey::Solidly { stable }, None)
                    }
                };
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
                lookups,
                metadata,
            } => {
                let mut failures = Vec::new();
                let pools: Vec<Pool> = lookups
                    .decode(results, &mut failures)
                    .into_iter()
                    .filter(|pool| pool.dex == dex)
                    .filter(|pool| match (pool.key, fee_tier_ppm) {
                        (PoolKey::Concentrated { fee, .. }, Some(wanted)) => fee == wanted,
                        _ => true,
                    })
                    .collect();
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
