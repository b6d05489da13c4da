#!/usr/bin/python3
"""Makes the small crops of ocr-core's photo preprocessing tests (run with /usr/bin/python3; PIL,
the DejaVu fonts of `fonts-dejavu-core` and poppler's `pdftoppm`). Generated pictures only,
never a receipt or a photo of one:

- `clean.png`, `shadow.png`: two receipt-like lines rendered here on white, and the same
  pixels under a shadow that darkens the paper from 235 at the left to 95 at the right with
  the ink darkened in proportion (as a hand or a phone casts one across a till slip);
- `slip_photo.png` and `slip_photo.json`: a camera-like photo of one slip made by the receipt
  generator (`testdata/receipt-gen/camera.py`, family `au_tax_invoice`, seed 6, photo 1),
  greyscale, scaled to 360 pixels high, with the slip's corners on it;
- `slip_small.png`, `slip_faint.png`, `slip_gradient.png`: a 300 x 140 crop of the same
  family's slip rendered at 12 pixels per em (small text), the same crop with its grey
  levels squeezed into 120-200 (faded print, weak light), and under a light gradient from 250
  at the left to 110 at the right.

Deterministic: the generator is seeded and nothing else is random."""

import json
import os
import random
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
GEN = HERE.parent.parent / "receipt-gen"
sys.dont_write_bytecode = True
sys.path.insert(0, str(GEN))
sys.path.append(str(GEN.parent / "invoice-gen"))

import camera  # noqa: E402
import generate  # noqa: E402
import photo  # noqa: E402

FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 18)
WIDTH, HEIGHT = 320, 64
LINES = ["2 x COFFEE LATTE     7.60", "TOTAL               12.90"]
FAMILY, SEED = "au_tax_invoice", "6"


def text_crops() -> None:
    clean = Image.new("L", (WIDTH, HEIGHT), 255)
    draw = ImageDraw.Draw(clean)
    for k, line in enumerate(LINES):
        draw.text((8, 6 + 28 * k), line, fill=30, font=FONT)
    clean.save(HERE / "clean.png", optimize=True)
    shadow = Image.new("L", (WIDTH, HEIGHT))
    light = [235 - 140 * x / (WIDTH - 1) for x in range(WIDTH)]
    shadow.putdata(
        [
            round(clean.getpixel((x, y)) * light[x] / 255)
            for y in range(HEIGHT)
            for x in range(WIDTH)
        ]
    )
    shadow.save(HERE / "shadow.png", optimize=True)


def slip_crops() -> None:
    doc, _truth, size = generate.make_one(FAMILY, 1, SEED)
    with tempfile.TemporaryDirectory() as tmp:
        pdf = os.path.join(tmp, "slip.text.pdf")
        doc.save(pdf)
        jpeg, info, _forward, _dpi = camera.camera_picture(pdf, random.Random("camera:%s:%s:1" % (SEED, FAMILY)), size)
        small = photo.rasterize(pdf, max(40, round(12 * 72.0 / size)))
    jpg = os.path.join(HERE, "slip_photo.tmp.jpg")
    with open(jpg, "wb") as f:
        f.write(jpeg)
    with Image.open(jpg) as im:
        grey = im.convert("L")
    os.remove(jpg)
    scale = 360.0 / grey.size[1]
    grey = grey.resize((round(grey.size[0] * scale), 360), Image.LANCZOS)
    grey.save(HERE / "slip_photo.png", optimize=True)
    corners = [[round(x * scale, 1), round(y * scale, 1)] for x, y in info["quad"]]
    # camera.py's quad runs top left, bottom left, bottom right, top right; the test wants
    # top left, top right, bottom right, bottom left.
    order = [corners[0], corners[3], corners[2], corners[1]]
    (HERE / "slip_photo.json").write_text(json.dumps({"corners": order, "size": list(grey.size)}) + "\n")
    # The body of the slip: skip the header, keep 140 rows of item lines.
    w, h = small.size
    top = h // 3
    crop = small.crop((0, top, min(w, 300), top + 140))
    crop.save(HERE / "slip_small.png", optimize=True)
    crop.point([round(120 + 80 * v / 255) for v in range(256)]).save(HERE / "slip_faint.png", optimize=True)
    cw, ch = crop.size
    grad = Image.new("L", (cw, ch))
    grad.putdata(
        [round(crop.getpixel((x, y)) * (250 - 140 * x / (cw - 1)) / 255) for y in range(ch) for x in range(cw)]
    )
    grad.save(HERE / "slip_gradient.png", optimize=True)


def main() -> None:
    text_crops()
    slip_crops()


if __name__ == "__main__":
    main()
