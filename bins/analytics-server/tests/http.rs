//! The analytics server in process: the 402 terms of every paid route, input validation before
//! payment, the unpaid limiter, the paid path up to the (not yet built) work, the discovery
//! documents and the shared HTTP frame.
//!
//! A wiremock server stands in for the facilitator. Every app starts with a catch-all mock on it
//! that expects no call, so any test that does not mount a facilitator route of its own also
//! proves that the facilitator was never asked.

use alloy::primitives::{Address, address};
use analytics_server::{AnalyticsConfig, AppState, router};
use axum::body::Body;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use server_kit::testing::{
    PaidTestApp, Reply, payment_signature, silent_facilitator, supported_mock,
};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockBuilder, ResponseTemplate};
use x402_core::PaymentRequired;

const PAY_TO: Address = address!("209693Bc6afc0C5328bA36FaF03C514EF312287C");
const HOST: &str = "analytics.test";
const NETWORK: &str = "eip155:8453";
const USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const WETH: &str = "0x4200000000000000000000000000000000000006";
const POOL: &str = "0xd0b53D9277642d899DF5C87A3966A349A798F224";
const WALLET: &str = "0x8d548B243730550eFD52D67A4cA9200EabA26319";
const CHAINS: [&str; 5] = ["base", "ethereum", "arbitrum", "optimism", "polygon"];

// ---------------------------------------------------------------------------------------------
// The routes, as docs/analytics.md prices them.

struct Route {
    path: &'static str,
    operation_id: &'static str,
    /// Price in USDC atomic units (6 decimals).
    amount: &'static str,
}

const DEX_QUOTE: &str = "/dex/quote";
const POOL_LIQUIDITY: &str = "/pool/liquidity";
const YIELD_NORMALIZE: &str = "/yield/normalize";
const ORACLE_CROSSCHECK: &str = "/oracle/crosscheck";
const LENDING_HEALTH: &str = "/lending/health";
const MEV_RISK: &str = "/mev/risk";

const ROUTES: [Route; 6] = [
    Route {
        path: DEX_QUOTE,
        operation_id: "dex_quote",
        amount: "5000",
    },
    Route {
        path: POOL_LIQUIDITY,
        operation_id: "pool_liquidity",
        amount: "5000",
    },
    Route {
        path: YIELD_NORMALIZE,
        operation_id: "yield_normalize",
        amount: "10000",
    },
    Route {
        path: ORACLE_CROSSCHECK,
        operation_id: "oracle_crosscheck",
        amount: "5000",
    },
    Route {
        path: LENDING_HEALTH,
        operation_id: "lending_health",
        amount: "10000",
    },
    Route {
        path: MEV_RISK,
        operation_id: "mev_risk",
        amount: "20000",
    },
];

/// The smallest valid body of a route: required fields only, every default left out.
fn minimal(path: &str) -> Value {
    match path {
        DEX_QUOTE => {
            json!({"chain": "base", "token_in": WETH, "token_out": USDC, "amount_in": "1.5"})
        }
        POOL_LIQUIDITY => json!({"chain": "base", "pool": POOL}),
        YIELD_NORMALIZE => {
            json!({"chain": "base", "protocol": "aerodrome-v1", "pool": "WETH-USDC"})
        }
        ORACLE_CROSSCHECK => json!({"chain": "base", "asset": "ETH"}),
        LENDING_HEALTH => json!({"chain": "base", "protocol": "lending-v3", "wallet": WALLET}),
        MEV_RISK => {
            json!({"chain": "base", "token_in": WETH, "token_out": USDC, "amount_in": "10"})
        }
        other => panic!("no such route {other}"),
    }
}

/// The minimal body of `path` with the members of `changes` set.
fn patched(path: &str, changes: Value) -> String {
    let mut body = minimal(path);
    let (Some(target), Value::Object(changes)) = (body.as_object_mut(), changes) else {
        panic!("bodies and changes are objects");
    };
    target.extend(changes);
    body.to_string()
}

/// The minimal body of `path` without `field`.
fn without(path: &str, field: &str) -> String {
    let mut body = minimal(path);
    body.as_object_mut().map(|members| members.remove(field));
    body.to_string()
}

// ---------------------------------------------------------------------------------------------
// The harness.

struct App(PaidTestApp);

impl App {
    async fn new() -> Self {
        Self::with(|_| {}).await
    }

    /// An app on the default configuration, paying to `PAY_TO` through the mock facilitator
    /// (which must not be called unless a test mounts a route), after `configure` has changed
    /// what a test needs.
    async fn with(configure: impl FnOnce(&mut AnalyticsConfig)) -> Self {
        Self(PaidTestApp::new(
            HOST,
            silent_facilitator().await,
            |facilitator| {
                let mut config = AnalyticsConfig::default();
                config.common.payment.pay_to = Some(PAY_TO);
                config.common.facilitator.url = Some(facilitator.uri());
                // Every request counts against the unpaid allowance, invalid ones included: the
                // tests that send many requests get room; the limiter's own test sets its allowance.
                config.common.limits.unpaid_per_window = 10_000;
                configure(&mut config);
                router(AppState::new(config).expect("configuration is valid"))
            },
        ))
    }

