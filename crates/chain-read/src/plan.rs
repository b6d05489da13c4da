//! The `dex_quote` read in at most three sequential round trips, all at one pinned block:
//!
//! 1. **discovery**: every DEX's pools for the direct pair and both hops of every two-hop
//!    route (all concentrated-liquidity fee tiers probed on the factory next to their
//!    `getPool`, constant-product `getPair`, Solidly stable and volatile `getPool`), the tokens'
//!    metadata, and Multicall3's block number;
//! 2. **quotes**: QuoterV2 and Solidly `getAmountOut` quotes of every direct pool and first
//!    leg, then the state of every pool found (reserves, slot0, liquidity, fees; after the
//!    quotes, so that no quote runs on storage the batch has warmed); constant-product legs
//!    are computed from the reserves of the same batch;
//! 3. **second legs**: QuoterV2 and `getAmountOut` from each intermediate token to the output,
//!    with the amount actually received from the best first leg of each pool kind (skipped
//!    when no second leg needs a call).
//!
//! Every DEX without a deployment, fee tier without a pool, and call that failed comes back as
//! a [`Failure`] with its reason; nothing is dropped silently.
//!
//! Optionally, `eth_gasPrice` rides in the HTTP request of round trip 1 (a JSON-RPC batch) and
//! the OP-stack L1 data fee of a representative swap transaction in round trip 2, so a
//! net-of-gas ranking needs no round trip of its own. A caller that only learns the amount
//! from the token's decimals (read in round trip 1) sets it on the [`Discovery`] with
//! [`Discovery::set_amount_in`].

use std::collections::BTreeMap;
use std::fmt;

use alloy::primitives::{Address, U256};

use crate::dex::concentrated::{self, ClQuote};
use crate::dex::{Pool, PoolLookup};
use crate::dex::{PoolKey, PoolState, constant_product, solidly, sort_tokens};
use crate::erc20::{self, TokenMetadata};
use crate::error::ChainReadError;
use crate::l1_fee::{self, L1DataFee};
use crate::multicall::{Batch, BatchResults, BlockPin, CallFailure, PinnedReader};
use crate::registry::{ChainInfo, DexContracts, DexId, DexKind};

/// What to quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// Amount sold, in the token's smallest unit. May be zero until
    /// [`Discovery::set_amount_in`] when the caller converts whole units with the decimals
    /// discovery reads; quoting a zero amount is an error.
    pub amount_in: U256,
    /// Also price routes through one intermediate token.
    pub include_multihop: bool,
    /// Intermediate tokens (those equal to `token_in` or `token_out` are skipped).
    pub intermediates: Vec<Address>,
    /// If set, also quote this amount of the wrapped native token into `token_out` (the price
    /// a net-of-gas ranking converts gas cost with); the native token's metadata is then read
    /// in discovery too.
    pub native_reference_amount: Option<U256>,
    /// Also read `eth_gasPrice`, in the same HTTP request as discovery.
    pub read_gas_price: bool,
    /// Also read the L1 data fee of a representative swap transaction in the quotes round
    /// trip, on chains whose registry entry has an L1 fee oracle.
    pub read_l1_data_fee: bool,
}

impl QuoteRequest {
    /// A request with multi-hop on through the chain's [hop tokens](ChainInfo::hop_tokens) and
    /// no native reference.
    pub fn new(chain: &ChainInfo, token_in: Address, token_out: Address, amount_in: U256) -> Self {
        Self {
            token_in,
            token_out,
            amount_in,
            include_multihop: true,
            intermediates: chain.hop_tokens(),
            native_reference_amount: None,
            read_gas_price: false,
            read_l1_data_fee: false,
        }
    }
}

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
}

