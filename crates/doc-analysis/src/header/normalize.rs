//! Normalisers for header values: dates to ISO, amounts to decimal strings, IBAN (with its
//! mod-97 check), BIC, VAT ids and currencies. Each takes printed text and returns `None` when
//! the text does not have the expected form; none of them panics on any input.

use std::sync::LazyLock;

use regex::Regex;

/// Regexes are compiled once; the patterns are literals, so a failure is a programming error
/// caught by the unit tests, and the fallback (a regex that matches nothing) keeps input paths
/// free of panics.
pub(crate) fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|_| never_matches())
}

fn never_matches() -> Regex {
    // `[^\s\S]` matches no character at all; it always compiles.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable_regex())
}

#[allow(clippy::panic)]
fn unreachable_regex() -> Regex {
    panic!("the empty-class regex always compiles")
}

/// Month names and their usual abbreviations in the five languages the service reads (German,
/// English, French, Dutch, Italian), lower case, accents as printed and without them.
const MONTHS: &[(&str, u32)] = &[
    ("januar", 1),
    ("january", 1),
    ("jänner", 1),
    ("janvier", 1),
    ("janv", 1),
    ("januari", 1),
    ("gennaio", 1),
    ("genn", 1),
    ("gen", 1),
    ("jan", 1),
    ("februar", 2),
    ("february", 2),
    ("février", 2),
    ("fevrier", 2),
    ("févr", 2),
    ("fevr", 2),
    ("februari", 2),
    ("febbraio", 2),
    ("febbr", 2),
    ("feb", 2),
    ("fév", 2),
    ("märz", 3),
    ("maerz", 3),
    ("march", 3),
    ("mars", 3),
    ("maart", 3),
    ("marzo", 3),
    ("mär", 3),
    ("mrt", 3),
    ("mar", 3),
    ("april", 4),
    ("avril", 4),
    ("aprile", 4),
    ("avr", 4),
    ("apr", 4),
    ("mai", 5),
    ("may", 5),
    ("mei", 5),
    ("maggio", 5),
    ("magg", 5),
    ("mag", 5),
    ("juni", 6),
    ("june", 6),
    ("juin", 6),
    ("giugno", 6),
    ("giu", 6),
    ("jun", 6),
    ("juli", 7),
    ("july", 7),
    ("juillet", 7),
    ("juil", 7),
    ("luglio", 7),
    ("lug", 7),
    ("jul", 7),
    ("august", 8),
    ("août", 8),
    ("aout", 8),
    ("augustus", 8),
    ("agosto", 8),
    ("ago", 8),
    ("aug", 8),
    ("september", 9),
    ("septembre", 9),
    ("settembre", 9),
    ("sett", 9),
    ("set", 9),
    ("sept", 9),
    ("sep", 9),
    ("oktober", 10),
    ("october", 10),
    ("octobre", 10),
    ("ottobre", 10),
    ("ott", 10),
    ("okt", 10),
    ("oct", 10),
    ("november", 11),
    ("novembre", 11),
    ("nov", 11),
    ("dezember", 12),
    ("december", 12),
    ("décembre", 12),
    ("decembre", 12),
    ("déc", 12),
    ("dicembre", 12),
    ("dic", 12),
    ("dez", 12),
    ("dec", 12),
];

fn month_number(name: &str) -> Option<u32> {
    let name = name.trim_end_matches('.').to_lowercase();
    MONTHS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

fn full_year(printed: &str) -> Option<i32> {
    let year: i32 = printed.parse().ok()?;
    match printed.len() {
        // Two-digit years on current business documents are this century.
        2 => Some(2000 + year),
        4 if (1900..=2199).contains(&year) => Some(year),
        _ => None,
    }
}

/// `YYYY-MM-DD` when the day exists in the (proleptic Gregorian) calendar.
fn iso(year: i32, month: u32, day: u32) -> Option<String> {
    chrono::NaiveDate::from_ymd_opt(year, month, day)
        .map(|_| format!("{year:04}-{month:02}-{day:02}"))
}

/// A date found in a text: its ISO form and where it stood (byte range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundDate {
    /// `YYYY-MM-DD`.
    pub iso: String,
    /// Byte offset of the first character of the printed date.
    pub start: usize,
    /// Byte offset just after the printed date.
    pub end: usize,
}

