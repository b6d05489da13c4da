//! One test per rejection reason, on a stubbed chain.

use std::sync::Mutex;

use alloy::primitives::{B256, Bytes, U256, address, keccak256};
use alloy::signers::local::PrivateKeySigner;
use async_trait::async_trait;

use super::*;
use crate::chain::{ChainError, Eip3009Reader, TransferProbe};
use crate::eip3009::{AuthorizationWindow, PaymentSigner};
use crate::terms::PaymentTerms;

const NOW: u64 = 1_800_000_000;

#[derive(Debug, Clone, Copy)]
struct FixedClock(u64);

impl Clock for FixedClock {
    fn now(&self) -> u64 {
        self.0
    }
}

#[derive(Debug)]
struct FakeChain {
    asset_code: usize,
    wallet_code: usize,
    erc1271: bool,
    probe: TransferProbe,
    down: bool,
    probes: Mutex<u32>,
}

impl Default for FakeChain {
    fn default() -> Self {
        Self {
            asset_code: 1000,
            wallet_code: 0,
            erc1271: false,
            probe: TransferProbe {
                simulation_ok: true,
                authorization_used: Some(false),
                balance: Some(U256::from(1_000_000u64)),
                name: Some("USD Coin".into()),
                version: Some("2".into()),
            },
            down: false,
            probes: Mutex::new(0),
        }
    }
}

#[async_trait]
impl Eip3009Reader for FakeChain {
    async fn code_size(&self, address: Address) -> Result<usize, ChainError> {
        if self.down {
            return Err(ChainError("connection refused".into()));
        }
        Ok(if address == crate::terms::BASE_USDC {
            self.asset_code
        } else {
            self.wallet_code
        })
    }
    async fn erc1271_valid(&self, _: Address, _: B256, _: &Bytes) -> Result<bool, ChainError> {
        Ok(self.erc1271)
    }
    async fn probe_transfer(
        &self,
        _: Address,
        _: &SignedAuthorization,
    ) -> Result<TransferProbe, ChainError> {
        *self.probes.lock().expect("lock") += 1;
        Ok(self.probe.clone())
    }
}

fn terms() -> PaymentTerms {
    PaymentTerms::base_usdc(address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"))
}

fn requirements() -> PaymentRequirements {
    terms().requirements(U256::from(5_000u64), 60)
}

fn payer() -> PaymentSigner {
    PaymentSigner::new(
        PrivateKeySigner::from_bytes(&keccak256("x402-test-vector-payer")).expect("key"),
        8453,
    )
}

fn window() -> AuthorizationWindow {
    AuthorizationWindow {
        valid_after: 0,
        valid_before: NOW + 60,
        nonce: keccak256("n"),
    }
}

fn paid(requirements: &PaymentRequirements, window: AuthorizationWindow) -> PaymentPayload {
    payer().pay(requirements, None, window).expect("signs")
}

fn verifier(chain: FakeChain) -> LocalVerifier {
    LocalVerifier::new(8453, Arc::new(chain)).with_clock(Arc::new(FixedClock(NOW)))
}

async fn reason_of(chain: FakeChain, payload: &PaymentPayload) -> Option<String> {
    let verdict = verifier(chain)
        .verify(payload, &requirements())
        .await
        .expect("chain answers");
    verdict.invalid_reason
}

fn edit_auth(payload: &mut PaymentPayload, field: &str, value: &str) {
    payload.payload["authorization"][field] = Value::String(value.to_owned());
}

#[tokio::test]
async fn a_correct_payment_is_valid() {
    let payload = paid(&requirements(), window());
    let verdict = verifier(FakeChain::default())
        .verify(&payload, &requirements())
        .await
        .expect("answers");
    assert!(verdict.is_valid, "{verdict:?}");
    assert_eq!(
        verdict.payer.as_deref(),
        Some("0x8d548B243730550eFD52D67A4cA9200EabA26319")
    );
}

#[tokio::test]
async fn wrong_version() {
    let mut payload = paid(&requirements(), window());
    payload.x402_version = 1;
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::INVALID_X402_VERSION)
    );
}

#[tokio::test]
async fn wrong_scheme() {
    let mut payload = paid(&requirements(), window());
    payload.accepted.scheme = "upto".into();
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::SCHEME)
    );
}

#[tokio::test]
async fn wrong_network() {
    let mut other = requirements();
    other.network = "eip155:84532".into();
    let payload = paid(&other, window());
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::NETWORK_MISMATCH)
    );
}

#[tokio::test]
async fn permit2_payload_is_unsupported() {
    let mut payload = paid(&requirements(), window());
    payload.payload = serde_json::json!({"signature": "0x", "permit2Authorization": {}});
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::UNSUPPORTED_PAYLOAD_TYPE)
    );
}

#[tokio::test]
async fn malformed_payload() {
    let mut payload = paid(&requirements(), window());
    edit_auth(&mut payload, "nonce", "0x1234");
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::INVALID_PAYLOAD)
    );
}

