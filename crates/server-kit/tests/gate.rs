//! The payment gate through a real axum router: DESIGN.md §2 steps 3 to 7, with a scripted
//! facilitator standing in for the real one and payments signed by a real EIP-3009 signer.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy::primitives::{U256, address, keccak256};
use alloy::signers::local::PrivateKeySigner;
use async_trait::async_trait;
use axum::body::{Bytes, to_bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use server_kit::gate::{PaidRequest, PaymentGate};
use server_kit::limiter::{UnpaidAllowance, UnpaidLimiter};
use server_kit::{ApiError, ErrorCode};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner, SignedAuthorization};
use x402_core::terms::bazaar_post_json;
use x402_core::{
    Facilitator, FacilitatorError, InMemoryReplayGuard, Offer, PaymentPayload, PaymentRequired,
    PaymentRequirements, PaymentTerms, ResourceInfo, SettleResponse, SupportedResponse,
    VerifyResponse, decode_header, encode_header,
};

const CHAIN_ID: u64 = 8453;
const NETWORK: &str = "eip155:8453";
// oneshot has no ConnectInfo, so every request comes from the same fixed client.
const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
const SETTLEMENT_TX: &str = "0x1111111111111111111111111111111111111111111111111111111111111111";
// The fake facilitator does not check time, and the replay guard remembers a settled key until
// `validBefore`: a fixed far-future window keeps payloads deterministic.
const VALID_BEFORE: u64 = 4_102_444_800;

// ---------------------------------------------------------------------------------------------
// The scripted facilitator.

