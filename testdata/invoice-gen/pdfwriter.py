"""Minimal, deterministic PDF writer (standard library only).

Coordinates given to the drawing ops are in PDF points with the origin at the
top-left corner of the page (y grows downwards); they are flipped on output.
Text uses the base-14 fonts with /WinAnsiEncoding, so strings are encoded as
cp1252 (the euro sign is byte 0x80). No timestamps or random ids are written,
so the same drawing calls always give byte-identical output.
"""

import zlib

import fontwidths

A4 = (595.28, 841.89)
LETTER = (612.0, 792.0)

FONTS = {
    "Helvetica": "F1",
    "Helvetica-Bold": "F2",
    "Times-Roman": "F3",
    "Times-Bold": "F4",
    "Courier": "F5",
}

_WIDTHS = {
    "Helvetica": fontwidths.HELVETICA,
    "Helvetica-Bold": fontwidths.HELVETICA_BOLD,
    "Times-Roman": fontwidths.TIMES_ROMAN,
    "Times-Bold": fontwidths.TIMES_BOLD,
}


def encode(s):
    """cp1252 bytes of s; raises on characters WinAnsi cannot show."""
    return s.encode("cp1252")


def text_width(s, font, size):
    """Advance width of s in points."""
    if font == "Courier":
        return 0.6 * size * len(encode(s))
    table = _WIDTHS[font]
    total = 0
    for b in encode(s):
        total += table[b - 32] if b >= 32 else 556
    return total * size / 1000.0


def fit_size(s, font, size, max_width, min_size=5.5):
    """Largest size <= size (in 0.5 pt steps) at which s fits max_width."""
    while size > min_size and text_width(s, font, size) > max_width:
        size -= 0.5
    return size


def _num(v):
    s = "%.2f" % v
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _pdf_string(s):
    out = bytearray(b"(")
    for b in encode(s):
        if b in (0x28, 0x29, 0x5C):
            out += b"\\" + bytes([b])
        else:
            out.append(b)
    out += b")"
    return bytes(out)


class Page:
    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.ops = []
        self.image = None  # (jpeg bytes, px width, px height) for scan pages

    def text(self, x, y, s, font="Helvetica", size=10, align="left"):
        """Draw s with its baseline at y (from top). align=right: x is the right edge."""
        if font not in FONTS:
            raise ValueError("unknown font %r" % font)
        if align == "right":
            x -= text_width(s, font, size)
        elif align == "center":
            x -= text_width(s, font, size) / 2.0
        elif align != "left":
            raise ValueError("align must be left, right or center")
        self.ops.append(
            b"BT /" + FONTS[font].encode() + b" " + _num(size).encode() + b" Tf "
            + _num(x).encode() + b" " + _num(self.height - y).encode() + b" Td "
            + _pdf_string(s) + b" Tj ET"
        )
        return x

    def line(self, x1, y1, x2, y2, width=0.5):
        self.ops.append(
            ("%s w %s %s m %s %s l S" % (
                _num(width), _num(x1), _num(self.height - y1),
                _num(x2), _num(self.height - y2))).encode()
        )

    def rect(self, x, y, w, h, fill_gray=None, stroke=True, width=0.5):
        """Rectangle with top-left (x, y). fill_gray in 0..1 fills it."""
        r = "%s %s %s %s re" % (_num(x), _num(self.height - y - h), _num(w), _num(h))
        if fill_gray is not None:
            op = "B" if stroke else "f"
            self.ops.append(("q %s g %s w %s %s Q" % (_num(fill_gray), _num(width), r, op)).encode())
        else:
            self.ops.append(("%s w %s S" % (_num(width), r)).encode())

    def content(self):
        if self.image is not None:
            return ("q %s 0 0 %s 0 0 cm /Im1 Do Q" % (_num(self.width), _num(self.height))).encode()
        return b"0 g 0 G\n" + b"\n".join(self.ops) + b"\n"


class Document:
    def __init__(self, size=A4):
        self.size = size
        self.pages = []

    def new_page(self):
        p = Page(*self.size)
        self.pages.append(p)
        return p

    def image_page(self, jpeg, px_w, px_h, size=None):
        """Append an image-only page showing a grey JPEG scaled to the page."""
        p = Page(*(size or self.size))
        p.image = (jpeg, px_w, px_h)
        self.pages.append(p)
        return p

    def to_bytes(self):
        objs = {}  # number -> bytes (without "n 0 obj")
        n_pages = len(self.pages)
        # 1 catalog, 2 pages tree, 3..7 fonts, then per page: page, content[, image]
        objs[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
        font_ids = {}
        for i, (name, res) in enumerate(FONTS.items()):
            num = 3 + i
            font_ids[res] = num
            enc = b" /Encoding /WinAnsiEncoding"
            objs[num] = (b"<< /Type /Font /Subtype /Type1 /BaseFont /" + name.encode() + enc + b" >>")
        font_res = b"<< " + b" ".join(
            b"/" + r.encode() + b" " + str(n).encode() + b" 0 R" for r, n in font_ids.items()) + b" >>"
        nxt = 3 + len(FONTS)
        kids = []
        for p in self.pages:
            page_num, content_num = nxt, nxt + 1
            nxt += 2
            kids.append(page_num)
            data = zlib.compress(p.content(), 9)
            objs[content_num] = (b"<< /Length " + str(len(data)).encode() + b" /Filter /FlateDecode >>\nstream\n"
                                 + data + b"\nendstream")
            if p.image is not None:
                img_num = nxt
                nxt += 1
                jpeg, pw, ph = p.image
                objs[img_num] = (("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                                  "/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % (pw, ph, len(jpeg))).encode()
                                 + jpeg + b"\nendstream")
                res = b"<< /XObject << /Im1 " + str(img_num).encode() + b" 0 R >> >>"
            else:
                res = b"<< /Font " + font_res + b" >>"
            objs[page_num] = (("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] " % (_num(p.width), _num(p.height))).encode()
                              + b"/Resources " + res + b" /Contents " + str(content_num).encode() + b" 0 R >>")
        objs[2] = (b"<< /Type /Pages /Count " + str(n_pages).encode() + b" /Kids ["
                   + b" ".join(str(k).encode() + b" 0 R" for k in kids) + b"] >>")
        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = {}
        for num in range(1, nxt):
            offsets[num] = len(out)
            out += str(num).encode() + b" 0 obj\n" + objs[num] + b"\nendobj\n"
        xref = len(out)
        out += ("xref\n0 %d\n" % nxt).encode()
        out += b"0000000000 65535 f \n"
        for num in range(1, nxt):
            out += ("%010d 00000 n \n" % offsets[num]).encode()
        out += ("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (nxt, xref)).encode()
        return bytes(out)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())


if __name__ == "__main__":  # tiny smoke test: python3 pdfwriter.py out.pdf
    import sys
    d = Document()
    pg = d.new_page()
    pg.text(50, 60, "Rechnung (Test) \\ 1.234,56 \u20ac \u00e4\u00f6\u00fc\u00df", "Helvetica-Bold", 16)
    pg.text(545, 90, "1.234,56 \u20ac", "Times-Roman", 10, align="right")
    pg.line(50, 100, 545, 100, 0.8)
    pg.rect(50, 110, 200, 40, fill_gray=0.9)
    pg.text(55, 130, "Courier text", "Courier", 9)
    d.new_page().text(50, 60, "Seite 2", "Times-Bold", 12)
    d.save(sys.argv[1] if len(sys.argv) > 1 else "/tmp/pdfwriter-test.pdf")
