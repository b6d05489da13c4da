//! The label vocabulary of invoice and order header fields (German, English, French, Dutch,
//! Italian): one concept, one place. The header extractor, the key-value finder and schema mapping all read it from here.
//!
//! Labels are compared after folding (see [`fold`]): lower case, letters and digits only, so
//! `USt.-Id.-Nr.`, `USt-IdNr` and `ust id nr` are the same label. A label matches whole words of
//! a line (it may span several words); when labels overlap, the longer one wins.

use doc_model::HeaderFieldName;

/// Labels per header field, German, English, French, Dutch and Italian. Party fields (`seller_name`, `buyer_name`)
/// list the headings of the party's block (the name stands next to or under them).
pub fn vocabulary() -> &'static [(HeaderFieldName, &'static [&'static str])] {
    VOCABULARY
}

const VOCABULARY: &[(HeaderFieldName, &[&str])] = &[
    (
        HeaderFieldName::InvoiceNumber,
        &[
            "Rechnungsnummer",
            "Rechnungs-Nr.",
            "Rechnungsnr.",
            "Rechnung Nr.",
            "Rechnung Nummer",
            "Rechnungs-Nummer",
            "Re.-Nr.",
            "RG-Nr.",
            "Belegnummer",
            "Beleg-Nr.",
            "Gutschriftsnummer",
            "Gutschrift-Nr.",
            "Gutschrift Nr.",
            "Dokumentnummer",
            "Invoice number",
            "Invoice No.",
            "Invoice No",
            "Numéro de facture",
            "Facture N°",
            "N° de facture",
            "Invoice #",
            "Invoice Nr.",
            "Invoice ID",
            "Invoice",
            "Credit note number",
            "Credit note No.",
            "Document number",
            "Document No.",
            "Facture n°",
            "Facture no",
            "Numéro de la facture",
            "N° facture",
            "Réf. facture",
            "Avoir n°",
            "Numéro d'avoir",
            "Factuurnummer",
            "Factuur nr.",
            "Factuurnr.",
            "Factuur nummer",
            "Creditnota nummer",
            "Fattura n.",
            "Fattura nr.",
            "Numero fattura",
            "Numero della fattura",
            "N. fattura",
            "Nota di credito n.",
        ],
    ),
    (
        HeaderFieldName::IssueDate,
        &[
            "Rechnungsdatum",
            "Rechnungs-Datum",
            "Belegdatum",
            "Ausstellungsdatum",
            "Gutschriftsdatum",
            "Datum",
            "Invoice date",
            "Date of issue",
            "Issue date",
            "Issued at",
            "Issued on",
            "Date de facture",
            "Date de la facture",
            "Date d'émission",
            "Date issued",
            "Document date",
            "Date",
            "Date facture",
            "Date d'émission de la facture",
            "Émise le",
            "Factuurdatum",
            "Datum factuur",
            "Data fattura",
            "Data della fattura",
            "Data documento",
            "Data emissione",
        ],
    ),
    (
        HeaderFieldName::DueDate,
        &[
            "Fälligkeitsdatum",
            "Fällig am",
            "Fälligkeit",
            "Zahlbar bis",
            "Zahlbar bis zum",
            "zu zahlen bis",
            "Due date",
            "Payment due",
            "Due on",
            "Due by",
            "Payable by",
            "Please remit until",
            "Pay by",
            "Date d'échéance",
            "Échéance",
            "Date limite de paiement",
            "À payer avant le",
            "Payable avant le",
            "Vervaldatum",
            "Vervaldag",
            "Te betalen voor",
            "Uiterste betaaldatum",
            "Data scadenza",
            "Scadenza",
            "Scadenza pagamento",
            "Da pagare entro",
        ],
    ),
    (
        HeaderFieldName::DeliveryDate,
        &[
            "Lieferdatum",
            "Leistungsdatum",
            "Liefer- und Leistungsdatum",
            "Liefer-/Leistungsdatum",
            "Lieferzeitpunkt",
            "Leistungszeitraum",
            "Delivery date",
            "Date of delivery",
            "Service date",
            "Date of supply",
            "Shipping date",
            "Date de livraison",
            "Livraison le",
            "Date de prestation",
            "Leverdatum",
            "Leveringsdatum",
            "Data consegna",
            "Data di consegna",
        ],
    ),
    (
        HeaderFieldName::OrderNumber,
        &[
            "Bestellnummer",
            "Bestellung",
            "Bestell-Nr.",
            "Bestellnr.",
            "Ihre Bestellnummer",
            "Ihre Bestellung",
            "Ihre Bestellung Nr.",
            "Bestellreferenz",
            "Auftragsnummer",
            "Auftrags-Nr.",
            "Auftragsnr.",
            "Ihr Auftrag",
            "Order number",
            "Order No.",
            "Order ID",
            "Order reference",
            "Your order",
            "Purchase order",
            "Purchase order number",
            "Bestellung Nr.",
            "Bestellzeichen",
            "Votre commande",
            "N° de commande",
            "PO number",
            "PO No.",
            "PO",
            "Référence commande",
            "Réf. commande",
            "Numéro de commande",
            "Bon de commande",
            "Commande n°",
            "Ordernummer",
            "Order nr.",
            "Bestelnummer",
            "Uw bestelling",
            "Uw referentie",
            "Inkoopordernummer",
            "Rif. ordine",
            "Riferimento ordine",
            "Numero ordine",
            "Ordine n.",
            "Vostro ordine",
        ],
    ),
    (
        HeaderFieldName::CustomerNumber,
        &[
            "Kundennummer",
            "Kunden-Nr.",
            "Kundennr.",
            "Kd.-Nr.",
            "Kunden-ID",
            "Customer number",
            "Customer No.",
            "Customer ID",
            "Account number",
            "Client number",
            "Numéro client",
            "N° client",
            "Code client",
            "Référence client",
            "Klantnummer",
            "Klant nr.",
            "Debiteurnummer",
            "Codice cliente",
            "Cliente n.",
        ],
    ),
    (
        HeaderFieldName::SellerName,
        &[
            "Verkäufer",
            "Lieferant",
            "Rechnungssteller",
            "Rechnungsersteller",
            "Leistungserbringer",
            "Absender",
            "Seller",
            "Supplier",
            "Vendor",
            "Sold by",
            "From",
            "Émetteur",
            "Emetteur",
            "Vendeur",
            "Fournisseur",
            "Prestataire",
            "Nom du vendeur",
            "Raison sociale du vendeur",
            "Leverancier",
            "Verkoper",
            "Afzender",
            "Fornitore",
            "Venditore",
            "Cedente",
            "Cedente/Prestatore",
        ],
    ),
    (
        HeaderFieldName::SellerVatId,
        &[
            "USt-IdNr.",
            "USt.-Id.-Nr.",
            "USt-ID",
            "USt.-Identnr.",
            "Umsatzsteuer-Identifikationsnummer",
            "Umsatzsteuer-ID",
            "UID",
            "UID-Nr.",
            "VAT ID",
            "VAT-ID",
            "VAT No.",
            "VAT number",
            "VAT Reg. No.",
            "VAT registration number",
            "Tax ID",
            "N° TVA",
            "N° de TVA",
            "Numéro de TVA",
            "N° TVA intracommunautaire",
            "TVA intracommunautaire",
            "Numéro de TVA intracommunautaire",
            "BTW-nummer",
            "BTW nr.",
            "Btw-nummer",
            "BTW-id",
            "Partita IVA",
            "P. IVA",
            "P.IVA",
            "Partita IVA n.",
        ],
    ),
    (
        HeaderFieldName::SellerTaxNumber,
        &[
            "Steuernummer",
            "Steuer-Nr.",
            "Steuernr.",
            "St.-Nr.",
            "StNr.",
            "Tax number",
            "Tax No.",
        ],
    ),
    (
        HeaderFieldName::BuyerName,
        &[
            "Käufer",
            "Rechnungsempfänger",
            "Leistungsempfänger",
            "Käufer/Leistungsempfänger",
            "Rechnungsadresse",
            "Kunde",
            "Empfänger",
            "Buyer",
            "Bill to",
            "Billed to",
            "Invoice to",
            "Invoice address",
            "Sold to",
            "Customer",
            "Client",
            "Adresse du client",
            "Acheteur",
            "Nom de l'acheteur",
            "Facturé à",
            "Adresse de facturation",
            "Destinataire",
            "Klant",
            "Afnemer",
            "Factuuradres",
            "Factuur aan",
            "Cliente",
            "Destinatario",
            "Committente",
            "Cessionario",
            "Cessionario/Committente",
            "Intestatario",
        ],
    ),
    (
        HeaderFieldName::BuyerVatId,
        &[
            "Ihre USt-IdNr.",
            "Kunden-USt-IdNr.",
            "USt-IdNr. des Kunden",
            "USt-IdNr. des Leistungsempfängers",
            "Customer VAT ID",
            "Customer VAT number",
            "Customer VAT No.",
            "Buyer VAT number",
            "Buyer VAT ID",
            "Your VAT ID",
            // French invoices print the customer's number under the seller's details.
            "N° TVA client",
            "TVA client",
            "Numéro de TVA client",
        ],
    ),
    (
        HeaderFieldName::NetTotal,
        &[
            "Nettobetrag",
            "Netto-Betrag",
            "Nettowert",
            "Rechnungssumme ohne USt.",
            "Summe ohne USt.",
            "Gesamtbetrag ohne USt.",
            "Summe ohne MwSt.",
            "Gesamt ohne MwSt.",
            "Nettogesamtbetrag",
            "Summe netto",
            "Gesamt netto",
            "Nettosumme",
            "Netto gesamt",
            "Gesamtbetrag netto",
            "Rechnungssumme netto",
            "Summe Positionen",
            "Zwischensumme",
            "Warenwert",
            "Net total",
            "Net amount",
            "Total net",
            "Total net amount",
            "Subtotal",
            "Sub-total",
            "Total excl. VAT",
            "Total excluding VAT",
            "Total without VAT",
            "Sum of line net amounts",
            "Total HT",
            "Montant HT",
            "Montant total HT",
            "Total hors taxes",
            "Sous-total",
            "Totaal excl. BTW",
            "Totaal exclusief BTW",
            "Subtotaal",
            "Netto bedrag",
            "Imponibile",
            "Totale imponibile",
            "Totale netto",
            "Subtotale",
        ],
    ),
    (
        HeaderFieldName::TaxTotal,
        &[
            "Steuerbetrag",
            "Umsatzsteuer",
            "Umsatzsteuerbetrag",
            "Mehrwertsteuer",
            "MwSt.",
            "MwSt.-Betrag",
            "USt.",
            "USt.-Betrag",
            "Summe USt.",
            "Summe MwSt.",
            "Gesamtsteuer",
            "Steuer gesamt",
            "Steuern",
            "VAT",
            "VAT total",
            "VAT amount",
            "Total VAT",
            "Tax",
            "Tax total",
            "Tax amount",
            "Total tax",
            "Sales tax",
            "Total taxes",
            "Total TVA",
            "TVA",
            "Montant TVA",
            "Montant total TVA",
            "Montant de la TVA",
            "BTW",
            "BTW bedrag",
            "Totaal BTW",
            "IVA",
            "Totale IVA",
            "Imposta",
            "Importo IVA",
        ],
    ),
    (
        HeaderFieldName::GrossTotal,
        &[
            "Bruttobetrag",
            "Rechnungssumme mit USt.",
            "Gesamtbetrag inkl. USt.",
            "Summe inkl. MwSt.",
            "Summe inkl. USt.",
            "Total TTC",
            "Gesamtbetrag inkl. MwSt.",
            "Gesamtbetrag",
            "Gesamtsumme",
            "Rechnungsbetrag",
            "Rechnungssumme",
            "Rechnungssumme brutto",
            "Summe brutto",
            "Gesamt brutto",
            "Bruttosumme",
            "Endbetrag",
            "Endsumme",
            "Gesamt",
            "Summe",
            "Total",
            "Grand total",
            "Invoice total",
            "Total amount",
            "Gross total",
            "Gross amount",
            "Total incl. VAT",
            "Total including VAT",
            "Montant TTC",
            "Montant total TTC",
            "Total à payer TTC",
            "Totaal incl. BTW",
            "Totaal inclusief BTW",
            "Totaalbedrag",
            "Totaal",
            "Totale",
            "Totale fattura",
            "Totale documento",
            "Importo totale",
        ],
    ),
    (
        HeaderFieldName::AmountDue,
        &[
            "Zahlbetrag",
            "Zu zahlen",
            "Zu zahlender Betrag",
            "Zu zahlender Beitrag",
            "Zahlbarer Betrag",
            "Fälliger Betrag",
            "Offener Betrag",
            "Noch zu zahlen",
            "Restbetrag",
            "Amount due",
            "Due payable",
            "Balance due",
            "Total due",
            "Amount payable",
            "Payable amount",
            "Total payable",
            "Amount to pay",
            "Solde à payer",
            "Net à payer",
            "Reste à payer",
            "Montant à payer",
            "Montant à régler",
            "Net à régler",
            "À payer",
            "Te betalen",
            "Totaal te betalen",
            "Openstaand bedrag",
            "Totale da pagare",
            "Netto a pagare",
            "Importo da pagare",
        ],
    ),
    (
        HeaderFieldName::Currency,
        &[
            "Währung",
            "Rechnungswährung",
            "Beträge in",
            "Currency",
            "Invoice currency",
            "Amounts in",
            "Devise",
            "Monnaie",
            "Valuta",
        ],
    ),
    (
        HeaderFieldName::Iban,
        // `Verkäufer-IBAN` / `Verkäufer-BIC`: the ZUGFeRD and XRechnung viewers' labels.
        &[
            "IBAN",
            "IBAN-Nr.",
            "IBAN Nr.",
            "IBAN number",
            "Verkäufer-IBAN",
            "IBAN du vendeur",
        ],
    ),
    (
        HeaderFieldName::Bic,
        &[
            "BIC",
            "BIC/SWIFT",
            "SWIFT",
            "SWIFT/BIC",
            "SWIFT code",
            "BIC-Code",
            "Verkäufer-BIC",
            "Code BIC",
            "BIC du vendeur",
        ],
    ),
    (
        HeaderFieldName::PaymentTerms,
        &[
            "Zahlungsbedingungen",
            "Zahlungsbedingung",
            "Zahlungsziel",
            "Zahlungsinformationen",
            "Payment terms",
            "Terms of payment",
            "Terms",
            "Conditions de paiement",
            "Conditions de règlement",
            "Modalités de paiement",
            "Betalingsvoorwaarden",
            "Betalingstermijn",
            "Condizioni di pagamento",
            "Termini di pagamento",
            "Modalità di pagamento",
        ],
    ),
];

