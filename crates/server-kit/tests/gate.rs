//! The payment gate through a real axum router (402, verification, replay lock, work,
//! settlement, answer), with a scripted
//! facilitator standing in for the real one and payments signed by a real EIP-3009 signer.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::time::{SystemTime, UNIX_EPOCH};

use alloy::primitives::{U256, address, keccak256};
use alloy::signers::local::PrivateKeySigner;
use async_trait::async_trait;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use server_kit::gate::{GateLimits, PaidRequest, PaymentGate, PendingReport, RequestFingerprint};
use server_kit::limiter::{ClientAddressing, UnpaidAllowance};
use server_kit::testing::{Reply, TestApp};
use server_kit::{ApiError, ErrorCode};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use x402_core::eip3009::{
    AuthorizationWindow, PaymentSigner, SignedAuthorization, authorization_digest, token_domain,
};
use x402_core::payment_identifier::with_payment_id;
use x402_core::terms::{BASE_USDC, bazaar_post_json};
use x402_core::{
    Facilitator, FacilitatorError, InMemoryReplayGuard, Offer, PaymentPayload, PaymentRequirements,
    PaymentTerms, ResourceInfo, SettleResponse, SupportedResponse, VerifyResponse, encode_header,
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
    /// The settlement went out and no outcome came back.
    Unknown,
    /// Verify: valid only when the signature recovers to the authorization's `from`.
    CheckSignature,
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

/// An RPC URL with its provider key, as alloy and reqwest quote it in their errors.
const KEYED_RPC: &str = "https://base-mainnet.g.alchemy.com/v2/SeCrEtKeY0123456789abcdefXYZ";

fn outage() -> FacilitatorError {
    FacilitatorError::Unreachable(format!(
        "error sending request for url ({KEYED_RPC}): connection refused"
    ))
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
            Verdict::CheckSignature => {
                let signed = SignedAuthorization::from_payload_value(&payload.payload)
                    .expect("an exact payload");
                let domain = token_domain("USD Coin", "2", CHAIN_ID, BASE_USDC);
                let digest = authorization_digest(&signed.authorization, &domain);
                Ok(
                    if signed.recover_eoa(digest) == Some(signed.authorization.from) {
                        VerifyResponse::valid(payer.unwrap_or_default())
                    } else {
                        VerifyResponse::invalid("invalid_exact_evm_signature", "scripted", payer)
                    },
                )
            }
            Verdict::Outage | Verdict::Unknown => Err(outage()),
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
                extensions: None,
            }),
            Verdict::Refuse(reason) => {
                Ok(SettleResponse::failed(NETWORK, reason, "scripted", payer))
            }
            Verdict::Outage | Verdict::CheckSignature => Err(outage()),
            Verdict::Unknown => Err(FacilitatorError::SettlementUnknown(
                "no answer within 15 s".into(),
            )),
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
    /// Runs for 30 s within a 60 s budget, watching the cancellation token (to be dropped).
    Hang,
    /// Answers after 1 s.
    Hold,
    /// Fails quoting an RPC URL with its key.
    Leaky,
    /// Answers at once within a 1 s budget (for authorizations that expire soon).
    Quick,
}

impl Work {
    fn budget(self) -> Duration {
        match self {
            Self::Overrun => Duration::from_millis(200),
            Self::Quick => Duration::from_secs(1),
            Self::Hang => Duration::from_secs(60),
            _ => Duration::from_secs(10),
        }
    }

    async fn run(
        self,
        token: CancellationToken,
        cancelled: Arc<Notify>,
    ) -> Result<Response, ApiError> {
        match self {
            Self::Answer | Self::Quick => Ok(Json(answer()).into_response()),
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
            Self::Overrun | Self::Hang => {
                // Stands in for blocking work that checks the token between units.
                tokio::spawn(async move {
                    token.cancelled().await;
                    cancelled.notify_one();
                });
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(Json(answer()).into_response())
            }
            Self::Hold => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Ok(Json(answer()).into_response())
            }
            Self::Leaky => Err(ApiError::new(
                ErrorCode::CounterpartyUnreachable,
                format!(
                    "the base node could not be read (error sending request for url ({KEYED_RPC})); nothing was charged"
                ),
            )),
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
            ..Default::default()
        },
        requirements: terms.requirements(U256::from(5000), 80),
        bazaar: Some(Arc::new(bazaar_post_json(
            json!({"chain": "base"}),
            input_schema(),
        ))),
    }
}

struct App {
    gate: PaymentGate,
    offer: Offer,
    /// Shared by every request, as a server's route table shares it.
    input_schema: Arc<Value>,
    work_cancelled: Arc<Notify>,
    pricing: Pricing,
    /// Paid work started (after verification).
    works: AtomicUsize,
}

/// Stands for the pre-payment work of a route (fetching, parsing, pricing): counts how often
/// it ran and how many ran at once.
#[derive(Default)]
struct Pricing {
    runs: AtomicUsize,
    now: AtomicUsize,
    peak: AtomicUsize,
}

