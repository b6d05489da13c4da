//! The committed state answers as `addresses.json` says: every V3 pool through QuoterV2, the V2
//! pairs through Router02, the Solidly pools through their own `getAmountOut`, every borrower's
//! `getUserAccountData`, every feed's rounds, and a 30-minute `observe` window.

#![allow(missing_docs)]

use alloy::primitives::{Address, U256, aliases::U24, aliases::U160};
use alloy::providers::DynProvider;
use test_devnet::addresses::Pool;
use test_devnet::bindings::{
    IAavePool, IAggregatorV3, IErc20, IPoolAddressesProvider, IQuoterV2, IRouter02, ISolidlyPool,
    IUniswapV2Pair, IUniswapV3Pool,
};
use test_devnet::{Addresses, Devnet};

fn devnet() -> Devnet {
    Devnet::load().expect("the committed devnet loads (anvil installed by `cargo xtask ci`)")
}

fn token(addresses: &Addresses, symbol: &str) -> Address {
    addresses
        .token(symbol)
        .unwrap_or_else(|| panic!("token {symbol} in addresses.json"))
}

fn pool_by_address(pools: &[Pool], address: Address) -> &Pool {
    pools
        .iter()
        .find(|p| p.address == address)
        .unwrap_or_else(|| panic!("pool {address} listed"))
}

fn other(pool: &Pool, token_in: Address) -> Address {
    if pool.token0_address == token_in {
        pool.token1_address
    } else {
        pool.token0_address
    }
}

#[tokio::test]
async fn devnet_quoter_v2_quotes_every_v3_pool_as_recorded() {
    let devnet = devnet();
    let a = &devnet.addresses;
    let quoter = IQuoterV2::new(a.contracts.uniswap_v3.quoter_v2, &devnet.provider);
    assert!(
        a.checks.v3_quotes.len() >= 10,
        "main pairs at several fee tiers"
    );
    let mut crossed_several = false;
    for (name, check) in &a.checks.v3_quotes {
        let pool = pool_by_address(&a.pools.uniswap_v3, check.pool);
        let contract = IUniswapV3Pool::new(check.pool, &devnet.provider);
        let slot0 = contract.slot0().call().await.expect("slot0");
        assert_eq!(
            U256::from(slot0.sqrtPriceX96),
            check.sqrt_price_x96,
            "{name} price"
        );
        assert_eq!(
            i32::try_from(slot0.tick).expect("tick"),
            check.tick,
            "{name} tick"
        );
        assert_eq!(
            U256::from(contract.liquidity().call().await.expect("liquidity")),
            check.liquidity,
            "{name} liquidity"
        );
        for quote in &check.quotes {
            let token_in = token(a, &quote.token_in);
            let params = IQuoterV2::QuoteExactInputSingleParams {
                tokenIn: token_in,
                tokenOut: other(pool, token_in),
                amountIn: quote.amount_in,
                fee: U24::from(pool.fee.expect("v3 fee")),
                sqrtPriceLimitX96: U160::ZERO,
            };
            let answer = quoter
                .quoteExactInputSingle(params)
                .call()
                .await
                .expect("quote");
            assert_eq!(
                answer.amountOut, quote.amount_out,
                "{name} {} in",
                quote.amount_in
            );
            assert_eq!(
                U256::from(answer.sqrtPriceX96After),
                quote.sqrt_price_x96_after,
                "{name}"
            );
            assert_eq!(
                answer.initializedTicksCrossed, quote.initialized_ticks_crossed,
                "{name}"
            );
            crossed_several |= answer.initializedTicksCrossed >= 3;
        }
    }
    assert!(
        crossed_several,
        "some recorded trade crosses several initialized ticks"
    );
}

#[tokio::test]
async fn devnet_router02_and_pairs_answer_as_recorded() {
    let devnet = devnet();
    let a = &devnet.addresses;
    let router = IRouter02::new(a.contracts.uniswap_v2.router02, &devnet.provider);
    assert!(!a.checks.v2_pairs.is_empty());
    for (name, check) in &a.checks.v2_pairs {
        let address = check.address().expect("pair address");
        let pool = pool_by_address(&a.pools.uniswap_v2, address);
        let reserves = IUniswapV2Pair::new(address, &devnet.provider)
            .getReserves()
            .call()
            .await
            .expect("reserves");
        assert_eq!(
            (U256::from(reserves.reserve0), U256::from(reserves.reserve1)),
            (check.reserve0, check.reserve1),
            "{name}"
        );
        for quote in &check.quotes {
            let token_in = token(a, &quote.token_in);
            let amounts = router
                .getAmountsOut(quote.amount_in, vec![token_in, other(pool, token_in)])
                .call()
                .await
                .expect("getAmountsOut");
            assert_eq!(amounts.last().copied(), Some(quote.amount_out), "{name}");
        }
    }
}

