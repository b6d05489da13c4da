//! Facilitators: who verifies a payment and settles it. [`HttpFacilitator`] talks to any x402
//! v2 facilitator over HTTP; [`LocalFacilitator`] verifies in-process and settles by sending
//! `transferWithAuthorization` itself.

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use alloy::network::EthereumWallet;
use alloy::primitives::{Address, TxKind};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::types::TransactionRequest;
use alloy::signers::local::PrivateKeySigner;
use async_trait::async_trait;
use serde::de::DeserializeOwned;
use tokio::sync::Mutex;

use crate::chain::{DEFAULT_RPC_TIMEOUT, IEip3009Token, RpcChain, transfer_call_data};
use crate::redact::scrub_text;
use crate::terms::{SCHEME_EXACT, caip2};
use crate::types::{
    FacilitatorRequest, PaymentPayload, PaymentRequirements, SettleResponse, SupportedKind,
    SupportedResponse, VerifyResponse, X402_VERSION,
};
use crate::verify::{LocalVerifier, reasons};

/// A facilitator could not give an answer; never to be read as "payment valid".
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FacilitatorError {
    /// Not reachable, timed out, or the chain behind it could not be read, at a point where
    /// nothing can have moved funds (for a settlement: before the request or transaction was
    /// sent).
    #[error("facilitator unreachable: {0}")]
    Unreachable(String),
    /// A settlement was sent (an HTTP `/settle` request went out, or `eth_sendRawTransaction`
    /// was called) but no verdict came back: a timeout, a dropped connection, a 5xx or an
    /// unreadable answer. The transfer may still land, so this must never be reported as
    /// "not charged", and the authorization must stay locked.
    #[error("settlement outcome unknown: {0}")]
    SettlementUnknown(String),
    /// It answered something that is not a verdict.
    #[error("facilitator answered malformed response (HTTP {status}): {detail}")]
    Malformed {
        /// HTTP status, or 0 for in-process facilitators.
        status: u16,
        /// What was wrong.
        detail: String,
    },
}

impl From<crate::chain::ChainError> for FacilitatorError {
    fn from(error: crate::chain::ChainError) -> Self {
        Self::Unreachable(error.0)
    }
}

/// Verifies and settles payments.
#[async_trait]
pub trait Facilitator: Send + Sync + std::fmt::Debug {
    /// Checks a payment without moving funds.
    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError>;
    /// Moves the funds. A `success: false` answer is a refusal, `Err` an outage:
    /// [`FacilitatorError::SettlementUnknown`] when the settlement may have gone out anyway.
    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettleResponse, FacilitatorError>;
    /// What the facilitator can settle.
    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError>;
}

/// Any x402 v2 facilitator at a base URL (`/verify`, `/settle`, `/supported`).
#[derive(Debug, Clone)]
pub struct HttpFacilitator {
    base: url::Url,
    client: reqwest::Client,
}

