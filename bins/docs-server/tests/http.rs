//! The document server in process: liveness, readiness (facilitator, scratch directory, OCR
//! languages), the discovery documents naming the paid routes, and the configuration
//! checks at start-up. A wiremock server stands in for the facilitator.

use axum::http::StatusCode;
use docs_server::{AppState, DocsConfig, router};
use serde_json::json;
use server_kit::testing::{PaidTestApp, silent_facilitator, supported_mock};

const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const HOST: &str = "docs.test";
const NETWORK: &str = "eip155:8453";
const USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const FREE_ROUTES: [&str; 8] = [
    "/",
    "/.well-known/x402",
    "/health",
    "/llms.txt",
    "/openapi.json",
    "/pricing",
    "/readiness",
    "/server.json",
];

// ---------------------------------------------------------------------------------------------
// The harness.

/// The default configuration, paying to `PAY_TO` through the facilitator at `facilitator_url`.
fn config(facilitator_url: String) -> DocsConfig {
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    // Deserialised rather than named, so the tests need no alloy of their own.
    config.common.payment.pay_to = Some(serde_json::from_value(json!(PAY_TO)).expect("address"));
    config.common.facilitator.url = Some(facilitator_url);
    config
}

/// An app on the test configuration after `configure`; the facilitator answers nothing unless
/// a test mounts a route, and any other call fails the test.
async fn app(configure: impl FnOnce(&mut DocsConfig)) -> PaidTestApp {
    PaidTestApp::new(HOST, silent_facilitator().await, |facilitator| {
        let mut config = config(facilitator.uri());
        configure(&mut config);
        router(AppState::new(config).expect("configuration is valid"))
    })
}

// ---------------------------------------------------------------------------------------------
// Operations.

#[tokio::test]
async fn health_answers_without_asking_anyone() {
    let app = app(|_| {}).await;
    let reply = app.get("/health").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json(), json!({"status": "ok"}));
}

#[tokio::test]
async fn ready_when_the_facilitator_supports_the_network_and_the_temp_dir_is_writable() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let scratch_path = scratch.path().display().to_string();
    let app = app(|config| config.temp_dir = Some(scratch_path)).await;
    app.mount(supported_mock(NETWORK).expect(1)).await;

    let reply = app.get("/readiness").await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        reply.json(),
        json!({"ready": true, "checks": {"facilitator": "ok", "temp_dir": "ok",
            "ocr_languages": "ok", "workers": "ok"}})
    );
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("list").count(),
        0,
        "the probe cleans up after itself"
    );
}

