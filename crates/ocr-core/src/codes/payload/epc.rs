//! EPC069-12 "Quick Response Code: guidelines to enable data capture for the initiation of a
//! SEPA credit transfer" (the GiroCode), versions 001 and 002.

use doc_model::EpcTransfer;

use super::iban::{normalise_bic, normalise_iban};

/// The guideline's limit on the whole payload.
const MAX_PAYLOAD_BYTES: usize = 331;

/// A validated transfer, or `None` when the text is not a well-formed EPC payload.
pub(crate) fn parse_epc(text: &str) -> Option<EpcTransfer> {
    if text.len() > MAX_PAYLOAD_BYTES {
        return None;
    }
    // Lines end in LF or CR LF; trailing empty elements may be left out entirely.
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    if lines.len() > 12 && lines[12..].iter().any(|line| !line.trim().is_empty()) {
        return None;
    }
    let field = |index: usize| lines.get(index).map_or("", |line| line.trim());
    let optional = |index: usize| Some(field(index)).filter(|value| !value.is_empty());

    if field(0) != "BCD" || field(3) != "SCT" {
        return None;
    }
    let version = field(1);
    if version != "001" && version != "002" {
        return None;
    }
    let charset: u8 = field(2).parse().ok().filter(|c| (1..=8).contains(c))?;
    let bic = match optional(4) {
        Some(raw) => Some(normalise_bic(raw)?),
        // Only version 002 lets the BIC be left out.
        None if version == "002" => None,
        None => return None,
    };
    let name = field(5);
    if name.is_empty() || name.chars().count() > 70 {
        return None;
    }
    let iban = normalise_iban(field(6))?;
    let (currency, amount) = match optional(7) {
        Some(raw) => {
            let (currency, amount) = parse_amount(raw)?;
            (Some(currency), Some(amount))
        }
        None => (None, None),
    };
    let purpose = optional(8);
    if purpose.is_some_and(|p| p.len() != 4 || !p.bytes().all(|b| b.is_ascii_alphanumeric())) {
        return None;
    }
    let reference = optional(9);
    let remittance_text = optional(10);
    // Structured reference and free text exclude each other.
    if reference.is_some() && remittance_text.is_some() {
        return None;
    }
    if reference.is_some_and(|r| r.chars().count() > 35)
        || remittance_text.is_some_and(|t| t.chars().count() > 140)
    {
        return None;
    }
    let information = optional(11);
    if information.is_some_and(|i| i.chars().count() > 70) {
        return None;
    }
    Some(EpcTransfer {
        version: version.to_owned(),
        charset,
        bic,
        name: name.to_owned(),
        iban,
        amount,
        currency,
        purpose: purpose.map(str::to_owned),
        reference: reference.map(str::to_owned),
        text: remittance_text.map(str::to_owned),
        information: information.map(str::to_owned),
    })
}

/// `EUR` followed by 0.01 to 999999999.99 with at most two decimals, point as separator.
fn parse_amount(raw: &str) -> Option<(String, String)> {
    let amount = raw.strip_prefix("EUR")?;
    if !is_decimal_amount(amount, 9) {
        return None;
    }
    // Zero is no amount a transfer can carry.
    if amount.bytes().all(|b| b == b'0' || b == b'.') {
        return None;
    }
    Some(("EUR".to_owned(), amount.to_owned()))
}

