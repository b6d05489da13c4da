//! The conservative APY (trailing seven daily `apyBase` points) and the fee APR recomputed from
//! 24 h volume, fee tier and TVL.

use std::collections::BTreeMap;

use crate::YieldModelError;
use crate::figure;
use decimal_units::Decimal;

/// Daily points the conservative APY is the mean of.
pub const TRAILING_DAYS: usize = 7;

const DAY: u64 = 86_400;

/// One point of the directory's history: its time and its base APY (percent), if given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyApy {
    /// Unix seconds.
    pub timestamp: u64,
    /// Base APY, percent; `None` where the directory gave none.
    pub apy_base: Option<Decimal>,
}

/// The trailing seven-day base APY and what it is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConservativeApy {
    /// Mean of the last seven daily base APY points, percent (exact, rounded toward zero at 18
    /// places); null when fewer than seven exist.
    pub value_pct: Option<Decimal>,
    /// The UTC dates whose points were used, oldest first.
    pub dates_used: Vec<String>,
    /// Calendar days between the first and last date used that have no point (the seven
    /// points are the latest seven the directory has, not seven consecutive days).
    pub missing_days_in_span: Vec<String>,
    /// Days whose points carry no base APY and were skipped.
    pub days_without_apy_base: Vec<String>,
    /// Days with a base APY in the whole history.
    pub days_available: usize,
    /// Why `value_pct` is null.
    pub null_reason: Option<String>,
}

