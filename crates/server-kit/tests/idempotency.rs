//! Retries on a lossy network, end to end in process: a paid route behind the configured gate,
//! the HTTP facilitator talking to a wiremock stand-in, payments signed by the test payer, some
//! with a payment id (the x402 v2 `payment-identifier` extension). A retry whose payment may
//! have been taken is never answered 402 (a client would sign a second authorization), never
//! worked on and never settled again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy::primitives::{U256, address};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use server_kit::config::CommonConfig;
use server_kit::gate::{PaidRequest, PaymentGate, RequestFingerprint};
use server_kit::testing::{
    Reply, TestApp, paying_mocks_settling_after, payment_signature, payment_signature_with_id,
    test_settlement_tx,
};
use wiremock::MockServer;
use x402_core::terms::bazaar_post_json;
use x402_core::{Offer, PaymentRequired, PaymentTerms, ResourceInfo};

const PATH: &str = "/quote";
const ID: &str = "pay_0f3b6c1e9a4d4b7e8c2a5d6f7e8a9b0c";

/// The route: answers with what it was asked after 200 ms (long enough for copies to overlap),
/// counting its executions.
struct Route {
    gate: PaymentGate,
    runs: AtomicUsize,
}

async fn quote(State(route): State<Arc<Route>>, headers: HeaderMap, body: Bytes) -> Response {
    let admission = match route.gate.admit([127, 0, 0, 1].into(), &headers).await {
        Ok(admission) => admission,
        Err(refused) => return refused.into_response(),
    };
    let terms = PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"));
    let request = PaidRequest {
        route: PATH,
        headers,
        admission,
        offer: Offer {
            resource: ResourceInfo {
                url: format!("http://api.test{PATH}"),
                description: Some("a quote".into()),
                mime_type: Some("application/json".into()),
                ..Default::default()
            },
            requirements: terms.requirements(U256::from(5000), 80),
            bazaar: Some(Arc::new(bazaar_post_json(
                json!({}),
                json!({"type": "object"}),
            ))),
        },
        input_schema: Arc::new(json!({"type": "object"})),
        extra_402_body: serde_json::Map::new(),
        budget: Duration::from_secs(20),
        fingerprint: RequestFingerprint::new(Method::POST, PATH, body.clone()),
    };
    let asked: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let runs = &route.runs;
    route
        .gate
        .serve(request, |_cancel| async move {
            let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(Json(json!({"quote": asked, "run": run})).into_response())
        })
        .await
}

/// The app and its facilitator, which settles after `settle_delay` (past the gate's 1 s
/// timeout: an unknown outcome).
struct Paid {
    app: TestApp,
    route: Arc<Route>,
    facilitator: MockServer,
}

impl Paid {
    async fn new(settle_delay: Duration) -> Self {
        let facilitator = MockServer::start().await;
        let (verify, settle) = paying_mocks_settling_after(settle_delay);
        verify.mount(&facilitator).await;
        settle.mount(&facilitator).await;
        Self::with_facilitator(facilitator).await
    }

    /// The app paying through `facilitator`, whose mocks the test mounted.
    async fn with_facilitator(facilitator: MockServer) -> Self {
        Self::with_facilitator_and(facilitator, |_| {}).await
    }

