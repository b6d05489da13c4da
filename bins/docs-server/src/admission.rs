//! Admission control for the extraction workers (docs/decisions.md, "Admission control"): a
//! paid request is accepted only if the work already admitted plus its own would finish inside
//! its time budget. Otherwise it is answered 503 `busy` with `Retry-After` before its payment is
//! verified, so a payment is never taken for work that could only time out in the queue.
//!
//! The estimate is in seconds of one Tesseract engine:
//!
//! - a request costs the sum of its pages (`workers.ocr_page_seconds` per OCR page or picture,
//!   `workers.text_layer_page_seconds` per text-layer page), times a measured factor;
//! - it waits for the admitted backlog to drain over every engine of every extraction worker
//!   (`backlog / (workers × engines)`), then runs on one worker's engines
//!   (`cost / engines`, at least its longest page);
//! - it is admitted when that sum is within [`HEADROOM`] of the budget, or when nothing else is
//!   admitted (a request too large on its own is warned about in its 402 and never waits
//!   behind anyone, so refusing it as `busy` would only make the caller retry in vain).
//!
//! The factor starts at 1 and follows (exponentially weighted) the ratio of the measured to the
//! estimated time, queue included, of every request that ran in a worker, so a slower, faster
//! or busier machine corrects the configured per-page times. It rises faster than it falls:
//! an estimate too low costs payers a 504, one too high only a `busy`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The share of the time budget the estimate may fill: the rest absorbs the estimate's error.
pub const HEADROOM: f64 = 0.8;

/// Weight of a new measurement in the factor when it raises it, and when it lowers it.
const MEASURE_WEIGHT: (f64, f64) = (0.5, 0.2);

/// Bounds of the factor: one odd measurement cannot make the queue admit everything or nothing.
const FACTOR_BOUNDS: (f64, f64) = (0.2, 10.0);

/// What a request's pages cost, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageWork {
    /// A page or picture to recognise.
    Ocr,
    /// A page read from its text layer.
    TextLayer,
}

/// The extraction workers' queue, as far as admission needs to know it.
#[derive(Debug)]
pub struct WorkQueue {
    /// Extraction workers × engines per worker: pages recognised at once.
    slots: f64,
    /// Engines per worker: pages of one request recognised at once.
    engines: f64,
    ocr_page_seconds: f64,
    text_layer_page_seconds: f64,
    state: Mutex<QueueState>,
}

#[derive(Debug)]
struct QueueState {
    /// Engine-seconds (unscaled) of every admitted request not finished yet.
    backlog: f64,
    /// Admitted requests not finished yet.
    admitted: usize,
    /// Measured ÷ estimated time.
    factor: f64,
}

/// Why a request was not admitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Busy {
    /// Seconds after which the backlog should have drained enough.
    pub retry_after: u64,
    /// The estimated time to the end of the request, seconds.
    pub estimate: f64,
}

impl WorkQueue {
    /// A queue over `workers` extraction workers of `engines` engines each.
    pub fn new(
        workers: usize,
        engines: usize,
        ocr_page_seconds: f64,
        text_layer_page_seconds: f64,
    ) -> Self {
        let engines = engines.max(1) as f64;
        Self {
            slots: workers.max(1) as f64 * engines,
            engines,
            ocr_page_seconds: ocr_page_seconds.max(0.0),
            text_layer_page_seconds: text_layer_page_seconds.max(0.0),
            state: Mutex::new(QueueState {
                backlog: 0.0,
                admitted: 0,
                factor: 1.0,
            }),
        }
    }

    fn page_seconds(&self, page: PageWork) -> f64 {
        match page {
            PageWork::Ocr => self.ocr_page_seconds,
            PageWork::TextLayer => self.text_layer_page_seconds,
        }
    }

    /// Unscaled engine-seconds of `pages`, and the run time on one worker.
    fn cost(&self, pages: &[PageWork]) -> (f64, f64) {
        let total: f64 = pages.iter().map(|p| self.page_seconds(*p)).sum();
        let longest = pages
            .iter()
            .map(|p| self.page_seconds(*p))
            .fold(0.0, f64::max);
        (total, (total / self.engines).max(longest))
    }

    /// The estimated seconds until a request of `pages` admitted now would finish.
    pub fn estimate(&self, pages: &[PageWork]) -> f64 {
        let state = self.lock();
        self.estimate_locked(&state, pages)
    }

    fn estimate_locked(&self, state: &QueueState, pages: &[PageWork]) -> f64 {
        let (_, run) = self.cost(pages);
        (state.backlog / self.slots + run) * state.factor
    }

    fn verdict(
        &self,
        state: &QueueState,
        pages: &[PageWork],
        budget: Duration,
    ) -> Result<(), Busy> {
        let estimate = self.estimate_locked(state, pages);
        let limit = budget.as_secs_f64() * HEADROOM;
        if estimate <= limit || state.admitted == 0 {
            return Ok(());
        }
        let retry_after = (estimate - limit)
            .ceil()
            .clamp(1.0, budget.as_secs_f64().max(1.0));
        Err(Busy {
            retry_after: retry_after as u64,
            estimate,
        })
    }