    async fn get(&self, path: &str) -> Reply {
        self.app.get(path).await
    }

    async fn post(&self, path: &str, body: impl Into<Body>) -> Reply {
        self.app.post(path, &[], body).await
    }

    async fn post_with(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Body>,
    ) -> Reply {
        self.app.post(path, headers, body).await
    }

    /// `path` with its minimal body and no payment.
    async fn post_minimal(&self, path: &str) -> Reply {
        self.post(path, minimal(path).to_string()).await
    }

    /// `path` with its minimal body, paid with `signature`.
    async fn post_paid(&self, path: &str, signature: &str) -> Reply {
        self.post_with(
            path,
            &[("payment-signature", signature)],
            minimal(path).to_string(),
        )
        .await
    }

    /// The terms of `path` for its minimal body.
    async fn terms(&self, path: &str) -> PaymentRequired {
        let reply = self.post_minimal(path).await;
        assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{reply:?}");
        reply.terms()
    }
}

impl std::ops::Deref for App {
    type Target = PaidTestApp;

    fn deref(&self) -> &PaidTestApp {
        &self.0
    }
}

fn closed_port_url() -> String {
    let port = test_devnet::free_port().expect("a free port");
    format!("http://127.0.0.1:{port}")
}

// ---------------------------------------------------------------------------------------------
// 402: the terms of each route.

