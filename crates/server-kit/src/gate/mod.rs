//! The payment gate around a route's work (the 402, verification, the replay lock, the work,
//! settlement, the answer), and the limits in
//! front of all of it.
//!
//! A paid handler calls [`PaymentGate::admit`] first, before it reads JSON, fetches, decodes or
//! parses anything; then it validates and prices (steps 1-2), so every 402 names the exact terms
//! of this request; then [`PaymentGate::serve`] (with the [`Admission`] inside the
//! [`PaidRequest`]) answers 402 without a payment header; decodes and matches `accepted`;
//! checks that `validBefore` leaves time for the work and its settlement; verifies through the
//! facilitator; takes the replay lock and the payer's limits; runs the work inside the time
//! budget; and settles only a successful answer, which it buffers until the settlement is known.
//!
//! # Why a payment header buys nothing before verification
//!
//! The price of a docs-server request depends on its file, so pricing (fetching, opening and
//! classifying the file) must happen before a payment can be verified: that pre-payment work is
//! what an attacker wants for free, and a payment header cannot be allowed to buy it:
//!
//! - An attacker makes fresh keys at will, and a valid signature from an unfunded key proves
//!   nothing; only the facilitator's verification (balance, nonce, simulation) does, and that
//!   comes after pricing. So a header is not a credential at admission.
//! - Hence **every** request on a paid route, header or not, takes one unit of its client's
//!   unpaid allowance at admission ([`crate::state::UnpaidCounter`], keyed by [`ClientKey`]:
//!   IPv4 address or IPv6 /64, the right-most untrusted `X-Forwarded-For` hop behind trusted
//!   proxies). The unit is given back only once the payment is verified, its authorization
//!   locked and its payer admitted: a header that fails to decode, to match, to verify, or is
//!   a replay, keeps counting against the address.
//! - A client whose allowance is used up gets 429 at admission, with or without a header: no
//!   pre-payment work is done for it (an honest payer behind the same address waits for
//!   `Retry-After` like everyone else there).
//! - At most `unverified_per_client` requests of one client may be between admission and
//!   verification at once; the rest get 429 at once (without taking a unit), so 1000 parallel
//!   requests do not run 1000 pricings, nor does a client get more than that many ahead of the
//!   allowance by racing it.
//!
//! After verification the payer (the authorization's `from`, whose signature the facilitator
//! checked and whose balance covers the price) is what counts:
//!
//! - At most `payer_concurrency` requests of one payer run verified work at once.
//! - Work that fails (an error, an unsuccessful answer, emptiness, a timeout, analytics
//!   `no_route`, the client leaving mid-work) or whose settlement is refused takes one unit of
//!   the payer's failure allowance; a settled (or possibly settled) request gives its unit
//!   back. Without this one signed authorization could be replayed forever against work that
//!   fails, since a failure releases the authorization. Past either limit: 429
//!   `too_many_unpaid` (the error list's only 429; the message names the payer limit), not
//!   charged.
//!
//! # Every way out
//!
//! From the replay lock on, a drop guard owns the request's authorization: whether the handler
//! returns or its future is dropped (the client disconnected), the work's cancellation token is
//! cancelled, the payer's slot is freed, and the authorization is released unless its
//! settlement has started. The settlement runs in a task of its own, so a disconnect cannot cut
//! it in half; that task records its outcome in the replay guard whoever still waits for it.
//!
//! # State shared by replicas
//!
//! The replay lock, the unpaid allowance, the payer limits and the records of settlements in
//! progress live in [`SharedState`] (memory, or Redis for several replicas; [`crate::state`]),
//! so N replicas give a payer the configured limits once, not N times. The gate fails closed on
//! it: a payment that cannot be locked, whose payer limits cannot be taken or whose settlement
//! cannot be recorded is refused with 503 `state_unavailable` before the work or before the settle call, never
//! after. A pending record is written just before the settle call and cleared once the
//! outcome is recorded; [`PaymentGate::resolve_pending`] finishes what a dead replica left.
//!
//! # Settlements with an unknown outcome
//!
//! A settle call that times out, loses its connection after sending, or gets a 5xx
//! ([`FacilitatorError::SettlementUnknown`]) may still move the funds. The gate then keeps the
//! authorization locked (in flight), withholds the answer, logs and counts it
//! (`settlement_unknown_total`), and answers 502 `counterparty_unreachable` with
//! `"charged": null` and a message saying the payment may still settle and that this
//! authorization will not buy a second answer. It never says "not charged" there: a client
//! told so would pay again and might pay twice. Withholding the answer is the lesser harm: the
//! client can retry with a new authorization. Its pending record stays: the pending resolver
//! ([`PaymentGate::resolve_pending`], run periodically by [`PaymentGate::spawn_pending_resolver`])
//! asks the facilitator once it is stale and either marks it settled and reports it (charged
//! once, answer lost: for a refund) or releases the authorization. It never settles again.
//!
//! # Repeats: never a 402 to a payment that may have been taken
//!
//! The official client answers any 402 by signing a new authorization, so a client whose
//! answer was lost and who retries would pay twice if the retry got a 402. A payment whose
//! authorization is settled gets 409 `authorization_reused` with `charged: true` and the
//! transaction; one in flight, or whose settlement is unknown or pending, the same 409 with
//! `charged: null`. Neither is verified, worked on or settled again.
//!
//! A payment carrying a payment id (x402's `payment-identifier`, [`x402_core::payment_identifier`])
//! is idempotent per (payer, id): the id is claimed after verification
//! ([`crate::state::PaidAnswers`], shared like the rest), the settlement task keeps the answer
//! under it (so a client cut off after the settle call finds it), and a repeat with the same
//! [`RequestFingerprint`] gets that answer; another request under the id gets 409
//! `payment_id_conflict`; copies that come while the first works wait for its outcome.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use alloy::primitives::U256;
use axum::body::{Body, Bytes, to_bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info, warn};
use x402_core::eip3009::SignedAuthorization;
use x402_core::offer_receipt::{OFFER_RECEIPT, OfferReceiptSigner, Receipt};
use x402_core::payment_identifier::{OPTIONAL_DECLARATION, payment_id};
use x402_core::terms::{NO_MATCHING_REQUIREMENTS, PAYMENT_REQUIRED_REASON};
use x402_core::v1::AnyPaymentPayload;
use x402_core::{
    Facilitator, FacilitatorError, Offer, PaymentPayload, PaymentRequirements, PaymentTerms,
    ReplayError, ReplayGuard, ReplayKey, SettleResponse, accepted_matches, encode_header, reasons,
};