/// The part of an invoice line a column of a line-item table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineItemColumn {
    /// What was delivered or done.
    Description,
    /// How many units.
    Quantity,
    /// The price of one unit.
    UnitPrice,
    /// The line's amount (quantity × unit price, less its allowances).
    LineTotal,
}

/// Column headings of line-item tables per part, German, English, French, Dutch and Italian: the one
/// list the line-item reader and schema mapping read. Compared after [`fold`].
pub fn line_item_columns() -> &'static [(LineItemColumn, &'static [&'static str])] {
    LINE_ITEM_COLUMNS
}

const LINE_ITEM_COLUMNS: &[(LineItemColumn, &[&str])] = &[
    (
        LineItemColumn::Description,
        &[
            "Bezeichnung",
            "Artikelbezeichnung",
            "Beschreibung",
            "Artikelbeschreibung",
            "Leistung",
            "Leistungsbeschreibung",
            "Produkt",
            "Artikel",
            "Warenbezeichnung",
            "Text",
            "Description",
            "Item",
            "Item description",
            "Product",
            "Service",
            "Désignation",
            "Designation",
            "Libellé",
            "Libelle",
            "Omschrijving",
            "Descrizione",
            "Articolo",
            "Prodotto",
            "Prestation",
            "Prestazione",
        ],
    ),
    (
        LineItemColumn::Quantity,
        &[
            "Menge",
            "Anzahl",
            "Anz.",
            "Stück",
            "Stk.",
            "Qty",
            "Quantity",
            "Qté",
            "Quantité",
            "Aantal",
            "Hoeveelheid",
            "Quantità",
            "Qtà",
            "Q.tà",
            "Hours",
            "Hrs",
            "Stunden",
            "Std.",
            "Heures",
            "Uren",
            "Ore",
            "Units",
        ],
    ),
    (
        LineItemColumn::UnitPrice,
        &[
            "Einzelpreis",
            "E-Preis",
            "Preis",
            "Stückpreis",
            "Preis pro Einheit",
            "Nettopreis",
            "Einzelpreis netto",
            "Unit price",
            "Unit net price",
            "Price",
            "Rate",
            "Unit cost",
            "Prix unitaire",
            "Prix unitaire HT",
            "PU",
            "PU HT",
            "Prijs",
            "Prijs per stuk",
            "Prezzo",
            "Prezzo unitario",
            "Eenheidsprijs",
            "Stuksprijs",
            "Prijs per eenheid",
            "Prix",
            "Tarif",
            "Hourly rate",
        ],
    ),
    (
        LineItemColumn::LineTotal,
        &[
            "Gesamtpreis",
            "Entgelt",
            "Gesamt",
            "Betrag",
            "Gesamtbetrag",
            "Positionsbetrag",
            "Summe",
            "Nettobetrag",
            "Nettowert",
            "Netto",
            "Gesamt netto",
            "Wert",
            "Total",
            "Amount",
            "Line total",
            "Net total",
            "Total HT",
            "Montant",
            "Montant HT",
            "Prix HT",
            "Prix total",
            "Bedrag",
            "Importo",
            "Totale",
            "Totaal",
            "Line amount",
            "Amount (net)",
        ],
    ),
];

