//! `Sources::pool_volume`'s decision table against wiremock.

mod common;

use alloy::primitives::{Address, address};
use chain_read::Chain;
use common::{fixture, sources};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// 2025-08-27 12:00 UTC: the start of the hourly fixture's newest (partial) candle.
const NOW: u64 = 1_756_296_000;
const HOUR: u64 = 3_600;

const GT_POOL: Address = address!("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640");
/// Rows of defillama/pools.json: the first is this pool by its deterministic id.
const LLAMA_SINGLE: Address = address!("0xd0b53d9277642d899df5c87a3966a349a798f224");
/// Two rows name this pool (one by `pool_old`, one by deterministic id).
const LLAMA_TWICE: Address = address!("0xcdac0d6c6c59727a65f871236188350531885c43");
/// Listed by DefiLlama on Ethereum only.
const LLAMA_ETHEREUM_ONLY: Address = address!("0x88a43bbdf9d098eec7bceda4e2494615dfd9bb9c");

fn gt_path(network: &str, pool: Address) -> String {
    format!("/api/v2/networks/{network}/pools/{pool:#x}")
}

async fn mount(server: &MockServer, route: String, response: ResponseTemplate, times: u64) {
    Mock::given(method("GET"))
        .and(path(route))
        .respond_with(response)
        .expect(times)
        .mount(server)
        .await;
}

fn json(name: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(fixture(name), "application/json")
}

fn gt_404() -> ResponseTemplate {
    ResponseTemplate::new(404).set_body_string(fixture("geckoterminal/not_found.json"))
}

async fn gt_not_listed(server: &MockServer, network: &str, pool: Address) {
    mount(server, gt_path(network, pool), gt_404(), 1).await;
    mount(
        server,
        format!("{}/ohlcv/hour", gt_path(network, pool)),
        gt_404(),
        1,
    )
    .await;
}

#[tokio::test]
async fn geckoterminal_hit_gives_h24_and_the_exact_sum_of_the_last_168_hours() {
    let server = MockServer::start().await;
    mount(
        &server,
        gt_path("eth", GT_POOL),
        json("geckoterminal/pool.json"),
        1,
    )
    .await;
    mount(
        &server,
        format!("{}/ohlcv/hour", gt_path("eth", GT_POOL)),
        json("geckoterminal/ohlcv_hour.json"),
        1,
    )
    .await;
    mount(&server, "/pools".into(), json("defillama/pools.json"), 0).await;
    let before = common::now();
    let volume = sources(&server)
        .pool_volume(Chain::Ethereum, GT_POOL, NOW)
        .await;

    let day = &volume.volume_24h;
    assert_eq!(day.usd.as_deref(), Some("48923519.0728571"));
    assert_eq!(day.source.as_deref(), Some("GeckoTerminal"));
    assert_eq!(
        day.url.as_deref(),
        Some(format!("{}{}", server.uri(), gt_path("eth", GT_POOL)).as_str())
    );
    let as_of = day.as_of.expect("expected a value");
    assert!((before..=common::now()).contains(&as_of));
    assert_eq!(day.age_seconds, Some(NOW.saturating_sub(as_of)));
    assert_eq!(day.null_reason, None);

    let week = &volume.volume_7d;
    // 120000.5 + 250000.25 + 1.5e5 + 98000.1 + 310000.05 + 75000 + 42000.4 + 5000.3 + 1000.2:
    // the current hour's partial candle counts; the candles of 168 and 200 hours ago
    // (99999999.9 and 88888888.8) are outside the window.
    assert_eq!(week.usd.as_deref(), Some("1051001.8"));
    assert_eq!(week.source.as_deref(), Some("GeckoTerminal"));
    // as_of is when the candles were fetched, not the newest candle's start.
    let week_as_of = week.as_of.expect("expected a value");
    assert!((before..=common::now()).contains(&week_as_of));
    assert_eq!(week.age_seconds, Some(NOW.saturating_sub(week_as_of)));
    assert!(
        week.method.contains("9 hourly USD candles")
            && week.method.contains("159 of those hours have no candle")
            && week.method.contains("current partial hour included"),
        "{}",
        week.method
    );
    assert!(
        week.url
            .as_deref()
            .expect("expected a value")
            .ends_with("/ohlcv/hour?aggregate=1&limit=168&currency=usd")
    );
}

/// A GeckoTerminal OHLCV body of `(start, volume)` rows (prices do not matter here).
fn candles_body(rows: &[(u64, &str)]) -> ResponseTemplate {
    let list: Vec<String> = rows
        .iter()
        .map(|(start, volume)| format!("[{start},1,1,1,1,{volume}]"))
        .collect();
    ResponseTemplate::new(200).set_body_string(format!(
        r#"{{"data":{{"id":"x","type":"ohlcv_request_response","attributes":{{"ohlcv_list":[{}]}}}}}}"#,
        list.join(",")
    ))
}