use crate::error::{ApiError, ErrorCode};
use crate::limiter::{ClientAddressing, ClientKey, Slot, Slots, UnpaidAllowance};
use crate::state::{
    PaidAnswer, PaidAnswerRecord, PaidAnswerState, PaidAnswers, PayerHold, PayerLimits, PayerTake,
    PendingAnswer, PendingSettlement, PendingSettlements, SharedState, StateError, UnpaidCounter,
    paid_answer_key, replay_id,
};

mod pending;
mod render;
mod repeat;

pub use pending::{PendingReport, PendingTiming};
use render::{Rendered402s, payment_required_response};
use repeat::{
    Claim, PAYMENT_ID_FIELD, Proof, already_charged, authorization_digest, in_progress,
    kept_headers,
};

/// Header carrying the v2 payment.
pub const PAYMENT_SIGNATURE: &str = "payment-signature";
/// Header carrying a v1 payment.
pub const X_PAYMENT: &str = "x-payment";
/// Header carrying the terms on a 402.
pub const PAYMENT_REQUIRED: &str = "payment-required";
/// Header carrying the settlement receipt.
pub const PAYMENT_RESPONSE: &str = "payment-response";

/// How long past its authorization's `validBefore` a settled payment's transaction, and the
/// answer kept for its payment id, are remembered for repeats.
pub const REPEAT_GRACE: Duration = Duration::from_secs(600);

/// Largest successful answer the gate buffers before settling.
const MAX_BUFFERED_ANSWER: usize = 64 * 1024 * 1024;

/// Everything the gate limits. The configuration builds it (`CommonConfig::gate_limits`);
/// `Default` holds the same defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateLimits {
    /// Requests per window one client key may make on paid routes without a verified payment.
    pub unpaid: UnpaidAllowance,
    /// Requests of one client key that may be between admission and verification at once.
    pub unverified_per_client: u32,
    /// Failed verified requests (failed work, refused settlement) per window one payer gets.
    pub payer_failures: UnpaidAllowance,
    /// Verified requests of one payer whose work may run at once.
    pub payer_concurrency: u32,
    /// How much time `validBefore` must leave after the work's budget, for the settlement:
    /// an authorization expiring sooner is refused before any work.
    pub settle_reserve: Duration,
    /// How the client's address is found.
    pub addressing: ClientAddressing,
    /// Largest answer kept for repeats of its payment id, bytes.
    pub paid_answer_max_bytes: usize,
    /// Bytes of such answers kept in memory at once (the memory backend).
    pub paid_answers_memory_max_bytes: usize,
}

impl Default for GateLimits {
    fn default() -> Self {
        Self {
            unpaid: UnpaidAllowance {
                requests: 60,
                window: Duration::from_secs(60),
            },
            unverified_per_client: 4,
            payer_failures: UnpaidAllowance {
                requests: 10,
                window: Duration::from_secs(600),
            },
            payer_concurrency: 2,
            settle_reserve: Duration::from_secs(30),
            addressing: ClientAddressing::default(),
            paid_answer_max_bytes: 4 * 1024 * 1024,
            paid_answers_memory_max_bytes: 64 * 1024 * 1024,
        }
    }
}

#[derive(Debug)]
struct Limits {
    unpaid: Arc<dyn UnpaidCounter>,
    unverified: Slots<ClientKey>,
    payers: PayerLimits,
    settle_reserve: Duration,
    addressing: ClientAddressing,
}

/// What the gate needs from the server: facilitator, replay guard, limits, and the shared
/// state those live in (with the records of settlements in progress).
#[derive(Debug, Clone)]
pub struct PaymentGate {
    facilitator: Arc<dyn Facilitator>,
    replay: Arc<dyn ReplayGuard>,
    limits: Arc<Limits>,
    chain_id: u64,
    state: SharedState,
    pending: Arc<dyn PendingSettlements>,
    answers: Arc<dyn PaidAnswers>,
    pending_timing: PendingTiming,
    unpaid_402s: Arc<Rendered402s>,
    /// Signs each 402's offers and each paid answer's receipt (`offer-receipt`), when set.
    offer_signer: Option<Arc<OfferReceiptSigner>>,
    /// The networks accepted besides the offer's own, each at the same price, with the
    /// facilitator that verifies and settles there.
    other_networks: Arc<Vec<AcceptedNetwork>>,
}

/// A network a payment may also be made on.
#[derive(Debug, Clone)]
pub struct AcceptedNetwork {
    /// Its asset and chain.
    pub terms: PaymentTerms,
    /// Who verifies and settles payments on it.
    pub facilitator: Arc<dyn Facilitator>,
}

/// A request let in by [`PaymentGate::admit`]: it took one unit of its client's unpaid
/// allowance and holds one of its client's not-yet-verified slots until its payment is
/// verified or it ends. It travels into [`PaymentGate::serve`] inside [`PaidRequest`], so
/// nothing is counted twice.
#[derive(Debug)]
pub struct Admission {
    client: ClientKey,
    unverified: Option<Slot<ClientKey>>,
}

impl Admission {
    /// The client key the request is counted under.
    pub fn client(&self) -> ClientKey {
        self.client
    }
}

