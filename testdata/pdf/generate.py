#!/usr/bin/python3
"""Writes the synthetic PDF fixtures of this folder (see README.md).

Run from anywhere with the system Python (it needs PIL for the scanned pages, and qpdf for the
encrypted copies):

    /usr/bin/python3 testdata/pdf/generate.py

Every PDF is written by hand (objects, xref, trailer) so the content is known exactly: the tests
assert texts, positions, rotation, rulings and image resolutions that are fixed here.
"""

import io
import os
import subprocess
import zlib

from PIL import Image, ImageDraw, ImageFont, TiffImagePlugin

HERE = os.path.dirname(os.path.abspath(__file__))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
A4 = (595, 842)


class Pdf:
    """A minimal PDF writer: numbered objects, one xref table."""

    def __init__(self):
        self.objects = []

    def reserve(self):
        self.objects.append(None)
        return len(self.objects)

    def set(self, num, body):
        self.objects[num - 1] = body if isinstance(body, bytes) else body.encode("latin-1")

    def add(self, body):
        num = self.reserve()
        self.set(num, body)
        return num

    def stream(self, dictionary, data, compress=True):
        if compress:
            data = zlib.compress(data, 9)
            dictionary += " /Filter /FlateDecode"
        head = f"<< {dictionary} /Length {len(data)} >>\nstream\n".encode("latin-1")
        return self.add(head + data + b"\nendstream")

    def write(self, name, root):
        out = io.BytesIO()
        out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for i, body in enumerate(self.objects, start=1):
            offsets.append(out.tell())
            out.write(f"{i} 0 obj\n".encode() + body + b"\nendobj\n")
        xref = out.tell()
        out.write(f"xref\n0 {len(self.objects) + 1}\n0000000000 65535 f \n".encode())
        for off in offsets:
            out.write(f"{off:010d} 00000 n \n".encode())
        out.write(
            f"trailer\n<< /Size {len(self.objects) + 1} /Root {root} 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n".encode()
        )
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(out.getvalue())


def pdf_string(text):
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return "(" + escaped + ")"


def text_op(x, y, size, text, font="F1", mode=0):
    return f"BT /{font} {size} Tf {mode} Tr 1 0 0 1 {x} {y} Tm {pdf_string(text)} Tj ET\n"


