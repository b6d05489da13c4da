//! The request bodies of `/document` and `/ocr`, as docs/documents.md lists them. The
//! schemars schema of each type is the validator, the OpenAPI request body, the 402
//! `inputSchema` and the MCP tool schema; the rule "one of the file or a url" is in `check`.

use schema_mapper::CallerSchema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use server_kit::ApiError;

/// The page selector's pattern: comma-separated pages and ranges, a range may be open-ended.
pub const PAGES_PATTERN: &str = r"^\s*[0-9]+\s*(-\s*[0-9]*\s*)?(,\s*[0-9]+\s*(-\s*[0-9]*\s*)?)*$";

/// `POST /document`.
// The schema's `anyOf` names the two sources; `check` also refuses both.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("anyOf" = [{"required": ["pdf_base64"]}, {"required": ["url"]}]))]
pub struct DocumentRequest {
    /// The PDF, base64 (standard alphabet, padding optional). One of `pdf_base64` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub pdf_base64: Option<String>,
    /// Where to fetch the PDF (http or https; private, loopback and link-local addresses are
    /// refused). One of `pdf_base64` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 2048))]
    pub url: Option<String>,
    /// Pages to process, e.g. `"1-3,5,8-"` (from 1; an open range runs to the last page).
    /// Narrows both the work and the price. Default: every page (at most 20 per call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = PAGES_PATTERN), length(max = 200))]
    pub pages: Option<String>,
    /// A JSON Schema (draft 2020-12 by default; draft-07 and others by `$schema`) of the object
    /// wanted. Each property is looked up by its name, `title`, `description` and `x-labels`
    /// (array of strings): in the e-invoice XML the PDF carries, the key-value pairs, the
    /// German and English invoice vocabulary, then by pattern (`format` date, email, uri,
    /// iban; `pattern`; numbers). An array of objects is read from the table whose header
    /// names its item properties. Each property answers `{value, confidence, found, source}`;
    /// a value failing its property's schema is not found. At most 64 KB, 8 levels, 200
    /// properties; only local `$ref`s (`#…`). The price does not change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Map<String, Value>>,
}

impl DocumentRequest {
    /// Exactly one source of the file.
    pub fn check(&self) -> Result<(), ApiError> {
        one_source(self.pdf_base64.is_some(), self.url.is_some(), "pdf_base64")
    }

    /// The caller's schema checked and compiled (`None` without one): a schema that cannot be
    /// used is a 400 on the `schema` field, answered before any price is named.
    pub fn caller_schema(&mut self) -> Result<Option<CallerSchema>, ApiError> {
        let Some(schema) = self.schema.take() else {
            return Ok(None);
        };
        // Moved into a value and back rather than cloned: the body may be 30 MB.
        let schema = Value::Object(schema);
        let compiled = CallerSchema::new(&schema);
        if let Value::Object(schema) = schema {
            self.schema = Some(schema);
        }
        compiled
            .map(Some)
            .map_err(|e| ApiError::invalid_field("schema", e.to_string()))
    }

    /// The options that, with the file, decide the answer (the cache key's second half).
    pub fn options(&self, pages: &[u32]) -> Value {
        json!({"pages": pages, "schema": self.schema})
    }

    /// The options of the extraction without a schema (what a schema is mapped from).
    pub fn extraction_options(pages: &[u32]) -> Value {
        json!({"pages": pages, "schema": null})
    }
}

/// The file types `/ocr` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum OcrMime {
    /// PNG.
    #[serde(rename = "image/png")]
    Png,
    /// JPEG.
    #[serde(rename = "image/jpeg")]
    Jpeg,
    /// WebP.
    #[serde(rename = "image/webp")]
    Webp,
    /// PDF.
    #[serde(rename = "application/pdf")]
    Pdf,
}

impl OcrMime {
    /// The picture type, or `None` for a PDF.
    pub fn image_kind(self) -> Option<ocr_core::preprocess::ImageMime> {
        use ocr_core::preprocess::ImageMime;
        match self {
            Self::Png => Some(ImageMime::Png),
            Self::Jpeg => Some(ImageMime::Jpeg),
            Self::Webp => Some(ImageMime::Webp),
            Self::Pdf => None,
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
            Self::Pdf => "application/pdf",
        }
    }
}

/// A part of the `/ocr` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OcrPart {
    /// Full text in reading order.
    Text,
    /// Tables.
    Tables,
    /// Barcodes and QR codes.
    Codes,
    /// Typed blocks and the layout.
    Layout,
}

/// `POST /ocr`.
// The schema's `anyOf` names the two sources (an inline file with its type, or a url); `check`
// also refuses both.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("anyOf" = [{"required": ["image_base64", "mime"]}, {"required": ["url"]}]))]
pub struct OcrRequest {
    /// The picture or PDF, base64. One of `image_base64` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub image_base64: Option<String>,
    /// Where to fetch the file (http or https; private, loopback and link-local addresses are
    /// refused). One of `image_base64` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 2048))]
    pub url: Option<String>,
    /// The file's type; the bytes must match it. Required with `image_base64`; with `url` it is
    /// read from the bytes when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime: Option<OcrMime>,
    /// Languages to read in (Tesseract codes). Installed: deu, eng. Default: both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        length(min = 1, max = 4),
        inner(regex(pattern = r"^[a-z]{3}(_[a-z]{2,4})?$"))
    )]
    pub languages: Option<Vec<String>>,
    /// The parts of the answer wanted. Default: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 4))]
    pub want: Option<Vec<OcrPart>>,
    /// Pages of a PDF to read, e.g. `"1-3,5,8-"`. Narrows both the work and the price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = PAGES_PATTERN), length(max = 200))]
    pub pages: Option<String>,
}