impl HttpFacilitator {
    /// A client for the facilitator at `base`, each call bounded by `timeout`.
    pub fn new(base: url::Url, timeout: Duration) -> Result<Self, FacilitatorError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .build()
            .map_err(|e| FacilitatorError::Unreachable(scrub_text(&e.to_string())))?;
        Ok(Self { base, client })
    }

    fn endpoint(&self, path: &str) -> Result<url::Url, FacilitatorError> {
        let mut base = self.base.clone();
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        base.join(path).map_err(|e| FacilitatorError::Malformed {
            status: 0,
            detail: e.to_string(),
        })
    }

    /// Posts a verify/settle body and reads the verdict, accepting both the 200 form and the
    /// non-2xx form that carries the verdict field (`isValid` / `success`), as x402-rs sends.
    ///
    /// For a settlement (`settling`), every failure after the request may have left the
    /// machine is [`FacilitatorError::SettlementUnknown`]: a timeout, a connection lost
    /// mid-answer, a 5xx or an unreadable 2xx. Only a failure to connect (nothing was sent) and
    /// a 4xx without a verdict (the facilitator refused the request itself) are known
    /// outcomes.
    async fn post_verdict<T: DeserializeOwned>(
        &self,
        path: &str,
        verdict_field: &str,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
        settling: bool,
    ) -> Result<T, FacilitatorError> {
        let after_sending = |detail: String| {
            if settling {
                FacilitatorError::SettlementUnknown(detail)
            } else {
                FacilitatorError::Unreachable(detail)
            }
        };
        let body = FacilitatorRequest {
            x402_version: X402_VERSION,
            payment_payload: payload.clone(),
            payment_requirements: requirements.clone(),
        };
        let response = self
            .client
            .post(self.endpoint(path)?)
            .json(&body)
            .send()
            .await
            .map_err(|e| {
                let detail = scrub_text(&e.to_string());
                if e.is_connect() || e.is_builder() {
                    FacilitatorError::Unreachable(detail)
                } else {
                    after_sending(detail)
                }
            })?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|e| after_sending(scrub_text(&e.to_string())))?;
        let malformed = |detail: String| {
            if settling && !(400..500).contains(&status) {
                FacilitatorError::SettlementUnknown(format!("HTTP {status}: {detail}"))
            } else {
                FacilitatorError::Malformed { status, detail }
            }
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|_| malformed(truncate(&text)))?;
        if !(200..300).contains(&status) && value.get(verdict_field).is_none() {
            return Err(malformed(truncate(&text)));
        }
        serde_json::from_value(value).map_err(|e| malformed(e.to_string()))
    }
}

/// The start of a facilitator's answer for an error text, scrubbed of URLs.
fn truncate(text: &str) -> String {
    scrub_text(&text.chars().take(300).collect::<String>())
}

#[async_trait]
impl Facilitator for HttpFacilitator {
    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        self.post_verdict("verify", "isValid", payload, requirements, false)
            .await
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettleResponse, FacilitatorError> {
        self.post_verdict("settle", "success", payload, requirements, true)
            .await
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        let response = self
            .client
            .get(self.endpoint("supported")?)
            .send()
            .await
            .map_err(|e| FacilitatorError::Unreachable(scrub_text(&e.to_string())))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(FacilitatorError::Malformed {
                status,
                detail: "GET /supported failed".into(),
            });
        }
        response
            .json()
            .await
            .map_err(|e| FacilitatorError::Malformed {
                status,
                detail: scrub_text(&e.to_string()),
            })
    }
}

/// Verifies with [`LocalVerifier`] and settles by submitting `transferWithAuthorization` from
/// its own key, then waits for the receipt and checks the `Transfer` event.
///
/// Every JSON-RPC call is bounded by the RPC timeout ([`DEFAULT_RPC_TIMEOUT`] unless set with
/// [`LocalFacilitator::with_rpc_timeout`]). Gas and fees are estimated before the send lock;
/// the lock covers only reading the settler's pending nonce and sending the transaction that
/// uses it, and the receipt is awaited outside it, so one slow settlement does not stall the
/// others for longer than one bounded send.
#[derive(Debug)]
pub struct LocalFacilitator {
    verifier: LocalVerifier,
    reader: DynProvider,
    multicall3: Address,
    wallet: DynProvider,
    signer_address: Address,
    receipt_timeout: Duration,
    rpc_timeout: Duration,
    // Nonce read and send, one settlement at a time, so nonces from the pending count never
    // collide.
    send_lock: Mutex<()>,
}

