"""Seeded receipt content: sellers (names with legal forms, registration and tax ids,
addresses, phones), items from small catalogues, and exact arithmetic (Decimal, half up).

Everything is made up from the word pools below; any resemblance of a combination to a real
business is accidental. Phone numbers use ranges reserved for fiction where a country has
them (US 555-01xx, UK 01632 96xxxx).
"""

import datetime
from decimal import Decimal

from receipt_locale import ZERO, q2

D = Decimal


def digits(rnd, n):
    return "".join(rnd.choice("0123456789") for _ in range(n))


def nz_digits(rnd, n):
    return rnd.choice("123456789") + digits(rnd, n - 1)


def letters(rnd, n, pool="ABCDEFGHJKLMNPRSTUVWXYZ"):
    return "".join(rnd.choice(pool) for _ in range(n))


# ------------------------------------------------------------------------------ pools

CN_SYL = ["AIK", "HUAT", "SOON", "HENG", "KIM", "LEONG", "HOCK", "SENG", "TECK", "GUAN", "WENG", "FATT", "YEE",
          "CHUAN", "HIN", "KEE", "LOONG", "ONN", "SIANG", "JOO", "BENG", "CHEONG", "FOOK", "WAH", "LIAN", "MENG"]
MALAY = ["MAJU", "JAYA", "SINAR", "HARMONI", "CAHAYA", "BINTANG", "SERI", "MUTIARA", "GEMILANG", "SENTOSA",
         "MEGAH", "INDAH", "SETIA", "BAHAGIA", "PERMATA", "MAKMUR", "CEMERLANG", "DAMAI", "BESTARI", "SURIA"]
EN_ADJ = ["Golden", "Evergreen", "Sunrise", "Greenfield", "Prime", "United", "Royal", "Metro", "Happy", "Lucky",
          "Grand", "Park", "City", "Star", "Ocean", "Pearl", "Silver", "Maple", "Harbour", "Hilltop", "Corner",
          "Village", "Crown", "Blue", "Red", "Orchid", "Lotus", "Summit", "Valley", "Northside"]
EN_NOUN = ["Anchor", "Lantern", "Oak", "Kettle", "Sparrow", "Harvest", "Bridge", "Compass", "Acorn", "Mill",
           "Fox", "Orchard", "Bean", "Spoon", "Ladle", "Beacon", "Meadow", "Cedar", "Willow", "Pebble"]
SURNAMES_EN = ["Miller", "Carter", "Hughes", "Bennett", "Porter", "Walsh", "Fletcher", "Dawson", "Reed", "Palmer",
               "Graves", "Holt", "Barrett", "Sutton", "Lowe", "Norris", "Pryce", "Abbott", "Keane", "Whitlock"]
SURNAMES_DE = ["Müller", "Schneider", "Becker", "Hoffmann", "Schulz", "Koch", "Richter", "Wolf", "Neumann", "Braun",
               "Krüger", "Hartmann", "Lange", "Werner", "Krause", "Lehmann", "Köhler", "Brandt", "Vogel", "Seidel"]
SURNAMES_FR = ["Martin", "Bernard", "Dubois", "Moreau", "Laurent", "Girard", "Roux", "Fournier", "Lefèvre",
               "Mercier", "Blanc", "Guérin", "Faure", "Chevalier", "Garnier", "Perrin", "Morel", "Fontaine"]
SURNAMES_NL = ["de Vries", "Jansen", "Bakker", "Visser", "Smit", "Meijer", "de Boer", "Mulder", "Bos", "Vos",
               "Peters", "Hendriks", "Dekker", "Brouwer", "de Wit", "Dijkstra", "Kok", "Verhoeven"]
SURNAMES_IT = ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco",
               "Bruno", "Gallo", "Conti", "De Luca", "Mancini", "Costa", "Giordano", "Rizzo", "Lombardi"]
FIRST_EN = ["Amirah", "Jason", "Mei Ling", "Kumar", "Siti", "Daniel", "Priya", "Wei Jie", "Hafiz", "Emily",
            "Ravi", "Nurul", "Kevin", "Jessica", "Tom", "Sarah", "Aaron", "Lisa", "Chloe", "Ben"]
FIRST_DE = ["Anna", "Lukas", "Sabine", "Jonas", "Petra", "Felix", "Monika", "Tim", "Julia", "Stefan"]
FIRST_FR = ["Julie", "Nicolas", "Camille", "Thomas", "Léa", "Hugo", "Chloé", "Louis", "Manon", "Pierre"]
FIRST_NL = ["Sanne", "Daan", "Lotte", "Bram", "Emma", "Sem", "Fleur", "Jesse", "Iris", "Ruben"]
FIRST_IT = ["Giulia", "Marco", "Francesca", "Luca", "Chiara", "Matteo", "Sara", "Andrea", "Elena", "Paolo"]
FIRST = {"en": FIRST_EN, "de": FIRST_DE, "fr": FIRST_FR, "nl": FIRST_NL, "it": FIRST_IT}

# ----------------------------------------------------------------------------- sellers

KIND_WORDS = {
    "MY": {"grocery": (["MINI MARKET", "SUPERMARKET", "MART", "TRADING", "STORE", "RETAIL"], ["KEDAI RUNCIT", "PASARAYA"]),
           "restaurant": (["RESTAURANT", "CAFE", "FOOD CORNER", "KOPITIAM", "FOOD & BEVERAGE"], ["RESTORAN", "KEDAI MAKANAN"]),
           "cafe": (["CAFE", "BAKERY & CAFE", "COFFEE HOUSE", "KOPITIAM"], ["KEDAI KOPI"]),
           "hardware": (["HARDWARE", "HARDWARE & TRADING", "BUILDING MATERIALS", "ELECTRICAL & HARDWARE"], ["KEDAI PERKAKASAN"]),
           "pharmacy": (["PHARMACY", "MEDICAL HALL", "HEALTHCARE"], ["FARMASI"]),
           "petrol": (["PETROLEUM", "SERVICE STATION", "FUEL STATION"], ["STESEN MINYAK"])},
    "SG": {"grocery": (["Mart", "Minimart", "Supermarket", "Provision Shop", "Trading"], []),
           "restaurant": (["Restaurant", "Eating House", "Kitchen", "Seafood Restaurant", "Bistro"], []),
           "cafe": (["Cafe", "Coffee House", "Kopitiam", "Bakery"], []),
           "hardware": (["Hardware", "Hardware & Tools", "Building Supplies"], []),
           "pharmacy": (["Pharmacy", "Medical Hall", "Health"], []),
           "petrol": (["Service Station", "Fuel"], [])},
}

LEGAL = {
    "MY": ["SDN BHD", "SDN. BHD.", "Sdn Bhd", "Sdn. Bhd."],
    "SG": ["PTE LTD", "PTE. LTD.", "Pte Ltd", "Pte. Ltd."],
    "US": ["Inc.", "LLC", "Inc", "Co.", "Corp."],
    "UK": ["Ltd", "LTD", "Limited", "PLC"],
    "AU": ["Pty Ltd", "Pty. Ltd.", "PTY LTD"],
    "IN": ["Pvt Ltd", "Pvt. Ltd.", "Private Limited", "PVT LTD", "LLP"],
    "DE": ["GmbH", "GmbH & Co. KG", "e.K.", "KG", "OHG", "UG (haftungsbeschränkt)"],
    "CH": ["AG", "GmbH"],
    "FR": ["SARL", "SAS", "SA", "EURL", "SNC"],
    "NL": ["B.V.", "BV", "V.O.F."],
    "IT": ["S.r.l.", "S.R.L.", "S.p.A.", "S.n.c.", "S.a.s.", "SRL"],
}

US_TYPES = {"grocery": ["Market", "Foods", "Grocery", "Food Mart", "Supermarket"],
            "restaurant": ["Diner", "Grill", "Bistro", "Kitchen", "Tavern", "Eatery"],
            "cafe": ["Coffee", "Cafe", "Bakery", "Coffee Co"],
            "hardware": ["Hardware", "Lumber & Hardware", "Home Supply", "Tool & Supply"],
            "pharmacy": ["Pharmacy", "Drug", "Apothecary", "Drugstore"],
            "petrol": ["Fuel", "Gas & Go", "Petroleum", "Express"]}
DE_TYPES = {"grocery": ["Markt", "Frischemarkt", "Lebensmittel", "Supermarkt"],
            "restaurant": ["Gasthaus", "Restaurant", "Wirtshaus", "Brauhaus", "Trattoria"],
            "cafe": ["Bäckerei", "Café", "Konditorei", "Backstube"],
            "hardware": ["Baumarkt", "Baustoffe", "Eisenwaren", "Heimwerkermarkt"],
            "pharmacy": ["Apotheke", "Drogerie"],
            "petrol": ["Tankstelle", "Autohof", "Service-Station"]}
