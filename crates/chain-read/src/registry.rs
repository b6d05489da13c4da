//! The chain registry: per chain its id, tokens, Multicall3, Aave entry point and the entry
//! contracts of every DEX, with the built-in verified addresses (`registry/builtin.rs`) overridable by
//! configuration in the shape the analytics config uses (`tokens.<SYMBOL>`,
//! `contracts.<protocol>.<role>`).

mod builtin;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use alloy::primitives::Address;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use crate::error::ChainReadError;

/// Symbol of the native USDC in every chain's token map.
pub const USDC: &str = "USDC";

/// Uniswap V2 and Sushi V2 take 0.30 % of the input (v2-periphery `UniswapV2Library.getAmountOut`: `in·997/1000`).
pub const CONSTANT_PRODUCT_FEE_BPS: u32 = 30;

/// A chain the service reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Chain {
    /// Base (8453).
    Base,
    /// Ethereum mainnet (1).
    Ethereum,
    /// Arbitrum One (42161).
    Arbitrum,
    /// OP Mainnet (10).
    Optimism,
    /// Polygon PoS (137).
    Polygon,
}

/// A plain string enum of every value's name. Derived schemas would turn the documented variants
/// into a `oneOf` of consts, which validates with a far less readable message.
fn string_enum_schema(names: impl IntoIterator<Item = &'static str>) -> Schema {
    let names: Vec<&str> = names.into_iter().collect();
    json_schema!({"type": "string", "enum": names})
}

impl JsonSchema for Chain {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Chain".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        string_enum_schema(Self::ALL.map(Self::as_str))
    }
}

impl JsonSchema for DexId {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DexId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        string_enum_schema(Self::ALL.map(Self::as_str))
    }
}

impl Chain {
    /// Every chain, in the order of the service description.
    pub const ALL: [Self; 5] = [
        Self::Base,
        Self::Ethereum,
        Self::Arbitrum,
        Self::Optimism,
        Self::Polygon,
    ];

    /// The name used in requests and configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Base => "base",
            Self::Ethereum => "ethereum",
            Self::Arbitrum => "arbitrum",
            Self::Optimism => "optimism",
            Self::Polygon => "polygon",
        }
    }

    fn index(self) -> usize {
        match self {
            Self::Base => 0,
            Self::Ethereum => 1,
            Self::Arbitrum => 2,
            Self::Optimism => 3,
            Self::Polygon => 4,
        }
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Chain {
    type Err = ChainReadError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|chain| chain.as_str() == text)
            .ok_or_else(|| ChainReadError::InvalidInput(format!("unknown chain {text:?}")))
    }
}

/// How a DEX prices a swap, which decides the adapter that reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DexKind {
    /// Uniswap-V3-style ticks; quoted through QuoterV2.
    ConcentratedLiquidity,
    /// Uniswap-V2-style `x·y = k`; quoted from reserves.
    ConstantProduct,
    /// Solidly volatile and stable pools; quoted through the pool's `getAmountOut`.
    Solidly,
    /// Uniswap-V4-style pools in one PoolManager, named by PoolId; quoted through V4Quoter.
    ConcentratedLiquidityV4,
    /// Slipstream (Aerodrome, Velodrome): V3's concentrated liquidity keyed by tick spacing,
    /// the fee read from the pool, quoted through the QuoterV2 beside each CL factory.
    Slipstream,
    /// Algebra Integral (Camelot V4): V3's concentrated liquidity, one pool per pair found with
    /// `poolByPair`, the fee in the pool's `globalState`, quoted through Algebra's QuoterV2.
    AlgebraIntegral,
    /// Algebra V1 (QuickSwap V3): V3's concentrated liquidity, one pool per pair found with
    /// `poolByPair`, an adaptive fee in the pool's `globalState`, quoted through the Quoter
    /// that answers `(amountOut, fee)`.
    AlgebraV1,
    /// Balancer V2: weighted and composable stable pools in the Vault, named by pool id,
    /// quoted through BalancerQueries' `querySwap`.
    BalancerV2,
}

impl DexKind {
    /// The pool type's name in answers, the same as its serde name: the one vocabulary of
    /// pool types (a Solidly pool's stable or volatile curve is a separate flag).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ConcentratedLiquidity => "concentrated_liquidity",
            Self::ConstantProduct => "constant_product",
            Self::Solidly => "solidly",
            Self::ConcentratedLiquidityV4 => "concentrated_liquidity_v4",
            Self::Slipstream => "slipstream",
            Self::AlgebraIntegral => "algebra_integral",
            Self::AlgebraV1 => "algebra_v1",
            Self::BalancerV2 => "balancer_v2",
        }
    }
}

