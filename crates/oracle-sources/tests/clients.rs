//! Every client against wiremock serving hand-written fixtures in the providers' published
//! formats (testdata/sources/README.md), including their error forms.

mod common;

use std::str::FromStr;
use std::time::Duration;

use alloy::primitives::{Address, address};
use chain_read::Chain;
use common::{fixture, now, sources};
use oracle_sources::geckoterminal::{self, GtCandles, GtLookup};
use oracle_sources::{SourceError, Sources, SourcesConfig};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const GT_POOL: Address = address!("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640");
const GT_POOL_PATH: &str = "/api/v2/networks/eth/pools/0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640";

fn json(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "application/json")
}

async fn mount(server: &MockServer, route: &str, response: ResponseTemplate, times: u64) {
    Mock::given(method("GET"))
        .and(path(route))
        .respond_with(response)
        .expect(times)
        .mount(server)
        .await;
}

#[tokio::test]
async fn geckoterminal_pool_is_parsed_with_the_documented_accept_header() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(GT_POOL_PATH))
        .and(header("accept", geckoterminal::ACCEPT))
        .respond_with(json(fixture("geckoterminal/pool.json")))
        .expect(1)
        .mount(&server)
        .await;
    let before = now();
    let answer = sources(&server)
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect("expected a value");
    let GtLookup::Listed(pool) = &*answer.value else {
        panic!("not listed: {answer:?}");
    };
    assert_eq!(pool.name.as_deref(), Some("WETH / USDC 0.05%"));
    assert_eq!(
        pool.volume_usd_h24
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "48923519.0728571"
    );
    assert_eq!(
        pool.reserve_in_usd
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "99194224.9890397"
    );
    assert_eq!(
        pool.base_token_price_usd
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "2087.83402802406"
    );
    assert_eq!(
        pool.quote_token_price_usd
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "1.00238840383302"
    );
    assert_eq!(pool.dex_id.as_deref(), Some("uniswap_v3"));
    assert_eq!(
        pool.base_token_id.as_deref(),
        Some("eth_0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")
    );
    // No provider timestamp in the pool answer: as_of is when it arrived.
    assert!((before..=now()).contains(&answer.as_of));
    assert_eq!(answer.url, format!("{}{GT_POOL_PATH}", server.uri()));
}

#[tokio::test]
async fn geckoterminal_candles_are_parsed_exactly() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(format!("{GT_POOL_PATH}/ohlcv/hour")))
        .and(query_param("aggregate", "1"))
        .and(query_param("limit", "168"))
        .and(query_param("currency", "usd"))
        .respond_with(json(fixture("geckoterminal/ohlcv_hour.json")))
        .expect(1)
        .mount(&server)
        .await;
    let answer = sources(&server)
        .geckoterminal()
        .hourly_candles(Chain::Ethereum, GT_POOL)
        .await
        .expect("expected a value");
    let GtCandles::Listed(candles) = &*answer.value else {
        panic!("{answer:?}");
    };
    assert_eq!(candles.len(), 11);
    assert_eq!(candles[0].timestamp, 1_756_296_000);
    assert_eq!(candles[0].close.as_str(), "4622.35");
    assert_eq!(candles[2].volume_usd.as_str(), "1.5e5");
    assert_eq!(candles[5].volume_usd.as_str(), "75000");
    assert!(
        answer
            .url
            .ends_with("/ohlcv/hour?aggregate=1&limit=168&currency=usd")
    );
}

#[tokio::test]
async fn geckoterminal_404_is_not_listed_with_its_title() {
    let server = MockServer::start().await;
    mount(
        &server,
        GT_POOL_PATH,
        ResponseTemplate::new(404).set_body_string(fixture("geckoterminal/not_found.json")),
        1,
    )
    .await;
    let answer = sources(&server)
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect("expected a value");
    assert_eq!(*answer.value, GtLookup::NotListed("Not Found".into()));
}

