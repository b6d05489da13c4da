//! The header codec: standard base64 (with padding) of UTF-8 JSON, as every x402 v2 header
//! carries it. Decoding is lenient about padding and the URL-safe alphabet because some
//! clients strip or swap them; encoding is always the canonical form.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A header value that could not be decoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// Not base64 in either alphabet.
    #[error("header is not base64")]
    Base64,
    /// Decoded bytes are not the expected JSON.
    #[error("header JSON is malformed: {0}")]
    Json(#[from] serde_json::Error),
}

/// Encodes a value as a header: base64 of its JSON.
pub fn encode_header<T: Serialize>(value: &T) -> Result<String, CodecError> {
    let json = serde_json::to_vec(value)?;
    Ok(STANDARD.encode(json))
}

/// Decodes a header into a value.
pub fn decode_header<T: DeserializeOwned>(header: &str) -> Result<T, CodecError> {
    let bytes = decode_base64(header.trim())?;
    Ok(serde_json::from_slice(&bytes)?)
}

fn decode_base64(text: &str) -> Result<Vec<u8>, CodecError> {
    if let Ok(bytes) = STANDARD.decode(text) {
        return Ok(bytes);
    }
    let unpadded = text.trim_end_matches('=');
    let url_safe: String = unpadded
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            other => other,
        })
        .collect();
    URL_SAFE_NO_PAD
        .decode(url_safe)
        .map_err(|_| CodecError::Base64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn round_trips_and_uses_padded_standard_alphabet() {
        let value = json!({"x402Version": 2, "note": "??>>"});
        let header = encode_header(&value).expect("encodes");
        assert!(
            header
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+/=".contains(c))
        );
        assert_eq!(decode_header::<Value>(&header).expect("decodes"), value);
    }

    #[test]
    fn accepts_unpadded_and_url_safe_forms() {
        let value = json!({"a": "??>>~~"});
        let header = encode_header(&value).expect("encodes");
        let url_safe = header
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_");
        assert_eq!(decode_header::<Value>(&url_safe).expect("decodes"), value);
    }

    #[test]
    fn rejects_garbage() {
        assert!(matches!(
            decode_header::<Value>("%%%"),
            Err(CodecError::Base64)
        ));
        let not_json = STANDARD.encode("not json");
        assert!(matches!(
            decode_header::<Value>(&not_json),
            Err(CodecError::Json(_))
        ));
    }
}
