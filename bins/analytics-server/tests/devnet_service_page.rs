//! The page for people at `/` in headless Chromium (Debian's, driven by playwright-core): it
//! loads with no console error and no failed request, lists the six routes with their prices,
//! and its try-it sends the first example unpaid and shows the 402 terms decoded. The
//! screenshot is written to target/service-pages/analytics.png for review.

mod common;

use test_devnet::PaidDevnet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_service_page_loads_cleanly_and_its_try_it_shows_the_402() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let base = common::devnet_app(&world, &world.info.rpc_url, |_| {})
        .await
        .expect("serve");
    let report = test_devnet::paid::checked_service_page(&base, "analytics").await;

    assert_eq!(report["title"], "On-chain finance analytics", "{report}");
    let routes = report["routes"].as_array().expect("routes");
    assert_eq!(routes.len(), 6, "{report}");
    for path in [
        "/dex/quote",
        "/pool/liquidity",
        "/yield/normalize",
        "/oracle/crosscheck",
        "/lending/health",
        "/mev/risk",
    ] {
        assert!(
            routes
                .iter()
                .any(|r| r.as_str().is_some_and(|r| r.contains(path))),
            "{path}: {report}"
        );
    }
    let output = report["try_it"]["output"].as_str().expect("output");
    assert_eq!(report["try_it"]["path"], "/dex/quote");
    assert!(output.contains(&world.info.pay_to), "{output}");
}
