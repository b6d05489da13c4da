#!/usr/bin/env python3
"""Seeds for `docs_requests`: `/document` bodies (even first byte) and `/ocr` bodies (odd) with
an inline file, a URL, page selectors, a caller schema with formats, `x-labels` and a local
`$ref`, and a draft-07 schema. The file is a PDF header only: the target never opens it."""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
PDF = "JVBERi0xLjQK"  # "%PDF-1.4\n"
SCHEMA = {
    "type": "object",
    "properties": {
        "rechnungsnummer": {"type": "string", "title": "Rechnungsnummer"},
        "rechnungsdatum": {"type": "string", "format": "date"},
        "gesamtbetrag": {"type": "number", "x-labels": ["Bruttobetrag"]},
        "iban": {"type": "string", "format": "iban"},
        "positionen": {"type": "array", "items": {"type": "object", "properties": {
            "menge": {"type": "number"}, "betrag": {"$ref": "#/$defs/amount"}}}},
    },
    "$defs": {"amount": {"type": "number", "minimum": 0}},
}
SEEDS = {
    "doc-inline": (0, {"pdf_base64": PDF, "pages": "1"}),
    "doc-url": (2, {"url": "https://example.com/a.pdf", "pages": "1-3,5,8-"}),
    "doc-schema": (4, {"pdf_base64": PDF, "schema": SCHEMA}),
    "doc-draft7": (6, {"pdf_base64": PDF, "schema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"a": {"type": "string", "pattern": "^[A-Z]+$"}}}}),
    "ocr-pdf": (1, {"image_base64": PDF, "mime": "application/pdf", "languages": ["deu", "eng"],
                    "want": ["text", "tables", "codes", "layout"]}),
    "ocr-png": (3, {"image_base64": "iVBORw0KGgo=", "mime": "image/png", "pages": "2-"}),
    "ocr-url": (5, {"url": "http://example.com/x.webp", "mime": "image/webp", "want": ["codes"]}),
}
out = HERE / "seeds"
out.mkdir(exist_ok=True)
for name, (pick, body) in SEEDS.items():
    (out / name).write_bytes(bytes([pick]) + json.dumps(body).encode())