#[tokio::test]
async fn devnet_solidly_pools_answer_their_own_get_amount_out_as_recorded() {
    let devnet = devnet();
    let a = &devnet.addresses;
    assert!(
        a.pools.aerodrome.iter().any(|p| p.stable == Some(true)),
        "a stable pool"
    );
    assert!(
        a.pools.aerodrome.iter().any(|p| p.stable == Some(false)),
        "a volatile pool"
    );
    for (name, check) in &a.checks.aerodrome_pools {
        let address = check.address().expect("pool address");
        let pool = ISolidlyPool::new(address, &devnet.provider);
        let reserves = pool.getReserves().call().await.expect("reserves");
        assert_eq!(
            (reserves.reserve0, reserves.reserve1),
            (check.reserve0, check.reserve1),
            "{name}"
        );
        for quote in &check.quotes {
            let out = pool
                .getAmountOut(quote.amount_in, token(a, &quote.token_in))
                .call()
                .await
                .expect("getAmountOut");
            assert_eq!(out, quote.amount_out, "{name}");
        }
    }
}

#[tokio::test]
async fn devnet_every_borrower_reads_as_recorded_through_the_address_provider() {
    let devnet = devnet();
    let a = &devnet.addresses;
    let provider = IPoolAddressesProvider::new(
        a.contracts.aave_v3.pool_addresses_provider,
        &devnet.provider,
    );
    let pool_address = provider.getPool().call().await.expect("getPool");
    assert_eq!(pool_address, a.contracts.aave_v3.pool);
    assert_eq!(
        provider.getPriceOracle().call().await.expect("oracle"),
        a.contracts.aave_v3.aave_oracle
    );
    let pool = IAavePool::new(pool_address, &devnet.provider);
    for role in [
        "healthy",
        "near_liquidation",
        "multi_asset",
        "stable_and_variable",
        "emode",
        "collateral_cannot_liquidate",
        "no_position",
    ] {
        assert!(a.aave.borrowers.contains_key(role), "borrower {role}");
    }
    for (role, borrower) in &a.aave.borrowers {
        let data = pool
            .getUserAccountData(borrower.address)
            .call()
            .await
            .expect("account data");
        let want = &borrower.account_data;
        assert_eq!(
            data.totalCollateralBase, want.total_collateral_base,
            "{role}"
        );
        assert_eq!(data.totalDebtBase, want.total_debt_base, "{role}");
        assert_eq!(
            data.availableBorrowsBase, want.available_borrows_base,
            "{role}"
        );
        assert_eq!(
            data.currentLiquidationThreshold, want.current_liquidation_threshold,
            "{role}"
        );
        assert_eq!(data.ltv, want.ltv, "{role}");
        assert_eq!(data.healthFactor, want.health_factor, "{role}");
    }
    let near = &a.aave.borrowers["near_liquidation"]
        .account_data
        .health_factor;
    let one = U256::from(10u64).pow(U256::from(18u64));
    assert!(
        *near > one && *near < one * U256::from(11u64) / U256::from(10u64),
        "near liquidation: 1 < HF < 1.1"
    );
}

#[tokio::test]
async fn devnet_every_feed_answers_its_rounds() {
    let devnet = devnet();
    let a = &devnet.addresses;
    for pair in [
        "ETH/USD", "BTC/USD", "USDC/USD", "USDT/USD", "DAI/USD", "LINK/USD",
    ] {
        let feed = a
            .feeds
            .by_pair
            .get(pair)
            .unwrap_or_else(|| panic!("feed {pair}"));
        assert!(feed.rounds.len() >= 2, "{pair} has at least two rounds");
        let aggregator = IAggregatorV3::new(feed.address, &devnet.provider);
        assert_eq!(
            aggregator.decimals().call().await.expect("decimals"),
            feed.decimals
        );
        let latest = aggregator
            .latestRoundData()
            .call()
            .await
            .expect("latestRoundData");
        let last = feed.rounds.last().expect("a round");
        assert_eq!(
            u64::try_from(latest.roundId).expect("round id"),
            last.round_id,
            "{pair}"
        );
        assert_eq!(latest.answer, last.answer, "{pair}");
        assert_eq!(latest.updatedAt, U256::from(last.updated_at), "{pair}");
        for round in &feed.rounds {
            let data = aggregator
                .getRoundData(alloy::primitives::aliases::U80::from(round.round_id))
                .call()
                .await
                .expect("getRoundData");
            assert_eq!(
                (data.answer, data.startedAt, data.updatedAt),
                (
                    round.answer,
                    U256::from(round.started_at),
                    U256::from(round.updated_at)
                ),
                "{pair} round {}",
                round.round_id
            );
        }
    }
    let stale = &a.feeds.by_pair[&a.feeds.stale];
    let age = a.chain.final_block.timestamp - stale.rounds.last().expect("round").updated_at;
    assert!(
        age > 86_400,
        "the stale feed is older than a day at the final block ({age} s)"
    );
    assert_ne!(a.feeds.stale, a.feeds.deviating);
}

