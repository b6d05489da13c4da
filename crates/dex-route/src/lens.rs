//! The read lens: our contract `lens/QuoteLens.sol` (its runtime code in
//! `lens/QuoteLens.runtime.hex`, made by `lens/compile.mjs`), a generic call interpreter run in
//! one `eth_call` with a state override that places its code at [`lens_address`] for that call
//! only. A read composes its round trips' calls with the same adapters the ordinary path uses
//! (`Program`), with placeholder words where a pool address, a token or an amount is known
//! only from an earlier answer; the lens writes them in, runs the phases in order, and the
//! answers are recorded by target and calldata (`run`). The ordinary path then runs on a
//! reader that answers from them ([`PinnedReader::replay`]), so the report is the one the
//! ordinary path makes, and a call the lens did not run is an error, never a guess.
//!
//! `/dex/quote` runs its three round trips in one lens call (`quote::lens`); `/pool/liquidity`
//! its first two in one and, where ticks are read from bitmap words, the tick words, exits and
//! the ticks the words mark in a second (`liquidity::lens`).

use std::collections::HashMap;

use alloy::primitives::{Address, B256, Bytes, I256, U256, keccak256};
use alloy::sol_types::{SolCall, SolValue};
use chain_read::{Batch, ChainReadError, PinnedReader, RecordedCalls};

alloy::sol! {
    /// `lens/QuoteLens.sol`'s entry point.
    interface QuoteLens {
        struct Call { address target; bytes data; uint64[] patches; uint32[] conditions; int256[] expand; }
        struct Each { bool success; bytes data; }
        struct Value { uint8 kind; uint32 call; uint32 word; uint256 constant_; uint32[] refs; }
        struct Answer { bool ran; bool success; address target; bytes input; bytes data; }
        function run(Call[] calls, uint32[] phaseEnds, Value[] values)
            external returns (uint256 blockNumber, Answer[] answers);
    }
}

/// How a read reached the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadPath {
    /// The lens: the read's round trips run in `eth_call`s with a state override (one for
    /// `/dex/quote`, at most two for `/pool/liquidity`).
    Lens,
    /// The ordinary batches, because the lens could not be used.
    Batches {
        /// Why: the node's refusal of the state override, or what the lens missed.
        lens_error: String,
    },
}

/// The lens's runtime bytecode, compiled from `lens/QuoteLens.sol` by `lens/compile.mjs`.
pub const LENS_RUNTIME_HEX: &str = include_str!("../lens/QuoteLens.runtime.hex");

/// Where the lens's code is placed for its call: an address no key or deployer can reach
/// (the top 20 bytes of a hash of a label), so the override shadows nothing.
pub fn lens_address() -> Address {
    Address::from_word(keccak256("x402 analytics QuoteLens: state override only"))
}

/// The lens's runtime code.
pub fn lens_code() -> Result<Bytes, LensError> {
    alloy::hex::decode(LENS_RUNTIME_HEX.trim())
        .map(Bytes::from)
        .map_err(|e| LensError::Program(format!("lens bytecode: {e}")))
}

/// Gas the lens's call asks for: what the ordinary path's three `eth_call`s may spend at a
/// node's usual 50 M cap each (geth's and reth's `--rpc.gascap` default); a node with a lower
/// cap runs out, and the read falls back to the batches.
pub const LENS_GAS: u64 = 150_000_000;

// Value kinds, as QuoteLens.sol numbers them.
pub(crate) const WORD: u8 = 0;
pub(crate) const SCALED: u8 = 1;
pub(crate) const V2_OUT: u8 = 2;
pub(crate) const OUT: u8 = 3;
pub(crate) const MAX: u8 = 4;
pub(crate) const HASH_HI: u8 = 5;

/// Marks a placeholder word: 16 zero bytes, this tag, then the value's index. Below 2^128, so
/// it fits every amount field (V4Quoter's is a uint128) and reads as an address.
const TAG: [u8; 8] = *b"lens\x51\x4c\x00\x01";
/// A patch's offset that replaces the call's target.
const TARGET: u64 = 0xffff_ffff;

