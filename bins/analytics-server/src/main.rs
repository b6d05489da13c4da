//! `analytics-server`: loads the configuration and serves the analytics routes.

use analytics_server::{AnalyticsConfig, AppState, router};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server_kit::http::run_server(
        "analytics-server",
        "ANALYTICS_",
        AnalyticsConfig::default(),
        |config| &config.common,
        AnalyticsConfig::longest_budget,
        |config| AppState::new(config).map(router),
    )
    .await
}
