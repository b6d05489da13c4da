"""Turn a slip's text PDF into the picture a user would send: a phone photo or a scan.

`pdftoppm -gray` renders the page (150-300 dpi); PIL then, all seeded:
  thermal look   grey, low-contrast ink (faded paper), print-head streaks
  crumple        low-frequency brightness pattern and a few soft creases
  geometry       photo: perspective quadrilateral + rotation (+-3 deg) + paper curl (a mild
                 sideways wave) on a table-coloured background; scan: rotation on the
                 scanner's grey; flat: tight crop, small rotation
  light          uneven illumination gradient, sometimes a soft shadow
  sensor         noise, blur, JPEG quality 60-90
The image-only PDF embeds the very same JPEG bytes (DeviceRGB or DeviceGray).
Needs python3-pil and poppler-utils (pdftoppm).
"""

import io
import math
import os
import subprocess
import tempfile

from PIL import Image, ImageChops, ImageDraw, ImageFilter

TABLES = [(122, 86, 58), (150, 111, 74), (96, 70, 50), (60, 60, 64), (35, 37, 42), (200, 200, 196), (232, 230, 224),
          (84, 104, 130), (118, 132, 110), (170, 150, 128), (212, 204, 190)]


def rasterize(pdf_path, dpi):
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "p")
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-singlefile", pdf_path, base], check=True)
        with Image.open(base + ".pgm") as im:
            return im.convert("L").copy()


def _noise(rnd, size, amp):
    lut = []
    for v in range(256):
        t = (v / 255.0) * 2 - 1
        s = (1 if t >= 0 else -1) * (1 - (1 - abs(t)) ** 0.5)
        lut.append(max(0, min(255, int(round(amp + s * amp)))))
    return Image.frombytes("L", size, rnd.randbytes(size[0] * size[1])).point(lut)


def _field(rnd, size, lo, hi, grid=(3, 4)):
    """Smooth random field (values lo..hi) of the given size."""
    gw, gh = grid
    small = Image.new("L", (gw, gh))
    small.putdata([int(rnd.uniform(lo, hi)) for _ in range(gw * gh)])
    return small.resize(size, Image.BICUBIC)


def _solve(a, b):
    """Gaussian elimination for a small dense system."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def _homography(src, dst):
    """3x3 matrix (list of 9) mapping src points to dst points (4 pairs)."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    h = _solve(a, b)
    return h + [1.0]


