// Thin JSON-RPC layer over fetch. We talk to anvil directly instead of
// through an ethers provider: anvil mines each transaction as it arrives, and
// a provider's block polling (4 s by default) would dominate the build time.
import { Interface } from "ethers";

export class Rpc {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
  }

  async request(method, params = []) {
    const id = this.nextId++;
    let res;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      });
    } catch (err) {
      throw new Error(`${method}: cannot reach ${this.url}: ${err.cause?.message ?? err.message}`);
    }
    const msg = await res.json();
    if (msg.error) {
      const data = msg.error.data ? ` (data ${JSON.stringify(msg.error.data)})` : "";
      throw new Error(`${method}: ${msg.error.message}${data}`);
    }
    return msg.result;
  }

  async chainId() {
    return Number(BigInt(await this.request("eth_chainId")));
  }

  async getCode(address) {
    return this.request("eth_getCode", [address, "latest"]);
  }

  async call(to, data) {
    return this.request("eth_call", [{ to, data }, "latest"]);
  }

  // Waits by polling the receipt, so it also works if anvil was started with
  // --block-time; with automine the first poll already finds it.
  async waitReceipt(hash, label, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const receipt = await this.request("eth_getTransactionReceipt", [hash]);
      if (receipt) {
        if (receipt.status !== "0x1") throw new Error(`${label}: transaction ${hash} reverted`);
        return receipt;
      }
      if (Date.now() > deadline) throw new Error(`${label}: no receipt for ${hash} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  // Sends from an account anvil holds unlocked (eth_sendTransaction), letting
  // anvil estimate gas; a revert surfaces here as an RPC error with its reason.
  async send(tx, label) {
    let hash;
    try {
      hash = await this.request("eth_sendTransaction", [tx]);
    } catch (err) {
      throw new Error(`${label}: ${err.message}`);
    }
    return this.waitReceipt(hash, label);
  }

  async deploy(from, bytecode, label) {
    const receipt = await this.send({ from, data: bytecode }, `deploy ${label}`);
    return receipt.contractAddress;
  }
}

// Binds an ABI to an address so stage code reads like contract calls.
// `from` is an address anvil holds unlocked, or a signer object with
// `sendTx(tx, label)` (lib/signer.mjs) for the labelled test wallets.
export function contractAt(rpc, address, abi, from) {
  const iface = abi instanceof Interface ? abi : new Interface(abi);
  const sendTx = (tx, label) =>
    typeof from === "object" && from !== null ? from.sendTx(tx, label) : rpc.send({ from, ...tx }, label);
  return {
    address,
    iface,
    async send(fn, ...args) {
      const data = iface.encodeFunctionData(fn, args);
      return sendTx({ to: address, data }, `${fn} on ${address}`);
    },
    // Like send, with tx fields such as {value} (hex or bigint) or {gas}.
    async sendWith(fields, fn, ...args) {
      const data = iface.encodeFunctionData(fn, args);
      const hex = Object.fromEntries(
        Object.entries(fields).map(([k, v]) => [k, typeof v === "bigint" || typeof v === "number" ? `0x${BigInt(v).toString(16)}` : v]),
      );
      return sendTx({ ...hex, to: address, data }, `${fn} on ${address}`);
    },
    // Returns the single output unwrapped, or the full Result for several.
    async read(fn, ...args) {
      const data = iface.encodeFunctionData(fn, args);
      const out = iface.decodeFunctionResult(fn, await rpc.call(address, data));
      return out.length === 1 ? out[0] : out;
    },
  };
}

// The full build's client: anvil's gas estimate can come out a little short
// (seen on NonfungiblePositionManager.mint: "not enough gas for reentrancy
// sentry"), so it sends with the estimate plus a margin. Stage 1 keeps the
// plain Rpc.
export class MarginRpc extends Rpc {
  async send(tx, label) {
    if (tx.gas !== undefined) return super.send(tx, label);
    let est;
    try {
      est = BigInt(await this.request("eth_estimateGas", [tx]));
    } catch (err) {
      throw new Error(`${label}: ${err.message}`);
    }
    return super.send({ ...tx, gas: `0x${(est + est / 4n).toString(16)}` }, label);
  }
}