async fn week_at(now: u64, candles: ResponseTemplate) -> oracle_sources::ForeignFigure {
    let server = MockServer::start().await;
    mount(
        &server,
        gt_path("eth", GT_POOL),
        json("geckoterminal/pool.json"),
        1,
    )
    .await;
    mount(
        &server,
        format!("{}/ohlcv/hour", gt_path("eth", GT_POOL)),
        candles,
        1,
    )
    .await;
    sources(&server)
        .pool_volume(Chain::Ethereum, GT_POOL, now)
        .await
        .volume_7d
}

#[tokio::test]
async fn missing_hours_are_said_in_the_method() {
    let sparse = candles_body(&[(NOW - 30 * HOUR, "\"10.5\""), (NOW - 100 * HOUR, "0.25")]);
    let week = week_at(NOW, sparse).await;
    assert_eq!(week.usd.as_deref(), Some("10.75"));
    assert!(
        week.method.contains("166 of those hours have no candle"),
        "{}",
        week.method
    );
}

#[tokio::test]
async fn every_hour_with_a_candle_is_a_full_window() {
    // 168 candles ending with the current hour, one each of 1.01, plus one hour older.
    let rows: Vec<(u64, &str)> = (0..=168).map(|i| (NOW - i * HOUR, "1.01")).collect();
    let week = week_at(NOW + 59 * 60, candles_body(&rows)).await;
    assert_eq!(week.usd.as_deref(), Some("169.68"));
    assert!(
        week.method.contains("168 hourly USD candles") && !week.method.contains("no candle"),
        "{}",
        week.method
    );
}

#[tokio::test]
async fn the_window_rolls_with_the_hour() {
    // An hour later the fixture's oldest candle in the window (1000.2, 167 h before NOW) has
    // left it; the minutes within an hour do not move it.
    for (now, expected) in [
        (NOW + 1_799, "1051001.8"),
        (NOW + HOUR, "1050001.6"),
        (NOW + 167 * HOUR, "120000.5"),
    ] {
        let week = week_at(now, json("geckoterminal/ohlcv_hour.json")).await;
        assert_eq!(week.usd.as_deref(), Some(expected), "at {now}");
    }
    let week = week_at(NOW + 168 * HOUR, json("geckoterminal/ohlcv_hour.json")).await;
    assert_eq!(week.usd, None);
    let reason = week.null_reason.expect("expected a value");
    assert!(reason.contains("no hourly candle"), "{reason}");
}

#[tokio::test]
async fn an_unusable_candle_volume_is_a_null_with_the_reason() {
    let negative = candles_body(&[(NOW, "5"), (NOW - HOUR, "-3")]);
    let week = week_at(NOW, negative).await;
    assert_eq!(week.usd, None);
    let reason = week.null_reason.expect("expected a value");
    assert!(
        reason.contains(&format!("candle of {}", NOW - HOUR)) && reason.contains("negative"),
        "{reason}"
    );
}

#[tokio::test]
async fn listed_pool_without_candles_keeps_its_24h_figure() {
    let server = MockServer::start().await;
    mount(
        &server,
        gt_path("eth", GT_POOL),
        json("geckoterminal/pool.json"),
        1,
    )
    .await;
    mount(
        &server,
        format!("{}/ohlcv/hour", gt_path("eth", GT_POOL)),
        ResponseTemplate::new(502),
        1,
    )
    .await;
    let volume = sources(&server)
        .pool_volume(Chain::Ethereum, GT_POOL, NOW)
        .await;
    assert!(volume.volume_24h.usd.is_some());
    assert_eq!(volume.volume_7d.usd, None);
    let reason = volume.volume_7d.null_reason.expect("expected a value");
    assert!(
        reason.contains("hourly candles are unavailable") && reason.contains("HTTP 502"),
        "{reason}"
    );
}

#[tokio::test]
async fn geckoterminal_404_falls_back_to_the_one_matching_defillama_row() {
    let server = MockServer::start().await;
    gt_not_listed(&server, "base", LLAMA_SINGLE).await;
    mount(&server, "/pools".into(), json("defillama/pools.json"), 1).await;
    let before = common::now();
    let volume = sources(&server)
        .pool_volume(Chain::Base, LLAMA_SINGLE, NOW)
        .await;
    let day = &volume.volume_24h;
    assert_eq!(day.usd.as_deref(), Some("40123456.78"));
    assert_eq!(day.source.as_deref(), Some("DefiLlama yields"));
    assert_eq!(
        day.url.as_deref(),
        Some(format!("{}/pools", server.uri()).as_str())
    );
    assert!((before..=common::now()).contains(&day.as_of.expect("expected a value")));
    assert!(
        day.method.contains("dd1bf75b-8cb2-579d-b07e-3b7500f67eff"),
        "{}",
        day.method
    );
    assert_eq!(volume.volume_7d.usd.as_deref(), Some("281234567.891"));
    assert_eq!(volume.volume_7d.source.as_deref(), Some("DefiLlama yields"));
}

