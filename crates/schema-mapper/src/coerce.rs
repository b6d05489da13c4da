//! Text as printed turned into the property's JSON type: numbers from German and English
//! notations, dates as ISO `YYYY-MM-DD`, IBANs compact, booleans from yes/no words.

use doc_analysis::header::normalize::{find_amounts, find_dates, find_ibans};
use serde_json::{Number, Value};

use crate::spec::{Kind, Property};

/// Why a text is not a value of the property's type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CoerceError {
    #[error("empty")]
    Empty,
    #[error("not a single value")]
    NotSingle,
    #[error("{0:?} holds no valid IBAN")]
    NoIban(String),
    #[error("{0:?} is not a number")]
    NotANumber(String),
    #[error("{0:?} holds several numbers")]
    SeveralNumbers(String),
    #[error("{0:?} is not a number alone")]
    NotANumberAlone(String),
    #[error("{0:?} is not a finite number")]
    NotFinite(String),
    #[error("{0:?} is not a whole number")]
    NotWhole(String),
    #[error("{0:?} is not yes or no")]
    NotYesOrNo(String),
    #[error("{0:?} is not a date")]
    NotADate(String),
    #[error("{0:?} holds several dates")]
    SeveralDates(String),
    #[error("{0:?} holds no e-mail address")]
    NoEmail(String),
}

/// How the document writes things it leaves ambiguous.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hints {
    /// Slash dates are read day first (`03/04/2026` is 3 April).
    pub(crate) day_first: bool,
}

/// The value of `text` as the property's type; `Err` says why it is not one.
pub(crate) fn coerce(text: &str, property: &Property, hints: Hints) -> Result<Value, CoerceError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(CoerceError::Empty);
    }
    match &property.kind {
        Kind::Number => number(text).map(Value::Number),
        Kind::Integer => integer(text),
        Kind::Boolean => boolean(text),
        // Containers are never coerced from one text.
        Kind::Object(_) | Kind::Table(_) | Kind::List(_) => Err(CoerceError::NotSingle),
        Kind::String => match property.format.as_deref() {
            Some("date") => date(text, hints).map(Value::String),
            Some("iban") => find_ibans(text)
                .into_iter()
                .next()
                .map(|found| Value::String(found.iban))
                .ok_or_else(|| CoerceError::NoIban(text.to_owned())),
            Some("email") => email(text).map(Value::String),
            _ => Ok(Value::String(collapse(text))),
        },
    }
}

/// The number in a text (`1.234,56 €`, `1,234.56`, `-12,50`, `198`): the one amount it holds.
pub(crate) fn number(text: &str) -> Result<Number, CoerceError> {
    let amounts = find_amounts(text);
    let [amount] = amounts.as_slice() else {
        return Err(if amounts.is_empty() {
            CoerceError::NotANumber(text.to_owned())
        } else {
            CoerceError::SeveralNumbers(text.to_owned())
        });
    };
    // Letters before the number, or more than one unit word after it (`12 Stück`, `2,5 h`),
    // make it an identifier or a sentence.
    let before = &text[..amount.start];
    let after = text[amount.end..].trim();
    let unit = after.is_empty()
        || (!after.contains(char::is_whitespace)
            && after.chars().count() <= 12
            && after.chars().all(|c| c.is_alphabetic() || c == '.'));
    if before.chars().any(char::is_alphanumeric) || !unit {
        return Err(CoerceError::NotANumberAlone(text.to_owned()));
    }
    amount
        .decimal
        .parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .ok_or_else(|| CoerceError::NotFinite(text.to_owned()))
}

fn integer(text: &str) -> Result<Value, CoerceError> {
    let number = number(text)?;
    let value = number.as_f64().unwrap_or(f64::NAN);
    // Exactly whole and within the range where every integer is a float.
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        let whole = value as i64;
        Ok(Value::from(whole))
    } else {
        Err(CoerceError::NotWhole(text.to_owned()))
    }
}

fn boolean(text: &str) -> Result<Value, CoerceError> {
    let folded = doc_analysis::vocabulary::fold(text);
    match folded.as_str() {
        "ja" | "yes" | "true" | "wahr" | "x" | "1" => Ok(Value::Bool(true)),
        "nein" | "no" | "false" | "falsch" | "0" => Ok(Value::Bool(false)),
        _ => Err(CoerceError::NotYesOrNo(text.to_owned())),
    }
}