/// The DEX ids of the service (docs/analytics.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DexId {
    /// Uniswap V3.
    UniswapV3,
    /// Uniswap V2.
    UniswapV2,
    /// SushiSwap V2.
    SushiswapV2,
    /// PancakeSwap V3.
    PancakeswapV3,
    /// Aerodrome basic pools (base).
    Aerodrome,
    /// Velodrome V2 basic pools (optimism).
    Velodrome,
    /// QuickSwap V3 (polygon): Algebra V1.
    QuickswapV3,
    /// Camelot V3 (arbitrum).
    CamelotV3,
    /// Uniswap V4 (the PoolManager of each chain).
    UniswapV4,
    /// SushiSwap V3 (Uniswap V3's contracts at Sushi's addresses).
    SushiswapV3,
    /// Aerodrome Slipstream (base): concentrated liquidity keyed by tick spacing.
    AerodromeSlipstream,
    /// Velodrome Slipstream (optimism).
    VelodromeSlipstream,
    /// Camelot V4 (arbitrum): Algebra Integral 1.2.
    CamelotV4,
    /// Balancer V2 (the Vault of each chain).
    BalancerV2,
}

impl DexId {
    /// Every DEX id.
    pub const ALL: [Self; 14] = [
        Self::UniswapV3,
        Self::UniswapV2,
        Self::SushiswapV2,
        Self::PancakeswapV3,
        Self::Aerodrome,
        Self::Velodrome,
        Self::QuickswapV3,
        Self::CamelotV3,
        Self::UniswapV4,
        Self::SushiswapV3,
        Self::AerodromeSlipstream,
        Self::VelodromeSlipstream,
        Self::CamelotV4,
        Self::BalancerV2,
    ];

    /// The id used in requests, answers and configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UniswapV3 => "uniswap_v3",
            Self::UniswapV2 => "uniswap_v2",
            Self::SushiswapV2 => "sushiswap_v2",
            Self::PancakeswapV3 => "pancakeswap_v3",
            Self::Aerodrome => "aerodrome",
            Self::Velodrome => "velodrome",
            Self::QuickswapV3 => "quickswap_v3",
            Self::CamelotV3 => "camelot_v3",
            Self::UniswapV4 => "uniswap_v4",
            Self::SushiswapV3 => "sushiswap_v3",
            Self::AerodromeSlipstream => "aerodrome_slipstream",
            Self::VelodromeSlipstream => "velodrome_slipstream",
            Self::CamelotV4 => "camelot_v4",
            Self::BalancerV2 => "balancer_v2",
        }
    }

    /// The pricing model of the DEX.
    pub fn kind(self) -> DexKind {
        match self {
            Self::UniswapV3 | Self::SushiswapV3 | Self::PancakeswapV3 | Self::CamelotV3 => {
                DexKind::ConcentratedLiquidity
            }
            Self::QuickswapV3 => DexKind::AlgebraV1,
            Self::UniswapV2 | Self::SushiswapV2 => DexKind::ConstantProduct,
            Self::Aerodrome | Self::Velodrome => DexKind::Solidly,
            Self::UniswapV4 => DexKind::ConcentratedLiquidityV4,
            Self::AerodromeSlipstream | Self::VelodromeSlipstream => DexKind::Slipstream,
            Self::CamelotV4 => DexKind::AlgebraIntegral,
            Self::BalancerV2 => DexKind::BalancerV2,
        }
    }

    /// Whether this crate's adapter speaks the DEX's contracts. Camelot V3 (Algebra 1.9, with
    /// directional fees) is neither a Uniswap V3 fork nor Algebra V1 or Integral, so no adapter
    /// applies to it.
    pub fn has_adapter(self) -> bool {
        !matches!(self, Self::CamelotV3)
    }

    /// The fee tiers probed with `feeAmountTickSpacing` (PancakeSwap V3 uses
    /// 2500 where Uniswap uses 3000).
    pub fn default_fee_tiers(self) -> &'static [u32] {
        match self {
            Self::PancakeswapV3 => &[100, 500, 2500, 10000],
            _ => &[100, 500, 3000, 10000],
        }
    }
}

