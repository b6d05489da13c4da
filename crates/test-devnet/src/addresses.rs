//! `testdata/devnet/addresses.json` as typed values: what was deployed where, and what the
//! build recorded that each contract answers at the final block.

use std::collections::BTreeMap;

use alloy::primitives::{Address, I256, U256};
use serde::{Deserialize, Serialize};

/// The whole file (the parts tests use; the rest stays in the JSON).
#[derive(Debug, Clone, Deserialize)]
pub struct Addresses {
    /// Every contract address of `contracts` by group and role, as [`Self::chain_override`]
    /// gives them (filled by [`Self::committed`], which reads the JSON).
    #[serde(skip)]
    contract_roles: BTreeMap<String, BTreeMap<String, Address>>,
    /// Chain facts and how to load the state.
    pub chain: ChainFacts,
    /// anvil dev account #0: owns every admin role (and is unlocked in every anvil).
    pub deployer: Deployer,
    /// USDC, Multicall3 and the x402 test accounts.
    pub payment_rail: PaymentRail,
    /// Tokens by symbol.
    pub tokens: BTreeMap<String, Token>,
    /// Protocol contracts.
    pub contracts: Contracts,
    /// Pools by DEX.
    pub pools: Pools,
    /// Chainlink-style feeds.
    pub feeds: Feeds,
    /// The Aave V3 market and its borrowers.
    pub aave: Aave,
    /// Swaps, sandwiches and traders (kept as JSON: each test reads what it needs).
    pub activity: serde_json::Value,
    /// What the build read back at the final block.
    pub checks: Checks,
}

/// Token and contract addresses overriding a chain's registry entry (chain-read's
/// `ChainOverride` without the dependency: test-devnet sits below chain-read's tests).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RegistryOverride {
    /// Token addresses by symbol.
    pub tokens: BTreeMap<String, Address>,
    /// Contract addresses by group and role.
    pub contracts: BTreeMap<String, BTreeMap<String, Address>>,
}

/// DEXes of the built-in base registry that the devnet does not deploy (their bytecode is
/// Uniswap V3's, proven by the `uniswap_v3` pools, deployed by a test on its own anvil, or in
/// no registry package: Slipstream's).
const NOT_ON_DEVNET: [&str; 3] = ["pancakeswap_v3", "sushiswap_v3", "aerodrome_slipstream"];

fn contract_roles(contracts: &serde_json::Value) -> BTreeMap<String, BTreeMap<String, Address>> {
    let parse = |v: &serde_json::Value| v.as_str().and_then(|s| s.parse::<Address>().ok());
    let mut roles: BTreeMap<String, BTreeMap<String, Address>> = BTreeMap::new();
    for (protocol, value) in contracts.as_object().into_iter().flatten() {
        if let Some(address) = parse(value) {
            roles
                .entry("core".into())
                .or_default()
                .insert(protocol.clone(), address);
        } else if let Some(members) = value.as_object() {
            roles.insert(
                protocol.clone(),
                members
                    .iter()
                    .filter_map(|(role, v)| Some((role.clone(), parse(v)?)))
                    .collect(),
            );
        }
    }
    roles
}

/// Chain facts.
#[derive(Debug, Clone, Deserialize)]
pub struct ChainFacts {
    /// 8453.
    pub chain_id: u64,
    /// The last block of the build.
    pub final_block: BlockRef,
    /// `--timestamp` to pass when loading (final block + 1 s).
    pub load_timestamp: u64,
    /// Blocks before this one were trimmed from the state.
    pub history_kept_from_block: u64,
}

/// A block number and its time.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct BlockRef {
    /// Number.
    pub number: u64,
    /// Unix seconds.
    pub timestamp: u64,
}

/// The account that deployed everything.
#[derive(Debug, Clone, Deserialize)]
pub struct Deployer {
    /// Its address.
    pub address: Address,
}

/// The x402 payment rail (same labelled keys as `deploy-base.mjs`).
#[derive(Debug, Clone, Deserialize)]
pub struct PaymentRail {
    /// USDC proxy at Base's address.
    pub usdc: Address,
    /// Multicall3.
    pub multicall3: Address,
    /// A payer holding 1,000 USDC.
    pub payer_private_key: String,
    /// Its address.
    pub payer_address: Address,
    /// A payer holding nothing.
    pub unfunded_payer_private_key: String,
    /// Its address.
    pub unfunded_payer_address: Address,
    /// The services' recipient.
    pub pay_to: Address,
    /// The facilitator key (holds ETH).
    pub facilitator_private_key: String,
    /// Its address.
    pub facilitator_address: Address,
}

