//! Readiness probes: a name and an async check each, answered together by the servers'
//! `/readiness` route.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The future a readiness probe returns.
pub type ProbeFuture = Pin<Box<dyn Future<Output = Result<(), NotReady>> + Send>>;

/// Why a readiness probe failed: the dependency's own error, or a reason. It goes to the log
/// only (the `/readiness` answer names the check and its state).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct NotReady(Box<dyn std::error::Error + Send + Sync>);

impl NotReady {
    /// From the dependency's error, or from a text (`String`, `&str`) saying why.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self(error.into())
    }
}

/// One readiness probe: a name and an async check.
#[derive(Clone)]
pub struct ReadinessCheck {
    /// Shown in the readiness answer.
    pub name: std::borrow::Cow<'static, str>,
    /// Ok when the dependency is usable.
    pub check: Arc<dyn Fn() -> ProbeFuture + Send + Sync>,
}

impl std::fmt::Debug for ReadinessCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadinessCheck")
            .field("name", &self.name)
            .finish()
    }
}

impl ReadinessCheck {
    /// A check from an async closure.
    pub fn new<F, Fut>(name: &'static str, check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), NotReady>> + Send + 'static,
    {
        Self {
            name: name.into(),
            check: Arc::new(move || Box::pin(check())),
        }
    }

    /// The same check under another name.
    #[must_use]
    pub fn named(mut self, name: String) -> Self {
        self.name = name.into();
        self
    }
}

/// Readiness of the payment path: the facilitator answers `/supported` with `exact` on
/// `network`.
pub fn facilitator_readiness(
    facilitator: Arc<dyn x402_core::Facilitator>,
    network: String,
) -> ReadinessCheck {
    ReadinessCheck::new("facilitator", move || {
        let facilitator = facilitator.clone();
        let network = network.clone();
        async move {
            let supported = facilitator.supported().await.map_err(NotReady::new)?;
            if supported.supports(x402_core::terms::SCHEME_EXACT, &network) {
                Ok(())
            } else {
                Err(NotReady::new(format!(
                    "facilitator does not support exact on {network}"
                )))
            }
        }
    })
}