/// One request to a paid route, admitted and priced.
#[derive(Debug)]
pub struct PaidRequest {
    /// The route, for logs and metrics (`/dex/quote`).
    pub route: &'static str,
    /// The request headers (payment headers are read from here).
    pub headers: HeaderMap,
    /// What [`PaymentGate::admit`] gave this request.
    pub admission: Admission,
    /// The terms for this exact request.
    pub offer: Offer,
    /// The route's input JSON Schema, for the 402 body.
    pub input_schema: Arc<Value>,
    /// Extra members of the 402 body (the document routes' per-page price).
    pub extra_402_body: Map<String, Value>,
    /// The time budget of the work.
    pub budget: Duration,
    /// What makes a repeat of this request the same request (for payment ids).
    pub fingerprint: RequestFingerprint,
}

/// A paid request's method, path and body: a payment id buys one answer to one such request.
/// The body is held (a cheap clone of the bytes) and hashed only when a payment carries an id.
#[derive(Debug, Clone)]
pub struct RequestFingerprint {
    method: Method,
    path: String,
    body: Bytes,
}

impl RequestFingerprint {
    /// The request `method path` with `body`.
    pub fn new(method: Method, path: impl Into<String>, body: Bytes) -> Self {
        Self {
            method,
            path: path.into(),
            body,
        }
    }

    /// SHA-256 (hex) of method, path and body; NUL separates them (neither a method nor a path
    /// holds one), so no two requests share the input.
    pub fn digest(&self) -> String {
        let mut hash = Sha256::new();
        hash.update(self.method.as_str().as_bytes());
        hash.update([0]);
        hash.update(self.path.as_bytes());
        hash.update([0]);
        hash.update(&self.body);
        alloy::hex::encode(hash.finalize())
    }
}

impl PaymentGate {
    /// A gate settling through `facilitator` for `chain_id`, within `limits`.
    pub fn new(
        facilitator: Arc<dyn Facilitator>,
        replay: Arc<dyn ReplayGuard>,
        limits: GateLimits,
        chain_id: u64,
    ) -> Self {
        let state = SharedState::memory();
        let unpaid = state.unpaid_counter(limits.unpaid);
        Self::assemble(facilitator, replay, unpaid, state, limits, chain_id)
    }

    /// A gate keeping its replay locks, unpaid allowance and pending settlements in `state`
    /// and its payer limits (the per-client cap on requests awaiting verification stays per replica).
    pub fn with_state(
        facilitator: Arc<dyn Facilitator>,
        state: SharedState,
        limits: GateLimits,
        chain_id: u64,
    ) -> Self {
        let replay = state.replay_guard();
        let unpaid = state.unpaid_counter(limits.unpaid);
        Self::assemble(facilitator, replay, unpaid, state, limits, chain_id)
    }

    fn assemble(
        facilitator: Arc<dyn Facilitator>,
        replay: Arc<dyn ReplayGuard>,
        unpaid: Arc<dyn UnpaidCounter>,
        state: SharedState,
        limits: GateLimits,
        chain_id: u64,
    ) -> Self {
        let pending = state.pending_settlements();
        let answers = state.paid_answers(
            limits.paid_answer_max_bytes,
            limits.paid_answers_memory_max_bytes,
        );
        let limits = Limits {
            unpaid,
            unverified: Slots::new(limits.unverified_per_client),
            payers: state.payer_limits(limits.payer_failures, limits.payer_concurrency),
            settle_reserve: limits.settle_reserve,
            addressing: limits.addressing,
        };
        Self {
            facilitator,
            replay,
            limits: Arc::new(limits),
            chain_id,
            state,
            pending,
            answers,
            pending_timing: PendingTiming::default(),
            unpaid_402s: Arc::default(),
            offer_signer: None,
            other_networks: Arc::default(),
        }
    }

    /// The same gate accepting payment on `networks` too, each at the offer's price (x402:
    /// one entry of `accepts` each, after the offer's own).
    #[must_use]
    pub fn with_networks(mut self, networks: Vec<AcceptedNetwork>) -> Self {
        self.other_networks = Arc::new(networks);
        self
    }

    /// Every requirement a payment for `primary` may meet: `primary`, then the same price on
    /// each other accepted network.
    fn accepts(&self, primary: &PaymentRequirements) -> Vec<PaymentRequirements> {
        std::iter::once(primary.clone())
            .chain(
                self.other_networks
                    .iter()
                    .map(|network| network.terms.requirements_like(primary)),
            )
            .collect()
    }

    /// The facilitator of `network` (the gate's own for its primary network).
    fn facilitator_for(&self, network: &str) -> &Arc<dyn Facilitator> {
        self.other_networks
            .iter()
            .find(|accepted| accepted.terms.network() == network)
            .map_or(&self.facilitator, |accepted| &accepted.facilitator)
    }

    /// The same gate signing every 402's offers and every paid answer's receipt with `signer`
    /// (x402's `offer-receipt` extension, EIP-712 form).
    #[must_use]
    pub fn with_offer_receipts(mut self, signer: OfferReceiptSigner) -> Self {
        self.offer_signer = Some(Arc::new(signer));
        self
    }

    /// The offer and receipt signer, when the gate signs them.
    pub fn offer_signer(&self) -> Option<&OfferReceiptSigner> {
        self.offer_signer.as_deref()
    }

    /// The 402 of this request with `reason`.
    fn payment_required(&self, request: &PaidRequest, reason: &str) -> (&'static str, Response) {
        (
            "payment_required",
            self.payment_required_response(request, reason),
        )
    }

    /// The 402 of this request with `reason`, with signed offers when the gate signs them.
    fn payment_required_response(&self, request: &PaidRequest, reason: &str) -> Response {
        let accepts = self.accepts(&request.offer.requirements);
        payment_required_response(request, reason, self.offer_signer.as_deref(), &accepts)
    }

    /// How long until the pending resolver has decided a settlement sent now: its age of
    /// staleness and one scan.
    fn resolved_within(&self) -> u64 {
        (self.pending_timing.stale_after + self.pending_timing.scan_every).as_secs()
    }

