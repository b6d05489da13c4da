//! Header data of invoices and similar business documents.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::text::{Confidence, Provenance};

/// One header value: normalised, as printed, with its confidence and source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HeaderField {
    /// Normalised value: dates as ISO `YYYY-MM-DD`, amounts as decimal strings with a point
    /// (`"1234.56"`), IBAN/BIC/VAT ids upper-case without spaces, currency as ISO 4217 code;
    /// other fields as printed with whitespace collapsed.
    pub value: String,
    /// The text as printed.
    pub text: String,
    /// How sure the extraction is: for the invoice fields the header model ranks, the
    /// probability (calibrated on documents left out of training) that the value is the one
    /// printed, times the words' confidence; for the others the label match and the value's
    /// form, times the words' confidence. 0 when the embedded e-invoice XML contradicts it.
    pub confidence: Confidence,
    /// Page, box and method.
    pub source: Provenance,
    /// Whether the e-invoice XML embedded in the PDF gives the same value: `true` or `false`
    /// when both the page and the XML give the field, absent otherwise (no XML, or the XML
    /// lacks the field). A `false` is what an accounts-payable clerk must look at: the value
    /// stays as printed, its confidence is 0, and the XML's value is in `embedded_invoice`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agrees_with_embedded: Option<bool>,
}

macro_rules! header_fields {
    ($( $(#[$doc:meta])* $field:ident => $variant:ident ),+ $(,)?) => {
        /// The name of a header field.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum HeaderFieldName {
            $( $(#[$doc])* $variant, )+
        }

        impl HeaderFieldName {
            /// Every field, in wire order.
            pub const ALL: &'static [HeaderFieldName] = &[$(HeaderFieldName::$variant),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $(HeaderFieldName::$variant => stringify!($field),)+ }
            }
        }

        /// Header data of a document. Every field is present on the wire; a field that was not
        /// found is null, never guessed.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
        pub struct HeaderFields {
            $( $(#[$doc])* pub $field: Option<HeaderField>, )+
        }

        impl HeaderFields {
            /// The field of that name.
            pub fn get(&self, name: HeaderFieldName) -> Option<&HeaderField> {
                match name { $(HeaderFieldName::$variant => self.$field.as_ref(),)+ }
            }

            /// The slot of that name.
            pub fn slot(&mut self, name: HeaderFieldName) -> &mut Option<HeaderField> {
                match name { $(HeaderFieldName::$variant => &mut self.$field,)+ }
            }
        }
    };
}

header_fields! {
    /// Kind of document (`invoice`, `credit_note`, `order`, `delivery_note`, `quote`, `receipt`).
    document_type => DocumentType,
    /// Invoice (or document) number.
    invoice_number => InvoiceNumber,
    /// Issue date.
    issue_date => IssueDate,
    /// Due date.
    due_date => DueDate,
    /// Delivery or service date.
    delivery_date => DeliveryDate,
    /// The buyer's order number or reference.
    order_number => OrderNumber,
    /// Customer number.
    customer_number => CustomerNumber,
    /// Seller's name.
    seller_name => SellerName,
    /// Seller's postal address.
    seller_address => SellerAddress,
    /// Seller's VAT id.
    seller_vat_id => SellerVatId,
    /// Seller's tax number (Steuernummer).
    seller_tax_number => SellerTaxNumber,
    /// Buyer's name.
    buyer_name => BuyerName,
    /// Buyer's postal address.
    buyer_address => BuyerAddress,
    /// Buyer's VAT id.
    buyer_vat_id => BuyerVatId,
    /// Net total.
    net_total => NetTotal,
    /// Tax total.
    tax_total => TaxTotal,
    /// Gross total.
    gross_total => GrossTotal,
    /// Amount due (after prepayments).
    amount_due => AmountDue,
    /// Currency (ISO 4217).
    currency => Currency,
    /// Payee IBAN.
    iban => Iban,
    /// Payee BIC.
    bic => Bic,
    /// Payment terms as printed.
    payment_terms => PaymentTerms,
}

impl HeaderFields {
    /// Sets a field unless a more confident value is already there.
    pub fn offer(&mut self, name: HeaderFieldName, candidate: HeaderField) {
        let slot = self.slot(name);
        let replace = match slot {
            None => true,
            Some(existing) => candidate.confidence > existing.confidence,
        };
        if replace {
            *slot = Some(candidate);
        }
    }

    /// Number of fields found.
    pub fn found(&self) -> usize {
        HeaderFieldName::ALL
            .iter()
            .filter(|n| self.get(**n).is_some())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Method, PageBox};

    fn field(value: &str, confidence: f64) -> HeaderField {
        HeaderField {
            value: value.into(),
            text: value.into(),
            confidence: Confidence::new(confidence),
            source: Provenance {
                page: 1,
                bbox: PageBox::from_edges(1, 0.0, 0.0, 1.0, 1.0),
                method: Method::KeyValue,
            },
            agrees_with_embedded: None,
        }
    }

    #[test]
    fn offer_keeps_the_more_confident() {
        let mut header = HeaderFields::default();
        header.offer(HeaderFieldName::Iban, field("A", 0.6));
        header.offer(HeaderFieldName::Iban, field("B", 0.5));
        header.offer(HeaderFieldName::Iban, field("C", 0.9));
        assert_eq!(header.iban.as_ref().map(|f| f.value.as_str()), Some("C"));
        assert_eq!(header.found(), 1);
    }

    #[test]
    fn every_field_is_on_the_wire_even_when_null() {
        let json = serde_json::to_value(HeaderFields::default()).expect("serialises");
        let object = json.as_object().expect("object");
        assert_eq!(object.len(), HeaderFieldName::ALL.len());
        for name in HeaderFieldName::ALL {
            assert_eq!(object.get(name.as_str()), Some(&serde_json::Value::Null));
        }
    }
}
