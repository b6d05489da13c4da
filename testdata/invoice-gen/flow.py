"""Page flow after the top area: line-item table with pagination and
carried-forward subtotals, totals block, payment block, page numbers."""

import blocks as B
import content
import top as T

COLSETS = {
    "A": ["pos", "desc", "qty", "price", "total"],
    "B": ["desc", "qty", "unit", "price", "vat", "total"],
    "C": ["qty", "desc", "price", "total"],
    "D": ["pos", "sku", "desc", "qty", "price", "vat", "total"],
    "E": ["desc", "price", "qty", "total"],
}
NUMERIC = {"qty", "price", "vat", "tax", "total"}


def cells(d, i, it):
    return {
        "pos": [str(i + 1)], "sku": [it["sku"]], "desc": it["desc"],
        "qty": [d.qty(it["qty"])],
        "unit": [d.units[it["uom"]]],
        "price": [d.cell_money(it["unit"])],
        "vat": [d.rate(it["rate"]) + (" %" if d.lang in ("de", "fr") else "%")],
        "tax": [d.cell_money(content.round_div(it["total"] * it["rate"], 1000))],
        "total": [d.cell_money(it["total"])],
    }


class Table:
    def __init__(self, d, cols, ruled, carry):
        self.d, self.cols, self.ruled, self.carry = d, cols, ruled, carry
        self.rows = [cells(d, i, it) for i, it in enumerate(d.inv["items"])]
        self.head = {c: d.L("col_" + c) for c in cols}
        if d.cur_style == "none" and d.rnd.random() < 0.5:
            self.head["total"] += " (%s)" % d.inv["currency"]
            d.cur_in_header = True
        self.vlines = ruled and d.rnd.random() < 0.5
        self.ts = d.base if d.rnd.random() < 0.6 else max(7, d.base - 0.5)
        self.hs = self.ts
        self.font = d.table_font
        span = d.x1 - d.x0
        while True:
            self.widths = {}
            for c in cols:
                if c == "desc":
                    continue
                w = d.width(self.head[c], d.bold, self.hs)
                for r in self.rows:
                    w = max(w, max(d.width(s, self.font, self.ts) for s in r[c]))
                self.widths[c] = w + 12
            desc_w = span - sum(self.widths.values())
            if desc_w >= 120 or self.ts <= 6.5:
                break
            self.ts -= 0.5
            self.hs = self.ts
        self.widths["desc"] = desc_w
        self.xs, x = {}, d.x0
        for c in cols:
            self.xs[c] = x
            x += self.widths[c]

    def put(self, c, y, s, font, size):
        d = self.d
        if c in NUMERIC:
            d.text(self.xs[c] + self.widths[c] - 4, y, s, font, size, "right")
        else:
            d.text(self.xs[c] + 4, y, s, font, size, maxw=self.widths[c] - 8)

    def header(self):
        d = self.d
        h = self.hs + 8
        if self.ruled:
            d.page.rect(d.x0, d.y, d.x1 - d.x0, h, fill_gray=0.85, stroke=True)
        for c in self.cols:
            self.put(c, d.y + self.hs + 2, self.head[c], d.bold, self.hs)
        if not self.ruled:
            d.page.line(d.x0, d.y + h, d.x1, d.y + h, 0.8)
        d.y += h + 3

    def carry_row(self, amount):
        d = self.d
        d.page.line(self.xs["desc"], d.y, d.x1, d.y, 0.4)
        y = d.y + self.ts + 3
        d.text(self.xs["desc"] + 4, y, d.L("carry"), d.bold, self.ts)
        d.text(d.x1 - 4, y, d.cell_money(amount), d.bold, self.ts, "right")
        d.y += self.ts + 8

    def draw(self):
        d = self.d
        self.header()
        done = 0
        step = self.ts * 1.3
        reserve = (self.ts + 10) if self.carry else 0
        for i, r in enumerate(self.rows):
            n = max(len(v) for v in r.values())
            h = n * step + 4
            if d.y + h > d.limit() - reserve:
                if self.carry:
                    self.carry_row(done)
                d.new_page()
                self.header()
                if self.carry:
                    self.carry_row(done)
            for c in self.cols:
                for j, s in enumerate(r[c]):
                    self.put(c, d.y + self.ts + j * step, s, self.font, self.ts)
            d.y += h
            if self.ruled:
                d.page.line(d.x0, d.y, d.x1, d.y, 0.3)
            d.y += 2
            done += d.inv["items"][i]["total"]
        if not self.ruled:
            d.page.line(d.x0, d.y, d.x1, d.y, 0.6)
        d.y += 8


