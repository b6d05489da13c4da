//! The V4 `Initialize` index refreshed through a reader's requests, against a wiremock node:
//! the range rides in the same JSON-RPC batch as the lens's `eth_call` (one HTTP request per
//! read), starts at the configured block, never passes a block the node has answered at, is
//! capped, is halved after the node refuses it (the call still answered; the shorter range
//! is kept) and read forward incrementally; the pools named by the events become the pair's shapes.

#![allow(missing_docs)]

use std::sync::{Arc, Mutex};

use alloy::primitives::aliases::{I24, U24, U160};
use alloy::primitives::{Address, B256, Bytes, address};
use alloy::sol_types::SolEvent;
use chain_read::dex::uniswap_v4::{DYNAMIC_FEE_FLAG, V4Shape};
use chain_read::dex::v4_index::{V4IndexConfig, V4PoolManagerInit};
use chain_read::{Chain, ChainClient, ClientOptions, PinnedReader, Registry};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const WETH: Address = address!("4200000000000000000000000000000000000006");
const USDC: Address = address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
const HOOK: Address = address!("4444000000000000000000000000000000001080");

fn parse(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16).unwrap_or(0)
}

/// The `Initialize` events on the chain: block, currencies, shape.
type Events = Arc<Mutex<Vec<(u64, Address, Address, V4Shape)>>>;

/// Every HTTP request's methods, and its `eth_getLogs` range.
type Seen = Arc<Mutex<Vec<(Vec<String>, Option<(u64, u64)>)>>>;

/// A node that answers the lens's `eth_call` and `eth_gasPrice`, refuses log ranges longer
/// than `limit` blocks and answers the others with the `Initialize` events in them.
struct Node {
    limit: u64,
    /// The chain's events; a test changes them to reorganise it.
    events: Events,
    seen: Seen,
    /// Fails a whole request that carries `eth_getLogs` (HTTP 502), as a node or proxy that
    /// gives up on a heavy batch.
    fail_with_logs: bool,
}

impl Node {
    fn logs(&self, filter: &Value) -> Value {
        let (from, to) = (parse(&filter["fromBlock"]), parse(&filter["toBlock"]));
        if to - from + 1 > self.limit {
            return json!({"error": {"code": -32005, "message": "block range too large"}});
        }
        let manager = filter["address"].clone();
        let events = self.events.lock().expect("lock").clone();
        let logs: Vec<Value> = events
            .iter()
            .filter(|(block, ..)| (from..=to).contains(block))
            .map(|(block, currency0, currency1, shape)| {
                let event = V4PoolManagerInit::Initialize {
                    id: B256::repeat_byte(*block as u8),
                    currency0: *currency0,
                    currency1: *currency1,
                    fee: U24::saturating_from(shape.fee),
                    tickSpacing: I24::try_from(shape.tick_spacing).expect("int24"),
                    hooks: shape.hooks,
                    sqrtPriceX96: U160::from(1u8) << 96,
                    tick: I24::ZERO,
                };
                let data = event.encode_log_data();
                json!({
                    "address": manager,
                    "topics": data.topics().iter().map(ToString::to_string).collect::<Vec<_>>(),
                    "data": data.data.to_string(),
                    "blockNumber": format!("{block:#x}"),
                    "blockHash": B256::repeat_byte(0x33).to_string(),
                    "transactionHash": B256::repeat_byte(0x44).to_string(),
                    "transactionIndex": "0x0",
                    "logIndex": "0x0",
                    "removed": false
                })
            })
            .collect();
        json!({ "result": logs })
    }
}

impl Respond for Node {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        let calls = body.as_array().cloned().unwrap_or_else(|| vec![body]);
        let mut methods = Vec::new();
        let mut range = None;
        let answers: Vec<Value> = calls
            .iter()
            .map(|call| {
                let name = call["method"].as_str().unwrap_or_default().to_owned();
                let mut answer = match name.as_str() {
                    "eth_call" => json!({"result": "0x01"}),
                    "eth_gasPrice" => json!({"result": "0x3b9aca00"}),
                    "eth_getLogs" => {
                        let filter = &call["params"][0];
                        range = Some((parse(&filter["fromBlock"]), parse(&filter["toBlock"])));
                        assert_eq!(
                            filter["topics"][0],
                            json!(V4PoolManagerInit::Initialize::SIGNATURE_HASH.to_string())
                        );
                        self.logs(filter)
                    }
                    other => panic!("unexpected {other}"),
                };
                answer["jsonrpc"] = json!("2.0");
                answer["id"] = call["id"].clone();
                methods.push(name);
                answer
            })
            .collect();
        self.seen.lock().expect("lock").push((methods, range));
        if self.fail_with_logs && range.is_some() {
            return ResponseTemplate::new(502);
        }
        ResponseTemplate::new(200).set_body_json(Value::Array(answers))
    }
}