/// What the fake facilitator answers to one kind of call.
#[derive(Debug, Clone, Copy)]
enum Verdict {
    Accept,
    Refuse(&'static str),
    Outage,
}

#[derive(Debug)]
struct FakeFacilitator {
    verify: Verdict,
    settle: Verdict,
    settle_delay: Duration,
    verify_calls: AtomicUsize,
    settle_calls: AtomicUsize,
    settle_entered: Notify,
    verified: Mutex<Vec<PaymentPayload>>,
}

impl FakeFacilitator {
    fn payer(payload: &PaymentPayload) -> Option<String> {
        SignedAuthorization::from_payload_value(&payload.payload)
            .ok()
            .map(|signed| signed.authorization.from.to_checksum(None))
    }
}

fn outage() -> FacilitatorError {
    FacilitatorError::Unreachable("connection refused".into())
}

#[async_trait]
impl Facilitator for FakeFacilitator {
    async fn verify(
        &self,
        payload: &PaymentPayload,
        _requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        self.verify_calls.fetch_add(1, Ordering::SeqCst);
        self.verified
            .lock()
            .expect("verified log")
            .push(payload.clone());
        let payer = Self::payer(payload);
        match self.verify {
            Verdict::Accept => Ok(VerifyResponse::valid(payer.unwrap_or_default())),
            Verdict::Refuse(reason) => Ok(VerifyResponse::invalid(reason, "scripted", payer)),
            Verdict::Outage => Err(outage()),
        }
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        _requirements: &PaymentRequirements,
    ) -> Result<SettleResponse, FacilitatorError> {
        self.settle_calls.fetch_add(1, Ordering::SeqCst);
        self.settle_entered.notify_one();
        tokio::time::sleep(self.settle_delay).await;
        let payer = Self::payer(payload);
        match self.settle {
            Verdict::Accept => Ok(SettleResponse {
                success: true,
                error_reason: None,
                error_message: None,
                payer,
                transaction: SETTLEMENT_TX.into(),
                network: NETWORK.into(),
            }),
            Verdict::Refuse(reason) => {
                Ok(SettleResponse::failed(NETWORK, reason, "scripted", payer))
            }
            Verdict::Outage => Err(outage()),
        }
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        Ok(SupportedResponse {
            kinds: Vec::new(),
            extensions: Vec::new(),
            signers: Default::default(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The paid route: one route per kind of work, all sold on the same terms.

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Work {
    /// Answers at once.
    Answer,
    /// Answers after 100 ms.
    Slow,
    /// Fails with a 502 of its own.
    Upstream,
    /// Answers 500 without failing.
    Crash,
    /// Runs far past its 200 ms budget, watching the cancellation token.
    Overrun,
}

impl Work {
    fn budget(self) -> Duration {
        match self {
            Self::Overrun => Duration::from_millis(200),
            _ => Duration::from_secs(10),
        }
    }

    async fn run(
        self,
        token: CancellationToken,
        cancelled: Arc<Notify>,
    ) -> Result<Response, ApiError> {
        match self {
            Self::Answer => Ok(Json(answer()).into_response()),
            Self::Slow => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(Json(answer()).into_response())
            }
            Self::Upstream => Err(ApiError::new(
                ErrorCode::CounterpartyUnreachable,
                "the chain node did not answer",
            )),
            Self::Crash => {
                Ok((StatusCode::INTERNAL_SERVER_ERROR, "handler crashed").into_response())
            }
            Self::Overrun => {
                // Stands in for blocking work that checks the token between units.
                tokio::spawn(async move {
                    token.cancelled().await;
                    cancelled.notify_one();
                });
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(Json(answer()).into_response())
            }
        }
    }
}

fn answer() -> Value {
    json!({"result": "the paid answer"})
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "required": ["chain"],
        "properties": {"chain": {"type": "string", "enum": ["base"]}},
        "additionalProperties": false
    })
}

fn extra_402_body() -> Map<String, Value> {
    let mut extra = Map::new();
    extra.insert("price".into(), json!({"usd": "0.005", "pages": 1}));
    extra
}

fn offer() -> Offer {
    let terms = PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"));
    Offer {
        resource: ResourceInfo {
            url: "https://api.example.test/dex/quote".into(),
            description: Some("Best swap quote across Base DEXes".into()),
            mime_type: Some("application/json".into()),
        },
        requirements: terms.requirements(U256::from(5000), 80),
        bazaar: Some(bazaar_post_json(json!({"chain": "base"}), input_schema())),
    }
}

struct App {
    gate: PaymentGate,
    offer: Offer,
    work_cancelled: Arc<Notify>,
}

async fn paid_route(
    State(app): State<Arc<App>>,
    Path(work): Path<Work>,
    headers: HeaderMap,
) -> Response {
    let request = PaidRequest {
        route: "/test",
        headers,
        client: CLIENT,
        offer: app.offer.clone(),
        input_schema: input_schema(),
        extra_402_body: extra_402_body(),
        budget: work.budget(),
    };
    let cancelled = app.work_cancelled.clone();
    app.gate
        .serve(request, move |token| work.run(token, cancelled))
        .await
}

// ---------------------------------------------------------------------------------------------
// The harness.

struct Setup {
    verify: Verdict,
    settle: Verdict,
    settle_delay: Duration,
    unpaid_allowance: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            verify: Verdict::Accept,
            settle: Verdict::Accept,
            settle_delay: Duration::ZERO,
            unpaid_allowance: 1000,
        }
    }
}

struct Harness {
    router: Router,
    facilitator: Arc<FakeFacilitator>,
    offer: Offer,
    payer: PaymentSigner,
    work_cancelled: Arc<Notify>,
}

impl Harness {
    fn new(setup: Setup) -> Self {
        let facilitator = Arc::new(FakeFacilitator {
            verify: setup.verify,
            settle: setup.settle,
            settle_delay: setup.settle_delay,
            verify_calls: AtomicUsize::new(0),
            settle_calls: AtomicUsize::new(0),
            settle_entered: Notify::new(),
            verified: Mutex::new(Vec::new()),
        });
        let limiter = UnpaidLimiter::new(UnpaidAllowance {
            requests: setup.unpaid_allowance,
            window: Duration::from_secs(60),
        });
        let gate = PaymentGate::new(
            facilitator.clone(),
            Arc::new(InMemoryReplayGuard::new()),
            Arc::new(limiter),
            CHAIN_ID,
        );
        let work_cancelled = Arc::new(Notify::new());
        let app = Arc::new(App {
            gate,
            offer: offer(),
            work_cancelled: work_cancelled.clone(),
        });
        let key = PrivateKeySigner::from_bytes(&keccak256("gate-test-payer")).expect("key");
        Self {
            router: Router::new()
                .route("/{work}", post(paid_route))
                .with_state(app),
            facilitator,
            offer: offer(),
            payer: PaymentSigner::new(key, CHAIN_ID),
            work_cancelled,
        }
    }

