//! The safe URL fetcher (DESIGN.md §4): http(s) only; every address a name resolves to is
//! checked before connecting and the connection goes to a checked address (the resolver hands
//! reqwest only what it checked, so nothing is resolved twice); redirects are followed by hand,
//! at most three, each hop checked again; the size limit is enforced while streaming.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{StatusCode, Url, redirect};
use thiserror::Error;

/// Redirects followed at most.
const MAX_REDIRECTS: usize = 3;

/// Why a fetch gave nothing.
#[derive(Debug, Error)]
pub enum FetchError {
    /// The URL or an address it leads to is not allowed (400 `url_refused`).
    #[error("{0}")]
    Refused(String),
    /// The document is larger than allowed (413 `payload_too_large`).
    #[error("the document at the url is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// The server could not be reached or answered with an error (502).
    #[error("{0}")]
    Unreachable(String),
}

/// Which addresses may be connected to. Public unicast addresses only, unless a deployment
/// (the devnet demo, the tests) allows loopback explicitly.
#[derive(Debug, Clone, Copy, Default)]
pub struct AddressPolicy {
    /// Allow 127.0.0.0/8 and ::1 (never in production).
    pub allow_loopback: bool,
}

impl AddressPolicy {
    /// Why `ip` is refused, or `None` when it may be connected to.
    pub fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        match ip {
            IpAddr::V4(v4) => self.refusal_v4(v4),
            IpAddr::V6(v6) => {
                // Forms that carry an IPv4 address are judged by that address.
                if let Some(v4) = embedded_v4(v6) {
                    return self.refusal_v4(v4);
                }
                refusal_v6(v6, self.allow_loopback)
            }
        }
    }

    fn refusal_v4(&self, ip: Ipv4Addr) -> Option<&'static str> {
        let [a, b, c, _] = ip.octets();
        if ip.is_loopback() {
            return (!self.allow_loopback).then_some("a loopback address");
        }
        if ip.is_private() {
            return Some("a private address");
        }
        if ip.is_link_local() {
            // 169.254.169.254 is the cloud metadata service.
            return Some("a link-local address (cloud metadata lives here)");
        }
        if ip.is_unspecified() || a == 0 {
            return Some("an unspecified address");
        }
        if ip.is_multicast() || ip.is_broadcast() {
            return Some("a multicast or broadcast address");
        }
        if a == 100 && (64..128).contains(&b) {
            // Carrier-grade NAT; 100.100.100.200 is a cloud metadata service too.
            return Some("a shared (carrier-grade NAT) address");
        }
        if a >= 240 || (a == 192 && b == 0 && c == 0) || (a == 198 && (18..20).contains(&b)) {
            return Some("a reserved address");
        }
        if ip.is_documentation() {
            return Some("a documentation address");
        }
        None
    }
}

fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::/96).
    let compatible = s[..6].iter().all(|&x| x == 0) && (s[6] != 0 || s[7] > 1);
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && s[2..6].iter().all(|&x| x == 0);
    (compatible || nat64).then(|| {
        Ipv4Addr::new(
            (s[6] >> 8) as u8,
            (s[6] & 0xff) as u8,
            (s[7] >> 8) as u8,
            (s[7] & 0xff) as u8,
        )
    })
}

fn refusal_v6(ip: Ipv6Addr, allow_loopback: bool) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        return (!allow_loopback).then_some("a loopback address");
    }
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    if ip.is_multicast() {
        return Some("a multicast address");
    }
    if first & 0xffc0 == 0xfe80 {
        return Some("a link-local address");
    }
    if first & 0xfe00 == 0xfc00 {
        // Unique-local; fd00:ec2::254 is a cloud metadata service.
        return Some("a unique-local (private) address");
    }
    if first & 0xffc0 == 0xfec0 {
        return Some("a site-local address");
    }
    if first == 0x2001 && ip.segments()[1] == 0x0db8 {
        return Some("a documentation address");
    }
    None
}

/// Resolves names and hands reqwest only addresses the policy allows; a name with any refused
/// address is refused whole, so a rebinding name cannot slip one through.
#[derive(Debug)]
struct CheckedResolver {
    policy: AddressPolicy,
}

