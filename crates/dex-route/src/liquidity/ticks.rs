//! The initialized ticks around the price of a pool whose depth is a tick walk: the kind's
//! own word reads (TickLens, a pool's `tickBitmap`, StateView's `getTickBitmap`), then the
//! ticks the words marked where the words give no `liquidityNet`.

use super::*;
use crate::kinds::{Decode, WordRead};

/// The initialized ticks of the bitmap words around the price.
#[derive(Clone)]
pub(super) struct TickRead {
    pub(super) words: (i16, i16),
    pub(super) source: TickSource,
    reads: Result<Vec<WordRead>, RouteError>,
    pub(super) tick_spacing: i32,
    pub(super) marked: Option<Result<Vec<i32>, CallFailure>>,
    pub(super) ticks: Option<Result<BTreeMap<i32, i128>, CallFailure>>,
}

impl std::fmt::Debug for TickRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TickRead")
            .field("words", &self.words)
            .field("source", &self.source)
            .field("tick_spacing", &self.tick_spacing)
            .finish_non_exhaustive()
    }
}

/// The pending `liquidityNet` reads of the ticks the words marked.
pub(super) type TickNets = Vec<Decode<Result<(i32, i128), CallFailure>>>;

impl TickRead {
    /// Adds the reads of every word between the lowest and highest band target (and as many
    /// more on each side as the kind's exits need).
    pub(super) fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        (sqrt_price_x96, tick, tick_spacing): (U256, i32, i32),
        percents: &[u32],
    ) -> Self {
        let kind = kinds::of_pool(pool);
        let widest = percents.iter().copied().max().unwrap_or(0);
        let (low_tick, high_tick) = depth::band_targets(sqrt_price_x96, widest)
            .ok()
            .and_then(|(low, high)| {
                Some((
                    dex_math::tick_math::get_tick_at_sqrt_ratio(low).ok()?,
                    dex_math::tick_math::get_tick_at_sqrt_ratio(high).ok()?,
                ))
            })
            .unwrap_or((tick, tick));
        let reach = kind.exit_reach_words();
        let lowest = concentrated::word_of_tick(dex_math::tick_math::MIN_TICK, tick_spacing);
        let highest = concentrated::word_of_tick(dex_math::tick_math::MAX_TICK, tick_spacing);
        let first = concentrated::word_of_tick(low_tick.min(tick), tick_spacing)
            .min(concentrated::word_of_tick(tick, tick_spacing).saturating_sub(reach))
            .max(lowest);
        let last = concentrated::word_of_tick(high_tick.max(tick), tick_spacing)
            .max(concentrated::word_of_tick(tick, tick_spacing).saturating_add(reach))
            .min(highest);
        let last = last.min(first.saturating_add(MAX_TICK_WORDS as i16 - 1));
        let reads = kind.tick_words(batch, chain, pool, (first, last));
        Self {
            words: (first, last),
            source: reads
                .as_ref()
                .map(|(source, _)| *source)
                .unwrap_or(TickSource::Bitmap),
            reads: reads.map(|(_, reads)| reads),
            tick_spacing,
            marked: None,
            ticks: None,
        }
    }

    /// Decodes the words from the batch they were added to.
    pub(super) fn settle(&mut self, results: &BatchResults) {
        if self.ticks.is_some() || self.marked.is_some() {
            return;
        }
        let Ok(reads) = &self.reads else {
            return;
        };
        let mut ticks = BTreeMap::new();
        let mut marked = Vec::new();
        let decoded: Result<(), CallFailure> = reads.iter().try_for_each(|read| {
            match read {
                WordRead::Populated(decode) => ticks.extend(decode(results)?),
                WordRead::Marked(decode) => marked.extend(decode(results)?),
            }
            Ok(())
        });
        let populated = reads
            .iter()
            .all(|read| matches!(read, WordRead::Populated(_)));
        match (decoded, populated) {
            (Ok(()), true) => self.ticks = Some(Ok(ticks)),
            (Ok(()), false) => self.marked = Some(Ok(marked)),
            (Err(failure), true) => self.ticks = Some(Err(failure)),
            (Err(failure), false) => self.marked = Some(Err(failure)),
        }
    }

    /// Whether the words read mark ticks whose `liquidityNet` takes one more round trip.
    pub(super) fn marks_ticks(&self) -> bool {
        matches!(&self.reads, Ok(reads) if reads.iter().any(|read| matches!(read, WordRead::Marked(_))))
    }

    pub(super) fn needs_ticks(&self) -> bool {
        self.ticks.is_none() && matches!(self.marked, Some(Ok(_)))
    }

    pub(super) fn add_ticks(&self, batch: &mut Batch, chain: &ChainInfo, pool: &Pool) -> TickNets {
        let kind = kinds::of_pool(pool);
        match &self.marked {
            Some(Ok(ticks)) => ticks
                .iter()
                .map(|tick| kind.tick_net(batch, chain, pool, *tick))
                .collect(),
            _ => Vec::new(),
        }
    }

    pub(super) fn settle_ticks(&mut self, results: &BatchResults, slots: TickNets) {
        self.ticks = Some(slots.iter().map(|slot| slot(results)).collect());
    }

    pub(super) fn finish(self) -> Result<(BTreeMap<i32, i128>, TickCoverage), RouteError> {
        let failed = |failure| RouteError::Call {
            what: "initialized ticks",
            failure,
        };
        self.reads?;
        let ticks = match (self.ticks, self.marked) {
            (Some(ticks), _) => ticks.map_err(failed)?,
            (None, Some(Err(failure))) => return Err(failed(failure)),
            _ => {
                return Err(RouteError::Call {
                    what: "initialized ticks",
                    failure: CallFailure::Decode("not read".to_owned()),
                });
            }
        };
        let coverage = TickCoverage {
            words: self.words,
            initialized_ticks: ticks.len(),
            source: self.source,
            tick_spacing: self.tick_spacing,
        };
        Ok((ticks, coverage))
    }
}
