#!/usr/bin/env node
// Builds the PAYMENT-SIGNATURE header value the official client would send,
// without sending anything; tests use it to replay one payment many times.
// Usage: node sign.mjs --payment-required BASE64 --key 0xPRIVKEY [--max-amount '$5' | --no-spend-cap]
// Prints {"payment_signature":"<base64>"}; on failure prints
// {"payment_signature":null,"error":"..."} and exits 1 (2 on usage errors).
import { parseArgs } from "node:util";
import { x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { isPrivateKey, makeClient, spendFromArgs, usageExit } from "./lib/common.mjs";

const USAGE = "node sign.mjs --payment-required BASE64 --key 0xPRIVKEY [--max-amount '$5' | --no-spend-cap]";

let values;
try {
  ({ values } = parseArgs({
    options: {
      "payment-required": { type: "string" },
      key: { type: "string" },
      "max-amount": { type: "string" },
      "no-spend-cap": { type: "boolean" },
    },
    strict: true,
  }));
} catch (err) {
  usageExit(USAGE, err.message);
}
if (!values["payment-required"]) usageExit(USAGE, "missing --payment-required");
if (!isPrivateKey(values.key)) usageExit(USAGE, "--key must be a 0x-prefixed 32-byte hex private key");
const { spend, error: spendError } = spendFromArgs(values);
if (spendError) usageExit(USAGE, spendError);

function decodeRequired(b64) {
  try {
    return decodePaymentRequiredHeader(b64);
  } catch (err) {
    throw new Error(`cannot decode --payment-required as a base64 JSON PaymentRequired: ${err.message}`);
  }
}

try {
  const paymentRequired = decodeRequired(values["payment-required"]);
  const client = makeClient(values.key, spend);
  const payload = await client.createPaymentPayload(paymentRequired);
  // The HTTP client picks the header for the version (PAYMENT-SIGNATURE for
  // v2, X-PAYMENT for v1); we return whichever value it produced.
  const headers = new x402HTTPClient(client).encodePaymentSignatureHeader(payload);
  const value = headers["PAYMENT-SIGNATURE"] ?? headers["X-PAYMENT"];
  process.stdout.write(`${JSON.stringify({ payment_signature: value })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ payment_signature: null, error: String(err?.message ?? err) })}\n`);
  process.exit(1);
}
