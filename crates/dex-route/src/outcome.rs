//! What a quote read produced: legs, routes, and every DEX, fee tier and pool without a quote
//! with its reason.

use std::fmt;

use alloy::primitives::{Address, U256};
use chain_read::dex::concentrated::ClQuote;
use chain_read::dex::{Pool, PoolKey, PoolState};
use chain_read::{BlockPin, CallFailure, DexId, L1DataFee, TokenMetadata};

use crate::error::RouteError;

/// The part a leg plays in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LegRole {
    /// `token_in` to `token_out` in one pool.
    Direct,
    /// `token_in` to the intermediate `via`.
    FirstLeg {
        /// The intermediate token.
        via: Address,
    },
    /// The intermediate `via` to `token_out`.
    SecondLeg {
        /// The intermediate token.
        via: Address,
    },
    /// The wrapped native token to `token_out`, for converting gas cost.
    NativeReference,
}

/// How a leg's output was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteSource {
    /// QuoterV2 `quoteExactInputSingle` (concentrated liquidity).
    QuoterV2,
    /// The pool's own `getAmountOut` (Solidly).
    PoolGetAmountOut,
    /// Constant-product maths on the reserves read at the pinned block.
    Reserves,
    /// The Solidly pool's `getAmountOut` maths (dex-math's exact port) on the reserves and
    /// fee read at the pinned block.
    SolidlyReserves,
    /// V4Quoter `quoteExactInputSingle` (Uniswap V4: the swap run in the PoolManager, the
    /// pool's hooks included).
    V4Quoter,
    /// Algebra V1's Quoter `quoteExactInputSingle` (no fee argument: the pair's one pool),
    /// with the fee the swap paid, hundredths of a bip.
    AlgebraQuoter {
        /// The adaptive fee the quoted swap paid.
        fee: u32,
    },
    /// BalancerQueries `querySwap` (Balancer V2: the Vault's `queryBatchSwap`, the pool's own
    /// `onSwap`).
    BalancerQueries,
}

impl QuoteSource {
    /// Its name in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::QuoterV2 => "quoter_v2",
            Self::PoolGetAmountOut => "pool_get_amount_out",
            Self::Reserves => "reserves",
            Self::SolidlyReserves => "solidly_reserves",
            Self::V4Quoter => "v4_quoter",
            Self::AlgebraQuoter { .. } => "algebra_quoter",
            Self::BalancerQueries => "balancer_queries",
        }
    }
}

/// One swap through one pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leg {
    /// The pool.
    pub pool: Pool,
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// Amount sold.
    pub amount_in: U256,
    /// Amount bought.
    pub amount_out: U256,
    /// Where `amount_out` comes from.
    pub source: QuoteSource,
    /// QuoterV2's full answer (price after, ticks crossed, gas of the inner swap).
    pub quoter: Option<ClQuote>,
    /// The quoter's gas measurement of this swap (QuoterV2's, also in `quoter`, or
    /// V4Quoter's), when the kind is quoted by one.
    pub gas_estimate: Option<U256>,
    /// The pool's state at the pinned block, when its read succeeded.
    pub state: Option<PoolState>,
}

/// A direct or two-hop route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// One or two legs, in swap order.
    pub legs: Vec<Leg>,
}

impl Route {
    /// What the last leg delivers.
    pub fn amount_out(&self) -> U256 {
        self.legs
            .last()
            .map(|leg| leg.amount_out)
            .unwrap_or_default()
    }

    /// The intermediate token of a two-hop route.
    pub fn via(&self) -> Option<Address> {
        if self.legs.len() > 1 {
            self.legs.first().map(|leg| leg.token_out)
        } else {
            None
        }
    }
}

/// Which pool of a DEX a failure is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolVariant {
    /// A concentrated-liquidity fee tier.
    FeeTier(u32),
    /// The constant-product pair.
    Pair,
    /// A Solidly pool by type.
    Solidly {
        /// Stable rather than volatile.
        stable: bool,
    },
    /// A Uniswap V4 pool shape probed for the pair.
    V4 {
        /// Fee in hundredths of a bip, or the dynamic-fee flag.
        fee: u32,
        /// Tick spacing.
        tick_spacing: i32,
        /// Hooks contract (zero for none).
        hooks: Address,
        /// Against native ether in place of the wrapped native token.
        native: bool,
        /// The PoolId of that key.
        id: alloy::primitives::B256,
    },
    /// A Slipstream tick spacing on one of the DEX's CL factories.
    TickSpacing {
        /// Tick spacing.
        tick_spacing: i32,
        /// The CL factory.
        factory: Address,
    },
    /// A Balancer V2 pool of the registry's list, by pool id.
    BalancerPool {
        /// The pool id.
        id: alloy::primitives::B256,
    },
}