static NUMERIC_DATE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?x)
        (?P<iso>\b(?P<iy>\d{4})[-\x{2010}\x{2011}](?P<im>\d{1,2})[-\x{2010}\x{2011}](?P<id>\d{1,2})\b)
      | (?P<dot>\b(?P<dd>\d{1,2})\.\s?(?P<dm>\d{1,2})\.\s?(?P<dy>\d{4}|\d{2})\b)
      | (?P<slash>\b(?P<sa>\d{1,2})/(?P<sb>\d{1,2})/(?P<sy>\d{4}|\d{2})\b)
      | (?P<dash>\b(?P<ha>\d{1,2})[-\x{2010}\x{2011}](?P<hb>\d{1,2})[-\x{2010}\x{2011}](?P<hy>\d{4})\b)
      | (?P<dmy>\b(?P<wd>\d{1,2})(?:er|st|nd|rd|th)?\.?\s+(?P<wm>\p{L}{3,9}\.?)\s+(?P<wy>\d{4})\b)
      | (?P<mdy>\b(?P<vm>\p{L}{3,9}\.?)\s+(?P<vd>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<vy>\d{4})\b)
        ",
    )
});

/// Every date in `text`, left to right. `day_first` decides ambiguous slash dates (`03/04/2026`);
/// German documents write the day first, English ones are read month first unless the first
/// number cannot be a month.
pub fn find_dates(text: &str, day_first: bool) -> Vec<FoundDate> {
    let mut found = Vec::new();
    for caps in NUMERIC_DATE.captures_iter(text) {
        let num = |name: &str| caps.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
        let year = |name: &str| caps.name(name).and_then(|m| full_year(m.as_str()));
        let (whole, date) = if let Some(m) = caps.name("iso") {
            let y = year("iy");
            (
                m,
                y.zip(num("im"))
                    .zip(num("id"))
                    .and_then(|((y, mo), d)| iso(y, mo, d)),
            )
        } else if let Some(m) = caps.name("dot") {
            let y = year("dy");
            (
                m,
                y.zip(num("dm"))
                    .zip(num("dd"))
                    .and_then(|((y, mo), d)| iso(y, mo, d)),
            )
        } else if let Some(m) = caps.name("slash") {
            (m, slash_date(num("sa"), num("sb"), year("sy"), day_first))
        } else if let Some(m) = caps.name("dash") {
            (m, slash_date(num("ha"), num("hb"), year("hy"), true))
        } else if let Some(m) = caps.name("dmy") {
            let month = caps.name("wm").and_then(|m| month_number(m.as_str()));
            let y = year("wy");
            (
                m,
                y.zip(month)
                    .zip(num("wd"))
                    .and_then(|((y, mo), d)| iso(y, mo, d)),
            )
        } else if let Some(m) = caps.name("mdy") {
            let month = caps.name("vm").and_then(|m| month_number(m.as_str()));
            let y = year("vy");
            (
                m,
                y.zip(month)
                    .zip(num("vd"))
                    .and_then(|((y, mo), d)| iso(y, mo, d)),
            )
        } else {
            continue;
        };
        if let Some(iso) = date {
            found.push(FoundDate {
                iso,
                start: whole.start(),
                end: whole.end(),
            });
        }
    }
    found
}

fn slash_date(
    a: Option<u32>,
    b: Option<u32>,
    year: Option<i32>,
    day_first: bool,
) -> Option<String> {
    let (a, b, year) = (a?, b?, year?);
    let day_first = if a > 12 {
        true
    } else if b > 12 {
        false
    } else {
        day_first
    };
    if day_first {
        iso(year, b, a)
    } else {
        iso(year, a, b)
    }
}

