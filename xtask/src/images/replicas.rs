//! The docs image as replicas run it, on the devnet: two containers on the host's Redis behind
//! Debian's nginx, one payment sent ten times (served and settled once, on chain), and a
//! container stopped with SIGTERM while a paid request is in flight (answered, and charged
//! once or not at all).
//!
//! Both use `deploy/compose/docs.toml` with the compose environment, and the manifest's
//! security context ([`Hardening`]). The replicas raise two per-client limits as the in-process
//! replica test does (`bins/docs-server/tests/devnet_replicas.rs`): behind one nginx every copy
//! comes from one client, and with the defaults (4 unverified requests per client, 2 per
//! payer at once) the copies past them would be refused 429 before the replay lock this
//! proves.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;
use test_devnet::replica::{Answer, assert_served_once, post_json};
use test_devnet::{Nginx, RedisServer, RpcProxy};

use super::smoke::{Container, compose_env, wait_ok};
use super::{Hardening, SERVICES, scratch};
use crate::harness::{self, AnalyticsDevnet};
use crate::paths::workspace_root;

/// What the replica runs saw.
#[derive(Debug, Clone, Serialize)]
pub struct ReplicaReport {
    /// Copies of the one payment sent at once through nginx.
    pub copies: usize,
    /// `paid` outcomes counted by the two containers together.
    pub paid_outcomes: f64,
    /// `reused` outcomes (copies refused at the shared replay lock).
    pub reused_outcomes: f64,
    /// USDC the recipient gained from the ten copies (atomic units), and the price.
    pub burst_gained: String,
    /// The price of the document.
    pub price: String,
    /// The in-flight request's status after SIGTERM.
    pub in_flight_status: u16,
    /// Whether it carried a receipt.
    pub in_flight_settled: bool,
    /// From SIGTERM to its answer, seconds (it was still at work or settling when signalled).
    pub in_flight_answered_after_seconds: f64,
    /// USDC the recipient gained from it.
    pub in_flight_gained: String,
    /// A new connection after the signal was refused.
    pub new_connection_refused: bool,
    /// From SIGTERM to the container's exit, seconds.
    pub stop_seconds: f64,
    /// The exit code.
    pub exit_code: String,
}

/// The docs image's entry of [`SERVICES`].
fn docs() -> super::ServiceImage {
    SERVICES[1]
}

/// The docs configuration and environment of the compose file, on `redis`, paying through
/// `rpc_url`, with `extra` variables.
fn docs_config(
    devnet: &AnalyticsDevnet,
    redis: &RedisServer,
    rpc_url: &str,
    extra: &[(&str, &str)],
) -> Result<(std::path::PathBuf, Vec<(String, String)>)> {
    let config = scratch().join("smoke/replica-docs.toml");
    std::fs::create_dir_all(scratch().join("smoke"))?;
    std::fs::copy(workspace_root().join("deploy/compose/docs.toml"), &config)?;
    let mut env = compose_env("DOCS", &devnet.info, &redis.url());
    for (key, value) in env.iter_mut() {
        if key == "DOCS_FACILITATOR__RPC_URL" {
            *value = rpc_url.to_owned();
        }
    }
    env.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    Ok((config, env))
}

async fn start(
    hardening: &Hardening,
    config: &std::path::Path,
    env: &[(String, String)],
) -> Result<(Container, String)> {
    let port = test_devnet::free_port()?;
    let container = Container::start(
        docs(),
        hardening,
        config,
        "/etc/docs-server/docs.toml",
        env,
        port,
    )?;
    let base = format!("http://127.0.0.1:{port}");
    if let Err(e) = wait_ok(
        &reqwest::Client::new(),
        &format!("{base}/health"),
        Duration::from_secs(60),
    )
    .await
    {
        bail!("{e}: {}", container.logs());
    }
    Ok((container, base))
}

async fn outcomes(base: &str, outcome: &str) -> Result<f64> {
    let metrics = harness::metrics(&reqwest::Client::new(), base).await?;
    Ok(harness::metric_sum(
        &metrics,
        "paid_route_outcomes_total",
        &[&format!("outcome=\"{outcome}\"")],
    ))
}

async fn gained_since(devnet: &AnalyticsDevnet, before: alloy::primitives::U256) -> Result<String> {
    let after = test_devnet::paid::usdc_balance(&devnet.info, &devnet.info.pay_to).await?;
    Ok((after - before).to_string())
}

