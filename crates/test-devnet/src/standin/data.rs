//! What the stand-in serves, read once from the devnet when it starts: every pool's Swap (and,
//! for the constant-product pools, Sync) events with their block times, the pools' token
//! balances and prices at the latest block, and the feeds' latest rounds.
//!
//! Pricing rules (the same for every endpoint):
//! - USDC is 1 USD.
//! - Any other token is priced through its *reference pool*: of the devnet's Uniswap V3 pools
//!   that pair it with USDC (or, when none does, with WETH), the one holding the most of it.
//!   For WETH that is WETH/USDC/500. Its USD price is the reference pool's price times the
//!   other token's USD price. A token without a reference pool takes its feed's last answer.
//! - A swap is valued on its USDC side when it has one, else on its WETH side, else on token0,
//!   at the price **as of that swap**: the reference pool's price after its last event at or
//!   before the swap (block, log index). Before the reference pool's first recorded event the
//!   first recorded price is used (the state before the kept history is not on the chain).
//! - Reserves (TVL) use the token balances of the pool at the latest block and the prices at
//!   the latest block.

use std::collections::{BTreeMap, BTreeSet};

use alloy::primitives::{Address, B256, U256};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::types::{BlockNumberOrTag, Filter, Log};
use alloy::sol_types::SolEvent;

use crate::DevnetError;
use crate::addresses::{Addresses, Pool};
use crate::bindings::{IAggregatorV3, IErc20, ISolidlyPool, IUniswapV2Pair, IUniswapV3Pool};

mod events {
    #![allow(missing_docs)]
    pub(super) mod v3 {
        alloy::sol! {
            /// Uniswap V3 pool.
            event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);
        }
    }
    pub(super) mod v2 {
        alloy::sol! {
            /// Uniswap V2 pair.
            event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
            /// Uniswap V2 pair (reserves are uint112).
            event Sync(uint112 reserve0, uint112 reserve1);
        }
    }
    pub(super) mod aerodrome {
        alloy::sol! {
            /// Aerodrome basic pool (contracts/interfaces/IPool.sol).
            event Swap(address indexed sender, address indexed to, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out);
            /// Aerodrome basic pool (reserves are uint256).
            event Sync(uint256 reserve0, uint256 reserve1);
        }
    }
}

/// The kind of a devnet pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolKind {
    UniswapV2,
    UniswapV3,
    Aerodrome { stable: bool },
}

/// A devnet token.
#[derive(Debug, Clone)]
pub(crate) struct TokenInfo {
    pub address: Address,
    pub symbol: String,
    pub decimals: u8,
    /// USD price at the latest block.
    pub price_usd: f64,
}

/// Where in the chain an event sits.
pub(crate) type EventKey = (u64, u64);

/// A point of a pool's price series: token0 priced in token1 after an event.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PricePoint {
    pub key: EventKey,
    pub timestamp: u64,
    pub price0_in_1: f64,
}

/// One swap, valued.
#[derive(Debug, Clone)]
pub(crate) struct SwapRecord {
    pub timestamp: u64,
    /// USD value (see the module's pricing rules).
    pub usd: f64,
    /// What the pool received (+) or paid (−) of token0 and token1, in token units.
    pub amount0: f64,
    pub amount1: f64,
    /// The recipient named in the event (the trader for router swaps).
    pub recipient: Address,
    /// token0 in token1 after the swap.
    pub price0_in_1_after: f64,
    /// The USD price of token0 and token1 as of the swap.
    pub usd0: f64,
    pub usd1: f64,
}

/// One devnet pool with everything the endpoints need.
#[derive(Debug, Clone)]
pub(crate) struct PoolData {
    pub kind: PoolKind,
    pub address: Address,
    pub token0: Address,
    pub token1: Address,
    /// Swap fee, parts per million.
    pub fee_ppm: u32,
    /// Token balances of the pool at the latest block, in token units.
    pub balance0: f64,
    pub balance1: f64,
    /// Mid price of token0 in token1 at the latest block.
    pub price0_in_1: f64,
    /// Price after every Swap (V3) or Sync (V2, Aerodrome) event, in chain order.
    pub series: Vec<PricePoint>,
    /// Swaps in chain order.
    pub swaps: Vec<SwapRecord>,
}

