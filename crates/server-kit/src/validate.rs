//! Request validation from the request type's own JSON Schema: the schema schemars derives is
//! compiled once and every body is checked against it before it is deserialised, so the
//! validator, the OpenAPI document and the 402 `inputSchema` can never disagree.

use std::marker::PhantomData;

use jsonschema::error::ValidationErrorKind;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ApiError, FieldProblem};

/// The self-contained (all subschemas inlined) draft 2020-12 schema of `T`, in standard
/// keywords only (see [`standard_number_formats`]).
pub fn input_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    standard_number_formats(&mut schema);
    schema
}

/// The self-contained draft 2020-12 schema of an answer type `T`, as it serialises (fields
/// skipped when empty are not required).
pub fn output_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    standard_number_formats(&mut schema);
    schema
}

/// The bounds of the number formats schemars writes for Rust's number types (`uint64`,
/// `int32`, `double`…). JSON Schema 2020-12 defines no such formats (its format vocabulary is
/// dates, addresses, URIs and the like), so validators that know only the standard ones warn
/// about them: Ajv, under the official MCP TypeScript SDK, logs `unknown format "uint64"
/// ignored`. The range of an integer type is what such a format meant.
fn integer_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint" | "uint64" => (0.into(), u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int" | "int64" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    })
}

/// Rewrites schemars' non-standard number formats in standard keywords: an integer format
/// becomes `minimum`/`maximum` (keeping a tighter bound already there, e.g. `range(min = 1)`),
/// `float`/`double` are dropped (`"type": "number"` says it all). Values inside `const`,
/// `enum`, `default` and `examples` are data, not schemas, and are left alone.
pub fn standard_number_formats(schema: &mut Value) {
    match schema {
        Value::Object(members) => {
            if let Some(Value::String(format)) = members.get("format") {
                let format = format.clone();
                if let Some((low, high)) = integer_bounds(&format) {
                    members.remove("format");
                    tighten(members, "minimum", low, |new, old| new > old);
                    tighten(members, "maximum", high, |new, old| new < old);
                } else if format == "float" || format == "double" {
                    members.remove("format");
                }
            }
            for (key, value) in members.iter_mut() {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    standard_number_formats(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(standard_number_formats),
        _ => {}
    }
}

/// Sets `key` to `bound` unless a bound at least as tight is there.
fn tighten(
    members: &mut serde_json::Map<String, Value>,
    key: &str,
    bound: Value,
    tighter: impl Fn(f64, f64) -> bool,
) {
    let keep = match (members.get(key).and_then(Value::as_f64), bound.as_f64()) {
        (Some(old), Some(new)) => !tighter(new, old),
        _ => false,
    };
    if !keep {
        members.insert(key.to_owned(), bound);
    }
}

/// Checks JSON bodies against `T`'s schema and deserialises them.
#[derive(Debug)]
pub struct JsonValidator<T> {
    schema: Value,
    validator: jsonschema::Validator,
    _type: PhantomData<fn() -> T>,
}

/// The derived schema did not compile; a programming error caught at start-up.
#[derive(Debug, thiserror::Error)]
#[error("request schema does not compile: {0}")]
pub struct SchemaError(String);

impl<T: JsonSchema + DeserializeOwned> JsonValidator<T> {
    /// Compiles `T`'s schema.
    pub fn new() -> Result<Self, SchemaError> {
        let schema = input_schema::<T>();
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|e| SchemaError(e.to_string()))?;
        Ok(Self {
            schema,
            validator,
            _type: PhantomData,
        })
    }

    /// The schema, as published.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Parses, validates and deserialises a body taken by value. The bytes are dropped as soon
    /// as the parsed value exists, and the value is validated in place and moved (never
    /// cloned) into `T`, so a large body (the 30 MB base64 document) is alive at most twice
    /// at once (bytes and value, during the parse) and once after it.
    pub fn parse_body(&self, body: bytes::Bytes) -> Result<T, ApiError> {
        let value = Self::to_value(&body)?;
        drop(body);
        self.parse_value(value)
    }

    /// Parses and validates a body; every problem is reported with its field. The caller
    /// keeps `body`: prefer [`JsonValidator::parse_body`] for large bodies.
    pub fn parse(&self, body: &[u8]) -> Result<T, ApiError> {
        let value = Self::to_value(body)?;
        self.parse_value(value)
    }

    fn to_value(body: &[u8]) -> Result<Value, ApiError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::invalid_field("body", "a JSON object is required"));
        }
        serde_json::from_slice(body)
            .map_err(|e| ApiError::invalid_field("body", format!("not valid JSON: {e}")))
    }

    /// Validates an already parsed value.
    pub fn parse_value(&self, value: Value) -> Result<T, ApiError> {
        // The yes/no check is the validator's fast path; the errors are only collected for a
        // body that fails it (most bodies pass, and the 402 path is hot).
        if self.validator.is_valid(&value) {
            return Self::deserialize(value);
        }
        let mut problems: Vec<FieldProblem> = self
            .validator
            .iter_errors(&value)
            .map(|error| problem_of(&self.schema, &error))
            .collect();
        if !problems.is_empty() {
            problems.sort_by(|a, b| a.field.cmp(&b.field));
            problems.dedup();
            return Err(ApiError::invalid_input(problems));
        }
        Self::deserialize(value)
    }

    fn deserialize(mut value: Value) -> Result<T, ApiError> {
        // JSON Schema counts 50.0 as an integer; serde's integer types do not, so whole floats
        // become integers first. What is left can only fail on a schema bug, still a 400.
        whole_floats_to_integers(&mut value);
        serde_json::from_value(value).map_err(|e| ApiError::invalid_field("body", e.to_string()))
    }
}