impl LocalFacilitator {
    /// A facilitator over the JSON-RPC at `rpc_url`, settling with `signer`.
    pub fn new(
        rpc_url: url::Url,
        chain_id: u64,
        signer: PrivateKeySigner,
        multicall3: Address,
        receipt_timeout: Duration,
    ) -> Self {
        let signer_address = signer.address();
        let reader = ProviderBuilder::new()
            .connect_http(rpc_url.clone())
            .erased();
        let wallet = ProviderBuilder::new()
            .wallet(EthereumWallet::from(signer))
            .with_chain_id(chain_id)
            .connect_http(rpc_url)
            .erased();
        let verifier = LocalVerifier::new(
            chain_id,
            Arc::new(RpcChain::new(reader.clone(), multicall3)),
        );
        Self {
            verifier,
            reader,
            multicall3,
            wallet,
            signer_address,
            receipt_timeout,
            rpc_timeout: DEFAULT_RPC_TIMEOUT,
            send_lock: Mutex::new(()),
        }
    }

    /// The same facilitator with every JSON-RPC call (verification reads included) bounded by
    /// `timeout`.
    pub fn with_rpc_timeout(mut self, timeout: Duration) -> Self {
        let chain_id = self.verifier.chain_id();
        self.verifier = LocalVerifier::new(
            chain_id,
            Arc::new(RpcChain::new(self.reader.clone(), self.multicall3).with_timeout(timeout)),
        );
        self.rpc_timeout = timeout;
        self
    }

    /// Runs one RPC call within the RPC timeout; `None` when it ran out.
    async fn within<T>(&self, call: impl IntoFuture<Output = T>) -> Option<T> {
        tokio::time::timeout(self.rpc_timeout, call).await.ok()
    }

    fn timed_out(&self, call: &str) -> String {
        format!(
            "{call}: no answer from the node within {} s",
            self.rpc_timeout.as_secs_f64()
        )
    }

    /// The verifier inside.
    pub fn verifier(&self) -> &LocalVerifier {
        &self.verifier
    }

    /// The address that pays gas for settlements.
    pub fn signer_address(&self) -> Address {
        self.signer_address
    }
}

