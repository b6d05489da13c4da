//! The mapper against a hand-built German invoice page: each lookup stage, coercion,
//! validation, arrays onto tables, nested objects, the embedded e-invoice first, and every
//! refused schema.

use std::collections::BTreeMap;

use doc_model::{
    Cell, Confidence, CoordinateFrame, DocumentExtraction, EmbeddedInvoice, HeaderField,
    HeaderFieldName, HeaderFields, InvoiceSyntax, KeyValue, KeyValueLayout, Line, LineItem, Method,
    Page, PageBox, PageMethod, Provenance, Table, TableMethod, Word,
};
use serde_json::{Value, json};

use super::*;

const LINE_HEIGHT: f64 = 10.0;

/// A line of words at `y`, starting at `x`, each word 6 points per character plus a space.
fn line(x: f64, y: f64, text: &str) -> Line {
    let mut words = Vec::new();
    let mut left = x;
    for word in text.split_whitespace() {
        let width = 6.0 * word.chars().count() as f64;
        words.push(Word {
            text: word.into(),
            bbox: PageBox::from_edges(1, left, y, left + width, y + LINE_HEIGHT),
            confidence: Confidence::CERTAIN,
        });
        left += width + 6.0;
    }
    Line::from_words(words, Some(LINE_HEIGHT)).expect("words")
}

fn pair(key: &str, value: &str, y: f64) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: value.into(),
        page: 1,
        key_box: PageBox::from_edges(1, 50.0, y, 150.0, y + LINE_HEIGHT),
        value_box: PageBox::from_edges(1, 160.0, y, 260.0, y + LINE_HEIGHT),
        layout: KeyValueLayout::Inline,
        source: Method::TextLayer,
        confidence: Confidence::new(0.9),
    }
}

fn header_field(value: &str, y: f64, confidence: f64) -> HeaderField {
    HeaderField {
        value: value.into(),
        text: value.into(),
        confidence: Confidence::new(confidence),
        source: Provenance {
            page: 1,
            bbox: PageBox::from_edges(1, 400.0, y, 500.0, y + LINE_HEIGHT),
            method: Method::KeyValue,
        },
        agrees_with_embedded: None,
    }
}

fn cell(row: u32, col: u32, text: &str) -> Cell {
    let x = 50.0 + f64::from(col) * 100.0;
    let y = 400.0 + f64::from(row) * 12.0;
    Cell {
        row,
        col,
        row_span: 1,
        col_span: 1,
        merged: false,
        text: text.into(),
        bbox: PageBox::from_edges(1, x, y, x + 100.0, y + 12.0),
        line_boxes: Vec::new(),
        confidence: if text.is_empty() {
            Confidence::NONE
        } else {
            Confidence::CERTAIN
        },
    }
}

fn items_table() -> Table {
    let rows = [
        ["Pos.", "Bezeichnung", "Menge", "Einzelpreis EUR", "Gesamt"],
        ["1", "Trennblätter A4", "20 Stück", "9,90", "198,00"],
        ["2", "Joghurt Banane", "50", "5,50", "275,00"],
        ["3", "Kaffeebohnen", "1.000", "0,76", "761,56"],
        ["", "", "", "Summe", "1.234,56"],
    ];
    let cells = rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(move |(c, text)| cell(r as u32, c as u32, text))
        })
        .collect();
    Table::new(1, TableMethod::Ruling, Method::TextLayer, 5, 5, cells).expect("table")
}

/// One page of a German invoice: some values as key-value pairs, some only as header fields,
/// some only printed (a label above its value, an IBAN, an e-mail address), and an item table.
fn invoice() -> DocumentExtraction {
    let mut lines = vec![
        line(50.0, 40.0, "Rechnung"),
        line(50.0, 60.0, "Rechnungsnummer: RE-2024-0815"),
        line(50.0, 75.0, "Kundennummer: K-4711"),
        line(50.0, 90.0, "Bestellnummer"),
        line(50.0, 101.0, "PO-99"),
        line(50.0, 130.0, "IBAN DE89 3704 0044 0532 0130 00"),
        line(50.0, 145.0, "Fragen an buchhaltung@lieferant.de"),
        line(50.0, 160.0, "Gesamtbetrag: 1.234,56 €"),
        line(50.0, 175.0, "Lieferdatum 03/04/2024"),
    ];
    for (order, line) in lines.iter_mut().enumerate() {
        line.order = order as u32;
    }
    let header = HeaderFields {
        invoice_number: Some(header_field("RE-2024-0815", 60.0, 0.95)),
        issue_date: Some(header_field("2024-03-05", 20.0, 0.9)),
        seller_name: Some(header_field("Lieferant GmbH", 10.0, 0.8)),
        seller_vat_id: Some(header_field("DE999999999", 200.0, 0.9)),
        gross_total: Some(header_field("1234.56", 160.0, 0.9)),
        ..HeaderFields::default()
    };
    DocumentExtraction {
        pages_processed: 1,
        header,
        tables: vec![items_table()],
        key_values: vec![
            pair("Rechnungsnummer", "RE-2024-0815", 60.0),
            pair("Kundennummer", "K-4711", 75.0),
            pair("Gesamtbetrag", "1.234,56 €", 160.0),
        ],
        codes: Vec::new(),
        line_items: Vec::new(),
        pages: vec![Page {
            page: 1,
            width: 595.0,
            height: 842.0,
            coordinate_frame: CoordinateFrame::PdfPointsTopLeft,
            method: PageMethod::TextLayer,
            rotation: 0,
            columns: 1,
            lines,
            rulings: Vec::new(),
            recogniser: None,
        }],
        embedded_invoice: None,
    }
}

