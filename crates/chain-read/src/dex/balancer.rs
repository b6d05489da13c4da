//! Balancer V2 pools: every pool's tokens are held by the one Vault
//! (`0xBA12222222228d8Ba445958a75a0704d566BF2C8` on every chain) and a pool is named by its
//! pool id, whose first 20 bytes are the pool contract's address. The Vault's `getPool(id)`
//! says a pool is registered, `getPoolTokens(id)` gives its tokens and balances; the pool itself
//! answers its scaling factors, swap fee, and its weights (weighted pools) or amplification
//! (stable pools). A swap is quoted by the BalancerQueries helper's `querySwap`, which runs
//! the Vault's `queryBatchSwap` (the pool's own `onSwap`) and answers the amount.
//!
//! Interfaces from `@balancer-labs/v2-deployments` 3.2.0 (tasks 20210418-vault,
//! 20220721-balancer-queries, 20230206-weighted-pool-v3, 20230206-composable-stable-pool-v3),
//! whose bytecode the devnet tests run; see docs/decisions.md, "Balancer V2".

use alloy::primitives::{Address, B256, Bytes, U256};
use serde::{Deserialize, Serialize};

use crate::multicall::{Batch, BatchResults, CallFailure, Slot};

alloy::sol! {
    /// The Balancer V2 Vault's pool reads.
    interface IBalancerVault {
        /// The pool's address and specialization; reverts (BAL#500) for an unknown id.
        function getPool(bytes32 poolId) external view returns (address pool, uint8 specialization);
        /// The pool's tokens (a ComposableStablePool's own BPT among them) and balances.
        function getPoolTokens(bytes32 poolId) external view returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock);
    }

    /// A Balancer V2 pool's swap parameters.
    interface IBalancerPool {
        /// `10^(18 − decimals) · 1e18`, times a rate where the token has a rate provider.
        function getScalingFactors() external view returns (uint256[] factors);
        /// Weighted pools: normalized weights, 18 decimals.
        function getNormalizedWeights() external view returns (uint256[] weights);
        /// Stable pools: `A·n^(n−1)` times `precision` (1e3).
        function getAmplificationParameter() external view returns (uint256 value, bool isUpdating, uint256 precision);
        /// The swap fee, 18 decimals.
        function getSwapFeePercentage() external view returns (uint256 fee);
    }

    /// BalancerQueries (task 20220721-balancer-queries): `queryBatchSwap` of one swap.
    interface IBalancerQueries {
        /// One swap through one pool.
        struct SingleSwap { bytes32 poolId; uint8 kind; address assetIn; address assetOut; uint256 amount; bytes userData; }
        /// Whose balances the swap would move (irrelevant to a query).
        struct FundManagement { address sender; bool fromInternalBalance; address recipient; bool toInternalBalance; }
        /// The amount out of a GIVEN_IN swap (in of a GIVEN_OUT one).
        function querySwap(SingleSwap singleSwap, FundManagement funds) external returns (uint256 amount);
    }
}

/// The most tokens a pool state here holds (weighted pools take up to eight; a
/// ComposableStablePool five plus its BPT).
pub const MAX_TOKENS: usize = 8;

/// A Balancer V2 pool type whose swap maths dex-math ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BalancerPoolType {
    /// WeightedPool (`WeightedMath`).
    Weighted,
    /// ComposableStablePool (`StableMath`; its own BPT among the Vault's tokens).
    ComposableStable,
}

/// One pool of the registry's curated list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BalancerPoolEntry {
    /// The pool id.
    pub id: B256,
    /// Its type.
    pub pool_type: BalancerPoolType,
    /// Its swappable tokens (a ComposableStablePool's BPT left out); they decide which pairs it
    /// is a candidate for, and its state read checks them against the Vault's.
    pub tokens: Vec<Address>,
}

/// The pool contract of a pool id: its first 20 bytes.
pub fn pool_address(id: B256) -> Address {
    Address::from_slice(&id[..20])
}

/// Adds the Vault's `getPool(id)`: the pool's address when registered.
pub fn get_pool(batch: &mut Batch, vault: Address, id: B256) -> GetPoolSlot {
    GetPoolSlot {
        slot: batch.add(vault, &IBalancerVault::getPoolCall { poolId: id }),
    }
}

/// A pending `getPool`.
#[derive(Debug, Clone, Copy)]
pub struct GetPoolSlot {
    slot: Slot<IBalancerVault::getPoolCall>,
}

impl GetPoolSlot {
    /// The pool's address, `None` when zero.
    pub fn decode(&self, results: &BatchResults) -> Result<Option<Address>, CallFailure> {
        let answer = results.get(self.slot)?;
        Ok((!answer.pool.is_zero()).then_some(answer.pool))
    }
}

/// A pool's state at the pinned block, in the pool's token order without a composable pool's
/// BPT (fixed arrays so that the state stays `Copy` like the other kinds').
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalancerPoolState {
    /// The pool type.
    pub pool_type: BalancerPoolType,
    /// How many of the arrays' entries are tokens.
    pub len: usize,
    /// Tokens.
    pub tokens: [Address; MAX_TOKENS],
    /// The Vault's balances (cash + managed), raw units.
    pub balances: [U256; MAX_TOKENS],
    /// Scaling factors.
    pub scaling_factors: [U256; MAX_TOKENS],
    /// Normalized weights (weighted pools; zero otherwise).
    pub weights: [U256; MAX_TOKENS],
    /// `getAmplificationParameter().value` (stable pools; zero otherwise).
    pub amp: U256,
    /// The swap fee, 18 decimals.
    pub swap_fee: U256,
}

