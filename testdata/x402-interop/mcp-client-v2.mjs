#!/usr/bin/env node
// The same paying MCP client as mcp-client.mjs, on the MCP TypeScript SDK v2
// (@modelcontextprotocol/client) pinned to the stateless revision 2026-07-28: the client probes
// with server/discover and speaks that revision only (no initialize, no session; the revision,
// client info and capabilities in every request's _meta; MCP-Protocol-Version, Mcp-Method and
// Mcp-Name headers), so a server that does not serve it fails the connect. The payment follows
// x402's MCP transport as in mcp-client.mjs.
// Usage: node mcp-client-v2.mjs --url BASE/mcp --key 0xPRIVKEY [--tool NAME --args-file PATH]
//                               [--timeout SECONDS]
// Prints one JSON line: {"protocol_version", "era", "discover", "server_version", "tools",
// "unpaid", "payment", "paid", "warnings"}, where warnings are whatever the SDK logged through
// console.warn / console.error (its schema validator's complaints among them); with no --tool
// only the listing. Exits 0 whatever the server answered; 2 on usage errors; 1 when the client
// library itself refuses (the message on stderr).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { isPrivateKey, makeClient, usageExit } from "./lib/common.mjs";

const USAGE =
  "node mcp-client-v2.mjs --url BASE/mcp --key 0xPRIVKEY [--tool NAME --args-file PATH] [--timeout SECONDS]";

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: "string" },
        key: { type: "string" },
        tool: { type: "string" },
        "args-file": { type: "string" },
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
  const warnings = [];
  for (const level of ["warn", "error"]) {
    console[level] = (...parts) => warnings.push(parts.map(String).join(" "));
  }
  const client = new Client(
    { name: "x402-interop-mcp-client-v2", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(cli.url));
  const options = { timeout: cli.timeout * 1000 };
  await client.connect(transport);
  const report = {
    protocol_version: client.getNegotiatedProtocolVersion() ?? null,
    era: client.getProtocolEra(),
    discover: client.getDiscoverResult() ?? null,
    server_version: client.getServerVersion() ?? null,
    session_id: transport.sessionId ?? null,
  };
  // The SDK keeps each tool's output schema from this listing and validates a successful
  // result's structuredContent against it.
  report.tools = (await client.listTools()).tools;
  if (cli.tool) {
    const call = (meta) =>
      client.callTool({ name: cli.tool, arguments: cli.args, ...(meta ? { _meta: meta } : {}) }, options);
    report.unpaid = await call();
    const terms = paymentRequiredOf(report.unpaid);
    report.payment = null;
    report.paid = null;
    if (terms) {
      const payment = await makeClient(cli.key, false).createPaymentPayload(terms);
      report.payment = payment;
      report.paid = await call({ "x402/payment": payment });
    }
  }
  await client.close();
  report.warnings = warnings;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
