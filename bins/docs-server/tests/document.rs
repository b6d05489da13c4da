//! `POST /document` and `POST /ocr` in process: the itemised 402, every refusal before the price, the paid
//! extraction (settled once, then answered from the cache), and work that fails or finds
//! nothing (never settled). A wiremock server stands in for the facilitator and for the web
//! servers documents are fetched from; the files are the committed fixtures of testdata/pdf.

mod support;

use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use server_kit::testing::mount_paying_facilitator;
use support::pdf::{blank_pdf, blank_pdf_pages};
use support::{App, fixture, inline, testdata};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn the_402_itemises_every_page_and_asks_for_exactly_their_total() {
    let app = App::new().await;
    let reply = app.post(&inline("multipage.pdf"), None).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{}", reply.body);
    let price = &reply.body["price"];
    let pages = price["pages"].as_array().expect("pages");
    assert!(pages.len() > 1, "{price}");
    let total: u64 = pages
        .iter()
        .map(|p| match p["kind"].as_str() {
            Some("text_layer") => 20_000,
            Some("ocr") => 50_000,
            other => panic!("kind {other:?}"),
        })
        .sum();
    assert_eq!(price["total_atomic"], total.to_string());
    let terms = reply.terms();
    assert_eq!(terms.accepts[0].amount, total.to_string());
    assert_eq!(reply.body["accepts"][0]["amount"], total.to_string());
    assert_eq!(terms.resource.url, "http://docs.test/document");
    insta::assert_json_snapshot!("document_402_zugferd", {
        let reply = app.post(&inline("zugferd_basic_einfach.pdf"), None).await;
        json!({"price": reply.body["price"], "accepts": reply.body["accepts"]})
    });
}

#[tokio::test]
async fn a_page_without_a_text_layer_is_priced_as_ocr_and_pages_narrow_the_price() {
    let app = App::new().await;
    let reply = app.post(&inline("image_only.pdf"), None).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{}", reply.body);
    assert_eq!(reply.body["price"]["pages"][0]["kind"], "ocr");
    assert_eq!(reply.body["price"]["total"], "0.050000");

    let mut body = inline("multipage.pdf");
    body["pages"] = json!("2");
    let reply = app.post(&body, None).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{}", reply.body);
    let pages = reply.body["price"]["pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0]["page"], 2);

    body["pages"] = json!("40-");
    let reply = app.post(&body, None).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.body);
    assert_eq!(reply.detail_fields(), ["pages"]);
}

#[tokio::test]
async fn files_that_cannot_be_read_are_refused_before_any_price() {
    let app = App::new().await;
    let cases = [
        (
            json!({"pdf_base64": "%%% not base64"}),
            StatusCode::BAD_REQUEST,
            "pdf_base64",
        ),
        (
            inline("encrypted_user_password.pdf"),
            StatusCode::BAD_REQUEST,
            "pdf_base64",
        ),
        (inline("invalid.pdf"), StatusCode::BAD_REQUEST, "pdf_base64"),
        (
            json!({"pdf_base64": STANDARD.encode(b"hello, not a pdf")}),
            StatusCode::BAD_REQUEST,
            "pdf_base64",
        ),
        (
            json!({"pdf_base64": "JVBERi0=", "url": "https://example.com/a.pdf"}),
            StatusCode::BAD_REQUEST,
            "pdf_base64",
        ),
        (json!({}), StatusCode::BAD_REQUEST, "pdf_base64"),
    ];
    for (body, status, field) in cases {
        let reply = app.post(&body, None).await;
        assert_eq!(reply.status, status, "{}", reply.body);
        assert_eq!(reply.body["charged"], false);
        assert!(
            reply.detail_fields().iter().any(|f| f == field),
            "{}",
            reply.body
        );
        assert!(!reply.headers.contains_key("payment-required"));
    }
    // 15 MB + 1 byte, decoded from its length alone.
    let oversized = STANDARD.encode(vec![b'%'; 15_728_641]);
    let reply = app.post(&json!({"pdf_base64": oversized}), None).await;
    assert_eq!(
        reply.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        reply.body
    );
    assert_eq!(reply.body["error"], "payload_too_large");
}