impl PoolData {
    /// token0 in token1 after the last event at or before `timestamp` (the first recorded
    /// price before the first event; the latest price when nothing was recorded).
    pub(super) fn price0_in_1_at_time(&self, timestamp: u64) -> f64 {
        match self.series.iter().rev().find(|p| p.timestamp <= timestamp) {
            Some(point) => point.price0_in_1,
            None => self
                .series
                .first()
                .map_or(self.price0_in_1, |p| p.price0_in_1),
        }
    }

    fn price0_in_1_at(&self, key: Option<EventKey>) -> f64 {
        let Some(key) = key else {
            return self.price0_in_1;
        };
        match self.series.iter().rev().find(|p| p.key <= key) {
            Some(point) => point.price0_in_1,
            None => self
                .series
                .first()
                .map_or(self.price0_in_1, |p| p.price0_in_1),
        }
    }
}

/// A feed's last round at the latest block.
#[derive(Debug, Clone)]
pub(crate) struct FeedPrice {
    pub price: f64,
    pub answer: i128,
    pub decimals: u8,
    pub updated_at: u64,
}

/// Everything served, read once.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub latest_block: u64,
    pub latest_timestamp: u64,
    /// When the pools were created: the end of the build's deployment phase (the deployment
    /// blocks themselves were trimmed from the state).
    pub pools_created_at: u64,
    pub tokens: BTreeMap<Address, TokenInfo>,
    pub pools: Vec<PoolData>,
    /// Feeds by pair (`ETH/USD`).
    pub feeds: BTreeMap<String, FeedPrice>,
    pub weth: Address,
}

impl Snapshot {
    /// The pool at `address`.
    pub(super) fn pool(&self, address: Address) -> Option<&PoolData> {
        self.pools.iter().find(|p| p.address == address)
    }

    /// A token's symbol (its address when unknown).
    pub(super) fn symbol(&self, token: Address) -> String {
        self.tokens
            .get(&token)
            .map_or_else(|| token.to_string(), |t| t.symbol.clone())
    }
}

fn rpc_error(what: &str, e: impl std::fmt::Display) -> DevnetError {
    DevnetError::Rpc(format!("stand-in: {what}: {e}"))
}

fn to_f64(value: U256, decimals: u8) -> f64 {
    // Exact enough for reporting: f64 parses the decimal string with correct rounding.
    let whole: f64 = value.to_string().parse().unwrap_or(f64::NAN);
    whole / 10f64.powi(i32::from(decimals))
}

fn signed_to_f64(value: alloy::primitives::I256, decimals: u8) -> f64 {
    let whole: f64 = value.to_string().parse().unwrap_or(f64::NAN);
    whole / 10f64.powi(i32::from(decimals))
}

fn sqrt_price_to_price(sqrt_price_x96: U256, decimals0: u8, decimals1: u8) -> f64 {
    let sqrt = to_f64(sqrt_price_x96, 0) / 2f64.powi(96);
    sqrt * sqrt * 10f64.powi(i32::from(decimals0) - i32::from(decimals1))
}

/// token0 in token1 from reserves in token units: the ratio for a constant-product or volatile
/// pool; for a Solidly stable pool (x³y + y³x = k) the marginal price (3x²y + y³)/(x³ + 3xy²).
fn reserves_price(kind: PoolKind, x: f64, y: f64) -> f64 {
    match kind {
        PoolKind::Aerodrome { stable: true } => {
            (3.0 * x * x * y + y * y * y) / (x * x * x + 3.0 * x * y * y)
        }
        _ => y / x,
    }
}

struct Reader {
    provider: DynProvider,
}

impl Reader {
    async fn balance(&self, token: Address, holder: Address) -> Result<U256, DevnetError> {
        IErc20::new(token, &self.provider)
            .balanceOf(holder)
            .call()
            .await
            .map_err(|e| rpc_error("balanceOf", e))
    }
}

