#!/usr/bin/python3
"""Verify generated receipts: truth printed in the text layer, truth self-consistent, files sound.

usage: /usr/bin/python3 check.py DIR [--seed S] [--no-overlap] [-v]

For each record of DIR/ground-truth.jsonl the undegraded text PDF is DIR/<name>.text.pdf when
generate.py wrote it (--text-pdf); otherwise it is rebuilt in a temporary folder from the same
seed (default 1, or --seed), and the rebuilt truth must equal the stored record.

Printed (pdftotext -layout of the text PDF):
  company        each of company_lines is a whole text line, consecutively, joined = company
  address        the same for address_lines
  date_printed   occurs as a token, and parses (day-first; month-first for US) to `date`
  total          occurs as a token in one of the usual number notations (1,234.56  1234,56
                 1.234,56  1 234,56  1'234.56  1,23,456.78)
  lines          every description and amount is printed
Self-consistency (exact decimals): quantity x unit price = line total (half up), items_sum =
sum of lines, taxes (added: base x rate; included: gross x rate / (100 + rate); included bases
sum to the amount charged), total = items - discount + service + added tax + rounding, rounding
to its step, cash tendered > total with change = tendered - total, card amount = total, null
values exactly where `printed` is false.
Files: <name>.jpg is a JPEG; <name>.pdf is one image-only page holding exactly those JPEG bytes.
Also (unless --no-overlap) no two words of the text PDF overlap and none leaves the page.
Exit status 1 if anything fails.
"""

import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "invoice-gen"))

import datetime  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from decimal import ROUND_HALF_UP, Decimal  # noqa: E402

