#!/usr/bin/env python3
"""Seeds for `analytics_requests`: each route's OpenAPI example body, from the committed
OpenAPI snapshot, behind the byte that picks its route (the target's ROUTES order)."""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
ROUTES = ["/dex/quote", "/pool/liquidity", "/yield/normalize",
          "/oracle/crosscheck", "/lending/health", "/mev/risk"]

snapshot = (HERE.parent / "tests/snapshots/http__openapi.snap").read_text()
openapi = json.loads(snapshot.split("---", 2)[2])
out = HERE / "seeds"
out.mkdir(exist_ok=True)
for pick, route in enumerate(ROUTES):
    example = openapi["paths"][route]["post"]["requestBody"]["content"]["application/json"]["example"]
    (out / f"route-{pick}").write_bytes(bytes([pick]) + json.dumps(example).encode())
