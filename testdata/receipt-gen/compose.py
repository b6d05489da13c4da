"""Compose one receipt: seeded content -> slip rows (header, title, fields, items, totals,
payment, tax summary, footer) + the ground-truth record of what was printed.

The family spec (families.py) narrows the knobs; every other choice is drawn from the
document's own random.Random, so one (seed, family, index) always gives the same receipt.
"""

import datetime
from decimal import Decimal as D

import receipt_content as RC
import receipt_locale as RL
from receipt_locale import ZERO, dec_str, q2
from slip import Slip

YEARS = {"MY": (2015, 2020), "SG": (2016, 2022), "US": (2016, 2024), "UK": (2016, 2024), "AU": (2016, 2024),
         "IN": (2018, 2024), "DE": (2016, 2024), "CH": (2018, 2023), "FR": (2016, 2024), "NL": (2019, 2024),
         "IT": (2016, 2024)}
NEG = {"MY": ["lead", "lead", "paren"], "SG": ["lead", "paren"], "US": ["lead", "trail"], "UK": ["lead"],
       "AU": ["lead"], "IN": ["lead"], "DE": ["lead", "trail"], "CH": ["lead", "trail"], "FR": ["lead"],
       "NL": ["lead", "trail"], "IT": ["lead"]}
FLAGS = {"DE": "AB", "CH": "AB", "NL": "HL", "FR": "ABC", "UK": "VZ", "MY": "SZ", "AU": "G*", "IT": "ABC",
         "SG": "S", "IN": "ABC", "US": "TN"}
COLHEAD = {
    "en": dict(desc=["Item", "Description", "ITEM", "Particulars", "Desc"], qty=["Qty", "QTY", "Qty."],
               price=["Price", "U/Price", "Rate", "Unit", "U.Price"], amount=["Amount", "Amt", "Total", "AMT", "Value"]),
    "de": dict(desc=["Artikel", "Bezeichnung", "Artikel"], qty=["Menge", "Anz.", "Stk"], price=["Preis", "EP", "E-Preis"],
               amount=["Betrag", "Summe", "EUR", "Gesamt"]),
    "fr": dict(desc=["Article", "Désignation", "Libellé"], qty=["Qté", "Qte", "Nb"], price=["P.U.", "Prix", "PU"],
               amount=["Montant", "Total", "EUR"]),
    "nl": dict(desc=["Omschrijving", "Artikel", "Product"], qty=["Aantal", "Aant.", "St"], price=["Prijs", "Stukprijs"],
               amount=["Bedrag", "Totaal", "EUR"]),
    "it": dict(desc=["Descrizione", "Articolo", "DESCRIZIONE"], qty=["Q.tà", "Qta", "Pz"], price=["Prezzo", "P.U."],
               amount=["Importo", "Prezzo(€)", "Totale"]),
}
TAXWORD = {"MY": "GST", "SG": "GST", "AU": "GST", "UK": "VAT", "US": "TAX", "IN": "GST", "DE": "MwSt", "CH": "MWST",
           "FR": "TVA", "NL": "BTW", "IT": "IVA"}


STOP_LOGO = {"THE", "KEDAI", "RESTORAN", "PASARAYA", "SYARIKAT", "PERNIAGAAN", "FARMASI", "STESEN", "SHREE", "SARL",
             "EURL", "BRASSERIE", "RESTAURANT", "SUPERMARKT", "SUPERMARCHÉ", "BOULANGERIE", "PHARMACIE", "APOTHEKE"}