#[tokio::test]
async fn a_paid_invoice_is_extracted_settled_once_and_then_served_from_the_cache() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 2).await;
    let body = inline("zugferd_basic_einfach.pdf");
    let first = app.pay(&body, "first").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.headers["x-cache"], "miss");
    assert!(first.headers.contains_key("payment-response"));
    let answer = &first.body;
    assert_eq!(answer["pages_processed"], 1);
    assert_eq!(answer["pages"][0]["method"], "text_layer");
    assert_eq!(
        answer["pages"][0]["coordinate_frame"],
        "pdf_points_top_left"
    );
    let lines = answer["pages"][0]["lines"].as_array().expect("lines");
    assert!(lines.len() > 10, "{}", lines.len());
    for line in lines {
        assert_eq!(line["box"]["page"], 1);
        assert_eq!(line["confidence"], 1.0);
    }
    let header = &answer["header"];
    for field in header
        .as_object()
        .expect("header")
        .values()
        .filter(|v| !v.is_null())
    {
        assert_eq!(field["source"]["page"], 1, "{field}");
        assert!(
            field["confidence"].as_f64().is_some_and(|c| c > 0.0),
            "{field}"
        );
    }
    assert!(header["invoice_number"].is_object(), "{header}");

    let second = app.pay(&body, "second").await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert_eq!(second.headers["x-cache"], "hit");
    assert_eq!(second.body, first.body);
}

#[tokio::test]
async fn nothing_found_is_not_settled() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 0).await;
    let blank = json!({"pdf_base64": STANDARD.encode(blank_pdf())});
    let reply = app.pay(&blank, "blank").await;
    assert_eq!(
        reply.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        reply.body
    );
    assert_eq!(reply.body["error"], "extraction_failed");
    assert_eq!(reply.body["charged"], false);
    assert!(!reply.headers.contains_key("payment-response"));
}

/// An invoice schema with German titles and a line-item array (the worked example of
/// docs/documents.md).
fn invoice_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "rechnungsnummer": {"type": "string", "title": "Rechnungsnummer"},
            "rechnungsdatum": {"type": "string", "format": "date", "title": "Rechnungsdatum"},
            "lieferant": {"type": "string", "title": "Verkäufer"},
            "gesamtbetrag": {"type": "number", "title": "Gesamtbetrag", "x-labels": ["Bruttobetrag"]},
            "iban": {"type": "string", "format": "iban"},
            "positionen": {
                "type": "array", "title": "Positionen",
                "items": {"type": "object", "properties": {
                    "bezeichnung": {"type": "string", "title": "Bezeichnung", "x-labels": ["Artikelname"]},
                    "menge": {"type": "number", "title": "Menge"},
                    "einzelpreis": {"type": "number", "title": "Einzelpreis", "x-labels": ["Preis"]},
                    "betrag": {"type": "number", "title": "Betrag", "x-labels": ["Gesamtpreis"]}
                }}
            }
        }
    })
}

#[tokio::test]
async fn a_schema_is_mapped_settled_at_the_page_price_and_then_served_from_the_cache() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 2).await;
    let mut body = inline("zugferd_basic_einfach.pdf");
    body["schema"] = invoice_schema();

    let unpaid = app.post(&body, None).await;
    assert_eq!(
        unpaid.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        unpaid.body
    );
    assert_eq!(
        unpaid.terms().accepts[0].amount,
        "20000",
        "the page price, schema or not"
    );
    let described = unpaid.body["inputSchema"]["properties"]["schema"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(
        described.contains("x-labels"),
        "{}",
        unpaid.body["inputSchema"]
    );
    let header = unpaid.header("payment-required").expect("PAYMENT-REQUIRED");
    assert!(header.len() < 8192, "{} bytes", header.len());

    let first = app.pay(&body, "schema").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.headers["x-cache"], "miss");
    assert!(first.headers.contains_key("payment-response"));
    let answer = &first.body;
    assert_eq!(answer["pages_processed"], 1);
    let properties = answer["properties"].as_object().expect("properties");
    assert_eq!(properties.len(), 6, "{answer}");
    let number = &properties["rechnungsnummer"];
    assert_eq!(number["value"], "471102", "{answer}");
    assert_eq!(number["found"], true);
    // This PDF carries its invoice as ZUGFeRD XML: the schema is answered from it first, with
    // no page or box.
    assert_eq!(number["source"]["method"], "embedded_xml", "{number}");
    assert_eq!(number["source"]["page"], Value::Null);
    assert_eq!(
        properties["rechnungsdatum"]["value"], "2013-03-05",
        "{answer}"
    );
    assert_eq!(properties["gesamtbetrag"]["value"], 235.62, "{answer}");
    assert_eq!(
        properties["lieferant"]["value"], "Lieferant GmbH",
        "{answer}"
    );
    // The line items come from the XML too (the printed item table is not detected as a table).
    let items = &properties["positionen"];
    assert_eq!(items["found"], true, "{items}");
    assert_eq!(items["source"]["method"], "embedded_xml", "{items}");
    let first_item = &items["value"][0]["value"];
    assert_eq!(first_item["menge"]["value"], 20.0, "{items}");
    assert_eq!(first_item["betrag"]["value"], 198.0, "{items}");
    for (name, result) in properties {
        let found = result["found"].as_bool().expect("found");
        let confidence = result["confidence"].as_f64().expect("confidence");
        if found {
            assert!(confidence > 0.0 && confidence <= 1.0, "{name}: {result}");
        } else {
            assert_eq!(result["value"], Value::Null, "{name}");
            assert_eq!(confidence, 0.0, "{name}");
        }
    }
    insta::assert_json_snapshot!("document_with_schema", answer);

    let second = app.pay(&body, "schema again").await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert_eq!(second.headers["x-cache"], "hit");
    assert_eq!(second.body, first.body);
}

