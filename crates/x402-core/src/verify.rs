//! The local verifier: every check of the `exact` EVM scheme (x402 v2, `scheme_exact_evm.md`), in the
//! reference facilitator's order and with its `invalidReason` strings, so a client sees the
//! same answer whichever facilitator the server uses. The reason strings and the clock are
//! always here; the verifier, which reads the chain, comes with the `facilitator` feature.

use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(feature = "facilitator")]
use {
    crate::chain::{ChainError, Eip3009Reader},
    crate::eip3009::{SignedAuthorization, authorization_digest, token_domain},
    crate::terms::{SCHEME_EXACT, caip2},
    crate::types::{PaymentPayload, PaymentRequirements, VerifyResponse, X402_VERSION},
    alloy::primitives::{Address, U256},
    serde_json::Value,
    std::sync::Arc,
};

/// The reason strings of the reference (TypeScript 2.27) facilitator.
pub mod reasons {
    /// Payload version is not 2.
    pub const INVALID_X402_VERSION: &str = "invalid_x402_version";
    /// Scheme is not `exact`.
    pub const SCHEME: &str = "invalid_exact_evm_scheme";
    /// Network differs from the requirement or the verifier's chain.
    pub const NETWORK_MISMATCH: &str = "invalid_exact_evm_network_mismatch";
    /// Neither an EIP-3009 nor any other supported payload.
    pub const UNSUPPORTED_PAYLOAD_TYPE: &str = "unsupported_payload_type";
    /// A payload field does not parse.
    pub const INVALID_PAYLOAD: &str = "invalid_payload";
    /// `extra.name` / `extra.version` missing.
    pub const MISSING_EIP712_DOMAIN: &str = "invalid_exact_evm_missing_eip712_domain";
    /// The signature does not authorise the transfer.
    pub const SIGNATURE: &str = "invalid_exact_evm_signature";
    /// `authorization.to` is not `payTo`.
    pub const RECIPIENT_MISMATCH: &str = "invalid_exact_evm_recipient_mismatch";
    /// Expires too soon (or already expired).
    pub const VALID_BEFORE: &str = "invalid_exact_evm_payload_authorization_valid_before";
    /// Not yet valid.
    pub const VALID_AFTER: &str = "invalid_exact_evm_payload_authorization_valid_after";
    /// Value is not exactly the amount.
    pub const VALUE_MISMATCH: &str = "invalid_exact_evm_payload_authorization_value_mismatch";
    /// The asset has no code.
    pub const ASSET_NOT_DEPLOYED: &str = "asset_not_deployed_contract";
    /// The token lacks `authorizationState`.
    pub const EIP3009_NOT_SUPPORTED: &str = "invalid_exact_evm_eip3009_not_supported";
    /// The nonce was used or cancelled.
    pub const NONCE_ALREADY_USED: &str = "invalid_exact_evm_nonce_already_used";
    /// `name()` differs from `extra.name`.
    pub const TOKEN_NAME_MISMATCH: &str = "invalid_exact_evm_token_name_mismatch";
    /// `version()` differs from `extra.version`.
    pub const TOKEN_VERSION_MISMATCH: &str = "invalid_exact_evm_token_version_mismatch";
    /// The payer holds less than the amount.
    pub const INSUFFICIENT_BALANCE: &str = "invalid_exact_evm_insufficient_balance";
    /// The simulated transfer reverted for another reason.
    pub const SIMULATION_FAILED: &str = "invalid_exact_evm_transaction_simulation_failed";
    /// The settlement transaction failed or emitted the wrong event.
    pub const TRANSACTION_FAILED: &str = "invalid_exact_evm_transaction_failed";
    /// The receipt lacks the expected `Transfer`.
    pub const TRANSFER_EVENT_MISMATCH: &str = "invalid_exact_evm_transfer_event_mismatch";
    /// Confirmation could not be observed in time.
    pub const SETTLEMENT_PENDING: &str = "settlement_pending";
}

/// How far ahead of now `validBefore` must be, so the transfer still lands (reference: 6 s).
pub const VALID_BEFORE_MARGIN_SECONDS: u64 = 6;

/// A source of the current unix time, replaceable in tests.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Seconds since the unix epoch.
    fn now(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    }
}

