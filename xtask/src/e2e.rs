//! What the end-to-end tests and the demo share: a fresh devnet with the payment rail, the
//! analytics app served on it, USDC balances, and paying with the official x402 client.

use alloy::primitives::U256;
use alloy::providers::ProviderBuilder;
use anyhow::{Context, Result};
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

    /// [`Self::pay`], with what the pay-to address received over the call.
    pub async fn paid_call(&self, url: &str, body: Value) -> Result<PaidCall> {
        let before = self.usdc_balance(&self.info.pay_to).await?;
        let report = self.pay(url, body).await?;
        let after = self.usdc_balance(&self.info.pay_to).await?;
        let received = after
            .checked_sub(before)
            .context("the pay-to address's USDC balance went down during the call")?;
        Ok(PaidCall { report, received })
    }
}

/// One call through the official client and its effect on the pay-to address.
#[derive(Debug)]
pub struct PaidCall {
    /// The client's report: `first` (the 402) and `final` (the paid request's answer).
    pub report: Value,
    /// USDC (atomic units) the pay-to address received during the call.
    pub received: U256,
}

impl PaidCall {
    /// Asserts the paid request was refused with `status` and `error`, said not charged, sent no
    /// receipt and moved no USDC.
    pub fn assert_refused_unsettled(&self, status: u16, error: &str) {
        let report = &self.report;
        assert_eq!(report["final"]["status"], status, "{report}");
        assert_eq!(report["final"]["body"]["error"], error, "{report}");
        assert_eq!(report["final"]["body"]["charged"], false, "{report}");
        assert_eq!(report["final"]["payment_response"], Value::Null, "{report}");
        assert_eq!(self.received, U256::ZERO, "nothing settled");
    }
}

/// An http URL on loopback where nothing listens ([`test_devnet::free_port`]).
pub fn closed_loopback_url() -> Result<String> {
    Ok(format!("http://127.0.0.1:{}", test_devnet::free_port()?))
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