#[tokio::test]
async fn every_route_answers_402_with_its_terms_in_header_and_body() {
    let app = App::new().await;
    for route in &ROUTES {
        let reply = app.post_minimal(route.path).await;
        assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{reply:?}");
        assert_eq!(reply.header("cache-control"), Some("no-store"));
        let header = reply.header("payment-required").expect("header");
        assert!(
            header.len() < 8192,
            "{}: header is {} bytes",
            route.path,
            header.len()
        );

        let terms = reply.terms();
        assert_eq!(terms.x402_version, 2);
        assert_eq!(terms.resource.url, format!("http://{HOST}{}", route.path));
        assert_eq!(terms.accepts.len(), 1);
        let offered = &terms.accepts[0];
        assert_eq!(offered.scheme, "exact");
        assert_eq!(offered.network, NETWORK);
        assert_eq!(offered.asset, USDC);
        assert_eq!(offered.amount, route.amount, "{}", route.operation_id);
        assert_eq!(offered.pay_to, PAY_TO.to_checksum(None));
        assert_eq!(
            offered.max_timeout_seconds, 80,
            "20 s budget + 60 s to settle"
        );
        assert_eq!(
            offered.extra.clone().map(Value::Object),
            Some(json!({"name": "USD Coin", "version": "2"}))
        );

        let body = reply.json();
        assert_eq!(body["x402Version"], 2);
        assert_eq!(body["error"], terms.error.clone().expect("error"));
        assert!(body["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(body["inputSchema"].is_object());
        assert_eq!(
            body["accepts"],
            json!(terms.accepts),
            "body and header agree"
        );

        let bazaar = &terms.extensions.as_ref().expect("extensions")["bazaar"];
        // The same input schema; the body's also names the example (`examples`), which the
        // bazaar carries beside it (`info.input.body`) rather than twice in the header.
        let mut published = body["inputSchema"].clone();
        let examples = published
            .as_object_mut()
            .and_then(|schema| schema.remove("examples"))
            .expect("examples");
        assert_eq!(
            bazaar["schema"]["properties"]["input"]["properties"]["body"], published,
            "bazaar carries the same input schema"
        );
        assert_eq!(
            bazaar["info"]["input"]["body"], examples[0],
            "with the example"
        );
        // The answer's top level, and the service metadata.
        let output = &bazaar["schema"]["properties"]["output"]["properties"]["example"];
        assert_eq!(output["type"], "object", "{}", route.path);
        assert!(
            output["properties"]
                .as_object()
                .is_some_and(|p| !p.is_empty()),
            "{}",
            route.path
        );
        let resource = &terms.resource;
        assert_eq!(
            resource.service_name.as_deref(),
            Some("On-chain finance analytics")
        );
        assert_eq!(resource.tags.as_ref().map(Vec::len), Some(5));
        assert_eq!(
            resource.icon_url.as_deref(),
            Some(format!("http://{HOST}/favicon.svg").as_str())
        );
        let header_bytes = reply.header("payment-required").map_or(0, str::len);
        assert!(
            header_bytes < 16 * 1024,
            "{}: PAYMENT-REQUIRED is {header_bytes} bytes, over Node's 16 KB header limit",
            route.path
        );
    }
}

#[tokio::test]
async fn identical_requests_get_byte_identical_terms() {
    let app = App::new().await;
    for route in &ROUTES {
        let first = app.post_minimal(route.path).await;
        let second = app.post_minimal(route.path).await;
        assert_eq!(
            first.header("payment-required"),
            second.header("payment-required"),
            "{}",
            route.path
        );
        assert_eq!(first.bytes, second.bytes, "{}", route.path);
    }
}

#[tokio::test]
async fn bodies_with_every_option_and_boundary_values_are_priced() {
    let app = App::new().await;
    let accepted = [
        (
            DEX_QUOTE,
            json!({"slippage_bps": 0, "include_multihop": false, "amount_in": "0.000001"}),
        ),
        (
            DEX_QUOTE,
            json!({"slippage_bps": 5000, "token_out": USDC.to_lowercase()}),
        ),
        (
            POOL_LIQUIDITY,
            json!({"pool": null, "token_a": WETH, "token_b": USDC, "dex": "uniswap_v3", "fee_tier_ppm": 500}),
        ),
        (
            YIELD_NORMALIZE,
            json!({"stake_sizes_usd": [1, 2, 3, 4, 5, 6, 7, 100_000_000]}),
        ),
        (
            ORACLE_CROSSCHECK,
            json!({"asset": "wstETH", "oracles": ["aggregator", "pull_oracle_a", "pull_oracle_b", "cex", "dex_spot", "dex_twap"]}),
        ),
        (
            LENDING_HEALTH,
            json!({"chain": "polygon", "scenarios_pct": [-99, -50, 0, 10, 20, 30, 50, 100]}),
        ),
        (
            MEV_RISK,
            json!({"slippage_bps": 1, "route": POOL, "scan_history": false}),
        ),
        (MEV_RISK, json!({"slippage_bps": 5000})),
    ];
    for (path, changes) in accepted {
        let body = patched(path, changes);
        let reply = app.post(path, body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::PAYMENT_REQUIRED,
            "{path} {body}: {reply:?}"
        );
    }
    for chain in CHAINS {
        for route in &ROUTES {
            let reply = app
                .post(route.path, patched(route.path, json!({"chain": chain})))
                .await;
            assert_eq!(
                reply.status,
                StatusCode::PAYMENT_REQUIRED,
                "{chain} {}",
                route.path
            );
        }
    }
}

#[tokio::test]
async fn dex_quote_402_body_snapshot() {
    let app = App::new().await;
    let reply = app.post_minimal(DEX_QUOTE).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED);
    insta::assert_json_snapshot!("dex_quote_402_body", reply.json());
}

// ---------------------------------------------------------------------------------------------
// 400: validation runs before payment.

/// One way of breaking a route's minimal body.
enum Edit {
    /// Set these members.
    Set(Value),
    /// Leave this member out.
    Drop(&'static str),
    /// Send this instead of a JSON object.
    Raw(&'static str),
}

impl Edit {
    fn apply(&self, path: &str) -> String {
        match self {
            Self::Set(changes) => patched(path, changes.clone()),
            Self::Drop(field) => without(path, field),
            Self::Raw(body) => (*body).to_owned(),
        }
    }
}

/// Bad bodies per route, each with the field its 400 must name.
fn invalid_cases() -> Vec<(&'static str, Edit, &'static str)> {
    use Edit::{Drop, Raw, Set};
    let nine = json!([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let weth_upper = WETH.to_uppercase().replace("0X", "0x");
    let mut cases = Vec::new();
    let mut add = |path: &'static str, edits: Vec<(Edit, &'static str)>| {
        cases.extend(edits.into_iter().map(|(edit, field)| (path, edit, field)));
    };
    add(
        DEX_QUOTE,
        vec![
            (Set(json!({"token_in": "0x12"})), "token_in"),
            (Set(json!({"token_out": format!("{WETH}0")})), "token_out"),
            (Set(json!({"slippage_bps": 5001})), "slippage_bps"),
            (Set(json!({"slippage_bps": -1})), "slippage_bps"),
            (Set(json!({"chain": "Base"})), "chain"),
            (Set(json!({"amount_in": "1e5"})), "amount_in"),
            (Set(json!({"amount_in": "-1"})), "amount_in"),
            (Set(json!({"amount_in": 1.5})), "amount_in"),
            // Zero matches the pattern; the cross-field check refuses it.
            (Set(json!({"amount_in": "0"})), "amount_in"),
            (Set(json!({"token_out": weth_upper})), "token_out"),
            (Set(json!({"include_multihop": "yes"})), "include_multihop"),
            (Drop("token_out"), "token_out"),
            (Drop("chain"), "chain"),
        ],
    );
    add(
        POOL_LIQUIDITY,
        vec![
            (Set(json!({"pool": "0x12"})), "pool"),
            (Set(json!({"fee_tier_ppm": 250})), "fee_tier_ppm"),
            (Set(json!({"dex": "curve"})), "dex"),
            (Set(json!({"token_a": WETH})), "pool"),
            (Set(json!({"pool": null, "token_a": WETH})), "token_b"),
            (
                Set(json!({"pool": null, "token_a": WETH, "token_b": USDC})),
                "dex",
            ),
            (
                Set(json!({"pool": null, "token_b": USDC, "dex": "uniswap_v2"})),
                "token_a",
            ),
            (
                Set(json!({"pool": null, "token_a": WETH, "token_b": WETH, "dex": "aerodrome"})),
                "token_b",
            ),
            // A Balancer V2 pool goes with both tokens or neither, never the same twice.
            (
                Set(json!({"dex": "balancer_v2", "token_a": WETH})),
                "token_b",
            ),
            (
                Set(json!({"dex": "balancer_v2", "token_a": WETH, "token_b": WETH})),
                "token_b",
            ),
            // Neither group: named by the first group's field (the schema's anyOf).
            (Drop("pool"), "pool"),
        ],
    );
    add(
        YIELD_NORMALIZE,
        vec![
            (Set(json!({"stake_sizes_usd": [0]})), "stake_sizes_usd.0"),
            (
                Set(json!({"stake_sizes_usd": [100, 100_000_001]})),
                "stake_sizes_usd.1",
            ),
            (Set(json!({"stake_sizes_usd": nine})), "stake_sizes_usd"),
            (Set(json!({"pool": ""})), "pool"),
            (Drop("protocol"), "protocol"),
        ],
    );
    add(
        ORACLE_CROSSCHECK,
        vec![
            (Set(json!({"asset": "DOGE"})), "asset"),
            (Set(json!({"oracles": ["bogus"]})), "oracles.0"),
            (Set(json!({"oracles": []})), "oracles"),
            (Drop("asset"), "asset"),
        ],
    );
    add(
        LENDING_HEALTH,
        vec![
            (Set(json!({"wallet": "0x12"})), "wallet"),
            // Absent is invalid input; a protocol that is named but not lending-v3 is
            // unsupported_protocol (below).
            (Drop("protocol"), "protocol"),
            (Set(json!({"scenarios_pct": [-100]})), "scenarios_pct.0"),
            (Set(json!({"scenarios_pct": [-10, 101]})), "scenarios_pct.1"),
            (Set(json!({"scenarios_pct": nine})), "scenarios_pct"),
            (Drop("wallet"), "wallet"),
        ],
    );
    add(
        MEV_RISK,
        vec![
            (Set(json!({"slippage_bps": 0})), "slippage_bps"),
            (Set(json!({"slippage_bps": 5001})), "slippage_bps"),
            (Set(json!({"route": "0x12"})), "route"),
            (Set(json!({"amount_in": "0.000"})), "amount_in"),
            (Set(json!({"amount_in": "1."})), "amount_in"),
            (Set(json!({"token_out": WETH})), "token_out"),
            (Set(json!({"scan_history": 1})), "scan_history"),
            (Drop("amount_in"), "amount_in"),
        ],
    );
    for route in &ROUTES {
        add(
            route.path,
            vec![
                (Set(json!({"unknown": true})), "unknown"),
                (Set(json!({"chain": "solana"})), "chain"),
                (Raw("{"), "body"),
                (Raw(""), "body"),
                (Raw("  "), "body"),
                (Raw("[]"), "body"),
                (Raw("null"), "body"),
                (Raw("\"base\""), "body"),
            ],
        );
    }
    cases
}

#[tokio::test]
async fn invalid_input_is_refused_with_the_field_named_and_nothing_charged() {
    let app = App::new().await;
    for (path, edit, field) in invalid_cases() {
        let body = edit.apply(path);
        let reply = app.post(path, body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{path} {body:?}: {reply:?}"
        );
        reply.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
        let fields = reply.detail_fields();
        assert!(
            fields.iter().any(|f| f == field),
            "{path} {body:?}: expected field {field}, got {fields:?}"
        );
    }
}

#[tokio::test]
async fn a_lending_protocol_other_than_lending_v3_is_unsupported_protocol_before_payment() {
    let app = App::new().await;
    for protocol in [
        json!("aave-v2"),
        json!("Lending-V3"),
        json!("compound-v3"),
        json!(3),
        json!(null),
    ] {
        let reply = app
            .post(
                LENDING_HEALTH,
                patched(LENDING_HEALTH, json!({"protocol": protocol})),
            )
            .await;
        reply.assert_error(StatusCode::BAD_REQUEST, "unsupported_protocol");
        let fields = reply.detail_fields();
        assert!(
            !fields.is_empty() && fields.iter().all(|f| f == "protocol"),
            "{protocol}: {fields:?}"
        );
        assert!(
            reply.json()["message"]
                .as_str()
                .is_some_and(|m| m.contains("only lending-v3")),
            "{protocol}"
        );
    }
    // Other problems are still listed beside it, and a payment changes nothing.
    let terms = app.terms(LENDING_HEALTH).await;
    let reply = app
        .post_with(
            LENDING_HEALTH,
            &[(
                "payment-signature",
                &payment_signature(&terms, "unsupported"),
            )],
            patched(
                LENDING_HEALTH,
                json!({"protocol": "aave-v2", "wallet": "0x12"}),
            ),
        )
        .await;
    reply.assert_error(StatusCode::BAD_REQUEST, "unsupported_protocol");
    assert_eq!(reply.detail_fields(), ["protocol", "wallet"]);
    // yield_normalize's protocol is a directory id, not an enum: no such mapping there.
    let reply = app
        .post(
            YIELD_NORMALIZE,
            patched(YIELD_NORMALIZE, json!({"protocol": ""})),
        )
        .await;
    reply.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

#[tokio::test]
async fn a_balancer_pool_id_on_a_chain_without_balancer_is_unsupported_before_payment() {
    let app = App::new().await;
    let id = "0x93d199263632a4ef4bb438f1feb99e57b4b5f0bd0000000000000000000005c2";
    let reply = app
        .post(
            POOL_LIQUIDITY,
            patched(POOL_LIQUIDITY, json!({"pool": id, "dex": "balancer_v2"})),
        )
        .await;
    reply.assert_error(StatusCode::BAD_REQUEST, "unsupported_protocol");
    assert!(
        reply.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("balancer_v2 is not read on base")),
        "{reply:?}"
    );
}

#[tokio::test]
async fn invalid_input_with_a_payment_is_refused_before_verification() {
    let app = App::new().await;
    let terms = app.terms(DEX_QUOTE).await;
    let signature = payment_signature(&terms, "invalid-input");
    let reply = app
        .post_with(
            DEX_QUOTE,
            &[("payment-signature", &signature)],
            patched(DEX_QUOTE, json!({"slippage_bps": 5001})),
        )
        .await;
    reply.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

// ---------------------------------------------------------------------------------------------
// 429: the unpaid allowance.

#[tokio::test]
async fn every_request_counts_against_the_unpaid_allowance_before_it_is_parsed() {
    let app = App::with(|config| config.common.limits.unpaid_per_window = 5).await;
    // Invalid bodies are counted too: the allowance is taken before the body is parsed.
    for _ in 0..2 {
        let reply = app.post(DEX_QUOTE, "{").await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    }
    for _ in 0..3 {
        let reply = app.post_minimal(DEX_QUOTE).await;
        assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{reply:?}");
    }

    let refused = app.post_minimal(DEX_QUOTE).await;
    refused.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
    let retry_after: u64 = refused
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!(
        (1..=20).contains(&retry_after),
        "one request refills in 20 s, got {retry_after}"
    );
    assert!(refused.header("payment-required").is_none());

    // The allowance is per client, not per route, and an untrusted X-Forwarded-For is ignored.
    let other_route = app.post_minimal(MEV_RISK).await;
    other_route.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
    let forwarded = app
        .post_with(
            DEX_QUOTE,
            &[("x-forwarded-for", "203.0.113.9")],
            minimal(DEX_QUOTE).to_string(),
        )
        .await;
    forwarded.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");

    // A bad body is no way around it, nor is a payment header.
    let invalid = app.post(DEX_QUOTE, "[]").await;
    invalid.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
    let terms_app = App::new().await;
    let terms = terms_app.terms(DEX_QUOTE).await;
    let signature = payment_signature(&terms, "exhausted");
    let paid = app
        .post_with(
            DEX_QUOTE,
            &[("payment-signature", &signature)],
            minimal(DEX_QUOTE).to_string(),
        )
        .await;
    paid.assert_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
}

// ---------------------------------------------------------------------------------------------
// The paid path.

fn verify() -> MockBuilder {
    Mock::given(method("POST")).and(path("/verify"))
}

fn verdict(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn settle_never() -> Mock {
    Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
}

#[tokio::test]
async fn a_verified_payment_reaches_the_work_whose_refusal_is_not_settled() {
    // Every route's analytics are built; /yield/normalize with its yield directory down stands
    // for work that fails after the payment was verified.
    let closed = closed_port_url();
    let app = App::with(|config| {
        config.sources = oracle_sources::SourcesConfig::all_at(&closed);
    })
    .await;
    let terms = app.terms(YIELD_NORMALIZE).await;
    let payer = "0x8d548B243730550eFD52D67A4cA9200EabA26319";
    app.mount(
        verify()
            .and(body_partial_json(json!({
                "x402Version": 2,
                "paymentRequirements": {"amount": "10000", "payTo": PAY_TO.to_checksum(None)},
                "paymentPayload": {"accepted": {"amount": "10000"}}
            })))
            .respond_with(verdict(json!({"isValid": true, "payer": payer})))
            .expect(1),
    )
    .await;
    app.mount(settle_never()).await;

    let signature = payment_signature(&terms, "paid");
    let reply = app.post_paid(YIELD_NORMALIZE, &signature).await;
    reply.assert_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert!(
        reply.header("payment-response").is_none(),
        "nothing settled"
    );
}

#[tokio::test]
async fn a_paid_quote_whose_chain_node_is_down_is_a_502_and_not_settled() {
    let app = App::with(|config| {
        if let Some(base) = config
            .chains
            .get_mut(&analytics_server::requests::Chain::Base)
        {
            base.rpc_urls = vec![closed_port_url()];
        }
    })
    .await;
    let terms = app.terms(DEX_QUOTE).await;
    app.mount(
        verify()
            .respond_with(verdict(
                json!({"isValid": true, "payer": PAY_TO.to_checksum(None)}),
            ))
            .expect(1),
    )
    .await;
    app.mount(settle_never()).await;
    let reply = app
        .post_paid(DEX_QUOTE, &payment_signature(&terms, "node-down"))
        .await;
    reply.assert_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert!(
        reply.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("base node"))
    );
    assert!(reply.header("payment-response").is_none());
}

#[tokio::test]
async fn a_chain_without_rpc_urls_is_not_served_and_a_legacy_rpc_url_replaces_the_list() {
    let app = App::with(|config| {
        if let Some(polygon) = config
            .chains
            .get_mut(&analytics_server::requests::Chain::Polygon)
        {
            polygon.rpc_urls.clear();
        }
    })
    .await;
    let terms = app.terms(DEX_QUOTE).await;
    app.mount(
        verify()
            .respond_with(verdict(
                json!({"isValid": true, "payer": PAY_TO.to_checksum(None)}),
            ))
            .expect(1),
    )
    .await;
    app.mount(settle_never()).await;
    let reply = app
        .post_with(
            DEX_QUOTE,
            &[("payment-signature", &payment_signature(&terms, "polygon"))],
            patched(DEX_QUOTE, json!({"chain": "polygon"})),
        )
        .await;
    reply.assert_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert!(
        reply.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("polygon"))
    );

    let mut endpoint = analytics_server::config::ChainEndpoint {
        rpc_urls: vec!["https://a.example".into(), "https://b.example".into()],
        rpc_url: None,
        tokens: Default::default(),
        contracts: Default::default(),
        v4_index: None,
        balancer_pools: None,
    };
    assert_eq!(endpoint.urls(), ["https://a.example", "https://b.example"]);
    endpoint.rpc_url = Some("http://127.0.0.1:8545".into());
    assert_eq!(endpoint.urls(), ["http://127.0.0.1:8545"]);
}

#[tokio::test]
async fn a_payment_refused_by_the_facilitator_gets_402_with_its_reason() {
    let app = App::new().await;
    let terms = app.terms(MEV_RISK).await;
    let reason = "invalid_exact_evm_signature";
    app.mount(
        verify()
            .respond_with(verdict(
                json!({"isValid": false, "invalidReason": reason, "payer": ""}),
            ))
            .expect(1),
    )
    .await;
    app.mount(settle_never()).await;

    let signature = payment_signature(&terms, "refused");
    let reply = app.post_paid(MEV_RISK, &signature).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{reply:?}");
    assert_eq!(reply.json()["error"], reason);
    let fresh = reply.terms();
    assert_eq!(fresh.error.as_deref(), Some(reason));
    assert_eq!(fresh.accepts, terms.accepts, "the same terms again");
}

#[tokio::test]
async fn a_payment_for_other_terms_is_refused_without_asking_the_facilitator() {
    let app = App::new().await;
    // dex_quote costs 5000, mev_risk 20000: the dex_quote payment cannot match.
    let cheaper = app.terms(DEX_QUOTE).await;
    let signature = payment_signature(&cheaper, "wrong-route");
    let reply = app.post_paid(MEV_RISK, &signature).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{reply:?}");
    assert_eq!(reply.json()["error"], "No matching payment requirements");
    assert_eq!(reply.terms().accepts[0].amount, "20000");

    let garbage = app.post_paid(MEV_RISK, "not base64 JSON").await;
    assert_eq!(garbage.status, StatusCode::PAYMENT_REQUIRED, "{garbage:?}");
}

#[tokio::test]
async fn an_unreachable_facilitator_is_a_502_and_nothing_is_charged() {
    let app = App::with(|config| config.common.facilitator.url = Some(closed_port_url())).await;
    let terms = app.terms(LENDING_HEALTH).await;
    let signature = payment_signature(&terms, "unreachable");
    let reply = app.post_paid(LENDING_HEALTH, &signature).await;
    reply.assert_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
}

// ---------------------------------------------------------------------------------------------
// 413: the body limit.

#[tokio::test]
async fn a_body_over_the_limit_is_413_json() {
    let app = App::with(|config| config.common.limits.max_body_bytes = 1024).await;
    let oversized = patched(DEX_QUOTE, json!({"padding": "x".repeat(2048)}));
    let reply = app.post(DEX_QUOTE, oversized).await;
    reply.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");

    let just_under = patched(DEX_QUOTE, json!({"padding": "x".repeat(800)}));
    assert!(just_under.len() <= 1024);
    let reply = app.post(DEX_QUOTE, just_under).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

// ---------------------------------------------------------------------------------------------
// Discovery documents.

fn request_schema<'a>(openapi: &'a Value, path: &str) -> &'a Value {
    &openapi["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
}

#[tokio::test]
async fn openapi_describes_every_paid_route_with_its_402_input_schema() {
    let app = App::new().await;
    let reply = app.get("/openapi.json").await;
    assert_eq!(reply.status, StatusCode::OK);
    let doc = reply.json();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["servers"][0]["url"], format!("http://{HOST}"));
    let scheme = &doc["components"]["securitySchemes"]["x402"];
    assert_eq!(scheme["type"], "apiKey");
    assert_eq!(scheme["in"], "header");
    assert_eq!(scheme["name"], "PAYMENT-SIGNATURE");

    for route in &ROUTES {
        let operation = &doc["paths"][route.path]["post"];
        assert_eq!(operation["operationId"], route.operation_id);
        for status in ["200", "400", "402", "429", "502", "504"] {
            assert!(
                operation["responses"][status].is_object(),
                "{} {status}",
                route.path
            );
        }
        // Only routes whose analytics are not built yet answer 501; a built one publishes the
        // schema of its answer.
        let answer_field = match route.path {
            DEX_QUOTE => Some("best_by_net"),
            POOL_LIQUIDITY => Some("exit_impact"),
            LENDING_HEALTH => Some("health_factor"),
            ORACLE_CROSSCHECK => Some("max_deviation_bps"),
            MEV_RISK => Some("max_loss"),
            YIELD_NORMALIZE => Some("net_apy_after_gas"),
            _ => None,
        };
        assert_eq!(
            operation["responses"]["501"].is_object(),
            answer_field.is_none(),
            "{}",
            route.path
        );
        let answer = &operation["responses"]["200"]["content"]["application/json"]["schema"];
        if let Some(field) = answer_field {
            assert!(answer["properties"][field].is_object(), "{}", route.path);
        } else {
            assert!(answer["properties"].is_null(), "{}", route.path);
        }
        // No API authentication; the payment is declared by x-payment-info (x402scan's
        // discovery profile: `security: []` with `x-payment-info` is "paid").
        assert_eq!(operation["security"], json!([]));
        assert_eq!(operation["requestBody"]["required"], true);
        let unpaid = app.post_minimal(route.path).await;
        assert_eq!(
            *request_schema(&doc, route.path),
            unpaid.json()["inputSchema"],
            "{}",
            route.path
        );
        let payment_info = &operation["x-payment-info"];
        assert_eq!(payment_info["protocols"], json!([{"x402": {}}]));
        assert_eq!(payment_info["price"]["mode"], "fixed");
        assert_eq!(payment_info["price"]["currency"], "USD");
        // The catalogue's price is the 402's amount.
        let amount = payment_info["price"]["amount"].as_str().expect("amount");
        let atomic = x402_core::parse_units_exact(amount, 6).expect("a USDC amount");
        assert_eq!(atomic.to_string(), route.amount, "{}", route.path);
        assert_eq!(
            unpaid.terms().accepts[0].amount,
            route.amount,
            "{}",
            route.path
        );
        assert_eq!(payment_info["priceDetail"]["amount_atomic"], route.amount);
    }

    let dex_quote = &request_schema(&doc, DEX_QUOTE)["properties"];
    assert_eq!(dex_quote["chain"]["enum"], json!(CHAINS));
    let pool = &request_schema(&doc, POOL_LIQUIDITY)["properties"];
    assert_eq!(
        pool["dex"]["enum"],
        json!([
            "uniswap_v3",
            "uniswap_v2",
            "sushiswap_v2",
            "pancakeswap_v3",
            "aerodrome",
            "velodrome",
            "quickswap_v3",
            "camelot_v3",
            "uniswap_v4",
            "sushiswap_v3",
            "aerodrome_slipstream",
            "velodrome_slipstream",
            "camelot_v4",
            "balancer_v2",
            null
        ])
    );
}

#[tokio::test]
async fn openapi_snapshot() {
    let app = App::new().await;
    let reply = app.get("/openapi.json").await;
    assert_eq!(reply.status, StatusCode::OK);
    insta::assert_json_snapshot!("openapi", reply.json());
}

#[tokio::test]
async fn well_known_pricing_and_llms_txt_list_every_route() {
    let app = App::new().await;

    let well_known = app.get("/.well-known/x402").await;
    assert_eq!(well_known.status, StatusCode::OK);
    let urls: Vec<String> = ROUTES
        .iter()
        .map(|route| format!("http://{HOST}{}", route.path))
        .collect();
    assert_eq!(well_known.json(), json!({"version": 1, "resources": urls}));

    let pricing = app.get("/pricing").await.json();
    assert_eq!(pricing["network"], NETWORK);
    assert_eq!(pricing["asset"], USDC);
    assert_eq!(pricing["pay_to"], PAY_TO.to_checksum(None));
    let listed = pricing["routes"].as_array().expect("routes");
    assert_eq!(listed.len(), ROUTES.len());
    for route in &ROUTES {
        let entry = listed
            .iter()
            .find(|entry| entry["path"] == route.path)
            .unwrap_or_else(|| panic!("{} not priced", route.path));
        assert_eq!(entry["method"], "POST");
        assert_eq!(entry["operation_id"], route.operation_id);
        assert_eq!(entry["price"]["amount_atomic"], route.amount);
    }

    let llms = app.get("/llms.txt").await;
    assert_eq!(llms.status, StatusCode::OK);
    for route in &ROUTES {
        assert!(
            llms.text()
                .contains(&format!("POST http://{HOST}{}", route.path)),
            "{} missing from llms.txt",
            route.path
        );
    }
    for free in [
        "/openapi.json",
        "/.well-known/x402",
        "/pricing",
        "/health",
        "/readiness",
    ] {
        assert!(llms.text().contains(free), "{free} missing from llms.txt");
    }
}

// ---------------------------------------------------------------------------------------------
// Operations and the shared HTTP frame.

#[tokio::test]
async fn health_answers_without_dependencies() {
    let app = App::with(|config| config.common.facilitator.url = Some(closed_port_url())).await;
    let reply = app.get("/health").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json(), json!({"status": "ok"}));
}

#[tokio::test]
async fn readiness_follows_the_facilitator() {
    for (network, status, ready) in [
        (NETWORK, StatusCode::OK, true),
        ("eip155:84532", StatusCode::SERVICE_UNAVAILABLE, false),
    ] {
        let app = App::new().await;
        app.mount(supported_mock(network).expect(1)).await;
        let reply = app.get("/readiness").await;
        assert_eq!(reply.status, status, "{network}: {reply:?}");
        let body = reply.json();
        assert_eq!(body["ready"], ready, "{body}");
        let state = if ready { "ok" } else { "failed" };
        assert_eq!(
            body,
            json!({"ready": ready, "checks": {"facilitator": state}}),
            "the public answer names checks and states only"
        );
    }

    // An unreachable facilitator behind a keyed URL: failed, and nothing of the error shown.
    let keyed = format!("{}/v2/FacilitatorKey0123456789abc", closed_port_url());
    let unreachable = App::with(|config| config.common.facilitator.url = Some(keyed)).await;
    let reply = unreachable.get("/readiness").await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.json(),
        json!({"ready": false, "checks": {"facilitator": "failed"}})
    );
}

#[tokio::test]
async fn cors_lets_browsers_send_the_payment_and_read_the_terms() {
    let app = App::new().await;
    let preflight = app
        .app
        .send(
            app.app
                .request(Method::OPTIONS, DEX_QUOTE)
                .header("content-type", "application/json")
                .header("origin", "https://wallet.example")
                .header("access-control-request-method", "POST")
                .header(
                    "access-control-request-headers",
                    "content-type,payment-signature",
                )
                .body(Body::empty())
                .expect("request"),
        )
        .await;
    assert!(preflight.status.is_success(), "{preflight:?}");
    let allowed = preflight
        .header("access-control-allow-headers")
        .expect("allow-headers")
        .to_ascii_lowercase();
    assert!(allowed.contains("payment-signature"), "{allowed}");
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));

    let unpaid = app
        .post_with(
            DEX_QUOTE,
            &[("origin", "https://wallet.example")],
            minimal(DEX_QUOTE).to_string(),
        )
        .await;
    assert_eq!(unpaid.status, StatusCode::PAYMENT_REQUIRED);
    let exposed = unpaid
        .header("access-control-expose-headers")
        .expect("expose-headers")
        .to_ascii_lowercase();
    assert!(exposed.contains("payment-required"), "{exposed}");
    assert!(exposed.contains("payment-response"), "{exposed}");
}

#[tokio::test]
async fn ending_an_mcp_session_needs_the_header_the_openapi_document_requires() {
    let app = App::new().await;
    let end = |session: Option<&str>| {
        // A loopback Host: the route's DNS-rebinding check passes.
        let mut request = axum::http::Request::builder()
            .method(Method::DELETE)
            .uri("/mcp")
            .header("host", "localhost");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(Body::empty()).expect("request")
    };
    // The header is required: without it the request is malformed, not about a session.
    let missing = app.app.send(end(None)).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST, "{missing:?}");
    let unknown = app.app.send(end(Some("no-such-session"))).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND, "{unknown:?}");
    let openapi = app.app.get("/openapi.json").await.json();
    let delete = &openapi["paths"]["/mcp"]["delete"];
    assert_eq!(delete["parameters"][0]["name"], "mcp-session-id");
    assert_eq!(delete["parameters"][0]["required"], true);
    assert!(delete["responses"]["400"].is_object(), "{delete}");
}