fn whole_floats_to_integers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(float) = number.as_f64()
                && float.fract() == 0.0
                && float.abs() < 9.0e15
            {
                // Exact: every integer below 2^53 is representable.
                #[allow(clippy::cast_possible_truncation)]
                let integer = float as i64;
                *value = Value::from(integer);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_to_integers),
        Value::Object(members) => members.values_mut().for_each(whole_floats_to_integers),
        _ => {}
    }
}

fn problem_of(schema: &Value, error: &jsonschema::ValidationError<'_>) -> FieldProblem {
    let base = pointer_to_dotted(error.instance_path().as_str());
    let join = |name: &str| {
        if base.is_empty() {
            name.to_owned()
        } else {
            format!("{base}.{name}")
        }
    };
    if let Some((field, problem)) = missing_group(schema, error) {
        return FieldProblem {
            field: join(&field),
            problem,
        };
    }
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => FieldProblem {
            field: join(unexpected.first().map(String::as_str).unwrap_or("?")),
            problem: "unknown field".to_owned(),
        },
        ValidationErrorKind::Required { property } => FieldProblem {
            field: join(property.as_str().unwrap_or("?")),
            problem: "is required".to_owned(),
        },
        kind => FieldProblem {
            field: if base.is_empty() {
                "body".to_owned()
            } else {
                base
            },
            problem: if is_large(error.instance()) {
                // jsonschema's text quotes the whole value: a 30 MB string would be copied
                // into the message and sent back in the 400.
                match kind {
                    ValidationErrorKind::MaxLength { limit } => {
                        format!("is longer than {limit} characters")
                    }
                    other => format!("does not satisfy `{}`", other.keyword()),
                }
            } else {
                error.to_string()
            },
        },
    }
}

