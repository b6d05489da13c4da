//! `POST /pool/liquidity`: the answer's types and its wording over `dex-route`'s pool read
//! (every chain read at one block, at most two round trips through the read lens) and `oracle-sources`' volume
//! (read concurrently, a foreign figure with its own age).
//!
//! Runs inside the payment gate's work closure: any error here is answered without settling.

mod answer;
mod parts;
mod word;

use alloy::primitives::Address;
use chain_read::dex::PoolKey;
use chain_read::{DexId, PinnedReader};
use dex_route::liquidity::{BalancerName, LiquidityRequest, PoolRef, read_pool_liquidity_with};
use oracle_sources::Sources;
use server_kit::{ApiError, ErrorCode};

pub use self::answer::{
    DepthBand, DepthSide, ExitImpact, ForeignVolume, PoolLiquidityAnswer, PoolTokenInfo, Reserve,
    Reserves, TierCompared,
};
use self::word::word;
use crate::answer::address;
use crate::chains::{Chains, route_error};
use crate::requests::PoolLiquidityRequest;

/// The request as the library reads it; a DEX the chain does not have is refused before
/// payment (400 `unsupported_protocol`).
pub fn pool_ref(chains: &Chains, request: &PoolLiquidityRequest) -> Result<PoolRef, ApiError> {
    if let Some(pool) = &request.pool {
        if request.dex == Some(DexId::BalancerV2) {
            return balancer_ref(chains, request, pool);
        }
        if !pool.is_pool_id() {
            return Ok(PoolRef::Address(address(&pool.0, "pool")?));
        }
        let tokens = match (&request.token_a, &request.token_b) {
            (Some(a), Some(b)) => Some((address(&a.0, "token_a")?, address(&b.0, "token_b")?)),
            (None, None) => None,
            _ => {
                return Err(ApiError::invalid_field(
                    "pool",
                    "a Uniswap V4 PoolId goes alone or with both token_a and token_b",
                ));
            }
        };
        let info = chains.info(request.chain)?;
        if info.dex(DexId::UniswapV4).is_none() {
            return Err(ApiError::new(
                ErrorCode::UnsupportedProtocol,
                format!("pool: Uniswap V4 is not read on {}", request.chain.as_str()),
            ));
        }
        return Ok(PoolRef::V4 {
            id: pool
                .0
                .parse()
                .map_err(|e| ApiError::invalid_field("pool", format!("not a PoolId: {e}")))?,
            tokens,
        });
    }
    let (Some(a), Some(b), Some(dex)) = (&request.token_a, &request.token_b, request.dex) else {
        return Err(ApiError::invalid_field(
            "pool",
            "is required when token_a + token_b + dex are not all given",
        ));
    };
    let info = chains.info(request.chain)?;
    let read_here =
        |id: DexId| id.has_adapter() && dex_route::kinds::of(id.kind()).reads_pool_liquidity();
    if !read_here(dex) || info.dex(dex).is_none() {
        return Err(ApiError::new(
            ErrorCode::UnsupportedProtocol,
            format!(
                "dex: {dex} is not read on {}{}; DEXes read there: {}",
                request.chain.as_str(),
                if !dex.has_adapter() {
                    " (its pools are Algebra pools, which the service does not read)"
                } else if !read_here(dex) {
                    " by this route (its pools are quoted by /dex/quote; their exits and depth are not read)"
                } else {
                    ""
                },
                info.dexes()
                    .filter(|d| read_here(d.id))
                    .map(|d| d.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(PoolRef::Pair {
        dex,
        token_a: address(&a.0, "token_a")?,
        token_b: address(&b.0, "token_b")?,
        fee_tier_ppm: request.fee_tier_ppm,
    })
}

/// A Balancer V2 pool named by id or address with dex `balancer_v2`.
fn balancer_ref(
    chains: &Chains,
    request: &PoolLiquidityRequest,
    pool: &crate::requests::PoolText,
) -> Result<PoolRef, ApiError> {
    let info = chains.info(request.chain)?;
    if info.dex(DexId::BalancerV2).is_none() {
        return Err(ApiError::new(
            ErrorCode::UnsupportedProtocol,
            format!("dex: balancer_v2 is not read on {}", request.chain.as_str()),
        ));
    }
    let name = if pool.is_pool_id() {
        BalancerName::Id(
            pool.0
                .parse()
                .map_err(|e| ApiError::invalid_field("pool", format!("not a pool id: {e}")))?,
        )
    } else {
        BalancerName::Address(address(&pool.0, "pool")?)
    };
    let pair = match (&request.token_a, &request.token_b) {
        (Some(a), Some(b)) => Some((address(&a.0, "token_a")?, address(&b.0, "token_b")?)),
        _ => None,
    };
    Ok(PoolRef::Balancer { pool: name, pair })
}

/// The route's work.
pub async fn pool_liquidity(
    chains: &Chains,
    sources: &Sources,
    request: &PoolLiquidityRequest,
) -> Result<PoolLiquidityAnswer, ApiError> {
    let (info, client) = chains.access(request.chain)?;
    let pool_ref = pool_ref(chains, request)?;
    let reader = PinnedReader::for_chain(client.clone(), info);
    let read_request = LiquidityRequest::new(pool_ref);
    let chain = request.chain;
    // The volume read starts as soon as the pool's address is known: at once for an
    // address, after the tier choice for a pair.
    // A Uniswap V4 pool is no contract: its volume by PoolId is not asked (`None` inside).
    let (chosen_tx, chosen_rx) = tokio::sync::oneshot::channel::<Option<Address>>();
    let known = match pool_ref {
        PoolRef::Address(address) => Some(address),
        PoolRef::Pair { .. } | PoolRef::V4 { .. } | PoolRef::Balancer { .. } => None,
    };
    let read = read_pool_liquidity_with(info, &reader, &read_request, move |pool| {
        let address = match pool.key {
            PoolKey::V4 { .. } => None,
            _ => Some(pool.address),
        };
        // The receiver lives until the volume future ends; a send error means nobody waits.
        let _ = chosen_tx.send(address);
    });
    let volume = async move {
        let address = match known {
            Some(address) => Some(Some(address)),
            None => chosen_rx.await.ok(),
        };
        match address {
            Some(Some(address)) => Some(
                sources
                    .pool_volume(chain, address, oracle_sources::unix_now())
                    .await,
            ),
            Some(None) => Some(v4_volume()),
            None => None,
        }
    };
    let (read, volume) = tokio::join!(read, volume);
    let read = read.map_err(|error| route_error(request.chain, error))?;
    let volume = volume.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            "the pool was read but its address was not passed on",
        )
    })?;
    Ok(word(request.chain, &read, volume))
}

/// The volume of a Uniswap V4 pool: not asked, with why.
fn v4_volume() -> oracle_sources::PoolVolume {
    let null = |method: &str| {
        oracle_sources::ForeignFigure {
        usd: None,
        source: None,
        url: None,
        as_of: None,
        age_seconds: None,
        method: method.to_owned(),
        null_reason: Some("not asked: the volume sources are read by pool contract address, and a Uniswap V4 pool is named by its PoolId inside the PoolManager".to_owned()),
    }
    };
    oracle_sources::PoolVolume {
        volume_24h: null("none"),
        volume_7d: null("none"),
    }
}