FR_TYPES = {"grocery": ["Supermarché", "Epicerie", "Marché", "Alimentation"],
            "restaurant": ["Brasserie", "Restaurant", "Bistrot", "Café-Restaurant"],
            "cafe": ["Boulangerie", "Pâtisserie", "Café", "Salon de thé"],
            "hardware": ["Bricolage", "Quincaillerie", "Matériaux"],
            "pharmacy": ["Pharmacie"], "petrol": ["Station", "Relais", "Station-service"]}
NL_TYPES = {"grocery": ["Supermarkt", "Buurtsuper", "Versmarkt"],
            "restaurant": ["Eetcafé", "Restaurant", "Grand Café", "Brasserie"],
            "cafe": ["Bakkerij", "Koffiebar", "Lunchroom"],
            "hardware": ["Bouwmarkt", "IJzerhandel", "Doe-het-zelf"],
            "pharmacy": ["Apotheek", "Drogisterij"], "petrol": ["Tankstation", "Pompstation"]}
IT_TYPES = {"grocery": ["Alimentari", "Supermercato", "Market", "Minimarket"],
            "restaurant": ["Trattoria", "Ristorante", "Osteria", "Pizzeria"],
            "cafe": ["Bar", "Caffè", "Pasticceria", "Panificio"],
            "hardware": ["Ferramenta", "Colorificio", "Edilizia"],
            "pharmacy": ["Farmacia", "Parafarmacia"], "petrol": ["Stazione di servizio", "Carburanti"]}
PLACE_DE = ["am Markt", "am Rathaus", "im Zentrum", "am Bahnhof", "am Park", "an der Kirche", "am See", "Süd", "Nord"]
PLACE_FR = ["du Marché", "de la Gare", "du Centre", "des Halles", "du Port", "de la Place", "du Parc", "Saint-Michel"]
PLACE_NL = ["De Molen", "Het Plein", "De Brug", "Centrum", "De Linde", "Het Anker", "De Haven"]
PLACE_IT = ["Centrale", "del Corso", "della Stazione", "San Marco", "del Duomo", "alla Piazza", "al Ponte"]


BRAND_TAIL = {"grocery": ["Mart", "Markt", "Save", "Buy", "Shop", "Land", "Plus", "Basket", "Fresh"],
              "restaurant": ["Burger", "Bite", "Grill", "Kitchen", "Wok", "Pizza", "Diner"],
              "cafe": ["Cup", "Bake", "Bean", "Brew", "Kopi", "Crumb"],
              "hardware": ["Fix", "Build", "Tools", "Bau", "DIY", "Depot"],
              "pharmacy": ["Care", "Health", "Pharma", "Vital", "Med"],
              "petrol": ["Fuel", "Go", "Stop", "Energy", "Petro", "Gas"]}


def _brand(rnd, kind="grocery"):
    """A made-up brand word for logos and franchise lines."""
    a = rnd.choice(["Fresh", "Quik", "Eco", "Top", "Best", "Maxi", "Happy", "Smart", "Metro", "Sun", "Urban",
                    "Value", "Daily", "Prima", "Nova", "Zip", "Vita", "Bio", "Star", "Uni"])
    return a + rnd.choice(BRAND_TAIL[kind])


def company(rnd, country, kind, upper):
    """Returns dict(name, brand, legal) - name is the full seller name as printed (one string)."""
    legal = rnd.choice(LEGAL[country])
    brand = _brand(rnd, kind)
    if country in ("MY", "SG"):
        suffixes, prefixes = KIND_WORDS[country][kind]
        style = rnd.random()
        if country == "MY" and style < 0.35:
            core = rnd.choice(MALAY) + " " + rnd.choice(MALAY + CN_SYL)
        elif style < 0.7:
            core = rnd.choice(CN_SYL) + " " + rnd.choice(CN_SYL)
        else:
            core = rnd.choice(EN_ADJ).upper() + " " + rnd.choice(EN_NOUN + ["STAR", "SUN", "MOON"]).upper()
        if country == "SG":
            core = core.title()
        if prefixes and rnd.random() < 0.35:
            base = rnd.choice(prefixes) + " " + core
        else:
            base = core + " " + rnd.choice(suffixes)
        if country == "MY" and rnd.random() < 0.2:
            legal = rnd.choice(["ENTERPRISE", "TRADING", "ENTERPRISE"])
            name = base if base.endswith(legal) else base + " " + legal
            legal = "ENT"
        else:
            name = base + " " + legal
    elif country in ("US", "UK", "AU"):
        t = US_TYPES[kind]
        r = rnd.random()
        if r < 0.3:
            base = rnd.choice(SURNAMES_EN) + "'s " + rnd.choice(t)
        elif r < 0.55 and kind in ("restaurant", "cafe"):
            base = "The " + rnd.choice(EN_ADJ) + " " + rnd.choice(EN_NOUN)
        elif r < 0.75:
            base = rnd.choice(EN_ADJ) + " " + rnd.choice(t)
        else:
            base = rnd.choice(EN_ADJ) + " " + rnd.choice(EN_NOUN) + " " + rnd.choice(t)
        if country == "UK" and rnd.random() < 0.2:
            base = rnd.choice(SURNAMES_EN) + " & Sons"
        name = base + " " + legal
    elif country == "IN":
        t = {"grocery": ["Stores", "Super Market", "Provisions", "Departmental Store"],
             "restaurant": ["Restaurant", "Bhavan", "Dhaba", "Family Restaurant", "Veg Restaurant"],
             "cafe": ["Cafe", "Sweets & Bakery", "Coffee House", "Tea Stall"],
             "hardware": ["Hardware", "Hardware & Sanitary", "Paints & Hardware"],
             "pharmacy": ["Medicals", "Pharmacy", "Chemists & Druggists"],
             "petrol": ["Filling Station", "Fuel Point", "Service Station"]}[kind]
        core = rnd.choice(["Sri", "Shree", "New", "Royal", "Sai", "Om", "Jai"]) + " " + rnd.choice(
            ["Lakshmi", "Ganesh", "Balaji", "Krishna", "Annapoorna", "Saravana", "Ganga", "Venkatesh", "Durga",
             "Murugan", "Mahalakshmi", "Raghavendra", "Vinayaka"])
        name = core + " " + rnd.choice(t) + (" " + legal if rnd.random() < 0.7 else "")
        if not name.endswith(legal):
            legal = None
    elif country in ("DE", "CH"):
        t = DE_TYPES[kind]
        r = rnd.random()
        sur = rnd.choice(SURNAMES_DE)
        if country == "CH":
            sur = sur.replace("ü", "ue") if rnd.random() < 0.3 else sur
        if r < 0.35:
            base = rnd.choice(t) + " " + sur
        elif r < 0.6:
            base = sur + " " + rnd.choice(t)
        elif r < 0.8 and kind == "pharmacy":
            base = rnd.choice(["Apotheke", "Stadt-Apotheke", "Löwen-Apotheke"]) + " " + rnd.choice(PLACE_DE)
        else:
            base = brand + " " + rnd.choice(t)
        name = base + " " + legal
    elif country == "FR":
        t = FR_TYPES[kind]
        r = rnd.random()
        sur = rnd.choice(SURNAMES_FR)
        if r < 0.4:
            base = rnd.choice(t) + " " + rnd.choice(PLACE_FR)
        elif r < 0.7:
            base = rnd.choice(t) + " " + sur
        else:
            base = brand + " " + rnd.choice(t)
        name = (legal + " " + base) if rnd.random() < 0.4 else (base + " " + legal)
    elif country == "NL":
        t = NL_TYPES[kind]
        r = rnd.random()
        sur = rnd.choice(SURNAMES_NL)
        if r < 0.4:
            base = rnd.choice(t) + " " + rnd.choice(PLACE_NL)
        elif r < 0.7:
            base = rnd.choice(t) + " " + sur
        else:
            base = brand + " " + rnd.choice(t)
        name = base + " " + legal
    elif country == "IT":
        t = IT_TYPES[kind]
        r = rnd.random()
        sur = rnd.choice(SURNAMES_IT)
        if r < 0.35:
            base = rnd.choice(t) + " " + rnd.choice(PLACE_IT)
        elif r < 0.65:
            base = rnd.choice(t) + " " + sur
        elif kind in ("restaurant",):
            base = rnd.choice(t) + " da " + rnd.choice(FIRST_IT)
        else:
            base = brand + " " + rnd.choice(t)
        name = base + " di " + sur + " & C. " + legal if (legal == "S.n.c." and rnd.random() < 0.5) else base + " " + legal
    else:
        raise ValueError(country)
    if upper:
        name = name.upper()
        brand = brand.upper()
    return dict(name=name, brand=brand, legal=legal)


