//! The on-chain rows, all at one pinned block in at most three sequential round trips:
//!
//! 1. the feed's `latestRoundData`, `decimals`, `description` (and the sequencer uptime feed's
//!    `latestRoundData` where one is configured); `getPool(asset, USDC, fee)` on every
//!    concentrated-liquidity DEX of the chain for each of its fee tiers; both tokens'
//!    `decimals`;
//! 2. `getRoundData(roundId − 1)`; every pool's `slot0`, `liquidity`, `fee`, `tickSpacing`
//!    and `observe([window, 0])`;
//! 3. the initialized ticks of the deepest pool around its price (TickLens words), for the
//!    capital within ±band. A DEX without a TickLens reads bitmap words here and the ticks
//!    they mark in a fourth round trip, as does a Uniswap V4 pool (StateView's words, then
//!    the ticks).
//!
//! Uniswap V4 pools are found in round trip 1 by their adapter's lookups (StateView
//! `getSlot0` of every registry shape) and read in round trip 2 (StateView); they keep no
//! observations, so the TWAP row reads the deepest V3 pool when a V4 pool is the deepest.
//! Slipstream and Algebra (Integral, V1) pools are found and read the same way, through their
//! adapter (its factory lookups, its state: `slot0`/`fee()` or `globalState`); their depth is
//! the adapter's tick words and ticks, and their oracles (Slipstream's `observe`, Algebra's
//! timepoints) are not read: the TWAP row reads the deepest V3 pool when one of them is the
//! deepest.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256, U512};
use chain_read::dex::concentrated::{self, ClPoolState, InitializedTick};
use chain_read::dex::{Pool, PoolKey, PoolLookup, PoolState};
use chain_read::oracle::{self, FeedEntry, FeedHead, FeedOrigin, Round, TwapRead};
use chain_read::{
    Batch, BlockPin, CallFailure, Chain, ChainInfo, ChainReadError, DexContracts, DexId, DexKind,
    PinnedReader, erc20,
};
use dex_route::liquidity::depth::{ClSnapshot, band_targets, concentrated_bands};
use dex_route::{LegRole, Pair, kinds};

use crate::Price;
use crate::asset::Asset;
use crate::row::{Flag, Kind, PoolCompared, SequencerStatus, SourceRow};
use crate::thresholds::Thresholds;

mod dex;
mod feed;
mod prices;

use self::dex::dex_rows;
use self::feed::aggregator_row;
pub use self::feed::sequencer_flags;
pub use self::prices::{in_range_value_usdc, usd_text, usdc_per_asset};

/// Decimal places of DEX prices (rounded down).
pub const DEX_PRICE_PLACES: u32 = 18;

/// Most bitmap words read around the price.
const MAX_TICK_WORDS: i16 = 16;

/// What the on-chain part produced.
#[derive(Debug, Clone)]
pub struct OnChain {
    /// The block of every read.
    pub block: BlockPin,
    /// Aggregator, DEX spot and DEX TWAP rows of the kinds asked, in that order.
    pub rows: Vec<SourceRow>,
    /// Sentences the answer's assumptions need (a configured feed, the pool choice).
    pub notes: Vec<String>,
}

/// The explorer page of an address on `chain`.
pub fn explorer_url(chain: Chain, address: Address) -> String {
    let host = match chain {
        Chain::Base => "basescan.org",
        Chain::Ethereum => "etherscan.io",
        Chain::Arbitrum => "arbiscan.io",
        Chain::Optimism => "optimistic.etherscan.io",
        Chain::Polygon => "polygonscan.com",
    };
    format!("https://{host}/address/{}", address.to_checksum(None))
}

/// A pool of the asset against USDC found in round trip 1.
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    pub(super) dex: DexId,
    pub(super) fee: u32,
    pub(super) pool: Address,
    /// A pool read through its adapter: a Uniswap V4 pool (its PoolId in the key, its state
    /// StateView's), a Slipstream or an Algebra pool.
    pub(super) v4: Option<Pool>,
}

impl Candidate {
    /// How the pool is named: its address, or a V4 pool's PoolId.
    pub(super) fn label(&self) -> String {
        match self.v4.map(|pool| pool.key) {
            Some(PoolKey::V4 { id, .. }) => id.to_string(),
            _ => self.pool.to_checksum(None),
        }
    }

