//! Balancer V2 on a test's own devnet: the deployment of `balancer-devnet.mjs`
//! ([`crate::node::deploy_balancer_v2`]) as the tests list it in a registry, and a swap sent
//! through the Vault.

use std::collections::BTreeMap;

use alloy::network::TransactionBuilder as _;
use alloy::primitives::{Address, B256, Bytes, U256};
use alloy::providers::{DynProvider, Provider as _};
use alloy::rpc::types::{TransactionReceipt, TransactionRequest};
use alloy::sol_types::SolCall as _;

use crate::DevnetError;
use crate::bindings::IBalancerVault;

/// One deployed pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancerPool {
    /// The script's name of it (`WETH/USDC 50/50`).
    pub name: String,
    /// Its pool id.
    pub id: B256,
    /// Its address.
    pub address: Address,
    /// Whether it is a composable stable pool (else weighted).
    pub stable: bool,
    /// The tokens swapped through it, the pool's own BPT left out.
    pub tokens: Vec<Address>,
}

/// Balancer V2 deployed on a devnet.
#[derive(Debug, Clone)]
pub struct BalancerDevnet {
    /// The Vault.
    pub vault: Address,
    /// BalancerQueries.
    pub queries: Address,
    /// Four weighted pools, then two composable stable ones.
    pub pools: Vec<BalancerPool>,
}

fn address(value: &serde_json::Value) -> Result<Address, DevnetError> {
    value
        .as_str()
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| DevnetError::Node(format!("balancer-devnet.mjs: not an address: {value}")))
}

impl BalancerDevnet {
    /// Deploys Balancer V2 on the devnet at `rpc_url` and reads the script's answer.
    pub fn deploy(rpc_url: &str) -> Result<Self, DevnetError> {
        let json = crate::node::deploy_balancer_v2(rpc_url)?;
        let mut pools = Vec::new();
        for (list, stable) in [("pools", false), ("stable_pools", true)] {
            for pool in json[list].as_array().into_iter().flatten() {
                let own = address(&pool["address"])?;
                let tokens = pool["tokens"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(address)
                    .collect::<Result<Vec<_>, _>>()?;
                pools.push(BalancerPool {
                    name: pool["name"].as_str().unwrap_or_default().to_owned(),
                    id: pool["pool_id"]
                        .as_str()
                        .and_then(|id| id.parse().ok())
                        .ok_or_else(|| DevnetError::Node(format!("no pool id: {pool}")))?,
                    address: own,
                    stable,
                    // A composable pool's own BPT is not a swappable token.
                    tokens: tokens.into_iter().filter(|t| *t != own).collect(),
                });
            }
        }
        Ok(Self {
            vault: address(&json["vault"])?,
            queries: address(&json["queries"])?,
            pools,
        })
    }

    /// `contracts.balancer_v2` of a registry override: the Vault and BalancerQueries.
    pub fn contracts(&self) -> BTreeMap<String, Address> {
        [
            ("vault".to_owned(), self.vault),
            ("queries".to_owned(), self.queries),
        ]
        .into_iter()
        .collect()
    }

    /// Sends `Vault.swap` GIVEN_IN of `amount` from `who` (which approved the Vault: the
    /// deployer did when the pools were made), paying out at least `limit`, and returns the
    /// mined receipt (its status is the caller's to check).
    pub async fn swap(
        &self,
        provider: &DynProvider,
        id: B256,
        (token_in, token_out): (Address, Address),
        amount: U256,
        limit: U256,
        who: Address,
    ) -> Result<TransactionReceipt, DevnetError> {
        let call = IBalancerVault::swapCall {
            singleSwap: IBalancerVault::SingleSwap {
                poolId: id,
                kind: IBalancerVault::SwapKind::GIVEN_IN,
                assetIn: token_in,
                assetOut: token_out,
                amount,
                userData: Bytes::new(),
            },
            funds: IBalancerVault::FundManagement {
                sender: who,
                fromInternalBalance: false,
                recipient: who,
                toInternalBalance: false,
            },
            limit,
            deadline: U256::MAX,
        };
        provider
            .send_transaction(
                TransactionRequest::default()
                    .with_from(who)
                    .with_to(self.vault)
                    .with_input(call.abi_encode())
                    .with_gas_limit(1_000_000),
            )
            .await
            .map_err(|e| DevnetError::Rpc(e.to_string()))?
            .get_receipt()
            .await
            .map_err(|e| DevnetError::Rpc(e.to_string()))
    }
}
