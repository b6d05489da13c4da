//! One pool read at one pinned block: its tokens, state and balances, the capital within
//! bands around its price, and exit quotes for USD sizes in both directions.
//!
//! The ordinary path's round trips (sequential `eth_call`s of Multicall3 batches):
//!
//! | pool named by | 1 | 2 | 3 |
//! |---|---|---|---|
//! | address | `token0`, `token1`, `factory`, `slot0`, `tickSpacing`; reference lookups | state, metadata, balances, the factory's own lookup (the pool must be its), reference states, TickLens words | QuoterV2 exits |
//! | tokens + DEX | the DEX's lookups for the pair, metadata, reference lookups | every tier's state and balances, reference states | TickLens words, QuoterV2 exits |
//! | Uniswap V4 PoolId | StateView state by PoolId, reference lookups (and the `Initialize` log of the PoolId beside them, unless the key is known) | reference states | the tokens' metadata, StateView words, V4Quoter exits |
//!
//! Constant-product and Solidly pools stop after round trip 2: their exits are computed from
//! the reserves read there. A Balancer V2 pool (named by id, by a listed pool's address or by
//! pair, read as a pair's) has no ticks: round trip 3 holds only its `querySwap` exits, and its
//! depth is computed on the state by the pool's exact maths. A chain whose registry has no TickLens (and Uniswap V4's StateView)
//! reads bitmap words instead and the ticks in one more round trip.
//!
//! Through the read lens (`liquidity::lens`, the default) round trips 1 and 2 are one
//! `eth_call`, and round trips 3 and 4 one more (a lens call where the words are bitmaps, an
//! ordinary batch otherwise): at most two, one for constant-product and Solidly pools.

pub mod depth;
pub mod exit;
mod first;
mod lens;
mod second;
mod ticks;
pub mod usd;
mod v4_key;

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256};
use chain_read::dex::concentrated;
use chain_read::dex::{self as adapters, ClaimedPool, Pool, PoolState};
use chain_read::erc20::{self, BalanceSlot, MetadataSlots, TokenMetadata};
use chain_read::{
    Batch, BatchResults, BlockPin, CallFailure, ChainInfo, ChainReadError, DexId, DexKind,
    PinnedReader,
};
use dex_math::Ratio;

use crate::discovery::PoolLookups;
use crate::error::RouteError;
use crate::kinds;
use crate::legs::PoolStateReads;
pub use crate::lens::ReadPath;
use crate::plan::{LegRole, Pair};
use crate::pricing::pool_mid;

pub use depth::BandCapital;
pub use exit::{ExitQuote, ExitRow};
pub use usd::{UsdPrice, UsdRoute};
pub use v4_key::PoolKeySource;

use self::first::FirstRead;
use self::second::{Chosen, SecondRead};
use self::ticks::TickRead;
use self::v4_key::KeyLookup;

/// The exit sizes of the service, whole US dollars.
pub const EXIT_SIZES_USD: [u64; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// The depth bands of the service, percent of the price.
pub const DEPTH_PERCENTS: [u32; 3] = [1, 2, 5];

/// Most bitmap words read around the price (a tick spacing of 1 needs 5 for ±5 %).
const MAX_TICK_WORDS: i32 = 16;

/// How the pool is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolRef {
    /// By its address; its `factory()` must be a registry DEX's factory that returns it.
    Address(Address),
    /// By its tokens on one DEX.
    Pair {
        /// The DEX.
        dex: DexId,
        /// One token.
        token_a: Address,
        /// The other token.
        token_b: Address,
        /// The concentrated-liquidity fee tier; `None` picks the deepest.
        fee_tier_ppm: Option<u32>,
    },
    /// A Balancer V2 pool of the chain's list, by its pool id or address; the pair is needed
    /// when the pool holds more than two tokens. (A listed pool's address given as
    /// [`PoolRef::Address`] is read the same way.)
    Balancer {
        /// The pool id or the pool's address.
        pool: BalancerName,
        /// Two of its tokens, when it holds more than two.
        pair: Option<(Address, Address)>,
    },
    /// A Uniswap V4 pool by its PoolId: its PoolKey from the chain's `Initialize` index, a
    /// shape known for the pair named, or its `Initialize` event (`v4_key`).
    V4 {
        /// The PoolId.
        id: alloy::primitives::B256,
        /// The pair, when the caller named it (the wrapped native token or the zero address
        /// for native ether): the pool must be of it.
        tokens: Option<(Address, Address)>,
    },
}