/// Digits, optionally a point and one or two decimals, at most `max_integer_digits` before it.
pub(crate) fn is_decimal_amount(amount: &str, max_integer_digits: usize) -> bool {
    let (integer, fraction) = amount.split_once('.').unwrap_or((amount, ""));
    let fraction_ok = if amount.contains('.') {
        (1..=2).contains(&fraction.len())
    } else {
        true
    };
    !integer.is_empty()
        && integer.len() <= max_integer_digits
        && integer.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && fraction_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample of EPC069-12 (Belgian Red Cross, purpose CHAR).
    const EPC_SAMPLE: &str = "BCD\n001\n1\nSCT\nBPOTBEB1\nRed Cross of Belgium\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund\nSample EPC QR code";

    #[test]
    fn the_guidelines_sample() {
        let transfer = parse_epc(EPC_SAMPLE).expect("valid sample");
        assert_eq!(transfer.version, "001");
        assert_eq!(transfer.charset, 1);
        assert_eq!(transfer.bic.as_deref(), Some("BPOTBEB1"));
        assert_eq!(transfer.name, "Red Cross of Belgium");
        assert_eq!(transfer.iban, "BE72000000001616");
        assert_eq!(transfer.amount.as_deref(), Some("1"));
        assert_eq!(transfer.currency.as_deref(), Some("EUR"));
        assert_eq!(transfer.purpose.as_deref(), Some("CHAR"));
        assert_eq!(transfer.reference, None);
        assert_eq!(transfer.text.as_deref(), Some("Urgency fund"));
        assert_eq!(transfer.information.as_deref(), Some("Sample EPC QR code"));
    }

    #[test]
    fn version_002_without_bic_with_crlf_and_structured_reference() {
        let text = "BCD\r\n002\r\n2\r\nSCT\r\n\r\nWikimedia Foerdergesellschaft\r\nDE33 1002 0500 0001 1947 00\r\nEUR123.45\r\n\r\nRF18539007547034";
        let transfer = parse_epc(text).expect("valid");
        assert_eq!(transfer.bic, None);
        assert_eq!(transfer.charset, 2);
        assert_eq!(transfer.iban, "DE33100205000001194700");
        assert_eq!(transfer.amount.as_deref(), Some("123.45"));
        assert_eq!(transfer.reference.as_deref(), Some("RF18539007547034"));
        assert_eq!(transfer.text, None);
    }

    #[test]
    fn rejects_what_the_guideline_forbids() {
        let replace = |from: &str, to: &str| EPC_SAMPLE.replacen(from, to, 1);
        // BIC missing in version 001.
        assert!(parse_epc(&replace("BPOTBEB1", "")).is_none());
        // Wrong IBAN checksum.
        assert!(parse_epc(&replace("BE72000000001616", "BE72000000001617")).is_none());
        // Amount in another currency, with three decimals, zero or too large.
        assert!(parse_epc(&replace("EUR1\n", "USD1\n")).is_none());
        assert!(parse_epc(&replace("EUR1\n", "EUR1.001\n")).is_none());
        assert!(parse_epc(&replace("EUR1\n", "EUR0.00\n")).is_none());
        assert!(parse_epc(&replace("EUR1\n", "EUR1000000000\n")).is_none());
        assert!(parse_epc(&replace("EUR1\n", "EUR1,50\n")).is_none());
        // Both a structured reference and a text.
        assert!(parse_epc(&replace("CHAR\n\n", "CHAR\nRF18539007547034\n")).is_none());
        // Unknown version, charset, identification, purpose shape.
        assert!(parse_epc(&replace("001", "003")).is_none());
        assert!(parse_epc(&replace("\n1\n", "\n9\n")).is_none());
        assert!(parse_epc(&replace("SCT", "INST")).is_none());
        assert!(parse_epc(&replace("CHAR", "CHARITY")).is_none());
        // More than 331 bytes.
        assert!(parse_epc(&format!("{EPC_SAMPLE}{}", " ".repeat(300))).is_none());
        // Something after the last field.
        assert!(parse_epc(&format!("{EPC_SAMPLE}\nextra")).is_none());
    }

    #[test]
    fn decimal_amounts() {
        assert!(is_decimal_amount("12", 9));
        assert!(is_decimal_amount("12.3", 9));
        assert!(is_decimal_amount("999999999.99", 9));
        assert!(!is_decimal_amount("1234567890", 9));
        assert!(!is_decimal_amount(".5", 9));
        assert!(!is_decimal_amount("5.", 9));
        assert!(!is_decimal_amount("", 9));
    }
}