impl From<PoolKey> for PoolVariant {
    fn from(key: PoolKey) -> Self {
        match key {
            PoolKey::Concentrated { fee, .. } => PoolVariant::FeeTier(fee),
            PoolKey::ConstantProduct { .. } => PoolVariant::Pair,
            PoolKey::Solidly { stable } => PoolVariant::Solidly { stable },
        }
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
            FailureReason::NotDeployed => f.write_str("not deployed on this chain"),
            FailureReason::FeeTierNotEnabled => f.write_str("fee tier not enabled by the factory"),
            FailureReason::NoPool => f.write_str("no pool for this pair"),
            FailureReason::EmptyPool => f.write_str("pool holds no reserves"),
            FailureReason::ZeroOutput => f.write_str("quote is zero"),
            FailureReason::AmountTooLarge => f.write_str("amount too large for the pool maths"),
            FailureReason::NoFirstLeg => {
                f.write_str("no first leg into the intermediate token gave a quote")
            }
            FailureReason::Call(failure) => failure.fmt(f),
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
    pub gas_price: Option<Result<u128, String>>,
    /// The L1 data fee of a representative swap transaction.
    pub l1_data_fee: L1DataFee,
}

/// Discovery, quotes and second legs in one call.
pub async fn quote(
    reader: &PinnedReader,
    chain: &ChainInfo,
    request: &QuoteRequest,
) -> Result<QuoteOutcome, ChainReadError> {
    QuotePlan::new(chain, request)?
        .discover(reader)
        .await?
        .quote(reader)
        .await
}

#[derive(Debug, Clone, Copy)]
struct PairEntry {
    token_in: Address,
    token_out: Address,
    role: LegRole,
}

/// A validated request, ready for discovery.
#[derive(Debug, Clone)]
pub struct QuotePlan<'c> {
    chain: &'c ChainInfo,
    request: QuoteRequest,
    intermediates: Vec<Address>,
    pairs: Vec<PairEntry>,
}

impl<'c> QuotePlan<'c> {
    /// Checks the request and lists the pairs to discover.
    pub fn new(chain: &'c ChainInfo, request: &QuoteRequest) -> Result<Self, ChainReadError> {
        let (token_in, token_out) = (request.token_in, request.token_out);
        if token_in == token_out {
            return Err(ChainReadError::InvalidInput(
                "token_in and token_out are the same token".to_owned(),
            ));
        }
        let mut intermediates: Vec<Address> = Vec::new();
        if request.include_multihop {
            for via in &request.intermediates {
                if *via != token_in
                    && *via != token_out
                    && !via.is_zero()
                    && !intermediates.contains(via)
                {
                    intermediates.push(*via);
                }
            }
        }
        let mut pairs = vec![PairEntry {
            token_in,
            token_out,
            role: LegRole::Direct,
        }];
        for via in &intermediates {
            pairs.push(PairEntry {
                token_in,
                token_out: *via,
                role: LegRole::FirstLeg { via: *via },
            });
            pairs.push(PairEntry {
                token_in: *via,
                token_out,
                role: LegRole::SecondLeg { via: *via },
            });
        }
        let native = chain.wrapped_native();
        if request.native_reference_amount.is_some() && native != token_out && !native.is_zero() {
            pairs.push(PairEntry {
                token_in: native,
                token_out,
                role: LegRole::NativeReference,
            });
        }
        Ok(Self {
            chain,
            request: request.clone(),
            intermediates,
            pairs,
        })
    }

    /// Pairs by their sorted key, each once (the first role wins for discovery failures).
    fn unique_pairs(&self) -> Vec<PairEntry> {
        let mut seen = Vec::new();
        let mut unique = Vec::new();
        for pair in &self.pairs {
            let key = sort_tokens(pair.token_in, pair.token_out);
            if !seen.contains(&key) {
                seen.push(key);
                unique.push(*pair);
            }
        }
        unique
    }

    /// Round trip 1: pools of every DEX for every pair, token metadata, the block pin.
    pub async fn discover(self, reader: &PinnedReader) -> Result<Discovery<'c>, ChainReadError> {
        let start = reader.round_trips();
        let unique = self.unique_pairs();
        let mut batch = Batch::new();
        let mut tokens = vec![self.request.token_in, self.request.token_out];
        tokens.extend(&self.intermediates);
        let native = self.chain.wrapped_native();
        if self.request.native_reference_amount.is_some()
            && !native.is_zero()
            && !tokens.contains(&native)
        {
            tokens.push(native);
        }
        let metadata: Vec<_> = tokens
            .iter()
            .map(|token| erc20::metadata(&mut batch, *token))
            .collect();