/// Parts of compound or multi-line headings (`Prix Rem. unitaire`, `Positions- betrag`) that
/// name a column when no whole heading does, most telling first.
const LINE_ITEM_COLUMN_PARTS: &[(LineItemColumn, &[&str])] = &[
    (
        LineItemColumn::UnitPrice,
        &[
            "einzelpreis",
            "unitaire",
            "unitprice",
            "stückpreis",
            "preis",
            "price",
            "prijs",
            "prezzo",
            "prix",
        ],
    ),
    (
        LineItemColumn::Quantity,
        &[
            "menge",
            "quantité",
            "anzahl",
            "aantal",
            "quantità",
            "quantity",
        ],
    ),
    (
        LineItemColumn::LineTotal,
        &[
            "betrag", "gesamt", "total", "montant", "amount", "summe", "totaal", "importo",
            "bedrag",
        ],
    ),
    (
        LineItemColumn::Description,
        &[
            "bezeichnung",
            "beschreibung",
            "description",
            "artikel",
            "omschrijving",
            "descrizione",
            "désignation",
        ],
    ),
];

/// Folded column headings, computed once.
fn folded_line_item_columns() -> &'static [(LineItemColumn, Vec<String>)] {
    static FOLDED: std::sync::LazyLock<Vec<(LineItemColumn, Vec<String>)>> =
        std::sync::LazyLock::new(|| {
            LINE_ITEM_COLUMNS
                .iter()
                .map(|(column, labels)| (*column, labels.iter().map(|l| fold(l)).collect()))
                .collect()
        });
    &FOLDED
}

