//! `/mev/risk`'s work on the committed devnet (no payment: the handler itself, on a fresh
//! anvil): the model's unattacked output equals the official quote on every Uniswap V2, V3 and
//! Aerodrome pool (`model_error_bps` = 0), and the history scan of the pools holding the
//! planted sandwiches (testdata/devnet/README.md, "MEV history") finds each exactly once with
//! its attacker, victim and profit, the decoy block and ordinary trading none; and a sandwich
//! built at the answered optimum on the V2 pair and on the V3 0.05 % pool (automine off, three transactions in one
//! block) leaves the victim its `amount_out_min` (within one unit) and earns the attacker the
//! answered profit (within 1 %; on the devnet both are exact). Needs the npm-installed anvil.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use alloy::primitives::Address;
use analytics_server::chains::Chains;
use analytics_server::config::ChainEndpoint;
use analytics_server::mev_risk::{MevRiskAnswer, mev_risk};
use analytics_server::requests::{Chain, MevRiskRequest};
use serde_json::{Value, json};
use test_devnet::Devnet;

fn chains(devnet: &Devnet) -> Chains {
    let registry = devnet.addresses.server_override();
    let mut endpoints = BTreeMap::new();
    endpoints.insert(
        Chain::Base,
        ChainEndpoint::at(&devnet.anvil.rpc_url, registry.tokens, registry.contracts),
    );
    Chains::from_config(&endpoints).expect("chains")
}

/// A trade size per token that every devnet pool holding it takes.
fn size(devnet: &Devnet, token: Address) -> &'static str {
    let symbol = devnet
        .addresses
        .tokens
        .iter()
        .find(|(_, t)| t.address == token)
        .map(|(s, _)| s.as_str())
        .unwrap_or_default();
    match symbol {
        "WETH" => "0.5",
        "WBTC" => "0.01",
        "LINK" => "20",
        _ => "500",
    }
}

