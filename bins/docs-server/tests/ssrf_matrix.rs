//! The server-side request forgery matrix of issue 22: every form of address, literal, scheme,
//! redirect, resolver answer, proxy setting and hostile body a caller can put behind the `url`
//! of `POST /document` and `POST /ocr`, one test each. Every case is sent to both routes, once
//! without and once with a signed payment, and must be refused with its documented status
//! (400 `url_refused`, 413 `payload_too_large`, 502 `counterparty_unreachable`), `charged:
//! false`, without the facilitator ever being asked to verify or settle.
//!
//! Only loopback is ever connected to. Before a case is sent, [`never_connectable`] checks with
//! the public [`AddressPolicy`] that every non-loopback target would be refused without a
//! connection, and stops the test otherwise. The file servers, the proxy and the slow or
//! endless bodies all listen on 127.0.0.1.

mod support;

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy::primitives::U256;
use axum::http::StatusCode;
use flate2::Compression;
use flate2::write::{GzEncoder, ZlibEncoder};
use safe_fetch::{AddressPolicy, FetchError, Lookup, REFUSED_TEXT, SafeFetcher};
use serde_json::{Value, json};
use server_kit::testing::payment_signature;
use support::{App, PAY_TO, Reply};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};
use x402_core::{PaymentRequired, PaymentTerms, ResourceInfo};

/// The routes taking a `url`.
const ROUTES: [&str; 2] = ["/document", "/ocr"];

/// The outcome a case must get.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// 400 `url_refused` with the one refusal text.
    Refused,
    /// 413 `payload_too_large`.
    TooLarge,
    /// 502 `counterparty_unreachable`.
    Unreachable,
}

impl Expect {
    fn status(self) -> StatusCode {
        match self {
            Self::Refused => StatusCode::BAD_REQUEST,
            Self::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Unreachable => StatusCode::BAD_GATEWAY,
        }
    }

    fn code(self) -> &'static str {
        match self {
            Self::Refused => "url_refused",
            Self::TooLarge => "payload_too_large",
            Self::Unreachable => "counterparty_unreachable",
        }
    }
}

/// A `PAYMENT-SIGNATURE` signed by the test payer for 0.02 USDC on Base: a well-formed, validly
/// signed payment, so a server that let it through would verify and could settle it.
fn payment() -> String {
    let terms = PaymentTerms::base_usdc(PAY_TO.parse().expect("address"));
    let required = PaymentRequired {
        x402_version: 2,
        error: None,
        resource: ResourceInfo {
            url: "http://docs.test/document".into(),
            description: None,
            mime_type: None,
            ..Default::default()
        },
        accepts: vec![terms.requirements(U256::from(20_000u64), 150)],
        extensions: None,
    };
    payment_signature(&required, "ssrf-matrix")
}

/// The body of a `url` request to `route`.
fn url_body(route: &str, url: &str) -> Value {
    if route == "/ocr" {
        json!({"url": url, "mime": "image/png"})
    } else {
        json!({"url": url})
    }
}

/// Stops the test before anything is sent if `url` names a host other than loopback that the
/// policy (with loopback allowed, the most permissive setting used here) would connect to.
fn never_connectable(url: &str) {
    let Ok(parsed) = url::Url::parse(url) else {
        return;
    };
    let host = match parsed.host() {
        None => return,
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        // Schemes other than http(s) keep their host opaque; they are refused by scheme, but
        // their host must be harmless all the same.
        Some(url::Host::Domain(name)) => match name.parse() {
            Ok(ip) => ip,
            Err(_) => panic!("{url}: a name ({name}) would be resolved"),
        },
    };
    if host.is_loopback() {
        return;
    }
    assert!(
        AddressPolicy {
            allow_loopback: true
        }
        .refusal(host)
        .is_some(),
        "{url} would be connected to"
    );
}

fn assert_answer(reply: &Reply, expect: Expect, what: &str) {
    assert_eq!(reply.status, expect.status(), "{what}: {}", reply.body);
    assert_eq!(reply.body["error"], expect.code(), "{what}: {}", reply.body);
    assert_eq!(reply.body["charged"], false, "{what}");
    assert!(reply.header("payment-response").is_none(), "{what}");
    if matches!(expect, Expect::Refused) {
        assert_eq!(reply.body["message"], REFUSED_TEXT, "{what}");
    }
}

