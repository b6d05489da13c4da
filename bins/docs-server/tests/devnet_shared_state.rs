//! Two document-service replicas on one real `redis-server` (test-devnet spawns it on a
//! loopback port): an answer computed on one is a cache hit on the other, charged the same.

mod support;

use axum::http::StatusCode;
use server_kit::state::StateBackend;
use server_kit::testing::mount_paying_facilitator;
use support::{App, inline};
use test_devnet::RedisServer;

#[tokio::test]
async fn devnet_an_answer_of_one_replica_is_a_cache_hit_on_the_other() {
    let redis = RedisServer::spawn().expect("redis-server");
    let url = redis.url();
    let shared = |config: &mut docs_server::DocsConfig| {
        config.common.state.backend = StateBackend::Redis;
        config.common.state.redis_url = Some(url.clone());
    };
    let a = App::with(shared).await;
    let b = App::with(shared).await;
    mount_paying_facilitator(&a.facilitator, 1).await;
    mount_paying_facilitator(&b.facilitator, 1).await;
    let body = inline("zugferd_basic_einfach.pdf");

    let first = a.pay(&body, "replica a").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.headers["x-cache"], "miss");
    let readiness = b.get("/readiness").await;
    assert_eq!(
        readiness.body["checks"]["state"], "ok",
        "{}",
        readiness.body
    );

    let unpaid_a = a.post(&body, None).await;
    let unpaid_b = b.post(&body, None).await;
    assert_eq!(
        unpaid_a.terms().accepts[0].amount,
        unpaid_b.terms().accepts[0].amount,
        "the same price on both replicas"
    );
    let second = b.pay(&body, "replica b").await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert_eq!(second.headers["x-cache"], "hit");
    assert!(
        second.headers.contains_key("payment-response"),
        "charged the same"
    );
    assert_eq!(second.body, first.body);
    // wiremock checks one settlement per replica when the facilitators drop.
}
