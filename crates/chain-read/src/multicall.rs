//! Multicall3 `aggregate3` batches with per-call failure, and the [`PinnedReader`] that runs
//! every batch of one request at one block.
//!
//! A [`Batch`] collects typed calls and hands back a [`Slot`] per call; the
//! [`BatchResults`] decode each slot into the call's return type or a [`CallFailure`] that
//! says why (revert reason, no contract, undecodable data). One failing call never fails the
//! batch (`allowFailure: true` on every call), which is also how non-view calls such as
//! QuoterV2's are read.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use alloy::eips::BlockId;
use alloy::primitives::{Address, Bytes, U256};
use alloy::sol_types::SolCall;

use alloy::rpc::types::{Filter, Log};

use crate::bindings::IMulticall3;
use crate::client::{BatchedCall, ChainClient, revert_reason};
use crate::dex::v4_index::{Refresh, V4PoolIndex};
use crate::error::{ChainReadError, GasPriceError};
use crate::registry::ChainInfo;

/// Calls to send together in one `aggregate3`.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    calls: Vec<IMulticall3::Call3>,
}

/// Where one call's result will be in the [`BatchResults`] of its batch.
pub struct Slot<C> {
    index: usize,
    call: PhantomData<fn() -> C>,
}

impl<C> Clone for Slot<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Slot<C> {}

impl<C> fmt::Debug for Slot<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Slot({})", self.index)
    }
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `call` on `target`; its result will be at the returned slot.
    pub fn add<C: SolCall>(&mut self, target: Address, call: &C) -> Slot<C> {
        self.calls.push(IMulticall3::Call3 {
            target,
            allowFailure: true,
            callData: call.abi_encode().into(),
        });
        Slot {
            index: self.calls.len() - 1,
            call: PhantomData,
        }
    }

    /// Number of calls.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether the batch holds no call (executing it costs no round trip).
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Every call's target and calldata, in order.
    pub fn calls(&self) -> impl Iterator<Item = (Address, &Bytes)> {
        self.calls.iter().map(|call| (call.target, &call.callData))
    }
}

/// Why one call of a batch has no usable result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFailure {
    /// The call reverted.
    Reverted {
        /// `Error(string)` / `Panic(uint256)` reason, if the data holds one.
        reason: Option<String>,
        /// Raw revert data.
        data: Bytes,
    },
    /// The call succeeded with no return data: nothing is deployed at the address.
    NoContract,
    /// The return data does not match the expected ABI.
    Decode(String),
}

impl fmt::Display for CallFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reverted {
                reason: Some(reason),
                ..
            } => write!(f, "call reverted: {reason}"),
            Self::Reverted { data, .. } if data.len() >= 4 => {
                write!(
                    f,
                    "call reverted with custom error {}",
                    alloy::hex::encode_prefixed(&data[..4])
                )
            }
            Self::Reverted { .. } => f.write_str("call reverted without a reason"),
            Self::NoContract => f.write_str("no contract at the address (empty answer)"),
            Self::Decode(message) => write!(f, "undecodable answer: {message}"),
        }
    }
}

impl std::error::Error for CallFailure {}

/// The results of one executed [`Batch`], read at [`block_number`](Self::block_number).
#[derive(Debug, Clone)]
pub struct BatchResults {
    block_number: u64,
    results: Vec<IMulticall3::Result>,
}

impl BatchResults {
    /// The block every call of the batch was read at.
    pub fn block_number(&self) -> u64 {
        self.block_number
    }

    /// Number of results (equal to the batch's calls).
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// Whether there are no results.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// The raw return data of a successful, non-empty answer.
    pub fn raw<C>(&self, slot: Slot<C>) -> Result<&Bytes, CallFailure> {
        let result = self
            .results
            .get(slot.index)
            .ok_or_else(|| CallFailure::Decode(format!("no result #{} in batch", slot.index)))?;
        if !result.success {
            return Err(CallFailure::Reverted {
                reason: revert_reason(&result.returnData),
                data: result.returnData.clone(),
            });
        }
        if result.returnData.is_empty() {
            return Err(CallFailure::NoContract);
        }
        Ok(&result.returnData)
    }

