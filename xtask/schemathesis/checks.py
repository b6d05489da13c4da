"""Checks `cargo xtask schemathesis` adds to schemathesis's own (loaded with SCHEMATHESIS_HOOKS).

- Every 4xx other than 402 is the services' JSON error model with `charged: false`.
- A 402 carries the terms in PAYMENT-REQUIRED and no receipt.
- A receipt (PAYMENT-RESPONSE) only ever comes with a 2xx: nothing that failed was charged.

`/mcp` is left out of the runs (`--exclude-path`): its refusals are JSON-RPC errors as the MCP
transport specifies, and the MCP conformance suite checks it. A method no operation has (TRACE, DELETE) is held to it: 405 `method_not_allowed`.
"""

import schemathesis


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