        let mut lookups = Vec::new();
        for dex in self.chain.dexes() {
            match &dex.contracts {
                DexContracts::ConcentratedLiquidity {
                    factory, fee_tiers, ..
                } => {
                    let tiers = concentrated::probe_fee_tiers(&mut batch, *factory, fee_tiers);
                    let mut pools = Vec::new();
                    for pair in &unique {
                        for fee in fee_tiers {
                            let lookup = concentrated::get_pool(
                                &mut batch,
                                *factory,
                                pair.token_in,
                                pair.token_out,
                                *fee,
                            );
                            pools.push((*pair, *fee, lookup));
                        }
                    }
                    lookups.push(Lookup::Concentrated {
                        dex: dex.id,
                        tiers,
                        pools,
                    });
                }
                DexContracts::ConstantProduct {
                    factory, fee_bps, ..
                } => {
                    let mut pairs = Vec::new();
                    for pair in &unique {
                        let lookup = constant_product::get_pair(
                            &mut batch,
                            *factory,
                            pair.token_in,
                            pair.token_out,
                        );
                        pairs.push((*pair, lookup));
                    }
                    lookups.push(Lookup::ConstantProduct {
                        dex: dex.id,
                        fee_bps: *fee_bps,
                        pairs,
                    });
                }
                DexContracts::Solidly { pool_factory, .. } => {
                    let mut pools = Vec::new();
                    for pair in &unique {
                        for stable in [false, true] {
                            let lookup = solidly::get_pool(
                                &mut batch,
                                *pool_factory,
                                pair.token_in,
                                pair.token_out,
                                stable,
                            );
                            pools.push((*pair, stable, lookup));
                        }
                    }
                    lookups.push(Lookup::Solidly { dex: dex.id, pools });
                }
            }
        }

        let (results, gas_price) = if self.request.read_gas_price {
            let (results, gas_price) = reader.execute_with_gas_price(batch).await?;
            (results, Some(gas_price))
        } else {
            (reader.execute(batch).await?, None)
        };
        let block = reader
            .block()
            .ok_or_else(|| ChainReadError::Decode("no block pinned after discovery".to_owned()))?;

        let mut failures = Vec::new();
        for id in DexId::ALL {
            if self.chain.dex(id).is_none() {
                failures.push(Failure {
                    dex: id,
                    role: LegRole::Direct,
                    token_in: self.request.token_in,
                    token_out: self.request.token_out,
                    variant: None,
                    pool: None,
                    reason: FailureReason::NotDeployed,
                });
            }
        }
        let mut pools = Vec::new();
        for lookup in lookups {
            lookup.decode(&results, &mut pools, &mut failures);
        }
        Ok(Discovery {
            tokens: metadata.iter().map(|m| m.decode(&results)).collect(),
            plan: self,
            block,
            read_blocks: vec![results.block_number()],
            pools,
            failures,
            start,
            gas_price,
        })
    }
}

/// Pending factory lookups of one DEX.
enum Lookup {
    Concentrated {
        dex: DexId,
        tiers: concentrated::FeeTierSlots,
        pools: Vec<(
            PairEntry,
            u32,
            PoolLookup<crate::bindings::IUniswapV3Factory::getPoolCall>,
        )>,
    },
    ConstantProduct {
        dex: DexId,
        fee_bps: u32,
        pairs: Vec<(
            PairEntry,
            PoolLookup<crate::bindings::IUniswapV2Factory::getPairCall>,
        )>,
    },
    Solidly {
        dex: DexId,
        pools: Vec<(
            PairEntry,
            bool,
            PoolLookup<crate::bindings::ISolidlyFactory::getPoolCall>,
        )>,
    },
}

