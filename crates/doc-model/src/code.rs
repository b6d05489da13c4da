//! Barcodes and QR codes, and their parsed payloads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::geometry::{PageBox, Point};

/// A symbology.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Symbology {
    /// QR code (also Micro QR).
    QrCode,
    /// Data Matrix.
    DataMatrix,
    /// EAN-13 (UPC-A is reported as EAN-13 with a leading 0).
    Ean13,
    /// EAN-8.
    Ean8,
    /// Code 128 (also GS1-128).
    Code128,
    /// Code 39.
    Code39,
    /// PDF417.
    Pdf417,
    /// Aztec.
    Aztec,
}

/// A URL found in a code: reported, never opened, fetched or resolved (spec rule 5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UncheckedUrl {
    /// The URL as encoded.
    pub url: String,
    /// Always false: the service does not open URLs found in codes.
    pub checked: bool,
}

impl UncheckedUrl {
    /// A URL that was not checked.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            checked: false,
        }
    }
}

/// A WLAN configuration (`WIFI:` payload).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Wifi {
    /// Network name.
    pub ssid: String,
    /// `WPA`, `WEP`, `nopass`, … as encoded.
    pub security: Option<String>,
    /// Password.
    pub password: Option<String>,
    /// Hidden network.
    pub hidden: bool,
}

/// A contact (vCard or MECARD).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VCard {
    /// Formatted names.
    pub names: Vec<String>,
    /// Organisation.
    pub organization: Option<String>,
    /// Job title.
    pub title: Option<String>,
    /// Telephone numbers.
    pub phones: Vec<String>,
    /// E-mail addresses.
    pub emails: Vec<String>,
    /// Postal addresses, one string each.
    pub addresses: Vec<String>,
    /// Web addresses (also listed, unchecked, in the code's `urls`).
    pub urls: Vec<String>,
    /// Note.
    pub note: Option<String>,
}

/// An EPC069-12 SEPA credit transfer ("GiroCode").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EpcTransfer {
    /// `001` or `002`.
    pub version: String,
    /// Character set number 1–8 (1 = UTF-8).
    pub charset: u8,
    /// BIC of the payee's bank (optional in version 002 inside the EEA).
    pub bic: Option<String>,
    /// Payee name.
    pub name: String,
    /// Payee IBAN, upper-case without spaces; its checksum was verified.
    pub iban: String,
    /// Amount in EUR as a decimal string, when given.
    pub amount: Option<String>,
    /// Currency of the amount (always `EUR` in the standard).
    pub currency: Option<String>,
    /// Purpose code (4 characters).
    pub purpose: Option<String>,
    /// Structured creditor reference.
    pub reference: Option<String>,
    /// Unstructured remittance text.
    pub text: Option<String>,
    /// Beneficiary-to-originator information.
    pub information: Option<String>,
}

/// A Swiss QR-bill (`SPC` payload), main payment fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SwissQrBill {
    /// Version (`0200`).
    pub version: String,
    /// Creditor IBAN or QR-IBAN, checksum verified.
    pub iban: String,
    /// Creditor name.
    pub creditor_name: String,
    /// Amount as a decimal string, when given.
    pub amount: Option<String>,
    /// `CHF` or `EUR`.
    pub currency: String,
    /// Reference type (`QRR`, `SCOR`, `NON`).
    pub reference_type: String,
    /// Reference, when given.
    pub reference: Option<String>,
    /// Unstructured message, when given.
    pub message: Option<String>,
}

/// A calendar event (iCalendar VEVENT).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CalendarEvent {
    /// SUMMARY.
    pub summary: Option<String>,
    /// DTSTART as encoded.
    pub start: Option<String>,
    /// DTEND as encoded.
    pub end: Option<String>,
    /// LOCATION.
    pub location: Option<String>,
    /// DESCRIPTION.
    pub description: Option<String>,
}

/// A code's payload, parsed where its form is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CodePayload {
    /// A URL (also listed, unchecked, in the code's `urls`).
    Url {
        /// The URL.
        url: String,
    },
    /// A WLAN configuration.
    Wifi(Wifi),
    /// A contact.
    Vcard(VCard),
    /// A SEPA credit transfer.
    Epc(EpcTransfer),
    /// A Swiss QR-bill.
    SwissQr(SwissQrBill),
    /// A calendar event.
    Calendar(CalendarEvent),
    /// Anything else: the text itself is the payload.
    Text,
}

/// A decoded barcode or QR code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Code {
    /// Page number, from 1 (1 for a single image).
    pub page: u32,
    /// Symbology.
    pub symbology: Symbology,
    /// The decoded text (bytes read as the code's declared character set).
    pub text: String,
    /// The raw bytes, base64, when they are not valid UTF-8.
    pub bytes_base64: Option<String>,
    /// The four corners, clockwise from the top-left-most one (for 1D codes the corners of
    /// the bars' extent), in the page's frame.
    pub quad: Vec<Point>,
    /// Axis-aligned box around the code.
    #[serde(rename = "box")]
    pub bbox: PageBox,
    /// The parsed payload.
    pub payload: CodePayload,
    /// Every URL found in the payload, never opened.
    pub urls: Vec<UncheckedUrl>,
}
