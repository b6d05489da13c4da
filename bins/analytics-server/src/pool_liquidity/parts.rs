//! Parts of the answer: the foreign volume, the exits, the depth bands and the assumptions.

use alloy::primitives::{Address, U256};
use chain_read::dex::PoolKey;
use dex_route::RouteError;
use dex_route::liquidity::{BandCapital, ExitRow, PoolLiquidity};
use oracle_sources::ForeignFigure;

use super::answer::{DepthBand, DepthSide, ExitImpact, ForeignVolume, PRICE_PLACES};
use super::word::usd_of;
use crate::answer::{amount, ratio_decimal, show, usd_text};

pub(super) fn foreign(figure: ForeignFigure) -> ForeignVolume {
    ForeignVolume {
        usd: figure.usd,
        derived_from_foreign_source: true,
        source: figure.source,
        url: figure.url,
        as_of: figure.as_of,
        age_seconds: figure.age_seconds,
        method: figure.method,
        null_reason: figure.null_reason,
    }
}

pub(super) fn exit(row: &ExitRow, read: &PoolLiquidity) -> ExitImpact {
    let decimals = |token: Address| {
        read.tokens
            .iter()
            .find(|t| t.metadata.address == token)
            .map(|t| t.decimals)
    };
    let (d_in, d_out) = (decimals(row.token_in), decimals(row.token_out));
    // `+ 0.0` turns a rounded -0.0 into 0.0.
    let round = |value: f64| (value * 100.0).round() / 100.0 + 0.0;
    let mut answer = ExitImpact {
        size_usd: row.size_usd,
        token_in: show(row.token_in),
        token_out: show(row.token_out),
        amount_in: None,
        amount_out: None,
        filled: None,
        fillable_amount_in: None,
        fillable_amount_out: None,
        quote_source: None,
        impact_bps: None,
        fee_bps: None,
        price_impact_excluding_fee_bps: None,
        price_move_bps: None,
        initialized_ticks_crossed: None,
        sqrt_price_x96_after: None,
        price_after_null_reason: None,
        null_reason: None,
    };
    match &row.quote {
        Ok(quote) => {
            answer.amount_in = Some(amount(quote.amount_in, d_in));
            answer.amount_out = Some(amount(quote.amount_out, d_out));
            answer.filled = Some(quote.filled);
            answer.quote_source = Some(quote.source.as_str().to_owned());
            answer.impact_bps = Some(round(quote.impact_bps));
            answer.fee_bps = Some(quote.fee_bps);
            answer.price_impact_excluding_fee_bps =
                Some(round(quote.price_impact_excluding_fee_bps));
            answer.price_move_bps = quote.price_move_bps.map(round);
            answer.price_after_null_reason =
                quote.mid_after.as_ref().err().map(ToString::to_string);
            answer.initialized_ticks_crossed = quote.initialized_ticks_crossed;
            answer.sqrt_price_x96_after = quote.sqrt_price_x96_after.map(|p| p.to_string());
        }
        Err(RouteError::CannotFill { fillable, .. }) => {
            answer.filled = Some(false);
            answer.quote_source = Some(
                match read.pool.key {
                    PoolKey::V4 { .. } => "v4_quoter",
                    _ => "quoter_v2",
                }
                .to_owned(),
            );
            if let Some((fill_in, fill_out)) = fillable {
                answer.fillable_amount_in = Some(amount(*fill_in, d_in));
                answer.fillable_amount_out = Some(amount(*fill_out, d_out));
            }
            answer.null_reason = row.quote.as_ref().err().map(ToString::to_string);
        }
        Err(error) => answer.null_reason = Some(error.to_string()),
    }
    answer
}

pub(super) fn depth_band(band: &BandCapital, read: &PoolLiquidity) -> DepthBand {
    let [token0, token1] = &read.tokens;
    let usdc_decimals = read.usdc_decimals.clone().ok();
    let price = |sqrt: U256| {
        ratio_decimal(
            &dex_math::price::sqrt_price_x96_to_ratio(sqrt),
            token0.decimals,
            token1.decimals,
            PRICE_PLACES,
        )
    };
    let upper_usd = usd_of(token0, band.upper_token0, usdc_decimals);
    let lower_usd = usd_of(token1, band.lower_token1, usdc_decimals);
    let total_usd = match (&token0.usd, &token1.usd, usdc_decimals) {
        (Ok(p0), Ok(p1), Some(d)) => Some(usd_text(
            p0.value(band.upper_token0) + p1.value(band.lower_token1),
            d,
            false,
        )),
        _ => None,
    };
    DepthBand {
        percent: band.percent,
        upper: DepthSide {
            token: show(token0.metadata.address),
            amount: amount(band.upper_token0, Some(token0.decimals)),
            usd: upper_usd,
            to_price: price(band.upper_sqrt_price_x96),
        },
        lower: DepthSide {
            token: show(token1.metadata.address),
            amount: amount(band.lower_token1, Some(token1.decimals)),
            usd: lower_usd,
            to_price: price(band.lower_sqrt_price_x96),
        },
        total_usd,
    }
}

