"""RapidOCR (PaddleOCR's PP-OCR models as shipped in the `rapidocr-onnxruntime` wheel) over
every JPEG of a folder: one JSON object per picture on stdout, {"stem", "lines", "seconds"},
the seconds of recognition alone (the models are loaded once, before the first picture).

The comparator of `receipt_ocr` (benchmarks only; never a dependency of the product):

    python3 -m venv /tmp/rapid && /tmp/rapid/bin/pip install rapidocr-onnxruntime==1.4.4
    /tmp/rapid/bin/python crates/ocr-core/examples/receipt_rapidocr.py DIR > rapidocr.jsonl
"""

import json
import sys
import time
from pathlib import Path

from rapidocr_onnxruntime import RapidOCR


def main() -> None:
    folder = Path(sys.argv[1])
    engine = RapidOCR()
    for picture in sorted(folder.glob("*.jpg")):
        started = time.perf_counter()
        result, _ = engine(str(picture))
        seconds = time.perf_counter() - started
        # Each result row is [box, text, score], in the detector's top-to-bottom order.
        lines = [row[1] for row in (result or [])]
        print(json.dumps({"stem": picture.stem, "lines": lines, "seconds": seconds}), flush=True)


if __name__ == "__main__":
    main()
