"""Rendering primitives shared by all layout families: document style, party
blocks, header-field styles and the footer. The page flow (table, totals,
pagination) lives in flow.py.
"""

import content
import pdfwriter as P
import invoice_locale as LC


class Doc:
    """One invoice being drawn: style choices, formatting, cursor, pages."""

    def __init__(self, rnd, inv, knobs):
        self.rnd, self.inv, self.k = rnd, inv, knobs
        self.lang = inv["lang"]
        size = P.LETTER if inv["country"] == "US" and rnd.random() < 0.8 else P.A4
        self.pdf = P.Document(size)
        self.W, self.H = size
        serif = rnd.random() < knobs.get("serif", 0.35)
        self.reg, self.bold = ("Times-Roman", "Times-Bold") if serif else ("Helvetica", "Helvetica-Bold")
        self.table_font = "Courier" if rnd.random() < 0.08 else self.reg
        self.base = rnd.choice([8.5, 9, 9.5, 10, 10.5, 11])
        self.small = max(6.5, self.base - rnd.choice([1.5, 2]))
        self.title_size = rnd.choice([14, 15, 16, 18, 20])
        self.ml, self.mr = rnd.randint(40, 75), rnd.randint(40, 70)
        self.mt, self.mb = rnd.randint(35, 60), rnd.randint(36, 56)
        self.x0, self.x1 = self.ml, self.W - self.mr
        self.num_style = rnd.choice(LC.NUMBER_STYLES[self.lang])
        self.date_style = rnd.choice(LC.DATE_STYLES[self.lang])
        if inv["country"] == "US" and self.date_style == "slash":
            self.date_style = "us"
        self.cur_style = rnd.choice(LC.CURRENCY_STYLES)
        self.table_cur = self.cur_style != "none" and rnd.random() < 0.3
        self.label_colon = rnd.random() < 0.7
        self.labels = {}
        self.units = LC.LABELS[self.lang]["units"]
        self.cur_in_header = False
        self.page, self.y = None, 0.0
        self.footer = []  # list of columns (lists of strings), drawn on every page
        self.cont_header = None  # small text at the top of continuation pages

    # ----- formatting -------------------------------------------------
    def L(self, key, **kw):
        if key not in self.labels:
            self.labels[key] = LC.label(self.lang, key, self.rnd)
        return self.labels[key].format(**kw) if kw else self.labels[key]

    def lab(self, key, **kw):
        return self.L(key, **kw) + (":" if self.label_colon else "")

    def num(self, cents):
        return LC.fmt_number(cents, self.num_style)

    def money(self, cents, style=None):
        return LC.fmt_money(cents, self.inv["currency"], self.num_style,
                            self.cur_style if style is None else style, self.lang)

    def cell_money(self, cents):
        return self.money(cents) if self.table_cur else self.num(cents)

    def date(self, d):
        return LC.fmt_date(d, self.lang, self.date_style)

    def qty(self, h):
        return LC.fmt_qty(h, self.num_style)

    def rate(self, r):
        return LC.fmt_rate(r, self.num_style)

    def vat_text(self, v):
        return content.spaced_vat(v, self.rnd) if self.rnd.random() < 0.3 else v

    # ----- drawing ----------------------------------------------------
    def width(self, s, font=None, size=None):
        return P.text_width(s, font or self.reg, size or self.base)

    def text(self, x, y, s, font=None, size=None, align="left", maxw=None):
        font, size = font or self.reg, size or self.base
        if maxw is not None:
            size = P.fit_size(s, font, size, maxw)
        self.page.text(x, y, s, font, size, align)
        return size

    def lines_block(self, x, y, rows, maxw, align="left"):
        """rows: (text, font, size). Draws top-down from y; returns new y."""
        for s, font, size in rows:
            y += size
            self.text(x, y, s, font, size, align, maxw)
            y += size * 0.35
        return y

    def footer_height(self):
        if not self.footer:
            return 0.0
        return max(len(c) for c in self.footer) * self.small * 1.3 + 8

    def limit(self):
        """Lowest y the flow may use on a page."""
        return self.H - self.mb - self.footer_height() - 6

    def new_page(self):
        self.page = self.pdf.new_page()
        self.y = float(self.mt)
        if self.footer:
            top = self.H - self.mb - self.footer_height()
            self.page.line(self.x0, top, self.x1, top, 0.4)
            n = len(self.footer)
            cw = (self.x1 - self.x0) / n
            for i, col in enumerate(self.footer):
                rows = [(s, self.bold if j == 0 and i == 0 else self.reg, self.small) for j, s in enumerate(col)]
                self.lines_block(self.x0 + i * cw, top + 3, rows, cw - 8)
        if len(self.pdf.pages) > 1 and self.cont_header:
            self.y = self.lines_block(self.x0, self.y, [(self.cont_header, self.bold, self.small + 0.5)], self.x1 - self.x0) + 8
        return self.page