    /// A payment for the offer, signed with a nonce derived from `label`.
    fn payment(&self, label: &str) -> PaymentPayload {
        let window = AuthorizationWindow {
            valid_after: 0,
            valid_before: VALID_BEFORE,
            nonce: keccak256(label),
        };
        self.payer
            .pay(
                &self.offer.requirements,
                Some(self.offer.resource.clone()),
                window,
            )
            .expect("signs")
    }

    /// The `PAYMENT-SIGNATURE` value of a fresh payment.
    fn signature(&self, label: &str) -> String {
        encode_header(&self.payment(label)).expect("encodes")
    }

    /// Posts to `/{work}` with `headers`; `'static` so it can be spawned.
    fn send(
        &self,
        work: &str,
        headers: &[(&str, &str)],
    ) -> impl Future<Output = Reply> + Send + use<> {
        let mut request = Request::post(format!("/{work}"));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(axum::body::Body::empty()).expect("request");
        let router = self.router.clone();
        async move {
            let response = router.oneshot(request).await.expect("infallible");
            let (parts, body) = response.into_parts();
            Reply {
                status: parts.status,
                headers: parts.headers,
                body: to_bytes(body, usize::MAX).await.expect("body"),
            }
        }
    }

    fn send_unpaid(&self, work: &str) -> impl Future<Output = Reply> + Send + use<> {
        self.send(work, &[])
    }

    fn send_paid(&self, work: &str, signature: &str) -> impl Future<Output = Reply> + Send + use<> {
        self.send(work, &[("PAYMENT-SIGNATURE", signature)])
    }

    fn verify_calls(&self) -> usize {
        self.facilitator.verify_calls.load(Ordering::SeqCst)
    }

    fn settle_calls(&self) -> usize {
        self.facilitator.settle_calls.load(Ordering::SeqCst)
    }

    /// A 402 carrying this offer's terms and `reason`, in both the header and the body.
    fn assert_payment_required(&self, reply: &Reply, reason: &str) {
        assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{reply:?}");
        assert_eq!(reply.header("Cache-Control"), Some("no-store"));
        let terms = reply.terms();
        assert_eq!(terms.x402_version, 2);
        assert_eq!(terms.error.as_deref(), Some(reason));
        assert_eq!(terms.accepts, vec![self.offer.requirements.clone()]);
        let body = reply.json();
        assert_eq!(body["error"], reason);
        assert_eq!(
            body["accepts"],
            json!([self.offer.requirements]),
            "the body names the same terms"
        );
        assert!(body.get("result").is_none(), "no paid answer in a 402");
    }