impl Lookup {
    fn decode(self, results: &BatchResults, found: &mut Vec<Pool>, failures: &mut Vec<Failure>) {
        let mut fail = |dex, pair: &PairEntry, variant, pool, reason| {
            failures.push(Failure {
                dex,
                role: pair.role,
                token_in: pair.token_in,
                token_out: pair.token_out,
                variant: Some(variant),
                pool,
                reason,
            });
        };
        let pool = |dex, pair: &PairEntry, address, key| {
            let (token0, token1) = sort_tokens(pair.token_in, pair.token_out);
            Pool {
                dex,
                address,
                token0,
                token1,
                key,
            }
        };
        match self {
            Lookup::Concentrated { dex, tiers, pools } => {
                let tiers = tiers.decode(results);
                for (pair, fee, lookup) in pools {
                    let variant = PoolVariant::FeeTier(fee);
                    let spacing = tiers
                        .iter()
                        .find(|tier| tier.fee == fee)
                        .map(|tier| tier.tick_spacing.clone());
                    let tick_spacing = match spacing {
                        Some(Ok(Some(spacing))) => spacing,
                        Some(Ok(None)) => {
                            fail(dex, &pair, variant, None, FailureReason::FeeTierNotEnabled);
                            continue;
                        }
                        Some(Err(failure)) => {
                            fail(dex, &pair, variant, None, FailureReason::Call(failure));
                            continue;
                        }
                        None => {
                            fail(dex, &pair, variant, None, FailureReason::FeeTierNotEnabled);
                            continue;
                        }
                    };
                    match lookup.decode(results) {
                        Ok(Some(address)) => found.push(pool(
                            dex,
                            &pair,
                            address,
                            PoolKey::Concentrated { fee, tick_spacing },
                        )),
                        Ok(None) => fail(dex, &pair, variant, None, FailureReason::NoPool),
                        Err(failure) => {
                            fail(dex, &pair, variant, None, FailureReason::Call(failure));
                        }
                    }
                }
            }
            Lookup::ConstantProduct {
                dex,
                fee_bps,
                pairs,
            } => {
                for (pair, lookup) in pairs {
                    match lookup.decode(results) {
                        Ok(Some(address)) => found.push(pool(
                            dex,
                            &pair,
                            address,
                            PoolKey::ConstantProduct { fee_bps },
                        )),
                        Ok(None) => {
                            fail(dex, &pair, PoolVariant::Pair, None, FailureReason::NoPool)
                        }
                        Err(failure) => fail(
                            dex,
                            &pair,
                            PoolVariant::Pair,
                            None,
                            FailureReason::Call(failure),
                        ),
                    }
                }
            }
            Lookup::Solidly { dex, pools } => {
                for (pair, stable, lookup) in pools {
                    let variant = PoolVariant::Solidly { stable };
                    match lookup.decode(results) {
                        Ok(Some(address)) => {
                            found.push(pool(dex, &pair, address, PoolKey::Solidly { stable }));
                        }
                        Ok(None) => fail(dex, &pair, variant, None, FailureReason::NoPool),
                        Err(failure) => {
                            fail(dex, &pair, variant, None, FailureReason::Call(failure));
                        }
                    }
                }
            }
        }
    }
}

/// What discovery found; [`quote`](Self::quote) prices it.
#[derive(Debug, Clone)]
pub struct Discovery<'c> {
    plan: QuotePlan<'c>,
    block: BlockPin,
    read_blocks: Vec<u64>,
    tokens: Vec<TokenMetadata>,
    pools: Vec<Pool>,
    failures: Vec<Failure>,
    start: u32,
    gas_price: Option<Result<u128, String>>,
}

/// One leg to price.
#[derive(Debug, Clone, Copy)]
struct Job {
    pool: Pool,
    token_in: Address,
    amount_in: U256,
    role: LegRole,
    /// Index of the first leg (in the phase-2 legs) a second leg continues.
    first: Option<usize>,
}

/// A job's pending on-chain quote.
enum Pending {
    Quoter(concentrated::QuoteSlot),
    AmountOut(solidly::AmountOutSlot),
    /// Computed from reserves; nothing to read.
    Reserves,
}

/// A pool's pending state reads.
enum PendingState {
    Concentrated(concentrated::PoolStateSlots),
    ConstantProduct(constant_product::ReservesSlot),
    Solidly(solidly::ReservesSlot, solidly::FeeSlot),
}

impl<'c> Discovery<'c> {
    /// The pinned block.
    pub fn block(&self) -> BlockPin {
        self.block
    }

    /// Every pool found, for every pair.
    pub fn pools(&self) -> &[Pool] {
        &self.pools
    }

    /// Token metadata.
    pub fn tokens(&self) -> &[TokenMetadata] {
        &self.tokens
    }

