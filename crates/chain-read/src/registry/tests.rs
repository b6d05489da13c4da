use std::collections::BTreeMap;

use alloy::primitives::{Address, address};
use serde_json::Value;

use super::*;

/// The committed devnet's raw `addresses.json` (what the assertions compare with) and its
/// tokens and contracts as overrides ([`test_devnet::Addresses::chain_override`]).
fn devnet_overrides() -> (Value, ChainOverride) {
    let path = test_devnet::devnet_dir().join("addresses.json");
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("addresses.json"))
        .expect("JSON");
    let registry = test_devnet::Addresses::committed()
        .expect("addresses.json")
        .chain_override();
    let overrides = ChainOverride {
        tokens: registry.tokens,
        contracts: registry.contracts,
    };
    (raw, overrides)
}

fn at(raw: &Value, pointer: &str) -> Address {
    raw.pointer(pointer)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{pointer} in addresses.json"))
}

#[test]
fn devnet_overrides_yield_the_devnet_addresses() {
    let (raw, overrides) = devnet_overrides();
    let registry = Registry::builtin()
        .with_overrides(Chain::Base, overrides)
        .expect("devnet overrides apply");
    let base = registry.chain(Chain::Base);

    assert_eq!(base.multicall3(), at(&raw, "/contracts/multicall3"));
    assert_eq!(base.wrapped_native(), at(&raw, "/contracts/weth9"));
    assert_eq!(base.usdc(), at(&raw, "/tokens/USDC/address"));
    for symbol in ["WETH", "USDC", "WBTC", "LINK", "DAI", "USDT"] {
        assert_eq!(
            base.token(symbol),
            Some(at(&raw, &format!("/tokens/{symbol}/address"))),
            "{symbol}"
        );
    }

    let v3 = base.dex(DexId::UniswapV3).expect("uniswap_v3");
    let DexContracts::ConcentratedLiquidity {
        factory,
        quoter_v2,
        tick_lens,
        fee_tiers,
    } = &v3.contracts
    else {
        panic!("uniswap_v3 is concentrated liquidity");
    };
    assert_eq!(*factory, at(&raw, "/contracts/uniswap_v3/factory"));
    assert_eq!(*quoter_v2, at(&raw, "/contracts/uniswap_v3/quoter_v2"));
    assert_eq!(
        *tick_lens,
        Some(at(&raw, "/contracts/uniswap_v3/tick_lens"))
    );
    assert_eq!(fee_tiers, &[100, 500, 3000, 10000]);

    let v2 = base.dex(DexId::UniswapV2).expect("uniswap_v2");
    assert_eq!(
        v2.contracts,
        DexContracts::ConstantProduct {
            factory: at(&raw, "/contracts/uniswap_v2/factory"),
            router02: Some(at(&raw, "/contracts/uniswap_v2/router02")),
            fee_bps: 30,
        }
    );
    let aerodrome = base.dex(DexId::Aerodrome).expect("aerodrome");
    assert_eq!(
        aerodrome.contracts,
        DexContracts::Solidly {
            pool_factory: at(&raw, "/contracts/aerodrome/pool_factory"),
            router: Some(at(&raw, "/contracts/aerodrome/router")),
        }
    );
    assert_eq!(
        base.aave_v3_pool_addresses_provider(),
        Some(at(&raw, "/contracts/aave_v3/pool_addresses_provider"))
    );

    // Roles the registry does not model stay reachable by name.
    assert_eq!(
        base.contract("aave_v3", "pool"),
        Some(at(&raw, "/contracts/aave_v3/pool"))
    );
    assert_eq!(
        base.contract("uniswap_v3", "swap_router02"),
        Some(at(&raw, "/contracts/uniswap_v3/swap_router02"))
    );
    assert_eq!(
        base.contract("uniswap_v3", "quoter_v2"),
        Some(at(&raw, "/contracts/uniswap_v3/quoter_v2"))
    );
    assert_eq!(
        base.contract("usdc", "proxy"),
        Some(at(&raw, "/contracts/usdc/proxy"))
    );

    // Other chains are untouched.
    assert_eq!(
        registry.chain(Chain::Ethereum),
        Registry::builtin().chain(Chain::Ethereum)
    );
}