fn map(schema: Value, document: &DocumentExtraction) -> MappedDocument {
    CallerSchema::new(&schema)
        .unwrap_or_else(|e| panic!("schema refused: {e}"))
        .map(document)
}

fn method_of(result: &PropertyResult) -> Option<Method> {
    result.source.map(|s| s.method)
}

#[test]
fn key_value_stage_by_name_title_and_x_labels() {
    let mapped = map(
        json!({"type": "object", "properties": {
            "Kundennummer": {"type": "string"},
            "invoice_no": {"type": "string", "title": "Rechnungsnummer"},
            "total": {"type": "number", "x-labels": ["Gesamtbetrag"]}
        }}),
        &invoice(),
    );
    let p = &mapped.properties;
    assert_eq!(
        p["Kundennummer"].value,
        MappedValue::Scalar(json!("K-4711"))
    );
    assert_eq!(method_of(&p["Kundennummer"]), Some(Method::KeyValue));
    assert_eq!(
        p["invoice_no"].value,
        MappedValue::Scalar(json!("RE-2024-0815"))
    );
    assert_eq!(method_of(&p["invoice_no"]), Some(Method::KeyValue));
    assert_eq!(p["total"].value, MappedValue::Scalar(json!(1234.56)));
    assert_eq!(p["total"].confidence.value(), 0.9);
    insta::assert_json_snapshot!("key_value_stage", mapped);
}

#[test]
fn vocabulary_stage_finds_header_fields_by_german_or_english_names() {
    let mapped = map(
        json!({"type": "object", "properties": {
            "Rechnungsdatum": {"type": "string", "format": "date"},
            "date_of_issue": {"type": "string"},
            "seller_name": {"type": "string"},
            "amount": {"type": "number", "description": "Invoice total"}
        }}),
        &invoice(),
    );
    let p = &mapped.properties;
    assert_eq!(
        p["Rechnungsdatum"].value,
        MappedValue::Scalar(json!("2024-03-05"))
    );
    assert_eq!(method_of(&p["Rechnungsdatum"]), Some(Method::Vocabulary));
    assert_eq!(
        p["date_of_issue"].value,
        MappedValue::Scalar(json!("2024-03-05"))
    );
    assert_eq!(
        p["seller_name"].value,
        MappedValue::Scalar(json!("Lieferant GmbH"))
    );
    assert_eq!(p["amount"].value, MappedValue::Scalar(json!(1234.56)));
    assert_eq!(method_of(&p["amount"]), Some(Method::Vocabulary));
    insta::assert_json_snapshot!("vocabulary_stage", mapped);
}

#[test]
fn pattern_stage_label_on_the_page_and_self_identifying_forms() {
    let mapped = map(
        json!({"type": "object", "properties": {
            "order_reference": {"type": "string", "x-labels": ["Bestellnummer"]},
            "bank_account": {"type": "string", "format": "iban"},
            "contact": {"type": "string", "format": "email"},
            "delivery": {"type": "string", "format": "date", "title": "Lieferdatum"},
            "ticket": {"type": "string", "pattern": "^PO-[0-9]+$"}
        }}),
        &invoice(),
    );
    let p = &mapped.properties;
    assert_eq!(
        p["order_reference"].value,
        MappedValue::Scalar(json!("PO-99"))
    );
    assert_eq!(method_of(&p["order_reference"]), Some(Method::Pattern));
    assert_eq!(
        p["bank_account"].value,
        MappedValue::Scalar(json!("DE89370400440532013000"))
    );
    assert_eq!(
        p["contact"].value,
        MappedValue::Scalar(json!("buchhaltung@lieferant.de"))
    );
    // A German document: the slash date is read day first.
    assert_eq!(
        p["delivery"].value,
        MappedValue::Scalar(json!("2024-04-03"))
    );
    assert_eq!(p["ticket"].value, MappedValue::Scalar(json!("PO-99")));
    assert!(p.values().all(|r| method_of(r) == Some(Method::Pattern)));
    insta::assert_json_snapshot!("pattern_stage", mapped);
}