/// The facilitator of `app` was never asked to verify or settle.
async fn assert_never_charged(app: &App) {
    let calls: Vec<String> = app
        .facilitator
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| r.url.path().to_owned())
        .filter(|p| p == "/verify" || p == "/settle")
        .collect();
    assert!(calls.is_empty(), "the facilitator was called: {calls:?}");
}

/// Sends `url` to both routes, unpaid and paid, and checks every answer.
async fn assert_every_route(app: &App, url: &str, expect: Expect) {
    let signature = payment();
    for route in ROUTES {
        for paid in [None, Some(signature.as_str())] {
            let reply = app.post_to(route, &url_body(route, url), paid).await;
            let what = format!("{route} {url} paid={}", paid.is_some());
            assert_answer(&reply, expect, &what);
        }
    }
    assert_never_charged(app).await;
}

/// A URL given directly to an app that refuses loopback (production) or allows it (demo).
async fn direct(url: &str, allow_loopback: bool) {
    never_connectable(url);
    let app = App::with(|c| c.fetch.allow_loopback = allow_loopback).await;
    assert_every_route(&app, url, Expect::Refused).await;
}

macro_rules! refused_directly {
    ($($name:ident: $url:expr, allow_loopback = $allow:expr;)*) => {$(
        #[tokio::test]
        async fn $name() {
            direct($url, $allow).await;
        }
    )*};
}

