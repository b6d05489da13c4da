//! Page selectors such as `1-3,5,8-`.
//!
//! Grammar: comma-separated items, each `N` (one page), `N-M` (inclusive, `N <= M`), `N-` (to the
//! last page) or `-M` (from the first page); blanks around items and dashes are ignored; pages
//! count from 1. Every page named must exist. Overlapping or repeated items are merged (a page is
//! processed, and paid for, once) and the result is in ascending page order, whatever the order
//! of the items: reading order across pages is the document's, and a selector cannot make a
//! page cost twice.

use std::collections::BTreeSet;

use crate::error::PdfError;

/// Longest selector accepted; anything longer is refused before parsing.
const MAX_SELECTOR_LEN: usize = 1024;

/// The pages a selector names, ascending and without duplicates; `None` (or a blank selector)
/// means every page. Fails on syntax errors, on pages outside `1..=page_count` and when more
/// than `max_selected` pages result.
pub fn select_pages(
    selector: Option<&str>,
    page_count: u32,
    max_selected: u32,
) -> Result<Vec<u32>, PdfError> {
    let Some(selector) = selector.filter(|s| !s.trim().is_empty()) else {
        if page_count > max_selected {
            return Err(PdfError::TooManyPages {
                selected: page_count,
                limit: max_selected,
            });
        }
        return Ok((1..=page_count).collect());
    };
    let invalid = |reason: String| PdfError::InvalidPageRange {
        selector: selector.chars().take(64).collect(),
        reason,
    };
    if selector.len() > MAX_SELECTOR_LEN {
        return Err(invalid(format!(
            "longer than {MAX_SELECTOR_LEN} characters"
        )));
    }
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for item in selector.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(invalid("empty item".into()));
        }
        let (first, last) = match item.split_once('-') {
            None => {
                let page = parse_page(item).map_err(|e| invalid(e.to_string()))?;
                (page, page)
            }
            Some((from, to)) => {
                let (from, to) = (from.trim(), to.trim());
                if from.is_empty() && to.is_empty() {
                    return Err(invalid(format!("{item:?} names no page")));
                }
                let first = if from.is_empty() {
                    1
                } else {
                    parse_page(from).map_err(|e| invalid(e.to_string()))?
                };
                let last = if to.is_empty() {
                    page_count
                } else {
                    parse_page(to).map_err(|e| invalid(e.to_string()))?
                };
                if !to.is_empty() && first > last {
                    return Err(invalid(format!("{item:?} runs backwards")));
                }
                (first, last)
            }
        };
        for page in [first, last] {
            if page > page_count {
                return Err(PdfError::PageOutOfRange { page, page_count });
            }
        }
        ranges.push((first, last));
    }
    // Counting before materialising keeps `1-4000000000` from allocating.
    let mut merged: Vec<(u32, u32)> = Vec::new();
    ranges.sort_unstable();
    for (first, last) in ranges {
        match merged.last_mut() {
            Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
            _ => merged.push((first, last)),
        }
    }
    let selected: u64 = merged.iter().map(|(a, b)| u64::from(b - a) + 1).sum();
    if selected > u64::from(max_selected) {
        return Err(PdfError::TooManyPages {
            selected: u32::try_from(selected).unwrap_or(u32::MAX),
            limit: max_selected,
        });
    }
    let pages: BTreeSet<u32> = merged.into_iter().flat_map(|(a, b)| a..=b).collect();
    Ok(pages.into_iter().collect())
}

/// Why one item of a selector names no page.
#[derive(Debug, thiserror::Error)]
enum BadPage {
    #[error("{0:?} is not a page number")]
    NotANumber(String),
    #[error("pages count from 1")]
    Zero,
    #[error("{0:?} is too large")]
    TooLarge(String),
}

fn parse_page(text: &str) -> Result<u32, BadPage> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadPage::NotANumber(text.to_owned()));
    }
    match text.parse::<u32>() {
        Ok(0) => Err(BadPage::Zero),
        Ok(page) => Ok(page),
        Err(_) => Err(BadPage::TooLarge(text.to_owned())),
    }
}

/// Formats pages as the shortest selector naming them (`1-3,5,8-9`); the inverse of
/// [`select_pages`] for ascending, duplicate-free input.
pub fn format_pages(pages: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = pages.iter().copied().peekable();
    while let Some(first) = iter.next() {
        let mut last = first;
        while iter.peek() == Some(&last.saturating_add(1)) && last < u32::MAX {
            last += 1;
            iter.next();
        }
        parts.push(if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn none_selects_every_page() {
        assert_eq!(select_pages(None, 3, 20), Ok(vec![1, 2, 3]));
        assert_eq!(select_pages(Some("  "), 2, 20), Ok(vec![1, 2]));
        assert_eq!(select_pages(None, 0, 20), Ok(vec![]));
    }

    #[test]
    fn items_and_open_ranges() {
        assert_eq!(
            select_pages(Some("1-3,5,8-"), 10, 20),
            Ok(vec![1, 2, 3, 5, 8, 9, 10])
        );
        assert_eq!(select_pages(Some("-2, 4 - 4"), 5, 20), Ok(vec![1, 2, 4]));
    }

    #[test]
    fn overlaps_and_duplicates_merge() {
        assert_eq!(
            select_pages(Some("5,1-3,2-4,3"), 9, 20),
            Ok(vec![1, 2, 3, 4, 5])
        );
    }

    #[test]
    fn syntax_errors() {
        for bad in [
            "a",
            "1,,2",
            "3-1",
            "-",
            "0",
            "1.5",
            "+1",
            "1-2-3",
            "1;2",
            "99999999999",
        ] {
            assert!(
                matches!(
                    select_pages(Some(bad), 10, 20),
                    Err(PdfError::InvalidPageRange { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn out_of_range_is_an_error() {
        assert_eq!(
            select_pages(Some("2-11"), 10, 20),
            Err(PdfError::PageOutOfRange {
                page: 11,
                page_count: 10
            })
        );
        assert!(matches!(
            select_pages(Some("1"), 0, 20),
            Err(PdfError::PageOutOfRange { .. })
        ));
    }

    #[test]
    fn too_many_pages() {
        assert_eq!(
            select_pages(None, 21, 20),
            Err(PdfError::TooManyPages {
                selected: 21,
                limit: 20
            })
        );
        assert_eq!(
            select_pages(Some("1-4000000000"), u32::MAX, 20),
            Err(PdfError::TooManyPages {
                selected: 4_000_000_000,
                limit: 20
            })
        );
        // A document longer than the limit is fine when the selection is within it.
        assert_eq!(select_pages(Some("30-31"), 100, 20), Ok(vec![30, 31]));
    }

    proptest! {
        #[test]
        fn never_panics(selector in ".{0,40}", count in 0u32..200, max in 0u32..50) {
            let _ = select_pages(Some(&selector), count, max);
        }

        #[test]
        fn never_panics_on_selector_like_input(selector in "[0-9, -]{0,30}", count in 0u32..200) {
            if let Ok(pages) = select_pages(Some(&selector), count, 200) {
                prop_assert!(pages.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(pages.iter().all(|p| (1..=count).contains(p)));
            }
        }

        #[test]
        fn format_round_trips(set in proptest::collection::btree_set(1u32..60, 0..20)) {
            let pages: Vec<u32> = set.into_iter().collect();
            let selector = format_pages(&pages);
            let parsed = select_pages(Some(&selector), 60, 60)?;
            if pages.is_empty() {
                // An empty selector means "every page".
                prop_assert_eq!(parsed.len(), 60);
            } else {
                prop_assert_eq!(parsed, pages);
            }
        }
    }
}
