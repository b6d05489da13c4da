//! GeckoTerminal API v2 (the public `api.geckoterminal.com/api/v2`, also CoinGecko's
//! `/onchain` API): the pool document and its OHLCV, in the JSON:API shape of
//! <https://docs.coingecko.com/reference/pool-address> and
//! <https://docs.coingecko.com/reference/pool-ohlcv-contract-address>. Numbers in `attributes`
//! are strings, as GeckoTerminal sends them; `ohlcv_list` rows are numbers, newest first.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use alloy::primitives::Address;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};

use super::data::{PoolData, PoolKind, Snapshot, SwapRecord};
use super::{Shared, decimal_json, json, json_status, lower, number_json, rfc3339};

/// The only network served: the devnet is chain 8453, Base.
const NETWORK: &str = "base";

/// The windows of `volume_usd`, `transactions` and `price_change_percentage`.
const WINDOWS: [(&str, u64); 6] = [
    ("m5", 300),
    ("m15", 900),
    ("m30", 1800),
    ("h1", 3600),
    ("h6", 21_600),
    ("h24", 86_400),
];

/// GeckoTerminal's DEX id of each pool kind on Base.
fn dex_id(kind: PoolKind) -> &'static str {
    match kind {
        PoolKind::UniswapV2 => "uniswap-v2-base",
        PoolKind::UniswapV3 => "uniswap-v3-base",
        PoolKind::Aerodrome { .. } => "aerodrome-base",
    }
}

fn dex_name(kind: PoolKind) -> &'static str {
    match kind {
        PoolKind::UniswapV2 => "Uniswap V2 (Base)",
        PoolKind::UniswapV3 => "Uniswap V3 (Base)",
        PoolKind::Aerodrome { .. } => "Aerodrome",
    }
}

/// GeckoTerminal's JSON:API error body for an unknown resource.
pub(super) fn not_found() -> Response {
    json_status(
        StatusCode::NOT_FOUND,
        json!({"errors": [{"status": "404", "title": "Not Found"}]}),
    )
}

fn bad_request(title: &str) -> Response {
    json_status(
        StatusCode::BAD_REQUEST,
        json!({"errors": [{"status": "400", "title": title}]}),
    )
}

/// The quote side of a pair: the token more like a currency (USDC, then WETH, USDT, DAI).
pub(super) fn base_is_token0(snapshot: &Snapshot, pool: &PoolData) -> bool {
    let rank = |token: Address| match snapshot.symbol(token).as_str() {
        "USDC" => 0,
        "WETH" => 1,
        "USDT" => 2,
        "DAI" => 3,
        _ => 9,
    };
    rank(pool.token1) <= rank(pool.token0)
}

fn token_id(token: Address) -> String {
    format!("{NETWORK}_{}", lower(token))
}

fn token_name(symbol: &str) -> &str {
    match symbol {
        "WETH" => "Wrapped Ether",
        "USDC" => "USD Coin",
        "WBTC" => "Wrapped BTC",
        "LINK" => "ChainLink Token",
        "DAI" => "Dai Stablecoin",
        "USDT" => "Tether USD",
        other => other,
    }
}

fn parse_pool<'a>(snapshot: &'a Snapshot, network: &str, address: &str) -> Option<&'a PoolData> {
    if network != NETWORK {
        return None;
    }
    snapshot.pool(address.parse().ok()?)
}

fn fee_percent(pool: &PoolData) -> String {
    format!("{}", f64::from(pool.fee_ppm) / 10_000.0)
}

#[derive(Debug, Deserialize)]
pub(super) struct PoolQuery {
    include: Option<String>,
}

/// `GET /networks/{network}/pools/{address}[?include=base_token,quote_token,dex]`.
pub(super) async fn pool(
    State(shared): State<Arc<Shared>>,
    Path((network, address)): Path<(String, String)>,
    Query(query): Query<PoolQuery>,
) -> Response {
    let snapshot = &shared.snapshot;
    let Some(pool) = parse_pool(snapshot, &network, &address) else {
        return not_found();
    };
    let include: BTreeSet<&str> = query
        .include
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    json(pool_document(&shared, pool, &include))
}

