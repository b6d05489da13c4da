//! Server-side request forgery through `POST /document` and `POST /ocr` `url`, in process: the
//! tunnelled and translated IPv6 forms and the IPv4 special ranges are refused (400
//! `url_refused`) directly and behind a redirect, so is this machine's own address, and every
//! refusal and every failed fetch answers with one body each, so the answers cannot be used to
//! scan ports or map hosts.
//!
//! Only loopback is ever connected to: every other target is first checked with the public
//! [`AddressPolicy`] and the test stops before sending anything if it would be let through.
//! (The machine's own interface addresses, which the policy alone does not know, stay on this
//! machine by definition.)

mod support;

use std::net::IpAddr;

use axum::http::StatusCode;
use safe_fetch::{AddressPolicy, REFUSED_TEXT, UNREACHABLE_TEXT};
use serde_json::json;
use server_kit::testing::SilentServer;
use support::{App, Reply};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Targets in the ranges issue 13 found open or that the IANA special-purpose registries name,
/// one per form.
const REFUSED_TARGETS: &[&str] = &[
    // 6to4 of 127.0.0.1: was fetched (502) before.
    "http://[2002:7f00:1::]/",
    // 6to4 of the metadata address.
    "http://[2002:a9fe:a9fe::]/latest/meta-data/",
    // Local-use NAT64 (RFC 8215) of 10.0.0.1.
    "http://[64:ff9b:1::a00:1]/",
    // Well-known NAT64 of the metadata address.
    "http://[64:ff9b::a9fe:a9fe]/",
    // IPv4-translated, IPv4-mapped and IPv4-compatible loopback.
    "http://[::ffff:0:7f00:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::127.0.0.1]/",
    // Teredo, ORCHIDv2, documentation, discard-only.
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "http://[2001:20::1]/",
    "http://[2001:db8::1]/",
    "http://[100::1]/",
    // Unique-local AWS metadata, link-local, multicast.
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    // IPv4: this network, carrier-grade NAT (Alibaba metadata), IETF assignments (Oracle
    // metadata), benchmarking, reserved, broadcast, link-local metadata, private.
    "http://0.0.0.0/",
    "http://100.100.100.200/latest/meta-data/",
    "http://192.0.0.192/opc/v2/instance/",
    "http://198.18.0.1/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.7/a.pdf",
];

/// Posts a `url` request to `route` (`/ocr` with a picture type).
async fn post_url(app: &App, route: &str, url: &str) -> Reply {
    let body = if route == "/ocr" {
        json!({"url": url, "mime": "image/png"})
    } else {
        json!({"url": url})
    };
    app.post_to(route, &body, None).await
}

/// Stops the test before any request if `url` names an address the policy would let through
/// with loopback allowed: such a target would be connected to if the server regressed.
fn never_connectable(url: &str) {
    let host = url::Url::parse(url)
        .expect("url")
        .host_str()
        .expect("host")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let ip: IpAddr = host.parse().expect("a literal address");
    assert!(
        AddressPolicy {
            allow_loopback: true
        }
        .refusal(ip)
        .is_some(),
        "{url} would be connected to"
    );
}

fn assert_refused(reply: &Reply, what: &str) {
    assert_eq!(
        reply.status,
        StatusCode::BAD_REQUEST,
        "{what}: {}",
        reply.body
    );
    assert_eq!(reply.body["error"], "url_refused", "{what}");
    assert_eq!(reply.body["message"], REFUSED_TEXT, "{what}");
    assert_eq!(reply.body["charged"], false, "{what}");
}

/// This machine's non-loopback interface addresses (empty on a loopback-only machine).
fn own_addresses() -> Vec<IpAddr> {
    if_addrs::get_if_addrs()
        .expect("interfaces")
        .iter()
        .map(if_addrs::Interface::ip)
        .filter(|a| !a.is_loopback())
        .collect()
}

fn url_of(ip: IpAddr, port: u16, path: &str) -> String {
    match ip {
        IpAddr::V4(v4) => format!("http://{v4}:{port}{path}"),
        IpAddr::V6(v6) => format!("http://[{v6}]:{port}{path}"),
    }
}