/// The first date in `text` as `YYYY-MM-DD`.
pub fn parse_date(text: &str, day_first: bool) -> Option<String> {
    find_dates(text, day_first)
        .into_iter()
        .next()
        .map(|d| d.iso)
}

/// An amount found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundAmount {
    /// Decimal string with a point and no grouping, e.g. `-1234.56`.
    pub decimal: String,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just after it.
    pub end: usize,
    /// A currency sign or code stood next to it.
    pub with_currency: bool,
}

static AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?x)
        (?P<cur1>(?:EUR|USD|GBP|CHF|€|\$|£)\s?)?
        (?P<sign>[-−–]\s?)?
        (?P<num>\d{1,3}(?:\x20\d{3})+,\d{2}|\d{1,3}(?:[.,\x{2009}\x{202F}'\x{A0}]\d{3})+[.,]\d{1,4}|\d+[.,]\d{1,4}|\d{1,3}(?:[.,\x{2009}\x{202F}'\x{A0}]\d{3})+|\d+)
        (?P<trail>-)?
        (?P<cur2>\s?(?:EUR|USD|GBP|CHF|€|\$|£))?
        (?P<pct>\s?%)?
        ",
    )
});

/// Every amount-like number in `text`, left to right. Percentages are skipped. German
/// (`1.234,56`), English (`1,234.56`) and French (`1 234,56`, grouped by a space, read only
/// with a decimal comma and two decimals) forms are read: the last separator followed by
/// one, two or four digits is the decimal separator, one followed by exactly three digits
/// groups thousands.
pub fn find_amounts(text: &str) -> Vec<FoundAmount> {
    let mut found = Vec::new();
    for caps in AMOUNT.captures_iter(text) {
        if caps.name("pct").is_some() {
            continue;
        }
        let Some(num) = caps.name("num") else {
            continue;
        };
        // A number glued to letters or digits is part of an identifier, not an amount.
        let before = text[..num.start()].chars().next_back();
        let after = text[num.end()..].chars().next();
        let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '/');
        let head = &text[..num.start()];
        let after_separator = head.ends_with(['.', ',', ':'])
            && head[..head.len() - 1].ends_with(|c: char| c.is_ascii_digit());
        if caps.name("cur1").is_none()
            && caps.name("sign").is_none()
            && (glued(before) || after_separator)
        {
            continue;
        }
        // `04.04` of `04.04.2013` is part of a date or a version number.
        let rest = &text[num.end()..];
        let separator_then_digit = rest.starts_with(['.', ',', ':'])
            && rest[1..].starts_with(|c: char| c.is_ascii_digit());
        if (glued(after) || separator_then_digit)
            && caps.name("cur2").is_none()
            && caps.name("trail").is_none()
        {
            continue;
        }
        let Some(decimal) = normalize_number(num.as_str()) else {
            continue;
        };
        let negative = caps.name("sign").is_some() || caps.name("trail").is_some();
        let start = caps.get(0).map_or(num.start(), |m| m.start());
        let end = caps.get(0).map_or(num.end(), |m| m.end());
        found.push(FoundAmount {
            decimal: if negative && decimal.trim_start_matches(['0', '.']).is_empty() {
                decimal
            } else if negative {
                format!("-{decimal}")
            } else {
                decimal
            },
            start,
            end,
            with_currency: caps.name("cur1").is_some() || caps.name("cur2").is_some(),
        });
    }
    found
}

