//! `cargo xtask images --smoke`: each image run as the compose file and the Kubernetes
//! manifests run it, on the devnet.

use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use serde::Serialize;

use super::{Hardening, SERVICES, ServiceImage, podman, run, scratch, ulimits};
use crate::paths::workspace_root;

/// What the smoke run of one image saw.
#[derive(Debug, Clone, Serialize)]
pub struct SmokeReport {
    /// The image tag.
    pub tag: String,
    /// From `podman run` to the first `/health` 200, seconds.
    pub startup_seconds: f64,
    /// `/readiness` status.
    pub readiness: u16,
    /// The unpaid request's status (402 expected).
    pub unpaid: u16,
    /// Each paid call: what was asked, the final status, and the USDC the recipient gained
    /// (atomic units).
    pub paid: Vec<(String, u16, String)>,
    /// The user the server runs as (`id -u` inside).
    pub uid: String,
    /// The Kubernetes manifest's security context the container ran with.
    pub hardening: Hardening,
    /// The container's processes checked against it (init, server, workers).
    pub processes_checked: Vec<String>,
    /// Whether writing to the root file system was refused.
    pub root_read_only: bool,
    /// From SIGTERM to the container's exit, seconds, and its exit code.
    pub stop_seconds: f64,
    /// The exit code after SIGTERM.
    pub exit_code: String,
}