#[tokio::test]
async fn geckoterminal_answer_for_another_pool_is_refused() {
    let server = MockServer::start().await;
    let other = "0x0000000000000000000000000000000000000001";
    let moved = fixture("geckoterminal/pool.json").replace(
        "\"address\": \"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640\"",
        &format!("\"address\": \"{other}\""),
    );
    mount(&server, GT_POOL_PATH, json(moved), 1).await;
    let error = sources(&server)
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect_err("expected an error");
    assert!(
        matches!(&error, SourceError::Unusable { message, .. } if message.contains(other)),
        "{error:?}"
    );

    // Same address, another network's id.
    let server = MockServer::start().await;
    let elsewhere = fixture("geckoterminal/pool.json").replace("\"eth_0x88e6", "\"base_0x88e6");
    mount(&server, GT_POOL_PATH, json(elsewhere), 1).await;
    let error = sources(&server)
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect_err("expected an error");
    assert!(
        matches!(&error, SourceError::Unusable { message, .. } if message.contains("not on network eth")),
        "{error:?}"
    );
}

#[tokio::test]
async fn error_forms_each_get_their_own_variant() {
    type Expected = fn(&SourceError) -> bool;
    let cases: Vec<(ResponseTemplate, Expected)> = vec![
        (
            ResponseTemplate::new(429).insert_header("retry-after", "30"),
            |e| {
                matches!(
                    e,
                    SourceError::RateLimited {
                        retry_after_seconds: Some(30),
                        ..
                    }
                )
            },
        ),
        (
            ResponseTemplate::new(500).set_body_string("upstream exploded"),
            |e| matches!(e, SourceError::Status { status: 500, body_excerpt, .. } if body_excerpt == "upstream exploded"),
        ),
        (ResponseTemplate::new(503), |e| {
            matches!(e, SourceError::Status { status: 503, .. })
        }),
        (ResponseTemplate::new(200), |e| {
            matches!(e, SourceError::EmptyBody { .. })
        }),
        (json("{\"data\": {\"attributes\": ".into()), |e| {
            matches!(e, SourceError::Malformed { .. })
        }),
        (json("[1, 2, 3]".into()), |e| {
            matches!(e, SourceError::Malformed { .. })
        }),
    ];
    for (response, expected) in cases {
        let server = MockServer::start().await;
        mount(&server, GT_POOL_PATH, response, 1).await;
        let error = sources(&server)
            .geckoterminal()
            .pool(Chain::Ethereum, GT_POOL)
            .await
            .expect_err("expected an error");
        assert!(expected(&error), "unexpected {error:?}");
        assert_eq!(error.provider(), "GeckoTerminal");
        assert!(error.to_string().contains(GT_POOL_PATH), "{error}");
    }
}

#[tokio::test]
async fn a_429_pauses_the_provider_for_its_retry_after() {
    let server = MockServer::start().await;
    mount(
        &server,
        GT_POOL_PATH,
        ResponseTemplate::new(429).insert_header("retry-after", "30"),
        1,
    )
    .await;
    let sources = sources(&server);
    let first = sources.geckoterminal().pool(Chain::Ethereum, GT_POOL).await;
    assert!(matches!(first, Err(SourceError::RateLimited { .. })));
    // Nothing is sent while the provider asked to wait (the mock expects exactly one call).
    let second = sources.geckoterminal().pool(Chain::Ethereum, GT_POOL).await;
    assert!(
        matches!(second, Err(SourceError::BudgetExhausted { retry_after_seconds, .. }) if (29..=30).contains(&retry_after_seconds)),
        "{second:?}"
    );
}