refused_directly! {
    // Loopback, refused in production.
    loopback_v4: "http://127.0.0.1/a.pdf", allow_loopback = false;
    loopback_v4_elsewhere_in_8: "http://127.8.9.10:8080/a.pdf", allow_loopback = false;
    loopback_v6: "http://[::1]/a.pdf", allow_loopback = false;
    // "This host" reaches every local listener on Linux, even with loopback allowed.
    unspecified_v4: "http://0.0.0.0/a.pdf", allow_loopback = true;
    unspecified_v4_with_port: "http://0.0.0.0:8402/metrics", allow_loopback = true;
    unspecified_v6: "http://[::]/a.pdf", allow_loopback = true;
    // RFC 1918.
    private_10: "http://10.0.0.7/a.pdf", allow_loopback = true;
    private_172_16: "http://172.16.0.1/a.pdf", allow_loopback = true;
    private_172_31: "http://172.31.255.254/a.pdf", allow_loopback = true;
    private_192_168: "http://192.168.1.1/a.pdf", allow_loopback = true;
    // Carrier-grade NAT, Alibaba's metadata service inside it.
    cgnat_100_64: "http://100.64.0.1/a.pdf", allow_loopback = true;
    cgnat_alibaba_metadata: "http://100.100.100.200/latest/meta-data/", allow_loopback = true;
    // Link-local and the metadata services.
    link_local_metadata_v4: "http://169.254.169.254/latest/meta-data/iam/", allow_loopback = true;
    link_local_v4: "http://169.254.1.1/a.pdf", allow_loopback = true;
    aws_metadata_v6: "http://[fd00:ec2::254]/latest/meta-data/", allow_loopback = true;
    link_local_v6: "http://[fe80::1]/a.pdf", allow_loopback = true;
    oracle_metadata: "http://192.0.0.192/opc/v2/instance/", allow_loopback = true;
    // Unique-local, multicast, broadcast, benchmarking.
    unique_local_fc: "http://[fc00::1]/a.pdf", allow_loopback = true;
    unique_local_fd: "http://[fd12:3456:789a::1]/a.pdf", allow_loopback = true;
    multicast_v4: "http://224.0.0.1/a.pdf", allow_loopback = true;
    multicast_v4_ssdp: "http://239.255.255.250:1900/", allow_loopback = true;
    multicast_v6: "http://[ff02::1]/a.pdf", allow_loopback = true;
    broadcast: "http://255.255.255.255/a.pdf", allow_loopback = true;
    reserved_240: "http://240.0.0.1/a.pdf", allow_loopback = true;
    benchmarking_198_18: "http://198.18.0.1/a.pdf", allow_loopback = true;
    benchmarking_198_19: "http://198.19.255.254/a.pdf", allow_loopback = true;
    // IPv4 inside IPv6: mapped, compatible, translated; loopback forms stay refused with
    // loopback allowed.
    v4_mapped_loopback: "http://[::ffff:127.0.0.1]/a.pdf", allow_loopback = true;
    v4_mapped_private: "http://[::ffff:10.0.0.1]/a.pdf", allow_loopback = true;
    v4_mapped_metadata: "http://[::ffff:a9fe:a9fe]/latest/meta-data/", allow_loopback = true;
    v4_compatible_loopback: "http://[::127.0.0.1]/a.pdf", allow_loopback = true;
    v4_compatible_private: "http://[::192.168.1.1]/a.pdf", allow_loopback = true;
    v4_translated_loopback: "http://[::ffff:0:7f00:1]/a.pdf", allow_loopback = true;
    // NAT64 (RFC 6052) and local-use NAT64 (RFC 8215) of private addresses.
    nat64_private: "http://[64:ff9b::a00:1]/a.pdf", allow_loopback = true;
    nat64_metadata: "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", allow_loopback = true;
    nat64_loopback: "http://[64:ff9b::7f00:1]/a.pdf", allow_loopback = true;
    nat64_local_use: "http://[64:ff9b:1::a00:1]/a.pdf", allow_loopback = true;
    // 6to4 (2002::/16) of loopback, private and metadata addresses.
    sixtofour_loopback: "http://[2002:7f00:1::]/a.pdf", allow_loopback = true;
    sixtofour_private: "http://[2002:c0a8:101::1]/a.pdf", allow_loopback = true;
    sixtofour_metadata: "http://[2002:a9fe:a9fe::]/latest/meta-data/", allow_loopback = true;
    teredo: "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/a.pdf", allow_loopback = true;
    // IPv4 literals as WHATWG URL parsing reads them: all of them are 127.0.0.1.
    decimal_literal_loopback: "http://2130706433/a.pdf", allow_loopback = false;
    octal_literal_loopback: "http://0177.0.0.1/a.pdf", allow_loopback = false;
    hex_literal_loopback: "http://0x7f.1/a.pdf", allow_loopback = false;
    short_literal_loopback: "http://127.1/a.pdf", allow_loopback = false;
    // ... and of private or metadata addresses, refused with loopback allowed.
    decimal_literal_metadata: "http://2852039166/latest/meta-data/", allow_loopback = true;
    octal_literal_private: "http://012.0.0.1/a.pdf", allow_loopback = true;
    hex_literal_private: "http://0xc0.0xa8.0x1.0x1/a.pdf", allow_loopback = true;
    short_literal_private: "http://10.1/a.pdf", allow_loopback = true;
    mixed_literal_zero: "http://0x0/a.pdf", allow_loopback = true;
    // Credentials in the URL, even towards an allowed host.
    userinfo_public_at_loopback: "http://public@127.0.0.1/a.pdf", allow_loopback = true;
    userinfo_name_at_private: "http://example.com@10.0.0.1/a.pdf", allow_loopback = true;
    userinfo_with_password: "http://user:secret@127.0.0.1/a.pdf", allow_loopback = true;
    userinfo_on_v6_loopback: "http://public:x@[::1]/a.pdf", allow_loopback = true;
    // Schemes other than http(s).
    scheme_file: "file:///etc/passwd", allow_loopback = true;
    scheme_file_localhost: "file://localhost/etc/passwd", allow_loopback = true;
    scheme_ftp: "ftp://127.0.0.1/a.pdf", allow_loopback = true;
    scheme_gopher: "gopher://127.0.0.1:6379/_INFO", allow_loopback = true;
    scheme_data: "data:application/pdf;base64,JVBERi0xLjQK", allow_loopback = true;
    scheme_dict: "dict://127.0.0.1:11211/stats", allow_loopback = true;
    scheme_ws: "ws://127.0.0.1/a.pdf", allow_loopback = true;
}

