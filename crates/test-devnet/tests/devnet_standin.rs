//! The off-chain stand-in on the committed devnet: its GeckoTerminal pool document and OHLCV
//! agree with sums computed here from the pool's own Swap logs, its served times are the chain
//! times shifted by the clock offset (so its history ends now: the 168 hourly candles ending
//! with the current wall-clock hour hold the whole 7-day volume), DefiLlama lists every devnet
//! pool, coin prices are the pools' prices, the CEX and Pyth answers are the feeds' last
//! rounds, and every fault answers as documented.

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use alloy::primitives::{Address, I256, U256, keccak256};
use alloy::providers::Provider;
use alloy::rpc::types::{BlockNumberOrTag, Filter};
use serde_json::{Value, json};
use test_devnet::bindings::IUniswapV3Pool;
use test_devnet::standin::{Fault, RETRY_AFTER_SECONDS, Source, defillama_pool_uuid};
use test_devnet::{Devnet, StandIn};

const DAY: u64 = 86_400;
const HOUR: u64 = 3_600;

fn wall_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

async fn get(url: &str) -> (u16, Option<String>, String) {
    let response = reqwest::get(url).await.expect("the stand-in answers");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, retry_after, response.text().await.expect("a body"))
}

async fn get_json(url: &str) -> Value {
    let (status, _, body) = get(url).await;
    assert_eq!(status, 200, "{url}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url}: {e}: {body}"))
}

fn number(value: &Value) -> f64 {
    match value {
        Value::String(text) => text.parse().expect("a decimal string"),
        other => other.as_f64().expect("a number"),
    }
}

fn close(a: f64, b: f64, relative: f64) -> bool {
    (a - b).abs() <= relative * a.abs().max(b.abs()).max(1.0)
}

fn lower(address: Address) -> String {
    format!("{address:#x}")
}

/// The pool's Swap logs with their block times: (timestamp, amount0, amount1).
async fn v3_swaps(devnet: &Devnet, pool: Address) -> Vec<(u64, I256, I256)> {
    let topic = keccak256("Swap(address,address,int256,int256,uint160,uint128,int24)".as_bytes());
    let filter = Filter::new()
        .address(pool)
        .event_signature(topic)
        .from_block(devnet.addresses.chain.history_kept_from_block)
        .to_block(BlockNumberOrTag::Latest);
    let logs = devnet
        .provider
        .get_logs(&filter)
        .await
        .expect("eth_getLogs");
    let mut swaps = Vec::new();
    for log in logs {
        let block = log.block_number.expect("mined");
        let timestamp = devnet
            .provider
            .get_block_by_number(BlockNumberOrTag::Number(block))
            .await
            .expect("eth_getBlockByNumber")
            .expect("kept block")
            .header
            .timestamp;
        let data = log.inner.data.data.as_ref();
        let word = |i: usize| I256::from_raw(U256::from_be_slice(&data[32 * i..32 * (i + 1)]));
        swaps.push((timestamp, word(0), word(1)));
    }
    swaps
}

fn usdc_units(amount: I256) -> f64 {
    amount
        .unsigned_abs()
        .to_string()
        .parse::<f64>()
        .expect("f64")
        / 1e6
}

/// `timeline.deploy.until_timestamp` of the committed `addresses.json` (the pools' creation).
fn devnet_deploy_end() -> u64 {
    let path = test_devnet::devnet_dir().join("addresses.json");
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("addresses.json"))
        .expect("JSON");
    raw["timeline"]["deploy"]["until_timestamp"]
        .as_u64()
        .expect("timeline.deploy.until_timestamp")
}

