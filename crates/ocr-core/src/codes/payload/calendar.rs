//! Calendar events: the first VEVENT of an iCalendar (RFC 5545) text.

use doc_model::CalendarEvent;

use super::content_line::{content_lines, unescape};

/// The event, or `None` when there is no `BEGIN:VEVENT`.
pub(crate) fn parse_calendar(text: &str) -> Option<CalendarEvent> {
    let lines = content_lines(text);
    let begin = lines
        .iter()
        .position(|l| l.name == "BEGIN" && l.value.trim().eq_ignore_ascii_case("VEVENT"))?;
    let mut event = CalendarEvent {
        summary: None,
        start: None,
        end: None,
        location: None,
        description: None,
    };
    for line in &lines[begin + 1..] {
        let slot = match line.name.as_str() {
            "END" => break,
            "SUMMARY" => &mut event.summary,
            "DTSTART" => &mut event.start,
            "DTEND" => &mut event.end,
            "LOCATION" => &mut event.location,
            "DESCRIPTION" => &mut event.description,
            _ => continue,
        };
        let value = unescape(line.value.trim());
        if slot.is_none() && !value.trim().is_empty() {
            *slot = Some(value.trim().to_owned());
        }
    }
    Some(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_5545_example() {
        // The event of RFC 5545 section 4 (shortened), wrapped in a VCALENDAR.
        let text = "BEGIN:VCALENDAR\r\nPRODID:-//xyz Corp//NONSGML PDA Calendar Version 1.0//EN\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nDTSTAMP:19960704T120000Z\r\nUID:uid1@example.com\r\nORGANIZER:mailto:jsmith@example.com\r\nDTSTART:19960918T143000Z\r\nDTEND:19960920T220000Z\r\nSTATUS:CONFIRMED\r\nCATEGORIES:CONFERENCE\r\nSUMMARY:Networld+Interop Conference\r\nDESCRIPTION:Networld+Interop Conference\r\n  and Exhibit\\nAtlanta World Congress Center\\n\r\n Atlanta\\, Georgia\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let event = parse_calendar(text).expect("event");
        assert_eq!(
            event.summary.as_deref(),
            Some("Networld+Interop Conference")
        );
        assert_eq!(event.start.as_deref(), Some("19960918T143000Z"));
        assert_eq!(event.end.as_deref(), Some("19960920T220000Z"));
        assert_eq!(event.location, None);
        assert_eq!(
            event.description.as_deref(),
            Some(
                "Networld+Interop Conference and Exhibit\nAtlanta World Congress Center\nAtlanta, Georgia"
            )
        );
    }

    #[test]
    fn bare_vevent_with_parameters() {
        let event = parse_calendar(
            "BEGIN:VEVENT\nSUMMARY:Zahlung fällig\nDTSTART;VALUE=DATE:20240829\nLOCATION:Berlin\nEND:VEVENT",
        )
        .expect("event");
        assert_eq!(event.start.as_deref(), Some("20240829"));
        assert_eq!(event.location.as_deref(), Some("Berlin"));
        assert!(parse_calendar("BEGIN:VCALENDAR\nEND:VCALENDAR").is_none());
    }
}
