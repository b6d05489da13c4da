//! Secrets never leave the process: the real executable, configured with a facilitator key, an
//! RPC URL and a Redis URL that carry credentials, at the most talkative log level, is asked
//! for its configuration, its metrics and its readiness (whose checks fail and say why), and
//! sent unpaid, badly paid and validly signed requests that fail on every dependency; its whole
//! output and every answer are then searched for each secret.

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use x402_core::{PaymentRequired, decode_header};

const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
/// A test key (keccak256 of a fixed string), never funded anywhere.
const KEY_HEX: &str = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
const SECRETS: [&str; 4] = [KEY_HEX, "rpcpassw0rd", "rpcapikey123", "redispassw0rd"];

fn request(port: u16, raw: &str) -> String {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let _ = stream.write_all(raw.as_bytes());
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

fn get(port: u16, path: &str) -> String {
    request(
        port,
        &format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
    )
}

fn post(port: u16, path: &str, body: &str, payment: Option<&str>) -> String {
    let payment = payment
        .map(|p| format!("PAYMENT-SIGNATURE: {p}\r\n"))
        .unwrap_or_default();
    request(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n{payment}Content-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

fn header<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    answer.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

fn assert_no_secret(what: &str, text: &str) {
    let folded = text.to_ascii_lowercase();
    for secret in SECRETS {
        assert!(!folded.contains(secret), "{what} shows {secret}:\n{text}");
    }
}

#[test]
fn no_secret_reaches_output_answers_or_metrics() {
    let port = test_devnet::free_port().expect("a free port");
    let closed = test_devnet::free_port().expect("another free port");
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("docs.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\n\
             [payment]\npay_to = \"{PAY_TO}\"\n\
             [facilitator]\nmode = \"local\"\n\
             rpc_url = \"http://user:rpcpassw0rd@127.0.0.1:{closed}/v3/rpcapikey123\"\n\
             private_key = \"0x{KEY_HEX}\"\n\
             [state]\nbackend = \"redis\"\nredis_url = \"redis://:redispassw0rd@127.0.0.1:{closed}/0\"\n\
             [log]\nlevel = \"trace\"\n\
             [ocr]\nengines = 1\n[workers]\nextraction = 1\n"
        ),
    )
    .expect("config");
    let exe = env!("CARGO_BIN_EXE_docs-server");

    let printed = Command::new(exe)
        .args(["--config", &config.display().to_string(), "--print-config"])
        .output()
        .expect("--print-config runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&printed.stdout),
        String::from_utf8_lossy(&printed.stderr)
    );
    assert!(printed.contains("private_key"), "{printed}");
    assert_no_secret("--print-config", &printed);

    let mut child = Command::new(exe)
        .args(["--config", &config.display().to_string()])
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !get(port, "/health").starts_with("HTTP/1.1 200") {
        assert!(Instant::now() < deadline, "the server did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut answers = Vec::new();
    let readiness = get(port, "/readiness");
    assert!(readiness.starts_with("HTTP/1.1 503"), "{readiness}");
    answers.push(readiness);
    let pdf = STANDARD.encode(include_bytes!("../../../testdata/pdf/ruled_table.pdf"));
    let body = format!("{{\"pdf_base64\": \"{pdf}\"}}");
    let unpaid = post(port, "/document", &body, None);
    answers.push(unpaid.clone());
    answers.push(post(port, "/document", &body, Some("not-a-payment")));
    // A validly signed payment for the terms: refused on the unreachable shared state (and
    // the facilitator's node), which must not quote either URL.
    if let Some(terms) = header(&unpaid, "payment-required")
        .and_then(|value| decode_header::<PaymentRequired>(value).ok())
    {
        let signature = server_kit::testing::payment_signature(&terms, "secrets");
        let paid = post(port, "/document", &body, Some(&signature));
        assert!(paid.starts_with("HTTP/1.1 5"), "{paid}");
        answers.push(paid);
    } else {
        panic!("no terms in the 402: {unpaid}");
    }
    answers.push(post(port, "/mcp", "{\"jsonrpc\": \"2.0\"", None));
    answers.push(get(port, "/metrics"));
    for answer in &answers {
        assert_no_secret("an answer", answer);
    }

    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid")),
        nix::sys::signal::Signal::SIGTERM,
    );
    let deadline = Instant::now() + Duration::from_secs(40);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut output = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut output);
    }
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut output);
    }
    let _ = child.wait();
    assert!(
        output.lines().count() > 10,
        "the trace log says something: {output}"
    );
    assert_no_secret("the log", &output);
}
