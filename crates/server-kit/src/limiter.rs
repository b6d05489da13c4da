//! Who the client is, and how much it may ask for before paying.
//!
//! - [`ClientKey`]: the unit the limits count: an IPv4 address, or an IPv6 /64 (one
//!   subscriber usually holds a whole /64, so counting single IPv6 addresses would give one
//!   machine 2^64 allowances).
//! - [`ClientAddressing`]: the client's address from the socket peer, or behind trusted proxies
//!   the right-most `X-Forwarded-For` hop that no trusted proxy wrote (everything left of it
//!   was written by the client and proves nothing).
//! - [`UnpaidLimiter`]: the unpaid allowance per client (GCRA: `requests` at once, refilled
//!   evenly over the window), with a refund for requests that turn out to be paid.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;

/// How many requests per window one key gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnpaidAllowance {
    /// Requests allowed per window (also the burst).
    pub requests: u32,
    /// The window.
    pub window: Duration,
}

/// The key the per-client limits count: IPv4 addresses as they are (IPv4-mapped IPv6 too),
/// IPv6 addresses by their /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The key of `address`.
    pub fn of(address: IpAddr) -> Self {
        match address {
            IpAddr::V4(v4) => Self(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    Self(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }

    /// The address (for IPv6, the first address of the /64).
    pub fn address(&self) -> IpAddr {
        self.0
    }
}

impl fmt::Display for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is a /32 or
/// /128).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpNet {
    address: IpAddr,
    prefix: u8,
}

/// Text that is not an address range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an IP address or CIDR range")]
pub struct IpNetError(String);

impl FromStr for IpNet {
    type Err = IpNetError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || IpNetError(text.to_owned());
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let address: IpAddr = address.parse().map_err(|_| invalid())?;
        let max = if address.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(prefix) => prefix.parse::<u8>().map_err(|_| invalid())?,
            None => max,
        };
        if prefix > max {
            return Err(invalid());
        }
        Ok(Self { address, prefix })
    }
}

impl IpNet {
    /// Whether `address` is inside the range (IPv4-mapped IPv6 addresses count as IPv4).
    pub fn contains(&self, address: IpAddr) -> bool {
        let address = match address {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
            v4 => v4,
        };
        match (self.address, address) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// How the client's address is found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientAddressing {
    /// Read `X-Forwarded-For` at all (the server sits behind a proxy).
    pub trust_forwarded: bool,
    /// The proxies whose `X-Forwarded-For` entries are believed. Empty with
    /// `trust_forwarded`: the socket peer is the one trusted proxy.
    pub trusted_proxies: Vec<IpNet>,
}

impl ClientAddressing {
    fn trusts(&self, address: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|net| net.contains(address))
    }

    /// The client's address. Without `trust_forwarded`, the peer. Otherwise, when the peer is a
    /// trusted proxy (or no list is configured), the right-most `X-Forwarded-For` hop that is
    /// not itself a trusted proxy: each proxy appends the address it saw, so that hop is the
    /// last one written by someone we trust, while anything further left came from the client.
    /// A missing or unreadable hop falls back to the peer.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trust_forwarded {
            return peer;
        }
        if !self.trusted_proxies.is_empty() && !self.trusts(peer) {
            return peer;
        }
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .collect();
        for hop in hops.iter().rev() {
            let Ok(address) = hop.parse::<IpAddr>() else {
                return peer;
            };
            if self.trusted_proxies.is_empty() || !self.trusts(address) {
                return address;
            }
        }
        peer
    }
}