/// A mock node answering as [`Node`] does, and what it saw.
async fn node(limit: u64, events: Events, fail_with_logs: bool) -> (MockServer, Seen) {
    let seen = Seen::default();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Node {
            limit,
            events,
            seen: seen.clone(),
            fail_with_logs,
        })
        .mount(&server)
        .await;
    (server, seen)
}

#[tokio::test]
async fn the_index_reads_forward_in_capped_ranges_beside_the_lens_call() {
    let odd = V4Shape::plain(1234, 7);
    let hooked = V4Shape {
        fee: DYNAMIC_FEE_FLAG,
        tick_spacing: 30,
        hooks: HOOK,
    };
    let events = Arc::new(Mutex::new(vec![
        (1_100, WETH, USDC, odd),
        (1_500, WETH, USDC, odd),
        (2_150, Address::ZERO, USDC, hooked),
        (2_300, Address::ZERO, USDC, V4Shape::plain(4321, 15)),
    ]));
    let (server, seen) = node(400, events, false).await;
    let registry = Registry::builtin().with_v4_index(
        Chain::Base,
        Some(V4IndexConfig {
            max_blocks_per_refresh: 500,
            reorg_overlap_blocks: 0,
            ..V4IndexConfig::from_block(1_000)
        }),
    );
    let chain = registry.chain(Chain::Base);
    let index = chain.v4_index().expect("an index");
    let client = ChainClient::new([server.uri()], ClientOptions::default()).expect("client");
    // One read: a lens call (its answer does not matter here), then the block the lens
    // reported, as dex-route's lens does.
    let read = |head: u64| {
        let reader = PinnedReader::for_chain(client.clone(), chain);
        async move {
            let (answer, gas_price) = lens_call(&reader).await.expect("the call is answered");
            assert_eq!(answer, Bytes::from_static(&[1]));
            assert_eq!(gas_price, Ok(1_000_000_000));
            assert_eq!(
                reader.round_trips(),
                1,
                "the range rides in the same request"
            );
            reader.observe_head(head);
        }
    };
    for head in [2_200, 2_200, 2_200, 2_200, 2_200, 2_200, 2_400, 2_400] {
        read(head).await;
    }
    let seen = seen.lock().expect("lock").clone();
    let ranges: Vec<Option<(u64, u64)>> = seen.iter().map(|(_, range)| *range).collect();
    assert_eq!(
        ranges,
        [
            // The head is not known before the first answer.
            None,
            // 500 blocks: refused (the node allows 400), then half, kept.
            Some((1_000, 1_499)),
            Some((1_000, 1_249)),
            Some((1_250, 1_499)),
            Some((1_500, 1_749)),
            Some((1_750, 1_999)),
            // The last ranges stop at the head the node answered at.
            Some((2_000, 2_200)),
            Some((2_201, 2_400)),
        ]
    );
    assert!(
        seen.iter()
            .all(|(methods, _)| methods[..2] == ["eth_call", "eth_gasPrice"]),
        "every request carries the lens call: {seen:?}"
    );
    let status = index.status();
    assert_eq!((status.read_to, status.pools), (Some(2_400), 3));
    assert_eq!(status.last_error, None);
    assert_eq!(index.shapes(WETH, USDC).shapes, [odd], "one pool per shape");
    assert_eq!(
        index.shapes(Address::ZERO, USDC).shapes,
        [hooked, V4Shape::plain(4321, 15)]
    );
}

#[tokio::test]
async fn a_chain_whose_pool_manager_is_overridden_has_no_index_unless_configured() {
    let overrides = chain_read::ChainOverride {
        tokens: Default::default(),
        contracts: [(
            "uniswap_v4".to_owned(),
            [("pool_manager".to_owned(), Address::repeat_byte(7))].into(),
        )]
        .into(),
    };
    let registry = Registry::builtin();
    assert_eq!(
        registry
            .chain(Chain::Base)
            .v4_index()
            .map(|index| index.config().start_block),
        Some(25_350_988),
        "Uniswap's subgraph's PoolManager start block"
    );
    let overridden = registry
        .with_overrides(Chain::Base, overrides)
        .expect("applies");
    assert!(overridden.chain(Chain::Base).v4_index().is_none());
    let configured = overridden.with_v4_index(Chain::Base, Some(V4IndexConfig::from_block(0)));
    assert!(configured.chain(Chain::Base).v4_index().is_some());
}

