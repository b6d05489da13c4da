//! The `KEY:value;KEY:value;;` form of WIFI and MECARD payloads, backslash escaping `\ ; , : "`.

/// The key-value pairs of the body (after the `WIFI:` / `MECARD:` prefix), values unescaped.
/// A part without a colon (such as the empty one of the closing `;;`) is skipped.
pub(crate) fn key_values(body: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut current = String::new();
    let mut chars = body.chars();
    let finish = |part: &mut String, pairs: &mut Vec<(String, String)>| {
        if let Some((key, value)) = split_unescaped_colon(part) {
            pairs.push((key, value));
        }
        part.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                // Keep the escape for the colon split; resolved there.
                current.push('\\');
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            ';' => finish(&mut current, &mut pairs),
            _ => current.push(c),
        }
    }
    finish(&mut current, &mut pairs);
    pairs
}

/// Splits `KEY:value` at the first unescaped colon and unescapes the value.
fn split_unescaped_colon(part: &str) -> Option<(String, String)> {
    let mut key = String::new();
    let mut chars = part.chars();
    loop {
        match chars.next()? {
            ':' => break,
            '\\' => {
                key.push(chars.next()?);
            }
            c => key.push(c),
        }
    }
    let mut value = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            _ => value.push(c),
        }
    }
    Some((key.trim().to_owned(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_terminator() {
        let pairs = key_values(r#"S:My\;Net\:5G;P:pa\\ss\,word;H:true;;"#);
        assert_eq!(
            pairs,
            vec![
                ("S".to_owned(), "My;Net:5G".to_owned()),
                ("P".to_owned(), "pa\\ss,word".to_owned()),
                ("H".to_owned(), "true".to_owned()),
            ]
        );
        assert!(key_values("garbage without colon").is_empty());
    }
}
