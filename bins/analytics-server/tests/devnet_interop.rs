//! The analytics server itself, paid by the official x402 client (`@x402/fetch`) on the local
//! chain, once through our `LocalFacilitator` and once through the official npm facilitator:
//! its routes are validated and priced, and work refused after the payment was verified is
//! never settled. (`/yield/normalize` with its yield directory unreachable stands for such work;
//! every route has its own paid tests, e.g. `tests/devnet_paid_dex_quote.rs`.)

use analytics_server::{AnalyticsConfig, AppState, router};
use server_kit::config::FacilitatorMode;
use test_devnet::PaidDevnet;
use test_devnet::node::NodeFacilitator;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Local,
    OfficialNpm,
}

async fn refused_work_is_not_settled(kind: Kind) {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let info = &world.info;
    let mut config = AnalyticsConfig::default();
    config.common.payment.pay_to = Some(info.pay_to.parse().expect("pay_to"));
    let _node_facilitator = match kind {
        Kind::OfficialNpm => {
            let npm = NodeFacilitator::spawn(&info.rpc_url, &info.facilitator_private_key)
                .expect("npm facilitator");
            config.common.facilitator.url = Some(npm.url.clone());
            Some(npm)
        }
        Kind::Local => {
            config.common.facilitator.mode = FacilitatorMode::Local;
            config.common.facilitator.rpc_url = Some(info.rpc_url.clone());
            config.common.facilitator.private_key = Some(info.facilitator_private_key.clone());
            None
        }
    };
    let closed = test_devnet::paid::closed_loopback_url().expect("a free port");
    config.sources = oracle_sources::SourcesConfig::all_at(&closed);
    let app = router(AppState::new(config).expect("state"));
    let base = test_devnet::paid::serve(app).await.expect("serve");
    let before = world.usdc_balance(&info.pay_to).await.expect("balanceOf");
    // Every route is built; the yield directory is a closed port, so the work answers 502.
    let body = analytics_server::requests::example("yield_normalize");
    let report = world
        .pay(&format!("{base}/yield/normalize"), body)
        .await
        .expect("client.mjs");
    assert_eq!(report["first"]["status"], 402, "{report}");
    assert_eq!(
        report["first"]["payment_required"]["accepts"][0]["amount"],
        "10000"
    );
    assert_eq!(report["final"]["status"], 502, "{report}");
    assert_eq!(report["final"]["body"]["error"], "counterparty_unreachable");
    assert_eq!(report["final"]["body"]["charged"], false);
    assert_eq!(
        world.usdc_balance(&info.pay_to).await.expect("balanceOf"),
        before
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_refused_work_is_not_settled_local_facilitator() {
    refused_work_is_not_settled(Kind::Local).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_refused_work_is_not_settled_official_npm_facilitator() {
    refused_work_is_not_settled(Kind::OfficialNpm).await;
}
