//! The RPC layer against a JSON-RPC stub: timeouts, HTTP errors, retry on the next URL,
//! reverts (not retried), and the pinned reader's block discipline and round-trip count.

#![allow(missing_docs)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy::eips::BlockId;
use alloy::primitives::{Address, Bytes, U256};
use alloy::sol_types::{Revert, SolCall, SolError, SolValue};
use chain_read::bindings::{IErc20Metadata, IMulticall3};
use chain_read::{
    Batch, CallFailure, ChainClient, ChainReadError, ClientOptions, PinnedReader, ReaderOptions,
};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn options(timeout_ms: u64) -> ClientOptions {
    ClientOptions {
        timeout: Duration::from_millis(timeout_ms),
        ..ClientOptions::default()
    }
}

fn result(id: &Value, result: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Answers every request with `result`, echoing the id.
struct Answer(Value);

impl Respond for Answer {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        result(&body["id"], self.0.clone())
    }
}

/// Answers every request with a JSON-RPC error.
struct RpcError(i64, &'static str, Option<String>);

impl Respond for RpcError {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        let mut error = json!({"code": self.0, "message": self.1});
        if let Some(data) = &self.2 {
            error["data"] = json!(data);
        }
        ResponseTemplate::new(200)
            .set_body_json(json!({"jsonrpc": "2.0", "id": body["id"], "error": error}))
    }
}

async fn server_answering(respond: impl Respond + 'static, expected: u64) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(respond)
        .expect(expected)
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_slow_endpoint_is_a_timeout() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"jsonrpc": "2.0", "id": 0, "result": "0x1"}))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    let client = ChainClient::new([server.uri()], options(200)).expect("client");
    let error = client.block_number().await.expect_err("times out");
    assert!(
        matches!(error, ChainReadError::Timeout { after, .. } if after == Duration::from_millis(200)),
        "{error:?}"
    );
    assert!(error.is_retryable());
}

#[tokio::test]
async fn http_500_is_unreachable_and_the_url_path_stays_private() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream down"))
        .expect(1)
        .mount(&server)
        .await;
    let url = format!("{}/v2/secret-api-key", server.uri());
    let client = ChainClient::new([&url], options(2000)).expect("client");
    let error = client.block_number().await.expect_err("500");
    let ChainReadError::Unreachable { endpoint, reason } = &error else {
        panic!("expected Unreachable, got {error:?}");
    };
    assert!(reason.contains("500"), "{reason}");
    assert!(server.uri().ends_with(endpoint.as_str()), "{endpoint}");
    assert!(!error.to_string().contains("secret-api-key"), "{error}");
}

#[tokio::test]
async fn a_refused_connection_is_unreachable() {
    let port = test_devnet::free_port().expect("a free port");
    let client =
        ChainClient::new([format!("http://127.0.0.1:{port}/key")], options(2000)).expect("client");
    let error = client.chain_id().await.expect_err("refused");
    assert!(
        matches!(error, ChainReadError::Unreachable { .. }),
        "{error:?}"
    );
    assert!(!error.to_string().contains("/key"), "{error}");
}

#[tokio::test]
async fn a_failed_endpoint_moves_on_to_the_next_url() {
    let down = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .expect(1)
        .mount(&down)
        .await;
    let slow = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
        .expect(1)
        .mount(&slow)
        .await;
    let limited = server_answering(RpcError(-32005, "rate limit exceeded", None), 1).await;
    let up = server_answering(Answer(json!("0x2e3")), 1).await;
    let client = ChainClient::new(
        [down.uri(), slow.uri(), limited.uri(), up.uri()],
        options(300),
    )
    .expect("client");
    assert_eq!(client.endpoints().len(), 4);
    assert_eq!(
        client.block_number().await.expect("the fourth answers"),
        739
    );
}

#[tokio::test]
async fn a_revert_is_final_and_keeps_its_reason() {
    let data = alloy::hex::encode_prefixed(Revert::from("no liquidity").abi_encode());
    let reverting = server_answering(RpcError(3, "execution reverted", Some(data)), 1).await;
    let never = server_answering(Answer(json!("0x")), 0).await;
    let client = ChainClient::new([reverting.uri(), never.uri()], options(2000)).expect("client");
    let error = client
        .call(Address::ZERO, Bytes::new(), BlockId::latest())
        .await
        .expect_err("reverts");
    match &error {
        ChainReadError::Reverted { reason, data } => {
            assert_eq!(reason.as_deref(), Some("no liquidity"));
            assert!(!data.is_empty());
        }
        other => panic!("expected Reverted, got {other:?}"),
    }
    assert!(!error.is_retryable());
}

