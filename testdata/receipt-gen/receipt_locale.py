"""Countries, number and date notation, and printed labels for the receipt generator.

Not called `locale.py`: a module of that name in the scripts' folder would shadow the
standard library's `locale` (which `argparse` imports).

Amounts are `decimal.Decimal`; all arithmetic is exact and rounds half up to the cent.
"""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def q2(x):
    """Round half up to the cent."""
    return Decimal(x).quantize(CENT, ROUND_HALF_UP)


def dec_str(x, places=2):
    """Truth notation: plain decimal string with a point ("12.30", "-0.02", "0.532")."""
    return format(Decimal(x).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP), "f")


# ---------------------------------------------------------------------------- numbers

# name -> (thousands separator, decimal separator)
NUMSTYLES = {
    "en": (",", "."),      # 1,234.56
    "plain": ("", "."),    # 1234.56
    "de": (".", ","),      # 1.234,56
    "comma": ("", ","),    # 1234,56
    "fr": (" ", ","),      # 1 234,56
    "ch": ("'", "."),      # 1'234.56
    "in": (",", "."),      # 1,23,456.78 (Indian grouping)
}


def _group(ip, sep, indian=False):
    if not sep or len(ip) <= 3:
        return ip
    head, tail = ip[:-3], ip[-3:]
    step = 2 if indian else 3
    groups = []
    while len(head) > step:
        groups.insert(0, head[-step:])
        head = head[:-step]
    if head:
        groups.insert(0, head)
    return sep.join(groups + [tail])


def fmt_num(value, style, places=2, neg="lead"):
    """Amount in a number style. neg: lead ("-1.00"), trail ("1.00-"), paren ("(1.00)")."""
    value = Decimal(value)
    negative = value < 0
    v = abs(value).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    ip, _, fp = format(v, "f").partition(".")
    th, dp = NUMSTYLES[style]
    out = _group(ip, th, indian=(style == "in"))
    if places:
        out += dp + fp
    if negative:
        out = {"lead": "-" + out, "trail": out + "-", "paren": "(" + out + ")"}[neg]
    return out


def fmt_qty(q, style):
    """Quantity: integers bare ("2"), decimals with the style's decimal separator."""
    q = Decimal(q)
    if q == q.to_integral_value():
        return str(int(q))
    s = format(q.normalize(), "f")
    return s.replace(".", NUMSTYLES[style][1])


def fmt_places(value, style, places):
    """Unit price with a fixed number of places (fuel prices have 3)."""
    return fmt_num(value, style, places)


# ------------------------------------------------------------------------------ dates

MONTHS = {
    "en": ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    "de": ["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"],
    "fr": ["janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"],
    "nl": ["jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"],
    "it": ["gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"],
}


def fmt_date(d, pattern, lang):
    """pattern keys: {d} 05, {e} 5, {m} 03, {Y} 2018, {y} 18, {b} Dec, {B} DEC."""
    mon = MONTHS[lang][d.month - 1]
    return pattern.format(d="%02d" % d.day, e=str(d.day), m="%02d" % d.month, Y="%04d" % d.year,
                          y="%02d" % (d.year % 100), b=mon, B=mon.upper())


def fmt_time(h, mi, s, style):
    return {"hm": "%02d:%02d" % (h, mi), "hms": "%02d:%02d:%02d" % (h, mi, s),
            "h_m": "%02dh%02d" % (h, mi), "ampm": "%d:%02d %s" % ((h - 1) % 12 + 1, mi, "PM" if h >= 12 else "AM"),
            "hm.": "%02d.%02d" % (h, mi)}[style]


# ---------------------------------------------------------------------------- countries
#
# lang, currency, the ways the currency is shown next to amounts, number styles, date
# patterns (day-first everywhere except the US), time styles, and the tax system.

