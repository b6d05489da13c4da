//! Uniswap V4 pools found from the PoolManager's `Initialize` events (v4-core
//! `IPoolManager.sol`: `Initialize(PoolId indexed id, Currency indexed currency0, Currency
//! indexed currency1, uint24 fee, int24 tickSpacing, IHooks hooks, uint160 sqrtPriceX96, int24
//! tick)`), kept per chain and read forward a bounded block range at a time.
//!
//! A V4 pool is its PoolKey, and any fee, tick spacing and hook make one, so probing a fixed
//! list of shapes misses the pools whose combination is not on the list. The index holds the
//! shapes each pair's pools were initialised with. It reads no block of its own accord: a
//! [`PinnedReader`](crate::PinnedReader) of the chain carries the next range's `eth_getLogs` in
//! the same JSON-RPC batch as its first request (the lens call or the pinning batch), so a read
//! costs no round trip more, and the pools it finds are used from the next read on.
//!
//! Bounds: a range never ends past a block the node has already answered at (no range beyond
//! the head), holds at most [`V4IndexConfig::max_blocks_per_refresh`] blocks (halved after a
//! node refuses a range, and kept: a node's limit does not move), only one range is out at a
//! time, the index
//! keeps at most [`V4IndexConfig::max_pools`] pools, and a pair offers at most
//! [`V4IndexConfig::max_shapes_per_pair`] of its shapes to discovery.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use alloy::primitives::{Address, B256};
use alloy::rpc::types::{Filter, Log};
use alloy::sol_types::SolEvent;

use super::uniswap_v4::V4Shape;

// The generated constructor of an eight-field event takes eight arguments.
#[allow(clippy::too_many_arguments)]
mod events {
    alloy::sol! {
        /// v4-core `IPoolManager`'s pool creation event.
        interface V4PoolManagerInit {
            /// A pool initialised: its PoolId, currencies, key and first price.
            event Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick);
        }
    }
}
pub use events::V4PoolManagerInit;

/// How an index reads and what it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V4IndexConfig {
    /// The first block read: the PoolManager's deployment block.
    pub start_block: u64,
    /// Most blocks one `eth_getLogs` asks for.
    pub max_blocks_per_refresh: u64,
    /// Most pools kept; events past it are counted, not kept.
    pub max_pools: usize,
    /// Most of a pair's shapes offered to discovery, the earliest initialised first.
    pub max_shapes_per_pair: usize,
    /// Blocks behind the cursor each range reads again (at most half the range), so a pool
    /// whose `Initialize` a reorg removed is dropped and one it moved is kept.
    pub reorg_overlap_blocks: u64,
}

impl V4IndexConfig {
    /// The defaults from `start_block`: 10,000 blocks a range (the range many hosted nodes
    /// allow for `eth_getLogs`), 200,000 pools (about 40 MB with their PoolIds), 8 shapes a
    /// pair, the last 128 blocks read again (deeper than the reorgs these chains see).
    pub const fn from_block(start_block: u64) -> Self {
        Self {
            start_block,
            max_blocks_per_refresh: 10_000,
            max_pools: 200_000,
            max_shapes_per_pair: 8,
            reorg_overlap_blocks: 128,
        }
    }
}

/// One pool the events named.
#[derive(Debug, Clone, Copy)]
struct Found {
    shape: V4Shape,
    /// Its `Initialize` block (or its range's first block when the node gave none).
    block: u64,
}

#[derive(Debug)]
struct IndexState {
    /// The first block not read yet.
    next_block: u64,
    /// The highest block the node has answered at.
    head: Option<u64>,
    /// The next range's length cap.
    span: u64,
    /// A range is out.
    in_flight: bool,
    pairs: HashMap<(Address, Address), Vec<Found>>,
    /// Each pool kept by its PoolId: its currencies and shape (found in `pairs`).
    ids: HashMap<B256, (Address, Address)>,
    pools: usize,
    /// Events not kept because the index was full.
    dropped: u64,
    /// The last refused range's error.
    last_error: Option<String>,
}