    /// Failures so far (DEXes not deployed, tiers not enabled, pairs without a pool).
    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    /// The metadata read for `token`, if it was one of the planned tokens.
    pub fn token(&self, token: Address) -> Option<&TokenMetadata> {
        self.tokens.iter().find(|m| m.address == token)
    }

    /// `eth_gasPrice` read with discovery, when asked for.
    pub fn gas_price(&self) -> Option<&Result<u128, String>> {
        self.gas_price.as_ref()
    }

    /// Sets the amount sold, once discovery has read the decimals it is expressed in.
    pub fn set_amount_in(&mut self, amount_in: U256) {
        self.plan.request.amount_in = amount_in;
    }

    /// Sets the wrapped-native reference amount (e.g. one whole token by its decimals). Only
    /// takes effect when the request asked for a reference, since only then was its pair
    /// discovered.
    pub fn set_native_reference_amount(&mut self, amount: U256) {
        if self.plan.request.native_reference_amount.is_some() {
            self.plan.request.native_reference_amount = Some(amount);
        }
    }

    fn pools_of(&self, token_a: Address, token_b: Address) -> impl Iterator<Item = &Pool> {
        let key = sort_tokens(token_a, token_b);
        self.pools
            .iter()
            .filter(move |pool| (pool.token0, pool.token1) == key)
    }

