#!/usr/bin/env python3
"""Pages for the receipt layout: every `<name>.text.pdf` of a generator folder (written with
`--text-pdf`) turned into `<out>/<name>.page.json`, a `doc_model::Page` in the pixel frame
(200 dpi) whose lines and words come from `pdftotext -bbox-layout` of the undegraded text PDF.

The layout analysis is measured on these pages without the recogniser's mistakes; each
pdftotext line is one `Line` (a receipt row printed with a wide gap comes as two lines, as
Tesseract reads it too). Usage:

    /usr/bin/python3 testdata/receipt-gen/layout_pages.py DIR OUT [NAME ...]
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

SCALE = 200.0 / 72.0
NS = "{http://www.w3.org/1999/xhtml}"


def box(x0, y0, x1, y1):
    return {"page": 1, "x": round(x0 * SCALE, 1), "y": round(y0 * SCALE, 1),
            "w": round((x1 - x0) * SCALE, 1), "h": round((y1 - y0) * SCALE, 1)}


def page_of(pdf):
    xml = subprocess.run(["pdftotext", "-bbox-layout", pdf, "-"], check=True,
                         capture_output=True).stdout
    root = ET.fromstring(xml)
    page = root.find(f".//{NS}page")
    lines = []
    for line in page.iter(f"{NS}line"):
        words = []
        for w in line.iter(f"{NS}word"):
            x0, y0, x1, y1 = (float(w.get(k)) for k in ("xMin", "yMin", "xMax", "yMax"))
            words.append({"text": w.text or "", "box": box(x0, y0, x1, y1), "confidence": 1.0})
        words = [w for w in words if w["text"].strip()]
        if not words:
            continue
        x0, y0, x1, y1 = (float(line.get(k)) for k in ("xMin", "yMin", "xMax", "yMax"))
        lines.append({"order": len(lines), "column": 0,
                      "text": " ".join(w["text"] for w in words),
                      "box": box(x0, y0, x1, y1), "font_size": round((y1 - y0) * SCALE, 1),
                      "confidence": 1.0, "low_confidence": False, "words": words})
    return {"page": 1, "width": round(float(page.get("width")) * SCALE, 1),
            "height": round(float(page.get("height")) * SCALE, 1),
            "coordinate_frame": "pixels_top_left", "method": "ocr", "rotation": 0,
            "columns": 1, "lines": lines, "rulings": []}


def main():
    src, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    for f in sorted(os.listdir(src)):
        if not f.endswith(".text.pdf"):
            continue
        name = f[: -len(".text.pdf")]
        if names and name not in names:
            continue
        with open(os.path.join(out, name + ".page.json"), "w") as fh:
            json.dump(page_of(os.path.join(src, f)), fh, ensure_ascii=False, indent=None)
            fh.write("\n")


if __name__ == "__main__":
    main()
