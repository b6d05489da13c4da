//! The payment gate: DESIGN.md §2 steps 3 to 7 around a route's work.
//!
//! The route has already validated its input and priced it (steps 1-2), so every 402 names the
//! exact terms of this request. The gate then: answers 402 without a payment header (429 past
//! the unpaid allowance); decodes and matches `accepted`; verifies through the facilitator;
//! takes the replay lock; runs the work inside the time budget; and settles only a successful
//! answer, which it buffers until the settlement is known.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, to_bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info, warn};
use x402_core::eip3009::SignedAuthorization;
use x402_core::terms::{NO_MATCHING_REQUIREMENTS, PAYMENT_REQUIRED_REASON};
use x402_core::v1::AnyPaymentPayload;
use x402_core::{
    Facilitator, Offer, PaymentPayload, ReplayError, ReplayGuard, ReplayKey, SettleResponse,
    accepted_matches, encode_header, reasons,
};

use crate::error::{ApiError, ErrorCode};
use crate::limiter::UnpaidLimiter;

/// Header carrying the v2 payment.
pub const PAYMENT_SIGNATURE: &str = "payment-signature";
/// Header carrying a v1 payment.
pub const X_PAYMENT: &str = "x-payment";
/// Header carrying the terms on a 402.
pub const PAYMENT_REQUIRED: &str = "payment-required";
/// Header carrying the settlement receipt.
pub const PAYMENT_RESPONSE: &str = "payment-response";

/// Largest successful answer the gate buffers before settling.
const MAX_BUFFERED_ANSWER: usize = 64 * 1024 * 1024;

/// What the gate needs from the server: facilitator, replay guard, limiter.
#[derive(Debug, Clone)]
pub struct PaymentGate {
    facilitator: Arc<dyn Facilitator>,
    replay: Arc<dyn ReplayGuard>,
    limiter: Arc<UnpaidLimiter>,
    chain_id: u64,
}

/// One request to a paid route, priced.
#[derive(Debug, Clone)]
pub struct PaidRequest {
    /// The route, for logs and metrics (`/dex/quote`).
    pub route: &'static str,
    /// The request headers (payment headers are read from here).
    pub headers: HeaderMap,
    /// The client's address, for the unpaid limiter.
    pub client: IpAddr,
    /// The terms for this exact request.
    pub offer: Offer,
    /// The route's input JSON Schema, for the 402 body.
    pub input_schema: Value,
    /// Extra members of the 402 body (the document routes' per-page price).
    pub extra_402_body: Map<String, Value>,
    /// The time budget of the work.
    pub budget: Duration,
}

impl PaymentGate {
    /// A gate settling through `facilitator` for `chain_id`.
    pub fn new(
        facilitator: Arc<dyn Facilitator>,
        replay: Arc<dyn ReplayGuard>,
        limiter: Arc<UnpaidLimiter>,
        chain_id: u64,
    ) -> Self {
        Self {
            facilitator,
            replay,
            limiter,
            chain_id,
        }
    }

    /// The facilitator behind the gate.
    pub fn facilitator(&self) -> &Arc<dyn Facilitator> {
        &self.facilitator
    }

    /// Runs steps 3-7 for `request`. `work` gets a token that is cancelled when the budget
    /// runs out; CPU-bound work should check it between units.
    pub async fn serve<W, F>(&self, request: PaidRequest, work: W) -> Response
    where
        W: FnOnce(CancellationToken) -> F,
        F: Future<Output = Result<Response, ApiError>> + Send,
    {
        let span = tracing::info_span!(
            "paid_request",
            route = request.route,
            price = %request.offer.requirements.amount,
            outcome = tracing::field::Empty,
        );
        let started = Instant::now();
        let (outcome, response) = self
            .serve_inner(&request, work)
            .instrument(span.clone())
            .await;
        span.record("outcome", outcome);
        metrics::counter!("paid_route_outcomes_total", "route" => request.route, "outcome" => outcome)
            .increment(1);
        metrics::histogram!("paid_route_seconds", "route" => request.route)
            .record(started.elapsed().as_secs_f64());
        response
    }

