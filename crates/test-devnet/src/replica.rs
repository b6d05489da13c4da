//! One server executable run as a replica for the multi-replica tests (issue 21): started
//! with a configuration file written to a temporary directory, watched through its own
//! `/health`, `/readiness` and `/metrics`, stopped by SIGTERM (a graceful stop) or SIGKILL (a
//! crash, also when dropped). Both services' `devnet_replicas` tests use it, with
//! [`crate::RedisServer`] and [`crate::Nginx`].

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::anvil::{DevnetError, free_port};

/// A running server process on a loopback port.
#[derive(Debug)]
pub struct Replica {
    child: Option<Child>,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl Replica {
    /// Runs `binary --config FILE`, where FILE holds `config(port)` (TOML, which must listen on
    /// `127.0.0.1:port`), and waits up to 30 s until `/health` answers. Its output is dropped.
    pub async fn start(
        binary: &Path,
        config: impl FnOnce(u16) -> String,
    ) -> Result<Self, DevnetError> {
        let port = free_port()?;
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("config.toml");
        std::fs::write(&file, config(port))?;
        let child = Command::new(binary)
            .arg("--config")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| DevnetError::Process(format!("starting {}: {e}", binary.display())))?;
        let mut replica = Self {
            child: Some(child),
            port,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while reqwest::get(format!("{}/health", replica.url()))
            .await
            .is_err()
        {
            if let Some(status) = replica.try_wait()? {
                return Err(DevnetError::Process(format!(
                    "{} exited at start with {status}",
                    binary.display()
                )));
            }
            if Instant::now() > deadline {
                return Err(DevnetError::Process(format!(
                    "{} never answered /health on port {port}",
                    binary.display()
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(replica)
    }

    /// Its base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills it (SIGKILL: a crash) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends SIGTERM (what Kubernetes sends when it stops a pod); the process keeps running
    /// while it drains: see [`Self::wait_exit`].
    pub fn terminate(&self) -> Result<(), DevnetError> {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;

        let pid = self
            .pid()
            .ok_or_else(|| DevnetError::Process("the replica is not running".into()))?;
        let pid = i32::try_from(pid).map_err(|e| DevnetError::Process(e.to_string()))?;
        kill(Pid::from_raw(pid), Signal::SIGTERM)
            .map_err(|e| DevnetError::Process(format!("SIGTERM: {e}")))
    }

    /// Its exit status, if it has exited.
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>, DevnetError> {
        match self.child.as_mut() {
            Some(child) => Ok(child.try_wait()?),
            None => Ok(None),
        }
    }

    /// Waits up to `within` for it to exit; `Err` when it is still running then.
    pub async fn wait_exit(&mut self, within: Duration) -> Result<ExitStatus, DevnetError> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.try_wait()? {
                self.child = None;
                return Ok(status);
            }
            if Instant::now() > deadline {
                return Err(DevnetError::Process(format!(
                    "still running {} s after being asked to stop",
                    within.as_secs_f64()
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The sum of the series of counter `metric` whose labels include `label` (`outcome="paid"`)
    /// on its `/metrics`; 0 when there is none.
    pub async fn metric_sum(&self, metric: &str, label: &str) -> Result<f64, DevnetError> {
        let text = reqwest::get(format!("{}/metrics", self.url()))
            .await
            .map_err(|e| DevnetError::Process(format!("/metrics: {e}")))?
            .text()
            .await
            .map_err(|e| DevnetError::Process(format!("/metrics: {e}")))?;
        Ok(text
            .lines()
            .filter(|line| {
                line.strip_prefix(metric)
                    .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
                    && line.contains(label)
            })
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .sum())
    }

    /// How many paid requests ended with `outcome` (`paid`, `payment_required`,
    /// `state_unavailable`): the sum of `paid_route_outcomes_total{outcome=...}`.
    pub async fn outcomes(&self, outcome: &str) -> f64 {
        self.metric_sum(
            "paid_route_outcomes_total",
            &format!("outcome=\"{outcome}\""),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `/readiness`: its status code and body.
    pub async fn readiness(&self) -> Result<(u16, Value), DevnetError> {
        let response = reqwest::get(format!("{}/readiness", self.url()))
            .await
            .map_err(|e| DevnetError::Process(format!("/readiness: {e}")))?;
        let status = response.status().as_u16();
        Ok((status, response.json().await.unwrap_or(Value::Null)))
    }

    /// `/readiness` once its `state` check reads `state` (`ok`, `failed`), or the last answer
    /// after 20 s.
    pub async fn wait_state_check(&self, state: &str) -> Result<(u16, Value), DevnetError> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (status, body) = self.readiness().await?;
            if body["checks"]["state"] == state || Instant::now() > deadline {
                return Ok((status, body));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}