/// A printed number (`1.234,56`, `1,234.56`, `1'234.5`, `198`) as a decimal string with a point.
fn normalize_number(printed: &str) -> Option<String> {
    let is_group = |c: char| matches!(c, '\'' | ' ' | '\u{A0}' | '\u{2009}' | '\u{202F}');
    let compact: String = printed.chars().filter(|c| !is_group(*c)).collect();
    let (int_part, frac_part) = match compact.rfind(['.', ',']) {
        None => (compact.as_str(), ""),
        Some(pos) => {
            let sep = if compact[pos..].starts_with('.') {
                '.'
            } else {
                ','
            };
            let other = if sep == '.' { ',' } else { '.' };
            let (head, tail) = (&compact[..pos], &compact[pos + 1..]);
            // The same separator earlier (`1.234.567`) or exactly three digits after a lone
            // separator (`1.234`, but not `0.025`) group thousands.
            let grouping = head.contains(sep)
                || (tail.len() == 3
                    && !head.contains(other)
                    && head.trim_start_matches('0') == head
                    && !head.is_empty());
            if grouping {
                (compact.as_str(), "")
            } else {
                (head, tail)
            }
        }
    };
    let digits: String = int_part.chars().filter(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    let trimmed = digits.trim_start_matches('0');
    let int_clean = if trimmed.is_empty() { "0" } else { trimmed };
    if frac_part.is_empty() {
        Some(int_clean.to_string())
    } else {
        Some(format!("{int_clean}.{frac_part}"))
    }
}

/// Normalises a printed number with no sign, e.g. for round-trip tests: [`find_amounts`] on a
/// bare number.
pub fn parse_amount(text: &str) -> Option<String> {
    find_amounts(text).into_iter().next().map(|a| a.decimal)
}

/// Two decimal strings denote the same amount to the cent.
pub fn same_amount(a: &str, b: &str) -> bool {
    match (to_cents(a), to_cents(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A decimal string (`-1234.5`) in cents, rounded half away from zero.
pub fn to_cents(decimal: &str) -> Option<i64> {
    let value: f64 = decimal.trim().parse().ok()?;
    value.is_finite().then(|| (value * 100.0).round() as i64)
}

/// Upper-case, without spaces or dots/dashes used as visual grouping.
pub fn compact_upper(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Whether `iban` (upper-case, no spaces) is valid: shape, mod-97 checksum and, for the
/// countries of the ISO 13616 registry, their length and account-number format (iban_validate);
/// IBANs of other countries are checked by shape and checksum alone.
pub fn iban_is_valid(iban: &str) -> bool {
    // The shortest IBAN of the registry has 15 characters; lower case is not a printed IBAN.
    if !(15..=34).contains(&iban.len()) || iban.bytes().any(|b| b.is_ascii_lowercase()) {
        return false;
    }
    matches!(
        iban.parse::<::iban::Iban>(),
        Ok(_) | Err(::iban::ParseIbanError::UnknownCountry(_))
    )
}

/// An IBAN found in a text: normalised, with its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundIban {
    /// Upper-case, no spaces.
    pub iban: String,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just after it.
    pub end: usize,
}

static IBAN_START: LazyLock<Regex> = LazyLock::new(|| compile(r"\b[A-Z]{2}[0-9OIl]{2}"));

/// Countries whose account part (BBAN) is digits only in the ISO 13616 IBAN registry: there a
/// letter that OCR confuses with a digit can only be that digit.
const NUMERIC_BBAN: &[&str] = &[
    "AT", "BA", "BE", "CZ", "DE", "DK", "EE", "ES", "FI", "HR", "HU", "LT", "ME", "NO", "PL", "PT",
    "RS", "SE", "SI", "SK",
];

/// Most letters of a recognised IBAN taken for digits (`DEO2…` for `DE02…`). Each repair must
/// still pass the mod-97 check, which a wrong one fails 96 times in 97.
const MAX_DIGIT_REPAIRS: usize = 2;

/// The digit a letter stands for where a digit must be (the shapes OCR confuses).
fn digit_for(c: char) -> Option<char> {
    match c {
        'O' | 'o' | 'D' | 'Q' => Some('0'),
        'I' | 'l' | '|' => Some('1'),
        'Z' => Some('2'),
        'S' => Some('5'),
        'G' => Some('6'),
        'B' => Some('8'),
        _ => None,
    }
}

/// The longest valid IBAN starting at byte `start` of `text`, with the byte offset after it.
/// With `repair`, letters where the country's format wants digits are read as the digits OCR
/// confuses them with (at most [`MAX_DIGIT_REPAIRS`]).
fn iban_from(text: &str, start: usize, repair: bool) -> Option<(String, usize)> {
    let mut compact = String::new();
    let mut repairs = 0;
    let mut best = None;
    for (offset, c) in text[start..].char_indices() {
        if c.is_ascii_alphanumeric() || (repair && c == '|') {
            let position = compact.len();
            let numeric = position >= 2
                && (position < 4 || NUMERIC_BBAN.contains(&compact.get(..2).unwrap_or_default()));
            let c = match digit_for(c) {
                Some(digit) if repair && numeric => {
                    repairs += 1;
                    digit
                }
                _ => c.to_ascii_uppercase(),
            };
            if repairs > MAX_DIGIT_REPAIRS {
                break;
            }
            compact.push(c);
            if compact.len() > 34 {
                break;
            }
            if compact.len() >= 15 && iban_is_valid(&compact) {
                best = Some((compact.clone(), start + offset + c.len_utf8()));
            }
        } else if c != ' ' {
            break;
        }
    }
    best
}

/// Every valid IBAN in `text`, printed compact or in groups separated by single spaces. A
/// letter OCR put where a digit must be is read as that digit when the result passes the check.
pub fn find_ibans(text: &str) -> Vec<FoundIban> {
    let mut found: Vec<FoundIban> = Vec::new();
    for start in IBAN_START.find_iter(text) {
        if found.last().is_some_and(|f| start.start() < f.end) {
            continue;
        }
        let best =
            iban_from(text, start.start(), false).or_else(|| iban_from(text, start.start(), true));
        if let Some((iban, end)) = best {
            found.push(FoundIban {
                iban,
                start: start.start(),
                end,
            });
        }
    }
    found
}

/// A BIC (ISO 9362) in `text` when the whole text is one, with or without spaces: 4 letters
/// (bank), 2 letters (country), 2 letters or digits (location), optionally 3 more (branch).
pub fn parse_bic(text: &str) -> Option<String> {
    let compact = compact_upper(text);
    let b = compact.as_bytes();
    let shape_ok = (b.len() == 8 || b.len() == 11)
        && b[..6].iter().all(u8::is_ascii_uppercase)
        && b[6..].iter().all(u8::is_ascii_alphanumeric);
    shape_ok.then_some(compact)
}

static VAT_ID: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?x)\b(?:
          DE\s?\d{3}\s?\d{3}\s?\d{3}
        | ATU\s?\d{8}
        | FR\s?[0-9A-Z]{2}\s?\d{3}\s?\d{3}\s?\d{3}
        | NL\s?\d{9}\s?B\s?\d{2}
        | BE\s?0?\d{3}\.?\s?\d{3}\.?\s?\d{3}
        | IT\s?\d{11}
        | ES\s?[0-9A-Z]\d{7}[0-9A-Z]
        | GB\s?\d{3}\s?\d{4}\s?\d{2}(?:\d{3})?
        | LU\s?\d{8}
        | PL\s?\d{10}
        | DK\s?\d{8}
        | SE\s?\d{12}
        | CZ\s?\d{8,10}
        | AT\s?U\s?\d{8}
        | CHE[-\s]?\d{3}\.?\d{3}\.?\d{3}
        )\b",
    )
});

