// Reads compiled contracts shipped inside npm packages and links libraries.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

// Directory of an installed package, found the way Node would find it.
export function packageDir(name) {
  return dirname(require.resolve(`${name}/package.json`));
}

// Hardhat artifact: {contractName, abi, bytecode, deployedBytecode,
// linkReferences, deployedLinkReferences}; bytecode is 0x-hex with
// `__$hash$__` placeholders where libraries must be linked.
export function loadHardhatArtifact(pkg, relPath) {
  const file = join(packageDir(pkg), relPath);
  const art = JSON.parse(readFileSync(file, "utf8"));
  if (!art.abi || typeof art.bytecode !== "string") {
    throw new Error(`${file} is not a hardhat artifact`);
  }
  return art;
}

// Patches library addresses into bytecode at the byte offsets that
// linkReferences lists ({sourceFile: {LibName: [{start, length}]}}).
// `libraries` maps either "sourceFile:LibName" or "LibName" to an address.
export function linkBytecode(bytecode, linkReferences, libraries) {
  let hex = bytecode.startsWith("0x") ? bytecode.slice(2) : bytecode;
  for (const [source, libs] of Object.entries(linkReferences ?? {})) {
    for (const [lib, refs] of Object.entries(libs)) {
      const addr = libraries[`${source}:${lib}`] ?? libraries[lib];
      if (!addr) throw new Error(`no address given for library ${source}:${lib}`);
      const body = addr.toLowerCase().replace(/^0x/, "");
      for (const { start, length } of refs) {
        if (length !== 20) throw new Error(`unexpected link length ${length} for ${lib}`);
        const at = start * 2;
        if (!hex.startsWith("__", at)) {
          throw new Error(`no link placeholder for ${lib} at byte ${start}`);
        }
        hex = hex.slice(0, at) + body + hex.slice(at + 40);
      }
    }
  }
  if (hex.includes("__$")) throw new Error("bytecode still has unlinked library placeholders");
  return `0x${hex}`;
}

// Waffle artifact (Uniswap V2 packages): {abi, evm, bytecode} with bytecode
// lacking the 0x prefix. Returned in the hardhat shape used elsewhere.
export function loadWaffleArtifact(pkg, relPath) {
  const file = join(packageDir(pkg), relPath);
  const art = JSON.parse(readFileSync(file, "utf8"));
  const code = art.bytecode ?? art.evm?.bytecode?.object;
  if (!art.abi || typeof code !== "string") throw new Error(`${file} is not a waffle artifact`);
  return { abi: art.abi, bytecode: code.startsWith("0x") ? code : `0x${code}`, linkReferences: {} };
}