def totals_lines(d, shown):
    inv = d.inv
    out = []
    if inv["discount"] or inv["shipping"]:
        out.append((d.L("subtotal"), d.money(inv["subtotal"]), False))
    if inv["discount"]:
        out.append((d.L("discount", pct=inv["discount_pct"]), "-" + d.money(inv["discount"]), False))
    if inv["shipping"]:
        out.append((d.L("shipping"), d.money(inv["shipping"]), False))
    out.append((d.L("net"), d.money(inv["net"]), d.rnd.random() < 0.3))
    with_base = d.rnd.random() < 0.5
    for r in inv["rates"]:
        lab = ("Sales tax %s%%" % d.rate(r)) if inv["country"] == "US" else d.L("tax", rate=d.rate(r))
        if with_base:
            lab += " %s %s" % (d.L("tax_on"), d.num(inv["nets"][r]))
        out.append((lab, d.money(inv["taxes"][r]), False))
    if len(inv["rates"]) > 1:
        out.append((d.L("tax_total"), d.money(inv["tax"]), False))
    out.append((d.L("credit_total" if inv["credit"] else "total"), d.money(inv["gross"]), True))
    if inv["prepaid"]:
        out.append((d.L("prepaid"), "-" + d.money(inv["prepaid"]), False))
        out.append((d.L("due_amount"), d.money(inv["due_amount"]), True))
    elif d.rnd.random() < 0.2 and not inv["credit"]:
        out.append((d.L("due_amount"), d.money(inv["due_amount"]), True))
    return out


def payment_lines(d, shown):
    inv, rnd = d.inv, d.rnd
    out = []
    if shown["direct_debit"]:
        b = inv["buyer"]["iban"]
        out.append(d.L("direct_debit", iban=content.group4(b) if rnd.random() < 0.6 else b))
        out.append("%s: %s" % (d.L("mandate"), inv["mandate"]))
    elif inv["credit"]:
        out.append(d.L("refund"))
    elif shown["due"] and not shown["due_in_fields"]:
        out.append(d.L("pay_by", date=d.date(shown["due"])))
    elif not shown["due"]:
        out.append(d.L("pay_now"))
    if not shown["footer"] and not shown["direct_debit"]:
        bl = B.bank_lines(d)
        if rnd.random() < 0.5:
            out.append(bl[0] + ": " + " \u00b7 ".join(bl[1:]))
        else:
            out.extend(bl)
    if shown["vat"] and shown["vat_loc"] == "payment":
        out.append("%s %s" % (d.lab("vat_id"), d.vat_text(shown["vat"])))
    if d.cur_style == "none" and not d.cur_in_header:
        out.append(d.L("currency_note", cur=inv["currency"]))
    if rnd.random() < 0.4:
        out.append(d.L("thanks"))
    return out


def draw_totals(d, shown):
    lines = totals_lines(d, shown)
    pay = payment_lines(d, shown)
    lead = d.base * 1.45
    need = len(lines) * lead + 12 + len(pay) * d.base * 1.4 + 10
    if d.y + need > d.limit():
        d.new_page()
    aw = max(d.width(a, d.bold) for _, a, _ in lines)
    lw = max(d.width(l, d.bold) for l, _, _ in lines)
    right_labels = d.rnd.random() < 0.5
    lx = d.x1 - aw - 18
    if d.k.get("totals_box") or d.rnd.random() < 0.2:
        d.page.rect(lx - lw - 8, d.y - 2, d.x1 - (lx - lw - 8), len(lines) * lead + 8, width=0.6)
    for lab, amt, bold in lines:
        f = d.bold if bold else d.reg
        if bold:
            d.page.line(lx - lw, d.y + 1, d.x1, d.y + 1, 0.5)
        d.y += d.base
        if right_labels:
            d.text(lx, d.y, lab, f, d.base, "right")
        else:
            d.text(lx - lw, d.y, lab, f, d.base)
        d.text(d.x1, d.y, amt, f, d.base, "right")
        d.y += lead - d.base
    d.y += 14
    for s in pay:
        d.y += d.base
        d.text(d.x0, d.y, s, d.reg, d.base, maxw=d.x1 - d.x0)
        d.y += d.base * 0.4


def page_numbers(d):
    m = len(d.pdf.pages)
    if m == 1 and d.rnd.random() < 0.5:
        return
    for n, p in enumerate(d.pdf.pages, start=1):
        p.text(d.x1, d.H - d.mb / 2 + 3, d.L("page", n=n, m=m), d.reg, d.small, "right")


def render(d):
    """Draw the whole invoice; returns the 'shown' dict for the truth."""
    shown = T.decide(d)
    if d.inv["credit"] or shown["direct_debit"]:
        shown["due_in_fields"] = True
    d.new_page()
    d.y = T.draw_top(d, shown)
    d.cont_header = "%s %s" % (T.title_text(d), d.inv["number"])
    cols = list(COLSETS[d.k["cols"]])
    if d.k.get("taxcol"):
        cols.insert(cols.index("total"), "tax")
    Table(d, cols, d.k["ruled"], d.k.get("carry", True)).draw()
    draw_totals(d, shown)
    page_numbers(d)
    return shown