#[cfg(feature = "facilitator")]
/// A payment that passed every check, with its parsed authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPayment {
    /// The parsed, verified authorization.
    pub signed: SignedAuthorization,
    /// The token contract.
    pub asset: Address,
}

#[cfg(feature = "facilitator")]
/// Verifies `exact` EIP-3009 payments for one chain.
#[derive(Debug, Clone)]
pub struct LocalVerifier {
    chain_id: u64,
    reader: Arc<dyn Eip3009Reader>,
    clock: Arc<dyn Clock>,
}

#[cfg(feature = "facilitator")]
type Verdict = Result<VerifiedPayment, VerifyResponse>;

#[cfg(feature = "facilitator")]
impl LocalVerifier {
    /// A verifier for `chain_id` reading through `reader`, on the system clock.
    pub fn new(chain_id: u64, reader: Arc<dyn Eip3009Reader>) -> Self {
        Self {
            chain_id,
            reader,
            clock: Arc::new(SystemClock),
        }
    }

    /// The same verifier on another clock.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The chain this verifier serves.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The chain reads behind this verifier.
    pub fn reader(&self) -> &Arc<dyn Eip3009Reader> {
        &self.reader
    }

    /// Verifies and answers in the facilitator's form. `Err` only when the chain could not be
    /// read, which must never be taken as a valid payment.
    pub async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, ChainError> {
        Ok(match self.check(payload, requirements, true).await? {
            Ok(verified) => {
                VerifyResponse::valid(verified.signed.authorization.from.to_checksum(None))
            }
            Err(invalid) => invalid,
        })
    }

    /// Runs every check; with `simulate` false the `eth_call` simulation is skipped (settlement
    /// re-verifies without it, as the transaction itself is the final check).
    pub async fn check(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
        simulate: bool,
    ) -> Result<Verdict, ChainError> {
        let signed = match self.check_offline(payload, requirements) {
            Ok(signed) => signed,
            Err(invalid) => return Ok(Err(invalid)),
        };
        let auth = &signed.authorization;
        let payer = Some(auth.from.to_checksum(None));
        let invalid = |reason: &str, message: String| {
            Ok(Err(VerifyResponse::invalid(reason, message, payer.clone())))
        };
        let asset: Address = match requirements.asset.parse() {
            Ok(asset) => asset,
            Err(_) => {
                return invalid(
                    reasons::INVALID_PAYLOAD,
                    "requirement asset is not an address".into(),
                );
            }
        };
        let (name, version) = match domain_of(requirements) {
            Some(domain) => domain,
            None => {
                return invalid(
                    reasons::MISSING_EIP712_DOMAIN,
                    "extra.name and extra.version are required".into(),
                );
            }
        };

        // 4. signature: ECDSA for 65 bytes, else (or on mismatch) ERC-1271 on a deployed wallet.
        let digest = authorization_digest(auth, &token_domain(name, version, self.chain_id, asset));
        if signed.recover_eoa(digest) != Some(auth.from) {
            let is_contract = self.reader.code_size(auth.from).await? > 0;
            let valid = is_contract
                && self
                    .reader
                    .erc1271_valid(auth.from, digest, &signed.signature)
                    .await?;
            if !valid {
                return invalid(
                    reasons::SIGNATURE,
                    "signature does not authorise this transfer for `from`".into(),
                );
            }
        }

        // 5-8. the authorization's own fields against the terms and the clock.
        let pay_to: Option<Address> = requirements.pay_to.parse().ok();
        if Some(auth.to) != pay_to {
            return invalid(
                reasons::RECIPIENT_MISMATCH,
                format!(
                    "authorization.to {} is not payTo {}",
                    auth.to, requirements.pay_to
                ),
            );
        }
        let now = self.clock.now();
        if auth.validBefore < U256::from(now + VALID_BEFORE_MARGIN_SECONDS) {
            return invalid(
                reasons::VALID_BEFORE,
                format!(
                    "validBefore {} is not at least {VALID_BEFORE_MARGIN_SECONDS} s after now ({now})",
                    auth.validBefore
                ),
            );
        }
        if auth.validAfter > U256::from(now) {
            return invalid(
                reasons::VALID_AFTER,
                format!(
                    "validAfter {} is in the future (now {now})",
                    auth.validAfter
                ),
            );
        }
        if auth.value.to_string() != requirements.amount {
            return invalid(
                reasons::VALUE_MISMATCH,
                format!(
                    "value {} is not the required amount {}",
                    auth.value, requirements.amount
                ),
            );
        }

        // 9-10. the chain: the asset exists and the transfer would go through.
        if self.reader.code_size(asset).await? == 0 {
            return invalid(
                reasons::ASSET_NOT_DEPLOYED,
                format!("no contract at asset {asset}"),
            );
        }
        if simulate {
            let probe = self.reader.probe_transfer(asset, &signed).await?;
            if !probe.simulation_ok {
                let (reason, message) = diagnose(&probe, name, version, auth.value);
                return invalid(reason, message);
            }
        }
        Ok(Ok(VerifiedPayment { signed, asset }))
    }

