//! Exchange tickers and Pyth Hermes, priced from the devnet feeds' last answers at the latest
//! block (a feed's answer is the last trade; bid and ask sit one cent either side). Times (the
//! feed's `updatedAt`) are served shifted by the clock offset; Kraken's and Binance's tickers
//! carry none. Formats:
//! - Coinbase Exchange `GET /products/{id}/ticker`
//!   (<https://docs.cdp.coinbase.com/exchange/reference/exchangerestapi_getproductticker>);
//! - Kraken `GET /0/public/Ticker?pair=` (<https://docs.kraken.com/api/docs/rest-api/get-ticker-information>);
//! - Binance `GET /api/v3/ticker/bookTicker` and `/api/v3/ticker/price`
//!   (<https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints>);
//! - Pyth Hermes `GET /v2/updates/price/latest?ids[]=…&parsed=true`
//!   (<https://hermes.pyth.network/docs>). Only ETH/USD and BTC/USD ids are served; the
//!   `binary` member carries no signed update (the stand-in cannot sign one);
//! - RedStone oracle gateway `GET /data-packages/latest/{service}`, the shape of
//!   redstone-oracles-monorepo `packages/utils/src/types/cache-response.ts`:
//!   three signers per feed at the feed's answer raised by `REDSTONE_OFFSET_BPS` (±1 bp between
//!   signers), unsigned (`signature` is a placeholder, `isSignatureValid` true).

use std::sync::Arc;

use axum::extract::{Path, Query, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::data::{FeedPrice, Snapshot};
use super::{Shared, json, json_status};

/// Half the bid–ask spread, in USD.
const HALF_SPREAD: f64 = 0.01;

fn feed<'a>(snapshot: &'a Snapshot, asset: &str) -> Option<&'a FeedPrice> {
    snapshot.feeds.get(&format!("{asset}/USD"))
}

/// What of `asset` the devnet's pools traded in the last 24 h, in token units.
fn volume_24h(snapshot: &Snapshot, asset: &str) -> f64 {
    let symbol = match asset {
        "ETH" => "WETH",
        "BTC" => "WBTC",
        other => other,
    };
    let since = snapshot.latest_timestamp.saturating_sub(86_400);
    snapshot
        .pools
        .iter()
        .flat_map(|pool| {
            let side0 = snapshot.symbol(pool.token0) == symbol;
            let side1 = snapshot.symbol(pool.token1) == symbol;
            pool.swaps
                .iter()
                .filter(move |s| s.timestamp > since && (side0 || side1))
                .map(move |s| {
                    if side0 {
                        s.amount0.abs()
                    } else {
                        s.amount1.abs()
                    }
                })
        })
        .sum()
}

/// `GET /products/{BASE-USD}/ticker`.
pub(super) async fn coinbase_ticker(
    State(shared): State<Arc<Shared>>,
    Path(product): Path<String>,
) -> Response {
    let snapshot = &shared.snapshot;
    let asset = product
        .strip_suffix("-USD")
        .filter(|a| ["ETH", "BTC", "LINK", "DAI", "USDT"].contains(a));
    let Some((asset, price)) = asset.and_then(|a| feed(snapshot, a).map(|f| (a, f))) else {
        return json_status(StatusCode::NOT_FOUND, json!({"message": "NotFound"}));
    };
    json(json!({
        "ask": format!("{:.2}", price.price + HALF_SPREAD),
        "bid": format!("{:.2}", price.price - HALF_SPREAD),
        "volume": format!("{:.8}", volume_24h(snapshot, asset)),
        "trade_id": snapshot.latest_block,
        "price": format!("{:.2}", price.price),
        "size": "0.01000000",
        "time": super::rfc3339(shared.served(price.updated_at)).replace('Z', ".000000Z"),
    }))
}

#[derive(Debug, Deserialize)]
pub(super) struct KrakenQuery {
    pair: Option<String>,
}