impl From<PoolKey> for PoolVariant {
    fn from(key: PoolKey) -> Self {
        crate::kinds::of(key.kind()).variant(key)
    }
}

/// Why a DEX, fee tier or pool gave no quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureReason {
    /// The registry has no (verified or configured) deployment of the DEX on this chain.
    NotDeployed,
    /// The factory does not enable the fee tier (`feeAmountTickSpacing` is 0).
    FeeTierNotEnabled,
    /// The factory holds no pool for the pair.
    NoPool,
    /// The pool holds no reserves.
    EmptyPool,
    /// The quote was zero.
    ZeroOutput,
    /// The amount overflows the pool maths.
    AmountTooLarge,
    /// No first leg into the intermediate token gave a quote, so this second leg has no input.
    NoFirstLeg,
    /// A call failed.
    Call(CallFailure),
}

impl fmt::Display for FailureReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotDeployed => f.write_str("not deployed on this chain"),
            Self::FeeTierNotEnabled => f.write_str("fee tier not enabled by the factory"),
            Self::NoPool => f.write_str("no pool for this pair"),
            Self::EmptyPool => f.write_str("pool holds no reserves"),
            Self::ZeroOutput => f.write_str("quote is zero"),
            Self::AmountTooLarge => f.write_str("amount too large for the pool maths"),
            Self::NoFirstLeg => {
                f.write_str("no first leg into the intermediate token gave a quote")
            }
            Self::Call(failure) => failure.fmt(f),
        }
    }
}

/// A DEX, fee tier or pool that gave no quote, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The DEX.
    pub dex: DexId,
    /// The leg it would have been.
    pub role: LegRole,
    /// Token sold on that leg.
    pub token_in: Address,
    /// Token bought on that leg.
    pub token_out: Address,
    /// Fee tier or pool type (`None` for a DEX that is not deployed).
    pub variant: Option<PoolVariant>,
    /// The pool, when one was found.
    pub pool: Option<Address>,
    /// Why.
    pub reason: FailureReason,
}

/// Everything one `dex_quote` read produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteOutcome {
    /// The block every read was made at.
    pub block: BlockPin,
    /// The block of every batch sent, in order (all equal to `block.number`).
    pub read_blocks: Vec<u64>,
    /// Metadata of `token_in`, `token_out` and the intermediates.
    pub tokens: Vec<TokenMetadata>,
    /// Direct and two-hop routes, largest gross output first.
    pub routes: Vec<Route>,
    /// Wrapped native to `token_out` quotes, if asked for.
    pub native_reference: Vec<Leg>,
    /// Every DEX, fee tier and pool without a quote, with the reason.
    pub failures: Vec<Failure>,
    /// HTTP requests this read sent (retries and chunks included).
    pub round_trips: u32,
    /// `eth_gasPrice` in wei, or the node's error, when asked for.
    pub gas_price: Option<Result<u128, chain_read::GasPriceError>>,
    /// The L1 data fee of a representative swap transaction.
    pub l1_data_fee: L1DataFee,
}

impl QuoteOutcome {
    /// The metadata read for `token`, if it was one of the planned tokens.
    pub fn token(&self, token: Address) -> Option<&TokenMetadata> {
        token_metadata(&self.tokens, token)
    }

    /// `eth_gasPrice` in wei, or why there is none.
    pub fn gas_price_wei(&self) -> Result<u128, RouteError> {
        match &self.gas_price {
            Some(Ok(price)) => Ok(*price),
            Some(Err(error)) => Err(RouteError::GasPriceFailed(error.clone())),
            None => Err(RouteError::GasPriceNotRead),
        }
    }

    /// The L1 data fee in wei that every route's gas cost carries: zero unless it was read.
    pub fn l1_fee_wei(&self) -> U256 {
        match &self.l1_data_fee {
            L1DataFee::Read { fee_wei, .. } => *fee_wei,
            _ => U256::ZERO,
        }
    }
}

/// The metadata of `token` among `tokens`.
pub(crate) fn token_metadata(tokens: &[TokenMetadata], token: Address) -> Option<&TokenMetadata> {
    tokens.iter().find(|m| m.address == token)
}

/// The decimals of `token` among `tokens`, when its `decimals()` answered.
pub fn decimals_of(tokens: &[TokenMetadata], token: Address) -> Option<u8> {
    token_metadata(tokens, token).and_then(|m| m.decimals.clone().ok())
}
