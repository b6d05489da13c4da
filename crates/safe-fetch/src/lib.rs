#![doc = include_str!("../README.md")]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{StatusCode, Url, redirect};
use thiserror::Error;

/// Redirects followed at most.
const MAX_REDIRECTS: usize = 3;

/// The one answer to every refused URL, whatever the rule (scheme, credentials, a private,
/// loopback, metadata or own address, too many redirects): naming the rule would tell a caller
/// what lives behind an address.
pub const REFUSED_TEXT: &str = "the url is refused: only http and https urls without credentials whose host is a public internet address are fetched, with at most 3 redirects";

/// The one answer to every fetch that failed (refused connection, timeout, name not found, TLS
/// failure, an error status): telling them apart would make the server a port scanner.
pub const UNREACHABLE_TEXT: &str = "the url could not be fetched";

/// How long a reading of this machine's interface addresses is trusted: short, because an
/// address added later (DHCP, a cloud's secondary address) must be refused soon; not zero, so a
/// flood of fetches does not list the interfaces for every one.
const OWN_ADDRESSES_TTL: Duration = Duration::from_secs(5);

/// Why a fetch gave nothing. The displayed texts are fixed ([`REFUSED_TEXT`],
/// [`UNREACHABLE_TEXT`]); `reason` is for the log and tests, never for an answer.
#[derive(Debug, Error)]
pub enum FetchError {
    /// The URL or an address it leads to is not allowed (400 `url_refused`).
    #[error("{}", REFUSED_TEXT)]
    Refused {
        /// What refused it, for operators.
        reason: String,
    },
    /// The document is larger than allowed (413 `payload_too_large`).
    #[error("the document at the url is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// The server could not be reached or answered with an error (502).
    #[error("{}", UNREACHABLE_TEXT)]
    Unreachable {
        /// What failed, for operators.
        reason: String,
    },
    /// The fetcher could not be built (at start, never from a fetch).
    #[error("setting up the url fetcher: {0}")]
    Setup(String),
}

impl FetchError {
    fn refused(reason: impl Into<String>) -> Self {
        Self::Refused {
            reason: reason.into(),
        }
    }

    fn unreachable(reason: impl Into<String>) -> Self {
        Self::Unreachable {
            reason: reason.into(),
        }
    }
}

