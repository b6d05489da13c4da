//! `/oracle/crosscheck` on the local chain with the off-chain stand-in: paid by the official
//! x402 client and settled for its price; every on-chain row equal to this test's own
//! `latestRoundData`/`getRoundData`, `slot0` and `observe` at the answer's block; a new feed
//! round and a swap change the next answer; a pool whose observations were all overwritten by
//! recent swaps gives a null TWAP with the contract's own `OLD`; a node that is down is a 502
//! and a node slower than the time budget a 504, neither settled. Every test starts its own
//! anvil.

mod common;

use std::time::Duration;

use alloy::eips::BlockId;
use alloy::primitives::aliases::{U24, U160};
use alloy::primitives::{Address, I256, U256};
use alloy::providers::Provider;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::{SolCall, SolError};
use analytics_server::AnalyticsConfig;
use analytics_server::chains::Chains;
use analytics_server::config::ChainEndpoint;
use analytics_server::oracle_crosscheck::{CrosscheckConfig, oracle_crosscheck};
use analytics_server::requests::{Chain, OracleCrosscheckRequest};
use price_check::Price;
use serde_json::{Value, json};
use test_devnet::PaidDevnet;
use test_devnet::bindings::{IAggregatorV3, ISwapRouter, IUniswapV3Pool};
use test_devnet::standin::{REDSTONE_OFFSET_BPS, StandIn};

async fn world() -> (PaidDevnet, StandIn) {
    let world = PaidDevnet::spawn().await.expect("devnet");
    let standin = StandIn::spawn(&world.info.rpc_url, &world.chain.addresses)
        .await
        .expect("stand-in");
    (world, standin)
}

/// The stand-in's `[sources]` and the devnet feeds' accepted description.
fn configure(world: &PaidDevnet, standin: &StandIn) -> impl FnOnce(&mut AnalyticsConfig) + use<> {
    common::with_standin(world, standin)
}

fn row<'a>(answer: &'a Value, kind: &str) -> &'a Value {
    answer["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .find(|r| r["kind"] == kind)
        .unwrap_or_else(|| panic!("a {kind} row in {answer}"))
}

async fn at_block<C: SolCall>(world: &PaidDevnet, to: Address, call: &C, block: u64) -> C::Return {
    let raw = world
        .chain
        .provider
        .call(
            TransactionRequest::default()
                .to(to)
                .input(call.abi_encode().into()),
        )
        .block(BlockId::number(block))
        .await
        .expect("eth_call");
    C::abi_decode_returns(&raw).expect("decode")
}

