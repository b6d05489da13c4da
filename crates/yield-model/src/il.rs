//! Impermanent loss: the value of a liquidity position against holding the tokens deposited,
//! for a price ratio `r` (the price of token A in token B relative to the entry price).
//! Floating point: these are estimates on a model, printed as such.

use serde::Serialize;

use crate::YieldModelError;

/// Price ratios of the scenario table.
pub const SCENARIO_RATIOS: [f64; 7] = [0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0];

/// Range half-widths (percent of the entry price) whose in-range share is reported for
/// concentrated pools.
pub const RANGE_HALF_WIDTHS_PCT: [f64; 3] = [5.0, 10.0, 25.0];

/// Constant-product impermanent loss at price ratio `r`: `2√r / (1 + r) − 1` (a fraction,
/// `−0.0572…` at `r = 2`). `r` must be positive.
pub fn constant_product_il(r: f64) -> f64 {
    2.0 * r.sqrt() / (1.0 + r) - 1.0
}

/// Impermanent loss at price ratio `r` of a concentrated position opened at ratio 1 on the
/// range `[lower, upper]` (ratios, `lower ≤ 1 ≤ upper`): the position's amounts follow
/// Uniswap V3's `x = L(1/√p − 1/√b)`, `y = L(√p − √a)` with `√p` clamped to the range, and
/// its value is compared with holding the amounts deposited at ratio 1. With `lower → 0` and
/// `upper → ∞` it is [`constant_product_il`].
pub fn concentrated_il(r: f64, lower: f64, upper: f64) -> f64 {
    let (sa, sb) = (lower.sqrt(), upper.sqrt());
    let amounts = |p: f64| {
        let s = p.sqrt().clamp(sa, sb);
        let x = if sb.is_infinite() {
            1.0 / s
        } else {
            1.0 / s - 1.0 / sb
        };
        (x, s - sa)
    };
    let (x0, y0) = amounts(1.0);
    let (x, y) = amounts(r);
    let held = x0 * r + y0;
    (x * r + y) / held - 1.0
}

/// One row of the scenario table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scenario {
    /// Price of token A in token B relative to entry.
    pub price_ratio: f64,
    /// Constant-product impermanent loss, percent.
    pub il_pct: f64,
}

/// [`constant_product_il`] at each of [`SCENARIO_RATIOS`], in percent.
pub fn scenario_table() -> Vec<Scenario> {
    SCENARIO_RATIOS
        .iter()
        .map(|&price_ratio| Scenario {
            price_ratio,
            il_pct: constant_product_il(price_ratio) * 100.0,
        })
        .collect()
}

/// One point of a price path: both tokens' USD prices at one time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PathPoint {
    /// Unix seconds.
    pub timestamp: u64,
    /// Token A in USD.
    pub price_a_usd: f64,
    /// Token B in USD.
    pub price_b_usd: f64,
}

impl PathPoint {
    fn a_in_b(&self) -> f64 {
        self.price_a_usd / self.price_b_usd
    }
}

/// The share of a path a ±x % range around the first point's price stayed in range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RangeShare {
    /// Half-width of the range, percent of the entry price.
    pub half_width_pct: f64,
    /// Intervals between consecutive points whose start was in range, over all intervals,
    /// percent (time-weighted on the points' own times).
    pub in_range_pct: f64,
    /// Impermanent loss at the path's end of a position on that range, percent.
    pub il_at_end_pct: f64,
}

/// Impermanent loss along a path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathIl {
    /// The first point (the entry).
    pub first: PathPoint,
    /// The last point.
    pub last: PathPoint,
    /// Points on the path.
    pub points: usize,
    /// Price ratio (A in B) at the end relative to the entry.
    pub price_ratio_at_end: f64,
    /// Constant-product IL at the end, percent.
    pub il_at_end_pct: f64,
    /// The most negative constant-product IL at any point, percent.
    pub worst_il_pct: f64,
    /// When it was.
    pub worst_at: u64,
}

fn checked(points: &[PathPoint]) -> Result<(), YieldModelError> {
    if points.len() < 2 {
        return Err(YieldModelError::ShortPath(points.len()));
    }
    if let Some(bad) = points.iter().find(|p| {
        !(p.price_a_usd.is_finite()
            && p.price_b_usd.is_finite()
            && p.price_a_usd > 0.0
            && p.price_b_usd > 0.0)
    }) {
        return Err(YieldModelError::BadPrice(bad.timestamp));
    }
    if points.windows(2).any(|w| w[1].timestamp <= w[0].timestamp) {
        return Err(YieldModelError::Unordered);
    }
    Ok(())
}

/// Constant-product IL over `points` (oldest first, at least two, prices positive), entering
/// at the first point.
pub fn path_il(points: &[PathPoint]) -> Result<PathIl, YieldModelError> {
    checked(points)?;
    let (first, last) = (points[0], points[points.len() - 1]);
    let entry = first.a_in_b();
    let mut worst = (0.0f64, first.timestamp);
    for point in points {
        let il = constant_product_il(point.a_in_b() / entry);
        if il < worst.0 {
            worst = (il, point.timestamp);
        }
    }
    let ratio = last.a_in_b() / entry;
    Ok(PathIl {
        first,
        last,
        points: points.len(),
        price_ratio_at_end: ratio,
        il_at_end_pct: constant_product_il(ratio) * 100.0,
        worst_il_pct: worst.0 * 100.0,
        worst_at: worst.1,
    })
}

