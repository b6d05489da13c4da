// Sends transactions from the labelled test wallets (lib/keys.mjs) by signing
// them here, so they carry real signatures and a tester can recover `from`
// exactly as on a real chain (anvil's impersonation would fake them).
import { Transaction, Wallet } from "ethers";

const TIP = 1_000_000_000n; // 1 gwei: fixed, so transaction hashes repeat across builds

export class LocalSigner {
  constructor(rpc, key, chainId = 8453) {
    this.rpc = rpc;
    this.wallet = new Wallet(key.privateKey);
    this.address = this.wallet.address;
    this.label = key.label;
    this.chainId = chainId;
    this.nonce = null; // tracked locally so queued (unmined) transactions get consecutive nonces
  }

  // Signs and submits without waiting for a receipt (needed with automine off).
  // `gas` must be given when estimation would run against the wrong state,
  // e.g. the back-run of a sandwich before its front-run is mined.
  async submit({ to, data = "0x", value = 0n, gas }, label = "tx") {
    const rpc = this.rpc;
    if (this.nonce === null) {
      this.nonce = Number(BigInt(await rpc.request("eth_getTransactionCount", [this.address, "latest"])));
    }
    const valueHex = `0x${BigInt(value).toString(16)}`;
    let gasLimit = gas === undefined ? undefined : BigInt(gas);
    if (gasLimit === undefined) {
      try {
        const est = BigInt(await rpc.request("eth_estimateGas", [{ from: this.address, to, data, value: valueHex }]));
        gasLimit = est + est / 4n; // margin for state that moves between estimate and inclusion
      } catch (err) {
        throw new Error(`${label} from ${this.label}: ${err.message}`);
      }
    }
    const latest = await rpc.request("eth_getBlockByNumber", ["latest", false]);
    const tx = Transaction.from({
      type: 2,
      chainId: this.chainId,
      nonce: this.nonce,
      to,
      data,
      value: BigInt(value),
      gasLimit,
      maxPriorityFeePerGas: TIP,
      maxFeePerGas: BigInt(latest.baseFeePerGas) * 2n + TIP,
    });
    const signed = await this.wallet.signTransaction(tx);
    const hash = await rpc.request("eth_sendRawTransaction", [signed]);
    this.nonce++;
    return hash;
  }

  async sendTx(tx, label) {
    const hash = await this.submit(tx, label);
    return this.rpc.waitReceipt(hash, `${label} from ${this.label}`);
  }
}