def reg_and_tax(rnd, country, year, upper):
    """(registration line or None, tax-id line or None) as printed."""
    reg = tax = None
    if country == "MY":
        no = nz_digits(rnd, rnd.choice([6, 7])) + "-" + letters(rnd, 1, "ADHKMPTUVWX")
        reg = rnd.choice(["(%s)" % no, "(%s)" % no, "Co. Reg. No. %s" % no, "Company No. %s" % no, "ROC No: %s" % no,
                          "Co. No: %d%s (%s)" % (rnd.randint(2000, year), digits(rnd, 8), no)])
        if year < 2018 or (year == 2018 and rnd.random() < 0.5):
            tax = rnd.choice(["GST Reg No: ", "GST ID: ", "GST No: ", "GST REG NO : ", "GST ID No: "]) + "00" + digits(rnd, 10)
        else:
            tax = rnd.choice(["SST No: ", "SST ID: ", "SST Reg No: "]) + "%s-%s-%s" % (
                rnd.choice(["W10", "B16", "J31", "P11"]), "%02d%02d" % (year % 100, rnd.randint(1, 12)), digits(rnd, 8))
    elif country == "SG":
        uen = "%d%s%s" % (rnd.randint(1995, year), digits(rnd, 5), letters(rnd, 1, "CDEGHKMNRWZ"))
        reg = rnd.choice(["Co. Reg. No. %s" % uen, "UEN: %s" % uen, "(%s)" % uen, "Co Reg No: %s" % uen])
        tax = rnd.choice(["GST Reg No: %s" % uen, "GST Reg. No. M%d-%s-%d" % (rnd.randint(2, 9), digits(rnd, 7), rnd.randint(0, 9)),
                          "GST REG NO: %s" % uen])
    elif country == "US":
        if rnd.random() < 0.3:
            tax = "Tax ID %s-%s" % (digits(rnd, 2), digits(rnd, 7))
    elif country == "UK":
        vat = "%s %s %s" % (nz_digits(rnd, 3), digits(rnd, 4), digits(rnd, 2))
        tax = rnd.choice(["VAT Reg No: GB %s" % vat, "VAT No. %s" % vat, "VAT Reg. No. GB%s" % vat.replace(" ", ""),
                          "VAT Number: %s" % vat])
        if rnd.random() < 0.5:
            reg = rnd.choice(["Company No. ", "Co. Reg. No. ", "Registered in England No. "]) + "%08d" % rnd.randint(100000, 14999999)
    elif country == "AU":
        abn = "%s %s %s %s" % (nz_digits(rnd, 2), digits(rnd, 3), digits(rnd, 3), digits(rnd, 3))
        tax = rnd.choice(["ABN %s" % abn, "ABN: %s" % abn, "A.B.N. %s" % abn])
    elif country == "IN":
        state = rnd.choice(["29", "33", "27", "07", "32", "36"])
        pan = letters(rnd, 5, "ABCDEFGHJKLMNPQRSTUVWXYZ") + digits(rnd, 4) + letters(rnd, 1)
        gstin = state + pan + rnd.choice("123") + "Z" + rnd.choice("0123456789ABCDEFGH")
        tax = rnd.choice(["GSTIN: ", "GSTIN : ", "GST No: ", "GSTIN/UIN: "]) + gstin
        if rnd.random() < 0.4:
            reg = rnd.choice(["FSSAI Lic No: ", "CIN: U%s%s%s" % (digits(rnd, 5), rnd.choice(["KA", "TN", "MH"]), year - rnd.randint(1, 20)) + "PTC" + digits(rnd, 6) + " ", "FSSAI No. "])
            if "CIN" in reg:
                reg = reg.strip()
            else:
                reg += digits(rnd, 14)
    elif country == "DE":
        tax = rnd.choice(["USt-IdNr.: DE", "USt-IdNr. DE", "UST-ID: DE", "USt-ID DE"]) + nz_digits(rnd, 9)
        if rnd.random() < 0.5:
            reg = rnd.choice(["St.-Nr. %s/%s/%s" % (digits(rnd, 2), digits(rnd, 3), digits(rnd, 5)),
                              "Steuernummer: %s/%s/%s" % (digits(rnd, 3), digits(rnd, 3), digits(rnd, 5)),
                              "HRB %s, Amtsgericht %s" % (nz_digits(rnd, 5), rnd.choice(["Köln", "München", "Hamburg", "Essen"]))])
    elif country == "CH":
        tax = rnd.choice(["MWST-Nr. CHE-", "CHE-", "UID: CHE-", "MWST CHE-"]) + "%s.%s.%s" % (digits(rnd, 3), digits(rnd, 3), digits(rnd, 3)) + rnd.choice([" MWST", " MWST", ""])
    elif country == "FR":
        siren = nz_digits(rnd, 9)
        key = rnd.randint(10, 99)
        reg = rnd.choice(["SIRET %s %s %s %s" % (siren[:3], siren[3:6], siren[6:], digits(rnd, 5)),
                          "SIRET : %s%s" % (siren, digits(rnd, 5)), "RCS %s %s" % (rnd.choice(["Paris", "Lyon", "Nantes", "Lille"]), siren)])
        tax = rnd.choice(["TVA intracom. FR%d%s" % (key, siren), "N° TVA : FR %d %s" % (key, siren), "TVA FR%d%s" % (key, siren)])
        if rnd.random() < 0.4:
            tax += "  NAF %s%s" % (digits(rnd, 4), letters(rnd, 1))
    elif country == "NL":
        reg = rnd.choice(["KvK ", "KvK-nr. ", "KVK: "]) + nz_digits(rnd, 8)
        tax = rnd.choice(["BTW ", "BTW-nr. ", "BTW nr: "]) + "NL%sB%s" % (nz_digits(rnd, 9), rnd.choice(["01", "02", "03"]))
    elif country == "IT":
        piva = nz_digits(rnd, 11)
        tax = rnd.choice(["P.IVA ", "P. IVA ", "Partita IVA ", "P.IVA: "]) + piva
        if rnd.random() < 0.4:
            reg = rnd.choice(["C.F. ", "Cod. Fisc. "]) + piva
    if upper:
        reg = reg.upper() if reg else reg
        tax = tax.upper() if tax else tax
    return reg, tax


