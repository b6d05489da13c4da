#!/usr/bin/python3
"""Deterministic synthetic invoice generator (text PDFs + ground truth).

usage: /usr/bin/python3 generate.py --out DIR [--per-family K] [--seed N]
                                   [--families a,b] [--scan]
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the committed folder free of __pycache__

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402

import blocks  # noqa: E402
import content  # noqa: E402
import families  # noqa: E402
import flow  # noqa: E402

TRUTH_FIELDS = ["invoice_number", "issue_date", "due_date", "currency", "seller_name", "seller_vat_id",
                "buyer_name", "net_total", "tax_total", "grand_total", "due_payable", "iban", "bic",
                "order_reference"]


def make_one(family, index, seed):
    """Build one document; returns (Doc, truth dict without 'file')."""
    rnd = random.Random("%d:%s:%d" % (seed, family, index))
    k = families.resolve(family, rnd)
    credit = rnd.random() < k["credit"]
    inv = content.make_invoice(
        rnd, k["lang"], credit=credit, n_items=k["items"], n_rates=k["rates"],
        discount=rnd.random() < k["discount"], shipping=rnd.random() < k["shipping"],
        prepaid=(not credit) and rnd.random() < k["prepaid"])
    d = blocks.Doc(rnd, inv, k)
    shown = flow.render(d)
    return d, truth(family, inv, shown, len(d.pdf.pages))


def _amt(cents, sign):
    return round(sign * cents / 100.0, 2) + 0.0


def _qty(h):
    return h // 100 if h % 100 == 0 else h / 100.0


def truth(family, inv, shown, pages):
    # A credit note states its amounts positive (EN 16931 with type code 381: the document
    # type says which way the money goes), as the page prints them.
    sign = 1
    t = {
        "source": "generated", "layout_family": family, "language": inv["lang"],
        "corpus_status": "correct", "pages": pages,
        "invoice_number": inv["number"], "issue_date": inv["issue"].isoformat(),
        "due_date": shown["due"].isoformat() if shown["due"] else None,
        "currency": inv["currency"], "seller_name": inv["seller"]["name"],
        "seller_vat_id": shown["vat"], "seller_tax_number": None,
        "buyer_name": inv["buyer"]["name"],
        "net_total": _amt(inv["net"], sign), "tax_total": _amt(inv["tax"], sign),
        "grand_total": _amt(inv["gross"], sign), "due_payable": _amt(inv["due_amount"], sign),
        "iban": shown["iban"], "bic": shown["bic"], "order_reference": shown["order_ref"],
        "line_items": [{"description": " ".join(it["desc"]), "quantity": _qty(it["qty"]),
                        "unit_price": _amt(it["unit"], 1), "line_total": _amt(it["total"], sign)}
                       for it in inv["items"]],
    }
    t["printed"] = {f: (True if t[f] is not None else None) for f in TRUTH_FIELDS}
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--per-family", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--families", default="")
    ap.add_argument("--scan", action="store_true", help="also write image-only scan PDFs (needs PIL, pdftoppm)")
    ap.add_argument("--list", action="store_true", help="print the family list and exit")
    a = ap.parse_args(argv)
    if a.list:
        for name, spec in families.FAMILIES.items():
            print("%-22s %-14s %s" % (name, ",".join(spec["langs"]), spec["comment"]))
        return 0
    if not a.out:
        ap.error("--out is required")
    names = [n.strip() for n in a.families.split(",") if n.strip()] or list(families.FAMILIES)
    unknown = [n for n in names if n not in families.FAMILIES]
    if unknown:
        ap.error("unknown families: %s (see --list)" % ", ".join(unknown))
    os.makedirs(a.out, exist_ok=True)
    if a.scan:
        import scan
    rows, scan_rows = [], []
    for fam in names:
        for i in range(1, a.per_family + 1):
            d, t = make_one(fam, i, a.seed)
            fname = "%s-%02d.pdf" % (fam, i)
            path = os.path.join(a.out, fname)
            d.pdf.save(path)
            rows.append(dict({"file": fname}, **t))
            if a.scan:
                sname = "%s-%02d.scan.pdf" % (fam, i)
                srnd = random.Random("scan:%d:%s:%d" % (a.seed, fam, i))
                scan.make_scan(path, os.path.join(a.out, sname), srnd, d.pdf.size)
                scan_rows.append(dict({"file": sname}, **t))
    with open(os.path.join(a.out, "ground-truth.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    if a.scan:
        with open(os.path.join(a.out, "ground-truth-scan.jsonl"), "w", encoding="utf-8") as f:
            for r in scan_rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("wrote %d documents to %s" % (len(rows), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