#[tokio::test]
async fn garbage_is_unreachable_and_no_url_is_a_config_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>gateway</html>"))
        .mount(&server)
        .await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    assert!(matches!(
        client.gas_price().await,
        Err(ChainReadError::Unreachable { .. })
    ));
    assert!(matches!(
        ChainClient::new(Vec::<String>::new(), ClientOptions::default()),
        Err(ChainReadError::InvalidConfig(_))
    ));
    assert!(matches!(
        ChainClient::new(["not a url"], ClientOptions::default()),
        Err(ChainReadError::InvalidConfig(_))
    ));
}

/// A Multicall3 stand-in: answers `aggregate3` call by call (block facts, `decimals()`, a
/// revert for anything else) and records the block tag of every `eth_call`. JSON-RPC batches
/// are answered element by element; `eth_gasPrice` answers `gas_price`, or an error without
/// one.
#[derive(Clone)]
struct FakeMulticall {
    chain_id: u64,
    blocks: Arc<Mutex<Vec<String>>>,
    gas_price: Option<&'static str>,
    /// Number of JSON-RPC elements of every HTTP request.
    requests: Arc<Mutex<Vec<usize>>>,
}

impl Respond for FakeMulticall {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().expect("JSON-RPC body");
        match body {
            Value::Array(elements) => {
                self.requests.lock().expect("lock").push(elements.len());
                let answers: Vec<Value> = elements.iter().map(|e| self.answer(e)).collect();
                ResponseTemplate::new(200).set_body_json(Value::Array(answers))
            }
            single => {
                self.requests.lock().expect("lock").push(1);
                ResponseTemplate::new(200).set_body_json(self.answer(&single))
            }
        }
    }
}

impl FakeMulticall {
    fn answer(&self, body: &Value) -> Value {
        if body["method"] == "eth_gasPrice" {
            return match self.gas_price {
                Some(price) => json!({"jsonrpc": "2.0", "id": body["id"], "result": price}),
                None => json!({"jsonrpc": "2.0", "id": body["id"],
                    "error": {"code": -32601, "message": "method not found"}}),
            };
        }
        assert_eq!(body["method"], "eth_call");
        let tx = &body["params"][0];
        let input = tx["input"].as_str().or(tx["data"].as_str()).expect("input");
        let input: Bytes = input.parse().expect("hex");
        self.blocks
            .lock()
            .expect("lock")
            .push(body["params"][1].as_str().unwrap_or("?").to_owned());
        let calls = IMulticall3::aggregate3Call::abi_decode(&input)
            .expect("aggregate3")
            .calls;
        let answers: Vec<IMulticall3::Result> = calls
            .iter()
            .map(|call| {
                let selector: [u8; 4] = call.callData[..4].try_into().expect("selector");
                let (success, data) = match selector {
                    IMulticall3::getBlockNumberCall::SELECTOR => {
                        (true, U256::from(739).abi_encode())
                    }
                    IMulticall3::getCurrentBlockTimestampCall::SELECTOR => {
                        (true, U256::from(1_767_409_742u64).abi_encode())
                    }
                    IMulticall3::getChainIdCall::SELECTOR => {
                        (true, U256::from(self.chain_id).abi_encode())
                    }
                    IErc20Metadata::decimalsCall::SELECTOR => (true, U256::from(6).abi_encode()),
                    _ => (false, Revert::from("nope").abi_encode()),
                };
                IMulticall3::Result {
                    success,
                    returnData: data.into(),
                }
            })
            .collect();
        let encoded = IMulticall3::aggregate3Call::abi_encode_returns(&answers);
        json!({"jsonrpc": "2.0", "id": body["id"], "result": alloy::hex::encode_prefixed(encoded)})
    }
}

async fn fake_multicall(chain_id: u64) -> (MockServer, Arc<Mutex<Vec<String>>>) {
    let (server, fake) = fake_multicall_with_gas(chain_id, Some("0x3b9aca08")).await;
    (server, fake.blocks)
}

async fn fake_multicall_with_gas(
    chain_id: u64,
    gas_price: Option<&'static str>,
) -> (MockServer, FakeMulticall) {
    let fake = FakeMulticall {
        chain_id,
        blocks: Arc::new(Mutex::new(Vec::new())),
        gas_price,
        requests: Arc::new(Mutex::new(Vec::new())),
    };
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(fake.clone())
        .mount(&server)
        .await;
    (server, fake)
}