#[tokio::test]
async fn a_request_that_fails_with_the_range_is_sent_again_without_it() {
    let (server, seen) = node(u64::MAX, Arc::default(), true).await;
    let registry = Registry::builtin().with_v4_index(
        Chain::Base,
        Some(V4IndexConfig {
            max_blocks_per_refresh: 100,
            reorg_overlap_blocks: 0,
            ..V4IndexConfig::from_block(0)
        }),
    );
    let chain = registry.chain(Chain::Base);
    let index = chain.v4_index().expect("an index");
    index.observe_head(1_000);
    let client = ChainClient::new([server.uri()], ClientOptions::default()).expect("client");
    let reader = PinnedReader::for_chain(client, chain);
    let (answer, _) = lens_call(&reader)
        .await
        .expect("answered without the range");
    assert_eq!(answer, Bytes::from_static(&[1]));
    assert_eq!(reader.round_trips(), 2, "once with the range, once without");
    let ranges: Vec<Option<(u64, u64)>> =
        seen.lock().expect("lock").iter().map(|(_, r)| *r).collect();
    assert_eq!(ranges, [Some((0, 99)), None]);
    assert!(index.status().last_error.is_some());
    assert_eq!(
        index.due().map(|refresh| refresh.range()),
        Some((0, 49)),
        "read again, shorter"
    );
}

/// A node for the PoolId lookup: answers `eth_call` (or refuses it as a node without state
/// overrides does), `eth_gasPrice`, and `eth_getLogs` with `logs` (a result or an error).
struct LookupNode {
    logs: Value,
    refuse_first_call: bool,
    seen: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Respond for LookupNode {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        let batch = body.is_array();
        let calls = body.as_array().cloned().unwrap_or_else(|| vec![body]);
        let first = self.seen.lock().expect("lock").is_empty();
        let answers: Vec<Value> = calls
            .iter()
            .map(|call| {
                let mut answer = match call["method"].as_str().unwrap_or_default() {
                    "eth_call" if first && self.refuse_first_call => json!({"error": {
                        "code": -32602, "message": "too many arguments, want at most 2"}}),
                    "eth_call" => json!({"result": "0x01"}),
                    "eth_gasPrice" => json!({"result": "0x3b9aca00"}),
                    "eth_getLogs" => {
                        let filter = &call["params"][0];
                        assert_eq!(filter["toBlock"], "latest");
                        assert_eq!(filter["topics"][1], json!(B256::repeat_byte(0x5a)));
                        self.logs.clone()
                    }
                    other => panic!("unexpected {other}"),
                };
                answer["jsonrpc"] = json!("2.0");
                answer["id"] = call["id"].clone();
                answer
            })
            .collect();
        self.seen.lock().expect("lock").push(
            calls
                .iter()
                .map(|c| c["method"].as_str().unwrap_or_default().to_owned())
                .collect(),
        );
        let body = match batch {
            true => Value::Array(answers),
            false => answers.into_iter().next().unwrap_or_default(),
        };
        ResponseTemplate::new(200).set_body_json(body)
    }
}

async fn lookup_node(
    logs: Value,
    refuse_first_call: bool,
) -> (MockServer, Arc<Mutex<Vec<Vec<String>>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(LookupNode {
            logs,
            refuse_first_call,
            seen: seen.clone(),
        })
        .mount(&server)
        .await;
    (server, seen)
}

/// A lens call as dex-route sends one (an `eth_call` with code and a gas-price read).
fn lens_call(
    reader: &PinnedReader,
) -> impl std::future::Future<
    Output = Result<(Bytes, Result<u128, chain_read::GasPriceError>), chain_read::ChainReadError>,
> + '_ {
    reader.call_with_code(
        Address::repeat_byte(9),
        Bytes::from_static(&[0]),
        Bytes::new(),
        1,
    )
}

