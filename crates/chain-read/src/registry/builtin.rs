//! The built-in registry: every address here was read in an authoritative public source (the
//! protocol's own deployment list, repository or address book). Addresses that could not be
//! checked that way are left out on purpose, so callers report those DEXes as "not deployed on
//! this chain" until an address is verified (or configured as an override):
//!
//! - Multicall3, one address on all five chains;
//! - wrapped native, native USDC and the bridged USDC (USDbC, USDC.e);
//! - Uniswap V3 factory, QuoterV2 (not the V1 Quoter of sdk-core's map) and TickLens;
//! - Uniswap V2 factory and Router02; SushiSwap V2 factory on ethereum and base, and factory
//!   and router on arbitrum, optimism and polygon as Sushi's `sushi` npm package 7.3.15 lists
//!   them (`evm/config/features/sushiswap-v2.ts`: `SUSHISWAP_V2_FACTORY_ADDRESS`,
//!   `SUSHISWAP_V2_ROUTER_ADDRESS`);
//! - Aerodrome (base) and Velodrome V2 (optimism) PoolFactory and Router;
//! - Aerodrome Slipstream (base) and Velodrome Slipstream (optimism): both CL factories of
//!   each chain with the QuoterV2 deployed beside it, as the protocols' repositories list them
//!   (github.com/aerodrome-finance/slipstream `script/constants/output/DeployCL-Base.json` and
//!   `DeployCL-Base-Gauge-Caps.json`; github.com/velodrome-finance/slipstream README's tables
//!   and `DeployCL-Optimism.json`; see docs/decisions.md, "Slipstream"), probed at the
//!   factories' default tick spacings;
//! - Uniswap V4 PoolManager, StateView and V4Quoter on all five chains, as `@uniswap/sdk-core`
//!   7.19.4 lists them (`dist/esm/src/addresses.js`: `v4PoolManagerAddress`, `v4StateView`,
//!   `v4QuoterAddress`), probed with the standard hookless pool shapes;
//! - Aave V3 PoolAddressesProvider;
//! - the OP-stack GasPriceOracle predeploy `0x420000000000000000000000000000000000000F` on base
//!   and optimism (ethereum-optimism/optimism
//!   `packages/contracts-bedrock/src/L2/GasPriceOracle.sol` @04b4b34, `@custom:predeploy` and
//!   `getL1Fee(bytes)` on the unsigned RLP-encoded transaction).
//!
//! - SushiSwap V3 factory, QuoterV2 and TickLens on all five chains as the `sushi` npm package
//!   7.3.15 lists them (`evm/config/features/sushiswap-v3.ts`: `SUSHISWAP_V3_FACTORY_ADDRESS`,
//!   `SUSHISWAP_V3_QUOTER`, which Sushi's v3-periphery deployments name QuoterV2,
//!   `SUSHISWAP_V3_TICK_LENS`); its pools are Uniswap V3's bytecode (the package's
//!   `POOL_INIT_CODE_HASH` is Uniswap V3's);
//! - PancakeSwap V3 factory, QuoterV2 and TickLens on ethereum, base and arbitrum, as
//!   `@pancakeswap/v3-sdk` 3.10.2 (`FACTORY_ADDRESSES`) and `@pancakeswap/smart-router` 7.7.3
//!   (`V3_QUOTER_ADDRESSES`, `V3_TICK_LENS_ADDRESSES`) list them; fee tiers 100/500/2500/10000.
//!
//! - QuickSwap V3 (Algebra V1) on polygon: AlgebraFactory `0x411b0fAcC3489691f28ad58c47006AF5E3Ab3A28`
//!   (docs.quickswap.exchange/technical-reference/smart-contracts/v3/factory) and Quoter
//!   `0xa15F0D7377B2A0C0c10db057f641beD21028FC89`
//!   (docs.quickswap.exchange/reference/smart-contracts/v3/04-quoter, whose
//!   `quoteExactInputSingle(address,address,uint256,uint160)` answers `(amountOut, uint16 fee)`:
//!   `@cryptoalgebra/periphery` 1.0.0's `IQuoter`, the one the adapter calls).
//! - Balancer V2 on ethereum: the Vault and BalancerQueries as `@balancer-labs/v2-deployments`
//!   3.2.0 lists them (`dist/tasks/20210418-vault/output/mainnet.json`,
//!   `dist/tasks/20220721-balancer-queries/output/mainnet.json`), and the weighted and
//!   composable stable pools among Balancer's ethereum "core pools" (github.com/BalancerMaxis/
//!   multisig-ops `config/core_pools.json` @0132b2be: the pools whose fees Balancer's DAO
//!   redirects, its largest by fees), with their tokens (see docs/decisions.md, "Balancer V2 in
//!   `/dex/quote`"); the state read checks each pool's tokens against the Vault's.
//!
//! Camelot V3 (Algebra 1.9) has no adapter: absent on every chain.
//! Camelot V4 (Algebra Integral) has one but is not listed: which quoter sits at the address
//! Camelot publishes could not be checked (docs/decisions.md, "Algebra Integral"); it is read
//! where the configuration names it.

