//! DEX adapters: each function adds its calls to a [`Batch`] and returns a
//! handle that decodes them from the batch's [`BatchResults`], so reads of every DEX share the
//! same round trips. The `dex-route` crate composes them into a whole route read.

pub mod algebra;
pub mod balancer;
pub mod concentrated;
pub mod constant_product;
pub mod slipstream;
pub mod solidly;
pub mod uniswap_v4;
pub mod v4_index;

use alloy::primitives::{Address, B256, U256};
use alloy::sol_types::SolCall;

use crate::bindings::{IFactoryOwned, IUniswapV3Pool};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};
use crate::registry::DexId;

/// What distinguishes pools of one pair on one DEX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PoolKey {
    /// A concentrated-liquidity fee tier.
    Concentrated {
        /// Fee in hundredths of a basis point (500 = 0.05 %).
        fee: u32,
        /// Tick spacing the factory enables for the fee.
        tick_spacing: i32,
    },
    /// The one constant-product pair.
    ConstantProduct {
        /// Fee in basis points.
        fee_bps: u32,
    },
    /// A Solidly pool.
    Solidly {
        /// Stable (`x³y + y³x`) rather than volatile (`x·y`).
        stable: bool,
    },
    /// A Uniswap V4 pool: its PoolKey (the currencies are the pool's tokens, or native ether
    /// in place of the wrapped native token when `native`) and PoolId.
    V4 {
        /// Fee in hundredths of a bip, or the dynamic-fee flag.
        fee: u32,
        /// Tick spacing.
        tick_spacing: i32,
        /// Hooks contract (zero for none).
        hooks: Address,
        /// The wrapped native token when `currency0` is native ether (address zero) standing
        /// for it among the pool's tokens; `None` when the currencies are the tokens.
        native: Option<Address>,
        /// The PoolId.
        id: B256,
    },
    /// A Slipstream pool: its tick spacing and the CL factory that holds it (whose QuoterV2
    /// quotes it). Its fee is the pool's own `fee()`, in its state.
    Slipstream {
        /// Tick spacing.
        tick_spacing: i32,
        /// The CL factory.
        factory: Address,
    },
    /// An Algebra Integral pool: the pair's one pool on the factory (`deployer` zero), or a
    /// custom pool of `deployer`. Its fee is in its `globalState`, in its state.
    Algebra {
        /// The custom-pool deployer, zero for the factory's base pool.
        deployer: Address,
    },
    /// An Algebra V1 pool: the pair's one pool on the factory. Its fee is in its
    /// `globalState`, in its state.
    AlgebraV1,
    /// A Balancer V2 pool in the Vault: its pool id (the first 20 bytes are its address) and
    /// type.
    Balancer {
        /// The pool id.
        id: B256,
        /// Weighted or composable stable.
        pool_type: balancer::BalancerPoolType,
    },
}

impl PoolKey {
    /// The pool type (the kind of DEX whose pools have keys like this one).
    pub fn kind(self) -> crate::DexKind {
        match self {
            Self::Concentrated { .. } => crate::DexKind::ConcentratedLiquidity,
            Self::ConstantProduct { .. } => crate::DexKind::ConstantProduct,
            Self::Solidly { .. } => crate::DexKind::Solidly,
            Self::V4 { .. } => crate::DexKind::ConcentratedLiquidityV4,
            Self::Slipstream { .. } => crate::DexKind::Slipstream,
            Self::Algebra { .. } => crate::DexKind::AlgebraIntegral,
            Self::AlgebraV1 => crate::DexKind::AlgebraV1,
            Self::Balancer { .. } => crate::DexKind::BalancerV2,
        }
    }

    /// The fee tier in hundredths of a basis point, for a concentrated-liquidity pool; `None`
    /// for the other types.
    pub fn fee_tier_ppm(self) -> Option<u32> {
        match self {
            Self::Concentrated { fee, .. } => Some(fee),
            _ => None,
        }
    }

    /// Stable rather than volatile, for a Solidly pool; `None` for the other types.
    pub fn stable(self) -> Option<bool> {
        match self {
            Self::Solidly { stable } => Some(stable),
            _ => None,
        }
    }
}

/// A pool found through its factory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pool {
    /// The DEX.
    pub dex: DexId,
    /// The pool (pair) contract.
    pub address: Address,
    /// The lower token address (every factory here sorts the pair).
    pub token0: Address,
    /// The higher token address.
    pub token1: Address,
    /// Fee tier or pool type.
    pub key: PoolKey,
}

impl Pool {
    /// The token on the other side of `token`.
    pub fn other(&self, token: Address) -> Address {
        if token == self.token0 {
            self.token1
        } else {
            self.token0
        }
    }
}