impl OcrRequest {
    /// Exactly one source; a type with an inline file; `pages` only for PDFs.
    pub fn check(&self) -> Result<(), ApiError> {
        one_source(
            self.image_base64.is_some(),
            self.url.is_some(),
            "image_base64",
        )?;
        if self.image_base64.is_some() && self.mime.is_none() {
            return Err(ApiError::invalid_field(
                "mime",
                "required with image_base64: one of image/png, image/jpeg, image/webp, application/pdf",
            ));
        }
        if self.pages.is_some() && self.mime.is_some_and(|m| m != OcrMime::Pdf) {
            return Err(ApiError::invalid_field(
                "pages",
                "a page range applies to PDFs only",
            ));
        }
        Ok(())
    }

    /// The wanted parts (all when not given).
    pub fn wanted(&self) -> ocr_core::read::Want {
        match &self.want {
            None => ocr_core::read::Want::ALL,
            Some(parts) => ocr_core::read::Want {
                text: parts.contains(&OcrPart::Text),
                tables: parts.contains(&OcrPart::Tables),
                codes: parts.contains(&OcrPart::Codes),
                layout: parts.contains(&OcrPart::Layout),
            },
        }
    }

    /// The languages asked for, sorted and deduplicated (empty: the default).
    pub fn language_list(&self) -> Vec<String> {
        let mut list = self.languages.clone().unwrap_or_default();
        list.sort();
        list.dedup();
        list
    }

    /// The options that, with the file, decide the answer.
    pub fn options(&self, mime: OcrMime, pages: &[u32]) -> Value {
        let want = self.wanted();
        json!({"mime": mime.as_str(), "languages": self.language_list(), "pages": pages,
            "want": [want.text, want.tables, want.codes, want.layout]})
    }
}

/// An example `/ocr` body for the discovery documents.
pub fn ocr_example() -> Value {
    json!({"image_base64": example_pdf_base64(), "mime": "application/pdf", "languages": ["deu", "eng"],
        "want": ["text", "tables", "codes", "layout"]})
}

/// Exactly one of the inline file or a url.
pub fn one_source(inline: bool, url: bool, inline_name: &str) -> Result<(), ApiError> {
    match (inline, url) {
        (true, false) | (false, true) => Ok(()),
        (true, true) => Err(ApiError::invalid_field(
            inline_name,
            format!("give either {inline_name} or url, not both"),
        )),
        (false, false) => Err(ApiError::invalid_field(
            inline_name,
            format!("one of {inline_name} or url is required"),
        )),
    }
}

/// An example body for the discovery documents.
pub fn document_example() -> Value {
    json!({"pdf_base64": example_pdf_base64(), "pages": "1"})
}

/// A one-page PDF with a text layer and a ruled table (testdata/pdf/ruled_table.pdf, written by
/// testdata/pdf/generate.py), as base64: the examples carry a file rather than a URL so that
/// sending one, as the service page's try-it does, is priced without fetching anything.
fn example_pdf_base64() -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .encode(include_bytes!("../../../testdata/pdf/ruled_table.pdf"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use server_kit::JsonValidator;

    fn parse(body: Value) -> Result<DocumentRequest, ApiError> {
        let validator = JsonValidator::<DocumentRequest>::new().expect("schema compiles");
        validator
            .parse(body.to_string().as_bytes())
            .and_then(|r| r.check().map(|()| r))
    }

    #[test]
    fn one_of_file_or_url() {
        assert!(parse(json!({"pdf_base64": "JVBERi0="})).is_ok());
        assert!(parse(json!({"url": "https://example.com/a.pdf"})).is_ok());
        let both = parse(json!({"pdf_base64": "JVBERi0=", "url": "https://x"})).expect_err("both");
        assert_eq!(both.details[0].field, "pdf_base64");
        assert!(parse(json!({"pages": "1"})).is_err());
    }

    #[test]
    fn a_bad_schema_is_refused_on_the_schema_field() {
        let mut ok = parse(
            json!({"url": "https://x", "schema": {"properties": {"total": {"type": "number"}}}}),
        )
        .expect("valid body");
        assert!(ok.caller_schema().expect("usable").is_some());
        let mut without = parse(json!({"url": "https://x"})).expect("valid");
        assert!(without.caller_schema().expect("none").is_none());
        assert!(
            ok.schema.is_some(),
            "the schema stays in the request (the cache key)"
        );
        let not_object = parse(json!({"url": "https://x", "schema": ["a"]})).expect_err("array");
        assert_eq!(not_object.details[0].field, "schema");
        for (schema, words) in [
            (json!({"type": "string"}), "describing an object"),
            (
                json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}}),
                "not local",
            ),
            (
                json!({"$schema": "https://example.com/my-draft", "properties": {"a": {}}}),
                "not a known draft",
            ),
        ] {
            let mut request =
                parse(json!({"url": "https://x", "schema": schema})).expect("valid body");
            let error = request.caller_schema().expect_err("refused");
            assert_eq!(error.code, server_kit::ErrorCode::InvalidInput);
            assert_eq!(error.details[0].field, "schema");
            assert!(
                error.details[0].problem.contains(words),
                "{}",
                error.details[0].problem
            );
        }
    }

    #[test]
    fn page_selector_pattern_and_unknown_fields() {
        assert!(parse(json!({"url": "https://x", "pages": "1-3, 5,8-"})).is_ok());
        for bad in ["", "a", "1--2", "-3", "1,,2", "1-2-3"] {
            let error = parse(json!({"url": "https://x", "pages": bad})).expect_err(bad);
            assert_eq!(error.details[0].field, "pages", "{bad}");
        }
        let error = parse(json!({"url": "https://x", "page": "1"})).expect_err("unknown");
        assert_eq!(error.code, server_kit::ErrorCode::InvalidInput);
    }
}