/// `GET /0/public/Ticker?pair=ETHUSD`: the result is keyed by Kraken's own pair name
/// (`XETHZUSD`), whatever alias was asked.
pub(super) async fn kraken_ticker(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<KrakenQuery>,
) -> Response {
    let snapshot = &shared.snapshot;
    let (asset, key) = match query
        .pair
        .as_deref()
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        Some("ETHUSD" | "XETHZUSD") => ("ETH", "XETHZUSD"),
        Some("XBTUSD" | "BTCUSD" | "XXBTZUSD") => ("BTC", "XXBTZUSD"),
        Some("LINKUSD") => ("LINK", "LINKUSD"),
        Some("DAIUSD") => ("DAI", "DAIUSD"),
        Some("USDTUSD" | "USDTZUSD") => ("USDT", "USDTZUSD"),
        _ => return json(json!({"error": ["EQuery:Unknown asset pair"]})),
    };
    let Some(price) = feed(snapshot, asset) else {
        return json(json!({"error": ["EQuery:Unknown asset pair"]}));
    };
    let p = |v: f64| format!("{v:.5}");
    let volume = format!("{:.8}", volume_24h(snapshot, asset));
    json(json!({
        "error": [],
        "result": {
            key: {
                "a": [p(price.price + HALF_SPREAD), "1", "1.000"],
                "b": [p(price.price - HALF_SPREAD), "1", "1.000"],
                "c": [p(price.price), "0.01000000"],
                "v": [volume, volume],
                "p": [p(price.price), p(price.price)],
                "t": [1, 1],
                "l": [p(price.price), p(price.price)],
                "h": [p(price.price), p(price.price)],
                "o": p(price.price),
            }
        }
    }))
}

#[derive(Debug, Deserialize)]
pub(super) struct BinanceQuery {
    symbol: Option<String>,
}

/// The price of a Binance symbol: the base feed over the quote feed (USDT and USDC quotes are
/// not USD).
fn binance_price_of(snapshot: &Snapshot, symbol: &str) -> Option<f64> {
    let (base, quote) = ["USDT", "USDC"]
        .into_iter()
        .find_map(|quote| symbol.strip_suffix(quote).map(|base| (base, quote)))?;
    if !["ETH", "BTC", "LINK"].contains(&base) {
        return None;
    }
    Some(feed(snapshot, base)?.price / feed(snapshot, quote)?.price)
}

fn binance_invalid_symbol() -> Response {
    json_status(
        StatusCode::BAD_REQUEST,
        json!({"code": -1121, "msg": "Invalid symbol."}),
    )
}

/// `GET /api/v3/ticker/bookTicker?symbol=ETHUSDT`.
pub(super) async fn binance_book_ticker(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<BinanceQuery>,
) -> Response {
    let symbol = query.symbol.unwrap_or_default();
    let Some(price) = binance_price_of(&shared.snapshot, &symbol) else {
        return binance_invalid_symbol();
    };
    json(json!({
        "symbol": symbol,
        "bidPrice": format!("{:.8}", price - HALF_SPREAD),
        "bidQty": "1.00000000",
        "askPrice": format!("{:.8}", price + HALF_SPREAD),
        "askQty": "1.00000000",
    }))
}

/// `GET /api/v3/ticker/price?symbol=ETHUSDT`.
pub(super) async fn binance_price(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<BinanceQuery>,
) -> Response {
    let symbol = query.symbol.unwrap_or_default();
    let Some(price) = binance_price_of(&shared.snapshot, &symbol) else {
        return binance_invalid_symbol();
    };
    json(json!({"symbol": symbol, "price": format!("{price:.8}")}))
}