#[tokio::test]
async fn an_array_of_objects_is_read_from_the_ruled_table_one_item_per_row() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let mut body = inline("ruled_table.pdf");
    body["schema"] = invoice_schema();
    body["schema"]["properties"]["netto"] = json!({"type": "number", "title": "Summe netto"});
    let reply = app.pay(&body, "table").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let properties = &reply.body["properties"];
    assert_eq!(
        properties["rechnungsdatum"]["value"], "2024-03-12",
        "{properties}"
    );
    assert_eq!(properties["netto"]["value"], 473.0, "{properties}");
    let items = &properties["positionen"];
    assert_eq!(items["found"], true, "{items}");
    assert_eq!(items["source"]["method"], "table");
    let rows = items["value"].as_array().expect("rows");
    let read: Vec<(String, f64, f64, f64)> = rows
        .iter()
        .map(|row| {
            let cell = |name: &str| row["value"][name]["value"].clone();
            (
                cell("bezeichnung").as_str().unwrap_or_default().to_owned(),
                cell("menge").as_f64().unwrap_or(-1.0),
                cell("einzelpreis").as_f64().unwrap_or(-1.0),
                cell("betrag").as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("Trennblätter A4".to_owned(), 20.0, 9.9, 198.0),
            ("Joghurt Banane".to_owned(), 50.0, 5.5, 275.0),
            ("Versand".to_owned(), 1.0, 0.0, 0.0),
        ]
    );
    for row in rows {
        for cell in row["value"].as_object().expect("cells").values() {
            assert_eq!(cell["source"]["method"], "table", "{cell}");
            assert_eq!(cell["source"]["page"], 1, "{cell}");
            assert!(
                cell["source"]["box"]["w"].as_f64().is_some_and(|w| w > 0.0),
                "{cell}"
            );
        }
    }
    insta::assert_json_snapshot!("ruled_table_with_schema", properties["positionen"]);
}

