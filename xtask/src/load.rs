//! `cargo xtask bench load`: wrk (Debian) on loopback against the release executables: the 402
//! path of each server, paid `/dex/quote` on a local devnet (anvil with the committed
//! contracts) and paid `/document` cache hits, both through the stand-in facilitator, and the
//! docs server's 402 path with one and two replicas behind nginx on one Redis. Throughput,
//! p50/p99 and the servers' peak RSS, with the status counts taken from the servers' own
//! `/metrics`; every paid 200 must be matched by one settlement at the facilitator (a request
//! wrk abandons at the end after its settlement began is settled unread: at most one per
//! connection).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::harness::{self, AnalyticsDevnet, Profile, ServerProcess, Service};

/// What wrk measured.
#[derive(Debug, Clone, Default)]
pub struct WrkFigures {
    /// Requests completed per second.
    pub rate: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 99th percentile latency, ms.
    pub p99_ms: f64,
    /// Requests completed.
    pub requests: u64,
    /// Socket errors (connect, read, write, timeout) wrk counted.
    pub socket_errors: u64,
}

fn milliseconds(text: &str) -> Option<f64> {
    let text = text.trim();
    let (number, factor) = if let Some(n) = text.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        return None;
    };
    Some(number.parse::<f64>().ok()? * factor)
}

/// Reads wrk's `--latency` report.
pub fn parse_wrk(output: &str) -> Result<WrkFigures> {
    let mut figures = WrkFigures::default();
    for line in output.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["50%", value] => figures.p50_ms = milliseconds(value).unwrap_or(f64::NAN),
            ["99%", value] => figures.p99_ms = milliseconds(value).unwrap_or(f64::NAN),
            ["Requests/sec:", value] => figures.rate = value.parse().unwrap_or(f64::NAN),
            [count, "requests", "in", ..] => figures.requests = count.parse().unwrap_or(0),
            ["Socket", "errors:", rest @ ..] => {
                figures.socket_errors = rest
                    .iter()
                    .filter_map(|w| w.trim_end_matches(',').parse::<u64>().ok())
                    .sum();
            }
            _ => {}
        }
    }
    if figures.requests == 0 {
        bail!("wrk reported no requests:\n{output}");
    }
    Ok(figures)
}

/// A wrk script POSTing `body` as JSON; with `payments` (a file of PAYMENT-SIGNATURE values,
/// one a line), each request carries the next unused one, and a thread stops when its share
/// is spent (so no payment is ever sent twice).
pub fn post_script(body: &Value, payments: Option<(&Path, usize)>) -> String {
    let body = serde_json::to_string(body).unwrap_or_default();
    let mut script = format!(
        "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n\
         wrk.body = [==[{body}]==]\n"
    );
    if let Some((file, threads)) = payments {
        script.push_str(&format!(
            "local threads = {threads}\nlocal counter = 0\n\
             function setup(thread) thread:set(\"id\", counter); counter = counter + 1 end\n\
             local payments = {{}}\nlocal sent = 0\n\
             function init(args)\n  for line in io.lines(\"{file}\") do payments[#payments + 1] = line end\nend\n\
             function request()\n  local index = sent * threads + id + 1\n  sent = sent + 1\n\
             \x20 wrk.headers[\"payment-signature\"] = payments[index]\n  return wrk.format()\nend\n\
             function response(status, headers, body)\n  if (sent + 1) * threads + id + 1 > #payments then wrk.thread:stop() end\nend\n",
            file = file.display()
        ));
    }
    script
}

/// Runs wrk against `url` with `script` and returns its figures.
pub fn wrk(url: &str, script: &Path, connections: u32, seconds: u32) -> Result<WrkFigures> {
    let output = Command::new("wrk")
        .args(["-t2", &format!("-c{connections}"), &format!("-d{seconds}s")])
        .args(["--latency", "--timeout", "30s", "-s"])
        .arg(script)
        .arg(url)
        .output()
        .context("running wrk")?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    parse_wrk(&text)
}

