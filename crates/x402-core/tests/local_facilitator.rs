//! `LocalFacilitator` against a stub JSON-RPC node: every call is bounded by the RPC timeout,
//! a send that gets no answer is an unknown outcome (never "not charged"), a send the node
//! refuses is a known failure, and the send lock is not held while a receipt is awaited.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy::primitives::{U256, address, keccak256};
use alloy::signers::local::PrivateKeySigner;
use serde_json::{Value, json};
use wiremock::{MockServer, Request, Respond, ResponseTemplate};
use x402_core::chain::MULTICALL3;
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};
use x402_core::{
    Facilitator, FacilitatorError, LocalFacilitator, PaymentPayload, PaymentRequirements,
    PaymentTerms, reasons,
};

/// How the stub node answers `eth_sendRawTransaction`.
#[derive(Clone, Copy)]
enum Send {
    Hang,
    Refuse,
    Accept,
}

struct Node {
    send: Send,
    hang_get_code: bool,
    sends: Arc<AtomicUsize>,
}

impl Respond for Node {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let call: Value = serde_json::from_slice(&request.body).expect("JSON-RPC");
        let id = call["id"].clone();
        let ok = |result: Value| {
            ResponseTemplate::new(200)
                .set_body_json(json!({"jsonrpc": "2.0", "id": id, "result": result}))
        };
        match call["method"].as_str().unwrap_or("") {
            "eth_getCode" if self.hang_get_code => {
                ok(json!("0x6001")).set_delay(Duration::from_secs(10))
            }
            "eth_getCode" => ok(json!("0x6001")),
            "eth_estimateGas" => ok(json!("0x186a0")),
            "eth_feeHistory" => ok(json!({
                "oldestBlock": "0x1",
                "baseFeePerGas": ["0x3b9aca00", "0x3b9aca00"],
                "gasUsedRatio": [0.5],
                "reward": [["0x3b9aca00"]]
            })),
            "eth_maxPriorityFeePerGas" | "eth_gasPrice" => ok(json!("0x3b9aca00")),
            "eth_getTransactionCount" => ok(json!("0x0")),
            "eth_chainId" => ok(json!("0x2105")),
            "eth_blockNumber" => ok(json!("0x10")),
            "eth_getTransactionReceipt" => ok(Value::Null),
            "eth_sendRawTransaction" => {
                self.sends.fetch_add(1, Ordering::SeqCst);
                let raw = call["params"][0].as_str().unwrap_or("0x").to_owned();
                let hash = format!("{}", keccak256(alloy::hex::decode(raw).unwrap_or_default()));
                match self.send {
                    Send::Hang => ok(json!(hash)).set_delay(Duration::from_secs(10)),
                    Send::Refuse => ResponseTemplate::new(200).set_body_json(json!({
                        "jsonrpc": "2.0", "id": id,
                        "error": {"code": -32000, "message": "insufficient funds for gas"}
                    })),
                    Send::Accept => ok(json!(hash)),
                }
            }
            other => ResponseTemplate::new(200).set_body_json(json!({
                "jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("stub has no {other}")}
            })),
        }
    }
}

struct Stub {
    _server: MockServer,
    facilitator: LocalFacilitator,
    sends: Arc<AtomicUsize>,
}

async fn stub(send: Send, hang_get_code: bool, receipt_timeout: Duration) -> Stub {
    let server = MockServer::start().await;
    let sends = Arc::new(AtomicUsize::new(0));
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Node {
            send,
            hang_get_code,
            sends: sends.clone(),
        })
        .mount(&server)
        .await;
    let settler = PrivateKeySigner::from_bytes(&keccak256("local-settler")).expect("key");
    let facilitator = LocalFacilitator::new(
        server.uri().parse().expect("url"),
        8453,
        settler,
        MULTICALL3,
        receipt_timeout,
    )
    .with_rpc_timeout(Duration::from_millis(500));
    Stub {
        _server: server,
        facilitator,
        sends,
    }
}

fn payment(label: &str) -> (PaymentPayload, PaymentRequirements) {
    let requirements =
        PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"))
            .requirements(U256::from(5_000u64), 60);
    let signer = PaymentSigner::new(
        PrivateKeySigner::from_bytes(&keccak256("payer")).expect("key"),
        8453,
    );
    let window = AuthorizationWindow {
        valid_after: 0,
        valid_before: 4_000_000_000,
        nonce: keccak256(label),
    };
    (
        signer.pay(&requirements, None, window).expect("signs"),
        requirements,
    )
}

#[tokio::test]
async fn a_send_without_an_answer_is_an_unknown_outcome_within_the_timeout() {
    let stub = stub(Send::Hang, false, Duration::from_secs(5)).await;
    let (payload, requirements) = payment("hang");
    let started = Instant::now();
    let result = stub.facilitator.settle(&payload, &requirements).await;
    assert!(
        matches!(result, Err(FacilitatorError::SettlementUnknown(_))),
        "{result:?}"
    );
    assert_eq!(stub.sends.load(Ordering::SeqCst), 1);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_send_the_node_refuses_is_a_known_failure() {
    let stub = stub(Send::Refuse, false, Duration::from_secs(5)).await;
    let (payload, requirements) = payment("refused");
    let settled = stub
        .facilitator
        .settle(&payload, &requirements)
        .await
        .expect("a verdict");
    assert!(!settled.success);
    assert_eq!(
        settled.error_reason.as_deref(),
        Some(reasons::TRANSACTION_FAILED)
    );
}

#[tokio::test]
async fn a_hanging_chain_read_times_out() {
    let stub = stub(Send::Accept, true, Duration::from_secs(5)).await;
    let (payload, requirements) = payment("slow-read");
    let started = Instant::now();
    let result = stub.facilitator.verify(&payload, &requirements).await;
    assert!(
        matches!(result, Err(FacilitatorError::Unreachable(_))),
        "{result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let result = stub.facilitator.settle(&payload, &requirements).await;
    assert!(
        matches!(result, Err(FacilitatorError::Unreachable(_))),
        "nothing was sent: {result:?}"
    );
    assert_eq!(stub.sends.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_send_lock_is_not_held_while_a_receipt_is_awaited() {
    let stub = Arc::new(stub(Send::Accept, false, Duration::from_secs(3)).await);
    let tasks: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|label| {
            let stub = stub.clone();
            tokio::spawn(async move {
                let (payload, requirements) = payment(label);
                stub.facilitator.settle(&payload, &requirements).await
            })
        })
        .collect();
    // Both transactions go out while the first receipt is still awaited.
    tokio::time::timeout(Duration::from_secs(2), async {
        while stub.sends.load(Ordering::SeqCst) < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the second settlement was sent before the first receipt arrived");
    for task in tasks {
        let settled = task.await.expect("task").expect("a verdict");
        assert_eq!(
            settled.error_reason.as_deref(),
            Some(reasons::SETTLEMENT_PENDING),
            "no receipt: pending, locked"
        );
    }
}
