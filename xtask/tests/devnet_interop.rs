//! x402 interop on a local chain: the official npm client (`@x402/fetch`) pays a server-kit app,
//! and the whole matrix runs twice, once with our `LocalFacilitator` and once with our
//! `HttpFacilitator` in front of the official npm facilitator, so both paths must agree.
//! Every test starts its own anvil with real USDC (FiatTokenV2_2) at Base's address.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alloy::primitives::{Address, U256, keccak256};
use alloy::signers::local::PrivateKeySigner;
use serde_json::{Value, json};
use test_devnet::node::FaultRuns;
use x402_core::eip3009::{AuthorizationWindow, PaymentSigner};
use x402_core::{
    Facilitator, HttpFacilitator, LocalFacilitator, PaymentPayload, PaymentRequired, PaymentTerms,
    decode_header, encode_header, reasons,
};
use xtask::devnet::{self, Devnet, DevnetInfo};
use xtask::node::{self, NodeFacilitator};
use xtask::testapp::{self, PRICE_ATOMIC};

#[derive(Debug, Clone, Copy)]
enum Kind {
    Local,
    OfficialNpm,
}

struct World {
    info: DevnetInfo,
    app: String,
    http: reqwest::Client,
    _chain: Devnet,
    _node_facilitator: Option<NodeFacilitator>,
}

fn terms(info: &DevnetInfo) -> PaymentTerms {
    let mut terms = PaymentTerms::base_usdc(info.pay_to.parse().expect("pay_to"));
    terms.chain_id = info.chain_id;
    terms
}

async fn world(kind: Kind) -> World {
    world_with(kind, false, |_| {}).await
}

/// A world whose app is configured by `configure`; with `losing`, its facilitator settles for
/// real and then loses the outcome ([`testapp::LosingFacilitator`]).
async fn world_with(
    kind: Kind,
    losing: bool,
    configure: impl FnOnce(&mut server_kit::config::CommonConfig),
) -> World {
    let (chain, info) = tokio::task::spawn_blocking(devnet::spawn_fresh)
        .await
        .expect("join")
        .expect("devnet");
    let (facilitator, node_facilitator): (Arc<dyn Facilitator>, _) = match kind {
        Kind::Local => (
            Arc::new(LocalFacilitator::new(
                info.rpc_url.parse().expect("rpc"),
                info.chain_id,
                info.facilitator_private_key.parse().expect("key"),
                info.multicall3.parse().expect("multicall3"),
                Duration::from_secs(30),
            )),
            None,
        ),
        Kind::OfficialNpm => {
            let npm = NodeFacilitator::spawn(&info.rpc_url, &info.facilitator_private_key)
                .expect("npm facilitator");
            let client =
                HttpFacilitator::new(npm.url.parse().expect("url"), Duration::from_secs(30))
                    .expect("client");
            (Arc::new(client), Some(npm))
        }
    };
    let facilitator: Arc<dyn Facilitator> = if losing {
        Arc::new(testapp::LosingFacilitator { inner: facilitator })
    } else {
        facilitator
    };
    let app = testapp::spawn(
        testapp::router_configured(facilitator, terms(&info), configure).expect("router"),
    )
    .await
    .expect("app");
    World {
        info,
        app,
        http: reqwest::Client::new(),
        _chain: chain,
        _node_facilitator: node_facilitator,
    }
}

impl World {
    async fn balance(&self, who: &str) -> U256 {
        test_devnet::paid::usdc_balance(&self.info, who)
            .await
            .expect("balanceOf")
    }

    async fn official_client(&self, route: &str, key: &str) -> Value {
        let (url, key) = (format!("{}{route}", self.app), key.to_owned());
        tokio::task::spawn_blocking(move || node::official_client(&url, &key, &json!({"q": 1})))
            .await
            .expect("join")
            .expect("client.mjs")
    }

    async fn faults(&self, runs: FaultRuns) -> Value {
        let (url, key) = (
            format!("{}/paid/echo", self.app),
            self.info.payer_private_key.clone(),
        );
        tokio::task::spawn_blocking(move || test_devnet::node::official_faults(&url, &key, runs))
            .await
            .expect("join")
            .expect("faults.mjs")
    }