#[tokio::test]
async fn the_gas_price_rides_in_the_pinning_request() {
    let (server, fake) = fake_multicall_with_gas(8453, Some("0x3b9aca08")).await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    let reader = PinnedReader::new(client, Address::repeat_byte(0xca));
    let token = Address::repeat_byte(0x70);
    let mut first = Batch::new();
    let decimals = first.add(token, &IErc20Metadata::decimalsCall {});
    let (results, gas_price) = reader
        .execute_with_gas_price(first)
        .await
        .expect("first batch");
    assert_eq!(results.get(decimals), Ok(6));
    assert_eq!(gas_price, Ok(1_000_000_008));
    assert_eq!(reader.round_trips(), 1, "one HTTP request");
    assert_eq!(
        *fake.requests.lock().expect("lock"),
        [2],
        "a JSON-RPC batch of two"
    );

    // Once pinned, the gas price is a request of its own.
    let (_, gas_price) = reader
        .execute_with_gas_price(Batch::new())
        .await
        .expect("pinned");
    assert_eq!(gas_price, Ok(1_000_000_008));
    assert_eq!(reader.round_trips(), 2);
}

#[tokio::test]
async fn a_refused_gas_price_does_not_fail_the_batch() {
    let (server, _) = fake_multicall_with_gas(8453, None).await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    let reader = PinnedReader::new(client, Address::repeat_byte(0xca));
    let (results, gas_price) = reader
        .execute_with_gas_price(Batch::new())
        .await
        .expect("the call decides");
    assert_eq!(results.block_number(), 739);
    let error = gas_price.expect_err("refused");
    assert!(error.to_string().contains("method not found"), "{error}");
    assert_eq!(reader.round_trips(), 1);
}

#[tokio::test]
async fn the_first_batch_pins_the_block_and_later_batches_read_at_it() {
    let (server, blocks) = fake_multicall(8453).await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    let reader = PinnedReader::new(client, Address::repeat_byte(0xca));
    let token = Address::repeat_byte(0x70);

    let mut first = Batch::new();
    let decimals = first.add(token, &IErc20Metadata::decimalsCall {});
    let symbol = first.add(token, &IErc20Metadata::symbolCall {});
    let results = reader.execute(first).await.expect("first batch");
    assert_eq!(results.block_number(), 739);
    assert_eq!(results.len(), 2, "the pin calls are not handed back");
    assert_eq!(results.get(decimals), Ok(6));
    assert_eq!(
        results.get(symbol),
        Err(CallFailure::Reverted {
            reason: Some("nope".into()),
            data: Revert::from("nope").abi_encode().into()
        })
    );
    let pin = reader.block().expect("pinned");
    assert_eq!(
        (pin.number, pin.timestamp, pin.chain_id),
        (739, 1_767_409_742, 8453)
    );

    let (block, answer) = reader
        .call(token, &IErc20Metadata::decimalsCall {})
        .await
        .expect("second batch");
    assert_eq!((block, answer), (739, Ok(6)));
    // An empty batch after pinning sends nothing.
    assert!(
        reader
            .execute(Batch::new())
            .await
            .expect("empty")
            .is_empty()
    );

    assert_eq!(*blocks.lock().expect("lock"), ["latest", "0x2e3"]);
    assert_eq!(reader.round_trips(), 2);
}

#[tokio::test]
async fn large_batches_are_chunked_and_every_chunk_counts() {
    let (server, blocks) = fake_multicall(8453).await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    let reader =
        PinnedReader::new(client, Address::repeat_byte(0xca)).with_options(ReaderOptions {
            max_calls_per_batch: 4,
        });
    let mut batch = Batch::new();
    let slots: Vec<_> = (0..10u8)
        .map(|i| batch.add(Address::repeat_byte(i), &IErc20Metadata::decimalsCall {}))
        .collect();
    let results = reader.execute(batch).await.expect("chunked");
    assert_eq!(results.len(), 10);
    for slot in slots {
        assert_eq!(results.get(slot), Ok(6));
    }
    // The 3 pin calls and 1 call at latest, then 9 calls in three pinned chunks.
    let blocks = blocks.lock().expect("lock").clone();
    assert_eq!(blocks, ["latest", "0x2e3", "0x2e3", "0x2e3"]);
    assert_eq!(reader.round_trips(), 4);
}

#[tokio::test]
async fn an_endpoint_of_another_chain_is_refused() {
    let (server, _) = fake_multicall(1).await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    let registry = chain_read::Registry::builtin();
    let reader = PinnedReader::for_chain(client, registry.chain(chain_read::Chain::Base));
    let error = reader.execute(Batch::new()).await.expect_err("wrong chain");
    assert_eq!(
        error,
        ChainReadError::WrongChain {
            expected: 8453,
            actual: 1
        }
    );
    assert!(reader.block().is_none());
}