    /// Whether the asset is the pool's token0 (a native-ether V4 pool's currency0 is ether).
    pub(super) fn asset_is_token0(&self, asset: Address, usdc: Address) -> bool {
        match self.v4.map(|pool| pool.key) {
            Some(PoolKey::V4 {
                native: Some(wrapped),
                ..
            }) => asset == wrapped,
            _ => asset < usdc,
        }
    }

    /// A page a person can open for the pool: its explorer page, or Uniswap's page of a V4
    /// pool (it has no contract of its own).
    pub(super) fn url(&self, chain: Chain) -> String {
        match self.v4.map(|pool| pool.key) {
            Some(PoolKey::V4 { id, .. }) => format!(
                "https://app.uniswap.org/explore/pools/{}/{id}",
                chain.as_str()
            ),
            _ => explorer_url(chain, self.pool),
        }
    }
}

/// Reads the on-chain rows of the kinds asked. Chain trouble (node down, wrong chain) is an
/// error; a feed or pool that does not answer is a row with its reason.
pub async fn on_chain_rows(
    chain: &ChainInfo,
    reader: &PinnedReader,
    asset: Asset,
    kinds: &[Kind],
    thresholds: &Thresholds,
    expected_descriptions: &BTreeMap<String, String>,
) -> Result<OnChain, ChainReadError> {
    let want_feed = kinds.contains(&Kind::Aggregator);
    let want_dex = kinds.contains(&Kind::DexSpot) || kinds.contains(&Kind::DexTwap);
    let pair = asset.feed_pair();
    let mut notes = Vec::new();

    // Round trip 1 (it also pins the block, even when nothing else is asked).
    let mut batch = Batch::new();
    let feed = want_feed.then(|| oracle::feed(chain, &pair)).flatten();
    let feed_slots = feed
        .as_ref()
        .map(|f| oracle::feed_head(&mut batch, f.address));
    let sequencer = want_feed
        .then(|| oracle::sequencer_uptime_feed(chain))
        .flatten()
        .map(|address| (address, oracle::feed_head(&mut batch, address)));
    let usdc = chain.usdc();
    let token = dex_token(chain, asset);
    let mut lookups: Vec<(DexId, u32, PoolLookup<_>)> = Vec::new();
    let mut v4_lookups = Vec::new();
    let mut metadata = None;
    if let (true, Ok(token)) = (want_dex, token.clone()) {
        for dex in chain.dexes().filter(|d| d.id.has_adapter()) {
            if let DexContracts::ConcentratedLiquidity {
                factory, fee_tiers, ..
            } = &dex.contracts
            {
                for fee in fee_tiers {
                    lookups.push((
                        dex.id,
                        *fee,
                        concentrated::get_pool(&mut batch, *factory, token, usdc, *fee),
                    ));
                }
            }
        }
        metadata = Some((
            erc20::metadata(&mut batch, token),
            erc20::metadata(&mut batch, usdc),
        ));
        // Uniswap V4 pools of the pair: the registry's shapes, against the token and (for the
        // wrapped native token) against native ether.
        let pair = Pair {
            token_in: token,
            token_out: usdc,
            role: LegRole::Direct,
        };
        for dex in chain
            .dexes()
            .filter(|d| d.id.has_adapter() && read_by_adapter(d.kind()))
        {
            v4_lookups.push((
                dex.id,
                kinds::of(dex.kind()).lookups(&mut batch, chain, dex, &[pair]),
            ));
        }
    }
    let results = reader.execute(batch).await?;
    let block = reader
        .block()
        .ok_or_else(|| ChainReadError::Decode("no block pinned".to_owned()))?;
    let head = feed_slots.map(|slots| slots.decode(&results));
    let sequencer_head = sequencer.map(|(address, slots)| (address, slots.decode(&results)));
    let mut candidates = Vec::new();
    let mut lookup_failures = Vec::new();
    for (dex, fee, lookup) in &lookups {
        match lookup.decode(&results) {
            Ok(Some(pool)) => candidates.push(Candidate {
                dex: *dex,
                fee: *fee,
                pool,
                v4: None,
            }),
            Ok(None) => {}
            Err(failure) => lookup_failures.push(format!("{dex} {fee} ppm getPool: {failure}")),
        }
    }
    for (dex, lookup) in &v4_lookups {
        for probe in lookup(&results) {
            let (token0, token1) = chain_read::dex::sort_tokens(probe.pair.token_in, usdc);
            match probe.found {
                Ok((address, key)) => candidates.push(Candidate {
                    dex: *dex,
                    // A V4 key holds its fee; the others' fee is in their state (below).
                    fee: match key {
                        PoolKey::V4 { fee, .. } => fee,
                        _ => 0,
                    },
                    pool: address,
                    v4: Some(Pool {
                        dex: *dex,
                        address,
                        token0,
                        token1,
                        key,
                    }),
                }),
                Err(dex_route::FailureReason::NoPool) => {}
                Err(reason) => {
                    let shape = match probe.variant {
                        dex_route::PoolVariant::V4 {
                            fee, tick_spacing, ..
                        } => format!("{fee}/{tick_spacing}"),
                        _ => String::new(),
                    };
                    lookup_failures.push(format!("{dex} {shape} getSlot0: {reason}"));
                }
            }
        }
    }
    let decimals = metadata.map(|(asset_meta, usdc_meta)| {
        (
            asset_meta.decode(&results).decimals,
            usdc_meta.decode(&results).decimals,
        )
    });

    // Round trip 2.
    let mut batch = Batch::new();
    let previous = head
        .as_ref()
        .and_then(|h| h.latest.as_ref().ok())
        .and_then(Round::previous_round_id)
        .zip(feed.as_ref())
        .map(|(id, f)| (id, oracle::round_data(&mut batch, f.address, id)));
    let pool_slots: Vec<_> = candidates
        .iter()
        .map(|c| match &c.v4 {
            // No oracle in a V4 pool: its state only.
            Some(pool) => PoolSlots::V4(kinds::of_pool(pool).state(&mut batch, chain, pool)),
            None => PoolSlots::V3(
                concentrated::pool_state(&mut batch, c.pool),
                oracle::twap(&mut batch, c.pool, thresholds.twap_seconds),
            ),
        })
        .collect();
    let results = if batch.is_empty() {
        None
    } else {
        Some(reader.execute(batch).await?)
    };
    let previous_round = match (&previous, &results) {
        (Some((id, slot)), Some(results)) => Some((*id, slot.decode(results))),
        _ => None,
    };
    let states: Vec<(Result<DexState, CallFailure>, Option<TwapRead>)> = match &results {
        Some(results) => pool_slots
            .iter()
            .map(|slots| match slots {
                PoolSlots::V3(state, twap) => (
                    state.decode(results).map(DexState::Concentrated),
                    Some(twap.decode(results)),
                ),
                PoolSlots::V4(state) => (
                    state(results).and_then(|state| match state {
                        PoolState::V4(v4) => Ok(DexState::Concentrated(ClPoolState {
                            sqrt_price_x96: v4.sqrt_price_x96,
                            tick: v4.tick,
                            liquidity: v4.liquidity,
                            fee: v4.lp_fee,
                            // The key holds it; the rows do not use it.
                            tick_spacing: 0,
                        })),
                        // Slipstream and Algebra: V3's state shape, its fee the pool's own.
                        PoolState::Concentrated(cl) => Ok(DexState::Concentrated(cl)),
                        PoolState::Balancer(state) => Ok(DexState::Balancer(state)),
                        _ => Err(CallFailure::Decode(
                            "not a concentrated or Balancer state".to_owned(),
                        )),
                    }),
                    None,
                ),
            })
            .collect(),
        None => Vec::new(),
    };
    for (candidate, (state, _)) in candidates.iter_mut().zip(&states) {
        match (candidate.v4, state) {
            (Some(pool), Ok(DexState::Concentrated(state)))
                if !matches!(pool.key, PoolKey::V4 { .. }) =>
            {
                candidate.fee = state.fee;
            }
            // getSwapFeePercentage, 18 decimals: 1e12 is a millionth (rounded down).
            (_, Ok(DexState::Balancer(state))) => {
                candidate.fee =
                    (state.swap_fee / U256::from(1_000_000_000_000u64)).saturating_to::<u32>();
            }
            _ => {}
        }
    }

    let mut rows = Vec::new();
    if want_feed {
        rows.push(aggregator_row(
            chain,
            &pair,
            feed.as_ref(),
            head.as_ref(),
            previous_round,
            sequencer_head.as_ref(),
            block.timestamp,
            thresholds,
            expected_descriptions,
            &mut notes,
        ));
    }
    if want_dex {
        let dex_rows = dex_rows(
            chain,
            reader,
            asset,
            token,
            &candidates,
            &lookup_failures,
            &states,
            decimals,
            block,
            thresholds,
            &mut notes,
        )
        .await?;
        rows.extend(dex_rows.into_iter().filter(|row| kinds.contains(&row.kind)));
    }
    Ok(OnChain { block, rows, notes })
}

