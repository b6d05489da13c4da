//! Facilitators: who verifies a payment and settles it. [`HttpFacilitator`] talks to any x402
//! v2 facilitator over HTTP; [`LocalFacilitator`] verifies in-process and settles by sending
//! `transferWithAuthorization` itself.

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

use crate::chain::{IEip3009Token, RpcChain, transfer_call_data};
use crate::terms::{SCHEME_EXACT, caip2};
use crate::types::{
    FacilitatorRequest, PaymentPayload, PaymentRequirements, SettleResponse, SupportedKind,
    SupportedResponse, VerifyResponse, X402_VERSION,
};
use crate::verify::{LocalVerifier, reasons};

/// A facilitator could not give an answer; never to be read as "payment valid".
#[derive(Debug, thiserror::Error)]
pub enum FacilitatorError {
    /// Not reachable, timed out, or the chain behind it could not be read.
    #[error("facilitator unreachable: {0}")]
    Unreachable(String),
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
    /// Moves the funds. A `success: false` answer is a refusal, `Err` an outage.
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
            .map_err(|e| FacilitatorError::Unreachable(e.to_string()))?;
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
    async fn post_verdict<T: DeserializeOwned>(
        &self,
        path: &str,
        verdict_field: &str,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<T, FacilitatorError> {
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
            .map_err(|e| FacilitatorError::Unreachable(e.to_string()))?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|e| FacilitatorError::Unreachable(e.to_string()))?;
        let malformed = |detail: String| FacilitatorError::Malformed { status, detail };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|_| malformed(truncate(&text)))?;
        if !(200..300).contains(&status) && value.get(verdict_field).is_none() {
            return Err(malformed(truncate(&text)));
        }
        serde_json::from_value(value).map_err(|e| malformed(e.to_string()))
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(300).collect()
}

#[async_trait]
impl Facilitator for HttpFacilitator {
    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        self.post_verdict("verify", "isValid", payload, requirements)
            .await
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettleResponse, FacilitatorError> {
        self.post_verdict("settle", "success", payload, requirements)
            .await
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        let response = self
            .client
            .get(self.endpoint("supported")?)
            .send()
            .await
            .map_err(|e| FacilitatorError::Unreachable(e.to_string()))?;
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
                detail: e.to_string(),
            })
    }
}

/// Verifies with [`LocalVerifier`] and settles by submitting `transferWithAuthorization` from
/// its own key, then waits for the receipt and checks the `Transfer` event.
#[derive(Debug)]
pub struct LocalFacilitator {
    verifier: LocalVerifier,
    wallet: DynProvider,
    signer_address: Address,
    receipt_timeout: Duration,
    // One settlement transaction at a time, so nonces from the pending count never collide.
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
        let verifier = LocalVerifier::new(chain_id, Arc::new(RpcChain::new(reader, multicall3)));
        Self {
            verifier,
            wallet,
            signer_address,
            receipt_timeout,
            send_lock: Mutex::new(()),
        }
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
        let tx = TransactionRequest {
            to: Some(TxKind::Call(verified.asset)),
            input: transfer_call_data(&verified.signed).into(),
            ..Default::default()
        };
        let pending = {
            let _guard = self.send_lock.lock().await;
            match self.wallet.send_transaction(tx).await {
                Ok(pending) => pending,
                // A revert during gas estimation is the payment's fault; report it as such.
                Err(alloy::transports::RpcError::ErrorResp(e)) => {
                    return failed(reasons::TRANSACTION_FAILED, e.message.to_string());
                }
                Err(e) => return Err(FacilitatorError::Unreachable(e.to_string())),
            }
        };
        let hash = *pending.tx_hash();
        let receipt = match pending
            .with_timeout(Some(self.receipt_timeout))
            .get_receipt()
            .await
        {
            Ok(receipt) => receipt,
            Err(e) => {
                let mut response = SettleResponse::failed(
                    &network,
                    reasons::SETTLEMENT_PENDING,
                    format!("no receipt for {hash}: {e}"),
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
