//! Repeats: a payment id already bound, an authorization already used, and the 409s they get.

use super::*;

/// A payment id bound to one request: its key (`{payer}:{id}`) and the record it was claimed
/// with.
#[derive(Debug, Clone)]
pub(super) struct Claim {
    pub(super) key: String,
    pub(super) record: PaidAnswerRecord,
}

/// How a repeat of a payment id proved that it comes from the payer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Proof {
    /// Not checked yet: it must carry the very signature that paid, or be verified.
    Signature,
    /// The facilitator verified it.
    Verified,
}

/// The field named by a 400 for a malformed payment id.
pub(super) const PAYMENT_ID_FIELD: &str = "PAYMENT-SIGNATURE.extensions.payment-identifier.info.id";

/// SHA-256 (hex) of the signed authorization: equal only for the same signature over the same
/// authorization.
pub(super) fn authorization_digest(payload: &PaymentPayload) -> String {
    alloy::hex::encode(Sha256::digest(payload.payload.to_string().as_bytes()))
}

/// The headers of an answer worth giving a repeat: all but those describing one transfer of it.
pub(super) fn kept_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| {
            ![
                header::CONTENT_LENGTH,
                header::TRANSFER_ENCODING,
                header::DATE,
            ]
            .contains(name)
        })
        .filter_map(|(name, value)| {
            Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
        })
        .collect()
}

/// A kept answer as it was first sent.
pub(super) fn kept_response(status: u16, headers: &[(String, String)], body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            response.headers_mut().append(name, value);
        }
    }
    response
}

impl PaymentGate {
    /// The answer to a repeat of a payment id whose entry is `held`: 409 for another request;
    /// for the same one, once the first has an outcome (this waits while it works), its kept
    /// answer, or 409 saying it was charged (answer not kept) or may be (outcome unknown).
    /// `None` when the first gave the id up meanwhile (its work failed: nothing was charged),
    /// so this request may take it.
    pub(super) async fn repeat(
        &self,
        request: &PaidRequest,
        payload: &PaymentPayload,
        claim: &Claim,
        mut held: PaidAnswer,
        proof: Proof,
    ) -> Option<(&'static str, Response)> {
        if held.record.fingerprint != claim.record.fingerprint {
            metrics::counter!("payment_id_conflicts_total").increment(1);
            return Some(("payment_id_conflict", payment_id_conflict()));
        }
        if proof == Proof::Signature && held.record.authorization != claim.record.authorization {
            // Another authorization with the same id: the answer goes to the payer only, which
            // verification proves. This authorization is never settled: it stays the payer's.
            let requirements = self
                .accepts(&request.offer.requirements)
                .into_iter()
                .find(|ours| accepted_matches(&payload.accepted, ours))
                .unwrap_or_else(|| request.offer.requirements.clone());
            match self
                .facilitator_for(&requirements.network)
                .verify(payload, &requirements)
                .await
            {
                Ok(verdict) if verdict.is_valid => {}
                Ok(verdict) => {
                    let reason = verdict
                        .invalid_reason
                        .unwrap_or_else(|| "invalid_payment".to_owned());
                    return Some(self.payment_required(request, &reason));
                }
                Err(e) => {
                    warn!(error = %e, "facilitator verify failed");
                    return Some(("facilitator_unreachable", unreachable(&e.to_string())));
                }
            }
        }
        // The first request is still at work or settling: wait for its outcome, as long as it
        // can take (its budget and the settlement), polling the shared state so that a copy on
        // another replica is followed too.
        let deadline = Instant::now() + request.budget + self.limits.settle_reserve * 2;
        let mut pause = Duration::from_millis(20);
        while held.record.state == PaidAnswerState::Working {
            if Instant::now() >= deadline {
                return Some(("reused", in_progress()));
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(250));
            match self.answers.get(&claim.key).await {
                Ok(Some(now)) => held = now,
                Ok(None) => return None,
                Err(e) => return Some(state_failed(&e)),
            }
        }
        metrics::counter!("payment_id_repeats_total").increment(1);
        Some(match held.record.state {
            PaidAnswerState::Answered { status, headers } => {
                info!("a repeat of a payment id answered with its kept answer");
                ("repeated", kept_response(status, &headers, held.body))
            }
            PaidAnswerState::SettledNotKept { transaction } => {
                let payer = self.replay_key(payload).map(|(key, _)| key.from);
                (
                    "reused",
                    already_charged(&payload.accepted.network, &transaction, payer, true),
                )
            }
            _ => ("reused", settlement_in_doubt()),
        })
    }

