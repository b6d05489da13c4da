//! Round trip 1, discovery: the block pin, the tokens' metadata and every DEX's pools for
//! every pair of the plan, optionally with `eth_gasPrice` in the same HTTP request.
//!
//! [`PoolLookups`] is the pool selection on its own (the factory lookups of every DEX of a
//! chain for a list of pairs, added to any [`Batch`]), for reads that need pools without a
//! quote.

use alloy::primitives::{Address, U256};
use chain_read::dex::Pool;
use chain_read::dex::sort_tokens;
use chain_read::erc20::{self, TokenMetadata};
use chain_read::{Batch, BatchResults, BlockPin, ChainInfo, ChainReadError, DexId, PinnedReader};

use crate::error::RouteError;
use crate::kinds::{self, Decode, Probe};
use crate::outcome::{Failure, FailureReason, token_metadata};
use crate::plan::{LegRole, Pair, QuotePlan};

impl<'c> QuotePlan<'c> {
    /// Round trip 1: pools of every DEX for every pair, token metadata, the block pin.
    pub async fn discover(self, reader: &PinnedReader) -> Result<Discovery<'c>, RouteError> {
        let start = reader.round_trips();
        let mut batch = Batch::new();
        let metadata: Vec<_> = self
            .tokens()
            .iter()
            .map(|token| erc20::metadata(&mut batch, *token))
            .collect();
        let lookups = PoolLookups::add(&mut batch, self.chain, &self.unique_pairs());

        let (results, gas_price) = if self.request.read_gas_price {
            let (results, gas_price) = reader.execute_with_gas_price(batch).await?;
            (results, Some(gas_price))
        } else {
            (reader.execute(batch).await?, None)
        };
        let block = reader
            .block()
            .ok_or_else(|| ChainReadError::Decode("no block pinned after discovery".to_owned()))?;

        let mut failures = not_deployed(self.chain, self.request.token_in, self.request.token_out);
        let pools = lookups.decode(&results, &mut failures);
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

    /// The tokens whose metadata discovery reads: `token_in`, `token_out`, the
    /// intermediates, and the wrapped native token when a reference is asked for.
    pub(crate) fn tokens(&self) -> Vec<Address> {
        let mut tokens = vec![self.request.token_in, self.request.token_out];
        tokens.extend(&self.intermediates);
        let native = self.chain.wrapped_native();
        if self.request.native_reference_amount.is_some()
            && !native.is_zero()
            && !tokens.contains(&native)
        {
            tokens.push(native);
        }
        tokens
    }
}

/// A [`Failure`] of every DEX the chain's registry entry has no deployment of, on the direct
/// pair.
pub fn not_deployed(chain: &ChainInfo, token_in: Address, token_out: Address) -> Vec<Failure> {
    DexId::ALL
        .into_iter()
        .filter(|id| chain.dex(*id).is_none())
        .map(|dex| Failure {
            dex,
            role: LegRole::Direct,
            token_in,
            token_out,
            variant: None,
            pool: None,
            reason: FailureReason::NotDeployed,
        })
        .collect()
}

/// Pending factory lookups of every DEX of a chain for a list of pairs: for concentrated
/// liquidity every configured fee tier (`feeAmountTickSpacing` probes and `getPool`), for
/// constant product `getPair`, for Solidly the volatile and the stable `getPool`.
///
/// A read that needs a pair's pools and their state but no route (pool depth, MEV exposure)
/// takes them in two round trips at one block:
///
/// ```rust,no_run
/// use chain_read::{Batch, ChainInfo, PinnedReader};
/// use dex_route::{LegRole, Pair, PoolLookups, PoolStateReads, RouteError, not_deployed};
/// # use alloy::primitives::Address;
///
/// # async fn example(reader: &PinnedReader, chain: &ChainInfo, a: Address, b: Address)
/// # -> Result<(), RouteError> {
/// let pair = Pair { token_in: a, token_out: b, role: LegRole::Direct };
/// let mut batch = Batch::new();
/// let lookups = PoolLookups::add(&mut batch, chain, &[pair]);
/// let results = reader.execute(batch).await?;
/// let mut failures = not_deployed(chain, a, b);
/// let pools = lookups.decode(&results, &mut failures);
///
/// let mut batch = Batch::new();
/// let reads = PoolStateReads::add(&mut batch, chain, &pools);
/// let states = reader.execute(batch).await?;
/// for (pool, state) in reads.decode(&states) {
///     println!("{pool}: {state:?}");
/// }
/// # Ok(())
/// # }
/// ```
pub struct PoolLookups {
    dexes: Vec<(chain_read::Dex, Decode<Vec<Probe>>)>,
}

