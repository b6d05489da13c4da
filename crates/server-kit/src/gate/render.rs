//! The 402: rendering the terms (with signed offers) into the header official clients read
//! and the body agents read, and the rendered no-payment 402s kept for reuse.

use super::*;

/// How often signed offers are renewed: an offer's `validUntil` counts from the start of the
/// minute it is signed in, so one rendering of a 402 serves a whole minute.
pub(super) const OFFER_RENEWAL_SECONDS: u64 = 60;

/// The 402s to requests without a payment, rendered, by everything that goes into them.
///
/// It is the answer a paid route gives most (every x402 client sends its request unpaid
/// first), and for one route, price and host it is the same bytes every time, while
/// rendering it (the route's schema twice, once in base64) was most of its cost. Only the
/// no-payment 402 is kept: its reason is fixed, so the keys are routes × prices × hosts. The
/// host comes from the client (`Host`, without a configured public URL), so the map is
/// emptied when it holds [`MAX_RENDERED_402S`].
#[derive(Debug, Default)]
pub(super) struct Rendered402s(std::sync::Mutex<std::collections::HashMap<String, Rendered402>>);

/// Most rendered 402s kept at once.
pub(super) const MAX_RENDERED_402S: usize = 1024;

#[derive(Debug, Clone)]
pub(super) struct Rendered402 {
    body: axum::body::Bytes,
    header: HeaderValue,
    /// The schema and extension the key names by address, held so that no other value can
    /// take that address while the entry lives.
    _shared: (Arc<Value>, Option<Arc<Value>>),
}

impl Rendered402s {
    /// The 402 of `request` without a payment: rendered before, or now. Signed offers are
    /// renewed each minute (their `validUntil` counts from the minute's start), so a rendered
    /// 402 serves its minute only.
    pub(super) fn answer(&self, request: &PaidRequest, gate: &PaymentGate) -> Response {
        let now = unix_now();
        let signer = gate.offer_signer.as_deref();
        let Some(mut key) = Self::key(request) else {
            return gate.payment_required_response(request, PAYMENT_REQUIRED_REASON);
        };
        if signer.is_some() {
            key.push_str(&format!("|{}", now / OFFER_RENEWAL_SECONDS));
        }
        let known = self
            .0
            .lock()
            .ok()
            .and_then(|rendered| rendered.get(&key).cloned());
        if let Some(known) = known {
            return payment_required_parts(known.body, known.header);
        }
        // The accepted entries are made only on a miss: a hit is the hot path.
        let accepts = gate.accepts(&request.offer.requirements);
        let (body, header) =
            match render_402(request, PAYMENT_REQUIRED_REASON, signer, now, &accepts) {
                Ok(rendered) => rendered,
                Err(error) => return error.into_response(),
            };
        if let Ok(mut rendered) = self.0.lock() {
            if rendered.len() >= MAX_RENDERED_402S {
                rendered.clear();
            }
            rendered.insert(
                key,
                Rendered402 {
                    body: body.clone(),
                    header: header.clone(),
                    _shared: (request.input_schema.clone(), request.offer.bazaar.clone()),
                },
            );
        }
        payment_required_parts(body, header)
    }

    /// Everything the 402 is made of: the route, the resource, the requirement and the extra
    /// body members as JSON, and the shared schema and extension by address.
    pub(super) fn key(request: &PaidRequest) -> Option<String> {
        let offer = &request.offer;
        let mut key = serde_json::to_string(&(
            request.route,
            &offer.resource,
            &offer.requirements,
            &request.extra_402_body,
        ))
        .ok()?;
        key.push_str(&format!(
            "|{:p}|{:?}",
            Arc::as_ptr(&request.input_schema),
            offer.bazaar.as_ref().map(Arc::as_ptr)
        ));
        Some(key)
    }
}

/// Builds the 402 for a request: the header official clients read, the body agents read; with
/// `signer`, each accepted entry comes with its signed offer.
pub(super) fn payment_required_response(
    request: &PaidRequest,
    reason: &str,
    signer: Option<&OfferReceiptSigner>,
    accepts: &[PaymentRequirements],
) -> Response {
    match render_402(request, reason, signer, unix_now(), accepts) {
        Ok((body, header)) => payment_required_parts(body, header),
        Err(error) => error.into_response(),
    }
}

/// The 402's body and `PAYMENT-REQUIRED` header, serialised from borrowed views of the offer
/// (nothing of the route's schema is copied).
pub(super) fn render_402(
    request: &PaidRequest,
    reason: &str,
    signer: Option<&OfferReceiptSigner>,
    now: u64,
    accepts: &[PaymentRequirements],
) -> Result<(axum::body::Bytes, HeaderValue), ApiError> {
    /// The 402 body: the terms' core members, the route's description and input schema, and
    /// the route's extra members (the document routes' itemised price).
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Body402<'a> {
        x402_version: u32,
        error: &'a str,
        description: Option<&'a str>,
        input_schema: &'a Value,
        accepts: &'a [&'a x402_core::PaymentRequirements],
        extensions: BodyExtensions<'a>,
        #[serde(flatten)]
        extra: &'a Map<String, Value>,
    }
    /// The extensions a client acts on; `bazaar` (discovery) stays in the header, the body has
    /// `inputSchema`.
    #[derive(serde::Serialize)]
    struct BodyExtensions<'a> {
        #[serde(rename = "payment-identifier")]
        payment_identifier: &'a Value,
        #[serde(rename = "offer-receipt", skip_serializing_if = "Option::is_none")]
        offer_receipt: Option<&'a Value>,
    }
    let not_encoded = || ApiError::new(ErrorCode::Internal, "terms could not be encoded");
    let mut required = request
        .offer
        .payment_required_ref_with(reason, accepts.iter().collect());
    let offers = match signer {
        Some(signer) => {
            let valid_until =
                (now - now % OFFER_RENEWAL_SECONDS).saturating_add(signer.offer_validity_seconds());
            let offers = signer
                .offers(&request.offer.resource.url, &required.accepts, valid_until)
                .map_err(|e| {
                    warn!(error = %e, "an offer could not be signed");
                    not_encoded()
                })?;
            Some(offers)
        }
        None => None,
    };
    required.extensions.offer_receipt = offers.as_ref();
    let body = Body402 {
        x402_version: required.x402_version,
        error: reason,
        description: request.offer.resource.description.as_deref(),
        input_schema: &request.input_schema,
        accepts: &required.accepts,
        extensions: BodyExtensions {
            payment_identifier: &OPTIONAL_DECLARATION,
            offer_receipt: offers.as_ref(),
        },
        extra: &request.extra_402_body,
    };
    let body = serde_json::to_vec(&body).map_err(|_| not_encoded())?;
    let header = encode_header(&required).map_err(|_| not_encoded())?;
    let header = HeaderValue::try_from(header).map_err(|_| not_encoded())?;
    Ok((body.into(), header))
}

pub(super) fn payment_required_parts(body: axum::body::Bytes, terms: HeaderValue) -> Response {
    (
        StatusCode::PAYMENT_REQUIRED,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (header::HeaderName::from_static(PAYMENT_REQUIRED), terms),
        ],
        body,
    )
        .into_response()
}