/// Whether a heading names a tax column (`USt.-Betrag`, `Montant TVA`, `Importo IVA`, `Btw-bedrag`,
/// `Tax amount`): its amounts are the line's tax, never its total or price.
fn names_tax(heading: &str) -> bool {
    const TAX: &[&str] = &[
        "ust",
        "mwst",
        "vat",
        "tva",
        "btw",
        "iva",
        "tax",
        "steuer",
        "umsatzsteuer",
    ];
    heading
        .split(|c: char| !c.is_alphanumeric())
        .map(fold)
        .any(|w| {
            TAX.iter()
                .any(|t| w == *t || (t.len() > 3 && w.starts_with(t)))
        })
}

/// The column a heading names exactly (after folding): `Unit price`, `Menge`.
pub fn line_item_column_exact(heading: &str) -> Option<LineItemColumn> {
    if names_tax(heading) {
        return None;
    }
    let folded = fold(heading);
    folded_line_item_columns()
        .iter()
        .find(|(_, labels)| labels.contains(&folded))
        .map(|(column, _)| *column)
}

/// The column a printed heading names: the whole heading, or its first one or two words
/// (`Menge Einheit`, `Preis €`), longest heading first; else a heading word inside a compound
/// (`Nettopreis`, `Positions- betrag`).
pub fn line_item_column_of(heading: &str) -> Option<LineItemColumn> {
    let whole = fold(heading);
    if whole.is_empty() || names_tax(heading) {
        return None;
    }
    let words: Vec<String> = heading.split_whitespace().map(fold).collect();
    let first: String = words.iter().take(1).map(String::as_str).collect();
    let first_two: String = words.iter().take(2).map(String::as_str).collect();
    let mut best: Option<(LineItemColumn, usize)> = None;
    for (column, labels) in folded_line_item_columns() {
        for label in labels {
            let hit = whole == *label || first == *label || first_two == *label;
            if hit && best.is_none_or(|(_, len)| label.len() > len) {
                best = Some((*column, label.len()));
            }
        }
    }
    best.map(|(column, _)| column).or_else(|| {
        LINE_ITEM_COLUMN_PARTS
            .iter()
            .find(|(_, parts)| parts.iter().any(|p| whole.contains(p)))
            .map(|(column, _)| *column)
    })
}

