//! WLAN configuration (`WIFI:T:WPA;S:name;P:secret;H:true;;`, the form zxing and the Android
//! and iOS cameras read).

use doc_model::Wifi;

use super::contact::strip_prefix_ignore_case;
use super::fields::key_values;

/// The network, or `None` when the payload has no SSID.
pub(crate) fn parse_wifi(text: &str) -> Option<Wifi> {
    let body = strip_prefix_ignore_case(text.trim_start(), "WIFI:")?;
    let mut ssid = None;
    let mut security = None;
    let mut password = None;
    let mut hidden = false;
    for (key, value) in key_values(body) {
        match key.to_ascii_uppercase().as_str() {
            "S" => ssid = Some(value),
            "T" => security = Some(value).filter(|v| !v.is_empty()),
            "P" => password = Some(value).filter(|v| !v.is_empty()),
            "H" => hidden = value.eq_ignore_ascii_case("true"),
            _ => {}
        }
    }
    Some(Wifi {
        ssid: ssid.filter(|s| !s.is_empty())?,
        security,
        password,
        hidden,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zxing_wiki_example() {
        // The example of zxing's "Barcode Contents" wiki page.
        let wifi = parse_wifi("WIFI:T:WPA;S:mynetwork;P:mypass;;").expect("wifi");
        assert_eq!(wifi.ssid, "mynetwork");
        assert_eq!(wifi.security.as_deref(), Some("WPA"));
        assert_eq!(wifi.password.as_deref(), Some("mypass"));
        assert!(!wifi.hidden);
    }

    #[test]
    fn any_order_escapes_hidden_and_open_networks() {
        let wifi = parse_wifi(r#"wifi:S:Caf\;e "Guest";H:true;T:nopass;;"#).expect("wifi");
        assert_eq!(wifi.ssid, "Caf;e \"Guest\"");
        assert_eq!(wifi.security.as_deref(), Some("nopass"));
        assert_eq!(wifi.password, None);
        assert!(wifi.hidden);
        assert!(parse_wifi("WIFI:T:WPA;P:x;;").is_none());
    }
}