MONTHS = {}
for _names in (["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
               ["jan", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"],
               ["janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"],
               ["jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"],
               ["gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"]):
    for _i, _n in enumerate(_names, start=1):
        MONTHS.setdefault(_n, _i)


def pdf_text(path):
    return subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", path, "-"],
                          check=True, capture_output=True).stdout.decode("utf-8")


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def has_token(text, s):
    """s occurs in text, not glued to more digits (a longer number, date or time)."""
    pat = r"(?<![0-9])(?<![0-9][.,'/:])" + re.escape(s) + r"(?![0-9]|[.,'/:][0-9])"
    return re.search(pat, text) is not None


def notations(value):
    """Every usual way of printing a (non-negative) amount."""
    v = Decimal(value).copy_abs().quantize(Decimal("0.01"), ROUND_HALF_UP)
    ip, fp = format(v, "f").split(".")

    def grp(sep, indian=False):
        if len(ip) <= 3:
            return ip
        head, tail, out = ip[:-3], ip[-3:], []
        step = 2 if indian else 3
        while len(head) > step:
            out.insert(0, head[-step:])
            head = head[:-step]
        out.insert(0, head)
        return sep.join(out + [tail])

    return {ip + "." + fp, ip + "," + fp, grp(",") + "." + fp, grp(".") + "," + fp, grp(" ") + "," + fp,
            grp("'") + "." + fp, grp(",", True) + "." + fp}


def has_amount(text, value):
    return any(has_token(text, n) for n in notations(value))


def parse_date(s, country):
    """Independent reading of a printed date (day-first except in the US)."""
    t = s.strip().lower().replace(".", " ").replace(",", " ")
    m = re.fullmatch(r"(\d{1,4})\s*[/\-\s]\s*(\d{1,2})\s*[/\-\s]\s*(\d{2,4})", t)
    if m:
        a, b, c = m.groups()
        if len(a) == 4:
            y, mo, d = int(a), int(b), int(c)
        elif country == "US":
            mo, d, y = int(a), int(b), int(c)
        else:
            d, mo, y = int(a), int(b), int(c)
        y = y + 2000 if y < 100 else y
        return datetime.date(y, mo, d)
    parts = [p for p in re.split(r"[\s\-/]+", t) if p]
    if len(parts) == 3:
        if parts[0].isdigit() and parts[1] in MONTHS and parts[2].isdigit():
            d, mo, y = int(parts[0]), MONTHS[parts[1]], int(parts[2])
        elif parts[0] in MONTHS and parts[1].isdigit() and parts[2].isdigit():
            mo, d, y = MONTHS[parts[0]], int(parts[1]), int(parts[2])
        else:
            raise ValueError("unparsed date %r" % s)
        y = y + 2000 if y < 100 else y
        return datetime.date(y, mo, d)
    raise ValueError("unparsed date %r" % s)


def consecutive_lines(text, wanted):
    """True if the normalised lines `wanted` occur as consecutive whole lines of text."""
    lines = [norm(ln) for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    want = [norm(w) for w in wanted]
    for i in range(len(lines) - len(want) + 1):
        if lines[i:i + len(want)] == want:
            return True
    return False


D = Decimal


def q2(x):
    return D(x).quantize(D("0.01"), ROUND_HALF_UP)


def consistency(rec):
    fails = []
    a = rec["amounts"]
    lines = rec["lines"]
    for n, ln in enumerate(lines, start=1):
        if ln["quantity"] is not None and ln["unit_price"] is not None:
            if q2(D(ln["quantity"]) * D(ln["unit_price"])) != D(ln["line_total"]):
                fails.append("line %d: %s x %s != %s" % (n, ln["quantity"], ln["unit_price"], ln["line_total"]))
    items = D(a["items_sum"])
    if sum((D(ln["line_total"]) for ln in lines), D(0)) != items:
        fails.append("lines do not sum to items_sum")
    disc, svc, rnd = D(a["discount"]), D(a["service_charge"]), D(a["rounding"])
    charged = items - disc + svc
    added = D(0)
    incl_bases = D(0)
    for t in a["taxes"]:
        rate, base, amount = D(t["rate"]), D(t["base"]), D(t["amount"])
        if t["included"]:
            if q2(base * rate / (100 + rate)) != amount:
                fails.append("included tax %s%% of %s != %s" % (t["rate"], t["base"], t["amount"]))
            incl_bases += base
        else:
            if q2(base * rate / 100) != amount:
                fails.append("tax %s%% of %s != %s" % (t["rate"], t["base"], t["amount"]))
            if base > charged:
                fails.append("tax base above the amount charged")
            added += amount
    if a["tax_mode"] == "incl" and a["taxes"] and incl_bases != charged:
        fails.append("included-tax bases %s != charged %s" % (incl_bases, charged))
    total = D(rec["total"])
    if charged + added + rnd != total:
        fails.append("items - discount + service + tax + rounding = %s != total %s" % (charged + added + rnd, total))
    if a["rounding_step"]:
        step = D(a["rounding_step"])
        if total % step != 0 or abs(rnd) * 2 > step:
            fails.append("rounding to %s inconsistent" % step)
    elif rnd != 0:
        fails.append("rounding without a step")
    tend, chg = D(a["tendered"]), D(a["change"])
    if a["payment"] == "cash":
        if not tend > total or tend - chg != total:
            fails.append("cash: tendered %s change %s total %s" % (tend, chg, total))
    elif tend != total or chg != 0:
        fails.append("card amount differs from total")
    for k, v in rec["printed"].items():
        key = "date_printed" if k == "date" else k
        if (v is False) != (rec.get(key) is None):
            fails.append("printed.%s inconsistent" % k)
    if (rec["date"] is None) != (rec["date_printed"] is None):
        fails.append("date / date_printed disagree")
    if " ".join(rec["company_lines"]) != rec["company"]:
        fails.append("company != company_lines joined")
    if (rec["address_lines"] and " ".join(rec["address_lines"])) != (rec["address"] or None) and rec["address"]:
        fails.append("address != address_lines joined")
    return fails


def printed(rec, text):
    fails = []
    if not consecutive_lines(text, rec["company_lines"]):
        fails.append("company %r not printed as whole lines" % rec["company"])
    if rec["address"] is not None and not consecutive_lines(text, rec["address_lines"]):
        fails.append("address %r not printed as whole lines" % rec["address"])
    if rec["date_printed"] is not None:
        if not has_token(text, rec["date_printed"]):
            fails.append("date_printed %r not printed" % rec["date_printed"])
        try:
            if parse_date(rec["date_printed"], rec["country"]).isoformat() != rec["date"]:
                fails.append("date_printed %r does not read as %s" % (rec["date_printed"], rec["date"]))
        except ValueError as e:
            fails.append(str(e))
    if not has_amount(text, rec["total"]):
        fails.append("total %s not printed" % rec["total"])
    ntext = norm(text)
    for n, ln in enumerate(rec["lines"], start=1):
        if norm(ln["description"]) not in ntext:
            fails.append("line %d description %r" % (n, ln["description"]))
        if not has_amount(text, ln["line_total"]):
            fails.append("line %d total %s" % (n, ln["line_total"]))
        if ln["unit_price"] is not None:
            up = D(ln["unit_price"])
            places = len(ln["unit_price"].split(".")[1])
            ok = has_amount(text, up) if places == 2 else (
                has_token(text, ln["unit_price"]) or has_token(text, ln["unit_price"].replace(".", ",")))
            if not ok:
                fails.append("line %d unit price %s" % (n, ln["unit_price"]))
        if ln["quantity"] is not None:
            q = ln["quantity"]
            if not (has_token(text, q) or has_token(text, q.replace(".", ","))):
                fails.append("line %d quantity %s" % (n, q))
    return fails


def files(folder, rec):
    fails = []
    jpg = os.path.join(folder, rec["file"])
    pdf = os.path.join(folder, rec["pdf"])
    if not os.path.exists(jpg) or not os.path.exists(pdf):
        return ["picture or PDF missing"]
    with open(jpg, "rb") as f:
        jb = f.read()
    with open(pdf, "rb") as f:
        pb = f.read()
    if not jb.startswith(b"\xff\xd8") or not jb.rstrip().endswith(b"\xff\xd9"):
        fails.append("not a JPEG")
    if jb not in pb or b"/Font" in pb or pb.count(b"/Type /Page ") != 1 or b"/DCTDecode" not in pb:
        fails.append("PDF is not one image-only page of the same JPEG")
    return fails


WORD_RE = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')


def overlaps(path):
    html = subprocess.run(["pdftotext", "-bbox", path, "-"], check=True, capture_output=True).stdout.decode("utf-8")
    out = []
    for page in html.split("<page ")[1:]:
        w, h = (float(v) for v in re.findall(r'width="([\d.]+)" height="([\d.]+)"', page)[0])
        boxes = []
        for m in WORD_RE.finditer(page):
            x0, y0, x1, y1 = (float(m.group(i)) for i in range(1, 5))
            if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
                out.append("off page: %s" % m.group(5))
            dy = (y1 - y0) * 0.2
            boxes.append((x0 + 0.3, y0 + dy, x1 - 0.3, y1 - dy, m.group(5)))
        boxes.sort()
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if b[0] >= a[2]:
                    break
                if b[1] < a[3] and a[1] < b[3]:
                    out.append("overlap: %r / %r" % (a[4], b[4]))
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    folder = argv[0]
    seed = argv[argv.index("--seed") + 1] if "--seed" in argv else "1"
    verbose = "-v" in argv
    total = bad = 0
    tmp = tempfile.TemporaryDirectory()
    gen = None
    families_seen = set()
    with open(os.path.join(folder, "ground-truth.jsonl"), encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    for rec in records:
        total += 1
        families_seen.add(rec["family"])
        name = rec["file"][:-4]
        fails = []
        text_pdf = os.path.join(folder, name + ".text.pdf")
        if not os.path.exists(text_pdf):
            if gen is None:
                import generate as gen
            index = int(name.rsplit("-", 1)[1])
            doc, t, _ = gen.make_one(rec["family"], index, seed)
            text_pdf = os.path.join(tmp.name, name + ".text.pdf")
            doc.save(text_pdf)
            stored = {k: v for k, v in rec.items() if k not in ("file", "pdf", "picture")}
            if {k: t.get(k) for k in stored} != stored:
                fails.append("rebuilt truth differs from the stored record (wrong --seed?)")
        text = pdf_text(text_pdf)
        fails += printed(rec, text) + consistency(rec) + files(folder, rec)
        if "--no-overlap" not in argv:
            fails += overlaps(text_pdf)
        if fails:
            bad += 1
            print("FAIL %s: %s" % (rec["file"], "; ".join(fails)))
        elif verbose:
            print("ok   %s  %s | %s | %s | %s %s" % (rec["file"], rec["company"], rec["date_printed"], rec["address"],
                                                  rec["total"], rec["currency"]))
    tmp.cleanup()
    print("checked %d receipts of %d families, %d with failures" % (total, len(families_seen), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