/// Whether the DEX rows find and read `kind`'s pools through its adapter (round trips 1 and
/// 2), rather than with V3's own `getPool` tiers, `slot0` and `observe`.
pub(super) fn read_by_adapter(kind: DexKind) -> bool {
    matches!(
        kind,
        DexKind::ConcentratedLiquidityV4
            | DexKind::Slipstream
            | DexKind::AlgebraIntegral
            | DexKind::AlgebraV1
            | DexKind::BalancerV2
    )
}

/// Why the asset has no token to find a DEX pool of.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum NoDexToken {
    /// USDC is the other side of every pool asked.
    #[error("USDC is the quote token of the DEX rows: a USDC/USDC pool does not exist")]
    Usdc,
    /// The registry has no verified address of the token on the chain.
    #[error("no verified {symbol} token address on {chain} in the registry")]
    NotInRegistry {
        /// The token's symbol.
        symbol: &'static str,
        /// The chain.
        chain: String,
    },
}

/// A candidate's state as the DEX rows use it.
// A handful per request, never moved in bulk: boxing the Balancer state would only add an
// allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub(super) enum DexState {
    /// A concentrated-liquidity pool (V3, V4, Slipstream, Algebra): price, tick, liquidity
    /// and fee.
    Concentrated(ClPoolState),
    /// A Balancer V2 pool as its adapter read it: the Vault's balances and the pool's maths
    /// (no ticks, no oracle).
    Balancer(chain_read::dex::balancer::BalancerPoolState),
}

