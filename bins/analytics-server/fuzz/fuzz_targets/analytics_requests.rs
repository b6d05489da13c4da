//! Any body posted unpaid to any analytics route, through the whole app in process (body
//! limit, JSON Schema validation, the route's own rules, the registry check, the protocol
//! refusal, the 402): never a 5xx, never a panic, and every refusal other than the 402 is the
//! JSON error model with `charged: false`.
#![no_main]

use std::sync::OnceLock;

use analytics_server::config::ChainEndpoint;
use analytics_server::{AnalyticsConfig, AppState, router};
use libfuzzer_sys::fuzz_target;
use server_kit::testing::TestApp;

const ROUTES: [&str; 6] = [
    "/dex/quote",
    "/pool/liquidity",
    "/yield/normalize",
    "/oracle/crosscheck",
    "/lending/health",
    "/mev/risk",
];

fn app() -> &'static (tokio::runtime::Runtime, TestApp) {
    static APP: OnceLock<(tokio::runtime::Runtime, TestApp)> = OnceLock::new();
    APP.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut config = AnalyticsConfig::default();
        config.common.payment.pay_to = Some(
            serde_json::from_str("\"0x209693Bc6afc0C5328bA36FaF03C514EF312287C\"")
                .expect("address"),
        );
        config.common.facilitator.url = Some("http://127.0.0.1:9".into());
        config.common.limits.unpaid_per_window = u32::MAX;
        config.common.limits.unpaid_window_seconds = 1;
        // Nothing leaves the machine: every chain node is a closed loopback port.
        for endpoint in config.chains.values_mut() {
            *endpoint =
                ChainEndpoint::at("http://127.0.0.1:9", Default::default(), Default::default());
        }
        let app = runtime.block_on(async {
            TestApp::new(router(AppState::new(config).expect("config"))).with_host("fuzz.test")
        });
        (runtime, app)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let route = ROUTES[usize::from(pick) % ROUTES.len()];
    let (runtime, app) = app();
    let reply = runtime.block_on(app.post(
        route,
        &[("content-type", "application/json")],
        body.to_vec(),
    ));
    let status = reply.status.as_u16();
    assert!(status < 500, "{route}: {status} {}", reply.body);
    if status != 402 {
        assert!((400..500).contains(&status), "{route}: {status} unpaid");
        assert!(
            reply.body["error"].is_string(),
            "{route}: {status} {}",
            reply.body
        );
        assert_eq!(
            reply.body["charged"], false,
            "{route}: {status} {}",
            reply.body
        );
    }
});