    /// The same authorization, used again on a route that succeeds, is accepted and settled:
    /// the failed attempt released its replay lock.
    async fn assert_reusable(&self, signature: &str) {
        let settled_before = self.settle_calls();
        let reply = self.send_paid("answer", signature).await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        assert_eq!(reply.json(), answer());
        assert_eq!(self.settle_calls(), settled_before + 1);
    }
}

#[derive(Debug)]
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|value| value.to_str().expect("ASCII header"))
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }

    /// The decoded `PAYMENT-REQUIRED` header.
    fn terms(&self) -> PaymentRequired {
        decode_header(self.header("PAYMENT-REQUIRED").expect("PAYMENT-REQUIRED")).expect("decodes")
    }

    /// The decoded `PAYMENT-RESPONSE` header, if any.
    fn receipt(&self) -> Option<SettleResponse> {
        self.header("PAYMENT-RESPONSE")
            .map(|value| decode_header(value).expect("decodes"))
    }

    /// The shared error body with `code`, uncharged and without a receipt.
    fn assert_api_error(&self, status: StatusCode, code: &str) {
        assert_eq!(self.status, status, "{self:?}");
        let body = self.json();
        assert_eq!(body["error"], code);
        assert_eq!(body["charged"], false);
        assert!(body["message"].is_string(), "{body}");
        assert!(body.get("result").is_none(), "no paid answer in an error");
        assert!(self.receipt().is_none(), "nothing was settled");
    }
}

// ---------------------------------------------------------------------------------------------
// Step 3: no payment.

#[tokio::test]
async fn no_payment_header_answers_402_with_terms_in_header_and_body() {
    let h = Harness::new(Setup::default());
    let reply = h.send_unpaid("answer").await;

    h.assert_payment_required(&reply, "Payment required");
    let header = reply.header("PAYMENT-REQUIRED").expect("header");
    assert!(header.len() < 8 * 1024, "header is {} bytes", header.len());
    let terms = reply.terms();
    assert_eq!(terms.resource, h.offer.resource);
    let extensions = terms.extensions.expect("extensions");
    assert_eq!(Some(&extensions["bazaar"]), h.offer.bazaar.as_ref());

    let body = reply.json();
    assert_eq!(
        body,
        json!({
            "x402Version": 2,
            "error": "Payment required",
            "description": "Best swap quote across Base DEXes",
            "inputSchema": input_schema(),
            "accepts": [h.offer.requirements],
            "price": {"usd": "0.005", "pages": 1}
        })
    );
    insta::assert_json_snapshot!("payment_required_body", body);
    assert_eq!(h.verify_calls(), 0);
}

// ---------------------------------------------------------------------------------------------
// Step 4: decode, match, verify.

#[tokio::test]
async fn v1_x_payment_is_mapped_onto_the_offer_and_accepted() {
    let h = Harness::new(Setup::default());
    let signed = h.payment("v1");
    let v1 = json!({
        "x402Version": 1,
        "scheme": "exact",
        "network": "base",
        "payload": signed.payload,
    });
    let header = encode_header(&v1).expect("encodes");

    let reply = h.send("answer", &[("X-PAYMENT", &header)]).await;

    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.json(), answer());
    assert!(reply.receipt().expect("receipt").success);
    let verified = h.facilitator.verified.lock().expect("log").clone();
    assert_eq!(verified.len(), 1);
    assert_eq!(verified[0].x402_version, 2);
    assert_eq!(verified[0].accepted, h.offer.requirements);
    assert_eq!(verified[0].payload, signed.payload);
}

#[tokio::test]
async fn undecodable_header_answers_402_invalid_payment_header() {
    let h = Harness::new(Setup::default());
    let reply = h.send_paid("answer", "not base64 at all!").await;

    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED);
    let reason = reply.json()["error"].as_str().expect("error").to_owned();
    assert!(
        reason.starts_with("Invalid payment header"),
        "reason: {reason}"
    );
    h.assert_payment_required(&reply, &reason);
    assert_eq!(h.verify_calls(), 0);
}

#[tokio::test]
async fn accepted_not_matching_the_offer_is_refused_before_verification() {
    let h = Harness::new(Setup::default());
    let mut payment = h.payment("cheaper");
    payment.accepted.amount = "4999".into();
    let header = encode_header(&payment).expect("encodes");

    let reply = h.send_paid("answer", &header).await;

    h.assert_payment_required(&reply, "No matching payment requirements");
    assert_eq!(h.verify_calls(), 0);
    assert_eq!(h.settle_calls(), 0);
}

