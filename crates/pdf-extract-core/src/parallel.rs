//! Pages in parallel: a few scoped threads take the next page until none is left, results in
//! page order, and a cancellation flag checked before each page (CPU-bound work cannot be
//! interrupted in the middle of a page, so the time budget stops it between pages).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Runs `work` on every item on at most `workers` threads. An item not started before `cancel`
/// was set gives `None`.
pub fn map_in_order<T, R, F>(
    items: &[T],
    workers: usize,
    cancel: &AtomicBool,
    work: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else {
                        break;
                    };
                    if cancel.load(Ordering::Relaxed) {
                        continue;
                    }
                    let result = work(item);
                    if let Some(slot) = results.get(index) {
                        *slot
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(result);
                    }
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order() {
        let items: Vec<u32> = (0..50).collect();
        let out = map_in_order(&items, 3, &AtomicBool::new(false), |x| x * 2);
        assert_eq!(out, items.iter().map(|x| Some(x * 2)).collect::<Vec<_>>());
    }

    #[test]
    fn nothing_starts_once_cancelled() {
        let cancel = AtomicBool::new(true);
        let out = map_in_order(&[1, 2, 3], 2, &cancel, |x| *x);
        assert_eq!(out, vec![None, None, None]);
        assert!(map_in_order::<u8, u8, _>(&[], 4, &AtomicBool::new(false), |x| *x).is_empty());
    }
}
