//! The quote lens on the devnet: one `eth_call` with a state override gives the report the
//! ordinary three round trips give, to the wei, for every pair of the devnet's tokens.

use alloy::primitives::Address;
use dex_route::quote::{QuoteReport, ReadPath, ReportRequest, report, report_batches};

mod common;

use common::Setup;

/// The report with what is allowed to differ (how it was read) set aside.
fn read_apart(mut report: QuoteReport) -> (QuoteReport, u32, ReadPath) {
    let round_trips = std::mem::take(&mut report.outcome.round_trips);
    let path = std::mem::replace(&mut report.read_path, ReadPath::Lens);
    (report, round_trips, path)
}

#[tokio::test]
async fn devnet_the_lens_reads_every_pair_in_one_round_trip_as_the_batches_do() {
    let setup = Setup::load();
    let symbols = ["WETH", "USDC", "WBTC", "LINK", "DAI", "USDT"];
    let amounts = |symbol: &str| match symbol {
        // One whole WETH is also the native reference's amount: the same quote twice in one
        // round trip, the second on a warmed pool.
        "WETH" => ["1", "1.5", "400"],
        "WBTC" => ["0.001", "0.25", "30"],
        "USDC" | "USDT" | "DAI" => ["10", "4000", "2500000"],
        _ => ["1", "150", "90000"],
    };
    let mut compared = 0;
    let mut routes = 0;
    let mut out_of_gas = 0;
    let mut tokens: Vec<(&str, Address)> = symbols.iter().map(|s| (*s, setup.token(s))).collect();
    tokens.push(("ETH", Address::ZERO));
    for (symbol_in, token_in) in &tokens {
        for (symbol_out, token_out) in &tokens {
            if token_in == token_out || (symbol_in == &"ETH" && symbol_out == &"WETH") {
                continue;
            }
            let amount_symbol = if *symbol_in == "ETH" {
                "WETH"
            } else {
                symbol_in
            };
            for amount in amounts(amount_symbol) {
                for include_multihop in [true, false] {
                    let request = ReportRequest {
                        token_in: *token_in,
                        token_out: *token_out,
                        amount_in: amount.to_owned(),
                        include_multihop,
                        slippage_bps: 50,
                    };
                    let lens = report(setup.chain(), &setup.reader(), &request).await;
                    let batches = report_batches(setup.chain(), &setup.reader(), &request).await;
                    let what =
                        format!("{amount} {symbol_in} -> {symbol_out} multihop {include_multihop}");
                    let (lens, batches) = match (lens, batches) {
                        (Ok(lens), Ok(batches)) => (lens, batches),
                        (Err(lens), Err(batches)) => {
                            assert_eq!(lens, batches, "{what}: the same error");
                            continue;
                        }
                        // A swap crossing thousands of ticks: the batches' quotes round trip
                        // runs out of the node's default gas (anvil: the 30 M block limit),
                        // the lens's one call asks for more.
                        (
                            Ok(lens),
                            Err(dex_route::quote::ReportError::Route(
                                dex_route::RouteError::Chain(error),
                            )),
                        ) if error.is_out_of_gas() => {
                            assert_eq!(lens.read_path, ReadPath::Lens);
                            out_of_gas += 1;
                            continue;
                        }
                        (lens, batches) => panic!(
                            "{what}: lens {:?} vs batches {:?}",
                            lens.err(),
                            batches.err()
                        ),
                    };
                    let (lens, lens_trips, lens_path) = read_apart(lens);
                    let (batches, batch_trips, batch_path) = read_apart(batches);
                    assert_eq!(lens_path, ReadPath::Lens, "{what}");
                    assert_eq!(lens_trips, 1, "{what}: one round trip");
                    assert!(matches!(batch_path, ReadPath::Batches { .. }), "{what}");
                    assert!((1..=3).contains(&batch_trips), "{what}: {batch_trips}");
                    routes += lens.outcome.routes.len();
                    assert_eq!(lens, batches, "{what}: the same report to the wei");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 150, "{compared} requests compared");
    assert!(
        out_of_gas <= 20,
        "{out_of_gas} requests only the lens could read"
    );
    eprintln!("{compared} requests, {routes} routes equal; {out_of_gas} only the lens read");
    assert!(routes > 500, "{routes} routes compared");
}

/// The committed runtime bytecode is `lens/QuoteLens.sol` compiled by `lens/compile.mjs`
/// (solc 0.8.24 from the devnet builder's packages).
#[test]
fn the_lens_bytecode_is_its_source_compiled() {
    let report = test_devnet::node::check_quote_lens_bytecode()
        .expect("QuoteLens.runtime.hex is QuoteLens.sol compiled");
    assert!(report.contains("matches"), "{report}");
}