/// The log query of one PoolId rides in the lens call's JSON-RPC batch: no round trip of its
/// own; a node's refusal of the query is its answer, and the call is still answered.
#[tokio::test]
async fn a_pool_id_lookup_rides_with_the_lens_call_and_a_refusal_is_its_answer() {
    let id = B256::repeat_byte(0x5a);
    let filter = chain_read::dex::v4_index::initialize_of(Address::repeat_byte(0xaa), id, 7);
    for (logs, expected) in [
        (json!({"result": []}), Ok(0)),
        (
            json!({"error": {"code": -32005, "message": "query returned more than 10000 results"}}),
            Err("query returned more than 10000 results"),
        ),
    ] {
        let (server, seen) = lookup_node(logs, false).await;
        let client = ChainClient::new([server.uri()], ClientOptions::default()).expect("client");
        let reader = PinnedReader::new(client, Address::repeat_byte(1));
        let mut ridden = reader.logs_with_next_request(filter.clone());
        assert!(ridden.take().is_none(), "not sent yet");
        let (answer, _) = lens_call(&reader).await.expect("the call is answered");
        assert_eq!(answer, Bytes::from_static(&[1]));
        assert_eq!(reader.round_trips(), 1);
        assert_eq!(
            *seen.lock().expect("lock"),
            [["eth_call", "eth_gasPrice", "eth_getLogs"]]
        );
        match (ridden.take().expect("answered"), expected) {
            (Ok(logs), Ok(count)) => assert_eq!(logs.len(), count),
            (Err(error), Err(text)) => assert!(error.contains(text), "{error}"),
            (other, expected) => panic!("{other:?} where {expected:?}"),
        }
        // Answered once: the next request carries nothing.
        let _ = lens_call(&reader).await.expect("answered");
        assert_eq!(seen.lock().expect("lock")[1], ["eth_call", "eth_gasPrice"]);
    }
}

/// A lens call the node refuses (no state overrides) hands the query on: the ordinary path's
/// pinning batch carries it.
#[tokio::test]
async fn a_refused_lens_call_hands_the_pool_id_lookup_to_the_pinning_batch() {
    let (server, seen) = lookup_node(json!({"result": []}), true).await;
    let client = ChainClient::new([server.uri()], ClientOptions::default()).expect("client");
    let reader = PinnedReader::new(client, Address::repeat_byte(1));
    let filter = chain_read::dex::v4_index::initialize_of(
        Address::repeat_byte(0xaa),
        B256::repeat_byte(0x5a),
        0,
    );
    let mut ridden = reader.logs_with_next_request(filter);
    let refused = lens_call(&reader).await;
    assert!(
        matches!(
            refused,
            Err(chain_read::ChainReadError::Rpc { code: -32602, .. })
        ),
        "{refused:?}"
    );
    assert!(ridden.take().is_none(), "waiting for the next request");
    // The pinning batch: its answer is not a Multicall3's, which does not matter here.
    let _ = reader.execute(chain_read::Batch::new()).await;
    assert_eq!(
        seen.lock().expect("lock")[1],
        ["eth_call", "eth_gasPrice", "eth_getLogs"]
    );
    assert_eq!(ridden.take(), Some(Ok(Vec::new())));
}

/// A reorganised chain: each range reads the last blocks behind the cursor again, so an
/// `Initialize` a reorg removed is dropped from the index, and one it moved is kept.
#[tokio::test]
async fn a_pool_whose_initialize_a_reorg_removed_is_dropped_by_the_next_range() {
    let odd = V4Shape::plain(1234, 7);
    let other = V4Shape::plain(4321, 15);
    let events = Arc::new(Mutex::new(vec![
        (1_550, WETH, USDC, odd),
        (1_580, WETH, USDC, other),
    ]));
    let (server, seen) = node(u64::MAX, events.clone(), false).await;
    let registry = Registry::builtin().with_v4_index(
        Chain::Base,
        Some(V4IndexConfig {
            reorg_overlap_blocks: 100,
            ..V4IndexConfig::from_block(1_000)
        }),
    );
    let chain = registry.chain(Chain::Base);
    let index = chain.v4_index().expect("an index");
    let client = ChainClient::new([server.uri()], ClientOptions::default()).expect("client");
    let read = |head: u64| {
        let reader = PinnedReader::for_chain(client.clone(), chain);
        async move {
            let _ = lens_call(&reader).await.expect("answered");
            reader.observe_head(head);
        }
    };
    read(1_600).await;
    read(1_600).await;
    assert_eq!(index.shapes(WETH, USDC).shapes, [odd, other]);
    // The chain reorganised: block 1,550's Initialize is gone, block 1,580's moved to 1,650.
    *events.lock().expect("lock") = vec![(1_650, WETH, USDC, other)];
    // The first read learns the new head; the range rides with the next.
    read(1_700).await;
    read(1_700).await;
    assert_eq!(
        index.shapes(WETH, USDC).shapes,
        [other],
        "the reorged pool is dropped"
    );
    assert_eq!(index.status().pools, 1);
    let ranges: Vec<Option<(u64, u64)>> =
        seen.lock().expect("lock").iter().map(|(_, r)| *r).collect();
    assert_eq!(
        ranges,
        [None, Some((1_000, 1_600)), None, Some((1_501, 1_700))],
        "the second range starts 100 blocks behind the cursor"
    );
}