/// Why the lens could not answer; the read then goes the ordinary way and says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LensError {
    /// The node refused or failed the call (a node without state overrides answers a
    /// JSON-RPC error here).
    #[error("the node did not run the read lens: {0}")]
    Node(ChainReadError),
    /// The request could not be put to the lens (it reads it the ordinary way).
    #[error("the read lens cannot express this request: {0}")]
    Program(String),
    /// The caller asked for the ordinary batches.
    #[error("the ordinary batches were asked for")]
    NotAsked,
    /// The lens's answer did not decode.
    #[error("undecodable read-lens answer: {0}")]
    Answer(String),
}

impl LensError {
    /// The reason as an answer says it: a node's refusal without its endpoint (a URL may
    /// carry a key; the label is the operator's, not the caller's).
    pub fn reason(&self) -> String {
        match self {
            Self::Node(ChainReadError::Rpc { code, message, .. }) => format!(
                "the node did not run the read lens's eth_call with a state override (JSON-RPC error {code}: {message})"
            ),
            Self::Node(ChainReadError::Reverted { reason, .. }) => format!(
                "the read lens reverted ({})",
                reason.as_deref().unwrap_or("no reason given")
            ),
            other => other.to_string(),
        }
    }
}

pub(crate) fn placeholder(value: u32) -> U256 {
    let mut word = [0u8; 32];
    word[16..24].copy_from_slice(&TAG);
    word[24..32].copy_from_slice(&u64::from(value).to_be_bytes());
    U256::from_be_bytes(word)
}

pub(crate) fn placeholder_address(value: u32) -> Address {
    Address::from_word(B256::from(placeholder(value)))
}

/// The value index a placeholder word stands for.
/// What a failed lens call means for the read: the node unreachable or too slow stops it (the
/// batches would meet the same); anything else is the reason to read the ordinary way.
pub(crate) fn fallback(error: LensError) -> Result<LensError, ChainReadError> {
    match error {
        LensError::Node(
            error @ (ChainReadError::Unreachable { .. } | ChainReadError::Timeout { .. }),
        ) => Err(error),
        other => {
            tracing::debug!(%other, "no lens; reading the ordinary way");
            Ok(other)
        }
    }
}

/// What an error of a read replayed from the lens means: a call the lens did not make is the
/// reason to read the ordinary way; any other error is the read's own.
pub(crate) fn missed(error: crate::RouteError) -> Result<LensError, crate::RouteError> {
    match error {
        crate::RouteError::Chain(error @ ChainReadError::NotRecorded { .. }) => {
            tracing::warn!(%error, "the lens missed a call; reading the ordinary way");
            Ok(LensError::Answer(error.to_string()))
        }
        other => Err(other),
    }
}

fn placeholder_of(word: &[u8]) -> Option<u32> {
    if word.len() == 32 && word[..16].iter().all(|b| *b == 0) && word[16..24] == TAG {
        let mut index = [0u8; 8];
        index.copy_from_slice(&word[24..32]);
        u32::try_from(u64::from_be_bytes(index)).ok()
    } else {
        None
    }
}

/// The lens's input as it is composed.
#[derive(Default)]
pub(crate) struct Program {
    calls: Vec<QuoteLens::Call>,
    ends: Vec<u32>,
    values: Vec<QuoteLens::Value>,
    index: HashMap<(Address, Bytes), u32>,
    expansions: Vec<Expansion>,
}

/// A call the lens makes once per initialized tick a bitmap word marks.
#[derive(Debug, Clone)]
pub(crate) struct Expansion {
    /// The expanded call's index.
    call: u32,
    /// The bitmap word's call.
    bitmap: u32,
    word_pos: i16,
    spacing: i32,
    /// Where the tick goes in the calldata.
    offset: usize,
}