#[tokio::test]
async fn missing_eip712_domain() {
    let payload = paid(&requirements(), window());
    let mut ours = requirements();
    ours.extra = None;
    let verdict = verifier(FakeChain::default())
        .verify(&payload, &ours)
        .await
        .expect("answers");
    assert_eq!(
        verdict.invalid_reason.as_deref(),
        Some(reasons::MISSING_EIP712_DOMAIN)
    );
}

#[tokio::test]
async fn tampered_value_breaks_the_signature() {
    let mut payload = paid(&requirements(), window());
    edit_auth(&mut payload, "value", "1");
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::SIGNATURE)
    );
}

#[tokio::test]
async fn contract_wallet_signature_goes_through_erc1271() {
    let mut payload = paid(&requirements(), window());
    payload.payload["signature"] = Value::String(format!("0x{}", "ab".repeat(100)));
    let refused = FakeChain {
        wallet_code: 500,
        erc1271: false,
        ..FakeChain::default()
    };
    assert_eq!(
        reason_of(refused, &payload).await.as_deref(),
        Some(reasons::SIGNATURE)
    );
    let accepted = FakeChain {
        wallet_code: 500,
        erc1271: true,
        ..FakeChain::default()
    };
    assert_eq!(reason_of(accepted, &payload).await, None);
}

#[tokio::test]
async fn recipient_mismatch() {
    let mut elsewhere = requirements();
    elsewhere.pay_to = "0x0000000000000000000000000000000000000bad".into();
    let payload = paid(&elsewhere, window());
    let mut echoed = payload.clone();
    echoed.accepted = requirements();
    assert_eq!(
        reason_of(FakeChain::default(), &echoed).await.as_deref(),
        Some(reasons::RECIPIENT_MISMATCH)
    );
}

#[tokio::test]
async fn expiring_within_the_margin() {
    let payload = paid(
        &requirements(),
        AuthorizationWindow {
            valid_before: NOW + 5,
            ..window()
        },
    );
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::VALID_BEFORE)
    );
    let payload = paid(
        &requirements(),
        AuthorizationWindow {
            valid_before: NOW + 6,
            ..window()
        },
    );
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await,
        None,
        "exactly the margin is enough"
    );
}

#[tokio::test]
async fn not_yet_valid() {
    let payload = paid(
        &requirements(),
        AuthorizationWindow {
            valid_after: NOW + 1,
            ..window()
        },
    );
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::VALID_AFTER)
    );
}

#[tokio::test]
async fn value_must_be_exact() {
    let mut more = requirements();
    more.amount = "5001".into();
    let mut payload = paid(&more, window());
    payload.accepted = requirements();
    assert_eq!(
        reason_of(FakeChain::default(), &payload).await.as_deref(),
        Some(reasons::VALUE_MISMATCH)
    );
}

#[tokio::test]
async fn asset_without_code() {
    let payload = paid(&requirements(), window());
    let chain = FakeChain {
        asset_code: 0,
        ..FakeChain::default()
    };
    assert_eq!(
        reason_of(chain, &payload).await.as_deref(),
        Some(reasons::ASSET_NOT_DEPLOYED)
    );
}

fn failing(probe: impl FnOnce(&mut TransferProbe)) -> FakeChain {
    let mut chain = FakeChain::default();
    chain.probe.simulation_ok = false;
    probe(&mut chain.probe);
    chain
}

#[tokio::test]
async fn simulation_failures_are_diagnosed_in_order() {
    let payload = paid(&requirements(), window());
    let cases: Vec<(FakeChain, &str)> = vec![
        (
            failing(|p| p.authorization_used = None),
            reasons::EIP3009_NOT_SUPPORTED,
        ),
        (
            failing(|p| {
                p.authorization_used = Some(true);
                p.balance = Some(U256::ZERO)
            }),
            reasons::NONCE_ALREADY_USED,
        ),
        (
            failing(|p| p.name = Some("USDC".into())),
            reasons::TOKEN_NAME_MISMATCH,
        ),
        (
            failing(|p| p.version = Some("1".into())),
            reasons::TOKEN_VERSION_MISMATCH,
        ),
        (
            failing(|p| p.balance = Some(U256::from(4_999u64))),
            reasons::INSUFFICIENT_BALANCE,
        ),
        (failing(|_| {}), reasons::SIMULATION_FAILED),
    ];
    for (chain, expected) in cases {
        assert_eq!(reason_of(chain, &payload).await.as_deref(), Some(expected));
    }
}

#[tokio::test]
async fn settlement_recheck_skips_the_simulation() {
    let payload = paid(&requirements(), window());
    let chain = Arc::new(failing(|p| p.balance = Some(U256::ZERO)));
    let verifier = LocalVerifier::new(8453, chain.clone()).with_clock(Arc::new(FixedClock(NOW)));
    assert!(
        verifier
            .check(&payload, &requirements(), false)
            .await
            .expect("answers")
            .is_ok()
    );
    assert_eq!(*chain.probes.lock().expect("lock"), 0);
}

#[tokio::test]
async fn an_unreadable_chain_is_an_error_not_a_verdict() {
    let payload = paid(&requirements(), window());
    let chain = FakeChain {
        down: true,
        ..FakeChain::default()
    };
    assert!(
        verifier(chain)
            .verify(&payload, &requirements())
            .await
            .is_err()
    );
}