    /// The decoded answer of one call.
    pub fn get<C: SolCall>(&self, slot: Slot<C>) -> Result<C::Return, CallFailure> {
        let data = self.raw(slot)?;
        C::abi_decode_returns(data).map_err(|e| CallFailure::Decode(e.to_string()))
    }
}

/// The block one request reads at, as Multicall3 saw it in the first batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockPin {
    /// Block number.
    pub number: u64,
    /// Block timestamp, Unix seconds.
    pub timestamp: u64,
    /// Chain id the endpoint serves.
    pub chain_id: u64,
}

/// How a [`PinnedReader`] sizes its `eth_call`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderOptions {
    /// Most calls in one `aggregate3`; larger batches are split into chunks sent concurrently
    /// (each chunk is one more request). Keeps every `eth_call` under node gas and size caps.
    pub max_calls_per_batch: usize,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        Self {
            max_calls_per_batch: 200,
        }
    }
}

/// Answers of calls run ahead of a read, by target and calldata: the quote lens runs every
/// call of a `/dex/quote` read in one `eth_call`, and a [`PinnedReader::replay`] answers the
/// read's batches from them. A call the read asks for that was not run is an error
/// ([`ChainReadError::NotRecorded`]), never a guess.
#[derive(Debug, Clone, Default)]
pub struct RecordedCalls {
    /// Every answer of a call, in the order it was run (a call run twice may answer twice
    /// differently: a quoter's gas measurement after the pool was warmed).
    answers: HashMap<(Address, Bytes), Vec<IMulticall3::Result>>,
    gas_price: Option<Result<u128, GasPriceError>>,
}

impl RecordedCalls {
    /// No answers yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the answer of `data` sent to `target`.
    pub fn insert(&mut self, target: Address, data: Bytes, success: bool, answer: Bytes) {
        self.answers
            .entry((target, data))
            .or_default()
            .push(IMulticall3::Result {
                success,
                returnData: answer,
            });
    }

    /// Records the node's `eth_gasPrice` answer of the same request.
    pub fn set_gas_price(&mut self, gas_price: Result<u128, GasPriceError>) {
        self.gas_price = Some(gas_price);
    }

    /// Number of answers recorded.
    pub fn len(&self) -> usize {
        self.answers.values().map(Vec::len).sum()
    }

    /// Whether no call is recorded.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The answers of a batch: the n-th time a batch holds a call, its n-th recorded answer
    /// (the last one past those).
    fn answer(
        &self,
        calls: &[IMulticall3::Call3],
    ) -> Result<Vec<IMulticall3::Result>, ChainReadError> {
        let mut seen: HashMap<(Address, &Bytes), usize> = HashMap::new();
        calls
            .iter()
            .map(|call| {
                let missing = || ChainReadError::NotRecorded {
                    target: call.target,
                };
                let answers = self
                    .answers
                    .get(&(call.target, call.callData.clone()))
                    .ok_or_else(missing)?;
                let occurrence = seen.entry((call.target, &call.callData)).or_default();
                let answer = answers
                    .get(*occurrence)
                    .or_else(|| answers.last())
                    .cloned()
                    .ok_or_else(missing)?;
                *occurrence += 1;
                Ok(answer)
            })
            .collect()
    }

    fn gas_price(&self) -> Result<u128, GasPriceError> {
        self.gas_price
            .clone()
            .unwrap_or_else(|| Err(GasPriceError("no gas price was read ahead".to_owned())))
    }
}

