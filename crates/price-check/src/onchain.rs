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
//!    they mark in a fourth round trip.

use std::collections::BTreeMap;

use alloy::primitives::{Address, U256, U512};
use chain_read::dex::PoolLookup;
use chain_read::dex::concentrated::{self, ClPoolState, InitializedTick};
use chain_read::oracle::{self, FeedEntry, FeedHead, FeedOrigin, Round, TwapRead};
use chain_read::{
    Batch, BlockPin, CallFailure, Chain, ChainInfo, ChainReadError, DexContracts, DexId,
    PinnedReader, erc20,
};
use dex_route::liquidity::depth::{ClSnapshot, band_targets, concentrated_bands};

use crate::Price;
use crate::asset::Asset;
use crate::row::{Flag, Kind, PoolCompared, SequencerStatus, SourceRow};
use crate::thresholds::Thresholds;

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

/// Flags of the aggregator row from the sequencer uptime feed's `latestRoundData`: answer 1
/// is down; up but changed less than `grace_seconds` before the block is the grace period.
pub fn sequencer_flags(
    answer: &str,
    started_at: u64,
    block_timestamp: u64,
    grace_seconds: u64,
) -> Vec<Flag> {
    let since = block_timestamp.saturating_sub(started_at);
    if answer != "0" {
        return vec![Flag::new(
            "sequencer_down",
            format!("the sequencer uptime feed answers {answer} (0 is up) since {started_at}"),
        )];
    }
    if since < grace_seconds {
        return vec![Flag::new(
            "sequencer_grace_period",
            format!(
                "the sequencer came back up {since} s before the block, inside the {grace_seconds} s grace period"
            ),
        )];
    }
    Vec::new()
}

/// A pool of the asset against USDC found in round trip 1.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    dex: DexId,
    fee: u32,
    pool: Address,
}

/// The price of one asset unit in USDC from a pool's `sqrtPriceX96`, rounded down to
/// [`DEX_PRICE_PLACES`].
pub fn usdc_per_asset(
    sqrt_price_x96: U256,
    asset_is_token0: bool,
    asset_decimals: u8,
    usdc_decimals: u8,
) -> Result<Price, decimal_units::DecimalError> {
    let ten = U512::from(10u8);
    let square = U512::from(sqrt_price_x96) * U512::from(sqrt_price_x96);
    let q192 = U512::from(1u8) << 192;
    let asset_unit = ten.pow(U512::from(asset_decimals));
    let usdc_unit = ten.pow(U512::from(usdc_decimals));
    // token1 per token0 (raw) = sqrtP² / 2^192.
    let (numerator, denominator) = if asset_is_token0 {
        (square * asset_unit, q192 * usdc_unit)
    } else {
        (q192 * asset_unit, square * usdc_unit)
    };
    Price::ratio(numerator, denominator, DEX_PRICE_PLACES)
}

/// `L`'s virtual reserves valued in raw USDC: `2·L·√P` when USDC is token1, `2·L/√P` when it
/// is token0 (both sides of the in-range liquidity at the current price).
pub fn in_range_value_usdc(liquidity: u128, sqrt_price_x96: U256, asset_is_token0: bool) -> U512 {
    let l = U512::from(liquidity);
    let sqrt = U512::from(sqrt_price_x96);
    if sqrt.is_zero() {
        return U512::ZERO;
    }
    if asset_is_token0 {
        (U512::from(2u8) * l * sqrt) >> 96
    } else {
        ((U512::from(2u8) * l) << 96) / sqrt
    }
}