impl Program {
    pub(crate) fn value(
        &mut self,
        kind: u8,
        call: u32,
        word: u32,
        constant: U256,
        refs: Vec<u32>,
    ) -> u32 {
        self.values.push(QuoteLens::Value {
            kind,
            call,
            word,
            constant_: constant,
            refs,
        });
        (self.values.len() - 1) as u32
    }

    /// Adds every call of `batch`, made only when `conditions` are known; returns the index
    /// of its first call.
    pub(crate) fn add(&mut self, batch: &Batch, conditions: &[u32]) -> u32 {
        let first = self.calls.len() as u32;
        for (target, data) in batch.calls() {
            let mut patches = Vec::new();
            if let Some(value) = placeholder_of(target.into_word().as_slice()) {
                patches.push((TARGET << 32) | u64::from(value));
            }
            // At every byte, not only at ABI words: the L1 fee's representative transaction
            // carries its amounts inside RLP.
            let mut offset = 4;
            while offset + 32 <= data.len() {
                if let Some(value) = placeholder_of(&data[offset..offset + 32]) {
                    patches.push(((offset as u64) << 32) | u64::from(value));
                    offset += 32;
                } else {
                    offset += 1;
                }
            }
            let index = self.calls.len() as u32;
            self.index.entry((target, data.clone())).or_insert(index);
            self.calls.push(QuoteLens::Call {
                target,
                data: data.clone(),
                patches,
                conditions: conditions.to_vec(),
                expand: Vec::new(),
            });
        }
        first
    }

    pub(crate) fn end_phase(&mut self) {
        self.ends.push(self.calls.len() as u32);
    }

    pub(crate) fn call_index(&self, target: Address, data: &Bytes) -> Option<u32> {
        self.index.get(&(target, data.clone())).copied()
    }
}

impl Program {
    /// Adds the one call of `batch`, made once per set bit of word 0 of call `bitmap`'s
    /// answer (a tick bitmap word at `word_pos` of a pool with `spacing`), with the tick
    /// written over the word of `batch`'s calldata that holds `sentinel`.
    pub(crate) fn add_per_tick(
        &mut self,
        batch: &Batch,
        sentinel: i32,
        bitmap: u32,
        word_pos: i16,
        spacing: i32,
    ) -> Result<(), LensError> {
        let Some((target, data)) = batch.calls().last() else {
            return Err(LensError::Program("no per-tick call".to_owned()));
        };
        let word = I256::try_from(sentinel)
            .map_err(|e| LensError::Program(e.to_string()))?
            .to_be_bytes::<32>();
        let offset = (4..data.len().saturating_sub(31))
            .step_by(32)
            .find(|offset| data[*offset..*offset + 32] == word)
            .ok_or_else(|| LensError::Program("the per-tick call carries no tick word".into()))?;
        let call = self.calls.len() as u32;
        self.calls.push(QuoteLens::Call {
            target,
            data: data.clone(),
            patches: Vec::new(),
            conditions: Vec::new(),
            expand: vec![
                I256::try_from(bitmap).map_err(|e| LensError::Program(e.to_string()))?,
                I256::try_from(word_pos).map_err(|e| LensError::Program(e.to_string()))?,
                I256::try_from(spacing).map_err(|e| LensError::Program(e.to_string()))?,
                I256::try_from(offset).map_err(|e| LensError::Program(e.to_string()))?,
            ],
        });
        self.expansions.push(Expansion {
            call,
            bitmap,
            word_pos,
            spacing,
            offset,
        });
        Ok(())
    }

    /// The lens's calldata.
    pub(crate) fn calldata(&self) -> Bytes {
        QuoteLens::runCall {
            calls: self.calls.clone(),
            phaseEnds: self.ends.clone(),
            values: self.values.clone(),
        }
        .abi_encode()
        .into()
    }
}

