#!/usr/bin/env python3
"""zxing-cpp (PyPI) on the same images, rotations and scoring as examples/codes_blackbox.rs.

    python3 zxing_cpp_blackbox.py blackbox ../shared/test-data/barcodes   # JSON per folder/rotation
    python3 zxing_cpp_blackbox.py pages testdata/codes/truth.json          # JSON per generated page

Needs `pip install zxing-cpp==3.1.1 pillow`. Only the decode call is timed (not loading or
rotating), as on the Rust side. codes_blackbox.rs runs this script and prints both side by side.
"""

import json
import os
import sys
import time

import zxingcpp
from PIL import Image

# The eight symbologies of the service, as named on the wire.
FORMATS = {
    zxingcpp.BarcodeFormat.QRCode: "qr_code",
    zxingcpp.BarcodeFormat.DataMatrix: "data_matrix",
    zxingcpp.BarcodeFormat.EAN13: "ean13",
    zxingcpp.BarcodeFormat.EAN8: "ean8",
    zxingcpp.BarcodeFormat.Code128: "code128",
    zxingcpp.BarcodeFormat.Code39: "code39",
    zxingcpp.BarcodeFormat.PDF417: "pdf417",
    zxingcpp.BarcodeFormat.Aztec: "aztec",
}
WANTED = zxingcpp.barcode_formats_from_str(",".join(f.name for f in FORMATS))
# thresholds.json names formats the zxing way.
ZXING_NAMES = {
    "QR_CODE": "qr_code",
    "DATA_MATRIX": "data_matrix",
    "EAN_13": "ean13",
    "EAN_8": "ean8",
    "CODE_128": "code128",
    "CODE_39": "code39",
    "PDF_417": "pdf417",
    "AZTEC": "aztec",
}
# PIL rotates counter-clockwise; rotations in thresholds.json are clockwise.
TRANSPOSE = {90: Image.ROTATE_270, 180: Image.ROTATE_180, 270: Image.ROTATE_90}


def decode(image):
    start = time.perf_counter()
    found = zxingcpp.read_barcodes(image, formats=WANTED)
    elapsed = time.perf_counter() - start
    codes = [(FORMATS.get(b.format, str(b.format)), b.text) for b in found]
    return codes, elapsed


def expected_text(folder, stem):
    txt = os.path.join(folder, stem + ".txt")
    if os.path.exists(txt):
        with open(txt, "rb") as f:
            return f.read().decode("utf-8")
    binary = os.path.join(folder, stem + ".bin")
    if os.path.exists(binary):
        with open(binary, "rb") as f:
            return f.read().decode("iso-8859-1")
    return None


def images(folder):
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith((".png", ".jpg", ".jpeg", ".gif")))
    return [os.path.join(folder, n) for n in names]


def blackbox(root):
    with open(os.path.join(root, "thresholds.json"), encoding="utf-8") as f:
        thresholds = json.load(f)["folders"]
    rows = []
    for name, spec in thresholds.items():
        folder = os.path.join(root, name)
        symbology = ZXING_NAMES.get(spec.get("format") or "")
        for test in spec["tests"]:
            rotation = test["rotation"]
            row = {"folder": name, "rotation": rotation, "images": 0, "pass": 0, "misread": 0,
                   "miss": 0, "false_positive": 0, "seconds": 0.0}
            for path in images(folder):
                stem = os.path.splitext(os.path.basename(path))[0]
                expected = expected_text(folder, stem)
                if symbology is not None and expected is None:
                    continue
                image = Image.open(path).convert("L")
                if rotation:
                    image = image.transpose(TRANSPOSE[rotation])
                codes, elapsed = decode(image)
                row["images"] += 1
                row["seconds"] += elapsed
                if symbology is None:
                    row["false_positive"] += int(bool(codes))
                elif (symbology, expected) in codes:
                    row["pass"] += 1
                elif codes:
                    row["misread"] += 1
                else:
                    row["miss"] += 1
            rows.append(row)
    return rows


def pages(truth_path):
    with open(truth_path, encoding="utf-8") as f:
        truth = json.load(f)
    folder = os.path.dirname(truth_path)
    rows = []
    for page in truth["pages"]:
        image = Image.open(os.path.join(folder, page["file"])).convert("L")
        # Best of three, as the Rust side does.
        runs = [decode(image) for _ in range(3)]
        codes = runs[0][0]
        expected = [(c["symbology"], c["text"]) for c in page["codes"]]
        rows.append({
            "file": page["file"],
            "expected": len(expected),
            "found_right": sum(1 for e in expected if codes.count(e) == 1),
            "found": len(codes),
            "seconds": min(r[1] for r in runs),
        })
    return rows


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("blackbox", "pages"):
        sys.exit(__doc__)
    rows = blackbox(sys.argv[2]) if sys.argv[1] == "blackbox" else pages(sys.argv[2])
    json.dump({"zxing_cpp": zxingcpp.__version__ if hasattr(zxingcpp, "__version__") else "3.1.1",
               "rows": rows}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
