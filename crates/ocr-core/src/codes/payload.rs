//! Parsing a decoded text into a typed payload, and finding the URLs in it.
//!
//! Every parser takes any string and returns `None` for what it does not recognise; none of them
//! panics (property tests below and the fuzz target in `fuzz/` check that).

mod calendar;
mod contact;
mod content_line;
mod epc;
mod fields;
mod iban;
mod swiss;
mod wifi;

use doc_model::{CodePayload, UncheckedUrl};

use contact::strip_prefix_ignore_case;

/// The payload of a decoded text and every URL in it. The URLs are only reported: nothing here
/// (or anywhere in this crate) opens, fetches or resolves them.
pub fn parse_payload(text: &str) -> (CodePayload, Vec<UncheckedUrl>) {
    let payload = classify(text);
    let mut urls: Vec<String> = match &payload {
        CodePayload::Url { url } => vec![url.clone()],
        CodePayload::Vcard(card) => card.urls.clone(),
        _ => Vec::new(),
    };
    for url in urls_in_text(text) {
        if !urls.contains(&url) {
            urls.push(url);
        }
    }
    (payload, urls.into_iter().map(UncheckedUrl::new).collect())
}

fn classify(text: &str) -> CodePayload {
    let head = text.trim_start();
    let starts = |prefix: &str| strip_prefix_ignore_case(head, prefix).is_some();
    let parsed = if head.starts_with("BCD\n") || head.starts_with("BCD\r\n") {
        epc::parse_epc(head).map(CodePayload::Epc)
    } else if head.starts_with("SPC\n") || head.starts_with("SPC\r\n") {
        swiss::parse_swiss_qr(head).map(CodePayload::SwissQr)
    } else if starts("WIFI:") {
        wifi::parse_wifi(head).map(CodePayload::Wifi)
    } else if starts("MECARD:") {
        contact::parse_mecard(head).map(CodePayload::Vcard)
    } else if starts("BEGIN:VCARD") {
        contact::parse_vcard(head).map(CodePayload::Vcard)
    } else if starts("BEGIN:VCALENDAR") || starts("BEGIN:VEVENT") {
        calendar::parse_calendar(head).map(CodePayload::Calendar)
    } else {
        single_url(head).map(|url| CodePayload::Url { url })
    };
    parsed.unwrap_or(CodePayload::Text)
}

/// The whole text as one web address: `http(s)://host…` without white space, or DoCoMo's
/// `URLTO:`/`URL:` bookmark forms.
fn single_url(text: &str) -> Option<String> {
    let text = text.trim();
    let candidate = strip_prefix_ignore_case(text, "URLTO:")
        .or_else(|| strip_prefix_ignore_case(text, "URL:"))
        .unwrap_or(text)
        .trim();
    let after_scheme = strip_prefix_ignore_case(candidate, "https://")
        .or_else(|| strip_prefix_ignore_case(candidate, "http://"))?;
    let has_host = after_scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '[');
    (has_host && !candidate.chars().any(char::is_whitespace)).then(|| candidate.to_owned())
}

