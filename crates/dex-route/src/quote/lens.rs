//! One round trip: the quote lens.
//!
//! The ordinary path reads a quote in up to three round trips because each depends on the one
//! before: discovery finds the pools and the decimals the amount is expressed in, the quotes
//! round trip sells that amount through the pools found, and the second legs sell what the
//! best first leg of each pool kind delivered. The lens (`lens/QuoteLens.sol`, our own
//! contract, its runtime code in `lens/QuoteLens.runtime.hex` made by `lens/compile.mjs`) runs
//! all three inside one `eth_call`, its code placed at [`lens_address`] by a state override
//! for that call only, with `eth_gasPrice` beside it in the same HTTP request.
//!
//! Every call the ordinary path could send is composed here by the same adapters
//! ([`PoolKind::lens_candidates`](crate::kinds::PoolKind::lens_candidates) lists the pools a
//! pair may have), with placeholder words where a pool address or an amount is not known yet;
//! the lens writes them in from earlier answers and skips a call whose pool does not exist.
//! Its answers are then recorded by target and calldata, and the ordinary path runs on a
//! reader that answers from them ([`PinnedReader::replay`]): the report is the one the
//! ordinary path makes, and a call it asks for that the lens did not run is an error, on
//! which `/dex/quote` falls back to the ordinary path.

use std::collections::BTreeMap;

use alloy::primitives::{Address, Bytes, U256};
use alloy::sol_types::SolCall;
use chain_read::bindings::{IErc20Metadata, IMulticall3};
use chain_read::dex::{Pool, sort_tokens};
use chain_read::{Batch, ChainInfo, DexKind, PinnedReader, erc20, l1_fee};

use crate::discovery::PoolLookups;
use crate::kinds::{self, LensOutput};
use crate::legs::{LegQuote, PoolStateReads};
use crate::lens::{
    HASH_HI, MAX, OUT, Program, SCALED, V2_OUT, WORD, placeholder, placeholder_address,
};
pub use crate::lens::{LENS_GAS, LENS_RUNTIME_HEX, LensError, lens_address, lens_code};
use crate::plan::{LegRole, QuotePlan, QuoteRequest};

/// A pair's tokens, sorted.
type PairKey = (Address, Address);

/// A pool the lens may find, as the program refers to it.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Known and non-zero when the pool exists.
    exists: u32,
    /// Its state read's first call.
    state: u32,
}

/// `text` as `mantissa × 10^-places` with the fewest places.
fn mantissa(text: &str) -> Option<(U256, u32)> {
    (0u8..=77).find_map(|places| {
        dex_math::parse_units(text, places)
            .ok()
            .map(|m| (m, u32::from(places)))
    })
}

/// Runs the whole read of `request` (the amount `amount_in` in whole units of its
/// `token_in`) in one `eth_call` through `reader`, and returns a reader that answers the
/// ordinary path's batches from it.
pub async fn run(
    chain: &ChainInfo,
    reader: &PinnedReader,
    request: &QuoteRequest,
    amount_in: &str,
) -> Result<PinnedReader, LensError> {
    let plan = QuotePlan::new(chain, request).map_err(|e| LensError::Program(e.to_string()))?;
    let program = compose(chain, reader.multicall3(), &plan, amount_in)?;
    crate::lens::run(reader, &program).await
}

