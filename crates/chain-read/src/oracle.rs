//! On-chain price oracles: Chainlink-type aggregator feeds (a per-chain registry of verified
//! feed addresses, `latestRoundData`, `getRoundData`, `decimals`, `description`, the L2
//! sequencer uptime feed) and the Uniswap V3 time-weighted average tick from `observe`.
//!
//! Round ids and phases as Chainlink's data feeds documentation describes them
//! (<https://docs.chain.link/data-feeds/historical-data>); the mean tick of `observe` rounded
//! toward −∞ as v3-periphery `OracleLibrary.consult`.

use alloy::primitives::{Address, I256, U256, address};

use crate::bindings::{IAggregatorV3, IUniswapV3Pool};
use crate::multicall::{Batch, BatchResults, CallFailure, Slot};
use crate::registry::{Chain, ChainInfo};

/// The configuration protocol under which feed addresses are overridden:
/// `contracts.chainlink."ETH/USD"`, and `contracts.chainlink.sequencer_uptime`.
pub const FEED_PROTOCOL: &str = "chainlink";

/// The role of the L2 sequencer uptime feed under [`FEED_PROTOCOL`].
pub const SEQUENCER_ROLE: &str = "sequencer_uptime";

/// Where a feed address comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedOrigin {
    /// Built in: the citation names the public source the address was read from.
    Builtin {
        /// Where the address was read.
        citation: &'static str,
    },
    /// Set in the configuration (`contracts.chainlink.<PAIR>`).
    Configured,
}

/// One aggregator feed of the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    /// The pair as Chainlink names it without spaces (`ETH/USD`).
    pub pair: String,
    /// The proxy address.
    pub address: Address,
    /// Built in or configured.
    pub origin: FeedOrigin,
}

/// Built-in feeds: only addresses read from a public source (aave-address-book). Every other
/// chain, BTC/USD and LINK/USD on base and the sequencer uptime feeds are left out until
/// checked; they can be configured.
const VERIFIED: &[(Chain, &str, Address, &str)] = &[
    (
        Chain::Base,
        "ETH/USD",
        address!("71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70"),
        "aave-address-book AaveV3BaseAssets.WETH_ORACLE",
    ),
    (
        Chain::Base,
        "USDC/USD",
        address!("7e860098F58bBFC8648a4311b374B1D669a2bc6B"),
        "aave-address-book AaveV3BaseAssets.USDbC_ORACLE",
    ),
];

/// The feed of `pair` (`ETH/USD`) on the chain: a configured address first, else a built-in
/// verified one; `None` when neither exists (a configured zero address removes the entry).
pub fn feed(chain: &ChainInfo, pair: &str) -> Option<FeedEntry> {
    if let Some(address) = chain.contract(FEED_PROTOCOL, pair) {
        return Some(FeedEntry {
            pair: pair.to_owned(),
            address,
            origin: FeedOrigin::Configured,
        });
    }
    VERIFIED
        .iter()
        .find(|(c, p, _, _)| *c == chain.chain() && *p == pair)
        .map(|(_, p, address, citation)| FeedEntry {
            pair: (*p).to_owned(),
            address: *address,
            origin: FeedOrigin::Builtin { citation },
        })
}

/// The L2 sequencer uptime feed: only a configured one (none is built in).
pub fn sequencer_uptime_feed(chain: &ChainInfo) -> Option<Address> {
    chain.contract(FEED_PROTOCOL, SEQUENCER_ROLE)
}

/// Whether a feed's `description()` names `pair`: Chainlink writes `ETH / USD`; spaces and
/// case are ignored.
pub fn description_names(description: &str, pair: &str) -> bool {
    let squash = |text: &str| -> String {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_uppercase)
            .collect()
    };
    squash(description) == squash(pair)
}

/// One round of a feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    /// `(phaseId << 64) | aggregatorRoundId`.
    pub round_id: u128,
    /// The answer, scaled by `10^decimals`.
    pub answer: I256,
    /// `startedAt`, Unix seconds.
    pub started_at: u64,
    /// `updatedAt`, Unix seconds.
    pub updated_at: u64,
    /// `answeredInRound`.
    pub answered_in_round: u128,
}

impl Round {
    /// The round id within its phase aggregator (the low 64 bits).
    pub fn aggregator_round_id(&self) -> u64 {
        // The mask keeps 64 bits, so the cast cannot truncate.
        (self.round_id & u128::from(u64::MAX)) as u64
    }

    /// The phase (the high bits).
    pub fn phase_id(&self) -> u128 {
        self.round_id >> 64
    }

    /// The id of the round before, or `None` at a phase boundary (aggregator round 1 or 0:
    /// the previous round lives in the previous phase's aggregator).
    pub fn previous_round_id(&self) -> Option<u128> {
        (self.aggregator_round_id() > 1).then(|| self.round_id - 1)
    }
}