/// A chain's V4 pool index: cloning shares it. A view made by [`Self::frozen`] offers only the
/// pools read before it was made, so one request's discovery sees the same pools in each of
/// its round trips while a refresh adds more.
#[derive(Clone)]
pub struct V4PoolIndex {
    config: V4IndexConfig,
    shared: Arc<Mutex<IndexState>>,
    /// Only pools initialised before this block (set in a frozen view).
    before: Option<u64>,
}

impl std::fmt::Debug for V4PoolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("V4PoolIndex")
            .field("config", &self.config)
            .field("before", &self.before)
            .finish_non_exhaustive()
    }
}

/// Two indexes are alike when they are configured alike (what a registry compares).
impl PartialEq for V4PoolIndex {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
    }
}

impl Eq for V4PoolIndex {}

/// What an index has read, for an answer to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V4IndexStatus {
    /// The first block it reads.
    pub start_block: u64,
    /// The last block read (none yet: `None`).
    pub read_to: Option<u64>,
    /// The highest block the node has answered at.
    pub head: Option<u64>,
    /// Pools kept.
    pub pools: usize,
    /// Events not kept because the index was full.
    pub dropped: u64,
    /// The last range the node refused, and why.
    pub last_error: Option<String>,
}

/// A pair's shapes from the index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PairShapes {
    /// Offered to discovery, the earliest initialised first.
    pub shapes: Vec<V4Shape>,
    /// The pair's pools known, offered or not.
    pub known: usize,
}

impl V4PoolIndex {
    /// An empty index reading from `config.start_block`.
    pub fn new(config: V4IndexConfig) -> Self {
        Self {
            config,
            shared: Arc::new(Mutex::new(IndexState {
                next_block: config.start_block,
                head: None,
                span: config.max_blocks_per_refresh.max(1),
                in_flight: false,
                pairs: HashMap::new(),
                ids: HashMap::new(),
                pools: 0,
                dropped: 0,
                last_error: None,
            })),
            before: None,
        }
    }

    /// Its configuration.
    pub fn config(&self) -> V4IndexConfig {
        self.config
    }

    fn state(&self) -> MutexGuard<'_, IndexState> {
        // A panic while the lock was held leaves counts, never a broken invariant a read
        // relies on: the state is used as it is.
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A view of the pools read so far only (it refreshes nothing).
    pub fn frozen(&self) -> Self {
        let next = self.state().next_block;
        Self {
            before: Some(self.before.map_or(next, |b| b.min(next))),
            ..self.clone()
        }
    }

    /// Records that the node answered at `block`: ranges may reach it.
    pub fn observe_head(&self, block: u64) {
        let mut state = self.state();
        state.head = Some(state.head.map_or(block, |h| h.max(block)));
    }

    /// The next range to read, if one is due: the head is known and not read, no other range
    /// is out, and this is not a frozen view. The range is out until the answer is applied or
    /// the [`Refresh`] dropped.
    pub fn due(&self) -> Option<Refresh> {
        if self.before.is_some() {
            return None;
        }
        let mut state = self.state();
        let head = state.head?;
        if state.in_flight || state.next_block > head {
            return None;
        }
        // The blocks behind the cursor read again, at most half the range so it advances.
        let overlap = self.config.reorg_overlap_blocks.min(state.span / 2);
        let cursor = state.next_block;
        let from = cursor.saturating_sub(overlap).max(self.config.start_block);
        let to = head.min(from.saturating_add(state.span - 1));
        state.in_flight = true;
        Some(Refresh {
            index: self.clone(),
            from,
            cursor,
            to,
            settled: false,
        })
    }

    /// The shapes of the pools initialised on `currency0`/`currency1` (sorted, the zero
    /// address for native ether), the earliest first, at most
    /// [`V4IndexConfig::max_shapes_per_pair`].
    pub fn shapes(&self, currency0: Address, currency1: Address) -> PairShapes {
        let state = self.state();
        let Some(found) = state.pairs.get(&(currency0, currency1)) else {
            return PairShapes::default();
        };
        let visible: Vec<V4Shape> = found
            .iter()
            .filter(|f| self.before.is_none_or(|before| f.block < before))
            .map(|f| f.shape)
            .collect();
        PairShapes {
            known: visible.len(),
            shapes: visible
                .into_iter()
                .take(self.config.max_shapes_per_pair)
                .collect(),
        }
    }

