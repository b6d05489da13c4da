//! The analytics server's configuration: the shared sections plus prices, time budget and the
//! chain registry's RPC endpoints.

use std::collections::BTreeMap;

use alloy::primitives::Address;
use price_check::Thresholds;
use serde::{Deserialize, Serialize};
use server_kit::config::CommonConfig;

use crate::requests::Chain;

/// Everything `analytics.toml` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnalyticsConfig {
    /// Listen address, payment, facilitator, limits, logs.
    #[serde(flatten)]
    pub common: CommonConfig,
    /// Price per call of each route, USDC as a decimal string.
    pub prices: Prices,
    /// Time budget of each route's work, seconds.
    pub time_budget_seconds: u64,
    /// Blocks of Swap history `/mev/risk` scans, ending at the block it reads.
    #[serde(default = "default_mev_history_window_blocks")]
    pub mev_history_window_blocks: u64,
    /// JSON-RPC endpoints and registry overrides per chain.
    pub chains: BTreeMap<Chain, ChainEndpoint>,
    /// Off-chain sources: base URLs (the public hosts by default), timeout, cache.
    #[serde(default)]
    pub sources: oracle_sources::SourcesConfig,
    /// `/oracle/crosscheck`: its thresholds (printed in every answer) and accepted test-feed
    /// descriptions.
    #[serde(default)]
    pub crosscheck: CrosscheckConfig,
    /// `/yield/normalize`: holding period, harvest interval and price-path length (printed in
    /// every answer).
    #[serde(default)]
    pub yield_normalize: yield_read::YieldConfig,
}

/// 2,000 blocks: about an hour on Base and Optimism, under 7 h on Ethereum.
fn default_mev_history_window_blocks() -> u64 {
    2_000
}

/// Prices per call in USDC (docs/analytics.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// `/dex/quote`.
    pub dex_quote: String,
    /// `/pool/liquidity`.
    pub pool_liquidity: String,
    /// `/yield/normalize`.
    pub yield_normalize: String,
    /// `/oracle/crosscheck`.
    pub oracle_crosscheck: String,
    /// `/lending/health`.
    pub lending_health: String,
    /// `/mev/risk`.
    pub mev_risk: String,
}

impl Prices {
    /// The configured price of an operation.
    pub fn of(&self, operation_id: &str) -> Option<&str> {
        Some(match operation_id {
            "dex_quote" => &self.dex_quote,
            "pool_liquidity" => &self.pool_liquidity,
            "yield_normalize" => &self.yield_normalize,
            "oracle_crosscheck" => &self.oracle_crosscheck,
            "lending_health" => &self.lending_health,
            "mev_risk" => &self.mev_risk,
            _ => return None,
        })
    }
}

/// Where a chain is read, and overrides of its registry entries (a local devnet deploys the
/// same protocols at other addresses).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainEndpoint {
    /// JSON-RPC URLs, tried in order (the next one when a node fails or times out). Empty
    /// means the chain is not served: its requests answer 502.
    #[serde(default)]
    pub rpc_urls: Vec<String>,
    /// One JSON-RPC URL: the key of earlier versions, still read. When set it replaces
    /// `rpc_urls` (which usually holds the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_url: Option<String>,
    /// Token addresses by symbol, replacing the registry's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tokens: BTreeMap<String, Address>,
    /// Contract addresses by protocol and role (`uniswap_v3.quoter_v2`), replacing the
    /// registry's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub contracts: BTreeMap<String, BTreeMap<String, Address>>,
    /// How the chain's Uniswap V4 pools are read from the PoolManager's `Initialize` events;
    /// absent: the built-in PoolManager's deployment block and the default caps (none when
    /// `contracts.uniswap_v4.pool_manager` names another PoolManager).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v4_index: Option<V4IndexSettings>,
    /// The Balancer V2 pools read on the chain, replacing the registry's list (on ethereum
    /// the weighted and composable stable pools of Balancer's core-pool list); needs a
    /// `balancer_v2` entry (built in, or `contracts.balancer_v2.{vault, queries}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balancer_pools: Option<Vec<BalancerPoolSettings>>,
}

/// One entry of `chains.<chain>.balancer_pools`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalancerPoolSettings {
    /// The pool id (0x and 64 hex digits; its first 20 bytes are the pool's address).
    pub id: alloy::primitives::B256,
    /// `weighted` or `composable_stable`: the two types whose maths the service reads.
    #[serde(rename = "type")]
    pub pool_type: BalancerPoolKind,
    /// The tokens swapped through it (a composable stable pool's own BPT left out); the pairs
    /// it is a candidate for. The Vault's list is checked against them at every read.
    pub tokens: Vec<Address>,
}

/// A Balancer V2 pool type the service reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BalancerPoolKind {
    /// A weighted pool (WeightedPool v3 and later maths).
    Weighted,
    /// A composable stable pool (ComposableStablePool v3 maths).
    ComposableStable,
}