fn seconds(value: U256, what: &str) -> Result<u64, CallFailure> {
    u64::try_from(value).map_err(|_| CallFailure::Decode(format!("{what} out of range: {value}")))
}

fn round_of(
    round_id: alloy::primitives::Uint<80, 2>,
    answer: I256,
    started_at: U256,
    updated_at: U256,
    answered_in_round: alloy::primitives::Uint<80, 2>,
) -> Result<Round, CallFailure> {
    Ok(Round {
        round_id: round_id.to::<u128>(),
        answer,
        started_at: seconds(started_at, "startedAt")?,
        updated_at: seconds(updated_at, "updatedAt")?,
        answered_in_round: answered_in_round.to::<u128>(),
    })
}

/// Pending `latestRoundData`, `decimals` and `description` of one feed.
#[derive(Debug, Clone, Copy)]
pub struct FeedSlots {
    latest: Slot<IAggregatorV3::latestRoundDataCall>,
    decimals: Slot<IAggregatorV3::decimalsCall>,
    description: Slot<IAggregatorV3::descriptionCall>,
}

/// What one feed answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedHead {
    /// `latestRoundData()`.
    pub latest: Result<Round, CallFailure>,
    /// `decimals()`.
    pub decimals: Result<u8, CallFailure>,
    /// `description()`.
    pub description: Result<String, CallFailure>,
}

/// Adds `latestRoundData()`, `decimals()` and `description()` of the feed at `feed`.
pub fn feed_head(batch: &mut Batch, feed: Address) -> FeedSlots {
    FeedSlots {
        latest: batch.add(feed, &IAggregatorV3::latestRoundDataCall {}),
        decimals: batch.add(feed, &IAggregatorV3::decimalsCall {}),
        description: batch.add(feed, &IAggregatorV3::descriptionCall {}),
    }
}

impl FeedSlots {
    /// The three answers, each with its own failure.
    pub fn decode(&self, results: &BatchResults) -> FeedHead {
        FeedHead {
            latest: results.get(self.latest).and_then(|r| {
                round_of(
                    r.roundId,
                    r.answer,
                    r.startedAt,
                    r.updatedAt,
                    r.answeredInRound,
                )
            }),
            decimals: results.get(self.decimals),
            description: results.get(self.description),
        }
    }
}

/// A pending `getRoundData(roundId)`.
#[derive(Debug, Clone, Copy)]
pub struct RoundSlot {
    slot: Slot<IAggregatorV3::getRoundDataCall>,
}

/// Adds `getRoundData(round_id)` of the feed at `feed`.
pub fn round_data(batch: &mut Batch, feed: Address, round_id: u128) -> RoundSlot {
    RoundSlot {
        slot: batch.add(
            feed,
            &IAggregatorV3::getRoundDataCall {
                roundId: alloy::primitives::Uint::<80, 2>::saturating_from(round_id),
            },
        ),
    }
}

impl RoundSlot {
    /// The round; a round that does not exist may revert or answer zeros (§2.8), which is
    /// returned as read.
    pub fn decode(&self, results: &BatchResults) -> Result<Round, CallFailure> {
        let r = results.get(self.slot)?;
        round_of(
            r.roundId,
            r.answer,
            r.startedAt,
            r.updatedAt,
            r.answeredInRound,
        )
    }
}

/// A pool's oracle state: `slot0`'s observation fields and `observe([seconds_ago, 0])`.
#[derive(Debug, Clone, Copy)]
pub struct TwapSlots {
    seconds_ago: u32,
    slot0: Slot<IUniswapV3Pool::slot0Call>,
    observe: Slot<IUniswapV3Pool::observeCall>,
}

/// What a pool answered for its TWAP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwapRead {
    /// The window, seconds.
    pub seconds_ago: u32,
    /// `slot0.observationCardinality`.
    pub observation_cardinality: Result<u16, CallFailure>,
    /// `slot0.observationIndex`.
    pub observation_index: Result<u16, CallFailure>,
    /// `tickCumulatives` at `seconds_ago` and now; `observe` reverts `OLD` when the oldest
    /// observation is younger than the window.
    pub tick_cumulatives: Result<(i64, i64), CallFailure>,
}

impl TwapRead {
    /// The arithmetic mean tick over the window, rounded toward −∞
    /// (`OracleLibrary.consult`); `None` when `observe` failed.
    pub fn mean_tick(&self) -> Option<i32> {
        let (then, now) = *self.tick_cumulatives.as_ref().ok()?;
        mean_tick(then, now, self.seconds_ago)
    }
}