/// A refused IPv4 range: first address, prefix length, and what it is.
struct V4Range(Ipv4Addr, u8, &'static str);

/// A refused IPv6 range: first address, prefix length, and what it is.
struct V6Range(Ipv6Addr, u8, &'static str);

/// IPv4 ranges never connected to (IANA IPv4 Special-Purpose Address Registry, RFC 6890, plus
/// multicast). Left out on purpose, as the registry marks them globally reachable: 192.31.196/24
/// and 192.175.48/24 (AS112), 192.52.193/24 (AMT).
#[rustfmt::skip]
const REFUSED_V4: &[V4Range] = &[
    // "This network" (RFC 791); connecting to 0.0.0.0 reaches this machine on Linux.
    V4Range(Ipv4Addr::new(0, 0, 0, 0), 8, "0.0.0.0/8 this network"),
    V4Range(Ipv4Addr::new(10, 0, 0, 0), 8, "10.0.0.0/8 private use (RFC 1918)"),
    // Carrier-grade NAT (RFC 6598); 100.100.100.200 is Alibaba Cloud's metadata service.
    V4Range(Ipv4Addr::new(100, 64, 0, 0), 10, "100.64.0.0/10 shared address space"),
    // Loopback (RFC 1122): allowed only with `allow_loopback`, checked before this table.
    V4Range(Ipv4Addr::new(127, 0, 0, 0), 8, "127.0.0.0/8 loopback"),
    // Link-local (RFC 3927); 169.254.169.254 is the metadata service of most clouds.
    V4Range(Ipv4Addr::new(169, 254, 0, 0), 16, "169.254.0.0/16 link-local"),
    V4Range(Ipv4Addr::new(172, 16, 0, 0), 12, "172.16.0.0/12 private use (RFC 1918)"),
    // IETF protocol assignments (RFC 6890), whole: 192.0.0.192 is Oracle Cloud's metadata.
    V4Range(Ipv4Addr::new(192, 0, 0, 0), 24, "192.0.0.0/24 IETF protocol assignments"),
    V4Range(Ipv4Addr::new(192, 0, 2, 0), 24, "192.0.2.0/24 documentation (TEST-NET-1)"),
    // Deprecated 6to4 relay anycast (RFC 7526): a way into 6to4 tunnels.
    V4Range(Ipv4Addr::new(192, 88, 99, 0), 24, "192.88.99.0/24 6to4 relay anycast"),
    V4Range(Ipv4Addr::new(192, 168, 0, 0), 16, "192.168.0.0/16 private use (RFC 1918)"),
    V4Range(Ipv4Addr::new(198, 18, 0, 0), 15, "198.18.0.0/15 benchmarking (RFC 2544)"),
    V4Range(Ipv4Addr::new(198, 51, 100, 0), 24, "198.51.100.0/24 documentation (TEST-NET-2)"),
    V4Range(Ipv4Addr::new(203, 0, 113, 0), 24, "203.0.113.0/24 documentation (TEST-NET-3)"),
    V4Range(Ipv4Addr::new(224, 0, 0, 0), 4, "224.0.0.0/4 multicast (RFC 5771)"),
    // Reserved (RFC 1112), with 255.255.255.255 the limited broadcast (RFC 919).
    V4Range(Ipv4Addr::new(240, 0, 0, 0), 4, "240.0.0.0/4 reserved and broadcast"),
];

/// IPv6 ranges never connected to (IANA IPv6 Special-Purpose Address Registry, RFC 6890, plus
/// multicast and the deprecated site-local). Forms that carry or tunnel to an IPv4 address are
/// refused whole: no public server needs to be named that way, and where the IPv4 address ends
/// up (a relay, a local translator) is out of this server's hands. The one exception is NAT64's
/// well-known prefix 64:ff9b::/96 (RFC 6052): on an IPv6-only network with DNS64 every IPv4-only
/// site resolves to it, so it is judged by the IPv4 address it embeds (see [`nat64_v4`]).
/// Anything outside 2000::/3, global unicast, is refused after this table too.
#[rustfmt::skip]
const REFUSED_V6: &[V6Range] = &[
    // Loopback: allowed only with `allow_loopback`, checked before this table.
    V6Range(Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 1), 128, "::1/128 loopback"),
    V6Range(Ipv6Addr::UNSPECIFIED, 128, "::/128 unspecified"),
    // IPv4-compatible (RFC 4291, deprecated): ::a.b.c.d.
    V6Range(Ipv6Addr::UNSPECIFIED, 96, "::/96 IPv4-compatible"),
    // IPv4-mapped (RFC 4291): a socket to ::ffff:a.b.c.d speaks IPv4 to a.b.c.d.
    V6Range(Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96, "::ffff:0:0/96 IPv4-mapped"),
    // IPv4-translated (RFC 2765, SIIT): ::ffff:0:a.b.c.d.
    V6Range(Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, 0, 0), 96, "::ffff:0:0:0/96 IPv4-translated"),
    // Local-use IPv4/IPv6 translation (RFC 8215): the operator chooses where the IPv4 address
    // sits, so it cannot be read out, and it leads into the local network by design.
    V6Range(Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, "64:ff9b:1::/48 local-use translation"),
    V6Range(Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64, "100::/64 discard-only (RFC 6666)"),
    V6Range(Ipv6Addr::new(0x100, 0, 0, 1, 0, 0, 0, 0), 64, "100:0:0:1::/64 dummy prefix (RFC 9780)"),
    // IETF protocol assignments (RFC 2928), whole: Teredo 2001::/32 (RFC 4380, tunnels to an
    // IPv4 address it embeds), benchmarking 2001:2::/48 (RFC 5180), ORCHID 2001:10::/28 (RFC
    // 4843) and ORCHIDv2 2001:20::/28 (RFC 7343), drone remote ID 2001:30::/28 (RFC 9374), and
    // a few anycast protocol services no document is served from. Real allocations start at
    // 2001:200::.
    V6Range(Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, "2001::/23 IETF protocol assignments (Teredo, ORCHID, benchmarking)"),
    V6Range(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, "2001:db8::/32 documentation (RFC 3849)"),
    // 6to4 (RFC 3056, deprecated by RFC 7526): 2002:AABB:CCDD:: tunnels to A.B.C.D, so
    // 2002:7f00:1:: is 127.0.0.1 behind a relay. Refused whole, see above.
    V6Range(Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, "2002::/16 6to4"),
    V6Range(Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, "3fff::/20 documentation (RFC 9637)"),
    V6Range(Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, "5f00::/16 segment routing SIDs (RFC 9602)"),
    // Unique-local (RFC 4193); fd00:ec2::254 is AWS's metadata service.
    V6Range(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, "fc00::/7 unique-local"),
    V6Range(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "fe80::/10 link-local"),
    V6Range(Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, "fec0::/10 site-local (deprecated)"),
    V6Range(Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "ff00::/8 multicast"),
];

/// NAT64's well-known prefix (RFC 6052), judged by the IPv4 address in its last 32 bits.
const NAT64_WELL_KNOWN: V6Range = V6Range(
    Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0),
    96,
    "64:ff9b::/96 NAT64",
);

/// Global unicast (RFC 4291; IANA IPv6 Address Space): every public IPv6 address lies in it.
const GLOBAL_UNICAST: V6Range = V6Range(Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3, "2000::/3");

fn in_v4(ip: Ipv4Addr, range: &V4Range) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(range.1)).unwrap_or(0);
    u32::from(ip) & mask == u32::from(range.0) & mask
}