impl BalancerPoolState {
    /// A token's index among the pool's tokens.
    pub fn index_of(&self, token: Address) -> Option<usize> {
        self.tokens[..self.len].iter().position(|t| *t == token)
    }

    /// The balances.
    pub fn balances(&self) -> &[U256] {
        &self.balances[..self.len]
    }

    /// The scaling factors.
    pub fn scaling_factors(&self) -> &[U256] {
        &self.scaling_factors[..self.len]
    }

    /// The weights.
    pub fn weights(&self) -> &[U256] {
        &self.weights[..self.len]
    }
}

/// Pending state reads of one pool.
#[derive(Debug, Clone, Copy)]
pub struct PoolStateSlots {
    pool_type: BalancerPoolType,
    pool: Address,
    tokens: Slot<IBalancerVault::getPoolTokensCall>,
    scaling: Slot<IBalancerPool::getScalingFactorsCall>,
    fee: Slot<IBalancerPool::getSwapFeePercentageCall>,
    weights: Option<Slot<IBalancerPool::getNormalizedWeightsCall>>,
    amp: Option<Slot<IBalancerPool::getAmplificationParameterCall>>,
}

/// Adds the state reads of pool `id` of `pool_type`: the Vault's `getPoolTokens`, the pool's
/// `getScalingFactors`, `getSwapFeePercentage`, and `getNormalizedWeights` or
/// `getAmplificationParameter`.
pub fn pool_state(
    batch: &mut Batch,
    vault: Address,
    id: B256,
    pool_type: BalancerPoolType,
) -> PoolStateSlots {
    let pool = pool_address(id);
    let tokens = batch.add(vault, &IBalancerVault::getPoolTokensCall { poolId: id });
    let scaling = batch.add(pool, &IBalancerPool::getScalingFactorsCall {});
    let fee = batch.add(pool, &IBalancerPool::getSwapFeePercentageCall {});
    let (weights, amp) = match pool_type {
        BalancerPoolType::Weighted => (
            Some(batch.add(pool, &IBalancerPool::getNormalizedWeightsCall {})),
            None,
        ),
        BalancerPoolType::ComposableStable => (
            None,
            Some(batch.add(pool, &IBalancerPool::getAmplificationParameterCall {})),
        ),
    };
    PoolStateSlots {
        pool_type,
        pool,
        tokens,
        scaling,
        fee,
        weights,
        amp,
    }
}

fn decode_error(what: &str) -> CallFailure {
    CallFailure::Decode(format!("Balancer pool state: {what}"))
}

impl PoolStateSlots {
    /// The state; a composable pool's BPT (the pool's own address among the Vault's tokens)
    /// is dropped with its balance, scaling factor and weight.
    pub fn decode(&self, results: &BatchResults) -> Result<BalancerPoolState, CallFailure> {
        let tokens = results.get(self.tokens)?;
        let scaling = results.get(self.scaling)?;
        let swap_fee = results.get(self.fee)?;
        let weights = match self.weights {
            Some(slot) => Some(results.get(slot)?),
            None => None,
        };
        let amp = match self.amp {
            Some(slot) => results.get(slot)?.value,
            None => U256::ZERO,
        };
        let n = tokens.tokens.len();
        if tokens.balances.len() != n
            || scaling.len() != n
            || weights.as_ref().is_some_and(|w| w.len() != n)
        {
            return Err(decode_error(
                "token, balance, scaling and weight counts differ",
            ));
        }
        let mut state = BalancerPoolState {
            pool_type: self.pool_type,
            len: 0,
            tokens: [Address::ZERO; MAX_TOKENS],
            balances: [U256::ZERO; MAX_TOKENS],
            scaling_factors: [U256::ZERO; MAX_TOKENS],
            weights: [U256::ZERO; MAX_TOKENS],
            amp,
            swap_fee,
        };
        for i in 0..n {
            if tokens.tokens[i] == self.pool {
                continue;
            }
            let at = state.len;
            if at >= MAX_TOKENS {
                return Err(decode_error("more tokens than this read holds"));
            }
            state.tokens[at] = tokens.tokens[i];
            state.balances[at] = tokens.balances[i];
            state.scaling_factors[at] = scaling[i];
            state.weights[at] = weights.as_ref().map(|w| w[i]).unwrap_or_default();
            state.len += 1;
        }
        Ok(state)
    }
}

/// A pending `querySwap`.
#[derive(Debug, Clone, Copy)]
pub struct QuerySwapSlot {
    slot: Slot<IBalancerQueries::querySwapCall>,
}

/// Adds BalancerQueries' `querySwap` of a GIVEN_IN swap of `amount_in` through pool `id`.
pub fn query_swap(
    batch: &mut Batch,
    queries: Address,
    id: B256,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
) -> QuerySwapSlot {
    QuerySwapSlot {
        slot: batch.add(
            queries,
            &IBalancerQueries::querySwapCall {
                singleSwap: IBalancerQueries::SingleSwap {
                    poolId: id,
                    kind: 0,
                    assetIn: token_in,
                    assetOut: token_out,
                    amount: amount_in,
                    userData: Bytes::new(),
                },
                funds: IBalancerQueries::FundManagement {
                    sender: Address::ZERO,
                    fromInternalBalance: false,
                    recipient: Address::ZERO,
                    toInternalBalance: false,
                },
            },
        ),
    }
}

impl QuerySwapSlot {
    /// The amount out.
    pub fn decode(&self, results: &BatchResults) -> Result<U256, CallFailure> {
        results.get(self.slot)
    }
}
