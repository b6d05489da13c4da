#![doc = include_str!("../README.md")]

mod check;
mod coerce;
mod lookup;
mod map;
mod spec;
mod tables;

use std::collections::BTreeMap;

use doc_model::{Confidence, DocumentExtraction, Method, PageBox};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use check::{MAX_DEPTH, MAX_PROPERTIES, MAX_SCHEMA_BYTES};

/// Why a caller's schema cannot be used. Every variant is the caller's mistake (400
/// `invalid_input` on the `schema` field), found before anything is priced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema is not a JSON object, or it describes something other than an object.
    #[error("must be a JSON Schema describing an object, found {found}")]
    NotAnObject {
        /// What was given instead.
        found: String,
    },
    /// The schema names no property to look up.
    #[error("names no properties to look up: give `properties` (an object of property schemas)")]
    NoProperties,
    /// The compact JSON of the schema is over the size limit.
    #[error("is {bytes} bytes as compact JSON; at most {limit} are accepted")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Objects and arrays nest deeper than the limit.
    #[error("nests deeper than {limit} levels of objects and arrays (at {at})")]
    TooDeep {
        /// JSON pointer of the subschema past the limit.
        at: String,
        /// The limit.
        limit: usize,
    },
    /// More properties than the limit.
    #[error("names {count} or more properties; at most {limit} are accepted")]
    TooManyProperties {
        /// How many were counted when the limit was passed.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A `$ref` that is not a fragment of this schema (nothing is ever fetched).
    #[error(
        "`$ref` {reference} at {at} is not local: only references into this schema (starting with `#`) are followed, nothing is fetched"
    )]
    NonLocalRef {
        /// The reference as given.
        reference: String,
        /// JSON pointer of the subschema carrying it.
        at: String,
    },
    /// `$schema` names a draft this service does not know.
    #[error(
        "`$schema` {uri} is not a known draft: use draft 2020-12 (the default), 2019-09, 07, 06 or 04"
    )]
    UnknownDraft {
        /// The URI as given.
        uri: String,
    },
    /// jsonschema refuses the schema (a keyword with a wrong value, a pattern the linear-time
    /// regex engine cannot compile, a `$ref` pointing at nothing…).
    #[error("is not a valid JSON Schema at {at}: {problem}")]
    Invalid {
        /// Where (schema path).
        at: String,
        /// What is wrong, as jsonschema says it.
        problem: String,
    },
}

/// A caller's schema, checked and compiled: ready to map documents.
#[derive(Debug)]
pub struct CallerSchema {
    properties: Vec<spec::Property>,
    validator: jsonschema::Validator,
}

impl CallerSchema {
    /// Checks the schema (an object describing an object, at most 64 KB, 8 levels deep and 200
    /// properties, local `$ref`s only, a known `$schema` draft) and compiles it.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let draft = check::check(schema)?;
        let validator = check::compile(schema, draft)?;
        let properties = spec::read(schema, draft)?;
        Ok(Self {
            properties,
            validator,
        })
    }

    /// Looks every property up in `document` (the embedded e-invoice first, then key-value
    /// pairs, the invoice vocabulary and patterns), coerces each value to its property's type
    /// and validates the values against the schema: a value that fails is not found.
    pub fn map(&self, document: &DocumentExtraction) -> MappedDocument {
        map::map(&self.properties, &self.validator, document)
    }
}

/// The answer of `/document` with a caller schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MappedDocument {
    /// Number of pages processed (the selected pages).
    pub pages_processed: u32,
    /// Every property of the schema's root, by name.
    pub properties: BTreeMap<String, PropertyResult>,
}

/// One property of the caller's schema as found (or not) in the document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PropertyResult {
    /// The value, coerced to the property's type; null when not found. For an object, its
    /// properties' results by name; for an array, one result per item.
    pub value: MappedValue,
    /// How sure the mapping is (0 when not found); for an object or array, the mean of what it
    /// holds.
    pub confidence: Confidence,
    /// Whether the property was located in the document (and its value passed the schema).
    pub found: bool,
    /// Where the value stands and how it was located; null when not found and for objects.
    pub source: Option<Source>,
    /// Why a property was not found or its value was dropped, when there is more to say than
    /// "not in the document".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl PropertyResult {
    /// A property not located.
    pub fn not_found(reason: Option<String>) -> Self {
        Self {
            value: MappedValue::Null,
            confidence: Confidence::NONE,
            found: false,
            source: None,
            reason,
        }
    }
}

/// A mapped value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MappedValue {
    /// Not found.
    Null,
    /// An array: one result per item (a table row for an array of objects). Its schema says
    /// "objects" rather than naming the result type again: a recursive schema needs references,
    /// which do not survive being embedded in OpenAPI and 402 documents.
    Array(#[schemars(with = "Vec<Map<String, Value>>")] Vec<PropertyResult>),
    /// An object: its properties' results (each `{value, confidence, found, source}`).
    Object(
        #[schemars(with = "BTreeMap<String, Map<String, Value>>")] BTreeMap<String, PropertyResult>,
    ),
    /// A string, number or boolean, coerced to the property's type.
    Scalar(Value),
}

/// Where a value came from. Page and box are null for values read from the embedded
/// e-invoice XML, which has no position.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Source {
    /// Page number, from 1.
    pub page: Option<u32>,
    /// The value's box on that page (a table row's or cell's box for tables).
    #[serde(rename = "box")]
    pub bbox: Option<PageBox>,
    /// How it was located: `key_value`, `vocabulary`, `pattern`, `table` or `embedded_xml`.
    pub method: Method,
}

impl Source {
    /// A place on a page.
    pub fn at(bbox: PageBox, method: Method) -> Self {
        Self {
            page: Some(bbox.page),
            bbox: Some(bbox),
            method,
        }
    }

    /// The embedded e-invoice.
    pub fn embedded() -> Self {
        Self {
            page: None,
            bbox: None,
            method: Method::EmbeddedXml,
        }
    }
}

#[cfg(test)]
mod tests;