def address(rnd, country, upper):
    """List of 2-5 address lines as printed."""
    r = rnd.random
    if country == "MY":
        city, state, pc = rnd.choice([("KUALA LUMPUR", "WILAYAH PERSEKUTUAN", "5"), ("PETALING JAYA", "SELANGOR", "47"),
                                      ("SHAH ALAM", "SELANGOR", "40"), ("JOHOR BAHRU", "JOHOR", "81"), ("IPOH", "PERAK", "30"),
                                      ("SEREMBAN", "NEGERI SEMBILAN", "70"), ("KLANG", "SELANGOR", "41"), ("MELAKA", "MELAKA", "75"),
                                      ("KUANTAN", "PAHANG", "25"), ("BUTTERWORTH", "PULAU PINANG", "13")])
        postcode = pc + digits(rnd, 5 - len(pc))
        street = rnd.choice(["JALAN", "JLN"]) + " " + rnd.choice(MALAY + ["PJU", "SS", "TUN RAZAK", "BESAR", "PASAR"]) + " " + "%d/%d" % (rnd.randint(1, 12), rnd.randint(1, 9))
        if r() < 0.4:
            street = rnd.choice(["JALAN", "JLN"]) + " " + rnd.choice(MALAY) + " " + str(rnd.randint(1, 30))
        no = rnd.choice(["NO. %d" % rnd.randint(1, 199), "NO %d" % rnd.randint(1, 99), "LOT %d" % rnd.randint(100, 9999),
                         "G-%02d" % rnd.randint(1, 40), "NO. %d-%d" % (rnd.randint(1, 60), rnd.randint(1, 3)), "PT %d" % rnd.randint(1000, 99999)])
        taman = rnd.choice(["TAMAN", "TMN", "BANDAR", "KAWASAN PERINDUSTRIAN"]) + " " + rnd.choice(MALAY) + " " + rnd.choice(MALAY + ["UTAMA", "BARU", "INDAH"])
        comma = "," if r() < 0.7 else ""
        lines = [no + ", " + street + comma, taman + comma, postcode + " " + city + comma, state + ("." if comma else "")]
        if r() < 0.25:
            lines = [no + ",", street + comma] + lines[1:]
        elif r() < 0.3:
            lines = [no + ", " + street + ", " + taman + comma, postcode + " " + city + ", " + state + ("." if comma else "")]
        elif r() < 0.25:
            lines = lines[:3]
            lines[-1] = lines[-1].rstrip(",") + ("." if comma else "")
    elif country == "SG":
        if r() < 0.6:
            lines = ["Blk %d %s" % (rnd.randint(1, 999), rnd.choice(["Ang Mo Kio Ave 6", "Tampines St 21", "Jurong West St 42",
                                                                      "Bedok North Ave 3", "Toa Payoh Lor 4", "Yishun Ring Rd",
                                                                      "Serangoon Central", "Woodlands Dr 14", "Clementi Ave 2"])),
                     "#%02d-%d" % (rnd.randint(1, 12), rnd.randint(10, 999)), "Singapore %s" % digits(rnd, 6)]
            if r() < 0.4:
                lines = [lines[0] + " " + lines[1], lines[2]]
        else:
            lines = ["%d %s" % (rnd.randint(1, 400), rnd.choice(["Orchard Road", "Joo Chiat Road", "East Coast Road", "Upper Thomson Road",
                                                                   "Tanjong Katong Road", "Bukit Timah Road", "Serangoon Road"])),
                     rnd.choice(["#01-%02d" % rnd.randint(1, 80), "#B1-%02d" % rnd.randint(1, 80)]) + " " + rnd.choice(["Plaza", "Centre", "Point", "Mall"]),
                     "Singapore %s" % digits(rnd, 6)]
    elif country == "US":
        city, st = rnd.choice([("Springfield", "IL"), ("Riverside", "CA"), ("Fairview", "OR"), ("Franklin", "TN"),
                               ("Greenville", "SC"), ("Madison", "WI"), ("Salem", "MA"), ("Georgetown", "TX"),
                               ("Oakdale", "MN"), ("Clinton", "NJ"), ("Ashland", "OH"), ("Dover", "DE")])
        street = "%d %s %s" % (rnd.randint(10, 9999), rnd.choice(["Maple", "Oak", "Main", "Elm", "Washington", "Lake", "Park",
                                                                  "Hillside", "Pine", "Cedar", "Sunset", "Lincoln"]),
                               rnd.choice(["St", "Ave", "Blvd", "Rd", "Street", "Avenue", "Dr", "Hwy"]))
        lines = [street, "%s, %s %s" % (city, st, digits(rnd, 5))]
        if r() < 0.3:
            lines.insert(1, rnd.choice(["Suite %d" % rnd.randint(100, 400), "Unit %d" % rnd.randint(1, 30)]))
    elif country == "UK":
        town = rnd.choice(["Ashford", "Kingsbridge", "Westbury", "Newport", "Bradfield", "Halton", "Milbrook",
                           "Eastleigh", "Thornbury", "Redhill", "Stanford"])
        pc = "%s%d %d%s" % (letters(rnd, 2, "ABCDEGHKLMNPRSTW"), rnd.randint(1, 29), rnd.randint(1, 9), letters(rnd, 2, "ABDEFGHJLNPQRSTUWXYZ"))
        street = "%d %s" % (rnd.randint(1, 250), rnd.choice(["High Street", "Station Road", "Church Lane", "Market Place",
                                                               "London Road", "Mill Lane", "Victoria Road", "The Parade", "Bridge Street"]))
        lines = [street, town, pc]
        if r() < 0.35:
            lines = [street, town + " " + pc]
        elif r() < 0.3:
            lines.insert(0, rnd.choice(["Unit %d" % rnd.randint(1, 20), "%s House" % rnd.choice(EN_ADJ)]))
    elif country == "AU":
        sub, stt, pc = rnd.choice([("Greenvale", "VIC", "30"), ("Parkside", "SA", "50"), ("Hillcrest", "QLD", "41"),
                                   ("Riverwood", "NSW", "22"), ("Mount Pleasant", "WA", "61"), ("Kingston", "TAS", "70"),
                                   ("Belconnen", "ACT", "26")])
        street = "%d %s" % (rnd.randint(1, 400), rnd.choice(["George St", "King St", "Smith St", "Beach Rd", "Pacific Hwy",
                                                               "Main St", "Railway Pde", "Albert St"]))
        if r() < 0.4:
            street = "Shop %d, " % rnd.randint(1, 60) + street
        lines = [street, "%s %s %s%s" % (sub, stt, pc, digits(rnd, 2))]
        if r() < 0.3:
            lines = [street, sub, "%s %s%s" % (stt, pc, digits(rnd, 2))]
    elif country == "IN":
        city, stt, pc = rnd.choice([("Bengaluru", "Karnataka", "560"), ("Chennai", "Tamil Nadu", "600"), ("Mumbai", "Maharashtra", "400"),
                                    ("Pune", "Maharashtra", "411"), ("Hyderabad", "Telangana", "500"), ("Kochi", "Kerala", "682"),
                                    ("New Delhi", "Delhi", "110")])
        lines = ["No. %d, %s" % (rnd.randint(1, 400), rnd.choice(["MG Road", "1st Main Road", "2nd Cross", "Gandhi Nagar",
                                                                   "Station Road", "Temple Street", "Nehru Street", "100 Feet Road"])),
                 rnd.choice(["Jayanagar", "Koramangala", "T. Nagar", "Anna Nagar", "Andheri East", "Kothrud", "Banjara Hills",
                             "Indiranagar", "Vashi", "Edappally"]),
                 "%s - %s%s" % (city, pc, digits(rnd, 3))]
        if r() < 0.4:
            lines.append(stt)
        if r() < 0.3:
            lines = [lines[0] + ", " + lines[1]] + lines[2:]
    elif country in ("DE", "CH"):
        ss = "ss" if country == "CH" else "ß"
        street = "%s %d" % (rnd.choice(["Hauptstra" + ss + "e", "Bahnhofstra" + ss + "e", "Marktplatz", "Lindenallee",
                                        "Schulstra" + ss + "e", "Gartenweg", "Am Rathaus", "Kirchgasse", "Industriestra" + ss + "e",
                                        "Seestra" + ss + "e", "Dorfstra" + ss + "e", "Ringstra" + ss + "e"]), rnd.randint(1, 120))
        if r() < 0.15:
            street += rnd.choice(["a", "b", "-3"])
        if country == "DE":
            town = rnd.choice(["Ober", "Nieder", "Neu", "Alt", "Groß", "Wald", "Berg", "Stein", "Rosen", "Linden", "Eichen"]) + \
                rnd.choice(["dorf", "heim", "hausen", "feld", "bach", "burg", "stadt", "au", "berg", "ingen", "hofen"])
            if r() < 0.4:
                town = rnd.choice(["Köln", "München", "Hamburg", "Leipzig", "Dortmund", "Nürnberg", "Bremen", "Hannover", "Mannheim"])
            plz = nz_digits(rnd, 5)
        else:
            town = rnd.choice(["Zürich", "Bern", "Basel", "Luzern", "Winterthur", "St. Gallen", "Aarau", "Zug", "Thun", "Olten"])
            plz = nz_digits(rnd, 4)
            if r() < 0.3:
                plz = "CH-" + plz
        lines = [street, "%s %s" % (plz, town)]
        if r() < 0.2:
            lines.insert(0, rnd.choice(["Einkaufszentrum " + rnd.choice(EN_ADJ), "Filiale " + town.split()[0], "im Bahnhof"]))
    elif country == "FR":
        town, dep = rnd.choice([("Paris", "75"), ("Lyon", "69"), ("Nantes", "44"), ("Lille", "59"), ("Rennes", "35"),
                                ("Bordeaux", "33"), ("Toulouse", "31"), ("Dijon", "21"), ("Angers", "49"), ("Tours", "37")])
        if r() < 0.3:
            town = rnd.choice(["Saint-", "Sainte-", "Villeneuve-", "Montreuil-", "Bourg-"]) + rnd.choice(["Martin", "Marie", "Pierre", "Laurent", "sur-Loire"])
        lines = ["%d%s %s" % (rnd.randint(1, 180), rnd.choice(["", "", " bis"]),
                              rnd.choice(["rue de la République", "avenue Victor Hugo", "rue du Général Leclerc", "boulevard Jean Jaurès",
                                          "rue de la Gare", "place du Marché", "rue Pasteur", "avenue des Lilas", "rue Nationale"])),
                 "%s%s %s" % (dep, digits(rnd, 3), town)]
        if r() < 0.25:
            lines.insert(0, rnd.choice(["Centre commercial %s" % rnd.choice(["Les Arcades", "du Lac", "Grand Ouest"]), "ZAC des Pins"]))
    elif country == "NL":
        town = rnd.choice(["Amsterdam", "Utrecht", "Zwolle", "Haarlem", "Amersfoort", "Leiden", "Groningen", "Breda", "Tilburg", "Delft"])
        lines = ["%s %d%s" % (rnd.choice(["Kerkstraat", "Dorpsstraat", "Stationsweg", "Molenweg", "Marktplein", "Julianastraat",
                                          "Nieuwstraat", "Hoofdstraat", "Lange Voorhout"]), rnd.randint(1, 200), rnd.choice(["", "", "a", "-3"])),
                 "%s %s %s" % (nz_digits(rnd, 4), letters(rnd, 2, "ABCDEGHJKLMNPRSTVWXZ"), town)]
        if r() < 0.4:
            lines[1] = lines[1].replace(" " + town, "  " + town).replace("  ", " ")
    elif country == "IT":
        town, pr = rnd.choice([("Roma", "RM"), ("Milano", "MI"), ("Torino", "TO"), ("Bologna", "BO"), ("Firenze", "FI"),
                               ("Napoli", "NA"), ("Verona", "VR"), ("Bari", "BA"), ("Padova", "PD"), ("Genova", "GE")])
        lines = ["%s %s, %d" % (rnd.choice(["Via", "Corso", "Viale", "Piazza"]),
                                rnd.choice(["Roma", "Garibaldi", "Mazzini", "Cavour", "Dante", "Vittorio Emanuele II",
                                            "XX Settembre", "Matteotti", "della Repubblica"]), rnd.randint(1, 200)),
                 "%s%s %s (%s)" % (nz_digits(rnd, 2), digits(rnd, 3), town, pr)]
        if r() < 0.3:
            lines[1] = lines[1].replace(" (%s)" % pr, " %s" % pr)
    else:
        raise ValueError(country)
    if upper:
        lines = [ln.upper() for ln in lines]
    return lines