/// A token.
#[derive(Debug, Clone, Deserialize)]
pub struct Token {
    /// Contract.
    pub address: Address,
    /// Decimals.
    pub decimals: u8,
}

/// Protocol contracts.
#[derive(Debug, Clone, Deserialize)]
pub struct Contracts {
    /// Multicall3.
    pub multicall3: Address,
    /// WETH9 at 0x4200…0006.
    pub weth9: Address,
    /// Uniswap V2.
    pub uniswap_v2: UniswapV2,
    /// Uniswap V3.
    pub uniswap_v3: UniswapV3,
    /// Aerodrome (Solidly-style).
    pub aerodrome: Aerodrome,
    /// Aave V3.
    pub aave_v3: AaveV3,
    /// Uniswap V4.
    pub uniswap_v4: UniswapV4,
}

/// Uniswap V4 contracts (v4-core and v4-periphery's published artifacts).
#[derive(Debug, Clone, Deserialize)]
pub struct UniswapV4 {
    /// PoolManager.
    pub pool_manager: Address,
    /// StateView.
    pub state_view: Address,
    /// V4Quoter.
    pub v4_quoter: Address,
    /// v4-core's liquidity test router.
    pub pool_modify_liquidity_test: Address,
    /// v4-core's swap test router.
    pub pool_swap_test: Address,
}

/// Uniswap V2 contracts.
#[derive(Debug, Clone, Deserialize)]
pub struct UniswapV2 {
    /// Factory.
    pub factory: Address,
    /// Router02.
    pub router02: Address,
}

/// Uniswap V3 contracts.
#[derive(Debug, Clone, Deserialize)]
pub struct UniswapV3 {
    /// Factory.
    pub factory: Address,
    /// NonfungiblePositionManager.
    pub nonfungible_position_manager: Address,
    /// SwapRouter.
    pub swap_router: Address,
    /// QuoterV2.
    pub quoter_v2: Address,
    /// TickLens.
    pub tick_lens: Address,
}

/// Aerodrome contracts.
#[derive(Debug, Clone, Deserialize)]
pub struct Aerodrome {
    /// PoolFactory.
    pub pool_factory: Address,
    /// Router.
    pub router: Address,
}

/// Aave V3 contracts.
#[derive(Debug, Clone, Deserialize)]
pub struct AaveV3 {
    /// PoolAddressesProvider (the entry point).
    pub pool_addresses_provider: Address,
    /// Pool proxy.
    pub pool: Address,
    /// AaveOracle.
    pub aave_oracle: Address,
    /// AaveProtocolDataProvider.
    pub protocol_data_provider: Address,
}

/// Pools by DEX.
#[derive(Debug, Clone, Deserialize)]
pub struct Pools {
    /// Uniswap V2 pairs.
    pub uniswap_v2: Vec<Pool>,
    /// Uniswap V3 pools.
    pub uniswap_v3: Vec<Pool>,
    /// Aerodrome pools.
    pub aerodrome: Vec<Pool>,
    /// Uniswap V4 pools.
    pub uniswap_v4: Vec<V4Pool>,
}

/// A Uniswap V4 pool and what StateView and V4Quoter answered for it at the final block.
#[derive(Debug, Clone, Deserialize)]
pub struct V4Pool {
    /// `CURRENCY0/CURRENCY1/…` (`ETH` for native ether).
    pub name: String,
    /// The PoolId.
    pub pool_id: alloy::primitives::B256,
    /// `ETH` or a token symbol.
    pub currency0: String,
    /// A token symbol.
    pub currency1: String,
    /// currency0 (zero for native ether).
    pub currency0_address: Address,
    /// currency1.
    pub currency1_address: Address,
    /// Fee in hundredths of a bip, or the dynamic-fee flag 0x800000.
    pub fee: u32,
    /// Tick spacing.
    pub tick_spacing: i32,
    /// Hooks contract (zero for none).
    pub hooks: Address,
    /// `dynamic_fee`, `fee_override` or none.
    pub hook_role: Option<String>,
    /// State and quotes at the final block.
    pub at_final_block: V4AtFinalBlock,
}

