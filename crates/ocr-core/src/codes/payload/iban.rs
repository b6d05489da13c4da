//! IBAN (ISO 13616) and BIC (ISO 9362) checks shared by the payment payloads.

/// The IBAN upper-cased and without spaces when it is valid: the same check as the header
/// fields of documents (`doc_analysis::header::normalize::iban_is_valid`).
pub(crate) fn normalise_iban(raw: &str) -> Option<String> {
    let iban: String = raw
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    doc_analysis::header::normalize::iban_is_valid(&iban).then_some(iban)
}

/// The BIC upper-cased when it has the 8- or 11-character shape.
pub(crate) fn normalise_bic(raw: &str) -> Option<String> {
    let bic = raw.trim().to_ascii_uppercase();
    let bytes = bic.as_bytes();
    let shape_ok = matches!(bytes.len(), 8 | 11)
        && bytes[..6].iter().all(u8::is_ascii_uppercase)
        && bytes[6..].iter().all(u8::is_ascii_alphanumeric);
    shape_ok.then_some(bic)
}

/// Whether an ISO 11649 creditor reference (`RF` + 2 check digits + up to 21 characters) is
/// valid; it uses the same MOD 97-10 as the IBAN.
pub(crate) fn is_creditor_reference(raw: &str) -> bool {
    let reference: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = reference.as_bytes();
    if !(5..=25).contains(&bytes.len()) || !reference.starts_with("RF") {
        return false;
    }
    mod97_of_rearranged(bytes) == Some(1)
}

/// ISO 7064 MOD 97-10 of the text with its first four characters moved to the end, letters
/// counted as 10..35; folded digit by digit so no big integer is needed. `None` for a character
/// that is not an ASCII letter or digit, or a text shorter than four bytes.
fn mod97_of_rearranged(bytes: &[u8]) -> Option<u32> {
    if bytes.len() < 4 {
        return None;
    }
    let mut remainder: u32 = 0;
    for &b in bytes[4..].iter().chain(&bytes[..4]) {
        let value = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'A'..=b'Z' => u32::from(b - b'A') + 10,
            b'a'..=b'z' => u32::from(b - b'a') + 10,
            _ => return None,
        };
        remainder = if value >= 10 {
            (remainder * 100 + value) % 97
        } else {
            (remainder * 10 + value) % 97
        };
    }
    Some(remainder)
}

/// Whether a Swiss QR reference (27 digits, recursive mod-10 check digit) is valid.
pub(crate) fn is_qr_reference(raw: &str) -> bool {
    const TABLE: [u8; 10] = [0, 9, 4, 6, 8, 2, 7, 1, 3, 5];
    let digits: Vec<u8> = raw.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.len() != 27 || !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let mut carry = 0u8;
    for &d in &digits[..26] {
        carry = TABLE[usize::from((carry + (d - b'0')) % 10)];
    }
    (10 - carry) % 10 == digits[26] - b'0'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibans_from_iso_13616_and_bank_examples() {
        assert_eq!(
            normalise_iban("DE89 3704 0044 0532 0130 00").as_deref(),
            Some("DE89370400440532013000")
        );
        assert_eq!(
            normalise_iban("gb82west12345698765432").as_deref(),
            Some("GB82WEST12345698765432")
        );
        assert!(normalise_iban("BE72000000001616").is_some());
        assert!(normalise_iban("CH4431999123000889012").is_some());
        // One digit changed: the checksum catches it.
        assert!(normalise_iban("DE89370400440532013001").is_none());
        assert!(normalise_iban("DE8937040044").is_none());
        assert!(normalise_iban("").is_none());
        assert!(normalise_iban("ÄÖ89370400440532013000").is_none());
        // The country's account format too (iban_validate's registry), not only the checksum.
        assert!(normalise_iban("DE05 3704 0044 0532 0130 0A").is_none());
    }

    #[test]
    fn bics() {
        assert_eq!(normalise_bic("cobadeffxxx").as_deref(), Some("COBADEFFXXX"));
        assert_eq!(normalise_bic("BPOTBEB1").as_deref(), Some("BPOTBEB1"));
        assert!(normalise_bic("COBADEF").is_none());
        assert!(normalise_bic("1OBADEFF").is_none());
    }

    #[test]
    fn references() {
        // ISO 11649's own example and the Swiss QR-bill guideline's QR reference.
        assert!(is_creditor_reference("RF18 5390 0754 7034"));
        assert!(!is_creditor_reference("RF19 5390 0754 7034"));
        assert!(is_qr_reference("210000000003139471430009017"));
        assert!(!is_qr_reference("210000000003139471430009018"));
    }
}
