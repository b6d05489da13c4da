#!/usr/bin/python3
"""Camera-like photos of the generator's slips, with line transcripts, for measuring photo
preprocessing (perspective correction, upscaling, contrast, binarisation) without SROIE.

usage: /usr/bin/python3 camera.py --out DIR [--per-family N] [--seed S] [--families a,b]

For every slip `generate.py` would make with the same seed (`<family>-<NN>`), writes
`<family>-<NN>.jpg`, a phone photo of it, and `<family>-<NN>.csv`, its text lines in SROIE's
layout (`x1,y1,x2,y2,x3,y3,x4,y4,text`: the corners of the line in the photo, clockwise from
top left, ignoring the paper's curl; the text as the slip prints it), so the `receipt_ocr`
example of ocr-core scores them as it scores SROIE; plus `camera.jsonl`, one object per photo
with what was done to it. Harsher than `photo.py`'s pictures, on purpose:

  scale       the body text at 11-24 pixels per em (small text, as a slip photographed from
              arm's length), whatever the slip's font size
  contrast    thermal fade, and on half the photos a compressed range (ink 40-110, paper
              175-230)
  geometry    the slip on 45-85 % of the frame's height, turned within +-8 degrees, a
              keystone (camera tilted: the far edge 0-18 % narrower) and corner jitter, a
              mild paper curl
  background  a table colour with texture, 0-3 other objects (cards, papers, a phone) that
              the slip lies on or beside
  light       a gradient across the frame (darkest 55-90 % of the brightest), sometimes a
              soft shadow, vignetting
  sensor      noise, Gaussian blur 0.5-1.6 px, JPEG quality 45-85

Seeded per photo with "camera:<seed>:<family>:<index>", so families can be held out and the
same arguments give the same bytes. Transcript lines come from `pdftotext -bbox-layout` of the
undegraded text PDF (a row printed with a wide gap is two lines, as SROIE boxes it); rows of
rule characters only (`-----`, `=====`) are left out. Needs python3-pil and poppler-utils.
"""

import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(HERE, "..", "invoice-gen"))

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402

import families  # noqa: E402
import generate  # noqa: E402

NS = "{http://www.w3.org/1999/xhtml}"
RULE_CHARS = set("-=_*~.#+ ")


def transcript_lines(pdf):
    """[(x0, y0, x1, y1 in points, text)] of the text PDF's lines, rules left out."""
    xml = subprocess.run(["pdftotext", "-bbox-layout", pdf, "-"], check=True, capture_output=True).stdout
    root = ET.fromstring(xml)
    out = []
    for line in root.iter(NS + "line"):
        words = [w for w in line.iter(NS + "word") if (w.text or "").strip()]
        if not words:
            continue
        text = " ".join(w.text.strip() for w in words)
        if set(text) <= RULE_CHARS:
            continue
        out.append((float(line.get("xMin")), float(line.get("yMin")), float(line.get("xMax")),
                    float(line.get("yMax")), text))
    return out


def low_contrast(img, rnd):
    lo, hi = rnd.randint(40, 110), rnd.randint(175, 230)
    return img.point([int(lo + (hi - lo) * v / 255.0) for v in range(256)])


def clutter(bg, rnd, draw_mod):
    """0-3 objects on the table: cards, papers, a phone (rotated rectangles)."""
    cw, ch = bg.size
    d = draw_mod.Draw(bg)
    for _ in range(rnd.randint(0, 3)):
        w, h = rnd.uniform(0.15, 0.45) * cw, rnd.uniform(0.1, 0.35) * ch
        cx, cy = rnd.uniform(0, 1) * cw, rnd.uniform(0, 1) * ch
        a = rnd.uniform(0, math.pi)
        pts = []
        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            x, y = sx * w / 2, sy * h / 2
            pts.append((cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)))
        colour = tuple(rnd.randint(20, 240) for _ in range(3))
        d.polygon(pts, fill=colour)


