//! Swiss QR-bill payload (`SPC`, Swiss Payment Standards "Swiss Implementation Guidelines for
//! the QR-bill", version 2.x): the main payment fields.

use doc_model::SwissQrBill;

use super::epc::is_decimal_amount;
use super::iban::{is_creditor_reference, is_qr_reference, normalise_iban};

/// Positions of the elements, counted from 0 (creditor address 4..=10, ultimate creditor
/// 11..=17, ultimate debtor 20..=26).
const IBAN: usize = 3;
const CREDITOR_ADDRESS_TYPE: usize = 4;
const CREDITOR_NAME: usize = 5;
const AMOUNT: usize = 18;
const CURRENCY: usize = 19;
const REFERENCE_TYPE: usize = 27;
const REFERENCE: usize = 28;
const MESSAGE: usize = 29;
const TRAILER: usize = 30;
/// Trailer plus bill information and two alternative procedures at most.
const MAX_ELEMENTS: usize = 34;

/// A validated QR-bill, or `None` when the text is not a well-formed `SPC` payload.
pub(crate) fn parse_swiss_qr(text: &str) -> Option<SwissQrBill> {
    // The guideline caps the payload at 997 characters.
    if text.chars().count() > 997 {
        return None;
    }
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    if lines.len() <= TRAILER || lines.len() > MAX_ELEMENTS + 1 {
        return None;
    }
    let field = |index: usize| lines.get(index).map_or("", |line| line.trim());
    let optional = |index: usize| Some(field(index)).filter(|value| !value.is_empty());

    let version = field(1);
    if field(0) != "SPC"
        || version.len() != 4
        || !version.starts_with("02")
        || field(2) != "1"
        || field(TRAILER) != "EPD"
    {
        return None;
    }
    let iban = normalise_iban(field(IBAN))?;
    if !(iban.starts_with("CH") || iban.starts_with("LI")) {
        return None;
    }
    let creditor_name = field(CREDITOR_NAME);
    if !matches!(field(CREDITOR_ADDRESS_TYPE), "S" | "K")
        || creditor_name.is_empty()
        || creditor_name.chars().count() > 70
    {
        return None;
    }
    let amount = optional(AMOUNT);
    if amount.is_some_and(|a| !is_decimal_amount(a, 9)) {
        return None;
    }
    let currency = field(CURRENCY);
    if currency != "CHF" && currency != "EUR" {
        return None;
    }
    let reference_type = field(REFERENCE_TYPE);
    let reference = optional(REFERENCE);
    // A QR-IBAN (institution id 30000-31999) goes with a QR reference and only with one.
    let is_qr_iban = iban
        .get(4..9)
        .and_then(|iid| iid.parse::<u32>().ok())
        .is_some_and(|iid| (30000..=31999).contains(&iid));
    let reference_ok = match (reference_type, reference) {
        ("QRR", Some(r)) => is_qr_iban && is_qr_reference(r),
        ("SCOR", Some(r)) => !is_qr_iban && is_creditor_reference(r),
        ("NON", None) => !is_qr_iban,
        _ => false,
    };
    if !reference_ok {
        return None;
    }
    let message = optional(MESSAGE);
    if message.is_some_and(|m| m.chars().count() > 140) {
        return None;
    }
    Some(SwissQrBill {
        version: version.to_owned(),
        iban,
        creditor_name: creditor_name.to_owned(),
        amount: amount.map(str::to_owned),
        currency: currency.to_owned(),
        reference_type: reference_type.to_owned(),
        reference: reference.map(|r| r.split_whitespace().collect()),
        message: message.map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Modelled on the guideline's example bill with a QR reference (Robert Schneider AG).
    fn example() -> Vec<&'static str> {
        vec![
            "SPC",
            "0200",
            "1",
            "CH4431999123000889012",
            "S",
            "Robert Schneider AG",
            "Rue du Lac",
            "1268",
            "2501",
            "Biel",
            "CH",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "1949.75",
            "CHF",
            "S",
            "Pia-Maria Rutschmann-Schnyder",
            "Grosse Marktgasse",
            "28",
            "9400",
            "Rorschach",
            "CH",
            "QRR",
            "210000000003139471430009017",
            "Auftrag vom 15.06.2020",
            "EPD",
            "//S1/10/10201409/11/200701/20/140.000-53/30/102673831/31/200615/32/7.7/33/7.7:139.40/40/0:30",
        ]
    }

    #[test]
    fn qr_reference_bill() {
        let bill = parse_swiss_qr(&example().join("\r\n")).expect("valid bill");
        assert_eq!(bill.version, "0200");
        assert_eq!(bill.iban, "CH4431999123000889012");
        assert_eq!(bill.creditor_name, "Robert Schneider AG");
        assert_eq!(bill.amount.as_deref(), Some("1949.75"));
        assert_eq!(bill.currency, "CHF");
        assert_eq!(bill.reference_type, "QRR");
        assert_eq!(
            bill.reference.as_deref(),
            Some("210000000003139471430009017")
        );
        assert_eq!(bill.message.as_deref(), Some("Auftrag vom 15.06.2020"));
    }

    #[test]
    fn bill_without_reference_or_amount() {
        let mut lines = example();
        lines[3] = "CH9300762011623852957";
        lines[18] = "";
        lines[27] = "NON";
        lines[28] = "";
        let bill = parse_swiss_qr(&lines.join("\n")).expect("valid bill");
        assert_eq!(bill.amount, None);
        assert_eq!(bill.reference, None);
    }

    #[test]
    fn rejects_inconsistent_bills() {
        let with = |index: usize, value: &'static str| {
            let mut lines = example();
            lines[index] = value;
            lines.join("\n")
        };
        // A QR reference needs a QR-IBAN; a wrong check digit; NON with a reference.
        assert!(parse_swiss_qr(&with(3, "CH9300762011623852957")).is_none());
        assert!(parse_swiss_qr(&with(28, "210000000003139471430009018")).is_none());
        assert!(parse_swiss_qr(&with(27, "NON")).is_none());
        // Currency, trailer, coding and IBAN country.
        assert!(parse_swiss_qr(&with(19, "USD")).is_none());
        assert!(parse_swiss_qr(&with(30, "END")).is_none());
        assert!(parse_swiss_qr(&with(2, "2")).is_none());
        assert!(parse_swiss_qr(&with(3, "DE89370400440532013000")).is_none());
        assert!(parse_swiss_qr(&example()[..20].join("\n")).is_none());
    }
}
