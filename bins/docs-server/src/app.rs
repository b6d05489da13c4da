//! The router: the paid document routes, discovery and operational routes.

use std::sync::Arc;
use std::time::Duration;

use alloy::primitives::U256;
use axum::Router;
use axum::routing::post;
use doc_model::{DocumentExtraction, OcrExtraction};
use schema_mapper::MappedDocument;
use schemars::JsonSchema;
use serde_json::json;
use server_kit::config::ConfigError;
use server_kit::discovery::{
    self, CataloguePrice, Discovery, PaidRouteDoc, RouteInput, ServiceDoc,
};
use server_kit::http::{NotReady, ReadinessCheck};
use server_kit::mcp::McpSettings;
use server_kit::validate::output_schema;
use server_kit::{JsonValidator, PaymentGate};
use x402_core::{format_units_fixed, parse_units_exact};

use crate::cache::AnswerCache;
use crate::config::DocsConfig;
use crate::document;
use crate::isolation::Isolation;
use crate::ocr;
use crate::requests::{DocumentRequest, OcrRequest, document_example, ocr_example};
use crate::state::{AppState, AtomicPrices};
use safe_fetch::{AddressPolicy, SafeFetcher};

/// The 503 of both paid routes (admission control, and the shared state being down).
const BUSY_RESPONSE: &str = "The workers would not finish this request within its time budget behind the work already accepted (busy, with Retry-After), or the shared state is unreachable (state_unavailable). Answered before the payment is verified; not charged.";

impl AppState {
    /// Checks the configuration (terms, prices), builds the facilitator, the gate, the fetcher,
    /// the cache and the worker pools (no worker starts until a job or readiness needs one).
    pub fn new(config: DocsConfig) -> Result<Self, ConfigError> {
        let terms = config.common.payment.terms()?;
        let price = |key: &str, text: &str| {
            parse_units_exact(text, terms.asset_decimals)
                .map_err(|e| ConfigError::Invalid(format!("prices.{key}: {e}")))
        };
        let p = &config.prices;
        let prices = AtomicPrices {
            document_text_layer_page: price(
                "document_text_layer_page",
                &p.document_text_layer_page,
            )?,
            document_ocr_page: price("document_ocr_page", &p.document_ocr_page)?,
            ocr_first_page: price("ocr_first_page", &p.ocr_first_page)?,
            ocr_further_page: price("ocr_further_page", &p.ocr_further_page)?,
        };
        let gate = PaymentGate::from_config(&config.common)?;
        let fetcher = SafeFetcher::new(
            AddressPolicy {
                allow_loopback: config.fetch.allow_loopback,
            },
            Duration::from_secs(config.fetch.timeout_seconds),
        )
        .map_err(|e| ConfigError::Invalid(format!("fetch: {e}")))?;
        let cache = AnswerCache::for_state(
            gate.shared_state(),
            Duration::from_secs(config.cache.ttl_seconds),
            config.cache.max_megabytes.saturating_mul(1024 * 1024),
            config.common.state.cache_entry_max_bytes,
        );
        let workers = Isolation::new(&config)?;
        let document_validator = JsonValidator::<DocumentRequest>::new()
            .map_err(|e| ConfigError::Invalid(e.to_string()))?;
        let document_doc =
            document_route_doc(&prices, terms.asset_decimals, document_validator.schema());
        let ocr_validator =
            JsonValidator::<OcrRequest>::new().map_err(|e| ConfigError::Invalid(e.to_string()))?;
        let ocr_doc = ocr_route_doc(
            &prices,
            terms.asset_decimals,
            ocr_validator.schema(),
            config.time_budget.ocr_seconds,
        );
        Ok(Self {
            config,
            terms,
            gate,
            prices,
            cache,
            fetcher,
            workers: Arc::new(workers),
            document_validator,
            document_doc,
            ocr_validator,
            ocr_doc,
        })
    }
}

/// What `/document` answers: the whole extraction, or with a `schema` its properties mapped.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // Only its schema is used: the answers are serialised by their own types.
enum DocumentAnswer {
    /// Without `schema`.
    Extraction(Box<DocumentExtraction>),
    /// With `schema`.
    Mapped(MappedDocument),
}