impl fmt::Display for DexId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DexId {
    type Err = ChainReadError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|dex| dex.as_str() == text)
            .ok_or_else(|| ChainReadError::InvalidInput(format!("unknown DEX {text:?}")))
    }
}

/// The entry contracts of one DEX on one chain. Pools are always found through the factory,
/// never derived with CREATE2 (init-code hashes differ between forks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DexContracts {
    /// Uniswap-V3-style.
    ConcentratedLiquidity {
        /// Factory (`feeAmountTickSpacing`, `getPool`).
        factory: Address,
        /// QuoterV2 (`quoteExactInputSingle`).
        quoter_v2: Address,
        /// TickLens, for tick-by-tick reads.
        tick_lens: Option<Address>,
        /// Fee tiers to probe.
        fee_tiers: Vec<u32>,
    },
    /// Uniswap-V2-style.
    ConstantProduct {
        /// Factory (`getPair`).
        factory: Address,
        /// Router02.
        router02: Option<Address>,
        /// Swap fee in basis points.
        fee_bps: u32,
    },
    /// Solidly-style.
    Solidly {
        /// PoolFactory (`getPool`, `getFee`).
        pool_factory: Address,
        /// Router.
        router: Option<Address>,
    },
    /// Uniswap-V4-style: one PoolManager holds every pool.
    PoolManager {
        /// PoolManager.
        pool_manager: Address,
        /// StateView (`getSlot0`, `getLiquidity` by PoolId).
        state_view: Address,
        /// V4Quoter (`quoteExactInputSingle` by PoolKey).
        v4_quoter: Address,
        /// The pool shapes (fee, tick spacing, hooks) probed for every pair.
        shapes: Vec<crate::dex::uniswap_v4::V4Shape>,
    },
    /// Slipstream: CL factories, each with the QuoterV2 that finds pools through it.
    Slipstream {
        /// The deployments, in the order discovery asks them.
        deployments: Vec<SlipstreamDeployment>,
        /// Tick spacings probed on every factory.
        tick_spacings: Vec<i32>,
    },
    /// Algebra Integral: one pool per pair on the factory.
    Algebra {
        /// AlgebraFactory (`poolByPair`).
        factory: Address,
        /// Algebra's QuoterV2 (`quoteExactInputSingle` by tokens and deployer).
        quoter_v2: Address,
    },
    /// Algebra V1: one pool per pair on the factory, quoted by the Quoter.
    AlgebraV1 {
        /// AlgebraFactory (`poolByPair`).
        factory: Address,
        /// Quoter (`quoteExactInputSingle(tokenIn, tokenOut, amountIn, limitSqrtPrice)` answering
        /// `(amountOut, fee)`).
        quoter: Address,
    },
    /// Balancer V2: the Vault holds every pool; the curated pools are probed by id.
    BalancerV2 {
        /// The Vault (`getPool`, `getPoolTokens`).
        vault: Address,
        /// BalancerQueries (`querySwap`).
        queries: Address,
        /// The pools probed, with their tokens.
        pools: Vec<crate::dex::balancer::BalancerPoolEntry>,
    },
}

/// One Slipstream CL factory and the QuoterV2 deployed with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlipstreamDeployment {
    /// CLFactory (`getPool(tokenA, tokenB, int24 tickSpacing)`).
    pub factory: Address,
    /// QuoterV2 (`quoteExactInputSingle` keyed by tick spacing), which finds pools through
    /// `factory` only.
    pub quoter_v2: Address,
}

/// One DEX deployed on one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dex {
    /// Its id.
    pub id: DexId,
    /// Its entry contracts.
    pub contracts: DexContracts,
}

impl Dex {
    /// The pricing model, from the contracts held.
    pub fn kind(&self) -> DexKind {
        match self.contracts {
            DexContracts::ConcentratedLiquidity { .. } => DexKind::ConcentratedLiquidity,
            DexContracts::ConstantProduct { .. } => DexKind::ConstantProduct,
            DexContracts::Solidly { .. } => DexKind::Solidly,
            DexContracts::PoolManager { .. } => DexKind::ConcentratedLiquidityV4,
            DexContracts::Slipstream { .. } => DexKind::Slipstream,
            DexContracts::Algebra { .. } => DexKind::AlgebraIntegral,
            DexContracts::AlgebraV1 { .. } => DexKind::AlgebraV1,
            DexContracts::BalancerV2 { .. } => DexKind::BalancerV2,
        }
    }