/// StateView's state and V4Quoter's answers at the final block.
#[derive(Debug, Clone, Deserialize)]
pub struct V4AtFinalBlock {
    /// `slot0.sqrtPriceX96`, decimal.
    pub sqrt_price_x96: String,
    /// `slot0.tick`.
    pub tick: i32,
    /// `slot0.lpFee`.
    pub lp_fee: u32,
    /// In-range liquidity, decimal.
    pub liquidity: String,
    /// Quotes.
    pub quotes: Vec<V4QuoteCheck>,
}

/// One V4Quoter answer.
#[derive(Debug, Clone, Deserialize)]
pub struct V4QuoteCheck {
    /// Selling currency0.
    pub zero_for_one: bool,
    /// Amount sold, decimal.
    pub exact_amount: String,
    /// Amount bought, decimal (absent when the quote reverted).
    pub amount_out: Option<String>,
    /// The quoter's gas estimate, decimal.
    pub gas_estimate: Option<String>,
}

/// A pool of any kind (fields absent for kinds that lack them).
#[derive(Debug, Clone, Deserialize)]
pub struct Pool {
    /// `TOKEN0/TOKEN1[/fee]`, tokens in address order.
    pub name: String,
    /// Contract.
    pub address: Address,
    /// token0.
    pub token0_address: Address,
    /// token1.
    pub token1_address: Address,
    /// V3 fee in parts per million.
    #[serde(default)]
    pub fee: Option<u32>,
    /// V3 tick spacing.
    #[serde(default)]
    pub tick_spacing: Option<i32>,
    /// Solidly stable flag.
    #[serde(default)]
    pub stable: Option<bool>,
}

/// What every devnet feed answers to `description()` (Chainlink's MockV3Aggregator, read from
/// the committed state): not a pair, so a server checking descriptions must be told to accept it.
pub const MOCK_FEED_DESCRIPTION: &str = "v0.8/tests/MockV3Aggregator.sol";

/// Feeds.
#[derive(Debug, Clone, Deserialize)]
pub struct Feeds {
    /// The pair whose last round is deliberately old.
    pub stale: String,
    /// The pair whose answer deliberately deviates from the DEX price.
    pub deviating: String,
    /// Feeds by pair (`ETH/USD`).
    pub by_pair: BTreeMap<String, Feed>,
}

/// One aggregator and its rounds.
#[derive(Debug, Clone, Deserialize)]
pub struct Feed {
    /// Contract.
    pub address: Address,
    /// Answer decimals.
    pub decimals: u8,
    /// Every round, oldest first.
    pub rounds: Vec<Round>,
}

/// One round.
#[derive(Debug, Clone, Deserialize)]
pub struct Round {
    /// Round id.
    pub round_id: u64,
    /// Answer.
    #[serde(deserialize_with = "decimal_i256")]
    pub answer: I256,
    /// startedAt.
    pub started_at: u64,
    /// updatedAt.
    pub updated_at: u64,
}

/// The Aave market.
#[derive(Debug, Clone, Deserialize)]
pub struct Aave {
    /// Reserves by symbol.
    pub reserves: BTreeMap<String, AaveReserve>,
    /// Borrower wallets by role (`healthy`, `near_liquidation`, …).
    pub borrowers: BTreeMap<String, Borrower>,
}

/// One Aave reserve as the build configured it.
#[derive(Debug, Clone, Deserialize)]
pub struct AaveReserve {
    /// The underlying asset.
    pub asset: Address,
    /// Its aToken.
    pub a_token: Address,
    /// LTV, basis points.
    pub ltv_bps: u16,
    /// Liquidation threshold, basis points.
    pub liquidation_threshold_bps: u16,
    /// Liquidation bonus, basis points.
    pub liquidation_bonus_bps: u16,
    /// Whether stable-rate borrowing is enabled.
    pub stable_borrowing: bool,
    /// The pair of its price feed in `feeds.by_pair` (`ETH/USD`).
    pub feed: String,
    /// Its eMode category (0 = none).
    pub emode_category: u8,
}

/// A wallet with a purpose.
#[derive(Debug, Clone, Deserialize)]
pub struct Borrower {
    /// Address.
    pub address: Address,
    /// What it is meant to show.
    pub intent: String,
    /// Its key (test-only, derived from its label).
    pub private_key: String,
    /// aToken amounts supplied at build time, by symbol.
    #[serde(default)]
    pub supplied: BTreeMap<String, String>,
    /// Debts opened at build time.
    #[serde(default)]
    pub borrowed: Vec<Borrowed>,
    /// eMode category (0 = none).
    pub emode_category: u8,
    /// `getUserAccountData` at the final block.
    pub account_data: AccountData,
}