pub(super) fn assumptions(read: &PoolLiquidity) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Every chain read was made at block {}; {} sequential round trips to the node.",
            read.block.number, read.sequential_round_trips
        ),
        read_path_line(read),
        "Exit sizes are turned into token amounts at the USD price shown for the token sold (its source is printed with it); nothing is executed.".to_owned(),
        "USD is the chain's USDC at 1 USD.".to_owned(),
        "impact_bps is against the pool's mid price at the block and includes the fee; price_impact_excluding_fee_bps removes the fee multiplicatively.".to_owned(),
        "Volumes come from a foreign source and are labelled with it and their age; they are not read from the chain.".to_owned(),
    ];
    match read.pool.key {
        PoolKey::Concentrated { .. } => lines.push("Concentrated-liquidity exits are QuoterV2 quotes at the block; a size the pool cannot take is marked unfilled, with what the initialized ticks read would take (simulated with the pool's own swap maths, a lower bound).".to_owned()),
        PoolKey::ConstantProduct { .. } => lines.push("Constant-product exits are UniswapV2Library.getAmountOut on the reserves at the block (equal to Router02's answer).".to_owned()),
        PoolKey::Solidly { .. } => lines.push("Solidly exits are the pool's getAmountOut maths on the reserves and the factory's fee at the block (equal to the pool's own answer).".to_owned()),
        PoolKey::Slipstream { .. } => lines.push("Slipstream exits are its QuoterV2's quotes at the block; Slipstream is checked against its interface on the devnet, not its bytecode.".to_owned()),
        PoolKey::Algebra { .. } => lines.push("Algebra Integral exits are its QuoterV2's quotes at the block.".to_owned()),
        PoolKey::AlgebraV1 => lines.push("Algebra V1 exits are its Quoter's quotes at the block, with the fee each swap paid (the adaptive fee of the block, which fee_bps shows); the price after each is V3's swap maths over the initialized ticks read from the pool's tickTable at that fee, taken only when its output equals the Quoter's to the wei (else the exit says why); a size the pool cannot take is marked unfilled, with what the ticks read would take.".to_owned()),
        PoolKey::Balancer { .. } => {
            lines.push("Balancer V2 exits are BalancerQueries' querySwap at the block (the Vault's own queryBatchSwap, so the pool's onSwap with its rate providers); the price after each is the pool's spot price on the balances the swap leaves (the whole amount in added, the fee staying in the pool; the amount out taken), by dex-math's port of its maths.".to_owned());
            lines.push("The Vault holds every Balancer pool's tokens; the reserves are the Vault's balances booked to this pool (getPoolTokens), of the two tokens named; a pool of more tokens holds others too, which the TVL here leaves out.".to_owned());
        }
        PoolKey::V4 { .. } => {
            lines.push("Uniswap V4 exits are V4Quoter quotes at the block (the pool's hooks run in the quote); the price after each is the V3 swap maths over the initialized ticks read from StateView with the pool's fee, taken only when its output equals V4Quoter's to the wei (else the exit says why); a size the pool cannot take is marked unfilled, with what the ticks read would take.".to_owned());
            lines.push("A Uniswap V4 pool holds no tokens of its own (the PoolManager holds every pool's), so it has no reserves or TVL here; its depth is the walk over its initialized ticks.".to_owned());
            if let PoolKey::V4 { hooks, .. } = read.pool.key
                && !hooks.is_zero()
            {
                lines.push(format!("fee_bps is the LP fee stored for the pool at the block; its hooks ({}) may charge another fee on each swap, which V4Quoter's amounts include, so impact_bps holds it and price_impact_excluding_fee_bps removes only the stored fee.", show(hooks)));
            }
            if matches!(read.pool.key, PoolKey::V4 { native: Some(_), .. }) {
                lines.push("The pool trades native ether, which stands for the wrapped native token named in the answer: a swap through it unwraps (or sends) ether, which the quotes do not include.".to_owned());
            }
            if let Some(source) = read.pool_key_source {
                lines.push(pool_key_line(source));
            }
        }
    }
    lines
}

/// Where a PoolId's key came from, said in words.
fn pool_key_line(source: dex_route::liquidity::PoolKeySource) -> String {
    use dex_route::liquidity::PoolKeySource;
    let what = "The pool was named by its PoolId, which is the hash of its PoolKey (currencies, fee, tick spacing, hooks)";
    match source {
        PoolKeySource::Index => format!(
            "{what}: the key was found in the service's index of the PoolManager's Initialize events, and its state read by the PoolId."
        ),
        PoolKeySource::KnownShape => format!(
            "{what}: the key of a shape the service lists for the pair named hashes to it, and its state was read by the PoolId."
        ),
        PoolKeySource::InitializeLog { block, from_block } => format!(
            "{what}: the key was read from the pool's Initialize event{} (eth_getLogs filtered by the PoolId from block {from_block}, sent in the same request as the first read), checked to hash to the PoolId, and its state read by the PoolId.",
            block.map(|b| format!(" at block {b}")).unwrap_or_default()
        ),
    }
}

/// How the chain was read, said in words.
fn read_path_line(read: &PoolLiquidity) -> String {
    use dex_route::lens::ReadPath;
    use dex_route::liquidity::TickSource;
    match read.read_path {
        ReadPath::Lens => {
            let first = "The pool's identity or its pair's pools, their state, tokens and the USD reference were read in one eth_call of the service's read lens (its code placed at an unused address by a state override for that call only), which runs the calls the Multicall3 batches would send, taking addresses from the earlier answers";
            match read.ticks.as_ref().map(|ticks| ticks.source) {
                Some(TickSource::TickLens) => format!("{first}; the exits and the TickLens words followed in one Multicall3 batch."),
                Some(TickSource::Bitmap | TickSource::StateView | TickSource::TickTable) => format!("{first}; the exits and the tick bitmap words, then the ticks the words mark, followed in a second lens call."),
                None if read.sequential_round_trips > 1 => {
                    format!("{first}; the exits followed in one more request.")
                }
                None => format!("{first}."),
            }
        }
        ReadPath::Batches { .. } => "The chain was read in the ordinary Multicall3 batches, each depending on the one before (lens_fallback_reason says why the lens was not used).".to_owned(),
    }
}