    /// [`Self::with_facilitator`] with `configure` applied to the configuration.
    async fn with_facilitator_and(
        facilitator: MockServer,
        configure: impl FnOnce(&mut CommonConfig),
    ) -> Self {
        let mut common = CommonConfig::with_listen("127.0.0.1:0");
        common.facilitator.url = Some(facilitator.uri());
        common.facilitator.timeout_seconds = 1;
        common.payment.pay_to = Some(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"));
        common.limits.unpaid_per_window = 1000;
        common.limits.unverified_per_client = 100;
        common.limits.payer_concurrency = 100;
        configure(&mut common);
        let route = Arc::new(Route {
            gate: PaymentGate::from_config(&common).expect("the gate builds"),
            runs: AtomicUsize::new(0),
        });
        let router = Router::new()
            .route(PATH, post(quote))
            .with_state(route.clone());
        Self {
            app: TestApp::new(router),
            route,
            facilitator,
        }
    }

    async fn terms(&self) -> PaymentRequired {
        let unpaid = self.app.post(PATH, &[], "{}").await;
        assert_eq!(unpaid.status, StatusCode::PAYMENT_REQUIRED);
        let terms = unpaid.terms();
        let extensions = terms.extensions.as_ref().expect("extensions");
        assert_eq!(extensions["payment-identifier"]["info"]["required"], false);
        terms
    }

    fn send(&self, signature: &str, body: &str) -> impl Future<Output = Reply> + use<> {
        self.app.post_paid(PATH, signature, body)
    }

    /// The pending resolver's pass over every pending settlement, whatever its age.
    async fn resolve_pending_now(&self) -> server_kit::gate::PendingReport {
        self.route
            .gate
            .resolve_pending_older_than(Duration::ZERO)
            .await
            .expect("resolved")
    }

    fn runs(&self) -> usize {
        self.route.runs.load(Ordering::SeqCst)
    }

    async fn settlements(&self) -> usize {
        self.facilitator
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|request| request.url.path() == "/settle")
            .count()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_lost_after_settlement_is_answered_again_to_its_retry_and_paid_once() {
    let paid = Paid::new(Duration::from_millis(300)).await;
    let terms = paid.terms().await;
    let signature = payment_signature_with_id(&terms, "lossy", ID);
    // The client's connection drops once the settlement is under way: the answer is lost.
    let first = tokio::spawn(paid.send(&signature, r#"{"pair":"WETH/USDC"}"#));
    let deadline = Instant::now() + Duration::from_secs(10);
    while paid.settlements().await == 0 {
        assert!(Instant::now() < deadline, "the settlement never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    first.abort();
    // The retry, same payment and id: the answer that was paid for.
    let retry = paid.send(&signature, r#"{"pair":"WETH/USDC"}"#).await;
    assert_eq!(retry.status, StatusCode::OK, "{retry:?}");
    assert_eq!(
        retry.json(),
        json!({"quote": {"pair": "WETH/USDC"}, "run": 1})
    );
    let receipt = retry.receipt().expect("the settlement's receipt");
    assert!(receipt.success);
    assert_eq!(receipt.transaction, test_settlement_tx());
    let again = paid.send(&signature, r#"{"pair":"WETH/USDC"}"#).await;
    assert_eq!(again.bytes, retry.bytes);
    assert_eq!(
        again.header("payment-response"),
        retry.header("payment-response")
    );
    assert_eq!((paid.runs(), paid.settlements().await), (1, 1));

    // The same id for another request: refused, not charged.
    paid.send(&signature, r#"{"pair":"WBTC/USDC"}"#)
        .await
        .assert_error(StatusCode::CONFLICT, "payment_id_conflict");

    // The same authorization without the id (a client that does not keep ids): told it paid,
    // with the transaction, not asked to pay again.
    let without_id = payment_signature(&terms, "lossy");
    let reply = paid.send(&without_id, r#"{"pair":"WETH/USDC"}"#).await;
    reply.assert_error_charged(
        StatusCode::CONFLICT,
        "authorization_reused",
        &Value::Bool(true),
    );
    let message = reply.json()["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(message.contains(&test_settlement_tx()), "{message}");
    assert_eq!(
        reply.receipt().expect("receipt").transaction,
        test_settlement_tx()
    );
    assert_eq!((paid.runs(), paid.settlements().await), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_retries_of_one_payment_id_run_the_work_once() {
    let paid = Paid::new(Duration::ZERO).await;
    let signature = payment_signature_with_id(&paid.terms().await, "burst", ID);
    let sends: Vec<_> = (0..6)
        .map(|_| tokio::spawn(paid.send(&signature, "{}")))
        .collect();
    let mut replies = Vec::new();
    for send in sends {
        replies.push(send.await.expect("task"));
    }
    for reply in &replies {
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        assert_eq!(reply.bytes, replies[0].bytes);
    }
    assert_eq!((paid.runs(), paid.settlements().await), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_while_the_settlement_is_unknown_is_409_charged_null() {
    // The settlement outlives the facilitator's 1 s timeout: sent, outcome unknown.
    let paid = Paid::new(Duration::from_secs(3)).await;
    let terms = paid.terms().await;
    let with_id = payment_signature_with_id(&terms, "in doubt", ID);
    let first = paid.send(&with_id, "{}").await;
    first.assert_error_charged(
        StatusCode::BAD_GATEWAY,
        "counterparty_unreachable",
        &Value::Null,
    );
    for signature in [with_id, payment_signature(&terms, "in doubt")] {
        let retry = paid.send(&signature, "{}").await;
        retry.assert_error_charged(StatusCode::CONFLICT, "authorization_reused", &Value::Null);
        assert!(retry.receipt().is_none());
    }
    assert_eq!((paid.runs(), paid.settlements().await), (1, 1));
}

/// The facilitator now says the authorization's nonce was used: the transfer landed.
async fn facilitator_reports_spent(facilitator: &MockServer) {
    facilitator.reset().await;
    wiremock::Mock::given(wiremock::matchers::path("/verify"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "isValid": false,
            "invalidReason": x402_core::reasons::NONCE_ALREADY_USED,
        })))
        .mount(facilitator)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_settlement_that_landed_delivers_its_kept_answer_to_the_ids_repeat() {
    let paid = Paid::new(Duration::from_secs(3)).await;
    let terms = paid.terms().await;
    let with_id = payment_signature_with_id(&terms, "landed later", ID);
    let first = paid.send(&with_id, r#"{"pair": 1}"#).await;
    first.assert_error_charged(
        StatusCode::BAD_GATEWAY,
        "counterparty_unreachable",
        &Value::Null,
    );
    let retry_after: u64 = first
        .header("Retry-After")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!(retry_after >= 1);

    // The resolver finds the nonce spent: the payer paid, so the kept answer is theirs.
    facilitator_reports_spent(&paid.facilitator).await;
    let report = paid.resolve_pending_now().await;
    assert_eq!(report.settled, 1, "{report:?}");

    let retry = paid.send(&with_id, r#"{"pair": 1}"#).await;
    assert_eq!(retry.status, StatusCode::OK, "{retry:?}");
    assert_eq!(retry.json(), json!({"quote": {"pair": 1}, "run": 1}));
    let receipt = retry.receipt().expect("a receipt of the landed transfer");
    assert!(receipt.success);
    // Nothing new: no second run, no settle call since the first.
    assert_eq!((paid.runs(), paid.settlements().await), (1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_settlement_is_503_then_its_answer_once_it_landed() {
    let facilitator = MockServer::start().await;
    let (verify, _) = paying_mocks_settling_after(Duration::ZERO);
    verify.mount(&facilitator).await;
    let pending_tx = format!("0x{}", "ab".repeat(32));
    wiremock::Mock::given(wiremock::matchers::path("/settle"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "success": false,
            "errorReason": x402_core::reasons::SETTLEMENT_PENDING,
            "transaction": pending_tx,
            "network": "eip155:8453",
        })))
        .mount(&facilitator)
        .await;
    let paid = Paid::with_facilitator(facilitator).await;
    let terms = paid.terms().await;
    let with_id = payment_signature_with_id(&terms, "pending", ID);
    let first = paid.send(&with_id, "{}").await;
    first.assert_error_charged(
        StatusCode::SERVICE_UNAVAILABLE,
        "settlement_pending",
        &Value::Null,
    );
    assert!(
        first.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains(&pending_tx))
    );
    let retry = paid.send(&with_id, "{}").await;
    retry.assert_error_charged(StatusCode::CONFLICT, "authorization_reused", &Value::Null);

    facilitator_reports_spent(&paid.facilitator).await;
    let report = paid.resolve_pending_now().await;
    assert_eq!(report.settled, 1, "{report:?}");
    let retry = paid.send(&with_id, "{}").await;
    assert_eq!(retry.status, StatusCode::OK, "{retry:?}");
    assert_eq!(retry.json(), json!({"quote": {}, "run": 1}));
    let receipt = retry.receipt().expect("receipt");
    assert!(receipt.success);
    assert_eq!(receipt.transaction, pending_tx);
    assert_eq!(paid.runs(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_settlement_that_never_landed_frees_the_id_for_a_fresh_run() {
    let paid = Paid::new(Duration::from_secs(3)).await;
    let terms = paid.terms().await;
    let with_id = payment_signature_with_id(&terms, "never landed", ID);
    let first = paid.send(&with_id, "{}").await;
    assert_eq!(first.status, StatusCode::BAD_GATEWAY, "{first:?}");
    // The facilitator now verifies it as unspent, and settles at once.
    paid.facilitator.reset().await;
    let (verify, settle) = paying_mocks_settling_after(Duration::ZERO);
    verify.mount(&paid.facilitator).await;
    settle.mount(&paid.facilitator).await;
    let report = paid.resolve_pending_now().await;
    assert_eq!(report.released, 1, "{report:?}");
    let retry = paid.send(&with_id, "{}").await;
    assert_eq!(retry.status, StatusCode::OK, "{retry:?}");
    assert_eq!(retry.json(), json!({"quote": {}, "run": 2}), "run anew");
    assert_eq!(paid.settlements().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_and_receipts_are_signed_with_the_configured_key() {
    const SIGNING_KEY: &str = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
    let facilitator = MockServer::start().await;
    let (verify, settle) = paying_mocks_settling_after(Duration::ZERO);
    verify.mount(&facilitator).await;
    settle.mount(&facilitator).await;
    let paid = Paid::with_facilitator_and(facilitator, |common| {
        common.signing.private_key = Some(SIGNING_KEY.into());
    })
    .await;
    let signer: alloy::signers::local::PrivateKeySigner = SIGNING_KEY.parse().expect("key");
    let terms = paid.terms().await;
    let offers = &terms.extensions.as_ref().expect("extensions")["offer-receipt"]["info"]["offers"];
    let offer = &offers[0];
    assert_eq!(offer["acceptIndex"], 0);
    assert_eq!(offer["payload"]["amount"], terms.accepts[0].amount);
    assert_eq!(offer["payload"]["resourceUrl"], terms.resource.url);
    assert_eq!(
        x402_core::offer_receipt::recover_signer(offer),
        Some(signer.address())
    );

    let with_id = payment_signature_with_id(&terms, "receipted", ID);
    let first = paid.send(&with_id, "{}").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    let receipt = first.receipt().expect("PAYMENT-RESPONSE");
    let signed =
        &receipt.extensions.as_ref().expect("extensions")["offer-receipt"]["info"]["receipt"];
    assert_eq!(signed["payload"]["transaction"], receipt.transaction);
    assert_eq!(signed["payload"]["resourceUrl"], terms.resource.url);
    assert_eq!(
        x402_core::offer_receipt::recover_signer(signed),
        Some(signer.address())
    );
    // A repeat of the id gets the same signed receipt.
    let again = paid.send(&with_id, "{}").await;
    assert_eq!(again.receipt(), Some(receipt));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_the_http_facilitator_does_not_support_makes_the_gate_not_ready() {
    let facilitator = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::path("/supported"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "kinds": [{"x402Version": 2, "scheme": "exact", "network": "eip155:8453"}],
        })))
        .mount(&facilitator)
        .await;
    let paid = Paid::with_facilitator_and(facilitator, |common| {
        common.payment.networks = vec![server_kit::config::NetworkConfig {
            chain_id: 42_161,
            asset: None,
            asset_name: None,
            asset_version: None,
            rpc_url: None,
        }];
    })
    .await;
    let terms = paid.terms().await;
    assert_eq!(terms.accepts.len(), 2);
    assert_eq!(terms.accepts[1].network, "eip155:42161");
    assert_eq!(
        terms.accepts[1].asset,
        "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"
    );
    let mut outcomes = Vec::new();
    for check in paid.route.gate.payment_readiness() {
        outcomes.push((check.name.to_string(), (check.check)().await.is_ok()));
    }
    assert_eq!(
        outcomes,
        vec![
            ("facilitator".to_owned(), true),
            ("facilitator eip155:42161".to_owned(), false),
        ]
    );
}
