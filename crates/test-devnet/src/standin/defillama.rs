//! DefiLlama: the yields API (`yields.llama.fi`: `/pools`, `/chart/{pool}`, `/volume/{pool}`)
//! and the coins API (`coins.llama.fi/prices/current/{coins}`), in the shapes of DefiLlama's
//! yield-server (`src/api/controllers/*.js`, `src/utils/enrichedColumns.js`,
//! `src/handlers/triggerEnrichment.js`) and <https://defillama.com/docs/api>.
//!
//! One symbol is ambiguous on purpose, as it is on DefiLlama: `uniswap-v3` lists four
//! `WETH-USDC` pools on the devnet (fee tiers 0.01, 0.05, 0.3 and 1 %), told apart by `poolMeta`
//! only, so a caller naming the symbol must be told the candidates.
//!
//! The coins `/chart` price path: within the devnet's kept history a token's USD price at a
//! time is its reference pool's price then (the pricing rules of `data`); the devnet keeps about
//! two days, so for earlier times the path is extended by a deterministic swing of
//! ±[`SWING`] (a sine with a 31-day period, zero at the first recorded price), so impermanent
//! loss and range shares have a month to measure. Stablecoins keep their current price.
//!
//! A pool row is what the project's adaptor would report: `uniswap-v3` and `uniswap-v2` key a
//! pool by its subgraph id (the lower-case address), `aerodrome-v1` by its lower-case address;
//! the `pool` field of `/pools` is the id DefiLlama mints from that key (RFC 4122 UUIDv5 in
//! the yield-server's namespace, `src/utils/poolId.js`). `apyBase` is fees over TVL annualised
//! as the adaptors do (`utils.apy`): 24 h volume × fee × 365 / TVL × 100, `apyBase7d` with the
//! 7-day volume × 52. Numbers are rounded to 5 decimals, as the enrichment step does.

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy::primitives::Address;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::data::{PoolData, PoolKind, Snapshot};
use super::{Shared, iso_millis, json, json_status, lower, number_json};

const DAY: u64 = 86_400;

/// The id DefiLlama's `/pools` gives the pool an adaptor reports under `key` (for the DEX
/// adaptors of the devnet's pools, the lower-case pool address): the client's own derivation,
/// so the stand-in and the product cannot disagree on it.
pub fn pool_uuid(key: &str) -> String {
    oracle_sources::defillama::defillama_pool_id(key)
}

fn project(kind: PoolKind) -> &'static str {
    match kind {
        PoolKind::UniswapV2 => "uniswap-v2",
        PoolKind::UniswapV3 => "uniswap-v3",
        PoolKind::Aerodrome { .. } => "aerodrome-v1",
    }
}

fn round5(value: f64) -> Value {
    number_json((value * 1e5).round() / 1e5)
}

fn is_stablecoin(symbol: &str) -> bool {
    matches!(symbol, "USDC" | "USDT" | "DAI")
}

fn tvl_usd(snapshot: &Snapshot, pool: &PoolData) -> f64 {
    let usd = |token: Address| {
        snapshot
            .tokens
            .get(&token)
            .map_or(f64::NAN, |t| t.price_usd)
    };
    pool.balance0 * usd(pool.token0) + pool.balance1 * usd(pool.token1)
}

fn volume_between(pool: &PoolData, after: u64, until: u64) -> f64 {
    pool.swaps
        .iter()
        .filter(|s| s.timestamp > after && s.timestamp <= until)
        .map(|s| s.usd)
        .sum()
}

/// Fee APY in percent from a volume over `days` days.
fn fee_apy(pool: &PoolData, volume: f64, periods_per_year: f64, tvl: f64) -> f64 {
    volume * f64::from(pool.fee_ppm) / 1e6 * periods_per_year / tvl * 100.0
}

