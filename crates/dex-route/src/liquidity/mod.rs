//! One pool read at one pinned block: its tokens, state and balances, the capital within
//! bands around its price, and exit quotes for USD sizes in both directions.
//!
//! Round trips (sequential `eth_call`s of Multicall3 batches):
//!
//! | pool named by | 1 | 2 | 3 |
//! |---|---|---|---|
//! | address | `token0`, `token1`, `factory`, `slot0`, `tickSpacing`; reference lookups | state, metadata, balances, the factory's own lookup (the pool must be its), reference states, TickLens words | QuoterV2 exits |
//! | tokens + DEX | the DEX's lookups for the pair, metadata, reference lookups | every tier's state and balances, reference states | TickLens words, QuoterV2 exits |
//!
//! Constant-product and Solidly pools stop after round trip 2: their exits are computed from
//! the reserves read there. A chain whose registry has no TickLens reads bitmap words instead
//! and the ticks in one more round trip.

pub mod depth;
pub mod exit;
pub mod usd;

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256, U512};
use chain_read::dex::concentrated::{self, InitializedTick};
use chain_read::dex::{
    self as adapters, ClaimedPool, Pool, PoolKey, PoolState, constant_product, solidly,
};
use chain_read::erc20::{self, BalanceSlot, MetadataSlots, TokenMetadata};
use chain_read::{
    Batch, BatchResults, BlockPin, CallFailure, ChainInfo, ChainReadError, DexContracts, DexId,
    PinnedReader,
};
use dex_math::Ratio;

use crate::discovery::PoolLookups;
use crate::error::RouteError;
use crate::legs::PoolStateReads;
use crate::plan::{LegRole, Pair};
use crate::pricing::pool_mid;

pub use depth::BandCapital;
pub use exit::{ExitQuote, ExitRow};
pub use usd::{UsdPrice, UsdRoute};

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
    /// The pool's `balanceOf` of the token: what it holds, fees not yet collected included.
    pub balance: Result<U256, CallFailure>,
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
            let balance = token.balance.clone().map_err(|failure| RouteError::Call {
                what: "balanceOf",
                failure,
            })?;
            total += token.usd.clone()?.value(balance);
        }
        Ok(total)
    }

    fn metadata(&self) -> Vec<TokenMetadata> {
        self.tokens.iter().map(|t| t.metadata.clone()).collect()
    }
}

/// Reads the pool at one block.
pub async fn read_pool_liquidity(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
) -> Result<PoolLiquidity, RouteError> {
    read_pool_liquidity_with(chain, reader, request, |_| ()).await
}