/// Every `http://` or `https://` address in a text, each ending at white space, a quote or an
/// angle bracket, without trailing punctuation.
fn urls_in_text(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut urls: Vec<String> = Vec::new();
    let mut from = 0;
    while let Some(offset) = lower[from..].find("http") {
        let start = from + offset;
        let rest = &text[start..];
        let scheme_len = if strip_prefix_ignore_case(rest, "https://").is_some() {
            8
        } else if strip_prefix_ignore_case(rest, "http://").is_some() {
            7
        } else {
            0
        };
        if scheme_len == 0 {
            from = start + 4;
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '<' | '>' | '\u{0}'..='\u{1f}'))
            .unwrap_or(rest.len());
        let url = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '\'']);
        if url.len() > scheme_len && !urls.iter().any(|u| u == url) {
            urls.push(url.to_owned());
        }
        from = start + end.max(scheme_len);
    }
    urls
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn urls_are_payloads_and_unchecked() {
        let (payload, urls) = parse_payload("https://example.org/pay?id=42");
        assert_eq!(
            payload,
            CodePayload::Url {
                url: "https://example.org/pay?id=42".into()
            }
        );
        assert_eq!(
            urls,
            vec![UncheckedUrl::new("https://example.org/pay?id=42")]
        );
        assert!(urls.iter().all(|u| !u.checked));
        let (payload, _) = parse_payload("URLTO:http://example.com");
        assert_eq!(
            payload,
            CodePayload::Url {
                url: "http://example.com".into()
            }
        );
    }

    #[test]
    fn urls_inside_other_payloads_are_listed() {
        let (payload, urls) = parse_payload("Visit https://example.org/a, or HTTP://EXAMPLE.COM.");
        assert_eq!(payload, CodePayload::Text);
        assert_eq!(
            urls,
            vec![
                UncheckedUrl::new("https://example.org/a"),
                UncheckedUrl::new("HTTP://EXAMPLE.COM")
            ]
        );
        let (payload, urls) = parse_payload(
            "BEGIN:VCARD\nFN:A\nURL:www.example.org\nNOTE:see https://x.example\nEND:VCARD",
        );
        assert!(matches!(payload, CodePayload::Vcard(_)));
        assert_eq!(
            urls,
            vec![
                UncheckedUrl::new("www.example.org"),
                UncheckedUrl::new("https://x.example")
            ]
        );
    }

    #[test]
    fn dispatch() {
        assert!(matches!(
            parse_payload("WIFI:S:net;T:WPA;P:x;;").0,
            CodePayload::Wifi(_)
        ));
        assert!(matches!(
            parse_payload("BEGIN:VEVENT\nSUMMARY:x\nEND:VEVENT").0,
            CodePayload::Calendar(_)
        ));
        assert!(matches!(
            parse_payload("MECARD:N:A,B;;").0,
            CodePayload::Vcard(_)
        ));
        // An EPC payload with a broken IBAN is only text.
        let broken = "BCD\n002\n1\nSCT\n\nName\nDE00370400440532013000\nEUR1";
        assert_eq!(parse_payload(broken).0, CodePayload::Text);
        assert_eq!(parse_payload("4006381333931").0, CodePayload::Text);
        assert_eq!(parse_payload("http:// spaced").0, CodePayload::Text);
        assert_eq!(parse_payload("").0, CodePayload::Text);
    }

    proptest! {
        #[test]
        fn any_text_parses_without_panic(text in any::<String>()) {
            let (_, urls) = parse_payload(&text);
            prop_assert!(urls.iter().all(|u| !u.checked));
        }

        #[test]
        fn any_text_behind_a_known_prefix_parses_without_panic(
            prefix in prop::sample::select(vec![
                "BCD\n", "BCD\r\n002\r\n1\r\nSCT\r\n", "SPC\n0200\n1\n", "WIFI:", "MECARD:",
                "BEGIN:VCARD\n", "BEGIN:VEVENT\n", "URLTO:", "https://",
            ]),
            lines in prop::collection::vec("[ -~äöü\\\\;:,\r]{0,40}", 0..40),
        ) {
            let text = format!("{prefix}{}", lines.join("\n"));
            let _ = parse_payload(&text);
        }

        #[test]
        fn every_valid_iban_survives_formatting(digits in "[0-9]{18}") {
            // Build a German IBAN with the right check digits, then spaced and lower-cased.
            let bban = digits;
            let numeric = format!("{bban}131400");
            let remainder = numeric.bytes().fold(0u32, |r, b| (r * 10 + u32::from(b - b'0')) % 97);
            let iban = format!("DE{:02}{bban}", 98 - remainder);
            prop_assert_eq!(iban::normalise_iban(&iban.to_lowercase()), Some(iban));
        }
    }
}
