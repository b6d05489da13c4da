//! Sandwich detection over swap events: mev-inspect-py's pattern
//! (`mev_inspect/sandwiches.py`) adapted to logs, with the refinements stated in
//! [`DETECTION_RULE`].

use std::collections::BTreeSet;

use alloy::primitives::{Address, B256, I256, U256};
use dex_math::MathError;

use crate::MevError;

/// The rule, worded for an answer that must disclose it.
pub const DETECTION_RULE: &str = "mev-inspect-py's sandwich pattern on Swap logs ordered by \
(block, transaction index, log index): a front-run F, then in the same pool and block and in \
other transactions at least one swap in F's direction by someone other than the attacker (the \
victims), then a swap in the opposite direction by the attacker (the back-run). The attacker \
is F's recipient; shared routers are never taken as the attacker. The back-run is the \
attacker's when the pool's caller or recipient is the attacker, or when both transactions \
have the same known signer. A swap already used as a front-run or back-run does not start \
another match. Profit = back-run output − front-run input, in the front-run's input token.";

/// Where a swap event sits in the chain, and who took part in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapLog {
    /// Block number.
    pub block: u64,
    /// Transaction index in the block.
    pub tx_index: u64,
    /// Log index in the block.
    pub log_index: u64,
    /// Transaction hash.
    pub tx_hash: B256,
    /// The pool that emitted the event.
    pub pool: Address,
    /// The event's `sender`: whoever called the pool (a router, or the trader's contract).
    pub sender: Address,
    /// The event's `to` (V2, Solidly) or `recipient` (V3): who received the output.
    pub recipient: Address,
    /// The transaction's signer, when the caller fetched it.
    pub tx_from: Option<Address>,
}

/// One swap, typed: which token went in and the amounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapEvent {
    /// Position and parties.
    pub log: SwapLog,
    /// `true` when token0 went into the pool.
    pub zero_for_one: bool,
    /// Input paid into the pool.
    pub amount_in: U256,
    /// Output paid out of the pool.
    pub amount_out: U256,
}

impl SwapEvent {
    /// From a Uniswap V2 / Solidly `Swap(sender, amount0In, amount1In, amount0Out,
    /// amount1Out, to)`. When both sides paid in (a flash swap), the net flows decide.
    pub fn from_v2(
        log: SwapLog,
        amount0_in: U256,
        amount1_in: U256,
        amount0_out: U256,
        amount1_out: U256,
    ) -> Result<Self, MevError> {
        let zero_for_one = if amount0_in > amount0_out && amount1_out > amount1_in {
            true
        } else if amount1_in > amount1_out && amount0_out > amount0_in {
            false
        } else {
            return Err(ambiguous(&log));
        };
        let (amount_in, amount_out) = if zero_for_one {
            (amount0_in - amount0_out, amount1_out - amount1_in)
        } else {
            (amount1_in - amount1_out, amount0_out - amount0_in)
        };
        Ok(Self {
            log,
            zero_for_one,
            amount_in,
            amount_out,
        })
    }

    /// From a Uniswap V3 `Swap(sender, recipient, amount0, amount1, …)`: the pool's signed
    /// deltas, positive into the pool.
    pub fn from_v3(log: SwapLog, amount0: I256, amount1: I256) -> Result<Self, MevError> {
        let zero_for_one = if amount0.is_positive() && amount1.is_negative() {
            true
        } else if amount1.is_positive() && amount0.is_negative() {
            false
        } else {
            return Err(ambiguous(&log));
        };
        let (amount_in, amount_out) = if zero_for_one {
            (amount0.unsigned_abs(), amount1.unsigned_abs())
        } else {
            (amount1.unsigned_abs(), amount0.unsigned_abs())
        };
        Ok(Self {
            log,
            zero_for_one,
            amount_in,
            amount_out,
        })
    }

    /// The address reported for this swap's trader: the signer when known, else the
    /// recipient.
    pub fn trader(&self) -> Address {
        self.log.tx_from.unwrap_or(self.log.recipient)
    }

    fn position(&self) -> (u64, u64, u64) {
        (self.log.block, self.log.tx_index, self.log.log_index)
    }
}

fn ambiguous(log: &SwapLog) -> MevError {
    MevError::AmbiguousSwap {
        block: log.block,
        tx_index: log.tx_index,
        log_index: log.log_index,
    }
}