    /// What a payment id already bound leads to, before verification: the answer of the
    /// request that bound it (waited for while it works), or a conflict; `None` when the id is
    /// free (or its first request gave up, nothing charged).
    pub(super) async fn follow_payment_id(
        &self,
        request: &PaidRequest,
        payload: &PaymentPayload,
        claim: &Claim,
    ) -> Option<(&'static str, Response)> {
        match self.answers.get(&claim.key).await {
            Ok(Some(held)) => {
                self.repeat(request, payload, claim, held, Proof::Signature)
                    .await
            }
            Ok(None) => None,
            Err(e) => Some(state_failed(&e)),
        }
    }

    /// The answer to a payment whose authorization `key` is `held` (in flight, or settled):
    /// 409 `authorization_reused`, charged (with the transaction when known) or maybe charged;
    /// never a 402, which would have the client sign a second authorization.
    pub(super) async fn reused(
        &self,
        network: &str,
        key: ReplayKey,
        held: ReplayError,
    ) -> (&'static str, Response) {
        metrics::counter!("authorizations_reused_total").increment(1);
        if held != ReplayError::Settled {
            return ("reused", in_progress());
        }
        let transaction = match self.answers.settlement(&replay_id(&key)).await {
            Ok(transaction) => transaction.unwrap_or_default(),
            Err(e) => {
                warn!(error = %e, "a settlement's transaction could not be looked up");
                String::new()
            }
        };
        (
            "reused",
            already_charged(network, &transaction, Some(key.from), false),
        )
    }
}

/// 409 `payment_id_conflict`: the id bought an answer to another request.
pub(super) fn payment_id_conflict() -> Response {
    ApiError::new(
        ErrorCode::PaymentIdConflict,
        "this payment id was used for another request (another method, path or body); nothing \
         was charged for this one. Use a new payment id for a new request.",
    )
    .into_response()
}

/// 409 `authorization_reused`, `charged: null`: the authorization is in use by a request still
/// at work or settling.
pub(super) fn in_progress() -> Response {
    ApiError::new(
        ErrorCode::AuthorizationReused,
        "this authorization is in use by a request that is still being served or settled; it \
         may be charged, once. Do not sign a new one for the same request: retry this one \
         later (with a payment-identifier the answer is returned once it is paid).",
    )
    .into_uncertain_response()
}

/// 409 `authorization_reused`, `charged: null`: the settlement was sent and its outcome is
/// unknown.
pub(super) fn settlement_in_doubt() -> Response {
    ApiError::new(
        ErrorCode::AuthorizationReused,
        "this payment's settlement was sent and its outcome is not known yet; it may still \
         settle, once. The answer is withheld and this authorization buys no second one; if no \
         transfer appears on chain, pay again with a new authorization.",
    )
    .into_uncertain_response()
}

/// 409 `authorization_reused`, `charged: true`: the authorization paid for an earlier answer
/// (whose transaction is `transaction`, empty when unknown), with a `PAYMENT-RESPONSE` receipt
/// when the transaction is known.
pub(super) fn already_charged(
    network: &str,
    transaction: &str,
    payer: Option<alloy::primitives::Address>,
    answer_too_large: bool,
) -> Response {
    let paid = if transaction.is_empty() {
        "this authorization was already charged for an earlier answer".to_owned()
    } else {
        format!(
            "this authorization was already charged for an earlier answer in transaction {transaction}"
        )
    };
    let why = if answer_too_large {
        "; that answer was too large to keep for repeats"
    } else {
        ""
    };
    let mut response = ApiError::new(
        ErrorCode::AuthorizationReused,
        format!(
            "{paid}{why}. It is not charged again and buys no second answer; to get one, send a \
             new authorization (with a payment-identifier, repeats of a request are answered \
             without paying again)."
        ),
    )
    .into_charged_response();
    if !transaction.is_empty() {
        let receipt = SettleResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: payer.map(|payer| payer.to_checksum(None)),
            transaction: transaction.to_owned(),
            network: network.to_owned(),
            extensions: None,
        };
        insert_receipt(&mut response, &receipt);
    }
    response
}