#[test]
fn a_description_names_a_field_only_as_a_whole() {
    let mapped = map(
        json!({"type": "object", "properties": {
            "reference": {"type": "string", "description": "The reference quoted on the invoice"},
            "sum": {"type": "number", "description": "Invoice total"}
        }}),
        &invoice(),
    );
    // "…on the invoice" ends with the label `Invoice` but is no invoice number.
    assert!(
        !mapped.properties["reference"].found,
        "{:?}",
        mapped.properties["reference"]
    );
    assert_eq!(
        mapped.properties["sum"].value,
        MappedValue::Scalar(json!(1234.56))
    );
}

#[test]
fn not_found_is_null_with_confidence_zero() {
    let mapped = map(
        json!({"type": "object", "properties": {"Lieblingsfarbe": {"type": "string"}}}),
        &invoice(),
    );
    let result = &mapped.properties["Lieblingsfarbe"];
    assert_eq!(result.value, MappedValue::Null);
    assert!(!result.found);
    assert_eq!(result.confidence, Confidence::NONE);
    assert_eq!(result.source, None);
    let json = serde_json::to_value(result).expect("serialises");
    assert_eq!(
        json,
        json!({"value": null, "confidence": 0.0, "found": false, "source": null})
    );
}

#[test]
fn a_value_that_fails_its_property_schema_is_not_found() {
    let mapped = map(
        json!({"type": "object", "properties": {
            "customer": {"type": "string", "title": "Kundennummer", "pattern": "^C-[0-9]+$"},
            "small_total": {"type": "number", "title": "Gesamtbetrag", "maximum": 100},
            "kind": {"type": "string", "title": "Rechnungsnummer", "enum": ["A", "B"]},
            "big_total": {"type": "number", "title": "Gesamtbetrag", "minimum": 1000}
        }}),
        &invoice(),
    );
    let p = &mapped.properties;
    for name in ["customer", "small_total", "kind"] {
        assert!(!p[name].found, "{name}");
        assert_eq!(p[name].value, MappedValue::Null, "{name}");
        let reason = p[name].reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("does not satisfy the schema"),
            "{name}: {reason}"
        );
    }
    assert_eq!(p["big_total"].value, MappedValue::Scalar(json!(1234.56)));
    insta::assert_json_snapshot!("validation", mapped);
}

#[test]
fn a_value_of_the_wrong_form_falls_through_to_the_next_stage() {
    // The key-value pair `Kundennummer: K-4711` is not a number; nothing else is either.
    let mapped = map(
        json!({"type": "object", "properties": {
            "customer": {"type": "integer", "title": "Kundennummer"}
        }}),
        &invoice(),
    );
    assert!(!mapped.properties["customer"].found);
}

#[test]
fn nested_objects_recurse_and_name_their_party() {
    let mapped = map(
        json!({"type": "object", "properties": {
            "seller": {"type": "object", "properties": {
                "name": {"type": "string"}, "vat_id": {"type": "string"}}},
            "buyer": {"type": "object", "title": "Käufer", "properties": {
                "name": {"type": "string"}, "vat_id": {"type": "string"}}}
        }}),
        &invoice(),
    );
    let p = &mapped.properties;
    let MappedValue::Object(seller) = &p["seller"].value else {
        panic!("object")
    };
    assert_eq!(
        seller["name"].value,
        MappedValue::Scalar(json!("Lieferant GmbH"))
    );
    assert_eq!(
        seller["vat_id"].value,
        MappedValue::Scalar(json!("DE999999999"))
    );
    assert!(p["seller"].found);
    // The buyer's VAT id is not the seller's.
    let MappedValue::Object(buyer) = &p["buyer"].value else {
        panic!("object")
    };
    assert!(!buyer["vat_id"].found);
    assert!(!p["buyer"].found);
    insta::assert_json_snapshot!("nested", mapped);
}