#[tokio::test]
async fn a_bad_schema_is_refused_before_the_price_and_never_charged() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 0).await;
    // A url that must never be fetched: the schema is refused first.
    let web = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200).set_body_bytes(fixture("zugferd_basic_einfach.pdf")),
        )
        .expect(0)
        .mount(&web)
        .await;
    let deep = (0..9).fold(
        json!({"type": "string"}),
        |inner, _| json!({"type": "object", "properties": {"a": inner}}),
    );
    let many: serde_json::Map<String, Value> = (0..201)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    // Terms for this file without a schema: a signed payment sent with the bad schema.
    let terms = app
        .post(&inline("zugferd_basic_einfach.pdf"), None)
        .await
        .terms();
    let cases = [
        ("not an object", json!("an invoice"), "object"),
        (
            "describes an array",
            json!({"type": "array", "items": {}}),
            "describing an object",
        ),
        (
            "over 64 KB",
            json!({"properties": {"a": {"description": "x".repeat(70_000)}}}),
            "65536",
        ),
        ("too deep", deep, "deeper than 8"),
        (
            "too many properties",
            json!({"properties": many}),
            "at most 200",
        ),
        (
            "remote $ref",
            json!({"properties": {"a": {"$ref": "http://169.254.169.254/schema.json"}}}),
            "not local",
        ),
        (
            "unknown draft",
            json!({"$schema": "https://json-schema.org/draft/2099-01/schema", "properties": {"a": {}}}),
            "not a known draft",
        ),
        (
            "look-around pattern",
            json!({"properties": {"a": {"type": "string", "pattern": "(?<=RE-)[0-9]+"}}}),
            "not a valid JSON Schema",
        ),
    ];
    for (case, schema, words) in cases {
        for source in [
            inline("zugferd_basic_einfach.pdf"),
            json!({"url": format!("{}/invoice.pdf", web.uri())}),
        ] {
            let mut body = source;
            body["schema"] = schema.clone();
            for payment in [None, Some("paid anyway")] {
                let reply = match payment {
                    None => app.post(&body, None).await,
                    Some(label) => {
                        let signature = server_kit::testing::payment_signature(&terms, label);
                        app.post(&body, Some(&signature)).await
                    }
                };
                assert_eq!(
                    reply.status,
                    StatusCode::BAD_REQUEST,
                    "{case}: {}",
                    reply.body
                );
                assert_eq!(reply.body["error"], "invalid_input", "{case}");
                assert_eq!(reply.body["charged"], false, "{case}");
                assert_eq!(
                    reply.body["details"][0]["field"], "schema",
                    "{case}: {}",
                    reply.body
                );
                let problem = reply.body["details"][0]["problem"]
                    .as_str()
                    .unwrap_or_default();
                assert!(problem.contains(words), "{case}: {problem}");
                assert!(!reply.headers.contains_key("payment-response"), "{case}");
            }
        }
    }
}