/// Kinds of documents and the title words that name them, German and English; the first
/// element is the wire value of `document_type`.
pub fn document_types() -> &'static [(&'static str, &'static [&'static str])] {
    DOCUMENT_TYPES
}

const DOCUMENT_TYPES: &[(&str, &[&str])] = &[
    (
        "credit_note",
        &[
            "Gutschrift",
            "Rechnungskorrektur",
            "Stornorechnung",
            "Credit note",
            "Credit memo",
            "Avoir",
        ],
    ),
    (
        "invoice",
        &[
            "Rechnung",
            "Handelsrechnung",
            "Teilrechnung",
            "Schlussrechnung",
            "Abschlagsrechnung",
            "Invoice",
            "Tax invoice",
            "Commercial invoice",
            "Facture",
        ],
    ),
    (
        "order",
        &["Bestellung", "Auftrag", "Purchase order", "Order"],
    ),
    (
        "delivery_note",
        &["Lieferschein", "Delivery note", "Packing slip"],
    ),
    (
        "quote",
        &["Angebot", "Kostenvoranschlag", "Quote", "Quotation"],
    ),
    ("receipt", &["Quittung", "Kassenbon", "Beleg", "Receipt"]),
];

/// A label or text folded for comparison: lower case, letters and digits only.
pub fn fold(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A label that matched whole words of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelMatch {
    /// The field it names.
    pub field: HeaderFieldName,
    /// First word of the label.
    pub first_word: usize,
    /// One past the last word of the label.
    pub end_word: usize,
    /// Length of the folded label: longer labels are more specific.
    pub specificity: usize,
}

/// Folded labels, computed once.
fn folded_vocabulary() -> &'static [(HeaderFieldName, Vec<String>)] {
    static FOLDED: std::sync::LazyLock<Vec<(HeaderFieldName, Vec<String>)>> =
        std::sync::LazyLock::new(|| {
            VOCABULARY
                .iter()
                .map(|(field, labels)| (*field, labels.iter().map(|l| fold(l)).collect()))
                .collect()
        });
    &FOLDED
}