/// Reads for one request, all at one block.
///
/// The first [`execute`](Self::execute) runs at `latest` and carries Multicall3's
/// `getBlockNumber()`, `getCurrentBlockTimestamp()` and `getChainId()`; every later batch is an
/// `eth_call` at that block number, so an answer never mixes two states. Every HTTP request
/// sent (retries and chunks included) counts as one round trip.
#[derive(Debug)]
pub struct PinnedReader {
    client: ChainClient,
    multicall3: Address,
    expected_chain_id: Option<u64>,
    options: ReaderOptions,
    pin: OnceLock<BlockPin>,
    pinning: tokio::sync::Mutex<()>,
    round_trips: AtomicU32,
    /// Answers every batch from calls run ahead instead of the node.
    replay: Option<RecordedCalls>,
    /// The chain's V4 pool index and its PoolManager: the next `Initialize` range rides
    /// along with this reader's lens call or pinning batch.
    v4_index: Option<(V4PoolIndex, Address)>,
    /// `eth_getLogs` queries asked to ride along with the next request
    /// ([`Self::logs_with_next_request`]).
    riders: std::sync::Mutex<Vec<Rider>>,
}

/// A log query waiting for a request to ride along with, and where its answer goes.
#[derive(Debug)]
struct Rider {
    filter: Filter,
    answer: tokio::sync::oneshot::Sender<Result<Vec<Log>, String>>,
}

/// The answer of an `eth_getLogs` that rides along with a reader's next request
/// ([`PinnedReader::logs_with_next_request`]).
#[derive(Debug)]
pub struct RiddenLogs(tokio::sync::oneshot::Receiver<Result<Vec<Log>, String>>);

impl RiddenLogs {
    /// The logs, or the node's refusal (its error text); `None` while no request has carried
    /// the query yet.
    pub fn take(&mut self) -> Option<Result<Vec<Log>, String>> {
        match self.0.try_recv() {
            Ok(answer) => Some(answer),
            Err(tokio::sync::oneshot::error::TryRecvError::Empty) => None,
            Err(tokio::sync::oneshot::error::TryRecvError::Closed) => Some(Err(
                "the reader was dropped before sending the query".to_owned(),
            )),
        }
    }
}

/// Calls prepended to the first batch.
const PIN_CALLS: usize = 3;

