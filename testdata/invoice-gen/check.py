#!/usr/bin/python3
"""Verify that every ground-truth value is printed in the generated PDFs.

usage: /usr/bin/python3 check.py DIR [--truth ground-truth.jsonl] [--overlap]

For each record the PDF text is taken from `pdftotext -layout` and each non-null
truth value is searched in the notation of the document's language: dates in any
of the language's date styles, amounts unsigned in any of its number styles,
VAT ids and IBANs with grouping spaces ignored, the currency as code or symbol.
The buyer name must also be the first line of a block (start of a text run).
With --overlap, also report words whose boxes (from `pdftotext -bbox`) overlap
or leave the page. Exit status 1 if anything is missing.
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the committed folder free of __pycache__

import datetime  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402

import invoice_locale as LC  # noqa: E402


def pdf_text(path):
    return subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", path, "-"],
                          check=True, capture_output=True).stdout.decode("utf-8")


def has_token(text, s):
    """s occurs in text, not glued to further digits / letters-digits."""
    pat = r"(?<![0-9A-Za-z])" + re.escape(s) + r"(?![0-9]|[.,][0-9])"
    return re.search(pat, text) is not None


def has_amount(text, value, lang):
    cents = round(abs(value) * 100)
    return any(has_token(text, n) for n in LC.all_numbers(cents, lang))


def has_date(text, iso, lang):
    d = datetime.date.fromisoformat(iso)
    styles = set(LC.DATE_STYLES[lang]) | ({"us"} if lang == "en" else set())
    return any(has_token(text, LC.fmt_date(d, lang, s)) for s in styles)


def has_qty(text, q, lang):
    h = round(q * 100)
    return any(has_token(text, LC.fmt_qty(h, s)) for s in LC.NUMBER_STYLES[lang])


def check_record(rec, text):
    """List of failure strings for one record."""
    fails = []
    lang = rec["language"]
    nospace = re.sub(r"\s+", "", text)
    lines = [ln.strip() for ln in text.splitlines()]
    for key, val in rec.items():
        if key in ("file", "source", "layout_family", "language", "corpus_status", "pages",
                   "line_items", "printed", "seller_tax_number") or val is None:
            continue
        if key in ("issue_date", "due_date"):
            ok = has_date(text, val, lang)
        elif key in ("net_total", "tax_total", "grand_total", "due_payable"):
            ok = has_amount(text, val, lang)
        elif key == "currency":
            ok = val in text or LC.CURRENCY_SYMBOL.get(val, val) in text
        elif key in ("seller_vat_id", "iban"):
            ok = val in nospace
        elif key == "buyer_name":
            ok = val in text and any(re.split(r"\s{2,}", ln)[0] == val or (" " * 2 + val) in ln
                                     for ln in lines if val in ln)
        else:
            ok = val in text
        if not ok:
            fails.append("%s=%r" % (key, val))
    for k, v in rec.get("printed", {}).items():
        if (v is None) != (rec.get(k) is None):
            fails.append("printed.%s inconsistent" % k)
    for n, it in enumerate(rec.get("line_items", []), start=1):
        if not all(part in text for part in it["description"].split(" ") if part):
            fails.append("item %d description" % n)
        if not has_qty(text, it["quantity"], lang):
            fails.append("item %d quantity=%r" % (n, it["quantity"]))
        for f in ("unit_price", "line_total"):
            if not has_amount(text, it[f], lang):
                fails.append("item %d %s=%r" % (n, f, it[f]))
    sign_ok = all(rec[f] < 0 for f in ("net_total", "grand_total")) or all(
        rec[f] > 0 for f in ("net_total", "grand_total"))
    if not sign_ok:
        fails.append("mixed signs")
    if abs(round((rec["net_total"] + rec["tax_total"]) * 100) - round(rec["grand_total"] * 100)) > 0:
        fails.append("net + tax != grand")
    return fails


WORD_RE = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')


def overlaps(path):
    """Pairs of words whose boxes overlap (layout bug) or words off the page."""
    html = subprocess.run(["pdftotext", "-bbox", path, "-"], check=True, capture_output=True).stdout.decode("utf-8")
    out = []
    for pn, page in enumerate(html.split("<page ")[1:], start=1):
        w, h = (float(v) for v in re.findall(r'width="([\d.]+)" height="([\d.]+)"', page)[0])
        boxes = []
        for m in WORD_RE.finditer(page):
            x0, y0, x1, y1 = (float(m.group(i)) for i in range(1, 5))
            if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
                out.append("p%d off page: %s" % (pn, m.group(5)))
            dy = (y1 - y0) * 0.18
            boxes.append((x0 + 0.3, y0 + dy, x1 - 0.3, y1 - dy, m.group(5)))
        boxes.sort()
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if b[0] >= a[2]:
                    break
                if b[1] < a[3] and a[1] < b[3]:
                    out.append("p%d overlap: %r / %r" % (pn, a[4], b[4]))
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    folder = argv[0]
    truth_names = [argv[argv.index("--truth") + 1]] if "--truth" in argv else [
        n for n in ("ground-truth.jsonl", "ground-truth-scan.jsonl") if os.path.exists(os.path.join(folder, n))]
    total = bad = 0
    for tn in truth_names:
        if tn.endswith("-scan.jsonl"):
            # image-only pages have no text layer: check the matching text PDF's record is identical
            print("%s: scan truth is a copy of the text truth; checking that it matches" % tn)
            text_truth = {}
            with open(os.path.join(folder, "ground-truth.jsonl"), encoding="utf-8") as f:
                for line in f:
                    r = json.loads(line)
                    text_truth[r["file"]] = r
            with open(os.path.join(folder, tn), encoding="utf-8") as f:
                for line in f:
                    r = json.loads(line)
                    total += 1
                    src = text_truth.get(r["file"].replace(".scan.pdf", ".pdf"))
                    if src is None or dict(src, file=r["file"]) != r or not os.path.exists(os.path.join(folder, r["file"])):
                        bad += 1
                        print("FAIL %s: scan truth differs from text truth or file missing" % r["file"])
            continue
        with open(os.path.join(folder, tn), encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                total += 1
                fails = check_record(rec, pdf_text(os.path.join(folder, rec["file"])))
                if "--overlap" in argv:
                    fails += overlaps(os.path.join(folder, rec["file"]))
                if fails:
                    bad += 1
                    print("FAIL %s: %s" % (rec["file"], "; ".join(fails)))
    print("checked %d records, %d with failures" % (total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