    /// Checks 1-3: version, scheme, network, payload type and parse, EIP-712 domain presence.
    fn check_offline(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SignedAuthorization, VerifyResponse> {
        let invalid =
            |reason: &str, message: &str| Err(VerifyResponse::invalid(reason, message, None));
        if payload.x402_version != X402_VERSION {
            return invalid(reasons::INVALID_X402_VERSION, "x402Version must be 2");
        }
        if payload.accepted.scheme != SCHEME_EXACT || requirements.scheme != SCHEME_EXACT {
            return invalid(reasons::SCHEME, "scheme must be exact");
        }
        let ours = caip2(self.chain_id);
        if payload.accepted.network != requirements.network || requirements.network != ours {
            return invalid(
                reasons::NETWORK_MISMATCH,
                &format!("network must be {ours}"),
            );
        }
        let has = |key: &str| payload.payload.get(key).is_some();
        if !has("authorization") {
            let kind = if has("permit2Authorization") {
                "permit2 payloads are not accepted"
            } else {
                "payload carries no authorization"
            };
            return invalid(reasons::UNSUPPORTED_PAYLOAD_TYPE, kind);
        }
        let signed = SignedAuthorization::from_payload_value(&payload.payload)
            .map_err(|e| VerifyResponse::invalid(reasons::INVALID_PAYLOAD, e.to_string(), None))?;
        if domain_of(requirements).is_none() {
            return invalid(
                reasons::MISSING_EIP712_DOMAIN,
                "extra.name and extra.version are required",
            );
        }
        Ok(signed)
    }
}

#[cfg(feature = "facilitator")]
fn domain_of(requirements: &PaymentRequirements) -> Option<(&str, &str)> {
    let extra = requirements.extra.as_ref()?;
    Some((
        extra.get("name").and_then(Value::as_str)?,
        extra.get("version").and_then(Value::as_str)?,
    ))
}

#[cfg(feature = "facilitator")]
/// Why a simulated transfer failed, refined in the reference order.
fn diagnose(
    probe: &crate::chain::TransferProbe,
    name: &str,
    version: &str,
    value: U256,
) -> (&'static str, String) {
    match probe.authorization_used {
        None => {
            return (
                reasons::EIP3009_NOT_SUPPORTED,
                "token has no authorizationState".into(),
            );
        }
        Some(true) => {
            return (
                reasons::NONCE_ALREADY_USED,
                "authorization nonce already used or cancelled".into(),
            );
        }
        Some(false) => {}
    }
    if probe.name.as_deref().is_some_and(|n| n != name) {
        return (
            reasons::TOKEN_NAME_MISMATCH,
            format!("token name is {:?}, not {name:?}", probe.name),
        );
    }
    if probe.version.as_deref().is_some_and(|v| v != version) {
        return (
            reasons::TOKEN_VERSION_MISMATCH,
            format!("token version is {:?}, not {version:?}", probe.version),
        );
    }
    if probe.balance.is_some_and(|balance| balance < value) {
        return (
            reasons::INSUFFICIENT_BALANCE,
            format!("balance {:?} is below {value}", probe.balance),
        );
    }
    (
        reasons::SIMULATION_FAILED,
        "transferWithAuthorization simulation reverted".into(),
    )
}

#[cfg(all(test, feature = "facilitator"))]
#[path = "verify_tests.rs"]
mod tests;