    /// 502 `counterparty_unreachable`, `charged: null`: the settle call got no outcome.
    fn settlement_unknown(&self) -> Response {
        let mut error = ApiError::new(
            ErrorCode::CounterpartyUnreachable,
            "the payment was sent for settlement but the facilitator gave no outcome; it may \
             still settle, once. The answer is withheld and this authorization buys no second \
             one. Do not sign a new authorization for this request: send the same payment again \
             after Retry-After (with a payment-identifier, the answer is returned once the \
             transfer is confirmed; without, you are told whether it was charged).",
        );
        error.retry_after = Some(self.resolved_within());
        error.into_uncertain_response()
    }

    /// 503 `settlement_pending`, `charged: null`: the transfer was broadcast (in
    /// `transaction`) and is not yet confirmed.
    fn settlement_pending(&self, transaction: &str) -> Response {
        let sent = if transaction.is_empty() {
            "the payment's transfer was broadcast".to_owned()
        } else {
            format!("the payment's transfer was broadcast in transaction {transaction}")
        };
        let mut error = ApiError::new(
            ErrorCode::SettlementPending,
            format!(
                "{sent} and is not confirmed yet; it may still settle, once. The answer is \
                 withheld until it does and this authorization buys no second one. Do not sign \
                 a new authorization for this request: send the same payment again after \
                 Retry-After (with a payment-identifier, the answer is returned once the \
                 transfer is confirmed; without, you are told whether it was charged)."
            ),
        );
        error.retry_after = Some(self.resolved_within());
        error.into_uncertain_response()
    }

    /// `settled` with the gate's signed receipt of it for `request`'s resource (none when the
    /// gate signs nothing, or the signing fails: the receipt is an extra, never a reason to
    /// withhold a paid answer).
    fn with_signed_receipt(
        signer: Option<&OfferReceiptSigner>,
        resource_url: &str,
        payer: alloy::primitives::Address,
        mut settled: SettleResponse,
    ) -> SettleResponse {
        let Some(signer) = signer else {
            return settled;
        };
        let payer = settled
            .payer
            .clone()
            .unwrap_or_else(|| payer.to_checksum(None));
        let receipt = Receipt::of(
            resource_url,
            &payer,
            &settled.network,
            &settled.transaction,
            unix_now(),
        );
        match signer.receipt(&receipt) {
            Ok(signed) => {
                settled
                    .extensions
                    .get_or_insert_with(Map::new)
                    .insert(OFFER_RECEIPT.to_owned(), signed);
            }
            Err(e) => warn!(error = %e, "a receipt could not be signed"),
        }
        settled
    }

    /// The same gate scanning for stale pending settlements on `timing`.
    #[must_use]
    pub fn with_pending_timing(mut self, timing: PendingTiming) -> Self {
        self.pending_timing = timing;
        self
    }

    /// The shared state behind the gate.
    pub fn shared_state(&self) -> &SharedState {
        &self.state
    }

    /// The readiness check of the shared state (`state`: Redis answers `PING`); none in
    /// memory, which is always there.
    pub fn state_readiness(&self) -> Option<crate::readiness::ReadinessCheck> {
        match self.state {
            SharedState::Memory => None,
            _ => Some(self.state.readiness()),
        }
    }

    /// The readiness checks of the payment path: the facilitator of each accepted network
    /// answers `/supported` with `exact` on that network (`facilitator` for the primary one,
    /// `facilitator eip155:N` for each other), so a deployment whose HTTP facilitator does not
    /// serve a configured network is not ready.
    pub fn payment_readiness(&self) -> Vec<crate::readiness::ReadinessCheck> {
        let primary = crate::readiness::facilitator_readiness(
            self.facilitator.clone(),
            x402_core::terms::caip2(self.chain_id),
        );
        std::iter::once(primary)
            .chain(self.other_networks.iter().map(|accepted| {
                let network = accepted.terms.network();
                crate::readiness::facilitator_readiness(
                    accepted.facilitator.clone(),
                    network.clone(),
                )
                .named(format!("facilitator {network}"))
            }))
            .collect()
    }

    /// The other networks accepted (CAIP-2 network and asset address each), for the
    /// discovery documents.
    pub fn also_accepted(&self) -> Vec<(String, String)> {
        self.other_networks
            .iter()
            .map(|accepted| {
                (
                    accepted.terms.network(),
                    accepted.terms.asset.to_checksum(None),
                )
            })
            .collect()
    }

    /// The facilitator behind the gate.
    pub fn facilitator(&self) -> &Arc<dyn Facilitator> {
        &self.facilitator
    }

    /// The first thing every paid handler does, before reading JSON, fetching, decoding or
    /// parsing: finds the client (from `peer` and, behind trusted proxies, `X-Forwarded-For`),
    /// takes one of its not-yet-verified slots and one unit of its unpaid allowance, header or
    /// not (see the module documentation for why). `Err` is the 429 (`too_many_unpaid`, with
    /// `Retry-After`) to answer as it is.
    ///
    /// With the shared state unreachable, a request carrying a payment header is refused with
    /// 503 `state_unavailable` (its payment could not be taken safely, so pricing it would be
    /// wasted); one without is let through uncounted (the limiter fails open: it only gets the
    /// terms).
    pub async fn admit(&self, peer: IpAddr, headers: &HeaderMap) -> Result<Admission, ApiError> {
        let address = self.limits.addressing.client(peer, headers);
        let client = ClientKey::of(address);
        let Some(slot) = self.limits.unverified.try_take(client) else {
            metrics::counter!("admission_refusals_total", "limit" => "unverified").increment(1);
            return Err(too_many_error(
                1,
                "too many requests from this address are waiting for their price or payment check; retry in 1 s",
            ));
        };
        match self.limits.unpaid.take(client).await {
            Ok(Ok(())) => {}
            Ok(Err(retry_after)) => {
                metrics::counter!("admission_refusals_total", "limit" => "unpaid").increment(1);
                return Err(too_many_error(
                    retry_after,
                    &format!(
                        "too many unpaid requests from this address; retry in {retry_after} s"
                    ),
                ));
            }
            Err(e) if payment_header(headers).is_some() => {
                warn!(error = %e, "shared state unavailable; refusing a payment at admission");
                metrics::counter!("admission_refusals_total", "limit" => "state").increment(1);
                return Err(state_unavailable_error());
            }
            Err(e) => {
                warn!(error = %e, "shared state unavailable; unpaid request let through uncounted");
                metrics::counter!("unpaid_limiter_fail_open_total").increment(1);
            }
        }
        Ok(Admission {
            client,
            unverified: Some(slot),
        })
    }

