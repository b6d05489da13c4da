use super::*;
use doc_model::{Confidence, HeaderField, Method, PageBox, Provenance};

/// A CII (ZUGFeRD 2 / Factur-X) invoice written by hand from the EN 16931 CII binding.
const CII: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>
    <ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument><ram:ID>RE-2026-17</ram:ID><ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">20260305</udt:DateTimeString></ram:IssueDateTime>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:SpecifiedTradeProduct><ram:Name>Trennblätter A4</ram:Name></ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>
        <ram:ChargeAmount>19.8000</ram:ChargeAmount><ram:BasisQuantity>2</ram:BasisQuantity>
      </ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="H87">20.0000</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement><ram:SpecifiedTradeSettlementLineMonetarySummation>
        <ram:LineTotalAmount>198.00</ram:LineTotalAmount>
      </ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>
    <ram:ApplicableHeaderTradeAgreement>
      <ram:BuyerOrderReferencedDocument><ram:IssuerAssignedID>PO-77</ram:IssuerAssignedID></ram:BuyerOrderReferencedDocument>
      <ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
        <ram:PostalTradeAddress><ram:PostcodeCode>80333</ram:PostcodeCode><ram:LineOne>Lieferantenstraße 20</ram:LineOne><ram:CityName>München</ram:CityName></ram:PostalTradeAddress>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE 123456789</ram:ID></ram:SpecifiedTaxRegistration>
      </ram:SellerTradeParty>
      <ram:BuyerTradeParty><ram:Name>Kunden AG Mitte</ram:Name></ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementPaymentMeans>
        <ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE02 1203 0000 0000 2020 51</ram:IBANID></ram:PayeePartyCreditorFinancialAccount>
        <ram:PayeeSpecifiedCreditorFinancialInstitution><ram:BICID>BYLADEM1001</ram:BICID></ram:PayeeSpecifiedCreditorFinancialInstitution>
      </ram:SpecifiedTradeSettlementPaymentMeans>
      <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime><udt:DateTimeString format="102">20260404</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:TaxBasisTotalAmount>198.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="USD">40.00</ram:TaxTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">37.62</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>235.62</ram:GrandTotalAmount>
        <ram:DuePayableAmount>235.62</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"#;

/// A UBL credit note (XRechnung UBL) written by hand from the EN 16931 UBL binding.
const UBL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>
  <cbc:ID>GS-9</cbc:ID>
  <cbc:IssueDate>2026-02-01</cbc:IssueDate>
  <cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PostalAddress><cbc:StreetName>Hauptstr. 1</cbc:StreetName><cbc:CityName>Berlin</cbc:CityName><cbc:PostalZone>10115</cbc:PostalZone></cac:PostalAddress>
    <cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>Verkäufer AG</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cac:PartyName><cbc:Name>Käufer KG</cbc:Name></cac:PartyName></cac:Party></cac:AccountingCustomerParty>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">1.90</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:TaxExclusiveAmount currencyID="EUR">10.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">11.90</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">11.90</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:CreditNoteLine><cbc:ID>1</cbc:ID><cbc:CreditedQuantity unitCode="C62">2</cbc:CreditedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">10.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Beratung</cbc:Name></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">5.00</cbc:PriceAmount></cac:Price>
  </cac:CreditNoteLine>
</CreditNote>"#;

fn field(name: HeaderFieldName, invoice: &EmbeddedInvoice) -> Option<&str> {
    invoice.fields.get(&name).map(String::as_str)
}