/// One borrow of a borrower.
#[derive(Debug, Clone, Deserialize)]
pub struct Borrowed {
    /// Symbol.
    pub asset: String,
    /// Amount in the asset's smallest unit.
    pub amount: String,
    /// `variable` or `stable`.
    pub rate_mode: String,
}

/// `Pool.getUserAccountData`.
#[derive(Debug, Clone, Deserialize)]
pub struct AccountData {
    /// Collateral in the base currency (8 decimals).
    #[serde(deserialize_with = "decimal_u256")]
    pub total_collateral_base: U256,
    /// Debt in the base currency.
    #[serde(deserialize_with = "decimal_u256")]
    pub total_debt_base: U256,
    /// Borrowing power left.
    #[serde(deserialize_with = "decimal_u256")]
    pub available_borrows_base: U256,
    /// Weighted liquidation threshold, bps.
    #[serde(deserialize_with = "decimal_u256")]
    pub current_liquidation_threshold: U256,
    /// Weighted LTV, bps.
    #[serde(deserialize_with = "decimal_u256")]
    pub ltv: U256,
    /// Health factor, 18 decimals.
    #[serde(deserialize_with = "decimal_u256")]
    pub health_factor: U256,
}

/// What the build read back.
#[derive(Debug, Clone, Deserialize)]
pub struct Checks {
    /// QuoterV2 quotes per V3 pool.
    pub v3_quotes: BTreeMap<String, V3Check>,
    /// Reserves and Router02 quotes per V2 pair.
    pub v2_pairs: BTreeMap<String, PairCheck>,
    /// Reserves and `getAmountOut` per Aerodrome pool.
    pub aerodrome_pools: BTreeMap<String, PairCheck>,
    /// `observe([1800, 0])` per pool.
    pub twap: BTreeMap<String, TwapCheck>,
    /// The block all checks were read at.
    pub read_at_block: u64,
}

/// A V3 pool's state and quotes.
#[derive(Debug, Clone, Deserialize)]
pub struct V3Check {
    /// Pool.
    pub pool: Address,
    /// slot0 price.
    #[serde(deserialize_with = "decimal_u256")]
    pub sqrt_price_x96: U256,
    /// slot0 tick.
    pub tick: i32,
    /// In-range liquidity.
    #[serde(deserialize_with = "decimal_u256")]
    pub liquidity: U256,
    /// Quotes.
    pub quotes: Vec<V3Quote>,
}

/// One QuoterV2 `quoteExactInputSingle` answer.
#[derive(Debug, Clone, Deserialize)]
pub struct V3Quote {
    /// Symbol sold.
    pub token_in: String,
    /// Amount sold.
    #[serde(deserialize_with = "decimal_u256")]
    pub amount_in: U256,
    /// Amount bought.
    #[serde(deserialize_with = "decimal_u256")]
    pub amount_out: U256,
    /// Price after the swap.
    #[serde(deserialize_with = "decimal_u256")]
    pub sqrt_price_x96_after: U256,
    /// Initialized ticks crossed.
    pub initialized_ticks_crossed: u32,
}

/// A constant-product or Solidly pool's reserves and quotes.
#[derive(Debug, Clone, Deserialize)]
pub struct PairCheck {
    /// Pair (V2).
    #[serde(default)]
    pub pair: Option<Address>,
    /// Pool (Aerodrome).
    #[serde(default)]
    pub pool: Option<Address>,
    /// reserve0.
    #[serde(deserialize_with = "decimal_u256")]
    pub reserve0: U256,
    /// reserve1.
    #[serde(deserialize_with = "decimal_u256")]
    pub reserve1: U256,
    /// Quotes.
    pub quotes: Vec<PairQuote>,
}

impl PairCheck {
    /// The pair or pool address.
    pub fn address(&self) -> Option<Address> {
        self.pair.or(self.pool)
    }
}

/// One amount-out answer.
#[derive(Debug, Clone, Deserialize)]
pub struct PairQuote {
    /// Symbol sold.
    pub token_in: String,
    /// Amount sold.
    #[serde(deserialize_with = "decimal_u256")]
    pub amount_in: U256,
    /// Amount bought.
    #[serde(deserialize_with = "decimal_u256")]
    pub amount_out: U256,
}

