//! The on-chain reads the verifier needs, behind a trait so unit tests can stub the chain.
//! [`RpcChain`] implements them over JSON-RPC with alloy, batching the EIP-3009 probe into one
//! Multicall3 `aggregate3` call.

use std::future::Future;
use std::time::Duration;

use alloy::primitives::{Address, B256, Bytes, U256, address};
use alloy::providers::{DynProvider, Provider};
use alloy::sol_types::SolCall;
use async_trait::async_trait;

use crate::eip3009::SignedAuthorization;

/// Multicall3's canonical address, the same on every chain we serve.
pub const MULTICALL3: Address = address!("cA11bde05977b3631167028862bE2a173976CA11");

/// ERC-1271's magic value for a valid signature.
const ERC1271_MAGIC: [u8; 4] = [0x16, 0x26, 0xba, 0x7e];

// The generated bindings mirror Solidity signatures, whose arity is not ours to choose.
#[allow(clippy::too_many_arguments)]
mod bindings {
    alloy::sol! {
    /// The EIP-3009 token surface (Circle FiatTokenV2_2).
    #[sol(rpc)]
    interface IEip3009Token {
        function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;
        function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) external;
        function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
        function balanceOf(address account) external view returns (uint256);
        function name() external view returns (string);
        function version() external view returns (string);
        event Transfer(address indexed from, address indexed to, uint256 value);
    }

    /// ERC-1271 contract-wallet signature check.
    #[sol(rpc)]
    interface IErc1271 {
        function isValidSignature(bytes32 hash, bytes signature) external view returns (bytes4 magicValue);
    }

    /// Multicall3's batch call with per-call failure.
    #[sol(rpc)]
    interface IMulticall3 {
        struct Call3 { address target; bool allowFailure; bytes callData; }
        struct Result { bool success; bytes returnData; }
        function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData);
    }
    }
}
pub use bindings::{IEip3009Token, IErc1271, IMulticall3};

/// A chain read that failed for reasons other than the payment itself. The text never holds
/// an RPC URL's credentials: every constructor here scrubs it (see [`crate::redact`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("chain read failed: {0}")]
pub struct ChainError(pub String);

/// How long one JSON-RPC call may take unless configured otherwise.
pub const DEFAULT_RPC_TIMEOUT: Duration = Duration::from_secs(10);

/// What one simulated `transferWithAuthorization` and the reads around it showed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferProbe {
    /// Whether the simulated transfer would succeed.
    pub simulation_ok: bool,
    /// `authorizationState(from, nonce)`; `None` if the token has no such function.
    pub authorization_used: Option<bool>,
    /// `balanceOf(from)`.
    pub balance: Option<U256>,
    /// The token's `name()`.
    pub name: Option<String>,
    /// The token's `version()`.
    pub version: Option<String>,
}

/// The reads the `exact` EVM verifier makes.
#[async_trait]
pub trait Eip3009Reader: Send + Sync + std::fmt::Debug {
    /// Bytecode length at `address` (0 for an EOA or nothing).
    async fn code_size(&self, address: Address) -> Result<usize, ChainError>;
    /// ERC-1271 `isValidSignature` on a contract wallet.
    async fn erc1271_valid(
        &self,
        wallet: Address,
        digest: B256,
        signature: &Bytes,
    ) -> Result<bool, ChainError>;
    /// Simulates the transfer and reads nonce state, balance, name and version.
    async fn probe_transfer(
        &self,
        token: Address,
        signed: &SignedAuthorization,
    ) -> Result<TransferProbe, ChainError>;
}

/// Call data of `transferWithAuthorization` for this signature: the `v,r,s` overload for a
/// 65-byte ECDSA signature (every EIP-3009 token has it), the `bytes` overload otherwise
/// (FiatTokenV2_2's contract-wallet path).
pub fn transfer_call_data(signed: &SignedAuthorization) -> Bytes {
    let auth = &signed.authorization;
    let sig = signed.signature.as_ref();
    if sig.len() == 65 {
        let v = if sig[64] < 27 { sig[64] + 27 } else { sig[64] };
        IEip3009Token::transferWithAuthorization_0Call {
            from: auth.from,
            to: auth.to,
            value: auth.value,
            validAfter: auth.validAfter,
            validBefore: auth.validBefore,
            nonce: auth.nonce,
            v,
            r: B256::from_slice(&sig[..32]),
            s: B256::from_slice(&sig[32..64]),
        }
        .abi_encode()
        .into()
    } else {
        IEip3009Token::transferWithAuthorization_1Call {
            from: auth.from,
            to: auth.to,
            value: auth.value,
            validAfter: auth.validAfter,
            validBefore: auth.validBefore,
            nonce: auth.nonce,
            signature: signed.signature.clone(),
        }
        .abi_encode()
        .into()
    }
}

