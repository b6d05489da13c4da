//! The L1 data fee of an OP-stack chain (base, optimism): the GasPriceOracle predeploy's
//! `getL1Fee(bytes)` on an unsigned RLP-encoded transaction, read in a batch like any other
//! call. The fee depends on the transaction's (compressed) size, so it is asked for a
//! representative swap transaction rather than the exact one a wallet would sign.

use alloy::consensus::{SignableTransaction, TxEip1559};
use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use alloy::sol_types::SolCall;

use crate::bindings::{IGasPriceOracle, ISwapRouter02};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};
use crate::registry::ChainInfo;

/// Gas limit written into the representative transaction (a single-hop swap's order of
/// magnitude; it changes the size by a byte at most).
const REPRESENTATIVE_GAS_LIMIT: u64 = 300_000;
/// Nonce written into it: an account that has sent transactions before.
const REPRESENTATIVE_NONCE: u64 = 1_000;

/// What became of the L1 data fee of one quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum L1DataFee {
    /// The caller did not ask for it.
    NotRequested,
    /// The registry has no L1 fee oracle for the chain (not an OP-stack chain).
    NoOracle,
    /// Not read, because no pool was found and nothing else was sent.
    NothingToPrice,
    /// `getL1Fee` answered.
    Read {
        /// The oracle asked.
        oracle: Address,
        /// Size of the representative transaction, bytes.
        transaction_bytes: usize,
        /// The fee, in wei of the native token.
        fee_wei: U256,
    },
    /// The call failed (on a plain node the predeploy has no code: [`CallFailure::NoContract`]).
    Failed {
        /// The oracle asked.
        oracle: Address,
        /// Why.
        failure: CallFailure,
    },
}

/// An address with the entropy of a real one, for fields whose value does not matter but
/// whose bytes are compressed (a run of zeros would understate the fee).
fn stand_in(label: &str) -> Address {
    Address::from_word(keccak256(label))
}

/// The fee fields' stand-in in `/dex/quote`'s representative transaction: 0.01 gwei, the
/// order of magnitude of base's and optimism's gas prices (the field's size, a byte or two of
/// the ~260 the fee is charged on, is what it changes). A stand-in rather than the node's
/// `eth_gasPrice`, so the transaction is known before any answer and the quote lens can ask
/// for its fee in the same call as the quotes.
pub const REPRESENTATIVE_GAS_PRICE_WEI: u128 = 10_000_000;

/// The stand-in minimum output of the representative transaction for `amount_in`: as many
/// significant bytes as the amount, with the entropy of a real one.
pub fn representative_minimum(amount_in: U256) -> U256 {
    U256::from_be_bytes(keccak256(B256::from(amount_in)).0) >> 128
}

/// An unsigned EIP-1559 transaction carrying SwapRouter02 `exactInputSingle(token_in →
/// token_out, amount_in)`, encoded as `getL1Fee` expects (`0x02 ‖ rlp(fields)`). Sent to
/// the chain's configured `uniswap_v3.swap_router02` when there is one, else to a stand-in
/// address of the same size.
pub fn representative_swap_transaction(
    chain: &ChainInfo,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
    gas_price_wei: u128,
) -> Bytes {
    representative_swap_transaction_with_minimum(
        chain,
        token_in,
        token_out,
        amount_in,
        representative_minimum(amount_in),
        gas_price_wei,
    )
}

/// [`representative_swap_transaction`] with the minimum output given (the quote lens writes
/// both amounts in inside its call).
pub fn representative_swap_transaction_with_minimum(
    chain: &ChainInfo,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
    amount_out_minimum: U256,
    gas_price_wei: u128,
) -> Bytes {
    let router = chain
        .contract("uniswap_v3", "swap_router02")
        .unwrap_or_else(|| stand_in("dex_quote representative router"));
    let calldata = ISwapRouter02::exactInputSingleCall {
        params: ISwapRouter02::ExactInputSingleParams {
            tokenIn: token_in,
            tokenOut: token_out,
            fee: U24::from(500u16),
            recipient: stand_in("dex_quote representative recipient"),
            amountIn: amount_in,
            amountOutMinimum: amount_out_minimum,
            sqrtPriceLimitX96: U160::ZERO,
        },
    }
    .abi_encode();
    let transaction = TxEip1559 {
        chain_id: chain.chain_id(),
        nonce: REPRESENTATIVE_NONCE,
        gas_limit: REPRESENTATIVE_GAS_LIMIT,
        max_fee_per_gas: gas_price_wei,
        max_priority_fee_per_gas: gas_price_wei / 10,
        to: TxKind::Call(router),
        value: U256::ZERO,
        access_list: Default::default(),
        input: calldata.into(),
    };
    transaction.encoded_for_signing().into()
}

