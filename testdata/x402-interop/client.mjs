#!/usr/bin/env node
// The official x402 paying client (@x402/fetch wrapFetchWithPayment), with a
// recording fetch underneath so tests can assert on what crossed the wire.
// Usage: node client.mjs --url URL --key 0xPRIVKEY [--body JSON | --body-file PATH] [--method POST]
//                        [--max-amount '$5' | --no-spend-cap] [--timeout SECONDS] [--network CAIP2]
//                        [--payment-signature B64]
// Prints one JSON line (see README.md). Exits 0 whatever the server answered;
// 2 on usage errors.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  verifyOfferSignatureEIP712,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureEIP712,
} from "@x402/extensions/offer-receipt";
import { privateKeyToAccount } from "viem/accounts";
import { isPrivateKey, makeClient, spendFromArgs, usageExit } from "./lib/common.mjs";

const USAGE =
  "node client.mjs --url URL --key 0xPRIVKEY [--body JSON | --body-file PATH] [--method POST] [--max-amount '$5' | --no-spend-cap] [--timeout SECONDS] [--network CAIP2] [--payment-signature B64]";

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: "string" },
        key: { type: "string" },
        body: { type: "string" },
        // Large bodies (documents as base64) exceed the limit of one command-line argument.
        "body-file": { type: "string" },
        method: { type: "string" },
        "max-amount": { type: "string" },
        "no-spend-cap": { type: "boolean" },
        timeout: { type: "string", default: "60" },
        // Pay on this network only (a policy of the official client), e.g. eip155:42161.
        network: { type: "string" },
        // Send this payment header with the first request: an application retrying a paid
        // request whose answer it lost. The wrapper signs anew only if answered 402.
        "payment-signature": { type: "string" },
      },
      strict: true,
    }));
  } catch (err) {
    usageExit(USAGE, err.message);
  }
  if (!values.url) usageExit(USAGE, "missing --url");
  try {
    new URL(values.url);
  } catch {
    usageExit(USAGE, `--url is not a URL: ${values.url}`);
  }
  if (!isPrivateKey(values.key)) usageExit(USAGE, "--key must be a 0x-prefixed 32-byte hex private key");
  if (values["body-file"] !== undefined) values.body = readFileSync(values["body-file"], "utf8");
  if (values.body !== undefined) {
    try {
      JSON.parse(values.body);
    } catch {
      usageExit(USAGE, "--body must be valid JSON");
    }
  }
  const timeout = Number(values.timeout);
  if (!(timeout > 0)) usageExit(USAGE, "--timeout must be a positive number of seconds");
  const { spend, error } = spendFromArgs(values);
  if (error) usageExit(USAGE, error);
  const method = (values.method ?? (values.body !== undefined ? "POST" : "GET")).toUpperCase();
  return {
    url: values.url,
    key: values.key,
    body: values.body,
    method,
    spend,
    timeout,
    network: values.network,
    paymentSignature: values["payment-signature"],
  };
}

function parseBody(text) {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// Header decoders throw on junk; for the record, junk simply reads as null.
function tryDecode(decode, value) {
  if (!value) return null;
  try {
    return decode(value);
  } catch {
    return null;
  }
}

// Wraps fetch so every exchange is kept: the request's payment header and the
// response's status, headers and body. Bodies are read from a clone, leaving
// the original for the x402 wrapper (which consumes the 402 body itself).
function recordingFetch(log, signal) {
  return async (input, init) => {
    const req = new Request(input, init);
    const entry = {
      payment_signature: req.headers.get("PAYMENT-SIGNATURE") ?? req.headers.get("X-PAYMENT"),
      response: null,
    };
    log.push(entry);
    const res = await fetch(req, { signal });
    const text = await res.clone().text();
    entry.response = { status: res.status, headers: res.headers, body: parseBody(text) };
    entry.raw = res;
    return res;
  };
}

async function main() {
  const opts = parseCli();
  const log = [];
  const signal = AbortSignal.timeout(opts.timeout * 1000);
  const client = makeClient(opts.key, opts.spend);
  if (opts.network) client.registerPolicy((_version, accepts) => accepts.filter((r) => r.network === opts.network));
  let signed = 0;
  client.onAfterPaymentCreation(async () => {
    signed += 1;
  });
  const pay = wrapFetchWithPayment(recordingFetch(log, signal), client);

  const headers = opts.body !== undefined ? { "content-type": "application/json" } : {};
  if (opts.paymentSignature) headers["PAYMENT-SIGNATURE"] = opts.paymentSignature;
  let error = null;
  let returned = null;
  try {
    returned = await pay(opts.url, { method: opts.method, headers, body: opts.body });
  } catch (err) {
    // fetch's own message ("fetch failed") hides the reason in `cause`.
    const cause = err?.cause?.message ?? err?.cause?.code;
    error = String(err?.message ?? err) + (cause ? `: ${cause}` : "");
  }

  const first = log[0]?.response ?? null;
  const paid = log.filter((e) => e.payment_signature);
  // `final` is the response the wrapper handed back (it returns one of the
  // inner fetch's Response objects). If it threw after a paid request, report
  // that request's response instead.
  const finalEntry = returned ? log.find((e) => e.raw === returned) : paid.at(-1);
  const final = finalEntry?.response ?? null;

  // The offer-receipt extension, checked with the official verifier: who signed each offer of
  // the first 402 and the receipt of the final answer, and whether the receipt matches the
  // offer that was paid (resource, network, payer, recent).
  const signedBy = async (verify, signed) => {
    try {
      return (await verify(signed)).signer;
    } catch (err) {
      return `unverifiable: ${err?.message ?? err}`;
    }
  };
  const firstTerms = tryDecode(decodePaymentRequiredHeader, first?.headers.get("PAYMENT-REQUIRED"));
  const offers = firstTerms ? extractOffersFromPaymentRequired(firstTerms) : [];
  const offerSigners = [];
  for (const offer of offers) offerSigners.push(await signedBy(verifyOfferSignatureEIP712, offer));
  const receipt = finalEntry?.raw ? extractReceiptFromResponse(finalEntry.raw) : undefined;
  const receiptSigner = receipt ? await signedBy(verifyReceiptSignatureEIP712, receipt) : null;
  const payer = privateKeyToAccount(opts.key).address;
  const receiptMatchesOffer =
    receipt && offers.length > 0 ? verifyReceiptMatchesOffer(receipt, decodeSignedOffers(offers)[0], [payer]) : null;

  const out = {
    first: first && {
      status: first.status,
      payment_required: tryDecode(decodePaymentRequiredHeader, first.headers.get("PAYMENT-REQUIRED")),
      body: first.body,
    },
    // The last paid request is the one `final` answers (the wrapper may retry
    // once with a fresh payload if a payment-response hook asks it to).
    payment_signature: paid.at(-1)?.payment_signature ?? null,
    final: final && {
      status: final.status,
      body: final.body,
      x_cache: final.headers.get("X-Cache"),
      payment_response: tryDecode(
        decodePaymentResponseHeader,
        final.headers.get("PAYMENT-RESPONSE") ?? final.headers.get("X-PAYMENT-RESPONSE"),
      ),
      // A refused payment comes back as a second 402 whose header carries the
      // reason in `error`; keep it so tests can tell why.
      payment_required: tryDecode(decodePaymentRequiredHeader, final.headers.get("PAYMENT-REQUIRED")),
    },
    // Authorizations the client signed during this call.
    signed,
    offer_receipt: {
      offer_signers: offerSigners,
      receipt_signer: receiptSigner,
      receipt_matches_offer: receiptMatchesOffer,
    },
    error,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main();