def phone(rnd, country):
    return {
        "MY": lambda: rnd.choice(["03-%s %s" % (digits(rnd, 4), digits(rnd, 4)), "07-%s %s" % (digits(rnd, 3), digits(rnd, 4)),
                                  "04-%s %s" % (digits(rnd, 3), digits(rnd, 4)), "012-%s %s" % (digits(rnd, 3), digits(rnd, 4)),
                                  "603-%s%s" % (digits(rnd, 4), digits(rnd, 4))]),
        "SG": lambda: rnd.choice(["6%s %s" % (digits(rnd, 3), digits(rnd, 4)), "+65 6%s %s" % (digits(rnd, 3), digits(rnd, 4))]),
        "US": lambda: rnd.choice(["(%s) 555-01%s" % (nz_digits(rnd, 3), digits(rnd, 2)), "%s-555-01%s" % (nz_digits(rnd, 3), digits(rnd, 2))]),
        "UK": lambda: rnd.choice(["01632 960%s" % digits(rnd, 3), "020 7946 0%s" % digits(rnd, 3), "0113 496 0%s" % digits(rnd, 3)]),
        "AU": lambda: rnd.choice(["(0%d) 5550 %s" % (rnd.choice([2, 3, 7, 8]), digits(rnd, 4)), "0%d 5550 %s" % (rnd.choice([2, 3, 7]), digits(rnd, 4))]),
        "IN": lambda: rnd.choice(["0%s-%s" % (nz_digits(rnd, 2), digits(rnd, 8)), "+91 9%s %s" % (digits(rnd, 4), digits(rnd, 5)),
                                  "9%s%s" % (digits(rnd, 4), digits(rnd, 5))]),
        "DE": lambda: rnd.choice(["0%s %s" % (nz_digits(rnd, rnd.randint(2, 4)), digits(rnd, 6)), "0%s / %s" % (nz_digits(rnd, 3), digits(rnd, 6)),
                                  "0%s-%s" % (nz_digits(rnd, 3), digits(rnd, 5))]),
        "CH": lambda: "0%s %s %s %s" % (nz_digits(rnd, 2), digits(rnd, 3), digits(rnd, 2), digits(rnd, 2)),
        "FR": lambda: "0%d %s %s %s %s" % (rnd.randint(1, 5), digits(rnd, 2), digits(rnd, 2), digits(rnd, 2), digits(rnd, 2)),
        "NL": lambda: rnd.choice(["0%s-%s" % (nz_digits(rnd, 2), digits(rnd, 7)), "0%s %s" % (nz_digits(rnd, 2), digits(rnd, 7))]),
        "IT": lambda: "0%s %s" % (nz_digits(rnd, rnd.randint(1, 3)), digits(rnd, rnd.randint(6, 7))),
    }[country]()


TLD = {"MY": ".com.my", "SG": ".com.sg", "US": ".com", "UK": ".co.uk", "AU": ".com.au", "IN": ".in",
       "DE": ".de", "CH": ".ch", "FR": ".fr", "NL": ".nl", "IT": ".it"}


def web_slug(name):
    words = []
    for w in name.lower().replace("&", " ").replace("'", "").split():
        w = "".join(c for c in w if c.isalnum())
        if w in ("", "sdn", "bhd", "pte", "ltd", "gmbh", "sarl", "srl", "bv", "inc", "llc", "pty", "pvt", "the", "ag",
                 "sas", "snc", "sa", "eurl", "vof", "spa", "sas", "co", "kg", "ek", "ohg", "plc", "limited", "private", "ug",
                 "haftungsbeschränkt", "llp", "corp", "di", "c", "ent", "de", "du", "la", "le", "des", "da", "del",
                 "della", "van", "het", "am", "an", "der", "im", "and", "of", "s"):
            continue
        words.append(w)
    s = "".join(words[:2]) or "shop"
    table = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "é": "e", "è": "e", "ê": "e", "à": "a",
                           "ç": "c", "ë": "e", "ï": "i", "ô": "o", "ù": "u", "ì": "i", "â": "a", "î": "i", "û": "u"})
    return s.translate(table)[:20]


# -------------------------------------------------------------------------------- items
#
# Catalogue rows: en|de|fr|nl|it|base price (EUR/USD-ish)|tax class
# tax class: f = basic food (reduced / zero rate), s = standard, d = alcohol (standard),
#            m = medicine (reduced in some countries)