/// Reads the snapshot from the node at `rpc_url`.
pub(crate) async fn read(rpc_url: &str, addresses: &Addresses) -> Result<Snapshot, DevnetError> {
    let url = rpc_url.parse().map_err(|e| rpc_error("rpc url", e))?;
    let reader = Reader {
        provider: ProviderBuilder::new().connect_http(url).erased(),
    };
    let provider = &reader.provider;
    let latest = provider
        .get_block_by_number(BlockNumberOrTag::Latest)
        .await
        .map_err(|e| rpc_error("latest block", e))?
        .ok_or_else(|| rpc_error("latest block", "missing"))?;
    let latest_block = latest.header.number;
    let latest_timestamp = latest.header.timestamp;

    let usdc = addresses
        .token("USDC")
        .ok_or_else(|| DevnetError::Addresses("no USDC token".into()))?;
    let weth = addresses.contracts.weth9;
    let mut tokens: BTreeMap<Address, TokenInfo> = addresses
        .tokens
        .iter()
        .map(|(symbol, token)| {
            (
                token.address,
                TokenInfo {
                    address: token.address,
                    symbol: symbol.clone(),
                    decimals: token.decimals,
                    price_usd: f64::NAN,
                },
            )
        })
        .collect();
    let decimals = |token: Address| tokens.get(&token).map_or(18, |t| t.decimals);

    // Pools at the latest block.
    let listed: Vec<(PoolKind, &Pool)> = addresses
        .pools
        .uniswap_v2
        .iter()
        .map(|p| (PoolKind::UniswapV2, p))
        .chain(
            addresses
                .pools
                .uniswap_v3
                .iter()
                .map(|p| (PoolKind::UniswapV3, p)),
        )
        .chain(addresses.pools.aerodrome.iter().map(|p| {
            (
                PoolKind::Aerodrome {
                    stable: p.stable.unwrap_or(false),
                },
                p,
            )
        }))
        .collect();
    let aerodrome_fee_bps = aerodrome_fees(addresses);
    let mut pools = Vec::with_capacity(listed.len());
    for (kind, pool) in &listed {
        let (d0, d1) = (decimals(pool.token0_address), decimals(pool.token1_address));
        let balance0 = to_f64(reader.balance(pool.token0_address, pool.address).await?, d0);
        let balance1 = to_f64(reader.balance(pool.token1_address, pool.address).await?, d1);
        let (price0_in_1, fee_ppm) = match kind {
            PoolKind::UniswapV3 => {
                let slot0 = IUniswapV3Pool::new(pool.address, provider)
                    .slot0()
                    .call()
                    .await
                    .map_err(|e| rpc_error("slot0", e))?;
                (
                    sqrt_price_to_price(U256::from(slot0.sqrtPriceX96), d0, d1),
                    pool.fee.unwrap_or(3000),
                )
            }
            PoolKind::UniswapV2 => {
                let reserves = IUniswapV2Pair::new(pool.address, provider)
                    .getReserves()
                    .call()
                    .await
                    .map_err(|e| rpc_error("getReserves", e))?;
                let x = to_f64(U256::from(reserves.reserve0), d0);
                let y = to_f64(U256::from(reserves.reserve1), d1);
                (reserves_price(*kind, x, y), 3000)
            }
            PoolKind::Aerodrome { .. } => {
                let reserves = ISolidlyPool::new(pool.address, provider)
                    .getReserves()
                    .call()
                    .await
                    .map_err(|e| rpc_error("getReserves", e))?;
                let x = to_f64(reserves.reserve0, d0);
                let y = to_f64(reserves.reserve1, d1);
                let fee_bps = aerodrome_fee_bps
                    .get(&pool.address)
                    .copied()
                    .unwrap_or(if pool.stable == Some(true) { 5 } else { 30 });
                (reserves_price(*kind, x, y), fee_bps * 100)
            }
        };
        pools.push(PoolData {
            kind: *kind,
            address: pool.address,
            token0: pool.token0_address,
            token1: pool.token1_address,
            fee_ppm,
            balance0,
            balance1,
            price0_in_1,
            series: Vec::new(),
            swaps: Vec::new(),
        });
    }

    // Every Swap and Sync event of every pool, in chain order.
    let from_block = addresses.chain.history_kept_from_block.min(latest_block);
    let filter = Filter::new()
        .address(pools.iter().map(|p| p.address).collect::<Vec<_>>())
        .event_signature(vec![
            events::v3::Swap::SIGNATURE_HASH,
            events::v2::Swap::SIGNATURE_HASH,
            events::v2::Sync::SIGNATURE_HASH,
            events::aerodrome::Swap::SIGNATURE_HASH,
            events::aerodrome::Sync::SIGNATURE_HASH,
        ])
        .from_block(from_block)
        .to_block(latest_block);
    let mut logs = provider
        .get_logs(&filter)
        .await
        .map_err(|e| rpc_error("eth_getLogs", e))?;
    logs.sort_by_key(|log| (log.block_number, log.log_index));
    let times = block_times(provider, &logs).await?;

    // Price series first (a swap on one pool is valued with another pool's price).
    let mut raw_swaps: Vec<(usize, EventKey, u64, RawSwap)> = Vec::new();
    for log in &logs {
        let Some(index) = pools.iter().position(|p| p.address == log.address()) else {
            continue;
        };
        let (Some(block), Some(log_index)) = (log.block_number, log.log_index) else {
            continue;
        };
        let key = (block, log_index);
        let timestamp = times.get(&block).copied().unwrap_or(latest_timestamp);
        let pool = &mut pools[index];
        let (d0, d1) = (decimals(pool.token0), decimals(pool.token1));
        let topic = log.topic0().copied().unwrap_or(B256::ZERO);
        let data = &log.inner.data;
        if topic == events::v3::Swap::SIGNATURE_HASH {
            let swap = events::v3::Swap::decode_log_data(data)
                .map_err(|e| rpc_error("decoding a V3 Swap", e))?;
            let price = sqrt_price_to_price(U256::from(swap.sqrtPriceX96), d0, d1);
            pool.series.push(PricePoint {
                key,
                timestamp,
                price0_in_1: price,
            });
            raw_swaps.push((
                index,
                key,
                timestamp,
                RawSwap {
                    amount0: signed_to_f64(swap.amount0, d0),
                    amount1: signed_to_f64(swap.amount1, d1),
                    recipient: swap.recipient,
                    price_after: price,
                },
            ));
        } else if topic == events::v2::Sync::SIGNATURE_HASH
            || topic == events::aerodrome::Sync::SIGNATURE_HASH
        {
            let (r0, r1) = if topic == events::v2::Sync::SIGNATURE_HASH {
                let sync = events::v2::Sync::decode_log_data(data)
                    .map_err(|e| rpc_error("decoding a V2 Sync", e))?;
                (U256::from(sync.reserve0), U256::from(sync.reserve1))
            } else {
                let sync = events::aerodrome::Sync::decode_log_data(data)
                    .map_err(|e| rpc_error("decoding an Aerodrome Sync", e))?;
                (sync.reserve0, sync.reserve1)
            };
            pool.series.push(PricePoint {
                key,
                timestamp,
                price0_in_1: reserves_price(pool.kind, to_f64(r0, d0), to_f64(r1, d1)),
            });
        } else if topic == events::v2::Swap::SIGNATURE_HASH
            || topic == events::aerodrome::Swap::SIGNATURE_HASH
        {
            let (in0, in1, out0, out1, to) = if topic == events::v2::Swap::SIGNATURE_HASH {
                let s = events::v2::Swap::decode_log_data(data)
                    .map_err(|e| rpc_error("decoding a V2 Swap", e))?;
                (s.amount0In, s.amount1In, s.amount0Out, s.amount1Out, s.to)
            } else {
                let s = events::aerodrome::Swap::decode_log_data(data)
                    .map_err(|e| rpc_error("decoding an Aerodrome Swap", e))?;
                (s.amount0In, s.amount1In, s.amount0Out, s.amount1Out, s.to)
            };
            // The pair emits Sync just before Swap: the price after the swap is the last point.
            let price_after = pool
                .series
                .last()
                .map_or(pool.price0_in_1, |p| p.price0_in_1);
            raw_swaps.push((
                index,
                key,
                timestamp,
                RawSwap {
                    amount0: to_f64(in0, d0) - to_f64(out0, d0),
                    amount1: to_f64(in1, d1) - to_f64(out1, d1),
                    recipient: to,
                    price_after,
                },
            ));
        }
    }

    let feeds = read_feeds(provider, addresses).await?;
    let pricer = Pricer::new(&pools, &tokens, usdc, weth, &feeds);
    for token in tokens.values_mut() {
        token.price_usd = pricer.usd(token.address, None);
    }
    let valued: Vec<(usize, SwapRecord)> = raw_swaps
        .into_iter()
        .map(|(index, key, timestamp, raw)| {
            let pool = &pools[index];
            let usd0 = pricer.usd(pool.token0, Some(key));
            let usd1 = pricer.usd(pool.token1, Some(key));
            let usd = if pool.token0 == usdc {
                raw.amount0.abs() * usd0
            } else if pool.token1 == usdc || pool.token1 == weth {
                // token1 is USDC, or WETH with no USDC side.
                raw.amount1.abs() * usd1
            } else {
                raw.amount0.abs() * usd0
            };
            (
                index,
                SwapRecord {
                    timestamp,
                    usd,
                    amount0: raw.amount0,
                    amount1: raw.amount1,
                    recipient: raw.recipient,
                    price0_in_1_after: raw.price_after,
                    usd0,
                    usd1,
                },
            )
        })
        .collect();
    for (index, record) in valued {
        pools[index].swaps.push(record);
    }

    Ok(Snapshot {
        latest_block,
        latest_timestamp,
        pools_created_at: deployment_end(latest_timestamp),
        tokens,
        pools,
        feeds,
        weth,
    })
}