fn in_v6(ip: Ipv6Addr, range: &V6Range) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(range.1)).unwrap_or(0);
    u128::from(ip) & mask == u128::from(range.0) & mask
}

/// The IPv4 address a NAT64 well-known-prefix address translates to.
fn nat64_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    // The low 32 bits are the IPv4 address (RFC 6052 §2.2, /96 prefix).
    in_v6(ip, &NAT64_WELL_KNOWN).then(|| Ipv4Addr::from((u128::from(ip) & 0xffff_ffff) as u32))
}

/// Which addresses may be connected to. Public unicast addresses only, unless a deployment
/// (the devnet demo, the tests) allows loopback explicitly.
#[derive(Debug, Clone, Copy, Default)]
pub struct AddressPolicy {
    /// Allow 127.0.0.0/8 and ::1 (never in production). Every other form of loopback
    /// (0.0.0.0, ::ffff:127.0.0.1, 6to4, NAT64) stays refused.
    pub allow_loopback: bool,
}

impl AddressPolicy {
    /// The refused range `ip` lies in (for the log), or `None` when it may be connected to.
    /// This machine's own addresses are checked by the fetcher on top of this.
    pub fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        if self.allow_loopback && ip.is_loopback() {
            return None;
        }
        match ip {
            IpAddr::V4(v4) => REFUSED_V4.iter().find(|r| in_v4(v4, r)).map(|r| r.2),
            IpAddr::V6(v6) => {
                if let Some(r) = REFUSED_V6.iter().find(|r| in_v6(v6, r)) {
                    return Some(r.2);
                }
                if let Some(v4) = nat64_v4(v6) {
                    // A translator never reaches loopback, whatever the policy.
                    return REFUSED_V4
                        .iter()
                        .any(|r| in_v4(v4, r))
                        .then_some("64:ff9b::/96 NAT64 of a refused IPv4 address");
                }
                (!in_v6(v6, &GLOBAL_UNICAST)).then_some("outside 2000::/3 global unicast")
            }
        }
    }
}

/// This machine's own interface addresses. A public address of an interface reaches every
/// service here that listens on all interfaces, which no range table can know.
#[derive(Debug)]
struct OwnAddresses {
    /// Read from the interfaces again when stale; false for a list given in a test.
    live: bool,
    snapshot: Mutex<(Instant, Arc<[IpAddr]>)>,
}

impl OwnAddresses {
    fn read() -> Result<Arc<[IpAddr]>, FetchError> {
        let interfaces = if_addrs::get_if_addrs()
            .map_err(|e| FetchError::Setup(format!("listing this machine's addresses: {e}")))?;
        Ok(interfaces.iter().map(if_addrs::Interface::ip).collect())
    }

    fn live() -> Result<Self, FetchError> {
        Ok(Self {
            live: true,
            snapshot: Mutex::new((Instant::now(), Self::read()?)),
        })
    }

    #[cfg(test)]
    fn fixed(addresses: Vec<IpAddr>) -> Self {
        Self {
            live: false,
            snapshot: Mutex::new((Instant::now(), addresses.into())),
        }
    }

    /// The addresses, read again when older than [`OWN_ADDRESSES_TTL`]; when reading fails the
    /// last list stays in force.
    fn current(&self) -> Arc<[IpAddr]> {
        let mut snapshot = self
            .snapshot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.live && snapshot.0.elapsed() >= OWN_ADDRESSES_TTL {
            match Self::read() {
                Ok(addresses) => *snapshot = (Instant::now(), addresses),
                Err(e) => tracing::warn!(error = %e, "keeping the last list of own addresses"),
            }
        }
        snapshot.1.clone()
    }
}

/// The whole address check: the range table, then this machine's own addresses.
#[derive(Debug)]
struct AddressCheck {
    policy: AddressPolicy,
    own: OwnAddresses,
}

impl AddressCheck {
    fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        if let Some(why) = self.policy.refusal(ip) {
            return Some(why);
        }
        // Loopback got here only because the policy allows it; the table judged it already.
        if ip.is_loopback() {
            return None;
        }
        let translated = match ip {
            IpAddr::V6(v6) => nat64_v4(v6).map(IpAddr::V4),
            IpAddr::V4(_) => None,
        };
        let own = self.own.current();
        (own.contains(&ip) || translated.is_some_and(|v4| own.contains(&v4)))
            .then_some("an address of this machine")
    }
}

/// Looks up the addresses of a host name. The fetcher's only source of addresses: whatever it
/// answers is checked, and the connection goes to exactly what was checked. The system resolver
/// ([`SystemLookup`]) in production; tests inject one that answers differently on each call
/// (DNS rebinding).
pub trait Lookup: Send + Sync + std::fmt::Debug + 'static {
    /// The addresses `host` resolves to (ports are ignored).
    fn lookup(
        &self,
        host: &str,
    ) -> futures::future::BoxFuture<'static, Result<Vec<IpAddr>, std::io::Error>>;
}

