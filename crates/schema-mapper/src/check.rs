//! The checks a caller's schema passes before anything is priced: shape, limits, local `$ref`s
//! only, a known draft, and that the jsonschema crate compiles it.

use jsonschema::Draft;
use serde_json::{Map, Value};

use crate::SchemaError;

/// Largest schema accepted, as compact JSON (bytes).
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// Deepest nesting of the objects and arrays a schema describes (`properties`, `items`…).
pub const MAX_DEPTH: usize = 8;
/// Most properties a schema may name, counted over every `properties` member (and again
/// through each `$ref` followed when the schema is mapped).
pub const MAX_PROPERTIES: usize = 200;

/// Keywords whose value is one subschema one level deeper in the instance.
const NESTING_ONE: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
];
/// Keywords whose value is a map of subschemas one level deeper in the instance.
const NESTING_MAP: &[&str] = &["properties", "patternProperties"];
/// Keywords whose value is an array of subschemas one level deeper (tuple items).
const NESTING_ARRAY: &[&str] = &["prefixItems", "items"];
/// Keywords whose value is a subschema applying at the same instance level.
const SAME_ONE: &[&str] = &["not", "if", "then", "else", "contentSchema"];
/// Keywords whose value is a map of subschemas at the same level (or definitions).
const SAME_MAP: &[&str] = &["$defs", "definitions", "dependentSchemas", "dependencies"];
/// Keywords whose value is an array of subschemas at the same level.
const SAME_ARRAY: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords that point at another schema.
const REFERENCES: &[&str] = &["$ref", "$dynamicRef", "$recursiveRef"];

/// The draft a `$schema` URI names; `None` for one this service does not know.
pub(crate) fn draft_of(uri: &str) -> Option<Draft> {
    let bare = uri
        .trim()
        .trim_end_matches('#')
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    match bare {
        "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
        "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft201909),
        "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
        "json-schema.org/draft-06/schema" => Some(Draft::Draft6),
        "json-schema.org/draft-04/schema" => Some(Draft::Draft4),
        _ => None,
    }
}

/// What a walk over the schema found.
#[derive(Debug, Default)]
struct Tally {
    properties: usize,
}

/// Checks shape, size, depth, property count, references and draft; returns the draft to
/// compile with (2020-12 when `$schema` is absent).
pub(crate) fn check(schema: &Value) -> Result<Draft, SchemaError> {
    let Value::Object(root) = schema else {
        return Err(SchemaError::NotAnObject {
            found: kind_of(schema),
        });
    };
    let size = serde_json::to_vec(schema).map_or(usize::MAX, |bytes| bytes.len());
    if size > MAX_SCHEMA_BYTES {
        return Err(SchemaError::TooLarge {
            bytes: size,
            limit: MAX_SCHEMA_BYTES,
        });
    }
    let draft = match root.get("$schema") {
        None => Draft::Draft202012,
        Some(Value::String(uri)) => {
            draft_of(uri).ok_or_else(|| SchemaError::UnknownDraft { uri: uri.clone() })?
        }
        Some(other) => {
            return Err(SchemaError::UnknownDraft {
                uri: other.to_string(),
            });
        }
    };
    if let Some(kind) = root.get("type") {
        let describes_object = match kind {
            Value::String(t) => t == "object",
            Value::Array(types) => types.iter().any(|t| t == "object"),
            _ => false,
        };
        if !describes_object {
            return Err(SchemaError::NotAnObject {
                found: format!("a schema of type {kind}"),
            });
        }
    }
    let mut tally = Tally::default();
    walk(root, 0, "#", &mut tally)?;
    if tally.properties > MAX_PROPERTIES {
        return Err(SchemaError::TooManyProperties {
            count: tally.properties,
            limit: MAX_PROPERTIES,
        });
    }
    Ok(draft)
}

fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
    .to_owned()
}

/// Visits every subschema (never `enum`, `const`, `default` or `examples`, which are data):
/// counts properties, measures the instance depth and refuses references that leave the
/// document, and `$schema` URIs of unknown drafts in embedded resources.
fn walk(
    schema: &Map<String, Value>,
    depth: usize,
    at: &str,
    tally: &mut Tally,
) -> Result<(), SchemaError> {
    if depth > MAX_DEPTH {
        return Err(SchemaError::TooDeep {
            at: at.to_owned(),
            limit: MAX_DEPTH,
        });
    }
    for keyword in REFERENCES {
        if let Some(reference) = schema.get(*keyword) {
            let text = reference.as_str().unwrap_or_default();
            if !text.starts_with('#') {
                return Err(SchemaError::NonLocalRef {
                    reference: reference
                        .as_str()
                        .map_or_else(|| reference.to_string(), str::to_owned),
                    at: at.to_owned(),
                });
            }
        }
    }
    if depth > 0
        && let Some(Value::String(uri)) = schema.get("$schema")
        && draft_of(uri).is_none()
    {
        return Err(SchemaError::UnknownDraft { uri: uri.clone() });
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        tally.properties += properties.len();
    }
    let mut visit = |value: &Value, depth: usize, path: String| -> Result<(), SchemaError> {
        match value {
            Value::Object(sub) => walk(sub, depth, &path, tally),
            // `true`/`false` schemas and dependency lists hold nothing to check.
            _ => Ok(()),
        }
    };
    for (keyword, value) in schema {
        let keyword = keyword.as_str();
        let path = format!("{at}/{}", escape(keyword));
        let (nesting, one, map, array) = if NESTING_ONE.contains(&keyword)
            || NESTING_MAP.contains(&keyword)
            || NESTING_ARRAY.contains(&keyword)
        {
            (
                1,
                NESTING_ONE.contains(&keyword),
                NESTING_MAP.contains(&keyword),
                NESTING_ARRAY.contains(&keyword),
            )
        } else {
            (
                0,
                SAME_ONE.contains(&keyword),
                SAME_MAP.contains(&keyword),
                SAME_ARRAY.contains(&keyword),
            )
        };
        match value {
            Value::Object(members) if map => {
                for (name, sub) in members {
                    visit(sub, depth + nesting, format!("{path}/{}", escape(name)))?;
                }
            }
            Value::Object(_) if one => visit(value, depth + nesting, path)?,
            Value::Array(items) if array => {
                for (index, sub) in items.iter().enumerate() {
                    visit(sub, depth + nesting, format!("{path}/{index}"))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A JSON pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Compiles the schema with jsonschema: nothing is ever fetched, formats are asserted (with
/// `iban` added), and a caller's `pattern` runs on the linear-time regex engine.
pub(crate) fn compile(schema: &Value, draft: Draft) -> Result<jsonschema::Validator, SchemaError> {
    options(draft)
        .build(schema)
        .map_err(|error| SchemaError::Invalid {
            // Against the meta-schema, the "instance" is the caller's schema: its path is the
            // place in their document.
            at: format!("#{}", error.instance_path().as_str()),
            problem: error.to_string(),
        })
}

/// The options every validator of a caller's schema is built with.
pub(crate) fn options(draft: Draft) -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(draft)
        .offline()
        .should_validate_formats(true)
        .with_format("iban", |text: &str| {
            doc_analysis::header::normalize::iban_is_valid(text)
        })
        .with_pattern_options(jsonschema::PatternOptions::regex())
}
