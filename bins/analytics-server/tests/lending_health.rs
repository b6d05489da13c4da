//! `/lending/health` end to end in process, paid, with the chain node replaced by wiremock
//! replaying recordings of the devnet's Aave borrowers (`testdata/rpc-recordings/
//! lending_health_*.json`, written by `cargo xtask record-rpc`). Each whole answer is an insta
//! snapshot; the recorded `getUserAccountData` must equal the computed figures in every one.

mod common;

use axum::http::StatusCode;
use common::World;
use serde_json::Value;

async fn replaying(name: &str) -> World {
    World::replaying("/lending/health", &format!("lending_health_{name}")).await
}

/// A paid, settled answer in three round trips whose figures equal the protocol's own.
async fn answer(name: &str) -> Value {
    let world = replaying(name).await;
    let (status, headers, answer) = world.paid(true).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(headers.contains_key("payment-response"), "settled");
    assert_eq!(world.node_requests().await, 3);
    assert_eq!(answer["rpc_round_trips"], 3);
    assert_eq!(answer["block_number"], 855);
    let protocol = &answer["protocol_account_data"];
    assert_eq!(protocol["computed_values_match"], true, "{name}");
    assert_eq!(answer["health_factor"], protocol["health_factor"], "{name}");
    assert_eq!(
        answer["totals"]["total_collateral"],
        protocol["total_collateral_base"]
    );
    assert_eq!(answer["totals"]["total_debt"], protocol["total_debt_base"]);
    // Resolved from the provider, which is the only Aave address the config holds.
    let contracts = &answer["contracts"];
    let configured = &world.recording.contracts["aave_v3"];
    assert_eq!(configured.len(), 1, "only the provider is configured");
    assert_eq!(
        contracts["pool_addresses_provider"]
            .as_str()
            .map(str::to_lowercase),
        configured
            .get("pool_addresses_provider")
            .map(|a| a.to_string().to_lowercase())
    );
    assert_eq!(
        contracts["pool"],
        "0x2E571dc3F27343Bcd3c7d69aA213543EE3551812"
    );
    assert_eq!(
        contracts["price_oracle"],
        "0x2c8ED11fd7A058096F2e5828799c68BE88744E2F"
    );
    assert_eq!(
        contracts["pool_data_provider"],
        "0x0a17FabeA4633ce714F1Fa4a2dcA62C3bAc4758d"
    );
    for position in answer["positions"].as_array().expect("positions") {
        if position["oracle_price"].is_object() {
            assert!(position["oracle_source"].is_string(), "{position}");
        }
    }
    answer
}

fn position<'a>(answer: &'a Value, symbol: &str) -> &'a Value {
    answer["positions"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["asset"]["symbol"] == symbol))
        .unwrap_or_else(|| panic!("{symbol} in {answer}"))
}

#[tokio::test]
async fn near_liquidation_with_scenarios_across_the_close_factor_thresholds() {
    let answer = answer("near_liquidation").await;
    let weth = position(&answer, "WETH");
    let price = &weth["liquidation_price"];
    assert_eq!(price["oracle_units"], "296748096556");
    assert_eq!(price["usd"], "2967.48096556");
    assert_eq!(price["change_from_current_pct"], -3.8461);
    assert_eq!(
        weth["oracle_source"],
        "0x0B306BF915C4d645ff596e518fAf3F9669b97016"
    );
    let regimes: Vec<(f64, Option<u64>, bool)> = answer["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            (
                s["collateral_price_change_pct"].as_f64().expect("pct"),
                s["close_factor"]["percent"].as_u64(),
                s["liquidatable"].as_bool().expect("bool"),
            )
        })
        .collect();
    assert_eq!(
        regimes,
        [
            (-1.0, None, false),
            (-4.0, Some(50), true),
            (-5.0, Some(50), true),
            (-10.0, Some(100), true),
            (10.0, None, false),
        ]
    );
    assert!(
        answer["scenario_assumption"]
            .as_str()
            .is_some_and(|a| a.contains("debt stays at its nominal value"))
    );
    insta::assert_json_snapshot!("lending_health_near_liquidation", answer);
}

#[tokio::test]
async fn multi_asset_collateral_covered_by_the_others_is_said_in_words() {
    let answer = answer("multi_asset").await;
    for symbol in ["WETH", "WBTC", "LINK"] {
        let words = position(&answer, symbol)["liquidation_price"]
            .as_str()
            .unwrap_or_else(|| panic!("{symbol}: words"));
        assert!(words.contains("price of zero"), "{words}");
    }
    let weth = position(&answer, "WETH");
    assert_eq!(weth["borrowed"], true);
    assert_eq!(weth["counts_as_collateral"], true);
    assert!(position(&answer, "USDC")["liquidation_price"].is_string());
    insta::assert_json_snapshot!("lending_health_multi_asset", answer);
}

#[tokio::test]
async fn stable_and_variable_debt_both_count() {
    let answer = answer("stable_and_variable").await;
    let usdc = position(&answer, "USDC");
    assert_ne!(usdc["stable_debt"]["atomic"], "0");
    assert_eq!(usdc["variable_debt"]["atomic"], "0");
    assert!(position(&answer, "WBTC")["liquidation_price"].is_object());
    insta::assert_json_snapshot!("lending_health_stable_and_variable", answer);
}

#[tokio::test]
async fn emode_thresholds_apply_to_the_category() {
    let answer = answer("emode").await;
    assert_eq!(answer["emode"]["category_id"], 1);
    assert_eq!(answer["emode"]["label"], "Stablecoins");
    assert_eq!(answer["emode"]["liquidation_threshold_bps"], 9500);
    let dai = position(&answer, "DAI");
    assert_eq!(dai["emode_applies"], true);
    assert_eq!(dai["liquidation_threshold_bps"], 9500);
    assert_eq!(dai["reserve"]["liquidation_threshold_bps"], 8000);
    assert_eq!(dai["liquidation_price"]["oracle_units"], "84210531");
    insta::assert_json_snapshot!("lending_health_emode", answer);
}

#[tokio::test]
async fn collateral_that_cannot_liquidate_says_so() {
    let answer = answer("collateral_cannot_liquidate").await;
    let link = position(&answer, "LINK")["liquidation_price"]
        .as_str()
        .expect("words");
    assert!(link.contains("LINK price of zero"), "{link}");
    insta::assert_json_snapshot!("lending_health_collateral_cannot_liquidate", answer);
}

#[tokio::test]
async fn a_wallet_without_a_position_is_a_200_with_a_sentence() {
    let answer = answer("no_position").await;
    assert_eq!(answer["has_position"], false);
    assert_eq!(answer["positions"], serde_json::json!([]));
    assert!(
        answer["no_position"]
            .as_str()
            .is_some_and(|s| s.contains("no supply and no borrow"))
    );
    assert_eq!(answer["health_factor"]["decimal"], Value::Null);
    insta::assert_json_snapshot!("lending_health_no_position", answer);
}