    async fn serve_inner<W, F>(&self, request: &PaidRequest, work: W) -> (&'static str, Response)
    where
        W: FnOnce(CancellationToken) -> F,
        F: Future<Output = Result<Response, ApiError>> + Send,
    {
        // 3. No payment: terms, or 429 past the allowance.
        let header = payment_header(&request.headers);
        let Some(header) = header else {
            return self.unpaid(request, PAYMENT_REQUIRED_REASON);
        };

        // 4. Decode, match, verify.
        let offered = std::slice::from_ref(&request.offer.requirements);
        let payload = match AnyPaymentPayload::decode(header) {
            Ok(decoded) => decoded.into_v2(offered),
            Err(e) => return self.unpaid(request, &format!("Invalid payment header: {e}")),
        };
        let Some(payload) =
            payload.filter(|p| accepted_matches(&p.accepted, &request.offer.requirements))
        else {
            return self.unpaid(request, NO_MATCHING_REQUIREMENTS);
        };
        let requirements = &request.offer.requirements;
        match self.facilitator.verify(&payload, requirements).await {
            Ok(verdict) if verdict.is_valid => {}
            Ok(verdict) => {
                let reason = verdict
                    .invalid_reason
                    .unwrap_or_else(|| "invalid_payment".to_owned());
                info!(reason, "payment refused by verification");
                return self.unpaid(request, &reason);
            }
            Err(e) => {
                warn!(error = %e, "facilitator verify failed");
                metrics::counter!("facilitator_failures_total", "call" => "verify").increment(1);
                return ("facilitator_unreachable", unreachable(&e.to_string()));
            }
        }

        // 5. One authorization, one answer.
        let Some((key, valid_before)) = self.replay_key(&payload) else {
            return self.unpaid(request, reasons::INVALID_PAYLOAD);
        };
        match self.replay.acquire(key, valid_before).await {
            Ok(()) => {}
            Err(ReplayError::InFlight | ReplayError::Settled) => {
                return (
                    "replayed",
                    payment_required_response(request, reasons::NONCE_ALREADY_USED),
                );
            }
        }

        // 6. The work, inside the budget.
        let cancel = CancellationToken::new();
        let answer = match tokio::time::timeout(request.budget, work(cancel.clone())).await {
            Ok(Ok(response)) if response.status().is_success() => response,
            Ok(Ok(response)) => {
                self.replay.release(key).await;
                return ("work_failed", response);
            }
            Ok(Err(error)) => {
                self.replay.release(key).await;
                return ("work_failed", error.into_response());
            }
            Err(_) => {
                cancel.cancel();
                self.replay.release(key).await;
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
                self.replay.release(key).await;
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

        // 7. Settle; only then does the answer leave.
        let settled = match self.facilitator.settle(&payload, requirements).await {
            Ok(settled) => settled,
            Err(e) => {
                warn!(error = %e, "facilitator settle failed");
                metrics::counter!("facilitator_failures_total", "call" => "settle").increment(1);
                self.replay.release(key).await;
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
            // A pending settlement may still land: keep the authorization locked.
            if reason == reasons::SETTLEMENT_PENDING {
                self.replay.mark_settled(key).await;
            } else {
                self.replay.release(key).await;
            }
            let mut response = payment_required_response(request, &reason);
            insert_receipt(&mut response, &settled);
            return ("settlement_failed", response);
        }
        self.replay.mark_settled(key).await;
        info!(transaction = %settled.transaction, "settled");
        let mut response = Response::from_parts(parts, Body::from(body));
        insert_receipt(&mut response, &settled);
        ("paid", response)
    }

    fn replay_key(&self, payload: &PaymentPayload) -> Option<(ReplayKey, u64)> {
        let signed = SignedAuthorization::from_payload_value(&payload.payload).ok()?;
        let auth = signed.authorization;
        let key = ReplayKey {
            chain_id: self.chain_id,
            asset: payload.accepted.asset.parse().ok()?,
            from: auth.from,
            nonce: auth.nonce,
        };
        Some((key, u64::try_from(auth.validBefore).unwrap_or(u64::MAX)))
    }

    /// Counts an unpaid request and answers 402, or 429 past the allowance.
    fn unpaid(&self, request: &PaidRequest, reason: &str) -> (&'static str, Response) {
        if let Err(retry_after) = self.limiter.check(request.client) {
            let mut error = ApiError::new(
                ErrorCode::TooManyUnpaid,
                format!("too many unpaid requests from this address; retry in {retry_after} s"),
            );
            error.retry_after = Some(retry_after);
            return ("too_many_unpaid", error.into_response());
        }
        (
            "payment_required",
            payment_required_response(request, reason),
        )
    }
}

/// Builds the 402 for a request: the header official clients read, the body agents read.
pub fn payment_required_response(request: &PaidRequest, reason: &str) -> Response {
    let required = request.offer.payment_required(reason);
    let mut body = Map::new();
    body.insert("x402Version".into(), json!(required.x402_version));
    body.insert("error".into(), json!(reason));
    body.insert(
        "description".into(),
        json!(request.offer.resource.description),
    );
    body.insert("inputSchema".into(), request.input_schema.clone());
    body.insert("accepts".into(), json!(required.accepts));
    for (key, value) in &request.extra_402_body {
        body.insert(key.clone(), value.clone());
    }
    let mut response = (
        StatusCode::PAYMENT_REQUIRED,
        axum::Json(Value::Object(body)),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    match encode_header(&required).map(HeaderValue::try_from) {
        Ok(Ok(value)) => {
            headers.insert(PAYMENT_REQUIRED, value);
        }
        _ => {
            return ApiError::new(ErrorCode::Internal, "terms could not be encoded")
                .into_response();
        }
    }
    response
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
