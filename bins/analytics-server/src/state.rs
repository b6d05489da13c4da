//! The analytics app's shared state: the payment gate and terms, the configuration, the chains,
//! the off-chain sources and each paid route's price, validator and documentation. Built in
//! `app`; read by every route's work.

use std::any::Any;
use std::collections::HashMap;

use alloy::primitives::U256;
use server_kit::PaymentGate;
use server_kit::discovery::PaidRouteDoc;
use x402_core::PaymentTerms;

use crate::chains::Chains;
use crate::config::AnalyticsConfig;

/// A route as the app runs it: its price and validator.
pub(crate) struct RouteEntry {
    pub(crate) amount: U256,
    pub(crate) validator: Box<dyn Any + Send + Sync>,
    pub(crate) doc: PaidRouteDoc,
}

/// Shared state of the analytics app.
pub struct AppState {
    pub(crate) gate: PaymentGate,
    pub(crate) terms: PaymentTerms,
    pub(crate) config: AnalyticsConfig,
    pub(crate) chains: Chains,
    pub(crate) sources: oracle_sources::Sources,
    pub(crate) routes: HashMap<&'static str, RouteEntry>,
    pub(crate) docs: Vec<PaidRouteDoc>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("terms", &self.terms)
            .finish_non_exhaustive()
    }
}