COUNTRIES = {
    "MY": dict(lang="en", currency="MYR", signs=["RM", "RM ", "MYR "], num=["plain", "en"],
               dates=["{d}/{m}/{Y}", "{d}-{m}-{Y}", "{d}-{m}-{y}", "{d}/{m}/{y}", "{Y}-{m}-{d}", "{d} {b} {Y}",
                      "{d}-{B}-{Y}", "{d}.{m}.{Y}"],
               times=["hm", "hms", "ampm"], upper=0.8),
    "SG": dict(lang="en", currency="SGD", signs=["S$", "$", "SGD "], num=["plain", "en"],
               dates=["{d}/{m}/{Y}", "{d}-{m}-{Y}", "{d} {b} {Y}", "{d}/{m}/{y}", "{Y}-{m}-{d}", "{d}-{b}-{Y}"],
               times=["hm", "hms", "ampm"], upper=0.6),
    "US": dict(lang="en", currency="USD", signs=["$"], num=["plain", "en"],
               dates=["{m}/{d}/{Y}", "{m}/{d}/{y}", "{B} {d}, {Y}", "{b} {e}, {Y}", "{m}-{d}-{Y}", "{Y}-{m}-{d}"],
               times=["ampm", "hm", "hms"], upper=0.7),
    "UK": dict(lang="en", currency="GBP", signs=["£"], num=["plain", "en"],
               dates=["{d}/{m}/{Y}", "{d}/{m}/{y}", "{d} {b} {Y}", "{d}-{b}-{y}", "{d}.{m}.{y}"],
               times=["hm", "hms"], upper=0.5),
    "AU": dict(lang="en", currency="AUD", signs=["$"], num=["plain", "en"],
               dates=["{d}/{m}/{Y}", "{d}/{m}/{y}", "{d} {b} {Y}", "{d}-{b}-{Y}", "{e}/{m}/{Y}"],
               times=["hm", "ampm", "hms"], upper=0.5),
    "IN": dict(lang="en", currency="INR", signs=["Rs.", "Rs. ", "Rs ", "INR "], num=["plain", "in"],
               dates=["{d}/{m}/{Y}", "{d}-{m}-{Y}", "{d}-{b}-{Y}", "{d}-{b}-{y}", "{d}.{m}.{Y}", "{Y}-{m}-{d}"],
               times=["hm", "hms", "ampm"], upper=0.5),
    "DE": dict(lang="de", currency="EUR", signs=["EUR", "€"], num=["comma", "de"],
               dates=["{d}.{m}.{Y}", "{d}.{m}.{y}", "{d}.{m}.{Y}", "{e}. {b} {Y}"],
               times=["hm", "hms"], upper=0.35),
    "CH": dict(lang="de", currency="CHF", signs=["CHF", "Fr."], num=["plain", "ch"],
               dates=["{d}.{m}.{Y}", "{d}.{m}.{y}"],
               times=["hm", "hms"], upper=0.4),
    "FR": dict(lang="fr", currency="EUR", signs=["€", "EUR"], num=["comma", "fr"],
               dates=["{d}/{m}/{Y}", "{d}/{m}/{y}", "{d}-{m}-{Y}", "{d}.{m}.{y}"],
               times=["hm", "hms", "h_m"], upper=0.5),
    "NL": dict(lang="nl", currency="EUR", signs=["€", "EUR"], num=["comma", "de"],
               dates=["{d}-{m}-{Y}", "{d}-{m}-{y}", "{d}/{m}/{Y}", "{e} {b} {Y}"],
               times=["hm", "hms"], upper=0.4),
    "IT": dict(lang="it", currency="EUR", signs=["€", "EUR"], num=["comma", "de"],
               dates=["{d}-{m}-{Y}", "{d}/{m}/{Y}", "{d}/{m}/{y}", "{d}.{m}.{Y}"],
               times=["hm", "hm.", "hms"], upper=0.6),
}

# ------------------------------------------------------------------------------ labels
# Each label is a list of variants; the composer picks one per receipt.