struct RawSwap {
    amount0: f64,
    amount1: f64,
    recipient: Address,
    price_after: f64,
}

/// The Aerodrome fee of each pool as `addresses.json` records it (`fee_bps`).
fn aerodrome_fees(addresses: &Addresses) -> BTreeMap<Address, u32> {
    let path = crate::devnet_dir().join("addresses.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    let Ok(raw) = serde_json::from_str::<serde_json::Value>(&text) else {
        return BTreeMap::new();
    };
    let listed: BTreeSet<Address> = addresses
        .pools
        .aerodrome
        .iter()
        .map(|p| p.address)
        .collect();
    raw["pools"]["aerodrome"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|pool| {
            let address: Address = pool["address"].as_str()?.parse().ok()?;
            let fee = u32::try_from(pool["fee_bps"].as_u64()?).ok()?;
            listed.contains(&address).then_some((address, fee))
        })
        .collect()
}

/// `timeline.deploy.until_timestamp` of the committed `addresses.json` (every pool exists by
/// then); the latest block's time when absent.
fn deployment_end(fallback: u64) -> u64 {
    let path = crate::devnet_dir().join("addresses.json");
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|raw| raw["timeline"]["deploy"]["until_timestamp"].as_u64())
        .unwrap_or(fallback)
}

/// Block times of the logs' blocks: the logs' own `blockTimestamp` when the node sends it,
/// otherwise one `eth_getBlockByNumber` per block.
async fn block_times(
    provider: &DynProvider,
    logs: &[Log],
) -> Result<BTreeMap<u64, u64>, DevnetError> {
    let mut times = BTreeMap::new();
    let mut missing = BTreeSet::new();
    for log in logs {
        let Some(block) = log.block_number else {
            continue;
        };
        match log.block_timestamp {
            Some(timestamp) => {
                times.insert(block, timestamp);
            }
            None => {
                missing.insert(block);
            }
        }
    }
    for block in missing {
        if times.contains_key(&block) {
            continue;
        }
        let header = provider
            .get_block_by_number(BlockNumberOrTag::Number(block))
            .await
            .map_err(|e| rpc_error("eth_getBlockByNumber", e))?
            .ok_or_else(|| rpc_error("eth_getBlockByNumber", format!("block {block} missing")))?;
        times.insert(block, header.header.timestamp);
    }
    Ok(times)
}