impl std::fmt::Debug for PoolLookups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The pending decoders print nothing useful.
        f.debug_struct("PoolLookups")
            .field("dexes", &self.dexes.len())
            .finish_non_exhaustive()
    }
}

impl PoolLookups {
    /// Adds the lookups of every DEX of `chain` for every pair to `batch`. Give each sorted
    /// pair once: the role of the pair given is the one its failures carry.
    pub fn add(batch: &mut Batch, chain: &ChainInfo, pairs: &[Pair]) -> Self {
        Self::add_of(batch, chain, chain.dexes(), pairs)
    }

    /// [`add`](Self::add) for one DEX of `chain` only (none when the chain does not have it).
    pub fn add_dex(batch: &mut Batch, chain: &ChainInfo, dex: DexId, pairs: &[Pair]) -> Self {
        Self::add_of(batch, chain, chain.dexes().filter(|d| d.id == dex), pairs)
    }

    fn add_of<'d>(
        batch: &mut Batch,
        chain: &ChainInfo,
        dexes: impl Iterator<Item = &'d chain_read::Dex>,
        pairs: &[Pair],
    ) -> Self {
        let dexes = dexes
            .map(|dex| {
                (
                    dex.clone(),
                    kinds::of(dex.kind()).lookups(batch, chain, dex, pairs),
                )
            })
            .collect();
        Self { dexes }
    }

    /// The pools found, in DEX and pair order; every tier not enabled, pair without a pool
    /// and failed lookup is added to `failures`.
    pub fn decode(self, results: &BatchResults, failures: &mut Vec<Failure>) -> Vec<Pool> {
        let mut pools = Vec::new();
        for (dex, decode) in self.dexes {
            kinds::settle_probes(&dex, decode(results), &mut pools, failures);
        }
        pools
    }
}

/// What discovery found; [`quote`](Self::quote) prices it.
#[derive(Debug, Clone)]
pub struct Discovery<'c> {
    pub(crate) plan: QuotePlan<'c>,
    pub(crate) block: BlockPin,
    pub(crate) read_blocks: Vec<u64>,
    pub(crate) tokens: Vec<TokenMetadata>,
    pub(crate) pools: Vec<Pool>,
    pub(crate) failures: Vec<Failure>,
    pub(crate) start: u32,
    pub(crate) gas_price: Option<Result<u128, chain_read::GasPriceError>>,
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
    /// The metadata read for `token`, if it was one of the planned tokens.
    pub fn token(&self, token: Address) -> Option<&TokenMetadata> {
        token_metadata(&self.tokens, token)
    }

    /// `eth_gasPrice` read with discovery, when asked for.
    pub fn gas_price(&self) -> Option<&Result<u128, chain_read::GasPriceError>> {
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

    /// The pools found for the pair of `token_a` and `token_b`, in either order.
    pub fn pools_of(&self, token_a: Address, token_b: Address) -> impl Iterator<Item = &Pool> {
        let key = sort_tokens(token_a, token_b);
        self.pools
            .iter()
            .filter(move |pool| (pool.token0, pool.token1) == key)
    }
}
