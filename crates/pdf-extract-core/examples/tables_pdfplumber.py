#!/usr/bin/env python3
"""pdfplumber's extract_tables scored like the `tables_accuracy` example scores ours.

Same corpus and expectations (`expected/*.json`, camelot's recorded grids), same scoring: per
expectation, the table of page 1 sharing the most cell texts (else the one at `table_index`),
whitespace in cells normalised, exact shape, and matching cells under the best shift of up to two
rows and one column; a PDF with several expectations counts its best one per kind. Ruled
(lattice) expectations are read with pdfplumber's default settings (lines), whitespace (stream)
expectations with the text strategy, as a user would pick them. Time per page: opening the PDF and
extract_tables on page 1.

    python3 -m venv target/tables-venv && target/tables-venv/bin/pip install pdfplumber==0.11.10
    target/tables-venv/bin/python crates/pdf-extract-core/examples/tables_pdfplumber.py \
        ../shared/test-data/tables
"""

import json
import sys
import time
from pathlib import Path

import pdfplumber

TEXT = {"vertical_strategy": "text", "horizontal_strategy": "text"}


def normalise(text):
    return " ".join((text or "").split())


def cell_matches(ours, expected):
    best = 0
    for dr in range(-2, 3):
        for dc in range(-1, 2):
            matches = 0
            for r, row in enumerate(expected):
                for c, cell in enumerate(row):
                    orow, ocol = r + dr, c + dc
                    if orow < 0 or ocol < 0 or orow >= len(ours) or ocol >= len(ours[orow]):
                        continue
                    if normalise(ours[orow][ocol]) == normalise(cell):
                        matches += 1
            best = max(best, matches)
    return best


def overlap(table, expected):
    a = {normalise(c) for row in table for c in row} - {""}
    b = {normalise(c) for row in expected for c in row} - {""}
    return len(a & b)


def tables_of(pdf, settings):
    started = time.perf_counter()
    try:
        with pdfplumber.open(pdf) as doc:
            tables = doc.pages[0].extract_tables(settings) if settings else doc.pages[0].extract_tables()
    except Exception as error:  # a file pdfplumber cannot read scores as no table
        print(f"{pdf}: {error}", file=sys.stderr)
        tables = []
    elapsed = time.perf_counter() - started
    return [[[c or "" for c in row] for row in t] for t in tables], elapsed


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/test-data/tables")
    expected_dir = root / "expected"
    tally = {k: [0, 0, 0, 0, 0] for k in ("lattice", "stream")}  # n, found, shape, cells, matching
    times = {"lines": [], "text": []}
    rows = []
    for spec_path in sorted(expected_dir.rglob("*.json")):
        spec = json.loads(spec_path.read_text())
        rel = spec_path.relative_to(expected_dir).with_suffix(".pdf")
        pdf = root / rel
        for kind in ("lattice", "stream"):
            exps = [e for e in spec.get("expectations", []) if ("lattice" in e.get("flavors", [])) == (kind == "lattice")]
            if not exps:
                continue
            strategy = "lines" if kind == "lattice" else "text"
            tables, elapsed = tables_of(pdf, None if strategy == "lines" else TEXT)
            times[strategy].append(elapsed)
            best = None
            for e in exps:
                cells = e.get("cells", [])
                n_cells = sum(len(r) for r in cells)
                index = e.get("table_index", 0)
                scored = [(overlap(t, cells), i) for i, t in enumerate(tables)]
                scored = [s for s in scored if s[0] > 0]
                if scored:
                    cand = tables[max(scored)[1]]
                elif index < len(tables):
                    cand = tables[index]
                else:
                    cand = None
                if cand is None:
                    shape, matching, what = False, 0, "none"
                else:
                    width = max((len(r) for r in cand), default=0)
                    shape = len(cand) == len(cells) and width == (len(cells[0]) if cells else 0)
                    matching = cell_matches(cand, cells)
                    what = f"{len(cand)}×{width}"
                score = matching / max(n_cells, 1)
                if best is None or score > best[0]:
                    best = (score, shape, matching, n_cells, f"{what} vs {len(cells)}×{len(cells[0]) if cells else 0}")
            score, shape, matching, n_cells, what = best
            t = tally[kind]
            t[0] += 1
            t[1] += not what.startswith("none")
            t[2] += shape
            t[3] += n_cells
            t[4] += matching
            rows.append(f"| {rel} | {kind} | {what} | {'yes' if shape else 'no'} | {100 * score:.1f} % |")
    print("| pdf | kind | pdfplumber vs expected | exact shape | cell accuracy |\n|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n| kind | PDFs | table found | exact shape | cell accuracy (micro) |\n|---|---|---|---|---|")
    for kind, (n, found, shape, cells, matching) in tally.items():
        print(f"| {kind} | {n} | {found} | {shape} | {100 * matching / max(cells, 1):.1f} % |")
    for strategy, values in times.items():
        if values:
            print(f"\nTime per page ({strategy} strategy, open + extract_tables of page 1): "
                  f"{1000 * sum(values) / len(values):.1f} ms mean over {len(values)} PDFs")


if __name__ == "__main__":
    main()