CATALOG = {
    "grocery": """Whole Milk 1L|Vollmilch 1L|Lait entier 1L|Volle melk 1L|Latte intero 1L|1.19|f
White Bread 400g|Toastbrot 400g|Pain de mie 400g|Wit brood 400g|Pane in cassetta|1.49|f
Free Range Eggs 10|Freilandeier 10er|Oeufs plein air x10|Scharreleieren 10st|Uova fresche x10|2.79|f
Butter 250g|Butter 250g|Beurre doux 250g|Roomboter 250g|Burro 250g|2.29|f
Mature Cheddar 200g|Gouda jung 200g|Emmental râpé 200g|Jonge kaas 200g|Parmigiano 200g|2.99|f
Natural Yoghurt 500g|Naturjoghurt 500g|Yaourt nature x4|Yoghurt naturel 1L|Yogurt bianco 500g|1.09|f
Orange Juice 1L|Orangensaft 1L|Jus d'orange 1L|Sinaasappelsap 1L|Succo d'arancia 1L|1.89|f
Mineral Water 1.5L|Mineralwasser 1,5L|Eau minérale 1,5L|Mineraalwater 1,5L|Acqua naturale 1,5L|0.59|s
Spaghetti 500g|Spaghetti 500g|Spaghetti 500g|Spaghetti 500g|Spaghetti n.5 500g|0.99|f
Long Grain Rice 1kg|Langkornreis 1kg|Riz long 1kg|Langkorrelrijst 1kg|Riso Arborio 1kg|1.79|f
Chopped Tomatoes 400g|Tomaten gehackt 400g|Tomates concassées|Tomatenblokjes 400g|Passata di pomodoro|0.89|f
Chicken Breast 500g|Hähnchenbrust 500g|Filet de poulet 500g|Kipfilet 500g|Petto di pollo 500g|5.49|f
Beef Mince 500g|Rinderhack 500g|Boeuf haché 500g|Rundergehakt 500g|Macinato di manzo|4.99|f
Coffee Beans 500g|Kaffee Bohnen 500g|Café en grains 500g|Koffiebonen 500g|Caffè in grani 500g|6.99|f
Black Tea 40 bags|Schwarzer Tee 40St|Thé noir 40 sachets|Zwarte thee 40st|Tè nero 40 filtri|1.59|f
Washing-up Liquid|Spülmittel 500ml|Liquide vaisselle|Afwasmiddel 500ml|Detersivo piatti|1.29|s
Toilet Tissue 9 Roll|Toilettenpapier 8er|Papier toilette x8|Toiletpapier 8 rol|Carta igienica x8|3.49|s
Crisps Sea Salt 150g|Kartoffelchips 150g|Chips nature 150g|Chips naturel 150g|Patatine 150g|1.39|s
Dark Chocolate 100g|Zartbitterschokolade|Chocolat noir 100g|Pure chocolade 100g|Cioccolato fondente|1.19|f
Olive Oil 750ml|Olivenöl 750ml|Huile d'olive 75cl|Olijfolie 750ml|Olio EVO 750ml|5.99|f
Cornflakes 375g|Cornflakes 375g|Corn flakes 375g|Cornflakes 375g|Corn flakes 375g|2.19|f
Frozen Peas 1kg|TK Erbsen 1kg|Petits pois surgelés|Diepvries erwten|Piselli surgelati|1.99|f
Red Wine 75cl|Rotwein trocken 0,75L|Vin rouge 75cl|Rode wijn 75cl|Vino rosso 75cl|4.99|d
Lager 4x440ml|Pils 6x0,33L|Bière blonde 6x25cl|Pils 6x33cl|Birra 3x33cl|4.49|d
Shampoo 400ml|Shampoo 300ml|Shampooing 300ml|Shampoo 300ml|Shampoo 250ml|2.49|s
Sugar 1kg|Zucker 1kg|Sucre en poudre 1kg|Suiker 1kg|Zucchero 1kg|0.99|f
Plain Flour 1.5kg|Weizenmehl 1kg|Farine T55 1kg|Bloem 1kg|Farina 00 1kg|0.79|f
Apple Juice 1L|Apfelsaft 1L|Jus de pomme 1L|Appelsap 1L|Succo di mela 1L|1.29|f
Tuna Chunks 160g|Thunfisch 185g|Thon naturel 140g|Tonijn 160g|Tonno 160g|1.69|f
Kitchen Roll 2pk|Küchenrolle 2er|Essuie-tout x2|Keukenrol 2st|Scottex 2 rotoli|1.79|s
Bin Bags 20|Müllbeutel 20St|Sacs poubelle x20|Vuilniszakken 20st|Sacchi rifiuti 20pz|1.99|s
Carrier Bag|Tragetasche|Sac cabas|Draagtas|Shopper|0.20|s""",
    "weighed": """Bananas|Bananen|Bananes|Bananen|Banane|1.69|f
Apples Gala|Äpfel Gala|Pommes Gala|Appels Elstar|Mele Golden|2.49|f
Tomatoes|Tomaten|Tomates grappe|Tomaten|Pomodori|2.99|f
Potatoes|Kartoffeln|Pommes de terre|Aardappelen|Patate|1.29|f
Grapes White|Trauben hell|Raisin blanc|Druiven wit|Uva bianca|3.99|f
Onions|Zwiebeln|Oignons|Uien|Cipolle|1.49|f
Carrots|Karotten|Carottes|Wortelen|Carote|1.19|f
Cheese Counter|Käse Theke|Comté coupe|Kaas van de plank|Formaggio al taglio|14.90|f""",
    "restaurant": """Tomato Soup|Tomatensuppe|Soupe à la tomate|Tomatensoep|Zuppa di pomodoro|5.50|f
Caesar Salad|Caesar Salat|Salade César|Caesarsalade|Insalata Caesar|9.50|f
Cheeseburger|Cheeseburger|Burger maison|Hamburger|Hamburger|12.90|f
Grilled Salmon|Lachsfilet|Pavé de saumon|Zalmfilet|Salmone alla griglia|18.50|f
Steak Frites|Rumpsteak|Entrecôte frites|Biefstuk|Tagliata di manzo|22.00|f
Margherita Pizza|Pizza Margherita|Pizza Margherita|Pizza Margherita|Pizza Margherita|8.50|f
Spaghetti Carbonara|Spaghetti Carbonara|Spaghetti carbonara|Spaghetti carbonara|Spaghetti alla carbonara|11.00|f
Fries|Pommes frites|Frites|Friet|Patatine fritte|3.50|f
Tiramisu|Tiramisu|Tiramisu|Tiramisu|Tiramisù|5.50|f
Ice Cream Sundae|Eisbecher|Coupe glacée|IJscoupe|Coppa gelato|4.50|f
Cola 0.33|Cola 0,33l|Soda 33cl|Cola|Bibita 33cl|2.80|s
Sparkling Water|Mineralwasser 0,5l|Eau gazeuse 50cl|Bruisend water|Acqua frizzante|2.50|s
House Wine Glass|Hauswein 0,2l|Verre de vin rouge|Huiswijn glas|Calice vino rosso|5.00|d
Draught Beer|Pils 0,4l|Demi pression|Tapbier|Birra alla spina|4.20|d
Espresso|Espresso|Café expresso|Espresso|Caffè|1.80|f
Cappuccino|Cappuccino|Cappuccino|Cappuccino|Cappuccino|2.90|f
Schnitzel|Wiener Schnitzel|Escalope milanaise|Schnitzel|Cotoletta alla milanese|16.50|f
Mixed Grill|Grillteller|Assiette mixte grill|Mixed grill|Grigliata mista|19.90|f
Garlic Bread|Knoblauchbrot|Pain à l'ail|Knoflookbrood|Bruschetta|4.00|f
Side Salad|Beilagensalat|Salade verte|Salade|Insalata mista|3.90|f""",
    "cafe": """Espresso|Espresso|Café|Espresso|Caffè|1.80|f
Cappuccino|Cappuccino|Cappuccino|Cappuccino|Cappuccino|2.90|f
Latte|Latte Macchiato|Café crème|Koffie verkeerd|Caffè latte|3.20|f
Tea|Tee|Thé|Thee|Tè caldo|2.20|f
Hot Chocolate|Heiße Schokolade|Chocolat chaud|Warme chocolademelk|Cioccolata calda|3.40|f
Croissant|Croissant|Croissant|Croissant|Cornetto|1.60|f
Pain au Chocolat|Schokocroissant|Pain au chocolat|Chocoladebroodje|Cornetto al cioccolato|1.90|f
Cheesecake|Käsekuchen|Cheesecake|Kwarktaart|Cheesecake|3.80|f
Apple Pie|Apfelstrudel|Tarte aux pommes|Appeltaart|Strudel di mele|3.90|f
Ham Cheese Toastie|Schinken-Käse-Toast|Croque-monsieur|Tosti ham-kaas|Toast prosciutto|4.50|f
Bagel Cream Cheese|Laugenbrezel|Baguette tradition|Krentenbol|Panino al prosciutto|2.40|f
Orange Juice|Orangensaft 0,2l|Jus d'orange pressé|Verse jus|Spremuta d'arancia|3.00|f
Muffin|Muffin|Muffin|Muffin|Muffin|2.50|f
Brownie|Brownie|Brownie|Brownie|Brownie|2.80|f
Sourdough Loaf|Bauernbrot 1kg|Pain de campagne|Zuurdesembrood|Pane casereccio|3.90|f
Bread Rolls x6|Brötchen 6 St.|Baguette x2|Kaiserbroodjes 6st|Rosette x6|2.10|f""",
    "hardware": """Wood Screws 4x40 100pc|Holzschrauben 4x40 100St|Vis bois 4x40 x100|Houtschroeven 4x40|Viti legno 4x40 100pz|4.99|s
Wall Plugs 8mm 50pc|Dübel 8mm 50St|Chevilles 8mm x50|Pluggen 8mm 50st|Tasselli 8mm 50pz|3.49|s
Masking Tape 30mm|Malerkrepp 30mm|Ruban de masquage|Afplaktape 30mm|Nastro carta 30mm|2.29|s
Paint Brush 50mm|Flachpinsel 50mm|Pinceau plat 50mm|Kwast 50mm|Pennello 50mm|3.99|s
Wall Paint White 10L|Wandfarbe weiß 10L|Peinture blanche 10L|Muurverf wit 10L|Idropittura 10L|39.99|s
Cable Ties 200mm|Kabelbinder 200mm|Colliers serrage|Tiewraps 200mm|Fascette 200mm|2.99|s
Extension Lead 3m|Verlängerung 3m|Rallonge 3m|Verlengsnoer 3m|Prolunga 3m|8.99|s
LED Bulb E27 9W|LED Lampe E27 9W|Ampoule LED E27|LED lamp E27 9W|Lampadina LED E27|3.49|s
Silicone Sealant|Silikon transparent|Mastic silicone|Siliconenkit|Silicone trasparente|5.99|s
Sandpaper P120 5pc|Schleifpapier K120|Papier abrasif P120|Schuurpapier P120|Carta abrasiva P120|2.49|s
Claw Hammer 500g|Hammer 500g|Marteau 500g|Klauwhamer 500g|Martello 500g|11.99|s
Drill Bit Set 10pc|Bohrer-Set 10tlg|Coffret forets|Borenset 10dlg|Set punte 10pz|14.99|s
Spirit Level 60cm|Wasserwaage 60cm|Niveau 60cm|Waterpas 60cm|Livella 60cm|9.99|s
Garden Hose 20m|Gartenschlauch 20m|Tuyau arrosage 20m|Tuinslang 20m|Tubo giardino 20m|19.99|s
Work Gloves|Arbeitshandschuhe|Gants de travail|Werkhandschoenen|Guanti da lavoro|4.49|s
Padlock 40mm|Vorhängeschloss 40mm|Cadenas 40mm|Hangslot 40mm|Lucchetto 40mm|7.99|s
Tape Measure 5m|Maßband 5m|Mètre ruban 5m|Rolmaat 5m|Metro 5m|6.49|s
Batteries AA 4pk|Batterien AA 4er|Piles AA x4|Batterijen AA 4st|Pile AA 4pz|3.99|s
Door Hinge 75mm|Scharnier 75mm|Charnière 75mm|Scharnier 75mm|Cerniera 75mm|2.79|s
Multi Spray 400ml|Kriechöl 400ml|Dégrippant 400ml|Kruipolie 400ml|Sbloccante 400ml|4.99|s
Cordless Drill 18V|Akku-Bohrschrauber 18V|Perceuse sans fil 18V|Accuboormachine 18V|Trapano avvitatore 18V|129.00|s
Pressure Washer|Hochdruckreiniger|Nettoyeur haute pression|Hogedrukreiniger|Idropulitrice|249.00|s
Aluminium Ladder 3m|Alu-Leiter 3m|Echelle alu 3m|Aluminium ladder 3m|Scala alluminio 3m|119.00|s""",
    "pharmacy": """Paracetamol 500mg 16|Paracetamol 500mg 20St|Paracétamol 500mg|Paracetamol 500mg 20st|Paracetamolo 500mg|1.99|m
Ibuprofen 200mg 24|Ibuprofen 400mg 20St|Ibuprofène 200mg|Ibuprofen 200mg 24st|Ibuprofene 200mg|2.49|m
Vitamin C 1000mg 30|Vitamin C 1000mg|Vitamine C 1000mg|Vitamine C 1000mg|Vitamina C 1000mg|5.99|s
Cough Syrup 100ml|Hustensaft 100ml|Sirop toux 100ml|Hoestdrank 100ml|Sciroppo tosse|6.49|m
Plasters Assorted 20|Pflaster Strips 20St|Pansements x20|Pleisters 20st|Cerotti assortiti|2.99|s
Hand Cream 75ml|Handcreme 75ml|Crème mains 75ml|Handcrème 75ml|Crema mani 75ml|3.49|s
Sun Lotion SPF50|Sonnenmilch LSF 50|Crème solaire SPF50|Zonnebrand SPF50|Crema solare SPF50|8.99|s
Toothpaste 75ml|Zahnpasta 75ml|Dentifrice 75ml|Tandpasta 75ml|Dentifricio 75ml|1.99|s
Toothbrush Medium|Zahnbürste mittel|Brosse à dents|Tandenborstel|Spazzolino medio|1.49|s
Antiseptic Cream 30g|Wundsalbe 20g|Crème antiseptique|Wondzalf 30g|Crema antisettica|3.99|m
Nasal Spray 10ml|Nasenspray 10ml|Spray nasal 10ml|Neusspray 10ml|Spray nasale 10ml|4.49|m
Throat Lozenges 24|Halstabletten 24St|Pastilles gorge|Keeltabletten 24st|Pastiglie gola|4.99|m
Digital Thermometer|Fieberthermometer|Thermomètre digital|Thermometer digitaal|Termometro digitale|7.99|s
Allergy Tablets 30|Allergietabletten 20|Anti-allergique|Allergietabletten|Antistaminico 20cpr|5.49|m
Cotton Pads 80|Wattepads 80St|Cotons démaquillants|Wattenschijfjes 80|Dischetti cotone 80|1.29|s
Zinc Tablets 60|Zink Tabletten 60St|Zinc 60 comprimés|Zink tabletten 60|Zinco 60 compresse|4.99|s""",
    "petrol_shop": """Screenwash 5L|Scheibenreiniger 5L|Lave-glace 5L|Ruitensproeiervl. 5L|Liquido tergicristalli|4.99|s
Coffee To Go|Kaffee to go|Café à emporter|Koffie to go|Caffè da asporto|2.20|f
Chocolate Bar|Schokoriegel|Barre chocolatée|Chocoladereep|Barretta cioccolato|1.29|f
Sandwich|Belegtes Brötchen|Sandwich jambon|Broodje kaas|Panino|3.49|f
Car Wash Premium|Autowäsche Premium|Lavage auto|Autowas premium|Autolavaggio|9.90|s
Water 0.5L|Wasser 0,5L|Eau 50cl|Water 0,5L|Acqua 0,5L|1.49|s
Motor Oil 1L|Motoröl 1L|Huile moteur 1L|Motorolie 1L|Olio motore 1L|12.99|s""",
}

