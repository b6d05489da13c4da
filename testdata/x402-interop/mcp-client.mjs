#!/usr/bin/env node
// An MCP client paying with x402, built from official packages: the MCP TypeScript SDK's
// Client over its Streamable HTTP transport, and the x402 client of lib/common.mjs signing
// the payment. It follows x402's MCP transport (specs/transports-v2/mcp.md) as
// @x402/mcp's client does (that package is not on the registry reachable here): a call
// without payment, the PaymentRequired taken from the error result's structuredContent, the
// PaymentPayload sent in params._meta["x402/payment"], the receipt read from
// result._meta["x402/payment-response"].
// Usage: node mcp-client.mjs --url BASE/mcp --key 0xPRIVKEY [--tool NAME --args-file PATH]
//                            [--replay] [--timeout SECONDS]
// Prints one JSON line: {"protocol_version", "tools": [descriptors], "unpaid": result,
// "payment": payload, "paid": result, "replay": result | null, "warnings": [what the SDK
// logged through console.warn / console.error]}; with no --tool only protocol_version, tools
// and warnings. Exits 0 whatever the server answered; 2 on usage errors;
// 1 when the client library itself refuses (the message on stderr).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isPrivateKey, makeClient, usageExit } from "./lib/common.mjs";

const USAGE =
  "node mcp-client.mjs --url BASE/mcp --key 0xPRIVKEY [--tool NAME --args-file PATH] [--replay] [--timeout SECONDS]";

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: "string" },
        key: { type: "string" },
        tool: { type: "string" },
        "args-file": { type: "string" },
        replay: { type: "boolean" },
        timeout: { type: "string", default: "90" },
      },
      strict: true,
    }));
  } catch (err) {
    usageExit(USAGE, err.message);
  }
  if (!values.url) usageExit(USAGE, "missing --url");
  if (!isPrivateKey(values.key)) usageExit(USAGE, "--key must be a 0x-prefixed 32-byte hex private key");
  let args = {};
  if (values["args-file"] !== undefined) {
    try {
      args = JSON.parse(readFileSync(values["args-file"], "utf8"));
    } catch (err) {
      usageExit(USAGE, `--args-file: ${err.message}`);
    }
  }
  const timeout = Number(values.timeout);
  if (!(timeout > 0)) usageExit(USAGE, "--timeout must be a positive number of seconds");
  return { ...values, args, timeout };
}

// The PaymentRequired of an error result, as the transport spec tells clients to find it.
function paymentRequiredOf(result) {
  if (!result.isError) return null;
  const isTerms = (o) => o && typeof o === "object" && "x402Version" in o && Array.isArray(o.accepts);
  if (isTerms(result.structuredContent)) return result.structuredContent;
  try {
    const parsed = JSON.parse(result.content?.[0]?.text ?? "");
    return isTerms(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

async function main() {
  const cli = parseCli();
  // What the SDK logs (its schema validator's complaints among them) goes into the report.
  const warnings = [];
  for (const level of ["warn", "error"]) {
    console[level] = (...parts) => warnings.push(parts.map(String).join(" "));
  }
  const client = new Client({ name: "x402-interop-mcp-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(cli.url));
  const options = { timeout: cli.timeout * 1000 };
  await client.connect(transport);
  const report = { protocol_version: transport.protocolVersion ?? null };
  // The SDK caches each tool's output schema here and validates every structuredContent
  // against it, the payment-required error included.
  report.tools = (await client.listTools()).tools;
  if (cli.tool) {
    const call = (meta) =>
      client.callTool({ name: cli.tool, arguments: cli.args, ...(meta ? { _meta: meta } : {}) }, undefined, options);
    report.unpaid = await call();
    const terms = paymentRequiredOf(report.unpaid);
    report.payment = null;
    report.paid = null;
    report.replay = null;
    if (terms) {
      const payment = await makeClient(cli.key, false).createPaymentPayload(terms);
      report.payment = payment;
      report.paid = await call({ "x402/payment": payment });
      if (cli.replay) report.replay = await call({ "x402/payment": payment });
    }
  }
  await transport.terminateSession().catch(() => {});
  await client.close();
  report.warnings = warnings;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