#[tokio::test]
async fn timeouts_are_reported_as_such() {
    let server = MockServer::start().await;
    mount(
        &server,
        GT_POOL_PATH,
        json(fixture("geckoterminal/pool.json")).set_delay(Duration::from_secs(3)),
        1,
    )
    .await;
    let sources = Sources::new(&SourcesConfig {
        timeout_ms: 200,
        ..common::config(&server)
    })
    .expect("expected a value");
    let error = sources
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect_err("expected an error");
    assert!(
        matches!(error, SourceError::Timeout { after_ms: 200, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn unreachable_host_is_reported_as_such() {
    // A port nobody listens on: bind, read the port, drop the listener.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("expected a value")
        .local_addr()
        .expect("expected a value")
        .port();
    let sources = Sources::new(&SourcesConfig::all_at(&format!("http://127.0.0.1:{port}")))
        .expect("expected a value");
    let error = sources
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect_err("expected an error");
    assert!(
        matches!(error, SourceError::Unreachable { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn equal_calls_within_the_ttl_make_one_upstream_request() {
    let server = MockServer::start().await;
    mount(
        &server,
        GT_POOL_PATH,
        json(fixture("geckoterminal/pool.json")),
        1,
    )
    .await;
    let sources = sources(&server);
    let first = sources
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect("expected a value");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let second = sources
        .geckoterminal()
        .pool(Chain::Ethereum, GT_POOL)
        .await
        .expect("expected a value");
    assert_eq!(first.value, second.value);
    // A cache hit keeps the time of the upstream answer.
    assert_eq!(first.as_of, second.as_of);
    assert_eq!(first.fetched_at, second.fetched_at);
}

#[tokio::test]
async fn concurrent_equal_misses_share_one_request() {
    let server = MockServer::start().await;
    mount(
        &server,
        GT_POOL_PATH,
        json(fixture("geckoterminal/pool.json")).set_delay(Duration::from_millis(200)),
        1,
    )
    .await;
    let sources = sources(&server);
    let gt = sources.geckoterminal();
    let (a, b, c) = tokio::join!(
        gt.pool(Chain::Ethereum, GT_POOL),
        gt.pool(Chain::Ethereum, GT_POOL),
        gt.pool(Chain::Ethereum, GT_POOL)
    );
    assert!(a.is_ok() && b.is_ok() && c.is_ok());
}

#[tokio::test]
async fn failures_are_not_cached() {
    let server = MockServer::start().await;
    mount(&server, GT_POOL_PATH, ResponseTemplate::new(500), 2).await;
    let sources = sources(&server);
    for _ in 0..2 {
        assert!(
            sources
                .geckoterminal()
                .pool(Chain::Ethereum, GT_POOL)
                .await
                .is_err()
        );
    }
}

#[tokio::test]
async fn calls_beyond_the_published_budget_fail_fast_without_a_request() {
    let server = MockServer::start().await;
    // Any pool on base answers 404; 30 distinct pools use up the 30-per-minute budget.
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(404).set_body_string(fixture("geckoterminal/not_found.json")),
        )
        .expect(30)
        .mount(&server)
        .await;
    let sources = sources(&server);
    for i in 1..=30u8 {
        let pool = Address::with_last_byte(i);
        let answer = sources.geckoterminal().pool(Chain::Base, pool).await;
        assert!(answer.is_ok(), "call {i}: {answer:?}");
    }
    let over = sources
        .geckoterminal()
        .pool(Chain::Base, Address::with_last_byte(31))
        .await
        .expect_err("expected an error");
    match over {
        SourceError::BudgetExhausted {
            budget,
            retry_after_seconds,
            ..
        } => {
            assert_eq!(budget, "30 calls per 60 s");
            assert!((1..=60).contains(&retry_after_seconds));
        }
        other => panic!("{other:?}"),
    }
    // A cached answer is still served: the budget guards upstream requests only.
    assert!(
        sources
            .geckoterminal()
            .pool(Chain::Base, Address::with_last_byte(1))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn defillama_pools_keep_every_published_column() {
    let server = MockServer::start().await;
    mount(&server, "/pools", json(fixture("defillama/pools.json")), 1).await;
    let answer = sources(&server)
        .defillama_yields()
        .pools()
        .await
        .expect("expected a value");
    assert_eq!(answer.value.len(), 5);
    let row = &answer.value[0];
    assert_eq!(row.chain, "Base");
    assert_eq!(row.project, "uniswap-v3");
    assert_eq!(row.pool, "dd1bf75b-8cb2-579d-b07e-3b7500f67eff");
    assert_eq!(
        row.tvl_usd.as_ref().expect("expected a value").as_str(),
        "41230188"
    );
    assert_eq!(
        row.apy_base.as_ref().expect("expected a value").as_str(),
        "18.43021"
    );
    assert_eq!(row.apy_reward, None);
    assert_eq!(
        row.volume_usd_1d
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "40123456.78"
    );
    assert_eq!(
        row.volume_usd_7d
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "281234567.891"
    );
    assert_eq!(row.pool_meta.as_deref(), Some("0.05%"));
    assert_eq!(
        row.apy_mean_30d
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "22.5049"
    );
    assert_eq!(row.il_risk.as_deref(), Some("yes"));
    assert_eq!(
        row.underlying_tokens
            .as_ref()
            .expect("expected a value")
            .len(),
        2
    );
    assert!(row.predictions.is_some());
    // A null inside underlyingTokens is dropped, not an error.
    assert_eq!(
        answer.value[2]
            .underlying_tokens
            .as_ref()
            .expect("expected a value")
            .len(),
        1
    );
    assert_eq!(
        answer.value[1].pool_old.as_deref(),
        Some("0xcdac0d6c6c59727a65f871236188350531885c43")
    );
    assert!(answer.url.ends_with("/pools"));
}

#[tokio::test]
async fn defillama_status_other_than_success_is_unusable() {
    let server = MockServer::start().await;
    mount(
        &server,
        "/pools",
        json(r#"{"status":"error","data":[]}"#.into()),
        1,
    )
    .await;
    let error = sources(&server)
        .defillama_yields()
        .pools()
        .await
        .expect_err("expected an error");
    assert!(matches!(error, SourceError::Unusable { .. }), "{error:?}");
}

#[tokio::test]
async fn defillama_chart_takes_the_last_point_as_as_of() {
    let server = MockServer::start().await;
    let id = "dd1bf75b-8cb2-579d-b07e-3b7500f67eff";
    mount(
        &server,
        &format!("/chart/{id}"),
        json(fixture("defillama/chart.json")),
        1,
    )
    .await;
    let sources = sources(&server);
    let answer = sources
        .defillama_yields()
        .chart(id)
        .await
        .expect("expected a value");
    assert_eq!(answer.value.len(), 2);
    assert_eq!(answer.as_of, 1_756_249_331); // 2025-08-26T23:02:11Z
    assert_eq!(
        answer.value[1]
            .apy_base_7d
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "20.11"
    );
    // Not a UUID: refused before asking.
    let error = sources
        .defillama_yields()
        .chart("../pools")
        .await
        .expect_err("expected an error");
    assert!(matches!(error, SourceError::NotFound { .. }));
}

#[tokio::test]
async fn defillama_coins_are_keyed_by_chain_and_address() {
    let server = MockServer::start().await;
    let usdc = address!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    let weth = address!("0x4200000000000000000000000000000000000006");
    mount(
        &server,
        "/prices/current/base:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913,base:0x4200000000000000000000000000000000000006",
        json(fixture("defillama/coins.json")),
        1,
    )
    .await;
    let answer = sources(&server)
        .defillama_coins()
        .current_prices(&[(Chain::Base, usdc), (Chain::Base, weth)])
        .await
        .expect("expected a value");
    let usdc_price = &answer.value["base:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"];
    assert_eq!(
        usdc_price
            .price
            .as_ref()
            .expect("expected a value")
            .as_str(),
        "0.999912"
    );
    assert_eq!(usdc_price.decimals, Some(6));
    assert_eq!(answer.as_of, 1_756_290_000, "the oldest price's timestamp");
}

#[tokio::test]
async fn coinbase_ticker_and_its_not_found() {
    let server = MockServer::start().await;
    mount(
        &server,
        "/products/ETH-USD/ticker",
        json(fixture("coinbase/ticker.json")),
        1,
    )
    .await;
    mount(
        &server,
        "/products/NOPE-USD/ticker",
        ResponseTemplate::new(404).set_body_string(fixture("coinbase/not_found.json")),
        1,
    )
    .await;
    let sources = sources(&server);
    let ticker = sources
        .coinbase()
        .ticker("ETH-USD")
        .await
        .expect("expected a value");
    assert_eq!(ticker.value.bid.as_str(), "4612.57");
    assert_eq!(ticker.value.ask.as_str(), "4612.58");
    assert_eq!(
        ticker.as_of, 1_756_296_001,
        "the trade time 2025-08-27T12:00:01Z"
    );
    let error = sources
        .coinbase()
        .ticker("NOPE-USD")
        .await
        .expect_err("expected an error");
    assert!(
        matches!(&error, SourceError::NotFound { message, .. } if message == "NotFound"),
        "{error:?}"
    );
    let error = sources
        .coinbase()
        .ticker("ETH/USD?x=1")
        .await
        .expect_err("expected an error");
    assert!(matches!(error, SourceError::NotFound { .. }));
}

#[tokio::test]
async fn kraken_ticker_reads_the_single_result_key_and_its_error_array() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/0/public/Ticker"))
        .and(query_param("pair", "ETHUSD"))
        .respond_with(json(fixture("kraken/ticker.json")))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/0/public/Ticker"))
        .and(query_param("pair", "NOPEUSD"))
        .respond_with(json(fixture("kraken/unknown_pair.json")))
        .expect(1)
        .mount(&server)
        .await;
    let sources = sources(&server);
    let ticker = sources
        .kraken()
        .ticker("ETHUSD")
        .await
        .expect("expected a value");
    assert_eq!(ticker.value.pair, "XETHZUSD");
    assert_eq!(ticker.value.bid.as_str(), "4612.69000");
    assert_eq!(ticker.value.ask.as_str(), "4612.70000");
    assert_eq!(ticker.value.last.as_str(), "4612.70000");
    // Kraken's budget is one call per second: a second client asks at once.
    let error = common::sources(&server)
        .kraken()
        .ticker("NOPEUSD")
        .await
        .expect_err("expected an error");
    assert!(matches!(error, SourceError::NotFound { .. }), "{error:?}");
}

#[tokio::test]
async fn a_budget_free_again_within_a_moment_is_waited_for() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/0/public/Ticker"))
        .respond_with(json(fixture("kraken/ticker.json")))
        .expect(2)
        .mount(&server)
        .await;
    let sources = sources(&server);
    // Kraken's budget is one call per second: the second pair waits for it, then is asked.
    let started = std::time::Instant::now();
    let first = sources.kraken().ticker("ETHUSD").await;
    let second = sources.kraken().ticker("XBTUSD").await;
    assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
    assert!(started.elapsed() >= std::time::Duration::from_millis(900));
}

#[tokio::test]
async fn binance_book_ticker_and_invalid_symbol() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v3/ticker/bookTicker"))
        .and(query_param("symbol", "ETHUSDT"))
        .respond_with(json(fixture("binance/book_ticker.json")))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v3/ticker/bookTicker"))
        .and(query_param("symbol", "NOPEUSDT"))
        .respond_with(
            ResponseTemplate::new(400).set_body_string(fixture("binance/invalid_symbol.json")),
        )
        .expect(1)
        .mount(&server)
        .await;
    let sources = sources(&server);
    let ticker = sources
        .binance()
        .book_ticker("ETHUSDT")
        .await
        .expect("expected a value");
    assert_eq!(ticker.value.bid_price.as_str(), "4613.01000000");
    assert_eq!(ticker.value.ask_qty.as_str(), "3.21000000");
    let error = sources
        .binance()
        .book_ticker("NOPEUSDT")
        .await
        .expect_err("expected an error");
    assert!(
        matches!(&error, SourceError::NotFound { message, .. } if message == "Invalid symbol."),
        "{error:?}"
    );
}

#[tokio::test]
async fn binance_418_is_a_rate_limit() {
    let server = MockServer::start().await;
    mount(
        &server,
        "/api/v3/ticker/bookTicker",
        ResponseTemplate::new(418).insert_header("retry-after", "120"),
        1,
    )
    .await;
    let error = sources(&server)
        .binance()
        .book_ticker("ETHUSDT")
        .await
        .expect_err("expected an error");
    assert!(
        matches!(
            error,
            SourceError::RateLimited {
                retry_after_seconds: Some(120),
                ..
            }
        ),
        "{error:?}"
    );
}

const ETH_FEED: &str = "ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace";
const BTC_FEED: &str = "e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43";

#[tokio::test]
async fn pyth_latest_is_scaled_exactly_and_dated_by_publish_time() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v2/updates/price/latest"))
        .and(query_param("parsed", "true"))
        .respond_with(json(fixture("pyth/latest.json")))
        .expect(1)
        .mount(&server)
        .await;
    let answer = sources(&server)
        .pyth()
        .latest(&[&format!("0x{ETH_FEED}"), BTC_FEED])
        .await
        .expect("expected a value");
    assert_eq!(answer.value.len(), 2);
    assert_eq!(answer.value[0].id, ETH_FEED);
    assert_eq!(answer.value[0].price.value, "4612.36023127");
    assert_eq!(answer.value[0].price.conf_value, "1.77166324");
    assert_eq!(answer.value[0].prev_publish_time, Some(1_756_295_999));
    assert_eq!(answer.value[1].price.value, "112345");
    assert_eq!(answer.as_of, 1_756_295_998, "the oldest publish_time");
    assert!(answer.url.contains(&format!("ids[]={ETH_FEED}")));
}

#[tokio::test]
async fn pyth_unknown_feed_is_not_found() {
    let server = MockServer::start().await;
    mount(
        &server,
        "/v2/updates/price/latest",
        ResponseTemplate::new(404).set_body_string("Price ids not found: [\"1111111111111111111111111111111111111111111111111111111111111111\"]"),
        1,
    )
    .await;
    let error = sources(&server)
        .pyth()
        .latest(&["1111111111111111111111111111111111111111111111111111111111111111"])
        .await
        .expect_err("expected an error");
    assert!(
        matches!(&error, SourceError::NotFound { message, .. } if message.contains("Price ids not found")),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_pyth_key_is_sent_as_a_bearer_header_and_shown_nowhere() {
    const KEY: &str = "sekrit-pyth-KEY-0123456789";
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v2/updates/price/latest"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(json(fixture("pyth/latest.json")))
        .expect(1)
        .mount(&server)
        .await;
    let config = SourcesConfig {
        pyth_api_key: Some(KEY.into()),
        ..common::config(&server)
    };
    assert!(!format!("{config:?}").contains(KEY));
    let printed = toml::to_string(&config).expect("expected a value");
    assert!(
        !printed.contains(KEY) && printed.contains("pyth_api_key = \"<redacted>\""),
        "{printed}"
    );
    let sources = Sources::new(&config).expect("expected a value");
    assert!(!format!("{sources:?}").contains(KEY));
    let answer = sources
        .pyth()
        .latest(&[ETH_FEED])
        .await
        .expect("expected a value");
    assert!(!answer.url.contains(KEY));

    // Errors neither.
    let down = MockServer::start().await;
    mount(
        &down,
        "/v2/updates/price/latest",
        ResponseTemplate::new(500),
        1,
    )
    .await;
    let sources = Sources::new(&SourcesConfig {
        pyth_api_key: Some(KEY.into()),
        ..common::config(&down)
    })
    .expect("expected a value");
    let error = sources
        .pyth()
        .latest(&[ETH_FEED])
        .await
        .expect_err("expected an error");
    assert!(!format!("{error} {error:?}").contains(KEY));

    // A key that cannot be a header is refused without being repeated.
    let error = Sources::new(&SourcesConfig {
        pyth_api_key: Some(format!("{KEY}\n")),
        ..SourcesConfig::default()
    })
    .expect_err("expected an error");
    assert!(!format!("{error} {error:?}").contains(KEY));
}

#[tokio::test]
async fn redstone_median_over_unique_valid_signers() {
    let server = MockServer::start().await;
    mount(
        &server,
        "/data-packages/latest/redstone-primary-prod",
        json(fixture("redstone/packages.json")),
        1,
    )
    .await;
    let sources = sources(&server);
    let eth = sources
        .redstone()
        .latest(oracle_sources::redstone::PRIMARY_SERVICE, "ETH")
        .await
        .expect("expected a value");
    // Valid values 4611.9, 4612.1, 4612.3, 4612.6 (the invalid signature's 1 is left out).
    assert_eq!(eth.value.median, "4612.2");
    assert_eq!(eth.value.values.len(), 4);
    assert_eq!(eth.as_of, 1_756_295_990);
    // One signer is not enough (same cached answer, no second request).
    let error = sources
        .redstone()
        .latest(oracle_sources::redstone::PRIMARY_SERVICE, "BTC")
        .await
        .expect_err("expected an error");
    assert!(
        matches!(&error, SourceError::Unusable { message, .. } if message.contains("1 unique signers")),
        "{error:?}"
    );
}

#[test]
fn an_empty_sources_section_is_the_public_hosts() {
    let config: SourcesConfig = toml::from_str("").expect("expected a value");
    assert_eq!(config, SourcesConfig::default());
    assert_eq!(
        config.geckoterminal_url,
        "https://api.geckoterminal.com/api/v2"
    );
    assert_eq!(config.timeout_ms, 2500);
    assert_eq!(config.cache_ttl_seconds, 60);
    assert!(toml::from_str::<SourcesConfig>("geckoterminal = \"x\"").is_err());
}

#[test]
fn redaction_removes_user_info_and_key_parameters() {
    assert_eq!(
        oracle_sources::redact_url("https://user:pw@h.test/x?api_key=abc&ids[]=1"),
        "https://h.test/x?api_key=%3Credacted%3E&ids%5B%5D=1"
    );
    assert_eq!(
        oracle_sources::redact_url("https://h.test/x?a=1"),
        "https://h.test/x?a=1"
    );
    let _ =
        Address::from_str("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640").expect("expected a value");
}

#[tokio::test]
async fn defillama_coin_charts_are_sorted_and_dated_by_their_last_points() {
    let server = MockServer::start().await;
    let usdc = address!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    let weth = address!("0x4200000000000000000000000000000000000006");
    Mock::given(method("GET"))
        .and(path(
            "/chart/base:0x4200000000000000000000000000000000000006,base:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        ))
        .and(query_param("start", "1756080000"))
        .and(query_param("span", "31"))
        .and(query_param("period", "1d"))
        .respond_with(json(fixture("defillama/coins_chart.json")))
        .expect(1)
        .mount(&server)
        .await;
    let window = oracle_sources::defillama::ChartWindow {
        start: 1_756_080_000,
        span: 31,
        period: "1d".into(),
    };
    let sources = sources(&server);
    let answer = sources
        .defillama_coins()
        .chart(&[(Chain::Base, weth), (Chain::Base, usdc)], &window)
        .await
        .expect("expected a value");
    let weth_chart = &answer.value["base:0x4200000000000000000000000000000000000006"];
    let times: Vec<u64> = weth_chart.prices.iter().map(|p| p.timestamp).collect();
    assert_eq!(times, [1_756_080_000, 1_756_166_400, 1_756_252_800]);
    assert_eq!(
        weth_chart.prices[2].price.as_ref().expect("price").as_str(),
        "4612.37"
    );
    assert_eq!(weth_chart.symbol.as_deref(), Some("WETH"));
    assert_eq!(answer.as_of, 1_756_252_800);
    assert!(answer.url.contains("?start=1756080000&span=31&period=1d"));
    // The same window again is the cache's (the mock expects one call).
    sources
        .defillama_coins()
        .chart(&[(Chain::Base, weth), (Chain::Base, usdc)], &window)
        .await
        .expect("cached");
}

#[tokio::test]
async fn defillama_coin_chart_errors_are_typed() {
    let server = MockServer::start().await;
    let weth = address!("0x4200000000000000000000000000000000000006");
    let window = oracle_sources::defillama::ChartWindow {
        start: 1,
        span: 31,
        period: "1d".into(),
    };
    let chart_path = "/chart/base:0x4200000000000000000000000000000000000006";
    // 5xx: a status error naming the provider.
    mount(
        &server,
        chart_path,
        ResponseTemplate::new(502).set_body_string("Bad Gateway"),
        1,
    )
    .await;
    let error = sources(&server)
        .defillama_coins()
        .chart(&[(Chain::Base, weth)], &window)
        .await
        .expect_err("expected an error");
    assert!(
        matches!(error, SourceError::Status { status: 502, .. }),
        "{error:?}"
    );
    assert_eq!(error.provider(), "DefiLlama coins");

    // A coin DefiLlama does not price: an empty map, not an error.
    let server = MockServer::start().await;
    mount(&server, chart_path, json(r#"{"coins":{}}"#.into()), 1).await;
    let answer = sources(&server)
        .defillama_coins()
        .chart(&[(Chain::Base, weth)], &window)
        .await
        .expect("empty");
    assert!(answer.value.is_empty());

    // The `coins` member missing: malformed.
    let server = MockServer::start().await;
    mount(&server, chart_path, json(r#"{"prices":[]}"#.into()), 1).await;
    let error = sources(&server)
        .defillama_coins()
        .chart(&[(Chain::Base, weth)], &window)
        .await
        .expect_err("expected an error");
    assert!(matches!(error, SourceError::Malformed { .. }), "{error:?}");
}

#[tokio::test]
async fn defillama_yields_errors_are_typed() {
    // DefiLlama's answer to an id that is a UUID but not a pool's: 400 "invalid configID!".
    let server = MockServer::start().await;
    let id = "00000000-0000-4000-8000-000000000000";
    mount(
        &server,
        &format!("/chart/{id}"),
        ResponseTemplate::new(400).set_body_raw(r#""invalid configID!""#, "application/json"),
        1,
    )
    .await;
    mount(
        &server,
        "/pools",
        ResponseTemplate::new(503).set_body_string("Service Unavailable"),
        1,
    )
    .await;
    let client = sources(&server);
    let error = client
        .defillama_yields()
        .chart(id)
        .await
        .expect_err("expected an error");
    assert!(
        matches!(
            error,
            SourceError::Status { status: 400, .. } | SourceError::NotFound { .. }
        ),
        "{error:?}"
    );
    let error = client
        .defillama_yields()
        .pools()
        .await
        .expect_err("expected an error");
    assert!(
        matches!(error, SourceError::Status { status: 503, .. }),
        "{error:?}"
    );

    // Empty history: an empty list, not an error.
    let server = MockServer::start().await;
    mount(
        &server,
        &format!("/chart/{id}"),
        json(r#"{"status":"success","data":[]}"#.into()),
        1,
    )
    .await;
    let answer = sources(&server)
        .defillama_yields()
        .chart(id)
        .await
        .expect("empty");
    assert!(answer.value.is_empty());

    // A chart row without its timestamp: malformed.
    let server = MockServer::start().await;
    mount(
        &server,
        &format!("/chart/{id}"),
        json(r#"{"status":"success","data":[{"apyBase":1.5}]}"#.into()),
        1,
    )
    .await;
    let error = sources(&server)
        .defillama_yields()
        .chart(id)
        .await
        .expect_err("expected an error");
    assert!(matches!(error, SourceError::Malformed { .. }), "{error:?}");
}