fn line_items_schema() -> Value {
    json!({"type": "object", "properties": {
        "positionen": {"type": "array", "title": "Positionen", "items": {
            "type": "object", "properties": {
                "description": {"type": "string", "title": "Bezeichnung"},
                "quantity": {"type": "number", "x-labels": ["Menge"]},
                "unit_price": {"type": "number", "title": "Einzelpreis"},
                "line_total": {"type": "number", "title": "Gesamt", "minimum": 0}
            }}}
    }})
}

#[test]
fn an_array_of_objects_is_mapped_onto_the_matching_table() {
    let mapped = map(line_items_schema(), &invoice());
    let result = &mapped.properties["positionen"];
    assert!(result.found);
    assert_eq!(method_of(result), Some(Method::Table));
    let MappedValue::Array(rows) = &result.value else {
        panic!("array")
    };
    assert_eq!(rows.len(), 3, "the sum line is not an item");
    let MappedValue::Object(first) = &rows[0].value else {
        panic!("object")
    };
    assert_eq!(
        first["description"].value,
        MappedValue::Scalar(json!("Trennblätter A4"))
    );
    assert_eq!(first["quantity"].value, MappedValue::Scalar(json!(20.0)));
    assert_eq!(first["unit_price"].value, MappedValue::Scalar(json!(9.9)));
    assert_eq!(first["line_total"].value, MappedValue::Scalar(json!(198.0)));
    let cell_box = first["line_total"]
        .source
        .and_then(|s| s.bbox)
        .expect("box");
    assert_eq!((cell_box.x, cell_box.y), (450.0, 412.0));
    insta::assert_json_snapshot!("table", mapped);
}

