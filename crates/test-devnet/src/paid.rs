//! What the paid end-to-end tests and the demo share: a fresh devnet with the payment rail, a
//! server's payment section pointed at it, an app served on loopback, USDC balances, and paying
//! with the official x402 client.

use std::net::SocketAddr;

use alloy::primitives::{Address, U256};
use alloy::providers::ProviderBuilder;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use server_kit::config::{CommonConfig, FacilitatorMode};
use x402_core::chain::IEip3009Token;

use crate::{Addresses, Devnet, DevnetError, node};

/// The devnet as the servers and clients need it: RPC, payment contracts and test keys
/// (test-only, derived from fixed strings).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DevnetInfo {
    /// JSON-RPC URL.
    pub rpc_url: String,
    /// 8453.
    pub chain_id: u64,
    /// USDC (FiatTokenV2_2 proxy).
    pub usdc: String,
    /// Multicall3.
    pub multicall3: String,
    /// A payer holding 1,000 USDC.
    pub payer_private_key: String,
    /// Its address.
    pub payer_address: String,
    /// A payer holding nothing.
    pub unfunded_payer_private_key: String,
    /// Its address.
    pub unfunded_payer_address: String,
    /// The services' recipient.
    pub pay_to: String,
    /// The local facilitator's key (holds ETH for gas).
    pub facilitator_private_key: String,
    /// Its address.
    pub facilitator_address: String,
}

impl DevnetInfo {
    /// The payment rail of `addresses`, served at `rpc_url`.
    pub fn new(addresses: &Addresses, rpc_url: &str) -> Self {
        let rail = &addresses.payment_rail;
        let show = |address: Address| address.to_checksum(None);
        Self {
            rpc_url: rpc_url.to_owned(),
            chain_id: addresses.chain.chain_id,
            usdc: show(rail.usdc),
            multicall3: show(rail.multicall3),
            payer_private_key: rail.payer_private_key.clone(),
            payer_address: show(rail.payer_address),
            unfunded_payer_private_key: rail.unfunded_payer_private_key.clone(),
            unfunded_payer_address: show(rail.unfunded_payer_address),
            pay_to: show(rail.pay_to),
            facilitator_private_key: rail.facilitator_private_key.clone(),
            facilitator_address: show(rail.facilitator_address),
        }
    }

    /// The `PAYMENT-SIGNATURE` value paying the first offer of `terms` from the funded payer,
    /// valid until the offer's `maxTimeoutSeconds` from now, with a nonce derived from `label`
    /// (one label, one authorization: sending it twice is a replay). For tests that send one
    /// signed payment several times, which the official client never does.
    pub fn payment_signature(
        &self,
        terms: &x402_core::PaymentRequired,
        label: &str,
    ) -> Result<String, DevnetError> {
        use alloy::signers::local::PrivateKeySigner;
        use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};

        let fail = |e: &dyn std::fmt::Display| DevnetError::Process(format!("signing: {e}"));
        let key: PrivateKeySigner = self.payer_private_key.parse().map_err(|e| fail(&e))?;
        let accepted = terms
            .accepts
            .first()
            .ok_or_else(|| fail(&"the terms offer nothing"))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|e| fail(&e))?
            .as_secs();
        // Valid from the epoch: the devnet's clock is its committed state's, not the wall's.
        let window = AuthorizationWindow {
            valid_after: 0,
            valid_before: now + accepted.max_timeout_seconds,
            nonce: alloy::primitives::keccak256(label),
        };
        let payload = PaymentSigner::new(key, self.chain_id)
            .pay(accepted, Some(terms.resource.clone()), window)
            .map_err(|e| fail(&e))?;
        x402_core::encode_header(&payload).map_err(|e| fail(&e))
    }
}

/// A fresh devnet for one test or the demo: the committed state in anvil on a free port.
pub fn spawn_fresh() -> Result<(Devnet, DevnetInfo), DevnetError> {
    spawn_fresh_as(None)
}

/// [`spawn_fresh`] under another chain id (see [`Devnet::load_as`]).
pub fn spawn_fresh_as(chain_id: Option<u64>) -> Result<(Devnet, DevnetInfo), DevnetError> {
    node::ensure_packages(&node::devnet_builder())?;
    let devnet = Devnet::load_as(chain_id)?;
    let info = DevnetInfo::new(&devnet.addresses, &devnet.anvil.rpc_url);
    Ok((devnet, info))
}

