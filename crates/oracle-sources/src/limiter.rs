//! A client-side budget per provider: at most `calls` requests in any window of `window`
//! (a sliding log, so no window of that length ever holds more, unlike a token bucket that
//! can pass twice its size around a refill), plus a pause the provider asked for with a 429.
//!
//! Calls beyond the budget **fail fast** instead of waiting: the analytics routes have latency
//! budgets of a few hundred milliseconds and a per-minute budget frees a slot only seconds
//! later, so waiting would spend the caller's whole budget on one foreign figure that the
//! answer can report as unavailable instead.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A provider's published limit, as this client keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Requests allowed per window.
    pub calls: usize,
    /// Window length.
    pub window: Duration,
}

impl Budget {
    /// `calls` per `seconds`.
    pub const fn per(calls: usize, seconds: u64) -> Self {
        Self {
            calls,
            window: Duration::from_secs(seconds),
        }
    }

    /// "30 calls per 60 s".
    pub fn describe(&self) -> String {
        format!("{} calls per {} s", self.calls, self.window.as_secs())
    }
}

#[derive(Debug)]
struct State {
    sent: VecDeque<Instant>,
    paused_until: Option<Instant>,
}

/// The sliding-window limiter of one provider.
#[derive(Debug)]
pub(crate) struct Limiter {
    budget: Budget,
    state: Mutex<State>,
}

impl Limiter {
    pub(crate) fn new(budget: Budget) -> Self {
        Self {
            budget,
            state: Mutex::new(State {
                sent: VecDeque::with_capacity(budget.calls),
                paused_until: None,
            }),
        }
    }

    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    /// Takes a slot now, or says how long until one frees (rounded up to whole seconds, at
    /// least 1).
    pub(crate) fn try_acquire(&self) -> Result<(), u64> {
        let now = Instant::now();
        // A poisoned lock only means another caller panicked mid-update of plain data; the
        // log is still usable.
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(until) = state.paused_until {
            if until > now {
                return Err(ceil_seconds(until - now));
            }
            state.paused_until = None;
        }
        while state
            .sent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= self.budget.window)
        {
            state.sent.pop_front();
        }
        if state.sent.len() >= self.budget.calls {
            let oldest = state.sent.front().copied().unwrap_or(now);
            return Err(ceil_seconds(
                (oldest + self.budget.window).saturating_duration_since(now),
            ));
        }
        state.sent.push_back(now);
        Ok(())
    }

    /// The provider answered 429: send nothing more until its `Retry-After` (or a whole
    /// window when it gave none) has passed.
    pub(crate) fn pause(&self, retry_after: Option<u64>) {
        let pause = retry_after.map_or(self.budget.window, Duration::from_secs);
        let until = Instant::now() + pause;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.paused_until = Some(state.paused_until.map_or(until, |u| u.max(until)));
    }
}

fn ceil_seconds(d: Duration) -> u64 {
    let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    s.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_beyond_the_budget_and_says_when() {
        let limiter = Limiter::new(Budget::per(3, 60));
        assert!(limiter.try_acquire().is_ok());
        assert!(limiter.try_acquire().is_ok());
        assert!(limiter.try_acquire().is_ok());
        let wait = limiter.try_acquire().expect_err("expected an error");
        assert!((59..=60).contains(&wait), "{wait}");
    }

    #[test]
    fn a_pause_blocks_even_with_slots_left() {
        let limiter = Limiter::new(Budget::per(100, 60));
        limiter.pause(Some(30));
        let wait = limiter.try_acquire().expect_err("expected an error");
        assert!((29..=30).contains(&wait), "{wait}");
    }
}