/// An `anyOf` of field groups (`[{"required": ["pool"]}, {"required": ["token_a", "token_b",
/// "dex"]}]`: which fields go together) that the body meets none of, named as the first field
/// missing from the group the body has most of (the first group on a tie), with every group in
/// the message. `None` for any other error.
fn missing_group(
    schema: &Value,
    error: &jsonschema::ValidationError<'_>,
) -> Option<(String, String)> {
    if !matches!(error.kind(), ValidationErrorKind::AnyOf { .. }) {
        return None;
    }
    let groups: Vec<Vec<&str>> = schema
        .pointer(error.schema_path().as_str())?
        .as_array()?
        .iter()
        .map(|group| {
            let members = group.as_object()?;
            if members.keys().any(|key| key != "required") {
                return None;
            }
            group["required"]
                .as_array()?
                .iter()
                .map(Value::as_str)
                .collect::<Option<Vec<_>>>()
        })
        .collect::<Option<_>>()?;
    let body = error.instance().as_object()?;
    let present = |group: &[&str]| group.iter().filter(|f| body.contains_key(**f)).count();
    let mut best: Option<&Vec<&str>> = None;
    for group in &groups {
        if best.is_none_or(|b| present(group) > present(b)) {
            best = Some(group);
        }
    }
    let field = best?.iter().find(|f| !body.contains_key(**f))?;
    let choices: Vec<String> = groups.iter().map(|group| group.join(" + ")).collect();
    Some((
        (*field).to_owned(),
        format!("is required: give {}", choices.join(", or ")),
    ))
}

/// A value too large to quote in an error message.
fn is_large(value: &Value) -> bool {
    match value {
        Value::String(text) => text.len() > 256,
        Value::Array(items) => items.len() > 32,
        Value::Object(members) => members.len() > 32,
        _ => false,
    }
}