/// Round trip 2 reads of one candidate.
enum PoolSlots {
    /// A V3 pool's state and `observe`.
    V3(concentrated::PoolStateSlots, oracle::TwapSlots),
    /// A V4 pool's state through StateView.
    V4(dex_route::kinds::Decode<Result<PoolState, CallFailure>>),
}

/// The asset's token on the chain (the pool side), or why there is none.
fn dex_token(chain: &ChainInfo, asset: Asset) -> Result<Address, NoDexToken> {
    if asset == Asset::Usdc {
        return Err(NoDexToken::Usdc);
    }
    chain
        .token(asset.token_symbol())
        .ok_or_else(|| NoDexToken::NotInRegistry {
            symbol: asset.token_symbol(),
            chain: chain.chain().to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequencer_down_and_grace_are_flagged() {
        assert_eq!(
            sequencer_flags("1", 100, 5000, 3600)[0].flag,
            "sequencer_down"
        );
        assert_eq!(
            sequencer_flags("0", 2000, 5000, 3600)[0].flag,
            "sequencer_grace_period"
        );
        assert!(
            sequencer_flags("0", 1000, 5000, 3600).is_empty(),
            "4000 s ≥ 3600 s"
        );
    }

    #[test]
    fn pool_prices_are_usdc_per_asset_either_way_round() {
        // The devnet's WETH/USDC/500 slot0 (WETH token0, 18 decimals; USDC 6).
        let sqrt = U256::from(4_403_398_021_582_275_839_862_756u128);
        let price = usdc_per_asset(sqrt, true, 18, 6).expect("price");
        assert!(price.to_string().starts_with("3088.9"), "{price}");
        // The same pool read with the tokens the other way round prices 1/P.
        let inverse = usdc_per_asset(sqrt, false, 6, 18).expect("price");
        assert!(inverse.to_string().starts_with("0.000323"), "{inverse}");
        assert_eq!(usd_text(U512::from(123_456_789u64), 6), "123.45");
        assert_eq!(usd_text(U512::from(5u8), 6), "0.00");
    }

    #[test]
    fn in_range_value_counts_both_virtual_reserves() {
        // L = 10^12, √P = 2^96 (P = 1): 2·L either way.
        let one = U256::from(1u8) << 96;
        assert_eq!(
            in_range_value_usdc(1_000_000_000_000, one, true),
            U512::from(2_000_000_000_000u64)
        );
        assert_eq!(
            in_range_value_usdc(1_000_000_000_000, one, false),
            U512::from(2_000_000_000_000u64)
        );
    }
}