def document(pages, extra_fonts=""):
    """pages: list of (content bytes, page-dict extras, xobjects dict string)."""
    pdf = Pdf()
    catalog = pdf.reserve()
    tree = pdf.reserve()
    font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for content, extras, xobjects in pages:
        contents = pdf.stream("", content.encode("cp1252") if isinstance(content, str) else content)
        resources = f"/Font << /F1 {font} 0 R {extra_fonts} >>"
        if xobjects:
            resources += f" /XObject << {xobjects(pdf)} >>"
        kids.append(
            pdf.add(
                f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 {A4[0]} {A4[1]}] "
                f"/Resources << {resources} >> /Contents {contents} 0 R {extras} >>"
            )
        )
    pdf.set(tree, f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>")
    pdf.set(catalog, f"<< /Type /Catalog /Pages {tree} 0 R >>")
    return pdf, catalog


LEFT = [
    "The cooperative grew in every region",
    "this year, with members in the north",
    "joining first and the south following",
    "after the new depot opened in spring.",
    "Deliveries rose by a fifth, and the",
    "share of late orders fell below two",
    "percent for the first time since the",
    "founding of the cooperative in 1998.",
]
RIGHT = [
    "Costs stayed flat although fuel was",
    "dearer: the routes were shortened and",
    "two old vans were replaced by electric",
    "ones. The board proposes to pay back",
    "three percent of all member fees and",
    "to keep the remainder as a reserve for",
    "the next winter. Members vote on this",
    "proposal at the meeting in November.",
]


def two_column():
    c = text_op(50, 772, 18, "Annual Report of the Example Cooperative 2024")
    for i, (left, right) in enumerate(zip(LEFT, RIGHT)):
        y = 720 - 14 * i
        c += text_op(50, y, 10, left) + text_op(310, y, 10, right)
    c += text_op(50, 40, 9, "Example Cooperative - Annual Report 2024 - page 1 of 1 - printed for testing only")
    pdf, root = document([(c, "", None)])
    pdf.write("two_column.pdf", root)


def ruled_table():
    c = text_op(50, 780, 14, "Rechnung 2024-017")
    c += text_op(50, 740, 10, "Rechnungsdatum:") + text_op(200, 740, 10, "12.03.2024")
    c += text_op(50, 724, 10, "Währung:") + text_op(200, 724, 10, "EUR")
    cols = [50, 90, 330, 400, 470, 545]
    top, row_h, rows = 680, 20, 4
    cells = [
        ["Pos", "Beschreibung", "Menge", "Preis", "Betrag"],
        ["1", "Trennblätter A4", "20", "9,90", "198,00"],
        ["2", "Joghurt Banane", "50", "5,50", "275,00"],
        ["3", "Versand", "1", "0,00", "0,00"],
    ]
    for r, row in enumerate(cells):
        baseline = top - r * row_h - 14
        for i, text in enumerate(row):
            c += text_op(cols[i] + 4, baseline, 10, text)
    bottom = top - rows * row_h
    # Outer frame as a stroked rectangle, inner lines as stroked segments.
    c += f"0.8 w {cols[0]} {bottom} {cols[-1] - cols[0]} {rows * row_h} re S\n"
    for r in range(2, rows):
        y = top - r * row_h
        c += f"{cols[0]} {y} m {cols[-1]} {y} l S\n"
    for x in cols[1:-1]:
        c += f"{x} {bottom} m {x} {top} l S\n"
    # The rule under the header as a thin filled rectangle.
    c += f"{cols[0]} {top - row_h - 0.5} {cols[-1] - cols[0]} 1 re f\n"
    c += text_op(330, bottom - 20, 10, "Summe netto: 473,00 EUR")
    pdf, root = document([(c, "", None)])
    pdf.write("ruled_table.pdf", root)


def rotated():
    # /Rotate 90: the page is shown turned a quarter clockwise, 842 wide and 595 high. The text
    # is drawn turned a quarter counter-clockwise in user space so that it reads upright.
    # A displayed point (dx, dy) is the user-space point (x = dy, y = dx).
    c = ""
    for i, line in enumerate(["Landscape page rotated by ninety degrees", "Second line of the rotated page"]):
        dy = 80 + 30 * i
        c += f"BT /F1 12 Tf 0 1 -1 0 {dy} 60 Tm {pdf_string(line)} Tj ET\n"
    # A rule under the text: horizontal on the displayed page at dy = 150, from dx 60 to 400.
    c += "1 w 150 60 m 150 400 l S\n"
    pdf, root = document([(c, "/Rotate 90", None)])
    pdf.write("rotated.pdf", root)


def multipage():
    pages = []
    for n in range(1, 4):
        c = text_op(72, 760, 12, f"Page {n} of 3")
        c += text_op(72, 730, 10, f"This is the body text of page number {n}.")
        pages.append((c, "", None))
    pdf, root = document(pages)
    pdf.write("multipage.pdf", root)
    for name, user in [("encrypted_user_password.pdf", "secret"), ("encrypted_owner_only.pdf", "")]:
        subprocess.run(
            ["qpdf", "--encrypt", user, "owner-secret", "256", "--",
             os.path.join(HERE, "multipage.pdf"), os.path.join(HERE, name)],
            check=True,
        )


SCAN_LINES = [
    "Rechnung Nr. 4711",
    "Datum: 05.03.2024",
    "Lieferant GmbH, Lieferantenstraße 20, 80333 München",
    "Betrag: 235,62 EUR",
    "Vielen Dank für Ihren Auftrag.",
]


def scanned_image(dpi, mode):
    """A4 page image with the scan lines; returns the image and the line positions in points."""
    size = (round(A4[0] / 72 * dpi), round(A4[1] / 72 * dpi))
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, round(14 / 72 * dpi))
    positions = []
    for i, line in enumerate(SCAN_LINES):
        x_pt, top_pt = 72, 100 + 28 * i
        draw.text((x_pt / 72 * dpi, top_pt / 72 * dpi), line, fill=0, font=font)
        positions.append((x_pt, top_pt, line))
    return image.convert(mode), positions