    /// Whether a request of `pages` would be admitted now, without admitting it (for a request
    /// that only asks for its price).
    pub fn check(&self, pages: &[PageWork], budget: Duration) -> Result<(), Busy> {
        let state = self.lock();
        self.verdict(&state, pages, budget)
    }

    /// Admits a request of `pages` with `budget`: its share of the backlog is held until the
    /// returned reservation is dropped.
    pub fn admit(
        self: &Arc<Self>,
        pages: &[PageWork],
        budget: Duration,
    ) -> Result<Reservation, Busy> {
        let mut state = self.lock();
        self.verdict(&state, pages, budget)?;
        let (total, run) = self.cost(pages);
        let predicted = state.backlog / self.slots + run;
        state.backlog += total;
        state.admitted += 1;
        Ok(Reservation {
            queue: self.clone(),
            total,
            predicted,
            since: Instant::now(),
        })
    }

    /// The measured ÷ estimated factor in force.
    pub fn factor(&self) -> f64 {
        self.lock().factor
    }

    /// Requests admitted and not finished.
    pub fn admitted(&self) -> usize {
        self.lock().admitted
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An admitted request's place in the backlog, given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    queue: Arc<WorkQueue>,
    total: f64,
    /// The unscaled estimate made at admission: wait plus run, engine-seconds.
    predicted: f64,
    since: Instant,
}

impl Reservation {
    /// The work ran to its end in a worker (not from the cache): its time, queue included,
    /// corrects the factor.
    pub fn completed(&self) {
        if self.predicted <= 0.0 {
            return;
        }
        let ratio = self.since.elapsed().as_secs_f64() / self.predicted;
        let mut state = self.queue.lock();
        let weight = if ratio > state.factor {
            MEASURE_WEIGHT.0
        } else {
            MEASURE_WEIGHT.1
        };
        let factor = state.factor * (1.0 - weight) + ratio * weight;
        state.factor = factor.clamp(FACTOR_BOUNDS.0, FACTOR_BOUNDS.1);
    }
}

/// Gives `reservation` back once its request is answered, learning from the answer's time when
/// a worker produced it (`X-Cache: miss`); a cache hit or a failure teaches nothing.
pub fn release_after(
    reservation: Option<Reservation>,
    answer: &Result<axum::response::Response, server_kit::error::ApiError>,
) {
    if let (Some(reservation), Ok(response)) = (&reservation, answer)
        && response
            .headers()
            .get("x-cache")
            .is_some_and(|v| v == "miss")
    {
        reservation.completed();
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut state = self.queue.lock();
        state.backlog = (state.backlog - self.total).max(0.0);
        state.admitted = state.admitted.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Duration = Duration::from_secs(20);

    fn queue() -> Arc<WorkQueue> {
        // Two workers of one engine, 4 s per OCR page.
        Arc::new(WorkQueue::new(2, 1, 4.0, 0.5))
    }

    #[test]
    fn admits_until_the_backlog_would_overrun_the_budget() {
        let q = queue();
        let three = [PageWork::Ocr; 3];
        // 12 s alone; then 6 + 12, 12 + 12 (over 16 s): the third is busy.
        let first = q.admit(&three, BUDGET).expect("alone");
        assert_eq!(q.estimate(&three), 18.0);
        let second = q.check(&three, BUDGET);
        assert!(second.is_err(), "18 s > 16 s");
        let one = [PageWork::Ocr];
        let small = q.admit(&one, BUDGET).expect("6 + 4 = 10 s");
        let busy = q.admit(&three, BUDGET).expect_err("8 + 12 = 20 s");
        assert_eq!(busy.retry_after, 4);
        assert_eq!(q.admitted(), 2);
        drop(first);
        drop(small);
        assert_eq!(q.admitted(), 0);
        assert!(q.admit(&three, BUDGET).is_ok(), "drained");
    }

    #[test]
    fn a_request_too_large_alone_is_admitted_when_nothing_waits() {
        let q = queue();
        let fifty = [PageWork::Ocr; 50];
        let alone = q.admit(&fifty, BUDGET).expect("nothing else admitted");
        assert!(q.admit(&[PageWork::Ocr], BUDGET).is_err(), "behind 200 s");
        drop(alone);
    }

    #[test]
    fn text_layer_pages_are_cheap_and_the_factor_follows_measurements() {
        let q = queue();
        let text = [PageWork::TextLayer; 20];
        assert_eq!(q.estimate(&text), 10.0);
        let r = q.admit(&[PageWork::Ocr], BUDGET).expect("alone");
        // Finished at once: 0 s measured against 4 s estimated pulls the factor down.
        r.completed();
        drop(r);
        assert!(q.factor() < 1.0, "{}", q.factor());
        assert!(q.factor() >= FACTOR_BOUNDS.0);
    }
}
