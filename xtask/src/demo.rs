//! `cargo xtask demo`: a local chain, both servers on it, and real calls shown on the terminal:
//! discovery, a 402 with its decoded terms, a 400, and a paid call on each of the eight paid
//! routes with the official x402 client (and one over MCP), whose settlement is visible in the
//! USDC balances.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use alloy::primitives::U256;
use alloy::providers::{Provider, ProviderBuilder};
use anyhow::{Context, Result, bail};
use base64::Engine as _;
use serde_json::{Value, json};
use x402_core::{PaymentRequired, decode_header, format_units_fixed};

use crate::paths;
use crate::{devnet, node};
use test_devnet::paid::{official_paid_call, usdc_balance};

struct Server {
    name: &'static str,
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(name: &'static str, config: &Path, log: &Path) -> Result<Server> {
    // Where `cargo build` put it: CARGO_TARGET_DIR when set (a shared target directory).
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| paths::workspace_root().join("target"));
    let binary = target.join("debug").join(name);
    let port = devnet::free_port()?;
    let log_file = std::fs::File::create(log)?;
    let child = Command::new(&binary)
        .arg("--config")
        .arg(config)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    Ok(Server {
        name,
        child,
        url: format!("http://127.0.0.1:{port}"),
    })
}

async fn wait_healthy(http: &reqwest::Client, server: &Server) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if http
            .get(format!("{}/health", server.url))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("{} did not become healthy", server.name)
}

/// A `/document` body carrying a committed fixture inline.
fn document_body(file: &str) -> Result<Value> {
    let bytes = std::fs::read(paths::workspace_root().join("testdata/pdf").join(file))
        .with_context(|| format!("testdata/pdf/{file}"))?;
    Ok(json!({ "pdf_base64": base64::engine::general_purpose::STANDARD.encode(bytes) }))
}

fn title(text: &str) {
    println!("\n\x1b[1m== {text}\x1b[0m");
}

fn show(value: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// A JSON string without its quotes; anything else as JSON.
fn plain(value: &Value) -> String {
    value
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| value.to_string())
}

/// Prints what the pay-to address received since its balance was `before`.
async fn print_settled(
    info: &test_devnet::paid::DevnetInfo,
    before: U256,
    what: &str,
) -> Result<()> {
    let after = usdc_balance(info, &info.pay_to).await?;
    println!(
        "pay_to balance {} -> {} (+{}): {what}",
        usdc(before),
        usdc(after),
        usdc(after.saturating_sub(before))
    );
    Ok(())
}

fn usdc(amount: U256) -> String {
    format!("{} USDC", format_units_fixed(amount, 6))
}

