//! The DEX rows: spot and 30-minute TWAP of the deepest concentrated-liquidity pool against
//! USDC (Uniswap V4 pools among them), the pools compared, and the capital within the band
//! around the price. A V4 pool has no oracle: the TWAP row reads the deepest V3 pool.

use super::*;
use chain_read::dex::uniswap_v4::DYNAMIC_FEE_FLAG;

#[allow(clippy::too_many_arguments)]
pub(super) async fn dex_rows(
    chain: &ChainInfo,
    reader: &PinnedReader,
    asset: Asset,
    token: Result<Address, NoDexToken>,
    candidates: &[Candidate],
    lookup_failures: &[String],
    states: &[(Result<DexState, CallFailure>, Option<TwapRead>)],
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
    let both_absent = |reason: String| {
        Ok(vec![
            spot.clone().absent(reason.clone()),
            twap.clone().absent(reason),
        ])
    };
    let token = match token {
        Ok(token) => token,
        Err(reason) => return both_absent(format!("not available: {reason}")),
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
                    && (matches!(d.contracts, DexContracts::ConcentratedLiquidity { .. })
                        || (super::read_by_adapter(d.kind())
                            && d.kind() != chain_read::DexKind::ConcentratedLiquidityV4))
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
            // Some lookups failed: the pool may exist.
            reason.push_str(&format!(" ({})", lookup_failures.join("; ")));
            return both_fail(reason);
        }
        return both_absent(reason);
    }
    let usdc = chain.usdc();
    let mut compared = Vec::new();
    let mut best: Option<(usize, U512)> = None;
    // The deepest pool with an oracle (V3), for the TWAP row when the deepest is a V4 pool.
    let mut best_oracle: Option<(usize, U512)> = None;
    for (index, (candidate, (state, twap_read))) in candidates.iter().zip(states).enumerate() {
        let value = match state {
            Ok(DexState::Concentrated(state)) => Ok(in_range_value_usdc(
                state.liquidity,
                state.sqrt_price_x96,
                candidate.asset_is_token0(token, usdc),
            )),
            Ok(DexState::Balancer(read)) => balancer_value_usdc(candidate, read, token, usdc),
            Err(failure) => Err(format!("slot0/liquidity failed: {failure}")),
        };
        let (value, reason) = match value {
            Ok(value) => {
                if best.is_none_or(|(_, top)| value > top) {
                    best = Some((index, value));
                }
                if twap_read.is_some() && best_oracle.is_none_or(|(_, top)| value > top) {
                    best_oracle = Some((index, value));
                }
                (Some(value), None)
            }
            Err(reason) => (None, Some(reason)),
        };
        compared.push(PoolCompared {
            dex: candidate.dex.as_str().to_owned(),
            pool: candidate.label(),
            fee_tier_ppm: candidate.fee,
            in_range_liquidity: match state {
                Ok(DexState::Concentrated(s)) => Some(s.liquidity.to_string()),
                _ => None,
            },
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
    let (Ok(chosen_state), _) = &states[chosen_index] else {
        return both_fail("the chosen pool's state was not read".into());
    };
    let chosen_state = *chosen_state;
    let asset_is_token0 = chosen.asset_is_token0(token, usdc);
    let v4_shapes: usize = chain
        .dexes()
        .filter_map(|d| match &d.contracts {
            DexContracts::PoolManager { shapes, .. } if d.id.has_adapter() => Some(shapes.len()),
            _ => None,
        })
        .sum();
    let balancer_found = candidates
        .iter()
        .any(|c| matches!(c.v4.map(|p| p.key), Some(PoolKey::Balancer { .. })));
    notes.push(format!(
        "The DEX spot row reads the {} {} pool {}: of the {} {pair} pools found ({} fee tiers probed on every concentrated-liquidity DEX of {}{}), the one whose in-range liquidity valued in USD (2·L·√P in USDC, USDC at 1{}) is largest.",
        chosen.dex,
        fee_text(&chosen),
        chosen.label(),
        candidates.len(),
        chain.dexes().filter_map(|d| match &d.contracts { DexContracts::ConcentratedLiquidity { fee_tiers, .. } => Some(fee_tiers.len()), _ => None }).sum::<usize>(),
        chain.chain(),
        if v4_shapes > 0 {
            format!(", and {v4_shapes} Uniswap V4 pool shapes against the token and against native ether")
        } else {
            String::new()
        },
        if balancer_found {
            "; a Balancer V2 pool of the configured list, whose whole curve is in range, by its Vault balances of the pair valued at its own spot price"
        } else {
            ""
        }
    ));
    // The TWAP row: the chosen pool's oracle, or the deepest V3 pool's when the chosen one is
    // a Uniswap V4 pool (V4 pools keep no observations).
    let twap_index = if states[chosen_index].1.is_some() {
        Some(chosen_index)
    } else {
        best_oracle.map(|(index, _)| index)
    };
    let no_oracle = match chosen_state {
        DexState::Balancer(_) => {
            "a Balancer V2 pool, and Balancer V2 pools have no built-in TWAP (no price observations are kept; only some pool types keep an oracle, and not those read here)"
        }
        DexState::Concentrated(_) => {
            "a Uniswap V4 pool, and V4 pools keep no price observations (a V4 TWAP needs an oracle hook)"
        }
    };
    if twap_index != Some(chosen_index) {
        notes.push(match twap_index {
            Some(index) => format!(
                "The DEX TWAP row reads the {} {} ppm pool {}, the deepest pool with an oracle: the deepest pool is {no_oracle}.",
                candidates[index].dex,
                candidates[index].fee,
                candidates[index].label()
            ),
            None => format!("The DEX TWAP row has no pool: the deepest pool is {no_oracle}, and no pool found keeps an oracle."),
        });
    }

    // Round trip 3 (and 4 without a TickLens): capital within the band. A Balancer pool's is
    // its curve's, on the state already read.
    let (depth, spot_price) = match chosen_state {
        DexState::Concentrated(state) => (
            band_depth(
                chain,
                reader,
                &chosen,
                &state,
                thresholds.depth_band_percent,
            )
            .await?,
            usdc_per_asset(
                state.sqrt_price_x96,
                asset_is_token0,
                asset_decimals,
                usdc_decimals,
            )
            .map_err(|e| e.to_string()),
        ),
        DexState::Balancer(read) => balancer_spot_and_depth(
            &chosen,
            read,
            token,
            (asset_decimals, usdc_decimals),
            thresholds.depth_band_percent,
        ),
    };
    let depth_usd: Result<U512, DepthMissing> = match (&depth, &spot_price) {
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
        (_, Err(reason)) => Err(DepthMissing::NoSpotPrice(reason.to_string())),
    };
    let threshold_raw = U512::from(thresholds.thin_pool_depth_usd)
        * U512::from(10u8).pow(U512::from(usdc_decimals));
    let decorate = |mut row: SourceRow, pool: &Candidate| -> SourceRow {
        row.verify_url = Some(pool.url(chain.chain()));
        row.details.pool = Some(pool.label());
        row.details.dex = Some(pool.dex.as_str().to_owned());
        row.details.fee_tier_ppm = Some(pool.fee);
        row.details.depth_band_percent = Some(thresholds.depth_band_percent);
        // The capital read is the spot pool's.
        match &depth_usd {
            _ if pool.pool != chosen.pool => {}
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
            Err(reason) => row.details.depth_null_reason = Some(reason.to_string()),
        }
        // Both figures are as of the block.
        row.updated_at = Some(block.timestamp);
        row
    };

    let mut spot = decorate(spot, &chosen);
    match chosen_state {
        DexState::Concentrated(state) => {
            spot = spot
                .raw("sqrt_price_x96", state.sqrt_price_x96)
                .raw("tick", state.tick)
                .raw("liquidity", state.liquidity);
            spot.details.tick = Some(state.tick);
        }
        DexState::Balancer(read) => {
            spot.source = "deepest DEX pool: a Balancer V2 pool's spot price (getPoolTokens balances, the pool's weights or amplification)".to_owned();
            for (token, balance) in read.tokens[..read.len].iter().zip(read.balances()) {
                spot = spot.raw(&format!("balance_{token:#x}"), balance);
            }
            spot = spot.raw("swap_fee", read.swap_fee);
        }
    }
    spot.details.pools_compared = Some(compared);
    match &spot_price {
        Ok(price) => spot.price = Some(price.to_string()),
        Err(reason) => {
            let from = match chosen_state {
                DexState::Concentrated(_) => "sqrtPriceX96",
                DexState::Balancer(_) => "the pool's spot price",
            };
            spot = spot.failed(format!("price from {from}: {reason}"));
        }
    }

    let Some(twap_index) = twap_index else {
        return Ok(vec![
            spot,
            twap.absent(format!(
                "no pool with an oracle: the deepest pool is {no_oracle}, and no pool found keeps an oracle"
            )),
        ]);
    };
    let twap_pool = candidates[twap_index];
    let twap_read = &states[twap_index].1;
    let twap_token0 = twap_pool.asset_is_token0(token, usdc);
    let mut twap = decorate(twap, &twap_pool);
    if twap_index != chosen_index {
        twap.source = format!(
            "deepest concentrated-liquidity pool with an oracle, {} s TWAP",
            thresholds.twap_seconds
        );
    }
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
                            usdc_per_asset(sqrt, twap_token0, asset_decimals, usdc_decimals)
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

/// A Balancer V2 pool's balances of the pair in raw USDC: the USDC balance and the asset's
/// valued at the pool's own spot price (its whole curve is in range).
fn balancer_value_usdc(
    candidate: &Candidate,
    read: &chain_read::dex::balancer::BalancerPoolState,
    asset: Address,
    usdc: Address,
) -> Result<U512, String> {
    let pool = candidate
        .v4
        .ok_or_else(|| "not read through its adapter".to_owned())?;
    let balance = |token: Address| {
        read.index_of(token)
            .map(|i| read.balances[i])
            .ok_or_else(|| format!("the Vault lists no {token} for the pool"))
    };
    let mid = kinds::of_pool(&pool)
        .mid(&pool, &PoolState::Balancer(*read), asset, &[])
        .map_err(|e| format!("spot price: {e}"))?;
    if mid.denominator.is_zero() {
        return Err("spot price: zero denominator".to_owned());
    }
    Ok(U512::from(balance(usdc)?) + U512::from(balance(asset)?) * mid.numerator / mid.denominator)
}

/// A Balancer V2 pool's spot price of the asset in USDC and its capital within ±`percent`
/// (token0 above the price, token1 below), by its adapter's curve depth on the state read.
fn balancer_spot_and_depth(
    chosen: &Candidate,
    read: chain_read::dex::balancer::BalancerPoolState,
    asset: Address,
    (asset_decimals, usdc_decimals): (u8, u8),
    percent: u32,
) -> (Result<(U256, U256), DepthMissing>, Result<Price, String>) {
    let Some(pool) = chosen.v4 else {
        let why = "the pool was not read through its adapter";
        return (
            Err(DepthMissing::NoSpotPrice(why.to_owned())),
            Err(why.to_owned()),
        );
    };
    let kind = kinds::of_pool(&pool);
    let state = PoolState::Balancer(read);
    let spot = match kind.mid(&pool, &state, asset, &[]) {
        // Raw USDC per raw asset, to USDC per whole asset.
        Ok(mid) => {
            let ten = U512::from(10u8);
            Price::ratio(
                mid.numerator * ten.pow(U512::from(asset_decimals)),
                mid.denominator * ten.pow(U512::from(usdc_decimals)),
                DEX_PRICE_PLACES,
            )
            .map_err(|e| e.to_string())
        }
        Err(error) => Err(error.to_string()),
    };
    let (bands, _) = kind.depth(&pool, &state, (0, 0), None, &[percent]);
    let depth = match bands {
        Ok(bands) => bands
            .first()
            .map(|b| (b.upper_token0, b.lower_token1))
            .ok_or(DepthMissing::NoBand),
        Err(error) => Err(DepthMissing::NotReadForKind(error)),
    };
    (depth, spot)
}

/// Token0 above the price and token1 below it within ±`percent`, raw units, or why not.
async fn band_depth(
    chain: &ChainInfo,
    reader: &PinnedReader,
    pool: &Candidate,
    state: &ClPoolState,
    percent: u32,
) -> Result<Result<(U256, U256), DepthMissing>, ChainReadError> {
    let targets = band_targets(state.sqrt_price_x96, percent).and_then(|(low, high)| {
        Ok((
            dex_math::tick_math::get_tick_at_sqrt_ratio(low)?,
            dex_math::tick_math::get_tick_at_sqrt_ratio(high)?,
        ))
    });
    let (low_tick, high_tick) = match targets {
        Ok(ticks) => ticks,
        Err(error) => return Ok(Err(DepthMissing::Math(error))),
    };
    let spacing = match pool.v4 {
        Some(Pool {
            key: PoolKey::V4 { tick_spacing, .. },
            ..
        }) => tick_spacing,
        // Slipstream and Algebra: the ticks one bit of the adapter's words stands for (1 for
        // Algebra Integral's tick-tree leaves).
        Some(adapted) => kinds::of_pool(&adapted)
            .tick_walk(&adapted, &PoolState::Concentrated(*state))
            .map_or(state.tick_spacing, |(_, _, factor)| factor),
        None => state.tick_spacing,
    };
    let first = concentrated::word_of_tick(low_tick.min(state.tick), spacing);
    let last = concentrated::word_of_tick(high_tick.max(state.tick), spacing)
        .min(first.saturating_add(MAX_TICK_WORDS - 1));
    let lens = match chain.dex(pool.dex).map(|d| &d.contracts) {
        Some(DexContracts::ConcentratedLiquidity { tick_lens, .. }) => *tick_lens,
        _ => None,
    };
    let mut ticks: BTreeMap<i32, i128> = BTreeMap::new();
    let mut batch = Batch::new();
    if let Some(v4) = &pool.v4 {
        // StateView's bitmap words, then the ticks they mark (the kind's own reads).
        let kind = kinds::of_pool(v4);
        let reads = match kind.tick_words(&mut batch, chain, v4, (first, last)) {
            Ok((_, reads)) => reads,
            Err(error) => return Ok(Err(DepthMissing::NotReadForKind(error))),
        };
        let results = reader.execute(batch).await?;
        let mut marked = Vec::new();
        for read in &reads {
            let found = match read {
                kinds::WordRead::Marked(decode) => decode(&results),
                kinds::WordRead::Populated(decode) => decode(&results).map(|list| {
                    ticks.extend(list);
                    Vec::new()
                }),
            };
            match found {
                Ok(list) => marked.extend(list),
                Err(failure) => return Ok(Err(DepthMissing::StateViewBitmap(failure))),
            }
        }
        let mut batch = Batch::new();
        let slots: Vec<_> = marked
            .iter()
            .map(|tick| kind.tick_net(&mut batch, chain, v4, *tick))
            .collect();
        if !batch.is_empty() {
            let results = reader.execute(batch).await?;
            for slot in slots {
                match slot(&results) {
                    Ok((tick, net)) => {
                        ticks.insert(tick, net);
                    }
                    Err(failure) => {
                        return Ok(Err(DepthMissing::StateViewTicks(failure)));
                    }
                }
            }
        }
    } else {
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
                        Err(failure) => return Ok(Err(DepthMissing::TickLens(failure))),
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
                        Err(failure) => return Ok(Err(DepthMissing::TickBitmap(failure))),
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
                            Err(failure) => return Ok(Err(DepthMissing::Ticks(failure))),
                        }
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
            .ok_or(DepthMissing::NoBand),
        Err(error) => Err(DepthMissing::Math(error)),
    })
}

/// Why the capital within the band around the price has no figure.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum DepthMissing {
    /// The band's ticks or capital could not be computed.
    #[error("{0}")]
    Math(dex_math::MathError),
    /// The pool's kind reads no ticks.
    #[error("{0}")]
    NotReadForKind(dex_route::RouteError),
    /// A TickLens call of the band's words failed.
    #[error("TickLens failed: {0}")]
    TickLens(CallFailure),
    /// A `tickBitmap` word of the band failed.
    #[error("tickBitmap failed: {0}")]
    TickBitmap(CallFailure),
    /// A `ticks()` read of an initialised tick failed.
    #[error("ticks() failed: {0}")]
    Ticks(CallFailure),
    /// A StateView `getTickBitmap` word of a Uniswap V4 pool failed.
    #[error("getTickBitmap failed: {0}")]
    StateViewBitmap(CallFailure),
    /// A StateView `getTickLiquidity` read of a Uniswap V4 pool failed.
    #[error("getTickLiquidity failed: {0}")]
    StateViewTicks(CallFailure),
    /// The band maths gave no band.
    #[error("no band computed")]
    NoBand,
    /// The pool's spot price, which values the asset side, is not a price.
    #[error("no spot price: {0}")]
    NoSpotPrice(String),
}

/// A pool's fee as the notes print it: a V3 tier, a V4 pool's fee, or its dynamic-fee flag.
fn fee_text(pool: &Candidate) -> String {
    match pool.v4.map(|p| p.key) {
        Some(PoolKey::V4 { fee, .. }) if fee & DYNAMIC_FEE_FLAG != 0 => {
            "Uniswap V4 dynamic-fee".to_owned()
        }
        Some(PoolKey::V4 {
            fee, tick_spacing, ..
        }) => format!("{fee} ppm (tick spacing {tick_spacing})"),
        _ => format!("{} ppm", pool.fee),
    }
}