/// Samples the resident memory of `pids` (and their children) every 100 ms until dropped;
/// keeps the peak of the sum.
pub struct RssPeak {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl std::fmt::Debug for RssPeak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RssPeak").finish_non_exhaustive()
    }
}

impl RssPeak {
    /// Starts sampling.
    pub fn start(pids: Vec<u32>) -> Self {
        let peak = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let total: u64 = pids
                    .iter()
                    .map(|pid| {
                        harness::rss_kib(*pid)
                            + harness::children(*pid)
                                .into_iter()
                                .map(harness::rss_kib)
                                .sum::<u64>()
                    })
                    .sum();
                p.fetch_max(total, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Self { peak, stop }
    }

    /// The peak so far, MiB.
    pub fn mib(&self) -> f64 {
        self.peak.load(Ordering::Relaxed) as f64 / 1024.0
    }
}

impl Drop for RssPeak {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One line of the results table.
#[derive(Debug)]
struct Row {
    name: String,
    figures: WrkFigures,
    rss_mib: f64,
    statuses: String,
}

async fn status_counts(client: &reqwest::Client, bases: &[String], route: &str) -> Result<String> {
    let mut counts = std::collections::BTreeMap::<String, f64>::new();
    for base in bases {
        let text = harness::metrics(client, base).await?;
        for line in text
            .lines()
            .filter(|l| l.starts_with("http_requests_total{"))
        {
            if !line.contains(&format!("route=\"{route}\"")) {
                continue;
            }
            let status = line
                .split("status=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or("?");
            let value: f64 = line
                .rsplit(' ')
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
            *counts.entry(status.to_owned()).or_default() += value;
        }
    }
    Ok(counts
        .iter()
        .map(|(status, n)| format!("{status}: {n:.0}"))
        .collect::<Vec<_>>()
        .join(", "))
}

/// `cargo xtask bench load` (`seconds` per wrk run).
pub fn bench_load(seconds: u32) -> Result<()> {
    crate::apt::ensure(crate::apt::LOAD)?;
    crate::apt::ensure(crate::apt::SHARED_STATE)?;
    let bin_dir = harness::build_servers(Profile::Release)?;
    let work = tempfile::tempdir()?;
    let runtime = tokio::runtime::Runtime::new()?;
    let (rows, mismatches) = runtime.block_on(run_all(&bin_dir, work.path(), seconds))?;
    println!(
        "\n| run | req/s | p50 | p99 | requests | socket errors | peak RSS (server + workers) | statuses (server metrics) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for row in rows {
        println!(
            "| {} | {:.0} | {:.2} ms | {:.2} ms | {} | {} | {:.0} MiB | {} |",
            row.name,
            row.figures.rate,
            row.figures.p50_ms,
            row.figures.p99_ms,
            row.figures.requests,
            row.figures.socket_errors,
            row.rss_mib,
            row.statuses
        );
    }
    if !mismatches.is_empty() {
        bail!(
            "paid answers and settlements differ: {}",
            mismatches.join("; ")
        );
    }
    Ok(())
}

async fn run_all(bin_dir: &Path, work: &Path, seconds: u32) -> Result<(Vec<Row>, Vec<String>)> {
    let client = reqwest::Client::new();
    let (facilitator, counts) = harness::spawn_facilitator().await?;
    let mut rows = Vec::new();
    // Paid runs whose 200s and settlements differ (reported after the table).
    let mut mismatches = Vec::new();

    // 1. The 402 path of each server.
    let analytics = ServerProcess::start(Service::Analytics, bin_dir, &facilitator, "")?;
    // analytics-server's own example of `/dex/quote` (requests::example).
    let quote = serde_json::json!({"chain": "base",
        "token_in": "0x4200000000000000000000000000000000000006",
        "token_out": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "amount_in": "1.5", "slippage_bps": 50});
    let script = work.join("quote.lua");
    std::fs::write(&script, post_script(&quote, None))?;
    let peak = RssPeak::start(vec![analytics.pid()]);
    let figures = wrk_async(
        format!("{}/dex/quote", analytics.url()),
        &script,
        64,
        seconds,
    )
    .await?;
    rows.push(Row {
        name: "analytics-server `/dex/quote` unpaid → 402".into(),
        figures,
        rss_mib: peak.mib(),
        statuses: status_counts(&client, &[analytics.url()], "/dex/quote").await?,
    });
    drop(peak);
    drop(analytics);

    // 1b. Paid `/dex/quote` on the devnet: every request carries a payment of its own, and
    //     the quote is read from anvil (Uniswap V2/V3 and Aerodrome pools, gas, L1 fee).
    let devnet = AnalyticsDevnet::start().await?;
    let analytics = ServerProcess::start_analytics_on(&devnet, bin_dir, &facilitator, "")?;
    let quote = devnet.quote()?;
    let url = format!("{}/dex/quote", analytics.url());
    let first = client.post(&url).json(&quote).send().await?;
    let terms = harness::terms_of(first.headers())?;
    let check = client
        .post(&url)
        .header(
            "payment-signature",
            &harness::payments(&terms, "load quote check", 1)[0],
        )
        .json(&quote)
        .send()
        .await?;
    if !check.status().is_success() {
        bail!(
            "a paid quote on the devnet was refused: {}",
            check.text().await?
        );
    }
    // Far more than anvil answers in a run; a thread stops when its share is spent.
    let n = 8_000;
    let signed =
        tokio::task::spawn_blocking(move || sign_in_parallel(&terms, "load quote", n)).await??;
    let file = work.join("quote-payments.txt");
    std::fs::write(&file, signed.join("\n"))?;
    let script = work.join("paid-quote.lua");
    std::fs::write(&script, post_script(&quote, Some((&file, 2))))?;
    let before = counts.snapshot();
    let metrics_before = harness::metrics(&client, &analytics.url()).await?;
    let peak = RssPeak::start(vec![analytics.pid()]);
    let connections = 8.0;
    let figures = wrk_async(url, &script, connections as u32, seconds).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = counts.snapshot();
    let metrics = harness::metrics(&client, &analytics.url()).await?;
    let ok_of = |text: &str| {
        harness::metric_sum(
            text,
            "http_requests_total",
            &["route=\"/dex/quote\"", "status=\"200\""],
        )
    };
    let answered = ok_of(&metrics) - ok_of(&metrics_before);
    let settled = after.1 - before.1;
    // wrk closes its connections at the end with requests in flight: a request whose work was
    // handed to its settlement is settled though nobody reads the answer (at most one per
    // connection). More 200s than settlements, or more settlements than that, is a failure.
    if answered > settled as f64 || settled as f64 > answered + connections || after.2 > before.2 {
        mismatches.push(format!(
            "paid /dex/quote: {answered} answers 200, {settled} settlements, {} double",
            after.2 - before.2
        ));
    }
    rows.push(Row {
        name: format!(
            "analytics-server `/dex/quote` paid, devnet (stand-in facilitator: {} verified, {settled} settled, {} double)",
            after.0 - before.0,
            after.2 - before.2
        ),
        figures,
        rss_mib: peak.mib(),
        statuses: format!(
            "{}; paid outcomes {:.0}",
            status_counts(&client, &[analytics.url()], "/dex/quote").await?,
            harness::metric_sum(&metrics, "paid_route_outcomes_total", &["outcome=\"paid\""])
        ),
    });
    drop(peak);
    drop(analytics);
    drop(devnet);

    let docs = ServerProcess::start(Service::Docs, bin_dir, &facilitator, "")?;
    let document = harness::inline_pdf("multipage.pdf")?;
    let script = work.join("document.lua");
    std::fs::write(&script, post_script(&document, None))?;
    let peak = RssPeak::start(vec![docs.pid()]);
    let figures = wrk_async(format!("{}/document", docs.url()), &script, 64, seconds).await?;
    rows.push(Row {
        name: "docs-server `/document` (3-page PDF inline) unpaid → 402".into(),
        figures,
        rss_mib: peak.mib(),
        statuses: status_counts(&client, &[docs.url()], "/document").await?,
    });
    drop(peak);

    // 2. Paid /document cache hits: one paid miss fills the cache, then every request pays
    //    with a payment of its own and is answered from the cache.
    rows.push(
        paid_run(
            &client,
            &counts,
            &[docs.url()],
            &[docs.pid()],
            (&docs.url(), "docs-server `/document` paid, cache hits"),
            work,
            seconds,
        )
        .await?,
    );
    drop(docs);

    // 3. The docs 402 path and the paid path (cache hits) behind nginx, one replica then two,
    //    on one Redis.
    let redis = test_devnet::RedisServer::spawn()?;
    let shared = format!(
        "[state]\nbackend = \"redis\"\nredis_url = \"{}\"\n",
        redis.url()
    );
    let script = work.join("document.lua");
    for replicas in [1, 2] {
        let servers = (0..replicas)
            .map(|_| ServerProcess::start(Service::Docs, bin_dir, &facilitator, &shared))
            .collect::<Result<Vec<_>>>()?;
        let nginx =
            test_devnet::Nginx::round_robin(&servers.iter().map(|s| s.port).collect::<Vec<_>>())?;
        let peak = RssPeak::start(servers.iter().map(ServerProcess::pid).collect());
        let figures = wrk_async(format!("{}/document", nginx.url()), &script, 64, seconds).await?;
        let bases: Vec<String> = servers.iter().map(ServerProcess::url).collect();
        rows.push(Row {
            name: format!("docs-server `/document` unpaid → 402, {replicas} replica(s) behind nginx, Redis state"),
            figures,
            rss_mib: peak.mib(),
            statuses: status_counts(&client, &bases, "/document").await?,
        });
        drop(peak);
        let name = format!(
            "docs-server `/document` paid, cache hits, {replicas} replica(s) behind nginx, Redis state"
        );
        rows.push(
            paid_run(
                &client,
                &counts,
                &bases,
                &pids(&servers),
                (&nginx.url(), &name),
                work,
                seconds,
            )
            .await
            .with_context(|| format!("paid path, {replicas} replica(s)"))?,
        );
    }
    let (_, _, doubles) = counts.snapshot();
    if doubles > 0 {
        mismatches.push(format!("{doubles} double settlements"));
    }
    Ok((rows, mismatches))
}

/// Pays once for `document` at `url` (a miss that fills the answer cache), then signs 40,000
/// payments of its own (nonces from `label`, so no other run's) and writes them with a wrk
/// script that hands each of two threads its share: the script's path.
async fn warm_and_sign(
    client: &reqwest::Client,
    url: &str,
    document: &Value,
    label: &str,
    work: &Path,
) -> Result<std::path::PathBuf> {
    let first = client
        .post(format!("{url}/document"))
        .json(document)
        .send()
        .await?;
    let terms = harness::terms_of(first.headers())?;
    let warm = harness::payments(&terms, &format!("{label} warm"), 1);
    let warmed = client
        .post(format!("{url}/document"))
        .header("payment-signature", &warm[0])
        .json(document)
        .send()
        .await?;
    if !warmed.status().is_success() {
        bail!("the warming payment was refused: {}", warmed.text().await?);
    }
    let n = 40_000;
    let owned = label.to_owned();
    let signed = tokio::task::spawn_blocking(move || sign_in_parallel(&terms, &owned, n)).await??;
    let file = work.join(format!("{label}-payments.txt"));
    std::fs::write(&file, signed.join("\n"))?;
    let script = work.join(format!("{label}-paid.lua"));
    std::fs::write(&script, post_script(document, Some((&file, 2))))?;
    Ok(script)
}

/// A file-name-safe label from a row's name (each run signs its own payments).
fn rows_label(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn pids(servers: &[ServerProcess]) -> Vec<u32> {
    servers.iter().map(ServerProcess::pid).collect()
}

/// The paid `/document` path at `url` (a replica, or nginx before the replicas at `bases`),
/// reported as `name`: one paid miss fills the answer cache (shared through Redis behind
/// nginx), then every request pays with a payment of its own and is a cache hit on whichever
/// replica it reaches.
async fn paid_run(
    client: &reqwest::Client,
    counts: &harness::FacilitatorCounts,
    bases: &[String],
    pids: &[u32],
    (url, name): (&str, &str),
    work: &Path,
    seconds: u32,
) -> Result<Row> {
    let document = harness::inline_pdf("multipage.pdf")?;
    let label = format!("load-{}", rows_label(name));
    let script = warm_and_sign(client, url, &document, &label, work).await?;
    let before = counts.snapshot();
    let peak = RssPeak::start(pids.to_vec());
    let figures = wrk_async(format!("{url}/document"), &script, 16, seconds).await?;
    let after = counts.snapshot();
    let mut paid = 0.0;
    for base in bases {
        let metrics = harness::metrics(client, base).await?;
        paid += harness::metric_sum(&metrics, "paid_route_outcomes_total", &["outcome=\"paid\""]);
    }
    Ok(Row {
        name: format!(
            "{name} (stand-in facilitator: {} verified, {} settled, {} double)",
            after.0 - before.0,
            after.1 - before.1,
            after.2 - before.2
        ),
        figures,
        rss_mib: peak.mib(),
        statuses: format!(
            "{}; paid outcomes {paid:.0} (with the warm-up)",
            status_counts(client, bases, "/document").await?,
        ),
    })
}

async fn wrk_async(
    url: String,
    script: &Path,
    connections: u32,
    seconds: u32,
) -> Result<WrkFigures> {
    let script = script.to_path_buf();
    tokio::task::spawn_blocking(move || wrk(&url, &script, connections, seconds)).await?
}

/// `n` payments for `terms`, signed on every core (signing is most of the set-up time).
/// Nonces come from `label`, the process id and the index: runs sharing one facilitator must
/// use different labels (the facilitator refuses a nonce it settled before).
pub fn sign_in_parallel(
    terms: &x402_core::PaymentRequired,
    label: &str,
    n: usize,
) -> Result<Vec<String>> {
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let chunk = n.div_ceil(threads);
    let started = std::time::Instant::now();
    let parts: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t * chunk..((t + 1) * chunk).min(n))
                        .map(|i| {
                            server_kit::testing::payment_signature(
                                terms,
                                &format!("{label} {} {i}", std::process::id()),
                            )
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let all: Vec<String> = parts.into_iter().flatten().collect();
    if all.len() != n {
        bail!("signing failed");
    }
    eprintln!(
        "signed {n} payments in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrk_latency_reports() {
        let output = "Running 8s test @ http://127.0.0.1:1/dex/quote
  2 threads and 64 connections
  Latency Distribution
     50%    3.34ms
     75%    5.10ms
     90%    8.00ms
     99%   14.49ms
  136395 requests in 8.06s, 150.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
Requests/sec:  16915.21
Transfer/sec:     18.61MB
";
        let figures = parse_wrk(output).expect("parsed");
        assert_eq!(figures.requests, 136_395);
        assert_eq!(figures.socket_errors, 5);
        assert!((figures.p50_ms - 3.34).abs() < 1e-9);
        assert!((figures.p99_ms - 14.49).abs() < 1e-9);
        assert!((figures.rate - 16_915.21).abs() < 1e-6);
        assert_eq!(milliseconds("812.00us"), Some(0.812));
        assert_eq!(milliseconds("1.50s"), Some(1500.0));
        assert!(parse_wrk("nothing").is_err());
    }

    #[test]
    fn sums_prometheus_series_by_label() {
        let text = "# TYPE paid_route_outcomes_total counter
paid_route_outcomes_total{route=\"/document\",outcome=\"paid\"} 7
paid_route_outcomes_total{route=\"/ocr\",outcome=\"paid\"} 2
paid_route_outcomes_total{route=\"/ocr\",outcome=\"payment_required\"} 40
paid_route_outcomes_total_other{outcome=\"paid\"} 100
";
        let paid = harness::metric_sum(text, "paid_route_outcomes_total", &["outcome=\"paid\""]);
        assert!((paid - 9.0).abs() < 1e-9);
    }
}
