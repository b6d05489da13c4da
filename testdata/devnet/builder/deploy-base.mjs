#!/usr/bin/env node
// Stage 1 of the devnet build: the x402 payment rail on a running anvil.
// Usage: node deploy-base.mjs --rpc http://127.0.0.1:PORT --out FILE.json
// Anvil must be fresh and started with --chain-id 8453 (Base).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { getAddress, parseEther } from "ethers";
import { Rpc, contractAt } from "./lib/rpc.mjs";
import { setBalance } from "./lib/canonical.mjs";
import { DEV_KEYS } from "./lib/keys.mjs";
import { deployUsdc } from "./lib/usdc.mjs";
import { placeMulticall3, aggregate3 } from "./lib/multicall3.mjs";

const BASE_CHAIN_ID = 8453;
const PAYER_USDC = 1_000_000_000n; // 1,000 USDC at 6 decimals
const FACILITATOR_ETH = parseEther("100");

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node deploy-base.mjs --rpc http://127.0.0.1:PORT --out FILE.json\n`);
  process.exit(2);
}

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({ options: { rpc: { type: "string" }, out: { type: "string" } }, strict: true }));
  } catch (err) {
    usage(err.message);
  }
  if (!values.rpc) usage("missing --rpc");
  if (!values.out) usage("missing --out");
  return values;
}

async function main() {
  const { rpc: rpcUrl, out } = parseCli();
  const rpc = new Rpc(rpcUrl);

  const chainId = await rpc.chainId();
  if (chainId !== BASE_CHAIN_ID) throw new Error(`anvil chain id is ${chainId}, expected ${BASE_CHAIN_ID}`);
  // anvil's first dev account: unlocked and funded, so it can deploy without a key here.
  const [deployer] = await rpc.request("eth_accounts");
  if (!deployer) throw new Error("anvil exposes no unlocked accounts");

  const { usdc, address: usdcAddress, minter } = await deployUsdc(rpc, {
    deployer: getAddress(deployer),
    proxyAdmin: DEV_KEYS.usdcProxyAdmin.address,
  });
  const multicall = await placeMulticall3(rpc, { deployer });

  const { payer, facilitator, payTo, unfundedPayer } = DEV_KEYS;
  await usdc.send("mint", payer.address, PAYER_USDC);
  // The facilitator pays gas for settlements; the payer signs only (EIP-3009).
  await setBalance(rpc, facilitator.address, FACILITATOR_ETH);

  // One batched read proves Multicall3 works and the funding landed.
  const [mcChain, payerBal, payToBal] = await aggregate3(multicall, [
    { contract: multicall, fn: "getChainId" },
    { contract: usdc, fn: "balanceOf", args: [payer.address] },
    { contract: usdc, fn: "balanceOf", args: [payTo.address] },
  ]);
  if (mcChain !== BigInt(BASE_CHAIN_ID) || payerBal !== PAYER_USDC || payToBal !== 0n) {
    throw new Error(`post-build check failed: chain ${mcChain}, payer ${payerBal}, payTo ${payToBal}`);
  }

  const result = {
    rpc_url: rpcUrl,
    chain_id: BASE_CHAIN_ID,
    usdc: usdcAddress,
    multicall3: multicall.address,
    usdc_minter: getAddress(minter),
    payer_private_key: payer.privateKey,
    payer_address: payer.address,
    unfunded_payer_private_key: unfundedPayer.privateKey,
    unfunded_payer_address: unfundedPayer.address,
    pay_to: payTo.address,
    facilitator_private_key: facilitator.privateKey,
    facilitator_address: facilitator.address,
  };
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err) => {
  process.stderr.write(`deploy-base: ${err.stack ?? err}\n`);
  process.exit(1);
});