    /// The pool the PoolId names, when its `Initialize` event is among those read (before
    /// the view's block, for a frozen view).
    pub fn pool(&self, id: B256) -> Option<V4Initialized> {
        let state = self.state();
        // The pair is kept by id; its shape is the one whose key hashes to it (a pair holds
        // few pools, and a map to the pair alone keeps the index near half the size).
        let &(currency0, currency1) = state.ids.get(&id)?;
        let found = state
            .pairs
            .get(&(currency0, currency1))?
            .iter()
            .find(|f| super::uniswap_v4::pool_id(&f.shape.key(currency0, currency1)) == id)?;
        self.before
            .is_none_or(|before| found.block < before)
            .then_some(V4Initialized {
                id,
                currency0,
                currency1,
                shape: found.shape,
            })
    }

    /// The first block whose `Initialize` events this view has not read for good (the last
    /// [`V4IndexConfig::reorg_overlap_blocks`] read may still be reorged), when every event
    /// before it was kept: a PoolId [`Self::pool`] does not know was not initialized before
    /// it. `None` when the index dropped events (it was full): then it proves nothing.
    pub fn complete_before(&self) -> Option<u64> {
        let state = self.state();
        if state.dropped > 0 {
            return None;
        }
        // The last blocks read may still be reorged: an event may yet appear there.
        let read = self
            .before
            .map_or(state.next_block, |b| b.min(state.next_block));
        Some(
            read.saturating_sub(self.config.reorg_overlap_blocks)
                .max(self.config.start_block),
        )
    }

    /// What the index has read.
    pub fn status(&self) -> V4IndexStatus {
        let state = self.state();
        V4IndexStatus {
            start_block: self.config.start_block,
            read_to: (state.next_block > self.config.start_block).then(|| state.next_block - 1),
            head: state.head,
            pools: state.pools,
            dropped: state.dropped,
            last_error: state.last_error.clone(),
        }
    }

    fn apply(&self, from: u64, cursor: u64, to: u64, logs: Result<Vec<Log>, String>) {
        let mut state = self.state();
        state.in_flight = false;
        if state.next_block != cursor {
            // Another range was applied meanwhile (cannot happen while one is out at a time;
            // kept safe): this answer is not the next one.
            return;
        }
        let logs = match logs {
            Ok(logs) => logs,
            Err(error) => {
                // Most refusals of a range are its size (blocks or results): half next time.
                state.span = (state.span / 2).max(1);
                tracing::debug!(from, to, %error, "V4 Initialize range refused");
                state.last_error = Some(format!("blocks {from}–{to}: {error}"));
                return;
            }
        };
        // The blocks read again: what they held before is replaced by what they hold now, so
        // a pool whose event a reorg removed goes, and one it moved comes back at its block.
        if from < cursor {
            let again = |block: u64| (from..cursor).contains(&block);
            let mut gone = Vec::new();
            for (&(currency0, currency1), found) in state.pairs.iter_mut() {
                found.retain(|f| {
                    if again(f.block) {
                        gone.push(super::uniswap_v4::pool_id(
                            &f.shape.key(currency0, currency1),
                        ));
                    }
                    !again(f.block)
                });
            }
            state.pairs.retain(|_, found| !found.is_empty());
            for id in &gone {
                state.ids.remove(id);
            }
            state.pools = state.pools.saturating_sub(gone.len());
        }
        for log in logs {
            let Some(pool) = V4Initialized::from_log(&log) else {
                continue;
            };
            let shape = pool.shape;
            let block = log.block_number.unwrap_or(from).max(from);
            let full = state.pools >= self.config.max_pools;
            let entry = state
                .pairs
                .entry((pool.currency0, pool.currency1))
                .or_default();
            if entry.iter().any(|f| f.shape == shape) {
                continue;
            }
            if full {
                state.dropped += 1;
                continue;
            }
            entry.push(Found { shape, block });
            state.ids.insert(pool.id, (pool.currency0, pool.currency1));
            state.pools += 1;
        }
        state.next_block = to + 1;
        state.last_error = None;
    }
}