    /// The raw `PAYMENT-REQUIRED` header of an unpaid request.
    async fn terms_header(&self, route: &str) -> String {
        let response = self
            .http
            .post(format!("{}{route}", self.app))
            .json(&json!({}))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 402);
        response.headers()["payment-required"]
            .to_str()
            .expect("ascii")
            .to_owned()
    }

    /// A payment signed by the official client for `route`.
    async fn official_signature(&self, route: &str) -> String {
        let header = self.terms_header(route).await;
        let key = self.info.payer_private_key.clone();
        tokio::task::spawn_blocking(move || node::official_sign(&header, &key))
            .await
            .expect("join")
            .expect("sign.mjs")
    }

    async fn pay(&self, route: &str, signature: &str) -> (u16, Value, Option<Value>) {
        let response = self
            .http
            .post(format!("{}{route}", self.app))
            .header("PAYMENT-SIGNATURE", signature)
            .json(&json!({}))
            .send()
            .await
            .expect("request");
        let status = response.status().as_u16();
        let receipt = response
            .headers()
            .get("payment-response")
            .map(|h| decode_header::<Value>(h.to_str().expect("ascii")).expect("receipt"));
        let body = response.json().await.unwrap_or(Value::Null);
        (status, body, receipt)
    }
}

fn price() -> U256 {
    U256::from(PRICE_ATOMIC)
}

async fn paid_call_settles_exactly_the_price(kind: Kind) {
    let world = world(kind).await;
    let (payer, pay_to) = (&world.info.payer_address, &world.info.pay_to);
    let (payer_before, pay_to_before) = (world.balance(payer).await, world.balance(pay_to).await);

    let report = world
        .official_client("/paid/echo", &world.info.payer_private_key)
        .await;
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["first"]["status"], 402);
    let terms = &report["first"]["payment_required"];
    assert_eq!(terms["x402Version"], 2);
    assert_eq!(terms["accepts"][0]["network"], "eip155:8453");
    assert_eq!(
        terms["accepts"][0]["asset"],
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
    );
    assert_eq!(terms["accepts"][0]["amount"], PRICE_ATOMIC.to_string());
    assert_eq!(report["first"]["body"]["x402Version"], 2);
    assert_eq!(report["final"]["status"], 200, "{report}");
    assert_eq!(report["final"]["body"]["answer"], "paid content");
    let receipt = &report["final"]["payment_response"];
    assert_eq!(receipt["success"], true, "{report}");
    assert_eq!(receipt["network"], "eip155:8453");
    assert!(
        receipt["transaction"]
            .as_str()
            .is_some_and(|tx| tx.len() == 66)
    );

    assert_eq!(world.balance(pay_to).await, pay_to_before + price());
    assert_eq!(world.balance(payer).await, payer_before - price());
}

async fn replayed_signature_is_served_once(kind: Kind) {
    let world = world(kind).await;
    let before = world.balance(&world.info.pay_to).await;
    let signature = world.official_signature("/paid/echo").await;
    let (status, _, receipt) = world.pay("/paid/echo", &signature).await;
    assert_eq!(status, 200);
    assert_eq!(receipt.expect("receipt")["success"], true);
    // The same authorization again: told it paid (409, charged), never a 402 that would have
    // the official client sign a second one.
    let (status, body, _) = world.pay("/paid/echo", &signature).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "authorization_reused");
    assert_eq!(body["charged"], true);
    assert_eq!(world.balance(&world.info.pay_to).await, before + price());
}

async fn concurrent_replays_are_served_once(kind: Kind) {
    let world = world(kind).await;
    let before = world.balance(&world.info.pay_to).await;
    let signature = world.official_signature("/paid/echo").await;
    let answers =
        futures::future::join_all((0..10).map(|_| world.pay("/paid/echo", &signature))).await;
    let served = answers
        .iter()
        .filter(|(status, _, _)| *status == 200)
        .count();
    assert_eq!(
        served,
        1,
        "{:?}",
        answers
            .iter()
            .map(|a| (a.0, a.1["error"].clone()))
            .collect::<Vec<_>>()
    );
    // The others are refused: 409 `authorization_reused` (in use or settled: never a 402,
    // which would have a client sign again), or 429 where the gate's caps on one client's
    // unverified requests and one payer's concurrent work turn them away first.
    assert!(
        answers
            .iter()
            .all(|(status, _, _)| matches!(*status, 200 | 409 | 429)),
        "{:?}",
        answers.iter().map(|a| a.0).collect::<Vec<_>>()
    );
    assert_eq!(world.balance(&world.info.pay_to).await, before + price());
}