/// The pool document; its windows are relative (they end at the latest block), its one
/// absolute time, `pool_created_at`, is served shifted by the clock offset.
fn pool_document(shared: &Shared, pool: &PoolData, include: &BTreeSet<&str>) -> Value {
    let snapshot = &shared.snapshot;
    let t = snapshot.latest_timestamp;
    let base0 = base_is_token0(snapshot, pool);
    let (base, quote) = if base0 {
        (pool.token0, pool.token1)
    } else {
        (pool.token1, pool.token0)
    };
    let usd = |token: Address| {
        snapshot
            .tokens
            .get(&token)
            .map_or(f64::NAN, |t| t.price_usd)
    };
    let eth_usd = usd(snapshot.weth);
    let base_in_quote = if base0 {
        pool.price0_in_1
    } else {
        1.0 / pool.price0_in_1
    };
    let reserve_usd = pool.balance0 * usd(pool.token0) + pool.balance1 * usd(pool.token1);
    let pair = format!("{} / {}", snapshot.symbol(base), snapshot.symbol(quote));
    let name = match pool.kind {
        PoolKind::UniswapV3 => format!("{pair} {}%", fee_percent(pool)),
        _ => pair.clone(),
    };

    let mut volume = serde_json::Map::new();
    let mut transactions = serde_json::Map::new();
    let mut change = serde_json::Map::new();
    for (label, seconds) in WINDOWS {
        let since = t.saturating_sub(seconds);
        let swaps: Vec<&SwapRecord> = pool
            .swaps
            .iter()
            .filter(|s| s.timestamp > since && s.timestamp <= t)
            .collect();
        let total: f64 = swaps.iter().map(|s| s.usd).sum();
        volume.insert(label.into(), decimal_json(total));
        let buy = |s: &SwapRecord| {
            if base0 {
                s.amount0 < 0.0
            } else {
                s.amount1 < 0.0
            }
        };
        let buys: Vec<&&SwapRecord> = swaps.iter().filter(|s| buy(s)).collect();
        let sells: Vec<&&SwapRecord> = swaps.iter().filter(|s| !buy(s)).collect();
        let unique = |list: &[&&SwapRecord]| {
            list.iter()
                .map(|s| s.recipient)
                .collect::<BTreeSet<_>>()
                .len()
        };
        transactions.insert(
            label.into(),
            json!({
                "buys": buys.len(),
                "sells": sells.len(),
                "buyers": unique(&buys),
                "sellers": unique(&sells),
            }),
        );
        let then = pool.price0_in_1_at_time(since);
        let then = if base0 { then } else { 1.0 / then };
        let pct = (base_in_quote / then - 1.0) * 100.0;
        change.insert(label.into(), Value::String(format!("{pct:.3}")));
    }

    let mut document = json!({
        "data": {
            "id": format!("{NETWORK}_{}", lower(pool.address)),
            "type": "pool",
            "attributes": {
                "base_token_price_usd": decimal_json(usd(base)),
                "base_token_price_native_currency": decimal_json(usd(base) / eth_usd),
                "quote_token_price_usd": decimal_json(usd(quote)),
                "quote_token_price_native_currency": decimal_json(usd(quote) / eth_usd),
                "base_token_price_quote_token": decimal_json(base_in_quote),
                "quote_token_price_base_token": decimal_json(1.0 / base_in_quote),
                "address": lower(pool.address),
                "name": name,
                "pool_name": pair,
                "pool_fee_percentage": fee_percent(pool),
                "pool_created_at": rfc3339(shared.served(snapshot.pools_created_at)),
                "fdv_usd": Value::Null,
                "market_cap_usd": Value::Null,
                "price_change_percentage": change,
                "transactions": transactions,
                "volume_usd": volume,
                "reserve_in_usd": decimal_json(reserve_usd),
                "locked_liquidity_percentage": Value::Null,
            },
            "relationships": {
                "base_token": {"data": {"id": token_id(base), "type": "token"}},
                "quote_token": {"data": {"id": token_id(quote), "type": "token"}},
                "dex": {"data": {"id": dex_id(pool.kind), "type": "dex"}},
            },
        }
    });
    let mut included = Vec::new();
    for (key, token) in [("base_token", base), ("quote_token", quote)] {
        if include.contains(key) {
            included.push(token_resource(snapshot, token));
        }
    }
    if include.contains("dex") {
        included.push(json!({
            "id": dex_id(pool.kind),
            "type": "dex",
            "attributes": {"name": dex_name(pool.kind)},
        }));
    }
    if !included.is_empty() {
        document["included"] = Value::Array(included);
    }
    document
}

fn token_resource(snapshot: &Snapshot, token: Address) -> Value {
    let symbol = snapshot.symbol(token);
    let decimals = snapshot.tokens.get(&token).map_or(18, |t| t.decimals);
    json!({
        "id": token_id(token),
        "type": "token",
        "attributes": {
            "address": lower(token),
            "name": token_name(&symbol),
            "symbol": symbol,
            "decimals": decimals,
            "image_url": "missing.png",
            "coingecko_coin_id": Value::Null,
        },
    })
}

#[derive(Debug, Deserialize)]
pub(super) struct OhlcvQuery {
    aggregate: Option<String>,
    before_timestamp: Option<String>,
    limit: Option<String>,
    currency: Option<String>,
    token: Option<String>,
}

