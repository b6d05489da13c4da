#!/usr/bin/python3
"""Renders the OCR fixtures of this folder (run with /usr/bin/python3, needs PIL and the DejaVu
fonts): two A4 pages at 150 dpi, one German and one English, each with a full-width heading, two
columns holding section headings, paragraphs and a list, a ruled table with a merged header cell,
its caption and a footnote; quarter-turned and slightly skewed copies; and two tiny PNGs for the
size limits (one 10001 px wide, one whose header declares 60000 x 60000 px).

The structure is known by construction; `structure.json` records it for the tests."""

import json
import struct
import zlib
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
FONTS = Path("/usr/share/fonts/truetype/dejavu")
WIDTH, HEIGHT = 1240, 1754  # A4 at 150 dpi
MARGIN = 100
GUTTER = 60
COLUMN_WIDTH = (WIDTH - 2 * MARGIN - GUTTER) // 2

TITLE = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 44)
HEAD = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 30)
BODY = ImageFont.truetype(str(FONTS / "DejaVuSerif.ttf"), 22)
SMALL = ImageFont.truetype(str(FONTS / "DejaVuSerif.ttf"), 16)

PAGES = {
    "de": {
        "title": "Jahresbericht der Stadtwerke",
        "left_heading": "Einleitung",
        "left_text": "Die Stadtwerke versorgen seit vielen Jahren die Bürger der Stadt mit Strom, "
        "Gas und Wasser. Im vergangenen Jahr wurden die Netze weiter ausgebaut und die "
        "Versorgung war zu jeder Zeit sicher.",
        "list": [
            "• Ausbau der Ladesäulen",
            "• Neue Leitungen im Süden",
            "• Mehr Ökostrom für alle",
        ],
        "right_heading": "Ergebnisse",
        "right_text": "Der Umsatz ist gegenüber dem Vorjahr gestiegen. Die Zahlen in der "
        "folgenden Tabelle zeigen die Entwicklung der einzelnen Bereiche und werden im "
        "Bericht erläutert.",
        "numbered": [
            "1. Strom wächst deutlich",
            "2. Gas geht leicht zurück",
        ],
        "table_head": ["Bereich", "Umsatz in Mio. Euro"],
        "table_years": ["2023", "2024"],
        "table_rows": [["Strom", "12,4", "13,1"], ["Gas", "8,2", "7,9"], ["Wasser", "3,1", "3,3"]],
        "caption": "Tabelle 1: Umsatz nach Bereichen",
        "footnote": "1 Alle Angaben sind vorläufig und ohne Gewähr.",
    },
    "en": {
        "title": "Annual Report of the City Utilities",
        "left_heading": "Introduction",
        "left_text": "The city utilities have supplied the people of the town with power, gas "
        "and water for many years. Last year the networks were extended and the supply was "
        "secure at all times.",
        "list": [
            "• More charging stations",
            "• New pipes in the south",
            "• Green power for everyone",
        ],
        "right_heading": "Results",
        "right_text": "Revenue has grown compared with the previous year. The figures in the "
        "following table show how each of the segments developed and they are explained in "
        "the report.",
        "numbered": [
            "1. Power grows strongly",
            "2. Gas falls slightly",
        ],
        "table_head": ["Segment", "Revenue in million euros"],
        "table_years": ["2023", "2024"],
        "table_rows": [["Power", "12.4", "13.1"], ["Gas", "8.2", "7.9"], ["Water", "3.1", "3.3"]],
        "caption": "Table 1: Revenue by segment",
        "footnote": "1 All figures are provisional and unaudited.",
    },
}


def wrap(draw, text, font, width):
    lines, current = [], ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if draw.textlength(candidate, font=font) <= width:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def column(draw, x, y, heading, text, items):
    draw.text((x, y), heading, font=HEAD, fill=0)
    y += 56
    for line in wrap(draw, text, BODY, COLUMN_WIDTH):
        draw.text((x, y), line, font=BODY, fill=0)
        y += 32
    y += 24
    for item in items:
        draw.text((x + 10, y), item, font=BODY, fill=0)
        y += 34
    return y


def render(spec):
    image = Image.new("L", (WIDTH, HEIGHT), 255)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 110), spec["title"], font=TITLE, fill=0)
    top = 220
    left_end = column(draw, MARGIN, top, spec["left_heading"], spec["left_text"], spec["list"])
    right_x = MARGIN + COLUMN_WIDTH + GUTTER
    right_end = column(
        draw, right_x, top, spec["right_heading"], spec["right_text"], spec["numbered"]
    )

    # Ruled table: 3 columns, a header row whose second cell spans two columns, a row of
    # years, then the data rows.
    table_top = max(left_end, right_end) + 70
    widths = [340, 300, 300]
    xs = [MARGIN]
    for w in widths:
        xs.append(xs[-1] + w)
    row_height = 48
    rows = 2 + len(spec["table_rows"])
    ys = [table_top + i * row_height for i in range(rows + 1)]
    for y in ys:
        draw.line([(xs[0], y), (xs[-1], y)], fill=0, width=2)
    for i, x in enumerate(xs):
        if i == 2:
            # The merged header cell: no separator through the first row.
            draw.line([(x, ys[1]), (x, ys[-1])], fill=0, width=2)
        else:
            draw.line([(x, ys[0]), (x, ys[-1])], fill=0, width=2)

    def cell(col, row, text):
        draw.text((xs[col] + 14, ys[row] + 11), text, font=BODY, fill=0)

    cell(0, 0, spec["table_head"][0])
    cell(1, 0, spec["table_head"][1])
    cell(1, 1, spec["table_years"][0])
    cell(2, 1, spec["table_years"][1])
    for r, row in enumerate(spec["table_rows"]):
        for c, text in enumerate(row):
            cell(c, r + 2, text)
    draw.text((MARGIN, ys[-1] + 18), spec["caption"], font=BODY, fill=0)
    draw.text((MARGIN, HEIGHT - 130), spec["footnote"], font=SMALL, fill=0)
    return image


def save(image, name):
    path = HERE / name
    image.save(path, optimize=True)
    return path


def tiny_png(width, height, rows):
    """A grey PNG whose header declares width x height, with `rows` rows of real data."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\xff" * width for _ in range(rows))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main():
    for lang, spec in PAGES.items():
        save(render(spec), f"{lang}.png")
    upright = render(PAGES["de"])
    # PIL rotates counter-clockwise; the name says the clockwise turn applied to the page.
    save(upright.rotate(-90, expand=True, fillcolor=255), "de_rot90.png")
    save(upright.rotate(180, expand=True, fillcolor=255), "de_rot180.png")
    save(upright.rotate(90, expand=True, fillcolor=255), "de_rot270.png")
    # Text lines running 3 degrees downwards to the right (clockwise on screen).
    skewed = render(PAGES["en"]).rotate(-3, resample=Image.BICUBIC, fillcolor=255)
    save(skewed, "en_skew3.png")
    (HERE / "wide_10001.png").write_bytes(tiny_png(10001, 1, 1))
    # A decompression bomb: 60000 x 60000 declared (3.6 Gpx), a few bytes on disk.
    (HERE / "bomb_60000.png").write_bytes(tiny_png(60000, 60000, 1))
    structure = {lang: spec for lang, spec in PAGES.items()}
    (HERE / "structure.json").write_text(json.dumps(structure, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