/// Pyth price feed ids (hex, no `0x`) of the assets served.
const PYTH_IDS: [(&str, &str); 2] = [
    (
        "ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace",
        "ETH",
    ),
    (
        "e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43",
        "BTC",
    ),
];

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `GET /v2/updates/price/latest?ids[]=<hex>&…[&parsed=true]`.
pub(super) async fn pyth_latest(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
) -> Response {
    let snapshot = &shared.snapshot;
    let mut ids = Vec::new();
    let mut parsed = true;
    for pair in query.unwrap_or_default().split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key);
        let value = percent_decode(value);
        match key.as_str() {
            "ids[]" | "ids" => ids.push(value.trim_start_matches("0x").to_ascii_lowercase()),
            "parsed" => parsed = value != "false",
            _ => {}
        }
    }
    if ids.is_empty() {
        return (StatusCode::BAD_REQUEST, "Missing required parameter: ids").into_response();
    }
    let unknown: Vec<&String> = ids
        .iter()
        .filter(|id| !PYTH_IDS.iter().any(|(known, _)| known == id))
        .collect();
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.iter().map(|id| format!("0x{id}")).collect();
        return (
            StatusCode::NOT_FOUND,
            format!("Price ids not found: {}", list.join(", ")),
        )
            .into_response();
    }
    let mut entries = Vec::new();
    for id in &ids {
        let Some((_, asset)) = PYTH_IDS.iter().find(|(known, _)| known == id) else {
            continue;
        };
        let Some(price) = feed(snapshot, asset) else {
            continue;
        };
        let published = shared.served(price.updated_at);
        // Pyth prices are integers with an exponent; the feeds have 8 decimals like Pyth's.
        let expo = -i32::from(price.decimals);
        let conf = (price.answer / 2000).max(1);
        let quote = json!({
            "price": price.answer.to_string(),
            "conf": conf.to_string(),
            "expo": expo,
            "publish_time": published,
        });
        entries.push(json!({
            "id": id,
            "price": quote,
            "ema_price": quote,
            "metadata": {
                "slot": snapshot.latest_block,
                "proof_available_time": published,
                "prev_publish_time": published,
            },
        }));
    }
    let mut body = json!({"binary": {"encoding": "hex", "data": []}});
    if parsed {
        body["parsed"] = Value::Array(entries);
    }
    json(body)
}

/// The feeds RedStone packages are served for.
const REDSTONE_FEEDS: [&str; 6] = ["ETH", "BTC", "USDC", "USDT", "DAI", "LINK"];

/// The three signers of every package.
const REDSTONE_SIGNERS: [&str; 3] = [
    "0x8BB8F32Df04c8b654987DAaeD53D6B6091e3B774",
    "0xdEB22f54738d54976C4c0fe5ce6F408E40d88499",
    "0x51Ce04Be4b3E32572C4Ec9135221d0691Ba7d202",
];

/// `GET /data-packages/latest/{service}`: one entry per feed, three signers each.
pub(super) async fn redstone_latest(
    State(shared): State<Arc<Shared>>,
    Path(service): Path<String>,
) -> Response {
    if service != "redstone-primary-prod" {
        return json_status(
            StatusCode::NOT_FOUND,
            json!({"message": format!("Data service {service} not found")}),
        );
    }
    let snapshot = &shared.snapshot;
    let mut body = serde_json::Map::new();
    for asset in REDSTONE_FEEDS {
        let Some(price) = feed(snapshot, asset) else {
            continue;
        };
        let base = price.price * (1.0 + f64::from(super::REDSTONE_OFFSET_BPS) / 10_000.0);
        let packages: Vec<Value> = REDSTONE_SIGNERS
            .iter()
            .enumerate()
            .map(|(i, signer)| {
                // -1, 0, +1 bp: the median is the middle signer's value.
                let value = base * (1.0 + (i as f64 - 1.0) / 10_000.0);
                json!({
                    "timestampMilliseconds": shared.served(price.updated_at) * 1000,
                    "signature": "stand-in: not signed",
                    "isSignatureValid": true,
                    "dataPoints": [{"dataFeedId": asset, "value": super::number_json((value * 1e8).round() / 1e8)}],
                    "dataServiceId": service,
                    "dataFeedId": asset,
                    "signerAddress": signer,
                })
            })
            .collect();
        body.insert(asset.to_owned(), Value::Array(packages));
    }
    json(Value::Object(body))
}
