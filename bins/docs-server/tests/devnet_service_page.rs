//! The page for people at `/` in headless Chromium (Debian's, driven by playwright-core): it
//! loads with no console error and no failed request, lists both routes with their prices, and
//! its try-it sends the example unpaid and shows the 402 terms decoded. The screenshot is
//! written to target/service-pages/docs.png for review.

use docs_server::{AppState, DocsConfig, router};
use test_devnet::PaidDevnet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_service_page_loads_cleanly_and_its_try_it_shows_the_402() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    test_devnet::paid::pay_locally(&mut config.common, &world.info).expect("devnet payment");
    let base = test_devnet::paid::serve(router(AppState::new(config).expect("configuration")))
        .await
        .expect("serve");
    let report = test_devnet::paid::checked_service_page(&base, "docs").await;

    assert_eq!(report["title"], "Document extraction and OCR", "{report}");
    let routes: Vec<&str> = report["routes"]
        .as_array()
        .expect("routes")
        .iter()
        .filter_map(|r| r.as_str())
        .collect();
    assert!(routes.iter().any(|r| r.contains("/document")), "{report}");
    assert!(routes.iter().any(|r| r.contains("/ocr")), "{report}");
    let output = report["try_it"]["output"].as_str().expect("output");
    assert_eq!(report["try_it"]["path"], "/document");
    // One text-layer page at the configured price, in atomic units, to the devnet's payee.
    assert!(output.contains("pay 20000 atomic units"), "{output}");
    assert!(output.contains(&world.info.pay_to), "{output}");
}
