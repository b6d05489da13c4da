//! The unpaid-request limiter: each client address may ask for terms (or fail verification) a
//! limited number of times per window before it gets 429. Paid requests are never counted.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::HeaderMap;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// How many unpaid requests per window one client gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnpaidAllowance {
    /// Requests allowed per window (also the burst).
    pub requests: u32,
    /// The window.
    pub window: Duration,
}

/// Keyed limiter over client addresses (GCRA: `requests` at once, refilled evenly over the
/// window, so it behaves like a sliding window without storing timestamps).
#[derive(Debug)]
pub struct UnpaidLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    checks: AtomicU64,
}

impl UnpaidLimiter {
    /// A limiter for `allowance` (a zero allowance is read as one).
    pub fn new(allowance: UnpaidAllowance) -> Self {
        let requests = NonZeroU32::new(allowance.requests).unwrap_or(NonZeroU32::MIN);
        let period = (allowance.window / requests.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(period)
            .map_or_else(|| Quota::per_second(requests), |q| q.allow_burst(requests));
        Self {
            limiter: RateLimiter::keyed(quota),
            checks: AtomicU64::new(0),
        }
    }

    /// Counts one unpaid request; `Err(seconds)` says how long the client must wait.
    pub fn check(&self, client: IpAddr) -> Result<(), u64> {
        // Forget idle clients now and then so memory tracks active clients only.
        if self.checks.fetch_add(1, Ordering::Relaxed) % 1024 == 1023 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        })
    }
}

/// The client's address: the socket peer, or the first `X-Forwarded-For` hop when the server
/// sits behind a proxy it trusts.
pub fn client_address(peer: SocketAddr, headers: &HeaderMap, trust_forwarded: bool) -> IpAddr {
    if trust_forwarded {
        let first_hop = headers
            .get("x-forwarded-for")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(',').next())
            .and_then(|hop| hop.trim().parse::<IpAddr>().ok());
        if let Some(address) = first_hop {
            return address;
        }
    }
    peer.ip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_the_allowance_then_refuses_with_a_wait() {
        let limiter = UnpaidLimiter::new(UnpaidAllowance {
            requests: 3,
            window: Duration::from_secs(60),
        });
        let client: IpAddr = "127.0.0.1".parse().expect("ip");
        let other: IpAddr = "127.0.0.2".parse().expect("ip");
        for _ in 0..3 {
            assert_eq!(limiter.check(client), Ok(()));
        }
        let wait = limiter.check(client).expect_err("over the allowance");
        assert!(
            (1..=20).contains(&wait),
            "one request refills in 20 s, got {wait}"
        );
        assert_eq!(limiter.check(other), Ok(()), "clients are counted apart");
    }

    #[test]
    fn forwarded_address_only_when_trusted() {
        let peer: SocketAddr = "10.0.0.1:5000".parse().expect("addr");
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 10.0.0.1".parse().expect("value"),
        );
        assert_eq!(client_address(peer, &headers, false), peer.ip());
        assert_eq!(
            client_address(peer, &headers, true),
            "203.0.113.9".parse::<IpAddr>().expect("ip")
        );
    }
}
