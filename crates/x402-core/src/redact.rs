//! Credentials out of URLs before they reach an error body, a log line or a printed
//! configuration. RPC providers put the API key in the URL (Alchemy `/v2/KEY`, Infura
//! `/v3/KEY`, QuickNode `/TOKEN/`, `?apikey=`, `user:pass@`), and alloy's and reqwest's errors
//! quote the URL they failed on, so every text that may hold one goes through [`scrub_text`].
//! This lives in the lowest crate both servers share, so there is one rule in one place.

/// What replaces the sensitive part of a URL.
pub const REDACTED: &str = "<redacted>";

/// Schemes whose URLs are scrubbed inside free text.
const SCHEMES: &[&str] = &["http", "https", "ws", "wss"];

/// `url` with its credentials removed: a URL with user info, a query, a fragment or a path
/// segment that looks like a key becomes `scheme://host[:port]/<redacted>`; any other URL is
/// returned as it was. Text that is not a URL but claims a scheme is redacted whole.
pub fn scrub_url(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else {
        return if url.contains("://") {
            REDACTED.to_owned()
        } else {
            url.to_owned()
        };
    };
    if !is_sensitive(&parsed) {
        return url.to_owned();
    }
    let host = parsed.host_str().unwrap_or("");
    match parsed.port() {
        Some(port) => format!("{}://{host}:{port}/{REDACTED}", parsed.scheme()),
        None => format!("{}://{host}/{REDACTED}", parsed.scheme()),
    }
}

/// `text` with every `http(s)://` or `ws(s)://` URL in it passed through [`scrub_url`].
pub fn scrub_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("://") {
        // The scheme is the run of scheme characters right before `://`.
        let scheme_start = rest[..found]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(found, |(i, _)| i);
        let scheme = &rest[scheme_start..found];
        let after = found + 3;
        let end = rest[after..]
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '(' | ')' | '`')
            })
            .map_or(rest.len(), |i| after + i);
        if SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme)) {
            out.push_str(&rest[..scheme_start]);
            out.push_str(&scrub_url(&rest[scheme_start..end]));
        } else {
            out.push_str(&rest[..end]);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn is_sensitive(url: &url::Url) -> bool {
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return true;
    }
    let mut previous = "";
    for segment in url.path().split('/') {
        if looks_like_key(segment, previous) {
            return true;
        }
        previous = segment;
    }
    false
}

/// A path segment that is probably a credential: the segment after a provider's version
/// prefix (`/v2/…`, `/v3/…`), or a long run of token characters mixing letters and digits
/// (QuickNode's 40-hex token, bare keys). Ordinary paths (`/rpc`, `/facilitator`) are short
/// or plain words.
fn looks_like_key(segment: &str, previous: &str) -> bool {
    let token_chars = !segment.is_empty()
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !token_chars {
        return false;
    }
    let versioned = matches!(previous, "v1" | "v2" | "v3") && segment.len() >= 8;
    let long_mixed = segment.len() >= 20
        && segment.bytes().any(|b| b.is_ascii_digit())
        && segment.bytes().any(|b| b.is_ascii_alphabetic());
    versioned || long_mixed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_keys_are_removed() {
        let cases = [
            (
                "https://base-mainnet.g.alchemy.com/v2/AbCdEfGhIjKlMnOpQrStUvWxYz012345",
                "https://base-mainnet.g.alchemy.com/<redacted>",
            ),
            (
                "https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef",
                "https://mainnet.infura.io/<redacted>",
            ),
            (
                "https://solemn-x.base-mainnet.quiknode.pro/0123456789abcdef0123456789abcdef01234567/",
                "https://solemn-x.base-mainnet.quiknode.pro/<redacted>",
            ),
            (
                "https://user:hunter2@rpc.example.test:8545/path",
                "https://rpc.example.test:8545/<redacted>",
            ),
            (
                "https://rpc.example.test/?apikey=SECRET",
                "https://rpc.example.test/<redacted>",
            ),
            ("wss://[::1]:9/v2/abcdefgh123", "wss://[::1]:9/<redacted>"),
        ];
        for (url, expected) in cases {
            assert_eq!(scrub_url(url), expected, "{url}");
        }
    }

    #[test]
    fn plain_urls_are_kept() {
        for url in [
            "https://mainnet.base.org",
            "https://arb1.arbitrum.io/rpc",
            "http://127.0.0.1:8545/",
            "https://x402.org/facilitator",
            "not a url",
        ] {
            assert_eq!(scrub_url(url), url);
        }
        assert_eq!(scrub_url("https://exa mple/?k=1"), REDACTED);
    }

    #[test]
    fn urls_inside_error_texts_are_scrubbed() {
        let error = "error sending request for url (https://base-mainnet.g.alchemy.com/v2/AbCdEfGhIjKlMnOpQrStUvWxYz012345): connection refused; retried https://u:p@h.test/x and http://127.0.0.1:8545";
        let scrubbed = scrub_text(error);
        assert!(!scrubbed.contains("AbCdEf"), "{scrubbed}");
        assert!(!scrubbed.contains("u:p@"), "{scrubbed}");
        assert_eq!(
            scrubbed,
            "error sending request for url (https://base-mainnet.g.alchemy.com/<redacted>): connection refused; retried https://h.test/<redacted> and http://127.0.0.1:8545"
        );
        assert_eq!(scrub_text("no url here: a://b"), "no url here: a://b");
    }
}
