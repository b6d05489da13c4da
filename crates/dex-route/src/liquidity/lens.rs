//! A pool read through the lens ([`crate::lens`]) in at most two round trips.
//!
//! The first lens call runs the ordinary round trips 1 and 2: what round trip 1 reads, then,
//! with the addresses it answers written in, every read round trip 2 could make: the state and
//! balances of each pool the DEX may hold for the pair (or, for a pool named by address, its
//! factory's lookup under every DEX and fee tier of the chain, its state, its tokens' metadata
//! and balances), and the state of each wrapped-native/USDC pool for the USD reference. The
//! ordinary round trips 1 and 2 then run on its answers, and the pool is chosen.
//!
//! What is left needs numbers worked out here (the exit sizes in token units come from the USD
//! prices; the tick words to read from the price and the bands). Where the pool's ticks come
//! from bitmap words (Uniswap V4's StateView, a V3 chain without TickLens), the second lens
//! call runs the ordinary round trip 3 and then, for every word, the tick read once per bit
//! the word marks (the ordinary round trip 4). Where a TickLens gives the ticks with the words,
//! round trip 3 is the last and goes as an ordinary batch. A constant-product or Solidly pool
//! needs neither: one round trip.

use super::first::FirstRead;
use super::v4_key::KeyLookup;
use super::*;
use crate::kinds::LensCandidate;
use crate::lens::{self, LensError, Program, WORD, placeholder_address};
use chain_read::bindings::IMulticall3;

/// The tick a per-tick call is composed with, to find where the tick goes in its calldata
/// (any valid tick whose word no other argument of the call holds).
const SENTINEL_TICK: i32 = 4_004_004;

/// The whole read: through the lens when `use_lens`, falling back to the ordinary batches (at
/// the same block when the first lens call was answered) with the reason.
pub(super) async fn read(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
    on_chosen: impl FnOnce(&Pool),
    use_lens: bool,
) -> Result<PoolLiquidity, RouteError> {
    let start = reader.round_trips();
    // A pool named by PoolId: its key found now, or its log query riding with the first
    // request (the lens call, or the ordinary path's pinning batch).
    let key = match request.pool {
        PoolRef::V4 { id, tokens } => Some(KeyLookup::start(chain, reader, id, tokens)?),
        _ => None,
    };
    let key = key.as_ref();
    let first = match use_lens {
        true => first_call(chain, reader, request).await,
        false => Err(LensError::NotAsked),
    };
    let lens_error = match first {
        Ok(replay) => match read_pool(chain, &replay, request, key, false).await {
            Ok(settled) => {
                on_chosen(&settled.pool);
                if let Some(pin) = replay.block() {
                    reader.pin_to(pin);
                }
                let mut read = rest(chain, reader, request, settled).await?;
                read.sequential_round_trips = reader.round_trips().saturating_sub(start);
                return Ok(read);
            }
            Err(error) => lens::missed(error)?,
        },
        Err(error) => lens::fallback(error)?,
    };
    let settled = read_pool(chain, reader, request, key, true).await?;
    on_chosen(&settled.pool);
    let mut read = finish(chain, reader, request, settled).await?;
    read.sequential_round_trips = reader.round_trips().saturating_sub(start);
    read.read_path = ReadPath::Batches {
        lens_error: lens_error.reason(),
    };
    Ok(read)
}

/// After the first lens call: round trip 3, with the ticks its words mark in the same lens
/// call when they take one more round trip; the ordinary batches at the pinned block when the
/// second lens call fails.
async fn rest(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
    settled: Settled,
) -> Result<PoolLiquidity, RouteError> {
    let lens_error = match second_program(chain, request, &settled) {
        Ok(None) => return finish(chain, reader, request, settled).await,
        Ok(Some(program)) => match lens::run(reader, &program).await {
            Ok(replay) => match finish(chain, &replay, request, settled.clone()).await {
                Ok(read) => return Ok(read),
                Err(error) => lens::missed(error)?,
            },
            Err(error) => lens::fallback(error)?,
        },
        Err(error) => error,
    };
    let mut read = finish(chain, reader, request, settled).await?;
    read.read_path = ReadPath::Batches {
        lens_error: format!("after the first lens call: {}", lens_error.reason()),
    };
    Ok(read)
}

