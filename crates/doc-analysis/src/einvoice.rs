//! The e-invoice XML a PDF may embed (ZUGFeRD 1 and 2, Factur-X, XRechnung): UN/CEFACT CII
//! (and its ZUGFeRD 1 predecessor `CrossIndustryDocument`) and OASIS UBL `Invoice`/`CreditNote`.
//!
//! Reads the EN 16931 core fields onto [`HeaderFieldName`] and the invoice lines, normalised as
//! the printed header is (ISO dates, decimal strings, upper-case ids), so the two can be compared
//! ([`mark_agreement`]). Nothing here is fatal: an XML that cannot be read gives an
//! [`EmbeddedInvoice`] with what could be read and the reasons in `problems`.
//!
//! The parser (roxmltree) refuses DTDs, so entity expansion cannot blow up; the caller bounds
//! the size of the bytes ([`MAX_XML_BYTES`]) and the parser the number of nodes.

use std::collections::BTreeMap;

use doc_model::{EmbeddedInvoice, HeaderFieldName, HeaderFields, InvoiceSyntax, LineItem};
use roxmltree::{Document, Node, ParsingOptions};

use crate::header::normalize::{collapse_whitespace, compact_upper, same_amount, to_cents};

/// Largest XML read, in bytes (after the PDF stream is inflated). The corpus' largest is
/// about 60 KB; an EXTENDED invoice of thousands of lines stays far below this.
pub const MAX_XML_BYTES: usize = 4 * 1024 * 1024;

/// Most XML nodes parsed (elements, text, comments, attributes count as roxmltree counts them).
const MAX_NODES: u32 = 500_000;

/// Most invoice lines kept.
const MAX_LINES: usize = 10_000;

/// Reads the invoice XML `bytes`, embedded under `file_name`. Never fails: what cannot be read
/// is named in `problems`.
pub fn read_invoice_xml(file_name: &str, bytes: &[u8]) -> EmbeddedInvoice {
    let mut invoice = EmbeddedInvoice {
        file_name: file_name.to_string(),
        syntax: None,
        profile: None,
        fields: BTreeMap::new(),
        line_items: Vec::new(),
        problems: Vec::new(),
    };
    if bytes.len() > MAX_XML_BYTES {
        invoice.problems.push(format!(
            "the XML has {} bytes, more than the {MAX_XML_BYTES} read",
            bytes.len()
        ));
        return invoice;
    }
    // A byte-order mark or stray bytes before `<?xml` are common in generated files.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            invoice
                .problems
                .push(format!("the XML is not UTF-8 text: {e}"));
            return invoice;
        }
    };
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
    };
    let document = match Document::parse_with_options(text, options) {
        Ok(document) => document,
        Err(e) => {
            invoice
                .problems
                .push(format!("the XML is not well-formed: {e}"));
            return invoice;
        }
    };
    let root = document.root_element();
    match root.tag_name().name() {
        "CrossIndustryInvoice" | "CrossIndustryDocument" | "Invoice"
            if root.tag_name().name() != "Invoice"
                || child(root, "HeaderExchangedDocument").is_some() =>
        {
            invoice.syntax = Some(InvoiceSyntax::Cii);
            read_cii(root, &mut invoice);
        }
        // The ZUGFeRD 1 draft (`CBFBUY`) also calls its root `Invoice`: UBL is told by its
        // namespace.
        "Invoice" | "CreditNote"
            if root
                .tag_name()
                .namespace()
                .is_some_and(|ns| ns.starts_with("urn:oasis:names:specification:ubl")) =>
        {
            invoice.syntax = Some(InvoiceSyntax::Ubl);
            read_ubl(root, &mut invoice);
        }
        other => invoice.problems.push(format!(
            "the root element <{other}> is neither a CII nor a UBL invoice"
        )),
    }
    if invoice.fields.is_empty() && invoice.problems.is_empty() {
        invoice
            .problems
            .push("no invoice field could be read".to_string());
    }
    invoice
}

/// The first child element of `node` with local name `name`.
fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// Every child element of `node` with local name `name`.
fn children<'a, 'i: 'a>(node: Node<'a, 'i>, name: &'a str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

/// Follows a path of local names, first match at each step.
fn at<'a, 'i>(node: Node<'a, 'i>, path: &[&str]) -> Option<Node<'a, 'i>> {
    path.iter().try_fold(node, |n, name| child(n, name))
}

