//! JSON-RPC over alloy's HTTP provider: several URLs per chain, a timeout per call, and
//! idempotent reads retried on the next URL, with every failure turned into a
//! [`ChainReadError`].

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use alloy::eips::BlockId;
use alloy::primitives::{Address, Bytes, U128};
use alloy::providers::{Provider, RootProvider};
use alloy::rpc::client::RpcClient;
use alloy::rpc::json_rpc::{RequestPacket, ResponsePacket};
use alloy::rpc::types::{Filter, Log, TransactionRequest};
use alloy::transports::{
    RpcError, TransportError, TransportErrorKind, TransportFut, TransportResult,
};

use crate::error::{ChainReadError, GasPriceError};

/// How a [`ChainClient`] talks to its endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest wait for one answer from one endpoint; the next endpoint is tried after it.
    pub timeout: Duration,
    /// Largest answer read from one endpoint, bytes: a node answering more is treated as
    /// unreachable (the next endpoint is tried) instead of being buffered whole.
    pub max_response_bytes: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        // Three sequential round trips must fit in the analytics time budget (20 s) with room
        // for one retry.
        Self {
            timeout: Duration::from_secs(6),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }
}

/// The default of [`ClientOptions::max_response_bytes`]: far above any answer the service
/// asks for (a Multicall3 batch or a log page of a few MB), far below what would hurt.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// alloy's HTTP transport reading at most `max_bytes` of an answer (alloy's own reads the
/// whole body, however large).
#[derive(Debug, Clone)]
struct CappedHttp {
    client: reqwest::Client,
    url: url::Url,
    max_bytes: usize,
}

impl CappedHttp {
    async fn send(self, request: RequestPacket) -> TransportResult<ResponsePacket> {
        let too_large = || {
            TransportErrorKind::custom_str(&format!(
                "the answer is larger than {} bytes",
                self.max_bytes
            ))
        };
        let mut response = self
            .client
            .post(self.url.clone())
            .json(&request)
            .headers(request.headers())
            .send()
            .await
            .map_err(TransportErrorKind::custom)?;
        let status = response.status();
        if response
            .content_length()
            .is_some_and(|length| length > self.max_bytes as u64)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(TransportErrorKind::custom)? {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            // As alloy's own transport: a JSON-RPC error in an error status is that error
            // (a revert stays a revert), anything else the status.
            if let Ok(packet) = serde_json::from_slice::<ResponsePacket>(&body)
                && packet.is_error()
            {
                return Ok(packet);
            }
            return Err(TransportErrorKind::http_error(
                status.as_u16(),
                String::from_utf8_lossy(&body).into_owned(),
            ));
        }
        serde_json::from_slice(&body)
            .map_err(|err| TransportError::deser_err(err, String::from_utf8_lossy(&body)))
    }
}

impl tower::Service<RequestPacket> for CappedHttp {
    type Response = ResponsePacket;
    type Error = TransportError;
    type Future = TransportFut<'static>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: RequestPacket) -> Self::Future {
        Box::pin(self.clone().send(request))
    }
}

/// JSON-RPC access to one chain through one or more endpoints, tried in order.
///
/// Every method is a read, so a failure that another node might not have (unreachable, timeout,
/// HTTP error, rate limit, unknown block) moves on to the next URL; a revert does not.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct ChainClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    endpoints: Vec<Endpoint>,
    options: ClientOptions,
}

#[derive(Debug)]
struct Endpoint {
    /// `host:port`, safe to print (the path or query of a URL may carry an API key).
    label: String,
    /// The full URL, scrubbed from transport error texts.
    url: String,
    provider: RootProvider,
}