#[tokio::test]
async fn devnet_a_thirty_minute_observe_window_answers_as_recorded_and_differs_from_spot() {
    let devnet = devnet();
    let a = &devnet.addresses;
    assert!(!a.checks.twap.is_empty());
    for (name, check) in &a.checks.twap {
        assert_eq!(check.seconds_agos, [1800, 0]);
        let observed = IUniswapV3Pool::new(check.pool, &devnet.provider)
            .observe(vec![1800, 0])
            .call()
            .await
            .expect("observe");
        let cumulatives: Vec<String> = observed
            .tickCumulatives
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(cumulatives, check.tick_cumulatives, "{name}");
        let first: i64 = check.tick_cumulatives[0].parse().expect("number");
        let last: i64 = check.tick_cumulatives[1].parse().expect("number");
        assert_eq!(
            i32::try_from((last - first).div_euclid(1800)).expect("tick"),
            check.mean_tick,
            "{name} mean tick"
        );
    }
    assert!(
        a.checks.twap.values().any(|c| c.mean_tick != c.spot_tick),
        "the TWAP differs from spot"
    );
}

#[tokio::test]
async fn devnet_snapshot_and_revert_isolate_a_test() {
    let devnet = devnet();
    let a = &devnet.addresses;
    let usdc = IErc20::new(a.payment_rail.usdc, &devnet.provider);
    let payer = a.payment_rail.payer_address;
    let before = usdc.balanceOf(payer).call().await.expect("balance");
    assert_eq!(
        before,
        U256::from(1_000_000_000u64),
        "the payer holds 1,000 USDC"
    );
    let moved = devnet
        .isolated(async |d: &Devnet| {
            impersonate_send(
                &d.provider,
                payer,
                a.payment_rail.pay_to,
                a.payment_rail.usdc,
            )
            .await;
            usdc.balanceOf(payer).call().await.expect("balance")
        })
        .await
        .expect("snapshot and revert");
    assert_eq!(moved, before - U256::from(1u64));
    assert_eq!(
        usdc.balanceOf(payer).call().await.expect("balance"),
        before,
        "reverted"
    );
}

async fn impersonate_send(provider: &DynProvider, from: Address, to: Address, usdc: Address) {
    use alloy::providers::Provider as _;
    use alloy::rpc::types::TransactionRequest;
    use alloy::sol_types::SolCall as _;
    let _: () = provider
        .raw_request("anvil_impersonateAccount".into(), (from,))
        .await
        .expect("impersonate");
    let _: () = provider
        .raw_request(
            "anvil_setBalance".into(),
            (from, U256::from(10u64).pow(U256::from(18u64))),
        )
        .await
        .expect("gas money");
    let call = IErc20::transferCall {
        to,
        value: U256::from(1u64),
    }
    .abi_encode();
    let tx = TransactionRequest::default()
        .from(from)
        .to(usdc)
        .input(call.into());
    let receipt = provider
        .send_transaction(tx)
        .await
        .expect("send")
        .get_receipt()
        .await
        .expect("receipt");
    assert!(receipt.status());
}

#[tokio::test]
async fn devnet_the_sandwich_blocks_hold_front_run_victim_back_run_in_order() {
    use alloy::eips::BlockNumberOrTag;
    use alloy::providers::Provider as _;
    let devnet = devnet();
    let a = &devnet.addresses;
    for venue in ["uniswap_v3", "uniswap_v2"] {
        let sandwich = &a.activity["sandwiches"][venue];
        let number = sandwich["block"].as_u64().expect("block number");
        assert!(
            number >= a.chain.history_kept_from_block,
            "{venue}: the block survived trimming"
        );
        let block = devnet
            .provider
            .get_block_by_number(BlockNumberOrTag::Number(number))
            .await
            .expect("rpc")
            .expect("block kept in the state");
        let hashes: Vec<String> = block.transactions.hashes().map(|h| h.to_string()).collect();
        let recorded: Vec<&str> = sandwich["txs"]
            .as_array()
            .expect("txs")
            .iter()
            .filter_map(|t| t.as_str())
            .collect();
        assert_eq!(
            hashes, recorded,
            "{venue}: exactly the three transactions, in order"
        );
        for (hash, role) in hashes.iter().zip(["front-run", "victim", "back-run"]) {
            let receipt = devnet
                .provider
                .get_transaction_receipt(hash.parse().expect("hash"))
                .await
                .expect("rpc")
                .expect("receipt kept");
            assert!(receipt.status(), "{venue} {role} succeeded");
        }
    }
}