/// [`read_pool_liquidity`], calling `on_chosen` as soon as the pool is known (after round
/// trip 2, before the quotes): a caller can start reads about the pool elsewhere (volume from
/// a foreign source) while the quotes run.
pub async fn read_pool_liquidity_with(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
    on_chosen: impl FnOnce(&Pool),
) -> Result<PoolLiquidity, RouteError> {
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
    let found = first.decode(&results, chain)?;

    // Round trip 2.
    let mut batch = Batch::new();
    let references = usd::ReferenceStates::add(&mut batch, chain, reference_pools);
    let second = SecondRead::add(&mut batch, chain, found, &request.depth_percents);
    let results = reader.execute(batch).await?;
    stages += 1;
    let reference = references.deepest(&results);
    let chosen = second.decode(&results)?;
    let Chosen {
        pool,
        state,
        metadata,
        balances,
        compared,
        mut ticks,
    } = chosen;
    on_chosen(&pool);
    let prices: Vec<Result<UsdPrice, RouteError>> = [pool.token0, pool.token1]
        .iter()
        .map(|token| usd::usd_price(chain, *token, &pool, &state, &metadata, reference.as_ref()))
        .collect();
    let tokens = pool_tokens(&pool, &metadata, balances, prices)?;

    // Exit amounts from the USD prices.
    let unit = usdc_decimals
        .clone()
        .ok()
        .and_then(|decimals| decimal_units::pow10(decimals).ok());
    let mut exits_wanted = Vec::new();
    for &size in &request.exit_sizes_usd {
        for token in &tokens {
            let amount = match (&token.usd, unit) {
                (Ok(price), Some(unit)) => price.amount_for(U256::from(size) * unit),
                (Err(error), _) => Err(error.clone()),
                (_, None) => Err(RouteError::DecimalsUnknown {
                    token: chain.usdc(),
                }),
            };
            exits_wanted.push((size, token.metadata.address, amount));
        }
    }

    // Round trip 3 (concentrated liquidity): the remaining tick reads and the quotes.
    let mut batch = Batch::new();
    if let (PoolState::Concentrated(cl), None) = (state, &ticks) {
        ticks = Some(TickRead::add(
            &mut batch,
            chain,
            &pool,
            cl.sqrt_price_x96,
            cl.tick,
            cl.tick_spacing,
            &request.depth_percents,
        ));
    }
    let exits = exit::PendingExits::add(&mut batch, chain, pool, exits_wanted);
    let results = if batch.is_empty() {
        None
    } else {
        stages += 1;
        Some(reader.execute(batch).await?)
    };
    if let (Some(read), Some(results)) = (ticks.as_mut(), results.as_ref()) {
        read.settle(results);
    }
    // Round trip 4 only without a TickLens: the ticks the bitmap words marked.
    if let Some(read) = ticks.as_mut().filter(|read| read.needs_ticks()) {
        let mut batch = Batch::new();
        let slots = read.add_ticks(&mut batch, &pool);
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

    let (depth, coverage) = match state {
        PoolState::Concentrated(cl) => match ticks {
            Some(Ok((map, coverage))) => (
                depth::concentrated_bands(
                    depth::ClSnapshot {
                        sqrt_price_x96: cl.sqrt_price_x96,
                        tick: cl.tick,
                        liquidity: cl.liquidity,
                        ticks: &map,
                    },
                    &request.depth_percents,
                )
                .map_err(RouteError::Math),
                Some(coverage),
            ),
            Some(Err(error)) => (Err(error), None),
            None => (
                Err(RouteError::PoolStateNotRead { pool: pool.address }),
                None,
            ),
        },
        PoolState::ConstantProduct(reserves) => (
            depth::constant_product_bands(
                reserves.reserve0,
                reserves.reserve1,
                &request.depth_percents,
            )
            .map_err(RouteError::Math),
            None,
        ),
        PoolState::Solidly { reserves, fee_bps } => match pool.key {
            PoolKey::Solidly { stable: false } => (
                depth::constant_product_bands(
                    reserves.reserve0,
                    reserves.reserve1,
                    &request.depth_percents,
                )
                .map_err(RouteError::Math),
                None,
            ),
            _ => (
                dex_math::SolidlyPool::new(
                    reserves.reserve0,
                    reserves.reserve1,
                    tokens[0].decimals,
                    tokens[1].decimals,
                    true,
                    fee_bps,
                )
                .and_then(|curve| depth::solidly_stable_bands(&curve, &request.depth_percents))
                .map_err(RouteError::Math),
                None,
            ),
        },
    };

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
    })
}