/// The first lens call: round trips 1 and 2.
async fn first_call(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &LiquidityRequest,
) -> Result<PinnedReader, LensError> {
    let program = first_program(chain, reader.multicall3(), request)?;
    lens::run(reader, &program).await
}

/// Round trip 1 as the ordinary path sends it (with the pin), then every read round trip 2
/// could make.
fn first_program(
    chain: &ChainInfo,
    multicall3: Address,
    request: &LiquidityRequest,
) -> Result<Program, LensError> {
    let mut program = Program::default();
    let mut batch = Batch::new();
    batch.add(multicall3, &IMulticall3::getBlockNumberCall {});
    batch.add(multicall3, &IMulticall3::getCurrentBlockTimestampCall {});
    batch.add(multicall3, &IMulticall3::getChainIdCall {});
    let _ = usd::ReferenceLookups::add(&mut batch, chain);
    let _ = erc20::metadata(&mut batch, chain.usdc());
    FirstRead::add(&mut batch, chain, request.pool)
        .map_err(|e| LensError::Program(e.to_string()))?;
    program.add(&batch, &[]);
    program.end_phase();

    // The USD reference: every wrapped-native/USDC pool's state.
    let (native, usdc) = (chain.wrapped_native(), chain.usdc());
    if !native.is_zero() && !usdc.is_zero() {
        let pair = Pair {
            token_in: native,
            token_out: usdc,
            role: LegRole::NativeReference,
        };
        for dex in chain
            .dexes()
            .filter(|dex| dex.kind() == DexKind::ConcentratedLiquidity)
        {
            for candidate in kinds::of(dex.kind()).lens_candidates(chain, dex, &pair) {
                add_if_found(&mut program, dex.id, &pair, candidate, |batch, pool| {
                    let _ = PoolStateReads::add(batch, chain, &[*pool]);
                });
            }
        }
    }

    let balancer = super::first::balancer_target(chain, request.pool)
        .map_err(|e| LensError::Program(e.to_string()))?;
    match (balancer, request.pool) {
        (Some((_, pair)), _) => pair_reads(&mut program, chain, DexId::BalancerV2, pair),
        (
            None,
            PoolRef::Pair {
                dex,
                token_a,
                token_b,
                ..
            },
        ) => pair_reads(&mut program, chain, dex, (token_a, token_b)),
        // Read by its PoolId in the first phase (its tokens come from its key).
        (None, PoolRef::V4 { .. }) => {}
        (None, PoolRef::Address(address)) => address_reads(&mut program, chain, address)?,
        // `balancer_target` answers every pool named so (or fails).
        (None, PoolRef::Balancer { .. }) => {}
    }
    program.end_phase();
    Ok(program)
}

/// Adds `reads` of the pool `candidate` finds, made only when its lookup found it.
fn add_if_found(
    program: &mut Program,
    dex: DexId,
    pair: &Pair,
    candidate: LensCandidate,
    reads: impl FnOnce(&mut Batch, &Pool),
) {
    let (target, data) = &candidate.lookup;
    let Some(call) = program.call_index(*target, data) else {
        return;
    };
    let exists = program.value(WORD, call, 0, U256::ZERO, Vec::new());
    let (token0, token1) = adapters::sort_tokens(pair.token_in, pair.token_out);
    let pool = Pool {
        dex,
        address: candidate.address.unwrap_or(placeholder_address(exists)),
        token0,
        token1,
        key: candidate.key,
    };
    let mut batch = Batch::new();
    reads(&mut batch, &pool);
    program.add(&batch, &[exists]);
}