/// The operating system's resolver (`getaddrinfo` through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(
        &self,
        host: &str,
    ) -> futures::future::BoxFuture<'static, Result<Vec<IpAddr>, std::io::Error>> {
        let host = host.to_owned();
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .map(|addr| addr.ip())
                .collect())
        })
    }
}

/// Resolves names and hands reqwest only addresses the check allows; a name with any refused
/// address is refused whole, so a rebinding name cannot slip one through. reqwest connects to
/// the addresses handed over here and resolves nothing itself.
#[derive(Debug)]
struct CheckedResolver {
    check: Arc<AddressCheck>,
    lookup: Arc<dyn Lookup>,
}

/// The error the resolver gives for a refused address; found again in reqwest's error chain.
#[derive(Debug, Error)]
#[error("{host} resolves to {ip}, in {why}")]
struct RefusedAddress {
    host: String,
    ip: IpAddr,
    why: &'static str,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let check = self.check.clone();
        let lookup = self.lookup.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let ips = lookup.lookup(&host).await?;
            for ip in &ips {
                if let Some(why) = check.refusal(*ip) {
                    return Err(Box::new(RefusedAddress {
                        host: host.clone(),
                        ip: *ip,
                        why,
                    })
                        as Box<dyn std::error::Error + Send + Sync>);
                }
            }
            let addrs: Vec<SocketAddr> = ips.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect();
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Fetches documents from caller-supplied URLs.
#[derive(Debug, Clone)]
pub struct SafeFetcher {
    client: reqwest::Client,
    check: Arc<AddressCheck>,
}

impl SafeFetcher {
    /// A fetcher with this policy and overall timeout. Lists this machine's addresses, so it
    /// fails when they cannot be read.
    pub fn new(policy: AddressPolicy, timeout: Duration) -> Result<Self, FetchError> {
        Self::with_lookup(policy, timeout, Arc::new(SystemLookup))
    }

    /// [`SafeFetcher::new`] resolving names through `lookup` instead of the system resolver.
    pub fn with_lookup(
        policy: AddressPolicy,
        timeout: Duration,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Self, FetchError> {
        Self::build(
            AddressCheck {
                policy,
                own: OwnAddresses::live()?,
            },
            timeout,
            lookup,
        )
    }

    #[cfg(test)]
    fn with_check(check: AddressCheck, timeout: Duration) -> Result<Self, FetchError> {
        Self::build(check, timeout, Arc::new(SystemLookup))
    }

    fn build(
        check: AddressCheck,
        timeout: Duration,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Self, FetchError> {
        let check = Arc::new(check);
        let client = reqwest::Client::builder()
            .redirect(redirect::Policy::none())
            .dns_resolver(Arc::new(CheckedResolver {
                check: check.clone(),
                lookup,
            }))
            // Never through a proxy from the environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY):
            // a proxy would connect to addresses this fetcher never checked.
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            .timeout(timeout)
            .user_agent(concat!("docs-server/", env!("CARGO_PKG_VERSION")))
            // reqwest is built without decompression; ask for the file as it is. A server that
            // encodes anyway is decoded under the same size limit (ContentEncoding).
            .default_headers(reqwest::header::HeaderMap::from_iter([(
                reqwest::header::ACCEPT_ENCODING,
                reqwest::header::HeaderValue::from_static("identity"),
            )]))
            .build()
            .map_err(|e| FetchError::Setup(format!("building the HTTP client: {e}")))?;
        Ok(Self { client, check })
    }

    /// Fetches `url`, following at most three redirects, refusing anything over `max_bytes`.
    /// A refusal or failure is logged (info) with its precise reason; the error shows only the
    /// fixed texts.
    pub async fn fetch(&self, url: &str, max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        let result = self.fetch_following(url, max_bytes).await;
        if let Err(error) = &result {
            // Scheme, host and port only: a path or query may carry the caller's secrets.
            let target = Url::parse(url).map_or_else(
                |_| "(not a url)".to_owned(),
                |u| {
                    let authority = u.authority();
                    let host_port = authority.rsplit('@').next().unwrap_or(authority);
                    format!("{}://{host_port}", u.scheme())
                },
            );
            match error {
                FetchError::Refused { reason } => {
                    tracing::info!(%target, %reason, "url refused");
                }
                FetchError::Unreachable { reason } => {
                    tracing::info!(%target, %reason, "url could not be fetched");
                }
                FetchError::TooLarge { limit } => {
                    tracing::info!(%target, limit, "document at the url too large");
                }
                FetchError::Setup(reason) => tracing::warn!(%target, %reason, "url fetcher"),
            }
        }
        result
    }

    async fn fetch_following(&self, url: &str, max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        let mut current =
            Url::parse(url).map_err(|e| FetchError::refused(format!("not a url: {e}")))?;
        for _ in 0..=MAX_REDIRECTS {
            self.check_url(&current)?;
            let response = self
                .client
                .get(current.clone())
                .send()
                .await
                .map_err(classify)?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| {
                        FetchError::unreachable(format!("{status} without a Location header"))
                    })?;
                current = current
                    .join(location)
                    .map_err(|e| FetchError::refused(format!("redirect target: {e}")))?;
                continue;
            }
            if status != StatusCode::OK {
                return Err(FetchError::unreachable(format!("answered {status}")));
            }
            if response
                .content_length()
                .is_some_and(|length| length > max_bytes as u64)
            {
                return Err(FetchError::TooLarge { limit: max_bytes });
            }
            let encoding = ContentEncoding::of(response.headers())?;
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(classify)?;
                if body.len() + chunk.len() > max_bytes {
                    return Err(FetchError::TooLarge { limit: max_bytes });
                }
                body.extend_from_slice(&chunk);
            }
            return encoding.decode(body, max_bytes).await;
        }
        Err(FetchError::refused(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }

    /// Scheme, credentials and literal addresses; names are checked by the resolver when
    /// connecting.
    fn check_url(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::refused(format!("scheme {}", url.scheme())));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::refused("credentials in the url"));
        }
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(url::Host::Domain(_)) => return Ok(()),
            None => return Err(FetchError::refused("no host")),
        };
        match self.check.refusal(ip) {
            Some(why) => Err(FetchError::refused(format!("{ip} is in {why}"))),
            None => Ok(()),
        }
    }
}