    /// Runs the payment steps for `request` (numbered from 3 in the code: 1 and 2 are the
    /// handler's validation and pricing). `work` gets a token that is cancelled when the budget
    /// runs out or the request ends any other way; CPU-bound work should check it between
    /// units.
    pub async fn serve<W, F>(&self, request: PaidRequest, work: W) -> Response
    where
        W: FnOnce(CancellationToken) -> F,
        F: Future<Output = Result<Response, ApiError>> + Send,
    {
        let mut request = request;
        let span = tracing::info_span!(
            "paid_request",
            route = request.route,
            price = %request.offer.requirements.amount,
            outcome = tracing::field::Empty,
        );
        let started = Instant::now();
        let (outcome, response) = self
            .serve_inner(&mut request, work)
            .instrument(span.clone())
            .await;
        span.record("outcome", outcome);
        metrics::counter!("paid_route_outcomes_total", "route" => request.route, "outcome" => outcome)
            .increment(1);
        metrics::histogram!("paid_route_seconds", "route" => request.route)
            .record(started.elapsed().as_secs_f64());
        response
    }

    async fn serve_inner<W, F>(
        &self,
        request: &mut PaidRequest,
        work: W,
    ) -> (&'static str, Response)
    where
        W: FnOnce(CancellationToken) -> F,
        F: Future<Output = Result<Response, ApiError>> + Send,
    {
        // 3. No payment: the terms (the unpaid unit was taken at admission).
        let header = payment_header(&request.headers);
        let Some(header) = header else {
            return ("payment_required", self.unpaid_402s.answer(request, self));
        };

        // 4. Decode, match, check the window, verify.
        let offered = self.accepts(&request.offer.requirements);
        let payload = match AnyPaymentPayload::decode(header) {
            Ok(decoded) => decoded.into_v2(&offered),
            Err(e) => {
                return self.payment_required(request, &format!("Invalid payment header: {e}"));
            }
        };
        // The entry of `accepts` the payment chose: its network's facilitator verifies and
        // settles it.
        let Some((payload, requirements)) = payload.and_then(|p| {
            let chosen = offered
                .iter()
                .find(|ours| accepted_matches(&p.accepted, ours))?
                .clone();
            Some((p, chosen))
        }) else {
            return self.payment_required(request, NO_MATCHING_REQUIREMENTS);
        };
        let facilitator = self.facilitator_for(&requirements.network).clone();
        let Some((key, valid_before)) = self.replay_key(&payload) else {
            return self.payment_required(request, reasons::INVALID_PAYLOAD);
        };
        let expires_at = u64::try_from(valid_before).unwrap_or(u64::MAX);
        // Answers and transactions are kept a while past `validBefore`: a client retrying just
        // after its authorization expired must still hear that it paid, not get a 402.
        let kept_until = expires_at.saturating_add(REPEAT_GRACE.as_secs());
        // The payment id, checked before anything is looked up or verified.
        let claim = match payment_id(&payload) {
            Ok(None) => None,
            Ok(Some(id)) => Some(Claim {
                key: paid_answer_key(&key.from, id),
                record: PaidAnswerRecord {
                    fingerprint: request.fingerprint.digest(),
                    authorization: authorization_digest(&payload),
                    state: PaidAnswerState::Working,
                },
            }),
            Err(e) => {
                return (
                    "invalid_payment_id",
                    ApiError::invalid_field(PAYMENT_ID_FIELD, e.to_string()).into_response(),
                );
            }
        };
        // A repeat of a payment id is answered from what the first request bought: before the
        // window check (a repeat may come late) and before verification; it is never worked
        // on or settled again.
        if let Some(claim) = &claim
            && let Some(answer) = self.follow_payment_id(request, &payload, claim).await
        {
            return answer;
        }
        // An authorization that was settled, or may be about to be, is never answered 402: a
        // client would sign a second one for the same request and might pay twice. Refused
        // before the facilitator is asked.
        if let Some(held) = self.replay.peek(key).await {
            // A copy carrying the same payment id may have bound it and taken the lock since
            // the lookup above (the id is bound just before the lock): it is followed, as
            // above, instead of being refused.
            if let Some(claim) = &claim
                && let Some(answer) = self.follow_payment_id(request, &payload, claim).await
            {
                return answer;
            }
            metrics::counter!("replays_refused_before_verify_total").increment(1);
            return self.reused(&payload.accepted.network, key, held).await;
        }
        // Work that cannot be settled before the authorization expires is never started.
        let needed = unix_now()
            .saturating_add(request.budget.as_secs_f64().ceil() as u64)
            .saturating_add(self.limits.settle_reserve.as_secs());
        if valid_before < U256::from(needed) {
            // Forgotten by the lock once expired, but perhaps settled: then told so, not 402.
            match self.answers.settlement(&replay_id(&key)).await {
                Ok(Some(transaction)) => {
                    metrics::counter!("authorizations_reused_total").increment(1);
                    return (
                        "reused",
                        already_charged(
                            &payload.accepted.network,
                            &transaction,
                            Some(key.from),
                            false,
                        ),
                    );
                }
                Ok(None) => {}
                Err(e) => return state_failed(&e),
            }
            info!(%valid_before, needed, "authorization expires before the work could settle");
            return self.payment_required(request, reasons::VALID_BEFORE);
        }
        match facilitator.verify(&payload, &requirements).await {
            Ok(verdict) if verdict.is_valid => {}
            Ok(verdict) => {
                let reason = verdict
                    .invalid_reason
                    .unwrap_or_else(|| "invalid_payment".to_owned());
                info!(reason, "payment refused by verification");
                return self.payment_required(request, &reason);
            }
            Err(e) => {
                warn!(error = %e, "facilitator verify failed");
                metrics::counter!("facilitator_failures_total", "call" => "verify").increment(1);
                return ("facilitator_unreachable", unreachable(&e.to_string()));
            }
        }

        // From here a guard owns what this request takes, on every way out.
        let mut guard = WorkGuard {
            replay: self.replay.clone(),
            answers: self.answers.clone(),
            claim: None,
            key,
            cancel: CancellationToken::new(),
            locked: false,
            payer: None,
        };
        // 5. One payment id, one answer: bound to this request now that the payment is
        // verified (only its payer can bind its ids). A copy that got there first is followed
        // instead; if that one gives up meanwhile (its work failed, nothing was charged), this
        // one takes the id.
        if let Some(claim) = &claim {
            let mut followed = 0;
            loop {
                match self
                    .answers
                    .claim(&claim.key, &claim.record, kept_until)
                    .await
                {
                    Ok(None) => {
                        guard.claim = Some(claim.clone());
                        break;
                    }
                    Ok(Some(held)) => {
                        if let Some(answer) = self
                            .repeat(request, &payload, claim, held, Proof::Verified)
                            .await
                        {
                            return answer;
                        }
                        followed += 1;
                        if followed == 2 {
                            return ("reused", in_progress());
                        }
                    }
                    Err(e) => return state_failed(&e),
                }
            }
        }

        // 6. One authorization, one answer.
        match self.replay.acquire(key, expires_at).await {
            Ok(()) => guard.locked = true,
            Err(held) => {
                guard.abandon_claim().await;
                return match held {
                    ReplayError::Unavailable => (
                        "state_unavailable",
                        state_unavailable_error().into_response(),
                    ),
                    // In flight, settled, or any state a guard adds later: not usable now.
                    held => self.reused(&payload.accepted.network, key, held).await,
                };
            }
        }

        // The payer's limits: work in progress and failures (shared by the replicas when the
        // state is; a slot lapses after the budget and the settlement margin should its replica
        // die holding it).
        let payer = key.from;
        let lease = request
            .budget
            .saturating_add(self.limits.settle_reserve.saturating_mul(2));
        match self.limits.payers.take(payer, lease).await {
            Ok(PayerTake::Held(hold)) => guard.payer = Some(hold),
            Ok(PayerTake::Busy) => {
                guard.release().await;
                metrics::counter!("payer_refusals_total", "limit" => "concurrency").increment(1);
                return (
                    "payer_limited",
                    too_many(
                        1,
                        "this payer already has as many paid requests in progress as allowed; retry when one has finished (nothing was charged)",
                    ),
                );
            }
            Ok(PayerTake::Failing(retry_after)) => {
                guard.release().await;
                metrics::counter!("payer_refusals_total", "limit" => "failures").increment(1);
                return (
                    "payer_limited",
                    too_many(
                        retry_after,
                        &format!(
                            "too many paid requests of this payer failed recently; retry in {retry_after} s (nothing was charged)"
                        ),
                    ),
                );
            }
            // Fail closed, like the replay lock: a payer's limits that cannot be asked are not
            // waived for a paid request.
            Err(e) => {
                warn!(error = %e, "payer limits unavailable; refusing the payment");
                guard.release().await;
                return (
                    "state_unavailable",
                    state_unavailable_error().into_response(),
                );
            }
        }
        // Verified and admitted as a payer: the address gets its unpaid unit back.
        if request.admission.unverified.take().is_some() {
            self.limits.unpaid.refund(request.admission.client).await;
        }

        // 7. The work, inside the budget.
        let cancel = guard.cancel.clone();
        let answer = match tokio::time::timeout(request.budget, work(cancel)).await {
            Ok(Ok(response)) if response.status().is_success() => response,
            Ok(Ok(response)) => {
                guard.release().await;
                return ("work_failed", response);
            }
            Ok(Err(error)) => {
                guard.release().await;
                return ("work_failed", error.into_response());
            }
            Err(_) => {
                guard.release().await;
                let message = format!(
                    "the work did not finish within {} s; nothing was charged",
                    request.budget.as_secs_f64()
                );
                return (
                    "timed_out",
                    ApiError::new(ErrorCode::TimeBudgetExceeded, message).into_response(),
                );
            }
        };
        let (parts, body) = answer.into_parts();
        let body = match to_bytes(body, MAX_BUFFERED_ANSWER).await {
            Ok(body) => body,
            Err(e) => {
                guard.release().await;
                return (
                    "work_failed",
                    ApiError::new(
                        ErrorCode::Internal,
                        format!("answer could not be buffered: {e}"),
                    )
                    .into_response(),
                );
            }
        };

        // 8. Settle; only then does the answer leave. First the record that a settlement is
        // under way: a replica dying from here on leaves it for another to resolve. Without
        // it (the state is unreachable) nothing is settled.
        let record = PendingSettlement {
            id: replay_id(&key),
            route: request.route.to_owned(),
            payload: payload.clone(),
            requirements: requirements.clone(),
            recorded_at: unix_now(),
            expires_at,
            paid_answer: claim.as_ref().map(|claim| PendingAnswer {
                key: claim.key.clone(),
                record: PaidAnswerRecord {
                    state: PaidAnswerState::SettlementUnknown,
                    ..claim.record.clone()
                },
            }),
        };
        if let Err(e) = self.pending.record(&record).await {
            warn!(error = %e, "the pending settlement could not be recorded; not settling");
            guard.release().await;
            return (
                "state_unavailable",
                state_unavailable_error().into_response(),
            );
        }
        // The settlement runs on its own task and records its outcome itself (with the answer,
        // for repeats of a payment id), so a client leaving now cannot cut it in half, nor lose
        // the answer it paid for.
        let claim = guard.hand_over();
        let settlement = {
            let facilitator = facilitator.clone();
            let replay = self.replay.clone();
            let pending = self.pending.clone();
            let answers = self.answers.clone();
            let requirements = requirements.clone();
            let kept =
                claim.map(|claim| (claim, parts.status, parts.headers.clone(), body.clone()));
            let signer = self.offer_signer.clone();
            let resource_url = request.offer.resource.url.clone();
            tokio::spawn(async move {
                let outcome = facilitator
                    .settle(&payload, &requirements)
                    .await
                    .map(|settled| {
                        if settled.success {
                            // Signed once, so a repeat of a payment id gets the same receipt.
                            Self::with_signed_receipt(
                                signer.as_deref(),
                                &resource_url,
                                key.from,
                                settled,
                            )
                        } else {
                            settled
                        }
                    });
                // A settlement the facilitator calls pending may still land: like an unknown
                // outcome, it is left to the resolver.
                let unknown = match &outcome {
                    Ok(settled) => {
                        !settled.success
                            && settled.error_reason.as_deref() == Some(reasons::SETTLEMENT_PENDING)
                    }
                    Err(FacilitatorError::SettlementUnknown(_)) => true,
                    Err(_) => false,
                };
                let settled = matches!(&outcome, Ok(settled) if settled.success);
                if unknown {
                    // Nobody knows yet whether it landed: the authorization stays locked as in
                    // flight and the record stays for the pending resolver, which asks the
                    // facilitator later and either marks it settled (reported, never settled
                    // again) or releases it. (Marked settled here, the resolver could never
                    // release it: a release frees only a lock in flight.)
                    info!(
                        id = record.id,
                        "settlement outcome unknown; left pending for the resolver"
                    );
                    if let Some(paid) = &record.paid_answer {
                        // The answer is kept beside the doubt: once the resolver finds that the
                        // transfer landed, a repeat of the id gets what was paid for.
                        let unknown = match kept {
                            Some((_, status, headers, body)) => PaidAnswer {
                                record: PaidAnswerRecord {
                                    state: PaidAnswerState::SettlementUnknownKept {
                                        status: status.as_u16(),
                                        headers: kept_headers(&headers),
                                        transaction: outcome
                                            .as_ref()
                                            .map(|settled| settled.transaction.clone())
                                            .unwrap_or_default(),
                                    },
                                    ..paid.record.clone()
                                },
                                body,
                            },
                            None => PaidAnswer::without_body(paid.record.clone()),
                        };
                        if let Err(e) = answers.finish(&paid.key, unknown, "", kept_until).await {
                            // It stays `working`: repeats wait, then hear it is in progress.
                            warn!(error = %e, "a payment id's unknown settlement could not be recorded");
                        }
                    }
                } else if let (true, Ok(receipt)) = (settled, &outcome) {
                    replay.mark_settled(key).await;
                    if let Err(e) = answers
                        .record_settlement(&record.id, &receipt.transaction, kept_until)
                        .await
                    {
                        // A repeat without a payment id is then told it paid, without the hash.
                        warn!(error = %e, "a settlement's transaction could not be recorded");
                    }
                    if let Some((claim, status, mut headers, body)) = kept {
                        if let Ok(Ok(value)) = encode_header(receipt).map(HeaderValue::try_from) {
                            headers.insert(PAYMENT_RESPONSE, value);
                        }
                        let answer = PaidAnswer {
                            record: PaidAnswerRecord {
                                state: PaidAnswerState::Answered {
                                    status: status.as_u16(),
                                    headers: kept_headers(&headers),
                                },
                                ..claim.record
                            },
                            body,
                        };
                        if let Err(e) = answers
                            .finish(&claim.key, answer, &receipt.transaction, kept_until)
                            .await
                        {
                            // It stays `working`: repeats wait, then find the authorization
                            // settled and are told so (409, charged).
                            warn!(error = %e, "a payment id's answer could not be kept");
                        }
                    }
                } else {
                    replay.release(key).await;
                    if let Some((claim, ..)) = kept
                        && let Err(e) = answers.abandon(&claim.key, &claim.record).await
                    {
                        warn!(error = %e, "a payment id could not be freed");
                    }
                }
                if !unknown && let Err(e) = pending.clear(&record.id).await {
                    // The outcome is recorded: the record may go. Should this fail, a later
                    // scan finds the authorization spent (or free) and clears it then.
                    warn!(error = %e, "a pending settlement record could not be cleared");
                }
                outcome
            })
        };
        let outcome = settlement.await.unwrap_or_else(|e| {
            Err(FacilitatorError::SettlementUnknown(format!(
                "the settlement task failed: {e}"
            )))
        });
        let settled = match outcome {
            Ok(settled) => settled,
            Err(FacilitatorError::SettlementUnknown(detail)) => {
                warn!(error = %detail, "settlement outcome unknown; the authorization stays locked");
                metrics::counter!("settlement_unknown_total", "route" => request.route)
                    .increment(1);
                // It may have been paid: not a failure of the payer.
                guard.succeeded();
                return ("settlement_unknown", self.settlement_unknown());
            }
            Err(e) => {
                warn!(error = %e, "facilitator settle failed");
                metrics::counter!("facilitator_failures_total", "call" => "settle").increment(1);
                return ("facilitator_unreachable", unreachable(&e.to_string()));
            }
        };
        if !settled.success {
            let reason = settled
                .error_reason
                .clone()
                .unwrap_or_else(|| "settlement_failed".to_owned());
            warn!(reason, "settlement failed");
            metrics::counter!("settlement_failures_total", "reason" => metric_reason(&reason))
                .increment(1);
            if reason == reasons::SETTLEMENT_PENDING {
                // Broadcast, not yet confirmed: never a 402 (the client would sign a second
                // authorization and might pay twice).
                guard.succeeded();
                let mut response = self.settlement_pending(&settled.transaction);
                insert_receipt(&mut response, &settled);
                return ("settlement_pending", response);
            }
            let mut response = self.payment_required_response(request, &reason);
            insert_receipt(&mut response, &settled);
            return ("settlement_failed", response);
        }
        guard.succeeded();
        info!(transaction = %settled.transaction, "settled");
        let mut response = Response::from_parts(parts, Body::from(body));
        insert_receipt(&mut response, &settled);
        ("paid", response)
    }

    fn replay_key(&self, payload: &x402_core::PaymentPayload) -> Option<(ReplayKey, U256)> {
        let signed = SignedAuthorization::from_payload_value(&payload.payload).ok()?;
        let auth = signed.authorization;
        // The network the payment chose (one of ours: it matched an entry of `accepts`).
        let key = ReplayKey {
            chain_id: x402_core::terms::chain_id_of(&payload.accepted.network)
                .unwrap_or(self.chain_id),
            asset: payload.accepted.asset.parse().ok()?,
            from: auth.from,
            nonce: auth.nonce,
        };
        Some((key, auth.validBefore))
    }
}

/// The 503 of a payment whose shared state failed.
fn state_failed(error: &StateError) -> (&'static str, Response) {
    warn!(error = %error, "shared state unavailable; refusing the payment");
    (
        "state_unavailable",
        state_unavailable_error().into_response(),
    )
}

/// Owns a request's authorization from the replay lock on, and its payment id from its claim
/// on. Dropped on every way out, the handler's future included: it cancels the work's token,
/// frees the payer's slot (and gives back the payer's failure unit if the request was paid),
/// and releases the authorization and the payment id unless the settlement task has taken
/// them over.
struct WorkGuard {
    replay: Arc<dyn ReplayGuard>,
    answers: Arc<dyn PaidAnswers>,
    key: ReplayKey,
    cancel: CancellationToken,
    /// Whether this request holds the authorization's lock (false once handed over).
    locked: bool,
    /// The payment id bound to this request, until handed over.
    claim: Option<Claim>,
    payer: Option<PayerHold>,
}

impl WorkGuard {
    /// Releases the authorization and the payment id now (unsettled), awaiting them.
    async fn release(&mut self) {
        if std::mem::take(&mut self.locked) {
            self.replay.release(self.key).await;
        }
        // After the lock: a copy waiting on the id finds the authorization free.
        self.abandon_claim().await;
    }

