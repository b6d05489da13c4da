//! Route ranking by gross and by net-of-gas output, and the minimum output a slippage
//! tolerance permits. Ties keep the earlier candidate, so a ranking is deterministic for a
//! given candidate order.

use alloy::primitives::{I256, U256};

use crate::MathError;
use crate::full_math::mul_div;

/// Basis points in a whole.
const BPS: u32 = 10_000;

/// A route as the ranking sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// What the route delivers.
    pub gross: U256,
    /// `gross` less gas in the output token, when gas could be priced.
    pub net: Option<I256>,
}

/// The index of the largest gross output (the first on ties).
pub fn best_by_gross(candidates: &[Candidate]) -> Option<usize> {
    candidates
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, U256)>, (index, c)| match best {
            Some((_, gross)) if gross >= c.gross => best,
            _ => Some((index, c.gross)),
        })
        .map(|(index, _)| index)
}

/// The index of the largest net output among candidates that have one; on equal net the
/// larger gross wins, then the earlier candidate. `None` when no candidate has a net.
pub fn best_by_net(candidates: &[Candidate]) -> Option<usize> {
    let mut best: Option<(usize, I256, U256)> = None;
    for (index, candidate) in candidates.iter().enumerate() {
        let Some(net) = candidate.net else {
            continue;
        };
        let better = match best {
            None => true,
            Some((_, best_net, best_gross)) => {
                net > best_net || (net == best_net && candidate.gross > best_gross)
            }
        };
        if better {
            best = Some((index, net, candidate.gross));
        }
    }
    best.map(|(index, _, _)| index)
}

/// `⌊amount × (10000 − slippage_bps) / 10000⌋`: the least output a caller tolerating
/// `slippage_bps` would accept. Arithmetic only.
pub fn amount_out_min(amount: U256, slippage_bps: u32) -> Result<U256, MathError> {
    if slippage_bps > BPS {
        return Err(MathError::SlippageOutOfRange(slippage_bps));
    }
    mul_div(amount, U256::from(BPS - slippage_bps), U256::from(BPS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(gross: u64, net: Option<i64>) -> Candidate {
        Candidate {
            gross: U256::from(gross),
            net: net.map(|n| I256::try_from(n).unwrap_or_default()),
        }
    }

    #[test]
    fn gross_and_net_can_pick_different_routes() {
        // The two-hop route returns more, but its gas eats the difference.
        let routes = [
            candidate(1_000, Some(990)),
            candidate(1_010, Some(960)),
            candidate(1_010, Some(950)),
        ];
        assert_eq!(best_by_gross(&routes), Some(1), "first of the equal gross");
        assert_eq!(best_by_net(&routes), Some(0));
    }

    #[test]
    fn net_ties_go_to_the_larger_gross_and_unpriced_routes_are_skipped() {
        let routes = [
            candidate(5, None),
            candidate(100, Some(-3)),
            candidate(120, Some(-3)),
        ];
        assert_eq!(best_by_net(&routes), Some(2));
        assert_eq!(best_by_net(&[candidate(5, None)]), None);
        assert_eq!(best_by_gross(&[]), None);
    }

    #[test]
    fn minimum_output_rounds_down() {
        let min = |amount: u64, bps| amount_out_min(U256::from(amount), bps);
        assert_eq!(min(10_288_903_450, 50), Ok(U256::from(10_237_458_932u64)));
        assert_eq!(min(999, 1), Ok(U256::from(998u64)), "998.9001 rounds down");
        assert_eq!(min(999, 0), Ok(U256::from(999u64)));
        assert_eq!(min(999, 10_000), Ok(U256::ZERO));
        assert_eq!(min(1, 10_001), Err(MathError::SlippageOutOfRange(10_001)));
    }
}