/// How a Balancer V2 pool is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BalancerName {
    /// Its pool id (the address is its first 20 bytes).
    Id(alloy::primitives::B256),
    /// Its address.
    Address(Address),
}

/// What to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiquidityRequest {
    /// The pool.
    pub pool: PoolRef,
    /// Exit sizes, whole US dollars.
    pub exit_sizes_usd: Vec<u64>,
    /// Depth bands, percent (each below 41: marketdepth-v3's bound).
    pub depth_percents: Vec<u32>,
}

impl LiquidityRequest {
    /// The service's sizes and bands for `pool`.
    pub fn new(pool: PoolRef) -> Self {
        Self {
            pool,
            exit_sizes_usd: EXIT_SIZES_USD.to_vec(),
            depth_percents: DEPTH_PERCENTS.to_vec(),
        }
    }
}

/// One of the pool's tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolToken {
    /// Address, decimals and symbol as read.
    pub metadata: TokenMetadata,
    /// `decimals()` (a token without it cannot be priced, so the read fails before this).
    pub decimals: u8,
    /// The pool's `balanceOf` of the token: what it holds, fees not yet collected included
    /// (none for a pool whose tokens another contract holds, as Uniswap V4's PoolManager).
    pub balance: Result<U256, RouteError>,
    /// Its USD price, or why there is none.
    pub usd: Result<UsdPrice, RouteError>,
}

/// A pool of the pair that was compared when no fee tier was named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierCandidate {
    /// The pool.
    pub pool: Pool,
    /// Its token balances valued at its own mid price, in raw token1 units: the measure of
    /// depth used to choose.
    pub value_in_token1: Result<U256, RouteError>,
}

impl TickCoverage {
    /// The lowest and highest square-root prices the words read cover.
    pub fn sqrt_price_edges(&self) -> Result<(U256, U256), RouteError> {
        let spacing = self.tick_spacing;
        let clamp =
            |tick: i32| tick.clamp(dex_math::tick_math::MIN_TICK, dex_math::tick_math::MAX_TICK);
        let low = clamp((i32::from(self.words.0) << 8) * spacing);
        let high = clamp(((i32::from(self.words.1) + 1) << 8) * spacing);
        let sqrt =
            |tick| dex_math::tick_math::get_sqrt_ratio_at_tick(tick).map_err(RouteError::Math);
        Ok((
            sqrt(low)?.max(dex_math::tick_math::MIN_SQRT_RATIO + U256::from(1)),
            sqrt(high)?.min(dex_math::tick_math::MAX_SQRT_RATIO - U256::from(1)),
        ))
    }
}

/// Where the initialized ticks came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickSource {
    /// TickLens `getPopulatedTicksInWord`, one call per word.
    TickLens,
    /// `tickBitmap` words, then `ticks()` of every initialized tick.
    Bitmap,
    /// StateView's `getTickBitmap` words, then `getTickLiquidity` of every initialized tick
    /// (Uniswap V4).
    StateView,
    /// Algebra's `tickTable` words (V1: V3's bitmap layout; Integral: its tick tree's leaves,
    /// one bit per tick), then `ticks()` of every initialized tick.
    TickTable,
}

/// The ticks read for the depth walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickCoverage {
    /// First and last bitmap word read.
    pub words: (i16, i16),
    /// Initialized ticks in those words.
    pub initialized_ticks: usize,
    /// How they were read.
    pub source: TickSource,
    /// The pool's tick spacing.
    pub tick_spacing: i32,
}

