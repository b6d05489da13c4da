// Stage: Multicall3 at its canonical address. Clients (viem, and the x402
// facilitator's failure diagnosis) batch reads through it and assume it exists.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress } from "ethers";
import { packageDir } from "./artifacts.mjs";
import { placeRuntime } from "./canonical.mjs";
import { contractAt } from "./rpc.mjs";

export const MULTICALL3 = getAddress("0xca11bde05977b3631167028862be2a173976ca11");

export const MULTICALL3_ABI = [
  "function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)",
  "function getChainId() view returns (uint256 chainid)",
];

// viem ships Multicall3's creation code as a string constant in a module that
// is not among its package exports, so read the file text rather than import.
export function multicall3CreationCode() {
  const file = join(packageDir("viem"), "_esm", "constants", "contracts.js");
  const m = readFileSync(file, "utf8").match(/export const multicall3Bytecode = ['"](0x[0-9a-fA-F]+)['"]/);
  if (!m) throw new Error(`multicall3Bytecode not found in ${file}`);
  return m[1];
}

export async function placeMulticall3(rpc, { deployer }) {
  await placeRuntime(rpc, { from: deployer, creationCode: multicall3CreationCode(), target: MULTICALL3, label: "Multicall3" });
  return contractAt(rpc, MULTICALL3, MULTICALL3_ABI, deployer);
}

// Batches `calls` ([{contract, fn, args}]) through aggregate3 with
// allowFailure=false and returns each decoded single result.
export async function aggregate3(multicall, calls) {
  const packed = calls.map(({ contract, fn, args = [] }) => ({
    target: contract.address,
    allowFailure: false,
    callData: contract.iface.encodeFunctionData(fn, args),
  }));
  const results = await multicall.read("aggregate3", packed);
  return results.map((r, i) => {
    const { contract, fn } = calls[i];
    if (!r.success) throw new Error(`aggregate3: ${fn} failed`);
    const out = contract.iface.decodeFunctionResult(fn, r.returnData);
    return out.length === 1 ? out[0] : out;
  });
}