/// The client's address: the socket peer, or behind a trusted proxy (the peer) the right-most
/// `X-Forwarded-For` hop. [`ClientAddressing`] also takes a list of trusted proxies.
pub fn client_address(peer: SocketAddr, headers: &HeaderMap, trust_forwarded: bool) -> IpAddr {
    ClientAddressing {
        trust_forwarded,
        trusted_proxies: Vec::new(),
    }
    .client(peer.ip(), headers)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update below is a single insert, remove or assignment: a poisoned map is still
    // consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A keyed GCRA allowance with refunds: each key's state is the time its allowance is fully
/// used up to ("theoretical arrival time"); a take moves it one period later, a refund one
/// period back.
#[derive(Debug)]
pub(crate) struct Allowance<K> {
    period: Duration,
    tolerance: Duration,
    entries: Mutex<HashMap<K, Instant>>,
    takes: AtomicU64,
}

impl<K: Eq + Hash + Copy> Allowance<K> {
    pub(crate) fn new(allowance: UnpaidAllowance) -> Self {
        let requests = allowance.requests.max(1);
        let period = (allowance.window / requests).max(Duration::from_nanos(1));
        Self {
            period,
            tolerance: period * (requests - 1),
            entries: Mutex::new(HashMap::new()),
            takes: AtomicU64::new(0),
        }
    }

    /// Takes one unit; `Err(seconds)` says how long until one is free.
    pub(crate) fn take(&self, key: K) -> Result<(), u64> {
        let now = Instant::now();
        let mut entries = lock(&self.entries);
        // Forget refilled keys now and then, so memory tracks active keys only.
        if self.takes.fetch_add(1, Ordering::Relaxed) % 1024 == 1023 {
            entries.retain(|_, tat| *tat > now);
        }
        let tat = entries.get(&key).copied().unwrap_or(now).max(now);
        let used = tat - now;
        if used > self.tolerance {
            let wait = used - self.tolerance;
            return Err(wait.as_secs() + u64::from(wait.subsec_nanos() > 0));
        }
        entries.insert(key, tat + self.period);
        Ok(())
    }

    /// Gives one unit back.
    pub(crate) fn refund(&self, key: K) {
        let now = Instant::now();
        let mut entries = lock(&self.entries);
        if let Some(tat) = entries.get_mut(&key) {
            match tat.checked_sub(self.period) {
                Some(earlier) if earlier > now => *tat = earlier,
                _ => {
                    entries.remove(&key);
                }
            }
        }
    }
}

/// A cap on how many things one key may have in progress at once.
#[derive(Debug)]
pub(crate) struct Slots<K> {
    limit: u32,
    counts: Arc<Mutex<HashMap<K, u32>>>,
}

impl<K: Eq + Hash + Copy> Slots<K> {
    pub(crate) fn new(limit: u32) -> Self {
        Self {
            limit: limit.max(1),
            counts: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// One slot for `key`, or `None` when it already holds `limit`.
    pub(crate) fn try_take(&self, key: K) -> Option<Slot<K>> {
        let mut counts = lock(&self.counts);
        let count = counts.entry(key).or_insert(0);
        if *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(Slot {
            key,
            counts: self.counts.clone(),
        })
    }
}

/// A held slot, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot<K: Eq + Hash> {
    key: K,
    counts: Arc<Mutex<HashMap<K, u32>>>,
}

impl<K: Eq + Hash> Drop for Slot<K> {
    fn drop(&mut self) {
        let mut counts = lock(&self.counts);
        if let Some(count) = counts.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// The unpaid allowance per client key. Every request on a paid route takes one unit when it
/// is admitted; a request whose payment is verified gets it back.
#[derive(Debug)]
pub struct UnpaidLimiter {
    allowance: Allowance<ClientKey>,
}

impl UnpaidLimiter {
    /// A limiter for `allowance` (a zero allowance is read as one).
    pub fn new(allowance: UnpaidAllowance) -> Self {
        Self {
            allowance: Allowance::new(allowance),
        }
    }

    /// Counts one unpaid request from `client` (keyed by [`ClientKey`]); `Err(seconds)` says
    /// how long the client must wait.
    pub fn check(&self, client: IpAddr) -> Result<(), u64> {
        self.allowance.take(ClientKey::of(client))
    }

    /// Gives back the unit one request of `client` took (its payment was verified).
    pub fn refund(&self, client: IpAddr) {
        self.allowance.refund(ClientKey::of(client));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("ip")
    }

    #[test]
    fn allows_the_allowance_then_refuses_with_a_wait() {
        let limiter = UnpaidLimiter::new(UnpaidAllowance {
            requests: 3,
            window: Duration::from_secs(60),
        });
        let client = ip("127.0.0.1");
        let other = ip("127.0.0.2");
        for _ in 0..3 {
            assert_eq!(limiter.check(client), Ok(()));
        }
        let wait = limiter.check(client).expect_err("over the allowance");
        assert!(
            (1..=20).contains(&wait),
            "one request refills in 20 s, got {wait}"
        );
        assert_eq!(limiter.check(other), Ok(()), "clients are counted apart");
        limiter.refund(client);
        assert_eq!(limiter.check(client), Ok(()), "a refund frees one unit");
        assert!(limiter.check(client).is_err());
    }

    #[test]
    fn ipv6_clients_are_counted_per_64() {
        let limiter = UnpaidLimiter::new(UnpaidAllowance {
            requests: 2,
            window: Duration::from_secs(60),
        });
        assert_eq!(limiter.check(ip("2001:db8:1:2::1")), Ok(()));
        assert_eq!(
            limiter.check(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")),
            Ok(())
        );
        assert!(
            limiter.check(ip("2001:db8:1:2:abcd::7")).is_err(),
            "a fresh address in the same /64 is the same client"
        );
        assert_eq!(limiter.check(ip("2001:db8:1:3::1")), Ok(()), "the next /64");
        assert_eq!(
            ClientKey::of(ip("::ffff:192.0.2.7")),
            ClientKey::of(ip("192.0.2.7"))
        );
        assert_eq!(
            ClientKey::of(ip("2001:db8:1:2:abcd::7")).to_string(),
            "2001:db8:1:2::/64"
        );
    }

    fn forwarded(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", value.parse().expect("value"));
        headers
    }

    #[test]
    fn forwarded_address_only_when_trusted_and_right_most() {
        let peer: SocketAddr = "10.0.0.1:5000".parse().expect("addr");
        // The client wrote the first hop itself; the proxy appended what it saw.
        let headers = forwarded("1.2.3.4, 203.0.113.9");
        assert_eq!(client_address(peer, &headers, false), peer.ip());
        assert_eq!(client_address(peer, &headers, true), ip("203.0.113.9"));
        assert_eq!(
            client_address(peer, &HeaderMap::new(), true),
            peer.ip(),
            "no header: the peer"
        );
        assert_eq!(
            client_address(peer, &forwarded("1.2.3.4, junk"), true),
            peer.ip()
        );
    }

    #[test]
    fn trusted_proxy_hops_are_skipped_and_untrusted_peers_ignored() {
        let addressing = ClientAddressing {
            trust_forwarded: true,
            trusted_proxies: vec![
                "10.0.0.0/8".parse().expect("net"),
                "fd00::/8".parse().expect("net"),
            ],
        };
        let headers = forwarded("6.6.6.6, 198.51.100.4, 10.1.2.3, fd00::9");
        assert_eq!(
            addressing.client(ip("10.0.0.1"), &headers),
            ip("198.51.100.4"),
            "two trusted proxies in the chain"
        );
        assert_eq!(
            addressing.client(ip("192.0.2.50"), &headers),
            ip("192.0.2.50"),
            "a peer that is no trusted proxy cannot choose its address"
        );
        assert_eq!(
            addressing.client(ip("10.0.0.1"), &forwarded("10.9.9.9")),
            ip("10.0.0.1"),
            "only proxies in the chain: the peer"
        );
    }

    #[test]
    fn cidr_ranges_parse_and_match() {
        let net: IpNet = "192.168.0.0/16".parse().expect("net");
        assert!(net.contains(ip("192.168.44.1")));
        assert!(net.contains(ip("::ffff:192.168.1.1")));
        assert!(!net.contains(ip("192.169.0.1")));
        assert!(!net.contains(ip("::1")));
        let single: IpNet = "2001:db8::1".parse().expect("net");
        assert!(single.contains(ip("2001:db8::1")));
        assert!(!single.contains(ip("2001:db8::2")));
        let all: IpNet = "0.0.0.0/0".parse().expect("net");
        assert!(all.contains(ip("8.8.8.8")));
        for bad in ["10.0.0.0/33", "nope", "::/129", "1.2.3.4/x"] {
            assert!(bad.parse::<IpNet>().is_err(), "{bad}");
        }
    }

    #[test]
    fn slots_cap_concurrency_and_free_on_drop() {
        let slots = Slots::new(2);
        let a = slots.try_take(1u8).expect("first");
        let _b = slots.try_take(1u8).expect("second");
        assert!(slots.try_take(1u8).is_none());
        assert!(slots.try_take(2u8).is_some(), "keys are apart");
        drop(a);
        assert!(slots.try_take(1u8).is_some());
    }
}
