"""Named layout families: knob settings + languages + what each one stresses.

Knobs (a list means: one value is drawn per document from the seed):
  parties      window | letterhead_left | letterhead_center | two_columns | footer_only
  fields       inline | stacked | column | grid | title   (header-field placement)
  distractors  subset of delivery_date, order_date, assoc_date, service_period,
               customer_no, buyer_vat, buyer_iban (direct debit: truth iban null), order_ref
  cols         line-item column order, see flow.COLSETS (A..E)
  taxcol       add a per-line tax-amount column
  ruled        ruled table (shaded header, row rules) or whitespace table
  carry        carried-forward subtotals ("Übertrag") at page breaks
  rates        number of VAT rates (clamped to the country's rates)
  items        (min, max) number of line items
  discount, shipping, prepaid, credit   probabilities
"""

LANGS = ["de", "fr", "en", "nl", "it"]

DEFAULTS = {
    "fields": "inline", "distractors": [], "cols": "A", "taxcol": False, "ruled": True,
    "carry": [True, False], "rates": 1, "items": (1, 12),
    "discount": 0.1, "shipping": 0.15, "prepaid": 0.05, "credit": 0.0,
}

FAMILIES = {
    "de_din_window": dict(
        langs=["de"], parties="window", fields="column", distractors=["customer_no", "delivery_date"],
        cols=["A", "D"], rates=[1, 2],
        comment="DIN 5008 letter: return line above the window, right info column with customer no. and delivery date"),
    "de_letterhead_inline": dict(
        langs=["de"], parties="letterhead_left", fields="inline", distractors=["order_date", "order_ref"],
        cols="B", ruled=False, rates=2,
        comment="'Label: value' lines beside a left letterhead; order date and order number as distractors"),
    "de_grid_discount": dict(
        langs=["de"], parties="letterhead_center", fields="grid", distractors=["service_period", "customer_no"],
        cols="D", taxcol=True, rates=2, discount=1.0, shipping=0.6,
        comment="boxed field grid, 19/7 %, discount + shipping, per-line tax-amount column"),
    "de_title_line": dict(
        langs=["de"], parties="footer_only", fields="title", distractors=["delivery_date", "buyer_vat"],
        cols="C", ruled=False,
        comment="'Rechnung Nr. X vom D' title line; seller only in the footer; buyer VAT id distractor"),
    "de_gutschrift": dict(
        langs=["de"], parties="window", fields=["inline", "column"], distractors=["assoc_date", "customer_no"],
        cols="A", credit=1.0,
        comment="Gutschrift (credit note) referring to the original invoice date; unsigned amounts"),
    "de_lastschrift": dict(
        langs=["de"], parties="letterhead_left", fields="stacked", distractors=["buyer_iban", "customer_no"],
        cols=["A", "E"], ruled=False,
        comment="SEPA-Lastschrift: only the customer's IBAN is printed (truth iban/bic null)"),
    "de_multipage": dict(
        langs=["de"], parties="window", fields="column", distractors=["customer_no"],
        cols=["A", "D"], ruled=[True, False], items=(30, 40), carry=True,
        comment="long tables over 2+ pages with Übertrag lines; totals on the last page"),
    "fr_facture": dict(
        langs=["fr"], parties="letterhead_left", fields="inline", distractors=["customer_no"],
        cols="B", rates=3,
        comment="classic facture with three TVA rates (20/10/5,5 %) and client code"),
    "fr_two_columns": dict(
        langs=["fr"], parties="two_columns", fields="stacked", distractors=["delivery_date", "order_date"],
        cols="D", taxcol=True, ruled=False, rates=[1, 2],
        comment="Émetteur / Adresse du client side by side; delivery and order dates as distractors"),
    "fr_avoir": dict(
        langs=["fr"], parties="letterhead_center", fields="column", distractors=["assoc_date"],
        cols="A", credit=1.0,
        comment="avoir with 'Date facture associée'; centred letterhead"),
    "fr_prelevement": dict(
        langs=["fr"], parties="footer_only", fields="grid", distractors=["buyer_iban", "buyer_vat"],
        cols="C", ruled=False,
        comment="prélèvement SEPA with the client's IBAN and VAT id; seller only in the footer"),
    "en_uk_bill_to": dict(
        langs=["en"], parties="two_columns", fields="stacked", distractors=["order_ref"],
        cols="E", rates=2, shipping=1.0,
        comment="From / Bill to columns, 20/5 % VAT, delivery charge, PO number"),
    "en_letterhead_center": dict(
        langs=["en"], parties="letterhead_center", fields="column", distractors=["order_ref", "order_date"],
        cols="A", ruled=False,
        comment="centred letterhead, UK or US (Letter size, sales tax, no IBAN) notation"),
    "en_credit_note": dict(
        langs=["en"], parties="window", fields="inline", distractors=["assoc_date"],
        cols="B", credit=1.0,
        comment="credit note in a window letter with the related invoice date"),
    "en_deposit": dict(
        langs=["en"], parties="letterhead_left", fields="grid", distractors=["service_period", "customer_no"],
        cols="B", prepaid=1.0,
        comment="deposit already paid: balance due below the grand total; billing period"),
    "en_direct_debit": dict(
        langs=["en"], parties="footer_only", fields="column", distractors=["buyer_iban", "delivery_date"],
        cols="C", ruled=False,
        comment="direct debit from the customer's account (truth iban null); seller only in the footer"),
    "nl_factuur": dict(
        langs=["nl"], parties="letterhead_left", fields="column", distractors=["customer_no", "delivery_date"],
        cols="A", rates=2,
        comment="Dutch factuur, 21/9 % btw, klantnummer and leverdatum"),
    "nl_creditnota": dict(
        langs=["nl"], parties="two_columns", fields="stacked", distractors=["assoc_date"],
        cols="E", ruled=False, credit=1.0,
        comment="creditnota with Leverancier / Factuuradres columns"),
    "nl_incasso": dict(
        langs=["nl"], parties="window", fields="inline", distractors=["buyer_iban", "order_date"],
        cols="D", ruled=False,
        comment="automatische incasso: only the customer's IBAN printed"),
    "it_fattura": dict(
        langs=["it"], parties="letterhead_left", fields="grid", distractors=["delivery_date", "order_ref"],
        cols="D", taxcol=True, rates=3,
        comment="fattura with DDT date, IVA 22/10/4 % and an IVA-amount column"),
    "it_nota_credito": dict(
        langs=["it"], parties="two_columns", fields="inline", distractors=["assoc_date", "buyer_vat"],
        cols="B", credit=1.0,
        comment="nota di credito, Fornitore / Destinatario columns, buyer Partita IVA"),
    "it_title_line": dict(
        langs=["it"], parties="footer_only", fields="title", distractors=["customer_no"],
        cols="A", ruled=False, prepaid=1.0,
        comment="'Fattura n. X del D' title line; acconto and netto a pagare"),
    "fr_window_title": dict(
        langs=["fr"], parties="window", fields="title", distractors=["order_ref", "delivery_date"],
        cols="E", ruled=False, discount=0.5,
        comment="'Facture n° X du D' title under a window address; bon de commande and delivery date"),
    "nl_grid_discount": dict(
        langs=["nl"], parties="letterhead_center", fields="grid", distractors=["service_period", "customer_no"],
        cols="B", taxcol=True, rates=2, discount=1.0, shipping=0.5,
        comment="boxed field grid, 21/9 % btw, korting and verzendkosten, btw-amount column"),
    "it_window_column": dict(
        langs=["it"], parties="window", fields="column", distractors=["order_date", "customer_no", "buyer_vat"],
        cols="C", ruled=[True, False], rates=2,
        comment="window letter with a right-aligned label column; buyer Partita IVA distractor"),
    "mixed_multipage": dict(
        langs=LANGS, parties=["window", "letterhead_left", "two_columns"], fields=["column", "inline", "grid"],
        distractors=["customer_no"], cols=["A", "B", "D"], ruled=[True, False], items=(25, 40), carry=True,
        comment="all languages, long tables with carried-forward subtotals"),
    "mixed_kitchen_sink": dict(
        langs=LANGS, parties=["letterhead_center", "footer_only", "window"], fields=["stacked", "grid", "column"],
        distractors=["delivery_date", "order_date", "service_period", "customer_no", "buyer_vat"],
        cols=["B", "D"], taxcol=[True, False], ruled=[True, False], rates=3,
        discount=1.0, shipping=1.0, prepaid=0.6, credit=0.2,
        comment="every date distractor, up to three rates, discount, shipping and prepayment"),
}

LIST_KNOBS = {"langs", "distractors"}


def resolve(name, rnd):
    """Concrete knob values for one document of family `name`."""
    spec = dict(DEFAULTS)
    spec.update(FAMILIES[name])
    out = {}
    for k, v in spec.items():
        if k in LIST_KNOBS or k == "comment" or isinstance(v, tuple):
            out[k] = v
        elif isinstance(v, list):
            out[k] = rnd.choice(v)
        else:
            out[k] = v
    out["lang"] = rnd.choice(spec["langs"])
    return out