def party_rows(d, heading, name, lines, extra, name_size=None):
    rows = []
    if heading:
        rows.append((heading, d.bold, d.small))
    rows.append((name, d.bold if d.rnd.random() < 0.6 else d.reg, name_size or d.base))
    rows += [(s, d.reg, d.base) for s in lines]
    rows += [(s, d.reg, d.small if d.rnd.random() < 0.5 else d.base) for s in extra]
    return rows


# ----- header fields ---------------------------------------------------------

def fields_inline(d, fields, x0, x1, y, align="left"):
    """'Label: value' one per line."""
    bold_label = d.rnd.random() < 0.5
    for lab, val in fields:
        y += d.base
        if align == "right":
            vw = d.width(val)
            d.text(x1, y, val, d.reg, d.base, "right")
            d.text(x1 - vw - 5, y, lab, d.bold if bold_label else d.reg, d.base, "right", maxw=x1 - x0 - vw - 5)
        else:
            lw = d.width(lab, d.bold if bold_label else d.reg)
            d.text(x0, y, lab, d.bold if bold_label else d.reg, d.base)
            d.text(x0 + lw + 5, y, val, d.reg, d.base, maxw=x1 - x0 - lw - 5)
        y += d.base * 0.4
    return y


def fields_column(d, fields, x0, x1, y):
    """Labels right-aligned in a column, values left-aligned to their right."""
    size = d.base
    lw = max(d.width(l, d.reg, size) for l, _ in fields)
    vw = max(d.width(v, d.bold, size) for _, v in fields)
    while lw + vw + 10 > x1 - x0 and size > 6:
        size -= 0.5
        lw = max(d.width(l, d.reg, size) for l, _ in fields)
        vw = max(d.width(v, d.bold, size) for _, v in fields)
    vbold = d.rnd.random() < 0.5
    for lab, val in fields:
        y += size
        d.text(x0 + lw, y, lab, d.reg, size, "right")
        d.text(x0 + lw + 10, y, val, d.bold if vbold else d.reg, size)
        y += size * 0.45
    return y


def fields_stacked(d, fields, x0, x1, y):
    """Small label above its value; cells flow left to right, then wrap."""
    x, row_top = x0, y
    ls, vs = d.small, d.base
    cell_h = ls + vs + vs * 0.8
    for lab, val in fields:
        w = max(d.width(lab, d.reg, ls), d.width(val, d.bold, vs)) + 16
        if x > x0 and x + w > x1:
            x, row_top = x0, row_top + cell_h + 4
        d.text(x, row_top + ls, lab, d.reg, ls, maxw=x1 - x)
        d.text(x, row_top + ls + vs + 2, val, d.bold, vs, maxw=x1 - x)
        x += w
    return row_top + cell_h + 4


def fields_grid(d, fields, x0, x1, y):
    """Boxed grid of label/value cells."""
    ncols = max(1, min(len(fields), int((x1 - x0) // 105), 4))
    cw = (x1 - x0) / ncols
    ls, vs = d.small, d.base
    ch = ls + vs + 10
    shade = d.rnd.choice([None, 0.93, 0.88])
    for i, (lab, val) in enumerate(fields):
        r, c = divmod(i, ncols)
        cx, cy = x0 + c * cw, y + r * ch
        if shade is not None:
            d.page.rect(cx, cy, cw, ls + 4, fill_gray=shade, stroke=False)
        d.page.rect(cx, cy, cw, ch, width=0.5)
        d.text(cx + 3, cy + ls + 1, lab, d.reg, ls, maxw=cw - 6)
        d.text(cx + 3, cy + ls + vs + 5, val, d.bold, vs, maxw=cw - 6)
    rows = (len(fields) + ncols - 1) // ncols
    return y + rows * ch + 6


def draw_fields(d, style, fields, x0, x1, y, align="left"):
    if not fields:
        return y
    if style == "column":
        return fields_column(d, fields, x0, x1, y)
    if style == "stacked":
        return fields_stacked(d, fields, x0, x1, y)
    if style == "grid":
        return fields_grid(d, fields, x0, x1, y)
    return fields_inline(d, fields, x0, x1, y, align)


# ----- footer ----------------------------------------------------------------

def build_footer(d, show_vat, show_bank):
    inv, s = d.inv, d.inv["seller"]
    col1 = [s["name"]] + s["lines"]
    col2 = ["%s %s" % (d.L("tel"), s["phone"]), "%s %s" % (d.L("email"), s["email"])]
    if show_vat and s["vat"]:
        col2.append("%s %s" % (d.L("vat_id"), d.vat_text(s["vat"])))
    cols = [col1, col2]
    if show_bank:
        cols.append(bank_lines(d))
    d.footer = cols


def bank_lines(d):
    s = d.inv["seller"]
    out = [d.L("bank")]
    if s["iban"]:
        out.append("IBAN %s" % (content.group4(s["iban"]) if d.rnd.random() < 0.7 else s["iban"]))
    else:
        out.append("ABA %s  Acct %s" % (s["routing"], s["account"]))
    out.append("%s %s" % ("SWIFT" if s["country"] in ("US", "GB") else "BIC", s["bic"]))
    return out
