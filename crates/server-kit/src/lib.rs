#![doc = include_str!("../README.md")]

pub mod catalog;
pub mod config;
pub mod discovery;
pub mod error;
pub mod gate;
pub mod http;
pub mod landing;
pub mod limiter;
pub mod mcp;
pub mod readiness;
pub mod state;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod validate;

pub use error::{ApiError, ErrorCode, FieldProblem};
pub use gate::{Admission, GateLimits, PaidRequest, PaymentGate, RequestFingerprint};
pub use validate::JsonValidator;