/// Runs the demo to its end, then stops everything it started.
pub async fn demo() -> Result<()> {
    let root = paths::workspace_root();
    let out = root.join("target/demo");
    std::fs::create_dir_all(&out)?;
    title("installing what is missing (Tesseract with deu/eng models) and building both servers");
    crate::apt::ensure(crate::apt::DOCUMENT_STACK)?;
    crate::run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "-p", "analytics-server", "-p", "docs-server"])
            .current_dir(&root),
    )?;

    title(
        "local chain: anvil (chain id 8453) loaded with USDC, Uniswap V2/V3, Aerodrome, feeds and Aave V3",
    );
    node::ensure_node()?;
    let (chain, info) = tokio::task::spawn_blocking(devnet::spawn_fresh).await??;
    println!(
        "rpc {}  USDC {}  payer {}  pay_to {}",
        info.rpc_url, info.usdc, info.payer_address, info.pay_to
    );

    title(
        "off-chain stand-in: GeckoTerminal, DefiLlama, exchange tickers and Pyth in their published formats, from the devnet's own swaps and feeds (demo and tests only)",
    );
    let standin = test_devnet::standin::StandIn::spawn(&info.rpc_url, &chain.addresses).await?;
    println!("stand-in at {}", standin.base_url());

    let analytics_config = out.join("analytics.toml");
    let docs_config = out.join("docs.toml");
    std::fs::write(
        &analytics_config,
        devnet::server_config(&info, "127.0.0.1:0")? + &standin.sources_toml(),
    )?;
    std::fs::write(
        &docs_config,
        devnet::docs_config(&info, "127.0.0.1:0") + &crate::models::docs_ocr_section(),
    )?;
    let analytics = start_server(
        "analytics-server",
        &analytics_config,
        &out.join("analytics.log"),
    )?;
    let docs = start_server("docs-server", &docs_config, &out.join("docs.log"))?;
    let http = reqwest::Client::new();
    wait_healthy(&http, &analytics).await?;
    wait_healthy(&http, &docs).await?;
    println!(
        "analytics-server {}  docs-server {}",
        analytics.url, docs.url
    );

    title("GET /readiness on both (the local facilitator answers /supported)");
    show(
        &http
            .get(format!("{}/readiness", analytics.url))
            .send()
            .await?
            .json()
            .await?,
    );
    show(
        &http
            .get(format!("{}/readiness", docs.url))
            .send()
            .await?
            .json()
            .await?,
    );

    title("GET analytics /pricing");
    show(
        &http
            .get(format!("{}/pricing", analytics.url))
            .send()
            .await?
            .json()
            .await?,
    );

    let quote = json!({"chain": "base", "token_in": "0x4200000000000000000000000000000000000006",
        "token_out": info.usdc, "amount_in": "1.5"});
    title("POST /dex/quote without payment: 402, terms in PAYMENT-REQUIRED");
    let response = http
        .post(format!("{}/dex/quote", analytics.url))
        .json(&quote)
        .send()
        .await?;
    println!("HTTP {}", response.status());
    let header = response
        .headers()
        .get("payment-required")
        .context("no PAYMENT-REQUIRED")?
        .to_str()?
        .to_owned();
    let mut terms: PaymentRequired = decode_header(&header)?;
    terms.extensions = None; // the bazaar schema is long; the body below carries the same schema
    show(&serde_json::to_value(&terms)?);
    let body: Value = response.json().await?;
    println!(
        "body members: {:?}",
        body.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>())
    );

    title("POST /dex/quote with slippage_bps 9000: 400 naming the field");
    let bad = json!({"chain": "base", "token_in": "0x4200000000000000000000000000000000000006",
        "token_out": info.usdc, "amount_in": "1.5", "slippage_bps": 9000});
    let response = http
        .post(format!("{}/dex/quote", analytics.url))
        .json(&bad)
        .send()
        .await?;
    println!("HTTP {}", response.status());
    show(&response.json().await?);

    let before = usdc_balance(&info, &info.pay_to).await?;
    title("paid call with the official @x402/fetch client: POST /dex/quote");
    let report = official_paid_call(
        &info,
        &format!("{}/dex/quote", analytics.url),
        quote.clone(),
    )
    .await?;
    println!(
        "first answer HTTP {}, final answer HTTP {}",
        report["first"]["status"], report["final"]["status"]
    );
    let answer = &report["final"]["body"];
    println!(
        "block {}, {} routes quoted in {} RPC round trips, {} DEX/tier/leg failures listed",
        answer["block_number"],
        answer["quotes"].as_array().map_or(0, Vec::len),
        answer["rpc_round_trips"],
        answer["failures"].as_array().map_or(0, Vec::len)
    );
    for (label, quote) in [
        ("best by gross", &answer["best_by_gross"]),
        ("best by net", &answer["best_by_net"]),
    ] {
        println!(
            "{label}: {} -> {} USDC (net of gas, estimate: {})",
            quote["route"],
            quote["amount_out"]["decimal"],
            quote["net_amount_out_estimate"]["decimal"]
        );
    }
    println!(
        "amount_out_min at {} bps: {} USDC; price impact {} bps; L1 data fee: {}",
        answer["slippage_bps"],
        plain(&answer["amount_out_min"]["decimal"]),
        answer["price_impact_bps"],
        plain(&answer["l1_data_fee_null_reason"])
    );
    print_settled(&info, before, "the quote was settled").await?;

    title("paid call with the official client: POST /lending/health (the near_liquidation wallet)");
    let before = usdc_balance(&info, &info.pay_to).await?;
    let wallet = chain
        .addresses
        .aave
        .borrowers
        .get("near_liquidation")
        .context("near_liquidation borrower in addresses.json")?
        .address;
    let report = official_paid_call(
        &info,
        &format!("{}/lending/health", analytics.url),
        json!({"chain": "base", "protocol": "lending-v3", "wallet": wallet.to_checksum(None),
            "scenarios_pct": [-4, -10]}),
    )
    .await?;
    let answer = &report["final"]["body"];
    println!(
        "final answer HTTP {}; block {}, {} RPC round trips; health factor {} (getUserAccountData {}, match: {})",
        report["final"]["status"],
        answer["block_number"],
        answer["rpc_round_trips"],
        plain(&answer["health_factor"]["decimal"]),
        plain(&answer["protocol_account_data"]["health_factor"]["decimal"]),
        answer["protocol_account_data"]["computed_values_match"]
    );
    for position in answer["positions"].as_array().into_iter().flatten() {
        println!(
            "{}: liquidation price {}",
            plain(&position["asset"]["symbol"]),
            match &position["liquidation_price"] {
                Value::Object(price) => format!(
                    "${} ({} % from the oracle price)",
                    plain(&price["usd"]),
                    price["change_from_current_pct"]
                ),
                words => plain(words),
            }
        );
    }
    for scenario in answer["scenarios"].as_array().into_iter().flatten() {
        println!(
            "collateral {} %: health factor {}, close factor {}",
            scenario["collateral_price_change_pct"],
            plain(&scenario["health_factor"]["decimal"]),
            plain(&scenario["close_factor"]["regime"])
        );
    }
    print_settled(&info, before, "settled").await?;

    title("paid call with the official client: POST /pool/liquidity (the WETH/USDC 0.05 % pool)");
    let pool = chain
        .addresses
        .pools
        .uniswap_v3
        .iter()
        .find(|p| p.name == "WETH/USDC/500")
        .context("WETH/USDC/500 in addresses.json")?
        .address;
    let before = usdc_balance(&info, &info.pay_to).await?;
    let report = official_paid_call(
        &info,
        &format!("{}/pool/liquidity", analytics.url),
        json!({"chain": "base", "pool": pool.to_checksum(None)}),
    )
    .await?;
    let answer = &report["final"]["body"];
    println!(
        "final answer HTTP {}; block {}, {} RPC round trips; {} {} {} ppm, mid {} USDC per WETH, TVL ${}",
        report["final"]["status"],
        answer["block_number"],
        answer["rpc_round_trips"],
        plain(&answer["dex"]),
        plain(&answer["pool_type"]),
        answer["fee_tier_ppm"],
        plain(&answer["mid_price_token1_per_token0"]),
        plain(&answer["tvl_usd"])
    );
    for exit in answer["exit_impact"].as_array().into_iter().flatten() {
        println!(
            "exit ${} selling {}: {} bps impact ({} bps fee, {} ticks crossed){}",
            exit["size_usd"],
            plain(&exit["token_in"]),
            exit["impact_bps"],
            exit["fee_bps"],
            exit["initialized_ticks_crossed"],
            if exit["filled"] == false {
                " — not filled"
            } else {
                ""
            }
        );
    }
    for band in answer["depth"].as_array().into_iter().flatten() {
        println!(
            "±{} %: ${} above, ${} below",
            band["percent"],
            plain(&band["upper"]["usd"]),
            plain(&band["lower"]["usd"])
        );
    }
    println!(
        "volume 24 h ${} and 7 d {} ({}, {} s old; derived from a foreign source)",
        plain(&answer["volume_24h"]["usd"]),
        match &answer["volume_7d"]["usd"] {
            Value::String(usd) => format!("${usd}"),
            _ => format!("null: {}", plain(&answer["volume_7d"]["null_reason"])),
        },
        plain(&answer["volume_24h"]["source"]),
        answer["volume_24h"]["age_seconds"]
    );
    print_settled(&info, before, "settled").await?;
    title(
        "paid call with the official client: POST /oracle/crosscheck (ETH on base, every kind of source)",
    );
    let before = usdc_balance(&info, &info.pay_to).await?;
    let report = official_paid_call(
        &info,
        &format!("{}/oracle/crosscheck", analytics.url),
        json!({"chain": "base", "asset": "ETH"}),
    )
    .await?;
    let answer = &report["final"]["body"];
    println!(
        "final answer HTTP {}; block {}, {} RPC round trips; median {} over {}, max deviation {} bps; USDT-quoted and left out: {}",
        report["final"]["status"],
        answer["block_number"],
        answer["rpc_round_trips"],
        plain(&answer["median"]),
        plain(&answer["sources_in_median"]),
        answer["max_deviation_bps"],
        plain(&answer["usdt_quoted_sources"])
    );
    for row in answer["sources"].as_array().into_iter().flatten() {
        let flags: Vec<String> = row["flags"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| plain(&f["flag"]))
            .collect();
        println!(
            "{:<14} {:<44} {:<9} {}  age {} s  {} bps  {}",
            plain(&row["kind"]),
            plain(&row["source"]),
            plain(&row["pair"]),
            match &row["price"] {
                Value::String(price) => price.clone(),
                _ => format!("null: {}", plain(&row["null_reason"])),
            },
            row["age_seconds"],
            row["deviation_from_median_bps"],
            flags.join(", ")
        );
    }
    print_settled(&info, before, "settled").await?;

    title(
        "paid call with the official client: POST /yield/normalize (Aerodrome vAMM WETH-USDC on base, by symbol)",
    );
    let before = usdc_balance(&info, &info.pay_to).await?;
    let report = official_paid_call(
        &info,
        &format!("{}/yield/normalize", analytics.url),
        json!({"chain": "base", "protocol": "aerodrome-v1", "pool": "WETH-USDC"}),
    )
    .await?;
    let answer = &report["final"]["body"];
    let or_reason = |value: &Value, reason: &Value| match value {
        Value::Null => format!("null: {}", plain(reason)),
        other => plain(other),
    };
    println!(
        "final answer HTTP {}; pool {} ({}); advertised APY {} % (base {}, reward {}); conservative {}",
        report["final"]["status"],
        plain(&answer["pool"]["id"]),
        plain(&answer["pool"]["symbol"]),
        plain(&answer["advertised_apy"]),
        plain(&answer["apy_base"]),
        plain(&answer["apy_reward"]),
        or_reason(
            &answer["conservative_apy"]["value_pct"],
            &answer["conservative_apy"]["null_reason"]
        ),
    );
    let fee = &answer["fee_apr"];
    println!(
        "fee APR recomputed {} % (fee {} ppm from {}), directory base {} %, deviation {} points",
        or_reason(&fee["recomputed_pct"], &fee["null_reason"]),
        fee["fee_ppm"],
        plain(&fee["fee_source"]),
        plain(&fee["directory_apy_base_pct"]),
        plain(&fee["deviation_pct_points"]),
    );
    let il = &answer["impermanent_loss"];
    println!(
        "IL over {} daily points: {} % at the end, worst {} %; scenarios {}",
        il["path_points"],
        il["il_at_end_pct"],
        il["worst_il_pct"],
        plain(&il["scenarios"])
    );
    let gas = &answer["gas"];
    println!(
        "gas units entry {} / exit {} / harvest {} at {} wei, native {} USD: {} USD over {} days",
        gas["entry_units"],
        gas["exit_units"],
        gas["harvest_units"],
        plain(&gas["gas_price_wei"]),
        plain(&gas["native_price_usd"]),
        or_reason(&gas["period_cost_usd"], &gas["null_reason"]),
        gas["holding_period_days"],
    );
    for row in answer["net_apy_after_gas"].as_array().into_iter().flatten() {
        println!(
            "stake {:>8} USD: advertised net {} %, conservative net {}",
            row["stake_usd"],
            plain(&row["advertised_net_pct"]),
            or_reason(&row["conservative_net_pct"], &row["null_reason"]),
        );
    }
    print_settled(&info, before, "settled").await?;

    title(
        "paid call with the official client: POST /mev/risk (selling 1000 USDC for WETH on the Uniswap V3 pool with a sandwich in its history)",
    );
    let planted = &chain.addresses.activity["sandwiches"]["uniswap_v3"];
    let before = usdc_balance(&info, &info.pay_to).await?;
    let report = official_paid_call(
        &info,
        &format!("{}/mev/risk", analytics.url),
        json!({"chain": "base", "token_in": info.usdc, "token_out": "0x4200000000000000000000000000000000000006",
            "amount_in": "1000", "slippage_bps": 100, "route": planted["pool"], "scan_history": true}),
    )
    .await?;
    let answer = &report["final"]["body"];
    let attacker = &answer["attacker"];
    println!(
        "final answer HTTP {}; block {}, {} RPC round trips; pool {} {} ({}); quoted {} WETH, minimum {} at {} bps, max loss {}",
        report["final"]["status"],
        answer["block_number"],
        answer["rpc_round_trips"],
        plain(&answer["pool"]["dex"]),
        plain(&answer["pool"]["address"]),
        plain(&answer["pool"]["chosen_by"]),
        plain(&answer["quoted_out"]["decimal"]),
        plain(&answer["amount_out_min"]["decimal"]),
        answer["slippage_bps"],
        plain(&answer["max_loss"]["decimal"]),
    );
    println!(
        "attacker ({}): optimum front-run {} ({}), victim loses {}, profit {} (USD {}); attack pays: {} ({})",
        plain(&attacker["label"]),
        plain(&attacker["optimum_front_run"]["decimal"]),
        plain(&attacker["method"]),
        plain(&attacker["victim_loss_at_optimum"]["decimal"]),
        plain(&attacker["profit"]["decimal"]),
        plain(&attacker["profit_usd"]),
        answer["attack_pays"],
        plain(&answer["attack_pays_sentence"]),
    );
    let history = &answer["recent_sandwiches_on_pool"];
    println!(
        "model error {} bps against the quoter; public mempool: {}; sandwiches in the last {} blocks: {} ({})",
        answer["model_error_bps"],
        answer["public_mempool"]["exists"],
        history["window_blocks"],
        history["count"],
        plain(&history["label"]),
    );
    for found in history["matches"].as_array().into_iter().flatten() {
        println!(
            "  block {}: attacker {}, front-run {}, victim {}, back-run {}, profit {}",
            found["block"],
            plain(&found["attacker"]),
            plain(&found["front_run"]["tx"]),
            plain(&found["victims"][0]["tx"]),
            plain(&found["back_run"]["tx"]),
            plain(&found["profit"]["decimal"]),
        );
    }
    print_settled(&info, before, "settled").await?;

    title(
        "the same service over MCP: POST /mcp, tools/call oracle_crosscheck with the official MCP SDK client, paid in _meta[\"x402/payment\"]",
    );
    let before = usdc_balance(&info, &info.pay_to).await?;
    let mcp_url = format!("{}/mcp", analytics.url);
    let key = info.payer_private_key.clone();
    let report = tokio::task::spawn_blocking(move || {
        test_devnet::node::official_mcp_client(
            &mcp_url,
            &key,
            Some((
                "oracle_crosscheck",
                &json!({"chain": "base", "asset": "ETH"}),
            )),
            false,
        )
    })
    .await??;
    let tools: Vec<String> = report["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect();
    println!(
        "protocol {}; tools: {}",
        plain(&report["protocol_version"]),
        tools.join(", ")
    );
    println!(
        "unpaid call: isError {}, asks {} atomic units; paid call: isError {}, median {} over {} sources; receipt {}",
        report["unpaid"]["isError"],
        plain(&report["unpaid"]["structuredContent"]["accepts"][0]["amount"]),
        report["paid"]["isError"],
        plain(&report["paid"]["structuredContent"]["median"]),
        report["paid"]["structuredContent"]["sources"]
            .as_array()
            .map_or(0, Vec::len),
        plain(&report["paid"]["_meta"]["x402/payment-response"]["transaction"]),
    );
    print_settled(&info, before, "settled").await?;

    title(
        "the same on MCP 2026-07-28 (stateless: server/discover, no session) with the official MCP SDK v2 client: tools/call pool_liquidity",
    );
    let before = usdc_balance(&info, &info.pay_to).await?;
    let mcp_url = format!("{}/mcp", analytics.url);
    let key = info.payer_private_key.clone();
    let arguments = json!({"chain": "base", "pool": pool.to_checksum(None)});
    let report = tokio::task::spawn_blocking(move || {
        test_devnet::node::official_mcp_client_with(
            test_devnet::node::McpSdk::V2,
            &mcp_url,
            &key,
            Some(("pool_liquidity", &arguments)),
            false,
        )
    })
    .await??;
    println!(
        "protocol {} ({} era), session {}; server/discover: versions {}; unpaid call asks {} atomic units (bazaar {} tool {}); paid call: isError {}, TVL ${}; receipt {}",
        plain(&report["protocol_version"]),
        plain(&report["era"]),
        report["session_id"],
        report["discover"]["supportedVersions"],
        plain(&report["unpaid"]["structuredContent"]["accepts"][0]["amount"]),
        plain(
            &report["unpaid"]["structuredContent"]["extensions"]["bazaar"]["info"]["input"]["type"]
        ),
        plain(
            &report["unpaid"]["structuredContent"]["extensions"]["bazaar"]["info"]["input"]["toolName"]
        ),
        report["paid"]["isError"],
        plain(&report["paid"]["structuredContent"]["tvl_usd"]),
        plain(&report["paid"]["_meta"]["x402/payment-response"]["transaction"]),
    );
    print_settled(&info, before, "settled").await?;
    drop(standin);

    title("POST /document without payment: 402 itemised per page (German ZUGFeRD invoice)");
    let invoice = document_body("zugferd_basic_einfach.pdf")?;
    let response = http
        .post(format!("{}/document", docs.url))
        .json(&invoice)
        .send()
        .await?;
    println!("HTTP {}", response.status());
    let body: Value = response.json().await?;
    show(&body["price"]);

    for (file, what) in [
        ("zugferd_basic_einfach.pdf", "the invoice (text layer)"),
        ("scanned_invoice.pdf", "a scan of it (no text layer: OCR)"),
        (
            "scanned_invoice.pdf",
            "the same scan again (answered from the cache)",
        ),
    ] {
        title(&format!(
            "paid call with the official client: POST /document, {what}"
        ));
        let before = usdc_balance(&info, &info.pay_to).await?;
        let report = official_paid_call(
            &info,
            &format!("{}/document", docs.url),
            document_body(file)?,
        )
        .await?;
        let answer = &report["final"]["body"];
        println!(
            "final answer HTTP {}, X-Cache {}; pages {} read by {}",
            report["final"]["status"],
            plain(&report["final"]["x_cache"]),
            answer["pages_processed"],
            plain(&answer["pages"][0]["method"])
        );
        for (name, field) in answer["header"].as_object().into_iter().flatten() {
            if field.is_null() {
                continue;
            }
            let at = &field["source"]["box"];
            println!(
                "  {name:<18} {:<34} page {} at ({}, {}) {} confidence {}",
                plain(&field["value"]),
                field["source"]["page"],
                at["x"],
                at["y"],
                plain(&field["source"]["method"]),
                field["confidence"]
            );
        }
        println!(
            "  {} tables, {} key-value pairs, {} codes, {} lines",
            answer["tables"].as_array().map_or(0, Vec::len),
            answer["key_values"].as_array().map_or(0, Vec::len),
            answer["codes"].as_array().map_or(0, Vec::len),
            answer["pages"][0]["lines"].as_array().map_or(0, Vec::len)
        );
        let after = usdc_balance(&info, &info.pay_to).await?;
        println!(
            "  pay_to balance {} -> {} (+{})",
            usdc(before),
            usdc(after),
            usdc(after.saturating_sub(before))
        );
    }

    title(
        "POST /ocr without payment, a generated A4 page at 300 dpi with eight kinds of code (testdata/codes/generate.py): 402, the picture one item",
    );
    let codes_page = std::fs::read(root.join("testdata/codes/all-codes-300dpi.png"))
        .context("testdata/codes/all-codes-300dpi.png")?;
    let ocr_body = json!({"image_base64": base64::engine::general_purpose::STANDARD.encode(codes_page),
        "mime": "image/png"});
    let response = http
        .post(format!("{}/ocr", docs.url))
        .json(&ocr_body)
        .send()
        .await?;
    println!("HTTP {}", response.status());
    let body: Value = response.json().await?;
    show(&body["price"]);

    title("paid call with the official client: POST /ocr on that page (text, blocks and codes)");
    let before = usdc_balance(&info, &info.pay_to).await?;
    let report = official_paid_call(&info, &format!("{}/ocr", docs.url), ocr_body).await?;
    let answer = &report["final"]["body"];
    println!(
        "final answer HTTP {}; {} page, {} blocks, {} codes",
        report["final"]["status"],
        answer["pages_processed"],
        answer["blocks"].as_array().map_or(0, Vec::len),
        answer["codes"].as_array().map_or(0, Vec::len),
    );
    for code in answer["codes"].as_array().into_iter().flatten() {
        let text = plain(&code["text"]).replace('\n', " / ");
        println!(
            "  {:<12} at ({}, {}) payload {:<8} {}",
            plain(&code["symbology"]),
            code["box"]["x"],
            code["box"]["y"],
            plain(&code["payload"]["type"]),
            text.chars().take(70).collect::<String>()
        );
    }
    print_settled(&info, before, "settled").await?;

    title("paid call on a blank scanned page: nothing to read, 422, not settled");
    let before = usdc_balance(&info, &info.pay_to).await?;
    let report = official_paid_call(
        &info,
        &format!("{}/document", docs.url),
        document_body("blank_page.pdf")?,
    )
    .await?;
    println!("final answer HTTP {}", report["final"]["status"]);
    show(&report["final"]["body"]);
    let after = usdc_balance(&info, &info.pay_to).await?;
    println!("pay_to balance {} -> {}", usdc(before), usdc(after));
    let provider = ProviderBuilder::new().connect_http(info.rpc_url.parse()?);
    println!("chain head: block {}", provider.get_block_number().await?);

    title("done: stopping servers and chain");
    drop(analytics);
    drop(docs);
    drop(chain);
    Ok(())
}