use std::collections::BTreeMap;

use alloy::primitives::{Address, address};

use super::{CONSTANT_PRODUCT_FEE_BPS, Chain, ChainInfo, Dex, DexContracts, DexId, USDC};
use crate::dex::uniswap_v4::STANDARD_SHAPES;
use crate::dex::v4_index::{V4IndexConfig, V4PoolIndex};

/// Multicall3, the same on every chain (§2.1).
const MULTICALL3: Address = address!("cA11bde05977b3631167028862bE2a173976CA11");

/// Uniswap V3 on ethereum, arbitrum, optimism and polygon (§2.3).
const UNI_V3_FACTORY: Address = address!("1F98431c8aD98523631AE4a59f267346ea31F984");
const UNI_V3_QUOTER_V2: Address = address!("61fFE014bA17989E743c5F6cB21bF9697530B21e");
const UNI_V3_TICK_LENS: Address = address!("bfd8137f7d1516D3ea5cA83523914859ec47F573");

/// PancakeSwap V3, the same on ethereum, base and arbitrum (module documentation).
const PANCAKE_V3_FACTORY: Address = address!("0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865");
const PANCAKE_V3_QUOTER_V2: Address = address!("B048Bbc1Ee6b733FFfCFb9e9CeF7375518e25997");
const PANCAKE_V3_TICK_LENS: Address = address!("9a489505a00cE272eAa5e07Dba6491314CaE3796");

/// SushiSwap V3's QuoterV2 on base, optimism and polygon (module documentation).
const SUSHI_V3_QUOTER_V2: Address = address!("b1e835dc2785b52265711e17fccb0fd018226a6e");

/// Uniswap V2 Router02 on base and arbitrum (§2.4).
const UNI_V2_ROUTER_BASE_ARB: Address = address!("4752ba5dbc23f44d87826276bf6fd6b1c372ad24");

/// The OP-stack GasPriceOracle predeploy (see the module documentation).
const OP_GAS_PRICE_ORACLE: Address = address!("420000000000000000000000000000000000000F");

/// Aave V3 PoolAddressesProvider shared by arbitrum, optimism and polygon (§2.7).
const AAVE_PROVIDER_ARB_OP_POLY: Address = address!("a97684ead0e402dC232d5A977953DF7ECBaB3CDb");

