//! One server executable run as a replica for the multi-replica tests (issue 21): started
//! with a configuration file written to a temporary directory, watched through its own
//! `/health`, `/readiness` and `/metrics`, stopped by SIGTERM (a graceful stop) or SIGKILL (a
//! crash, also when dropped). Both services' `devnet_replicas` tests use it, with
//! [`crate::RedisServer`] and [`crate::Nginx`].

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use x402_core::{PaymentRequired, decode_header};

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
        Ok(server_kit::testing::metric_sum(&text, metric, &[label]))
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

    /// How many requests this replica refused before any work: the 402s asking for payment
    /// and the 409s telling a copy its authorization is in use or taken (`reused`).
    pub async fn refused_before_work(&self) -> f64 {
        self.outcomes("payment_required").await + self.outcomes("reused").await
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

impl Replica {
    /// Asserts `/readiness` turns 503 with its `state` check failed (Redis is away), within
    /// 20 s.
    pub async fn assert_unready_for_state(&self) {
        let (status, body) = self
            .wait_state_check("failed")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["ready"], false, "{body}");
        assert_eq!(body["checks"]["state"], "failed", "{body}");
    }

    /// Asserts `/readiness`'s `state` check is ok again (Redis is back), within 20 s.
    pub async fn assert_state_ok(&self) {
        let (_, body) = self
            .wait_state_check("ok")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(body["checks"]["state"], "ok", "{body}");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A server's answer, kept whole for a test's assertions.
#[derive(Debug)]
pub struct Answer {
    /// Its status.
    pub status: reqwest::StatusCode,
    /// Its headers.
    pub headers: reqwest::header::HeaderMap,
    /// Its JSON body (`null` when it is not JSON).
    pub body: Value,
}

impl Answer {
    /// The payment terms of a 402 (its `PAYMENT-REQUIRED` header); panics on anything else,
    /// for tests.
    pub fn terms(&self) -> PaymentRequired {
        assert_eq!(
            self.status,
            reqwest::StatusCode::PAYMENT_REQUIRED,
            "{}",
            self.body
        );
        let header = self.headers["payment-required"]
            .to_str()
            .unwrap_or_else(|e| panic!("PAYMENT-REQUIRED is not ASCII: {e}"));
        decode_header(header).unwrap_or_else(|e| panic!("PAYMENT-REQUIRED: {e}"))
    }

    /// Asserts a paid request refused because the shared state is unreachable: 503
    /// `state_unavailable`, `charged: false`, no receipt.
    pub fn assert_state_unavailable(&self) {
        assert_eq!(
            self.status,
            reqwest::StatusCode::SERVICE_UNAVAILABLE,
            "{}",
            self.body
        );
        assert_eq!(self.body["error"], "state_unavailable");
        assert_eq!(self.body["charged"], false);
        assert!(!self.settled(), "a receipt on a refusal");
    }

    /// Whether it carries a settlement receipt (`PAYMENT-RESPONSE`).
    pub fn settled(&self) -> bool {
        self.headers.contains_key("payment-response")
    }
}

/// POSTs `body` as JSON to `url`, with `payment` as `PAYMENT-SIGNATURE` when given; panics
/// when no answer comes (for tests).
pub async fn post_json(url: &str, body: &Value, payment: Option<&str>) -> Answer {
    let mut request = reqwest::Client::new().post(url).json(body);
    if let Some(payment) = payment {
        request = request.header("payment-signature", payment);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("no answer from {url}: {e}"));
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

/// Asserts that `url` (nginx before replicas sharing one Redis) lets one client send
/// `allowance` unpaid requests with `body` and answers the next two 429 `too_many_unpaid`: the
/// allowance is counted once over all replicas, not once per replica.
pub async fn assert_unpaid_allowance_is_shared(url: &str, body: &Value, allowance: u32) {
    for i in 0..allowance {
        let answer = post_json(url, body, None).await;
        assert_ne!(
            answer.status,
            reqwest::StatusCode::TOO_MANY_REQUESTS,
            "request {i}: {}",
            answer.body
        );
    }
    for _ in 0..2 {
        let answer = post_json(url, body, None).await;
        assert_eq!(
            answer.status,
            reqwest::StatusCode::TOO_MANY_REQUESTS,
            "{}",
            answer.body
        );
        assert_eq!(answer.body["error"], "too_many_unpaid");
    }
}

/// Sends one signed payment `copies` times at once to `url` with `body` and asserts that
/// exactly one copy was served, with a receipt, and every other was refused 409
/// `authorization_reused` (the replay lock, shared by the replicas behind `url`): `charged`
/// unknown while the first is at work or settling, `true` once it settled; never a 402, which
/// would have a client sign a second authorization. `context` (a proxy's error log) is shown when an answer is something else.
pub async fn assert_served_once(
    url: &str,
    body: &Value,
    payment: &str,
    copies: usize,
    context: impl Fn() -> String,
) {
    let sends: Vec<_> = (0..copies)
        .map(|_| {
            let (url, body, payment) = (url.to_owned(), body.clone(), payment.to_owned());
            tokio::spawn(async move { post_json(&url, &body, Some(&payment)).await })
        })
        .collect();
    let mut served = 0;
    for send in sends {
        let answer = send
            .await
            .unwrap_or_else(|e| panic!("a copy's task failed: {e}"));
        match answer.status {
            reqwest::StatusCode::OK => {
                served += 1;
                assert!(answer.settled(), "served without a receipt");
            }
            reqwest::StatusCode::CONFLICT => {
                assert_eq!(
                    answer.body["error"], "authorization_reused",
                    "{}",
                    answer.body
                );
                let charged = &answer.body["charged"];
                assert!(
                    charged.is_null() || *charged == Value::Bool(true),
                    "{}",
                    answer.body
                );
            }
            other => panic!("{other}: {} ({})", answer.body, context()),
        }
    }
    assert_eq!(served, 1, "copies served");
}
