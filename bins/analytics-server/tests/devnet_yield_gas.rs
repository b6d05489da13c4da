//! The gas units `/yield/normalize` subtracts, measured on the devnet's real contracts: a
//! liquidity provider (anvil's unlocked account #0, which deployed everything) enters, harvests
//! and leaves a Uniswap V2 pair through Router02, a Uniswap V3 pool through the
//! NonfungiblePositionManager and an Aerodrome volatile pool through its Router, and each
//! receipt's `gasUsed` is compared with `yield_model::net::gas_units` within
//! `GAS_TOLERANCE_PCT`. Pairs without USDC (WETH/LINK, WETH/WBTC) so every token is minted
//! freely; the figures are printed for docs/decisions.md.

#![allow(missing_docs)]

use alloy::primitives::aliases::{I24, U24};
use alloy::primitives::{Address, U256};
use alloy::providers::Provider;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use test_devnet::Devnet;
use test_devnet::bindings::{IAerodromeRouter, IErc20, IUniswapV3Pool};
use yield_model::net::{GAS_TOLERANCE_PCT, PoolType, gas_units};

alloy::sol! {
    interface IV2Router {
        function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) external returns (uint256 amountA, uint256 amountB, uint256 liquidity);
        function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) external returns (uint256 amountA, uint256 amountB);
    }
    interface IPositionManager {
        struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }
        function mint(MintParams calldata params) external payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
        struct DecreaseLiquidityParams { uint256 tokenId; uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }
        function decreaseLiquidity(DecreaseLiquidityParams calldata params) external payable returns (uint256 amount0, uint256 amount1);
        struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }
        function collect(CollectParams calldata params) external payable returns (uint256 amount0, uint256 amount1);
    }
    interface IAeroRouter {
        function addLiquidity(address tokenA, address tokenB, bool stable, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) external returns (uint256 amountA, uint256 amountB, uint256 liquidity);
        function removeLiquidity(address tokenA, address tokenB, bool stable, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) external returns (uint256 amountA, uint256 amountB);
    }
    interface IAeroPool {
        function claimFees() external returns (uint256 claimed0, uint256 claimed1);
    }
}

const DEADLINE: u64 = 4_102_444_800;

fn contract(devnet: &Devnet, group: &str, role: &str) -> Address {
    devnet
        .addresses
        .chain_override()
        .contracts
        .get(group)
        .and_then(|g| g.get(role))
        .copied()
        .unwrap_or_else(|| panic!("{group}.{role}"))
}

/// Sends from the deployer and returns the receipt's gasUsed (the transaction must succeed).
async fn send(devnet: &Devnet, to: Address, input: Vec<u8>, value: U256) -> u64 {
    let from = devnet.addresses.deployer.address;
    let receipt = devnet
        .provider
        .send_transaction(
            TransactionRequest::default()
                .from(from)
                .to(to)
                .value(value)
                .gas_limit(2_000_000)
                .input(input.into()),
        )
        .await
        .expect("sent")
        .get_receipt()
        .await
        .expect("receipt");
    assert!(receipt.status(), "transaction to {to} reverted");
    receipt.gas_used
}

async fn call<C: SolCall>(devnet: &Devnet, to: Address, call: &C) -> C::Return {
    let out = devnet
        .provider
        .call(
            TransactionRequest::default()
                .from(devnet.addresses.deployer.address)
                .to(to)
                .input(call.abi_encode().into()),
        )
        .await
        .expect("call");
    C::abi_decode_returns(&out).expect("decode")
}

async fn balance(devnet: &Devnet, token: Address, who: Address) -> U256 {
    call(devnet, token, &IErc20::balanceOfCall(who)).await
}

fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u8).pow(U256::from(18u8))
}

