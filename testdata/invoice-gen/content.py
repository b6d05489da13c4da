"""Seeded random invoice content (language-independent values + item texts).

All amounts are integer cents; quantities are integer hundredths; VAT rates are
integer tenths of a percent (55 = 5.5 %). Nothing here knows about layout.
"""

import datetime

SELLER_COUNTRY = {"de": ["DE"], "fr": ["FR"], "en": ["GB", "GB", "US"], "nl": ["NL"], "it": ["IT"]}
CURRENCY = {"DE": "EUR", "FR": "EUR", "NL": "EUR", "IT": "EUR", "GB": "GBP", "US": "USD"}
RATES = {"DE": [190, 70], "FR": [200, 100, 55], "NL": [210, 90], "IT": [220, 100, 40],
         "GB": [200, 50], "US": [80, 60]}
LEGAL = {
    "DE": ["GmbH", "GmbH", "GmbH & Co. KG", "AG", "e.K.", "KG", "UG (haftungsbeschränkt)"],
    "FR": ["SARL", "SAS", "SAS", "SA", "EURL"],
    "GB": ["Ltd", "Ltd", "Limited", "LLP", "PLC"],
    "US": ["LLC", "LLC", "Inc.", "Corp."],
    "NL": ["B.V.", "B.V.", "V.O.F.", "N.V."],
    "IT": ["S.r.l.", "S.r.l.", "S.p.A.", "S.n.c.", "S.a.s."],
}
SURNAMES = {
    "DE": ["Müller", "Schneider", "Fischer", "Weber", "Becker", "Hoffmann", "Schäfer", "Koch", "Richter", "Wolf", "Krüger", "Lehmann"],
    "FR": ["Dupont", "Martin", "Bernard", "Moreau", "Lefèvre", "Garnier", "Rousseau", "Fontaine", "Chevalier", "Mercier"],
    "GB": ["Smith", "Wilson", "Taylor", "Clarke", "Hughes", "Walker", "Wright", "Harrison", "Palmer", "Fletcher"],
    "US": ["Johnson", "Miller", "Davis", "Anderson", "Thompson", "Garcia", "Robinson", "Carter", "Mitchell", "Brooks"],
    "NL": ["de Vries", "Jansen", "Bakker", "Visser", "Smit", "Mulder", "de Boer", "Dekker", "Bos", "Vermeulen"],
    "IT": ["Rossi", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco", "Bruno", "Gallo", "Conti"],
}
FIRST = {
    "DE": ["Thomas", "Anna", "Klaus", "Sabine", "Jürgen", "Katrin"], "FR": ["Jean", "Marie", "Luc", "Hélène", "François"],
    "GB": ["James", "Emma", "Oliver", "Sophie"], "US": ["Michael", "Jennifer", "David", "Ashley"],
    "NL": ["Jan", "Sanne", "Pieter", "Femke"], "IT": ["Marco", "Giulia", "Luca", "Francesca"],
}
TRADES = {
    "DE": ["Elektrotechnik", "Logistik", "Medien", "Druck", "Haustechnik", "Software", "Catering", "Bau", "Metallbau", "Beratung"],
    "FR": ["Informatique", "Transports", "Conseil", "Imprimerie", "Bâtiment", "Services", "Distribution", "Énergie"],
    "GB": ["Consulting", "Supplies", "Joinery", "Media", "Engineering", "Logistics", "Catering", "Software"],
    "US": ["Hardware", "Data Systems", "Printing", "Supply", "Solutions", "Coffee Roasters", "Analytics"],
    "NL": ["Techniek", "Logistiek", "Installatie", "Bouw", "Advies", "Media", "Handel"],
    "IT": ["Forniture", "Servizi", "Tipografia", "Impianti", "Trasporti", "Informatica", "Costruzioni"],
}
PLACES = {
    "DE": ["Nordlicht", "Rheinwerk", "Alpen", "Elbtal", "Sonnenhof", "Havelland"],
    "FR": ["Atelier Lumière", "Provence", "Val de Loire", "Océan", "Mont Blanc"],
    "GB": ["Thames Valley", "Oakwood", "Brightside", "Pennine", "Riverside"],
    "US": ["Pacific", "Blue Ridge", "Lakeside", "Golden Gate", "Prairie"],
    "NL": ["Noordzee", "De Molen", "Zuiderzee", "Veluwe", "Delta"],
    "IT": ["Adriatica", "Dolomiti", "Lombarda", "Vesuvio", "Toscana"],
}
STREETS = {
    "DE": ["Hauptstraße", "Bahnhofstraße", "Schillerstraße", "Gartenweg", "Industriestraße", "Am Markt", "Lindenallee", "Goethestraße"],
    "FR": ["rue de la République", "avenue Jean Jaurès", "rue Victor Hugo", "boulevard Pasteur", "rue de la Paix", "chemin des Vignes"],
    "GB": ["High Street", "Station Road", "Baker Street", "Church Lane", "Victoria Road", "Mill Lane"],
    "US": ["Main Street", "Oak Avenue", "Maple Drive", "Broadway", "Elm Street", "Park Avenue"],
    "NL": ["Kerkstraat", "Dorpsstraat", "Stationsweg", "Molenweg", "Prinsengracht", "Industrieweg"],
    "IT": ["Via Roma", "Via Garibaldi", "Corso Italia", "Via Mazzini", "Viale Europa", "Via Dante"],
}
CITIES = {
    "DE": [("10115", "Berlin"), ("80331", "München"), ("50667", "Köln"), ("20095", "Hamburg"), ("04109", "Leipzig"), ("70173", "Stuttgart")],
    "FR": [("75008", "Paris"), ("69002", "Lyon"), ("13001", "Marseille"), ("33000", "Bordeaux"), ("59000", "Lille"), ("67000", "Strasbourg")],
    "GB": [("SW1A 1AA", "London"), ("M1 1AE", "Manchester"), ("B1 1BB", "Birmingham"), ("LS1 4AP", "Leeds"), ("EH1 1YZ", "Edinburgh")],
    "US": [("10001", "New York, NY"), ("60601", "Chicago, IL"), ("94105", "San Francisco, CA"), ("78701", "Austin, TX"), ("98101", "Seattle, WA")],
    "NL": [("1012 AB", "Amsterdam"), ("3011 AD", "Rotterdam"), ("3511 AX", "Utrecht"), ("5611 AZ", "Eindhoven"), ("9711 LM", "Groningen")],
    "IT": [("20121", "Milano (MI)"), ("00184", "Roma (RM)"), ("10121", "Torino (TO)"), ("40121", "Bologna (BO)"), ("50123", "Firenze (FI)")],
}
COUNTRY_NAMES = {
    "de": {"DE": "Deutschland", "FR": "Frankreich", "GB": "Vereinigtes Königreich", "US": "USA", "NL": "Niederlande", "IT": "Italien"},
    "fr": {"DE": "Allemagne", "FR": "France", "GB": "Royaume-Uni", "US": "États-Unis", "NL": "Pays-Bas", "IT": "Italie"},
    "en": {"DE": "Germany", "FR": "France", "GB": "United Kingdom", "US": "USA", "NL": "Netherlands", "IT": "Italy"},
    "nl": {"DE": "Duitsland", "FR": "Frankrijk", "GB": "Verenigd Koninkrijk", "US": "VS", "NL": "Nederland", "IT": "Italië"},
    "it": {"DE": "Germania", "FR": "Francia", "GB": "Regno Unito", "US": "USA", "NL": "Paesi Bassi", "IT": "Italia"},
}
PO_BOX = {"DE": "Postfach {n}", "FR": "BP {n}", "GB": "PO Box {n}", "US": "P.O. Box {n}", "NL": "Postbus {n}", "IT": "Casella Postale {n}"}
BUILDING = {
    "DE": ["Gebäude {c}, {k}. OG", "Haus {c}", "Hinterhaus"], "FR": ["Bâtiment {c}", "ZI des Granges, Lot {k}"],
    "GB": ["Unit {k}, Riverside House", "Suite {k}0"], "US": ["Suite {k}00", "Building {c}"],
    "NL": ["Gebouw {c}", "Unit {k}"], "IT": ["Scala {c}, Piano {k}", "Edificio {c}"],
}
ITEMS = {
    "de": ["Montagearbeiten", "Beratung", "Druckerpatrone schwarz", "Bürostuhl ergonomisch", "Wartungsvertrag", "Softwarelizenz",
           "Kabelkanal 2 m", "LED-Panel 60x60", "Reisekosten", "Programmierung", "Schulung vor Ort", "Kopierpapier A4", "Fahrtkosten"],
    "fr": ["Prestation de conseil", "Installation électrique", "Cartouche d'encre", "Chaise de bureau", "Contrat de maintenance",
           "Licence logicielle", "Formation sur site", "Papier A4 ramette", "Frais de déplacement", "Développement", "Câble réseau 5 m"],
    "en": ["Consulting services", "Installation labour", "Toner cartridge", "Office chair", "Maintenance contract", "Software licence",
           "On-site training", "A4 copy paper", "Travel expenses", "Development work", "Network cable 5 m", "Design retainer"],
    "nl": ["Advieswerkzaamheden", "Installatiewerk", "Inktpatroon zwart", "Bureaustoel", "Onderhoudscontract", "Softwarelicentie",
           "Training op locatie", "Kopieerpapier A4", "Reiskosten", "Ontwikkeling", "Netwerkkabel 5 m"],
    "it": ["Consulenza tecnica", "Installazione impianto", "Cartuccia toner", "Sedia da ufficio", "Contratto di manutenzione",
           "Licenza software", "Formazione in sede", "Carta A4 risma", "Spese di trasferta", "Sviluppo software", "Cavo di rete 5 m"],
}
DETAILS = {
    "de": ["Seriennummer {n}", "gemäß Angebot vom {m}. Mai", "inkl. Anfahrt und Material", "Projekt {n}"],
    "fr": ["Numéro de série {n}", "selon devis n° {n}", "main d'oeuvre comprise", "Projet {n}"],
    "en": ["Serial number {n}", "as per quote {n}", "including parts and labour", "Project {n}"],
    "nl": ["Serienummer {n}", "volgens offerte {n}", "inclusief voorrijkosten", "Project {n}"],
    "it": ["Numero di serie {n}", "come da preventivo n. {n}", "manodopera inclusa", "Progetto {n}"],
}
NUMBER_PREFIX = {"de": ["RE", "R", "RG"], "fr": ["FA", "F", "FAC"], "en": ["INV", "IN", "SI"], "nl": ["F", "FAC", "INV"], "it": ["FT", "FE", "F"]}
CREDIT_PREFIX = {"de": ["GS", "G"], "fr": ["AV", "A"], "en": ["CN", "CR"], "nl": ["CN", "C"], "it": ["NC", "N"]}


def digits(rnd, n):
    return "".join(rnd.choice("0123456789") for _ in range(n))


def letters(rnd, n):
    return "".join(rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n))


