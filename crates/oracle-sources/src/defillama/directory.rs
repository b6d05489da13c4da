//! Finding a row of the yields directory (`/pools`) and reading what its free text says.

use alloy::primitives::U256;
use chain_read::Chain;

use super::{YieldPool, yields_chain};

/// Whether `text` has the shape of a directory pool id (a UUID: 8-4-4-4-12 hex digits).
pub fn is_pool_id(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Why [`find_pool`] found no single row.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolLookupError {
    /// No row of the chain and protocol has the id or symbol.
    #[error("no {protocol} pool on {chain_name} has the {} {pool:?}", if *by_id { "id" } else { "symbol" })]
    NotFound {
        /// The directory's name of the chain.
        chain_name: &'static str,
        /// The protocol asked.
        protocol: String,
        /// The id or symbol asked.
        pool: String,
        /// Whether `pool` was read as an id.
        by_id: bool,
        /// The symbols the protocol does list on the chain, sorted, each once.
        symbols: Vec<String>,
    },
    /// Several rows of the chain and protocol have the symbol.
    #[error("{} {protocol} pools on {chain_name} have the symbol {pool:?}", candidates.len())]
    Ambiguous {
        /// The directory's name of the chain.
        chain_name: &'static str,
        /// The protocol asked.
        protocol: String,
        /// The symbol asked.
        pool: String,
        /// The rows that have it.
        candidates: Vec<YieldPool>,
    },
}

impl PoolLookupError {
    /// This error's [`ErrorKind`](chain_read::ErrorKind): [`NotFound`](chain_read::ErrorKind::NotFound)
    /// or [`Ambiguous`](chain_read::ErrorKind::Ambiguous).
    pub fn kind(&self) -> chain_read::ErrorKind {
        match self {
            Self::NotFound { .. } => chain_read::ErrorKind::NotFound,
            Self::Ambiguous { .. } => chain_read::ErrorKind::Ambiguous,
        }
    }
}

/// The row `pool` names among `rows`: by id (when it is one, see [`is_pool_id`]), or by symbol
/// when exactly one row of the chain and protocol has it (both case-insensitive).
pub fn find_pool<'a>(
    rows: &'a [YieldPool],
    chain: Chain,
    protocol: &str,
    pool: &str,
) -> Result<&'a YieldPool, PoolLookupError> {
    let chain_name = yields_chain(chain);
    let of_protocol: Vec<&YieldPool> = rows
        .iter()
        .filter(|r| r.chain == chain_name && r.project.eq_ignore_ascii_case(protocol))
        .collect();
    let by_id = is_pool_id(pool);
    let matches: Vec<&YieldPool> = of_protocol
        .iter()
        .copied()
        .filter(|r| {
            if by_id {
                r.pool.eq_ignore_ascii_case(pool)
            } else {
                r.symbol.eq_ignore_ascii_case(pool)
            }
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => {
            let mut symbols: Vec<String> = of_protocol.iter().map(|r| r.symbol.clone()).collect();
            symbols.sort_unstable();
            symbols.dedup();
            Err(PoolLookupError::NotFound {
                chain_name,
                protocol: protocol.to_owned(),
                pool: pool.to_owned(),
                by_id,
                symbols,
            })
        }
        many => Err(PoolLookupError::Ambiguous {
            chain_name,
            protocol: protocol.to_owned(),
            pool: pool.to_owned(),
            candidates: many.iter().map(|r| (*r).clone()).collect(),
        }),
    }
}

/// A `poolMeta` such as `"0.05%"` as a fee in parts per million (500), exactly; `None` for
/// text that is not a percentage or not a whole number of ppm.
pub fn meta_fee_ppm(meta: &str) -> Option<u32> {
    let text = meta.trim().strip_suffix('%')?.trim();
    // Percent with four decimal places is ppm: 0.05 % = 500 ppm.
    let ppm: U256 = decimal_units::parse(text, 4).ok()?;
    ppm.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_meta_fees_are_exact() {
        assert_eq!(meta_fee_ppm("0.05%"), Some(500));
        assert_eq!(meta_fee_ppm("0.3%"), Some(3_000));
        assert_eq!(meta_fee_ppm("1%"), Some(10_000));
        assert_eq!(meta_fee_ppm("0.01%"), Some(100));
        assert_eq!(meta_fee_ppm("0.00001%"), None);
        assert_eq!(meta_fee_ppm("stable"), None);
        assert_eq!(meta_fee_ppm("-0.3%"), None);
    }

    #[test]
    fn pool_ids_are_uuids() {
        assert!(is_pool_id("dd1bf75b-8cb2-579d-b07e-3b7500f67eff"));
        assert!(!is_pool_id("WETH-USDC"));
    }
}
