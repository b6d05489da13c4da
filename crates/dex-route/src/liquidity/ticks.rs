//! The initialized ticks around the price of a concentrated-liquidity pool: TickLens words,
//! or bitmap words and then the ticks where the registry has no TickLens.

use super::*;

/// The initialized ticks of the bitmap words around the price, by TickLens or bitmap.
#[derive(Debug)]
pub(super) struct TickRead {
    pub(super) words: (i16, i16),
    pub(super) source: TickSource,
    pub(super) lens: Vec<concentrated::TickWordSlot>,
    pub(super) bitmap: Vec<concentrated::BitmapWordSlot>,
    pub(super) tick_spacing: i32,
    pub(super) marked: Option<Result<Vec<i32>, CallFailure>>,
    pub(super) ticks: Option<Result<BTreeMap<i32, i128>, CallFailure>>,
}

impl TickRead {
    /// Adds the reads of every word between the lowest and highest band target.
    pub(super) fn add(
        batch: &mut Batch,
        chain: &ChainInfo,
        pool: &Pool,
        sqrt_price_x96: U256,
        tick: i32,
        tick_spacing: i32,
        percents: &[u32],
    ) -> Self {
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
        let first = concentrated::word_of_tick(low_tick.min(tick), tick_spacing);
        let last = concentrated::word_of_tick(high_tick.max(tick), tick_spacing);
        let last = last.min(first.saturating_add(MAX_TICK_WORDS as i16 - 1));
        let lens = match chain.dex(pool.dex).map(|d| &d.contracts) {
            Some(DexContracts::ConcentratedLiquidity {
                tick_lens: Some(lens),
                ..
            }) => Some(*lens),
            _ => None,
        };
        let mut read = Self {
            words: (first, last),
            source: if lens.is_some() {
                TickSource::TickLens
            } else {
                TickSource::Bitmap
            },
            lens: Vec::new(),
            bitmap: Vec::new(),
            tick_spacing,
            marked: None,
            ticks: None,
        };
        for word in first..=last {
            match lens {
                Some(lens) => read.lens.push(concentrated::populated_ticks(
                    batch,
                    lens,
                    pool.address,
                    word,
                )),
                None => read
                    .bitmap
                    .push(concentrated::tick_bitmap_word(batch, pool.address, word)),
            }
        }
        read
    }

    /// Decodes the words from the batch they were added to.
    pub(super) fn settle(&mut self, results: &BatchResults) {
        if self.ticks.is_some() || self.marked.is_some() {
            return;
        }
        match self.source {
            TickSource::TickLens => {
                let mut ticks = BTreeMap::new();
                let decoded: Result<(), CallFailure> = self.lens.iter().try_for_each(|slot| {
                    for InitializedTick {
                        tick,
                        liquidity_net,
                    } in slot.decode(results)?
                    {
                        ticks.insert(tick, liquidity_net);
                    }
                    Ok(())
                });
                self.ticks = Some(decoded.map(|()| ticks));
            }
            TickSource::Bitmap => {
                let spacing = self.tick_spacing;
                self.marked = Some(
                    self.bitmap
                        .iter()
                        .map(|slot| slot.decode(results, spacing))
                        .collect::<Result<Vec<Vec<i32>>, _>>()
                        .map(|words| words.concat()),
                );
            }
        }
    }

    pub(super) fn needs_ticks(&self) -> bool {
        self.ticks.is_none() && matches!(self.marked, Some(Ok(_)))
    }

    pub(super) fn add_ticks(&self, batch: &mut Batch, pool: &Pool) -> Vec<concentrated::TickSlot> {
        match &self.marked {
            Some(Ok(ticks)) => ticks
                .iter()
                .map(|tick| concentrated::tick_info(batch, pool.address, *tick))
                .collect(),
            _ => Vec::new(),
        }
    }

    pub(super) fn settle_ticks(
        &mut self,
        results: &BatchResults,
        slots: Vec<concentrated::TickSlot>,
    ) {
        self.ticks = Some(
            slots
                .iter()
                .map(|slot| slot.decode(results).map(|t| (t.tick, t.liquidity_net)))
                .collect(),
        );
    }

    pub(super) fn finish(self) -> Result<(BTreeMap<i32, i128>, TickCoverage), RouteError> {
        let failed = |failure| RouteError::Call {
            what: "initialized ticks",
            failure,
        };
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