#[tokio::test]
async fn tunnelled_translated_and_special_addresses_are_refused_with_one_body() {
    let strict = App::with(|_| {}).await;
    let mut first: Option<axum::body::Bytes> = None;
    for target in REFUSED_TARGETS {
        never_connectable(target);
        for route in ["/document", "/ocr"] {
            let reply = post_url(&strict, route, target).await;
            assert_refused(&reply, &format!("{route} {target}"));
            // Byte for byte the same answer, whichever range refused it.
            let first = first.get_or_insert_with(|| reply.bytes.clone());
            assert_eq!(*first, reply.bytes, "{route} {target}");
        }
    }
    // Rules other than the address share the same answer too.
    for target in ["file:///etc/passwd", "http://user:secret@example.com/a.pdf"] {
        let reply = post_url(&strict, "/document", target).await;
        assert_refused(&reply, target);
        assert_eq!(first.as_deref(), Some(reply.bytes.as_ref()), "{target}");
    }
}

#[tokio::test]
async fn redirects_into_the_new_ranges_are_refused() {
    let files = MockServer::start().await;
    for (i, target) in REFUSED_TARGETS.iter().enumerate() {
        never_connectable(target);
        Mock::given(method("GET"))
            .and(path(format!("/hop{i}")))
            .respond_with(ResponseTemplate::new(302).insert_header("location", *target))
            .expect(1)
            .mount(&files)
            .await;
    }
    // Loopback allowed (the demo's setting), so the first hop is reached and the redirect is
    // what gets refused.
    let local = App::with(|c| c.fetch.allow_loopback = true).await;
    for (i, target) in REFUSED_TARGETS.iter().enumerate() {
        let reply = post_url(&local, "/document", &format!("{}/hop{i}", files.uri())).await;
        assert_refused(&reply, target);
    }
    files.verify().await;
}

#[tokio::test]
async fn this_machines_own_addresses_are_refused_even_with_loopback_allowed() {
    let files = MockServer::start().await;
    let own = own_addresses();
    if own.is_empty() {
        eprintln!("skipped: this machine has only loopback interfaces");
        return;
    }
    let port = files.address().port();
    for (i, ip) in own.iter().enumerate() {
        Mock::given(method("GET"))
            .and(path(format!("/to-own{i}")))
            .respond_with(
                ResponseTemplate::new(302).insert_header("location", url_of(*ip, port, "/a.pdf")),
            )
            .expect(1)
            .mount(&files)
            .await;
    }
    let local = App::with(|c| c.fetch.allow_loopback = true).await;
    for (i, ip) in own.iter().enumerate() {
        // The mock file server listens on 127.0.0.1 only: a fetch let through would end in a
        // refused connection (502), not in the 400 asserted here.
        let direct = post_url(&local, "/document", &url_of(*ip, port, "/a.pdf")).await;
        assert_refused(&direct, &ip.to_string());
        let redirected = post_url(&local, "/document", &format!("{}/to-own{i}", files.uri())).await;
        assert_refused(&redirected, &format!("redirect to {ip}"));
    }
    files.verify().await;
}

#[tokio::test]
async fn a_refused_port_a_timeout_and_an_error_status_answer_byte_identical() {
    // A closed port: the project's one way to get one.
    let closed = test_devnet::free_port().expect("a free port");
    // A port that accepts and never answers: the fetch runs into its timeout.
    let silent = SilentServer::start().await;
    let silent_port = silent.port();
    let files = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/gone.pdf"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&files)
        .await;
    Mock::given(method("GET"))
        .and(path("/broken.pdf"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&files)
        .await;
    let local = App::with(|c| {
        c.fetch.allow_loopback = true;
        c.fetch.timeout_seconds = 1;
    })
    .await;
    let plain = files.address().port();
    let started = std::time::Instant::now();
    let mut bodies = Vec::new();
    for url in [
        format!("http://127.0.0.1:{closed}/a.pdf"),
        format!("http://127.0.0.1:{silent_port}/a.pdf"),
        format!("{}/gone.pdf", files.uri()),
        format!("{}/broken.pdf", files.uri()),
        // TLS spoken to a plain HTTP server.
        format!("https://127.0.0.1:{plain}/a.pdf"),
    ] {
        let reply = post_url(&local, "/document", &url).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_GATEWAY,
            "{url}: {}",
            reply.body
        );
        assert_eq!(reply.body["error"], "counterparty_unreachable", "{url}");
        assert_eq!(reply.body["message"], UNREACHABLE_TEXT, "{url}");
        bodies.push((url, reply.bytes));
    }
    drop(silent);
    for (url, bytes) in &bodies[1..] {
        assert_eq!(
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&bodies[0].1),
            "{url} against the refused port"
        );
    }
    // The silent port really was waited on (the timeout), and not for long.
    let elapsed = started.elapsed();
    assert!(
        elapsed >= std::time::Duration::from_secs(1)
            && elapsed < std::time::Duration::from_secs(30),
        "{elapsed:?}"
    );
}