#[test]
fn defaults_hold_the_verified_base_addresses() {
    let registry = Registry::builtin();
    let base = registry.chain(Chain::Base);
    assert_eq!(base.chain_id(), 8453);
    assert_eq!(
        base.multicall3(),
        address!("cA11bde05977b3631167028862bE2a173976CA11")
    );
    assert_eq!(
        base.wrapped_native(),
        address!("4200000000000000000000000000000000000006")
    );
    assert_eq!(
        base.usdc(),
        address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
    );
    assert_eq!(
        base.usdc_bridged(),
        Some((
            "USDbC",
            address!("d9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA")
        ))
    );
    assert_eq!(
        base.contract("uniswap_v3", "factory"),
        Some(address!("33128a8fC17869897dcE68Ed026d694621f6FDfD"))
    );
    assert_eq!(
        base.contract("uniswap_v3", "quoter_v2"),
        Some(address!("3d4e44Eb1374240CE5F1B871ab261CD16335B76a"))
    );
    assert_eq!(
        base.contract("uniswap_v3", "tick_lens"),
        Some(address!("0CdeE061c75D43c82520eD998C23ac2991c9ac6d"))
    );
    assert_eq!(
        base.contract("uniswap_v2", "factory"),
        Some(address!("8909Dc15e40173Ff4699343b6eB8132c65e18eC6"))
    );
    assert_eq!(
        base.contract("uniswap_v2", "router02"),
        Some(address!("4752ba5dbc23f44d87826276bf6fd6b1c372ad24"))
    );
    assert_eq!(
        base.contract("sushiswap_v2", "factory"),
        Some(address!("71524B4f93c58fcbF659783284E38825f0622859"))
    );
    assert_eq!(
        base.contract("aerodrome", "pool_factory"),
        Some(address!("420DD381b31aEf6683db6B902084cB0FFECe40Da"))
    );
    assert_eq!(
        base.contract("aerodrome", "router"),
        Some(address!("cF77a3Ba9A5CA399B7c97c74d54e5b1Beb874E43"))
    );
    assert_eq!(
        base.aave_v3_pool_addresses_provider(),
        Some(address!("e20fCBdBfFC4Dd138cE8b2E6FBb6CB49777ad64D"))
    );
    let deployed: Vec<DexId> = base.dexes().map(|d| d.id).collect();
    assert_eq!(
        deployed,
        [
            DexId::UniswapV3,
            DexId::UniswapV2,
            DexId::SushiswapV2,
            DexId::PancakeswapV3,
            DexId::Aerodrome,
            DexId::UniswapV4,
            DexId::SushiswapV3,
            DexId::AerodromeSlipstream
        ]
    );
}

#[test]
fn quickswap_v3_is_at_the_protocols_published_addresses() {
    // docs.quickswap.exchange/technical-reference/smart-contracts/v3/factory and
    // docs.quickswap.exchange/reference/smart-contracts/v3/04-quoter.
    let registry = Registry::builtin();
    let polygon = registry.chain(Chain::Polygon);
    assert_eq!(
        polygon.contract("quickswap_v3", "factory"),
        Some(address!("411b0fAcC3489691f28ad58c47006AF5E3Ab3A28"))
    );
    assert_eq!(
        polygon.contract("quickswap_v3", "quoter"),
        Some(address!("a15F0D7377B2A0C0c10db057f641beD21028FC89"))
    );
    assert_eq!(DexId::QuickswapV3.kind(), DexKind::AlgebraV1);
    for chain in [
        Chain::Base,
        Chain::Ethereum,
        Chain::Arbitrum,
        Chain::Optimism,
    ] {
        assert!(registry.chain(chain).dex(DexId::QuickswapV3).is_none());
    }
}

