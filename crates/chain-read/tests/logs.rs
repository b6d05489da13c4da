//! `scan_logs` against a wiremock node that refuses ranges longer than 300 blocks the way geth
//! does (-32005, "query returned more than 10000 results"): the window is halved until every
//! range passes, each block's log comes back once, in chain order; another error fails the
//! scan; a window the node accepts whole is one request.

#![allow(missing_docs)]

use std::time::Duration;

use alloy::primitives::{Address, B256};
use chain_read::logs::{LogScanOptions, scan_logs};
use chain_read::{ChainClient, ChainReadError, ClientOptions};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

const POOL: Address = Address::repeat_byte(0x11);

fn hex(n: u64) -> String {
    format!("{n:#x}")
}

fn parse(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16).unwrap_or(0)
}

/// One log per block whose number is a multiple of 100; ranges over `limit` blocks refused.
struct Node {
    limit: u64,
    other_error: bool,
}

impl Respond for Node {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or_default();
        let id = body["id"].clone();
        let filter = &body["params"][0];
        let (from, to) = (parse(&filter["fromBlock"]), parse(&filter["toBlock"]));
        if self.other_error {
            return ResponseTemplate::new(200).set_body_json(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}),
            );
        }
        if to - from + 1 > self.limit {
            return ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32005, "message": "query returned more than 10000 results"}}));
        }
        // Newest first: the scan must put them in chain order.
        let logs: Vec<Value> = (from..=to)
            .rev()
            .filter(|b| b % 100 == 0)
            .map(|b| {
                json!({
                    "address": POOL.to_string(),
                    "topics": [B256::repeat_byte(0x22).to_string()],
                    "data": "0x",
                    "blockNumber": hex(b),
                    "blockHash": B256::repeat_byte(0x33).to_string(),
                    "transactionHash": B256::repeat_byte(0x44).to_string(),
                    "transactionIndex": "0x0",
                    "logIndex": "0x0",
                    "removed": false
                })
            })
            .collect();
        ResponseTemplate::new(200)
            .set_body_json(json!({"jsonrpc": "2.0", "id": id, "result": logs}))
    }
}

async fn node(limit: u64, other_error: bool) -> (MockServer, ChainClient) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Node { limit, other_error })
        .mount(&server)
        .await;
    let client = ChainClient::new(
        [server.uri()],
        ClientOptions {
            timeout: Duration::from_secs(2),
            ..ClientOptions::default()
        },
    )
    .expect("client");
    (server, client)
}

fn blocks(scan: &chain_read::logs::LogScan) -> Vec<u64> {
    scan.logs
        .iter()
        .map(|l| l.block_number.unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn refused_ranges_are_halved_until_the_node_accepts_them() {
    let (_server, client) = node(300, false).await;
    let topic = [B256::repeat_byte(0x22)];
    let scan = scan_logs(&client, &[POOL], &topic, 1, 2000, LogScanOptions::default())
        .await
        .expect("scan");
    assert_eq!(
        blocks(&scan),
        (1..=20).map(|i| i * 100).collect::<Vec<u64>>(),
        "each block once, in order"
    );
    // 2000 → 1000 → 500 → 250: 1 + 2 + 4 refused, 8 accepted.
    assert_eq!(scan.splits, 7);
    assert_eq!(scan.requests, 15);
    assert_eq!(scan.sequential_round_trips, 1 + 1 + 1 + 2);
}

#[tokio::test]
async fn a_window_the_node_accepts_is_one_request() {
    let (_server, client) = node(10_000, false).await;
    let scan = scan_logs(&client, &[POOL], &[], 1, 2000, LogScanOptions::default())
        .await
        .expect("scan");
    assert_eq!(scan.requests, 1);
    assert_eq!(scan.splits, 0);
    assert_eq!(scan.logs.len(), 20);
}

#[tokio::test]
async fn another_error_fails_the_scan() {
    let (_server, client) = node(10_000, true).await;
    let error = scan_logs(&client, &[POOL], &[], 1, 2000, LogScanOptions::default())
        .await
        .expect_err("method not found");
    assert!(
        matches!(error, ChainReadError::Rpc { code: -32601, .. }),
        "{error}"
    );
}