/// Reserves in token order (`reserve0` of the lower address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserves {
    /// Reserve of `token0`.
    pub reserve0: U256,
    /// Reserve of `token1`.
    pub reserve1: U256,
}

impl Reserves {
    /// `(reserve in, reserve out)` for a swap selling `token_in` in a pool whose `token0` is
    /// given.
    pub fn oriented(&self, token0: Address, token_in: Address) -> (U256, U256) {
        if token_in == token0 {
            (self.reserve0, self.reserve1)
        } else {
            (self.reserve1, self.reserve0)
        }
    }
}

/// Pool state read at the pinned block, for impact and later simulation.
// A Balancer pool's state holds fixed arrays of up to eight tokens (about 1 KB) so that the
// state stays `Copy` like every other kind's; a read holds a few dozen states at most.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolState {
    /// `slot0`, `liquidity`, `fee`, `tickSpacing`.
    Concentrated(concentrated::ClPoolState),
    /// `getReserves`.
    ConstantProduct(Reserves),
    /// `getReserves` and the factory's `getFee`.
    Solidly {
        /// Reserves.
        reserves: Reserves,
        /// Fee in basis points (`getFee(pool, stable)`).
        fee_bps: u32,
    },
    /// StateView's `getSlot0` and `getLiquidity`.
    V4(uniswap_v4::V4PoolState),
    /// The Vault's `getPoolTokens` and the pool's swap parameters.
    Balancer(balancer::BalancerPoolState),
}

/// A function's selector from its Solidity signature, for the adapters' tests.
#[cfg(test)]
pub(crate) fn selector(signature: &str) -> [u8; 4] {
    let hash = alloy::primitives::keccak256(signature.as_bytes());
    [hash[0], hash[1], hash[2], hash[3]]
}

/// `(lower, higher)`: the order every factory here stores a pair in.
pub fn sort_tokens(a: Address, b: Address) -> (Address, Address) {
    if a < b { (a, b) } else { (b, a) }
}

/// A pending factory lookup (`getPool`, `getPair`); the zero address means "no pool".
#[derive(Debug)]
pub struct PoolLookup<C> {
    slot: Slot<C>,
}

impl<C> Clone for PoolLookup<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for PoolLookup<C> {}

impl<C: SolCall<Return = Address>> PoolLookup<C> {
    pub(crate) fn new(slot: Slot<C>) -> Self {
        Self { slot }
    }

    /// The pool, `None` if the factory holds none.
    pub fn decode(&self, results: &BatchResults) -> Result<Option<Address>, CallFailure> {
        results
            .get(self.slot)
            .map(|pool| (!pool.is_zero()).then_some(pool))
    }
}

/// Pending `token0()` / `token1()` reads (same selectors on V2 pairs, V3 and Solidly pools).
#[derive(Debug, Clone, Copy)]
pub struct TokenPairSlots {
    token0: Slot<IUniswapV3Pool::token0Call>,
    token1: Slot<IUniswapV3Pool::token1Call>,
}

/// Adds `token0()` and `token1()` of `pool` to `batch`.
pub fn pool_tokens(batch: &mut Batch, pool: Address) -> TokenPairSlots {
    TokenPairSlots {
        token0: batch.add(pool, &IUniswapV3Pool::token0Call {}),
        token1: batch.add(pool, &IUniswapV3Pool::token1Call {}),
    }
}

impl TokenPairSlots {
    /// `(token0, token1)`.
    pub fn decode(&self, results: &BatchResults) -> Result<(Address, Address), CallFailure> {
        Ok((results.get(self.token0)?, results.get(self.token1)?))
    }
}

/// Pending `token0()`, `token1()` and `factory()` of a contract that may be a pool.
#[derive(Debug, Clone, Copy)]
pub struct PoolIdentitySlots {
    tokens: TokenPairSlots,
    factory: Slot<IFactoryOwned::factoryCall>,
}

/// What a contract says about itself as a pool; the factory named must still confirm it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimedPool {
    /// `token0()`.
    pub token0: Address,
    /// `token1()`.
    pub token1: Address,
    /// `factory()`.
    pub factory: Address,
}

/// Adds `token0()`, `token1()` and `factory()` of `pool` to `batch`.
pub fn pool_identity(batch: &mut Batch, pool: Address) -> PoolIdentitySlots {
    PoolIdentitySlots {
        tokens: pool_tokens(batch, pool),
        factory: batch.add(pool, &IFactoryOwned::factoryCall {}),
    }
}

impl PoolIdentitySlots {
    /// The claim; the first failing read is the failure (a contract that is no pool fails
    /// here).
    pub fn decode(&self, results: &BatchResults) -> Result<ClaimedPool, CallFailure> {
        let (token0, token1) = self.tokens.decode(results)?;
        Ok(ClaimedPool {
            token0,
            token1,
            factory: results.get(self.factory)?,
        })
    }
}
