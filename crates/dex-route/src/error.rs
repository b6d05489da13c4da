//! The crate's one error type.

use alloy::primitives::{Address, U256};
use chain_read::{CallFailure, ChainReadError, DexId, ErrorKind};
use dex_math::MathError;

/// Why a quote could not be made, or why one figure of a priced route is missing.
///
/// [`QuotePlan::new`](crate::QuotePlan::new), [`QuotePlan::discover`](crate::QuotePlan::discover)
/// and [`Discovery::quote`](crate::Discovery::quote) fail the whole read with
/// [`Chain`](Self::Chain), [`SameToken`](Self::SameToken) or [`ZeroAmount`](Self::ZeroAmount);
/// every other variant stands in for one missing figure of a
/// [`PricedRoute`](crate::PricedRoute) or of the [`GasPricing`](crate::GasPricing), next to the
/// figures that could be computed. A DEX, fee tier or pool without a quote is not an error
/// but a [`Failure`](crate::Failure) of the outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// A chain read failed as a whole (node unreachable, too slow, wrong chain, …).
    #[error(transparent)]
    Chain(#[from] ChainReadError),
    /// `token_in` and `token_out` are the same token.
    #[error("token_in and token_out are the same token")]
    SameToken,
    /// The amount sold is zero at quote time.
    #[error("amount_in must be above zero")]
    ZeroAmount,
    /// The gas price was not asked for in discovery.
    #[error("eth_gasPrice was not read")]
    GasPriceNotRead,
    /// The node refused `eth_gasPrice`; its error text.
    #[error("eth_gasPrice failed: {0}")]
    GasPriceFailed(chain_read::GasPriceError),
    /// No direct pool quoted the wrapped native token into the output token, so gas cost in
    /// wei has no price in the output token.
    #[error(
        "no direct pool from {native} to {token_out} quoted one {native} at the block, so gas cannot be priced in {token_out}"
    )]
    NoGasConversion {
        /// The wrapped native token.
        native: Address,
        /// The output token.
        token_out: Address,
    },
    /// The route's gas units could not be added up.
    #[error("gas units: {0}")]
    GasUnits(#[source] MathError),
    /// The pool's state was not read (its read failed), so it has no mid price.
    #[error("the state of pool {pool} was not read")]
    PoolStateNotRead {
        /// The pool.
        pool: Address,
    },
    /// A Solidly pool's mid price needs both tokens' decimals, and one was not read.
    #[error("decimals of {token} unknown")]
    DecimalsUnknown {
        /// The token.
        token: Address,
    },
    /// The state read does not belong to the pool's type.
    #[error("pool state and type disagree")]
    StateMismatch,
    /// A pool's mid price could not be computed.
    #[error("mid price: {0}")]
    MidPrice(#[source] MathError),
    /// Gas cost, its conversion, the net output or the price impact overflowed or had no
    /// defined value.
    #[error(transparent)]
    Math(MathError),
    /// The address is not a pool of a DEX the service reads on the chain.
    #[error("{pool} is not a pool of a known factory: {reason}")]
    UnknownPool {
        /// The address asked about.
        pool: Address,
        /// What the check found.
        reason: String,
    },
    /// The PoolId names no Uniswap V4 pool the service reads (no `Initialize` event names it,
    /// or not on the pair asked, or not in the route's candidates).
    #[error("{id} names no Uniswap V4 pool the service reads: {reason}")]
    UnknownPoolId {
        /// The PoolId asked about.
        id: alloy::primitives::B256,
        /// What the check found.
        reason: String,
    },
    /// A V4 pool whose hooks run in its swaps: the sandwich's exact maths is not the pool's.
    #[error(
        "the sandwich model of a hooked pool: its hooks {hooks} hold the swap permissions {flags} (the low 14 bits of their address, v4-core Hooks.sol), so their code runs in every swap and can change what it pays"
    )]
    HooksInSwap {
        /// The hooks contract.
        hooks: Address,
        /// The permissions that run in a swap, by their v4-core names.
        flags: String,
    },
    /// The PoolKey of a PoolId could not be read: the node refused or failed the
    /// `eth_getLogs` of its `Initialize` event.
    #[error("the PoolKey of Uniswap V4 pool {id} was not read: {reason}")]
    PoolKeyNotRead {
        /// The PoolId asked about.
        id: alloy::primitives::B256,
        /// The lookup and the node's answer.
        reason: String,
    },
    /// The DEX's factory holds no pool for the pair (at the fee tier, if one was named).
    #[error("{dex} holds no pool for this pair{}", fee_tier_ppm.map(|fee| format!(" at fee tier {fee}")).unwrap_or_default())]
    NoPoolForPair {
        /// The DEX.
        dex: DexId,
        /// The fee tier named, if any.
        fee_tier_ppm: Option<u32>,
    },
    /// The registry has no deployment of the DEX on this chain.
    #[error("{dex} is not deployed on this chain")]
    DexNotOnChain {
        /// The DEX.
        dex: DexId,
    },
    /// The DEX's contracts are not the ones this crate's adapters speak (Algebra forks).
    #[error("{dex} pools are Algebra pools, which the service does not read")]
    DexWithoutAdapter {
        /// The DEX.
        dex: DexId,
    },
    /// Neither the token nor the other side of its pool is USDC or the wrapped native token,
    /// so no USD price is read for it.
    #[error(
        "{token} has no USD price: neither it nor the other token of the pool is USDC or the wrapped native token"
    )]
    NoUsdRoute {
        /// The token.
        token: Address,
    },
    /// No wrapped-native/USDC concentrated-liquidity pool with liquidity was found.
    #[error(
        "no wrapped-native/USDC pool with liquidity was found to price the wrapped native token"
    )]
    NoReferencePool,
    /// A quote gave no usable amount.
    #[error("quote failed: {0}")]
    Quote(String),
    /// A call of the read failed.
    #[error("{what}: {failure}")]
    Call {
        /// What was read.
        what: &'static str,
        /// Why it failed.
        #[source]
        failure: CallFailure,
    },
    /// The sandwich maths or the detector refused the pool or the events.
    #[error("sandwich model: {0}")]
    Mev(#[from] mev_sim::MevError),
    /// The pool cannot take the whole amount: QuoterV2 reverted or stopped at the end of the
    /// tick range. `fillable` is what the liquidity in the ticks read takes and pays (a lower
    /// bound: liquidity beyond them was not read), when the simulation could tell.
    #[error("the pool cannot fill this amount ({quoter}){}", fillable.map(|(i, o)| format!("; the liquidity read takes at most {i} for {o}")).unwrap_or_default())]
    CannotFill {
        /// What QuoterV2 answered.
        quoter: String,
        /// `(amount_in, amount_out)` raw, filled within the ticks read.
        fillable: Option<(U256, U256)>,
    },
    /// The pool holds no tokens of its own (Uniswap V4: the PoolManager holds every pool's).
    #[error(
        "a {dex} pool holds no tokens of its own (one contract holds every pool's), so it has no balances or TVL of its own"
    )]
    NoOwnBalances {
        /// The DEX.
        dex: DexId,
    },
    /// A Balancer V2 pool named by id or address that the chain's list does not hold, or
    /// that holds more than two tokens and was named without the pair.
    #[error("{pool} is not a Balancer V2 pool the service reads as named: {reason}")]
    UnknownBalancerPool {
        /// The pool id or address as named.
        pool: String,
        /// Why.
        reason: String,
    },
    /// A curve pool's depth band reaches past the swaps the pool takes.
    #[error("the ±{percent} % band is not reached by any swap the pool takes ({why})")]
    BandBeyondPool {
        /// The band.
        percent: u32,
        /// Why.
        why: &'static str,
    },
    /// An exit's amount is known, but not the price after it.
    #[error("the price after is not known: {why}")]
    PriceAfterUnknown {
        /// Why.
        why: &'static str,
    },
    /// The pool's kind is quoted, but this read of it is not built yet (a Uniswap V4 pool's
    /// exits, depth and sandwich model).
    #[error("{dex} pools are quoted, but {what} is not read for them yet")]
    NotReadForKind {
        /// The DEX.
        dex: DexId,
        /// The read.
        what: &'static str,
    },
}

