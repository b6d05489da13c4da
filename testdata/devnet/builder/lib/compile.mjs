// solc-js for the contracts that npm ships as source only (Chainlink's
// MockV3Aggregator, Aerodrome). Output is cached under vendor/solc-cache,
// keyed by everything that can change it, because a cold Aerodrome compile
// takes several seconds.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { packageDir } from "./artifacts.mjs";
import { VENDOR_DIR } from "./vendor.mjs";

const require = createRequire(import.meta.url);
const CACHE_DIR = join(VENDOR_DIR, "solc-cache");

let solcModule;
function solc() {
  // Loading soljson takes ~1 s, so only when something is not cached.
  solcModule ??= require("solc");
  return solcModule;
}

export function solcVersion() {
  return JSON.parse(readFileSync(join(packageDir("solc"), "package.json"), "utf8")).version;
}

// `remappings` maps a source-unit prefix (e.g. "@openzeppelin/contracts/") to
// a folder on disk. Unit names stay package-relative, so the metadata hash in
// the bytecode does not depend on where this checkout lives.
function makeReader(remappings) {
  const prefixes = Object.keys(remappings).sort((a, b) => b.length - a.length);
  return (unit) => {
    const prefix = prefixes.find((p) => unit.startsWith(p));
    if (!prefix) return null;
    const file = join(remappings[prefix], unit.slice(prefix.length));
    return existsSync(file) ? readFileSync(file, "utf8") : null;
  };
}

// job: {name, entries: [unit names], contracts: {Alias: "unit:ContractName"},
//       remappings, settings: {optimizer, evmVersion}, cacheKey: extra strings
//       naming the package versions behind the remappings}
// Returns {Alias: {abi, bytecode, deployedBytecode}} (bytecode 0x-prefixed)
// plus {cached, ms}.
export function compileJob(job) {
  const started = Date.now();
  const version = solcVersion();
  const settings = {
    optimizer: job.settings.optimizer,
    evmVersion: job.settings.evmVersion,
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  };
  const key = createHash("sha256")
    .update(JSON.stringify({ version, settings, entries: job.entries, contracts: job.contracts, extra: job.cacheKey }))
    .digest("hex")
    .slice(0, 16);
  const cacheFile = join(CACHE_DIR, `${job.name}-${key}.json`);
  if (existsSync(cacheFile)) {
    return { contracts: JSON.parse(readFileSync(cacheFile, "utf8")), cached: true, ms: Date.now() - started };
  }

  const read = makeReader(job.remappings);
  const sources = {};
  for (const unit of job.entries) {
    const content = read(unit);
    if (content === null) throw new Error(`${job.name}: source ${unit} not found`);
    sources[unit] = { content };
  }
  const input = { language: "Solidity", sources, settings };
  const output = JSON.parse(
    solc().compile(JSON.stringify(input), {
      import: (unit) => {
        const contents = read(unit);
        return contents === null ? { error: `not found: ${unit}` } : { contents };
      },
    }),
  );
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) {
    throw new Error(`${job.name}: solc errors:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }

  const contracts = {};
  for (const [alias, ref] of Object.entries(job.contracts)) {
    const i = ref.lastIndexOf(":");
    const c = output.contracts?.[ref.slice(0, i)]?.[ref.slice(i + 1)];
    if (!c?.evm?.bytecode?.object) throw new Error(`${job.name}: no bytecode for ${ref}`);
    contracts[alias] = {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    };
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(contracts));
  return { contracts, cached: false, ms: Date.now() - started };
}