// ---------------------------------------------------------------------------------------------
// Redirects: every status to every class. The first hop is the loopback file server (loopback
// allowed, the demo's setting); each target is refused before it is connected to.

/// Redirect targets, one or more per class. Plain loopback is missing on purpose: with loopback
/// allowed it is a permitted target, and without it the first hop could not be reached either.
const REDIRECT_TARGETS: &[&str] = &[
    "http://0.0.0.0/",
    "http://[::]/",
    "http://10.0.0.7/a.pdf",
    "http://172.16.0.1/a.pdf",
    "http://192.168.1.1/a.pdf",
    "http://100.64.0.1/a.pdf",
    "http://100.100.100.200/latest/meta-data/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
    "http://198.18.0.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://[2002:c0a8:101::1]/",
    "http://167772161/a.pdf",
    "http://012.0.0.1/a.pdf",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://10.1/a.pdf",
    "http://public@127.0.0.1/a.pdf",
    "file:///etc/passwd",
    "ftp://127.0.0.1/a.pdf",
    "gopher://127.0.0.1:6379/_INFO",
    "data:application/pdf;base64,JVBERi0xLjQK",
];

async fn redirects_with(status: u16) {
    let files = MockServer::start().await;
    for (i, target) in REDIRECT_TARGETS.iter().enumerate() {
        never_connectable(target);
        Mock::given(method("GET"))
            .and(path(format!("/hop{i}")))
            .respond_with(ResponseTemplate::new(status).insert_header("location", *target))
            .mount(&files)
            .await;
    }
    let app = App::with(|c| {
        c.fetch.allow_loopback = true;
        // 124 requests from one test client: more than the default unpaid allowance.
        c.common.limits.unpaid_per_window = 1000;
    })
    .await;
    for (i, target) in REDIRECT_TARGETS.iter().enumerate() {
        let url = format!("{}/hop{i}", files.uri());
        let signature = payment();
        for route in ROUTES {
            for paid in [None, Some(signature.as_str())] {
                let reply = app.post_to(route, &url_body(route, &url), paid).await;
                let what = format!("{status} to {target}, {route} paid={}", paid.is_some());
                assert_answer(&reply, Expect::Refused, &what);
            }
        }
        // The first hop was really fetched (four times): the redirect is what was refused.
        let hops = files
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.url.path() == format!("/hop{i}"))
            .count();
        assert_eq!(hops, 4, "{target}");
    }
    assert_never_charged(&app).await;
}

#[tokio::test]
async fn redirect_301_to_every_class() {
    redirects_with(301).await;
}

#[tokio::test]
async fn redirect_302_to_every_class() {
    redirects_with(302).await;
}

#[tokio::test]
async fn redirect_307_to_every_class() {
    redirects_with(307).await;
}

#[tokio::test]
async fn redirect_308_to_every_class() {
    redirects_with(308).await;
}

