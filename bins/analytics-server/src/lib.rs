#![doc = include_str!("../README.md")]

pub mod app;
pub mod config;
pub mod requests;

pub use app::{AppState, router};
pub use config::AnalyticsConfig;
