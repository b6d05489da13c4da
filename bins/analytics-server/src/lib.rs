#![doc = include_str!("../README.md")]

pub mod answer;
pub mod app;
pub mod chains;
pub mod config;
pub mod dex_quote;
pub mod lending_health;
pub mod mev_risk;
pub mod oracle_crosscheck;
pub mod pool_liquidity;
pub mod requests;
pub mod routes;
pub mod state;
pub mod wording;
pub mod yield_normalize;

pub use app::router;
pub use config::AnalyticsConfig;
pub use state::AppState;