LABELS = {
    "en": dict(
        subtotal=["Sub Total", "SUBTOTAL", "Sub-total", "Subtotal"],
        discount=["Discount", "Bill Discount", "Member Discount", "Less Discount"],
        item_discount=["Discount", "Promo", "Member Price", "Savings", "Disc"],
        service=["Service Charge", "Svc Chg", "Service Chrg"],
        rounding=["Rounding Adj", "Rounding", "Rounding Adjustment", "Round Adj"],
        total=["TOTAL", "Total", "Grand Total", "Total Amount", "Net Total", "Amount Due", "TOTAL DUE",
               "Nett Total", "Total Payable"],
        total_pre=["Total", "Total (incl GST)", "Total Incl. Tax", "Total Sales"],
        total_rounded=["Rounded Total", "Total Payable", "NET TOTAL", "Grand Total", "Amount Due"],
        cash=["CASH", "Cash", "Cash Tendered", "Tendered", "Cash Paid"],
        change=["CHANGE", "Change", "Change Due", "Balance"],
        card=["VISA", "MASTERCARD", "CARD", "Credit Card", "Debit Card", "NETS", "EFTPOS"],
        items=["No. of Items", "Total Qty", "Item Count", "Qty"],
        cashier=["Cashier", "Cashier", "Operator", "Served by", "Staff"],
        table=["Table", "Table No"], pax=["Pax", "Guests", "Covers"],
        invoice=["Invoice No", "Receipt No", "Bill No", "Inv No", "Receipt #", "Trans #", "Doc No"],
        date=["Date", "Date", "DATE"], time=["Time", "TIME"],
        terminal=["POS", "Terminal", "Till", "Reg", "Counter"],
        member=["Member", "Member No", "Card No"],
        thanks=["Thank you", "THANK YOU", "Thank You & Please Come Again", "Thank you for shopping with us",
                "Thanks for your visit", "THANK YOU. PLEASE COME AGAIN"],
        returns=["Goods sold are not returnable", "Exchange within 7 days with receipt",
                 "Returns within 30 days with this receipt", "Please keep this receipt for returns",
                 "No refund. Exchange only within 3 days."],
        tel=["Tel", "TEL", "Tel No", "Phone", "Ph"], fax=["Fax", "FAX"], email=["Email", "E-mail"],
    ),
    "de": dict(
        subtotal=["Zwischensumme", "ZWISCHENSUMME", "Zw.-Summe"],
        discount=["Rabatt", "Nachlass"],
        item_discount=["Rabatt", "Aktionsrabatt", "Preisvorteil"],
        service=["Bedienung"],
        rounding=["Rundung", "Rundungsdifferenz", "Rundungsbetrag"],
        total=["SUMME", "Summe", "Gesamt", "Gesamtbetrag", "Zu zahlen", "TOTAL", "Total"],
        total_pre=["Summe", "Total"], total_rounded=["Zu zahlen", "Total gerundet", "TOTAL"],
        cash=["Gegeben", "BAR", "Bar", "Bargeld", "Gegeben BAR"],
        change=["Rückgeld", "Zurück", "Rückgeld BAR", "Retour"],
        card=["EC-Karte", "Girocard", "Kartenzahlung", "Maestro", "VISA", "Debitkarte"],
        items=["Anzahl Artikel", "Artikel", "Posten"],
        cashier=["Kassierer", "Bediener", "Es bediente Sie", "Kassiererin"],
        table=["Tisch"], pax=["Gäste", "Personen"],
        invoice=["Bon-Nr.", "Beleg-Nr.", "Bon", "Rechnung Nr.", "Beleg", "Trans.-Nr."],
        date=["Datum"], time=["Uhrzeit", "Zeit"],
        terminal=["Kasse", "Kasse", "Kassen-Nr."],
        member=["Kundenkarte", "Kunden-Nr."],
        thanks=["Vielen Dank für Ihren Einkauf", "Danke für Ihren Besuch", "Vielen Dank und auf Wiedersehen",
                "Danke und bis bald!", "VIELEN DANK"],
        returns=["Umtausch nur mit Kassenbon", "Umtausch innerhalb von 14 Tagen", "Bitte Bon aufbewahren"],
        tel=["Tel.", "Tel", "Telefon"], fax=["Fax"], email=["E-Mail", "Mail"],
    ),
    "fr": dict(
        subtotal=["Sous-total", "SOUS-TOTAL", "Sous total"],
        discount=["Remise", "Réduction"],
        item_discount=["Remise", "Promo", "Réduction immédiate"],
        service=["Service"],
        rounding=["Arrondi"],
        total=["TOTAL TTC", "TOTAL", "Total TTC", "Net à payer", "TOTAL A PAYER", "Montant TTC"],
        total_pre=["Total TTC"], total_rounded=["Net à payer"],
        cash=["Espèces", "ESPECES", "Espèces reçues", "Réglé espèces"],
        change=["Rendu", "Rendu monnaie", "A rendre", "Monnaie rendue"],
        card=["CB", "Carte bancaire", "CB EMV", "Carte Bleue"],
        items=["Nb articles", "Nombre d'articles", "Articles"],
        cashier=["Caissier", "Caissière", "Hôte(sse)", "Vendeur", "Serveur"],
        table=["Table"], pax=["Couverts", "Couv."],
        invoice=["Ticket n°", "Ticket", "Facture n°", "Note n°", "Trans."],
        date=["Date", "Le"], time=["Heure", "Heure"],
        terminal=["Caisse", "Caisse n°"],
        member=["Carte fidélité", "Carte n°"],
        thanks=["Merci de votre visite", "MERCI ET A BIENTOT", "Merci de votre fidélité", "Bonne journée !",
                "Merci et à bientôt"],
        returns=["Ticket à conserver pour tout échange", "Echange sous 15 jours avec ce ticket",
                 "Conservez votre ticket"],
        tel=["Tél", "Tél.", "Tel"], fax=["Fax"], email=["Email", "Courriel"],
    ),
    "nl": dict(
        subtotal=["Subtotaal", "SUBTOTAAL", "Tussentotaal"],
        discount=["Korting", "Bonuskorting"],
        item_discount=["Korting", "Bonus", "Actiekorting"],
        service=["Service"],
        rounding=["Afronding", "Afrondingsverschil"],
        total=["TOTAAL", "Totaal", "Te betalen", "TE BETALEN", "Totaalbedrag"],
        total_pre=["Totaal"], total_rounded=["Te betalen"],
        cash=["Contant", "CONTANT", "Betaald contant", "Ontvangen"],
        change=["Wisselgeld", "Terug", "Retour"],
        card=["PIN", "Pinnen", "Betaald PIN", "Maestro", "V PAY", "Contactloos"],
        items=["Aantal artikelen", "Artikelen", "Aantal"],
        cashier=["Kassier", "Medewerker", "U werd geholpen door", "Kassamedewerker"],
        table=["Tafel"], pax=["Personen", "Gasten"],
        invoice=["Bonnr.", "Bon", "Bonnummer", "Transactie", "Nota nr."],
        date=["Datum"], time=["Tijd"],
        terminal=["Kassa", "Kassa nr."],
        member=["Klantenkaart", "Pas nr."],
        thanks=["Bedankt en tot ziens", "Dank u wel!", "Bedankt voor uw bezoek", "Tot de volgende keer"],
        returns=["Bewaar uw kassabon", "Ruilen binnen 14 dagen met kassabon", "Retour alleen met bon"],
        tel=["Tel", "Tel.", "Telefoon"], fax=["Fax"], email=["E-mail"],
    ),
    "it": dict(
        subtotal=["Subtotale", "SUBTOTALE", "Parziale"],
        discount=["Sconto", "Sconto cassa"],
        item_discount=["Sconto", "Promo", "Sconto fedeltà"],
        service=["Servizio"],
        rounding=["Arrotondamento"],
        total=["TOTALE", "TOTALE COMPLESSIVO", "Totale", "Totale EURO", "TOTALE EURO", "Importo pagato"],
        total_pre=["Totale"], total_rounded=["TOTALE"],
        cash=["Contanti", "CONTANTI", "Pagamento contante", "Contante"],
        change=["Resto", "RESTO", "Resto contanti"],
        card=["Pagamento elettronico", "Bancomat", "Carta di credito", "POS"],
        items=["N. pezzi", "Numero articoli", "Pezzi"],
        cashier=["Operatore", "Cassiere", "Cameriere"],
        table=["Tavolo"], pax=["Coperti"],
        invoice=["Documento n.", "Scontrino n.", "DOC. N.", "N. doc.", "Conto n."],
        date=["Data"], time=["Ora"],
        terminal=["Cassa", "Cassa n.", "RT"],
        member=["Carta fedeltà", "Tessera"],
        thanks=["Grazie e arrivederci", "GRAZIE E ARRIVEDERCI", "Grazie per la visita", "Arrivederci e grazie"],
        returns=["Conservare lo scontrino per eventuali cambi", "Cambi entro 8 giorni con scontrino"],
        tel=["Tel.", "Tel", "Telefono"], fax=["Fax"], email=["Email", "E-mail"],
    ),
}