/// WETH (deposited), LINK and WBTC (open mint) for the deployer, approved to `spenders`.
async fn fund(devnet: &Devnet, spenders: &[Address]) {
    let me = devnet.addresses.deployer.address;
    let weth = devnet.addresses.token("WETH").expect("WETH");
    send(devnet, weth, IErc20::depositCall {}.abi_encode(), ether(50)).await;
    for (symbol, amount) in [
        ("LINK", ether(1_000_000)),
        ("WBTC", U256::from(10u64.pow(10))),
    ] {
        let token = devnet.addresses.token(symbol).expect(symbol);
        send(
            devnet,
            token,
            IErc20::mintCall {
                account: me,
                value: amount,
            }
            .abi_encode(),
            U256::ZERO,
        )
        .await;
    }
    for token in ["WETH", "LINK", "WBTC"] {
        let token = devnet.addresses.token(token).expect("token");
        for spender in spenders {
            send(
                devnet,
                token,
                IErc20::approveCall {
                    spender: *spender,
                    amount: U256::MAX,
                }
                .abi_encode(),
                U256::ZERO,
            )
            .await;
        }
    }
}

fn within(measured: u64, constant: u64, what: &str) {
    let tolerance = constant * GAS_TOLERANCE_PCT / 100;
    println!("{what}: measured {measured}, constant {constant}");
    assert!(
        measured.abs_diff(constant) <= tolerance,
        "{what}: measured {measured} gas, the constant is {constant} (±{GAS_TOLERANCE_PCT} %)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_yield_gas_units_are_within_tolerance_of_the_measured_gas() {
    let devnet = Devnet::load().expect("devnet");
    let me = devnet.addresses.deployer.address;
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let link = devnet.addresses.token("LINK").expect("LINK");
    let wbtc = devnet.addresses.token("WBTC").expect("WBTC");
    let v2_router = contract(&devnet, "uniswap_v2", "router02");
    let npm = contract(&devnet, "uniswap_v3", "nonfungible_position_manager");
    let aero_router = contract(&devnet, "aerodrome", "router");
    fund(&devnet, &[v2_router, npm, aero_router]).await;

    // Uniswap V2 WETH/LINK: addLiquidity into the existing pair, then removeLiquidity.
    let pair = devnet
        .addresses
        .pools
        .uniswap_v2
        .iter()
        .find(|p| p.name == "WETH/LINK")
        .expect("V2 WETH/LINK")
        .address;
    let v2_add = send(
        &devnet,
        v2_router,
        IV2Router::addLiquidityCall {
            tokenA: weth,
            tokenB: link,
            amountADesired: ether(1),
            amountBDesired: ether(100_000),
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: me,
            deadline: U256::from(DEADLINE),
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let lp = balance(&devnet, pair, me).await;
    assert!(lp > U256::ZERO);
    send(
        &devnet,
        pair,
        IErc20::approveCall {
            spender: v2_router,
            amount: U256::MAX,
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let v2_remove = send(
        &devnet,
        v2_router,
        IV2Router::removeLiquidityCall {
            tokenA: weth,
            tokenB: link,
            liquidity: lp,
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: me,
            deadline: U256::from(DEADLINE),
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let units = gas_units(PoolType::ConstantProduct);
    within(v2_add, units.entry, "V2 addLiquidity");
    within(v2_remove, units.exit, "V2 removeLiquidity");

    // Uniswap V3 WETH/LINK 0.3 %: mint a position ±60 spacings around the current tick,
    // decrease half and collect (a harvest with both tokens owed), decrease the rest and
    // collect (the exit).
    let pool = devnet
        .addresses
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/LINK/3000")
        .expect("V3 WETH/LINK/3000");
    let spacing = pool.tick_spacing.expect("spacing");
    let slot0 = call(&devnet, pool.address, &IUniswapV3Pool::slot0Call {}).await;
    let tick = i32::try_from(slot0.tick).expect("tick");
    let centre = tick.div_euclid(spacing) * spacing;
    let (token0, token1) = (pool.token0_address, pool.token1_address);
    let mint = IPositionManager::mintCall {
        params: IPositionManager::MintParams {
            token0,
            token1,
            fee: U24::from(pool.fee.expect("fee")),
            tickLower: I24::try_from(centre - 60 * spacing).expect("tick"),
            tickUpper: I24::try_from(centre + 60 * spacing).expect("tick"),
            amount0Desired: if token0 == weth { ether(1) } else { ether(300) },
            amount1Desired: if token1 == weth { ether(1) } else { ether(300) },
            amount0Min: U256::ZERO,
            amount1Min: U256::ZERO,
            recipient: me,
            deadline: U256::from(DEADLINE),
        },
    };
    let minted = call(&devnet, npm, &mint).await;
    let v3_mint = send(&devnet, npm, mint.abi_encode(), U256::ZERO).await;
    let token_id = minted.tokenId;
    let half = minted.liquidity / 2;
    let decrease = |liquidity: u128| IPositionManager::decreaseLiquidityCall {
        params: IPositionManager::DecreaseLiquidityParams {
            tokenId: token_id,
            liquidity,
            amount0Min: U256::ZERO,
            amount1Min: U256::ZERO,
            deadline: U256::from(DEADLINE),
        },
    };
    let collect = IPositionManager::collectCall {
        params: IPositionManager::CollectParams {
            tokenId: token_id,
            recipient: me,
            amount0Max: u128::MAX,
            amount1Max: u128::MAX,
        },
    };
    send(&devnet, npm, decrease(half).abi_encode(), U256::ZERO).await;
    let v3_harvest = send(&devnet, npm, collect.abi_encode(), U256::ZERO).await;
    let v3_decrease = send(
        &devnet,
        npm,
        decrease(minted.liquidity - half).abi_encode(),
        U256::ZERO,
    )
    .await;
    let v3_collect = send(&devnet, npm, collect.abi_encode(), U256::ZERO).await;
    let units = gas_units(PoolType::ConcentratedLiquidity);
    within(v3_mint, units.entry, "V3 mint");
    within(
        v3_decrease + v3_collect,
        units.exit,
        "V3 decreaseLiquidity + collect",
    );
    within(v3_harvest, units.harvest, "V3 collect");

    // Aerodrome vAMM-WETH/WBTC: addLiquidity, a swap, claimFees, removeLiquidity.
    let aero = devnet
        .addresses
        .pools
        .aerodrome
        .iter()
        .find(|p| p.name == "vAMM-WETH/WBTC")
        .expect("vAMM-WETH/WBTC")
        .address;
    let aero_add = send(
        &devnet,
        aero_router,
        IAeroRouter::addLiquidityCall {
            tokenA: weth,
            tokenB: wbtc,
            stable: false,
            amountADesired: ether(1),
            amountBDesired: U256::from(10u64.pow(8)),
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: me,
            deadline: U256::from(DEADLINE),
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    // A swap through the pool so the claim transfers fees of one token, as a harvest does.
    send(
        &devnet,
        aero_router,
        IAerodromeRouter::swapExactTokensForTokensCall {
            amountIn: ether(2),
            amountOutMin: U256::ZERO,
            routes: vec![IAerodromeRouter::Route {
                from: weth,
                to: wbtc,
                stable: false,
                factory: contract(&devnet, "aerodrome", "pool_factory"),
            }],
            to: me,
            deadline: U256::from(DEADLINE),
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let aero_claim = send(
        &devnet,
        aero,
        IAeroPool::claimFeesCall {}.abi_encode(),
        U256::ZERO,
    )
    .await;
    let lp = balance(&devnet, aero, me).await;
    send(
        &devnet,
        aero,
        IErc20::approveCall {
            spender: aero_router,
            amount: U256::MAX,
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let aero_remove = send(
        &devnet,
        aero_router,
        IAeroRouter::removeLiquidityCall {
            tokenA: weth,
            tokenB: wbtc,
            stable: false,
            liquidity: lp,
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: me,
            deadline: U256::from(DEADLINE),
        }
        .abi_encode(),
        U256::ZERO,
    )
    .await;
    let units = gas_units(PoolType::Solidly);
    within(aero_add, units.entry, "Aerodrome addLiquidity");
    within(aero_remove, units.exit, "Aerodrome removeLiquidity");
    within(aero_claim, units.harvest, "Aerodrome claimFees");
}