/// A range of blocks out for reading; dropping it unapplied gives the range back.
#[derive(Debug)]
pub struct Refresh {
    index: V4PoolIndex,
    from: u64,
    /// The index's cursor when the range was made: blocks `from..cursor` are read again.
    cursor: u64,
    to: u64,
    settled: bool,
}

impl Refresh {
    /// Its first and last block.
    pub fn range(&self) -> (u64, u64) {
        (self.from, self.to)
    }

    /// The `eth_getLogs` filter: `Initialize` on `pool_manager` over the range.
    pub fn filter(&self, pool_manager: Address) -> Filter {
        Filter::new()
            .address(pool_manager)
            .event_signature(initialize_topic())
            .from_block(self.from)
            .to_block(self.to)
    }

    /// Takes the node's answer: the range's pools are added and the next range starts after
    /// it, or the refusal is kept and the range is read again (shorter) next time.
    pub fn apply(mut self, logs: Result<Vec<Log>, String>) {
        self.settled = true;
        self.index.apply(self.from, self.cursor, self.to, logs);
    }
}

impl Drop for Refresh {
    fn drop(&mut self) {
        if !self.settled {
            self.index.state().in_flight = false;
        }
    }
}

/// `Initialize`'s topic.
pub fn initialize_topic() -> B256 {
    V4PoolManagerInit::Initialize::SIGNATURE_HASH
}

/// A pool as its `Initialize` event names it: the PoolId and the PoolKey's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V4Initialized {
    /// The PoolId (the event's first indexed topic).
    pub id: B256,
    /// currency0 (the zero address: native ether).
    pub currency0: Address,
    /// currency1.
    pub currency1: Address,
    /// Fee, tick spacing and hooks.
    pub shape: V4Shape,
}

impl V4Initialized {
    /// The pool an `Initialize` log names; `None` for a removed (reorged) log, another
    /// event, or a tick spacing outside int24.
    pub fn from_log(log: &Log) -> Option<Self> {
        if log.removed {
            return None;
        }
        let e = log
            .log_decode::<V4PoolManagerInit::Initialize>()
            .ok()?
            .inner
            .data;
        Some(Self {
            id: e.id,
            currency0: e.currency0,
            currency1: e.currency1,
            shape: V4Shape {
                fee: e.fee.to::<u32>(),
                tick_spacing: i32::try_from(e.tickSpacing).ok()?,
                hooks: e.hooks,
            },
        })
    }

    /// Whether the key the event names hashes to its PoolId, as v4-core's `toId` does (a
    /// node's answer is checked, not trusted).
    pub fn id_matches(&self) -> bool {
        super::uniswap_v4::pool_id(&self.shape.key(self.currency0, self.currency1)) == self.id
    }
}

/// The `eth_getLogs` filter of the `Initialize` event of one PoolId on `pool_manager` (the
/// PoolId is its first indexed topic) from block `from` to the node's latest: a pool is
/// initialised once, so at most one log answers.
pub fn initialize_of(pool_manager: Address, id: B256, from: u64) -> Filter {
    Filter::new()
        .address(pool_manager)
        .event_signature(initialize_topic())
        .topic1(id)
        .from_block(from)
        .to_block(alloy::eips::BlockNumberOrTag::Latest)
}

#[cfg(test)]
mod tests {
    use alloy::primitives::aliases::{I24, U24, U160};
    use alloy::primitives::{LogData, address};

    use super::*;

    const MANAGER: Address = address!("00000000000000000000000000000000000000aa");

    fn initialize(block: u64, currency0: Address, currency1: Address, shape: V4Shape) -> Log {
        let event = V4PoolManagerInit::Initialize {
            id: super::super::uniswap_v4::pool_id(&shape.key(currency0, currency1)),
            currency0,
            currency1,
            fee: U24::saturating_from(shape.fee),
            tickSpacing: I24::try_from(shape.tick_spacing).expect("int24"),
            hooks: shape.hooks,
            sqrtPriceX96: U160::from(1u8) << 96,
            tick: I24::ZERO,
        };
        let data: LogData = event.encode_log_data();
        Log {
            inner: alloy::primitives::Log {
                address: MANAGER,
                data,
            },
            block_number: Some(block),
            ..Log::default()
        }
    }

