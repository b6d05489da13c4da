//! `/mcp` on the local chain, driven by the official MCP TypeScript SDK client paying with the
//! official x402 client through the local facilitator: both tools are listed with their
//! schemas and read-only annotations; each is paid for exactly its price through `_meta`, a
//! replayed payment is served once, and a call that fails is never settled.

use std::path::PathBuf;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use docs_server::{AppState, DocsConfig, router};
use serde_json::{Value, json};
use test_devnet::PaidDevnet;
use test_devnet::node::McpSdk;

fn testdata(path: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn serve(world: &PaidDevnet) -> String {
    let mut config = DocsConfig::default();
    config.workers.program = Some(env!("CARGO_BIN_EXE_docs-server").into());
    test_devnet::paid::pay_locally(&mut config.common, &world.info).expect("devnet payment");
    let state = AppState::new(config).expect("configuration");
    let base = test_devnet::paid::serve(router(state))
        .await
        .expect("serve");
    format!("{base}/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_tools_are_listed_paid_once_and_failures_unsettled() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mcp = serve(&world).await;

    let listing = world.mcp_tools(&mcp).await.expect("client");
    assert_eq!(listing["protocol_version"], "2025-11-25", "{listing}");
    let tools = listing["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["extract_document", "ocr_read"]);
    for tool in tools {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
        assert!(tool["outputSchema"].is_object(), "{tool}");
    }

    // A text-layer invoice: one page at the text-layer price, the replay refused.
    let invoice = json!({"pdf_base64": STANDARD.encode(testdata("pdf/zugferd_basic_einfach.pdf"))});
    let call = world
        .mcp_paid_call(&mcp, "extract_document", invoice, true)
        .await
        .expect("client");
    call.assert_mcp_settled(20_000);
    assert_eq!(
        call.report["paid"]["structuredContent"]["header"]["invoice_number"]["value"], "471102",
        "{}",
        call.report["paid"]
    );

    // A picture through ocr_read.
    let picture =
        json!({"image_base64": STANDARD.encode(testdata("ocr/en.png")), "mime": "image/png"});
    let call = world
        .mcp_paid_call(&mcp, "ocr_read", picture, false)
        .await
        .expect("client");
    call.assert_mcp_settled(6_000);
    let blocks = &call.report["paid"]["structuredContent"]["blocks"];
    assert!(blocks.as_array().is_some_and(|b| !b.is_empty()), "{blocks}");

    // Nothing to read: paid, refused, not settled.
    let blank: Value = json!({"pdf_base64": STANDARD.encode(testdata("pdf/blank_page.pdf"))});
    world
        .mcp_paid_call(&mcp, "extract_document", blank, false)
        .await
        .expect("client")
        .assert_mcp_refused_unsettled("extraction_failed");
}

/// The MCP SDK v2 client on the stateless revision 2026-07-28 pays both tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_v2_client_pays_both_tools_on_the_stateless_revision() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mcp = serve(&world).await;
    let listing = world
        .mcp_tools_with(McpSdk::V2, &mcp)
        .await
        .expect("client");
    assert_eq!(listing["protocol_version"], "2026-07-28", "{listing}");
    assert_eq!(listing["era"], "modern", "{listing}");
    assert_eq!(
        listing["discover"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"]),
        "{listing}"
    );
    assert_eq!(listing["warnings"], json!([]), "{listing}");

    let invoice = json!({"pdf_base64": STANDARD.encode(testdata("pdf/zugferd_basic_einfach.pdf"))});
    let call = world
        .mcp_paid_call_with(McpSdk::V2, &mcp, "extract_document", invoice, false)
        .await
        .expect("client");
    call.assert_mcp_settled(20_000);
    let picture =
        json!({"image_base64": STANDARD.encode(testdata("ocr/en.png")), "mime": "image/png"});
    let call = world
        .mcp_paid_call_with(McpSdk::V2, &mcp, "ocr_read", picture, false)
        .await
        .expect("client");
    call.assert_mcp_settled(6_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_conformance_server_checks_pass_but_the_listed_ones() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mcp = serve(&world).await;
    test_devnet::paid::checked_mcp_conformance(&mcp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_mcp_conformance_newest_passes_but_the_listed_ones_in_both_eras() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mcp = serve(&world).await;
    test_devnet::paid::checked_mcp_conformance_newest(&mcp).await;
}

/// x402scan's discovery validator finds nothing to warn about, and its probe of each paid
/// route, filled from the schema's example, gets the route's 402.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_discovery_validator_reports_no_error_and_no_warning() {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let mcp = serve(&world).await;
    let origin = mcp.trim_end_matches("/mcp");
    test_devnet::paid::checked_discovery_validator(origin, &["/document", "/ocr"]).await;
}
