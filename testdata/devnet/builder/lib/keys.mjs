// Fixed test keys: keccak256 of a readable label, so they never change between
// builds and are plainly not secrets. Never fund them on a real network.
import { Wallet, keccak256, toUtf8Bytes } from "ethers";

export function labelledKey(label) {
  const privateKey = keccak256(toUtf8Bytes(label));
  return { label, privateKey, address: new Wallet(privateKey).address };
}

export const DEV_KEYS = {
  payer: labelledKey("x402-devnet-payer"),
  facilitator: labelledKey("x402-devnet-facilitator"),
  payTo: labelledKey("x402-devnet-payto"),
  unfundedPayer: labelledKey("x402-devnet-unfunded-payer"),
  // Admin of the USDC proxy. The proxy never forwards its admin's calls, so
  // this must be an account nothing else uses; its key is fixed only so a
  // later stage could sign an upgrade.
  usdcProxyAdmin: labelledKey("x402-devnet-usdc-proxy-admin"),
};
