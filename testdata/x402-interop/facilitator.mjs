#!/usr/bin/env node
// The official x402 npm facilitator (@x402/core + @x402/evm "exact") serving
// the standard facilitator HTTP API over a local chain, so Rust servers can be
// tested against it and a Rust facilitator can be compared with it.
// Usage: node facilitator.mjs --rpc http://127.0.0.1:PORT --key 0xFACILITATOR_KEY [--port 0]
// Prints {"listening":"http://127.0.0.1:PORT"} once ready; runs until killed.
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { createWalletClient, defineChain, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";

const NETWORK = "eip155:8453";
const MAX_BODY = 1 << 20;

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node facilitator.mjs --rpc http://127.0.0.1:PORT --key 0xFACILITATOR_KEY [--port 0]\n`);
  process.exit(2);
}

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { rpc: { type: "string" }, key: { type: "string" }, port: { type: "string", default: "0" } },
      strict: true,
    }));
  } catch (err) {
    usage(err.message);
  }
  if (!values.rpc) usage("missing --rpc");
  if (!/^0x[0-9a-fA-F]{64}$/.test(values.key ?? "")) usage("--key must be a 0x-prefixed 32-byte hex private key");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usage("--port must be 0..65535");
  return { rpc: values.rpc, key: values.key, port };
}

function buildFacilitator(rpc, key) {
  const chain = defineChain({
    id: 8453,
    name: "Base devnet",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
  const account = privateKeyToAccount(key);
  // viem's default 4 s polling (and block-number cache) is tuned for public
  // chains; anvil mines instantly, so poll fast to keep /settle snappy.
  const client = createWalletClient({ account, chain, transport: http(rpc), pollingInterval: 100 }).extend(publicActions);
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => client.readContract(args),
      verifyTypedData: (args) => client.verifyTypedData(args),
      writeContract: (args) => client.writeContract(args),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    // A test should see settlement_pending quickly rather than hang for 3 min.
    { confirmationTimeoutMs: 30_000 },
  );
  return new x402Facilitator().register(NETWORK, new ExactEvmScheme(signer));
}

// Settlements all spend from one account. viem picks the nonce per send, so two
// concurrent settles could pick the same one; run them one at a time instead.
let settleChain = Promise.resolve();
function serialised(fn) {
  const run = settleChain.then(fn, fn);
  settleChain = run.catch(() => {});
  return run;
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error("request body too large"), { status: 413 }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(Object.assign(new Error("request body is not valid JSON"), { status: 400 }));
      }
    });
    req.on("error", reject);
  });
}

// JSON.stringify cannot encode bigint; the library's results are plain
// strings today, but stay safe if a field ever comes back as bigint.
function send(res, status, body) {
  const text = JSON.stringify(body, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  res.writeHead(status, { "content-type": "application/json" });
  res.end(text);
}

function requireBody(body) {
  if (!body || typeof body !== "object" || !body.paymentPayload || !body.paymentRequirements) {
    throw Object.assign(new Error("body must be {x402Version, paymentPayload, paymentRequirements}"), { status: 400 });
  }
  return body;
}

function makeHandler(fac) {
  return async (req, res) => {
    const path = new URL(req.url, "http://localhost").pathname;
    try {
      if (req.method === "GET" && path === "/supported") {
        return send(res, 200, fac.getSupported());
      }
      if (req.method === "POST" && path === "/verify") {
        const b = requireBody(await readJson(req));
        return send(res, 200, await fac.verify(b.paymentPayload, b.paymentRequirements));
      }
      if (req.method === "POST" && path === "/settle") {
        const b = requireBody(await readJson(req));
        return send(res, 200, await serialised(() => fac.settle(b.paymentPayload, b.paymentRequirements)));
      }
      return send(res, 404, { error: `no route ${req.method} ${path}` });
    } catch (err) {
      // Our own input errors carry a 4xx; anything the library throws is a 500.
      return send(res, err.status ?? 500, { error: String(err?.message ?? err) });
    }
  };
}

function main() {
  const { rpc, key, port } = parseCli();
  const server = createServer(makeHandler(buildFacilitator(rpc, key)));
  server.listen(port, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${server.address().port}` })}\n`);
  });
  server.on("error", (err) => {
    process.stderr.write(`facilitator: ${err.message}\n`);
    process.exit(1);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main();