def company_name(rnd, country):
    sur, kind = SURNAMES[country], rnd.randrange(10)
    if kind <= 2:
        base = "%s %s" % (rnd.choice(sur), rnd.choice(TRADES[country]))
    elif kind <= 4:
        base = "%s %s" % (rnd.choice(PLACES[country]), rnd.choice(TRADES[country]))
    elif kind == 5:  # looks like a street
        base = "%s %s" % (rnd.choice(STREETS[country]), rnd.choice(TRADES[country]))
    elif kind == 6:  # looks like a person
        base = "%s %s" % (rnd.choice(FIRST[country]), rnd.choice(sur))
        if rnd.random() < 0.4:
            return base
    elif kind == 7:
        a, b = rnd.sample(sur, 2)
        base = "%s & %s" % (a, b)
    else:
        base = "%s %s" % (rnd.choice(PLACES[country]), rnd.choice(sur))
    return "%s %s" % (base, rnd.choice(LEGAL[country]))


def address(rnd, country, lang, with_country):
    """2..5 address lines (not including the name)."""
    lines = []
    if rnd.random() < 0.25:
        lines.append(rnd.choice(BUILDING[country]).format(c=rnd.choice("ABCD"), k=rnd.randint(1, 9)))
    num = str(rnd.randint(1, 240)) + (rnd.choice("abc") if rnd.random() < 0.1 else "")
    street = rnd.choice(STREETS[country])
    if country in ("FR", "GB", "US"):
        lines.append("%s %s" % (num, street))
    else:
        lines.append("%s %s" % (street, num))
    if rnd.random() < 0.15:
        box = digits(rnd, 2) + " " + digits(rnd, 2) + " " + digits(rnd, 2) if country == "DE" else str(rnd.randint(10, 9999))
        lines.append(PO_BOX[country].format(n=box))
        if len(lines) == 3 and rnd.random() < 0.5:
            lines.pop(1)
    pc, city = rnd.choice(CITIES[country])
    if country == "GB":
        lines.extend([city, pc])
    elif country == "US":
        lines.append("%s %s" % (city, pc))
    else:
        lines.append("%s %s" % (pc, city))
    if with_country:
        lines.append(COUNTRY_NAMES[lang][country])
    return lines