async fn assess(chains: &Chains, body: Value) -> MevRiskAnswer {
    let request: MevRiskRequest = serde_json::from_value(body.clone()).expect("request");
    match mev_risk(chains, &request).await {
        Ok(answer) => answer,
        Err(error) => panic!("{body}: {error:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_model_error_is_zero_on_every_pool_both_ways() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let pools = &devnet.addresses.pools;
    let all: Vec<_> = pools
        .uniswap_v2
        .iter()
        .chain(&pools.uniswap_v3)
        .chain(&pools.aerodrome)
        .collect();
    assert_eq!(all.len(), 22, "every devnet pool");
    for pool in all {
        for (token_in, token_out) in [
            (pool.token0_address, pool.token1_address),
            (pool.token1_address, pool.token0_address),
        ] {
            let body = json!({
                "chain": "base",
                "token_in": token_in.to_checksum(None),
                "token_out": token_out.to_checksum(None),
                "amount_in": size(&devnet, token_in),
                "slippage_bps": 50,
                "route": pool.address.to_checksum(None),
                "scan_history": false,
            });
            let answer = assess(&chains, body).await;
            assert_eq!(answer.pool.address, pool.address.to_checksum(None));
            assert_eq!(
                answer.model_error_bps, 0.0,
                "{}: model {} vs quote {}",
                pool.name, answer.model_amount_out.atomic, answer.quoted_out.atomic
            );
            assert_eq!(answer.model_amount_out, answer.quoted_out, "{}", pool.name);
            assert_eq!(answer.rpc_round_trips, 3);
            // max_loss is exact: quoted − floor(quoted × 9950 / 10000).
            let quoted: u128 = answer.quoted_out.atomic.parse().expect("quoted");
            let min: u128 = answer.amount_out_min.atomic.parse().expect("min");
            let loss: u128 = answer.max_loss.atomic.parse().expect("loss");
            assert_eq!(min, quoted * 9950 / 10000, "{}", pool.name);
            assert_eq!(loss, quoted - min, "{}", pool.name);
            if let Some(ticks) = &answer.attacker.ticks_read {
                assert!(ticks.attack_stays_inside, "{}: {ticks:?}", pool.name);
            }
            assert!(!answer.recent_sandwiches_on_pool.scanned);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_history_finds_each_planted_sandwich_once() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let planted = &devnet.addresses.activity["sandwiches"];
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let usdc = devnet.addresses.token("USDC").expect("USDC");
    for venue in ["uniswap_v3", "uniswap_v2"] {
        let sandwich = &planted[venue];
        let body = json!({
            "chain": "base",
            "token_in": usdc.to_checksum(None),
            "token_out": weth.to_checksum(None),
            "amount_in": "1000",
            "slippage_bps": 100,
            "route": sandwich["pool"],
            "scan_history": true,
        });
        let answer = assess(&chains, body).await;
        let history = &answer.recent_sandwiches_on_pool;
        assert!(history.scanned);
        assert_eq!(
            history.window_blocks,
            Some(answer.block_number + 1).map(|n| n.min(2000))
        );
        assert!(
            history.label.starts_with("pattern matches"),
            "base has no public mempool"
        );
        assert_eq!(history.count, Some(1), "{venue}: {:?}", history.matches);
        let found = &history.matches[0];
        assert_eq!(Some(found.block), sandwich["block"].as_u64());
        assert_eq!(Some(found.attacker.as_str()), sandwich["attacker"].as_str());
        let txs: Vec<&str> = sandwich["txs"]
            .as_array()
            .expect("txs")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(found.front_run.tx, txs[0]);
        assert_eq!(found.victims.len(), 1);
        assert_eq!(found.victims[0].tx, txs[1]);
        assert_eq!(found.back_run.tx, txs[2]);
        assert_eq!(
            Some(found.profit.atomic.as_str()),
            sandwich["attacker_profit"]["amount"].as_str(),
            "{venue}"
        );
        assert_eq!(found.profit_token, usdc.to_checksum(None));
        assert!(history.eth_get_logs_requests.is_some_and(|n| n >= 1));
    }
    // The decoy block (three traders on WETH/USDC/500 through SwapRouter) and the ordinary
    // trading of the other WETH/USDC pools give no match.
    for name in ["WETH/USDC/500", "WETH/USDC/100", "vAMM-WETH/USDC"] {
        let pool = devnet
            .addresses
            .pools
            .uniswap_v3
            .iter()
            .chain(&devnet.addresses.pools.aerodrome)
            .find(|p| p.name == name)
            .expect("pool");
        let body = json!({
            "chain": "base",
            "token_in": usdc.to_checksum(None),
            "token_out": weth.to_checksum(None),
            "amount_in": "1000",
            "route": pool.address.to_checksum(None),
        });
        let answer = assess(&chains, body).await;
        let history = &answer.recent_sandwiches_on_pool;
        assert!(history.scanned, "scan_history defaults to true");
        assert!(history.swaps_scanned.is_some_and(|n| n > 0), "{name}");
        assert_eq!(history.count, Some(0), "{name}: {:?}", history.matches);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_v4_pools_are_modelled_exactly_and_hooked_ones_are_refused() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let erc20 = |currency: Address| if currency.is_zero() { weth } else { currency };
    let mut modelled = 0;
    for pool in &devnet.addresses.pools.uniswap_v4 {
        if pool.fee == 500_000 {
            continue; // the dust trap pays half of nothing: no sandwich to size
        }
        let (a, b) = (erc20(pool.currency0_address), erc20(pool.currency1_address));
        for (token_in, token_out) in [(a, b), (b, a)] {
            let body = json!({
                "chain": "base",
                "token_in": token_in.to_checksum(None),
                "token_out": token_out.to_checksum(None),
                "amount_in": size(&devnet, token_in),
                "slippage_bps": 50,
                "route": pool.pool_id.to_string(),
                "scan_history": false,
            });
            let request: MevRiskRequest = serde_json::from_value(body).expect("request");
            let answer = mev_risk(&chains, &request).await;
            if !pool.hooks.is_zero() {
                let error = answer.expect_err("a hooked pool is not modelled");
                assert!(format!("{error:?}").contains("hooked pool"), "{error:?}");
                continue;
            }
            let answer = answer.unwrap_or_else(|e| panic!("{}: {e:?}", pool.name));
            assert_eq!(answer.pool.address, pool.pool_id.to_string());
            assert_eq!(answer.pool.pool_type, "concentrated_liquidity_v4");
            assert_eq!(
                answer.model_amount_out, answer.quoted_out,
                "{}: the model is V4Quoter to the wei",
                pool.name
            );
            assert_eq!(answer.model_error_bps, 0.0, "{}", pool.name);
            // Bitmap words, then the ticks they mark: one stage more than a V3 pool.
            assert_eq!(answer.rpc_round_trips, 4, "{}", pool.name);
            if let Some(ticks) = &answer.attacker.ticks_read {
                assert!(ticks.attack_stays_inside, "{}: {ticks:?}", pool.name);
            }
            modelled += 1;
        }
    }
    assert_eq!(modelled, 12, "six hookless pools, both ways");
}

/// Native ether (the zero address) on either side of a request is read as WETH: on every
/// hookless Uniswap V4 pool against native ether, named by PoolId, the assessment equals the
/// WETH request's to the wei (quote, model at 0 bps, attack, gas, mitigations) and says in
/// its assumptions that ether was read as WETH and needs no wrap through that pool; without a
/// named pool the choice is the WETH request's too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_native_ether_is_assessed_as_weth_on_the_v4_native_pools() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let ether = Address::ZERO.to_checksum(None);
    let without_assumptions = |answer: &MevRiskAnswer| {
        let mut value = serde_json::to_value(answer).expect("JSON");
        value.as_object_mut().expect("object").remove("assumptions");
        value
    };
    let native_line = |answer: &MevRiskAnswer, field: &str| {
        answer
            .assumptions
            .iter()
            .find(|line| line.starts_with(&format!("{field} is native ether")))
            .cloned()
    };
    let mut compared = 0;
    for pool in &devnet.addresses.pools.uniswap_v4 {
        if !pool.currency0_address.is_zero() || !pool.hooks.is_zero() || pool.fee == 500_000 {
            continue;
        }
        let other = pool.currency1_address.to_checksum(None);
        for (field, native, by_weth) in [
            (
                "token_in",
                json!({"token_in": ether, "token_out": other, "amount_in": "0.5"}),
                json!({"token_in": weth.to_checksum(None), "token_out": other, "amount_in": "0.5"}),
            ),
            (
                "token_out",
                json!({"token_in": other, "token_out": ether, "amount_in": size(&devnet, pool.currency1_address)}),
                json!({"token_in": other, "token_out": weth.to_checksum(None), "amount_in": size(&devnet, pool.currency1_address)}),
            ),
        ] {
            let body = |mut sides: Value| {
                let object = sides.as_object_mut().expect("object");
                object.insert("chain".into(), json!("base"));
                object.insert("slippage_bps".into(), json!(50));
                object.insert("route".into(), json!(pool.pool_id.to_string()));
                object.insert("scan_history".into(), json!(false));
                sides
            };
            let native = assess(&chains, body(native)).await;
            let by_weth = assess(&chains, body(by_weth)).await;
            assert_eq!(native.model_amount_out, native.quoted_out, "{}", pool.name);
            assert_eq!(native.model_error_bps, 0.0, "{}", pool.name);
            assert_eq!(
                without_assumptions(&native),
                without_assumptions(&by_weth),
                "{} {field}: the WETH request's assessment",
                pool.name
            );
            let line = native_line(&native, field)
                .unwrap_or_else(|| panic!("{} {field}: no native-ether assumption", pool.name));
            assert!(line.contains("needs no wrap"), "{line}");
            assert!(native_line(&by_weth, field).is_none());
            compared += 1;
        }
    }
    assert!(compared >= 4, "{compared} native-pool assessments compared");

    // No pool named: the same choice as for WETH.
    let usdc = devnet
        .addresses
        .token("USDC")
        .expect("USDC")
        .to_checksum(None);
    let automatic = |token_in: String| {
        json!({"chain": "base", "token_in": token_in, "token_out": usdc, "amount_in": "0.5",
            "slippage_bps": 50, "scan_history": false})
    };
    let native = assess(&chains, automatic(ether.clone())).await;
    let by_weth = assess(&chains, automatic(weth.to_checksum(None))).await;
    assert_eq!(without_assumptions(&native), without_assumptions(&by_weth));
    assert!(native_line(&native, "token_in").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_v4_history_finds_the_planted_sandwich_by_its_signers() {
    let devnet = Devnet::load().expect("devnet");
    let chains = chains(&devnet);
    let planted = &devnet.addresses.activity["uniswap_v4"]["sandwich"];
    let weth = devnet.addresses.token("WETH").expect("WETH");
    let usdc = devnet.addresses.token("USDC").expect("USDC");
    let body = json!({
        "chain": "base",
        "token_in": usdc.to_checksum(None),
        "token_out": weth.to_checksum(None),
        "amount_in": "1000",
        "slippage_bps": 100,
        "route": planted["pool_id"],
        "scan_history": true,
    });
    let answer = assess(&chains, body).await;
    let history = &answer.recent_sandwiches_on_pool;
    assert!(history.scanned);
    // Three ordinary swaps, the sandwich's three, one after it.
    assert_eq!(history.swaps_scanned, Some(7));
    assert_eq!(history.count, Some(1), "{:?}", history.matches);
    let found = &history.matches[0];
    assert_eq!(Some(found.block), planted["block"].as_u64());
    // Every log names PoolSwapTest; the attacker is the signer.
    assert_eq!(Some(found.attacker.as_str()), planted["attacker"].as_str());
    let txs: Vec<&str> = planted["txs"]
        .as_array()
        .expect("txs")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        (
            found.front_run.tx.as_str(),
            found.back_run.tx.as_str(),
            found.victims.len()
        ),
        (txs[0], txs[2], 1)
    );
    assert_eq!(found.victims[0].tx, txs[1]);
    assert_eq!(
        Some(found.victims[0].trader.as_str()),
        planted["victim"].as_str()
    );
    assert_eq!(
        Some(found.profit.atomic.as_str()),
        planted["attacker_profit"]["amount"].as_str(),
        "the USDC the back-run paid over the front-run's"
    );
    // Only the sandwich block has three swaps: its three signers are read.
    assert_eq!(history.eth_get_transaction_requests, Some(3));
}

mod built {
    //! A sandwich built on the devnet at the optimum the answer returned: automine off, the
    //! front-run, the victim's swap at `amount_out_min` and the back-run in one block through
    //! the Uniswap V2 Router02 or the V3 SwapRouter.

    use alloy::primitives::{Address, U256};
    use alloy::providers::Provider;
    use alloy::rpc::types::TransactionRequest;
    use alloy::sol_types::SolCall;
    use serde_json::json;
    use test_devnet::Devnet;
    use test_devnet::bindings::{IErc20, IQuoterV2, IRouter02, ISwapRouter};

    const GWEI: u128 = 1_000_000_000;

    async fn raw(devnet: &Devnet, method: &'static str, params: serde_json::Value) {
        devnet
            .provider
            .raw_request::<_, serde_json::Value>(method.into(), params)
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"));
    }

    /// Sends `input` to `to` from the impersonated `from` at `gas_price`, nonce given; returns
    /// the hash (not waited for: automine may be off).
    async fn send(
        devnet: &Devnet,
        from: Address,
        to: Address,
        input: Vec<u8>,
        value: U256,
        nonce: u64,
        gas_price: u128,
    ) -> alloy::primitives::B256 {
        let pending = devnet
            .provider
            .send_transaction(
                TransactionRequest::default()
                    .from(from)
                    .to(to)
                    .nonce(nonce)
                    .value(value)
                    .gas_limit(400_000)
                    .gas_price(gas_price)
                    .input(input.into()),
            )
            .await
            .expect("sent");
        *pending.tx_hash()
    }

    async fn receipt_ok(devnet: &Devnet, hash: alloy::primitives::B256) -> (u64, u64) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if let Some(receipt) = devnet
                .provider
                .get_transaction_receipt(hash)
                .await
                .expect("receipt")
            {
                assert!(receipt.status(), "{hash} reverted");
                return (
                    receipt.block_number.unwrap_or_default(),
                    receipt.transaction_index.unwrap_or_default(),
                );
            }
            assert!(std::time::Instant::now() < deadline, "{hash} not mined");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    async fn balance(devnet: &Devnet, token: Address, who: Address) -> U256 {
        let call = IErc20::balanceOfCall(who);
        let out = devnet
            .provider
            .call(
                TransactionRequest::default()
                    .to(token)
                    .input(call.abi_encode().into()),
            )
            .await
            .expect("balanceOf");
        IErc20::balanceOfCall::abi_decode_returns(&out).expect("decode")
    }

    async fn nonce(devnet: &Devnet, who: Address) -> u64 {
        devnet
            .provider
            .get_transaction_count(who)
            .pending()
            .await
            .expect("nonce")
    }

    /// The pool a sandwich is built on.
    #[derive(Clone, Copy)]
    enum Venue {
        /// The Uniswap V2 WETH/USDC pair, through Router02.
        V2,
        /// A Uniswap V3 WETH/USDC pool of this fee, through SwapRouter.
        V3(u32),
    }

    /// Swap calldata on `venue`'s router.
    fn swap(
        venue: Venue,
        token_in: Address,
        token_out: Address,
        amount_in: U256,
        amount_out_min: U256,
        to: Address,
    ) -> Vec<u8> {
        match venue {
            Venue::V2 => IRouter02::swapExactTokensForTokensCall {
                amountIn: amount_in,
                amountOutMin: amount_out_min,
                path: vec![token_in, token_out],
                to,
                deadline: U256::from(u64::MAX),
            }
            .abi_encode(),
            Venue::V3(fee) => ISwapRouter::exactInputSingleCall {
                params: ISwapRouter::ExactInputSingleParams {
                    tokenIn: token_in,
                    tokenOut: token_out,
                    fee: fee.try_into().expect("fee"),
                    recipient: to,
                    deadline: U256::from(u64::MAX),
                    amountIn: amount_in,
                    amountOutMinimum: amount_out_min,
                    sqrtPriceLimitX96: alloy::primitives::aliases::U160::ZERO,
                },
            }
            .abi_encode(),
        }
    }

    /// What selling `amount_in` pays at the current state (Router02 / QuoterV2).
    async fn quote(
        devnet: &Devnet,
        venue: Venue,
        token_in: Address,
        token_out: Address,
        amount_in: U256,
    ) -> U256 {
        let c = &devnet.addresses.contracts;
        let (to, input) = match venue {
            Venue::V2 => (
                c.uniswap_v2.router02,
                IRouter02::getAmountsOutCall {
                    amountIn: amount_in,
                    path: vec![token_in, token_out],
                }
                .abi_encode(),
            ),
            Venue::V3(fee) => (
                c.uniswap_v3.quoter_v2,
                IQuoterV2::quoteExactInputSingleCall {
                    params: IQuoterV2::QuoteExactInputSingleParams {
                        tokenIn: token_in,
                        tokenOut: token_out,
                        amountIn: amount_in,
                        fee: fee.try_into().expect("fee"),
                        sqrtPriceLimitX96: alloy::primitives::aliases::U160::ZERO,
                    },
                }
                .abi_encode(),
            ),
        };
        let out = devnet
            .provider
            .call(TransactionRequest::default().to(to).input(input.into()))
            .await
            .expect("quote");
        match venue {
            Venue::V2 => *IRouter02::getAmountsOutCall::abi_decode_returns(&out)
                .expect("decode")
                .last()
                .expect("amounts"),
            Venue::V3(_) => {
                IQuoterV2::quoteExactInputSingleCall::abi_decode_returns(&out)
                    .expect("decode")
                    .amountOut
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn devnet_a_v2_sandwich_at_the_answered_optimum_leaves_the_victim_its_minimum() {
        built(Venue::V2, "5", 300).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn devnet_a_v3_sandwich_at_the_answered_optimum_leaves_the_victim_its_minimum() {
        built(Venue::V3(500), "10", 100).await;
    }

    /// Assesses selling `amount` WETH for USDC at `slippage_bps` on `venue`, then builds the
    /// sandwich at the answered optimum in one block and checks the victim and the attacker.
    async fn built(venue: Venue, amount: &str, slippage_bps: u32) {
        let devnet = Devnet::load().expect("devnet");
        let chains = super::chains(&devnet);
        let weth = devnet.addresses.token("WETH").expect("WETH");
        let usdc = devnet.addresses.token("USDC").expect("USDC");
        let c = &devnet.addresses.contracts;
        let (router, pool_name, pools) = match venue {
            Venue::V2 => (
                c.uniswap_v2.router02,
                "WETH/USDC".to_owned(),
                &devnet.addresses.pools.uniswap_v2,
            ),
            Venue::V3(fee) => (
                c.uniswap_v3.swap_router,
                format!("WETH/USDC/{fee}"),
                &devnet.addresses.pools.uniswap_v3,
            ),
        };
        let pair = pools
            .iter()
            .find(|p| p.name == pool_name)
            .expect("pool")
            .address;
        let answer = super::assess(
            &chains,
            json!({
                "chain": "base",
                "token_in": weth.to_checksum(None),
                "token_out": usdc.to_checksum(None),
                "amount_in": amount,
                "slippage_bps": slippage_bps,
                "route": pair.to_checksum(None),
                "scan_history": false,
            }),
        )
        .await;
        assert_eq!(
            answer.attacker.optimum_location, "at_bound",
            "{:?}",
            answer.attacker
        );
        let parse = |a: &crate::Amount| a.atomic.parse::<U256>().expect("atomic");
        let front = parse(&answer.attacker.optimum_front_run);
        let min = parse(&answer.amount_out_min);
        let profit = parse(&answer.attacker.profit);
        let victim_in = parse(&answer.amount_in);

        let attacker = Address::repeat_byte(0xa7);
        let victim = Address::repeat_byte(0x71);
        for who in [attacker, victim] {
            raw(&devnet, "anvil_impersonateAccount", json!([who])).await;
            raw(
                &devnet,
                "anvil_setBalance",
                json!([
                    who,
                    format!("{:#x}", U256::from(10u8).pow(U256::from(24u8)))
                ]),
            )
            .await;
        }
        // Funding and approvals, mined one by one.
        let setup = [
            (attacker, weth, IErc20::depositCall {}.abi_encode(), front),
            (victim, weth, IErc20::depositCall {}.abi_encode(), victim_in),
            (
                attacker,
                weth,
                IErc20::approveCall {
                    spender: router,
                    amount: U256::MAX,
                }
                .abi_encode(),
                U256::ZERO,
            ),
            (
                attacker,
                usdc,
                IErc20::approveCall {
                    spender: router,
                    amount: U256::MAX,
                }
                .abi_encode(),
                U256::ZERO,
            ),
            (
                victim,
                weth,
                IErc20::approveCall {
                    spender: router,
                    amount: U256::MAX,
                }
                .abi_encode(),
                U256::ZERO,
            ),
        ];
        for (from, to, input, value) in setup {
            let n = nonce(&devnet, from).await;
            let hash = send(&devnet, from, to, input, value, n, 5 * GWEI).await;
            receipt_ok(&devnet, hash).await;
        }
        // The front-run's output at the pool state the answer read (nothing traded since).
        let bought = quote(&devnet, venue, weth, usdc, front).await;
        let weth_before = balance(&devnet, weth, attacker).await;
        let usdc_victim_before = balance(&devnet, usdc, victim).await;

        raw(&devnet, "evm_setAutomine", json!([false])).await;
        let a_nonce = nonce(&devnet, attacker).await;
        let v_nonce = nonce(&devnet, victim).await;
        let front_tx = send(
            &devnet,
            attacker,
            router,
            swap(venue, weth, usdc, front, U256::ZERO, attacker),
            U256::ZERO,
            a_nonce,
            30 * GWEI,
        )
        .await;
        let victim_tx = send(
            &devnet,
            victim,
            router,
            swap(venue, weth, usdc, victim_in, min, victim),
            U256::ZERO,
            v_nonce,
            20 * GWEI,
        )
        .await;
        let back_tx = send(
            &devnet,
            attacker,
            router,
            swap(venue, usdc, weth, bought, U256::ZERO, attacker),
            U256::ZERO,
            a_nonce + 1,
            10 * GWEI,
        )
        .await;
        raw(&devnet, "evm_mine", json!([])).await;
        raw(&devnet, "evm_setAutomine", json!([true])).await;
        let (b0, i0) = receipt_ok(&devnet, front_tx).await;
        let (b1, i1) = receipt_ok(&devnet, victim_tx).await;
        let (b2, i2) = receipt_ok(&devnet, back_tx).await;
        assert!(b0 == b1 && b1 == b2, "one block");
        assert!(
            i0 < i1 && i1 < i2,
            "front-run, victim, back-run: {i0} {i1} {i2}"
        );

        let victim_got = balance(&devnet, usdc, victim).await - usdc_victim_before;
        assert!(
            victim_got >= min && victim_got <= min + U256::from(1u8),
            "{pool_name}: victim received {victim_got}, minimum {min}"
        );
        let earned = balance(&devnet, weth, attacker).await - (weth_before - front);
        let earned = earned.saturating_sub(front);
        // Within 1 % of the answered profit.
        let diff = if earned > profit {
            earned - profit
        } else {
            profit - earned
        };
        assert!(
            diff * U256::from(100u8) <= profit,
            "{pool_name}: attacker earned {earned}, answered {profit}"
        );
    }
}

use analytics_server::answer::Amount;
