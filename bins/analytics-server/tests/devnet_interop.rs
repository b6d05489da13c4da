//! The analytics server itself, paid by the official x402 client (`@x402/fetch`) on the local
//! chain, once through our `LocalFacilitator` and once through the official npm facilitator:
//! its routes are validated and priced, and until their analytics land the 501 they answer is
//! never settled. (`/yield/normalize` stands for the unbuilt routes; the built ones have their own paid
//! tests, e.g. `tests/devnet_paid_dex_quote.rs`.)

use analytics_server::{AnalyticsConfig, AppState, router};
use server_kit::config::FacilitatorMode;
use test_devnet::PaidDevnet;
use test_devnet::node::NodeFacilitator;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Local,
    OfficialNpm,
}

async fn analytics_route_without_work_is_not_settled(kind: Kind) {
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
    let app = router(AppState::new(config).expect("state"));
    let base = test_devnet::paid::serve(app).await.expect("serve");
    let before = world.usdc_balance(&info.pay_to).await.expect("balanceOf");
    // /yield/normalize is still unbuilt (it answers 501); /mev/risk, used here before, is built.
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
    assert_eq!(report["final"]["status"], 501, "{report}");
    assert_eq!(report["final"]["body"]["error"], "not_implemented");
    assert_eq!(report["final"]["body"]["charged"], false);
    assert_eq!(
        world.usdc_balance(&info.pay_to).await.expect("balanceOf"),
        before
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_analytics_route_without_work_is_not_settled_local_facilitator() {
    analytics_route_without_work_is_not_settled(Kind::Local).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_analytics_route_without_work_is_not_settled_official_npm_facilitator() {
    analytics_route_without_work_is_not_settled(Kind::OfficialNpm).await;
}
