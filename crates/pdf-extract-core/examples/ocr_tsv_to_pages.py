#!/usr/bin/env python3
"""Development aid for `zugferd_accuracy --ocr-images DIR` without the docs-server build:
turns Tesseract TSV output of rendered pages into `doc_model::Page` JSON in PDF points.

    for f in <pdfs>; do pdftoppm -r 300 -gray -png "$f" png/<stem>; done
    for p in png/*.png; do OMP_THREAD_LIMIT=1 tesseract "$p" "${p%.png}" -l deu+eng --psm 3 tsv; done
    python3 ocr_tsv_to_pages.py <dir holding png/> <out dir>

Writes <out>/<stem>.pages.json (one line per Tesseract line, word confidences from `conf`).
Standard library only; the page images must be rendered at 300 dpi.
"""
from collections import OrderedDict
import csv, glob, json, os, re, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
K = 72.0 / 300.0
stems = {}
for tsv in glob.glob(os.path.join(src, "png", "*.tsv")):
    m = re.match(r"(.*)-(\d+)\.tsv$", os.path.basename(tsv))
    if not m:
        continue
    stems.setdefault(m.group(1), []).append((int(m.group(2)), tsv))
def r2(v): return round(v * 100) / 100
for stem, pages in stems.items():
    out = []
    for number, tsv in sorted(pages):
        lines = OrderedDict(); width = height = 0
        with open(tsv, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                if row["level"] == "1":
                    width, height = int(row["width"]) * K, int(row["height"]) * K
                if row["level"] != "5": continue
                text = (row.get("text") or "").strip()
                conf = float(row["conf"])
                if not text or conf < 0: continue
                x, y, w, h = (int(row[k]) * K for k in ("left", "top", "width", "height"))
                word = {"text": text, "box": {"page": number, "x": r2(x), "y": r2(y), "w": r2(w), "h": r2(h)},
                        "confidence": r2(conf / 100.0)}
                lines.setdefault((row["block_num"], row["par_num"], row["line_num"]), []).append(word)
        out_lines = []
        for i, words in enumerate(lines.values()):
            x0 = min(w["box"]["x"] for w in words); y0 = min(w["box"]["y"] for w in words)
            x1 = max(w["box"]["x"] + w["box"]["w"] for w in words); y1 = max(w["box"]["y"] + w["box"]["h"] for w in words)
            conf = r2(sum(w["confidence"] for w in words) / len(words))
            out_lines.append({"order": i, "column": 0, "text": " ".join(w["text"] for w in words),
                              "box": {"page": number, "x": r2(x0), "y": r2(y0), "w": r2(x1 - x0), "h": r2(y1 - y0)},
                              "font_size": r2(y1 - y0), "confidence": conf, "low_confidence": conf < 0.5, "words": words})
        out.append({"page": number, "width": r2(width), "height": r2(height), "coordinate_frame": "pdf_points_top_left",
                    "method": "ocr", "rotation": 0, "columns": 1, "lines": out_lines})
    with open(os.path.join(dst, stem + ".pages.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
print(len(stems), "files")
