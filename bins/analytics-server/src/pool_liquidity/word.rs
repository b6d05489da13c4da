//! A pool read in the answer's words: the pool, its tokens with their USD prices, reserves,
//! mid prices.

use alloy::primitives::{Address, U256};
use chain_read::dex::uniswap_v4::DYNAMIC_FEE_FLAG;
use chain_read::dex::{PoolKey, PoolState};
use dex_route::RouteError;
use dex_route::liquidity::{PoolLiquidity, PoolToken, TickSource};

use super::answer::{
    PRICE_PLACES, PoolLiquidityAnswer, PoolTokenInfo, Reserve, Reserves, TierCompared,
};
use super::parts::{assumptions, depth_band, exit, foreign};
use crate::answer::{amount, fee_bps, pool_ref, ratio_decimal, show, usd_text};
use crate::requests::Chain;
use crate::wording;

fn token_info(token: &PoolToken, read: &PoolLiquidity) -> PoolTokenInfo {
    let usdc_decimals = read.usdc_decimals.clone().ok();
    let (price_usd, price_usd_source, price_usd_null_reason) = wording::usd_price(
        &token.usd,
        usdc_decimals,
        token.decimals,
        ("this pool's", read.block.number, false),
    );
    PoolTokenInfo {
        address: show(token.metadata.address),
        symbol: token.metadata.symbol.clone().ok(),
        decimals: token.decimals,
        price_usd,
        price_usd_source,
        price_usd_null_reason,
    }
}

pub(super) fn usd_of(token: &PoolToken, raw: U256, usdc_decimals: Option<u8>) -> Option<String> {
    let price = token.usd.as_ref().ok()?;
    Some(usd_text(price.value(raw), usdc_decimals?, false))
}