#[tokio::test]
async fn two_defillama_rows_for_the_pool_are_ambiguous() {
    let server = MockServer::start().await;
    gt_not_listed(&server, "base", LLAMA_TWICE).await;
    mount(&server, "/pools".into(), json("defillama/pools.json"), 1).await;
    let volume = sources(&server)
        .pool_volume(Chain::Base, LLAMA_TWICE, NOW)
        .await;
    for figure in [&volume.volume_24h, &volume.volume_7d] {
        assert_eq!(figure.usd, None);
        assert_eq!(figure.source, None);
        let reason = figure.null_reason.as_deref().expect("expected a value");
        assert!(
            reason.contains("ambiguous: 2 DefiLlama yields rows"),
            "{reason}"
        );
        assert!(reason.contains("GeckoTerminal does not list"), "{reason}");
    }
}

#[tokio::test]
async fn the_chain_must_match_too() {
    let server = MockServer::start().await;
    gt_not_listed(&server, "base", LLAMA_ETHEREUM_ONLY).await;
    mount(&server, "/pools".into(), json("defillama/pools.json"), 1).await;
    let volume = sources(&server)
        .pool_volume(Chain::Base, LLAMA_ETHEREUM_ONLY, NOW)
        .await;
    let reason = volume.volume_24h.null_reason.expect("expected a value");
    assert!(
        reason.contains("no DefiLlama yields row is pool"),
        "{reason}"
    );
}

#[tokio::test]
async fn both_down_gives_nulls_with_both_reasons() {
    let server = MockServer::start().await;
    gt_not_listed(&server, "base", LLAMA_SINGLE).await;
    mount(&server, "/pools".into(), ResponseTemplate::new(503), 1).await;
    let volume = sources(&server)
        .pool_volume(Chain::Base, LLAMA_SINGLE, NOW)
        .await;
    let reason = volume.volume_7d.null_reason.expect("expected a value");
    assert!(
        reason.contains("GeckoTerminal does not list") && reason.contains("HTTP 503"),
        "{reason}"
    );
    assert_eq!(volume.volume_7d.usd, None);
}

#[tokio::test]
async fn geckoterminal_down_is_null_without_asking_defillama() {
    let cases = [
        (ResponseTemplate::new(500), "HTTP 500"),
        (
            ResponseTemplate::new(429).insert_header("retry-after", "7"),
            "429",
        ),
        (ResponseTemplate::new(200), "empty body"),
        (
            ResponseTemplate::new(200).set_body_string("{not json"),
            "malformed JSON",
        ),
    ];
    let mut reasons = Vec::new();
    for (response, expected) in cases {
        let server = MockServer::start().await;
        mount(&server, gt_path("base", LLAMA_SINGLE), response.clone(), 1).await;
        mount(
            &server,
            format!("{}/ohlcv/hour", gt_path("base", LLAMA_SINGLE)),
            response,
            1,
        )
        .await;
        // GeckoTerminal gave no verdict on the pool, so DefiLlama is not asked.
        mount(&server, "/pools".into(), json("defillama/pools.json"), 0).await;
        let volume = sources(&server)
            .pool_volume(Chain::Base, LLAMA_SINGLE, NOW)
            .await;
        assert_eq!(volume.volume_24h.usd, None);
        let reason = volume.volume_24h.null_reason.expect("expected a value");
        assert!(
            reason.starts_with("GeckoTerminal unavailable") && reason.contains(expected),
            "{reason}"
        );
        reasons.push(reason);
    }
    reasons.sort();
    reasons.dedup();
    assert_eq!(reasons.len(), 4, "each failure has its own reason");
}

#[tokio::test]
async fn a_timeout_is_a_null_too() {
    let server = MockServer::start().await;
    let slow = ResponseTemplate::new(200)
        .set_body_string(fixture("geckoterminal/pool.json"))
        .set_delay(std::time::Duration::from_secs(3));
    mount(&server, gt_path("eth", GT_POOL), slow.clone(), 1).await;
    mount(
        &server,
        format!("{}/ohlcv/hour", gt_path("eth", GT_POOL)),
        slow,
        1,
    )
    .await;
    let sources = oracle_sources::Sources::new(&oracle_sources::SourcesConfig {
        timeout_ms: 200,
        ..common::config(&server)
    })
    .expect("expected a value");
    let volume = sources.pool_volume(Chain::Ethereum, GT_POOL, NOW).await;
    let reason = volume.volume_24h.null_reason.expect("expected a value");
    assert!(reason.contains("did not answer within 200 ms"), "{reason}");
}

#[tokio::test]
async fn the_answer_serialises_with_nulls() {
    let server = MockServer::start().await;
    mount(
        &server,
        gt_path("base", LLAMA_SINGLE),
        ResponseTemplate::new(500),
        1,
    )
    .await;
    mount(
        &server,
        format!("{}/ohlcv/hour", gt_path("base", LLAMA_SINGLE)),
        ResponseTemplate::new(500),
        1,
    )
    .await;
    let volume = sources(&server)
        .pool_volume(Chain::Base, LLAMA_SINGLE, NOW)
        .await;
    let value = serde_json::to_value(&volume).expect("expected a value");
    assert!(value["volume_24h"]["usd"].is_null());
    assert!(value["volume_24h"]["null_reason"].is_string());
    assert!(value["volume_7d"]["method"].is_string());
}