/// Points a server's payment section at the devnet: its USDC and pay_to, settled by the local
/// facilitator with the devnet's facilitator key.
pub fn pay_locally(common: &mut CommonConfig, info: &DevnetInfo) -> Result<(), DevnetError> {
    common.payment.pay_to = Some(
        info.pay_to
            .parse()
            .map_err(|e| DevnetError::Addresses(format!("pay_to: {e}")))?,
    );
    common.payment.chain_id = info.chain_id;
    common.facilitator.mode = FacilitatorMode::Local;
    common.facilitator.rpc_url = Some(info.rpc_url.clone());
    common.facilitator.private_key = Some(info.facilitator_private_key.clone());
    Ok(())
}

/// Serves `router` (with the peer's address as connect info) on a free loopback port in the
/// background; returns its base URL.
pub async fn serve(router: axum::Router) -> Result<String, DevnetError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    Ok(format!("http://{address}"))
}

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
    pub async fn spawn() -> Result<Self, DevnetError> {
        let (chain, info) = tokio::task::spawn_blocking(spawn_fresh)
            .await
            .map_err(|e| DevnetError::Process(e.to_string()))??;
        Ok(Self { info, chain })
    }

    /// `who`'s USDC balance.
    pub async fn usdc_balance(&self, who: &str) -> Result<U256, DevnetError> {
        usdc_balance(&self.info, who).await
    }

    /// Calls `url` with the official client, the funded payer paying.
    pub async fn pay(&self, url: &str, body: Value) -> Result<Value, DevnetError> {
        official_paid_call(&self.info, url, body).await
    }

    /// [`Self::pay`], with what the pay-to address received over the call.
    pub async fn paid_call(&self, url: &str, body: Value) -> Result<PaidCall, DevnetError> {
        let before = self.usdc_balance(&self.info.pay_to).await?;
        let report = self.pay(url, body).await?;
        let after = self.usdc_balance(&self.info.pay_to).await?;
        let received = after.checked_sub(before).ok_or_else(|| {
            DevnetError::Rpc("the pay-to address's USDC balance went down during the call".into())
        })?;
        Ok(PaidCall { report, received })
    }
}

impl PaidDevnet {
    /// Calls tool `tool` of the `/mcp` endpoint at `mcp_url` with the official MCP client, the
    /// funded payer paying (and, with `replay`, sending the same payment once more), with what
    /// the pay-to address received over it all.
    pub async fn mcp_paid_call(
        &self,
        mcp_url: &str,
        tool: &str,
        arguments: Value,
        replay: bool,
    ) -> Result<PaidCall, DevnetError> {
        self.mcp_paid_call_with(node::McpSdk::V1, mcp_url, tool, arguments, replay)
            .await
    }

    /// [`PaidDevnet::mcp_paid_call`] with the SDK generation `sdk` ([`node::McpSdk::V2`]
    /// speaks the stateless revision 2026-07-28 and sends no replay).
    pub async fn mcp_paid_call_with(
        &self,
        sdk: node::McpSdk,
        mcp_url: &str,
        tool: &str,
        arguments: Value,
        replay: bool,
    ) -> Result<PaidCall, DevnetError> {
        let before = self.usdc_balance(&self.info.pay_to).await?;
        let key = self.info.payer_private_key.clone();
        let (url, tool) = (mcp_url.to_owned(), tool.to_owned());
        let report = tokio::task::spawn_blocking(move || {
            node::official_mcp_client_with(sdk, &url, &key, Some((&tool, &arguments)), replay)
        })
        .await
        .map_err(|e| DevnetError::Process(e.to_string()))??;
        let after = self.usdc_balance(&self.info.pay_to).await?;
        let received = after.checked_sub(before).ok_or_else(|| {
            DevnetError::Rpc("the pay-to address's USDC balance went down during the call".into())
        })?;
        Ok(PaidCall { report, received })
    }

    /// The tools `/mcp` at `mcp_url` lists to the official MCP client, and the protocol
    /// revision it negotiated.
    pub async fn mcp_tools(&self, mcp_url: &str) -> Result<Value, DevnetError> {
        self.mcp_tools_with(node::McpSdk::V1, mcp_url).await
    }