# country-specific menus / shelves: name|local price|tax class
LOCAL = {
    ("MY", "grocery"): """GULA PASIR 1KG|2.85|f
BERAS WANGI 5KG|21.90|f
MINYAK MASAK 2KG|10.30|s
TEPUNG GANDUM 1KG|2.70|f
TELUR AYAM GRED A 10S|4.20|f
ROTI PUTIH 400G|3.10|f
SUSU SEGAR 1L|7.50|f
MEE KUNING 500G|2.30|f
KICAP MANIS 325ML|3.20|s
SARDIN 155G|4.60|s
BISKUT KRIM 300G|5.50|s
AIR MINERAL 1.5L|1.80|s
SABUN BASUH 2KG|13.90|s
TISU MUKA 4X150|9.90|s
KOPI O 3IN1 20S|11.50|s
MEGGI KARI 5X79G|4.90|s
BAWANG MERAH 500G|3.50|f
IKAN BILIS 200G|8.90|f""",
    ("MY", "restaurant"): """NASI LEMAK AYAM|9.50|s
ROTI CANAI|1.50|s
TEH TARIK|2.20|s
KOPI O AIS|2.00|s
MEE GORENG MAMAK|7.50|s
NASI GORENG KAMPUNG|8.50|s
CHAR KUEY TEOW|8.00|s
CHICKEN RICE|7.90|s
CURRY LAKSA|9.90|s
TEH O AIS LIMAU|2.80|s
ROTI TELUR|2.50|s
NASI KANDAR|11.00|s
ABC SPECIAL|6.50|s
MILK TEA ICED|4.90|s
FRIED WANTAN 6PCS|6.00|s""",
    ("SG", "restaurant"): """Chicken Rice Set|6.50|s
Kaya Toast Set|5.20|s
Kopi C|1.80|s
Teh Peng|2.20|s
Bak Chor Mee|5.50|s
Fishball Noodle Soup|5.00|s
Sambal Kangkong|8.00|s
Cereal Prawns (M)|22.00|s
Salted Egg Chicken|16.00|s
Fried Rice w Egg|7.50|s
Lime Juice|2.50|s
Tiger Prawn Noodles|12.80|s
Steamed Rice|1.00|s""",
    ("IN", "restaurant"): """Masala Dosa|90.00|f
Idli Vada|70.00|f
Paneer Butter Masala|240.00|f
Dal Makhani|190.00|f
Butter Naan|55.00|f
Jeera Rice|150.00|f
Veg Biryani|210.00|f
Masala Chai|30.00|f
Filter Coffee|35.00|f
Gulab Jamun (2 pc)|60.00|f
Sweet Lassi|80.00|f
Veg Manchurian|180.00|f
Tandoori Roti|25.00|f
Mineral Water 1L|20.00|f""",
    ("IN", "grocery"): """Basmati Rice 5kg|545.00|f
Toor Dal 1kg|142.00|f
Atta 5kg|245.00|f
Sunflower Oil 1L|165.00|d
Paneer 200g|90.00|f
Curd 400g|45.00|f
Tea Powder 250g|130.00|f
Marie Biscuits 250g|35.00|d
Ghee 500ml|310.00|d
Sugar 1kg|46.00|f
Detergent Powder 1kg|120.00|s
Bath Soap 4x100g|160.00|s
Toothpaste 150g|98.00|s
Poha 500g|38.00|f
Masala Pack 100g|55.00|d""",
    ("US", "restaurant"): """Pancake Stack|9.49|s
Bacon & Eggs|10.99|s
Club Sandwich|12.50|s
Cheeseburger Deluxe|13.99|s
French Fries|3.99|s
Coffee|2.49|s
Iced Tea|2.79|s
Apple Pie|4.99|s
Chocolate Shake|5.49|s
Buffalo Wings 10pc|11.99|s
Caesar Salad|9.99|s
Soup of the Day|5.49|s
Fountain Drink|2.29|s
BLT Sandwich|9.79|s""",
    ("AU", "cafe"): """Flat White|4.80|s
Long Black|4.20|s
Cappuccino Lg|5.30|s
Chai Latte|5.50|s
Smashed Avo Toast|18.50|s
Banana Bread|6.50|s
Big Breakfast|24.00|s
Sausage Roll|5.90|s
Beef Pie|6.90|s
Fresh OJ|6.00|s
Bacon & Egg Roll|11.00|s
Iced Latte|6.20|s""",
    ("MY", "hardware"): """PVC PIPE 1/2" X 20FT|9.80|s
CEMENT 50KG|19.50|s
WOOD SCREW 1" (100PCS)|4.50|s
PAINT BRUSH 2"|3.80|s
EMULSION PAINT WHITE 5L|45.90|s
CABLE TIE 8" 100PCS|5.20|s
MASKING TAPE 1"|2.60|s
PADLOCK 40MM|12.90|s
LED BULB 13W E27|8.90|s
EXTENSION SOCKET 4-WAY|24.90|s
SILICONE SEALANT CLEAR|8.50|s
HOSE CLIP 1/2"|1.20|s
SANDPAPER #120|1.00|s
WIRE NAIL 2" 1KG|6.80|s
SPRAY PAINT BLACK|7.90|s
CORDLESS DRILL 18V|329.00|s
INSTANT WATER HEATER|459.00|s
CEILING FAN 56"|289.00|s""",
}

