#!/usr/bin/python3
"""Makes the derived fixtures of this folder.

scanned_invoice.pdf: page 1 of zugferd_basic_einfach.pdf rasterised by poppler at
200 dpi in grey, slightly noisy and rotated by half a degree like a sheet through a scanner,
saved as an image-only PDF (JPEG, no text layer).
blank_page.pdf: a scan of an empty A4 sheet (a white 150 dpi image, no text layer).
codes_page.pdf: ../codes/all-codes-300dpi.png (all eight symbologies, made by
../codes/generate.py) as an image-only A4 page at 300 dpi.

Run from this folder with Debian's python3
(python3-pil) and poppler-utils: /usr/bin/python3 make_scanned.py"""
import random
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageFilter

HERE = Path(__file__).resolve().parent
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["pdftoppm", "-r", "200", "-gray", "-png", "-f", "1", "-l", "1",
                    str(HERE / "zugferd_basic_einfach.pdf"), f"{tmp}/page"], check=True)
    page = Image.open(next(Path(tmp).glob("page*.png"))).convert("L")
rng = random.Random(20261121)
page = page.rotate(0.5, resample=Image.BICUBIC, expand=False, fillcolor=255)
page = page.filter(ImageFilter.GaussianBlur(0.6))
pixels = page.load()
for _ in range(page.width * page.height // 400):
    x, y = rng.randrange(page.width), rng.randrange(page.height)
    pixels[x, y] = max(0, pixels[x, y] - rng.randrange(60, 160))
page.save(HERE / "scanned_invoice.pdf", "PDF", resolution=200.0, quality=60)

Image.new("L", (1240, 1754), 255).save(HERE / "blank_page.pdf", "PDF", resolution=150.0)
Image.open(HERE.parent / "codes" / "all-codes-300dpi.png").convert("1").save(
    HERE / "codes_page.pdf", "PDF", resolution=300.0)
