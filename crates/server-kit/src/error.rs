//! The one error body both services answer with (docs/payments.md). Nothing that fails is charged,
//! so `charged` is false, with two exceptions: a settlement whose outcome the gate cannot know
//! (see [`ApiError::into_uncertain_response`]) answers `charged: null`, and a repeat of an
//! authorization that was settled already (409 `authorization_reused`,
//! [`ApiError::into_charged_response`]) answers `charged: true`: that authorization paid, once,
//! for an earlier answer.
//!
//! Every message and detail is scrubbed of URL credentials on its way out
//! ([`x402_core::scrub_text`]), whatever error it was built from.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// The `error` codes of the error body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request does not match the route's schema or rules (400).
    InvalidInput,
    /// The protocol or DEX asked for is not supported (400).
    UnsupportedProtocol,
    /// Body, file or image over the limit (413).
    PayloadTooLarge,
    /// Past the unpaid-request allowance (429).
    TooManyUnpaid,
    /// A chain node, facilitator or data source could not be reached (502).
    CounterpartyUnreachable,
    /// The work ran out of time (504).
    TimeBudgetExceeded,
    /// A document could not be read (422).
    ExtractionFailed,
    /// OCR found nothing (422).
    EmptyRecognition,
    /// No DEX gave a quote for the pair (422): an empty answer, never charged.
    NoRoute,
    /// No source has a USD price for the asset on the chain (422): an empty answer, never
    /// charged.
    NoPrice,
    /// The pool named is not a pool of a factory the service reads, or the DEX holds no pool
    /// for the pair (422): never charged.
    UnknownPool,
    /// A pool symbol names several pools of the yield directory (422): the details list the
    /// candidates; never charged.
    AmbiguousPool,
    /// The yield directory lists no pool of that protocol on that chain with that id or
    /// symbol (422): never charged.
    PoolNotFound,
    /// A URL points somewhere it must not (400).
    UrlRefused,
    /// A valid, paid route whose work is not built yet (501).
    NotImplemented,
    /// The shared state (Redis) cannot be reached, so a payment cannot be taken safely (503).
    StateUnavailable,
    /// The workers could not finish the request inside its time budget behind the work already
    /// accepted (503, with `Retry-After`): refused before the payment is verified.
    Busy,
    /// A payment id already bought an answer to another request (another method, path or
    /// body) (409): never charged.
    PaymentIdConflict,
    /// The authorization was settled already, or is in use by a request whose settlement may
    /// still take it (409): `charged` is true or null, never false; it is not worked on or
    /// settled again.
    AuthorizationReused,
    /// No route has this path (404).
    NotFound,
    /// The route exists but not for this method (405, with `Allow`).
    MethodNotAllowed,
    /// The payment's transfer was broadcast and is not confirmed yet (503, with `Retry-After`):
    /// `charged` is null; the answer is withheld until it is.
    SettlementPending,
    /// Anything else (500).
    Internal,
}

impl ErrorCode {
    /// Every code, in the order the OpenAPI error schema lists them.
    pub const ALL: [Self; 23] = [
        Self::InvalidInput,
        Self::UnsupportedProtocol,
        Self::PayloadTooLarge,
        Self::TooManyUnpaid,
        Self::CounterpartyUnreachable,
        Self::TimeBudgetExceeded,
        Self::ExtractionFailed,
        Self::EmptyRecognition,
        Self::NoRoute,
        Self::NoPrice,
        Self::UnknownPool,
        Self::AmbiguousPool,
        Self::PoolNotFound,
        Self::UrlRefused,
        Self::NotImplemented,
        Self::StateUnavailable,
        Self::Busy,
        Self::PaymentIdConflict,
        Self::AuthorizationReused,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::SettlementPending,
        Self::Internal,
    ];

    /// The status this code is answered with.
    pub fn status(self) -> StatusCode {
        match self {
            Self::InvalidInput | Self::UnsupportedProtocol | Self::UrlRefused => {
                StatusCode::BAD_REQUEST
            }
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::TooManyUnpaid => StatusCode::TOO_MANY_REQUESTS,
            Self::CounterpartyUnreachable => StatusCode::BAD_GATEWAY,
            Self::TimeBudgetExceeded => StatusCode::GATEWAY_TIMEOUT,
            Self::ExtractionFailed
            | Self::EmptyRecognition
            | Self::NoRoute
            | Self::NoPrice
            | Self::UnknownPool
            | Self::AmbiguousPool
            | Self::PoolNotFound => StatusCode::UNPROCESSABLE_ENTITY,
            Self::NotImplemented => StatusCode::NOT_IMPLEMENTED,
            Self::PaymentIdConflict | Self::AuthorizationReused => StatusCode::CONFLICT,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::StateUnavailable | Self::Busy | Self::SettlementPending => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidInput => "invalid_input",
            Self::UnsupportedProtocol => "unsupported_protocol",
            Self::PayloadTooLarge => "payload_too_large",
            Self::TooManyUnpaid => "too_many_unpaid",
            Self::CounterpartyUnreachable => "counterparty_unreachable",
            Self::TimeBudgetExceeded => "time_budget_exceeded",
            Self::ExtractionFailed => "extraction_failed",
            Self::EmptyRecognition => "empty_recognition",
            Self::NoRoute => "no_route",
            Self::NoPrice => "no_price",
            Self::UnknownPool => "unknown_pool",
            Self::AmbiguousPool => "ambiguous_pool",
            Self::PoolNotFound => "pool_not_found",
            Self::UrlRefused => "url_refused",
            Self::NotImplemented => "not_implemented",
            Self::StateUnavailable => "state_unavailable",
            Self::Busy => "busy",
            Self::PaymentIdConflict => "payment_id_conflict",
            Self::AuthorizationReused => "authorization_reused",
            Self::NotFound => "not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::SettlementPending => "settlement_pending",
            Self::Internal => "internal",
        }
    }
}