/// Everything one pool read produced.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolLiquidity {
    /// The block of every read.
    pub block: BlockPin,
    /// The pool.
    pub pool: Pool,
    /// Its state at the block.
    pub state: PoolState,
    /// token0 and token1.
    pub tokens: [PoolToken; 2],
    /// The pools compared when no fee tier (or Solidly type) was named.
    pub compared: Vec<TierCandidate>,
    /// The chain's USDC decimals (the unit of every USD figure).
    pub usdc_decimals: Result<u8, CallFailure>,
    /// Exit quotes, each size selling token0 then token1.
    pub exits: Vec<ExitRow>,
    /// Capital per band, or why there is none.
    pub depth: Result<Vec<BandCapital>, RouteError>,
    /// The ticks the depth walk used (concentrated liquidity).
    pub ticks: Option<TickCoverage>,
    /// Sequential round trips to the node.
    pub sequential_round_trips: u32,
    /// How the chain was read: the lens, or the ordinary batches and why.
    pub read_path: ReadPath,
    /// Where the PoolKey of a V4 pool named by PoolId came from.
    pub pool_key_source: Option<PoolKeySource>,
}

impl PoolLiquidity {
    /// The mid price for selling `token_in`, raw output per raw input.
    pub fn mid(&self, token_in: Address) -> Result<Ratio, RouteError> {
        pool_mid(&self.pool, &self.state, token_in, &self.metadata())
    }

    /// The pool's balances valued in raw USDC units (rounded down), when both are priced.
    pub fn tvl_usdc(&self) -> Result<U256, RouteError> {
        let mut total = U256::ZERO;
        for token in &self.tokens {
            let balance = token.balance.clone()?;
            total += token.usd.clone()?.value(balance);
        }
        Ok(total)
    }

    fn metadata(&self) -> Vec<TokenMetadata> {
        self.tokens.iter().map(|t| t.metadata.clone()).collect()
    }
}

/// Reads the pool at one block: through the lens in at most two round trips, or, when the node
/// does not take the lens's state override, in the ordinary batches
/// ([`PoolLiquidity::read_path`] says which, and why).
pub async fn read_pool_liquidity(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
) -> Result<PoolLiquidity, RouteError> {
    read_pool_liquidity_with(chain, reader, request, |_| ()).await
}

/// [`read_pool_liquidity`], calling `on_chosen` as soon as the pool is known (after round
/// trip 2 of the ordinary path, after the first lens call), before the quotes: a caller can
/// start reads about the pool elsewhere (volume from a foreign source) while the quotes run.
pub async fn read_pool_liquidity_with(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
    on_chosen: impl FnOnce(&Pool),
) -> Result<PoolLiquidity, RouteError> {
    // One view of the V4 Initialize index for every round trip (as `quote::report`).
    lens::read(
        &chain.with_frozen_v4_index(),
        reader,
        request,
        on_chosen,
        true,
    )
    .await
}

/// [`read_pool_liquidity`] through the ordinary batches only (at most four round trips): the
/// reference the lens is checked against.
pub async fn read_pool_liquidity_batches(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
) -> Result<PoolLiquidity, RouteError> {
    lens::read(
        &chain.with_frozen_v4_index(),
        reader,
        request,
        |_| (),
        false,
    )
    .await
}

/// What round trips 1 and 2 settled: the pool and what the rest of the read needs.
#[derive(Debug, Clone)]
struct Settled {
    pool: Pool,
    state: PoolState,
    tokens: SettledTokens,
    compared: Vec<TierCandidate>,
    pool_key_source: Option<PoolKeySource>,
    usdc_decimals: Result<u8, CallFailure>,
    ticks: Option<TickRead>,
    exits_wanted: Vec<(u64, Address, Result<U256, RouteError>)>,
    stages: u32,
}

/// The pool's tokens: read by round trip 2, or (a V4 pool by PoolId, whose currencies are
/// known only from round trip 1's log) with round trip 3.
// One value per request, never moved in bulk: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum SettledTokens {
    Read {
        metadata: Vec<TokenMetadata>,
        tokens: [PoolToken; 2],
    },
    Late {
        balances: [Result<U256, RouteError>; 2],
        prices: Vec<Result<UsdPrice, RouteError>>,
    },
}