/// Runs `program` in one `eth_call` through `reader` (at its pinned block when it has one, else
/// at `latest`) and returns a reader that answers from what the lens ran.
pub(crate) async fn run(
    reader: &PinnedReader,
    program: &Program,
) -> Result<PinnedReader, LensError> {
    let (answer, gas_price) = reader
        .call_with_code(lens_address(), lens_code()?, program.calldata(), LENS_GAS)
        .await
        .map_err(LensError::Node)?;
    let returned = QuoteLens::runCall::abi_decode_returns(&answer)
        .map_err(|e| LensError::Answer(e.to_string()))?;
    // The block the node ran the lens at: the chain's V4 Initialize index may read up to it.
    if let Ok(block) = u64::try_from(returned.blockNumber) {
        reader.observe_head(block);
    }
    let answers = returned.answers;
    let mut recorded = RecordedCalls::new();
    for expansion in &program.expansions {
        record_per_tick(&mut recorded, expansion, &answers)?;
    }
    let expanded = |index: usize| program.expansions.iter().any(|e| e.call as usize == index);
    for (index, answer) in answers.into_iter().enumerate() {
        if answer.ran && !expanded(index) {
            recorded.insert(answer.target, answer.input, answer.success, answer.data);
        }
    }
    recorded.set_gas_price(gas_price);
    let replay = reader.replay(recorded);
    if let Some(pin) = reader.block() {
        replay.pin_to(pin);
    }
    Ok(replay)
}

/// Records the answers of an expanded call as the separate calls it stands for: the ticks of
/// the bitmap word's set bits, lowest first, as the lens made them.
fn record_per_tick(
    recorded: &mut RecordedCalls,
    expansion: &Expansion,
    answers: &[QuoteLens::Answer],
) -> Result<(), LensError> {
    let (Some(answer), Some(bitmap)) = (
        answers.get(expansion.call as usize),
        answers.get(expansion.bitmap as usize),
    ) else {
        return Err(LensError::Answer(
            "an expanded call has no answer".to_owned(),
        ));
    };
    if !answer.ran {
        return Ok(());
    }
    let word = bitmap
        .data
        .get(..32)
        .map(U256::from_be_slice)
        .ok_or_else(|| LensError::Answer("a bitmap word answered no word".to_owned()))?;
    let each = <Vec<QuoteLens::Each>>::abi_decode(&answer.data)
        .map_err(|e| LensError::Answer(e.to_string()))?;
    let bits: Vec<usize> = (0..256).filter(|bit| word.bit(*bit)).collect();
    if bits.len() != each.len() {
        return Err(LensError::Answer(format!(
            "{} per-tick answers for {} set bits",
            each.len(),
            bits.len()
        )));
    }
    for (bit, one) in bits.into_iter().zip(each) {
        let tick =
            (i64::from(expansion.word_pos) * 256 + bit as i64) * i64::from(expansion.spacing);
        let mut data = answer.input.to_vec();
        data[expansion.offset..expansion.offset + 32].copy_from_slice(
            &I256::try_from(tick)
                .map_err(|e| LensError::Answer(e.to_string()))?
                .to_be_bytes::<32>(),
        );
        recorded.insert(answer.target, data.into(), one.success, one.data);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_round_trip_as_words_and_addresses() {
        let word = placeholder(7).to_be_bytes::<32>();
        assert_eq!(placeholder_of(&word), Some(7));
        assert_eq!(
            placeholder_of(placeholder_address(9).into_word().as_slice()),
            Some(9)
        );
        assert!(
            placeholder(u32::MAX) < U256::from(u128::MAX),
            "fits a uint128 field"
        );
        assert_eq!(placeholder_of(&[0u8; 32]), None);
    }

    #[test]
    fn the_lens_lives_at_an_address_of_no_account() {
        assert_eq!(
            lens_address(),
            Address::from_word(keccak256("x402 analytics QuoteLens: state override only"))
        );
        assert!(lens_code().is_ok_and(|code| code.len() > 1000));
    }
}