impl PinnedReader {
    /// A reader through `client`, batching with the Multicall3 at `multicall3`.
    pub fn new(client: ChainClient, multicall3: Address) -> Self {
        Self {
            client,
            multicall3,
            expected_chain_id: None,
            options: ReaderOptions::default(),
            pin: OnceLock::new(),
            pinning: tokio::sync::Mutex::new(()),
            round_trips: AtomicU32::new(0),
            replay: None,
            v4_index: None,
            riders: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// A reader of the same chain that answers every batch from `recorded` (its round trips
    /// stay 0): the read composes its batches as usual, and every call must have been run
    /// ahead. The pin comes from the recorded Multicall3 block calls, so the recorded calls
    /// must have been run at one block.
    pub fn replay(&self, recorded: RecordedCalls) -> Self {
        Self {
            client: self.client.clone(),
            multicall3: self.multicall3,
            expected_chain_id: self.expected_chain_id,
            options: self.options,
            pin: OnceLock::new(),
            pinning: tokio::sync::Mutex::new(()),
            round_trips: AtomicU32::new(0),
            replay: Some(recorded),
            v4_index: None,
            riders: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Sends `eth_getLogs` with `filter` in the same HTTP request (a JSON-RPC batch) as this
    /// reader's next lens call or pinning batch, so it costs no round trip of its own. A
    /// request the node refuses as a JSON-RPC error (a state override it does not take) hands
    /// the query on to the request after it; one that fails as a whole is sent again without
    /// it, and the query answers that failure. A replaying reader sends nothing: its queries
    /// wait.
    pub fn logs_with_next_request(&self, filter: Filter) -> RiddenLogs {
        let (answer, receiver) = tokio::sync::oneshot::channel();
        self.lock_riders().push(Rider { filter, answer });
        RiddenLogs(receiver)
    }

    fn lock_riders(&self) -> std::sync::MutexGuard<'_, Vec<Rider>> {
        // A panic while the lock was held leaves a list of queries, never a broken one.
        self.riders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn has_riders(&self) -> bool {
        !self.lock_riders().is_empty()
    }

    /// Pins the reader to `pin` when no batch has pinned it yet (a read that continues one
    /// made elsewhere at that block); false when it was pinned already.
    pub fn pin_to(&self, pin: BlockPin) -> bool {
        self.pin.set(pin).is_ok()
    }

    /// The Multicall3 the reader batches with.
    pub fn multicall3(&self) -> Address {
        self.multicall3
    }

    /// `eth_call` of `data` on `to` at the pinned block (at `latest` before a pin) with `code`
    /// placed at `to` for that call only (a state override) and `gas` to spend, with
    /// `eth_gasPrice` in the same HTTP request; one round trip of this reader per request sent.
    pub async fn call_with_code(
        &self,
        to: Address,
        code: Bytes,
        data: Bytes,
        gas: u64,
    ) -> Result<(Bytes, Result<u128, GasPriceError>), ChainReadError> {
        let block = self
            .block()
            .map_or_else(BlockId::latest, |pin| BlockId::number(pin.number));
        self.riding_v4_refresh(|logs| {
            let (code, data) = (code.clone(), data.clone());
            async move {
                self.client
                    .call_with_code_and_gas_price_counted(
                        to,
                        code,
                        data,
                        gas,
                        block,
                        Some(&self.round_trips),
                        &logs,
                    )
                    .await
            }
        })
        .await
    }

    /// Sends a request through `send`, with the V4 `Initialize` range due and the queries
    /// asked by [`Self::logs_with_next_request`] riding along, and hands each its answer. A
    /// request that failed as a whole while carrying them (the node too slow or its answer
    /// too large, say) is sent once more without them, and the range is halved: they never
    /// cost a read its answer. A JSON-RPC error of the call itself (a refused state override,
    /// a revert) is the call's own: the range is given back unread and the queries wait for
    /// the next request.
    async fn riding_v4_refresh<F, Fut>(
        &self,
        send: F,
    ) -> Result<(Bytes, Result<u128, GasPriceError>), ChainReadError>
    where
        F: Fn(Vec<Filter>) -> Fut,
        Fut: std::future::Future<Output = Result<BatchedCall, ChainReadError>>,
    {
        let refresh = self.v4_refresh();
        let riders = std::mem::take(&mut *self.lock_riders());
        if refresh.is_none() && riders.is_empty() {
            return send(Vec::new()).await.map(|(answer, gas, _)| (answer, gas));
        }
        let mut filters: Vec<Filter> = riders.iter().map(|r| r.filter.clone()).collect();
        let refresh = refresh.map(|(refresh, filter)| {
            filters.push(filter);
            refresh
        });
        match send(filters).await {
            Ok((answer, gas_price, mut logs)) => {
                let missing = || Err("no eth_getLogs answer".to_owned());
                if let Some(refresh) = refresh {
                    let own = if logs.len() > riders.len() {
                        logs.pop().unwrap_or_else(missing)
                    } else {
                        missing()
                    };
                    refresh.apply(own);
                }
                let mut logs = logs.into_iter();
                for rider in riders {
                    // The query's owner may have stopped waiting.
                    let _ = rider.answer.send(logs.next().unwrap_or_else(missing));
                }
                Ok((answer, gas_price))
            }
            Err(error @ (ChainReadError::Rpc { .. } | ChainReadError::Reverted { .. })) => {
                drop(refresh);
                self.lock_riders().extend(riders);
                Err(error)
            }
            Err(error) => {
                tracing::warn!(%error, "a read carrying eth_getLogs failed; sending it again without them");
                if let Some(refresh) = refresh {
                    refresh.apply(Err(format!(
                        "the request carrying the range failed: {error}"
                    )));
                }
                for rider in riders {
                    let _ = rider.answer.send(Err(format!(
                        "the request carrying the query failed: {error}"
                    )));
                }
                send(Vec::new()).await.map(|(answer, gas, _)| (answer, gas))
            }
        }
    }

    /// A reader for a registry chain: its Multicall3, and the first batch fails with
    /// [`ChainReadError::WrongChain`] if the endpoint serves another chain.
    pub fn for_chain(client: ChainClient, chain: &ChainInfo) -> Self {
        let pool_manager = chain.contract("uniswap_v4", "pool_manager");
        Self {
            expected_chain_id: Some(chain.chain_id()),
            v4_index: chain.v4_index().cloned().zip(pool_manager),
            ..Self::new(client, chain.multicall3())
        }
    }

    /// Tells the chain's V4 pool index that the node answered at `block` (a read that
    /// learnt its block elsewhere, as the lens's answer).
    pub fn observe_head(&self, block: u64) {
        if let Some((index, _)) = &self.v4_index {
            index.observe_head(block);
        }
    }

    /// The `Initialize` range due on the chain's V4 pool index, with its filter.
    fn v4_refresh(&self) -> Option<(Refresh, Filter)> {
        let (index, pool_manager) = self.v4_index.as_ref()?;
        let refresh = index.due()?;
        let filter = refresh.filter(*pool_manager);
        Some((refresh, filter))
    }

    /// Replaces the batching options.
    pub fn with_options(mut self, options: ReaderOptions) -> Self {
        self.options = options;
        self
    }

    /// The pinned block, once the first batch has run.
    pub fn block(&self) -> Option<BlockPin> {
        self.pin.get().copied()
    }

    /// HTTP requests sent so far.
    pub fn round_trips(&self) -> u32 {
        self.round_trips.load(Ordering::Relaxed)
    }

    /// The client underneath.
    pub fn client(&self) -> &ChainClient {
        &self.client
    }

    /// Runs `batch` at the pinned block (pinning it first if this is the request's first
    /// batch). An empty batch after pinning costs nothing.
    pub async fn execute(&self, batch: Batch) -> Result<BatchResults, ChainReadError> {
        self.execute_inner(batch, false)
            .await
            .map(|(results, _)| results)
    }

    /// [`execute`](Self::execute), and `eth_gasPrice` in the same HTTP request when this batch
    /// pins the block (a JSON-RPC batch: no round trip of its own). On an already pinned
    /// reader the gas price is one more request. The gas price is not pinnable: it is the
    /// node's answer at about the time of the pin, or the node's error text.
    pub async fn execute_with_gas_price(
        &self,
        batch: Batch,
    ) -> Result<(BatchResults, Result<u128, GasPriceError>), ChainReadError> {
        let (results, gas_price) = self.execute_inner(batch, true).await?;
        let gas_price = match gas_price {
            Some(gas_price) => gas_price,
            None => self
                .gas_price()
                .await
                .map_err(|e| GasPriceError(e.to_string())),
        };
        Ok((results, gas_price))
    }

    async fn execute_inner(
        &self,
        batch: Batch,
        with_gas_price: bool,
    ) -> Result<(BatchResults, Option<Result<u128, GasPriceError>>), ChainReadError> {
        if let Some(pin) = self.block() {
            return Ok((self.execute_pinned(batch.calls, pin.number).await?, None));
        }
        let guard = self.pinning.lock().await;
        if let Some(pin) = self.block() {
            drop(guard);
            return Ok((self.execute_pinned(batch.calls, pin.number).await?, None));
        }
        let mut calls = batch.calls;
        let rest = calls.split_off(
            calls.len().min(
                self.options
                    .max_calls_per_batch
                    .saturating_sub(PIN_CALLS)
                    .max(1),
            ),
        );
        let (pin, mut results, gas_price) = self.execute_pinning(calls, with_gas_price).await?;
        self.observe_head(pin.number);
        // Only now may concurrent batches go on: they need the pin.
        let _ = self.pin.set(pin);
        drop(guard);
        if !rest.is_empty() {
            results.extend(self.execute_pinned(rest, pin.number).await?.results);
        }
        Ok((
            BatchResults {
                block_number: pin.number,
                results,
            },
            gas_price,
        ))
    }

    /// `eth_gasPrice` (not pinnable to a block), counted as a round trip of this request. A
    /// handler can run it concurrently with the first batch so it adds no sequential wait.
    pub async fn gas_price(&self) -> Result<u128, ChainReadError> {
        if let Some(replay) = &self.replay {
            return replay
                .gas_price()
                .map_err(|e| ChainReadError::Decode(e.to_string()));
        }
        self.client.gas_price_counted(Some(&self.round_trips)).await
    }

    /// Runs a one-call batch.
    pub async fn call<C: SolCall>(
        &self,
        target: Address,
        call: &C,
    ) -> Result<(u64, Result<C::Return, CallFailure>), ChainReadError> {
        let mut batch = Batch::new();
        let slot = batch.add(target, call);
        let results = self.execute(batch).await?;
        Ok((results.block_number(), results.get(slot)))
    }

    /// The first batch: the pin calls, then `calls`, at `latest` (with `eth_gasPrice` beside it
    /// when asked).
    #[allow(clippy::type_complexity)]
    async fn execute_pinning(
        &self,
        calls: Vec<IMulticall3::Call3>,
        with_gas_price: bool,
    ) -> Result<
        (
            BlockPin,
            Vec<IMulticall3::Result>,
            Option<Result<u128, GasPriceError>>,
        ),
        ChainReadError,
    > {
        let mut with_pin = Batch::new();
        let number = with_pin.add(self.multicall3, &IMulticall3::getBlockNumberCall {});
        let timestamp = with_pin.add(
            self.multicall3,
            &IMulticall3::getCurrentBlockTimestampCall {},
        );
        let chain_id = with_pin.add(self.multicall3, &IMulticall3::getChainIdCall {});
        with_pin.calls.extend(calls);
        // Log queries asked to ride along go with the pin (in a JSON-RPC batch, beside an
        // `eth_gasPrice` nobody needs then: the batch form is the one that carries them).
        let riding = self.replay.is_none() && self.has_riders();
        let (mut results, gas_price) = if with_gas_price || riding {
            let (results, gas_price) = self
                .aggregate3_with_gas_price(with_pin.calls, BlockId::latest())
                .await?;
            (results, Some(gas_price))
        } else {
            (
                self.aggregate3(with_pin.calls, BlockId::latest()).await?,
                None,
            )
        };
        let head = BatchResults {
            block_number: 0,
            results: results.drain(..PIN_CALLS).collect(),
        };
        let pin_value = |value: Result<U256, CallFailure>, what: &str| {
            value
                .map_err(|e| ChainReadError::Decode(format!("Multicall3 {what}: {e}")))
                .and_then(|v| {
                    u64::try_from(v).map_err(|_| {
                        ChainReadError::Decode(format!("Multicall3 {what} out of range: {v}"))
                    })
                })
        };
        let pin = BlockPin {
            number: pin_value(head.get(number), "getBlockNumber")?,
            timestamp: pin_value(head.get(timestamp), "getCurrentBlockTimestamp")?,
            chain_id: pin_value(head.get(chain_id), "getChainId")?,
        };
        if let Some(expected) = self.expected_chain_id
            && expected != pin.chain_id
        {
            return Err(ChainReadError::WrongChain {
                expected,
                actual: pin.chain_id,
            });
        }
        Ok((pin, results, gas_price))
    }

    async fn execute_pinned(
        &self,
        calls: Vec<IMulticall3::Call3>,
        block: u64,
    ) -> Result<BatchResults, ChainReadError> {
        let chunks: Vec<Vec<IMulticall3::Call3>> = calls
            .chunks(self.options.max_calls_per_batch.max(1))
            .map(<[_]>::to_vec)
            .collect();
        let answers = futures::future::try_join_all(
            chunks
                .into_iter()
                .map(|chunk| self.aggregate3(chunk, BlockId::number(block))),
        )
        .await?;
        Ok(BatchResults {
            block_number: block,
            results: answers.into_iter().flatten().collect(),
        })
    }

    async fn aggregate3(
        &self,
        calls: Vec<IMulticall3::Call3>,
        block: BlockId,
    ) -> Result<Vec<IMulticall3::Result>, ChainReadError> {
        if let Some(replay) = &self.replay {
            return replay.answer(&calls);
        }
        let expected = calls.len();
        let data = IMulticall3::aggregate3Call { calls }.abi_encode();
        let answer = self
            .client
            .call_counted(self.multicall3, data.into(), block, Some(&self.round_trips))
            .await?;
        self.decode_aggregate3(&answer, expected)
    }

    async fn aggregate3_with_gas_price(
        &self,
        calls: Vec<IMulticall3::Call3>,
        block: BlockId,
    ) -> Result<(Vec<IMulticall3::Result>, Result<u128, GasPriceError>), ChainReadError> {
        if let Some(replay) = &self.replay {
            return Ok((replay.answer(&calls)?, replay.gas_price()));
        }
        let expected = calls.len();
        let data = IMulticall3::aggregate3Call { calls }.abi_encode();
        let data = Bytes::from(data);
        let (answer, gas_price) = self
            .riding_v4_refresh(|logs| {
                let data = data.clone();
                async move {
                    self.client
                        .call_with_gas_price_counted(
                            self.multicall3,
                            data,
                            block,
                            Some(&self.round_trips),
                            &logs,
                        )
                        .await
                }
            })
            .await?;
        Ok((self.decode_aggregate3(&answer, expected)?, gas_price))
    }

    fn decode_aggregate3(
        &self,
        answer: &Bytes,
        expected: usize,
    ) -> Result<Vec<IMulticall3::Result>, ChainReadError> {
        if answer.is_empty() {
            return Err(ChainReadError::Decode(format!(
                "no Multicall3 at {} (empty answer)",
                self.multicall3
            )));
        }
        let results = IMulticall3::aggregate3Call::abi_decode_returns(answer)
            .map_err(|e| ChainReadError::Decode(format!("Multicall3 aggregate3: {e}")))?;
        if results.len() != expected {
            return Err(ChainReadError::Decode(format!(
                "Multicall3 answered {} results for {expected} calls",
                results.len()
            )));
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(target: u8, data: &[u8]) -> IMulticall3::Call3 {
        IMulticall3::Call3 {
            target: Address::with_last_byte(target),
            allowFailure: true,
            callData: Bytes::copy_from_slice(data),
        }
    }

    #[test]
    fn a_call_run_twice_answers_in_the_order_it_ran_and_a_missing_one_is_an_error() {
        let mut recorded = RecordedCalls::new();
        recorded.insert(
            Address::with_last_byte(1),
            Bytes::from_static(&[7]),
            true,
            Bytes::from_static(&[1]),
        );
        recorded.insert(
            Address::with_last_byte(1),
            Bytes::from_static(&[7]),
            true,
            Bytes::from_static(&[2]),
        );
        assert_eq!(recorded.len(), 2);
        let answers = recorded
            .answer(&[call(1, &[7]), call(1, &[7]), call(1, &[7])])
            .expect("recorded");
        let data: Vec<&[u8]> = answers.iter().map(|a| a.returnData.as_ref()).collect();
        assert_eq!(data, [&[1u8][..], &[2], &[2]]);
        assert_eq!(
            recorded.answer(&[call(2, &[7])]).err(),
            Some(ChainReadError::NotRecorded {
                target: Address::with_last_byte(2)
            })
        );
    }
}
