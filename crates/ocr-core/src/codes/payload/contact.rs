//! Contacts: vCard (RFC 6350, also 2.1 and 3.0) and NTT DoCoMo's MECARD.

use doc_model::VCard;

use super::content_line::{components, content_lines, joined_components, unescape};
use super::fields::key_values;

/// A vCard between `BEGIN:VCARD` and `END:VCARD` (the end line may be missing in a cut code).
pub(crate) fn parse_vcard(text: &str) -> Option<VCard> {
    let lines = content_lines(text);
    let begin = lines
        .iter()
        .position(|l| l.name == "BEGIN" && l.value.trim().eq_ignore_ascii_case("VCARD"))?;
    let mut card = VCard::default();
    let mut structured_name = None;
    for line in &lines[begin + 1..] {
        let value = line.value.trim();
        match line.name.as_str() {
            "END" => break,
            "FN" => push_text(&mut card.names, unescape(value)),
            "N" => structured_name = name_from_parts(&components(value)),
            "ORG" => card.organization = card.organization.take().or(joined_components(value)),
            "TITLE" => card.title = card.title.take().or(non_empty(unescape(value))),
            "TEL" => push_text(&mut card.phones, unescape(value)),
            "EMAIL" => push_text(&mut card.emails, unescape(value)),
            "ADR" => card.addresses.extend(joined_components(value)),
            "URL" => push_text(&mut card.urls, unescape(value)),
            "NOTE" => card.note = card.note.take().or(non_empty(unescape(value))),
            _ => {}
        }
    }
    if card.names.is_empty() {
        card.names.extend(structured_name);
    }
    Some(card)
}

/// A `MECARD:` payload (`N:Last,First;TEL:…;EMAIL:…;ADR:…;URL:…;NOTE:…;ORG:…;;`).
pub(crate) fn parse_mecard(text: &str) -> Option<VCard> {
    let body = strip_prefix_ignore_case(text.trim_start(), "MECARD:")?;
    let mut card = VCard::default();
    for (key, value) in key_values(body) {
        match key.to_ascii_uppercase().as_str() {
            // MECARD writes "Last,First"; shown the usual way round.
            "N" => {
                let parts: Vec<String> = value.split(',').map(str::to_owned).collect();
                let mut ordered = parts.clone();
                ordered.reverse();
                push_text(&mut card.names, ordered.join(" "));
            }
            "TEL" | "TEL-AV" => push_text(&mut card.phones, value),
            "EMAIL" => push_text(&mut card.emails, value),
            "ADR" => card
                .addresses
                .extend(joined_components(&value.replace(',', ";"))),
            "URL" => push_text(&mut card.urls, value),
            "NOTE" => card.note = card.note.take().or(non_empty(value)),
            "ORG" => card.organization = card.organization.take().or(non_empty(value)),
            "TITLE" => card.title = card.title.take().or(non_empty(value)),
            _ => {}
        }
    }
    Some(card)
}

/// "Prefix Given Additional Family Suffix" from `N`'s components (family;given;additional;
/// prefix;suffix).
fn name_from_parts(parts: &[String]) -> Option<String> {
    let at = |i: usize| parts.get(i).map_or("", |p| p.trim());
    let ordered = [at(3), at(1), at(2), at(0), at(4)];
    non_empty(
        ordered
            .iter()
            .filter(|p| !p.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

fn push_text(list: &mut Vec<String>, value: String) {
    if let Some(value) = non_empty(value) {
        list.push(value);
    }
}

fn non_empty(value: String) -> Option<String> {
    let trimmed = value.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// `text` after `prefix`, compared without regard to ASCII case.
pub(crate) fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_6350_example() {
        // The example of RFC 6350 section 8, shortened to the properties we keep.
        let text = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Simon Perreault\r\nN:Perreault;Simon;;;ing. jr,M.Sc.\r\nORG:Viagenie;\r\nTITLE:Engineer\r\nTEL;VALUE=uri;PREF=1;TYPE=\"voice,home\":tel:+1-555-555-5555;ext=5555\r\nEMAIL;TYPE=work:simon.perreault@viagenie.ca\r\nADR;TYPE=work:;Suite D2-630;2875 Laurier;\r\n Quebec;QC;G1V 2M2;Canada\r\nURL:http://nomis80.org\r\nEND:VCARD\r\n";
        let card = parse_vcard(text).expect("vcard");
        assert_eq!(card.names, vec!["Simon Perreault"]);
        assert_eq!(card.organization.as_deref(), Some("Viagenie"));
        assert_eq!(card.title.as_deref(), Some("Engineer"));
        assert_eq!(card.phones, vec!["tel:+1-555-555-5555;ext=5555"]);
        assert_eq!(card.emails, vec!["simon.perreault@viagenie.ca"]);
        assert_eq!(
            card.addresses,
            vec!["Suite D2-630, 2875 Laurier, Quebec, QC, G1V 2M2, Canada"]
        );
        assert_eq!(card.urls, vec!["http://nomis80.org"]);
    }

    #[test]
    fn vcard_without_fn_uses_n() {
        let card = parse_vcard("BEGIN:VCARD\nVERSION:3.0\nN:Mustermann;Erika;;Dr.;\nEND:VCARD")
            .expect("vcard");
        assert_eq!(card.names, vec!["Dr. Erika Mustermann"]);
    }

    #[test]
    fn docomo_mecard_example() {
        // The example of NTT DoCoMo's MECARD specification, as zxing's tests also use it.
        let card = parse_mecard(
            "MECARD:N:Owen,Sean;ADR:76 9th Avenue, 4th Floor, New York, NY 10011;TEL:12125551212;EMAIL:srowen@example.org;URL:https\\://example.org;;",
        )
        .expect("mecard");
        assert_eq!(card.names, vec!["Sean Owen"]);
        assert_eq!(card.phones, vec!["12125551212"]);
        assert_eq!(card.emails, vec!["srowen@example.org"]);
        assert_eq!(
            card.addresses,
            vec!["76 9th Avenue, 4th Floor, New York, NY 10011"]
        );
        assert_eq!(card.urls, vec!["https://example.org"]);
        assert!(parse_mecard("MEBKM:TITLE:x;;").is_none());
    }
}
