//! The caller's schema read into a tree of properties to look up: names, labels, types,
//! formats and patterns, with local `$ref`s followed and `allOf` members merged.

use std::sync::Arc;

use jsonschema::Draft;
use serde_json::{Map, Value};

use crate::SchemaError;
use crate::check::{MAX_DEPTH, MAX_PROPERTIES};

/// What a property holds, as far as mapping is concerned.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// A string (also the kind of a property with no `type`).
    String,
    /// A JSON number.
    Number,
    /// A whole JSON number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An object: its properties, each looked up in turn.
    Object(Vec<Property>),
    /// An array of objects: mapped onto a table, one item per row.
    Table(Vec<Property>),
    /// An array of anything else: every value found for the item.
    List(Box<Property>),
}

/// One property of the caller's schema.
#[derive(Debug, Clone)]
pub(crate) struct Property {
    /// The member name, as the answer names it.
    pub(crate) name: String,
    /// `title`.
    pub(crate) title: Option<String>,
    /// `description`.
    pub(crate) description: Option<String>,
    /// `x-labels`.
    pub(crate) x_labels: Vec<String>,
    /// What it holds.
    pub(crate) kind: Kind,
    /// `format` (`date`, `email`, `uri`, `iban`…).
    pub(crate) format: Option<String>,
    /// `pattern`, when the linear-time engine compiles it.
    pub(crate) pattern: Option<regex::Regex>,
    /// The property's own schema compiled, for values (not for objects and arrays, which the
    /// whole schema checks once their parts are known); `None` when it cannot stand alone.
    pub(crate) check: Option<Arc<jsonschema::Validator>>,
}

impl Property {
    /// The texts the property is looked up by, in order: its name (with `_`, `-` and camel
    /// case turned into spaces), title, description and `x-labels`.
    pub(crate) fn labels(&self) -> Vec<&str> {
        let mut labels: Vec<&str> = vec![self.name.as_str()];
        labels.extend(self.title.as_deref());
        labels.extend(self.description.as_deref());
        labels.extend(self.x_labels.iter().map(String::as_str));
        labels
    }
}

/// Reads the root schema's properties (following local `$ref`s, merging `allOf`).
pub(crate) fn read(root: &Value, draft: Draft) -> Result<Vec<Property>, SchemaError> {
    let mut reader = Reader {
        root,
        draft,
        count: 0,
    };
    let merged = reader.resolve(root, 0, "#")?;
    let properties = reader.properties_of(&merged, 1, "#")?;
    if properties.is_empty() {
        return Err(SchemaError::NoProperties);
    }
    Ok(properties)
}

struct Reader<'a> {
    root: &'a Value,
    draft: Draft,
    count: usize,
}

impl<'a> Reader<'a> {
    /// The schema at `value` with its `$ref` target and `allOf` members merged in (the
    /// schema's own keywords win), and a nullable `anyOf`/`oneOf` (`[{…}, {"type": "null"}]`)
    /// reduced to its non-null member.
    fn resolve(
        &mut self,
        value: &Value,
        hops: usize,
        at: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        if hops > MAX_DEPTH {
            return Err(SchemaError::TooDeep {
                at: at.to_owned(),
                limit: MAX_DEPTH,
            });
        }
        let Value::Object(schema) = value else {
            return Ok(Map::new());
        };
        let mut merged = Map::new();
        if let Some(Value::String(reference)) = schema.get("$ref") {
            let target = self
                .pointer(reference)
                .ok_or_else(|| SchemaError::Invalid {
                    at: at.to_owned(),
                    problem: format!("`$ref` {reference} points at nothing in the schema"),
                })?;
            merged = self.resolve(target, hops + 1, reference)?;
        }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            let Some(Value::Array(members)) = schema.get(keyword) else {
                continue;
            };
            let non_null: Vec<&Value> = members
                .iter()
                .filter(|m| m.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            // allOf: every member applies; anyOf/oneOf: only the nullable form is read (a
            // choice between several shapes has no single place in a document).
            if keyword == "allOf" || non_null.len() == 1 {
                for member in non_null {
                    let member = self.resolve(member, hops + 1, at)?;
                    merge_into(&mut merged, member);
                }
            }
        }
        merge_into(&mut merged, schema.clone());
        Ok(merged)
    }

