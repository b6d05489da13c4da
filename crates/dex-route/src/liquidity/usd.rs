//! The USD value of a pool's tokens, in the chain's USDC: the pool's own mid price when one
//! side is USDC, else through the wrapped native token and the deepest concentrated-liquidity
//! wrapped-native/USDC pool of the chain (the reference). Nothing else is assumed to be worth
//! a dollar.

use alloy::primitives::{Address, U256, U512};
use chain_read::dex::{Pool, PoolState};
use chain_read::{BatchResults, ChainInfo, DexKind, TokenMetadata};
use dex_math::Ratio;

use crate::discovery::PoolLookups;
use crate::error::RouteError;
use crate::legs::{PoolStateReads, PoolStates};
use crate::plan::{LegRole, Pair};
use crate::pricing::pool_mid;

/// How a token's USD price was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsdRoute {
    /// The token is the chain's USDC: one dollar.
    Usdc,
    /// The pool's own mid price against USDC.
    ThisPool,
    /// The token is the wrapped native token, priced at the reference pool's mid.
    Reference {
        /// The wrapped-native/USDC pool.
        reference: Pool,
    },
    /// This pool's mid into the wrapped native token, then the reference pool's mid.
    ThisPoolThenReference {
        /// The wrapped-native/USDC pool.
        reference: Pool,
    },
}

/// A token's price in raw USDC units per raw token unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsdPrice {
    /// USDC (raw) per token (raw).
    pub usdc_per_unit: Ratio,
    /// Where it comes from.
    pub route: UsdRoute,
}

impl UsdPrice {
    /// `amount` of the token in raw USDC units, rounded down.
    pub fn value(&self, amount: U256) -> U256 {
        let value =
            U512::from(amount) * self.usdc_per_unit.numerator / self.usdc_per_unit.denominator;
        value.saturating_to::<U256>()
    }

    /// The raw token amount worth `usdc` raw USDC units, rounded down.
    pub fn amount_for(&self, usdc: U256) -> Result<U256, RouteError> {
        if self.usdc_per_unit.numerator.is_zero() {
            return Err(RouteError::Math(dex_math::MathError::DivisionByZero));
        }
        let amount =
            U512::from(usdc) * self.usdc_per_unit.denominator / self.usdc_per_unit.numerator;
        if amount > U512::from(U256::MAX) {
            return Err(RouteError::Math(dex_math::MathError::Overflow));
        }
        Ok(amount.to::<U256>())
    }
}

/// Round trip 1 part: the factory lookups of every wrapped-native/USDC pool.
#[derive(Debug)]
pub(crate) struct ReferenceLookups {
    lookups: Option<PoolLookups>,
}

impl ReferenceLookups {
    pub(crate) fn add(batch: &mut chain_read::Batch, chain: &ChainInfo) -> Self {
        let (native, usdc) = (chain.wrapped_native(), chain.usdc());
        let lookups = (!native.is_zero() && !usdc.is_zero()).then(|| {
            let pair = Pair {
                token_in: native,
                token_out: usdc,
                role: LegRole::NativeReference,
            };
            PoolLookups::add(batch, chain, &[pair])
        });
        Self { lookups }
    }

    /// The concentrated-liquidity pools found (their in-range liquidity is comparable).
    pub(crate) fn decode(self, results: &BatchResults) -> Vec<Pool> {
        let mut failures = Vec::new();
        self.lookups
            .map(|lookups| lookups.decode(results, &mut failures))
            .unwrap_or_default()
            .into_iter()
            .filter(|pool| pool.key.kind() == DexKind::ConcentratedLiquidity)
            .collect()
    }
}

/// Round trip 2 part: the reference candidates' states.
#[derive(Debug)]
pub(crate) struct ReferenceStates {
    pools: Vec<Pool>,
    reads: PoolStateReads,
}

impl ReferenceStates {
    pub(crate) fn add(batch: &mut chain_read::Batch, chain: &ChainInfo, pools: Vec<Pool>) -> Self {
        let reads = PoolStateReads::add(batch, chain, &pools);
        Self { pools, reads }
    }

    /// The candidate with the most in-range liquidity, with its state.
    pub(crate) fn deepest(&self, results: &BatchResults) -> Option<(Pool, PoolState)> {
        let states: PoolStates = self.reads.decode(results);
        self.pools
            .iter()
            .filter_map(|pool| match states.get(&pool.address) {
                Some(Ok(state)) => {
                    let liquidity = crate::kinds::of_pool(pool).in_range_liquidity(state)?;
                    (liquidity > 0).then_some((*pool, *state, liquidity))
                }
                _ => None,
            })
            .max_by_key(|(_, _, liquidity)| *liquidity)
            .map(|(pool, state, _)| (pool, state))
    }
}

/// The USD price of `token`, one of `pool`'s two tokens.
pub(crate) fn usd_price(
    chain: &ChainInfo,
    token: Address,
    pool: &Pool,
    state: &PoolState,
    tokens: &[TokenMetadata],
    reference: Option<&(Pool, PoolState)>,
) -> Result<UsdPrice, RouteError> {
    let (native, usdc) = (chain.wrapped_native(), chain.usdc());
    let other = pool.other(token);
    let reference_mid = || -> Result<(Pool, Ratio), RouteError> {
        let (reference, state) = reference.ok_or(RouteError::NoReferencePool)?;
        Ok((*reference, pool_mid(reference, state, native, tokens)?))
    };
    if token == usdc {
        return Ok(UsdPrice {
            usdc_per_unit: Ratio::new(U512::from(1u8), U512::from(1u8))
                .map_err(RouteError::Math)?,
            route: UsdRoute::Usdc,
        });
    }
    if other == usdc {
        return Ok(UsdPrice {
            usdc_per_unit: pool_mid(pool, state, token, tokens)?,
            route: UsdRoute::ThisPool,
        });
    }
    if token == native {
        let (reference, mid) = reference_mid()?;
        return Ok(UsdPrice {
            usdc_per_unit: mid,
            route: UsdRoute::Reference { reference },
        });
    }
    if other == native {
        let (reference, mid) = reference_mid()?;
        return Ok(UsdPrice {
            usdc_per_unit: pool_mid(pool, state, token, tokens)?.mul(&mid),
            route: UsdRoute::ThisPoolThenReference { reference },
        });
    }
    Err(RouteError::NoUsdRoute { token })
}