def _apply(h, x, y):
    w = h[6] * x + h[7] * y + h[8]
    return (h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w


def _warp(img, rnd, canvas, quad, curl):
    """Map img (source rectangle) onto quad in a canvas-sized image; returns (warped, mask)."""
    w, h = img.size
    inv = _homography(quad, [(0, 0), (0, h), (w, h), (w, 0)])
    amp, wl, ph = curl
    cw, ch = canvas
    step = 32

    def src(x, y):
        sx, sy = _apply(inv, x, y)
        return sx + amp * math.sin(2 * math.pi * sy / wl + ph), sy

    mesh = []
    for y0 in range(0, ch, step):
        y1 = min(ch, y0 + step)
        for x0 in range(0, cw, step):
            x1 = min(cw, x0 + step)
            ul, ll, lr, ur = src(x0, y0), src(x0, y1), src(x1, y1), src(x1, y0)
            mesh.append(((x0, y0, x1, y1), ul + ll + lr + ur))
    warped = img.transform(canvas, Image.MESH, mesh, resample=Image.BILINEAR, fillcolor=255)
    mask = Image.new("L", img.size, 255).transform(canvas, Image.MESH, mesh, resample=Image.BILINEAR, fillcolor=0)
    return warped, mask


def thermal(img, rnd):
    """Faded thermal print: grey ink, off-white paper, a few lighter print-head columns."""
    ink = rnd.randint(15, 95)
    paper = rnd.randint(232, 252)
    img = img.point([int(ink + (paper - ink) * v / 255.0) for v in range(256)])
    if rnd.random() < 0.5:
        w, h = img.size
        cols = Image.new("L", (max(8, w // 6), 1))
        cols.putdata([int(rnd.random() ** 6 * rnd.uniform(40, 110)) for _ in range(cols.size[0])])
        mask = cols.resize((w, h), Image.BILINEAR)
        img = Image.composite(Image.new("L", img.size, paper), img, mask)
    return img, paper


def crumple(img, rnd):
    w, h = img.size
    field = _field(rnd, (w, h), 205, 255, grid=(rnd.randint(4, 7), rnd.randint(8, 16)))
    d = ImageDraw.Draw(field)
    for _ in range(rnd.randint(1, 4)):
        x0, y0 = rnd.uniform(-0.2, 1.2) * w, rnd.uniform(0, 1) * h
        x1, y1 = rnd.uniform(-0.2, 1.2) * w, y0 + rnd.uniform(-0.3, 0.3) * h
        d.line([(x0, y0), (x1, y1)], fill=rnd.randint(195, 225), width=max(2, w // 200))
    field = field.filter(ImageFilter.GaussianBlur(max(2, w / 250)))
    return ImageChops.multiply(img, field)


def degrade(img, rnd, dpi):
    """Returns (PIL image in mode L or RGB, kind)."""
    img, paper = thermal(img, rnd)
    if rnd.random() < 0.45:
        img = crumple(img, rnd)
    w, h = img.size
    r = rnd.random()
    kind = "photo" if r < 0.6 else ("scan" if r < 0.85 else "flat")
    angle = math.radians(rnd.triangular(-3, 3, 0) if kind != "flat" else rnd.uniform(-1, 1))
    if kind == "photo":
        mx, my = rnd.uniform(0.06, 0.3) * w, rnd.uniform(0.03, 0.1) * h
        persp = rnd.uniform(0.01, 0.05) * w
        curl = (rnd.uniform(0.002, 0.008) * w, rnd.uniform(0.4, 1.2) * h, rnd.uniform(0, 6.28))
    elif kind == "scan":
        mx, my = rnd.uniform(0.04, 0.15) * w, rnd.uniform(0.01, 0.04) * h
        persp = 0.0
        curl = (0.0, float(h), 0.0)
    else:
        mx, my = -rnd.uniform(0.0, 0.03) * w, -rnd.uniform(0.0, 0.01) * h
        persp = rnd.uniform(0.0, 0.015) * w
        curl = (rnd.uniform(0.0, 0.004) * w, rnd.uniform(0.5, 1.2) * h, rnd.uniform(0, 6.28))
    cw, ch = int(w + 2 * mx), int(h + 2 * my)
    cx, cy = cw / 2.0, ch / 2.0
    quad = []
    for (x, y) in [(0, 0), (0, h), (w, h), (w, 0)]:
        x, y = x - w / 2.0, y - h / 2.0
        xr = x * math.cos(angle) - y * math.sin(angle)
        yr = x * math.sin(angle) + y * math.cos(angle)
        quad.append((cx + xr + rnd.uniform(-persp, persp), cy + yr + rnd.uniform(-persp, persp) * 0.5))
    warped, mask = _warp(img, rnd, (cw, ch), quad, curl)
    if kind == "photo":
        base = rnd.choice(TABLES)
        bg = Image.new("RGB", (cw, ch), base)
        tex = _field(rnd, (cw, ch), 170, 255, grid=(rnd.randint(6, 14), rnd.randint(10, 24)))
        bg = ImageChops.multiply(bg, Image.merge("RGB", (tex, tex, tex)))
        tint = (1.0, rnd.uniform(0.97, 1.0), rnd.uniform(0.9, 0.99))
        paper_rgb = Image.merge("RGB", [warped.point([int(v * t) for v in range(256)]) for t in tint])
        out = Image.composite(paper_rgb, bg, mask)
        light = _field(rnd, (cw, ch), 150, 255, grid=(rnd.randint(2, 3), rnd.randint(2, 4)))
        if rnd.random() < 0.4:
            shade = Image.new("L", (cw, ch), 255)
            d = ImageDraw.Draw(shade)
            side = rnd.random()
            dark = rnd.randint(150, 200)
            if side < 0.5:
                x = rnd.uniform(0.1, 0.5) * cw
                d.polygon([(0, 0), (x, 0), (x + rnd.uniform(-0.2, 0.2) * cw, ch), (0, ch)], fill=dark)
            else:
                y = rnd.uniform(0.05, 0.35) * ch
                d.polygon([(0, 0), (cw, 0), (cw, y + rnd.uniform(-0.1, 0.1) * ch), (0, y)], fill=dark)
            shade = shade.filter(ImageFilter.GaussianBlur(cw / 12.0))
            light = ImageChops.multiply(light, shade)
        out = ImageChops.multiply(out, Image.merge("RGB", (light, light, light)))
        amp = rnd.randint(4, 12)
        n = _noise(rnd, (cw, ch), amp)
        out = ImageChops.add(out, Image.merge("RGB", (n, n, n)), 1.0, -amp)
    else:
        bgv = rnd.randint(200, 245) if kind == "scan" else paper
        out = Image.composite(warped, Image.new("L", (cw, ch), bgv), mask)
        light = _field(rnd, (cw, ch), 200 if kind == "scan" else 165, 255, grid=(2, 3))
        out = ImageChops.multiply(out, light)
        amp = rnd.randint(4, 14)
        out = ImageChops.add(out, _noise(rnd, (cw, ch), amp), 1.0, -amp)
    out = out.filter(ImageFilter.GaussianBlur(rnd.uniform(0.3, 0.9) * dpi / 200.0))
    return out, kind


def image_pdf(jpeg, px_w, px_h, mode, dpi):
    """A one-page PDF showing the JPEG at dpi (page size follows the picture)."""
    pw, ph = px_w * 72.0 / dpi, px_h * 72.0 / dpi
    num = lambda v: ("%.2f" % v).rstrip("0").rstrip(".")
    cs = "/DeviceRGB" if mode == "RGB" else "/DeviceGray"
    content = ("q %s 0 0 %s 0 0 cm /Im1 Do Q" % (num(pw), num(ph))).encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
        ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /XObject << /Im1 5 0 R >> >> "
         "/Contents 4 0 R >>" % (num(pw), num(ph))).encode(),
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        ("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 "
         "/Filter /DCTDecode /Length %d >>\nstream\n" % (px_w, px_h, cs, len(jpeg))).encode() + jpeg + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offs = []
    for i, o in enumerate(objs, start=1):
        offs.append(len(out))
        out += str(i).encode() + b" 0 obj\n" + o + b"\nendobj\n"
    xref = len(out)
    out += ("xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)).encode()
    for o in offs:
        out += ("%010d 00000 n \n" % o).encode()
    out += ("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)).encode()
    return bytes(out)


def make_picture(text_pdf, rnd, font_size):
    """Render + degrade; returns (jpeg bytes, pdf bytes, info dict)."""
    dpi = rnd.choice([150, 175, 200, 225, 250, 275, 300])
    # keep the body text at least ~19 px per em so every value stays readable
    while dpi < 300 and font_size * dpi / 72.0 < 19:
        dpi += 25
    img = rasterize(text_pdf, dpi)
    out, kind = degrade(img, rnd, dpi)
    q = rnd.randint(60, 90)
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=q)
    jpeg = buf.getvalue()
    pdf = image_pdf(jpeg, out.size[0], out.size[1], out.mode, dpi)
    return jpeg, pdf, dict(dpi=dpi, kind=kind, quality=q, mode=out.mode, size=list(out.size))