async fn failing_handler_is_not_settled(kind: Kind) {
    let world = world(kind).await;
    let (payer, pay_to) = (&world.info.payer_address, &world.info.pay_to);
    let (payer_before, pay_to_before) = (world.balance(payer).await, world.balance(pay_to).await);
    let report = world
        .official_client("/paid/fail", &world.info.payer_private_key)
        .await;
    assert_eq!(report["final"]["status"], 500, "{report}");
    assert_eq!(report["final"]["body"]["charged"], false);
    assert_eq!(report["final"]["payment_response"], Value::Null);
    assert_eq!(world.balance(pay_to).await, pay_to_before);
    assert_eq!(world.balance(payer).await, payer_before);
}

async fn refusal_reason(world: &World, payload: &PaymentPayload) -> String {
    let (status, body, receipt) = world
        .pay("/paid/echo", &encode_header(payload).expect("encode"))
        .await;
    assert_eq!(status, 402, "{body}");
    assert!(receipt.is_none());
    body["error"].as_str().expect("reason").to_owned()
}

async fn official_payload(world: &World) -> PaymentPayload {
    decode_header(&world.official_signature("/paid/echo").await).expect("payload")
}

async fn our_requirements(world: &World) -> x402_core::PaymentRequirements {
    let terms: PaymentRequired =
        decode_header(&world.terms_header("/paid/echo").await).expect("terms");
    terms.accepts[0].clone()
}

fn payer(world: &World) -> PaymentSigner {
    let key: PrivateKeySigner = world.info.payer_private_key.parse().expect("key");
    PaymentSigner::new(key, world.info.chain_id)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

async fn bad_payments_are_refused_with_their_reason(kind: Kind) {
    let world = world(kind).await;
    let before = world.balance(&world.info.pay_to).await;

    let mut tampered = official_payload(&world).await;
    tampered.payload["authorization"]["value"] = json!("1");
    assert_eq!(refusal_reason(&world, &tampered).await, reasons::SIGNATURE);

    let ours = our_requirements(&world).await;
    let mut elsewhere = ours.clone();
    elsewhere.pay_to = Address::repeat_byte(0x42).to_checksum(None);
    let window = AuthorizationWindow {
        valid_after: 0,
        valid_before: now() + 60,
        nonce: keccak256("wrong-pay-to"),
    };
    let mut wrong_pay_to = payer(&world).pay(&elsewhere, None, window).expect("sign");
    wrong_pay_to.accepted = ours.clone();
    assert_eq!(
        refusal_reason(&world, &wrong_pay_to).await,
        reasons::RECIPIENT_MISMATCH
    );

    let window = AuthorizationWindow {
        valid_after: 0,
        valid_before: now() - 1,
        nonce: keccak256("expired"),
    };
    let expired = payer(&world).pay(&ours, None, window).expect("sign");
    assert_eq!(
        refusal_reason(&world, &expired).await,
        reasons::VALID_BEFORE
    );

    let report = world
        .official_client("/paid/echo", &world.info.unfunded_payer_private_key)
        .await;
    assert_eq!(report["final"]["status"], 402, "{report}");
    assert_eq!(
        report["final"]["body"]["error"],
        reasons::INSUFFICIENT_BALANCE
    );
    assert_eq!(
        report["final"]["payment_required"]["error"],
        reasons::INSUFFICIENT_BALANCE
    );

    assert_eq!(
        world.balance(&world.info.pay_to).await,
        before,
        "nothing was settled"
    );
}

/// The key that signs offers and receipts (it never touches the chain).
const OFFER_SIGNING_KEY: &str =
    "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

async fn offers_and_receipts_verify_with_the_official_verifier(kind: Kind) {
    let world = world_with(kind, false, |common| {
        common.signing.private_key = Some(OFFER_SIGNING_KEY.into());
    })
    .await;
    let signer: PrivateKeySigner = OFFER_SIGNING_KEY.parse().expect("key");
    let ours = signer.address().to_checksum(None);
    let report = world
        .official_client("/paid/echo", &world.info.payer_private_key)
        .await;
    assert_eq!(report["final"]["status"], 200, "{report}");
    let checked = &report["offer_receipt"];
    assert_eq!(checked["offer_signers"], json!([ours]), "{report}");
    assert_eq!(checked["receipt_signer"], json!(ours), "{report}");
    assert_eq!(checked["receipt_matches_offer"], true, "{report}");
}

/// The roomy limits and quick pending resolver of the fault suite: one payer makes hundreds of
/// calls at once, and unknown settlements are resolved within a few seconds.
fn fault_suite_config(common: &mut server_kit::config::CommonConfig) {
    common.limits.unpaid_per_window = 1_000_000;
    common.limits.unverified_per_client = 1_000;
    common.limits.payer_concurrency = 1_000;
    common.limits.payer_failures_per_window = 1_000_000;
    common.state.pending_scan_seconds = 1;
    common.state.pending_stale_seconds = 3;
}

/// What every fault run must end in: one authorization signed per call and never a second,
/// every paid answer delivered (the call's own), and the chain holding exactly one transfer
/// per call.
async fn assert_charged_once_and_delivered(
    world: &World,
    report: &Value,
    runs: usize,
    paid_before: U256,
) {
    assert_eq!(report["runs"], runs, "{report}");
    assert_eq!(report["runs_signing_twice"], 0, "{report}");
    assert_eq!(report["signed"], runs, "{report}");
    assert_eq!(report["delivered"], runs, "{report}");
    assert_eq!(report["answers_differ"], 0, "{report}");
    let settled = world.balance(&world.info.pay_to).await - paid_before;
    assert_eq!(settled, price() * U256::from(runs), "{report}");
}

/// The facilitator broadcasts every settlement and then loses its outcome (a timeout, or
/// `settlement_pending`): the official client is never answered 402, so it never signs a
/// second authorization, and each call's answer comes once the transfer is confirmed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_fault_suite_facilitator_losing_outcomes_after_broadcast() {
    const RUNS: usize = 500;
    let world = world_with(Kind::Local, true, fault_suite_config).await;
    let before = world.balance(&world.info.pay_to).await;
    let report = world
        .faults(FaultRuns {
            runs: RUNS,
            concurrency: 64,
            cut: false,
        })
        .await;
    println!("fault suite, outcomes lost after broadcast: {report}");
    assert_charged_once_and_delivered(&world, &report, RUNS, before).await;
}