#[test]
fn slipstream_is_at_the_protocols_published_addresses() {
    // github.com/aerodrome-finance/slipstream script/constants/output/DeployCL-Base.json and
    // DeployCL-Base-Gauge-Caps.json; github.com/velodrome-finance/slipstream README's tables
    // and DeployCL-Optimism.json (PoolFactory, Quoter: a QuoterV2).
    let registry = Registry::builtin();
    for (chain, id, roles) in [
        (
            Chain::Base,
            "aerodrome_slipstream",
            [
                address!("5e7BB104d84c7CB9B682AaC2F3d509f5F406809A"),
                address!("254cF9E1E6e233aa1AC962CB9B05b2cfeAaE15b0"),
                address!("aDe65c38CD4849aDBA595a4323a8C7DdfE89716a"),
                address!("3d4C22254F86f64B7eC90ab8F7aeC1FBFD271c6C"),
            ],
        ),
        (
            Chain::Optimism,
            "velodrome_slipstream",
            [
                address!("Cc0bDDB707055e04e497aB22a59c2aF4391cd12F"),
                address!("89D8218ed5fF1e46d8dcd33fb0bbeE3be1621466"),
                address!("e13Dd1fbA721Aa81a1826D9523AC9BC7d260c879"),
                address!("Ad432b2ca49965266133F2bd4c17dc1Ec12f5DEB"),
            ],
        ),
    ] {
        let info = registry.chain(chain);
        for (role, expected) in ["factory", "quoter_v2", "factory_2", "quoter_v2_2"]
            .into_iter()
            .zip(roles)
        {
            assert_eq!(
                info.contract(id, role),
                Some(expected),
                "{chain} {id}.{role}"
            );
        }
        let Some(DexContracts::Slipstream { tick_spacings, .. }) = info
            .dex(id.parse().expect("a DEX id"))
            .map(|d| &d.contracts)
        else {
            panic!("{id} on {chain}")
        };
        assert_eq!(tick_spacings, &[1, 50, 100, 200, 2_000]);
    }
}

#[test]
fn uniswap_v4_is_at_sdk_cores_addresses_on_every_chain() {
    // @uniswap/sdk-core 7.19.4, dist/esm/src/addresses.js: v4PoolManagerAddress, v4StateView,
    // v4QuoterAddress per chain.
    let expected = [
        (
            Chain::Base,
            address!("498581ff718922c3f8e6a244956af099b2652b2b"),
            address!("a3c0c9b65bad0b08107aa264b0f3db444b867a71"),
            address!("0d5e0f971ed27fbff6c2837bf31316121532048d"),
        ),
        (
            Chain::Ethereum,
            address!("000000000004444c5dc75cB358380D2e3dE08A90"),
            address!("7ffe42c4a5deea5b0fec41c94c136cf115597227"),
            address!("52f0e24d1c21c8a0cb1e5a5dd6198556bd9e1203"),
        ),
        (
            Chain::Arbitrum,
            address!("360e68faccca8ca495c1b759fd9eee466db9fb32"),
            address!("76fd297e2d437cd7f76d50f01afe6160f86e9990"),
            address!("3972c00f7ed4885e145823eb7c655375d275a1c5"),
        ),
        (
            Chain::Optimism,
            address!("9a13f98cb987694c9f086b1f5eb990eea8264ec3"),
            address!("c18a3169788f4f75a170290584eca6395c75ecdb"),
            address!("1f3131a13296fb91c90870043742c3cdbff1a8d7"),
        ),
        (
            Chain::Polygon,
            address!("67366782805870060151383f4bbff9dab53e5cd6"),
            address!("5ea1bd7974c8a611cbab0bdcafcb1d9cc9b3ba5a"),
            address!("b3d5c3dfc3a7aebff71895a7191796bffc2c81b9"),
        ),
    ];
    let registry = Registry::builtin();
    for (chain, pool_manager, state_view, quoter) in expected {
        let info = registry.chain(chain);
        assert_eq!(
            info.contract("uniswap_v4", "pool_manager"),
            Some(pool_manager),
            "{chain}"
        );
        assert_eq!(
            info.contract("uniswap_v4", "state_view"),
            Some(state_view),
            "{chain}"
        );
        assert_eq!(
            info.contract("uniswap_v4", "v4_quoter"),
            Some(quoter),
            "{chain}"
        );
        match info.dex(DexId::UniswapV4).map(|d| &d.contracts) {
            Some(DexContracts::PoolManager { shapes, .. }) => {
                assert_eq!(shapes, &crate::dex::uniswap_v4::STANDARD_SHAPES.to_vec())
            }
            other => panic!("{chain}: {other:?}"),
        }
    }
}