/// The folded labels indexed for [`find_labels`], which tries every run of up to six words
/// of every line: exact labels by their text, and the labels long enough to match with one
/// letter misread by their length in characters (a substitution keeps it, so only labels of
/// the run's length are compared).
struct LabelIndex {
    exact: std::collections::HashMap<String, Vec<HeaderFieldName>>,
    by_chars: std::collections::HashMap<usize, Vec<(HeaderFieldName, String)>>,
}

fn label_index() -> &'static LabelIndex {
    static INDEX: std::sync::LazyLock<LabelIndex> = std::sync::LazyLock::new(|| {
        let mut index = LabelIndex {
            exact: std::collections::HashMap::new(),
            by_chars: std::collections::HashMap::new(),
        };
        for (field, labels) in folded_vocabulary() {
            for label in labels {
                let fields = index.exact.entry(label.clone()).or_default();
                if !fields.contains(field) {
                    fields.push(*field);
                }
                // As `one_substitution_apart` counts it: the label's length in bytes.
                if label.len() >= MIN_FUZZY_LABEL_CHARS {
                    let chars = label.chars().count();
                    index
                        .by_chars
                        .entry(chars)
                        .or_default()
                        .push((*field, label.clone()));
                }
            }
        }
        index
    });
    &INDEX
}

/// Labels that begin with a field's label but name something else: the sums of document-level
/// allowances and charges (EN 16931 BT-107, BT-108), which the ZUGFeRD 2 viewer prints as
/// `Gesamtbetrag der Abschläge` next to the real `Bruttosumme`. They are matched like labels,
/// so the field label inside them loses to the longer match, and are then dropped.
const NOT_FIELD_LABELS: &[&str] = &[
    "Gesamtbetrag der Abschläge",
    "Gesamtbetrag der Zuschläge",
    "Summe der Abschläge",
    "Summe der Zuschläge",
    "Sum of allowances",
    "Sum of charges",
];

/// Folded labels that name no field, computed once.
fn folded_not_field_labels() -> &'static [String] {
    static FOLDED: std::sync::LazyLock<Vec<String>> =
        std::sync::LazyLock::new(|| NOT_FIELD_LABELS.iter().map(|l| fold(l)).collect());
    &FOLDED
}

/// A label found in a line before overlaps are settled.
struct Candidate {
    /// The field it names; `None` for a label that names no field ([`NOT_FIELD_LABELS`]).
    field: Option<HeaderFieldName>,
    first_word: usize,
    end_word: usize,
    specificity: usize,
}

