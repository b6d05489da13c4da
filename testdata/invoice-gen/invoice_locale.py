"""Labels, number, date and currency notation for de, fr, en, nl, it.

(Named `invoice_locale`, not `locale`, so that it never shadows the standard
library's module, which argparse imports.)
"""

LANGS = ("de", "fr", "en", "nl", "it")

LABELS = {
    "de": {
        "title": ["Rechnung", "RECHNUNG"],
        "credit_title": ["Gutschrift", "GUTSCHRIFT"],
        "invoice_number": ["Rechnungsnummer", "Rechnung Nr.", "Belegnummer", "Rechnungs-Nr."],
        "credit_number": ["Gutschrift Nr.", "Gutschriftsnummer"],
        "issue_date": ["Rechnungsdatum", "Datum", "Belegdatum"],
        "due_date": ["Fällig am", "Zahlbar bis", "Fälligkeitsdatum"],
        "delivery_date": ["Lieferdatum", "Leistungsdatum"],
        "order_date": ["Bestelldatum", "Auftragsdatum"],
        "assoc_date": ["Bezug auf Rechnung vom", "Ursprüngliche Rechnung vom"],
        "service_period": ["Leistungszeitraum"],
        "order_ref": ["Ihre Bestellung", "Bestellnummer", "Ihr Auftrag"],
        "customer_no": ["Kundennummer", "Kunden-Nr."],
        "seller_heading": ["Verkäufer", "Rechnungssteller", "Absender"],
        "buyer_heading": ["Rechnungsempfänger", "Rechnungsadresse", "Kunde"],
        "vat_id": ["USt-IdNr.", "USt.-ID", "Umsatzsteuer-ID"],
        "bank": ["Bankverbindung"],
        "col_pos": ["Pos."], "col_sku": ["Art.-Nr."],
        "col_desc": ["Beschreibung", "Bezeichnung", "Artikel"],
        "col_qty": ["Menge", "Anz."], "col_unit": ["Einheit"],
        "col_price": ["Einzelpreis", "E-Preis"], "col_vat": ["USt.", "MwSt."],
        "col_tax": ["USt.-Betrag", "MwSt.-Betrag"], "col_total": ["Gesamt", "Betrag", "Gesamtpreis"],
        "subtotal": ["Zwischensumme", "Summe Positionen"],
        "net": ["Nettobetrag", "Summe netto", "Gesamt netto"],
        "tax": ["USt. {rate} %", "MwSt. {rate} %", "Umsatzsteuer {rate} %"],
        "tax_on": "auf",
        "tax_total": ["Summe USt.", "MwSt. gesamt"],
        "total": ["Gesamtbetrag", "Rechnungsbetrag", "Summe brutto"],
        "credit_total": ["Gutschriftsbetrag", "Gesamtbetrag"],
        "prepaid": ["Anzahlung", "Bereits bezahlt", "Abzüglich Anzahlung"],
        "due_amount": ["Zahlbetrag", "Offener Betrag", "Noch zu zahlen"],
        "discount": ["Rabatt {pct} %", "Nachlass {pct} %"],
        "shipping": ["Versandkosten", "Versand und Verpackung"],
        "carry": ["Übertrag"],
        "page": "Seite {n} von {m}",
        "direct_debit": "Der Betrag wird per SEPA-Lastschrift von Ihrem Konto {iban} eingezogen.",
        "mandate": "Mandatsreferenz",
        "pay_by": "Bitte überweisen Sie den Betrag bis zum {date} auf unser Konto.",
        "pay_now": "Zahlbar sofort ohne Abzug.",
        "refund": "Der Betrag wird Ihnen in den nächsten Tagen erstattet.",
        "title_line": "{title} Nr. {number} vom {date}",
        "currency_note": "Alle Beträge in {cur}",
        "units": ["Stk.", "Std.", "pauschal", "kg", "m"],
        "thanks": "Vielen Dank für Ihren Auftrag!",
        "tel": "Tel.", "email": "E-Mail",
    },
    "fr": {
        "title": ["Facture", "FACTURE"],
        "credit_title": ["Avoir", "AVOIR"],
        "invoice_number": ["Facture n°", "Numéro de facture", "N° de facture"],
        "credit_number": ["Avoir n°", "Numéro d'avoir"],
        "issue_date": ["Date de facture", "Date", "Date d'émission"],
        "due_date": ["Date d'échéance", "Échéance", "À payer avant le"],
        "delivery_date": ["Date de livraison"],
        "order_date": ["Date de commande"],
        "assoc_date": ["Date facture associée", "Facture d'origine du"],
        "service_period": ["Période de prestation"],
        "order_ref": ["Votre commande", "Référence commande", "Bon de commande"],
        "customer_no": ["N° client", "Code client"],
        "seller_heading": ["Émetteur", "Vendeur", "Fournisseur"],
        "buyer_heading": ["Adresse du client", "Destinataire", "Facturé à"],
        "vat_id": ["N° TVA intracom.", "TVA intracommunautaire", "N° TVA"],
        "bank": ["Coordonnées bancaires"],
        "col_pos": ["N°"], "col_sku": ["Réf."],
        "col_desc": ["Désignation", "Description"],
        "col_qty": ["Qté", "Quantité"], "col_unit": ["Unité"],
        "col_price": ["Prix unitaire HT", "P.U. HT"], "col_vat": ["TVA"],
        "col_tax": ["Montant TVA"], "col_total": ["Montant HT", "Total HT"],
        "subtotal": ["Sous-total"],
        "net": ["Total HT", "Montant HT", "Net HT"],
        "tax": ["TVA {rate} %", "TVA à {rate} %"],
        "tax_on": "sur",
        "tax_total": ["Total TVA", "Montant TVA"],
        "total": ["Total TTC", "Montant TTC", "Net à payer TTC"],
        "credit_total": ["Total avoir TTC", "Total TTC"],
        "prepaid": ["Acompte versé", "Déjà réglé"],
        "due_amount": ["Reste à payer", "Net à payer", "Solde dû"],
        "discount": ["Remise {pct} %"],
        "shipping": ["Frais de port", "Frais d'expédition"],
        "carry": ["Report"],
        "page": "Page {n}/{m}",
        "direct_debit": "Le montant sera prélevé sur votre compte {iban} par prélèvement SEPA.",
        "mandate": "Référence du mandat",
        "pay_by": "Paiement par virement avant le {date}.",
        "pay_now": "Paiement à réception de facture.",
        "refund": "Le montant vous sera remboursé par virement.",
        "title_line": "{title} n° {number} du {date}",
        "currency_note": "Montants exprimés en {cur}",
        "units": ["u", "h", "forfait", "kg", "m"],
        "thanks": "Merci de votre confiance.",
        "tel": "Tél.", "email": "E-mail",
    },
    "en": {
        "title": ["Invoice", "INVOICE", "Tax Invoice"],
        "credit_title": ["Credit note", "CREDIT NOTE"],
        "invoice_number": ["Invoice No.", "Invoice #", "Invoice Number"],
        "credit_number": ["Credit note No.", "Credit note #"],
        "issue_date": ["Invoice Date", "Date", "Date of issue"],
        "due_date": ["Due Date", "Payment due", "Due"],
        "delivery_date": ["Delivery Date", "Ship Date"],
        "order_date": ["Order Date"],
        "assoc_date": ["Related invoice date", "Original invoice date"],
        "service_period": ["Service period", "Billing period"],
        "order_ref": ["PO Number", "Your order", "Purchase Order"],
        "customer_no": ["Customer No.", "Account No.", "Customer ID"],
        "seller_heading": ["From", "Supplier", "Seller"],
        "buyer_heading": ["Bill to", "Billed to", "Customer", "Invoice to"],
        "vat_id": ["VAT No.", "VAT Reg. No.", "VAT number"],
        "bank": ["Bank details", "Payment details"],
        "col_pos": ["#", "Item"], "col_sku": ["SKU"],
        "col_desc": ["Description", "Item description"],
        "col_qty": ["Qty", "Quantity", "Hours"], "col_unit": ["Unit"],
        "col_price": ["Unit price", "Rate", "Price"], "col_vat": ["VAT", "Tax"],
        "col_tax": ["VAT amount", "Tax amount"], "col_total": ["Amount", "Total", "Line total"],
        "subtotal": ["Subtotal", "Sub-total"],
        "net": ["Net total", "Total excl. VAT", "Net amount"],
        "tax": ["VAT {rate}%", "VAT @ {rate}%", "Tax {rate}%"],
        "tax_on": "on",
        "tax_total": ["Total VAT", "Total tax"],
        "total": ["Total", "Invoice total", "Total incl. VAT"],
        "credit_total": ["Total credit", "Credit total"],
        "prepaid": ["Less deposit", "Paid to date", "Amount paid"],
        "due_amount": ["Amount due", "Balance due", "Total due"],
        "discount": ["Discount {pct}%"],
        "shipping": ["Shipping", "Delivery charge"],
        "carry": ["Carried forward", "Brought forward"],
        "page": "Page {n} of {m}",
        "direct_debit": "The amount will be collected by direct debit from your account {iban}.",
        "mandate": "Mandate reference",
        "pay_by": "Please pay by {date} by bank transfer.",
        "pay_now": "Payment due on receipt.",
        "refund": "This amount will be refunded to your account.",
        "title_line": "{title} No. {number} dated {date}",
        "currency_note": "All amounts in {cur}",
        "units": ["pcs", "hrs", "each", "kg", "m"],
        "thanks": "Thank you for your business.",
        "tel": "Tel", "email": "Email",
    },
    "nl": {
        "title": ["Factuur", "FACTUUR"],
        "credit_title": ["Creditnota", "CREDITNOTA"],
        "invoice_number": ["Factuurnummer", "Factuurnr.", "Nummer"],
        "credit_number": ["Creditnotanummer", "Creditnota nr."],
        "issue_date": ["Factuurdatum", "Datum"],
        "due_date": ["Vervaldatum", "Te betalen voor"],
        "delivery_date": ["Leverdatum", "Leveringsdatum"],
        "order_date": ["Orderdatum", "Besteldatum"],
        "assoc_date": ["Datum oorspronkelijke factuur", "Betreft factuur van"],
        "service_period": ["Periode"],
        "order_ref": ["Uw referentie", "Ordernummer", "Inkoopordernummer"],
        "customer_no": ["Klantnummer", "Debiteurnummer"],
        "seller_heading": ["Leverancier", "Afzender"],
        "buyer_heading": ["Factuuradres", "Klant", "Gefactureerd aan"],
        "vat_id": ["Btw-nummer", "BTW-nr.", "Btw-id"],
        "bank": ["Bankgegevens"],
        "col_pos": ["Nr."], "col_sku": ["Artikelnr."],
        "col_desc": ["Omschrijving", "Artikel"],
        "col_qty": ["Aantal"], "col_unit": ["Eenheid"],
        "col_price": ["Stukprijs", "Prijs"], "col_vat": ["Btw"],
        "col_tax": ["Btw-bedrag"], "col_total": ["Bedrag", "Totaal"],
        "subtotal": ["Subtotaal"],
        "net": ["Totaal excl. btw", "Netto bedrag"],
        "tax": ["Btw {rate}%", "BTW {rate}%"],
        "tax_on": "over",
        "tax_total": ["Totaal btw"],
        "total": ["Totaal incl. btw", "Totaalbedrag", "Totaal"],
        "credit_total": ["Totaal creditnota", "Totaal incl. btw"],
        "prepaid": ["Reeds betaald", "Aanbetaling"],
        "due_amount": ["Te betalen", "Openstaand bedrag"],
        "discount": ["Korting {pct}%"],
        "shipping": ["Verzendkosten"],
        "carry": ["Transport"],
        "page": "Pagina {n} van {m}",
        "direct_debit": "Het bedrag wordt via automatische incasso afgeschreven van uw rekening {iban}.",
        "mandate": "Machtigingskenmerk",
        "pay_by": "Gelieve het bedrag vóór {date} over te maken.",
        "pay_now": "Betaling binnen 14 dagen na factuurdatum.",
        "refund": "Het bedrag wordt op uw rekening teruggestort.",
        "title_line": "{title} {number} van {date}",
        "currency_note": "Alle bedragen in {cur}",
        "units": ["st.", "uur", "stuk", "kg", "m"],
        "thanks": "Bedankt voor uw bestelling.",
        "tel": "Tel.", "email": "E-mail",
    },
    "it": {
        "title": ["Fattura", "FATTURA"],
        "credit_title": ["Nota di credito", "NOTA DI CREDITO"],
        "invoice_number": ["Fattura n.", "Numero fattura", "N. documento"],
        "credit_number": ["Nota di credito n.", "Numero nota"],
        "issue_date": ["Data fattura", "Data", "Data documento"],
        "due_date": ["Scadenza", "Data scadenza"],
        "delivery_date": ["Data consegna", "Data DDT"],
        "order_date": ["Data ordine"],
        "assoc_date": ["Data fattura collegata", "Rif. fattura del"],
        "service_period": ["Periodo di riferimento"],
        "order_ref": ["Vs. ordine", "Rif. ordine", "Numero ordine"],
        "customer_no": ["Codice cliente", "Cod. cliente"],
        "seller_heading": ["Fornitore", "Cedente"],
        "buyer_heading": ["Destinatario", "Cliente", "Cessionario"],
        "vat_id": ["Partita IVA", "P. IVA", "P.IVA"],
        "bank": ["Coordinate bancarie"],
        "col_pos": ["Pos."], "col_sku": ["Codice"],
        "col_desc": ["Descrizione"],
        "col_qty": ["Q.tà", "Quantità"], "col_unit": ["U.M."],
        "col_price": ["Prezzo unitario", "Prezzo"], "col_vat": ["IVA", "Aliquota"],
        "col_tax": ["Importo IVA"], "col_total": ["Importo", "Totale"],
        "subtotal": ["Subtotale"],
        "net": ["Imponibile", "Totale imponibile"],
        "tax": ["IVA {rate}%", "IVA al {rate}%"],
        "tax_on": "su",
        "tax_total": ["Totale IVA"],
        "total": ["Totale fattura", "Totale documento", "Totale"],
        "credit_total": ["Totale nota di credito", "Totale documento"],
        "prepaid": ["Acconto versato", "Già pagato"],
        "due_amount": ["Netto a pagare", "Importo da pagare"],
        "discount": ["Sconto {pct}%"],
        "shipping": ["Spese di trasporto", "Spese di spedizione"],
        "carry": ["Riporto"],
        "page": "Pagina {n} di {m}",
        "direct_debit": "L'importo sarà addebitato tramite addebito diretto SEPA sul Vs. conto {iban}.",
        "mandate": "Riferimento mandato",
        "pay_by": "Pagamento tramite bonifico entro il {date}.",
        "pay_now": "Pagamento a vista.",
        "refund": "L'importo Vi sarà rimborsato tramite bonifico.",
        "title_line": "{title} n. {number} del {date}",
        "currency_note": "Importi in {cur}",
        "units": ["pz", "ore", "a corpo", "kg", "m"],
        "thanks": "Grazie per averci scelto.",
        "tel": "Tel.", "email": "E-mail",
    },
}

