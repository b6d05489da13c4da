#!/usr/bin/env node
// Smoke test of client.mjs, sign.mjs and facilitator.mjs together, against an
// anvil prepared by ../devnet/builder/deploy-base.mjs. It runs a tiny x402
// resource server of its own (402 + PAYMENT-REQUIRED, then /verify and /settle
// on the facilitator) and checks the money moved on-chain.
// Usage: node selftest.mjs --devnet FILE.json   (the file deploy-base wrote)
// Prints one JSON line {ok, checks, timings_ms}; exits 1 on any failed check.
import { spawn, execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { createPublicClient, http, parseAbi } from "viem";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

const { values } = parseArgs({ options: { devnet: { type: "string" } } });
if (!values.devnet) {
  process.stderr.write("usage: node selftest.mjs --devnet FILE.json\n");
  process.exit(2);
}
const dev = JSON.parse(readFileSync(values.devnet, "utf8"));

function requirement(amount) {
  return {
    scheme: "exact",
    network: "eip155:8453",
    asset: dev.usdc,
    amount: String(amount),
    payTo: dev.pay_to,
    maxTimeoutSeconds: 60,
    extra: { name: "USD Coin", version: "2" },
  };
}
// Two priced routes: one under the client's default $1 cap, one over it.
const PRICES = { "/paid": 5000, "/expensive": 2_000_000 };

function startFacilitator() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "facilitator.mjs"), "--rpc", dev.rpc_url, "--key", dev.facilitator_private_key], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.on("exit", (code) => reject(new Error(`facilitator exited early (${code})`)));
    createInterface({ input: child.stdout }).once("line", (line) => resolve({ child, url: JSON.parse(line).listening }));
  });
}

async function post(url, body) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return r.json();
}

// The throwaway resource server: no payment → 402; payment → verify, settle, 200.
function startResource(facilitatorUrl) {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const price = PRICES[path];
    if (price === undefined) return res.writeHead(404).end();
    const accepts = [requirement(price)];
    const refuse = (error) => {
      const pr = { x402Version: 2, error, resource: { url: `http://${req.headers.host}${path}`, mimeType: "application/json" }, accepts };
      res.writeHead(402, { "content-type": "application/json", "PAYMENT-REQUIRED": encodePaymentRequiredHeader(pr) });
      res.end("{}");
    };
    const header = req.headers["payment-signature"];
    if (!header) return refuse("Payment required");
    const paymentPayload = decodePaymentSignatureHeader(header);
    const body = { x402Version: 2, paymentPayload, paymentRequirements: accepts[0] };
    const verified = await post(`${facilitatorUrl}/verify`, body);
    if (!verified.isValid) return refuse(verified.invalidReason ?? "invalid payment");
    const settled = await post(`${facilitatorUrl}/settle`, body);
    if (!settled.success) return refuse(settled.errorReason ?? "settlement failed");
    res.writeHead(200, { "content-type": "application/json", "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled) });
    res.end(JSON.stringify({ ok: true }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

async function node(script, args) {
  const t = Date.now();
  const { stdout } = await run(process.execPath, [join(here, script), ...args]).catch((e) => e);
  return { out: JSON.parse(stdout.trim().split("\n").at(-1)), ms: Date.now() - t };
}

async function main() {
  const checks = {};
  const timings_ms = {};
  const check = (name, cond, detail) => {
    checks[name] = cond ? "ok" : `FAILED ${JSON.stringify(detail)}`;
  };
  const chain = createPublicClient({ transport: http(dev.rpc_url) });
  const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"]);
  const balance = (a) => chain.readContract({ address: dev.usdc, abi: erc20, functionName: "balanceOf", args: [a] });

  let t = Date.now();
  const fac = await startFacilitator();
  timings_ms.facilitator_start = Date.now() - t;
  const rs = await startResource(fac.url);
  try {
    const supported = await (await fetch(`${fac.url}/supported`)).json();
    check("supported lists exact on eip155:8453", supported.kinds?.some((k) => k.scheme === "exact" && k.network === "eip155:8453" && k.x402Version === 2), supported);

    const before = await balance(dev.pay_to);
    const paid = await node("client.mjs", ["--url", `${rs.url}/paid`, "--key", dev.payer_private_key]);
    timings_ms.client_paid = paid.ms;
    const after = await balance(dev.pay_to);
    check("first answer is 402 with decoded requirements", paid.out.first?.status === 402 && paid.out.first.payment_required?.accepts?.[0]?.amount === "5000", paid.out.first);
    check("paid request answered 200 with settlement", paid.out.final?.status === 200 && paid.out.final.payment_response?.success === true, paid.out);
    check("payment_signature recorded", typeof paid.out.payment_signature === "string", paid.out.payment_signature);
    check("payTo balance rose by 5000", after - before === 5000n, { before: String(before), after: String(after) });

    // Replay the recorded header by hand: the facilitator must refuse the used nonce.
    const replay = await fetch(`${rs.url}/paid`, { headers: { "PAYMENT-SIGNATURE": paid.out.payment_signature } });
    const replayReason = JSON.parse(Buffer.from(replay.headers.get("payment-required"), "base64").toString()).error;
    check("replayed header refused", replay.status === 402 && replayReason === "invalid_exact_evm_nonce_already_used", replayReason);

    // sign.mjs builds a header that the server accepts once.
    const pr = encodePaymentRequiredHeader({ x402Version: 2, resource: { url: `${rs.url}/paid` }, accepts: [requirement(5000)] });
    const signed = await node("sign.mjs", ["--payment-required", pr, "--key", dev.payer_private_key]);
    timings_ms.sign = signed.ms;
    const use1 = await fetch(`${rs.url}/paid`, { headers: { "PAYMENT-SIGNATURE": signed.out.payment_signature } });
    const use2 = await fetch(`${rs.url}/paid`, { headers: { "PAYMENT-SIGNATURE": signed.out.payment_signature } });
    check("signed header accepted once, then refused", use1.status === 200 && use2.status === 402, [use1.status, use2.status]);

    const capped = await node("client.mjs", ["--url", `${rs.url}/expensive`, "--key", dev.payer_private_key]);
    check("default $1 cap refuses a $2 price", capped.out.error?.includes("spendControls") && capped.out.payment_signature === null, capped.out);
    const uncapped = await node("client.mjs", ["--url", `${rs.url}/expensive`, "--key", dev.payer_private_key, "--max-amount", "$5"]);
    check("--max-amount $5 pays $2", uncapped.out.final?.status === 200, uncapped.out.final);

    const broke = await node("client.mjs", ["--url", `${rs.url}/paid`, "--key", dev.unfunded_payer_private_key]);
    check("unfunded payer gets a second 402, no error", broke.out.final?.status === 402 && broke.out.error === null, broke.out);

    const final = await balance(dev.pay_to);
    check("payTo total is 5000+5000+2000000", final - before === 2_010_000n, String(final - before));
  } finally {
    rs.server.close();
    fac.child.removeAllListeners("exit");
    fac.child.kill("SIGTERM");
  }
  const ok = Object.values(checks).every((v) => v === "ok");
  process.stdout.write(`${JSON.stringify({ ok, checks, timings_ms })}\n`);
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ ok: false, error: String(err?.stack ?? err) })}\n`);
  process.exit(1);
});