/// Every vocabulary label in a sequence of words (a line), longest first where they overlap,
/// returned left to right.
pub fn find_labels(words: &[&str]) -> Vec<LabelMatch> {
    let folded: Vec<String> = words.iter().map(|w| fold(w)).collect();
    let mut candidates: Vec<Candidate> = Vec::new();
    for start in 0..folded.len() {
        if folded[start].is_empty() {
            continue;
        }
        let mut joined = String::new();
        for (end, word) in folded.iter().enumerate().skip(start).take(6) {
            joined.push_str(word);
            let index = label_index();
            let exact_fields = index.exact.get(&joined);
            let chars = joined.chars().count();
            let near: &[(HeaderFieldName, String)] =
                index.by_chars.get(&chars).map_or(&[], Vec::as_slice);
            for (field, _) in folded_vocabulary() {
                let exact = exact_fields.is_some_and(|fields| fields.contains(field));
                // OCR misreads a letter now and then ("Rechnunganummer"): a long label with one
                // letter substituted still names its field, a little less specifically.
                let misread = !exact
                    && near
                        .iter()
                        .any(|(f, l)| f == field && one_substitution_apart(l, &joined));
                if exact || misread {
                    let specificity = joined.chars().count() - usize::from(misread);
                    candidates.push(Candidate {
                        field: Some(*field),
                        first_word: start,
                        end_word: end + 1,
                        specificity,
                    });
                }
            }
            if folded_not_field_labels().contains(&joined) {
                candidates.push(Candidate {
                    field: None,
                    first_word: start,
                    end_word: end + 1,
                    specificity: joined.chars().count(),
                });
            }
        }
    }
    // Longest first; a label inside a longer one is dropped, then the labels naming no field.
    candidates.sort_by(|a, b| {
        b.specificity
            .cmp(&a.specificity)
            .then(a.first_word.cmp(&b.first_word))
    });
    let mut kept: Vec<Candidate> = Vec::new();
    for c in candidates {
        let overlaps = kept
            .iter()
            .any(|k| c.first_word < k.end_word && k.first_word < c.end_word);
        if !overlaps {
            kept.push(c);
        }
    }
    let mut kept: Vec<LabelMatch> = kept
        .into_iter()
        .filter_map(|c| {
            c.field.map(|field| LabelMatch {
                field,
                first_word: c.first_word,
                end_word: c.end_word,
                specificity: c.specificity,
            })
        })
        .collect();
    kept.sort_by_key(|k| k.first_word);
    kept
}

/// Labels this long or longer match with one letter misread; shorter ones must match exactly,
/// as one letter there changes the word ("netto" and "netzo" are too close to call).
const MIN_FUZZY_LABEL_CHARS: usize = 10;

fn one_substitution_apart(label: &str, text: &str) -> bool {
    // Cheap rejections first: this runs for every label against every word run of a page.
    if label.len().abs_diff(text.len()) > 2 || label.len() < MIN_FUZZY_LABEL_CHARS {
        return false;
    }
    // Equal length in characters and exactly one differing (an error for unequal lengths).
    strsim::hamming(label, text) == Ok(1)
}

/// The field a key of a key-value pair names: the whole key must be a label, or end with one
/// (`Ihre Kundennummer`).
pub fn field_for_key(key: &str) -> Option<LabelMatch> {
    let words: Vec<&str> = key.split_whitespace().collect();
    let labels = find_labels(&words);
    labels.into_iter().rev().find(|m| m.end_word == words.len())
}

