//! ERC-20 metadata read inside a batch: `decimals()` and `symbol()`, the latter also in the
//! pre-standard `bytes32` form (MKR, SAI and other early tokens).

use alloy::primitives::{Address, B256};
use alloy::sol_types::{SolCall, SolValue};

use crate::bindings::IErc20Metadata;
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

/// A token's metadata; each field carries its own failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenMetadata {
    /// The token.
    pub address: Address,
    /// `decimals()`.
    pub decimals: Result<u8, CallFailure>,
    /// `symbol()`, as a string or a NUL-padded `bytes32`.
    pub symbol: Result<String, CallFailure>,
}

/// The pending metadata reads of one token.
#[derive(Debug, Clone, Copy)]
pub struct MetadataSlots {
    address: Address,
    decimals: Slot<IErc20Metadata::decimalsCall>,
    symbol: Slot<IErc20Metadata::symbolCall>,
}

/// Adds `decimals()` and `symbol()` of `token` to `batch`.
pub fn metadata(batch: &mut Batch, token: Address) -> MetadataSlots {
    MetadataSlots {
        address: token,
        decimals: batch.add(token, &IErc20Metadata::decimalsCall {}),
        symbol: batch.add(token, &IErc20Metadata::symbolCall {}),
    }
}

impl MetadataSlots {
    /// Decodes the answers.
    pub fn decode(&self, results: &BatchResults) -> TokenMetadata {
        TokenMetadata {
            address: self.address,
            decimals: results.get(self.decimals),
            symbol: results
                .raw(self.symbol)
                .and_then(|data| decode_symbol(data)),
        }
    }
}

/// A pending `balanceOf(owner)` read.
#[derive(Debug, Clone, Copy)]
pub struct BalanceSlot {
    slot: Slot<IErc20Metadata::balanceOfCall>,
}

/// Adds `token.balanceOf(owner)` to `batch`.
pub fn balance_of(batch: &mut Batch, token: Address, owner: Address) -> BalanceSlot {
    BalanceSlot {
        slot: batch.add(token, &IErc20Metadata::balanceOfCall { owner }),
    }
}

impl BalanceSlot {
    /// The balance in the token's raw units.
    pub fn decode(&self, results: &BatchResults) -> Result<alloy::primitives::U256, CallFailure> {
        results.get(self.slot)
    }
}

/// A `symbol()` answer as an ABI string, or else as a `bytes32` cut at its first NUL.
pub fn decode_symbol(data: &[u8]) -> Result<String, CallFailure> {
    if let Ok(symbol) = IErc20Metadata::symbolCall::abi_decode_returns(data) {
        return Ok(symbol);
    }
    if data.len() == 32 {
        let word = B256::abi_decode(data).map_err(|e| CallFailure::Decode(e.to_string()))?;
        let text: Vec<u8> = word.iter().copied().take_while(|b| *b != 0).collect();
        return String::from_utf8(text)
            .map_err(|_| CallFailure::Decode("bytes32 symbol is not UTF-8".to_owned()));
    }
    Err(CallFailure::Decode(
        "symbol is neither a string nor a bytes32".to_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use alloy::sol_types::SolValue;

    use super::*;

    #[test]
    fn string_symbols_decode() {
        let data = "USDC".to_owned().abi_encode();
        assert_eq!(decode_symbol(&data), Ok("USDC".to_owned()));
    }

    #[test]
    fn bytes32_symbols_decode() {
        let mut word = [0u8; 32];
        word[..3].copy_from_slice(b"MKR");
        assert_eq!(decode_symbol(&word), Ok("MKR".to_owned()));
    }

    #[test]
    fn garbage_is_a_decode_failure() {
        assert!(matches!(
            decode_symbol(&[1, 2, 3]),
            Err(CallFailure::Decode(_))
        ));
    }
}