fn pointer_to_dotted(pointer: &str) -> String {
    pointer
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        #[schemars(regex(pattern = r"^0x[a-fA-F0-9]{40}$"))]
        address: String,
        #[schemars(range(min = 0, max = 5000))]
        #[serde(default)]
        slippage_bps: Option<u32>,
        #[serde(default)]
        #[schemars(length(max = 2))]
        items: Vec<i32>,
    }

    fn validator() -> JsonValidator<Sample> {
        JsonValidator::new().expect("compiles")
    }

    fn fields(body: &str) -> Vec<String> {
        let error = validator().parse(body.as_bytes()).expect_err("invalid");
        error.details.into_iter().map(|d| d.field).collect()
    }

    #[test]
    fn accepts_valid_bodies() {
        let parsed = validator()
            .parse(
                br#"{"address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "slippage_bps": 10}"#,
            )
            .expect("valid");
        assert_eq!(parsed.slippage_bps, Some(10));
        let whole_float = validator()
            .parse(br#"{"address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "slippage_bps": 5e1}"#)
            .expect("50.0 is the integer 50");
        assert_eq!(whole_float.slippage_bps, Some(50));
    }

    #[test]
    fn names_each_bad_field() {
        assert_eq!(fields(r#"{"address": "0x12"}"#), ["address"]);
        assert_eq!(
            fields(
                r#"{"address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "slippage_bps": 5001}"#
            ),
            ["slippage_bps"]
        );
        assert_eq!(
            fields(r#"{"address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "bogus": 1}"#),
            ["bogus"]
        );
        assert_eq!(fields(r#"{}"#), ["address"]);
        assert_eq!(
            fields(
                r#"{"address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "items": [1, "x"]}"#
            ),
            ["items.1"]
        );
        assert_eq!(fields(r#"[]"#), ["body"]);
        assert_eq!(fields(r#"{"#), ["body"]);
        assert_eq!(fields(""), ["body"]);
    }

    #[test]
    fn a_large_invalid_value_is_not_quoted_back() {
        let long = "x".repeat(100_000);
        let body = format!(r#"{{"address": "{long}"}}"#);
        let error = validator()
            .parse_body(bytes::Bytes::from(body))
            .expect_err("invalid");
        assert_eq!(error.details[0].field, "address");
        let problem = &error.details[0].problem;
        assert!(
            problem.len() < 200,
            "{} bytes: {problem:.80}",
            problem.len()
        );
        assert!(problem.contains("pattern"), "{problem}");
    }

    #[test]
    fn parse_body_matches_parse() {
        let body = br#"{"address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "items": [1, 2]}"#;
        assert_eq!(
            validator().parse_body(bytes::Bytes::from_static(body)),
            validator().parse(body)
        );
    }

    #[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Numbers {
        small: u8,
        count: usize,
        big: u64,
        #[schemars(range(min = 1, max = 5000))]
        bps: u32,
        signed: i32,
        ratio: f64,
        maybe: Option<u16>,
        list: Vec<i64>,
    }

    fn formats_in(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(members) => {
                if let Some(Value::String(format)) = members.get("format") {
                    found.push(format.clone());
                }
                members.values().for_each(|v| formats_in(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| formats_in(v, found)),
            _ => {}
        }
    }

    #[test]
    fn number_formats_become_standard_bounds() {
        for schema in [input_schema::<Numbers>(), output_schema::<Numbers>()] {
            let mut found = Vec::new();
            formats_in(&schema, &mut found);
            assert!(found.is_empty(), "{found:?} in {schema}");
            let p = &schema["properties"];
            assert_eq!(p["small"]["minimum"], 0);
            assert_eq!(p["small"]["maximum"], 255);
            assert_eq!(p["count"]["maximum"], u64::MAX);
            assert_eq!(p["big"]["maximum"], u64::MAX);
            // The declared range is tighter than the type's and stays.
            assert_eq!(p["bps"]["minimum"], 1);
            assert_eq!(p["bps"]["maximum"], 5000);
            assert_eq!(p["signed"]["minimum"], i32::MIN);
            assert_eq!(p["signed"]["maximum"], i32::MAX);
            assert_eq!(p["ratio"], json!({"type": "number"}));
            assert_eq!(p["maybe"]["maximum"], 65535);
            assert_eq!(p["list"]["items"]["minimum"], i64::MIN);
        }
        // Data is not rewritten.
        let mut data = json!({"const": {"format": "uint8"}, "examples": [{"format": "double"}]});
        let before = data.clone();
        standard_number_formats(&mut data);
        assert_eq!(data, before);
        // The bounds validate as the type does.
        let validator = JsonValidator::<Numbers>::new().expect("compiles");
        let body = json!({"small": 256, "count": 1, "big": 1, "bps": 1, "signed": 0, "ratio": 0.5, "maybe": null, "list": []});
        let error = validator
            .parse(body.to_string().as_bytes())
            .expect_err("256 > u8");
        assert_eq!(error.details[0].field, "small");
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("anyOf" = [{"required": ["pool"]}, {"required": ["token_a", "token_b", "dex"]}]))]
    #[allow(dead_code)]
    struct Grouped {
        chain: String,
        #[serde(default)]
        pool: Option<String>,
        #[serde(default)]
        token_a: Option<String>,
        #[serde(default)]
        token_b: Option<String>,
        #[serde(default)]
        dex: Option<String>,
    }

    #[test]
    fn a_missing_field_group_is_named_by_its_first_missing_field() {
        let validator = JsonValidator::<Grouped>::new().expect("compiles");
        let problem = |body: Value| {
            let error = validator
                .parse(body.to_string().as_bytes())
                .expect_err("invalid");
            assert_eq!(error.details.len(), 1, "{:?}", error.details);
            (
                error.details[0].field.clone(),
                error.details[0].problem.clone(),
            )
        };
        let (field, text) = problem(json!({"chain": "base"}));
        assert_eq!(field, "pool");
        assert_eq!(text, "is required: give pool, or token_a + token_b + dex");
        assert_eq!(
            problem(json!({"chain": "base", "token_a": "a"})).0,
            "token_b"
        );
        assert_eq!(
            problem(json!({"chain": "base", "token_a": "a", "token_b": "b"})).0,
            "dex"
        );
        assert!(
            validator
                .parse(br#"{"chain": "base", "pool": "p"}"#)
                .is_ok()
        );
        assert!(
            validator
                .parse(br#"{"chain": "base", "token_a": "a", "token_b": "b", "dex": "d"}"#)
                .is_ok()
        );
        // Other errors are still reported by field.
        assert_eq!(problem(json!({"pool": "p"})).0, "chain");
    }
}