/// A VAT id found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundVatId {
    /// Upper-case, no spaces or dots.
    pub vat_id: String,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just after it.
    pub end: usize,
}

/// Every EU (and Swiss) VAT id in `text` in its national shape.
pub fn find_vat_ids(text: &str) -> Vec<FoundVatId> {
    VAT_ID
        .find_iter(text)
        .map(|m| FoundVatId {
            vat_id: compact_upper(m.as_str()),
            start: m.start(),
            end: m.end(),
        })
        .collect()
}

/// The ISO 4217 code of a currency printed as code, sign or name.
pub fn currency_code(text: &str) -> Option<&'static str> {
    const CODES: &[(&str, &str)] = &[
        ("EUR", "EUR"),
        ("€", "EUR"),
        ("EURO", "EUR"),
        ("USD", "USD"),
        ("US$", "USD"),
        ("$", "USD"),
        ("GBP", "GBP"),
        ("£", "GBP"),
        ("CHF", "CHF"),
        ("SFR", "CHF"),
        ("JPY", "JPY"),
        ("¥", "JPY"),
        ("SEK", "SEK"),
        ("NOK", "NOK"),
        ("DKK", "DKK"),
        ("PLN", "PLN"),
        ("CZK", "CZK"),
        ("HUF", "HUF"),
        ("CAD", "CAD"),
        ("AUD", "AUD"),
        ("INR", "INR"),
        ("₹", "INR"),
    ];
    let token = text.trim().trim_end_matches(['.', ':', ',']).to_uppercase();
    CODES.iter().find(|(k, _)| *k == token).map(|(_, v)| *v)
}