MONTHS = {
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"],
    "en": ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"],
    "nl": ["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
           "september", "oktober", "november", "december"],
    "it": ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
           "settembre", "ottobre", "novembre", "dicembre"],
}

# Date styles a document in this language may use (first is the most common).
DATE_STYLES = {
    "de": ["dot", "dot", "long", "iso"],
    "fr": ["slash", "slash", "long", "dot"],
    "en": ["slash", "long_us", "long", "iso", "us"],
    "nl": ["dash", "dash", "long", "iso"],
    "it": ["slash", "slash", "long", "dot"],
}

# Number styles a document in this language may use.
NUMBER_STYLES = {
    "de": ["dotcomma", "dotcomma", "plain_comma"],
    "fr": ["spacecomma", "spacecomma", "plain_comma"],
    "en": ["commadot"],
    "nl": ["dotcomma", "dotcomma", "plain_comma"],
    "it": ["dotcomma", "dotcomma", "plain_comma"],
}

CURRENCY_SYMBOL = {"EUR": "\u20ac", "GBP": "\u00a3", "USD": "$"}
CURRENCY_STYLES = ["sym_after", "code_after", "sym_before", "code_before", "none"]


def fmt_date(d, lang, style):
    if style == "dot":
        return "%02d.%02d.%04d" % (d.day, d.month, d.year)
    if style == "slash":
        return "%02d/%02d/%04d" % (d.day, d.month, d.year)
    if style == "dash":
        return "%02d-%02d-%04d" % (d.day, d.month, d.year)
    if style == "us":
        return "%02d/%02d/%04d" % (d.month, d.day, d.year)
    if style == "iso":
        return d.isoformat()
    if style == "long_us":
        return "%s %d, %d" % (MONTHS["en"][d.month - 1], d.day, d.year)
    if style == "long":
        m = MONTHS[lang][d.month - 1]
        if lang == "de":
            return "%d. %s %d" % (d.day, m, d.year)
        return "%d %s %d" % (d.day, m, d.year)
    raise ValueError(style)


