//! The state both paid routes share: configuration, terms, the payment gate, prices, the
//! answer cache, the URL fetcher and the worker pools. Built in `app` (with the routes' own
//! documentation), read by every route, so no route depends on the module that builds it.

use std::path::PathBuf;
use std::sync::Arc;

use alloy::primitives::U256;
use safe_fetch::SafeFetcher;
use server_kit::discovery::PaidRouteDoc;
use server_kit::{JsonValidator, PaymentGate};
use x402_core::PaymentTerms;

use crate::cache::AnswerCache;
use crate::config::DocsConfig;
use crate::isolation::Isolation;
use crate::requests::{DocumentRequest, OcrRequest};

/// Per-page prices in atomic units.
#[derive(Debug, Clone, Copy)]
pub struct AtomicPrices {
    /// `/document`, a text-layer page.
    pub document_text_layer_page: U256,
    /// `/document`, an OCR page.
    pub document_ocr_page: U256,
    /// `/ocr`, the first page.
    pub ocr_first_page: U256,
    /// `/ocr`, each further page.
    pub ocr_further_page: U256,
}

/// Shared state of the document app.
pub struct AppState {
    pub(crate) config: DocsConfig,
    pub(crate) terms: PaymentTerms,
    pub(crate) gate: PaymentGate,
    pub(crate) prices: AtomicPrices,
    pub(crate) cache: AnswerCache,
    pub(crate) fetcher: SafeFetcher,
    pub(crate) workers: Arc<Isolation>,
    pub(crate) document_validator: JsonValidator<DocumentRequest>,
    pub(crate) document_doc: PaidRouteDoc,
    pub(crate) ocr_validator: JsonValidator<OcrRequest>,
    pub(crate) ocr_doc: PaidRouteDoc,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("terms", &self.terms)
            .field("prices", &self.prices)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// The worker pools (for a clean stop).
    pub fn workers(&self) -> Arc<Isolation> {
        self.workers.clone()
    }

    pub(crate) fn temp_dir(&self) -> PathBuf {
        self.config
            .temp_dir
            .as_ref()
            .map_or_else(std::env::temp_dir, PathBuf::from)
    }
}