/// Waits until `url` answers 200 (at most `within`).
pub(super) async fn wait_ok(
    client: &reqwest::Client,
    url: &str,
    within: std::time::Duration,
) -> Result<()> {
    let deadline = Instant::now() + within;
    loop {
        if let Ok(response) = client.get(url).send().await
            && response.status() == 200
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{url} never answered 200");
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

fn podman_output(args: &[&str]) -> Result<String> {
    let output = podman().args(args).output()?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// One service container on the host network, as `deploy/compose.yaml` runs it and with the
/// security context of its Kubernetes manifest ([`Hardening`]: user, read-only root, a tmpfs
/// at /tmp of the emptyDir's size, no capabilities, no new privileges), the compose
/// configuration file mounted read-only, the compose environment's variables set, listening
/// on `port`.
pub(super) struct Container {
    pub(super) name: String,
}

impl Container {
    pub(super) fn start(
        service: ServiceImage,
        hardening: &Hardening,
        config: &Path,
        mount: &str,
        env: &[(String, String)],
        port: u16,
    ) -> Result<Self> {
        let name = format!("x402-smoke-{}-{port}", std::process::id()) + "-" + service.dockerfile;
        let name = name.replace('.', "-");
        let mut command = podman();
        command
            .args(["run", "-d", "--rm", "--network", "host"])
            .args(hardening.podman_args())
            .args(ulimits())
            .args(["--name", &name])
            .arg("-v")
            .arg(format!("{}:{mount}:ro", config.display()));
        for (key, value) in env {
            command.arg("-e").arg(format!("{key}={value}"));
        }
        command.arg(service.tag).args([
            "--config",
            mount,
            "--listen",
            &format!("127.0.0.1:{port}"),
        ]);
        run(command.stdout(std::process::Stdio::null()), "podman run")?;
        Ok(Self { name })
    }

    pub(super) fn exec(&self, script: &str) -> Result<(bool, String)> {
        let output = podman()
            .args(["exec", &self.name, "sh", "-c", script])
            .output()?;
        Ok((
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        ))
    }

    /// SIGTERM to the container's init (tini passes it on to the server).
    pub(super) fn signal_term(&self) -> Result<()> {
        run(
            podman()
                .args(["kill", "--signal", "TERM", &self.name])
                .stdout(std::process::Stdio::null()),
            "podman kill",
        )
    }

    /// The exit code, once the container has exited.
    pub(super) fn wait(&self) -> Result<String> {
        podman_output(&["wait", &self.name])
    }

    /// SIGTERM, then the wait for the exit: seconds and exit code.
    pub(super) fn terminate(&self) -> Result<(f64, String)> {
        let started = Instant::now();
        self.signal_term()?;
        let code = self.wait()?;
        Ok((started.elapsed().as_secs_f64(), code))
    }

    pub(super) fn logs(&self) -> String {
        podman_output(&["logs", &self.name]).unwrap_or_default()
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = podman()
            .args(["rm", "-f", &self.name])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// The compose environment of a service (`ANALYTICS_` or `DOCS_`), pointed at the devnet and
/// the host's Redis.
pub(super) fn compose_env(
    prefix: &str,
    info: &test_devnet::DevnetInfo,
    redis: &str,
) -> Vec<(String, String)> {
    [
        ("STATE__REDIS_URL", redis.to_owned()),
        ("PAYMENT__PAY_TO", info.pay_to.clone()),
        ("FACILITATOR__RPC_URL", info.rpc_url.clone()),
        (
            "FACILITATOR__PRIVATE_KEY",
            info.facilitator_private_key.clone(),
        ),
    ]
    .into_iter()
    .map(|(key, value)| (format!("{prefix}_{key}"), value))
    .collect()
}

/// `cargo xtask images --smoke`: each built image started as the compose file runs it with
/// its Kubernetes manifest's security context, on the devnet (anvil and the off-chain
/// stand-in on the host) with the host's Redis: `/health`, `/readiness`, an unpaid 402, paid
/// calls by the official client (`/dex/quote`; `/document` on a text PDF and on a scan), the
/// user, the read-only root and every process's credentials checked, then SIGTERM; then the
/// docs image's replica runs ([`super::replicas`]).
pub async fn smoke() -> Result<Vec<SmokeReport>> {
    let devnet = crate::harness::AnalyticsDevnet::start().await?;
    let redis = test_devnet::RedisServer::spawn()?;
    let client = reqwest::Client::new();
    let dir = scratch().join("smoke");
    std::fs::create_dir_all(&dir)?;
    let root = workspace_root();
    let mut reports = Vec::new();
    for service in SERVICES {
        let analytics = service.dockerfile.starts_with("analytics");
        let (compose_toml, mount, prefix) = if analytics {
            (
                "deploy/compose/analytics.toml",
                "/etc/analytics-server/analytics.toml",
                "ANALYTICS",
            )
        } else {
            (
                "deploy/compose/docs.toml",
                "/etc/docs-server/docs.toml",
                "DOCS",
            )
        };
        let mut config = std::fs::read_to_string(root.join(compose_toml))?;
        if analytics {
            // The chains and sources of the devnet (the compose file reads public ones).
            config.push_str(&devnet.analytics_sections()?);
            for chain in ["ethereum", "arbitrum", "optimism", "polygon"] {
                config.push_str(&format!(
                    "[chains.{chain}]\nrpc_urls = [\"http://127.0.0.1:9\"]\n"
                ));
            }
        }
        let config_path = dir.join(format!("{prefix}.toml").to_lowercase());
        std::fs::write(&config_path, config)?;
        let hardening = Hardening::of(service)?;
        hardening.check_image_user(service.tag)?;
        let port = test_devnet::free_port()?;
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let container = Container::start(
            service,
            &hardening,
            &config_path,
            mount,
            &compose_env(prefix, &devnet.info, &redis.url()),
            port,
        )?;
        if let Err(e) = wait_ok(
            &client,
            &format!("{base}/health"),
            std::time::Duration::from_secs(60),
        )
        .await
        {
            bail!("{e}: {}", container.logs());
        }
        let startup_seconds = started.elapsed().as_secs_f64();
        let readiness = client
            .get(format!("{base}/readiness"))
            .send()
            .await?
            .status()
            .as_u16();
        let calls: Vec<(&str, String, serde_json::Value)> = if analytics {
            vec![("/dex/quote", "/dex/quote".to_owned(), devnet.quote()?)]
        } else {
            vec![
                (
                    "/document",
                    "/document (text layer)".to_owned(),
                    crate::harness::inline_pdf("zugferd_basic_einfach.pdf")?,
                ),
                (
                    "/document",
                    "/document (scan: OCR)".to_owned(),
                    crate::harness::inline_pdf("scanned_invoice.pdf")?,
                ),
            ]
        };
        let unpaid = client
            .post(format!("{base}{}", calls[0].0))
            .json(&calls[0].2)
            .send()
            .await?
            .status()
            .as_u16();
        let mut paid = Vec::new();
        for (path, label, body) in calls {
            let before = test_devnet::paid::usdc_balance(&devnet.info, &devnet.info.pay_to).await?;
            let (url, key) = (
                format!("{base}{path}"),
                devnet.info.payer_private_key.clone(),
            );
            let report = tokio::task::spawn_blocking(move || {
                test_devnet::node::official_client_with(&url, &key, &body, &["--no-spend-cap"])
            })
            .await??;
            let after = test_devnet::paid::usdc_balance(&devnet.info, &devnet.info.pay_to).await?;
            let status = report["final"]["status"].as_u64().unwrap_or(0) as u16;
            if status != 200 {
                bail!("{label} in {}: {report}\n{}", service.tag, container.logs());
            }
            paid.push((label, status, (after - before).to_string()));
        }
        let (_, uid) = container.exec("id -u")?;
        let (wrote, _) = container.exec("touch /probe-of-the-root-file-system")?;
        // After the paid calls every process the service starts is running (the docs
        // server's extraction workers among them).
        let processes_checked = hardening
            .check_processes(&container.name)
            .map_err(|e| anyhow::anyhow!("{e}\n{}", container.logs()))?;
        let (stop_seconds, exit_code) = container.terminate()?;
        reports.push(SmokeReport {
            tag: service.tag.to_owned(),
            startup_seconds,
            readiness,
            unpaid,
            paid,
            uid,
            hardening,
            processes_checked,
            root_read_only: !wrote,
            stop_seconds,
            exit_code,
        });
    }
    let report = serde_json::to_string_pretty(&reports)?;
    std::fs::write(scratch().join("smoke.json"), &report)?;
    println!("smoke: {report}");
    for smoke in &reports {
        let ok = smoke.readiness == 200
            && smoke.unpaid == 402
            && smoke
                .paid
                .iter()
                .all(|(_, status, gained)| *status == 200 && gained != "0")
            && smoke.uid != "0"
            && smoke.root_read_only
            && smoke.exit_code == "0"
            && smoke.processes_checked.iter().any(|p| p == "tini")
            && smoke
                .processes_checked
                .iter()
                .any(|p| p.ends_with("-server") || p.ends_with("-serve"));
        if !ok {
            bail!("the smoke run of {} failed: {smoke:?}", smoke.tag);
        }
    }
    // Then the docs image as replicas: behind nginx on Redis, and stopped mid-request.
    super::replicas(&devnet, &redis).await?;
    Ok(reports)
}