#[tokio::test]
async fn no_multicall_at_the_address_is_a_decode_error() {
    let server = server_answering(Answer(json!("0x")), 1).await;
    let client = ChainClient::new([server.uri()], options(2000)).expect("client");
    let reader = PinnedReader::new(client, Address::repeat_byte(0xca));
    let error = reader
        .execute(Batch::new())
        .await
        .expect_err("empty answer");
    assert!(
        matches!(error, ChainReadError::Decode(ref m) if m.contains("no Multicall3")),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// Faults of issue 22: flapping nodes, oversized answers, a node of another chain behind a good
// one.

/// Answers `result` on every other request and 503 on the rest, starting with a failure when
/// `fail_first`.
struct Flapping {
    calls: std::sync::atomic::AtomicUsize,
    fail_first: bool,
    result: Value,
}

impl Respond for Flapping {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let call = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if call.is_multiple_of(2) == self.fail_first {
            return ResponseTemplate::new(503).set_body_string("flapping");
        }
        let body: Value = request.body_json().unwrap_or_default();
        result(&body["id"], self.result.clone())
    }
}

#[tokio::test]
async fn nodes_flapping_between_two_urls_keep_answering() {
    let first = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Flapping {
            calls: Default::default(),
            fail_first: true,
            result: json!("0x2e3"),
        })
        .mount(&first)
        .await;
    let second = server_answering(Answer(json!("0x2e3")), 10).await;
    let client = ChainClient::new([first.uri(), second.uri()], options(2000)).expect("client");
    // The first URL fails every other call; the second answers whenever it is asked.
    for call in 0..20 {
        assert_eq!(
            client.block_number().await.expect("answered"),
            739,
            "{call}"
        );
    }
    let first_seen = first.received_requests().await.unwrap_or_default().len();
    let second_seen = second.received_requests().await.unwrap_or_default().len();
    assert_eq!(first_seen, 20);
    assert_eq!(
        second_seen, 10,
        "the second URL took over every failed call"
    );
}

#[tokio::test]
async fn an_oversized_answer_is_refused_and_the_next_url_asked() {
    let huge = MockServer::start().await;
    // A valid JSON-RPC answer of 2 MiB: its size alone refuses it.
    Mock::given(method("POST"))
        .respond_with(Answer(json!(format!("0x{}", "00".repeat(1024 * 1024)))))
        .expect(2)
        .mount(&huge)
        .await;
    let up = server_answering(Answer(json!("0x2e3")), 1).await;
    let small = ClientOptions {
        max_response_bytes: 1024 * 1024,
        ..options(2000)
    };
    let alone = ChainClient::new([huge.uri()], small).expect("client");
    let error = alone.block_number().await.expect_err("too large");
    let ChainReadError::Unreachable { reason, .. } = &error else {
        panic!("{error:?}");
    };
    assert!(reason.contains("larger than 1048576 bytes"), "{reason}");
    assert!(error.is_retryable());
    // Behind it, a node answering in size: the read moves on to it.
    let client = ChainClient::new([huge.uri(), up.uri()], small).expect("client");
    assert_eq!(client.block_number().await.expect("the next URL"), 739);
}

#[tokio::test]
async fn an_oversized_answer_without_content_length_is_refused() {
    // A raw node streaming an endless chunked body.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
                // The whole request first (head and its Content-Length of body).
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                loop {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(read) => request.extend_from_slice(&buffer[..read]),
                    }
                    let text = String::from_utf8_lossy(&request).to_string();
                    let Some(end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let length: usize = text[..end]
                        .lines()
                        .find_map(|line| {
                            let (name, value) = line.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse().ok())?
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = format!("10000\r\n{}\r\n", "0".repeat(0x10000));
                for _ in 0..1024 {
                    if socket.write_all(chunk.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let client = ChainClient::new(
        [format!("http://{address}")],
        ClientOptions {
            max_response_bytes: 1024 * 1024,
            ..options(5000)
        },
    )
    .expect("client");
    let error = client.block_number().await.expect_err("too large");
    assert!(
        error.to_string().contains("larger than 1048576 bytes"),
        "{error}"
    );
}

#[tokio::test]
async fn a_node_of_another_chain_first_in_the_list_is_refused() {
    let (wrong, _) = fake_multicall(1).await;
    let client = ChainClient::new([wrong.uri()], options(2000)).expect("client");
    let registry = chain_read::Registry::builtin();
    let reader = PinnedReader::for_chain(client, registry.chain(chain_read::Chain::Base));
    // Refused before any batch is read from it, and again on every try: never cached as good.
    for _ in 0..2 {
        let error = reader.execute(Batch::new()).await.expect_err("wrong chain");
        assert!(
            matches!(
                error,
                ChainReadError::WrongChain {
                    expected: 8453,
                    actual: 1
                }
            ),
            "{error:?}"
        );
    }
    assert!(reader.block().is_none());
}