/// Raw USDC units as dollars, rounded down to the cent.
pub fn usd_text(raw: U512, usdc_decimals: u8) -> String {
    let ten = U512::from(10u8);
    let cents = if usdc_decimals >= 2 {
        raw / ten.pow(U512::from(usdc_decimals - 2))
    } else {
        raw * ten.pow(U512::from(2 - usdc_decimals))
    };
    let text = cents.to_string();
    let padded = format!("{text:0>3}");
    let (whole, fraction) = padded.split_at(padded.len() - 2);
    format!("{whole}.{fraction}")
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
            }),
            Ok(None) => {}
            Err(failure) => lookup_failures.push(format!("{dex} {fee} ppm getPool: {failure}")),
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
        .map(|c| {
            (
                concentrated::pool_state(&mut batch, c.pool),
                oracle::twap(&mut batch, c.pool, thresholds.twap_seconds),
            )
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
    let states: Vec<(Result<ClPoolState, CallFailure>, Option<TwapRead>)> = match &results {
        Some(results) => pool_slots
            .iter()
            .map(|(state, twap)| (state.decode(results), Some(twap.decode(results))))
            .collect(),
        None => Vec::new(),
    };

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

/// The asset's token on the chain (the pool side), or why there is none.
fn dex_token(chain: &ChainInfo, asset: Asset) -> Result<Address, String> {
    if asset == Asset::Usdc {
        return Err(
            "USDC is the quote token of the DEX rows: a USDC/USDC pool does not exist".into(),
        );
    }
    chain.token(asset.token_symbol()).ok_or_else(|| {
        format!(
            "no verified {} token address on {} in the registry",
            asset.token_symbol(),
            chain.chain()
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn aggregator_row(
    chain: &ChainInfo,
    pair: &str,
    feed: Option<&FeedEntry>,
    head: Option<&FeedHead>,
    previous: Option<(u128, Result<Round, CallFailure>)>,
    sequencer: Option<&(Address, FeedHead)>,
    block_timestamp: u64,
    thresholds: &Thresholds,
    expected_descriptions: &BTreeMap<String, String>,
    notes: &mut Vec<String>,
) -> SourceRow {
    let mut row = SourceRow::new(Kind::Aggregator, format!("Chainlink {pair} feed"), pair);
    let (Some(feed), Some(head)) = (feed, head) else {
        return row.failed(format!(
            "not available on {}: no verified {pair} feed address (the only built-in feeds are addresses published in aave-address-book; configure contracts.chainlink.\"{pair}\" to read another)",
            chain.chain()
        ));
    };
    row.verify_url = Some(explorer_url(chain.chain(), feed.address));
    row.details.feed_address = Some(feed.address.to_checksum(None));
    row.details.feed_address_source = Some(match feed.origin {
        FeedOrigin::Builtin { citation } => format!("built in ({citation})"),
        FeedOrigin::Configured => "configured (contracts.chainlink)".to_owned(),
    });
    row.details.heartbeat_seconds = Some(None);
    row.details.deviation_threshold = Some(None);
    row.details.heartbeat_null_reason = Some("the heartbeat and deviation threshold are set off chain by the feed's operator and cannot be read from the contract; the observed interval between the last two rounds is given instead".into());
    let description = match &head.description {
        Ok(description) => description.clone(),
        Err(failure) => {
            return row.failed(format!(
                "description() failed ({failure}): the feed is refused"
            ));
        }
    };
    row.details.description = Some(description.clone());
    let accepted = match expected_descriptions.get(pair) {
        Some(expected) => {
            let ok = description.trim() == expected.trim();
            if ok {
                notes.push(format!(
                    "The {pair} feed's description() is {description:?}, accepted because the configuration names that text for {pair} (crosscheck.feed_descriptions); a production feed describes itself as \"{}\".",
                    pair.replace('/', " / ")
                ));
            }
            ok
        }
        None => oracle::description_names(&description, pair),
    };
    if !accepted {
        return row.failed(format!(
            "description() is {description:?}, which does not name {pair}: the feed is refused"
        ));
    }
    let decimals = match &head.decimals {
        Ok(decimals) => *decimals,
        Err(failure) => return row.failed(format!("decimals() failed: {failure}")),
    };
    let latest = match &head.latest {
        Ok(latest) => *latest,
        Err(failure) => return row.failed(format!("latestRoundData() failed: {failure}")),
    };
    row = row
        .raw("answer", latest.answer)
        .raw("decimals", decimals)
        .raw("round_id", latest.round_id)
        .raw("answered_in_round", latest.answered_in_round)
        .raw("started_at", latest.started_at)
        .raw("updated_at", latest.updated_at);
    row.updated_at = Some(latest.updated_at);
    let age = block_timestamp.saturating_sub(latest.updated_at);
    row.age_seconds = Some(age);
    if latest.answer.is_negative() || latest.answer.is_zero() {
        return row.failed(format!("the answer {} is not positive", latest.answer));
    }
    match Price::scaled(latest.answer.unsigned_abs(), -i32::from(decimals)) {
        Ok(price) => row.price = Some(price.to_string()),
        Err(error) => return row.failed(format!("answer × 10^-{decimals}: {error}")),
    }
    let interval = match previous {
        None => Err(format!(
            "round {} is round {} of phase {}: the round before lives in the previous phase's aggregator, so no interval is read",
            latest.round_id,
            latest.aggregator_round_id(),
            latest.phase_id()
        )),
        Some((id, Err(failure))) => Err(format!("getRoundData({id}) failed: {failure}")),
        Some((id, Ok(round))) if round.updated_at == 0 => Err(format!(
            "getRoundData({id}) answered no update time (no such round)"
        )),
        Some((id, Ok(round))) if round.updated_at > latest.updated_at => Err(format!(
            "getRoundData({id}) is newer ({}) than the latest round ({})",
            round.updated_at, latest.updated_at
        )),
        Some((_, Ok(round))) => Ok(latest.updated_at - round.updated_at),
    };
    match interval {
        Ok(interval) => {
            row.details.observed_update_interval_seconds = Some(Some(interval));
            #[allow(clippy::cast_precision_loss)] // seconds, far below 2^53
            let limit = thresholds.staleness_multiple * interval as f64;
            #[allow(clippy::cast_precision_loss)]
            if interval > 0 && age as f64 > limit {
                row.flags.push(Flag::new(
                    "stale",
                    format!(
                        "age {age} s is more than {} × the observed update interval {interval} s",
                        thresholds.staleness_multiple
                    ),
                ));
            }
        }
        Err(reason) => {
            row.details.observed_update_interval_seconds = Some(None);
            row.details.observed_update_interval_null_reason = Some(reason);
        }
    }
    match sequencer {
        Some((address, head)) => match &head.latest {
            Ok(status) => {
                row.flags.extend(sequencer_flags(
                    &status.answer.to_string(),
                    status.started_at,
                    block_timestamp,
                    thresholds.sequencer_grace_seconds,
                ));
                row.details.sequencer = Some(SequencerStatus {
                    feed: address.to_checksum(None),
                    answer: status.answer.to_string(),
                    status_since: status.started_at,
                    seconds_since_change: block_timestamp.saturating_sub(status.started_at),
                });
            }
            Err(failure) => {
                row.details.sequencer_null_reason = Some(format!(
                    "the sequencer uptime feed {address} failed: {failure}"
                ));
            }
        },
        None => {
            row.details.sequencer_null_reason = Some(match chain.chain() {
                Chain::Ethereum | Chain::Polygon => {
                    format!("{} has no L2 sequencer", chain.chain())
                }
                other => format!(
                    "no verified sequencer uptime feed address for {other} (none is built in); configure contracts.chainlink.sequencer_uptime to read one"
                ),
            });
        }
    }
    row
}

#[allow(clippy::too_many_arguments)]
async fn dex_rows(
    chain: &ChainInfo,
    reader: &PinnedReader,
    asset: Asset,
    token: Result<Address, String>,
    candidates: &[Candidate],
    lookup_failures: &[String],
    states: &[(Result<ClPoolState, CallFailure>, Option<TwapRead>)],
    decimals: Option<(Result<u8, CallFailure>, Result<u8, CallFailure>)>,
    block: BlockPin,
    thresholds: &Thresholds,
    notes: &mut Vec<String>,
) -> Result<Vec<SourceRow>, ChainReadError> {
    let symbol = asset.token_symbol();
    let pair = format!("{symbol}/USDC");
    let spot = SourceRow::new(
        Kind::DexSpot,
        "deepest concentrated-liquidity pool, slot0",
        &pair,
    );
    let twap = SourceRow::new(
        Kind::DexTwap,
        format!(
            "deepest concentrated-liquidity pool, {} s TWAP",
            thresholds.twap_seconds
        ),
        &pair,
    );
    let both_fail = |reason: String| {
        Ok(vec![
            spot.clone().failed(reason.clone()),
            twap.clone().failed(reason),
        ])
    };
    let token = match token {
        Ok(token) => token,
        Err(reason) => return both_fail(format!("not available: {reason}")),
    };
    let (asset_decimals, usdc_decimals) = match decimals {
        Some((Ok(a), Ok(u))) => (a, u),
        Some((Err(failure), _)) => {
            return both_fail(format!("{symbol} decimals() failed: {failure}"));
        }
        Some((_, Err(failure))) => return both_fail(format!("USDC decimals() failed: {failure}")),
        None => return both_fail("the token reads were not made".into()),
    };
    if candidates.is_empty() {
        let dexes: Vec<&str> = chain
            .dexes()
            .filter(|d| {
                d.id.has_adapter()
                    && matches!(d.contracts, DexContracts::ConcentratedLiquidity { .. })
            })
            .map(|d| d.id.as_str())
            .collect();
        let mut reason = format!(
            "no {pair} pool at any fee tier of {} on {}",
            if dexes.is_empty() {
                "any concentrated-liquidity DEX".to_owned()
            } else {
                dexes.join(", ")
            },
            chain.chain()
        );
        if !lookup_failures.is_empty() {
            reason.push_str(&format!(" ({})", lookup_failures.join("; ")));
        }
        return both_fail(reason);
    }
    let asset_is_token0 = token < chain.usdc();
    let mut compared = Vec::new();
    let mut best: Option<(usize, U512)> = None;
    for (index, (candidate, (state, _))) in candidates.iter().zip(states).enumerate() {
        let (value, reason) = match state {
            Ok(state) => {
                let value =
                    in_range_value_usdc(state.liquidity, state.sqrt_price_x96, asset_is_token0);
                if best.is_none_or(|(_, top)| value > top) {
                    best = Some((index, value));
                }
                (Some(value), None)
            }
            Err(failure) => (None, Some(format!("slot0/liquidity failed: {failure}"))),
        };
        compared.push(PoolCompared {
            dex: candidate.dex.as_str().to_owned(),
            pool: candidate.pool.to_checksum(None),
            fee_tier_ppm: candidate.fee,
            in_range_liquidity: state.as_ref().ok().map(|s| s.liquidity.to_string()),
            in_range_value_usd: value.map(|v| usd_text(v, usdc_decimals)),
            null_reason: reason,
            chosen: false,
        });
    }
    let Some((chosen_index, _)) = best else {
        return both_fail(format!(
            "no {pair} pool answered slot0: {}",
            compared
                .iter()
                .filter_map(|c| c.null_reason.clone())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    };
    compared[chosen_index].chosen = true;
    let chosen = candidates[chosen_index];
    let (Ok(state), twap_read) = &states[chosen_index] else {
        return both_fail("the chosen pool's state was not read".into());
    };
    let state = *state;
    notes.push(format!(
        "The DEX rows read the {} {} ppm pool {}: of the {} {pair} pools found ({} fee tiers probed on every concentrated-liquidity DEX of {}), the one whose in-range liquidity valued in USD (2·L·√P in USDC, USDC at 1) is largest.",
        chosen.dex,
        chosen.fee,
        chosen.pool.to_checksum(None),
        candidates.len(),
        chain.dexes().filter_map(|d| match &d.contracts { DexContracts::ConcentratedLiquidity { fee_tiers, .. } => Some(fee_tiers.len()), _ => None }).sum::<usize>(),
        chain.chain()
    ));

    // Round trip 3 (and 4 without a TickLens): capital within the band.
    let depth = band_depth(
        chain,
        reader,
        &chosen,
        &state,
        thresholds.depth_band_percent,
    )
    .await?;
    let spot_price = usdc_per_asset(
        state.sqrt_price_x96,
        asset_is_token0,
        asset_decimals,
        usdc_decimals,
    );
    let depth_usd: Result<U512, String> = match (&depth, &spot_price) {
        (Ok((upper_token0, lower_token1)), Ok(price)) => {
            let (asset_raw, usdc_raw) = if asset_is_token0 {
                (*upper_token0, *lower_token1)
            } else {
                (*lower_token1, *upper_token0)
            };
            let (digits, scale) = price.parts();
            let ten = U512::from(10u8);
            // asset raw / 10^asset_dec · price · 10^usdc_dec.
            let asset_usdc =
                U512::from(asset_raw) * U512::from(digits) * ten.pow(U512::from(usdc_decimals))
                    / (ten.pow(U512::from(scale)) * ten.pow(U512::from(asset_decimals)));
            Ok(asset_usdc + U512::from(usdc_raw))
        }
        (Err(reason), _) => Err(reason.clone()),
        (_, Err(reason)) => Err(format!("no spot price: {reason}")),
    };
    let threshold_raw = U512::from(thresholds.thin_pool_depth_usd)
        * U512::from(10u8).pow(U512::from(usdc_decimals));
    let pool_url = explorer_url(chain.chain(), chosen.pool);
    let decorate = |mut row: SourceRow| -> SourceRow {
        row.verify_url = Some(pool_url.clone());
        row.details.pool = Some(chosen.pool.to_checksum(None));
        row.details.dex = Some(chosen.dex.as_str().to_owned());
        row.details.fee_tier_ppm = Some(chosen.fee);
        row.details.depth_band_percent = Some(thresholds.depth_band_percent);
        match &depth_usd {
            Ok(raw) => {
                let text = usd_text(*raw, usdc_decimals);
                if *raw < threshold_raw {
                    row.flags.push(Flag::new(
                        "thin_pool",
                        format!(
                            "capital within ±{} % of the price is {text} USD, below the {} USD threshold",
                            thresholds.depth_band_percent, thresholds.thin_pool_depth_usd
                        ),
                    ));
                }
                row.details.depth_usd = Some(text);
            }
            Err(reason) => row.details.depth_null_reason = Some(reason.clone()),
        }
        // Both figures are as of the block.
        row.updated_at = Some(block.timestamp);
        row
    };

    let mut spot = decorate(spot)
        .raw("sqrt_price_x96", state.sqrt_price_x96)
        .raw("tick", state.tick)
        .raw("liquidity", state.liquidity);
    spot.details.tick = Some(state.tick);
    spot.details.pools_compared = Some(compared);
    match &spot_price {
        Ok(price) => spot.price = Some(price.to_string()),
        Err(reason) => spot = spot.failed(format!("price from sqrtPriceX96: {reason}")),
    }

    let mut twap = decorate(twap);
    twap.details.twap_seconds = Some(thresholds.twap_seconds);
    let twap = match twap_read {
        None => twap.failed("observe was not read"),
        Some(read) => {
            if let Ok(cardinality) = &read.observation_cardinality {
                twap.details.observation_cardinality = Some(*cardinality);
            }
            match (&read.tick_cumulatives, read.mean_tick()) {
                (Ok((then, now)), Some(mean)) => {
                    let mut twap = twap
                        .raw("tick_cumulative_then", then)
                        .raw("tick_cumulative_now", now)
                        .raw("mean_tick", mean);
                    twap.details.tick = Some(mean);
                    match dex_math::tick_math::get_sqrt_ratio_at_tick(mean)
                        .map_err(|e| e.to_string())
                        .and_then(|sqrt| {
                            usdc_per_asset(sqrt, asset_is_token0, asset_decimals, usdc_decimals)
                                .map_err(|e| e.to_string())
                        }) {
                        Ok(price) => {
                            twap.price = Some(price.to_string());
                            twap
                        }
                        Err(reason) => twap.failed(format!("price at the mean tick: {reason}")),
                    }
                }
                (
                    Err(CallFailure::Reverted {
                        reason: Some(reason),
                        ..
                    }),
                    _,
                ) if reason == "OLD" => {
                    let cardinality = read
                        .observation_cardinality
                        .as_ref()
                        .map_or_else(|f| format!("unreadable: {f}"), ToString::to_string);
                    twap.failed(format!(
                        "observe([{}, 0]) reverted 'OLD': the pool's oldest observation is younger than {} s (observation cardinality {cardinality})",
                        thresholds.twap_seconds, thresholds.twap_seconds
                    ))
                }
                (Err(failure), _) => twap.failed(format!(
                    "observe([{}, 0]) failed: {failure}",
                    thresholds.twap_seconds
                )),
                (Ok(_), None) => twap.failed("the mean tick is out of range"),
            }
        }
    };
    Ok(vec![spot, twap])
}

/// Token0 above the price and token1 below it within ±`percent`, raw units, or why not.
async fn band_depth(
    chain: &ChainInfo,
    reader: &PinnedReader,
    pool: &Candidate,
    state: &ClPoolState,
    percent: u32,
) -> Result<Result<(U256, U256), String>, ChainReadError> {
    let targets = band_targets(state.sqrt_price_x96, percent)
        .map_err(|e| e.to_string())
        .and_then(|(low, high)| {
            Ok((
                dex_math::tick_math::get_tick_at_sqrt_ratio(low).map_err(|e| e.to_string())?,
                dex_math::tick_math::get_tick_at_sqrt_ratio(high).map_err(|e| e.to_string())?,
            ))
        });
    let (low_tick, high_tick) = match targets {
        Ok(ticks) => ticks,
        Err(reason) => return Ok(Err(reason)),
    };
    let spacing = state.tick_spacing;
    let first = concentrated::word_of_tick(low_tick.min(state.tick), spacing);
    let last = concentrated::word_of_tick(high_tick.max(state.tick), spacing)
        .min(first.saturating_add(MAX_TICK_WORDS - 1));
    let lens = match chain.dex(pool.dex).map(|d| &d.contracts) {
        Some(DexContracts::ConcentratedLiquidity { tick_lens, .. }) => *tick_lens,
        _ => None,
    };
    let mut ticks: BTreeMap<i32, i128> = BTreeMap::new();
    let mut batch = Batch::new();
    match lens {
        Some(lens) => {
            let slots: Vec<_> = (first..=last)
                .map(|word| concentrated::populated_ticks(&mut batch, lens, pool.pool, word))
                .collect();
            let results = reader.execute(batch).await?;
            for slot in slots {
                match slot.decode(&results) {
                    Ok(list) => {
                        for InitializedTick {
                            tick,
                            liquidity_net,
                        } in list
                        {
                            ticks.insert(tick, liquidity_net);
                        }
                    }
                    Err(failure) => return Ok(Err(format!("TickLens failed: {failure}"))),
                }
            }
        }
        None => {
            let slots: Vec<_> = (first..=last)
                .map(|word| concentrated::tick_bitmap_word(&mut batch, pool.pool, word))
                .collect();
            let results = reader.execute(batch).await?;
            let mut marked = Vec::new();
            for slot in slots {
                match slot.decode(&results, spacing) {
                    Ok(list) => marked.extend(list),
                    Err(failure) => return Ok(Err(format!("tickBitmap failed: {failure}"))),
                }
            }
            let mut batch = Batch::new();
            let slots: Vec<_> = marked
                .iter()
                .map(|tick| concentrated::tick_info(&mut batch, pool.pool, *tick))
                .collect();
            if !batch.is_empty() {
                let results = reader.execute(batch).await?;
                for slot in slots {
                    match slot.decode(&results) {
                        Ok(t) => {
                            ticks.insert(t.tick, t.liquidity_net);
                        }
                        Err(failure) => return Ok(Err(format!("ticks() failed: {failure}"))),
                    }
                }
            }
        }
    }
    let bands = concentrated_bands(
        ClSnapshot {
            sqrt_price_x96: state.sqrt_price_x96,
            tick: state.tick,
            liquidity: state.liquidity,
            ticks: &ticks,
        },
        &[percent],
    );
    Ok(match bands {
        Ok(bands) => bands
            .first()
            .map(|b| (b.upper_token0, b.lower_token1))
            .ok_or_else(|| "no band computed".to_owned()),
        Err(error) => Err(error.to_string()),
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