/// For a range of ±`half_width_pct` around the first point's price: the time-weighted share of
/// the path in range, and the range position's IL at the end.
pub fn in_range_share(
    points: &[PathPoint],
    half_width_pct: f64,
) -> Result<RangeShare, YieldModelError> {
    checked(points)?;
    if !(half_width_pct > 0.0 && half_width_pct < 100.0) {
        return Err(YieldModelError::BadRange(half_width_pct));
    }
    let entry = points[0].a_in_b();
    let (lower, upper) = (1.0 - half_width_pct / 100.0, 1.0 + half_width_pct / 100.0);
    let in_range = |p: &PathPoint| (lower..=upper).contains(&(p.a_in_b() / entry));
    let mut inside = 0u64;
    let mut total = 0u64;
    for w in points.windows(2) {
        let span = w[1].timestamp - w[0].timestamp;
        total += span;
        if in_range(&w[0]) {
            inside += span;
        }
    }
    let last = points[points.len() - 1].a_in_b() / entry;
    Ok(RangeShare {
        half_width_pct,
        in_range_pct: inside as f64 / total as f64 * 100.0,
        il_at_end_pct: concentrated_il(last, lower, upper) * 100.0,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn closed_forms() {
        // r = 2: 2√2/3 − 1 = −5.719 %.
        assert!((constant_product_il(2.0) * 100.0 + 5.719_095_841).abs() < 1e-6);
        // r = 0.5 is the same loss as r = 2 (the formula is symmetric in r ↔ 1/r).
        assert!((constant_product_il(0.5) - constant_product_il(2.0)).abs() < 1e-15);
        assert_eq!(constant_product_il(1.0), 0.0);
        // r = 4: 2·2/5 − 1 = −20 %.
        assert!((constant_product_il(4.0) + 0.2).abs() < 1e-15);
        let table = scenario_table();
        assert_eq!(table.len(), 7);
        assert!((table[6].il_pct + 5.719_095_841).abs() < 1e-6);
        assert!((table[1].il_pct + 1.025_668_138).abs() < 1e-6);
    }

    #[test]
    fn concentrated_range_loses_more_and_stops_at_the_edge() {
        // Inside the range the loss is larger than full range: r = 1.05 on ±10 %.
        let narrow = concentrated_il(1.05, 0.9, 1.1);
        assert!(narrow < constant_product_il(1.05));
        // Beyond the upper edge the position is all token B: its value stops growing.
        let at_edge = concentrated_il(1.1, 0.9, 1.1);
        let beyond = concentrated_il(2.0, 0.9, 1.1);
        assert!(beyond < at_edge);
    }

    fn point(t: u64, a: f64) -> PathPoint {
        PathPoint {
            timestamp: t,
            price_a_usd: a,
            price_b_usd: 1.0,
        }
    }

    #[test]
    fn path_figures() {
        let path = [point(0, 100.0), point(10, 200.0), point(20, 120.0)];
        let il = path_il(&path).expect("path");
        assert!((il.worst_il_pct - constant_product_il(2.0) * 100.0).abs() < 1e-12);
        assert_eq!(il.worst_at, 10);
        assert!((il.price_ratio_at_end - 1.2).abs() < 1e-12);
        // In range (±25 %) only during the first interval: 10 s of 20.
        let share = in_range_share(&path, 25.0).expect("share");
        assert!((share.in_range_pct - 50.0).abs() < 1e-12);
        assert!(path_il(&path[..1]).is_err());
        assert!(path_il(&[point(0, 1.0), point(0, 2.0)]).is_err());
        assert!(path_il(&[point(0, 1.0), point(1, -2.0)]).is_err());
    }

    proptest! {
        #[test]
        fn full_range_is_constant_product(r in 0.01f64..100.0) {
            let full = concentrated_il(r, 0.0, f64::INFINITY);
            prop_assert!((full - constant_product_il(r)).abs() < 1e-12, "{full} at {r}");
            // A very wide finite range converges to it too.
            let wide = concentrated_il(r, 1e-12, 1e12);
            prop_assert!((wide - constant_product_il(r)).abs() < 1e-5, "{wide} at {r}");
        }

        #[test]
        fn il_is_never_a_gain_and_symmetric(r in 0.001f64..1000.0) {
            let il = constant_product_il(r);
            prop_assert!(il <= 1e-15);
            prop_assert!((il - constant_product_il(1.0 / r)).abs() < 1e-12);
        }

        #[test]
        fn narrower_ranges_lose_more(r in 0.5f64..2.0, w in 0.01f64..0.5) {
            let narrow = concentrated_il(r, 1.0 - w, 1.0 + w);
            let wider = concentrated_il(r, (1.0 - w) / 2.0, (1.0 + w) * 2.0);
            prop_assert!(narrow <= wider + 1e-12);
        }
    }
}