async fn paid_route(
    State(app): State<Arc<App>>,
    Path(work): Path<Work>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // First, before anything is read or priced.
    let admission = match app.gate.admit(CLIENT, &headers).await {
        Ok(admission) => admission,
        Err(refused) => return refused.into_response(),
    };
    let pricing = &app.pricing;
    pricing.runs.fetch_add(1, Ordering::SeqCst);
    let now = pricing.now.fetch_add(1, Ordering::SeqCst) + 1;
    pricing.peak.fetch_max(now, Ordering::SeqCst);
    if headers.contains_key("x-slow-pricing") {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    pricing.now.fetch_sub(1, Ordering::SeqCst);
    // A price and a resource URL of the request's own, as a per-page price or a `Host` gives.
    let mut offer = app.offer.clone();
    if let Some(amount) = headers.get("x-amount").and_then(|v| v.to_str().ok()) {
        offer.requirements.amount = amount.to_owned();
    }
    if let Some(url) = headers.get("x-resource").and_then(|v| v.to_str().ok()) {
        offer.resource.url = url.to_owned();
    }
    let request = PaidRequest {
        route: "/test",
        headers,
        admission,
        offer,
        input_schema: app.input_schema.clone(),
        extra_402_body: extra_402_body(),
        budget: work.budget(),
        fingerprint: RequestFingerprint::new(Method::POST, uri.path(), body),
    };
    let cancelled = app.work_cancelled.clone();
    let started = app.clone();
    app.gate
        .serve(request, move |token| {
            started.works.fetch_add(1, Ordering::SeqCst);
            work.run(token, cancelled)
        })
        .await
}

// ---------------------------------------------------------------------------------------------
// The harness.

struct Setup {
    verify: Verdict,
    settle: Verdict,
    settle_delay: Duration,
    unpaid_allowance: u32,
    limits: GateLimits,
}

impl Setup {
    /// The default setup with `change` made to its gate limits.
    fn limited(change: impl FnOnce(&mut GateLimits)) -> Self {
        let mut setup = Self::default();
        change(&mut setup.limits);
        setup
    }
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            verify: Verdict::Accept,
            settle: Verdict::Accept,
            settle_delay: Duration::ZERO,
            unpaid_allowance: 1000,
            limits: GateLimits {
                unverified_per_client: 100,
                payer_concurrency: 100,
                payer_failures: UnpaidAllowance {
                    requests: 1000,
                    window: Duration::from_secs(60),
                },
                ..GateLimits::default()
            },
        }
    }
}

struct Harness {
    client: TestApp,
    facilitator: Arc<FakeFacilitator>,
    replay: Arc<InMemoryReplayGuard>,
    app: Arc<App>,
    offer: Offer,
    payer: PaymentSigner,
    work_cancelled: Arc<Notify>,
}

impl Harness {
    fn new(setup: Setup) -> Self {
        Self::with_facilitator(setup, None)
    }

    /// A harness whose gate uses `facilitator` instead of the scripted one.
    fn with_facilitator(setup: Setup, facilitator_override: Option<Arc<dyn Facilitator>>) -> Self {
        let facilitator = Arc::new(FakeFacilitator {
            verify: setup.verify,
            settle: setup.settle,
            settle_delay: setup.settle_delay,
            verify_calls: AtomicUsize::new(0),
            settle_calls: AtomicUsize::new(0),
            settle_entered: Notify::new(),
            verified: Mutex::new(Vec::new()),
        });
        let limits = GateLimits {
            unpaid: UnpaidAllowance {
                requests: setup.unpaid_allowance,
                window: Duration::from_secs(60),
            },
            ..setup.limits
        };
        let replay = Arc::new(InMemoryReplayGuard::new());
        let gate = PaymentGate::new(
            facilitator_override.unwrap_or_else(|| facilitator.clone()),
            replay.clone(),
            limits,
            CHAIN_ID,
        );
        let work_cancelled = Arc::new(Notify::new());
        let app = Arc::new(App {
            gate,
            offer: offer(),
            input_schema: Arc::new(input_schema()),
            work_cancelled: work_cancelled.clone(),
            pricing: Pricing::default(),
            works: AtomicUsize::new(0),
        });
        let key = PrivateKeySigner::from_bytes(&keccak256("gate-test-payer")).expect("key");
        Self {
            client: TestApp::new(
                Router::new()
                    .route("/{work}", post(paid_route))
                    .with_state(app.clone()),
            ),
            facilitator,
            replay,
            app,
            offer: offer(),
            payer: PaymentSigner::new(key, CHAIN_ID),
            work_cancelled,
        }
    }

    /// A payment for the offer, signed with a nonce derived from `label`.
    fn payment(&self, label: &str) -> PaymentPayload {
        self.payment_until(label, VALID_BEFORE)
    }

