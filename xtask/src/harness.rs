//! What the load bench, the soak and the API conformance run share: both server executables
//! started on loopback ports with a stand-in facilitator of this process, a proxy that pays
//! every request it forwards, and the process figures read from `/proc` and `/metrics`.

use std::collections::HashSet;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use x402_core::{PaymentRequired, decode_header};

use crate::paths;

/// The address the servers are paid to (the demo's payee; nothing is ever paid on a chain here).
pub const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

/// `release` for the load bench and the soak, `debug` for the CI conformance run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The executables `cargo test --workspace` builds (the features of the whole workspace's
    /// test build, so CI's conformance step reuses the test step's artifacts instead of
    /// compiling every dependency a second time: that second copy filled CI's disk).
    Debug,
    /// `cargo build --release`.
    Release,
}

/// Builds both server executables and returns the directory holding them.
pub fn build_servers(profile: Profile) -> Result<PathBuf> {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(paths::workspace_root());
    match profile {
        Profile::Debug => command.args(["test", "--workspace", "--locked", "--no-run"]),
        Profile::Release => command.args([
            "build",
            "--locked",
            "--release",
            "-p",
            "analytics-server",
            "-p",
            "docs-server",
        ]),
    };
    crate::run(&mut command)?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| paths::workspace_root().join("target"), PathBuf::from);
    Ok(target.join(match profile {
        Profile::Debug => "debug",
        Profile::Release => "release",
    }))
}

/// What the stand-in facilitator counted.
#[derive(Debug, Default)]
pub struct FacilitatorCounts {
    /// `/verify` calls.
    pub verified: AtomicU64,
    /// `/settle` calls answered with success (a nonce seen for the first time).
    pub settled: AtomicU64,
    /// `/settle` calls for a nonce already settled: a double settlement, refused as a chain
    /// would, and counted.
    pub double_settlements: AtomicU64,
    nonces: Mutex<HashSet<String>>,
}

impl FacilitatorCounts {
    /// (verified, settled, double settlements) now.
    pub fn snapshot(&self) -> (u64, u64, u64) {
        (
            self.verified.load(Ordering::Relaxed),
            self.settled.load(Ordering::Relaxed),
            self.double_settlements.load(Ordering::Relaxed),
        )
    }
}

/// The network every payment here names (the servers' default chain, Base).
const NETWORK: &str = "eip155:8453";

/// A facilitator on a loopback port of this process: every authorization is valid, every
/// first settlement of a nonce succeeds (no chain is involved), a second one is refused and
/// counted. Signatures are not checked: the servers' own checks (terms, window, replay lock)
/// are what is under test.
pub async fn spawn_facilitator() -> Result<(String, Arc<FacilitatorCounts>)> {
    let counts = Arc::new(FacilitatorCounts::default());
    let router = Router::new()
        .route(
            "/supported",
            get(|| async {
                Json(json!({
                    "kinds": [{"x402Version": 2, "scheme": "exact", "network": NETWORK}],
                    "extensions": [],
                    "signers": {}
                }))
            }),
        )
        .route("/verify", post(verify))
        .route("/settle", post(settle))
        .with_state(counts.clone());
    let url = serve(router).await?;
    Ok((url, counts))
}