impl RouteError {
    /// This error's [`ErrorKind`]: a chain read as chain-read classifies it; the same token
    /// twice or a zero amount is the caller's input; an address that is not a pool of the pair
    /// or of a known factory is an unknown pool; a DEX missing from the chain or without an
    /// adapter is unsupported; a quote that could not be made is no route; every other variant
    /// stands for a missing figure, which never fails a read, so failing with one is internal.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Chain(error) => error.kind(),
            Self::SameToken | Self::ZeroAmount => ErrorKind::InvalidInput,
            Self::UnknownPool { .. }
            | Self::UnknownPoolId { .. }
            | Self::UnknownBalancerPool { .. }
            | Self::NoPoolForPair { .. } => ErrorKind::UnknownPool,
            Self::DexNotOnChain { .. }
            | Self::DexWithoutAdapter { .. }
            | Self::NotReadForKind { .. }
            | Self::HooksInSwap { .. } => ErrorKind::Unsupported,
            Self::Quote(_) => ErrorKind::NoRoute,
            Self::PoolKeyNotRead { .. } => ErrorKind::Unreachable,
            _ => ErrorKind::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy::primitives::address;

    use super::*;

    #[test]
    fn addresses_print_checksummed() {
        let pool = address!("d0b53d9277642d899df5c87a3966a349a798f224");
        assert_eq!(
            RouteError::PoolStateNotRead { pool }.to_string(),
            format!("the state of pool {} was not read", pool.to_checksum(None))
        );
        assert_eq!(
            RouteError::DecimalsUnknown { token: pool }.to_string(),
            "decimals of 0xd0b53D9277642d899DF5C87A3966A349A798F224 unknown"
        );
    }
}