#[test]
fn cii_core_fields_and_lines() {
    use HeaderFieldName as F;
    let invoice = read_invoice_xml("factur-x.xml", CII.as_bytes());
    assert!(invoice.problems.is_empty(), "{:?}", invoice.problems);
    assert_eq!(invoice.syntax, Some(InvoiceSyntax::Cii));
    assert_eq!(invoice.profile.as_deref(), Some("urn:cen.eu:en16931:2017"));
    let expected = [
        (F::InvoiceNumber, "RE-2026-17"),
        (F::DocumentType, "invoice"),
        (F::IssueDate, "2026-03-05"),
        (F::DueDate, "2026-04-04"),
        (F::OrderNumber, "PO-77"),
        (F::SellerName, "Lieferant GmbH"),
        (F::SellerAddress, "Lieferantenstraße 20, 80333 München"),
        (F::SellerVatId, "DE123456789"),
        (F::SellerTaxNumber, "201/113/40209"),
        (F::BuyerName, "Kunden AG Mitte"),
        (F::Currency, "EUR"),
        (F::Iban, "DE02120300000000202051"),
        (F::Bic, "BYLADEM1001"),
        (F::NetTotal, "198.00"),
        // The tax total in the invoice currency, not the other one.
        (F::TaxTotal, "37.62"),
        (F::GrossTotal, "235.62"),
        (F::AmountDue, "235.62"),
    ];
    for (name, value) in expected {
        assert_eq!(field(name, &invoice), Some(value), "{}", name.as_str());
    }
    assert_eq!(
        invoice.line_items,
        vec![LineItem {
            description: Some("Trennblätter A4".into()),
            quantity: Some("20".into()),
            // 19.80 per basis quantity of 2.
            unit_price: Some("9.90".into()),
            line_total: Some("198.00".into()),
            source: None,
        }]
    );
}

#[test]
fn ubl_credit_note() {
    use HeaderFieldName as F;
    let invoice = read_invoice_xml("xrechnung.xml", UBL.as_bytes());
    assert!(invoice.problems.is_empty(), "{:?}", invoice.problems);
    assert_eq!(invoice.syntax, Some(InvoiceSyntax::Ubl));
    assert!(
        invoice
            .profile
            .as_deref()
            .is_some_and(|p| p.contains("xrechnung"))
    );
    assert_eq!(field(F::DocumentType, &invoice), Some("credit_note"));
    assert_eq!(field(F::InvoiceNumber, &invoice), Some("GS-9"));
    assert_eq!(field(F::IssueDate, &invoice), Some("2026-02-01"));
    assert_eq!(field(F::SellerName, &invoice), Some("Verkäufer AG"));
    assert_eq!(
        field(F::SellerAddress, &invoice),
        Some("Hauptstr. 1, 10115 Berlin")
    );
    assert_eq!(field(F::SellerVatId, &invoice), Some("DE123456789"));
    assert_eq!(field(F::BuyerName, &invoice), Some("Käufer KG"));
    assert_eq!(field(F::NetTotal, &invoice), Some("10.00"));
    assert_eq!(field(F::TaxTotal, &invoice), Some("1.90"));
    assert_eq!(field(F::GrossTotal, &invoice), Some("11.90"));
    assert_eq!(invoice.line_items.len(), 1);
    assert_eq!(invoice.line_items[0].quantity.as_deref(), Some("2"));
    assert_eq!(invoice.line_items[0].unit_price.as_deref(), Some("5.00"));
}

#[test]
fn broken_xml_is_a_problem_not_a_failure() {
    let cut = &CII[..CII.len() / 2];
    let invoice = read_invoice_xml("factur-x.xml", cut.as_bytes());
    assert!(invoice.fields.is_empty());
    assert_eq!(invoice.problems.len(), 1);
    assert!(
        invoice.problems[0].contains("not well-formed"),
        "{:?}",
        invoice.problems
    );

    let other = read_invoice_xml("x.xml", b"<note><to>Tove</to></note>");
    assert!(other.syntax.is_none());
    assert!(other.problems[0].contains("<note>"), "{:?}", other.problems);

    let binary = read_invoice_xml("x.xml", &[0xff, 0xfe, 0x00]);
    assert!(
        binary.problems[0].contains("UTF-8"),
        "{:?}",
        binary.problems
    );
}

#[test]
fn entity_expansion_is_refused() {
    let bomb = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
<rsm:CrossIndustryInvoice xmlns:rsm="x"><a>&lol2;</a></rsm:CrossIndustryInvoice>"#;
    let invoice = read_invoice_xml("factur-x.xml", bomb.as_bytes());
    assert!(invoice.fields.is_empty());
    assert!(!invoice.problems.is_empty());
}