    /// A payment valid until `valid_before` (unix seconds).
    fn payment_until(&self, label: &str, valid_before: u64) -> PaymentPayload {
        let window = AuthorizationWindow {
            valid_after: 0,
            valid_before,
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

    /// The `PAYMENT-SIGNATURE` value of a payment labelled `label` carrying payment id `id`.
    fn signature_with_id(&self, label: &str, id: &str) -> String {
        encode_header(&with_payment_id(self.payment(label), id)).expect("encodes")
    }

    /// Posts `body` to `/{work}` paid with `signature`; `'static` so it can be spawned.
    fn send_paid_body(
        &self,
        work: &str,
        signature: &str,
        body: &str,
    ) -> impl Future<Output = Reply> + Send + use<> {
        self.client.post_paid(&format!("/{work}"), signature, body)
    }

    /// One pass of the pending resolver over every record, however young.
    async fn resolve_pending_now(&self) -> PendingReport {
        self.app
            .gate
            .resolve_pending_older_than(Duration::ZERO)
            .await
            .expect("scan")
    }

    /// Posts to `/{work}` with `headers`; `'static` so it can be spawned.
    fn send(
        &self,
        work: &str,
        headers: &[(&str, &str)],
    ) -> impl Future<Output = Reply> + Send + use<> {
        let mut request = self.client.request(Method::POST, &format!("/{work}"));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.client
            .send(request.body(Body::empty()).expect("request"))
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

    fn work_runs(&self) -> usize {
        self.app.works.load(Ordering::SeqCst)
    }

    fn pricing_runs(&self) -> usize {
        self.app.pricing.runs.load(Ordering::SeqCst)
    }

    /// Waits (up to 5 s) until the replay guard holds nothing: a released authorization.
    async fn wait_until_released(&self) {
        tokio::time::timeout(Duration::from_secs(5), async {
            while !self.replay.is_empty() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the authorization was released");
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

/// The gate's own assertions on an answer.
trait GateReply {
    fn assert_too_many(&self);
    fn assert_api_error(&self, status: StatusCode, code: &str);
    fn assert_reused(&self, charged: Value);
}

impl GateReply for Reply {
    /// A 429 `too_many_unpaid` with a `Retry-After`, uncharged.
    fn assert_too_many(&self) {
        self.assert_api_error(StatusCode::TOO_MANY_REQUESTS, "too_many_unpaid");
        let retry_after: u64 = self
            .header("Retry-After")
            .expect("Retry-After")
            .parse()
            .expect("seconds");
        assert!(retry_after >= 1, "{retry_after}");
    }

    /// 409 `authorization_reused` with `charged` (true: settled before, with the transaction
    /// when known; null: in use or its settlement in doubt): never a 402, no answer.
    fn assert_reused(&self, charged: Value) {
        assert_eq!(self.status, StatusCode::CONFLICT, "{self:?}");
        assert!(self.header("payment-required").is_none(), "no new terms");
        let body = self.json();
        assert_eq!(body["error"], "authorization_reused", "{body}");
        assert_eq!(body["charged"], charged, "{body}");
        assert!(body["message"].is_string(), "{body}");
        assert!(body.get("result").is_none(), "no paid answer in an error");
        if charged.is_null() {
            assert!(self.receipt().is_none(), "{self:?}");
        }
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
async fn the_unpaid_402_is_the_same_bytes_for_the_same_terms_and_new_terms_for_new_ones() {
    let h = Harness::new(Setup::default());
    let first = h.send_unpaid("answer").await;
    let again = h.send_unpaid("answer").await;
    assert_eq!(first.bytes, again.bytes);
    assert_eq!(
        first.header("PAYMENT-REQUIRED"),
        again.header("PAYMENT-REQUIRED")
    );

    let dearer = h.send("answer", &[("x-amount", "7000")]).await;
    assert_eq!(dearer.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(dearer.terms().accepts[0].amount, "7000");
    assert_eq!(dearer.json()["accepts"][0]["amount"], "7000");

    let elsewhere = h
        .send(
            "answer",
            &[("x-resource", "https://other.example.test/dex/quote")],
        )
        .await;
    assert_eq!(
        elsewhere.terms().resource.url,
        "https://other.example.test/dex/quote"
    );

    let later = h.send_unpaid("answer").await;
    assert_eq!(later.bytes, first.bytes, "the first terms are unchanged");
    assert_eq!(first.terms().accepts[0].amount, h.offer.requirements.amount);
}

#[tokio::test]
async fn more_distinct_terms_than_are_kept_are_each_answered_with_their_own() {
    let h = Harness::new(Setup {
        unpaid_allowance: 5000,
        ..Setup::default()
    });
    for n in 0..1100u32 {
        let url = format!("https://host-{n}.example.test/dex/quote");
        let reply = h.send("answer", &[("x-resource", url.as_str())]).await;
        assert_eq!(reply.terms().resource.url, url);
    }
}

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
    assert_eq!(Some(&extensions["bazaar"]), h.offer.bazaar.as_deref());
    // The payment-identifier extension, optional, in the format of its spec.
    let declared = json!({
        "info": {"required": false},
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"id": {"type": "string", "minLength": 16, "maxLength": 128,
                "pattern": "^[a-zA-Z0-9_-]+$"}},
            "required": ["id"]
        }
    });
    assert_eq!(extensions["payment-identifier"], declared);

    let body = reply.json();
    assert_eq!(
        body,
        json!({
            "x402Version": 2,
            "error": "Payment required",
            "description": "Best swap quote across Base DEXes",
            "inputSchema": input_schema(),
            "accepts": [h.offer.requirements],
            "extensions": {"payment-identifier": declared},
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
            extensions: None,
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
    assert_eq!(reply.bytes, "handler crashed");
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
    // Broadcast, not confirmed: 503 `settlement_pending`, charged null, with a time to come
    // back and the facilitator's receipt; never a 402, which would have the client sign again.
    assert_eq!(first.status, StatusCode::SERVICE_UNAVAILABLE, "{first:?}");
    assert_eq!(first.json()["error"], "settlement_pending");
    assert_eq!(first.json()["charged"], json!(null), "{first:?}");
    assert!(first.header("payment-required").is_none(), "no new terms");
    let retry_after: u64 = first
        .header("Retry-After")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!(retry_after >= 1);
    let receipt = first.receipt().expect("the facilitator's receipt");
    assert!(!receipt.success);
    assert_eq!(receipt.error_reason.as_deref(), Some("settlement_pending"));

    // The transfer may still land: a repeat is told so (409, charged null), never a 402.
    let again = h.send_paid("answer", &signature).await;
    again.assert_reused(json!(null));
    assert_eq!(
        (h.work_runs(), h.settle_calls(), h.verify_calls()),
        (1, 1, 1)
    );
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
    second.assert_reused(json!(true));
    let message = second.json()["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(
        message.contains(SETTLEMENT_TX),
        "names the transaction: {message}"
    );
    let receipt = second.receipt().expect("the first settlement's receipt");
    assert!(receipt.success);
    assert_eq!(receipt.transaction, SETTLEMENT_TX);
    assert_eq!(h.work_runs(), 1, "never worked on again");
    assert_eq!(
        h.verify_calls(),
        1,
        "a settled authorization is refused before the facilitator is asked again"
    );
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
        reply.assert_reused(json!(null));
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
    second.assert_reused(json!(null));
    assert_eq!(
        h.verify_calls(),
        1,
        "an authorization in flight is refused before verify"
    );
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
        !String::from_utf8_lossy(&reply.bytes).contains("the paid answer"),
        "{reply:?}"
    );
    assert_eq!(h.settle_calls(), 1);
}

// ---------------------------------------------------------------------------------------------
// The unpaid-request limiter.

#[tokio::test]
async fn unpaid_requests_past_the_allowance_get_429_and_so_do_payments() {
    let h = Harness::new(Setup {
        unpaid_allowance: 3,
        ..Setup::default()
    });
    // Verified payments give their unit back: they never use up the allowance.
    for label in ["paid-1", "paid-2", "paid-3", "paid-4"] {
        let paid = h.send_paid("answer", &h.signature(label)).await;
        assert_eq!(paid.status, StatusCode::OK, "{paid:?}");
    }
    for _ in 0..3 {
        let reply = h.send_unpaid("answer").await;
        h.assert_payment_required(&reply, "Payment required");
    }

    let limited = h.send_unpaid("answer").await;
    limited.assert_too_many();
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

    // An exhausted address gets no pre-payment work done, header or not.
    let verified_before = h.verify_calls();
    let priced_before = h.pricing_runs();
    let paid = h
        .send_paid("answer", &h.signature("limited-but-paying"))
        .await;
    paid.assert_too_many();
    assert_eq!(h.verify_calls(), verified_before);
    assert_eq!(h.pricing_runs(), priced_before, "nothing was priced");
}

#[tokio::test]
async fn every_request_is_counted_before_any_work() {
    let h = Harness::new(Setup {
        unpaid_allowance: 10,
        ..Setup::default()
    });
    // 80 requests whose body the route would refuse: none of them may run unlimited.
    let mut limited = 0;
    for _ in 0..80 {
        let reply = h.send_unpaid("answer").await;
        if reply.status == StatusCode::TOO_MANY_REQUESTS {
            reply.assert_too_many();
            limited += 1;
        }
    }
    assert_eq!(limited, 70);
    assert_eq!(h.pricing_runs(), 10, "only the allowance was priced");
}

#[tokio::test]
async fn payment_headers_that_fail_count_against_the_address() {
    let reason = "invalid_exact_evm_insufficient_balance";
    let h = Harness::new(Setup {
        verify: Verdict::Refuse(reason),
        unpaid_allowance: 4,
        ..Setup::default()
    });
    // Fresh keys, garbage and unfunded signatures: each one uses up a unit.
    h.assert_payment_required(
        &h.send_paid("answer", &h.signature("unfunded-1")).await,
        reason,
    );
    h.assert_payment_required(
        &h.send_paid("answer", &h.signature("unfunded-2")).await,
        reason,
    );
    let garbage = h.send_paid("answer", "not base64 at all!").await;
    assert_eq!(garbage.status, StatusCode::PAYMENT_REQUIRED);
    let mut cheap = h.payment("cheap");
    cheap.accepted.amount = "1".into();
    let cheap = h
        .send_paid("answer", &encode_header(&cheap).expect("encodes"))
        .await;
    h.assert_payment_required(&cheap, "No matching payment requirements");

    let refused = h.send_paid("answer", &h.signature("unfunded-3")).await;
    refused.assert_too_many();
    assert_eq!(
        h.verify_calls(),
        2,
        "the exhausted address reached no facilitator"
    );
    assert_eq!(h.pricing_runs(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_requests_of_one_client_do_not_all_get_priced() {
    let h = Harness::new(Setup::limited(|limits| limits.unverified_per_client = 4));
    let signature = h.signature("parallel");
    let tasks: Vec<_> = (0..200)
        .map(|i| {
            let header = if i % 2 == 0 {
                ("PAYMENT-SIGNATURE", signature.as_str())
            } else {
                ("x-unpaid", "1")
            };
            tokio::spawn(h.send("answer", &[("x-slow-pricing", "1"), header]))
        })
        .collect();
    let mut refused = 0;
    for task in tasks {
        let reply = task.await.expect("task");
        if reply.status == StatusCode::TOO_MANY_REQUESTS {
            reply.assert_too_many();
            refused += 1;
        }
    }
    let peak = h.app.pricing.peak.load(Ordering::SeqCst);
    assert!(peak <= 4, "{peak} requests were priced at once");
    assert!(
        refused >= 150,
        "only {refused} of 200 were refused at admission"
    );
    assert!(h.pricing_runs() <= 50, "{} were priced", h.pricing_runs());
}

#[tokio::test]
async fn clients_behind_a_trusted_proxy_are_told_apart_by_their_right_most_hop() {
    let h = Harness::new(Setup {
        unpaid_allowance: 1,
        limits: GateLimits {
            addressing: ClientAddressing {
                trust_forwarded: true,
                trusted_proxies: vec!["127.0.0.0/8".parse().expect("net")],
            },
            ..Setup::default().limits
        },
        ..Setup::default()
    });
    let from = |hops: &'static str| h.send("answer", &[("x-forwarded-for", hops)]);
    assert_eq!(
        from("203.0.113.1").await.status,
        StatusCode::PAYMENT_REQUIRED
    );
    assert_eq!(
        from("203.0.113.2").await.status,
        StatusCode::PAYMENT_REQUIRED,
        "another client behind the same proxy"
    );
    // A spoofed left-most hop does not make a new client.
    from("198.51.100.77, 203.0.113.1").await.assert_too_many();
    // IPv6 clients are counted per /64.
    assert_eq!(
        from("2001:db8:0:1::1").await.status,
        StatusCode::PAYMENT_REQUIRED
    );
    from("2001:db8:0:1:ffff::2").await.assert_too_many();
}

// ---------------------------------------------------------------------------------------------
// Per payer: failed work and concurrent work.

#[tokio::test]
async fn replaying_one_authorization_against_failing_work_hits_429() {
    let h = Harness::new(Setup {
        limits: GateLimits {
            payer_failures: UnpaidAllowance {
                requests: 3,
                window: Duration::from_secs(600),
            },
            ..Setup::default().limits
        },
        ..Setup::default()
    });
    // Successful payments do not count.
    for label in ["ok-1", "ok-2", "ok-3", "ok-4"] {
        assert_eq!(
            h.send_paid("answer", &h.signature(label)).await.status,
            StatusCode::OK
        );
    }
    let signature = h.signature("replayed-against-failures");
    for _ in 0..3 {
        h.send_paid("upstream", &signature)
            .await
            .assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    }
    let priced = h.pricing_runs();
    let limited = h.send_paid("upstream", &signature).await;
    limited.assert_too_many();
    assert!(
        limited.json()["message"]
            .as_str()
            .expect("message")
            .contains("payer"),
        "{limited:?}"
    );
    assert_eq!(h.pricing_runs(), priced + 1);
    // The same payer with a new authorization is limited too; the lock was given back.
    h.send_paid("answer", &h.signature("fresh"))
        .await
        .assert_too_many();
    assert!(h.replay.len() >= 4, "only the settled keys are kept");
    assert_eq!(h.settle_calls(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_payer_runs_at_most_its_share_of_work_at_once() {
    let h = Harness::new(Setup::limited(|limits| limits.payer_concurrency = 2));
    let tasks: Vec<_> = ["c-1", "c-2", "c-3"]
        .into_iter()
        .map(|label| tokio::spawn(h.send_paid("hold", &h.signature(label))))
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.expect("task"));
    }
    let (ok, refused): (Vec<_>, Vec<_>) = replies
        .iter()
        .partition(|reply| reply.status == StatusCode::OK);
    assert_eq!(ok.len(), 2, "{replies:?}");
    refused[0].assert_too_many();
    // The refused authorization was not consumed.
    h.assert_reusable(&h.signature("c-1-again")).await;
    assert_eq!(h.settle_calls(), 3);
}

// ---------------------------------------------------------------------------------------------
// Every way out: the client leaving mid-work.

#[tokio::test]
async fn a_dropped_request_releases_its_authorization_and_cancels_its_work() {
    let h = Harness::new(Setup::limited(|limits| limits.payer_concurrency = 1));
    let signature = h.signature("disconnect");
    let dropped =
        tokio::time::timeout(Duration::from_millis(300), h.send_paid("hang", &signature)).await;
    assert!(dropped.is_err(), "the client gave up mid-work");

    tokio::time::timeout(Duration::from_secs(5), h.work_cancelled.notified())
        .await
        .expect("the work saw its token cancelled");
    h.wait_until_released().await;
    // Not `nonce_already_used`, and the payer's only slot is free again.
    h.assert_reusable(&signature).await;
}

#[tokio::test]
async fn an_aborted_handler_task_releases_its_authorization() {
    let h = Harness::new(Setup::default());
    let signature = h.signature("aborted");
    let task = tokio::spawn(h.send_paid("hang", &signature));
    tokio::time::sleep(Duration::from_millis(200)).await;
    task.abort();
    assert!(task.await.expect_err("aborted").is_cancelled());
    tokio::time::timeout(Duration::from_secs(5), h.work_cancelled.notified())
        .await
        .expect("cancelled");
    h.wait_until_released().await;
    h.assert_reusable(&signature).await;
}

// ---------------------------------------------------------------------------------------------
// validBefore must leave time for the work and the settlement.

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

#[tokio::test]
async fn an_authorization_expiring_before_the_work_could_settle_is_refused_before_work() {
    let h = Harness::new(Setup::default());
    // Budget 10 s, settle reserve 30 s (half of the 60 s settle margin).
    for (label, valid_for) in [("six-seconds", 6), ("budget-only", 10), ("short", 39)] {
        let payment = h.payment_until(label, unix_now() + valid_for);
        let reply = h
            .send_paid("answer", &encode_header(&payment).expect("encodes"))
            .await;
        h.assert_payment_required(
            &reply,
            "invalid_exact_evm_payload_authorization_valid_before",
        );
    }
    assert_eq!(h.verify_calls(), 0, "refused before the facilitator");
    assert_eq!(h.settle_calls(), 0);
}

#[tokio::test]
async fn an_honest_client_window_passes_despite_network_delay() {
    let h = Harness::new(Setup::default());
    // The official client signs validBefore = its now + maxTimeoutSeconds (budget 10 s +
    // settle margin 60 s); its retry arrives, and is priced, up to 25 s later.
    let signed_at = unix_now() - 25;
    let payment = h.payment_until("honest", signed_at + 10 + 60);
    let reply = h
        .send_paid("answer", &encode_header(&payment).expect("encodes"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}

// ---------------------------------------------------------------------------------------------
// Settlement outcomes the gate cannot know.

/// The body of an answer whose settlement may have landed: never "not charged".
fn assert_charge_unknown(reply: &Reply) {
    assert_eq!(reply.status, StatusCode::BAD_GATEWAY, "{reply:?}");
    let body = reply.json();
    assert_eq!(body["error"], "counterparty_unreachable");
    assert!(body["charged"].is_null(), "{body}");
    let message = body["message"].as_str().expect("message");
    assert!(message.contains("may still settle"), "{message}");
    assert!(!message.contains("nothing was charged"), "{message}");
    assert!(body.get("result").is_none(), "the answer is withheld");
    assert!(reply.receipt().is_none());
}

#[tokio::test]
async fn an_unknown_settlement_outcome_is_not_reported_as_uncharged_and_stays_locked() {
    let h = Harness::new(Setup {
        settle: Verdict::Unknown,
        ..Setup::default()
    });
    let signature = h.signature("unknown");
    assert_charge_unknown(&h.send_paid("answer", &signature).await);

    let again = h.send_paid("answer", &signature).await;
    again.assert_reused(json!(null));
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test]
async fn a_known_settle_outage_releases_the_authorization() {
    let h = Harness::new(Setup {
        settle: Verdict::Outage,
        ..Setup::default()
    });
    let signature = h.signature("known-outage");
    h.send_paid("answer", &signature)
        .await
        .assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    h.wait_until_released().await;
}

/// A harness paying through a real `HttpFacilitator` at `base`, with a 1 s timeout.
fn over_http(base: &str) -> Harness {
    let facilitator =
        x402_core::HttpFacilitator::new(base.parse().expect("url"), Duration::from_secs(1))
            .expect("client");
    Harness::with_facilitator(Setup::default(), Some(Arc::new(facilitator)))
}

async fn mount_valid_verify(server: &wiremock::MockServer) {
    use wiremock::matchers::{method, path};
    wiremock::Mock::given(method("POST"))
        .and(path("/verify"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({"isValid": true})))
        .mount(server)
        .await;
}

#[tokio::test]
async fn a_settle_that_hangs_past_the_timeout_is_an_unknown_outcome() {
    use wiremock::matchers::{method, path};
    let server = wiremock::MockServer::start().await;
    mount_valid_verify(&server).await;
    wiremock::Mock::given(method("POST"))
        .and(path("/settle"))
        .respond_with(
            wiremock::ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(5))
                .set_body_json(json!({"success": true, "transaction": "0x1", "network": NETWORK})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let h = over_http(&server.uri());
    let signature = h.signature("hanging-settle");
    let reply = tokio::time::timeout(Duration::from_secs(4), h.send_paid("answer", &signature))
        .await
        .expect("answered within the facilitator timeout");
    assert_charge_unknown(&reply);
    let again = h.send_paid("answer", &signature).await;
    again.assert_reused(json!(null));
}

#[tokio::test]
async fn a_settle_whose_connection_drops_after_sending_is_an_unknown_outcome() {
    // A facilitator that verifies, then reads the whole /settle request and hangs up.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                loop {
                    let Ok(read) = socket.read(&mut buffer).await else {
                        return;
                    };
                    if read == 0 {
                        return;
                    }
                    request.extend_from_slice(&buffer[..read]);
                    let text = String::from_utf8_lossy(&request).to_string();
                    let Some(head_end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let length: usize = text[..head_end]
                        .lines()
                        .find_map(|line| {
                            let (name, value) = line.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse().ok())?
                        })
                        .unwrap_or(0);
                    if request.len() < head_end + 4 + length {
                        continue;
                    }
                    if text.starts_with("POST /verify") {
                        let body = r#"{"isValid":true}"#;
                        let answer = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = socket.write_all(answer.as_bytes()).await;
                        request.clear();
                    } else {
                        // /settle: the request arrived; the answer never comes.
                        return;
                    }
                }
            });
        }
    });
    let h = over_http(&format!("http://{address}"));
    let signature = h.signature("dropped-settle");
    assert_charge_unknown(&h.send_paid("answer", &signature).await);
    let again = h.send_paid("answer", &signature).await;
    again.assert_reused(json!(null));
}

// ---------------------------------------------------------------------------------------------
// Faults of an HTTP facilitator (issue 22): slow, malformed, settlement timing out.

async fn mount_answer(
    server: &wiremock::MockServer,
    route: &str,
    template: wiremock::ResponseTemplate,
) {
    use wiremock::matchers::{method, path};
    wiremock::Mock::given(method("POST"))
        .and(path(route))
        .respond_with(template)
        .mount(server)
        .await;
}

fn calls_to(requests: &[wiremock::Request], route: &str) -> usize {
    requests.iter().filter(|r| r.url.path() == route).count()
}

#[tokio::test]
async fn a_verify_slower_than_the_timeout_answers_502_before_the_work() {
    let server = wiremock::MockServer::start().await;
    mount_answer(
        &server,
        "/verify",
        wiremock::ResponseTemplate::new(200)
            .set_delay(Duration::from_secs(5))
            .set_body_json(json!({"isValid": true})),
    )
    .await;
    let h = over_http(&server.uri());
    let reply = tokio::time::timeout(
        Duration::from_secs(4),
        h.send_paid("answer", &h.signature("slow-verify")),
    )
    .await
    .expect("answered within the facilitator timeout");
    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert_eq!(h.work_runs(), 0, "no work before a verified payment");
    let requests = server.received_requests().await.unwrap_or_default();
    assert_eq!(calls_to(&requests, "/settle"), 0);
}

#[tokio::test]
async fn a_verify_that_is_down_answers_502_before_the_work() {
    // A closed port: nothing listens.
    let port = test_devnet::free_port().expect("a free port");
    let h = over_http(&format!("http://127.0.0.1:{port}"));
    let reply = h
        .send_paid("answer", &h.signature("verify-down-http"))
        .await;
    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    assert_eq!(h.work_runs(), 0);
}

#[tokio::test]
async fn a_verify_answering_malformed_json_is_a_clean_502_uncharged() {
    for garbage in [
        "{\"isValid\": nul",
        "<html>502 Bad Gateway</html>",
        "",
        "[1, 2]",
    ] {
        let server = wiremock::MockServer::start().await;
        mount_answer(
            &server,
            "/verify",
            wiremock::ResponseTemplate::new(200).set_body_string(garbage),
        )
        .await;
        let h = over_http(&server.uri());
        let signature = h.signature("malformed-verify");
        let reply = h.send_paid("answer", &signature).await;
        reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
        assert_eq!(h.work_runs(), 0, "{garbage}");
        let requests = server.received_requests().await.unwrap_or_default();
        assert_eq!(calls_to(&requests, "/settle"), 0, "{garbage}");
        // Not charged, so the authorization is free for a retry.
        h.wait_until_released().await;
    }
}

#[tokio::test]
async fn a_settle_answering_malformed_json_is_unknown_then_found_settled_and_reported_once() {
    let server = wiremock::MockServer::start().await;
    mount_valid_verify(&server).await;
    mount_answer(
        &server,
        "/settle",
        wiremock::ResponseTemplate::new(200).set_body_string("{\"success\": tr"),
    )
    .await;
    let h = over_http(&server.uri());
    let signature = h.signature("malformed-settle");
    // The facilitator may have settled: neither the answer nor "not charged".
    assert_charge_unknown(&h.send_paid("answer", &signature).await);
    assert_eq!(h.work_runs(), 1);
    // The settlement is recorded as pending (not stale yet, so left).
    let report = h
        .app
        .gate
        .resolve_pending_older_than(Duration::from_secs(3600))
        .await
        .expect("scan");
    assert_eq!(report.left, 1, "{report:?}");

    // Later the facilitator says the nonce is spent: it did settle.
    server.reset().await;
    mount_answer(
        &server,
        "/verify",
        wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "isValid": false,
            "invalidReason": "invalid_exact_evm_nonce_already_used"
        })),
    )
    .await;
    let report = h.resolve_pending_now().await;
    assert_eq!(report.settled, 1, "{report:?}");
    // Resolved once: a second scan finds nothing, and the authorization buys no answer.
    let report = h.resolve_pending_now().await;
    assert_eq!(
        (report.settled, report.released, report.left),
        (0, 0, 0),
        "{report:?}"
    );
    let again = h.send_paid("answer", &signature).await;
    again.assert_reused(json!(true));
    let requests = server.received_requests().await.unwrap_or_default();
    assert_eq!(
        calls_to(&requests, "/settle"),
        0,
        "never settled a second time"
    );
    assert_eq!(h.work_runs(), 1, "never served unpaid");
}

#[tokio::test]
async fn a_settle_timing_out_after_the_work_is_pending_then_released_and_settled_once() {
    let server = wiremock::MockServer::start().await;
    mount_valid_verify(&server).await;
    mount_answer(
        &server,
        "/settle",
        wiremock::ResponseTemplate::new(200)
            .set_delay(Duration::from_secs(5))
            .set_body_json(json!({"success": true, "transaction": "0x1", "network": NETWORK})),
    )
    .await;
    let h = over_http(&server.uri());
    let signature = h.signature("settle-timeout");
    let reply = h.send_paid("answer", &signature).await;
    // The work ran; its answer is withheld.
    assert_charge_unknown(&reply);
    assert_eq!(h.work_runs(), 1);
    // Locked while pending: no second answer for it.
    let locked = h.send_paid("answer", &signature).await;
    locked.assert_reused(json!(null));
    assert_eq!(h.work_runs(), 1);

    // The facilitator, asked again, still finds the authorization valid: it never landed, so
    // it is released for the payer.
    let report = h.resolve_pending_now().await;
    assert_eq!(report.released, 1, "{report:?}");

    // Settlement works again: the same authorization buys one answer, settled once.
    server.reset().await;
    mount_valid_verify(&server).await;
    mount_answer(
        &server,
        "/settle",
        wiremock::ResponseTemplate::new(200).set_body_json(
            json!({"success": true, "transaction": SETTLEMENT_TX, "network": NETWORK}),
        ),
    )
    .await;
    let paid = h.send_paid("answer", &signature).await;
    assert_eq!(paid.status, StatusCode::OK, "{paid:?}");
    assert_eq!(paid.json(), answer());
    let replay = h.send_paid("answer", &signature).await;
    replay.assert_reused(json!(true));
    let requests = server.received_requests().await.unwrap_or_default();
    assert_eq!(calls_to(&requests, "/settle"), 1);
    assert_eq!(h.work_runs(), 2);
}

// ---------------------------------------------------------------------------------------------
// Secrets.

#[tokio::test]
async fn rpc_keys_never_reach_an_error_body() {
    let h = Harness::new(Setup {
        verify: Verdict::Outage,
        ..Setup::default()
    });
    let reply = h.send_paid("answer", &h.signature("leak-verify")).await;
    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    let body = String::from_utf8_lossy(&reply.bytes).to_string();
    assert!(!body.contains("SeCrEtKeY"), "{body}");
    assert!(
        body.contains("https://base-mainnet.g.alchemy.com/<redacted>"),
        "{body}"
    );

    let h = Harness::new(Setup::default());
    let reply = h.send_paid("leaky", &h.signature("leak-work")).await;
    reply.assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    let body = String::from_utf8_lossy(&reply.bytes).to_string();
    assert!(!body.contains("SeCrEtKeY"), "{body}");
}

// ---------------------------------------------------------------------------------------------
// Payment ids (the payment-identifier extension), in memory; the same rules on Redis are in
// devnet_state.rs.

const PAYMENT_ID: &str = "pay_7d5d747be160e280504c099d984bcfe0";

/// The answer of a paid request, repeated: same status, body and receipt.
fn assert_same_answer(first: &Reply, repeat: &Reply) {
    assert_eq!(repeat.status, StatusCode::OK, "{repeat:?}");
    assert_eq!(repeat.bytes, first.bytes, "the same body");
    assert_eq!(
        repeat.header("PAYMENT-RESPONSE"),
        first.header("PAYMENT-RESPONSE"),
        "the same receipt"
    );
    assert_eq!(repeat.header("content-type"), first.header("content-type"));
}

#[tokio::test]
async fn a_repeat_of_a_payment_id_gets_the_same_answer_without_new_work_or_settlement() {
    let h = Harness::new(Setup::default());
    let signature = h.signature_with_id("lost answer", PAYMENT_ID);
    let first = h.send_paid_body("answer", &signature, "{}").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    assert_eq!(first.receipt().expect("receipt").transaction, SETTLEMENT_TX);
    // The answer was lost on the way; the client repeats the very same request and payment.
    for _ in 0..3 {
        let repeat = h.send_paid_body("answer", &signature, "{}").await;
        assert_same_answer(&first, &repeat);
    }
    assert_eq!(h.work_runs(), 1, "worked on once");
    assert_eq!(h.settle_calls(), 1, "settled once");
    assert_eq!(
        h.verify_calls(),
        1,
        "a repeat of the same signature is not verified again"
    );
}

#[tokio::test]
async fn the_same_payment_id_with_another_body_or_path_is_409_uncharged() {
    let h = Harness::new(Setup::default());
    let signature = h.signature_with_id("first body", PAYMENT_ID);
    let first = h
        .send_paid_body("answer", &signature, "{\"chain\":\"base\"}")
        .await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    for (work, body) in [
        ("answer", "{\"chain\":\"eth\"}"),
        ("slow", "{\"chain\":\"base\"}"),
    ] {
        // The same authorization, or a new one, under the same id: both conflict.
        for label in ["first body", "second body"] {
            let other = h.signature_with_id(label, PAYMENT_ID);
            let reply = h.send_paid_body(work, &other, body).await;
            reply.assert_api_error(StatusCode::CONFLICT, "payment_id_conflict");
        }
    }
    assert_eq!(h.work_runs(), 1);
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_repeats_of_a_payment_id_run_the_work_once_and_all_get_the_answer() {
    let h = Harness::new(Setup::default());
    let signature = h.signature_with_id("concurrent", PAYMENT_ID);
    let tasks: Vec<_> = (0..8)
        .map(|_| tokio::spawn(h.send_paid_body("slow", &signature, "{}")))
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.expect("task"));
    }
    // The copies that came while the first worked waited for its answer.
    for reply in &replies {
        assert_same_answer(&replies[0], reply);
    }
    assert_eq!(replies[0].json(), answer());
    assert_eq!(h.work_runs(), 1, "one execution");
    assert_eq!(h.settle_calls(), 1, "one settlement");
}

#[tokio::test]
async fn a_new_authorization_under_a_paid_id_is_verified_answered_and_never_settled() {
    let h = Harness::new(Setup::default());
    let first = h
        .send_paid_body("answer", &h.signature_with_id("first", PAYMENT_ID), "{}")
        .await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    // A client that re-signed after losing the answer, keeping its id: the stored answer, once
    // the facilitator has confirmed that the signer is the payer.
    let resigned = h.signature_with_id("re-signed", PAYMENT_ID);
    let repeat = h.send_paid_body("answer", &resigned, "{}").await;
    assert_same_answer(&first, &repeat);
    assert_eq!(h.verify_calls(), 2);
    assert_eq!(h.settle_calls(), 1);
    assert_eq!(h.work_runs(), 1);
    // The second authorization was not taken: it still buys an answer of its own.
    let own = h
        .send_paid_body("answer", &h.signature("re-signed"), "{}")
        .await;
    assert_eq!(own.status, StatusCode::OK, "{own:?}");
    assert_eq!(h.settle_calls(), 2);
}

#[tokio::test]
async fn a_forged_authorization_under_a_paid_id_gets_the_refusal_not_the_answer() {
    let h = Harness::new(Setup {
        verify: Verdict::CheckSignature,
        ..Setup::default()
    });
    let first = h
        .send_paid_body("answer", &h.signature_with_id("first", PAYMENT_ID), "{}")
        .await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    // Someone who knows the payer and the id, but holds no signature of the payer's.
    let key = PrivateKeySigner::from_bytes(&keccak256("someone else")).expect("key");
    let window = AuthorizationWindow {
        valid_after: 0,
        valid_before: VALID_BEFORE,
        nonce: keccak256("forged"),
    };
    let mut forged = PaymentSigner::new(key, CHAIN_ID)
        .pay(
            &h.offer.requirements,
            Some(h.offer.resource.clone()),
            window,
        )
        .expect("signs");
    forged.payload["authorization"]["from"] = json!(h.payer.address().to_checksum(None));
    let forged = encode_header(&with_payment_id(forged, PAYMENT_ID)).expect("encodes");
    let reply = h.send_paid_body("answer", &forged, "{}").await;
    h.assert_payment_required(&reply, "invalid_exact_evm_signature");
    assert_eq!((h.work_runs(), h.settle_calls()), (1, 1));
}

#[tokio::test]
async fn a_payment_id_whose_work_failed_is_free_again() {
    let h = Harness::new(Setup::default());
    let signature = h.signature_with_id("fails first", PAYMENT_ID);
    h.send_paid_body("upstream", &signature, "{}")
        .await
        .assert_api_error(StatusCode::BAD_GATEWAY, "counterparty_unreachable");
    h.wait_until_released().await;
    // Nothing was charged: the id and the authorization buy an answer to another request.
    let reply = h.send_paid_body("answer", &signature, "{}").await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test]
async fn a_malformed_payment_id_is_400_before_verification() {
    let h = Harness::new(Setup::default());
    for id in ["short", "pay_with spaces_0123456789"] {
        let reply = h
            .send_paid_body("answer", &h.signature_with_id("bad id", id), "{}")
            .await;
        reply.assert_api_error(StatusCode::BAD_REQUEST, "invalid_input");
        assert_eq!(
            reply.detail_fields(),
            ["PAYMENT-SIGNATURE.extensions.payment-identifier.info.id"]
        );
    }
    assert_eq!(h.verify_calls(), 0);
    assert_eq!(h.work_runs(), 0);
}

#[tokio::test]
async fn an_answer_over_the_cap_is_delivered_once_and_its_repeat_is_409_charged() {
    let h = Harness::new(Setup::limited(|limits| limits.paid_answer_max_bytes = 8));
    let signature = h.signature_with_id("large", PAYMENT_ID);
    let first = h.send_paid_body("answer", &signature, "{}").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    assert_eq!(first.json(), answer());
    let repeat = h.send_paid_body("answer", &signature, "{}").await;
    repeat.assert_reused(json!(true));
    let message = repeat.json()["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(message.contains(SETTLEMENT_TX), "{message}");
    assert!(message.contains("too large"), "{message}");
    assert_eq!(
        repeat.receipt().expect("receipt").transaction,
        SETTLEMENT_TX
    );
    assert_eq!(h.work_runs(), 1);
    assert_eq!(h.settle_calls(), 1);
}

#[tokio::test]
async fn a_repeat_of_a_payment_id_whose_settlement_is_unknown_is_409_charged_null_then_free() {
    let h = Harness::new(Setup {
        settle: Verdict::Unknown,
        ..Setup::default()
    });
    let signature = h.signature_with_id("unknown", PAYMENT_ID);
    assert_charge_unknown(&h.send_paid_body("answer", &signature, "{}").await);
    let repeat = h.send_paid_body("answer", &signature, "{}").await;
    repeat.assert_reused(json!(null));
    assert_eq!((h.work_runs(), h.settle_calls()), (1, 1));
    // The resolver finds the authorization still valid (it never landed): the authorization
    // and its id are free again, and the repeat is served.
    let report = h.resolve_pending_now().await;
    assert_eq!(report.released, 1, "{report:?}");
    assert_charge_unknown(&h.send_paid_body("answer", &signature, "{}").await);
    assert_eq!((h.work_runs(), h.settle_calls()), (2, 2));
}

#[tokio::test]
async fn a_declaration_echoed_without_an_id_is_a_payment_without_one() {
    let h = Harness::new(Setup::default());
    let mut payment = h.payment("echoed");
    let mut extensions = serde_json::Map::new();
    extensions.insert(
        "payment-identifier".into(),
        x402_core::payment_identifier::declaration(false),
    );
    payment.extensions = Some(extensions);
    let signature = encode_header(&payment).expect("encodes");
    let first = h.send_paid_body("answer", &signature, "{}").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    h.send_paid_body("answer", &signature, "{}")
        .await
        .assert_reused(json!(true));
}

#[tokio::test]
async fn repeats_just_after_valid_before_still_hear_they_paid() {
    let h = Harness::new(Setup::limited(|limits| {
        limits.settle_reserve = Duration::ZERO;
    }));
    let valid_before = unix_now() + 3;
    let payment = h.payment_until("expiring", valid_before);
    let with_id = encode_header(&with_payment_id(payment.clone(), PAYMENT_ID)).expect("encodes");
    let without_id = encode_header(&payment).expect("encodes");
    let first = h.send_paid_body("quick", &with_id, "{}").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    // The authorization expires: the lock forgets it, the kept answer and transaction do not.
    while unix_now() <= valid_before {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_same_answer(&first, &h.send_paid_body("quick", &with_id, "{}").await);
    let reply = h.send_paid_body("quick", &without_id, "{}").await;
    reply.assert_reused(json!(true));
    assert_eq!(reply.receipt().expect("receipt").transaction, SETTLEMENT_TX);
    assert_eq!((h.work_runs(), h.settle_calls()), (1, 1));
}
