//! What the devnet tests of this crate share: the committed devnet with the chain registry
//! overridden from its addresses, the raw addresses.json, and a fresh reader per request.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

pub(crate) mod v4_pools;

use alloy::eips::BlockId;
use alloy::primitives::Address;
use alloy::providers::Provider as _;
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::SolCall;
use chain_read::{
    Chain, ChainClient, ChainInfo, ChainOverride, ClientOptions, PinnedReader, Registry,
};
use serde_json::Value;
use test_devnet::{Addresses, Devnet};

pub(crate) struct Setup {
    pub(crate) devnet: Devnet,
    pub(crate) raw: Value,
    pub(crate) registry: Registry,
}

impl Setup {
    pub(crate) fn load() -> Self {
        Self::on(
            Devnet::load()
                .expect("the committed devnet loads (anvil installed by `cargo xtask ci`)"),
        )
    }

    /// [`Self::load`] on an anvil without the contract-size limit (Algebra V1's contracts).
    pub(crate) fn load_without_code_size_limit() -> Self {
        Self::on(
            Devnet::load_without_code_size_limit()
                .expect("the committed devnet loads (anvil installed by `cargo xtask ci`)"),
        )
    }

    fn on(devnet: Devnet) -> Self {
        let raw: Value = serde_json::from_str(
            &std::fs::read_to_string(test_devnet::devnet_dir().join("addresses.json"))
                .expect("addresses.json"),
        )
        .expect("JSON");
        let devnet_override = devnet.addresses.chain_override();
        let overrides = ChainOverride {
            tokens: devnet_override.tokens,
            contracts: devnet_override.contracts,
        };
        let registry = Registry::builtin()
            .with_overrides(Chain::Base, overrides)
            .expect("devnet overrides apply");
        Self {
            devnet,
            raw,
            registry,
        }
    }

    /// The same devnet with Uniswap V3's TickLens taken out of the registry: pool reads walk
    /// `tickBitmap` words and then `ticks()`, as on a chain without a TickLens.
    pub(crate) fn without_tick_lens(mut self) -> Self {
        let overrides = ChainOverride {
            tokens: Default::default(),
            contracts: [(
                "uniswap_v3".to_owned(),
                [("tick_lens".to_owned(), Address::ZERO)].into(),
            )]
            .into(),
        };
        self.registry = self
            .registry
            .with_overrides(Chain::Base, overrides)
            .expect("the TickLens override applies");
        self
    }

    pub(crate) fn a(&self) -> &Addresses {
        &self.devnet.addresses
    }

    pub(crate) fn chain(&self) -> &ChainInfo {
        self.registry.chain(Chain::Base)
    }

    /// A fresh reader: one per request, as a handler would make it.
    pub(crate) fn reader(&self) -> PinnedReader {
        let client = ChainClient::new([&self.devnet.anvil.rpc_url], ClientOptions::default())
            .expect("client");
        PinnedReader::for_chain(client, self.chain())
    }

    pub(crate) fn token(&self, symbol: &str) -> Address {
        self.a()
            .token(symbol)
            .unwrap_or_else(|| panic!("token {symbol}"))
    }

    /// `contracts.<group>.<role>` of addresses.json.
    pub(crate) fn contract(&self, group: &str, role: &str) -> Address {
        self.raw["contracts"][group][role]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("contracts.{group}.{role}"))
    }

    /// `call` on `to` at `block`, decoded.
    pub(crate) async fn call_at<C: SolCall>(&self, to: Address, call: &C, block: u64) -> C::Return {
        let data = self
            .devnet
            .provider
            .call(
                TransactionRequest::default()
                    .to(to)
                    .input(call.abi_encode().into()),
            )
            .block(BlockId::number(block))
            .await
            .unwrap_or_else(|e| panic!("eth_call at {block}: {e}"));
        C::abi_decode_returns(&data).expect("decode")
    }
}

/// A Balancer pool deployed on the test's devnet as the registry lists it.
pub(crate) fn balancer_entry(
    pool: &test_devnet::balancer::BalancerPool,
) -> chain_read::dex::balancer::BalancerPoolEntry {
    use chain_read::dex::balancer::{BalancerPoolEntry, BalancerPoolType};
    BalancerPoolEntry {
        id: pool.id,
        pool_type: if pool.stable {
            BalancerPoolType::ComposableStable
        } else {
            BalancerPoolType::Weighted
        },
        tokens: pool.tokens.clone(),
    }
}

