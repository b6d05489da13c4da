// Compiles SlipstreamInterface.sol with the solc-js the devnet builder installs (0.8.24) and
// writes the creation bytecode of its factory and quoter to SlipstreamInterface.json, which
// test-devnet embeds (the factory creates the pools). `--check` compares instead of writing and
// exits 1 on a difference. Usage: node testdata/devnet/slipstream/compile.mjs [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "builder", "package.json"));
const solc = require("solc");

const input = {
  language: "Solidity",
  sources: { "SlipstreamInterface.sol": { content: readFileSync(join(here, "SlipstreamInterface.sol"), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "shanghai",
    metadata: { bytecodeHash: "none", appendCBOR: false },
    outputSelection: { "*": { "*": ["evm.bytecode.object"] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e) => e.severity === "error");
if (errors.length) {
  console.error(errors.map((e) => e.formattedMessage).join("\n"));
  process.exit(2);
}
if (solc.version().split("+")[0] !== "0.8.24") {
  console.error(`solc ${solc.version()}, expected 0.8.24`);
  process.exit(2);
}
const contracts = output.contracts["SlipstreamInterface.sol"];
const json = `${JSON.stringify(
  {
    factory: `0x${contracts.DevnetSlipstreamFactory.evm.bytecode.object}`,
    quoter_v2: `0x${contracts.DevnetSlipstreamQuoterV2.evm.bytecode.object}`,
  },
  null,
  2,
)}\n`;
const file = join(here, "SlipstreamInterface.json");
if (process.argv.includes("--check")) {
  if (readFileSync(file, "utf8") !== json) {
    console.error("SlipstreamInterface.json differs from SlipstreamInterface.sol compiled: run node testdata/devnet/slipstream/compile.mjs");
    process.exit(1);
  }
  console.log("SlipstreamInterface.json matches SlipstreamInterface.sol");
} else {
  writeFileSync(file, json);
  console.log(`wrote ${file}`);
}