impl BalancerPoolSettings {
    /// The registry's entry; an error names what is wrong.
    pub fn entry(&self) -> Result<chain_read::dex::balancer::BalancerPoolEntry, String> {
        use chain_read::dex::balancer::{BalancerPoolEntry, BalancerPoolType};
        let distinct: std::collections::BTreeSet<&Address> = self.tokens.iter().collect();
        if self.tokens.len() < 2 || distinct.len() != self.tokens.len() {
            return Err(format!(
                "balancer_pools: pool {} needs at least two distinct tokens",
                self.id
            ));
        }
        if self.tokens.len() > chain_read::dex::balancer::MAX_TOKENS {
            return Err(format!(
                "balancer_pools: pool {} lists more than {} tokens",
                self.id,
                chain_read::dex::balancer::MAX_TOKENS
            ));
        }
        Ok(BalancerPoolEntry {
            id: self.id,
            pool_type: match self.pool_type {
                BalancerPoolKind::Weighted => BalancerPoolType::Weighted,
                BalancerPoolKind::ComposableStable => BalancerPoolType::ComposableStable,
            },
            tokens: self.tokens.clone(),
        })
    }
}

/// `chains.<chain>.v4_index`: the V4 `Initialize` index's start and caps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct V4IndexSettings {
    /// `false` turns the index off (discovery then probes the registry's shapes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The first block read: the PoolManager's deployment block (needed with a configured
    /// PoolManager).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_block: Option<u64>,
    /// Most blocks one `eth_getLogs` asks for (default 10,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_blocks_per_refresh: Option<u64>,
    /// Most pools kept (default 200,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pools: Option<usize>,
    /// Most of a pair's shapes probed (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_shapes_per_pair: Option<usize>,
    /// Blocks behind the cursor each range reads again, against reorgs (default 128; at
    /// most half a range is read again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorg_overlap_blocks: Option<u64>,
}

impl V4IndexSettings {
    /// The index these settings give, over `builtin` (the registry's own, if any); an error
    /// names what is missing.
    pub fn config(
        &self,
        builtin: Option<chain_read::dex::v4_index::V4IndexConfig>,
    ) -> Result<Option<chain_read::dex::v4_index::V4IndexConfig>, String> {
        use chain_read::dex::v4_index::V4IndexConfig;
        if self.enabled == Some(false) {
            return Ok(None);
        }
        let start = match (self.start_block, builtin) {
            (Some(block), _) => block,
            (None, Some(builtin)) => builtin.start_block,
            (None, None) => {
                return Err("v4_index.start_block is needed: the registry knows no deployment block of the configured PoolManager".to_owned());
            }
        };
        let defaults = builtin.unwrap_or(V4IndexConfig::from_block(start));
        let config = V4IndexConfig {
            start_block: start,
            max_blocks_per_refresh: self
                .max_blocks_per_refresh
                .unwrap_or(defaults.max_blocks_per_refresh),
            max_pools: self.max_pools.unwrap_or(defaults.max_pools),
            max_shapes_per_pair: self
                .max_shapes_per_pair
                .unwrap_or(defaults.max_shapes_per_pair),
            reorg_overlap_blocks: self
                .reorg_overlap_blocks
                .unwrap_or(defaults.reorg_overlap_blocks),
        };
        if config.max_blocks_per_refresh == 0 || config.max_shapes_per_pair == 0 {
            return Err(
                "v4_index.max_blocks_per_refresh and max_shapes_per_pair must be at least 1"
                    .to_owned(),
            );
        }
        Ok(Some(config))
    }
}

impl ChainEndpoint {
    /// One URL, with registry overrides (empty maps for none).
    pub fn at(
        url: &str,
        tokens: BTreeMap<String, Address>,
        contracts: BTreeMap<String, BTreeMap<String, Address>>,
    ) -> Self {
        Self {
            rpc_urls: vec![url.to_owned()],
            rpc_url: None,
            tokens,
            contracts,
            v4_index: None,
            balancer_pools: None,
        }
    }

    /// The URLs in force: `rpc_url` alone when set, else `rpc_urls`.
    pub fn urls(&self) -> Vec<&str> {
        match &self.rpc_url {
            Some(url) => vec![url.as_str()],
            None => self.rpc_urls.iter().map(String::as_str).collect(),
        }
    }
}

impl Default for AnalyticsConfig {
    fn default() -> Self {
        let public_rpc = [
            (Chain::Base, "https://mainnet.base.org"),
            (Chain::Ethereum, "https://ethereum-rpc.publicnode.com"),
            (Chain::Arbitrum, "https://arb1.arbitrum.io/rpc"),
            (Chain::Optimism, "https://mainnet.optimism.io"),
            (Chain::Polygon, "https://polygon-rpc.com"),
        ];
        Self {
            common: CommonConfig::with_listen("127.0.0.1:8401").with_state_prefix("analytics"),
            prices: Prices {
                dex_quote: "0.005".into(),
                pool_liquidity: "0.005".into(),
                yield_normalize: "0.01".into(),
                oracle_crosscheck: "0.005".into(),
                lending_health: "0.01".into(),
                mev_risk: "0.02".into(),
            },
            time_budget_seconds: 20,
            mev_history_window_blocks: default_mev_history_window_blocks(),
            chains: public_rpc
                .into_iter()
                .map(|(chain, url)| {
                    (
                        chain,
                        ChainEndpoint::at(url, BTreeMap::new(), BTreeMap::new()),
                    )
                })
                .collect(),
            sources: oracle_sources::SourcesConfig::default(),
            crosscheck: CrosscheckConfig::default(),
            yield_normalize: yield_read::YieldConfig::default(),
        }
    }
}