    /// The factory that finds pools (the PoolManager, which holds them, for V4).
    pub fn factory(&self) -> Address {
        match self.contracts {
            DexContracts::ConcentratedLiquidity { factory, .. }
            | DexContracts::ConstantProduct { factory, .. }
            | DexContracts::Algebra { factory, .. }
            | DexContracts::AlgebraV1 { factory, .. } => factory,
            DexContracts::Solidly { pool_factory, .. } => pool_factory,
            DexContracts::PoolManager { pool_manager, .. } => pool_manager,
            DexContracts::BalancerV2 { vault, .. } => vault,
            DexContracts::Slipstream {
                ref deployments, ..
            } => deployments.first().map(|d| d.factory).unwrap_or_default(),
        }
    }
}

/// Configuration overrides of one chain's registry entry, in the analytics config's shape:
/// `tokens.<SYMBOL>` and `contracts.<protocol>.<role>`.
///
/// Roles the registry models: `core.{multicall3,weth9,gas_price_oracle}`, `<cl dex>.{factory,quoter_v2,tick_lens}`,
/// `<v2 dex>.{factory,router02}`, `<solidly dex>.{pool_factory,router}`,
/// `uniswap_v4.{pool_manager,state_view,v4_quoter}`, the Slipstream DEXes'
/// `<id>.{factory,quoter_v2[,factory_2,quoter_v2_2]}` (a second CL factory with its QuoterV2),
/// Camelot V4's (Algebra Integral) `camelot_v4.{factory,quoter_v2}`, QuickSwap V3's (Algebra V1)
/// `quickswap_v3.{factory,quoter}`,
/// and Uniswap V4's pool shapes to probe
/// (`uniswap_v4.shape_<fee>_<tickSpacing>[_<label>] = <hooks>`, added to the standard four),
/// `aave_v3.pool_addresses_provider`. Any other role is kept as given and answered by
/// [`ChainInfo::contract`]. The zero address removes an entry (a DEX whose factory is zero is
/// not deployed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainOverride {
    /// Token addresses by symbol.
    #[serde(default)]
    pub tokens: BTreeMap<String, Address>,
    /// Contract addresses by protocol and role.
    #[serde(default)]
    pub contracts: BTreeMap<String, BTreeMap<String, Address>>,
}

/// Everything the registry knows about one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainInfo {
    chain: Chain,
    chain_id: u64,
    multicall3: Address,
    wrapped_native_symbol: String,
    bridged_usdc_symbol: Option<String>,
    tokens: BTreeMap<String, Address>,
    dexes: BTreeMap<DexId, Dex>,
    aave_v3_pool_addresses_provider: Option<Address>,
    l1_gas_price_oracle: Option<Address>,
    other_contracts: BTreeMap<String, BTreeMap<String, Address>>,
    /// Uniswap V4 pools from the PoolManager's `Initialize` events (shared by clones).
    v4_index: Option<crate::dex::v4_index::V4PoolIndex>,
}

impl ChainInfo {
    /// The index of Uniswap V4 pools read from the PoolManager's `Initialize` events, when
    /// the chain has one (a built-in PoolManager with its deployment block, or a configured
    /// start block).
    pub fn v4_index(&self) -> Option<&crate::dex::v4_index::V4PoolIndex> {
        self.v4_index.as_ref()
    }

    /// Gives the chain a new, empty V4 pool index (`None`: none), as configured.
    pub fn set_v4_index(&mut self, config: Option<crate::dex::v4_index::V4IndexConfig>) {
        self.v4_index = config.map(crate::dex::v4_index::V4PoolIndex::new);
    }

    /// This entry with its V4 pool index frozen: discovery through it sees the pools read so
    /// far in every round trip of one request, while the shared index reads on.
    pub fn with_frozen_v4_index(&self) -> Self {
        Self {
            v4_index: self.v4_index.as_ref().map(|index| index.frozen()),
            ..self.clone()
        }
    }

    /// The chain.
    pub fn chain(&self) -> Chain {
        self.chain
    }

    /// EIP-155 chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// Multicall3.
    pub fn multicall3(&self) -> Address {
        self.multicall3
    }

    /// Symbol of the wrapped native token (`WETH`, `WPOL` on polygon).
    pub fn wrapped_native_symbol(&self) -> &str {
        &self.wrapped_native_symbol
    }

    /// The wrapped native token (WETH9 or its clone).
    pub fn wrapped_native(&self) -> Address {
        self.tokens
            .get(&self.wrapped_native_symbol)
            .copied()
            .unwrap_or_default()
    }

