//! Uniswap V4 pools found from the PoolManager's `Initialize` events on the devnet: two pools
//! opened after the committed state, whose shapes no registry list holds (a hookless pool at
//! fee 1234 / tick spacing 7 against WETH, and a pool of the devnet's dynamic-fee hook at tick
//! spacing 30 against native ether), are found by the chain's index, read a few blocks per
//! `/dex/quote` read beside the lens call (each read still one round trip), and then quoted
//! to the wei as v4-periphery's V4Quoter answers at the read's block, both ways, the lens's
//! report equal to the batches'.

#![allow(missing_docs)]

use alloy::primitives::aliases::{I24, U160};
use alloy::primitives::{Address, B256, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::Chain;
use chain_read::bindings::{IV4Quoter, V4PoolKey};
use chain_read::dex::PoolKey;
use chain_read::dex::uniswap_v4::{DYNAMIC_FEE_FLAG, V4Shape, pool_id};
use chain_read::dex::v4_index::V4IndexConfig;
use dex_route::quote::{QuoteReport, ReadPath, report};
use dex_route::{Leg, v4_pool_found_by_event};
use test_devnet::bindings::{DevnetV4PoolKey, IErc20, IV4PoolManager, IV4PoolModifyLiquidityTest};

mod common;

use common::{Setup, lens_equals_batches, quote_request};

/// Sends `input` to `to` from the devnet's deployer (anvil's unlocked account #0).
async fn send(setup: &Setup, to: Address, input: Vec<u8>, value: U256) {
    let receipt = setup
        .devnet
        .provider
        .send_transaction(
            TransactionRequest::default()
                .from(setup.a().deployer.address)
                .to(to)
                .input(input.into())
                .value(value),
        )
        .await
        .expect("send")
        .get_receipt()
        .await
        .expect("receipt");
    assert!(receipt.status(), "transaction to {to} reverted");
}

fn key_of(key: &V4PoolKey) -> DevnetV4PoolKey {
    DevnetV4PoolKey {
        currency0: key.currency0,
        currency1: key.currency1,
        fee: key.fee,
        tickSpacing: key.tickSpacing,
        hooks: key.hooks,
    }
}

/// Opens a pool of `shape` on `currency0`/`currency1` at the devnet's ETH/USDC price, with a
/// full-range position and one around the price.
async fn open_pool(setup: &Setup, shape: V4Shape, currency0: Address, currency1: Address) {
    let key = shape.key(currency0, currency1);
    let manager = setup.contract("uniswap_v4", "pool_manager");
    let router = setup.contract("uniswap_v4", "pool_modify_liquidity_test");
    // ETH/USDC/500/10's price at the committed final block.
    let sqrt_price: U160 = "4412375028890902150949930".parse().expect("a price");
    send(
        setup,
        manager,
        IV4PoolManager::initializeCall {
            key: key_of(&key),
            sqrtPriceX96: sqrt_price,
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let spacing = shape.tick_spacing;
    let full = 887_272 / spacing * spacing;
    // Around tick -195,924.
    let (low, high) = (-196_140 / spacing * spacing, -195_720 / spacing * spacing);
    for (lower, upper, liquidity) in [
        (-full, full, 10u128.pow(15)),
        (low, high, 5 * 10u128.pow(16)),
    ] {
        let params = IV4PoolModifyLiquidityTest::ModifyLiquidityParams {
            tickLower: I24::try_from(lower).expect("int24"),
            tickUpper: I24::try_from(upper).expect("int24"),
            liquidityDelta: liquidity.try_into().expect("int256"),
            salt: B256::ZERO,
        };
        // The router pays native ether from the value and refunds what it did not settle.
        let value = if currency0.is_zero() {
            U256::from(50u8) * U256::from(10u64).pow(U256::from(18u8))
        } else {
            U256::ZERO
        };
        send(
            setup,
            router,
            IV4PoolModifyLiquidityTest::modifyLiquidityCall {
                key: key_of(&key),
                params,
                hookData: Default::default(),
            }
            .abi_encode(),
            value,
        )
        .await;
    }
}

fn leg_of(report: &QuoteReport, id: B256) -> Option<&Leg> {
    report
        .outcome
        .routes
        .iter()
        .map(|route| &route.legs[0])
        .find(|leg| matches!(leg.pool.key, PoolKey::V4 { id: found, .. } if found == id))
}

#[tokio::test]
async fn devnet_pools_found_from_initialize_events_are_quoted_equal_to_v4_quoter() {
    let mut setup = Setup::load();
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let deployer = setup.a().deployer.address;
    let provider = setup.devnet.provider.clone();
    // The index reads from the first block after the committed state, three blocks a read.
    let start = setup.a().chain.final_block.number + 1;
    setup.registry = setup.registry.clone().with_v4_index(
        Chain::Base,
        Some(V4IndexConfig {
            max_blocks_per_refresh: 3,
            ..V4IndexConfig::from_block(start)
        }),
    );

    // Tokens for the positions: USDC minted by the deployer (its minter), WETH wrapped.
    let _: () = provider
        .raw_request(
            "anvil_setBalance".into(),
            (deployer, U256::from(10u64).pow(U256::from(24u8))),
        )
        .await
        .expect("ether");
    let router = setup.contract("uniswap_v4", "pool_modify_liquidity_test");
    let ether = U256::from(10u64).pow(U256::from(18u8));
    for (to, input, value) in [
        (
            usdc,
            IErc20::mintCall {
                account: deployer,
                value: U256::from(10u64).pow(U256::from(12u8)),
            }
            .abi_encode(),
            U256::ZERO,
        ),
        (
            weth,
            IErc20::depositCall {}.abi_encode(),
            U256::from(100u8) * ether,
        ),
        (
            usdc,
            IErc20::approveCall {
                spender: router,
                amount: U256::MAX,
            }
            .abi_encode(),
            U256::ZERO,
        ),
        (
            weth,
            IErc20::approveCall {
                spender: router,
                amount: U256::MAX,
            }
            .abi_encode(),
            U256::ZERO,
        ),
    ] {
        send(&setup, to, input, value).await;
    }
    let odd = V4Shape::plain(1234, 7);
    let hooked = V4Shape {
        fee: DYNAMIC_FEE_FLAG,
        tick_spacing: 30,
        hooks: setup
            .a()
            .pools
            .uniswap_v4
            .iter()
            .find(|pool| pool.hook_role.as_deref() == Some("dynamic_fee"))
            .expect("the devnet's dynamic-fee hook")
            .hooks,
    };
    open_pool(&setup, odd, weth, usdc).await;
    open_pool(&setup, hooked, Address::ZERO, usdc).await;
    let opened = [
        (
            "WETH/USDC/1234/7",
            pool_id(&odd.key(weth, usdc)),
            odd.key(weth, usdc),
        ),
        (
            "ETH/USDC/dynamic-fee hook/30",
            pool_id(&hooked.key(Address::ZERO, usdc)),
            hooked.key(Address::ZERO, usdc),
        ),
    ];
    let head = provider.get_block_number().await.expect("head");
    let chain = setup.chain();
    let index = chain.v4_index().expect("configured");
    let (request, what) = quote_request(&setup, ("WETH", "USDC", "1.5"), false);
    let before = report(chain, &setup.reader(), &request)
        .await
        .expect("quote");
    for (name, id, _) in &opened {
        assert!(
            leg_of(&before, *id).is_none(),
            "{name}: not listed anywhere yet"
        );
    }

    // Reads until the index has read every block: each one round trip through the lens.
    let mut reads = 1;
    while index.status().read_to < Some(head) {
        let read = report(chain, &setup.reader(), &request)
            .await
            .expect("quote");
        assert_eq!(read.read_path, ReadPath::Lens, "{what}");
        assert_eq!(read.outcome.round_trips, 1, "{what}: the range rides along");
        reads += 1;
        assert!(
            reads < 20,
            "the index reaches the head: {:?}",
            index.status()
        );
    }
    let blocks = head + 1 - start;
    assert!(
        reads > blocks.div_ceil(3),
        "{blocks} blocks, three a read, after a first read that learnt the head: {reads}"
    );
    assert_eq!(index.status().pools, 2, "{:?}", index.status());

    let quoter = setup.contract("uniswap_v4", "v4_quoter");
    for (symbols, amount, zero_for_one) in [
        (
            ("WETH", "USDC", "1.5"),
            U256::from(15u8) * ether / U256::from(10u8),
            true,
        ),
        (
            ("USDC", "WETH", "4000"),
            U256::from(4_000_000_000u64),
            false,
        ),
    ] {
        let (request, what) = quote_request(&setup, symbols, false);
        let found = lens_equals_batches(&setup, &request, &what).await;
        let block = found.outcome.block.number;
        for (name, id, key) in &opened {
            let leg = leg_of(&found, *id).unwrap_or_else(|| panic!("{what}: {name} is quoted"));
            assert!(v4_pool_found_by_event(chain, &leg.pool), "{name}");
            let expected = setup
                .call_at(
                    quoter,
                    &IV4Quoter::quoteExactInputSingleCall {
                        params: IV4Quoter::QuoteExactSingleParams {
                            poolKey: key.clone(),
                            zeroForOne: zero_for_one,
                            exactAmount: amount.to::<u128>(),
                            hookData: Default::default(),
                        },
                    },
                    block,
                )
                .await;
            assert_eq!(
                leg.amount_out, expected.amountOut,
                "{what}: {name} to the wei"
            );
            assert!(expected.amountOut > U256::ZERO, "{name}: a real quote");
        }
        // The pools the registry's shapes reach are not named as found by events.
        assert!(
            found
                .outcome
                .routes
                .iter()
                .map(|route| &route.legs[0])
                .filter(|leg| !opened.iter().any(|(_, id, _)| {
                    matches!(leg.pool.key, PoolKey::V4 { id: found, .. } if found == *id)
                }))
                .all(|leg| !v4_pool_found_by_event(chain, &leg.pool)),
            "{what}"
        );
    }
}