    /// Round trips 2 and 3: pool states and quotes of direct routes and first legs, then second
    /// legs.
    pub async fn quote(mut self, reader: &PinnedReader) -> Result<QuoteOutcome, ChainReadError> {
        let request = self.plan.request.clone();
        let chain = self.plan.chain;
        if request.amount_in.is_zero() {
            return Err(ChainReadError::InvalidInput(
                "amount_in must be above zero".to_owned(),
            ));
        }

        // Round trip 2: the quotes that need no earlier answer, then the state of every pool.
        // Quotes go first: a state read warms the pool's account and slots (EIP-2929) for the
        // rest of the `eth_call`, while a quote reverts and warms nothing, so every QuoterV2
        // `gasEstimate` here is the one a standalone call measures.
        let mut batch = Batch::new();
        let mut jobs = Vec::new();
        for pair in &self.plan.pairs {
            let amount_in = match pair.role {
                LegRole::Direct | LegRole::FirstLeg { .. } => request.amount_in,
                LegRole::NativeReference => match request.native_reference_amount {
                    Some(amount) if !amount.is_zero() => amount,
                    _ => continue,
                },
                LegRole::SecondLeg { .. } => continue,
            };
            for pool in self.pools_of(pair.token_in, pair.token_out) {
                jobs.push(Job {
                    pool: *pool,
                    token_in: pair.token_in,
                    amount_in,
                    role: pair.role,
                    first: None,
                });
            }
        }
        let pending: Vec<Pending> = jobs
            .iter()
            .map(|job| add_quote(&mut batch, chain, job))
            .collect();
        let states: Vec<(Address, PendingState)> = self
            .pools
            .iter()
            .map(|pool| (pool.address, add_state(&mut batch, chain, pool)))
            .collect();
        // The L1 fee rides along only when the round trip is made anyway.
        let l1_slot = match (request.read_l1_data_fee, chain.l1_gas_price_oracle()) {
            (true, Some(oracle)) if !batch.is_empty() => {
                let gas_price = match &self.gas_price {
                    Some(Ok(price)) => *price,
                    _ => 0,
                };
                let transaction = l1_fee::representative_swap_transaction(
                    chain,
                    request.token_in,
                    request.token_out,
                    request.amount_in,
                    gas_price,
                );
                Some(l1_fee::l1_fee(&mut batch, oracle, transaction))
            }
            _ => None,
        };
        let results = if batch.is_empty() {
            None
        } else {
            Some(reader.execute(batch).await?)
        };
        let l1_data_fee = match (
            request.read_l1_data_fee,
            chain.l1_gas_price_oracle(),
            l1_slot,
            &results,
        ) {
            (false, _, _, _) => L1DataFee::NotRequested,
            (true, None, _, _) => L1DataFee::NoOracle,
            (true, Some(_), Some(slot), Some(results)) => slot.decode(results),
            (true, Some(_), _, _) => L1DataFee::NothingToPrice,
        };
        let mut state_of: BTreeMap<Address, Result<PoolState, CallFailure>> = BTreeMap::new();
        if let Some(results) = &results {
            self.read_blocks.push(results.block_number());
            for (address, pending) in &states {
                state_of.insert(*address, decode_state(pending, results));
            }
        }
        let mut first_legs: Vec<Leg> = Vec::new();
        let mut routes = Vec::new();
        let mut native_reference = Vec::new();
        for (job, pending) in jobs.iter().zip(&pending) {
            match settle(job, pending, results.as_ref(), &state_of) {
                Ok(leg) => match job.role {
                    LegRole::Direct => routes.push(Route { legs: vec![leg] }),
                    LegRole::FirstLeg { .. } => first_legs.push(leg),
                    LegRole::NativeReference => native_reference.push(leg),
                    LegRole::SecondLeg { .. } => {}
                },
                Err(reason) => self.failures.push(failure(job, reason)),
            }
        }

        // Round trip 3: second legs from the best first leg of each pool kind per intermediate
        // (output grows with input, so for a given second pool the largest input is best).
        let mut jobs = Vec::new();
        for via in &self.plan.intermediates {
            let mut best: BTreeMap<DexKind, usize> = BTreeMap::new();
            for (index, leg) in first_legs.iter().enumerate() {
                if leg.token_out != *via {
                    continue;
                }
                let kind = kind_of(&leg.pool);
                let better = best
                    .get(&kind)
                    .and_then(|b| first_legs.get(*b))
                    .is_none_or(|b| leg.amount_out > b.amount_out);
                if better {
                    best.insert(kind, index);
                }
            }
            let seconds: Vec<Pool> = self.pools_of(*via, request.token_out).copied().collect();
            if best.is_empty() {
                for pool in seconds {
                    self.failures.push(Failure {
                        dex: pool.dex,
                        role: LegRole::SecondLeg { via: *via },
                        token_in: *via,
                        token_out: request.token_out,
                        variant: Some(pool.key.into()),
                        pool: Some(pool.address),
                        reason: FailureReason::NoFirstLeg,
                    });
                }
                continue;
            }
            for pool in seconds {
                for first in best.values() {
                    if let Some(leg) = first_legs.get(*first) {
                        jobs.push(Job {
                            pool,
                            token_in: *via,
                            amount_in: leg.amount_out,
                            role: LegRole::SecondLeg { via: *via },
                            first: Some(*first),
                        });
                    }
                }
            }
        }
        let mut batch = Batch::new();
        let pending: Vec<Pending> = jobs
            .iter()
            .map(|job| add_quote(&mut batch, chain, job))
            .collect();
        let results = if batch.is_empty() {
            None
        } else {
            Some(reader.execute(batch).await?)
        };
        if let Some(results) = &results {
            self.read_blocks.push(results.block_number());
        }
        for (job, pending) in jobs.iter().zip(&pending) {
            match settle(job, pending, results.as_ref(), &state_of) {
                Ok(second) => {
                    if let Some(first) = job.first.and_then(|i| first_legs.get(i)) {
                        routes.push(Route {
                            legs: vec![first.clone(), second],
                        });
                    }
                }
                Err(reason) => self.failures.push(failure(job, reason)),
            }
        }

        routes.sort_by_key(|route| std::cmp::Reverse(route.amount_out()));
        Ok(QuoteOutcome {
            block: self.block,
            read_blocks: self.read_blocks,
            tokens: self.tokens,
            routes,
            native_reference,
            failures: self.failures,
            round_trips: reader.round_trips().saturating_sub(self.start),
            gas_price: self.gas_price,
            l1_data_fee,
        })
    }
}

fn kind_of(pool: &Pool) -> DexKind {
    match pool.key {
        PoolKey::Concentrated { .. } => DexKind::ConcentratedLiquidity,
        PoolKey::ConstantProduct { .. } => DexKind::ConstantProduct,
        PoolKey::Solidly { .. } => DexKind::Solidly,
    }
}

fn failure(job: &Job, reason: FailureReason) -> Failure {
    Failure {
        dex: job.pool.dex,
        role: job.role,
        token_in: job.token_in,
        token_out: job.pool.other(job.token_in),
        variant: Some(job.pool.key.into()),
        pool: Some(job.pool.address),
        reason,
    }
}