fn authorization(body: &Value) -> (String, String) {
    let auth = body.pointer("/paymentPayload/payload/authorization");
    let field = |name: &str| {
        auth.and_then(|a| a.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    (field("from"), field("nonce"))
}

async fn verify(State(counts): State<Arc<FacilitatorCounts>>, Json(body): Json<Value>) -> Response {
    counts.verified.fetch_add(1, Ordering::Relaxed);
    let (payer, _) = authorization(&body);
    Json(json!({"isValid": true, "payer": payer})).into_response()
}

async fn settle(State(counts): State<Arc<FacilitatorCounts>>, Json(body): Json<Value>) -> Response {
    let (payer, nonce) = authorization(&body);
    let first = counts
        .nonces
        .lock()
        .map(|mut seen| seen.insert(nonce.clone()))
        .unwrap_or(false);
    if !first {
        counts.double_settlements.fetch_add(1, Ordering::Relaxed);
        return Json(
            json!({"success": false, "errorReason": "invalid_exact_evm_nonce_already_used",
            "payer": payer, "transaction": "", "network": NETWORK}),
        )
        .into_response();
    }
    let n = counts.settled.fetch_add(1, Ordering::Relaxed) + 1;
    Json(
        json!({"success": true, "payer": payer, "transaction": format!("0x{n:064x}"),
        "network": NETWORK}),
    )
    .into_response()
}

/// Serves `router` on a free port of 127.0.0.1 (inside a tokio runtime); returns its URL.
pub async fn serve(router: Router) -> Result<String> {
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok(format!("http://{address}"))
}

/// The `PAYMENT-SIGNATURE` value that asks the paying proxy to pay.
pub const PAY_ME_PLACEHOLDER: &str = "pay-through-proxy";

/// A proxy in front of `upstream` that pays: every request is forwarded (a `PAYMENT-SIGNATURE:
/// pay-through-proxy` placeholder taken off); when a request carried that placeholder and the
/// answer is a 402 with `PAYMENT-REQUIRED`, the same request is sent again with a fresh
/// payment of the test payer for those terms (a new nonce each time). Everything else comes
/// back unchanged. Returns the proxy's URL and the count of payments it sent.
pub async fn spawn_paying_proxy(upstream: String) -> Result<(String, Arc<AtomicU64>)> {
    let paid = Arc::new(AtomicU64::new(0));
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()?;
    let state = Arc::new((client, upstream, paid.clone()));
    let router = Router::new().fallback(forward).with_state(state);
    Ok((serve(router).await?, paid))
}

type ProxyState = Arc<(reqwest::Client, String, Arc<AtomicU64>)>;

async fn forward(State(state): State<ProxyState>, request: Request) -> Response {
    let (client, upstream, paid) = &*state;
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, 64 * 1024 * 1024).await else {
        return (StatusCode::BAD_GATEWAY, "proxy: body unreadable").into_response();
    };
    let url = format!(
        "{upstream}{}",
        parts.uri.path_and_query().map_or("/", |p| p.as_str())
    );
    // Only requests carrying the placeholder are paid; the others go through as sent.
    let wants_payment = parts
        .headers
        .get("payment-signature")
        .is_some_and(|v| v == PAY_ME_PLACEHOLDER);
    let send = |extra: Option<String>| {
        let mut request = client
            .request(parts.method.clone(), &url)
            .body(body.clone());
        for (name, value) in &parts.headers {
            let placeholder = name == "payment-signature" && wants_payment;
            if name != "host" && name != "content-length" && !placeholder {
                request = request.header(name, value);
            }
        }
        if let Some(signature) = extra {
            request = request.header("payment-signature", signature);
        }
        request.send()
    };
    let Ok(first) = send(None).await else {
        return (StatusCode::BAD_GATEWAY, "proxy: upstream unreachable").into_response();
    };
    let terms = (first.status() == StatusCode::PAYMENT_REQUIRED)
        .then(|| first.headers().get("payment-required")?.to_str().ok())
        .flatten()
        .and_then(|h| decode_header::<PaymentRequired>(h).ok());
    let answer = match terms {
        Some(terms) if wants_payment => {
            let n = paid.fetch_add(1, Ordering::Relaxed);
            let label = format!("paying proxy {} {n}", std::process::id());
            let signature = server_kit::testing::payment_signature(&terms, &label);
            match send(Some(signature)).await {
                Ok(answer) => answer,
                Err(_) => {
                    return (StatusCode::BAD_GATEWAY, "proxy: upstream unreachable")
                        .into_response();
                }
            }
        }
        _ => first,
    };
    relay(answer).await
}

async fn relay(answer: reqwest::Response) -> Response {
    let status = answer.status();
    let mut headers = HeaderMap::new();
    for (name, value) in answer.headers() {
        if name != "content-length" && name != "transfer-encoding" && name != "connection" {
            headers.append(name, value.clone());
        }
    }
    let body = answer.bytes().await.unwrap_or_else(|_| Bytes::new());
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// analytics-server.
    Analytics,
    /// docs-server.
    Docs,
}

impl Service {
    /// The executable's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Analytics => "analytics-server",
            Self::Docs => "docs-server",
        }
    }
}