/// An address in a script's JSON output.
pub(crate) fn json_address(value: &Value) -> Address {
    value
        .as_str()
        .expect("an address")
        .parse()
        .expect("an address")
}

/// `request` read through the lens and through the batches: the lens must answer in one
/// round trip and, apart from how they were read, its report must equal the batches' to the
/// wei (every route, leg, quote, gas estimate, state and failure). The lens's report.
pub(crate) async fn lens_equals_batches(
    setup: &Setup,
    request: &dex_route::quote::ReportRequest,
    what: &str,
) -> dex_route::quote::QuoteReport {
    use dex_route::quote::{ReadPath, report, report_batches};
    let lens = report(setup.chain(), &setup.reader(), request)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let mut batches = report_batches(setup.chain(), &setup.reader(), request)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(lens.read_path, ReadPath::Lens, "{what}");
    assert_eq!(lens.outcome.round_trips, 1, "{what}: one round trip");
    assert!(
        matches!(batches.read_path, ReadPath::Batches { .. }),
        "{what}"
    );
    batches.read_path = ReadPath::Lens;
    batches.outcome.round_trips = 1;
    assert_eq!(lens, batches, "{what}: the same report");
    lens
}

/// A `/dex/quote` read of `amount` `symbol_in` for `symbol_out` on the devnet at 50 bps, and
/// its description for assertion messages.
pub(crate) fn quote_request(
    setup: &Setup,
    (symbol_in, symbol_out, amount): (&str, &str, &str),
    include_multihop: bool,
) -> (dex_route::quote::ReportRequest, String) {
    (
        dex_route::quote::ReportRequest {
            token_in: setup.token(symbol_in),
            token_out: setup.token(symbol_out),
            amount_in: amount.to_owned(),
            include_multihop,
            slippage_bps: 50,
        },
        format!("{amount} {symbol_in} -> {symbol_out} multihop {include_multihop}"),
    )
}

/// `/pool/liquidity`'s read of `request` through the lens (at most two round trips), checked
/// equal, to the wei and field by field, to the ordinary batches' read of the same block; the
/// lens's read is returned for the test's own checks against the contracts.
pub(crate) async fn read_pool_both_ways(
    setup: &Setup,
    request: &dex_route::liquidity::LiquidityRequest,
) -> Result<dex_route::liquidity::PoolLiquidity, dex_route::RouteError> {
    use dex_route::liquidity::{ReadPath, read_pool_liquidity, read_pool_liquidity_batches};
    let lens = read_pool_liquidity(setup.chain(), &setup.reader(), request).await;
    let batches = read_pool_liquidity_batches(setup.chain(), &setup.reader(), request).await;
    let (mut lens, mut batches) = match (lens, batches) {
        (Ok(lens), Ok(batches)) => (lens, batches),
        (Err(lens), Err(batches)) => {
            assert_eq!(lens, batches, "{request:?}: the same refusal both ways");
            return Err(lens);
        }
        (lens, batches) => panic!("{request:?}: lens {lens:?}, batches {batches:?}"),
    };
    assert_eq!(lens.read_path, ReadPath::Lens, "{request:?}");
    assert!(
        lens.sequential_round_trips <= 2,
        "{request:?}: {} round trips through the lens",
        lens.sequential_round_trips
    );
    assert!(
        matches!(batches.read_path, ReadPath::Batches { .. }),
        "{request:?}"
    );
    let round_trips = lens.sequential_round_trips;
    lens.sequential_round_trips = batches.sequential_round_trips;
    batches.read_path = ReadPath::Lens;
    assert_eq!(lens, batches, "{request:?}: lens and batches differ");
    lens.sequential_round_trips = round_trips;
    Ok(lens)
}