/// Unix seconds as RFC 3339 UTC, by the days-from-civil inverse (independent of the
/// stand-in's own formatter).
fn rfc3339(unix: u64) -> String {
    let days = i64::try_from(unix / DAY).expect("a date");
    let secs = unix % DAY;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[tokio::test]
async fn devnet_standin_serves_the_devnet_in_the_published_formats() {
    let devnet = Devnet::load().expect("the committed devnet loads");
    let a = &devnet.addresses;
    let spawned_after = wall_now();
    let standin = StandIn::spawn(&devnet.anvil.rpc_url, a)
        .await
        .expect("the stand-in reads the devnet");
    let spawned_before = wall_now();
    let base = standin.base_url().to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert!(
        standin.sources_toml().contains(&format!(
            "geckoterminal_url = \"{base}/geckoterminal/api/v2\""
        )),
        "{}",
        standin.sources_toml()
    );

    let latest = devnet
        .provider
        .get_block_by_number(BlockNumberOrTag::Latest)
        .await
        .expect("latest")
        .expect("a block");
    let t = latest.header.timestamp;
    // as_of stays in chain time; the offset is what served times add to it.
    assert_eq!(standin.as_of(), (latest.header.number, t));
    let offset = standin.clock_offset_seconds();
    let whole_hours_behind = |now: u64| {
        let behind = now.saturating_sub(t);
        behind - behind % HOUR
    };
    assert_eq!(offset % HOUR, 0, "whole hours");
    assert!(
        (whole_hours_behind(spawned_after)..=whole_hours_behind(spawned_before)).contains(&offset),
        "offset {offset}, chain {t}, wall {spawned_after}..{spawned_before}"
    );
    // The served end of history is within the hour before the wall clock.
    assert!(t + offset <= wall_now() && t + offset + HOUR > spawned_after);

    let weth_usdc_500 = a
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .expect("WETH/USDC/500 listed");
    let pool = weth_usdc_500.address;
    let usdc = a.token("USDC").expect("USDC");
    let weth = a.token("WETH").expect("WETH");
    assert_eq!(weth_usdc_500.token1_address, usdc, "USDC is token1");

    // Independent sums from the pool's own Swap logs: the USDC side at 1 USD.
    let swaps = v3_swaps(&devnet, pool).await;
    let within = |days: u64| -> (f64, usize) {
        let picked: Vec<_> = swaps
            .iter()
            .filter(|(ts, _, _)| *ts > t.saturating_sub(days * DAY) && *ts <= t)
            .collect();
        (
            picked.iter().map(|(_, _, a1)| usdc_units(*a1)).sum(),
            picked.len(),
        )
    };
    let (volume_24h, count_24h) = within(1);
    let (volume_7d, _) = within(7);
    assert!(
        count_24h >= 10 && volume_24h > 100_000.0,
        "{count_24h} swaps, {volume_24h} USD"
    );

    // GeckoTerminal pool document.
    let gt = format!("{base}/geckoterminal/api/v2/networks/base/pools");
    let doc = get_json(&format!("{gt}/{pool}")).await;
    let data = &doc["data"];
    assert_eq!(data["id"], format!("base_{}", lower(pool)));
    assert_eq!(data["type"], "pool");
    let attributes = &data["attributes"];
    assert_eq!(attributes["address"], lower(pool));
    assert_eq!(attributes["name"], "WETH / USDC 0.05%");
    assert_eq!(attributes["pool_fee_percentage"], "0.05");
    let created = attributes["pool_created_at"].as_str().expect("a date");
    let deploy_end = devnet_deploy_end();
    assert_eq!(created, rfc3339(deploy_end + offset), "served shifted");
    assert_eq!(
        data["relationships"]["base_token"]["data"],
        json!({"id": format!("base_{}", lower(weth)), "type": "token"})
    );
    assert_eq!(
        data["relationships"]["quote_token"]["data"]["id"],
        format!("base_{}", lower(usdc))
    );
    assert_eq!(data["relationships"]["dex"]["data"]["type"], "dex");
    for window in ["m5", "h1", "h6", "h24"] {
        assert!(
            attributes["volume_usd"][window].is_string(),
            "{window}: numbers as strings"
        );
    }
    let h24 = number(&attributes["volume_usd"]["h24"]);
    assert!(
        close(h24, volume_24h, 1e-9),
        "h24 {h24} vs logs {volume_24h}"
    );
    let tx = &attributes["transactions"]["h24"];
    assert_eq!(
        tx["buys"].as_u64().expect("buys") + tx["sells"].as_u64().expect("sells"),
        count_24h as u64
    );
    // Prices: the pool's own slot0 (USDC per WETH), reserves from its balances.
    let slot0 = IUniswapV3Pool::new(pool, &devnet.provider)
        .slot0()
        .call()
        .await
        .expect("slot0");
    let sqrt = U256::from(slot0.sqrtPriceX96)
        .to_string()
        .parse::<f64>()
        .expect("f64")
        / 2f64.powi(96);
    let weth_usd = sqrt * sqrt * 1e12;
    assert!(close(
        number(&attributes["base_token_price_usd"]),
        weth_usd,
        1e-12
    ));
    assert_eq!(number(&attributes["quote_token_price_usd"]), 1.0);
    let reserve = number(&attributes["reserve_in_usd"]);
    assert!(reserve > 1_000_000.0, "{reserve}");

    // Served candle starts: aligned, newest first, within the last 7 days of the wall clock.
    let read_candles = |ohlcv: &Value, unit: u64| -> Vec<(u64, Vec<f64>)> {
        assert_eq!(ohlcv["data"]["type"], "ohlcv_request_response");
        assert_eq!(ohlcv["meta"]["base"]["symbol"], "WETH");
        assert_eq!(ohlcv["meta"]["quote"]["symbol"], "USDC");
        let now = wall_now();
        let mut previous = u64::MAX;
        let mut rows = Vec::new();
        for candle in ohlcv["data"]["attributes"]["ohlcv_list"]
            .as_array()
            .expect("a list")
        {
            let row: Vec<f64> = candle
                .as_array()
                .expect("a row")
                .iter()
                .map(number)
                .collect();
            let start = candle[0].as_u64().expect("whole seconds");
            assert_eq!(start % unit, 0, "aligned to {unit} s (00:00 UTC for days)");
            assert!(start < previous, "newest first");
            assert!(
                start <= now && start + 7 * DAY > now,
                "{start} within the 7 days before {now}"
            );
            previous = start;
            let (o, h, l, c) = (row[1], row[2], row[3], row[4]);
            assert!(h >= o.max(c) && l <= o.min(c) && l > 0.0, "{row:?}");
            rows.push((start, row));
        }
        rows
    };

    // Daily candles: UTC days (shifted by whole days), their volumes summing to the 7-day
    // figure.
    let ohlcv = get_json(&format!("{gt}/{pool}/ohlcv/day?aggregate=1&limit=7")).await;
    let days = read_candles(&ohlcv, DAY);
    assert!(!days.is_empty() && days.len() <= 7);
    let day_volume: f64 = days.iter().map(|(_, row)| row[5]).sum();
    assert!(
        close(day_volume, volume_7d, 1e-9),
        "day candles {day_volume} vs 7 d {volume_7d}"
    );
    assert!(
        close(days[0].1[4], weth_usd, 1e-12),
        "closes at the pool price"
    );

    // Hourly candles as oracle-sources asks for them: those starting in the 168 hours ending
    // with the current wall-clock hour hold the stand-in's whole 7-day volume (all the
    // devnet's trading lies within its last chain day, so the chain's (t − 7 d, t] and the
    // served 168-hour window hold the same swaps).
    let ohlcv = get_json(&format!(
        "{gt}/{pool}/ohlcv/hour?aggregate=1&limit=168&currency=usd"
    ))
    .await;
    let hours = read_candles(&ohlcv, HOUR);
    let newest_hour = wall_now() / HOUR * HOUR;
    let window = newest_hour - 167 * HOUR..=newest_hour;
    let hour_volume: f64 = hours
        .iter()
        .filter(|(start, _)| window.contains(start))
        .map(|(_, row)| row[5])
        .sum();
    assert!(volume_7d > 0.0);
    assert!(
        close(hour_volume, volume_7d, 1e-9),
        "hourly candles {hour_volume} vs 7 d {volume_7d}"
    );
    // Candle starts are the chain's hours shifted by the offset.
    let last_swap = swaps.iter().map(|(ts, _, _)| *ts).max().expect("swaps");
    assert_eq!(hours[0].0, last_swap / HOUR * HOUR + offset);
    // before_timestamp is read in served time.
    let before = get_json(&format!(
        "{gt}/{pool}/ohlcv/hour?before_timestamp={}",
        hours[0].0
    ))
    .await;
    let older = before["data"]["attributes"]["ohlcv_list"]
        .as_array()
        .expect("a list");
    assert_eq!(older.len(), hours.len() - 1);

    // Unknown pool, unknown network: GeckoTerminal's 404 body.
    let not_found = json!({"errors": [{"status": "404", "title": "Not Found"}]});
    for url in [
        format!("{gt}/0x000000000000000000000000000000000000dEaD"),
        format!("{base}/geckoterminal/api/v2/networks/eth/pools/{pool}"),
        format!("{gt}/0x000000000000000000000000000000000000dEaD/ohlcv/day"),
    ] {
        let (status, _, body) = get(&url).await;
        assert_eq!(status, 404, "{url}");
        assert_eq!(
            serde_json::from_str::<Value>(&body).expect("json"),
            not_found
        );
    }

    // DefiLlama yields: one row per devnet pool.
    let pools = get_json(&format!("{base}/defillama-yields/pools")).await;
    assert_eq!(pools["status"], "success");
    let rows = pools["data"].as_array().expect("rows");
    let devnet_pools =
        a.pools.uniswap_v2.len() + a.pools.uniswap_v3.len() + a.pools.aerodrome.len();
    assert_eq!(rows.len(), devnet_pools);
    assert!(rows.iter().all(|r| r["chain"] == "Base"));
    let uuid = defillama_pool_uuid(&lower(pool));
    let row = rows
        .iter()
        .find(|r| r["pool"] == uuid.as_str())
        .expect("the 500 pool's row");
    assert_eq!(row["project"], "uniswap-v3");
    assert_eq!(row["symbol"], "WETH-USDC");
    assert_eq!(row["poolMeta"], "0.05%");
    assert_eq!(row["underlyingTokens"], json!([lower(weth), lower(usdc)]));
    assert!((number(&row["volumeUsd1d"]) - volume_24h).abs() < 1e-4);
    assert!((number(&row["volumeUsd7d"]) - volume_7d).abs() < 1e-4);
    assert!((number(&row["tvlUsd"]) - reserve).abs() < 1e-4);
    let apy = volume_24h * 500.0 / 1e6 * 365.0 / reserve * 100.0;
    assert!(
        (number(&row["apyBase"]) - apy).abs() < 1e-4,
        "{} vs {apy}",
        row["apyBase"]
    );
    assert!(row["apyReward"].is_null());
    for project in ["uniswap-v2", "uniswap-v3", "aerodrome-v1"] {
        assert!(rows.iter().any(|r| r["project"] == project), "{project}");
    }
    let chart = get_json(&format!("{base}/defillama-yields/chart/{uuid}")).await;
    let chart_rows = chart["data"].as_array().expect("rows");
    assert!(!chart_rows.is_empty());
    assert!(chart_rows.iter().all(|r| {
        r["timestamp"]
            .as_str()
            .is_some_and(|s| s.ends_with(".000Z"))
    }));
    // The last row samples the last swap's day: at the latest block's time when that is the
    // latest block's day, else at the last swap; served shifted.
    let last_swap = swaps.iter().map(|(ts, _, _)| *ts).max().expect("swaps");
    let sample = if last_swap / DAY == t / DAY {
        t
    } else {
        last_swap
    };
    let last_chart = chart_rows.last().expect("a row")["timestamp"]
        .as_str()
        .expect("a date");
    assert_eq!(
        last_chart,
        rfc3339(sample + offset).replace('Z', ".000Z"),
        "served shifted"
    );
    let (status, _, body) = get(&format!("{base}/defillama-yields/chart/{}", lower(pool))).await;
    assert_eq!((status, body.as_str()), (400, "\"invalid configID!\""));

    // DefiLlama coins: the pools' prices, under the keys as asked; unknown coins left out.
    let keys = format!(
        "base:{},base:{},base:0x000000000000000000000000000000000000dEaD",
        lower(weth),
        usdc
    );
    let coins = get_json(&format!("{base}/defillama-coins/prices/current/{keys}")).await;
    let weth_coin = &coins["coins"][format!("base:{}", lower(weth))];
    assert!(close(number(&weth_coin["price"]), weth_usd, 1e-12));
    assert_eq!(weth_coin["decimals"], 18);
    assert_eq!(weth_coin["symbol"], "WETH");
    assert_eq!(weth_coin["timestamp"], t + offset, "served shifted");
    assert_eq!(coins["coins"][format!("base:{usdc}")]["price"], 1.0);
    assert_eq!(coins["coins"].as_object().expect("object").len(), 2);

    // Coins /chart: 31 daily points ending at the latest block (served time), the last one
    // the current price, USDC flat, WETH swinging before the kept history.
    let start = t + offset - 30 * DAY;
    let chart = get_json(&format!(
        "{base}/defillama-coins/chart/base:{},base:{usdc}?start={start}&span=31&period=1d",
        lower(weth)
    ))
    .await;
    let weth_path = chart["coins"][format!("base:{}", lower(weth))]["prices"]
        .as_array()
        .expect("WETH prices")
        .clone();
    assert_eq!(weth_path.len(), 31);
    assert_eq!(weth_path[30]["timestamp"], t + offset);
    assert!(close(number(&weth_path[30]["price"]), weth_usd, 1e-9));
    let prices: Vec<f64> = weth_path.iter().map(|p| number(&p["price"])).collect();
    let (low, high) = prices
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
    assert!(high / low > 1.1, "the path moves: {prices:?}");
    let usdc_path = &chart["coins"][format!("base:{usdc}")]["prices"];
    assert!(
        usdc_path
            .as_array()
            .is_some_and(|p| p.len() == 31 && p.iter().all(|x| x["price"] == 1.0))
    );
    // A point after the latest block is not served.
    let future = get_json(&format!(
        "{base}/defillama-coins/chart/base:{usdc}?start={}&span=3&period=1d",
        t + offset
    ))
    .await;
    assert_eq!(
        future["coins"][format!("base:{usdc}")]["prices"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // CEX tickers and Pyth: the ETH/USD feed's last round.
    let eth_feed = a.feeds.by_pair.get("ETH/USD").expect("ETH/USD feed");
    let last = eth_feed.rounds.last().expect("a round").answer;
    let eth_usd = last.to_string().parse::<f64>().expect("f64") / 1e8;
    let coinbase = get_json(&format!("{base}/coinbase/products/ETH-USD/ticker")).await;
    assert_eq!(coinbase["price"], format!("{eth_usd:.2}"));
    let updated_at = eth_feed.rounds.last().expect("a round").updated_at;
    assert_eq!(
        coinbase["time"],
        rfc3339(updated_at + offset).replace('Z', ".000000Z"),
        "served shifted"
    );
    assert!(number(&coinbase["bid"]) < number(&coinbase["ask"]));
    let kraken = get_json(&format!("{base}/kraken/0/public/Ticker?pair=ETHUSD")).await;
    assert_eq!(kraken["error"], json!([]));
    assert!(close(
        number(&kraken["result"]["XETHZUSD"]["c"][0]),
        eth_usd,
        1e-9
    ));
    let binance = get_json(&format!(
        "{base}/binance/api/v3/ticker/bookTicker?symbol=ETHUSDT"
    ))
    .await;
    assert_eq!(binance["symbol"], "ETHUSDT");
    assert!(number(&binance["bidPrice"]) < number(&binance["askPrice"]));
    let eth_id = "ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace";
    let pyth = get_json(&format!(
        "{base}/pyth-hermes/v2/updates/price/latest?ids%5B%5D=0x{eth_id}&parsed=true"
    ))
    .await;
    assert_eq!(pyth["parsed"][0]["id"], eth_id);
    assert_eq!(pyth["parsed"][0]["price"]["price"], last.to_string());
    assert_eq!(pyth["parsed"][0]["price"]["expo"], -8);
    assert_eq!(
        pyth["parsed"][0]["price"]["publish_time"],
        updated_at + offset
    );
    assert_eq!(
        pyth["parsed"][0]["metadata"]["prev_publish_time"],
        updated_at + offset
    );

    // Faults.
    let pool_url = format!("{gt}/{pool}");
    let coins_url = format!("{base}/defillama-coins/prices/current/base:{usdc}");
    standin.set_fault(Some(Fault::Down));
    assert_eq!(get(&pool_url).await.0, 503);
    assert_eq!(get(&coins_url).await.0, 503);
    standin.set_fault(Some(Fault::RateLimited));
    let (status, retry_after, _) = get(&pool_url).await;
    assert_eq!(status, 429);
    assert_eq!(retry_after, Some(RETRY_AFTER_SECONDS.to_string()));
    standin.set_fault(Some(Fault::Malformed));
    let (status, _, body) = get(&pool_url).await;
    assert_eq!(status, 200);
    assert!(
        !body.is_empty() && serde_json::from_str::<Value>(&body).is_err(),
        "{body}"
    );
    standin.set_fault(Some(Fault::Empty));
    let (status, _, body) = get(&pool_url).await;
    assert_eq!((status, body.as_str()), (200, ""));
    standin.set_fault(Some(Fault::Delay(Duration::from_millis(300))));
    let started = Instant::now();
    assert_eq!(get(&pool_url).await.0, 200);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "answered after the delay"
    );
    // One source down, the others answering; then everything back.
    standin.set_fault(None);
    standin.set_source_fault(Source::GeckoTerminal, Some(Fault::Down));
    assert_eq!(get(&pool_url).await.0, 503);
    assert_eq!(get(&coins_url).await.0, 200);
    standin.set_source_fault(Source::GeckoTerminal, None);
    assert_eq!(
        get_json(&pool_url).await,
        doc,
        "the same document once the fault is cleared"
    );
    assert!(standin.requests(Source::GeckoTerminal) >= 10);

    // Dropped: nothing listens any more.
    drop(standin);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        reqwest::get(&pool_url).await.is_err(),
        "stopped when dropped"
    );
}
