//! The e-invoice a PDF may carry as an embedded XML file (ZUGFeRD, Factur-X, XRechnung).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::header::HeaderFieldName;
use crate::text::Provenance;

/// The XML syntax of an embedded e-invoice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InvoiceSyntax {
    /// UN/CEFACT Cross Industry Invoice (ZUGFeRD 2.x, Factur-X, XRechnung CII).
    Cii,
    /// OASIS Universal Business Language (XRechnung UBL).
    Ubl,
}

/// One line of an invoice: as printed in a line-item table, or as the embedded XML states it.
/// Amounts and quantities are decimal strings with a point; a part not given is null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LineItem {
    /// What was sold.
    pub description: Option<String>,
    /// Quantity.
    pub quantity: Option<String>,
    /// Net price per unit.
    pub unit_price: Option<String>,
    /// Net line total.
    pub line_total: Option<String>,
    /// Where the row is printed (null for the embedded XML, which has no position).
    pub source: Option<Provenance>,
}

/// The invoice read from the XML embedded in the PDF. Never fatal: an XML that cannot be read
/// gives an entry with empty `fields` and the reason in `problems`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddedInvoice {
    /// The embedded file's name (`factur-x.xml`, `zugferd-invoice.xml`, `xrechnung.xml`…).
    pub file_name: String,
    /// CII or UBL; null when the XML could not be parsed far enough to tell.
    pub syntax: Option<InvoiceSyntax>,
    /// The guideline (profile) identifier the XML declares, as written
    /// (e.g. `urn:cen.eu:en16931:2017`).
    pub profile: Option<String>,
    /// The EN 16931 core fields the XML gives, under the header field names, normalised as
    /// [`crate::HeaderField::value`] is (ISO dates, decimal strings, upper-case ids).
    pub fields: BTreeMap<HeaderFieldName, String>,
    /// The invoice lines.
    pub line_items: Vec<LineItem>,
    /// What could not be read, in words; empty when the XML was read whole.
    pub problems: Vec<String>,
}