async fn read_feeds(
    provider: &DynProvider,
    addresses: &Addresses,
) -> Result<BTreeMap<String, FeedPrice>, DevnetError> {
    let mut feeds = BTreeMap::new();
    for (pair, feed) in &addresses.feeds.by_pair {
        let round = IAggregatorV3::new(feed.address, provider)
            .latestRoundData()
            .call()
            .await
            .map_err(|e| rpc_error("latestRoundData", e))?;
        let answer: i128 = round.answer.to_string().parse().unwrap_or(0);
        feeds.insert(
            pair.clone(),
            FeedPrice {
                price: signed_to_f64(round.answer, feed.decimals),
                answer,
                decimals: feed.decimals,
                updated_at: u64::try_from(round.updatedAt).unwrap_or(0),
            },
        );
    }
    Ok(feeds)
}

/// The feed pair naming a token's asset (`WETH` → `ETH/USD`, `WBTC` → `BTC/USD`).
pub(crate) fn feed_pair(symbol: &str) -> String {
    let asset = match symbol {
        "WETH" => "ETH",
        "WBTC" => "BTC",
        other => other,
    };
    format!("{asset}/USD")
}

/// USD prices by the module's rules.
struct Pricer<'a> {
    pools: &'a [PoolData],
    /// Per token: its reference pool's index and the token it is priced against.
    reference: BTreeMap<Address, (usize, Address)>,
    fallback: BTreeMap<Address, f64>,
    usdc: Address,
}