#[test]
fn sushiswap_v2_is_at_sushis_published_addresses() {
    // The `sushi` npm package 7.3.15, evm/config/features/sushiswap-v2.ts:
    // SUSHISWAP_V2_FACTORY_ADDRESS and SUSHISWAP_V2_ROUTER_ADDRESS.
    let expected = [
        (
            Chain::Arbitrum,
            address!("c35dadb65012ec5796536bd9864ed8773abc74c4"),
            Some(address!("1b02da8cb0d097eb8d57a175b88c7d8b47997506")),
        ),
        (
            Chain::Optimism,
            address!("fbc12984689e5f15626bad03ad60160fe98b303c"),
            Some(address!("2abf469074dc0b54d793850807e6eb5faf2625b1")),
        ),
        (
            Chain::Polygon,
            address!("c35dadb65012ec5796536bd9864ed8773abc74c4"),
            Some(address!("1b02da8cb0d097eb8d57a175b88c7d8b47997506")),
        ),
        (
            Chain::Ethereum,
            address!("c0aee478e3658e2610c5f7a4a2e1777ce9e4f2ac"),
            None,
        ),
        (
            Chain::Base,
            address!("71524b4f93c58fcbf659783284e38825f0622859"),
            None,
        ),
    ];
    let registry = Registry::builtin();
    for (chain, factory, router) in expected {
        let info = registry.chain(chain);
        assert_eq!(
            info.contract("sushiswap_v2", "factory"),
            Some(factory),
            "{chain}"
        );
        assert_eq!(info.contract("sushiswap_v2", "router02"), router, "{chain}");
    }
}

#[test]
fn sushiswap_v3_is_at_sushis_published_addresses() {
    // The `sushi` npm package 7.3.15, evm/config/features/sushiswap-v3.ts:
    // SUSHISWAP_V3_FACTORY_ADDRESS, SUSHISWAP_V3_QUOTER (QuoterV2 in Sushi's v3-periphery
    // deployments) and SUSHISWAP_V3_TICK_LENS.
    let expected = [
        (
            Chain::Ethereum,
            address!("baceb8ec6b9355dfc0269c18bac9d6e2bdc29c4f"),
            address!("64e8802fe490fa7cc61d3463958199161bb608a7"),
            address!("fb70ad5a200d784e7901230e6875d91d5fa6b68c"),
        ),
        (
            Chain::Base,
            address!("c35dadb65012ec5796536bd9864ed8773abc74c4"),
            address!("b1e835dc2785b52265711e17fccb0fd018226a6e"),
            address!("f4d73326c13a4fc5fd7a064217e12780e9bd62c3"),
        ),
        (
            Chain::Arbitrum,
            address!("1af415a1eba07a4986a52b6f2e7de7003d82231e"),
            address!("0524e833ccd057e4d7a296e3aaab9f7675964ce1"),
            address!("8516944e89f296eb6473d79aed1ba12088016c9e"),
        ),
        (
            Chain::Optimism,
            address!("9c6522117e2ed1fe5bdb72bb0ed5e3f2bde7dbe0"),
            address!("b1e835dc2785b52265711e17fccb0fd018226a6e"),
            address!("0367a647a68f304f2a6e453c25033a4249d7f2c6"),
        ),
        (
            Chain::Polygon,
            address!("917933899c6a5f8e37f31e19f92cdbff7e8ff0e2"),
            address!("b1e835dc2785b52265711e17fccb0fd018226a6e"),
            address!("9fdea1412e50d78b25ace4f96d35801647fdf7da"),
        ),
    ];
    let registry = Registry::builtin();
    for (chain, factory, quoter, lens) in expected {
        let dex = registry
            .chain(chain)
            .dex(DexId::SushiswapV3)
            .unwrap_or_else(|| panic!("sushiswap_v3 on {chain}"));
        assert_eq!(
            dex.contracts,
            DexContracts::ConcentratedLiquidity {
                factory,
                quoter_v2: quoter,
                tick_lens: Some(lens),
                fee_tiers: vec![100, 500, 3000, 10000],
            },
            "{chain}"
        );
        assert_eq!(dex.kind(), DexKind::ConcentratedLiquidity);
    }
}

#[test]
fn pancakeswap_v3_is_at_pancakes_published_addresses() {
    // `@pancakeswap/v3-sdk` 3.10.2 FACTORY_ADDRESSES and `@pancakeswap/smart-router` 7.7.3
    // V3_QUOTER_ADDRESSES / V3_TICK_LENS_ADDRESSES (TICK_LENS_MAINNET_ADDRESS): one address
    // on ethereum, base and arbitrum; the factory's 2500 tier in place of 3000.
    let registry = Registry::builtin();
    for chain in [Chain::Ethereum, Chain::Base, Chain::Arbitrum] {
        let dex = registry
            .chain(chain)
            .dex(DexId::PancakeswapV3)
            .unwrap_or_else(|| panic!("pancakeswap_v3 on {chain}"));
        assert_eq!(
            dex.contracts,
            DexContracts::ConcentratedLiquidity {
                factory: address!("0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865"),
                quoter_v2: address!("B048Bbc1Ee6b733FFfCFb9e9CeF7375518e25997"),
                tick_lens: Some(address!("9a489505a00cE272eAa5e07Dba6491314CaE3796")),
                fee_tiers: vec![100, 500, 2500, 10000],
            },
            "{chain}"
        );
    }
    for chain in [Chain::Optimism, Chain::Polygon] {
        assert!(registry.chain(chain).dex(DexId::PancakeswapV3).is_none());
    }
}