fn row(snapshot: &Snapshot, pool: &PoolData) -> Value {
    let t = snapshot.latest_timestamp;
    let tvl = tvl_usd(snapshot, pool);
    let volume_1d = volume_between(pool, t.saturating_sub(DAY), t);
    let volume_7d = volume_between(pool, t.saturating_sub(7 * DAY), t);
    let apy_base = fee_apy(pool, volume_1d, 365.0, tvl);
    let apy_base_7d = fee_apy(pool, volume_7d, 52.0, tvl);
    let (s0, s1) = (snapshot.symbol(pool.token0), snapshot.symbol(pool.token1));
    let stable = is_stablecoin(&s0) && is_stablecoin(&s1);
    let pool_meta = match pool.kind {
        PoolKind::UniswapV3 => Value::String(format!("{}%", f64::from(pool.fee_ppm) / 1e4)),
        _ => Value::Null,
    };
    json!({
        "chain": "Base",
        "project": project(pool.kind),
        "symbol": format!("{s0}-{s1}"),
        "tvlUsd": round5(tvl),
        "apyBase": round5(apy_base),
        "apyReward": Value::Null,
        "apy": round5(apy_base),
        "rewardTokens": Value::Null,
        "pool": pool_uuid(&lower(pool.address)),
        "apyPct1D": Value::Null,
        "apyPct7D": Value::Null,
        "apyPct30D": Value::Null,
        "stablecoin": stable,
        "ilRisk": if stable { "no" } else { "yes" },
        "exposure": "multi",
        "predictions": {
            "predictedClass": Value::Null,
            "predictedProbability": Value::Null,
            "binnedConfidence": Value::Null,
        },
        "poolMeta": pool_meta,
        "mu": round5(apy_base),
        "sigma": 0,
        "count": 1,
        "outlier": false,
        "underlyingTokens": [lower(pool.token0), lower(pool.token1)],
        "il7d": Value::Null,
        "apyBase7d": round5(apy_base_7d),
        "apyMean30d": round5(apy_base),
        "volumeUsd1d": round5(volume_1d),
        "volumeUsd7d": round5(volume_7d),
        "apyBaseInception": Value::Null,
    })
}

/// `GET /pools`: one row per devnet pool, largest TVL first (as the enrichment sorts them).
pub(super) async fn pools(State(shared): State<Arc<Shared>>) -> Response {
    let snapshot = &shared.snapshot;
    let mut rows: Vec<(f64, Value)> = snapshot
        .pools
        .iter()
        .map(|pool| (tvl_usd(snapshot, pool), row(snapshot, pool)))
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    json(json!({
        "status": "success",
        "data": rows.into_iter().map(|(_, row)| row).collect::<Vec<_>>(),
    }))
}

fn pool_by_uuid<'a>(snapshot: &'a Snapshot, id: &str) -> Option<&'a PoolData> {
    snapshot
        .pools
        .iter()
        .find(|pool| pool_uuid(&lower(pool.address)) == id.to_ascii_lowercase())
}

fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

fn invalid_config_id() -> Response {
    json_status(StatusCode::BAD_REQUEST, json!("invalid configID!"))
}

/// Per UTC day with swaps (oldest first, days taken in chain time): the day's last sample time
/// (the latest block's for the latest day), in chain time, and the day's volume.
fn days(snapshot: &Snapshot, pool: &PoolData) -> Vec<(u64, f64)> {
    let mut by_day: BTreeMap<u64, (u64, f64)> = BTreeMap::new();
    for swap in &pool.swaps {
        let entry = by_day
            .entry(swap.timestamp / DAY)
            .or_insert((swap.timestamp, 0.0));
        entry.0 = entry.0.max(swap.timestamp);
        entry.1 += swap.usd;
    }
    let latest_day = snapshot.latest_timestamp / DAY;
    by_day
        .into_iter()
        .map(|(day, (last, volume))| {
            let sample = if day == latest_day {
                snapshot.latest_timestamp
            } else {
                last
            };
            (sample, volume)
        })
        .collect()
}