impl<'a> Pricer<'a> {
    fn new(
        pools: &'a [PoolData],
        tokens: &BTreeMap<Address, TokenInfo>,
        usdc: Address,
        weth: Address,
        feeds: &BTreeMap<String, FeedPrice>,
    ) -> Self {
        let mut reference = BTreeMap::new();
        let mut fallback = BTreeMap::new();
        for token in tokens.values() {
            if token.address == usdc {
                continue;
            }
            let best = |against: Address| {
                pools
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.kind == PoolKind::UniswapV3)
                    .filter_map(|(i, p)| {
                        if p.token0 == token.address && p.token1 == against {
                            Some((i, p.balance0))
                        } else if p.token1 == token.address && p.token0 == against {
                            Some((i, p.balance1))
                        } else {
                            None
                        }
                    })
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(i, _)| (i, against))
            };
            let chosen =
                best(usdc).or_else(|| (token.address != weth).then(|| best(weth)).flatten());
            match chosen {
                Some(choice) => {
                    reference.insert(token.address, choice);
                }
                None => {
                    let price = feeds
                        .get(&feed_pair(&token.symbol))
                        .map_or(f64::NAN, |f| f.price);
                    fallback.insert(token.address, price);
                }
            }
        }
        Self {
            pools,
            reference,
            fallback,
            usdc,
        }
    }

    /// `token`'s USD price as of `key` (the latest block when `None`).
    fn usd(&self, token: Address, key: Option<EventKey>) -> f64 {
        self.usd_depth(token, key, 0)
    }

    fn usd_depth(&self, token: Address, key: Option<EventKey>, depth: u8) -> f64 {
        if token == self.usdc {
            return 1.0;
        }
        if depth > 3 {
            return f64::NAN;
        }
        match self.reference.get(&token) {
            Some(&(index, against)) => {
                let pool = &self.pools[index];
                let price0_in_1 = pool.price0_in_1_at(key);
                let in_against = if pool.token0 == token {
                    price0_in_1
                } else {
                    1.0 / price0_in_1
                };
                in_against * self.usd_depth(against, key, depth + 1)
            }
            None => self.fallback.get(&token).copied().unwrap_or(f64::NAN),
        }
    }
}