/// The first of several paths that exists.
fn first_at<'a, 'i>(node: Node<'a, 'i>, paths: &[&[&str]]) -> Option<Node<'a, 'i>> {
    paths.iter().find_map(|p| at(node, p))
}

/// The element's text, whitespace collapsed; `None` when empty.
fn text_of(node: Node<'_, '_>) -> Option<String> {
    let text: String = node
        .descendants()
        .filter(Node::is_text)
        .filter_map(|t| t.text())
        .collect();
    let text = collapse_whitespace(&text);
    (!text.is_empty()).then_some(text)
}

fn text_at(node: Node<'_, '_>, paths: &[&[&str]]) -> Option<String> {
    first_at(node, paths).and_then(text_of)
}

/// A decimal as the header writes amounts: a point, at least two decimals, no needless zeros
/// past the cent (`9.9000` → `9.90`, `-5` → `-5.00`, `0.125` stays).
pub fn normalize_amount(text: &str) -> Option<String> {
    let plain = normalize_decimal(text)?;
    Some(match plain.split_once('.') {
        None => format!("{plain}.00"),
        Some((_, frac)) if frac.len() == 1 => format!("{plain}0"),
        Some(_) => plain,
    })
}

/// A decimal without trailing zeros after the point (`20.0000` → `20`, `1.50` → `1.5`).
pub fn normalize_decimal(text: &str) -> Option<String> {
    let t = text.trim().trim_start_matches('+');
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let valid = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    if !valid {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = frac.trim_end_matches('0');
    let zero = int == "0" && frac.is_empty();
    let sign = if neg && !zero { "-" } else { "" };
    Some(if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    })
}

/// A CII date (`DateTimeString` format 102, `YYYYMMDD`) or an ISO date, as ISO.
fn normalize_date(text: &str) -> Option<String> {
    let t = text.trim();
    let digits: String = t.chars().filter(char::is_ascii_digit).collect();
    let shaped = (t.len() == 8 && digits.len() == 8)
        || (t.len() == 10 && digits.len() == 8 && t.as_bytes()[4] == b'-');
    if !shaped {
        return None;
    }
    let iso = format!("{}-{}-{}", &digits[..4], &digits[4..6], &digits[6..8]);
    chrono::NaiveDate::parse_from_str(&iso, "%Y-%m-%d")
        .ok()
        .map(|_| iso)
}

/// Records a field read as `raw` through `normalize`, or a problem when it does not parse.
fn put(
    invoice: &mut EmbeddedInvoice,
    field: HeaderFieldName,
    raw: Option<String>,
    normalize: fn(&str) -> Option<String>,
) {
    let Some(raw) = raw else {
        return;
    };
    match normalize(&raw) {
        Some(value) => {
            invoice.fields.insert(field, value);
        }
        None => invoice
            .problems
            .push(format!("{}: {raw:?} could not be read", field.as_str())),
    }
}

fn as_text(text: &str) -> Option<String> {
    Some(collapse_whitespace(text)).filter(|t| !t.is_empty())
}

fn as_id(text: &str) -> Option<String> {
    Some(compact_upper(text)).filter(|t| !t.is_empty())
}

fn as_currency(text: &str) -> Option<String> {
    let code = text.trim().to_ascii_uppercase();
    (code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase())).then_some(code)
}

/// The document type of an UNTDID 1001 code: 381 (and 261, 262, 296, 308, 396, 420, 458,
/// 532) are credit notes, the other invoice codes invoices.
fn document_type(code: &str) -> Option<String> {
    let code = code.trim();
    if code.is_empty() {
        return None;
    }
    Some(
        match code {
            "381" | "261" | "262" | "296" | "308" | "396" | "420" | "458" | "532" => "credit_note",
            _ => "invoice",
        }
        .to_string(),
    )
}