/// `(now − then) / seconds`, rounded toward −∞ as `OracleLibrary.consult` does (Solidity
/// division truncates; a negative quotient with a remainder is lowered by one).
pub fn mean_tick(then: i64, now: i64, seconds: u32) -> Option<i32> {
    if seconds == 0 {
        return None;
    }
    let delta = i128::from(now) - i128::from(then);
    let seconds = i128::from(seconds);
    let mut tick = delta / seconds;
    if delta < 0 && delta % seconds != 0 {
        tick -= 1;
    }
    i32::try_from(tick).ok()
}

/// Adds `slot0()` and `observe([seconds_ago, 0])` of `pool`.
pub fn twap(batch: &mut Batch, pool: Address, seconds_ago: u32) -> TwapSlots {
    TwapSlots {
        seconds_ago,
        slot0: batch.add(pool, &IUniswapV3Pool::slot0Call {}),
        observe: batch.add(
            pool,
            &IUniswapV3Pool::observeCall {
                secondsAgos: vec![seconds_ago, 0],
            },
        ),
    }
}

impl TwapSlots {
    /// The answers.
    pub fn decode(&self, results: &BatchResults) -> TwapRead {
        let slot0 = results.get(self.slot0);
        let tick_cumulatives = results.get(self.observe).and_then(|o| {
            match (o.tickCumulatives.first(), o.tickCumulatives.get(1)) {
                (Some(then), Some(now)) => Ok((then.as_i64(), now.as_i64())),
                _ => Err(CallFailure::Decode(format!(
                    "observe answered {} tick cumulatives for 2 times",
                    o.tickCumulatives.len()
                ))),
            }
        });
        TwapRead {
            seconds_ago: self.seconds_ago,
            observation_cardinality: slot0
                .as_ref()
                .map(|s| s.observationCardinality)
                .map_err(Clone::clone),
            observation_index: slot0
                .as_ref()
                .map(|s| s.observationIndex)
                .map_err(Clone::clone),
            tick_cumulatives,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_tick_rounds_toward_negative_infinity() {
        // The devnet's WETH/USDC/500 recording (addresses.json checks.twap).
        assert_eq!(
            mean_tick(-35_757_296_156, -36_110_208_612, 1800),
            Some(-196_063)
        );
        assert_eq!(mean_tick(0, -1, 1800), Some(-1));
        assert_eq!(mean_tick(0, -1800, 1800), Some(-1));
        assert_eq!(mean_tick(0, 1799, 1800), Some(0));
        assert_eq!(mean_tick(0, 3600, 1800), Some(2));
        assert_eq!(mean_tick(0, 1, 0), None);
    }

    #[test]
    fn round_ids_split_into_phase_and_aggregator_round() {
        let round = |round_id: u128| Round {
            round_id,
            answer: I256::ZERO,
            started_at: 0,
            updated_at: 0,
            answered_in_round: round_id,
        };
        let id = (2u128 << 64) | 7;
        assert_eq!(round(id).phase_id(), 2);
        assert_eq!(round(id).aggregator_round_id(), 7);
        assert_eq!(round(id).previous_round_id(), Some(id - 1));
        assert_eq!(round((3u128 << 64) | 1).previous_round_id(), None);
        assert_eq!(round(3).previous_round_id(), Some(2));
    }

    #[test]
    fn descriptions_are_compared_without_spaces_or_case() {
        assert!(description_names("ETH / USD", "ETH/USD"));
        assert!(description_names("eth/usd", "ETH/USD"));
        assert!(!description_names("BTC / USD", "ETH/USD"));
        assert!(!description_names(
            "v0.8/tests/MockV3Aggregator.sol",
            "ETH/USD"
        ));
    }

    #[test]
    fn builtin_feeds_are_the_verified_ones_and_configuration_wins() {
        let registry = crate::Registry::builtin();
        let base = registry.chain(Chain::Base);
        let eth = feed(base, "ETH/USD").expect("built in");
        assert!(matches!(eth.origin, FeedOrigin::Builtin { .. }));
        assert!(feed(base, "BTC/USD").is_none(), "[P] only");
        assert!(feed(registry.chain(Chain::Ethereum), "ETH/USD").is_none());
        assert!(sequencer_uptime_feed(base).is_none());
        let configured = address!("0B306BF915C4d645ff596e518fAf3F9669b97016");
        let overridden = registry
            .with_overrides(
                Chain::Base,
                crate::ChainOverride {
                    tokens: Default::default(),
                    contracts: [(
                        FEED_PROTOCOL.to_owned(),
                        [("ETH/USD".to_owned(), configured)].into_iter().collect(),
                    )]
                    .into_iter()
                    .collect(),
                },
            )
            .expect("override");
        let eth = feed(overridden.chain(Chain::Base), "ETH/USD").expect("configured");
        assert_eq!(eth.address, configured);
        assert_eq!(eth.origin, FeedOrigin::Configured);
    }
}
