#!/usr/bin/python3
"""Deterministic synthetic till-receipt generator (pictures + image-only PDFs + ground truth).

usage: /usr/bin/python3 generate.py --out DIR [--per-family N] [--seed S] [--families a,b]
                                   [--text-pdf] [--list]

For every receipt writes <family>-<NN>.jpg (the picture as a user would send it),
<family>-<NN>.pdf (an image-only PDF of the same JPEG) and, with --text-pdf, the undegraded
<family>-<NN>.text.pdf with its text layer; plus ground-truth.jsonl (one object per receipt).
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the folder free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "invoice-gen"))  # pdfwriter.py, fontwidths.py (unchanged)

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402

import compose  # noqa: E402
import families  # noqa: E402

KEY_ORDER = ["file", "pdf", "family", "language", "country", "shop", "company", "date", "date_printed", "address",
             "total", "currency", "lines", "printed", "company_lines", "address_lines", "amounts", "slip", "picture"]


def make_one(family, index, seed):
    """Build one receipt: (pdfwriter.Document of the slip, truth dict, font size)."""
    rnd = random.Random("%s:%s:%d" % (seed, family, index))
    rc = compose.Receipt(rnd, family, families.FAMILIES[family])
    truth = rc.build()
    doc = rc.s.render()
    return doc, truth, rc.s.size


def stem(family, index):
    return "%s-%02d" % (family, index)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--per-family", type=int, default=5)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--families", default="")
    ap.add_argument("--text-pdf", action="store_true", help="also keep the undegraded text PDF as <name>.text.pdf")
    ap.add_argument("--list", action="store_true", help="print the family list and exit")
    a = ap.parse_args(argv)
    if a.list:
        for name, countries, comment in families.describe():
            print("%-22s %-20s %s" % (name, countries, comment))
        return 0
    if not a.out:
        ap.error("--out is required")
    names = [n.strip() for n in a.families.split(",") if n.strip()] or list(families.FAMILIES)
    unknown = [n for n in names if n not in families.FAMILIES]
    if unknown:
        ap.error("unknown families: %s (see --list)" % ", ".join(unknown))
    import photo  # needs PIL; imported late so --list works without it
    os.makedirs(a.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for fam in names:
            for i in range(1, a.per_family + 1):
                doc, t, size = make_one(fam, i, a.seed)
                name = stem(fam, i)
                text_pdf = os.path.join(a.out if a.text_pdf else tmp, name + ".text.pdf")
                doc.save(text_pdf)
                prnd = random.Random("picture:%s:%s:%d" % (a.seed, fam, i))
                jpeg, pdf, info = photo.make_picture(text_pdf, prnd, size)
                with open(os.path.join(a.out, name + ".jpg"), "wb") as f:
                    f.write(jpeg)
                with open(os.path.join(a.out, name + ".pdf"), "wb") as f:
                    f.write(pdf)
                if not a.text_pdf:
                    os.remove(text_pdf)
                t = dict(t, file=name + ".jpg", pdf=name + ".pdf", picture=info)
                rows.append({k: t[k] for k in KEY_ORDER if k in t})
    with open(os.path.join(a.out, "ground-truth.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("wrote %d receipts to %s" % (len(rows), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