FUELS = {
    "MY": [("RON95", "2.05", 2, "L"), ("RON97", "3.47", 2, "L"), ("DIESEL", "2.15", 2, "L")],
    "SG": [("Petrol 95", "2.69", 2, "L"), ("Petrol 98", "3.18", 2, "L"), ("Diesel", "2.38", 2, "L")],
    "US": [("Regular", "3.459", 3, "GAL"), ("Unleaded Plus", "3.799", 3, "GAL"), ("Premium", "4.099", 3, "GAL"), ("Diesel", "3.899", 3, "GAL")],
    "UK": [("Unleaded", "1.459", 3, "L"), ("Diesel", "1.529", 3, "L"), ("Super Unleaded", "1.619", 3, "L")],
    "AU": [("ULP 91", "1.859", 3, "L"), ("Premium 95", "2.019", 3, "L"), ("Diesel", "1.949", 3, "L"), ("E10", "1.829", 3, "L")],
    "IN": [("Petrol", "101.94", 2, "L"), ("Diesel", "87.89", 2, "L"), ("Speed Petrol", "108.45", 2, "L")],
    "DE": [("Super E10", "1.739", 3, "l"), ("Super E5", "1.799", 3, "l"), ("Diesel", "1.659", 3, "l"), ("Super Plus", "1.889", 3, "l")],
    "CH": [("Bleifrei 95", "1.89", 2, "l"), ("Diesel", "1.95", 2, "l"), ("Bleifrei 98", "1.99", 2, "l")],
    "FR": [("SP95-E10", "1.819", 3, "L"), ("Gazole", "1.739", 3, "L"), ("SP98", "1.899", 3, "L")],
    "NL": [("Euro 95 E10", "2.049", 3, "L"), ("Diesel", "1.789", 3, "L")],
    "IT": [("Benzina", "1.859", 3, "L"), ("Gasolio", "1.769", 3, "L")],
}

PRICE_FACTOR = {"USD": D("1"), "EUR": D("1"), "GBP": D("0.85"), "AUD": D("1.5"), "SGD": D("1.4"), "MYR": D("3.6"),
                "INR": D("60"), "CHF": D("1.5")}
LANG_COL = {"en": 0, "de": 1, "fr": 2, "nl": 3, "it": 4}


def _parse_catalog(text):
    rows = []
    for ln in text.strip().splitlines():
        p = ln.split("|")
        rows.append((p[:5], D(p[5]), p[6]))
    return rows


def _parse_local(text):
    rows = []
    for ln in text.strip().splitlines():
        name, price, cls = ln.split("|")
        rows.append(([name] * 5, D(price), cls))
    return rows


def nice_price(rnd, base, currency):
    """A believable shelf price near base (already in local currency)."""
    v = base * D(str(rnd.uniform(0.8, 1.25)))
    if currency == "INR":
        return D(int(v)).quantize(D("1")) + ZERO if v > 20 else q2(v)
    if currency in ("CHF", "MYR"):
        return max(D("0.05"), (v * 20).quantize(D("1")) / 20).quantize(D("0.01"))
    whole = int(v)
    cents = rnd.choice(["99", "49", "29", "79", "95", "50", "00", "89", "19", "%02d" % rnd.randint(0, 99)])
    if whole == 0:
        cents = rnd.choice(["49", "59", "79", "89", "99", "35"])
    return D("%d.%s" % (whole, cents))


def catalog(country, kind, lang):
    """List of (name, local base price or None, tax class); prices are scaled later."""
    rows = []
    local_key = (country, kind if kind != "cafe" or country == "AU" else "restaurant")
    if (country, kind) in LOCAL:
        rows += [(n[0], p, c, True) for n, p, c in _parse_local(LOCAL[(country, kind)])]
    elif local_key in LOCAL and country in ("MY", "SG", "IN") and kind == "cafe":
        rows += [(n[0], p, c, True) for n, p, c in _parse_local(LOCAL[local_key])]
    if not rows or country in ("MY", "SG") and kind in ("grocery",) or country == "US" and kind == "cafe":
        src = "petrol_shop" if kind == "petrol" else kind
        rows += [(n[LANG_COL[lang]], p, c, False) for n, p, c in _parse_catalog(CATALOG[src])]
    return rows


def weighed_catalog(lang):
    return [(n[LANG_COL[lang]], p, c) for n, p, c in _parse_catalog(CATALOG["weighed"])]


def ean(rnd):
    body = rnd.choice(["20", "40", "50", "60", "80", "95"]) + digits(rnd, 10)
    s = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body))
    return body + str((10 - s % 10) % 10)


def make_items(rnd, country, kind, lang, currency, n, upper, weighed=0.0, fuel=False):
    """Returns list of item dicts: name, qty (Decimal), unit (Decimal), places (unit price places),
    total (Decimal), cls, code, weighed/fuel flags, uom."""
    cat = catalog(country, kind, lang)
    rnd.shuffle(cat)
    items = []
    if fuel:
        grade, price, places, uom = rnd.choice(FUELS[country])
        vol = D(str(round(rnd.uniform(8, 55) if uom != "GAL" else rnd.uniform(3, 16), 3 if uom == "GAL" else 2)))
        unit = D(price)
        items.append(dict(name=grade.upper() if upper else grade, qty=vol, unit=unit, places=places, total=q2(vol * unit),
                          cls="s", code=None, weighed=False, fuel=True, uom=uom,
                          pump=rnd.randint(1, 12)))
        n = max(0, n - 1)
    for i in range(n):
        if weighed and rnd.random() < weighed:
            name, base, cls = rnd.choice(weighed_catalog(lang))
            if any(it["name"].lower() == name.lower() for it in items):
                continue
            unit = nice_price(rnd, base * PRICE_FACTOR[currency], currency)
            kg = D(str(round(rnd.uniform(0.12, 2.4), 3)))
            items.append(dict(name=name.upper() if upper else name, qty=kg, unit=unit, places=2, total=q2(kg * unit),
                              cls=cls, code=digits(rnd, 4) if rnd.random() < 0.5 else ean(rnd), weighed=True, fuel=False,
                              uom="kg"))
            continue
        name, base, cls, local = cat[i % len(cat)]
        price = base if local else base * PRICE_FACTOR[currency]
        unit = nice_price(rnd, price, currency) if not local else (
            price if rnd.random() < 0.7 else nice_price(rnd, price, currency))
        r = rnd.random()
        if kind in ("restaurant", "cafe"):
            qty = 1 if r < 0.55 else (2 if r < 0.85 else rnd.randint(3, 6))
        elif kind == "hardware":
            qty = 1 if r < 0.5 else (2 if r < 0.75 else rnd.choice([3, 4, 5, 6, 10, 12, 20]))
        else:
            qty = 1 if r < 0.7 else (2 if r < 0.9 else rnd.randint(3, 6))
        qty = D(qty)
        items.append(dict(name=name.upper() if upper else name, qty=qty, unit=unit, places=2, total=q2(qty * unit),
                          cls=cls, code=ean(rnd) if rnd.random() < 0.6 else nz_digits(rnd, rnd.choice([5, 6, 8])),
                          weighed=False, fuel=False, uom=None))
    return items


# ---------------------------------------------------------------------------- tax rates

def tax_rate(country, kind, cls, year):
    """VAT/GST/sales-tax rate (Decimal percent) of an item class; None: no tax printed."""
    if country == "DE":
        if kind == "restaurant":
            return D("19")
        return D("7") if cls in ("f",) else D("19")
    if country == "FR":
        if kind in ("restaurant", "cafe"):
            return D("20") if cls == "d" else D("10")
        return {"f": D("5.5"), "m": D("10")}.get(cls, D("20"))
    if country == "NL":
        return D("21") if cls in ("s", "d") and kind not in ("restaurant", "cafe") or cls == "d" else D("9")
    if country == "IT":
        if kind in ("restaurant", "cafe"):
            return D("10")
        return {"f": D("10"), "m": D("10")}.get(cls, D("22"))
    if country == "CH":
        return D("2.5") if cls in ("f", "m") and kind not in ("restaurant",) else D("7.7")
    if country == "UK":
        if kind in ("restaurant", "cafe"):
            return D("20")
        return D("0") if cls in ("f", "m") else D("20")
    if country == "AU":
        if kind in ("restaurant", "cafe"):
            return D("10")
        return D("0") if cls in ("f", "m") else D("10")
    if country == "SG":
        return D("7")
    if country == "MY":
        return D("0") if cls == "f" and kind == "grocery" else D("6")
    if country == "IN":
        if kind == "restaurant" or kind == "cafe":
            return D("5")
        return {"f": D("5"), "d": D("12"), "m": D("12")}.get(cls, D("18"))
    return None


def tender_amount(rnd, total, currency):
    """A cash amount handed over: strictly more than total."""
    cands = []
    steps = [D(1), D(5), D(10), D(20), D(50), D(100)]
    notes = [D(5), D(10), D(20), D(50), D(100)]
    if currency == "INR":
        steps = [D(10), D(50), D(100), D(500)]
        notes = [D(100), D(200), D(500), D(2000)]
    if currency == "MYR":
        notes = [D(10), D(20), D(50), D(100)]
    for s in steps:
        v = (total / s).to_integral_value(rounding="ROUND_CEILING") * s
        if v == total:
            v += s
        cands.append(v)
    cands += [nv for nv in notes if nv > total]
    cands = sorted(set(c for c in cands if c > total))[:4]
    return q2(rnd.choice(cands))


def pick_date(rnd, country, family_years):
    y0, y1 = family_years
    start = datetime.date(y0, 1, 1).toordinal()
    end = datetime.date(y1, 12, 28).toordinal()
    return datetime.date.fromordinal(rnd.randint(start, end))