    /// Native USDC.
    pub fn usdc(&self) -> Address {
        self.tokens.get(USDC).copied().unwrap_or_default()
    }

    /// The bridged USDC (`USDbC`, `USDC.e`) with its symbol, where the chain has one.
    pub fn usdc_bridged(&self) -> Option<(&str, Address)> {
        let symbol = self.bridged_usdc_symbol.as_deref()?;
        Some((symbol, *self.tokens.get(symbol)?))
    }

    /// A token by symbol.
    pub fn token(&self, symbol: &str) -> Option<Address> {
        self.tokens.get(symbol).copied()
    }

    /// Every token by symbol.
    pub fn tokens(&self) -> &BTreeMap<String, Address> {
        &self.tokens
    }

    /// The symbol the registry knows a token address by.
    pub fn symbol_of(&self, address: Address) -> Option<&str> {
        self.tokens
            .iter()
            .find(|(_, a)| **a == address)
            .map(|(symbol, _)| symbol.as_str())
    }

    /// The intermediate tokens of two-hop routes: the wrapped native token, WETH where it is
    /// not the native one (polygon), native USDC and the bridged USDC.
    pub fn hop_tokens(&self) -> Vec<Address> {
        let mut hops = vec![self.wrapped_native()];
        hops.extend(self.token("WETH"));
        hops.push(self.usdc());
        hops.extend(self.usdc_bridged().map(|(_, address)| address));
        let mut unique = Vec::with_capacity(hops.len());
        for hop in hops {
            if !hop.is_zero() && !unique.contains(&hop) {
                unique.push(hop);
            }
        }
        unique
    }

    /// A DEX, if deployed on this chain.
    pub fn dex(&self, id: DexId) -> Option<&Dex> {
        self.dexes.get(&id)
    }

    /// Every DEX deployed on this chain.
    pub fn dexes(&self) -> impl Iterator<Item = &Dex> {
        self.dexes.values()
    }

    /// Aave V3's PoolAddressesProvider (the Pool, oracle and data provider are resolved from
    /// it at runtime).
    pub fn aave_v3_pool_addresses_provider(&self) -> Option<Address> {
        self.aave_v3_pool_addresses_provider
    }

    /// The OP-stack GasPriceOracle predeploy, whose `getL1Fee(bytes)` prices the L1 data fee
    /// of a transaction (base and optimism; `None` on chains without one).
    pub fn l1_gas_price_oracle(&self) -> Option<Address> {
        self.l1_gas_price_oracle
    }

    /// Any contract by protocol and role, modelled or not (`uniswap_v3.quoter_v2`,
    /// `aave_v3.pool`, `core.multicall3`).
    pub fn contract(&self, protocol: &str, role: &str) -> Option<Address> {
        let modelled = match (protocol, role) {
            ("core", "multicall3") => Some(self.multicall3),
            ("core", "weth9") => Some(self.wrapped_native()),
            ("core", "gas_price_oracle") => self.l1_gas_price_oracle,
            ("aave_v3", "pool_addresses_provider") => self.aave_v3_pool_addresses_provider,
            _ => protocol
                .parse::<DexId>()
                .ok()
                .and_then(|id| self.dex(id))
                .and_then(|dex| dex_role(dex, role)),
        };
        modelled.or_else(|| self.other_contracts.get(protocol)?.get(role).copied())
    }

    fn apply(&mut self, overrides: ChainOverride) -> Result<(), ChainReadError> {
        let pool_manager = self.contract("uniswap_v4", "pool_manager");
        self.apply_overrides(overrides)?;
        // The index's start block is the built-in PoolManager's deployment block: another
        // PoolManager has its own, which only its configuration can give.
        if self.contract("uniswap_v4", "pool_manager") != pool_manager {
            self.v4_index = None;
        }
        Ok(())
    }