/// One problem with one input field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldProblem {
    /// Dotted path of the field (`scenarios_pct.2`), or `body` for the whole body.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

/// An error answer: code, message and optional per-field details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The error code (decides the status).
    pub code: ErrorCode,
    /// One sentence for a person.
    pub message: String,
    /// Per-field problems, for validation errors.
    pub details: Vec<FieldProblem>,
    /// Seconds to wait, for 429.
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Vec::new(),
            retry_after: None,
        }
    }

    /// A 400 naming fields; the message names the first.
    pub fn invalid_input(details: Vec<FieldProblem>) -> Self {
        let message = match details.first() {
            Some(first) => format!("{}: {}", first.field, first.problem),
            None => "invalid input".to_owned(),
        };
        Self {
            code: ErrorCode::InvalidInput,
            message,
            details,
            retry_after: None,
        }
    }

    /// A 400 for one field.
    pub fn invalid_field(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::invalid_input(vec![FieldProblem {
            field: field.into(),
            problem: problem.into(),
        }])
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.code.status()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ApiError {}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'static str,
    message: &'a str,
    charged: Option<bool>,
    #[serde(skip_serializing_if = "<[FieldProblem]>::is_empty")]
    details: &'a [FieldProblem],
}

impl ApiError {
    /// The answer for a failure after which the client may or may not have paid (a settlement
    /// sent but never answered): the same body with `charged: null` instead of `false`, so no
    /// client is told "not charged" when that is not known.
    pub fn into_uncertain_response(self) -> Response {
        self.respond(None)
    }

    /// The answer to a request whose authorization was charged already (a repeat of a settled
    /// one): the same body with `charged: true`. It tells the client that it paid, so that it
    /// does not pay again for the same request.
    pub fn into_charged_response(self) -> Response {
        self.respond(Some(true))
    }

    fn respond(self, charged: Option<bool>) -> Response {
        let message = x402_core::scrub_text(&self.message);
        let details: Vec<FieldProblem> = self
            .details
            .into_iter()
            .map(|detail| FieldProblem {
                field: detail.field,
                problem: x402_core::scrub_text(&detail.problem),
            })
            .collect();
        let body = ErrorBody {
            error: self.code.as_str(),
            message: &message,
            charged,
            details: &details,
        };
        let mut response = (self.code.status(), Json(body)).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.respond(Some(false))
    }
}

/// The JSON Schema of the error body, for OpenAPI.
pub fn error_body_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "required": ["error", "message", "charged"],
        "properties": {
            "error": {"type": "string", "enum": ErrorCode::ALL.map(ErrorCode::as_str)},
            "message": {"type": "string"},
            "charged": {
                "description": "false: nothing was charged. null only when a settlement was sent and its outcome is unknown, or the authorization is in use by a request still running (it may still land; the same authorization buys no second answer). true only on 409 authorization_reused: this authorization already paid for an earlier answer (not for this one).",
                "enum": [false, null, true]},
            "details": {"type": "array", "items": {
                "type": "object", "required": ["field", "problem"],
                "properties": {"field": {"type": "string"}, "problem": {"type": "string"}}}}
        }
    })
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file, environment or flags do not form a valid configuration.
    #[error("configuration is invalid: {0}")]
    Invalid(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_with_an_error_status() {
        let mut names: Vec<&str> = ErrorCode::ALL.map(ErrorCode::as_str).to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorCode::ALL.len());
        for code in ErrorCode::ALL {
            assert!(
                code.status().is_client_error() || code.status().is_server_error(),
                "{code:?}"
            );
        }
        let schema = error_body_schema();
        assert_eq!(
            schema["properties"]["error"]["enum"]
                .as_array()
                .map(Vec::len),
            Some(ErrorCode::ALL.len())
        );
    }
}