#[tokio::test]
async fn a_redirect_chain_longer_than_3_is_refused() {
    let files = MockServer::start().await;
    for (from, to) in [
        ("/r1", "/r2"),
        ("/r2", "/r3"),
        ("/r3", "/r4"),
        ("/r4", "/a.pdf"),
    ] {
        Mock::given(method("GET"))
            .and(path(from))
            .respond_with(ResponseTemplate::new(302).insert_header("location", to))
            .mount(&files)
            .await;
    }
    // The end of the chain is a real document: only the chain's length refuses it.
    Mock::given(method("GET"))
        .and(path("/a.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(support::pdf::blank_pdf()))
        .expect(0)
        .mount(&files)
        .await;
    let app = App::with(|c| c.fetch.allow_loopback = true).await;
    assert_every_route(&app, &format!("{}/r1", files.uri()), Expect::Refused).await;
    // Three redirects followed (r1 to r4), the fourth not.
    let paths: Vec<String> = files
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect();
    assert_eq!(paths.iter().filter(|p| *p == "/r4").count(), 4, "{paths:?}");
    files.verify().await;
}

// ---------------------------------------------------------------------------------------------
// DNS rebinding: the fetcher resolves through an injected lookup that answers loopback (the
// allowed "public" address here) first and a private address on every later call.

/// Answers `first` to the first lookup and `later` to every other, counting the lookups.
#[derive(Debug)]
struct Rebinding {
    first: Vec<IpAddr>,
    later: Vec<IpAddr>,
    calls: AtomicUsize,
}

impl Rebinding {
    fn new(first: &[&str], later: &[&str]) -> Arc<Self> {
        let parse = |list: &[&str]| -> Vec<IpAddr> {
            list.iter().map(|a| a.parse().expect("address")).collect()
        };
        for address in first.iter().chain(later) {
            never_connectable(&format!("http://{}/", bracket(address)));
        }
        Arc::new(Self {
            first: parse(first),
            later: parse(later),
            calls: AtomicUsize::new(0),
        })
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn bracket(address: &str) -> String {
    if address.contains(':') {
        format!("[{address}]")
    } else {
        address.to_owned()
    }
}

impl Lookup for Rebinding {
    fn lookup(
        &self,
        host: &str,
    ) -> futures::future::BoxFuture<'static, Result<Vec<IpAddr>, std::io::Error>> {
        assert_eq!(host, "files.rebind.test");
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = if call == 0 {
            self.first.clone()
        } else {
            self.later.clone()
        };
        Box::pin(async move { Ok(answer) })
    }
}

fn rebinding_fetcher(lookup: Arc<Rebinding>) -> SafeFetcher {
    SafeFetcher::with_lookup(
        AddressPolicy {
            allow_loopback: true,
        },
        Duration::from_secs(5),
        lookup,
    )
    .expect("fetcher")
}

#[tokio::test]
async fn rebinding_connects_to_the_checked_address_and_refuses_the_private_answer() {
    let files = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/a.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(b"%PDF-1.4 checked".to_vec()))
        .expect(1)
        .mount(&files)
        .await;
    // A redirect to the same name on another port: a new connection, so a new lookup.
    let other = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(b"%PDF-1.4 rebound".to_vec()))
        .expect(0)
        .mount(&other)
        .await;
    Mock::given(method("GET"))
        .and(path("/hop"))
        .respond_with(ResponseTemplate::new(302).insert_header(
            "location",
            format!("http://files.rebind.test:{}/a.pdf", other.address().port()),
        ))
        .expect(1)
        .mount(&files)
        .await;
    let lookup = Rebinding::new(&["127.0.0.1"], &["10.0.0.7"]);
    let fetcher = rebinding_fetcher(lookup.clone());
    let port = files.address().port();

    let body = fetcher
        .fetch(&format!("http://files.rebind.test:{port}/a.pdf"), 1000)
        .await
        .expect("fetched from the checked address");
    assert_eq!(body, b"%PDF-1.4 checked");
    // One lookup, checked, and the connection went to its answer: the file server (on
    // 127.0.0.1) saw the request under the name.
    assert_eq!(lookup.calls(), 1);
    let seen = files.received_requests().await.unwrap_or_default();
    assert_eq!(
        seen[0].headers.get("host").and_then(|h| h.to_str().ok()),
        Some(format!("files.rebind.test:{port}").as_str())
    );

    // The pooled connection serves the redirect's first hop; its target needs a new
    // connection, the name now answers 10.0.0.7 and is refused before connecting.
    let error = fetcher
        .fetch(&format!("http://files.rebind.test:{port}/hop"), 1000)
        .await
        .expect_err("the second answer is private");
    let FetchError::Refused { reason } = &error else {
        panic!("{error:?}");
    };
    assert!(reason.contains("10.0.0.7"), "{reason}");
    assert_eq!(error.to_string(), REFUSED_TEXT);
    assert_eq!(lookup.calls(), 2);
    files.verify().await;
    other.verify().await;
}

#[tokio::test]
async fn rebinding_a_name_answering_public_and_private_together_is_refused_whole() {
    let files = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(b"%PDF-1.4".to_vec()))
        .expect(0)
        .mount(&files)
        .await;
    let lookup = Rebinding::new(&["127.0.0.1", "169.254.169.254"], &["127.0.0.1"]);
    let fetcher = rebinding_fetcher(lookup.clone());
    let url = format!("http://files.rebind.test:{}/a.pdf", files.address().port());
    let error = fetcher.fetch(&url, 1000).await.expect_err("mixed answer");
    assert!(matches!(error, FetchError::Refused { .. }), "{error:?}");
    assert_eq!(lookup.calls(), 1);
    files.verify().await;
}