/// How a response body is encoded (`Content-Encoding`). reqwest is built without its
/// decompression features, so a body arrives as sent and is decoded here, with the size limit
/// applied to the decoded bytes: a small gzip or deflate bomb cannot grow past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ContentEncoding {
    Identity,
    Gzip,
    Deflate,
}

impl ContentEncoding {
    fn of(headers: &reqwest::header::HeaderMap) -> Result<Self, FetchError> {
        let mut encoding = Self::Identity;
        for value in headers.get_all(reqwest::header::CONTENT_ENCODING) {
            let text = value
                .to_str()
                .map_err(|_| FetchError::unreachable("an unreadable Content-Encoding"))?;
            for coding in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                let next = match coding.to_ascii_lowercase().as_str() {
                    "identity" => continue,
                    "gzip" | "x-gzip" => Self::Gzip,
                    "deflate" => Self::Deflate,
                    other => {
                        return Err(FetchError::unreachable(format!(
                            "Content-Encoding {other} is not decoded"
                        )));
                    }
                };
                // One layer at most: stacked codings only serve to multiply a bomb.
                if encoding != Self::Identity {
                    return Err(FetchError::unreachable("more than one Content-Encoding"));
                }
                encoding = next;
            }
        }
        Ok(encoding)
    }

    /// The decoded body, refused as [`FetchError::TooLarge`] once it passes `max_bytes`.
    async fn decode(self, body: Vec<u8>, max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        if self == Self::Identity {
            return Ok(body);
        }
        tokio::task::spawn_blocking(move || self.decode_blocking(&body, max_bytes))
            .await
            .map_err(|e| FetchError::unreachable(format!("decoding the body: {e}")))?
    }

    fn decode_blocking(self, body: &[u8], max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        use std::io::Read as _;
        let reader: Box<dyn std::io::Read + '_> = match self {
            Self::Identity => return Ok(body.to_vec()),
            Self::Gzip => Box::new(flate2::read::MultiGzDecoder::new(body)),
            // HTTP's deflate is zlib-wrapped (RFC 9110 §8.4.1.2); some servers send it raw.
            Self::Deflate if looks_like_zlib(body) => {
                Box::new(flate2::read::ZlibDecoder::new(body))
            }
            Self::Deflate => Box::new(flate2::read::DeflateDecoder::new(body)),
        };
        let mut decoded = Vec::new();
        // One byte past the limit is enough to know it is too large; nothing more is inflated.
        let limit = u64::try_from(max_bytes)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        reader
            .take(limit)
            .read_to_end(&mut decoded)
            .map_err(|e| FetchError::unreachable(format!("the encoded body is corrupt: {e}")))?;
        if decoded.len() > max_bytes {
            return Err(FetchError::TooLarge { limit: max_bytes });
        }
        Ok(decoded)
    }
}