#[test]
fn v4_shapes_are_added_by_configuration_roles() {
    let hooks = address!("4444000000000000000000000000000000000080");
    let registry = Registry::builtin()
        .with_overrides(
            Chain::Base,
            one("uniswap_v4", "shape_8388608_60_fee_override", hooks),
        )
        .expect("a shape role");
    let registry = registry
        .with_overrides(
            Chain::Base,
            one("uniswap_v4", "shape_500000_10", Address::ZERO),
        )
        .expect("a hookless shape");
    let Some(DexContracts::PoolManager { shapes, .. }) = registry
        .chain(Chain::Base)
        .dex(DexId::UniswapV4)
        .map(|d| &d.contracts)
    else {
        panic!("V4 on base");
    };
    assert_eq!(shapes.len(), 6);
    assert!(shapes.contains(&crate::dex::uniswap_v4::V4Shape {
        fee: crate::dex::uniswap_v4::DYNAMIC_FEE_FLAG,
        tick_spacing: 60,
        hooks,
    }));
    assert!(shapes.contains(&crate::dex::uniswap_v4::V4Shape::plain(500_000, 10)));
    assert!(
        Registry::builtin()
            .with_overrides(Chain::Base, one("uniswap_v4", "shape_x_10", hooks))
            .is_err()
    );
}

#[test]
fn only_verified_dexes_are_deployed() {
    let registry = Registry::builtin();
    let deployed =
        |chain: Chain| -> Vec<DexId> { registry.chain(chain).dexes().map(|d| d.id).collect() };
    assert_eq!(
        deployed(Chain::Ethereum),
        [
            DexId::UniswapV3,
            DexId::UniswapV2,
            DexId::SushiswapV2,
            DexId::PancakeswapV3,
            DexId::UniswapV4,
            DexId::SushiswapV3,
            DexId::BalancerV2
        ]
    );
    // Velodrome's Slipstream is [P].
    assert_eq!(
        deployed(Chain::Arbitrum),
        [
            DexId::UniswapV3,
            DexId::UniswapV2,
            DexId::SushiswapV2,
            DexId::PancakeswapV3,
            DexId::UniswapV4,
            DexId::SushiswapV3
        ]
    );
    assert_eq!(
        deployed(Chain::Optimism),
        [
            DexId::UniswapV3,
            DexId::UniswapV2,
            DexId::SushiswapV2,
            DexId::Velodrome,
            DexId::UniswapV4,
            DexId::SushiswapV3,
            DexId::VelodromeSlipstream
        ]
    );
    assert_eq!(
        deployed(Chain::Polygon),
        [
            DexId::UniswapV3,
            DexId::UniswapV2,
            DexId::SushiswapV2,
            DexId::QuickswapV3,
            DexId::UniswapV4,
            DexId::SushiswapV3
        ]
    );
    for chain in Chain::ALL {
        let info = registry.chain(chain);
        assert!(
            info.dex(DexId::CamelotV3).is_none(),
            "camelot_v3 on {chain}"
        );
        assert_eq!(info.chain(), chain);
        assert_eq!(
            info.multicall3(),
            address!("cA11bde05977b3631167028862bE2a173976CA11")
        );
    }
    // sdk-core lists the V1 Quoter on these chains; the registry holds QuoterV2.
    assert_eq!(
        registry
            .chain(Chain::Ethereum)
            .contract("uniswap_v3", "quoter_v2"),
        Some(address!("61fFE014bA17989E743c5F6cB21bF9697530B21e"))
    );
}

#[test]
fn polygon_hops_through_wpol_weth_and_both_usdcs() {
    let registry = Registry::builtin();
    let polygon = registry.chain(Chain::Polygon);
    assert_eq!(polygon.wrapped_native_symbol(), "WPOL");
    assert_eq!(
        polygon.hop_tokens(),
        [
            address!("0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270"),
            address!("7ceB23fD6bC0adD59E62ac25578270cFf1b9f619"),
            address!("3c499c542cEF5E3811e1192ce70d8cC03d5c3359"),
            address!("2791Bca1f2de4661ED88A30C99A7a9449Aa84174"),
        ]
    );
    assert_eq!(registry.chain(Chain::Ethereum).hop_tokens().len(), 2);
}