/// The service's name (its title, short enough for the bazaar's 32-character service name).
const SERVICE_NAME: &str = "Document extraction and OCR";
/// Catalogue tags: what the routes read.
const TAGS: &[&str] = &["ocr", "pdf", "invoices", "barcodes", "documents"];

fn document_route_doc(
    prices: &AtomicPrices,
    decimals: u8,
    input_schema: &serde_json::Value,
) -> PaidRouteDoc {
    let text = format_units_fixed(prices.document_text_layer_page, decimals);
    let ocr = format_units_fixed(prices.document_ocr_page, decimals);
    let max = format_units_fixed(
        prices.document_ocr_page * U256::from(document::MAX_PAGES),
        decimals,
    );
    PaidRouteDoc {
        path: document::PATH,
        operation_id: "extract_document",
        summary: "PDF to structured JSON: text layer first, OCR only for pages without one",
        description: format!(
            "Reads each selected page's text layer, or renders and recognises (deu+eng) pages without one, and returns header data of invoices and similar documents, every table as rows and columns, every key-value pair, every barcode and QR code, the e-invoice XML the PDF carries, and the full text of every page line by line with positions (PDF points from the top-left). With `schema` (a JSON Schema with optional `x-labels` per property) it answers each property of the schema instead as {{value, confidence, found, source}}, arrays of objects read from the matching table; a schema that cannot be used is refused (400) before any price. Every value carries its page, box and confidence. Priced per page, with or without a schema: {text} USDC with a text layer, {ocr} USDC with OCR; at most {} pages ({max} USDC) per call; the 402 answer itemises the pages.",
            document::MAX_PAGES
        ),
        input: RouteInput::with_output(
            input_schema.clone(),
            document_example(),
            Some(&output_schema::<DocumentAnswer>()),
        ),
        pricing_mode: "per_page",
        price: json!({
            "text_layer_page": text,
            "ocr_page": ocr,
            "per": "page",
            "max_pages_per_call": document::MAX_PAGES,
            "max_per_call": max,
        }),
        catalogue_price: CataloguePrice::Dynamic {
            min: text.clone(),
            max: max.clone(),
        },
        price_label: format!(
            "{text} USDC per text-layer page, {ocr} USDC per OCR page, at most {max} USDC per call"
        ),
        output_schema: Some(output_schema::<DocumentAnswer>()),
        service_name: SERVICE_NAME,
        tags: TAGS,
        extra_responses: vec![
            (
                413,
                "The file is over 15 MB (payload_too_large). Checked before the price is named.",
            ),
            (
                422,
                "The document could not be read, or nothing was found on the selected pages (extraction_failed). Not charged.",
            ),
            (503, BUSY_RESPONSE),
        ],
    }
}

fn ocr_route_doc(
    prices: &AtomicPrices,
    decimals: u8,
    input_schema: &serde_json::Value,
    budget_seconds: u64,
) -> PaidRouteDoc {
    let first = format_units_fixed(prices.ocr_first_page, decimals);
    let further = format_units_fixed(prices.ocr_further_page, decimals);
    let max = format_units_fixed(
        prices.ocr_first_page + prices.ocr_further_page * U256::from(ocr::MAX_PAGES - 1),
        decimals,
    );
    PaidRouteDoc {
        path: ocr::PATH,
        operation_id: "ocr_read",
        summary: "Picture, scan or PDF to reading-order text, typed blocks, tables, codes and layout",
        description: format!(
            "Reads a PNG, JPEG or WebP picture or a PDF (its text layer where a page has one, OCR in deu and/or eng otherwise): corrects orientation and skew, finds columns and reading order, types every block (heading, paragraph, list, table, caption, footnote) with its box in pixels, confidence and language, reads tables as cells, matrix and markdown, and decodes every barcode and QR code with a parsed payload. Priced per page: {first} USDC for the picture or first page, {further} USDC for each further page, at most {} pages ({max} USDC); ranges beyond about {} pages may exceed the {} s limit, and the 402 answer warns of it. Limits checked before the price: 12 MB, 10000 px wide.",
            ocr::MAX_PAGES,
            ocr::WARN_AFTER_PAGES,
            budget_seconds
        ),
        input: RouteInput::with_output(
            input_schema.clone(),
            ocr_example(),
            Some(&output_schema::<OcrExtraction>()),
        ),
        pricing_mode: "per_page",
        price: json!({
            "first_page": first,
            "further_page": further,
            "per": "page",
            "max_pages_per_call": ocr::MAX_PAGES,
            "max_per_call": max,
        }),
        catalogue_price: CataloguePrice::Dynamic {
            min: first.clone(),
            max: max.clone(),
        },
        price_label: format!(
            "{first} USDC for the picture or first page, {further} USDC per further page, at most {max} USDC per call"
        ),
        output_schema: Some(output_schema::<OcrExtraction>()),
        service_name: SERVICE_NAME,
        tags: TAGS,
        extra_responses: vec![
            (
                413,
                "The file is over 12 MB or the picture over 10000 pixels wide (payload_too_large). Checked before the price is named.",
            ),
            (
                422,
                "Nothing at all was recognised (empty_recognition), or a page could not be read (extraction_failed). Not charged.",
            ),
            (503, BUSY_RESPONSE),
        ],
    }
}

