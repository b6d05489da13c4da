#!/usr/bin/env node
// x402scan's discovery validator (@agentcash/discovery, pinned) on one service, as a catalogue
// sees it: first its CLI (`discovery discover ORIGIN --json`: the OpenAPI document, the favicon,
// the route list, the guidance, every route's auth mode and price), then every paid route
// probed the way a catalogue fills a request from the schema alone (the body is the request
// schema's `examples[0]`), its 402 checked by the package's own endpoint check (payment options,
// the x402 v2 PaymentRequired against Coinbase's schema, the bazaar's input and output schemas).
// Usage: node discovery-check.mjs --origin http://127.0.0.1:PORT
// Prints one JSON line: {"discover": <the CLI's report>, "probes": [{"path", "paid", "authMode",
// "paymentOptions", "warnings"}]}. Exits 0 whatever the service answered; 2 on usage errors.
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { checkEndpointSchema, getWarningsForL3 } from "@agentcash/discovery";
import { usageExit } from "./lib/common.mjs";

const USAGE = "node discovery-check.mjs --origin http://127.0.0.1:PORT";

function parseCli() {
  try {
    const { values } = parseArgs({ options: { origin: { type: "string" } }, strict: true });
    if (!values.origin) usageExit(USAGE, "missing --origin");
    return values;
  } catch (err) {
    usageExit(USAGE, err.message);
  }
}

async function main() {
  const { origin } = parseCli();
  const cli = execFileSync(
    process.execPath,
    ["node_modules/@agentcash/discovery/bin/discovery.js", "discover", origin, "--json"],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const discover = JSON.parse(cli);
  const openapi = await (await fetch(`${origin}/openapi.json`)).json();
  const probes = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    const operation = item.post;
    if (!operation?.["x-payment-info"]) continue;
    const schema = operation.requestBody?.content?.["application/json"]?.schema;
    const body = schema?.examples?.[0];
    const result = await checkEndpointSchema({ url: `${origin}${path}`, sampleInputBody: body });
    const advisories = result.found ? result.advisories : [];
    const post = advisories.find((a) => a.method === "POST");
    probes.push({
      path,
      example_in_schema: body !== undefined,
      paid: post?.authMode === "paid",
      authMode: post?.authMode ?? null,
      paymentOptions: post?.paymentOptions ?? [],
      warnings: post ? getWarningsForL3(post) : getWarningsForL3(null),
    });
  }
  process.stdout.write(`${JSON.stringify({ discover, probes })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
