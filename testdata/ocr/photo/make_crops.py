#!/usr/bin/python3
"""Makes the small crops of ocr-core's photo preprocessing tests (run with /usr/bin/python3; PIL
and the DejaVu fonts of `fonts-dejavu-core`): two receipt-like lines of text rendered on white,
`clean.png`, and the same pixels under a shadow that darkens the paper from 235 at the left to
95 at the right with the ink darkened in proportion, `shadow.png` (as a hand or a phone casts
one across a till slip). Deterministic: no randomness. Generated pictures only."""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 18)
WIDTH, HEIGHT = 320, 64
LINES = ["2 x COFFEE LATTE     7.60", "TOTAL               12.90"]


def main() -> None:
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


if __name__ == "__main__":
    main()