def vat_id(rnd, country):
    if country == "DE":
        return "DE" + digits(rnd, 9)
    if country == "FR":
        siren = digits(rnd, 9)
        return "FR%02d%s" % ((12 + 3 * (int(siren) % 97)) % 97, siren)
    if country == "GB":
        return "GB" + digits(rnd, 9)
    if country == "NL":
        return "NL" + digits(rnd, 9) + "B0" + rnd.choice("12")
    if country == "IT":
        return "IT" + digits(rnd, 11)
    return None


def spaced_vat(v, rnd):
    """A printed variant with grouping spaces (removing spaces gives v back)."""
    c, rest = v[:2], v[2:]
    if c == "DE":
        return "DE %s %s %s" % (rest[:3], rest[3:6], rest[6:])
    if c == "FR":
        return "FR %s %s %s %s" % (rest[:2], rest[2:5], rest[5:8], rest[8:])
    if c == "GB":
        return "GB %s %s %s" % (rest[:3], rest[3:7], rest[7:])
    return c + " " + rest


def iban_check(country, bban):
    s = bban + country + "00"
    num = "".join(str(int(ch, 36)) for ch in s)
    return "%02d" % (98 - int(num) % 97)


def iban(rnd, country):
    if country == "DE":
        bban = digits(rnd, 18)
    elif country == "FR":
        bban = digits(rnd, 10) + letters(rnd, 1) + digits(rnd, 12)
    elif country == "GB":
        bban = letters(rnd, 4) + digits(rnd, 14)
    elif country == "NL":
        bban = letters(rnd, 4) + digits(rnd, 10)
    elif country == "IT":
        bban = letters(rnd, 1) + digits(rnd, 22)
    else:
        return None  # US: no IBAN
    return country + iban_check(country, bban) + bban


