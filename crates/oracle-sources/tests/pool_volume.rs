//! `Sources::pool_volume`'s decision table against wiremock.

mod common;

use alloy::primitives::{Address, address};
use chain_read::Chain;
use common::{fixture, sources};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Noon UTC of the day the OHLCV fixture's newest (partial) candle starts.
const NOW: u64 = 1_756_252_800 + 43_200;
const TODAY: u64 = 1_756_252_800;

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
        format!("{}/ohlcv/day", gt_path(network, pool)),
        gt_404(),
        1,
    )
    .await;
}

#[tokio::test]
async fn geckoterminal_hit_gives_h24_and_the_exact_sum_of_seven_complete_days() {
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
        format!("{}/ohlcv/day", gt_path("eth", GT_POOL)),
        json("geckoterminal/ohlcv_day.json"),
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
    // 41000000.1 + 39000000.2 + 52000000.3 + 1.5e7 + 33000000.25 + 28000000.05 + 30000000.1:
    // today's 7000000.5 and the eighth day's 99999999.9 are outside the window.
    assert_eq!(week.usd.as_deref(), Some("238000001"));
    assert_eq!(week.source.as_deref(), Some("GeckoTerminal"));
    assert_eq!(week.as_of, Some(TODAY));
    assert_eq!(week.age_seconds, Some(43_200));
    assert!(
        week.method.contains("partial day excluded"),
        "{}",
        week.method
    );
    assert!(
        week.url
            .as_deref()
            .expect("expected a value")
            .contains("/ohlcv/day")
    );
}

#[tokio::test]
async fn missing_days_are_said_in_the_method() {
    let server = MockServer::start().await;
    mount(
        &server,
        gt_path("eth", GT_POOL),
        json("geckoterminal/pool.json"),
        1,
    )
    .await;
    let sparse = r#"{"data":{"id":"x","type":"ohlcv_request_response","attributes":{"ohlcv_list":[[1756166400,1,1,1,1,"10.5"],[1755734400,1,1,1,1,0.25]]}}}"#;
    mount(
        &server,
        format!("{}/ohlcv/day", gt_path("eth", GT_POOL)),
        ResponseTemplate::new(200).set_body_string(sparse),
        1,
    )
    .await;
    let volume = sources(&server)
        .pool_volume(Chain::Ethereum, GT_POOL, NOW)
        .await;
    assert_eq!(volume.volume_7d.usd.as_deref(), Some("10.75"));
    assert!(
        volume
            .volume_7d
            .method
            .contains("5 of those days have no candle"),
        "{}",
        volume.volume_7d.method
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
        format!("{}/ohlcv/day", gt_path("eth", GT_POOL)),
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
        reason.contains("daily candles are unavailable") && reason.contains("HTTP 502"),
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
            format!("{}/ohlcv/day", gt_path("base", LLAMA_SINGLE)),
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
        format!("{}/ohlcv/day", gt_path("eth", GT_POOL)),
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
        format!("{}/ohlcv/day", gt_path("base", LLAMA_SINGLE)),
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
