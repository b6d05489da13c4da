//! What the end-to-end tests and the demo share: a fresh devnet with the payment rail, the
//! analytics app served on it, USDC balances, and paying with the official x402 client.

use alloy::primitives::U256;
use alloy::providers::ProviderBuilder;
use anyhow::Result;
use serde_json::Value;
use x402_core::chain::IEip3009Token;

use crate::devnet::{self, Devnet, DevnetInfo};
use crate::{node, testapp};

/// A devnet loaded with the committed state, and what clients need to pay on it.
#[derive(Debug)]
pub struct PaidDevnet {
    /// RPC, payment contracts and test keys.
    pub info: DevnetInfo,
    /// The running chain and its addresses.
    pub chain: Devnet,
}

impl PaidDevnet {
    /// Loads the committed state into a fresh anvil.
    pub async fn spawn() -> Result<Self> {
        let (chain, info) = tokio::task::spawn_blocking(devnet::spawn_fresh).await??;
        Ok(Self { info, chain })
    }

    /// The analytics app on a free port, reading chain `base` at `rpc_url`, after `configure`.
    pub async fn analytics_app(
        &self,
        rpc_url: &str,
        configure: impl FnOnce(&mut analytics_server::AnalyticsConfig),
    ) -> Result<String> {
        let mut config = devnet::analytics_config(&self.info, rpc_url)?;
        configure(&mut config);
        let state = analytics_server::AppState::new(config)?;
        testapp::spawn(analytics_server::router(state)).await
    }

    /// `who`'s USDC balance.
    pub async fn usdc_balance(&self, who: &str) -> Result<U256> {
        usdc_balance(&self.info, who).await
    }

    /// Calls `url` with the official client, the funded payer paying.
    pub async fn pay(&self, url: &str, body: Value) -> Result<Value> {
        official_paid_call(&self.info, url, body).await
    }
}

/// `who`'s USDC balance on the devnet `info` describes.
pub async fn usdc_balance(info: &DevnetInfo, who: &str) -> Result<U256> {
    let provider = ProviderBuilder::new().connect_http(info.rpc_url.parse()?);
    let token = IEip3009Token::new(info.usdc.parse()?, &provider);
    Ok(token.balanceOf(who.parse()?).call().await?)
}

/// Calls `url` with the official x402 client, the devnet's funded payer paying.
pub async fn official_paid_call(info: &DevnetInfo, url: &str, body: Value) -> Result<Value> {
    let key = info.payer_private_key.clone();
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || node::official_client(&url, &key, &body)).await?
}