def iban_valid(v):
    s = v[4:] + v[:4]
    return int("".join(str(int(ch, 36)) for ch in s)) % 97 == 1


def group4(v):
    return " ".join(v[i:i + 4] for i in range(0, len(v), 4))


def bic(rnd, country):
    b = letters(rnd, 4) + country + rnd.choice(["FF", "MM", "PP", "2X", "22", "HH", "RR"])
    if rnd.random() < 0.4:
        b += rnd.choice(["XXX", "XXX", letters(rnd, 1) + digits(rnd, 2)])
    return b


def invoice_number(rnd, lang, year, credit):
    pre = rnd.choice((CREDIT_PREFIX if credit else NUMBER_PREFIX)[lang])
    seq = rnd.randint(1, 99999)
    shape = rnd.randrange(8)
    if shape == 0:
        return "%s-%d-%05d" % (pre, year, seq)
    if shape == 1:
        return "%d/%04d" % (year, seq % 10000)
    if shape == 2:
        return digits(rnd, rnd.randint(5, 8)).lstrip("0") or "100234"
    if shape == 3:
        return "%s%02d%05d" % (pre, year % 100, seq)
    if shape == 4:
        return "%d/%d" % (seq % 3000 + 1, year)
    if shape == 5:
        return "%s-%06d" % (pre, seq)
    if shape == 6:
        return "%d-%02d-%03d" % (year, rnd.randint(1, 12), seq % 1000)
    return "%s%d%s" % (pre, year, digits(rnd, 4))


def round_div(a, b):
    """a / b rounded half away from zero, integers only."""
    q, r = divmod(abs(a), b)
    if 2 * r >= b:
        q += 1
    return q if a >= 0 else -q


