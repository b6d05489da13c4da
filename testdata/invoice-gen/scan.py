"""--scan: turn a generated text PDF into an image-only "scanned" PDF.

Pages are rendered with `pdftoppm -r 200 -gray`, then (PIL) slightly rotated
(-1.5..1.5 degrees, white fill), given seeded noise and a slight blur, and
stored as JPEG (quality 75, DCTDecode) on pages of the original size.
Needs Debian packages python3-pil and poppler-utils.
"""

import glob
import io
import os
import subprocess
import tempfile

import pdfwriter as P

try:
    from PIL import Image, ImageChops, ImageFilter
except ImportError:  # pragma: no cover
    Image = None

DPI = 200


def _noise_lut(amplitude):
    """Map uniform bytes to a triangular distribution around `amplitude`."""
    lut = []
    for v in range(256):
        t = (v / 255.0) * 2 - 1  # -1..1
        s = (1 if t >= 0 else -1) * (1 - (1 - abs(t)) ** 0.5)  # triangular inverse CDF
        lut.append(int(round(amplitude + s * amplitude)))
    return lut


def degrade(img, rnd):
    """Skew, noise, blur; returns a new 'L' image of the same size."""
    angle = rnd.uniform(-1.5, 1.5)
    img = img.rotate(angle, resample=Image.BICUBIC, expand=False, fillcolor=255)
    amp = rnd.randint(8, 18)
    noise = Image.frombytes("L", img.size, rnd.randbytes(img.size[0] * img.size[1])).point(_noise_lut(amp))
    img = ImageChops.add(img, noise, 1.0, -amp)
    if rnd.random() < 0.7:  # a few dark specks: pixels where two random bytes are both 255
        n = img.size[0] * img.size[1]
        a = Image.frombytes("L", img.size, rnd.randbytes(n)).point(lambda v: 0 if v == 255 else 255)
        b = Image.frombytes("L", img.size, rnd.randbytes(n)).point(lambda v: 0 if v == 255 else 255)
        img = ImageChops.darker(img, ImageChops.lighter(a, b))
    img = img.filter(ImageFilter.GaussianBlur(rnd.uniform(0.4, 0.9)))
    return img


def make_scan(pdf_path, out_path, rnd, page_size):
    if Image is None:
        raise SystemExit("--scan needs PIL: apt-get install -y python3-pil poppler-utils")
    doc = P.Document(page_size)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", pdf_path, os.path.join(tmp, "p")], check=True)
        for path in sorted(glob.glob(os.path.join(tmp, "p-*.pgm"))):
            with Image.open(path) as im:
                img = degrade(im.convert("L"), rnd)
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=75)
            doc.image_page(buf.getvalue(), img.size[0], img.size[1], page_size)
    doc.save(out_path)