fn add_state(batch: &mut Batch, chain: &ChainInfo, pool: &Pool) -> PendingState {
    match pool.key {
        PoolKey::Concentrated { .. } => {
            PendingState::Concentrated(concentrated::pool_state(batch, pool.address))
        }
        PoolKey::ConstantProduct { .. } => {
            PendingState::ConstantProduct(constant_product::reserves(batch, pool.address))
        }
        PoolKey::Solidly { stable } => {
            let factory = chain.dex(pool.dex).map(|d| d.factory()).unwrap_or_default();
            PendingState::Solidly(
                solidly::reserves(batch, pool.address),
                solidly::fee(batch, factory, pool.address, stable),
            )
        }
    }
}

fn decode_state(pending: &PendingState, results: &BatchResults) -> Result<PoolState, CallFailure> {
    Ok(match pending {
        PendingState::Concentrated(slots) => PoolState::Concentrated(slots.decode(results)?),
        PendingState::ConstantProduct(slot) => PoolState::ConstantProduct(slot.decode(results)?),
        PendingState::Solidly(reserves, fee) => PoolState::Solidly {
            reserves: reserves.decode(results)?,
            fee_bps: fee.decode(results)?,
        },
    })
}

fn add_quote(batch: &mut Batch, chain: &ChainInfo, job: &Job) -> Pending {
    let token_out = job.pool.other(job.token_in);
    match (job.pool.key, chain.dex(job.pool.dex).map(|d| &d.contracts)) {
        (
            PoolKey::Concentrated { fee, .. },
            Some(DexContracts::ConcentratedLiquidity { quoter_v2, .. }),
        ) => Pending::Quoter(concentrated::quote_exact_input_single(
            batch,
            *quoter_v2,
            job.token_in,
            token_out,
            job.amount_in,
            fee,
        )),
        (PoolKey::Solidly { .. }, _) => Pending::AmountOut(solidly::amount_out(
            batch,
            job.pool.address,
            job.amount_in,
            job.token_in,
        )),
        _ => Pending::Reserves,
    }
}

/// The leg of a job from its answers, or why there is none.
fn settle(
    job: &Job,
    pending: &Pending,
    results: Option<&BatchResults>,
    states: &BTreeMap<Address, Result<PoolState, CallFailure>>,
) -> Result<Leg, FailureReason> {
    let state = states.get(&job.pool.address);
    let missing = || FailureReason::Call(CallFailure::Decode("no answer in batch".to_owned()));
    let (amount_out, source, quoter) = match pending {
        Pending::Quoter(slot) => {
            let quote = slot
                .decode(results.ok_or_else(missing)?)
                .map_err(FailureReason::Call)?;
            (quote.amount_out, QuoteSource::QuoterV2, Some(quote))
        }
        Pending::AmountOut(slot) => {
            let out = slot
                .decode(results.ok_or_else(missing)?)
                .map_err(FailureReason::Call)?;
            (out, QuoteSource::PoolGetAmountOut, None)
        }
        Pending::Reserves => {
            let reserves = match state {
                Some(Ok(PoolState::ConstantProduct(reserves))) => *reserves,
                Some(Err(failure)) => return Err(FailureReason::Call(failure.clone())),
                _ => return Err(missing()),
            };
            let fee_bps = match job.pool.key {
                PoolKey::ConstantProduct { fee_bps } => fee_bps,
                _ => return Err(missing()),
            };
            let (reserve_in, reserve_out) = reserves.oriented(job.pool.token0, job.token_in);
            if reserve_in.is_zero() || reserve_out.is_zero() {
                return Err(FailureReason::EmptyPool);
            }
            let out = constant_product::amount_out(job.amount_in, reserve_in, reserve_out, fee_bps)
                .ok_or(FailureReason::AmountTooLarge)?;
            (out, QuoteSource::Reserves, None)
        }
    };
    if amount_out.is_zero() {
        return Err(FailureReason::ZeroOutput);
    }
    Ok(Leg {
        pool: job.pool,
        token_in: job.token_in,
        token_out: job.pool.other(job.token_in),
        amount_in: job.amount_in,
        amount_out,
        source,
        quoter,
        state: state.and_then(|s| s.as_ref().ok().copied()),
    })
}