/// A swap's place in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapRef {
    /// Transaction hash.
    pub tx_hash: B256,
    /// Transaction index.
    pub tx_index: u64,
    /// Log index.
    pub log_index: u64,
    /// Input paid into the pool.
    pub amount_in: U256,
    /// Output paid out.
    pub amount_out: U256,
}

impl From<&SwapEvent> for SwapRef {
    fn from(event: &SwapEvent) -> Self {
        Self {
            tx_hash: event.log.tx_hash,
            tx_index: event.log.tx_index,
            log_index: event.log.log_index,
            amount_in: event.amount_in,
            amount_out: event.amount_out,
        }
    }
}

/// A victim's swap inside a sandwich.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VictimRef {
    /// The swap.
    pub swap: SwapRef,
    /// The victim (its signer when known, else its recipient).
    pub trader: Address,
}

/// One sandwich found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandwichMatch {
    /// Block number.
    pub block: u64,
    /// The pool.
    pub pool: Address,
    /// The attacker: the front-run's recipient.
    pub attacker: Address,
    /// The front-run.
    pub front_run: SwapRef,
    /// The victims, in block order.
    pub victims: Vec<VictimRef>,
    /// The back-run.
    pub back_run: SwapRef,
    /// `back_run.amount_out − front_run.amount_in`, gross of gas.
    pub profit: I256,
    /// `true` when the profit is in token0 (the front-run sold token0), else token1.
    pub profit_in_token0: bool,
}

/// Every sandwich in `events` (any order; they are sorted by block, transaction index and
/// log index here). `shared_routers` are addresses never taken as an attacker (the chain's
/// swap routers: every user's swap goes through them).
pub fn detect_sandwiches(
    events: &[SwapEvent],
    shared_routers: &[Address],
) -> Result<Vec<SandwichMatch>, MevError> {
    let mut sorted: Vec<&SwapEvent> = events.iter().collect();
    sorted.sort_by_key(|e| e.position());
    let routers: BTreeSet<Address> = shared_routers.iter().copied().collect();
    let mut used = vec![false; sorted.len()];
    let mut matches = Vec::new();

    // Swaps of one block are contiguous after sorting.
    let mut start = 0;
    while start < sorted.len() {
        let block = sorted[start].log.block;
        let end = start
            + sorted[start..]
                .iter()
                .take_while(|e| e.log.block == block)
                .count();
        for f in start..end {
            if used[f] {
                continue;
            }
            if let Some((found, consumed)) = match_from(&sorted, f, end, &routers)? {
                for i in consumed {
                    used[i] = true;
                }
                matches.push(found);
            }
        }
        start = end;
    }
    Ok(matches)
}