fn pool_tokens(
    pool: &Pool,
    metadata: &[TokenMetadata],
    balances: [Result<U256, CallFailure>; 2],
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

/// Round trip 1 reads of the pool itself.
#[derive(Debug)]
enum FirstRead {
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
enum Found {
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
    fn add(batch: &mut Batch, chain: &ChainInfo, pool: PoolRef) -> Result<Self, RouteError> {
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

    fn decode(self, results: &BatchResults, chain: &ChainInfo) -> Result<Found, RouteError> {
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

/// Round trip 2 reads.
// One value per request, never moved in bulk: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum SecondRead {
    Claimed {
        pool: Pool,
        confirm: Confirmation,
        states: PoolStateReads,
        metadata: [MetadataSlots; 2],
        balances: [BalanceSlot; 2],
        ticks: Option<TickRead>,
    },
    Candidates {
        pools: Vec<Pool>,
        metadata: Vec<TokenMetadata>,
        states: PoolStateReads,
        balances: Vec<[BalanceSlot; 2]>,
    },
}

#[derive(Debug)]
enum Confirmation {
    Concentrated(adapters::PoolLookup<chain_read::bindings::IUniswapV3Factory::getPoolCall>),
    ConstantProduct(adapters::PoolLookup<chain_read::bindings::IUniswapV2Factory::getPairCall>),
    Solidly(adapters::PoolLookup<chain_read::bindings::ISolidlyFactory::getPoolCall>),
}

/// The pool chosen after round trip 2.
#[derive(Debug)]
struct Chosen {
    pool: Pool,
    state: PoolState,
    metadata: Vec<TokenMetadata>,
    balances: [Result<U256, CallFailure>; 2],
    compared: Vec<TierCandidate>,
    ticks: Option<TickRead>,
}

fn balances(batch: &mut Batch, pool: &Pool) -> [BalanceSlot; 2] {
    [
        erc20::balance_of(batch, pool.token0, pool.address),
        erc20::balance_of(batch, pool.token1, pool.address),
    ]
}

impl SecondRead {
    fn add(batch: &mut Batch, chain: &ChainInfo, found: Found, percents: &[u32]) -> Self {
        match found {
            Found::Claimed { pool, cl } => {
                let factory = chain.dex(pool.dex).map(|d| d.factory()).unwrap_or_default();
                let confirm = match pool.key {
                    PoolKey::Concentrated { fee, .. } => Confirmation::Concentrated(
                        concentrated::get_pool(batch, factory, pool.token0, pool.token1, fee),
                    ),
                    PoolKey::ConstantProduct { .. } => Confirmation::ConstantProduct(
                        constant_product::get_pair(batch, factory, pool.token0, pool.token1),
                    ),
                    PoolKey::Solidly { stable } => Confirmation::Solidly(solidly::get_pool(
                        batch,
                        factory,
                        pool.token0,
                        pool.token1,
                        stable,
                    )),
                };
                let ticks = cl.map(|(sqrt_price, tick, spacing)| {
                    TickRead::add(batch, chain, &pool, sqrt_price, tick, spacing, percents)
                });
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
            Found::Candidates { pools, metadata } => Self::Candidates {
                states: PoolStateReads::add(batch, chain, &pools),
                balances: pools.iter().map(|pool| balances(batch, pool)).collect(),
                pools,
                metadata,
            },
        }
    }

    fn decode(self, results: &BatchResults) -> Result<Chosen, RouteError> {
        match self {
            Self::Claimed {
                pool,
                confirm,
                states,
                metadata,
                balances,
                ticks,
            } => {
                let address = pool.address;
                let confirmed = match &confirm {
                    Confirmation::Concentrated(lookup) => lookup.decode(results),
                    Confirmation::ConstantProduct(lookup) => lookup.decode(results),
                    Confirmation::Solidly(lookup) => lookup.decode(results),
                };
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
                    pool,
                    state,
                    metadata: metadata.iter().map(|m| m.decode(results)).collect(),
                    balances: balances.map(|slot| slot.decode(results)),
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
                        Some(Ok(state)) => {
                            let [b0, b1] = balances[index].map(|slot| slot.decode(results));
                            value_in_token1(pool, state, &metadata, b0, b1)
                        }
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
                    pool,
                    state,
                    metadata,
                    balances: balances[index].map(|slot| slot.decode(results)),
                    compared,
                    ticks: None,
                })
            }
        }
    }
}

/// A candidate's balances valued at its own mid price, raw token1 units.
fn value_in_token1(
    pool: &Pool,
    state: &PoolState,
    metadata: &[TokenMetadata],
    balance0: Result<U256, CallFailure>,
    balance1: Result<U256, CallFailure>,
) -> Result<U256, RouteError> {
    let call = |failure| RouteError::Call {
        what: "balanceOf",
        failure,
    };
    let (balance0, balance1) = (balance0.map_err(call)?, balance1.map_err(call)?);
    let mid = pool_mid(pool, state, pool.token0, metadata)?;
    let value0 = U512::from(balance0) * mid.numerator / mid.denominator;
    Ok(value0.saturating_to::<U256>().saturating_add(balance1))
}

/// The initialized ticks of the bitmap words around the price, by TickLens or bitmap.
#[derive(Debug)]
struct TickRead {
    words: (i16, i16),
    source: TickSource,
    lens: Vec<concentrated::TickWordSlot>,
    bitmap: Vec<concentrated::BitmapWordSlot>,
    tick_spacing: i32,
    marked: Option<Result<Vec<i32>, CallFailure>>,
    ticks: Option<Result<BTreeMap<i32, i128>, CallFailure>>,
}

impl TickRead {
    /// Adds the reads of every word between the lowest and highest band target.
    fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        sqrt_price_x96: U256,
        tick: i32,
        tick_spacing: i32,
        percents: &[u32],
    ) -> Self {
        let widest = percents.iter().copied().max().unwrap_or(0);
        let (low_tick, high_tick) = depth::band_targets(sqrt_price_x96, widest)
            .ok()
            .and_then(|(low, high)| {
                Some((
                    dex_math::tick_math::get_tick_at_sqrt_ratio(low).ok()?,
                    dex_math::tick_math::get_tick_at_sqrt_ratio(high).ok()?,
                ))
            })
            .unwrap_or((tick, tick));
        let first = concentrated::word_of_tick(low_tick.min(tick), tick_spacing);
        let last = concentrated::word_of_tick(high_tick.max(tick), tick_spacing);
        let last = last.min(first.saturating_add(MAX_TICK_WORDS as i16 - 1));
        let lens = match chain.dex(pool.dex).map(|d| &d.contracts) {
            Some(DexContracts::ConcentratedLiquidity {
                tick_lens: Some(lens),
                ..
            }) => Some(*lens),
            _ => None,
        };
        let mut read = Self {
            words: (first, last),
            source: if lens.is_some() {
                TickSource::TickLens
            } else {
                TickSource::Bitmap
            },
            lens: Vec::new(),
            bitmap: Vec::new(),
            tick_spacing,
            marked: None,
            ticks: None,
        };
        for word in first..=last {
            match lens {
                Some(lens) => read.lens.push(concentrated::populated_ticks(
                    batch,
                    lens,
                    pool.address,
                    word,
                )),
                None => read
                    .bitmap
                    .push(concentrated::tick_bitmap_word(batch, pool.address, word)),
            }
        }
        read
    }

    /// Decodes the words from the batch they were added to.
    fn settle(&mut self, results: &BatchResults) {
        if self.ticks.is_some() || self.marked.is_some() {
            return;
        }
        match self.source {
            TickSource::TickLens => {
                let mut ticks = BTreeMap::new();
                let decoded: Result<(), CallFailure> = self.lens.iter().try_for_each(|slot| {
                    for InitializedTick {
                        tick,
                        liquidity_net,
                    } in slot.decode(results)?
                    {
                        ticks.insert(tick, liquidity_net);
                    }
                    Ok(())
                });
                self.ticks = Some(decoded.map(|()| ticks));
            }
            TickSource::Bitmap => {
                let spacing = self.tick_spacing;
                self.marked = Some(
                    self.bitmap
                        .iter()
                        .map(|slot| slot.decode(results, spacing))
                        .collect::<Result<Vec<Vec<i32>>, _>>()
                        .map(|words| words.concat()),
                );
            }
        }
    }

    fn needs_ticks(&self) -> bool {
        self.ticks.is_none() && matches!(self.marked, Some(Ok(_)))
    }

    fn add_ticks(&self, batch: &mut Batch, pool: &Pool) -> Vec<concentrated::TickSlot> {
        match &self.marked {
            Some(Ok(ticks)) => ticks
                .iter()
                .map(|tick| concentrated::tick_info(batch, pool.address, *tick))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn settle_ticks(&mut self, results: &BatchResults, slots: Vec<concentrated::TickSlot>) {
        self.ticks = Some(
            slots
                .iter()
                .map(|slot| slot.decode(results).map(|t| (t.tick, t.liquidity_net)))
                .collect(),
        );
    }

    fn finish(self) -> Result<(BTreeMap<i32, i128>, TickCoverage), RouteError> {
        let failed = |failure| RouteError::Call {
            what: "initialized ticks",
            failure,
        };
        let ticks = match (self.ticks, self.marked) {
            (Some(ticks), _) => ticks.map_err(failed)?,
            (None, Some(Err(failure))) => return Err(failed(failure)),
            _ => {
                return Err(RouteError::Call {
                    what: "initialized ticks",
                    failure: CallFailure::Decode("not read".to_owned()),
                });
            }
        };
        let coverage = TickCoverage {
            words: self.words,
            initialized_ticks: ticks.len(),
            source: self.source,
            tick_spacing: self.tick_spacing,
        };
        Ok((ticks, coverage))
    }
}