/// A postal address as the header prints one: street lines, then `postcode city`.
fn address(
    node: Option<Node<'_, '_>>,
    lines: &[&str],
    postcode: &str,
    city: &str,
) -> Option<String> {
    let node = node?;
    let mut parts: Vec<String> = lines
        .iter()
        .filter_map(|l| child(node, l).and_then(text_of))
        .collect();
    let place = [postcode, city]
        .iter()
        .filter_map(|l| child(node, l).and_then(text_of))
        .collect::<Vec<_>>()
        .join(" ");
    if !place.is_empty() {
        parts.push(place);
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn read_cii(root: Node<'_, '_>, invoice: &mut EmbeddedInvoice) {
    use HeaderFieldName as F;
    // CII (D16B): ExchangedDocument… ; ZUGFeRD 1 (D13B-based): HeaderExchangedDocument…
    invoice.profile = text_at(
        root,
        &[
            &[
                "ExchangedDocumentContext",
                "GuidelineSpecifiedDocumentContextParameter",
                "ID",
            ],
            &[
                "SpecifiedExchangedDocumentContext",
                "GuidelineSpecifiedDocumentContextParameter",
                "ID",
            ],
        ],
    );
    let Some(document) = first_at(
        root,
        &[&["ExchangedDocument"], &["HeaderExchangedDocument"]],
    ) else {
        invoice
            .problems
            .push("no ExchangedDocument element".to_string());
        return;
    };
    let Some(transaction) = first_at(
        root,
        &[
            &["SupplyChainTradeTransaction"],
            &["SpecifiedSupplyChainTradeTransaction"],
        ],
    ) else {
        invoice
            .problems
            .push("no SupplyChainTradeTransaction element".to_string());
        return;
    };
    put(
        invoice,
        F::InvoiceNumber,
        text_at(document, &[&["ID"]]),
        as_text,
    );
    put(
        invoice,
        F::DocumentType,
        text_at(document, &[&["TypeCode"]]),
        document_type,
    );
    put(
        invoice,
        F::IssueDate,
        text_at(
            document,
            &[&["IssueDateTime", "DateTimeString"], &["IssueDateTime"]],
        ),
        normalize_date,
    );
    let agreement = first_at(
        transaction,
        &[
            &["ApplicableHeaderTradeAgreement"],
            &["ApplicableSupplyChainTradeAgreement"],
        ],
    );
    let delivery = first_at(
        transaction,
        &[
            &["ApplicableHeaderTradeDelivery"],
            &["ApplicableSupplyChainTradeDelivery"],
        ],
    );
    let settlement = first_at(
        transaction,
        &[
            &["ApplicableHeaderTradeSettlement"],
            &["ApplicableSupplyChainTradeSettlement"],
        ],
    );
    if let Some(agreement) = agreement {
        put(
            invoice,
            F::OrderNumber,
            text_at(
                agreement,
                &[
                    &["BuyerOrderReferencedDocument", "IssuerAssignedID"],
                    &["BuyerOrderReferencedDocument", "ID"],
                ],
            ),
            as_text,
        );
        for (party_name, name, addr, vat, tax) in [
            (
                "SellerTradeParty",
                F::SellerName,
                F::SellerAddress,
                F::SellerVatId,
                Some(F::SellerTaxNumber),
            ),
            (
                "BuyerTradeParty",
                F::BuyerName,
                F::BuyerAddress,
                F::BuyerVatId,
                None,
            ),
        ] {
            let Some(party) = child(agreement, party_name) else {
                continue;
            };
            put(invoice, name, text_at(party, &[&["Name"]]), as_text);
            let postal = child(party, "PostalTradeAddress");
            put(
                invoice,
                addr,
                address(
                    postal,
                    &["LineOne", "LineTwo", "LineThree"],
                    "PostcodeCode",
                    "CityName",
                ),
                as_text,
            );
            for registration in children(party, "SpecifiedTaxRegistration") {
                let Some(id) = child(registration, "ID") else {
                    continue;
                };
                let target = match id.attribute("schemeID") {
                    Some("VA") => Some(vat),
                    Some("FC") => tax,
                    _ => None,
                };
                if let Some(target) = target
                    && !invoice.fields.contains_key(&target)
                {
                    let normalize = if target == vat { as_id } else { as_text };
                    put(invoice, target, text_of(id), normalize);
                }
            }
            if party_name == "BuyerTradeParty" {
                put(
                    invoice,
                    F::CustomerNumber,
                    text_at(party, &[&["ID"]]),
                    as_text,
                );
            }
        }
    } else {
        invoice
            .problems
            .push("no header trade agreement (parties)".to_string());
    }
    if let Some(delivery) = delivery {
        put(
            invoice,
            F::DeliveryDate,
            text_at(
                delivery,
                &[
                    &[
                        "ActualDeliverySupplyChainEvent",
                        "OccurrenceDateTime",
                        "DateTimeString",
                    ],
                    &["ActualDeliverySupplyChainEvent", "OccurrenceDateTime"],
                ],
            ),
            normalize_date,
        );
    }
    let Some(settlement) = settlement else {
        invoice
            .problems
            .push("no header trade settlement (totals)".to_string());
        read_cii_lines(transaction, invoice);
        return;
    };
    let currency = text_at(settlement, &[&["InvoiceCurrencyCode"]]);
    put(invoice, F::Currency, currency.clone(), as_currency);
    // The payee's account: the first means of payment that names one.
    for means in children(settlement, "SpecifiedTradeSettlementPaymentMeans") {
        let iban = text_at(
            means,
            &[
                &["PayeePartyCreditorFinancialAccount", "IBANID"],
                &["PayeePartyCreditorFinancialAccount", "ProprietaryID"],
            ],
        );
        if iban.is_some() && !invoice.fields.contains_key(&F::Iban) {
            put(invoice, F::Iban, iban, as_id);
            put(
                invoice,
                F::Bic,
                text_at(
                    means,
                    &[&["PayeeSpecifiedCreditorFinancialInstitution", "BICID"]],
                ),
                as_id,
            );
        }
    }
    let terms = child(settlement, "SpecifiedTradePaymentTerms");
    if let Some(terms) = terms {
        put(
            invoice,
            F::PaymentTerms,
            text_at(terms, &[&["Description"]]),
            as_text,
        );
    }
    put(
        invoice,
        F::DueDate,
        children(settlement, "SpecifiedTradePaymentTerms").find_map(|t| {
            text_at(
                t,
                &[&["DueDateDateTime", "DateTimeString"], &["DueDateDateTime"]],
            )
        }),
        normalize_date,
    );
    if let Some(sums) = first_at(
        settlement,
        &[
            &["SpecifiedTradeSettlementHeaderMonetarySummation"],
            &["SpecifiedTradeSettlementMonetarySummation"],
        ],
    ) {
        put(
            invoice,
            F::NetTotal,
            text_at(sums, &[&["TaxBasisTotalAmount"]]),
            normalize_amount,
        );
        // The tax total may be given twice (invoice and accounting currency): take the one in
        // the invoice currency, or the one with no currency named.
        let tax = children(sums, "TaxTotalAmount")
            .find(|t| match (t.attribute("currencyID"), &currency) {
                (Some(c), Some(cur)) => c.eq_ignore_ascii_case(cur),
                _ => true,
            })
            .and_then(text_of);
        put(invoice, F::TaxTotal, tax, normalize_amount);
        put(
            invoice,
            F::GrossTotal,
            text_at(sums, &[&["GrandTotalAmount"]]),
            normalize_amount,
        );
        put(
            invoice,
            F::AmountDue,
            text_at(sums, &[&["DuePayableAmount"]]),
            normalize_amount,
        );
    } else {
        invoice
            .problems
            .push("no monetary summation (totals)".to_string());
    }
    read_cii_lines(transaction, invoice);
}

fn read_cii_lines(transaction: Node<'_, '_>, invoice: &mut EmbeddedInvoice) {
    for line in children(transaction, "IncludedSupplyChainTradeLineItem").take(MAX_LINES) {
        let agreement = first_at(
            line,
            &[
                &["SpecifiedLineTradeAgreement"],
                &["SpecifiedSupplyChainTradeAgreement"],
            ],
        );
        let delivery = first_at(
            line,
            &[
                &["SpecifiedLineTradeDelivery"],
                &["SpecifiedSupplyChainTradeDelivery"],
            ],
        );
        let settlement = first_at(
            line,
            &[
                &["SpecifiedLineTradeSettlement"],
                &["SpecifiedSupplyChainTradeSettlement"],
            ],
        );
        let price = agreement.and_then(|a| child(a, "NetPriceProductTradePrice"));
        let item = LineItem {
            description: text_at(line, &[&["SpecifiedTradeProduct", "Name"]]),
            quantity: delivery
                .and_then(|d| text_at(d, &[&["BilledQuantity"]]))
                .and_then(|q| normalize_decimal(&q)),
            unit_price: price.and_then(unit_price_cii),
            line_total: settlement
                .and_then(|s| {
                    text_at(
                        s,
                        &[
                            &[
                                "SpecifiedTradeSettlementLineMonetarySummation",
                                "LineTotalAmount",
                            ],
                            &[
                                "SpecifiedTradeSettlementMonetarySummation",
                                "LineTotalAmount",
                            ],
                        ],
                    )
                })
                .and_then(|t| normalize_amount(&t)),
            source: None,
        };
        // Every line as the XML has it, a text-only line (all null) included, so that line
        // numbers match the XML's.
        invoice.line_items.push(item);
    }
}

/// The net price per unit: `ChargeAmount` over `BasisQuantity` when a basis is given.
fn unit_price_cii(price: Node<'_, '_>) -> Option<String> {
    let amount = text_at(price, &[&["ChargeAmount"]])?;
    let basis = text_at(price, &[&["BasisQuantity"]]);
    per_unit(&amount, basis.as_deref())
}

fn per_unit(amount: &str, basis: Option<&str>) -> Option<String> {
    let amount_value: f64 = amount.trim().parse().ok()?;
    match basis.and_then(|b| b.trim().parse::<f64>().ok()) {
        Some(basis) if basis > 0.0 && (basis - 1.0).abs() > f64::EPSILON => {
            let unit = amount_value / basis;
            // Four decimals are as fine as the XML's prices go.
            normalize_amount(&format!("{unit:.4}"))
        }
        _ => normalize_amount(amount),
    }
}

fn read_ubl(root: Node<'_, '_>, invoice: &mut EmbeddedInvoice) {
    use HeaderFieldName as F;
    let credit = root.tag_name().name() == "CreditNote";
    invoice.profile = text_at(root, &[&["CustomizationID"]]);
    put(
        invoice,
        F::InvoiceNumber,
        text_at(root, &[&["ID"]]),
        as_text,
    );
    put(
        invoice,
        F::DocumentType,
        text_at(root, &[&["InvoiceTypeCode"], &["CreditNoteTypeCode"]])
            .or_else(|| credit.then(|| "381".to_string())),
        document_type,
    );
    put(
        invoice,
        F::IssueDate,
        text_at(root, &[&["IssueDate"]]),
        normalize_date,
    );
    put(
        invoice,
        F::DueDate,
        text_at(root, &[&["DueDate"], &["PaymentMeans", "PaymentDueDate"]]),
        normalize_date,
    );
    put(
        invoice,
        F::DeliveryDate,
        text_at(root, &[&["Delivery", "ActualDeliveryDate"]]),
        normalize_date,
    );
    put(
        invoice,
        F::OrderNumber,
        text_at(root, &[&["OrderReference", "ID"]]),
        as_text,
    );
    let currency = text_at(root, &[&["DocumentCurrencyCode"]]);
    put(invoice, F::Currency, currency.clone(), as_currency);
    for (party_path, name, addr, vat) in [
        (
            ["AccountingSupplierParty", "Party"],
            F::SellerName,
            F::SellerAddress,
            F::SellerVatId,
        ),
        (
            ["AccountingCustomerParty", "Party"],
            F::BuyerName,
            F::BuyerAddress,
            F::BuyerVatId,
        ),
    ] {
        let Some(party) = at(root, &party_path) else {
            continue;
        };
        put(
            invoice,
            name,
            text_at(
                party,
                &[
                    &["PartyLegalEntity", "RegistrationName"],
                    &["PartyName", "Name"],
                ],
            ),
            as_text,
        );
        put(
            invoice,
            addr,
            address(
                child(party, "PostalAddress"),
                &["StreetName", "AdditionalStreetName"],
                "PostalZone",
                "CityName",
            ),
            as_text,
        );
        for scheme in children(party, "PartyTaxScheme") {
            let kind = text_at(scheme, &[&["TaxScheme", "ID"]]);
            let id = text_at(scheme, &[&["CompanyID"]]);
            let target = if kind.as_deref() == Some("VAT") {
                vat
            } else if name == F::SellerName {
                F::SellerTaxNumber
            } else {
                continue;
            };
            if !invoice.fields.contains_key(&target) {
                let normalize = if target == vat { as_id } else { as_text };
                put(invoice, target, id, normalize);
            }
        }
        if name == F::BuyerName {
            put(
                invoice,
                F::CustomerNumber,
                text_at(party, &[&["PartyIdentification", "ID"]]),
                as_text,
            );
        }
    }
    for means in children(root, "PaymentMeans") {
        let iban = text_at(means, &[&["PayeeFinancialAccount", "ID"]]);
        if iban.is_some() && !invoice.fields.contains_key(&F::Iban) {
            put(invoice, F::Iban, iban, as_id);
            put(
                invoice,
                F::Bic,
                text_at(
                    means,
                    &[&["PayeeFinancialAccount", "FinancialInstitutionBranch", "ID"]],
                ),
                as_id,
            );
        }
    }
    put(
        invoice,
        F::PaymentTerms,
        text_at(root, &[&["PaymentTerms", "Note"]]),
        as_text,
    );
    let tax = children(root, "TaxTotal")
        .filter_map(|t| child(t, "TaxAmount"))
        .find(|t| match (t.attribute("currencyID"), &currency) {
            (Some(c), Some(cur)) => c.eq_ignore_ascii_case(cur),
            _ => true,
        })
        .and_then(text_of);
    put(invoice, F::TaxTotal, tax, normalize_amount);
    if let Some(sums) = child(root, "LegalMonetaryTotal") {
        put(
            invoice,
            F::NetTotal,
            text_at(sums, &[&["TaxExclusiveAmount"]]),
            normalize_amount,
        );
        put(
            invoice,
            F::GrossTotal,
            text_at(sums, &[&["TaxInclusiveAmount"]]),
            normalize_amount,
        );
        put(
            invoice,
            F::AmountDue,
            text_at(sums, &[&["PayableAmount"]]),
            normalize_amount,
        );
    } else {
        invoice
            .problems
            .push("no LegalMonetaryTotal (totals)".to_string());
    }
    let (line_name, quantity_name) = if credit {
        ("CreditNoteLine", "CreditedQuantity")
    } else {
        ("InvoiceLine", "InvoicedQuantity")
    };
    for line in children(root, line_name).take(MAX_LINES) {
        let item = LineItem {
            description: text_at(line, &[&["Item", "Name"], &["Item", "Description"]]),
            quantity: text_at(line, &[&[quantity_name]]).and_then(|q| normalize_decimal(&q)),
            unit_price: child(line, "Price").and_then(|p| {
                let amount = text_at(p, &[&["PriceAmount"]])?;
                per_unit(&amount, text_at(p, &[&["BaseQuantity"]]).as_deref())
            }),
            line_total: text_at(line, &[&["LineExtensionAmount"]])
                .and_then(|t| normalize_amount(&t)),
            source: None,
        };
        invoice.line_items.push(item);
    }
}

/// Whether a printed value and the XML's value of `field` say the same: amounts to the cent,
/// ids without spaces and case, names and addresses by their letters and digits.
pub fn values_agree(field: HeaderFieldName, printed: &str, embedded: &str) -> bool {
    use HeaderFieldName as F;
    match field {
        F::NetTotal | F::TaxTotal | F::GrossTotal | F::AmountDue => {
            // A credit note may print its totals without the XML's minus sign.
            same_amount(printed, embedded)
                || matches!((to_cents(printed), to_cents(embedded)), (Some(a), Some(b)) if a == -b && a != 0)
        }
        F::DocumentType => printed.trim() == embedded.trim(),
        // A printed address is laid out freely: every word of the XML's must be printed.
        F::SellerAddress | F::BuyerAddress => {
            let printed = fold_words(printed);
            fold_words(embedded).iter().all(|w| printed.contains(w))
        }
        F::IssueDate | F::DueDate | F::DeliveryDate => printed.trim() == embedded.trim(),
        _ => {
            let fold = |s: &str| -> String {
                s.chars()
                    .filter(|c| c.is_alphanumeric())
                    .flat_map(char::to_lowercase)
                    .collect()
            };
            fold(printed) == fold(embedded)
        }
    }
}

fn fold_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Sets `agrees_with_embedded` on every header field the XML gives too; fields the XML does
/// not give keep `None`. A printed value the XML contradicts keeps its value (it is what the
/// page prints) but loses its confidence: 0, never a confident fact beside an invoice that
/// says otherwise. The XML's own value is the answer's `embedded_invoice`.
pub fn mark_agreement(header: &mut HeaderFields, invoice: &EmbeddedInvoice) {
    for (name, embedded) in &invoice.fields {
        if let Some(field) = header.slot(*name).as_mut() {
            let agrees = values_agree(*name, &field.value, embedded);
            field.agrees_with_embedded = Some(agrees);
            if !agrees {
                field.confidence = doc_model::Confidence::NONE;
            }
        }
    }
}

#[cfg(test)]
mod tests;
