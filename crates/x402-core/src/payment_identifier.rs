//! The x402 v2 `payment-identifier` extension (`specs/extensions/payment_identifier.md` in the
//! x402 repository): a client-chosen id that makes a paid request idempotent.
//!
//! The server declares it in `PaymentRequired.extensions["payment-identifier"]` as
//! `{"info": {"required": bool}, "schema": …}`; a client that supports it echoes that object in
//! `PaymentPayload.extensions` with `info.id` set (16 to 128 characters of `[A-Za-z0-9_-]`).
//! The id is not part of the signed authorization: it says which request a payment belongs to,
//! it proves nothing by itself.

use std::sync::LazyLock;

use serde_json::{Value, json};

use crate::types::PaymentPayload;

/// The extension's key in `extensions`.
pub const PAYMENT_IDENTIFIER: &str = "payment-identifier";

/// Shortest id the extension allows.
pub const MIN_ID_LEN: usize = 16;

/// Longest id the extension allows.
pub const MAX_ID_LEN: usize = 128;

/// The declaration of an optional identifier (`required: false`), built once: every 402 carries
/// it.
pub static OPTIONAL_DECLARATION: LazyLock<Value> = LazyLock::new(|| declaration(false));

/// The declaration for `PaymentRequired.extensions`: whether an id is required, and the JSON
/// Schema of `info` a client's id must meet.
pub fn declaration(required: bool) -> Value {
    json!({
        "info": {"required": required},
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "id": {
                    "type": "string",
                    "minLength": MIN_ID_LEN,
                    "maxLength": MAX_ID_LEN,
                    "pattern": "^[a-zA-Z0-9_-]+$"
                }
            },
            "required": ["id"]
        }
    })
}

/// Why a payment's identifier cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PaymentIdError {
    /// `extensions["payment-identifier"].info.id` is there but is not a string.
    #[error("extensions.payment-identifier.info.id must be a string")]
    NotAString,
    /// Shorter or longer than the extension allows.
    #[error(
        "extensions.payment-identifier.info.id must be {MIN_ID_LEN} to {MAX_ID_LEN} characters, not {0}"
    )]
    Length(usize),
    /// A character outside `[A-Za-z0-9_-]`.
    #[error("extensions.payment-identifier.info.id may contain only letters, digits, '-' and '_'")]
    Character,
}

/// Whether `id` is a valid identifier.
pub fn check_id(id: &str) -> Result<(), PaymentIdError> {
    // Characters first: once they are ASCII, bytes are characters.
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(PaymentIdError::Character);
    }
    if !(MIN_ID_LEN..=MAX_ID_LEN).contains(&id.len()) {
        return Err(PaymentIdError::Length(id.len()));
    }
    Ok(())
}

/// The identifier a payment carries: `None` without the extension or with the declaration
/// echoed without an `id` (clients that copy the server's extensions do that); an error for an
/// `id` that breaks the extension's rules.
pub fn payment_id(payload: &PaymentPayload) -> Result<Option<&str>, PaymentIdError> {
    let Some(id) = payload
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(PAYMENT_IDENTIFIER))
        .and_then(|extension| extension.get("info"))
        .and_then(|info| info.get("id"))
    else {
        return Ok(None);
    };
    let id = id.as_str().ok_or(PaymentIdError::NotAString)?;
    check_id(id)?;
    Ok(Some(id))
}

/// `payload` carrying `id` the way a client does: the declaration echoed with `info.id` set.
pub fn with_payment_id(mut payload: PaymentPayload, id: &str) -> PaymentPayload {
    let mut extension = declaration(false);
    extension["info"]["id"] = Value::String(id.to_owned());
    payload
        .extensions
        .get_or_insert_with(Default::default)
        .insert(PAYMENT_IDENTIFIER.to_owned(), extension);
    payload
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::PaymentRequirements;

    fn payload(extensions: Option<Value>) -> PaymentPayload {
        PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted: PaymentRequirements {
                scheme: "exact".into(),
                network: "eip155:8453".into(),
                amount: "1".into(),
                asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913".into(),
                pay_to: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C".into(),
                max_timeout_seconds: 60,
                extra: None,
            },
            payload: json!({}),
            extensions: extensions.and_then(|value| value.as_object().cloned()),
        }
    }

    #[test]
    fn the_declaration_has_the_spec_shape() {
        let declared = OPTIONAL_DECLARATION.clone();
        assert_eq!(declared["info"], json!({"required": false}));
        let id = &declared["schema"]["properties"]["id"];
        assert_eq!(id["minLength"], 16);
        assert_eq!(id["maxLength"], 128);
        assert_eq!(id["pattern"], "^[a-zA-Z0-9_-]+$");
        assert_eq!(declared["schema"]["required"], json!(["id"]));
        assert_eq!(declaration(true)["info"]["required"], true);
    }

    #[test]
    fn an_id_is_read_from_the_echoed_extension() {
        let id = "pay_7d5d747be160e280504c099d984bcfe0";
        let paid = with_payment_id(payload(None), id);
        assert_eq!(payment_id(&paid), Ok(Some(id)));
        assert_eq!(
            paid.extensions.as_ref().expect("extensions")[PAYMENT_IDENTIFIER]["info"]["required"],
            false,
            "the declaration is echoed"
        );
    }

    #[test]
    fn no_extension_or_no_id_is_no_id() {
        assert_eq!(payment_id(&payload(None)), Ok(None));
        assert_eq!(payment_id(&payload(Some(json!({"bazaar": {}})))), Ok(None));
        let echoed = json!({ PAYMENT_IDENTIFIER: declaration(false) });
        assert_eq!(payment_id(&payload(Some(echoed))), Ok(None));
    }

    #[test]
    fn ids_breaking_the_rules_are_refused() {
        let with = |id: Value| payload(Some(json!({ PAYMENT_IDENTIFIER: {"info": {"id": id}} })));
        assert_eq!(
            payment_id(&with(json!(12))),
            Err(PaymentIdError::NotAString)
        );
        assert_eq!(
            payment_id(&with(json!("short"))),
            Err(PaymentIdError::Length(5))
        );
        assert_eq!(
            payment_id(&with(json!("a".repeat(129)))),
            Err(PaymentIdError::Length(129))
        );
        assert_eq!(
            payment_id(&with(json!("pay_with a space_1234"))),
            Err(PaymentIdError::Character)
        );
        assert_eq!(
            payment_id(&with(json!("pay_ünïcödé_12345678"))),
            Err(PaymentIdError::Character)
        );
        assert!(payment_id(&with(json!("a".repeat(16)))).is_ok());
        assert!(payment_id(&with(json!("A-z_0".repeat(25)))).is_ok());
    }
}
