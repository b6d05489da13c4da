// Pieces shared by client.mjs and sign.mjs: argument checks and building the
// official x402 client exactly as an application would.
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

export function usageExit(usage, msg) {
  process.stderr.write(`${msg}\nusage: ${usage}\n`);
  process.exit(2);
}

export function isPrivateKey(s) {
  return typeof s === "string" && /^0x[0-9a-fA-F]{64}$/.test(s);
}

// spend: undefined keeps the library default cap ($1 per payment),
// false disables spend controls, a string like "$5" sets the cap.
export function makeClient(key, spend) {
  const client = new x402Client();
  // A bare local account is all the exact/EIP-3009 client needs: it signs
  // typed data and never touches the chain.
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key) });
  if (spend === false) client.setSpendControls(false);
  else if (spend !== undefined) client.setSpendControls({ maxAmountPerPayment: spend });
  return client;
}

// Turns --max-amount / --no-spend-cap into makeClient's `spend`, or an error message.
export function spendFromArgs(values) {
  if (values["no-spend-cap"] && values["max-amount"] !== undefined) {
    return { error: "--max-amount and --no-spend-cap are exclusive" };
  }
  if (values["no-spend-cap"]) return { spend: false };
  return { spend: values["max-amount"] };
}