impl ChainClient {
    /// A client over `urls`, tried in the given order.
    pub fn new<I, S>(urls: I, options: ClientOptions) -> Result<Self, ChainReadError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| ChainReadError::InvalidConfig(format!("HTTP client: {e}")))?;
        let endpoints = urls
            .into_iter()
            .map(|text| {
                let url: url::Url = text.as_ref().parse().map_err(|e| {
                    ChainReadError::InvalidConfig(format!("RPC URL is not a URL: {e}"))
                })?;
                let label = match (url.host_str(), url.port_or_known_default()) {
                    (Some(host), Some(port)) => format!("{host}:{port}"),
                    (Some(host), None) => host.to_owned(),
                    _ => url.scheme().to_owned(),
                };
                let is_local = alloy::transports::utils::guess_local_url(url.as_str());
                let transport = CappedHttp {
                    client: client.clone(),
                    url: url.clone(),
                    max_bytes: options.max_response_bytes,
                };
                Ok(Endpoint {
                    label,
                    url: url.to_string(),
                    provider: RootProvider::new(RpcClient::new(transport, is_local)),
                })
            })
            .collect::<Result<Vec<_>, ChainReadError>>()?;
        if endpoints.is_empty() {
            return Err(ChainReadError::InvalidConfig(
                "no RPC URL configured".to_owned(),
            ));
        }
        Ok(Self {
            inner: Arc::new(Inner { endpoints, options }),
        })
    }

    /// The endpoints as `host:port`, in the order they are tried.
    pub fn endpoints(&self) -> Vec<&str> {
        self.inner
            .endpoints
            .iter()
            .map(|e| e.label.as_str())
            .collect()
    }

    /// The options in force.
    pub fn options(&self) -> ClientOptions {
        self.inner.options
    }

    /// `eth_blockNumber`.
    pub async fn block_number(&self) -> Result<u64, ChainReadError> {
        self.read(None, |p| p.get_block_number()).await
    }

    /// The timestamp of block `number` (`eth_getBlockByNumber` without transactions), Unix
    /// seconds; a block the node does not have is [`ChainReadError::Decode`].
    pub async fn block_timestamp(&self, number: u64) -> Result<u64, ChainReadError> {
        let block = self
            .read(None, |provider| {
                let provider = provider.clone();
                async move { provider.get_block_by_number(number.into()).await }
            })
            .await?;
        block
            .map(|block| block.header.timestamp)
            .ok_or_else(|| ChainReadError::Decode(format!("block {number} not found")))
    }

    /// `eth_chainId`.
    pub async fn chain_id(&self) -> Result<u64, ChainReadError> {
        self.read(None, |p| p.get_chain_id()).await
    }

    /// `eth_gasPrice`, in wei.
    pub async fn gas_price(&self) -> Result<u128, ChainReadError> {
        self.gas_price_counted(None).await
    }

    pub(crate) async fn gas_price_counted(
        &self,
        round_trips: Option<&AtomicU32>,
    ) -> Result<u128, ChainReadError> {
        self.read(round_trips, |p| p.get_gas_price()).await
    }

    /// `eth_getLogs` with `filter`, with the same failover, timeout and error kinds as every
    /// other read. A node that refuses the range (too many blocks or results) answers
    /// [`ChainReadError::Rpc`]; [`crate::logs::scan_logs`] splits the range on it.
    pub async fn get_logs(&self, filter: &Filter) -> Result<Vec<Log>, ChainReadError> {
        self.get_logs_counted(filter, None).await
    }

    /// [`get_logs`](Self::get_logs), adding one to `round_trips` for every HTTP request sent.
    pub(crate) async fn get_logs_counted(
        &self,
        filter: &Filter,
        round_trips: Option<&AtomicU32>,
    ) -> Result<Vec<Log>, ChainReadError> {
        self.read(round_trips, |provider| {
            // The provider's future borrows it: an owned clone (an Arc) keeps it 'static.
            let provider = provider.clone();
            let filter = filter.clone();
            async move { provider.get_logs(&filter).await }
        })
        .await
    }

    /// The signer of transaction `hash` (`eth_getTransactionByHash`), adding one to
    /// `round_trips` per HTTP request; a transaction the node does not have is
    /// [`ChainReadError::Decode`].
    pub async fn transaction_sender(
        &self,
        hash: alloy::primitives::B256,
        round_trips: Option<&AtomicU32>,
    ) -> Result<Address, ChainReadError> {
        let transaction = self
            .read(round_trips, |provider| {
                let provider = provider.clone();
                async move { provider.get_transaction_by_hash(hash).await }
            })
            .await?;
        transaction
            .map(|tx| alloy::network::TransactionResponse::from(&tx))
            .ok_or_else(|| ChainReadError::Decode(format!("transaction {hash} not found")))
    }

    /// `eth_call` of `data` on `to` at `block`.
    pub async fn call(
        &self,
        to: Address,
        data: Bytes,
        block: BlockId,
    ) -> Result<Bytes, ChainReadError> {
        self.call_counted(to, data, block, None).await
    }

    /// [`call`](Self::call), adding one to `round_trips` for every HTTP request sent (retries
    /// included).
    pub(crate) async fn call_counted(
        &self,
        to: Address,
        data: Bytes,
        block: BlockId,
        round_trips: Option<&AtomicU32>,
    ) -> Result<Bytes, ChainReadError> {
        let request = TransactionRequest::default().to(to).input(data.into());
        self.read(round_trips, |p| p.call(request.clone()).block(block))
            .await
    }

    /// [`call_counted`](Self::call_counted) and `eth_gasPrice` in one HTTP request (a
    /// JSON-RPC batch), so the gas price costs no round trip of its own. The call decides the
    /// outcome; a gas price the node refused is returned as its error text next to the data.
    pub(crate) async fn call_with_gas_price_counted(
        &self,
        to: Address,
        data: Bytes,
        block: BlockId,
        round_trips: Option<&AtomicU32>,
        logs: &[Filter],
    ) -> Result<BatchedCall, ChainReadError> {
        let request = TransactionRequest::default().to(to).input(data.into());
        self.read(round_trips, |provider| {
            let client = provider.client();
            let mut batch = alloy::rpc::client::BatchRequest::new(client);
            let prepared = batch
                .add_call::<_, Bytes>("eth_call", &(request.clone(), block))
                .and_then(|call| {
                    let no_params: [(); 0] = [];
                    let gas_price = batch.add_call::<_, U128>("eth_gasPrice", &no_params)?;
                    let logs = logs
                        .iter()
                        .map(|filter| batch.add_call::<_, Vec<Log>>("eth_getLogs", &(filter,)))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((call, gas_price, logs))
                });
            let sent = batch.send();
            async move {
                let (call, gas_price, logs) = prepared?;
                sent.await?;
                batched_answers(call.await?, gas_price, logs).await
            }
        })
        .await
    }

    /// `eth_call` of `data` on `to` at `block` with `code` placed at `to` for this call only
    /// (a state override) and `gas` to spend (a node may cap it lower), and `eth_gasPrice`, in one HTTP request (a JSON-RPC batch); one
    /// round trip per request sent. A node that does not take state overrides answers a
    /// JSON-RPC error ([`ChainReadError::Rpc`]).
    // The call's four parts, its block, the counter and the ridden-along logs filters.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn call_with_code_and_gas_price_counted(
        &self,
        to: Address,
        code: Bytes,
        data: Bytes,
        gas: u64,
        block: BlockId,
        round_trips: Option<&AtomicU32>,
        logs: &[Filter],
    ) -> Result<BatchedCall, ChainReadError> {
        let request = TransactionRequest::default()
            .to(to)
            .input(data.into())
            .gas_limit(gas);
        let overrides = alloy::rpc::types::state::StateOverridesBuilder::default()
            .with_code(to, code)
            .build();
        self.read(round_trips, |provider| {
            let client = provider.client();
            let mut batch = alloy::rpc::client::BatchRequest::new(client);
            let prepared = batch
                .add_call::<_, Bytes>("eth_call", &(request.clone(), block, overrides.clone()))
                .and_then(|call| {
                    let no_params: [(); 0] = [];
                    let gas_price = batch.add_call::<_, U128>("eth_gasPrice", &no_params)?;
                    let logs = logs
                        .iter()
                        .map(|filter| batch.add_call::<_, Vec<Log>>("eth_getLogs", &(filter,)))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((call, gas_price, logs))
                });
            let sent = batch.send();
            async move {
                let (call, gas_price, logs) = prepared?;
                sent.await?;
                batched_answers(call.await?, gas_price, logs).await
            }
        })
        .await
    }

    async fn read<T, F, Fut>(
        &self,
        round_trips: Option<&AtomicU32>,
        op: F,
    ) -> Result<T, ChainReadError>
    where
        F: Fn(&RootProvider) -> Fut,
        Fut: IntoFuture<Output = Result<T, RpcError<TransportErrorKind>>>,
    {
        let timeout = self.inner.options.timeout;
        let mut last = None;
        for endpoint in &self.inner.endpoints {
            if let Some(counter) = round_trips {
                counter.fetch_add(1, Ordering::Relaxed);
            }
            let error =
                match tokio::time::timeout(timeout, op(&endpoint.provider).into_future()).await {
                    Ok(Ok(value)) => return Ok(value),
                    Ok(Err(error)) => classify(endpoint, error),
                    Err(_) => ChainReadError::Timeout {
                        endpoint: endpoint.label.clone(),
                        after: timeout,
                    },
                };
            if !error.is_retryable() {
                return Err(error);
            }
            tracing::debug!(endpoint = %endpoint.label, %error, "RPC read failed, trying the next endpoint");
            last = Some(error);
        }
        Err(last.unwrap_or_else(|| ChainReadError::InvalidConfig("no RPC URL configured".into())))
    }
}