    fn apply_overrides(&mut self, overrides: ChainOverride) -> Result<(), ChainReadError> {
        let weth9 = overrides.contracts.get("core").and_then(|c| c.get("weth9"));
        let native_token = overrides.tokens.get(&self.wrapped_native_symbol);
        if let (Some(weth9), Some(token)) = (weth9, native_token)
            && weth9 != token
        {
            return Err(self.invalid(format!(
                "contracts.core.weth9 ({weth9}) and tokens.{} ({token}) disagree",
                self.wrapped_native_symbol
            )));
        }
        for (symbol, address) in overrides.tokens {
            self.set_token(&symbol, address)?;
        }
        for (protocol, roles) in overrides.contracts {
            match protocol.as_str() {
                "core" => self.apply_core(roles)?,
                "aave_v3" => {
                    for (role, address) in roles {
                        if role == "pool_addresses_provider" {
                            self.aave_v3_pool_addresses_provider = non_zero(address);
                        } else {
                            self.set_other(&protocol, role, address);
                        }
                    }
                }
                _ => match protocol.parse::<DexId>() {
                    Ok(id) => self.apply_dex(id, roles)?,
                    Err(_) => {
                        for (role, address) in roles {
                            self.set_other(&protocol, role, address);
                        }
                    }
                },
            }
        }
        Ok(())
    }

    fn set_token(&mut self, symbol: &str, address: Address) -> Result<(), ChainReadError> {
        if address.is_zero() {
            if symbol == self.wrapped_native_symbol || symbol == USDC {
                return Err(self.invalid(format!("tokens.{symbol} cannot be removed")));
            }
            self.tokens.remove(symbol);
        } else {
            self.tokens.insert(symbol.to_owned(), address);
        }
        Ok(())
    }

    fn apply_core(&mut self, roles: BTreeMap<String, Address>) -> Result<(), ChainReadError> {
        for (role, address) in roles {
            match role.as_str() {
                "multicall3" if address.is_zero() => {
                    return Err(self.invalid("contracts.core.multicall3 cannot be zero".into()));
                }
                "multicall3" => self.multicall3 = address,
                "gas_price_oracle" => self.l1_gas_price_oracle = non_zero(address),
                "weth9" => {
                    let symbol = self.wrapped_native_symbol.clone();
                    self.set_token(&symbol, address)?;
                }
                _ => self.set_other("core", role, address),
            }
        }
        Ok(())
    }