/// The error the resolver gives for a refused address; found again in reqwest's error chain.
#[derive(Debug, Error)]
#[error("{host} resolves to {ip}, {why}")]
struct RefusedAddress {
    host: String,
    ip: IpAddr,
    why: &'static str,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            for addr in &addrs {
                if let Some(why) = policy.refusal(addr.ip()) {
                    return Err(Box::new(RefusedAddress {
                        host: host.clone(),
                        ip: addr.ip(),
                        why,
                    })
                        as Box<dyn std::error::Error + Send + Sync>);
                }
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Fetches documents from caller-supplied URLs.
#[derive(Debug, Clone)]
pub struct SafeFetcher {
    client: reqwest::Client,
    policy: AddressPolicy,
}

impl SafeFetcher {
    /// A fetcher with this policy and overall timeout.
    pub fn new(policy: AddressPolicy, timeout: Duration) -> Result<Self, FetchError> {
        let client = reqwest::Client::builder()
            .redirect(redirect::Policy::none())
            .dns_resolver(Arc::new(CheckedResolver { policy }))
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            .timeout(timeout)
            .user_agent(concat!("docs-server/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| FetchError::Unreachable(format!("building the HTTP client: {e}")))?;
        Ok(Self { client, policy })
    }

    /// Fetches `url`, following at most three redirects, refusing anything over `max_bytes`.
    pub async fn fetch(&self, url: &str, max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        let mut current = Url::parse(url).map_err(|e| FetchError::Refused(format!("url: {e}")))?;
        for _ in 0..=MAX_REDIRECTS {
            self.check_url(&current)?;
            let response = self
                .client
                .get(current.clone())
                .send()
                .await
                .map_err(|e| classify(&e, &current))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| {
                        FetchError::Unreachable(format!("{status} without a Location header"))
                    })?;
                current = current
                    .join(location)
                    .map_err(|e| FetchError::Refused(format!("redirect target: {e}")))?;
                continue;
            }
            if status != StatusCode::OK {
                return Err(FetchError::Unreachable(format!(
                    "the url answered {status}"
                )));
            }
            if response
                .content_length()
                .is_some_and(|length| length > max_bytes as u64)
            {
                return Err(FetchError::TooLarge { limit: max_bytes });
            }
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| classify(&e, &current))?;
                if body.len() + chunk.len() > max_bytes {
                    return Err(FetchError::TooLarge { limit: max_bytes });
                }
                body.extend_from_slice(&chunk);
            }
            return Ok(body);
        }
        Err(FetchError::Refused(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }

    /// Scheme and literal addresses; names are checked by the resolver when connecting.
    fn check_url(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Refused(format!(
                "url: only http and https are fetched, not {}",
                url.scheme()
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::Refused(
                "url: credentials in the url are not accepted".into(),
            ));
        }
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(url::Host::Domain(_)) => return Ok(()),
            None => return Err(FetchError::Refused("url: no host".into())),
        };
        match self.policy.refusal(ip) {
            Some(why) => Err(FetchError::Refused(format!("url: {ip} is {why}"))),
            None => Ok(()),
        }
    }
}

fn classify(error: &reqwest::Error, url: &Url) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(refused) = e.downcast_ref::<RefusedAddress>() {
            return FetchError::Refused(format!("url: {refused}"));
        }
        source = e.source();
    }
    let host = url.host_str().unwrap_or("?");
    if error.is_timeout() {
        FetchError::Unreachable(format!("{host}: timed out"))
    } else {
        FetchError::Unreachable(format!("{host}: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str) -> bool {
        AddressPolicy::default()
            .refusal(ip.parse().expect("an address"))
            .is_some()
    }

    #[test]
    fn refuses_every_non_public_range() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2001:db8::1",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
        for ip in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(!refused(ip), "{ip} is public");
        }
    }

    #[test]
    fn loopback_only_when_allowed() {
        let policy = AddressPolicy {
            allow_loopback: true,
        };
        assert!(policy.refusal("127.0.0.1".parse().expect("ip")).is_none());
        assert!(policy.refusal("10.0.0.1".parse().expect("ip")).is_some());
    }
}