#[tokio::test]
async fn not_ready_when_a_dependency_fails() {
    let missing = std::env::temp_dir()
        .join("docs-server-test-no-such-dir")
        .join(std::process::id().to_string());
    let no_program = Some(missing.join("docs-server").display().to_string());
    let program = Some(env!("CARGO_BIN_EXE_docs-server").to_owned());
    let cases = [
        (
            NETWORK,
            Some(missing.display().to_string()),
            &program,
            "temp_dir",
        ),
        ("eip155:84532", None, &program, "facilitator"),
        (NETWORK, None, &no_program, "workers"),
    ];
    for (network, temp_dir, program, failing) in cases {
        let app = app(|config| {
            config.temp_dir = temp_dir;
            config.workers.program = program.clone();
        })
        .await;
        app.mount(supported_mock(network).expect(1)).await;

        let reply = app.get("/readiness").await;
        assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{reply:?}");
        let body = reply.json();
        assert_eq!(body["ready"], false, "{body}");
        for check in ["facilitator", "temp_dir", "workers"] {
            let state = if check == failing { "failed" } else { "ok" };
            assert_eq!(body["checks"][check], state, "{check}: {body}");
        }
        assert!(
            !body.to_string().contains("docs-server-test-no-such-dir"),
            "the public answer shows no paths: {body}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Discovery documents.

#[tokio::test]
async fn openapi_lists_the_paid_and_the_free_routes() {
    let app = app(|_| {}).await;
    let doc = app.get("/openapi.json").await.json();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["servers"], json!([{"url": format!("http://{HOST}")}]));
    // What catalogues read besides the routes: a contact, short guidance, the guide's URL, and
    // an icon (served, and named by the page for people).
    assert_eq!(doc["info"]["contact"]["url"], format!("http://{HOST}/"));
    assert!(
        doc["info"]["x-guidance"]
            .as_str()
            .is_some_and(|g| g.len() < 4000)
    );
    assert_eq!(
        doc["x-agentcash-guidance"]["llmsTxtUrl"],
        format!("http://{HOST}/llms.txt")
    );
    // The official MCP Registry's server.json: a remote at /mcp, within its limits (name
    // `namespace/name` of [a-zA-Z0-9.-] and [a-zA-Z0-9._-], a description of at most 100).
    let server = app.get("/server.json").await.json();
    assert_eq!(
        server["$schema"],
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    );
    let name = server["name"].as_str().expect("name");
    let (namespace, short) = name.split_once('/').expect("one slash");
    assert!(
        !namespace.is_empty()
            && namespace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'),
        "{name}"
    );
    assert_eq!(short, "documents");
    assert!(
        server["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty() && d.len() <= 100)
    );
    assert_eq!(server["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        server["remotes"],
        json!([{"type": "streamable-http", "url": format!("http://{HOST}/mcp")}])
    );
    let icon = app.get("/favicon.svg").await;
    assert_eq!(icon.status, StatusCode::OK);
    assert_eq!(icon.header("content-type"), Some("image/svg+xml"));
    assert!(icon.text_lossy().starts_with("<svg"));
    assert!(
        app.get("/")
            .await
            .text_lossy()
            .contains("href=\"/favicon.svg\"")
    );
    let paths = doc["paths"].as_object().expect("paths");
    let mut expected: Vec<&str> = FREE_ROUTES.to_vec();
    expected.extend(["/document", "/mcp", "/ocr"]);
    expected.sort_unstable();
    assert_eq!(paths.keys().collect::<Vec<_>>(), expected);
    let document = &paths["/document"]["post"];
    assert_eq!(document["operationId"], "extract_document");
    assert!(
        document["requestBody"]["content"]["application/json"]["schema"]["properties"]["pdf_base64"]
            .is_object(),
        "{document}"
    );
    for status in ["200", "400", "402", "413", "422", "504"] {
        assert!(
            document["responses"][status].is_object(),
            "{status}: {document}"
        );
    }
    assert!(
        document["responses"]["501"].is_null(),
        "`schema` is built: {document}"
    );
    let schema_field =
        &document["requestBody"]["content"]["application/json"]["schema"]["properties"]["schema"];
    assert_eq!(
        schema_field["type"],
        json!(["object", "null"]),
        "{schema_field}"
    );
    let described = schema_field["description"].as_str().unwrap_or_default();
    assert!(described.contains("x-labels"), "{described}");
    // The 200 answer is the extraction or, with a schema, the mapped properties.
    let answer = document["responses"]["200"].to_string();
    for member in ["pages_processed", "header", "properties", "embedded_xml"] {
        assert!(answer.contains(member), "{member}: {answer}");
    }
    let ocr = &paths["/ocr"]["post"];
    assert_eq!(ocr["operationId"], "ocr_read");
    for status in ["200", "400", "402", "413", "422", "504"] {
        assert!(ocr["responses"][status].is_object(), "{status}: {ocr}");
    }
    for (path, item) in paths
        .iter()
        .filter(|(path, _)| !["/document", "/mcp", "/ocr"].contains(&path.as_str()))
    {
        let methods: Vec<&String> = item.as_object().expect("path item").keys().collect();
        assert_eq!(methods, ["get"], "{path}");
        assert!(item["get"]["responses"]["200"].is_object(), "{path}");
    }
    let mcp = &paths["/mcp"];
    assert_eq!(mcp["post"]["operationId"], "mcp");
    assert!(mcp["delete"].is_object());
    assert_eq!(
        doc["components"]["securitySchemes"]["x402"]["name"],
        "PAYMENT-SIGNATURE"
    );
}

#[tokio::test]
async fn well_known_pricing_and_llms_txt_name_the_paid_routes() {
    let app = app(|_| {}).await;

    let well_known = app.get("/.well-known/x402").await;
    assert_eq!(well_known.status, StatusCode::OK);
    assert_eq!(
        well_known.json(),
        json!({"version": 1, "resources": [format!("http://{HOST}/document"), format!("http://{HOST}/ocr")]})
    );

    let pricing = app.get("/pricing").await.json();
    assert_eq!(pricing["currency"], "USDC");
    assert_eq!(pricing["network"], NETWORK);
    assert_eq!(pricing["asset"], USDC);
    assert_eq!(pricing["pay_to"], PAY_TO);
    let routes = pricing["routes"].as_array().expect("routes");
    assert_eq!(routes.len(), 2);
    assert_eq!(routes[0]["pricing_mode"], "per_page");
    assert_eq!(
        routes[0]["price"],
        json!({"text_layer_page": "0.020000", "ocr_page": "0.050000", "per": "page",
            "max_pages_per_call": 20, "max_per_call": "1.000000"})
    );
    assert_eq!(
        routes[1]["price"],
        json!({"first_page": "0.006000", "further_page": "0.002000", "per": "page",
            "max_pages_per_call": 50, "max_per_call": "0.104000"})
    );

    let llms = app.get("/llms.txt").await;
    assert_eq!(llms.status, StatusCode::OK);
    let text = llms.text();
    assert!(text.starts_with("# Document extraction and OCR"), "{text}");
    assert!(
        text.contains(&format!("POST http://{HOST}/document")),
        "{text}"
    );
    assert!(text.contains(&format!("POST http://{HOST}/mcp")), "{text}");

    // The page for people: every paid route with its price, its own script and style only.
    let page = app.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let policy = page.header("content-security-policy").expect("a CSP");
    assert!(policy.contains("script-src 'self'"), "{policy}");
    let html = page.text();
    for needle in [
        "<code>/document</code>",
        "<code>/ocr</code>",
        "USDC per text-layer page",
        "src=\"/assets/landing.js\"",
        "href=\"/openapi.json\"",
    ] {
        assert!(html.contains(needle), "{needle} missing");
    }
    assert!(
        !html.contains("http://cdn") && !html.contains("https://"),
        "no third-party asset"
    );
    for asset in ["/assets/landing.js", "/assets/landing.css"] {
        assert_eq!(app.get(asset).await.status, StatusCode::OK, "{asset}");
    }
    for route in FREE_ROUTES {
        assert!(
            text.contains(&format!("GET http://{HOST}{route}")),
            "{route} missing: {text}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration checks at start-up.

#[test]
fn unusable_configurations_are_refused() {
    // USDC has 6 decimals: a seventh cannot be paid.
    const TOO_PRECISE: &str = "0.0000001";
    let facilitator = "http://127.0.0.1:9".to_owned();
    type Breakage = fn(&mut DocsConfig);
    let cases: [(&str, Breakage); 6] = [
        ("prices.document_text_layer_page", |c| {
            c.prices.document_text_layer_page = TOO_PRECISE.into();
        }),
        ("prices.document_ocr_page", |c| {
            c.prices.document_ocr_page = TOO_PRECISE.into();
        }),
        ("prices.ocr_first_page", |c| {
            c.prices.ocr_first_page = TOO_PRECISE.into();
        }),
        ("prices.ocr_further_page", |c| {
            c.prices.ocr_further_page = "abc".into();
        }),
        ("payment.pay_to", |c| c.common.payment.pay_to = None),
        ("facilitator.url", |c| c.common.facilitator.url = None),
    ];
    for (key, break_config) in cases {
        let mut config = config(facilitator.clone());
        break_config(&mut config);
        let error = AppState::new(config).expect_err(key).to_string();
        assert!(error.contains(key), "{key}: {error}");
    }
    assert!(AppState::new(config(facilitator)).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Discovery conventions (x402scan): every resource of /.well-known/x402 answers its OpenAPI
// example with a 402 whose `accepts` is not empty and whose bazaar extension carries the
// route's input schema; every paid operation carries `x-payment-info`.

#[tokio::test]
async fn every_discovered_resource_answers_its_example_with_terms_and_its_input_schema() {
    let app = app(|_| {}).await;
    let openapi = app.get("/openapi.json").await.json();
    let resources = app.get("/.well-known/x402").await.json()["resources"].clone();
    let resources = resources.as_array().expect("resources");
    assert_eq!(resources.len(), 2);
    for resource in resources {
        let url = resource.as_str().expect("a URL");
        let path = url
            .strip_prefix(&format!("http://{HOST}"))
            .expect("absolute URL on this host");
        let operation = &openapi["paths"][path]["post"];
        let payment_info = &operation["x-payment-info"];
        assert_eq!(payment_info["protocols"], json!([{"x402": {}}]));
        assert_eq!(payment_info["pricing"], "per_page");
        assert_eq!(payment_info["price"]["mode"], "dynamic");
        assert_eq!(operation["security"], json!([]));
        assert!(operation["responses"]["402"].is_object());
        let request = &operation["requestBody"]["content"]["application/json"];
        let reply = app.post_json(path, &request["example"], None).await;
        assert_eq!(
            reply.status,
            StatusCode::PAYMENT_REQUIRED,
            "{path}: {:?}",
            reply.body
        );
        let terms = serde_json::to_value(reply.terms()).expect("json");
        assert!(
            terms["accepts"].as_array().is_some_and(|a| !a.is_empty()),
            "{path}"
        );
        assert_eq!(terms["resource"]["url"], url);
        assert_eq!(
            terms["resource"]["serviceName"],
            "Document extraction and OCR"
        );
        // The catalogue's bounds hold the 402's amount.
        let atomic = |field: &str| {
            let decimal = payment_info["price"][field].as_str().expect("a bound");
            x402_core::parse_units_exact(decimal, 6).expect("a USDC amount")
        };
        let amount: alloy::primitives::U256 = terms["accepts"][0]["amount"]
            .as_str()
            .expect("amount")
            .parse()
            .expect("a number");
        assert!(atomic("min") <= amount && amount <= atomic("max"), "{path}");
        let bazaar = &terms["extensions"]["bazaar"];
        assert_eq!(
            bazaar["info"]["input"]["body"], request["example"],
            "{path}"
        );
        let mut published = request["schema"].clone();
        let examples = published
            .as_object_mut()
            .and_then(|schema| schema.remove("examples"))
            .expect("examples");
        assert_eq!(examples[0], request["example"], "{path}");
        assert_eq!(
            bazaar["schema"]["properties"]["input"]["properties"]["body"], published,
            "{path}"
        );
        assert_eq!(
            bazaar["schema"]["properties"]["output"]["properties"]["example"]["type"], "object",
            "{path}"
        );
    }
}