#[async_trait]
impl Facilitator for LocalFacilitator {
    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        Ok(self.verifier.verify(payload, requirements).await?)
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettleResponse, FacilitatorError> {
        let network = caip2(self.verifier.chain_id());
        let verified = match self.verifier.check(payload, requirements, false).await? {
            Ok(verified) => verified,
            Err(invalid) => {
                let reason = invalid
                    .invalid_reason
                    .unwrap_or_else(|| reasons::INVALID_PAYLOAD.into());
                let message = invalid.invalid_message.unwrap_or_default();
                return Ok(SettleResponse::failed(
                    &network,
                    &reason,
                    message,
                    invalid.payer,
                ));
            }
        };
        let auth = verified.signed.authorization.clone();
        let payer = Some(auth.from.to_checksum(None));
        let failed = |reason: &str, message: String| {
            Ok(SettleResponse::failed(
                &network,
                reason,
                message,
                payer.clone(),
            ))
        };
        let unreachable =
            |e: &dyn std::fmt::Display| FacilitatorError::Unreachable(scrub_text(&e.to_string()));
        let mut tx = TransactionRequest {
            from: Some(self.signer_address),
            to: Some(TxKind::Call(verified.asset)),
            input: transfer_call_data(&verified.signed).into(),
            ..Default::default()
        };
        // Gas and fees do not depend on the nonce: estimated before the lock. Nothing has been
        // sent yet, so every failure here is a known "not charged".
        match self.within(self.wallet.estimate_gas(tx.clone())).await {
            Some(Ok(gas)) => tx.gas = Some(gas),
            // A revert during gas estimation is the payment's fault; report it as such.
            Some(Err(alloy::transports::RpcError::ErrorResp(e))) => {
                return failed(reasons::TRANSACTION_FAILED, scrub_text(&e.message));
            }
            Some(Err(e)) => return Err(unreachable(&e)),
            None => {
                return Err(FacilitatorError::Unreachable(
                    self.timed_out("eth_estimateGas"),
                ));
            }
        }
        match self.within(self.wallet.estimate_eip1559_fees()).await {
            Some(Ok(fees)) => {
                tx.max_fee_per_gas = Some(fees.max_fee_per_gas);
                tx.max_priority_fee_per_gas = Some(fees.max_priority_fee_per_gas);
            }
            Some(Err(e)) => return Err(unreachable(&e)),
            None => {
                return Err(FacilitatorError::Unreachable(
                    self.timed_out("fee estimation"),
                ));
            }
        }
        let pending = {
            let _guard = self.send_lock.lock().await;
            let count = self
                .wallet
                .get_transaction_count(self.signer_address)
                .pending();
            match self.within(count).await {
                Some(Ok(nonce)) => tx.nonce = Some(nonce),
                Some(Err(e)) => return Err(unreachable(&e)),
                None => {
                    return Err(FacilitatorError::Unreachable(
                        self.timed_out("eth_getTransactionCount"),
                    ));
                }
            }
            // Every field is filled, so this only signs and calls eth_sendRawTransaction: from
            // here on a failure may have broadcast the transfer.
            match self.within(self.wallet.send_transaction(tx)).await {
                Some(Ok(pending)) => pending,
                // The node answered with an error: it did not take the transaction.
                Some(Err(alloy::transports::RpcError::ErrorResp(e))) => {
                    return failed(reasons::TRANSACTION_FAILED, scrub_text(&e.message));
                }
                Some(Err(e)) => {
                    return Err(FacilitatorError::SettlementUnknown(scrub_text(
                        &e.to_string(),
                    )));
                }
                None => {
                    return Err(FacilitatorError::SettlementUnknown(
                        self.timed_out("eth_sendRawTransaction"),
                    ));
                }
            }
        };
        let hash = *pending.tx_hash();
        let receipt_wait = pending
            .with_timeout(Some(self.receipt_timeout))
            .get_receipt();
        // The receipt poll is bounded by alloy's own timeout; the outer one also covers a poll
        // call that hangs.
        let receipt =
            match tokio::time::timeout(self.receipt_timeout + self.rpc_timeout, receipt_wait).await
            {
                Ok(Ok(receipt)) => receipt,
                outcome => {
                    let detail = match outcome {
                        Ok(Err(e)) => scrub_text(&e.to_string()),
                        _ => "timed out".to_owned(),
                    };
                    let mut response = SettleResponse::failed(
                        &network,
                        reasons::SETTLEMENT_PENDING,
                        format!("no receipt for {hash}: {detail}"),
                        payer.clone(),
                    );
                    response.transaction = hash.to_string();
                    return Ok(response);
                }
            };
        if !receipt.status() {
            let mut response = SettleResponse::failed(
                &network,
                reasons::TRANSACTION_FAILED,
                "settlement transaction reverted",
                payer.clone(),
            );
            response.transaction = hash.to_string();
            return Ok(response);
        }
        let transferred = receipt.inner.logs().iter().any(|log| {
            log.address() == verified.asset
                && log
                    .log_decode::<IEip3009Token::Transfer>()
                    .is_ok_and(|event| {
                        let event = event.inner.data;
                        event.from == auth.from && event.to == auth.to && event.value == auth.value
                    })
        });
        if !transferred {
            return failed(
                reasons::TRANSFER_EVENT_MISMATCH,
                format!("transaction {hash} has no matching Transfer event"),
            );
        }
        Ok(SettleResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer,
            transaction: hash.to_string(),
            network,
            extensions: None,
        })
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        Ok(SupportedResponse {
            kinds: vec![SupportedKind {
                x402_version: X402_VERSION,
                scheme: SCHEME_EXACT.to_owned(),
                network: caip2(self.verifier.chain_id()),
                extra: None,
            }],
            extensions: Vec::new(),
            signers: [(
                "eip155:*".to_owned(),
                vec![self.signer_address.to_checksum(None)],
            )]
            .into_iter()
            .collect(),
        })
    }
}
