// Puts code and state at fixed addresses through anvil's cheat RPCs, so the
// devnet has contracts where Base mainnet has them (clients hard-code those).
import { toBeHex, zeroPadValue } from "ethers";

export async function setCode(rpc, address, code) {
  await rpc.request("anvil_setCode", [address, code]);
  const now = await rpc.getCode(address);
  if (now.toLowerCase() !== code.toLowerCase()) throw new Error(`anvil_setCode did not stick at ${address}`);
}

// Values are 32-byte words; numbers and addresses are left-padded.
export async function setStorage(rpc, address, slot, value) {
  const word = typeof value === "bigint" || typeof value === "number"
    ? zeroPadValue(toBeHex(value), 32)
    : zeroPadValue(value, 32);
  await rpc.request("anvil_setStorageAt", [address, slot, word]);
}

export async function setBalance(rpc, address, wei) {
  await rpc.request("anvil_setBalance", [address, toBeHex(wei)]);
}

// Fails early instead of half-building over an earlier run (initializers
// would revert halfway with a less obvious message).
export async function assertEmpty(rpc, address, what) {
  const code = await rpc.getCode(address);
  if (code !== "0x") throw new Error(`${what} address ${address} already has code: start from a fresh anvil`);
}

// Runs the creation code once at a throwaway address, then copies the
// resulting runtime code to `target`. Taking the runtime from the chain (not
// from the artifact) keeps any constructor-written immutables intact.
// Storage is not copied: callers set what the target needs.
export async function placeRuntime(rpc, { from, creationCode, target, label }) {
  await assertEmpty(rpc, target, label);
  const temp = await rpc.deploy(from, creationCode, label);
  const runtime = await rpc.getCode(temp);
  if (runtime === "0x") throw new Error(`${label}: deployment left no code`);
  await setCode(rpc, target, runtime);
  return { temp, runtime };
}