/// An `eth_call`'s answer, the `eth_gasPrice` beside it, and each `eth_getLogs` that rode
/// along, in the order of their filters (their own failures kept apart: they never fail the
/// call).
pub(crate) type BatchedCall = (
    Bytes,
    Result<u128, GasPriceError>,
    Vec<Result<Vec<Log>, String>>,
);

async fn batched_answers(
    data: Bytes,
    gas_price: alloy::rpc::client::Waiter<U128>,
    logs: Vec<alloy::rpc::client::Waiter<Vec<Log>>>,
) -> Result<BatchedCall, RpcError<TransportErrorKind>> {
    let gas_price = gas_price
        .await
        .map(|price| price.to::<u128>())
        .map_err(|e| GasPriceError(e.to_string()));
    let mut answers = Vec::with_capacity(logs.len());
    for waiter in logs {
        answers.push(waiter.await.map_err(|e| e.to_string()));
    }
    Ok((data, gas_price, answers))
}

/// Sorts an alloy error into the crate's kinds: reverts are final, whatever another node might
/// answer differently is retryable.
fn classify(endpoint: &Endpoint, error: RpcError<TransportErrorKind>) -> ChainReadError {
    let scrub = |text: String| {
        text.replace(&endpoint.url, &endpoint.label)
            .replace(endpoint.url.trim_end_matches('/'), &endpoint.label)
    };
    match error {
        RpcError::ErrorResp(payload) => {
            // Geth-style nodes and anvil answer a revert with code 3; some older nodes only
            // say so in the message.
            if payload.code == 3 || payload.message.to_ascii_lowercase().contains("revert") {
                let data = payload.as_revert_data().unwrap_or_default();
                let reason = revert_reason(&data).or_else(|| {
                    payload
                        .message
                        .split_once(": ")
                        .map(|(_, reason)| reason.to_owned())
                });
                ChainReadError::Reverted { reason, data }
            } else {
                ChainReadError::Rpc {
                    endpoint: endpoint.label.clone(),
                    code: payload.code,
                    message: scrub(payload.message.into_owned()),
                }
            }
        }
        RpcError::Transport(kind) => ChainReadError::Unreachable {
            endpoint: endpoint.label.clone(),
            reason: scrub(match kind {
                TransportErrorKind::HttpError(http) => format!("HTTP status {}", http.status),
                TransportErrorKind::HttpErrorWithRetryAfter { error, .. } => {
                    format!("HTTP status {}", error.status)
                }
                other => with_sources(&other),
            }),
        },
        // A node that answers something other than JSON-RPC is as good as unreachable.
        RpcError::DeserError { err, .. } => ChainReadError::Unreachable {
            endpoint: endpoint.label.clone(),
            reason: format!("malformed JSON-RPC answer: {err}"),
        },
        RpcError::NullResp => ChainReadError::Unreachable {
            endpoint: endpoint.label.clone(),
            reason: "null answer".to_owned(),
        },
        other => ChainReadError::Decode(scrub(other.to_string())),
    }
}

/// An error and its causes, `outer: inner: root` (reqwest's top message alone hides whether
/// the connection was refused, reset or timed out).
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The human reason of revert data: `Error(string)`, `Panic(uint256)` or a raw string; `None`
/// for empty data or an undecodable custom error.
pub(crate) fn revert_reason(data: &[u8]) -> Option<String> {
    let reason = alloy::sol_types::decode_revert_reason(data)?;
    Some(
        reason
            .strip_prefix("revert: ")
            .map(str::to_owned)
            .unwrap_or(reason),
    )
}