/// One server executable on a loopback port, killed when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// Which one.
    pub service: Service,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The docs server's temporary directory (empty for analytics).
    pub temp_dir: PathBuf,
    _dir: tempfile::TempDir,
}

/// The local chain for paid analytics: anvil with the committed devnet state (the contracts
/// and pools the analytics routes read) and the off-chain stand-in (GeckoTerminal, DefiLlama,
/// exchange tickers, Pyth) on its data, both stopped when dropped. Payments do not touch it:
/// they go to the stand-in facilitator of [`spawn_facilitator`], which counts them (the
/// devnet's USDC sits at Base's USDC address, so the default terms fit both).
#[derive(Debug)]
pub struct AnalyticsDevnet {
    /// anvil and what is deployed on it.
    pub chain: test_devnet::Devnet,
    /// Its RPC URL and payment rail.
    pub info: test_devnet::DevnetInfo,
    /// The off-chain sources.
    pub standin: test_devnet::StandIn,
}

impl AnalyticsDevnet {
    /// Starts anvil on a free port with the committed state (installing the devnet's npm
    /// packages first if needed) and the stand-in reading it.
    pub async fn start() -> Result<Self> {
        let (chain, info) = tokio::task::spawn_blocking(test_devnet::paid::spawn_fresh).await??;
        let standin = test_devnet::StandIn::spawn(&info.rpc_url, &chain.addresses).await?;
        Ok(Self {
            chain,
            info,
            standin,
        })
    }

    /// The analytics configuration sections for this devnet: `[chains.base]` with the
    /// registry overrides, the feed descriptions and `[sources]` on the stand-in.
    pub fn analytics_sections(&self) -> Result<String> {
        Ok(crate::devnet::chain_sections(&self.info)? + "\n" + &self.standin.sources_toml())
    }

    /// A token of the devnet by symbol, checksummed.
    pub fn token(&self, symbol: &str) -> Result<String> {
        Ok(self
            .chain
            .addresses
            .token(symbol)
            .with_context(|| format!("token {symbol} on the devnet"))?
            .to_checksum(None))
    }

    /// A paid `/dex/quote` body the devnet answers: 1.5 WETH to USDC on base.
    pub fn quote(&self) -> Result<Value> {
        Ok(json!({"chain": "base", "token_in": self.token("WETH")?,
            "token_out": self.token("USDC")?, "amount_in": "1.5", "slippage_bps": 50}))
    }
}

/// The limits of a server under load: one client (wrk on loopback) sends everything, so the
/// per-client allowances are lifted; what is measured is the server, not its limiter.
const OPEN_LIMITS: &str = "[limits]\nunpaid_per_window = 4000000000\nunpaid_window_seconds = 1\n\
    unverified_per_client = 1000000\npayer_failures_per_window = 1000000\npayer_concurrency = 100000\n";

impl ServerProcess {
    /// Starts `service` from `bin_dir`, paid through `facilitator`, every chain node pointed
    /// at a closed loopback port (nothing leaves the machine), and waits for `/health`.
    /// `extra` is appended to the configuration.
    pub fn start(service: Service, bin_dir: &Path, facilitator: &str, extra: &str) -> Result<Self> {
        Self::start_with(service, bin_dir, facilitator, None, extra)
    }

    /// The analytics server of [`Self::start`] with chain `base` read from `devnet` and the
    /// off-chain sources on its stand-in (the other chains still at a closed port): its paid
    /// work answers. Payments still go to the stand-in `facilitator`.
    pub fn start_analytics_on(
        devnet: &AnalyticsDevnet,
        bin_dir: &Path,
        facilitator: &str,
        extra: &str,
    ) -> Result<Self> {
        let config = devnet.analytics_sections()?;
        Self::start_with(
            Service::Analytics,
            bin_dir,
            facilitator,
            Some(&config),
            extra,
        )
    }