/// Round trips 1 and 2: the pool named, found and chosen, its state, tokens and USD prices.
/// With `ticks_in_round_two`, a pool named by address has its tick words read in round trip 2
/// (its tick is known from round trip 1); else in round trip 3 with the exits, as a pair's.
async fn read_pool(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
    key: Option<&KeyLookup>,
    ticks_in_round_two: bool,
) -> Result<Settled, RouteError> {
    let mut stages = 0u32;
    // Round trip 1.
    let mut batch = Batch::new();
    let reference = usd::ReferenceLookups::add(&mut batch, chain);
    let usdc = erc20::metadata(&mut batch, chain.usdc());
    let first = FirstRead::add(&mut batch, chain, request.pool)?;
    let results = reader.execute(batch).await?;
    stages += 1;
    let reference_pools = reference.decode(&results);
    let usdc_decimals = usdc.decode(&results).decimals;
    let mut found = first.decode(&results, chain, key)?;
    if let (false, first::Found::Claimed { cl, .. }) = (ticks_in_round_two, &mut found) {
        *cl = None;
    }

    // Round trip 2.
    let mut batch = Batch::new();
    let references = usd::ReferenceStates::add(&mut batch, chain, reference_pools);
    let second = SecondRead::add(&mut batch, chain, found, &request.depth_percents);
    let results = reader.execute(batch).await?;
    stages += 1;
    let reference = references.deepest(&results);
    let Chosen {
        pool,
        state,
        metadata,
        balances,
        compared,
        ticks,
    } = second.decode(&results)?;
    // A V4 pool's mid and the concentrated reference's take no decimals: a pool by PoolId is
    // priced before its tokens' metadata is read.
    let prices: Vec<Result<UsdPrice, RouteError>> = [pool.token0, pool.token1]
        .iter()
        .map(|token| usd::usd_price(chain, *token, &pool, &state, &metadata, reference.as_ref()))
        .collect();

    // Exit amounts from the USD prices.
    let unit = usdc_decimals
        .clone()
        .ok()
        .and_then(|decimals| decimal_units::pow10(decimals).ok());
    let mut exits_wanted = Vec::new();
    for &size in &request.exit_sizes_usd {
        for (token, price) in [pool.token0, pool.token1].into_iter().zip(&prices) {
            let amount = match (price, unit) {
                (Ok(price), Some(unit)) => price.amount_for(U256::from(size) * unit),
                (Err(error), _) => Err(error.clone()),
                (_, None) => Err(RouteError::DecimalsUnknown {
                    token: chain.usdc(),
                }),
            };
            exits_wanted.push((size, token, amount));
        }
    }
    let pool_key_source = match key {
        Some(key) => Some(key.resolve(chain)?.1),
        None => None,
    };
    let tokens = match pool_key_source {
        Some(_) => SettledTokens::Late { balances, prices },
        None => SettledTokens::Read {
            tokens: pool_tokens(&pool, &metadata, balances, prices)?,
            metadata,
        },
    };
    Ok(Settled {
        pool,
        state,
        tokens,
        compared,
        pool_key_source,
        usdc_decimals,
        ticks,
        exits_wanted,
        stages,
    })
}

/// Round trip 3's batch (concentrated liquidity): the tokens' metadata when it is late, the
/// tick words not read yet and the quotes.
fn round_three(
    chain: &ChainInfo,
    request: &LiquidityRequest,
    settled: &Settled,
    ticks: Option<TickRead>,
) -> (
    Batch,
    Option<TickRead>,
    exit::PendingExits,
    Option<[MetadataSlots; 2]>,
) {
    let mut batch = Batch::new();
    let pool = settled.pool;
    let metadata = matches!(settled.tokens, SettledTokens::Late { .. }).then(|| {
        [
            erc20::metadata(&mut batch, pool.token0),
            erc20::metadata(&mut batch, pool.token1),
        ]
    });
    let kind = kinds::of_pool(&pool);
    let ticks = match (kind.tick_walk(&pool, &settled.state), ticks) {
        (Some(walk), None) => Some(TickRead::add(
            &mut batch,
            chain,
            &pool,
            walk,
            &request.depth_percents,
        )),
        (_, ticks) => ticks,
    };
    let exits = exit::PendingExits::add(&mut batch, chain, pool, settled.exits_wanted.clone());
    (batch, ticks, exits, metadata)
}