#[test]
fn no_matching_table_is_not_found_with_the_reason() {
    let mapped = map(
        json!({"type": "object", "properties": {"trips": {"type": "array", "items": {
            "type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}}}}}}),
        &invoice(),
    );
    let result = &mapped.properties["trips"];
    assert!(!result.found);
    assert_eq!(result.value, MappedValue::Null);
    assert!(
        result
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("(destination, origin)")),
        "{result:?}"
    );
}

#[test]
fn an_array_of_values_collects_every_one() {
    let mut document = invoice();
    document.pages[0]
        .lines
        .push(line(50.0, 300.0, "oder DE02 1203 0000 0000 2020 51"));
    let mapped = map(
        json!({"type": "object", "properties": {"accounts": {"type": "array",
            "items": {"type": "string", "format": "iban"}}}}),
        &document,
    );
    let MappedValue::Array(items) = &mapped.properties["accounts"].value else {
        panic!("array")
    };
    let values: Vec<&MappedValue> = items.iter().map(|i| &i.value).collect();
    assert_eq!(
        values,
        [
            &MappedValue::Scalar(json!("DE89370400440532013000")),
            &MappedValue::Scalar(json!("DE02120300000000202051"))
        ]
    );
}

fn with_embedded_invoice() -> DocumentExtraction {
    let mut document = invoice();
    let mut fields = BTreeMap::new();
    fields.insert(HeaderFieldName::InvoiceNumber, "471102".to_owned());
    fields.insert(HeaderFieldName::IssueDate, "2018-03-05".to_owned());
    fields.insert(HeaderFieldName::GrossTotal, "235.62".to_owned());
    document.embedded_invoice = Some(EmbeddedInvoice {
        file_name: "ZUGFeRD-invoice.xml".into(),
        syntax: Some(InvoiceSyntax::Cii),
        profile: Some("urn:ferd:CrossIndustryDocument:invoice:1p0:basic".into()),
        fields,
        line_items: vec![
            LineItem {
                description: Some("Trennblätter A4".into()),
                quantity: Some("20.0000".into()),
                unit_price: Some("9.90".into()),
                line_total: Some("198.00".into()),
                source: None,
            },
            LineItem {
                description: Some("Joghurt Banane".into()),
                quantity: Some("50.0000".into()),
                unit_price: None,
                line_total: Some("275.00".into()),
                source: None,
            },
        ],
        problems: Vec::new(),
    });
    document
}

#[test]
fn the_embedded_e_invoice_answers_first() {
    let mut schema = line_items_schema();
    schema["properties"]["invoice_number"] = json!({"type": "string", "title": "Rechnungsnummer"});
    schema["properties"]["datum"] =
        json!({"type": "string", "format": "date", "title": "Rechnungsdatum"});
    schema["properties"]["total"] = json!({"type": "number", "title": "Gesamtbetrag"});
    schema["properties"]["customer"] = json!({"type": "string", "title": "Kundennummer"});
    let mapped = map(schema, &with_embedded_invoice());
    let p = &mapped.properties;
    assert_eq!(
        p["invoice_number"].value,
        MappedValue::Scalar(json!("471102"))
    );
    assert_eq!(p["invoice_number"].source, Some(Source::embedded()));
    assert_eq!(p["datum"].value, MappedValue::Scalar(json!("2018-03-05")));
    assert_eq!(p["total"].value, MappedValue::Scalar(json!(235.62)));
    // Not in the XML: the printed page answers.
    assert_eq!(method_of(&p["customer"]), Some(Method::KeyValue));
    let MappedValue::Array(rows) = &p["positionen"].value else {
        panic!("array")
    };
    assert_eq!(rows.len(), 2);
    assert_eq!(p["positionen"].source, Some(Source::embedded()));
    let json = serde_json::to_value(&p["invoice_number"]).expect("serialises");
    assert_eq!(
        json["source"],
        json!({"page": null, "box": null, "method": "embedded_xml"})
    );
    insta::assert_json_snapshot!("embedded_xml", mapped);
}

#[test]
fn local_refs_and_nullable_types_are_followed() {
    let mapped = map(
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"money": {"type": "number", "minimum": 0}},
            "properties": {
                "total": {"$ref": "#/definitions/money", "title": "Gesamtbetrag"},
                "order": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Bestellnummer"}
            }
        }),
        &invoice(),
    );
    assert_eq!(
        mapped.properties["total"].value,
        MappedValue::Scalar(json!(1234.56))
    );
    assert_eq!(
        mapped.properties["order"].value,
        MappedValue::Scalar(json!("PO-99"))
    );
}

fn refused(schema: Value) -> SchemaError {
    CallerSchema::new(&schema).expect_err("refused")
}

#[test]
fn every_bad_schema_is_refused_with_its_reason() {
    let mut cases: Vec<(&str, SchemaError)> = Vec::new();
    cases.push(("not an object", refused(json!(["a"]))));
    cases.push(("describes a string", refused(json!({"type": "string"}))));
    cases.push(("no properties", refused(json!({"type": "object"}))));
    let long = "x".repeat(MAX_SCHEMA_BYTES);
    cases.push((
        "over 64 KB",
        refused(json!({"properties": {"a": {"description": long}}})),
    ));
    let mut deep = json!({"type": "string"});
    for _ in 0..9 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    cases.push(("nine levels deep", refused(deep)));
    let many: serde_json::Map<String, Value> = (0..=MAX_PROPERTIES)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    cases.push(("201 properties", refused(json!({"properties": many}))));
    cases.push((
        "remote $ref",
        refused(json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}})),
    ));
    cases.push((
        "relative file $ref",
        refused(json!({"properties": {"a": {"$ref": "other.json#/x"}}})),
    ));
    cases.push((
        "unknown draft",
        refused(json!({"$schema": "https://json-schema.org/draft/2031-01/schema", "properties": {"a": {}}})),
    ));
    cases.push((
        "invalid keyword value",
        refused(json!({"properties": {"a": {"type": "text"}}})),
    ));
    cases.push((
        "dangling local $ref",
        refused(json!({"properties": {"a": {"$ref": "#/$defs/missing"}}})),
    ));
    cases.push((
        "recursive $ref",
        refused(json!({"$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}},
            "properties": {"tree": {"$ref": "#/$defs/node"}}})),
    ));
    let messages: Vec<(String, String)> = cases
        .into_iter()
        .map(|(case, error)| (case.to_owned(), error.to_string()))
        .collect();
    assert!(matches!(
        refused(json!(["a"])),
        SchemaError::NotAnObject { .. }
    ));
    assert!(matches!(
        refused(json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}})),
        SchemaError::NonLocalRef { .. }
    ));
    insta::assert_json_snapshot!("bad_schemas", messages);
}

#[test]
fn limits_are_inclusive() {
    let mut deep = json!({"type": "string"});
    for _ in 0..7 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    assert!(CallerSchema::new(&json!({"type": "object", "properties": {"a": deep}})).is_ok());
    let many: serde_json::Map<String, Value> = (0..MAX_PROPERTIES)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    assert!(CallerSchema::new(&json!({"properties": many})).is_ok());
    for draft in [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
    ] {
        assert!(
            CallerSchema::new(&json!({"$schema": draft, "properties": {"a": {}}})).is_ok(),
            "{draft}"
        );
    }
}

#[test]
fn the_answer_schema_is_self_contained() {
    // Embedded as is in /openapi.json, where `#/$defs/…` would point at the wrong document.
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<MappedDocument>()
        .to_value();
    let text = schema.to_string();
    assert!(!text.contains("$ref"), "{text}");
    assert!(
        text.contains("confidence") && text.contains("embedded_xml"),
        "{text}"
    );
}