    fn start_with(
        service: Service,
        bin_dir: &Path,
        facilitator: &str,
        devnet: Option<&str>,
        extra: &str,
    ) -> Result<Self> {
        let port = test_devnet::free_port()?;
        let dir = tempfile::tempdir()?;
        let temp_dir = dir.path().join("work");
        std::fs::create_dir_all(&temp_dir)?;
        let mut toml = format!("listen = \"127.0.0.1:{port}\"\n");
        if service == Service::Docs {
            toml.push_str(&format!("temp_dir = \"{}\"\n", temp_dir.display()));
        }
        toml.push_str(&format!(
            "[log]\nlevel = \"error\"\n[payment]\npay_to = \"{PAY_TO}\"\n\
             [facilitator]\nurl = \"{facilitator}\"\n{OPEN_LIMITS}"
        ));
        match service {
            Service::Analytics => {
                let closed: &[&str] = match devnet {
                    Some(sections) => {
                        toml.push_str(sections);
                        &["ethereum", "arbitrum", "optimism", "polygon"]
                    }
                    None => &["base", "ethereum", "arbitrum", "optimism", "polygon"],
                };
                for chain in closed {
                    toml.push_str(&format!(
                        "[chains.{chain}]\nrpc_urls = [\"http://127.0.0.1:9\"]\n"
                    ));
                }
            }
            Service::Docs => toml.push_str("[ocr]\nengines = 1\n[workers]\nextraction = 1\n"),
        }
        toml.push_str(extra);
        let config = dir.path().join("server.toml");
        std::fs::write(&config, toml)?;
        let log = std::fs::File::create(dir.path().join("server.log"))?;
        let child = Command::new(bin_dir.join(service.name()))
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", service.name()))?;
        let mut server = Self {
            child,
            service,
            port,
            temp_dir,
            _dir: dir,
        };
        server.wait_healthy()?;
        Ok(server)
    }

    fn wait_healthy(&mut self) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if std::net::TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, self.port)))
                .is_ok()
            {
                return Ok(());
            }
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "{} exited with {status}: {}",
                    self.service.name(),
                    self.log()
                );
            }
            if Instant::now() > deadline {
                bail!("{} never listened", self.service.name());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its log so far (stderr).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("server.log")).unwrap_or_default()
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory of the server process, KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid())
    }

    /// Resident memory of its child processes (the docs server's workers), KiB.
    pub fn children_rss_kib(&self) -> u64 {
        children(self.pid()).into_iter().map(rss_kib).sum()
    }

    /// Open file descriptors of the server process.
    pub fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid())).map_or(0, Iterator::count)
    }

    /// Entries left in its temporary directory.
    pub fn temp_entries(&self) -> usize {
        std::fs::read_dir(&self.temp_dir).map_or(0, Iterator::count)
    }

    /// Whether it still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` of a process, KiB (0 when it is gone).
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// The direct children of a process (from every thread's `children` list).
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

pub use server_kit::testing::metric_sum;

/// `GET url/metrics`.
pub async fn metrics(client: &reqwest::Client, base: &str) -> Result<String> {
    Ok(client
        .get(format!("{base}/metrics"))
        .send()
        .await?
        .error_for_status()?
        .text()
        .await?)
}

/// The terms a 402 answer names (its `PAYMENT-REQUIRED` header).
pub fn terms_of(headers: &reqwest::header::HeaderMap) -> Result<PaymentRequired> {
    let header = headers
        .get("payment-required")
        .context("no PAYMENT-REQUIRED header")?
        .to_str()?;
    Ok(decode_header(header)?)
}

/// `n` distinct payments for `terms` (nonces from `label` and the index).
pub fn payments(terms: &PaymentRequired, label: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| server_kit::testing::payment_signature(terms, &format!("{label} {i}")))
        .collect()
}

/// A `/document` body carrying `testdata/pdf/NAME` inline.
pub fn inline_pdf(name: &str) -> Result<Value> {
    use base64::Engine as _;
    let bytes = std::fs::read(paths::workspace_root().join("testdata/pdf").join(name))?;
    Ok(json!({"pdf_base64": base64::engine::general_purpose::STANDARD.encode(bytes)}))
}