    /// [`PaidDevnet::mcp_tools`] with the SDK generation `sdk`.
    pub async fn mcp_tools_with(
        &self,
        sdk: node::McpSdk,
        mcp_url: &str,
    ) -> Result<Value, DevnetError> {
        let key = self.info.payer_private_key.clone();
        let url = mcp_url.to_owned();
        tokio::task::spawn_blocking(move || {
            node::official_mcp_client_with(sdk, &url, &key, None, false)
        })
        .await
        .map_err(|e| DevnetError::Process(e.to_string()))?
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
    /// Asserts the call was first answered 402 asking for `price` (atomic units), then
    /// answered 200 with a successful receipt, and the pay-to address received exactly `price`.
    pub fn assert_settled(&self, price: u64) {
        let report = &self.report;
        assert_eq!(report["first"]["status"], 402, "{report}");
        assert_eq!(
            report["first"]["payment_required"]["accepts"][0]["amount"],
            price.to_string(),
            "{report}"
        );
        assert_eq!(report["final"]["status"], 200, "{report}");
        assert_eq!(
            report["final"]["payment_response"]["success"], true,
            "{report}"
        );
        assert_eq!(
            self.received,
            U256::from(price),
            "settled exactly the price"
        );
    }

    /// Asserts an MCP call ([`PaidDevnet::mcp_paid_call`]) was first answered with the payment
    /// terms asking for `price` as an error result, then with the tool's answer and a successful
    /// receipt in `_meta`, a replay (if sent) was refused, and the pay-to address received
    /// exactly `price` once.
    pub fn assert_mcp_settled(&self, price: u64) {
        let report = &self.report;
        let unpaid = &report["unpaid"];
        assert_eq!(unpaid["isError"], true, "{report}");
        assert_eq!(
            unpaid["structuredContent"]["accepts"][0]["amount"],
            price.to_string(),
            "{report}"
        );
        let paid = &report["paid"];
        assert_ne!(paid["isError"], true, "{paid}");
        assert!(paid["structuredContent"].is_object(), "{paid}");
        assert_eq!(
            paid["_meta"]["x402/payment-response"]["success"], true,
            "{paid}"
        );
        // The official client complained about nothing (an unknown schema `format` is logged).
        assert_eq!(report["warnings"], serde_json::json!([]), "{report}");
        if !report["replay"].is_null() {
            let replay = &report["replay"];
            assert_eq!(replay["isError"], true, "{replay}");
            assert!(
                replay["_meta"]["x402/payment-response"].is_null(),
                "{replay}"
            );
        }
        assert_eq!(
            self.received,
            U256::from(price),
            "settled exactly the price, once"
        );
    }

    /// Asserts an MCP call's paid attempt was an error result carrying the route's error `error`
    /// (not charged), with no receipt, and moved no USDC.
    pub fn assert_mcp_refused_unsettled(&self, error: &str) {
        let paid = &self.report["paid"];
        assert_eq!(paid["isError"], true, "{paid}");
        assert!(paid["_meta"]["x402/payment-response"].is_null(), "{paid}");
        let text = paid["content"][0]["text"].as_str().unwrap_or_default();
        let body: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        assert_eq!(body["error"], error, "{paid}");
        assert_eq!(body["charged"], false, "{paid}");
        assert_eq!(self.received, U256::ZERO, "nothing settled");
    }

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

/// An http URL on loopback where nothing listens ([`crate::free_port`]).
pub fn closed_loopback_url() -> Result<String, DevnetError> {
    Ok(format!("http://127.0.0.1:{}", crate::free_port()?))
}

/// `who`'s USDC balance on the devnet `info` describes.
pub async fn usdc_balance(info: &DevnetInfo, who: &str) -> Result<U256, DevnetError> {
    let rpc = |e: &dyn std::fmt::Display| DevnetError::Rpc(e.to_string());
    let provider = ProviderBuilder::new().connect_http(info.rpc_url.parse().map_err(|e| rpc(&e))?);
    let usdc: Address = info.usdc.parse().map_err(|e| rpc(&e))?;
    let who: Address = who.parse().map_err(|e| rpc(&e))?;
    let token = IEip3009Token::new(usdc, &provider);
    token.balanceOf(who).call().await.map_err(|e| rpc(&e))
}

/// Calls `url` with the official x402 client, the devnet's funded payer paying.
pub async fn official_paid_call(
    info: &DevnetInfo,
    url: &str,
    body: Value,
) -> Result<Value, DevnetError> {
    let key = info.payer_private_key.clone();
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || node::official_client(&url, &key, &body))
        .await
        .map_err(|e| DevnetError::Process(e.to_string()))?
}

/// Loads the page for people at `base/` in headless Chromium
/// ([`node::check_service_page`]), with its screenshot written to
/// `target/service-pages/<name>.png`, and asserts what every service page must do: no console
/// error while loading, no page error, no failed request, and a try-it whose output is the 402
/// (after the click, only Chromium's own log line of that 402). Returns the report.
pub async fn checked_service_page(base: &str, name: &str) -> Value {
    let shots = crate::workspace_root().join("target/service-pages");
    std::fs::create_dir_all(&shots).unwrap_or_else(|e| panic!("{}: {e}", shots.display()));
    let screenshot = shots.join(format!("{name}.png"));
    let url = format!("{base}/");
    let shot = screenshot.clone();
    let report = tokio::task::spawn_blocking(move || node::check_service_page(&url, &shot))
        .await
        .unwrap_or_else(|e| panic!("joined: {e}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        report["console_errors_on_load"],
        serde_json::json!([]),
        "{report}"
    );
    for error in report["console_errors"].as_array().into_iter().flatten() {
        assert!(
            error.as_str().is_some_and(|e| e.contains("status of 402")),
            "{report}"
        );
    }
    assert_eq!(report["page_errors"], serde_json::json!([]), "{report}");
    assert_eq!(report["failed_requests"], serde_json::json!([]), "{report}");
    for link in ["/openapi.json", "/llms.txt"] {
        assert!(
            report["links"]
                .as_array()
                .is_some_and(|l| l.iter().any(|h| h == link)),
            "{link}: {report}"
        );
    }
    let output = report["try_it"]["output"].as_str().unwrap_or_default();
    assert!(output.starts_with("HTTP 402"), "{output}");
    assert!(screenshot.is_file(), "{}", screenshot.display());
    report
}

/// Runs x402scan's discovery validator ([`node::discovery_validator`]) on the service at
/// `origin` whose paid routes are `paid` (paths) and fails the test on any error or warning it
/// reports (its `info` notes are allowed), or unless every paid route's probe, filled from the
/// schema's example, got a 402 with payment options.
pub async fn checked_discovery_validator(origin: &str, paid: &[&str]) {
    let url = origin.to_owned();
    let report = tokio::task::spawn_blocking(move || node::discovery_validator(&url))
        .await
        .unwrap_or_else(|e| panic!("joined: {e}"))
        .unwrap_or_else(|e| panic!("{e}"));
    let serious = |warnings: &Value| -> Vec<Value> {
        warnings
            .as_array()
            .into_iter()
            .flatten()
            .filter(|w| w["severity"] != "info")
            .cloned()
            .collect()
    };
    assert_eq!(
        serious(&report["discover"]["warnings"]),
        Vec::<Value>::new(),
        "{report}"
    );
    let probes = report["probes"].as_array().cloned().unwrap_or_default();
    let probed: Vec<&str> = probes.iter().filter_map(|p| p["path"].as_str()).collect();
    assert_eq!(probed, paid, "{report}");
    for probe in &probes {
        assert_eq!(probe["example_in_schema"], true, "{probe}");
        assert_eq!(
            probe["paid"], true,
            "a 402 for the schema's example: {probe}"
        );
        assert!(
            probe["paymentOptions"]
                .as_array()
                .is_some_and(|o| !o.is_empty()),
            "{probe}"
        );
        assert_eq!(serious(&probe["warnings"]), Vec::<Value>::new(), "{probe}");
    }
}

/// Runs the newest pinned conformance suite ([`node::mcp_conformance_newest`]) against `/mcp`
/// at `mcp_url` for both eras and fails the test unless only the committed baselines fail;
/// for the two scenarios of 2026-07-28 that fail only in part, it also checks which of their
/// checks fail (exactly the ones the baseline's comments name), and that the transport's header
/// scenario (`http-header-validation`, run but not scored by the requirement set) has no
/// failing check.
pub async fn checked_mcp_conformance_newest(mcp_url: &str) {
    use std::collections::{BTreeMap, BTreeSet};
    for revision in [
        node::ConformanceRevision::Stateless,
        node::ConformanceRevision::Legacy,
    ] {
        let output = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary directory: {e}"));
        let url = mcp_url.to_owned();
        let path = output.path().to_owned();
        let summary = tokio::task::spawn_blocking(move || {
            node::mcp_conformance_newest(&url, revision, &path)
        })
        .await
        .unwrap_or_else(|e| panic!("joined: {e}"))
        .unwrap_or_else(|e| panic!("{e}"));
        // Failing (not passing, not informational, not skipped) check ids per scenario.
        let mut failing: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut scenarios = BTreeSet::new();
        for entry in std::fs::read_dir(output.path()).unwrap_or_else(|e| panic!("{e}")) {
            let dir = entry.unwrap_or_else(|e| panic!("{e}")).path();
            let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            // `server-<scenario>-<ISO time with dashes>`: the time has 6 dash-separated parts.
            let parts: Vec<&str> = name.split('-').collect();
            if parts.len() < 8 || parts[0] != "server" {
                continue;
            }
            let scenario = parts[1..parts.len() - 6].join("-");
            let text = std::fs::read_to_string(dir.join("checks.json"))
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let checks: Vec<Value> =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            scenarios.insert(scenario.clone());
            for check in checks {
                if check["status"] == "FAILURE" {
                    failing
                        .entry(scenario.clone())
                        .or_default()
                        .insert(check["id"].as_str().unwrap_or_default().to_owned());
                }
            }
        }
        let of = |scenario: &str| failing.get(scenario).cloned().unwrap_or_default();
        let set = |ids: &[&str]| {
            ids.iter()
                .map(|id| (*id).to_owned())
                .collect::<BTreeSet<_>>()
        };
        match revision {
            node::ConformanceRevision::Stateless => {
                assert!(scenarios.contains("server-stateless"), "{summary}");
                assert_eq!(
                    of("server-stateless"),
                    set(&[
                        // The reference server's diagnostic tools, absent from a paid service.
                        "sep-2575-server-rejects-undeclared-capability",
                        "sep-2575-missing-capability-http-400",
                        "sep-2575-http-server-no-independent-requests-on-stream",
                        "sep-2575-server-no-log-without-loglevel",
                    ]),
                    "{summary}"
                );
                assert_eq!(
                    of("caching"),
                    set(&[
                        // Lists of capabilities the services do not declare.
                        "sep-2549-prompts-list-caching-hints",
                        "sep-2549-resources-list-caching-hints",
                        "sep-2549-resources-templates-list-caching-hints",
                    ]),
                    "{summary}"
                );
                assert!(scenarios.contains("http-header-validation"), "{summary}");
                assert_eq!(of("http-header-validation"), set(&[]), "{summary}");
                for scenario in ["tools-list", "dns-rebinding-protection"] {
                    assert_eq!(of(scenario), set(&[]), "{scenario}: {summary}");
                }
            }
            node::ConformanceRevision::Legacy => {
                for scenario in [
                    "server-initialize",
                    "server-session-lifecycle",
                    "ping",
                    "tools-list",
                    "server-sse-multiple-streams",
                    "dns-rebinding-protection",
                ] {
                    assert!(scenarios.contains(scenario), "{scenario}: {summary}");
                    assert_eq!(of(scenario), set(&[]), "{scenario}: {summary}");
                }
            }
        }
    }
}

/// Runs `@modelcontextprotocol/conformance`'s server scenarios against `mcp_url`
/// ([`node::mcp_conformance`], with the committed baseline of by-design failures) and asserts
/// the scenarios every `/mcp` must pass did pass.
pub async fn checked_mcp_conformance(mcp_url: &str) {
    let url = mcp_url.to_owned();
    let summary = tokio::task::spawn_blocking(move || node::mcp_conformance(&url))
        .await
        .unwrap_or_else(|e| panic!("joined: {e}"))
        .unwrap_or_else(|e| panic!("{e}"));
    for scenario in [
        "server-initialize",
        "ping",
        "tools-list",
        "dns-rebinding-protection",
    ] {
        assert!(
            summary.contains(&format!("✓ {scenario}")),
            "{scenario}: {summary}"
        );
    }
}