pub(super) fn word(
    chain: Chain,
    read: &PoolLiquidity,
    volume: oracle_sources::PoolVolume,
) -> PoolLiquidityAnswer {
    let [token0, token1] = &read.tokens;
    let (read_path, lens_fallback_reason) = crate::answer::read_path(&read.read_path);
    let usdc_decimals = read.usdc_decimals.clone().ok();
    let (reserve_source, raw_reserves) = match read.state {
        PoolState::ConstantProduct(r) | PoolState::Solidly { reserves: r, .. } => {
            ("get_reserves", [Some(r.reserve0), Some(r.reserve1)])
        }
        PoolState::Concentrated(_) => (
            "balance_of",
            [token0.balance.clone().ok(), token1.balance.clone().ok()],
        ),
        // The PoolManager holds every V4 pool's tokens together: no per-pool reserve.
        PoolState::V4(_) => ("none", [None, None]),
        // So does Balancer's Vault, but it books each pool's balances: getPoolTokens.
        PoolState::Balancer(_) => (
            "vault_get_pool_tokens",
            [token0.balance.clone().ok(), token1.balance.clone().ok()],
        ),
    };
    let reserves = Reserves {
        source: reserve_source.to_owned(),
        tokens: [token0, token1]
            .iter()
            .zip(raw_reserves)
            .filter(|_| reserve_source != "none")
            .map(|(token, raw)| Reserve {
                token: show(token.metadata.address),
                amount: amount(raw.unwrap_or_default(), Some(token.decimals)),
                usd: raw.and_then(|raw| usd_of(token, raw, usdc_decimals)),
            })
            .collect(),
    };
    let tvl = read.tvl_usdc().and_then(|tvl| {
        usdc_decimals
            .map(|d| usd_text(tvl, d, false))
            .ok_or(RouteError::DecimalsUnknown {
                token: Address::ZERO,
            })
    });
    let (in_range_liquidity, current_tick, sqrt_price_x96, concentrated_null_reason) =
        match read.state {
            PoolState::Concentrated(cl) => (
                Some(cl.liquidity.to_string()),
                Some(cl.tick),
                Some(cl.sqrt_price_x96.to_string()),
                None,
            ),
            PoolState::V4(_) if v4_flipped(read) => (
                None,
                None,
                None,
                Some("a native-ether pool whose ether stands for token1: its tick and price are of the pair's inverse, so they are not printed as token1 per token0".to_owned()),
            ),
            PoolState::V4(v4) => (
                Some(v4.liquidity.to_string()),
                Some(v4.tick),
                Some(v4.sqrt_price_x96.to_string()),
                None,
            ),
            _ => (
                None,
                None,
                None,
                Some(format!(
                    "a {} pool has no ticks or in-range liquidity",
                    read.pool.key.kind().as_str()
                )),
            ),
        };
    let mid = |token: &PoolToken, other: &PoolToken| {
        read.mid(token.metadata.address)
            .map(|ratio| ratio_decimal(&ratio, token.decimals, other.decimals, PRICE_PLACES))
    };
    let (mid01, mid10, mid_null_reason) = match (mid(token0, token1), mid(token1, token0)) {
        (Ok(a), Ok(b)) => (Some(a), Some(b), None),
        (Err(e), _) | (_, Err(e)) => (None, None, Some(e.to_string())),
    };
    let tiers_compared: Vec<TierCompared> = read
        .compared
        .iter()
        .map(|candidate| TierCompared {
            pool: pool_ref(&candidate.pool),
            fee_tier_ppm: fee_tier(candidate.pool.key),
            stable: match candidate.pool.key {
                PoolKey::Solidly { stable } => Some(stable),
                _ => None,
            },
            value_in_token1: candidate
                .value_in_token1
                .as_ref()
                .ok()
                .map(|v| amount(*v, Some(token1.decimals))),
            value_null_reason: candidate
                .value_in_token1
                .as_ref()
                .err()
                .map(ToString::to_string),
            chosen: candidate.pool.address == read.pool.address,
        })
        .collect();
    let tier_choice = (!tiers_compared.is_empty()).then(|| match read.pool.key {
        PoolKey::V4 { .. } => "no fee tier was named: every Uniswap V4 pool of the pair found at the block (the shapes probed, against the tokens and against native ether) was read and the one whose in-range liquidity's virtual reserves, 2·L·√P valued in token1 at its own price, are largest was chosen (a V4 pool holds no balances of its own; a dust pool's are dust)".to_owned(),
        _ => "no fee tier was named: every pool of the pair on the DEX was read at the block and the one whose token balances, valued at its own mid price in token1, are largest was chosen".to_owned(),
    });
    let exit_impact = read.exits.iter().map(|row| exit(row, read)).collect();
    let (depth, depth_null_reason) = match &read.depth {
        Ok(bands) => (
            Some(bands.iter().map(|band| depth_band(band, read)).collect()),
            None,
        ),
        Err(error) => (None, Some(error.to_string())),
    };
    let depth_method = match &read.ticks {
        Some(coverage) => format!(
            "Uniswap marketdepth-v3's definition: the upper band ends at price·(1+δ), the lower at price/(1+δ) (not 1−δ); token0 above the price, token1 below, each the pool's SqrtPriceMath amount rounded down, summed over the ranges between initialized ticks walked outward from the current tick. {} initialized ticks of bitmap words {}..{} read {}.",
            coverage.initialized_ticks,
            coverage.words.0,
            coverage.words.1,
            match coverage.source {
                TickSource::TickLens => "with TickLens",
                TickSource::Bitmap => "from tickBitmap and ticks()",
                TickSource::StateView => "from StateView's getTickBitmap and getTickLiquidity",
                TickSource::TickTable => "from Algebra's tickTable and ticks()",
            }
        ),
        None if matches!(read.pool.key, PoolKey::Balancer { .. }) => "A curve depth, not a tick walk: on the Balancer pool's own swap maths (weighted or stable, dex-math's port, equal to the Vault's queryBatchSwap to the wei on the devnet), the token0 a swap of token1 into the pool takes out while the pool's spot price of token0 rises to price·(1+δ) (upper) and the token1 a swap of token0 takes out while it falls to price/(1+δ) (lower, as marketdepth-v3), the largest such swap found by bisection to the wei of the amount in; the swap fee is included, and as it stays in the pool it moves the price too. The spot price is the weighted pool's exact balance/weight ratio, or the stable invariant's marginal price (exact invariant, the ratio to about 15 significant digits). A band a swap the pool takes cannot reach (a weighted pool refuses more than 30 % of a balance in) makes depth null with the reason.".to_owned(),
        None if read.pool.key == (PoolKey::Solidly { stable: true }) => "On the stable curve x³y + xy³ = k: the token0 the pool pays out while its marginal price of token0 rises to price·(1+δ) (upper) and the token1 while it falls to price/(1+δ) (lower, as marketdepth-v3), found by bisection over the pool's own getAmountOut maths without the fee (the edge located to about 10⁻¹⁵ of the price).".to_owned(),
        None => "On the x·y curve: moving the price by a factor 1+δ takes reserve·(1 − 1/√(1+δ)) of the token leaving the pool; the upper band holds token0, the lower band token1 (lower edge price/(1+δ), as marketdepth-v3).".to_owned(),
    };
    PoolLiquidityAnswer {
        chain,
        block_number: read.block.number,
        block_timestamp: read.block.timestamp,
        pool: pool_ref(&read.pool),
        dex: read.pool.dex.as_str().to_owned(),
        pool_type: read.pool.key.kind().as_str().to_owned(),
        stable: read.pool.key.stable(),
        fee_tier_ppm: fee_tier(read.pool.key),
        fee_bps: fee_bps(&read.state, read.pool.key),
        token0: token_info(token0, read),
        token1: token_info(token1, read),
        reserves,
        tvl_usd: tvl.as_ref().ok().cloned(),
        tvl_usd_null_reason: tvl.err().map(|e| e.to_string()),
        in_range_liquidity,
        current_tick,
        sqrt_price_x96,
        concentrated_null_reason,
        mid_price_token1_per_token0: mid01,
        mid_price_token0_per_token1: mid10,
        mid_price_null_reason: mid_null_reason,
        tiers_compared,
        tier_choice,
        exit_impact,
        depth,
        depth_null_reason,
        depth_method,
        volume_24h: foreign(volume.volume_24h),
        volume_7d: foreign(volume.volume_7d),
        lp_holder_count: None,
        lp_holder_count_null_reason: "not read: holders of a V2/Solidly LP token or V3 position NFTs are only found by scanning every Transfer event since the pool's creation (an indexer's job, not a few calls at one block); no source that states it is read".to_owned(),
        top_lp_share: None,
        top_lp_share_null_reason: "not read, for the same reason as lp_holder_count; for concentrated liquidity a share of liquidity is also not a share of capital".to_owned(),
        rpc_round_trips: read.sequential_round_trips,
        read_path,
        lens_fallback_reason,
        assumptions: assumptions(read),
    }
}

/// A fee tier's parts per million: a V3 tier, or a V4 pool's static fee (none for a pool
/// whose hook sets the fee: its key holds the dynamic-fee flag, not a fee).
fn fee_tier(key: PoolKey) -> Option<u32> {
    match key {
        PoolKey::Concentrated { fee, .. } => Some(fee),
        PoolKey::V4 { fee, .. } if fee & DYNAMIC_FEE_FLAG == 0 => Some(fee),
        _ => None,
    }
}

/// Whether the pool is a native-ether V4 pool whose ether stands for token1 (its price is the
/// pair's inverse).
pub(super) fn v4_flipped(read: &PoolLiquidity) -> bool {
    matches!(read.pool.key, PoolKey::V4 { native: Some(wrapped), .. } if wrapped == read.pool.token1)
}