/// `YYYY-MM-DD` of a Unix day number (days since 1970-01-01), proleptic Gregorian.
pub fn utc_date(unix_seconds: u64) -> String {
    // Howard Hinnant's civil_from_days.
    let z = i64::try_from(unix_seconds / DAY).unwrap_or(i64::MAX / 2) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The mean of the last [`TRAILING_DAYS`] daily base APY points of `history` (any order). A
/// day with several points counts once, with its latest point; a day whose latest point has no
/// base APY is skipped and listed.
pub fn conservative_apy(history: &[DailyApy]) -> Result<ConservativeApy, YieldModelError> {
    let mut by_day: BTreeMap<u64, DailyApy> = BTreeMap::new();
    for point in history {
        let day = point.timestamp / DAY;
        match by_day.get(&day) {
            Some(kept) if kept.timestamp > point.timestamp => {}
            _ => {
                by_day.insert(day, *point);
            }
        }
    }
    let days_without_apy_base: Vec<String> = by_day
        .values()
        .filter(|p| p.apy_base.is_none())
        .map(|p| utc_date(p.timestamp))
        .collect();
    let with_apy: Vec<(u64, Decimal)> = by_day
        .iter()
        .filter_map(|(day, p)| p.apy_base.map(|apy| (*day, apy)))
        .collect();
    let days_available = with_apy.len();
    if days_available < TRAILING_DAYS {
        return Ok(ConservativeApy {
            value_pct: None,
            dates_used: Vec::new(),
            missing_days_in_span: Vec::new(),
            days_without_apy_base,
            days_available,
            null_reason: Some(format!(
                "the directory's history has {days_available} daily base APY point(s); {TRAILING_DAYS} are needed"
            )),
        });
    }
    let used = &with_apy[days_available - TRAILING_DAYS..];
    let mut sum = Decimal::ZERO;
    for (_, apy) in used {
        sum = figure::add(sum, *apy)?;
    }
    let count = i64::try_from(TRAILING_DAYS).map_err(|_| YieldModelError::Overflow)?;
    let mean = figure::div(sum, Decimal::from_int(count))?;
    let first = used.first().map_or(0, |(d, _)| *d);
    let last = used.last().map_or(0, |(d, _)| *d);
    let missing_days_in_span = (first..=last)
        .filter(|day| !used.iter().any(|(d, _)| d == day))
        .map(|day| utc_date(day * DAY))
        .collect();
    Ok(ConservativeApy {
        value_pct: Some(mean),
        dates_used: used.iter().map(|(day, _)| utc_date(day * DAY)).collect(),
        missing_days_in_span,
        days_without_apy_base,
        days_available,
        null_reason: None,
    })
}

/// `volume_24h × fee × 365 / tvl × 100`: the fee APR in percent, with the fee in parts per
/// million (500 = 0.05 %). Exact; one rounding toward zero at 18 places.
pub fn fee_apr_pct(
    volume_24h: Decimal,
    fee_ppm: u32,
    tvl: Decimal,
) -> Result<Decimal, YieldModelError> {
    if tvl.is_zero() || tvl.is_negative() {
        return Err(YieldModelError::NonPositiveTvl(tvl.to_string()));
    }
    // fee_ppm / 10^6 × 365 × 100 = fee_ppm × 36500 / 10^6, so one division by tvl × 10^6.
    let numerator = figure::mul(volume_24h, Decimal::from_int(i64::from(fee_ppm) * 36_500))?;
    let denominator = figure::mul(tvl, Decimal::from_int(1_000_000))?;
    figure::div(numerator, denominator)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(text: &str) -> Decimal {
        figure::parse(text).expect(text)
    }

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(951_782_400), "2000-02-29");
        assert_eq!(utc_date(1_767_409_742), "2026-01-03");
    }

    fn day(n: u64, apy: Option<&str>) -> DailyApy {
        // 2026-01-01T23:00:00Z plus n days.
        DailyApy {
            timestamp: 1_767_308_400 + n * DAY,
            apy_base: apy.map(x),
        }
    }

    #[test]
    fn seven_day_mean_with_missing_days() {
        // Ten days of history; days 3 and 6 absent, day 8's point has no apyBase, and day 9
        // has two points (the later one counts).
        let mut history = vec![
            day(0, Some("100")),
            day(1, Some("1.1")),
            day(2, Some("2.2")),
            day(4, Some("4.4")),
            day(5, Some("5.5")),
            day(7, Some("7.7")),
            day(8, None),
            day(9, Some("99")),
            DailyApy {
                timestamp: 1_767_308_400 + 9 * DAY + 600,
                apy_base: Some(x("9.9")),
            },
            day(10, Some("10")),
        ];
        history.reverse();
        let apy = conservative_apy(&history).expect("mean");
        // The last seven days with a figure: 1, 2, 4, 5, 7, 9, 10.
        // (1.1 + 2.2 + 4.4 + 5.5 + 7.7 + 9.9 + 10) / 7 = 40.8 / 7 = 5.828571428571428571…
        assert_eq!(
            apy.value_pct.expect("value").to_string(),
            "5.828571428571428571"
        );
        assert_eq!(
            apy.dates_used,
            [
                "2026-01-02",
                "2026-01-03",
                "2026-01-05",
                "2026-01-06",
                "2026-01-08",
                "2026-01-10",
                "2026-01-11"
            ]
        );
        assert_eq!(
            apy.missing_days_in_span,
            ["2026-01-04", "2026-01-07", "2026-01-09"]
        );
        assert_eq!(apy.days_without_apy_base, ["2026-01-09"]);
        assert_eq!(apy.days_available, 8);

        // The six newest points cover four days with a figure (10, 9, 7, 5).
        let short = conservative_apy(&history[..6]).expect("short");
        assert_eq!(short.value_pct, None);
        assert!(
            short
                .null_reason
                .as_deref()
                .is_some_and(|r| r.contains("4 daily base APY point(s); 7 are needed")),
            "{short:?}"
        );
    }

    #[test]
    fn fee_apr_is_exact() {
        // 1,000,000 USD a day at 0.05 % on 10,000,000 USD: 500 × 365 / 10^7 = 1.825 %.
        assert_eq!(
            fee_apr_pct(x("1000000"), 500, x("10000000")).expect("apr"),
            x("1.825")
        );
        // 123.45 × 0.003 × 365 × 100 / 6789 = 13517.775 / 6789 = 1.9911290322580645161…
        assert_eq!(
            fee_apr_pct(x("123.45"), 3000, x("6789"))
                .expect("apr")
                .to_string(),
            "1.991129032258064516"
        );
        assert!(fee_apr_pct(x("1"), 500, Decimal::ZERO).is_err());
    }
}