/// The sandwich whose front-run is `sorted[f]`, if any, and the indexes it consumes (the
/// front-run, the back-run and any attacker swap between them).
fn match_from(
    sorted: &[&SwapEvent],
    f: usize,
    end: usize,
    routers: &BTreeSet<Address>,
) -> Result<Option<(SandwichMatch, Vec<usize>)>, MevError> {
    let front = sorted[f];
    let attacker = front.log.recipient;
    if routers.contains(&attacker) {
        return Ok(None);
    }
    // The attacker's own swaps: the pool's caller or recipient is the attacker, or the
    // transaction has F's (known, non-router) signer.
    let signer = front.log.tx_from.filter(|a| !routers.contains(a));
    let is_attacker = |e: &SwapEvent| {
        e.log.sender == attacker
            || e.log.recipient == attacker
            || (signer.is_some() && e.log.tx_from == signer)
    };
    let mut victims = Vec::new();
    let mut consumed = vec![f];
    for (offset, other) in sorted[f + 1..end].iter().enumerate() {
        let index = f + 1 + offset;
        if other.log.pool != front.log.pool || other.log.tx_hash == front.log.tx_hash {
            continue;
        }
        if other.zero_for_one == front.zero_for_one {
            if is_attacker(other) {
                consumed.push(index);
            } else {
                victims.push(VictimRef {
                    swap: SwapRef::from(*other),
                    trader: other.trader(),
                });
            }
        } else if is_attacker(other) && !victims.is_empty() {
            consumed.push(index);
            let profit = I256::try_from(other.amount_out)
                .ok()
                .zip(I256::try_from(front.amount_in).ok())
                .and_then(|(out, paid)| out.checked_sub(paid))
                .ok_or(MathError::Overflow)?;
            return Ok(Some((
                SandwichMatch {
                    block: front.log.block,
                    pool: front.log.pool,
                    attacker,
                    front_run: SwapRef::from(front),
                    victims,
                    back_run: SwapRef::from(*other),
                    profit,
                    profit_in_token0: front.zero_for_one,
                },
                consumed,
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const POOL: Address = Address::repeat_byte(0xaa);
    const OTHER_POOL: Address = Address::repeat_byte(0xab);
    const ROUTER: Address = Address::repeat_byte(0x77);
    const ATTACKER: Address = Address::repeat_byte(0x01);
    const VICTIM: Address = Address::repeat_byte(0x02);
    const BYSTANDER: Address = Address::repeat_byte(0x03);

    /// A swap through the shared router (sender = router, recipient = trader), as the
    /// devnet's traders make them.
    fn swap(
        block: u64,
        tx: u64,
        trader: Address,
        zero_for_one: bool,
        amount_in: u64,
        amount_out: u64,
    ) -> SwapEvent {
        SwapEvent {
            log: SwapLog {
                block,
                tx_index: tx,
                log_index: tx * 3 + 1,
                tx_hash: B256::with_last_byte(u8::try_from(block * 16 + tx).unwrap_or(0)),
                pool: POOL,
                sender: ROUTER,
                recipient: trader,
                tx_from: None,
            },
            zero_for_one,
            amount_in: U256::from(amount_in),
            amount_out: U256::from(amount_out),
        }
    }

    fn detect(events: &[SwapEvent]) -> Vec<SandwichMatch> {
        detect_sandwiches(events, &[ROUTER]).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn finds_a_plain_sandwich_once_with_its_profit() {
        let events = [
            swap(7, 0, ATTACKER, false, 1_000, 30),
            swap(7, 1, VICTIM, false, 5_000, 140),
            swap(7, 2, ATTACKER, true, 30, 1_060),
        ];
        let found = detect(&events);
        assert_eq!(found.len(), 1);
        let m = &found[0];
        assert_eq!((m.block, m.pool, m.attacker), (7, POOL, ATTACKER));
        assert_eq!(m.front_run.tx_index, 0);
        assert_eq!(m.back_run.tx_index, 2);
        assert_eq!(m.victims.len(), 1);
        assert_eq!(m.victims[0].trader, VICTIM);
        assert_eq!(m.profit, I256::try_from(60).unwrap_or_default());
        assert!(!m.profit_in_token0);
    }

    #[test]
    fn order_comes_from_the_positions_not_the_input() {
        let events = [
            swap(7, 2, ATTACKER, true, 30, 1_060),
            swap(7, 1, VICTIM, false, 5_000, 140),
            swap(7, 0, ATTACKER, false, 1_000, 30),
        ];
        let found = detect(&events);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].front_run.tx_index, 0);
        // The same three swaps in the wrong block order are no sandwich: the "back-run"
        // comes before the victim.
        let reordered = [
            swap(7, 0, ATTACKER, true, 30, 1_060),
            swap(7, 1, VICTIM, false, 5_000, 140),
            swap(7, 2, ATTACKER, false, 1_000, 30),
        ];
        assert!(detect(&reordered).is_empty());
    }

    #[test]
    fn the_multi_swap_decoy_is_not_a_sandwich() {
        // Three unrelated traders through the same router: buy, buy, sell.
        let unrelated = [
            swap(9, 0, ATTACKER, false, 400, 12),
            swap(9, 1, VICTIM, false, 250, 7),
            swap(9, 2, BYSTANDER, true, 12, 410),
        ];
        assert!(detect(&unrelated).is_empty());
        // One trader swapping twice in one direction, then back: no one in between.
        let same_trader = [
            swap(9, 0, ATTACKER, false, 400, 12),
            swap(9, 1, ATTACKER, false, 250, 7),
            swap(9, 2, ATTACKER, true, 19, 640),
        ];
        assert!(detect(&same_trader).is_empty());
        // Front and back with nothing between.
        let no_victim = [
            swap(9, 0, ATTACKER, false, 400, 12),
            swap(9, 1, ATTACKER, true, 12, 395),
        ];
        assert!(detect(&no_victim).is_empty());
    }

    #[test]
    fn a_shared_router_is_never_the_attacker() {
        // Output left at the router (a multi-hop leg): the router "buys" and "sells" around
        // a victim, which is no sandwich.
        let mut front = swap(4, 0, ROUTER, false, 1_000, 30);
        front.log.sender = ROUTER;
        // The victim calls the pool from its own contract.
        let mut victim = swap(4, 1, VICTIM, false, 5_000, 140);
        victim.log.sender = VICTIM;
        let mut back = swap(4, 2, ROUTER, true, 30, 1_060);
        back.log.sender = ROUTER;
        assert!(detect(&[front, victim, back]).is_empty());
        // Without the exclusion the same swaps match: the test above is not vacuous.
        assert_eq!(
            detect_sandwiches(&[front, victim, back], &[])
                .unwrap_or_else(|e| panic!("{e}"))
                .len(),
            1
        );
    }

    #[test]
    fn pools_and_blocks_do_not_mix() {
        let mut victim_elsewhere = swap(7, 1, VICTIM, false, 5_000, 140);
        victim_elsewhere.log.pool = OTHER_POOL;
        let events = [
            swap(7, 0, ATTACKER, false, 1_000, 30),
            victim_elsewhere,
            swap(7, 2, ATTACKER, true, 30, 1_060),
        ];
        assert!(detect(&events).is_empty());
        let across_blocks = [
            swap(7, 0, ATTACKER, false, 1_000, 30),
            swap(7, 1, VICTIM, false, 5_000, 140),
            swap(8, 0, ATTACKER, true, 30, 1_060),
        ];
        assert!(detect(&across_blocks).is_empty());
    }

    #[test]
    fn an_attacker_contract_matches_by_sender_or_signer() {
        // mev-inspect's case: the bot contract receives the front-run and calls the pool
        // for the back-run.
        let bot = Address::repeat_byte(0x0b);
        let mut front = swap(5, 0, bot, true, 1_000, 30);
        front.log.sender = bot;
        let victim = swap(5, 1, VICTIM, true, 5_000, 140);
        let mut back = swap(5, 2, Address::repeat_byte(0x0c), false, 30, 1_010);
        back.log.sender = bot;
        let found = detect(&[front, victim, back]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].attacker, bot);
        assert!(found[0].profit_in_token0);
        // The same signer on both sides, output sent elsewhere on the way back.
        let eoa = Some(Address::repeat_byte(0x0e));
        let mut front = swap(5, 0, bot, true, 1_000, 30);
        front.log.tx_from = eoa;
        let mut back = swap(5, 2, Address::repeat_byte(0x0c), false, 30, 1_010);
        back.log.tx_from = eoa;
        assert_eq!(detect(&[front, victim, back]).len(), 1);
    }

    #[test]
    fn a_second_front_run_does_not_count_twice() {
        let events = [
            swap(3, 0, ATTACKER, false, 500, 15),
            swap(3, 1, ATTACKER, false, 500, 14),
            swap(3, 2, VICTIM, false, 5_000, 140),
            swap(3, 3, ATTACKER, true, 29, 1_050),
        ];
        let found = detect(&events);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].front_run.tx_index, 0);
        assert_eq!(found[0].victims.len(), 1);
    }

    #[test]
    fn directions_come_from_the_amounts() {
        let log = swap(1, 0, VICTIM, true, 1, 1).log;
        let v2 = SwapEvent::from_v2(
            log,
            U256::ZERO,
            U256::from(10u8),
            U256::from(3u8),
            U256::ZERO,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(!v2.zero_for_one);
        assert_eq!(
            (v2.amount_in, v2.amount_out),
            (U256::from(10u8), U256::from(3u8))
        );
        let v3 = SwapEvent::from_v3(
            log,
            I256::try_from(10).unwrap_or_default(),
            I256::try_from(-3).unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(v3.zero_for_one);
        assert_eq!(
            (v3.amount_in, v3.amount_out),
            (U256::from(10u8), U256::from(3u8))
        );
        assert!(matches!(
            SwapEvent::from_v3(log, I256::ZERO, I256::ZERO),
            Err(MevError::AmbiguousSwap { .. })
        ));
        assert!(matches!(
            SwapEvent::from_v2(log, U256::ZERO, U256::ZERO, U256::ZERO, U256::ZERO),
            Err(MevError::AmbiguousSwap { .. })
        ));
    }
}