/// `GET /chart/{pool}`: the last sample of each day, its time served shifted by the clock
/// offset. The devnet keeps no TVL history, so every row carries the TVL at the latest block;
/// `apyBase` is that day's fee APY.
pub(super) async fn chart(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    if !is_uuid(&id) {
        return invalid_config_id();
    }
    let snapshot = &shared.snapshot;
    let rows: Vec<Value> = pool_by_uuid(snapshot, &id)
        .map(|pool| {
            let tvl = tvl_usd(snapshot, pool);
            days(snapshot, pool)
                .into_iter()
                .map(|(timestamp, volume)| {
                    let apy = fee_apy(pool, volume, 365.0, tvl);
                    json!({
                        "timestamp": iso_millis(shared.served(timestamp)),
                        "tvlUsd": round5(tvl),
                        "apy": round5(apy),
                        "apyBase": round5(apy),
                        "apyReward": Value::Null,
                        "il7d": Value::Null,
                        "apyBase7d": Value::Null,
                        "pricePerShare": Value::Null,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json(json!({"status": "success", "data": rows}))
}

/// `GET /volume/{pool}`: each day's `volumeUsd1d`, its time served shifted by the clock offset.
pub(super) async fn volume(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    if !is_uuid(&id) {
        return invalid_config_id();
    }
    let snapshot = &shared.snapshot;
    let rows: Vec<Value> = pool_by_uuid(snapshot, &id)
        .map(|pool| {
            days(snapshot, pool)
                .into_iter()
                .map(|(timestamp, volume)| {
                    json!({"timestamp": iso_millis(shared.served(timestamp)), "volumeUsd1d": round5(volume)})
                })
                .collect()
        })
        .unwrap_or_default();
    json(json!({"status": "success", "data": rows}))
}

/// `GET /prices/current/{coins}`: `base:0x…` keys of devnet tokens, answered under the key as
/// asked; others are left out, as DefiLlama leaves out coins it does not know. `timestamp` is
/// the latest block's, served shifted by the clock offset.
pub(super) async fn prices_current(
    State(shared): State<Arc<Shared>>,
    Path(coins): Path<String>,
) -> Response {
    let snapshot = &shared.snapshot;
    let mut answer = serde_json::Map::new();
    for key in coins.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        let Some((chain, address)) = key.split_once(':') else {
            continue;
        };
        if !chain.eq_ignore_ascii_case("base") {
            continue;
        }
        let Some(token) = address
            .parse::<Address>()
            .ok()
            .and_then(|a| snapshot.tokens.get(&a))
        else {
            continue;
        };
        if !token.price_usd.is_finite() {
            continue;
        }
        answer.insert(
            key.to_owned(),
            json!({
                "decimals": token.decimals,
                "symbol": token.symbol,
                "price": token.price_usd,
                "timestamp": shared.served(snapshot.latest_timestamp),
                "confidence": 0.99,
            }),
        );
    }
    json(json!({"coins": answer}))
}

/// Relative amplitude of the swing that extends the price path before the devnet's history.
pub(super) const SWING: f64 = 0.12;

/// A token's USD price at chain time `t`: stablecoins at their current price; others through
/// the Uniswap V3 pool pairing them with USDC (else WETH) that holds the most of them, at its
/// price then; before the pool's first recorded event, the swing of [`SWING`].
fn usd_at(snapshot: &Snapshot, token: Address, t: u64, depth: u8) -> Option<f64> {
    let info = snapshot.tokens.get(&token)?;
    if is_stablecoin(&info.symbol) || depth > 2 {
        return Some(info.price_usd);
    }
    let usdc = snapshot
        .tokens
        .values()
        .find(|t| t.symbol == "USDC")
        .map(|t| t.address);
    let reference = [usdc, Some(snapshot.weth)]
        .into_iter()
        .flatten()
        .filter(|quote| *quote != token)
        .find_map(|quote| {
            snapshot
                .pools
                .iter()
                .filter(|p| p.kind == PoolKind::UniswapV3)
                .filter(|p| {
                    (p.token0 == token && p.token1 == quote)
                        || (p.token1 == token && p.token0 == quote)
                })
                .max_by(|a, b| {
                    let held = |p: &PoolData| {
                        if p.token0 == token {
                            p.balance0
                        } else {
                            p.balance1
                        }
                    };
                    held(a).total_cmp(&held(b))
                })
                .map(|pool| (pool, quote))
        });
    let Some((pool, quote)) = reference else {
        return Some(info.price_usd);
    };
    let first = pool.series.first().map_or(t, |p| p.timestamp);
    let clamped = t.max(first);
    let in_quote = pool.price0_in_1_at_time(clamped);
    let in_quote = if pool.token0 == token {
        in_quote
    } else {
        1.0 / in_quote
    };
    let price = in_quote * usd_at(snapshot, quote, clamped, depth + 1)?;
    let before = first.saturating_sub(t) as f64;
    let swing = SWING * (std::f64::consts::TAU * before / (31.0 * DAY as f64)).sin();
    Some(price * (1.0 + swing))
}

/// The seconds of a DefiLlama period text (`1d`, `4h`, `30m`, `2w`).
fn period_seconds(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (count, unit) = text.split_at(split);
    let count: u64 = if count.is_empty() {
        1
    } else {
        count.parse().ok()?
    };
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => DAY,
        "w" => 7 * DAY,
        _ => return None,
    };
    Some(count * unit)
}

/// `GET /chart/{coins}?start=&span=&period=`: `span` points from `start` (served time), one
/// per `period`, for each `base:0x…` key of a devnet token, in DefiLlama's shape
/// (`{coins:{key:{symbol, confidence, decimals, prices:[{timestamp, price}]}}}`). Points later
/// than the latest block are left out, as DefiLlama has no price for the future.
pub(super) async fn coins_chart(
    State(shared): State<Arc<Shared>>,
    Path(coins): Path<String>,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let snapshot = &shared.snapshot;
    let latest_served = shared.served(snapshot.latest_timestamp);
    let span: u64 = query
        .get("span")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
        .min(1_000);
    let period = query.get("period").map_or(Some(DAY), |p| period_seconds(p));
    let start = query.get("start").and_then(|s| s.parse::<u64>().ok());
    let (Some(period), Some(start)) = (period, start) else {
        return json_status(
            StatusCode::BAD_REQUEST,
            json!({"message": "start and a period such as 1d are required"}),
        );
    };
    let mut answer = serde_json::Map::new();
    for key in coins.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        let Some((chain, address)) = key.split_once(':') else {
            continue;
        };
        if !chain.eq_ignore_ascii_case("base") {
            continue;
        }
        let Some(token) = address
            .parse::<Address>()
            .ok()
            .and_then(|a| snapshot.tokens.get(&a))
        else {
            continue;
        };
        let prices: Vec<Value> = (0..span)
            .map(|i| start + i * period)
            .filter(|served| *served <= latest_served)
            .filter_map(|served| {
                let chain_time = served.saturating_sub(shared.clock_offset);
                let price = usd_at(snapshot, token.address, chain_time, 0)?;
                price
                    .is_finite()
                    .then(|| json!({"timestamp": served, "price": number_json(price)}))
            })
            .collect();
        answer.insert(
            key.to_owned(),
            json!({
                "symbol": token.symbol,
                "confidence": 0.99,
                "decimals": token.decimals,
                "prices": prices,
            }),
        );
    }
    json(json!({"coins": answer}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_ids_match_the_yield_servers_reference_vector() {
        // src/utils/poolId.js checks this vector when it loads.
        assert_eq!(
            pool_uuid("aave-v3-WETH"),
            "7e0520c4-e3a0-54c5-b3de-ed95d80b7189"
        );
        assert!(is_uuid(&pool_uuid(
            "0xb4954e7786e5dc7d738551aa9e5e8d02149d75e8"
        )));
        assert!(!is_uuid("0xb4954e7786e5dc7d738551aa9e5e8d02149d75e8"));
    }

    #[test]
    fn periods_parse_as_defillama_writes_them() {
        assert_eq!(period_seconds("1d"), Some(DAY));
        assert_eq!(period_seconds("4h"), Some(4 * 3_600));
        assert_eq!(period_seconds("d"), Some(DAY));
        assert_eq!(period_seconds("2w"), Some(14 * DAY));
        assert_eq!(period_seconds("1y"), None);
        assert_eq!(period_seconds("10"), None);
    }
}