def line_items(rnd, lang, rates, n):
    items = []
    for i in range(n):
        desc = [rnd.choice(ITEMS[lang])]
        if rnd.random() < 0.25:
            desc.append(rnd.choice(DETAILS[lang]).format(n=digits(rnd, 5), m=rnd.randint(2, 28)))
        if rnd.random() < 0.3:
            qty = rnd.choice([25, 50, 75, 150, 250, 350, 1250]) if rnd.random() < 0.5 else rnd.randint(1, 80) * 50
        else:
            qty = rnd.choice([1, 1, 1, 2, 3, 4, 5, 10, 12, 20, 24, 50, 100]) * 100
        mag = rnd.choice([100, 1000, 10000, 50000, 250000])
        unit = rnd.randint(mag // 10 + 1, mag)
        if unit >= 1000 and rnd.random() < 0.4:
            unit = unit // 100 * 100
        rate = rates[0] if i == 0 or rnd.random() < 0.6 else rnd.choice(rates)
        items.append({"desc": desc, "qty": qty, "unit": unit, "total": round_div(qty * unit, 100),
                      "rate": rate, "sku": "%s-%s" % (letters(rnd, 2), digits(rnd, 4)), "uom": rnd.randrange(5)})
    for k, r in enumerate(rates[1:], start=1):  # every rate used at least once
        if not any(it["rate"] == r for it in items):
            items[k % len(items)]["rate"] = r
    return items


def make_invoice(rnd, lang, credit=False, n_items=(1, 12), n_rates=1,
                 discount=False, shipping=False, prepaid=False, foreign_buyer=0.15):
    country = rnd.choice(SELLER_COUNTRY[lang])
    rates = RATES[country][:max(1, min(n_rates, len(RATES[country])))]
    n_rates = len(rates)
    n = rnd.randint(*n_items)
    n = max(n, n_rates)
    issue = datetime.date(2021, 1, 1) + datetime.timedelta(days=rnd.randrange(5 * 365))
    buyer_country = country
    if rnd.random() < foreign_buyer:
        buyer_country = rnd.choice([c for c in CURRENCY if c != country])
    inv = {"lang": lang, "country": country, "currency": CURRENCY[country], "credit": credit,
           "number": invoice_number(rnd, lang, issue.year, credit), "issue": issue,
           "due": issue + datetime.timedelta(days=rnd.choice([7, 10, 14, 14, 30, 30, 45, 60]))}
    seller = {"name": company_name(rnd, country), "country": country, "vat": vat_id(rnd, country),
              "iban": iban(rnd, country), "bic": bic(rnd, country),
              "phone": "+%s %s %s" % ({"DE": "49", "FR": "33", "GB": "44", "US": "1", "NL": "31", "IT": "39"}[country],
                                     digits(rnd, 3), digits(rnd, 6)),
              "tax_no": "%s/%s/%s" % (digits(rnd, 3), digits(rnd, 3), digits(rnd, 5)),
              "routing": "0" + digits(rnd, 8), "account": digits(rnd, 10)}
    seller["lines"] = address(rnd, country, lang, with_country=buyer_country != country or rnd.random() < 0.2)
    seller["email"] = "info@%s.example" % "".join(ch for ch in seller["name"].split()[0].lower() if ch.isalnum() and ch.isascii()) or "info@firma.example"
    buyer = {"name": company_name(rnd, buyer_country), "country": buyer_country, "vat": vat_id(rnd, buyer_country),
             "iban": iban(rnd, buyer_country) or iban(rnd, "DE"), "customer_no": rnd.choice(
                 ["KD-%s" % digits(rnd, 5), "C%s" % digits(rnd, 6), digits(rnd, 5), "%s-%s" % (letters(rnd, 3), digits(rnd, 4))])}
    while buyer["name"] == seller["name"]:
        buyer["name"] = company_name(rnd, buyer_country)
    buyer["lines"] = address(rnd, buyer_country, lang, with_country=buyer_country != country or rnd.random() < 0.2)
    inv["seller"], inv["buyer"] = seller, buyer
    items = line_items(rnd, lang, rates, n)
    inv["items"], inv["rates"] = items, rates
    nets = {r: sum(it["total"] for it in items if it["rate"] == r) for r in rates}
    inv["subtotal"] = sum(nets.values())
    inv["discount_pct"], inv["discount"], inv["shipping"] = 0, 0, 0
    if discount:
        inv["discount_pct"] = rnd.choice([2, 3, 5, 10])
        inv["discount"] = round_div(nets[rates[0]] * inv["discount_pct"], 100)
        nets[rates[0]] -= inv["discount"]
    if shipping:
        inv["shipping"] = rnd.choice([490, 595, 990, 1250, 1990, 2500, 4900])
        nets[rates[0]] += inv["shipping"]
    taxes = {r: round_div(nets[r] * r, 1000) for r in rates}
    inv["nets"], inv["taxes"] = nets, taxes
    inv["net"] = sum(nets.values())
    inv["tax"] = sum(taxes.values())
    inv["gross"] = inv["net"] + inv["tax"]
    inv["prepaid"] = 0
    if prepaid and inv["gross"] >= 1000:
        inv["prepaid"] = round_div(inv["gross"] * rnd.choice([10, 20, 25, 30, 50]), 10000) * 100 or 100
    inv["due_amount"] = inv["gross"] - inv["prepaid"]
    inv["order_ref"] = rnd.choice(["PO-%s" % digits(rnd, 5), "45%s" % digits(rnd, 8), "%s-%d-%s" % (
        letters(rnd, 2), issue.year, digits(rnd, 3)), "B%s" % digits(rnd, 6)])
    inv["order_date"] = issue - datetime.timedelta(days=rnd.randint(5, 40))
    inv["delivery_date"] = issue - datetime.timedelta(days=rnd.randint(1, 10))
    inv["assoc_date"] = issue - datetime.timedelta(days=rnd.randint(12, 90))
    first = (issue.replace(day=1) - datetime.timedelta(days=1)).replace(day=1)
    inv["period"] = (first, issue.replace(day=1) - datetime.timedelta(days=1))
    inv["mandate"] = "MR-%s" % digits(rnd, 7)
    return inv
