#!/usr/bin/env python3
"""Generate the barcode test pages in this folder, with their ground truth (truth.json).

The codes are drawn by zxing-cpp's writer, an encoder independent of the rxing decoder under
test. Run from this folder with a pinned zxing-cpp and Pillow, e.g.:

    python3 -m venv /tmp/codes-venv
    /tmp/codes-venv/bin/pip install zxing-cpp==3.1.1 pillow==13.0.0 numpy
    /tmp/codes-venv/bin/python generate.py

Output is deterministic for a given zxing-cpp / Pillow version and the DejaVu fonts of
Debian's fonts-dejavu-core.
"""

import json
import os

import numpy as np
import zxingcpp
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

# An EPC069-12 (GiroCode) credit transfer, version 002, UTF-8, with an unstructured text.
EPC = "\n".join(
    [
        "BCD",
        "002",
        "1",
        "SCT",
        "COBADEFFXXX",
        "Musterfirma GmbH",
        "DE89370400440532013000",
        "EUR1234.56",
        "",
        "",
        "Rechnung RE-2024-0815",
    ]
)
WIFI = "WIFI:T:WPA;S:Musterfirma Gast;P:sommer2024!;;"

# (symbology name as on the wire, zxing-cpp format, text, module scale, 1D bar height in px)
CODES = [
    ("qr_code", zxingcpp.BarcodeFormat.QRCode, EPC, 8, None),
    ("data_matrix", zxingcpp.BarcodeFormat.DataMatrix, "LOT:A1B2C3 EXP:2027-12-31 SN:000123456", 10, None),
    ("ean13", zxingcpp.BarcodeFormat.EAN13, "4006381333931", 5, 260),
    ("ean8", zxingcpp.BarcodeFormat.EAN8, "96385074", 5, 260),
    ("code128", zxingcpp.BarcodeFormat.Code128, "INV-2024-000815", 4, 220),
    ("code39", zxingcpp.BarcodeFormat.Code39, "ORDER 4711-AB", 4, 220),
    ("pdf417", zxingcpp.BarcodeFormat.PDF417, "Musterfirma GmbH|RE-2024-0815|1234.56 EUR|2024-08-15", 4, None),
    ("aztec", zxingcpp.BarcodeFormat.Aztec, WIFI, 12, None),
]


def render(fmt, text, scale, bar_height):
    img = Image.fromarray(np.array(zxingcpp.create_barcode(text, fmt).to_image(scale=scale)))
    if bar_height is not None:
        # 1D codes: only the bar height changes, so nearest-neighbour keeps every bar exact.
        img = img.resize((img.width, bar_height), Image.NEAREST)
    return img.convert("L")


def font(size, bold=False):
    return ImageFont.truetype(FONT_BOLD if bold else FONT, size)


def all_codes_page():
    """A4 at 300 dpi with the eight symbologies in a 2 x 4 grid, each with a caption."""
    page = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(page)
    draw.text((160, 120), "Barcode test page: eight symbologies", font=font(60, True), fill=0)
    truth = []
    for index, (name, fmt, text, scale, bar_height) in enumerate(CODES):
        code = render(fmt, text, scale, bar_height)
        column, row = index % 2, index // 2
        cell_x, cell_y = 160 + column * 1160, 330 + row * 790
        draw.text((cell_x, cell_y), name, font=font(40), fill=0)
        page.paste(code, (cell_x, cell_y + 70))
        truth.append({"symbology": name, "text": text})
    return page, truth


def invoice_page():
    """An invoice-like A4 page at 200 dpi carrying an EPC GiroCode QR."""
    page = Image.new("L", (1654, 2339), 255)
    draw = ImageDraw.Draw(page)
    draw.text((120, 110), "Musterfirma GmbH", font=font(48, True), fill=0)
    draw.text((120, 180), "Hauptstraße 1 · 10115 Berlin", font=font(28), fill=0)
    draw.text((120, 330), "Kunde AG\nAm Markt 5\n50667 Köln", font=font(30), fill=0, spacing=10)
    draw.text((120, 560), "Rechnung RE-2024-0815", font=font(44, True), fill=0)
    draw.text((1100, 570), "Datum: 15.08.2024", font=font(28), fill=0)
    rows = [
        ("Pos.", "Beschreibung", "Menge", "Betrag"),
        ("1", "Beratung (Stunden)", "8", "960,00 EUR"),
        ("2", "Reisekosten", "1", "77,45 EUR"),
        ("", "Summe netto", "", "1.037,45 EUR"),
        ("", "USt. 19 %", "", "197,11 EUR"),
        ("", "Gesamtbetrag", "", "1.234,56 EUR"),
    ]
    y = 700
    for row in rows:
        for x, cell in zip((120, 260, 1000, 1230), row):
            draw.text((x, y), cell, font=font(30), fill=0)
        y += 60
        draw.line((120, y - 10, 1530, y - 10), fill=0, width=2)
    draw.text(
        (120, 1250),
        "Bitte überweisen Sie den Betrag bis zum 29.08.2024.\nIBAN DE89 3704 0044 0532 0130 00 · BIC COBADEFFXXX",
        font=font(28),
        fill=0,
        spacing=12,
    )
    draw.text((1120, 1480), "Zahlen mit Code", font=font(30, True), fill=0)
    qr = render(zxingcpp.BarcodeFormat.QRCode, EPC, 6, None)
    page.paste(qr, (1120, 1540))
    return page, [{"symbology": "qr_code", "text": EPC}]


def save(image, name, mode="1"):
    path = os.path.join(HERE, name)
    image.convert(mode).save(path, optimize=True)
    return name


def main():
    pages = []
    page, truth = all_codes_page()
    pages.append({"file": save(page, "all-codes-300dpi.png"), "dpi": 300, "rotation": 0, "codes": truth})
    for angle in (90, 180, 270):
        # PIL rotates counter-clockwise; the file name gives the clockwise angle.
        rotated = page.transpose({90: Image.ROTATE_270, 180: Image.ROTATE_180, 270: Image.ROTATE_90}[angle])
        name = save(rotated, f"all-codes-300dpi-rot{angle}.png")
        pages.append({"file": name, "dpi": 300, "rotation": angle, "codes": truth})
    # A slightly skewed scan: 7 degrees clockwise, grey, as a scanner would deliver it.
    skewed = page.rotate(-7, resample=Image.BICUBIC, expand=True, fillcolor=255)
    pages.append({"file": save(skewed, "all-codes-300dpi-skew7.png", "L"), "dpi": 300, "rotation": 7, "codes": truth})
    half = page.resize((page.width // 2, page.height // 2), Image.BOX)
    pages.append({"file": save(half, "all-codes-150dpi.png", "L"), "dpi": 150, "rotation": 0, "codes": truth})
    invoice, truth = invoice_page()
    pages.append({"file": save(invoice, "invoice-epc-200dpi.png"), "dpi": 200, "rotation": 0, "codes": truth})
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as out:
        json.dump({"pages": pages}, out, ensure_ascii=False, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