    /// Frees the payment id now (nothing was charged).
    async fn abandon_claim(&mut self) {
        if let Some(claim) = self.claim.take()
            && let Err(e) = self.answers.abandon(&claim.key, &claim.record).await
        {
            // It then stays `working` until `validBefore`: its repeats hear "in progress".
            warn!(error = %e, "a payment id could not be freed");
        }
    }

    /// The settlement task takes the authorization and the payment id over.
    fn hand_over(&mut self) -> Option<Claim> {
        self.locked = false;
        self.claim.take()
    }

    /// The request was paid, or may have been: not held against the payer.
    fn succeeded(&mut self) {
        if let Some(payer) = &mut self.payer {
            payer.succeeded();
        }
    }
}

impl Drop for WorkGuard {
    fn drop(&mut self) {
        self.cancel.cancel();
        if !self.locked && self.claim.is_none() {
            return;
        }
        // Abandoned mid-work (the client went away): the authorization was not charged, so an
        // honest retry must find it free. Drop cannot await; the release runs on its own.
        let replay = self.replay.clone();
        let answers = self.answers.clone();
        let key = self.key;
        let locked = std::mem::take(&mut self.locked);
        if locked {
            metrics::counter!("paid_requests_abandoned_total").increment(1);
        }
        let claim = self.claim.take();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if locked {
                        replay.release(key).await;
                    }
                    if let Some(claim) = claim
                        && let Err(e) = answers.abandon(&claim.key, &claim.record).await
                    {
                        warn!(error = %e, "a payment id could not be freed");
                    }
                });
            }
            Err(_) => warn!("an abandoned authorization could not be released: no runtime"),
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The 503 `state_unavailable` of a payment refused because the shared state is unreachable.
fn state_unavailable_error() -> ApiError {
    ApiError::new(
        ErrorCode::StateUnavailable,
        "the service's shared state is unavailable, so the payment cannot be taken safely; \
         nothing was charged and no work was done. Retry shortly.",
    )
}