/// The whole app.
pub fn router(state: AppState) -> Router {
    let temp_dir = state.temp_dir();
    let workers = state.workers.clone();
    let languages = state.workers.clone();
    // Stale pending settlements of dead replicas are resolved while the app runs.
    drop(state.gate.spawn_pending_resolver());
    let mut readiness = state.gate.payment_readiness();
    readiness.extend([
        ReadinessCheck::new("temp_dir", move || {
            let dir = temp_dir.clone();
            async move {
                let shown = dir.display().to_string();
                tokio::task::spawn_blocking(move || tempfile::tempdir_in(&dir).map(drop))
                    .await
                    .map_err(NotReady::new)?
                    .map_err(|e| {
                        NotReady::new(format!("cannot create a directory in {shown}: {e}"))
                    })
            }
        }),
        ReadinessCheck::new("ocr_languages", move || {
            let languages = languages.clone();
            async move {
                languages
                    .check_languages(&["deu".to_owned(), "eng".to_owned()])
                    .map(drop)
                    .map_err(NotReady::new)
            }
        }),
        // An extraction worker starts and loads its OCR models.
        ReadinessCheck::new("workers", move || {
            let workers = workers.clone();
            async move { workers.warm().await.map_err(NotReady::new) }
        }),
    ]);
    readiness.extend(state.gate.state_readiness());
    let discovery = Discovery {
        service: ServiceDoc {
            title: SERVICE_NAME,
            tags: TAGS,
            summary: "Paid PDF and image reading: invoices to JSON, OCR text, tables, barcodes and QR codes.",
            registry_name: "documents",
            version: env!("CARGO_PKG_VERSION"),
            description: "PDF to structured JSON (text layer first, OCR only for pages without one, optional caller JSON Schema) and OCR of PNG, JPEG, WebP and PDF into text, typed blocks, tables, barcodes and layout. Priced per page.",
            network: state.terms.network(),
            asset: state.terms.asset.to_checksum(None),
            asset_symbol: "USDC",
            pay_to: state.terms.pay_to.to_checksum(None),
            also_accepted: state.gate.also_accepted(),
        },
        paid: vec![state.document_doc.clone(), state.ocr_doc.clone()],
        free: discovery::standard_free_routes(
            "Dependencies ready (facilitator, temp dir, OCR languages)",
        ),
        public_url: state.config.common.public_url.clone(),
        trust_forwarded: state.config.common.limits.trust_forwarded,
    };
    let max_body = state.config.common.limits.max_body_bytes;
    // Sessions live with the gate's shared state: on Redis, every replica knows them.
    let mcp_settings = McpSettings::for_public_url(state.config.common.public_url.as_deref())
        .with_state(state.gate.shared_state().clone());
    let paid = Router::new()
        .route(document::PATH, post(document::handle))
        .route(ocr::PATH, post(ocr::handle))
        .with_state(Arc::new(state));
    let service = discovery.service.clone();
    let paid_docs = discovery.paid.clone();
    let router = paid
        .merge(discovery::routes(discovery))
        .merge(server_kit::http::operational_routes(readiness));
    server_kit::mcp::attach(
        server_kit::http::with_shared_layers(router, max_body),
        service,
        env!("CARGO_PKG_VERSION"),
        &paid_docs,
        mcp_settings,
        max_body,
    )
}
