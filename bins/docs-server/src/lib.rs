#![doc = include_str!("../README.md")]

pub mod admission;
pub mod app;
pub mod cache;
mod call;
pub mod config;
pub mod document;
pub mod engines;
pub mod isolation;
pub mod jobs;
pub mod ocr;
pub mod pricing;
pub mod requests;
pub mod source;
pub mod state;
pub mod worker;

pub use app::router;
pub use config::DocsConfig;
pub use state::AppState;