// ---------------------------------------------------------------------------------------------
// A proxy in the environment. The variables are set on a child run of this test binary (this
// crate forbids the `unsafe` that `std::env::set_var` needs), whose own test does the fetches.

const PROXY_CHILD: &str = "SSRF_MATRIX_PROXY_CHILD";

#[tokio::test]
async fn a_proxy_in_the_environment_is_not_used() {
    let files = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/a.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(support::pdf::blank_pdf()))
        .mount(&files)
        .await;
    // The proxy answers everything with a body that is no PDF.
    let proxy = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string("proxied"))
        .mount(&proxy)
        .await;
    let output = tokio::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "proxy_child", "--nocapture", "--test-threads=1"])
        .env(PROXY_CHILD, format!("{}/a.pdf", files.uri()))
        .env("HTTP_PROXY", proxy.uri())
        .env("http_proxy", proxy.uri())
        .env("HTTPS_PROXY", proxy.uri())
        .env("https_proxy", proxy.uri())
        .env("ALL_PROXY", proxy.uri())
        .env("all_proxy", proxy.uri())
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .await
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("proxy child done"), "{stdout}");
    let proxied: Vec<String> = proxy
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| r.url.to_string())
        .collect();
    // Only the control client went through the proxy; both routes fetched directly.
    assert_eq!(proxied.len(), 1, "{proxied:?}");
    assert!(proxied[0].contains("control.test"), "{proxied:?}");
    let direct = files.received_requests().await.unwrap_or_default().len();
    assert_eq!(direct, 2);
}

/// The child half of [`a_proxy_in_the_environment_is_not_used`]; does nothing on its own.
#[tokio::test]
async fn proxy_child() {
    let Ok(file_url) = std::env::var(PROXY_CHILD) else {
        return;
    };
    // Control: a client built the ordinary way does pick the proxy up from the environment
    // (the name control.test resolves nowhere; only the proxy answers for it).
    let control = reqwest::Client::builder()
        .build()
        .expect("client")
        .get("http://control.test/a.pdf")
        .send()
        .await
        .expect("through the proxy");
    assert_eq!(control.text().await.expect("body"), "proxied");
    // The service's fetcher does not: the file is fetched from the file server and priced
    // (the proxy's answer is no PDF and would be refused as such).
    let app = App::with(|c| c.fetch.allow_loopback = true).await;
    let document = app
        .post_to("/document", &json!({"url": file_url}), None)
        .await;
    assert_eq!(
        document.status,
        StatusCode::PAYMENT_REQUIRED,
        "{}",
        document.body
    );
    let ocr = app
        .post_to(
            "/ocr",
            &json!({"url": file_url, "mime": "application/pdf"}),
            None,
        )
        .await;
    assert_eq!(ocr.status, StatusCode::PAYMENT_REQUIRED, "{}", ocr.body);
    println!("proxy child done");
}

// ---------------------------------------------------------------------------------------------
// Hostile bodies.

/// 16 MiB of a PDF's first line and zeros (over both routes' limits), compressed.
fn inflating_body(zlib: bool) -> Vec<u8> {
    let mut plain = b"%PDF-1.4\n".to_vec();
    plain.resize(16 * 1024 * 1024, 0);
    if zlib {
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
        std::io::Write::write_all(&mut encoder, &plain).expect("compress");
        encoder.finish().expect("compress")
    } else {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        std::io::Write::write_all(&mut encoder, &plain).expect("compress");
        encoder.finish().expect("compress")
    }
}

async fn bomb(encoding: &str, zlib: bool) {
    let compressed = inflating_body(zlib);
    // Small on the wire: only its decoded size is over the limit.
    assert!(compressed.len() < 100_000, "{}", compressed.len());
    let files = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/bomb.pdf"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-encoding", encoding)
                .set_body_bytes(compressed),
        )
        .expect(4)
        .mount(&files)
        .await;
    let app = App::with(|c| c.fetch.allow_loopback = true).await;
    assert_every_route(&app, &format!("{}/bomb.pdf", files.uri()), Expect::TooLarge).await;
    files.verify().await;
}