/// Round trips 3 and 4: the ticks and quotes, then the exits and depth.
async fn finish(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
    mut settled: Settled,
) -> Result<PoolLiquidity, RouteError> {
    let ticks = settled.ticks.take();
    let (batch, mut ticks, exits, late_metadata) = round_three(chain, request, &settled, ticks);
    let Settled {
        pool,
        state,
        tokens,
        compared,
        usdc_decimals,
        mut stages,
        pool_key_source,
        ..
    } = settled;
    let results = if batch.is_empty() {
        None
    } else {
        stages += 1;
        Some(reader.execute(batch).await?)
    };
    let (metadata, tokens) = match (tokens, late_metadata, results.as_ref()) {
        (SettledTokens::Read { metadata, tokens }, _, _) => (metadata, tokens),
        (SettledTokens::Late { balances, prices }, Some(slots), Some(results)) => {
            let metadata: Vec<TokenMetadata> = slots.iter().map(|m| m.decode(results)).collect();
            let tokens = pool_tokens(&pool, &metadata, balances, prices)?;
            (metadata, tokens)
        }
        (SettledTokens::Late { .. }, _, _) => {
            return Err(RouteError::DecimalsUnknown { token: pool.token0 });
        }
    };
    if let (Some(read), Some(results)) = (ticks.as_mut(), results.as_ref()) {
        read.settle(results);
    }
    // Round trip 4 only without a TickLens: the ticks the bitmap words marked.
    if let Some(read) = ticks.as_mut().filter(|read| read.needs_ticks()) {
        let mut batch = Batch::new();
        let slots = read.add_ticks(&mut batch, chain, &pool);
        let results = reader.execute(batch).await?;
        stages += 1;
        read.settle_ticks(&results, slots);
    }
    let ticks = ticks.map(TickRead::finish);
    let read_ticks = match &ticks {
        Some(Ok((map, coverage))) => Some((map, coverage.sqrt_price_edges()?)),
        _ => None,
    };
    let exits = exits.settle(results.as_ref(), &pool, &state, &metadata, read_ticks);

    let (depth, coverage) = kinds::of_pool(&pool).depth(
        &pool,
        &state,
        (tokens[0].decimals, tokens[1].decimals),
        ticks,
        &request.depth_percents,
    );

    let block = reader
        .block()
        .ok_or_else(|| ChainReadError::Decode("no block pinned".to_owned()))?;
    Ok(PoolLiquidity {
        block,
        pool,
        state,
        tokens,
        compared,
        usdc_decimals,
        exits,
        depth,
        ticks: coverage,
        sequential_round_trips: stages,
        read_path: ReadPath::Lens,
        pool_key_source,
    })
}

fn pool_tokens(
    pool: &Pool,
    metadata: &[TokenMetadata],
    balances: [Result<U256, RouteError>; 2],
    prices: Vec<Result<UsdPrice, RouteError>>,
) -> Result<[PoolToken; 2], RouteError> {
    let [balance0, balance1] = balances;
    let mut prices = prices.into_iter();
    let mut token = |address: Address, balance| -> Result<PoolToken, RouteError> {
        let metadata = metadata
            .iter()
            .find(|m| m.address == address)
            .cloned()
            .ok_or(RouteError::DecimalsUnknown { token: address })?;
        let decimals = metadata
            .decimals
            .clone()
            .map_err(|failure| RouteError::Call {
                what: "decimals",
                failure,
            })?;
        Ok(PoolToken {
            metadata,
            decimals,
            balance,
            usd: prices
                .next()
                .unwrap_or(Err(RouteError::NoUsdRoute { token: address })),
        })
    };
    Ok([token(pool.token0, balance0)?, token(pool.token1, balance1)?])
}