/// A 429 `too_many_unpaid` with `Retry-After`.
fn too_many_error(retry_after: u64, message: &str) -> ApiError {
    let mut error = ApiError::new(ErrorCode::TooManyUnpaid, message);
    error.retry_after = Some(retry_after.max(1));
    error
}

fn too_many(retry_after: u64, message: &str) -> Response {
    too_many_error(retry_after, message).into_response()
}

fn payment_header(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(PAYMENT_SIGNATURE)
        .or_else(|| headers.get(X_PAYMENT))
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.trim().is_empty())
}

fn insert_receipt(response: &mut Response, settled: &SettleResponse) {
    if let Ok(Ok(value)) = encode_header(settled).map(HeaderValue::try_from) {
        response.headers_mut().insert(PAYMENT_RESPONSE, value);
    }
}

/// A facilitator's reason as a metric label: known reasons as they are, anything else `other`,
/// so a remote facilitator cannot grow the label set without bound.
fn metric_reason(reason: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        reasons::NONCE_ALREADY_USED,
        reasons::INSUFFICIENT_BALANCE,
        reasons::SIGNATURE,
        reasons::TRANSACTION_FAILED,
        reasons::TRANSFER_EVENT_MISMATCH,
        reasons::SETTLEMENT_PENDING,
        reasons::SIMULATION_FAILED,
        reasons::VALID_BEFORE,
    ];
    KNOWN
        .iter()
        .find(|known| **known == reason)
        .copied()
        .unwrap_or("other")
}

fn unreachable(detail: &str) -> Response {
    ApiError::new(
        ErrorCode::CounterpartyUnreachable,
        format!("the payment facilitator could not be reached; nothing was charged ({detail})"),
    )
    .into_response()
}