/// Asserts every band of a depth walk equal, within one wei per position, to the same band
/// summed position by position (`(tick_lower, tick_upper, liquidity)`) at the pool's price:
/// token0 above the price up to the band's upper target, token1 below it down to its lower one.
pub(crate) fn assert_depth_equals_positions(
    name: &str,
    bands: &[dex_route::liquidity::BandCapital],
    sqrt_price_x96: alloy::primitives::U256,
    positions: &[(i32, i32, u128)],
) {
    use alloy::primitives::U256;
    use dex_math::sqrt_price_math::{get_amount0_delta, get_amount1_delta};
    use dex_math::tick_math::get_sqrt_ratio_at_tick;
    let price = sqrt_price_x96;
    for band in bands {
        let (mut token0, mut token1) = (U256::ZERO, U256::ZERO);
        for &(lower, upper, liquidity) in positions {
            if liquidity == 0 {
                continue;
            }
            let (s_lower, s_upper) = (
                get_sqrt_ratio_at_tick(lower).expect("tick"),
                get_sqrt_ratio_at_tick(upper).expect("tick"),
            );
            let (from, to) = (s_lower.max(price), s_upper.min(band.upper_sqrt_price_x96));
            if from < to {
                token0 += get_amount0_delta(from, to, liquidity, false).expect("delta");
            }
            let (from, to) = (s_lower.max(band.lower_sqrt_price_x96), s_upper.min(price));
            if from < to {
                token1 += get_amount1_delta(from, to, liquidity, false).expect("delta");
            }
        }
        let tolerance = U256::from(positions.len());
        let close = |a: U256, b: U256| a.max(b) - a.min(b) <= tolerance;
        assert!(
            close(band.upper_token0, token0),
            "{name} ±{} % upper: walk {} vs positions {token0}",
            band.percent,
            band.upper_token0
        );
        assert!(
            close(band.lower_token1, token1),
            "{name} ±{} % lower: walk {} vs positions {token1}",
            band.percent,
            band.lower_token1
        );
    }
}

/// The `/dex/quote` requests the devnet tests of a new pool kind read: direct and two-hop pairs
/// of the devnet's tokens at a few hundred to a few thousand dollars (the Slipstream test reads
/// the first five, the pairs its pools cover).
pub(crate) const KIND_PAIRS: [(&str, &str, &str); 8] = [
    ("WETH", "USDC", "1.5"),
    ("USDC", "WETH", "4000"),
    ("WBTC", "USDC", "0.25"),
    ("USDC", "WBTC", "10"),
    ("WETH", "WBTC", "3"),
    ("DAI", "USDC", "2500"),
    ("USDT", "USDC", "900"),
    ("LINK", "WETH", "40"),
];

/// What [`quote_each`] counted: requests read, legs of the kind's DEX, and the requests whose
/// best route goes through that DEX or not.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct KindTally {
    pub(crate) compared: usize,
    pub(crate) legs: usize,
    pub(crate) kind_best: usize,
    pub(crate) other_best: usize,
}

/// Reads every pair of `pairs` without and with two-hop routes, each through the lens and the
/// batches (equal, [`lens_equals_batches`]), counts which DEX's route is best, and hands each
/// report and its legs through `dex` to `check` (with the request's description).
pub(crate) async fn quote_each(
    setup: &Setup,
    pairs: &[(&str, &str, &str)],
    dex: chain_read::DexId,
    mut check: impl AsyncFnMut(&str, &dex_route::quote::QuoteReport, Vec<&dex_route::Leg>),
) -> KindTally {
    let mut tally = KindTally::default();
    for pair in pairs {
        for include_multihop in [false, true] {
            let (request, what) = quote_request(setup, *pair, include_multihop);
            let report = lens_equals_batches(setup, &request, &what).await;
            tally.compared += 1;
            match report.outcome.routes.first() {
                Some(best) if best.legs.iter().any(|l| l.pool.dex == dex) => tally.kind_best += 1,
                Some(_) => tally.other_best += 1,
                None => panic!("{what}: no route"),
            }
            let legs: Vec<&dex_route::Leg> = report
                .outcome
                .routes
                .iter()
                .flat_map(|route| route.legs.iter())
                .filter(|l| l.pool.dex == dex)
                .collect();
            tally.legs += legs.len();
            check(&what, &report, legs).await;
        }
    }
    tally
}