/// The built-in entry of one chain.
pub(super) fn chain(chain: Chain) -> ChainInfo {
    match chain {
        Chain::Base => build(Spec {
            chain,
            chain_id: 8453,
            multicall3: MULTICALL3,
            native: ("WETH", address!("4200000000000000000000000000000000000006")),
            usdc: address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
            bridged_usdc: Some((
                "USDbC",
                address!("d9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA"),
            )),
            extra_tokens: vec![],
            dexes: vec![
                uniswap_v3(
                    address!("33128a8fC17869897dcE68Ed026d694621f6FDfD"),
                    address!("3d4e44Eb1374240CE5F1B871ab261CD16335B76a"),
                    address!("0CdeE061c75D43c82520eD998C23ac2991c9ac6d"),
                ),
                v2(
                    DexId::UniswapV2,
                    address!("8909Dc15e40173Ff4699343b6eB8132c65e18eC6"),
                    Some(UNI_V2_ROUTER_BASE_ARB),
                ),
                v2(
                    DexId::SushiswapV2,
                    address!("71524B4f93c58fcbF659783284E38825f0622859"),
                    None,
                ),
                solidly(
                    DexId::Aerodrome,
                    address!("420DD381b31aEf6683db6B902084cB0FFECe40Da"),
                    address!("cF77a3Ba9A5CA399B7c97c74d54e5b1Beb874E43"),
                ),
                uniswap_v4(
                    address!("498581ff718922c3f8e6a244956af099b2652b2b"),
                    address!("a3c0c9b65bad0b08107aa264b0f3db444b867a71"),
                    address!("0d5e0f971ed27fbff6c2837bf31316121532048d"),
                ),
                v3_fork(
                    DexId::SushiswapV3,
                    address!("c35dadb65012ec5796536bd9864ed8773abc74c4"),
                    SUSHI_V3_QUOTER_V2,
                    address!("f4d73326c13a4fc5fd7a064217e12780e9bd62c3"),
                ),
                pancake_v3(),
                slipstream(
                    DexId::AerodromeSlipstream,
                    [
                        // DeployCL-Base.json: PoolFactory, Quoter (a QuoterV2).
                        (
                            address!("5e7BB104d84c7CB9B682AaC2F3d509f5F406809A"),
                            address!("254cF9E1E6e233aa1AC962CB9B05b2cfeAaE15b0"),
                        ),
                        // DeployCL-Base-Gauge-Caps.json.
                        (
                            address!("aDe65c38CD4849aDBA595a4323a8C7DdfE89716a"),
                            address!("3d4C22254F86f64B7eC90ab8F7aeC1FBFD271c6C"),
                        ),
                    ],
                ),
            ],
            aave_v3_pool_addresses_provider: Some(address!(
                "e20fCBdBfFC4Dd138cE8b2E6FBb6CB49777ad64D"
            )),
            l1_gas_price_oracle: Some(OP_GAS_PRICE_ORACLE),
        }),
        Chain::Ethereum => build(Spec {
            chain,
            chain_id: 1,
            multicall3: MULTICALL3,
            native: ("WETH", address!("C02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2")),
            usdc: address!("A0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
            bridged_usdc: None,
            extra_tokens: vec![],
            dexes: vec![
                uniswap_v3(UNI_V3_FACTORY, UNI_V3_QUOTER_V2, UNI_V3_TICK_LENS),
                v2(
                    DexId::UniswapV2,
                    address!("5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f"),
                    Some(address!("7a250d5630B4cF539739dF2C5dAcb4c659F2488D")),
                ),
                v2(
                    DexId::SushiswapV2,
                    address!("C0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac"),
                    None,
                ),
                uniswap_v4(
                    address!("000000000004444c5dc75cB358380D2e3dE08A90"),
                    address!("7ffe42c4a5deea5b0fec41c94c136cf115597227"),
                    address!("52f0e24d1c21c8a0cb1e5a5dd6198556bd9e1203"),
                ),
                v3_fork(
                    DexId::SushiswapV3,
                    address!("baceb8ec6b9355dfc0269c18bac9d6e2bdc29c4f"),
                    address!("64e8802fe490fa7cc61d3463958199161bb608a7"),
                    address!("fb70ad5a200d784e7901230e6875d91d5fa6b68c"),
                ),
                pancake_v3(),
                balancer_v2_ethereum(),
            ],
            aave_v3_pool_addresses_provider: Some(address!(
                "2f39d218133AFaB8F2B819B1066c7E434Ad94E9e"
            )),
            l1_gas_price_oracle: None,
        }),
        Chain::Arbitrum => build(Spec {
            chain,
            chain_id: 42161,
            multicall3: MULTICALL3,
            native: ("WETH", address!("82aF49447D8a07e3bd95BD0d56f35241523fBab1")),
            usdc: address!("af88d065e77c8cC2239327C5EDb3A432268e5831"),
            bridged_usdc: Some((
                "USDC.e",
                address!("FF970A61A04b1cA14834A43f5dE4533eBDDB5CC8"),
            )),
            extra_tokens: vec![],
            dexes: vec![
                uniswap_v3(UNI_V3_FACTORY, UNI_V3_QUOTER_V2, UNI_V3_TICK_LENS),
                v2(
                    DexId::UniswapV2,
                    address!("f1D7CC64Fb4452F05c498126312eBE29f30Fbcf9"),
                    Some(UNI_V2_ROUTER_BASE_ARB),
                ),
                v2(
                    DexId::SushiswapV2,
                    address!("c35DADB65012eC5796536bD9864eD8773aBc74C4"),
                    Some(address!("1b02dA8Cb0d097eB8D57A175b88c7D8b47997506")),
                ),
                uniswap_v4(
                    address!("360e68faccca8ca495c1b759fd9eee466db9fb32"),
                    address!("76fd297e2d437cd7f76d50f01afe6160f86e9990"),
                    address!("3972c00f7ed4885e145823eb7c655375d275a1c5"),
                ),
                v3_fork(
                    DexId::SushiswapV3,
                    address!("1af415a1eba07a4986a52b6f2e7de7003d82231e"),
                    address!("0524e833ccd057e4d7a296e3aaab9f7675964ce1"),
                    address!("8516944e89f296eb6473d79aed1ba12088016c9e"),
                ),
                pancake_v3(),
            ],
            aave_v3_pool_addresses_provider: Some(AAVE_PROVIDER_ARB_OP_POLY),
            l1_gas_price_oracle: None,
        }),
        Chain::Optimism => build(Spec {
            chain,
            chain_id: 10,
            multicall3: MULTICALL3,
            native: ("WETH", address!("4200000000000000000000000000000000000006")),
            usdc: address!("0b2C639c533813f4Aa9D7837CAf62653d097Ff85"),
            bridged_usdc: Some((
                "USDC.e",
                address!("7F5c764cBc14f9669B88837ca1490cCa17c31607"),
            )),
            extra_tokens: vec![],
            dexes: vec![
                uniswap_v3(UNI_V3_FACTORY, UNI_V3_QUOTER_V2, UNI_V3_TICK_LENS),
                v2(
                    DexId::UniswapV2,
                    address!("0c3c1c532F1e39EdF36BE9Fe0bE1410313E074Bf"),
                    Some(address!("4A7b5Da61326A6379179b40d00F57E5bbDC962c2")),
                ),
                solidly(
                    DexId::Velodrome,
                    address!("F1046053aa5682b4F9a81b5481394DA16BE5FF5a"),
                    address!("a062aE8A9c5e11aaA026fc2670B0D65cCc8B2858"),
                ),
                v2(
                    DexId::SushiswapV2,
                    address!("FbC12984689e5f15626Bad03Ad60160Fe98B303C"),
                    Some(address!("2ABf469074dc0b54d793850807E6eb5Faf2625b1")),
                ),
                uniswap_v4(
                    address!("9a13f98cb987694c9f086b1f5eb990eea8264ec3"),
                    address!("c18a3169788f4f75a170290584eca6395c75ecdb"),
                    address!("1f3131a13296fb91c90870043742c3cdbff1a8d7"),
                ),
                v3_fork(
                    DexId::SushiswapV3,
                    address!("9c6522117e2ed1fe5bdb72bb0ed5e3f2bde7dbe0"),
                    SUSHI_V3_QUOTER_V2,
                    address!("0367a647a68f304f2a6e453c25033a4249d7f2c6"),
                ),
                slipstream(
                    DexId::VelodromeSlipstream,
                    [
                        // The README's first table: PoolFactory, QuoterV2.
                        (
                            address!("Cc0bDDB707055e04e497aB22a59c2aF4391cd12F"),
                            address!("89D8218ed5fF1e46d8dcd33fb0bbeE3be1621466"),
                        ),
                        // "Gauges V2", as DeployCL-Optimism.json.
                        (
                            address!("e13Dd1fbA721Aa81a1826D9523AC9BC7d260c879"),
                            address!("Ad432b2ca49965266133F2bd4c17dc1Ec12f5DEB"),
                        ),
                    ],
                ),
            ],
            aave_v3_pool_addresses_provider: Some(AAVE_PROVIDER_ARB_OP_POLY),
            l1_gas_price_oracle: Some(OP_GAS_PRICE_ORACLE),
        }),
        Chain::Polygon => build(Spec {
            chain,
            chain_id: 137,
            multicall3: MULTICALL3,
            // The wrapped native token on polygon is WPOL; WETH is an ordinary (bridged) token
            // that is still a useful hop.
            native: ("WPOL", address!("0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270")),
            usdc: address!("3c499c542cEF5E3811e1192ce70d8cC03d5c3359"),
            bridged_usdc: Some((
                "USDC.e",
                address!("2791Bca1f2de4661ED88A30C99A7a9449Aa84174"),
            )),
            extra_tokens: vec![("WETH", address!("7ceB23fD6bC0adD59E62ac25578270cFf1b9f619"))],
            dexes: vec![
                uniswap_v3(UNI_V3_FACTORY, UNI_V3_QUOTER_V2, UNI_V3_TICK_LENS),
                v2(
                    DexId::UniswapV2,
                    address!("9e5A52f57b3038F1B8EeE45F28b3C1967e22799C"),
                    Some(address!("edf6066a2b290c185783862c7f4776a2c8077ad1")),
                ),
                v2(
                    DexId::SushiswapV2,
                    address!("c35DADB65012eC5796536bD9864eD8773aBc74C4"),
                    Some(address!("1b02dA8Cb0d097eB8D57A175b88c7D8b47997506")),
                ),
                uniswap_v4(
                    address!("67366782805870060151383f4bbff9dab53e5cd6"),
                    address!("5ea1bd7974c8a611cbab0bdcafcb1d9cc9b3ba5a"),
                    address!("b3d5c3dfc3a7aebff71895a7191796bffc2c81b9"),
                ),
                v3_fork(
                    DexId::SushiswapV3,
                    address!("917933899c6a5f8e37f31e19f92cdbff7e8ff0e2"),
                    SUSHI_V3_QUOTER_V2,
                    address!("9fdea1412e50d78b25ace4f96d35801647fdf7da"),
                ),
                // QuickSwap's docs (module documentation).
                Dex {
                    id: DexId::QuickswapV3,
                    contracts: DexContracts::AlgebraV1 {
                        factory: address!("411b0fAcC3489691f28ad58c47006AF5E3Ab3A28"),
                        quoter: address!("a15F0D7377B2A0C0c10db057f641beD21028FC89"),
                    },
                },
            ],
            aave_v3_pool_addresses_provider: Some(AAVE_PROVIDER_ARB_OP_POLY),
            l1_gas_price_oracle: None,
        }),
    }
}

fn uniswap_v4(pool_manager: Address, state_view: Address, v4_quoter: Address) -> Dex {
    Dex {
        id: DexId::UniswapV4,
        contracts: DexContracts::PoolManager {
            pool_manager,
            state_view,
            v4_quoter,
            shapes: STANDARD_SHAPES.to_vec(),
        },
    }
}

fn uniswap_v3(factory: Address, quoter_v2: Address, tick_lens: Address) -> Dex {
    v3_fork(DexId::UniswapV3, factory, quoter_v2, tick_lens)
}

/// A DEX of Uniswap V3's contracts (or a fork with its interfaces) with its fee tiers.
fn v3_fork(id: DexId, factory: Address, quoter_v2: Address, tick_lens: Address) -> Dex {
    Dex {
        id,
        contracts: DexContracts::ConcentratedLiquidity {
            factory,
            quoter_v2,
            tick_lens: Some(tick_lens),
            fee_tiers: id.default_fee_tiers().to_vec(),
        },
    }
}

fn pancake_v3() -> Dex {
    v3_fork(
        DexId::PancakeswapV3,
        PANCAKE_V3_FACTORY,
        PANCAKE_V3_QUOTER_V2,
        PANCAKE_V3_TICK_LENS,
    )
}

fn v2(id: DexId, factory: Address, router02: Option<Address>) -> Dex {
    Dex {
        id,
        contracts: DexContracts::ConstantProduct {
            factory,
            router02,
            fee_bps: CONSTANT_PRODUCT_FEE_BPS,
        },
    }
}

fn solidly(id: DexId, pool_factory: Address, router: Address) -> Dex {
    Dex {
        id,
        contracts: DexContracts::Solidly {
            pool_factory,
            router: Some(router),
        },
    }
}

/// A Slipstream DEX: its CL factories, each with its QuoterV2, in discovery's order.
fn slipstream(id: DexId, deployments: [(Address, Address); 2]) -> Dex {
    Dex {
        id,
        contracts: DexContracts::Slipstream {
            deployments: deployments
                .into_iter()
                .map(|(factory, quoter_v2)| super::SlipstreamDeployment { factory, quoter_v2 })
                .collect(),
            tick_spacings: crate::dex::slipstream::DEFAULT_TICK_SPACINGS.to_vec(),
        },
    }
}

/// Balancer V2 on ethereum: the Vault, BalancerQueries and the weighted and composable stable
/// pools of Balancer's ethereum core-pool list (module documentation).
fn balancer_v2_ethereum() -> Dex {
    use crate::dex::balancer::{BalancerPoolEntry, BalancerPoolType};
    use alloy::primitives::b256;
    const WETH: Address = address!("C02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2");
    const WSTETH: Address = address!("7f39C581F595B53c5cb19bD0b3f8dA6c935E2Ca0");
    const RETH: Address = address!("ae78736Cd615f374D3085123A210448E74Fc6393");
    const SFRXETH: Address = address!("ac3E018457B222d93114458476f3E3416Abbe38F");
    const SWETH: Address = address!("f951E335afb289353dc249e82926178EaC7DEd78");
    const ETHX: Address = address!("A35b1B31Ce002FBF2058D22F30f95D405200A15b");
    const GHO: Address = address!("40D16FC0246aD3160Ccc09B8D0D3A2cD28aE6C2f");
    const USDT: Address = address!("dAC17F958D2ee523a2206206994597C13D831ec7");
    const USDC_ETH: Address = address!("A0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48");
    const LDO: Address = address!("5A98FcBEA516Cf06857215779Fd812CA3beF1B32");
    const RPL: Address = address!("D33526068D116cE69F19A9ee46F0bd304F21A51f");
    const ALCX: Address = address!("dBdb4d16EdA451D0503b854CF79D55697F90c8DF");
    let stable = |id, tokens: &[Address]| BalancerPoolEntry {
        id,
        pool_type: BalancerPoolType::ComposableStable,
        tokens: tokens.to_vec(),
    };
    let weighted = |id, tokens: &[Address]| BalancerPoolEntry {
        id,
        pool_type: BalancerPoolType::Weighted,
        tokens: tokens.to_vec(),
    };
    Dex {
        id: DexId::BalancerV2,
        contracts: DexContracts::BalancerV2 {
            vault: address!("BA12222222228d8Ba445958a75a0704d566BF2C8"),
            queries: address!("E39B5e3B6D74016b2F6A9673D7d7493B6DF549d5"),
            pools: vec![
                stable(
                    b256!("93d199263632a4ef4bb438f1feb99e57b4b5f0bd0000000000000000000005c2"),
                    &[WSTETH, WETH],
                ),
                stable(
                    b256!("e7e2c68d3b13d905bbb636709cf4dfd21076b9d20000000000000000000005ca"),
                    &[SWETH, WETH],
                ),
                stable(
                    b256!("8353157092ed8be69a9df8f95af097bbf33cb2af0000000000000000000005d9"),
                    &[GHO, USDT, USDC_ETH],
                ),
                stable(
                    b256!("42ed016f826165c2e5976fe5bc3df540c5ad0af700000000000000000000058b"),
                    &[WSTETH, RETH, SFRXETH],
                ),
                stable(
                    b256!("37b18b10ce5635a84834b26095a0ae5639dcb7520000000000000000000005cb"),
                    &[ETHX, WETH],
                ),
                weighted(
                    b256!("f16aee6a71af1a9bc8f56975a4c2705ca7a782bc0002000000000000000004bb"),
                    &[WETH, ALCX],
                ),
                weighted(
                    b256!("5f1f4e50ba51d723f12385a8a9606afc3a0555f5000200000000000000000465"),
                    &[WSTETH, LDO],
                ),
                weighted(
                    b256!("9f9d900462492d4c21e9523ca95a7cd86142f298000200000000000000000462"),
                    &[RETH, RPL],
                ),
            ],
        },
    }
}

/// One chain's facts, before they become a [`ChainInfo`].
struct Spec {
    chain: Chain,
    chain_id: u64,
    multicall3: Address,
    native: (&'static str, Address),
    usdc: Address,
    bridged_usdc: Option<(&'static str, Address)>,
    extra_tokens: Vec<(&'static str, Address)>,
    dexes: Vec<Dex>,
    aave_v3_pool_addresses_provider: Option<Address>,
    l1_gas_price_oracle: Option<Address>,
}

fn build(spec: Spec) -> ChainInfo {
    let mut tokens: BTreeMap<String, Address> = spec
        .extra_tokens
        .into_iter()
        .map(|(symbol, address)| (symbol.to_owned(), address))
        .collect();
    tokens.insert(spec.native.0.to_owned(), spec.native.1);
    tokens.insert(USDC.to_owned(), spec.usdc);
    if let Some((symbol, address)) = spec.bridged_usdc {
        tokens.insert(symbol.to_owned(), address);
    }
    ChainInfo {
        chain: spec.chain,
        chain_id: spec.chain_id,
        multicall3: spec.multicall3,
        wrapped_native_symbol: spec.native.0.to_owned(),
        bridged_usdc_symbol: spec.bridged_usdc.map(|(symbol, _)| symbol.to_owned()),
        tokens,
        dexes: spec.dexes.into_iter().map(|dex| (dex.id, dex)).collect(),
        aave_v3_pool_addresses_provider: spec.aave_v3_pool_addresses_provider,
        l1_gas_price_oracle: spec.l1_gas_price_oracle,
        other_contracts: BTreeMap::new(),
        v4_index: Some(V4PoolIndex::new(V4IndexConfig::from_block(v4_start_block(
            spec.chain,
        )))),
    }
}

/// The block each chain's Uniswap V4 PoolManager was deployed in, where its `Initialize`
/// events start: `startBlock` of `PoolManager` per network in Uniswap's own subgraph
/// configuration (github.com/Uniswap/v4-subgraph `networks.json` @fc74dfc: `mainnet`, `base`,
/// `arbitrum-one`, `optimism`, `matic`; the addresses there are the PoolManagers above).
fn v4_start_block(chain: Chain) -> u64 {
    match chain {
        Chain::Ethereum => 21_688_329,
        Chain::Base => 25_350_988,
        Chain::Arbitrum => 297_842_872,
        Chain::Optimism => 130_947_675,
        Chain::Polygon => 66_980_384,
    }
}