/// The one date in a text as ISO `YYYY-MM-DD`.
pub(crate) fn date(text: &str, hints: Hints) -> Result<String, CoerceError> {
    let dates = find_dates(text, hints.day_first);
    let mut isos: Vec<String> = dates.into_iter().map(|d| d.iso).collect();
    isos.dedup();
    match isos.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CoerceError::NotADate(text.to_owned())),
        _ => Err(CoerceError::SeveralDates(text.to_owned())),
    }
}

fn email(text: &str) -> Result<String, CoerceError> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '<' | '>' | '(' | ')' | ',' | ';' | ':')))
        .map(|w| w.strip_prefix("mailto:").unwrap_or(w))
        .find(|w| looks_like_email(w))
        .map(str::to_owned)
        .ok_or_else(|| CoerceError::NoEmail(text.to_owned()))
}

/// `local@domain.tld`, no spaces.
pub(crate) fn looks_like_email(word: &str) -> bool {
    let Some((local, domain)) = word.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && word.chars().all(|c| !c.is_whitespace())
}

/// Whitespace runs as single spaces.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn property(kind: Kind, format: Option<&str>) -> Property {
        Property {
            name: "p".into(),
            title: None,
            description: None,
            x_labels: Vec::new(),
            kind,
            format: format.map(str::to_owned),
            pattern: None,
            check: None,
        }
    }

    const DAY_FIRST: Hints = Hints { day_first: true };

    #[test]
    fn numbers_in_german_and_english_notation() {
        let p = property(Kind::Number, None);
        for (text, expected) in [
            ("1.234,56", json!(1234.56)),
            ("1,234.56", json!(1234.56)),
            ("235,62 EUR", json!(235.62)),
            ("€ 12.50", json!(12.5)),
            ("-12,50", json!(-12.5)),
            ("198", json!(198.0)),
            ("1'234.5", json!(1234.5)),
        ] {
            assert_eq!(coerce(text, &p, DAY_FIRST), Ok(expected), "{text}");
        }
        assert_eq!(coerce("12 Stück", &p, DAY_FIRST), Ok(json!(12.0)));
        for text in [
            "abc",
            "RE-2024-17",
            "12,50 und 13,00",
            "Nr. 12",
            "12 bis morgen",
        ] {
            assert!(coerce(text, &p, DAY_FIRST).is_err(), "{text}");
        }
    }

    #[test]
    fn integers_must_be_whole() {
        let p = property(Kind::Integer, None);
        assert_eq!(coerce("1.000", &p, DAY_FIRST), Ok(json!(1000)));
        assert_eq!(coerce("20", &p, DAY_FIRST), Ok(json!(20)));
        assert!(coerce("2,5", &p, DAY_FIRST).is_err());
    }

    #[test]
    fn dates_become_iso() {
        let p = property(Kind::String, Some("date"));
        for (text, expected) in [
            ("05.03.2024", "2024-03-05"),
            ("2024-03-05", "2024-03-05"),
            ("5. März 2024", "2024-03-05"),
            ("March 5, 2024", "2024-03-05"),
            ("05/03/2024", "2024-03-05"),
        ] {
            assert_eq!(coerce(text, &p, DAY_FIRST), Ok(json!(expected)), "{text}");
        }
        assert_eq!(
            coerce("05/03/2024", &p, Hints { day_first: false }),
            Ok(json!("2024-05-03"))
        );
        assert!(coerce("31.02.2024", &p, DAY_FIRST).is_err());
        assert!(coerce("Lieferantenstraße 20", &p, DAY_FIRST).is_err());
    }

    #[test]
    fn strings_ibans_emails_booleans() {
        let plain = property(Kind::String, None);
        assert_eq!(
            coerce("  Lieferant   GmbH ", &plain, DAY_FIRST),
            Ok(json!("Lieferant GmbH"))
        );
        let iban = property(Kind::String, Some("iban"));
        assert_eq!(
            coerce("DE89 3704 0044 0532 0130 00", &iban, DAY_FIRST),
            Ok(json!("DE89370400440532013000"))
        );
        assert!(coerce("DE89 3704 0044 0532 0130 01", &iban, DAY_FIRST).is_err());
        let email = property(Kind::String, Some("email"));
        assert_eq!(
            coerce("E-Mail: <info@lieferant.de>", &email, DAY_FIRST),
            Ok(json!("info@lieferant.de"))
        );
        let flag = property(Kind::Boolean, None);
        assert_eq!(coerce("Ja", &flag, DAY_FIRST), Ok(json!(true)));
        assert_eq!(coerce("no", &flag, DAY_FIRST), Ok(json!(false)));
        assert!(coerce("vielleicht", &flag, DAY_FIRST).is_err());
    }
}
