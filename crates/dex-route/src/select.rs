//! Routing policy: which first leg a second leg continues, and which quote prices gas.

use std::collections::BTreeMap;

use alloy::primitives::Address;
use chain_read::DexKind;
use chain_read::dex::Pool;

use crate::outcome::Leg;

/// The kind of DEX a pool belongs to.
pub fn pool_kind(pool: &Pool) -> DexKind {
    pool.key.kind()
}

/// For every pool kind, the index in `first_legs` of the leg into `via` that delivers the
/// most (the first of equals). A pool's output grows with its input, so for a given second
/// pool the largest input is the best; one per kind keeps a route of each kind in the answer
/// while bounding the second legs to quote.
pub fn best_first_leg_per_kind(first_legs: &[Leg], via: Address) -> BTreeMap<DexKind, usize> {
    let mut best: BTreeMap<DexKind, usize> = BTreeMap::new();
    for (index, leg) in first_legs.iter().enumerate() {
        if leg.token_out != via {
            continue;
        }
        let kind = pool_kind(&leg.pool);
        let better = best
            .get(&kind)
            .and_then(|b| first_legs.get(*b))
            .is_none_or(|b| leg.amount_out > b.amount_out);
        if better {
            best.insert(kind, index);
        }
    }
    best
}

/// The reference quote gas cost is converted with: the one that delivers the most (the last
/// of equals).
pub fn best_reference(references: &[Leg]) -> Option<&Leg> {
    references.iter().max_by_key(|leg| leg.amount_out)
}

#[cfg(test)]
mod tests {
    use alloy::primitives::U256;
    use chain_read::DexId;

    use chain_read::dex::PoolKey;

    use super::*;
    use crate::outcome::QuoteSource;

    fn leg(key: PoolKey, token_out: Address, amount_out: u64) -> Leg {
        let token_in = Address::with_last_byte(1);
        let (token0, token1) = chain_read::dex::sort_tokens(token_in, token_out);
        Leg {
            pool: Pool {
                dex: DexId::UniswapV3,
                address: Address::with_last_byte(amount_out as u8),
                token0,
                token1,
                key,
            },
            token_in,
            token_out,
            amount_in: U256::from(1000u64),
            amount_out: U256::from(amount_out),
            source: QuoteSource::Reserves,
            quoter: None,
            gas_estimate: None,
            state: None,
        }
    }

    #[test]
    fn one_best_first_leg_per_pool_kind_into_the_intermediate() {
        let (via, other) = (Address::with_last_byte(9), Address::with_last_byte(8));
        let tier = |fee| PoolKey::Concentrated {
            fee,
            tick_spacing: 10,
        };
        let legs = [
            leg(tier(500), via, 10),
            leg(tier(3000), via, 30),
            leg(tier(100), via, 30),
            leg(PoolKey::ConstantProduct { fee_bps: 30 }, via, 20),
            leg(PoolKey::Solidly { stable: false }, other, 99),
        ];
        let best = best_first_leg_per_kind(&legs, via);
        assert_eq!(
            best,
            BTreeMap::from([
                (DexKind::ConcentratedLiquidity, 1),
                (DexKind::ConstantProduct, 3)
            ]),
            "the first of equals wins; a leg into another token is not a first leg here"
        );
        assert!(best_first_leg_per_kind(&legs, Address::ZERO).is_empty());
    }

    #[test]
    fn the_reference_is_the_largest_quote() {
        let native = Address::with_last_byte(7);
        let legs = [
            leg(PoolKey::ConstantProduct { fee_bps: 30 }, native, 5),
            leg(PoolKey::Solidly { stable: false }, native, 7),
        ];
        assert_eq!(best_reference(&legs), legs.get(1));
        assert_eq!(best_reference(&[]), None);
    }
}