/// Every currency sign or code in `text` (as whole tokens or glued to a number).
pub fn find_currencies(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for token in text.split(|c: char| {
        c.is_whitespace()
            || c.is_ascii_digit()
            || c == ','
            || c == '.'
            || c == '-'
            || c == '('
            || c == ')'
    }) {
        if token.is_empty() {
            continue;
        }
        if let Some(code) = currency_code(token) {
            out.push(code);
        }
    }
    out
}

/// Whitespace collapsed to single spaces, trimmed.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn dates_in_every_notation() {
        let de = |t: &str| parse_date(t, true);
        let en = |t: &str| parse_date(t, false);
        assert_eq!(de("21.11.2026").as_deref(), Some("2026-11-21"));
        assert_eq!(de("am 5.3.18 geliefert").as_deref(), Some("2018-03-05"));
        assert_eq!(de("21. November 2026").as_deref(), Some("2026-11-21"));
        assert_eq!(de("1. März 2024").as_deref(), Some("2024-03-01"));
        // Month names of French, Dutch and Italian documents, abbreviated or not.
        assert_eq!(de("8 février 2021").as_deref(), Some("2021-02-08"));
        assert_eq!(de("1er août 2025").as_deref(), Some("2025-08-01"));
        assert_eq!(de("3 déc. 2024").as_deref(), Some("2024-12-03"));
        assert_eq!(de("12 maart 2023").as_deref(), Some("2023-03-12"));
        assert_eq!(de("30 mei 2022").as_deref(), Some("2022-05-30"));
        assert_eq!(de("15 settembre 2024").as_deref(), Some("2024-09-15"));
        assert_eq!(de("2 gennaio 2026").as_deref(), Some("2026-01-02"));
        assert_eq!(de("4 dicembre 2025").as_deref(), Some("2025-12-04"));
        assert_eq!(de("5 Lieferungen 2024"), None);
        assert_eq!(en("November 21, 2026").as_deref(), Some("2026-11-21"));
        assert_eq!(en("Nov. 2nd, 2026").as_deref(), Some("2026-11-02"));
        assert_eq!(en("2026-11-21").as_deref(), Some("2026-11-21"));
        assert_eq!(de("21/11/2026").as_deref(), Some("2026-11-21"));
        assert_eq!(de("03/04/2026").as_deref(), Some("2026-04-03"));
        assert_eq!(en("03/04/2026").as_deref(), Some("2026-03-04"));
        assert_eq!(en("21/11/2026").as_deref(), Some("2026-11-21"));
        assert_eq!(de("31.02.2026"), None);
        assert_eq!(de("29.02.2024").as_deref(), Some("2024-02-29"));
        // Leap years of the Gregorian calendar: every fourth, not centuries, but every 400th.
        assert_eq!(de("29.02.2026"), None);
        assert_eq!(de("29.02.2100"), None);
        assert_eq!(de("29.02.2000").as_deref(), Some("2000-02-29"));
        assert_eq!(de("31.04.2026"), None);
        assert_eq!(de("00.04.2026"), None);
        assert_eq!(de("Rechnung 471102"), None);
        assert_eq!(de("Version 1.2.3"), None);
        // Typeset hyphens (U+2010) as a PDF of a French generator prints them.
        let iso: Vec<String> = find_dates("Date de la facture: 18\u{2010}08\u{2010}2026", true)
            .into_iter()
            .map(|d| d.iso)
            .collect();
        assert_eq!(iso, ["2026-08-18"]);
    }

    #[test]
    fn amounts_in_german_and_english_forms() {
        assert_eq!(parse_amount("1.234,56").as_deref(), Some("1234.56"));
        assert_eq!(parse_amount("1,234.56").as_deref(), Some("1234.56"));
        assert_eq!(parse_amount("529,87 €").as_deref(), Some("529.87"));
        assert_eq!(
            parse_amount("EUR 1\u{A0}234,50").as_deref(),
            Some("1234.50")
        );
        assert_eq!(parse_amount("0.025 €").as_deref(), Some("0.025"));
        assert_eq!(parse_amount("bis 04.04.2013"), None);
        assert_eq!(parse_amount("-233,47").as_deref(), Some("-233.47"));
        assert_eq!(parse_amount("198.00").as_deref(), Some("198.00"));
        assert_eq!(parse_amount("1.234").as_deref(), Some("1234"));
        assert_eq!(parse_amount("1.234.567,8").as_deref(), Some("1234567.8"));
        assert_eq!(parse_amount("9,9000").as_deref(), Some("9.9000"));
        assert_eq!(parse_amount("19 %"), None);
        assert_eq!(parse_amount("ABC123"), None);
        assert!(same_amount("1234.5", "1234.50"));
        assert!(!same_amount("1234.5", "1234.05"));
        // French digit groups (a space) with a decimal comma.
        let french: Vec<String> = find_amounts("Total TTC 1 693,20 €")
            .into_iter()
            .map(|a| a.decimal)
            .collect();
        assert_eq!(french, ["1693.20"]);
    }

    #[test]
    fn iban_checksums_of_standard_examples() {
        // Examples of the ISO 13616 registry and the national banking associations.
        for valid in [
            "DE89370400440532013000",
            "GB82WEST12345698765432",
            "FR1420041010050500013M02606",
            "AT611904300234573201",
            "CH9300762011623852957",
            "NL91ABNA0417164300",
            "BE68539007547034",
            "DE08700901001234567890",
        ] {
            assert!(iban_is_valid(valid), "{valid}");
        }
        assert!(
            !iban_is_valid("DE89370400440532013001"),
            "checksum off by one"
        );
        assert!(
            !iban_is_valid("DE8937040044053201300"),
            "one digit short for DE"
        );
        assert!(!iban_is_valid("de89370400440532013000"), "lower case");
        assert!(!iban_is_valid("DE"), "too short");
        // The registry's account format: a German account number has digits only, even when
        // the checksum is right.
        assert!(
            !iban_is_valid("DE0537040044053201300A"),
            "letter in a DE account"
        );
        // A country outside the registry: shape and checksum alone.
        assert!(iban_is_valid("ZZ33123456789012345"));
        assert!(!iban_is_valid("ZZ34123456789012345"));
        let found = find_ibans("IBAN-Nr.: DE08 7009 0100 1234 5678 90  BIC: GENODEF1M04");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].iban, "DE08700901001234567890");
        assert!(find_ibans("DE08 7009 0100 1234 5678 91").is_empty());
        // Recognised letters where the format wants digits, kept only when the check holds.
        let repaired = find_ibans("IBAN : DEO2120300000000202051");
        assert_eq!(repaired.len(), 1);
        assert_eq!(repaired[0].iban, "DE02120300000000202051");
        assert_eq!(
            find_ibans("DE08 7OO9 O1OO 1234 5678 9O").len(),
            0,
            "more than two repairs"
        );
        assert_eq!(
            find_ibans("DE08 7009 0100 1234 5678 9O")[0].iban,
            "DE08700901001234567890"
        );
        assert!(
            find_ibans("DEO3120300000000202051").is_empty(),
            "the check still fails"
        );
        // Letters of an account part that may hold letters are read as printed.
        assert!(find_ibans("GB82WESTI2345698765432").is_empty());
    }

    #[test]
    fn bic_vat_and_currency() {
        assert_eq!(parse_bic("GENODEF1M04").as_deref(), Some("GENODEF1M04"));
        assert_eq!(parse_bic("COBADEFFXXX").as_deref(), Some("COBADEFFXXX"));
        assert_eq!(parse_bic("COBA DE FF").as_deref(), Some("COBADEFF"));
        assert_eq!(parse_bic("12345678"), None);
        assert_eq!(parse_bic("COBADEFFXX"), None);
        let vat = find_vat_ids("USt-IdNr.: DE 123 456 789, FR11999999998");
        let ids: Vec<_> = vat.iter().map(|v| v.vat_id.as_str()).collect();
        assert_eq!(ids, ["DE123456789", "FR11999999998"]);
        assert_eq!(currency_code("€"), Some("EUR"));
        assert_eq!(currency_code("usd"), Some("USD"));
        assert_eq!(currency_code("Euro"), Some("EUR"));
        assert_eq!(currency_code("XYZ"), None);
        assert_eq!(
            find_currencies("160.00 € 20,00€ EUR"),
            ["EUR", "EUR", "EUR"]
        );
    }

    fn german(cents: i64) -> String {
        let negative = cents < 0;
        let abs = cents.unsigned_abs();
        let int = (abs / 100).to_string();
        let grouped: Vec<String> = int
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        format!(
            "{}{},{:02}",
            if negative { "-" } else { "" },
            grouped.join("."),
            abs % 100
        )
    }

    proptest! {
        #[test]
        fn normalisers_never_panic(text in "\\PC{0,60}") {
            let _ = find_dates(&text, true);
            let _ = find_dates(&text, false);
            let _ = find_amounts(&text);
            let _ = find_ibans(&text);
            let _ = find_vat_ids(&text);
            let _ = parse_bic(&text);
            let _ = find_currencies(&text);
            let _ = iban_is_valid(&text);
        }

        #[test]
        fn amounts_round_trip(cents in -10_000_000_000i64..10_000_000_000) {
            let german_form = german(cents);
            let english_form = german_form.replace('.', "_").replace(',', ".").replace('_', ",");
            let expected = format!("{}", cents as f64 / 100.0);
            prop_assert_eq!(to_cents(&parse_amount(&german_form).unwrap_or_default()), Some(cents), "{} vs {}", german_form, expected);
            prop_assert_eq!(to_cents(&parse_amount(&english_form).unwrap_or_default()), Some(cents), "{}", english_form);
        }

        #[test]
        fn dates_round_trip(y in 1990i32..2100, m in 1u32..=12, d in 1u32..=28) {
            let expected = format!("{y:04}-{m:02}-{d:02}");
            let german_form = format!("{d:02}.{m:02}.{y}");
            prop_assert_eq!(parse_date(&german_form, true), Some(expected.clone()));
            prop_assert_eq!(parse_date(&expected, false), Some(expected.clone()));
            const ENGLISH: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
            let name = ENGLISH[(m - 1) as usize];
            let english_form = format!("{name} {d}, {y}");
            prop_assert_eq!(parse_date(&english_form, false), Some(expected));
        }
    }
}
