"""A till slip as a list of rows, drawn into a one-page PDF with a text layer.

Rows are laid out on a grid of `ncols` character cells across the printable width of the
paper roll (58 mm -> 48 mm printable, 80 mm -> 72 mm). With Courier every cell is one
character (horizontal scaling `Tz` squeezes the font to the thermal printer's tall glyphs);
with Helvetica the cells are nominal and every part is measured. Bold Courier is drawn with
text render mode 2 (fill + stroke), so the text layer holds each string once.

Uses the invoice generator's `pdfwriter` (Document, string encoding, AFM widths) unchanged:
text ops are appended to `Page.ops` directly, each wrapped in q/Q so Tz/Tr/w never leak.
"""

import pdfwriter as P

MM = 72.0 / 25.4
PRINTABLE = {58: 48.0, 80: 72.0}


def _n(v):
    return P._num(v).encode()


class Slip:
    def __init__(self, rnd, paper_mm, font, ncols, hscale=100.0, line_factor=1.2, ink=0.15):
        self.rnd = rnd
        self.paper_mm = paper_mm
        self.font = font
        self.mono = font == "Courier"
        self.paper_w = paper_mm * MM
        self.W = PRINTABLE[paper_mm] * MM * rnd.uniform(0.96, 1.0)
        self.margin = (self.paper_w - self.W) / 2 + rnd.uniform(-1.0, 1.0) * MM
        self.ncols = ncols
        self.hscale = hscale if self.mono else 100.0
        if self.mono:
            self.size = self.W / (ncols * 0.6 * self.hscale / 100.0)
        else:
            self.size = self.W / (ncols * 0.5)
        self.line_factor = line_factor
        self.ink = ink
        self.rows = []

    # --------------------------------------------------------------------- measuring
    @staticmethod
    def _mults(wide=False, tall=False, mult=None):
        """(font-size multiplier, horizontal-scale multiplier)."""
        if mult:
            return mult, 1.0
        if wide and tall:
            return 2.0, 1.0
        if wide:
            return 1.0, 2.0
        if tall:
            return 2.0, 0.5
        return 1.0, 1.0

    def _font(self, bold):
        if self.mono:
            return "Courier"
        return "Helvetica-Bold" if bold else "Helvetica"

    def width(self, text, bold=False, wide=False, tall=False, mult=None, font=None):
        fm, hm = self._mults(wide, tall, mult)
        f = font or self._font(bold)
        return P.text_width(text, f, self.size * fm) * self.hscale * hm / 100.0

    def cell(self):
        return self.W / self.ncols

    def cols_for(self, wide=False, tall=False, mult=None):
        """How many characters of a mono row fit (for proportional fonts: nominal)."""
        fm, hm = self._mults(wide, tall, mult)
        return int(self.ncols / (fm * hm) + 1e-6)

    def fits(self, text, **st):
        st = {k: v for k, v in st.items() if k in ("bold", "wide", "tall", "mult", "font")}
        return self.width(text, **st) <= self.W + 0.01

    def wrap(self, text, **st):
        """Split text at spaces into lines that fit."""
        words = text.split(" ")
        lines, cur = [], ""
        for w in words:
            t = (cur + " " + w) if cur else w
            if self.fits(t, **st) or not cur:
                cur = t
            else:
                lines.append(cur)
                cur = w
        if cur:
            lines.append(cur)
        return lines

    def clip(self, text, max_width_pt, **st):
        """Longest prefix of text (trailing spaces removed) that fits max_width_pt."""
        st = {k: v for k, v in st.items() if k in ("bold", "wide", "tall", "mult", "font")}
        while text and self.width(text, **st) > max_width_pt + 0.01:
            text = text[:-1]
        return text.rstrip()

    # ----------------------------------------------------------------------- rows
    def row(self, parts, bold=False, wide=False, tall=False, mult=None, font=None, space=0.0):
        """parts: list of (text, col, align) with align in l/r/c and col in cells (0..ncols)."""
        parts = [(t, c, a) for t, c, a in parts if t]
        self.rows.append(dict(kind="text", parts=parts, bold=bold, wide=wide, tall=tall, mult=mult,
                              font=font, space=space))

    def center(self, text, **st):
        for t in (self.wrap(text, **st) if not self.fits(text, **st) else [text]):
            self.row([(t, self.ncols / 2.0, "c")], **st)

    def left(self, text, indent=0, **st):
        if self.width(text, **{k: v for k, v in st.items() if k in ("bold", "wide", "tall", "mult")}) \
                + indent * self.cell() > self.W + 0.01:
            for t in self.wrap(text, **st):
                self.row([(t, 0, "l")], **st)
            return
        self.row([(text, indent, "l")], **st)

    def right(self, text, **st):
        self.row([(text, self.ncols, "r")], **st)

    def lr(self, left, right, indent=0, **st):
        """Left text and right-aligned text; if they collide, right text on its own row."""
        gap = self.cell() * 1.0
        wl = self.width(left, **{k: v for k, v in st.items() if k in ("bold", "wide", "tall", "mult")}) + indent * self.cell()
        wr = self.width(right, **{k: v for k, v in st.items() if k in ("bold", "wide", "tall", "mult")})
        if wl + gap + wr <= self.W + 0.01:
            self.row([(left, indent, "l"), (right, self.ncols, "r")], **st)
        else:
            self.row([(left, indent, "l")], **st)
            self.row([(right, self.ncols, "r")], **st)

    def parts_fit(self, parts, **st):
        """True if no two parts of a row overlap and all stay inside the printable width."""
        boxes = []
        stw = {k: v for k, v in st.items() if k in ("bold", "wide", "tall", "mult")}
        for t, c, a in parts:
            if not t:
                continue
            w = self.width(t, **stw)
            x = c * self.cell()
            x0 = x if a == "l" else (x - w if a == "r" else x - w / 2)
            boxes.append((x0, x0 + w))
        boxes.sort()
        if boxes and (boxes[0][0] < -0.01 or boxes[-1][1] > self.W + 0.01):
            return False
        gap = self.cell() * 0.6
        return all(b[0] >= a[1] + gap - 0.01 for a, b in zip(boxes, boxes[1:]))

    def rule(self, ch="-"):
        self.rows.append(dict(kind="rule", ch=ch))

    def gap(self, lines=0.5):
        self.rows.append(dict(kind="gap", lines=lines))

    def barcode(self, text=None, height_mm=9.0):
        self.rows.append(dict(kind="barcode", text=text, h=height_mm * MM,
                              bars=[self.rnd.randint(1, 3) for _ in range(64)]))

    def qr(self, size_mm=18.0):
        n = 25
        mods = [[self.rnd.random() < 0.5 for _ in range(n)] for _ in range(n)]
        for (r0, c0) in ((0, 0), (0, n - 7), (n - 7, 0)):
            for r in range(7):
                for c in range(7):
                    edge = r in (0, 6) or c in (0, 6)
                    core = 2 <= r <= 4 and 2 <= c <= 4
                    mods[r0 + r][c0 + c] = edge or core
        self.rows.append(dict(kind="qr", size=size_mm * MM, mods=mods))

    def logo(self, text, style):
        """A brand word: box (white on black), big (large bold), outline (framed)."""
        self.rows.append(dict(kind="logo", text=text, style=style))

    # ----------------------------------------------------------------------- drawing
    def _text_op(self, page, x, y, s, font, size, hs, stroke=0.0, white=False):
        op = b"q "
        if white:
            op += b"1 g 1 G "
        op += b"BT /" + P.FONTS[font].encode() + b" " + _n(size) + b" Tf "
        if abs(hs - 100.0) > 1e-6:
            op += _n(hs) + b" Tz "
        if stroke > 0:
            op += b"2 Tr " + _n(stroke) + b" w "
        op += _n(x) + b" " + _n(page.height - y) + b" Td " + P._pdf_string(s) + b" Tj ET Q"
        page.ops.append(op)

    def _row_height(self, r):
        lh = self.size * self.line_factor
        if r["kind"] == "text":
            fm, _ = self._mults(r["wide"], r["tall"], r["mult"])
            return lh * fm + r["space"]
        if r["kind"] == "rule":
            return lh * (0.9 if self.mono else 0.6)
        if r["kind"] == "gap":
            return lh * r["lines"]
        if r["kind"] == "barcode":
            return r["h"] + (lh * 1.1 if r["text"] else 0) + lh * 0.6
        if r["kind"] == "qr":
            return r["size"] + lh * 0.6
        if r["kind"] == "logo":
            return self._logo_size(r) * (1.55 if r["style"] == "box" else 1.35)
        raise ValueError(r["kind"])

    def _logo_size(self, r):
        size = self.size * (2.6 if r["style"] != "box" else 2.2)
        f = "Times-Bold" if r["style"] == "serif" else "Helvetica-Bold"
        while size > self.size and P.text_width(r["text"], f, size) > self.W * 0.9:
            size -= 0.5
        return size

    def render(self):
        """pdfwriter.Document of one page sized to the slip."""
        top = self.rnd.uniform(4, 9) * MM
        bottom = self.rnd.uniform(6, 14) * MM
        height = top + sum(self._row_height(r) for r in self.rows) + bottom
        doc = P.Document((self.paper_w, height))
        page = doc.new_page()
        y = top
        cell = self.cell()
        for r in self.rows:
            h = self._row_height(r)
            if r["kind"] == "text":
                fm, hm = self._mults(r["wide"], r["tall"], r["mult"])
                size = self.size * fm
                hs = self.hscale * hm
                font = r["font"] or self._font(r["bold"])
                stroke = 0.0
                if self.mono:
                    stroke = (self.ink + (0.3 if r["bold"] else 0.0)) * (fm * hm) ** 0.5
                base = y + r["space"] + size * 0.86
                for t, c, a in r["parts"]:
                    w = P.text_width(t, font, size) * hs / 100.0
                    x = self.margin + c * cell
                    if a == "r":
                        x -= w
                    elif a == "c":
                        x -= w / 2.0
                    self._text_op(page, x, base, t, font, size, hs, stroke)
            elif r["kind"] == "rule":
                mid = y + h * 0.5
                if self.mono:
                    s = r["ch"] * self.ncols
                    self._text_op(page, self.margin, y + self.size * 0.8, s, "Courier", self.size, self.hscale, self.ink)
                elif r["ch"] == "=":
                    page.line(self.margin, mid - 0.8, self.margin + self.W, mid - 0.8, 0.5)
                    page.line(self.margin, mid + 0.8, self.margin + self.W, mid + 0.8, 0.5)
                elif r["ch"] == "-":
                    page.ops.append(b"q [2 1.5] 0 d 0.6 w " + _n(self.margin) + b" " + _n(page.height - mid) + b" m "
                                    + _n(self.margin + self.W) + b" " + _n(page.height - mid) + b" l S Q")
                else:
                    page.line(self.margin, mid, self.margin + self.W, mid, 0.7)
            elif r["kind"] == "barcode":
                unit = 1.0
                total = sum(r["bars"]) * unit * 1.6
                x = self.margin + (self.W - total) / 2
                black = True
                for b in r["bars"]:
                    if black:
                        page.rect(x, y + 2, b * unit, r["h"], fill_gray=0, stroke=False)
                    x += b * unit * 1.6 if not black else b * unit
                    black = not black
                if r["text"]:
                    self._text_op(page, self.margin + self.W / 2 - P.text_width(r["text"], "Courier", self.size) * 0.5,
                                  y + 2 + r["h"] + self.size * 1.0, r["text"], "Courier", self.size, 100.0, self.ink)
            elif r["kind"] == "qr":
                n = len(r["mods"])
                m = r["size"] / n
                x0 = self.margin + (self.W - r["size"]) / 2
                for i, rowm in enumerate(r["mods"]):
                    for j, on in enumerate(rowm):
                        if on:
                            page.rect(x0 + j * m, y + 2 + i * m, m + 0.05, m + 0.05, fill_gray=0, stroke=False)
            elif r["kind"] == "logo":
                size = self._logo_size(r)
                font = "Times-Bold" if r["style"] == "serif" else "Helvetica-Bold"
                w = P.text_width(r["text"], font, size)
                cx = self.margin + self.W / 2
                if r["style"] == "box":
                    pad = size * 0.35
                    page.rect(cx - w / 2 - pad, y + size * 0.1, w + 2 * pad, size * 1.25, fill_gray=0, stroke=False)
                    self._text_op(page, cx - w / 2, y + size * 1.05, r["text"], font, size, 100.0, white=True)
                elif r["style"] == "outline":
                    pad = size * 0.3
                    page.rect(cx - w / 2 - pad, y + size * 0.05, w + 2 * pad, size * 1.2, width=1.2)
                    self._text_op(page, cx - w / 2, y + size * 0.97, r["text"], font, size, 100.0)
                else:
                    self._text_op(page, cx - w / 2, y + size * 0.95, r["text"], font, size, 100.0)
            y += h
        return doc