    fn pointer(&self, reference: &str) -> Option<&'a Value> {
        let fragment = reference.strip_prefix('#')?;
        let decoded = percent_decode(fragment);
        if decoded.is_empty() {
            Some(self.root)
        } else {
            self.root.pointer(&decoded)
        }
    }

    fn properties_of(
        &mut self,
        schema: &Map<String, Value>,
        depth: usize,
        at: &str,
    ) -> Result<Vec<Property>, SchemaError> {
        let Some(Value::Object(members)) = schema.get("properties") else {
            return Ok(Vec::new());
        };
        let mut properties = Vec::with_capacity(members.len());
        for (name, value) in members {
            let path = format!("{at}/properties/{name}");
            properties.push(self.property(name, value, depth, &path)?);
        }
        Ok(properties)
    }

    fn property(
        &mut self,
        name: &str,
        value: &Value,
        depth: usize,
        at: &str,
    ) -> Result<Property, SchemaError> {
        self.count += 1;
        if self.count > MAX_PROPERTIES {
            return Err(SchemaError::TooManyProperties {
                count: self.count,
                limit: MAX_PROPERTIES,
            });
        }
        if depth > MAX_DEPTH {
            return Err(SchemaError::TooDeep {
                at: at.to_owned(),
                limit: MAX_DEPTH,
            });
        }
        let schema = self.resolve(value, 0, at)?;
        let text = |key: &str| {
            schema
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let x_labels = match schema.get("x-labels") {
            Some(Value::Array(labels)) => labels
                .iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            Some(Value::String(label)) => vec![label.clone()],
            _ => Vec::new(),
        };
        let kind = match type_of(&schema).as_deref() {
            Some("number") => Kind::Number,
            Some("integer") => Kind::Integer,
            Some("boolean") => Kind::Boolean,
            Some("object") => Kind::Object(self.properties_of(&schema, depth + 1, at)?),
            Some("array") => {
                let items = schema.get("items").cloned().unwrap_or(Value::Null);
                let items_at = format!("{at}/items");
                let item_schema = self.resolve(&items, 0, &items_at)?;
                if type_of(&item_schema).as_deref() == Some("object") {
                    Kind::Table(self.properties_of(&item_schema, depth + 1, &items_at)?)
                } else {
                    Kind::List(Box::new(self.property(
                        name,
                        &Value::Object(item_schema),
                        depth + 1,
                        &items_at,
                    )?))
                }
            }
            _ => Kind::String,
        };
        let pattern = text("pattern").and_then(|p| {
            regex::RegexBuilder::new(&p)
                .size_limit(1 << 20)
                .build()
                .ok()
        });
        let check = match kind {
            Kind::Object(_) | Kind::Table(_) | Kind::List(_) => None,
            _ => self.standalone(&schema),
        };
        Ok(Property {
            check,
            name: name.to_owned(),
            title: text("title"),
            description: text("description"),
            x_labels,
            kind,
            format: text("format"),
            pattern,
        })
    }
}

impl Reader<'_> {
    /// A value's schema compiled on its own: its `$ref` and `allOf` are already merged in, and a
    /// nullable choice reduced; what still refers elsewhere does not compile and is left to the
    /// check of the whole schema.
    fn standalone(&self, schema: &Map<String, Value>) -> Option<Arc<jsonschema::Validator>> {
        let mut own = schema.clone();
        for merged in [
            "$ref",
            "$dynamicRef",
            "$defs",
            "definitions",
            "allOf",
            "$id",
            "$anchor",
            "$schema",
        ] {
            own.remove(merged);
        }
        for choice in ["anyOf", "oneOf"] {
            let nullable = own
                .get(choice)
                .and_then(Value::as_array)
                .is_some_and(|members| {
                    members
                        .iter()
                        .filter(|m| m.get("type").and_then(Value::as_str) != Some("null"))
                        .count()
                        == 1
                });
            if nullable {
                own.remove(choice);
            }
        }
        crate::check::options(self.draft)
            .build(&Value::Object(own))
            .ok()
            .map(Arc::new)
    }
}

/// Later keywords win; `properties` maps are merged member by member.
fn merge_into(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(more)) if key == "properties" => {
                existing.extend(more);
            }
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// The one type a schema gives (the first that is not `null`), or the type its keywords imply.
fn type_of(schema: &Map<String, Value>) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => return Some(t.clone()),
        Some(Value::Array(types)) => {
            if let Some(t) = types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
            {
                return Some(t.to_owned());
            }
        }
        _ => {}
    }
    if schema.contains_key("properties") {
        Some("object".into())
    } else if schema.contains_key("items") || schema.contains_key("prefixItems") {
        Some("array".into())
    } else {
        None
    }
}

/// `%xx` escapes of a URI fragment decoded (a JSON pointer in a `$ref` may carry them).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