/// `GET /networks/{network}/pools/{address}/ohlcv/{day|hour|minute}`: one candle per interval
/// that has at least one swap, newest first. Buckets are taken in chain time; the starts are
/// served shifted by the clock offset rounded down to the bucket (a whole day for day candles,
/// so they stay at 00:00 UTC), and `before_timestamp` is read in served time.
pub(super) async fn ohlcv(
    State(shared): State<Arc<Shared>>,
    Path((network, address, timeframe)): Path<(String, String, String)>,
    Query(query): Query<OhlcvQuery>,
) -> Response {
    let snapshot = &shared.snapshot;
    let Some(pool) = parse_pool(snapshot, &network, &address) else {
        return not_found();
    };
    let (unit, allowed): (u64, &[u64]) = match timeframe.as_str() {
        "day" => (86_400, &[1]),
        "hour" => (3600, &[1, 4, 12]),
        "minute" => (60, &[1, 5, 15]),
        _ => return bad_request("Invalid timeframe"),
    };
    let aggregate = match query.aggregate.as_deref().map(str::parse::<u64>) {
        None => 1,
        Some(Ok(n)) if allowed.contains(&n) => n,
        Some(_) => return bad_request("Invalid aggregate"),
    };
    let limit = match query.limit.as_deref().map(str::parse::<usize>) {
        None => 100,
        Some(Ok(n)) => n.clamp(1, 1000),
        Some(Err(_)) => return bad_request("Invalid limit"),
    };
    let before = match query.before_timestamp.as_deref().map(str::parse::<u64>) {
        None => u64::MAX,
        Some(Ok(n)) => n,
        Some(Err(_)) => return bad_request("Invalid before_timestamp"),
    };
    let in_usd = match query.currency.as_deref() {
        None | Some("usd") => true,
        Some("token") => false,
        Some(_) => return bad_request("Invalid currency"),
    };
    let base0 = base_is_token0(snapshot, pool);
    let of_token0 = match query.token.as_deref() {
        None | Some("base") => base0,
        Some("quote") => !base0,
        Some(other) => match other.parse::<Address>() {
            Ok(a) if a == pool.token0 => true,
            Ok(a) if a == pool.token1 => false,
            _ => return bad_request("Invalid token"),
        },
    };
    let bucket = unit * aggregate;
    let shift = shared.offset_for_bucket(bucket);
    let list = candles(pool, bucket, shift, of_token0, in_usd, before, limit);
    let (subject, other) = if of_token0 {
        (pool.token0, pool.token1)
    } else {
        (pool.token1, pool.token0)
    };
    let meta_token = |token: Address| {
        let symbol = snapshot.symbol(token);
        json!({
            "address": lower(token),
            "name": token_name(&symbol),
            "symbol": symbol,
            "coingecko_coin_id": Value::Null,
        })
    };
    json(json!({
        "data": {
            "id": oracle_sources::defillama::defillama_pool_id(&format!("ohlcv:{}:{timeframe}:{aggregate}", lower(pool.address))),
            "type": "ohlcv_request_response",
            "attributes": {"ohlcv_list": list},
        },
        "meta": {"base": meta_token(subject), "quote": meta_token(other)},
    }))
}

/// Candles of the price of token0 (or token1) in USD (or in the other token), one per bucket
/// with swaps, newest first. A candle opens at the price after the pool's previous swap (the
/// first swap's own price for the very first candle); volume is in USD (in the other token
/// when `in_usd` is false). Buckets are in chain time; starts are served plus `shift`, and
/// `before` (served time) is compared with the served starts.
fn candles(
    pool: &PoolData,
    bucket: u64,
    shift: u64,
    of_token0: bool,
    in_usd: bool,
    before: u64,
    limit: usize,
) -> Vec<Value> {
    let price = |s: &SwapRecord| {
        let in_other = if of_token0 {
            s.price0_in_1_after
        } else {
            1.0 / s.price0_in_1_after
        };
        if in_usd {
            in_other * if of_token0 { s.usd1 } else { s.usd0 }
        } else {
            in_other
        }
    };
    let volume = |s: &SwapRecord| {
        if in_usd {
            s.usd
        } else {
            s.usd / if of_token0 { s.usd1 } else { s.usd0 }
        }
    };
    let mut by_bucket: BTreeMap<u64, (f64, f64, f64, f64, f64)> = BTreeMap::new();
    let mut previous: Option<f64> = None;
    for swap in &pool.swaps {
        let start = swap.timestamp - swap.timestamp % bucket;
        let p = price(swap);
        let entry = by_bucket.entry(start).or_insert_with(|| {
            let open = previous.unwrap_or(p);
            (open, open, open, open, 0.0)
        });
        entry.1 = entry.1.max(p);
        entry.2 = entry.2.min(p);
        entry.3 = p;
        entry.4 += volume(swap);
        previous = Some(p);
    }
    by_bucket
        .into_iter()
        .rev()
        .map(|(start, candle)| (start.saturating_add(shift), candle))
        .filter(|(start, _)| *start < before)
        .take(limit)
        .map(|(start, (o, h, l, c, v))| {
            json!([
                start,
                number_json(o),
                number_json(h),
                number_json(l),
                number_json(c),
                number_json(v)
            ])
        })
        .collect()
}