/// [`Eip3009Reader`] over a JSON-RPC provider.
#[derive(Debug, Clone)]
pub struct RpcChain {
    provider: DynProvider,
    multicall3: Address,
    timeout: Duration,
}

impl RpcChain {
    /// Reads through `provider`, batching with Multicall3 at `multicall3`.
    pub fn new(provider: DynProvider, multicall3: Address) -> Self {
        Self {
            provider,
            multicall3,
            timeout: DEFAULT_RPC_TIMEOUT,
        }
    }

    /// The same reader with each call bounded by `timeout` (a node that hangs would otherwise
    /// hold a verification, and the paid request behind it, forever).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn bounded<T>(
        &self,
        call: impl Future<Output = Result<T, ChainError>>,
    ) -> Result<T, ChainError> {
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| {
                Err(ChainError(format!(
                    "no answer from the node within {} s",
                    self.timeout.as_secs_f64()
                )))
            })
    }

    /// The underlying provider.
    pub fn provider(&self) -> &DynProvider {
        &self.provider
    }
}

fn rpc_error(error: impl std::fmt::Display) -> ChainError {
    ChainError(crate::redact::scrub_text(&error.to_string()))
}

#[async_trait]
impl Eip3009Reader for RpcChain {
    async fn code_size(&self, address: Address) -> Result<usize, ChainError> {
        let code = self
            .bounded(async { self.provider.get_code_at(address).await.map_err(rpc_error) })
            .await?;
        Ok(code.len())
    }

    async fn erc1271_valid(
        &self,
        wallet: Address,
        digest: B256,
        signature: &Bytes,
    ) -> Result<bool, ChainError> {
        let wallet = IErc1271::new(wallet, &self.provider);
        // A revert means "not a valid signature", not a chain failure.
        self.bounded(async {
            match wallet
                .isValidSignature(digest, signature.clone())
                .call()
                .await
            {
                Ok(magic) => Ok(magic.0 == ERC1271_MAGIC),
                Err(alloy::contract::Error::TransportError(e)) if !is_revert(&e) => {
                    Err(rpc_error(e))
                }
                Err(_) => Ok(false),
            }
        })
        .await
    }

    async fn probe_transfer(
        &self,
        token: Address,
        signed: &SignedAuthorization,
    ) -> Result<TransferProbe, ChainError> {
        let auth = &signed.authorization;
        let call = |data: Vec<u8>| IMulticall3::Call3 {
            target: token,
            allowFailure: true,
            callData: data.into(),
        };
        let calls = vec![
            call(transfer_call_data(signed).to_vec()),
            call(
                IEip3009Token::authorizationStateCall {
                    authorizer: auth.from,
                    nonce: auth.nonce,
                }
                .abi_encode(),
            ),
            call(IEip3009Token::balanceOfCall { account: auth.from }.abi_encode()),
            call(IEip3009Token::nameCall {}.abi_encode()),
            call(IEip3009Token::versionCall {}.abi_encode()),
        ];
        let multicall = IMulticall3::new(self.multicall3, &self.provider);
        let results = self
            .bounded(async { multicall.aggregate3(calls).call().await.map_err(rpc_error) })
            .await?;
        if results.len() != 5 {
            return Err(ChainError(format!(
                "multicall returned {} results",
                results.len()
            )));
        }
        let ok = |i: usize| results[i].success.then_some(&results[i].returnData);
        Ok(TransferProbe {
            simulation_ok: results[0].success,
            authorization_used: ok(1)
                .and_then(|d| IEip3009Token::authorizationStateCall::abi_decode_returns(d).ok()),
            balance: ok(2).and_then(|d| IEip3009Token::balanceOfCall::abi_decode_returns(d).ok()),
            name: ok(3).and_then(|d| IEip3009Token::nameCall::abi_decode_returns(d).ok()),
            version: ok(4).and_then(|d| IEip3009Token::versionCall::abi_decode_returns(d).ok()),
        })
    }
}

fn is_revert(error: &alloy::transports::TransportError) -> bool {
    error.as_error_resp().is_some()
}
