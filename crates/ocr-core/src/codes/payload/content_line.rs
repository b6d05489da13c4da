//! Content lines as vCard (RFC 6350) and iCalendar (RFC 5545) write them:
//! `[group.]NAME[;param=value…]:value`, folded lines continued with a leading space or tab.

/// One unfolded content line: the property name upper-cased without its group, and the raw
/// value (escapes untouched, so structured values can still be split on `;`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContentLine {
    pub(crate) name: String,
    pub(crate) value: String,
}

/// Unfolds and splits the text into content lines; lines without a colon are skipped.
pub(crate) fn content_lines(text: &str) -> Vec<ContentLine> {
    let mut unfolded: Vec<String> = Vec::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match (line.strip_prefix([' ', '\t']), unfolded.last_mut()) {
            (Some(continuation), Some(previous)) => previous.push_str(continuation),
            _ => unfolded.push(line.to_owned()),
        }
    }
    unfolded
        .into_iter()
        .filter_map(|line| {
            let (head, value) = line.split_once(':')?;
            let name = head.split(';').next().unwrap_or(head);
            let name = name.rsplit('.').next().unwrap_or(name);
            Some(ContentLine {
                name: name.trim().to_ascii_uppercase(),
                value: value.to_owned(),
            })
        })
        .collect()
}

/// Splits a structured value on unescaped `;` and unescapes each component.
pub(crate) fn components(value: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n' | 'N') => push(&mut parts, '\n'),
                Some(other) => push(&mut parts, other),
                None => {}
            },
            ';' => parts.push(String::new()),
            _ => push(&mut parts, c),
        }
    }
    parts
}

fn push(parts: &mut [String], c: char) {
    if let Some(last) = parts.last_mut() {
        last.push(c);
    }
}

/// The value with its escapes resolved, as one text (a `;` inside is kept).
pub(crate) fn unescape(value: &str) -> String {
    components(value).join(";")
}

/// The non-empty components joined with ", " (addresses, organisations); `None` when all are
/// empty.
pub(crate) fn joined_components(value: &str) -> Option<String> {
    let parts: Vec<String> = components(value)
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfolds_and_strips_groups_and_parameters() {
        let lines = content_lines(
            "BEGIN:VCARD\r\nitem1.TEL;TYPE=work:+49 30\r\n  123\r\nNOTE:a\\, b\\nc\nnonsense",
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].name, "TEL");
        assert_eq!(lines[1].value, "+49 30 123");
        assert_eq!(unescape(&lines[2].value), "a, b\nc");
    }

    #[test]
    fn structured_values() {
        assert_eq!(
            components("Doe;John;;Dr.;"),
            vec!["Doe", "John", "", "Dr.", ""]
        );
        assert_eq!(
            joined_components(";;Main St 1;Berlin;;10115;Germany").as_deref(),
            Some("Main St 1, Berlin, 10115, Germany")
        );
        assert_eq!(joined_components(";;"), None);
    }
}