/// The document type named by a title line: the wire value when the line starts with a title
/// word (`Rechnung`, `Invoice`, `Handelsrechnung (380) Nr. …`).
pub fn document_type_of_title(line: &str) -> Option<&'static str> {
    let words: Vec<String> = line.split_whitespace().take(3).map(fold).collect();
    let mut best: Option<(&'static str, usize)> = None;
    for (kind, titles) in DOCUMENT_TYPES {
        for title in *titles {
            let folded_title = fold(title);
            let title_words = title.split_whitespace().count();
            let head: String = words.iter().take(title_words).map(String::as_str).collect();
            if head == folded_title && best.is_none_or(|(_, len)| folded_title.len() > len) {
                best = Some((kind, folded_title.len()));
            }
        }
    }
    // German compounds name their kind last (`Baurechnung`, `Sammelgutschrift`).
    best.map(|(kind, _)| kind).or_else(|| {
        let first = words.first()?;
        if first.len() > "rechnung".len() && first.ends_with("rechnung") {
            Some("invoice")
        } else if first.len() > "gutschrift".len() && first.ends_with("gutschrift") {
            Some("credit_note")
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_folds_to_something_and_fields_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (field, labels) in vocabulary() {
            assert!(seen.insert(*field), "{field:?} listed twice");
            for label in *labels {
                assert!(!fold(label).is_empty(), "{label}");
            }
        }
    }

    #[test]
    fn labels_match_whole_words_longest_first() {
        let words = ["Rechnungssumme", "Brutto", "(inkl.", "USt.)", "529,87"];
        let found = find_labels(&words);
        assert_eq!(found[0].field, HeaderFieldName::GrossTotal);
        assert_eq!((found[0].first_word, found[0].end_word), (0, 2));
        let words = ["USt.-Id.-Nr.:", "DE123456789"];
        assert_eq!(find_labels(&words)[0].field, HeaderFieldName::SellerVatId);
        let words = ["Net", "total:", "496.00", "€"];
        assert_eq!(find_labels(&words)[0].field, HeaderFieldName::NetTotal);
        // `Datum` inside `Rechnungsdatum` is not a separate label.
        let words = ["Rechnungsdatum"];
        let found = find_labels(&words);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field, HeaderFieldName::IssueDate);
    }

    #[test]
    fn allowance_sums_are_no_totals() {
        let words = ["Gesamtbetrag", "der", "Abschläge", "0,23"];
        assert!(find_labels(&words).is_empty());
        let words = ["Gesamtbetrag", "0,23"];
        assert_eq!(find_labels(&words)[0].field, HeaderFieldName::GrossTotal);
        // A field label after the sum's label is still found.
        let words = ["Summe", "der", "Zuschläge", "Bruttosumme", "8,79"];
        let found = find_labels(&words);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field, HeaderFieldName::GrossTotal);
        assert_eq!(found[0].first_word, 3);
    }

    #[test]
    fn a_long_label_with_one_misread_letter_still_matches() {
        let found = find_labels(&["Rechnunganummer", "471102"]);
        assert_eq!(found[0].field, HeaderFieldName::InvoiceNumber);
        assert!(found[0].specificity < "rechnungsnummer".len());
        // Short labels must match exactly; two letters off is another word.
        assert!(find_labels(&["Nettx"]).is_empty());
        assert!(find_labels(&["Rechnunganummex"]).is_empty());
    }

    #[test]
    fn one_substitution_is_one_letter_changed_in_place() {
        assert!(one_substitution_apart("rechnungsnummer", "rechnungsnumner"));
        // Letters, not bytes: an umlaut for a plain letter is one substitution.
        assert!(one_substitution_apart("rechnungsnummer", "rechnüngsnummer"));
        assert!(!one_substitution_apart(
            "rechnungsnummer",
            "rechnungsnummer"
        ));
        assert!(!one_substitution_apart(
            "rechnungsnummer",
            "rechnüngsnumner"
        ));
        assert!(!one_substitution_apart("rechnungsnummer", "rechnungsnumme"));
        assert!(!one_substitution_apart(
            "rechnungsnummer",
            "rechnungsnummerx"
        ));
        assert!(!one_substitution_apart("netto", "netzo"));
    }

    #[test]
    fn line_item_columns_from_one_list() {
        assert_eq!(
            line_item_column_exact("Unit price"),
            Some(LineItemColumn::UnitPrice)
        );
        assert_eq!(line_item_column_exact("Unit price EUR"), None);
        assert_eq!(
            line_item_column_of("Preis/ Einheit"),
            Some(LineItemColumn::UnitPrice)
        );
        assert_eq!(
            line_item_column_of("Positions- betrag"),
            Some(LineItemColumn::LineTotal)
        );
        assert_eq!(
            line_item_column_of("Entgelt"),
            Some(LineItemColumn::LineTotal)
        );
        assert_eq!(line_item_column_of("Steuer"), None);
        // A tax column is never the line total, whatever amount word it holds.
        for tax in [
            "USt.-Betrag",
            "Montant TVA",
            "Importo IVA",
            "Btw-bedrag",
            "Tax amount",
        ] {
            assert_eq!(line_item_column_of(tax), None, "{tax}");
            assert_eq!(line_item_column_exact(tax), None, "{tax}");
        }
        assert_eq!(
            line_item_column_of("Importo"),
            Some(LineItemColumn::LineTotal)
        );
        assert_eq!(
            line_item_column_of("Quantità"),
            Some(LineItemColumn::Quantity)
        );
        // Every heading folds to something and names one column only.
        let mut seen = std::collections::HashMap::new();
        for (column, headings) in line_item_columns() {
            for heading in *headings {
                let folded = fold(heading);
                assert!(!folded.is_empty(), "{heading}");
                assert_eq!(*seen.entry(folded).or_insert(*column), *column, "{heading}");
            }
        }
    }

    #[test]
    fn keys_and_titles() {
        assert_eq!(
            field_for_key("Ihre Kundennummer").map(|m| m.field),
            Some(HeaderFieldName::CustomerNumber)
        );
        assert_eq!(field_for_key("Lieblingsfarbe"), None);
        assert_eq!(document_type_of_title("RECHNUNG"), Some("invoice"));
        assert_eq!(
            document_type_of_title("Handelsrechnung (380) Nr. 471102"),
            Some("invoice")
        );
        assert_eq!(
            document_type_of_title("Credit note 12"),
            Some("credit_note")
        );
        assert_eq!(document_type_of_title("Sehr geehrte Damen"), None);
    }
}