    fn apply_dex(
        &mut self,
        id: DexId,
        roles: BTreeMap<String, Address>,
    ) -> Result<(), ChainReadError> {
        let modelled = modelled_roles(id.kind());
        // V4 pool shapes to probe: `shape_<fee>_<tickSpacing>[_<label>] = <hooks>` (the zero
        // address is a hookless shape here, not a removal).
        let mut shapes = match self.dex(id).map(|d| &d.contracts) {
            Some(DexContracts::PoolManager { shapes, .. }) => shapes.clone(),
            _ => crate::dex::uniswap_v4::STANDARD_SHAPES.to_vec(),
        };
        let mut roles = roles;
        if id.kind() == DexKind::ConcentratedLiquidityV4 {
            let named: Vec<String> = roles
                .keys()
                .filter(|r| r.starts_with("shape_"))
                .cloned()
                .collect();
            for role in named {
                let hooks = roles.remove(&role).unwrap_or_default();
                let shape = v4_shape(&role, hooks).ok_or_else(|| {
                    self.invalid(format!(
                        "contracts.{id}.{role}: not shape_<fee>_<tickSpacing>[_<label>]"
                    ))
                })?;
                if !shapes.contains(&shape) {
                    shapes.push(shape);
                }
            }
        }
        // Start from what the registry holds, then lay the overrides over it.
        let mut fields: BTreeMap<&str, Option<Address>> = modelled
            .iter()
            .map(|role| (*role, self.dex(id).and_then(|dex| dex_role(dex, role))))
            .collect();
        for (role, address) in roles {
            match modelled.iter().find(|m| **m == role) {
                Some(known) => {
                    fields.insert(*known, non_zero(address));
                }
                None => self.set_other(id.as_str(), role, address),
            }
        }
        let get = |role: &str| fields.get(role).copied().flatten();
        let factory_role = modelled[0];
        let Some(factory) = get(factory_role) else {
            self.dexes.remove(&id);
            return Ok(());
        };
        if !id.has_adapter() {
            return Err(self.invalid(format!(
                "{id} is an Algebra version this service has no adapter for"
            )));
        }
        let contracts = match id.kind() {
            DexKind::ConcentratedLiquidity => DexContracts::ConcentratedLiquidity {
                factory,
                quoter_v2: get("quoter_v2").ok_or_else(|| {
                    self.invalid(format!("contracts.{id}.quoter_v2 is needed with a factory"))
                })?,
                tick_lens: get("tick_lens"),
                fee_tiers: match self.dex(id).map(|d| &d.contracts) {
                    Some(DexContracts::ConcentratedLiquidity { fee_tiers, .. }) => {
                        fee_tiers.clone()
                    }
                    _ => id.default_fee_tiers().to_vec(),
                },
            },
            DexKind::ConstantProduct => DexContracts::ConstantProduct {
                factory,
                router02: get("router02"),
                fee_bps: CONSTANT_PRODUCT_FEE_BPS,
            },
            DexKind::Solidly => DexContracts::Solidly {
                pool_factory: factory,
                router: get("router"),
            },
            DexKind::ConcentratedLiquidityV4 => DexContracts::PoolManager {
                pool_manager: factory,
                state_view: get("state_view").ok_or_else(|| {
                    self.invalid(format!(
                        "contracts.{id}.state_view is needed with a pool_manager"
                    ))
                })?,
                v4_quoter: get("v4_quoter").ok_or_else(|| {
                    self.invalid(format!(
                        "contracts.{id}.v4_quoter is needed with a pool_manager"
                    ))
                })?,
                shapes,
            },
            DexKind::Slipstream => {
                let quoter = |role: &str| {
                    get(role).ok_or_else(|| {
                        self.invalid(format!("contracts.{id}.{role} is needed with its factory"))
                    })
                };
                let mut deployments = vec![crate::SlipstreamDeployment {
                    factory,
                    quoter_v2: quoter("quoter_v2")?,
                }];
                if let Some(factory) = get("factory_2") {
                    deployments.push(crate::SlipstreamDeployment {
                        factory,
                        quoter_v2: quoter("quoter_v2_2")?,
                    });
                }
                DexContracts::Slipstream {
                    deployments,
                    tick_spacings: match self.dex(id).map(|d| &d.contracts) {
                        Some(DexContracts::Slipstream { tick_spacings, .. }) => {
                            tick_spacings.clone()
                        }
                        _ => crate::dex::slipstream::DEFAULT_TICK_SPACINGS.to_vec(),
                    },
                }
            }
            DexKind::AlgebraIntegral => DexContracts::Algebra {
                factory,
                quoter_v2: get("quoter_v2").ok_or_else(|| {
                    self.invalid(format!("contracts.{id}.quoter_v2 is needed with a factory"))
                })?,
            },
            DexKind::AlgebraV1 => DexContracts::AlgebraV1 {
                factory,
                quoter: get("quoter").ok_or_else(|| {
                    self.invalid(format!("contracts.{id}.quoter is needed with a factory"))
                })?,
            },
            DexKind::BalancerV2 => DexContracts::BalancerV2 {
                vault: factory,
                queries: get("queries").ok_or_else(|| {
                    self.invalid(format!("contracts.{id}.queries is needed with a vault"))
                })?,
                pools: match self.dex(id).map(|d| &d.contracts) {
                    Some(DexContracts::BalancerV2 { pools, .. }) => pools.clone(),
                    _ => Vec::new(),
                },
            },
        };
        self.dexes.insert(id, Dex { id, contracts });
        Ok(())
    }

    fn set_other(&mut self, protocol: &str, role: String, address: Address) {
        let roles = self.other_contracts.entry(protocol.to_owned()).or_default();
        if address.is_zero() {
            roles.remove(&role);
        } else {
            roles.insert(role, address);
        }
    }

    fn invalid(&self, message: String) -> ChainReadError {
        ChainReadError::InvalidConfig(format!("{}: {message}", self.chain))
    }
}

/// The roles the registry models per DEX kind; the first one decides whether the DEX exists.
fn modelled_roles(kind: DexKind) -> &'static [&'static str] {
    match kind {
        DexKind::ConcentratedLiquidity => &["factory", "quoter_v2", "tick_lens"],
        DexKind::ConstantProduct => &["factory", "router02"],
        DexKind::Solidly => &["pool_factory", "router"],
        DexKind::ConcentratedLiquidityV4 => &["pool_manager", "state_view", "v4_quoter"],
        DexKind::Slipstream => &["factory", "quoter_v2", "factory_2", "quoter_v2_2"],
        DexKind::AlgebraIntegral => &["factory", "quoter_v2"],
        DexKind::AlgebraV1 => &["factory", "quoter"],
        DexKind::BalancerV2 => &["vault", "queries"],
    }
}