    fn config(start: u64, span: u64) -> V4IndexConfig {
        V4IndexConfig {
            max_blocks_per_refresh: span,
            reorg_overlap_blocks: 0,
            ..V4IndexConfig::from_block(start)
        }
    }

    const A: Address = address!("00000000000000000000000000000000000000a1");
    const B: Address = address!("00000000000000000000000000000000000000b2");

    #[test]
    fn nothing_is_due_before_the_head_is_known_and_ranges_stop_at_it() {
        let index = V4PoolIndex::new(config(100, 1_000));
        assert!(index.due().is_none(), "no head seen yet");
        index.observe_head(99);
        assert!(index.due().is_none(), "the head is before the start block");
        index.observe_head(350);
        let refresh = index.due().expect("due");
        assert_eq!(refresh.range(), (100, 350));
        let filter = refresh.filter(MANAGER);
        assert_eq!(filter.get_from_block(), Some(100));
        assert_eq!(filter.get_to_block(), Some(350));
        assert!(index.due().is_none(), "one range out at a time");
        refresh.apply(Ok(Vec::new()));
        assert_eq!(index.status().read_to, Some(350));
        assert!(index.due().is_none(), "read up to the head");
    }

    #[test]
    fn ranges_are_capped_and_read_forward_incrementally() {
        let index = V4PoolIndex::new(config(0, 100));
        index.observe_head(250);
        let ranges: Vec<(u64, u64)> = std::iter::from_fn(|| {
            let refresh = index.due()?;
            let range = refresh.range();
            refresh.apply(Ok(Vec::new()));
            Some(range)
        })
        .collect();
        assert_eq!(ranges, [(0, 99), (100, 199), (200, 250)]);
        index.observe_head(260);
        assert_eq!(index.due().map(|r| r.range()), Some((251, 260)));
    }

    #[test]
    fn a_refused_range_is_read_again_shorter_and_a_dropped_one_given_back() {
        let index = V4PoolIndex::new(config(0, 1_000));
        index.observe_head(5_000);
        let refresh = index.due().expect("due");
        assert_eq!(refresh.range(), (0, 999));
        refresh.apply(Err("query exceeds max block range".to_owned()));
        assert!(index.status().last_error.is_some());
        let refresh = index.due().expect("due again");
        assert_eq!(refresh.range(), (0, 499), "halved");
        drop(refresh);
        let refresh = index.due().expect("given back");
        assert_eq!(refresh.range(), (0, 499));
        refresh.apply(Ok(Vec::new()));
        assert_eq!(index.status().last_error, None);
        assert_eq!(
            index.due().map(|r| r.range()),
            Some((500, 999)),
            "the shorter range is kept"
        );
    }

    #[test]
    fn events_give_each_pair_its_shapes_and_a_frozen_view_keeps_its_own() {
        let index = V4PoolIndex::new(config(0, 1_000));
        index.observe_head(100);
        let odd = V4Shape::plain(1234, 7);
        let hooked = V4Shape {
            fee: super::super::uniswap_v4::DYNAMIC_FEE_FLAG,
            tick_spacing: 30,
            hooks: address!("4444000000000000000000000000000000000080"),
        };
        let before = index.frozen();
        index.due().expect("due").apply(Ok(vec![
            initialize(10, A, B, odd),
            initialize(20, A, B, odd),
        ]));
        let frozen = index.frozen();
        index.observe_head(200);
        index
            .due()
            .expect("due")
            .apply(Ok(vec![initialize(150, A, B, hooked)]));
        assert_eq!(index.shapes(A, B).shapes, [odd, hooked], "deduplicated");
        assert_eq!(
            index.shapes(B, A),
            PairShapes::default(),
            "sorted pairs only"
        );
        assert_eq!(frozen.shapes(A, B).shapes, [odd], "read before the view");
        assert!(before.shapes(A, B).shapes.is_empty());
        assert!(frozen.due().is_none(), "a view refreshes nothing");
        assert_eq!(index.status().pools, 2);
    }

