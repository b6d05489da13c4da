//! The caller's file: inline base64 or a URL, size-checked before it is decoded or while it is
//! streamed.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use server_kit::{ApiError, ErrorCode};

use safe_fetch::{FetchError, SafeFetcher};

/// Standard alphabet; padding optional, as clients differ.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Where the file comes from.
#[derive(Debug, Clone, Copy)]
pub enum FileSource<'a> {
    /// Inline in the body, in field `field`.
    Inline {
        /// The body field (`pdf_base64`, `image_base64`).
        field: &'static str,
        /// Its value.
        base64: &'a str,
    },
    /// To be fetched.
    Url(&'a str),
}

/// The SHA-256 of a caller's file: the file's part of the plan cache's key and of the answer
/// cache's key, computed once per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileDigest(pub [u8; 32]);

impl FileDigest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::{Digest, Sha256};
        Self(Sha256::digest(bytes).into())
    }
}

impl std::fmt::Display for FileDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&alloy::hex::encode(self.0))
    }
}

/// A caller's file, decoded or fetched, and its digest.
#[derive(Debug)]
pub struct CallerFile {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Their SHA-256.
    pub digest: FileDigest,
}

impl CallerFile {
    /// `bytes` with their digest.
    pub fn new(bytes: Vec<u8>) -> Self {
        let digest = FileDigest::of(&bytes);
        Self { bytes, digest }
    }
}

/// The file, at most `max_bytes` of it.
pub async fn obtain_file(
    fetcher: &SafeFetcher,
    source: FileSource<'_>,
    max_bytes: usize,
) -> Result<CallerFile, ApiError> {
    obtain_bytes(fetcher, source, max_bytes)
        .await
        .map(CallerFile::new)
}

async fn obtain_bytes(
    fetcher: &SafeFetcher,
    source: FileSource<'_>,
    max_bytes: usize,
) -> Result<Vec<u8>, ApiError> {
    match source {
        FileSource::Inline { field, base64 } => decode_inline(field, base64, max_bytes),
        // The fetcher's texts are fixed (one for every refusal, one for every failure), so
        // nothing here tells a caller what lies behind an address.
        FileSource::Url(url) => fetcher.fetch(url, max_bytes).await.map_err(|e| match e {
            FetchError::Refused { .. } => ApiError {
                details: vec![server_kit::FieldProblem {
                    field: "url".into(),
                    problem: e.to_string(),
                }],
                ..ApiError::new(ErrorCode::UrlRefused, e.to_string())
            },
            FetchError::TooLarge { .. } => ApiError::new(ErrorCode::PayloadTooLarge, e.to_string()),
            FetchError::Unreachable { .. } => {
                ApiError::new(ErrorCode::CounterpartyUnreachable, e.to_string())
            }
            FetchError::Setup(_) => ApiError::new(ErrorCode::Internal, e.to_string()),
        }),
    }
}

/// Decodes base64 (line breaks and spaces allowed), refusing by its length alone what would
/// decode to more than `max_bytes`, so an oversized file is never decoded.
pub fn decode_inline(field: &str, text: &str, max_bytes: usize) -> Result<Vec<u8>, ApiError> {
    // Most clients send one line: then the text is decoded where it is, and only text with
    // line breaks or spaces is copied without them (a per-character copy was the largest
    // single cost of a `/document` 402).
    let text = text.as_bytes();
    let compact: std::borrow::Cow<'_, [u8]> = if text.iter().any(u8::is_ascii_whitespace) {
        text.iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect::<Vec<u8>>()
            .into()
    } else {
        text.into()
    };
    let unpadded = compact.len() - compact.iter().rev().take_while(|&&b| b == b'=').count();
    let decoded_len = unpadded / 4 * 3
        + match unpadded % 4 {
            0 | 1 => 0,
            2 => 1,
            _ => 2,
        };
    if decoded_len > max_bytes {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "{field}: the file has {decoded_len} bytes, more than the limit of {max_bytes}"
            ),
        ));
    }
    let bytes = BASE64
        .decode(&compact)
        .map_err(|e| ApiError::invalid_field(field, format!("not valid base64: {e}")))?;
    if bytes.is_empty() {
        return Err(ApiError::invalid_field(field, "the file is empty"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_with_or_without_padding_and_line_breaks() {
        assert_eq!(
            decode_inline("f", "JVBERi0=", 10).expect("padded"),
            b"%PDF-"
        );
        assert_eq!(
            decode_inline("f", "JVBE\nRi0", 10).expect("unpadded"),
            b"%PDF-"
        );
        assert_eq!(
            decode_inline("f", " JV\tBE\r\nRi0=\r\n", 10).expect("spaced"),
            b"%PDF-"
        );
        assert_eq!(
            decode_inline("f", "JVBERi0=", 4).map_err(|e| e.code),
            Err(ErrorCode::PayloadTooLarge)
        );
    }

    #[test]
    fn refuses_oversized_before_decoding_and_names_bad_base64() {
        let error = decode_inline("pdf_base64", &"A".repeat(40), 29).expect_err("30 bytes");
        assert_eq!(error.code, ErrorCode::PayloadTooLarge);
        assert!(decode_inline("pdf_base64", &"A".repeat(40), 30).is_ok());
        let error = decode_inline("pdf_base64", "not base64!", 100).expect_err("bad");
        assert_eq!(error.details[0].field, "pdf_base64");
        assert!(decode_inline("pdf_base64", "", 100).is_err());
    }
}