def g4_strip(image):
    """The CCITT group 4 data of a bitonal image, as one strip."""
    buf = io.BytesIO()
    TiffImagePlugin.WRITE_LIBTIFF = True
    image.save(buf, "TIFF", compression="group4", strip_size=10**9)
    buf.seek(0)
    tiff = Image.open(buf)
    offsets, counts = tiff.tag_v2[273], tiff.tag_v2[279]
    assert len(offsets) == 1, "expected a single strip"
    photometric = tiff.tag_v2[262]
    raw = buf.getvalue()
    return raw[offsets[0]:offsets[0] + counts[0]], photometric


def image_only():
    """A bitonal 250 dpi scan in CCITT G4, no text layer."""
    image, _ = scanned_image(250, "1")
    data, photometric = g4_strip(image)
    w, h = image.size
    # TIFF photometric 0 (WhiteIsZero) is the fax convention; 1 (BlackIsZero) needs BlackIs1.
    black_is_1 = "false" if photometric == 0 else "true"

    def xobjects(pdf):
        img = pdf.stream(
            f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
            f"/BitsPerComponent 1 /Filter /CCITTFaxDecode "
            f"/DecodeParms << /K -1 /Columns {w} /Rows {h} /BlackIs1 {black_is_1} >>",
            data,
            compress=False,
        )
        return f"/Im1 {img} 0 R"

    content = f"q {A4[0]} 0 0 {A4[1]} 0 0 cm /Im1 Do Q\n"
    pdf, root = document([(content, "", xobjects)])
    pdf.write("image_only.pdf", root)


def invisible_text():
    """A 150 dpi grey scan with an invisible (render mode 3) text layer, as OCR tools write."""
    image, positions = scanned_image(150, "L")
    w, h = image.size

    def xobjects(pdf):
        img = pdf.stream(
            f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
            f"/BitsPerComponent 8",
            image.tobytes(),
        )
        return f"/Im1 {img} 0 R"

    content = f"q {A4[0]} 0 0 {A4[1]} 0 0 cm /Im1 Do Q\n"
    for x, top, line in positions:
        content += text_op(x, A4[1] - top - 13, 14, line, mode=3)
    pdf, root = document([(content, "", xobjects)])
    pdf.write("invisible_text.pdf", root)


def garbage_text():
    """Readable glyphs whose ToUnicode map decodes every byte c to U+cc00: the byte-swapped
    UTF-16 junk (CJK-looking) of a broken text layer."""
    lines = ["Pure Magenta", "Pure Cyan", "Pure Yellow", "Pure Black", "Registration Colour Test"]
    pdf = Pdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    entries = "".join(f"<{c:02X}> <{c:02X}00>\n" for c in range(0x20, 0x7F))
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Junk def /CMapType 2 def\n1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"{0x7F - 0x20} beginbfchar\n{entries}endbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end\n"
    )
    to_unicode = pdf.stream("", cmap.encode())
    font = pdf.add(
        f"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding "
        f"/ToUnicode {to_unicode} 0 R >>"
    )
    content = "".join(text_op(72, 760 - 30 * i, 18, line) for i, line in enumerate(lines))
    contents = pdf.stream("", content.encode())
    page = pdf.add(
        f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 {A4[0]} {A4[1]}] "
        f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {contents} 0 R >>"
    )
    pdf.set(tree, f"<< /Type /Pages /Kids [{page} 0 R] /Count 1 >>")
    pdf.set(catalog, f"<< /Type /Catalog /Pages {tree} 0 R >>")
    pdf.write("garbage_text.pdf", catalog)


def invalid():
    # A PDF header and an end-of-file marker with nothing between.
    with open(os.path.join(HERE, "invalid.pdf"), "wb") as f:
        f.write(b"%PDF-1.4\n%%EOF\n")


if __name__ == "__main__":
    two_column()
    ruled_table()
    rotated()
    multipage()
    image_only()
    invisible_text()
    garbage_text()
    invalid()