def all_dates(d, lang):
    """Every notation of d that a document in lang may print (for check.py)."""
    return sorted({fmt_date(d, lang, s) for s in DATE_STYLES[lang]})


def _group(digits, sep):
    parts = []
    while len(digits) > 3:
        parts.insert(0, digits[-3:])
        digits = digits[:-3]
    parts.insert(0, digits)
    return sep.join(parts)


def fmt_number(cents, style):
    """Unsigned amount in cents -> text, e.g. 123456 -> '1.234,56'."""
    cents = abs(int(cents))
    whole, frac = str(cents // 100), "%02d" % (cents % 100)
    if style == "dotcomma":
        return _group(whole, ".") + "," + frac
    if style == "spacecomma":
        return _group(whole, " ") + "," + frac
    if style == "commadot":
        return _group(whole, ",") + "." + frac
    if style == "plain_comma":
        return whole + "," + frac
    if style == "plain_dot":
        return whole + "." + frac
    raise ValueError(style)


def all_numbers(cents, lang):
    return sorted({fmt_number(cents, s) for s in NUMBER_STYLES[lang]})


def decimal_sep(style):
    return "." if style in ("commadot", "plain_dot") else ","


def fmt_qty(hundredths, style):
    """Quantity in hundredths -> '3', '2,5', '0,75'."""
    whole, frac = divmod(int(hundredths), 100)
    if frac == 0:
        return str(whole)
    f = ("%02d" % frac).rstrip("0")
    return "%d%s%s" % (whole, decimal_sep(style), f)


def fmt_money(cents, cur, num_style, cur_style, lang):
    n = fmt_number(cents, num_style)
    sym = CURRENCY_SYMBOL.get(cur, cur)
    if cur_style == "sym_after":
        return n + " " + sym
    if cur_style == "code_after":
        return n + " " + cur
    if cur_style == "sym_before":
        return sym + ("" if lang == "en" else " ") + n
    if cur_style == "code_before":
        return cur + " " + n
    return n


def fmt_rate(rate_x10, num_style):
    """VAT rate in tenths of a percent -> '19', '5,5'."""
    whole, frac = divmod(rate_x10, 10)
    return str(whole) if frac == 0 else "%d%s%d" % (whole, decimal_sep(num_style), frac)


def label(lang, key, rnd):
    """A random variant of the label `key` (lists) or the fixed string."""
    v = LABELS[lang][key]
    return rnd.choice(v) if isinstance(v, list) else v