/// The lens's program: discovery as the ordinary path sends it, then every quote and state
/// read it could send, then every second leg.
fn compose(
    chain: &ChainInfo,
    multicall3: Address,
    plan: &QuotePlan<'_>,
    amount_in: &str,
) -> Result<Program, LensError> {
    let request = &plan.request;
    let mut program = Program::default();

    // Phase 1: the pin, the tokens' metadata and every lookup, as discovery adds them.
    let mut batch = Batch::new();
    batch.add(multicall3, &IMulticall3::getBlockNumberCall {});
    batch.add(multicall3, &IMulticall3::getCurrentBlockTimestampCall {});
    batch.add(multicall3, &IMulticall3::getChainIdCall {});
    for token in plan.tokens() {
        erc20::metadata(&mut batch, token);
    }
    let unique = plan.unique_pairs();
    let _ = PoolLookups::add(&mut batch, chain, &unique);
    program.add(&batch, &[]);
    program.end_phase();

    let decimals: Bytes = IErc20Metadata::decimalsCall {}.abi_encode().into();
    let decimals_of = |program: &Program, token: Address| {
        program
            .call_index(token, &decimals)
            .ok_or_else(|| LensError::Program(format!("no decimals() read of {token}")))
    };
    let (mantissa, places) = mantissa(amount_in)
        .ok_or_else(|| LensError::Program(format!("amount_in {amount_in:?} is not a decimal")))?;
    let call = decimals_of(&program, request.token_in)?;
    let amount = program.value(SCALED, call, places, mantissa, Vec::new());
    let native = chain.wrapped_native();
    let native_amount = match plan
        .pairs()
        .iter()
        .any(|p| p.role == LegRole::NativeReference)
    {
        true => {
            let call = decimals_of(&program, native)?;
            Some(program.value(SCALED, call, 0, U256::from(1u8), Vec::new()))
        }
        false => None,
    };

    // Every pool each pair may have, in discovery's order.
    let mut by_pair: Vec<(PairKey, Vec<(Pool, u32)>)> = Vec::new();
    for pair in &unique {
        let (token0, token1) = sort_tokens(pair.token_in, pair.token_out);
        let mut pools = Vec::new();
        for dex in chain.dexes() {
            for candidate in kinds::of(dex.kind()).lens_candidates(chain, dex, pair) {
                let (target, data) = &candidate.lookup;
                let Some(call) = program.call_index(*target, data) else {
                    continue;
                };
                let exists = program.value(WORD, call, 0, U256::ZERO, Vec::new());
                pools.push((
                    Pool {
                        dex: dex.id,
                        address: candidate.address.unwrap_or(placeholder_address(exists)),
                        token0,
                        token1,
                        key: candidate.key,
                    },
                    exists,
                ));
            }
        }
        by_pair.push(((token0, token1), pools));
    }
    let pools_of = |a: Address, b: Address| -> Vec<(Pool, u32)> {
        let key = sort_tokens(a, b);
        by_pair
            .iter()
            .filter(|(pair, _)| *pair == key)
            .flat_map(|(_, pools)| pools.iter().copied())
            .collect()
    };

    // Phase 2: the quotes of the direct pair, the first legs and the native reference, then
    // every pool's state (the order of the ordinary path's quotes round trip).
    struct FirstLeg {
        pool: Pool,
        token_in: Address,
        via: Address,
        amount: u32,
        quote: u32,
        exists: u32,
    }
    let mut first_legs = Vec::new();
    for pair in plan.pairs() {
        let amount = match pair.role {
            LegRole::Direct | LegRole::FirstLeg { .. } => amount,
            LegRole::NativeReference => match native_amount {
                Some(value) => value,
                None => continue,
            },
            LegRole::SecondLeg { .. } => continue,
        };
        for (pool, exists) in pools_of(pair.token_in, pair.token_out) {
            let mut batch = Batch::new();
            let _ = LegQuote::add(&mut batch, chain, pool, pair.token_in, placeholder(amount));
            let quote = program.add(&batch, &[exists]);
            if let LegRole::FirstLeg { via } = pair.role {
                first_legs.push(FirstLeg {
                    pool,
                    token_in: pair.token_in,
                    via,
                    amount,
                    quote,
                    exists,
                });
            }
        }
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    for (_, pools) in &by_pair {
        for (pool, exists) in pools {
            let mut batch = Batch::new();
            let _ = PoolStateReads::add(&mut batch, chain, &[*pool]);
            let state = program.add(&batch, &[*exists]);
            candidates.push(Candidate {
                exists: *exists,
                state,
            });
        }
    }
    // The L1 data fee, sent by the ordinary path when a pool was found.
    if let (true, Some(oracle)) = (request.read_l1_data_fee, chain.l1_gas_price_oracle()) {
        let every: Vec<u32> = candidates.iter().map(|c| c.exists).collect();
        let any = program.value(MAX, 0, 0, U256::ZERO, every);
        let minimum = program.value(HASH_HI, 0, 0, U256::ZERO, vec![amount]);
        let transaction = l1_fee::representative_swap_transaction_with_minimum(
            chain,
            request.token_in,
            request.token_out,
            placeholder(amount),
            placeholder(minimum),
            l1_fee::REPRESENTATIVE_GAS_PRICE_WEI,
        );
        let mut batch = Batch::new();
        let _ = l1_fee::l1_fee(&mut batch, oracle, transaction);
        program.add(&batch, &[any]);
    }
    program.end_phase();

    // Phase 3: every second pool, continuing the best first leg of each pool kind.
    let mut outputs: BTreeMap<(Address, DexKind), Vec<u32>> = BTreeMap::new();
    for leg in &first_legs {
        let output = match kinds::of_pool(&leg.pool).lens_output(&leg.pool) {
            LensOutput::Quoted => program.value(OUT, leg.quote, 0, U256::ZERO, Vec::new()),
            LensOutput::Reserves { fee_bps } => {
                let Some(state) = candidates
                    .iter()
                    .find(|c| c.exists == leg.exists)
                    .map(|c| c.state)
                else {
                    continue;
                };
                let selling0 = U256::from(u8::from(leg.token_in == leg.pool.token0));
                program.value(V2_OUT, state, fee_bps, selling0, vec![leg.amount])
            }
        };
        outputs
            .entry((leg.via, leg.pool.key.kind()))
            .or_default()
            .push(output);
    }
    for via in &plan.intermediates {
        let best: Vec<u32> = outputs
            .iter()
            .filter(|((v, _), _)| v == via)
            .map(|(_, refs)| refs.clone())
            .collect::<Vec<_>>()
            .into_iter()
            .map(|refs| program.value(MAX, 0, 0, U256::ZERO, refs))
            .collect();
        for (pool, exists) in pools_of(*via, request.token_out) {
            for amount in &best {
                let mut batch = Batch::new();
                let _ = LegQuote::add(&mut batch, chain, pool, *via, placeholder(*amount));
                program.add(&batch, &[exists, *amount]);
            }
        }
    }
    program.end_phase();
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_amount_is_its_digits_and_places() {
        assert_eq!(mantissa("1.5"), Some((U256::from(15u8), 1)));
        assert_eq!(mantissa("2000"), Some((U256::from(2000u16), 0)));
        assert_eq!(mantissa("0.000001"), Some((U256::from(1u8), 6)));
        assert_eq!(mantissa("x"), None);
    }

    /// The program for a two-hop-capable quote on every registry chain: its size is what one
    /// `eth_call` carries (nodes take bodies of several MB; geth's limit is 5 MB).
    #[test]
    fn every_chains_program_fits_one_call() {
        use chain_read::{Chain, Registry};
        let registry = Registry::builtin();
        for chain in Chain::ALL {
            let info = registry.chain(chain);
            let usdc = info.token("USDC").expect("USDC on every chain");
            let request = QuoteRequest {
                native_reference_amount: Some(U256::ZERO),
                read_gas_price: true,
                read_l1_data_fee: true,
                ..QuoteRequest::new(info, info.wrapped_native(), usdc, U256::ZERO)
            };
            let plan = QuotePlan::new(info, &request).expect("plan");
            let data = compose(info, info.multicall3(), &plan, "1.5")
                .expect("composed")
                .calldata();
            let run = crate::lens::QuoteLens::runCall::abi_decode(&data).expect("decodes");
            assert_eq!(run.phaseEnds.len(), 3, "{chain}");
            assert!(data.len() < 1_000_000, "{chain}: {} bytes", data.len());
            println!(
                "{chain}: {} calls, {} values, {} bytes",
                run.calls.len(),
                run.values.len(),
                data.len()
            );
        }
    }
}