TITLES = {
    "MY": ["TAX INVOICE", "RECEIPT", "CASH BILL", "OFFICIAL RECEIPT", "SIMPLIFIED TAX INVOICE", "INVOICE", "CASH SALES"],
    "SG": ["TAX INVOICE", "RECEIPT", "SALES RECEIPT", "BILL"],
    "US": ["RECEIPT", "SALES RECEIPT", "CUSTOMER COPY", "RECEIPT"],
    "UK": ["RECEIPT", "VAT RECEIPT", "SALES RECEIPT", "CUSTOMER RECEIPT"],
    "AU": ["TAX INVOICE", "TAX INVOICE / RECEIPT", "RECEIPT"],
    "IN": ["TAX INVOICE", "BILL OF SUPPLY", "CASH MEMO", "RETAIL INVOICE", "BILL"],
    "DE": ["Kassenbon", "KASSENBON", "Beleg", "Quittung", "Rechnung", "Bon"],
    "CH": ["Quittung", "Kassenbon", "Beleg", "Rechnung"],
    "FR": ["Ticket de caisse", "TICKET", "Ticket", "Facture simplifiée", "Addition", "Note"],
    "NL": ["Kassabon", "KASSABON", "Bon", "Nota", "Rekening"],
    "IT": ["DOCUMENTO COMMERCIALE", "Scontrino", "SCONTRINO", "Documento commerciale di vendita", "Preconto"],
}
