//! The median over the rows with a price (USDT-quoted rows excluded), each row's deviation
//! from it, and the largest deviation among the rows the median is taken over.

use crate::Price;
use crate::row::{Flag, SourceRow};
use crate::thresholds::Thresholds;

/// What the rows add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The median of the included prices; `None` when no row has one.
    pub median: Option<Price>,
    /// How many prices the median is over.
    pub sources_in_median: usize,
    /// The largest `|deviation|` of an included row from the median, bps.
    pub max_deviation_bps: Option<f64>,
}

/// The median of `prices`: the middle value, or the exact mean of the two middle values for
/// an even count; `None` for none.
pub fn median(prices: &[Price]) -> Option<Price> {
    let mut sorted = prices.to_vec();
    sorted.sort_by(|a, b| a.compare(*b));
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => sorted[n / 2 - 1].midpoint(sorted[n / 2]),
    }
}

/// Whether a row's price may enter the median: it has one and is not USDT-quoted.
fn eligible(row: &SourceRow) -> bool {
    row.priced() && row.details.usdt_quoted != Some(true)
}

/// Marks the rows the median is over, sets every priced row's deviation from it (USDT-quoted
/// rows get theirs too, for information) and flags included rows beyond
/// `deviation_flag_bps`.
pub fn summarize(rows: &mut [SourceRow], thresholds: &Thresholds) -> Summary {
    let mut included = Vec::new();
    for row in rows.iter_mut() {
        let parsed = row.price.as_deref().map(Price::parse);
        match parsed {
            Some(Ok(price)) if eligible(row) => {
                row.in_median = true;
                included.push(price);
            }
            Some(Err(error)) => {
                // Unreachable for prices this crate printed; kept out rather than guessed.
                row.in_median = false;
                row.null_reason = Some(format!("price {:?} did not parse: {error}", row.price));
                row.price = None;
            }
            _ => row.in_median = false,
        }
    }
    let median = median(&included);
    let mut max: Option<f64> = None;
    if let Some(m) = median {
        for row in rows.iter_mut() {
            let Some(Ok(price)) = row.price.as_deref().map(Price::parse) else {
                continue;
            };
            let deviation = price.deviation_bps(m);
            row.deviation_from_median_bps = deviation;
            if let (true, Some(d)) = (row.in_median, deviation) {
                max = Some(max.map_or(d.abs(), |top: f64| top.max(d.abs())));
                if d.abs() > thresholds.deviation_flag_bps {
                    row.flags.push(Flag::new(
                        "deviates_from_median",
                        format!(
                            "{d} bps from the median {m}, beyond the {} bps threshold",
                            thresholds.deviation_flag_bps
                        ),
                    ));
                }
            }
        }
    }
    Summary {
        median,
        sources_in_median: included.len(),
        max_deviation_bps: max,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Kind;

    fn p(text: &str) -> Price {
        Price::parse(text).expect("price")
    }

    fn row(price: Option<&str>, usdt: bool) -> SourceRow {
        let mut row = SourceRow::new(Kind::Cex, "test", "ETH/USD");
        row.price = price.map(str::to_owned);
        if usdt {
            row.details.usdt_quoted = Some(true);
        }
        row
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[p("3")]), Some(p("3")));
        assert_eq!(
            median(&[p("3"), p("1"), p("2")]).map(|m| m.to_string()),
            Some("2".into())
        );
        assert_eq!(
            median(&[p("4"), p("1"), p("2"), p("3.5")]).map(|m| m.to_string()),
            Some("2.75".into())
        );
        assert_eq!(
            median(&[p("3086.18"), p("3086.19")]).map(|m| m.to_string()),
            Some("3086.185".into())
        );
    }

    #[test]
    fn usdt_quoted_and_failed_rows_stay_out_of_the_median() {
        let mut rows = vec![
            row(Some("3000"), false),
            row(Some("3010"), false),
            row(Some("3020"), false),
            row(Some("9999"), true),
            row(None, false),
        ];
        let summary = summarize(&mut rows, &Thresholds::default());
        assert_eq!(summary.median, Some(p("3010")));
        assert_eq!(summary.sources_in_median, 3);
        // 10/3010 · 10⁴ = 33.222… bps.
        assert_eq!(summary.max_deviation_bps, Some(33.22));
        assert!(!rows[3].in_median);
        assert!(
            rows[3].deviation_from_median_bps.is_some(),
            "shown, not counted"
        );
        assert!(rows[3].flags.is_empty(), "not flagged: not in the median");
        assert_eq!(rows[4].deviation_from_median_bps, None);
        assert!(!rows[4].in_median);
    }

    #[test]
    fn deviation_beyond_the_threshold_is_flagged() {
        let mut rows = vec![
            row(Some("100"), false),
            row(Some("100"), false),
            row(Some("102.5"), false),
            row(Some("99.5"), false),
        ];
        let summary = summarize(&mut rows, &Thresholds::default());
        assert_eq!(summary.median, Some(p("100")));
        assert_eq!(summary.max_deviation_bps, Some(250.0));
        assert_eq!(rows[2].flags.len(), 1);
        assert_eq!(rows[2].flags[0].flag, "deviates_from_median");
        assert!(rows[3].flags.is_empty(), "50 bps is within 100");
    }

    #[test]
    fn all_sources_failed_gives_no_median() {
        let mut rows = vec![row(None, false), row(Some("3000"), true)];
        let summary = summarize(&mut rows, &Thresholds::default());
        assert_eq!(summary.median, None);
        assert_eq!(summary.sources_in_median, 0);
        assert_eq!(summary.max_deviation_bps, None);
        assert_eq!(rows[1].deviation_from_median_bps, None);
    }
}