#[test]
fn oversized_xml_is_not_parsed() {
    let big = vec![b' '; MAX_XML_BYTES + 1];
    let invoice = read_invoice_xml("factur-x.xml", &big);
    assert!(
        invoice.problems[0].contains("more than"),
        "{:?}",
        invoice.problems
    );
}

#[test]
fn unreadable_values_are_named() {
    let bad = CII.replace("20260305", "2026-13-45x");
    let invoice = read_invoice_xml("factur-x.xml", bad.as_bytes());
    assert!(field(HeaderFieldName::IssueDate, &invoice).is_none());
    assert!(
        invoice.problems.iter().any(|p| p.starts_with("issue_date")),
        "{:?}",
        invoice.problems
    );
    // The rest is still read.
    assert_eq!(
        field(HeaderFieldName::InvoiceNumber, &invoice),
        Some("RE-2026-17")
    );
}

#[test]
fn decimals_normalise() {
    assert_eq!(normalize_amount("9.9000").as_deref(), Some("9.90"));
    assert_eq!(normalize_amount("-5").as_deref(), Some("-5.00"));
    assert_eq!(normalize_amount("0.125").as_deref(), Some("0.125"));
    assert_eq!(normalize_decimal("20.0000").as_deref(), Some("20"));
    assert_eq!(normalize_decimal("-0.0").as_deref(), Some("0"));
    assert_eq!(normalize_decimal("1,5"), None);
    assert_eq!(normalize_date("20180305").as_deref(), Some("2018-03-05"));
    assert_eq!(normalize_date("2018-03-05").as_deref(), Some("2018-03-05"));
    assert_eq!(normalize_date("20180230"), None);
}

fn printed(value: &str) -> HeaderField {
    HeaderField {
        value: value.into(),
        text: value.into(),
        confidence: Confidence::new(0.9),
        source: Provenance {
            page: 1,
            bbox: PageBox::from_edges(1, 0.0, 0.0, 1.0, 1.0),
            method: Method::Vocabulary,
        },
        agrees_with_embedded: None,
    }
}

#[test]
fn agreement_is_marked_where_both_give_a_value() {
    let invoice = read_invoice_xml("factur-x.xml", CII.as_bytes());
    let mut header = HeaderFields {
        invoice_number: Some(printed("RE-2026-17")),
        gross_total: Some(printed("253.62")),
        seller_vat_id: Some(printed("DE123456789")),
        seller_address: Some(printed("Lieferantenstraße 20, 80333 München, Deutschland")),
        payment_terms: None,
        customer_number: Some(printed("K-1")),
        ..HeaderFields::default()
    };
    mark_agreement(&mut header, &invoice);
    let agrees = |f: &Option<HeaderField>| f.as_ref().and_then(|f| f.agrees_with_embedded);
    assert_eq!(agrees(&header.invoice_number), Some(true));
    assert_eq!(agrees(&header.gross_total), Some(false));
    // Contradicted by the XML: kept as printed, with no confidence.
    let gross = header.gross_total.as_ref().expect("kept");
    assert_eq!(gross.value, "253.62");
    assert_eq!(gross.confidence.value(), 0.0);
    let number = header.invoice_number.as_ref().expect("kept");
    assert!(number.confidence.value() > 0.0);
    assert_eq!(agrees(&header.seller_vat_id), Some(true));
    assert_eq!(agrees(&header.seller_address), Some(true));
    // The XML has no customer number: nothing to compare.
    assert_eq!(agrees(&header.customer_number), None);
}

#[test]
fn credit_note_totals_agree_without_sign() {
    assert!(values_agree(
        HeaderFieldName::GrossTotal,
        "233.47",
        "-233.47"
    ));
    assert!(!values_agree(
        HeaderFieldName::GrossTotal,
        "233.48",
        "-233.47"
    ));
    assert!(values_agree(
        HeaderFieldName::SellerName,
        "LIEFERANT GMBH",
        "Lieferant GmbH"
    ));
}
