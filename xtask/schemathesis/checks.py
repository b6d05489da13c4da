"""Checks and hooks `cargo xtask schemathesis` adds to schemathesis's own (loaded with
SCHEMATHESIS_HOOKS).

- Every 4xx other than 402 is the services' JSON error model with `charged: false`.
- A 402 carries the terms in PAYMENT-REQUIRED and no receipt.
- A receipt (PAYMENT-RESPONSE) only ever comes with a 2xx: nothing that failed was charged.

`/mcp` is left out of the main runs (`--exclude-path`): its refusals are JSON-RPC errors as the
MCP transport specifies, and the MCP conformance suite checks it. Its DELETE has runs of its
own with all of schemathesis's checks and without this module's `refusals_are_uncharged_errors`. A method no operation has (TRACE, DELETE) is held to it: 405 `method_not_allowed`.

When XTASK_SERVED_CHAINS is set (the paid analytics run on the local devnet), the data that
does not exist there is not asked for, in every phase (a `before_call` hook, registered for that
run only): a body naming another chain the schema allows is sent for the first served chain
(only `base` has a node), and one naming an asset outside XTASK_SERVED_ASSETS for the first
served asset (the devnet and its off-chain stand-in hold feeds and prices for ETH, BTC, USDC,
USDT, DAI and LINK, not wstETH or UNI). Either would be answered 502, uncharged, as documented
for a chain or sources that give nothing, which says nothing about conformance. Values the
schema does not allow are left as drawn (negative cases).
"""

import os

import schemathesis
from hypothesis.internal import lambda_sources as _lambda_sources

# CPython before 3.11.8 (the machines' 3.11.7) can raise SystemError "AST constructor recursion
# depth mismatch" from `ast.parse` deep in a stack whose recursion limit Hypothesis raised
# (CPython gh-106905). Hypothesis parses a lambda's source only to describe a strategy in its
# reprs, and schemathesis reported that as the operation's error (it hit POST /mev/risk in a
# clean CI run). The description falls back to Hypothesis's own placeholder instead; the cases
# drawn and the checks are untouched.
_describe_lambda = _lambda_sources.lambda_description


def _lambda_description_or_placeholder(f):
    try:
        return _describe_lambda(f)
    except SystemError:
        return "lambda: <unknown>"


_lambda_sources.lambda_description = _lambda_description_or_placeholder


def _listed(name):
    return [v for v in os.environ.get(name, "").split(",") if v]


_SERVED = {"chain": _listed("XTASK_SERVED_CHAINS"), "asset": _listed("XTASK_SERVED_ASSETS")}
_KNOWN = {
    "chain": {"base", "ethereum", "arbitrum", "optimism", "polygon"},
    "asset": {"ETH", "BTC", "USDC", "USDT", "DAI", "LINK", "wstETH", "UNI"},
}

if _SERVED["chain"]:

    @schemathesis.hook
    def before_call(ctx, case, kwargs):
        body = case.body
        if not isinstance(body, dict):
            return
        for field, served in _SERVED.items():
            value = body.get(field)
            if served and isinstance(value, str) and value in _KNOWN[field] and value not in served:
                body[field] = served[0]


@schemathesis.check
def refusals_are_uncharged_errors(ctx, response, case):
    status = response.status_code
    headers = {name.lower(): value for name, value in response.headers.items()}
    if "payment-response" in headers and not 200 <= status < 300:
        raise AssertionError(f"a {status} answer carries a payment receipt")
    if status == 402:
        if "payment-required" not in headers:
            raise AssertionError("a 402 without PAYMENT-REQUIRED")
        return
    if 400 <= status < 500:
        try:
            body = response.json()
        except Exception as error:  # noqa: BLE001 - any unreadable body is the finding
            raise AssertionError(f"a {status} whose body is not JSON: {error}") from None
        if not isinstance(body, dict) or not isinstance(body.get("error"), str):
            raise AssertionError(f"a {status} outside the error model: {body!r}")
        if body.get("charged") is not False:
            raise AssertionError(f"a {status} not saying charged: false: {body!r}")
