#![doc = include_str!("../README.md")]

pub mod app;
pub mod cache;
mod call;
pub mod config;
pub mod document;
pub mod engines;
pub mod fetch;
pub mod ocr;
pub mod pricing;
pub mod requests;
pub mod source;

pub use app::{AppState, router};
pub use config::DocsConfig;