/// A zlib header (RFC 1950 §2.2): deflate method and a check value divisible by 31.
fn looks_like_zlib(body: &[u8]) -> bool {
    match body {
        [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

/// Sorts a transport error into refused (the resolver refused an address) or unreachable,
/// keeping the precise cause, without the URL (its query may hold secrets), for the log.
fn classify(error: reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(e) = source {
        if let Some(refused) = e.downcast_ref::<RefusedAddress>() {
            return FetchError::refused(refused.to_string());
        }
        source = e.source();
    }
    let timed_out = error.is_timeout();
    let error = error.without_url();
    let mut reason = if timed_out {
        "timed out".to_owned()
    } else {
        error.to_string()
    };
    let mut source = std::error::Error::source(&error);
    while let Some(e) = source {
        reason.push_str(": ");
        reason.push_str(&e.to_string());
        source = e.source();
    }
    FetchError::unreachable(reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn refused(text: &str) -> bool {
        AddressPolicy::default().refusal(ip(text)).is_some()
    }

    /// A check with loopback allowed and `own` as this machine's addresses.
    fn check_with(own: &[&str]) -> AddressCheck {
        AddressCheck {
            policy: AddressPolicy {
                allow_loopback: true,
            },
            own: OwnAddresses::fixed(own.iter().map(|a| ip(a)).collect()),
        }
    }

    fn fetcher_with(own: &[&str], timeout: Duration) -> SafeFetcher {
        SafeFetcher::with_check(check_with(own), timeout).expect("fetcher")
    }

    #[test]
    fn refuses_every_special_range() {
        for ip in [
            // IPv4 special-purpose ranges, first and last addresses where it matters.
            "0.0.0.0",
            "0.255.255.255",
            "10.1.2.3",
            "100.64.0.0",
            "100.100.100.200",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.1",
            "192.0.0.192",
            "192.0.2.2",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            // IPv6.
            "::1",
            "::",
            "::127.0.0.1",
            "::10.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:93.184.216.34",
            "::ffff:0:7f00:1",
            "::ffff:0:5db8:d822",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b:1::a00:1",
            "64:ff9b:1:ffff::5db8:d822",
            "100::1",
            "100::ffff:ffff:ffff:ffff",
            "100:0:0:1::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:1::1",
            "2001:2::1",
            "2001:10::1",
            "2001:20::1",
            "2001:1ff:ffff::1",
            "2001:db8::1",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "2002:5db8:d822::1",
            "3fff::1",
            "5f00::1",
            "fc00::1",
            "fd00::2",
            "fd00:ec2::254",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "4000::1",
            "1::1",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
        for ip in [
            "93.184.216.34",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.0",
            "172.32.0.1",
            "192.0.1.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2001:200::1",
            "2003::1",
            "2a00:1450:4001::1",
            // NAT64 of a public IPv4 address: how IPv6-only networks reach IPv4-only sites.
            "64:ff9b::5db8:d822",
        ] {
            assert!(!refused(ip), "{ip} is public");
        }
    }

    #[test]
    fn the_tables_are_well_formed() {
        for r in REFUSED_V4 {
            assert!(r.1 <= 32, "{}", r.2);
            assert_eq!(
                u32::from(r.0) & !u32::MAX.checked_shl(32 - u32::from(r.1)).unwrap_or(0),
                0,
                "{}: host bits set",
                r.2
            );
        }
        for r in REFUSED_V6 {
            assert!(r.1 <= 128, "{}", r.2);
            assert_eq!(
                u128::from(r.0) & !u128::MAX.checked_shl(128 - u32::from(r.1)).unwrap_or(0),
                0,
                "{}: host bits set",
                r.2
            );
        }
        assert_eq!(
            AddressPolicy::default().refusal(ip("2002:7f00:1::")),
            Some("2002::/16 6to4")
        );
        assert_eq!(
            AddressPolicy::default().refusal(ip("2001:0:4136:e378::1")),
            Some("2001::/23 IETF protocol assignments (Teredo, ORCHID, benchmarking)")
        );
    }

    #[test]
    fn loopback_only_when_allowed_and_only_in_its_plain_forms() {
        let policy = AddressPolicy {
            allow_loopback: true,
        };
        for allowed in ["127.0.0.1", "127.1.2.3", "::1"] {
            assert!(policy.refusal(ip(allowed)).is_none(), "{allowed}");
            assert!(refused(allowed), "{allowed} without the flag");
        }
        for still_refused in [
            "0.0.0.0",
            "::",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "::ffff:0:7f00:1",
            "2002:7f00:1::",
            "64:ff9b::7f00:1",
            "10.0.0.1",
        ] {
            assert!(
                policy.refusal(ip(still_refused)).is_some(),
                "{still_refused}"
            );
        }
    }

    #[test]
    fn own_addresses_are_refused_even_with_loopback_allowed() {
        // Public addresses standing in for this machine's: never connected to here.
        let check = check_with(&["93.184.216.34", "2606:4700::6810:84e5", "127.0.0.1"]);
        for own in [
            "93.184.216.34",
            "2606:4700::6810:84e5",
            "64:ff9b::5db8:d822",
        ] {
            assert_eq!(
                check.refusal(ip(own)),
                Some("an address of this machine"),
                "{own}"
            );
        }
        for other in ["93.184.216.35", "2606:4700::6810:84e6", "127.0.0.1", "::1"] {
            assert_eq!(check.refusal(ip(other)), None, "{other}");
        }
        let fetcher = SafeFetcher::with_check(check, Duration::from_secs(1)).expect("fetcher");
        let url = Url::parse("http://[2606:4700::6810:84e5]:8402/x.pdf").expect("url");
        let error = fetcher.check_url(&url).expect_err("own address");
        assert_eq!(error.to_string(), REFUSED_TEXT);
    }

    #[test]
    fn the_machines_interface_addresses_are_refused() {
        let check = AddressCheck {
            policy: AddressPolicy {
                allow_loopback: true,
            },
            own: OwnAddresses::live().expect("interfaces listed"),
        };
        let addresses: Vec<IpAddr> = if_addrs::get_if_addrs()
            .expect("interfaces")
            .iter()
            .map(if_addrs::Interface::ip)
            .filter(|a| !a.is_loopback())
            .collect();
        if addresses.is_empty() {
            eprintln!("skipped: this machine has only loopback interfaces");
            return;
        }
        for address in addresses {
            assert!(check.refusal(address).is_some(), "{address}");
        }
    }

    #[test]
    fn every_refusal_shows_one_text() {
        let fetcher = fetcher_with(&["93.184.216.34"], Duration::from_secs(1));
        let mut reasons = Vec::new();
        for url in [
            "file:///etc/passwd",
            "gopher://127.0.0.1/",
            "http://user:secret@127.0.0.1/",
            "http://10.0.0.7/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[2002:7f00:1::]/",
            "http://[64:ff9b:1::a00:1]/",
            "http://[::ffff:0:7f00:1]/",
            "http://[2001::1]/",
            "http://[fd00:ec2::254]/",
            "http://93.184.216.34/",
            // 10.0.0.1 written as one hexadecimal number.
            "http://0x0a000001/",
        ] {
            // The pure check: nothing here may ever be connected to.
            let parsed = Url::parse(url).expect(url);
            let error = fetcher.check_url(&parsed).expect_err(url);
            assert_eq!(error.to_string(), REFUSED_TEXT, "{url}");
            let FetchError::Refused { reason } = error else {
                panic!("{url}: {error:?}");
            };
            reasons.push(reason);
        }
        // The log still tells them apart.
        assert!(reasons.iter().any(|r| r.contains("6to4")), "{reasons:?}");
        assert!(
            reasons.iter().any(|r| r.contains("this machine")),
            "{reasons:?}"
        );
        assert!(reasons.iter().any(|r| r.contains("scheme")), "{reasons:?}");
    }

    #[tokio::test]
    async fn every_failure_shows_one_text() {
        // A closed port: the project's one way to get one.
        let closed = test_devnet::free_port().expect("a free port");
        // A server that accepts and never answers.
        let silent = server_kit::testing::SilentServer::start().await;
        let silent_port = silent.port();
        let files = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/gone.pdf"))
            .respond_with(ResponseTemplate::new(404))
            .mount(&files)
            .await;
        Mock::given(method("GET"))
            .and(path("/nowhere"))
            .respond_with(ResponseTemplate::new(302))
            .mount(&files)
            .await;
        let fetcher = fetcher_with(&[], Duration::from_secs(1));
        let plain = files.address().port();
        let mut reasons = Vec::new();
        for url in [
            format!("http://127.0.0.1:{closed}/a.pdf?token=s3cret"),
            format!("http://127.0.0.1:{silent_port}/a.pdf?token=s3cret"),
            format!("{}/gone.pdf?token=s3cret", files.uri()),
            format!("{}/nowhere?token=s3cret", files.uri()),
            // TLS spoken to a plain HTTP server.
            format!("https://127.0.0.1:{plain}/a.pdf?token=s3cret"),
        ] {
            let error = fetcher.fetch(&url, 1000).await.expect_err(&url);
            assert_eq!(error.to_string(), UNREACHABLE_TEXT, "{url}");
            let FetchError::Unreachable { reason } = error else {
                panic!("{url}: {error:?}");
            };
            // The log names the cause, never the query (it may hold the caller's secret).
            assert!(!reason.contains("s3cret"), "{reason}");
            reasons.push(reason);
        }
        drop(silent);
        assert!(reasons[1].contains("timed out"), "{reasons:?}");
        assert!(reasons[2].contains("404"), "{reasons:?}");
        assert!(reasons[3].contains("Location"), "{reasons:?}");
        // Five different causes behind the one text.
        let mut distinct = reasons.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), reasons.len(), "{reasons:?}");
    }

    #[tokio::test]
    async fn redirects_into_refused_ranges_are_refused() {
        let files = MockServer::start().await;
        let targets = [
            "http://[2002:7f00:1::]/",
            "http://[64:ff9b:1::a00:1]/a.pdf",
            "http://[::ffff:0:a9fe:a9fe]/",
            "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
            "http://100.64.0.1/",
            "http://192.0.0.192/opc/v2/instance/",
            "http://[fd00:ec2::254]/latest/meta-data/",
            "http://0.0.0.0/",
            "http://93.184.216.34/",
        ];
        let fetcher = fetcher_with(&["93.184.216.34"], Duration::from_secs(2));
        for (i, target) in targets.iter().enumerate() {
            // Guard: a target the check lets through would be connected to; stop first.
            let parsed = Url::parse(target).expect("url");
            assert!(fetcher.check_url(&parsed).is_err(), "{target}");
            Mock::given(method("GET"))
                .and(path(format!("/hop{i}")))
                .respond_with(ResponseTemplate::new(302).insert_header("location", *target))
                .expect(1)
                .mount(&files)
                .await;
            let error = fetcher
                .fetch(&format!("{}/hop{i}", files.uri()), 1000)
                .await
                .expect_err(target);
            assert_eq!(error.to_string(), REFUSED_TEXT, "{target}");
            assert!(matches!(error, FetchError::Refused { .. }), "{target}");
        }
        files.verify().await;
    }

    #[tokio::test]
    async fn an_encoded_body_is_decoded_and_an_unknown_coding_refused() {
        use std::io::Write as _;
        let pdf = b"%PDF-1.4 encoded".to_vec();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(&pdf).expect("gzip");
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(&pdf).expect("deflate");
        let files = MockServer::start().await;
        for (route, coding, body) in [
            ("/gzip.pdf", "gzip", gzip.finish().expect("gzip")),
            (
                "/raw-deflate.pdf",
                "deflate",
                raw.finish().expect("deflate"),
            ),
            ("/brotli.pdf", "br", pdf.clone()),
            ("/twice.pdf", "gzip, gzip", pdf.clone()),
            ("/corrupt.pdf", "gzip", b"not gzip at all".to_vec()),
        ] {
            Mock::given(method("GET"))
                .and(path(route))
                .respond_with(
                    ResponseTemplate::new(200)
                        .insert_header("content-encoding", coding)
                        .set_body_bytes(body),
                )
                .mount(&files)
                .await;
        }
        let fetcher = fetcher_with(&[], Duration::from_secs(2));
        for route in ["/gzip.pdf", "/raw-deflate.pdf"] {
            let body = fetcher
                .fetch(&format!("{}{route}", files.uri()), 1000)
                .await
                .expect(route);
            assert_eq!(body, pdf, "{route}");
            // The limit applies to the decoded bytes.
            let error = fetcher
                .fetch(&format!("{}{route}", files.uri()), pdf.len() - 1)
                .await
                .expect_err(route);
            assert!(matches!(error, FetchError::TooLarge { .. }), "{error:?}");
        }
        for route in ["/brotli.pdf", "/twice.pdf", "/corrupt.pdf"] {
            let error = fetcher
                .fetch(&format!("{}{route}", files.uri()), 1000)
                .await
                .expect_err(route);
            assert!(matches!(error, FetchError::Unreachable { .. }), "{error:?}");
        }
        // Identity was asked for.
        let asked = files.received_requests().await.unwrap_or_default();
        assert!(asked.iter().all(|r| {
            r.headers
                .get("accept-encoding")
                .is_some_and(|v| v == "identity")
        }));
    }

    #[tokio::test]
    async fn pinning_size_cap_and_redirect_limit_still_hold() {
        let files = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/a.pdf"))
            .respond_with(ResponseTemplate::new(200).set_body_bytes(b"%PDF-1.4 x".to_vec()))
            .mount(&files)
            .await;
        Mock::given(method("GET"))
            .and(path("/big.pdf"))
            .respond_with(ResponseTemplate::new(200).set_body_bytes(vec![b'%'; 2000]))
            .mount(&files)
            .await;
        Mock::given(method("GET"))
            .and(path("/loop"))
            .respond_with(ResponseTemplate::new(302).insert_header("location", "/loop"))
            .mount(&files)
            .await;
        let fetcher = fetcher_with(&[], Duration::from_secs(2));
        let body = fetcher
            .fetch(&format!("{}/a.pdf", files.uri()), 1000)
            .await
            .expect("fetched");
        assert_eq!(body, b"%PDF-1.4 x");
        // By name too: localhost resolves to loopback, allowed here.
        let by_name = files.uri().replace("127.0.0.1", "localhost") + "/a.pdf";
        assert!(fetcher.fetch(&by_name, 1000).await.is_ok());
        let error = fetcher
            .fetch(&format!("{}/big.pdf", files.uri()), 1000)
            .await
            .expect_err("too large");
        assert!(matches!(error, FetchError::TooLarge { limit: 1000 }));
        let error = fetcher
            .fetch(&format!("{}/loop", files.uri()), 1000)
            .await
            .expect_err("loop");
        assert_eq!(error.to_string(), REFUSED_TEXT);
        // Without the loopback flag, the same name is refused by the resolver.
        let strict = SafeFetcher::with_check(
            AddressCheck {
                policy: AddressPolicy::default(),
                own: OwnAddresses::fixed(Vec::new()),
            },
            Duration::from_secs(2),
        )
        .expect("fetcher");
        let error = strict.fetch(&by_name, 1000).await.expect_err("loopback");
        let FetchError::Refused { reason } = error else {
            panic!("{error:?}");
        };
        assert!(reason.contains("resolves to"), "{reason}");
    }
}