class Receipt:
    def __init__(self, rnd, family, spec):
        self.rnd = rnd
        self.family = family
        self.spec = spec
        r = rnd
        self.country = r.choice(spec["countries"])
        self.C = RL.COUNTRIES[self.country]
        self.lang = self.C["lang"]
        self.L = RL.LABELS[self.lang]
        self.kind = r.choice(spec["kinds"])
        self.upper = r.random() < spec.get("upper", self.C["upper"])
        self.numstyle = r.choice(spec.get("num", self.C["num"]))
        if self.country == "IN" and r.random() < 0.3:
            self.numstyle = "in"
        self.sign = r.choice(self.C["signs"])
        self.neg = r.choice(NEG[self.country])
        self.date_pat = r.choice(spec.get("dates", self.C["dates"]))
        self.date = RC.pick_date(r, self.country, spec.get("years", YEARS[self.country]))
        lo, hi = {"restaurant": (11, 22), "cafe": (7, 17), "petrol": (6, 22)}.get(self.kind, (8, 20))
        self.hms = (r.randint(lo, hi), r.randint(0, 59), r.randint(0, 59))
        self.time_style = r.choice(self.C["times"])
        paper = r.choice(spec.get("paper", [80]))
        font = r.choice(spec.get("font", ["Courier"]))
        if font == "Courier":
            ncols = r.choice({58: [32, 32, 30], 80: [40, 42, 44, 48]}[paper])
            hscale = r.uniform(78, 100)
        else:
            ncols = r.choice({58: [30, 32, 34], 80: [40, 42, 44, 46]}[paper])
            hscale = 100.0
        self.s = Slip(r, paper, font, ncols, hscale=hscale, line_factor=r.uniform(1.08, 1.32), ink=r.uniform(0.04, 0.22))
        self.cur_mode = r.choice(spec.get("cur", ["none", "label", "totals_prefix", "totals_suffix"]))
        if self.country in ("DE", "FR", "NL", "IT") and self.cur_mode == "totals_prefix" and r.random() < 0.7:
            self.cur_mode = "totals_suffix"
        if self.country in ("MY", "SG", "US", "UK", "AU", "IN", "CH") and self.cur_mode == "totals_suffix":
            self.cur_mode = "totals_prefix"
        self.flag_mode = r.choice(spec.get("flags", ["letters", "none"]))
        self.rate_dec = r.random() < 0.3  # "19,0%" instead of "19%"
        self.qty_above = r.random() < spec.get("qty_above", 0.3)
        self.qty_fmt = r.choice(["%s x %s", "%s X %s", "%s @ %s", "%s x %s"])
        self.qty_pcs = self.country in ("MY", "SG", "IN") and r.random() < 0.25
        self.qty_stk = self.lang == "de" and r.random() < 0.5
        self.kg_fmt = r.choice(["%s kg x %s %s/kg", "%s kg @ %s/kg", "%s kg x %s"])
        self.indent = r.choice([2, 4, 6])
        self.qf_fmt = r.choice(["%s ", "%sx ", "%s X ", "%s x "])
        self.truth_lines = []
        self.printed = {"company": True, "date": True, "address": True, "total": True}

    # ------------------------------------------------------------------------ helpers
    def p(self, prob):
        return self.rnd.random() < prob

    def knob(self, name, default):
        v = self.spec.get(name, default)
        if isinstance(v, list):
            return self.rnd.choice(v)
        return v

    def lab(self, key, choices=None):
        v = self.rnd.choice(choices or self.L[key])
        return v.upper() if self.upper else v

    def up(self, text):
        return text.upper() if self.upper else text

    def amt(self, v, places=2):
        return RL.fmt_num(v, self.numstyle, places, self.neg)

    def money(self, v, total=False):
        """Amount for a totals/payment line, with the currency sign when the style says so."""
        a = self.amt(v)
        sign = self.sign.strip()
        if total and self.cur_mode == "totals_prefix" or self.cur_mode == "all_prefix":
            if self.sign.endswith(" ") or sign in ("EUR", "CHF", "Fr.", "INR", "MYR", "SGD"):
                return sign + " " + a
            if a.startswith("-"):
                return "-" + sign + a[1:]
            return sign + a
        if total and self.cur_mode == "totals_suffix":
            return a + " " + sign
        return a

    def label_cur(self, label):
        """'TOTAL' -> 'TOTAL RM' / 'SUMME EUR' when amounts are bare and the label carries the code."""
        if self.cur_mode == "label":
            code = self.sign.strip() if self.sign.strip() in ("RM", "EUR", "CHF", "S$", "Rs.", "$", "£", "€") else self.C["currency"]
            if self.country in ("US", "AU", "UK") and self.rnd.random() < 0.5:
                code = "(" + code + ")"
            return label + " " + code
        return label

    def qty(self, q):
        return RL.fmt_qty(q, self.numstyle)

    def rate_str(self, rate):
        s = RL.fmt_qty(rate, self.numstyle)
        if self.rate_dec and "." not in s and "," not in s:
            s += RL.NUMSTYLES[self.numstyle][1] + "0"
        return s + "%"

    def fmt_date(self, d, pat=None):
        return RL.fmt_date(d, pat or self.date_pat, self.lang)

    def other_date(self, lo, hi, before=False):
        delta = self.rnd.randint(lo, hi)
        d = self.date - datetime.timedelta(days=delta) if before else self.date + datetime.timedelta(days=delta)
        if d == self.date:
            d += datetime.timedelta(days=1)
        return d

    def time_str(self):
        return RL.fmt_time(*self.hms, self.time_style)

    # ------------------------------------------------------------------------- build
    def build(self):
        r = self.rnd
        self.make_seller()
        self.make_items()
        self.settle()
        meta_pos = self.knob("meta_pos", "top")
        self.header()
        title_pos = r.choice(["before", "before", "after"])
        if title_pos == "before":
            self.title()
        if meta_pos == "top":
            self.meta()
        if title_pos == "after":
            self.title()
        self.items_block()
        self.totals()
        self.payment()
        self.tax_summary()
        if meta_pos == "bottom":
            self.s.rule(r.choice(["-", "="]))
            self.meta()
        self.footer()
        return self.truth()

    # ------------------------------------------------------------------------ seller
    def make_seller(self):
        r = self.rnd
        co = RC.company(r, self.country, self.kind, self.upper)
        self.company_full = co["name"]
        self.brand = co["brand"]
        self.legal = co["legal"]
        self.reg, self.taxid = RC.reg_and_tax(r, self.country, self.date.year, self.upper)
        self.addr = RC.address(r, self.country, self.upper)
        self.phone = RC.phone(r, self.country)

    def name_lines(self):
        """Split the company name into the rows it is printed on, and pick their style."""
        r = self.rnd
        s = self.s
        name = self.company_full
        styles = []
        if s.mono:
            styles = [dict(wide=True, tall=True, bold=True), dict(wide=True, bold=True), dict(tall=True, bold=True),
                      dict(bold=True), dict(bold=True), dict()]
        else:
            styles = [dict(mult=1.8, bold=True), dict(mult=1.5, bold=True), dict(mult=1.3, bold=True), dict(bold=True),
                      dict(mult=1.2)]
        start = r.randint(0, len(styles) - 1)
        want_two = self.p(self.spec.get("two_line_name", 0.3))
        for st in styles[start:] + styles[-1:]:
            if want_two or not s.fits(name, **st):
                lines = self.split_name(name, st)
                if lines and all(s.fits(ln, **st) for ln in lines):
                    return lines, st
            elif s.fits(name, **st):
                return [name], st
        return s.wrap(name, bold=True), dict(bold=True)

    def split_name(self, name, st):
        words = name.split(" ")
        if len(words) < 2:
            return None
        if self.legal and self.legal != "ENT" and name.endswith(" " + (self.legal.upper() if self.upper else self.legal)) \
                and self.p(0.6):
            n_legal = len(self.legal.split(" "))
            if len(words) > n_legal:
                return [" ".join(words[:-n_legal]), " ".join(words[-n_legal:])]
        best = None
        for i in range(1, len(words)):
            a, b = " ".join(words[:i]), " ".join(words[i:])
            score = abs(len(a) - len(b))
            if self.s.fits(a, **st) and self.s.fits(b, **st) and (best is None or score < best[0]):
                best = (score, [a, b])
        return best[1] if best else None

    def header(self):
        r = self.rnd
        s = self.s
        sp = self.spec
        align_left = self.p(sp.get("left_header", 0.0))
        put = (lambda t, **st: s.left(t, **st)) if align_left else (lambda t, **st: s.center(t, **st))
        # logo / brand above the name
        franchise = None
        if self.p(sp.get("logo", 0.25)):
            style = r.choice(["box", "big", "outline", "serif"] if not s.mono else ["box", "big", "box"])
            words = [w for w in self.company_full.split(" ") if len(w) > 3 and w.upper() not in STOP_LOGO]
            word = self.brand if self.p(0.7) or not words else words[0]
            s.logo(word, style)
            s.gap(0.3)
            if self.p(sp.get("franchise", 0.0)):
                franchise = "below"
        elif self.p(sp.get("franchise", 0.0)):
            franchise = r.choice(["above", "below"])
        if franchise == "above":
            put(self.up(r.choice(["Operated by", "A franchise of %s" % self.brand, "%s Outlet" % self.brand])))
        lines, st = self.name_lines()
        for ln in lines:
            put(ln, **st)
        self.company_lines = lines
        if franchise == "below":
            put(self.up(r.choice(["(Licensee of %s)" % self.brand, "Licensee of %s" % self.brand,
                                  "Franchisee of %s" % self.brand, "(Franchisee of %s)" % self.brand])))
        taxid_pos = self.knob("taxid_pos", r.choice(["top", "after_addr", "after_addr", "footer"]))
        if self.country in ("DE", "FR", "NL") and taxid_pos == "top":
            taxid_pos = "footer"
        self.taxid_pos = taxid_pos
        if self.reg and self.p(0.85):
            for ln in s.wrap(self.reg):
                put(ln)
            self.reg_printed = True
        else:
            self.reg_printed = False
        if self.taxid and taxid_pos == "top":
            for ln in s.wrap(self.taxid):
                put(ln)
        # branch / outlet line (distractor next to the address)
        if self.p(sp.get("branch", 0.25)):
            b = {"en": ["Outlet: %s" % r.choice(RC.MALAY + RC.EN_ADJ).title(), "Store #%s" % RC.digits(r, 4),
                        "Branch: %s" % r.choice(RC.EN_ADJ)],
                 "de": ["Filiale %s" % RC.digits(r, 4), "Markt %s" % RC.digits(r, 3)],
                 "fr": ["Magasin n° %s" % RC.digits(r, 3), "Point de vente %s" % RC.digits(r, 3)],
                 "nl": ["Filiaal %s" % RC.digits(r, 4), "Winkel %s" % RC.digits(r, 3)],
                 "it": ["Punto vendita %s" % RC.digits(r, 3), "PV %s" % RC.digits(r, 4)]}[self.lang]
            put(self.up(r.choice(b)))
        # address
        if self.p(sp.get("no_address", 0.03)):
            self.addr_lines = None
            self.printed["address"] = False
        else:
            lines = []
            for ln in self.addr:
                lines += s.wrap(ln)
            for ln in lines:
                put(ln)
            self.addr_lines = lines
        if self.taxid and taxid_pos == "after_addr":
            for ln in s.wrap(self.taxid):
                put(ln)
        # contact lines
        contact = []
        tel = "%s%s %s" % (self.lab("tel"), r.choice([":", "", "."]) if not self.L["tel"][0].endswith(".") else "", self.phone)
        tel = tel.replace("..", ".").replace(" :", ":")
        if self.p(0.8):
            contact.append(tel)
        if self.p(0.25):
            fax = "%s: %s" % (self.lab("fax"), RC.phone(r, self.country))
            if contact and s.fits(contact[-1] + "  " + fax):
                contact[-1] += "  " + fax
            else:
                contact.append(fax)
        host = RC.web_slug(self.company_full) + RC.TLD[self.country]
        if self.p(0.25):
            contact.append("%s: %s@%s" % (self.lab("email"), r.choice(["info", "sales", "hello", "contact", "shop"]), host))
        if self.p(0.25):
            contact.append("www." + host)
        for c in contact:
            for ln in s.wrap(c):
                put(ln)
        s.gap(r.choice([0.3, 0.6, 1.0]))

    # ------------------------------------------------------------------------- title
    def title(self):
        r = self.rnd
        s = self.s
        titles = self.spec.get("titles") or RL.TITLES[self.country]
        if self.kind == "restaurant" and self.p(0.5):
            titles = {"en": ["BILL", "GUEST CHECK", "RECEIPT", "TAX INVOICE"], "de": ["Rechnung", "Bewirtungsbeleg", "Quittung"],
                      "fr": ["Addition", "Note", "Facture"], "nl": ["Rekening", "Nota"], "it": ["Conto", "Preconto", "Scontrino"]}[self.lang]
        if self.p(self.spec.get("no_title", 0.15)):
            return
        t = r.choice(titles)
        if self.country == "MY" and t == "TAX INVOICE" and self.taxid and "SST" in self.taxid.upper():
            t = r.choice(["RECEIPT", "CASH BILL", "INVOICE"])
        if self.country == "AU" and self.kind == "petrol":
            t = "TAX INVOICE"
        deco = r.choice(["plain", "plain", "stars", "dashes", "rules"])
        if deco == "stars":
            t = "*** %s ***" % t
        elif deco == "dashes":
            t = "-- %s --" % t
        if deco == "rules":
            s.rule(r.choice(["-", "="]))
        big = s.mono and self.p(0.35) and s.fits(t, wide=True)
        s.center(t, bold=self.p(0.7), wide=big)
        if deco == "rules":
            s.rule(r.choice(["-", "="]))
        s.gap(0.3)

    # -------------------------------------------------------------------------- meta
    def meta(self):
        """Receipt number, date/time, cashier, terminal, table ... in one of several arrangements."""
        r = self.rnd
        s = self.s
        L = self.L
        date = self.fmt_date(self.date)
        if self.p(self.spec.get("no_date", 0.0)):
            date = None
            self.printed["date"] = False
        self.date_printed = date
        time = self.time_str()
        inv = {"MY": lambda: r.choice(["CS", "INV", "", "R", "T1"]) + RC.digits(r, r.choice([6, 8])),
               "SG": lambda: r.choice(["", "S", "R"]) + RC.digits(r, 7),
               "IN": lambda: r.choice(["", "B", "INV/%d-%02d/" % (self.date.year % 100, (self.date.year + 1) % 100)]) + RC.nz_digits(r, 4),
               }.get(self.country, lambda: RC.nz_digits(r, r.choice([4, 5, 6])))()
        fields = [("invoice", inv)]
        if self.p(0.6):
            fields.append(("cashier", self.up(r.choice(RC.FIRST[self.lang])) if self.p(0.6) else RC.digits(r, r.choice([2, 3, 4]))))
        if self.p(0.5):
            fields.append(("terminal", RC.digits(r, r.choice([1, 2, 3]))))
        if self.kind == "restaurant" or (self.kind == "cafe" and self.p(0.4)):
            fields.append(("table", str(r.randint(1, 45))))
            if self.p(0.6):
                fields.append(("pax", str(r.randint(1, 8))))
        if self.p(self.spec.get("member", 0.15)):
            fields.append(("member", RC.digits(r, 4) + " " + RC.digits(r, 4) + " " + RC.digits(r, 4)))
        r.shuffle(fields)
        style = self.knob("meta", r.choice(["kv", "kv", "pairs", "compact", "dt_line"]))
        sep = r.choice([": ", " : ", " ", ":"])
        if style == "compact" and s.mono:
            parts = [date, time] if date else [time]
            parts += [v for _, v in fields[:3]]
            line = "  ".join(p for p in parts if p)
            if s.fits(line):
                s.left(line)
                return
            style = "pairs"
        dt_label = self.lab("date")
        tm_label = self.lab("time")
        if self.lang == "fr" and dt_label.lower() == "le":
            dt_label, tm_label = self.up("Date"), self.up("Heure")
        if style == "dt_line":
            if date:
                cands = ["%s %s" % (date, time), "%s%s%s %s" % (dt_label, sep, date, time),
                         "%s%s%s  %s%s%s" % (dt_label, sep, date, tm_label, sep, time)]
                r.shuffle(cands)
                if self.lang == "fr" and self.p(0.3):
                    cands.insert(0, self.up("Le %s à %s" % (date, time)))
                fit = [c for c in cands if s.fits(c)]
                if fit:
                    s.left(fit[0]) if self.p(0.5) else s.center(fit[0])
                else:
                    s.left("%s%s%s" % (dt_label, sep, date))
                    s.left("%s%s%s" % (tm_label, sep, time))
            style = "kv"
            dated = True
        else:
            dated = False
        labels = {k: self.lab(k) for k in ("invoice", "cashier", "terminal", "table", "pax", "member")}
        kv = [(labels[k], v) for k, v in fields]
        if not dated and date:
            if self.p(0.5):
                kv.insert(r.randint(0, len(kv)), (dt_label, date))
                kv.insert(r.randint(0, len(kv)), (tm_label, time))
            else:
                kv.insert(r.randint(0, len(kv)), (dt_label, "%s %s" % (date, time)))
        elif not dated:
            kv.append((tm_label, time))
        if style == "kv":
            pad = max(len(k) for k, _ in kv) if s.mono and self.p(0.6) else 0
            for k, v in kv:
                key = k.ljust(pad) if pad else k
                txt = key + sep + v
                if s.fits(txt):
                    s.left(txt)
                else:
                    s.left(k + sep.rstrip())
                    s.right(v)
        else:  # pairs
            i = 0
            while i < len(kv):
                a = kv[i][0] + sep + kv[i][1]
                if i + 1 < len(kv):
                    b = kv[i + 1][0] + sep + kv[i + 1][1]
                    if s.parts_fit([(a, 0, "l"), (b, s.ncols, "r")]):
                        s.row([(a, 0, "l"), (b, s.ncols, "r")])
                        i += 2
                        continue
                if s.fits(a):
                    s.left(a)
                else:
                    s.left(kv[i][0] + sep.rstrip())
                    s.right(kv[i][1])
                i += 1

    # ------------------------------------------------------------------------- items
    def make_items(self):
        r = self.rnd
        lo, hi = self.spec.get("items", (2, 9))
        n = r.randint(lo, hi)
        fuel = self.kind == "petrol"
        if fuel:
            n = r.choice([1, 1, 1, 2, 3])
        self.items = RC.make_items(r, self.country, self.kind, self.lang, self.C["currency"], n, self.upper,
                                   weighed=self.spec.get("weighed", 0.0) if self.kind == "grocery" else 0.0, fuel=fuel)
        # tax rates and flags
        us_rate = D(r.choice(["6", "6.25", "7", "7.25", "8.25", "8.875", "9.5", "4", "6.5"]))
        self.us_rate = us_rate
        for it in self.items:
            if self.country == "US":
                it["rate"] = us_rate if (it["cls"] != "f" or self.kind in ("restaurant", "cafe")) and not it["fuel"] else D(0)
            elif it["fuel"] and self.country in ("IN",):
                it["rate"] = D(0)
            else:
                it["rate"] = RC.tax_rate(self.country, self.kind, it["cls"], self.date.year)
        # a few item discounts, printed under their item
        out = []
        for it in self.items:
            out.append(it)
            if not it["fuel"] and self.p(self.spec.get("item_discount", 0.08)):
                off = q2(it["total"] * D(r.choice(["0.1", "0.2", "0.25", "0.3", "0.5"])))
                if off > 0:
                    out.append(dict(discount=True, total=-off, rate=it["rate"],
                                    name=self.lab("item_discount")))
        self.items = out
        rates = sorted({it["rate"] for it in self.items}, reverse=True)
        letters = FLAGS[self.country]
        self.flag_of = {}
        for i, rt in enumerate(rates):
            if self.country == "US":
                self.flag_of[rt] = "T" if rt > 0 else r.choice(["N", "F", ""])
            elif self.country == "AU":
                self.flag_of[rt] = "" if rt > 0 else r.choice(["*", "#", "^"])
            elif self.country == "MY":
                self.flag_of[rt] = "S" if rt > 0 else "Z"
            else:
                self.flag_of[rt] = letters[i] if i < len(letters) else chr(ord("A") + i)

    def flag(self, it):
        if self.flag_mode == "none":
            return ""
        if self.flag_mode == "rate":
            return " " + self.rate_str(it["rate"])
        f = self.flag_of.get(it["rate"], "")
        return (" " + f) if f else ("  " if self.s.mono and self.country == "AU" else "")

    def qty_line(self, q_s, unit_s):
        if self.qty_pcs:
            return "%s %s x %s" % (q_s, self.up("pcs"), unit_s)
        if self.qty_stk:
            return "%s Stk x %s" % (q_s, unit_s)
        return self.qty_fmt % (q_s, unit_s)

    def kg_line(self, q_s, unit_s):
        f = self.kg_fmt
        line = f % ((q_s, unit_s, self.sign.strip()) if f.count("%s") == 3 else (q_s, unit_s))
        return line.upper() if self.upper else line

    def item_qty(self, it):
        """Printed quantity: weights with 3 decimals, litres 2, gallons 3, counts bare."""
        qp = self.qplaces(it)
        return RL.fmt_num(it["qty"], self.numstyle, qp) if qp else self.qty(it["qty"])

    @staticmethod
    def qplaces(it):
        if it.get("weighed"):
            return 3
        if it.get("fuel"):
            return 3 if it.get("uom") == "GAL" else 2
        return 0

    def record(self, desc, qty, unit, total, places=2, qplaces=0):
        if qty is not None:
            qty = dec_str(qty, qplaces) if qplaces else RL.dec_str(qty, 3).rstrip("0").rstrip(".")
        self.truth_lines.append(dict(description=desc, quantity=qty,
                                     unit_price=(dec_str(unit, places) if unit is not None else None),
                                     line_total=dec_str(total)))

    def items_block(self):
        r = self.rnd
        s = self.s
        arr = self.knob("arrange", "twoline")
        if self.kind == "petrol" and arr in ("columns", "qty_first"):
            arr = "twoline"
        self.arr = arr
        head = COLHEAD[self.lang]
        lab = lambda k: self.up(r.choice(head[k]))
        if not s.rows or s.rows[-1]["kind"] != "rule":
            s.rule(r.choice(["-", "=", "-"]))
        show_code = self.p(self.spec.get("codes", 0.0))
        if arr == "columns":
            layout = r.choice(["dqpa", "qdpa", "dqa", "qda"])
            self.col_layout = layout
            amt_w = max(len(self.amt(it["total"]) + self.flag(it)) for it in self.items) + 1
            pr_w = max(len(self.amt(it.get("unit", ZERO), it.get("places", 2))) for it in self.items) + 1
            q_w = max(3, max(len(self.item_qty(it)) if "qty" in it else 1 for it in self.items) + 1)
            amt_col = s.ncols
            pr_col = amt_col - amt_w - 1 if "p" in layout else None
            q_col = (pr_col if pr_col else amt_col) - (pr_w if pr_col else amt_w) - 1 if layout[0] == "d" else None
            hdr = []
            if layout.startswith("q"):
                hdr.append((lab("qty"), 0, "l"))
                desc_col = q_w + 1
            else:
                desc_col = 0
                hdr.append((lab("qty"), q_col, "r"))
            hdr.append((lab("desc"), desc_col, "l"))
            if pr_col:
                hdr.append((lab("price"), pr_col, "r"))
            hdr.append((lab("amount") if self.cur_mode != "header" else self.sign.strip(), amt_col, "r"))
            if s.parts_fit(hdr):
                s.row(hdr, bold=self.p(0.4))
                s.rule("-")
            right_edge = (q_col - q_w) if q_col else ((pr_col - pr_w) if pr_col else (amt_col - amt_w))
            desc_w = (right_edge - desc_col - 1) * s.cell()
        for it in self.items:
            if it.get("discount"):
                lbl = "  " + it["name"] if s.mono else it["name"]
                a = self.amt(it["total"]) + (self.flag(it) if self.flag_mode == "letters" else "")
                lbl = s.clip(lbl, s.W - s.width(a) - s.cell() * 2)
                s.row([(lbl, 0, "l"), (a, s.ncols, "r")])
                self.record(lbl.strip(), None, None, it["total"])
                continue
            if it["fuel"]:
                pump = {"en": r.choice(["Pump %02d", "PUMP # %d", "Pump: %d"]), "de": "Zapfsäule %d", "fr": "Pompe %d",
                        "nl": "Pomp %d", "it": "Erogatore %d"}[self.lang] % it["pump"]
                s.left(self.up(pump))
            name = it["name"]
            total_s = self.amt(it["total"]) + self.flag(it)
            unit_s = self.amt(it["unit"], it["places"])
            q_s = self.item_qty(it)
            one = it["qty"] == 1 and not it["weighed"] and not it["fuel"]
            uom = it.get("uom")
            if arr == "columns":
                desc = s.clip(name, desc_w)
                parts = []
                if self.col_layout.startswith("q"):
                    parts.append((q_s, 0, "l"))
                else:
                    parts.append((q_s, q_col, "r"))
                parts.append((desc, desc_col, "l"))
                if pr_col:
                    parts.append((unit_s, pr_col, "r"))
                parts.append((total_s, amt_col, "r"))
                if not s.parts_fit(parts):  # long weighed quantity: description alone above
                    desc = s.clip(name, s.W)
                    s.left(desc)
                    parts = [p for p in parts if p[0] != desc]
                s.row(parts)
                self.record(desc, it["qty"], it["unit"] if pr_col else None, it["total"], it["places"], self.qplaces(it))
                continue
            if arr == "qty_first" and not (it["weighed"] or it["fuel"]):
                qtxt = self.qf_fmt % q_s
                qtxt = (qtxt.strip() + " ").ljust(4) if s.mono else qtxt
                desc = s.clip(name, s.W - s.width(qtxt) - s.width(total_s) - 2 * s.cell())
                s.row([(qtxt + desc, 0, "l"), (total_s, s.ncols, "r")])
                unit_shown = None
                if not one and self.p(0.4):
                    s.left(("    @ " if s.mono else "   @ ") + unit_s)
                    unit_shown = it["unit"]
                self.record(desc, it["qty"], unit_shown, it["total"])
                continue
            if arr == "desc_amount" or (arr == "qty_first"):
                # description and amount on one row; quantity x price on its own row (above or below)
                desc = s.clip(name, s.W - s.width(total_s) - 2 * s.cell())
                code = None
                if show_code and it.get("code"):
                    code = it["code"]
                    if s.fits(code + " " + desc + "  " + total_s):
                        desc_row = [(code + " " + desc, 0, "l"), (total_s, s.ncols, "r")]
                    else:
                        s.left(code)
                        desc_row = [(desc, 0, "l"), (total_s, s.ncols, "r")]
                else:
                    desc_row = [(desc, 0, "l"), (total_s, s.ncols, "r")]
                qline = None
                if it["weighed"]:
                    qline = "  " + self.kg_line(q_s, unit_s)
                elif it["fuel"]:
                    qline = "  %s %s x %s" % (q_s, uom, unit_s)
                elif not one:
                    qline = "  " + self.qty_line(q_s, unit_s)
                if qline and not s.mono:
                    qline = qline.strip()
                above = qline and self.qty_above
                if above:
                    s.left(qline, indent=0 if s.mono else 1)
                s.row(desc_row)
                if qline and not above:
                    s.left(qline, indent=0 if s.mono else 1)
                if qline:
                    self.record(desc, it["qty"], it["unit"], it["total"], it["places"], self.qplaces(it))
                else:
                    self.record(desc, None, None, it["total"])
                continue
            # twoline / code: description row, then "qty x price   amount"
            if arr == "code" or show_code:
                code = it.get("code") or RC.digits(r, 6)
                if self.p(0.5) and s.fits(code + " " + name):
                    desc = s.clip(name, s.W - s.width(code + " "))
                    s.left(code + " " + desc)
                else:
                    s.left(code)
                    desc = s.clip(name, s.W)
                    s.left(desc)
            else:
                desc = s.clip(name, s.W)
                s.left(desc)
            if it["weighed"]:
                ql = self.kg_line(q_s, unit_s)
            elif it["fuel"]:
                ql = ("%s %s x %s" % (q_s, uom, unit_s)) if self.qty_fmt != "%s @ %s" else "%s %s @ %s/%s" % (q_s, uom, unit_s, uom)
            else:
                ql = self.qty_line(q_s, unit_s)
            indent = self.indent if s.mono else 2
            s.row([(ql, indent, "l"), (total_s, s.ncols, "r")])
            self.record(desc, it["qty"], it["unit"], it["total"], it["places"], self.qplaces(it))
        s.rule(r.choice(["-", "="]))

    # ------------------------------------------------------------------------ money
    def settle(self):
        r = self.rnd
        c = self.country
        items_sum = sum((it["total"] for it in self.items), ZERO)
        self.items_sum = items_sum
        mode = self.spec.get("tax_mode", {}).get(c) if isinstance(self.spec.get("tax_mode"), dict) else None
        if mode is None:
            if c in ("US", "IN"):
                mode = "excl"
            elif c in ("MY",):
                sst = self.date >= datetime.date(2018, 6, 1)
                if self.kind in ("restaurant", "cafe"):
                    mode = "excl"
                else:
                    mode = "none" if sst else "incl"
                if sst and self.kind not in ("restaurant", "cafe"):
                    for it in self.items:
                        it["rate"] = D(0)
            elif c == "SG":
                mode = "excl" if self.kind in ("restaurant",) else "incl"
            else:
                mode = "incl"
        if c == "US" and self.kind == "petrol" and all(it.get("fuel") for it in self.items if not it.get("discount")):
            mode = "none"
        if mode == "excl" and all(it["rate"] == 0 for it in self.items):
            mode = "none"
        self.tax_mode = mode
        rates = sorted({it["rate"] for it in self.items if not it.get("discount")}, reverse=True)
        single = len(rates) == 1
        # bill-level discount
        disc = ZERO
        self.disc_pct = None
        if self.p(self.spec.get("bill_discount", 0.08)) and (single or mode == "none" or mode == "excl" and c in ("MY", "SG")):
            self.disc_pct = D(r.choice(["5", "10", "10", "15", "20"]))
            disc = q2(items_sum * self.disc_pct / 100)
        self.discount = disc
        base0 = items_sum - disc
        svc = ZERO
        self.svc_pct = None
        if self.kind == "restaurant" and c in ("MY", "SG", "IN", "UK") and self.p(self.spec.get("service", 0.6)):
            self.svc_pct = D({"MY": "10", "SG": "10", "IN": r.choice(["5", "10"]), "UK": "12.5"}[c])
            svc = q2(base0 * self.svc_pct / 100)
        self.service = svc
        taxes = []
        if mode == "excl":
            if c == "US":
                taxable = sum((it["total"] for it in self.items if it["rate"] > 0), ZERO)
                if taxable and single:
                    taxable -= disc
                if taxable > 0:
                    taxes.append(dict(rate=self.us_rate, base=taxable, amount=q2(taxable * self.us_rate / 100), included=False))
            elif c == "IN":
                for rt in [x for x in rates if x > 0]:
                    base = sum((it["total"] for it in self.items if it["rate"] == rt), ZERO)
                    if single:
                        base -= disc
                        base += svc
                    half = rt / 2
                    amount = q2(base * half / 100)
                    taxes.append(dict(rate=half, base=base, amount=amount, included=False, name="CGST"))
                    taxes.append(dict(rate=half, base=base, amount=amount, included=False, name="SGST"))
            else:
                rt = rates[0] if rates else D(6)
                base = base0 + svc
                taxes.append(dict(rate=rt, base=base, amount=q2(base * rt / 100), included=False))
        elif mode == "incl":
            for rt in rates:
                gross = sum((it["total"] for it in self.items if it["rate"] == rt), ZERO)
                if single:
                    gross -= disc
                gross += svc if single else ZERO
                taxes.append(dict(rate=rt, base=gross, amount=q2(gross * rt / (100 + rt)), included=True))
            if svc and not single:
                self.service = svc = ZERO
        self.taxes = taxes
        pre = base0 + svc + sum((t["amount"] for t in taxes if not t["included"]), ZERO)
        self.pre_total = pre
        cash = self.p(self.spec.get("cash", 0.7))
        self.cash = cash
        step = None
        if c == "MY" or (c in ("CH", "NL", "AU") and cash):
            step = D("0.05")
        elif c == "IN" and self.p(0.8):
            step = D("1")
        rounding = ZERO
        if step:
            tot = (pre / step).quantize(D(1), rounding="ROUND_HALF_UP") * step
            rounding = q2(tot - pre)
        self.step = step
        self.rounding = rounding
        self.total = q2(pre + rounding)
        if cash:
            self.tendered = RC.tender_amount(r, self.total, self.C["currency"])
            self.change = self.tendered - self.total
        else:
            self.tendered = self.total
            self.change = ZERO

    # ------------------------------------------------------------------------ totals
    def amount_row(self, label, value, total=False, big=False, bold=False):
        s = self.s
        txt = self.money(value, total=total)
        st = {}
        if big and s.mono:
            st = self.rnd.choice([dict(wide=True, bold=True), dict(wide=True, tall=True, bold=True), dict(tall=True, bold=True)])
        elif big:
            st = dict(mult=self.rnd.choice([1.3, 1.5]), bold=True)
        elif bold:
            st = dict(bold=True)
        if st and not s.parts_fit([(label, 0, "l"), (txt, s.ncols, "r")], **st):
            st = dict(bold=True)
        s.lr(label, txt, **st)

    def totals(self):
        r = self.rnd
        c = self.country
        s = self.s
        has_sub = self.discount or self.service or any(not t["included"] for t in self.taxes) or self.p(0.5)
        if has_sub:
            lbl = self.lab("subtotal")
            if self.tax_mode == "excl" and c == "MY" and self.p(0.4):
                lbl = self.up(r.choice(["Total Sales (Excluding GST)", "Sub Total (Excl GST)", "Total (Excl. Tax)"])
                              if self.taxes and not self.taxes[0]["rate"] == 0 and self.date < datetime.date(2018, 6, 1)
                              else "Sub Total")
            self.amount_row(self.label_cur(lbl) if self.cur_mode == "label" and self.p(0.3) else lbl, self.items_sum)
        if self.discount:
            lbl = self.lab("discount")
            if self.p(0.6):
                lbl += " " + self.rate_str(self.disc_pct)
            self.amount_row(lbl, -self.discount)
        if self.service:
            lbl = self.lab("service") + " " + self.rate_str(self.svc_pct)
            if c == "UK":
                lbl = self.up(r.choice(["Optional Service 12.5%", "Service Charge 12.5%", "Discretionary Service 12.5%"]))
            self.amount_row(lbl, self.service)
        for t in self.taxes:
            if t["included"]:
                continue
            if c == "US":
                lbl = self.up(r.choice(["Sales Tax", "TAX", "Tax %s" % self.rate_str(t["rate"]), "Sales Tax %s" % self.rate_str(t["rate"])]))
            elif c == "IN":
                lbl = "%s @ %s" % (t["name"], self.rate_str(t["rate"])) if self.p(0.6) else "%s %s" % (t["name"], self.rate_str(t["rate"]))
            else:
                word = "GST"
                if c == "MY" and self.date >= datetime.date(2018, 6, 1):
                    word = r.choice(["SST", "Service Tax", "SERVICE TAX"])
                lbl = self.up(r.choice(["%s %s", "%s @ %s", "%s (%s)"]) % (word, self.rate_str(t["rate"])))
            self.amount_row(lbl, t["amount"])
        total_big = self.p(self.spec.get("big_total", 0.5))
        if self.rounding or (self.step and self.p(0.4)):
            style = r.choice(["after", "before"]) if self.country != "IN" else "after"
            if style == "after":
                # "Total (incl GST) 12.32 / Rounding -0.02 / Rounded Total 12.30"
                self.amount_row(self.lab("total_pre"), self.pre_total, total=self.p(0.3))
                self.amount_row(self.lab("rounding") if c != "IN" else self.up(r.choice(["Round Off", "Rounding Off", "Round off"])),
                                self.rounding)
                lbl = self.lab("total_rounded") if c != "IN" else self.up(r.choice(["Net Amount", "Grand Total", "Net Payable", "Bill Amount"]))
            else:
                self.amount_row(self.lab("rounding"), self.rounding)
                lbl = self.lab("total")
        else:
            lbl = self.lab("total")
            if c == "MY" and self.tax_mode in ("incl", "excl") and self.taxes and self.taxes[0]["rate"] > 0 and self.p(0.4) \
                    and self.date < datetime.date(2018, 6, 1):
                lbl = self.up(r.choice(["Total (incl GST)", "Total Incl. GST", "TOTAL INCL. GST"]))
            if self.country == "FR" and self.p(0.5):
                lbl = self.up("Total TTC")
            if self.country == "IT" and self.p(0.5):
                lbl = r.choice(["TOTALE COMPLESSIVO", "TOTALE", "Totale EURO"])
            if self.country in ("US", "UK") and self.p(0.3):
                lbl = self.up(r.choice(["Balance Due", "Amount Due", "TOTAL", "Balance to pay"]))
        lbl = self.label_cur(lbl)
        if total_big or not self.upper:
            self.s.gap(0.2)
        self.amount_row(lbl, self.total, total=True, big=total_big, bold=True)
        self.total_label = lbl

    def payment(self):
        r = self.rnd
        s = self.s
        if self.cash:
            self.amount_row(self.lab("cash"), self.tendered, total=self.p(0.4))
            self.amount_row(self.lab("change"), self.change, total=self.p(0.3))
        else:
            card = self.lab("card")
            if self.country == "AU":
                card = self.up(r.choice(["EFTPOS", "VISA", "MASTERCARD", "Card"]))
            elif self.country == "SG" and self.p(0.5):
                card = self.up(r.choice(["NETS", "VISA", "PayNow"]))
            self.amount_row(card, self.tendered, total=self.p(0.4))
            if self.p(0.6):
                self.card_slip()

    def card_slip(self):
        r = self.rnd
        s = self.s
        last4 = RC.digits(r, 4)
        lines = {
            "en": ["CARD NO: ************%s" % last4, "APPR CODE: %s" % RC.digits(r, 6), "TID: %s" % RC.digits(r, 8),
                   "MID: %s" % RC.digits(r, 12), "ENTRY: CONTACTLESS", "AID: A00000000%s" % RC.digits(r, 5), "RRN: %s" % RC.digits(r, 12)],
            "de": ["Karte: ############%s" % last4, "Terminal-ID: %s" % RC.digits(r, 8), "TA-Nr.: %s" % RC.digits(r, 6),
                   "Genehmigungs-Nr.: %s" % RC.digits(r, 6), "Kontaktlos", "Beleg-Nr.: %s" % RC.digits(r, 4)],
            "fr": ["CARTE ************%s" % last4, "No AUTO: %s" % RC.digits(r, 6), "TERMINAL %s" % RC.digits(r, 8),
                   "SANS CONTACT", "TICKET CLIENT A CONSERVER"],
            "nl": ["Kaart: xxxxxxxxxxxx%s" % last4, "Autorisatiecode: %s" % RC.digits(r, 6), "Terminal: %s" % RC.digits(r, 8),
                   "Contactloos", "Transactie: %s" % RC.digits(r, 6)],
            "it": ["Carta: ************%s" % last4, "Cod. aut.: %s" % RC.digits(r, 6), "Term. ID: %s" % RC.digits(r, 8),
                   "Contactless", "Op. n. %s" % RC.digits(r, 6)],
        }[self.lang]
        k = r.randint(2, min(5, len(lines)))
        for ln in r.sample(lines, k):
            for w in s.wrap(ln):
                s.left(w)

    def tax_summary(self):
        r = self.rnd
        s = self.s
        c = self.country
        incl = [t for t in self.taxes if t["included"]]
        if not incl:
            return
        style = self.knob("tax_style", r.choice(["table", "table", "lines", "one"]))
        if c == "AU" or (c == "SG" and self.p(0.6)):
            style = "one"
        word = TAXWORD[c]
        if style == "one":
            tot_tax = sum((t["amount"] for t in incl), ZERO)
            if c == "AU":
                txt = self.up(r.choice(["Total includes GST", "GST included in total", "Includes GST of"]))
            elif c == "SG":
                txt = self.up(r.choice(["GST 7% included", "Total includes GST 7%", "Incl. 7% GST"]))
            else:
                txt = {"de": "inkl. %s" % word, "fr": "dont TVA", "nl": "waarvan BTW", "it": "di cui IVA", "en": "%s included" % word}[self.lang]
                txt = self.up(txt)
            s.lr(txt, self.money(tot_tax, total=self.p(0.5)))
            return
        if style == "lines":
            for t in incl:
                txt = {"de": "%s %s %s" % (self.flag_of.get(t["rate"], ""), self.rate_str(t["rate"]), word),
                       "fr": "TVA %s" % self.rate_str(t["rate"]), "nl": "BTW %s" % self.rate_str(t["rate"]),
                       "it": "IVA %s" % self.rate_str(t["rate"]),
                       "en": "%s @ %s" % (word, self.rate_str(t["rate"]))}[self.lang].strip()
                s.lr(self.up(txt), self.amt(t["amount"]))
            return
        # table: rate | net | tax | gross
        s.gap(0.4)
        hdr = {"de": [word, "Netto", word, "Brutto"] if c != "CH" else ["MWST", "Netto", "MWST", "Total"],
               "fr": ["TVA", "HT", "TVA", "TTC"], "nl": ["BTW", "Excl.", "BTW", "Incl."],
               "it": ["Aliquota", "Imponibile", "Imposta", "Totale"],
               "en": [word + (" Rate" if c != "MY" else " Summary"), "Net" if c != "MY" else "Amount", word if c != "MY" else "Tax",
                      "Gross" if c != "MY" else "Total"]}[self.lang]
        hdr = [self.up(h) for h in hdr]
        rows = []
        for t in incl:
            net = t["base"] - t["amount"]
            code = self.flag_of.get(t["rate"], "")
            label = ("%s %s" % (code, self.rate_str(t["rate"]))).strip() if self.flag_mode == "letters" and code.strip() else self.rate_str(t["rate"])
            rows.append([label, self.amt(net), self.amt(t["amount"]), self.amt(t["base"])])
        n = s.ncols
        configs = [[0, 1, 2, 3], [0, 2, 3], [0, 1, 2], [0, 2]]
        if not self.p(0.6):
            configs = configs[1:]
        positions = {4: [(0, "l"), (n * 0.55, "r"), (n * 0.77, "r"), (n, "r")], 3: [(0, "l"), (n * 0.68, "r"), (n, "r")],
                     2: [(0, "l"), (n, "r")]}
        chosen = None
        for cfg in configs:
            pos = positions[len(cfg)]
            if all(s.parts_fit([(line[j], pos[i][0], pos[i][1]) for i, j in enumerate(cfg)]) for line in [hdr] + rows):
                chosen = (cfg, pos)
                break
        if chosen is None:
            return
        cfg, pos = chosen
        for line in [hdr] + rows:
            s.row([(line[j], pos[i][0], pos[i][1]) for i, j in enumerate(cfg)])

    # ------------------------------------------------------------------------ footer
    def footer(self):
        r = self.rnd
        s = self.s
        c = self.country
        sp = self.spec
        s.gap(0.5)
        blocks = []
        n_items = sum((it["qty"] if not it.get("weighed") and not it.get("fuel") else D(1))
                      for it in self.items if not it.get("discount"))
        if self.p(0.4):
            blocks.append(lambda: s.left("%s%s%s" % (self.lab("items"), r.choice([": ", " : ", " "]), RL.fmt_qty(n_items, self.numstyle))))
        savings = -sum((it["total"] for it in self.items if it.get("discount")), ZERO) + self.discount
        if savings > 0 and self.p(0.6):
            txt = {"en": "You saved", "de": "Sie haben gespart", "fr": "Vous avez économisé", "nl": "Uw voordeel",
                   "it": "Hai risparmiato"}[self.lang]
            blocks.append(lambda: s.lr(self.up(txt), self.money(savings, total=True)))
        if c == "US" and self.kind in ("restaurant", "cafe") and self.p(0.6):
            def tips():
                s.center(self.up("Suggested Gratuity"))
                base = self.items_sum
                for pct in ("15", "18", "20"):
                    s.lr("%s%%" % pct, "%s" % self.money(q2(base * D(pct) / 100), total=True))
                s.lr(self.up("Tip"), "________")
                s.lr(self.up("Total"), "________")
            blocks.append(tips)
        if self.p(sp.get("member", 0.15) + 0.15):
            def member():
                pts = r.randint(1, 300)
                lines = [{"en": "Points earned: %d" % r.randint(1, 60), "de": "Punkte: %d" % r.randint(1, 60),
                          "fr": "Points fidélité: %d" % r.randint(1, 60), "nl": "Gespaarde punten: %d" % r.randint(1, 60),
                          "it": "Punti: %d" % r.randint(1, 60)}[self.lang],
                         {"en": "Points balance: %d" % pts, "de": "Punktestand: %d" % pts, "fr": "Solde points: %d" % pts,
                          "nl": "Saldo: %d punten" % pts, "it": "Saldo punti: %d" % pts}[self.lang]]
                exp = self.other_date(60, 700)
                lines.append({"en": r.choice(["Card expiry: %s", "Member exp: %s", "Points expire on %s"]),
                              "de": "Karte gültig bis %s", "fr": "Carte valable jusqu'au %s",
                              "nl": "Pas geldig tot %s", "it": "Tessera valida fino al %s"}[self.lang] % self.fmt_date(exp))
                for ln in lines:
                    s.left(self.up(ln))
            blocks.append(member)
        if self.p(sp.get("voucher", 0.2)):
            def voucher():
                until = self.other_date(7, 60)
                amount = self.money(D(r.choice([2, 5, 10])) + ZERO, total=True)
                txt = {"en": r.choice(["Voucher %s valid until %s", "Coupon %s - valid till %s", "Get %s off your next visit. Valid until %s"]),
                       "de": r.choice(["Gutschein %s gültig bis %s", "Coupon über %s gültig bis %s"]),
                       "fr": "Bon d'achat de %s valable jusqu'au %s", "nl": "Tegoedbon %s geldig t/m %s",
                       "it": "Buono sconto %s valido fino al %s"}[self.lang] % (amount, self.fmt_date(until, r.choice(self.C["dates"])))
                for ln in s.wrap(self.up(txt)):
                    s.center(ln)
            blocks.append(voucher)
        if self.p(0.35):
            def ret():
                if c == "US" and self.p(0.5):
                    txt = "Returns accepted until %s with receipt" % self.fmt_date(self.other_date(14, 90))
                else:
                    txt = r.choice(self.L["returns"])
                for ln in s.wrap(self.up(txt)):
                    s.center(ln)
            blocks.append(ret)
        if c == "US" and self.p(0.3):
            def survey():
                for ln in s.wrap(self.up("Tell us how we did! Survey code %s-%s-%s. Offer expires %s" % (
                        RC.digits(r, 4), RC.digits(r, 4), RC.digits(r, 4), self.fmt_date(self.other_date(20, 45))))):
                    s.center(ln)
            blocks.append(survey)
        if self.taxid and self.taxid_pos == "footer":
            blocks.append(lambda: [s.center(ln) for ln in s.wrap(self.taxid)])
        r.shuffle(blocks)
        for b in blocks:
            b()
            s.gap(0.3)
        if c == "DE" and self.date_printed and self.p(sp.get("tse", 0.5)):
            self.tse()
        if c == "IT" and self.date_printed and self.p(0.6):
            for ln in ["RT %s%s" % (RC.letters(r, 3), RC.digits(r, 6)),
                       "%s %s" % (self.fmt_date(self.date, "{d}-{m}-{Y}"), RL.fmt_time(*self.hms, "hm")),
                       "DOCUMENTO N. %s-%s" % (RC.digits(r, 4), RC.digits(r, 4))]:
                s.center(ln)
        for ln in s.wrap(self.up(r.choice(self.L["thanks"]))):
            s.center(ln, bold=self.p(0.3))
        if self.lang == "en" and c == "MY" and self.p(0.3):
            s.center(self.up(r.choice(["Terima kasih", "Sila datang lagi", "Terima kasih, sila datang lagi"])))
        if self.p(self.spec.get("barcode", 0.3)):
            s.gap(0.3)
            s.barcode(RC.digits(r, 12) if self.p(0.6) else None)
        elif self.p(0.1) or c == "IN" and self.p(0.3):
            s.gap(0.3)
            s.qr()
        if self.p(0.2):
            s.center(self.up({"en": "Customer Copy", "de": "Kundenbeleg", "fr": "Exemplaire client", "nl": "Klantexemplaar",
                              "it": "Copia cliente"}[self.lang]))

    def tse(self):
        r = self.rnd
        s = self.s
        h, m, sec = self.hms
        iso = "%s %02d:%02d:%02d" % (self.fmt_date(self.date, "{Y}-{m}-{d}"), h, m, sec)
        if self.p(0.5):
            iso = iso.replace(" ", "T") + ".000"
        lines = ["TSE-Transaktion: %d" % r.randint(1000, 999999), "TSE-Start: %s" % iso, "TSE-Stop: %s" % iso,
                 "TSE-Signaturzähler: %d" % r.randint(1000, 99999), "TSE-Seriennr.: %s" % "".join(r.choice("0123456789abcdef") for _ in range(24))]
        for ln in lines:
            for w in s.wrap(ln):
                s.left(w)
        if self.p(0.5):
            s.qr(r.uniform(14, 20))

    # ------------------------------------------------------------------------- truth
    def truth(self):
        addr = " ".join(self.addr_lines) if self.addr_lines else None
        taxes = [dict(rate=dec_str(t["rate"], 3).rstrip("0").rstrip("."), base=dec_str(t["base"]), amount=dec_str(t["amount"]),
                      included=t["included"]) for t in self.taxes]
        return {
            "family": self.family,
            "country": self.country,
            "language": self.lang,
            "shop": self.kind,
            "company": " ".join(self.company_lines),
            "company_lines": list(self.company_lines),
            "date": self.date.isoformat() if self.date_printed else None,
            "date_printed": self.date_printed,
            "address": addr,
            "address_lines": list(self.addr_lines) if self.addr_lines else None,
            "total": dec_str(self.total),
            "currency": self.C["currency"],
            "lines": self.truth_lines,
            "amounts": {
                "items_sum": dec_str(self.items_sum),
                "discount": dec_str(self.discount),
                "service_charge": dec_str(self.service),
                "taxes": taxes,
                "tax_mode": self.tax_mode,
                "rounding": dec_str(self.rounding),
                "rounding_step": dec_str(self.step) if self.step else None,
                "payment": "cash" if self.cash else "card",
                "tendered": dec_str(self.tendered),
                "change": dec_str(self.change),
            },
            "printed": dict(self.printed),
            "slip": {"paper_mm": self.s.paper_mm, "font": self.s.font, "columns": self.s.ncols,
                     "font_size": round(self.s.size, 2), "items": self.arr},
        }