/// Connections cut at random moments of the paid request (mid-work, mid-settlement, after):
/// retried with the same payment and id, each call is charged once and gets its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_fault_suite_connections_cut() {
    const RUNS: usize = 1_000;
    let world = world_with(Kind::Local, false, fault_suite_config).await;
    let before = world.balance(&world.info.pay_to).await;
    let report = world
        .faults(FaultRuns {
            runs: RUNS,
            concurrency: 16,
            cut: true,
        })
        .await;
    println!("fault suite, connections cut: {report}");
    assert_charged_once_and_delivered(&world, &report, RUNS, before).await;
}

/// Two networks in `accepts`: the devnet as Base (8453) and the same state as a second chain
/// under Arbitrum One's id (42161; its USDC at the devnet's address, named in the
/// configuration), each settled by its own local facilitator. The official client pays once on
/// each (a policy picks the network); each payment moves USDC on its own chain only, and an
/// authorization signed for one network, sent as the other's, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_two_networks_each_paid_on_its_own_chain() {
    let (_base_chain, base) = tokio::task::spawn_blocking(devnet::spawn_fresh)
        .await
        .expect("join")
        .expect("devnet");
    let (_other_chain, other) =
        tokio::task::spawn_blocking(|| test_devnet::paid::spawn_fresh_as(Some(42_161)))
            .await
            .expect("join")
            .expect("second devnet");
    let primary: Arc<dyn Facilitator> = Arc::new(LocalFacilitator::new(
        base.rpc_url.parse().expect("rpc"),
        base.chain_id,
        base.facilitator_private_key.parse().expect("key"),
        base.multicall3.parse().expect("multicall3"),
        Duration::from_secs(30),
    ));
    let (other_rpc, other_usdc) = (other.rpc_url.clone(), other.usdc.clone());
    let app = testapp::spawn(
        testapp::router_configured(primary, terms(&base), |common| {
            test_devnet::paid::pay_locally(common, &base).expect("payment section");
            common.payment.networks = vec![server_kit::config::NetworkConfig {
                chain_id: 42_161,
                asset: Some(other_usdc.parse().expect("usdc")),
                asset_name: Some("USD Coin".into()),
                asset_version: Some("2".into()),
                rpc_url: Some(other_rpc),
            }];
        })
        .expect("router"),
    )
    .await
    .expect("app");
    let balance = |info: &DevnetInfo| {
        let info = info.clone();
        async move {
            test_devnet::paid::usdc_balance(&info, &info.pay_to)
                .await
                .expect("balanceOf")
        }
    };
    let (base_before, other_before) = (balance(&base).await, balance(&other).await);
    let url = format!("{app}/paid/echo");
    let pay_on = |network: &'static str| {
        let (url, key) = (url.clone(), base.payer_private_key.clone());
        tokio::task::spawn_blocking(move || {
            test_devnet::node::official_client_with(
                &url,
                &key,
                &json!({"q": network}),
                &["--network", network, "--no-spend-cap"],
            )
        })
    };

    let report = pay_on("eip155:8453").await.expect("join").expect("client");
    let accepts = &report["first"]["payment_required"]["accepts"];
    assert_eq!(accepts[0]["network"], "eip155:8453", "{report}");
    assert_eq!(accepts[1]["network"], "eip155:42161", "{report}");
    assert_eq!(accepts[1]["amount"], accepts[0]["amount"], "one price");
    assert_eq!(report["final"]["status"], 200, "{report}");
    assert_eq!(
        report["final"]["payment_response"]["network"],
        "eip155:8453"
    );
    assert_eq!(balance(&base).await, base_before + price());
    assert_eq!(balance(&other).await, other_before);

    let report = pay_on("eip155:42161").await.expect("join").expect("client");
    assert_eq!(report["final"]["status"], 200, "{report}");
    assert_eq!(
        report["final"]["payment_response"]["network"],
        "eip155:42161"
    );
    assert_eq!(balance(&other).await, other_before + price());
    assert_eq!(
        balance(&base).await,
        base_before + price(),
        "nothing more on Base"
    );

    // The signature of that payment, replayed: told it paid, whichever network it names.
    let signature = report["payment_signature"].as_str().expect("signature");
    let http = reqwest::Client::new();
    let again = http
        .post(&url)
        .header("PAYMENT-SIGNATURE", signature)
        .json(&json!({"q": "eip155:42161"}))
        .send()
        .await
        .expect("replay");
    assert_eq!(again.status(), 409);
    // Signed for 42161, presented as a Base payment: the signature does not hold there.
    let mut crossed: PaymentPayload = decode_header(signature).expect("payload");
    let ours: PaymentRequired =
        serde_json::from_value(report["first"]["payment_required"].clone()).expect("terms");
    crossed.accepted = ours.accepts[0].clone();
    let refused = http
        .post(&url)
        .header(
            "PAYMENT-SIGNATURE",
            encode_header(&crossed).expect("encode"),
        )
        .json(&json!({"q": "eip155:42161"}))
        .send()
        .await
        .expect("crossed");
    assert_eq!(refused.status(), 402);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["error"], reasons::SIGNATURE, "{body}");
    assert_eq!(balance(&base).await, base_before + price());
    assert_eq!(balance(&other).await, other_before + price());

    // One payment id across networks: paid on Base, then repeated with a new authorization
    // for the other network: the first answer again, and the second authorization is never
    // settled.
    let sign = |index: usize, chain_id: u64, label: &str| {
        let key: PrivateKeySigner = base.payer_private_key.parse().expect("key");
        let window = AuthorizationWindow {
            valid_after: 0,
            valid_before: now() + ours.accepts[index].max_timeout_seconds,
            nonce: keccak256(label),
        };
        let payload = PaymentSigner::new(key, chain_id)
            .pay(&ours.accepts[index], Some(ours.resource.clone()), window)
            .expect("sign");
        let payload = x402_core::payment_identifier::with_payment_id(
            payload,
            "pay_across_networks_0123456789",
        );
        encode_header(&payload).expect("encode")
    };
    let body = json!({"q": "one id, two networks"});
    let send = |signature: String| {
        let (http, url, body) = (http.clone(), url.clone(), body.clone());
        async move {
            let response = http
                .post(&url)
                .header("PAYMENT-SIGNATURE", signature)
                .json(&body)
                .send()
                .await
                .expect("request");
            (
                response.status().as_u16(),
                response.bytes().await.expect("body"),
            )
        }
    };
    let (status, first) = send(sign(0, base.chain_id, "id on base")).await;
    assert_eq!(status, 200, "{first:?}");
    let (status, repeated) = send(sign(1, 42_161, "id on the other network")).await;
    assert_eq!(status, 200, "{repeated:?}");
    assert_eq!(repeated, first, "the answer the id bought");
    assert_eq!(balance(&base).await, base_before + price() + price());
    assert_eq!(
        balance(&other).await,
        other_before + price(),
        "not settled again"
    );
}

macro_rules! both_facilitators {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn devnet_local_facilitator() {
                super::$case(super::Kind::Local).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn devnet_official_npm_facilitator() {
                super::$case(super::Kind::OfficialNpm).await;
            }
        }
    )*};
}

both_facilitators!(
    paid_call_settles_exactly_the_price,
    replayed_signature_is_served_once,
    concurrent_replays_are_served_once,
    failing_handler_is_not_settled,
    bad_payments_are_refused_with_their_reason,
    offers_and_receipts_verify_with_the_official_verifier,
);