/// A pending `getL1Fee`.
#[derive(Debug, Clone, Copy)]
pub struct L1FeeSlot {
    oracle: Address,
    transaction_bytes: usize,
    slot: Slot<IGasPriceOracle::getL1FeeCall>,
}

/// Adds `oracle.getL1Fee(transaction)` to `batch`.
pub fn l1_fee(batch: &mut Batch, oracle: Address, transaction: Bytes) -> L1FeeSlot {
    let transaction_bytes = transaction.len();
    L1FeeSlot {
        oracle,
        transaction_bytes,
        slot: batch.add(oracle, &IGasPriceOracle::getL1FeeCall { data: transaction }),
    }
}

impl L1FeeSlot {
    /// The fee, or why there is none.
    pub fn decode(&self, results: &BatchResults) -> L1DataFee {
        match results.get(self.slot) {
            Ok(fee_wei) => L1DataFee::Read {
                oracle: self.oracle,
                transaction_bytes: self.transaction_bytes,
                fee_wei,
            },
            Err(failure) => L1DataFee::Failed {
                oracle: self.oracle,
                failure,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy::consensus::{Transaction as _, TxEnvelope};
    use alloy::eips::Decodable2718;
    use alloy::primitives::{Signature, address};

    use super::*;
    use crate::registry::{Chain, Registry};

    #[test]
    fn the_representative_transaction_is_an_unsigned_eip1559_swap() {
        let registry = Registry::builtin();
        let base = registry.chain(Chain::Base);
        let usdc = address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
        let bytes = representative_swap_transaction(
            base,
            base.wrapped_native(),
            usdc,
            U256::from(1_500_000_000_000_000_000u128),
            5_000_000,
        );
        assert_eq!(bytes[0], 0x02, "EIP-2718 type byte of EIP-1559");
        // Sign it with a dummy signature to decode it back with alloy's own decoder.
        let mut fields = &bytes[1..];
        let unsigned =
            <TxEip1559 as alloy::rlp::Decodable>::decode(&mut fields).expect("RLP fields");
        assert!(fields.is_empty());
        assert_eq!(unsigned.chain_id, 8453);
        assert_eq!(unsigned.max_fee_per_gas, 5_000_000);
        let call = ISwapRouter02::exactInputSingleCall::abi_decode(&unsigned.input)
            .expect("exactInputSingle calldata");
        assert_eq!(call.params.tokenOut, usdc);
        assert_eq!(
            call.params.amountIn,
            U256::from(1_500_000_000_000_000_000u128)
        );
        let signed = unsigned.into_signed(Signature::test_signature());
        let envelope = TxEnvelope::from(signed);
        let encoded = alloy::eips::Encodable2718::encoded_2718(&envelope);
        let decoded = TxEnvelope::decode_2718(&mut encoded.as_slice()).expect("decodes");
        assert_eq!(decoded.chain_id(), Some(8453));
        // About 260 bytes: the size the L1 fee is charged on (before the signature).
        assert!((240..=300).contains(&bytes.len()), "{}", bytes.len());
    }

    #[test]
    fn only_op_stack_chains_have_the_oracle() {
        let registry = Registry::builtin();
        let predeploy = address!("420000000000000000000000000000000000000F");
        for chain in Chain::ALL {
            let expected = matches!(chain, Chain::Base | Chain::Optimism).then_some(predeploy);
            assert_eq!(
                registry.chain(chain).l1_gas_price_oracle(),
                expected,
                "{chain}"
            );
        }
        let removed = Registry::builtin()
            .with_overrides(
                Chain::Base,
                crate::registry::ChainOverride {
                    contracts: [(
                        "core".to_owned(),
                        [("gas_price_oracle".to_owned(), Address::ZERO)].into(),
                    )]
                    .into(),
                    ..Default::default()
                },
            )
            .expect("override");
        assert_eq!(removed.chain(Chain::Base).l1_gas_price_oracle(), None);
    }
}
