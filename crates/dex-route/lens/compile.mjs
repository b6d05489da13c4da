// Compiles QuoteLens.sol with the solc-js the devnet builder installs (0.8.24) and writes
// its runtime bytecode to QuoteLens.runtime.hex, which dex-route embeds. `--check` compares
// instead of writing and exits 1 on a difference (the test `lens_bytecode_is_the_source's`
// runs it). Usage: node crates/dex-route/lens/compile.mjs [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const builder = join(here, "..", "..", "..", "testdata", "devnet", "builder");
const require = createRequire(join(builder, "package.json"));
const solc = require("solc");

const input = {
  language: "Solidity",
  sources: { "QuoteLens.sol": { content: readFileSync(join(here, "QuoteLens.sol"), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Shanghai: PUSH0 is on every chain of the registry; nothing later is needed.
    evmVersion: "shanghai",
    // No metadata hash: the bytecode depends on the source and settings only.
    metadata: { bytecodeHash: "none", appendCBOR: false },
    outputSelection: { "*": { QuoteLens: ["evm.deployedBytecode.object"] } },
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
const runtime = `0x${output.contracts["QuoteLens.sol"].QuoteLens.evm.deployedBytecode.object}\n`;
const file = join(here, "QuoteLens.runtime.hex");
if (process.argv.includes("--check")) {
  if (readFileSync(file, "utf8") !== runtime) {
    console.error("QuoteLens.runtime.hex differs from QuoteLens.sol compiled: run node crates/dex-route/lens/compile.mjs");
    process.exit(1);
  }
  console.log("QuoteLens.runtime.hex matches QuoteLens.sol");
} else {
  writeFileSync(file, runtime);
  console.log(`wrote ${file} (${(runtime.length - 3) / 2} bytes)`);
}