#[tokio::test]
async fn urls_are_fetched_safely() {
    let files = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/invoice.pdf"))
        .respond_with(
            ResponseTemplate::new(200).set_body_bytes(fixture("zugferd_basic_einfach.pdf")),
        )
        .mount(&files)
        .await;
    Mock::given(method("GET"))
        .and(path("/to-metadata"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("location", "http://169.254.169.254/latest/meta-data/"),
        )
        .mount(&files)
        .await;
    Mock::given(method("GET"))
        .and(path("/to-private"))
        .respond_with(ResponseTemplate::new(301).insert_header("location", "http://10.0.0.7/a.pdf"))
        .mount(&files)
        .await;
    Mock::given(method("GET"))
        .and(path("/huge.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(vec![b'%'; 15_728_641]))
        .mount(&files)
        .await;
    Mock::given(method("GET"))
        .and(path("/gone.pdf"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&files)
        .await;

    // Loopback is refused by default, literal or by name.
    let strict = App::new().await;
    for url in [
        format!("{}/invoice.pdf", files.uri()),
        files.uri().replace("127.0.0.1", "localhost") + "/invoice.pdf",
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://10.1.2.3/a.pdf".to_owned(),
        "http://[::ffff:127.0.0.1]/a.pdf".to_owned(),
        "file:///etc/passwd".to_owned(),
    ] {
        let reply = strict.post(&json!({"url": url}), None).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{url}: {}",
            reply.body
        );
        assert_eq!(reply.body["error"], "url_refused", "{url}");
    }

    // With loopback allowed (the demo's setting) the file server is reached, but a redirect
    // into a private or metadata address is still refused.
    let local = App::with(|c| c.fetch.allow_loopback = true).await;
    let reply = local
        .post(
            &json!({"url": format!("{}/invoice.pdf", files.uri())}),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{}", reply.body);
    assert_eq!(reply.body["price"]["total"], "0.020000");
    for (target, status, error) in [
        ("/to-metadata", StatusCode::BAD_REQUEST, "url_refused"),
        ("/to-private", StatusCode::BAD_REQUEST, "url_refused"),
        (
            "/huge.pdf",
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            "/gone.pdf",
            StatusCode::BAD_GATEWAY,
            "counterparty_unreachable",
        ),
    ] {
        let reply = local
            .post(&json!({"url": format!("{}{target}", files.uri())}), None)
            .await;
        assert_eq!(reply.status, status, "{target}: {}", reply.body);
        assert_eq!(reply.body["error"], error, "{target}");
    }
}

// ---------------------------------------------------------------------------------------------
// /ocr

fn picture(folder: &str, name: &str, mime: &str) -> Value {
    json!({"image_base64": STANDARD.encode(testdata(folder, name)), "mime": mime})
}

#[tokio::test]
async fn ocr_prices_the_first_and_further_pages_and_refuses_before_the_price() {
    let app = App::new().await;
    let reply = app
        .post_to("/ocr", &picture("ocr", "en.png", "image/png"), None)
        .await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{}", reply.body);
    assert_eq!(reply.body["price"]["total"], "0.006000");
    assert_eq!(reply.terms().accepts[0].amount, "6000");
    // A picture is one unit, itemised like a page.
    assert_eq!(
        reply.body["price"]["pages"],
        json!([{"page": 1, "kind": "picture", "amount": "0.006000"}])
    );
    assert_eq!(reply.body["price"]["page_count"], 1);

    let mut pdf = json!({"image_base64": STANDARD.encode(fixture("multipage.pdf")), "mime": "application/pdf"});
    let reply = app.post_to("/ocr", &pdf, None).await;
    assert_eq!(reply.status, StatusCode::PAYMENT_REQUIRED, "{}", reply.body);
    let pages = reply.body["price"]["pages"].as_array().expect("pages");
    assert_eq!(pages[0]["kind"], "first");
    assert_eq!(pages[1]["kind"], "further");
    let total = 6000 + 2000 * (pages.len() as u64 - 1);
    assert_eq!(reply.body["price"]["total_atomic"], total.to_string());
    pdf["pages"] = json!("1");
    let reply = app.post_to("/ocr", &pdf, None).await;
    assert_eq!(reply.body["price"]["total"], "0.006000", "{}", reply.body);

    let cases = [
        (
            picture("ocr", "wide_10001.png", "image/png"),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            picture("ocr", "bomb_60000.png", "image/png"),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            picture("ocr", "en.png", "image/jpeg"),
            StatusCode::BAD_REQUEST,
            "invalid_input",
        ),
        (
            json!({"image_base64": "iVBORw0KGgo="}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
        ),
        (
            json!({"image_base64": STANDARD.encode(testdata("ocr", "en.png")), "mime": "image/png", "languages": ["fra"]}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
        ),
        (
            json!({"image_base64": STANDARD.encode(testdata("ocr", "en.png")), "mime": "image/png", "pages": "1"}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
        ),
        (
            json!({"image_base64": STANDARD.encode(testdata("ocr", "en.png")), "mime": "image/gif"}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
        ),
    ];
    for (body, status, error) in cases {
        let reply = app.post_to("/ocr", &body, None).await;
        assert_eq!(reply.status, status, "{}", reply.body);
        assert_eq!(reply.body["error"], error, "{}", reply.body);
        assert!(!reply.headers.contains_key("payment-required"));
    }
    let reply = app
        .post_to("/ocr", &json!({"image_base64": STANDARD.encode(testdata("ocr", "en.png")), "mime": "image/png", "languages": ["fra"]}), None)
        .await;
    let message = reply.body["details"][0]["problem"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("deu") && message.contains("eng"),
        "names what is installed: {message}"
    );
    // 12 MB + 1 byte.
    let reply = app
        .post_to(
            "/ocr",
            &json!({"image_base64": STANDARD.encode(vec![0u8; 12_582_913]), "mime": "image/png"}),
            None,
        )
        .await;
    assert_eq!(
        reply.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        reply.body
    );
}

#[tokio::test]
async fn a_paid_picture_is_read_into_blocks_and_a_blank_one_is_not_settled() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 1).await;
    let reply = app
        .pay_to("/ocr", &picture("ocr", "en.png", "image/png"), "picture")
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let answer = &reply.body;
    assert_eq!(answer["pages_processed"], 1);
    assert!(answer["text"].as_str().is_some_and(|t| !t.is_empty()));
    let blocks = answer["blocks"].as_array().expect("blocks");
    assert!(blocks.iter().any(|b| b["kind"] == "heading"), "{blocks:?}");
    assert_eq!(answer["layout"]["coordinate_frame"], "pixels_top_left");
    assert_eq!(
        answer["layout"]["languages"].as_array().map(Vec::len),
        Some(blocks.len())
    );

    let blank = json!({"image_base64": STANDARD.encode(fixture("blank_page.pdf")), "mime": "application/pdf"});
    let reply = app.pay_to("/ocr", &blank, "blank").await;
    assert_eq!(
        reply.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        reply.body
    );
    assert_eq!(reply.body["error"], "empty_recognition");
    assert!(!reply.headers.contains_key("payment-response"));
}

#[tokio::test]
async fn an_ocr_call_past_its_time_budget_is_answered_504_and_not_settled() {
    // A zero budget runs out as soon as the work yields; the facilitator must see no settlement.
    let app = App::with(|config| config.time_budget.ocr_seconds = 0).await;
    mount_paying_facilitator(&app.facilitator, 0).await;
    let reply = app
        .pay_to("/ocr", &picture("ocr", "en.png", "image/png"), "too slow")
        .await;
    assert_eq!(reply.status, StatusCode::GATEWAY_TIMEOUT, "{}", reply.body);
    assert_eq!(reply.body["error"], "time_budget_exceeded");
    assert_eq!(reply.body["charged"], false);
    assert!(!reply.headers.contains_key("payment-response"));
}

// ---------------------------------------------------------------------------------------------
// Codes on both routes: the generated page with all eight symbologies (testdata/codes).

fn expected_codes() -> Vec<(String, String)> {
    let truth: Value =
        serde_json::from_slice(&testdata("codes", "truth.json")).expect("truth.json");
    // A page of truth.json lists its codes as an answer does: symbology and text.
    found_codes(&truth["pages"][0])
}

/// The (symbology, text) of every code under `codes`, sorted.
fn found_codes(answer: &Value) -> Vec<(String, String)> {
    let mut codes: Vec<(String, String)> = answer["codes"]
        .as_array()
        .expect("codes")
        .iter()
        .map(|c| {
            (
                c["symbology"].as_str().unwrap_or_default().to_owned(),
                c["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    codes.sort();
    codes
}

#[tokio::test]
async fn both_routes_return_every_code_of_the_page_once_with_parsed_payloads() {
    let app = App::new().await;
    mount_paying_facilitator(&app.facilitator, 2).await;
    let mut body = picture("codes", "all-codes-300dpi.png", "image/png");
    body["want"] = json!(["codes"]);
    let reply = app.pay_to("/ocr", &body, "codes-ocr").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(found_codes(&reply.body), expected_codes());
    assert!(
        reply.body.get("blocks").is_none(),
        "only the codes were asked for"
    );
    let codes = reply.body["codes"].as_array().expect("codes");
    let epc = codes
        .iter()
        .find(|c| c["symbology"] == "qr_code")
        .expect("QR");
    assert_eq!(epc["payload"]["type"], "epc");
    assert_eq!(epc["payload"]["iban"], "DE89370400440532013000");
    assert_eq!(epc["payload"]["amount"], "1234.56");
    let wifi = codes
        .iter()
        .find(|c| c["symbology"] == "aztec")
        .expect("Aztec");
    assert_eq!(wifi["payload"]["type"], "wifi");

    let reply = app.pay(&inline("codes_page.pdf"), "codes-document").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(found_codes(&reply.body), expected_codes());
    for code in reply.body["codes"].as_array().expect("codes") {
        let b = &code["box"];
        assert!(
            b["x"].as_f64().is_some_and(|x| (0.0..595.0).contains(&x)),
            "points: {b}"
        );
    }
}

#[tokio::test]
async fn a_pdf_over_the_page_limits_is_refused_before_any_price() {
    let app = App::new().await;
    let fifty_one = STANDARD.encode(blank_pdf_pages(51));
    let reply = app
        .post_to(
            "/ocr",
            &json!({"image_base64": fifty_one, "mime": "application/pdf"}),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.body);
    assert_eq!(reply.detail_fields(), ["pages"], "{}", reply.body);
    assert!(!reply.headers.contains_key("payment-required"));
    let reply = app
        .post_to(
            "/ocr",
            &json!({"image_base64": fifty_one, "mime": "application/pdf", "pages": "1-50"}),
            None,
        )
        .await;
    assert_eq!(
        reply.status,
        StatusCode::PAYMENT_REQUIRED,
        "50 selected pages are fine"
    );
    assert_eq!(reply.body["price"]["total"], "0.104000");
    assert!(
        reply.body["price"]["warning"].is_string(),
        "{}",
        reply.body["price"]
    );
    let reply = app
        .post(
            &json!({"pdf_base64": STANDARD.encode(blank_pdf_pages(21))}),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.body);
    assert_eq!(reply.detail_fields(), ["pages"]);
}