/// Every on-chain row equals this test's own reads at the answer's block.
async fn prove_on_chain_rows(world: &PaidDevnet, answer: &Value) {
    let block = answer["block_number"].as_u64().expect("block");
    let timestamp = answer["block_timestamp"].as_u64().expect("timestamp");
    let feed = world.chain.addresses.feeds.by_pair["ETH/USD"].address;
    let latest = at_block(world, feed, &IAggregatorV3::latestRoundDataCall {}, block).await;
    let previous = at_block(
        world,
        feed,
        &IAggregatorV3::getRoundDataCall {
            roundId: latest.roundId - alloy::primitives::Uint::<80, 2>::from(1u8),
        },
        block,
    )
    .await;
    let aggregator = row(answer, "aggregator");
    let expected = Price::scaled(latest.answer.unsigned_abs(), -8).expect("price");
    assert_eq!(aggregator["price"], expected.to_string());
    let updated = u64::try_from(latest.updatedAt).expect("time");
    assert_eq!(aggregator["updated_at"], updated);
    assert_eq!(aggregator["age_seconds"], timestamp - updated);
    assert_eq!(
        aggregator["observed_update_interval_seconds"],
        updated - u64::try_from(previous.updatedAt).expect("time")
    );
    assert!(aggregator["heartbeat_seconds"].is_null());

    let weth = world.chain.addresses.token("WETH").expect("WETH");
    let usdc = world.chain.addresses.token("USDC").expect("USDC");
    let spot = row(answer, "dex_spot");
    let spot_pool = spot["pool"].as_str().expect("pool");
    // The deepest WETH/USDC pool of the devnet is a Uniswap V4 pool (by PoolId, against
    // native ether: ether is its currency0, as WETH is token0 of the V3 pools).
    let sqrt_price = if spot_pool.len() == 66 {
        let id: alloy::primitives::B256 = spot_pool.parse().expect("PoolId");
        let state_view = world.chain.addresses.contracts.uniswap_v4.state_view;
        U256::from(
            at_block(
                world,
                state_view,
                &chain_read::bindings::IStateView::getSlot0Call { poolId: id },
                block,
            )
            .await
            .sqrtPriceX96,
        )
    } else {
        let pool: Address = spot_pool.parse().expect("pool");
        U256::from(
            at_block(world, pool, &IUniswapV3Pool::slot0Call {}, block)
                .await
                .sqrtPriceX96,
        )
    };
    let own_spot =
        price_check::onchain::usdc_per_asset(sqrt_price, weth < usdc, 18, 6).expect("spot");
    assert_eq!(spot["price"], own_spot.to_string(), "exact to 18 places");
    // V4 pools keep no observations: the TWAP is the deepest V3 pool's.
    let pool: Address = row(answer, "dex_twap")["pool"]
        .as_str()
        .and_then(|p| p.parse().ok())
        .expect("the TWAP row's V3 pool");
    let observed = at_block(
        world,
        pool,
        &IUniswapV3Pool::observeCall {
            secondsAgos: vec![1800, 0],
        },
        block,
    )
    .await;
    let mean = chain_read::oracle::mean_tick(
        observed.tickCumulatives[0].as_i64(),
        observed.tickCumulatives[1].as_i64(),
        1800,
    )
    .expect("mean tick");
    let twap = row(answer, "dex_twap");
    assert_eq!(twap["tick"], mean);
    let own_twap = price_check::onchain::usdc_per_asset(
        dex_math::tick_math::get_sqrt_ratio_at_tick(mean).expect("sqrt"),
        weth < usdc,
        18,
        6,
    )
    .expect("twap");
    assert_eq!(
        twap["price"],
        own_twap.to_string(),
        "1.0001^meanTick as TickMath"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_paid_crosscheck_is_settled_and_its_chain_rows_equal_own_reads() {
    let (world, standin) = world().await;
    let call = common::devnet_paid_call(
        &world,
        &world.info.rpc_url,
        configure(&world, &standin),
        "/oracle/crosscheck",
        json!({"chain": "base", "asset": "ETH"}),
    )
    .await;
    call.assert_settled(5000);
    let answer = &call.report["final"]["body"];
    // Four with a Uniswap V4 pool deepest: StateView's words, then the ticks they mark.
    assert!(
        answer["rpc_round_trips"].as_u64().is_some_and(|n| n <= 4),
        "{answer}"
    );
    prove_on_chain_rows(&world, answer).await;
    assert_eq!(answer["usdt_quoted_sources"], json!(["Binance ETH/USDT"]));
    assert_eq!(answer["thresholds"]["thin_pool_depth_usd"], 250_000);
    // Every kind has a price from the stand-in, and the deliberately shifted RedStone row is
    // flagged against the printed threshold.
    assert_eq!(answer["kinds_without_price"], json!([]), "{answer}");
    let redstone = row(answer, "pull_oracle_b");
    assert_eq!(redstone["signer_count"], 3);
    let deviation = redstone["deviation_from_median_bps"].as_f64().expect("bps");
    assert!(
        deviation > f64::from(REDSTONE_OFFSET_BPS) - 30.0,
        "{deviation}"
    );
    assert!(
        redstone["flags"]
            .as_array()
            .expect("flags")
            .iter()
            .any(|f| f["flag"] == "deviates_from_median"),
        "{redstone}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_new_round_and_a_swap_change_the_next_answer() {
    let (world, standin) = world().await;
    let direct = Direct::new(&world, &standin);
    let before = direct.answer().await;

    let provider = &world.chain.provider;
    let deployer = world.chain.addresses.deployer.address;
    let feed = world.chain.addresses.feeds.by_pair["ETH/USD"].address;
    send(
        &world,
        deployer,
        feed,
        &IAggregatorV3::updateAnswerCall {
            answer: I256::try_from(320_000_000_000i64).expect("answer"),
        },
    )
    .await;
    let trader: Address = world.chain.addresses.activity["traders"][0]["address"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("a devnet trader");
    provider
        .raw_request::<_, Value>("anvil_impersonateAccount".into(), json!([trader]))
        .await
        .expect("impersonate");
    // The swap goes through the V3 pool the TWAP row reads (the spot row's is a V4 pool).
    let pool = row(&before, "dex_twap")["pool"]
        .as_str()
        .expect("pool")
        .to_owned();
    let fee = row(&before, "dex_twap")["fee_tier_ppm"]
        .as_u64()
        .expect("fee");
    let value_of = |answer: &Value| {
        row(answer, "dex_spot")["pools_compared"]
            .as_array()
            .and_then(|pools| pools.iter().find(|p| p["pool"] == pool.as_str()))
            .map(|p| p["in_range_value_usd"].clone())
            .expect("the V3 pool compared")
    };
    swap(
        &world,
        trader,
        "USDC",
        "WETH",
        fee,
        U256::from(50_000_000_000u64),
    )
    .await;

    let after = direct.answer().await;
    assert!(after["block_number"].as_u64() > before["block_number"].as_u64());
    assert_eq!(row(&after, "aggregator")["price"], "3200");
    assert_ne!(
        value_of(&after),
        value_of(&before),
        "the swapped pool's value"
    );
    assert_eq!(row(&after, "dex_twap")["pool"], pool.as_str());
    prove_on_chain_rows(&world, &after).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_pool_whose_observations_do_not_reach_back_30_minutes_gives_a_null_twap_with_old()
{
    let (world, standin) = world().await;
    let before = Direct::new(&world, &standin).answer().await;
    // The devnet's history reaches back 30 minutes: the TWAP is priced before the swaps.
    assert!(row(&before, "dex_twap")["price"].is_string(), "{before}");
    // The TWAP row's pool: the deepest V3 pool (the spot row's is a V4 pool, no oracle).
    let spot = row(&before, "dex_twap");
    let pool_text = spot["pool"].as_str().expect("pool").to_owned();
    let pool: Address = pool_text.parse().expect("pool address");
    let fee = spot["fee_tier_ppm"].as_u64().expect("fee");
    let price: f64 = spot["price"]
        .as_str()
        .and_then(|p| p.parse().ok())
        .expect("spot price");

    let provider = &world.chain.provider;
    let latest = provider.get_block_number().await.expect("block");
    let slot0 = at_block(&world, pool, &IUniswapV3Pool::slot0Call {}, latest).await;
    assert!(
        slot0.observationCardinality >= 2,
        "the builder raised the cardinality"
    );
    let trader: Address = world.chain.addresses.activity["traders"][0]["address"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("a devnet trader");
    provider
        .raw_request::<_, Value>("anvil_impersonateAccount".into(), json!([trader]))
        .await
        .expect("impersonate");
    // One swap per block, one second apart: each writes one observation, and more swaps than
    // the ring holds (it grows to cardinalityNext when it wraps) leave every slot younger than
    // a few minutes. Buy and sell about 2,000 USDC in turn so the price barely moves.
    provider
        .raw_request::<_, Value>("anvil_setBlockTimestampInterval".into(), json!([1]))
        .await
        .expect("interval");
    let usdc_in = U256::from(2_000_000_000u64);
    let weth_in = U256::from((2_000.0 / price * 1e18) as u128);
    let swaps = slot0
        .observationCardinality
        .max(slot0.observationCardinalityNext)
        + 5;
    for i in 0..swaps {
        if i % 2 == 0 {
            swap(&world, trader, "USDC", "WETH", fee, usdc_in).await;
        } else {
            swap(&world, trader, "WETH", "USDC", fee, weth_in).await;
        }
    }
    provider
        .raw_request::<_, Value>("anvil_removeBlockTimestampInterval".into(), json!([]))
        .await
        .expect("interval removed");

    let call = common::devnet_paid_call(
        &world,
        &world.info.rpc_url,
        configure(&world, &standin),
        "/oracle/crosscheck",
        json!({"chain": "base", "asset": "ETH"}),
    )
    .await;
    call.assert_settled(5000);
    let answer = &call.report["final"]["body"];
    let block = answer["block_number"].as_u64().expect("block");

    // The contract itself refuses: observe([1800, 0]) reverts with Error("OLD") at the block.
    let refused = provider
        .call(
            TransactionRequest::default().to(pool).input(
                IUniswapV3Pool::observeCall {
                    secondsAgos: vec![1800, 0],
                }
                .abi_encode()
                .into(),
            ),
        )
        .block(BlockId::number(block))
        .await
        .expect_err("observe([1800, 0]) reverts");
    let data = refused
        .as_error_resp()
        .and_then(|e| e.as_revert_data())
        .unwrap_or_else(|| panic!("revert data in {refused}"));
    let reason = alloy::sol_types::Revert::abi_decode(&data).expect("Error(string)");
    assert_eq!(reason.reason, "OLD");
    let cardinality = at_block(&world, pool, &IUniswapV3Pool::slot0Call {}, block)
        .await
        .observationCardinality;
    assert_eq!(
        cardinality, 100,
        "the devnet builder's observation cardinality"
    );

    let twap = row(answer, "dex_twap");
    assert!(twap["price"].is_null(), "{twap}");
    assert_eq!(twap["pool"], pool_text.as_str());
    assert_eq!(twap["observation_cardinality"], cardinality);
    let null_reason = twap["null_reason"].as_str().expect("null_reason");
    assert!(null_reason.contains("'OLD'"), "{null_reason}");
    assert!(
        null_reason.contains(&format!("observation cardinality {cardinality}")),
        "{null_reason}"
    );
    let spot = row(answer, "dex_spot");
    assert_ne!(
        spot["pool"],
        pool_text.as_str(),
        "the spot row's is a V4 pool"
    );
    assert!(spot["price"].is_string(), "{spot}");
    assert!(
        answer["kinds_without_price"]
            .as_array()
            .expect("kinds")
            .iter()
            .any(|k| k == "dex_twap"),
        "{answer}"
    );
}

/// The route's function called directly (no payment), for answers before and after a change.
struct Direct {
    chains: Chains,
    sources: oracle_sources::Sources,
    crosscheck: CrosscheckConfig,
    request: OracleCrosscheckRequest,
}

impl Direct {
    fn new(world: &PaidDevnet, standin: &StandIn) -> Self {
        let mut config = AnalyticsConfig::default();
        let registry = world.chain.addresses.server_override();
        config.chains.insert(
            Chain::Base,
            ChainEndpoint::at(&world.info.rpc_url, registry.tokens, registry.contracts),
        );
        configure(world, standin)(&mut config);
        Self {
            chains: Chains::from_config(&config.chains).expect("chains"),
            sources: oracle_sources::Sources::new(&config.sources).expect("sources"),
            crosscheck: config.crosscheck.clone(),
            request: serde_json::from_value(json!({
                "chain": "base",
                "asset": "ETH",
                "oracles": ["aggregator", "dex_spot", "dex_twap"]
            }))
            .expect("request"),
        }
    }

    async fn answer(&self) -> Value {
        serde_json::to_value(
            oracle_crosscheck(&self.chains, &self.sources, &self.crosscheck, &self.request)
                .await
                .expect("answer"),
        )
        .expect("json")
    }
}

/// `amount_in` of `token_in` for `token_out` through the V3 router at fee tier `fee`.
async fn swap(
    world: &PaidDevnet,
    trader: Address,
    token_in: &str,
    token_out: &str,
    fee: u64,
    amount_in: U256,
) {
    send(
        world,
        trader,
        world.chain.addresses.contracts.uniswap_v3.swap_router,
        &ISwapRouter::exactInputSingleCall {
            params: ISwapRouter::ExactInputSingleParams {
                tokenIn: world.chain.addresses.token(token_in).expect("token in"),
                tokenOut: world.chain.addresses.token(token_out).expect("token out"),
                fee: U24::from(u32::try_from(fee).expect("fee tier")),
                recipient: trader,
                deadline: U256::from(u64::MAX),
                amountIn: amount_in,
                amountOutMinimum: U256::ZERO,
                sqrtPriceLimitX96: U160::ZERO,
            },
        },
    )
    .await;
}

async fn send<C: SolCall>(world: &PaidDevnet, from: Address, to: Address, call: &C) {
    let provider = &world.chain.provider;
    let pending = provider
        .send_transaction(
            TransactionRequest::default()
                .from(from)
                .to(to)
                .input(call.abi_encode().into()),
        )
        .await
        .expect("sent");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let receipt = provider
            .get_transaction_receipt(*pending.tx_hash())
            .await
            .expect("receipt");
        if let Some(receipt) = receipt {
            assert!(receipt.status(), "{} reverted", C::SIGNATURE);
            return;
        }
        assert!(std::time::Instant::now() < deadline, "mined within 60 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_chain_node_that_is_down_is_a_502_and_not_settled() {
    let (world, standin) = world().await;
    common::assert_node_down_is_502(
        &world,
        configure(&world, &standin),
        "/oracle/crosscheck",
        json!({"chain": "base", "asset": "ETH"}),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_a_node_slower_than_the_time_budget_is_a_504_and_not_settled() {
    let (world, standin) = world().await;
    common::assert_slow_node_is_504(
        &world,
        configure(&world, &standin),
        "/oracle/crosscheck",
        json!({"chain": "base", "asset": "ETH"}),
    )
    .await;
}

/// Every asked source has nothing for the asset here (LINK has no USDC pool on the devnet, and
/// only the DEX rows are asked): an empty answer, 422 `no_price`, not a 502 that would have the
/// client retry a counterparty that answered; never settled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_no_source_with_a_price_for_the_asset_is_422_no_price_and_not_settled() {
    let (world, standin) = world().await;
    let call = common::devnet_paid_call(
        &world,
        &world.info.rpc_url,
        configure(&world, &standin),
        "/oracle/crosscheck",
        json!({"chain": "base", "asset": "LINK", "oracles": ["dex_spot", "dex_twap"]}),
    )
    .await;
    call.assert_refused_unsettled(422, "no_price");
    let message = call.report["final"]["body"]["message"]
        .as_str()
        .expect("message");
    assert!(message.contains("no LINK/USDC pool"), "{message}");
}