/// A V4 shape from its configuration role, `shape_<fee>_<tickSpacing>[_<label>]`, and hooks.
fn v4_shape(role: &str, hooks: Address) -> Option<crate::dex::uniswap_v4::V4Shape> {
    let mut parts = role.strip_prefix("shape_")?.splitn(3, '_');
    let fee = parts.next()?.parse().ok()?;
    let tick_spacing = parts.next()?.parse().ok()?;
    Some(crate::dex::uniswap_v4::V4Shape {
        fee,
        tick_spacing,
        hooks,
    })
}

fn dex_role(dex: &Dex, role: &str) -> Option<Address> {
    match (&dex.contracts, role) {
        (DexContracts::ConcentratedLiquidity { factory, .. }, "factory")
        | (DexContracts::ConstantProduct { factory, .. }, "factory")
        | (DexContracts::Algebra { factory, .. }, "factory")
        | (DexContracts::AlgebraV1 { factory, .. }, "factory")
        | (
            DexContracts::Solidly {
                pool_factory: factory,
                ..
            },
            "pool_factory",
        ) => Some(*factory),
        (DexContracts::ConcentratedLiquidity { quoter_v2, .. }, "quoter_v2")
        | (DexContracts::Algebra { quoter_v2, .. }, "quoter_v2") => Some(*quoter_v2),
        (DexContracts::AlgebraV1 { quoter, .. }, "quoter") => Some(*quoter),
        (DexContracts::ConcentratedLiquidity { tick_lens, .. }, "tick_lens") => *tick_lens,
        (DexContracts::ConstantProduct { router02, .. }, "router02") => *router02,
        (DexContracts::Solidly { router, .. }, "router") => *router,
        (DexContracts::PoolManager { pool_manager, .. }, "pool_manager") => Some(*pool_manager),
        (DexContracts::PoolManager { state_view, .. }, "state_view") => Some(*state_view),
        (DexContracts::PoolManager { v4_quoter, .. }, "v4_quoter") => Some(*v4_quoter),
        (DexContracts::BalancerV2 { vault, .. }, "vault") => Some(*vault),
        (DexContracts::BalancerV2 { queries, .. }, "queries") => Some(*queries),
        (DexContracts::Slipstream { deployments, .. }, role) => {
            let (index, quoter) = match role {
                "factory" => (0, false),
                "quoter_v2" => (0, true),
                "factory_2" => (1, false),
                "quoter_v2_2" => (1, true),
                _ => return None,
            };
            deployments
                .get(index)
                .map(|d| if quoter { d.quoter_v2 } else { d.factory })
        }
        _ => None,
    }
}

fn non_zero(address: Address) -> Option<Address> {
    (!address.is_zero()).then_some(address)
}

/// The registry of all five chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    chains: [ChainInfo; 5],
}

impl Default for Registry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Registry {
    /// The built-in addresses (verified ones only).
    pub fn builtin() -> Self {
        Self {
            chains: Chain::ALL.map(builtin::chain),
        }
    }

    /// One chain's entry.
    pub fn chain(&self, chain: Chain) -> &ChainInfo {
        &self.chains[chain.index()]
    }

    /// Gives one chain a new, empty V4 pool index as configured (`None`: none).
    pub fn with_v4_index(
        mut self,
        chain: Chain,
        config: Option<crate::dex::v4_index::V4IndexConfig>,
    ) -> Self {
        self.chains[chain.index()].set_v4_index(config);
        self
    }

    /// Lays configuration overrides over one chain's entry.
    pub fn with_overrides(
        mut self,
        chain: Chain,
        overrides: ChainOverride,
    ) -> Result<Self, ChainReadError> {
        self.chains[chain.index()].apply(overrides)?;
        Ok(self)
    }

    /// The Balancer V2 pools probed on `chain`, in place of the built-in list (pool ids are
    /// 32 bytes, so they are not roles of `contracts.balancer_v2`, whose `vault` and `queries`
    /// configure the DEX). An error when the chain has no Balancer V2 entry.
    pub fn with_balancer_pools(
        mut self,
        chain: Chain,
        list: Vec<crate::dex::balancer::BalancerPoolEntry>,
    ) -> Result<Self, ChainReadError> {
        let info = &mut self.chains[chain.index()];
        match info.dexes.get_mut(&DexId::BalancerV2) {
            Some(Dex {
                contracts: DexContracts::BalancerV2 { pools, .. },
                ..
            }) => {
                *pools = list;
                Ok(self)
            }
            _ => Err(info.invalid("no balancer_v2 entry to list pools for".to_owned())),
        }
    }
}

#[cfg(test)]
mod tests;
