//! Where the gas constants of `dex_math::gas` come from, re-measured: `eth_estimateGas` of real
//! router swaps on the committed devnet (Uniswap SwapRouter and Router02, Aerodrome Router),
//! 1 % of a token unit on every listed pool in both directions, sent from a devnet trader that
//! holds the tokens and has approved the routers. Each constant must fall inside the range
//! measured for its pool type; the ranges are printed (and recorded in docs/decisions.md).

#![allow(missing_docs)]

use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, U256};
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use dex_math::gas::GasModel;
use test_devnet::Devnet;
use test_devnet::bindings::{IAerodromeRouter, IQuoterV2, IRouter02, ISwapRouter};

const DEADLINE: u64 = 1 << 40;

async fn estimate(devnet: &Devnet, from: Address, to: Address, data: Vec<u8>) -> u64 {
    devnet
        .provider
        .estimate_gas(
            TransactionRequest::default()
                .from(from)
                .to(to)
                .input(data.into()),
        )
        .await
        .expect("eth_estimateGas of a router swap")
}

fn range(label: &str, values: &[u64]) -> (u64, u64) {
    let min = values.iter().copied().min().expect("measured");
    let max = values.iter().copied().max().expect("measured");
    println!("{label}: {min}..={max} over {} swaps", values.len());
    (min, max)
}

#[tokio::test]
async fn devnet_the_gas_constants_fall_inside_what_the_devnet_routers_take() {
    let devnet = Devnet::load().expect("the committed devnet (anvil installed by cargo xtask ci)");
    let a = &devnet.addresses;
    let trader: Address = a.activity["traders"][0]["address"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("a devnet trader");
    let unit = |token: Address| {
        let decimals = a
            .tokens
            .values()
            .find(|t| t.address == token)
            .map(|t| t.decimals)
            .expect("token decimals");
        U256::from(10u64).pow(U256::from(decimals)) / U256::from(100u8)
    };

    // Concentrated liquidity: what the router adds to QuoterV2's standalone measurement.
    let mut overheads = Vec::new();
    for pool in &a.pools.uniswap_v3 {
        let fee = pool.fee.expect("fee");
        for (token_in, token_out) in [
            (pool.token0_address, pool.token1_address),
            (pool.token1_address, pool.token0_address),
        ] {
            let amount = unit(token_in);
            let quote = IQuoterV2::quoteExactInputSingleCall {
                params: IQuoterV2::QuoteExactInputSingleParams {
                    tokenIn: token_in,
                    tokenOut: token_out,
                    amountIn: amount,
                    fee: U24::from(fee),
                    sqrtPriceLimitX96: U160::ZERO,
                },
            };
            let raw = devnet
                .provider
                .call(
                    TransactionRequest::default()
                        .to(a.contracts.uniswap_v3.quoter_v2)
                        .input(quote.abi_encode().into()),
                )
                .await
                .expect("QuoterV2");
            let measured = IQuoterV2::quoteExactInputSingleCall::abi_decode_returns(&raw)
                .expect("decode")
                .gasEstimate;
            let swap = ISwapRouter::exactInputSingleCall {
                params: ISwapRouter::ExactInputSingleParams {
                    tokenIn: token_in,
                    tokenOut: token_out,
                    fee: U24::from(fee),
                    recipient: trader,
                    deadline: U256::from(DEADLINE),
                    amountIn: amount,
                    amountOutMinimum: U256::ZERO,
                    sqrtPriceLimitX96: U160::ZERO,
                },
            };
            let total = estimate(
                &devnet,
                trader,
                a.contracts.uniswap_v3.swap_router,
                swap.abi_encode(),
            )
            .await;
            overheads.push(total - u64::try_from(measured).expect("gas"));
        }
    }

    let mut constant_product = Vec::new();
    for pool in &a.pools.uniswap_v2 {
        for path in [
            vec![pool.token0_address, pool.token1_address],
            vec![pool.token1_address, pool.token0_address],
        ] {
            let swap = IRouter02::swapExactTokensForTokensCall {
                amountIn: unit(path[0]),
                amountOutMin: U256::ZERO,
                path,
                to: trader,
                deadline: U256::from(DEADLINE),
            };
            constant_product.push(
                estimate(
                    &devnet,
                    trader,
                    a.contracts.uniswap_v2.router02,
                    swap.abi_encode(),
                )
                .await,
            );
        }
    }

    let (mut volatile, mut stable) = (Vec::new(), Vec::new());
    for pool in &a.pools.aerodrome {
        let is_stable = pool.stable.expect("stable flag");
        for (from, to) in [
            (pool.token0_address, pool.token1_address),
            (pool.token1_address, pool.token0_address),
        ] {
            let swap = IAerodromeRouter::swapExactTokensForTokensCall {
                amountIn: unit(from),
                amountOutMin: U256::ZERO,
                routes: vec![IAerodromeRouter::Route {
                    from,
                    to,
                    stable: is_stable,
                    factory: a.contracts.aerodrome.pool_factory,
                }],
                to: trader,
                deadline: U256::from(DEADLINE),
            };
            let gas = estimate(
                &devnet,
                trader,
                a.contracts.aerodrome.router,
                swap.abi_encode(),
            )
            .await;
            if is_stable {
                stable.push(gas);
            } else {
                volatile.push(gas);
            }
        }
    }

    let model = GasModel::default();
    let within = |label: &str, figure: u64, values: &[u64]| {
        let (min, max) = range(label, values);
        assert!(
            (min..=max).contains(&figure),
            "{label}: the model's {figure} is outside the measured {min}..={max}"
        );
    };
    within(
        "router base (SwapRouter − QuoterV2)",
        model.router_base,
        &overheads,
    );
    within(
        "constant-product single hop (Router02)",
        model.router_base + model.constant_product_hop,
        &constant_product,
    );
    within(
        "Solidly volatile single hop (Aerodrome Router)",
        model.router_base + model.solidly_volatile_hop,
        &volatile,
    );
    within(
        "Solidly stable single hop (Aerodrome Router)",
        model.router_base + model.solidly_stable_hop,
        &stable,
    );
}