    #[test]
    fn a_pool_id_finds_its_key_and_an_unknown_one_is_proven_absent_only_up_to_the_cursor() {
        let index = V4PoolIndex::new(config(0, 1_000));
        index.observe_head(100);
        let odd = V4Shape::plain(1234, 7);
        let log = initialize(10, A, B, odd);
        let found = V4Initialized::from_log(&log).expect("an Initialize log");
        assert!(found.id_matches());
        assert_eq!(index.pool(found.id), None);
        assert_eq!(index.complete_before(), Some(0), "nothing read yet");
        let frozen = index.frozen();
        index.due().expect("due").apply(Ok(vec![log.clone()]));
        assert_eq!(
            index.pool(found.id),
            Some(V4Initialized {
                id: found.id,
                currency0: A,
                currency1: B,
                shape: odd,
            })
        );
        assert_eq!(index.complete_before(), Some(101));
        assert_eq!(frozen.pool(found.id), None, "read after the view");
        assert_eq!(frozen.complete_before(), Some(0));
        let mut removed = log;
        removed.removed = true;
        assert_eq!(V4Initialized::from_log(&removed), None, "a reorged log");
        let mut forged = found;
        forged.shape.fee = 500;
        assert!(!forged.id_matches(), "a key that does not hash to the id");
        let filter = initialize_of(MANAGER, found.id, 42);
        assert_eq!(filter.get_from_block(), Some(42));
        assert!(filter.topics[1].matches(&found.id));
    }

    #[test]
    fn each_range_reads_the_last_blocks_again_so_a_reorged_initialize_is_not_kept() {
        let index = V4PoolIndex::new(V4IndexConfig {
            reorg_overlap_blocks: 10,
            ..config(0, 100)
        });
        let (kept, reorged, moved) = (
            V4Shape::plain(100, 1),
            V4Shape::plain(200, 2),
            V4Shape::plain(300, 3),
        );
        index.observe_head(99);
        let first = index.due().expect("due");
        assert_eq!(first.range(), (0, 99), "nothing behind the start block");
        first.apply(Ok(vec![
            initialize(50, A, B, kept),
            initialize(95, A, B, reorged),
            initialize(97, A, B, moved),
        ]));
        let reorged_id = uniswap_v4_id(reorged);
        assert!(index.pool(reorged_id).is_some());
        assert_eq!(
            index.complete_before(),
            Some(90),
            "the last 10 blocks may move"
        );
        index.observe_head(150);
        let second = index.due().expect("due");
        assert_eq!(
            second.range(),
            (90, 150),
            "10 blocks behind the cursor again"
        );
        // The chain reorganised: block 95's Initialize is gone, block 97's is now in 120.
        second.apply(Ok(vec![initialize(120, A, B, moved)]));
        assert_eq!(index.shapes(A, B).shapes, [kept, moved]);
        assert_eq!(index.pool(reorged_id), None);
        assert!(index.pool(uniswap_v4_id(moved)).is_some());
        assert_eq!(index.status().pools, 2);
        assert_eq!(index.status().read_to, Some(150));
        // A range never reads more again than half its length, so it always advances.
        let short = V4PoolIndex::new(V4IndexConfig {
            reorg_overlap_blocks: 1_000,
            ..config(0, 8)
        });
        short.observe_head(100);
        short.due().expect("due").apply(Ok(Vec::new()));
        assert_eq!(short.due().map(|r| r.range()), Some((4, 11)));
    }

    fn uniswap_v4_id(shape: V4Shape) -> B256 {
        super::super::uniswap_v4::pool_id(&shape.key(A, B))
    }

    #[test]
    fn the_caps_bound_the_pools_kept_and_the_shapes_offered() {
        let index = V4PoolIndex::new(V4IndexConfig {
            max_pools: 3,
            max_shapes_per_pair: 2,
            ..config(0, 1_000)
        });
        index.observe_head(10);
        let logs = (1..=4)
            .map(|i| initialize(i, A, B, V4Shape::plain(100 * i as u32, 1)))
            .collect();
        index.due().expect("due").apply(Ok(logs));
        let pair = index.shapes(A, B);
        assert_eq!(pair.known, 3);
        assert_eq!(
            pair.shapes,
            [V4Shape::plain(100, 1), V4Shape::plain(200, 1)],
            "the earliest"
        );
        assert_eq!(index.status().dropped, 1);
        assert_eq!(
            index.complete_before(),
            None,
            "a full index proves no absence"
        );
    }
}