/// The two replica runs (after [`super::smoke`] on the same devnet and Redis).
pub async fn replicas(devnet: &AnalyticsDevnet, redis: &RedisServer) -> Result<ReplicaReport> {
    crate::apt::ensure(crate::apt::SHARED_STATE)?;
    let hardening = Hardening::of(docs())?;
    let body = harness::inline_pdf("zugferd_basic_einfach.pdf")?;
    let balance = || test_devnet::paid::usdc_balance(&devnet.info, &devnet.info.pay_to);

    // Two replicas behind nginx: one payment ten times.
    let limits = [
        ("DOCS_LIMITS__UNVERIFIED_PER_CLIENT", "100"),
        ("DOCS_LIMITS__PAYER_CONCURRENCY", "100"),
    ];
    let (config, env) = docs_config(devnet, redis, &devnet.info.rpc_url, &limits)?;
    let (a, a_url) = start(&hardening, &config, &env).await?;
    let (b, b_url) = start(&hardening, &config, &env).await?;
    let port = |url: &str| -> Result<u16> {
        url.rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .context("a port")
    };
    let nginx = Nginx::round_robin(&[port(&a_url)?, port(&b_url)?])?;
    let unpaid = post_json(&format!("{}/document", nginx.url()), &body, None).await;
    if unpaid.status != 402 {
        bail!("{}: {} ({})", unpaid.status, unpaid.body, nginx.error_log());
    }
    let terms = unpaid.terms();
    let price = terms
        .accepts
        .first()
        .map(|offer| offer.amount.clone())
        .context("the terms offer nothing")?;
    let signature = devnet
        .info
        .payment_signature(&terms, &format!("images replicas {}", std::process::id()))?;
    let before = balance().await?;
    let copies = 10;
    assert_served_once(
        &format!("{}/document", nginx.url()),
        &body,
        &signature,
        copies,
        || format!("{}\n{}\n{}", nginx.error_log(), a.logs(), b.logs()),
    )
    .await;
    let burst_gained = gained_since(devnet, before).await?;
    let paid_outcomes = outcomes(&a_url, "paid").await? + outcomes(&b_url, "paid").await?;
    let reused_outcomes = outcomes(&a_url, "reused").await? + outcomes(&b_url, "reused").await?;
    drop(nginx);
    for container in [&a, &b] {
        container.terminate()?;
    }
    drop((a, b));

    // SIGTERM with a paid request in flight: the facilitator's node answers through a proxy
    // that holds every call a second, so the request is still verifying or settling when the
    // signal comes (the proxy has seen a call of it).
    let proxy = RpcProxy::start(&devnet.info.rpc_url, Duration::from_secs(1)).await?;
    let (config, env) = docs_config(devnet, redis, &proxy.url, &[])?;
    let (container, url) = start(&hardening, &config, &env).await?;
    let terms = post_json(&format!("{url}/document"), &body, None)
        .await
        .terms();
    let signature = devnet
        .info
        .payment_signature(&terms, &format!("images sigterm {}", std::process::id()))?;
    let before = balance().await?;
    let calls_before = proxy.http_requests();
    let in_flight = tokio::spawn({
        let (url, body) = (format!("{url}/document"), body.clone());
        async move { post_json(&url, &body, Some(&signature)).await }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while proxy.http_requests() == calls_before {
        if Instant::now() > deadline || in_flight.is_finished() {
            bail!(
                "the paid request never reached the facilitator's node\n{}",
                container.logs()
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let unanswered_at_signal = !in_flight.is_finished();
    let signalled = Instant::now();
    container.signal_term()?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let new_connection_refused = reqwest::Client::new()
        .get(format!("{url}/health"))
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .is_err();
    let answer: Answer = in_flight.await?;
    let in_flight_answered_after_seconds = signalled.elapsed().as_secs_f64();
    let exit_code = container.wait()?;
    let stop_seconds = signalled.elapsed().as_secs_f64();
    let in_flight_gained = gained_since(devnet, before).await?;
    let report = ReplicaReport {
        copies,
        paid_outcomes,
        reused_outcomes,
        burst_gained,
        price: price.clone(),
        in_flight_status: answer.status.as_u16(),
        in_flight_settled: answer.settled(),
        in_flight_answered_after_seconds,
        in_flight_gained,
        new_connection_refused,
        stop_seconds,
        exit_code,
    };
    let text = serde_json::to_string_pretty(&report)?;
    std::fs::write(scratch().join("replicas.json"), &text)?;
    println!("replicas: {text}");
    let charged_once = report.burst_gained == price
        && report.paid_outcomes == 1.0
        && report.reused_outcomes >= (copies - 1) as f64;
    // Answered and charged once, or refused uncharged: never charged without the answer.
    let in_flight_ok = unanswered_at_signal
        && if report.in_flight_status == 200 {
            report.in_flight_settled && report.in_flight_gained == price
        } else {
            report.in_flight_gained == "0" && answer.body["charged"] == Value::Bool(false)
        };
    if !charged_once || !in_flight_ok || !report.new_connection_refused || report.exit_code != "0" {
        bail!(
            "the replica runs failed: {report:?}\n{}\n{}",
            answer.body,
            container.logs()
        );
    }
    Ok(report)
}