/// Round trip 2 of a pool named by its pair on `dex`: every pool the DEX may hold for the
/// pair, its state and balances.
fn pair_reads(
    program: &mut Program,
    chain: &ChainInfo,
    dex: DexId,
    (token_a, token_b): (Address, Address),
) {
    let Some(dex) = chain.dex(dex) else {
        return;
    };
    let (token0, token1) = adapters::sort_tokens(token_a, token_b);
    let pair = Pair {
        token_in: token0,
        token_out: token1,
        role: LegRole::Direct,
    };
    for candidate in kinds::of(dex.kind()).lens_candidates(chain, dex, &pair) {
        add_if_found(program, dex.id, &pair, candidate, |batch, pool| {
            let _ = PoolStateReads::add(batch, chain, &[*pool]);
            let _ = second::balances(batch, pool);
        });
    }
}

/// Round trip 2 of a pool named by address: its tokens are round trip 1's answers, its DEX
/// and fee tier not known before its `factory()` answers, so the factory lookup, the state
/// and the tokens' reads of every DEX and pool variant of the chain the address could be.
fn address_reads(
    program: &mut Program,
    chain: &ChainInfo,
    address: Address,
) -> Result<(), LensError> {
    let mut identity = Batch::new();
    let _ = adapters::pool_identity(&mut identity, address);
    let calls: Vec<(Address, alloy::primitives::Bytes)> = identity
        .calls()
        .map(|(target, data)| (target, data.clone()))
        .collect();
    let mut token = |index: usize| {
        calls
            .get(index)
            .and_then(|(target, data)| program.call_index(*target, data))
            .map(|call| program.value(WORD, call, 0, U256::ZERO, Vec::new()))
            .ok_or_else(|| LensError::Program("no token0()/token1() read of the pool".into()))
    };
    let (token0, token1) = (token(0)?, token(1)?);
    let pair = Pair {
        token_in: placeholder_address(token0),
        token_out: placeholder_address(token1),
        role: LegRole::Direct,
    };
    for dex in chain.dexes().filter(|dex| {
        dex.id.has_adapter()
            && kinds::ALL.contains(&dex.kind())
            && dex.kind() != DexKind::ConcentratedLiquidityV4
    }) {
        let kind = kinds::of(dex.kind());
        for candidate in kind.lens_candidates(chain, dex, &pair) {
            let pool = Pool {
                dex: dex.id,
                address,
                token0: pair.token_in,
                token1: pair.token_out,
                key: candidate.key,
            };
            let mut batch = Batch::new();
            let _ = kind.confirm(&mut batch, dex, &pool);
            let _ = PoolStateReads::add(&mut batch, chain, &[pool]);
            let _ = erc20::metadata(&mut batch, pool.token0);
            let _ = erc20::metadata(&mut batch, pool.token1);
            let _ = second::balances(&mut batch, &pool);
            program.add(&batch, &[token0, token1]);
        }
    }
    Ok(())
}

/// The second lens call, when the pool's ticks take one more round trip after round trip 3:
/// round trip 3's batch, then each bitmap word's ticks. `None` when round trip 3 is the last.
fn second_program(
    chain: &ChainInfo,
    request: &LiquidityRequest,
    settled: &Settled,
) -> Result<Option<Program>, LensError> {
    let (batch, ticks, _, _) = round_three(chain, request, settled, settled.ticks.clone());
    let Some(ticks) = ticks.filter(TickRead::marks_ticks) else {
        return Ok(None);
    };
    let mut program = Program::default();
    program.add(&batch, &[]);
    program.end_phase();
    let pool = &settled.pool;
    let kind = kinds::of_pool(pool);
    for word in ticks.words.0..=ticks.words.1 {
        let mut scratch = Batch::new();
        kind.tick_words(&mut scratch, chain, pool, (word, word))
            .map_err(|e| LensError::Program(e.to_string()))?;
        let bitmap = scratch
            .calls()
            .last()
            .and_then(|(target, data)| program.call_index(target, data))
            .ok_or_else(|| LensError::Program(format!("no bitmap word {word} read")))?;
        let mut per_tick = Batch::new();
        let _ = kind.tick_net(&mut per_tick, chain, pool, SENTINEL_TICK);
        program.add_per_tick(&per_tick, SENTINEL_TICK, bitmap, word, ticks.tick_spacing)?;
    }
    program.end_phase();
    Ok(Some(program))
}
