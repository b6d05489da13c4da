//! Uniswap V4 pools opened on a test's own devnet after the committed state, whose shapes no
//! registry list holds: a hookless pool at fee 1234 / tick spacing 7 against WETH, and a pool
//! of the devnet's dynamic-fee hook at tick spacing 30 against native ether, each with a
//! full-range position and one around the price.

use alloy::primitives::aliases::{I24, U160};
use alloy::primitives::{Address, B256, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::bindings::V4PoolKey;
use chain_read::dex::uniswap_v4::{DYNAMIC_FEE_FLAG, V4Shape, pool_id};
use test_devnet::bindings::{DevnetV4PoolKey, IErc20, IV4PoolManager, IV4PoolModifyLiquidityTest};

use super::Setup;

/// Sends `input` to `to` from the devnet's deployer (anvil's unlocked account #0).
pub(crate) async fn send(setup: &Setup, to: Address, input: Vec<u8>, value: U256) {
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

pub(crate) fn key_of(key: &V4PoolKey) -> DevnetV4PoolKey {
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
pub(crate) async fn open_pool(
    setup: &Setup,
    shape: V4Shape,
    currency0: Address,
    currency1: Address,
) {
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

/// Funds the deployer and opens the two pools; their names, PoolIds and keys.
pub(crate) async fn open_two_pools(setup: &Setup) -> [(&'static str, B256, V4PoolKey); 2] {
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    fund_positions(setup).await;
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
    open_pool(setup, odd, weth, usdc).await;
    open_pool(setup, hooked, Address::ZERO, usdc).await;
    [
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
    ]
}

/// Gives the deployer ether, USDC (it is USDC's minter) and WETH, approved to the liquidity
/// router, for the positions [`open_pool`] adds.
pub(crate) async fn fund_positions(setup: &Setup) {
    let (weth, usdc) = (setup.token("WETH"), setup.token("USDC"));
    let deployer = setup.a().deployer.address;
    let provider = setup.devnet.provider.clone();
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
        send(setup, to, input, value).await;
    }
}