impl AnalyticsConfig {
    /// The longest time budget of the routes (they share `time_budget_seconds`), from which
    /// the drain after SIGTERM is derived (server-kit `CommonConfig::drain`).
    pub fn longest_budget(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.time_budget_seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_config_shows_no_rpc_or_facilitator_keys() {
        let mut config = AnalyticsConfig::default();
        config.common.facilitator.url =
            Some("https://x402.example.test/facilitator?token=FacilitatorToken".into());
        let base = config.chains.get_mut(&Chain::Base).expect("base");
        base.rpc_urls = vec![
            "https://base-mainnet.g.alchemy.com/v2/AlchemyKeyAbc123456789xyz".into(),
            "https://mainnet.base.org".into(),
        ];
        base.rpc_url = Some("https://u:RpcPassword@rpc.example.test:8545".into());
        let printed = server_kit::config::print_redacted(&config).expect("prints");
        for secret in ["FacilitatorToken", "AlchemyKeyAbc", "RpcPassword"] {
            assert!(!printed.contains(secret), "{secret} in:\n{printed}");
        }
        assert!(printed.contains("https://base-mainnet.g.alchemy.com/<redacted>"));
        assert!(printed.contains("https://rpc.example.test:8545/<redacted>"));
        assert!(printed.contains("https://mainnet.base.org"));
    }

    /// The ethereum pools listed in the registry's `balancer_v2` entry.
    fn balancer_list(
        chains: &crate::chains::Chains,
        chain: Chain,
    ) -> Vec<chain_read::dex::balancer::BalancerPoolEntry> {
        let info = chains.info(chain).expect("served");
        match &info
            .dex(chain_read::DexId::BalancerV2)
            .expect("a balancer_v2 entry")
            .contracts
        {
            chain_read::DexContracts::BalancerV2 { pools, .. } => pools.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn balancer_pools_are_set_from_the_configuration_over_the_core_pools() {
        let core = crate::chains::Chains::from_config(&AnalyticsConfig::default().chains)
            .expect("the defaults");
        let builtin = balancer_list(&core, Chain::Ethereum);
        assert_eq!(builtin.len(), 8, "the core pools by default");

        let toml = r#"
            rpc_urls = ["https://eth.example"]
            [[balancer_pools]]
            id = "0x5c6ee304399dbdb9c8ef030ab642b10820db8f56000200000000000000000014"
            type = "weighted"
            tokens = ["0xba100000625a3754423978a60c9317c58a424e3d", "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"]
        "#;
        let endpoint: ChainEndpoint = toml::from_str(toml).expect("the key parses");
        let mut chains = AnalyticsConfig::default().chains;
        chains.insert(Chain::Ethereum, endpoint.clone());
        let configured = crate::chains::Chains::from_config(&chains).expect("applies");
        let list = balancer_list(&configured, Chain::Ethereum);
        assert_eq!(list.len(), 1);
        assert_eq!(
            list[0],
            endpoint.balancer_pools.as_ref().expect("set")[0]
                .entry()
                .expect("an entry")
        );
        assert_eq!(
            list[0].pool_type,
            chain_read::dex::balancer::BalancerPoolType::Weighted
        );

        // One token, or a chain without a balancer_v2 entry: refused with the key named.
        let mut one_token = endpoint.clone();
        if let Some(pools) = one_token.balancer_pools.as_mut() {
            pools[0].tokens.truncate(1);
        }
        chains.insert(Chain::Ethereum, one_token);
        let Err(error) = crate::chains::Chains::from_config(&chains) else {
            panic!("refused")
        };
        let error = error.to_string();
        assert!(error.contains("chains.ethereum.balancer_pools"), "{error}");
        let mut chains = AnalyticsConfig::default().chains;
        chains.insert(Chain::Base, endpoint);
        let Err(error) = crate::chains::Chains::from_config(&chains) else {
            panic!("refused")
        };
        let error = error.to_string();
        assert!(error.contains("chains.base.balancer_pools"), "{error}");
    }
}

/// `[crosscheck]` of `analytics.toml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrosscheckConfig {
    /// Every number a flag uses (`[crosscheck.thresholds]`); printed in each answer.
    pub thresholds: Thresholds,
    /// `description()` accepted for a configured feed whose text is not Chainlink's
    /// `BASE / QUOTE`, by pair (a local test feed); printed in the answer when used.
    pub feed_descriptions: BTreeMap<String, String>,
}