def camera_picture(text_pdf, rnd, font_size):
    """(jpeg bytes, info dict, forward homography slip pixels -> photo, dpi)."""
    from PIL import Image, ImageChops, ImageDraw, ImageFilter

    import photo

    em_px = rnd.uniform(11, 24)
    dpi = max(40, int(round(em_px * 72.0 / font_size)))
    img = photo.rasterize(text_pdf, dpi)
    img, _paper = photo.thermal(img, rnd)
    squeezed = rnd.random() < 0.5
    if squeezed:
        img = low_contrast(img, rnd)
    if rnd.random() < 0.3:
        img = photo.crumple(img, rnd)
    w, h = img.size
    share = rnd.uniform(0.45, 0.85)
    ch = int(h / share)
    cw = int(max(w / rnd.uniform(0.3, 0.7), ch * rnd.uniform(0.5, 0.8)))
    # Keep the photo within 12 Mpx (a phone's full resolution).
    if cw * ch > 12_000_000:
        f = math.sqrt(12_000_000 / (cw * ch))
        cw, ch = int(cw * f), int(ch * f)
    angle = math.radians(rnd.triangular(-8, 8, 0))
    keystone = rnd.uniform(0.0, 0.18) * w
    far_top = rnd.random() < 0.75
    jitter = rnd.uniform(0.0, 0.025) * w
    corners = []
    for (x, y) in [(0, 0), (0, h), (w, h), (w, 0)]:
        x, y = x - w / 2.0, y - h / 2.0
        narrow = keystone / 2.0 if (y < 0) == far_top else 0.0
        x += narrow if x < 0 else -narrow
        corners.append((x, y))
    # The slip's centre somewhere the whole slip stays in the frame.
    span_x = max(0.0, cw - w * 1.25) / 2.0
    span_y = max(0.0, ch - h * 1.05) / 2.0
    cx, cy = cw / 2.0 + rnd.uniform(-span_x, span_x), ch / 2.0 + rnd.uniform(-span_y, span_y)
    quad = []
    for (x, y) in corners:
        xr = x * math.cos(angle) - y * math.sin(angle)
        yr = x * math.sin(angle) + y * math.cos(angle)
        quad.append((cx + xr + rnd.uniform(-jitter, jitter), cy + yr + rnd.uniform(-jitter, jitter)))
    curl = (rnd.uniform(0.0, 0.005) * w, rnd.uniform(0.5, 1.2) * h, rnd.uniform(0, 6.28))
    warped, mask = photo._warp(img, rnd, (cw, ch), quad, curl)
    base = rnd.choice(photo.TABLES)
    bg = Image.new("RGB", (cw, ch), base)
    tex = photo._field(rnd, (cw, ch), 170, 255, grid=(rnd.randint(6, 14), rnd.randint(10, 24)))
    bg = ImageChops.multiply(bg, Image.merge("RGB", (tex, tex, tex)))
    clutter(bg, rnd, ImageDraw)
    tint = (1.0, rnd.uniform(0.96, 1.0), rnd.uniform(0.88, 0.99))
    paper_rgb = Image.merge("RGB", [warped.point([int(v * t) for v in range(256)]) for t in tint])
    out = Image.composite(paper_rgb, bg, mask)
    # Light: a gradient across the frame, a soft shadow now and then, vignetting.
    dark = rnd.uniform(0.55, 0.9)
    a = rnd.uniform(0, 2 * math.pi)
    gx, gy = math.cos(a), math.sin(a)
    small = Image.new("L", (32, 32))
    vals = []
    for j in range(32):
        for i in range(32):
            t = ((i / 31.0 - 0.5) * gx + (j / 31.0 - 0.5) * gy) / math.sqrt(0.5) * 0.5 + 0.5
            r2 = ((i / 31.0 - 0.5) ** 2 + (j / 31.0 - 0.5) ** 2) * 2
            v = (dark + (1 - dark) * t) * (1 - 0.25 * r2)
            vals.append(max(0, min(255, int(255 * v))))
    small.putdata(vals)
    light = small.resize((cw, ch), Image.BICUBIC)
    if rnd.random() < 0.4:
        shade = Image.new("L", (cw, ch), 255)
        d = ImageDraw.Draw(shade)
        x = rnd.uniform(0.2, 0.8) * cw
        d.polygon([(0, 0), (x, 0), (x + rnd.uniform(-0.3, 0.3) * cw, ch), (0, ch)], fill=rnd.randint(140, 200))
        shade = shade.filter(ImageFilter.GaussianBlur(cw / 15.0))
        light = ImageChops.multiply(light, shade)
    out = ImageChops.multiply(out, Image.merge("RGB", (light, light, light)))
    amp = rnd.randint(4, 12)
    n = photo._noise(rnd, (cw, ch), amp)
    out = ImageChops.add(out, Image.merge("RGB", (n, n, n)), 1.0, -amp)
    blur = rnd.uniform(0.5, 1.6)
    out = out.filter(ImageFilter.GaussianBlur(blur))
    q = rnd.randint(45, 85)
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=q)
    forward = photo._homography([(0, 0), (0, h), (w, h), (w, 0)], quad)
    info = dict(em_px=round(em_px, 1), dpi=dpi, low_contrast=squeezed, angle=round(math.degrees(angle), 2),
                keystone=round(keystone / w, 3), blur=round(blur, 2), quality=q, size=[cw, ch],
                quad=[[round(x, 1), round(y, 1)] for x, y in quad])
    return buf.getvalue(), info, forward, dpi


def main(argv=None):
    import photo

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-family", type=int, default=3)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--families", default="")
    a = ap.parse_args(argv)
    names = [n.strip() for n in a.families.split(",") if n.strip()] or list(families.FAMILIES)
    unknown = [n for n in names if n not in families.FAMILIES]
    if unknown:
        ap.error("unknown families: %s" % ", ".join(unknown))
    os.makedirs(a.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for fam in names:
            for i in range(1, a.per_family + 1):
                doc, _truth, size = generate.make_one(fam, i, a.seed)
                name = generate.stem(fam, i)
                text_pdf = os.path.join(tmp, name + ".text.pdf")
                doc.save(text_pdf)
                rnd = random.Random("camera:%s:%s:%d" % (a.seed, fam, i))
                jpeg, info, forward, dpi = camera_picture(text_pdf, rnd, size)
                with open(os.path.join(a.out, name + ".jpg"), "wb") as f:
                    f.write(jpeg)
                scale = dpi / 72.0
                with open(os.path.join(a.out, name + ".csv"), "w", encoding="utf-8") as f:
                    for (x0, y0, x1, y1, text) in transcript_lines(text_pdf):
                        pts = [photo._apply(forward, x * scale, y * scale)
                               for (x, y) in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
                        f.write(",".join("%d" % round(c) for p in pts for c in p) + "," + text + "\n")
                rows.append(dict(file=name + ".jpg", family=fam, **info))
    with open(os.path.join(a.out, "camera.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print("wrote %d photos to %s" % (len(rows), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
