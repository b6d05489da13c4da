//! The two tick-bitmap walks a V3 swap quote depends on, over a map of initialized ticks
//! instead of the pool's packed bitmap: `TickBitmap.nextInitializedTickWithinOneWord` (core)
//! and `PoolTicksCounter.countInitializedTicksCrossed` (periphery, what QuoterV2 reports).
//!
//! A tick `t` (a multiple of the spacing) is initialized when it is a key of the map; its bit
//! lives at compressed index `t / spacing`, in word `index >> 8`, bit `index & 255`.

use std::collections::BTreeMap;

/// The next initialized tick in the same 256-tick bitmap word as `tick`, searching down
/// (`lte`: at or below the current tick) or up (strictly above), or the word's last tick
/// with `false` when the word has none. The result may lie outside `[MIN_TICK, MAX_TICK]`;
/// the pool clamps it.
pub fn next_initialized_tick_within_one_word(
    ticks: &BTreeMap<i32, i128>,
    tick: i32,
    tick_spacing: i32,
    lte: bool,
) -> (i32, bool) {
    let spacing = i64::from(tick_spacing);
    // Round towards negative infinity, as the library does for negative ticks.
    let mut compressed = i64::from(tick) / spacing;
    if tick < 0 && i64::from(tick) % spacing != 0 {
        compressed -= 1;
    }
    if lte {
        let bit_pos = compressed & 0xff;
        let word_start = (compressed - bit_pos) * spacing;
        let current = compressed * spacing;
        match ticks
            .range(to_i32(word_start)..=to_i32(current))
            .next_back()
        {
            Some((&next, _)) => (next, true),
            None => (to_i32(word_start), false),
        }
    } else {
        // The current tick's own state does not matter when moving up.
        let start = compressed + 1;
        let bit_pos = start & 0xff;
        let word_end = (start + 255 - bit_pos) * spacing;
        match ticks
            .range(to_i32(start * spacing)..=to_i32(word_end))
            .next()
        {
            Some((&next, _)) => (next, true),
            None => (to_i32(word_end), false),
        }
    }
}

/// Saturates where the library's int24 would wrap; only reachable with spacings far above
/// the factory's limit of 16384, which `PoolState` refuses.
fn to_i32(value: i64) -> i32 {
    i32::try_from(value).unwrap_or(if value < 0 { i32::MIN } else { i32::MAX })
}

/// How many initialized ticks QuoterV2 reports as crossed between `tick_before` and
/// `tick_after` (PoolTicksCounter.countInitializedTicksCrossed, v3-periphery 1.4.4):
/// the initialized ticks whose compressed index lies between the two ticks' indices
/// (inclusive), less the end tick when swapping down onto an initialized tick, and less the
/// start tick when swapping up from one.
///
/// Like the library, the compressed index here divides with truncation (towards zero), not
/// with the floor the pool uses, so for negative ticks that are not multiples of the spacing
/// the counted range is shifted by one; this is what QuoterV2 returns, and what is mirrored.
pub fn count_initialized_ticks_crossed(
    ticks: &BTreeMap<i32, i128>,
    tick_spacing: i32,
    tick_before: i32,
    tick_after: i32,
) -> u32 {
    let spacing = i64::from(tick_spacing);
    let (before, after) = (i64::from(tick_before), i64::from(tick_after));
    let index_before = before / spacing;
    let index_after = after / spacing;
    let initialized = |index: i64| ticks.contains_key(&to_i32(index * spacing));

    let after_counts_not =
        initialized(index_after) && after % spacing == 0 && tick_before > tick_after;
    let before_counts_not =
        initialized(index_before) && before % spacing == 0 && tick_before < tick_after;

    let (low, high) = if index_before <= index_after {
        (index_before, index_after)
    } else {
        (index_after, index_before)
    };
    let in_range = ticks
        .range(to_i32(low * spacing)..=to_i32(high * spacing))
        .count();
    let mut count = u32::try_from(in_range).unwrap_or(u32::MAX);
    // Each correction removes a tick the range above included, so neither can underflow.
    count = count.saturating_sub(u32::from(after_counts_not));
    count = count.saturating_sub(u32::from(before_counts_not));
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(list: &[i32]) -> BTreeMap<i32, i128> {
        list.iter().map(|&t| (t, 1)).collect()
    }

    #[test]
    fn search_down_includes_the_current_tick() {
        let map = ticks(&[-60, 0, 60, 120]);
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 60, 60, true),
            (60, true)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 59, 60, true),
            (0, true)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, -1, 60, true),
            (-60, true)
        );
        // -61 compresses to -2 (floor), so -60 is above it.
        assert_eq!(
            next_initialized_tick_within_one_word(&map, -61, 60, true),
            (-256 * 60, false)
        );
    }

    #[test]
    fn search_up_excludes_the_current_tick() {
        let map = ticks(&[-60, 0, 60, 120]);
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 60, 60, false),
            (120, true)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, -1, 60, false),
            (0, true)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, -61, 60, false),
            (-60, true)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 120, 60, false),
            (255 * 60, false)
        );
        // From the last bit of a word the search moves to the next word.
        assert_eq!(
            next_initialized_tick_within_one_word(&ticks(&[]), 255, 1, false),
            (511, false)
        );
    }

    #[test]
    fn words_do_not_leak() {
        let map = ticks(&[-257, 256]);
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 0, 1, true),
            (0, false)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, -1, 1, true),
            (-256, false)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 0, 1, false),
            (255, false)
        );
        assert_eq!(
            next_initialized_tick_within_one_word(&map, 255, 1, false),
            (256, true)
        );
    }

    #[test]
    fn quoter_counting_rules() {
        let map = ticks(&[-120, -60, 0, 60, 120]);
        // Up from an initialized tick: the start is not counted, the end is.
        assert_eq!(count_initialized_ticks_crossed(&map, 60, 0, 120), 2);
        // Down onto an initialized tick: the start is counted, the end is not.
        assert_eq!(count_initialized_ticks_crossed(&map, 60, 60, -60), 2);
        // Between ticks the start's own index counts too: 30 -> 90 reports 0 and 60, and a
        // move inside one spacing reports the tick below it.
        assert_eq!(count_initialized_ticks_crossed(&map, 60, 30, 90), 2);
        assert_eq!(count_initialized_ticks_crossed(&map, 60, 5, 6), 1);
        // Truncating division: -30 compresses to 0, so tick 0 is "between" -30 and 30.
        assert_eq!(count_initialized_ticks_crossed(&map, 60, -30, 30), 1);
        assert_eq!(count_initialized_ticks_crossed(&map, 60, -90, -30), 2);
    }
}