#[tokio::test]
async fn verification_refusal_answers_402_with_its_reason() {
    let reason = "invalid_exact_evm_insufficient_balance";
    let h = Harness::new(Setup {
        verify: Verdict::Refuse(reason),
        ..Setup::default()
    });
    let reply = h.send_paid("answer", &h.signature("poor")).await;

    h.assert_payment_required(&reply, reason);
    assert!(reply.receipt().is_none());
    assert_eq!(h.verify_calls(), 1);
    assert_eq!(h.settle_calls(), 0);
}

// ---------------------------------------------------------------------------------------------
// Steps 6-7: work and settlement.

#[tokio::test]
async fn valid_payment_gets_the_answer_and_a_receipt() {
    let h = Harness::new(Setup::default());
    let reply = h.send_paid("answer", &h.signature("happy")).await;

    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.header("Content-Type"), Some("application/json"));
    assert_eq!(reply.json(), answer());
    assert!(reply.header("PAYMENT-REQUIRED").is_none());
    let receipt = reply.receipt().expect("PAYMENT-RESPONSE");
    assert_eq!(
        receipt,
        SettleResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some(h.payer.address().to_checksum(None)),
            transaction: SETTLEMENT_TX.into(),
            network: NETWORK.into(),
        }
    );
    assert_eq!(h.verify_calls(), 1);
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test]
async fn failed_work_is_not_settled_and_releases_the_authorization() {
    let h = Harness::new(Setup::default());
    let signature = h.signature("upstream");
    let reply = h.send_paid("upstream", &signature).await;

    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert_eq!(
        reply.json(),
        json!({
            "error": "counterparty_unreachable",
            "message": "the chain node did not answer",
            "charged": false
        })
    );
    assert_eq!(h.settle_calls(), 0);
    h.assert_reusable(&signature).await;
}

#[tokio::test]
async fn unsuccessful_answer_is_passed_through_unsettled() {
    let h = Harness::new(Setup::default());
    let signature = h.signature("crash");
    let reply = h.send_paid("crash", &signature).await;

    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(reply.body, "handler crashed");
    assert!(reply.receipt().is_none());
    assert_eq!(h.settle_calls(), 0);
    h.assert_reusable(&signature).await;
}

#[tokio::test]
async fn work_past_its_budget_is_cancelled_and_answered_504_unsettled() {
    let h = Harness::new(Setup::default());
    let signature = h.signature("overrun");
    let reply = h.send_paid("overrun", &signature).await;

    reply.assert_api_error(StatusCode::GATEWAY_TIMEOUT, "time_budget_exceeded");
    assert_eq!(h.settle_calls(), 0);
    tokio::time::timeout(Duration::from_secs(5), h.work_cancelled.notified())
        .await
        .expect("the work saw its token cancelled");
    h.assert_reusable(&signature).await;
}

#[tokio::test]
async fn settlement_refusal_answers_402_with_a_failed_receipt_and_no_answer() {
    let reason = "invalid_exact_evm_transaction_failed";
    let h = Harness::new(Setup {
        settle: Verdict::Refuse(reason),
        ..Setup::default()
    });
    let reply = h.send_paid("answer", &h.signature("reverted")).await;

    h.assert_payment_required(&reply, reason);
    let receipt = reply.receipt().expect("PAYMENT-RESPONSE");
    assert!(!receipt.success);
    assert_eq!(receipt.error_reason.as_deref(), Some(reason));
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test]
async fn pending_settlement_keeps_the_authorization_locked() {
    let h = Harness::new(Setup {
        settle: Verdict::Refuse("settlement_pending"),
        ..Setup::default()
    });
    let signature = h.signature("pending");
    let first = h.send_paid("answer", &signature).await;
    h.assert_payment_required(&first, "settlement_pending");

    let again = h.send_paid("answer", &signature).await;
    h.assert_payment_required(&again, "invalid_exact_evm_nonce_already_used");
    assert_eq!(h.settle_calls(), 1);
}