fn one(protocol: &str, role: &str, address: Address) -> ChainOverride {
    ChainOverride {
        tokens: BTreeMap::new(),
        contracts: [(
            protocol.to_owned(),
            [(role.to_owned(), address)].into_iter().collect(),
        )]
        .into_iter()
        .collect(),
    }
}

#[test]
fn a_zero_factory_removes_a_dex_and_an_override_can_add_one() {
    let registry = Registry::builtin()
        .with_overrides(Chain::Base, one("sushiswap_v2", "factory", Address::ZERO))
        .expect("removal");
    assert!(
        registry
            .chain(Chain::Base)
            .dex(DexId::SushiswapV2)
            .is_none()
    );

    let factory = Address::repeat_byte(0x11);
    let registry = Registry::builtin()
        .with_overrides(Chain::Arbitrum, one("sushiswap_v2", "factory", factory))
        .expect("addition");
    let sushi = registry
        .chain(Chain::Arbitrum)
        .dex(DexId::SushiswapV2)
        .expect("sushi added");
    assert_eq!(sushi.factory(), factory);
    assert_eq!(sushi.kind(), DexKind::ConstantProduct);
}

#[test]
fn incomplete_or_unsupported_overrides_are_refused() {
    let factory = Address::repeat_byte(0x22);
    let error = Registry::builtin()
        .with_overrides(Chain::Optimism, one("pancakeswap_v3", "factory", factory))
        .expect_err("a CL DEX needs its quoter");
    assert!(error.to_string().contains("quoter_v2"), "{error}");

    let error = Registry::builtin()
        .with_overrides(Chain::Arbitrum, one("camelot_v3", "factory", factory))
        .expect_err("no Algebra 1.9 adapter");
    assert!(error.to_string().contains("Algebra"), "{error}");

    let error = Registry::builtin()
        .with_overrides(Chain::Arbitrum, one("quickswap_v3", "factory", factory))
        .expect_err("an Algebra V1 DEX needs its quoter");
    assert!(error.to_string().contains("quoter"), "{error}");

    let error = Registry::builtin()
        .with_overrides(Chain::Base, one("core", "multicall3", Address::ZERO))
        .expect_err("multicall3 is required");
    assert!(matches!(error, ChainReadError::InvalidConfig(_)));

    let mut conflict = one("core", "weth9", Address::repeat_byte(1));
    conflict
        .tokens
        .insert("WETH".into(), Address::repeat_byte(2));
    assert!(
        Registry::builtin()
            .with_overrides(Chain::Base, conflict)
            .is_err()
    );
}

#[test]
fn weth9_override_moves_the_wrapped_native_token() {
    let weth = Address::repeat_byte(0x33);
    let registry = Registry::builtin()
        .with_overrides(Chain::Optimism, one("core", "weth9", weth))
        .expect("override");
    let optimism = registry.chain(Chain::Optimism);
    assert_eq!(optimism.wrapped_native(), weth);
    assert_eq!(optimism.token("WETH"), Some(weth));
    assert_eq!(optimism.contract("core", "weth9"), Some(weth));
}

#[test]
fn ids_parse_and_print() {
    for chain in Chain::ALL {
        assert_eq!(chain.as_str().parse::<Chain>(), Ok(chain));
    }
    for dex in DexId::ALL {
        assert_eq!(dex.to_string().parse::<DexId>(), Ok(dex));
    }
    assert!("bsc".parse::<Chain>().is_err());
    assert_eq!(DexId::Aerodrome.kind(), DexKind::Solidly);
    assert_eq!(DexId::CamelotV3.kind(), DexKind::ConcentratedLiquidity);
    let overrides: ChainOverride = serde_json::from_value(serde_json::json!({
        "tokens": {"WETH": "0x4200000000000000000000000000000000000006"},
        "contracts": {"uniswap_v3": {"quoter_v2": "0x1291Be112d480055DaFd8a610b7d1e203891C274"}}
    }))
    .expect("the config shape deserializes");
    assert_eq!(overrides.contracts["uniswap_v3"].len(), 1);
}
