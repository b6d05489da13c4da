#!/usr/bin/env node
// The fault suite: many paid calls by the official x402 client (@x402/fetch) on a lossy
// network, each with a payment id (@x402/extensions payment-identifier), counting the
// authorizations the client signs and whether each paid answer is finally delivered.
//
// Usage: node faults.mjs --url URL --key 0xPRIVKEY --runs N [--concurrency C]
//                        [--cut] [--max-attempts A] [--max-wait-ms MS] [--seed S]
//
// Each run: a fresh payment id; the wrapped fetch makes the paid call (the client signs one
// authorization). With --cut, the answer to the first paid request is lost: the connection
// is aborted at a random moment between sending and reading the answer (before the work
// ends, during the settlement or after it). Then, as an application would, the same request
// is sent again with the SAME payment header through the same wrapped fetch until an
// answer that is not a "come back later" arrives (Retry-After is honoured, capped by
// --max-wait-ms). The client signs a second authorization only if it is ever answered 402.
//
// Prints ONE JSON line: {"runs", "signed": total authorizations signed, "runs_signing_twice",
// "delivered": runs ending in 200, "final_statuses": {status: count}, "attempts", "cut",
// "answers_differ": runs whose delivered body is not the route's answer, "errors": [...]}.
import { parseArgs } from "node:util";
import { wrapFetchWithPayment } from "@x402/fetch";
import {
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
} from "@x402/extensions/payment-identifier";
import { isPrivateKey, makeClient, usageExit } from "./lib/common.mjs";

const USAGE =
  "node faults.mjs --url URL --key 0xPRIVKEY --runs N [--concurrency C] [--cut] [--max-attempts A] [--max-wait-ms MS] [--seed S]";

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: "string" },
        key: { type: "string" },
        runs: { type: "string" },
        concurrency: { type: "string", default: "8" },
        cut: { type: "boolean", default: false },
        "max-attempts": { type: "string", default: "40" },
        "max-wait-ms": { type: "string", default: "1500" },
        seed: { type: "string", default: "1" },
      },
      strict: true,
    }));
  } catch (err) {
    usageExit(USAGE, err.message);
  }
  if (!values.url) usageExit(USAGE, "missing --url");
  if (!isPrivateKey(values.key)) usageExit(USAGE, "--key must be a 0x-prefixed 32-byte hex private key");
  const number = (name) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) usageExit(USAGE, `--${name} must be a positive integer`);
    return n;
  };
  return {
    url: values.url,
    key: values.key,
    runs: number("runs"),
    concurrency: number("concurrency"),
    cut: values.cut,
    maxAttempts: number("max-attempts"),
    maxWaitMs: number("max-wait-ms"),
    seed: number("seed"),
  };
}

// A small deterministic generator (mulberry32), so a failing run can be repeated.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The official client with one payment id for all its payments: what an application that
// wants safe retries registers.
function clientWithId(key, id, counter) {
  const client = makeClient(key, undefined);
  client.registerExtension({
    key: "payment-identifier",
    enrichPaymentPayload: async (payload) => ({
      ...payload,
      extensions: appendPaymentIdentifierToExtensions({ ...(payload.extensions ?? {}) }, id),
    }),
  });
  client.onAfterPaymentCreation(async () => {
    counter.signed += 1;
  });
  return client;
}

// A fetch that loses the first paid request's answer when `cut` holds: it aborts the
// connection `delayMs` after sending.
function lossyFetch(state) {
  return async (input, init) => {
    const request = new Request(input, init);
    const paid = request.headers.has("PAYMENT-SIGNATURE");
    if (paid) state.lastSignature = request.headers.get("PAYMENT-SIGNATURE");
    if (paid && state.cutNext) {
      state.cutNext = false;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(new Error("connection cut")), state.cutAfterMs);
      try {
        const response = await fetch(request, { signal: abort.signal });
        // The answer arrived before the cut: it is lost all the same.
        await response.arrayBuffer().catch(() => {});
        throw new Error("connection cut after the answer began");
      } finally {
        clearTimeout(timer);
      }
    }
    return fetch(request);
  };
}

async function oneRun(opts, index, rand) {
  const counter = { signed: 0 };
  const id = generatePaymentId("fault_");
  const state = { cutNext: opts.cut, cutAfterMs: Math.floor(rand() * 250), lastSignature: null };
  const pay = wrapFetchWithPayment(lossyFetch(state), clientWithId(opts.key, id, counter));
  const body = JSON.stringify({ run: index, delay_ms: 100 });
  const post = (headers) =>
    pay(opts.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const outcome = { signed: 0, attempts: 0, final: null, body: null, error: null, cut: opts.cut };
  let response = null;
  try {
    outcome.attempts += 1;
    response = await post({});
  } catch (err) {
    if (!opts.cut) outcome.error = String(err?.message ?? err);
  }
  // Retry the same request with the same payment until it is no longer "later".
  while (outcome.attempts < opts.maxAttempts) {
    if (response && ![409, 502, 503].includes(response.status)) break;
    if (response) {
      const after = Number(response.headers.get("Retry-After") ?? "1");
      await response.arrayBuffer().catch(() => {});
      await sleep(Math.min(Math.max(after, 0.05) * 1000, opts.maxWaitMs));
    }
    if (!state.lastSignature) break;
    outcome.attempts += 1;
    try {
      response = await post({ "PAYMENT-SIGNATURE": state.lastSignature });
    } catch (err) {
      // "Payment already attempted": the client was answered 402 and signed again.
      outcome.error = String(err?.message ?? err);
      response = null;
      break;
    }
  }
  outcome.signed = counter.signed;
  if (response) {
    outcome.final = response.status;
    const text = await response.text();
    try {
      outcome.body = JSON.parse(text);
    } catch {
      outcome.body = text;
    }
  }
  return outcome;
}

async function main() {
  const opts = parseCli();
  const rand = random(opts.seed);
  const outcomes = new Array(opts.runs);
  let next = 0;
  const worker = async () => {
    while (next < opts.runs) {
      const index = next++;
      outcomes[index] = await oneRun(opts, index, rand);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, opts.runs) }, worker));
  const report = {
    runs: opts.runs,
    cut: opts.cut,
    signed: 0,
    runs_signing_twice: 0,
    delivered: 0,
    answers_differ: 0,
    attempts: 0,
    final_statuses: {},
    errors: [],
  };
  outcomes.forEach((o, index) => {
    report.signed += o.signed;
    report.attempts += o.attempts;
    if (o.signed > 1) report.runs_signing_twice += 1;
    report.final_statuses[o.final ?? "none"] = (report.final_statuses[o.final ?? "none"] ?? 0) + 1;
    if (o.final === 200) {
      report.delivered += 1;
      if (o.body?.answer !== "paid content" || o.body?.request?.run !== index) report.answers_differ += 1;
    }
    if (o.error && report.errors.length < 10) report.errors.push({ run: index, error: o.error, final: o.final, body: o.body });
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main();