// ---------------------------------------------------------------------------------------------
// Step 5: one authorization, one answer.

#[tokio::test]
async fn settled_authorization_cannot_buy_a_second_answer() {
    let h = Harness::new(Setup::default());
    let signature = h.signature("replayed");
    let first = h.send_paid("answer", &signature).await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");

    let second = h.send_paid("answer", &signature).await;
    h.assert_payment_required(&second, "invalid_exact_evm_nonce_already_used");
    assert!(second.receipt().is_none());
    assert_eq!(h.verify_calls(), 2, "the facilitator alone would accept it");
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_uses_of_one_authorization_get_one_answer() {
    let h = Harness::new(Setup::default());
    let signature = h.signature("concurrent");
    let tasks: Vec<_> = (0..10)
        .map(|_| tokio::spawn(h.send_paid("slow", &signature)))
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.expect("task"));
    }

    let (paid, refused): (Vec<_>, Vec<_>) = replies
        .iter()
        .partition(|reply| reply.status == StatusCode::OK);
    assert_eq!(paid.len(), 1, "{replies:?}");
    assert_eq!(paid[0].json(), answer());
    assert_eq!(refused.len(), 9);
    for reply in refused {
        h.assert_payment_required(reply, "invalid_exact_evm_nonce_already_used");
    }
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test]
async fn authorization_is_locked_while_it_settles() {
    let h = Harness::new(Setup {
        settle_delay: Duration::from_millis(500),
        ..Setup::default()
    });
    let signature = h.signature("settling");
    let first = tokio::spawn(h.send_paid("answer", &signature));
    h.facilitator.settle_entered.notified().await;

    let second = h.send_paid("answer", &signature).await;
    h.assert_payment_required(&second, "invalid_exact_evm_nonce_already_used");
    let first = first.await.expect("task");
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    assert_eq!(h.settle_calls(), 1);
}

// ---------------------------------------------------------------------------------------------
// Facilitator outages.

#[tokio::test]
async fn verify_outage_answers_502_uncharged() {
    let h = Harness::new(Setup {
        verify: Verdict::Outage,
        ..Setup::default()
    });
    let reply = h.send_paid("answer", &h.signature("verify-down")).await;

    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert_eq!(h.verify_calls(), 1);
    assert_eq!(h.settle_calls(), 0);
}

#[tokio::test]
async fn settle_outage_after_the_work_answers_502_without_the_result() {
    let h = Harness::new(Setup {
        settle: Verdict::Outage,
        ..Setup::default()
    });
    let reply = h.send_paid("answer", &h.signature("settle-down")).await;

    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert!(
        !String::from_utf8_lossy(&reply.body).contains("the paid answer"),
        "{reply:?}"
    );
    assert_eq!(h.settle_calls(), 1);
}

// ---------------------------------------------------------------------------------------------
// The unpaid-request limiter.

#[tokio::test]
async fn unpaid_requests_past_the_allowance_get_429_but_payments_still_pass() {
    let h = Harness::new(Setup {
        unpaid_allowance: 3,
        ..Setup::default()
    });
    for _ in 0..3 {
        let reply = h.send_unpaid("answer").await;
        h.assert_payment_required(&reply, "Payment required");
    }

    let limited = h.send_unpaid("answer").await;
    limited.assert_api_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
    let retry_after: u64 = limited
        .header("Retry-After")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!(
        (1..=20).contains(&retry_after),
        "3 per 60 s refills one every 20 s, got {retry_after}"
    );
    assert!(limited.header("PAYMENT-REQUIRED").is_none());

    let paid = h
        .send_paid("answer", &h.signature("limited-but-paying"))
        .await;
    assert_eq!(paid.status, StatusCode::OK, "{paid:?}");
    assert_eq!(paid.json(), answer());
}