/// `observe` over a window.
#[derive(Debug, Clone, Deserialize)]
pub struct TwapCheck {
    /// Pool.
    pub pool: Address,
    /// The window's ends, seconds ago.
    pub seconds_agos: Vec<u32>,
    /// tickCumulatives.
    pub tick_cumulatives: Vec<String>,
    /// Mean tick over the window.
    pub mean_tick: i32,
    /// slot0 tick.
    pub spot_tick: i32,
}

fn decimal_u256<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<U256, D::Error> {
    let text = String::deserialize(deserializer)?;
    U256::from_str_radix(&text, 10).map_err(serde::de::Error::custom)
}

fn decimal_i256<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<I256, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse::<I256>().map_err(serde::de::Error::custom)
}

impl Addresses {
    /// Reads the committed `testdata/devnet/addresses.json`.
    pub fn committed() -> Result<Self, crate::DevnetError> {
        let path = crate::devnet_dir().join("addresses.json");
        let text = std::fs::read_to_string(&path)?;
        let raw: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| crate::DevnetError::Addresses(e.to_string()))?;
        let mut addresses: Self = serde_json::from_value(raw.clone())
            .map_err(|e| crate::DevnetError::Addresses(e.to_string()))?;
        addresses.contract_roles = contract_roles(&raw["contracts"]);
        // Every V4 pool's shape is probed on the devnet (the standard ones are already).
        let shapes = addresses
            .contract_roles
            .entry("uniswap_v4".into())
            .or_default();
        for pool in &addresses.pools.uniswap_v4 {
            let label = pool.hook_role.as_deref().unwrap_or("hookless");
            shapes.insert(
                format!("shape_{}_{}_{label}", pool.fee, pool.tick_spacing),
                pool.hooks,
            );
        }
        Ok(addresses)
    }

    /// The devnet's tokens and contracts as a chain registry override of chain `base`: tokens
    /// by symbol; top-level contract addresses (multicall3, weth9) form the `core` group, nested
    /// objects keep their protocol name, members that are not addresses are left out. The
    /// registry's `ChainOverride` has the same two fields.
    pub fn chain_override(&self) -> RegistryOverride {
        let mut contracts = self.contract_roles.clone();
        // The built-in base registry holds V3 forks the devnet does not deploy: a zero factory
        // removes them, so reads on the devnet list them as not deployed rather than call
        // mainnet addresses that hold no code here.
        for dex in NOT_ON_DEVNET {
            contracts
                .entry(dex.to_owned())
                .or_default()
                .entry("factory".to_owned())
                .or_insert(Address::ZERO);
        }
        RegistryOverride {
            tokens: self
                .tokens
                .iter()
                .map(|(symbol, token)| (symbol.clone(), token.address))
                .collect(),
            contracts,
        }
    }

    /// [`Self::chain_override`] as the analytics server is configured on the devnet: of Aave
    /// only the PoolAddressesProvider, since the Pool, oracle and data provider are resolved
    /// from it on every request, on the devnet as on the real chains.
    /// The devnet's aggregator feeds are listed under `chainlink` by pair (`ETH/USD`), the
    /// shape of `contracts.chainlink` in the server's configuration; their `description()` is
    /// [`MOCK_FEED_DESCRIPTION`], which the server must be told to accept.
    pub fn server_override(&self) -> RegistryOverride {
        let mut registry = self.chain_override();
        if let Some(aave) = registry.contracts.get_mut("aave_v3") {
            aave.retain(|role, _| role == "pool_addresses_provider");
        }
        registry.contracts.insert(
            "chainlink".to_owned(),
            self.feeds
                .by_pair
                .iter()
                .map(|(pair, feed)| (pair.clone(), feed.address))
                .collect(),
        );
        registry
    }

    /// `crosscheck.feed_descriptions` for the devnet: every feed pair with
    /// [`MOCK_FEED_DESCRIPTION`].
    pub fn feed_descriptions(&self) -> BTreeMap<String, String> {
        self.feeds
            .by_pair
            .keys()
            .map(|pair| (pair.clone(), MOCK_FEED_DESCRIPTION.to_owned()))
            .collect()
    }

    /// A token's address by symbol.
    pub fn token(&self, symbol: &str) -> Option<Address> {
        self.tokens.get(symbol).map(|token| token.address)
    }
}
