//! The router: discovery and operational routes; the paid routes join with their issues.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use server_kit::config::ConfigError;
use server_kit::discovery::{self, Discovery, ServiceDoc};
use server_kit::http::{ReadinessCheck, facilitator_readiness};
use x402_core::{Facilitator, PaymentTerms, parse_units_exact};

use crate::config::DocsConfig;

/// Shared state of the document app.
#[derive(Debug)]
pub struct AppState {
    config: DocsConfig,
    terms: PaymentTerms,
    facilitator: Arc<dyn Facilitator>,
}

impl AppState {
    /// Checks the configuration (terms, prices) and builds the facilitator.
    pub fn new(config: DocsConfig) -> Result<Self, ConfigError> {
        let terms = config.common.payment.terms()?;
        let prices = &config.prices;
        for (key, price) in [
            ("document_text_layer_page", &prices.document_text_layer_page),
            ("document_ocr_page", &prices.document_ocr_page),
            ("ocr_first_page", &prices.ocr_first_page),
            ("ocr_further_page", &prices.ocr_further_page),
        ] {
            parse_units_exact(price, terms.asset_decimals)
                .map_err(|e| ConfigError::Invalid(format!("prices.{key}: {e}")))?;
        }
        let facilitator = config.common.facilitator.build(terms.chain_id)?;
        Ok(Self {
            config,
            terms,
            facilitator,
        })
    }

    fn temp_dir(&self) -> PathBuf {
        self.config
            .temp_dir
            .as_ref()
            .map_or_else(std::env::temp_dir, PathBuf::from)
    }
}

/// The whole app.
pub fn router(state: AppState) -> Router {
    let temp_dir = state.temp_dir();
    let readiness = vec![
        facilitator_readiness(state.facilitator.clone(), state.terms.network()),
        ReadinessCheck::new("temp_dir", move || {
            let dir = temp_dir.clone();
            async move {
                let shown = dir.display().to_string();
                tokio::task::spawn_blocking(move || tempfile::tempdir_in(&dir).map(drop))
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| format!("cannot create a directory in {shown}: {e}"))
            }
        }),
    ];
    let discovery = Discovery {
        service: ServiceDoc {
            title: "Document extraction and OCR",
            description: "PDF to structured JSON (text layer first, OCR only for pages without one, optional caller JSON Schema) and OCR of PNG, JPEG, WebP and PDF into text, typed blocks, tables, barcodes and layout. Priced per page.",
            network: state.terms.network(),
            asset: state.terms.asset.to_checksum(None),
            asset_symbol: "USDC",
            pay_to: state.terms.pay_to.to_checksum(None),
        },
        paid: Vec::new(),
        free: discovery::standard_free_routes("Dependencies ready (facilitator, temp dir)"),
        public_url: state.config.common.public_url.clone(),
        trust_forwarded: state.config.common.limits.trust_forwarded,
    };
    let max_body = state.config.common.limits.max_body_bytes;
    let router =
        discovery::routes(discovery).merge(server_kit::http::operational_routes(readiness));
    server_kit::http::with_shared_layers(router, max_body)
}