#[tokio::test]
async fn a_gzip_bomb_is_capped_at_the_size_limit() {
    bomb("gzip", false).await;
}

#[tokio::test]
async fn a_deflate_bomb_is_capped_at_the_size_limit() {
    bomb("deflate", true).await;
}

/// A server on 127.0.0.1 answering every connection with `head` and then `body` (called with
/// the socket), for bodies wiremock cannot send: dripped or without a length.
async fn raw_server<F, Fut>(head: &'static str, body: F) -> std::net::SocketAddr
where
    F: Fn(tokio::net::TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let body = Arc::new(body);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                // The request head first (a GET has no body); every request gets the same
                // answer.
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(read) => request.extend_from_slice(&buffer[..read]),
                    }
                }
                if socket.write_all(head.as_bytes()).await.is_ok() {
                    body(socket).await;
                }
            });
        }
    });
    address
}

#[tokio::test]
async fn a_slow_drip_body_past_the_time_budget_is_unreachable() {
    let drips = Arc::new(AtomicUsize::new(0));
    let counted = drips.clone();
    let address = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/pdf\r\ncontent-length: 100000\r\n\r\n%PDF-1.4\n",
        move |mut socket| {
            let counted = counted.clone();
            async move {
                // One byte every 100 ms: 100000 bytes would take almost three hours.
                for _ in 0..100_000 {
                    if socket.write_all(b" ").await.is_err() {
                        return;
                    }
                    counted.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        },
    )
    .await;
    let app = App::with(|c| {
        c.fetch.allow_loopback = true;
        c.fetch.timeout_seconds = 1;
    })
    .await;
    let started = Instant::now();
    assert_every_route(
        &app,
        &format!("http://{address}/drip.pdf"),
        Expect::Unreachable,
    )
    .await;
    // Four fetches of about a second each: the budget, not the body, ended them.
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(4) && elapsed < Duration::from_secs(30),
        "{elapsed:?}"
    );
    assert!(
        drips.load(Ordering::SeqCst) >= 4 * 5,
        "the body dripped for each fetch"
    );
}

#[tokio::test]
async fn a_body_over_the_size_limit_with_content_length_is_refused() {
    let files = MockServer::start().await;
    let mut big = b"%PDF-1.4\n".to_vec();
    big.resize(15_728_641, b' ');
    Mock::given(method("GET"))
        .and(path("/big.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(big))
        .expect(4)
        .mount(&files)
        .await;
    let app = App::with(|c| c.fetch.allow_loopback = true).await;
    assert_every_route(&app, &format!("{}/big.pdf", files.uri()), Expect::TooLarge).await;
    files.verify().await;
}

#[tokio::test]
async fn a_body_over_the_size_limit_without_content_length_is_refused() {
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    let address = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/pdf\r\ntransfer-encoding: chunked\r\n\r\n",
        move |mut socket| {
            let counted = counted.clone();
            async move {
                // Endless 64 KiB chunks, until the fetcher hangs up.
                let chunk = vec![b'%'; 65_536];
                let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
                framed.extend_from_slice(&chunk);
                framed.extend_from_slice(b"\r\n");
                for _ in 0..1024 {
                    if socket.write_all(&framed).await.is_err() {
                        return;
                    }
                    counted.fetch_add(chunk.len(), Ordering::SeqCst);
                }
                let _ = socket.write_all(b"0\r\n\r\n").await;
            }
        },
    )
    .await;
    let app = App::with(|c| c.fetch.allow_loopback = true).await;
    assert_every_route(
        &app,
        &format!("http://{address}/endless.pdf"),
        Expect::TooLarge,
    )
    .await;
    // The fetcher stopped reading soon after the limit: far fewer than the 64 MiB on offer
    // were sent over four fetches (socket buffers hold a few MiB each).
    let sent = sent.load(Ordering::SeqCst);
    assert!(sent < 4 * 24 * 1024 * 1024, "{sent} bytes sent");
}
